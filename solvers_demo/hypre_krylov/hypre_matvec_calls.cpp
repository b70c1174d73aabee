// hypre_matvec_calls: the cost of one HYPRE ParCSR matrix-vector product, call by call, with
// HYPRE's own product and with Hola's. On the 3D 7-point Laplacian of an n x n x n grid (-n,
// default 22: about 10^4 rows; -n 100: 10^6) or a square Matrix Market file (--matrix), rows split
// evenly over the ranks, it times --calls
// (default 1000) back-to-back products y = A x + beta y, beta = 0 and 1, of
//   hypre      hypre_ParCSRMatrixMatvec, what HYPRE's Krylov solvers call,
//   hook       Hola's matvec as a PCG solver calls it: the solver's Matvec slot after
//              HolaHypreEnable and HYPRE_ParCSRPCGSetup (with the context the hook made there),
//   apply      HolaHypreMatvecApply, the standalone entry point,
//   local      the product of the diagonal block alone: a hola::Operator, like the adapter's,
//              called directly on the block's arrays (no exchange, no off-diagonal block, no
//              checks: the floor of the adapter's cost),
// and with several ranks the product of the off-diagonal block alone, y += A_offd g with the
// ghost values g, once by the same kind of hola::Operator (what the adapter runs after the
// exchange) and once by hypre_CSRMatrixMatvec (what HYPRE's matvec runs; it visits only the rows
// with entries when the block has a compressed row list, hypre_CSRMatrixRownnz).
// Memory: where the HYPRE it is built against keeps its objects (hypre_memory.hpp). With a CPU
// HYPRE everything is in host memory. With a HYPRE built for CUDA GPUs (HYPRE_USING_GPU) the
// matrix and vectors are moved to device memory after assembly, the local operators get device
// views and device buffers, and every product runs on the GPU on HYPRE's compute stream (the
// stream Hola's adapter uses too); without a usable GPU (or with a Hola built without CUDA) the
// program says why and exits with 77.
// Every case runs --rounds times, the cases interleaved, after --warmup untimed calls of each; the
// time of a round is the wall clock around its calls, the maximum over the ranks. On the GPU the
// device is synchronised right before the clock starts and right after the calls, before it
// stops, so that a round's time includes its kernels. Reports the median and the minimum over the
// rounds in microseconds per call and the host heap allocations per call (alloc_count.hpp; the
// maximum over the ranks), as a table and as a "result: {...}" JSON line with the memory used
// ("memory": "host" or "device", and "gpu": its name on the device) (--output FILE: the same
// object with the commit and the command). Exit code 1 when Hola's products differ from HYPRE's
// or Hola analysed a block again during the timed calls.
//
//   OMP_NUM_THREADS=1 hypre_matvec_calls -n 100 --calls 200 --rounds 3
//   mpiexec -n 2 hypre_matvec_calls -n 22
//   hypre_matvec_calls -n 200 --calls 1000 --rounds 3   (a GPU HYPRE: one GPU, device memory)
#include <HYPRE.h>
#include <HYPRE_parcsr_ls.h>
#include <_hypre_parcsr_ls.h>
#include <mpi.h>
#include <omp.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "alloc_count.hpp"
#include "grid_problems.hpp"
#include "hola/gpu_kernels.hpp"
#include "hola/hypre.h"
#include "hola/operator.hpp"
#include "hypre_krylov/hypre_memory.hpp"
#include "run_info.hpp"

// The device path: a HYPRE built with CUDA and a Hola built with CUDA (its kernels). Any other GPU
// HYPRE stops in main with 77 before anything runs.
#if defined(HYPRE_USING_CUDA) && defined(HOLA_ENABLE_CUDA)
#define HOLA_MATVEC_CALLS_DEVICE 1
#include <cuda_runtime_api.h>
// Declared in _hypre_utilities.hpp (C++ linkage), which needs nvcc; HYPRE's CUDA build defines it.
cudaStream_t hypre_DeviceDataComputeStream(hypre_DeviceData* data);
#else
#define HOLA_MATVEC_CALLS_DEVICE 0
#endif

