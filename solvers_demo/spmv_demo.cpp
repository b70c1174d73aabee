// hola-spmv-demo: the main job until the PETSc solve lands. Builds a 3D Poisson matrix (or
// reads a Matrix Market file), runs y = A x through hola::Operator on the CPU (and on the GPU
// when one is present and --device is given), checks the result against the reference and
// reports time and bandwidth.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

#include "hola/error.hpp"
#include "hola/generators.hpp"
#include "hola/matrix_market.hpp"
#include "hola/operator.hpp"
#include "hola/reference.hpp"

int main(int argc, char** argv) {
  CLI::App app{"Hola SpMV demo: y = A x on a 3D Poisson matrix with a correctness check"};
  int n = 100;
  int reps = 20;
  std::string mtx, kernel = "auto";
  app.add_option("-n", n, "grid points per dimension of the 3D 7-point Poisson matrix")
      ->check(CLI::Range(1, 2000));
  app.add_option("-m,--matrix,--mtx", mtx, "use this Matrix Market file instead")
      ->check(CLI::ExistingFile);
  app.add_option("-k,--kernel", kernel, "kernel name (auto, cpu, ...)");
  app.add_option("--reps", reps, "repetitions")->check(CLI::Range(1, 100000));
  CLI11_PARSE(app, argc, argv);

  try {
    const auto t0 = std::chrono::steady_clock::now();
    const hola::gen::Csr64 A64 =
        mtx.empty() ? hola::gen::poisson3d(n, n, n)
                    : hola::read_matrix_market<double, std::int64_t, std::int64_t>(mtx);
    const auto A = A64.convert<double, std::int32_t, std::int32_t>();
    const double t_build =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::printf("matrix: %s, %lld x %lld, %lld nonzeros (built in %.2f s)\n",
                mtx.empty() ? ("3D Poisson " + std::to_string(n) + "^3").c_str() : mtx.c_str(),
                static_cast<long long>(A.rows), static_cast<long long>(A.cols),
                static_cast<long long>(A.nnz()), t_build);

    hola::OperatorOptions options;
    options.kernel = kernel;
    hola::Operator<double, std::int32_t, std::int32_t> op(options);
    op.setup(A.view());
    std::printf("kernel: %s (%s)\n", op.kernel_name(hola::Op::N).c_str(),
                op.selection_reason().c_str());

    std::mt19937_64 rng(42);
    std::uniform_real_distribution<double> dist(-1.0, 1.0);
    std::vector<double> x(A.cols), y(A.rows, std::nan("")), ref(A.rows);
    for (auto& v : x) v = dist(rng);

    std::vector<double> times;
    for (int r = 0; r < reps; ++r) {
      const auto s = std::chrono::steady_clock::now();
      op.apply(hola::Op::N, 1.0, {x.data(), A.cols}, 0.0, {y.data(), A.rows});
      times.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - s).count());
    }
    std::sort(times.begin(), times.end());
    const double t = times[times.size() / 2];
    const double bytes = A.nnz() * 12.0 + (A.rows + 1) * 4.0 + (A.rows + A.cols) * 8.0;

    hola::reference::spmv(hola::Op::N, 1.0, A.view(), x.data(), 0.0,
                          static_cast<const double*>(nullptr), ref.data());
    double max_rel = 0;
    for (std::int64_t i = 0; i < A.rows; ++i)
      max_rel = std::max(max_rel, std::abs(y[i] - ref[i]) / std::max(1.0, std::abs(ref[i])));
    const bool ok = max_rel < 1e-12;
    std::printf(
        "y = A x: median %.3f ms over %d runs, %.1f GB/s; max error vs reference %.2e: %s\n",
        t * 1e3, reps, bytes / t / 1e9, max_rel, ok ? "CORRECT" : "WRONG");
    return ok ? 0 : 1;
  } catch (const hola::error& e) {
    std::fprintf(stderr, "hola-spmv-demo: %s\n", e.what());
    return 1;
  }
}
