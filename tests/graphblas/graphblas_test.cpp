// SuiteSparse:GraphBLAS as an independent reference (issue 17): hola's host BFS against
// GraphBLAS BFS parents (Graph500 check, levels, the parents themselves), hola's host PageRank
// against GraphBLAS PageRank, and hola's host SpMSpV kernels against GrB_mxv / GrB_vxm with a
// sparse GrB_Vector x.
#include <gtest/gtest.h>

extern "C" {
#include <GraphBLAS.h>
}

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "graphblas_baseline.hpp"
#include "hola/generators.hpp"
#include "hola/spmspv.hpp"
#include "hola/spmspv_graph.hpp"

namespace {

using hola::gen::Csr64;
namespace gb = hola::demo::graphblas;
namespace sp = hola::spmspv;

void grb(GrB_Info info, const char* what) {
  ASSERT_TRUE(info == GrB_SUCCESS || info == GrB_NO_VALUE) << what << " returned " << info;
}

// Pattern of A + A^T without the diagonal (an undirected graph), values 1.
Csr64 symmetrized(const Csr64& m) {
  std::vector<std::set<std::int64_t>> adj(static_cast<std::size_t>(m.rows));
  for (std::int64_t r = 0; r < m.rows; ++r)
    for (auto k = m.row_ptr[r]; k < m.row_ptr[r + 1]; ++k)
      if (m.col_idx[k] != r) {
        adj[r].insert(m.col_idx[k]);
        adj[m.col_idx[k]].insert(r);
      }
  Csr64 s;
  s.rows = s.cols = m.rows;
  for (const auto& row : adj) {
    s.col_idx.insert(s.col_idx.end(), row.begin(), row.end());
    s.row_ptr.push_back(static_cast<std::int64_t>(s.col_idx.size()));
  }
  s.values.assign(s.col_idx.size(), 1.0);
  return s;
}

// Directed path 0 -> 1 -> ... -> n-1 (and back when `both_ways`).
Csr64 path(std::int64_t n, bool both_ways) {
  Csr64 s;
  s.rows = s.cols = n;
  for (std::int64_t v = 0; v < n; ++v) {
    if (both_ways && v > 0) s.col_idx.push_back(v - 1);
    if (v + 1 < n) s.col_idx.push_back(v + 1);
    s.row_ptr.push_back(static_cast<std::int64_t>(s.col_idx.size()));
  }
  s.values.assign(s.col_idx.size(), 1.0);
  return s;
}

// Block diagonal of a and b: two components with no edge between them.
Csr64 disjoint(const Csr64& a, const Csr64& b) {
  Csr64 s = a;
  s.rows = s.cols = a.rows + b.rows;
  for (std::int64_t r = 0; r < b.rows; ++r) {
    for (auto k = b.row_ptr[r]; k < b.row_ptr[r + 1]; ++k) {
      s.col_idx.push_back(b.col_idx[k] + a.cols);
      s.values.push_back(b.values[k]);
    }
    s.row_ptr.push_back(static_cast<std::int64_t>(s.col_idx.size()));
  }
  return s;
}

// The graphs of the BFS and PageRank comparisons (name, graph).
std::vector<std::pair<std::string, Csr64>> graphs() {
  std::vector<std::pair<std::string, Csr64>> g;
  g.emplace_back("rmat10_directed", hola::gen::rmat(10, 8, 7));
  g.emplace_back("rmat11_undirected", symmetrized(hola::gen::rmat(11, 16, 3)));
  g.emplace_back("path_directed", path(300, false));
  g.emplace_back("path_undirected", path(257, true));
  g.emplace_back("disconnected",
                 disjoint(symmetrized(hola::gen::rmat(8, 4, 5)), hola::gen::poisson2d(12, 9)));
  g.emplace_back("random_directed", hola::gen::random_rect(2000, 2000, 3, 11));
  g.emplace_back("poisson3d", hola::gen::poisson3d(10, 9, 8));
  return g;
}

// Levels recomputed from a parent array (-1 unreached); -2 marks a cycle or a bad parent.
std::vector<std::int64_t> levels_from_parents(const std::vector<std::int64_t>& parent,
                                              std::int64_t root) {
  const auto n = static_cast<std::int64_t>(parent.size());
  std::vector<std::int64_t> level(parent.size(), -1);
  for (std::int64_t v = 0; v < n; ++v) {
    if (parent[v] < 0) continue;
    std::int64_t depth = 0, u = v;
    while (u != root && depth <= n) {
      u = parent[u];
      if (u < 0 || u >= n) return std::vector<std::int64_t>(parent.size(), -2);
      ++depth;
    }
    level[v] = depth > n ? -2 : depth;
  }
  return level;
}

std::vector<std::int64_t> roots_of(const Csr64& g) {
  std::vector<std::int64_t> roots{0, g.rows / 2, g.rows - 1};
  // Plus the first vertex with an edge (a root inside the big component of an R-MAT graph).
  for (std::int64_t v = 0; v < g.rows; ++v)
    if (g.row_ptr[v + 1] > g.row_ptr[v]) {
      roots.push_back(v);
      break;
    }
  return roots;
}

TEST(GraphBlasBfs, ParentsPassGraph500CheckAndMatchHolaLevels) {
  for (const auto& [name, g] : graphs()) {
    gb::Graph graph(g.rows, g.cols, g.row_ptr.data(), g.col_idx.data(), 2);
    for (std::int64_t root : roots_of(g)) {
      SCOPED_TRACE(name + " root " + std::to_string(root));
      const gb::BfsRun run = graph.bfs_parents(root);
      ASSERT_EQ(run.parent.size(), static_cast<std::size_t>(g.rows));
      EXPECT_EQ(sp::check_bfs_parents(g.view(), root, run.parent), "");
      EXPECT_GE(run.seconds, 0.0);
      for (auto dir :
           {sp::BfsDirection::automatic, sp::BfsDirection::push, sp::BfsDirection::pull}) {
        sp::BfsOptions opt;
        opt.direction = dir;
        const sp::BfsResult hola_run = sp::bfs(g.view(), root, opt);
        EXPECT_EQ(levels_from_parents(run.parent, root), hola_run.level);
        // Both take the smallest-index frontier vertex as parent.
        EXPECT_EQ(run.parent, hola_run.parent);
      }
    }
  }
}

TEST(GraphBlasBfs, BadRootThrows) {
  const Csr64 g = path(10, true);
  gb::Graph graph(g.rows, g.cols, g.row_ptr.data(), g.col_idx.data(), 1);
  EXPECT_THROW(graph.bfs_parents(-1), std::invalid_argument);
  EXPECT_THROW(graph.bfs_parents(10), std::invalid_argument);
}

void expect_ranks_near(const std::vector<double>& a, const std::vector<double>& b, double tol) {
  ASSERT_EQ(a.size(), b.size());
  double worst = 0, sum_a = 0, sum_b = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    worst = std::max(worst, std::abs(a[i] - b[i]));
    sum_a += a[i];
    sum_b += b[i];
  }
  EXPECT_LE(worst, tol);
  EXPECT_NEAR(sum_a, 1.0, 1e-9);
  EXPECT_NEAR(sum_b, 1.0, 1e-9);
}

