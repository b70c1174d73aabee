#include "bench.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <random>
#include <sstream>
#include <stdexcept>
#include <type_traits>

#include "hola/error.hpp"
#include "hola/generators.hpp"
#include "hola/gpu_kernels.hpp"
#include "hola/matrix_market.hpp"
#include "hola/operator.hpp"
#include "hola/reference.hpp"
#include "hola/registry.hpp"
#include "stream_block.hpp"

namespace hola::bench {

namespace {

void cuda_check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) fail(status::cuda, std::string(what) + ": " + cudaGetErrorString(e));
}
#define BENCH_CUDA(call) cuda_check((call), #call)

template <class T>
struct DeviceArray {
  T* ptr = nullptr;
  std::size_t n = 0;
  DeviceArray() = default;
  explicit DeviceArray(std::size_t count) : n(count) {
    BENCH_CUDA(cudaMalloc(reinterpret_cast<void**>(&ptr), std::max<std::size_t>(n, 1) * sizeof(T)));
  }
  DeviceArray(const std::vector<T>& v) : DeviceArray(v.size()) { upload(v); }
  ~DeviceArray() { cudaFree(ptr); }
  DeviceArray(DeviceArray&& o) noexcept : ptr(o.ptr), n(o.n) {
    o.ptr = nullptr;
    o.n = 0;
  }
  DeviceArray(const DeviceArray&) = delete;
  void upload(const std::vector<T>& v) {
    if (n) BENCH_CUDA(cudaMemcpy(ptr, v.data(), n * sizeof(T), cudaMemcpyHostToDevice));
    // A copy from pageable memory can return before it landed; the kernels run on a
    // non-blocking stream that does not wait for it.
    BENCH_CUDA(cudaDeviceSynchronize());
  }
  std::vector<T> download() const {
    std::vector<T> v(n);
    if (n) BENCH_CUDA(cudaMemcpy(v.data(), ptr, n * sizeof(T), cudaMemcpyDeviceToHost));
    return v;
  }
};

// Settings::block_us: a run whose block ended before the product was queued is timed again with
// a block twice as long, up to these bounds (then the run counts as it was).
constexpr int kMaxLateRuns = 8;
constexpr double kMaxBlockUs = 20000;

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

using GraphPtr = std::unique_ptr<std::remove_pointer_t<cudaGraph_t>, cudaError_t (*)(cudaGraph_t)>;
using GraphExecPtr =
    std::unique_ptr<std::remove_pointer_t<cudaGraphExec_t>, cudaError_t (*)(cudaGraphExec_t)>;

struct Capture {
  GraphPtr graph{nullptr, cudaGraphDestroy};  // null when the capture failed
  std::string error;                          // why it failed
};

// Captures what `work` queues on `stream` into a graph. Work that synchronises, allocates or
// otherwise breaks the capture, or throws, leaves no graph and the reason; either way the stream
// is no longer capturing and no error is left pending, so that the next row starts clean.
Capture capture_graph(cudaStream_t stream, const std::function<void()>& work) {
  Capture c;
  if (const cudaError_t e = cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal);
      e != cudaSuccess) {
    cudaGetLastError();
    c.error = std::string("cudaStreamBeginCapture: ") + cudaGetErrorString(e);
    return c;
  }
  try {
    work();
  } catch (const std::exception& e) {
    c.error = e.what();
  }
  // A launch refused inside the capture leaves its error here, not in an exception.
  if (const cudaError_t e = cudaGetLastError(); e != cudaSuccess && c.error.empty())
    c.error = std::string("launch: ") + cudaGetErrorString(e);
  cudaGraph_t graph = nullptr;
  const cudaError_t end = cudaStreamEndCapture(stream, &graph);
  c.graph.reset(graph);
  if (end != cudaSuccess && c.error.empty())
    c.error = std::string("cudaStreamEndCapture: ") + cudaGetErrorString(end);
  cudaGetLastError();  // capture errors are not sticky
  if (!c.error.empty()) c.graph.reset();
  cudaStreamCaptureStatus capturing = cudaStreamCaptureStatusNone;
  if (cudaStreamIsCapturing(stream, &capturing) != cudaSuccess ||
      capturing != cudaStreamCaptureStatusNone) {
    cudaGetLastError();
    fail(status::cuda,
         "hola-bench: the stream still captures after cudaStreamEndCapture (" + c.error + ")");
  }
  return c;
}

