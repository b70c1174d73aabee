// GPU SpMSpV (hola/spmspv_gpu.hpp): matrix-driven and vector-driven kernels, direct and
// load-balanced, over the four semirings. Instantiated by spmspv_float.cu / spmspv_double.cu.
//
// Scheme shared by all four kernels: a dense accumulator acc (one V per output entry) kept at
// the identity of the semiring last used. A kernel combines its products into acc (atomically
// where several threads may meet). For a sparse y, int32 flags kept at 0 and a list of touched
// outputs appended with an atomic counter: the first thread to flip an entry's flag appends it;
// the output stage writes y from the list (sorted by a radix sort when asked) and resets exactly
// the listed entries, so a call costs O(touched) outside the matrix-driven kernels. A dense y
// needs no list: one pass copies acc into y and puts the identity back where acc differs from
// it, and matrix_direct writes y itself.
// Densify-and-SpMV (Kernel::densify) scatters x into a zeroed dense copy, calls the caller's
// dense SpMV, then masks a dense y in place, or flags a sparse y's present entries (a pass over
// the rows of the output side: does any stored entry meet x?) and compacts them in index order
// with CUB's DeviceSelect; the flags are reset through the list as for the other kernels.
#pragma once

#include <cuda_runtime.h>

#include <thrust/iterator/counting_iterator.h>

#include <cooperative_groups.h>
#include <algorithm>
#include <cub/cub.cuh>
#include <limits>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "common/column_index.cuh"
#include "common/cuda_utils.cuh"
#include "hola/error.hpp"
#include "hola/features.hpp"
#include "hola/spmspv_gpu.hpp"
#include "hola/spmspv_semiring.hpp"

