// SuiteSparse:GraphBLAS as the CPU baseline and second reference of the graph demos (issue 17):
// BFS parents and PageRank written the GraphBLAS way on one matrix built from a host CSR.
// Built only when GraphBLAS is found (target hola_graphblas_baseline, HOLA_HAVE_GRAPHBLAS=1).
// Every failing GrB call throws std::runtime_error naming the call and its GrB_Info.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

namespace hola::demo::graphblas {

// GrB_init(GrB_NONBLOCKING) once per process (Graph's constructor calls it too); for code that
// uses the GraphBLAS C API directly next to Graph, since GraphBLAS refuses a second GrB_init.
void initialize();

struct BfsRun {
  std::vector<std::int64_t> parent;  // -1 where not reached; parent[root] == root
  double seconds;                    // the search itself (no matrix build, no copy-out)
};

struct PagerankRun {
  std::vector<double> rank;      // sums to 1
  int iterations;                // iterations run (stopped on the L1 change or max_iter)
  double seconds_per_iteration;  // loop time / iterations (setup of the vectors excluded)
};

// One GraphBLAS matrix with an entry (i, j) per stored a_ij of the CSR (values are the
// multiplicity of the entry, so duplicates count as in hola's host PageRank). rows == cols for
// graphs. `threads`: OpenMP threads GraphBLAS may use (<= 0: its default).
class Graph {
 public:
  Graph(std::int64_t rows, std::int64_t cols, const std::int64_t* row_ptr,
        const std::int64_t* col_idx, int threads);
  ~Graph();
  Graph(const Graph&) = delete;
  Graph& operator=(const Graph&) = delete;

  // BFS from `root` over edges i -> j per stored a_ij (hola::spmspv::bfs's graph). One level is
  // q<!struct(parent), replace> = q min.secondi A: each newly reached vertex gets the smallest
  // frontier vertex with an edge to it as parent (the same parent hola's host BFS picks);
  // GraphBLAS chooses push (saxpy) or pull (dot) per level itself.
  BfsRun bfs_parents(std::int64_t root);

  // hola::spmspv::pagerank's iteration with uniform teleport: r <- d (A^T D^-1 r + (dangling
  // mass) p) + (1 - d) p, D the row lengths, stop when the L1 change is below `tol`.
  PagerankRun pagerank(double damping, double tol, int max_iter);
  // The same with the teleport distribution `personalization` (length n, >= 0, normalized here;
  // empty: uniform), as hola's PageRankOptions::personalization.
  PagerankRun pagerank(double damping, double tol, int max_iter,
                       const std::vector<double>& personalization);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace hola::demo::graphblas
