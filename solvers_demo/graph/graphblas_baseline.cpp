// SuiteSparse:GraphBLAS BFS and PageRank (graphblas_baseline.hpp).
#include "graphblas_baseline.hpp"

extern "C" {
#include <GraphBLAS.h>
}

#include <chrono>
#include <cmath>
#include <mutex>
#include <stdexcept>
#include <string>
#include <utility>

namespace hola::demo::graphblas {

namespace {

const char* info_name(GrB_Info info) {
  switch (info) {
    case GrB_SUCCESS:
      return "GrB_SUCCESS";
    case GrB_NO_VALUE:
      return "GrB_NO_VALUE";
    case GrB_UNINITIALIZED_OBJECT:
      return "GrB_UNINITIALIZED_OBJECT";
    case GrB_NULL_POINTER:
      return "GrB_NULL_POINTER";
    case GrB_INVALID_VALUE:
      return "GrB_INVALID_VALUE";
    case GrB_INVALID_INDEX:
      return "GrB_INVALID_INDEX";
    case GrB_DOMAIN_MISMATCH:
      return "GrB_DOMAIN_MISMATCH";
    case GrB_DIMENSION_MISMATCH:
      return "GrB_DIMENSION_MISMATCH";
    case GrB_OUTPUT_NOT_EMPTY:
      return "GrB_OUTPUT_NOT_EMPTY";
    case GrB_NOT_IMPLEMENTED:
      return "GrB_NOT_IMPLEMENTED";
    case GrB_PANIC:
      return "GrB_PANIC";
    case GrB_OUT_OF_MEMORY:
      return "GrB_OUT_OF_MEMORY";
    case GrB_INSUFFICIENT_SPACE:
      return "GrB_INSUFFICIENT_SPACE";
    case GrB_INVALID_OBJECT:
      return "GrB_INVALID_OBJECT";
    case GrB_INDEX_OUT_OF_BOUNDS:
      return "GrB_INDEX_OUT_OF_BOUNDS";
    case GrB_EMPTY_OBJECT:
      return "GrB_EMPTY_OBJECT";
    default:
      return "unknown GrB_Info";
  }
}

void check(GrB_Info info, const char* call) {
  if (info == GrB_SUCCESS || info == GrB_NO_VALUE) return;
  throw std::runtime_error(std::string("GraphBLAS: ") + call + " failed with " + info_name(info) +
                           " (" + std::to_string(static_cast<int>(info)) + ")");
}
#define HOLA_GRB(call) check((call), #call)

// Frees a vector at scope exit (exceptions included).
struct VectorHandle {
  GrB_Vector v = nullptr;
  ~VectorHandle() {
    if (v) GrB_Vector_free(&v);
  }
};

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

// Never finalized, so that any number of Graph objects may come and go.
void initialize() {
  static std::once_flag flag;
  std::call_once(flag, [] { HOLA_GRB(GrB_init(GrB_NONBLOCKING)); });
}

struct Graph::Impl {
  GrB_Matrix A = nullptr;
  GrB_Matrix AT = nullptr;  // A^T, built on first use by pagerank (pull form: dot products)
  std::int64_t rows = 0, cols = 0;
  std::vector<std::int64_t> out_degree;  // row lengths of the CSR (duplicates included)
  int threads = 0;
  void set_threads() const {
    if (threads > 0) HOLA_GRB(GxB_Global_Option_set_INT32(GxB_GLOBAL_NTHREADS, threads));
  }
};

Graph::Graph(std::int64_t rows, std::int64_t cols, const std::int64_t* row_ptr,
             const std::int64_t* col_idx, int threads)
    : impl_(std::make_unique<Impl>()) {
  if (rows < 0 || cols < 0)
    throw std::invalid_argument("graphblas::Graph: negative size " + std::to_string(rows) + " x " +
                                std::to_string(cols));
  if (!row_ptr || (rows > 0 && row_ptr[rows] > 0 && !col_idx))
    throw std::invalid_argument("graphblas::Graph: null CSR arrays");
  if (row_ptr[0] != 0) throw std::invalid_argument("graphblas::Graph: row_ptr[0] must be 0");
  initialize();
  auto& m = *impl_;
  m.rows = rows;
  m.cols = cols;
  m.threads = threads;
  m.set_threads();
  const std::int64_t nnz = row_ptr[rows];
  std::vector<GrB_Index> I(static_cast<std::size_t>(nnz)), J(static_cast<std::size_t>(nnz));
  m.out_degree.assign(static_cast<std::size_t>(rows), 0);
  for (std::int64_t r = 0; r < rows; ++r) {
    if (row_ptr[r + 1] < row_ptr[r])
      throw std::invalid_argument("graphblas::Graph: row_ptr decreases at row " +
                                  std::to_string(r));
    m.out_degree[r] = row_ptr[r + 1] - row_ptr[r];
    for (std::int64_t k = row_ptr[r]; k < row_ptr[r + 1]; ++k) {
      if (col_idx[k] < 0 || col_idx[k] >= cols)
        throw std::invalid_argument("graphblas::Graph: column index " + std::to_string(col_idx[k]) +
                                    " out of range in row " + std::to_string(r));
      I[k] = static_cast<GrB_Index>(r);
      J[k] = static_cast<GrB_Index>(col_idx[k]);
    }
  }
  // Value 1 per stored entry, duplicates summed: A(i, j) = multiplicity of a_ij.
  std::vector<double> X(static_cast<std::size_t>(nnz), 1.0);
  HOLA_GRB(
      GrB_Matrix_new(&m.A, GrB_FP64, static_cast<GrB_Index>(rows), static_cast<GrB_Index>(cols)));
  if (nnz > 0)  // GraphBLAS refuses null arrays even for zero tuples
    HOLA_GRB(GrB_Matrix_build_FP64(m.A, I.data(), J.data(), X.data(), static_cast<GrB_Index>(nnz),
                                   GrB_PLUS_FP64));
  HOLA_GRB(GrB_Matrix_wait(m.A, GrB_MATERIALIZE));
}

Graph::~Graph() {
  if (!impl_) return;
  if (impl_->A) GrB_Matrix_free(&impl_->A);
  if (impl_->AT) GrB_Matrix_free(&impl_->AT);
}

BfsRun Graph::bfs_parents(std::int64_t root) {
  auto& m = *impl_;
  if (m.rows != m.cols)
    throw std::invalid_argument("graphblas::Graph::bfs_parents: the matrix must be square");
  const std::int64_t n = m.rows;
  if (root < 0 || root >= n)
    throw std::invalid_argument("graphblas::Graph::bfs_parents: root " + std::to_string(root) +
                                " outside [0, " + std::to_string(n) + ")");
  m.set_threads();
  VectorHandle parent, frontier;
  const auto t0 = std::chrono::steady_clock::now();
  HOLA_GRB(GrB_Vector_new(&parent.v, GrB_INT64, static_cast<GrB_Index>(n)));
  HOLA_GRB(GrB_Vector_new(&frontier.v, GrB_INT64, static_cast<GrB_Index>(n)));
  HOLA_GRB(GrB_Vector_setElement_INT64(parent.v, root, static_cast<GrB_Index>(root)));
  HOLA_GRB(GrB_Vector_setElement_INT64(frontier.v, root, static_cast<GrB_Index>(root)));
  for (;;) {
    // frontier<!struct(parent), replace> = frontier min.secondi A: the value is the row of A
    // that reached the vertex, i.e. the smallest frontier vertex with an edge to it.
    HOLA_GRB(GrB_vxm(frontier.v, parent.v, nullptr, GxB_MIN_SECONDI_INT64, frontier.v, m.A,
                     GrB_DESC_RSC));
    GrB_Index reached = 0;
    HOLA_GRB(GrB_Vector_nvals(&reached, frontier.v));
    if (reached == 0) break;
    // parent<struct(frontier)> = frontier
    HOLA_GRB(GrB_Vector_assign(parent.v, frontier.v, nullptr, frontier.v, GrB_ALL,
                               static_cast<GrB_Index>(n), GrB_DESC_S));
  }
  HOLA_GRB(GrB_Vector_wait(parent.v, GrB_MATERIALIZE));
  BfsRun run;
  run.seconds = seconds_since(t0);
  GrB_Index count = 0;
  HOLA_GRB(GrB_Vector_nvals(&count, parent.v));
  std::vector<GrB_Index> idx(static_cast<std::size_t>(count));
  std::vector<std::int64_t> val(static_cast<std::size_t>(count));
  HOLA_GRB(GrB_Vector_extractTuples_INT64(idx.data(), val.data(), &count, parent.v));
  run.parent.assign(static_cast<std::size_t>(n), -1);
  for (GrB_Index k = 0; k < count; ++k) run.parent[idx[k]] = val[k];
  return run;
}

PagerankRun Graph::pagerank(double damping, double tol, int max_iter) {
  return pagerank(damping, tol, max_iter, {});
}

PagerankRun Graph::pagerank(double damping, double tol, int max_iter,
                            const std::vector<double>& personalization) {
  auto& m = *impl_;
  if (m.rows != m.cols)
    throw std::invalid_argument("graphblas::Graph::pagerank: the matrix must be square");
  if (!(damping >= 0 && damping < 1))
    throw std::invalid_argument("graphblas::Graph::pagerank: damping must be in [0, 1)");
  if (!(tol >= 0) || max_iter < 0)
    throw std::invalid_argument("graphblas::Graph::pagerank: tol and max_iter must be >= 0");
  const std::int64_t n = m.rows;
  PagerankRun run{{}, 0, 0.0};
  if (n == 0) return run;
  std::vector<double> p(static_cast<std::size_t>(n), 1.0 / static_cast<double>(n));
  if (!personalization.empty()) {
    if (static_cast<std::int64_t>(personalization.size()) != n)
      throw std::invalid_argument("graphblas::Graph::pagerank: personalization has " +
                                  std::to_string(personalization.size()) + " entries, graph has " +
                                  std::to_string(n));
    double sum = 0;
    for (double v : personalization) {
      if (!(v >= 0) || !std::isfinite(v))
        throw std::invalid_argument(
            "graphblas::Graph::pagerank: personalization must be finite and >= 0");
      sum += v;
    }
    if (!(sum > 0))
      throw std::invalid_argument("graphblas::Graph::pagerank: personalization sums to 0");
    for (std::int64_t i = 0; i < n; ++i) p[i] = personalization[i] / sum;
  }
  m.set_threads();
  if (!m.AT) {  // once per graph, outside the timing (like hola's column view)
    HOLA_GRB(GrB_Matrix_new(&m.AT, GrB_FP64, static_cast<GrB_Index>(n), static_cast<GrB_Index>(n)));
    HOLA_GRB(GrB_transpose(m.AT, nullptr, nullptr, m.A, nullptr));
    HOLA_GRB(GrB_Matrix_wait(m.AT, GrB_MATERIALIZE));
  }
  std::vector<GrB_Index> all(static_cast<std::size_t>(n)), dangling_idx;
  std::vector<double> inv_deg(static_cast<std::size_t>(n), 0.0);
  for (std::int64_t i = 0; i < n; ++i) {
    all[i] = static_cast<GrB_Index>(i);
    if (m.out_degree[i] > 0)
      inv_deg[i] = 1.0 / static_cast<double>(m.out_degree[i]);
    else
      dangling_idx.push_back(static_cast<GrB_Index>(i));
  }
  const std::size_t nd = dangling_idx.size();
  // bool array (not std::vector<bool>, which has no data()).
  std::unique_ptr<bool[]> ones(new bool[nd > 0 ? nd : 1]);
  for (std::size_t k = 0; k < nd; ++k) ones[k] = true;
  const auto N = static_cast<GrB_Index>(n);
  VectorHandle tele, rank, next, scaled, inv, dmask, dangling, spread, diff;
  for (auto* h : {&tele, &rank, &next, &scaled, &inv, &dangling, &spread, &diff})
    HOLA_GRB(GrB_Vector_new(&h->v, GrB_FP64, N));
  HOLA_GRB(GrB_Vector_new(&dmask.v, GrB_BOOL, N));
  HOLA_GRB(GrB_Vector_build_FP64(tele.v, all.data(), p.data(), N, GrB_PLUS_FP64));
  HOLA_GRB(GrB_Vector_build_FP64(rank.v, all.data(), p.data(), N, GrB_PLUS_FP64));
  HOLA_GRB(GrB_Vector_build_FP64(inv.v, all.data(), inv_deg.data(), N, GrB_PLUS_FP64));
  if (nd > 0)  // GraphBLAS refuses null arrays even for zero tuples
    HOLA_GRB(GrB_Vector_build_BOOL(dmask.v, dangling_idx.data(), ones.get(),
                                   static_cast<GrB_Index>(nd), GrB_LOR));
  const auto t0 = std::chrono::steady_clock::now();
  for (int it = 0; it < max_iter; ++it) {
    // scaled = r ./ D (0 on dangling vertices); dangling mass = sum of r over empty rows.
    HOLA_GRB(GrB_Vector_eWiseMult_BinaryOp(scaled.v, nullptr, nullptr, GrB_TIMES_FP64, rank.v,
                                           inv.v, nullptr));
    HOLA_GRB(
        GrB_Vector_apply(dangling.v, dmask.v, nullptr, GrB_IDENTITY_FP64, rank.v, GrB_DESC_RS));
    double dangling_mass = 0;
    HOLA_GRB(
        GrB_Vector_reduce_FP64(&dangling_mass, nullptr, GrB_PLUS_MONOID_FP64, dangling.v, nullptr));
    // spread = A^T scaled: a dot product per row of A^T (the in-edges), multiplicities
    // included; the pull form, as hola's host PageRank.
    HOLA_GRB(
        GrB_mxv(spread.v, nullptr, nullptr, GrB_PLUS_TIMES_SEMIRING_FP64, m.AT, scaled.v, nullptr));
    // next = (d * dangling + 1 - d) p, then next += d * spread.
    HOLA_GRB(GrB_Vector_apply_BinaryOp2nd_FP64(next.v, nullptr, nullptr, GrB_TIMES_FP64, tele.v,
                                               damping * dangling_mass + (1 - damping), nullptr));
    HOLA_GRB(GrB_Vector_apply_BinaryOp2nd_FP64(next.v, nullptr, GrB_PLUS_FP64, GrB_TIMES_FP64,
                                               spread.v, damping, nullptr));
    // change = || next - r ||_1 (both vectors are full).
    HOLA_GRB(GrB_Vector_eWiseAdd_BinaryOp(diff.v, nullptr, nullptr, GrB_MINUS_FP64, next.v, rank.v,
                                          nullptr));
    HOLA_GRB(GrB_Vector_apply(diff.v, nullptr, nullptr, GrB_ABS_FP64, diff.v, nullptr));
    double change = 0;
    HOLA_GRB(GrB_Vector_reduce_FP64(&change, nullptr, GrB_PLUS_MONOID_FP64, diff.v, nullptr));
    std::swap(rank.v, next.v);
    run.iterations = it + 1;
    if (change < tol) break;
  }
  HOLA_GRB(GrB_Vector_wait(rank.v, GrB_MATERIALIZE));
  run.seconds_per_iteration = run.iterations > 0 ? seconds_since(t0) / run.iterations : 0.0;
  GrB_Index count = N;
  std::vector<GrB_Index> idx(static_cast<std::size_t>(n));
  std::vector<double> val(static_cast<std::size_t>(n));
  HOLA_GRB(GrB_Vector_extractTuples_FP64(idx.data(), val.data(), &count, rank.v));
  run.rank.assign(static_cast<std::size_t>(n), 0.0);
  for (GrB_Index k = 0; k < count; ++k) run.rank[idx[k]] = val[k];
  return run;
}

}  // namespace hola::demo::graphblas
