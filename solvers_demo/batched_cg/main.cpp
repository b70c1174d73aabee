// hola-batched-cg: Jacobi-preconditioned CG on many small SPD systems (1D / 2D stencils of random
// sizes, random sparse SPD), with per-system convergence, verified per system by the true
// residual computed with the batched CPU reference. --backend gpu (CUDA builds) also runs the
// CPU solve and compares the solutions.
#include <omp.h>

#include <CLI/CLI.hpp>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "batched_cg.hpp"
#include "hola/batched.hpp"
#include "hola/batched_generate.hpp"
#include "hola/error.hpp"
#include "hola/gpu_kernels.hpp"

namespace {

using hola::batched_cg::Matrix;

// Per system: ||b - A x|| / ||b|| with the batched reference (wide accumulation).
std::vector<double> true_residuals(const std::vector<Matrix>& systems, const std::vector<double>& b,
                                   const std::vector<double>& x) {
  const auto data =
      hola::batched::make_batch<double, std::int64_t>(systems, hola::batched::Format::csr);
  std::vector<double> r = b;
  hola::batched::reference_apply(data.view(), -1.0, x.data(), 1.0, r.data());
  std::vector<double> out(systems.size());
  std::int64_t o = 0;
  for (std::size_t s = 0; s < systems.size(); ++s) {
    long double rr = 0, bb = 0;
    for (std::int64_t i = o; i < o + systems[s].rows; ++i) {
      rr += static_cast<long double>(r[i]) * r[i];
      bb += static_cast<long double>(b[i]) * b[i];
    }
    out[s] = bb > 0 ? static_cast<double>(std::sqrt(rr / bb)) : static_cast<double>(std::sqrt(rr));
    o += systems[s].rows;
  }
  return out;
}

// Summary of one solve, printed and added to `out`; returns the number of systems that failed
// (not converged, or true residual above check_tol).
int report(const char* name, const hola::batched_cg::SolveStats& st, const std::vector<double>& res,
           double check_tol, nlohmann::json& out) {
  int failed = 0, max_it = 0;
  double worst = 0, sum_it = 0;
  for (std::size_t s = 0; s < res.size(); ++s) {
    if (!st.converged[s] || !(res[s] <= check_tol)) ++failed;
    worst = std::max(worst, res[s]);
    max_it = std::max(max_it, st.iterations[s]);
    sum_it += st.iterations[s];
  }
  const double mean_it = res.empty() ? 0.0 : sum_it / res.size();
  std::printf(
      "%-4s %zu systems: solve %.3f s (setup %.3f s, total %.3f s), %d batched SpMV sweeps, "
      "iterations mean %.1f max %d, worst true residual %.2e, %d failed\n",
      name, res.size(), st.solve_seconds, st.setup_seconds, st.seconds, st.sweeps, mean_it, max_it,
      worst, failed);
  out[name] = {{"solve_s", st.solve_seconds},  {"setup_s", st.setup_seconds},
               {"total_s", st.seconds},        {"sweeps", st.sweeps},
               {"iterations_mean", mean_it},   {"iterations_max", max_it},
               {"worst_true_residual", worst}, {"failed", failed}};
  return failed;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"hola-batched-cg: Jacobi-preconditioned CG on many small SPD systems"};
  std::int64_t systems = 2000, min_size = 16, max_size = 1024;
  double tol = 1e-10;
  int max_iter = 5000, threads = 0, check_every = 10;
  std::uint64_t seed = 1;
  std::string backend = "cpu", format = "csr", output;
  app.add_option("--systems", systems, "number of systems")->check(CLI::Range(1, 100000000));
  app.add_option("--min-size", min_size, "smallest system")->check(CLI::Range(1, 1 << 20));
  app.add_option("--max-size", max_size, "largest system")->check(CLI::Range(1, 1 << 20));
  app.add_option("--tol", tol, "relative residual target per system")
      ->check(CLI::Range(1e-15, 1.0));
  app.add_option("--max-iter", max_iter, "iteration limit")->check(CLI::Range(1, 1000000));
  app.add_option("--threads", threads, "OpenMP threads (0: default)")->check(CLI::Range(0, 4096));
  app.add_option("--check-every", check_every, "GPU: iterations between convergence checks")
      ->check(CLI::Range(1, 100000));
  app.add_option("--seed", seed, "random seed");
  app.add_option("--backend", backend, "cpu or gpu")->check(CLI::IsMember({"cpu", "gpu"}));
  app.add_option("--format", format, "batch format")->check(CLI::IsMember({"csr", "coo", "ell"}));
  app.add_option("--output", output, "JSON results file (times, iterations, verification)");
  CLI11_PARSE(app, argc, argv);
  if (!output.empty() && !std::ofstream(output, std::ios::app)) {
    std::fprintf(stderr, "cannot write %s\n", output.c_str());
    return 2;
  }
  if (min_size > max_size) {
    std::fprintf(stderr, "--min-size must not exceed --max-size\n");
    return 2;
  }
  const hola::batched::Format fmt = format == "csr"   ? hola::batched::Format::csr
                                    : format == "coo" ? hola::batched::Format::coo
                                                      : hola::batched::Format::ell;
#if defined(HOLA_ENABLE_CUDA)
  const char* no_gpu = "no usable GPU";
#else
  const char* no_gpu = "this build has no CUDA";
#endif
  if (backend == "gpu" && !hola::gpu::gpu_available()) {
    std::fprintf(stderr, "--backend gpu: %s\n", no_gpu);
    return 2;
  }
  std::string command;
  for (int i = 0; i < argc; ++i) command += (i ? " " : "") + std::string(argv[i]);
  std::string commit = "unknown";
  if (const char* e = std::getenv("HOLA_COMMIT"); e && *e) {
    commit = e;
  } else if (FILE* p = popen("git rev-parse HEAD 2>/dev/null", "r")) {
    char buf[128] = {0};
    if (std::fgets(buf, sizeof buf, p) && buf[0])
      commit = std::string(buf, std::strcspn(buf, "\r\n"));
    pclose(p);
  }
  nlohmann::json out = {{"command", command},
                        {"commit", commit},
                        {"cpu_threads", threads > 0 ? threads : omp_get_max_threads()},
                        {"systems", systems},
                        {"min_size", min_size},
                        {"max_size", max_size},
                        {"format", format},
                        {"tol", tol},
                        {"max_iter", max_iter},
                        {"seed", seed},
                        {"backend", backend}};
  try {
    const auto ms = hola::batched_cg::make_systems(systems, min_size, max_size, seed);
    std::int64_t n = 0, nnz = 0;
    for (const auto& m : ms) {
      n += m.rows;
      nnz += m.nnz();
    }
    std::printf("%lld systems, sizes %lld..%lld, %lld unknowns, %lld nonzeros, format %s\n",
                static_cast<long long>(systems), static_cast<long long>(min_size),
                static_cast<long long>(max_size), static_cast<long long>(n),
                static_cast<long long>(nnz), format.c_str());
    std::printf("cpu: %d OpenMP threads\n", threads > 0 ? threads : omp_get_max_threads());
    out["unknowns"] = n;
    out["nonzeros"] = nnz;
    std::mt19937_64 rng(seed + 17);
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    std::vector<double> b(static_cast<std::size_t>(n));
    for (auto& e : b) e = u(rng);
    // The recursive residual drifts from the true one by a few ulps times the condition number.
    const double check_tol = std::max(100 * tol, 1e-12);

    std::vector<double> x_cpu;
    const auto st_cpu = hola::batched_cg::solve_cpu(ms, fmt, b, x_cpu, tol, max_iter, threads);
    out["check_tol"] = check_tol;
    int failed = report("cpu", st_cpu, true_residuals(ms, b, x_cpu), check_tol, out);
    if (backend == "gpu") {
#if defined(HOLA_ENABLE_CUDA)
      std::vector<double> x_gpu;
      const auto st_gpu =
          hola::batched_cg::solve_gpu(ms, fmt, b, x_gpu, tol, max_iter, check_every);
      out["device"] = hola::batched_cg::gpu_name();
      std::printf("gpu: %s, convergence checked every %d iterations\n",
                  out["device"].get<std::string>().c_str(), check_every);
      out["check_every"] = check_every;
      failed += report("gpu", st_gpu, true_residuals(ms, b, x_gpu), check_tol, out);
      double worst = 0;
      std::int64_t o = 0;
      for (const auto& m : ms) {
        double dd = 0, xx = 0;
        for (std::int64_t i = o; i < o + m.rows; ++i) {
          dd += (x_gpu[i] - x_cpu[i]) * (x_gpu[i] - x_cpu[i]);
          xx += x_cpu[i] * x_cpu[i];
        }
        worst = std::max(worst, xx > 0 ? std::sqrt(dd / xx) : std::sqrt(dd));
        o += m.rows;
      }
      std::printf("gpu vs cpu solution: worst relative difference per system %.2e\n", worst);
      const double solve_speedup = st_cpu.solve_seconds / st_gpu.solve_seconds;
      const double total_speedup = st_cpu.seconds / st_gpu.seconds;
      std::printf("speed-up gpu over cpu: solve %.2fx, total (with setup) %.2fx\n", solve_speedup,
                  total_speedup);
      out["gpu_vs_cpu_worst_relative_difference"] = worst;
      out["speedup_solve"] = solve_speedup;
      out["speedup_total"] = total_speedup;
#else
      std::fprintf(stderr, "--backend gpu: this build has no CUDA\n");
      return 2;
#endif
    }
    out["failed"] = failed;
    out["verified"] = failed == 0;
    if (!output.empty()) {
      std::ofstream f(output);
      if (!f) {
        std::fprintf(stderr, "cannot write %s\n", output.c_str());
        return 2;
      }
      f << out.dump(1) << "\n";
    }
    if (failed) {
      std::printf("FAILED: %d systems did not converge or verify\n", failed);
      return 1;
    }
    std::printf("all systems verified\n");
  } catch (const hola::error& e) {
    std::fprintf(stderr, "error (%s): %s\n", hola::status_name(e.code()), e.what());
    return 1;
  }
  return 0;
}
