// Hola-SpMV device code (seed 000: "globally homogeneous, locally adaptive" CSR SpMV).
//
// Data flow, y_out = alpha * op(A) * x + beta * y_in, A in plain CSR (no conversion):
//
//  setup   row_starts_kernel: one thread per row scatters, for every block k >= 1 whose first
//          nonzero k * NPB lies in that row, the row index into starts[k] (NPB = threads x
//          nonzeros per thread). The index is stored bit-inverted (negative) when the row also
//          holds nonzeros before k * NPB, i.e. when the row "crosses" boundary k and several
//          blocks contribute to it. starts[0] = 0, starts[B] = rows. The structure is fixed
//          between setups, so this runs once per structure, not per apply.
//
//  apply N prepare_crossing_rows_kernel (one thread per block boundary): crossing rows get
//          beta * y_in (0 when beta == 0, y_in unread); nothing else of y is touched.
//          spmv_n_kernel, block b owns nonzeros [b NPB, (b+1) NPB) and rows
//          [starts[b], starts[b+1]) plus starts[b+1] when that row crosses boundary b+1:
//           1. wide loads: every warp loads its 32 x NPT values and column indices with 16-byte
//              coalesced loads (striped), then turns them into the blocked layout (thread t owns
//              NPT consecutive nonzeros) with register rotations and warp shuffles. The matrix is
//              read once, so its loads are marked evict-first (ld.global.cs): the L2 keeps x
//              (and, for op T, y) rather than matrix lines that are never read again;
//           2. local row assignment (shared memory): one thread per row writes the row index
//              of every thread whose first nonzero is in the row, and sets the row's end bit in
//              the owning thread's bit mask; empty rows flag their warp;
//           3. each thread gathers x for its nonzeros in their CSR order (the paper's per-thread
//              column sort, meant for Pascal, costs time on Hopper: see gather_x), multiplies,
//              and sums along its bit mask; every closed row segment is stored to a shared row
//              buffer (each row exactly once, by its last thread);
//              flagged warps (empty rows in their range) do not count rows along the mask but
//              take the next row from a shared table, filled from row_ptr in step 2, of the row
//              starting at each position;
//           4. a thread's trailing partial sum (its row continues in the next thread) is added
//              to the buffer: shared atomics when most lanes of the warp end a row, a warp
//              head-segmented reduction (cub::WarpReduce) when many lanes share rows;
//           5. the buffer goes to y coalesced (rows aligned to 32), y = alpha s + beta y_in;
//              the block's crossing first / last rows go to y with atomics.
//          Special cases: a block inside one row (block reduction + one atomic); blocks with more
//          rows than buffer slots ("COO mode": the buffer stores the row index of every row end
//          instead, partial sums stay in registers, carries by a block-wide segmented scan,
//          rows written directly); the tail block (guarded scalar loads).
//  apply T y_out = beta * y_in first (skipped when beta == 1 in place); spmv_t_kernel uses the
//          same split and row assignment, multiplies every nonzero by alpha * x[row] (one load
//          per row), sorts its (column, product) pairs, merges equal columns and adds them to
//          y with atomics; with the combiner (default for blocks of at most 2048 nonzeros) the
//          pairs of the whole block first meet in a shared-memory table keyed by column and
//          each distinct column is added to y once, in column order.
//
//  Deterministic mode (no floating-point atomics, bitwise reproducible): step 4 is a block-wide
//  segmented scan (cub::BlockScan, fixed order); no preparation pass. A crossing row is written
//  (alpha * partial + beta * y_in) by the block where it starts; every later block it reaches
//  leaves its partial sum in a carry buffer (one value per block: only a block's first row can
//  have started in an earlier block), and fixup_kernel (one thread per crossing row) adds
//  alpha * (those partials, in block order) afterwards; in products of few blocks the last block
//  of spmv_n_kernel to finish does that work itself (fused_fixup: one launch). Transpose has no
//  deterministic variant (supports(T) is false in deterministic mode): it would need a
//  column-sorted copy of the structure (>= 8 bytes per nonzero), against the ~0.01 bytes per
//  nonzero this kernel holds.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>
#include <cub/warp/warp_reduce.cuh>
#include <limits>
#include <type_traits>
#include <utility>

// Op T: per-thread sort of the (column, product) pairs before the thread-order atomics and the
// combiner (paper §3.2), so that equal columns meet. 0 disables it, for benchmarking.
#ifndef HOLA_HOLA_SORT_COLUMNS
#define HOLA_HOLA_SORT_COLUMNS 1
#endif

