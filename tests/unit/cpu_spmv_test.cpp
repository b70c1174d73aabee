// The OpenMP merge-path kernel against the reference, for every type combination, with thread
// counts forced so that shares start and end inside rows (rows spanning many shares).
#include <gtest/gtest.h>
#include <omp.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <new>
#include <random>
#include <string>
#include <vector>

#include "corpus.hpp"
#include "hola/cpu_spmv.hpp"
#include "hola/error.hpp"
#include "hola/reference.hpp"
#include "hola/validate.hpp"
#include "small_csr.hpp"
#include "type_lists.hpp"

// Counts every operator new so the tests can check that apply() allocates nothing. The matching
// deletes use free() so sanitizers see malloc/free pairs.
namespace {
std::atomic<long> g_allocations{0};
}
// noinline: GCC otherwise pairs the inlined free() with the new-expression and warns.
__attribute__((noinline)) void* operator new(std::size_t n) {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(n ? n : 1)) return p;
  throw std::bad_alloc();
}
void* operator new[](std::size_t n) { return operator new(n); }
__attribute__((noinline)) void operator delete(void* p) noexcept { std::free(p); }
__attribute__((noinline)) void operator delete[](void* p) noexcept { std::free(p); }
__attribute__((noinline)) void operator delete(void* p, std::size_t) noexcept { std::free(p); }
__attribute__((noinline)) void operator delete[](void* p, std::size_t) noexcept { std::free(p); }

namespace {

using hola::CsrMatrix;
using hola::CsrView;
using hola::KernelOptions;
using hola::Op;

using hola::test::AllTypes;

// A family of random test matrices: row lengths around mean_len (Poisson-like), a fraction of
// empty rows, a few long rows; columns uniform, unsorted, duplicates possible (valid CSR).
struct Shape {
  std::string name;
  std::int64_t rows, cols;
  double mean_len;
  double empty_fraction = 0;
  int long_rows = 0;
  std::int64_t long_len = 0;
};

template <class V, class I, class O>
CsrMatrix<V, I, O> random_csr(const Shape& s, std::mt19937_64& rng) {
  CsrMatrix<V, I, O> m;
  m.rows = s.rows;
  m.cols = s.cols;
  m.row_ptr.assign(1, 0);
  std::uniform_real_distribution<double> val(-1.0, 1.0), unit(0.0, 1.0);
  std::poisson_distribution<std::int64_t> len(s.mean_len > 0 ? s.mean_len : 1.0);
  std::uniform_int_distribution<std::int64_t> col(0, std::max<std::int64_t>(0, s.cols - 1));
  std::uniform_int_distribution<std::int64_t> pick(0, std::max<std::int64_t>(0, s.rows - 1));
  std::vector<char> is_long(static_cast<std::size_t>(s.rows), 0);
  for (int k = 0; k < s.long_rows && s.rows > 0; ++k) is_long[pick(rng)] = 1;
  for (std::int64_t i = 0; i < s.rows; ++i) {
    std::int64_t n = 0;
    if (s.cols > 0) {
      if (is_long[i])
        n = s.long_len;
      else if (s.mean_len > 0 && unit(rng) >= s.empty_fraction)
        n = len(rng);
    }
    for (std::int64_t k = 0; k < n; ++k) {
      m.col_idx.push_back(static_cast<I>(col(rng)));
      m.values.push_back(static_cast<V>(val(rng)));
    }
    m.row_ptr.push_back(static_cast<O>(m.col_idx.size()));
  }
  return m;
}

std::vector<Shape> shapes() {
  return {
      {"0x0", 0, 0, 0},
      {"0x5", 0, 5, 0},
      {"6x0", 6, 0, 0},
      {"7x9 no nonzeros", 7, 9, 0},
      {"1 element", 1, 1, 1, 0, 1, 1},
      {"single row", 1, 200, 0, 0, 1, 150},
      {"single column", 60, 1, 1.0},
      {"one long row among short", 3, 50, 2, 0, 1, 300},
      {"long rows and empty rows", 40, 30, 1.5, 0.5, 3, 80},
      {"mostly empty rows", 200, 20, 1, 0.95},
      {"wide", 5, 400, 30},
      {"tall", 400, 5, 2},
      {"square random", 300, 300, 6, 0.1},
      // Large enough for a real team of threads (see kMinParallelItems in cpu_spmv.cpp).
      {"larger", 5000, 3000, 9, 0.2, 4, 2000},
      {"long rows spanning shares", 2000, 3000, 1, 0.5, 3, 10000},
      {"single long row", 1, 5000, 0, 0, 1, 12000},
      {"single long column", 10000, 1, 1},
      {"wide large", 20, 20000, 500},
  };
}

template <class T>
std::vector<T> random_vector(std::int64_t n, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> d(-1.0, 1.0);
  std::vector<T> v(static_cast<std::size_t>(n));
  for (auto& e : v) e = static_cast<T>(d(rng));
  return v;
}

// |y - ref| <= 2 (k + 2) eps(V) bound_i, k = number of products summed into output i.
template <class V, class I, class O>
void expect_matches_reference(Op op, V alpha, const CsrView<V, I, O>& A, const std::vector<V>& x,
                              V beta, const std::vector<V>& y_in, const std::vector<V>& y) {
  const std::int64_t ny = op == Op::N ? A.rows : A.cols;
  ASSERT_EQ(static_cast<std::int64_t>(y.size()), ny);
  std::vector<V> ref(static_cast<std::size_t>(ny));
  std::vector<double> bound(static_cast<std::size_t>(ny));
  hola::reference::spmv(op, alpha, A, x.data(), beta, beta != V(0) ? y_in.data() : nullptr,
                        ref.data());
  hola::reference::spmv_abs_bound(op, alpha, A, x.data(), beta, y_in.data(), bound.data());
  std::vector<std::int64_t> terms(static_cast<std::size_t>(ny), 0);
  for (std::int64_t i = 0; i < A.rows; ++i)
    for (std::int64_t k = A.row_ptr[i]; k < static_cast<std::int64_t>(A.row_ptr[i + 1]); ++k)
      ++terms[static_cast<std::size_t>(op == Op::N ? i : std::int64_t(A.col_idx[k]))];
  const double eps = std::numeric_limits<V>::epsilon();
  int failures = 0;
  for (std::int64_t i = 0; i < ny && failures < 5; ++i) {
    const auto u = static_cast<std::size_t>(i);
    const double tol = 2.0 * double(terms[u] + 2) * eps * bound[u];
    const double err = std::fabs(double(y[u]) - double(ref[u]));
    if (!(std::isfinite(double(y[u])) && err <= tol)) {
      ++failures;
      ADD_FAILURE() << "output " << i << ": got " << y[u] << ", reference " << ref[u] << ", error "
                    << err << " > tolerance " << tol;
    }
  }
}

template <class T>
class CpuSpmvTest : public ::testing::Test {
 protected:
  HOLA_TYPES_OF(T);
  using Kernel = hola::cpu::MergeSpmv<V, I, O>;
  static KernelOptions threads(int n) {
    KernelOptions o;
    o.cpu_threads = n;
    return o;
  }
  static V nan() { return std::numeric_limits<V>::quiet_NaN(); }

