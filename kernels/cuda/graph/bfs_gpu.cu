// Direction-optimizing BFS on the GPU (hola/graph_gpu.hpp). Per level either push (top-down:
// every out-edge of the frontier queue, load-balanced through a scan of the frontier's degrees,
// unvisited targets claimed with atomicCAS on parent, the next queue built with warp-aggregated
// atomics) or pull (bottom-up: one thread per unvisited vertex, one warp per 32-vertex bitmap
// word, stopping at the first in-neighbour found in the frontier bitmap), switched by Beamer's
// rule. The frontier changes representation (queue <-> bitmaps) only when the direction does.
#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>
#include <cub/device/device_scan.cuh>

#include <algorithm>
#include <cstring>

#include "graph_common.cuh"
#include "hola/detail/instantiate.hpp"
#include "hola/graph_gpu.hpp"
#include "hola/validate.hpp"

namespace hola::graph::gpu {
namespace {

using detail::kFullMask;
constexpr int kBlock = 256;

// What a level's kernels add up: vertices appended to the next frontier and their out-degrees.
struct Counters {
  unsigned long long count;
  unsigned long long edges;
};

using BlockSum = cub::BlockReduce<unsigned long long, kBlock>;

// One atomicAdd per block for each counter (a per-warp atomic on one address would serialize
// tens of thousands of updates on a large level).
__device__ __forceinline__ void add_block_totals(unsigned long long count, unsigned long long edges,
                                                 Counters* c) {
  __shared__ typename BlockSum::TempStorage tmp;
  const unsigned long long total_count = BlockSum(tmp).Sum(count);
  __syncthreads();
  const unsigned long long total_edges = BlockSum(tmp).Sum(edges);
  if (threadIdx.x == 0) {
    if (total_count) atomicAdd(&c->count, total_count);
    if (total_edges) atomicAdd(&c->edges, total_edges);
  }
}

// Warp-aggregated append of the lanes with `take` to queue / degrees: one atomic per warp for
// the positions. Every lane of the warp must call it. Returns the warp's total degree (all
// lanes).
template <class I, class O>
__device__ __forceinline__ unsigned long long append(bool take, I vertex, O degree, I* queue,
                                                     O* degrees, unsigned long long* count) {
  const int lane = threadIdx.x & 31;
  const unsigned mask = __ballot_sync(kFullMask, take);
  if (mask == 0) return 0;
  const int leader = __ffs(mask) - 1;
  unsigned long long base = 0;
  if (lane == leader) base = atomicAdd(count, static_cast<unsigned long long>(__popc(mask)));
  base = __shfl_sync(kFullMask, base, leader);
  if (take) {
    const unsigned long long pos = base + __popc(mask & ((1u << lane) - 1u));
    queue[pos] = vertex;
    degrees[pos] = degree;
  }
  return detail::warp_sum(take ? static_cast<unsigned long long>(degree) : 0ull);
}

template <class I, class O>
__global__ void init_search(I root, O root_degree, I* parent, int* level, I* queue, O* degrees) {
  parent[root] = root;
  level[root] = 0;
  queue[0] = root;
  degrees[0] = root_degree;
}

// Claims w for the level from u; the lanes that claimed append w (warp-aggregated). Every lane of
// the warp calls it. Returns the warp's appended out-edges (all lanes).
template <class I, class O>
__device__ __forceinline__ unsigned long long claim_and_append(bool valid, I u, I w,
                                                               const O* __restrict__ row_ptr,
                                                               I* parent, int* level, int depth,
                                                               I* next_queue, O* next_degrees,
                                                               unsigned long long* count) {
  bool take = false;
  O out_degree = 0;
  if (valid && parent[w] == I(-1) && detail::claim(&parent[w], u) == I(-1)) {
    take = true;
    level[w] = depth;
    out_degree = row_ptr[w + 1] - row_ptr[w];
  }
  return append(take, w, out_degree, next_queue, next_degrees, count);
}

// Push: thread per out-edge of the frontier. `scan` is the inclusive scan of the frontier's
// degrees; edge e belongs to the first frontier entry whose scan exceeds e.
template <class I, class O>
__global__ void __launch_bounds__(kBlock)
    push_level(const O* __restrict__ row_ptr, const I* __restrict__ col_idx,
               const I* __restrict__ queue, const O* __restrict__ scan, long long frontier,
               long long total, I* parent, int* level, int depth, I* next_queue, O* next_degrees,
               Counters* c) {
  const int lane = threadIdx.x & 31;
  const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
  unsigned long long edges = 0;
  // e - lane is the same for the whole warp: every lane stays in the loop for the ballot.
  for (long long e = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
       e - lane < total; e += stride) {
    I v = 0, w = 0;
    if (e < total) {
      long long lo = 0, hi = frontier - 1;
      while (lo < hi) {
        const long long mid = lo + (hi - lo) / 2;
        if (static_cast<long long>(scan[mid]) > e)
          hi = mid;
        else
          lo = mid + 1;
      }
      v = queue[lo];
      const long long first = lo ? static_cast<long long>(scan[lo - 1]) : 0;
      w = col_idx[static_cast<long long>(row_ptr[v]) + (e - first)];
    }
    const unsigned long long warp_edges = claim_and_append(
        e < total, v, w, row_ptr, parent, level, depth, next_queue, next_degrees, &c->count);
    if (lane == 0) edges += warp_edges;
  }
  add_block_totals(0, edges, c);
}

// Pull: warp per bitmap word, lane per vertex; an unvisited vertex scans its in-edges and stops
// at the first frontier vertex. The warp owns its words of next_frontier and visited: no atomics.
template <class I, class O>
__device__ __forceinline__ void pull_body(
    const O* __restrict__ in_ptr, const I* __restrict__ in_idx, const O* __restrict__ out_ptr,
    long long n, const unsigned* __restrict__ frontier, unsigned* __restrict__ next_frontier,
    unsigned* __restrict__ visited, I* parent, int* level, int depth, Counters* c) {
  const int lane = threadIdx.x & 31;
  const long long words = (n + 31) / 32;
  const long long warps = (static_cast<long long>(gridDim.x) * blockDim.x) >> 5;
  unsigned long long count = 0, edges = 0;
  for (long long word = (static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x) >> 5;
       word < words; word += warps) {
    const unsigned seen = visited[word];
    if (seen == kFullMask) {
      if (lane == 0) next_frontier[word] = 0;
      continue;
    }
    const long long v = word * 32 + lane;
    bool found = false;
    I from = 0;
    if (v < n && !((seen >> lane) & 1u)) {
      const O end = in_ptr[v + 1];
      for (O k = in_ptr[v]; k < end; ++k) {
        const I u = in_idx[k];
        if ((__ldg(&frontier[static_cast<long long>(u) >> 5]) >> (static_cast<unsigned>(u) & 31u)) &
            1u) {
          found = true;
          from = u;
          break;
        }
      }
    }
    const unsigned got = __ballot_sync(kFullMask, found);
    unsigned long long degree = 0;
    if (found) {
      parent[v] = from;
      level[v] = depth;
      degree = static_cast<unsigned long long>(out_ptr[v + 1] - out_ptr[v]);
    }
    degree = detail::warp_sum(degree);
    if (lane == 0) {
      next_frontier[word] = got;
      visited[word] = seen | got;
      count += static_cast<unsigned long long>(__popc(got));
      edges += degree;
    }
  }
  add_block_totals(count, edges, c);
}

template <class I, class O>
__global__ void __launch_bounds__(kBlock)
    pull_level(const O* __restrict__ in_ptr, const I* __restrict__ in_idx,
               const O* __restrict__ out_ptr, long long n, const unsigned* __restrict__ frontier,
               unsigned* __restrict__ next_frontier, unsigned* __restrict__ visited, I* parent,
               int* level, int depth, Counters* c) {
  pull_body(in_ptr, in_idx, out_ptr, n, frontier, next_frontier, visited, parent, level, depth, c);
}

// Queue -> bitmaps (push -> pull): visited from parent, warp per word.
template <class I>
__device__ __forceinline__ void visited_body(const I* parent, long long n, unsigned* visited) {
  const int lane = threadIdx.x & 31;
  const long long words = (n + 31) / 32;
  const long long warps = (static_cast<long long>(gridDim.x) * blockDim.x) >> 5;
  for (long long word = (static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x) >> 5;
       word < words; word += warps) {
    const long long v = word * 32 + lane;
    const unsigned bits = __ballot_sync(kFullMask, v < n && parent[v] != I(-1));
    if (lane == 0) visited[word] = bits;
  }
}

template <class I>
__global__ void visited_from_parent(const I* parent, long long n, unsigned* visited) {
  visited_body(parent, n, visited);
}

// Queue -> frontier bitmap (the bitmap was cleared first).
template <class I>
__device__ __forceinline__ void bitmap_body(const I* queue, long long frontier, unsigned* bitmap) {
  const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
  for (long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; i < frontier;
       i += stride) {
    const I u = queue[i];
    atomicOr(&bitmap[static_cast<long long>(u) >> 5], 1u << (static_cast<unsigned>(u) & 31u));
  }
}

template <class I>
__global__ void bitmap_from_queue(const I* queue, long long frontier, unsigned* bitmap) {
  bitmap_body(queue, frontier, bitmap);
}

// Bitmap -> queue with degrees (pull -> push), warp per word.
template <class I, class O>
__device__ __forceinline__ void queue_body(const unsigned* bitmap, long long n, const O* out_ptr,
                                           I* queue, O* degrees, Counters* c) {
  const int lane = threadIdx.x & 31;
  const long long words = (n + 31) / 32;
  const long long warps = (static_cast<long long>(gridDim.x) * blockDim.x) >> 5;
  for (long long word = (static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x) >> 5;
       word < words; word += warps) {
    const unsigned bits = bitmap[word];
    if (bits == 0) continue;  // warp-uniform
    const long long v = word * 32 + lane;
    const bool take = (bits >> lane) & 1u;
    const O degree = take ? out_ptr[v + 1] - out_ptr[v] : O(0);
    append(take, static_cast<I>(v), degree, queue, degrees, &c->count);
  }
}

template <class I, class O>
__global__ void queue_from_bitmap(const unsigned* bitmap, long long n, const O* out_ptr, I* queue,
                                  O* degrees, Counters* c) {
  queue_body(bitmap, n, out_ptr, queue, degrees, c);
}

// ---- The device loop: a whole search as one CUDA graph (BfsOptions::device_loop) ----------------
// A conditional while node runs one level per pass: loop_plan chooses the level's form on the
// device (the host rule's arithmetic) and sets a switch node, whose branch runs the conversion if
// any and the level; loop_finish takes the level's counts and ends the loop when the frontier is
// empty. The frontier buffers alternate through LoopState::cur, so the graph's kernel arguments
// never change and the graph is built once per setup.

// What the loop keeps on the device between levels (the host path keeps the same on the host).
struct LoopState {
  Counters level;      // the level being built: vertices appended, their out-edges
  Counters converted;  // bitmap -> queue: vertices appended (the frontier size is known)
  long long n, nnz;
  long long frontier, prev_frontier, frontier_edges, visited_edges, reached;
  double alpha, beta;
  int depth;        // the level being built (1: the root's neighbours)
  int found_depth;  // the last level that reached a vertex
  int cur;          // the buffers holding the frontier: [cur]; the next level's: [1 - cur]
  int pulling, as_queue, direction, push_levels, pull_levels;
  long long push_total;  // out-edges of the frontier being pushed (loop_scan_chunks)
};

// BfsOptions::host_levels -1: graphs of at most this many stored edges run the device loop from
// the root; larger ones after kAutoHostLevels host-driven levels. On one H100 (run AA) the loop
// took 0.85-0.9x the host-driven search's time on the corpus graphs (10^4-10^6 edges, up to 2 005
// levels) and 1.04-1.11x on Kronecker graphs of scale 16-21 (6-8 levels, 2·10^6-6·10^7 edges).
constexpr long long kLoopFromStartEdges = 1ll << 20;
constexpr int kAutoHostLevels = 8;

// Chunk totals per thread of loop_scan_chunks' single block.
constexpr int kScanItems = 8;

// The frontier buffers of both parities.
template <class I, class O>
struct Frontiers {
  I* queue[2];
  O* degrees[2];
  unsigned* bitmap[2];
};

enum LevelForm : unsigned {
  push_queue = 0,
  pull_bitmap = 1,
  to_bitmap_pull = 2,
  to_queue_push = 3
};

// One thread: Beamer's rule as the host path applies it, the level's form into the switch.
__global__ void loop_plan(LoopState* st, char* directions, cudaGraphConditionalHandle form) {
  LoopState& s = *st;
  if (s.direction == static_cast<int>(Direction::automatic)) {
    const double unvisited_edges = static_cast<double>(s.nnz - s.visited_edges);
    if (!s.pulling && static_cast<double>(s.frontier_edges) > unvisited_edges / s.alpha)
      s.pulling = 1;
    else if (s.pulling && static_cast<double>(s.frontier) < static_cast<double>(s.n) / s.beta &&
             s.frontier < s.prev_frontier)
      s.pulling = 0;
  }
  const unsigned f = s.pulling ? (s.as_queue ? to_bitmap_pull : pull_bitmap)
                               : (s.as_queue ? push_queue : to_queue_push);
  s.as_queue = !s.pulling;
  directions[s.depth - 1] = s.pulling ? 'B' : 'P';
  if (s.pulling)
    ++s.pull_levels;
  else
    ++s.push_levels;
  s.level = Counters{0, 0};
  s.converted = Counters{0, 0};
  cudaGraphSetConditional(form, f);
}

// One thread: the level's counts become the frontier; an empty one ends the loop.
__global__ void loop_finish(LoopState* st, cudaGraphConditionalHandle more) {
  LoopState& s = *st;
  const long long count = static_cast<long long>(s.level.count),
                  edges = static_cast<long long>(s.level.edges);
  s.cur = 1 - s.cur;
  s.prev_frontier = s.frontier;
  s.frontier = count;
  s.frontier_edges = edges;
  s.visited_edges += edges;
  s.reached += count;
  if (count > 0) s.found_depth = s.depth;
  ++s.depth;
  cudaGraphSetConditional(more, count > 0 ? 1u : 0u);
}

// Push, balanced over the frontier's out-edges like the host path's push_level, with the scan of
// the frontier's degrees done on the device (its size is known only there; cub::DeviceScan takes
// the count from the host): per chunk of kBlock entries a block scan (loop_chunk_degrees), the
// chunk totals scanned by one block (loop_scan_chunks), then a thread per out-edge finds its
// chunk and its entry by two binary searches (loop_push).
template <class I, class O>
__global__ void __launch_bounds__(kBlock)
    loop_chunk_degrees(Frontiers<I, O> f, O* ends, O* chunk_sum, const LoopState* st) {
  using Scan = cub::BlockScan<O, kBlock>;
  __shared__ typename Scan::TempStorage tmp;
  const long long frontier = st->frontier;
  const O* degrees = f.degrees[st->cur];
  for (long long base = static_cast<long long>(blockIdx.x) * kBlock; base < frontier;
       base += static_cast<long long>(gridDim.x) * kBlock) {
    const long long i = base + threadIdx.x;
    const O degree = i < frontier ? degrees[i] : O(0);
    O end = 0, total = 0;
    Scan(tmp).InclusiveSum(degree, end, total);
    if (i < frontier) ends[i] = end;
    if (threadIdx.x == 0) chunk_sum[base / kBlock] = total;
    __syncthreads();  // the scan's storage is reused by the next chunk
  }
}

// One block: the chunk totals become chunk starts (exclusive scan, in place), and their sum the
// level's push_total.
template <class O>
__global__ void __launch_bounds__(kBlock) loop_scan_chunks(O* chunk, LoopState* st) {
  using Scan = cub::BlockScan<O, kBlock>;
  __shared__ typename Scan::TempStorage tmp;
  __shared__ O carried;
  const long long chunks = (st->frontier + kBlock - 1) / kBlock;
  if (threadIdx.x == 0) carried = 0;
  __syncthreads();
  for (long long base = 0; base < chunks; base += kBlock * kScanItems) {
    const long long mine = base + static_cast<long long>(threadIdx.x) * kScanItems;
    O v[kScanItems];
    O sum = 0;
#pragma unroll
    for (int j = 0; j < kScanItems; ++j) {
      v[j] = mine + j < chunks ? chunk[mine + j] : O(0);
      sum += v[j];
    }
    O before = 0, tile = 0;
    Scan(tmp).ExclusiveSum(sum, before, tile);
    O running = carried + before;
#pragma unroll
    for (int j = 0; j < kScanItems; ++j) {
      if (mine + j < chunks) chunk[mine + j] = running;
      running += v[j];
    }
    __syncthreads();  // every thread read `carried` and the scan's storage
    if (threadIdx.x == 0) carried += tile;
    __syncthreads();
  }
  if (threadIdx.x == 0) st->push_total = static_cast<long long>(carried);
}

template <class I, class O>
__global__ void __launch_bounds__(kBlock)
    loop_push(const O* __restrict__ row_ptr, const I* __restrict__ col_idx, Frontiers<I, O> f,
              const O* __restrict__ ends, const O* __restrict__ chunk_start, I* parent, int* level,
              LoopState* st) {
  const long long total = st->push_total, frontier = st->frontier;
  const long long chunks = (frontier + kBlock - 1) / kBlock;
  const int cur = st->cur, depth = st->depth, lane = threadIdx.x & 31;
  const I* queue = f.queue[cur];
  I* next_queue = f.queue[1 - cur];
  O* next_degrees = f.degrees[1 - cur];
  const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
  unsigned long long edges = 0;
  // e - lane is the same for the whole warp: every lane stays in the loop for the ballot.
  for (long long e = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
       e - lane < total; e += stride) {
    I u = 0, w = 0;
    if (e < total) {
      long long lo = 0, hi = chunks - 1;  // the last chunk starting at or before e
      while (lo < hi) {
        const long long mid = (lo + hi + 1) / 2;
        if (static_cast<long long>(chunk_start[mid]) <= e)
          lo = mid;
        else
          hi = mid - 1;
      }
      const long long within = e - static_cast<long long>(chunk_start[lo]);
      const long long first_entry = lo * kBlock;
      long long a = first_entry,
                b = (frontier < first_entry + kBlock ? frontier : first_entry + kBlock) - 1;
      while (a < b) {  // the chunk's first entry whose scan exceeds `within`
        const long long mid = (a + b) / 2;
        if (static_cast<long long>(ends[mid]) > within)
          b = mid;
        else
          a = mid + 1;
      }
      u = queue[a];
      const long long before = a > first_entry ? static_cast<long long>(ends[a - 1]) : 0;
      w = col_idx[static_cast<long long>(row_ptr[u]) + (within - before)];
    }
    const unsigned long long warp_edges = claim_and_append(
        e < total, u, w, row_ptr, parent, level, depth, next_queue, next_degrees, &st->level.count);
    if (lane == 0) edges += warp_edges;
  }
  add_block_totals(0, edges, &st->level);
}

template <class I, class O>
__global__ void __launch_bounds__(kBlock)
    loop_pull(const O* __restrict__ in_ptr, const I* __restrict__ in_idx,
              const O* __restrict__ out_ptr, long long n, Frontiers<I, O> f, unsigned* visited,
              I* parent, int* level, LoopState* st) {
  const int cur = st->cur;
  pull_body(in_ptr, in_idx, out_ptr, n, f.bitmap[cur], f.bitmap[1 - cur], visited, parent, level,
            st->depth, &st->level);
}

// Queue -> bitmaps, first half: visited from parent, the frontier bitmap cleared.
template <class I, class O>
__global__ void loop_visited(const I* parent, long long n, unsigned* visited, Frontiers<I, O> f,
                             const LoopState* st) {
  visited_body(parent, n, visited);
  unsigned* bitmap = f.bitmap[st->cur];
  const long long words = (n + 31) / 32;
  const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
  for (long long w = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; w < words;
       w += stride)
    bitmap[w] = 0;
}

template <class I, class O>
__global__ void loop_bitmap(Frontiers<I, O> f, const LoopState* st) {
  bitmap_body(f.queue[st->cur], st->frontier, f.bitmap[st->cur]);
}

template <class I, class O>
__global__ void loop_queue(long long n, const O* out_ptr, Frontiers<I, O> f, LoopState* st) {
  const int cur = st->cur;
  queue_body(f.bitmap[cur], n, out_ptr, f.queue[cur], f.degrees[cur], &st->converted);
}

template <class I>
__global__ void widen(const I* parent, const int* level, long long n, std::int64_t* parent64,
                      std::int64_t* level64) {
  const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
  for (long long v = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; v < n;
       v += stride) {
    parent64[v] = static_cast<std::int64_t>(parent[v]);
    level64[v] = static_cast<std::int64_t>(level[v]);
  }
}

// Type-erased engine: the device index types are chosen at setup from the graph's size.
struct EngineBase {
  virtual ~EngineBase() = default;
  virtual BfsStats search(std::int64_t root, Direction direction) = 0;
  virtual void download(std::vector<std::int64_t>* parent, std::vector<std::int64_t>* level) = 0;
  virtual std::size_t bytes() const = 0;
  std::int64_t n = 0, nnz = 0;
  bool idx32 = false;
  BfsOptions options;
};

template <class I, class O>
struct Engine final : EngineBase {
  cudaStream_t stream = nullptr;
  cuda::DeviceBuffer row_ptr, col_idx, in_ptr, in_idx;  // in_*: transpose (directed graphs)
  cuda::DeviceBuffer parent, level, queue[2], degrees[2], scan, bitmap[2], visited, counters,
      cub_tmp, wide;
  std::size_t cub_bytes = 0;
  Counters* host_counters = nullptr;  // pinned
  std::vector<O> host_row_ptr;        // degrees of roots, without a device read
  bool has_pull = false;
  // The device loop (built once at setup; null when the driver refused it).
  cuda::DeviceBuffer loop_state, directions, chunk_start;
  LoopState* host_loop = nullptr;  // pinned
  cudaGraph_t loop_graph = nullptr;
  cudaGraphExec_t loop_exec = nullptr;

