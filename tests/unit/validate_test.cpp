// CSR validation: every error case with its status and message, and check_no_alias.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "hola/error.hpp"
#include "hola/validate.hpp"
#include "small_csr.hpp"
#include "type_lists.hpp"

namespace {

using hola::CsrMatrix;
using hola::CsrView;
using hola::status;
using hola::ValidationOptions;

template <class T>
class ValidateTest : public ::testing::Test {
 protected:
  HOLA_TYPES_OF(T);
  using View = CsrView<V, I, O>;

  // 3 x 4:  row 0: cols 0, 2; row 1: empty; row 2: cols 1, 3.
  void SetUp() override {
    m_ = hola::test::make_csr<V, I, O>(3, 4, {0, 2, 2, 4}, {0, 2, 1, 3}, {1, 2, 3, 4});
  }
  View view() const { return m_.view(); }

  // check_csr gives `fragment` and validate_csr throws `code` with the same message.
  static void expect_problem(const View& A, status code, const std::string& fragment,
                             const ValidationOptions& options = {}) {
    const std::string msg = hola::check_csr(A, options);
    EXPECT_NE(msg.find(fragment), std::string::npos) << "message: '" << msg << "'";
    try {
      hola::validate_csr(A, options);
      ADD_FAILURE() << "validate_csr did not throw; expected: " << fragment;
    } catch (const hola::error& e) {
      EXPECT_EQ(e.code(), code) << e.what();
      EXPECT_EQ(std::string(e.what()), msg);
    }
  }

