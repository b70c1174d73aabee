// GPU graph algorithms (kernels/cuda/graph/, builds with HOLA_ENABLE_CUDA only): a
// direction-optimizing BFS on a device-resident graph, BFS as one dense cuSPARSE SpMV per level
// (the baseline), and the device side of PageRank (the matrix P = (D^-1 A)^T and one fused update
// kernel per iteration; the SpMV itself is supplied by the caller, e.g. hola::Operator, which
// lives in the plugin layer above kernels/). docs/spmspv.md, "GPU BFS and PageRank".
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "hola/csr_view.hpp"

namespace hola::graph::gpu {

enum class Direction : int {
  automatic = 0,  // Beamer's switch per level (alpha, beta below)
  push = 1,       // top-down on every level: expand the frontier queue's out-edges
  pull = 2,       // bottom-up on every level: unvisited vertices look for a frontier parent
};

inline const char* direction_name(Direction d) {
  return d == Direction::push ? "push" : d == Direction::pull ? "pull" : "auto";
}

struct BfsOptions {
  Direction direction = Direction::automatic;
  // The pattern of A is symmetric (an undirected graph): pull scans A's own rows. Otherwise
  // setup builds the transpose (in-edges) once on the host and keeps it on the device.
  bool symmetric = false;
  // push -> pull when the frontier's out-edges exceed (edges of unvisited vertices) / alpha;
  // pull -> push when the frontier shrinks below n / beta vertices.
  double alpha = 15.0;
  double beta = 18.0;
  // The search as one CUDA graph, built at setup: a conditional while node per level, the
  // direction chosen and the level's kernels picked on the device (a switch node), so the host
  // waits once per search instead of once per level. Off (or refused by the driver): the host
  // reads each level's counts and launches the next level, for the whole search.
  bool device_loop = true;
  // Levels run host-driven before the device loop takes over (a large graph's first levels cost
  // more than the round trip the loop saves; a high-diameter graph's many small levels do not).
  // -1 (the default): 0 for graphs of at most 2^20 stored edges, else 8.
  int host_levels = -1;
};

// What one search found (the parents and levels stay on the device until download()).
struct BfsStats {
  std::int64_t root = -1;
  std::int64_t reached = 0;  // vertices reached (root included)
  std::int64_t edges = 0;    // stored entries in the rows of reached vertices
  int depth = 0;             // levels after the root's
  int push_levels = 0, pull_levels = 0;
  std::string directions;    // one letter per level, 'P' push, 'B' bottom-up (pull)
  bool device_loop = false;  // the device loop ran the last device_levels levels
  int device_levels = 0;
};

#if defined(HOLA_ENABLE_CUDA)

// Direction-optimizing BFS. setup() uploads the graph once (32-bit vertex ids and offsets when
// they fit, else 64-bit), allocates everything a search needs and builds the device loop (one CUDA
// graph per search: BfsOptions::device_loop); search() allocates nothing. With the device loop it
// synchronizes its stream once per search; without it once per level, to read a 16-byte counter
// (frontier size and its out-edges: the direction choice and the launch sizes need them). Device
// memory per vertex: parent (index), level (int32), two queues with degrees, three bitmaps, a scan
// buffer, a direction letter.
class Bfs {
 public:
  Bfs();
  ~Bfs();
  Bfs(const Bfs&) = delete;
  Bfs& operator=(const Bfs&) = delete;

  // A square, host memory, edge i -> j per stored a_ij (values ignored). Throws hola::error on a
  // non-square or invalid matrix. Synchronizes the device.
  template <class V, class I, class O>
  void setup(const CsrView<V, I, O>& A, const BfsOptions& options = {});

  // One BFS from `root`; returns when it is done (the stream is synchronized). Throws on a bad
  // root. The direction may be overridden per call.
  BfsStats search(std::int64_t root);
  BfsStats search(std::int64_t root, Direction direction);

  // The last search's parents (-1 unreached, parent[root] == root) and levels (-1 unreached):
  // device -> host copies, outside any timed region.
  void download(std::vector<std::int64_t>* parent, std::vector<std::int64_t>* level) const;

