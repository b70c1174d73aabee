// Explicit instantiations of the inode kernel for float values (split by value type so that the
// build compiles the two halves in parallel).
#include "hola/detail/instantiate.hpp"
#include "inode/inode_kernel.cuh"

namespace hola::gpu {
HOLA_FOR_EACH_INDEX_OFFSET_OF(HOLA_INODE_INSTANTIATE, float)
}  // namespace hola::gpu