void count_graph_nodes(cudaGraph_t graph, GraphNodeCounts& counts) {
  std::size_t n = 0;
  BENCH_CUDA(cudaGraphGetNodes(graph, nullptr, &n));
  std::vector<cudaGraphNode_t> nodes(n);
  if (n) BENCH_CUDA(cudaGraphGetNodes(graph, nodes.data(), &n));
  for (cudaGraphNode_t node : nodes) {
    cudaGraphNodeType type{};
    BENCH_CUDA(cudaGraphNodeGetType(node, &type));
    if (type == cudaGraphNodeTypeKernel) {
      ++counts.kernel;
    } else if (type == cudaGraphNodeTypeMemset) {
      ++counts.memset;
    } else if (type == cudaGraphNodeTypeMemcpy) {
      ++counts.memcpy;
    } else if (type == cudaGraphNodeTypeGraph) {
      // A product that launches a graph of its own: what that graph launches is what counts.
      cudaGraph_t child = nullptr;
      BENCH_CUDA(cudaGraphChildGraphNodeGetGraph(node, &child));
      count_graph_nodes(child, counts);
    } else {
      ++counts.other;
    }
  }
}

// --graph on one GPU row: one product captured (its nodes by type), then a graph of
// s.graph_products products (`product(r)` queues the r-th) timed as a whole, per product. A
// product that cannot be captured is recorded in the row, never fatal.
void measure_graph(Row& row, const Settings& s, cudaStream_t stream, cudaEvent_t e0, cudaEvent_t e1,
                   const std::function<void(int)>& product) {
  row.graph_tried = true;
  const Capture one = capture_graph(stream, [&] { product(0); });
  if (!one.graph) {
    row.graph_note = one.error;
    return;
  }
  GraphNodeCounts counts;
  count_graph_nodes(one.graph.get(), counts);
  row.graph_nodes = counts;
  const Capture many = capture_graph(stream, [&] {
    for (int r = 0; r < s.graph_products; ++r) product(r);
  });
  if (!many.graph) {
    row.graph_note = "graph of " + std::to_string(s.graph_products) + " products: " + many.error;
    return;
  }
  cudaGraphExec_t exec_handle = nullptr;
  if (const cudaError_t e = cudaGraphInstantiate(&exec_handle, many.graph.get(), 0);
      e != cudaSuccess) {
    cudaGetLastError();
    row.graph_note = std::string("cudaGraphInstantiate: ") + cudaGetErrorString(e);
    return;
  }
  const GraphExecPtr exec(exec_handle, cudaGraphExecDestroy);
  row.graph_capturable = true;
  // The first launch uploads the graph to the device: untimed.
  BENCH_CUDA(cudaGraphLaunch(exec.get(), stream));
  BENCH_CUDA(cudaStreamSynchronize(stream));
  std::vector<float> times;
  for (int r = 0; r < std::max(3, s.reps); ++r) {
    BENCH_CUDA(cudaEventRecord(e0, stream));
    BENCH_CUDA(cudaGraphLaunch(exec.get(), stream));
    BENCH_CUDA(cudaEventRecord(e1, stream));
    BENCH_CUDA(cudaEventSynchronize(e1));
    float ms = 0;
    BENCH_CUDA(cudaEventElapsedTime(&ms, e0, e1));
    times.push_back(ms);
  }
  std::sort(times.begin(), times.end());
  row.graph_runs = static_cast<int>(times.size());
  row.graph_ms = times[times.size() / 2] / s.graph_products;
}

// Minimal bytes for y = A x, beta = 0 (docs/architecture.md, "Performance method"); with
// beta = 1 y is read too: ny_read entries more.
template <class V, class I, class O>
double floor_bytes(std::int64_t rows, std::int64_t cols, std::int64_t nnz, std::int64_t ny_read) {
  const double matrix = static_cast<double>(nnz) * (sizeof(V) + sizeof(I)) +
                        static_cast<double>(rows + 1) * sizeof(O);
  // x and y swap sizes under T; the sum is the same.
  const double vectors = static_cast<double>(rows + cols + ny_read) * sizeof(V);
  return matrix + vectors;
}

// The Operator with kernel "auto" behind the kernel interface, so that hola-bench times the
// whole plugin path (selection included, which happens at setup only).
template <class V, class I, class O>
class AutoKernel final : public SpmvKernel<V, I, O> {
 public:
  AutoKernel(bool race, bool compress, bool check) : op_(make_options(race, compress, check)) {}
  std::string name() const override { return "auto"; }
  bool supports(Op) const override { return true; }
  bool deterministic() const override { return false; }
  void setup(const CsrView<V, I, O>& A, void*) override {
    rows_ = A.rows;
    cols_ = A.cols;
    op_.setup(A);
  }
  void set_values(const V* values) override {
    CsrView<V, I, O> A = op_.matrix();
    A.values = values;
    op_.setup(A);
  }
  std::size_t workspace_bytes() const override { return op_.workspace_bytes(); }
  void apply(Op op, V alpha, const V* x, V beta, const V* y_in, V* y_out, void* stream) override {
    const std::int64_t nx = op == Op::N ? cols_ : rows_, ny = op == Op::N ? rows_ : cols_;
    op_.apply(op, alpha, ConstVec<V>{x, nx}, beta, ConstVec<V>{y_in, y_in ? ny : 0},
              Vec<V>{y_out, ny}, stream);
  }
  std::string chosen(Op op) const { return op_.kernel_name(op); }
  bool checking(Op op) const { return op_.auto_check_pending(op); }
  SetupTimes setup_times() const { return op_.last_setup_times(); }

