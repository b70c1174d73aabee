// hola::tpetra::HolaOperator against Tpetra::CrsMatrix::apply, on 1, 2 and 4 processes.
//
// Every product mode (N, T, C) with several alpha / beta (beta = 0 with NaN in Y), one and three
// vectors, constant and non-constant stride, X aliasing Y, on four matrices: a square one with an
// Importer, a rectangular one whose row Map differs from its range Map (an Exporter), and two
// with locally replicated Maps (replicated X or Y). With several processes some own no rows.
// Then the analysis cache (new values, a new matrix on the same graph, a new structure), bad
// input, and Belos CG, GMRES, BiCGSTAB and Block CG with Ifpack2 preconditioners, whose iteration
// counts must equal those with the CrsMatrix itself. Exit code 0 when every check passed.
//
// Debian's Trilinos 13.2 instantiates Tpetra for double only (HAVE_TPETRA_INST_FLOAT is off), so
// the scalar type is double.
#include <BelosLinearProblem.hpp>
#include <BelosSolverFactory_Tpetra.hpp>
#include <BelosTpetraAdapter.hpp>
#include <Ifpack2_Factory.hpp>
#include <Teuchos_CommHelpers.hpp>
#include <Tpetra_Core.hpp>
#include <Tpetra_CrsMatrix.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

#include "hola/tpetra_operator.hpp"

namespace {

using SC = double;
using map_type = Tpetra::Map<>;
using LO = map_type::local_ordinal_type;
using GO = map_type::global_ordinal_type;
using NO = map_type::node_type;
using crs_type = Tpetra::CrsMatrix<SC, LO, GO, NO>;
using mv_type = Tpetra::MultiVector<SC, LO, GO, NO>;
using op_type = Tpetra::Operator<SC, LO, GO, NO>;
using hola_op_type = hola::tpetra::HolaOperator<SC, LO, GO, NO>;
using comm_ptr = Teuchos::RCP<const Teuchos::Comm<int>>;
using Teuchos::RCP;
using Teuchos::rcp;

const SC kNaN = std::numeric_limits<SC>::quiet_NaN();

// Collective checks: a check fails when it failed on any process; process 0 prints.
class Checker {
 public:
  explicit Checker(comm_ptr comm) : comm_(std::move(comm)) {}

  bool check(bool localOk, const std::string& what, double localValue = 0.0) {
    int ok = localOk ? 1 : 0, allOk = 0;
    Teuchos::reduceAll<int, int>(*comm_, Teuchos::REDUCE_MIN, ok, Teuchos::outArg(allOk));
    double value = 0.0;
    Teuchos::reduceAll<int, double>(*comm_, Teuchos::REDUCE_MAX, localValue,
                                    Teuchos::outArg(value));
    if (!allOk) ++failures_;
    if (comm_->getRank() == 0)
      std::printf("%s %-66s %.3g\n", allOk ? "ok  " : "FAIL", what.c_str(), value);
    std::fflush(stdout);
    return allOk != 0;
  }
  int failures() const { return failures_; }
  const comm_ptr& comm() const { return comm_; }

