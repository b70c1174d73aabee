// Internal CUDA helpers shared by the GPU kernel families (not installed).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>

#include "hola/error.hpp"

namespace hola::cuda {

[[noreturn]] inline void throw_cuda(cudaError_t e, const char* what, const char* file, int line) {
  // The runtime also keeps a failed call's error as its "last error" (an allocation that ran out
  // of memory, a bad launch). Reported here, it is cleared, so that the next launch check
  // (cudaPeekAtLastError) of an unrelated kernel does not report it again. A sticky error (the
  // context is lost) stays whatever is done here.
  cudaGetLastError();
  fail(e == cudaErrorMemoryAllocation ? status::out_of_memory : status::cuda,
       std::string(what) + ": " + cudaGetErrorName(e) + " (" + cudaGetErrorString(e) + ") at " +
           file + ":" + std::to_string(line));
}

}  // namespace hola::cuda

// Checks a CUDA runtime call; throws hola::error on failure.
#define HOLA_CUDA_CHECK(call)                                                                     \
  do {                                                                                            \
    cudaError_t hola_err_ = (call);                                                               \
    if (hola_err_ != cudaSuccess) ::hola::cuda::throw_cuda(hola_err_, #call, __FILE__, __LINE__); \
  } while (0)

// After a launch: catches configuration errors without synchronizing.
#define HOLA_CUDA_CHECK_LAUNCH(name) HOLA_CUDA_CHECK(cudaPeekAtLastError())

namespace hola::cuda {

inline constexpr int kWarpSize = 32;
inline constexpr unsigned kFullWarpMask = 0xffffffffu;

inline cudaStream_t as_stream(void* s) { return static_cast<cudaStream_t>(s); }

// Owning device allocation, made at setup and freed with the kernel object.
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t bytes) { resize(bytes); }
  ~DeviceBuffer() { release(); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  DeviceBuffer(DeviceBuffer&& o) noexcept
      : ptr_(std::exchange(o.ptr_, nullptr)), bytes_(std::exchange(o.bytes_, 0)) {}
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
    if (this != &o) {
      release();
      ptr_ = std::exchange(o.ptr_, nullptr);
      bytes_ = std::exchange(o.bytes_, 0);
    }
    return *this;
  }

  // Grows only; keeps the allocation when it is already large enough.
  void resize(std::size_t bytes) {
    if (bytes <= bytes_) return;
    release();
    if (bytes == 0) return;
    HOLA_CUDA_CHECK(cudaMalloc(&ptr_, bytes));
    bytes_ = bytes;
  }
  void release() noexcept {
    if (ptr_) cudaFree(ptr_);
    ptr_ = nullptr;
    bytes_ = 0;
  }
  template <class T>
  T* as() const {
    return static_cast<T*>(ptr_);
  }
  void* get() const { return ptr_; }
  std::size_t bytes() const { return bytes_; }

 private:
  void* ptr_ = nullptr;
  std::size_t bytes_ = 0;
};

// Blocks of at most kSmallScratchMax bytes from a process-wide cache of cudaMalloc'd blocks,
// kept for the process. A block handed back records an event on its stream; the next taker
// waits for that event on its own stream (cudaStreamWaitEvent), so reuse is stream-ordered and
// nothing synchronises the host or the device. Why not the stream-ordered pool for these: the
// pool's first allocation in a process maps its memory, 9-13 ms on an H200
// (bench/results/2026-11-27-h200-session7/, run E), which an Operator's first setup (validation
// flags, feature counters) paid whenever the host library had not used the pool.
inline constexpr std::size_t kSmallScratchMax = 1 << 20;
struct SmallScratchBlock {
  int device = 0;  // a block serves the device it was allocated on only
  void* ptr = nullptr;
  cudaEvent_t released = nullptr;  // recorded on the last user's stream when handed back
};
SmallScratchBlock small_scratch_take(std::size_t bytes, cudaStream_t stream);
void small_scratch_give_back(const SmallScratchBlock& block, cudaStream_t stream) noexcept;

// Setup-time scratch in stream order: small blocks from the cache above, larger ones from the
// stream-ordered pool (cudaMallocAsync / cudaFreeAsync on `stream`). Unlike cudaFree, neither
// synchronises the whole device, so an analysis on the caller's stream leaves other streams
// alone. Given back when it goes out of scope, after the work queued on the stream (the caller
// synchronises before reading results anyway).
class StreamScratch {
 public:
  StreamScratch(std::size_t bytes, cudaStream_t stream) : stream_(stream) {
    if (bytes == 0) return;
    // A capture records the pool's allocation as a graph node; the cache's events would not be.
    cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
    HOLA_CUDA_CHECK(cudaStreamIsCapturing(stream, &capture));
    small_ = bytes <= kSmallScratchMax && capture == cudaStreamCaptureStatusNone;
    if (small_) {
      block_ = small_scratch_take(bytes, stream);
      ptr_ = block_.ptr;
    } else {
      HOLA_CUDA_CHECK(cudaMallocAsync(&ptr_, bytes, stream));
    }
  }
  ~StreamScratch() {
    if (!ptr_) return;
    if (small_)
      small_scratch_give_back(block_, stream_);
    else
      cudaFreeAsync(ptr_, stream_);
  }
  StreamScratch(const StreamScratch&) = delete;
  StreamScratch& operator=(const StreamScratch&) = delete;
  template <class T>
  T* as() const {
    return static_cast<T*>(ptr_);
  }

 private:
  void* ptr_ = nullptr;
  cudaStream_t stream_;
  bool small_ = false;
  SmallScratchBlock block_;  // small_: the cached block
};

// Properties of the current device, read once per process and device.
struct DeviceInfo {
  int device = 0;
  int sm_count = 0;
  int max_threads_per_sm = 0;
  std::size_t l2_bytes = 0;
  std::size_t shared_per_block_optin = 0;
};
const DeviceInfo& current_device_info();

inline unsigned div_up(std::size_t a, std::size_t b) {
  return static_cast<unsigned>((a + b - 1) / b);
}

// The row holding CSR slot p: the last r in [lo, rows) with row_ptr[r] <= p, by binary search
// (empty rows share their offset with the next row, so the last one is the row that holds p).
// Needs row_ptr[lo] <= p < row_ptr[rows].
template <class O>
__device__ __forceinline__ std::int64_t row_of_slot(const O* row_ptr, std::int64_t rows,
                                                    std::int64_t p, std::int64_t lo = 0) {
  std::int64_t hi = rows;
  while (hi - lo > 1) {
    const std::int64_t mid = lo + (hi - lo) / 2;
    if (static_cast<std::int64_t>(row_ptr[mid]) <= p)
      lo = mid;
    else
      hi = mid;
  }
  return lo;
}

// Asks the L2 for the 128-byte lines that hold [first, last), one line per thread of a block of
// `threads` (a hint: nothing waits for it). Every line holds an element of the range, so no page
// outside the array is touched.
template <class T>
__device__ __forceinline__ void prefetch_l2_lines(const T* first, const T* last, int threads) {
  constexpr std::uintptr_t kLine = 128;
  const std::uintptr_t end = reinterpret_cast<std::uintptr_t>(last);
  const std::uintptr_t step = static_cast<std::uintptr_t>(threads) * kLine;
  for (std::uintptr_t line =
           (reinterpret_cast<std::uintptr_t>(first) & ~(kLine - 1)) + threadIdx.x * kLine;
       line < end; line += step)
    asm volatile("prefetch.global.L2 [%0];" ::"l"(line));
}

}  // namespace hola::cuda