 private:
  // As users get it (validation on), so that the setup time is theirs.
  static OperatorOptions make_options(bool race, bool compress, bool check) {
    OperatorOptions o;
    o.kernel = "auto";
    o.auto_trial = race;
    o.auto_check = check;
    o.compress_empty_rows = compress;
    return o;
  }
  Operator<V, I, O> op_;
  std::int64_t rows_ = 0, cols_ = 0;
};

template <class V, class I, class O>
SpmvKernelPtr<V, I, O> make_kernel(const KernelSpec& ks, const Settings& s) {
  if (ks.name == "auto")
    return std::make_unique<AutoKernel<V, I, O>>(s.auto_race, s.auto_compress, ks.auto_check);
  return KernelRegistry::create<V, I, O>(ks.name, ks.options);
}

template <class V, class I>
std::shared_ptr<const CsrMatrix<V, I, I>> typed_copy(const PreparedMatrix& m) {
  if constexpr (std::is_same_v<I, std::int32_t>) {
    if constexpr (std::is_same_v<V, double>)
      return m.d32;
    else
      return m.f32;
  } else {
    if constexpr (std::is_same_v<V, double>)
      return m.d64;
    else
      return m.f64;
  }
}

template <class V, class I>
std::shared_ptr<const CsrMatrix<V, I, I>> make_typed(const gen::Csr64& A) {
  auto H = std::make_shared<CsrMatrix<V, I, I>>(A.convert<V, I, I>());
  // Never time on zeros or on all-ones: random values in [-1, 1].
  H->values = gen::random_vector<V>(H->nnz(), 12345);
  return H;
}

