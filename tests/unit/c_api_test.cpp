// The C API: status codes and messages for every kind of misuse, and a correct product.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>

#include "hola/hola.h"

namespace {

const int kRowPtr[] = {0, 2, 3, 5};
const int kColIdx[] = {0, 2, 1, 0, 2};
const double kValues[] = {1.0, 2.0, 3.0, 4.0, 5.0};

TEST(CApi, ProductsAndNames) {
  hola_operator op = nullptr;
  ASSERT_EQ(hola_operator_create(&op, HOLA_FLOAT64, HOLA_INT32, HOLA_INT32, nullptr, 0),
            HOLA_SUCCESS);
  ASSERT_EQ(hola_operator_setup(op, 3, 3, 5, kRowPtr, kColIdx, kValues, HOLA_MEMORY_HOST, 0),
            HOLA_SUCCESS)
      << hola_last_error();
  const double x[] = {1.0, 2.0, 3.0};
  double y[] = {1.0, 1.0, 1.0};
  const double alpha = 2.0, beta = 1.0;
  ASSERT_EQ(hola_operator_apply(op, HOLA_OP_N, &alpha, x, 3, &beta, y, y, 3, nullptr),
            HOLA_SUCCESS);
  EXPECT_DOUBLE_EQ(y[0], 1.0 + 2.0 * 7.0);
  EXPECT_DOUBLE_EQ(y[1], 1.0 + 2.0 * 6.0);
  EXPECT_DOUBLE_EQ(y[2], 1.0 + 2.0 * 19.0);
  double yt[3];
  const double zero = 0.0, one = 1.0;
  ASSERT_EQ(hola_operator_apply(op, HOLA_OP_T, &one, x, 3, &zero, nullptr, yt, 3, nullptr),
            HOLA_SUCCESS);
  EXPECT_DOUBLE_EQ(yt[0], 1.0 + 12.0);
  EXPECT_DOUBLE_EQ(yt[1], 6.0);
  EXPECT_DOUBLE_EQ(yt[2], 2.0 + 15.0);
  double z[3];
  const double yy[] = {1.0, 2.0, 3.0};
  ASSERT_EQ(hola_operator_multiply_add(op, x, 3, yy, z, 3, nullptr), HOLA_SUCCESS);
  EXPECT_DOUBLE_EQ(z[2], 3.0 + 19.0);
  const char* name = nullptr;
  ASSERT_EQ(hola_operator_kernel_name(op, HOLA_OP_N, &name), HOLA_SUCCESS);
  EXPECT_STREQ(name, "cpu");
  // The race and the check at the first products: each switch is accepted and the next setup
  // analyses again (host matrices: still "cpu"); a null operator is refused.
  for (auto set_switch : {hola_operator_set_auto_race, hola_operator_set_auto_check}) {
    EXPECT_EQ(set_switch(op, 1), HOLA_SUCCESS);
    EXPECT_EQ(set_switch(op, 0), HOLA_SUCCESS);
    ASSERT_EQ(hola_operator_setup(op, 3, 3, 5, kRowPtr, kColIdx, kValues, HOLA_MEMORY_HOST, 1),
              HOLA_SUCCESS);
    ASSERT_EQ(hola_operator_kernel_name(op, HOLA_OP_N, &name), HOLA_SUCCESS);
    EXPECT_STREQ(name, "cpu");
    EXPECT_EQ(set_switch(nullptr, 1), HOLA_INVALID_ARGUMENT);
  }
  EXPECT_EQ(hola_operator_destroy(op), HOLA_SUCCESS);
}

// The work version through the C API: 0 before setup, then one that a same-pointer setup keeps
// and a new values pointer changes; null pointers refused.
TEST(CApi, WorkVersion) {
  hola_operator op = nullptr;
  ASSERT_EQ(hola_operator_create(&op, HOLA_FLOAT64, HOLA_INT32, HOLA_INT32, nullptr, 0),
            HOLA_SUCCESS);
  uint64_t version = 1;
  ASSERT_EQ(hola_operator_work_version(op, HOLA_OP_N, &version), HOLA_SUCCESS);
  EXPECT_EQ(version, 0u);
  ASSERT_EQ(hola_operator_setup(op, 3, 3, 5, kRowPtr, kColIdx, kValues, HOLA_MEMORY_HOST, 1),
            HOLA_SUCCESS);
  uint64_t first = 0, again = 0, moved = 0;
  ASSERT_EQ(hola_operator_work_version(op, HOLA_OP_T, &first), HOLA_SUCCESS);
  EXPECT_NE(first, 0u);
  ASSERT_EQ(hola_operator_setup(op, 3, 3, 5, kRowPtr, kColIdx, kValues, HOLA_MEMORY_HOST, 1),
            HOLA_SUCCESS);
  ASSERT_EQ(hola_operator_work_version(op, HOLA_OP_T, &again), HOLA_SUCCESS);
  EXPECT_EQ(again, first);
  const double other[] = {1.0, 2.0, 3.0, 4.0, 5.0};
  ASSERT_EQ(hola_operator_setup(op, 3, 3, 5, kRowPtr, kColIdx, other, HOLA_MEMORY_HOST, 1),
            HOLA_SUCCESS);
  ASSERT_EQ(hola_operator_work_version(op, HOLA_OP_T, &moved), HOLA_SUCCESS);
  EXPECT_NE(moved, first);
  EXPECT_EQ(hola_operator_work_version(op, HOLA_OP_N, nullptr), HOLA_INVALID_ARGUMENT);
  EXPECT_EQ(hola_operator_work_version(nullptr, HOLA_OP_N, &version), HOLA_INVALID_ARGUMENT);
  EXPECT_EQ(hola_operator_destroy(op), HOLA_SUCCESS);
}

TEST(CApi, ErrorsComeBackAsCodesWithMessages) {
  hola_operator op = nullptr;
  EXPECT_EQ(hola_operator_create(&op, static_cast<hola_value_type>(7), HOLA_INT32, HOLA_INT32,
                                 nullptr, 0),
            HOLA_UNSUPPORTED);
  EXPECT_NE(std::string(hola_last_error()).find("value type"), std::string::npos);
  EXPECT_EQ(hola_operator_create(&op, HOLA_FLOAT32, HOLA_INT32, HOLA_INT32, "bogus", 0),
            HOLA_INVALID_ARGUMENT);
  EXPECT_NE(std::string(hola_last_error()).find("bogus"), std::string::npos);
  ASSERT_EQ(hola_operator_create(&op, HOLA_FLOAT64, HOLA_INT32, HOLA_INT32, "auto", 0),
            HOLA_SUCCESS);
  const int bad_cols[] = {0, 2, 1, 0, 9};
  EXPECT_EQ(hola_operator_setup(op, 3, 3, 5, kRowPtr, bad_cols, kValues, HOLA_MEMORY_HOST, 0),
            HOLA_INVALID_CSR);
  EXPECT_NE(std::string(hola_last_error()).find("col"), std::string::npos);
  double x[3] = {1, 2, 3}, y[3];
  const double one = 1.0;
  EXPECT_EQ(hola_operator_apply(op, HOLA_OP_N, &one, x, 3, &one, y, y, 3, nullptr),
            HOLA_INVALID_ARGUMENT);  // before a successful setup
  ASSERT_EQ(hola_operator_setup(op, 3, 3, 5, kRowPtr, kColIdx, kValues, HOLA_MEMORY_HOST, 0),
            HOLA_SUCCESS);
  EXPECT_EQ(hola_operator_apply(op, HOLA_OP_N, &one, x, 2, &one, y, y, 3, nullptr),
            HOLA_SIZE_MISMATCH);
  EXPECT_EQ(hola_operator_apply(op, HOLA_OP_N, &one, x, 3, &one, x, x, 3, nullptr), HOLA_ALIASING);
  EXPECT_EQ(hola_operator_apply(op, static_cast<hola_op>(5), &one, x, 3, &one, y, y, 3, nullptr),
            HOLA_INVALID_ARGUMENT);
  EXPECT_EQ(hola_operator_apply(nullptr, HOLA_OP_N, &one, x, 3, &one, y, y, 3, nullptr),
            HOLA_INVALID_ARGUMENT);
  EXPECT_STREQ(hola_status_string(HOLA_ALIASING), "aliasing vectors");
  hola_operator_destroy(op);
}

}  // namespace
