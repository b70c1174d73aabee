#include "hola/structure_sample.hpp"

#include "hola/detail/instantiate.hpp"
#include "hola/error.hpp"

namespace hola {

template <class I, class O>
std::vector<std::int64_t> structure_sample(const O* row_ptr, const I* col_idx, std::int64_t rows,
                                           std::int64_t nnz) {
  std::vector<std::int64_t> s(2 * kStructureSamples, 0);
  for (int k = 0; k < kStructureSamples; ++k) {
    if (row_ptr) s[k] = static_cast<std::int64_t>(row_ptr[structure_sample_position(k, rows)]);
    if (col_idx && nnz > 0)
      s[kStructureSamples + k] =
          static_cast<std::int64_t>(col_idx[structure_sample_position(k, nnz - 1)]);
  }
  return s;
}

#define HOLA_INSTANTIATE(I, O)                                                                \
  template std::vector<std::int64_t> structure_sample<I, O>(const O*, const I*, std::int64_t, \
                                                            std::int64_t);
HOLA_FOR_EACH_INDEX_OFFSET(HOLA_INSTANTIATE)
#undef HOLA_INSTANTIATE

#if !defined(HOLA_ENABLE_CUDA)
namespace gpu {
template <class I, class O>
std::vector<std::int64_t> structure_sample_device(const O*, const I*, std::int64_t, std::int64_t,
                                                  void*) {
  fail(status::no_device, "this build of Hola has no CUDA support");
}
#define HOLA_INSTANTIATE(I, O)                                      \
  template std::vector<std::int64_t> structure_sample_device<I, O>( \
      const O*, const I*, std::int64_t, std::int64_t, void*);
HOLA_FOR_EACH_INDEX_OFFSET(HOLA_INSTANTIATE)
#undef HOLA_INSTANTIATE
}  // namespace gpu
#endif

}  // namespace hola