  // A fresh seed per test, named in every failure of it.
  const std::uint64_t seed_ = hola::test::fresh_seed();
  ::testing::ScopedTrace seed_trace_{__FILE__, __LINE__, "seed " + std::to_string(seed_)};
  std::mt19937_64 rng_{seed_};
};
TYPED_TEST_SUITE(CpuSpmvTest, AllTypes);

struct AlphaBeta {
  double alpha, beta;
};
const AlphaBeta kAlphaBeta[] = {{1, 0}, {1, 1}, {-0.75, 0}, {2.5, -1.5}, {0, 2}, {0, 0}, {1, 0.5}};

TYPED_TEST(CpuSpmvTest, MatchesReference) {
  using V = typename TestFixture::V;
  using I = typename TestFixture::I;
  using O = typename TestFixture::O;
  auto& rng = this->rng_;
  for (const Shape& shape : shapes()) {
    const auto M = random_csr<V, I, O>(shape, rng);
    const auto A = M.view();
    ASSERT_EQ(hola::check_csr(A), "") << shape.name;
    for (int nt : {1, 2, 3, 4, 7, 0}) {
      typename TestFixture::Kernel kernel(TestFixture::threads(nt));
      kernel.setup(A);
      for (Op op : {Op::N, Op::T}) {
        const std::int64_t nx = op == Op::N ? A.cols : A.rows;
        const std::int64_t ny = op == Op::N ? A.rows : A.cols;
        for (const AlphaBeta& ab : kAlphaBeta) {
          // More threads than cores on a large matrix: every barrier waits for the scheduler,
          // so keep two (alpha, beta) cases there (the 2-core CI machine).
          const bool oversubscribed = A.rows + A.nnz + A.cols >= 8192 && nt > omp_get_num_procs();
          if (oversubscribed && &ab != &kAlphaBeta[0] && &ab != &kAlphaBeta[3]) continue;
          SCOPED_TRACE(shape.name + ", threads " + std::to_string(nt) + ", op " +
                       hola::op_name(op) + ", alpha " + std::to_string(ab.alpha) + ", beta " +
                       std::to_string(ab.beta));
          const V alpha = V(ab.alpha), beta = V(ab.beta);
          const auto x = random_vector<V>(nx, rng);
          auto y_in = random_vector<V>(ny, rng);
          // beta == 0: NaN in y must not leak.
          if (beta == V(0)) std::fill(y_in.begin(), y_in.end(), TestFixture::nan());
          // Distinct output, poisoned.
          std::vector<V> y(static_cast<std::size_t>(ny), TestFixture::nan());
          kernel.apply(op, alpha, x.data(), beta, y_in.data(), y.data());
          expect_matches_reference(op, alpha, A, x, beta, y_in, y);
          // In place.
          std::vector<V> z = y_in;
          kernel.apply(op, alpha, x.data(), beta, z.data(), z.data());
          for (std::size_t i = 0; i < z.size(); ++i)
            ASSERT_EQ(std::memcmp(&z[i], &y[i], sizeof(V)), 0) << "in place differs at " << i;
          // beta == 0 with no y_in at all.
          if (beta == V(0)) {
            std::vector<V> w(static_cast<std::size_t>(ny), TestFixture::nan());
            kernel.apply(op, alpha, x.data(), beta, nullptr, w.data());
            for (std::size_t i = 0; i < w.size(); ++i)
              ASSERT_EQ(std::memcmp(&w[i], &y[i], sizeof(V)), 0) << "y_in = null differs at " << i;
          }
        }
      }
    }
  }
}

// Every split position: a matrix with one row per thread count, so share boundaries fall at
// every nonzero of a long row, including rows spanning all shares.
TYPED_TEST(CpuSpmvTest, RowsSpanningShares) {
  using V = typename TestFixture::V;
  using I = typename TestFixture::I;
  using O = typename TestFixture::O;
  auto& rng = this->rng_;
  for (std::int64_t rows = 1; rows <= 6; ++rows) {
    for (std::int64_t long_len = 1; long_len <= 40; long_len += 3) {
      const Shape s{"spanning", rows, 7, 1.0, 0.3, 1, long_len};
      const auto M = random_csr<V, I, O>(s, rng);
      const auto A = M.view();
      for (int nt : {2, 3, 4, 5, 7, 9, 13, 40}) {
        SCOPED_TRACE("rows " + std::to_string(rows) + ", nnz " + std::to_string(A.nnz) +
                     ", threads " + std::to_string(nt));
        typename TestFixture::Kernel kernel(TestFixture::threads(nt));
        kernel.setup(A);
        for (Op op : {Op::N, Op::T}) {
          const std::int64_t nx = op == Op::N ? A.cols : A.rows;
          const std::int64_t ny = op == Op::N ? A.rows : A.cols;
          const auto x = random_vector<V>(nx, rng);
          const auto y_in = random_vector<V>(ny, rng);
          std::vector<V> y(static_cast<std::size_t>(ny), TestFixture::nan());
          kernel.apply(op, V(1.5), x.data(), V(-0.5), y_in.data(), y.data());
          expect_matches_reference(op, V(1.5), A, x, V(-0.5), y_in, y);
        }
      }
    }
  }
}

template <class V>
bool bitwise_equal(const std::vector<V>& a, const std::vector<V>& b) {
  return a.size() == b.size() &&
         (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(V)) == 0);
}

