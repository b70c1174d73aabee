// SpmspvOperator: y = op(A) x with a sparse x (hola/spmspv.hpp), set up once per matrix
// structure, the kernel chosen per call. Host memory: the OpenMP kernels of kernels/spmspv, the
// hand rule spmspv::select_algorithm. Device memory (builds with CUDA): the GPU kernels of
// hola/spmspv_gpu.hpp and densify-and-SpMV (x scattered into a dense vector, one SpMV with
// hola::Operator), chosen per call from each candidate's times on a few probe x measured at setup
// (spmspv::select_calibrated_kernel; SpmspvOptions::calibrate), or by trees trained on
// hola-spmspv-bench measurements (spmspv::select_gpu_kernel: masked calls, calibration off).
// docs/spmspv.md.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "hola/csr_view.hpp"
#include "hola/operator.hpp"
#include "hola/spmspv.hpp"
#include "hola/spmspv_gpu.hpp"

namespace hola {

namespace spmspv {

// The kernels the operator can run: one list for both memories (the `kernel` option takes
// "auto" or one of these names; a name of the other memory is refused at setup).
struct Candidate {
  const char* name;
  Memory memory;
  const char* needs;  // what it needs beyond A and x ("" when nothing)
};
const std::vector<Candidate>& candidates();

// The per-call inputs of the GPU selection (docs/spmspv.md, "Selection on the GPU"), all known
// on the host: nothing is read back from the device. M is the matrix the vector-driven kernels
// walk (A^T for op N, A for op T): n_in rows, n_out columns, its row-length statistics computed
// once per structure at setup.
struct GpuCallFeatures {
  std::int64_t nnz_x = 0;
  std::int64_t nnz = 0;  // nonzeros of A
  std::int64_t n_in = 0, n_out = 0;
  std::int64_t max_len = 0;  // longest row of M
  double std_len = 0;        // standard deviation of M's row lengths
  double densify_ms = 0;     // densify-and-SpMV's time on this op (measured at setup)
  bool transpose = false;
  bool sparse_output = false;
  double allowed_fraction = 1;  // of y, by the mask (Mask::allowed / size; 1 when unknown)
  bool single_precision = false;
};

struct GpuSelection {
  gpu::Kernel kernel = gpu::Kernel::densify;
  // Predicted log2(time / densify-and-SpMV time) of matrix_direct .. vector_balanced (the
  // gpu::Kernel values 0..3); NaN when not predicted. Calibrated without densify timings (an op
  // the dense SpMV cannot do): log2(predicted time / 1 ms).
  double predicted[4];
  double margin = 1;        // a sparse kernel is taken when predicted faster than densify by this
  bool from_tree = false;   // false: no tree trained for any precision (fallback order)
  bool calibrated = false;  // from select_calibrated_kernel with a calibration (not the trees)
};

// The GPU selection: the available sparse kernel of least predicted time, taken when predicted
// faster than densify-and-SpMV by the trees' margin; otherwise densify when available (the
// default: a sparse kernel must earn its place), else that sparse kernel. `available[k]` for
// k = gpu::Kernel values 0..4 (densify 4); at least one must be. Without trees: densify, else
// vector_balanced, matrix_balanced, vector_direct, matrix_direct, the first available.
GpuSelection select_gpu_kernel(const GpuCallFeatures& f, const bool available[5]);

// The calibration at setup (docs/spmspv.md, "Calibration at setup"): x of these densities of
// n_in (nnz_x = clamp(round(density * n_in), 1, n_in); equal sizes merged), chosen by
// bench/selector/study_spmspv_calibration.py on the H100 sweeps of bb31a09 (10^-5.5, 10^-4.5,
// 10^-1.5, 10^-0.5 before: chosen when vector_direct still slowed down on long rows).
inline constexpr double kCalibrationDensities[4] = {1e-5, 1e-3, 1e-1, 1.0};
// A direct kernel (matrix_direct, vector_direct: its time depends on which rows x hits) is taken
// only when predicted faster than its balanced sibling by this factor.
inline constexpr double kCalibrationSiblingMargin = 1.1;
// A sparse kernel this much slower than densify at a probe is not timed at the larger ones.
inline constexpr double kCalibrationStop = 4;
// Probes of at least this share of n_in select the longest row of the walked matrix (A^T for N,
// A for T): the worst row for the kernels whose time depends on the rows x selects.
inline constexpr double kCalibrationHeavyFrom = 0.01;

// One op and output form's calibration: each candidate's median time on probe x of increasing
// nnz_x (plus_times, no mask, sorted x, sorted y when sparse).
struct GpuCalibration {
  static constexpr int max_probes = 4;
  int probes = 0;  // 0: not calibrated
  std::int64_t nnz_x[max_probes] = {};
  // ms[p][k]: time (ms) of gpu::Kernel k (0..4, densify 4) at probe p; NaN when not timed (not
  // available, or above a probe where it was kCalibrationStop times slower than densify).
  double ms[max_probes][5];
  GpuCalibration();

