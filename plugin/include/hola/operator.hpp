// hola::Operator — what every adapter uses: set up once per matrix structure, apply many times.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "hola/csr_view.hpp"
#include "hola/spmv_kernel.hpp"

namespace hola {

struct KernelChoice;    // hola/selector.hpp
struct KernelDecision;  // hola/selector.hpp

// What identifies a matrix structure for reuse: the arrays, the sizes and a structure version
// supplied by the adapter (PETSc's nonzero state, a Tpetra graph's, HYPRE's pattern). With an
// equal fingerprint, setup only refreshes the values pointer. Adapters compare fingerprints to
// decide whether anything must be redone before a product.
struct StructureFingerprint {
  const void* row_ptr = nullptr;
  const void* col_idx = nullptr;
  std::int64_t rows = -1, cols = -1, nnz = -1;
  std::uint64_t version = 0;
  Memory memory = Memory::host;
  bool operator==(const StructureFingerprint& o) const {
    return row_ptr == o.row_ptr && col_idx == o.col_idx && rows == o.rows && cols == o.cols &&
           nnz == o.nnz && version == o.version && memory == o.memory;
  }
  bool operator!=(const StructureFingerprint& o) const { return !(*this == o); }
};

// Host wall time of the last analysis's steps (ms): analyze (validation), choose (auto's
// features and trees), prepare (the kernels' setup; the race when on). Device work a step leaves
// queued without synchronising counts towards the step that next waits for the stream.
struct SetupTimes {
  double analyze_ms = 0, choose_ms = 0, prepare_ms = 0;
};

struct OperatorOptions {
  // Registry name ("auto", "hola", "merge", "light", "scalar", "vector", "vector-adaptive",
  // "cusparse", "cusparse-alg2", "cpu"). "auto" picks from the matrix features.
  std::string kernel = "auto";
  bool deterministic = false;  // bitwise reproducible results (no floating-point atomics)
  // Full structural check of the CSR arrays at setup (O(nnz), on the GPU for device
  // matrices). Sizes and pointers are always checked.
  bool validate = true;
  // "auto" on the GPU: time the tree's pick against its alternatives (the leaf's runner-up,
  // cuSPARSE ALG1) for a few dozen applies at setup and keep the fastest. Off by default: the
  // race costs milliseconds to tens of milliseconds per structure (issue 15: setup must cost
  // about as much as cuSPARSE's), and its choice can differ between runs. false: the tree's
  // pick, then checked against cuSPARSE at the first products (auto_check). Never in
  // deterministic mode.
  bool auto_trial = false;
  // "auto" on the GPU without the race: the first products of each op take turns between the
  // tree's pick and its challengers, the leaf's runner-up, cuSPARSE (auto_vendor_kernel;
  // not for mixed index types) and the kernels the selector's rules add (selector.hpp): 4
  // products each, the last 3 timed with CUDA events on the product's own stream (12 products
  // with three kernels). A challenger's product goes to
  // scratch and the pick's, untimed, to the caller's y, so the caller sees only the pick's
  // products until the verdict (as reproducible as the pick is). The verdict comes at the next
  // product, whatever the GPU's progress (the host waits there for the last timed product if
  // the GPU has not passed it: once per op and structure, so that which product runs which
  // kernel never depends on timing), and from then on the fastest challenger runs the op if its
  // best product, times auto_check_margin, beats the pick's. So a matrix the trees
  // misjudge costs a few products, not a solve, and the check measures what the caller's loop
  // pays (a launch gap included). The challengers are set up at the check's first product
  // (once per structure: they allocate, and cuSPARSE synchronises that stream) and kept until
  // the next analysis. Off in deterministic mode and with the race (which times the same
  // kernels at setup); a product captured into a CUDA graph ends the check on the pick, which
  // the graph keeps.
  // Where the two kernels are within the noise of the margin, the verdict may differ from run
  // to run; auto_check = false (or deterministic mode) runs the tree's pick every time.
  bool auto_check = true;
  // > 0. 1.03: the leaf's runner-up must be more than 3 % faster, beyond the noise of single
  // products, so that near-ties keep the tree's pick (the same kernel from run to run). A huge
  // value keeps the pick, a tiny one takes the challenger.
  double auto_check_margin = 1.03;
  // > 0, the same for cuSPARSE as the challenger: 1.01, because the user's yardstick is
  // cuSPARSE; with 1.03 auto kept picks 2-3 % slower than it (issue 16: never below 0.97x).
  // Near-ties within 1 % still keep the pick.
  double auto_check_vendor_margin = 1.01;
  // The registry name "auto" runs when it picks cuSPARSE's CSR product: "cusparse" (ALG1, the
  // algorithm the trees were trained against) or "cusparse-alg2". SpmspvOperator's densify asks
  // for ALG2 (ALG1 gave a rare wrong row there; docs/spmspv.md), so that it is set up once.
  std::string auto_vendor_kernel = "cusparse";
  // Rows without entries are left out of the kernels' work when at least half of the rows and
  // at least `compress_min_empty_rows` of them are empty (the off-diagonal block of a
  // distributed matrix): the kernel, chosen for the nonempty rows' own shape, runs on them alone
  // and the product is scattered into y (hola/compressed_rows.hpp). y += A x then touches only
  // the nonempty rows. The floor keeps small matrices on one kernel launch: on the GPU a
  // skipped empty row saves about 24 bytes of traffic, a second launch costs a few
  // microseconds, which about 10^5 empty rows repay.
  bool compress_empty_rows = true;
  std::int64_t compress_min_empty_rows = std::int64_t(1) << 17;
  KernelOptions kernel_options{};  // tuning knobs passed to the kernel
};

// Read-only and writable vectors with their lengths (checked against the matrix).
template <class V>
struct ConstVec {
  const V* data = nullptr;
  std::int64_t size = 0;
};
template <class V>
struct Vec {
  V* data = nullptr;
  std::int64_t size = 0;
};

template <class V, class I, class O>
class Operator {
 public:
  explicit Operator(OperatorOptions options = {});
  ~Operator();
  Operator(Operator&&) noexcept;
  Operator& operator=(Operator&&) noexcept;

