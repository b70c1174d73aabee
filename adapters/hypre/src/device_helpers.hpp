// Small device kernels of the HYPRE adapter (CUDA builds): packing the values a rank sends to its
// neighbours and scaling y for blocks without nonzeros. No HYPRE headers, so they build whenever
// Hola builds with CUDA. Launches are asynchronous on `stream` (a cudaStream_t); the return value
// is an empty string or the CUDA error.
#pragma once

#include <cstdint>
#include <string>

namespace hola::hypre_adapter {

// out[k] = x[index[k]] for k < n.
template <class V, class I>
std::string device_gather(const V* x, const I* index, std::int64_t n, V* out, void* stream);

// y = beta * y, with y = 0 when beta == 0 (y is not read then).
template <class V>
std::string device_scale(V* y, std::int64_t n, V beta, void* stream);

// Waits for the work queued on stream.
std::string device_synchronize(void* stream);

}  // namespace hola::hypre_adapter