template <class V, class I, class O>
std::vector<Row> run_typed(const PreparedMatrix& m, const std::string& precision,
                           const std::vector<Op>& ops, const std::vector<KernelSpec>& kernels,
                           const Settings& s, double copy_gbs, ThreadPool& checkers,
                           std::vector<PendingCheck>& pending) {
  static_assert(std::is_same_v<I, O>, "hola-bench uses one index type for columns and offsets");
  const std::shared_ptr<const CsrMatrix<V, I, O>> host = typed_copy<V, I>(m);
  if (!host) fail(status::internal, "hola-bench: matrix not prepared for " + precision);
  const CsrView<V, I, O> hv = host->view();
  // Host kernels (cpu, auto without a GPU) run on the host arrays and are timed with the steady
  // clock; the GPU is touched only when some kernel of the run is a device kernel.
  bool any_device = false;
  for (const KernelSpec& ks : kernels) any_device = any_device || !is_host_kernel(ks.name);
  std::optional<DeviceArray<O>> d_row_ptr;
  std::optional<DeviceArray<I>> d_col_idx;
  std::optional<DeviceArray<V>> d_values;
  CsrView<V, I, O> dv = hv;
  int l2 = 0;
  cudaStream_t stream = nullptr;
  cudaEvent_t e0 = nullptr, e1 = nullptr;
  if (any_device) {
    d_row_ptr.emplace(host->row_ptr);
    d_col_idx.emplace(host->col_idx);
    d_values.emplace(host->values);
    dv.row_ptr = d_row_ptr->ptr;
    dv.col_idx = d_col_idx->ptr;
    dv.values = d_values->ptr;
    dv.memory = Memory::device;
    int dev = 0;
    BENCH_CUDA(cudaGetDevice(&dev));
    BENCH_CUDA(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev));
    BENCH_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    BENCH_CUDA(cudaEventCreate(&e0));
    BENCH_CUDA(cudaEventCreate(&e1));
  }

  std::vector<Row> rows;
  for (Op op : ops) {
    const std::int64_t nx = op == Op::N ? hv.cols : hv.rows;
    const std::int64_t ny = op == Op::N ? hv.rows : hv.cols;
    // Rotate x / y sets so that small problems are not timed from L2 alone.
    const double vec_bytes = static_cast<double>(nx + ny) * sizeof(V);
    const int sets =
        static_cast<int>(std::clamp(std::ceil(3.0 * l2 / std::max(vec_bytes, 1.0)), 1.0, 16.0));
    auto x = std::make_shared<const std::vector<V>>(
        gen::random_vector<V>(nx, 777 + static_cast<int>(op)));
    std::vector<DeviceArray<V>> dx, dy;
    for (int i = 0; any_device && i < sets; ++i) {
      dx.emplace_back(*x);
      dy.emplace_back(static_cast<std::size_t>(ny));
    }
    std::vector<V> hy(static_cast<std::size_t>(ny));
    // The reference runs on a checker thread; the comparisons queued after it wait for it
    // (the pool starts tasks in order, so it is already running when they start).
    std::shared_future<std::shared_ptr<const std::vector<V>>> ref;
    if (s.check)
      ref = checkers
                .submit([host, x, op, ny] {
                  auto y = std::make_shared<std::vector<V>>(static_cast<std::size_t>(ny));
                  reference::spmv(op, V(1), host->view(), x->data(), V(0),
                                  static_cast<const V*>(nullptr), y->data());
                  return std::shared_ptr<const std::vector<V>>(std::move(y));
                })
                .share();
    const double fbytes = floor_bytes<V, I, O>(hv.rows, hv.cols, hv.nnz, s.beta ? ny : 0);
    const V beta = static_cast<V>(s.beta);
    const double floor_ms = copy_gbs > 0 ? fbytes / (copy_gbs * 1e9) * 1e3 : 0;
    // Host kernels: the floor at the host's copy bandwidth.
    const double host_floor_ms = s.host_copy_gbs > 0 ? fbytes / (s.host_copy_gbs * 1e9) * 1e3 : 0;
    double cusparse_ms = 0, cusparse_graph_ms = 0;
    const std::size_t first_row = rows.size();
    for (const KernelSpec& ks : kernels) {
      Row row;
      row.matrix = m.source.name;
      row.family = m.source.family;
      row.precision = precision;
      row.index = s.index;
      row.op = op_name(op);
      row.kernel = ks.label;
      row.rows = hv.rows;
      row.cols = hv.cols;
      row.nnz = hv.nnz;
      const bool on_host = is_host_kernel(ks.name);
      row.floor_ms = on_host ? host_floor_ms : floor_ms;
      try {
        auto kernel = make_kernel<V, I, O>(ks, s);
        if (!kernel->supports(op)) {
          row.note = "op not supported";
          rows.push_back(row);
          continue;
        }
        // Setup on the host clock up to a synchronised stream: what a caller waits for.
        auto timed_setup = [&](SpmvKernel<V, I, O>& k) {
          const auto t0 = std::chrono::steady_clock::now();
          k.setup(on_host ? hv : dv, on_host ? nullptr : stream);
          if (!on_host) BENCH_CUDA(cudaStreamSynchronize(stream));
          return seconds_since(t0) * 1e3;
        };
        row.first_setup_ms = timed_setup(*kernel);
        if (s.setup_reps > 0) {
          std::vector<double> setups;
          std::vector<SetupTimes> steps;
          for (int r = 0; r < s.setup_reps; ++r) {
            auto fresh = make_kernel<V, I, O>(ks, s);
            setups.push_back(timed_setup(*fresh));
            if (auto* a = dynamic_cast<AutoKernel<V, I, O>*>(fresh.get()))
              steps.push_back(a->setup_times());
          }
          // The steps of the run with the median total.
          std::vector<std::size_t> order(setups.size());
          for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
          std::sort(order.begin(), order.end(),
                    [&](std::size_t a, std::size_t b) { return setups[a] < setups[b]; });
          const std::size_t median = order[order.size() / 2];
          row.setup_ms = setups[median];
          if (!steps.empty()) row.setup_steps = steps[median];
        }
        row.workspace_bytes = kernel->workspace_bytes();
        // Every run timed; the warm-up ones are dropped. A run over the cap ends the
        // measurement (when it was a warm-up run, it is the measurement). Not the first run:
        // it may include loading the kernel's module (CUDA loads modules lazily).
        // auto's check at the first products rotates the pick and its challengers: the timed runs
        // start once it has decided (its products count as warm-up).
        if (auto* a = dynamic_cast<AutoKernel<V, I, O>*>(kernel.get()); a && !on_host) {
          for (int r = 0; r < 64 && a->checking(op); ++r) {
            kernel->apply(op, V(1), dx[0].ptr, beta, s.beta ? dy[0].ptr : nullptr, dy[0].ptr,
                          stream);
            BENCH_CUDA(cudaStreamSynchronize(stream));
          }
        }
        std::vector<float> times;
        bool capped = false;
        double block_us = on_host ? 0 : s.block_us;
        for (int r = 0; r < s.warmup + s.reps; ++r) {
          const int k = r % sets;
          float ms = 0;
          if (on_host) {
            const auto t0 = std::chrono::steady_clock::now();
            kernel->apply(op, V(1), x->data(), beta, s.beta ? hy.data() : nullptr, hy.data(),
                          nullptr);
            ms = static_cast<float>(seconds_since(t0) * 1e3);
          } else {
            if (block_us > 0) block_stream(stream, block_us);
            BENCH_CUDA(cudaEventRecord(e0, stream));
            kernel->apply(op, V(1), dx[k].ptr, beta, s.beta ? dy[k].ptr : nullptr, dy[k].ptr,
                          stream);
            BENCH_CUDA(cudaEventRecord(e1, stream));
            // Blocked: the first event must still be waiting behind the block now that all is
            // queued; if the GPU passed it already, the run timed the queueing too.
            bool late = false;
            if (block_us > 0) {
              const cudaError_t q = cudaEventQuery(e0);
              if (q == cudaErrorNotReady)
                cudaGetLastError();  // not an error: the block still runs
              else
                BENCH_CUDA(q);
              late = q == cudaSuccess;
            }
            BENCH_CUDA(cudaEventSynchronize(e1));
            BENCH_CUDA(cudaEventElapsedTime(&ms, e0, e1));
            if (late && row.late_runs < kMaxLateRuns) {
              ++row.late_runs;
              block_us = std::min(2 * block_us, kMaxBlockUs);
              --r;  // this run again, with a longer block
              continue;
            }
          }
          if (r == 0) row.first_run_ms = ms;
          if (r >= s.warmup) times.push_back(ms);
          if (s.time_cap_ms > 0 && ms > s.time_cap_ms && r >= 1) {
            if (times.empty()) times.push_back(ms);
            capped = true;
            break;
          }
        }
        if (!on_host) BENCH_CUDA(cudaGetLastError());
        row.runs = static_cast<int>(times.size());
        row.block_us = block_us;
        if (row.late_runs > 0)
          row.note += (row.note.empty() ? "" : "; ") + std::to_string(row.late_runs) +
                      " runs timed again with a longer block";
        std::sort(times.begin(), times.end());
        row.time_ms = times[times.size() / 2];
        row.min_ms = times.front();
        row.pct_floor = row.time_ms > 0 ? 100.0 * row.floor_ms / row.time_ms : 0;
        row.gbs = row.time_ms > 0 ? fbytes / (row.time_ms * 1e-3) / 1e9 : 0;
        if (capped) {
          std::ostringstream note;
          note << "capped: a run took over " << s.time_cap_ms << " ms";
          row.note = note.str();
        }
        if (auto* a = dynamic_cast<AutoKernel<V, I, O>*>(kernel.get()))
          row.note += (row.note.empty() ? "" : "; ") + std::string("chose ") + a->chosen(op);
        if (const std::string t = kernel->tuning(op); !t.empty())
          row.note += (row.note.empty() ? "" : "; ") + t;
        // auto's check ended in the warm-up above, so the graph holds its final kernel.
        if (s.graph && !on_host && capped) {
          row.graph_tried = true;
          row.graph_note = "not captured: its runs were capped";
        } else if (s.graph && !on_host) {
          try {
            measure_graph(row, s, stream, e0, e1, [&](int r) {
              const int k = r % sets;  // the buffer sets of the timed runs, in their order
              kernel->apply(op, V(1), dx[k].ptr, beta, s.beta ? dy[k].ptr : nullptr, dy[k].ptr,
                            stream);
            });
          } catch (const std::exception& e) {
            // The graph's own failure; the product's time and check still stand.
            row.graph_capturable = false;
            row.graph_note = e.what();
            cudaGetLastError();
          }
        }
        if (s.check) {
          // Fresh output poisoned with NaN, one more apply; the comparison runs on a checker.
          std::vector<V> poison(static_cast<std::size_t>(ny), std::numeric_limits<V>::quiet_NaN());
          if (on_host) {
            kernel->apply(op, V(1), x->data(), V(0), nullptr, poison.data(), nullptr);
          } else {
            dy[0].upload(poison);
            kernel->apply(op, V(1), dx[0].ptr, V(0), nullptr, dy[0].ptr, stream);
            BENCH_CUDA(cudaStreamSynchronize(stream));
            BENCH_CUDA(cudaGetLastError());
            poison = dy[0].download();
          }
          pending.push_back(
              {rows.size(), checkers.submit([host, x, ref, op, y = std::move(poison)] {
                 std::string why;
                 const std::int64_t bad = reference::count_mismatches(
                     op, V(1), host->view(), x->data(), V(0), static_cast<const V*>(nullptr),
                     ref.get()->data(), y.data(), &why, 1);
                 return bad == 0 ? std::string() : "WRONG RESULT:" + why;
               })});
        } else {
          row.correct = true;
          row.note += (row.note.empty() ? "" : "; ") + std::string("not checked");
        }
        if (ks.name == "cusparse" && cusparse_ms == 0) {
          cusparse_ms = row.time_ms;
          cusparse_graph_ms = row.graph_ms;  // 0 without --graph or when it was not captured
        }
      } catch (const std::exception& e) {
        row.note = e.what();
        if (!on_host) cudaGetLastError();
      }
      rows.push_back(row);
    }
    for (std::size_t i = first_row; i < rows.size(); ++i)
      if (rows[i].time_ms > 0 && cusparse_ms > 0)
        rows[i].speedup_vs_cusparse = cusparse_ms / rows[i].time_ms;
    for (std::size_t i = first_row; i < rows.size(); ++i)
      if (rows[i].graph_ms > 0 && cusparse_graph_ms > 0)
        rows[i].graph_speedup_vs_cusparse = cusparse_graph_ms / rows[i].graph_ms;
  }
  if (any_device) {
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
    cudaStreamDestroy(stream);
  }
  return rows;
}

