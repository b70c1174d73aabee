// Host side of the hola kernel family: configuration, setup (row starts, buffers), launches.
// Device code and the design note: hola_device.cuh. Instantiated per type in hola_*.cu.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <type_traits>

#include "common/cuda_utils.cuh"
#include "common/scale_output.cuh"
#include "hola/gpu_kernels.hpp"
#include "hola/hola_device.cuh"

namespace hola::gpu::hola_detail {

// Compiled configurations: threads per block x nonzeros per thread (every pair is compiled).
struct HolaConfig {
  int threads;
  int nnz_per_thread;
};

// The paper's Pascal choice (256 threads; 4 nonzeros per thread for double, 8 for float), until
// the Hopper sweep sets new defaults.
template <class V>
constexpr HolaConfig default_config() {
  return {256, std::is_same_v<V, double> ? 4 : 8};
}

inline bool is_compiled_config(int threads, int nnz_per_thread) {
  return (threads == 128 || threads == 256 || threads == 512) &&
         (nnz_per_thread == 4 || nnz_per_thread == 8 || nnz_per_thread == 16);
}

inline const char* compiled_configs_text() {
  return "threads_per_block in {128, 256, 512} (0: 256) x nnz_per_thread in {4, 8, 16} "
         "(0: 4 for double, 8 for float)";
}

// Calls f(integral_constant<threads>, integral_constant<nnz_per_thread>) for a compiled pair.
template <int kThreads, class F>
void with_nnz_per_thread(int nnz_per_thread, F& f) {
  switch (nnz_per_thread) {
    case 4:
      f(std::integral_constant<int, kThreads>{}, std::integral_constant<int, 4>{});
      return;
    case 8:
      f(std::integral_constant<int, kThreads>{}, std::integral_constant<int, 8>{});
      return;
    case 16:
      f(std::integral_constant<int, kThreads>{}, std::integral_constant<int, 16>{});
      return;
  }
  fail(status::internal, "hola: configuration not compiled");
}
template <class F>
void with_config(const HolaConfig& c, F&& f) {
  switch (c.threads) {
    case 128:
      with_nnz_per_thread<128>(c.nnz_per_thread, f);
      return;
    case 256:
      with_nnz_per_thread<256>(c.nnz_per_thread, f);
      return;
    case 512:
      with_nnz_per_thread<512>(c.nnz_per_thread, f);
      return;
  }
  fail(status::internal, "hola: configuration not compiled");
}

// The transpose variant used unless KernelOptions::transpose_variant names one (measured on
// the H200: bench/results, docs/performance-history.md, "Transpose variants").
constexpr int kDefaultTransposeVariant = kTWarpOrder;

// Calls f(integral_constant<variant>) for a transpose variant compiled for this block size.
template <int kNpb, class F>
void with_transpose_variant(int variant, F&& f) {
  switch (variant) {
    case kTThreadOrder:
      f(std::integral_constant<int, kTThreadOrder>{});
      return;
    case kTCombine:
      if constexpr (t_combine_compiled<kNpb>()) {
        f(std::integral_constant<int, kTCombine>{});
        return;
      }
      break;
    case kTWarpOrder:
      f(std::integral_constant<int, kTWarpOrder>{});
      return;
  }
  fail(status::internal, "hola: transpose variant not compiled for this configuration");
}

// Up to this many nonzeros op N takes the carry path even when determinism was not asked for. On
// an H100 (bench/results/2026-11-26-h100-session2-2e9ac01/det-vs-atomic.txt) it was 1.02-1.21x
// faster than the atomic path on 11 of the 12 matrices of 43 k-331 k nonzeros, in double and in
// float (the 12th, `arrow`, with a full first row and column: 0.84x / 0.95x), 1.00x / 1.12x at
// 1.8 M nonzeros, and 0.73-1.02x from 6.9 M nonzeros up, where the atomic path stays.
constexpr std::int64_t kCarryPathMaxNnz = std::int64_t(1) << 21;

// Op N's L2 prefetch (KernelOptions::l2_prefetch_tiles) is off unless asked for. Session 10 turned
// it on for regular double matrices (the block half a wave ahead: 1.07-1.13x on an H100). Once
// the matrix loads became evict-first and the per-thread column sort went, it cost 1-11 % on
// the same matrices on an H100 and an H200 (bench/results/2026-11-28-session11/, runs C, D).

inline bool aligned16(const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; }

template <class V, class I, class O>
class HolaKernel final : public SpmvKernel<V, I, O> {
 public:
  HolaKernel(HolaConfig config, bool is_default, bool deterministic, int transpose_variant,
             std::int64_t carry_path_max_nnz, std::int64_t fused_fixup_max_blocks,
             int prefetch_ahead)
      : config_(config),
        is_default_(is_default),
        deterministic_(deterministic),
        carry_path_max_nnz_(carry_path_max_nnz < 0 ? kCarryPathMaxNnz : carry_path_max_nnz),
        fused_fixup_max_blocks_(fused_fixup_max_blocks < 0 ? config.threads
                                                           : fused_fixup_max_blocks),
        t_variant_(transpose_variant),
        prefetch_n_(std::max(prefetch_ahead, 0)) {}

