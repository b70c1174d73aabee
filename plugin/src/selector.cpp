#include "hola/selector.hpp"

#include <cstdint>
#include <sstream>
#include <type_traits>
#include <vector>

#include "hola/detail/instantiate.hpp"
#include "hola/gpu_kernels.hpp"

namespace hola {

KernelSelection select_device_kernel(Op op, bool single_precision, bool vendor_available,
                                     const RowLengthStats& s) {
  std::ostringstream why;
  why << "auto (rows " << s.rows << ", mean row " << s.mean_row() << ", max row " << s.max_row
      << "): ";
  // Short, even rows: one thread per row reads each row in one go and writes y coalesced; it
  // was the fastest kernel for both ops on the 7-point stencils and the small banded matrix
  // (1.3-2.1x cuSPARSE). Long rows make it serialise, so the longest row bounds it.
  if (s.rows > 0 && s.max_row <= 32 && s.mean_row() <= 12.0) {
    why << "short even rows -> scalar";
    return {"scalar", why.str()};
  }
  if (op == Op::T) {
    // No Hola transpose beat cuSPARSE's on the irregular and long-row matrices yet.
    if (vendor_available) {
      why << "transpose -> cusparse";
      return {"cusparse", why.str()};
    }
    why << "transpose, mixed index types (no cuSPARSE) -> hola";
    return {"hola", why.str()};
  }
  // Double: hola was fastest or within 6 % of the best on every other anchor matrix. Single:
  // cuSPARSE ALG1 was ahead of hola on the stencils and banded matrices.
  if (single_precision && vendor_available) {
    why << "single precision -> cusparse";
    return {"cusparse", why.str()};
  }
  why << "-> hola";
  return {"hola", why.str()};
}

template <class V, class I, class O>
KernelChoice select_kernels(const std::string& requested, const CsrView<V, I, O>& A) {
  if (A.memory == Memory::host) {
    const KernelSelection cpu{"cpu", requested == "auto" || requested == "cpu"
                                         ? "host memory: OpenMP CPU kernel"
                                         : "host memory: OpenMP CPU kernel (requested '" +
                                               requested + "' runs on the GPU only)"};
    return {cpu, cpu};
  }
  if (requested != "auto") return {{requested, "requested"}, {requested, "requested"}};
  RowLengthStats stats;
  if (A.rows > 0) {
    std::vector<O> row_ptr(static_cast<std::size_t>(A.rows + 1));
    gpu::copy_device_to_host(row_ptr.data(), A.row_ptr, row_ptr.size() * sizeof(O));
    stats = row_length_stats(row_ptr.data(), A.rows);
  }
  const bool single = std::is_same_v<V, float>, vendor = std::is_same_v<I, O>;
  return {select_device_kernel(Op::N, single, vendor, stats),
          select_device_kernel(Op::T, single, vendor, stats)};
}

#define HOLA_INSTANTIATE(V, I, O) \
  template KernelChoice select_kernels<V, I, O>(const std::string&, const CsrView<V, I, O>&);
HOLA_FOR_EACH_VALUE_INDEX_OFFSET(HOLA_INSTANTIATE)
#undef HOLA_INSTANTIATE

}  // namespace hola