namespace hola::gpu::hola_detail {

constexpr int kWarpSize = 32;
constexpr unsigned kFullMask = 0xffffffffu;

// ---------------------------------------------------------------------------------------------
// Row-start encoding: row index, bit-inverted when the row crosses the block boundary.

template <class R>
__host__ __device__ __forceinline__ R encode_start(std::int64_t row, bool crosses) {
  return crosses ? static_cast<R>(~row) : static_cast<R>(row);
}
template <class R>
__host__ __device__ __forceinline__ std::int64_t start_row(R s) {
  return s < 0 ? static_cast<std::int64_t>(~s) : static_cast<std::int64_t>(s);
}
template <class R>
__host__ __device__ __forceinline__ bool start_crosses(R s) {
  return s < 0;
}

// Everything a launch needs; passed by value.
template <class V, class I, class O>
struct SpmvArgs {
  const O* row_ptr;
  const I* col_idx;
  const V* values;
  const O* row_starts;  // num_blocks + 1 encoded row starts
  const V* x;
  const V* y_in;  // unread when beta == 0
  V* y_out;
  V* carry;  // deterministic mode: per block, the partial sum of its first row if it crosses in
  unsigned* blocks_done;  // carry path, fused fix-up: blocks finished in the running product
  V alpha;
  V beta;
  std::int64_t nnz;
  std::int64_t num_blocks;
  bool vector_loads;   // values and col_idx 16-byte aligned
  int prefetch_ahead;  // > 0: the L2 is asked for the block this many blocks ahead
};

// ---------------------------------------------------------------------------------------------
// Register helpers.

__device__ __forceinline__ void unpack(const uint4& v, float* out) {
  out[0] = __uint_as_float(v.x);
  out[1] = __uint_as_float(v.y);
  out[2] = __uint_as_float(v.z);
  out[3] = __uint_as_float(v.w);
}
__device__ __forceinline__ void unpack(const uint4& v, double* out) {
  out[0] = __hiloint2double(static_cast<int>(v.y), static_cast<int>(v.x));
  out[1] = __hiloint2double(static_cast<int>(v.w), static_cast<int>(v.z));
}
__device__ __forceinline__ void unpack(const uint4& v, std::int32_t* out) {
  out[0] = static_cast<std::int32_t>(v.x);
  out[1] = static_cast<std::int32_t>(v.y);
  out[2] = static_cast<std::int32_t>(v.z);
  out[3] = static_cast<std::int32_t>(v.w);
}
__device__ __forceinline__ void unpack(const uint4& v, std::int64_t* out) {
  out[0] = static_cast<std::int64_t>((static_cast<std::uint64_t>(v.y) << 32) | v.x);
  out[1] = static_cast<std::int64_t>((static_cast<std::uint64_t>(v.w) << 32) | v.z);
}

__device__ __forceinline__ uint4 select(bool c, const uint4& a, const uint4& b) {
  return make_uint4(c ? a.x : b.x, c ? a.y : b.y, c ? a.z : b.z, c ? a.w : b.w);
}

// v[r] <- v[(r - amount) mod N], amount differs per lane: log2(N) conditional rotations by powers
// of two, all with static register indices (no local memory).
template <int N>
__device__ __forceinline__ void rotate_up(uint4 (&v)[N], unsigned amount) {
#pragma unroll
  for (int step = 1; step < N; step <<= 1) {
    const bool on = (amount & step) != 0;
    uint4 t[N];
#pragma unroll
    for (int r = 0; r < N; ++r) t[r] = v[(r - step + N) % N];
#pragma unroll
    for (int r = 0; r < N; ++r) v[r] = select(on, t[r], v[r]);
  }
}
// v[r] <- v[(r + amount) mod N].
template <int N>
__device__ __forceinline__ void rotate_down(uint4 (&v)[N], unsigned amount) {
#pragma unroll
  for (int step = 1; step < N; step <<= 1) {
    const bool on = (amount & step) != 0;
    uint4 t[N];
#pragma unroll
    for (int r = 0; r < N; ++r) t[r] = v[(r + step) % N];
#pragma unroll
    for (int r = 0; r < N; ++r) v[r] = select(on, t[r], v[r]);
  }
}

// Warp-wide transpose of 16-byte vectors from the striped layout (lane l holds vectors
// l, 32 + l, 64 + l, ...) to the blocked one (lane l holds vectors N l .. N l + N - 1).
// Vector q = N L + j wanted by lane L in slot j sits in lane (L mod 32/N) N + j, slot L / (32/N).
// Round r: every lane sends its slot (r - lane mod N) mod N and receives its slot
// (r - L / (32/N)) mod N; the lane-dependent slot choice is made by rotating the registers
// before (sender side) and after (receiver side), so the shuffles use static registers.
template <int N>
__device__ __forceinline__ void striped_to_blocked(uint4 (&v)[N], int lane) {
  if constexpr (N > 1) {
    static_assert((N & (N - 1)) == 0 && N <= kWarpSize, "vector count must be a power of two");
    constexpr int kGroup = kWarpSize / N;
    const unsigned send_shift = static_cast<unsigned>(lane) % N;
    const unsigned recv_shift = static_cast<unsigned>(lane) / kGroup;
    rotate_up(v, send_shift);
    const int src_base = (lane % kGroup) * N;
    uint4 got[N];
#pragma unroll
    for (int r = 0; r < N; ++r) {
      const int src = src_base + ((r - static_cast<int>(recv_shift)) & (N - 1));
      got[r].x = __shfl_sync(kFullMask, v[r].x, src);
      got[r].y = __shfl_sync(kFullMask, v[r].y, src);
      got[r].z = __shfl_sync(kFullMask, v[r].z, src);
      got[r].w = __shfl_sync(kFullMask, v[r].w, src);
    }
    rotate_down(got, recv_shift);
#pragma unroll
    for (int r = 0; r < N; ++r) v[r] = got[r];
  }
}

// NPT consecutive elements per lane of a full warp tile, loaded with 16-byte coalesced loads.
// issue() starts the loads; finish() transposes, so that other work can hide the latency. Only
// the matrix arrays come through here: each element is read once, so the loads are evict-first
// (__ldcs), which leaves the L2 to x and y. Alone, on an H200, this made op N up to 12 % faster
// on the irregular matrices (circuit, renumbered Poisson) and changed little on the others; op T
// up to 14 % on the same matrices, on an H100 and an H200 (bench/results/2026-11-28-session11/).
template <int NPT, class T>
struct WarpTile {
  static constexpr int kPerVector = 16 / static_cast<int>(sizeof(T));
  static constexpr int kVectors = NPT / kPerVector;
  static_assert(NPT % kPerVector == 0, "nonzeros per thread must fill whole 16-byte vectors");
  uint4 raw[kVectors];