  // "hola" for the default configuration, "hola:<threads>x<nnz_per_thread>" otherwise.
  std::string name() const override {
    if (is_default_) return "hola";
    return "hola:" + std::to_string(config_.threads) + "x" +
           std::to_string(config_.nnz_per_thread) +
           (t_variant_ == kDefaultTransposeVariant ? ""
            : t_variant_ == kTThreadOrder          ? ",t-thread-order"
            : t_variant_ == kTCombine              ? ",t-combine"
                                                   : ",t-warp-order");
  }
  bool supports(Op op) const override { return op == Op::N || !deterministic_; }
  bool deterministic() const override { return deterministic_; }

  void setup(const CsrView<V, I, O>& A, void* stream) override {
    ready_ = false;
    A_ = A;
    const std::int64_t npb = nnz_per_block();
    num_blocks_ = A.nnz > 0 ? (A.nnz + npb - 1) / npb : 0;
    carry_n_ = deterministic_ || A.nnz <= carry_path_max_nnz_;
    // Local row indices are 32-bit and row starts are stored as O.
    const std::int64_t max_rows =
        std::min<std::int64_t>(std::numeric_limits<O>::max() - 1,
                               std::int64_t(std::numeric_limits<std::uint32_t>::max()) - 65536);
    if (A.rows > max_rows)
      fail(status::unsupported, "hola: " + std::to_string(A.rows) + " rows exceed the limit of " +
                                    std::to_string(max_rows));
    if (num_blocks_ > std::numeric_limits<int>::max())
      fail(status::unsupported, "hola: too many nonzeros for the grid");
    sm_count_ = cuda::current_device_info().sm_count;
    if (num_blocks_ > 0) {
      row_starts_.resize(static_cast<std::size_t>(num_blocks_ + 1) * sizeof(O));
      const cudaStream_t s = cuda::as_stream(stream);
      if (carry_n_) {
        carry_.resize(static_cast<std::size_t>(num_blocks_) * sizeof(V));
        blocks_done_.resize(sizeof(unsigned));
        HOLA_CUDA_CHECK(cudaMemsetAsync(blocks_done_.as<unsigned>(), 0, sizeof(unsigned), s));
      }
      row_starts_kernel<O><<<cuda::div_up(A.rows, 256), 256, 0, s>>>(
          A.row_ptr, A.rows, npb, num_blocks_, row_starts_.as<O>());
      HOLA_CUDA_CHECK_LAUNCH("hola row starts");
      // Configurations above 48 KiB of shared memory need the opt-in.
      with_config(config_, [&](auto threads, auto npt) {
        constexpr int kT = decltype(threads)::value, kN = decltype(npt)::value;
        const int bytes = static_cast<int>(n_kernel_shared_bytes<V, kT, kN>());
        if (carry_n_)
          HOLA_CUDA_CHECK(cudaFuncSetAttribute(spmv_n_kernel<V, I, O, kT, kN, true>,
                                               cudaFuncAttributeMaxDynamicSharedMemorySize, bytes));
        else
          HOLA_CUDA_CHECK(cudaFuncSetAttribute(spmv_n_kernel<V, I, O, kT, kN, false>,
                                               cudaFuncAttributeMaxDynamicSharedMemorySize, bytes));
        if (!deterministic_) {
          with_transpose_variant<kT * kN>(t_variant_, [&](auto variant) {
            constexpr int kVar = decltype(variant)::value;
            HOLA_CUDA_CHECK(cudaFuncSetAttribute(
                spmv_t_kernel<V, I, O, kT, kN, kVar>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                static_cast<int>(t_kernel_shared_bytes<V, I, kT * kN, kVar>())));
          });
        }
      });
      HOLA_CUDA_CHECK(cudaStreamSynchronize(s));
    }
    ready_ = true;
  }

  void set_values(const V* values) override { A_.values = values; }

