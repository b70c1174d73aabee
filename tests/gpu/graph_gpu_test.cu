// GPU BFS and PageRank (kernels/cuda/graph, hola/graph_gpu.hpp) against the host versions
// (hola/spmspv_graph.hpp): BFS parents through the Graph500 check and levels equal to the host
// BFS levels on R-MAT graphs, paths, stars, disconnected graphs and isolated roots, directed and
// undirected, every direction mode, several value / index types; the dense cuSPARSE baseline's
// levels; PageRank with and without personalization, with dangling vertices, float and double,
// the same ranks and iteration count on the device loop (one graph that the device ends, nothing
// past convergence) and on chunks of every check_every, plain or as a graph, the fallbacks for a
// SpMV that cannot be captured, the iteration cap on both paths.
// Exits 77 (skipped) without a GPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <string>
#include <utility>
#include <vector>

#include "hola/generators.hpp"
#include "hola/graph_gpu.hpp"
#include "hola/operator.hpp"
#include "hola/spmspv_graph.hpp"
#include "status_of.hpp"

namespace hola::test {
namespace {

namespace gg = hola::graph::gpu;
using gen::Csr64;

// CSR of the edge list (i -> j), rows sorted, repeats kept once; `both`: add j -> i too.
Csr64 from_edges(std::int64_t n, std::vector<std::pair<std::int64_t, std::int64_t>> e, bool both) {
  if (both) {
    const std::size_t m = e.size();
    for (std::size_t k = 0; k < m; ++k) e.emplace_back(e[k].second, e[k].first);
  }
  std::sort(e.begin(), e.end());
  e.erase(std::unique(e.begin(), e.end()), e.end());
  Csr64 g;
  g.rows = g.cols = n;
  g.row_ptr.assign(static_cast<std::size_t>(n) + 1, 0);
  for (const auto& [i, j] : e) {
    ++g.row_ptr[i + 1];
    g.col_idx.push_back(j);
  }
  for (std::int64_t r = 0; r < n; ++r) g.row_ptr[r + 1] += g.row_ptr[r];
  g.values.assign(g.col_idx.size(), 1.0);
  return g;
}

// Pattern of A + A^T without the diagonal.
Csr64 symmetrized(const Csr64& a) {
  std::vector<std::pair<std::int64_t, std::int64_t>> e;
  for (std::int64_t r = 0; r < a.rows; ++r)
    for (auto k = a.row_ptr[r]; k < a.row_ptr[r + 1]; ++k)
      if (a.col_idx[k] != r) e.emplace_back(r, a.col_idx[k]);
  return from_edges(a.rows, e, true);
}

Csr64 path(std::int64_t n, bool both) {
  std::vector<std::pair<std::int64_t, std::int64_t>> e;
  for (std::int64_t i = 0; i + 1 < n; ++i) e.emplace_back(i, i + 1);
  return from_edges(n, e, both);
}

Csr64 star(std::int64_t n) {  // hub 0, undirected
  std::vector<std::pair<std::int64_t, std::int64_t>> e;
  for (std::int64_t i = 1; i < n; ++i) e.emplace_back(0, i);
  return from_edges(n, e, true);
}

// Four hubs joined to the same leaves (K_{4, leaves}), undirected: from a leaf, one push level
// expands four heavy vertices at once (the device loop spreads those over the whole grid).
Csr64 hubs(std::int64_t leaves) {
  std::vector<std::pair<std::int64_t, std::int64_t>> e;
  for (std::int64_t h = 0; h < 4; ++h)
    for (std::int64_t i = 0; i < leaves; ++i) e.emplace_back(h, 4 + i);
  return from_edges(4 + leaves, e, true);
}

// Two R-MAT blocks with no edge between them, then isolated vertices.
Csr64 disconnected(bool both) {
  const Csr64 a = gen::rmat(9, 8, 3), b = gen::rmat(8, 8, 4);
  std::vector<std::pair<std::int64_t, std::int64_t>> e;
  for (std::int64_t r = 0; r < a.rows; ++r)
    for (auto k = a.row_ptr[r]; k < a.row_ptr[r + 1]; ++k)
      if (a.col_idx[k] != r) e.emplace_back(r, a.col_idx[k]);
  for (std::int64_t r = 0; r < b.rows; ++r)
    for (auto k = b.row_ptr[r]; k < b.row_ptr[r + 1]; ++k)
      if (b.col_idx[k] != r) e.emplace_back(a.rows + r, a.rows + b.col_idx[k]);
  return from_edges(a.rows + b.rows + 100, e, both);
}

struct NamedGraph {
  std::string name;
  Csr64 g;
  bool symmetric;
};

std::vector<NamedGraph> graphs() {
  std::vector<NamedGraph> v;
  v.push_back({"rmat10_undirected", symmetrized(gen::rmat(10, 16, 1)), true});
  v.push_back({"rmat12_undirected", symmetrized(gen::rmat(12, 16, 2)), true});
  v.push_back({"rmat11_directed", gen::rmat(11, 8, 5), false});
  v.push_back({"path_undirected", path(3000, true), true});
  v.push_back({"path_directed", path(2000, false), false});
  v.push_back({"star", star(5000), true});
  v.push_back({"disconnected_undirected", disconnected(true), true});
  v.push_back({"disconnected_directed", disconnected(false), false});
  v.push_back({"hubs", hubs(6000), true});
  return v;
}

// Roots: vertex 0, the last vertex (isolated in `disconnected`), a few spread out.
std::vector<std::int64_t> roots_of(const Csr64& g) {
  std::vector<std::int64_t> r{0, g.rows - 1, g.rows / 2, g.rows / 3, 7 % g.rows};
  std::sort(r.begin(), r.end());
  r.erase(std::unique(r.begin(), r.end()), r.end());
  return r;
}

template <class V, class I, class O>
void check_bfs_all(const NamedGraph& ng, bool force_general) {
  const auto m = ng.g.convert<V, I, O>();
  const auto A = m.view();
  // Levels driven by the host before the device loop: none, two (the loop continues from the host
  // path's state: queue or bitmaps, either parity), every level (device_loop off).
  constexpr int kAllOnHost = -1;
  const int host_levels[] = {0, 2, kAllOnHost};
  for (const gg::Direction dir :
       {gg::Direction::automatic, gg::Direction::push, gg::Direction::pull}) {
    gg::Bfs bfs[3];
    gg::BfsOptions opt;
    opt.direction = dir;
    opt.symmetric = ng.symmetric && !force_general;
    for (int c = 0; c < 3; ++c) {
      opt.device_loop = host_levels[c] != kAllOnHost;
      opt.host_levels = host_levels[c] == kAllOnHost ? -1 : host_levels[c];
      bfs[c].setup(A, opt);
      EXPECT_TRUE(bfs[c].index32());
    }
    for (const std::int64_t root : roots_of(ng.g)) {
      SCOPED_TRACE(ng.name + " root " + std::to_string(root) + " direction " +
                   gg::direction_name(dir) + (opt.symmetric ? " symmetric" : " general"));
      spmspv::BfsOptions hopt;
      hopt.direction = spmspv::BfsDirection::push;
      const auto h = spmspv::bfs(A, root, hopt);
      std::string directions[3];
      for (int c = 0; c < 3; ++c) {
        SCOPED_TRACE("host levels " + std::to_string(host_levels[c]));
        const auto s = bfs[c].search(root);
        std::vector<std::int64_t> parent, level;
        bfs[c].download(&parent, &level);
        EXPECT_EQ(spmspv::check_bfs_parents(A, root, parent), "");
        EXPECT_EQ(level, h.level);
        EXPECT_EQ(s.reached, h.reached);
        EXPECT_EQ(s.edges, h.edges);
        EXPECT_EQ(s.depth, h.depth);
        EXPECT_EQ(s.push_levels + s.pull_levels, static_cast<int>(s.directions.size()));
        // One letter per level, the last one finding nothing.
        const int levels = static_cast<int>(s.directions.size());
        EXPECT_EQ(levels, s.depth + 1);
        const int on_device =
            host_levels[c] == kAllOnHost ? 0 : std::max(0, levels - host_levels[c]);
        EXPECT_EQ(s.device_levels, on_device);
        EXPECT_EQ(s.device_loop, on_device > 0);
        if (dir == gg::Direction::push) EXPECT_EQ(s.pull_levels, 0);
        if (dir == gg::Direction::pull) EXPECT_EQ(s.push_levels, 0);
        directions[c] = s.directions;
      }
      EXPECT_EQ(directions[0], directions[2]);
      EXPECT_EQ(directions[1], directions[2]);
    }
  }
}

TEST(GraphGpuBfs, ParentsValidAndLevelsMatchHost) {
  for (const auto& ng : graphs()) check_bfs_all<double, std::int32_t, std::int32_t>(ng, false);
}

TEST(GraphGpuBfs, GeneralPathOnSymmetricGraphs) {
  // The transpose-building path on undirected graphs gives the same answers.
  for (const auto& ng : graphs())
    if (ng.symmetric) check_bfs_all<float, std::int32_t, std::int64_t>(ng, true);
}

TEST(GraphGpuBfs, OtherTypes) {
  const auto all = graphs();
  check_bfs_all<float, std::int64_t, std::int64_t>(all[0], false);
  check_bfs_all<double, std::int64_t, std::int32_t>(all[2], false);
  check_bfs_all<float, std::int32_t, std::int32_t>(all[6], false);
}

TEST(GraphGpuBfs, AutoSwitchesBothWaysOnKronecker) {
  // Scale 14: the automatic mode pulls on the big middle levels and pushes at both ends.
  const auto g = symmetrized(gen::rmat(14, 16, 9));
  gg::BfsOptions opt;
  opt.symmetric = true;
  gg::Bfs bfs;
  bfs.setup(g.view(), opt);
  // A root of the smallest nonzero degree: its first level is surely a push.
  std::int64_t root = -1;
  for (std::int64_t v = 0; v < g.rows; ++v) {
    const auto d = g.row_ptr[v + 1] - g.row_ptr[v];
    if (d > 0 && (root < 0 || d < g.row_ptr[root + 1] - g.row_ptr[root])) root = v;
  }
  ASSERT_GE(root, 0);
  const auto s = bfs.search(root);
  EXPECT_GT(s.pull_levels, 0) << s.directions;
  EXPECT_GT(s.push_levels, 0) << s.directions;
  EXPECT_EQ(s.directions[0], 'P');
  std::vector<std::int64_t> parent, level;
  bfs.download(&parent, &level);
  EXPECT_EQ(spmspv::check_bfs_parents(g.view(), root, parent), "");
  // The same object searched again from another root and back: nothing left over.
  const auto other = bfs.search(g.rows - 1);
  (void)other;
  const auto again = bfs.search(root);
  std::vector<std::int64_t> parent2, level2;
  bfs.download(&parent2, &level2);
  EXPECT_EQ(level2, level);
  EXPECT_EQ(again.reached, s.reached);
  // Per-call direction override.
  const auto pushed = bfs.search(root, gg::Direction::push);
  EXPECT_EQ(pushed.pull_levels, 0);
  bfs.download(&parent2, &level2);
  EXPECT_EQ(level2, level);
}

TEST(GraphGpuBfs, BadInput) {
  const auto g = path(10, true);
  gg::Bfs bfs;
  EXPECT_EQ(status_of([&] { bfs.search(0); }), status::invalid_argument);
  bfs.setup(g.view(), {});
  EXPECT_EQ(status_of([&] { bfs.search(-1); }), status::invalid_argument);
  EXPECT_EQ(status_of([&] { bfs.search(10); }), status::invalid_argument);
  Csr64 rect = g;
  rect.cols = 11;
  gg::Bfs other;
  EXPECT_EQ(status_of([&] { other.setup(rect.view(), {}); }), status::size_mismatch);
  gg::BfsOptions bad;
  bad.alpha = 0;
  EXPECT_EQ(status_of([&] { other.setup(g.view(), bad); }), status::invalid_argument);
  bad = {};
  bad.host_levels = -2;
  EXPECT_EQ(status_of([&] { other.setup(g.view(), bad); }), status::invalid_argument);
}

// The automatic hand-off (host_levels -1) on a graph of more than 2^20 edges and many levels:
// consecutive layers of 8 vertices fully joined, undirected. The host drives the first 8 levels,
// the device loop the rest; the answer is the host BFS's.
TEST(GraphGpuBfs, AutomaticHandOffOnDeepLargeGraph) {
  const std::int64_t layers = 12000, width = 8;
  std::vector<std::pair<std::int64_t, std::int64_t>> e;
  for (std::int64_t l = 0; l + 1 < layers; ++l)
    for (std::int64_t a = 0; a < width; ++a)
      for (std::int64_t b = 0; b < width; ++b) e.emplace_back(l * width + a, (l + 1) * width + b);
  const Csr64 g = from_edges(layers * width, e, true);
  ASSERT_GT(g.nnz(), std::int64_t(1) << 20);
  gg::BfsOptions opt;
  opt.symmetric = true;
  gg::Bfs bfs;
  bfs.setup(g.view(), opt);
  const auto s = bfs.search(0);
  EXPECT_TRUE(s.device_loop);
  EXPECT_EQ(s.depth, layers - 1);
  EXPECT_EQ(s.device_levels, static_cast<int>(s.directions.size()) - 8);
  std::vector<std::int64_t> parent, level;
  bfs.download(&parent, &level);
  EXPECT_EQ(spmspv::check_bfs_parents(g.view(), 0, parent), "");
  spmspv::BfsOptions hopt;
  hopt.direction = spmspv::BfsDirection::push;
  EXPECT_EQ(level, spmspv::bfs(g.view(), 0, hopt).level);
}

TEST(GraphGpuBfs, DenseSpmvBaselineLevels) {
  for (const auto& ng : graphs()) {
    gg::DenseSpmvBfs dense;
    dense.setup(ng.g.view(), ng.symmetric);
    for (const std::int64_t root : roots_of(ng.g)) {
      SCOPED_TRACE(ng.name + " root " + std::to_string(root));
      const auto s = dense.search(root);
      std::vector<std::int64_t> level;
      dense.download_levels(&level);
      const auto h = spmspv::bfs(ng.g.view(), root);
      EXPECT_EQ(level, h.level);
      EXPECT_EQ(s.reached, h.reached);
      EXPECT_EQ(s.edges, h.edges);
      EXPECT_EQ(s.depth, h.depth);
    }
  }
}

// How check_pagerank runs the GPU PageRank.
struct PageRankCase {
  int check_every = 0;
  bool device_loop = true;
  bool capturable = true;  // false: the SpMV synchronizes its stream, which a capture refuses
  bool loop_tail = true;   // the device loop's one-iteration tail (PageRankOptions::loop_tail)
};

// GPU PageRank with an Operator "auto" SpMV against the host pagerank.
template <class V, class I, class O>
void check_pagerank(const Csr64& g, const std::vector<double>& personalization, double tol_rank,
                    const PageRankCase& c = {}) {
  const auto m = g.convert<V, I, O>();
  spmspv::PageRankOptions hopt;
  hopt.tolerance = sizeof(V) == 8 ? 1e-10 : 1e-5;
  hopt.max_iterations = 300;
  hopt.personalization = personalization;
  const auto h = spmspv::pagerank(m.view(), hopt);
  ASSERT_GE(h.iterations, 2);
  gg::PageRankOptions opt;
  opt.tolerance = hopt.tolerance;
  opt.max_iterations = hopt.max_iterations;
  opt.personalization = personalization;
  opt.check_every = c.check_every;
  opt.device_loop = c.device_loop;
  opt.loop_tail = c.loop_tail;
  gg::PageRank<V, I, O> pr;
  pr.setup(m.view(), opt);
  Operator<V, I, O> op;  // kernel auto
  op.setup(pr.matrix(), 0, pr.stream());
  const std::int64_t n = g.rows;
  int refused = 0;  // synchronizations refused (inside a capture)
  const auto r = pr.run([&](const V* x, V* y, void* stream) {
    op.apply(Op::N, V(1), ConstVec<V>{x, n}, V(0), Vec<V>{y, n}, stream);
    if (!c.capturable && cudaStreamSynchronize(static_cast<cudaStream_t>(stream)) != cudaSuccess)
      ++refused;
  });
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
  const auto rank = pr.download_rank();
  ASSERT_EQ(rank.size(), h.rank.size());
  double max_diff = 0, sum = 0;
  for (std::size_t i = 0; i < rank.size(); ++i) {
    max_diff = std::max(max_diff, std::abs(rank[i] - h.rank[i]));
    sum += rank[i];
  }
  EXPECT_LT(max_diff, tol_rank);
  EXPECT_NEAR(sum, 1.0, sizeof(V) == 8 ? 1e-9 : 1e-3);
  // The device stops the iteration: the count is the host's whatever the path (iterations queued
  // past it change nothing).
  if (sizeof(V) == 8) EXPECT_NEAR(r.iterations, h.iterations, 1);
  EXPECT_LT(r.iterations, opt.max_iterations);
  EXPECT_GE(r.change, 0);
  EXPECT_LT(r.change, opt.tolerance);
  EXPECT_GT(r.ms_per_iteration, 0);
  // Chunks of k: as asked, or (0) from P's size: 8 for these small graphs.
  const int k = r.check_every;
  EXPECT_EQ(k, c.check_every > 0 ? c.check_every : 8);
  EXPECT_GE(r.iterations_run, r.iterations);
  if (c.device_loop && c.capturable) {
    // One graph after the first iteration, a loop over chunks of k that the device ends: at most
    // k - 1 updates past convergence (the tail loop takes the last ones one at a time when it is
    // on: no whole number of passes then).
    EXPECT_TRUE(r.device_loop);
    EXPECT_TRUE(r.used_graph);
    EXPECT_LE(r.iterations_run, r.iterations + k - 1);
    if (!c.loop_tail || k == 1) EXPECT_EQ((r.iterations_run - 1) % k, 0);
    EXPECT_EQ(refused, 0);
    return;
  }
  EXPECT_FALSE(r.device_loop);
  EXPECT_LE(r.iterations_run, r.iterations + 2 * k);
  if (c.device_loop) {
    // The refused device loop (one SpMV call) leaves chunks of plain launches.
    EXPECT_EQ(refused, 1);
    EXPECT_FALSE(r.used_graph);
    return;
  }
  // Chunk graphs: the second chunk is captured when it is full; tried once (its SpMV calls may
  // stop at the first refusal).
  const bool capture_chunk_full = r.iterations_run - k >= k;
  if (!c.capturable && k >= 2 && capture_chunk_full) {
    EXPECT_GE(refused, 1);
    EXPECT_LE(refused, k);
  } else {
    EXPECT_EQ(refused, 0);
  }
  EXPECT_EQ(r.used_graph, c.capturable && k >= 2 && capture_chunk_full);
}

TEST(GraphGpuPageRank, MatchesHostWithDanglingVertices) {
  const Csr64 directed = gen::rmat(12, 8, 11);  // R-MAT leaves many empty rows (dangling)
  std::int64_t dangling = 0;
  for (std::int64_t r = 0; r < directed.rows; ++r)
    dangling += directed.row_ptr[r + 1] == directed.row_ptr[r];
  ASSERT_GT(dangling, 0);
  check_pagerank<double, std::int32_t, std::int32_t>(directed, {}, 1e-9);
  check_pagerank<double, std::int64_t, std::int64_t>(directed, {}, 1e-9);
  check_pagerank<float, std::int32_t, std::int32_t>(directed, {}, 2e-5);
  check_pagerank<double, std::int32_t, std::int32_t>(symmetrized(gen::rmat(11, 16, 12)), {}, 1e-9);
  check_pagerank<double, std::int32_t, std::int32_t>(path(500, false), {}, 1e-9);
}

TEST(GraphGpuPageRank, Personalization) {
  const Csr64 directed = gen::rmat(11, 8, 13);
  std::vector<double> p(static_cast<std::size_t>(directed.rows), 0.0);
  p[0] = 1;
  p[5] = 2;
  p[directed.rows - 1] = 0.5;
  check_pagerank<double, std::int32_t, std::int32_t>(directed, p, 1e-9);
  check_pagerank<float, std::int32_t, std::int64_t>(directed, p, 2e-5);
}

// Without the device loop: chunks of every k, plain or as a graph, give the same ranks.
TEST(GraphGpuPageRank, CheckEveryK) {
  const Csr64 g = gen::rmat(11, 8, 14);
  for (int k : {0, 1, 2, 3, 4, 7, 8, 50, 1000})
    check_pagerank<double, std::int32_t, std::int32_t>(g, {}, 1e-9, {k, false, true});
  check_pagerank<float, std::int32_t, std::int32_t>(g, {}, 2e-5, {5, false, true});
  // A SpMV that synchronizes cannot be captured: plain launches, the same ranks.
  check_pagerank<double, std::int32_t, std::int32_t>(g, {}, 1e-9, {4, false, false});
}

// The device loop over chunks of every k: the same ranks and count.
TEST(GraphGpuPageRank, DeviceLoopEveryK) {
  const Csr64 g = gen::rmat(11, 8, 17);
  for (int k : {1, 2, 3, 5, 8, 64, 1000})
    check_pagerank<double, std::int32_t, std::int32_t>(g, {}, 1e-9, {k, true, true});
  check_pagerank<float, std::int64_t, std::int32_t>(g, {}, 2e-5, {3, true, true});
  // Other shapes of convergence: a path (slow, even), a symmetric R-MAT graph.
  check_pagerank<double, std::int32_t, std::int32_t>(path(500, false), {}, 1e-9, {64, true, true});
  check_pagerank<double, std::int64_t, std::int64_t>(symmetrized(gen::rmat(11, 16, 18)), {}, 1e-9,
                                                     {8, true, true});
}

// The device loop's tail (PageRankOptions::loop_tail): the same ranks (to the rounding of the
// dangling mass, which blocks add atomically) and the same count as the loop without it, with
// fewer updates queued past convergence over these graphs (none when the prediction is right);
// both also against the host (check_pagerank).
TEST(GraphGpuPageRank, DeviceLoopTail) {
  const std::pair<Csr64, int> graphs[] = {{gen::rmat(11, 8, 17), 8},
                                          {gen::rmat(12, 8, 11), 8},
                                          {symmetrized(gen::rmat(11, 16, 18)), 8},
                                          {path(500, false), 8},
                                          {path(500, false), 64}};
  int queued[2] = {0, 0}, applied = 0;
  for (const auto& [g, k] : graphs) {
    const auto m = g.convert<double, std::int32_t, std::int32_t>();
    std::vector<double> rank[2];
    int iterations[2] = {0, 0};
    for (int tail = 0; tail < 2; ++tail) {
      check_pagerank<double, std::int32_t, std::int32_t>(g, {}, 1e-9, {k, true, true, tail == 1});
      gg::PageRankOptions opt;
      opt.tolerance = 1e-10;
      opt.max_iterations = 300;
      opt.check_every = k;
      opt.loop_tail = tail == 1;
      gg::PageRank<double, std::int32_t, std::int32_t> pr;
      pr.setup(m.view(), opt);
      Operator<double, std::int32_t, std::int32_t> op;
      op.set_auto_check(false);  // the same kernel in both runs: the same bits
      op.setup(pr.matrix(), 0, pr.stream());
      const std::int64_t n = g.rows;
      const auto r = pr.run([&](const double* x, double* y, void* stream) {
        op.apply(Op::N, 1.0, ConstVec<double>{x, n}, 0.0, Vec<double>{y, n}, stream);
      });
      ASSERT_TRUE(r.device_loop);
      rank[tail] = pr.download_rank();
      iterations[tail] = r.iterations;
      queued[tail] += r.iterations_run;
      EXPECT_LE(r.iterations_run, r.iterations + k - 1);
    }
    EXPECT_EQ(iterations[0], iterations[1]);
    ASSERT_EQ(rank[0].size(), rank[1].size());
    double max_diff = 0;
    for (std::size_t i = 0; i < rank[0].size(); ++i)
      max_diff = std::max(max_diff, std::abs(rank[0][i] - rank[1][i]));
    EXPECT_LT(max_diff, 1e-14) << "k " << k;
    applied += iterations[1];
  }
  EXPECT_LT(queued[1], queued[0]) << "applied " << applied;
}

// keep_graph: the first run builds the device loop's graph, the next ones replay it (the same
// ranks and count, right against the host); a new setup drops it.
TEST(GraphGpuPageRank, KeepGraph) {
  const Csr64 g = gen::rmat(11, 8, 19);
  const auto m = g.convert<double, std::int32_t, std::int32_t>();
  spmspv::PageRankOptions hopt;
  hopt.tolerance = 1e-10;
  hopt.max_iterations = 300;
  const auto h = spmspv::pagerank(m.view(), hopt);
  for (const bool tail : {true, false}) {
    gg::PageRankOptions opt;
    opt.tolerance = hopt.tolerance;
    opt.max_iterations = hopt.max_iterations;
    opt.keep_graph = true;
    opt.loop_tail = tail;
    gg::PageRank<double, std::int32_t, std::int32_t> pr;
    for (int setup = 0; setup < 2; ++setup) {
      pr.setup(m.view(), opt);
      Operator<double, std::int32_t, std::int32_t> op;
      op.setup(pr.matrix(), 0, pr.stream());
      const std::int64_t n = g.rows;
      for (int run = 0; run < 3; ++run) {
        const auto r = pr.run([&](const double* x, double* y, void* stream) {
          op.apply(Op::N, 1.0, ConstVec<double>{x, n}, 0.0, Vec<double>{y, n}, stream);
        });
        EXPECT_TRUE(r.device_loop);
        EXPECT_TRUE(r.used_graph);
        EXPECT_EQ(r.reused_graph, run > 0) << "setup " << setup << " run " << run;
        EXPECT_NEAR(r.iterations, h.iterations, 1);
        const auto rank = pr.download_rank();
        double max_diff = 0;
        for (std::size_t i = 0; i < rank.size(); ++i)
          max_diff = std::max(max_diff, std::abs(rank[i] - h.rank[i]));
        EXPECT_LT(max_diff, 1e-9) << "tail " << tail << " setup " << setup << " run " << run;
      }
    }
  }
}

// run() with the SpMV's version (Operator::work_version): the loop's graph is kept without
// keep_graph and replayed while the version holds; auto's check ending, a new values pointer or
// another Operator each build it again; version 0 never replays. Every run's ranks are right.
TEST(GraphGpuPageRank, GraphReplayedWhileTheSpmvVersionHolds) {
  const Csr64 g = gen::rmat(11, 8, 23);
  const auto m = g.convert<double, std::int32_t, std::int32_t>();
  spmspv::PageRankOptions hopt;
  hopt.tolerance = 1e-10;
  hopt.max_iterations = 300;
  const auto h = spmspv::pagerank(m.view(), hopt);
  gg::PageRankOptions opt;
  opt.tolerance = hopt.tolerance;
  opt.max_iterations = hopt.max_iterations;
  ASSERT_FALSE(opt.keep_graph);
  gg::PageRank<double, std::int32_t, std::int32_t> pr;
  pr.setup(m.view(), opt);
  const std::int64_t n = g.rows;
  const auto P = pr.matrix();
  Operator<double, std::int32_t, std::int32_t> op;
  op.setup(P, 0, pr.stream());
  Operator<double, std::int32_t, std::int32_t>* current = &op;
  const auto spmv = [&](const double* x, double* y, void* stream) {
    current->apply(Op::N, 1.0, ConstVec<double>{x, n}, 0.0, Vec<double>{y, n}, stream);
  };
  int step = 0;
  const auto run_and_check = [&](std::uint64_t version, bool replay) {
    const auto r = pr.run(spmv, version);
    EXPECT_TRUE(r.device_loop) << "step " << step;
    EXPECT_EQ(r.reused_graph, replay) << "step " << step << " version " << version;
    EXPECT_NEAR(r.iterations, h.iterations, 1) << "step " << step;
    const auto rank = pr.download_rank();
    double max_diff = 0;
    for (std::size_t i = 0; i < rank.size(); ++i)
      max_diff = std::max(max_diff, std::abs(rank[i] - h.rank[i]));
    EXPECT_LT(max_diff, 1e-9) << "step " << step;
    ++step;
  };
  const std::uint64_t first = op.work_version(Op::N);  // 0 while auto's check compares
  run_and_check(first, false);
  const std::uint64_t settled = op.work_version(Op::N);
  EXPECT_NE(settled, 0u);  // the run's capture ended the check
  EXPECT_NE(settled, first);
  run_and_check(settled, false);  // built and kept
  run_and_check(settled, true);
  run_and_check(settled, true);
  run_and_check(0, false);  // no version, no keep_graph: built, the kept one dropped
  run_and_check(settled, false);
  run_and_check(settled, true);
  // P's values through another pointer (a copy): a new version, the graph built again.
  double* copy = nullptr;
  ASSERT_EQ(cudaMalloc(&copy, sizeof(double) * static_cast<std::size_t>(P.nnz)), cudaSuccess);
  ASSERT_EQ(cudaMemcpy(copy, P.values, sizeof(double) * static_cast<std::size_t>(P.nnz),
                       cudaMemcpyDeviceToDevice),
            cudaSuccess);
  auto moved = P;
  moved.values = copy;
  op.setup(moved, 0, pr.stream());
  const std::uint64_t moved_version = op.work_version(Op::N);
  EXPECT_NE(moved_version, settled);
  run_and_check(moved_version, false);
  run_and_check(moved_version, true);
  // Another Operator (cuSPARSE, no check): its own version, the graph built again.
  OperatorOptions cus;
  cus.kernel = "cusparse";
  Operator<double, std::int32_t, std::int32_t> other(cus);
  other.setup(P, 0, pr.stream());
  current = &other;
  const std::uint64_t other_version = other.work_version(Op::N);
  EXPECT_NE(other_version, 0u);
  EXPECT_NE(other_version, moved_version);
  run_and_check(other_version, false);
  run_and_check(other_version, true);
  EXPECT_EQ(cudaFree(copy), cudaSuccess);
}

// The device loop refused (the SpMV synchronizes): chunks of plain launches, the same ranks.
TEST(GraphGpuPageRank, DeviceLoopFallsBack) {
  const Csr64 g = gen::rmat(11, 8, 16);
  check_pagerank<double, std::int32_t, std::int32_t>(g, {}, 1e-9, {0, true, false});
  check_pagerank<float, std::int64_t, std::int64_t>(g, {}, 2e-5, {3, true, false});
}

// The iteration cap: not converged (tolerance 0), every iteration applied, none past the cap.
TEST(GraphGpuPageRank, MaxIterationsCap) {
  const Csr64 g = gen::rmat(10, 8, 15);
  for (const bool device_loop : {true, false})
    for (int cap : {0, 1, 2, 5, 16, 17}) {
      gg::PageRankOptions opt;
      opt.device_loop = device_loop;
      opt.tolerance = 0;
      opt.max_iterations = cap;
      opt.check_every = 4;
      gg::PageRank<double, std::int32_t, std::int32_t> pr;
      const auto m = g.convert<double, std::int32_t, std::int32_t>();
      pr.setup(m.view(), opt);
      Operator<double, std::int32_t, std::int32_t> op;
      op.setup(pr.matrix(), 0, pr.stream());
      const std::int64_t n = g.rows;
      const auto r = pr.run([&](const double* x, double* y, void* stream) {
        op.apply(Op::N, 1.0, ConstVec<double>{x, n}, 0.0, Vec<double>{y, n}, stream);
      });
      EXPECT_EQ(r.iterations, cap);
      EXPECT_EQ(r.device_loop, device_loop && cap >= 2);
      // Chunks of 4: the host queues none past the cap; the device loop's last pass may hold up
      // to 3 that change nothing.
      EXPECT_GE(r.iterations_run, cap);
      EXPECT_LE(r.iterations_run, r.device_loop ? cap + 3 : cap);
      // The host pagerank with the same cap and tolerance 0 gives the same ranks.
      spmspv::PageRankOptions hopt;
      hopt.tolerance = 0;
      hopt.max_iterations = cap;
      const auto h = spmspv::pagerank(m.view(), hopt);
      const auto rank = pr.download_rank();
      double max_diff = 0;
      for (std::size_t i = 0; i < rank.size(); ++i)
        max_diff = std::max(max_diff, std::abs(rank[i] - h.rank[i]));
      EXPECT_LT(max_diff, 1e-12) << "cap " << cap << " device loop " << device_loop;
    }
}

TEST(GraphGpuPageRank, BadInput) {
  const Csr64 g = path(10, false);
  gg::PageRank<double, std::int64_t, std::int64_t> pr;
  gg::PageRankOptions opt;
  opt.damping = 1.0;
  EXPECT_EQ(status_of([&] { pr.setup(g.view(), opt); }), status::invalid_argument);
  opt = {};
  opt.personalization.assign(5, 1.0);
  EXPECT_EQ(status_of([&] { pr.setup(g.view(), opt); }), status::size_mismatch);
  opt.personalization.assign(10, 0.0);
  EXPECT_EQ(status_of([&] { pr.setup(g.view(), opt); }), status::invalid_argument);
  opt = {};
  opt.check_every = -1;
  EXPECT_EQ(status_of([&] { pr.setup(g.view(), opt); }), status::invalid_argument);
}

}  // namespace
}  // namespace hola::test
