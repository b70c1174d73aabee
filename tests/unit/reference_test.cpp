// The sequential reference against small hand-computed products, for every type combination.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "hola/error.hpp"
#include "hola/reference.hpp"
#include "small_csr.hpp"
#include "type_lists.hpp"

namespace {

using hola::CsrMatrix;
using hola::CsrView;
using hola::Op;

using hola::test::AllTypes;

template <class T>
class ReferenceTest : public ::testing::Test {
 protected:
  HOLA_TYPES_OF(T);
  using Matrix = CsrMatrix<V, I, O>;

  // make(rows, cols, row_ptr, col_idx, values).
  static constexpr auto make = &hola::test::make_csr<V, I, O>;
  // 3 x 4, an empty row and an unsorted row:
  //   [1 0 2  0]
  //   [0 0 0  0]
  //   [4 3 0 -1]
  static Matrix small() { return make(3, 4, {0, 2, 2, 5}, {0, 2, 1, 3, 0}, {1, 2, 3, -1, 4}); }
  static V nan() { return std::numeric_limits<V>::quiet_NaN(); }
};
TYPED_TEST_SUITE(ReferenceTest, AllTypes);

template <class V>
void expect_vec(const std::vector<V>& got, const std::vector<V>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t i = 0; i < got.size(); ++i) EXPECT_EQ(got[i], want[i]) << "entry " << i;
}

TYPED_TEST(ReferenceTest, OpNBetaZeroIgnoresNaN) {
  using V = typename TestFixture::V;
  auto A = this->small();
  std::vector<V> x{1, 2, 3, 4}, y(3, this->nan());
  hola::reference::spmv<V>(Op::N, V(1), A.view(), x.data(), V(0), y.data(), y.data());
  expect_vec<V>(y, {7, 0, 6});
  std::vector<V> z(3, this->nan());
  hola::reference::spmv<V>(Op::N, V(-2), A.view(), x.data(), V(0), nullptr, z.data());
  expect_vec<V>(z, {-14, 0, -12});
}

TYPED_TEST(ReferenceTest, OpNAlphaBetaDistinctAndInPlace) {
  using V = typename TestFixture::V;
  auto A = this->small();
  std::vector<V> x{1, 2, 3, 4}, y{1, 1, 1}, z(3, this->nan());
  hola::reference::spmv<V>(Op::N, V(2), A.view(), x.data(), V(-1), y.data(), z.data());
  expect_vec<V>(z, {13, -1, 11});
  expect_vec<V>(y, {1, 1, 1});  // y_in untouched
  hola::reference::spmv<V>(Op::N, V(2), A.view(), x.data(), V(-1), y.data(), y.data());
  expect_vec<V>(y, {13, -1, 11});
  // PETSc's z = y + A x.
  std::vector<V> w{10, 20, 30}, out(3, this->nan());
  hola::reference::spmv_add(A.view(), x.data(), w.data(), out.data());
  expect_vec<V>(out, {17, 20, 36});
  hola::reference::spmv_add(A.view(), x.data(), w.data(), w.data());
  expect_vec<V>(w, {17, 20, 36});
}

TYPED_TEST(ReferenceTest, OpT) {
  using V = typename TestFixture::V;
  auto A = this->small();
  std::vector<V> x{1, 2, 3}, y(4, this->nan());
  // A^T x = [1 + 12, 9, 2, -3].
  hola::reference::spmv<V>(Op::T, V(1), A.view(), x.data(), V(0), y.data(), y.data());
  expect_vec<V>(y, {13, 9, 2, -3});
  std::vector<V> w{1, 2, 3, 4};
  hola::reference::spmv<V>(Op::T, V(0.5), A.view(), x.data(), V(2), w.data(), w.data());
  expect_vec<V>(w, {8.5, 8.5, 7, 6.5});
  std::vector<V> z(4, this->nan());
  hola::reference::spmv<V>(Op::T, V(1), A.view(), x.data(), V(0), nullptr, z.data());
  expect_vec<V>(z, {13, 9, 2, -3});
}

TYPED_TEST(ReferenceTest, AlphaZeroReadsNeitherAnorX) {
  using V = typename TestFixture::V;
  auto A = this->small();
  A.values[0] = this->nan();
  std::vector<V> xn(4, this->nan()), y{1, 2, 3};
  hola::reference::spmv<V>(Op::N, V(0), A.view(), xn.data(), V(3), y.data(), y.data());
  expect_vec<V>(y, {3, 6, 9});
  std::vector<V> yt(4, this->nan());
  hola::reference::spmv<V>(Op::T, V(0), A.view(), xn.data(), V(0), yt.data(), yt.data());
  expect_vec<V>(yt, {0, 0, 0, 0});
}

TYPED_TEST(ReferenceTest, Rectangular) {
  using V = typename TestFixture::V;
  // Tall 4 x 2 and its transpose shape (wide) through op T.
  auto A = this->make(4, 2, {0, 1, 3, 3, 4}, {1, 0, 1, 0}, {2, 3, -4, 5});
  std::vector<V> x{1, 10}, y(4, this->nan());
  hola::reference::spmv<V>(Op::N, V(1), A.view(), x.data(), V(0), y.data(), y.data());
  expect_vec<V>(y, {20, -37, 0, 5});
  std::vector<V> u{1, 2, 3, 4}, v{1, 1};
  hola::reference::spmv<V>(Op::T, V(1), A.view(), u.data(), V(1), v.data(), v.data());
  // col 0: 3*2 + 5*4 = 26, col 1: 2*1 - 4*2 = -6.
  expect_vec<V>(v, {27, -5});
}

