// Op T of the vector kernels on matrices whose entries lie in a few bands around the diagonal
// with their columns spread inside a band (banded matrices of random columns): the plan of the
// shared-memory windows. Host code only (the unit tests include it); the kernel is in
// window_scatter.cuh.
//
// Why: every op T scatter runs at the L2's rate of atomic reductions (docs/performance.md,
// "What limits each family": 88-100 % of the L2's peak, about 1.5 reduction sectors a nonzero).
// A block that owns a tile of consecutive rows adds the products whose column falls into one of
// its windows into shared memory first, then adds each window to y once, 32 consecutive columns
// a warp instruction: on a band of d entries a row, a tile of R rows sends about (R + span) / 4
// sectors instead of d R.
//
// Diagonal offsets are taken from the matrix's diagonal, row r's being column r cols / rows
// (rounded down): col - r on a square matrix, and the band of a rectangular one (a multigrid
// interpolation or restriction, fine rows by coarse columns) lies along its scaled diagonal. A
// window of a tile starting at row r covers columns [diagonal(r) + low, ... + length), length =
// the tile's diagonal columns (tile_cols: R cols / rows, rounded up, R on a square matrix) + the
// span of its band's offsets. The offsets come from a sample of rows.
// Offsets closer than kWindowGroupGap form a group; neighbouring groups join into one band where
// one window saves more atomics than the two apart (Poisson 3D: -n, -1..1 and n join, -n^2 and n^2
// stay apart); a band wider than the shared memory keeps its densest part. A band is taken when
// it puts at least `min_density` entries into each of its slots, and when most of its entries are
// not on diagonals: on a diagonal (an offset holding an entry in most rows: stencils, FEM block
// rows, narrow bands) the plain scatter's atomics from neighbouring rows already fall into
// neighbouring columns, a few to a 32-byte sector, while the window's shared-memory atomics
// collide. Measured on an H200 (bench/results/2026-11-29-session20/, run A): windows took a band
// of random columns (sigma 300 and 1 000) from 0.92-1.15x cuSPARSE to 1.33-2.06x, and slowed every
// stencil, the elasticity matrix and the sigma = 10 band by 8-45 %.
// Windows of bands closer than R overlap; a column then goes to the last window holding it, and
// the other's slot stays zero and is not flushed.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#if defined(__CUDACC__)
#define HOLA_WINDOW_HD __host__ __device__
#else
#define HOLA_WINDOW_HD
#endif

