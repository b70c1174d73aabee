// The "densify" half of densify-and-SpMV in hola-spmspv-bench: a sparse x scattered into a
// dense vector on the device (zero-filled first), queued on a stream, no synchronization.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

namespace hola::bench {

// dense[0..n) = 0, then dense[idx[k]] = val[k] for k < nnz (device arrays).
template <class V, class I>
void densify(std::int64_t n, std::int64_t nnz, const I* idx, const V* val, V* dense,
             cudaStream_t stream);

}  // namespace hola::bench
