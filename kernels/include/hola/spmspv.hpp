// Sparse matrix - sparse vector products (SpMSpV, seed 003): y = op(A) x with a sparse x over a
// semiring, an optional (complemented) mask on y, y returned sparse or dense. Host kernels:
// a sequential reference, and OpenMP matrix-driven and vector-driven kernels. docs/spmspv.md.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "hola/csr_view.hpp"
#include "hola/spmspv_semiring.hpp"
#include "hola/types.hpp"

namespace hola::spmspv {

// How a sparse vector is stored.
enum class VectorFormat : int {
  sorted = 0,    // indices strictly increasing, values alongside (nnz each)
  unsorted = 1,  // indices in any order, no duplicates, values alongside (nnz each)
  bitmap = 2,    // bit i of word i / 32 set when entry i is present; values dense (size entries,
                 // read only where the bit is set); nnz = number of set bits
};

inline const char* format_name(VectorFormat f) {
  return f == VectorFormat::sorted ? "sorted" : f == VectorFormat::unsorted ? "unsorted" : "bitmap";
}

// A sparse vector that belongs to the caller (host or device memory, like CsrView).
template <class V, class I>
struct SparseVectorView {
  std::int64_t size = 0;  // logical length n
  std::int64_t nnz = 0;   // entries present
  VectorFormat format = VectorFormat::sorted;
  const I* indices = nullptr;           // sorted / unsorted: nnz entries in [0, size)
  const V* values = nullptr;            // sorted / unsorted: nnz; bitmap: size entries
  const std::uint32_t* bits = nullptr;  // bitmap: (size + 31) / 32 words, bits >= size clear
  Memory memory = Memory::host;
};

// GraphBLAS-style mask on y: with a mask, y_i may be present only where mask[i] != 0 (or, with
// complement, only where mask[i] == 0). One byte per entry of y. No mask: everything allowed.
struct Mask {
  const std::uint8_t* values = nullptr;  // nullptr: no mask
  std::int64_t size = 0;                 // must equal the length of y
  bool complement = false;
  std::int64_t allowed = -1;  // optional: how many entries of y the mask allows (-1: unknown)
};

enum class OutputFormat : int { dense = 0, sparse = 1 };

// Where y goes. Dense: every one of `size` entries of `dense` is written; entries with no
// product (or masked out) get the semiring's identity (0 for plus_times / or_and, +inf for the
// min semirings). Sparse: the nnz present entries go to indices / values (room for `capacity`
// entries; capacity >= size always suffices), sorted by index when `want_sorted`, otherwise in
// whatever order the kernel produced them; `nnz` and `sorted` are set on return.
template <class V, class I>
struct Output {
  OutputFormat format = OutputFormat::sparse;
  std::int64_t size = 0;
  V* dense = nullptr;
  I* indices = nullptr;
  V* values = nullptr;
  std::int64_t capacity = 0;
  bool want_sorted = true;
  // Results (sparse output).
  std::int64_t nnz = 0;
  bool sorted = false;
};

// A sparse output of `size` entries into indices / values with room for all of them.
template <class V, class I>
Output<V, I> sparse_output(std::int64_t size, I* indices, V* values) {
  Output<V, I> y;
  y.format = OutputFormat::sparse;
  y.size = size;
  y.indices = indices;
  y.values = values;
  y.capacity = size;
  return y;
}

// Column view of a CSR matrix (CSC: the CSR of A^T), built once per structure for the
// vector-driven kernels of op N and the matrix-driven kernels of op T. Memory: (cols + 1) offsets
// (O), nnz row indices (I), nnz values (V) and nnz positions (O, to refresh the values without
// a rebuild): (cols + 1 + nnz) sizeof(O) + nnz (sizeof(I) + sizeof(V)) bytes.
template <class V, class I, class O>
struct ColumnView {
  std::int64_t rows = 0, cols = 0, nnz = 0;
  std::vector<O> col_ptr;   // cols + 1
  std::vector<I> row_idx;   // nnz, sorted inside each column
  std::vector<V> values;    // nnz
  std::vector<O> position;  // nnz: index of each entry in the CSR arrays

