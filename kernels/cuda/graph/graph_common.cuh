// Internal helpers of the GPU graph family (kernels/cuda/graph): host CSR conversion to the
// device index types, the host transpose, warp sums and the parent claim.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "common/cuda_utils.cuh"
#include "hola/csr_view.hpp"
#include "hola/error.hpp"

namespace hola::graph::gpu::detail {

constexpr unsigned kFullMask = 0xffffffffu;

// A host CSR pattern in the device's index types (DI vertex ids, DO offsets).
template <class DI, class DO>
struct HostPattern {
  std::int64_t n = 0;
  std::vector<DO> row_ptr;
  std::vector<DI> col_idx;
};

template <class DI, class DO, class V, class I, class O>
HostPattern<DI, DO> convert_pattern(const CsrView<V, I, O>& A) {
  HostPattern<DI, DO> p;
  p.n = A.rows;
  p.row_ptr.resize(static_cast<std::size_t>(A.rows) + 1);
  for (std::int64_t r = 0; r <= A.rows; ++r) p.row_ptr[r] = static_cast<DO>(A.row_ptr[r]);
  const std::int64_t nnz = static_cast<std::int64_t>(A.row_ptr[A.rows]);
  p.col_idx.resize(static_cast<std::size_t>(nnz));
  for (std::int64_t k = 0; k < nnz; ++k) p.col_idx[k] = static_cast<DI>(A.col_idx[k]);
  return p;
}

// The pattern of A^T (in-edges of each vertex), counting sort: O(n + nnz).
template <class DI, class DO>
HostPattern<DI, DO> transpose_pattern(const HostPattern<DI, DO>& a) {
  HostPattern<DI, DO> t;
  t.n = a.n;
  t.row_ptr.assign(static_cast<std::size_t>(a.n) + 1, 0);
  for (const DI c : a.col_idx) ++t.row_ptr[static_cast<std::size_t>(c) + 1];
  for (std::int64_t r = 0; r < a.n; ++r) t.row_ptr[r + 1] += t.row_ptr[r];
  t.col_idx.resize(a.col_idx.size());
  std::vector<DO> next(t.row_ptr.begin(), t.row_ptr.end() - 1);
  for (std::int64_t r = 0; r < a.n; ++r)
    for (DO k = a.row_ptr[r]; k < a.row_ptr[r + 1]; ++k)
      t.col_idx[static_cast<std::size_t>(next[a.col_idx[k]]++)] = static_cast<DI>(r);
  return t;
}

template <class T>
void upload(cuda::DeviceBuffer& buf, const std::vector<T>& v) {
  buf.resize(std::max<std::size_t>(1, v.size()) * sizeof(T));
  if (!v.empty())
    HOLA_CUDA_CHECK(cudaMemcpy(buf.get(), v.data(), v.size() * sizeof(T), cudaMemcpyHostToDevice));
}

__device__ __forceinline__ unsigned long long warp_sum(unsigned long long x) {
  for (int d = 16; d > 0; d >>= 1) x += __shfl_xor_sync(kFullMask, x, d);
  return x;
}

__device__ __forceinline__ double warp_sum(double x) {
  for (int d = 16; d > 0; d >>= 1) x += __shfl_xor_sync(kFullMask, x, d);
  return x;
}

// Sets *p from -1 to `desired`; returns the previous value (-1 when this thread claimed it).
template <class I>
__device__ __forceinline__ I claim(I* p, I desired) {
  if constexpr (sizeof(I) == 4) {
    return static_cast<I>(atomicCAS(reinterpret_cast<int*>(p), -1, static_cast<int>(desired)));
  } else {
    return static_cast<I>(atomicCAS(reinterpret_cast<unsigned long long*>(p), ~0ull,
                                    static_cast<unsigned long long>(desired)));
  }
}

// Blocks that fill the device once for a grid-stride kernel of `block` threads.
// Graph building for the device loops (BFS, PageRank). Each returns false when the driver refuses
// the step (the caller then keeps its host-driven path).

// A kernel node of one thread running func(*args...) after `dep` (null: no dependency).
inline bool add_single_thread_node(cudaGraph_t graph, cudaGraphNode_t dep, void* func, void** args,
                                   cudaGraphNode_t* node) {
  cudaKernelNodeParams p{};
  p.func = func;
  p.gridDim = dim3(1);
  p.blockDim = dim3(1);
  p.kernelParams = args;
  return cudaGraphAddKernelNode(node, graph, dep ? &dep : nullptr, dep ? 1 : 0, &p) == cudaSuccess;
}

// A conditional node (while: one body; switch: `size` bodies) on `handle` after `dep` (null: no
// dependency); its bodies, owned by the node, into bodies[0 .. size).
inline bool add_conditional_node(cudaGraph_t graph, cudaGraphNode_t dep,
                                 cudaGraphConditionalHandle handle,
                                 cudaGraphConditionalNodeType type, unsigned size,
                                 cudaGraphNode_t* node, cudaGraph_t* bodies) {
  cudaGraphNodeParams p{};
  p.type = cudaGraphNodeTypeConditional;
  p.conditional.handle = handle;
  p.conditional.type = type;
  p.conditional.size = size;
  if (cudaGraphAddNode(node, graph, dep ? &dep : nullptr, nullptr, dep ? 1 : 0, &p) != cudaSuccess)
    return false;
  for (unsigned b = 0; b < size; ++b) bodies[b] = p.conditional.phGraph_out[b];
  return true;
}

inline unsigned resident_blocks(int block) {
  const auto& info = cuda::current_device_info();
  const int per_sm = info.max_threads_per_sm > 0 ? info.max_threads_per_sm / block : 4;
  return static_cast<unsigned>(std::max(1, info.sm_count) * std::max(1, per_sm));
}

}  // namespace hola::graph::gpu::detail
