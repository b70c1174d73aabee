// Batched SpMV kernels (seed 004; docs/batched.md). A group of G threads (G a multiple of 32,
// G <= blockDim.x) owns one matrix; a block holds blockDim.x / G matrices. With Stage, each group
// first copies its x_i into its slice of dynamic shared memory (stage_cols values), then the block
// synchronises once. Every row is summed in a fixed order: no floating-point atomics, results
// are reproducible. Included by the instantiation files batched_*.cu only.
//
// NOT YET RUN ON A GPU: written and compiled without access to one.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "common/cuda_utils.cuh"
#include "hola/batched.hpp"
#include "hola/batched_access.hpp"
#include "hola/batched_gpu.hpp"

namespace hola::batched::gpu {
namespace detail {

constexpr int kWarp = 32;
constexpr unsigned kFullMask = 0xffffffffu;
constexpr int kMaxBlock = 1024;

template <class V>
struct Scalars {
  V alpha;
  V beta;
  const V* x;
  V* y;
  std::int64_t count;
  int group_threads;
  std::int64_t stage_cols;
};

// Position of the calling thread: its matrix b (may be >= count), lane inside its group.
struct GroupPos {
  std::int64_t b;
  int group;
  int lane;
};

__device__ inline GroupPos group_pos(int group_threads) {
  const int groups = static_cast<int>(blockDim.x) / group_threads;
  GroupPos p;
  p.group = static_cast<int>(threadIdx.x) / group_threads;
  p.lane = static_cast<int>(threadIdx.x) % group_threads;
  p.b = static_cast<std::int64_t>(blockIdx.x) * groups + p.group;
  return p;
}

// x of matrix b, staged in shared memory when Stage and it fits the group's slice. Every thread of
// the block calls this (it contains the block barrier); inactive groups copy nothing.
template <bool Stage, class V, class Access>
__device__ inline const V* x_of(const Access& a, const Scalars<V>& s, const GroupPos& p,
                                bool active) {
  extern __shared__ __align__(16) unsigned char batched_smem[];
  const V* global = active ? s.x + a.x_offset(p.b) : nullptr;
  if constexpr (!Stage) {
    return global;
  } else {
    V* slice =
        reinterpret_cast<V*>(batched_smem) + static_cast<std::size_t>(p.group) * s.stage_cols;
    const std::int64_t n = active ? a.cols(p.b) : 0;
    const bool fits = n <= s.stage_cols;
    if (active && fits)
      for (std::int64_t j = p.lane; j < n; j += s.group_threads) slice[j] = global[j];
    __syncthreads();
    return fits ? slice : global;
  }
}

// CSR / shared-pattern CSR, one thread per row.
template <bool Stage, class V, class I>
__global__ __launch_bounds__(kMaxBlock) void csr_scalar_kernel(CsrAccess<V, I> a, Scalars<V> s) {
  const GroupPos p = group_pos(s.group_threads);
  const bool active = p.b < s.count;
  const V* xb = x_of<Stage>(a, s, p, active);
  if (!active) return;
  const std::int64_t m = a.rows(p.b);
  V* yb = s.y + a.y_offset(p.b);
  const V* vals = a.values + a.value_base(p.b);
  for (std::int64_t r = p.lane; r < m; r += s.group_threads) {
    const std::int64_t k = a.row_ptr_index(p.b, r);
    const std::int64_t p0 = a.row_ptr[k], p1 = a.row_ptr[k + 1];
    V sum = V(0);
    for (std::int64_t q = p0; q < p1; ++q) sum += vals[q] * xb[a.col_idx[q]];
    yb[r] = combine<V>(s.alpha, sum, s.beta, yb + r);
  }
}

// CSR / shared-pattern CSR, one warp per row (the group's warps take rows in turn). All 32 lanes
// of a warp run the same rows, so the full-mask shuffles always see every lane.
template <bool Stage, class V, class I>
__global__ __launch_bounds__(kMaxBlock) void csr_vector_kernel(CsrAccess<V, I> a, Scalars<V> s) {
  const GroupPos p = group_pos(s.group_threads);
  const bool active = p.b < s.count;
  const V* xb = x_of<Stage>(a, s, p, active);
  if (!active) return;  // whole groups, hence whole warps, leave together
  const int warp = p.lane / kWarp, lane = p.lane % kWarp;
  const int warps = s.group_threads / kWarp;
  const std::int64_t m = a.rows(p.b);
  V* yb = s.y + a.y_offset(p.b);
  const V* vals = a.values + a.value_base(p.b);
  for (std::int64_t r = warp; r < m; r += warps) {
    const std::int64_t k = a.row_ptr_index(p.b, r);
    const std::int64_t p0 = a.row_ptr[k], p1 = a.row_ptr[k + 1];
    V sum = V(0);
    for (std::int64_t q = p0 + lane; q < p1; q += kWarp) sum += vals[q] * xb[a.col_idx[q]];
    for (int off = kWarp / 2; off > 0; off /= 2) sum += __shfl_down_sync(kFullMask, sum, off);
    if (lane == 0) yb[r] = combine<V>(s.alpha, sum, s.beta, yb + r);
  }
}

// CSR / shared-pattern CSR, seed 004's CSR-smart: each matrix gets its own vector width W, the
// smallest power of two >= its mean row length (1..32); a warp holds 32 / W vectors, one row
// each. W is uniform in the group and the row loop is uniform in the warp (its bound depends on
// the warp's first row only), so every lane reaches the segmented shuffles.
template <bool Stage, class V, class I>
__global__ __launch_bounds__(kMaxBlock) void csr_smart_kernel(CsrAccess<V, I> a, Scalars<V> s) {
  const GroupPos p = group_pos(s.group_threads);
  const bool active = p.b < s.count;
  const V* xb = x_of<Stage>(a, s, p, active);
  if (!active) return;
  const std::int64_t m = a.rows(p.b);
  if (m == 0) return;
  const std::int64_t nnz = a.nnz(p.b);
  const std::int64_t mean = (nnz + m - 1) / m;
  int width = 1;
  while (width < kWarp && width < mean) width *= 2;
  const int warp = p.lane / kWarp, lane_in_warp = p.lane % kWarp;
  const int vec = lane_in_warp / width, vl = lane_in_warp % width;
  const std::int64_t rows_per_warp = kWarp / width;
  const std::int64_t stride = static_cast<std::int64_t>(s.group_threads / kWarp) * rows_per_warp;
  V* yb = s.y + a.y_offset(p.b);
  const V* vals = a.values + a.value_base(p.b);
  for (std::int64_t first = warp * rows_per_warp; first < m; first += stride) {
    const std::int64_t r = first + vec;
    V sum = V(0);
    if (r < m) {
      const std::int64_t k = a.row_ptr_index(p.b, r);
      const std::int64_t p0 = a.row_ptr[k], p1 = a.row_ptr[k + 1];
      for (std::int64_t q = p0 + vl; q < p1; q += width) sum += vals[q] * xb[a.col_idx[q]];
    }
    for (int off = width / 2; off > 0; off /= 2)
      sum += __shfl_down_sync(kFullMask, sum, off, width);
    if (r < m && vl == 0) yb[r] = combine<V>(s.alpha, sum, s.beta, yb + r);
  }
}

// COO (rows sorted inside each matrix), one thread per row: the row's first entry by binary
// search, then its run of entries in stored order.
template <bool Stage, class V, class I>
__global__ __launch_bounds__(kMaxBlock) void coo_kernel(OffsetAccess<V, I> a, Scalars<V> s) {
  const GroupPos p = group_pos(s.group_threads);
  const bool active = p.b < s.count;
  const V* xb = x_of<Stage>(a, s, p, active);
  if (!active) return;
  const std::int64_t m = a.rows(p.b);
  const std::int64_t e0 = a.entry_begin(p.b), e1 = a.entry_end(p.b);
  V* yb = s.y + a.y_offset(p.b);
  for (std::int64_t r = p.lane; r < m; r += s.group_threads) {
    std::int64_t lo = e0, hi = e1;  // first entry with row >= r
    while (lo < hi) {
      const std::int64_t mid = lo + (hi - lo) / 2;
      if (static_cast<std::int64_t>(a.row_idx[mid]) < r)
        lo = mid + 1;
      else
        hi = mid;
    }
    V sum = V(0);
    for (std::int64_t q = lo; q < e1 && static_cast<std::int64_t>(a.row_idx[q]) == r; ++q)
      sum += a.values[q] * xb[a.col_idx[q]];
    yb[r] = combine<V>(s.alpha, sum, s.beta, yb + r);
  }
}

// ELL (column-major slab per matrix, padding col_idx == -1), one thread per row: consecutive
// threads read consecutive slots.
template <bool Stage, class V, class I>
__global__ __launch_bounds__(kMaxBlock) void ell_kernel(OffsetAccess<V, I> a, Scalars<V> s) {
  const GroupPos p = group_pos(s.group_threads);
  const bool active = p.b < s.count;
  const V* xb = x_of<Stage>(a, s, p, active);
  if (!active) return;
  const std::int64_t m = a.rows(p.b);
  const std::int64_t w = a.ell_width(p.b), base = a.entry_begin(p.b);
  V* yb = s.y + a.y_offset(p.b);
  for (std::int64_t r = p.lane; r < m; r += s.group_threads) {
    V sum = V(0);
    for (std::int64_t k = 0; k < w; ++k) {
      const std::int64_t q = base + k * m + r;
      const I c = a.col_idx[q];
      if (c >= 0) sum += a.values[q] * xb[c];
    }
    yb[r] = combine<V>(s.alpha, sum, s.beta, yb + r);
  }
}

template <class Access, class V>
using KernelFn = void (*)(Access, Scalars<V>);

template <class Access, class V>
void launch(KernelFn<Access, V> fn, const Access& a, const Scalars<V>& s, const Plan& plan,
            std::size_t shared_bytes, void* stream) {
  const std::int64_t per_block = plan.block_threads / plan.group_threads;
  const std::int64_t blocks = (s.count + per_block - 1) / per_block;
  if (blocks > 0x7fffffffLL)
    fail(status::unsupported, "batched gpu: batch needs more than 2^31 - 1 blocks");
  fn<<<static_cast<unsigned>(blocks), static_cast<unsigned>(plan.block_threads), shared_bytes,
       ::hola::cuda::as_stream(stream)>>>(a, s);
  HOLA_CUDA_CHECK_LAUNCH("batched");
}

}  // namespace detail

template <class V, class I>
void apply(const BatchView<V, I>& batch, const Plan& plan, V alpha, const V* x, V beta, V* y,
           void* stream) {
  using namespace detail;
  if (batch.memory != Memory::device)
    fail(status::invalid_argument, "batched gpu: the batch is not in device memory");
  if (plan.block_threads < kWarp || plan.block_threads > kMaxBlock ||
      plan.block_threads % kWarp != 0 || plan.group_threads < kWarp ||
      plan.group_threads % kWarp != 0 || plan.block_threads % plan.group_threads != 0)
    fail(status::invalid_argument,
         "batched gpu: plan needs block_threads a multiple of 32 up to 1024 and group_threads "
         "a multiple of 32 dividing it");
  if (plan.kernel == Kernel::auto_select || !kernel_supports(plan.kernel, batch.format))
    fail(status::unsupported, std::string("batched gpu: kernel ") + kernel_name(plan.kernel) +
                                  " does not take the " + format_name(batch.format) + " format");
  const std::size_t shared_bytes = plan.stage_x
                                       ? static_cast<std::size_t>(plan.matrices_per_block()) *
                                             static_cast<std::size_t>(plan.stage_cols) * sizeof(V)
                                       : 0;
  if (plan.stage_x && (plan.stage_cols <= 0 || shared_bytes > kStageBytesLimit))
    fail(status::invalid_argument, "batched gpu: staged x needs 0 < stage_cols and at most " +
                                       std::to_string(kStageBytesLimit) + " bytes a block");
  if (batch.count == 0 || batch.total_rows == 0) return;

  Scalars<V> s{alpha, beta, x, y, batch.count, plan.group_threads, plan.stage_cols};
  if (plan.kernel == Kernel::csr_scalar || plan.kernel == Kernel::csr_vector ||
      plan.kernel == Kernel::csr_smart) {
    const CsrAccess<V, I> a(batch);
    using Fn = KernelFn<CsrAccess<V, I>, V>;
    Fn fn;
    if (plan.kernel == Kernel::csr_scalar)
      fn = plan.stage_x ? csr_scalar_kernel<true, V, I> : csr_scalar_kernel<false, V, I>;
    else if (plan.kernel == Kernel::csr_vector)
      fn = plan.stage_x ? csr_vector_kernel<true, V, I> : csr_vector_kernel<false, V, I>;
    else
      fn = plan.stage_x ? csr_smart_kernel<true, V, I> : csr_smart_kernel<false, V, I>;
    launch(fn, a, s, plan, shared_bytes, stream);
  } else {
    const OffsetAccess<V, I> a(batch);
    using Fn = KernelFn<OffsetAccess<V, I>, V>;
    Fn fn;
    if (plan.kernel == Kernel::coo)
      fn = plan.stage_x ? coo_kernel<true, V, I> : coo_kernel<false, V, I>;
    else
      fn = plan.stage_x ? ell_kernel<true, V, I> : ell_kernel<false, V, I>;
    launch(fn, a, s, plan, shared_bytes, stream);
  }
}

}  // namespace hola::batched::gpu

#define HOLA_BATCHED_GPU_INSTANTIATE(V, I) \
  template void apply<V, I>(const BatchView<V, I>&, const Plan&, V, const V*, V, V*, void*);
