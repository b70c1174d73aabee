// Comparison of a kernel's output with the reference, and the generic check of one kernel over
// a corpus, for host or device memory (the memory is a template parameter, see HostMemory).
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "corpus.hpp"
#include "hola/generators.hpp"
#include "hola/reference.hpp"
#include "hola/spmv_kernel.hpp"

namespace hola::test {

using gen::random_vector;  // the tests' vectors and values (hola/generators.hpp)

// Passes when every y_out[i] is finite and within 2 (k_i + 2) eps(V) bound_i of the reference,
// where k_i is the number of products summed into output i and bound_i the magnitude bound of
// reference::spmv_abs_bound. Reports the first few mismatches.
template <class V, class I, class O>
::testing::AssertionResult matches_reference(Op op, V alpha, const CsrView<V, I, O>& A,
                                             const std::vector<V>& x, V beta,
                                             const std::vector<V>& y_in,
                                             const std::vector<V>& y_out);

// The (alpha, beta) pairs every kernel is checked with.
struct AlphaBeta {
  double alpha, beta;
};
inline std::vector<AlphaBeta> alpha_beta_cases() {
  return {{1.0, 0.0}, {1.0, 1.0}, {-0.75, 0.0}, {2.5, -1.5}, {0.0, 2.0}, {1.0, 0.5}};
}

// Default options but for the deterministic mode.
inline KernelOptions deterministic_options() {
  KernelOptions o;
  o.deterministic = true;
  return o;
}

// Memory policy for host vectors (the CPU kernels); tests/gpu has the device one.
struct HostMemory {
  static constexpr Memory kind = Memory::host;
  template <class T>
  struct Array {
    std::vector<T> data;
    explicit Array(std::size_t n = 0) : data(n) {}
    explicit Array(const std::vector<T>& v) : data(v) {}
    T* get() { return data.data(); }
    void upload(const std::vector<T>& v) { data = v; }
    std::vector<T> download() const { return data; }
  };
  static void sync() {}
};

// A kernel maker: a factory function, or a closure over a registry name.
template <class V, class I, class O>
using KernelFactory = std::function<SpmvKernelPtr<V, I, O>(const KernelOptions&)>;

// Matrix A (converted to V, I, O) placed in Mem's memory.
template <class Mem, class V, class I, class O>
struct PlacedMatrix {
  CsrMatrix<V, I, O> host;
  typename Mem::template Array<O> row_ptr;
  typename Mem::template Array<I> col_idx;
  typename Mem::template Array<V> values;
  explicit PlacedMatrix(const gen::Csr64& A64)
      : host(A64.convert<V, I, O>()),
        row_ptr(host.row_ptr),
        col_idx(host.col_idx),
        values(host.values) {}
  CsrView<V, I, O> view() {
    CsrView<V, I, O> v = host.view();
    v.row_ptr = row_ptr.get();
    v.col_idx = col_idx.get();
    v.values = values.get();
    v.memory = Mem::kind;
    return v;
  }
};

// A kernel made with `options` and set up on A (placed in Mem's memory), and a fresh seed for
// its inputs; trace() names matrix, kernel and seed for the failure messages.
template <class Mem, class V, class I, class O>
struct KernelOnMatrix {
  PlacedMatrix<Mem, V, I, O> M;
  SpmvKernelPtr<V, I, O> kernel;
  CsrView<V, I, O> host;  // M's host copy
  std::uint64_t seed = fresh_seed();
  KernelOnMatrix(const gen::Csr64& A64, const KernelFactory<V, I, O>& make,
                 const KernelOptions& options, void* stream)
      : M(A64), kernel(make(options)), host(M.host.view()) {
    kernel->setup(M.view(), stream);
  }
  std::string trace(const std::string& name) const {
    return "matrix " + name + " (" + std::to_string(host.rows) + " x " + std::to_string(host.cols) +
           ", nnz " + std::to_string(host.nnz) + "), kernel " + kernel->name() + ", seed " +
           std::to_string(seed);
  }
};

// Checks one kernel on one matrix: every supported op, every alpha/beta case, in place and with
// a distinct output (y_out poisoned with NaN), fresh random x and y each time; then new values
// through set_values(). Failures are reported with the matrix name, op and seed.
template <class Mem, class V, class I, class O>
void check_kernel_on_matrix(const std::string& name, const gen::Csr64& A64,
                            KernelFactory<V, I, O> make, const KernelOptions& options,
                            void* stream = nullptr) {
  KernelOnMatrix<Mem, V, I, O> k(A64, make, options, stream);
  SCOPED_TRACE(k.trace(name));
  auto& [M, kernel, host, seed] = k;
  const V nan = std::numeric_limits<V>::quiet_NaN();
  std::uint64_t s = seed;
  for (Op op : {Op::N, Op::T}) {
    if (!kernel->supports(op)) continue;
    const std::int64_t nx = op == Op::N ? host.cols : host.rows;
    const std::int64_t ny = op == Op::N ? host.rows : host.cols;
    for (const AlphaBeta& ab : alpha_beta_cases()) {
      SCOPED_TRACE(std::string("op ") + op_name(op) + ", alpha " + std::to_string(ab.alpha) +
                   ", beta " + std::to_string(ab.beta));
      const V alpha = static_cast<V>(ab.alpha), beta = static_cast<V>(ab.beta);
      const std::vector<V> x = random_vector<V>(nx, ++s);
      std::vector<V> y_in = random_vector<V>(ny, ++s);
      // beta == 0: y may hold NaN and must be overwritten without reading it.
      if (ab.beta == 0.0) std::fill(y_in.begin(), y_in.end(), nan);
      typename Mem::template Array<V> dx(nx), dy(ny), dz(ny);
      dx.upload(x);
      // In place: y = alpha op(A) x + beta y.
      dy.upload(y_in);
      kernel->apply(op, alpha, dx.get(), beta, dy.get(), dy.get(), stream);
      Mem::sync();
      EXPECT_TRUE(matches_reference(op, alpha, host, x, beta, y_in, dy.download())) << "in place";
      // Distinct output (PETSc's z = beta y + alpha A x): z starts as NaN.
      dy.upload(y_in);
      dz.upload(std::vector<V>(static_cast<std::size_t>(ny), nan));
      kernel->apply(op, alpha, dx.get(), beta, dy.get(), dz.get(), stream);
      Mem::sync();
      EXPECT_TRUE(matches_reference(op, alpha, host, x, beta, y_in, dz.download()))
          << "distinct output";
      // Bitwise: y_in holds NaN when beta == 0, and NaN != NaN.
      const std::vector<V> y_after = dy.download();
      EXPECT_TRUE(y_in.empty() ||
                  std::memcmp(y_after.data(), y_in.data(), y_in.size() * sizeof(V)) == 0)
          << "y_in was modified";
    }
  }
  // New values, same structure: no new setup; every op the kernel supports sees them.
  if (host.nnz > 0) {
    std::vector<V> vals = random_vector<V>(host.nnz, ++s);
    M.values.upload(vals);
    M.host.values = vals;
    kernel->set_values(M.values.get());
    for (Op op : {Op::N, Op::T}) {
      if (!kernel->supports(op)) continue;
      const std::int64_t nx = op == Op::N ? host.cols : host.rows;
      const std::int64_t ny = op == Op::N ? host.rows : host.cols;
      const std::vector<V> x = random_vector<V>(nx, ++s);
      typename Mem::template Array<V> dx(nx), dy(ny);
      dx.upload(x);
      const std::vector<V> y_in(static_cast<std::size_t>(ny), nan);
      dy.upload(y_in);
      kernel->apply(op, V(1), dx.get(), V(0), dy.get(), dy.get(), stream);
      Mem::sync();
      EXPECT_TRUE(matches_reference(op, V(1), M.host.view(), x, V(0), y_in, dy.download()))
          << "after set_values, op " << op_name(op);
    }
  }
}

// Runs check_kernel_on_matrix over a list of matrices.
template <class Mem, class V, class I, class O>
void check_kernel_on_corpus(const std::vector<NamedMatrix>& corpus, KernelFactory<V, I, O> make,
                            const KernelOptions& options, void* stream = nullptr) {
  for (const NamedMatrix& m : corpus) {
    check_kernel_on_matrix<Mem, V, I, O>(m.name, m.A, make, options, stream);
    if (::testing::Test::HasFatalFailure()) return;
  }
}

}  // namespace hola::test
