// The plan of op T's shared-memory windows (kernels/cuda/rowwise/transpose_windows.hpp) on the
// diagonal offsets of stencils, block rows, banded and random matrices.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "../../kernels/cuda/rowwise/transpose_windows.hpp"

namespace {

using hola::cuda::rowwise::add_diagonal_offsets;
using hola::cuda::rowwise::count_offsets;
using hola::cuda::rowwise::DiagonalCount;
using hola::cuda::rowwise::plan_transpose_windows;
using hola::cuda::rowwise::plan_windows_for_tile;
using hola::cuda::rowwise::TransposeWindowLimits;
using hola::cuda::rowwise::TransposeWindowPlan;
using hola::cuda::rowwise::windows_possible;

// Every sampled row has one entry on each offset.
std::vector<DiagonalCount> diagonals(const std::vector<std::int64_t>& offsets, std::int64_t rows) {
  std::vector<std::int64_t> all;
  for (std::int64_t r = 0; r < rows; ++r) all.insert(all.end(), offsets.begin(), offsets.end());
  return count_offsets(all);
}

TransposeWindowLimits double_limits(std::int64_t max_tile_rows = 4096) {
  TransposeWindowLimits l;
  l.max_slots = 6144;  // 48 KiB of doubles
  l.min_tile_rows = 256;
  l.max_tile_rows = max_tile_rows;
  return l;
}

// The windows of a plan lie one after the other within the shared memory, each at least a tile
// long.
void expect_consistent(const TransposeWindowPlan& p, int max_slots) {
  ASSERT_TRUE(p.active());
  ASSERT_LE(p.count, hola::cuda::rowwise::kMaxTransposeWindows);
  EXPECT_LE(p.slots, max_slots);
  int total = 0;
  for (int k = 0; k < p.count; ++k) {
    EXPECT_EQ(p.slot[k], total);
    EXPECT_GE(p.length[k], hola::cuda::rowwise::tile_columns(p.tile_rows, p.rows, p.cols));
    total += p.length[k];
  }
  EXPECT_EQ(total, p.slots);
}

// Columns [r + low, r + low + length) of window k cover the offsets [low, low + length - tile_rows]
// for every row of the tile.
bool covers(const TransposeWindowPlan& p, std::int64_t offset) {
  for (int k = 0; k < p.count; ++k)
    if (offset >= p.low[k] && offset <= p.low[k] + p.length[k] - p.tile_rows) return true;
  return false;
}

// The bands of stencils as the planner sees them with every band allowed (`any_band`) in the
// tiles given; at the default they take no window (DiagonalsTakeNoWindow).
TransposeWindowLimits every_band(std::int64_t tile_rows) {
  TransposeWindowLimits l = double_limits(tile_rows);
  l.min_tile_rows = tile_rows;
  l.any_band = true;
  return l;
}

TEST(TransposeWindows, Poisson3dBandsJoinNearAndLeaveFar) {
  const std::int64_t n = 200;
  const auto h = diagonals({-n * n, -n, -1, 0, 1, n, n * n}, 256);
  const TransposeWindowPlan p = plan_transpose_windows(h, 256, every_band(4096));
  expect_consistent(p, 6144);
  // -n..n joined (one window of R + 2n columns); the far diagonals alone: R columns each, which
  // do not fit beside it in 6144 slots at R = 4096.
  EXPECT_EQ(p.tile_rows, 4096);
  EXPECT_EQ(p.count, 1);
  EXPECT_EQ(p.low[0], -n);
  EXPECT_EQ(p.length[0], p.tile_rows + 2 * n);
  EXPECT_NEAR(p.covered, 5.0 / 7.0, 1e-12);
  EXPECT_FALSE(covers(p, n * n));
  EXPECT_FALSE(covers(p, -n * n));
}

std::vector<std::int64_t> stencil27_offsets(std::int64_t n) {
  std::vector<std::int64_t> offsets;
  for (std::int64_t dz = -1; dz <= 1; ++dz)
    for (std::int64_t dy = -1; dy <= 1; ++dy)
      for (std::int64_t dx = -1; dx <= 1; ++dx) offsets.push_back(dz * n * n + dy * n + dx);
  return offsets;
}

TEST(TransposeWindows, TwentySevenPointMakesThreeBands) {
  const auto offsets = stencil27_offsets(128);
  const auto h = diagonals(offsets, 64);
  const TransposeWindowPlan p = plan_transpose_windows(h, 64, every_band(1024));
  expect_consistent(p, 6144);
  EXPECT_EQ(p.count, 3);
  EXPECT_EQ(p.slots, 3 * (1024 + 2 * 129));
  EXPECT_NEAR(p.covered, 1.0, 1e-12);
  for (std::int64_t d : offsets) EXPECT_TRUE(covers(p, d)) << d;
}

TEST(TransposeWindows, DiagonalsTakeNoWindow) {
  // Stencils: every entry on a diagonal.
  EXPECT_FALSE(
      plan_transpose_windows(diagonals(stencil27_offsets(128), 64), 64, double_limits()).active());
  EXPECT_FALSE(plan_transpose_windows(diagonals({-40000, -200, -1, 0, 1, 200, 40000}, 256), 256,
                                      double_limits())
                   .active());
  // A narrow band (sigma 10, 17 a row): most entries on offsets that hold one in a quarter of
  // the rows or more.
  std::mt19937_64 rng(3);
  std::normal_distribution<double> normal(0.0, 10.0);
  std::vector<std::int64_t> all;
  for (int i = 0; i < 4096 * 17; ++i) all.push_back(std::llround(normal(rng)));
  EXPECT_FALSE(plan_transpose_windows(count_offsets(all), 4096, double_limits()).active());
}

TEST(TransposeWindows, TileSizeBoundedByTheGrid) {
  // A band of random columns, sigma 300, 12 a row.
  std::mt19937_64 rng(5);
  std::normal_distribution<double> normal(0.0, 300.0);
  std::vector<std::int64_t> all;
  for (int i = 0; i < 4096 * 12; ++i) all.push_back(std::llround(normal(rng)));
  const auto h = count_offsets(all);
  EXPECT_EQ(plan_transpose_windows(h, 4096, double_limits()).tile_rows, 4096);
  EXPECT_EQ(plan_transpose_windows(h, 4096, double_limits(1024)).tile_rows, 1024);
  // No tile size allowed (a matrix too small for enough tiles): no plan.
  EXPECT_FALSE(plan_transpose_windows(h, 4096, double_limits(128)).active());
}

TEST(TransposeWindows, WideBandKeepsItsDensestPart) {
  // Offsets of a normal distribution, sigma 1000, 22 a row: wider than 6144 slots hold.
  std::mt19937_64 rng(7);
  std::normal_distribution<double> normal(0.0, 1000.0);
  std::vector<std::int64_t> all;
  const std::int64_t rows = 4096;
  for (std::int64_t i = 0; i < rows * 22; ++i) all.push_back(std::llround(normal(rng)));
  const auto h = count_offsets(all);
  const TransposeWindowPlan p = plan_transpose_windows(h, rows, double_limits(1024));
  expect_consistent(p, 6144);
  EXPECT_EQ(p.count, 1);
  EXPECT_EQ(p.tile_rows, 1024);
  EXPECT_EQ(p.slots, 6144);
  EXPECT_GT(p.covered, 0.97);
  EXPECT_LT(p.covered, 1.0);
  EXPECT_LT(p.low[0], -2000);  // about centred
  EXPECT_GT(p.low[0] + p.length[0] - p.tile_rows, 2000);
}

TEST(TransposeWindows, RandomColumnsGetNoWindow) {
  std::mt19937_64 rng(11);
  std::uniform_int_distribution<std::int64_t> col(0, 1 << 20);
  std::vector<std::int64_t> all;
  const std::int64_t rows = 4096;
  for (std::int64_t r = 0; r < rows; ++r)
    for (int j = 0; j < 22; ++j) all.push_back(col(rng) - r * 256);
  EXPECT_FALSE(plan_transpose_windows(count_offsets(all), rows, double_limits()).active());
  // A band of one diagonal neither (each slot would take one entry).
  EXPECT_FALSE(plan_transpose_windows(diagonals({5}, 64), 64, double_limits()).active());
}

TEST(TransposeWindows, AnyBandTakesEveryBandThatFitsInTheSmallestTile) {
  TransposeWindowLimits l = double_limits(4096);
  l.any_band = true;
  const std::int64_t n = 200;
  const auto h = diagonals({-n * n, -n, -1, 0, 1, n, n * n}, 256);
  const TransposeWindowPlan p = plan_transpose_windows(h, 256, l);
  expect_consistent(p, 6144);
  EXPECT_EQ(p.tile_rows, 256);
  EXPECT_EQ(p.count, 3);
  EXPECT_NEAR(p.covered, 1.0, 1e-12);
  // Nothing at all fits: a tile as large as the shared memory.
  TransposeWindowLimits tiny = l;
  tiny.max_slots = 256;
  EXPECT_FALSE(plan_transpose_windows(h, 256, tiny).active());
}

TEST(TransposeWindows, TilesFillWholeWaves) {
  TransposeWindowPlan p;
  p.tile_rows = 2048;
  p.count = 2;
  p.low[0] = -1000;
  p.length[0] = 2048 + 2000;
  p.low[1] = 50000;
  p.length[1] = 2048 + 10;
  p.slot[1] = p.length[0];
  p.slots = p.length[0] + p.length[1];
  // 2 000 000 rows: 977 tiles on 792 resident blocks, 2 waves; 1 584 tiles of 1 264 rows (a
  // multiple of 16) fill them.
  const TransposeWindowPlan b = hola::cuda::rowwise::balance_tiles(p, 2000000, 792, 16);
  EXPECT_EQ(b.tile_rows, 1264);
  EXPECT_LE((2000000 - 1) / b.tile_rows + 1, 2 * 792);
  EXPECT_GT((2000000 - 1) / (b.tile_rows - 16) + 1, 2 * 792);
  EXPECT_EQ(b.count, 2);
  EXPECT_EQ(b.low[0], -1000);
  EXPECT_EQ(b.length[0], 1264 + 2000);
  EXPECT_EQ(b.length[1], 1264 + 10);
  EXPECT_EQ(b.slot[0], 0);
  EXPECT_EQ(b.slot[1], 1264 + 2000);
  EXPECT_EQ(b.slots, 2 * 1264 + 2010);
  // Whole waves already, or nothing to balance: unchanged.
  EXPECT_EQ(hola::cuda::rowwise::balance_tiles(p, 2048 * 792, 792, 16).tile_rows, 2048);
  EXPECT_EQ(hola::cuda::rowwise::balance_tiles(TransposeWindowPlan{}, 2000000, 792, 16).count, 0);
  EXPECT_EQ(hola::cuda::rowwise::balance_tiles(p, 2000000, 0, 16).tile_rows, 2048);
}

TEST(TransposeWindows, DiagonalOfARectangularMatrix) {
  using hola::cuda::rowwise::diagonal_column;
  using hola::cuda::rowwise::tile_columns;
  EXPECT_EQ(diagonal_column(12345, 1000, 1000), 12345);  // square: the row
  EXPECT_EQ(diagonal_column(15, 8000, 1000), 1);         // 15 / 8 rounded down
  EXPECT_EQ(diagonal_column(3, 1000, 8000), 24);
  // No overflow: 2^40 rows, 2^41 columns.
  const std::int64_t big = std::int64_t(1) << 40;
  EXPECT_EQ(diagonal_column(big - 1, big, 2 * big), 2 * big - 2);
  EXPECT_EQ(tile_columns(256, 1000, 1000), 256);
  // Over any 256 rows of an 8:1 tall matrix the diagonal crosses at most 33 columns.
  EXPECT_EQ(tile_columns(256, 8000, 1000), 33);
  for (std::int64_t r = 0; r + 256 <= 8000; r += 7)
    EXPECT_LE(diagonal_column(r + 255, 8000, 1000) - diagonal_column(r, 8000, 1000) + 1, 33);
  EXPECT_EQ(tile_columns(256, 1000, 3000), 769);
  for (std::int64_t r = 0; r + 256 <= 1000; r += 5)
    EXPECT_LE(diagonal_column(r + 255, 1000, 3000) - diagonal_column(r, 1000, 3000) + 1, 769);
}

TEST(TransposeWindows, BandAlongTheScaledDiagonal) {
  // A wide matrix (1 row for 4 columns), 12 random columns a row within +-600 of 4 r: the band
  // in offsets from the scaled diagonal is as narrow as on a square matrix; from col - row it
  // would drift by 3 columns a row.
  const std::int64_t rows = 1 << 20, cols = 4 * rows;
  std::mt19937_64 rng(9);
  std::uniform_int_distribution<std::int64_t> spread(-600, 600);
  std::vector<std::int64_t> row_ptr{0};
  std::vector<std::int64_t> col_idx;
  for (std::int64_t r = 500000; r < 500000 + 4096; ++r) {
    for (int j = 0; j < 12; ++j)
      col_idx.push_back(std::min(cols - 1, std::max<std::int64_t>(0, 4 * r + spread(rng))));
    row_ptr.push_back(static_cast<std::int64_t>(col_idx.size()));
  }
  std::vector<std::int64_t> scaled, plain;
  EXPECT_EQ(add_diagonal_offsets(row_ptr, col_idx, 500000, scaled, rows, cols), 4096);
  EXPECT_EQ(add_diagonal_offsets(row_ptr, col_idx, 500000, plain), 4096);
  TransposeWindowLimits l = double_limits(1024);
  l.rows = rows;
  l.cols = cols;
  const TransposeWindowPlan p = plan_transpose_windows(count_offsets(scaled), 4096, l);
  expect_consistent(p, 6144);
  EXPECT_EQ(p.rows, rows);
  EXPECT_EQ(p.cols, cols);
  EXPECT_EQ(p.count, 1);
  EXPECT_GT(p.covered, 0.99);
  EXPECT_GE(p.length[0], hola::cuda::rowwise::tile_columns(p.tile_rows, rows, cols) + 1000);
  TransposeWindowLimits square = double_limits(1024);
  EXPECT_FALSE(plan_transpose_windows(count_offsets(plain), 4096, square).active());
}

TEST(TransposeWindows, EmptyInputsGiveNoPlan) {
  EXPECT_FALSE(plan_transpose_windows({}, 10, double_limits()).active());
  EXPECT_FALSE(plan_transpose_windows(diagonals({0, 1}, 4), 0, double_limits()).active());
  EXPECT_FALSE(plan_windows_for_tile(diagonals({0, 1}, 4), 4, 0, double_limits()).active());
}

TEST(TransposeWindows, OffsetsOfASampleLeaveOutRowsBeyondTheCopiedPrefix) {
  // Rows 10..12 of a matrix: entries {10, 11}, {}, {12, 14, 20}; only 4 column indices copied.
  const std::vector<std::int64_t> row_ptr = {100, 102, 102, 105};
  const std::vector<int> cols = {10, 11, 12, 14};
  std::vector<std::int64_t> offsets;
  EXPECT_EQ(add_diagonal_offsets(row_ptr, cols, 10, offsets), 2);
  EXPECT_EQ(offsets, (std::vector<std::int64_t>{0, 1}));
  const std::vector<int> all = {10, 11, 12, 14, 20};
  offsets.clear();
  EXPECT_EQ(add_diagonal_offsets(row_ptr, all, 10, offsets), 3);
  EXPECT_EQ(offsets, (std::vector<std::int64_t>{0, 1, 0, 2, 8}));
  const auto h = count_offsets(offsets);
  ASSERT_EQ(h.size(), 4u);
  EXPECT_EQ(h[0].offset, 0);
  EXPECT_EQ(h[0].count, 2);
  EXPECT_EQ(h[3].offset, 8);
}

// count_offsets (a radix sort) against a map, on ranges of one to 64 bits, negative offsets, and
// the extremes of int64.
TEST(TransposeWindows, CountOffsetsMatchesAMap) {
  std::mt19937_64 rng(21);
  const std::int64_t lowest = std::numeric_limits<std::int64_t>::min();
  const std::int64_t highest = std::numeric_limits<std::int64_t>::max();
  std::vector<std::vector<std::int64_t>> cases = {
      {}, {-7}, {5, 5, 5}, {highest, lowest, 0, lowest}};
  for (std::int64_t span : {std::int64_t(3), std::int64_t(2047), std::int64_t(2048),
                            std::int64_t(1) << 22, std::int64_t(1) << 40, highest}) {
    std::uniform_int_distribution<std::int64_t> pick(-span, span);
    std::vector<std::int64_t> v(5000);
    for (std::int64_t& o : v) o = pick(rng);
    cases.push_back(v);
  }
  for (const auto& offsets : cases) {
    std::map<std::int64_t, std::int64_t> expected;
    for (std::int64_t o : offsets) ++expected[o];
    const auto h = count_offsets(offsets);
    ASSERT_EQ(h.size(), expected.size());
    std::size_t i = 0;
    for (const auto& [offset, count] : expected) {
      EXPECT_EQ(h[i].offset, offset);
      EXPECT_EQ(h[i].count, count);
      ++i;
    }
  }
}

// The test before a plan is necessary: wherever it says no window is possible, no tile size
// allowed gives a plan. Checked on bands of normal and of uniform spread at densities around the
// plans' threshold (where a test a little too strict would rule out a plan), bands beside far
// diagonals, stencils and random columns, square and rectangular shapes, both precisions' slots.
// And it does rule out stencils, random columns and a band too wide for any window, the cases it
// is for.
TEST(TransposeWindows, WindowsPossibleIsNecessary) {
  std::mt19937_64 rng(33);
  const std::int64_t rows = 2048;
  std::map<std::string, std::vector<DiagonalCount>> samples;
  auto add_band = [&](const std::string& name, auto&& draw, int per_row) {
    std::vector<std::int64_t> all;
    for (std::int64_t i = 0; i < rows * per_row; ++i) all.push_back(draw());
    samples[name] = count_offsets(all);
    // The same band beside three diagonals far away (a stencil plus a band).
    for (std::int64_t r = 0; r < rows; ++r)
      for (std::int64_t d : {-200000, 0, 200000}) all.push_back(d);
    samples[name + " + diagonals"] = count_offsets(all);
  };
  for (double sigma : {2.0, 30.0, 300.0, 1000.0, 3000.0, 10000.0, 40000.0})
    for (int per_row : {1, 2, 3, 4, 6, 9, 14, 22, 40}) {
      std::normal_distribution<double> normal(0.0, sigma);
      add_band(
          "normal " + std::to_string(sigma) + " " + std::to_string(per_row),
          [&] { return std::llround(normal(rng)); }, per_row);
    }
  for (std::int64_t half : {500, 1500, 3000, 6000})
    for (int per_row : {2, 3, 4, 5, 6, 8}) {
      std::uniform_int_distribution<std::int64_t> box(-half, half);
      add_band(
          "box " + std::to_string(half) + " " + std::to_string(per_row), [&] { return box(rng); },
          per_row);
    }
  const std::int64_t n = 128;
  samples["7-point"] = diagonals({-n * n, -n, -1, 0, 1, n, n * n}, rows);
  std::vector<std::int64_t> stencil27;
  for (std::int64_t z : {-n * n, std::int64_t(0), n * n})
    for (std::int64_t y : {-n, std::int64_t(0), n})
      for (std::int64_t x : {-1, 0, 1}) stencil27.push_back(z + y + x);
  samples["27-point"] = diagonals(stencil27, rows);
  std::uniform_int_distribution<std::int64_t> col(0, 1 << 20);
  std::vector<std::int64_t> random;
  for (std::int64_t r = 0; r < rows; ++r)
    for (int j = 0; j < 22; ++j) random.push_back(col(rng) - r);
  samples["random"] = count_offsets(random);

  int ruled_out = 0, planned = 0;
  for (const auto& [name, h] : samples)
    for (int slots : {6144, 12288, 24576})
      for (std::int64_t shape_cols :
           {std::int64_t(0), std::int64_t(1) << 18, std::int64_t(1) << 23}) {
        TransposeWindowLimits l = double_limits(4096);
        l.max_slots = slots;
        if (shape_cols > 0) {
          l.rows = std::int64_t(1) << 21;
          l.cols = shape_cols;
        }
        const bool possible = windows_possible(h, rows, l);
        for (std::int64_t r = l.min_tile_rows; r <= l.max_tile_rows; r *= 2) {
          const bool active = plan_windows_for_tile(h, rows, r, l).active();
          planned += active;
          if (!possible)
            EXPECT_FALSE(active) << name << ": tile " << r << ", slots " << slots << ", columns "
                                 << shape_cols;
        }
        ruled_out += !possible;
      }
  EXPECT_GT(ruled_out, 0);
  EXPECT_GT(planned, 0);
  const TransposeWindowLimits l = double_limits(4096);
  EXPECT_FALSE(windows_possible(samples["7-point"], rows, l));
  EXPECT_FALSE(windows_possible(samples["27-point"], rows, l));
  EXPECT_FALSE(windows_possible(samples["random"], rows, l));
  EXPECT_FALSE(windows_possible(samples["normal 40000.000000 40"], rows, l));  // too wide
  EXPECT_TRUE(windows_possible(samples["normal 1000.000000 22"], rows, l));
  TransposeWindowLimits any = l;
  any.any_band = true;
  EXPECT_TRUE(windows_possible(samples["random"], rows, any));  // tests plan every band
}

// The trial keeps candidate 0 (the 48 KiB plan) unless another is faster by the margin, and then
// takes the fastest of those.
TEST(TransposeWindows, TrialWinner) {
  using hola::cuda::rowwise::window_trial_winner;
  EXPECT_EQ(window_trial_winner({1.0, 0.98, 1.2}, 1.03), 0u);  // a near-tie keeps the pick
  EXPECT_EQ(window_trial_winner({1.0, 0.9, 0.95}, 1.03), 1u);
  EXPECT_EQ(window_trial_winner({1.0, 0.95, 0.8}, 1.03), 2u);  // the plain scatter, last
  EXPECT_EQ(window_trial_winner({1.0, 0.8, 0.8}, 1.03), 1u);   // ties go to the earlier
  EXPECT_EQ(window_trial_winner({1.0}, 1.03), 0u);
  EXPECT_EQ(window_trial_winner({1.0, 0.99}, 0.9), 1u);  // a margin below 1 lets slower ones in
}

}  // namespace
