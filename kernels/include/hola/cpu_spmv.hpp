// OpenMP nnz-balanced SpMV for host memory: each thread takes an equal share of the merge
// path of (row ends, nonzeros); carries of rows split between threads are fixed up after.
// Results are bitwise reproducible for a given thread count (options.cpu_threads, or
// omp_get_max_threads() at setup), whatever team OpenMP actually provides at apply (apply may
// be called inside a parallel region). One apply at a time per object: the carries and the
// transpose buffers live in the object.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "hola/spmv_kernel.hpp"

namespace hola::cpu {

template <class V, class I, class O>
class MergeSpmv final : public SpmvKernel<V, I, O> {
 public:
  explicit MergeSpmv(const KernelOptions& options = {});
  std::string name() const override { return "cpu"; }
  bool supports(Op) const override { return true; }
  bool deterministic() const override { return true; }  // fixed thread count: fixed order
  void setup(const CsrView<V, I, O>& A, void* stream = nullptr) override;
  void set_values(const V* values) override { A_.values = values; }
  std::size_t workspace_bytes() const override;
  void apply(Op op, V alpha, const V* x, V beta, const V* y_in, V* y_out,
             void* stream = nullptr) override;

 private:
  // Both ops sum in double: exact products for float, and the same speed (memory bound).
  using acc_t = double;

  void apply_n(V alpha, const V* x, V beta, const V* y_in, V* y_out);
  void apply_t(V alpha, const V* x, V beta, const V* y_in, V* y_out);

  KernelOptions options_;
  CsrView<V, I, O> A_{};
  int threads_ = 1;        // number of shares of the merge path (fixed at setup: fixed sum order)
  bool parallel_ = false;  // enough work to start a team (else shares run in turn)
  // Merge-path start of each share (row, nonzero), threads_ + 1 entries; share t covers
  // rows [start_row_[t], start_row_[t + 1]] and nonzeros [start_nz_[t], start_nz_[t + 1]).
  std::vector<std::int64_t> start_row_, start_nz_;
  // Op N: share t's first row began in an earlier share and ends in t (its partial is head_).
  std::vector<unsigned char> has_head_;
  std::vector<acc_t> head_;   // partial sum of that first row
  std::vector<acc_t> carry_;  // partial sum of the row share t ends inside (start_row_[t + 1])
  // Op T: share t accumulates into t_buf_[t_off_[t] ...] covering columns
  // [t_col_lo_[t], t_col_hi_[t]), the column range its nonzeros touch (computed at setup).
  std::vector<std::int64_t> t_col_lo_, t_col_hi_, t_off_;
  std::unique_ptr<acc_t[]> t_buf_;
  std::size_t t_buf_size_ = 0;
};

// One-off y_out = alpha op(A) x + beta y_in (setup + apply). For repeated products keep a
// MergeSpmv: setup scans the matrix structure. V, I, O come from the matrix alone, so literals
// and nullptr (y_in when beta == 0) can be passed directly.
template <class V, class I, class O>
void spmv(Op op, typename CsrView<V, I, O>::value_type alpha, const CsrView<V, I, O>& A,
          const typename CsrView<V, I, O>::value_type* x,
          typename CsrView<V, I, O>::value_type beta,
          const typename CsrView<V, I, O>::value_type* y_in, V* y_out,
          const KernelOptions& options = {}) {
  MergeSpmv<V, I, O> kernel(options);
  kernel.setup(A);
  kernel.apply(op, alpha, x, beta, y_in, y_out);
}

}  // namespace hola::cpu
