// The HYPRE adapter against HYPRE itself: HolaHypreMatvecApply against hypre_ParCSRMatrixMatvec
// (alpha / beta cases, square and rectangular matrices, row and column partitions that differ),
// the analysis cache, bad arguments, and PCG / GMRES / FlexGMRES / BiCGSTAB with and without
// BoomerAMG reaching the same iteration counts as with HYPRE's own matvec. Run with 1, 2 and 4
// ranks; with more than one rank the last rank owns no rows (and, in the differing column
// partition, the first rank owns no columns). Exit code 0 when every check passed.
//
// Against a HYPRE built for GPUs (HYPRE_USING_GPU) the same checks run on device memory: the
// matrices and vectors are assembled on the host and moved to the device
// (solvers_demo/hypre_krylov/hypre_memory.hpp), the reference is HYPRE's own device matvec on the
// same data, results are copied to the host to be compared, and every product must have been
// Hola's (counters, no fallback) with a device kernel. Without a usable GPU the test exits with 77
// (ctest: skipped).
#include <HYPRE.h>
#include <HYPRE_parcsr_ls.h>
#include <_hypre_parcsr_mv.h>
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "grid_problems.hpp"
#include "hola/hypre.h"
#include "hypre_krylov/hypre_memory.hpp"
#include "hypre_krylov/krylov_api.hpp"