  __device__ __forceinline__ void issue(const T* warp_base, int lane) {
    const uint4* p = reinterpret_cast<const uint4*>(warp_base) + lane;
#pragma unroll
    for (int k = 0; k < kVectors; ++k) raw[k] = __ldcs(p + k * kWarpSize);
  }
  __device__ __forceinline__ void finish(T (&out)[NPT], int lane) {
    striped_to_blocked<kVectors>(raw, lane);
#pragma unroll
    for (int k = 0; k < kVectors; ++k) unpack(raw[k], &out[k * kPerVector]);
  }
};

// Guarded scalar loads of the thread's elements [first, first + valid) (tail block, partial
// warps, misaligned arrays) of a matrix array, evict-first as in WarpTile; the rest is zero.
template <int NPT, class T>
__device__ __forceinline__ void load_guarded(const T* base, int first, int valid, T (&out)[NPT]) {
#pragma unroll
  for (int i = 0; i < NPT; ++i) out[i] = i < valid ? __ldcs(base + first + i) : T(0);
}

// ---------------------------------------------------------------------------------------------
// Batcher's odd-even merge sort network for N = 2^k items, generated at compile time.

constexpr int odd_even_merge_count(int n) {
  int count = 0;
  for (int p = 1; p < n; p <<= 1)
    for (int k = p; k >= 1; k >>= 1)
      for (int j = k % p; j + k < n; j += 2 * k)
        for (int i = 0; i < k && i + j + k < n; ++i)
          if ((i + j) / (2 * p) == (i + j + k) / (2 * p)) ++count;
  return count;
}

template <int N>
struct NetworkPairs {
  static constexpr int kCount = odd_even_merge_count(N);
  int lo[kCount > 0 ? kCount : 1];
  int hi[kCount > 0 ? kCount : 1];
};

template <int N>
constexpr NetworkPairs<N> make_odd_even_merge_network() {
  NetworkPairs<N> pairs{};
  int c = 0;
  for (int p = 1; p < N; p <<= 1)
    for (int k = p; k >= 1; k >>= 1)
      for (int j = k % p; j + k < N; j += 2 * k)
        for (int i = 0; i < k && i + j + k < N; ++i)
          if ((i + j) / (2 * p) == (i + j + k) / (2 * p)) {
            pairs.lo[c] = i + j;
            pairs.hi[c] = i + j + k;
            ++c;
          }
  return pairs;
}

template <int N>
struct OddEvenMergeNetwork {
  static constexpr int kCount = NetworkPairs<N>::kCount;
  static constexpr NetworkPairs<N> kPairs = make_odd_even_merge_network<N>();
};

template <int A, int B, int N, class K, class P>
__device__ __forceinline__ void compare_exchange(K (&key)[N], P (&payload)[N]) {
  const bool swap = key[B] < key[A];
  const K ka = key[A], kb = key[B];
  key[A] = swap ? kb : ka;
  key[B] = swap ? ka : kb;
  const P pa = payload[A], pb = payload[B];
  payload[A] = swap ? pb : pa;
  payload[B] = swap ? pa : pb;
}

template <int N, class K, class P, std::size_t... C>
__device__ __forceinline__ void run_network(K (&key)[N], P (&payload)[N],
                                            std::index_sequence<C...>) {
  using Net = OddEvenMergeNetwork<N>;
  (compare_exchange<Net::kPairs.lo[C], Net::kPairs.hi[C]>(key, payload), ...);
}

// Sorts key ascending, payload alongside (not stable; callers never need stability).
template <int N, class K, class P>
__device__ __forceinline__ void sort_pairs(K (&key)[N], P (&payload)[N]) {
  run_network<N>(key, payload, std::make_index_sequence<OddEvenMergeNetwork<N>::kCount>{});
}

template <int N, class K>
__device__ __forceinline__ bool is_sorted(const K (&key)[N]) {
  bool sorted = true;
#pragma unroll
  for (int i = 0; i + 1 < N; ++i) sorted &= !(key[i + 1] < key[i]);
  return sorted;
}

// x values for the thread's columns; invalid elements get 0 (never a load, so that NaN / Inf in
// x cannot reach padding). The gathers go in CSR order: sorting a thread's columns first (the
// paper's §3.2, for Pascal) changes no product but cost the sorting network twice (there and
// back) in nearly every warp, since most warps hold a thread that spans a row end. Without it, on
// an H100 and an H200, op N was 1-13 % faster in double and 10-32 % in float on the regular
// matrices, and about the same on the others (bench/results/2026-11-28-session11/, runs B-D).
template <int NPT, class V, class I>
__device__ __forceinline__ void gather_x(const I (&cols)[NPT], int valid, const V* __restrict__ x,
                                         V (&xv)[NPT]) {
#pragma unroll
  for (int i = 0; i < NPT; ++i) xv[i] = i < valid ? __ldg(x + cols[i]) : V(0);
}

// ---------------------------------------------------------------------------------------------
// Block geometry shared by the N and T kernels.

struct BlockGeometry {
  std::int64_t nz0;   // first nonzero of the block
  int block_nnz;      // nonzeros of the block (< NPB only in the last block)
  std::int64_t row0;  // first row of the block
  unsigned nrows;     // rows covered, including a crossing last row
  bool cross_in;      // row0 also has nonzeros in the previous block
  bool cross_out;     // the last row also has nonzeros in the next block
};

template <int kNpb, class O>
__device__ __forceinline__ BlockGeometry block_geometry(const O* __restrict__ starts,
                                                        std::int64_t nnz) {
  BlockGeometry g;
  const std::int64_t b = blockIdx.x;
  g.nz0 = b * kNpb;
  const std::int64_t left = nnz - g.nz0;
  g.block_nnz = static_cast<int>(left < kNpb ? left : kNpb);
  const O s0 = __ldg(starts + b);
  const O s1 = __ldg(starts + b + 1);
  g.row0 = start_row(s0);
  g.cross_in = start_crosses(s0);
  g.cross_out = start_crosses(s1);
  g.nrows = static_cast<unsigned>(start_row(s1) - g.row0) + (g.cross_out ? 1u : 0u);
  return g;
}

// The block `args.prefetch_ahead` blocks ahead of this one, asked of the L2 (see
// KernelOptions::l2_prefetch_tiles).
template <int kThreads, int kNpb, class V, class I, class O>
__device__ __forceinline__ void prefetch_block_ahead(const SpmvArgs<V, I, O>& args) {
  if (args.prefetch_ahead <= 0) return;
  const std::int64_t ahead = static_cast<std::int64_t>(blockIdx.x) + args.prefetch_ahead;
  if (ahead >= args.num_blocks) return;
  const std::int64_t first = ahead * kNpb;
  const std::int64_t last = first + kNpb < args.nnz ? first + kNpb : args.nnz;
  cuda::prefetch_l2_lines(args.col_idx + first, args.col_idx + last, kThreads);
  cuda::prefetch_l2_lines(args.values + first, args.values + last, kThreads);
}

// Row-relative offset clamped to the block: [0, block_nnz].
__device__ __forceinline__ int clamp_to_block(std::int64_t offset, int block_nnz) {
  return offset < 0 ? 0 : (offset > block_nnz ? block_nnz : static_cast<int>(offset));
}

// The block's rows, one thread per row: on_empty(r, a) for an empty row at block-local position
// a, on_row(r, a, last) for a row holding block-local positions [a, last] (clamped to the block).
template <int kThreads, class O, class OnEmpty, class OnRow>
__device__ __forceinline__ void for_each_block_row(const O* __restrict__ block_row_ptr,
                                                   const BlockGeometry& g, OnEmpty&& on_empty,
                                                   OnRow&& on_row) {
  for (unsigned r = threadIdx.x; r < g.nrows; r += kThreads) {
    const int a =
        clamp_to_block(static_cast<std::int64_t>(__ldg(block_row_ptr + r)) - g.nz0, g.block_nnz);
    const int e = clamp_to_block(static_cast<std::int64_t>(__ldg(block_row_ptr + r + 1)) - g.nz0,
                                 g.block_nnz);
    if (a == e)
      on_empty(r, a);
    else
      on_row(r, a, e - 1);
  }
}

// Warp whose walk must step over an empty row at block-local position a: the one holding the
// thread that ends the row before it.
template <int kNpt>
__device__ __forceinline__ int warp_before(int a) {
  return (a > 0 ? (a - 1) / kNpt : 0) / kWarpSize;
}

// Segmented-sum element for the block scan: value and "a row ends in this thread".
template <class V>
struct SegmentCarry {
  V value;
  int head;
};
struct SegmentCarryOp {
  template <class V>
  __device__ __forceinline__ SegmentCarry<V> operator()(const SegmentCarry<V>& a,
                                                        const SegmentCarry<V>& b) const {
    return {b.head ? b.value : a.value + b.value, a.head | b.head};
  }
};

template <class V>
__device__ __forceinline__ V scaled(V alpha, V sum, V beta, const V* y_in, std::int64_t row) {
  return beta != V(0) ? alpha * sum + beta * y_in[row] : alpha * sum;
}

// Loads, sorts the columns, gathers x and multiplies: products of the thread's NPT nonzeros in
// the blocked layout (0 past the end of the matrix).
template <int NPT, class V, class I, class O>
__device__ __forceinline__ void finish_products(const SpmvArgs<V, I, O>& args,
                                                const BlockGeometry& g, bool warp_full,
                                                WarpTile<NPT, V>& vtile, WarpTile<NPT, I>& ctile,
                                                int first, int valid, int lane, V (&prod)[NPT]) {
  V vals[NPT];
  I cols[NPT];
  if (warp_full) {
    vtile.finish(vals, lane);
    ctile.finish(cols, lane);
  } else {
    load_guarded(args.values + g.nz0, first, valid, vals);
    load_guarded(args.col_idx + g.nz0, first, valid, cols);
  }
  V xv[NPT];
  gather_x(cols, valid, args.x, xv);
#pragma unroll
  for (int i = 0; i < NPT; ++i) prod[i] = vals[i] * xv[i];
}

// ---------------------------------------------------------------------------------------------
// Kernels.

// Setup: starts[k] for k in [1, B) = encoded row holding nonzero k * NPB; starts[0] = 0,
// starts[B] = rows.
template <class O>
__global__ void row_starts_kernel(const O* __restrict__ row_ptr, std::int64_t rows,
                                  std::int64_t nnz_per_block, std::int64_t num_blocks,
                                  O* __restrict__ starts) {
  const std::int64_t row = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (row == 0) {
    starts[0] = O(0);
    starts[num_blocks] = static_cast<O>(rows);
  }
  if (row >= rows) return;
  const std::int64_t a = row_ptr[row];
  const std::int64_t e = row_ptr[row + 1];
  if (a >= e) return;
  std::int64_t k = (a + nnz_per_block - 1) / nnz_per_block;
  if (k < 1) k = 1;
  for (const std::int64_t last = (e - 1) / nnz_per_block; k <= last; ++k)
    starts[k] = encode_start<O>(row, a < k * nnz_per_block);
}

// True when boundary k (1 <= k < B) is the first block boundary its row crosses: that row's
// fix-up (or preparation) belongs to boundary k's thread.
template <class O>
__device__ __forceinline__ bool first_crossing(const O* __restrict__ starts, std::int64_t k,
                                               std::int64_t* row) {
  const O s = starts[k];
  if (!start_crosses(s)) return false;
  *row = start_row(s);
  const O p = starts[k - 1];
  return !(start_crosses(p) && start_row(p) == *row);
}

// Non-deterministic N: rows that receive atomics start as beta * y_in (or 0).
template <class V, class O>
__global__ void prepare_crossing_rows_kernel(const O* __restrict__ starts, std::int64_t num_blocks,
                                             V beta, const V* y_in, V* y_out) {
  const std::int64_t k = 1 + static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (k >= num_blocks) return;
  std::int64_t row;
  if (!first_crossing(starts, k, &row)) return;
  y_out[row] = beta != V(0) ? beta * y_in[row] : V(0);
}

// Deterministic N, boundary k (1 <= k < B): if the row at boundary k starts before it (and k is
// the first boundary it crosses), the block where it starts wrote alpha * partial + beta * y_in;
// the partials of the following blocks are added here, in block order. FRESH: the carries and y
// were written by other blocks of the running launch (the fused fix-up) and are read past L1,
// which does not see other SMs' writes.
template <class V, class O, bool FRESH>
__device__ __forceinline__ void fixup_boundary(const O* __restrict__ starts,
                                               std::int64_t num_blocks, const V* carry, V alpha,
                                               V* y_out, std::int64_t k) {
  std::int64_t row;
  if (!first_crossing(starts, k, &row)) return;
  const auto carry_of = [&](std::int64_t j) { return FRESH ? __ldcg(carry + j) : carry[j]; };
  V sum = carry_of(k);
  for (std::int64_t j = k + 1; j < num_blocks; ++j) {
    const O s = starts[j];
    if (!(start_crosses(s) && start_row(s) == row)) break;  // the row ended in block j - 1
    sum += carry_of(j);
  }
  const V before = FRESH ? __ldcg(y_out + row) : y_out[row];
  y_out[row] = before + alpha * sum;
}

// The fix-up as a kernel of its own (products of more blocks than fused_fixup_max_tiles).
template <class V, class O>
__global__ void fixup_kernel(const O* __restrict__ starts, std::int64_t num_blocks,
                             const V* __restrict__ carry, V alpha, V* y_out) {
  const std::int64_t k = 1 + static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (k >= num_blocks) return;
  fixup_boundary<V, O, false>(starts, num_blocks, carry, alpha, y_out, k);
}

// The fused fix-up, at the end of every block of spmv_n_kernel (block-uniform): each block makes
// its rows and carry visible, then counts itself on blocks_done (0 between products); the last
// one does fixup_kernel's work (the same additions in the same order: bitwise the same result)
// and puts the counter back to 0 for the next product (no memset: a captured graph replays as it
// is). The barrier orders the block's writes before thread 0's fence, which orders them before
// the count; the last block's fence orders the count before its reads.
template <class V, class O, int kThreads>
__device__ __forceinline__ void fused_fixup(const O* __restrict__ starts, std::int64_t num_blocks,
                                            const V* carry, V alpha, V* y_out,
                                            unsigned* blocks_done) {
  __shared__ bool s_last;
  __syncthreads();
  if (threadIdx.x == 0) {
    __threadfence();
    s_last = atomicAdd(blocks_done, 1u) == gridDim.x - 1;
    if (s_last) __threadfence();
  }
  __syncthreads();
  if (!s_last) return;
  for (std::int64_t k = 1 + threadIdx.x; k < num_blocks; k += kThreads)
    fixup_boundary<V, O, true>(starts, num_blocks, carry, alpha, y_out, k);
  if (threadIdx.x == 0) *blocks_done = 0;
}

// Dynamic shared memory of spmv_n_kernel: row buffer (NPB values; in COO mode NPB row indices),
// per-thread first row and end-bit mask, per-warp empty-row flag, row starting at each position
// (16 bits: at most NPB rows outside COO mode).
template <class V, int kThreads, int kNpt>
constexpr std::size_t n_kernel_shared_bytes() {
  return static_cast<std::size_t>(kThreads) * kNpt * sizeof(V) +
         (2u * kThreads + kThreads / kWarpSize) * sizeof(unsigned) +
         static_cast<std::size_t>(kThreads) * kNpt * sizeof(unsigned short);
}

template <class V, class I, class O, int kThreads, int kNpt, bool kDeterministic>
__global__ void __launch_bounds__(kThreads) spmv_n_kernel(const SpmvArgs<V, I, O> args) {
  constexpr int kNpb = kThreads * kNpt;
  constexpr int kWarps = kThreads / kWarpSize;
  static_assert(kNpt <= 32, "end-bit masks are 32 bits wide");
  using Carry = SegmentCarry<V>;
  using BlockScan = cub::BlockScan<Carry, kThreads, cub::BLOCK_SCAN_WARP_SCANS>;
  using BlockReduce = cub::BlockReduce<V, kThreads>;
  using WarpReduce = cub::WarpReduce<V>;
  __shared__ union {
    typename BlockScan::TempStorage scan;
    typename BlockReduce::TempStorage reduce;
    typename WarpReduce::TempStorage warp[kWarps];
  } cub_storage;
  extern __shared__ __align__(16) unsigned char hola_shared[];
  V* const row_sums = reinterpret_cast<V*>(hola_shared);
  unsigned* const row_of_end = reinterpret_cast<unsigned*>(hola_shared);  // COO mode alias
  unsigned* const thread_row = reinterpret_cast<unsigned*>(hola_shared + kNpb * sizeof(V));
  unsigned* const end_bits = thread_row + kThreads;
  unsigned* const warp_has_empty = end_bits + kThreads;
  unsigned short* const row_at_start = reinterpret_cast<unsigned short*>(warp_has_empty + kWarps);

  const int tid = threadIdx.x;
  const int lane = tid % kWarpSize;
  const int warp = tid / kWarpSize;
  const BlockGeometry g = block_geometry<kNpb>(args.row_starts, args.nnz);
  const int first = tid * kNpt;  // block-local position of the thread's first nonzero
  const int valid =
      g.block_nnz - first < 0 ? 0 : (g.block_nnz - first > kNpt ? kNpt : g.block_nnz - first);
  const int warp_first = warp * kWarpSize * kNpt;
  const bool warp_full = args.vector_loads && warp_first + kWarpSize * kNpt <= g.block_nnz;

  // Start the matrix loads first: row assignment below hides their latency.
  WarpTile<kNpt, V> vtile;
  WarpTile<kNpt, I> ctile;
  if (warp_full) {
    vtile.issue(args.values + g.nz0 + warp_first, lane);
    ctile.issue(args.col_idx + g.nz0 + warp_first, lane);
  }
  prefetch_block_ahead<kThreads, kNpb>(args);

  auto write_row = [&](std::int64_t row, V sum) {
    args.y_out[row] = scaled(args.alpha, sum, args.beta, args.y_in, row);
  };
  // Crossing rows: atomics to y (prepared by prepare_crossing_rows_kernel). Deterministic mode:
  // the block where the row starts writes it like an interior row, the others leave their
  // partial sum in the carry buffer for fixup_kernel.
  auto emit_first_row = [&](V sum) {
    if constexpr (kDeterministic)
      args.carry[blockIdx.x] = sum;
    else
      atomicAdd(args.y_out + g.row0, args.alpha * sum);
  };
  auto emit_last_row = [&](V sum) {  // a last row that crosses out starts in this block
    if constexpr (kDeterministic)
      write_row(g.row0 + g.nrows - 1, sum);
    else
      atomicAdd(args.y_out + g.row0 + g.nrows - 1, args.alpha * sum);
  };

  // The carry path's fix-up in this launch (small products): at each exit below, all
  // block-uniform.
  auto finish = [&]() {
    if constexpr (kDeterministic) {
      if (args.blocks_done)
        fused_fixup<V, O, kThreads>(args.row_starts, args.num_blocks, args.carry, args.alpha,
                                    args.y_out, args.blocks_done);
    }
  };

  // Local row assignment (not needed when the block lies inside one row).
  const bool single_row = g.nrows == 1;
  const bool coo_mode = g.nrows > static_cast<unsigned>(kNpb);
  const O* const block_row_ptr = args.row_ptr + g.row0;
  if (!single_row) {
    end_bits[tid] = 0;
    if (tid < kWarps) warp_has_empty[tid] = 0;
    __syncthreads();
    for_each_block_row<kThreads>(
        block_row_ptr, g,
        [&](unsigned r, int a) {
          // Empty rows never cross a boundary: they are this block's alone.
          if (coo_mode) {
            write_row(g.row0 + r, V(0));
          } else {
            row_sums[r] = V(0);
            warp_has_empty[warp_before<kNpt>(a)] = 1;
          }
        },
        [&](unsigned r, int a, int last) {
          const int owner = last / kNpt;
          if (coo_mode) {
            row_of_end[last] = r;
          } else {
            // Every thread whose first nonzero lies in the row starts with it.
            for (int t = (a + kNpt - 1) / kNpt; t <= owner; ++t) thread_row[t] = r;
            row_at_start[a] = static_cast<unsigned short>(r);
          }
          atomicOr(end_bits + owner, 1u << (last - owner * kNpt));
        });
  }

  V prod[kNpt];
  finish_products(args, g, warp_full, vtile, ctile, first, valid, lane, prod);

  if (single_row) {
    // The block lies inside one row: block reduction, one result.
    V sum = prod[0];
#pragma unroll
    for (int i = 1; i < kNpt; ++i) sum += prod[i];
    const V total = BlockReduce(cub_storage.reduce).Sum(sum);
    if (tid == 0) {
      if (g.cross_in)
        emit_first_row(total);
      else if (g.cross_out)
        emit_last_row(total);
      else
        write_row(g.row0, total);
    }
    finish();
    return;
  }

  __syncthreads();
  const unsigned bits = end_bits[tid];
  const bool head = bits != 0;  // a row ends in this thread

  if (coo_mode) {
    // Closed sums stay in registers at their end positions; carries by a block scan.
    V sum = V(0);
#pragma unroll
    for (int i = 0; i < kNpt; ++i) {
      sum += prod[i];
      if (bits & (1u << i)) {
        prod[i] = sum;
        sum = V(0);
      }
    }
    Carry carry;
    BlockScan(cub_storage.scan)
        .ExclusiveScan(Carry{sum, head ? 1 : 0}, carry, Carry{V(0), 0}, SegmentCarryOp{});
    // Reloaded after the scan's barrier rather than kept live across it (register pressure).
    const unsigned ends = end_bits[tid];
    bool first_end = true;
#pragma unroll
    for (int i = 0; i < kNpt; ++i) {
      if (ends & (1u << i)) {
        if (first_end) prod[i] += carry.value;
        first_end = false;
        const unsigned r = row_of_end[first + i];
        if (r == 0 && g.cross_in)
          emit_first_row(prod[i]);
        else if (r == g.nrows - 1 && g.cross_out)
          emit_last_row(prod[i]);
        else
          write_row(g.row0 + r, prod[i]);
      }
    }
    finish();
    return;
  }

  // Sum along the bit mask; every row is stored exactly once, by the thread where it ends.
  const unsigned first_row = valid > 0 ? thread_row[tid] : g.nrows;
  unsigned row = first_row;
  V sum = V(0);
  if (warp_has_empty[warp] == 0) {
#pragma unroll
    for (int i = 0; i < kNpt; ++i) {
      sum += prod[i];
      if (bits & (1u << i)) {
        row_sums[row] = sum;
        sum = V(0);
        ++row;
      }
    }
  } else {
#pragma unroll
    for (int i = 0; i < kNpt; ++i) {
      sum += prod[i];
      if (bits & (1u << i)) {
        row_sums[row] = sum;
        sum = V(0);
        // Empty rows may follow: the next row is the one starting at the next position.
        row = first + i + 1 < g.block_nnz ? row_at_start[first + i + 1] : g.nrows;
      }
    }
  }
  // `sum` now belongs to `row`, which continues in the next thread(s).

  if constexpr (kDeterministic) {
    Carry carry;
    BlockScan(cub_storage.scan)
        .ExclusiveScan(Carry{sum, head ? 1 : 0}, carry, Carry{V(0), 0}, SegmentCarryOp{});
    if (head) row_sums[first_row] += carry.value;  // the first row this thread closes
  } else {
    __syncthreads();  // every row stored before partial sums are added
    const unsigned heads = __ballot_sync(kFullMask, head);
    if (__popc(heads) < kWarpSize / 2) {
      // Many lanes continue a row: reduce each run (head lane + the lanes after it) first.
      const V run = WarpReduce(cub_storage.warp[warp]).HeadSegmentedSum(sum, head);
      if ((head || lane == 0) && row < g.nrows && run != V(0)) atomicAdd(row_sums + row, run);
    } else if (row < g.nrows && sum != V(0)) {
      atomicAdd(row_sums + row, sum);
    }
  }
  __syncthreads();

  // Coalesced write of the interior rows, warps aligned to 32 rows.
  const unsigned shift = static_cast<unsigned>(g.row0 % kWarpSize);
  const unsigned begin = g.cross_in ? 1u : 0u;
  const unsigned end = g.cross_out ? g.nrows - 1 : g.nrows;
  for (unsigned k = tid; k < g.nrows + shift; k += kThreads) {
    if (k < shift) continue;
    const unsigned r = k - shift;
    if (r >= begin && r < end) write_row(g.row0 + r, row_sums[r]);
  }
  if (tid == 0 && g.cross_in) emit_first_row(row_sums[0]);
  if (tid == kThreads - 1 && g.cross_out) emit_last_row(row_sums[g.nrows - 1]);
  finish();
}

// Transpose variants: how a block's (column, product) pairs reach y.
//  kTThreadOrder  every thread adds its pairs (equal columns merged) with global atomics.
//  kTCombine      a direct-mapped table in shared memory (slot = low column bits plus a hash of
//                 the high bits, a few linear probes) merges a block's pairs per column; each
//                 distinct column is added to y once, slots flushed in order. Columns that find
//                 no slot go straight to y, so the result never depends on the table filling.
//  kTWarpOrder    pairs go through shared memory back to the load order (lane l adds the pair
//                 at warp position l + 32 i): one atomic instruction then covers 32 consecutive
//                 nonzeros, which on banded and stencil matrices are 32 neighbouring columns of
//                 a few diagonals, so the L2 handles far fewer sectors than for the thread
//                 order, where the 32 lanes are 32 different rows' columns.
enum TransposeVariant : int { kTThreadOrder = 0, kTCombine = 1, kTWarpOrder = 2 };

template <class I>
using SlotKey = std::conditional_t<sizeof(I) == 4, unsigned int, unsigned long long>;
constexpr int kCombineProbes = 4;

template <class V, class I, int kNpb, int kVariant>
constexpr std::size_t t_kernel_shared_bytes() {
  if constexpr (kVariant == kTCombine)
    return static_cast<std::size_t>(2 * kNpb) * (sizeof(V) + sizeof(SlotKey<I>));
  else if constexpr (kVariant == kTWarpOrder)
    return static_cast<std::size_t>(kNpb) * (sizeof(V) + sizeof(I));
  else
    return 0;
}

// The combiner's table (2 slots per nonzero of a block) must fit next to the static shared
// memory: blocks of at most 2048 nonzeros.
template <int kNpb>
constexpr bool t_combine_compiled() {
  return kNpb <= 2048;
}

// y_out += alpha * A^T x (y_out prepared). Atomics only: no deterministic variant.
template <class V, class I, class O, int kThreads, int kNpt, int kVariant>
__global__ void __launch_bounds__(kThreads) spmv_t_kernel(const SpmvArgs<V, I, O> args) {
  constexpr int kNpb = kThreads * kNpt;
  constexpr int kWarps = kThreads / kWarpSize;
  constexpr I kNone = std::numeric_limits<I>::max();
  __shared__ unsigned thread_row[kThreads];
  __shared__ unsigned end_bits[kThreads];
  __shared__ unsigned warp_has_empty[kWarps];
  __shared__ unsigned row_at_start[kNpb];  // row starting at each block-local position

  const int tid = threadIdx.x;
  const int lane = tid % kWarpSize;
  const int warp = tid / kWarpSize;
  const BlockGeometry g = block_geometry<kNpb>(args.row_starts, args.nnz);
  const int first = tid * kNpt;
  const int valid =
      g.block_nnz - first < 0 ? 0 : (g.block_nnz - first > kNpt ? kNpt : g.block_nnz - first);
  const int warp_first = warp * kWarpSize * kNpt;
  const bool warp_full = args.vector_loads && warp_first + kWarpSize * kNpt <= g.block_nnz;

  WarpTile<kNpt, V> vtile;
  WarpTile<kNpt, I> ctile;
  if (warp_full) {
    vtile.issue(args.values + g.nz0 + warp_first, lane);
    ctile.issue(args.col_idx + g.nz0 + warp_first, lane);
  }
  const bool single_row = g.nrows == 1;
  const O* const block_row_ptr = args.row_ptr + g.row0;
  if (!single_row) {
    end_bits[tid] = 0;
    if (tid < kWarps) warp_has_empty[tid] = 0;
    __syncthreads();
    for_each_block_row<kThreads>(
        block_row_ptr, g, [&](unsigned, int a) { warp_has_empty[warp_before<kNpt>(a)] = 1; },
        [&](unsigned r, int a, int last) {
          const int owner = last / kNpt;
          for (int t = (a + kNpt - 1) / kNpt; t <= owner; ++t) thread_row[t] = r;
          row_at_start[a] = r;
          atomicOr(end_bits + owner, 1u << (last - owner * kNpt));
        });
  }

  V vals[kNpt];
  I cols[kNpt];
  if (warp_full) {
    vtile.finish(vals, lane);
    ctile.finish(cols, lane);
  } else {
    load_guarded(args.values + g.nz0, first, valid, vals);
    load_guarded(args.col_idx + g.nz0, first, valid, cols);
  }

  if (single_row) {
    // Inside one row: one x value for the whole block, columns already ascending.
    const V xr = args.alpha * __ldg(args.x + g.row0);
#pragma unroll
    for (int i = 0; i < kNpt; ++i)
      if (i < valid) atomicAdd(args.y_out + cols[i], vals[i] * xr);
    return;
  }
  __syncthreads();

  const unsigned bits = end_bits[tid];
  const bool flagged = warp_has_empty[warp] != 0;
  // Row of every element (ALU only unless the warp holds empty rows), then one x load per row.
  unsigned row_at[kNpt];
  {
    unsigned row = valid > 0 ? thread_row[tid] : 0u;
#pragma unroll
    for (int i = 0; i < kNpt; ++i) {
      row_at[i] = row;
      if (bits & (1u << i)) {
        // Flagged warps: empty rows may follow, take the row starting at the next position.
        if (!flagged)
          ++row;
        else
          row = first + i + 1 < g.block_nnz ? row_at_start[first + i + 1] : g.nrows;
      }
    }
  }
  V key_prod[kNpt];
  I key[kNpt];
  {
    V xr = V(0);
#pragma unroll
    for (int i = 0; i < kNpt; ++i) {
      const bool new_row = i == 0 || (bits & (1u << (i - 1)));
      if (i < valid && new_row) xr = args.alpha * __ldg(args.x + g.row0 + row_at[i]);
      key_prod[i] = i < valid ? vals[i] * xr : V(0);
      key[i] = i < valid ? cols[i] : kNone;
    }
  }
  if constexpr (kVariant == kTWarpOrder) {
    extern __shared__ __align__(16) unsigned char hola_t_shared[];
    V* const stage_val = reinterpret_cast<V*>(hola_t_shared);
    I* const stage_col = reinterpret_cast<I*>(hola_t_shared + kNpb * sizeof(V));
#pragma unroll
    for (int i = 0; i < kNpt; ++i) {
      stage_val[first + i] = key_prod[i];
      stage_col[first + i] = key[i];
    }
    __syncwarp();  // each warp reads back only its own positions
#pragma unroll
    for (int i = 0; i < kNpt; ++i) {
      const int pos = warp_first + i * kWarpSize + lane;
      const I col = stage_col[pos];
      if (col != kNone) atomicAdd(args.y_out + col, stage_val[pos]);
    }
    return;
  }
#if HOLA_HOLA_SORT_COLUMNS
  if (__any_sync(kFullMask, !is_sorted(key))) sort_pairs(key, key_prod);
#endif
  // Equal columns (rows of one thread often share columns) are merged before the atomic.
  if constexpr (kVariant == kTThreadOrder) {
    V acc = key_prod[0];
#pragma unroll
    for (int i = 1; i < kNpt; ++i) {
      if (key[i] == key[i - 1]) {
        acc += key_prod[i];
      } else {
        if (key[i - 1] != kNone) atomicAdd(args.y_out + key[i - 1], acc);
        acc = key_prod[i];
      }
    }
    if (key[kNpt - 1] != kNone) atomicAdd(args.y_out + key[kNpt - 1], acc);
  } else {
    using K = SlotKey<I>;
    constexpr unsigned kSlots = 2u * kNpb;
    constexpr K kEmpty = ~K(0);
    extern __shared__ __align__(16) unsigned char hola_t_shared[];
    V* const slot_sum = reinterpret_cast<V*>(hola_t_shared);
    K* const slot_key = reinterpret_cast<K*>(hola_t_shared + kSlots * sizeof(V));
    for (unsigned k = tid; k < kSlots; k += kThreads) {
      slot_key[k] = kEmpty;
      slot_sum[k] = V(0);
    }
    __syncthreads();
    auto insert = [&](I col, V value) {
      // Low bits keep neighbouring columns in neighbouring slots (ordered flush); the hash of
      // the high bits spreads columns a power of two apart (grid planes) over the table.
      const K want = static_cast<K>(col);
      const unsigned high = static_cast<unsigned>(want / kSlots);
      unsigned slot = (static_cast<unsigned>(want) + high * 2654435761u) & (kSlots - 1);
#pragma unroll 1
      for (int p = 0; p < kCombineProbes; ++p) {
        K seen = slot_key[slot];
        if (seen == kEmpty) seen = atomicCAS(slot_key + slot, kEmpty, want);
        if (seen == kEmpty || seen == want) {
          atomicAdd(slot_sum + slot, value);
          return;
        }
        slot = (slot + 1) & (kSlots - 1);
      }
      atomicAdd(args.y_out + col, value);
    };
    V acc = key_prod[0];
#pragma unroll
    for (int i = 1; i < kNpt; ++i) {
      if (key[i] == key[i - 1]) {
        acc += key_prod[i];
      } else {
        if (key[i - 1] != kNone) insert(key[i - 1], acc);
        acc = key_prod[i];
      }
    }
    if (key[kNpt - 1] != kNone) insert(key[kNpt - 1], acc);
    __syncthreads();
    for (unsigned k = tid; k < kSlots; k += kThreads) {
      const K col = slot_key[k];
      if (col != kEmpty) atomicAdd(args.y_out + static_cast<std::int64_t>(col), slot_sum[k]);
    }
  }
}

}  // namespace hola::gpu::hola_detail
