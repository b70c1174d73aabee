// hola-bench --block-us: a kernel that keeps a stream busy for a while (stream_block.cu).
#pragma once

#include <cuda_runtime_api.h>

namespace hola::bench {

// Queues on `stream` one single-thread kernel that returns after `microseconds` of GPU time, so
// that whatever the host queues behind it in that time (the timing events and a product) waits
// for it: the events then time the product on the GPU alone, without the host's time to queue it.
void block_stream(cudaStream_t stream, double microseconds);

}  // namespace hola::bench
