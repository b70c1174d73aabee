// BFS and PageRank on the host SpMSpV kernels (hola/spmspv_graph.hpp).
#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>

#include "hola/detail/instantiate.hpp"
#include "hola/error.hpp"
#include "hola/spmspv_graph.hpp"
#include "hola/validate.hpp"

namespace hola::spmspv {

template <class V, class I, class O>
BfsResult bfs(const CsrView<V, I, O>& A, std::int64_t root, const BfsOptions& options) {
  if (A.memory != Memory::host) fail(status::unsupported, "bfs: host memory only");
  if (A.rows != A.cols)
    fail(status::size_mismatch, "bfs: the matrix must be square, it is " + std::to_string(A.rows) +
                                    " x " + std::to_string(A.cols));
  if (options.validate) validate_csr(A);
  const std::int64_t n = A.rows;
  if (root < 0 || root >= n)
    fail(status::invalid_argument,
         "bfs: root " + std::to_string(root) + " outside [0, " + std::to_string(n) + ")");
  // Vertex ids travel as values of V: exact up to 2^24 (float) or 2^53 (double).
  const double exact_limit = std::is_same_v<V, float> ? 16777216.0 : 9007199254740992.0;
  if (static_cast<double>(n) > exact_limit)
    fail(status::unsupported, "bfs: too many vertices for vertex ids as float values; use double");
  ColumnView<V, I, O> columns;
  CsrView<V, I, O> At = A;
  if (options.direction != BfsDirection::push && !options.symmetric) {
    columns.build(A);
    At = columns.transposed_view();
  }
  BfsResult r;
  r.parent.assign(static_cast<std::size_t>(n), -1);
  r.level.assign(static_cast<std::size_t>(n), -1);
  std::vector<std::uint8_t> visited(static_cast<std::size_t>(n), 0);
  std::vector<I> f_idx{static_cast<I>(root)}, y_idx(static_cast<std::size_t>(n));
  std::vector<V> f_val{static_cast<V>(root)}, y_val(static_cast<std::size_t>(n));
  r.parent[root] = root;
  r.level[root] = 0;
  visited[root] = 1;
  std::int64_t reached = 1;
  Workspace<V, I> ws;
  for (int depth = 1; !f_idx.empty(); ++depth) {
    Problem<V, I, O> p;
    p.op = Op::T;
    p.semiring = Semiring::min_second;
    p.A = A;
    p.At = &At;
    p.x.size = n;
    p.x.nnz = static_cast<std::int64_t>(f_idx.size());
    p.x.format = VectorFormat::unsorted;
    p.x.indices = f_idx.data();
    p.x.values = f_val.data();
    p.mask.values = visited.data();
    p.mask.size = n;
    p.mask.complement = true;
    p.mask.allowed = n - reached;
    Algorithm alg = Algorithm::vector_driven;
    if (options.direction == BfsDirection::pull)
      alg = Algorithm::matrix_driven;
    else if (options.direction == BfsDirection::automatic)
      alg = select_algorithm(vector_features(p));
    Output<V, I> y = sparse_output(n, y_idx.data(), y_val.data());
    y.want_sorted = false;
    multiply(alg, p, y, ws);
    r.steps.push_back(alg);
    f_idx.resize(static_cast<std::size_t>(y.nnz));
    f_val.resize(static_cast<std::size_t>(y.nnz));
    for (std::int64_t k = 0; k < y.nnz; ++k) {
      const std::int64_t v = static_cast<std::int64_t>(y_idx[k]);
      r.parent[v] = static_cast<std::int64_t>(y_val[k]);
      r.level[v] = depth;
      visited[v] = 1;
      f_idx[k] = y_idx[k];
      f_val[k] = static_cast<V>(v);
    }
    reached += y.nnz;
    if (y.nnz > 0) r.depth = depth;
  }
  r.reached = reached;
  for (std::int64_t v = 0; v < n; ++v)
    if (visited[v]) r.edges += static_cast<std::int64_t>(A.row_ptr[v + 1] - A.row_ptr[v]);
  return r;
}

template <class V, class I, class O>
std::string check_bfs_parents(const CsrView<V, I, O>& A, std::int64_t root,
                              const std::vector<std::int64_t>& parent) {
  std::ostringstream msg;
  const std::int64_t n = A.rows;
  if (static_cast<std::int64_t>(parent.size()) != n) {
    msg << "parent array has " << parent.size() << " entries, graph has " << n << " vertices";
    return msg.str();
  }
  if (root < 0 || root >= n || parent[root] != root) {
    msg << "root " << root << " is not its own parent";
    return msg.str();
  }
  // Levels from the parents (walk up; a walk longer than n is a cycle).
  std::vector<std::int64_t> level(static_cast<std::size_t>(n), -2);  // -2: not computed
  level[root] = 0;
  std::vector<std::int64_t> path;
  for (std::int64_t v = 0; v < n; ++v) {
    if (parent[v] == -1) {
      level[v] = -1;
      continue;
    }
    path.clear();
    std::int64_t u = v;
    while (level[u] == -2) {
      if (parent[u] < 0 || parent[u] >= n) {
        msg << "vertex " << u << " has parent " << parent[u] << " outside the graph";
        return msg.str();
      }
      if (static_cast<std::int64_t>(path.size()) > n) {
        msg << "the parents of vertex " << v << " form a cycle";
        return msg.str();
      }
      path.push_back(u);
      u = parent[u];
    }
    if (level[u] == -1) {
      msg << "vertex " << v << " descends from unreached vertex " << u;
      return msg.str();
    }
    std::int64_t l = level[u];
    for (auto it = path.rbegin(); it != path.rend(); ++it) level[*it] = ++l;
  }
  // Tree edges in one pass over A: scanning the parent's row per vertex would cost
  // O(n x degree) when a hub is the parent of most vertices (Kronecker graphs).
  std::vector<char> has_tree_edge(static_cast<std::size_t>(n), 0);
  for (std::int64_t u = 0; u < n; ++u)
    for (O k = A.row_ptr[u]; k < A.row_ptr[u + 1]; ++k) {
      const auto v = static_cast<std::int64_t>(A.col_idx[k]);
      if (parent[v] == u) has_tree_edge[v] = 1;
    }
  for (std::int64_t v = 0; v < n; ++v) {
    if (v == root || parent[v] == -1) continue;
    const std::int64_t p = parent[v];
    if (!has_tree_edge[v]) {
      msg << "vertex " << v << " has parent " << p << " but there is no edge " << p << " -> " << v;
      return msg.str();
    }
  }
  for (std::int64_t u = 0; u < n; ++u) {
    if (level[u] < 0) continue;
    for (O k = A.row_ptr[u]; k < A.row_ptr[u + 1]; ++k) {
      const std::int64_t v = static_cast<std::int64_t>(A.col_idx[k]);
      if (level[v] < 0) {
        msg << "edge " << u << " -> " << v << " leaves the tree: " << v << " is not reached";
        return msg.str();
      }
      if (level[v] > level[u] + 1) {
        msg << "edge " << u << " -> " << v << " spans levels " << level[u] << " and " << level[v];
        return msg.str();
      }
    }
  }
  return {};
}

template <class V, class I, class O>
PageRankResult pagerank(const CsrView<V, I, O>& A, const PageRankOptions& options) {
  if (A.memory != Memory::host) fail(status::unsupported, "pagerank: host memory only");
  if (A.rows != A.cols) fail(status::size_mismatch, "pagerank: the matrix must be square");
  validate_csr(A);
  const double d = options.damping;
  if (!(d >= 0 && d < 1)) fail(status::invalid_argument, "pagerank: damping must be in [0, 1)");
  if (!(options.tolerance >= 0) || options.max_iterations < 0)
    fail(status::invalid_argument, "pagerank: tolerance and max_iterations must be >= 0");
  const std::int64_t n = A.rows;
  PageRankResult r;
  if (n == 0) return r;
  std::vector<double> p(static_cast<std::size_t>(n), 1.0 / static_cast<double>(n));
  if (!options.personalization.empty()) {
    if (static_cast<std::int64_t>(options.personalization.size()) != n)
      fail(status::size_mismatch, "pagerank: personalization has " +
                                      std::to_string(options.personalization.size()) +
                                      " entries, graph has " + std::to_string(n));
    double s = 0;
    for (double v : options.personalization) {
      if (!(v >= 0) || !std::isfinite(v))
        fail(status::invalid_argument, "pagerank: personalization must be finite and >= 0");
      s += v;
    }
    if (!(s > 0)) fail(status::invalid_argument, "pagerank: personalization sums to 0");
    for (std::int64_t i = 0; i < n; ++i) p[i] = options.personalization[i] / s;
  }
  // Pull form over the columns of A (in-edges), built once.
  ColumnView<V, I, O> cols;
  cols.build(A);
  std::vector<double> inv_deg(static_cast<std::size_t>(n), 0.0);
  for (std::int64_t i = 0; i < n; ++i) {
    const auto deg = A.row_ptr[i + 1] - A.row_ptr[i];
    if (deg > 0) inv_deg[i] = 1.0 / static_cast<double>(deg);
  }
  std::vector<double> rank = p, scaled(static_cast<std::size_t>(n)),
                      next(static_cast<std::size_t>(n));
  for (int it = 0; it < options.max_iterations; ++it) {
    double dangling = 0;
#pragma omp parallel for schedule(static) reduction(+ : dangling)
    for (std::int64_t i = 0; i < n; ++i) {
      scaled[i] = rank[i] * inv_deg[i];
      if (inv_deg[i] == 0) dangling += rank[i];
    }
    double change = 0;
#pragma omp parallel for schedule(dynamic, 1024) reduction(+ : change)
    for (std::int64_t j = 0; j < n; ++j) {
      double s = 0;
      for (O k = cols.col_ptr[j]; k < cols.col_ptr[j + 1]; ++k) s += scaled[cols.row_idx[k]];
      const double v = d * (s + dangling * p[j]) + (1 - d) * p[j];
      change += std::abs(v - rank[j]);
      next[j] = v;
    }
    rank.swap(next);
    r.iterations = it + 1;
    r.change = change;
    if (change < options.tolerance) break;
  }
  r.rank = std::move(rank);
  return r;
}

#define HOLA_GRAPH_INSTANTIATE(V, I, O)                                             \
  template BfsResult bfs(const CsrView<V, I, O>&, std::int64_t, const BfsOptions&); \
  template std::string check_bfs_parents(const CsrView<V, I, O>&, std::int64_t,     \
                                         const std::vector<std::int64_t>&);         \
  template PageRankResult pagerank(const CsrView<V, I, O>&, const PageRankOptions&);
HOLA_FOR_EACH_VALUE_INDEX_OFFSET(HOLA_GRAPH_INSTANTIATE)
#undef HOLA_GRAPH_INSTANTIATE

}  // namespace hola::spmspv