  // The curves select_calibrated_kernel interpolates, derived from nnz_x and ms once (a call
  // then takes one logarithm, not dozens: the selection runs on the host while a short call's
  // GPU work waits for it). Call again after changing nnz_x or ms; an unprepared calibration
  // is prepared per call.
  void prepare();
  bool prepared = false;
  bool relative = false;  // ys relative to densify's time (densify timed at every probe)
  int points[4] = {};     // per sparse kernel: the probes where it was timed
  double xs[4][max_probes] = {}, ys[4][max_probes] = {};  // log2 nnz_x, log2 time (ratio)
};

// The probe sizes for an input of n_in entries (kCalibrationDensities), distinct, increasing.
std::vector<std::int64_t> calibration_probe_sizes(std::int64_t n_in);
// k distinct indices of [0, n), uniformly at random from `seed`, sorted (what hola-spmspv-bench
// draws: any k-subset equally likely). O(n / 8) bytes of scratch.
std::vector<std::int64_t> calibration_probe_indices(std::int64_t n, std::int64_t k,
                                                    std::uint64_t seed);
// Makes the sorted probe select `index` (in range): unchanged when it does, else its middle
// entry is replaced by it (same size, still sorted).
void calibration_probe_include(std::vector<std::int64_t>& probe, std::int64_t index);

// The calibrated GPU selection for a call with nnz_x entries in x: per sparse kernel, the log2
// ratio of its time to densify's at each probe where it was timed, interpolated linearly in
// log2(nnz_x) (below the smallest probe: its value; above the largest: the last segment's slope
// when positive, else constant). A direct kernel is dropped when not predicted faster than its
// available balanced sibling by kCalibrationSiblingMargin. Of the rest, the available kernel of
// least prediction is taken when densify is not available; when densify is, only if predicted
// faster than densify by `margin` (densify timed at every probe), otherwise densify. Never an
// unavailable kernel: with no available sparse kernel predicted and densify unavailable,
// select_gpu_kernel's fallback order. No calibration (probes 0): densify when available, else
// that order. `available` as for select_gpu_kernel.
GpuSelection select_calibrated_kernel(const GpuCalibration& c, std::int64_t nnz_x,
                                      const bool available[5], double margin);

}  // namespace spmspv

struct SpmspvOptions {
  // "auto", or a name of spmspv::candidates(): host "matrix_driven", "vector_driven",
  // "reference"; device "matrix_direct", "matrix_balanced", "vector_direct", "vector_balanced",
  // "densify".
  std::string kernel = "auto";
  bool validate = true;     // check the CSR structure at setup (on the GPU for device memory)
  bool symmetric = false;   // A equals A^T (pattern and values): A serves as its column view
  bool column_view = true;  // build the column view at setup (needed by vector-driven op N
                            // and matrix-driven op T); off: those kernels are not used
  // Device memory: check x on the device at every apply (range, order, duplicates, bitmap
  // count: one pass over x and a stream synchronisation) and that x, the mask and y are device
  // memory (cudaPointerGetAttributes). Off: the caller vouches for them (a bad index is then
  // undefined behaviour). Host memory: the vectors are always checked.
  bool validate_vectors = true;
  // Device memory: the dense SpMV of densify-and-SpMV (hola::Operator; kernel "auto").
  OperatorOptions dense{};
  // Device memory: densify-and-SpMV's time (ms) per op for the trees. Negative: measured at
  // setup (CUDA events, median of 5 calls after 2 warm-up calls, with an empty x). Set them, with
  // calibrate off, for a selection that does not depend on a measurement (tests).
  double densify_ms_n = -1, densify_ms_t = -1;
  // Device memory: calibrate the selection at setup (per op and output form, every available
  // candidate timed on the probe x of kCalibrationDensities, the survivors of a first call 5
  // times; setup measured 9-290 ms per matrix on an H100 at e1f4046; the probe x and a dense and a
  // sparse y borrowed during setup). The unmasked calls then choose by select_calibrated_kernel
  // with calibration_margin; masked calls, and every call when off, by the trees.
  bool calibrate = true;
  double calibration_margin = 1.2;
  // Device memory: y the same in every run, whichever kernel the selection takes. Each output is
  // the sum (over the semiring) of its products in increasing input index, started from the
  // first product: matrix_direct computes it so over A's increasing columns (the CSR contract,
  // checked with validate), and vector_balanced with the sorted write-back
  // (spmspv::gpu::WriteBack::sorted: x put in index order when it is not, the products sorted
  // by output and each output's run summed by one thread; 2 P (sizeof(I) + sizeof(V)) bytes
  // more, P = max(n, min(nnz, 2^22)), and a stream synchronisation per call). Those two are
  // the only candidates: the atomic kernels and densify (its SpMV sums in its own order) are
  // left out, and naming one is refused with unsupported. A sparse y comes out sorted. Only the
  // sign of a zero can differ, where a sum that cancels to +0 meets a -0 product across the
  // write-back's chunks. Host memory: no effect (the host kernels are deterministic for a fixed
  // OpenMP thread count).
  bool deterministic = false;
};

template <class V, class I, class O>
class SpmspvOperator {
 public:
  explicit SpmspvOperator(SpmspvOptions options = {});
  ~SpmspvOperator();
  SpmspvOperator(SpmspvOperator&&) noexcept;
  SpmspvOperator& operator=(SpmspvOperator&&) noexcept;

