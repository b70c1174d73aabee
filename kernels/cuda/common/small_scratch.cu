// The process-wide cache of small setup-time scratch blocks (cuda_utils.cuh, StreamScratch).
#include <mutex>
#include <vector>

#include "cuda_utils.cuh"

namespace hola::cuda {
namespace {

struct SmallScratchCache {
  std::mutex mutex;
  std::vector<SmallScratchBlock> free_blocks;  // every block is kSmallScratchMax bytes
};

// Never destroyed: blocks and events may be handed back during static destruction, and freeing
// device memory at exit could synchronise or meet a context already torn down.
SmallScratchCache& cache() {
  static auto* c = new SmallScratchCache;
  return *c;
}

}  // namespace

SmallScratchBlock small_scratch_take(std::size_t bytes, cudaStream_t stream) {
  if (bytes > kSmallScratchMax) fail(status::internal, "small_scratch_take: block too large");
  SmallScratchCache& c = cache();
  int device = 0;
  HOLA_CUDA_CHECK(cudaGetDevice(&device));
  SmallScratchBlock b;
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
    return b;
  }
  // One size for every block, so that any cached block serves any request.
  b.device = device;
  HOLA_CUDA_CHECK(cudaMalloc(&b.ptr, kSmallScratchMax));
  const cudaError_t e = cudaEventCreateWithFlags(&b.released, cudaEventDisableTiming);
  if (e != cudaSuccess) {
    cudaFree(b.ptr);
    HOLA_CUDA_CHECK(e);
  }
  return b;
}

void small_scratch_give_back(const SmallScratchBlock& block, cudaStream_t stream) noexcept {
  // Without the event the block cannot be reused safely: it stays out of the cache.
  if (cudaEventRecord(block.released, stream) != cudaSuccess) {
    cudaGetLastError();
    return;
  }
  SmallScratchCache& c = cache();
  std::lock_guard<std::mutex> lock(c.mutex);
  c.free_blocks.push_back(block);
}

}  // namespace hola::cuda