std::string family_of(const std::string& spec) {
  if (std::filesystem::is_regular_file(spec)) return "real";
  return spec.substr(0, spec.find(':'));
}

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t\r") - b + 1);
}

// The anchor matrices (docs/architecture.md, "Anchor matrices").
const std::vector<std::pair<std::string, std::string>> kAnchorSet = {
    {"poisson3d-64", "poisson3d:n=64"},
    {"poisson3d-200", "poisson3d:n=200"},
    {"stencil27-128", "stencil27:n=128"},
    {"banded-s10", "banded:rows=1048576,per_row=22,sigma=10"},
    {"banded-s1000", "banded:rows=1048576,per_row=22,sigma=1000"},
    {"banded-s40000", "banded:rows=1048576,per_row=22,sigma=40000"},
    {"uniform-22", "banded:rows=1048576,per_row=22,sigma=0"},
    {"rmat-21-16", "rmat:scale=21,ef=16"},
    {"circuit-4M", "circuit:rows=4000000,mean=4.4"},
    {"banded-small", "banded:rows=20000,per_row=10,sigma=50"},
};

}  // namespace

bool is_host_kernel(const std::string& name) {
  if (name == "auto") return !gpu::gpu_available();  // the Operator picks among host kernels
  for (const KernelInfo& k : KernelRegistry::kernels())
    if (k.name == name) return k.memory == Memory::host;
  return false;
}

