// Structural check of a CSR matrix in device memory, run on the GPU (setup time only: it
// synchronises the stream to read the verdict).
#pragma once

#include <string>

#include "hola/csr_view.hpp"

namespace hola::gpu {

#if defined(HOLA_ENABLE_CUDA)
// Empty string when valid; otherwise the first problem found, in the words of check_csr.
template <class V, class I, class O>
std::string check_csr_device(const CsrView<V, I, O>& A, void* stream);
#endif

}  // namespace hola::gpu