namespace hola::spmspv::gpu {

namespace detail {
namespace {  // internal linkage: this header is compiled once per value type

constexpr int kBlock = 256;

// Error bits found by the device validation.
enum : int { kErrRange = 1, kErrOrder = 2, kErrDuplicate = 4, kErrTail = 8 };

template <class V>
struct Bits;
template <>
struct Bits<float> {
  using type = unsigned int;
};
template <>
struct Bits<double> {
  using type = unsigned long long;
};

template <class V>
__device__ __forceinline__ typename Bits<V>::type to_bits(V v) {
  if constexpr (std::is_same_v<V, float>)
    return __float_as_uint(v);
  else
    return static_cast<unsigned long long>(__double_as_longlong(v));
}
template <class V>
__device__ __forceinline__ V from_bits(typename Bits<V>::type b) {
  if constexpr (std::is_same_v<V, float>)
    return __uint_as_float(b);
  else
    return __longlong_as_double(static_cast<long long>(b));
}

// acc[i] = add(acc[i], v) atomically, for semiring S.
template <class S, class V>
__device__ __forceinline__ void atomic_combine(V* addr, V v) {
  using B = typename Bits<V>::type;
  if constexpr (std::is_same_v<S, Ops<Semiring::plus_times>>) {
    atomicAdd(addr, v);
  } else if constexpr (std::is_same_v<S, Ops<Semiring::or_and>>) {
    // acc is 0 or 1: only a 1 changes it, and every writer writes the same bits.
    if (v != V(0)) atomicExch(reinterpret_cast<B*>(addr), to_bits<V>(V(1)));
  } else {  // min
    B* a = reinterpret_cast<B*>(addr);
    B old = *reinterpret_cast<volatile B*>(a);
    while (v < from_bits<V>(old)) {
      const B seen = atomicCAS(a, old, to_bits<V>(v));
      if (seen == old) break;
      old = seen;
    }
  }
}

struct MaskDev {
  const std::uint8_t* m;
  bool complement;
  __device__ __forceinline__ bool allowed(std::int64_t i) const {
    return !m || ((m[i] != 0) != complement);
  }
};

// Appends output i to the list. The lanes of a warp that append together take their slots with
// one atomic: every touched entry of a call goes through this single counter.
template <class I>
__device__ __forceinline__ void append(I* list, unsigned long long* count, std::int64_t i) {
  const auto group = cooperative_groups::coalesced_threads();
  unsigned long long slot = 0;
  if (group.thread_rank() == 0)
    slot = atomicAdd(count, static_cast<unsigned long long>(group.size()));
  slot = group.shfl(slot, 0) + group.thread_rank();
  list[slot] = static_cast<I>(i);
}

// Marks output i touched (appending it to the list the first time).
template <class I>
__device__ __forceinline__ void touch(int* flag, I* list, unsigned long long* count,
                                      std::int64_t i) {
  if (flag[i] == 0 && atomicExch(&flag[i], 1) == 0) append(list, count, i);
}

template <class T>
__global__ void fill_kernel(T* a, std::int64_t n, T v) {
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x)
    a[i] = v;
}

// x as a list -> bitmap bits (atomicOr; null: none, and no duplicate check) and dense values;
// checks range, order, duplicates.
template <class V, class I>
__global__ void scatter_list_kernel(const I* idx, const V* val, std::int64_t nnz, std::int64_t n,
                                    bool sorted, std::uint32_t* bits, V* dense, int* err) {
  for (std::int64_t k = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; k < nnz;
       k += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    const std::int64_t j = static_cast<std::int64_t>(idx[k]);
    if (j < 0 || j >= n) {
      atomicOr(err, kErrRange);
      continue;
    }
    if (sorted && k > 0 && static_cast<std::int64_t>(idx[k - 1]) >= j) atomicOr(err, kErrOrder);
    if (bits) {
      const std::uint32_t bit = 1u << (j & 31);
      const std::uint32_t old = atomicOr(&bits[j >> 5], bit);
      if (old & bit) atomicOr(err, kErrDuplicate);
    }
    dense[j] = val[k];
  }
}

// Bitmap x: population count and tail bits.
__global__ void bitmap_check_kernel(const std::uint32_t* bits, std::int64_t n,
                                    unsigned long long* count, int* err) {
  const std::int64_t words = (n + 31) / 32;
  for (std::int64_t w = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; w < words;
       w += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    std::uint32_t b = bits[w];
    if (w == words - 1 && (n & 31) != 0 && (b >> (n & 31)) != 0) atomicOr(err, kErrTail);
    if (w == words - 1 && (n & 31) != 0) b &= (1u << (n & 31)) - 1u;
    atomicAdd(count, static_cast<unsigned long long>(__popc(b)));
  }
}

// Bitmap x -> list of its indices (unsorted), for the vector-driven kernels.
template <class I>
__global__ void bitmap_to_list_kernel(const std::uint32_t* bits, std::int64_t n, I* list,
                                      unsigned long long* count) {
  const std::int64_t words = (n + 31) / 32;
  for (std::int64_t w = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; w < words;
       w += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    std::uint32_t b = bits[w];
    if (!b) continue;
    unsigned long long q = atomicAdd(count, static_cast<unsigned long long>(__popc(b)));
    while (b) {
      const int t = __ffs(b) - 1;
      list[q++] = static_cast<I>(w * 32 + t);
      b &= b - 1;
    }
  }
}

__device__ __forceinline__ bool test_bit(const std::uint32_t* bits, std::int64_t j) {
  return (bits[j >> 5] >> (j & 31)) & 1u;
}

// Matrix-driven, direct: one thread per row of M. With ToDense the thread owns its row's entry
// of a dense y and writes it, identity included (no accumulator, no list, no copy afterwards).
template <bool ToDense, class S, class V, class I, class O>
__global__ void matrix_direct_kernel(std::int64_t rows, const O* row_ptr, const I* col_idx,
                                     const V* values, const std::uint32_t* xbits, const V* xdense,
                                     MaskDev mask, V* acc, int* flag, I* list,
                                     unsigned long long* count, V* y) {
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < rows;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    V a = S::template identity<V>();
    bool hit = false;
    if (mask.allowed(i))
      for (O k = row_ptr[i]; k < row_ptr[i + 1]; ++k) {
        const std::int64_t j = static_cast<std::int64_t>(col_idx[k]);
        if (!test_bit(xbits, j)) continue;
        const V prod = S::mul(values[k], xdense[j]);
        a = hit ? S::add(a, prod) : prod;
        hit = true;
      }
    if constexpr (ToDense) {
      y[i] = a;
    } else if (hit) {
      acc[i] = a;  // the only writer of row i
      flag[i] = 1;
      append(list, count, i);
    }
  }
}

// Matrix-driven, balanced: thread t takes nonzeros [t per, (t + 1) per) of M; the partial of
// each row it meets is combined atomically. Track: list the touched outputs (a sparse y; a
// dense y is copied whole from acc instead).
template <bool Track, class S, class V, class I, class O>
__global__ void matrix_balanced_kernel(std::int64_t rows, std::int64_t nnz, int per,
                                       const O* row_ptr, const I* col_idx, const V* values,
                                       const std::uint32_t* xbits, const V* xdense, MaskDev mask,
                                       V* acc, int* flag, I* list, unsigned long long* count) {
  const std::int64_t t = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  const std::int64_t begin = t * per;
  if (begin >= nnz) return;
  const std::int64_t end = begin + per < nnz ? begin + per : nnz;
  std::int64_t r = cuda::row_of_slot(row_ptr, rows, begin);
  while (static_cast<std::int64_t>(row_ptr[r + 1]) <= begin) ++r;  // skip empty rows
  std::int64_t p = begin;
  while (p < end) {
    const std::int64_t row_end = static_cast<std::int64_t>(row_ptr[r + 1]);
    const std::int64_t stop = row_end < end ? row_end : end;
    if (mask.allowed(r)) {
      V a = S::template identity<V>();
      bool hit = false;
      for (; p < stop; ++p) {
        const std::int64_t j = static_cast<std::int64_t>(col_idx[p]);
        if (!test_bit(xbits, j)) continue;
        const V prod = S::mul(values[p], xdense[j]);
        a = hit ? S::add(a, prod) : prod;
        hit = true;
      }
      if (hit) {
        atomic_combine<S>(&acc[r], a);
        if constexpr (Track) touch(flag, list, count, r);
      }
    }
    p = stop;
    ++r;
    while (r < rows && static_cast<std::int64_t>(row_ptr[r + 1]) <= p && p < end) ++r;
  }
}

// One product of the vector-driven kernels: a_ie x_j into acc[i] (unless masked out).
template <bool Track, class S, class V, class I>
__device__ __forceinline__ void push_product(std::int64_t e, V xv, const I* col_idx,
                                             const V* values, MaskDev mask, V* acc, int* flag,
                                             I* list, unsigned long long* count) {
  const std::int64_t i = static_cast<std::int64_t>(col_idx[e]);
  if (!mask.allowed(i)) return;
  atomic_combine<S>(&acc[i], S::mul(values[e], xv));
  if constexpr (Track) touch(flag, list, count, i);
}

// Vector-driven, direct: a group of G lanes (a power of two up to the warp) per entry k of x,
// over row x_idx[k] of M (A^T for N, A for T), products combined atomically into acc. The
// products of one lane form a chain of dependent round trips to L2 when they are tracked (the
// flag, then the counter), about a microsecond each: one thread on a row of 100 entries took
// 0.1 ms, a warp on 32 rows of 180 entries 0.25 ms. So G grows while the groups still fit the
// GPU at once (chosen per call, `vector_direct_lanes`), and a row longer than kDirectLongRounds
// rounds of its group is walked by the whole warp instead (its groups take turns handing theirs
// over). Warps step through x together, so the shuffles see all 32 lanes. A row of heavy.from
// entries or more (kDirectHeavyRow, when M has such rows) is listed instead, for
// vector_heavy_kernel to spread over many warps: one warp on a row of 46 500 entries (an arrow
// matrix, a graph's hub) took longer than a whole dense product.
constexpr std::int64_t kDirectLongRounds = 32;
constexpr std::int64_t kDirectHeavyRow = 256;
template <class V, class I>
struct HeavyRows {
  std::int64_t from;  // rows of at least this many entries are heavy
  I* row;             // the heavy rows x selected, with x's value for each
  V* value;
  unsigned long long* count;
};
template <int G, bool Track, class S, class V, class I, class O>
__global__ void vector_direct_kernel(std::int64_t nx, const I* x_idx, const V* x_val,
                                     bool x_val_dense, const O* row_ptr, const I* col_idx,
                                     const V* values, MaskDev mask, V* acc, int* flag, I* list,
                                     unsigned long long* count, HeavyRows<V, I> heavy) {
  static_assert(G >= 1 && G <= 32 && (G & (G - 1)) == 0, "G: a power of two up to 32");
  constexpr int kGroupsPerWarp = 32 / G;
  const int lane = static_cast<int>(threadIdx.x & 31u);
  const int lane_in_group = lane % G;
  const std::int64_t warp = (blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x) / 32;
  const std::int64_t warps = static_cast<std::int64_t>(gridDim.x) * blockDim.x / 32;
  for (std::int64_t base = warp * kGroupsPerWarp; base < nx; base += warps * kGroupsPerWarp) {
    const std::int64_t k = base + lane / G;
    std::int64_t begin = 0, end = 0;
    V xv = S::template identity<V>();
    if (k < nx) {
      const std::int64_t j = static_cast<std::int64_t>(x_idx[k]);
      xv = x_val_dense ? x_val[j] : x_val[k];
      begin = static_cast<std::int64_t>(row_ptr[j]);
      end = static_cast<std::int64_t>(row_ptr[j + 1]);
      if (end - begin >= heavy.from) {
        if (lane_in_group == 0) {
          const unsigned long long h = atomicAdd(heavy.count, 1ull);
          heavy.row[h] = static_cast<I>(j);
          heavy.value[h] = xv;
        }
        end = begin;
      }
    }
    const bool long_row = G < 32 && end - begin > kDirectLongRounds * G;
    if (!long_row)
      for (std::int64_t e = begin + lane_in_group; e < end; e += G)
        push_product<Track, S>(e, xv, col_idx, values, mask, acc, flag, list, count);
    if constexpr (G < 32) {
      for (unsigned pending = __ballot_sync(0xffffffffu, long_row && lane_in_group == 0);
           pending != 0; pending &= pending - 1) {
        const int owner = __ffs(pending) - 1;
        const std::int64_t b = __shfl_sync(0xffffffffu, begin, owner);
        const std::int64_t f = __shfl_sync(0xffffffffu, end, owner);
        const V v = __shfl_sync(0xffffffffu, xv, owner);
        for (std::int64_t e = b + lane; e < f; e += 32)
          push_product<Track, S>(e, v, col_idx, values, mask, acc, flag, list, count);
      }
    }
  }
}

// The heavy rows vector_direct listed: with fewer rows than warps each row gets warps / rows
// warps (a 32-entry slice each in turn), else each warp takes whole rows.
template <bool Track, class S, class V, class I, class O>
__global__ void vector_heavy_kernel(HeavyRows<V, I> heavy, const O* row_ptr, const I* col_idx,
                                    const V* values, MaskDev mask, V* acc, int* flag, I* list,
                                    unsigned long long* count) {
  const std::int64_t rows = static_cast<std::int64_t>(*heavy.count);
  const int lane = static_cast<int>(threadIdx.x & 31u);
  const std::int64_t warp = (blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x) / 32;
  const std::int64_t warps = static_cast<std::int64_t>(gridDim.x) * blockDim.x / 32;
  std::int64_t first = warp, step = warps, part = 0, parts = 1;
  if (rows > 0 && rows < warps) {
    parts = warps / rows;
    first = warp / parts;
    part = warp % parts;
    step = rows;  // one row per warp
  }
  for (std::int64_t h = first; h < rows; h += step) {
    const std::int64_t j = static_cast<std::int64_t>(heavy.row[h]);
    const V xv = heavy.value[h];
    const std::int64_t end = static_cast<std::int64_t>(row_ptr[j + 1]);
    for (std::int64_t e = static_cast<std::int64_t>(row_ptr[j]) + part * 32 + lane; e < end;
         e += parts * 32)
      push_product<Track, S>(e, xv, col_idx, values, mask, acc, flag, list, count);
  }
}

// Lengths of the rows of M that x selects, and a trailing 0 (the exclusive scan of nx + 1
// entries then ends with the total).
template <class I, class O>
__global__ void lengths_kernel(std::int64_t nx, const I* x_idx, const O* row_ptr,
                               std::int64_t* len) {
  if (blockIdx.x == 0 && threadIdx.x == 0) len[nx] = 0;
  for (std::int64_t k = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; k < nx;
       k += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    const std::int64_t j = static_cast<std::int64_t>(x_idx[k]);
    len[k] = static_cast<std::int64_t>(row_ptr[j + 1] - row_ptr[j]);
  }
}

// Touched nonzero p of the vector-driven kernels: the entry of x owning it, found by binary
// search in the exclusive scan `start` of the selected rows' lengths (nx + 1 entries), gives its
// position e in M and x's value.
template <class V, class I, class O>
__device__ __forceinline__ std::int64_t touched_entry(std::int64_t p, std::int64_t nx,
                                                      const std::int64_t* start, const I* x_idx,
                                                      const V* x_val, bool x_val_dense,
                                                      const O* row_ptr, V& xv) {
  std::int64_t lo = 0, hi = nx;  // start[lo] <= p < start[hi]
  while (hi - lo > 1) {
    const std::int64_t mid = lo + (hi - lo) / 2;
    if (start[mid] <= p)
      lo = mid;
    else
      hi = mid;
  }
  const std::int64_t j = static_cast<std::int64_t>(x_idx[lo]);
  xv = x_val_dense ? x_val[j] : x_val[lo];
  return static_cast<std::int64_t>(row_ptr[j]) + (p - start[lo]);
}

// Vector-driven, balanced: touched nonzero positions p = 0 .. total - 1 over a grid-stride loop
// (total read on the device: no host synchronisation); the entry of x owning p found by binary
// search in the exclusive scan `start` (nx + 1 entries, start[nx] = total).
template <bool Track, class S, class V, class I, class O>
__global__ void vector_balanced_kernel(std::int64_t nx, const std::int64_t* start, const I* x_idx,
                                       const V* x_val, bool x_val_dense, const O* row_ptr,
                                       const I* col_idx, const V* values, MaskDev mask, V* acc,
                                       int* flag, I* list, unsigned long long* count) {
  const std::int64_t total = start[nx];
  for (std::int64_t p = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; p < total;
       p += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    V xv;
    const std::int64_t e = touched_entry(p, nx, start, x_idx, x_val, x_val_dense, row_ptr, xv);
    push_product<Track, S>(e, xv, col_idx, values, mask, acc, flag, list, count);
  }
}

// The sorted write-back of vector_balanced (WriteBack::sorted): the touched nonzeros of
// positions [first, first + count) of the exclusive scan `start` expanded into (output index,
// product) pairs, a masked-out output given the key `sentinel` (n_out: it sorts last and is
// skipped). Stable-sorted by key afterwards, so that equal keys keep this order (x's order, then
// the row's).
template <class S, class V, class I, class O>
__global__ void expand_pairs_kernel(std::int64_t nx, const std::int64_t* start, std::int64_t first,
                                    std::int64_t count, const I* x_idx, const V* x_val,
                                    bool x_val_dense, const O* row_ptr, const I* col_idx,
                                    const V* values, MaskDev mask, I sentinel, I* key, V* val) {
  for (std::int64_t q = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; q < count;
       q += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    const std::int64_t p = first + q;
    V xv;
    const std::int64_t e = touched_entry(p, nx, start, x_idx, x_val, x_val_dense, row_ptr, xv);
    const I i = col_idx[e];
    key[q] = mask.allowed(static_cast<std::int64_t>(i)) ? i : sentinel;
    val[q] = S::mul(values[e], xv);
  }
}

// Runs of equal keys in the sorted pairs [0, count) reduced by the thread at each run's head,
// from its first pair to its last (no atomics on values). With x in increasing index order
// (sorted first where it was not) the pairs of an output come in increasing input index, so y_i
// is the sum of its products in that order, started from the first: what matrix_direct computes
// over a CSR with increasing columns, bitwise, whichever of the two runs. A run continues what
// an earlier chunk left in acc (an entry of acc not bitwise at the identity); the runs of one
// chunk have distinct keys and chunks run one after the other. A long run is one thread's, as a
// long row is in matrix_direct: the fixed order is the point.
template <bool Track, class S, class V, class I>
__global__ void reduce_runs_kernel(std::int64_t count, const I* key, const V* val, I sentinel,
                                   V* acc, int* flag, I* list, unsigned long long* touched) {
  const auto identity_bits = to_bits<V>(S::template identity<V>());
  for (std::int64_t q = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; q < count;
       q += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    const I k = key[q];
    if (k == sentinel || (q > 0 && key[q - 1] == k)) continue;
    const std::int64_t i = static_cast<std::int64_t>(k);
    const V before = acc[i];
    V sum = to_bits<V>(before) == identity_bits ? val[q] : S::add(before, val[q]);
    for (std::int64_t r = q + 1; r < count && key[r] == k; ++r) sum = S::add(sum, val[r]);
    acc[i] = sum;
    if constexpr (Track) touch(flag, list, touched, i);
  }
}

// Output: sparse entries from the list (gather), dense entries scattered, then the listed
// accumulator entries and flags reset.
template <class V, class I>
__global__ void gather_kernel(std::int64_t c, const I* list, const V* acc, I* y_idx, V* y_val) {
  for (std::int64_t q = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; q < c;
       q += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    const I i = list[q];
    y_idx[q] = i;
    y_val[q] = acc[i];
  }
}

// Dense y: every entry from acc (identity where untouched: the invariant), and acc put back to
// the identity where it differs (bitwise), which needs no list of the touched entries.
template <class V>
__global__ void copy_reset_kernel(std::int64_t n, V* acc, V* y, V identity,
                                  unsigned long long* heavy_count) {
  if (blockIdx.x == 0 && threadIdx.x == 0) *heavy_count = 0;  // vector_heavy_kernel has read it
  const auto identity_bits = to_bits<V>(identity);
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    const V a = acc[i];
    y[i] = a;
    if (to_bits<V>(a) != identity_bits) acc[i] = identity;
  }
}