double measure_host_copy_bandwidth_gbs() {
  const std::size_t bytes = std::size_t(1) << 27;
  std::vector<char> a(bytes, 1), b(bytes, 0);
  std::vector<double> t;
  for (int i = 0; i < 7; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    std::memcpy(b.data(), a.data(), bytes);
    if (i >= 2) t.push_back(seconds_since(t0));
    a[static_cast<std::size_t>(i)] = b[bytes - 1 - static_cast<std::size_t>(i)];  // keep the copy
  }
  std::sort(t.begin(), t.end());
  return 2.0 * static_cast<double>(bytes) / t[t.size() / 2] / 1e9;
}

std::vector<Source> expand_sources(const std::vector<std::string>& inputs) {
  namespace fs = std::filesystem;
  std::vector<Source> out;
  for (const std::string& in : inputs) {
    if (in == "anchors") {
      for (const auto& [n, s] : kAnchorSet) out.push_back({n, s, family_of(s)});
    } else if (!in.empty() && in[0] == '@') {
      const std::string path = in.substr(1);
      std::ifstream list(path);
      if (!list) fail(status::io, "hola-bench: cannot read the matrix list '" + path + "'");
      std::string line;
      while (std::getline(list, line)) {
        line = trim(line.substr(0, line.find('#')));
        if (line.empty()) continue;
        const auto space = line.find_first_of(" \t");
        if (space == std::string::npos) {
          out.push_back({line, line, family_of(line)});
        } else {
          const std::string spec = trim(line.substr(space + 1));
          out.push_back({line.substr(0, space), spec, family_of(spec)});
        }
      }
    } else if (fs::is_directory(in)) {
      std::vector<std::string> files;
      for (const auto& e : fs::directory_iterator(in))
        if (e.path().extension() == ".mtx") files.push_back(e.path().string());
      std::sort(files.begin(), files.end());
      for (const auto& f : files) out.push_back({fs::path(f).stem().string(), f, "real"});
    } else if (fs::is_regular_file(in)) {
      out.push_back({fs::path(in).stem().string(), in, "real"});
    } else if (const std::string head = in.substr(0, in.find(':'));
               head.find_first_of("/.") != std::string::npos || fs::exists(in)) {
      // A path (no generator family has '/' or '.' in its name): say what is wrong with it.
      std::error_code ec;
      fail(status::io, "cannot open file '" + in + "': " +
                           (fs::exists(in, ec) ? "not a regular file or directory"
                                               : "no such file or directory"));
    } else {
      out.push_back({in, in, family_of(in)});
    }
  }
  return out;
}

