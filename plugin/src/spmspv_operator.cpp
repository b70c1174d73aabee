// SpmspvOperator (hola/spmspv_operator.hpp).
#include "hola/spmspv_operator.hpp"

#include <sstream>

#include "hola/detail/instantiate.hpp"
#include "hola/error.hpp"
#include "hola/validate.hpp"

namespace hola {

using spmspv::Algorithm;

template <class V, class I, class O>
SpmspvOperator<V, I, O>::SpmspvOperator(SpmspvOptions options) : options_(std::move(options)) {
  const auto& k = options_.kernel;
  if (k != "auto" && k != "matrix_driven" && k != "vector_driven" && k != "reference")
    fail(status::invalid_argument,
         "spmspv: unknown kernel '" + k + "' (auto, matrix_driven, vector_driven or reference)");
}

template <class V, class I, class O>
void SpmspvOperator<V, I, O>::setup(const CsrView<V, I, O>& A, std::uint64_t structure_version) {
  if (A.memory != Memory::host)
    fail(status::unsupported, "SpmspvOperator: host memory only (see hola/spmspv_gpu.hpp)");
  const bool same = setup_done_ && A.row_ptr == A_.row_ptr && A.col_idx == A_.col_idx &&
                    A.rows == A_.rows && A.cols == A_.cols && A.nnz == A_.nnz &&
                    structure_version == version_;
  if (same) {
    A_ = A;  // values may live elsewhere now
    if (has_at_ && !options_.symmetric) {
      columns_.refresh_values(A);
      At_ = columns_.transposed_view();
    } else if (options_.symmetric) {
      At_ = A;
    }
    return;
  }
  setup_done_ = false;
  if (options_.validate) validate_csr(A);
  if (options_.symmetric && A.rows != A.cols)
    fail(status::invalid_argument, "SpmspvOperator: symmetric option with a non-square matrix");
  A_ = A;
  version_ = structure_version;
  has_at_ = false;
  columns_ = {};
  if (options_.symmetric) {
    At_ = A;
    has_at_ = true;
  } else if (options_.column_view) {
    columns_.build(A);
    At_ = columns_.transposed_view();
    has_at_ = true;
  }
  setup_done_ = true;
}

template <class V, class I, class O>
void SpmspvOperator<V, I, O>::apply(Op op, spmspv::Semiring semiring,
                                    const spmspv::SparseVectorView<V, I>& x,
                                    spmspv::Output<V, I>& y, const spmspv::Mask& mask) {
  if (!setup_done_) fail(status::invalid_argument, "SpmspvOperator: apply before setup");
  spmspv::Problem<V, I, O> p;
  p.op = op;
  p.semiring = semiring;
  p.A = A_;
  p.At = has_at_ ? &At_ : nullptr;
  p.x = x;
  p.mask = mask;
  // Which kernels can run: the one needing the column view only when it exists.
  const bool matrix_ok = op == Op::N || has_at_;
  const bool vector_ok = op == Op::T || has_at_;
  Algorithm alg;
  std::ostringstream why;
  const auto& k = options_.kernel;
  if (k == "reference") {
    alg = Algorithm::reference;
    why << "kernel option";
  } else if (k == "matrix_driven" || k == "vector_driven") {
    alg = k == "matrix_driven" ? Algorithm::matrix_driven : Algorithm::vector_driven;
    if ((alg == Algorithm::matrix_driven && !matrix_ok) ||
        (alg == Algorithm::vector_driven && !vector_ok))
      fail(status::unsupported, "SpmspvOperator: " + k + " with op " + op_name(op) +
                                    " needs the column view (SpmspvOptions::column_view)");
    why << "kernel option";
  } else {
    // Validate before reading x for the features (they index the matrix with x's indices).
    spmspv::validate_problem(p, y, ws_);
    const auto f = spmspv::vector_features(p);
    alg = spmspv::select_algorithm(f);
    if (alg == Algorithm::matrix_driven && !matrix_ok) alg = Algorithm::vector_driven;
    if (alg == Algorithm::vector_driven && !vector_ok) alg = Algorithm::matrix_driven;
    why << "nnz_x " << f.nnz_x << ", touched nonzeros " << f.touched_nnz
        << " (x4 = " << 4 * f.touched_nnz << ") vs matrix nonzeros " << f.matrix_nnz
        << " x allowed fraction " << f.allowed_fraction;
  }
  spmspv::multiply(alg, p, y, ws_);
  last_ = alg;
  reason_ = why.str();
}

#define HOLA_SPMSPV_OPERATOR(V, I, O) template class SpmspvOperator<V, I, O>;
HOLA_FOR_EACH_VALUE_INDEX_OFFSET(HOLA_SPMSPV_OPERATOR)
#undef HOLA_SPMSPV_OPERATOR

}  // namespace hola
