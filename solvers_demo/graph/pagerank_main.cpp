// hola-pagerank: PageRank (docs/spmspv.md) on the host (--backend cpu) or on the GPU (--backend
// gpu: one hola::Operator SpMV with kernel auto on P = (D^-1 A)^T plus one fused update kernel
// per iteration). A Kronecker graph or a Matrix Market file, damping, tolerance, optional
// personalization on a few vertices; prints iterations, time per iteration and the top-ranked
// vertices. The GPU run also times, in the same run, one SpMV on P with Operator "auto" and with
// cuSPARSE (CUDA events) and compares the ranks with the host pagerank. --graphblas times
// SuiteSparse:GraphBLAS (when built with it); --output FILE writes JSON.
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <numeric>
#include <string>
#include <vector>

#include "../run_info.hpp"
#include "graph_input.hpp"
#include "hola/error.hpp"
#include "hola/gpu_kernels.hpp"
#include "hola/spmspv_graph.hpp"
#if defined(HOLA_ENABLE_CUDA)
#include "hola/graph_gpu.hpp"
#include "hola/operator.hpp"
#endif
#if HOLA_HAVE_GRAPHBLAS
#include "graphblas_baseline.hpp"
#endif

namespace {

struct Settings {
  hola::spmspv::PageRankOptions host;
  int check_every = 0;  // hola::graph::gpu::PageRankOptions's default: chosen per run
  bool use_graph = true;
  bool device_loop = true;
  bool loop_tail = true;
  bool keep_graph = false;
  // The SpMV's Operator::work_version passed to each run, so that the device loop's graph is
  // replayed while the Operator's work is unchanged (off: built at every run, unless keep_graph).
  bool versioned_graph = true;
  int runs = 3;  // timed GPU runs; the median by time is reported
  int reps = 20;
  bool compare = true;
};

// Largest absolute and the L1 difference between two rank vectors.
std::pair<double, double> rank_difference(const std::vector<double>& a,
                                          const std::vector<double>& b) {
  double max_abs = 0, l1 = 0;
  for (std::size_t i = 0; i < a.size() && i < b.size(); ++i) {
    const double d = std::abs(a[i] - b[i]);
    max_abs = std::max(max_abs, d);
    l1 += d;
  }
  return {max_abs, l1};
}

#if defined(HOLA_ENABLE_CUDA)
// How the iterations ran, in words.
std::string run_path(const hola::graph::gpu::PageRankRun& r) {
  if (r.device_loop)
    return "device loop over chunks of " + std::to_string(r.check_every) +
           ": one CUDA graph that the device ends" +
           (r.reused_graph ? ", replayed from an earlier run" : ", built in this run");
  return "chunks of " + std::to_string(r.check_every) +
         (r.used_graph ? ", as a CUDA graph after the first" : ", plain launches");
}

// The GPU run with values V and device index types I / O; fills `j` and returns the ranks.
template <class V, class I, class O>
std::vector<double> run_gpu(const hola::gen::Csr64& g, const Settings& s, nlohmann::json& j) {
  std::vector<O> rp(g.row_ptr.begin(), g.row_ptr.end());
  std::vector<I> ci(g.col_idx.begin(), g.col_idx.end());
  std::vector<V> va(g.col_idx.size(), V(1));
  const auto A = hola::csr_view<V, I, O>(g.rows, g.cols, g.nnz(), rp.data(), ci.data(), va.data());
  hola::graph::gpu::PageRankOptions opt;
  opt.damping = s.host.damping;
  opt.tolerance = s.host.tolerance;
  opt.max_iterations = s.host.max_iterations;
  opt.check_every = s.check_every;
  opt.use_graph = s.use_graph;
  opt.device_loop = s.device_loop;
  opt.loop_tail = s.loop_tail;
  opt.keep_graph = s.keep_graph;
  opt.personalization = s.host.personalization;
  hola::graph::gpu::PageRank<V, I, O> pr;
  pr.setup(A, opt);
  const auto& P = pr.matrix();
  const std::int64_t n = g.rows;
  hola::OperatorOptions auto_opt;
  auto_opt.kernel = "auto";
  hola::Operator<V, I, O> spmv_auto(auto_opt);
  spmv_auto.setup(P, 0, pr.stream());
  hola::OperatorOptions cus_opt;
  cus_opt.kernel = "cusparse";
  hola::Operator<V, I, O> spmv_cusparse(cus_opt);
  spmv_cusparse.setup(P, 0, pr.stream());
  auto product = [n](hola::Operator<V, I, O>& op) {
    return [&op, n](const V* x, V* y, void* stream) {
      op.apply(hola::Op::N, V(1), hola::ConstVec<V>{x, n}, V(0), hola::Vec<V>{y, n}, stream);
    };
  };
  const auto step = product(spmv_auto);
  // The Operator's version of its op N work: the loop's graph is replayed while it holds (auto's
  // check ends at the warm-up run's capture, which changes it once).
  const auto version = [&] { return s.versioned_graph ? spmv_auto.work_version(hola::Op::N) : 0; };
  pr.run(step, version());  // warm-up: module load, first touch
  std::vector<hola::graph::gpu::PageRankRun> runs;
  for (int i = 0; i < s.runs; ++i) runs.push_back(pr.run(step, version()));
  int replayed = 0;
  for (const auto& one : runs) replayed += one.reused_graph ? 1 : 0;
  std::vector<double> run_seconds;
  for (const auto& one : runs) run_seconds.push_back(one.seconds);
  std::sort(runs.begin(), runs.end(),
            [](const auto& a, const auto& b) { return a.seconds < b.seconds; });
  const auto r = runs[runs.size() / 2];  // the median run by time
  const std::vector<double> rank = pr.download_rank();
  // One SpMV on P alone, x = the final rank, y = PageRank's product vector (CUDA events).
  const V* x = pr.rank_device();
  V* y = pr.product_device();
  const auto cusparse_step = product(spmv_cusparse);
  const double auto_ms =
      hola::graph::gpu::time_on_stream([&](void* st) { step(x, y, st); }, pr.stream(), 5, s.reps);
  const double cusparse_ms = hola::graph::gpu::time_on_stream(
      [&](void* st) { cusparse_step(x, y, st); }, pr.stream(), 5, s.reps);
  std::printf(
      "gpu (%s, %s): %d iterations (%d queued), last L1 change %.3e, %.3f ms (median of %d "
      "runs), %.4f ms per queued iteration (%s)\n",
      hola::gpu::device_name().c_str(), sizeof(V) == 4 ? "float" : "double", r.iterations,
      r.iterations_run, r.change, r.seconds * 1e3, s.runs, r.ms_per_iteration, run_path(r).c_str());
  std::printf(
      "one SpMV on P: Operator auto (%s) %.4f ms, cuSPARSE %.4f ms; queued iteration / auto "
      "SpMV = %.3f, applied iteration / auto SpMV = %.3f, queued iteration / cuSPARSE SpMV = "
      "%.3f\n",
      spmv_auto.kernel_name(hola::Op::N).c_str(), auto_ms, cusparse_ms,
      auto_ms > 0 ? r.ms_per_iteration / auto_ms : 0.0,
      auto_ms > 0 && r.iterations > 0 ? r.seconds * 1e3 / r.iterations / auto_ms : 0.0,
      cusparse_ms > 0 ? r.ms_per_iteration / cusparse_ms : 0.0);
  j["gpu"] = hola::gpu::device_name();
  j["precision"] = sizeof(V) == 4 ? "float" : "double";
  j["index_bits"] = static_cast<int>(8 * sizeof(I));
  j["iterations"] = r.iterations;
  j["change"] = r.change;
  j["ms_per_iteration"] = r.ms_per_iteration;
  j["iterations_run"] = r.iterations_run;
  j["used_graph"] = r.used_graph;
  j["device_loop"] = r.device_loop;
  j["loop_tail"] = s.loop_tail;
  j["keep_graph"] = s.keep_graph;
  j["reused_graph"] = r.reused_graph;
  j["versioned_graph"] = s.versioned_graph;
  j["runs_replayed"] = replayed;
  j["seconds"] = r.seconds;
  j["run_seconds"] = run_seconds;
  j["ms_per_applied_iteration"] = r.iterations > 0 ? r.seconds * 1e3 / r.iterations : 0.0;
  j["applied_iteration_over_auto_spmv"] =
      auto_ms > 0 && r.iterations > 0 ? r.seconds * 1e3 / r.iterations / auto_ms : 0.0;
  j["check_every"] = s.check_every;
  j["check_every_used"] = r.check_every;
  j["spmv_auto_kernel"] = spmv_auto.kernel_name(hola::Op::N);
  j["spmv_auto_ms"] = auto_ms;
  j["spmv_cusparse_ms"] = cusparse_ms;
  j["iteration_over_auto_spmv"] = auto_ms > 0 ? r.ms_per_iteration / auto_ms : 0.0;
  j["iteration_over_cusparse_spmv"] = cusparse_ms > 0 ? r.ms_per_iteration / cusparse_ms : 0.0;
  j["p_nnz"] = P.nnz;
  return rank;
}
#endif

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Hola PageRank (host or GPU)"};
  hola::demo::GraphInput input;
  int max_iter = 100, top = 10;
  std::uint64_t seed = 1;
  double damping = 0.85, tol = 1e-9;
  bool undirected = false, use_graphblas = false, no_compare = false;
  int graphblas_threads = 0;
  std::string backend = "cpu", precision = "double", output;
  Settings set;
  std::vector<std::int64_t> personal;
  hola::demo::add_graph_options(app, input);
  app.add_option("-s,--seed", seed, "seed of the graph");
  app.add_option("--damping", damping, "damping factor in [0, 1)")
      ->check(CLI::Range(0.0, 0.999999));
  app.add_option("--tol", tol, "stop when the L1 change of one iteration is below this");
  app.add_option("--max-iter", max_iter, "iteration limit")->check(CLI::Range(0, 100000));
  app.add_option("--personalize", personal, "teleport only to these vertices (equal weights)");
  app.add_option("--top", top, "vertices to print")->check(CLI::Range(0, 1000));
  app.add_flag("--undirected", undirected, "use A + A^T");
  app.add_option("-b,--backend", backend, "cpu or gpu")->check(CLI::IsMember({"cpu", "gpu"}));
  app.add_option("-p,--precision", precision, "GPU values: double or float")
      ->check(CLI::IsMember({"double", "float"}));
  app.add_option("--check-every", set.check_every,
                 "GPU without the device loop: read the device's iteration state every k "
                 "iterations (the ranks and the iteration count do not depend on k; 0: k from "
                 "P's nonzeros)")
      ->check(CLI::Range(0, 1000));
  bool no_graph = false;
  app.add_flag("--no-graph", no_graph, "GPU: plain launches, no CUDA graph");
  bool no_device_loop = false;
  app.add_flag("--no-device-loop", no_device_loop,
               "GPU: chunks of --check-every iterations read by the host, not one graph that the "
               "device ends");
  bool keep_graph = false;
  app.add_flag("--keep-graph", keep_graph,
               "GPU device loop: build its graph at the first (warm-up) run and replay it in the "
               "timed runs");
  bool rebuild_graph = false;
  app.add_flag("--rebuild-graph", rebuild_graph,
               "GPU device loop: build its graph at every run (by default it is replayed while "
               "the auto Operator's work_version is unchanged)");
  bool no_loop_tail = false;
  app.add_flag("--no-loop-tail", no_loop_tail,
               "GPU device loop: no one-iteration tail loop (every pass holds k iterations)");
  app.add_option("--runs", set.runs, "GPU: timed PageRank runs after a warm-up (the median)")
      ->check(CLI::Range(1, 1000));
  app.add_option("--reps", set.reps, "GPU: timed repetitions of the single SpMV (median)")
      ->check(CLI::Range(1, 10000));
  app.add_flag("--no-compare", no_compare, "GPU: skip the comparison with the host pagerank");
  app.add_flag("--graphblas", use_graphblas,
               "also time SuiteSparse:GraphBLAS (builds with GraphBLAS)");
  app.add_option("--graphblas-threads", graphblas_threads,
                 "OpenMP threads of GraphBLAS (0: its default, all cores)");
  app.add_option("-o,--output", output, "write the results as JSON to this file");
  CLI11_PARSE(app, argc, argv);

