// hola-bfs: direction-optimizing BFS (docs/spmspv.md) on the host SpMSpV kernels (--backend cpu)
// or on the GPU (--backend gpu). Graph500-style: a Kronecker graph (undirected) or a Matrix
// Market file, BFS from several random roots with an edge, each result checked with the
// Graph500 parent rules, TEPS per root and their harmonic mean. In the same run: BFS as one dense
// cuSPARSE SpMV per level (--baseline cusparse, GPU) and SuiteSparse:GraphBLAS (--graphblas, when
// built with it), on the same roots. --output FILE writes the results as JSON.
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <optional>
#include <random>
#include <vector>

#include "../run_info.hpp"
#include "graph_input.hpp"
#include "hola/error.hpp"
#include "hola/gpu_kernels.hpp"
#include "hola/spmspv_graph.hpp"
#include "hola/validate.hpp"
#if defined(HOLA_ENABLE_CUDA)
#include "hola/graph_gpu.hpp"
#endif
#if HOLA_HAVE_GRAPHBLAS
#include "graphblas_baseline.hpp"
#endif

namespace {

// Harmonic mean of TEPS values (Graph500's mean); 0 when empty or any is 0.
struct Harmonic {
  double inv_sum = 0;
  int count = 0;
  bool zero = false;
  void add(double teps) {
    ++count;
    if (teps > 0)
      inv_sum += 1 / teps;
    else
      zero = true;
  }
  double mean() const { return count > 0 && !zero && inv_sum > 0 ? count / inv_sum : 0; }
};

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Hola BFS: direction-optimizing breadth-first search (host SpMSpV or GPU)"};
  hola::demo::GraphInput input;
  std::string direction = "auto", backend = "cpu", baseline = "none", output;
  int roots = 16;
  std::uint64_t seed = 1;
  bool directed = false, no_validate = false, use_graphblas = false, no_device_loop = false;
  int graphblas_threads = 0;
  double alpha = 15.0, beta = 18.0;
  int host_levels = -1;
  hola::demo::add_graph_options(app, input);
  app.add_option("-r,--roots", roots, "number of BFS roots")->check(CLI::Range(1, 1 << 20));
  app.add_option("-d,--direction", direction, "auto, push or pull")
      ->check(CLI::IsMember({"auto", "push", "pull"}));
  app.add_option("-s,--seed", seed, "seed of the graph and of the roots");
  app.add_flag("--directed", directed, "keep the graph directed (default: A + A^T)");
  app.add_flag("--no-validate", no_validate, "skip the Graph500 parent check");
  app.add_option("-b,--backend", backend, "cpu (host SpMSpV) or gpu")
      ->check(CLI::IsMember({"cpu", "gpu"}));
  app.add_option("--baseline", baseline, "GPU baseline in the same run: none or cusparse")
      ->check(CLI::IsMember({"none", "cusparse"}));
  app.add_flag("--no-device-loop", no_device_loop,
               "GPU: the host reads each level's counts and launches the next level (default: the "
               "whole search as one CUDA graph that the device drives)");
  app.add_option("--host-levels", host_levels,
                 "GPU: levels driven by the host before the device loop (-1: 0 up to 2^20 edges, "
                 "else 8)")
      ->check(CLI::Range(-1, 1 << 30));
  app.add_option("--alpha", alpha,
                 "GPU: push -> pull when frontier edges > unvisited edges / alpha")
      ->check(CLI::PositiveNumber);
  app.add_option("--beta", beta, "GPU: pull -> push when the frontier < vertices / beta")
      ->check(CLI::PositiveNumber);
  app.add_flag("--graphblas", use_graphblas,
               "also time SuiteSparse:GraphBLAS on the same roots (builds with GraphBLAS)");
  app.add_option("--graphblas-threads", graphblas_threads,
                 "OpenMP threads of GraphBLAS (0: its default, all cores)");
  app.add_option("-o,--output", output, "write the results as JSON to this file");
  CLI11_PARSE(app, argc, argv);

  try {
#if !defined(HOLA_ENABLE_CUDA)
    if (backend == "gpu" || baseline != "none")
      throw hola::error(hola::status::no_device,
                        "--backend gpu / --baseline: this build has no CUDA support");
#endif
#if !HOLA_HAVE_GRAPHBLAS
    if (use_graphblas)
      throw hola::error(hola::status::unsupported,
                        "--graphblas: this build has no SuiteSparse:GraphBLAS");
#endif
    if (backend == "gpu" && !hola::gpu::gpu_available())
      throw hola::error(hola::status::no_device, "--backend gpu: no usable CUDA device");
    if (baseline != "none" && backend != "gpu")
      throw hola::error(hola::status::invalid_argument, "--baseline cusparse needs --backend gpu");
    using clock = std::chrono::steady_clock;
    const auto g = hola::demo::load_graph(input, seed, !directed);
    const auto A = g.view();
    std::printf("graph: %lld vertices, %lld stored edges (%s)\n", static_cast<long long>(g.rows),
                static_cast<long long>(g.nnz()), directed ? "directed" : "undirected");
    hola::validate_csr(A);  // once; not inside the timed searches

    // Roots: random vertices with an edge (Graph500), the same for every backend.
    std::vector<std::int64_t> root_list;
    std::mt19937_64 rng(seed + 12345);
    for (int attempt = 0;
         static_cast<int>(root_list.size()) < roots && attempt < 100 * roots && g.rows > 0;
         ++attempt) {
      const std::int64_t root =
          static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(g.rows));
      if (g.row_ptr[root + 1] == g.row_ptr[root]) continue;
      root_list.push_back(root);
    }
    // Graph500 counts undirected edges once: stored entries / 2 when symmetrized.
    auto teps_of = [&](std::int64_t edges, double sec) {
      const double e = directed ? double(edges) : double(edges) / 2;
      return sec > 0 ? e / sec : 0.0;
    };