template <class V, class I>
__global__ void reset_kernel(const unsigned long long* count, const I* list, V* acc, int* flag,
                             V identity, unsigned long long* heavy_count) {
  if (blockIdx.x == 0 && threadIdx.x == 0) *heavy_count = 0;  // vector_heavy_kernel has read it
  const std::int64_t c = static_cast<std::int64_t>(*count);
  for (std::int64_t q = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; q < c;
       q += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    const I i = list[q];
    acc[i] = identity;
    flag[i] = 0;
  }
}

// Densify: bitmap x -> dense values (0 where the bit is clear: the bitmap's values there are
// unspecified).
template <class V>
__global__ void bitmap_dense_kernel(const std::uint32_t* bits, const V* values, std::int64_t n,
                                    V* dense) {
  for (std::int64_t j = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; j < n;
       j += static_cast<std::int64_t>(gridDim.x) * blockDim.x)
    dense[j] = test_bit(bits, j) ? values[j] : V(0);
}

// Densify, dense y: masked-out entries get the identity (0: plus_times).
template <class V>
__global__ void mask_dense_kernel(std::int64_t n, MaskDev mask, V* y) {
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x)
    if (!mask.allowed(i)) y[i] = V(0);
}

// Densify, sparse y: output i is present when a stored entry of its row (of A for op N, of A^T
// for op T) has its column in x. One thread per row for its first kPresenceOwnEntries entries,
// stopping at the first hit; a row longer than that without a hit there is finished by its whole
// warp, one such row after the other, 32 entries a step (one thread walking a row of 10^5
// entries held the grid up for that long).
constexpr int kPresenceOwnEntries = 32;
template <class I, class O>
__global__ void presence_pull_kernel(std::int64_t rows, const O* row_ptr, const I* col_idx,
                                     const std::uint32_t* xbits, MaskDev mask, int* flag) {
  constexpr unsigned kAll = 0xffffffffu;
  const int lane = static_cast<int>(threadIdx.x & 31u);
  // The warp's first row: the loop's bounds are the same for its 32 lanes (the shuffles and
  // votes below need them all).
  for (std::int64_t first = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x - lane;
       first < rows; first += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    const std::int64_t i = first + lane;
    O next = 0, end = 0;  // the entries of row i still to read
    if (i < rows && mask.allowed(i)) {
      O k = row_ptr[i];
      end = row_ptr[i + 1];
      const O own_end = end - k > kPresenceOwnEntries ? k + kPresenceOwnEntries : end;
      for (; k < own_end; ++k)
        if (test_bit(xbits, static_cast<std::int64_t>(col_idx[k]))) break;
      if (k < own_end) {
        flag[i] = 1;
        end = 0;
      }
      next = k;
    }
    for (unsigned todo = __ballot_sync(kAll, next < end); todo; todo &= todo - 1) {
      const int owner = __ffs(todo) - 1;
      // 64-bit steps: with 32-bit offsets near 2^31, from + 32 would overflow O.
      const auto from = static_cast<std::int64_t>(__shfl_sync(kAll, next, owner));
      const auto to = static_cast<std::int64_t>(__shfl_sync(kAll, end, owner));
      for (std::int64_t base = from; base < to; base += 32) {
        const std::int64_t k = base + lane;
        const bool hit = k < to && test_bit(xbits, static_cast<std::int64_t>(col_idx[k]));
        if (__any_sync(kAll, hit)) {
          if (lane == 0) flag[first + owner] = 1;
          break;
        }
      }
    }
  }
}

