// tpetra_apply_calls: the cost of one Tpetra operator apply, call by call. On the 3D 7-point
// Laplacian of an n x n x n grid (-n, default 22: about 10^4 rows; -n 100: 10^6) or a square
// Matrix Market file (--matrix), rows in contiguous blocks over the processes, it times --calls
// (default 1000) back-to-back applies of
//   CrsMatrix      Tpetra's own Tpetra::CrsMatrix::apply,
//   HolaOperator   hola::tpetra::HolaOperator::apply (the adapter) on the same matrix,
//   hola::Operator the local product alone: the hola::Operator the adapter runs, called directly
//                  on the matrix's local arrays and plain vectors of the local column / row sizes
//                  (no Map checks, no transfers: the floor of the adapter's cost),
// for Y = A X and Y = A^T X, each with beta = 0 and beta = 1 (alpha = 1, one vector), and
// Y = A X once more with X and Y on a Map equal to the matrix's but made separately (a Map check
// by pointer cannot pass then). Every case runs --rounds times, the cases interleaved, after
// --warmup untimed calls of each; the time of a round is the wall clock around its calls, the
// maximum over the processes. Reports the median and the minimum over the rounds in microseconds
// per call, and the heap allocations per call (alloc_count.hpp; the maximum over the processes),
// and, on the CUDA node with HOLA_TPETRA_COUNT_TRANSFERS, the host <-> device copies per call
// (CUPTI, transfer_count.hpp; a separate pass after the timed rounds), as a table and as a
// "result: {...}" JSON line (--output FILE: the same object with the commit and
// the command). Exit code 1 when the two operators disagree or the adapter analysed the matrix
// more than once.
//
//   OMP_NUM_THREADS=1 tpetra_apply_calls -n 100 --calls 200 --rounds 3
//   mpiexec -n 2 tpetra_apply_calls -n 22
#include <omp.h>
#include <Teuchos_CommHelpers.hpp>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "alloc_count.hpp"
#include "hola/operator.hpp"
#include "hola/tpetra_operator.hpp"
#include "run_info.hpp"
#include "tpetra_problems.hpp"
#include "transfer_count.hpp"