  ~Engine() override {
    if (loop_exec) cudaGraphExecDestroy(loop_exec);
    if (loop_graph) cudaGraphDestroy(loop_graph);
    if (host_loop) cudaFreeHost(host_loop);
    if (host_counters) cudaFreeHost(host_counters);
    if (stream) cudaStreamDestroy(stream);
  }

  Frontiers<I, O> frontiers() {
    return Frontiers<I, O>{{queue[0].as<I>(), queue[1].as<I>()},
                           {degrees[0].as<O>(), degrees[1].as<O>()},
                           {bitmap[0].as<unsigned>(), bitmap[1].as<unsigned>()}};
  }
  const I* in_indices() { return options.symmetric ? col_idx.as<I>() : in_idx.as<I>(); }
  const O* in_offsets() { return options.symmetric ? row_ptr.as<O>() : in_ptr.as<O>(); }
  unsigned vertex_grid() const {
    return std::min<unsigned>(
        detail::resident_blocks(kBlock),
        cuda::div_up(static_cast<std::size_t>(std::max<std::int64_t>(n, 1)), kBlock));
  }
  unsigned word_grid() const {
    const long long words = (n + 31) / 32;
    return std::min<unsigned>(
        detail::resident_blocks(kBlock),
        cuda::div_up(static_cast<std::size_t>(std::max<long long>(words, 1)) * 32, kBlock));
  }

