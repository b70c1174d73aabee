// Kernel choice for "auto". Until the learned selector exists (issue 5) this is a rule read off
// the H200 benchmark in bench/results/ (docs/kernels.md explains it).
#pragma once

#include <string>

#include "hola/csr_view.hpp"
#include "hola/features.hpp"
#include "hola/types.hpp"

namespace hola {

struct KernelSelection {
  std::string name;    // registry name
  std::string reason;  // human-readable, shown by -mat_hola_view and hola-bench
};

// The rule itself, on the row-length statistics (tested on the CPU).
// `vendor_available`: cuSPARSE can take these index types (column index type == offset type).
KernelSelection select_device_kernel(Op op, bool single_precision, bool vendor_available,
                                     const RowLengthStats& stats);

struct KernelChoice {
  KernelSelection n, t;  // for y = A x and y = A^T x
};

// Resolves `requested` for a matrix: host matrices always get "cpu"; "auto" on a device matrix
// reads its row offsets once (setup time) and applies select_device_kernel for each op.
template <class V, class I, class O>
KernelChoice select_kernels(const std::string& requested, const CsrView<V, I, O>& A);

}  // namespace hola