 private:
  comm_ptr comm_;
  int failures_ = 0;
};

// n rows over every process but the last (when there are several), which owns none.
RCP<const map_type> mapLastEmpty(GO n, const comm_ptr& comm) {
  const int p = comm->getSize(), r = comm->getRank();
  std::size_t local = static_cast<std::size_t>(n);
  if (p > 1) {
    const GO parts = p - 1;
    local = r == p - 1 ? 0 : static_cast<std::size_t>(n / parts + (r < n % parts ? 1 : 0));
  }
  return rcp(new map_type(static_cast<Tpetra::global_size_t>(n), local, 0, comm));
}

// Number of indices this process owns (getMaxLocalIndex() is -1 on an empty process).
LO localCount(const map_type& map) { return static_cast<LO>(map.getMaxLocalIndex() + 1); }

void insertRow(crs_type& A, GO row, const std::vector<GO>& cols, const std::vector<SC>& vals) {
  A.insertGlobalValues(row, Teuchos::ArrayView<const GO>(cols), Teuchos::ArrayView<const SC>(vals));
}

// Unsymmetric 2D convection-diffusion on an n x n grid, plus (when `far`) one entry per row half
// the grid away, so that the column Map reaches other processes. Square, row Map = range Map.
RCP<crs_type> convectionDiffusion(GO n, const comm_ptr& comm, bool far, SC shift = 0.0) {
  auto map = mapLastEmpty(n * n, comm);
  auto A = rcp(new crs_type(map, 6));
  for (LO l = 0; l < localCount(*map); ++l) {
    const GO r = map->getGlobalElement(l), i = r / n, j = r % n;
    std::vector<GO> cols{r};
    std::vector<SC> vals{4.0 + shift};
    if (i > 0) cols.push_back(r - n), vals.push_back(-1.0);
    if (i < n - 1) cols.push_back(r + n), vals.push_back(-1.0);
    if (j > 0) cols.push_back(r - 1), vals.push_back(-1.2);
    if (j < n - 1) cols.push_back(r + 1), vals.push_back(-0.8);
    const GO f = (r + n * n / 2) % (n * n);
    if (far && std::find(cols.begin(), cols.end(), f) == cols.end())
      cols.push_back(f), vals.push_back(0.01);
    insertRow(*A, r, cols, vals);
  }
  A->fillComplete();
  return A;
}

// Rectangular m x k matrix whose row Map differs from its range Map: process p owns the rows the
// range Map gives to process (p + 1) % P, listed backwards, so the graph has an Exporter (a
// permutation on one process). The range Map leaves the last process empty, so the row Map
// leaves the one before it empty.
RCP<crs_type> shiftedRows(GO m, GO k, const comm_ptr& comm) {
  const int p = comm->getSize(), r = comm->getRank();
  auto rangeMap = mapLastEmpty(m, comm);
  auto domainMap = rcp(new map_type(static_cast<Tpetra::global_size_t>(k), 0, comm));
  // Range-Map block of every process, to hand block (r + 1) % p to this one.
  std::vector<GO> firsts(p + 1, 0);
  {
    const GO mine = static_cast<GO>(localCount(*rangeMap));
    std::vector<GO> counts(p, 0);
    Teuchos::gatherAll<int, GO>(*comm, 1, &mine, p, counts.data());
    for (int q = 0; q < p; ++q) firsts[q + 1] = firsts[q] + counts[q];
  }
  const int from = (r + 1) % p;
  std::vector<GO> rows;
  for (GO g = firsts[from + 1] - 1; g >= firsts[from]; --g) rows.push_back(g);
  auto rowMap = rcp(new map_type(static_cast<Tpetra::global_size_t>(m),
                                 Teuchos::ArrayView<const GO>(rows), 0, comm));
  auto A = rcp(new crs_type(rowMap, 3));
  for (GO g : rows) {
    std::vector<GO> cols{(g * 7) % k};
    std::vector<SC> vals{1.0 + 0.01 * static_cast<SC>(g)};
    for (GO c : {(g * 3 + 1) % k, (g + k / 2) % k}) {
      if (std::find(cols.begin(), cols.end(), c) == cols.end())
        cols.push_back(c), vals.push_back(-0.5 + 0.001 * static_cast<SC>(c));
    }
    insertRow(*A, g, cols, vals);
  }
  A->fillComplete(domainMap, rangeMap);
  return A;
}

// Tall n x k matrix with a locally replicated domain Map: A x reads a replicated X, A^T x gives a
// replicated Y summed over the processes.
RCP<crs_type> tallReplicatedDomain(GO n, GO k, const comm_ptr& comm) {
  auto rowMap = mapLastEmpty(n, comm);
  auto domainMap =
      rcp(new map_type(static_cast<Tpetra::global_size_t>(k), 0, comm, Tpetra::LocallyReplicated));
  auto A = rcp(new crs_type(rowMap, 2));
  for (LO l = 0; l < localCount(*rowMap); ++l) {
    const GO g = rowMap->getGlobalElement(l);
    insertRow(*A, g, {g % k, (g + 1) % k}, {1.0 + 0.1 * static_cast<SC>(g % 5), -0.3});
  }
  A->fillComplete(domainMap, rowMap);
  return A;
}

// Wide k x n matrix with a locally replicated row and range Map: each process stores the entries
// of the columns it owns, so A x is the sum of every process's share (a replicated Y).
RCP<crs_type> wideReplicatedRange(GO k, GO n, const comm_ptr& comm) {
  auto rowMap =
      rcp(new map_type(static_cast<Tpetra::global_size_t>(k), 0, comm, Tpetra::LocallyReplicated));
  auto domainMap = mapLastEmpty(n, comm);
  auto A = rcp(new crs_type(rowMap, static_cast<std::size_t>(n)));
  for (LO l = 0; l < localCount(*domainMap); ++l) {
    const GO j = domainMap->getGlobalElement(l);
    insertRow(*A, j % k, {j}, {1.0 + 0.05 * static_cast<SC>(j)});
    if ((j * 5 + 2) % k != j % k) insertRow(*A, (j * 5 + 2) % k, {j}, {-0.25});
  }
  A->fillComplete(domainMap, rowMap);
  return A;
}

const char* modeName(Teuchos::ETransp mode) {
  return mode == Teuchos::NO_TRANS ? "N" : mode == Teuchos::TRANS ? "T" : "C";
}

// Largest |hola - native| / (1 + |native|) over the columns `cols` of two multivectors; NaN in
// the result gives infinity. The other columns must be untouched (equal bits or both NaN).
double compareColumns(const mv_type& hola, const mv_type& native, const std::vector<size_t>& cols,
                      bool* untouchedOk) {
  auto h = hola.getLocalViewHost(Tpetra::Access::ReadOnly);
  auto n = native.getLocalViewHost(Tpetra::Access::ReadOnly);
  double worst = 0.0;
  *untouchedOk = true;
  for (size_t j = 0; j < h.extent(1); ++j) {
    const bool touched = std::find(cols.begin(), cols.end(), j) != cols.end();
    for (size_t i = 0; i < h.extent(0); ++i) {
      const SC a = h(i, j), b = n(i, j);
      if (touched) {
        const double d = std::isfinite(a) && std::isfinite(b)
                             ? std::abs(a - b) / (1.0 + std::abs(b))
                             : std::numeric_limits<double>::infinity();
        worst = std::max(worst, d);
      } else if (!(a == b || (std::isnan(a) && std::isnan(b)))) {
        *untouchedOk = false;
      }
    }
  }
  return worst;
}

// HolaOperator::apply against CrsMatrix::apply for every mode, alpha / beta, vector count and
// stride. One line per mode.
void compareProducts(Checker& c, const RCP<const crs_type>& A, const std::string& name) {
  hola_op_type H(A);
  const double tol = 1e-12;
  const std::vector<std::pair<SC, SC>> coefficients{{1.0, 0.0}, {-0.7, 0.3}, {2.0, 1.0},
                                                    {1.5, 0.0}, {0.0, 0.5},  {0.0, 0.0}};
  // Columns used out of a 4-column multivector: contiguous (constant stride) or scattered.
  const std::vector<std::vector<size_t>> columnSets{{0}, {2}, {0, 1, 2}, {3, 0, 2}};
  for (Teuchos::ETransp mode : {Teuchos::NO_TRANS, Teuchos::TRANS, Teuchos::CONJ_TRANS}) {
    const auto inMap = mode == Teuchos::NO_TRANS ? A->getDomainMap() : A->getRangeMap();
    const auto outMap = mode == Teuchos::NO_TRANS ? A->getRangeMap() : A->getDomainMap();
    double worst = 0.0;
    bool ok = true;
    for (const auto& [alpha, beta] : coefficients) {
      for (const auto& cols : columnSets) {
        mv_type X(inMap, 4), Y0(outMap, 4);
        X.randomize();
        Y0.randomize();
        if (beta == 0.0) Y0.putScalar(kNaN);
        mv_type Yn(Y0, Teuchos::Copy), Yh(Y0, Teuchos::Copy);
        const Teuchos::ArrayView<const size_t> cv(cols);
        {
          auto Xs = X.subView(cv);
          auto Yns = Yn.subViewNonConst(cv);
          auto Yhs = Yh.subViewNonConst(cv);
          // Tpetra 13.2's transpose product fails on an X of non-constant stride when the graph
          // has an Importer (KokkosBlas::spmv sees all of X's columns): the reference gets a
          // constant-stride copy of X, HolaOperator the subview itself.
          const mv_type Xcopy(*Xs, Teuchos::Copy);
          A->apply(Xcopy, *Yns, mode, alpha, beta);
          H.apply(*Xs, *Yhs, mode, alpha, beta);
        }
        bool untouched = true;
        const double d = compareColumns(Yh, Yn, cols, &untouched);
        if (!(d <= tol) || !untouched) {
          ok = false;
          std::printf("  [process %d] %s op %s alpha %g beta %g columns %zu: difference %.3g%s\n",
                      c.comm()->getRank(), name.c_str(), modeName(mode), alpha, beta, cols.size(),
                      d, untouched ? "" : ", other columns changed");
        }
        worst = std::max(worst, d);
      }
    }
    c.check(ok, name + ": op " + modeName(mode) + " = CrsMatrix::apply (all alpha, beta, strides)",
            worst);
  }
}

// X and Y the same multivector (square matrices): Tpetra works through a copy, so must we. Not
// op T with beta = 0: there CrsMatrix::apply zeroes Y, hence X, before the product.
void compareAliased(Checker& c, const RCP<const crs_type>& A, const std::string& name) {
  hola_op_type H(A);
  double worst = 0.0;
  for (Teuchos::ETransp mode : {Teuchos::NO_TRANS, Teuchos::TRANS}) {
    for (SC beta : {0.0, 0.5}) {
      if (mode == Teuchos::TRANS && beta == 0.0) continue;
      mv_type V(A->getDomainMap(), 2);
      V.randomize();
      mv_type Vn(V, Teuchos::Copy), Vh(V, Teuchos::Copy);
      A->apply(Vn, Vn, mode, 1.3, beta);
      H.apply(Vh, Vh, mode, 1.3, beta);
      bool untouched = true;
      worst = std::max(worst, compareColumns(Vh, Vn, {0, 1}, &untouched));
    }
  }
  c.check(worst <= 1e-12, name + ": apply(X, X) (X aliases Y) = CrsMatrix::apply", worst);
}

double maxDifference(const RCP<const op_type>& H, const RCP<const crs_type>& A) {
  mv_type X(A->getDomainMap(), 2), Yn(A->getRangeMap(), 2), Yh(A->getRangeMap(), 2);
  X.randomize();
  A->apply(X, Yn);
  H->apply(X, Yh);
  bool untouched = true;
  return compareColumns(Yh, Yn, {0, 1}, &untouched);
}

// The analysis runs once per structure: not again for new values or a new matrix on the same
// graph, again for a new structure or when asked.
void analysisCache(Checker& c, const comm_ptr& comm) {
  RCP<crs_type> A = convectionDiffusion(9, comm, true);
  auto H = hola::tpetra::makeHolaOperator(A);
  const auto first = H->analysisCount();
  double d = maxDifference(H, A);
  d = std::max(d, maxDifference(H, A));
  c.check(first == 1 && H->analysisCount() == 1 && d <= 1e-12,
          "cache: analysis once at construction, not per apply", d);

  A->resumeFill();
  A->scale(-2.5);
  A->fillComplete(A->getDomainMap(), A->getRangeMap());
  d = maxDifference(H, A);
  c.check(H->analysisCount() == 1 && d <= 1e-12, "cache: new values in place, no new analysis", d);

  auto B = rcp(new crs_type(A->getCrsGraph()));
  B->setAllToScalar(0.75);
  B->fillComplete(A->getDomainMap(), A->getRangeMap());
  H->setMatrix(B);
  d = maxDifference(H, B);
  c.check(H->analysisCount() == 1 && d <= 1e-12, "cache: setMatrix, same CrsGraph, no new analysis",
          d);

  // A new sparsity pattern (no far entries): same sizes, new graph.
  RCP<crs_type> C = convectionDiffusion(9, comm, false, 0.5);
  H->setMatrix(C);
  d = maxDifference(H, C);
  c.check(H->analysisCount() == 2 && d <= 1e-12, "cache: setMatrix, new structure, new analysis",
          d);

  H->structureChanged();
  d = maxDifference(H, C);
  c.check(H->analysisCount() == 3 && d <= 1e-12, "cache: structureChanged() forces an analysis", d);
}

// Runs `body`, which must throw E on every process; reports the first line of the message.
template <class E, class F>
void expectThrow(Checker& c, const std::string& what, F&& body) {
  bool thrown = false;
  std::string message;
  try {
    body();
  } catch (const E& e) {
    thrown = true;
    message = e.what();
  } catch (const std::exception& e) {
    message = std::string("wrong exception type: ") + e.what();
  }
  // Teuchos messages start with file:line; the reason is on the last non-empty line.
  while (!message.empty() && message.back() == '\n') message.pop_back();
  const auto nl = message.find_last_of('\n');
  if (c.comm()->getRank() == 0 && !message.empty())
    std::printf("       %s\n", message.substr(nl == std::string::npos ? 0 : nl + 1).c_str());
  c.check(thrown, what);
}

bool sameBits(const mv_type& a, const mv_type& b) {
  auto x = a.getLocalViewHost(Tpetra::Access::ReadOnly);
  auto y = b.getLocalViewHost(Tpetra::Access::ReadOnly);
  for (size_t j = 0; j < x.extent(1); ++j)
    for (size_t i = 0; i < x.extent(0); ++i)
      if (!(x(i, j) == y(i, j) || (std::isnan(x(i, j)) && std::isnan(y(i, j))))) return false;
  return true;
}

void badInput(Checker& c, const comm_ptr& comm) {
  RCP<crs_type> A = convectionDiffusion(6, comm, true);
  hola_op_type H(A);

  expectThrow<std::invalid_argument>(c, "error: null matrix",
                                     [&] { hola_op_type bad(Teuchos::null); });
  {
    auto open = rcp(new crs_type(A->getRowMap(), 1));
    for (LO l = 0; l < localCount(*A->getRowMap()); ++l) {
      const GO g = A->getRowMap()->getGlobalElement(l);
      insertRow(*open, g, {g}, {1.0});
    }
    expectThrow<std::invalid_argument>(c, "error: matrix not fill complete",
                                       [&] { hola_op_type bad(open); });
    expectThrow<std::invalid_argument>(c, "error: setMatrix with a matrix not fill complete",
                                       [&] { H.setMatrix(open); });
    c.check(H.getMatrix().get() == A.get(), "error: setMatrix failure keeps the old matrix");
  }
  expectThrow<hola::error>(c, "error: unknown kernel name", [&] {
    hola::OperatorOptions options;
    options.kernel = "no-such-kernel";
    hola_op_type bad(A, options);
  });

  mv_type Y(A->getRangeMap(), 1);
  Y.randomize();
  const mv_type Ysaved(Y, Teuchos::Copy);
  {
    auto longer = rcp(new map_type(A->getDomainMap()->getGlobalNumElements() + 1, 0, comm));
    mv_type X(longer, 1);
    X.putScalar(1.0);
    expectThrow<std::invalid_argument>(c, "error: X on a Map of another global size",
                                       [&] { H.apply(X, Y); });
  }
  if (comm->getSize() > 1) {
    // Same global size, all of it on the last process (which owns none of the domain Map).
    const auto n = A->getDomainMap()->getGlobalNumElements();
    auto lumped = rcp(new map_type(n, comm->getRank() == comm->getSize() - 1 ? n : 0, 0, comm));
    mv_type X(lumped, 1);
    X.putScalar(1.0);
    expectThrow<std::invalid_argument>(c, "error: X distributed unlike the domain Map",
                                       [&] { H.apply(X, Y); });
  }
  {
    mv_type X(A->getDomainMap(), 2);
    X.putScalar(1.0);
    expectThrow<std::invalid_argument>(c, "error: X and Y with different vector counts",
                                       [&] { H.apply(X, Y); });
  }
  c.check(sameBits(Y, Ysaved), "error: Y unchanged after the rejected applies");

  A->resumeFill();
  {
    mv_type X(A->getDomainMap(), 1);
    X.putScalar(1.0);
    expectThrow<std::runtime_error>(c, "error: apply after resumeFill()", [&] { H.apply(X, Y); });
  }
  A->fillComplete(A->getDomainMap(), A->getRangeMap());
  const double d = maxDifference(rcp(&H, false), A);
  c.check(d <= 1e-12, "error: apply works again after fillComplete()", d);
}

// 3D Poisson (7-point) on an n^3 grid, rows over every process but the last.
RCP<crs_type> poisson3d(GO n, const comm_ptr& comm) {
  auto map = mapLastEmpty(n * n * n, comm);
  auto A = rcp(new crs_type(map, 7));
  for (LO l = 0; l < localCount(*map); ++l) {
    const GO r = map->getGlobalElement(l), i = r / (n * n), j = (r / n) % n, k = r % n;
    std::vector<GO> cols{r};
    std::vector<SC> vals{6.0};
    if (i > 0) cols.push_back(r - n * n), vals.push_back(-1.0);
    if (i < n - 1) cols.push_back(r + n * n), vals.push_back(-1.0);
    if (j > 0) cols.push_back(r - n), vals.push_back(-1.0);
    if (j < n - 1) cols.push_back(r + n), vals.push_back(-1.0);
    if (k > 0) cols.push_back(r - 1), vals.push_back(-1.0);
    if (k < n - 1) cols.push_back(r + 1), vals.push_back(-1.0);
    insertRow(*A, r, cols, vals);
  }
  A->fillComplete();
  return A;
}

struct SolveResult {
  int iterations = -1;
  bool converged = false;
  double residual = 0.0;  // max over right-hand sides of ||b - A x|| / ||b||, with A native
};

// Solves A X = B from X = 0 with `op` standing for A.
SolveResult solve(const std::string& solverName, const RCP<const op_type>& op,
                  const RCP<const crs_type>& A, const RCP<op_type>& prec, bool leftPrec,
                  const RCP<const mv_type>& B) {
  const int numRhs = static_cast<int>(B->getNumVectors());
  auto X = rcp(new mv_type(A->getDomainMap(), numRhs));
  auto problem = rcp(new Belos::LinearProblem<SC, mv_type, op_type>(op, X, B));
  if (leftPrec)
    problem->setLeftPrec(prec);
  else
    problem->setRightPrec(prec);
  problem->setProblem();
  auto params = Teuchos::parameterList();
  params->set("Maximum Iterations", 400);
  params->set("Convergence Tolerance", 1e-9);
  if (solverName == "GMRES") params->set("Num Blocks", 60);
  if (solverName == "Block CG") params->set("Block Size", numRhs);
  Belos::SolverFactory<SC, mv_type, op_type> factory;
  auto solver = factory.create(solverName, params);
  solver->setProblem(problem);
  SolveResult r;
  r.converged = solver->solve() == Belos::Converged;
  r.iterations = solver->getNumIters();
  mv_type R(A->getRangeMap(), numRhs);
  A->apply(*X, R);
  R.update(1.0, *B, -1.0);
  std::vector<SC> rn(numRhs), bn(numRhs);
  R.norm2(Teuchos::ArrayView<SC>(rn));
  B->norm2(Teuchos::ArrayView<SC>(bn));
  for (int j = 0; j < numRhs; ++j) r.residual = std::max(r.residual, rn[j] / bn[j]);
  return r;
}

RCP<op_type> ifpack2(const RCP<const crs_type>& A, const std::string& type,
                     const Teuchos::ParameterList& params) {
  using row_matrix_type = Tpetra::RowMatrix<SC, LO, GO, NO>;
  auto prec = Ifpack2::Factory::create<row_matrix_type>(type, A);
  prec->setParameters(params);
  prec->initialize();
  prec->compute();
  return prec;
}

// Belos with the CrsMatrix and with HolaOperator (same preconditioner, built on the CrsMatrix):
// the iteration counts must be equal.
void belosSolvers(Checker& c, const comm_ptr& comm) {
  const RCP<const crs_type> spd = poisson3d(8, comm);
  const RCP<const crs_type> unsym = convectionDiffusion(20, comm, false);
  Teuchos::ParameterList jacobi;
  jacobi.set("relaxation: type", "Jacobi");
  Teuchos::ParameterList ilu;
  ilu.set("fact: iluk level-of-fill", 0);
  const RCP<op_type> spdPrec = ifpack2(spd, "RELAXATION", jacobi);
  const RCP<op_type> unsymPrec = ifpack2(unsym, "RILUK", ilu);

  struct Case {
    const char* solver;
    bool symmetric;
    int numRhs;
  };
  for (const Case& k : {Case{"CG", true, 1}, Case{"Block CG", true, 3}, Case{"GMRES", false, 1},
                        Case{"BICGSTAB", false, 1}}) {
    const auto& A = k.symmetric ? spd : unsym;
    const auto& prec = k.symmetric ? spdPrec : unsymPrec;
    // The same right-hand sides for both (randomize() draws new numbers at every call).
    auto B = rcp(new mv_type(A->getRangeMap(), k.numRhs));
    {
      mv_type solution(A->getDomainMap(), k.numRhs);
      solution.randomize();
      A->apply(solution, *B);
    }
    const SolveResult native = solve(k.solver, A, A, prec, k.symmetric, B);
    const SolveResult hola = solve(k.solver, rcp(new hola_op_type(A)), A, prec, k.symmetric, B);
    const bool ok = native.converged && hola.converged && native.iterations == hola.iterations &&
                    hola.residual <= 1e-8;
    c.check(ok,
            std::string("Belos ") + k.solver + ": iterations " + std::to_string(hola.iterations) +
                " (native " + std::to_string(native.iterations) + "), residual",
            hola.residual);
  }
}

}  // namespace

