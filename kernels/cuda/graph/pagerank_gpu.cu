// Device side of PageRank (hola/graph_gpu.hpp): P = (D^-1 A)^T built once, and one fused
// update kernel per iteration after the caller's SpMV y = P r. The kernel reads the dangling mass
// of r, writes r in place, and adds its L1 change and the new dangling mass into a slot of a
// three-slot device struct; it also clears the slot the next iteration adds into, so an
// iteration is exactly two launches (SpMV + update), plus an 8-byte copy when the change is read.
#include <cub/block/block_reduce.cuh>

#include <algorithm>
#include <chrono>
#include <cmath>

#include "graph_common.cuh"
#include "hola/detail/instantiate.hpp"
#include "hola/graph_gpu.hpp"
#include "hola/validate.hpp"

namespace hola::graph::gpu {
namespace {

constexpr int kBlock = 256;
constexpr int kSlots = 3;  // per slot: [0] L1 change, [1] dangling mass of the new r

// Adds the block's sums of a and b into out[0] and out[1] (one atomic each per block).
__device__ __forceinline__ void block_add2(double a, double b, double* out) {
  using Sum = cub::BlockReduce<double, kBlock>;
  __shared__ typename Sum::TempStorage tmp;
  const double sa = Sum(tmp).Sum(a);
  __syncthreads();
  const double sb = Sum(tmp).Sum(b);
  if (threadIdx.x == 0) {
    if (sa != 0) atomicAdd(&out[0], sa);
    if (sb != 0) atomicAdd(&out[1], sb);
  }
}

// r = p; dangling mass of r into slot kSlots - 1 (the slot iteration 0 reads).
template <class V>
__global__ void __launch_bounds__(kBlock)
    pagerank_start(V* r, const V* p, V uniform, const std::uint8_t* dangling, long long n,
                   double* stats) {
  double mass = 0;
  const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
  for (long long j = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; j < n;
       j += stride) {
    const V v = p ? p[j] : uniform;
    r[j] = v;
    if (dangling[j]) mass += static_cast<double>(v);
  }
  block_add2(0.0, mass, stats + 2 * (kSlots - 1));
}

// Iteration `it`: r_j <- d (y_j + m p_j) + (1 - d) p_j with m the dangling mass of the old r
// (slot it - 1); change and the new dangling mass into slot it; slot it + 1 cleared (its last
// readers, iteration it - 1 and the host copy after iteration it - 2, are done in stream order).
template <class V>
__global__ void __launch_bounds__(kBlock)
    pagerank_update(V* r, const V* __restrict__ y, const V* __restrict__ p, V uniform,
                    const std::uint8_t* __restrict__ dangling, long long n, double damping,
                    double* stats, int it) {
  const int cur = it % kSlots, prev = (it + kSlots - 1) % kSlots, next = (it + 1) % kSlots;
  const double mass = stats[2 * prev + 1];
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    stats[2 * next] = 0;
    stats[2 * next + 1] = 0;
  }
  double change = 0, new_mass = 0;
  const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
  for (long long j = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; j < n;
       j += stride) {
    const double pj = p ? static_cast<double>(p[j]) : static_cast<double>(uniform);
    const double v = damping * (static_cast<double>(y[j]) + mass * pj) + (1 - damping) * pj;
    const V stored = static_cast<V>(v);
    change += std::fabs(static_cast<double>(stored) - static_cast<double>(r[j]));
    r[j] = stored;
    if (dangling[j]) new_mass += static_cast<double>(stored);
  }
  block_add2(change, new_mass, stats + 2 * cur);
}

template <class V>
__global__ void widen_rank(const V* r, long long n, double* out) {
  const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
  for (long long j = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; j < n;
       j += stride)
    out[j] = static_cast<double>(r[j]);
}

}  // namespace

template <class V, class I, class O>
struct PageRank<V, I, O>::Impl {
  std::int64_t n = 0;
  PageRankOptions options;
  cudaStream_t stream = nullptr;
  cuda::DeviceBuffer p_ptr, p_idx, p_val, r, y, p, dangling, stats, wide;
  bool uniform = true;
  double* host_stats = nullptr;  // pinned
  CsrView<V, I, O> P;

  ~Impl() {
    if (host_stats) cudaFreeHost(host_stats);
    if (stream) cudaStreamDestroy(stream);
  }
  unsigned grid() const {
    return std::min<unsigned>(
        detail::resident_blocks(kBlock),
        cuda::div_up(static_cast<std::size_t>(std::max<std::int64_t>(n, 1)), kBlock));
  }
};

template <class V, class I, class O>
PageRank<V, I, O>::PageRank() = default;
template <class V, class I, class O>
PageRank<V, I, O>::~PageRank() = default;