  // The search as one graph: while (frontier) { plan; switch (form) { ... }; finish }. The
  // branches are captured on `stream`. False (and nothing kept) when the driver refuses a step.
  bool build_loop() {
    cudaGraph_t top = nullptr;
    cudaGraphConditionalHandle more = 0, form = 0;
    cudaGraphNode_t loop = nullptr, plan = nullptr, branch = nullptr, finish = nullptr;
    bool ok =
        cudaGraphCreate(&top, 0) == cudaSuccess &&
        cudaGraphConditionalHandleCreate(&more, top, 1, cudaGraphCondAssignDefault) == cudaSuccess;
    cudaGraph_t body = nullptr, branches[4] = {};
    ok = ok &&
         detail::add_conditional_node(top, nullptr, more, cudaGraphCondTypeWhile, 1, &loop, &body);
    ok = ok && cudaGraphConditionalHandleCreate(&form, body, 0, 0) == cudaSuccess;
    LoopState* st = loop_state.as<LoopState>();
    char* dirs = directions.as<char>();
    void* plan_args[] = {&st, &dirs, &form};
    void* finish_args[] = {&st, &more};
    ok = ok &&
         detail::add_single_thread_node(body, nullptr, reinterpret_cast<void*>(&loop_plan),
                                        plan_args, &plan) &&
         detail::add_conditional_node(body, plan, form, cudaGraphCondTypeSwitch, 4, &branch,
                                      branches) &&
         detail::add_single_thread_node(body, branch, reinterpret_cast<void*>(&loop_finish),
                                        finish_args, &finish);
    const Frontiers<I, O> f = frontiers();
    const unsigned vgrid = vertex_grid(), wgrid = word_grid();
    const auto push = [&] {
      loop_chunk_degrees<I, O>
          <<<vgrid, kBlock, 0, stream>>>(f, scan.as<O>(), chunk_start.as<O>(), st);
      loop_scan_chunks<O><<<1, kBlock, 0, stream>>>(chunk_start.as<O>(), st);
      loop_push<I, O><<<detail::resident_blocks(kBlock), kBlock, 0, stream>>>(
          row_ptr.as<O>(), col_idx.as<I>(), f, scan.as<O>(), chunk_start.as<O>(), parent.as<I>(),
          level.as<int>(), st);
    };
    const auto pull = [&] {
      loop_pull<I, O><<<wgrid, kBlock, 0, stream>>>(in_offsets(), in_indices(), row_ptr.as<O>(), n,
                                                    f, visited.as<unsigned>(), parent.as<I>(),
                                                    level.as<int>(), st);
    };
    for (unsigned b = 0; ok && b < 4; ++b) {
      ok = cudaStreamBeginCaptureToGraph(stream, branches[b], nullptr, nullptr, 0,
                                         cudaStreamCaptureModeThreadLocal) == cudaSuccess;
      if (!ok) break;
      switch (b) {
        case push_queue:
          push();
          break;
        case pull_bitmap:
          pull();
          break;
        case to_bitmap_pull:
          loop_visited<I, O>
              <<<wgrid, kBlock, 0, stream>>>(parent.as<I>(), n, visited.as<unsigned>(), f, st);
          loop_bitmap<I, O><<<vgrid, kBlock, 0, stream>>>(f, st);
          pull();
          break;
        default:
          loop_queue<I, O><<<wgrid, kBlock, 0, stream>>>(n, row_ptr.as<O>(), f, st);
          push();
      }
      cudaGraph_t captured = nullptr;
      ok = cudaStreamEndCapture(stream, &captured) == cudaSuccess;
    }
    ok = ok && cudaGraphInstantiate(&loop_exec, top, 0) == cudaSuccess;
    if (!ok) {
      cudaGetLastError();  // not sticky: the search keeps the host path
      if (loop_exec) cudaGraphExecDestroy(loop_exec);
      loop_exec = nullptr;
      if (top) cudaGraphDestroy(top);
      return false;
    }
    loop_graph = top;
    return true;
  }

