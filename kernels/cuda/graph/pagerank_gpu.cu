// Device side of PageRank (hola/graph_gpu.hpp): P = (D^-1 A)^T built once, and one fused
// update kernel per iteration after the caller's SpMV y = P r. The kernel reads the dangling mass
// of r, writes r in place, and adds its L1 change and the new dangling mass into a slot of a
// three-slot device state; it also clears the slot the next iteration adds into. Convergence is
// decided on the device, by the update's last block, in the iteration that converges. By default
// the iterations after the first run as one CUDA graph: a conditional while node whose body is k
// iterations and which the last block ends, then a one-iteration tail loop: at the end of a pass
// the last block leaves the first loop when the decay of the L1 changes says fewer than k
// iterations are left, so that the last ones run one at a time instead of in a full pass past
// convergence. No host round trip; the updates past convergence change nothing. Otherwise (the SpMV
// cannot be captured, or device_loop off) the host queues chunks of k iterations and reads the
// state one chunk behind.
#include <cub/block/block_reduce.cuh>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <utility>

#include "graph_common.cuh"
#include "hola/detail/instantiate.hpp"
#include "hola/graph_gpu.hpp"
#include "hola/validate.hpp"

namespace hola::graph::gpu {
namespace {

constexpr int kBlock = 256;
constexpr int kSlots = 3;
// check_every 0: iterations per chunk (loop body or host chunk) from P's nonzeros,
// kAutoChunkNonzeros / nnz between 1 and kAutoChunkMax. Measured on one H100 (runs T and U of
// bench/results/2026-11-27-h100-pagerank-graph/): chunks of 8 served the launch-bound corpus graphs
// (10^4-10^6 nonzeros, iterations of 10-30 us) best, 1 to 2 the Kronecker graphs of scale 18 and 20
// (8·10^6 and 3·10^7 nonzeros); a k chosen from the first iteration's time cost a synchronisation
// and left the GPU idle at the capture (1.05-2.0x one SpMV per queued iteration against
// 0.87-1.09x with a fixed 8, run U).
constexpr double kAutoChunkNonzeros = 16e6;
constexpr int kAutoChunkMax = 8;

// The iteration state on the device. Slot it % kSlots holds iteration it's sums: [0] its L1
// change, [1] the dangling mass of the r it wrote.
struct State {
  double slot[kSlots][2];
  long long applied;     // iterations applied; the next update is iteration `applied`
  long long stopped_at;  // iterations applied when the change fell below the tolerance; -1: not yet
  double stopped_change;  // the L1 change of the last applied iteration
  long long queued;       // update launches, those past the stop or the cap included
  unsigned arrived;       // blocks of the running update past their sums (the last one decides)
};

// The block's sums of a and b (valid in thread 0).
__device__ __forceinline__ void block_sum2(double& a, double& b) {
  using Sum = cub::BlockReduce<double, kBlock>;
  __shared__ typename Sum::TempStorage tmp;
  a = Sum(tmp).Sum(a);
  __syncthreads();
  b = Sum(tmp).Sum(b);
}

// r = p; dangling mass of r into slot kSlots - 1 (the slot iteration 0 reads). The state is zero
// but for stopped_at (-1).
template <class V>
__global__ void __launch_bounds__(kBlock)
    pagerank_start(V* r, const V* p, V uniform, const std::uint8_t* dangling, long long n,
                   State* state) {
  double zero = 0, mass = 0;
  const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
  for (long long j = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; j < n;
       j += stride) {
    const V v = p ? p[j] : uniform;
    r[j] = v;
    if (dangling[j]) mass += static_cast<double>(v);
  }
  block_sum2(zero, mass);
  if (threadIdx.x == 0 && mass != 0) atomicAdd(&state->slot[kSlots - 1][1], mass);
}

// Iteration it = state->applied: r_j <- d (y_j + m p_j) + (1 - d) p_j with m the dangling mass of
// the old r (slot it - 1); change and the new dangling mass into slot it; slot it + 1 cleared
// (its last readers, iteration it - 1 and the host copy of an earlier chunk, are done in stream
// order). The last block to finish its sums decides: a change below `tolerance` stops the
// iteration (stopped_at), and inside the device loop (`in_loop`) a stop or the iteration cap ends
// the loop. After a stop or at the cap an update writes nothing (but the launch count).
// tail_below > 0 (the last update of a pass of the loop's first node): the loop also ends when
// the changes' geometric decay (this change over the one before) predicts fewer than tail_below
// more iterations to the tolerance; the one-iteration tail loop then takes them.
template <class V>
__global__ void __launch_bounds__(kBlock)
    pagerank_update(V* r, const V* __restrict__ y, const V* __restrict__ p, V uniform,
                    const std::uint8_t* __restrict__ dangling, long long n, double damping,
                    double tolerance, State* state, long long max_iterations, bool in_loop,
                    cudaGraphConditionalHandle loop_handle, long long tail_below) {
  if (blockIdx.x == 0 && threadIdx.x == 0) ++state->queued;  // read by the host after the run
  // Written only by an earlier kernel's last block: every block reads the same.
  if (state->stopped_at >= 0 || state->applied >= max_iterations) return;
  const long long it = state->applied;
  const int cur = static_cast<int>(it % kSlots),
            prev = static_cast<int>((it + kSlots - 1) % kSlots),
            next = static_cast<int>((it + 1) % kSlots);
  const double mass = state->slot[prev][1];
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    state->slot[next][0] = 0;
    state->slot[next][1] = 0;
  }
  double change = 0, new_mass = 0;
  const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
  for (long long j = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; j < n;
       j += stride) {
    const double pj = p ? static_cast<double>(p[j]) : static_cast<double>(uniform);
    const double v = damping * (static_cast<double>(y[j]) + mass * pj) + (1 - damping) * pj;
    const V stored = static_cast<V>(v);
    change += std::fabs(static_cast<double>(stored) - static_cast<double>(r[j]));
    r[j] = stored;
    if (dangling[j]) new_mass += static_cast<double>(stored);
  }
  block_sum2(change, new_mass);
  if (threadIdx.x != 0) return;
  if (change != 0) atomicAdd(&state->slot[cur][0], change);
  if (new_mass != 0) atomicAdd(&state->slot[cur][1], new_mass);
  __threadfence();  // the sums above before the ticket below
  if (atomicAdd(&state->arrived, 1u) != gridDim.x - 1) return;
  __threadfence();  // every block's sums are in: read them from memory
  const double total = *static_cast<volatile double*>(&state->slot[cur][0]);
  state->arrived = 0;
  state->applied = it + 1;
  const bool converged = total < tolerance;
  if (converged) {
    state->stopped_at = it + 1;
    state->stopped_change = total;
  }
  if (!in_loop) return;
  if (converged || it + 1 >= max_iterations) {
    cudaGraphSetConditional(loop_handle, 0);
    return;
  }
  if (tail_below > 0 && it >= 1) {
    const double before = *static_cast<volatile double*>(&state->slot[prev][0]);
    if (before > 0 && total > 0 && total < before) {
      const double left = std::ceil(std::log(tolerance / total) / std::log(total / before));
      if (left < static_cast<double>(tail_below)) cudaGraphSetConditional(loop_handle, 0);
    }
  }
}

// Before the device loop: run it only when the iterations launched so far neither converged nor
// reached the cap.
__global__ void pagerank_loop_gate(const State* state, long long max_iterations,
                                   cudaGraphConditionalHandle loop_handle) {
  cudaGraphSetConditional(loop_handle,
                          state->stopped_at < 0 && state->applied < max_iterations ? 1u : 0u);
}

template <class V>
__global__ void widen_rank(const V* r, long long n, double* out) {
  const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
  for (long long j = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; j < n;
       j += stride)
    out[j] = static_cast<double>(r[j]);
}

}  // namespace

