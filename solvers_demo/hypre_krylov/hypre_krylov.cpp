// hypre_krylov: HYPRE's PCG / GMRES / FlexGMRES / BiCGSTAB (with BoomerAMG by default) on a 3D
// Poisson problem (-n, rows split evenly over the ranks) or a Matrix Market file (--matrix), once
// with HYPRE's own matvec and once with Hola's, reporting iterations and setup / solve times.
// With a HYPRE built for GPUs the matrix and vectors are moved to device memory after assembly
// (hypre_memory.hpp), so both matvecs run on the GPU; without a usable GPU it exits with 77.
//
//   mpiexec -n 4 hypre_krylov -n 48 --solver all
//   mpiexec -n 2 hypre_krylov --matrix matrix.mtx --solver gmres --precond none
//   hypre_krylov -n 100 --repeat 3 --output results.json
#include <HYPRE.h>
#include <HYPRE_parcsr_ls.h>
#include <mpi.h>
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "grid_problems.hpp"
#include "hola/hypre.h"
#include "hypre_krylov/hypre_memory.hpp"
#include "hypre_krylov/krylov_api.hpp"
#include "run_info.hpp"

namespace {

struct Options {
  long long n = 32;
  std::string mtx;
  std::string solver = "all";
  std::string precond = "amg";
  std::string mode = "compare";
  std::string kernel = "auto";
  bool deterministic = false;
  double tol = 1e-8;
  int max_iter = 1000;
  int kdim = 30;
  int repeat = 1;
  std::string json;
};

// The assembled matrix (hypre_memory.hpp) and what it is.
struct Problem : hola::demo::IjMatrix {
  std::string name;
};

int rank = 0, nranks = 1;

double max_over_ranks(double v) {
  double m = 0;
  MPI_Allreduce(&v, &m, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return m;
}

// Rows of this rank: an even split of `rows`.
// Builds the matrix through HYPRE's IJ interface, each rank setting its own rows from host arrays
// in one call (then moved to device memory with a GPU HYPRE).
Problem build(const Options& o) {
  Problem p;
  if (o.mtx.empty()) {
    const HYPRE_BigInt n = static_cast<HYPRE_BigInt>(o.n);
    static_cast<hola::demo::IjMatrix&>(p) = hola::demo::assemble_ij_matrix(
        n * n * n, [&](HYPRE_BigInt r, auto&& add) { hola::grid::poisson3d_row(n, r, add); });
    p.name = "3D Poisson " + std::to_string(o.n) + "^3";
  } else {
    static_cast<hola::demo::IjMatrix&>(p) = hola::demo::read_ij_matrix(o.mtx);
    p.name = o.mtx;
  }
  return p;
}

struct Vector {
  HYPRE_IJVector ij = nullptr;
  HYPRE_ParVector v = nullptr;
};

Vector make_vector(const Problem& p, double value) {
  Vector x;
  HYPRE_IJVectorCreate(MPI_COMM_WORLD, p.lo, p.hi, &x.ij);
  HYPRE_IJVectorSetObjectType(x.ij, HYPRE_PARCSR);
  hola::demo::ij_initialize(x.ij);
  std::vector<HYPRE_BigInt> idx;
  for (HYPRE_BigInt i = p.lo; i <= p.hi; ++i) idx.push_back(i);
  std::vector<double> vals(idx.size(), value);
  if (!idx.empty())
    HYPRE_IJVectorSetValues(x.ij, static_cast<HYPRE_Int>(idx.size()), idx.data(), vals.data());
  hola::demo::ij_assemble(x.ij);
  HYPRE_IJVectorGetObject(x.ij, reinterpret_cast<void**>(&x.v));
  return x;
}

struct Run {
  HYPRE_Int iterations = 0;
  double residual = 0, setup = 0, solve = 0;
  HYPRE_Int error = 0;
  long long products = 0, fallbacks = 0;
  std::string kernel;
};

// One solve with a fresh solver (and preconditioner); Hola's matvec when `hola`.
Run solve(const Problem& p, const Options& o, HolaHypreSolverKind kind, bool hola) {
  Vector b = make_vector(p, 1.0), x = make_vector(p, 0.0);
  HYPRE_Solver s = nullptr, amg = nullptr;
  if (o.precond == "amg") {
    HYPRE_BoomerAMGCreate(&amg);
    HYPRE_BoomerAMGSetPrintLevel(amg, 0);
    HYPRE_BoomerAMGSetMaxIter(amg, 1);
    HYPRE_BoomerAMGSetTol(amg, 0.0);
  }
  Run r;
  const hola::demo::KrylovApi api = hola::demo::krylov_api(kind);
  api.create(MPI_COMM_WORLD, &s);
  if (api.set_kdim) api.set_kdim(s, o.kdim);
  api.set_tol(s, o.tol);
  api.set_max_iter(s, o.max_iter);
  if (kind == HOLA_HYPRE_PCG) HYPRE_PCGSetTwoNorm(s, 1);
  if (amg) api.set_precond(s, HYPRE_BoomerAMGSolve, HYPRE_BoomerAMGSetup, amg);
  if (hola) {
    r.error = HolaHypreEnableWithOptions(s, kind, o.kernel.c_str(), o.deterministic ? 1 : 0);
    if (r.error && rank == 0) std::fprintf(stderr, "%s\n", HolaHypreLastError());
  }

  // Setup and Solve end with results on the host (norms), so with a GPU HYPRE the times include
  // the device work.
  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = MPI_Wtime();
  r.error |= api.setup(s, p.A, b.v, x.v);
  r.setup = max_over_ranks(MPI_Wtime() - t0);
  MPI_Barrier(MPI_COMM_WORLD);
  t0 = MPI_Wtime();
  r.error |= api.solve(s, p.A, b.v, x.v);
  api.iterations(s, &r.iterations);
  api.residual(s, &r.residual);
  r.solve = max_over_ranks(MPI_Wtime() - t0);

  HolaHypreMatvec mv = nullptr;
  if (hola && HolaHypreGetMatvec(s, kind, &mv) == 0 && mv) {
    const char* name = "";
    HolaHypreMatvecGetStats(mv, &r.products, &r.fallbacks, nullptr);
    HolaHypreMatvecGetKernelName(mv, &name);
    r.kernel = name;
  }
  api.destroy(s);
  if (amg) HYPRE_BoomerAMGDestroy(amg);
  HYPRE_IJVectorDestroy(b.ij);
  HYPRE_IJVectorDestroy(x.ij);
  HYPRE_ClearAllErrors();
  return r;
}

// The repetitions of one solve: the first run's iterations, residual, counters and error; the
// fastest setup and solve; every solve time.
struct Runs {
  Run best;
  std::vector<double> solves;
  bool iterations_vary = false;

  void add(const Run& r) {
    if (solves.empty()) {
      best = r;
    } else {
      best.setup = std::min(best.setup, r.setup);
      best.solve = std::min(best.solve, r.solve);
      best.error |= r.error;
      iterations_vary |= r.iterations != best.iterations;
    }
    solves.push_back(r.solve);
  }
  bool empty() const { return solves.empty(); }
};

void report(const char* label, const Runs& runs, int repeat) {
  if (rank != 0) return;
  const Run& r = runs.best;
  std::printf("  %-6s: %4d iterations, rel. residual %.2e, setup %.4f s, solve %.4f s", label,
              static_cast<int>(r.iterations), r.residual, r.setup, r.solve);
  if (repeat > 1) std::printf(" (best of %d)", repeat);
  if (!r.kernel.empty() || r.products)
    std::printf(" (Hola kernel %s, %lld products, %lld fallbacks)",
                r.kernel.empty() ? "-" : r.kernel.c_str(), r.products, r.fallbacks);
  if (r.error & HYPRE_ERROR_CONV) std::printf(" [not converged]");
  if (r.error & ~HYPRE_ERROR_CONV) std::printf(" [HYPRE error code %d]", static_cast<int>(r.error));
  if (runs.iterations_vary) std::printf(" [iterations vary between repetitions]");
  std::printf("\n");
}

// ---- JSON (rank 0) ----

std::string json_string(const std::string& s) {
  std::string out = "\"";
  for (const char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof(buf), "\\u%04x", static_cast<unsigned>(c));
      out += buf;
    } else {
      out += c;
    }
  }
  return out + "\"";
}