  std::int64_t vertices() const;
  std::int64_t stored_edges() const;
  bool index32() const;  // 32-bit vertex ids on the device
  std::size_t device_bytes() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// BFS as one dense SpMV per level (the baseline of issue 17): x = frontier indicator (float),
// y = A^T x with cusparseSpMV (A^T as a CSR with values 1: A itself when symmetric), then one
// small kernel: new frontier = (y != 0) and unvisited. Levels only (an SpMV carries no parent).
// Per level: one SpMV, one kernel, one 4-byte counter read.
class DenseSpmvBfs {
 public:
  DenseSpmvBfs();
  ~DenseSpmvBfs();
  DenseSpmvBfs(const DenseSpmvBfs&) = delete;
  DenseSpmvBfs& operator=(const DenseSpmvBfs&) = delete;
  template <class V, class I, class O>
  void setup(const CsrView<V, I, O>& A, bool symmetric);
  BfsStats search(std::int64_t root);  // edges / directions left empty (levels only)
  void download_levels(std::vector<std::int64_t>* level) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

struct PageRankOptions {
  double damping = 0.85;
  double tolerance = 1e-9;  // stop when the L1 change of one iteration is below this
  int max_iterations = 200;
  // Iterations after the first run as one CUDA graph with a conditional while loop over chunks of
  // k iterations (below) that the device ends when an iteration converges or reaches
  // max_iterations: no host round trip, and at most k - 1 updates queued past convergence (they
  // change nothing). Needs use_graph and a SpMV that can be captured (no synchronization or
  // allocation); otherwise run() queues chunks from the host.
  bool device_loop = true;
  // With the device loop and k > 1: a one-iteration tail loop after the loop of k-iteration
  // passes. The last update of a pass hands over to it when the decay of the L1 changes (this
  // one over the one before) predicts fewer than k more iterations, so that the last iterations
  // do not run as a full pass past convergence. The result does not depend on it.
  bool loop_tail = true;
  // With the device loop: keep its graph (built at the first run, 0.1-0.2 ms) and replay it in
  // the later runs of this setup. The caller vouches that its SpMV queues the same work (the
  // same kernels on the same arrays) at every run; a SpMV that changes (an Operator set up
  // again on other arrays, a new callable) needs it off, or a new setup, which drops the graph.
  // A caller that can tell when its SpMV's work changes passes run() a version instead
  // (hola::Operator::work_version(Op::N)): the graph is then kept and replayed while the version
  // stays the same, whatever this option says.
  bool keep_graph = false;
  // k, iterations per chunk. Without the device loop the host queues chunks of k and reads the
  // device's iteration state one chunk behind (up to 2 k updates past convergence). The result
  // does not depend on k. 0 (the default): k = 1.6e7 / nnz(P), between 1 and 8: 8 for graphs up
  // to 2·10^6 nonzeros (launch-bound iterations), 1 from 1.6·10^7; PageRankRun::check_every tells.
  int check_every = 0;
  bool use_graph = true;  // CUDA graphs: the device loop, or chunks of k >= 2 after the first
  std::vector<double> personalization;  // length n, >= 0, normalized here; empty: uniform
};

struct PageRankRun {
  int iterations = 0;      // applied: up to the first whose L1 change is below the tolerance
  int iterations_run = 0;  // queued, those past convergence included (they change nothing)
  double change = 0;       // L1 change of the last applied iteration
  double seconds = 0;      // the whole run: start, iterations, the reads (host clock, synchronized)
  double ms_per_iteration = 0;  // seconds / iterations_run
  bool used_graph = false;      // a CUDA graph ran: the device loop or chunks after the first
  bool device_loop = false;     // the iterations after the first ran as the device loop
  bool reused_graph = false;    // the device loop replayed the graph of an earlier run
  int check_every = 0;          // k, iterations per chunk (check_every 0: the one chosen)
};

// The device side of PageRank with the host pagerank's math (hola/spmspv_graph.hpp): r <- d (P r
// + (dangling mass) p) + (1 - d) p with P = (D^-1 A)^T built once at setup (so the SpMV reads r
// directly). Per iteration: the caller's SpMV y = P r, then one fused kernel writing r in place,
// accumulating the L1 change and the next dangling mass (block reduction + atomics into a small
// device struct that the kernel of the previous iteration cleared: no memset). The update's last
// block decides convergence on the device. By default the iterations after the first run as one
// CUDA graph whose conditional while loop the device ends (PageRankOptions::device_loop; the SpMV
// must then be capturable: no synchronization or allocation); otherwise the host queues chunks of
// check_every iterations without waiting for each, an update after the stop changing nothing.
template <class V, class I, class O>
class PageRank {
 public:
  // y = P x on the stream (a cudaStream_t): no allocation, no synchronization.
  using Spmv = std::function<void(const V* x, V* y, void* stream)>;

  PageRank();
  ~PageRank();
  PageRank(const PageRank&) = delete;
  PageRank& operator=(const PageRank&) = delete;

  // A square, host memory. Builds P on the host (values 1 / out-degree of the source, duplicates
  // summed as separate entries like the host pagerank), uploads it, the dangling flags and p.
  void setup(const CsrView<V, I, O>& A, const PageRankOptions& options = {});
  // P on the device (for the caller's SpMV setup).
  const CsrView<V, I, O>& matrix() const;
  void* stream() const;  // the cudaStream_t every call here runs on

  // spmv_version: 0, or a number that changes whenever the work spmv queues may change (e.g.
  // hola::Operator::work_version(Op::N) of the Operator it applies; never the same number for
  // two different SpMVs). Nonzero: the device loop's graph built by a run is kept, and a later run
  // with the same version replays it instead of building it again (a different version builds it
  // again). 0: PageRankOptions::keep_graph decides.
  PageRankRun run(const Spmv& spmv, std::uint64_t spmv_version = 0);
  std::vector<double> download_rank() const;
  // The device vectors run() uses: r (x of the SpMV) and y = P r (for timing the SpMV alone).
  const V* rank_device() const;
  V* product_device() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Median time in ms of `reps` runs of fn(stream) after `warmup` runs, CUDA events on `stream`.
double time_on_stream(const std::function<void(void*)>& fn, void* stream, int warmup, int reps);

#endif

}  // namespace hola::graph::gpu
