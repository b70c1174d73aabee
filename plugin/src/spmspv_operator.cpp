// SpmspvOperator (hola/spmspv_operator.hpp): the host path over kernels/spmspv, the device path
// over hola::spmspv::gpu::Spmspv with densify-and-SpMV through hola::Operator, and the setup-time
// calibration of the device path's selection.
#include "hola/spmspv_operator.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <sstream>
#include <utility>
#include <vector>

#include "hola/detail/instantiate.hpp"
#include "hola/error.hpp"
#include "hola/features.hpp"
#include "hola/gpu_kernels.hpp"
#include "hola/gpu_validate.hpp"
#include "hola/validate.hpp"

#if defined(HOLA_ENABLE_CUDA)
#include <cuda_runtime.h>
#endif

namespace hola {

using spmspv::Algorithm;

namespace {

const spmspv::Candidate* find_candidate(const std::string& name) {
  for (const auto& c : spmspv::candidates())
    if (name == c.name) return &c;
  return nullptr;
}

void check_kernel_name(const std::string& k) {
  if (k == "auto" || find_candidate(k)) return;
  std::string names = "auto";
  for (const auto& c : spmspv::candidates()) names += std::string(", ") + c.name;
  fail(status::invalid_argument, "spmspv: unknown kernel '" + k + "' (" + names + ")");
}

// The kernel option against the matrix's memory: a candidate of the other memory is refused.
void check_kernel_memory(const std::string& k, Memory memory) {
  const spmspv::Candidate* c = find_candidate(k);
  if (c && c->memory != memory)
    fail(status::unsupported, "SpmspvOperator: kernel '" + k + "' runs on " +
                                  (c->memory == Memory::host ? "host" : "device") +
                                  " memory, the matrix is in " +
                                  (memory == Memory::host ? "host" : "device") + " memory");
}

}  // namespace

#if defined(HOLA_ENABLE_CUDA)
// The GPU path's state: the column view (unless symmetric or turned off), the SpMSpV engine and
// its workspace, the dense SpMV of densify-and-SpMV, and what the selection reads per call.
template <class V, class I, class O>
struct SpmspvOperator<V, I, O>::Device {
  spmspv::gpu::DeviceColumnView<V, I, O> columns;
  bool built_columns = false;
  spmspv::gpu::Spmspv<V, I, O> engine;
  Operator<V, I, O> dense;
  RowLengthStats rows_of_A, rows_of_At;      // At's: estimated (mean only) without a column view
  double densify_ms[2] = {-1, -1};           // per op (N, T); -1: op cannot densify
  spmspv::GpuCalibration calibration[2][2];  // [op N, T][dense, sparse y]; probes 0: none
  bool deterministic = false;                // SpmspvOptions::deterministic at this setup
  // The last auto selection (last_reason formats it on demand: nothing is formatted per call).
  bool last_auto = false;
  spmspv::GpuCallFeatures last_features;
  spmspv::GpuSelection last_selection;
  explicit Device(const OperatorOptions& o) : dense(o) {}
};
#else
template <class V, class I, class O>
struct SpmspvOperator<V, I, O>::Device {};
#endif

template <class V, class I, class O>
SpmspvOperator<V, I, O>::SpmspvOperator(SpmspvOptions options) : options_(std::move(options)) {
  check_kernel_name(options_.kernel);
}
template <class V, class I, class O>
SpmspvOperator<V, I, O>::~SpmspvOperator() = default;
template <class V, class I, class O>
SpmspvOperator<V, I, O>::SpmspvOperator(SpmspvOperator&&) noexcept = default;
template <class V, class I, class O>
SpmspvOperator<V, I, O>& SpmspvOperator<V, I, O>::operator=(SpmspvOperator&&) noexcept = default;

template <class V, class I, class O>
void SpmspvOperator<V, I, O>::set_kernel(const std::string& kernel) {
  check_kernel_name(kernel);
  options_.kernel = kernel;
}

template <class V, class I, class O>
void SpmspvOperator<V, I, O>::setup(const CsrView<V, I, O>& A, std::uint64_t structure_version,
                                    void* stream) {
  check_kernel_memory(options_.kernel, A.memory);
  if (A.memory == Memory::device) {
    setup_device(A, structure_version, stream);
    return;
  }
  const bool same = setup_done_ && A.memory == A_.memory && A.row_ptr == A_.row_ptr &&
                    A.col_idx == A_.col_idx && A.rows == A_.rows && A.cols == A_.cols &&
                    A.nnz == A_.nnz && structure_version == version_;
  if (same) {
    A_ = A;  // values may live elsewhere now
    if (has_at_ && !options_.symmetric) {
      columns_.refresh_values(A);
      At_ = columns_.transposed_view();
    } else if (options_.symmetric) {
      At_ = A;
    }
    return;
  }
  setup_done_ = false;
  device_.reset();
  if (options_.validate) validate_csr(A);
  if (options_.symmetric && A.rows != A.cols)
    fail(status::invalid_argument, "SpmspvOperator: symmetric option with a non-square matrix");
  A_ = A;
  version_ = structure_version;
  has_at_ = false;
  columns_ = {};
  if (options_.symmetric) {
    At_ = A;
    has_at_ = true;
  } else if (options_.column_view) {
    columns_.build(A);
    At_ = columns_.transposed_view();
    has_at_ = true;
  }
  setup_done_ = true;
}

template <class V, class I, class O>
void SpmspvOperator<V, I, O>::apply(Op op, spmspv::Semiring semiring,
                                    const spmspv::SparseVectorView<V, I>& x,
                                    spmspv::Output<V, I>& y, const spmspv::Mask& mask,
                                    void* stream) {
  if (!setup_done_) fail(status::invalid_argument, "SpmspvOperator: apply before setup");
  check_kernel_memory(options_.kernel, A_.memory);
  if (A_.memory == Memory::device) {
    apply_device(op, semiring, x, y, mask, stream);
    return;
  }
  if (x.memory != Memory::host)
    fail(status::invalid_argument,
         "SpmspvOperator: x is marked as device memory, the matrix is in host memory");
  spmspv::Problem<V, I, O> p;
  p.op = op;
  p.semiring = semiring;
  p.A = A_;
  p.At = has_at_ ? &At_ : nullptr;
  p.x = x;
  p.mask = mask;
  // Which kernels can run: the one needing the column view only when it exists.
  const bool matrix_ok = op == Op::N || has_at_;
  const bool vector_ok = op == Op::T || has_at_;
  Algorithm alg;
  std::ostringstream why;
  const auto& k = options_.kernel;
  if (k == "reference") {
    alg = Algorithm::reference;
    why << "kernel option";
  } else if (k == "matrix_driven" || k == "vector_driven") {
    alg = k == "matrix_driven" ? Algorithm::matrix_driven : Algorithm::vector_driven;
    if ((alg == Algorithm::matrix_driven && !matrix_ok) ||
        (alg == Algorithm::vector_driven && !vector_ok))
      fail(status::unsupported, "SpmspvOperator: " + k + " with op " + op_name(op) +
                                    " needs the column view (SpmspvOptions::column_view)");
    why << "kernel option";
  } else {
    // Validate before reading x for the features (they index the matrix with x's indices).
    spmspv::validate_problem(p, y, ws_);
    const auto f = spmspv::vector_features(p);
    alg = spmspv::select_algorithm(f);
    if (alg == Algorithm::matrix_driven && !matrix_ok) alg = Algorithm::vector_driven;
    if (alg == Algorithm::vector_driven && !vector_ok) alg = Algorithm::matrix_driven;
    why << "nnz_x " << f.nnz_x << ", touched nonzeros " << f.touched_nnz
        << " (x4 = " << 4 * f.touched_nnz << ") vs matrix nonzeros " << f.matrix_nnz
        << " x allowed fraction " << f.allowed_fraction;
  }
  spmspv::multiply(alg, p, y, ws_);
  last_ = alg;
  last_kernel_ = spmspv::algorithm_name(alg);
  reason_ = why.str();
}

template <class V, class I, class O>
std::size_t SpmspvOperator<V, I, O>::column_view_bytes() const {
#if defined(HOLA_ENABLE_CUDA)
  if (device_) return device_->built_columns ? device_->columns.bytes() : 0;
#endif
  return columns_.bytes();
}

template <class V, class I, class O>
std::size_t SpmspvOperator<V, I, O>::workspace_bytes() const {
#if defined(HOLA_ENABLE_CUDA)
  if (device_) return device_->engine.workspace_bytes() + device_->dense.workspace_bytes();
#endif
  return ws_.bytes();
}

template <class V, class I, class O>
double SpmspvOperator<V, I, O>::densify_ms(Op op) const {
#if defined(HOLA_ENABLE_CUDA)
  if (device_ && setup_done_) return device_->densify_ms[op == Op::N ? 0 : 1];
#endif
  (void)op;
  return -1;
}

template <class V, class I, class O>
spmspv::GpuCalibration SpmspvOperator<V, I, O>::calibration(Op op,
                                                            spmspv::OutputFormat form) const {
#if defined(HOLA_ENABLE_CUDA)
  if (device_ && setup_done_)
    return device_->calibration[op == Op::N ? 0 : 1][form == spmspv::OutputFormat::sparse ? 1 : 0];
#endif
  (void)op;
  (void)form;
  return {};
}

template <class V, class I, class O>
std::string SpmspvOperator<V, I, O>::last_reason() const {
#if defined(HOLA_ENABLE_CUDA)
  if (device_ && A_.memory == Memory::device) {
    const Device& d = *device_;
    if (!d.last_auto) return std::string("kernel option: ") + last_kernel_;
    const auto& f = d.last_features;
    const auto& s = d.last_selection;
    std::ostringstream why;
    why << "nnz_x " << f.nnz_x << ", n_in " << f.n_in << ", n_out " << f.n_out << ", nnz " << f.nnz
        << ", longest row of " << (f.transpose ? "A" : "A^T") << " " << f.max_len << ", densify "
        << f.densify_ms << " ms, " << (f.sparse_output ? "sparse" : "dense")
        << " y, allowed fraction " << f.allowed_fraction << "; ";
    if (s.calibrated) {
      const spmspv::GpuCalibration& c = d.calibration[f.transpose ? 1 : 0][f.sparse_output ? 1 : 0];
      bool relative = true;
      for (int p = 0; p < c.probes; ++p) relative = relative && std::isfinite(c.ms[p][4]);
      why << "calibrated at setup (probes of nnz_x";
      for (int p = 0; p < c.probes; ++p) why << " " << c.nnz_x[p];
      why << "), predicted log2(time / " << (relative ? "densify" : "1 ms") << "):";
      for (int k = 0; k < 4; ++k)
        why << " " << spmspv::gpu::kernel_name(static_cast<spmspv::gpu::Kernel>(k)) << " "
            << s.predicted[k];
      why << "; direct over balanced by " << spmspv::kCalibrationSiblingMargin << ", margin "
          << s.margin << " -> " << last_kernel_;
    } else if (s.from_tree) {
      why << "predicted log2(time / densify):";
      for (int k = 0; k < 4; ++k)
        why << " " << spmspv::gpu::kernel_name(static_cast<spmspv::gpu::Kernel>(k)) << " "
            << s.predicted[k];
      why << "; margin " << s.margin << " -> " << last_kernel_;
    } else {
      why << "no tree trained: fallback order -> " << last_kernel_;
    }
    return why.str();
  }
#endif
  return reason_;
}

#if defined(HOLA_ENABLE_CUDA)

namespace {

// The calibration's procedure (docs/spmspv.md, "Calibration at setup"): one timed call per
// candidate and probe, which alone is kept when kCalibrationScreen times slower than the fastest
// time so far at the probe (densify's setup time included); the others get kCalibrationRounds
// more, in rounds over them, and the median of their calls. Three calls timed back to back per
// candidate (before 2026-11-27) let one noisy calibration of rajat01 pick a kernel 1.2x slower
// than densify for a whole op.
constexpr int kCalibrationRounds = 4;
constexpr double kCalibrationScreen = 4;
// Only calls shorter than this get the rounds: a call of 0.1 ms or more is long next to the
// events' and the clocks' jitter (a few microseconds), and repeating the long calls was most of
// the calibration's time (up to 290 ms a matrix on an H100; bench/selector/calibration_cost.py
// estimated 0.68 of it left without their rounds, session 7).
constexpr double kCalibrationRepeatBelowMs = 0.1;

void calibration_check(cudaError_t e, const char* what) {
  if (e == cudaSuccess) return;
  cudaGetLastError();  // reported here: not again by the next launch check
  fail(status::cuda,
       std::string("SpmspvOperator: calibration: ") + what + ": " + cudaGetErrorString(e));
}

// Setup-time scratch on the device and the two events, released on every path.
struct CalibrationResources {
  void* scratch = nullptr;
  cudaEvent_t start = nullptr, stop = nullptr;
  CalibrationResources() = default;
  CalibrationResources(const CalibrationResources&) = delete;
  CalibrationResources& operator=(const CalibrationResources&) = delete;
  ~CalibrationResources() {
    if (start) cudaEventDestroy(start);
    if (stop) cudaEventDestroy(stop);
    if (scratch) cudaFree(scratch);
  }
};

std::size_t aligned(std::size_t bytes) { return (bytes + 255) / 256 * 256; }

// Which candidates can run op, indexed by spmspv::gpu::Kernel: the matrix-driven kernels read
// rows of op(A), the vector-driven ones columns of op(A), so each needs the column view (A^T) for
// one of the two ops; densify needs a dense SpMV for op (and plus_times, said by the caller).
// Deterministic: matrix_direct and vector_balanced with the sorted write-back alone, which both
// sum each output's products in increasing input index from the first (the same bits whichever
// runs); not the atomic kernels, nor densify (its SpMV sums in its own order).
void available_kernels(Op op, bool has_at, bool densify_ok, bool deterministic,
                       bool (&available)[5]) {
  namespace sg = spmspv::gpu;
  available[static_cast<int>(sg::Kernel::matrix_direct)] = op == Op::N || has_at;
  available[static_cast<int>(sg::Kernel::matrix_balanced)] =
      !deterministic && (op == Op::N || has_at);
  available[static_cast<int>(sg::Kernel::vector_direct)] =
      !deterministic && (op == Op::T || has_at);
  available[static_cast<int>(sg::Kernel::vector_balanced)] = op == Op::T || has_at;
  available[static_cast<int>(sg::Kernel::densify)] = densify_ok && !deterministic;
}

// The index of the longest of the n rows of row_ptr (device memory; the first of equal ones),
// -1 when there is none. Copies the offsets to the host: setup only.
template <class O>
std::int64_t longest_row(const O* row_ptr, std::int64_t n, cudaStream_t s) {
  if (n <= 0) return -1;
  std::vector<O> h(static_cast<std::size_t>(n) + 1);
  calibration_check(
      cudaMemcpyAsync(h.data(), row_ptr, h.size() * sizeof(O), cudaMemcpyDeviceToHost, s),
      "cudaMemcpyAsync");
  calibration_check(cudaStreamSynchronize(s), "cudaStreamSynchronize");
  std::int64_t best = 0;
  for (std::int64_t r = 1; r < n; ++r)
    if (h[r + 1] - h[r] > h[best + 1] - h[best]) best = r;
  return best;
}

// Times every available candidate of `engine` (set up for A of rows x cols, with its dense SpMV)
// per op and output form on the probe x of kCalibrationDensities (spmspv::GpuCalibration). The
// probes' index lists are drawn on the host and copied to the device once; a dense and a sparse
// y are borrowed. Without the memory for them, nothing is calibrated (the trees then choose).
// Synchronizes `stream`.
template <class V, class I, class O>
void calibrate_on_device(spmspv::gpu::Spmspv<V, I, O>& engine, std::int64_t rows, std::int64_t cols,
                         bool has_at, const O* row_ptr_A, const O* row_ptr_At,
                         const double densify_ms[2], bool deterministic,
                         spmspv::GpuCalibration (&out)[2][2], void* stream) {
  namespace sg = spmspv::gpu;
  cudaStream_t s = static_cast<cudaStream_t>(stream);
  // The probes of both ops, their indices in one host array.
  std::vector<std::int64_t> sizes[2];
  std::vector<std::size_t> offset[2];
  std::vector<I> indices;
  std::int64_t max_nnz = 1, max_out = 1;
  for (int o = 0; o < 2; ++o) {
    const std::int64_t n_in = o == 0 ? cols : rows, n_out = o == 0 ? rows : cols;
    if (n_out <= 0) continue;
    sizes[o] = spmspv::calibration_probe_sizes(n_in);
    max_out = std::max(max_out, n_out);
    // The longest row of the matrix the vector-driven kernels walk (A^T for N, A for T): the
    // probes from kCalibrationHeavyFrom nnz_x / n_in up select it, so that a kernel whose time
    // depends on which rows x selects is timed with the worst one there (one 46 500-entry row
    // of an arrow matrix, missed by a random probe, made vector_direct 10x densify).
    const O* walked = o == 0 ? row_ptr_At : row_ptr_A;
    const std::int64_t longest = walked ? longest_row(walked, n_in, s) : -1;
    for (std::size_t p = 0; p < sizes[o].size(); ++p) {
      offset[o].push_back(indices.size());
      const std::uint64_t seed = 0x5eed5eedULL + 16 * static_cast<std::uint64_t>(o) + p;
      std::vector<std::int64_t> probe = spmspv::calibration_probe_indices(n_in, sizes[o][p], seed);
      if (longest >= 0 && static_cast<double>(sizes[o][p]) >=
                              spmspv::kCalibrationHeavyFrom * static_cast<double>(n_in))
        spmspv::calibration_probe_include(probe, longest);
      for (std::int64_t i : probe) indices.push_back(static_cast<I>(i));
      max_nnz = std::max(max_nnz, sizes[o][p]);
    }
  }
  if (indices.empty()) return;
  // Device scratch: indices, values (all ones), dense y, sparse y's indices and values.
  const std::size_t b_idx = aligned(indices.size() * sizeof(I));
  const std::size_t b_val = aligned(static_cast<std::size_t>(max_nnz) * sizeof(V));
  const std::size_t b_yd = aligned(static_cast<std::size_t>(max_out) * sizeof(V));
  const std::size_t b_yi = aligned(static_cast<std::size_t>(max_out) * sizeof(I));
  CalibrationResources r;
  const cudaError_t got = cudaMalloc(&r.scratch, b_idx + b_val + 2 * b_yd + b_yi);
  if (got == cudaErrorMemoryAllocation) {
    r.scratch = nullptr;
    cudaGetLastError();  // clear it: not sticky
    return;
  }
  calibration_check(got, "cudaMalloc");
  char* base = static_cast<char*>(r.scratch);
  I* d_idx = reinterpret_cast<I*>(base);
  V* d_val = reinterpret_cast<V*>(base + b_idx);
  V* d_yd = reinterpret_cast<V*>(base + b_idx + b_val);
  V* d_yv = reinterpret_cast<V*>(base + b_idx + b_val + b_yd);
  I* d_yi = reinterpret_cast<I*>(base + b_idx + b_val + 2 * b_yd);
  // One host-to-device copy of the indices and the values, on the stream the kernels use.
  std::vector<unsigned char> staging(b_idx + static_cast<std::size_t>(max_nnz) * sizeof(V));
  std::memcpy(staging.data(), indices.data(), indices.size() * sizeof(I));
  const V one(1);
  for (std::int64_t i = 0; i < max_nnz; ++i)
    std::memcpy(staging.data() + b_idx + static_cast<std::size_t>(i) * sizeof(V), &one, sizeof(V));
  calibration_check(
      cudaMemcpyAsync(base, staging.data(), staging.size(), cudaMemcpyHostToDevice, s),
      "cudaMemcpyAsync");
  calibration_check(cudaEventCreate(&r.start), "cudaEventCreate");
  calibration_check(cudaEventCreate(&r.stop), "cudaEventCreate");

  const int densify = static_cast<int>(sg::Kernel::densify);
  std::mt19937 order_rng(0x0bd3u);  // the rounds' orders: the same in every setup
  // The study's order: the vector-driven kernels first (the fastest on small x, so that the
  // screening bar is low early), the matrix-driven ones, densify last.
  const sg::Kernel order[] = {sg::Kernel::vector_balanced, sg::Kernel::vector_direct,
                              sg::Kernel::matrix_balanced, sg::Kernel::matrix_direct,
                              sg::Kernel::densify};
  for (int o = 0; o < 2; ++o) {
    const Op op = o == 0 ? Op::N : Op::T;
    const std::int64_t n_in = o == 0 ? cols : rows, n_out = o == 0 ? rows : cols;
    bool available[5];
    available_kernels(op, has_at, densify_ms[o] >= 0, deterministic, available);
    const int probes =
        std::min(static_cast<int>(sizes[o].size()), spmspv::GpuCalibration::max_probes);
    for (int form = 0; form < 2 && probes > 0; ++form) {
      spmspv::Output<V, I> y;
      y.size = n_out;
      if (form == 0) {
        y.format = spmspv::OutputFormat::dense;
        y.dense = d_yd;
      } else {
        y.format = spmspv::OutputFormat::sparse;
        y.indices = d_yi;
        y.values = d_yv;
        y.capacity = n_out;
        y.want_sorted = true;
      }
      bool usable[5];
      std::copy(available, available + 5, usable);
      spmspv::GpuCalibration c;
      bool stopped[4] = {false, false, false, false};
      for (int p = 0; p < probes; ++p) {
        spmspv::SparseVectorView<V, I> x;
        x.size = n_in;
        x.nnz = sizes[o][p];
        x.format = spmspv::VectorFormat::sorted;
        x.indices = d_idx + offset[o][p];
        x.values = d_val;
        x.memory = Memory::device;
        c.nnz_x[p] = sizes[o][p];
        const auto run = [&](sg::Kernel k) {
          engine.apply(k, op, spmspv::Semiring::plus_times, x, spmspv::Mask{}, y, stream, false);
        };
        const auto timed_run = [&](sg::Kernel k) {
          calibration_check(cudaEventRecord(r.start, s), "cudaEventRecord");
          run(k);
          calibration_check(cudaEventRecord(r.stop, s), "cudaEventRecord");
          calibration_check(cudaEventSynchronize(r.stop), "cudaEventSynchronize");
          float ms = 0;
          calibration_check(cudaEventElapsedTime(&ms, r.start, r.stop), "cudaEventElapsedTime");
          return static_cast<double>(ms);
        };
        // A first timed call per candidate screens it: kept alone when kCalibrationScreen times
        // the fastest so far, or when kCalibrationRepeatBelowMs or longer. The rest are timed in
        // rounds, each once per round, so that a drift during the probe (clocks, the host)
        // reaches every candidate alike; their time is the median of all their calls.
        double fastest =
            densify_ms[o] >= 0 ? densify_ms[o] : std::numeric_limits<double>::infinity();
        std::vector<double> times[5];
        std::vector<sg::Kernel> timed, repeated;
        for (sg::Kernel k : order) {
          const int ki = static_cast<int>(k);
          if (!usable[ki] || (ki < densify && stopped[ki])) continue;
          try {
            if (p == 0) run(k);  // untimed: module loading, first touch
            const double t = timed_run(k);
            c.ms[p][ki] = t;
            fastest = std::min(fastest, t);
            if (!(t > kCalibrationScreen * fastest)) {
              times[ki].push_back(t);
              timed.push_back(k);
              if (t < kCalibrationRepeatBelowMs) repeated.push_back(k);
            }
          } catch (const error& e) {
            if (e.code() != status::unsupported) throw;
            usable[ki] = false;  // not this kernel on this op: left out
          }
        }
        // Each round in its own order (shuffled from a fixed seed): each candidate follows each
        // other in turn (a call right after one that swept the matrix through L2 finds less of
        // its data there).
        for (int round = 0; round < kCalibrationRounds; ++round) {
          std::shuffle(repeated.begin(), repeated.end(), order_rng);
          for (sg::Kernel k : repeated) times[static_cast<int>(k)].push_back(timed_run(k));
        }
        for (sg::Kernel k : timed) {
          std::vector<double>& v = times[static_cast<int>(k)];
          std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
          c.ms[p][static_cast<int>(k)] = v[v.size() / 2];
        }
        const double dt = c.ms[p][densify];
        if (std::isfinite(dt))
          for (int k = 0; k < densify; ++k)
            if (std::isfinite(c.ms[p][k]) && c.ms[p][k] > spmspv::kCalibrationStop * dt)
              stopped[k] = true;
      }
      c.probes = probes;
      c.prepare();
      out[o][form] = c;
    }
  }
  calibration_check(cudaStreamSynchronize(s), "cudaStreamSynchronize");
}

}  // namespace

template <class V, class I, class O>
void SpmspvOperator<V, I, O>::setup_device(const CsrView<V, I, O>& A,
                                           std::uint64_t structure_version, void* stream) {
  if (!gpu::gpu_available())
    fail(status::no_device,
         "SpmspvOperator: the matrix is in device memory but no usable CUDA "
         "GPU was found");
  const bool same = setup_done_ && device_ && A.memory == A_.memory && A.row_ptr == A_.row_ptr &&
                    A.col_idx == A_.col_idx && A.rows == A_.rows && A.cols == A_.cols &&
                    A.nnz == A_.nnz && structure_version == version_ &&
                    device_->deterministic == options_.deterministic;
  Device* d = device_.get();
  if (same) {
    // Values only: the column view's values gathered again, the engine and the dense SpMV
    // pointed at the new ones, on `stream` without synchronisation.
    A_ = A;
    if (d->built_columns) d->columns.refresh_values(A, stream);
    At_ = d->built_columns ? d->columns.view() : A;
    d->engine.set_values(A.values, has_at_ ? At_.values : nullptr);
    d->dense.setup(A, structure_version, stream);
    return;
  }
  setup_done_ = false;
  columns_ = {};
  ws_ = {};
  if (options_.validate) {
    const std::string msg = gpu::check_csr_device(A, stream);
    if (!msg.empty()) fail(status::invalid_csr, "SpmspvOperator: invalid CSR matrix: " + msg);
  } else if (A.rows < 0 || A.cols < 0 || A.nnz < 0 || (A.rows > 0 && !A.row_ptr) ||
             (A.nnz > 0 && (!A.col_idx || !A.values))) {
    fail(status::invalid_csr, "SpmspvOperator: bad matrix sizes or null arrays");
  }
  if (options_.symmetric && A.rows != A.cols)
    fail(status::invalid_argument, "SpmspvOperator: symmetric option with a non-square matrix");
  // A fresh state; the old one (if any) stays in place until this one is complete.
  OperatorOptions dense_options = options_.dense;
  if (options_.validate) dense_options.validate = false;  // checked just above
  // cuSPARSE's CSR ALG1 as densify's SpMV gave, once in 100 to 300 calls, a wrong last row of
  // y on a 131 072 x 1 048 576 random matrix (H100, CUDA 13.0, tests/gpu/spmspv_gpu_test
  // SpmspvOperatorGpuWide; bench/results/2026-11-26-h100-densify-cusparse/), where every Hola
  // kernel and ALG2 were right every time: auto's vendor pick runs as ALG2 here.
  dense_options.auto_vendor_kernel = "cusparse-alg2";
  auto fresh = std::make_unique<Device>(dense_options);
  Device& n = *fresh;
  CsrView<V, I, O> At{};
  bool has_at = false;
  if (options_.symmetric) {
    At = A;
    has_at = true;
  } else if (options_.column_view) {
    n.columns.build(A, stream);
    n.built_columns = true;
    At = n.columns.view();
    has_at = true;
  }
  n.engine.setup(A, has_at ? &At : nullptr, stream);
  n.deterministic = options_.deterministic;
  if (n.deterministic) n.engine.set_write_back(spmspv::gpu::WriteBack::sorted);
  n.dense.setup(A, structure_version, stream);
  Operator<V, I, O>* dense = &n.dense;
  const std::int64_t rows = A.rows, cols = A.cols;
  n.engine.set_dense_spmv([dense, rows, cols](Op op, const V* x, V* y, void* s) {
    const std::int64_t nx = op == Op::N ? cols : rows, ny = op == Op::N ? rows : cols;
    dense->apply(op, V(1), ConstVec<V>{x, nx}, V(0), Vec<V>{y, ny}, s);
  });
  // Row-length statistics (the selection's structure features), once per structure.
  // The engine's setup computed them (a symmetric A is its own A^T there).
  n.rows_of_A = n.engine.rows_of_A();
  if (has_at) {
    n.rows_of_At = n.engine.rows_of_At();
  } else {
    // No column view: only the matrix-driven kernels and densify run op N, whose trees then see
    // A's columns as if of equal length.
    n.rows_of_At = RowLengthStats{};
    n.rows_of_At.rows = A.cols;
    n.rows_of_At.nnz = A.nnz;
    n.rows_of_At.max_row =
        A.cols > 0 ? static_cast<std::int64_t>(std::ceil(static_cast<double>(A.nnz) / A.cols)) : 0;
  }
  // Densify-and-SpMV per op: timed (or given), and run once either way so that the dense
  // SpMV's setup for op T (hola::Operator defers it to the first product) happens here, not in
  // an apply. An op the dense SpMV cannot do is left to the sparse kernels.
  const double given[2] = {options_.densify_ms_n, options_.densify_ms_t};
  for (int o = 0; o < 2; ++o) {
    const Op op = o == 0 ? Op::N : Op::T;
    try {
      // auto's check at the first products alternates the dense SpMV's kernels: run it to its
      // verdict first (each product waits for the GPU), so that the time is the winner's.
      for (int k = 0; k < 32 && given[o] < 0 && n.dense.auto_check_pending(op); ++k)
        n.engine.time_empty_ms(spmspv::gpu::Kernel::densify, op, 0, 1, stream);
      const double t = n.engine.time_empty_ms(spmspv::gpu::Kernel::densify, op,
                                              given[o] >= 0 ? 1 : 2, given[o] >= 0 ? 1 : 5, stream);
      n.densify_ms[o] = given[o] >= 0 ? given[o] : t;
    } catch (const error& e) {
      if (e.code() != status::unsupported) throw;
      n.densify_ms[o] = -1;
    }
  }
  // The calibration of the selection: every available candidate on the probe x.
  if (options_.calibrate)
    calibrate_on_device(n.engine, A.rows, A.cols, has_at, A.row_ptr, has_at ? At.row_ptr : nullptr,
                        n.densify_ms, n.deterministic, n.calibration, stream);
  device_ = std::move(fresh);
  A_ = A;
  At_ = At;
  has_at_ = has_at;
  version_ = structure_version;
  last_kernel_ = "";
  setup_done_ = true;
}

template <class V, class I, class O>
void SpmspvOperator<V, I, O>::apply_device(Op op, spmspv::Semiring semiring,
                                           const spmspv::SparseVectorView<V, I>& x,
                                           spmspv::Output<V, I>& y, const spmspv::Mask& mask,
                                           void* stream) {
  namespace sg = spmspv::gpu;
  Device& d = *device_;
  if (op != Op::N && op != Op::T)
    fail(status::invalid_argument, "SpmspvOperator: op must be N or T");
  if (x.memory != Memory::device)
    fail(status::invalid_argument,
         "SpmspvOperator: x is marked as host memory, the matrix is in device memory");
  if (options_.validate_vectors) {
    auto check = [](const void* p, const char* what) {
      if (!sg::device_accessible(p))
        fail(status::invalid_argument,
             std::string("SpmspvOperator: ") + what + " is not device memory (the matrix is)");
    };
    // The arrays this call reads or writes (the others may hold anything).
    if (x.format == spmspv::VectorFormat::bitmap)
      check(x.bits, "x's bitmap");
    else
      check(x.indices, "x's indices");
    check(x.values, "x's values");
    check(mask.values, "the mask");
    if (y.format == spmspv::OutputFormat::dense) {
      check(y.dense, "y");
    } else {
      check(y.indices, "y's indices");
      check(y.values, "y's values");
    }
  }
  // What can run this call: a kernel needing the column view only with one, densify only over
  // plus_times and when the dense SpMV does this op.
  bool available[5];
  available_kernels(
      op, has_at_,
      semiring == spmspv::Semiring::plus_times && d.densify_ms[op == Op::N ? 0 : 1] >= 0,
      d.deterministic, available);
  sg::Kernel kernel = sg::Kernel::densify;
  const auto& k = options_.kernel;
  const bool automatic = k == "auto";
  if (!automatic) {
    int found = -1;
    for (int i = 0; i < 5; ++i)
      if (k == sg::kernel_name(static_cast<sg::Kernel>(i))) found = i;
    kernel = static_cast<sg::Kernel>(found);
    if (!available[found]) {
      if (d.deterministic && kernel != sg::Kernel::matrix_direct &&
          kernel != sg::Kernel::vector_balanced)
        fail(status::unsupported,
             "SpmspvOperator: deterministic mode runs matrix_direct and vector_balanced (sorted "
             "write-back) only, not " +
                 k);
      if (kernel == sg::Kernel::densify)
        fail(status::unsupported,
             std::string("SpmspvOperator: densify computes over plus_times with a dense SpMV "
                         "that does op ") +
                 op_name(op) + "; not with " + spmspv::semiring_name(semiring));
      fail(status::unsupported, "SpmspvOperator: " + k + " with op " + op_name(op) +
                                    " needs the column view (SpmspvOptions::column_view)");
    }
  } else {
    spmspv::GpuCallFeatures& f = d.last_features;
    const RowLengthStats& m = op == Op::N ? d.rows_of_At : d.rows_of_A;
    f.nnz_x = x.nnz;
    f.nnz = A_.nnz;
    f.n_in = op == Op::N ? A_.cols : A_.rows;
    f.n_out = op == Op::N ? A_.rows : A_.cols;
    f.max_len = m.max_row;
    f.std_len = m.std_row;
    f.densify_ms = d.densify_ms[op == Op::N ? 0 : 1] >= 0 ? d.densify_ms[op == Op::N ? 0 : 1] : 0;
    f.transpose = op == Op::T;
    f.sparse_output = y.format == spmspv::OutputFormat::sparse;
    f.allowed_fraction = mask.values && mask.allowed >= 0 && f.n_out > 0
                             ? static_cast<double>(mask.allowed) / static_cast<double>(f.n_out)
                             : 1.0;
    f.single_precision = sizeof(V) == 4;
    // Unmasked calls by the calibration when setup made one, else (and masked calls) the trees.
    const spmspv::GpuCalibration& c = d.calibration[f.transpose ? 1 : 0][f.sparse_output ? 1 : 0];
    if (options_.calibrate && !mask.values && c.probes > 0)
      d.last_selection =
          spmspv::select_calibrated_kernel(c, x.nnz, available, options_.calibration_margin);
    else
      d.last_selection = spmspv::select_gpu_kernel(f, available);
    kernel = d.last_selection.kernel;
  }
  if (d.deterministic && y.format == spmspv::OutputFormat::sparse && !y.want_sorted) {
    // The touched list fills in the order threads meet: sorted, the entries come out the same.
    spmspv::Output<V, I> sorted_y = y;
    sorted_y.want_sorted = true;
    d.engine.apply(kernel, op, semiring, x, mask, sorted_y, stream, options_.validate_vectors);
    y.nnz = sorted_y.nnz;
    y.sorted = sorted_y.sorted;
  } else {
    d.engine.apply(kernel, op, semiring, x, mask, y, stream, options_.validate_vectors);
  }
  d.last_auto = automatic;
  last_kernel_ = sg::kernel_name(kernel);
}

#else

template <class V, class I, class O>
void SpmspvOperator<V, I, O>::setup_device(const CsrView<V, I, O>&, std::uint64_t, void*) {
  fail(status::no_device,
       "SpmspvOperator: the matrix is in device memory and this build of Hola has no CUDA support");
}

template <class V, class I, class O>
void SpmspvOperator<V, I, O>::apply_device(Op, spmspv::Semiring,
                                           const spmspv::SparseVectorView<V, I>&,
                                           spmspv::Output<V, I>&, const spmspv::Mask&, void*) {
  fail(status::no_device, "SpmspvOperator: this build of Hola has no CUDA support");
}

#endif

#define HOLA_SPMSPV_OPERATOR(V, I, O) template class SpmspvOperator<V, I, O>;
HOLA_FOR_EACH_VALUE_INDEX_OFFSET(HOLA_SPMSPV_OPERATOR)
#undef HOLA_SPMSPV_OPERATOR

}  // namespace hola
