// Batched SpMV (seed 004): y_i = alpha A_i x_i + beta y_i for a batch of many small, independent
// matrices whose sizes, patterns and values may all differ. A different interface from the
// single-matrix SpmvKernel table (kernel_table.hpp): one call covers the whole batch.
//
// Batch layout (docs/batched.md). Every array of a batch uses one index type I (int32 or int64),
// offsets included; the three per-matrix offset arrays have count + 1 entries, start at 0 and
// never decrease:
//   row_off[i] .. row_off[i+1]  rows of matrix i = its entries of the concatenated y
//   col_off[i] .. col_off[i+1]  columns of matrix i = its entries of the concatenated x
//   nnz_off[i] .. nnz_off[i+1]  its stored entries in col_idx / values (/ row_idx)
// Formats:
//   csr         row_ptr is GLOBAL: total_rows + 1 entries, the block-diagonal CSR of the batch,
//               so row_ptr[row_off[i]] == nnz_off[i] for every i and row_ptr[total_rows] ==
//               total_nnz. Column indices are LOCAL to each matrix: in [0, cols_i).
//   csr_shared  the fast path: every matrix has the same pattern (shared_rows x shared_cols,
//               shared_nnz entries; row_ptr local, shared_rows + 1 entries; col_idx shared_nnz
//               entries) and its own values: matrix i's values are values[i*shared_nnz ...],
//               its x is x[i*shared_cols ...], its y is y[i*shared_rows ...]. The offset arrays
//               are not used (may be null).
//   coo         row_idx / col_idx / values: nnz_off gives each matrix's entries; indices local,
//               entries of one matrix sorted by row (any column order, duplicates summed).
//   ell         per matrix a column-major rows_i x width_i slab: nnz_off[i+1] - nnz_off[i] ==
//               rows_i * width_i (width_i is derived from it), slot k of row r at
//               nnz_off[i] + k * rows_i + r; padding slots have col_idx == -1 (value ignored).
// total_rows / total_cols / total_nnz are the lengths of y / x / values that the caller owns;
// the validator checks the offsets against them.
//
// Contract of every apply: beta == 0 never reads y (NaN in it does not leak); x must not overlap
// y. Inputs are validated by validate(); the *_checked functions validate first and write
// nothing when validation fails.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "hola/error.hpp"
#include "hola/types.hpp"

#if defined(__CUDACC__)
#define HOLA_BATCHED_HD __host__ __device__
#else
#define HOLA_BATCHED_HD
#endif

namespace hola::batched {

enum class Format { csr = 0, csr_shared = 1, coo = 2, ell = 3 };

inline const char* format_name(Format f) {
  switch (f) {
    case Format::csr:
      return "csr";
    case Format::csr_shared:
      return "csr_shared";
    case Format::coo:
      return "coo";
    case Format::ell:
      return "ell";
  }
  return "unknown";
}

// Non-owning view of a batch (host or device memory). See the layout above.
template <class V, class I>
struct BatchView {
  static_assert(is_supported_value_v<V>, "value type must be float or double");
  static_assert(is_supported_index_v<I>, "index type must be int32 or int64");
  using value_type = V;
  using index_type = I;

  Format format = Format::csr;
  Memory memory = Memory::host;
  std::int64_t count = 0;  // number of matrices

  const I* row_off = nullptr;  // count + 1 (csr, coo, ell)
  const I* col_off = nullptr;  // count + 1 (csr, coo, ell)
  const I* nnz_off = nullptr;  // count + 1 (csr, coo, ell)

  std::int64_t shared_rows = 0;  // csr_shared only
  std::int64_t shared_cols = 0;
  std::int64_t shared_nnz = 0;

  const I* row_ptr = nullptr;  // csr: total_rows + 1 (global); csr_shared: shared_rows + 1
  const I* row_idx = nullptr;  // coo: total_nnz
  const I* col_idx = nullptr;  // csr, coo, ell: total_nnz; csr_shared: shared_nnz
  const V* values = nullptr;   // total_nnz (csr_shared: count * shared_nnz)