template <class V, class I, class O>
struct PageRank<V, I, O>::Impl {
  std::int64_t n = 0;
  PageRankOptions options;
  cudaStream_t stream = nullptr;
  cuda::DeviceBuffer p_ptr, p_idx, p_val, r, y, p, dangling, state, wide;
  bool uniform = true;
  State* host_state = nullptr;  // pinned: two copies, for the chunk read one behind
  cudaEvent_t copied[2] = {nullptr, nullptr};
  CsrView<V, I, O> P;
  // The device loop's graph kept for the next runs (PageRankOptions::keep_graph, or the SpMV's
  // version at the run that built it, kept_version).
  cudaGraph_t kept_graph = nullptr;
  cudaGraphExec_t kept_exec = nullptr;
  std::uint64_t kept_version = 0;
  void drop_kept_graph() {
    if (kept_exec) cudaGraphExecDestroy(std::exchange(kept_exec, nullptr));
    if (kept_graph) cudaGraphDestroy(std::exchange(kept_graph, nullptr));
    kept_version = 0;
  }

  ~Impl() {
    drop_kept_graph();
    for (cudaEvent_t e : copied)
      if (e) cudaEventDestroy(e);
    if (host_state) cudaFreeHost(host_state);
    if (stream) cudaStreamDestroy(stream);
  }
  unsigned grid() const {
    return std::min<unsigned>(
        detail::resident_blocks(kBlock),
        cuda::div_up(static_cast<std::size_t>(std::max<std::int64_t>(n, 1)), kBlock));
  }
};