  template <class V, class AI, class AO>
  void setup(const CsrView<V, AI, AO>& A) {
    HOLA_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    HOLA_CUDA_CHECK(cudaMallocHost(&host_counters, 2 * sizeof(Counters)));
    auto pattern = detail::convert_pattern<I, O>(A);
    detail::upload(row_ptr, pattern.row_ptr);
    detail::upload(col_idx, pattern.col_idx);
    if (!options.symmetric) {
      const auto t = detail::transpose_pattern(pattern);
      detail::upload(in_ptr, t.row_ptr);
      detail::upload(in_idx, t.col_idx);
    }
    host_row_ptr = std::move(pattern.row_ptr);
    const std::size_t nv = static_cast<std::size_t>(std::max<std::int64_t>(n, 1));
    const std::size_t words = (nv + 31) / 32;
    parent.resize(nv * sizeof(I));
    level.resize(nv * sizeof(int));
    for (int k = 0; k < 2; ++k) {
      queue[k].resize(nv * sizeof(I));
      degrees[k].resize(nv * sizeof(O));
      bitmap[k].resize(words * sizeof(unsigned));
    }
    scan.resize(nv * sizeof(O));
    visited.resize(words * sizeof(unsigned));
    counters.resize(2 * sizeof(Counters));
    HOLA_CUDA_CHECK(cub::DeviceScan::InclusiveSum(nullptr, cub_bytes, degrees[0].as<O>(),
                                                  scan.as<O>(), static_cast<long long>(nv)));
    cub_tmp.resize(std::max<std::size_t>(cub_bytes, 1));
    if (options.device_loop) {
      loop_state.resize(sizeof(LoopState));
      directions.resize(nv);  // one letter per level: at most n levels
      chunk_start.resize(cuda::div_up(nv, kBlock) * sizeof(O));
      HOLA_CUDA_CHECK(cudaMallocHost(&host_loop, sizeof(LoopState)));
      build_loop();
    }
    HOLA_CUDA_CHECK(cudaDeviceSynchronize());
  }