// The same for op T without A^T: the columns of the rows of A that x selects (every writer
// stores 1: no atomics needed).
template <class I, class O>
__global__ void presence_push_kernel(std::int64_t nx, const I* x_idx, const O* row_ptr,
                                     const I* col_idx, MaskDev mask, int* flag) {
  for (std::int64_t k = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; k < nx;
       k += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    const std::int64_t j = static_cast<std::int64_t>(x_idx[k]);
    for (O e = row_ptr[j]; e < row_ptr[j + 1]; ++e) {
      const std::int64_t i = static_cast<std::int64_t>(col_idx[e]);
      if (mask.allowed(i)) flag[i] = 1;
    }
  }
}

// Column view: its copy of the values, read through the column index.
template <class V, class O>
__global__ void refresh_values_kernel(std::int64_t nnz, const O* position, const V* values,
                                      V* t_values) {
  for (std::int64_t k = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; k < nnz;
       k += static_cast<std::int64_t>(gridDim.x) * blockDim.x)
    t_values[k] = values[static_cast<std::int64_t>(position[k])];
}

// A runtime flag or lane count as a compile-time constant for f.
template <class F>
void with_flag(bool flag, F&& f) {
  if (flag)
    f(std::true_type{});
  else
    f(std::false_type{});
}
template <class F>
void with_lanes(int lanes, F&& f) {
  switch (lanes) {
    case 1:
      return f(std::integral_constant<int, 1>{});
    case 2:
      return f(std::integral_constant<int, 2>{});
    case 4:
      return f(std::integral_constant<int, 4>{});
    case 8:
      return f(std::integral_constant<int, 8>{});
    case 16:
      return f(std::integral_constant<int, 16>{});
    default:
      return f(std::integral_constant<int, 32>{});
  }
}

// Lanes per entry of x in vector_direct: wider groups while all of them still fit the GPU at
// once (resident_threads), and no wider than the mean row of M rounded up to a power of two (a
// wider group only idles; a long row goes to the whole warp anyway).
inline int vector_direct_lanes(std::int64_t nx, std::int64_t m_rows, std::int64_t m_nnz,
                               std::int64_t resident_threads) {
  const std::int64_t mean = m_rows > 0 ? (m_nnz + m_rows - 1) / m_rows : 1;
  int lanes = 1;
  while (lanes < 32 && lanes < mean && nx * 2 * lanes <= resident_threads) lanes *= 2;
  return lanes;
}

inline int grid_for(std::int64_t n, int max_blocks = 65535 * 4) {
  std::int64_t b = (n + kBlock - 1) / kBlock;
  if (b < 1) b = 1;
  if (b > max_blocks) b = max_blocks;
  return static_cast<int>(b);
}

}  // namespace
}  // namespace detail

// ---------------------------------------------------------------------------------------------
// DeviceColumnView

template <class V, class I, class O>
struct DeviceColumnView<V, I, O>::Impl {
  cuda::ColumnIndex<I, O> index;
  cuda::DeviceBuffer values;
  CsrView<V, I, O> At{};
};

template <class V, class I, class O>
DeviceColumnView<V, I, O>::DeviceColumnView() : impl_(std::make_unique<Impl>()) {}
template <class V, class I, class O>
DeviceColumnView<V, I, O>::~DeviceColumnView() = default;

template <class V, class I, class O>
void DeviceColumnView<V, I, O>::build(const CsrView<V, I, O>& A, void* stream_ptr) {
  using namespace detail;
  if (A.memory != Memory::device)
    fail(status::unsupported, "spmspv gpu: the column view needs A in device memory");
  if (A.rows > 0 && A.rows - 1 > static_cast<std::int64_t>(std::numeric_limits<I>::max()))
    fail(status::unsupported,
         "spmspv gpu: the rows of A do not fit the column index type of its column view");
  cudaStream_t stream = cuda::as_stream(stream_ptr);
  auto& m = *impl_;
  m.index.build(A.row_ptr, A.col_idx, A.rows, A.cols, A.nnz, stream);
  m.values.resize(static_cast<std::size_t>(A.nnz > 0 ? A.nnz : 1) * sizeof(V));
  m.At = csr_view<V, I, O>(A.cols, A.rows, A.nnz, m.index.col_ptr(), m.index.row_idx(),
                           static_cast<V*>(m.values.get()), Memory::device);
  refresh_values(A, stream_ptr);
  HOLA_CUDA_CHECK(cudaStreamSynchronize(stream));
}

template <class V, class I, class O>
void DeviceColumnView<V, I, O>::refresh_values(const CsrView<V, I, O>& A, void* stream_ptr) {
  using namespace detail;
  auto& m = *impl_;
  if (A.nnz != m.At.nnz || A.rows != m.At.cols || A.cols != m.At.rows)
    fail(status::invalid_argument, "spmspv gpu: column view refreshed from another structure");
  if (A.nnz == 0) return;
  cudaStream_t stream = cuda::as_stream(stream_ptr);
  const int blocks_max = cuda::current_device_info().sm_count * 8;
  refresh_values_kernel<<<grid_for(A.nnz, blocks_max), kBlock, 0, stream>>>(
      A.nnz, m.index.position(), A.values, static_cast<V*>(m.values.get()));
  HOLA_CUDA_CHECK_LAUNCH("refresh_values");
}

template <class V, class I, class O>
CsrView<V, I, O> DeviceColumnView<V, I, O>::view() const {
  return impl_->At;
}

template <class V, class I, class O>
std::size_t DeviceColumnView<V, I, O>::bytes() const {
  const auto& m = *impl_;
  return m.index.bytes() + m.values.bytes();
}

// ---------------------------------------------------------------------------------------------
// Spmspv

template <class V, class I, class O>
struct Spmspv<V, I, O>::Impl {
  CsrView<V, I, O> A{}, At{};
  bool has_at = false;
  std::int64_t n_max = 0;  // max(rows, cols)
  cuda::DeviceBuffer acc, flag, list, sorted, xbits, xdense, xlist, lengths, start, counters, err,
      temp;
  std::size_t temp_bytes = 0;
  int acc_semiring = -1;  // semiring whose identity acc holds (-1: not initialized)
  int sms = 1;
  std::int64_t resident_threads = 2048;  // threads the GPU holds at once
  int direct_lanes = 0;                  // vector_direct's lanes per entry of x (0: per call)
  WriteBack write_back = WriteBack::atomic;
  std::int64_t pair_capacity = 0;                     // pairs per chunk (sorted write-back)
  cuda::DeviceBuffer keys, keys_alt, vals, vals_alt;  // the pairs, double-buffered for the sort
  std::size_t base_temp_bytes = 0;                    // CUB scratch without the pairs' sort
  std::int64_t pairs_asked = 0;  // set_write_back's pairs_per_chunk (0: the default)
  // Allocates the sorted write-back's pairs and the scratch to sort them (setup time).
  void reserve_pairs() {
    const std::int64_t nnz = A.nnz;
    const std::int64_t p =
        pairs_asked > 0
            ? pairs_asked
            : std::max<std::int64_t>(
                  {n_max, std::min<std::int64_t>(nnz, std::int64_t(1) << 22), std::int64_t(1)});
    keys.resize(static_cast<std::size_t>(p) * sizeof(I));
    keys_alt.resize(static_cast<std::size_t>(p) * sizeof(I));
    vals.resize(static_cast<std::size_t>(p) * sizeof(V));
    vals_alt.resize(static_cast<std::size_t>(p) * sizeof(V));
    cub::DoubleBuffer<I> k(nullptr, nullptr);
    cub::DoubleBuffer<V> v(nullptr, nullptr);
    std::size_t sort_bytes = 0, x_sort_bytes = 0;
    HOLA_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, sort_bytes, k, v, p));
    // x put in index order first when it is not (an unsorted list; a bitmap's list).
    HOLA_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(
        nullptr, x_sort_bytes, static_cast<const I*>(nullptr), static_cast<I*>(nullptr),
        static_cast<const V*>(nullptr), static_cast<V*>(nullptr),
        std::max<std::int64_t>(n_max, 1)));
    temp_bytes = std::max({base_temp_bytes, sort_bytes, x_sort_bytes});
    temp.resize(temp_bytes > 0 ? temp_bytes : 1);
    pair_capacity = p;
  }
  RowLengthStats rows_of_A, rows_of_At;  // rows_of_At empty without A^T
  DenseSpmv dense_spmv;
};

