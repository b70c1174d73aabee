// Batched SpMV on the CPU: validation, the sequential reference, the OpenMP kernel, and the
// GPU plan rule (plain host code, shared with the CUDA dispatch).
#include <omp.h>

#include <algorithm>
#include <cstdint>
#include <string>

#include "hola/batched.hpp"
#include "hola/batched_access.hpp"
#include "hola/error.hpp"

namespace hola::batched {
namespace {

std::string at(std::int64_t b) { return " (matrix " + std::to_string(b) + ")"; }

template <class I>
void check_offsets(const char* name, const I* off, std::int64_t count, std::int64_t total) {
  if (off == nullptr) fail(status::invalid_argument, std::string("batched: ") + name + " is null");
  if (off[0] != 0)
    fail(status::size_mismatch, std::string("batched: ") + name + "[0] must be 0, got " +
                                    std::to_string(static_cast<std::int64_t>(off[0])));
  for (std::int64_t b = 0; b < count; ++b)
    if (off[b + 1] < off[b])
      fail(status::size_mismatch, std::string("batched: ") + name + " decreases" + at(b));
  if (static_cast<std::int64_t>(off[count]) != total)
    fail(status::size_mismatch, std::string("batched: ") + name + "[count] = " +
                                    std::to_string(static_cast<std::int64_t>(off[count])) +
                                    " but the batch declares " + std::to_string(total));
}

// a * b == c without overflow (a, b, c >= 0).
bool product_is(std::int64_t a, std::int64_t b, std::int64_t c) {
  if (a == 0 || b == 0) return c == 0;
  if (c % a != 0) return false;
  return c / a == b;
}

template <class V, class I>
Features validate_shared(const BatchView<V, I>& B) {
  if (B.shared_rows < 0 || B.shared_cols < 0 || B.shared_nnz < 0)
    fail(status::invalid_argument, "batched: negative shared_rows / shared_cols / shared_nnz");
  if (!product_is(B.count, B.shared_rows, B.total_rows) ||
      !product_is(B.count, B.shared_cols, B.total_cols) ||
      !product_is(B.count, B.shared_nnz, B.total_nnz))
    fail(status::size_mismatch,
         "batched: csr_shared needs total_rows = count * shared_rows, total_cols = count * "
         "shared_cols and total_nnz = count * shared_nnz");
  if (B.row_ptr == nullptr) fail(status::invalid_argument, "batched: row_ptr is null");
  if (B.shared_nnz > 0 && B.col_idx == nullptr)
    fail(status::invalid_argument, "batched: col_idx is null");
  if (B.total_nnz > 0 && B.values == nullptr)
    fail(status::invalid_argument, "batched: values is null");
  if (B.row_ptr[0] != 0) fail(status::invalid_csr, "batched: shared row_ptr[0] must be 0");
  Features f;
  for (std::int64_t r = 0; r < B.shared_rows; ++r) {
    if (B.row_ptr[r + 1] < B.row_ptr[r])
      fail(status::invalid_csr, "batched: shared row_ptr decreases at row " + std::to_string(r));
    f.max_row_nnz = std::max<std::int64_t>(
        f.max_row_nnz, static_cast<std::int64_t>(B.row_ptr[r + 1] - B.row_ptr[r]));
  }
  if (static_cast<std::int64_t>(B.row_ptr[B.shared_rows]) != B.shared_nnz)
    fail(status::invalid_csr, "batched: shared row_ptr[rows] != shared_nnz");
  for (std::int64_t p = 0; p < B.shared_nnz; ++p)
    if (B.col_idx[p] < 0 || static_cast<std::int64_t>(B.col_idx[p]) >= B.shared_cols)
      fail(status::invalid_csr,
           "batched: shared column index out of range at entry " + std::to_string(p));
  f.count = B.count;
  f.total_rows = B.total_rows;
  f.total_cols = B.total_cols;
  f.total_nnz = B.total_nnz;
  f.max_rows = B.count > 0 ? B.shared_rows : 0;
  f.max_cols = B.count > 0 ? B.shared_cols : 0;
  f.empty_matrices = (B.shared_rows == 0 || B.shared_cols == 0) ? B.count : 0;
  if (B.count == 0) f.max_row_nnz = 0;
  return f;
}

template <class V, class I>
Features validate_offsets(const BatchView<V, I>& B) {
  check_offsets("row_off", B.row_off, B.count, B.total_rows);
  check_offsets("col_off", B.col_off, B.count, B.total_cols);
  check_offsets("nnz_off", B.nnz_off, B.count, B.total_nnz);
  if (B.total_nnz > 0 && B.col_idx == nullptr)
    fail(status::invalid_argument, "batched: col_idx is null");
  if (B.total_nnz > 0 && B.values == nullptr)
    fail(status::invalid_argument, "batched: values is null");
  if (B.format == Format::csr && B.row_ptr == nullptr)
    fail(status::invalid_argument, "batched: row_ptr is null");
  if (B.format == Format::coo && B.total_nnz > 0 && B.row_idx == nullptr)
    fail(status::invalid_argument, "batched: row_idx is null");

  Features f;
  f.count = B.count;
  f.total_rows = B.total_rows;
  f.total_cols = B.total_cols;
  f.total_nnz = B.total_nnz;
  const OffsetAccess<V, I> a(B);
  for (std::int64_t b = 0; b < B.count; ++b) {
    const std::int64_t m = a.rows(b), n = a.cols(b);
    const std::int64_t e0 = a.entry_begin(b), e1 = a.entry_end(b);
    f.max_rows = std::max(f.max_rows, m);
    f.max_cols = std::max(f.max_cols, n);
    if (m == 0 || n == 0) ++f.empty_matrices;
    if (B.format == Format::csr) {
      const std::int64_t r0 = a.y_offset(b);
      if (static_cast<std::int64_t>(B.row_ptr[r0]) != e0)
        fail(status::invalid_csr, "batched: row_ptr[row_off[i]] != nnz_off[i]" + at(b));
      for (std::int64_t r = 0; r < m; ++r) {
        const std::int64_t p0 = B.row_ptr[r0 + r], p1 = B.row_ptr[r0 + r + 1];
        if (p1 < p0) fail(status::invalid_csr, "batched: row_ptr decreases" + at(b));
        if (p1 > e1) fail(status::invalid_csr, "batched: row_ptr passes nnz_off[i+1]" + at(b));
        f.max_row_nnz = std::max(f.max_row_nnz, p1 - p0);
      }
      if (static_cast<std::int64_t>(B.row_ptr[r0 + m]) != e1)
        fail(status::invalid_csr, "batched: row_ptr[row_off[i+1]] != nnz_off[i+1]" + at(b));
      for (std::int64_t p = e0; p < e1; ++p)
        if (B.col_idx[p] < 0 || static_cast<std::int64_t>(B.col_idx[p]) >= n)
          fail(status::invalid_csr, "batched: column index out of range" + at(b));
    } else if (B.format == Format::coo) {
      std::int64_t run = 0;
      for (std::int64_t p = e0; p < e1; ++p) {
        const std::int64_t r = B.row_idx[p];
        if (r < 0 || r >= m) fail(status::invalid_csr, "batched: row index out of range" + at(b));
        if (p > e0 && r < static_cast<std::int64_t>(B.row_idx[p - 1]))
          fail(status::invalid_csr, "batched: COO rows not sorted" + at(b));
        run = (p > e0 && r == static_cast<std::int64_t>(B.row_idx[p - 1])) ? run + 1 : 1;
        f.max_row_nnz = std::max(f.max_row_nnz, run);
        if (B.col_idx[p] < 0 || static_cast<std::int64_t>(B.col_idx[p]) >= n)
          fail(status::invalid_csr, "batched: column index out of range" + at(b));
      }
    } else {  // ell
      const std::int64_t slots = e1 - e0;
      if (m == 0 ? slots != 0 : slots % m != 0)
        fail(status::size_mismatch,
             "batched: ELL slab size " + std::to_string(slots) + " is not rows * width" + at(b));
      f.max_row_nnz = std::max(f.max_row_nnz, m > 0 ? slots / m : 0);
      for (std::int64_t p = e0; p < e1; ++p)
        if (B.col_idx[p] < -1 || static_cast<std::int64_t>(B.col_idx[p]) >= n)
          fail(status::invalid_csr, "batched: ELL column index out of range" + at(b));
    }
  }
  if (B.format == Format::csr && static_cast<std::int64_t>(B.row_ptr[B.total_rows]) != B.total_nnz)
    fail(status::invalid_csr, "batched: row_ptr[total_rows] != total_nnz");
  return f;
}

// One matrix, every format; Acc is the accumulator type.
template <class Acc, class V, class I>
void apply_matrix(const BatchView<V, I>& B, std::int64_t b, V alpha, const V* x, V beta, V* y) {
  if (B.format == Format::csr || B.format == Format::csr_shared) {
    const CsrAccess<V, I> a(B);
    const std::int64_t m = a.rows(b);
    const V* xb = x + a.x_offset(b);
    V* yb = y + a.y_offset(b);
    const V* vals = B.values + a.value_base(b);
    for (std::int64_t r = 0; r < m; ++r) {
      const std::int64_t k = a.row_ptr_index(b, r);
      Acc sum = 0;
      for (std::int64_t p = B.row_ptr[k]; p < static_cast<std::int64_t>(B.row_ptr[k + 1]); ++p)
        sum += static_cast<Acc>(vals[p]) * static_cast<Acc>(xb[B.col_idx[p]]);
      yb[r] = combine<Acc>(alpha, sum, beta, yb + r);
    }
    return;
  }
  const OffsetAccess<V, I> a(B);
  const std::int64_t m = a.rows(b);
  const V* xb = x + a.x_offset(b);
  V* yb = y + a.y_offset(b);
  if (B.format == Format::coo) {
    std::int64_t p = a.entry_begin(b);
    const std::int64_t end = a.entry_end(b);
    for (std::int64_t r = 0; r < m; ++r) {
      Acc sum = 0;
      for (; p < end && static_cast<std::int64_t>(B.row_idx[p]) == r; ++p)
        sum += static_cast<Acc>(B.values[p]) * static_cast<Acc>(xb[B.col_idx[p]]);
      yb[r] = combine<Acc>(alpha, sum, beta, yb + r);
    }
    return;
  }
  const std::int64_t w = a.ell_width(b), base = a.entry_begin(b);
  for (std::int64_t r = 0; r < m; ++r) {
    Acc sum = 0;
    for (std::int64_t k = 0; k < w; ++k) {
      const std::int64_t p = base + k * m + r;
      if (B.col_idx[p] >= 0)
        sum += static_cast<Acc>(B.values[p]) * static_cast<Acc>(xb[B.col_idx[p]]);
    }
    yb[r] = combine<Acc>(alpha, sum, beta, yb + r);
  }
}

}  // namespace

template <class V, class I>
Features validate(const BatchView<V, I>& B) {
  if (B.memory != Memory::host)
    fail(status::invalid_argument, "batched: validate() reads host arrays only");
  if (B.count < 0) fail(status::invalid_argument, "batched: negative count");
  if (B.total_rows < 0 || B.total_cols < 0 || B.total_nnz < 0)
    fail(status::invalid_argument, "batched: negative total_rows / total_cols / total_nnz");
  switch (B.format) {
    case Format::csr_shared:
      return validate_shared(B);
    case Format::csr:
    case Format::coo:
    case Format::ell:
      return validate_offsets(B);
  }
  fail(status::invalid_argument, "batched: unknown format");
}

template <class V, class I>
void check_vectors(const BatchView<V, I>& B, const V* x, std::int64_t x_len, const V* y,
                   std::int64_t y_len) {
  if (x_len != B.total_cols)
    fail(status::size_mismatch, "batched: x has " + std::to_string(x_len) +
                                    " entries, the batch has " + std::to_string(B.total_cols) +
                                    " columns");
  if (y_len != B.total_rows)
    fail(status::size_mismatch, "batched: y has " + std::to_string(y_len) +
                                    " entries, the batch has " + std::to_string(B.total_rows) +
                                    " rows");
  if (x == nullptr && x_len > 0) fail(status::invalid_argument, "batched: x is null");
  if (y == nullptr && y_len > 0) fail(status::invalid_argument, "batched: y is null");
  if (x != nullptr && y != nullptr && x_len > 0 && y_len > 0) {
    const auto xb = reinterpret_cast<std::uintptr_t>(x), yb = reinterpret_cast<std::uintptr_t>(y);
    const auto xe = xb + static_cast<std::uintptr_t>(x_len) * sizeof(V);
    const auto ye = yb + static_cast<std::uintptr_t>(y_len) * sizeof(V);
    if (xb < ye && yb < xe) fail(status::aliasing, "batched: x overlaps y");
  }
}

template <class V, class I>
void reference_apply(const BatchView<V, I>& B, V alpha, const V* x, V beta, V* y, const int* skip) {
  for (std::int64_t b = 0; b < B.count; ++b)
    if (!skip || !skip[b]) apply_matrix<wide_t<V>>(B, b, alpha, x, beta, y);
}

template <class V, class I>
void omp_apply(const BatchView<V, I>& B, V alpha, const V* x, V beta, V* y, int threads,
               const int* skip) {
  const int nt = threads > 0 ? threads : omp_get_max_threads();
#pragma omp parallel for schedule(dynamic, 64) num_threads(nt)
  for (std::int64_t b = 0; b < B.count; ++b)
    if (!skip || !skip[b]) apply_matrix<V>(B, b, alpha, x, beta, y);
}

template <class V, class I>
void reference_apply_checked(const BatchView<V, I>& B, V alpha, const V* x, std::int64_t x_len,
                             V beta, V* y, std::int64_t y_len) {
  validate(B);
  check_vectors(B, x, x_len, y, y_len);
  reference_apply(B, alpha, x, beta, y);
}

template <class V, class I>
void omp_apply_checked(const BatchView<V, I>& B, V alpha, const V* x, std::int64_t x_len, V beta,
                       V* y, std::int64_t y_len, int threads) {
  validate(B);
  check_vectors(B, x, x_len, y, y_len);
  omp_apply(B, alpha, x, beta, y, threads);
}

const KernelDesc& kernel_desc(Kernel k) {
  for (const KernelDesc& d : kKernels)
    if (d.kernel == k) return d;
  fail(status::invalid_argument,
       "batched: no GPU kernel " + std::to_string(static_cast<int>(k)) + " (auto is a rule)");
}

const char* kernel_name(Kernel k) {
  if (k == Kernel::auto_select) return "auto";
  for (const KernelDesc& d : kKernels)
    if (d.kernel == k) return d.name;
  return "unknown";
}

Kernel kernel_from_name(const std::string& name) {
  if (name == "auto") return Kernel::auto_select;
  std::string known = "auto";
  for (const KernelDesc& d : kKernels) {
    if (name == d.name) return d.kernel;
    known += std::string(", ") + d.name;
  }
  fail(status::invalid_argument, "batched: unknown kernel '" + name + "' (" + known + ")");
}

bool kernel_supports(Kernel k, Format f) {
  if (k == Kernel::auto_select) return true;
  for (const KernelDesc& d : kKernels)
    if (d.kernel == k) return (d.formats & format_bit(f)) != 0;
  return false;
}

std::size_t kernel_work_bytes(Kernel k, int block_threads, std::size_t value_bytes) {
  if (k == Kernel::csr_tiled) return tiled_work_bytes(block_threads, value_bytes);
  if (k == Kernel::csr_i)
    return tiled_work_bytes(block_threads, value_bytes, csr_i_entries_per_thread(value_bytes));
  return 0;
}

namespace {
constexpr std::size_t round_up16(std::size_t v) { return (v + 15) / 16 * 16; }
}  // namespace

std::size_t stage_bytes_budget(Kernel k, int block_threads, std::size_t value_bytes) {
  const std::size_t work = kernel_work_bytes(k, block_threads, value_bytes);
  if (work == 0) return kStageBytesLimit;
  // The work space starts at a 16-byte boundary after the staged x.
  return work >= kStageBytesLimit ? 0 : (kStageBytesLimit - work) / 16 * 16;
}

std::size_t plan_shared_bytes(const Plan& p, std::size_t value_bytes) {
  const std::size_t work = kernel_work_bytes(p.kernel, p.block_threads, value_bytes);
  const std::size_t stage = p.stage_x && p.stage_cols > 0
                                ? static_cast<std::size_t>(p.matrices_per_block()) *
                                      static_cast<std::size_t>(p.stage_cols) * value_bytes
                                : 0;
  return (work > 0 ? round_up16(stage) : stage) + work;
}

void check_plan(const Plan& p, Format format, std::size_t value_bytes) {
  if (p.block_threads < 32 || p.block_threads > 1024 || p.block_threads % 32 != 0 ||
      p.group_threads < 32 || p.group_threads % 32 != 0 || p.block_threads % p.group_threads != 0)
    fail(status::invalid_argument,
         "batched: plan needs block_threads a multiple of 32 up to 1024 and group_threads a "
         "multiple of 32 dividing it (got " +
             std::to_string(p.block_threads) + " and " + std::to_string(p.group_threads) + ")");
  if (p.kernel == Kernel::auto_select || !kernel_supports(p.kernel, format))
    fail(status::unsupported, std::string("batched: kernel ") + kernel_name(p.kernel) +
                                  " does not take the " + format_name(format) + " format");
  if (p.stage_x && p.stage_cols <= 0)
    fail(status::invalid_argument, "batched: staged x needs stage_cols > 0");
  // stage_cols bounded first so that the byte count below cannot overflow.
  const std::size_t bytes = p.stage_cols > static_cast<std::int64_t>(kStageBytesLimit)
                                ? kStageBytesLimit + 1
                                : plan_shared_bytes(p, value_bytes);
  if (bytes > kStageBytesLimit)
    fail(status::invalid_argument,
         std::string("batched: plan needs ") + std::to_string(bytes) +
             " bytes of shared memory a block (staged x and the kernel's work space), at most " +
             std::to_string(kStageBytesLimit));
  if (p.kernel == Kernel::csr_tiled && p.group_threads > 32 &&
      p.matrices_per_block() > kTiledMaxGroupsPerBlock)
    fail(status::invalid_argument,
         "batched: csr_tiled synchronises each group of more than one warp with its own named "
         "barrier: at most " +
             std::to_string(kTiledMaxGroupsPerBlock) + " such groups a block");
}

// ---- The auto rule (docs/batched.md "The auto rule"). Its constants, in one place. ----
namespace {

// csr_i instead of csr_scalar when rows average at least kCsrIMinMeanRowNnz entries. Measured on
// an H100 (bench/results/2026-11-27-h100-batched-csr-i/, run C): on the `wide` batches (rows of
// 0..32 entries, mean 16) csr_i with x in global memory was the fastest Hola plan at every size,
// in float and double (e.g. 408 against 572 us for csr_tiled and 627 for csr_scalar, float,
// 256..1024 rows); on batches of mean row length 3..6 a thread per row stayed ahead or tied
// (random 64..256, mean 6: 71 against 80 us double, 48 against 48 float). csr_tiled is no longer
// picked: csr_i was faster than it on every batch of that run.
constexpr double kCsrIMinMeanRowNnz = 8.0;
// csr_i's group: the smallest power of two (32..256 threads) that gives each warp at most about
// this many entries of a matrix of the mean size (six one-warp tiles in float, three in double).
// In the sweep at 89cb4a9 (same folder, run E) the best csr_i group on the `wide` batches of
// 611 / 2 568 / 10 247 entries a matrix was 64 or 32 (double / float, 4 % apart) / 128 / 256;
// this gives 32 / 128 / 256 (640 entries a warp gave 256 for 2 568: 12 % slower in float). Run G
// (8 entries a thread in double) kept the same best groups within 2 %.
constexpr double kCsrIEntriesPerWarp = 768.0;
// csr_tiled's group when forced: the smallest power of two (32..256 threads) with which a matrix
// of the mean size spans at most this many tiles. Several tiles keep the group's last, partly
// filled tile a small share; fewer, larger groups would idle more lanes on it.
constexpr double kTiledTilesPerMatrix = 3.0;

int pow2_at_least(double v, int lo, int hi) {
  int p = lo;
  while (p < hi && p < v) p *= 2;
  return p;
}

}  // namespace

Plan choose_plan(const Features& f, Format format, std::size_t value_bytes, Kernel requested) {
  if (!kernel_supports(requested, format))
    fail(status::unsupported, std::string("batched: kernel ") + kernel_name(requested) +
                                  " does not take the " + format_name(format) + " format");
  Plan p;
  p.block_threads = 256;
  if (requested != Kernel::auto_select) {
    p.kernel = requested;
  } else if (format == Format::coo) {
    p.kernel = Kernel::coo;
  } else if (format == Format::ell) {
    p.kernel = Kernel::ell;
  } else {
    // A thread per row, except for long rows (measured, see above); csr_vector, a warp per row,
    // is not picked: it was never the best CSR plan.
    p.kernel = f.mean_row_nnz() >= kCsrIMinMeanRowNnz ? Kernel::csr_i : Kernel::csr_scalar;
  }
  if (p.kernel == Kernel::csr_vector) {
    // One warp per row: as many warps as rows of the largest matrix, 1..8 warps.
    p.group_threads = 32 * pow2_at_least(static_cast<double>(f.max_rows), 1, p.block_threads / 32);
  } else if (p.kernel == Kernel::csr_tiled) {
    const double tile_entries_per_thread = kTiledEntriesPerThread * kTiledTilesPerMatrix;
    p.group_threads =
        pow2_at_least(f.mean_matrix_nnz() / tile_entries_per_thread, 32, p.block_threads);
  } else if (p.kernel == Kernel::csr_i) {
    p.group_threads =
        pow2_at_least(f.mean_matrix_nnz() / (kCsrIEntriesPerWarp / 32), 32, p.block_threads);
  } else {
    p.group_threads = pow2_at_least(static_cast<double>(f.max_rows), 32, p.block_threads);
  }
  // Staging x in shared memory cost more than it saved for the thread-per-row, COO and ELL
  // kernels in the H200 sweep (0.92 against 0.97 of the best plan, geometric mean over 56
  // batches), for csr_tiled on the H100 (5-15 %) and for csr_i (5-34 % in all 45 pairs of run C);
  // csr_vector and csr_smart keep it (KernelDesc::stages_x).
  // max_cols is bounded first so that the byte count cannot overflow.
  p.stage_x = kernel_desc(p.kernel).stages_x && f.max_cols > 0 &&
              f.max_cols <= static_cast<std::int64_t>(kStageBytesLimit) &&
              static_cast<std::size_t>(p.matrices_per_block()) *
                      static_cast<std::size_t>(f.max_cols) * value_bytes <=
                  stage_bytes_budget(p.kernel, p.block_threads, value_bytes);
  p.stage_cols = p.stage_x ? f.max_cols : 0;
  return p;
}

#define HOLA_BATCHED_INSTANTIATE(V, I)                                                            \
  template Features validate<V, I>(const BatchView<V, I>&);                                       \
  template void check_vectors<V, I>(const BatchView<V, I>&, const V*, std::int64_t, const V*,     \
                                    std::int64_t);                                                \
  template void reference_apply<V, I>(const BatchView<V, I>&, V, const V*, V, V*, const int*);    \
  template void omp_apply<V, I>(const BatchView<V, I>&, V, const V*, V, V*, int, const int*);     \
  template void reference_apply_checked<V, I>(const BatchView<V, I>&, V, const V*, std::int64_t,  \
                                              V, V*, std::int64_t);                               \
  template void omp_apply_checked<V, I>(const BatchView<V, I>&, V, const V*, std::int64_t, V, V*, \
                                        std::int64_t, int);

HOLA_BATCHED_INSTANTIATE(float, std::int32_t)
HOLA_BATCHED_INSTANTIATE(float, std::int64_t)
HOLA_BATCHED_INSTANTIATE(double, std::int32_t)
HOLA_BATCHED_INSTANTIATE(double, std::int64_t)

}  // namespace hola::batched