template <class V, class I, class O>
PageRank<V, I, O>::PageRank() = default;
template <class V, class I, class O>
PageRank<V, I, O>::~PageRank() = default;

template <class V, class I, class O>
void PageRank<V, I, O>::setup(const CsrView<V, I, O>& A, const PageRankOptions& options) {
  if (A.memory != Memory::host) fail(status::unsupported, "pagerank (gpu): setup takes a host CSR");
  if (A.rows != A.cols) fail(status::size_mismatch, "pagerank (gpu): the matrix must be square");
  validate_csr(A);
  const double d = options.damping;
  if (!(d >= 0 && d < 1))
    fail(status::invalid_argument, "pagerank (gpu): damping must be in [0, 1)");
  if (!(options.tolerance >= 0) || options.max_iterations < 0 || options.check_every < 0)
    fail(status::invalid_argument,
         "pagerank (gpu): tolerance, max_iterations and check_every must be >= 0");
  const std::int64_t n = A.rows;
  std::vector<V> teleport;
  if (!options.personalization.empty()) {
    if (static_cast<std::int64_t>(options.personalization.size()) != n)
      fail(status::size_mismatch, "pagerank (gpu): personalization has " +
                                      std::to_string(options.personalization.size()) +
                                      " entries, graph has " + std::to_string(n));
    double s = 0;
    for (double v : options.personalization) {
      if (!(v >= 0) || !std::isfinite(v))
        fail(status::invalid_argument, "pagerank (gpu): personalization must be finite and >= 0");
      s += v;
    }
    if (!(s > 0)) fail(status::invalid_argument, "pagerank (gpu): personalization sums to 0");
    teleport.resize(static_cast<std::size_t>(n));
    for (std::int64_t i = 0; i < n; ++i)
      teleport[i] = static_cast<V>(options.personalization[i] / s);
  }
  // P = (D^-1 A)^T: row j of P holds (i, 1 / deg_i) for each stored a_ij; entries repeated in a
  // row of A are summed (the host pagerank counts each stored entry).
  const std::int64_t nnz = static_cast<std::int64_t>(A.row_ptr[n]);
  std::vector<O> prow(static_cast<std::size_t>(n) + 1, 0);
  for (std::int64_t k = 0; k < nnz; ++k) ++prow[static_cast<std::size_t>(A.col_idx[k]) + 1];
  for (std::int64_t j = 0; j < n; ++j) prow[j + 1] += prow[j];
  std::vector<I> pcol(static_cast<std::size_t>(nnz));
  std::vector<V> pval(static_cast<std::size_t>(nnz));
  std::vector<std::uint8_t> is_dangling(static_cast<std::size_t>(n), 0);
  {
    std::vector<O> next(prow.begin(), prow.end() - 1);
    for (std::int64_t i = 0; i < n; ++i) {
      const auto deg = A.row_ptr[i + 1] - A.row_ptr[i];
      if (deg == 0) is_dangling[i] = 1;
      const V w = static_cast<V>(1.0 / static_cast<double>(deg));
      for (O k = A.row_ptr[i]; k < A.row_ptr[i + 1]; ++k) {
        const auto pos = static_cast<std::size_t>(next[A.col_idx[k]]++);
        pcol[pos] = static_cast<I>(i);
        pval[pos] = w;
      }
    }
  }
  // Columns within a row of P are increasing (rows of A visited in order); merge repeats.
  std::vector<O> mrow(static_cast<std::size_t>(n) + 1, 0);
  std::size_t out = 0;
  for (std::int64_t j = 0; j < n; ++j) {
    for (O k = prow[j]; k < prow[j + 1]; ++k) {
      if (out > static_cast<std::size_t>(mrow[j]) && pcol[out - 1] == pcol[k]) {
        pval[out - 1] += pval[k];
      } else {
        pcol[out] = pcol[k];
        pval[out] = pval[k];
        ++out;
      }
    }
    mrow[j + 1] = static_cast<O>(out);
  }
  pcol.resize(out);
  pval.resize(out);

  auto impl = std::make_unique<Impl>();
  impl->n = n;
  impl->options = options;
  impl->uniform = teleport.empty();
  HOLA_CUDA_CHECK(cudaStreamCreateWithFlags(&impl->stream, cudaStreamNonBlocking));
  HOLA_CUDA_CHECK(cudaMallocHost(&impl->host_state, 2 * sizeof(State)));
  for (cudaEvent_t& e : impl->copied)
    HOLA_CUDA_CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
  detail::upload(impl->p_ptr, mrow);
  detail::upload(impl->p_idx, pcol);
  detail::upload(impl->p_val, pval);
  detail::upload(impl->dangling, is_dangling);
  if (!impl->uniform) detail::upload(impl->p, teleport);
  const std::size_t nv = static_cast<std::size_t>(std::max<std::int64_t>(n, 1));
  impl->r.resize(nv * sizeof(V));
  impl->y.resize(nv * sizeof(V));
  impl->state.resize(sizeof(State));
  CsrView<V, I, O> P;
  P.rows = P.cols = n;
  P.nnz = static_cast<std::int64_t>(out);
  P.row_ptr = impl->p_ptr.template as<O>();
  P.col_idx = impl->p_idx.template as<I>();
  P.values = impl->p_val.template as<V>();
  P.memory = Memory::device;
  impl->P = P;
  HOLA_CUDA_CHECK(cudaDeviceSynchronize());
  impl_ = std::move(impl);
}