  // Row starts ((blocks + 1) x sizeof(O)) and, on the carry path, one carry per block and the
  // fused fix-up's counter.
  std::size_t workspace_bytes() const override {
    return row_starts_.bytes() + carry_.bytes() + blocks_done_.bytes();
  }

  void apply(Op op, V alpha, const V* x, V beta, const V* y_in, V* y_out, void* stream) override {
    if (!ready_) fail(status::invalid_argument, "hola: apply() before setup()");
    if (op == Op::T && deterministic_)
      fail(status::unsupported, "hola: no deterministic transpose (supports(T) is false)");
    const cudaStream_t s = cuda::as_stream(stream);
    const std::int64_t ny = op == Op::N ? A_.rows : A_.cols;
    if (ny == 0) return;
    if (A_.nnz == 0 || alpha == V(0)) {
      scale(ny, beta, y_in, y_out, s);
      return;
    }
    SpmvArgs<V, I, O> args{};
    args.row_ptr = A_.row_ptr;
    args.col_idx = A_.col_idx;
    args.values = A_.values;
    args.row_starts = row_starts_.as<O>();
    args.x = x;
    args.y_in = y_in;
    args.y_out = y_out;
    args.carry = carry_n_ ? carry_.as<V>() : nullptr;
    args.blocks_done = nullptr;  // launch_n sets it for the fused fix-up
    args.alpha = alpha;
    args.beta = beta;
    args.nnz = A_.nnz;
    args.num_blocks = num_blocks_;
    args.vector_loads = aligned16(A_.values) && aligned16(A_.col_idx);
    args.prefetch_ahead = prefetch_n_;  // read by op N only
    if (op == Op::N)
      launch_n(args, s);
    else
      launch_t(args, s);
  }

  HolaConfig config() const { return config_; }

  std::string tuning(Op op) const override {
    if (op != Op::N || prefetch_n_ <= 0) return {};
    return "L2 prefetch " + std::to_string(prefetch_n_) + " blocks ahead";
  }

 private:
  std::int64_t nnz_per_block() const {
    return std::int64_t(config_.threads) * config_.nnz_per_thread;
  }

  // y_out = beta * y_in (op T's first pass; the product when A is empty or alpha is 0).
  void scale(std::int64_t n, V beta, const V* y_in, V* y_out, cudaStream_t s) const {
    cuda::scale_output(n, beta, y_in, y_out, sm_count_, s);
  }

  // Carry path: up to fused_fixup_max_blocks_ blocks (by default as many as a block has threads:
  // one boundary per thread of the last block) that block adds the carries, else fixup_kernel.
  // On an H100 (bench/results/2026-11-28-h100-session8/, run A) fusing made products of 10-256
  // blocks 1.12x as fast launched alone and 0.98x replayed in a CUDA graph, where a launch costs
  // little and the last block's wait shows: a product being captured takes the two kernels.
  void launch_n(SpmvArgs<V, I, O> args, cudaStream_t s) const {
    const bool fused = carry_n_ && num_blocks_ > 1 && num_blocks_ <= fused_fixup_max_blocks_ &&
                       !stream_capturing(s);
    if (fused) args.blocks_done = blocks_done_.as<unsigned>();
    const unsigned boundary_grid =
        num_blocks_ > 1 && !fused ? cuda::div_up(static_cast<std::size_t>(num_blocks_ - 1), 256)
                                  : 0;
    with_config(config_, [&](auto threads, auto npt) {
      constexpr int kT = decltype(threads)::value, kN = decltype(npt)::value;
      const std::size_t bytes = n_kernel_shared_bytes<V, kT, kN>();
      const unsigned grid = static_cast<unsigned>(num_blocks_);
      if (carry_n_) {
        spmv_n_kernel<V, I, O, kT, kN, true><<<grid, kT, bytes, s>>>(args);
        HOLA_CUDA_CHECK_LAUNCH("hola spmv (carry path)");
        if (boundary_grid > 0) {
          fixup_kernel<V, O><<<boundary_grid, 256, 0, s>>>(args.row_starts, num_blocks_, args.carry,
                                                           args.alpha, args.y_out);
          HOLA_CUDA_CHECK_LAUNCH("hola fix-up");
        }
      } else {
        if (boundary_grid > 0) {
          prepare_crossing_rows_kernel<V, O><<<boundary_grid, 256, 0, s>>>(
              args.row_starts, num_blocks_, args.beta, args.y_in, args.y_out);
          HOLA_CUDA_CHECK_LAUNCH("hola prepare crossing rows");
        }
        spmv_n_kernel<V, I, O, kT, kN, false><<<grid, kT, bytes, s>>>(args);
        HOLA_CUDA_CHECK_LAUNCH("hola spmv");
      }
    });
  }

