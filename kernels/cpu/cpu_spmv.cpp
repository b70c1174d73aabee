// OpenMP merge-path SpMV (Merrill & Garland's split, CPU flavour).
//
// The merge path interleaves the rows' end markers (row_ptr[1..rows]) with the nonzeros
// 0..nnz-1; it has rows + nnz items and share t of threads_ gets an equal slice of it, so rows
// and nonzeros are balanced together (empty rows cost something, long rows are cut).
// A share starting at (i0, j0) satisfies row_ptr[i0] <= j0 <= row_ptr[i0 + 1].
//
// Op N: a share writes every row whose end marker it consumes, except a first row that began
// in an earlier share (its partial goes to head_). The row it ends inside gets a carry. After
// the parallel region the carries and heads of each split row are summed in share order and
// the row is written once: results depend on the number of shares only, never on timing.
//
// Op T: a share scatters its nonzeros into a private buffer covering only the column range its
// nonzeros touch (known at setup), then the buffers are reduced column-block by column-block,
// always in share order.
#include "hola/cpu_spmv.hpp"

#include <algorithm>
#include <cstdint>
#include <string>

#include "hola/detail/instantiate.hpp"
#include "hola/error.hpp"
#include "hola/validate.hpp"

#ifdef _OPENMP
#include <omp.h>
#else
inline int omp_get_max_threads() { return 1; }
inline int omp_get_num_threads() { return 1; }
inline int omp_get_thread_num() { return 0; }
#endif