template <class V, class I, class O>
const CsrView<V, I, O>& PageRank<V, I, O>::matrix() const {
  if (!impl_) fail(status::invalid_argument, "pagerank (gpu): matrix() before setup");
  return impl_->P;
}

template <class V, class I, class O>
void* PageRank<V, I, O>::stream() const {
  return impl_ ? static_cast<void*>(impl_->stream) : nullptr;
}

namespace {

// A captured graph (the device loop, or a chunk of iterations), destroyed with the run that made
// it (the caller's SpMV is valid for that run only).
struct RunGraph {
  cudaGraph_t graph = nullptr;
  cudaGraphExec_t exec = nullptr;
  RunGraph() = default;
  RunGraph(const RunGraph&) = delete;
  RunGraph& operator=(const RunGraph&) = delete;
  ~RunGraph() { reset(); }
  void reset() {
    if (exec) cudaGraphExecDestroy(exec);
    if (graph) cudaGraphDestroy(graph);
    exec = nullptr;
    graph = nullptr;
  }
};

// Captures queue() on `stream` (this thread only) into `body`, a conditional node's body graph,
// or (body null) into a new graph. Returns the graph, or null when the capture is refused: queue()
// synchronized, allocated or threw. The refusal's error is cleared; the stream leaves capture.
template <class Queue>
cudaGraph_t capture(cudaStream_t stream, const Queue& queue, cudaGraph_t body = nullptr) {
  const cudaError_t began = body ? cudaStreamBeginCaptureToGraph(stream, body, nullptr, nullptr, 0,
                                                                 cudaStreamCaptureModeThreadLocal)
                                 : cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal);
  if (began != cudaSuccess) {
    cudaGetLastError();
    return nullptr;
  }
  bool queued = true;
  try {
    queue();
  } catch (...) {
    queued = false;
  }
  cudaGraph_t captured = nullptr;
  const bool ended = cudaStreamEndCapture(stream, &captured) == cudaSuccess;
  cudaGetLastError();
  if (ended && queued && captured) return captured;
  if (captured && !body) cudaGraphDestroy(captured);
  return nullptr;
}

}  // namespace

