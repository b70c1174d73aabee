// hola-bench internals: matrices prepared on CPU threads, every kernel timed on the GPU
// (docs/architecture.md, "Performance method"), results checked against the reference on a pool of
// CPU threads while the GPU moves on.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <future>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "hola/features.hpp"
#include "hola/generators.hpp"
#include "hola/operator.hpp"
#include "hola/spmv_kernel.hpp"

namespace hola::bench {

// "hola:tpb=256,npt=8,det=1" → registry name + KernelOptions. "auto" runs the Operator's choice.
struct KernelSpec {
  std::string label;  // as given
  std::string name;   // registry name
  KernelOptions options;
  bool auto_check = true;  // auto:check=0: without the check at the first products
};
KernelSpec parse_kernel_spec(const std::string& spec);

struct Settings {
  int warmup = 5;
  int reps = 30;
  bool check = true;
  std::string index = "int32";  // int32 or int64 for both column indices and row offsets
  // A run slower than this (ms) ends the kernel's measurement: that run is recorded (0: no cap).
  // Keeps hopeless pairs (one thread on a row of 10^5 nonzeros) from dominating corpus runs.
  double time_cap_ms = 0;
  // Host copy bandwidth (GB/s): the floor of host kernels (0: not measured, no floor).
  double host_copy_gbs = 0;
  // Setup cost: after the first setup of each kernel, this many more on fresh kernel objects,
  // each timed on the host clock up to a synchronised stream (median in Row::setup_ms; 0: none).
  int setup_reps = 0;
  // "auto" with the setup race (OperatorOptions::auto_trial; off by default, as for users).
  bool auto_race = false;
  // "auto" leaves empty rows out (OperatorOptions::compress_empty_rows; on by default).
  bool auto_compress = true;
  // 0: y = A x; 1: y += A x in place (a ghost block's product in PETSc's MatMult). The floor
  // then counts reading y too.
  int beta = 0;
  // Each GPU kernel's product also captured into a CUDA graph (issue 16: usable inside graphs,
  // one launch per product): its nodes, and the time per product of a graph of graph_products
  // products launched whole.
  bool graph = false;
  int graph_products = 20;
  // > 0: before each timed GPU product, a kernel that keeps the stream busy this long (µs), so
  // that the events and the product are all queued before the GPU reaches them: the events time
  // the product on the GPU alone, not the host's time to queue it (which a product of a few
  // microseconds otherwise includes, and which the bench's own loader and checker threads
  // stretch). A run whose first event the GPU passed before the product was queued is timed
  // again with a block twice as long (Row::late_runs).
  double block_us = 0;
};

// True for kernels that run on host memory: registry kernels of Memory::host, and "auto" when
// no GPU is usable (the Operator then chooses among the host kernels).
bool is_host_kernel(const std::string& name);

// memcpy bandwidth of the host (read + write bytes per second, GB/s).
double measure_host_copy_bandwidth_gbs();

// The nodes of a captured CUDA graph by type (child graphs counted by their own nodes).
struct GraphNodeCounts {
  int kernel = 0, memset = 0, memcpy = 0, other = 0;
  int total() const { return kernel + memset + memcpy + other; }
};

struct Row {
  std::string matrix, family, precision, op, kernel, index;
  std::int64_t rows = 0, cols = 0, nnz = 0;
  double time_ms = 0, min_ms = 0, pct_floor = 0, speedup_vs_cusparse = 0, gbs = 0;
  double floor_ms = 0;
  int runs = 0;  // timed runs behind time_ms
  // Settings::block_us: runs timed again because the block ended before the product was queued,
  // and the block (µs) the last run used.
  int late_runs = 0;
  double block_us = 0;
  // Setup wall time (ms): the first (lazy module loading included) and the median of
  // Settings::setup_reps more (0 when not measured). For "auto": validation, features, the tree,
  // the chosen kernels' setup (and the race when on).
  double first_setup_ms = 0, setup_ms = 0;
  // The first product after setup (after auto's check, for auto), warm-up or not: it holds the
  // work a kernel defers to its first product (op T's window plan and trial, column indices).
  double first_run_ms = 0;
  SetupTimes setup_steps;  // "auto": the Operator's steps in the run behind setup_ms
  std::size_t workspace_bytes = 0;
  bool correct = false;
  std::string note;  // why a kernel was skipped or failed; what auto chose
  // Settings::graph, GPU rows only (graph_tried false elsewhere: the fields below mean nothing).
  // graph_nodes: one product captured (empty when its capture failed); graph_capturable: that
  // capture and a graph of Settings::graph_products products instantiated; graph_ms: per product
  // in that graph, median of graph_runs launches (0: not measured); graph_note: why not.
  bool graph_tried = false, graph_capturable = false;
  std::optional<GraphNodeCounts> graph_nodes;
  double graph_ms = 0, graph_speedup_vs_cusparse = 0;
  int graph_runs = 0;
  std::string graph_note;
};

// One input of -m: a generator spec or a Matrix Market file, with the name used in the results.
struct Source {
  std::string name, spec, family;
};

// Expands the -m inputs: "anchors", directories (their .mtx files, sorted), files, "@list"
// (one "spec" or "name spec" per line, '#' comments) and generator specs.
std::vector<Source> expand_sources(const std::vector<std::string>& inputs);

// A matrix loaded and converted on a CPU thread, ready for the GPU thread.
struct PreparedMatrix {
  Source source;
  std::int64_t rows = 0, cols = 0, nnz = 0;
  MatrixFeatures cpu_features;  // matrix_features on the host: checks the GPU's
  double load_s = 0;            // generation or reading, conversion, random values
  std::string error;            // loading failed: why
  // Host copies with random values in [-1, 1] for each precision asked for (index type of the
  // run for both columns and offsets); null when not asked for.
  std::shared_ptr<const CsrMatrix<double, std::int32_t, std::int32_t>> d32;
  std::shared_ptr<const CsrMatrix<float, std::int32_t, std::int32_t>> f32;
  std::shared_ptr<const CsrMatrix<double, std::int64_t, std::int64_t>> d64;
  std::shared_ptr<const CsrMatrix<float, std::int64_t, std::int64_t>> f64;
};
PreparedMatrix prepare_matrix(const Source& source, const std::vector<std::string>& precisions,
                              const std::string& index);

// The selector's features computed on the GPU, checked against the CPU's.
struct FeatureReport {
  MatrixFeatures features;
  double features_ms = 0;  // median wall time of gpu::device_matrix_features (setup cost)
  std::string mismatch;    // empty when the GPU and CPU statistics agree
};
FeatureReport measure_features(const PreparedMatrix& m);

// Fixed-size pool of CPU threads running tasks in submission order.
class ThreadPool {
 public:
  explicit ThreadPool(unsigned threads);
  ~ThreadPool();  // runs what is queued, then joins
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  template <class F>
  auto submit(F&& f) -> std::future<decltype(f())> {
    using R = decltype(f());
    auto task = std::make_shared<std::packaged_task<R()>>(std::forward<F>(f));
    std::future<R> result = task->get_future();
    {
      std::lock_guard<std::mutex> lock(mutex_);
      queue_.emplace_back([task] { (*task)(); });
    }
    wake_.notify_one();
    return result;
  }
  // Tasks queued and not started yet.
  std::size_t queued() const;

 private:
  void work();
  mutable std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<std::function<void()>> queue_;
  std::vector<std::thread> threads_;
  bool closing_ = false;
};

// A comparison with the reference still running: its verdict ("" = correct) belongs to `row`
// of the rows returned by run_matrix.
struct PendingCheck {
  std::size_t row = 0;
  std::future<std::string> verdict;
};

// Device-to-device copy bandwidth in GB/s, counting bytes read plus written.
double measure_copy_bandwidth_gbs();

// Runs every kernel spec on the matrix for one precision and the requested ops. The first spec
// whose registry name is "cusparse" is the baseline of speedup_vs_cusparse. Comparisons with the
// reference go to `checkers` and are appended to `pending` (row indices into the returned rows).
std::vector<Row> run_matrix(const PreparedMatrix& m, const std::string& precision,
                            const std::vector<Op>& ops, const std::vector<KernelSpec>& kernels,
                            const Settings& settings, double copy_gbs, ThreadPool& checkers,
                            std::vector<PendingCheck>& pending);

std::string device_name();

}  // namespace hola::bench