namespace hola::cpu {
namespace {

// Below this many merge-path items per thread the default thread count shrinks: waking
// threads costs more than it saves.
constexpr std::int64_t kMinItemsPerThread = 4096;
// Below this many items in all, the shares (even an explicit options.cpu_threads of them) run
// one after the other on the calling thread: same shares, same order, so the same bits.
constexpr std::int64_t kMinParallelItems = 8192;
// Columns per block of the op T reduction (the block's sums stay in a stack array).
constexpr std::int64_t kReduceBlock = 1024;

// y_out[i] = alpha s + beta y_in[i], in the accumulation type A (y_in not read when beta == 0).
// y_in[i] is read just before y_out[i] is written, by the same thread: in place is safe.
template <class V, class A>
struct ScaleInto {
  A alpha, beta;
  bool use_y;
  const V* y_in;
  V* y_out;
  ScaleInto(V a, V b, const V* in, V* out)
      : alpha(a), beta(b), use_y(b != V(0)), y_in(in), y_out(out) {}
  void operator()(std::int64_t i, A s) const {
    A r = alpha * s;
    if (use_y) r += beta * static_cast<A>(y_in[i]);
    y_out[i] = static_cast<V>(r);
  }
};

// Merge-path coordinate on diagonal d: row-end markers consumed (i) and nonzeros consumed
// (d - i). A row end is taken before a nonzero once all of the row's nonzeros are taken.
template <class O>
void merge_path_search(std::int64_t d, std::int64_t rows, std::int64_t nnz, const O* row_ptr,
                       std::int64_t* row, std::int64_t* nz) {
  std::int64_t lo = std::max<std::int64_t>(0, d - nnz);
  std::int64_t hi = std::min(d, rows);
  while (lo < hi) {
    const std::int64_t mid = lo + (hi - lo) / 2;
    // Row end `mid` (value row_ptr[mid + 1]) comes before nonzero d - mid - 1?
    if (static_cast<std::int64_t>(row_ptr[mid + 1]) <= d - mid - 1)
      lo = mid + 1;
    else
      hi = mid;
  }
  *row = lo;
  *nz = d - lo;
}

}  // namespace

template <class V, class I, class O>
MergeSpmv<V, I, O>::MergeSpmv(const KernelOptions& options) : options_(options) {
  if (options.cpu_threads < 0)
    fail(status::invalid_argument, "cpu_threads must be >= 0 (0: OpenMP's default), got " +
                                       std::to_string(options.cpu_threads));
}

template <class V, class I, class O>
void MergeSpmv<V, I, O>::setup(const CsrView<V, I, O>& A, void*) {
  if (A.memory != Memory::host)
    fail(status::invalid_argument, "cpu kernel: the matrix must be in host memory");
  const std::string shape = check_csr_shape(A);
  if (!shape.empty()) fail(status::invalid_argument, "cpu kernel: " + shape);
  A_ = A;

  const std::int64_t total = A.rows + A.nnz;
  if (options_.cpu_threads > 0) {
    threads_ = options_.cpu_threads;
  } else {
    const std::int64_t by_work = std::max<std::int64_t>(1, total / kMinItemsPerThread);
    threads_ = static_cast<int>(std::min<std::int64_t>(omp_get_max_threads(), by_work));
  }
  const int T = threads_;
  // Op T's reduction runs over the columns: count them as work too.
  parallel_ = T > 1 && total + A.cols >= kMinParallelItems;

  start_row_.assign(T + 1, 0);
  start_nz_.assign(T + 1, 0);
  const std::int64_t per = (total + T - 1) / T;
  for (int t = 0; t <= T; ++t) {
    const std::int64_t d = std::min(per * t, total);
    merge_path_search(d, A.rows, A.nnz, A.row_ptr, &start_row_[t], &start_nz_[t]);
  }
  has_head_.assign(T, 0);
  for (int t = 0; t < T; ++t) {
    const std::int64_t i0 = start_row_[t];
    has_head_[t] =
        i0 < start_row_[t + 1] && static_cast<std::int64_t>(A.row_ptr[i0]) < start_nz_[t];
  }
  head_.assign(T, 0);
  carry_.assign(T, 0);

  // Column range of each share's nonzeros: the op T buffers cover only that.
  t_col_lo_.assign(T, 0);
  t_col_hi_.assign(T, 0);
#pragma omp parallel for num_threads(T) if (parallel_) schedule(static, 1)
  for (int t = 0; t < T; ++t) {
    std::int64_t lo = A.cols, hi = 0;
    for (std::int64_t k = start_nz_[t]; k < start_nz_[t + 1]; ++k) {
      const std::int64_t c = A.col_idx[k];
      lo = std::min(lo, c);
      hi = std::max(hi, c + 1);
    }
    if (lo < hi) {
      t_col_lo_[t] = lo;
      t_col_hi_[t] = hi;
    }
  }
  t_off_.assign(T + 1, 0);
  for (int t = 0; t < T; ++t) t_off_[t + 1] = t_off_[t] + (t_col_hi_[t] - t_col_lo_[t]);
  t_buf_size_ = static_cast<std::size_t>(t_off_[T]);
  t_buf_.reset(t_buf_size_ ? new acc_t[t_buf_size_] : nullptr);
  // First touch by the thread that will use each buffer (NUMA placement).
#pragma omp parallel for num_threads(T) if (parallel_) schedule(static, 1)
  for (int t = 0; t < T; ++t)
    std::fill(t_buf_.get() + t_off_[t], t_buf_.get() + t_off_[t + 1], 0.0);
}

template <class V, class I, class O>
std::size_t MergeSpmv<V, I, O>::workspace_bytes() const {
  return (start_row_.capacity() + start_nz_.capacity() + t_col_lo_.capacity() +
          t_col_hi_.capacity() + t_off_.capacity()) *
             sizeof(std::int64_t) +
         has_head_.capacity() + (head_.capacity() + carry_.capacity()) * sizeof(acc_t) +
         t_buf_size_ * sizeof(acc_t);
}

template <class V, class I, class O>
void MergeSpmv<V, I, O>::apply(Op op, V alpha, const V* x, V beta, const V* y_in, V* y_out, void*) {
  const std::int64_t nx = op == Op::N ? A_.cols : A_.rows;
  const std::int64_t ny = op == Op::N ? A_.rows : A_.cols;
  if (ny > 0 && y_out == nullptr) fail(status::invalid_argument, "cpu kernel: y_out is null");
  if (ny > 0 && beta != V(0) && y_in == nullptr)
    fail(status::invalid_argument, "cpu kernel: y_in is null but beta != 0");
  if (nx > 0 && A_.nnz > 0 && alpha != V(0) && x == nullptr)
    fail(status::invalid_argument, "cpu kernel: x is null");

  if (alpha == V(0)) {
    // BLAS: A and x are not read; beta == 0 does not read y_in either.
    const bool use_y = beta != V(0);
    const acc_t b = beta;
#pragma omp parallel for num_threads(threads_) if (threads_ > 1 && ny >= kMinParallelItems) \
    schedule(static)
    for (std::int64_t i = 0; i < ny; ++i)
      y_out[i] = use_y ? static_cast<V>(b * static_cast<acc_t>(y_in[i])) : V(0);
    return;
  }
  if (op == Op::N)
    apply_n(alpha, x, beta, y_in, y_out);
  else
    apply_t(alpha, x, beta, y_in, y_out);
}

template <class V, class I, class O>
void MergeSpmv<V, I, O>::apply_n(V alpha, const V* x, V beta, const V* y_in, V* y_out) {
  const ScaleInto<V, acc_t> finish(alpha, beta, y_in, y_out);
  const O* __restrict rp = A_.row_ptr;
  const I* __restrict ci = A_.col_idx;
  const V* __restrict va = A_.values;
  const int T = threads_;

#pragma omp parallel num_threads(T) if (parallel_)
  {
    // The team may be smaller than T (nested region, thread limit): loop over the shares.
    const int nth = omp_get_num_threads();
    for (int t = omp_get_thread_num(); t < T; t += nth) {
      std::int64_t i = start_row_[t];
      const std::int64_t i1 = start_row_[t + 1];
      std::int64_t j = start_nz_[t];
      const std::int64_t j1 = start_nz_[t + 1];
      if (i < i1) {
        // First row: complete here unless it began in an earlier share.
        acc_t s = 0;
        const std::int64_t end = rp[i + 1];
        for (; j < end; ++j) s += static_cast<acc_t>(va[j]) * static_cast<acc_t>(x[ci[j]]);
        if (has_head_[t])
          head_[t] = s;
        else
          finish(i, s);
        for (++i; i < i1; ++i) {
          const std::int64_t e = rp[i + 1];
          acc_t r = 0;
          for (; j < e; ++j) r += static_cast<acc_t>(va[j]) * static_cast<acc_t>(x[ci[j]]);
          finish(i, r);
        }
      }
      // Nonzeros of the row this share ends inside (row i1, finished by a later share).
      acc_t c = 0;
      for (; j < j1; ++j) c += static_cast<acc_t>(va[j]) * static_cast<acc_t>(x[ci[j]]);
      carry_[t] = c;
    }
  }

  // Split rows, in share order: carries of the shares the row runs through, then the head of
  // the share where it ends. Rows written here were not touched in the region (y_in intact).
  std::int64_t pending_row = -1;
  acc_t pending = 0;
  for (int t = 0; t < T; ++t) {
    if (has_head_[t]) {
      const std::int64_t r = start_row_[t];
      finish(r, (pending_row == r ? pending : acc_t(0)) + head_[t]);
      pending_row = -1;
    }
    const std::int64_t r = start_row_[t + 1];
    if (r >= A_.rows) continue;
    if (pending_row == r) {
      pending += carry_[t];
    } else {
      // A different row: the previous pending carry was empty (its row had no head), or this
      // is the first share ending inside r.
      pending_row = r;
      pending = carry_[t];
    }
  }
}

template <class V, class I, class O>
void MergeSpmv<V, I, O>::apply_t(V alpha, const V* x, V beta, const V* y_in, V* y_out) {
  const ScaleInto<V, acc_t> finish(alpha, beta, y_in, y_out);
  const int T = threads_;
  const std::int64_t rows = A_.rows, cols = A_.cols;
  const std::int64_t nblocks = (cols + kReduceBlock - 1) / kReduceBlock;
  const O* __restrict rp = A_.row_ptr;
  const I* __restrict ci = A_.col_idx;
  const V* __restrict va = A_.values;

#pragma omp parallel num_threads(T) if (parallel_)
  {
    const int nth = omp_get_num_threads();
    for (int t = omp_get_thread_num(); t < T; t += nth) {
      const std::int64_t lo = t_col_lo_[t];
      acc_t* __restrict buf = t_buf_.get() + t_off_[t];
      std::fill(buf, buf + (t_col_hi_[t] - lo), acc_t(0));
      std::int64_t i = start_row_[t];
      const std::int64_t i1 = start_row_[t + 1];
      std::int64_t j = start_nz_[t];
      const std::int64_t j1 = start_nz_[t + 1];
      for (; i < i1; ++i) {
        const std::int64_t e = rp[i + 1];
        if (j == e) continue;  // empty row (or already consumed): x[i] not needed
        const acc_t xi = x[i];
        for (; j < e; ++j) buf[ci[j] - lo] += static_cast<acc_t>(va[j]) * xi;
      }
      if (j < j1 && i1 < rows) {
        const acc_t xi = x[i1];
        for (; j < j1; ++j) buf[ci[j] - lo] += static_cast<acc_t>(va[j]) * xi;
      }
    }
#pragma omp barrier
    // Sum the buffers per column block in share order (schedule-independent result).
#pragma omp for schedule(static)
    for (std::int64_t blk = 0; blk < nblocks; ++blk) {
      const std::int64_t c0 = blk * kReduceBlock;
      const std::int64_t c1 = std::min(cols, c0 + kReduceBlock);
      acc_t sum[kReduceBlock];
      std::fill(sum, sum + (c1 - c0), acc_t(0));
      for (int t = 0; t < T; ++t) {
        const std::int64_t lo = std::max(c0, t_col_lo_[t]);
        const std::int64_t hi = std::min(c1, t_col_hi_[t]);
        const acc_t* buf = t_buf_.get() + t_off_[t] + (lo - t_col_lo_[t]);
        for (std::int64_t c = lo; c < hi; ++c) sum[c - c0] += buf[c - lo];
      }
      for (std::int64_t c = c0; c < c1; ++c) finish(c, sum[c - c0]);
    }
  }
}

#define HOLA_INSTANTIATE_CPU(V, I, O) template class MergeSpmv<V, I, O>;
HOLA_FOR_EACH_VALUE_INDEX_OFFSET(HOLA_INSTANTIATE_CPU)
#undef HOLA_INSTANTIATE_CPU

}  // namespace hola::cpu