    nlohmann::json runs = nlohmann::json::array();
    Harmonic main_mean, cusparse_mean, graphblas_mean;
    int failed = 0;

#if defined(HOLA_ENABLE_CUDA)
    std::optional<hola::graph::gpu::Bfs> gpu_bfs;
    std::optional<hola::graph::gpu::DenseSpmvBfs> dense_bfs;
    const auto gpu_direction = direction == "push"   ? hola::graph::gpu::Direction::push
                               : direction == "pull" ? hola::graph::gpu::Direction::pull
                                                     : hola::graph::gpu::Direction::automatic;
    if (backend == "gpu") {
      hola::graph::gpu::BfsOptions gopt;
      gopt.direction = gpu_direction;
      gopt.symmetric = !directed;
      gopt.alpha = alpha;
      gopt.beta = beta;
      gopt.device_loop = !no_device_loop;
      gopt.host_levels = host_levels;
      gpu_bfs.emplace();
      gpu_bfs->setup(A, gopt);
      if (!root_list.empty()) gpu_bfs->search(root_list[0]);  // warm-up (module load, caches)
      std::printf("gpu: %s, %s indices, %.1f MiB on the device\n", hola::gpu::device_name().c_str(),
                  gpu_bfs->index32() ? "32-bit" : "64-bit", gpu_bfs->device_bytes() / 1048576.0);
      if (baseline == "cusparse") {
        dense_bfs.emplace();
        dense_bfs->setup(A, !directed);
        if (!root_list.empty()) dense_bfs->search(root_list[0]);  // warm-up
      }
    }
#endif
#if HOLA_HAVE_GRAPHBLAS
    std::optional<hola::demo::graphblas::Graph> grb;
    if (use_graphblas)
      grb.emplace(g.rows, g.cols, g.row_ptr.data(), g.col_idx.data(), graphblas_threads);
#endif