namespace {

MPI_Comm comm = MPI_COMM_WORLD;
int rank = 0, nranks = 1;
int failures = 0;

constexpr bool kDevice = hola::demo::kHypreOnDevice;
// A kernel named explicitly: the CPU kernel on the host, Hola's own kernel on the device.
const char* const kNamedKernel = kDevice ? "hola" : "cpu";
// Hola's product against HYPRE's: the same sums in the same order on the host; on the device
// HYPRE's product is cuSPARSE's, which may add in another order.
const double kProductTolerance = kDevice ? 1e-13 : 1e-14;
// Solutions of the same solve with HYPRE's matvec and with Hola's.
const double kSolutionTolerance = kDevice ? 1e-6 : 1e-7;

// Every rank passes `ok` for its part; the check passes when all do. Rank 0 prints it.
void check(bool ok, const std::string& what, double value = 0.0) {
  int local = ok ? 1 : 0, all = 0;
  MPI_Allreduce(&local, &all, 1, MPI_INT, MPI_LAND, comm);
  if (!all) failures++;
  if (rank == 0) std::printf("%s %-64s %.3g\n", all ? "ok  " : "FAIL", what.c_str(), value);
}

double max_over_ranks(double v) {
  double m = 0;
  MPI_Allreduce(&v, &m, 1, MPI_DOUBLE, MPI_MAX, comm);
  return m;
}

// Deterministic value in [-1, 1) from (seed, index): the same whatever the partition.
double hashed(std::uint64_t seed, std::uint64_t i) {
  std::uint64_t z = seed * 0x9E3779B97F4A7C15ull + i + 0x632BE59BD9B4E019ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  return static_cast<double>(z >> 11) / 4503599627370496.0 - 1.0;
}

struct Range {
  HYPRE_BigInt lo = 0, hi = -1;  // inclusive; hi == lo - 1 when empty
  HYPRE_Int size() const { return static_cast<HYPRE_Int>(hi - lo + 1); }
};

// Even split of n; with several ranks the rank `empty_rank` gets nothing (an empty range where
// the next rank's starts).
Range split(HYPRE_BigInt n, int empty_rank) {
  if (nranks == 1) return {0, n - 1};
  const int parts = nranks - 1;
  const int part = rank > empty_rank ? rank - 1 : rank;
  const HYPRE_BigInt lo = (n / parts) * part + std::min<HYPRE_BigInt>(part, n % parts);
  if (rank == empty_rank) return {lo, lo - 1};
  const HYPRE_BigInt len = n / parts + (part < n % parts ? 1 : 0);
  return {lo, lo + len - 1};
}

using RowFunction =
    std::function<void(HYPRE_BigInt row, std::vector<HYPRE_BigInt>&, std::vector<double>&)>;

struct Matrix {
  HYPRE_IJMatrix ij = nullptr;
  HYPRE_ParCSRMatrix A = nullptr;
  Range rows, cols;
  RowFunction fill;
  double scale = 1.0;  // the values are fill's times this
};

// Sets every row from fill (times scale) and assembles; with a GPU HYPRE the matrix then moves
// to device memory (first assembly only: see rescale).
void assemble(Matrix& m, double scale) {
  std::vector<HYPRE_BigInt> c;
  std::vector<double> v;
  for (HYPRE_BigInt r = m.rows.lo; r <= m.rows.hi; ++r) {
    c.clear();
    v.clear();
    m.fill(r, c, v);
    for (auto& x : v) x *= scale;
    HYPRE_Int n = static_cast<HYPRE_Int>(c.size());
    if (n) HYPRE_IJMatrixSetValues(m.ij, 1, &n, &r, c.data(), v.data());
  }
  hola::demo::ij_assemble(m.ij);
  HYPRE_IJMatrixGetObject(m.ij, reinterpret_cast<void**>(&m.A));
  m.scale = scale;
}

// New values in the same structure and the same arrays. Host: through the IJ interface again
// (HYPRE writes them into the assembled matrix). Device: the IJ object of a migrated matrix takes
// no more values, and HYPRE's device assembly builds new arrays anyway, so the values are scaled
// in place by HYPRE (hypre_ParCSRMatrixScale, a device kernel for device matrices).
void rescale(Matrix& m, double scale) {
  if (kDevice) {
    hypre_ParCSRMatrixScale(m.A, scale / m.scale);
    m.scale = scale;
  } else {
    assemble(m, scale);
  }
}

Matrix make_matrix(Range rows, Range cols, RowFunction fill) {
  Matrix m;
  m.rows = rows;
  m.cols = cols;
  m.fill = std::move(fill);
  HYPRE_IJMatrixCreate(comm, rows.lo, rows.hi, cols.lo, cols.hi, &m.ij);
  HYPRE_IJMatrixSetObjectType(m.ij, HYPRE_PARCSR);
  hola::demo::ij_initialize(m.ij);
  assemble(m, 1.0);
  return m;
}

void destroy(Matrix& m) {
  if (m.ij) HYPRE_IJMatrixDestroy(m.ij);
  m = Matrix{};
}

// Appends each entry of a row to the column and value lists.
auto push(std::vector<HYPRE_BigInt>& c, std::vector<double>& v) {
  return [&c, &v](HYPRE_BigInt col, double value) {
    c.push_back(col);
    v.push_back(value);
  };
}

// Unsymmetric 2D convection-diffusion on an n x n grid; `far` adds a distant coupling per row
// (more neighbours to exchange with).
RowFunction convection_diffusion(HYPRE_BigInt n, bool far) {
  return [n, far](HYPRE_BigInt r, std::vector<HYPRE_BigInt>& c, std::vector<double>& v) {
    const HYPRE_BigInt N = n * n;
    hola::grid::five_point_row(n, r, {4.2, -1.0, -1.0, -1.3, -0.7}, push(c, v));
    if (far) {
      const HYPRE_BigInt f = (r + N / 2) % N;
      if (std::abs(static_cast<long long>(f - r)) > n) c.push_back(f), v.push_back(0.01);
    }
  };
}

// 3D 7-point Laplacian on an n^3 grid (SPD).
RowFunction poisson3d(HYPRE_BigInt n) {
  return [n](HYPRE_BigInt r, std::vector<HYPRE_BigInt>& c, std::vector<double>& v) {
    hola::grid::poisson3d_row(n, r, push(c, v));
  };
}

// rows x cols (cols prime > 26): every fourth row empty, up to three scattered columns per row.
RowFunction scattered(HYPRE_BigInt cols) {
  return [cols](HYPRE_BigInt r, std::vector<HYPRE_BigInt>& c, std::vector<double>& v) {
    for (HYPRE_BigInt k = 0; k < r % 4; ++k) {
      c.push_back((r * 7 + k * 13) % cols);
      v.push_back(hashed(99, static_cast<std::uint64_t>(r * 4 + k)));
    }
  };
}

struct Vector {
  HYPRE_IJVector ij = nullptr;
  HYPRE_ParVector v = nullptr;
  Range range;
  // The local values, in host or device memory (location()).
  double* data() const { return hypre_VectorData(hypre_ParVectorLocalVector(v)); }
  HYPRE_MemoryLocation location() const {
    return hypre_VectorMemoryLocation(hypre_ParVectorLocalVector(v));
  }
  // A host copy of the local values (HYPRE's copy from device memory when they are there).
  std::vector<double> values() const {
    std::vector<double> h(static_cast<std::size_t>(range.size()));
    if (h.empty()) return h;
#if defined(HYPRE_USING_GPU)
    hypre_SyncDevice();  // products queued on HYPRE's stream are done
#endif
    hypre_TMemcpy(h.data(), data(), double, h.size(), HYPRE_MEMORY_HOST, location());
    return h;
  }
  // Sets the local values from host memory.
  void set_values(const std::vector<double>& h) {
    if (h.empty()) return;
#if defined(HYPRE_USING_GPU)
    hypre_SyncDevice();
#endif
    hypre_TMemcpy(data(), h.data(), double, h.size(), location(), HYPRE_MEMORY_HOST);
  }
  bool on_device() const { return hypre_GetActualMemLocation(location()) == hypre_MEMORY_DEVICE; }
};

bool on_device(HYPRE_ParCSRMatrix A) {
  return hypre_GetActualMemLocation(hypre_ParCSRMatrixMemoryLocation(A)) == hypre_MEMORY_DEVICE;
}

Vector make_vector(Range range, std::uint64_t seed) {
  Vector x;
  x.range = range;
  HYPRE_IJVectorCreate(comm, range.lo, range.hi, &x.ij);
  HYPRE_IJVectorSetObjectType(x.ij, HYPRE_PARCSR);
  hola::demo::ij_initialize(x.ij);
  std::vector<HYPRE_BigInt> idx;
  std::vector<double> val;
  for (HYPRE_BigInt i = range.lo; i <= range.hi; ++i) {
    idx.push_back(i);
    val.push_back(seed ? hashed(seed, static_cast<std::uint64_t>(i)) : 0.0);
  }
  if (!idx.empty())
    HYPRE_IJVectorSetValues(x.ij, static_cast<HYPRE_Int>(idx.size()), idx.data(), val.data());
  hola::demo::ij_assemble(x.ij);
  HYPRE_IJVectorGetObject(x.ij, reinterpret_cast<void**>(&x.v));
  return x;
}

void destroy(Vector& x) {
  if (x.ij) HYPRE_IJVectorDestroy(x.ij);
  x = Vector{};
}

void copy_values(const Vector& from, Vector& to) { to.set_values(from.values()); }

// max_i |a_i - b_i| / max_i |b_i| over all ranks.
double relative_difference(const std::vector<double>& a, const std::vector<double>& b) {
  double d = 0, s = 0;
  for (std::size_t i = 0; i < a.size() && i < b.size(); ++i) {
    d = std::max(d, std::abs(a[i] - b[i]));
    s = std::max(s, std::abs(b[i]));
  }
  d = max_over_ranks(d);
  s = max_over_ranks(s);
  return s > 0 ? d / s : d;
}
double relative_difference(const Vector& a, const Vector& b) {
  return relative_difference(a.values(), b.values());
}

bool all_finite(const Vector& a) {
  for (const double v : a.values())
    if (!std::isfinite(v)) return false;
  return true;
}

// The kernel Hola used on matrix A: on the host the CPU kernel; on the device a device kernel
// (any but the CPU one), `expected` when not null.
bool kernel_as_expected(HYPRE_ParCSRMatrix A, const char* kernel, const char* expected) {
  const bool has_diag = hypre_CSRMatrixNumNonzeros(hypre_ParCSRMatrixDiag(A)) > 0;
  if (!has_diag) return true;  // no diagonal block on this rank: no kernel ran here
  if (!kernel) return false;
  if (!kDevice) return std::strcmp(kernel, "cpu") == 0;
  return *kernel && std::strcmp(kernel, "cpu") != 0 &&
         (!expected || std::strcmp(kernel, expected) == 0);
}

// ---- products ----

void check_products(const std::string& name, Matrix& M, const char* kernel = nullptr) {
  HolaHypreMatvec mv = nullptr;
  check(HolaHypreMatvecCreate(kernel, 0, &mv) == 0 && mv, name + ": create matvec");
  Vector x = make_vector(M.cols, 11), y0 = make_vector(M.rows, 12);
  Vector ref = make_vector(M.rows, 0), out = make_vector(M.rows, 0);
  check(on_device(M.A) == kDevice && x.on_device() == kDevice && out.on_device() == kDevice,
        name + ": matrix and vectors in " + hola::demo::hypre_memory_name() + " memory");
  const double cases[][2] = {{1.0, 0.0},  {-1.0, 1.0}, {2.5, -0.5}, {1.0, 1.0},
                             {-0.3, 0.0}, {0.0, 3.0},  {0.0, 0.0}};
  for (const auto& ab : cases) {
    const double alpha = ab[0], beta = ab[1];
    copy_values(y0, ref);
    copy_values(y0, out);
    hypre_ParCSRMatrixMatvec(alpha, M.A, x.v, beta, ref.v);
    const int rc = HolaHypreMatvecApply(mv, alpha, M.A, x.v, beta, out.v);
    const double diff = relative_difference(out, ref);
    char what[128];
    std::snprintf(what, sizeof(what), "%s: alpha %g beta %g vs hypre_ParCSRMatrixMatvec",
                  name.c_str(), alpha, beta);
    check(rc == 0 && diff <= kProductTolerance, what, diff);
  }
  // beta == 0 must not read y: NaN in y does not leak.
  copy_values(y0, ref);
  hypre_ParCSRMatrixMatvec(1.5, M.A, x.v, 0.0, ref.v);
  out.set_values(std::vector<double>(static_cast<std::size_t>(out.range.size()),
                                     std::numeric_limits<double>::quiet_NaN()));
  const int rc = HolaHypreMatvecApply(mv, 1.5, M.A, x.v, 0.0, out.v);
  check(rc == 0 && all_finite(out) && relative_difference(out, ref) <= kProductTolerance,
        name + ": beta 0 ignores NaN in y");

  long long products = 0, fallbacks = -1, analyses = 0;
  HolaHypreMatvecGetStats(mv, &products, &fallbacks, &analyses);
  const char* used = nullptr;
  HolaHypreMatvecGetKernelName(mv, &used);
  const std::string expected = kDevice ? (kernel ? kernel : "a device kernel") : "cpu";
  check(products == 8 && fallbacks == 0 && analyses <= 2 && kernel_as_expected(M.A, used, kernel),
        name + ": 8 products, no fallback, <= 2 analyses, kernel " + expected,
        static_cast<double>(analyses));
  if (rank == 0 && kDevice) std::printf("     (rank 0 kernel: %s)\n", used ? used : "-");
  HolaHypreMatvecDestroy(mv);
  destroy(x), destroy(y0), destroy(ref), destroy(out);
}

void check_cache_and_errors(HYPRE_BigInt n) {
  const HYPRE_BigInt N = n * n;
  Matrix A = make_matrix(split(N, nranks - 1), split(N, nranks - 1), convection_diffusion(n, true));
  Matrix B =
      make_matrix(split(N, nranks - 1), split(N, nranks - 1), convection_diffusion(n, false));
  Vector x = make_vector(A.cols, 21), y = make_vector(A.rows, 0), ref = make_vector(A.rows, 0);
  HolaHypreMatvec mv = nullptr;
  HolaHypreMatvecCreate("auto", 0, &mv);
  long long a1 = 0, a2 = 0, a3 = 0, a4 = 0;
  HolaHypreMatvecApply(mv, 1.0, A.A, x.v, 0.0, y.v);
  HolaHypreMatvecGetStats(mv, nullptr, nullptr, &a1);
  HolaHypreMatvecApply(mv, 1.0, A.A, x.v, 0.0, y.v);
  HolaHypreMatvecGetStats(mv, nullptr, nullptr, &a2);
  check(a2 == a1, "cache: same matrix again, no new analysis", static_cast<double>(a2));

  // New values, same structure: no analysis, new result.
  rescale(A, 2.0);
  HolaHypreMatvecApply(mv, 1.0, A.A, x.v, 0.0, y.v);
  hypre_ParCSRMatrixMatvec(1.0, A.A, x.v, 0.0, ref.v);
  HolaHypreMatvecGetStats(mv, nullptr, nullptr, &a3);
  check(a3 == a2 && relative_difference(y, ref) <= 1e-14,
        "cache: new values, no new analysis, new result", relative_difference(y, ref));

  // Another matrix, then back: analysed again each time.
  HolaHypreMatvecApply(mv, 1.0, B.A, x.v, 0.0, y.v);
  hypre_ParCSRMatrixMatvec(1.0, B.A, x.v, 0.0, ref.v);
  const double dB = relative_difference(y, ref);
  HolaHypreMatvecApply(mv, 1.0, A.A, x.v, 0.0, y.v);
  HolaHypreMatvecGetStats(mv, nullptr, nullptr, &a4);
  const long long grew = static_cast<long long>(max_over_ranks(static_cast<double>(a4 - a3)));
  check(dB <= 1e-14 && grew >= 2, "cache: another matrix and back, analysed again",
        static_cast<double>(grew));

  // Bad arguments: clear error, y untouched.
  check(HolaHypreMatvecApply(nullptr, 1.0, A.A, x.v, 0.0, y.v) == HYPRE_ERROR_ARG &&
            std::strlen(HolaHypreLastError()) > 0,
        "apply with a NULL matvec: HYPRE_ERROR_ARG");
  check(HolaHypreMatvecCreate("no-such-kernel", 0, &mv) == HYPRE_ERROR_ARG &&
            std::strstr(HolaHypreLastError(), "no-such-kernel"),
        "create with an unknown kernel: HYPRE_ERROR_ARG");
  HolaHypreMatvecCreate(nullptr, 0, &mv);
  // x aliasing y: refused on every rank with rows and columns, y unchanged.
  const std::vector<double> before = y.values();
  const int rc = HolaHypreMatvecApply(mv, 1.0, A.A, y.v, 0.0, y.v);
  const bool has_block = A.rows.size() > 0;
  check((has_block ? rc == HYPRE_ERROR_ARG : true) && before == y.values(),
        "x aliasing y: HYPRE_ERROR_ARG, y unchanged");
  // Vector of the wrong size (rows partition of another length).
  Vector wrong = make_vector(split(N + 3, nranks - 1), 5);
  const std::vector<double> wrong_before = wrong.values();
  const int rc2 = HolaHypreMatvecApply(mv, 1.0, A.A, x.v, 1.0, wrong.v);
  const bool mismatch = wrong.range.size() != A.rows.size();
  int any_error = rc2 != 0, errors = 0;
  MPI_Allreduce(&any_error, &errors, 1, MPI_INT, MPI_SUM, comm);
  check((!mismatch || rc2 == HYPRE_ERROR_ARG) && errors > 0 &&
            (rc2 == 0 || wrong_before == wrong.values()),
        "y of the wrong size: HYPRE_ERROR_ARG, y unchanged");
  HolaHypreMatvecDestroy(mv);
  destroy(wrong);
  destroy(x), destroy(y), destroy(ref);
  destroy(A), destroy(B);
}

// ---- solvers ----

struct SolveResult {
  HYPRE_Int iterations = -1;
  double residual = -1;
  HYPRE_Int error = 0;
  long long products = 0, fallbacks = 0;
  std::string kernel;
  std::vector<double> x;
};

enum class Hola { off, before_setup, after_setup, enable_disable };

SolveResult solve(HolaHypreSolverKind kind, Matrix& M, bool amg, Hola hola,
                  const char* kernel = nullptr) {
  Vector b = make_vector(M.rows, 31), x = make_vector(M.cols, 0);
  HYPRE_Solver s = nullptr, pc = nullptr;
  if (amg) {
    HYPRE_BoomerAMGCreate(&pc);
    HYPRE_BoomerAMGSetPrintLevel(pc, 0);
    HYPRE_BoomerAMGSetMaxIter(pc, 1);
    HYPRE_BoomerAMGSetTol(pc, 0.0);
  }
  const hola::demo::KrylovApi api = hola::demo::krylov_api(kind);
  api.create(comm, &s);
  if (api.set_kdim) api.set_kdim(s, 20);
  api.set_tol(s, 1e-9);
  api.set_max_iter(s, 400);
  if (kind == HOLA_HYPRE_PCG) HYPRE_PCGSetTwoNorm(s, 1);
  if (amg) api.set_precond(s, HYPRE_BoomerAMGSolve, HYPRE_BoomerAMGSetup, pc);
  SolveResult r;
  if (hola == Hola::before_setup || hola == Hola::enable_disable)
    r.error |= HolaHypreEnableWithOptions(s, kind, kernel, 0);
  if (hola == Hola::enable_disable) r.error |= HolaHypreDisable(s, kind);
  r.error |= api.setup(s, M.A, b.v, x.v);
  if (hola == Hola::after_setup) r.error |= HolaHypreEnableWithOptions(s, kind, kernel, 0);
  r.error |= api.solve(s, M.A, b.v, x.v);
  api.iterations(s, &r.iterations);
  api.residual(s, &r.residual);
  HolaHypreMatvec mv = nullptr;
  HolaHypreGetMatvec(s, kind, &mv);
  if (mv) {
    const char* used = "";
    HolaHypreMatvecGetStats(mv, &r.products, &r.fallbacks, nullptr);
    HolaHypreMatvecGetKernelName(mv, &used);
    r.kernel = used;
  }
  r.x = x.values();
  api.destroy(s);
  if (pc) HYPRE_BoomerAMGDestroy(pc);
  destroy(b), destroy(x);
  HYPRE_ClearAllErrors();
  return r;
}

double solution_difference(const SolveResult& a, const SolveResult& b) {
  return relative_difference(a.x, b.x);
}

// Final relative residuals of the same solve with HYPRE's matvec and with Hola's: equal up to
// rounding (the products may add in another order on the device).
bool residuals_close(double a, double b) {
  return a >= 0 && b >= 0 && std::abs(a - b) <= 1e-3 * std::max(a, b);
}

const char* kind_name(HolaHypreSolverKind k) {
  switch (k) {
    case HOLA_HYPRE_PCG:
      return "PCG";
    case HOLA_HYPRE_GMRES:
      return "GMRES";
    case HOLA_HYPRE_FLEXGMRES:
      return "FlexGMRES";
    default:
      return "BiCGSTAB";
  }
}

void check_solvers() {
  const HYPRE_BigInt n3 = 10, n2 = 24;
  Matrix spd =
      make_matrix(split(n3 * n3 * n3, nranks - 1), split(n3 * n3 * n3, nranks - 1), poisson3d(n3));
  Matrix nonsym = make_matrix(split(n2 * n2, nranks - 1), split(n2 * n2, nranks - 1),
                              convection_diffusion(n2, false));
  for (HolaHypreSolverKind kind :
       {HOLA_HYPRE_PCG, HOLA_HYPRE_GMRES, HOLA_HYPRE_FLEXGMRES, HOLA_HYPRE_BICGSTAB}) {
    Matrix& M = kind == HOLA_HYPRE_PCG ? spd : nonsym;
    for (bool amg : {false, true}) {
      const SolveResult native = solve(kind, M, amg, Hola::off);
      const SolveResult hola = solve(kind, M, amg, Hola::before_setup);
      const double diff = solution_difference(hola, native);
      char what[160];
      std::snprintf(what, sizeof(what),
                    "%s%s: %d iterations as native (%d), residuals close, Hola matvec used",
                    kind_name(kind), amg ? " + BoomerAMG" : "", static_cast<int>(hola.iterations),
                    static_cast<int>(native.iterations));
      check(native.error == 0 && hola.error == 0 && hola.iterations == native.iterations &&
                native.iterations > 0 && native.iterations < 400 && hola.products > 0 &&
                hola.fallbacks == 0 && kernel_as_expected(M.A, hola.kernel.c_str(), nullptr) &&
                diff <= kSolutionTolerance && residuals_close(hola.residual, native.residual),
            what, diff);
    }
    // Enabled after Setup, and enabled then disabled: same iterations too.
    const SolveResult native = solve(kind, M, true, Hola::off);
    const SolveResult late = solve(kind, M, true, Hola::after_setup, kNamedKernel);
    const SolveResult undone = solve(kind, M, true, Hola::enable_disable);
    check(late.error == 0 && late.iterations == native.iterations && late.products > 0 &&
              kernel_as_expected(M.A, late.kernel.c_str(), kNamedKernel),
          std::string(kind_name(kind)) + ": enabled after Setup (kernel " + kNamedKernel +
              "), same iterations");
    check(undone.error == 0 && undone.iterations == native.iterations && undone.products == 0,
          std::string(kind_name(kind)) + ": enabled then disabled, native matvec");
  }
  destroy(spd), destroy(nonsym);
}

// PCG makes a new matvec context at every Setup: options and counters carry over.
void check_pcg_resetup() {
  const HYPRE_BigInt n = 8;
  Matrix M = make_matrix(split(n * n * n, nranks - 1), split(n * n * n, nranks - 1), poisson3d(n));
  Vector b = make_vector(M.rows, 41), x = make_vector(M.cols, 0);
  HYPRE_Solver s = nullptr;
  HYPRE_ParCSRPCGCreate(comm, &s);
  HYPRE_PCGSetTol(s, 1e-9);
  int rc = HolaHypreEnableWithOptions(s, HOLA_HYPRE_PCG, kNamedKernel, 1);
  rc |= HYPRE_ParCSRPCGSetup(s, M.A, b.v, x.v);
  rc |= HYPRE_ParCSRPCGSolve(s, M.A, b.v, x.v);
  HolaHypreMatvec mv1 = nullptr, mv2 = nullptr;
  long long p1 = 0, p2 = 0;
  HolaHypreGetMatvec(s, HOLA_HYPRE_PCG, &mv1);
  HolaHypreMatvecGetStats(mv1, &p1, nullptr, nullptr);
  rescale(M, 3.0);  // new values: Setup again
  x.set_values(std::vector<double>(static_cast<std::size_t>(x.range.size()), 0.0));
  rc |= HYPRE_ParCSRPCGSetup(s, M.A, b.v, x.v);
  rc |= HYPRE_ParCSRPCGSolve(s, M.A, b.v, x.v);
  HolaHypreGetMatvec(s, HOLA_HYPRE_PCG, &mv2);
  HolaHypreMatvecGetStats(mv2, &p2, nullptr, nullptr);
  const char* kernel = "";
  HolaHypreMatvecGetKernelName(mv2, &kernel);
  check(rc == 0 && mv2 && p1 > 0 && p2 > p1 && kernel_as_expected(M.A, kernel, kNamedKernel),
        "PCG Setup twice: options and counters kept", static_cast<double>(p2));
  HYPRE_ParCSRPCGDestroy(s);
  destroy(b), destroy(x), destroy(M);
}

void check_wrong_solvers() {
  HYPRE_ClearAllErrors();
  int rc = HolaHypreEnable(nullptr, HOLA_HYPRE_PCG);
  check(rc == HYPRE_ERROR_ARG && std::strstr(HolaHypreLastError(), "NULL"),
        "enable on a NULL solver: HYPRE_ERROR_ARG");

  HYPRE_Solver amg = nullptr, pcg = nullptr, gmres = nullptr, bicgstab = nullptr, fgmres = nullptr;
  HYPRE_BoomerAMGCreate(&amg);
  HYPRE_ParCSRPCGCreate(comm, &pcg);
  HYPRE_ParCSRGMRESCreate(comm, &gmres);
  HYPRE_ParCSRBiCGSTABCreate(comm, &bicgstab);
  HYPRE_ParCSRFlexGMRESCreate(comm, &fgmres);
  HYPRE_ParCSRPCGSetPrecond(pcg, HYPRE_BoomerAMGSolve, HYPRE_BoomerAMGSetup, amg);

  struct Case {
    HYPRE_Solver solver;
    HolaHypreSolverKind kind;
    const char* what;
  };
  std::vector<double> junk(4, 3.0e300);
  const Case cases[] = {
      {amg, HOLA_HYPRE_PCG, "BoomerAMG as PCG"},
      {amg, HOLA_HYPRE_BICGSTAB, "BoomerAMG as BiCGSTAB"},
      {gmres, HOLA_HYPRE_PCG, "GMRES as PCG"},
      {pcg, HOLA_HYPRE_GMRES, "PCG (with BoomerAMG) as GMRES"},
      {pcg, HOLA_HYPRE_BICGSTAB, "PCG as BiCGSTAB"},
      {bicgstab, HOLA_HYPRE_GMRES, "BiCGSTAB as GMRES"},
      {fgmres, HOLA_HYPRE_PCG, "FlexGMRES as PCG"},
      {reinterpret_cast<HYPRE_Solver>(junk.data()), HOLA_HYPRE_PCG, "a heap block of doubles"},
      {pcg, static_cast<HolaHypreSolverKind>(42), "unknown solver kind 42"},
  };
  for (const Case& c : cases) {
    rc = HolaHypreEnable(c.solver, c.kind);
    check(rc == HYPRE_ERROR_ARG && std::strlen(HolaHypreLastError()) > 0,
          std::string("enable on ") + c.what + ": HYPRE_ERROR_ARG");
  }
  rc = HolaHypreEnableWithOptions(pcg, HOLA_HYPRE_PCG, "no-such-kernel", 0);
  HolaHypreMatvec mv = reinterpret_cast<HolaHypreMatvec>(&rc);
  HolaHypreGetMatvec(pcg, HOLA_HYPRE_PCG, &mv);
  check(rc == HYPRE_ERROR_ARG && mv == nullptr, "enable with an unknown kernel: nothing changed");
  check(HYPRE_GetError() == 0, "failed enables leave HYPRE's error flag alone");
  // A refused solver can still be enabled as what it is; enabling again updates the options.
  check(HolaHypreEnable(gmres, HOLA_HYPRE_GMRES) == 0 &&
            HolaHypreEnable(gmres, HOLA_HYPRE_GMRES) == 0 &&
            HolaHypreEnableWithOptions(gmres, HOLA_HYPRE_GMRES, "cpu", 1) == 0,
        "enable twice, then with new options: accepted");
  HYPRE_ParCSRPCGDestroy(pcg);
  HYPRE_ParCSRGMRESDestroy(gmres);
  HYPRE_ParCSRBiCGSTABDestroy(bicgstab);
  HYPRE_ParCSRFlexGMRESDestroy(fgmres);
  HYPRE_BoomerAMGDestroy(amg);
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &nranks);
  // A GPU HYPRE initialises the device in HYPRE_Init: without a usable GPU (or without Hola's
  // device kernels) nothing here can run; report skipped, never passed.
  if (!hola::demo::hypre_ranks_ready(comm, hola::demo::hypre_device_missing(),
                                     "; the HYPRE adapter checks did not run")) {
    MPI_Finalize();
    return 77;
  }
  HYPRE_Init();  // HYPRE_Initialize from HYPRE 2.29 on (HYPRE_Init is its old name)
  hola::demo::hypre_use_memory();
  if (rank == 0)
    std::printf("HYPRE %s, matrices and vectors in %s memory, %d rank(s)\n", HYPRE_RELEASE_VERSION,
                hola::demo::hypre_memory_name(), nranks);
  {
    // Square, rows and columns split alike (last rank empty).
    const HYPRE_BigInt n = 20, N = n * n;
    Matrix sq =
        make_matrix(split(N, nranks - 1), split(N, nranks - 1), convection_diffusion(n, true));
    check_products("square", sq);
    // On the device, also with Hola's own kernel named (auto may choose another device kernel).
    if (kDevice) check_products(std::string("square, kernel ") + kNamedKernel, sq, kNamedKernel);
    destroy(sq);
    // Square, columns split differently from rows (first rank owns no columns).
    Matrix mixed = make_matrix(split(N, nranks - 1), split(N, 0), convection_diffusion(n, true));
    check_products("square, other column partition", mixed);
    destroy(mixed);
    // Rectangular 203 x 157.
    Matrix rect = make_matrix(split(203, nranks - 1), split(157, 0), scattered(157));
    check_products("rectangular 203 x 157", rect);
    destroy(rect);
  }
  check_cache_and_errors(16);
  check_wrong_solvers();
  check_pcg_resetup();
  check_solvers();
  if (rank == 0)
    std::printf("%s: %d failure(s) on %d rank(s), %s memory\n", failures ? "FAILED" : "PASSED",
                failures, nranks, hola::demo::hypre_memory_name());
  HYPRE_Finalize();
  MPI_Finalize();
  return failures ? 1 : 0;
}