  std::int64_t total_rows = 0;  // length of y
  std::int64_t total_cols = 0;  // length of x
  std::int64_t total_nnz = 0;   // length of values
};

// Batch features, computed by validate() and used by the kernel rule (choose_plan).
struct Features {
  std::int64_t count = 0;
  std::int64_t total_rows = 0;
  std::int64_t total_cols = 0;
  std::int64_t total_nnz = 0;       // stored entries (ELL: slots, padding included)
  std::int64_t max_rows = 0;        // largest rows_i
  std::int64_t max_cols = 0;        // largest cols_i
  std::int64_t max_row_nnz = 0;     // longest row (ELL: largest width)
  std::int64_t empty_matrices = 0;  // rows_i == 0 or cols_i == 0
  double mean_row_nnz() const {
    return total_rows > 0 ? static_cast<double>(total_nnz) / static_cast<double>(total_rows) : 0.0;
  }
  double mean_matrix_nnz() const {
    return count > 0 ? static_cast<double>(total_nnz) / static_cast<double>(count) : 0.0;
  }
};

// Checks a host batch (Memory::host for the index arrays; values is only checked for null, never
// read, so it may point to device memory). Throws hola::error:
//  invalid_argument  negative count or sizes, null arrays that must exist, unknown format
//  size_mismatch     offsets that do not start at 0, decrease, or end off total_rows /
//                    total_cols / total_nnz; an ELL slab that is not rows_i * width_i
//  invalid_csr       row_ptr inconsistent with nnz_off or decreasing, row or column indices out
//                    of range, COO rows not sorted
// Returns the batch features.
template <class V, class I>
Features validate(const BatchView<V, I>& batch);

// Sequential reference, accumulating in wide_t<V> (double for float, long double for double).
// skip: null, or count flags; matrix i is left out (its rows of y untouched) where skip[i] != 0
// (a batched solver's converged systems).
template <class V, class I>
void reference_apply(const BatchView<V, I>& batch, V alpha, const V* x, V beta, V* y,
                     const int* skip = nullptr);

// OpenMP: matrices distributed over threads (dynamic schedule); threads <= 0: OpenMP's default.
// skip as for reference_apply.
template <class V, class I>
void omp_apply(const BatchView<V, I>& batch, V alpha, const V* x, V beta, V* y, int threads = 0,
               const int* skip = nullptr);

// validate() then the kernel; nothing is written when validation throws.
template <class V, class I>
void reference_apply_checked(const BatchView<V, I>& batch, V alpha, const V* x, std::int64_t x_len,
                             V beta, V* y, std::int64_t y_len);
template <class V, class I>
void omp_apply_checked(const BatchView<V, I>& batch, V alpha, const V* x, std::int64_t x_len,
                       V beta, V* y, std::int64_t y_len, int threads = 0);

// Checks x / y lengths against the batch (size_mismatch) and null vectors (invalid_argument;
// y may be null only when the batch has no rows).
template <class V, class I>
void check_vectors(const BatchView<V, I>& batch, const V* x, std::int64_t x_len, const V* y,
                   std::int64_t y_len);

// ---- GPU kernel plan (the `auto` rule; docs/batched.md) ----

enum class Kernel {
  auto_select = 0,
  csr_scalar = 1,
  csr_vector = 2,
  coo = 3,
  ell = 4,
  csr_smart = 5,
  csr_tiled = 6,
  csr_i = 7,
};

HOLA_BATCHED_HD constexpr unsigned format_bit(Format f) { return 1u << static_cast<int>(f); }

// One row per GPU kernel: the one description that the names, the format checks, the auto rule,
// the tests and the benchmark read.
struct KernelDesc {
  Kernel kernel;
  const char* name;
  unsigned formats;     // format_bit of every format it takes
  bool stages_x;        // the rule stages x when it fits (where staging was measured faster)
  const char* mapping;  // how it maps threads to a matrix (one line, for listings)
};

inline constexpr KernelDesc kKernels[] = {
    {Kernel::csr_scalar, "csr_scalar", format_bit(Format::csr) | format_bit(Format::csr_shared),
     false, "one thread per row"},
    {Kernel::csr_vector, "csr_vector", format_bit(Format::csr) | format_bit(Format::csr_shared),
     true, "one warp per row, shuffle reduction"},
    {Kernel::csr_smart, "csr_smart", format_bit(Format::csr) | format_bit(Format::csr_shared), true,
     "seed 004's CSR-smart: W lanes per row, W the power of two >= the matrix's mean row length "
     "(up to 32)"},
    // csr_tiled reads x in order from the tile's products; staging it cost 5-15 % at every group
    // size measured (bench/results/2026-11-26-h100-batched-tiled-regs/): the rule leaves x global.
    {Kernel::csr_tiled, "csr_tiled", format_bit(Format::csr) | format_bit(Format::csr_shared),
     false,
     "tiles of whole rows (up to 4 entries a thread), products loaded coalesced into shared "
     "memory, then W lanes per row; longer rows by the whole group"},
    // csr_i reads x as csr_tiled does; staged x cost it 5-34 % (bench/results/
    // 2026-11-27-h100-batched-csr-i/): the rule leaves x global.
    {Kernel::csr_i, "csr_i", format_bit(Format::csr) | format_bit(Format::csr_shared), false,
     "seed 004's CSR-I: each warp takes the rows that start in its equal share of the matrix's "
     "entries and walks them in csr_tiled's tiles of one warp"},
    {Kernel::coo, "coo", format_bit(Format::coo), false,
     "one thread per row, row start by binary search (rows sorted)"},
    {Kernel::ell, "ell", format_bit(Format::ell), false,
     "one thread per row, column-major slots (coalesced)"},
};

// The description of a GPU kernel (invalid_argument for auto_select or an unknown value).
const KernelDesc& kernel_desc(Kernel k);
// "auto" or the kernel's name.
const char* kernel_name(Kernel k);
// "auto" or a name of kKernels; throws invalid_argument otherwise.
Kernel kernel_from_name(const std::string& name);
// auto_select takes every format.
bool kernel_supports(Kernel k, Format f);

// How a GPU launch maps matrices to threads: a group of group_threads threads (a multiple of 32
// up to block_threads) owns one matrix; a block of block_threads threads holds
// block_threads / group_threads matrices. group_threads == 32: one warp per matrix;
// group_threads == block_threads: one block per matrix. stage_x: each group copies its x_i into
// shared memory first (stage_cols values per group).
struct Plan {
  Kernel kernel = Kernel::csr_scalar;
  int block_threads = 256;
  int group_threads = 32;
  bool stage_x = false;
  std::int64_t stage_cols = 0;
  // csr_tiled, csr_i: 64-bit indices local to a matrix even where the batch's sizes allow 32-bit
  // ones (tiled_local32). Slower; there so that tests can run the 64-bit path on small batches.
  bool local_index_64 = false;
  int matrices_per_block() const { return block_threads / group_threads; }
};

// Dynamic shared memory a block may use (bytes): staged x plus a kernel's own work space. The
// default limit of a launch, so no kernel needs an opt-in attribute.
inline constexpr std::size_t kStageBytesLimit = 48 * 1024;

// csr_tiled: a tile holds up to kTiledEntriesPerThread * group_threads entries (docs/batched.md).
inline constexpr int kTiledEntriesPerThread = 4;
// csr_i: a warp's tile holds up to csr_i_entries_per_thread(sizeof(V)) * 32 entries: 8 a thread
// in double, 4 in float. On an H100 (bench/results/2026-11-27-h100-batched-csr-i/, run G) double
// took 16-18 % less time with 8 than with 4 on the `wide` batches (8 needs the 64-register cap of
// the double kernel); float was 6-14 % slower with 8, and 6 tied with 4 at best.
HOLA_BATCHED_HD constexpr int csr_i_entries_per_thread(std::size_t value_bytes) {
  return value_bytes == 8 ? 8 : 4;
}
// csr_tiled synchronises a group of more than one warp with a named barrier (ids 1..15), so a
// block holds at most this many such groups.
inline constexpr int kTiledMaxGroupsPerBlock = 15;

// Shared memory of csr_tiled's (and csr_i's) work space for a block (bytes), in this order, 16-byte
// aligned after the staged x (kernels/cuda/batched/batched_kernels.cuh): the tiles' products
// (entries_per_thread a thread: kTiledEntriesPerThread for csr_tiled, csr_i_entries_per_thread for
// csr_i), a partial sum a warp, the tiles' row ends (one a thread), two counters a warp (csr_i
// leaves the last two unused but keeps the layout).
HOLA_BATCHED_HD constexpr std::size_t tiled_work_bytes(
    int block_threads, std::size_t value_bytes, int entries_per_thread = kTiledEntriesPerThread) {
  const auto bt = static_cast<std::size_t>(block_threads);
  return bt * (static_cast<std::size_t>(entries_per_thread) * value_bytes + sizeof(int)) +
         (bt / 32) * (value_bytes + 2 * sizeof(int));
}

// A kernel's own shared memory for a block of block_threads threads (bytes; 0 for most).
std::size_t kernel_work_bytes(Kernel k, int block_threads, std::size_t value_bytes);
// Bytes a block may give to staged x under kStageBytesLimit, next to the kernel's work space.
std::size_t stage_bytes_budget(Kernel k, int block_threads, std::size_t value_bytes);
// Dynamic shared memory a launch of plan p takes (bytes): staged x (rounded up to 16 bytes when a
// work space follows) plus the work space.
std::size_t plan_shared_bytes(const Plan& p, std::size_t value_bytes);

// Checks a plan before a launch (host only; gpu::apply calls it): invalid_argument for
// block_threads not a multiple of 32 in 32..1024, group_threads not a multiple of 32 dividing
// it, stage_x with stage_cols <= 0, shared memory over kStageBytesLimit, csr_tiled with more than
// kTiledMaxGroupsPerBlock multi-warp groups a block; unsupported for auto_select or a kernel
// that does not take the format.
void check_plan(const Plan& p, Format format, std::size_t value_bytes);

// The rule (not trained; constants in one place in kernels/batched/batched_cpu.cpp, see
// docs/batched.md): kernel from the format (CSR: csr_i from a mean row length of 8, else
// csr_scalar), group size from the largest matrix (enough threads to give each row of the
// largest matrix one, rounded up to a power of two, 32..256; csr_vector: warps; csr_tiled and
// csr_i: from the mean entries a matrix, a few tiles each), x staged for the kernels whose
// KernelDesc says so, when the block's share fits stage_bytes_budget. `requested` other than
// auto_select forces the kernel (it must support the format: unsupported otherwise).
Plan choose_plan(const Features& f, Format format, std::size_t value_bytes,
                 Kernel requested = Kernel::auto_select);

}  // namespace hola::batched