// Same thread count: the same bits on every apply, whatever team OpenMP hands out (here also
// from inside a parallel region, where the nested team has a single thread).
TYPED_TEST(CpuSpmvTest, Deterministic) {
  using V = typename TestFixture::V;
  using I = typename TestFixture::I;
  using O = typename TestFixture::O;
  auto& rng = this->rng_;
  const Shape s{"det", 3000, 2000, 12, 0.1, 3, 3000};
  const auto M = random_csr<V, I, O>(s, rng);
  const auto A = M.view();
  for (int nt : {4, 7}) {
    typename TestFixture::Kernel kernel(TestFixture::threads(nt));
    kernel.setup(A);
    for (Op op : {Op::N, Op::T}) {
      SCOPED_TRACE(std::string("op ") + hola::op_name(op) + ", threads " + std::to_string(nt));
      const std::int64_t nx = op == Op::N ? A.cols : A.rows;
      const std::int64_t ny = op == Op::N ? A.rows : A.cols;
      const auto x = random_vector<V>(nx, rng);
      const auto y_in = random_vector<V>(ny, rng);
      std::vector<V> first(static_cast<std::size_t>(ny)), again(first.size());
      kernel.apply(op, V(1), x.data(), V(1), y_in.data(), first.data());
      expect_matches_reference(op, V(1), A, x, V(1), y_in, first);
      for (int rep = 0; rep < 10; ++rep) {
        std::fill(again.begin(), again.end(), TestFixture::nan());
        kernel.apply(op, V(1), x.data(), V(1), y_in.data(), again.data());
        ASSERT_TRUE(bitwise_equal(first, again)) << "repeat " << rep;
      }
      std::fill(again.begin(), again.end(), TestFixture::nan());
#pragma omp parallel num_threads(2)
      {
#pragma omp single
        kernel.apply(op, V(1), x.data(), V(1), y_in.data(), again.data());
      }
      EXPECT_TRUE(bitwise_equal(first, again)) << "called inside a parallel region";
    }
  }
}