template <class V, class I, class O>
Spmspv<V, I, O>::Spmspv() : impl_(std::make_unique<Impl>()) {}
template <class V, class I, class O>
Spmspv<V, I, O>::~Spmspv() = default;

template <class V, class I, class O>
std::size_t Spmspv<V, I, O>::workspace_bytes() const {
  const auto& m = *impl_;
  return m.acc.bytes() + m.flag.bytes() + m.list.bytes() + m.sorted.bytes() + m.xbits.bytes() +
         m.xdense.bytes() + m.xlist.bytes() + m.lengths.bytes() + m.start.bytes() +
         m.counters.bytes() + m.err.bytes() + m.temp.bytes() + m.keys.bytes() + m.keys_alt.bytes() +
         m.vals.bytes() + m.vals_alt.bytes();
}

template <class V, class I, class O>
void Spmspv<V, I, O>::set_write_back(WriteBack w, std::int64_t pairs_per_chunk) {
  auto& m = *impl_;
  if (w != WriteBack::atomic && w != WriteBack::sorted)
    fail(status::invalid_argument, "spmspv gpu: unknown write-back");
  if (pairs_per_chunk < 0)
    fail(status::invalid_argument, "spmspv gpu: pairs per chunk must be 0 (default) or more");
  m.write_back = w;
  m.pairs_asked = pairs_per_chunk;
  if (w == WriteBack::sorted) {
    m.reserve_pairs();
  } else {
    m.keys = {};
    m.keys_alt = {};
    m.vals = {};
    m.vals_alt = {};
    m.pair_capacity = 0;
    m.temp_bytes = m.base_temp_bytes;
  }
}

template <class V, class I, class O>
WriteBack Spmspv<V, I, O>::write_back() const {
  return impl_->write_back;
}

template <class V, class I, class O>
void Spmspv<V, I, O>::set_values(const V* A_values, const V* At_values) {
  auto& m = *impl_;
  m.A.values = A_values;
  if (m.has_at) m.At.values = At_values;
}

template <class V, class I, class O>
void Spmspv<V, I, O>::set_dense_spmv(DenseSpmv spmv) {
  impl_->dense_spmv = std::move(spmv);
}
template <class V, class I, class O>
bool Spmspv<V, I, O>::has_dense_spmv() const {
  return static_cast<bool>(impl_->dense_spmv);
}

template <class V, class I, class O>
void Spmspv<V, I, O>::set_direct_lanes(int lanes) {
  if (lanes != 0 && lanes != 1 && lanes != 2 && lanes != 4 && lanes != 8 && lanes != 16 &&
      lanes != 32)
    fail(status::invalid_argument,
         "spmspv gpu: vector_direct lanes must be 0 (per call) or 1, 2, 4, 8, 16, 32, not " +
             std::to_string(lanes));
  impl_->direct_lanes = lanes;
}

template <class V, class I, class O>
void Spmspv<V, I, O>::setup(const CsrView<V, I, O>& A, const CsrView<V, I, O>* At,
                            void* stream_ptr) {
  if (A.memory != Memory::device || (At && At->memory != Memory::device))
    fail(status::unsupported, "spmspv gpu: the matrix must be in device memory");
  if (A.rows < 0 || A.cols < 0 || A.nnz < 0 || (A.rows > 0 && !A.row_ptr) ||
      (A.nnz > 0 && (!A.col_idx || !A.values)))
    fail(status::invalid_csr, "spmspv gpu: bad matrix sizes or null arrays");
  if (At && (At->rows != A.cols || At->cols != A.rows || At->nnz != A.nnz))
    fail(status::size_mismatch, "spmspv gpu: A^T does not have the transposed shape of A");
  cudaStream_t stream = cuda::as_stream(stream_ptr);
  auto& m = *impl_;
  m.A = A;
  m.has_at = At != nullptr;
  if (At) m.At = *At;
  const std::int64_t n = A.rows > A.cols ? A.rows : A.cols;
  m.n_max = n;
  const std::size_t un = static_cast<std::size_t>(n > 0 ? n : 1);
  m.acc.resize(un * sizeof(V));
  m.flag.resize(un * sizeof(int));
  m.list.resize(un * sizeof(I));
  m.sorted.resize(un * sizeof(I));
  m.xbits.resize((un + 31) / 32 * sizeof(std::uint32_t));
  m.xdense.resize(un * sizeof(V));
  m.xlist.resize(un * sizeof(I));
  // The scan buffers hold int64 (un + 1 each); `start` doubles as densify's dense y (V <= 8
  // bytes).
  m.lengths.resize((un + 1) * sizeof(std::int64_t));
  m.start.resize((un + 1) * sizeof(std::int64_t));
  m.counters.resize(3 * sizeof(unsigned long long));  // touched, x's count, heavy rows
  m.err.resize(sizeof(int));
  // CUB temporary storage: the largest of the scan, the radix sort and densify's selection at
  // the largest size.
  std::size_t scan_bytes = 0, sort_bytes = 0, select_bytes = 0;
  HOLA_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(
      nullptr, scan_bytes, static_cast<std::int64_t*>(nullptr), static_cast<std::int64_t*>(nullptr),
      static_cast<std::int64_t>(un + 1)));
  HOLA_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(nullptr, sort_bytes, static_cast<I*>(nullptr),
                                                 static_cast<I*>(nullptr),
                                                 static_cast<std::int64_t>(un)));
  HOLA_CUDA_CHECK(cub::DeviceSelect::Flagged(
      nullptr, select_bytes, thrust::counting_iterator<I>(0), static_cast<const int*>(nullptr),
      static_cast<I*>(nullptr), static_cast<unsigned long long*>(nullptr),
      static_cast<std::int64_t>(un)));
  m.temp_bytes = std::max({scan_bytes, sort_bytes, select_bytes});
  m.base_temp_bytes = m.temp_bytes;
  m.temp.resize(m.temp_bytes > 0 ? m.temp_bytes : 1);
  if (m.write_back == WriteBack::sorted) m.reserve_pairs();
  HOLA_CUDA_CHECK(cudaMemsetAsync(m.flag.get(), 0, un * sizeof(int), stream));
  HOLA_CUDA_CHECK(cudaMemsetAsync(m.counters.get(), 0, 3 * sizeof(unsigned long long), stream));
  m.acc_semiring = -1;
  int dev = 0;
  HOLA_CUDA_CHECK(cudaGetDevice(&dev));
  HOLA_CUDA_CHECK(cudaDeviceGetAttribute(&m.sms, cudaDevAttrMultiProcessorCount, dev));
  int threads_per_sm = 0;
  HOLA_CUDA_CHECK(
      cudaDeviceGetAttribute(&threads_per_sm, cudaDevAttrMaxThreadsPerMultiProcessor, dev));
  m.resident_threads = static_cast<std::int64_t>(m.sms) * threads_per_sm;
  // The row lengths of A and A^T (the longest: does vector_direct need its heavy-row pass?).
  m.rows_of_A = ::hola::gpu::device_row_length_stats(A.row_ptr, A.rows, A.cols, A.nnz, stream);
  const bool at_is_a = At && At->row_ptr == A.row_ptr && At->col_idx == A.col_idx;
  m.rows_of_At = !At       ? RowLengthStats{}
                 : at_is_a ? m.rows_of_A
                           : ::hola::gpu::device_row_length_stats(At->row_ptr, At->rows, At->cols,
                                                                  At->nnz, stream);
  HOLA_CUDA_CHECK(cudaStreamSynchronize(stream));  // the memsets above, also for 0 rows
}