TEST(GraphBlasPagerank, MatchesHolaUniformAndPersonalized) {
  for (const auto& [name, g] : graphs()) {
    SCOPED_TRACE(name);
    gb::Graph graph(g.rows, g.cols, g.row_ptr.data(), g.col_idx.data(), 2);
    std::vector<double> personal(static_cast<std::size_t>(g.rows), 0.0);
    personal[0] = 1;
    personal[g.rows / 3] = 2;
    personal[g.rows - 1] = 0.5;
    for (bool personalized : {false, true}) {
      SCOPED_TRACE(personalized ? "personalized" : "uniform");
      sp::PageRankOptions opt;
      opt.damping = 0.85;
      opt.tolerance = 1e-12;
      opt.max_iterations = 500;
      if (personalized) opt.personalization = personal;
      const sp::PageRankResult ref = sp::pagerank(g.view(), opt);
      const gb::PagerankRun run = personalized ? graph.pagerank(0.85, 1e-12, 500, personal)
                                               : graph.pagerank(0.85, 1e-12, 500);
      expect_ranks_near(run.rank, ref.rank, 1e-10);
      // Rounding differs, so the last L1 change may cross the tolerance one iteration apart.
      EXPECT_NEAR(run.iterations, ref.iterations, 1);
      EXPECT_GE(run.seconds_per_iteration, 0.0);
    }
    // A fixed iteration count (no convergence test) gives the same iterate.
    sp::PageRankOptions opt;
    opt.damping = 0.5;
    opt.tolerance = 0;
    opt.max_iterations = 7;
    const auto ref = sp::pagerank(g.view(), opt);
    const auto run = graph.pagerank(0.5, 0, 7);
    EXPECT_EQ(run.iterations, 7);
    expect_ranks_near(run.rank, ref.rank, 1e-13);
  }
}