  void build(const CsrView<V, I, O>& A);           // structure and values (OpenMP)
  void refresh_values(const CsrView<V, I, O>& A);  // values only, same structure
  std::size_t bytes() const;
  // As a CsrView of A^T (rows = A.cols), host memory.
  CsrView<V, I, O> transposed_view() const;
};

enum class Algorithm : int {
  reference = 0,      // sequential, one pass over every nonzero of A (the tests' oracle)
  matrix_driven = 1,  // row-wise over CSR (op N) / CSC (op T), x tested through a bitmap
  vector_driven = 2,  // over the columns x touches: CSC (op N) / CSR rows (op T)
};

inline const char* algorithm_name(Algorithm a) {
  return a == Algorithm::reference       ? "reference"
         : a == Algorithm::matrix_driven ? "matrix_driven"
                                         : "vector_driven";
}

// Everything one product needs. `At` is required by matrix_driven with op T and by
// vector_driven with op N (ColumnView::transposed_view of A, or A itself for a symmetric
// pattern with symmetric values).
template <class V, class I, class O>
struct Problem {
  Op op = Op::N;
  Semiring semiring = Semiring::plus_times;
  CsrView<V, I, O> A;
  const CsrView<V, I, O>* At = nullptr;
  SparseVectorView<V, I> x;
  Mask mask;
};

// Reusable host scratch space (grows to the largest size seen, never shrinks).
template <class V, class I>
struct Workspace {
  std::vector<V> acc;                 // dense accumulator (length of y)
  std::vector<std::uint8_t> present;  // touched flags of y
  std::vector<std::uint8_t> x_flag;   // x as a bitmap (length of x)
  std::vector<V> x_dense;             // x values scattered
  std::vector<I> x_list;              // indices of x (bitmap input)
  std::vector<std::int64_t> counts;   // per-thread counts / offsets
  std::vector<I> bucket_idx;          // vector-driven: (index, value) products by owner
  std::vector<V> bucket_val;
  std::vector<I> out_idx;  // result staging (nothing written to y before it is complete)
  std::vector<V> out_val;
  std::size_t bytes() const;
};

// Empty string when the problem and the output are consistent, otherwise the first problem
// found. Checks sizes (x.size == columns of op(A), y.size == rows of op(A), mask size), null
// pointers, index ranges, order (sorted), duplicates (sorted and unsorted), bitmap tail bits and
// popcount == nnz, sparse capacity, aliasing of y with x, and that At matches A's shape. Host
// memory only. Uses ws.x_flag to find duplicates in unsorted lists.
template <class V, class I, class O>
std::string check_problem(const Problem<V, I, O>& p, const Output<V, I>& y, Workspace<V, I>& ws);

// The status check_problem's failure maps to (size_mismatch, aliasing, invalid_argument).
template <class V, class I, class O>
void validate_problem(const Problem<V, I, O>& p, const Output<V, I>& y, Workspace<V, I>& ws);

// y = op(A) x over p.semiring with p.mask (validated first: on error hola::error is thrown and
// nothing is written to y). Host memory.
template <class V, class I, class O>
void multiply(Algorithm algorithm, const Problem<V, I, O>& p, Output<V, I>& y, Workspace<V, I>& ws);

// Compares y (host memory, the output of any kernel for problem p) with the reference: the same
// present entries (sparse: the same index set, no duplicates; `sorted` true only if they are),
// values equal for the exact semirings and within 2 (k + 2) eps(V) sum |a_ij x_j| for plus_times
// (k: the longest row or column of A); dense: absent entries hold the identity. Empty string
// when they agree, else the first few differences. Used by the CPU and GPU tests.
template <class V, class I, class O>
std::string compare_with_reference(const Problem<V, I, O>& p, const Output<V, I>& y);

// The reference of one problem computed once (the reference product, the plus_times error
// bound, the longest row or column), compared with any number of outputs: what
// compare_with_reference does per call, for callers that check many kernels on one problem
// (hola-spmspv-bench). Keeps no pointer into p.
template <class V, class I, class O>
class ReferenceResult {
 public:
  explicit ReferenceResult(const Problem<V, I, O>& p);
  std::string compare(const Output<V, I>& y) const;  // as compare_with_reference
  std::int64_t nnz() const { return nnz_; }          // present entries of the reference

 private:
  Semiring semiring_;
  std::int64_t n_ = 0, nnz_ = 0, kmax_ = 0;
  std::vector<double> bound_;
  std::vector<std::uint8_t> present_;
  std::vector<V> dense_;
};

// Features of one product (the selection rule's inputs): nnz of x and the nonzeros of A that
// the vector-driven kernel would read (sum over x's entries of their column / row lengths).
struct VectorFeatures {
  std::int64_t nnz_x = 0;
  std::int64_t touched_nnz = 0;  // nonzeros of A the vector-driven kernel reads
  std::int64_t matrix_nnz = 0;   // nonzeros of A the matrix-driven kernel reads (all of them)
  double allowed_fraction = 1;   // fraction of y the mask allows (Mask::allowed; 1 if unknown)
};

template <class V, class I, class O>
VectorFeatures vector_features(const Problem<V, I, O>& p);

// The documented rule (docs/spmspv.md, "Selection"): vector-driven when its touched nonzeros,
// weighted by 4 (scatter and write-back cost per nonzero), are fewer than the nonzeros the
// matrix-driven kernel reads (scaled by the mask's allowed fraction); matrix-driven otherwise.
Algorithm select_algorithm(const VectorFeatures& f);

}  // namespace hola::spmspv