PreparedMatrix prepare_matrix(const Source& source, const std::vector<std::string>& precisions,
                              const std::string& index) {
  PreparedMatrix m;
  m.source = source;
  const auto t0 = std::chrono::steady_clock::now();
  try {
    const gen::Csr64 A = std::filesystem::is_regular_file(source.spec)
                             ? read_matrix_market<double, std::int64_t, std::int64_t>(source.spec)
                             : gen::from_spec(source.spec);
    m.rows = A.rows;
    m.cols = A.cols;
    m.nnz = A.nnz();
    m.cpu_features = matrix_features(A.row_ptr.data(), A.col_idx.data(), A.rows, A.cols);
    const bool i64 = index == "int64";
    for (const std::string& p : precisions) {
      if (p == "double" && i64) m.d64 = make_typed<double, std::int64_t>(A);
      if (p == "double" && !i64) m.d32 = make_typed<double, std::int32_t>(A);
      if (p == "float" && i64) m.f64 = make_typed<float, std::int64_t>(A);
      if (p == "float" && !i64) m.f32 = make_typed<float, std::int32_t>(A);
    }
  } catch (const std::exception& e) {
    m.error = e.what();
  }
  m.load_s = seconds_since(t0);
  return m;
}

FeatureReport measure_features(const PreparedMatrix& m) {
  FeatureReport report;
  // The GPU features of the arrays the kernels run on (the run's index type).
  auto run = [&](const auto& host) {
    DeviceArray d_row_ptr(host.row_ptr);
    DeviceArray d_col_idx(host.col_idx);
    std::vector<double> ms;
    for (int r = 0; r < 6; ++r) {
      const auto t0 = std::chrono::steady_clock::now();
      report.features =
          gpu::device_matrix_features(d_row_ptr.ptr, d_col_idx.ptr, m.rows, m.cols, m.nnz, nullptr);
      if (r > 0) ms.push_back(seconds_since(t0) * 1e3);  // the first one warms up
    }
    std::sort(ms.begin(), ms.end());
    report.features_ms = ms[ms.size() / 2];
  };
  if (m.d32)
    run(*m.d32);
  else if (m.f32)
    run(*m.f32);
  else if (m.d64)
    run(*m.d64);
  else if (m.f64)
    run(*m.f64);
  else {
    report.mismatch = "no host copy of the matrix to compute GPU features from";
    return report;
  }
  const RowLengthStats &g = report.features.lengths, &c = m.cpu_features.lengths;
  const StructureStats &gs = report.features.structure, &cs = m.cpu_features.structure;
  auto close = [](double a, double b) {
    return std::fabs(a - b) <= 1e-9 * std::max(1.0, std::fabs(b));
  };
  std::ostringstream why;
  if (g.rows != c.rows || g.cols != c.cols || g.nnz != c.nnz || g.min_row != c.min_row ||
      g.max_row != c.max_row || g.empty_rows != c.empty_rows)
    why << "GPU features differ in counts (nnz " << g.nnz << " vs " << c.nnz << ", min "
        << g.min_row << " vs " << c.min_row << ", max " << g.max_row << " vs " << c.max_row
        << ", empty " << g.empty_rows << " vs " << c.empty_rows << ")";
  else if (!close(g.std_row, c.std_row) || !close(g.gini, c.gini))
    why << "GPU features differ: std " << g.std_row << " vs " << c.std_row << ", gini " << g.gini
        << " vs " << c.gini;
  else if (gs.nnz != cs.nnz || gs.group_slots != cs.group_slots || gs.row_near != cs.row_near ||
           gs.neighbor_near != cs.neighbor_near || gs.neighbor_mid != cs.neighbor_mid ||
           gs.neighbor_same != cs.neighbor_same)
    why << "GPU structure features differ (group slots " << gs.group_slots << " vs "
        << cs.group_slots << ", row near " << gs.row_near << " vs " << cs.row_near
        << ", neighbour near " << gs.neighbor_near << " vs " << cs.neighbor_near
        << ", neighbour mid " << gs.neighbor_mid << " vs " << cs.neighbor_mid << ", neighbour same "
        << gs.neighbor_same << " vs " << cs.neighbor_same << ")";
  report.mismatch = why.str();
  return report;
}

ThreadPool::ThreadPool(unsigned threads) {
  for (unsigned i = 0; i < std::max(threads, 1u); ++i) threads_.emplace_back([this] { work(); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    closing_ = true;
  }
  wake_.notify_all();
  for (auto& t : threads_) t.join();
}

std::size_t ThreadPool::queued() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return queue_.size();
}

void ThreadPool::work() {
  for (;;) {
    std::function<void()> task;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      wake_.wait(lock, [this] { return closing_ || !queue_.empty(); });
      if (queue_.empty()) return;  // closing and nothing left
      task = std::move(queue_.front());
      queue_.pop_front();
    }
    task();
  }
}