namespace hola::cuda::rowwise {

// Column of row r's diagonal: r cols / rows rounded down (r on a square matrix), without
// overflow for any sizes below 2^63.
HOLA_WINDOW_HD inline std::int64_t diagonal_column(std::int64_t r, std::int64_t rows,
                                                   std::int64_t cols) {
  if (rows == cols || rows <= 0) return r;
  return static_cast<std::int64_t>(static_cast<unsigned __int128>(r) *
                                   static_cast<unsigned __int128>(cols) /
                                   static_cast<unsigned __int128>(rows));
}

// Columns the diagonal crosses over `tile_rows` rows, rounded up: a bound on diagonal(r +
// tile_rows - 1) - diagonal(r) + 1 for every r.
inline std::int64_t tile_columns(std::int64_t tile_rows, std::int64_t rows, std::int64_t cols) {
  if (rows == cols || rows <= 0) return tile_rows;
  return static_cast<std::int64_t>(
             (static_cast<unsigned __int128>(tile_rows) * static_cast<unsigned __int128>(cols) +
              static_cast<unsigned __int128>(rows) - 1) /
             static_cast<unsigned __int128>(rows)) +
         1;
}

constexpr int kMaxTransposeWindows = 4;

// Windows of one structure, the same for every tile; passed to the kernel by value.
struct TransposeWindowPlan {
  std::int64_t tile_rows = 0;       // rows a block owns; 0 when there are no windows
  std::int64_t rows = 0, cols = 0;  // the matrix's shape: its diagonal (diagonal_column)
  int count = 0;  // windows, at most kMaxTransposeWindows; may overlap (see above)
  // Window k of the tile at row r starts at diagonal_column(r) + low[k]; length[k] columns
  // (tile_columns + the band's span).
  std::int64_t low[kMaxTransposeWindows] = {};
  int length[kMaxTransposeWindows] = {};
  int slot[kMaxTransposeWindows] = {};  // its first value in shared memory
  int slots = 0;                        // shared-memory values a block holds
  double covered = 0;  // sampled entries falling into a window, as a share of all sampled
  bool active() const { return count > 0; }
};

// How many sampled entries lie on each diagonal offset (col - diagonal_column(row)).
struct DiagonalCount {
  std::int64_t offset;
  std::int64_t count;
};

struct TransposeWindowLimits {
  std::int64_t rows = 0, cols = 0;  // the matrix's shape (0, 0: square)
  int max_slots = 0;                // shared-memory values a block may hold
  std::int64_t min_tile_rows = 0;   // tile sizes tried: powers of two within these bounds
  std::int64_t max_tile_rows = 0;
  double min_density = 1.5;  // entries a window slot must take on average
  bool any_band = false;     // every band that fits, whatever it saves (tests)
};

// The kernel's default bounds. Density 1.5: a band of one diagonal (density 1) saves nothing.
constexpr double kTransposeWindowMinDensity = 1.5;
// An offset holding at least this many entries a row is a diagonal; a band takes a window only
// when at most kWindowMaxDiagonalShare of its entries lie on diagonals.
constexpr double kWindowDiagonalPerRow = 0.25;
constexpr double kWindowMaxDiagonalShare = 0.5;
constexpr std::int64_t kTransposeWindowMinTileRows = 256;
constexpr std::int64_t kTransposeWindowMaxTileRows = 4096;
// Offsets at most this far apart are one group (a stencil's row of neighbours, a block row).
constexpr std::int64_t kWindowGroupGap = 16;

namespace window_detail {

struct Band {
  std::int64_t low, high;  // offsets, inclusive
  std::int64_t count;      // sampled entries on them
};

// The densest part of offsets [first, last) of `h` spanning at most `max_span`.
inline Band densest_part(const std::vector<DiagonalCount>& h, std::size_t first, std::size_t last,
                         std::int64_t max_span) {
  Band best{h[first].offset, h[first].offset, 0};
  std::int64_t sum = 0;
  std::size_t lo = first;
  for (std::size_t hi = first; hi < last; ++hi) {
    sum += h[hi].count;
    while (h[hi].offset - h[lo].offset > max_span) sum -= h[lo++].count;
    if (sum > best.count) best = {h[lo].offset, h[hi].offset, sum};
  }
  return best;
}

// An offset holding an entry in most rows (kWindowDiagonalPerRow of the sampled ones).
inline bool on_diagonal(const DiagonalCount& d, double sampled_rows) {
  return static_cast<double>(d.count) >= kWindowDiagonalPerRow * sampled_rows;
}

}  // namespace window_detail

// Whether any tile size allowed can take a window at all: a test on the histogram that
// plan_transpose_windows runs first, so that stencils, block rows, random columns and bands too
// wide for a window (most op T products) cost no plan. A band of offsets [low, high] is taken in
// tiles of R rows only when it puts min_density entries into each of its tile_columns(R) +
// (high - low) slots, high - low being at most max_slots - tile_columns(R), and when at most
// kWindowMaxDiagonalShare of its entries lie on diagonals. So some run of offsets must hold
// min_density * (tile_columns(R) + high - low) / R entries a sampled row, and some run (1 -
// kWindowMaxDiagonalShare) times that many off diagonals, for some R. Each is tested first with
// the span left out and at most max_slots (one sliding window; this rules out stencils, block
// rows and random columns), then per tile size with it (the largest surplus of a run: a sliding
// minimum). Necessary, not sufficient: false means no plan; true means planning.
inline bool windows_possible(const std::vector<DiagonalCount>& histogram, std::int64_t sampled_rows,
                             const TransposeWindowLimits& limits) {
  if (histogram.empty() || sampled_rows <= 0 || limits.max_slots <= 0) return false;
  if (limits.any_band) return true;
  const double rows = static_cast<double>(sampled_rows);
  std::vector<std::int64_t> tiles;  // the tile sizes allowed that leave room for a band
  double least_columns_a_row = -1;  // tile_columns(R) / R, least over them
  for (std::int64_t r = 1; r <= limits.max_tile_rows; r *= 2) {
    const std::int64_t tile_cols = tile_columns(r, limits.rows, limits.cols);
    if (r < limits.min_tile_rows || tile_cols >= limits.max_slots) continue;
    tiles.push_back(r);
    const double q = static_cast<double>(tile_cols) / static_cast<double>(r);
    if (least_columns_a_row < 0 || q < least_columns_a_row) least_columns_a_row = q;
  }
  if (tiles.empty()) return false;
  const std::size_t n = histogram.size();
  // Entries before each offset: all of them, and those off diagonals.
  std::vector<double> all(n + 1, 0.0), off(n + 1, 0.0);
  for (std::size_t i = 0; i < n; ++i) {
    const double c = static_cast<double>(histogram[i].count);
    all[i + 1] = all[i] + c;
    off[i + 1] = off[i] + (window_detail::on_diagonal(histogram[i], rows) ? 0.0 : c);
  }
  std::vector<std::size_t> lows(n);
  // Whether some run of offsets holds share * (tile_columns(R) + span) / R of `prefix`'s entries.
  auto some_run_holds = [&](const std::vector<double>& prefix, double share) {
    // Span left out: the most in any span of max_slots offsets.
    double most = 0;
    for (std::size_t hi = 0, lo = 0; hi < n; ++hi) {
      while (histogram[hi].offset - histogram[lo].offset > limits.max_slots) ++lo;
      most = std::max(most, prefix[hi + 1] - prefix[lo]);
    }
    // A hair of slack in both steps: rounding must never rule out a band the plan would take.
    if (most < share * rows * least_columns_a_row * (1.0 - 1e-9) - 1e-9) return false;
    for (std::int64_t r : tiles) {
      const std::int64_t tile_cols = tile_columns(r, limits.rows, limits.cols);
      const std::int64_t max_span = limits.max_slots - tile_cols;
      const double slope = share * rows / static_cast<double>(r);
      const double wanted = slope * static_cast<double>(tile_cols);
      // prefix[hi + 1] - slope offset[hi] less the least prefix[lo] - slope offset[lo] of the
      // runs that fit (lows: a deque of increasing values).
      auto value = [&](std::size_t lo) {
        return prefix[lo] - slope * static_cast<double>(histogram[lo].offset);
      };
      std::size_t head = 0, tail = 0, first = 0;
      for (std::size_t hi = 0; hi < n; ++hi) {
        while (tail > head && value(lows[tail - 1]) >= value(hi)) --tail;
        lows[tail++] = hi;
        while (histogram[hi].offset - histogram[first].offset > max_span) ++first;
        while (lows[head] < first) ++head;
        const double surplus =
            prefix[hi + 1] - slope * static_cast<double>(histogram[hi].offset) - value(lows[head]);
        if (surplus >= wanted * (1.0 - 1e-9) - 1e-9) return true;
      }
    }
    return false;
  };
  return some_run_holds(off, (1.0 - kWindowMaxDiagonalShare) * limits.min_density) &&
         some_run_holds(all, limits.min_density);
}

// The plan for tiles of `tile_rows` rows: bands of `histogram` (sorted by offset, counts > 0)
// from `sampled_rows` rows.
inline TransposeWindowPlan plan_windows_for_tile(const std::vector<DiagonalCount>& histogram,
                                                 std::int64_t sampled_rows, std::int64_t tile_rows,
                                                 const TransposeWindowLimits& limits) {
  using window_detail::Band;
  TransposeWindowPlan plan;
  const std::int64_t tile_cols = tile_columns(tile_rows, limits.rows, limits.cols);
  if (histogram.empty() || sampled_rows <= 0 || tile_rows <= 0 || tile_cols >= limits.max_slots)
    return plan;
  const std::int64_t max_span = limits.max_slots - tile_cols;
  const double rows = static_cast<double>(sampled_rows);
  auto entries = [&](const Band& b) { return static_cast<double>(b.count) / rows * tile_rows; };
  auto length = [&](const Band& b) { return tile_cols + (b.high - b.low); };
  auto useful = [&](const Band& b) {
    return limits.any_band || entries(b) >= limits.min_density * static_cast<double>(length(b));
  };
  // Entries of a band on diagonals, as a share of its entries (its offsets alone are read: a
  // plan may test many bands).
  auto diagonal_share = [&](const Band& b) {
    std::int64_t on_diagonals = 0;
    auto d = std::lower_bound(histogram.begin(), histogram.end(), b.low,
                              [](const DiagonalCount& h, std::int64_t o) { return h.offset < o; });
    for (; d != histogram.end() && d->offset <= b.high; ++d)
      if (window_detail::on_diagonal(*d, rows)) on_diagonals += d->count;
    return b.count > 0 ? static_cast<double>(on_diagonals) / static_cast<double>(b.count) : 0.0;
  };
  // Atomics a tile saves with the band's window (0 for a band not worth one).
  auto saving = [&](const Band& b) {
    return useful(b) ? entries(b) - static_cast<double>(length(b)) : 0.0;
  };
  // Groups of offsets [first, last), joined left to right while one window saves more.
  std::vector<Band> bands;
  std::size_t first = 0, last = 0;
  while (last < histogram.size()) {
    std::size_t next_end = last + 1;
    while (next_end < histogram.size() &&
           histogram[next_end].offset - histogram[next_end - 1].offset <= kWindowGroupGap)
      ++next_end;
    if (last == first) {
      last = next_end;
      continue;
    }
    const Band current = window_detail::densest_part(histogram, first, last, max_span);
    const Band next = window_detail::densest_part(histogram, last, next_end, max_span);
    const Band joined = window_detail::densest_part(histogram, first, next_end, max_span);
    if (saving(joined) > saving(current) + saving(next)) {
      last = next_end;
    } else {
      bands.push_back(current);
      first = last;
      last = next_end;
    }
  }
  if (first < last) bands.push_back(window_detail::densest_part(histogram, first, last, max_span));

  std::vector<Band> taken;
  for (const Band& b : bands)
    if (useful(b) && (limits.any_band || diagonal_share(b) <= kWindowMaxDiagonalShare))
      taken.push_back(b);
  std::stable_sort(taken.begin(), taken.end(),
                   [&](const Band& l, const Band& r) { return saving(l) > saving(r); });
  std::int64_t total = 0, sampled = 0, in_windows = 0;
  for (const DiagonalCount& d : histogram) sampled += d.count;
  for (const Band& b : taken) {
    if (plan.count == kMaxTransposeWindows) break;
    if (total + length(b) > limits.max_slots) continue;
    plan.low[plan.count] = b.low;
    plan.length[plan.count] = static_cast<int>(length(b));
    plan.slot[plan.count] = static_cast<int>(total);
    total += length(b);
    in_windows += b.count;
    ++plan.count;
  }
  if (plan.count == 0) return TransposeWindowPlan{};
  plan.tile_rows = tile_rows;
  plan.rows = limits.rows;
  plan.cols = limits.cols;
  plan.slots = static_cast<int>(total);
  plan.covered = static_cast<double>(in_windows) / static_cast<double>(sampled);
  return plan;
}

// Atomics a row saves with `plan` (entries in windows less slots flushed, per row).
inline double window_saving_per_row(const TransposeWindowPlan& plan,
                                    const std::vector<DiagonalCount>& histogram,
                                    std::int64_t sampled_rows) {
  if (!plan.active()) return 0.0;
  std::int64_t sampled = 0;
  for (const DiagonalCount& d : histogram) sampled += d.count;
  const double per_row = static_cast<double>(sampled) / static_cast<double>(sampled_rows);
  return per_row * plan.covered -
         static_cast<double>(plan.slots) / static_cast<double>(plan.tile_rows);
}

// The best plan over the tile sizes allowed (powers of two): the most atomics saved a row; on a
// tie the smaller tile (more blocks).
inline TransposeWindowPlan plan_transpose_windows(const std::vector<DiagonalCount>& histogram,
                                                  std::int64_t sampled_rows,
                                                  const TransposeWindowLimits& limits) {
  TransposeWindowPlan best;
  if (!windows_possible(histogram, sampled_rows, limits)) return best;
  double best_saving = 0.0;
  for (std::int64_t r = 1; r <= limits.max_tile_rows; r *= 2) {
    if (r < limits.min_tile_rows) continue;
    const TransposeWindowPlan plan = plan_windows_for_tile(histogram, sampled_rows, r, limits);
    const double saving = window_saving_per_row(plan, histogram, sampled_rows);
    if (plan.active() && limits.any_band) return plan;  // the smallest tile
    if (plan.active() && saving > best_saving * 1.02) {
      best = plan;
      best_saving = saving;
    }
  }
  return best;
}

// The plan with its tiles shortened so that they fill whole waves of `resident` blocks (the
// blocks the GPU holds at once): as many waves as before, the last one full, each window
// `tile_rows` minus the new tile shorter. A tile's block runs long (thousands of rows), so a last
// wave a quarter full leaves most SMs idle for a whole tile's time: measured on an H200 (run B of
// bench/results/2026-11-29-session20/), bands of sigma 300 in double, 977 tiles of 2 048 rows
// on 792 resident blocks, ran 0.94-1.32x cuSPARSE where the same band in 977 tiles on 528
// blocks (1.85 waves) ran 1.61x. New tiles stay a multiple of `row_step` rows.
inline TransposeWindowPlan balance_tiles(TransposeWindowPlan plan, std::int64_t rows,
                                         std::int64_t resident, std::int64_t row_step) {
  if (!plan.active() || rows <= 0 || resident <= 0 || row_step <= 0) return plan;
  const std::int64_t tiles = (rows - 1) / plan.tile_rows + 1;
  const std::int64_t waves = (tiles - 1) / resident + 1;
  const std::int64_t blocks = waves * resident;
  std::int64_t tile_rows = (rows - 1) / blocks + 1;
  tile_rows = (tile_rows + row_step - 1) / row_step * row_step;
  if (tile_rows >= plan.tile_rows) return plan;
  const std::int64_t shorter = tile_columns(plan.tile_rows, plan.rows, plan.cols) -
                               tile_columns(tile_rows, plan.rows, plan.cols);
  int slot = 0;
  for (int k = 0; k < plan.count; ++k) {
    plan.length[k] -= static_cast<int>(shorter);
    plan.slot[k] = slot;
    slot += plan.length[k];
  }
  plan.slots = slot;
  plan.tile_rows = tile_rows;
  return plan;
}

// The trial's verdict (window_scatter.cuh): the index of the fastest of `best_ms` (each
// candidate's best time), candidate 0 unless another is faster by `margin` (a near-tie keeps 0).
inline std::size_t window_trial_winner(const std::vector<double>& best_ms, double margin) {
  std::size_t won = 0;
  for (std::size_t c = 1; c < best_ms.size(); ++c)
    if (best_ms[c] * margin < best_ms[0] && best_ms[c] < best_ms[won]) won = c;
  return won;
}

// Offsets (col - diagonal_column(row)) of sampled rows of a matrix of `shape_rows` x
// `shape_cols` (0, 0: square), counted: `row_ptr` holds rows + 1 offsets of the rows starting at
// `first_row` relative to the first, `cols` their column indices (a prefix of them may be given:
// rows not wholly inside it are left out). Appends to `offsets`; returns the rows counted.
template <class I, class O>
std::int64_t add_diagonal_offsets(const std::vector<O>& row_ptr, const std::vector<I>& cols,
                                  std::int64_t first_row, std::vector<std::int64_t>& offsets,
                                  std::int64_t shape_rows = 0, std::int64_t shape_cols = 0) {
  std::int64_t counted = 0;
  if (row_ptr.empty()) return 0;
  const std::int64_t base = static_cast<std::int64_t>(row_ptr.front());
  for (std::size_t r = 0; r + 1 < row_ptr.size(); ++r) {
    const std::int64_t begin = static_cast<std::int64_t>(row_ptr[r]) - base;
    const std::int64_t end = static_cast<std::int64_t>(row_ptr[r + 1]) - base;
    if (end > static_cast<std::int64_t>(cols.size())) break;
    const std::int64_t diagonal =
        diagonal_column(first_row + static_cast<std::int64_t>(r), shape_rows, shape_cols);
    for (std::int64_t j = begin; j < end; ++j)
      offsets.push_back(static_cast<std::int64_t>(cols[static_cast<std::size_t>(j)]) - diagonal);
    ++counted;
  }
  return counted;
}

// Offsets to counts, sorted by offset. A least-significant-digit radix sort of the offsets less
// the smallest, over the digits their range needs (two passes of 11 bits for a matrix of up to
// 4 M columns): the sample holds up to 2.6e5 offsets. On one core of the build machine the
// counts of 0.6-2.5e5 sampled offsets (27-point stencil, elasticity, R-MAT, random and banded
// columns) took 1.3-8.0 ms with std::sort, 0.35-1.5 ms so (plan-cost.txt of
// bench/results/2026-11-29-session22/).
inline std::vector<DiagonalCount> count_offsets(const std::vector<std::int64_t>& offsets) {
  std::vector<DiagonalCount> h;
  if (offsets.empty()) return h;
  const auto [low, high] = std::minmax_element(offsets.begin(), offsets.end());
  const std::uint64_t base = static_cast<std::uint64_t>(*low);
  const std::uint64_t range = static_cast<std::uint64_t>(*high) - base;
  std::vector<std::uint64_t> keys(offsets.size()), other(offsets.size());
  for (std::size_t i = 0; i < offsets.size(); ++i)
    keys[i] = static_cast<std::uint64_t>(offsets[i]) - base;
  constexpr int kDigitBits = 11;
  constexpr std::size_t kDigits = std::size_t(1) << kDigitBits;
  std::vector<std::size_t> start(kDigits);
  for (int shift = 0; shift < 64 && (range >> shift) != 0; shift += kDigitBits) {
    std::fill(start.begin(), start.end(), 0);
    for (std::uint64_t k : keys) ++start[(k >> shift) & (kDigits - 1)];
    std::size_t sum = 0;
    for (std::size_t& s : start) {
      const std::size_t n = s;
      s = sum;
      sum += n;
    }
    for (std::uint64_t k : keys) other[start[(k >> shift) & (kDigits - 1)]++] = k;
    keys.swap(other);
  }
  for (std::uint64_t k : keys) {
    const auto d = static_cast<std::int64_t>(k + base);
    if (!h.empty() && h.back().offset == d)
      ++h.back().count;
    else
      h.push_back({d, 1});
  }
  return h;
}

}  // namespace hola::cuda::rowwise
