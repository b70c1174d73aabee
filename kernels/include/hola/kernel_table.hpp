// The kernel table: every kernel family describes itself here once, in one row next to its
// factory. The registry (plugin/src/registry.cpp), `hola-bench --list-kernels`, the selector's
// labels, the unit tests and the kernel list of docs/kernels.md all read it
// (docs/architecture.md, "Adding a kernel family").
//
// A row is a struct with
//   static constexpr KernelFamily family{...};   what the family is and can do
//   template <class V, class I, class O>
//   static SpmvKernelPtr<V, I, O> make(const KernelOptions&);   its factory
// where `make` of a device family exists only in builds with HOLA_ENABLE_CUDA.
#pragma once

#include <array>
#include <cstddef>
#include <string_view>
#include <tuple>

#include "hola/cpu_spmv.hpp"
#include "hola/gpu_kernels.hpp"
#include "hola/spmv_kernel.hpp"
#include "hola/types.hpp"

namespace hola {

// What a family can do, in words rather than bare booleans.
enum class Ops { n, n_and_t };                // y = A x; also y = A^T x
enum class Determinism { none, n, n_and_t };  // bitwise reproducible ops (always or by option)
enum class IndexTypes { equal, mixed };       // may column index and row offset types differ
enum class SetupData { none, kept };          // keeps data computed from the structure at setup

struct KernelFamily {
  const char* name;         // registry key and user option value
  const char* description;  // one line
  Memory memory;            // where its matrix and vectors live (device: CUDA builds only)
  Ops ops;
  Determinism determinism;
  IndexTypes index_types;
  SetupData setup;

  constexpr bool op_n() const { return true; }
  constexpr bool op_t() const { return ops == Ops::n_and_t; }
  constexpr bool deterministic_n() const { return determinism != Determinism::none; }
  constexpr bool deterministic_t() const { return determinism == Determinism::n_and_t; }
  constexpr bool mixed_index_types() const { return index_types == IndexTypes::mixed; }
  constexpr bool setup_data() const { return setup == SetupData::kept; }
};

namespace rows {

struct Cpu {
  static constexpr KernelFamily family{
      "cpu",
      "OpenMP merge-path split per thread (host memory)",
      Memory::host,
      Ops::n_and_t,
      Determinism::n_and_t,
      IndexTypes::mixed,
      SetupData::kept,
  };
  template <class V, class I, class O>
  static SpmvKernelPtr<V, I, O> make(const KernelOptions& options) {
    return std::make_unique<cpu::MergeSpmv<V, I, O>>(options);
  }
};

// The GPU families (kernels/cuda/<family>/): device memory, op N and T. A row is
//   HOLA_GPU_ROW(Row, name, description, determinism, index types, setup data, factory call);
// the factory call (declared in hola/gpu_kernels.hpp; V, I, O and `options` are in scope) is
// `make`, which exists in builds with HOLA_ENABLE_CUDA only.
#if defined(HOLA_ENABLE_CUDA)
#define HOLA_GPU_ROW_FACTORY(...)                                    \
  template <class V, class I, class O>                               \
  static SpmvKernelPtr<V, I, O> make(const KernelOptions& options) { \
    return __VA_ARGS__;                                              \
  }
#else
#define HOLA_GPU_ROW_FACTORY(...)
#endif
#define HOLA_GPU_ROW(Row, name, description, determinism, index_types, setup, ...) \
  struct Row {                                                                     \
    static constexpr KernelFamily family{name,                                     \
                                         description,                              \
                                         Memory::device,                           \
                                         Ops::n_and_t,                             \
                                         Determinism::determinism,                 \
                                         IndexTypes::index_types,                  \
                                         SetupData::setup};                        \
    HOLA_GPU_ROW_FACTORY(__VA_ARGS__)                                              \
  }

HOLA_GPU_ROW(Hola, "hola", "Hola-SpMV: strict nnz split per block and thread, bit-mask rows", n,
             mixed, kept, gpu::make_hola<V, I, O>(options));
HOLA_GPU_ROW(Merge, "merge", "merge-path SpMV with deterministic carry fix-up", n, mixed, kept,
             gpu::make_merge<V, I, O>(options));
HOLA_GPU_ROW(Light, "light", "LightSpMV: persistent grid, dynamic rows through an atomic counter",
             n, mixed, kept, gpu::make_light<V, I, O>(options));
HOLA_GPU_ROW(Scalar, "scalar", "one thread per row", n_and_t, mixed, none,
             gpu::make_scalar<V, I, O>(options));
HOLA_GPU_ROW(Vector, "vector", "one warp per row", n_and_t, mixed, none,
             gpu::make_vector<V, I, O>(options));
HOLA_GPU_ROW(VectorAdaptive, "vector-adaptive", "2-32 lanes per row, about 6 entries a lane",
             n_and_t, mixed, none, gpu::make_vector_adaptive<V, I, O>(options));
HOLA_GPU_ROW(Inode, "inode",
             "consecutive rows with one column list (PETSc's inodes) taken together, up to 4 a "
             "vector",
             n, mixed, kept, gpu::make_inode<V, I, O>(options));
HOLA_GPU_ROW(Cusparse, "cusparse", "cuSPARSE cusparseSpMV CSR_ALG1", none, equal, kept,
             gpu::make_cusparse<V, I, O>(options, 1));
HOLA_GPU_ROW(CusparseAlg2, "cusparse-alg2", "cuSPARSE cusparseSpMV CSR_ALG2 (deterministic op N)",
             n, equal, kept, gpu::make_cusparse<V, I, O>(options, 2));

#undef HOLA_GPU_ROW
#undef HOLA_GPU_ROW_FACTORY

}  // namespace rows

// The table, in the order of `hola-bench --list-kernels` and docs/kernels.md.
using KernelTable =
    std::tuple<rows::Cpu, rows::Hola, rows::Merge, rows::Light, rows::Scalar, rows::Vector,
               rows::VectorAdaptive, rows::Inode, rows::Cusparse, rows::CusparseAlg2>;

// Calls f(Row{}) for every row of the table, in order.
template <class F>
constexpr void for_each_kernel_row(F&& f) {
  std::apply([&](auto... row) { (f(row), ...); }, KernelTable{});
}

// Every family's description, whether or not this build has it.
inline constexpr auto kernel_families = std::apply(
    [](auto... row) { return std::array<KernelFamily, sizeof...(row)>{decltype(row)::family...}; },
    KernelTable{});

// Whether this build has the family's kernels (device families need CUDA).
constexpr bool built([[maybe_unused]] const KernelFamily& f) {
#if defined(HOLA_ENABLE_CUDA)
  return true;
#else
  return f.memory == Memory::host;
#endif
}

// nullptr for names that are not in the table.
constexpr const KernelFamily* find_family(std::string_view name) {
  for (const KernelFamily& f : kernel_families)
    if (name == f.name) return &f;
  return nullptr;
}

}  // namespace hola