  CsrMatrix<V, I, O> m_;
};
TYPED_TEST_SUITE(ValidateTest, hola::test::AllTypes);

TYPED_TEST(ValidateTest, ValidMatricesPass) {
  auto A = this->view();
  EXPECT_EQ(hola::check_csr(A), "");
  EXPECT_EQ(hola::check_csr_shape(A), "");
  EXPECT_NO_THROW(hola::validate_csr(A));
  ValidationOptions strict;
  strict.require_sorted = true;
  EXPECT_NO_THROW(hola::validate_csr(A, strict));
  // Empty views: no row_ptr at all, or row_ptr = {0}; rows without nonzeros.
  typename TestFixture::View empty;
  EXPECT_EQ(hola::check_csr(empty), "");
  empty.cols = 5;
  EXPECT_EQ(hola::check_csr(empty), "");
  const auto z = hola::test::make_csr<typename TestFixture::V, typename TestFixture::I,
                                      typename TestFixture::O>(2, 0, {0, 0, 0}, {}, {});
  EXPECT_NO_THROW(hola::validate_csr(z.view(), strict));
  // Duplicates are allowed by default.
  this->m_.col_idx = {2, 2, 1, 3};
  EXPECT_EQ(hola::check_csr(this->view()), "");
  // Unsorted rows are allowed unless asked.
  this->m_.col_idx = {2, 0, 3, 1};
  EXPECT_EQ(hola::check_csr(this->view()), "");
}

TYPED_TEST(ValidateTest, NegativeSizes) {
  auto A = this->view();
  A.rows = -1;
  this->expect_problem(A, status::invalid_argument, "negative number of rows: rows = -1");
  EXPECT_EQ(hola::check_csr_shape(A), hola::check_csr(A));
  A = this->view();
  A.cols = -3;
  this->expect_problem(A, status::invalid_argument, "negative number of columns: cols = -3");
  A = this->view();
  A.nnz = -2;
  this->expect_problem(A, status::invalid_argument, "negative number of nonzeros: nnz = -2");
}

TYPED_TEST(ValidateTest, SizesMustFitIndexTypes) {
  using I = typename TestFixture::I;
  using O = typename TestFixture::O;
  const std::int64_t big = std::int64_t(1) << 31;  // one past int32's max
  typename TestFixture::View A;                    // null pointers: sizes come first
  A.rows = big;
  if (std::is_same_v<I, std::int32_t>) {
    this->expect_problem(A, status::invalid_argument,
                         "rows = 2147483648 does not fit int32 indices");
    A.rows = 1;
    A.cols = big;
    this->expect_problem(A, status::invalid_argument,
                         "cols = 2147483648 does not fit int32 column indices");
    A.cols = 1;
  } else {
    // Fits int64: the next problem is the null row_ptr.
    this->expect_problem(A, status::invalid_argument, "row_ptr is null");
    A.rows = 1;
  }
  A.nnz = big;
  if (std::is_same_v<O, std::int32_t>)
    this->expect_problem(A, status::invalid_argument,
                         "nnz = 2147483648 does not fit int32 row offsets");
  else
    this->expect_problem(A, status::invalid_argument, "row_ptr is null");
  EXPECT_NE(hola::check_csr_shape(A), "");
}

TYPED_TEST(ValidateTest, NullPointers) {
  auto A = this->view();
  A.row_ptr = nullptr;
  this->expect_problem(A, status::invalid_argument, "row_ptr is null but rows = 3 and nnz = 4");
  EXPECT_NE(hola::check_csr_shape(A).find("row_ptr is null"), std::string::npos);
  A = this->view();
  A.col_idx = nullptr;
  this->expect_problem(A, status::invalid_argument, "col_idx is null but nnz = 4");
  A = this->view();
  A.values = nullptr;
  this->expect_problem(A, status::invalid_argument, "values is null but nnz = 4");
  // 0 rows but nonzeros claimed, without a row_ptr.
  typename TestFixture::View B;
  B.nnz = 1;
  this->expect_problem(B, status::invalid_argument, "row_ptr is null but rows = 0 and nnz = 1");
  // No nonzeros: col_idx and values may be null.
  B = {};
  B.rows = 2;
  B.cols = 2;
  std::vector<typename TestFixture::O> rp{0, 0, 0};
  B.row_ptr = rp.data();
  EXPECT_EQ(hola::check_csr(B), "");
}

TYPED_TEST(ValidateTest, DeviceMemoryNeedsHost) {
  auto A = this->view();
  A.memory = hola::Memory::device;
  EXPECT_EQ(hola::check_csr_shape(A), "");  // the shape check reads no array
  this->expect_problem(A, status::invalid_argument, "needs host memory");
}

TYPED_TEST(ValidateTest, RowPtrStart) {
  this->m_.row_ptr[0] = 1;
  this->expect_problem(this->view(), status::invalid_csr, "row_ptr[0] = 1, expected 0");
}

TYPED_TEST(ValidateTest, RowPtrNotMonotone) {
  this->m_.row_ptr = {0, 3, 2, 4};
  this->expect_problem(this->view(), status::invalid_csr,
                       "row_ptr is not monotone: row_ptr[1] = 3 > row_ptr[2] = 2 (row 1)");
  this->m_.row_ptr = {0, 2, 2, -1};
  this->expect_problem(this->view(), status::invalid_csr, "row_ptr[2] = 2 > row_ptr[3] = -1");
}

TYPED_TEST(ValidateTest, RowPtrEndMustBeNnz) {
  this->m_.row_ptr = {0, 2, 2, 3};
  this->expect_problem(this->view(), status::invalid_csr,
                       "row_ptr[rows] = row_ptr[3] = 3 but nnz = 4");
  this->m_.row_ptr = {0, 2, 2, 4};
  auto A = this->view();
  A.nnz = 3;  // row_ptr says 4
  this->expect_problem(A, status::invalid_csr, "row_ptr[rows] = row_ptr[3] = 4 but nnz = 3");
}

TYPED_TEST(ValidateTest, ColumnOutOfRange) {
  this->m_.col_idx = {0, 2, 1, 4};
  this->expect_problem(this->view(), status::invalid_csr,
                       "column index out of range in row 2: col_idx[3] = 4, expected 0 <= "
                       "column < cols = 4");
  this->m_.col_idx = {0, -1, 1, 3};
  this->expect_problem(this->view(), status::invalid_csr,
                       "column index out of range in row 0: col_idx[1] = -1");
}

TYPED_TEST(ValidateTest, SortedAndDuplicates) {
  ValidationOptions sorted;
  sorted.require_sorted = true;
  this->m_.col_idx = {2, 0, 1, 3};
  this->expect_problem(this->view(), status::invalid_csr,
                       "columns not sorted in row 0: col_idx[0] = 2 > col_idx[1] = 0", sorted);
  this->m_.col_idx = {0, 2, 3, 3};
  this->expect_problem(this->view(), status::invalid_csr,
                       "duplicate column 3 in row 2: col_idx[2] = col_idx[3] = 3", sorted);
  // Unsorted but duplicate-free rows pass when only duplicates are forbidden.
  ValidationOptions no_dups;
  no_dups.allow_duplicates = false;
  this->m_.col_idx = {2, 0, 3, 1};
  EXPECT_EQ(hola::check_csr(this->view(), no_dups), "");
  // Same column in different rows is not a duplicate.
  this->m_.col_idx = {1, 2, 1, 2};
  EXPECT_EQ(hola::check_csr(this->view(), no_dups), "");
  // Non-adjacent duplicate in an unsorted row.
  this->m_.rows = 1;
  this->m_.row_ptr = {0, 4};
  this->m_.col_idx = {3, 1, 0, 3};
  this->expect_problem(this->view(), status::invalid_csr,
                       "duplicate column 3 in row 0: col_idx[0] = col_idx[3] = 3", no_dups);
}

TYPED_TEST(ValidateTest, FirstProblemIsReported) {
  // Both a monotonicity problem (row 1) and a bad column: the row_ptr problem comes first.
  this->m_.row_ptr = {0, 3, 2, 4};
  this->m_.col_idx = {0, 9, 1, 3};
  this->expect_problem(this->view(), status::invalid_csr, "row_ptr is not monotone");
}

template <class V>
void alias_cases() {
  std::vector<V> buf(10);
  const V* b = buf.data();
  // Disjoint, adjacent, empty.
  EXPECT_NO_THROW(hola::check_no_alias(b, 5, b + 5, 5, "x and y"));
  EXPECT_NO_THROW(hola::check_no_alias(b + 5, 5, b, 5, "x and y"));
  EXPECT_NO_THROW(hola::check_no_alias(b, 0, b, 10, "x and y"));
  EXPECT_NO_THROW(hola::check_no_alias(b, 10, b + 3, 0, "x and y"));
  EXPECT_NO_THROW(hola::check_no_alias<V>(nullptr, 0, nullptr, 0, "x and y"));
  // Same start, partial overlap either way, one inside the other.
  const std::pair<std::int64_t, std::int64_t> overlapping[][2] = {
      {{0, 3}, {0, 3}}, {{0, 6}, {5, 5}}, {{5, 5}, {0, 6}}, {{0, 10}, {4, 2}}, {{4, 1}, {0, 10}}};
  for (const auto& c : overlapping) {
    try {
      hola::check_no_alias(b + c[0].first, c[0].second, b + c[1].first, c[1].second, "x and z");
      ADD_FAILURE() << "no exception for [" << c[0].first << ", +" << c[0].second << ") and ["
                    << c[1].first << ", +" << c[1].second << ")";
    } catch (const hola::error& e) {
      EXPECT_EQ(e.code(), status::aliasing);
      EXPECT_NE(std::string(e.what()).find("x and z"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("overlap"), std::string::npos) << e.what();
    }
  }
  try {
    hola::check_no_alias(b, -1, b, 2, "x and y");
    ADD_FAILURE() << "no exception for a negative length";
  } catch (const hola::error& e) {
    EXPECT_EQ(e.code(), status::invalid_argument);
  }
}

TEST(CheckNoAlias, Float) { alias_cases<float>(); }
TEST(CheckNoAlias, Double) { alias_cases<double>(); }

TEST(CheckNoAlias, ByteRanges) {
  // Ranges are compared in bytes: one shared element is enough, touching ends are not.
  std::vector<double> buf(4);
  const double* d = buf.data();
  EXPECT_NO_THROW(hola::check_no_alias(d, 2, d + 2, 2, "x and y"));
  EXPECT_THROW(hola::check_no_alias(d, 3, d + 2, 2, "x and y"), hola::error);
}

}  // namespace