KernelSpec parse_kernel_spec(const std::string& spec) {
  KernelSpec k;
  k.label = spec;
  const auto colon = spec.find(':');
  k.name = spec.substr(0, colon);
  if (!KernelRegistry::find(k.name))
    fail(status::invalid_argument,
         "unknown kernel '" + k.name + "' (known: " + KernelRegistry::names() + ")");
  if (colon == std::string::npos) return k;
  std::string rest = spec.substr(colon + 1);
  std::size_t pos = 0;
  while (pos < rest.size()) {
    std::size_t comma = rest.find(',', pos);
    if (comma == std::string::npos) comma = rest.size();
    const std::string kv = rest.substr(pos, comma - pos);
    const auto eq = kv.find('=');
    if (eq == std::string::npos) fail(status::invalid_argument, "bad kernel option '" + kv + "'");
    const std::string key = kv.substr(0, eq);
    if (k.name == "auto" && key != "check")
      fail(status::invalid_argument, "auto takes one option, check=0|1, not '" + key + "'");
    int value = 0;
    try {
      value = std::stoi(kv.substr(eq + 1));
    } catch (const std::exception&) {
      fail(status::invalid_argument, "bad value in kernel option '" + kv + "'");
    }
    if (key == "tpb")
      k.options.threads_per_block = value;
    else if (key == "npt")
      k.options.nnz_per_thread = value;
    else if (key == "det")
      k.options.deterministic = value != 0;
    else if (key == "tvar")
      k.options.transpose_variant = value;
    else if (key == "carry")
      k.options.carry_path_max_nnz = value;
    else if (key == "gather")
      k.options.gather_transpose_max_nnz = value;
    else if (key == "fuse")
      k.options.fused_fixup_max_tiles = value;
    else if (key == "pf")
      k.options.l2_prefetch_tiles = value;
    else if (key == "lanes")
      k.options.lanes_per_row = value;
    else if (key == "comb")
      k.options.transpose_combine = value;
    else if (key == "hubs")
      k.options.transpose_hubs = value;
    else if (key == "win")
      k.options.transpose_window = value;
    else if (key == "pred")
      k.options.predicated_row_steps = value;
    else if (key == "wkib")
      k.options.transpose_window_kib = value;
    else if (key == "check" && k.name == "auto")
      k.auto_check = value != 0;
    else
      fail(status::invalid_argument,
           "unknown kernel option '" + key +
               "' (tpb, npt, det, tvar, carry, gather, fuse, pf, lanes, pred, comb, hubs, win, "
               "wkib)");
    pos = comma + 1;
  }
  return k;
}

double measure_copy_bandwidth_gbs() {
  const std::size_t bytes = std::size_t(1) << 30;
  DeviceArray<char> a(bytes), b(bytes);
  BENCH_CUDA(cudaMemset(a.ptr, 1, bytes));
  cudaEvent_t e0, e1;
  BENCH_CUDA(cudaEventCreate(&e0));
  BENCH_CUDA(cudaEventCreate(&e1));
  std::vector<float> t;
  for (int i = 0; i < 12; ++i) {
    BENCH_CUDA(cudaEventRecord(e0));
    BENCH_CUDA(cudaMemcpyAsync(b.ptr, a.ptr, bytes, cudaMemcpyDeviceToDevice));
    BENCH_CUDA(cudaEventRecord(e1));
    BENCH_CUDA(cudaEventSynchronize(e1));
    float ms = 0;
    BENCH_CUDA(cudaEventElapsedTime(&ms, e0, e1));
    if (i >= 2) t.push_back(ms);
  }
  cudaEventDestroy(e0);
  cudaEventDestroy(e1);
  std::sort(t.begin(), t.end());
  return 2.0 * bytes / (t[t.size() / 2] * 1e-3) / 1e9;
}

std::vector<Row> run_matrix(const PreparedMatrix& m, const std::string& precision,
                            const std::vector<Op>& ops, const std::vector<KernelSpec>& kernels,
                            const Settings& s, double copy_gbs, ThreadPool& checkers,
                            std::vector<PendingCheck>& pending) {
  const bool i64 = s.index == "int64";
  if (precision == "double")
    return i64 ? run_typed<double, std::int64_t, std::int64_t>(m, precision, ops, kernels, s,
                                                               copy_gbs, checkers, pending)
               : run_typed<double, std::int32_t, std::int32_t>(m, precision, ops, kernels, s,
                                                               copy_gbs, checkers, pending);
  if (precision == "float")
    return i64 ? run_typed<float, std::int64_t, std::int64_t>(m, precision, ops, kernels, s,
                                                              copy_gbs, checkers, pending)
               : run_typed<float, std::int32_t, std::int32_t>(m, precision, ops, kernels, s,
                                                              copy_gbs, checkers, pending);
  fail(status::invalid_argument, "precision must be float or double");
}

std::string device_name() {
  int dev = 0;
  cudaDeviceProp p{};
  if (cudaGetDevice(&dev) != cudaSuccess || cudaGetDeviceProperties(&p, dev) != cudaSuccess)
    return "unknown";
  return std::string(p.name) + " (" + std::to_string(p.multiProcessorCount) + " SMs, " +
         std::to_string(p.l2CacheSize >> 20) + " MB L2)";
}

}  // namespace hola::bench
