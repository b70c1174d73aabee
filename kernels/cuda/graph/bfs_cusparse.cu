// BFS as one dense cuSPARSE SpMV per level (hola/graph_gpu.hpp, DenseSpmvBfs): the baseline a
// direction-optimizing BFS is measured against. x is the frontier indicator (float), y = A^T x,
// and one kernel turns y into the next frontier (y != 0 and unvisited) and records levels.
#include <cusparse.h>

#include <cub/block/block_reduce.cuh>

#include <algorithm>

#include "graph_common.cuh"
#include "hola/detail/instantiate.hpp"
#include "hola/graph_gpu.hpp"
#include "hola/validate.hpp"

namespace hola::graph::gpu {
namespace {

constexpr int kBlock = 256;

[[noreturn]] void throw_cusparse(cusparseStatus_t s, const char* what) {
  fail(status::cusparse,
       std::string(what) + ": " + cusparseGetErrorName(s) + " (" + cusparseGetErrorString(s) + ")");
}
#define HOLA_GRAPH_CUSPARSE(call)                                   \
  do {                                                              \
    cusparseStatus_t st_ = (call);                                  \
    if (st_ != CUSPARSE_STATUS_SUCCESS) throw_cusparse(st_, #call); \
  } while (0)

struct LevelCounters {
  unsigned long long count;
  unsigned long long edges;
};

template <class I>
__global__ void dense_init(I root, float* x, int* level) {
  x[root] = 1.0f;
  level[root] = 0;
}

// Next frontier = (y != 0) and unvisited; x is rewritten whole (0 / 1) for the next SpMV.
template <class I>
__global__ void __launch_bounds__(kBlock)
    dense_next_frontier(const float* __restrict__ y, float* __restrict__ x, int* level,
                        const I* __restrict__ out_ptr, long long n, int depth, LevelCounters* c) {
  using Sum = cub::BlockReduce<unsigned long long, kBlock>;
  __shared__ typename Sum::TempStorage tmp;
  unsigned long long count = 0, edges = 0;
  const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
  for (long long v = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; v < n;
       v += stride) {
    const bool reached = y[v] != 0.0f && level[v] < 0;
    if (reached) {
      level[v] = depth;
      ++count;
      edges += static_cast<unsigned long long>(out_ptr[v + 1] - out_ptr[v]);
    }
    x[v] = reached ? 1.0f : 0.0f;
  }
  const unsigned long long block_count = Sum(tmp).Sum(count);
  __syncthreads();
  const unsigned long long block_edges = Sum(tmp).Sum(edges);
  if (threadIdx.x == 0 && block_count) {
    atomicAdd(&c->count, block_count);
    atomicAdd(&c->edges, block_edges);
  }
}

__global__ void levels_to_64(const int* level, long long n, std::int64_t* out) {
  const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
  for (long long v = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; v < n;
       v += stride)
    out[v] = level[v];
}

struct DenseBase {
  virtual ~DenseBase() = default;
  virtual BfsStats search(std::int64_t root) = 0;
  virtual void download(std::vector<std::int64_t>* level) = 0;
};

template <class I>  // indices and offsets (cuSPARSE takes one width for both here)
struct DenseEngine final : DenseBase {
  std::int64_t n = 0, nnz = 0;
  cudaStream_t stream = nullptr;
  cusparseHandle_t handle = nullptr;
  cusparseSpMatDescr_t mat = nullptr;
  cusparseDnVecDescr_t xd = nullptr, yd = nullptr;
  cuda::DeviceBuffer t_ptr, t_idx, t_val, out_ptr, x, y, level, counters, spmv_buf, wide;
  LevelCounters* host = nullptr;
  std::vector<I> host_out_ptr;

  ~DenseEngine() override {
    if (xd) cusparseDestroyDnVec(xd);
    if (yd) cusparseDestroyDnVec(yd);
    if (mat) cusparseDestroySpMat(mat);
    if (handle) cusparseDestroy(handle);
    if (host) cudaFreeHost(host);
    if (stream) cudaStreamDestroy(stream);
  }

  template <class V, class AI, class AO>
  void setup(const CsrView<V, AI, AO>& A, bool symmetric) {
    n = A.rows;
    nnz = static_cast<std::int64_t>(A.row_ptr[A.rows]);
    HOLA_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    HOLA_CUDA_CHECK(cudaMallocHost(&host, sizeof(LevelCounters)));
    HOLA_GRAPH_CUSPARSE(cusparseCreate(&handle));
    HOLA_GRAPH_CUSPARSE(cusparseSetStream(handle, stream));
    auto a = detail::convert_pattern<I, I>(A);
    detail::upload(out_ptr, a.row_ptr);
    host_out_ptr = a.row_ptr;
    if (!symmetric) a = detail::transpose_pattern(a);
    detail::upload(t_ptr, a.row_ptr);
    detail::upload(t_idx, a.col_idx);
    detail::upload(t_val, std::vector<float>(static_cast<std::size_t>(nnz), 1.0f));
    const std::size_t nv = static_cast<std::size_t>(std::max<std::int64_t>(n, 1));
    x.resize(nv * sizeof(float));
    y.resize(nv * sizeof(float));
    level.resize(nv * sizeof(int));
    counters.resize(sizeof(LevelCounters));
    const cusparseIndexType_t it = sizeof(I) == 4 ? CUSPARSE_INDEX_32I : CUSPARSE_INDEX_64I;
    HOLA_GRAPH_CUSPARSE(cusparseCreateCsr(&mat, n, n, nnz, t_ptr.get(), t_idx.get(), t_val.get(),
                                          it, it, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F));
    HOLA_GRAPH_CUSPARSE(cusparseCreateDnVec(&xd, n, x.get(), CUDA_R_32F));
    HOLA_GRAPH_CUSPARSE(cusparseCreateDnVec(&yd, n, y.get(), CUDA_R_32F));
    const float one = 1.0f, zero = 0.0f;
    std::size_t bytes = 0;
    HOLA_GRAPH_CUSPARSE(cusparseSpMV_bufferSize(handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, mat,
                                                xd, &zero, yd, CUDA_R_32F,
                                                CUSPARSE_SPMV_ALG_DEFAULT, &bytes));
    spmv_buf.resize(std::max<std::size_t>(bytes, 1));
    HOLA_CUDA_CHECK(cudaDeviceSynchronize());
  }

  BfsStats search(std::int64_t root) override {
    if (root < 0 || root >= n)
      fail(status::invalid_argument, "bfs (cusparse): root " + std::to_string(root) +
                                         " outside [0, " + std::to_string(n) + ")");
    const unsigned grid = std::min<unsigned>(detail::resident_blocks(kBlock),
                                             cuda::div_up(static_cast<std::size_t>(n), kBlock));
    HOLA_CUDA_CHECK(
        cudaMemsetAsync(x.get(), 0, static_cast<std::size_t>(n) * sizeof(float), stream));
    HOLA_CUDA_CHECK(
        cudaMemsetAsync(level.get(), 0xff, static_cast<std::size_t>(n) * sizeof(int), stream));
    dense_init<I><<<1, 1, 0, stream>>>(static_cast<I>(root), x.as<float>(), level.as<int>());
    HOLA_CUDA_CHECK_LAUNCH("dense_init");
    BfsStats s;
    s.root = root;
    s.reached = 1;
    s.edges = static_cast<std::int64_t>(host_out_ptr[root + 1] - host_out_ptr[root]);
    const float one = 1.0f, zero = 0.0f;
    for (int depth = 1;; ++depth) {
      HOLA_GRAPH_CUSPARSE(cusparseSpMV(handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, mat, xd,
                                       &zero, yd, CUDA_R_32F, CUSPARSE_SPMV_ALG_DEFAULT,
                                       spmv_buf.get()));
      HOLA_CUDA_CHECK(cudaMemsetAsync(counters.get(), 0, sizeof(LevelCounters), stream));
      dense_next_frontier<I><<<grid, kBlock, 0, stream>>>(y.as<float>(), x.as<float>(),
                                                          level.as<int>(), out_ptr.as<I>(), n,
                                                          depth, counters.as<LevelCounters>());
      HOLA_CUDA_CHECK_LAUNCH("dense_next_frontier");
      HOLA_CUDA_CHECK(cudaMemcpyAsync(host, counters.get(), sizeof(LevelCounters),
                                      cudaMemcpyDeviceToHost, stream));
      HOLA_CUDA_CHECK(cudaStreamSynchronize(stream));
      s.directions += 'S';
      if (host->count == 0) break;
      s.depth = depth;
      s.reached += static_cast<std::int64_t>(host->count);
      s.edges += static_cast<std::int64_t>(host->edges);
    }
    return s;
  }

  void download(std::vector<std::int64_t>* out) override {
    const std::size_t nv = static_cast<std::size_t>(n);
    wide.resize(std::max<std::size_t>(nv, 1) * sizeof(std::int64_t));
    if (nv) {
      levels_to_64<<<std::min<unsigned>(detail::resident_blocks(kBlock), cuda::div_up(nv, kBlock)),
                     kBlock, 0, stream>>>(level.as<int>(), n, wide.as<std::int64_t>());
      HOLA_CUDA_CHECK_LAUNCH("levels_to_64");
    }
    HOLA_CUDA_CHECK(cudaStreamSynchronize(stream));
    out->resize(nv);
    if (nv)
      HOLA_CUDA_CHECK(
          cudaMemcpy(out->data(), wide.get(), nv * sizeof(std::int64_t), cudaMemcpyDeviceToHost));
  }
};

}  // namespace

struct DenseSpmvBfs::Impl {
  std::unique_ptr<DenseBase> engine;
};

DenseSpmvBfs::DenseSpmvBfs() = default;
DenseSpmvBfs::~DenseSpmvBfs() = default;

template <class V, class I, class O>
void DenseSpmvBfs::setup(const CsrView<V, I, O>& A, bool symmetric) {
  if (A.memory != Memory::host) fail(status::unsupported, "bfs (cusparse): setup takes a host CSR");
  if (A.rows != A.cols) fail(status::size_mismatch, "bfs (cusparse): the matrix must be square");
  validate_csr(A);
  const std::int64_t nnz = static_cast<std::int64_t>(A.row_ptr[A.rows]);
  auto impl = std::make_unique<Impl>();
  if (A.rows < (std::int64_t(1) << 31) - 1 && nnz < (std::int64_t(1) << 31) - 1) {
    auto e = std::make_unique<DenseEngine<std::int32_t>>();
    e->setup(A, symmetric);
    impl->engine = std::move(e);
  } else {
    auto e = std::make_unique<DenseEngine<std::int64_t>>();
    e->setup(A, symmetric);
    impl->engine = std::move(e);
  }
  impl_ = std::move(impl);
}

BfsStats DenseSpmvBfs::search(std::int64_t root) {
  if (!impl_) fail(status::invalid_argument, "bfs (cusparse): search before setup");
  return impl_->engine->search(root);
}

void DenseSpmvBfs::download_levels(std::vector<std::int64_t>* level) const {
  if (!impl_) fail(status::invalid_argument, "bfs (cusparse): download before setup");
  impl_->engine->download(level);
}

#define HOLA_GRAPH_DENSE_INSTANTIATE(V, I, O) \
  template void DenseSpmvBfs::setup(const CsrView<V, I, O>&, bool);
HOLA_FOR_EACH_VALUE_INDEX_OFFSET(HOLA_GRAPH_DENSE_INSTANTIATE)
#undef HOLA_GRAPH_DENSE_INSTANTIATE

}  // namespace hola::graph::gpu
