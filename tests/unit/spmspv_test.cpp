// SpMSpV on the host: the OpenMP matrix-driven and vector-driven kernels against the sequential
// reference on every generated family, x densities 0..1, every vector format, mask, semiring, op
// and output form; the reference against the dense SpMV reference; bad inputs rejected with
// nothing written; BFS (Graph500 parent rules) and PageRank against simple references; the GPU
// selection's rule and trees (host code: the generated C++ against the Python's picks).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <numeric>
#include <queue>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "../../plugin/src/spmspv_tree_cases.hpp"
#include "../../plugin/src/spmspv_tree_generated.hpp"
#include "hola/generators.hpp"
#include "hola/gpu_kernels.hpp"
#include "hola/hola_spmspv.h"
#include "hola/reference.hpp"
#include "hola/spmspv.hpp"
#include "hola/spmspv_graph.hpp"
#include "hola/spmspv_operator.hpp"
#include "spmspv_cases.hpp"
#include "status_of.hpp"
#include "type_lists.hpp"

namespace hola::test {
namespace {

using namespace hola::spmspv;

std::vector<std::pair<std::string, gen::Csr64>> families() {
  return spmspv_families(SpmspvExtraFamily::banded_uniform);
}

std::vector<std::uint8_t> random_mask(std::int64_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<std::uint8_t> m(static_cast<std::size_t>(n));
  for (auto& b : m) b = static_cast<std::uint8_t>(rng() % 3 == 0 ? 0 : (rng() % 5) + 1);
  return m;
}

// Output arrays: dense, or sparse with room for `size` entries.
template <class V, class I>
struct TestOutput {
  std::vector<V> dense, values;
  std::vector<I> indices;
  Output<V, I> out;
  TestOutput(std::int64_t n, OutputFormat f, bool want_sorted) {
    out.format = f;
    out.size = n;
    out.want_sorted = want_sorted;
    if (f == OutputFormat::dense) {
      dense.assign(static_cast<std::size_t>(n) + 1, V(-7));
      out.dense = dense.data();
    } else {
      values.assign(static_cast<std::size_t>(n) + 1, V(-7));
      indices.assign(static_cast<std::size_t>(n) + 1, I(-7));
      out.values = values.data();
      out.indices = indices.data();
      out.capacity = n;
    }
  }
};

const VectorFormat kFormats[] = {VectorFormat::sorted, VectorFormat::unsorted,
                                 VectorFormat::bitmap};
const double kDensities[] = {0.0, 0.003, 0.05, 0.5, 1.0};

template <class T>
class Spmspv : public ::testing::Test {};
using SpmspvTypes = ::testing::Types<Types<double, std::int32_t, std::int32_t>,
                                     Types<float, std::int64_t, std::int64_t>,
                                     Types<double, std::int64_t, std::int32_t>>;
TYPED_TEST_SUITE(Spmspv, SpmspvTypes);

// Runs every kernel on every combination for matrix A; returns the number of products checked.
template <class V, class I, class O>
std::int64_t sweep(const std::string& name, const CsrMatrix<V, I, O>& Am,
                   const std::vector<double>& densities) {
  const auto A = Am.view();
  ColumnView<V, I, O> cv;
  cv.build(A);
  const auto At = cv.transposed_view();
  Workspace<V, I> ws;
  std::int64_t checked = 0, rotate = 0;
  for (Op op : {Op::N, Op::T}) {
    const std::int64_t n_in = op == Op::N ? A.cols : A.rows;
    const std::int64_t n_out = op == Op::N ? A.rows : A.cols;
    const auto mask = random_mask(n_out, 99);
    for (double density : densities) {
      TestVector<V, I> tv(n_in, density, 1000 + checked);
      for (VectorFormat f : kFormats)
        for (int m = 0; m < 3; ++m)
          for (Semiring s : kSemirings) {
            Problem<V, I, O> p;
            p.op = op;
            p.semiring = s;
            p.A = A;
            p.At = &At;
            p.x = tv.view(f);
            if (m > 0) {
              p.mask.values = mask.data();
              p.mask.size = n_out;
              p.mask.complement = m == 2;
            }
            for (Algorithm alg : {Algorithm::matrix_driven, Algorithm::vector_driven}) {
              const int form = static_cast<int>(rotate++ % 3);
              TestOutput<V, I> y(n_out, form == 0 ? OutputFormat::dense : OutputFormat::sparse,
                                 form == 1);
              multiply(alg, p, y.out, ws);
              const std::string diff = compare_with_reference(p, y.out);
              EXPECT_TRUE(diff.empty())
                  << name << " op " << op_name(op) << " density " << density << " x "
                  << format_name(f) << " mask " << m << " " << semiring_name(s) << " "
                  << algorithm_name(alg) << " output form " << form << ":\n"
                  << diff;
              if (y.out.format == OutputFormat::dense)
                EXPECT_EQ(y.dense.back(), V(-7)) << "wrote past y";
              else
                EXPECT_EQ(y.values.back(), V(-7)) << "wrote past y";
              ++checked;
            }
          }
    }
  }
  return checked;
}

TYPED_TEST(Spmspv, EveryFamilyMatchesReference) {
  HOLA_TYPES;
  std::vector<double> densities(std::begin(kDensities), std::end(kDensities));
  std::int64_t checked = 0;
  for (const auto& [name, m] : families())
    checked += sweep(name, m.template convert<V, I, O>(), densities);
  EXPECT_GT(checked, 10000);
}

// Large enough for the parallel (bucketed) vector-driven path and multi-thread compaction.
TYPED_TEST(Spmspv, LargeMatrixParallelPaths) {
  HOLA_TYPES;
  const auto m = gen::rmat(12, 16, 21).convert<V, I, O>();
  EXPECT_GT(sweep("rmat12", m, {0.002, 0.5}), 0);
  const auto b = gen::banded_normal(20000, 8, 100.0, 22).convert<V, I, O>();
  EXPECT_GT(sweep("banded20000", b, {0.3}), 0);
}

// The SpMSpV reference itself against the dense SpMV reference (plus_times, no mask).
TYPED_TEST(Spmspv, ReferenceAgreesWithDenseSpmv) {
  HOLA_TYPES;
  for (const auto& [name, m64] : families()) {
    const auto m = m64.template convert<V, I, O>();
    const auto A = m.view();
    for (Op op : {Op::N, Op::T}) {
      const std::int64_t n_in = op == Op::N ? A.cols : A.rows;
      const std::int64_t n_out = op == Op::N ? A.rows : A.cols;
      TestVector<V, I> tv(n_in, 0.3, 5);
      Problem<V, I, O> p;
      p.op = op;
      p.A = A;
      p.x = tv.view(VectorFormat::unsorted);
      TestOutput<V, I> y(n_out, OutputFormat::dense, true);
      Workspace<V, I> ws;
      multiply(Algorithm::reference, p, y.out, ws);
      std::vector<V> ref(static_cast<std::size_t>(n_out) + 1);
      reference::spmv(op, V(1), A, tv.dense_val.data(), V(0), static_cast<const V*>(nullptr),
                      ref.data());
      std::vector<double> bound(static_cast<std::size_t>(n_out) + 1);
      reference::spmv_abs_bound(op, V(1), A, tv.dense_val.data(), V(0),
                                static_cast<const V*>(nullptr), bound.data());
      for (std::int64_t i = 0; i < n_out; ++i)
        ASSERT_LE(std::abs(double(y.dense[i]) - double(ref[i])),
                  1e3 * std::numeric_limits<V>::epsilon() * bound[i])
            << name << " op " << op_name(op) << " i " << i;
    }
  }
}

// A hand-checked product over every semiring: A = [[1 2 0], [0 0 3], [4 0 5]], x = {0: 2, 2: -1}.
TEST(SpmspvSmall, HandComputed) {
  CsrMatrix<double, std::int32_t, std::int32_t> m;
  m.rows = m.cols = 3;
  m.row_ptr = {0, 2, 3, 5};
  m.col_idx = {0, 1, 2, 0, 2};
  m.values = {1, 2, 3, 4, 5};
  const auto A = m.view();
  ColumnView<double, std::int32_t, std::int32_t> cv;
  cv.build(A);
  const auto At = cv.transposed_view();
  std::vector<std::int32_t> xi = {2, 0};
  std::vector<double> xv = {-1, 2};
  const double inf = std::numeric_limits<double>::infinity();
  struct Case {
    Semiring s;
    Op op;
    std::vector<double> want;
  };
  // N: y0 = 1*2 (row 0 meets x0), y1 = 3*-1, y2 = 4*2 + 5*-1. T: y = A^T x: y0 = 1*2 + 4*-1,
  // y1 = 2*2, y2 = 5*-1.
  const std::vector<Case> cases = {
      {Semiring::plus_times, Op::N, {2, -3, 3}},  {Semiring::plus_times, Op::T, {-2, 4, -5}},
      {Semiring::or_and, Op::N, {1, 1, 1}},       {Semiring::min_first, Op::N, {1, 3, 4}},
      {Semiring::min_second, Op::N, {2, -1, -1}}, {Semiring::min_first, Op::T, {1, 2, 5}},
      {Semiring::min_second, Op::T, {-1, 2, -1}},
  };
  for (const auto& c : cases)
    for (Algorithm alg :
         {Algorithm::reference, Algorithm::matrix_driven, Algorithm::vector_driven}) {
      Problem<double, std::int32_t, std::int32_t> p;
      p.op = c.op;
      p.semiring = c.s;
      p.A = A;
      p.At = &At;
      p.x.size = 3;
      p.x.nnz = 2;
      p.x.format = VectorFormat::unsorted;
      p.x.indices = xi.data();
      p.x.values = xv.data();
      std::vector<double> y(3, 99);
      Output<double, std::int32_t> out;
      out.format = OutputFormat::dense;
      out.size = 3;
      out.dense = y.data();
      Workspace<double, std::int32_t> ws;
      multiply(alg, p, out, ws);
      EXPECT_EQ(y, c.want) << semiring_name(c.s) << " " << op_name(c.op) << " "
                           << algorithm_name(alg);
      // Mask {1, 0, 1} complemented: only y1 may be written; others get the identity.
      std::vector<std::uint8_t> mask = {1, 0, 1};
      p.mask.values = mask.data();
      p.mask.size = 3;
      p.mask.complement = true;
      multiply(alg, p, out, ws);
      const double id = (c.s == Semiring::min_first || c.s == Semiring::min_second) ? inf : 0.0;
      EXPECT_EQ(y, (std::vector<double>{id, c.want[1], id})) << semiring_name(c.s);
    }
}

// Every bad input: the expected status, y untouched, and the next good call still right.
TYPED_TEST(Spmspv, BadInputsChangeNothing) {
  HOLA_TYPES;
  const auto m = gen::random_rect(40, 50, 4, 31).convert<V, I, O>();
  const auto A = m.view();
  ColumnView<V, I, O> cv;
  cv.build(A);
  const auto At = cv.transposed_view();
  TestVector<V, I> tv(50, 0.3, 32);
  std::vector<std::uint8_t> mask(40, 1);
  auto good = [&](VectorFormat f) {
    Problem<V, I, O> p;
    p.A = A;
    p.At = &At;
    p.x = tv.view(f);
    return p;
  };
  struct Bad {
    std::string what;
    status expected;
    std::function<void(Problem<V, I, O>&, Output<V, I>&)> change;
    std::vector<I> idx;  // replacement indices, if any
    VectorFormat format = VectorFormat::sorted;
  };
  auto with_idx = [&](std::vector<I> idx) { return idx; };
  std::vector<I> sorted = tv.sorted_idx;
  std::vector<Bad> bads;
  {
    auto out_of_range = sorted;
    out_of_range.back() = I(50);
    bads.push_back({"index == size", status::invalid_argument, nullptr, out_of_range});
    auto negative = tv.unsorted_idx;
    negative[3] = I(-1);
    bads.push_back(
        {"negative index", status::invalid_argument, nullptr, negative, VectorFormat::unsorted});
    auto dup = sorted;
    dup[4] = dup[3];
    bads.push_back({"duplicate (sorted)", status::invalid_argument, nullptr, dup});
    auto unordered = sorted;
    std::swap(unordered[2], unordered[5]);
    bads.push_back({"unsorted in sorted", status::invalid_argument, nullptr, unordered});
    auto udup = tv.unsorted_idx;
    udup[7] = udup[1];
    bads.push_back(
        {"duplicate (unsorted)", status::invalid_argument, nullptr, udup, VectorFormat::unsorted});
  }
  bads.push_back(
      {"x size", status::size_mismatch, [](auto& p, auto&) { p.x.size = 49; }, with_idx({})});
  bads.push_back({"y size", status::size_mismatch, [](auto&, auto& y) { y.size = 41; }, {}});
  bads.push_back({"mask size",
                  status::size_mismatch,
                  [&](auto& p, auto&) {
                    p.mask.values = mask.data();
                    p.mask.size = 39;
                  },
                  {}});
  bads.push_back({"complement without mask",
                  status::invalid_argument,
                  [](auto& p, auto&) { p.mask.complement = true; },
                  {}});
  bads.push_back(
      {"nnz > size", status::invalid_argument, [](auto& p, auto&) { p.x.nnz = 51; }, {}});
  bads.push_back({"null indices",
                  status::invalid_argument,
                  [](auto& p, auto&) { p.x.indices = nullptr; },
                  {}});
  bads.push_back({"bad semiring",
                  status::invalid_argument,
                  [](auto& p, auto&) { p.semiring = static_cast<Semiring>(9); },
                  {}});
  bads.push_back({"transposed view of another shape",
                  status::size_mismatch,
                  [&](auto& p, auto&) { p.At = &A; },
                  {}});
  bads.push_back({"capacity too small / null dense y",
                  status::invalid_argument,
                  [](auto&, auto& y) {
                    if (y.format == OutputFormat::sparse)
                      y.capacity = 1;
                    else
                      y.dense = nullptr;
                  },
                  {}});
  std::vector<std::uint32_t> tail_bits = tv.bits;
  tail_bits.back() |= 1u << 31;  // 50 % 32 = 18: bit 31 of the last word is past the end
  bads.push_back({"bitmap bit past the end",
                  status::invalid_argument,
                  [&](auto& p, auto&) {
                    p.x = tv.view(VectorFormat::bitmap);
                    p.x.bits = tail_bits.data();
                  },
                  {}});
  bads.push_back({"bitmap popcount != nnz",
                  status::invalid_argument,
                  [&](auto& p, auto&) {
                    p.x = tv.view(VectorFormat::bitmap);
                    p.x.nnz -= 1;
                  },
                  {}});
  for (Algorithm alg : {Algorithm::reference, Algorithm::matrix_driven, Algorithm::vector_driven})
    for (OutputFormat of : {OutputFormat::dense, OutputFormat::sparse})
      for (const auto& b : bads) {
        Workspace<V, I> ws;
        auto p = good(b.format);
        std::vector<I> idx = b.idx;
        if (!idx.empty()) p.x.indices = idx.data();
        TestOutput<V, I> y(40, of, true);
        if (b.change) b.change(p, y.out);
        const auto before_d = y.dense;
        const auto before_v = y.values;
        const auto before_i = y.indices;
        EXPECT_EQ(status_of([&] { multiply(alg, p, y.out, ws); }), b.expected)
            << b.what << " " << algorithm_name(alg);
        EXPECT_TRUE(y.dense == before_d && y.values == before_v && y.indices == before_i)
            << b.what << ": y changed";
        // The same workspace still gives right answers (its flags were restored).
        auto q = good(VectorFormat::unsorted);
        TestOutput<V, I> y2(40, of, true);
        multiply(alg, q, y2.out, ws);
        EXPECT_EQ(compare_with_reference(q, y2.out), "") << "after " << b.what;
      }
  // Aliasing: y's values over x's values.
  {
    auto p = good(VectorFormat::sorted);
    std::vector<V> shared(100, V(1));
    std::copy(tv.sorted_val.begin(), tv.sorted_val.end(), shared.begin());
    p.x.values = shared.data();
    Output<V, I> y;
    y.format = OutputFormat::dense;
    y.size = 40;
    y.dense = shared.data() + 5;
    Workspace<V, I> ws;
    const auto before = shared;
    EXPECT_EQ(status_of([&] { multiply(Algorithm::vector_driven, p, y, ws); }), status::aliasing);
    EXPECT_EQ(shared, before);
  }
  // Kernels that need the column view refuse to run without it.
  {
    auto p = good(VectorFormat::sorted);
    p.At = nullptr;
    TestOutput<V, I> y(40, OutputFormat::dense, true);
    Workspace<V, I> ws;
    EXPECT_EQ(status_of([&] { multiply(Algorithm::vector_driven, p, y.out, ws); }),
              status::invalid_argument);
  }
}

// The comparison the tests rely on must see a changed value, a missing entry and a false
// sorted flag.
TEST(SpmspvSmall, CompareDetectsDifferences) {
  const auto m = gen::poisson2d(8, 8);
  TestVector<double, std::int64_t> tv(64, 0.2, 3);
  Problem<double, std::int64_t, std::int64_t> p;
  p.A = m.view();
  p.x = tv.view(VectorFormat::sorted);
  TestOutput<double, std::int64_t> y(64, OutputFormat::sparse, true);
  Workspace<double, std::int64_t> ws;
  multiply(Algorithm::matrix_driven, p, y.out, ws);
  ASSERT_EQ(compare_with_reference(p, y.out), "");
  ASSERT_GT(y.out.nnz, 2);
  y.values[1] += 1e-6;
  EXPECT_NE(compare_with_reference(p, y.out), "");
  y.values[1] -= 1e-6;
  y.out.nnz -= 1;
  EXPECT_NE(compare_with_reference(p, y.out), "");
  y.out.nnz += 1;
  std::swap(y.indices[0], y.indices[1]);
  std::swap(y.values[0], y.values[1]);
  EXPECT_NE(compare_with_reference(p, y.out), "");
  y.out.want_sorted = false;
  y.out.sorted = false;
  EXPECT_EQ(compare_with_reference(p, y.out), "");
  TestOutput<double, std::int64_t> d(64, OutputFormat::dense, true);
  multiply(Algorithm::matrix_driven, p, d.out, ws);
  ASSERT_EQ(compare_with_reference(p, d.out), "");
  d.dense[5] = d.dense[5] == 0 ? 1 : 0;
  EXPECT_NE(compare_with_reference(p, d.out), "");
}

TEST(SpmspvSmall, ColumnViewRefreshAndMemory) {
  auto m = gen::banded_normal(500, 7, 20.0, 41);
  ColumnView<double, std::int64_t, std::int64_t> cv;
  cv.build(m.view());
  EXPECT_EQ(cv.bytes(), (501 + m.nnz()) * 8 + m.nnz() * 16);
  for (auto& v : m.values) v *= 3;
  cv.refresh_values(m.view());
  ColumnView<double, std::int64_t, std::int64_t> fresh;
  fresh.build(m.view());
  EXPECT_EQ(cv.values, fresh.values);
  EXPECT_EQ(cv.row_idx, fresh.row_idx);
}

TEST(SpmspvSmall, SelectionRule) {
  VectorFeatures f;
  f.matrix_nnz = 1000000;
  f.touched_nnz = 1000;
  EXPECT_EQ(select_algorithm(f), Algorithm::vector_driven);
  f.touched_nnz = 400000;
  EXPECT_EQ(select_algorithm(f), Algorithm::matrix_driven);
  f.allowed_fraction = 0.001;
  f.touched_nnz = 1000;
  EXPECT_EQ(select_algorithm(f), Algorithm::matrix_driven);
  f.touched_nnz = -1;
  f.allowed_fraction = 1;
  EXPECT_EQ(select_algorithm(f), Algorithm::matrix_driven);
}

TYPED_TEST(Spmspv, OperatorSelectsAndMatchesReference) {
  HOLA_TYPES;
  auto m = gen::rmat(11, 8, 71).convert<V, I, O>();
  SpmspvOperator<V, I, O> op;
  EXPECT_FALSE(op.is_setup());
  op.setup(m.view());
  EXPECT_GT(op.column_view_bytes(), 0u);
  for (Op o : {Op::N, Op::T}) {
    for (double density : {0.0005, 0.01, 0.5, 1.0}) {
      TestVector<V, I> tv(m.rows, density, 72);
      TestOutput<V, I> y(m.rows, OutputFormat::sparse, true);
      const auto x = tv.view(VectorFormat::sorted);
      op.apply(o, Semiring::plus_times, x, y.out);
      Problem<V, I, O> p;
      p.op = o;
      p.A = m.view();
      p.x = x;
      EXPECT_EQ(compare_with_reference(p, y.out), "") << op.last_reason();
      // The rule: tiny x -> vector-driven, full x -> matrix-driven.
      if (density == 0.0005) EXPECT_EQ(op.last_algorithm(), Algorithm::vector_driven);
      if (density == 1.0) EXPECT_EQ(op.last_algorithm(), Algorithm::matrix_driven);
      EXPECT_FALSE(op.last_reason().empty());
    }
  }
  // Same structure, new values: setup refreshes the column view's values.
  for (auto& v : m.values) v = -v;
  op.setup(m.view());
  TestVector<V, I> tv(m.rows, 0.3, 73);
  const auto x = tv.view(VectorFormat::unsorted);
  for (Op o : {Op::N, Op::T}) {
    Problem<V, I, O> p;
    p.op = o;
    p.A = m.view();
    p.x = x;
    for (const char* k : {"matrix_driven", "vector_driven", "reference"}) {
      SpmspvOptions opt;
      opt.kernel = k;
      SpmspvOperator<V, I, O> forced(opt);
      forced.setup(m.view());
      TestOutput<V, I> y(m.rows, OutputFormat::dense, true);
      forced.apply(o, Semiring::min_first, x, y.out);
      p.semiring = Semiring::min_first;
      EXPECT_EQ(compare_with_reference(p, y.out), "") << k;
    }
    TestOutput<V, I> y(m.rows, OutputFormat::dense, true);
    op.apply(o, Semiring::plus_times, x, y.out);
    p.semiring = Semiring::plus_times;
    EXPECT_EQ(compare_with_reference(p, y.out), "");
  }
  SpmspvOptions bad;
  bad.kernel = "fastest";
  EXPECT_EQ(status_of([&] { SpmspvOperator<V, I, O> b(bad); }), status::invalid_argument);
  SpmspvOperator<V, I, O> fresh;
  TestOutput<V, I> y(m.rows, OutputFormat::dense, true);
  EXPECT_EQ(status_of([&] { fresh.apply(Op::N, Semiring::or_and, x, y.out); }),
            status::invalid_argument);
  // Without the column view, op N runs matrix-driven and forcing vector-driven is refused.
  SpmspvOptions nocv;
  nocv.column_view = false;
  SpmspvOperator<V, I, O> lean(nocv);
  lean.setup(m.view());
  EXPECT_EQ(lean.column_view_bytes(), 0u);
  TestVector<V, I> tiny(m.rows, 0.0005, 74);
  lean.apply(Op::N, Semiring::plus_times, tiny.view(VectorFormat::sorted), y.out);
  EXPECT_EQ(lean.last_algorithm(), Algorithm::matrix_driven);
  nocv.kernel = "vector_driven";
  SpmspvOperator<V, I, O> lean2(nocv);
  lean2.setup(m.view());
  EXPECT_EQ(status_of([&] {
              lean2.apply(Op::N, Semiring::plus_times, tiny.view(VectorFormat::sorted), y.out);
            }),
            status::unsupported);
}

// The candidate list names every kernel once, with its memory, in the gpu::Kernel order the
// trees predict in.
TEST(SpmspvGpuSelection, CandidatesAndTreeKernels) {
  for (int k = 0; k < 5; ++k) {
    const std::string name = spmspv::gpu::kernel_name(static_cast<spmspv::gpu::Kernel>(k));
    int found = 0;
    for (const auto& c : candidates())
      if (name == c.name) {
        ++found;
        EXPECT_EQ(c.memory, Memory::device) << name;
      }
    EXPECT_EQ(found, 1) << name;
    if (k < 4) EXPECT_EQ(name, detail::kSpmspvTreeKernels[k]);
  }
  for (Algorithm a : {Algorithm::reference, Algorithm::matrix_driven, Algorithm::vector_driven}) {
    int found = 0;
    for (const auto& c : candidates())
      if (std::string(algorithm_name(a)) == c.name) {
        ++found;
        EXPECT_EQ(c.memory, Memory::host);
      }
    EXPECT_EQ(found, 1) << algorithm_name(a);
  }
  EXPECT_EQ(candidates().size(), 8u);
}

GpuCallFeatures features_of(const detail::SpmspvTreeCase& c) {
  GpuCallFeatures f;
  f.nnz_x = c.nnz_x;
  f.nnz = c.nnz;
  f.n_in = c.n_in;
  f.n_out = c.n_out;
  f.max_len = c.max_len;
  f.std_len = c.std_len;
  f.densify_ms = c.densify_ms;
  f.transpose = c.transpose;
  f.sparse_output = c.sparse_output;
  f.allowed_fraction = c.allowed_fraction;
  f.single_precision = c.single_precision;
  return f;
}

// The C++ trees and rule give the Python's predictions and picks on the training cases the
// generator wrote out (bench/selector/train_spmspv.py --out-cases).
TEST(SpmspvGpuSelection, TreesMatchTheTrainingScript) {
  const bool all[5] = {true, true, true, true, true};
  int checked = 0;
  for (const auto& c : detail::kSpmspvTreeCases) {
    if (!c.pick) continue;  // a generated file without cases
    const GpuSelection s = select_gpu_kernel(features_of(c), all);
    EXPECT_TRUE(s.from_tree);
    for (int k = 0; k < 4; ++k)
      EXPECT_DOUBLE_EQ(s.predicted[k], c.predicted[k]) << "case " << checked << " kernel " << k;
    EXPECT_STREQ(spmspv::gpu::kernel_name(s.kernel), c.pick) << "case " << checked;
    ++checked;
  }
  EXPECT_GT(checked, 20);
  std::printf("%d generated cases (%s)\n", checked, detail::kSpmspvTreeProvenance);
}

// The rule around the trees, for every availability pattern on every generated case: a sparse
// kernel is picked only when available, of least prediction among the available ones, and (when
// densify can run) predicted faster than densify by the margin; densify otherwise.
TEST(SpmspvGpuSelection, DensifyUnlessASparseKernelIsPredictedFasterByTheMargin) {
  int sparse_picks = 0, densify_picks = 0;
  for (const auto& c : detail::kSpmspvTreeCases) {
    if (!c.pick) continue;
    for (int pattern = 1; pattern < 32; ++pattern) {
      bool available[5];
      for (int k = 0; k < 5; ++k) available[k] = (pattern >> k) & 1;
      const GpuSelection s = select_gpu_kernel(features_of(c), available);
      const int picked = static_cast<int>(s.kernel);
      ASSERT_TRUE(available[picked]) << pattern;
      double least = std::numeric_limits<double>::infinity();
      for (int k = 0; k < 4; ++k)
        if (available[k]) least = std::min(least, s.predicted[k]);
      const double bar = -std::log2(s.margin);
      if (picked == 4) {
        ++densify_picks;
        EXPECT_FALSE(least < bar) << "densify picked although a sparse kernel is predicted "
                                  << least << " < " << bar;
      } else {
        ++sparse_picks;
        EXPECT_EQ(s.predicted[picked], least) << pattern;
        if (available[4]) EXPECT_LT(s.predicted[picked], bar) << pattern;
      }
    }
  }
  // Both outcomes occur on the training cases (else the test would check one branch only).
  EXPECT_GT(sparse_picks, 0);
  EXPECT_GT(densify_picks, 0);
}

// Host memory with a device kernel, unknown names, device memory without a usable GPU.
TEST(SpmspvGpuSelection, KernelNamesAndMemory) {
  const auto m = gen::poisson2d(6, 5).convert<double, std::int32_t, std::int32_t>();
  SpmspvOptions o;
  o.kernel = "vector_balanced";
  SpmspvOperator<double, std::int32_t, std::int32_t> op(o);
  EXPECT_EQ(status_of([&] { op.setup(m.view()); }), status::unsupported);
  o.kernel = "auto";
  SpmspvOperator<double, std::int32_t, std::int32_t> host(o);
  host.setup(m.view());
  EXPECT_EQ(host.memory(), Memory::host);
  EXPECT_EQ(host.densify_ms(Op::N), -1.0);
  EXPECT_EQ(status_of([&] { host.set_kernel("fastest"); }), status::invalid_argument);
  host.set_kernel("densify");  // a device kernel: refused at the next apply on host memory
  TestVector<double, std::int32_t> tv(30, 0.2, 3);
  TestOutput<double, std::int32_t> y(30, OutputFormat::dense, true);
  EXPECT_EQ(status_of([&] {
              host.apply(Op::N, Semiring::plus_times, tv.view(VectorFormat::sorted), y.out);
            }),
            status::unsupported);
  host.set_kernel("reference");
  host.apply(Op::N, Semiring::plus_times, tv.view(VectorFormat::sorted), y.out);
  EXPECT_STREQ(host.last_kernel(), "reference");
  if (!hola::gpu::gpu_available()) {
    auto dev = m.view();
    dev.memory = Memory::device;
    SpmspvOperator<double, std::int32_t, std::int32_t> d;
    EXPECT_EQ(status_of([&] { d.setup(dev); }), status::no_device);
  }
}

TEST(SpmspvCApi, ApplyAndErrors) {
  const auto m = gen::poisson2d(10, 10).convert<double, std::int32_t, std::int64_t>();
  hola_spmspv op = nullptr;
  ASSERT_EQ(hola_spmspv_create(&op, HOLA_FLOAT64, HOLA_INT32, HOLA_INT64, nullptr, 1),
            HOLA_SUCCESS);
  ASSERT_EQ(hola_spmspv_setup(op, m.rows, m.cols, m.nnz(), m.row_ptr.data(), m.col_idx.data(),
                              m.values.data(), 0),
            HOLA_SUCCESS);
  std::vector<std::int32_t> xi = {3, 50, 99};
  std::vector<double> xv = {1.0, -2.0, 0.5};
  hola_sparse_vector x{100, 3, HOLA_SPVEC_SORTED, xi.data(), xv.data(), nullptr};
  std::vector<std::int32_t> yi(100, -1);
  std::vector<double> yv(100, -1);
  hola_spmspv_output y{};
  y.size = 100;
  y.indices = yi.data();
  y.values = yv.data();
  y.capacity = 100;
  y.want_sorted = 1;
  ASSERT_EQ(hola_spmspv_apply(op, HOLA_OP_N, HOLA_SEMIRING_PLUS_TIMES, &x, nullptr, &y),
            HOLA_SUCCESS);
  EXPECT_EQ(y.sorted, 1);
  // Rows touching columns 3, 50, 99 of the 5-point Laplacian: 3 + 5 + 3 entries, none shared.
  EXPECT_EQ(y.nnz, 11);
  const char* name = nullptr;
  ASSERT_EQ(hola_spmspv_last_kernel(op, &name), HOLA_SUCCESS);
  EXPECT_EQ(std::string(name), "vector_driven");
  // Compare with the C++ reference.
  Problem<double, std::int32_t, std::int64_t> p;
  p.A = m.view();
  p.x.size = 100;
  p.x.nnz = 3;
  p.x.indices = xi.data();
  p.x.values = xv.data();
  Output<double, std::int32_t> out;
  out.size = 100;
  out.indices = yi.data();
  out.values = yv.data();
  out.capacity = 100;
  out.nnz = y.nnz;
  out.sorted = true;
  EXPECT_EQ(compare_with_reference(p, out), "");
  // Errors: index out of range (nothing written), bad enums, null handle.
  const auto yi_before = yi;
  const auto yv_before = yv;
  xi[2] = 100;
  EXPECT_EQ(hola_spmspv_apply(op, HOLA_OP_N, HOLA_SEMIRING_PLUS_TIMES, &x, nullptr, &y),
            HOLA_INVALID_ARGUMENT);
  EXPECT_NE(std::string(hola_spmspv_last_error()).find("outside"), std::string::npos);
  EXPECT_EQ(yi, yi_before);
  EXPECT_EQ(yv, yv_before);
  xi[2] = 99;
  hola_spmspv_mask mask{nullptr, 0, 1, -1};
  EXPECT_EQ(hola_spmspv_apply(op, HOLA_OP_N, HOLA_SEMIRING_PLUS_TIMES, &x, &mask, &y),
            HOLA_INVALID_ARGUMENT);
  EXPECT_EQ(hola_spmspv_apply(op, HOLA_OP_N, static_cast<hola_semiring>(17), &x, nullptr, &y),
            HOLA_INVALID_ARGUMENT);
  x.format = static_cast<hola_spvec_format>(9);
  EXPECT_EQ(hola_spmspv_apply(op, HOLA_OP_N, HOLA_SEMIRING_OR_AND, &x, nullptr, &y),
            HOLA_INVALID_ARGUMENT);
  x.format = HOLA_SPVEC_SORTED;
  x.size = 99;
  EXPECT_EQ(hola_spmspv_apply(op, HOLA_OP_T, HOLA_SEMIRING_OR_AND, &x, nullptr, &y),
            HOLA_SIZE_MISMATCH);
  EXPECT_EQ(hola_spmspv_apply(nullptr, HOLA_OP_N, HOLA_SEMIRING_OR_AND, &x, nullptr, &y),
            HOLA_INVALID_ARGUMENT);
  EXPECT_EQ(hola_spmspv_apply(op, HOLA_OP_N, HOLA_SEMIRING_OR_AND, nullptr, nullptr, &y),
            HOLA_INVALID_ARGUMENT);
  // Setup with an explicit memory kind: an unknown one is refused; host memory as before.
  x.size = 100;
  EXPECT_EQ(
      hola_spmspv_setup_on_stream(op, m.rows, m.cols, m.nnz(), m.row_ptr.data(), m.col_idx.data(),
                                  m.values.data(), static_cast<hola_memory>(7), 0, nullptr),
      HOLA_INVALID_ARGUMENT);
  ASSERT_EQ(
      hola_spmspv_setup_on_stream(op, m.rows, m.cols, m.nnz(), m.row_ptr.data(), m.col_idx.data(),
                                  m.values.data(), HOLA_MEMORY_HOST, 0, nullptr),
      HOLA_SUCCESS);
  ASSERT_EQ(hola_spmspv_apply_on_stream(op, HOLA_OP_N, HOLA_SEMIRING_PLUS_TIMES, &x, nullptr, &y,
                                        nullptr),
            HOLA_SUCCESS);
  EXPECT_EQ(y.nnz, 11);
  if (!hola::gpu::gpu_available())
    EXPECT_EQ(
        hola_spmspv_setup_on_stream(op, m.rows, m.cols, m.nnz(), m.row_ptr.data(), m.col_idx.data(),
                                    m.values.data(), HOLA_MEMORY_DEVICE, 0, nullptr),
        HOLA_NO_DEVICE);
  EXPECT_EQ(hola_spmspv_set_validate_vectors(op, 1), HOLA_SUCCESS);
  EXPECT_EQ(hola_spmspv_set_validate_vectors(nullptr, 1), HOLA_INVALID_ARGUMENT);
  // Deterministic mode: the host path is unchanged by it (its kernels are deterministic for a
  // fixed thread count); the device path is tested in tests/gpu/spmspv_gpu_test.cu.
  EXPECT_EQ(hola_spmspv_set_deterministic(op, 1), HOLA_SUCCESS);
  EXPECT_EQ(hola_spmspv_set_deterministic(nullptr, 1), HOLA_INVALID_ARGUMENT);
  ASSERT_EQ(hola_spmspv_apply_on_stream(op, HOLA_OP_N, HOLA_SEMIRING_PLUS_TIMES, &x, nullptr, &y,
                                        nullptr),
            HOLA_SUCCESS);
  EXPECT_EQ(y.nnz, 11);
  EXPECT_EQ(hola_spmspv_destroy(op), HOLA_SUCCESS);
  hola_spmspv op2 = nullptr;
  EXPECT_EQ(
      hola_spmspv_create(&op2, static_cast<hola_value_type>(5), HOLA_INT32, HOLA_INT32, nullptr, 0),
      HOLA_UNSUPPORTED);
  EXPECT_EQ(op2, nullptr);
  EXPECT_EQ(hola_spmspv_create(&op2, HOLA_FLOAT32, HOLA_INT32, HOLA_INT32, "nope", 0),
            HOLA_INVALID_ARGUMENT);
  // Invalid CSR at setup.
  ASSERT_EQ(hola_spmspv_create(&op2, HOLA_FLOAT64, HOLA_INT32, HOLA_INT64, "auto", 0),
            HOLA_SUCCESS);
  auto bad_cols = m.col_idx;
  bad_cols[5] = 1000;
  EXPECT_EQ(hola_spmspv_setup(op2, m.rows, m.cols, m.nnz(), m.row_ptr.data(), bad_cols.data(),
                              m.values.data(), 0),
            HOLA_INVALID_CSR);
  hola_spmspv_destroy(op2);
}

// Plain queue BFS levels (the test's own reference).
std::vector<std::int64_t> queue_levels(const gen::Csr64& m, std::int64_t root) {
  std::vector<std::int64_t> level(static_cast<std::size_t>(m.rows), -1);
  std::queue<std::int64_t> q;
  level[root] = 0;
  q.push(root);
  while (!q.empty()) {
    const auto u = q.front();
    q.pop();
    for (auto k = m.row_ptr[u]; k < m.row_ptr[u + 1]; ++k)
      if (level[m.col_idx[k]] < 0) {
        level[m.col_idx[k]] = level[u] + 1;
        q.push(m.col_idx[k]);
      }
  }
  return level;
}

// A + A^T pattern (undirected graph), values 1.
gen::Csr64 symmetrize(const gen::Csr64& m) {
  std::vector<std::vector<std::int64_t>> adj(static_cast<std::size_t>(m.rows));
  for (std::int64_t r = 0; r < m.rows; ++r)
    for (auto k = m.row_ptr[r]; k < m.row_ptr[r + 1]; ++k) {
      adj[r].push_back(m.col_idx[k]);
      adj[m.col_idx[k]].push_back(r);
    }
  gen::Csr64 s;
  s.rows = s.cols = m.rows;
  for (auto& a : adj) {
    std::sort(a.begin(), a.end());
    a.erase(std::unique(a.begin(), a.end()), a.end());
    for (auto c : a) {
      s.col_idx.push_back(c);
      s.values.push_back(1.0);
    }
    s.row_ptr.push_back(static_cast<std::int64_t>(s.col_idx.size()));
  }
  return s;
}

TEST(SpmspvGraph, BfsParentsAndLevels) {
  const std::vector<std::pair<std::string, gen::Csr64>> graphs = {
      {"rmat directed", gen::rmat(11, 16, 51)},
      {"rmat undirected", symmetrize(gen::rmat(12, 16, 52))},
      {"poisson2d", gen::poisson2d(40, 30)},
      {"circuit", gen::circuit(3000, 53, 0.3, 2, 500)},
      {"banded", gen::banded_normal(5000, 4, 50.0, 54)},
  };
  int runs = 0;
  for (const auto& [name, g] : graphs) {
    const auto A = g.view();
    for (std::int64_t root : {std::int64_t(0), g.rows / 3, g.rows - 1}) {
      const auto want = queue_levels(g, root);
      for (BfsDirection d : {BfsDirection::automatic, BfsDirection::push, BfsDirection::pull}) {
        BfsOptions o;
        o.direction = d;
        const auto r = bfs(A, root, o);
        EXPECT_EQ(check_bfs_parents(A, root, r.parent), "") << name << " root " << root;
        EXPECT_EQ(r.level, want) << name << " root " << root << " direction " << int(d);
        EXPECT_EQ(r.reached,
                  std::count_if(want.begin(), want.end(), [](auto l) { return l >= 0; }));
        ++runs;
      }
    }
  }
  // Symmetric option: pull on A itself.
  const auto s = symmetrize(gen::rmat(10, 8, 55));
  BfsOptions o;
  o.direction = BfsDirection::pull;
  o.symmetric = true;
  const auto r = bfs(s.view(), 3, o);
  EXPECT_EQ(check_bfs_parents(s.view(), 3, r.parent), "");
  EXPECT_EQ(r.level, queue_levels(s, 3));
  EXPECT_GT(runs, 40);
}

// The validator itself must reject broken parent arrays.
TEST(SpmspvGraph, ParentCheckRejectsBrokenTrees) {
  const auto g = gen::poisson2d(6, 6);
  const auto A = g.view();
  const auto good = bfs(A, 0).parent;
  ASSERT_EQ(check_bfs_parents(A, 0, good), "");
  auto bad = good;
  bad[0] = 1;  // root not its own parent
  EXPECT_NE(check_bfs_parents(A, 0, bad), "");
  bad = good;
  bad[35] = 0;  // no edge 0 -> 35
  EXPECT_NE(check_bfs_parents(A, 0, bad), "");
  bad = good;
  bad[35] = -1;  // reached vertex left out
  EXPECT_NE(check_bfs_parents(A, 0, bad), "");
  bad = good;
  bad[1] = 2;
  bad[2] = 1;  // cycle
  EXPECT_NE(check_bfs_parents(A, 0, bad), "");
  bad = good;
  bad[7] = 6;  // an edge, but skips a level (6 is at level 1, 7 at level 2 -> fine) or not
  const auto lv = queue_levels(g, 0);
  if (lv[6] + 1 != lv[7]) EXPECT_NE(check_bfs_parents(A, 0, bad), "");
  bad = good;
  bad[14] = 13;  // 13 -> 14 is an edge; 13 is at level 3, 14 at level 4: valid alternative parent
  EXPECT_EQ(check_bfs_parents(A, 0, bad), "");
  EXPECT_EQ(status_of([&] { bfs(A, 36); }), status::invalid_argument);
  // A broken matrix is refused unless validation is turned off.
  auto broken = g;
  broken.col_idx[3] = 99;
  EXPECT_EQ(status_of([&] { bfs(broken.view(), 0); }), status::invalid_csr);
  EXPECT_EQ(status_of([&] { bfs(gen::random_rect(5, 6, 2, 1).view(), 0); }), status::size_mismatch);
}

// Straightforward PageRank (push form, sequential) as the reference.
std::vector<double> simple_pagerank(const gen::Csr64& g, double d, int iters,
                                    const std::vector<double>& pers) {
  const std::int64_t n = g.rows;
  std::vector<double> p(static_cast<std::size_t>(n), 1.0 / double(n));
  if (!pers.empty()) {
    const double s = std::accumulate(pers.begin(), pers.end(), 0.0);
    for (std::int64_t i = 0; i < n; ++i) p[i] = pers[i] / s;
  }
  std::vector<double> r = p;
  for (int it = 0; it < iters; ++it) {
    std::vector<double> nx(static_cast<std::size_t>(n), 0.0);
    double dangling = 0;
    for (std::int64_t i = 0; i < n; ++i) {
      const auto deg = g.row_ptr[i + 1] - g.row_ptr[i];
      if (deg == 0) dangling += r[i];
      for (auto k = g.row_ptr[i]; k < g.row_ptr[i + 1]; ++k) nx[g.col_idx[k]] += r[i] / double(deg);
    }
    for (std::int64_t i = 0; i < n; ++i) nx[i] = d * (nx[i] + dangling * p[i]) + (1 - d) * p[i];
    r = nx;
  }
  return r;
}

TEST(SpmspvGraph, PageRankMatchesSimpleReference) {
  for (const auto& g : {gen::rmat(10, 8, 61), gen::circuit(2000, 62, 0.3, 2, 300)}) {
    std::vector<double> pers;
    for (int variant = 0; variant < 2; ++variant) {
      PageRankOptions o;
      o.tolerance = 0;
      o.max_iterations = 60;
      if (variant == 1) {
        pers.assign(static_cast<std::size_t>(g.rows), 0.0);
        pers[0] = 2;
        pers[5] = 1;
        o.personalization = pers;
      }
      const auto r = pagerank(g.view(), o);
      const auto want = simple_pagerank(g, 0.85, 60, variant == 1 ? pers : std::vector<double>{});
      ASSERT_EQ(r.rank.size(), want.size());
      double sum = 0;
      for (std::size_t i = 0; i < want.size(); ++i) {
        EXPECT_NEAR(r.rank[i], want[i], 1e-12) << i;
        sum += r.rank[i];
      }
      EXPECT_NEAR(sum, 1.0, 1e-10);
      EXPECT_EQ(r.iterations, 60);
    }
  }
  // Converges below the tolerance and stops early.
  PageRankOptions o;
  o.tolerance = 1e-8;
  const auto r = pagerank(gen::rmat(9, 8, 63).view(), o);
  EXPECT_LT(r.change, 1e-8);
  EXPECT_LT(r.iterations, o.max_iterations);
  o.damping = 1.0;
  EXPECT_EQ(status_of([&] { pagerank(gen::rmat(5, 4, 1).view(), o); }), status::invalid_argument);
}

}  // namespace
}  // namespace hola::test