namespace {

using namespace hola::demo::tpetra_types;
using local_op_type = hola_op_type::hola_operator_type;
using Clock = std::chrono::steady_clock;
using Teuchos::RCP;
using Teuchos::rcp;

struct Settings {
  int n = 22;
  std::string matrix;  // Matrix Market file instead of the grid
  int calls = 1000;
  int warmup = 10;
  int rounds = 3;
  int countCalls = 20;  // calls per case in the transfer-count pass
  std::string kernel = "auto";
  double tolerance = 1e-12;
  std::string output;   // the result JSON (process 0)
  std::string command;  // recorded in it
};

// x_i = 1 + (i mod 7) / 8 on the global index i (never time on zeros).
void fill(mv_type& X) {
  auto v = X.getLocalViewHost(Tpetra::Access::OverwriteAll);
  const auto& map = *X.getMap();
  for (std::size_t i = 0; i < v.extent(0); ++i) {
    const GO g = map.getGlobalElement(static_cast<LO>(i));
    for (std::size_t j = 0; j < v.extent(1); ++j) v(i, j) = 1.0 + static_cast<SC>(g % 7) / 8;
  }
}

double maxOverProcesses(const comm_ptr& comm, double v) {
  double m = 0;
  Teuchos::reduceAll<int, double>(*comm, Teuchos::REDUCE_MAX, v, Teuchos::outArg(m));
  return m;
}

// max |Y - Z| / max |Z| over all entries.
double relativeDifference(const mv_type& Y, const mv_type& Z) {
  mv_type D(Z.getMap(), Z.getNumVectors());
  D.update(1.0, Y, -1.0, Z, 0.0);
  std::vector<SC> d(Z.getNumVectors()), z(Z.getNumVectors());
  D.normInf(Teuchos::ArrayView<SC>(d));
  Z.normInf(Teuchos::ArrayView<SC>(z));
  const SC dm = *std::max_element(d.begin(), d.end());
  const SC zm = *std::max_element(z.begin(), z.end());
  return zm > 0 ? dm / zm : dm;
}

// A vector in the node's memory (device memory on the CUDA node).
using node_vector = Kokkos::View<SC*, NO::memory_space>;

// x_i = 1 + (i mod 7) / 8, filled on the host and copied to the node's memory.
node_vector patternVector(const char* label, std::int64_t size) {
  node_vector v(std::string(label), static_cast<std::size_t>(size));
  auto h = Kokkos::create_mirror_view(v);
  for (std::size_t i = 0; i < h.extent(0); ++i) h(i) = 1.0 + static_cast<SC>(i % 7) / 8;
  Kokkos::deep_copy(v, h);
  return v;
}

struct Case {
  Case(std::string op_, std::string key_, char mode_, double beta_, bool otherMap_,
       std::function<void()> run_)
      : op(std::move(op_)),
        key(std::move(key_)),
        mode(mode_),
        beta(beta_),
        otherMap(otherMap_),
        run(std::move(run_)) {}
  std::string op;   // "CrsMatrix", "HolaOperator", "hola::Operator"
  std::string key;  // JSON key prefix: crs, hola, local
  char mode;        // 'N' or 'T'
  double beta;      // 0 or 1
  bool otherMap;    // X and Y on a Map made separately
  std::function<void()> run;
  std::vector<double> us;  // per call, one per round
  double allocsPerCall = 0;
  double toDevicePerCall = 0, toHostPerCall = 0;  // copies (maximum over the processes)
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

// Microseconds per call of `calls` back-to-back calls (maximum over the processes), and the heap
// allocations per call (maximum over the processes).
// The clock stops once the device work of the calls is done (fence()).
double timeCalls(Case& c, int calls, const comm_ptr& comm) {
  fence();
  comm->barrier();
  const long long a0 = hola::alloc_count::now();
  const auto t0 = Clock::now();
  for (int i = 0; i < calls; ++i) c.run();
  fence();
  const double s = std::chrono::duration<double>(Clock::now() - t0).count();
  const long long a1 = hola::alloc_count::now();
  c.allocsPerCall =
      std::max(c.allocsPerCall, maxOverProcesses(comm, static_cast<double>(a1 - a0) / calls));
  return 1e6 * maxOverProcesses(comm, s) / calls;
}

// Host <-> device copies per call over `calls` calls (maximum over the processes).
void countTransfers(Case& c, int calls, const comm_ptr& comm) {
  fence();
  comm->barrier();
  (void)hola::demo::transfers::take();
  for (int i = 0; i < calls; ++i) c.run();
  fence();
  const auto n = hola::demo::transfers::take();
  c.toDevicePerCall = maxOverProcesses(comm, static_cast<double>(n.to_device) / calls);
  c.toHostPerCall = maxOverProcesses(comm, static_cast<double>(n.to_host) / calls);
}

int run(const Settings& s, const comm_ptr& comm) {
  const bool root = comm->getRank() == 0;
  const RCP<const crs_type> A =
      s.matrix.empty() ? poisson3d(s.n, comm) : readMatrixMarket(s.matrix, comm);
  const std::string problem =
      s.matrix.empty() ? "3D Poisson " + std::to_string(s.n) + "^3" : s.matrix;
  hola::OperatorOptions options;
  options.kernel = s.kernel;

  comm->barrier();
  const auto t0 = Clock::now();
  const auto H = rcp(new hola_op_type(A, options));
  const double setupSeconds =
      maxOverProcesses(comm, std::chrono::duration<double>(Clock::now() - t0).count());

  // The local product alone: the same kind of hola::Operator on the local CSR arrays and on
  // vectors in the node's memory (device memory on the CUDA node), on the adapter's stream.
  const auto lcl = A->getLocalMatrixDevice();
  hola::CsrView<SC, hola_op_type::hola_index_type, hola_op_type::hola_offset_type> view;
  view.rows = static_cast<std::int64_t>(lcl.numRows());
  view.cols = static_cast<std::int64_t>(lcl.numCols());
  view.nnz = static_cast<std::int64_t>(lcl.nnz());
  view.row_ptr =
      lcl.graph.row_map.extent(0) > 0
          ? reinterpret_cast<const hola_op_type::hola_offset_type*>(lcl.graph.row_map.data())
          : nullptr;
  view.col_idx = reinterpret_cast<const hola_op_type::hola_index_type*>(lcl.graph.entries.data());
  view.values = lcl.values.data();
  view.memory = hola_op_type::onDevice ? hola::Memory::device : hola::Memory::host;
  local_op_type local(options);
  local.setup(view, 1);
  void* const stream = hola_op_type::stream();
  const node_vector xCols = patternVector("xCols", view.cols),
                    xRows = patternVector("xRows", view.rows);
  const node_vector yRows(std::string("yRows"), view.rows), yCols(std::string("yCols"), view.cols);

  // Square matrix: domain, range and row Maps are one Map object.
  mv_type X(A->getDomainMap(), 1), Y(A->getRangeMap(), 1), Z(A->getRangeMap(), 1);
  fill(X);
  const auto otherMap = rcp(new map_type(A->getGlobalNumRows(), 0, comm));
  mv_type Xo(otherMap, 1), Yo(otherMap, 1);
  fill(Xo);

  // The two operators agree (N and T) before anything is timed.
  double maxDiff = 0;
  for (const Teuchos::ETransp mode : {Teuchos::NO_TRANS, Teuchos::TRANS}) {
    A->apply(X, Y, mode);
    H->apply(X, Z, mode);
    maxDiff = std::max(maxDiff, relativeDifference(Z, Y));
  }
  Y.putScalar(0.5);

  std::vector<Case> cases;
  for (const char mode : {'N', 'T'}) {
    const Teuchos::ETransp m = mode == 'N' ? Teuchos::NO_TRANS : Teuchos::TRANS;
    const hola::Op op = mode == 'N' ? hola::Op::N : hola::Op::T;
    for (const double beta : {0.0, 1.0}) {
      cases.emplace_back("CrsMatrix", "crs", mode, beta, false,
                         [&, m, beta] { A->apply(X, Y, m, 1.0, beta); });
      cases.emplace_back("HolaOperator", "hola", mode, beta, false,
                         [&, m, beta] { H->apply(X, Y, m, 1.0, beta); });
      cases.emplace_back("hola::Operator", "local", mode, beta, false, [&, op, beta] {
        if (op == hola::Op::N)
          local.apply(op, 1.0, {xCols.data(), view.cols}, beta, {yRows.data(), view.rows}, stream);
        else
          local.apply(op, 1.0, {xRows.data(), view.rows}, beta, {yCols.data(), view.cols}, stream);
      });
    }
  }
  cases.emplace_back("CrsMatrix", "crs", 'N', 0.0, true, [&] { A->apply(Xo, Yo); });
  cases.emplace_back("HolaOperator", "hola", 'N', 0.0, true, [&] { H->apply(Xo, Yo); });

  for (Case& c : cases)
    for (int i = 0; i < s.warmup; ++i) c.run();
  for (int r = 0; r < s.rounds; ++r)
    for (Case& c : cases) {
      // beta = 1 adds A X to Y at every call: start each round from the same Y.
      Y.putScalar(0.5);
      Kokkos::deep_copy(yRows, 0.5);
      Kokkos::deep_copy(yCols, 0.5);
      c.us.push_back(timeCalls(c, s.calls, comm));
    }
  // The copies per call, in a pass of their own (CUPTI's records stay out of the timed rounds).
  const bool counted = hola_op_type::onDevice && hola::demo::transfers::start();
  const std::string countNote =
      counted ? "CUPTI memcpy records"
              : (hola_op_type::onDevice ? hola::demo::transfers::reason()
                                        : std::string("host node: no device"));
  if (counted)
    for (Case& c : cases) countTransfers(c, s.countCalls, comm);
  const std::string node = nodeDescription(comm);

  const auto analyses =
      static_cast<long long>(maxOverProcesses(comm, static_cast<double>(H->analysisCount())));
  const bool ok = maxDiff <= s.tolerance && analyses == 1;

  if (root) {
    std::printf(
        "tpetra_apply_calls: %s, %llu rows, %llu entries, %d process(es), "
        "OMP_NUM_THREADS %d, node %s, Hola kernel %s (N) / %s (T)\n",
        problem.c_str(), static_cast<unsigned long long>(A->getGlobalNumRows()),
        static_cast<unsigned long long>(A->getGlobalNumEntries()), comm->getSize(),
        omp_get_max_threads(), NO::execution_space::name(), H->kernelName().c_str(),
        H->kernelName(Teuchos::TRANS).c_str());
    std::printf("%s\n", node.c_str());
    std::printf(
        "HolaOperator setup %.3f ms; analyses %lld; max relative difference to CrsMatrix "
        "%.2e\n",
        1e3 * setupSeconds, analyses, maxDiff);
    std::printf(
        "host <-> device copies per call: %s\n",
        counted ? "counted (columns to-dev / to-host, over separate calls)" : countNote.c_str());
    std::printf(
        "microseconds per call: median of %d rounds of %d calls [minimum]; heap "
        "allocations per call\n",
        s.rounds, s.calls);
    std::printf("%-4s %-4s %-9s %-15s %12s %12s %8s %7s %7s\n", "mode", "beta", "Map", "operator",
                "us/call", "[min]", "allocs", "to-dev", "to-host");
    for (const Case& c : cases) {
      char copies[32] = "      -       -";
      if (counted)
        std::snprintf(copies, sizeof(copies), "%7.3f %7.3f", c.toDevicePerCall, c.toHostPerCall);
      std::printf("%-4c %-4g %-9s %-15s %12.2f %12.2f %8.1f %s\n", c.mode, c.beta,
                  c.otherMap ? "separate" : "A's", c.op.c_str(), median(c.us),
                  *std::min_element(c.us.begin(), c.us.end()), c.allocsPerCall, copies);
    }
    std::printf("HolaOperator / CrsMatrix (medians):");
    for (std::size_t i = 0; i + 1 < cases.size(); ++i)
      if (cases[i].key == "crs" && cases[i + 1].key == "hola")
        std::printf(" %c beta %g%s %.3f;", cases[i].mode, cases[i].beta,
                    cases[i].otherMap ? " separate Map" : "",
                    median(cases[i + 1].us) / median(cases[i].us));
    std::printf("\n");

    // The JSON object once, for the "result: " line and for --output.
    char buf[4096];
    std::snprintf(
        buf, sizeof(buf),
        "{\"program\": \"tpetra_apply_calls\", \"problem\": %s, \"n\": %d, \"rows\": %llu, "
        "\"nnz\": %llu, \"ranks\": %d, \"omp_threads\": %d, \"node\": \"%s\", "
        "\"kernel_n\": \"%s\", \"kernel_t\": \"%s\", \"calls\": %d, \"rounds\": %d, "
        "\"warmup\": %d, \"setup_ms\": %.4f, \"analyses\": %lld, "
        "\"max_rel_diff\": %.3e, \"allocs_counted\": %s, \"device\": %s, "
        "\"transfers_counted\": %s, \"transfers_note\": %s, \"transfer_count_calls\": %d",
        nlohmann::json(s.matrix.empty() ? "poisson3d:n=" + std::to_string(s.n) : s.matrix)
            .dump()
            .c_str(),
        s.n, static_cast<unsigned long long>(A->getGlobalNumRows()),
        static_cast<unsigned long long>(A->getGlobalNumEntries()), comm->getSize(),
        omp_get_max_threads(), NO::execution_space::name(), H->kernelName().c_str(),
        H->kernelName(Teuchos::TRANS).c_str(), s.calls, s.rounds, s.warmup, 1e3 * setupSeconds,
        analyses, maxDiff, hola::alloc_count::available() ? "true" : "false",
        nlohmann::json(node).dump().c_str(), counted ? "true" : "false",
        nlohmann::json(countNote).dump().c_str(), s.countCalls);
    std::string json = buf;
    for (const Case& c : cases) {
      const std::string key = c.key + "_" + c.mode + "_beta" + (c.beta == 0 ? "0" : "1") +
                              (c.otherMap ? "_separate_map" : "");
      std::snprintf(buf, sizeof(buf), ", \"%s_us\": %.4f, \"%s_us_min\": %.4f, \"%s_allocs\": %.2f",
                    key.c_str(), median(c.us), key.c_str(),
                    *std::min_element(c.us.begin(), c.us.end()), key.c_str(), c.allocsPerCall);
      json += buf;
      if (counted) {
        std::snprintf(buf, sizeof(buf),
                      ", \"%s_to_device_per_call\": %.3f, \"%s_to_host_per_call\": %.3f",
                      key.c_str(), c.toDevicePerCall, key.c_str(), c.toHostPerCall);
        json += buf;
      }
    }
    json += std::string(", \"ok\": ") + (ok ? "true" : "false") + "}";
    hola::demo::report_result(json, s.output, s.command);
    if (!ok)
      std::fprintf(stderr, "tpetra_apply_calls: %s\n",
                   maxDiff > s.tolerance ? "HolaOperator and CrsMatrix disagree"
                                         : "the adapter analysed the matrix more than once");
  }
  return ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  Settings s;
  s.command = hola::demo::command_line(argc, argv);
  return tpetra_main(
      argc, argv, "tpetra_apply_calls",
      "tpetra_apply_calls: microseconds per apply of Tpetra's CrsMatrix and of Hola's "
      "HolaOperator",
      [&](CLI::App& app) {
        app.add_option("-n,--n", s.n, "grid points per direction (n^3 rows)")
            ->check(CLI::Range(2, 100000));
        app.add_option("--matrix,--mtx", s.matrix,
                       "square Matrix Market file instead of the generated grid")
            ->check(CLI::ExistingFile);
        app.add_option("--calls", s.calls, "timed back-to-back calls per case and round")
            ->check(CLI::Range(1, 100000000));
        app.add_option("--warmup", s.warmup, "untimed calls of each case before the rounds")
            ->check(CLI::Range(0, 100000000));
        app.add_option("--rounds", s.rounds, "rounds of all cases (median and minimum reported)")
            ->check(CLI::Range(1, 1000));
        app.add_option("--count-calls", s.countCalls,
                       "calls per case in the host <-> device copy count (CUDA node)")
            ->check(CLI::Range(1, 100000));
        app.add_option("-k,--kernel", s.kernel, "Hola kernel (auto, cpu, or a GPU kernel)");
        app.add_option("--tolerance", s.tolerance,
                       "largest relative difference between the two operators' results");
        app.add_option("-o,--output", s.output,
                       "also write the result JSON (with commit and command) to this file "
                       "(process 0)");
      },
      [&](const comm_ptr& comm) { return run(s, comm); });
}