std::string json_number(double v) {
  if (!std::isfinite(v)) return "null";
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.6g", v);
  return buf;
}

std::string json_run(const Runs& runs, bool hola) {
  const Run& r = runs.best;
  std::string s = "{\"iterations\": " + std::to_string(static_cast<long long>(r.iterations)) +
                  ", \"relative_residual\": " + json_number(r.residual) +
                  ", \"converged\": " + ((r.error & HYPRE_ERROR_CONV) ? "false" : "true") +
                  ", \"hypre_error\": " + std::to_string(static_cast<long long>(r.error)) +
                  ", \"setup_s\": " + json_number(r.setup) +
                  ", \"solve_s\": " + json_number(r.solve) + ", \"solve_s_each\": [";
  for (std::size_t i = 0; i < runs.solves.size(); ++i)
    s += (i ? ", " : "") + json_number(runs.solves[i]);
  s += "]";
  if (hola)
    s += ", \"kernel\": " + json_string(r.kernel) +
         ", \"hola_products\": " + std::to_string(r.products) +
         ", \"hola_fallbacks\": " + std::to_string(r.fallbacks);
  return s + "}";
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);

  Options o;
  CLI::App app{"HYPRE Krylov solvers with HYPRE's matvec and with Hola's"};
  app.add_option("-n", o.n, "grid points per dimension of the 3D 7-point Poisson problem")
      ->check(CLI::Range(2LL, 2000LL));
  app.add_option("-m,--matrix,--mtx", o.mtx,
                 "solve with this Matrix Market matrix instead (square)")
      ->check(CLI::ExistingFile);
  app.add_option("--solver", o.solver, "pcg, gmres, fgmres, bicgstab or all")
      ->check(CLI::IsMember({"pcg", "gmres", "fgmres", "bicgstab", "all"}));
  app.add_option("--precond", o.precond, "amg (BoomerAMG, one V-cycle) or none")
      ->check(CLI::IsMember({"amg", "none"}));
  app.add_option("--mode", o.mode, "compare (native, then Hola), hola or native")
      ->check(CLI::IsMember({"compare", "hola", "native"}));
  app.add_option("-k,--kernel", o.kernel, "Hola kernel (auto: chosen per matrix)");
  app.add_flag("--deterministic", o.deterministic, "bitwise reproducible products");
  app.add_option("--tol", o.tol, "relative residual tolerance")->check(CLI::PositiveNumber);
  app.add_option("--max-iter,--max-iters", o.max_iter, "iteration limit")
      ->check(CLI::Range(1, 1000000));
  app.add_option("--kdim", o.kdim, "GMRES / FlexGMRES restart length")->check(CLI::Range(1, 10000));
  app.add_option("--repeat", o.repeat,
                 "solves per solver and matvec (native and Hola alternate); the fastest is "
                 "reported")
      ->check(CLI::Range(1, 100));
  app.add_option("-o,--output,--json", o.json, "also write the results to this JSON file (rank 0)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = rank == 0 ? app.exit(e) : e.get_exit_code();
    MPI_Finalize();
    return code;
  }

  // A GPU HYPRE initialises the device in HYPRE_Init: without one, report and stop (77, ctest's
  // skip code) before that.
  if (!hola::demo::hypre_ranks_ready(MPI_COMM_WORLD, hola::demo::hypre_device_missing())) {
    MPI_Finalize();
    return 77;
  }

  HYPRE_Init();  // HYPRE_Initialize from HYPRE 2.29 on (HYPRE_Init is its old name)
  hola::demo::hypre_use_memory();
  int status = 0;
  try {
    Problem p = build(o);
    if (rank == 0)
      std::printf(
          "%s: %lld rows, %lld nonzeros, %d rank(s), preconditioner %s, HYPRE %s, %s memory\n",
          p.name.c_str(), static_cast<long long>(p.rows), p.nnz, nranks,
          o.precond == "amg" ? "BoomerAMG" : "none", HYPRE_RELEASE_VERSION,
          hola::demo::hypre_memory_name());
    const struct {
      const char* option;
      const char* name;
      HolaHypreSolverKind kind;
    } solvers[] = {{"pcg", "PCG", HOLA_HYPRE_PCG},
                   {"gmres", "GMRES", HOLA_HYPRE_GMRES},
                   {"fgmres", "FlexGMRES", HOLA_HYPRE_FLEXGMRES},
                   {"bicgstab", "BiCGSTAB", HOLA_HYPRE_BICGSTAB}};
    std::string json_solves;
    for (const auto& sv : solvers) {
      if (o.solver != "all" && o.solver != sv.option) continue;
      if (rank == 0) std::printf("%s\n", sv.name);
      Runs native, hola;
      for (int k = 0; k < o.repeat; ++k) {
        if (o.mode != "hola") native.add(solve(p, o, sv.kind, false));
        if (o.mode != "native") hola.add(solve(p, o, sv.kind, true));
      }
      if (!native.empty()) report("native", native, o.repeat);
      if (!hola.empty()) report("hola", hola, o.repeat);
      if ((native.best.error | hola.best.error) & ~HYPRE_ERROR_CONV) status = 1;
      // Hola's matvec must have done the products, on the blocks' own memory (no fallback).
      const bool hola_used = hola.empty() || (hola.best.products > 0 && hola.best.fallbacks == 0);
      if (!hola_used) {
        status = 1;
        if (rank == 0)
          std::printf("  Hola's matvec not used (%lld products, %lld fallbacks)\n",
                      hola.best.products, hola.best.fallbacks);
      }
      const bool same = native.best.iterations == hola.best.iterations;
      const double ratio = native.best.solve > 0 ? hola.best.solve / native.best.solve : 0.0;
      if (o.mode == "compare" && rank == 0) {
        if (same)
          std::printf("  same iterations; solve time hola / native %.2f\n", ratio);
        else
          std::printf("  different iterations: native %d, hola %d\n",
                      static_cast<int>(native.best.iterations),
                      static_cast<int>(hola.best.iterations));
      }
      if (!json_solves.empty()) json_solves += ",\n";
      json_solves += "    {\"solver\": " + json_string(sv.name);
      if (!native.empty()) json_solves += ",\n     \"native\": " + json_run(native, false);
      if (!hola.empty()) json_solves += ",\n     \"hola\": " + json_run(hola, true);
      if (o.mode == "compare")
        json_solves += std::string(",\n     \"same_iterations\": ") + (same ? "true" : "false") +
                       ", \"solve_time_ratio_hola_native\": " + json_number(ratio);
      json_solves += "}";
    }
    if (!o.json.empty() && rank == 0) {
      std::unique_ptr<std::FILE, int (*)(std::FILE*)> f(std::fopen(o.json.c_str(), "w"),
                                                        std::fclose);
      if (!f) throw std::runtime_error("cannot write " + o.json);
      std::fprintf(
          f.get(),
          "{\"commit\": %s, \"command\": %s,\n"
          " \"problem\": %s, \"rows\": %lld, \"nonzeros\": %lld, \"ranks\": %d,\n"
          " \"hypre\": %s, \"memory\": %s, \"preconditioner\": %s, \"tolerance\": %s,\n"
          " \"max_iterations\": %d, \"kdim\": %d, \"kernel_option\": %s, \"deterministic\": %s,\n"
          " \"repeat\": %d, \"times\": \"seconds, maximum over ranks; setup_s and solve_s the "
          "fastest of the repetitions\",\n"
          " \"solves\": [\n%s\n ]}\n",
          json_string(hola::demo::commit_id()).c_str(),
          json_string(hola::demo::command_line(argc, argv)).c_str(), json_string(p.name).c_str(),
          static_cast<long long>(p.rows), p.nnz, nranks, json_string(HYPRE_RELEASE_VERSION).c_str(),
          json_string(hola::demo::hypre_memory_name()).c_str(),
          json_string(o.precond == "amg" ? "BoomerAMG" : "none").c_str(),
          json_number(o.tol).c_str(), o.max_iter, o.kdim, json_string(o.kernel).c_str(),
          o.deterministic ? "true" : "false", o.repeat, json_solves.c_str());
    }
    HYPRE_IJMatrixDestroy(p.ij);
  } catch (const std::exception& e) {
    if (rank == 0) std::fprintf(stderr, "hypre_krylov: %s\n", e.what());
    status = 1;
  }
  HYPRE_Finalize();
  MPI_Finalize();
  return status;
}