  std::size_t bytes() const override {
    std::size_t b = row_ptr.bytes() + col_idx.bytes() + in_ptr.bytes() + in_idx.bytes() +
                    parent.bytes() + level.bytes() + scan.bytes() + visited.bytes() +
                    counters.bytes() + cub_tmp.bytes() + loop_state.bytes() + directions.bytes() +
                    chunk_start.bytes();
    for (int k = 0; k < 2; ++k) b += queue[k].bytes() + degrees[k].bytes() + bitmap[k].bytes();
    return b;
  }

  Counters read_counters() {
    HOLA_CUDA_CHECK(cudaMemcpyAsync(host_counters, counters.get(), sizeof(Counters),
                                    cudaMemcpyDeviceToHost, stream));
    HOLA_CUDA_CHECK(cudaStreamSynchronize(stream));
    return host_counters[0];
  }

  BfsStats search(std::int64_t root, Direction direction) override {
    if (root < 0 || root >= n)
      fail(status::invalid_argument,
           "bfs (gpu): root " + std::to_string(root) + " outside [0, " + std::to_string(n) + ")");
    const long long words = (n + 31) / 32;
    const unsigned grid = detail::resident_blocks(kBlock);
    const unsigned wgrid = word_grid();
    Counters* dc = counters.as<Counters>();

    HOLA_CUDA_CHECK(
        cudaMemsetAsync(parent.get(), 0xff, static_cast<std::size_t>(n) * sizeof(I), stream));
    HOLA_CUDA_CHECK(
        cudaMemsetAsync(level.get(), 0xff, static_cast<std::size_t>(n) * sizeof(int), stream));
    const O root_degree = host_row_ptr[root + 1] - host_row_ptr[root];
    int cur = 0;  // queue[cur] / bitmap[cur] hold the frontier
    init_search<I, O><<<1, 1, 0, stream>>>(static_cast<I>(root), root_degree, parent.as<I>(),
                                           level.as<int>(), queue[cur].as<I>(),
                                           degrees[cur].as<O>());
    HOLA_CUDA_CHECK_LAUNCH("init_search");

    BfsStats s;
    s.root = root;
    long long frontier = 1, prev_frontier = 0;
    long long frontier_edges = static_cast<long long>(root_degree);
    long long visited_edges = frontier_edges;  // out-edges of every reached vertex
    s.reached = 1;
    bool as_queue = true;  // else bitmaps
    bool pulling = direction == Direction::pull;
    // Levels driven from here before the device loop takes over (the loop's own cost per level
    // is larger than a level's on a large graph of few levels, run AA).
    const int host_levels = options.host_levels >= 0     ? options.host_levels
                            : nnz <= kLoopFromStartEdges ? 0
                                                         : kAutoHostLevels;
    for (int depth = 1; frontier > 0; ++depth) {
      if (loop_exec && depth > host_levels) {
        LoopState h{};
        h.n = n;
        h.nnz = nnz;
        h.frontier = frontier;
        h.prev_frontier = prev_frontier;
        h.frontier_edges = frontier_edges;
        h.visited_edges = visited_edges;
        h.reached = s.reached;
        h.alpha = options.alpha;
        h.beta = options.beta;
        h.depth = depth;
        h.found_depth = s.depth;
        h.cur = cur;
        h.pulling = pulling;
        h.as_queue = as_queue;
        h.direction = static_cast<int>(direction);
        h.push_levels = s.push_levels;
        h.pull_levels = s.pull_levels;
        continue_on_device(h, s);
        return s;
      }
      if (direction == Direction::automatic) {
        const double unvisited_edges = static_cast<double>(nnz - visited_edges);
        if (!pulling && static_cast<double>(frontier_edges) > unvisited_edges / options.alpha)
          pulling = true;
        else if (pulling && static_cast<double>(frontier) < static_cast<double>(n) / options.beta &&
                 frontier < prev_frontier)
          pulling = false;
      }
      if (pulling && as_queue) {
        visited_from_parent<I>
            <<<wgrid, kBlock, 0, stream>>>(parent.as<I>(), n, visited.as<unsigned>());
        HOLA_CUDA_CHECK_LAUNCH("visited_from_parent");
        HOLA_CUDA_CHECK(cudaMemsetAsync(
            bitmap[cur].get(), 0, static_cast<std::size_t>(words) * sizeof(unsigned), stream));
        bitmap_from_queue<I>
            <<<std::min<unsigned>(grid, cuda::div_up(frontier, kBlock)), kBlock, 0, stream>>>(
                queue[cur].as<I>(), frontier, bitmap[cur].as<unsigned>());
        HOLA_CUDA_CHECK_LAUNCH("bitmap_from_queue");
        as_queue = false;
      } else if (!pulling && !as_queue) {
        // The count lands in the second counter slot: the frontier size is already known.
        HOLA_CUDA_CHECK(cudaMemsetAsync(dc + 1, 0, sizeof(Counters), stream));
        queue_from_bitmap<I, O><<<wgrid, kBlock, 0, stream>>>(bitmap[cur].as<unsigned>(), n,
                                                              row_ptr.as<O>(), queue[cur].as<I>(),
                                                              degrees[cur].as<O>(), dc + 1);
        HOLA_CUDA_CHECK_LAUNCH("queue_from_bitmap");
        as_queue = true;
      }
      HOLA_CUDA_CHECK(cudaMemsetAsync(dc, 0, sizeof(Counters), stream));
      const int nxt = 1 - cur;
      if (pulling) {
        pull_level<I, O><<<wgrid, kBlock, 0, stream>>>(
            in_offsets(), in_indices(), row_ptr.as<O>(), n, bitmap[cur].as<unsigned>(),
            bitmap[nxt].as<unsigned>(), visited.as<unsigned>(), parent.as<I>(), level.as<int>(),
            depth, dc);
        HOLA_CUDA_CHECK_LAUNCH("pull_level");
        ++s.pull_levels;
        s.directions += 'B';
      } else {
        if (frontier_edges > 0) {
          std::size_t tmp_bytes = cub_bytes;
          HOLA_CUDA_CHECK(cub::DeviceScan::InclusiveSum(
              cub_tmp.get(), tmp_bytes, degrees[cur].as<O>(), scan.as<O>(), frontier, stream));
          push_level<I, O><<<std::min<unsigned>(grid, cuda::div_up(frontier_edges, kBlock)), kBlock,
                             0, stream>>>(row_ptr.as<O>(), col_idx.as<I>(), queue[cur].as<I>(),
                                          scan.as<O>(), frontier, frontier_edges, parent.as<I>(),
                                          level.as<int>(), depth, queue[nxt].as<I>(),
                                          degrees[nxt].as<O>(), dc);
          HOLA_CUDA_CHECK_LAUNCH("push_level");
        }
        ++s.push_levels;
        s.directions += 'P';
      }
      const Counters got = read_counters();
      cur = nxt;
      prev_frontier = frontier;
      frontier = static_cast<long long>(got.count);
      frontier_edges = static_cast<long long>(got.edges);
      visited_edges += frontier_edges;
      s.reached += frontier;
      if (frontier > 0) s.depth = depth;
    }
    s.edges = visited_edges;
    return s;
  }