namespace {

using Clock = std::chrono::steady_clock;
using Index = std::conditional_t<sizeof(HYPRE_Int) == 4, std::int32_t, std::int64_t>;
using LocalOperator = hola::Operator<HYPRE_Complex, Index, Index>;

int rank = 0, nranks = 1;

// Where the products run: device memory and HYPRE's compute stream on the device path, else host
// memory (the stream is then ignored).
constexpr bool kOnDevice = HOLA_MATVEC_CALLS_DEVICE == 1;
constexpr hola::Memory kMemory = kOnDevice ? hola::Memory::device : hola::Memory::host;
constexpr HYPRE_MemoryLocation kLocation = kOnDevice ? HYPRE_MEMORY_DEVICE : HYPRE_MEMORY_HOST;

[[noreturn]] void fail(const std::string& what) { throw std::runtime_error(what); }

#if HOLA_MATVEC_CALLS_DEVICE
void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) fail(std::string(what) + ": " + cudaGetErrorString(e));
}
#endif

// HYPRE's compute stream (where its products and Hola's adapter run) on the device, else null.
void* product_stream() {
#if HOLA_MATVEC_CALLS_DEVICE
  return hypre_DeviceDataComputeStream(hypre_HandleDeviceData(hypre_handle()));
#else
  return nullptr;
#endif
}

// Waits for all work queued on the GPU (every stream); nothing on the host.
void sync_device() {
#if HOLA_MATVEC_CALLS_DEVICE
  hypre_SyncDevice();
#endif
}

// The name of the GPU in use; empty on the host.
std::string gpu_name() {
#if HOLA_MATVEC_CALLS_DEVICE
  const std::string name = hola::gpu::device_name();
  return name.empty() ? "unknown GPU" : name;
#else
  return {};
#endif
}

// dst[0, src.size()) = src, dst in the products' memory.
void copy_in(HYPRE_Complex* dst, const std::vector<HYPRE_Complex>& src) {
  if (src.empty()) return;
#if HOLA_MATVEC_CALLS_DEVICE
  check(cudaMemcpy(dst, src.data(), src.size() * sizeof(HYPRE_Complex), cudaMemcpyHostToDevice),
        "copying to the GPU");
#else
  std::copy(src.begin(), src.end(), dst);
#endif
}

// n values of the products' memory that belong to this program (the local operators' y): a
// std::vector on the host, a cudaMalloc'd array on the device.
class Values {
 public:
  Values(std::int64_t n, HYPRE_Complex value) : n_(n) {
#if HOLA_MATVEC_CALLS_DEVICE
    if (n_ > 0)
      check(cudaMalloc(reinterpret_cast<void**>(&device_), sizeof(HYPRE_Complex) * n_),
            "allocating GPU memory");
#else
    host_.resize(static_cast<std::size_t>(n_));
#endif
    fill(value);
  }
  ~Values() {
#if HOLA_MATVEC_CALLS_DEVICE
    if (device_) cudaFree(device_);
#endif
  }
  Values(const Values&) = delete;
  Values& operator=(const Values&) = delete;

  HYPRE_Complex* data() {
#if HOLA_MATVEC_CALLS_DEVICE
    return device_;
#else
    return host_.data();
#endif
  }
  std::int64_t size() const { return n_; }
  hola::Vec<HYPRE_Complex> vec() { return {data(), n_}; }
  void fill(HYPRE_Complex value) {
#if HOLA_MATVEC_CALLS_DEVICE
    copy_in(device_, std::vector<HYPRE_Complex>(static_cast<std::size_t>(n_), value));
#else
    std::fill(host_.begin(), host_.end(), value);
#endif
  }

 private:
  std::int64_t n_ = 0;
#if HOLA_MATVEC_CALLS_DEVICE
  HYPRE_Complex* device_ = nullptr;
#else
  std::vector<HYPRE_Complex> host_;
#endif
};

