// Sequential CPU oracle. Accumulates in wide_t<V> (double for float, long double for double).
#pragma once

#include <cstdint>
#include <string>

#include "hola/csr_view.hpp"

namespace hola::reference {

// y_out = alpha * op(A) * x + beta * y_in, BLAS semantics for beta == 0 (y_in not read).
// Host memory only. y_in may equal y_out.
template <class V, class I, class O>
void spmv(Op op, V alpha, const CsrView<V, I, O>& A, const V* x, V beta, const V* y_in, V* y_out);

// z = y + A x (PETSc's MatMultAdd); z may equal y.
template <class V, class I, class O>
void spmv_add(const CsrView<V, I, O>& A, const V* x, const V* y, V* z) {
  spmv(Op::N, V(1), A, x, V(1), y, z);
}

// Per-output bound on the magnitude of the terms summed: |alpha| * sum |a_ij||x_j| + |beta y_i|.
// Tests scale their tolerance by it.
template <class V, class I, class O>
void spmv_abs_bound(Op op, V alpha, const CsrView<V, I, O>& A, const V* x, V beta, const V* y_in,
                    double* bound);

// Compares a kernel's y_out with ref, the reference's output of the same call. Output i passes
// when it is finite and within 2 (k_i + 2) eps(V) bound_i of ref[i], k_i being the number of
// products summed into it (row length for N, column count for T) and bound_i that of
// spmv_abs_bound. Returns the number of failing outputs; `report` (if given) gets the first
// `max_reported` of them. Used by the tests and by hola-bench.
template <class V, class I, class O>
std::int64_t count_mismatches(Op op, V alpha, const CsrView<V, I, O>& A, const V* x, V beta,
                              const V* y_in, const V* ref, const V* y_out,
                              std::string* report = nullptr, int max_reported = 5);

}  // namespace hola::reference