  // The rest of the search as the device loop, from the host path's state `h` (the frontier in
  // the buffers of parity h.cur): one copy in, one graph launch, one copy out, then the letters of
  // the levels the loop ran.
  void continue_on_device(const LoopState& h, BfsStats& s) {
    LoopState* st = loop_state.as<LoopState>();
    *host_loop = h;
    HOLA_CUDA_CHECK(
        cudaMemcpyAsync(st, host_loop, sizeof(LoopState), cudaMemcpyHostToDevice, stream));
    HOLA_CUDA_CHECK(cudaGraphLaunch(loop_exec, stream));
    HOLA_CUDA_CHECK(
        cudaMemcpyAsync(host_loop, st, sizeof(LoopState), cudaMemcpyDeviceToHost, stream));
    HOLA_CUDA_CHECK(cudaStreamSynchronize(stream));
    const LoopState& out = *host_loop;
    const std::size_t before = s.directions.size(),
                      after = static_cast<std::size_t>(out.push_levels + out.pull_levels);
    s.device_levels = static_cast<int>(after - before);
    s.reached = out.reached;
    s.edges = out.visited_edges;
    s.depth = out.found_depth;
    s.push_levels = out.push_levels;
    s.pull_levels = out.pull_levels;
    s.directions.resize(after);
    if (after > before)
      HOLA_CUDA_CHECK(cudaMemcpy(s.directions.data() + before, directions.as<char>() + before,
                                 after - before, cudaMemcpyDeviceToHost));
    s.device_loop = true;
  }