struct Options {
  long long n = 22;
  std::string matrix;  // Matrix Market file instead of the grid
  int calls = 1000;
  int warmup = 10;
  int rounds = 3;
  std::string kernel = "auto";
  double tolerance = 1e-12;
  std::string output;   // the result JSON (rank 0)
  std::string command;  // recorded in it
};

double max_over_ranks(double v) {
  double m = 0;
  MPI_Allreduce(&v, &m, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return m;
}

using Matrix = hola::demo::IjMatrix;

// The 3D 7-point Laplacian (grid_problems.hpp), each rank setting its own rows in one call, or
// the --matrix file.
Matrix build(const Options& o) {
  if (!o.matrix.empty()) return hola::demo::read_ij_matrix(o.matrix);
  const auto side = static_cast<HYPRE_BigInt>(o.n);
  return hola::demo::assemble_ij_matrix(side * side * side, [&](HYPRE_BigInt r, auto&& add) {
    hola::grid::poisson3d_row(side, r, add);
  });
}

struct Vector {
  HYPRE_IJVector ij = nullptr;
  HYPRE_ParVector v = nullptr;
  double* data() const { return hypre_VectorData(hypre_ParVectorLocalVector(v)); }
  HYPRE_Int size() const { return hypre_VectorSize(hypre_ParVectorLocalVector(v)); }
};

// x_i = 1 + (i mod 7) / 8 on the global index i when `pattern`, else `value`. Set from host
// arrays, then moved to device memory with a GPU HYPRE (hypre_memory.hpp).
Vector make_vector(const Matrix& m, bool pattern, double value) {
  Vector x;
  HYPRE_IJVectorCreate(MPI_COMM_WORLD, m.lo, m.hi, &x.ij);
  HYPRE_IJVectorSetObjectType(x.ij, HYPRE_PARCSR);
  hola::demo::ij_initialize(x.ij);
  std::vector<HYPRE_BigInt> idx;
  std::vector<double> vals;
  for (HYPRE_BigInt i = m.lo; i <= m.hi; ++i) {
    idx.push_back(i);
    vals.push_back(pattern ? 1.0 + static_cast<double>(i % 7) / 8 : value);
  }
  if (!idx.empty())
    HYPRE_IJVectorSetValues(x.ij, static_cast<HYPRE_Int>(idx.size()), idx.data(), vals.data());
  if (hola::demo::ij_assemble(x.ij) != 0) fail("assembling a vector failed");
  HYPRE_IJVectorGetObject(x.ij, reinterpret_cast<void**>(&x.v));
  return x;
}

// Every value of y (in either memory: HYPRE fills it where it is).
void set(const Vector& y, double value) { hypre_ParVectorSetConstantValues(y.v, value); }

// The local values of y on the host (copied from the device after its work is done).
std::vector<double> host_values(const Vector& y) {
  std::vector<double> h(static_cast<std::size_t>(y.size()));
  if (h.empty()) return h;
#if HOLA_MATVEC_CALLS_DEVICE
  sync_device();
  check(cudaMemcpy(h.data(), y.data(), h.size() * sizeof(double), cudaMemcpyDeviceToHost),
        "copying from the GPU");
#else
  std::copy(y.data(), y.data() + y.size(), h.begin());
#endif
  return h;
}

// max |y - z| / max |z| over all ranks.
double relative_difference(const Vector& y_vector, const Vector& z_vector) {
  const std::vector<double> y = host_values(y_vector), z = host_values(z_vector);
  double d = 0, m = 0;
  for (std::size_t i = 0; i < z.size(); ++i) {
    d = std::max(d, std::abs(y[i] - z[i]));
    m = std::max(m, std::abs(z[i]));
  }
  d = max_over_ranks(d);
  m = max_over_ranks(m);
  return m > 0 ? d / m : d;
}

struct Case {
  Case(std::string label_, std::string key_, double beta_, std::function<HYPRE_Int()> run_)
      : label(std::move(label_)), key(std::move(key_)), beta(beta_), run(std::move(run_)) {}
  std::string label;
  std::string key;  // JSON key prefix
  double beta;
  std::function<HYPRE_Int()> run;  // returns a HYPRE error code
  std::vector<double> us;          // per call, one per round
  double allocs_per_call = 0;
  HYPRE_Int error = 0;
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

// The calls of one round. On the device the clock starts with an idle GPU and stops when the
// calls' kernels are done.
double time_calls(Case& c, int calls) {
  sync_device();
  MPI_Barrier(MPI_COMM_WORLD);
  const long long a0 = hola::alloc_count::now();
  const auto t0 = Clock::now();
  HYPRE_Int error = 0;
  for (int i = 0; i < calls; ++i) error |= c.run();
  sync_device();
  const double s = std::chrono::duration<double>(Clock::now() - t0).count();
  const long long a1 = hola::alloc_count::now();
  c.error |= error;
  c.allocs_per_call =
      std::max(c.allocs_per_call, max_over_ranks(static_cast<double>(a1 - a0) / calls));
  return 1e6 * max_over_ranks(s) / calls;
}

long long analyses_of(HolaHypreMatvec mv) {
  long long a = 0;
  HolaHypreMatvecGetStats(mv, nullptr, nullptr, &a);
  return static_cast<long long>(max_over_ranks(static_cast<double>(a)));
}

int run(const Options& o) {
  Matrix m = build(o);
  const std::string problem =
      o.matrix.empty() ? "3D Poisson " + std::to_string(o.n) + "^3" : o.matrix;
  Vector x = make_vector(m, true, 0), y = make_vector(m, false, 0.5),
         ref = make_vector(m, false, 0.5);

  // Hola's matvec in a PCG solver, as the solver calls it (Setup recreates the context through
  // the hook).
  HYPRE_Solver pcg = nullptr;
  HYPRE_ParCSRPCGCreate(MPI_COMM_WORLD, &pcg);
  HYPRE_Int rc = HolaHypreEnableWithOptions(pcg, HOLA_HYPRE_PCG, o.kernel.c_str(), 0);
  rc |= HYPRE_ParCSRPCGSetup(pcg, m.A, x.v, y.v);
  auto* pcg_data = reinterpret_cast<hypre_PCGData*>(pcg);
  auto* const slot = pcg_data->functions->Matvec;
  void* const slot_data = pcg_data->matvec_data;
  HolaHypreMatvec hook_mv = nullptr;
  rc |= HolaHypreGetMatvec(pcg, HOLA_HYPRE_PCG, &hook_mv);
  HolaHypreMatvec mv = nullptr;
  rc |= HolaHypreMatvecCreate(o.kernel.c_str(), 0, &mv);
  if (rc || !hook_mv || !mv)
    throw std::runtime_error(std::string("enabling Hola failed: ") + HolaHypreLastError());

  // The diagonal block alone, through the same kind of operator as the adapter's.
  hypre_CSRMatrix* diag = hypre_ParCSRMatrixDiag(m.A);
  hola::CsrView<HYPRE_Complex, Index, Index> view;
  view.rows = hypre_CSRMatrixNumRows(diag);
  view.cols = hypre_CSRMatrixNumCols(diag);
  view.nnz = hypre_CSRMatrixNumNonzeros(diag);
  view.row_ptr = reinterpret_cast<const Index*>(hypre_CSRMatrixI(diag));
  view.col_idx = reinterpret_cast<const Index*>(hypre_CSRMatrixJ(diag));
  view.values = hypre_CSRMatrixData(diag);
  view.memory = kMemory;
  hola::OperatorOptions options;
  options.kernel = o.kernel;
  void* const stream = product_stream();  // HYPRE's compute stream (the adapter's) or null
  LocalOperator local(options);
  local.setup(view, 1, stream);
  Values local_y(view.rows, 0.5);

  // The off-diagonal block alone (several ranks): Hola's operator and HYPRE's sequential product
  // on the same ghost values.
  hypre_CSRMatrix* offd = hypre_ParCSRMatrixOffd(m.A);
  const HYPRE_Int offd_rows = hypre_CSRMatrixNumRows(offd);
  const HYPRE_Int ghosts = hypre_CSRMatrixNumCols(offd);
  const HYPRE_Int offd_nnz = hypre_CSRMatrixNumNonzeros(offd);
  const bool with_offd = max_over_ranks(static_cast<double>(offd_nnz)) > 0;
  hola::CsrView<HYPRE_Complex, Index, Index> offd_view;
  offd_view.rows = offd_rows;
  offd_view.cols = ghosts;
  offd_view.nnz = offd_nnz;
  offd_view.row_ptr = reinterpret_cast<const Index*>(hypre_CSRMatrixI(offd));
  offd_view.col_idx = reinterpret_cast<const Index*>(hypre_CSRMatrixJ(offd));
  offd_view.values = hypre_CSRMatrixData(offd);
  offd_view.memory = kMemory;
  LocalOperator offd_op(options);
  if (with_offd) offd_op.setup(offd_view, 1, stream);
  hypre_Vector* ghost_vec = hypre_SeqVectorCreate(ghosts);
  hypre_SeqVectorInitialize_v2(ghost_vec, kLocation);
  {
    std::vector<HYPRE_Complex> g(static_cast<std::size_t>(ghosts));
    for (HYPRE_Int k = 0; k < ghosts; ++k) g[k] = 1.0 + static_cast<double>(k % 7) / 8;
    copy_in(hypre_VectorData(ghost_vec), g);
  }
  hypre_Vector* offd_y = hypre_SeqVectorCreate(offd_rows);
  hypre_SeqVectorInitialize_v2(offd_y, kLocation);
  hypre_SeqVectorSetConstantValues(offd_y, 0.5);
  Values offd_local_y(offd_rows, 0.5);

  // Hola's products agree with HYPRE's before anything is timed.
  double max_diff = 0;
  for (const double beta : {0.0, 1.0}) {
    set(ref, 0.5);
    hypre_ParCSRMatrixMatvec(1.0, m.A, x.v, beta, ref.v);
    set(y, 0.5);
    rc |= slot(slot_data, 1.0, m.A, x.v, beta, y.v);
    max_diff = std::max(max_diff, relative_difference(y, ref));
    set(y, 0.5);
    rc |= HolaHypreMatvecApply(mv, 1.0, m.A, x.v, beta, y.v);
    max_diff = std::max(max_diff, relative_difference(y, ref));
  }
  if (rc) throw std::runtime_error(std::string("a product failed: ") + HolaHypreLastError());

  std::vector<Case> cases;
  for (const double beta : {0.0, 1.0}) {
    cases.emplace_back("hypre_ParCSRMatrixMatvec", "hypre", beta,
                       [&, beta] { return hypre_ParCSRMatrixMatvec(1.0, m.A, x.v, beta, y.v); });
    cases.emplace_back("Hola hook (PCG slot)", "hook", beta,
                       [&, beta] { return slot(slot_data, 1.0, m.A, x.v, beta, y.v); });
    cases.emplace_back("HolaHypreMatvecApply", "apply", beta,
                       [&, beta] { return HolaHypreMatvecApply(mv, 1.0, m.A, x.v, beta, y.v); });
    cases.emplace_back("hola::Operator (diag)", "local", beta, [&, beta] {
      local.apply(hola::Op::N, 1.0, {x.data(), view.cols}, beta, local_y.vec(), stream);
      return HYPRE_Int(0);
    });
  }
  if (with_offd) {
    cases.emplace_back("hola::Operator (offd)", "local_offd", 1.0, [&] {
      offd_op.apply(hola::Op::N, 1.0, {hypre_VectorData(ghost_vec), ghosts}, 1.0,
                    offd_local_y.vec(), stream);
      return HYPRE_Int(0);
    });
    cases.emplace_back("hypre_CSRMatrixMatvec (offd)", "hypre_offd", 1.0,
                       [&] { return hypre_CSRMatrixMatvec(1.0, offd, ghost_vec, 1.0, offd_y); });
  }
  for (Case& c : cases)
    for (int i = 0; i < o.warmup; ++i) c.error |= c.run();
  const long long analyses_before = analyses_of(hook_mv) + analyses_of(mv);
  for (int r = 0; r < o.rounds; ++r)
    for (Case& c : cases) {
      set(y, 0.5);  // beta = 1 adds A x at every call: start each round from the same y
      local_y.fill(0.5);
      offd_local_y.fill(0.5);
      hypre_SeqVectorSetConstantValues(offd_y, 0.5);
      c.us.push_back(time_calls(c, o.calls));
    }
  const long long analyses_after = analyses_of(hook_mv) + analyses_of(mv);
  long long hook_products = 0, hook_fallbacks = 0;
  HolaHypreMatvecGetStats(hook_mv, &hook_products, &hook_fallbacks, nullptr);
  HYPRE_Int errors = 0;
  for (const Case& c : cases) errors |= c.error;
  const bool ok = max_diff <= o.tolerance && analyses_after == analyses_before && errors == 0;
  const char* kernel = "";
  HolaHypreMatvecGetKernelName(hook_mv, &kernel);

  const std::string gpu = gpu_name();
  if (rank == 0) {
    std::printf(
        "hypre_matvec_calls: %s, %lld rows, %lld nonzeros, %d rank(s), "
        "OMP_NUM_THREADS %d, HYPRE %s, %s memory%s%s, Hola kernel %s\n",
        problem.c_str(), static_cast<long long>(m.rows), m.nnz, nranks, omp_get_max_threads(),
        HYPRE_RELEASE_VERSION, hola::demo::hypre_memory_name(), gpu.empty() ? "" : " on ",
        gpu.c_str(), kernel);
    std::printf(
        "analyses (hook + standalone) before timing %lld, after %lld; max relative "
        "difference to HYPRE %.2e; hook fallbacks %lld\n",
        analyses_before, analyses_after, max_diff, hook_fallbacks);
    if (with_offd)
      std::printf(
          "off-diagonal block (rank 0): %lld rows, %lld entries, %lld rows with entries, "
          "HYPRE's compressed row list %s\n",
          static_cast<long long>(offd_rows), static_cast<long long>(offd_nnz),
          static_cast<long long>(hypre_CSRMatrixNumRownnz(offd)),
          hypre_CSRMatrixRownnz(offd) ? "set" : "not set");
    std::printf(
        "microseconds per call: median of %d rounds of %d calls [minimum]; heap "
        "allocations per call\n",
        o.rounds, o.calls);
    std::printf("%-4s %-26s %12s %12s %8s\n", "beta", "product", "us/call", "[min]", "allocs");
    for (const Case& c : cases)
      std::printf("%-4g %-26s %12.2f %12.2f %8.1f\n", c.beta, c.label.c_str(), median(c.us),
                  *std::min_element(c.us.begin(), c.us.end()), c.allocs_per_call);
    std::printf("Hola hook / HYPRE (medians):");
    for (std::size_t i = 0; i + 1 < cases.size(); ++i)
      if (cases[i].key == "hypre" && cases[i + 1].key == "hook")
        std::printf(" beta %g %.3f;", cases[i].beta, median(cases[i + 1].us) / median(cases[i].us));
    std::printf("\n");

    // The JSON object once, for the "result: " line and for --output.
    char buf[4096];
    std::snprintf(
        buf, sizeof(buf),
        "{\"program\": \"hypre_matvec_calls\", \"problem\": %s, \"n\": %lld, \"rows\": %lld, "
        "\"nnz\": %lld, \"ranks\": %d, \"omp_threads\": %d, \"hypre\": \"%s\", "
        "\"memory\": \"%s\", \"kernel\": \"%s\", \"calls\": %d, \"rounds\": %d, \"warmup\": %d, "
        "\"analyses_before\": %lld, \"analyses_after\": %lld, \"max_rel_diff\": %.3e, "
        "\"allocs_counted\": %s",
        nlohmann::json(o.matrix.empty() ? "poisson3d:n=" + std::to_string(o.n) : o.matrix)
            .dump()
            .c_str(),
        o.n, static_cast<long long>(m.rows), m.nnz, nranks, omp_get_max_threads(),
        HYPRE_RELEASE_VERSION, hola::demo::hypre_memory_name(), kernel, o.calls, o.rounds, o.warmup,
        analyses_before, analyses_after, max_diff,
        hola::alloc_count::available() ? "true" : "false");
    std::string json = buf;
    if (!gpu.empty()) json += ", \"gpu\": " + nlohmann::json(gpu).dump();
    for (const Case& c : cases) {
      const std::string key = c.key + (c.beta == 0 ? "_beta0" : "_beta1");
      std::snprintf(buf, sizeof(buf), ", \"%s_us\": %.4f, \"%s_us_min\": %.4f, \"%s_allocs\": %.2f",
                    key.c_str(), median(c.us), key.c_str(),
                    *std::min_element(c.us.begin(), c.us.end()), key.c_str(), c.allocs_per_call);
      json += buf;
    }
    json += std::string(", \"ok\": ") + (ok ? "true" : "false") + "}";
    hola::demo::report_result(json, o.output, o.command);
    if (!ok)
      std::fprintf(stderr, "hypre_matvec_calls: %s\n",
                   max_diff > o.tolerance ? "Hola's products differ from HYPRE's"
                   : errors               ? "a product returned an error"
                                          : "Hola analysed a block again during the timed calls");
  }

  hypre_SeqVectorDestroy(ghost_vec);
  hypre_SeqVectorDestroy(offd_y);
  HolaHypreMatvecDestroy(mv);
  HYPRE_ParCSRPCGDestroy(pcg);
  HYPRE_IJVectorDestroy(x.ij);
  HYPRE_IJVectorDestroy(y.ij);
  HYPRE_IJVectorDestroy(ref.ij);
  HYPRE_IJMatrixDestroy(m.ij);
  return ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  Options o;
  o.command = hola::demo::command_line(argc, argv);
  CLI::App app{
      "hypre_matvec_calls: microseconds per ParCSR product of HYPRE's matvec and of Hola's"};
  app.add_option("-n", o.n, "grid points per direction (n^3 rows)")->check(CLI::Range(2, 100000));
  app.add_option("-m,--matrix,--mtx", o.matrix,
                 "square Matrix Market file instead of the generated grid")
      ->check(CLI::ExistingFile);
  app.add_option("--calls", o.calls, "timed back-to-back calls per case and round")
      ->check(CLI::Range(1, 100000000));
  app.add_option("--warmup", o.warmup, "untimed calls of each case before the rounds")
      ->check(CLI::Range(0, 100000000));
  app.add_option("--rounds", o.rounds, "rounds of all cases (median and minimum reported)")
      ->check(CLI::Range(1, 1000));
  app.add_option("-k,--kernel", o.kernel, "Hola kernel (auto, cpu)");
  app.add_option("--tolerance", o.tolerance,
                 "largest relative difference between Hola's and HYPRE's products");
  app.add_option("-o,--output", o.output,
                 "also write the result JSON (with commit and command) to this file (rank 0)");
  int code = 0;
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    code = rank == 0 ? app.exit(e) : (e.get_exit_code() == 0 ? 0 : 2);
    MPI_Finalize();
    return code;
  }
  // A GPU HYPRE initialises the device in HYPRE_Init: without one (or without Hola's CUDA
  // kernels), report and stop (77, ctest's skip code) before that.
  std::string missing = hola::demo::hypre_device_missing();
  if (missing.empty() && hola::demo::kHypreOnDevice && !kOnDevice)
    missing = "HYPRE was built for a GPU other than CUDA (this program measures CUDA products)";
  if (!hola::demo::hypre_ranks_ready(MPI_COMM_WORLD, missing)) {
    MPI_Finalize();
    return 77;
  }
  HYPRE_Init();  // HYPRE_Initialize from HYPRE 2.29 on (HYPRE_Init is its old name)
  hola::demo::hypre_use_memory();
  try {
    code = run(o);
  } catch (const std::exception& e) {
    if (rank == 0) std::fprintf(stderr, "hypre_matvec_calls: %s\n", e.what());
    code = 1;
  }
  HYPRE_Finalize();
  MPI_Finalize();
  return code;
}
