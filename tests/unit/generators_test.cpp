// Unit tests of the matrix generators: structure, exact sizes, determinism, family properties,
// spec parsing. Small sizes only: the whole file runs in well under a second.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "hola/csr_view.hpp"
#include "hola/error.hpp"
#include "hola/generators.hpp"

namespace {

using hola::gen::Csr64;
namespace gen = hola::gen;
using i64 = std::int64_t;

// Empty when m is a valid CSR matrix with strictly increasing columns in each row.
std::string structure_problem(const Csr64& m) {
  if (m.rows < 0 || m.cols < 0) return "negative size";
  if (static_cast<i64>(m.row_ptr.size()) != m.rows + 1) return "row_ptr size != rows + 1";
  if (m.row_ptr[0] != 0) return "row_ptr[0] != 0";
  if (m.col_idx.size() != m.values.size()) return "col_idx / values sizes differ";
  if (m.row_ptr[m.rows] != static_cast<i64>(m.col_idx.size())) return "row_ptr[rows] != nnz";
  for (i64 i = 0; i < m.rows; ++i) {
    if (m.row_ptr[i + 1] < m.row_ptr[i]) return "row_ptr decreases at row " + std::to_string(i);
    for (i64 p = m.row_ptr[i]; p < m.row_ptr[i + 1]; ++p) {
      if (m.col_idx[p] < 0 || m.col_idx[p] >= m.cols)
        return "column out of range in row " + std::to_string(i);
      if (p > m.row_ptr[i] && m.col_idx[p] <= m.col_idx[p - 1])
        return "columns not strictly increasing in row " + std::to_string(i);
    }
  }
  return "";
}

i64 zero_values(const Csr64& m) { return std::count(m.values.begin(), m.values.end(), 0.0); }

bool identical(const Csr64& a, const Csr64& b) {
  // Bitwise on values (memcmp of an empty vector may see null pointers: skip it).
  return a.rows == b.rows && a.cols == b.cols && a.row_ptr == b.row_ptr && a.col_idx == b.col_idx &&
         a.values.size() == b.values.size() &&
         (a.values.empty() ||
          std::memcmp(a.values.data(), b.values.data(), a.values.size() * sizeof(double)) == 0);
}

i64 row_len(const Csr64& m, i64 i) { return m.row_ptr[i + 1] - m.row_ptr[i]; }

i64 empty_rows(const Csr64& m) {
  i64 e = 0;
  for (i64 i = 0; i < m.rows; ++i) e += row_len(m, i) == 0;
  return e;
}

i64 max_row(const Csr64& m) {
  i64 r = 0;
  for (i64 i = 0; i < m.rows; ++i) r = std::max(r, row_len(m, i));
  return r;
}

bool has_entry(const Csr64& m, i64 i, i64 j) {
  return std::binary_search(m.col_idx.begin() + m.row_ptr[i], m.col_idx.begin() + m.row_ptr[i + 1],
                            j);
}

// FNV-1a over sizes and all arrays (value bits included).
std::uint64_t fingerprint(const Csr64& m) {
  std::uint64_t h = 1469598103934665603ULL;
  auto add = [&](const void* p, std::size_t n) {
    const auto* b = static_cast<const unsigned char*>(p);
    for (std::size_t i = 0; i < n; ++i) {
      h ^= b[i];
      h *= 1099511628211ULL;
    }
  };
  add(&m.rows, sizeof m.rows);
  add(&m.cols, sizeof m.cols);
  add(m.row_ptr.data(), m.row_ptr.size() * sizeof(i64));
  add(m.col_idx.data(), m.col_idx.size() * sizeof(i64));
  add(m.values.data(), m.values.size() * sizeof(double));
  return h;
}

#define EXPECT_VALID(m) EXPECT_EQ(structure_problem(m), "")

template <class F>
void expect_invalid_argument(F&& f, const std::string& fragment = "") {
  try {
    f();
    ADD_FAILURE() << "no exception";
  } catch (const hola::error& e) {
    EXPECT_EQ(e.code(), hola::status::invalid_argument) << e.what();
    if (!fragment.empty()) {
      EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
    }
  }
}

// ---------------------------------------------------------------------------------------------

TEST(Generators, Poisson2dCountsAndValues) {
  const i64 nx = 7, ny = 5;
  const Csr64 m = gen::poisson2d(nx, ny);
  EXPECT_VALID(m);
  EXPECT_EQ(m.rows, nx * ny);
  EXPECT_EQ(m.cols, nx * ny);
  EXPECT_EQ(m.nnz(), nx * ny + 2 * (nx - 1) * ny + 2 * nx * (ny - 1));
  for (i64 i = 0; i < m.rows; ++i)
    for (i64 p = m.row_ptr[i]; p < m.row_ptr[i + 1]; ++p)
      EXPECT_EQ(m.values[p], m.col_idx[p] == i ? 4.0 : -1.0);
  // Interior point (3, 2): its four neighbours and itself.
  const i64 r = 3 + nx * 2;
  EXPECT_EQ(row_len(m, r), 5);
  for (i64 c : {r - nx, r - 1, r, r + 1, r + nx}) EXPECT_TRUE(has_entry(m, r, c));
  // Symmetric pattern.
  for (i64 i = 0; i < m.rows; ++i)
    for (i64 p = m.row_ptr[i]; p < m.row_ptr[i + 1]; ++p)
      EXPECT_TRUE(has_entry(m, m.col_idx[p], i));
}

TEST(Generators, Poisson3dCounts) {
  for (auto [nx, ny, nz] : {std::tuple<i64, i64, i64>{4, 5, 6}, {1, 1, 1}, {1, 3, 2}, {9, 1, 1}}) {
    const Csr64 m = gen::poisson3d(nx, ny, nz);
    EXPECT_VALID(m);
    const i64 n = nx * ny * nz;
    EXPECT_EQ(m.rows, n);
    EXPECT_EQ(m.nnz(), n + 2 * ((nx - 1) * ny * nz + nx * (ny - 1) * nz + nx * ny * (nz - 1)));
    for (i64 i = 0; i < m.rows; ++i) EXPECT_TRUE(has_entry(m, i, i));
    EXPECT_EQ(zero_values(m), 0);
  }
  const Csr64 m = gen::poisson3d(4, 5, 6);
  const i64 r = 1 + 4 * (2 + 5 * 3);  // interior point (1, 2, 3)
  EXPECT_EQ(row_len(m, r), 7);
  for (i64 c : {r - 20, r - 4, r - 1, r, r + 1, r + 4, r + 20}) EXPECT_TRUE(has_entry(m, r, c));
  EXPECT_EQ(gen::poisson3d(0, 3, 3).rows, 0);
  EXPECT_VALID(gen::poisson3d(0, 3, 3));
}

TEST(Generators, Stencil27Counts) {
  for (auto [nx, ny, nz] : {std::tuple<i64, i64, i64>{4, 5, 6}, {1, 1, 1}, {2, 2, 2}, {7, 1, 3}}) {
    const Csr64 m = gen::stencil27(nx, ny, nz);
    EXPECT_VALID(m);
    EXPECT_EQ(m.rows, nx * ny * nz);
    EXPECT_EQ(m.nnz(), (3 * nx - 2) * (3 * ny - 2) * (3 * nz - 2));
    for (i64 i = 0; i < m.rows; ++i)
      for (i64 p = m.row_ptr[i]; p < m.row_ptr[i + 1]; ++p)
        EXPECT_EQ(m.values[p], m.col_idx[p] == i ? 26.0 : -1.0);
  }
  EXPECT_EQ(max_row(gen::stencil27(4, 4, 4)), 27);
}

TEST(Generators, ElasticityBlockRows) {
  for (auto [n, block] : {std::pair<i64, int>{4, 3}, {3, 1}, {2, 2}, {1, 3}}) {
    const Csr64 m = gen::elasticity(n, n, n, block);
    const Csr64 nodes = gen::stencil27(n, n, n);
    EXPECT_VALID(m);
    ASSERT_EQ(m.rows, nodes.rows * block);
    EXPECT_EQ(m.nnz(), nodes.nnz() * block * block);
    for (i64 i = 0; i < m.rows; ++i) {
      const i64 node = i / block;
      // Each row: the node's 27-point neighbours, every one with all `block` unknowns.
      ASSERT_EQ(row_len(m, i), row_len(nodes, node) * block);
      for (i64 q = 0; q < row_len(nodes, node); ++q)
        for (int e = 0; e < block; ++e) {
          const i64 p = m.row_ptr[i] + q * block + e;
          EXPECT_EQ(m.col_idx[p], nodes.col_idx[nodes.row_ptr[node] + q] * block + e);
          EXPECT_EQ(m.values[p], m.col_idx[p] == i ? 27.0 * block : -1.0);
        }
    }
  }
  EXPECT_EQ(max_row(gen::elasticity(4, 4, 4)), 81);
  EXPECT_THROW(gen::elasticity(2, 2, 2, 0), hola::error);
  EXPECT_THROW(gen::elasticity(2, 2, 2, 3, 5), hola::error);
}

TEST(Generators, BlockRowsOnTheSevenPointStencil) {
  // SNES ex19's layout: 4 fields a node on a 2D grid, 5 nodes a row.
  const Csr64 m = gen::elasticity(5, 5, 1, 4, 7);
  const Csr64 nodes = gen::poisson2d(5, 5);
  EXPECT_VALID(m);
  ASSERT_EQ(m.rows, nodes.rows * 4);
  EXPECT_EQ(m.nnz(), nodes.nnz() * 16);
  EXPECT_EQ(max_row(m), 20);
  for (i64 i = 0; i < m.rows; ++i) {
    const i64 node = i / 4;
    ASSERT_EQ(row_len(m, i), row_len(nodes, node) * 4);
    for (i64 q = 0; q < row_len(nodes, node); ++q)
      for (int e = 0; e < 4; ++e) {
        const i64 p = m.row_ptr[i] + q * 4 + e;
        EXPECT_EQ(m.col_idx[p], nodes.col_idx[nodes.row_ptr[node] + q] * 4 + e);
        EXPECT_EQ(m.values[p], m.col_idx[p] == i ? 28.0 : -1.0);
      }
  }
  EXPECT_EQ(max_row(gen::elasticity(4, 4, 4, 4, 7)), 28);
  EXPECT_THROW(gen::elasticity(-1, 2, 2), hola::error);
}

TEST(Generators, PowerlawRowsHeavyTail) {
  const Csr64 m = gen::powerlaw_rows(200000, 200000, 16.0, 1.5, 3);
  EXPECT_VALID(m);
  EXPECT_EQ(empty_rows(m), 0);
  const double mean = static_cast<double>(m.nnz()) / static_cast<double>(m.rows);
  EXPECT_GT(mean, 10.0);  // a tail of 1.5 has a slowly converging mean; lengths are floored
  EXPECT_LT(mean, 24.0);
  // Heavy tail: the longest row is far above the mean, and about (x_min / x)^1.5 of the rows
  // are longer than x (x_min = 16 / 3).
  EXPECT_GT(max_row(m), 100 * 16);
  i64 longer = 0;
  for (i64 i = 0; i < m.rows; ++i) longer += row_len(m, i) > 160;
  const double expected = std::pow(16.0 / 3.0 / 160.0, 1.5) * static_cast<double>(m.rows);
  EXPECT_NEAR(static_cast<double>(longer), expected, 0.25 * expected);
  EXPECT_TRUE(identical(m, gen::powerlaw_rows(200000, 200000, 16.0, 1.5, 3)));
  EXPECT_FALSE(identical(m, gen::powerlaw_rows(200000, 200000, 16.0, 1.5, 4)));
  // Capped at cols; a wide rectangle.
  const Csr64 narrow = gen::powerlaw_rows(1000, 50, 8.0, 1.2, 1);
  EXPECT_VALID(narrow);
  EXPECT_LE(max_row(narrow), 50);
  EXPECT_VALID(gen::powerlaw_rows(100, 100000, 4.0, 2.0, 1));
  EXPECT_EQ(gen::powerlaw_rows(0, 10, 2.0, 2.0, 1).nnz(), 0);
  EXPECT_THROW(gen::powerlaw_rows(10, 10, 0.5, 2.0, 1), hola::error);
  EXPECT_THROW(gen::powerlaw_rows(10, 10, 4.0, 1.0, 1), hola::error);
  EXPECT_THROW(gen::powerlaw_rows(10, 10, 40.0, 2.0, 1), hola::error);
}

TEST(Generators, PermuteSymmetricIsASimilarity) {
  const Csr64 a = gen::banded_normal(3000, 6, 20.0, 5);
  const Csr64 b = gen::permute_symmetric(a, 9);
  EXPECT_VALID(b);
  ASSERT_EQ(b.rows, a.rows);
  ASSERT_EQ(b.nnz(), a.nnz());
  // B must be P A P^T. The values are random, so a row's sorted values identify it: that gives
  // p(i), the row of B holding A's row i; then B (P x) must equal P (A x) for any x, which also
  // checks that the columns were renumbered with the same p.
  std::vector<double> x(static_cast<std::size_t>(a.rows));
  for (i64 i = 0; i < a.rows; ++i) x[i] = 1.0 + static_cast<double>(i % 97) / 7.0;
  std::vector<double> ax(x.size(), 0.0);
  for (i64 i = 0; i < a.rows; ++i)
    for (i64 p = a.row_ptr[i]; p < a.row_ptr[i + 1]; ++p) ax[i] += a.values[p] * x[a.col_idx[p]];
  std::map<std::vector<double>, i64> row_of;
  for (i64 r = 0; r < b.rows; ++r) {
    std::vector<double> v(b.values.begin() + b.row_ptr[r], b.values.begin() + b.row_ptr[r + 1]);
    std::sort(v.begin(), v.end());
    row_of[v] = r;
  }
  ASSERT_EQ(static_cast<i64>(row_of.size()), b.rows);  // every row of B told apart
  std::vector<i64> perm(static_cast<std::size_t>(a.rows), -1);
  for (i64 i = 0; i < a.rows; ++i) {
    std::vector<double> v(a.values.begin() + a.row_ptr[i], a.values.begin() + a.row_ptr[i + 1]);
    std::sort(v.begin(), v.end());
    ASSERT_TRUE(row_of.count(v)) << "row " << i << " lost";
    perm[i] = row_of[v];
  }
  std::vector<double> px(x.size()), bpx(x.size(), 0.0);
  for (i64 i = 0; i < a.rows; ++i) px[perm[i]] = x[i];
  for (i64 r = 0; r < b.rows; ++r)
    for (i64 p = b.row_ptr[r]; p < b.row_ptr[r + 1]; ++p) bpx[r] += b.values[p] * px[b.col_idx[p]];
  i64 moved = 0;
  for (i64 i = 0; i < a.rows; ++i) {
    EXPECT_NEAR(bpx[perm[i]], ax[i], 1e-12 * (1.0 + std::fabs(ax[i])));
    moved += perm[i] != i;
  }
  EXPECT_GT(moved, a.rows / 2);
  // The spec key: any square family, reproducible, refused for rectangles.
  EXPECT_TRUE(identical(gen::from_spec("banded:rows=3000,per_row=6,sigma=20,seed=5,perm=9"), b));
  const Csr64 p3 = gen::from_spec("poisson3d:n=6,perm=2");
  EXPECT_VALID(p3);
  EXPECT_EQ(p3.nnz(), gen::poisson3d(6, 6, 6).nnz());
  EXPECT_THROW(gen::from_spec("random:rows=10,cols=20,per_row=2,perm=1"), hola::error);
  EXPECT_THROW(gen::from_spec("poisson3d:n=6,perm=x"), hola::error);
}

TEST(Generators, StencilInvalidSizes) {
  expect_invalid_argument([] { gen::poisson2d(-1, 3); });
  expect_invalid_argument([] { gen::poisson3d(3, -1, 3); });
  expect_invalid_argument([] { gen::stencil27(3, 3, -2); });
  expect_invalid_argument([] { gen::poisson3d(i64(1) << 30, i64(1) << 30, i64(1) << 30); });
}

TEST(Generators, BandedNearDiagonalForSmallSigma) {
  const i64 rows = 5000;
  const int per_row = 12;
  const double sigma = 2.0;
  const Csr64 m = gen::banded_normal(rows, per_row, sigma, 11);
  EXPECT_VALID(m);
  EXPECT_EQ(m.rows, rows);
  EXPECT_EQ(m.cols, rows);
  EXPECT_EQ(zero_values(m), 0);
  EXPECT_EQ(empty_rows(m), 0);
  EXPECT_LE(max_row(m), per_row);
  EXPECT_LT(m.nnz(), rows * per_row);  // duplicates merged: sigma 2 makes many
  i64 far = 0;
  for (i64 i = 0; i < rows; ++i)
    for (i64 p = m.row_ptr[i]; p < m.row_ptr[i + 1]; ++p) {
      const i64 d = m.col_idx[p] - i;
      EXPECT_LE(std::abs(d), 12);  // the approximate normal stops at 6 sigma
      far += std::abs(d) > 6;      // beyond 3 sigma: rare
    }
  EXPECT_LT(far, m.nnz() / 50);
  for (double v : m.values) {
    EXPECT_GE(v, -1.0);
    EXPECT_LE(v, 1.0);
  }
}

TEST(Generators, BandedUniformAndWide) {
  const Csr64 u = gen::banded_normal(4000, 10, 0.0, 13);
  EXPECT_VALID(u);
  EXPECT_GT(u.nnz(), 4000 * 10 - 200);  // few duplicates among 4000 columns
  i64 far = 0;
  for (i64 i = 0; i < u.rows; ++i)
    for (i64 p = u.row_ptr[i]; p < u.row_ptr[i + 1]; ++p) far += std::abs(u.col_idx[p] - i) > 1000;
  EXPECT_GT(far, u.nnz() / 3);
  // Columns falling outside are drawn again, so the border rows keep their length.
  const Csr64 w = gen::banded_normal(4000, 10, 1000.0, 13);
  EXPECT_VALID(w);
  EXPECT_GE(row_len(w, 0), 9);
  EXPECT_GE(row_len(w, 3999), 9);
  // Degenerate sizes.
  EXPECT_VALID(gen::banded_normal(0, 10, 3.0, 1));
  const Csr64 one = gen::banded_normal(1, 5, 100.0, 1);
  EXPECT_VALID(one);
  EXPECT_EQ(one.nnz(), 1);
  EXPECT_EQ(gen::banded_normal(10, 0, 3.0, 1).nnz(), 0);
  expect_invalid_argument([] { gen::banded_normal(-1, 3, 1.0, 1); });
  expect_invalid_argument([] { gen::banded_normal(10, -3, 1.0, 1); });
  expect_invalid_argument(
      [] { gen::banded_normal(10, 3, std::numeric_limits<double>::infinity(), 1); });
}

// Rectangular bands follow the scaled diagonal, column floor(i cols / rows); the square call with
// cols = rows is the same matrix as without cols.
TEST(Generators, BandedRectangularFollowsScaledDiagonal) {
  for (auto [rows, cols] : {std::pair<i64, i64>{16000, 2000}, {2000, 16000}, {3001, 7}}) {
    const Csr64 m = gen::banded_normal(rows, cols, 8, 3.0, 21);
    EXPECT_VALID(m);
    EXPECT_EQ(m.rows, rows);
    EXPECT_EQ(m.cols, cols);
    EXPECT_EQ(empty_rows(m), 0);
    for (i64 i = 0; i < rows; ++i) {
      const i64 centre = i * cols / rows;
      for (i64 p = m.row_ptr[i]; p < m.row_ptr[i + 1]; ++p)
        ASSERT_LE(std::abs(m.col_idx[p] - centre), 18) << rows << " x " << cols << ", row " << i;
    }
  }
  EXPECT_EQ(fingerprint(gen::banded_normal(2000, 2000, 12, 30.0, 7)),
            fingerprint(gen::banded_normal(2000, 12, 30.0, 7)));
  const Csr64 u = gen::banded_normal(50, 100000, 20, 0.0, 3);  // uniform over every column
  i64 high = 0;
  for (i64 c : u.col_idx) high += c >= 50000;
  EXPECT_GT(high, u.nnz() / 4);
  EXPECT_VALID(gen::banded_normal(0, 0, 3, 1.0, 1));
  expect_invalid_argument([] { gen::banded_normal(10, 0, 3, 1.0, 1); });
  expect_invalid_argument([] { gen::banded_normal(10, -5, 3, 1.0, 1); });
}

TEST(Generators, Interpolation3dIsTrilinear) {
  const Csr64 p = gen::interpolation3d(5, 4, 3);  // fine 9 x 7 x 5
  EXPECT_VALID(p);
  EXPECT_EQ(p.rows, 9 * 7 * 5);
  EXPECT_EQ(p.cols, 5 * 4 * 3);
  // Per dimension, n coarse points give n fine rows of one parent and n - 1 of two.
  EXPECT_EQ(p.nnz(), (5 + 2 * 4) * (4 + 2 * 3) * (3 + 2 * 2));
  for (i64 r = 0; r < p.rows; ++r) {
    double sum = 0;
    for (i64 q = p.row_ptr[r]; q < p.row_ptr[r + 1]; ++q) sum += p.values[q];
    EXPECT_DOUBLE_EQ(sum, 1.0) << "row " << r;
  }
  // Fine point (2, 2, 2) is coarse point (1, 1, 1); fine (3, 0, 0) lies between coarse 1 and 2.
  const i64 coarse_point = (2 * 7 + 2) * 9 + 2;
  ASSERT_EQ(row_len(p, coarse_point), 1);
  EXPECT_EQ(p.col_idx[p.row_ptr[coarse_point]], (1 * 4 + 1) * 5 + 1);
  ASSERT_EQ(row_len(p, 3), 2);
  EXPECT_EQ(p.col_idx[p.row_ptr[3]], 1);
  EXPECT_EQ(p.col_idx[p.row_ptr[3] + 1], 2);
  EXPECT_EQ(gen::from_spec("interp3d:n=3").rows, 125);
  EXPECT_EQ(gen::interpolation3d(1, 1, 1).nnz(), 1);
  expect_invalid_argument([] { gen::interpolation3d(0, 3, 3); });
  expect_invalid_argument([] { gen::interpolation3d(i64(1) << 40, i64(1) << 40, 2); });
}

TEST(Generators, RandomRectExactRows) {
  const Csr64 wide = gen::random_rect(200, 9000, 40, 16);
  EXPECT_VALID(wide);
  EXPECT_EQ(wide.rows, 200);
  EXPECT_EQ(wide.cols, 9000);
  EXPECT_EQ(wide.nnz(), 200 * 40);
  for (i64 i = 0; i < wide.rows; ++i) EXPECT_EQ(row_len(wide, i), 40);
  const Csr64 tall = gen::random_rect(9000, 150, 5, 17);
  EXPECT_VALID(tall);
  EXPECT_EQ(tall.nnz(), 9000 * 5);
  EXPECT_EQ(zero_values(tall), 0);
  const Csr64 full = gen::random_rect(30, 7, 7, 3);  // dense path
  EXPECT_VALID(full);
  EXPECT_EQ(full.nnz(), 30 * 7);
  const Csr64 most = gen::random_rect(30, 9, 6, 3);  // selection sampling path
  EXPECT_VALID(most);
  EXPECT_EQ(most.nnz(), 30 * 6);
  EXPECT_VALID(gen::random_rect(0, 5, 3, 1));
  EXPECT_VALID(gen::random_rect(5, 0, 0, 1));
  expect_invalid_argument([] { gen::random_rect(10, 5, 6, 1); }, "per_row");
  expect_invalid_argument([] { gen::random_rect(-10, 5, 1, 1); });
  expect_invalid_argument([] { gen::random_rect(10, 5, -1, 1); });
}

TEST(Generators, RmatPowerLaw) {
  const int scale = 12, ef = 8;
  const Csr64 m = gen::rmat(scale, ef, 14);
  EXPECT_VALID(m);
  EXPECT_EQ(m.rows, 1 << scale);
  EXPECT_EQ(m.cols, 1 << scale);
  EXPECT_LE(m.nnz(), i64(ef) << scale);
  EXPECT_GT(m.nnz(), (i64(ef) << scale) / 2);
  EXPECT_EQ(zero_values(m), 0);
  EXPECT_GT(empty_rows(m), m.rows / 10);  // empty rows kept
  const double mean = static_cast<double>(m.nnz()) / static_cast<double>(m.rows);
  EXPECT_GT(static_cast<double>(max_row(m)), 20 * mean);  // skewed
  const Csr64 noisy = gen::rmat(scale, ef, 14, 0.57, 0.19, 0.19, 0.2);
  EXPECT_VALID(noisy);
  EXPECT_FALSE(identical(m, noisy));
  EXPECT_TRUE(identical(m, gen::rmat(scale, ef, 14, 0.57, 0.19, 0.19, 0.0)));
  // Uniform quadrants: Erdos-Renyi like, no heavy rows.
  const Csr64 er = gen::rmat(10, 4, 1, 0.25, 0.25, 0.25);
  EXPECT_VALID(er);
  EXPECT_LT(max_row(er), 20);
  const Csr64 tiny = gen::rmat(0, 3, 1);
  EXPECT_VALID(tiny);
  EXPECT_EQ(tiny.nnz(), 1);
  EXPECT_EQ(gen::rmat(5, 0, 1).nnz(), 0);
  expect_invalid_argument([] { gen::rmat(-1, 4, 1); });
  expect_invalid_argument([] { gen::rmat(33, 4, 1); });
  expect_invalid_argument([] { gen::rmat(5, -4, 1); });
  expect_invalid_argument([] { gen::rmat(5, 4, 1, 0.6, 0.3, 0.2); });
  expect_invalid_argument([] { gen::rmat(5, 4, 1, -0.1, 0.3, 0.2); });
  expect_invalid_argument([] { gen::rmat(5, 4, 1, 0.5, 0.2, 0.2, 1.5); });
}

TEST(Generators, CircuitShape) {
  const i64 rows = 20000;
  const Csr64 m = gen::circuit(rows, 15, 0.3, 3, 9000, 4.0);
  EXPECT_VALID(m);
  EXPECT_EQ(m.rows, rows);
  EXPECT_EQ(m.cols, rows);
  EXPECT_EQ(zero_values(m), 0);
  const double empty_frac = static_cast<double>(empty_rows(m)) / rows;
  EXPECT_GT(empty_frac, 0.27);
  EXPECT_LT(empty_frac, 0.33);
  i64 long_count = 0, short_rows = 0, short_nnz = 0, with_diag = 0;
  for (i64 i = 0; i < rows; ++i) {
    const i64 len = row_len(m, i);
    if (len == 9000) {
      ++long_count;
    } else if (len > 0) {
      EXPECT_LT(len, 200);
      ++short_rows;
      short_nnz += len;
      with_diag += has_entry(m, i, i);
    }
  }
  EXPECT_EQ(long_count, 3);
  EXPECT_EQ(with_diag, short_rows);
  const double mean = static_cast<double>(short_nnz) / static_cast<double>(short_rows);
  EXPECT_GT(mean, 3.7);
  EXPECT_LT(mean, 4.3);
  // Long rows spread over the whole range; the default length is capped at the size.
  const Csr64 d = gen::circuit(1000, 2);
  EXPECT_VALID(d);
  i64 full = 0;
  for (i64 i = 0; i < d.rows; ++i) full += row_len(d, i) == 1000;
  EXPECT_EQ(full, 8);
  const Csr64 dense_short = gen::circuit(6, 3, 0.0, 0, 0, 50.0);  // lengths capped at cols
  EXPECT_VALID(dense_short);
  EXPECT_EQ(empty_rows(dense_short), 0);
  EXPECT_EQ(empty_rows(gen::circuit(500, 3, 1.0, 2)), 498);
  EXPECT_VALID(gen::circuit(0, 1, 0.3, 0));
  expect_invalid_argument([] { gen::circuit(-5, 1); });
  expect_invalid_argument([] { gen::circuit(100, 1, 1.5); });
  expect_invalid_argument([] { gen::circuit(100, 1, 0.3, 101); });
  expect_invalid_argument([] { gen::circuit(100, 1, 0.3, 2, 101); });
  expect_invalid_argument([] { gen::circuit(100, 1, 0.3, 2, 0, 0.5); });
}

TEST(Generators, GhostBlock) {
  for (i64 nz : {1, 2, 5}) {
    const Csr64 m = gen::ghost_block(4, 3, nz);
    EXPECT_VALID(m);
    EXPECT_EQ(m.rows, 12 * nz);
    EXPECT_EQ(m.cols, 24);
    EXPECT_EQ(m.nnz(), 24);
    for (i64 r = 0; r < m.rows; ++r) {
      const bool bottom = r < 12, top = r >= 12 * (nz - 1);
      EXPECT_EQ(row_len(m, r), (bottom ? 1 : 0) + (top ? 1 : 0)) << "row " << r;
      if (bottom) EXPECT_TRUE(has_entry(m, r, r % 12));
      if (top) EXPECT_TRUE(has_entry(m, r, 12 + r % 12));
    }
    EXPECT_EQ(zero_values(m), 0);
  }
  EXPECT_EQ(gen::ghost_block(0, 3, 4).nnz(), 0);
  EXPECT_VALID(gen::ghost_block(3, 3, 0));
  EXPECT_TRUE(identical(gen::from_spec("ghost:n=6"), gen::ghost_block(6, 6, 3)));
}

TEST(Generators, Arrow) {
  for (i64 n : {1, 2, 5, 300}) {
    const Csr64 m = gen::arrow(n);
    EXPECT_VALID(m);
    EXPECT_EQ(m.rows, n);
    EXPECT_EQ(m.nnz(), 3 * n - 2);
    EXPECT_EQ(row_len(m, 0), n);
    for (i64 i = 1; i < n; ++i) {
      EXPECT_EQ(row_len(m, i), 2);
      EXPECT_TRUE(has_entry(m, i, 0));
      EXPECT_TRUE(has_entry(m, i, i));
    }
    EXPECT_EQ(zero_values(m), 0);
  }
  EXPECT_EQ(gen::arrow(0).rows, 0);
  EXPECT_VALID(gen::arrow(0));
  EXPECT_TRUE(identical(gen::arrow(50), gen::arrow(50)));
  expect_invalid_argument([] { gen::arrow(-1); });
}

TEST(Generators, RandomWithNnzIsExact) {
  struct Case {
    i64 rows, cols, nnz;
  };
  for (const Case& c :
       {Case{1, 1, 1}, Case{3, 4, 5}, Case{100, 100, 0}, Case{50, 40, 2000}, Case{1000, 1000, 5000},
        Case{300, 300, 2047}, Case{300, 300, 2048}, Case{300, 300, 2049}, Case{7, 100000, 350000},
        Case{100000, 3, 1000}, Case{0, 5, 0}, Case{5, 0, 0}}) {
    const Csr64 m = gen::random_with_nnz(c.rows, c.cols, c.nnz, 21);
    EXPECT_VALID(m);
    EXPECT_EQ(m.rows, c.rows);
    EXPECT_EQ(m.cols, c.cols);
    EXPECT_EQ(m.nnz(), c.nnz) << c.rows << " x " << c.cols;
    EXPECT_EQ(zero_values(m), 0);
  }
  const Csr64 m = gen::random_with_nnz(1000, 1000, 5000, 3);
  EXPECT_GT(empty_rows(m), 50);  // some rows empty
  EXPECT_GT(max_row(m), 8);      // and lengths vary
  expect_invalid_argument([] { gen::random_with_nnz(3, 3, 10, 1); }, "does not fit");
  expect_invalid_argument([] { gen::random_with_nnz(-3, 3, 1, 1); });
  expect_invalid_argument([] { gen::random_with_nnz(3, 3, -1, 1); });
  expect_invalid_argument([] { gen::random_with_nnz(0, 3, 1, 1); });
}

TEST(Generators, EmptySingleRowSingleColumnOneFullRow) {
  for (auto [r, c] : {std::pair<i64, i64>{0, 0}, {5, 0}, {0, 7}, {500, 400}}) {
    const Csr64 m = gen::empty(r, c);
    EXPECT_VALID(m);
    EXPECT_EQ(m.rows, r);
    EXPECT_EQ(m.cols, c);
    EXPECT_EQ(m.nnz(), 0);
  }
  expect_invalid_argument([] { gen::empty(-1, 3); });

  const Csr64 s = gen::single_row(20000, 15000, 18);
  EXPECT_VALID(s);
  EXPECT_EQ(s.rows, 1);
  EXPECT_EQ(s.cols, 20000);
  EXPECT_EQ(s.nnz(), 15000);
  EXPECT_EQ(zero_values(s), 0);
  EXPECT_EQ(gen::single_row(10, 10, 1).nnz(), 10);
  EXPECT_EQ(gen::single_row(10, 0, 1).nnz(), 0);
  EXPECT_EQ(gen::single_row(100000, 3, 1).nnz(), 3);
  EXPECT_VALID(gen::single_row(0, 0, 1));
  expect_invalid_argument([] { gen::single_row(10, 11, 1); });
  expect_invalid_argument([] { gen::single_row(-1, 0, 1); });

  const Csr64 col = gen::single_column(7000, 19);
  EXPECT_VALID(col);
  EXPECT_EQ(col.rows, 7000);
  EXPECT_EQ(col.cols, 1);
  EXPECT_EQ(col.nnz(), 7000);
  EXPECT_EQ(zero_values(col), 0);
  EXPECT_VALID(gen::single_column(0, 1));
  expect_invalid_argument([] { gen::single_column(-1, 1); });

  const Csr64 f = gen::one_full_row(4000, 3000, 1234, 20);
  EXPECT_VALID(f);
  EXPECT_EQ(f.nnz(), 3000);
  EXPECT_EQ(row_len(f, 1234), 3000);
  EXPECT_EQ(empty_rows(f), 3999);
  EXPECT_EQ(zero_values(f), 0);
  EXPECT_VALID(gen::one_full_row(1, 5, 0, 1));
  EXPECT_VALID(gen::one_full_row(3, 5, 2, 1));
  expect_invalid_argument([] { gen::one_full_row(10, 5, 10, 1); });
  expect_invalid_argument([] { gen::one_full_row(10, 5, -1, 1); });
  expect_invalid_argument([] { gen::one_full_row(0, 5, 0, 1); });
}

// Same seed: same bits; other seed: other matrix.
TEST(Generators, Determinism) {
  const std::vector<std::function<Csr64(std::uint64_t)>> makers = {
      [](std::uint64_t s) { return gen::banded_normal(3000, 10, 20.0, s); },
      [](std::uint64_t s) { return gen::banded_normal(3000, 10, 0.0, s); },
      [](std::uint64_t s) { return gen::random_rect(500, 800, 9, s); },
      [](std::uint64_t s) { return gen::rmat(11, 8, s); },
      [](std::uint64_t s) { return gen::rmat(11, 8, s, 0.5, 0.2, 0.2, 0.1); },
      [](std::uint64_t s) { return gen::circuit(5000, s, 0.3, 2, 2000); },
      [](std::uint64_t s) { return gen::random_with_nnz(400, 300, 7000, s); },
      [](std::uint64_t s) { return gen::single_row(5000, 300, s); },
      [](std::uint64_t s) { return gen::single_column(300, s); },
      [](std::uint64_t s) { return gen::one_full_row(30, 300, 4, s); },
  };
  for (std::size_t k = 0; k < makers.size(); ++k) {
    const Csr64 a = makers[k](5), b = makers[k](5), c = makers[k](6);
    EXPECT_VALID(a);
    EXPECT_TRUE(identical(a, b)) << "maker " << k;
    EXPECT_FALSE(identical(a, c)) << "maker " << k;
    EXPECT_EQ(zero_values(a), 0);
  }
}

// Fixed fingerprints (of the bytes: little-endian hosts): the generators must give these bits on
// every platform, compiler and thread count. A deliberate change of a generator updates them (and
// says so in the commit).
TEST(Generators, GoldenFingerprints) {
  EXPECT_EQ(fingerprint(gen::poisson3d(5, 4, 3)), 0x4e467e1a08c9edd1ULL);
  EXPECT_EQ(fingerprint(gen::stencil27(4, 3, 3)), 0xb423e45ea6ca57e1ULL);
  EXPECT_EQ(fingerprint(gen::banded_normal(2000, 12, 30.0, 7)), 0x5b44841784949fc6ULL);
  EXPECT_EQ(fingerprint(gen::banded_normal(2000, 12, 0.0, 7)), 0x4c97f1a53ba89347ULL);
  EXPECT_EQ(fingerprint(gen::random_rect(300, 1000, 20, 7)), 0xa4c4ff8642a25368ULL);
  EXPECT_EQ(fingerprint(gen::rmat(11, 8, 7)), 0x6827379685c594e6ULL);
  EXPECT_EQ(fingerprint(gen::rmat(11, 8, 7, 0.45, 0.15, 0.15, 0.1)), 0x32a1297da58ff977ULL);
  EXPECT_EQ(fingerprint(gen::circuit(5000, 7, 0.3, 2, 3000)), 0x947d7375379da161ULL);
  EXPECT_EQ(fingerprint(gen::arrow(100)), 0x88938081da5636deULL);
  EXPECT_EQ(fingerprint(gen::random_with_nnz(300, 200, 5000, 7)), 0x6270102404ca250fULL);
  EXPECT_EQ(fingerprint(gen::single_row(3000, 2000, 7)), 0x334348ca736036d5ULL);
  EXPECT_EQ(fingerprint(gen::single_column(100, 7)), 0xae6281627e476b1fULL);
  EXPECT_EQ(fingerprint(gen::one_full_row(10, 100, 3, 7)), 0x24bec8ca561f0b8eULL);
  // Large enough for the parallel paths (OpenMP regions run serially on small inputs).
  EXPECT_EQ(fingerprint(gen::banded_normal(8000, 12, 30.0, 7)), 0x0be1620a30c9daadULL);
  EXPECT_EQ(fingerprint(gen::rmat(17, 9, 7)), 0x7dce50a4fbdcc025ULL);
  EXPECT_EQ(fingerprint(gen::circuit(70000, 7, 0.3, 2, 3000)), 0xb8b0ad9bb75f2cd4ULL);
  EXPECT_EQ(fingerprint(gen::poisson3d(41, 40, 39)), 0xbb0002d15314ff89ULL);
  EXPECT_EQ(fingerprint(gen::random_with_nnz(3000, 2000, 100000, 7)), 0x8d91fc8726cb3c08ULL);
}

TEST(Generators, ConvertRoundTrip) {
  for (const Csr64& m : {gen::rmat(10, 8, 3), gen::circuit(3000, 3, 0.3, 2, 1000),
                         gen::poisson2d(9, 8), gen::empty(4, 5)}) {
    const auto small = m.convert<float, std::int32_t, std::int32_t>();
    EXPECT_EQ(small.rows, m.rows);
    EXPECT_EQ(small.cols, m.cols);
    EXPECT_EQ(small.nnz(), m.nnz());
    for (std::size_t p = 0; p < m.values.size(); ++p) {
      ASSERT_EQ(small.col_idx[p], m.col_idx[p]);
      ASSERT_EQ(small.values[p], static_cast<float>(m.values[p]));
      ASSERT_NE(small.values[p], 0.0f);
    }
    const auto back = small.convert<double, std::int64_t, std::int64_t>();
    EXPECT_EQ(structure_problem(back), "");
    EXPECT_EQ(back.row_ptr, m.row_ptr);
    EXPECT_EQ(back.col_idx, m.col_idx);
    for (std::size_t p = 0; p < m.values.size(); ++p)
      ASSERT_EQ(back.values[p], static_cast<double>(static_cast<float>(m.values[p])));
    const auto v = small.view();
    EXPECT_EQ(v.nnz, m.nnz());
    EXPECT_EQ(v.rows, m.rows);
  }
}

// ---------------------------------------------------------------------------------------------

TEST(GeneratorSpec, MatchesDirectCalls) {
  EXPECT_TRUE(identical(gen::from_spec("poisson2d:nx=7,ny=5"), gen::poisson2d(7, 5)));
  EXPECT_TRUE(identical(gen::from_spec("poisson2d:n=6"), gen::poisson2d(6, 6)));
  EXPECT_TRUE(identical(gen::from_spec("poisson3d:n=5,nz=2"), gen::poisson3d(5, 5, 2)));
  EXPECT_TRUE(identical(gen::from_spec("stencil27:nx=3,ny=4,nz=5"), gen::stencil27(3, 4, 5)));
  EXPECT_TRUE(identical(gen::from_spec("banded:rows=500,per_row=7,sigma=3.5,seed=9"),
                        gen::banded_normal(500, 7, 3.5, 9)));
  EXPECT_TRUE(identical(gen::from_spec("banded:rows=500,per_row=7,sigma=uniform"),
                        gen::banded_normal(500, 7, 0.0, 1)));
  EXPECT_TRUE(identical(gen::from_spec("banded:rows=500,per_row=7,sigma=0"),
                        gen::banded_normal(500, 7, 0.0, 1)));
  EXPECT_TRUE(identical(gen::from_spec("random:rows=50,cols=70,per_row=4,seed=2"),
                        gen::random_rect(50, 70, 4, 2)));
  EXPECT_TRUE(
      identical(gen::from_spec("random:rows=50,per_row=4"), gen::random_rect(50, 50, 4, 1)));
  EXPECT_TRUE(identical(gen::from_spec("rmat:scale=9,ef=4,seed=3"), gen::rmat(9, 4, 3)));
  EXPECT_TRUE(identical(gen::from_spec("rmat:scale=9,ef=4,a=0.5,b=0.2,c=0.1,noise=0.05"),
                        gen::rmat(9, 4, 1, 0.5, 0.2, 0.1, 0.05)));
  EXPECT_TRUE(identical(
      gen::from_spec("circuit:rows=3000,empty=0.2,long_rows=2,long_len=500,mean=3,seed=4"),
      gen::circuit(3000, 4, 0.2, 2, 500, 3.0)));
  EXPECT_TRUE(identical(gen::from_spec("circuit:rows=3000"), gen::circuit(3000, 1)));
  EXPECT_TRUE(identical(gen::from_spec("arrow:n=40"), gen::arrow(40)));
  EXPECT_TRUE(identical(gen::from_spec("random_nnz:rows=30,cols=20,nnz=77,seed=5"),
                        gen::random_with_nnz(30, 20, 77, 5)));
  EXPECT_TRUE(identical(gen::from_spec("random_nnz"), gen::random_with_nnz(1000, 1000, 10000, 1)));
  EXPECT_TRUE(identical(gen::from_spec("empty:rows=3,cols=0"), gen::empty(3, 0)));
  EXPECT_TRUE(identical(gen::from_spec("empty"), gen::empty(1000, 1000)));
  EXPECT_TRUE(
      identical(gen::from_spec("single_row:cols=90,nnz=9,seed=2"), gen::single_row(90, 9, 2)));
  EXPECT_TRUE(identical(gen::from_spec("single_row:cols=90"), gen::single_row(90, 90, 1)));
  EXPECT_TRUE(identical(gen::from_spec("single_column:rows=33"), gen::single_column(33, 1)));
  EXPECT_TRUE(identical(gen::from_spec("one_full_row:rows=5,cols=8,row=4,seed=3"),
                        gen::one_full_row(5, 8, 4, 3)));
  EXPECT_TRUE(identical(gen::from_spec("one_full_row:rows=5"), gen::one_full_row(5, 5, 0, 1)));
  // Tolerated forms: blanks around tokens, integral scientific notation, empty key list.
  EXPECT_TRUE(identical(gen::from_spec(" poisson2d : nx = 7 , ny = 5 "), gen::poisson2d(7, 5)));
  EXPECT_TRUE(identical(gen::from_spec("arrow:n=4e1"), gen::arrow(40)));
  EXPECT_TRUE(identical(gen::from_spec("empty:"), gen::empty(1000, 1000)));
}

TEST(GeneratorSpec, RejectsBadSpecs) {
  // {spec, a fragment of the message ("": any message)}.
  const std::pair<const char*, const char*> bad[] = {
      {"nonsense:n=3", "poisson3d"},  // lists names
      {"", "unknown family"},
      {"Poisson3d:n=3", "unknown family"},
      {"poisson3d:m=3", "n, nx, ny, nz"},
      {"banded:rows=10,sigmaa=3", "per_row"},
      {"poisson3d:n=abc", "not an integer"},
      {"poisson3d:n=1.5", "not an integer"},
      {"poisson3d:n=12x", "not an integer"},
      {"poisson3d:n=99999999999999999999", ""},
      {"poisson3d:n=", "needs a value"},
      {"poisson3d:n", "needs a value"},
      {"poisson3d:n=3,n=4", "twice"},
      {"poisson3d:n=3,", "unknown key"},
      {"poisson3d:n=3;nx=2", ""},
      {"banded:rows=10,sigma=wide", "not a number"},
      {"banded:rows=10,sigma=nan", "not a number"},
      {"banded:rows=10,per_row=3000000000", ""},
      {"banded:rows=10,seed=-1", "seed"},
      // Invalid sizes reported by the generator, with the spec and the valid keys added.
      {"poisson3d:n=-3", "valid keys: n, nx, ny, nz"},
      {"random:rows=10,cols=5,per_row=6", "per_row"},
      {"random_nnz:rows=3,cols=3,nnz=10", ""},
      {"rmat:scale=40", "scale"},
      {"rmat:scale=4,a=0.9,b=0.2", ""},
      {"circuit:rows=10,long_rows=11", ""},
      {"circuit:rows=100,mean=0.5", ""},
      {"circuit:rows=100,empty=2", ""},
      {"single_row:cols=5,nnz=6", ""},
      {"one_full_row:rows=3,row=3", ""},
      {"empty:rows=-1", ""},
      {"arrow:n=-1", ""},
      {"single_column:rows=-1", ""},
  };
  for (const auto& [spec, fragment] : bad) {
    SCOPED_TRACE(spec);
    expect_invalid_argument([spec = spec] { gen::from_spec(spec); }, fragment);
  }
}

TEST(GeneratorSpec, HelpListsEveryFamilyAndKey) {
  const auto lines = gen::spec_help();
  const std::vector<std::pair<std::string, std::vector<std::string>>> expected = {
      {"poisson2d", {"n", "nx", "ny"}},
      {"poisson3d", {"n", "nx", "ny", "nz"}},
      {"stencil27", {"n", "nx", "ny", "nz"}},
      {"interp3d", {"n", "nx", "ny", "nz"}},
      {"elasticity", {"n", "nx", "ny", "nz", "block", "points"}},
      {"powerlaw", {"rows", "cols", "mean", "tail", "seed"}},
      {"banded", {"rows", "cols", "per_row", "sigma", "seed"}},
      {"random", {"rows", "cols", "per_row", "seed"}},
      {"rmat", {"scale", "ef", "a", "b", "c", "noise", "seed"}},
      {"circuit", {"rows", "empty", "long_rows", "long_len", "mean", "seed"}},
      {"ghost", {"n", "nx", "ny", "nz"}},
      {"arrow", {"n"}},
      {"random_nnz", {"rows", "cols", "nnz", "seed"}},
      {"empty", {"rows", "cols"}},
      {"single_row", {"cols", "nnz", "seed"}},
      {"single_column", {"rows", "seed"}},
      {"one_full_row", {"rows", "cols", "row", "seed"}},
  };
  ASSERT_EQ(lines.size(), expected.size() + 1);  // the last line: perm, for every family
  EXPECT_NE(lines.back().find("perm=SEED"), std::string::npos) << lines.back();
  for (std::size_t k = 0; k < expected.size(); ++k) {
    EXPECT_EQ(lines[k].rfind(expected[k].first + ":", 0), 0u) << lines[k];
    for (const auto& key : expected[k].second)
      EXPECT_NE(lines[k].find(" " + key), std::string::npos) << lines[k] << " lacks " << key;
  }
  EXPECT_NE(lines[6].find("sigma=10"), std::string::npos);
  EXPECT_NE(lines[8].find("scale=21"), std::string::npos);
}

}  // namespace