template <class V, class I, class O>
const RowLengthStats& Spmspv<V, I, O>::rows_of_A() const {
  return impl_->rows_of_A;
}
template <class V, class I, class O>
const RowLengthStats& Spmspv<V, I, O>::rows_of_At() const {
  return impl_->rows_of_At;
}

namespace detail {
namespace {
template <class T>
bool overlap(const T* a, std::int64_t na, const void* b, std::size_t bytes_b) {
  if (!a || !b || na <= 0 || bytes_b == 0) return false;
  const auto pa = reinterpret_cast<std::uintptr_t>(a), pb = reinterpret_cast<std::uintptr_t>(b);
  return pa < pb + bytes_b && pb < pa + static_cast<std::size_t>(na) * sizeof(T);
}
}  // namespace
}  // namespace detail

template <class V, class I, class O>
void Spmspv<V, I, O>::apply(Kernel kernel, Op op, Semiring semiring,
                            const SparseVectorView<V, I>& x, const Mask& mask, Output<V, I>& y,
                            void* stream_ptr, bool validate) {
  using namespace detail;
  auto& m = *impl_;
  cudaStream_t stream = cuda::as_stream(stream_ptr);
  // Host-side checks (no device access).
  if (!m.A.row_ptr && m.A.rows > 0)
    fail(status::invalid_argument, "spmspv gpu: apply before setup");
  if (op != Op::N && op != Op::T) fail(status::invalid_argument, "spmspv gpu: op must be N or T");
  if (!is_valid_semiring(semiring)) fail(status::invalid_argument, "spmspv gpu: unknown semiring");
  if (kernel != Kernel::matrix_direct && kernel != Kernel::matrix_balanced &&
      kernel != Kernel::vector_direct && kernel != Kernel::vector_balanced &&
      kernel != Kernel::densify)
    fail(status::invalid_argument, "spmspv gpu: unknown kernel");
  const bool densify = kernel == Kernel::densify;
  const bool matrix_kernel = kernel == Kernel::matrix_direct || kernel == Kernel::matrix_balanced;
  const bool vector_kernel = !matrix_kernel && !densify;
  const bool needs_at = matrix_kernel ? op == Op::T : vector_kernel && op == Op::N;
  if (needs_at && !m.has_at)
    fail(status::invalid_argument, std::string("spmspv gpu: ") + kernel_name(kernel) + " with op " +
                                       op_name(op) + " needs A^T (setup's At)");
  if (densify && semiring != Semiring::plus_times)
    fail(status::invalid_argument,
         std::string("spmspv gpu: densify-and-SpMV computes over plus_times only, not ") +
             semiring_name(semiring));
  if (densify && !m.dense_spmv)
    fail(status::invalid_argument, "spmspv gpu: densify needs a dense SpMV (set_dense_spmv)");
  const std::int64_t n_in = op == Op::N ? m.A.cols : m.A.rows;
  const std::int64_t n_out = op == Op::N ? m.A.rows : m.A.cols;
  if (x.size != n_in)
    fail(status::size_mismatch, "spmspv gpu: x has size " + std::to_string(x.size) +
                                    ", op(A) has " + std::to_string(n_in) + " columns");
  if (y.size != n_out)
    fail(status::size_mismatch, "spmspv gpu: y has size " + std::to_string(y.size) +
                                    ", op(A) has " + std::to_string(n_out) + " rows");
  if (mask.values && mask.size != n_out)
    fail(status::size_mismatch, "spmspv gpu: mask size differs from y's");
  if (!mask.values && mask.complement)
    fail(status::invalid_argument, "spmspv gpu: complemented mask without mask values");
  if (x.memory != Memory::device) fail(status::unsupported, "spmspv gpu: x must be on the device");
  if (x.nnz < 0 || x.nnz > x.size) fail(status::invalid_argument, "spmspv gpu: bad nnz of x");
  const bool bitmap = x.format == VectorFormat::bitmap;
  if (!bitmap && x.format != VectorFormat::sorted && x.format != VectorFormat::unsorted)
    fail(status::invalid_argument, "spmspv gpu: unknown vector format");
  if (bitmap ? (x.size > 0 && (!x.bits || !x.values)) : (x.nnz > 0 && (!x.indices || !x.values)))
    fail(status::invalid_argument, "spmspv gpu: x arrays are null");
  if (y.format == OutputFormat::dense
          ? (n_out > 0 && !y.dense)
          : (y.capacity < 0 || (y.capacity > 0 && (!y.indices || !y.values))))
    fail(status::invalid_argument, "spmspv gpu: y arrays are null");
  {
    // y must not overlap what the call reads (x, the mask): it is written while they are read.
    const std::size_t x_val_bytes = static_cast<std::size_t>(bitmap ? x.size : x.nnz) * sizeof(V);
    const std::size_t x_idx_bytes = bitmap ? static_cast<std::size_t>((x.size + 31) / 32) * 4
                                           : static_cast<std::size_t>(x.nnz) * sizeof(I);
    const void* x_idx = bitmap ? static_cast<const void*>(x.bits) : x.indices;
    const std::size_t mask_bytes = mask.values ? static_cast<std::size_t>(mask.size) : 0;
    auto hits = [&](const auto* a, std::int64_t na) {
      return overlap(a, na, x.values, x_val_bytes) || overlap(a, na, x_idx, x_idx_bytes) ||
             overlap(a, na, mask.values, mask_bytes);
    };
    const bool aliased = y.format == OutputFormat::dense
                             ? hits(y.dense, n_out)
                             : hits(y.values, y.capacity) || hits(y.indices, y.capacity) ||
                                   overlap(y.values, y.capacity, y.indices,
                                           static_cast<std::size_t>(y.capacity) * sizeof(I));
    if (aliased)
      fail(status::aliasing, "spmspv gpu: y overlaps x or the mask (or its own two arrays)");
  }

  auto* acc = static_cast<V*>(m.acc.get());
  auto* flag = static_cast<int*>(m.flag.get());
  auto* list = static_cast<I*>(m.list.get());
  auto* counters = static_cast<unsigned long long*>(m.counters.get());  // [0] touched, [1] x
  auto* err = static_cast<int*>(m.err.get());
  auto* xbits = static_cast<std::uint32_t*>(m.xbits.get());
  auto* xdense = static_cast<V*>(m.xdense.get());
  auto* xlist = static_cast<I*>(m.xlist.get());
  const int blocks_max = m.sms * 8;

  // Accumulator at this semiring's identity (O(n) only when the semiring changes).
  const V identity =
      dispatch_semiring(semiring, [](auto ops) { return decltype(ops)::template identity<V>(); });
  if (m.acc_semiring != static_cast<int>(semiring)) {
    fill_kernel<<<grid_for(m.n_max, blocks_max), kBlock, 0, stream>>>(acc, m.n_max, identity);
    HOLA_CUDA_CHECK_LAUNCH("fill");
    m.acc_semiring = static_cast<int>(semiring);
  }

  // x as a list: its bitmap for the matrix kernels, the presence pass of densify's sparse y and
  // the duplicate check; its dense values for the matrix kernels and densify (zero outside x).
  // The error word and x's count are read only by a validated call.
  const bool dense_y = y.format == OutputFormat::dense;
  const bool push_presence = densify && !dense_y && op == Op::T && !m.has_at;
  const std::uint32_t* xb = x.bits;
  const V* xd = x.values;
  if (validate) {
    HOLA_CUDA_CHECK(cudaMemsetAsync(err, 0, sizeof(int), stream));
    HOLA_CUDA_CHECK(cudaMemsetAsync(counters + 1, 0, sizeof(unsigned long long), stream));
  }
  const bool want_bits = matrix_kernel || validate || (densify && !dense_y && !push_presence);
  if (!bitmap && (want_bits || densify)) {
    if (want_bits)
      HOLA_CUDA_CHECK(
          cudaMemsetAsync(xbits, 0, static_cast<std::size_t>((n_in + 31) / 32) * 4, stream));
    if (densify)
      HOLA_CUDA_CHECK(
          cudaMemsetAsync(xdense, 0, static_cast<std::size_t>(n_in) * sizeof(V), stream));
    if (x.nnz > 0)
      scatter_list_kernel<<<grid_for(x.nnz, blocks_max), kBlock, 0, stream>>>(
          x.indices, x.values, x.nnz, n_in, x.format == VectorFormat::sorted,
          want_bits ? xbits : nullptr, xdense, err);
    HOLA_CUDA_CHECK_LAUNCH("scatter_list");
    if (want_bits) xb = xbits;
    xd = xdense;
  }
  if (bitmap && validate && n_in > 0) {
    bitmap_check_kernel<<<grid_for((n_in + 31) / 32, blocks_max), kBlock, 0, stream>>>(
        x.bits, n_in, counters + 1, err);
    HOLA_CUDA_CHECK_LAUNCH("bitmap_check");
  }
  if (validate) {
    int e = 0;
    unsigned long long popcount = 0;
    HOLA_CUDA_CHECK(cudaMemcpyAsync(&e, err, sizeof(int), cudaMemcpyDeviceToHost, stream));
    HOLA_CUDA_CHECK(
        cudaMemcpyAsync(&popcount, counters + 1, sizeof(popcount), cudaMemcpyDeviceToHost, stream));
    HOLA_CUDA_CHECK(cudaStreamSynchronize(stream));
    if (e & kErrRange)
      fail(status::invalid_argument,
           "spmspv gpu: x has an index outside [0, " + std::to_string(n_in) + ")");
    if (e & (kErrOrder | kErrDuplicate))
      fail(status::invalid_argument,
           std::string("spmspv gpu: x has ") +
               ((e & kErrDuplicate) ? "a duplicate index" : "indices out of order"));
    if (e & kErrTail) fail(status::invalid_argument, "spmspv gpu: bitmap x has bits past its size");
    if (bitmap && static_cast<std::int64_t>(popcount) != x.nnz)
      fail(status::invalid_argument, "spmspv gpu: bitmap x has " + std::to_string(popcount) +
                                         " bits set, nnz says " + std::to_string(x.nnz));
  }
  if (densify && bitmap && n_in > 0) {
    bitmap_dense_kernel<<<grid_for(n_in, blocks_max), kBlock, 0, stream>>>(x.bits, x.values, n_in,
                                                                           xdense);
    HOLA_CUDA_CHECK_LAUNCH("bitmap_dense");
    xd = xdense;
  }
  const I* x_idx = x.indices;
  const V* x_val = x.values;
  bool x_val_dense = false;
  if ((vector_kernel || push_presence) && bitmap) {
    HOLA_CUDA_CHECK(cudaMemsetAsync(counters + 1, 0, sizeof(unsigned long long), stream));
    if (n_in > 0)
      bitmap_to_list_kernel<<<grid_for((n_in + 31) / 32, blocks_max), kBlock, 0, stream>>>(
          x.bits, n_in, xlist, counters + 1);
    HOLA_CUDA_CHECK_LAUNCH("bitmap_to_list");
    x_idx = xlist;
    x_val_dense = true;
  }

  MaskDev md{mask.values, mask.complement};
  // What the output stage gathers from: the accumulator, or densify's dense y.
  const V* source = acc;
  bool listed_sorted = false;  // the list is already in index order (densify's selection)
  if (densify) {
    V* yd = dense_y ? y.dense : static_cast<V*>(m.start.get());
    m.dense_spmv(op, xd, yd, stream);
    if (dense_y) {
      if (md.m && n_out > 0) {
        mask_dense_kernel<<<grid_for(n_out, blocks_max), kBlock, 0, stream>>>(n_out, md, yd);
        HOLA_CUDA_CHECK_LAUNCH("mask_dense");
      }
      y.nnz = -1;
      y.sorted = true;
      return;
    }
    // Present entries flagged (flags are 0 between calls), then listed in index order.
    if (push_presence) {
      if (x.nnz > 0)
        presence_push_kernel<<<grid_for(x.nnz, blocks_max), kBlock, 0, stream>>>(
            x.nnz, x_idx, m.A.row_ptr, m.A.col_idx, md, flag);
    } else {
      const CsrView<V, I, O>& R = op == Op::N ? m.A : m.At;  // rows = outputs
      if (R.rows > 0)
        presence_pull_kernel<<<grid_for(R.rows, blocks_max), kBlock, 0, stream>>>(
            R.rows, R.row_ptr, R.col_idx, xb, md, flag);
    }
    HOLA_CUDA_CHECK_LAUNCH("presence");
    if (n_out > 0) {
      std::size_t tb = m.temp_bytes;
      HOLA_CUDA_CHECK(cub::DeviceSelect::Flagged(m.temp.get(), tb, thrust::counting_iterator<I>(0),
                                                 static_cast<const int*>(flag), list, counters,
                                                 n_out, stream));
    }
    source = yd;
    listed_sorted = true;
  } else {
    const CsrView<V, I, O>& M = (matrix_kernel == (op == Op::N)) ? m.A : m.At;
    // A dense y needs no list of the touched outputs (copy_reset_kernel restores acc), and
    // matrix_direct writes it directly.
    with_flag(!dense_y, [&](auto track) {
      constexpr bool Track = decltype(track)::value;
      dispatch_semiring(semiring, [&](auto ops) {
        using S = decltype(ops);
        switch (kernel) {
          case Kernel::matrix_direct:
            if (M.rows > 0)
              matrix_direct_kernel<!Track, S><<<grid_for(M.rows, blocks_max), kBlock, 0, stream>>>(
                  M.rows, M.row_ptr, M.col_idx, M.values, xb, xd, md, acc, flag, list, counters,
                  y.dense);
            break;
          case Kernel::matrix_balanced: {
            constexpr int per = 16;
            const std::int64_t threads = (M.nnz + per - 1) / per;
            if (threads > 0)
              matrix_balanced_kernel<Track, S>
                  <<<static_cast<unsigned>((threads + kBlock - 1) / kBlock), kBlock, 0, stream>>>(
                      M.rows, M.nnz, per, M.row_ptr, M.col_idx, M.values, xb, xd, md, acc, flag,
                      list, counters);
            break;
          }
          case Kernel::vector_direct: {
            if (x.nnz == 0) break;
            // Heavy rows listed in the sorted buffer (rows) and xdense (values): neither is
            // used by a vector-driven call before its output stage.
            const bool has_heavy =
                (&M == &m.A ? m.rows_of_A : m.rows_of_At).max_row >= kDirectHeavyRow;
            const HeavyRows<V, I> heavy{
                has_heavy ? kDirectHeavyRow : std::numeric_limits<std::int64_t>::max(),
                static_cast<I*>(m.sorted.get()), xdense, counters + 2};
            with_lanes(m.direct_lanes > 0
                           ? m.direct_lanes
                           : vector_direct_lanes(x.nnz, M.rows, M.nnz, m.resident_threads),
                       [&](auto lanes) {
                         constexpr int G = decltype(lanes)::value;
                         vector_direct_kernel<G, Track, S>
                             <<<grid_for(x.nnz * G, blocks_max), kBlock, 0, stream>>>(
                                 x.nnz, x_idx, x_val, x_val_dense, M.row_ptr, M.col_idx, M.values,
                                 md, acc, flag, list, counters, heavy);
                       });
            if (has_heavy)
              vector_heavy_kernel<Track, S><<<blocks_max, kBlock, 0, stream>>>(
                  heavy, M.row_ptr, M.col_idx, M.values, md, acc, flag, list, counters);
            break;
          }
          case Kernel::vector_balanced: {
            if (x.nnz == 0) break;
            auto* len = static_cast<std::int64_t*>(m.lengths.get());
            auto* start = static_cast<std::int64_t*>(m.start.get());
            const bool sorted_write_back = m.write_back == WriteBack::sorted;
            if (sorted_write_back && x.format != VectorFormat::sorted && x.nnz > 1) {
              // x in increasing index order, which fixes the order of each output's products.
              auto* x_sorted = static_cast<I*>(m.sorted.get());  // free until the output stage
              const int x_bits = cuda::column_index_detail::key_bits<I>(n_in);
              std::size_t xb_bytes = m.temp_bytes;
              if (x_val_dense)  // a bitmap's list: values stay indexed by j
                HOLA_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(m.temp.get(), xb_bytes, x_idx,
                                                               x_sorted, x.nnz, 0, x_bits, stream));
              else
                HOLA_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(m.temp.get(), xb_bytes, x_idx,
                                                                x_sorted, x_val, xdense, x.nnz, 0,
                                                                x_bits, stream));
              x_idx = x_sorted;
              if (!x_val_dense) x_val = xdense;
            }
            lengths_kernel<<<grid_for(x.nnz, blocks_max), kBlock, 0, stream>>>(x.nnz, x_idx,
                                                                               M.row_ptr, len);
            HOLA_CUDA_CHECK_LAUNCH("lengths");
            std::size_t tb = m.temp_bytes;
            HOLA_CUDA_CHECK(
                cub::DeviceScan::ExclusiveSum(m.temp.get(), tb, len, start, x.nnz + 1, stream));
            if (sorted_write_back) {
              // The touched count sizes the sort: read back (one synchronisation).
              std::int64_t total = 0;
              HOLA_CUDA_CHECK(cudaMemcpyAsync(&total, start + x.nnz, sizeof(total),
                                              cudaMemcpyDeviceToHost, stream));
              HOLA_CUDA_CHECK(cudaStreamSynchronize(stream));
              const I sentinel = static_cast<I>(n_out);
              const int end_bit = cuda::column_index_detail::key_bits<I>(n_out + 1);
              for (std::int64_t first = 0; first < total; first += m.pair_capacity) {
                const std::int64_t c = std::min(m.pair_capacity, total - first);
                cub::DoubleBuffer<I> keys(static_cast<I*>(m.keys.get()),
                                          static_cast<I*>(m.keys_alt.get()));
                cub::DoubleBuffer<V> vals(static_cast<V*>(m.vals.get()),
                                          static_cast<V*>(m.vals_alt.get()));
                expand_pairs_kernel<S><<<grid_for(c, blocks_max), kBlock, 0, stream>>>(
                    x.nnz, start, first, c, x_idx, x_val, x_val_dense, M.row_ptr, M.col_idx,
                    M.values, md, sentinel, keys.Current(), vals.Current());
                HOLA_CUDA_CHECK_LAUNCH("expand_pairs");
                std::size_t sb = m.temp_bytes;
                HOLA_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(m.temp.get(), sb, keys, vals, c, 0,
                                                                end_bit, stream));
                reduce_runs_kernel<Track, S><<<grid_for(c, blocks_max), kBlock, 0, stream>>>(
                    c, keys.Current(), vals.Current(), sentinel, acc, flag, list, counters);
                HOLA_CUDA_CHECK_LAUNCH("reduce_runs");
              }
              break;
            }
            vector_balanced_kernel<Track, S><<<blocks_max, kBlock, 0, stream>>>(
                x.nnz, start, x_idx, x_val, x_val_dense, M.row_ptr, M.col_idx, M.values, md, acc,
                flag, list, counters);
            break;
          }
          case Kernel::densify:
            break;  // handled above
        }
      });
    });
    HOLA_CUDA_CHECK_LAUNCH("spmspv kernel");
  }

  // Output (densify with a dense y has returned above; matrix_direct wrote y itself).
  if (dense_y) {
    if (kernel != Kernel::matrix_direct && n_out > 0) {
      copy_reset_kernel<<<grid_for(n_out, blocks_max), kBlock, 0, stream>>>(n_out, acc, y.dense,
                                                                            identity, counters + 2);
      HOLA_CUDA_CHECK_LAUNCH("copy_reset");
    }
    y.nnz = -1;  // not counted (a dense y needs no synchronisation)
    y.sorted = true;
    return;
  }
  unsigned long long count = 0;
  HOLA_CUDA_CHECK(cudaMemcpyAsync(&count, counters, sizeof(count), cudaMemcpyDeviceToHost, stream));
  HOLA_CUDA_CHECK(cudaStreamSynchronize(stream));
  const std::int64_t c = static_cast<std::int64_t>(count);
  const bool fits = c <= y.capacity;
  const I* out_list = list;
  if (fits && y.want_sorted && !listed_sorted && c > 1) {
    std::size_t tb = m.temp_bytes;
    HOLA_CUDA_CHECK(
        cub::DeviceRadixSort::SortKeys(m.temp.get(), tb, list, static_cast<I*>(m.sorted.get()), c,
                                       0, cuda::column_index_detail::key_bits<I>(n_out), stream));
    out_list = static_cast<I*>(m.sorted.get());
  }
  if (fits && c > 0) {
    gather_kernel<<<grid_for(c, blocks_max), kBlock, 0, stream>>>(c, out_list, source, y.indices,
                                                                  y.values);
    HOLA_CUDA_CHECK_LAUNCH("gather");
  }
  // Flags (and, outside densify, the accumulator) back to their resting state, through the list.
  reset_kernel<<<blocks_max, kBlock, 0, stream>>>(counters, list, acc, flag, identity,
                                                  counters + 2);
  HOLA_CUDA_CHECK_LAUNCH("reset");
  HOLA_CUDA_CHECK(cudaMemsetAsync(counters, 0, sizeof(unsigned long long), stream));
  if (!fits)
    fail(status::invalid_argument, "spmspv gpu: y has " + std::to_string(c) +
                                       " entries, capacity is " + std::to_string(y.capacity));
  y.nnz = c;
  y.sorted = y.want_sorted || listed_sorted || c < 2;
}

