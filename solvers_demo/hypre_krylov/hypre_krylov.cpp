// hypre_krylov: HYPRE's PCG / GMRES / FlexGMRES / BiCGSTAB (with BoomerAMG by default) on a 3D
// Poisson problem (-n, rows split evenly over the ranks) or a Matrix Market file (--matrix), once
// with HYPRE's own matvec and once with Hola's, reporting iterations and setup / solve times.
//
//   mpiexec -n 4 hypre_krylov -n 48 --solver all
//   mpiexec -n 2 hypre_krylov --matrix matrix.mtx --solver gmres --precond none
#include <HYPRE.h>
#include <HYPRE_parcsr_ls.h>
#include <mpi.h>
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <stdexcept>
#include <string>
#include <vector>

#include "grid_problems.hpp"
#include "hola/hypre.h"
#include "hola/matrix_market.hpp"
#include "hypre_krylov/krylov_api.hpp"

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
};

struct Problem {
  std::string name;
  HYPRE_BigInt rows = 0, lo = 0, hi = -1;  // global size, this rank's rows [lo, hi]
  long long nnz = 0;                       // global
  HYPRE_IJMatrix ij = nullptr;
  HYPRE_ParCSRMatrix A = nullptr;
};

int rank = 0, nranks = 1;

double max_over_ranks(double v) {
  double m = 0;
  MPI_Allreduce(&v, &m, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return m;
}

// Rows of this rank: an even split of `rows`.
void my_rows(HYPRE_BigInt rows, HYPRE_BigInt* lo, HYPRE_BigInt* hi) {
  const HYPRE_BigInt base = rows / nranks, extra = rows % nranks;
  *lo = base * rank + std::min<HYPRE_BigInt>(rank, extra);
  *hi = *lo + base + (rank < extra ? 1 : 0) - 1;
}

// Builds the matrix through HYPRE's IJ interface, each rank setting its own rows.
Problem build(const Options& o) {
  Problem p;
  hola::CsrMatrix<double, std::int64_t, std::int64_t> file;
  if (o.mtx.empty()) {
    p.rows = static_cast<HYPRE_BigInt>(o.n * o.n * o.n);
    p.name = "3D Poisson " + std::to_string(o.n) + "^3";
  } else {
    file = hola::read_matrix_market<double, std::int64_t, std::int64_t>(o.mtx);
    if (file.rows != file.cols)
      throw std::runtime_error(o.mtx + " is " + std::to_string(file.rows) + " x " +
                               std::to_string(file.cols) +
                               ": the Krylov solvers need a square "
                               "matrix");
    p.rows = static_cast<HYPRE_BigInt>(file.rows);
    p.name = o.mtx;
  }
  my_rows(p.rows, &p.lo, &p.hi);
  HYPRE_IJMatrixCreate(MPI_COMM_WORLD, p.lo, p.hi, p.lo, p.hi, &p.ij);
  HYPRE_IJMatrixSetObjectType(p.ij, HYPRE_PARCSR);
  HYPRE_IJMatrixInitialize(p.ij);
  std::vector<HYPRE_BigInt> cols;
  std::vector<double> vals;
  long long local_nnz = 0;
  const HYPRE_BigInt n = static_cast<HYPRE_BigInt>(o.n);
  for (HYPRE_BigInt r = p.lo; r <= p.hi; ++r) {
    cols.clear();
    vals.clear();
    if (o.mtx.empty()) {
      hola::grid::poisson3d_row(n, r, [&](HYPRE_BigInt col, double value) {
        cols.push_back(col);
        vals.push_back(value);
      });
    } else {
      for (std::int64_t e = file.row_ptr[r]; e < file.row_ptr[r + 1]; ++e) {
        cols.push_back(static_cast<HYPRE_BigInt>(file.col_idx[e]));
        vals.push_back(file.values[e]);
      }
    }
    HYPRE_Int count = static_cast<HYPRE_Int>(cols.size());
    local_nnz += count;
    if (count) HYPRE_IJMatrixSetValues(p.ij, 1, &count, &r, cols.data(), vals.data());
  }
  HYPRE_IJMatrixAssemble(p.ij);
  HYPRE_IJMatrixGetObject(p.ij, reinterpret_cast<void**>(&p.A));
  MPI_Allreduce(&local_nnz, &p.nnz, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
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
  HYPRE_IJVectorInitialize(x.ij);
  std::vector<HYPRE_BigInt> idx;
  for (HYPRE_BigInt i = p.lo; i <= p.hi; ++i) idx.push_back(i);
  std::vector<double> vals(idx.size(), value);
  if (!idx.empty())
    HYPRE_IJVectorSetValues(x.ij, static_cast<HYPRE_Int>(idx.size()), idx.data(), vals.data());
  HYPRE_IJVectorAssemble(x.ij);
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

void report(const char* label, const Run& r) {
  if (rank != 0) return;
  std::printf("  %-6s: %4d iterations, rel. residual %.2e, setup %.4f s, solve %.4f s", label,
              static_cast<int>(r.iterations), r.residual, r.setup, r.solve);
  if (!r.kernel.empty() || r.products)
    std::printf(" (Hola kernel %s, %lld products, %lld fallbacks)",
                r.kernel.empty() ? "-" : r.kernel.c_str(), r.products, r.fallbacks);
  if (r.error & HYPRE_ERROR_CONV) std::printf(" [not converged]");
  if (r.error & ~HYPRE_ERROR_CONV) std::printf(" [HYPRE error code %d]", static_cast<int>(r.error));
  std::printf("\n");
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
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = rank == 0 ? app.exit(e) : e.get_exit_code();
    MPI_Finalize();
    return code;
  }

  HYPRE_Init();
  int status = 0;
  try {
    Problem p = build(o);
    if (rank == 0)
      std::printf("%s: %lld rows, %lld nonzeros, %d rank(s), preconditioner %s\n", p.name.c_str(),
                  static_cast<long long>(p.rows), p.nnz, nranks,
                  o.precond == "amg" ? "BoomerAMG" : "none");
    const struct {
      const char* option;
      const char* name;
      HolaHypreSolverKind kind;
    } solvers[] = {{"pcg", "PCG", HOLA_HYPRE_PCG},
                   {"gmres", "GMRES", HOLA_HYPRE_GMRES},
                   {"fgmres", "FlexGMRES", HOLA_HYPRE_FLEXGMRES},
                   {"bicgstab", "BiCGSTAB", HOLA_HYPRE_BICGSTAB}};
    for (const auto& sv : solvers) {
      if (o.solver != "all" && o.solver != sv.option) continue;
      if (rank == 0) std::printf("%s\n", sv.name);
      Run native, hola;
      if (o.mode != "hola") report("native", native = solve(p, o, sv.kind, false));
      if (o.mode != "native") report("hola", hola = solve(p, o, sv.kind, true));
      if ((native.error | hola.error) & ~HYPRE_ERROR_CONV) status = 1;
      if (o.mode == "compare" && rank == 0) {
        if (native.iterations == hola.iterations)
          std::printf("  same iterations; solve time hola / native %.2f\n",
                      native.solve > 0 ? hola.solve / native.solve : 0.0);
        else
          std::printf("  different iterations: native %d, hola %d\n",
                      static_cast<int>(native.iterations), static_cast<int>(hola.iterations));
      }
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