TEST(GraphBlasPagerank, BadArgumentsThrow) {
  const Csr64 g = path(10, false);
  gb::Graph graph(g.rows, g.cols, g.row_ptr.data(), g.col_idx.data(), 1);
  EXPECT_THROW(graph.pagerank(1.0, 1e-9, 10), std::invalid_argument);
  EXPECT_THROW(graph.pagerank(0.85, -1, 10), std::invalid_argument);
  EXPECT_THROW(graph.pagerank(0.85, 1e-9, 10, std::vector<double>(3, 1.0)), std::invalid_argument);
  EXPECT_THROW(graph.pagerank(0.85, 1e-9, 10, std::vector<double>(10, 0.0)), std::invalid_argument);
}

TEST(GraphBlasGraph, EdgelessGraph) {
  const Csr64 g = hola::gen::empty(5, 5);
  gb::Graph graph(g.rows, g.cols, g.row_ptr.data(), g.col_idx.data(), 1);
  const auto run = graph.bfs_parents(2);
  EXPECT_EQ(run.parent, (std::vector<std::int64_t>{-1, -1, 2, -1, -1}));
  const auto pr = graph.pagerank(0.85, 1e-12, 50);  // every vertex dangling: stays uniform
  for (double r : pr.rank) EXPECT_NEAR(r, 0.2, 1e-15);
}

TEST(GraphBlasGraph, BadCsrThrows) {
  const std::vector<std::int64_t> row_ptr{0, 1, 2}, bad_col{0, 5};
  EXPECT_THROW(gb::Graph(2, 2, row_ptr.data(), bad_col.data(), 1), std::invalid_argument);
}

// --- SpMSpV: hola's host kernels against GraphBLAS on the same matrices and sparse vectors ---

// RAII GraphBLAS objects for the comparison.
struct GrbMatrix {
  GrB_Matrix m = nullptr;
  explicit GrbMatrix(const Csr64& a) {
    gb::initialize();
    std::vector<GrB_Index> I, J;
    for (std::int64_t r = 0; r < a.rows; ++r)
      for (auto k = a.row_ptr[r]; k < a.row_ptr[r + 1]; ++k) {
        I.push_back(static_cast<GrB_Index>(r));
        J.push_back(static_cast<GrB_Index>(a.col_idx[k]));
      }
    grb(GrB_Matrix_new(&m, GrB_FP64, a.rows, a.cols), "GrB_Matrix_new");
    grb(GrB_Matrix_build_FP64(m, I.data(), J.data(), a.values.data(), I.size(), GrB_PLUS_FP64),
        "GrB_Matrix_build");
  }
  ~GrbMatrix() { GrB_Matrix_free(&m); }
};
struct GrbVector {
  GrB_Vector v = nullptr;
  GrbVector(GrB_Type type, std::int64_t n) { grb(GrB_Vector_new(&v, type, n), "GrB_Vector_new"); }
  ~GrbVector() { GrB_Vector_free(&v); }
};

// x with about density * n entries (sorted indices, values in [-1, 1] away from 0).
void random_sparse(std::int64_t n, double density, std::uint64_t seed,
                   std::vector<std::int64_t>& idx, std::vector<double>& val) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0, 1);
  idx.clear();
  val.clear();
  for (std::int64_t i = 0; i < n; ++i)
    if (u(rng) < density) {
      idx.push_back(i);
      val.push_back((u(rng) < 0.5 ? -1 : 1) * (0.25 + u(rng)));
    }
  if (idx.empty() && n > 0) {
    idx.push_back(n / 2);
    val.push_back(0.75);
  }
}

enum class MaskKind { none, mask, complement };