template <class V, class I, class O>
double Spmspv<V, I, O>::time_empty_ms(Kernel kernel, Op op, int warmup, int reps,
                                      void* stream_ptr) {
  auto& m = *impl_;
  cudaStream_t stream = cuda::as_stream(stream_ptr);
  const std::int64_t n_in = op == Op::N ? m.A.cols : m.A.rows;
  const std::int64_t n_out = op == Op::N ? m.A.rows : m.A.cols;
  cuda::StreamScratch yd(static_cast<std::size_t>(n_out > 0 ? n_out : 1) * sizeof(V), stream);
  SparseVectorView<V, I> x;
  x.size = n_in;
  x.nnz = 0;
  x.format = VectorFormat::sorted;
  x.memory = Memory::device;
  Output<V, I> y;
  y.format = OutputFormat::dense;
  y.size = n_out;
  y.dense = yd.as<V>();
  auto once = [&] { apply(kernel, op, Semiring::plus_times, x, Mask{}, y, stream, false); };
  for (int w = 0; w < warmup; ++w) once();
  cudaEvent_t e0 = nullptr, e1 = nullptr;
  HOLA_CUDA_CHECK(cudaEventCreate(&e0));
  HOLA_CUDA_CHECK(cudaEventCreate(&e1));
  std::vector<float> t;
  try {
    for (int r = 0; r < std::max(reps, 1); ++r) {
      HOLA_CUDA_CHECK(cudaEventRecord(e0, stream));
      once();
      HOLA_CUDA_CHECK(cudaEventRecord(e1, stream));
      HOLA_CUDA_CHECK(cudaEventSynchronize(e1));
      float ms = 0;
      HOLA_CUDA_CHECK(cudaEventElapsedTime(&ms, e0, e1));
      t.push_back(ms);
    }
  } catch (...) {
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
    throw;
  }
  cudaEventDestroy(e0);
  cudaEventDestroy(e1);
  HOLA_CUDA_CHECK(cudaStreamSynchronize(stream));
  std::sort(t.begin(), t.end());
  const std::size_t k = t.size();
  return k % 2 ? t[k / 2] : 0.5 * (static_cast<double>(t[k / 2 - 1]) + t[k / 2]);
}

}  // namespace hola::spmspv::gpu

// Explicit instantiation of the operator for one type combination (inside hola::spmspv::gpu).
#define HOLA_SPMSPV_GPU_INSTANTIATE(V, I, O) \
  template class Spmspv<V, I, O>;            \
  template class DeviceColumnView<V, I, O>;
