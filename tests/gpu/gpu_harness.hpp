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
    // Allocated and filled with v.
    explicit Array(const std::vector<T>& v) : Array(v.size()) { upload(v); }
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

// Threads per block and nonzeros per thread (merge: items per thread); 0 keeps the default.
inline KernelOptions kernel_config(int threads, int per_thread, bool deterministic = false) {
  KernelOptions o;
  o.threads_per_block = threads;
  o.nnz_per_thread = per_thread;
  o.deterministic = deterministic;
  return o;
}

// A deterministic kernel that refuses the transpose (`why` says why).
template <class V, class I, class O>
void expect_deterministic_op_n_only(const SpmvKernel<V, I, O>& kernel, const char* why = "") {
  EXPECT_TRUE(kernel.deterministic());
  EXPECT_TRUE(kernel.supports(Op::N));
  EXPECT_FALSE(kernel.supports(Op::T)) << why;
}

// The workspace of make(options) after setup on A (placed in device memory).
template <class V, class I, class O>
std::size_t workspace_after_setup(const gen::Csr64& A64, KernelFactory<V, I, O> make,
                                  const KernelOptions& options) {
  return KernelOnMatrix<DeviceMemory, V, I, O>(A64, make, options, nullptr)
      .kernel->workspace_bytes();
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

// z = alpha op(A) x + beta y (distinct output, NaN-poisoned before each run) run `runs` times
// with the same inputs: the first output must match the reference and every later one must be
// bitwise equal to it.
template <class V, class I, class O>
void expect_bitwise_reproducible(const std::string& name, const gen::Csr64& A64,
                                 KernelFactory<V, I, O> make, const KernelOptions& options,
                                 int runs = 10, Op op = Op::N) {
  KernelOnMatrix<DeviceMemory, V, I, O> k(A64, make, options, nullptr);
  SCOPED_TRACE(k.trace(name) + ", op " + op_name(op));
  const auto& [M, kernel, host, seed] = k;
  const std::int64_t nx = op == Op::N ? host.cols : host.rows;
  const std::int64_t ny = op == Op::N ? host.rows : host.cols;
  const std::vector<V> x = random_vector<V>(nx, seed);
  const std::vector<V> y_in = random_vector<V>(ny, seed + 1);
  const std::vector<V> poison(static_cast<std::size_t>(ny), std::numeric_limits<V>::quiet_NaN());
  DeviceMemory::Array<V> dx(x), dy(y_in), dz(ny);
  const V alpha = V(1.25), beta = V(-0.5);
  std::vector<V> first;
  for (int run = 0; run < runs; ++run) {
    dz.upload(poison);
    kernel->apply(op, alpha, dx.get(), beta, dy.get(), dz.get(), nullptr);
    DeviceMemory::sync();
    const std::vector<V> z = dz.download();
    if (run == 0) {
      ASSERT_TRUE(matches_reference(op, alpha, host, x, beta, y_in, z));
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
  KernelOnMatrix<DeviceMemory, V, I, O> k(m.A, make, options, stream);
  SCOPED_TRACE(k.trace(m.name));
  const auto& [M, kernel, host, seed] = k;
  const V nan = std::numeric_limits<V>::quiet_NaN();
  const std::vector<V> x_n = random_vector<V>(host.cols, seed);
  const std::vector<V> x_t = random_vector<V>(host.rows, seed + 1);
  const std::vector<V> y_t = random_vector<V>(host.cols, seed + 2);
  DeviceMemory::Array<V> dx_n(x_n), dx_t(x_t), dy_t(y_t);
  std::vector<Op> ops;
  std::vector<std::unique_ptr<DeviceMemory::Array<V>>> outs;
  for (int k = 0; k < applies; ++k) {
    const Op op = (k % 2 == 1 && kernel->supports(Op::T)) ? Op::T : Op::N;
    const std::int64_t n_out = op == Op::N ? host.rows : host.cols;
    ops.push_back(op);
    outs.push_back(std::make_unique<DeviceMemory::Array<V>>(
        std::vector<V>(static_cast<std::size_t>(n_out), nan)));
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

// check_kernel_on_matrix on an irregular matrix and an R-MAT, on a blocking stream: it waits for
// the uploads (cudaMemcpy on the legacy default stream), which a non-blocking one would race with.
template <class V, class I, class O>
void check_on_blocking_stream(KernelFactory<V, I, O> make, const KernelOptions& options) {
  TestStream stream(TestStream::blocking);
  check_kernel_on_matrix<DeviceMemory, V, I, O>("circuit", gen::circuit(20000, 71, 0.3, 3, 9000),
                                                make, options, stream.get());
  check_kernel_on_matrix<DeviceMemory, V, I, O>("rmat scale 13", gen::rmat(13, 8, 72), make,
                                                options, stream.get());
}

// apply() only enqueues work on its stream: no allocation, no synchronization, no work on
// another stream. Stream capture rejects all three, so one graph captures, on a non-blocking
// stream, op N (beta 0, in place) of make(options[0]), op N (beta != 0, in place) of each further
// make(options[k]), then op T (distinct output) of make(options[0]); it runs, and every output is
// checked.
template <class V, class I, class O>
void check_apply_capturable(KernelFactory<V, I, O> make,
                            const std::vector<KernelOptions>& options) {
  PlacedMatrix<DeviceMemory, V, I, O> M(gen::circuit(30000, 81, 0.3, 3, 9000, 4.0));
  const CsrView<V, I, O> host = M.host.view();
  TestStream stream(TestStream::non_blocking);
  std::vector<SpmvKernelPtr<V, I, O>> kernels;
  for (const KernelOptions& o : options) {
    kernels.push_back(make(o));
    kernels.back()->setup(M.view(), stream.get());
  }

  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const V nan = std::numeric_limits<V>::quiet_NaN();
  const std::vector<V> x = random_vector<V>(host.cols, seed);
  const std::vector<V> xt = random_vector<V>(host.rows, seed + 1);
  const std::vector<V> y_nan(static_cast<std::size_t>(host.rows), nan);
  const std::vector<V> y_in = random_vector<V>(host.rows, seed + 3);
  const std::vector<V> yt_in = random_vector<V>(host.cols, seed + 2);
  DeviceMemory::Array<V> dx(x), dy(y_nan), dxt(xt), dyt(yt_in),
      dzt(std::vector<V>(static_cast<std::size_t>(host.cols), nan));
  std::vector<std::unique_ptr<DeviceMemory::Array<V>>> dy_beta;  // for kernels[1], ...
  for (std::size_t k = 1; k < kernels.size(); ++k)
    dy_beta.push_back(std::make_unique<DeviceMemory::Array<V>>(y_in));
  DeviceMemory::sync();  // uploads went to the legacy stream, which this stream does not wait for

  const V alpha = V(-0.75), beta = V(1.5), beta_t = V(2.5);
  run_captured(stream.get(), [&] {
    kernels[0]->apply(Op::N, alpha, dx.get(), V(0), dy.get(), dy.get(), stream.get());
    for (std::size_t k = 1; k < kernels.size(); ++k)
      kernels[k]->apply(Op::N, alpha, dx.get(), beta, dy_beta[k - 1]->get(), dy_beta[k - 1]->get(),
                        stream.get());
    kernels[0]->apply(Op::T, alpha, dxt.get(), beta_t, dyt.get(), dzt.get(), stream.get());
  });

  EXPECT_TRUE(matches_reference(Op::N, alpha, host, x, V(0), y_nan, dy.download()));
  for (std::size_t k = 1; k < kernels.size(); ++k)
    EXPECT_TRUE(matches_reference(Op::N, alpha, host, x, beta, y_in, dy_beta[k - 1]->download()))
        << kernels[k]->name();
  EXPECT_TRUE(matches_reference(Op::T, alpha, host, xt, beta_t, yt_in, dzt.download()));
}

// A kernel whose op N adds its carries in the last block to finish up to
// KernelOptions::fused_fixup_max_tiles tiles (merge; hola's blocks), else in a kernel of its own,
// as it also does in a product being captured: on each matrix of `around` (both sides of the
// bound, long rows whose carries cross many boundaries) the generic check, then one captured
// product y += 1.5 A x replayed with new x each time, against the reference, bitwise equal to a
// plain launch after each replay (the finished-block counter must be back at 0 after every
// product) and to the separate fix-up kernel (fused_fixup_max_tiles = 0).
template <class V, class I, class O>
void check_fused_fixup(KernelFactory<V, I, O> make, const KernelOptions& options,
                       const std::vector<NamedMatrix>& around) {
  check_kernel_on_corpus<DeviceMemory, V, I, O>(around, make, options);
  KernelOptions separate = options;
  separate.fused_fixup_max_tiles = 0;
  for (const NamedMatrix& m : around) {
    SCOPED_TRACE(m.name);
    KernelOnMatrix<DeviceMemory, V, I, O> k(m.A, make, options, nullptr);
    const auto unfused = make(separate);
    unfused->setup(k.M.view(), nullptr);
    const std::int64_t n = k.host.rows, nx = k.host.cols;
    DeviceMemory::Array<V> dx(static_cast<std::size_t>(nx)), dy(static_cast<std::size_t>(n));
    TestStream stream(TestStream::non_blocking);
    const cudaStream_t s = stream.get();
    const std::vector<V> y0 = random_vector<V>(n, 7);
    cudaGraph_t graph = nullptr;
    ASSERT_EQ(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal), cudaSuccess);
    k.kernel->apply(Op::N, V(1.5), dx.get(), V(1), dy.get(), dy.get(), s);
    ASSERT_EQ(cudaStreamEndCapture(s, &graph), cudaSuccess);
    cudaGraphExec_t exec = nullptr;
    ASSERT_EQ(cudaGraphInstantiate(&exec, graph, 0), cudaSuccess);
    const auto run_plain = [&](SpmvKernel<V, I, O>& kernel) {
      dy.upload(y0);
      kernel.apply(Op::N, V(1.5), dx.get(), V(1), dy.get(), dy.get(), s);
      EXPECT_EQ(cudaStreamSynchronize(s), cudaSuccess);
      return dy.download();
    };
    for (int replay = 0; replay < 6; ++replay) {
      const std::vector<V> x = random_vector<V>(nx, 100 + replay);
      dx.upload(x);
      dy.upload(y0);
      ASSERT_EQ(cudaGraphLaunch(exec, s), cudaSuccess);
      ASSERT_EQ(cudaStreamSynchronize(s), cudaSuccess);
      const std::vector<V> from_graph = dy.download();
      EXPECT_TRUE(matches_reference(Op::N, V(1.5), k.host, x, V(1), y0, from_graph))
          << "replay " << replay;
      const std::vector<V> launched = run_plain(*k.kernel);
      EXPECT_EQ(0, std::memcmp(from_graph.data(), launched.data(), sizeof(V) * from_graph.size()))
          << "replay " << replay << ": the graph and a plain launch differ";
      const std::vector<V> separate_fixup = run_plain(*unfused);
      EXPECT_EQ(
          0, std::memcmp(from_graph.data(), separate_fixup.data(), sizeof(V) * from_graph.size()))
          << "replay " << replay << ": the fused and the separate fix-up differ";
    }
    EXPECT_EQ(cudaGraphExecDestroy(exec), cudaSuccess);
    EXPECT_EQ(cudaGraphDestroy(graph), cudaSuccess);
  }
}

// Every (threads, nonzeros per thread) pair, in each mode of `deterministic_modes`: at the pair's
// own block boundaries (threads x per_thread nonzeros) and on `corpus`.
template <class V, class I, class O>
void check_every_configuration(KernelFactory<V, I, O> make, const std::vector<int>& thread_choices,
                               const std::vector<int>& per_thread_choices,
                               const std::vector<bool>& deterministic_modes,
                               const std::vector<NamedMatrix>& corpus) {
  for (int threads : thread_choices) {
    for (int per_thread : per_thread_choices) {
      for (bool deterministic : deterministic_modes) {
        SCOPED_TRACE("threads " + std::to_string(threads) + ", nnz per thread " +
                     std::to_string(per_thread) + (deterministic ? ", deterministic" : ""));
        const KernelOptions options = kernel_config(threads, per_thread, deterministic);
        check_kernel_on_corpus<DeviceMemory, V, I, O>(boundary_corpus(threads * per_thread), make,
                                                      options);
        check_kernel_on_corpus<DeviceMemory, V, I, O>(corpus, make, options);
        if (::testing::Test::HasFatalFailure()) return;
      }
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
// The deterministic mode of make: op N only (`why` says why), right on the generated families.
template <class V, class I, class O>
void check_deterministic_on_families(KernelFactory<V, I, O> make, const char* why = "") {
  expect_deterministic_op_n_only(*make(deterministic_options()), why);
  // Op N over the corpus (the check skips the unsupported op T).
  check_kernel_on_corpus<DeviceMemory, V, I, O>(families(), make, deterministic_options());
}

// The same, against the default mode (not deterministic, op T supported), and op T refused at
// apply() in the deterministic mode.
template <class V, class I, class O>
void check_deterministic_against_default(KernelFactory<V, I, O> make) {
  check_deterministic_on_families<V, I, O>(make);
  auto plain = make({});
  EXPECT_FALSE(plain->deterministic());
  EXPECT_TRUE(plain->supports(Op::T));
  expect_transpose_refused(*make(deterministic_options()), gen::poisson2d(20, 20));
}

// Moderate irregular matrices for the reproducibility and many-applies checks.
inline const std::vector<NamedMatrix>& irregular() {
  static const std::vector<NamedMatrix> corpus = {
      {"rmat scale 16", gen::rmat(16, 16, 41)},
      {"circuit 200k", gen::circuit(200000, 42, 0.3, 8, 40000, 4.0)}};
  return corpus;
}

}  // namespace hola::test