template <class V, class I, class O>
PageRankRun PageRank<V, I, O>::run(const Spmv& spmv, std::uint64_t spmv_version) {
  if (!impl_) fail(status::invalid_argument, "pagerank (gpu): run before setup");
  Impl& m = *impl_;
  PageRankRun result;
  if (m.n == 0) return result;
  const V uniform = static_cast<V>(1.0 / static_cast<double>(m.n));
  const V* p = m.uniform ? nullptr : m.p.template as<V>();
  auto* state = m.state.template as<State>();
  V* r = m.r.template as<V>();
  V* y = m.y.template as<V>();
  const auto* dangling = m.dangling.template as<std::uint8_t>();
  const long long max_it = m.options.max_iterations;
  const auto t0 = std::chrono::steady_clock::now();
  HOLA_CUDA_CHECK(cudaMemsetAsync(state, 0, sizeof(State), m.stream));
  HOLA_CUDA_CHECK(cudaMemsetAsync(reinterpret_cast<char*>(state) + offsetof(State, stopped_at),
                                  0xff, sizeof(long long), m.stream));  // -1
  pagerank_start<V><<<m.grid(), kBlock, 0, m.stream>>>(r, p, uniform, dangling, m.n, state);
  HOLA_CUDA_CHECK_LAUNCH("pagerank_start");
  const auto queue_iteration = [&](bool in_loop, cudaGraphConditionalHandle loop_handle,
                                   long long tail_below) {
    spmv(r, y, m.stream);
    pagerank_update<V><<<m.grid(), kBlock, 0, m.stream>>>(
        r, y, p, uniform, dangling, m.n, m.options.damping, m.options.tolerance, state, max_it,
        in_loop, loop_handle, tail_below);
    HOLA_CUDA_CHECK_LAUNCH("pagerank_update");
  };
  const auto queue_chunk = [&](int count) {
    for (int i = 0; i < count; ++i) queue_iteration(false, 0, 0);
  };
  const auto read_back = [&](int c) {  // the state after chunk c, into host copy c % 2
    HOLA_CUDA_CHECK(cudaMemcpyAsync(&m.host_state[c % 2], state, sizeof(State),
                                    cudaMemcpyDeviceToHost, m.stream));
    HOLA_CUDA_CHECK(cudaEventRecord(m.copied[c % 2], m.stream));
  };
  // Iterations per chunk (per body of the device loop, or per host read); 0: from P's size (a large
  // graph's iteration outweighs the turnaround: one per chunk; a small one's is mostly launch
  // overhead: several per chunk, as one graph).
  int k = m.options.check_every;
  if (k == 0)
    k = static_cast<int>(std::clamp(
        std::floor(kAutoChunkNonzeros / static_cast<double>(std::max<std::int64_t>(m.P.nnz, 1))),
        1.0, static_cast<double>(kAutoChunkMax)));
  RunGraph g;
  int queued = 0, chunk = 0;
  bool loop_ran = false, chunk_graphs = m.options.use_graph;
  // The device loop: the first iteration as launched (the caller's SpMV may finish its own setup
  // there), then one graph: a gate kernel and a conditional while node whose body is k iterations;
  // the update's last block ends the loop. k > 1 amortizes the loop's own cost per pass (measured
  // at a few microseconds, run W); updates past the stop in the last pass change nothing. With
  // k > 1 and loop_tail, a second gate and a while node of one iteration follow: the first loop
  // hands over to it when fewer than k iterations are predicted to be left (pagerank_update).
  const bool loop = m.options.use_graph && m.options.device_loop && max_it >= 2;
  // A kept loop is replayed when the SpMV's version says its work is unchanged, or, without a
  // version, when the caller vouches for it (keep_graph); otherwise it is built again.
  const bool reused = loop && m.kept_exec &&
                      (spmv_version != 0 ? spmv_version == m.kept_version : m.options.keep_graph);
  if (!reused) m.drop_kept_graph();
  if (loop) {
    queue_iteration(false, 0, 0);
    queued = 1;
  }
  if (reused) {
    // The loop built by an earlier run, replayed.
    HOLA_CUDA_CHECK(cudaGraphLaunch(m.kept_exec, m.stream));
    loop_ran = true;
    read_back(chunk++);
  } else if (loop) {
    // Probe that the SpMV can be captured, into a graph of its own: a refused capture never
    // leaves a half-filled loop body behind.
    RunGraph probe;
    probe.graph = capture(m.stream, [&] { queue_iteration(false, 0, 0); });
    bool built = probe.graph != nullptr;
    probe.reset();
    cudaGraphConditionalHandle loop_handle = 0, tail_handle = 0;
    cudaGraphNode_t gate = nullptr, loop = nullptr, tail_gate = nullptr, tail = nullptr;
    cudaGraph_t body = nullptr, tail_body = nullptr;
    long long cap = max_it;
    const bool with_tail = m.options.loop_tail && k > 1;
    const long long tail_below = with_tail ? k : 0;
    void* gate_args[] = {&state, &cap, &loop_handle};
    void* tail_gate_args[] = {&state, &cap, &tail_handle};
    built = built && cudaGraphCreate(&g.graph, 0) == cudaSuccess &&
            cudaGraphConditionalHandleCreate(&loop_handle, g.graph, 0, 0) == cudaSuccess &&
            detail::add_single_thread_node(
                g.graph, nullptr, reinterpret_cast<void*>(&pagerank_loop_gate), gate_args, &gate) &&
            detail::add_conditional_node(g.graph, gate, loop_handle, cudaGraphCondTypeWhile, 1,
                                         &loop, &body) &&
            capture(
                m.stream,
                [&] {
                  for (int i = 0; i < k; ++i)
                    queue_iteration(true, loop_handle, i == k - 1 ? tail_below : 0);
                },
                body) != nullptr;
    if (built && with_tail)
      built = cudaGraphConditionalHandleCreate(&tail_handle, g.graph, 0, 0) == cudaSuccess &&
              detail::add_single_thread_node(g.graph, loop,
                                             reinterpret_cast<void*>(&pagerank_loop_gate),
                                             tail_gate_args, &tail_gate) &&
              detail::add_conditional_node(g.graph, tail_gate, tail_handle, cudaGraphCondTypeWhile,
                                           1, &tail, &tail_body) &&
              capture(
                  m.stream, [&] { queue_iteration(true, tail_handle, 0); }, tail_body) != nullptr;
    built = built && cudaGraphInstantiate(&g.exec, g.graph, 0) == cudaSuccess;
    if (built) {
      HOLA_CUDA_CHECK(cudaGraphLaunch(g.exec, m.stream));
      loop_ran = true;
      read_back(chunk++);
      if (m.options.keep_graph || spmv_version != 0) {  // for the next runs
        m.kept_graph = std::exchange(g.graph, nullptr);
        m.kept_exec = std::exchange(g.exec, nullptr);
        m.kept_version = spmv_version;
      }
    } else {
      // Not capturable here: plain launches (a chunk would be refused alike).
      cudaGetLastError();
      g.reset();
      chunk_graphs = false;
    }
  }
  // Otherwise chunks of k iterations, the host reading the state one chunk behind.
  bool try_chunk_graph = chunk_graphs && k >= 2;
  bool stopped = loop_ran;
  while (queued < max_it && !stopped) {
    const int count = static_cast<int>(std::min<long long>(k, max_it - queued));
    // The first chunk runs as launched; a later full chunk is captured once and replayed.
    if (g.exec && count == k) {
      HOLA_CUDA_CHECK(cudaGraphLaunch(g.exec, m.stream));
    } else if (try_chunk_graph && chunk > 0 && count == k) {
      try_chunk_graph = false;
      g.graph = capture(m.stream, [&] { queue_chunk(count); });
      if (g.graph && cudaGraphInstantiate(&g.exec, g.graph, 0) == cudaSuccess) {
        HOLA_CUDA_CHECK(cudaGraphLaunch(g.exec, m.stream));
      } else {
        cudaGetLastError();
        g.reset();
        queue_chunk(count);  // a SpMV that cannot be captured: plain launches
      }
    } else {
      queue_chunk(count);
    }
    queued += count;
    read_back(chunk);
    // The previous chunk's state (this one is still queued behind it): stopped already?
    if (chunk > 0) {
      HOLA_CUDA_CHECK(cudaEventSynchronize(m.copied[(chunk - 1) % 2]));
      stopped = m.host_state[(chunk - 1) % 2].stopped_at >= 0;
    }
    ++chunk;
  }
  HOLA_CUDA_CHECK(cudaStreamSynchronize(m.stream));
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (queued == 0) return result;                     // max_iterations 0: r = p
  const State& last = m.host_state[(chunk - 1) % 2];  // the stream is idle: the final state
  result.iterations = static_cast<int>(last.applied);
  result.iterations_run = static_cast<int>(last.queued);
  result.change = last.stopped_at >= 0 ? last.stopped_change
                                       : last.slot[(last.applied + kSlots - 1) % kSlots][0];
  result.used_graph = g.exec != nullptr || (loop_ran && m.kept_exec != nullptr);
  result.reused_graph = reused;
  result.device_loop = loop_ran;
  result.check_every = k;
  result.ms_per_iteration = result.seconds * 1e3 / result.iterations_run;
  return result;
}

