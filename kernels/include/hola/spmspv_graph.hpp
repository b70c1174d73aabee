// Graph algorithms on the host SpMSpV kernels: direction-optimizing BFS (parents and levels) and
// PageRank, with the Graph500 parent validation. The graph of A has an edge i -> j for every
// stored entry a_ij (values ignored). docs/spmspv.md.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "hola/csr_view.hpp"
#include "hola/spmspv.hpp"

namespace hola::spmspv {

enum class BfsDirection : int {
  automatic = 0,  // per level: select_algorithm on the frontier's features (push or pull)
  push = 1,       // always vector-driven (out-edges of the frontier, mask = not visited)
  pull = 2,       // always matrix-driven (in-edges of every unvisited vertex)
};

struct BfsOptions {
  BfsDirection direction = BfsDirection::automatic;
  bool symmetric = false;  // A's pattern is symmetric: pull uses A itself, no column view
  bool validate = true;    // check A's CSR structure first (O(nnz); off for repeated roots)
};

struct BfsResult {
  std::vector<std::int64_t> parent;  // -1 where not reached; parent[root] == root
  std::vector<std::int64_t> level;   // -1 where not reached; level[root] == 0
  std::int64_t reached = 0;          // vertices reached (root included)
  std::int64_t edges = 0;            // stored entries in the rows of reached vertices
  int depth = 0;                     // number of levels after the root's
  std::vector<Algorithm> steps;      // kernel used per level
};

// BFS from `root` (step: y = A^T x over (min, second), x_j = j on the frontier, y masked by the
// complement of the visited set). A square, host memory; parents are the smallest-index
// frontier neighbour. Throws hola::error on a bad root or matrix.
template <class V, class I, class O>
BfsResult bfs(const CsrView<V, I, O>& A, std::int64_t root, const BfsOptions& options = {});

// Graph500 parent validation, levels recomputed from the parents: the root is its own parent;
// every other reached vertex has a parent joined to it by an edge parent -> vertex, one level
// up; no cycles; every edge u -> v from a reached u reaches v with level(v) <= level(u) + 1;
// unreached vertices have parent -1 and are reachable from no reached vertex. Empty string when
// valid, else the first violation.
template <class V, class I, class O>
std::string check_bfs_parents(const CsrView<V, I, O>& A, std::int64_t root,
                              const std::vector<std::int64_t>& parent);

struct PageRankOptions {
  double damping = 0.85;
  double tolerance = 1e-9;  // stop when the L1 change of one iteration is below this
  int max_iterations = 200;
  // Teleport distribution (length n, nonnegative, normalized here); empty: uniform.
  std::vector<double> personalization;
};

struct PageRankResult {
  std::vector<double> rank;  // sums to 1
  int iterations = 0;
  double change = 0;  // L1 change of the last iteration
};

// r <- d (A^T D^-1 r + (sum of dangling ranks) p) + (1 - d) p, with D the out-degrees (row
// lengths of A) and p the personalization; dangling vertices (empty rows) spread their rank by p.
template <class V, class I, class O>
PageRankResult pagerank(const CsrView<V, I, O>& A, const PageRankOptions& options = {});

}  // namespace hola::spmspv