int main(int argc, char** argv) {
  Tpetra::ScopeGuard scope(&argc, &argv);
  int failures = 0;
  {
    const comm_ptr comm = Tpetra::getDefaultComm();
    Checker c(comm);
    const std::string kernel = hola_op_type(convectionDiffusion(3, comm, false)).kernelName();
    if (comm->getRank() == 0)
      std::printf("HolaOperator vs CrsMatrix on %d process(es), kernel %s\n", comm->getSize(),
                  kernel.c_str());
    try {
      const RCP<const crs_type> square = convectionDiffusion(7, comm, true);
      // With 2 processes the second owns nothing, so only 4 make an Importer here.
      c.check(!square->getCrsGraph()->getImporter().is_null() || comm->getSize() <= 2,
              "square matrix has an Importer (4 processes)");
      compareProducts(c, square, "square");
      compareAliased(c, square, "square");

      const RCP<const crs_type> shifted = shiftedRows(41, 23, comm);
      c.check(!shifted->getCrsGraph()->getExporter().is_null(),
              "rectangular matrix has an Exporter (row Map != range Map)");
      compareProducts(c, shifted, "rectangular, row Map != range Map");

      compareProducts(c, tallReplicatedDomain(37, 5, comm), "tall, replicated domain Map");
      compareProducts(c, wideReplicatedRange(6, 29, comm), "wide, replicated range Map");

      analysisCache(c, comm);
      badInput(c, comm);
      belosSolvers(c, comm);
    } catch (const std::exception& e) {
      std::printf("[process %d] unexpected exception: %s\n", comm->getRank(), e.what());
      c.check(false, "no unexpected exception");
    }
    failures = c.failures();
    if (comm->getRank() == 0)
      std::printf("%s: %d failure(s)\n", failures ? "FAILED" : "PASSED", failures);
  }
  return failures ? 1 : 0;
}