template <class V, class I, class O>
const V* PageRank<V, I, O>::rank_device() const {
  return impl_ ? impl_->r.template as<V>() : nullptr;
}

template <class V, class I, class O>
V* PageRank<V, I, O>::product_device() const {
  return impl_ ? impl_->y.template as<V>() : nullptr;
}

template <class V, class I, class O>
std::vector<double> PageRank<V, I, O>::download_rank() const {
  if (!impl_) fail(status::invalid_argument, "pagerank (gpu): download before setup");
  Impl& m = *impl_;
  const std::size_t nv = static_cast<std::size_t>(m.n);
  std::vector<double> rank(nv);
  if (nv == 0) return rank;
  m.wide.resize(nv * sizeof(double));
  widen_rank<V>
      <<<m.grid(), kBlock, 0, m.stream>>>(m.r.template as<V>(), m.n, m.wide.template as<double>());
  HOLA_CUDA_CHECK_LAUNCH("widen_rank");
  HOLA_CUDA_CHECK(cudaStreamSynchronize(m.stream));
  HOLA_CUDA_CHECK(
      cudaMemcpy(rank.data(), m.wide.get(), nv * sizeof(double), cudaMemcpyDeviceToHost));
  return rank;
}

double time_on_stream(const std::function<void(void*)>& fn, void* stream, int warmup, int reps) {
  const cudaStream_t s = static_cast<cudaStream_t>(stream);
  for (int i = 0; i < warmup; ++i) fn(stream);
  cudaEvent_t start, stop;
  HOLA_CUDA_CHECK(cudaEventCreate(&start));
  HOLA_CUDA_CHECK(cudaEventCreate(&stop));
  std::vector<float> ms;
  for (int i = 0; i < std::max(1, reps); ++i) {
    HOLA_CUDA_CHECK(cudaEventRecord(start, s));
    fn(stream);
    HOLA_CUDA_CHECK(cudaEventRecord(stop, s));
    HOLA_CUDA_CHECK(cudaEventSynchronize(stop));
    float t = 0;
    HOLA_CUDA_CHECK(cudaEventElapsedTime(&t, start, stop));
    ms.push_back(t);
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  std::sort(ms.begin(), ms.end());
  return static_cast<double>(ms[ms.size() / 2]);
}

#define HOLA_GRAPH_PAGERANK_INSTANTIATE(V, I, O) template class PageRank<V, I, O>;
HOLA_FOR_EACH_VALUE_INDEX_OFFSET(HOLA_GRAPH_PAGERANK_INSTANTIATE)
#undef HOLA_GRAPH_PAGERANK_INSTANTIATE

}  // namespace hola::graph::gpu
