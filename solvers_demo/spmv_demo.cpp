// hola-spmv-demo: builds a 3D Poisson matrix (or reads a Matrix Market file), runs y = A x or
// y = A^T x through hola::Operator on host memory (the CPU kernels; no GPU needed), checks the
// result against the reference and reports time and bandwidth; --output writes them as JSON.
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "hola/error.hpp"
#include "hola/generators.hpp"
#include "hola/matrix_market.hpp"
#include "hola/operator.hpp"
#include "hola/reference.hpp"
#include "run_info.hpp"

namespace {

using Clock = std::chrono::steady_clock;

struct Settings {
  int n = 100;
  int reps = 20;
  std::string matrix, kernel = "auto", op = "N", precision = "double", output;
};

template <class V>
int run(const Settings& s, const hola::gen::Csr64& A64, const std::string& name, double t_build,
        const std::string& command) {
  const auto A = A64.convert<V, std::int32_t, std::int32_t>();
  const hola::Op op_value = s.op == "T" ? hola::Op::T : hola::Op::N;
  const std::int64_t x_len = op_value == hola::Op::N ? A.cols : A.rows;
  const std::int64_t y_len = op_value == hola::Op::N ? A.rows : A.cols;
  std::printf("matrix: %s, %lld x %lld, %lld nonzeros (built in %.2f s); %s, op %s\n", name.c_str(),
              static_cast<long long>(A.rows), static_cast<long long>(A.cols),
              static_cast<long long>(A.nnz()), t_build, s.precision.c_str(), s.op.c_str());

  hola::OperatorOptions options;
  options.kernel = s.kernel;
  hola::Operator<V, std::int32_t, std::int32_t> op(options);
  op.setup(A.view());
  const std::string kernel = op.kernel_name(op_value);
  std::printf("kernel: %s (%s)\n", kernel.c_str(), op.selection_reason().c_str());

  std::mt19937_64 rng(42);
  std::uniform_real_distribution<double> dist(-1.0, 1.0);
  std::vector<V> x(x_len), y(y_len, V(std::nan(""))), ref(y_len);
  for (auto& v : x) v = static_cast<V>(dist(rng));

  // Host memory: every apply runs on the CPU and returns when y is written.
  std::vector<double> times;
  for (int r = 0; r < s.reps; ++r) {
    const auto t0 = Clock::now();
    op.apply(op_value, V(1), {x.data(), x_len}, V(0), {y.data(), y_len});
    times.push_back(std::chrono::duration<double>(Clock::now() - t0).count());
  }
  std::sort(times.begin(), times.end());
  const double t = times[times.size() / 2];
  const double bytes =
      A.nnz() * double(sizeof(V) + 4) + (A.rows + 1) * 4.0 + double(A.rows + A.cols) * sizeof(V);

  hola::reference::spmv(op_value, V(1), A.view(), x.data(), V(0), static_cast<const V*>(nullptr),
                        ref.data());
  std::string report;
  const std::int64_t wrong = hola::reference::count_mismatches(op_value, V(1), A.view(), x.data(),
                                                               V(0), static_cast<const V*>(nullptr),
                                                               ref.data(), y.data(), &report);
  const bool ok = wrong == 0;
  std::printf("y = %s x: median %.3f ms over %d runs, %.1f GB/s; %s\n",
              op_value == hola::Op::N ? "A" : "A^T", t * 1e3, s.reps, bytes / t / 1e9,
              ok ? "CORRECT (within the reference's rounding bound)"
                 : ("WRONG: " + std::to_string(wrong) + " outputs, " + report).c_str());

  if (!s.output.empty()) {
    const nlohmann::json j = {{"commit", hola::demo::commit_id()},
                              {"device", "host (CPU kernels)"},
                              {"command", command},
                              {"matrix", name},
                              {"rows", A.rows},
                              {"cols", A.cols},
                              {"nnz", A.nnz()},
                              {"precision", s.precision},
                              {"op", s.op},
                              {"kernel_option", s.kernel},
                              {"kernel", kernel},
                              {"selection_reason", op.selection_reason()},
                              {"reps", s.reps},
                              {"median_ms", t * 1e3},
                              {"gb_per_s", bytes / t / 1e9},
                              {"wrong_outputs", wrong},
                              {"correct", ok}};
    std::ofstream f(s.output);
    if (!(f << j.dump(2) << '\n')) {
      std::fprintf(stderr, "hola-spmv-demo: cannot write '%s'\n", s.output.c_str());
      return 1;
    }
    std::printf("results written to %s\n", s.output.c_str());
  }
  return ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "hola-spmv-demo: y = A x (or A^T x) on a 3D Poisson matrix or a Matrix Market file, on the "
      "CPU, with a correctness check"};
  Settings s;
  app.add_option("-n", s.n, "grid points per dimension of the 3D 7-point Poisson matrix")
      ->check(CLI::Range(1, 2000));
  app.add_option("-m,--matrix,--mtx", s.matrix, "use this Matrix Market file instead")
      ->check(CLI::ExistingFile);
  app.add_option("-k,--kernel", s.kernel, "kernel name (auto, cpu, ...)");
  app.add_option("--op", s.op, "N (y = A x) or T (y = A^T x)")->check(CLI::IsMember({"N", "T"}));
  app.add_option("-p,--precision", s.precision, "double or float")
      ->check(CLI::IsMember({"double", "float"}));
  app.add_option("-r,--reps", s.reps, "repetitions (median reported)")
      ->check(CLI::Range(1, 100000));
  app.add_option("-o,--output", s.output, "write the results to this JSON file");
  CLI11_PARSE(app, argc, argv);

  try {
    const auto t0 = Clock::now();
    const hola::gen::Csr64 A64 =
        s.matrix.empty() ? hola::gen::poisson3d(s.n, s.n, s.n)
                         : hola::read_matrix_market<double, std::int64_t, std::int64_t>(s.matrix);
    const double t_build = std::chrono::duration<double>(Clock::now() - t0).count();
    const std::string name =
        s.matrix.empty() ? "3D Poisson " + std::to_string(s.n) + "^3" : s.matrix;
    const std::string command = hola::demo::command_line(argc, argv);
    return s.precision == "float" ? run<float>(s, A64, name, t_build, command)
                                  : run<double>(s, A64, name, t_build, command);
  } catch (const hola::error& e) {
    std::fprintf(stderr, "hola-spmv-demo: %s\n", e.what());
    return 1;
  }
}
