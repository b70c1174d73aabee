// Batched Jacobi-CG on the GPU: per iteration one batched SpMV (BatchedOperator, device batch;
// the systems no longer active are skipped, read from the state array on the device) and one
// fused update kernel with one block per system (dot products, x / r / z / p updates,
// per-system convergence state). Convergence flags come to the host every check_every
// iterations. Reviewed for issue 18 (launch shapes, barriers under uniform control flow, state
// written by thread 0 after every thread has read it); run on an H200 and an H100
// (docs/batched.md).
#include <cuda_runtime.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "batched_cg.hpp"
#include "hola/batched_operator.hpp"
#include "hola/error.hpp"

namespace hola::batched_cg {
namespace {

#define HOLA_CG_CUDA(call)                                                                    \
  do {                                                                                        \
    cudaError_t e_ = (call);                                                                  \
    if (e_ != cudaSuccess)                                                                    \
      ::hola::fail(::hola::status::cuda, std::string(#call) + ": " + cudaGetErrorString(e_)); \
  } while (0)

template <class T>
class Buffer {
 public:
  explicit Buffer(std::size_t n) : n_(n) {
    HOLA_CG_CUDA(cudaMalloc(reinterpret_cast<void**>(&p_), (n > 0 ? n : 1) * sizeof(T)));
  }
  explicit Buffer(const std::vector<T>& v) : Buffer(v.size()) {
    if (n_) HOLA_CG_CUDA(cudaMemcpy(p_, v.data(), n_ * sizeof(T), cudaMemcpyHostToDevice));
  }
  ~Buffer() { cudaFree(p_); }
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  T* get() const { return p_; }
  std::vector<T> download() const {
    std::vector<T> v(n_);
    if (n_) HOLA_CG_CUDA(cudaMemcpy(v.data(), p_, n_ * sizeof(T), cudaMemcpyDeviceToHost));
    return v;
  }

 private:
  T* p_ = nullptr;
  std::size_t n_ = 0;
};

constexpr int kThreads = 256;
enum : int { kActive = 0, kConverged = 1, kBreakdown = 2 };
static_assert(kActive == 0, "the state array is the product's skip flags: nonzero = left out");

// Sum of (a, b) over the block; every thread gets the result.
__device__ double2 block_sum2(double a, double b) {
  __shared__ double2 warp_sums[kThreads / 32];
  __shared__ double2 total;
  for (int off = 16; off > 0; off /= 2) {
    a += __shfl_down_sync(0xffffffffu, a, off);
    b += __shfl_down_sync(0xffffffffu, b, off);
  }
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  if (lane == 0) warp_sums[warp] = make_double2(a, b);
  __syncthreads();
  if (warp == 0) {
    double2 v = lane < kThreads / 32 ? warp_sums[lane] : make_double2(0.0, 0.0);
    for (int off = 16; off > 0; off /= 2) {
      v.x += __shfl_down_sync(0xffffffffu, v.x, off);
      v.y += __shfl_down_sync(0xffffffffu, v.y, off);
    }
    if (lane == 0) total = v;
  }
  __syncthreads();
  const double2 t = total;
  __syncthreads();  // total and warp_sums may be reused by the next call
  return t;
}

__global__ __launch_bounds__(kThreads) void init_kernel(const std::int64_t* off, const double* b,
                                                        const double* dinv, double* x, double* r,
                                                        double* z, double* p, double* rz,
                                                        double* bb, int* state) {
  const std::int64_t s = blockIdx.x;
  double rzs = 0, bbs = 0;
  for (std::int64_t i = off[s] + threadIdx.x; i < off[s + 1]; i += kThreads) {
    x[i] = 0;
    r[i] = b[i];
    z[i] = dinv[i] * b[i];
    p[i] = z[i];
    rzs += r[i] * z[i];
    bbs += b[i] * b[i];
  }
  const double2 t = block_sum2(rzs, bbs);
  if (threadIdx.x == 0) {
    rz[s] = t.x;
    bb[s] = t.y;
    state[s] = t.y == 0 ? kConverged : kActive;
  }
}

__global__ __launch_bounds__(kThreads) void update_kernel(const std::int64_t* off,
                                                          const double* dinv, double* x, double* r,
                                                          double* z, double* p, const double* q,
                                                          double* rz, const double* bb, int* state,
                                                          int* iters, int it, double tol2) {
  const std::int64_t s = blockIdx.x;
  if (state[s] != kActive) return;  // the whole block leaves
  const std::int64_t i0 = off[s], i1 = off[s + 1];
  const double rz_old = rz[s];
  double pq = 0;
  for (std::int64_t i = i0 + threadIdx.x; i < i1; i += kThreads) pq += p[i] * q[i];
  pq = block_sum2(pq, 0.0).x;
  if (!(pq > 0)) {
    if (threadIdx.x == 0) {
      state[s] = kBreakdown;
      iters[s] = it;
    }
    return;
  }
  const double a = rz_old / pq;
  double rzn = 0, rr = 0;
  for (std::int64_t i = i0 + threadIdx.x; i < i1; i += kThreads) {
    x[i] += a * p[i];
    r[i] -= a * q[i];
    z[i] = dinv[i] * r[i];
    rzn += r[i] * z[i];
    rr += r[i] * r[i];
  }
  const double2 t = block_sum2(rzn, rr);
  if (threadIdx.x == 0) iters[s] = it;
  if (t.y <= tol2 * bb[s]) {
    if (threadIdx.x == 0) state[s] = kConverged;
    return;
  }
  const double beta = t.x / rz_old;
  for (std::int64_t i = i0 + threadIdx.x; i < i1; i += kThreads) p[i] = z[i] + beta * p[i];
  if (threadIdx.x == 0) rz[s] = t.x;
}

}  // namespace

std::string gpu_name() {
  int dev = 0;
  cudaDeviceProp p{};
  if (cudaGetDevice(&dev) != cudaSuccess || cudaGetDeviceProperties(&p, dev) != cudaSuccess)
    return "unknown";
  return std::string(p.name) + " (" + std::to_string(p.multiProcessorCount) + " SMs)";
}

SolveStats solve_gpu(const std::vector<Matrix>& systems, batched::Format format,
                     const std::vector<double>& b, std::vector<double>& x, double tol, int max_iter,
                     int check_every) {
  const auto t0 = std::chrono::steady_clock::now();
  const auto data = batched::make_batch<double, std::int32_t>(systems, format);
  const std::int64_t S = static_cast<std::int64_t>(systems.size()), N = data.total_rows;
  const Layout lay = layout(systems, N);
  const std::vector<std::int64_t>& off = lay.off;
  const std::vector<double>& dinv = lay.dinv;

  // The batch on the device: a copy of each array the host batch has.
  std::vector<std::unique_ptr<Buffer<std::int32_t>>> index_arrays;
  Buffer<double> values(data.values);
  batched::BatchView<double, std::int32_t> view = data.view();
  view.memory = Memory::device;
  data.point_index_arrays(view, [&](const std::vector<std::int32_t>& host) -> const std::int32_t* {
    if (host.empty()) return nullptr;
    return index_arrays.emplace_back(std::make_unique<Buffer<std::int32_t>>(host))->get();
  });
  view.values = data.values.empty() ? nullptr : values.get();
  BatchedOperator<double, std::int32_t> op(view, BatchedBackend::gpu);

  Buffer<std::int64_t> d_off(off);
  Buffer<double> d_b(b), d_dinv(dinv), d_x(N), d_r(N), d_z(N), d_p(N), d_q(N), d_rz(S), d_bb(S);
  Buffer<int> d_state(S), d_iters(std::vector<int>(static_cast<std::size_t>(S), 0));
  cudaStream_t stream = nullptr;
  HOLA_CG_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  SolveStats st;
  // Setup ends with the uploads done; the solve ends at the last synchronisation.
  HOLA_CG_CUDA(cudaDeviceSynchronize());
  const auto t_solve = std::chrono::steady_clock::now();
  try {
    init_kernel<<<static_cast<unsigned>(S), kThreads, 0, stream>>>(
        d_off.get(), d_b.get(), d_dinv.get(), d_x.get(), d_r.get(), d_z.get(), d_p.get(),
        d_rz.get(), d_bb.get(), d_state.get());
    HOLA_CG_CUDA(cudaGetLastError());
    std::vector<int> state(static_cast<std::size_t>(S));
    for (int it = 1; it <= max_iter; ++it) {
      // Converged and broken-down systems (state != kActive) skip their product: their q is
      // not read again.
      op.apply(1.0, d_p.get(), N, 0.0, d_q.get(), N, stream, d_state.get());
      update_kernel<<<static_cast<unsigned>(S), kThreads, 0, stream>>>(
          d_off.get(), d_dinv.get(), d_x.get(), d_r.get(), d_z.get(), d_p.get(), d_q.get(),
          d_rz.get(), d_bb.get(), d_state.get(), d_iters.get(), it, tol * tol);
      HOLA_CG_CUDA(cudaGetLastError());
      ++st.sweeps;
      if (it % check_every == 0 || it == max_iter) {
        HOLA_CG_CUDA(cudaMemcpyAsync(state.data(), d_state.get(), state.size() * sizeof(int),
                                     cudaMemcpyDeviceToHost, stream));
        HOLA_CG_CUDA(cudaStreamSynchronize(stream));
        bool any_active = false;
        for (int v : state) any_active = any_active || v == kActive;
        if (!any_active) break;
      }
    }
    HOLA_CG_CUDA(cudaStreamSynchronize(stream));
    st.solve_seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t_solve).count();
  } catch (...) {
    cudaStreamDestroy(stream);
    throw;
  }
  cudaStreamDestroy(stream);
  x = d_x.download();
  st.iterations = d_iters.download();
  const std::vector<int> state = d_state.download();
  st.converged.resize(state.size());
  for (std::size_t s = 0; s < state.size(); ++s) st.converged[s] = state[s] == kConverged;
  st.setup_seconds = std::chrono::duration<double>(t_solve - t0).count();
  st.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return st;
}

}  // namespace hola::batched_cg