  // Analysis for A in three steps, each on `stream`: analyze (device present, structural
  // validation), choose (the kernel per op: auto's GPU features and trees), prepare (make and
  // set up the kernels; auto's fallbacks and setup race). The cache key is fingerprint(A,
  // structure_version): with the same key only the values pointer is refreshed (values may
  // change freely). With structure_version 0 (no promise from the caller) a sample of row_ptr
  // and col_idx must match the analysed one too (hola/structure_sample.hpp), so that another
  // structure at the same addresses is analysed again.
  // Invalid input throws hola::error and leaves the Operator as it was. The analysis runs on
  // `stream` (a cudaStream_t; nullptr: the legacy default stream), so it is ordered after the
  // caller's own work that wrote the arrays on that stream; it synchronises that stream.
  void setup(const CsrView<V, I, O>& A, std::uint64_t structure_version = 0,
             void* stream = nullptr);

  // y_out = alpha op(A) x + beta y_in. beta == 0 never reads y_in. y_in may be y_out (or
  // null when beta == 0); x must not overlap y_out. No allocation, no host<->device copy, no
  // device synchronisation; runs on `stream` (a cudaStream_t, ignored for host matrices).
  // One exception, once per structure: when op T needs a kernel of its own on the GPU (auto
  // chose another kernel for T, or the kernel for N cannot transpose), that kernel is set up
  // at the first product with op T (allocation included), not at setup, so that solvers
  // which never transpose do not pay for it. Likewise auto's challengers (the
  // runner-up, cuSPARSE) at the first product of its check (OperatorOptions::auto_check). The same
  // holds for the column index that the row-wise kernels (scalar, vector, vector-adaptive) build
  // for their one-launch op T on matrices of up to KernelOptions::gather_transpose_max_nnz nonzeros
  // (2^18 by default).
  void apply(Op op, V alpha, ConstVec<V> x, V beta, ConstVec<V> y_in, Vec<V> y_out,
             void* stream = nullptr);
  // In place: y = alpha op(A) x + beta y.
  void apply(Op op, V alpha, ConstVec<V> x, V beta, Vec<V> y, void* stream = nullptr) {
    apply(op, alpha, x, beta, ConstVec<V>{y.data, y.size}, y, stream);
  }
  // z = y + A x (PETSc's MatMultAdd); z may be y.
  void multiply_add(ConstVec<V> x, ConstVec<V> y, Vec<V> z, void* stream = nullptr) {
    apply(Op::N, V(1), x, V(1), y, z, stream);
  }