template <class V, class I, class O>
void PageRank<V, I, O>::setup(const CsrView<V, I, O>& A, const PageRankOptions& options) {
  if (A.memory != Memory::host) fail(status::unsupported, "pagerank (gpu): setup takes a host CSR");
  if (A.rows != A.cols) fail(status::size_mismatch, "pagerank (gpu): the matrix must be square");
  validate_csr(A);
  const double d = options.damping;
  if (!(d >= 0 && d < 1))
    fail(status::invalid_argument, "pagerank (gpu): damping must be in [0, 1)");
  if (!(options.tolerance >= 0) || options.max_iterations < 0 || options.check_every < 1)
    fail(status::invalid_argument,
         "pagerank (gpu): tolerance and max_iterations must be >= 0, check_every >= 1");
  const std::int64_t n = A.rows;
  std::vector<V> teleport;
  if (!options.personalization.empty()) {
    if (static_cast<std::int64_t>(options.personalization.size()) != n)
      fail(status::size_mismatch, "pagerank (gpu): personalization has " +
                                      std::to_string(options.personalization.size()) +
                                      " entries, graph has " + std::to_string(n));
    double s = 0;
    for (double v : options.personalization) {
      if (!(v >= 0) || !std::isfinite(v))
        fail(status::invalid_argument, "pagerank (gpu): personalization must be finite and >= 0");
      s += v;
    }
    if (!(s > 0)) fail(status::invalid_argument, "pagerank (gpu): personalization sums to 0");
    teleport.resize(static_cast<std::size_t>(n));
    for (std::int64_t i = 0; i < n; ++i)
      teleport[i] = static_cast<V>(options.personalization[i] / s);
  }
  // P = (D^-1 A)^T: row j of P holds (i, 1 / deg_i) for each stored a_ij; entries repeated in a
  // row of A are summed (the host pagerank counts each stored entry).
  const std::int64_t nnz = static_cast<std::int64_t>(A.row_ptr[n]);
  std::vector<O> prow(static_cast<std::size_t>(n) + 1, 0);
  for (std::int64_t k = 0; k < nnz; ++k) ++prow[static_cast<std::size_t>(A.col_idx[k]) + 1];
  for (std::int64_t j = 0; j < n; ++j) prow[j + 1] += prow[j];
  std::vector<I> pcol(static_cast<std::size_t>(nnz));
  std::vector<V> pval(static_cast<std::size_t>(nnz));
  std::vector<std::uint8_t> is_dangling(static_cast<std::size_t>(n), 0);
  {
    std::vector<O> next(prow.begin(), prow.end() - 1);
    for (std::int64_t i = 0; i < n; ++i) {
      const auto deg = A.row_ptr[i + 1] - A.row_ptr[i];
      if (deg == 0) is_dangling[i] = 1;
      const V w = static_cast<V>(1.0 / static_cast<double>(deg));
      for (O k = A.row_ptr[i]; k < A.row_ptr[i + 1]; ++k) {
        const auto pos = static_cast<std::size_t>(next[A.col_idx[k]]++);
        pcol[pos] = static_cast<I>(i);
        pval[pos] = w;
      }
    }
  }
  // Columns within a row of P are increasing (rows of A visited in order); merge repeats.
  std::vector<O> mrow(static_cast<std::size_t>(n) + 1, 0);
  std::size_t out = 0;
  for (std::int64_t j = 0; j < n; ++j) {
    for (O k = prow[j]; k < prow[j + 1]; ++k) {
      if (out > static_cast<std::size_t>(mrow[j]) && pcol[out - 1] == pcol[k]) {
        pval[out - 1] += pval[k];
      } else {
        pcol[out] = pcol[k];
        pval[out] = pval[k];
        ++out;
      }
    }
    mrow[j + 1] = static_cast<O>(out);
  }
  pcol.resize(out);
  pval.resize(out);

  auto impl = std::make_unique<Impl>();
  impl->n = n;
  impl->options = options;
  impl->uniform = teleport.empty();
  HOLA_CUDA_CHECK(cudaStreamCreateWithFlags(&impl->stream, cudaStreamNonBlocking));
  HOLA_CUDA_CHECK(cudaMallocHost(&impl->host_stats, 2 * sizeof(double)));
  detail::upload(impl->p_ptr, mrow);
  detail::upload(impl->p_idx, pcol);
  detail::upload(impl->p_val, pval);
  detail::upload(impl->dangling, is_dangling);
  if (!impl->uniform) detail::upload(impl->p, teleport);
  const std::size_t nv = static_cast<std::size_t>(std::max<std::int64_t>(n, 1));
  impl->r.resize(nv * sizeof(V));
  impl->y.resize(nv * sizeof(V));
  impl->stats.resize(2 * kSlots * sizeof(double));
  CsrView<V, I, O> P;
  P.rows = P.cols = n;
  P.nnz = static_cast<std::int64_t>(out);
  P.row_ptr = impl->p_ptr.template as<O>();
  P.col_idx = impl->p_idx.template as<I>();
  P.values = impl->p_val.template as<V>();
  P.memory = Memory::device;
  impl->P = P;
  HOLA_CUDA_CHECK(cudaDeviceSynchronize());
  impl_ = std::move(impl);
}

template <class V, class I, class O>
const CsrView<V, I, O>& PageRank<V, I, O>::matrix() const {
  if (!impl_) fail(status::invalid_argument, "pagerank (gpu): matrix() before setup");
  return impl_->P;
}

