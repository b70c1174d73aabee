// hola-bench --block-us (stream_block.hpp).
#include "stream_block.hpp"

#include <cstdint>
#include <string>

#include "hola/error.hpp"

namespace hola::bench {
namespace {

__device__ std::uint64_t global_ns() {
  std::uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

__global__ void wait_for(std::uint64_t ns) {
  const std::uint64_t start = global_ns();
  while (global_ns() - start < ns) __nanosleep(1000);
}

}  // namespace

void block_stream(cudaStream_t stream, double microseconds) {
  wait_for<<<1, 1, 0, stream>>>(static_cast<std::uint64_t>(microseconds * 1e3));
  if (const cudaError_t e = cudaGetLastError(); e != cudaSuccess)
    fail(status::cuda, std::string("hola-bench: the blocking kernel: ") + cudaGetErrorString(e));
}

}  // namespace hola::bench