    hola::spmspv::BfsOptions opt;
    opt.direction = direction == "push"   ? hola::spmspv::BfsDirection::push
                    : direction == "pull" ? hola::spmspv::BfsDirection::pull
                                          : hola::spmspv::BfsDirection::automatic;
    opt.symmetric = !directed;
    opt.validate = false;
#if defined(HOLA_ENABLE_CUDA)
    // The GPU searches are timed back to back first: the checks and the baselines between two
    // searches (GraphBLAS on every core) slowed the next search by up to 20 %.
    std::vector<double> gpu_seconds;
    if (backend == "gpu")
      for (const std::int64_t root : root_list) {
        const auto t0 = clock::now();
        gpu_bfs->search(root);  // returns synchronized
        gpu_seconds.push_back(std::chrono::duration<double>(clock::now() - t0).count());
      }
#endif
    std::size_t root_index = 0;
    for (const std::int64_t root : root_list) {
      nlohmann::json run;
      run["root"] = root;
      std::vector<std::int64_t> parent, level;
      std::int64_t reached = 0, edges = 0;
      int depth = 0;
      std::string steps;
      double sec = 0;
      if (backend == "cpu") {
        const auto t0 = clock::now();
        auto r = hola::spmspv::bfs(A, root, opt);
        sec = std::chrono::duration<double>(clock::now() - t0).count();
        reached = r.reached;
        edges = r.edges;
        depth = r.depth;
        for (auto s : r.steps) steps += s == hola::spmspv::Algorithm::vector_driven ? 'P' : 'B';
        parent = std::move(r.parent);
      }
#if defined(HOLA_ENABLE_CUDA)
      else {
        const auto s = gpu_bfs->search(root);  // again, for its result; timed above
        sec = gpu_seconds[root_index];
        reached = s.reached;
        edges = s.edges;
        depth = s.depth;
        steps = s.directions;
        run["device_loop"] = s.device_loop;
        run["device_levels"] = s.device_levels;
        gpu_bfs->download(&parent, &level);  // outside the timed search
      }
#endif
      const double teps = teps_of(edges, sec);
      main_mean.add(teps);
      std::string check = "not checked";
      if (!no_validate) {
        check = hola::spmspv::check_bfs_parents(A, root, parent);
        if (!check.empty()) ++failed;
        if (check.empty()) check = "valid";
      }
      int push = 0;
      for (char c : steps) push += c == 'P';
      std::printf(
          "root %lld: reached %lld, depth %d, %d push + %d pull levels (%s), %.3f ms, %.4g "
          "GTEPS, %s\n",
          static_cast<long long>(root), static_cast<long long>(reached), depth, push,
          static_cast<int>(steps.size()) - push, steps.c_str(), sec * 1e3, teps / 1e9,
          check.c_str());
      run["reached"] = reached;
      run["edges"] = edges;
      run["depth"] = depth;
      run["directions"] = steps;
      run["ms"] = sec * 1e3;
      run["gteps"] = teps / 1e9;
      run["validation"] = check;
#if defined(HOLA_ENABLE_CUDA)
      if (dense_bfs) {
        const auto t0 = clock::now();
        const auto s = dense_bfs->search(root);
        const double dsec = std::chrono::duration<double>(clock::now() - t0).count();
        std::vector<std::int64_t> dense_level;
        dense_bfs->download_levels(&dense_level);
        // Levels are unique: the baseline must agree with the GPU BFS exactly.
        std::string agree = "levels equal";
        if (dense_level != level) {
          agree = "LEVELS DIFFER";
          ++failed;
        }
        const double dteps = teps_of(s.edges, dsec);
        cusparse_mean.add(dteps);
        std::printf("  cusparse dense SpMV per level: %d levels, %.3f ms, %.4g GTEPS, %s\n",
                    s.depth, dsec * 1e3, dteps / 1e9, agree.c_str());
        run["cusparse"] = {
            {"ms", dsec * 1e3}, {"gteps", dteps / 1e9}, {"depth", s.depth}, {"check", agree}};
      }
#endif
#if HOLA_HAVE_GRAPHBLAS
      if (grb) {
        auto b = grb->bfs_parents(root);
        const double gteps = teps_of(edges, b.seconds);
        graphblas_mean.add(gteps);
        std::string gcheck =
            no_validate ? "not checked" : hola::spmspv::check_bfs_parents(A, root, b.parent);
        if (!no_validate && !gcheck.empty()) ++failed;
        if (!no_validate && gcheck.empty()) gcheck = "valid";
        std::printf("  graphblas: %.3f ms, %.4g GTEPS, %s\n", b.seconds * 1e3, gteps / 1e9,
                    gcheck.c_str());
        run["graphblas"] = {
            {"ms", b.seconds * 1e3}, {"gteps", gteps / 1e9}, {"validation", gcheck}};
      }
#endif
      runs.push_back(run);
      ++root_index;
    }
    const int done = static_cast<int>(root_list.size());
    if (done > 0) {
      std::printf("harmonic mean over %d roots: %.4g GTEPS (%s)\n", done, main_mean.mean() / 1e9,
                  backend.c_str());
      if (cusparse_mean.count)
        std::printf("harmonic mean cusparse dense SpMV per level: %.4g GTEPS (speedup %.1fx)\n",
                    cusparse_mean.mean() / 1e9,
                    cusparse_mean.mean() > 0 ? main_mean.mean() / cusparse_mean.mean() : 0.0);
      if (graphblas_mean.count)
        std::printf("harmonic mean graphblas: %.4g GTEPS (speedup %.1fx)\n",
                    graphblas_mean.mean() / 1e9,
                    graphblas_mean.mean() > 0 ? main_mean.mean() / graphblas_mean.mean() : 0.0);
    }
    if (!output.empty()) {
      nlohmann::json j;
      j["program"] = "hola-bfs";
      j["commit"] = hola::demo::commit_id();
      j["command"] = hola::demo::command_line(argc, argv);
      j["backend"] = backend;
#if defined(HOLA_ENABLE_CUDA)
      j["gpu"] = backend == "gpu" ? hola::gpu::device_name() : "";
#else
      j["gpu"] = "";
#endif
      j["graph"] =
          hola::demo::graph_json(input, g, {{"stored_edges", g.nnz()}, {"directed", directed}});
      j["direction"] = direction;
      j["alpha"] = alpha;
      j["beta"] = beta;
      j["roots"] = runs;
      j["harmonic_mean_gteps"] = main_mean.mean() / 1e9;
      if (cusparse_mean.count) j["cusparse_harmonic_mean_gteps"] = cusparse_mean.mean() / 1e9;
      if (graphblas_mean.count) {
        j["graphblas_harmonic_mean_gteps"] = graphblas_mean.mean() / 1e9;
        j["graphblas_threads"] = graphblas_threads;
      }
      j["failed"] = failed;
      std::ofstream f(output);
      if (!f) throw hola::error(hola::status::io, "cannot write " + output);
      f << j.dump(2) << "\n";
    }
    if (failed > 0) {
      std::printf("%d checks FAILED\n", failed);
      return 1;
    }
    return done > 0 ? 0 : 1;
  } catch (const hola::error& e) {
    std::fprintf(stderr, "hola-bfs: %s (%s)\n", e.what(), hola::status_name(e.code()));
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "hola-bfs: %s\n", e.what());
    return 2;
  }
}