TEST(GraphBlasSpmspv, HostKernelsMatchGrbMxvVxm) {
  const std::vector<std::pair<std::string, Csr64>> mats = {
      {"random_rect_300x200", hola::gen::random_rect(300, 200, 5, 21)},
      {"poisson2d_20x20", hola::gen::poisson2d(20, 20)},
      {"rmat9", hola::gen::rmat(9, 8, 4)},
      {"banded_500", hola::gen::banded_normal(500, 9, 6.0, 8)},
  };
  std::int64_t checked = 0;
  for (const auto& [name, a] : mats) {
    const auto A = a.view();
    sp::ColumnView<double, std::int64_t, std::int64_t> columns;
    columns.build(A);
    const auto At = columns.transposed_view();
    GrbMatrix G(a);
    for (hola::Op op : {hola::Op::N, hola::Op::T}) {
      const std::int64_t n_in = op == hola::Op::N ? a.cols : a.rows;
      const std::int64_t n_out = op == hola::Op::N ? a.rows : a.cols;
      std::vector<std::uint8_t> mask_bytes(static_cast<std::size_t>(n_out));
      std::mt19937_64 rng(99);
      for (auto& b : mask_bytes) b = static_cast<std::uint8_t>(rng() % 3 == 0 ? 0 : 1 + rng() % 4);
      for (double density : {0.004, 0.05, 0.4, 1.0}) {
        std::vector<std::int64_t> xi;
        std::vector<double> xv;
        random_sparse(n_in, density, 1000 + checked, xi, xv);
        GrbVector gx(GrB_FP64, n_in);
        std::vector<GrB_Index> gxi(xi.begin(), xi.end());
        grb(GrB_Vector_build_FP64(gx.v, gxi.data(), xv.data(), gxi.size(), GrB_PLUS_FP64),
            "GrB_Vector_build");
        GrbVector gmask(GrB_BOOL, n_out);
        for (std::int64_t i = 0; i < n_out; ++i)
          if (mask_bytes[i]) grb(GrB_Vector_setElement_BOOL(gmask.v, true, i), "setElement");
        for (auto semiring : {sp::Semiring::plus_times, sp::Semiring::min_second}) {
          for (MaskKind mk : {MaskKind::none, MaskKind::mask, MaskKind::complement}) {
            // GraphBLAS: w<mask> = A x (mxv) for N, w<mask> = x A (vxm, i.e. A^T x) for T. The
            // multiplier takes x: SECOND in mxv (x second), FIRST in vxm (x first).
            GrB_Semiring s = semiring == sp::Semiring::plus_times ? GrB_PLUS_TIMES_SEMIRING_FP64
                             : op == hola::Op::N                  ? GrB_MIN_SECOND_SEMIRING_FP64
                                                                  : GxB_MIN_FIRST_FP64;
            GrB_Vector m = mk == MaskKind::none ? nullptr : gmask.v;
            GrB_Descriptor d = mk == MaskKind::complement ? GrB_DESC_RC : GrB_DESC_R;
            GrbVector w(GrB_FP64, n_out);
            if (op == hola::Op::N)
              grb(GrB_mxv(w.v, m, nullptr, s, G.m, gx.v, d), "GrB_mxv");
            else
              grb(GrB_vxm(w.v, m, nullptr, s, gx.v, G.m, d), "GrB_vxm");
            GrB_Index wn = 0;
            grb(GrB_Vector_nvals(&wn, w.v), "nvals");
            std::vector<GrB_Index> wi(wn);
            std::vector<double> wv(wn);
            grb(GrB_Vector_extractTuples_FP64(wi.data(), wv.data(), &wn, w.v), "extractTuples");
            // GraphBLAS may leave w jumbled (unsorted) after a masked saxpy: sort the tuples.
            {
              std::vector<std::pair<GrB_Index, double>> t(wn);
              for (GrB_Index k = 0; k < wn; ++k) t[k] = {wi[k], wv[k]};
              std::sort(t.begin(), t.end());
              for (GrB_Index k = 0; k < wn; ++k) std::tie(wi[k], wv[k]) = t[k];
            }

            sp::Problem<double, std::int64_t, std::int64_t> p;
            p.op = op;
            p.semiring = semiring;
            p.A = A;
            p.At = &At;
            p.x.size = n_in;
            p.x.nnz = static_cast<std::int64_t>(xi.size());
            p.x.format = sp::VectorFormat::sorted;
            p.x.indices = xi.data();
            p.x.values = xv.data();
            if (mk != MaskKind::none) {
              p.mask.values = mask_bytes.data();
              p.mask.size = n_out;
              p.mask.complement = mk == MaskKind::complement;
            }
            for (auto alg : {sp::Algorithm::matrix_driven, sp::Algorithm::vector_driven}) {
              SCOPED_TRACE(name + " op " + (op == hola::Op::N ? "N" : "T") + " density " +
                           std::to_string(density) + " " + sp::algorithm_name(alg) + " semiring " +
                           std::to_string(static_cast<int>(semiring)) + " mask " +
                           std::to_string(static_cast<int>(mk)));
              std::vector<std::int64_t> yi(static_cast<std::size_t>(n_out));
              std::vector<double> yv(static_cast<std::size_t>(n_out));
              auto y = sp::sparse_output(n_out, yi.data(), yv.data());
              y.want_sorted = true;
              sp::Workspace<double, std::int64_t> ws;
              sp::multiply(alg, p, y, ws);
              ASSERT_EQ(static_cast<GrB_Index>(y.nnz), wn);
              for (GrB_Index k = 0; k < wn; ++k) {
                ASSERT_EQ(static_cast<GrB_Index>(yi[k]), wi[k]);
                if (semiring == sp::Semiring::min_second)
                  EXPECT_EQ(yv[k], wv[k]);
                else
                  EXPECT_NEAR(yv[k], wv[k], 1e-12 * (1 + std::abs(wv[k])) * 64);
              }
              ++checked;
            }
          }
        }
      }
    }
  }
  EXPECT_EQ(checked, 4 * 2 * 4 * 2 * 3 * 2);
}

}  // namespace
