// Batched SpMV on the CPU (hola/batched.hpp): the reference against exact triplet products, the
// OpenMP kernel against the reference over randomized batches of every format (empty matrices,
// 1 x 1, rows longer than a warp, mixed sizes 1..1024, one shared pattern), float / double,
// int32 / int64, alpha / beta cases, NaN-poisoned y, and the validator's statuses on broken
// batches (nothing written).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

#include "hola/batched.hpp"
#include "hola/batched_generate.hpp"
#include "hola/batched_operator.hpp"
#include "hola/batched_tiled.hpp"
#include "hola/error.hpp"
#include "hola/generators.hpp"
#include "hola/hola_batched.h"
#include "type_lists.hpp"

namespace hola::batched {
namespace {

// Its own two-type list rather than test::BatchTypes: ctest names its cases after these types.
template <class V_, class I_>
struct Types {
  using V = V_;
  using I = I_;
};
using BatchTypes = ::testing::Types<Types<float, std::int32_t>, Types<float, std::int64_t>,
                                    Types<double, std::int32_t>, Types<double, std::int64_t>>;

template <class T>
class BatchedTest : public ::testing::Test {};
TYPED_TEST_SUITE(BatchedTest, BatchTypes);

constexpr Format kFormats[] = {Format::csr, Format::coo, Format::ell};

using gen::random_vector;

// Exact-ish product from the triplets (long double), and the bound sum |alpha a x| + |beta y|.
template <class V>
void triplet_product(const std::vector<SmallMatrix<V>>& ms, V alpha, const std::vector<V>& x,
                     V beta, const std::vector<V>& y0, std::vector<long double>& exact,
                     std::vector<long double>& bound) {
  exact.assign(y0.size(), 0.0L);
  bound.assign(y0.size(), 0.0L);
  std::int64_t xo = 0, yo = 0;
  for (const auto& m : ms) {
    for (std::int64_t k = 0; k < m.nnz(); ++k) {
      const long double p = static_cast<long double>(m.v[k]) * x[xo + m.c[k]];
      exact[yo + m.r[k]] += alpha * p;
      bound[yo + m.r[k]] += std::fabs(alpha * p);
    }
    for (std::int64_t i = 0; i < m.rows; ++i)
      if (beta != V(0)) {
        exact[yo + i] += static_cast<long double>(beta) * y0[yo + i];
        bound[yo + i] += std::fabs(static_cast<long double>(beta) * y0[yo + i]);
      }
    xo += m.cols;
    yo += m.rows;
  }
}

// Every entry of y within tol * (longest row + 2) * eps * bound of the exact value.
template <class V>
void expect_close(const std::vector<V>& y, const std::vector<long double>& exact,
                  const std::vector<long double>& bound, std::int64_t max_row, const char* what) {
  ASSERT_EQ(y.size(), exact.size());
  const long double eps = std::numeric_limits<V>::epsilon();
  std::int64_t bad = 0;
  for (std::size_t i = 0; i < y.size(); ++i) {
    const long double err = std::fabs(static_cast<long double>(y[i]) - exact[i]);
    const long double tol = 2.0L * eps * static_cast<long double>(max_row + 2) * bound[i] +
                            std::numeric_limits<V>::denorm_min();
    if (!(err <= tol)) {
      if (bad++ < 5)
        ADD_FAILURE() << what << ": y[" << i << "] = " << y[i] << ", expected " << exact[i]
                      << " (tolerance " << tol << ")";
    }
  }
  EXPECT_EQ(bad, 0) << what;
}

template <class V>
std::int64_t longest_row(const std::vector<SmallMatrix<V>>& ms) {
  std::int64_t best = 0;
  for (const auto& m : ms) {
    std::vector<std::int64_t> len(static_cast<std::size_t>(m.rows), 0);
    for (auto r : m.r) best = std::max(best, ++len[static_cast<std::size_t>(r)]);
  }
  return best;
}

template <class V>
std::int64_t total(const std::vector<SmallMatrix<V>>& ms, bool rows) {
  std::int64_t t = 0;
  for (const auto& m : ms) t += rows ? m.rows : m.cols;
  return t;
}

struct Scalars {
  double alpha, beta;
};
constexpr Scalars kScalars[] = {{1.0, 0.0}, {2.5, -0.5}, {-1.0, 1.0}, {0.0, 0.0}, {0.0, 2.0}};

// Runs reference and OpenMP on `format` of ms for every (alpha, beta); y NaN-poisoned when
// beta == 0. Both must match the triplet product.
template <class V, class I>
void check_batch(const std::vector<SmallMatrix<V>>& ms, Format format, std::uint64_t seed) {
  const BatchData<V, I> data = make_batch<V, I>(ms, format);
  const BatchView<V, I> view = data.view();
  const Features f = validate(view);
  ASSERT_EQ(f.count, static_cast<std::int64_t>(ms.size()));
  const std::int64_t rows = total(ms, true), cols = total(ms, false);
  ASSERT_EQ(f.total_rows, rows);
  ASSERT_EQ(f.total_cols, cols);
  const std::vector<V> x = random_vector<V>(cols, seed);
  const std::vector<V> y_start = random_vector<V>(rows, seed + 1);
  const std::int64_t max_row = longest_row(ms);
  for (const Scalars s : kScalars) {
    const V alpha = static_cast<V>(s.alpha), beta = static_cast<V>(s.beta);
    std::vector<V> y0 = y_start;
    if (beta == V(0)) std::fill(y0.begin(), y0.end(), std::numeric_limits<V>::quiet_NaN());
    std::vector<long double> exact, bound;
    triplet_product(ms, alpha, x, beta, y0, exact, bound);
    SCOPED_TRACE(std::string(format_name(format)) + " alpha " + std::to_string(s.alpha) + " beta " +
                 std::to_string(s.beta));
    std::vector<V> y_ref = y0;
    reference_apply_checked(view, alpha, x.data(), cols, beta, y_ref.data(), rows);
    expect_close(y_ref, exact, bound, max_row, "reference");
    for (int threads : {1, 2, 3}) {
      std::vector<V> y_omp = y0;
      omp_apply_checked(view, alpha, x.data(), cols, beta, y_omp.data(), rows, threads);
      expect_close(y_omp, exact, bound, max_row, "omp");
    }
  }
}

TYPED_TEST(BatchedTest, SmallMixedBatchesEveryFormat) {
  HOLA_BATCH_TYPES;
  for (std::uint64_t seed : {1u, 2u, 3u}) {
    const auto ms = random_matrices<V>(300, 1, 40, seed);
    for (Format f : kFormats) check_batch<V, I>(ms, f, seed);
  }
}

TYPED_TEST(BatchedTest, MixedSizesUpTo1024EveryFormat) {
  HOLA_BATCH_TYPES;
  const auto ms = random_matrices<V>(40, 1, 1024, 7);
  for (Format f : kFormats) check_batch<V, I>(ms, f, 7);
}

TYPED_TEST(BatchedTest, SharedPatternEveryFormat) {
  HOLA_BATCH_TYPES;
  for (std::int64_t n : {1, 5, 33, 200}) {
    const auto ms = random_shared<V>(50, n, n, 100 + n);
    check_batch<V, I>(ms, Format::csr_shared, 11);
    for (Format f : kFormats) check_batch<V, I>(ms, f, 11);
  }
  // Rectangular pattern and a pattern with no entries.
  check_batch<V, I>(random_shared<V>(20, 7, 3, 5), Format::csr_shared, 12);
  check_batch<V, I>(random_shared<V>(20, 4, 0, 5), Format::csr_shared, 13);
}

TYPED_TEST(BatchedTest, EmptyAndTinyBatches) {
  HOLA_BATCH_TYPES;
  check_batch<V, I>({}, Format::csr, 1);
  check_batch<V, I>({}, Format::csr_shared, 1);
  check_batch<V, I>({}, Format::coo, 1);
  check_batch<V, I>({}, Format::ell, 1);
  std::mt19937_64 rng(3);
  const std::vector<SmallMatrix<V>> one{random_matrix<V>(1, 1, 1, 1.0, rng)};
  for (Format f : {Format::csr, Format::csr_shared, Format::coo, Format::ell})
    check_batch<V, I>(one, f, 2);
  // Only empty matrices.
  const std::vector<SmallMatrix<V>> empties{random_matrix<V>(0, 0, 1, 0.0, rng),
                                            random_matrix<V>(3, 0, 1, 0.0, rng),
                                            random_matrix<V>(0, 3, 1, 0.0, rng)};
  for (Format f : kFormats) check_batch<V, I>(empties, f, 3);
}

TYPED_TEST(BatchedTest, LongRows) {
  HOLA_BATCH_TYPES;
  std::mt19937_64 rng(9);
  std::vector<SmallMatrix<V>> ms;
  for (int i = 0; i < 6; ++i) ms.push_back(random_matrix<V>(5 + i, 300, 300, 1.0, rng));
  for (Format f : kFormats) check_batch<V, I>(ms, f, 4);
}

// csr_tiled's and csr_i's host emulations (hola/batched_tiled.hpp: the device kernels' tiles,
// lanes and order of every sum, thread by thread) against the exact products, for every group
// size, with the tile boundaries they took: every row written once, no tile over 4 * G' entries or
// G' rows (G' = G for csr_tiled, one warp for csr_i), the tiling group on exactly the rows longer
// than a tile, and the same bits when repeated.
enum class Walk { tiled, csr_i };

template <class V, class I>
void check_tiled_emulation(const std::vector<SmallMatrix<V>>& ms, Format format, std::uint64_t seed,
                           Walk walk = Walk::tiled) {
  const BatchData<V, I> data = make_batch<V, I>(ms, format);
  const BatchView<V, I> view = data.view();
  const Features f = validate(view);
  const std::vector<V> x = random_vector<V>(f.total_cols, seed);
  const std::vector<V> y_start = random_vector<V>(f.total_rows, seed + 1);
  const std::int64_t max_row = longest_row(ms);
  auto run = [&](int G, V alpha, V beta, V* y, TiledStats* st) {
    if (walk == Walk::tiled)
      tiled_emulate(view, G, alpha, x.data(), beta, y, st);
    else
      split_emulate(view, G, alpha, x.data(), beta, y, st);
  };
  for (int G : {32, 64, 128, 256, 1024}) {
    const int tiling = walk == Walk::tiled ? G : 32;
    const int T = walk == Walk::tiled ? tiled_tile_entries(G)
                                      : tiled_tile_entries(32, csr_i_entries_per_thread(sizeof(V)));
    std::int64_t long_rows = 0;
    for (const auto& m : ms) {
      std::vector<std::int64_t> len(static_cast<std::size_t>(m.rows), 0);
      for (auto r : m.r) ++len[static_cast<std::size_t>(r)];
      for (auto l : len) long_rows += l > T;
    }
    for (const Scalars s : kScalars) {
      const V alpha = static_cast<V>(s.alpha), beta = static_cast<V>(s.beta);
      std::vector<V> y0 = y_start;
      if (beta == V(0)) std::fill(y0.begin(), y0.end(), std::numeric_limits<V>::quiet_NaN());
      std::vector<long double> exact, bound;
      triplet_product(ms, alpha, x, beta, y0, exact, bound);
      const std::string what = std::string(walk == Walk::tiled ? "csr_tiled " : "csr_i ") +
                               format_name(format) + " G " + std::to_string(G) + " alpha " +
                               std::to_string(s.alpha) + " beta " + std::to_string(s.beta);
      std::vector<V> y = y0;
      TiledStats st;
      run(G, alpha, beta, y.data(), &st);
      expect_close(y, exact, bound, max_row, what.c_str());
      EXPECT_EQ(st.rows_written, f.total_rows) << what;
      EXPECT_LE(st.max_tile_entries, T) << what;
      EXPECT_LE(st.max_tile_rows, tiling) << what;
      EXPECT_EQ(st.long_rows, long_rows) << what;
      // Repeated: the same result bit for bit (beta != 0 applies again on the result).
      if (beta == V(0)) {
        std::vector<V> again = y0;
        run(G, alpha, beta, again.data(), nullptr);
        // memcmp's pointers must not be null even for 0 bytes (an empty batch has no y).
        if (!y.empty())
          EXPECT_EQ(0, std::memcmp(again.data(), y.data(), y.size() * sizeof(V))) << what;
      }
    }
  }
}

TYPED_TEST(BatchedTest, TiledEmulationTileEdges) {
  HOLA_BATCH_TYPES;
  check_tiled_emulation<V, I>(tile_edge_matrices<V>(41), Format::csr, 41);
  check_tiled_emulation<V, I>({}, Format::csr, 42);
}

TYPED_TEST(BatchedTest, TiledEmulationRandomAndShared) {
  HOLA_BATCH_TYPES;
  check_tiled_emulation<V, I>(random_matrices<V>(150, 1, 300, 43), Format::csr, 43);
  for (std::int64_t n : {1, 33, 300})
    check_tiled_emulation<V, I>(random_shared<V>(12, n, n, 44 + n), Format::csr_shared, 44);
  // A shared pattern with rows longer than any tile, and one without entries.
  check_tiled_emulation<V, I>(random_shared<V>(6, 40, 4500, 45), Format::csr_shared, 45);
  check_tiled_emulation<V, I>(random_shared<V>(6, 300, 0, 46), Format::csr_shared, 46);
}

// csr_i: the same matrices; a warp's share boundaries fall inside long rows, on empty rows and
// past the last entry (more warps than entries), and every row must still be written once.
TYPED_TEST(BatchedTest, CsrIEmulationTileEdges) {
  HOLA_BATCH_TYPES;
  check_tiled_emulation<V, I>(tile_edge_matrices<V>(51), Format::csr, 51, Walk::csr_i);
  check_tiled_emulation<V, I>({}, Format::csr, 52, Walk::csr_i);
}

TYPED_TEST(BatchedTest, CsrIEmulationRandomAndShared) {
  HOLA_BATCH_TYPES;
  check_tiled_emulation<V, I>(random_matrices<V>(150, 1, 300, 53), Format::csr, 53, Walk::csr_i);
  for (std::int64_t n : {1, 33, 300})
    check_tiled_emulation<V, I>(random_shared<V>(12, n, n, 54 + n), Format::csr_shared, 54,
                                Walk::csr_i);
  check_tiled_emulation<V, I>(random_shared<V>(6, 40, 4500, 55), Format::csr_shared, 55,
                              Walk::csr_i);
  check_tiled_emulation<V, I>(random_shared<V>(6, 300, 0, 56), Format::csr_shared, 56, Walk::csr_i);
}

// csr_i's share: the smallest S with warps * S >= entries (every entry in some warp's share).
TEST(BatchedSplit, ShareIsTheSmallestThatCoversEveryEntry) {
  EXPECT_EQ(split_share<std::int64_t>(0, 8), 0);
  EXPECT_EQ(split_share<std::int64_t>(1, 8), 1);
  EXPECT_EQ(split_share<std::int64_t>(16, 8), 2);
  EXPECT_EQ(split_share<std::int64_t>(17, 8), 3);
  EXPECT_EQ(split_share<int>(1000, 32), 32);
  for (std::int64_t n : {1, 7, 8, 9, 100, 1023}) {
    const std::int64_t s = split_share<std::int64_t>(n, 8);
    EXPECT_GE(8 * s, n);
    EXPECT_LT(8 * (s - 1), n);
  }
}

// Skip flags: the flagged matrices' rows of y stay as they were, bit for bit; the others get the
// same result as without flags (reference, OpenMP, and BatchedOperator's CPU backends).
TYPED_TEST(BatchedTest, SkipFlagsLeaveMatricesOut) {
  HOLA_BATCH_TYPES;
  const auto ms = random_matrices<V>(120, 1, 50, 23);
  std::mt19937_64 rng(24);
  std::vector<int> skip(ms.size());
  for (auto& k : skip) k = static_cast<int>(rng() % 3);  // 0: computed; 1, 2: left out
  for (Format f : {Format::csr, Format::coo, Format::ell}) {
    const auto data = make_batch<V, I>(ms, f);
    const auto view = data.view();
    const std::vector<V> x = random_vector<V>(data.total_cols, 25);
    const std::vector<V> y0 = random_vector<V>(data.total_rows, 26);
    std::vector<V> full_ref = y0, full_omp = y0;
    reference_apply(view, V(2), x.data(), V(0.5), full_ref.data());
    omp_apply(view, V(2), x.data(), V(0.5), full_omp.data(), 2);
    BatchedOperator<V, I> op(view, BatchedBackend::cpu);
    BatchedOperator<V, I> ref_op(view, BatchedBackend::reference);
    std::vector<std::vector<V>> got(4, y0);
    reference_apply(view, V(2), x.data(), V(0.5), got[0].data(), skip.data());
    omp_apply(view, V(2), x.data(), V(0.5), got[1].data(), 3, skip.data());
    op.apply(V(2), x.data(), data.total_cols, V(0.5), got[2].data(), data.total_rows, nullptr,
             skip.data());
    ref_op.apply(V(2), x.data(), data.total_cols, V(0.5), got[3].data(), data.total_rows, nullptr,
                 skip.data());
    for (std::size_t k = 0; k < got.size(); ++k) {
      const std::vector<V>& full = k == 0 || k == 3 ? full_ref : full_omp;
      for (std::size_t b = 0; b < ms.size(); ++b)
        for (auto r = data.row_off[b]; r < data.row_off[b + 1]; ++r) {
          const V want = skip[b] ? y0[r] : full[r];
          ASSERT_EQ(0, std::memcmp(&got[k][r], &want, sizeof(V)))
              << format_name(f) << " way " << k << " matrix " << b << " skip " << skip[b];
        }
    }
  }
}

TYPED_TEST(BatchedTest, BetaZeroNeverReadsY) {
  HOLA_BATCH_TYPES;
  const auto ms = random_matrices<V>(64, 1, 30, 21);
  for (Format f : kFormats) {
    const auto data = make_batch<V, I>(ms, f);
    const auto view = data.view();
    const std::vector<V> x = random_vector<V>(data.total_cols, 5);
    for (V alpha : {V(1), V(0)}) {
      std::vector<V> y(static_cast<std::size_t>(data.total_rows),
                       std::numeric_limits<V>::quiet_NaN());
      std::vector<V> y2 = y;
      reference_apply(view, alpha, x.data(), V(0), y.data());
      omp_apply(view, alpha, x.data(), V(0), y2.data());
      for (std::size_t i = 0; i < y.size(); ++i) {
        ASSERT_FALSE(std::isnan(y[i])) << format_name(f) << " reference row " << i;
        ASSERT_FALSE(std::isnan(y2[i])) << format_name(f) << " omp row " << i;
        if (alpha == V(0)) {
          ASSERT_EQ(y[i], V(0));
          ASSERT_EQ(y2[i], V(0));
        }
      }
    }
  }
}

// A broken batch must raise `expected` from validate() and from the checked applies, and leave
// y bitwise unchanged.
template <class V, class I>
void expect_rejected(const BatchData<V, I>& data, status expected, const std::string& what) {
  SCOPED_TRACE(what);
  const auto view = data.view();
  try {
    validate(view);
    ADD_FAILURE() << what << ": validate accepted it";
  } catch (const error& e) {
    EXPECT_EQ(e.code(), expected) << what << ": " << e.what();
    EXPECT_NE(std::string(e.what()).find("batched"), std::string::npos);
  }
  const std::int64_t rows = std::max<std::int64_t>(data.total_rows, 0);
  const std::int64_t cols = std::max<std::int64_t>(data.total_cols, 0);
  const std::vector<V> x = random_vector<V>(cols, 1);
  const std::vector<V> y0 = random_vector<V>(rows, 2);
  for (int kind = 0; kind < 2; ++kind) {
    std::vector<V> y = y0;
    try {
      if (kind == 0)
        reference_apply_checked(view, V(1), x.data(), cols, V(1), y.data(), rows);
      else
        omp_apply_checked(view, V(1), x.data(), cols, V(1), y.data(), rows);
      ADD_FAILURE() << what << ": apply accepted it";
    } catch (const error& e) {
      EXPECT_EQ(e.code(), expected);
    }
    EXPECT_EQ(0, std::memcmp(y.data(), y0.data(), y.size() * sizeof(V))) << what << ": y changed";
  }
}

TYPED_TEST(BatchedTest, BadInputsRaiseAndWriteNothing) {
  HOLA_BATCH_TYPES;
  const auto ms = random_matrices<V>(20, 2, 10, 31);
  const auto csr = make_batch<V, I>(ms, Format::csr);
  const auto coo = make_batch<V, I>(ms, Format::coo);
  const auto ell = make_batch<V, I>(ms, Format::ell);
  const auto shared = make_batch<V, I>(random_shared<V>(10, 6, 6, 3), Format::csr_shared);
  ASSERT_NO_THROW(validate(csr.view()));
  ASSERT_NO_THROW(validate(coo.view()));
  ASSERT_NO_THROW(validate(ell.view()));
  ASSERT_NO_THROW(validate(shared.view()));

  // Find a matrix with entries and a row inside it.
  std::int64_t b = 0;
  while (csr.nnz_off[b + 1] == csr.nnz_off[b] || csr.row_off[b + 1] == csr.row_off[b]) ++b;

  for (const auto* base : {&csr, &coo, &ell}) {
    const std::string fmt = format_name(base->format);
    {
      auto d = *base;
      d.count = -1;
      expect_rejected(d, status::invalid_argument, fmt + " negative count");
    }
    {
      auto d = *base;
      d.row_off.clear();
      expect_rejected(d, status::invalid_argument, fmt + " null row_off");
    }
    {
      auto d = *base;
      d.col_idx.clear();
      expect_rejected(d, status::invalid_argument, fmt + " null col_idx");
    }
    {
      auto d = *base;
      d.values.clear();
      expect_rejected(d, status::invalid_argument, fmt + " null values");
    }
    {
      auto d = *base;
      d.row_off[0] = 1;
      expect_rejected(d, status::size_mismatch, fmt + " row_off[0] != 0");
    }
    {
      auto d = *base;
      std::swap(d.col_off[3], d.col_off[4]);
      if (d.col_off[3] != d.col_off[4])
        expect_rejected(d, status::size_mismatch, fmt + " decreasing col_off");
    }
    {
      auto d = *base;
      d.total_rows += 1;
      expect_rejected(d, status::size_mismatch, fmt + " total_rows off");
    }
    {
      auto d = *base;
      d.total_cols -= 1;
      expect_rejected(d, status::size_mismatch, fmt + " total_cols off");
    }
    {
      auto d = *base;
      d.total_nnz += 1;
      expect_rejected(d, status::size_mismatch, fmt + " total_nnz off");
    }
    {
      // Column past the matrix's own columns (still inside the concatenated x).
      auto d = *base;
      const std::int64_t p = d.nnz_off[b];
      d.col_idx[p] = static_cast<I>(d.col_off[b + 1] - d.col_off[b]);
      expect_rejected(d, status::invalid_csr, fmt + " column out of range");
    }
    {
      auto d = *base;
      d.col_idx[d.nnz_off[b]] = I(-2);
      expect_rejected(d, status::invalid_csr, fmt + " negative column");
    }
  }
  {
    auto d = csr;
    d.row_ptr[d.row_off[b] + 1] = d.row_ptr[d.row_off[b]] - 1;
    expect_rejected(d, status::invalid_csr, "csr decreasing row_ptr");
  }
  {
    auto d = csr;
    d.row_ptr[d.row_off[b]] += 1;
    expect_rejected(d, status::invalid_csr, "csr row_ptr disagrees with nnz_off");
  }
  {
    auto d = csr;
    d.row_ptr.clear();
    expect_rejected(d, status::invalid_argument, "csr null row_ptr");
  }
  {
    auto d = coo;
    d.row_idx[d.nnz_off[b]] = static_cast<I>(d.row_off[b + 1] - d.row_off[b]);
    expect_rejected(d, status::invalid_csr, "coo row out of range");
  }
  {
    // Two neighbouring entries of one matrix with different rows: swap them to break the order.
    auto d = coo;
    std::int64_t p = -1;
    for (std::int64_t m = 0; m < d.count && p < 0; ++m)
      for (std::int64_t q = d.nnz_off[m]; q + 1 < d.nnz_off[m + 1]; ++q)
        if (d.row_idx[q] != d.row_idx[q + 1]) {
          p = q;
          break;
        }
    ASSERT_GE(p, 0) << "no matrix with two rows holding entries";
    {
      std::swap(d.row_idx[p], d.row_idx[p + 1]);
      expect_rejected(d, status::invalid_csr, "coo rows not sorted");
    }
  }
  {
    auto d = coo;
    d.row_idx.clear();
    expect_rejected(d, status::invalid_argument, "coo null row_idx");
  }
  {
    // ELL slab that is not rows * width: move one slot to the next matrix.
    auto d = ell;
    d.nnz_off[b + 1] -= 1;
    expect_rejected(d, status::size_mismatch, "ell slab not rows * width");
  }
  {
    auto d = shared;
    d.total_rows += 1;
    expect_rejected(d, status::size_mismatch, "shared total_rows off");
  }
  {
    auto d = shared;
    d.col_idx[0] = static_cast<I>(d.shared_cols);
    expect_rejected(d, status::invalid_csr, "shared column out of range");
  }
  {
    auto d = shared;
    d.row_ptr.back() += 1;
    expect_rejected(d, status::invalid_csr, "shared row_ptr end != shared_nnz");
  }
  {
    auto d = shared;
    d.shared_rows = -1;
    expect_rejected(d, status::invalid_argument, "shared negative rows");
  }
}

TYPED_TEST(BatchedTest, VectorChecks) {
  HOLA_BATCH_TYPES;
  const auto d = make_batch<V, I>(random_matrices<V>(10, 1, 8, 3), Format::csr);
  const auto view = d.view();
  std::vector<V> x(static_cast<std::size_t>(d.total_cols), V(1));
  std::vector<V> y(static_cast<std::size_t>(d.total_rows), V(2));
  const std::vector<V> y0 = y;
  auto code = [&](auto&& call) {
    try {
      call();
    } catch (const error& e) {
      return e.code();
    }
    return status::success;
  };
  EXPECT_EQ(code([&] {
              reference_apply_checked(view, V(1), x.data(), d.total_cols + 1, V(0), y.data(),
                                      d.total_rows);
            }),
            status::size_mismatch);
  EXPECT_EQ(code([&] {
              omp_apply_checked(view, V(1), x.data(), d.total_cols, V(0), y.data(),
                                d.total_rows - 1);
            }),
            status::size_mismatch);
  EXPECT_EQ(code([&] {
              omp_apply_checked(view, V(1), static_cast<const V*>(nullptr), d.total_cols, V(0),
                                y.data(), d.total_rows);
            }),
            status::invalid_argument);
  EXPECT_EQ(y, y0);
  // x overlapping y.
  std::vector<V> both(static_cast<std::size_t>(d.total_rows + d.total_cols), V(1));
  EXPECT_EQ(code([&] {
              omp_apply_checked(view, V(1), both.data(), d.total_cols, V(0), both.data(),
                                d.total_rows);
            }),
            status::aliasing);
  EXPECT_EQ(code([&] {
              omp_apply_checked(view, V(1), x.data(), d.total_cols, V(0), y.data(), d.total_rows);
            }),
            status::success);
}

TYPED_TEST(BatchedTest, OperatorCpuBackends) {
  HOLA_BATCH_TYPES;
  const auto ms = random_matrices<V>(120, 1, 70, 41);
  for (Format f : {Format::csr, Format::coo, Format::ell}) {
    const auto d = make_batch<V, I>(ms, f);
    const std::vector<V> x = random_vector<V>(d.total_cols, 1);
    std::vector<V> y0 = random_vector<V>(d.total_rows, 2);
    std::vector<V> want = y0;
    reference_apply(d.view(), V(1.5), x.data(), V(-1), want.data());
    for (BatchedBackend be :
         {BatchedBackend::automatic, BatchedBackend::cpu, BatchedBackend::reference}) {
      BatchedOperator<V, I> op(d.view(), be);
      EXPECT_EQ(op.features().count, 120);
      EXPECT_EQ(op.kernel_name(), be == BatchedBackend::reference ? "reference" : "cpu");
      std::vector<V> y = y0;
      op.apply(V(1.5), x.data(), d.total_cols, V(-1), y.data(), d.total_rows);
      std::vector<long double> exact, bound;
      triplet_product(ms, V(1.5), x, V(-1), y0, exact, bound);
      expect_close(y, exact, bound, longest_row(ms), "operator");
      // Wrong lengths: nothing written.
      std::vector<V> y2 = y0;
      EXPECT_THROW(op.apply(V(1), x.data(), d.total_cols - 1, V(0), y2.data(), d.total_rows),
                   error);
      EXPECT_EQ(y2, y0);
    }
    // The plan follows the format even on the CPU backends.
    EXPECT_TRUE(kernel_supports(BatchedOperator<V, I>(d.view()).plan().kernel, f));
  }
  // Errors at construction.
  auto d = make_batch<V, I>(ms, Format::csr);
  d.col_idx[0] = I(-5);
  try {
    BatchedOperator<V, I> op(d.view());
    ADD_FAILURE() << "invalid batch accepted";
  } catch (const error& e) {
    EXPECT_EQ(e.code(), status::invalid_csr);
  }
  const auto good = make_batch<V, I>(ms, Format::csr);
  try {
    BatchedOperator<V, I> op(good.view(), BatchedBackend::cpu, "csr_vector");
    ADD_FAILURE() << "GPU kernel name accepted by the CPU backend";
  } catch (const error& e) {
    EXPECT_EQ(e.code(), status::invalid_argument);
  }
  try {
    BatchedOperator<V, I> op(good.view(), BatchedBackend::gpu);
    ADD_FAILURE() << "host batch accepted by the GPU backend";
  } catch (const error& e) {
    EXPECT_TRUE(e.code() == status::invalid_argument || e.code() == status::unsupported ||
                e.code() == status::no_device);
  }
}

// The C descriptor of a host batch: the view's fields, in hola_batched_desc's order.
template <class V, class I>
hola_batched_desc describe(const BatchData<V, I>& d) {
  const BatchView<V, I> v = d.view();
  const auto format = static_cast<hola_batched_format>(v.format);
  const hola_value_type value_type = std::is_same_v<V, float> ? HOLA_FLOAT32 : HOLA_FLOAT64;
  const hola_index_type index_type = std::is_same_v<I, std::int32_t> ? HOLA_INT32 : HOLA_INT64;
  return {format,    value_type, index_type,    HOLA_MEMORY_HOST, v.count,      v.row_off,
          v.col_off, v.nnz_off,  v.shared_rows, v.shared_cols,    v.shared_nnz, v.row_ptr,
          v.row_idx, v.col_idx,  v.values,      v.total_rows,     v.total_cols, v.total_nnz};
}

TYPED_TEST(BatchedTest, CApi) {
  HOLA_BATCH_TYPES;
  const auto ms = random_matrices<V>(50, 1, 40, 43);
  for (Format f : {Format::csr, Format::coo, Format::ell}) {
    const auto d = make_batch<V, I>(ms, f);
    const hola_batched_desc desc = describe(d);
    hola_batched op = nullptr;
    ASSERT_EQ(hola_batched_create(&op, &desc, HOLA_BATCHED_BACKEND_CPU, nullptr), HOLA_SUCCESS)
        << hola_batched_last_error();
    const char* name = nullptr;
    ASSERT_EQ(hola_batched_kernel_name(op, &name), HOLA_SUCCESS);
    EXPECT_STREQ(name, "cpu");
    const std::vector<V> x = random_vector<V>(d.total_cols, 3);
    const std::vector<V> y0(static_cast<std::size_t>(d.total_rows),
                            std::numeric_limits<V>::quiet_NaN());
    std::vector<V> y = y0;
    const V alpha = V(2), beta = V(0);
    ASSERT_EQ(hola_batched_apply(op, &alpha, x.data(), d.total_cols, &beta, y.data(), d.total_rows,
                                 nullptr),
              HOLA_SUCCESS)
        << hola_batched_last_error();
    std::vector<long double> exact, bound;
    triplet_product(ms, alpha, x, beta, y0, exact, bound);
    expect_close(y, exact, bound, longest_row(ms), "C API");
    std::vector<V> y2 = y;
    EXPECT_EQ(hola_batched_apply(op, &alpha, x.data(), d.total_cols, &beta, y2.data(),
                                 d.total_rows + 1, nullptr),
              HOLA_SIZE_MISMATCH);
    EXPECT_NE(std::string(hola_batched_last_error()).find("y has"), std::string::npos);
    EXPECT_EQ(hola_batched_apply(op, nullptr, x.data(), d.total_cols, &beta, y2.data(),
                                 d.total_rows, nullptr),
              HOLA_INVALID_ARGUMENT);
    EXPECT_EQ(0, std::memcmp(y2.data(), y.data(), y.size() * sizeof(V)));
    EXPECT_EQ(hola_batched_destroy(op), HOLA_SUCCESS);
  }
  // Bad descriptors: clear statuses, no handle.
  const auto d = make_batch<V, I>(ms, Format::csr);
  hola_batched op = reinterpret_cast<hola_batched>(&op);
  hola_batched_desc bad = describe(d);
  bad.total_cols += 3;
  EXPECT_EQ(hola_batched_create(&op, &bad, HOLA_BATCHED_BACKEND_AUTO, "auto"), HOLA_SIZE_MISMATCH);
  EXPECT_EQ(op, nullptr);
  bad = describe(d);
  bad.format = static_cast<hola_batched_format>(9);
  EXPECT_EQ(hola_batched_create(&op, &bad, HOLA_BATCHED_BACKEND_AUTO, nullptr),
            HOLA_INVALID_ARGUMENT);
  bad = describe(d);
  bad.index_type = static_cast<hola_index_type>(5);
  EXPECT_EQ(hola_batched_create(&op, &bad, HOLA_BATCHED_BACKEND_AUTO, nullptr), HOLA_UNSUPPORTED);
  bad = describe(d);
  EXPECT_EQ(hola_batched_create(&op, &bad, HOLA_BATCHED_BACKEND_CPU, "warp_magic"),
            HOLA_INVALID_ARGUMENT);
  EXPECT_NE(std::string(hola_batched_last_error()).find("warp_magic"), std::string::npos);
  EXPECT_EQ(hola_batched_create(nullptr, &bad, HOLA_BATCHED_BACKEND_CPU, nullptr),
            HOLA_INVALID_ARGUMENT);
  EXPECT_EQ(hola_batched_apply(nullptr, nullptr, nullptr, 0, nullptr, nullptr, 0, nullptr),
            HOLA_INVALID_ARGUMENT);
}

TEST(BatchedPlan, RuleFollowsFeatures) {
  Features f;
  f.count = 1000;
  f.total_rows = 1000 * 20;
  f.total_nnz = 1000 * 20 * 3;
  f.max_rows = 20;
  f.max_cols = 20;
  f.max_row_nnz = 5;
  Plan p = choose_plan(f, Format::csr, sizeof(double));
  EXPECT_EQ(p.kernel, Kernel::csr_scalar);
  EXPECT_EQ(p.group_threads, 32);
  EXPECT_EQ(p.matrices_per_block(), 8);
  EXPECT_FALSE(p.stage_x);  // a thread per row reads x from global memory (measured)
  EXPECT_EQ(p.stage_cols, 0);

  f.total_nnz = 1000 * 20 * 7;  // mean row length 7: still a thread per row
  f.max_row_nnz = 32;
  EXPECT_EQ(choose_plan(f, Format::csr, sizeof(double)).kernel, Kernel::csr_scalar);
  f.total_nnz = 1000 * 20 * 16;  // mean row length 16, 20 rows a matrix: csr_i, one warp
  p = choose_plan(f, Format::csr, sizeof(double));
  EXPECT_EQ(p.kernel, Kernel::csr_i);
  EXPECT_EQ(p.group_threads, 32);  // 320 entries a matrix: under 768 entries for one warp
  EXPECT_FALSE(p.stage_x);         // x in global memory (measured)
  f.count = 10;                    // 2000 rows a matrix, mean row length 16: csr_i over 8 warps
  f.max_rows = 2000;
  f.max_cols = 2000;
  p = choose_plan(f, Format::csr, sizeof(double));
  EXPECT_EQ(p.kernel, Kernel::csr_i);
  EXPECT_EQ(p.group_threads, 256);  // 32000 entries a matrix: more than 8 warps of 768
  EXPECT_FALSE(p.stage_x);          // 16 KB of x would fit, but csr_i reads x from global memory
  EXPECT_EQ(p.stage_cols, 0);
  f.count = 400;  // 50 rows of 16: 800 entries, more than 768 for one warp
  f.total_rows = 400 * 50;
  f.total_nnz = 400 * 50 * 16;
  EXPECT_EQ(choose_plan(f, Format::csr, sizeof(float)).group_threads, 64);
  f.total_nnz = 400 * 50 * 48;  // 2 400 entries a matrix: 4 warps of 600
  EXPECT_EQ(choose_plan(f, Format::csr, sizeof(float)).group_threads, 128);
  f.total_nnz = 400 * 50 * 16;
  // Forced csr_tiled keeps its own group size: a few tiles of the whole group.
  f.count = 10;
  f.total_rows = 10 * 2000;
  f.total_nnz = 10 * 2000 * 16;
  p = choose_plan(f, Format::csr, sizeof(double), Kernel::csr_tiled);
  EXPECT_EQ(p.kernel, Kernel::csr_tiled);
  EXPECT_EQ(p.group_threads, 256);
  EXPECT_FALSE(p.stage_x);
  f.count = 100;  // 200 rows a matrix, mean row length 40, shared pattern: csr_i
  f.total_rows = 100 * 200;
  f.total_nnz = 100 * 200 * 40;
  f.max_rows = 200;
  f.max_cols = 20;
  f.max_row_nnz = 64;
  p = choose_plan(f, Format::csr_shared, sizeof(float));
  EXPECT_EQ(p.kernel, Kernel::csr_i);
  EXPECT_EQ(p.group_threads, 256);  // 8000 entries a matrix
  EXPECT_EQ(p.matrices_per_block(), 1);
  EXPECT_FALSE(p.stage_x);
  EXPECT_EQ(p.stage_cols, 0);
  f.total_nnz = 100 * 200 * 5;  // mean row length 5: a thread per row
  EXPECT_EQ(choose_plan(f, Format::csr_shared, sizeof(float)).kernel, Kernel::csr_scalar);
  f.count = 1000;
  f.total_rows = 1000 * 20;
  f.total_nnz = 1000 * 20 * 40;
  // Forced csr_vector: as many warps as rows of the largest matrix (20: 8 warps), x staged.
  p = choose_plan(f, Format::csr_shared, sizeof(float), Kernel::csr_vector);
  EXPECT_EQ(p.group_threads, 256);
  EXPECT_TRUE(p.stage_x);

  f.max_rows = 100;
  f.max_cols = 10000;  // x too large to stage
  f.total_nnz = f.total_rows * 2;
  f.max_row_nnz = 4;
  p = choose_plan(f, Format::csr, sizeof(double));
  EXPECT_EQ(p.kernel, Kernel::csr_scalar);
  EXPECT_EQ(p.group_threads, 128);
  EXPECT_FALSE(p.stage_x);
  EXPECT_EQ(choose_plan(f, Format::coo, 8).kernel, Kernel::coo);
  EXPECT_EQ(choose_plan(f, Format::ell, 8).kernel, Kernel::ell);
  f.max_rows = 5000;
  EXPECT_EQ(choose_plan(f, Format::ell, 8).group_threads, 256);

  EXPECT_EQ(choose_plan(f, Format::csr, 8, Kernel::csr_vector).kernel, Kernel::csr_vector);
  try {
    choose_plan(f, Format::coo, 8, Kernel::csr_vector);
    ADD_FAILURE() << "csr_vector accepted COO";
  } catch (const error& e) {
    EXPECT_EQ(e.code(), status::unsupported);
  }
  EXPECT_EQ(kernel_from_name("ell"), Kernel::ell);
  EXPECT_EQ(kernel_from_name("csr_smart"), Kernel::csr_smart);
  EXPECT_EQ(choose_plan(f, Format::csr_shared, 4, Kernel::csr_smart).kernel, Kernel::csr_smart);
  EXPECT_FALSE(kernel_supports(Kernel::csr_smart, Format::ell));
  for (const KernelDesc& d : kKernels) {
    EXPECT_EQ(kernel_from_name(d.name), d.kernel);
    EXPECT_EQ(std::string(kernel_name(d.kernel)), d.name);
    EXPECT_EQ(&kernel_desc(d.kernel), &d);
    EXPECT_NE(d.formats, 0u) << d.name;
  }
  EXPECT_EQ(kernel_from_name("auto"), Kernel::auto_select);
  EXPECT_EQ(kernel_from_name("csr_tiled"), Kernel::csr_tiled);
  EXPECT_TRUE(kernel_supports(Kernel::csr_tiled, Format::csr_shared));
  EXPECT_FALSE(kernel_supports(Kernel::csr_tiled, Format::coo));
  try {
    kernel_from_name("nope");
    ADD_FAILURE();
  } catch (const error& e) {
    EXPECT_EQ(e.code(), status::invalid_argument);
    EXPECT_NE(std::string(e.what()).find("csr_tiled"), std::string::npos);  // lists the names
  }
  EXPECT_THROW(kernel_desc(Kernel::auto_select), error);
}

// Shared memory accounting and the checks gpu::apply runs on every plan (host code).
TEST(BatchedPlan, SharedMemoryAndPlanChecks) {
  auto code = [](const Plan& p, Format f, std::size_t vb) {
    try {
      check_plan(p, f, vb);
      return status::success;
    } catch (const error& e) {
      return e.code();
    }
  };
  Plan p;
  p.kernel = Kernel::csr_scalar;
  p.block_threads = 256;
  p.group_threads = 64;
  EXPECT_EQ(plan_shared_bytes(p, 8), 0u);
  p.stage_x = true;
  p.stage_cols = 100;
  EXPECT_EQ(plan_shared_bytes(p, 8), 4u * 100 * 8);
  EXPECT_EQ(code(p, Format::csr, 8), status::success);

  // csr_tiled: its work space, then staged x rounded up to 16 bytes before it.
  p.kernel = Kernel::csr_tiled;
  const std::size_t work = tiled_work_bytes(256, 8);
  EXPECT_EQ(work, 256u * (4 * 8 + 4) + 8u * (8 + 8));
  EXPECT_EQ(kernel_work_bytes(Kernel::csr_tiled, 256, 8), work);
  EXPECT_EQ(kernel_work_bytes(Kernel::csr_i, 256, 8),
            tiled_work_bytes(256, 8, 8));  // the same slices, a warp each, 8 entries a thread
  EXPECT_EQ(kernel_work_bytes(Kernel::csr_i, 256, 4), tiled_work_bytes(256, 4, 4));
  EXPECT_EQ(kernel_work_bytes(Kernel::csr_scalar, 256, 8), 0u);
  p.stage_cols = 101;  // 4 * 101 * 4 = 1616 bytes, a multiple of 16
  EXPECT_EQ(plan_shared_bytes(p, 4), 1616u + tiled_work_bytes(256, 4));
  p.stage_cols = 3;  // 48 bytes
  EXPECT_EQ(plan_shared_bytes(p, 4), 48u + tiled_work_bytes(256, 4));
  p.group_threads = 256;
  p.stage_cols = 3;  // 12 bytes, rounded up to 16
  EXPECT_EQ(plan_shared_bytes(p, 4), 16u + tiled_work_bytes(256, 4));
  p.stage_x = false;
  EXPECT_EQ(plan_shared_bytes(p, 8), work);
  EXPECT_EQ(code(p, Format::csr, 8), status::success);
  EXPECT_EQ(code(p, Format::csr_shared, 8), status::success);
  EXPECT_EQ(code(p, Format::ell, 8), status::unsupported);

  // The stage budget leaves room for the work space: what fits the others may not fit tiles.
  const std::size_t budget = stage_bytes_budget(Kernel::csr_tiled, 256, 8);
  EXPECT_EQ(budget, (kStageBytesLimit - work) / 16 * 16);
  EXPECT_EQ(stage_bytes_budget(Kernel::csr_scalar, 256, 8), kStageBytesLimit);
  p.stage_x = true;
  p.stage_cols = static_cast<std::int64_t>(budget / 8);
  EXPECT_EQ(code(p, Format::csr, 8), status::success);
  EXPECT_LE(plan_shared_bytes(p, 8), kStageBytesLimit);
  p.stage_cols += 2;
  EXPECT_EQ(code(p, Format::csr, 8), status::invalid_argument);
  p.kernel = Kernel::csr_scalar;  // the same staging without the work space fits
  EXPECT_EQ(code(p, Format::csr, 8), status::success);
  p.stage_cols = std::int64_t(1) << 60;  // no overflow in the byte count
  EXPECT_EQ(code(p, Format::csr, 8), status::invalid_argument);
  p.stage_cols = 0;
  EXPECT_EQ(code(p, Format::csr, 8), status::invalid_argument);

  // Launch shapes.
  p.stage_x = false;
  p.kernel = Kernel::csr_tiled;
  for (auto [block, group, want] : {std::tuple{256, 48, status::invalid_argument},
                                    {256, 512, status::invalid_argument},
                                    {1056, 32, status::invalid_argument},
                                    {96, 64, status::invalid_argument},
                                    {0, 32, status::invalid_argument},
                                    {1024, 64, status::invalid_argument},
                                    {960, 64, status::success},
                                    {1024, 128, status::success},
                                    {512, 32, status::success},
                                    {1024, 32, status::success},
                                    {512, 64, status::success}}) {
    p.block_threads = block;
    p.group_threads = group;
    EXPECT_EQ(code(p, Format::csr, 8), want) << block << " x " << group;
  }
  p.block_threads = 1024;
  p.group_threads = 64;  // 16 groups of two warps: more than the 15 named barriers
  EXPECT_EQ(code(p, Format::csr, 4), status::invalid_argument);
  p.kernel = Kernel::csr_i;  // its tiles are a warp's: no named barrier, no such limit
  EXPECT_EQ(code(p, Format::csr, 4), status::success);
  // But in double its work space (8 entries a thread) does not fit a block of 1024 threads.
  EXPECT_EQ(plan_shared_bytes(p, 8), 1024u * (8 * 8 + 4) + 32u * (8 + 8));
  EXPECT_EQ(code(p, Format::csr, 8), status::invalid_argument);
  p.block_threads = 512;
  EXPECT_EQ(code(p, Format::csr, 8), status::success);
  p.block_threads = 1024;
  p.kernel = Kernel::csr_scalar;  // no group barriers: fine
  EXPECT_EQ(code(p, Format::csr, 4), status::success);
  p.kernel = Kernel::auto_select;
  EXPECT_EQ(code(p, Format::csr, 4), status::unsupported);

  // The rule leaves x in global memory for csr_tiled (measured), even where it fits.
  Features f;
  f.count = 100;
  f.max_rows = 4;
  f.total_rows = 400;
  f.total_nnz = 400 * 20;
  f.max_row_nnz = 30;
  f.max_cols = static_cast<std::int64_t>(kStageBytesLimit / (8 * 8));  // fits 48 KiB, 8 a block
  const Plan r = choose_plan(f, Format::csr, 8, Kernel::csr_tiled);
  EXPECT_EQ(r.kernel, Kernel::csr_tiled);
  EXPECT_EQ(r.group_threads, 32);
  EXPECT_FALSE(r.stage_x);
  EXPECT_EQ(code(r, Format::csr, 8), status::success);
  f.max_cols = 100;
  EXPECT_FALSE(choose_plan(f, Format::csr, 8, Kernel::csr_tiled).stage_x);
  EXPECT_TRUE(choose_plan(f, Format::csr, 8, Kernel::csr_smart).stage_x);
}

TEST(BatchedFeatures, FromValidate) {
  std::mt19937_64 rng(1);
  std::vector<SmallMatrix<double>> ms{random_matrix<double>(3, 4, 4, 1.0, rng),
                                      random_matrix<double>(0, 2, 4, 0.0, rng),
                                      random_matrix<double>(9, 50, 50, 1.0, rng)};
  for (Format fmt : kFormats) {
    const auto d = make_batch<double, std::int32_t>(ms, fmt);
    const Features f = validate(d.view());
    EXPECT_EQ(f.count, 3);
    EXPECT_EQ(f.max_rows, 9);
    EXPECT_EQ(f.max_cols, 50);
    EXPECT_EQ(f.empty_matrices, 1);
    EXPECT_EQ(f.max_row_nnz, longest_row(ms)) << format_name(fmt);
  }
}

}  // namespace
}  // namespace hola::batched