  try {
#if !defined(HOLA_ENABLE_CUDA)
    if (backend == "gpu")
      throw hola::error(hola::status::no_device, "--backend gpu: this build has no CUDA support");
#endif
#if !HOLA_HAVE_GRAPHBLAS
    if (use_graphblas)
      throw hola::error(hola::status::unsupported,
                        "--graphblas: this build has no SuiteSparse:GraphBLAS");
#endif
    if (backend == "gpu" && !hola::gpu::gpu_available())
      throw hola::error(hola::status::no_device, "--backend gpu: no usable CUDA device");
    const auto g = hola::demo::load_graph(input, seed, undirected);
    std::printf("graph: %lld vertices, %lld edges\n", static_cast<long long>(g.rows),
                static_cast<long long>(g.nnz()));
    hola::spmspv::PageRankOptions& opt = set.host;
    opt.damping = damping;
    opt.tolerance = tol;
    opt.max_iterations = max_iter;
    set.compare = !no_compare;
    set.use_graph = !no_graph;
    set.device_loop = !no_device_loop;
    set.loop_tail = !no_loop_tail;
    set.keep_graph = keep_graph;
    set.versioned_graph = !rebuild_graph;
    if (!personal.empty()) {
      opt.personalization.assign(static_cast<std::size_t>(g.rows), 0.0);
      for (auto v : personal) {
        if (v < 0 || v >= g.rows)
          throw hola::error(hola::status::invalid_argument, "--personalize: vertex out of range");
        opt.personalization[v] = 1.0;
      }
    }
    nlohmann::json j;
    j["program"] = "hola-pagerank";
    j["commit"] = hola::demo::commit_id();
    j["command"] = hola::demo::command_line(argc, argv);
    j["backend"] = backend;
    j["graph"] = hola::demo::graph_json(input, g, {{"edges", g.nnz()}, {"undirected", undirected}});
    j["damping"] = damping;
    j["tolerance"] = tol;
    j["max_iterations"] = max_iter;
    j["personalized_vertices"] = personal;

    std::vector<double> rank;
    if (backend == "cpu" || set.compare) {
      const auto t0 = std::chrono::steady_clock::now();
      const auto r = hola::spmspv::pagerank(g.view(), opt);
      const double sec =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      const double sum = std::accumulate(r.rank.begin(), r.rank.end(), 0.0);
      std::printf(
          "%s%d iterations, last L1 change %.3e, %.3f ms total (%.3f ms per iteration, setup "
          "included), sum of ranks %.12f\n",
          backend == "cpu" ? "" : "host: ", r.iterations, r.change, sec * 1e3,
          r.iterations ? sec * 1e3 / r.iterations : 0.0, sum);
      j["host"] = {{"iterations", r.iterations},
                   {"change", r.change},
                   {"ms_per_iteration", r.iterations ? sec * 1e3 / r.iterations : 0.0}};
      rank = r.rank;
    }
#if defined(HOLA_ENABLE_CUDA)
    if (backend == "gpu") {
      const bool small =
          g.rows < (std::int64_t(1) << 31) - 1 && g.nnz() < (std::int64_t(1) << 31) - 1;
      std::vector<double> gpu_rank;
      if (precision == "float")
        gpu_rank = small ? run_gpu<float, std::int32_t, std::int32_t>(g, set, j)
                         : run_gpu<float, std::int64_t, std::int64_t>(g, set, j);
      else
        gpu_rank = small ? run_gpu<double, std::int32_t, std::int32_t>(g, set, j)
                         : run_gpu<double, std::int64_t, std::int64_t>(g, set, j);
      if (set.compare) {
        const auto [max_abs, l1] = rank_difference(gpu_rank, rank);
        std::printf("gpu vs host ranks: max |difference| %.3e, L1 %.3e\n", max_abs, l1);
        j["vs_host_max_abs"] = max_abs;
        j["vs_host_l1"] = l1;
      }
      rank = std::move(gpu_rank);
    }
#endif
#if HOLA_HAVE_GRAPHBLAS
    if (use_graphblas) {
      hola::demo::graphblas::Graph grb(g.rows, g.cols, g.row_ptr.data(), g.col_idx.data(),
                                       graphblas_threads);
      const auto b = grb.pagerank(damping, tol, max_iter, opt.personalization);
      const auto [max_abs, l1] = rank_difference(b.rank, rank);
      std::printf(
          "graphblas: %d iterations, %.4f ms per iteration; ranks vs ours: max |difference| "
          "%.3e, L1 %.3e\n",
          b.iterations, b.seconds_per_iteration * 1e3, max_abs, l1);
      j["graphblas"] = {{"iterations", b.iterations},
                        {"ms_per_iteration", b.seconds_per_iteration * 1e3},
                        {"threads", graphblas_threads},
                        {"vs_ours_max_abs", max_abs},
                        {"vs_ours_l1", l1}};
    }
#endif
    std::vector<std::int64_t> order(rank.size());
    std::iota(order.begin(), order.end(), 0);
    const auto k = std::min<std::size_t>(static_cast<std::size_t>(top), order.size());
    std::partial_sort(order.begin(), order.begin() + k, order.end(),
                      [&](auto a, auto b) { return rank[a] > rank[b]; });
    nlohmann::json top_json = nlohmann::json::array();
    for (std::size_t i = 0; i < k; ++i) {
      std::printf("%3zu. vertex %lld  %.6e\n", i + 1, static_cast<long long>(order[i]),
                  rank[order[i]]);
      top_json.push_back({{"vertex", order[i]}, {"rank", rank[order[i]]}});
    }
    j["top"] = top_json;
    if (!output.empty()) {
      std::ofstream f(output);
      if (!f) throw hola::error(hola::status::io, "cannot write " + output);
      f << j.dump(2) << "\n";
    }
    return 0;
  } catch (const hola::error& e) {
    std::fprintf(stderr, "hola-pagerank: %s (%s)\n", e.what(), hola::status_name(e.code()));
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "hola-pagerank: %s\n", e.what());
    return 2;
  }
}