TYPED_TEST(CpuSpmvTest, ApplyAllocatesNothing) {
  using V = typename TestFixture::V;
  using I = typename TestFixture::I;
  using O = typename TestFixture::O;
  auto& rng = this->rng_;
  const auto M = random_csr<V, I, O>({"alloc", 2000, 1500, 8, 0.1, 2, 3000}, rng);
  typename TestFixture::Kernel kernel(TestFixture::threads(3));
  kernel.setup(M.view());
  const auto x = random_vector<V>(std::max(M.rows, M.cols), rng);
  std::vector<V> y(static_cast<std::size_t>(std::max(M.rows, M.cols)), V(1));
  kernel.apply(Op::N, V(1), x.data(), V(1), y.data(), y.data());  // warm up the thread pool
  const long before = g_allocations.load();
  for (Op op : {Op::N, Op::T})
    for (const AlphaBeta& ab : kAlphaBeta)
      kernel.apply(op, V(ab.alpha), x.data(), V(ab.beta), y.data(), y.data());
  EXPECT_EQ(g_allocations.load(), before);
  EXPECT_GT(kernel.workspace_bytes(), 0u);
}

TYPED_TEST(CpuSpmvTest, SetValuesAndConvenienceFunction) {
  using V = typename TestFixture::V;
  using I = typename TestFixture::I;
  using O = typename TestFixture::O;
  auto& rng = this->rng_;
  auto M = random_csr<V, I, O>({"values", 200, 150, 5, 0.2, 1, 300}, rng);
  typename TestFixture::Kernel kernel(TestFixture::threads(4));
  kernel.setup(M.view());
  std::vector<V> other = random_vector<V>(M.nnz(), rng);
  kernel.set_values(other.data());
  auto B = M;
  B.values = other;
  for (Op op : {Op::N, Op::T}) {
    const std::int64_t nx = op == Op::N ? M.cols : M.rows;
    const std::int64_t ny = op == Op::N ? M.rows : M.cols;
    const auto x = random_vector<V>(nx, rng);
    std::vector<V> y(static_cast<std::size_t>(ny), TestFixture::nan());
    kernel.apply(op, V(1), x.data(), V(0), nullptr, y.data());
    expect_matches_reference(op, V(1), B.view(), x, V(0), y, y);
    // One-off free function (its own setup), same split: same bits.
    std::vector<V> z(y.size(), TestFixture::nan());
    hola::cpu::spmv(op, 1.0, B.view(), x.data(), 0.0, nullptr, z.data(), TestFixture::threads(4));
    EXPECT_TRUE(bitwise_equal(y, z));
  }
}

TYPED_TEST(CpuSpmvTest, Errors) {
  using V = typename TestFixture::V;
  using I = typename TestFixture::I;
  using O = typename TestFixture::O;
  auto expect_status = [](auto&& f, hola::status code, const std::string& fragment) {
    try {
      f();
      ADD_FAILURE() << "no exception, expected: " << fragment;
    } catch (const hola::error& e) {
      EXPECT_EQ(e.code(), code) << e.what();
      EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
    }
  };
  expect_status([] { typename TestFixture::Kernel k(TestFixture::threads(-1)); },
                hola::status::invalid_argument, "cpu_threads");
  const auto M = hola::test::make_csr<V, I, O>(2, 2, {0, 1, 2}, {1, 0}, {1, 2});
  auto dev = M.view();
  dev.memory = hola::Memory::device;
  typename TestFixture::Kernel k;
  expect_status([&] { k.setup(dev); }, hola::status::invalid_argument, "host memory");
  auto neg = M.view();
  neg.rows = -2;
  expect_status([&] { k.setup(neg); }, hola::status::invalid_argument, "negative number of rows");
  k.setup(M.view());
  std::vector<V> x{1, 1}, y{0, 0};
  expect_status([&] { k.apply(Op::N, V(1), x.data(), V(0), nullptr, nullptr); },
                hola::status::invalid_argument, "y_out");
  expect_status([&] { k.apply(Op::N, V(1), x.data(), V(1), nullptr, y.data()); },
                hola::status::invalid_argument, "y_in");
  expect_status([&] { k.apply(Op::T, V(1), nullptr, V(0), nullptr, y.data()); },
                hola::status::invalid_argument, "x is null");
}

}  // namespace