  // Analysis once per structure, on `stream` (a cudaStream_t; device memory only): validation,
  // the column view ((cols + 1 + nnz) sizeof(O) + nnz (sizeof(I) + sizeof(V)) bytes, on the
  // host or the device as A). Device memory also: the GPU workspace, the dense SpMV's setup
  // (both ops), the row-length statistics of A and A^T, the densify-and-SpMV timing and (option
  // calibrate) the calibration; it synchronizes `stream`. The same arrays, sizes and
  // structure_version again: only the values are refreshed (no synchronisation on the device).
  void setup(const CsrView<V, I, O>& A, std::uint64_t structure_version = 0,
             void* stream = nullptr);

  // y = op(A) x over `semiring`, with `mask` on y (default: none); x, the mask and y in A's
  // memory. Validates first; on error throws hola::error and writes nothing to y. Device
  // memory: queued on `stream` without allocation; synchronizes it when validating x and for
  // a sparse y (its count), a dense y otherwise needs none.
  void apply(Op op, spmspv::Semiring semiring, const spmspv::SparseVectorView<V, I>& x,
             spmspv::Output<V, I>& y, const spmspv::Mask& mask = {}, void* stream = nullptr);

  // Another kernel for the next applies ("auto" or a candidate of A's memory; checked at the
  // next apply for the memory): what hola-spmspv-bench times each candidate with.
  void set_kernel(const std::string& kernel);
  // SpmspvOptions::validate_vectors for the next applies.
  void set_validate_vectors(bool on) { options_.validate_vectors = on; }
  // SpmspvOptions::calibrate: read by the next setup of a structure (whether to calibrate) and
  // by each apply (whether to use a calibration that setup made).
  void set_calibrate(bool on) { options_.calibrate = on; }
  // SpmspvOptions::deterministic: from the next setup, which analyses again even for the same
  // structure (the applies before it keep the mode of the last setup).
  void set_deterministic(bool on) { options_.deterministic = on; }

  bool is_setup() const { return setup_done_; }
  Memory memory() const { return A_.memory; }
  // Kernel used by the last apply ("matrix_driven", "vector_balanced", "densify", ...) and
  // why (the features, and on the GPU each sparse kernel's prediction, calibrated or from the
  // trees, and the margin).
  const char* last_kernel() const { return last_kernel_; }
  std::string last_reason() const;
  // Host memory: the host kernel of the last apply.
  spmspv::Algorithm last_algorithm() const { return last_; }
  // Densify-and-SpMV's time for op (ms) that the GPU selection uses (measured at setup or given
  // in the options); -1 on the host or before setup, or when op cannot densify.
  double densify_ms(Op op) const;
  // The calibration setup made for op and output form (device memory, calibrate on); probes 0
  // when none.
  spmspv::GpuCalibration calibration(Op op, spmspv::OutputFormat form) const;
  std::size_t column_view_bytes() const;
  // Host: the host workspace. Device: the GPU workspace plus the dense SpMV's (the column view
  // apart).
  std::size_t workspace_bytes() const;
  const SpmspvOptions& options() const { return options_; }

 private:
  struct Device;  // the GPU path's state (plugin/src/spmspv_operator.cpp)
  void setup_device(const CsrView<V, I, O>& A, std::uint64_t structure_version, void* stream);
  void apply_device(Op op, spmspv::Semiring semiring, const spmspv::SparseVectorView<V, I>& x,
                    spmspv::Output<V, I>& y, const spmspv::Mask& mask, void* stream);

  SpmspvOptions options_;
  bool setup_done_ = false;
  CsrView<V, I, O> A_{};
  std::uint64_t version_ = 0;
  spmspv::ColumnView<V, I, O> columns_;
  CsrView<V, I, O> At_{};
  bool has_at_ = false;
  spmspv::Workspace<V, I> ws_;
  spmspv::Algorithm last_ = spmspv::Algorithm::matrix_driven;
  const char* last_kernel_ = "";
  std::string reason_;  // host path
  std::unique_ptr<Device> device_;
};

}  // namespace hola
