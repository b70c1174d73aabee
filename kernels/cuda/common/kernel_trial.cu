// gpu::time_kernels: a short timed race of set-up kernels on scratch vectors ("auto"'s setup
// trial), and gpu::ProductTimer: events around the caller's own products ("auto"'s check at the
// first products); gpu_kernels.hpp.
#include <cuda_runtime.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <limits>
#include <new>
#include <vector>

#include "common/cuda_utils.cuh"
#include "hola/detail/instantiate.hpp"
#include "hola/gpu_kernels.hpp"

namespace hola::gpu {

namespace {

// Events of one timed batch; destroyed with the trial.
struct EventPair {
  cudaEvent_t start = nullptr, stop = nullptr;
  EventPair() {
    HOLA_CUDA_CHECK(cudaEventCreate(&start));
    HOLA_CUDA_CHECK(cudaEventCreate(&stop));
  }
  ~EventPair() {
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
  }
  EventPair(const EventPair&) = delete;
  EventPair& operator=(const EventPair&) = delete;
};

// ProductTimer's gate: one flag in mapped, portable host memory for the process, made at the
// first timer and kept to the end (freeing pinned memory may synchronise the device). Each
// gated slot takes the next ticket; the GPU waits until `opened` reaches it. `opened` only
// grows, so timers of several threads or Operators never stall one another: a later ticket
// opened first releases the earlier gates too (those slots then time a little host work).
struct HostGate {
  std::atomic<std::uint64_t>* opened = nullptr;  // host address, also valid on every GPU (UVA)
  std::atomic<std::uint64_t> issued{0};
};
static_assert(std::atomic<std::uint64_t>::is_always_lock_free);

HostGate* host_gate() {
  static HostGate* const gate = []() -> HostGate* {
    int device = 0, unified = 0;
    if (cudaGetDevice(&device) != cudaSuccess ||
        cudaDeviceGetAttribute(&unified, cudaDevAttrUnifiedAddressing, device) != cudaSuccess ||
        !unified) {
      (void)cudaGetLastError();
      return nullptr;
    }
    void* flag = nullptr;
    if (cudaHostAlloc(&flag, sizeof(std::atomic<std::uint64_t>),
                      cudaHostAllocMapped | cudaHostAllocPortable) != cudaSuccess) {
      (void)cudaGetLastError();
      return nullptr;
    }
    auto* made = new HostGate;
    made->opened = new (flag) std::atomic<std::uint64_t>(0);
    return made;
  }();
  return gate;
}

__device__ std::uint64_t global_ns() {
  std::uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

__global__ void wait_for_ticket(const volatile unsigned long long* opened,
                                unsigned long long ticket, unsigned long long timeout_ns) {
  const std::uint64_t begin = global_ns();
  while (*opened < ticket && global_ns() - begin < timeout_ns) __nanosleep(256);
}

void open_gate(std::uint64_t ticket) {
  std::atomic<std::uint64_t>& opened = *host_gate()->opened;
  std::uint64_t now = opened.load(std::memory_order_relaxed);
  while (now < ticket && !opened.compare_exchange_weak(now, ticket, std::memory_order_release)) {
  }
}

}  // namespace

template <class V, class I, class O>
std::vector<double> time_kernels(const std::vector<SpmvKernel<V, I, O>*>& kernels, Op op,
                                 std::int64_t rows, std::int64_t cols, const KernelTrial& trial,
                                 void* stream) {
  const cudaStream_t s = cuda::as_stream(stream);
  const std::int64_t n_in = op == Op::N ? cols : rows, n_out = op == Op::N ? rows : cols;
  // Zero vectors: the kernels' time does not depend on the values.
  cuda::DeviceBuffer x(static_cast<std::size_t>(std::max<std::int64_t>(n_in, 1)) * sizeof(V));
  cuda::DeviceBuffer y(static_cast<std::size_t>(std::max<std::int64_t>(n_out, 1)) * sizeof(V));
  HOLA_CUDA_CHECK(cudaMemsetAsync(x.get(), 0, x.bytes(), s));
  HOLA_CUDA_CHECK(cudaMemsetAsync(y.get(), 0, y.bytes(), s));
  auto batch = [&](SpmvKernel<V, I, O>* k, int applies) {
    for (int a = 0; a < applies; ++a)
      k->apply(op, V(1), x.as<V>(), V(0), nullptr, y.as<V>(), stream);
  };
  auto timed_batch = [&](EventPair& e, SpmvKernel<V, I, O>* k, int applies) {
    HOLA_CUDA_CHECK(cudaEventRecord(e.start, s));
    batch(k, applies);
    HOLA_CUDA_CHECK(cudaEventRecord(e.stop, s));
  };
  auto elapsed_ms = [](const EventPair& e) {
    float ms = 0;
    HOLA_CUDA_CHECK(cudaEventElapsedTime(&ms, e.start, e.stop));
    return static_cast<double>(ms);
  };
  for (SpmvKernel<V, I, O>* k : kernels) batch(k, 1);
  // One timed apply each sizes the batches.
  std::vector<EventPair> sizing(kernels.size());
  for (std::size_t k = 0; k < kernels.size(); ++k) timed_batch(sizing[k], kernels[k], 1);
  HOLA_CUDA_CHECK(cudaStreamSynchronize(s));
  double fastest = std::numeric_limits<double>::infinity();
  for (const EventPair& e : sizing) fastest = std::min(fastest, elapsed_ms(e));
  const int applies = static_cast<int>(std::clamp(
      std::ceil(trial.round_ms / std::max(fastest, 1e-4)), static_cast<double>(trial.min_applies),
      static_cast<double>(std::max(trial.min_applies, trial.max_applies))));
  // Rounds interleave the kernels, so that a clock or a neighbour's load that changes during
  // the trial touches all of them alike; each kernel keeps its fastest round.
  std::vector<EventPair> events(kernels.size() * static_cast<std::size_t>(trial.rounds));
  for (int r = 0; r < trial.rounds; ++r)
    for (std::size_t k = 0; k < kernels.size(); ++k)
      timed_batch(events[static_cast<std::size_t>(r) * kernels.size() + k], kernels[k], applies);
  HOLA_CUDA_CHECK(cudaStreamSynchronize(s));
  std::vector<double> best(kernels.size(), std::numeric_limits<double>::infinity());
  for (int r = 0; r < trial.rounds; ++r)
    for (std::size_t k = 0; k < kernels.size(); ++k)
      best[k] = std::min(
          best[k], elapsed_ms(events[static_cast<std::size_t>(r) * kernels.size() + k]) / applies);
  return best;
}

ProductTimer::ProductTimer(int slots, double gate_timeout_us)
    : stopped_(static_cast<std::size_t>(slots), false), gate_timeout_us_(gate_timeout_us) {
  events_.reserve(2 * stopped_.size());
  try {
    for (std::size_t k = 0; k < 2 * stopped_.size(); ++k) {
      cudaEvent_t e = nullptr;
      HOLA_CUDA_CHECK(cudaEventCreate(&e));
      events_.push_back(e);
    }
  } catch (...) {
    for (void* e : events_) cudaEventDestroy(static_cast<cudaEvent_t>(e));
    throw;
  }
}

ProductTimer::~ProductTimer() {
  // A product that threw between start() and stop() left its gate closed: open it now rather
  // than let the GPU wait out the timeout.
  if (last_ticket_ != 0) open_gate(last_ticket_);
  for (void* e : events_) cudaEventDestroy(static_cast<cudaEvent_t>(e));
}

bool ProductTimer::gated() const { return host_gate() != nullptr; }

void ProductTimer::start(int slot, void* stream) {
  const cudaStream_t s = cuda::as_stream(stream);
  if (HostGate* gate = host_gate()) {
    const std::uint64_t ticket = gate->issued.fetch_add(1, std::memory_order_relaxed) + 1;
    wait_for_ticket<<<1, 1, 0, s>>>(
        reinterpret_cast<const volatile unsigned long long*>(gate->opened), ticket,
        static_cast<unsigned long long>(gate_timeout_us_ * 1e3));
    HOLA_CUDA_CHECK_LAUNCH("ProductTimer's gate");
    last_ticket_ = ticket;
  }
  HOLA_CUDA_CHECK(cudaEventRecord(static_cast<cudaEvent_t>(events_[2 * slot]), s));
}

void ProductTimer::stop(int slot, void* stream) {
  HOLA_CUDA_CHECK(
      cudaEventRecord(static_cast<cudaEvent_t>(events_[2 * slot + 1]), cuda::as_stream(stream)));
  stopped_[static_cast<std::size_t>(slot)] = true;
  if (last_ticket_ != 0) {
    open_gate(last_ticket_);
    last_ticket_ = 0;
  }
}

void ProductTimer::wait() const {
  for (std::size_t k = 0; k < stopped_.size(); ++k) {
    if (!stopped_[k]) fail(status::internal, "ProductTimer::wait: a slot was never stopped");
    HOLA_CUDA_CHECK(cudaEventSynchronize(static_cast<cudaEvent_t>(events_[2 * k + 1])));
  }
}

double ProductTimer::elapsed_ms(int slot) const {
  float ms = 0;
  HOLA_CUDA_CHECK(cudaEventElapsedTime(&ms, static_cast<cudaEvent_t>(events_[2 * slot]),
                                       static_cast<cudaEvent_t>(events_[2 * slot + 1])));
  return static_cast<double>(ms);
}

bool stream_capturing(void* stream) {
  cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
  const cudaError_t e = cudaStreamIsCapturing(cuda::as_stream(stream), &capture);
  if (e != cudaSuccess) {
    // cudaErrorStreamCaptureImplicit: treated as capturing, and taken back off the last error.
    if (cudaPeekAtLastError() == e) (void)cudaGetLastError();
    return true;
  }
  return capture != cudaStreamCaptureStatusNone;
}

#define HOLA_INSTANTIATE(V, I, O)                                                                  \
  template std::vector<double> time_kernels<V, I, O>(const std::vector<SpmvKernel<V, I, O>*>&, Op, \
                                                     std::int64_t, std::int64_t,                   \
                                                     const KernelTrial&, void*);
HOLA_FOR_EACH_VALUE_INDEX_OFFSET(HOLA_INSTANTIATE)
#undef HOLA_INSTANTIATE

}  // namespace hola::gpu