TYPED_TEST(ReferenceTest, Empty) {
  using V = typename TestFixture::V;
  using O = typename TestFixture::O;
  using I = typename TestFixture::I;
  // 0 x 0, with and without a row_ptr array.
  auto Z = this->make(0, 0, {0}, {}, {});
  hola::reference::spmv<V>(Op::N, V(1), Z.view(), nullptr, V(0), nullptr, nullptr);
  hola::reference::spmv<V>(Op::T, V(1), Z.view(), nullptr, V(1), nullptr, nullptr);
  CsrView<V, I, O> null_view;
  hola::reference::spmv<V>(Op::N, V(1), null_view, nullptr, V(0), nullptr, nullptr);
  // 0 x 3: op N has no output, op T gives beta * y.
  auto W = this->make(0, 3, {0}, {}, {});
  std::vector<V> y{1, 2, 3};
  hola::reference::spmv<V>(Op::T, V(1), W.view(), nullptr, V(2), y.data(), y.data());
  expect_vec<V>(y, {2, 4, 6});
  std::vector<V> yn(3, this->nan());
  hola::reference::spmv<V>(Op::T, V(1), W.view(), nullptr, V(0), yn.data(), yn.data());
  expect_vec<V>(yn, {0, 0, 0});
  // 3 x 2 with no nonzeros.
  auto E = this->make(3, 2, {0, 0, 0, 0}, {}, {});
  std::vector<V> x{5, 6}, z(3, this->nan());
  hola::reference::spmv<V>(Op::N, V(1), E.view(), x.data(), V(0), nullptr, z.data());
  expect_vec<V>(z, {0, 0, 0});
  std::vector<V> w{1, -1};
  std::vector<V> xt{1, 2, 3};
  hola::reference::spmv<V>(Op::T, V(1), E.view(), xt.data(), V(-1), w.data(), w.data());
  expect_vec<V>(w, {-1, 1});
}

TYPED_TEST(ReferenceTest, AccumulatesWide) {
  using V = typename TestFixture::V;
  // big + 1 - big cancels to 0 when summed in V; the wide sum keeps the 1 (long double is only
  // wider than double on some targets, e.g. x86's 64-bit mantissa).
  using W = hola::wide_t<V>;
  const int exponent = std::numeric_limits<V>::digits + 2;
  const V big = static_cast<V>(std::ldexp(1.0, exponent));
  auto A = this->make(1, 3, {0, 3}, {0, 1, 2}, {big, 1, -big});
  std::vector<V> x{1, 1, 1}, y(1, this->nan());
  hola::reference::spmv<V>(Op::N, V(1), A.view(), x.data(), V(0), nullptr, y.data());
  if (std::numeric_limits<W>::digits > exponent) {
    EXPECT_EQ(y[0], V(1));
  }
  std::vector<V> xt{1}, yt(3, this->nan());
  hola::reference::spmv<V>(Op::T, V(1), A.view(), xt.data(), V(0), nullptr, yt.data());
  expect_vec<V>(yt, {big, 1, -big});
}

TYPED_TEST(ReferenceTest, AbsBound) {
  using V = typename TestFixture::V;
  auto A = this->small();
  std::vector<V> x{1, -2, 3, -4}, y{-1, 2, -3};
  std::vector<double> b(3);
  hola::reference::spmv_abs_bound<V>(Op::N, V(-2), A.view(), x.data(), V(3), y.data(), b.data());
  // Row 0: 1*1 + 2*3 = 7; row 1: 0; row 2: 4*1 + 3*2 + 1*4 = 14; then 2 * that + |3 y|.
  EXPECT_EQ(b, (std::vector<double>{17, 6, 37}));
  hola::reference::spmv_abs_bound<V>(Op::N, V(1), A.view(), x.data(), V(0), nullptr, b.data());
  EXPECT_EQ(b, (std::vector<double>{7, 0, 14}));
  std::vector<V> xt{1, -2, 3}, yt{1, 1, 1, 1};
  std::vector<double> bt(4);
  hola::reference::spmv_abs_bound<V>(Op::T, V(1), A.view(), xt.data(), V(-1), yt.data(), bt.data());
  // Columns: 1 + 12, 9, 2, 3; plus |-1 * 1|.
  EXPECT_EQ(bt, (std::vector<double>{14, 10, 3, 4}));
  hola::reference::spmv_abs_bound<V>(Op::T, V(0), A.view(), xt.data(), V(0), nullptr, bt.data());
  EXPECT_EQ(bt, (std::vector<double>{0, 0, 0, 0}));
}

TYPED_TEST(ReferenceTest, DeviceMemoryRejected) {
  using V = typename TestFixture::V;
  auto A = this->small();
  auto view = A.view();
  view.memory = hola::Memory::device;
  std::vector<V> x{1, 2, 3, 4}, y(3);
  try {
    hola::reference::spmv<V>(Op::N, V(1), view, x.data(), V(0), nullptr, y.data());
    FAIL() << "no exception";
  } catch (const hola::error& e) {
    EXPECT_EQ(e.code(), hola::status::invalid_argument);
    EXPECT_NE(std::string(e.what()).find("device memory"), std::string::npos) << e.what();
  }
}

}  // namespace
