// Kernel choice for "auto". Until the learned selector exists (issue 5) this is a rule set from
// the benchmark results in bench/results/ (see docs/kernels.md).
#pragma once

#include <string>

#include "hola/csr_view.hpp"

namespace hola {

struct KernelSelection {
  std::string name;    // registry name
  std::string reason;  // human-readable, shown by -mat_hola_view and hola-bench
};

template <class V, class I, class O>
KernelSelection select_kernel(const std::string& requested, Memory memory,
                              const CsrView<V, I, O>& A) {
  (void)A;
  if (memory == Memory::host)
    return {"cpu", requested == "auto" || requested == "cpu"
                       ? "host memory: OpenMP CPU kernel"
                       : "host memory: OpenMP CPU kernel (requested '" + requested +
                             "' runs on the GPU only)"};
  if (requested != "auto") return {requested, "requested"};
  return {"hola", "auto: hola (default rule for device matrices)"};
}

}  // namespace hola