  bool is_setup() const;
  static StructureFingerprint fingerprint(const CsrView<V, I, O>& A,
                                          std::uint64_t structure_version = 0);
  // True when set up for exactly this structure (the next setup would only refresh values).
  bool is_set_up_for(const StructureFingerprint& key) const;
  const CsrView<V, I, O>& matrix() const;
  // Nonempty rows the kernels run on when empty rows are left out (compress_empty_rows), else
  // -1 (all rows).
  std::int64_t compressed_rows() const;
  // Kernel that runs op (after fallbacks), e.g. "hola"; empty before setup.
  std::string kernel_name(Op op) const;
  // Why that kernel was chosen (auto rule, fallback reason), for -mat_hola_view.
  std::string selection_reason() const;
  std::size_t workspace_bytes() const;
  // Times the analysis ran (a test of the cache).
  std::uint64_t analysis_count() const;
  const OperatorOptions& options() const;
  // auto's setup race on or off (OperatorOptions::auto_trial); a change takes effect at the
  // next setup, which then analyses the matrix again.
  void set_auto_trial(bool on);
  // auto's check at the first products on or off (OperatorOptions::auto_check); a change takes
  // effect at the next setup, which then analyses the matrix again.
  void set_auto_check(bool on);
  // True while auto's check of op is still comparing (its products alternate kernels):
  // benchmarks warm up until it is over.
  bool auto_check_pending(Op op) const;
  // For callers that capture apply(op, ...) into a CUDA graph and replay it: a number that
  // changes whenever the work apply(op) queues may change (an analysis; a values pointer other
  // than the last one; the end of auto's check; the setup of op T's kernel at its first
  // product), so that a graph captured at version v may be replayed (same arguments) while the
  // version is still v. 0 before setup and while the work still changes from product to
  // product (auto's check comparing; op T's kernel not set up yet; op T unavailable): capture
  // again each time. Versions come from one process-wide counter: two Operators never share one.
  std::uint64_t work_version(Op op) const;

  // The decision of the last analysis (null before setup), and a decision to take over: the
  // next analysis of a matrix with the same rows, cols, nonzero count and memory, under the
  // same kernel request and determinism, uses it instead of computing features (and racing).
  // For matrices with the same pattern (a duplicate); the caller vouches for the pattern.
  std::shared_ptr<const KernelDecision> decision() const;
  void reuse_decision(std::shared_ptr<const KernelDecision> decision);
  // Analyses that took over a decision instead of computing features (a test of the reuse).
  std::uint64_t decisions_taken_over() const;
  // Where the last analysis spent its time (hola-bench --setup-reps reports it).
  SetupTimes last_setup_times() const;

 private:
  struct Impl;
  struct Prepared;  // the kernels for N and T, why, and why T is unavailable (if it is)
  void analyze(const CsrView<V, I, O>& A, void* stream) const;
  KernelChoice choose(const CsrView<V, I, O>& A, void* stream) const;
  // auto's cuSPARSE pick and race entrant renamed to OperatorOptions::auto_vendor_kernel.
  KernelChoice with_vendor_kernel(KernelChoice c) const;
  Prepared prepare(const CsrView<V, I, O>& A, const KernelChoice& choice, void* stream) const;
  std::unique_ptr<Impl> impl_;
};

}  // namespace hola
