// Factories of the GPU kernel families. Each returns a kernel working on device memory.
// Available only in builds with HOLA_ENABLE_CUDA; gpu_available() exists in every build.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "hola/spmv_kernel.hpp"

namespace hola::gpu {

// True when the library was built with CUDA and a usable GPU is present.
bool gpu_available() noexcept;

// The name of the current CUDA device ("NVIDIA H100 80GB HBM3"); empty when there is none or the
// build has no CUDA. For result files and reports, never on a product path.
std::string device_name();

// Synchronous device-to-host copy (setup-time only); throws status::cuda on failure and
// status::no_device in builds without CUDA.
void copy_device_to_host(void* dst, const void* src, std::size_t bytes);

#if defined(HOLA_ENABLE_CUDA)
template <class V, class I, class O>
SpmvKernelPtr<V, I, O> make_hola(const KernelOptions& options);  // seed 000 (N and T)
template <class V, class I, class O>
SpmvKernelPtr<V, I, O> make_merge(const KernelOptions& options);  // merge path
template <class V, class I, class O>
SpmvKernelPtr<V, I, O> make_light(const KernelOptions& options);  // LightSpMV
template <class V, class I, class O>
SpmvKernelPtr<V, I, O> make_scalar(const KernelOptions& options);  // thread per row
template <class V, class I, class O>
SpmvKernelPtr<V, I, O> make_vector(const KernelOptions& options);  // warp per row
template <class V, class I, class O>
SpmvKernelPtr<V, I, O> make_vector_adaptive(const KernelOptions& options);  // 2-32 lanes per row
// Consecutive rows with identical column lists (PETSc's inodes) taken together by one vector.
template <class V, class I, class O>
SpmvKernelPtr<V, I, O> make_inode(const KernelOptions& options);
// cuSPARSE cusparseSpMV; alg 1 = CUSPARSE_SPMV_CSR_ALG1, 2 = CSR_ALG2.
template <class V, class I, class O>
SpmvKernelPtr<V, I, O> make_cusparse(const KernelOptions& options, int alg);

// How LightSpMV hands out rows: vector-level (each vector takes one row per atomic) or
// warp-level (lane 0 of a warp takes rounds x 32 / width rows per atomic); automatic is
// make_light's choice (warp-level).
enum class LightDistribution { automatic, vector, warp };
// LightSpMV with its choices forced (tests, tuning): vector_width 2, 4, 8 or 32 lanes per row,
// rounds_per_take 1 to 16 (warp-level only; 1 is the paper's variant); 0 leaves a choice to
// make_light's rules.
template <class V, class I, class O>
SpmvKernelPtr<V, I, O> make_light_forced(const KernelOptions& options,
                                         LightDistribution distribution, int vector_width,
                                         int rounds_per_take = 0);
// CUSP-style vector kernel with the lanes per row forced: 2, 4, 8, 16 or 32 (0: from the mean
// row length, as make_vector_adaptive).
template <class V, class I, class O>
SpmvKernelPtr<V, I, O> make_vector_adaptive_forced(const KernelOptions& options, int lanes_per_row);
// The sample that op T's window plan of the vector kernels reads (kernels/cuda/rowwise/
// window_scatter.cuh): diagonal offsets (column less the row's diagonal column) of runs of rows
// spread over A, counted and sorted by offset, and the rows sampled. `on_gpu`: the offsets
// written on the GPU and copied back in one piece (what the kernels do), else the sample's rows
// copied to the host and their offsets taken there (the kernels' fallback when no scratch memory
// is left). For tests: the two must agree. A is device memory; `on_gpu` without scratch memory
// throws (status::out_of_memory).
template <class V, class I, class O>
std::vector<std::pair<std::int64_t, std::int64_t>> window_plan_sample(const CsrView<V, I, O>& A,
                                                                      bool on_gpu,
                                                                      std::int64_t& sampled_rows,
                                                                      void* stream);

// How long a setup-time race of kernels runs: one untimed apply of each (module loading, first
// touch), one timed apply of each to size the rounds, then `rounds` rounds that each time a
// batch of back-to-back applies of every kernel in turn (CUDA events). A batch is long enough
// for the fastest kernel to run about `round_ms`, within [min_applies, max_applies].
struct KernelTrial {
  int rounds = 5;
  double round_ms = 0.1;
  int min_applies = 3;
  int max_applies = 100;
};
// Times y = A x (or A^T x) with each of `kernels` (all set up for the same matrix of `rows` x
// `cols`) on zero scratch vectors; returns each kernel's best time per apply in ms, in order.
// Setup time only: allocates the vectors and synchronizes `stream`.
template <class V, class I, class O>
std::vector<double> time_kernels(const std::vector<SpmvKernel<V, I, O>*>& kernels, Op op,
                                 std::int64_t rows, std::int64_t cols,
                                 const KernelTrial& trial = {}, void* stream = nullptr);

// CUDA events around a few of the caller's own products ("auto"'s check at the first products,
// plugin/src/operator.cpp). Creating and recording events allocates no device memory and
// synchronises nothing; wait() waits for those events alone. Destroyed with the timer.
//
// The events time the product on the GPU alone: start() queues, before the start event, a
// one-thread kernel that waits until stop() has been called (a flag in mapped host memory,
// at most gate_timeout_us, so a host that stalls cannot hold the GPU). Without it, a GPU with
// nothing else queued reaches the start event at once and the slot also times the host's queueing
// of the product, which for products of a few microseconds can decide the verdict and moves with
// the host's load. The GPU waits only while the host queues the product, time it would otherwise
// spend idle. Where mapped host memory is unavailable the timer runs ungated (gated() false).
class ProductTimer {
 public:
  static constexpr double kGateTimeoutUs = 1000;
  // Throws status::cuda when the events cannot be made.
  explicit ProductTimer(int slots, double gate_timeout_us = kGateTimeoutUs);
  ~ProductTimer();
  ProductTimer(const ProductTimer&) = delete;
  ProductTimer& operator=(const ProductTimer&) = delete;
  int slots() const { return static_cast<int>(stopped_.size()); }
  bool gated() const;
  void start(int slot, void* stream);
  void stop(int slot, void* stream);
  // Waits until every slot's events have completed (cudaEventSynchronize on each stop event;
  // immediate once the GPU has passed them). Every slot must have been stopped.
  void wait() const;
  double elapsed_ms(int slot) const;  // after wait()

 private:
  std::vector<void*> events_;  // cudaEvent_t: start and stop of each slot
  std::vector<bool> stopped_;
  double gate_timeout_us_;
  std::uint64_t last_ticket_ = 0;  // the gate this timer closed last (0: none)
};

// True when `stream` (nullptr: the legacy default stream) is capturing into a CUDA graph, or
// when its capture state cannot be told (the legacy stream while another stream captures
// globally): a product that must not be recorded into a graph asks this first.
bool stream_capturing(void* stream);
#endif

}  // namespace hola::gpu