  void launch_t(const SpmvArgs<V, I, O>& args, cudaStream_t s) const {
    scale(A_.cols, args.beta, args.y_in, args.y_out, s);
    with_config(config_, [&](auto threads, auto npt) {
      constexpr int kT = decltype(threads)::value, kN = decltype(npt)::value;
      const unsigned grid = static_cast<unsigned>(num_blocks_);
      with_transpose_variant<kT * kN>(t_variant_, [&](auto variant) {
        constexpr int kVar = decltype(variant)::value;
        spmv_t_kernel<V, I, O, kT, kN, kVar>
            <<<grid, kT, t_kernel_shared_bytes<V, I, kT * kN, kVar>(), s>>>(args);
        HOLA_CUDA_CHECK_LAUNCH("hola spmv transpose");
      });
    });
  }

  HolaConfig config_;
  bool is_default_;
  bool deterministic_;
  // Op N through the carry buffer and the fixed-order fix-up (reproducible) rather than atomics:
  // always in deterministic mode, else on matrices of at most carry_path_max_nnz_ nonzeros
  // (default kCarryPathMaxNnz, where it was also the faster path).
  std::int64_t carry_path_max_nnz_;
  // Carry path: products of at most this many blocks add the carries in their last block.
  std::int64_t fused_fixup_max_blocks_;
  bool carry_n_ = false;
  int t_variant_;       // TransposeVariant
  int prefetch_n_ = 0;  // blocks ahead, op N (0: none; KernelOptions::l2_prefetch_tiles)
  bool ready_ = false;
  CsrView<V, I, O> A_{};
  std::int64_t num_blocks_ = 0;
  int sm_count_ = 1;
  cuda::DeviceBuffer row_starts_;
  cuda::DeviceBuffer carry_;
  cuda::DeviceBuffer blocks_done_;  // one unsigned, 0 between products (fused fix-up)
};

}  // namespace hola::gpu::hola_detail

namespace hola::gpu {

template <class V, class I, class O>
SpmvKernelPtr<V, I, O> make_hola(const KernelOptions& options) {
  using namespace hola_detail;
  constexpr HolaConfig def = default_config<V>();
  const HolaConfig config{
      options.threads_per_block == 0 ? def.threads : options.threads_per_block,
      options.nnz_per_thread == 0 ? def.nnz_per_thread : options.nnz_per_thread};
  if (!is_compiled_config(config.threads, config.nnz_per_thread))
    fail(status::invalid_argument,
         "hola: threads_per_block=" + std::to_string(options.threads_per_block) +
             ", nnz_per_thread=" + std::to_string(options.nnz_per_thread) +
             " is not a compiled configuration; valid: " + compiled_configs_text());
  const int variant = options.transpose_variant;
  if (variant < -1 || variant > kTWarpOrder)
    fail(status::invalid_argument,
         "hola: transpose_variant=" + std::to_string(variant) +
             " (valid: -1 default, 0 thread order, 1 shared-memory combiner, 2 warp order)");
  if (options.l2_prefetch_tiles < -1)
    fail(status::invalid_argument,
         "hola: l2_prefetch_tiles=" + std::to_string(options.l2_prefetch_tiles) +
             " (valid: -1 the kernel's choice, 0 never, N > 0 blocks ahead)");
  // The combiner's table (2 slots per nonzero of a block) fits for blocks of <= 2048 nonzeros.
  if (variant == kTCombine && config.threads * config.nnz_per_thread > 2048)
    fail(status::invalid_argument,
         "hola: the transpose combiner needs threads_per_block x nnz_per_thread <= 2048");
  const bool is_default = config.threads == def.threads &&
                          config.nnz_per_thread == def.nnz_per_thread &&
                          (variant == -1 || variant == kDefaultTransposeVariant);
  return std::make_unique<HolaKernel<V, I, O>>(
      config, is_default, options.deterministic, variant == -1 ? kDefaultTransposeVariant : variant,
      options.carry_path_max_nnz, options.fused_fixup_max_tiles, options.l2_prefetch_tiles);
}

}  // namespace hola::gpu

#define HOLA_INSTANTIATE_HOLA(V, I, O)                                   \
  template ::hola::SpmvKernelPtr<V, I, O> hola::gpu::make_hola<V, I, O>( \
      const ::hola::KernelOptions&);
