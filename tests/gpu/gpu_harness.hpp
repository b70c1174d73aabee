// Device-memory policy for the generic kernel checks of tests/support/spmv_check.hpp, and the
// checks and helpers the GPU tests share: an RAII stream, bitwise reproducibility of op N, many
// applies queued back to back, the corpora built once per process.
#pragma once

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "hola/error.hpp"
#include "hola/generators.hpp"
#include "spmv_check.hpp"
#include "type_lists.hpp"

namespace hola::test {

#define HOLA_TEST_CUDA(call)                                                        \
  do {                                                                              \
    cudaError_t e_ = (call);                                                        \
    if (e_ != cudaSuccess)                                                          \
      throw std::runtime_error(std::string(#call) + ": " + cudaGetErrorString(e_)); \
  } while (0)

struct DeviceMemory {
  static constexpr Memory kind = Memory::device;
  template <class T>
  struct Array {
    T* ptr = nullptr;
    std::size_t n = 0;
    explicit Array(std::size_t count = 0) : n(count) {
      // Always allocate at least one element so that empty arrays are still valid pointers.
      HOLA_TEST_CUDA(cudaMalloc(reinterpret_cast<void**>(&ptr), (n > 0 ? n : 1) * sizeof(T)));
    }
    ~Array() { cudaFree(ptr); }
    Array(const Array&) = delete;
    Array& operator=(const Array&) = delete;
    T* get() { return ptr; }
    void upload(const std::vector<T>& v) {
      if (v.size() != n) throw std::runtime_error("upload: size mismatch");
      if (n) HOLA_TEST_CUDA(cudaMemcpy(ptr, v.data(), n * sizeof(T), cudaMemcpyHostToDevice));
      // A copy from pageable memory may return before the data landed; kernels on other
      // (non-blocking) streams must see it.
      HOLA_TEST_CUDA(cudaDeviceSynchronize());
    }
    std::vector<T> download() const {
      std::vector<T> v(n);
      if (n) HOLA_TEST_CUDA(cudaMemcpy(v.data(), ptr, n * sizeof(T), cudaMemcpyDeviceToHost));
      return v;
    }
  };
  // Waits for the kernels and surfaces asynchronous errors (illegal address, ...).
  static void sync() { HOLA_TEST_CUDA(cudaDeviceSynchronize()); }
};

// RAII CUDA stream. A blocking stream waits for the legacy default stream, where DeviceMemory's
// cudaMemcpy uploads go; a non-blocking one does not (call DeviceMemory::sync() after the
// uploads, before using it).
class TestStream {
 public:
  enum Kind { blocking, non_blocking };
  explicit TestStream(Kind kind = blocking) {
    HOLA_TEST_CUDA(cudaStreamCreateWithFlags(
        &s_, kind == blocking ? cudaStreamDefault : cudaStreamNonBlocking));
  }
  ~TestStream() { cudaStreamDestroy(s_); }
  TestStream(const TestStream&) = delete;
  TestStream& operator=(const TestStream&) = delete;
  cudaStream_t get() const { return s_; }

 private:
  cudaStream_t s_ = nullptr;
};

// Captures the work `enqueue` puts on `stream` into a CUDA graph, then runs the graph on `stream`
// and waits for it. Capture fails on what apply() must not do: allocate, synchronize, or work on
// another stream.
template <class F>
void run_captured(cudaStream_t stream, F&& enqueue) {
  cudaGraph_t graph = nullptr;
  HOLA_TEST_CUDA(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
  try {
    enqueue();
  } catch (...) {
    cudaStreamEndCapture(stream, &graph);
    if (graph) cudaGraphDestroy(graph);
    throw;
  }
  HOLA_TEST_CUDA(cudaStreamEndCapture(stream, &graph));
  cudaGraphExec_t exec = nullptr;
  HOLA_TEST_CUDA(cudaGraphInstantiate(&exec, graph, 0));
  HOLA_TEST_CUDA(cudaGraphLaunch(exec, stream));
  HOLA_TEST_CUDA(cudaStreamSynchronize(stream));
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);
}

// Sets `kernel` up on A (placed in device memory) and expects apply() of op T to throw
// status::unsupported (the deterministic modes refuse the transpose).
template <class V, class I, class O>
void expect_transpose_refused(SpmvKernel<V, I, O>& kernel, const gen::Csr64& A64) {
  PlacedMatrix<DeviceMemory, V, I, O> M(A64);
  kernel.setup(M.view(), nullptr);
  const auto n = static_cast<std::size_t>(std::max(A64.rows, A64.cols));
  DeviceMemory::Array<V> dx(n), dy(n);
  try {
    kernel.apply(Op::T, V(1), dx.get(), V(0), dy.get(), dy.get(), nullptr);
    ADD_FAILURE() << "op T accepted by " << kernel.name() << " in deterministic mode";
  } catch (const hola::error& e) {
    EXPECT_EQ(e.code(), status::unsupported) << e.what();
  }
}

// z = alpha A x + beta y (distinct output, NaN-poisoned before each run) run `runs` times with
// the same inputs: the first output must match the reference and every later one must be
// bitwise equal to it.
template <class V, class I, class O>
void expect_bitwise_reproducible(const std::string& name, const gen::Csr64& A64,
                                 KernelFactory<V, I, O> make, const KernelOptions& options,
                                 int runs = 10) {
  PlacedMatrix<DeviceMemory, V, I, O> M(A64);
  auto kernel = make(options);
  kernel->setup(M.view(), nullptr);
  const CsrView<V, I, O> host = M.host.view();
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE("matrix " + name + " (" + std::to_string(host.rows) + " rows, nnz " +
               std::to_string(host.nnz) + "), kernel " + kernel->name() + ", seed " +
               std::to_string(seed));
  const std::vector<V> x = random_vector<V>(host.cols, seed);
  const std::vector<V> y_in = random_vector<V>(host.rows, seed + 1);
  const std::vector<V> poison(static_cast<std::size_t>(host.rows),
                              std::numeric_limits<V>::quiet_NaN());
  DeviceMemory::Array<V> dx(host.cols), dy(host.rows), dz(host.rows);
  dx.upload(x);
  dy.upload(y_in);
  const V alpha = V(1.25), beta = V(-0.5);
  std::vector<V> first;
  for (int run = 0; run < runs; ++run) {
    dz.upload(poison);
    kernel->apply(Op::N, alpha, dx.get(), beta, dy.get(), dz.get(), nullptr);
    DeviceMemory::sync();
    const std::vector<V> z = dz.download();
    if (run == 0) {
      ASSERT_TRUE(matches_reference(Op::N, alpha, host, x, beta, y_in, z));
      first = z;
    } else {
      ASSERT_EQ(0, std::memcmp(first.data(), z.data(), z.size() * sizeof(V)))
          << "run " << run << " differs bitwise from run 0";
    }
  }
}

// `applies` applies queued on `stream` with no synchronisation between them, alternating op N
// and op T (when supported), each into its own NaN-poisoned output with its own alpha; then
// every output is checked. Catches state left over from one apply to the next (a row counter
// left unreset would leave rows NaN).
template <class V, class I, class O>
void check_back_to_back(const NamedMatrix& m, KernelFactory<V, I, O> make,
                        const KernelOptions& options, cudaStream_t stream, int applies = 50) {
  PlacedMatrix<DeviceMemory, V, I, O> M(m.A);
  auto kernel = make(options);
  kernel->setup(M.view(), stream);
  const CsrView<V, I, O> host = M.host.view();
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE("matrix " + m.name + ", kernel " + kernel->name() + ", seed " +
               std::to_string(seed));
  const V nan = std::numeric_limits<V>::quiet_NaN();
  const std::vector<V> x_n = random_vector<V>(host.cols, seed);
  const std::vector<V> x_t = random_vector<V>(host.rows, seed + 1);
  const std::vector<V> y_t = random_vector<V>(host.cols, seed + 2);
  DeviceMemory::Array<V> dx_n(host.cols), dx_t(host.rows), dy_t(host.cols);
  dx_n.upload(x_n);
  dx_t.upload(x_t);
  dy_t.upload(y_t);
  std::vector<Op> ops;
  std::vector<std::unique_ptr<DeviceMemory::Array<V>>> outs;
  for (int k = 0; k < applies; ++k) {
    const Op op = (k % 2 == 1 && kernel->supports(Op::T)) ? Op::T : Op::N;
    const std::int64_t n_out = op == Op::N ? host.rows : host.cols;
    ops.push_back(op);
    outs.push_back(std::make_unique<DeviceMemory::Array<V>>(n_out));
    outs.back()->upload(std::vector<V>(static_cast<std::size_t>(n_out), nan));
  }
  DeviceMemory::sync();
  const V beta_t = V(0.5);
  auto alpha_of = [](int k) { return static_cast<V>(1.0 + 0.125 * k); };
  for (int k = 0; k < applies; ++k) {
    if (ops[k] == Op::N)
      kernel->apply(Op::N, alpha_of(k), dx_n.get(), V(0), nullptr, outs[k]->get(), stream);
    else
      kernel->apply(Op::T, alpha_of(k), dx_t.get(), beta_t, dy_t.get(), outs[k]->get(), stream);
  }
  HOLA_TEST_CUDA(cudaStreamSynchronize(stream));
  DeviceMemory::sync();
  for (int k = 0; k < applies; ++k) {
    SCOPED_TRACE("apply " + std::to_string(k) + ", op " + op_name(ops[k]));
    const std::vector<V> out = outs[k]->download();
    if (ops[k] == Op::N) {
      const std::vector<V> unread(static_cast<std::size_t>(host.rows), V(0));
      ASSERT_TRUE(matches_reference(Op::N, alpha_of(k), host, x_n, V(0), unread, out));
    } else {
      ASSERT_TRUE(matches_reference(Op::T, alpha_of(k), host, x_t, beta_t, y_t, out));
    }
  }
}

// The corpora, built once per process: generating and reading them is the slow part of the
// checks.
inline const std::vector<NamedMatrix>& families() {
  static const std::vector<NamedMatrix> corpus = family_corpus();
  return corpus;
}
// Empty when the real matrices are not found.
inline const std::vector<NamedMatrix>& reals() {
  static const std::vector<NamedMatrix> corpus =
      matrices_dir().empty() ? std::vector<NamedMatrix>{} : real_corpus();
  return corpus;
}
// Moderate irregular matrices for the reproducibility and many-applies checks.
inline const std::vector<NamedMatrix>& irregular() {
  static const std::vector<NamedMatrix> corpus = {
      {"rmat scale 16", gen::rmat(16, 16, 41)},
      {"circuit 200k", gen::circuit(200000, 42, 0.3, 8, 40000, 4.0)}};
  return corpus;
}

}  // namespace hola::test
