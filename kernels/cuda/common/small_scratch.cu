// The process-wide cache of small setup-time scratch blocks (cuda_utils.cuh, StreamScratch).
#include <mutex>
#include <vector>

#include "cuda_utils.cuh"

namespace hola::cuda {
namespace {

struct CachedBlock {
  int device = 0;  // a block serves the device it was allocated on only
  void* ptr = nullptr;
  cudaEvent_t released = nullptr;  // recorded on the last user's stream when handed back
};

struct SmallScratchCache {
  std::mutex mutex;
  std::vector<CachedBlock> free_blocks;  // every block is kSmallScratchMax bytes
  std::vector<CachedBlock> in_use;
};

// Never destroyed: blocks and events may be handed back during static destruction, and freeing
// device memory at exit could synchronise or meet a context already torn down.
SmallScratchCache& cache() {
  static auto* c = new SmallScratchCache;
  return *c;
}

}  // namespace

void* small_scratch_take(std::size_t bytes, cudaStream_t stream) {
  if (bytes > kSmallScratchMax) fail(status::internal, "small_scratch_take: block too large");
  SmallScratchCache& c = cache();
  int device = 0;
  HOLA_CUDA_CHECK(cudaGetDevice(&device));
  CachedBlock b;
  {
    std::lock_guard<std::mutex> lock(c.mutex);
    for (std::size_t i = c.free_blocks.size(); i-- > 0;) {
      if (c.free_blocks[i].device != device) continue;
      b = c.free_blocks[i];
      c.free_blocks[i] = c.free_blocks.back();
      c.free_blocks.pop_back();
      break;
    }
  }
  if (b.ptr) {
    // Stream order: this stream waits until the last user's work on the block is done.
    const cudaError_t e = cudaStreamWaitEvent(stream, b.released, 0);
    if (e != cudaSuccess) {
      std::lock_guard<std::mutex> lock(c.mutex);
      c.free_blocks.push_back(b);
      HOLA_CUDA_CHECK(e);
    }
  } else {
    // One size for every block, so that any cached block serves any request.
    b.device = device;
    HOLA_CUDA_CHECK(cudaMalloc(&b.ptr, kSmallScratchMax));
    const cudaError_t e = cudaEventCreateWithFlags(&b.released, cudaEventDisableTiming);
    if (e != cudaSuccess) {
      cudaFree(b.ptr);
      HOLA_CUDA_CHECK(e);
    }
  }
  std::lock_guard<std::mutex> lock(c.mutex);
  c.in_use.push_back(b);
  return b.ptr;
}

void small_scratch_give_back(void* block, cudaStream_t stream) noexcept {
  SmallScratchCache& c = cache();
  std::lock_guard<std::mutex> lock(c.mutex);
  for (std::size_t i = 0; i < c.in_use.size(); ++i) {
    if (c.in_use[i].ptr != block) continue;
    CachedBlock b = c.in_use[i];
    c.in_use[i] = c.in_use.back();
    c.in_use.pop_back();
    // Without the event the block cannot be reused safely: it stays out of the cache.
    if (cudaEventRecord(b.released, stream) == cudaSuccess)
      c.free_blocks.push_back(b);
    else
      cudaGetLastError();
    return;
  }
}

}  // namespace hola::cuda