template <class V, class I, class O>
void* PageRank<V, I, O>::stream() const {
  return impl_ ? static_cast<void*>(impl_->stream) : nullptr;
}

template <class V, class I, class O>
PageRankRun PageRank<V, I, O>::run(const Spmv& spmv) {
  if (!impl_) fail(status::invalid_argument, "pagerank (gpu): run before setup");
  Impl& m = *impl_;
  PageRankRun result;
  if (m.n == 0) return result;
  const V uniform = static_cast<V>(1.0 / static_cast<double>(m.n));
  const V* p = m.uniform ? nullptr : m.p.template as<V>();
  double* stats = m.stats.template as<double>();
  const auto t0 = std::chrono::steady_clock::now();
  HOLA_CUDA_CHECK(cudaMemsetAsync(stats, 0, 2 * kSlots * sizeof(double), m.stream));
  pagerank_start<V><<<m.grid(), kBlock, 0, m.stream>>>(
      m.r.template as<V>(), p, uniform, m.dangling.template as<std::uint8_t>(), m.n, stats);
  HOLA_CUDA_CHECK_LAUNCH("pagerank_start");
  const int k = m.options.check_every;
  for (int it = 0; it < m.options.max_iterations; ++it) {
    spmv(m.r.template as<V>(), m.y.template as<V>(), m.stream);
    pagerank_update<V><<<m.grid(), kBlock, 0, m.stream>>>(
        m.r.template as<V>(), m.y.template as<V>(), p, uniform,
        m.dangling.template as<std::uint8_t>(), m.n, m.options.damping, stats, it);
    HOLA_CUDA_CHECK_LAUNCH("pagerank_update");
    result.iterations = it + 1;
    if ((it + 1) % k == 0 || it + 1 == m.options.max_iterations) {
      HOLA_CUDA_CHECK(cudaMemcpyAsync(m.host_stats, stats + 2 * (it % kSlots), sizeof(double),
                                      cudaMemcpyDeviceToHost, m.stream));
      HOLA_CUDA_CHECK(cudaStreamSynchronize(m.stream));
      result.change = m.host_stats[0];
      if (result.change < m.options.tolerance) break;
    }
  }
  HOLA_CUDA_CHECK(cudaStreamSynchronize(m.stream));
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  result.ms_per_iteration = result.iterations ? result.seconds * 1e3 / result.iterations : 0;
  return result;
}

template <class V, class I, class O>
const V* PageRank<V, I, O>::rank_device() const {
  return impl_ ? impl_->r.template as<V>() : nullptr;
}

template <class V, class I, class O>
V* PageRank<V, I, O>::product_device() const {
  return impl_ ? impl_->y.template as<V>() : nullptr;
}

template <class V, class I, class O>
std::vector<double> PageRank<V, I, O>::download_rank() const {
  if (!impl_) fail(status::invalid_argument, "pagerank (gpu): download before setup");
  Impl& m = *impl_;
  const std::size_t nv = static_cast<std::size_t>(m.n);
  std::vector<double> rank(nv);
  if (nv == 0) return rank;
  m.wide.resize(nv * sizeof(double));
  widen_rank<V>
      <<<m.grid(), kBlock, 0, m.stream>>>(m.r.template as<V>(), m.n, m.wide.template as<double>());
  HOLA_CUDA_CHECK_LAUNCH("widen_rank");
  HOLA_CUDA_CHECK(cudaStreamSynchronize(m.stream));
  HOLA_CUDA_CHECK(
      cudaMemcpy(rank.data(), m.wide.get(), nv * sizeof(double), cudaMemcpyDeviceToHost));
  return rank;
}

double time_on_stream(const std::function<void(void*)>& fn, void* stream, int warmup, int reps) {
  const cudaStream_t s = static_cast<cudaStream_t>(stream);
  for (int i = 0; i < warmup; ++i) fn(stream);
  cudaEvent_t start, stop;
  HOLA_CUDA_CHECK(cudaEventCreate(&start));
  HOLA_CUDA_CHECK(cudaEventCreate(&stop));
  std::vector<float> ms;
  for (int i = 0; i < std::max(1, reps); ++i) {
    HOLA_CUDA_CHECK(cudaEventRecord(start, s));
    fn(stream);
    HOLA_CUDA_CHECK(cudaEventRecord(stop, s));
    HOLA_CUDA_CHECK(cudaEventSynchronize(stop));
    float t = 0;
    HOLA_CUDA_CHECK(cudaEventElapsedTime(&t, start, stop));
    ms.push_back(t);
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  std::sort(ms.begin(), ms.end());
  return static_cast<double>(ms[ms.size() / 2]);
}

#define HOLA_GRAPH_PAGERANK_INSTANTIATE(V, I, O) template class PageRank<V, I, O>;
HOLA_FOR_EACH_VALUE_INDEX_OFFSET(HOLA_GRAPH_PAGERANK_INSTANTIATE)
#undef HOLA_GRAPH_PAGERANK_INSTANTIATE

}  // namespace hola::graph::gpu
