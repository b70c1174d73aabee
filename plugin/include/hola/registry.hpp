// The kernel registry: every candidate by name, what it supports, and how to make it. It reads
// the kernel table (hola/kernel_table.hpp), where each family describes itself once.
#pragma once

#include <string>
#include <vector>

#include "hola/spmv_kernel.hpp"

namespace hola {

struct KernelInfo {
  std::string name;               // registry key and user option value
  std::string description;        // one line
  Memory memory;                  // where its matrix and vectors live
  bool op_n = true;               // y = A x
  bool op_t = false;              // y = A^T x
  bool deterministic_n = false;   // bitwise reproducible op N available (always or by option)
  bool deterministic_t = false;   // bitwise reproducible op T available
  bool mixed_index_types = true;  // column index and row offset types may differ
  bool setup_data = false;        // keeps data computed from the structure at setup
};

class KernelRegistry {
 public:
  // Every kernel compiled into this build (GPU kernels only in CUDA builds), then "auto".
  static const std::vector<KernelInfo>& kernels();
  // nullptr for unknown names.
  static const KernelInfo* find(const std::string& name);
  // Comma-separated names, for error messages and -help texts.
  static std::string names();
  // The kernel list of docs/kernels.md: every family of the table, whether or not this build
  // has it, then "auto" (`hola-bench --list-kernels --markdown`; a unit test compares the two).
  static std::string markdown_table();

  // Makes the named kernel (not "auto"); throws status::invalid_argument for unknown names and
  // status::unsupported for names this build lacks (e.g. GPU kernels without CUDA).
  template <class V, class I, class O>
  static SpmvKernelPtr<V, I, O> create(const std::string& name, const KernelOptions& options);
};

}  // namespace hola