  void download(std::vector<std::int64_t>* parent_out,
                std::vector<std::int64_t>* level_out) override {
    const std::size_t nv = static_cast<std::size_t>(n);
    wide.resize(std::max<std::size_t>(1, 2 * nv) * sizeof(std::int64_t));
    auto* p64 = wide.as<std::int64_t>();
    if (nv > 0) {
      widen<I><<<std::min<unsigned>(detail::resident_blocks(kBlock), cuda::div_up(nv, kBlock)),
                 kBlock, 0, stream>>>(parent.as<I>(), level.as<int>(), n, p64, p64 + nv);
      HOLA_CUDA_CHECK_LAUNCH("widen");
    }
    HOLA_CUDA_CHECK(cudaStreamSynchronize(stream));
    if (parent_out) {
      parent_out->resize(nv);
      if (nv)
        HOLA_CUDA_CHECK(
            cudaMemcpy(parent_out->data(), p64, nv * sizeof(std::int64_t), cudaMemcpyDeviceToHost));
    }
    if (level_out) {
      level_out->resize(nv);
      if (nv)
        HOLA_CUDA_CHECK(cudaMemcpy(level_out->data(), p64 + nv, nv * sizeof(std::int64_t),
                                   cudaMemcpyDeviceToHost));
    }
  }
};

}  // namespace

struct Bfs::Impl {
  std::unique_ptr<EngineBase> engine;
};

Bfs::Bfs() = default;
Bfs::~Bfs() = default;

template <class V, class I, class O>
void Bfs::setup(const CsrView<V, I, O>& A, const BfsOptions& options) {
  if (A.memory != Memory::host) fail(status::unsupported, "bfs (gpu): setup takes a host CSR");
  if (A.rows != A.cols)
    fail(status::size_mismatch, "bfs (gpu): the matrix must be square, it is " +
                                    std::to_string(A.rows) + " x " + std::to_string(A.cols));
  if (!(options.alpha > 0) || !(options.beta > 0))
    fail(status::invalid_argument, "bfs (gpu): alpha and beta must be > 0");
  if (options.host_levels < -1)
    fail(status::invalid_argument, "bfs (gpu): host_levels must be >= -1");
  validate_csr(A);
  const std::int64_t n = A.rows, nnz = static_cast<std::int64_t>(A.row_ptr[A.rows]);
  const bool small_ids = n < (std::int64_t(1) << 31) - 1;
  const bool small_offsets = nnz < (std::int64_t(1) << 31) - 1;
  std::unique_ptr<EngineBase> impl;
  auto make = [&](auto engine) {
    engine->n = n;
    engine->nnz = nnz;
    engine->options = options;
    engine->idx32 = small_ids;
    engine->setup(A);
    impl = std::move(engine);
  };
  if (small_ids && small_offsets)
    make(std::make_unique<Engine<std::int32_t, std::int32_t>>());
  else if (small_ids)
    make(std::make_unique<Engine<std::int32_t, std::int64_t>>());
  else
    make(std::make_unique<Engine<std::int64_t, std::int64_t>>());
  impl_ = std::make_unique<Impl>();
  impl_->engine = std::move(impl);
}

BfsStats Bfs::search(std::int64_t root) {
  if (!impl_) fail(status::invalid_argument, "bfs (gpu): search before setup");
  return impl_->engine->search(root, impl_->engine->options.direction);
}

BfsStats Bfs::search(std::int64_t root, Direction direction) {
  if (!impl_) fail(status::invalid_argument, "bfs (gpu): search before setup");
  return impl_->engine->search(root, direction);
}

void Bfs::download(std::vector<std::int64_t>* parent, std::vector<std::int64_t>* level) const {
  if (!impl_) fail(status::invalid_argument, "bfs (gpu): download before setup");
  impl_->engine->download(parent, level);
}

std::int64_t Bfs::vertices() const { return impl_ ? impl_->engine->n : 0; }
std::int64_t Bfs::stored_edges() const { return impl_ ? impl_->engine->nnz : 0; }
bool Bfs::index32() const { return impl_ && impl_->engine->idx32; }
std::size_t Bfs::device_bytes() const { return impl_ ? impl_->engine->bytes() : 0; }

#define HOLA_GRAPH_BFS_INSTANTIATE(V, I, O) \
  template void Bfs::setup(const CsrView<V, I, O>&, const BfsOptions&);
HOLA_FOR_EACH_VALUE_INDEX_OFFSET(HOLA_GRAPH_BFS_INSTANTIATE)
#undef HOLA_GRAPH_BFS_INSTANTIATE

}  // namespace hola::graph::gpu
