// The calibrated GPU selection's host code (hola/spmspv_operator.hpp): the probe sizes and index
// draws of the setup, and select_calibrated_kernel on hand-made calibrations: interpolation in
// log2(nnz_x), both ends, the margin against densify, a direct kernel against its balanced
// sibling, kernels not timed, availability, densify when nothing is calibrated; the option and
// its C API setter.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "hola/generators.hpp"
#include "hola/hola_spmspv.h"
#include "hola/spmspv_operator.hpp"

namespace hola::test {
namespace {

using namespace hola::spmspv;

constexpr int kMD = 0, kMB = 1, kVD = 2, kVB = 3, kDensify = 4;
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
const bool kAll[5] = {true, true, true, true, true};

// A calibration at the given probe sizes, densify 1 ms everywhere and each sparse kernel at
// 2^ratio ms (ratio[k][p]; NaN: not timed).
GpuCalibration make(const std::vector<std::int64_t>& sizes,
                    const std::vector<std::vector<double>>& ratio) {
  GpuCalibration c;
  c.probes = static_cast<int>(sizes.size());
  for (int p = 0; p < c.probes; ++p) {
    c.nnz_x[p] = sizes[p];
    c.ms[p][kDensify] = 1.0;
    for (int k = 0; k < 4; ++k) c.ms[p][k] = std::exp2(ratio[k][p]);
  }
  return c;
}

// Every sparse kernel far slower than densify (ratio 3) except those set afterwards.
std::vector<std::vector<double>> slow(int probes) {
  return std::vector<std::vector<double>>(4, std::vector<double>(probes, 3.0));
}

TEST(SpmspvCalibration, ProbeSizes) {
  EXPECT_EQ(calibration_probe_sizes(1048576),
            (std::vector<std::int64_t>{10, 1049, 104858, 1048576}));
  // 65536: the sparsest density rounds to 0 entries, clamped to 1.
  EXPECT_EQ(calibration_probe_sizes(65536), (std::vector<std::int64_t>{1, 66, 6554, 65536}));
  // Equal sizes merged, at least one entry, at most n_in.
  EXPECT_EQ(calibration_probe_sizes(10), (std::vector<std::int64_t>{1, 10}));
  EXPECT_EQ(calibration_probe_sizes(1), (std::vector<std::int64_t>{1}));
  EXPECT_TRUE(calibration_probe_sizes(0).empty());
  for (std::int64_t n : {2, 7, 100, 12345, 999999}) {
    const auto s = calibration_probe_sizes(n);
    ASSERT_FALSE(s.empty());
    EXPECT_LE(static_cast<int>(s.size()), GpuCalibration::max_probes);
    EXPECT_GE(s.front(), 1);
    EXPECT_LE(s.back(), n);
    EXPECT_TRUE(std::is_sorted(s.begin(), s.end()));
    EXPECT_EQ(std::adjacent_find(s.begin(), s.end()), s.end());
  }
}

TEST(SpmspvCalibration, ProbeIndicesAreSortedDistinctAndDeterministic) {
  for (std::int64_t n : {1, 2, 10, 1000, 65536})
    for (double share : {0.0, 0.001, 0.1, 0.5, 0.51, 0.9, 1.0}) {
      const std::int64_t k = static_cast<std::int64_t>(share * static_cast<double>(n));
      const auto a = calibration_probe_indices(n, k, 7);
      ASSERT_EQ(static_cast<std::int64_t>(a.size()), k) << n << " " << k;
      EXPECT_TRUE(std::is_sorted(a.begin(), a.end()));
      EXPECT_EQ(std::adjacent_find(a.begin(), a.end()), a.end());
      if (k > 0) {
        EXPECT_GE(a.front(), 0);
        EXPECT_LT(a.back(), n);
      }
      EXPECT_EQ(calibration_probe_indices(n, k, 7), a);
    }
  // Another seed, another set; more than n asked: all of them; nothing for n <= 0.
  EXPECT_NE(calibration_probe_indices(100000, 50, 1), calibration_probe_indices(100000, 50, 2));
  EXPECT_EQ(calibration_probe_indices(5, 9, 1), (std::vector<std::int64_t>{0, 1, 2, 3, 4}));
  EXPECT_TRUE(calibration_probe_indices(0, 3, 1).empty());
  // Roughly uniform: a draw of half of 2^16 puts about half of its entries in each half.
  const auto h = calibration_probe_indices(65536, 4096, 3);
  const auto low = std::count_if(h.begin(), h.end(), [](std::int64_t i) { return i < 32768; });
  EXPECT_GT(low, 1800);
  EXPECT_LT(low, 2300);
}

TEST(SpmspvCalibration, ProbeIncludesTheLongestRow) {
  std::vector<std::int64_t> probe = calibration_probe_indices(1000, 31, 5);
  const std::vector<std::int64_t> drawn = probe;
  // Already there: unchanged.
  calibration_probe_include(probe, drawn[7]);
  EXPECT_EQ(probe, drawn);
  // Missing: in, same size, sorted, distinct, every other entry one of the drawn ones.
  std::int64_t missing = 0;
  while (std::binary_search(drawn.begin(), drawn.end(), missing)) ++missing;
  calibration_probe_include(probe, missing);
  ASSERT_EQ(probe.size(), drawn.size());
  EXPECT_TRUE(std::binary_search(probe.begin(), probe.end(), missing));
  EXPECT_TRUE(std::is_sorted(probe.begin(), probe.end()));
  EXPECT_EQ(std::adjacent_find(probe.begin(), probe.end()), probe.end());
  std::size_t kept = 0;
  for (std::int64_t i : probe) kept += std::binary_search(drawn.begin(), drawn.end(), i);
  EXPECT_EQ(kept, drawn.size() - 1);
  // An empty probe stays empty.
  std::vector<std::int64_t> none;
  calibration_probe_include(none, 3);
  EXPECT_TRUE(none.empty());
}

TEST(SpmspvCalibration, NothingCalibratedMeansDensify) {
  const GpuCalibration none;
  EXPECT_EQ(none.probes, 0);
  for (std::int64_t nnz_x : {0, 1, 1000}) {
    const GpuSelection s = select_calibrated_kernel(none, nnz_x, kAll, 1.2);
    EXPECT_EQ(s.kernel, gpu::Kernel::densify);
    EXPECT_FALSE(s.calibrated);
    for (double p : s.predicted) EXPECT_TRUE(std::isnan(p));
  }
  // Without densify: the fallback order (balanced kernels first).
  bool no_densify[5] = {true, true, true, true, false};
  EXPECT_EQ(select_calibrated_kernel(none, 10, no_densify, 1.2).kernel,
            gpu::Kernel::vector_balanced);
  bool matrix_only[5] = {true, false, false, false, false};
  EXPECT_EQ(select_calibrated_kernel(none, 10, matrix_only, 1.2).kernel,
            gpu::Kernel::matrix_direct);
}

TEST(SpmspvCalibration, InterpolatesInLogNnzAndHandlesBothEnds) {
  auto r = slow(3);
  r[kVB] = {-2.0, -1.0, 1.0};  // at nnz_x 16, 256, 4096
  const GpuCalibration c = make({16, 256, 4096}, r);
  auto predicted = [&](std::int64_t n) {
    return select_calibrated_kernel(c, n, kAll, 1.0).predicted[kVB];
  };
  EXPECT_DOUBLE_EQ(predicted(16), -2.0);
  EXPECT_DOUBLE_EQ(predicted(256), -1.0);
  EXPECT_DOUBLE_EQ(predicted(4096), 1.0);
  EXPECT_DOUBLE_EQ(predicted(64), -1.5);    // halfway in log2 between 16 and 256
  EXPECT_DOUBLE_EQ(predicted(1024), 0.0);   // halfway between 256 and 4096
  EXPECT_DOUBLE_EQ(predicted(1), -2.0);     // below: the smallest probe's value
  EXPECT_DOUBLE_EQ(predicted(0), -2.0);     // an empty x counts as one entry
  EXPECT_DOUBLE_EQ(predicted(65536), 3.0);  // above: the last slope (0.5 per doubling)
  // Every kernel is predicted (all timed); NaN for none.
  const GpuSelection s = select_calibrated_kernel(c, 100, kAll, 1.0);
  EXPECT_TRUE(s.calibrated);
  EXPECT_FALSE(s.from_tree);
  for (double p : s.predicted) EXPECT_FALSE(std::isnan(p));
  // A falling last segment is not extrapolated downwards: constant above the largest probe.
  auto f = slow(2);
  f[kMB] = {1.0, 0.5};
  const GpuCalibration falling = make({10, 1000}, f);
  EXPECT_DOUBLE_EQ(select_calibrated_kernel(falling, 100000, kAll, 1.0).predicted[kMB], 0.5);
  // One probe: constant everywhere.
  auto o = slow(1);
  o[kVD] = {-0.5};
  const GpuCalibration one = make({50}, o);
  for (std::int64_t n : {1, 50, 5000})
    EXPECT_DOUBLE_EQ(select_calibrated_kernel(one, n, kAll, 1.0).predicted[kVD], -0.5);
  // The ratio is to densify's time at the same probe, whatever its scale.
  GpuCalibration scaled = make({16, 256, 4096}, r);
  for (int p = 0; p < 3; ++p)
    for (int k = 0; k < 5; ++k) scaled.ms[p][k] *= 8.0;
  EXPECT_DOUBLE_EQ(select_calibrated_kernel(scaled, 64, kAll, 1.0).predicted[kVB], -1.5);
}

TEST(SpmspvCalibration, SparseKernelOnlyWhenFasterThanDensifyByTheMargin) {
  auto r = slow(2);
  r[kVB] = {std::log2(1 / 1.15), std::log2(1 / 1.15)};  // 1.15x faster than densify
  const GpuCalibration c = make({10, 1000}, r);
  EXPECT_EQ(select_calibrated_kernel(c, 100, kAll, 1.2).kernel, gpu::Kernel::densify);
  EXPECT_EQ(select_calibrated_kernel(c, 100, kAll, 1.1).kernel, gpu::Kernel::vector_balanced);
  EXPECT_EQ(select_calibrated_kernel(c, 100, kAll, 1.0).kernel, gpu::Kernel::vector_balanced);
  EXPECT_DOUBLE_EQ(select_calibrated_kernel(c, 100, kAll, 1.2).margin, 1.2);
  // Slower than densify: densify at any margin; equal: densify (ties go to densify).
  auto e = slow(2);
  e[kMB] = {0.0, 0.0};
  EXPECT_EQ(select_calibrated_kernel(make({10, 1000}, e), 100, kAll, 1.0).kernel,
            gpu::Kernel::densify);
  // The crossover: faster than densify below about 100 entries, slower above.
  auto x = slow(3);
  x[kMB] = {-2.0, -1.0, 1.0};
  const GpuCalibration cross = make({10, 100, 1000}, x);
  EXPECT_EQ(select_calibrated_kernel(cross, 20, kAll, 1.2).kernel, gpu::Kernel::matrix_balanced);
  EXPECT_EQ(select_calibrated_kernel(cross, 900, kAll, 1.2).kernel, gpu::Kernel::densify);
}

// The operator prepares its calibrations once at setup. The prepared curves must pass through the
// timings at the probes and interpolate linearly in log2 nnz_x between the probes where a kernel
// was timed (computed here independently), with kernels missing at some probes and with densify
// not timed everywhere (times then absolute: equal here, densify being 1 ms where timed); and a
// calibration made by hand, prepared per call, must select alike.
TEST(SpmspvCalibration, PreparedSelectsAsUnprepared) {
  auto r = slow(4);
  r[kMB] = {-2.0, -1.0, 0.5, 1.5};
  r[kVB] = {-3.0, -1.5, -0.2, 2.0};
  r[kVD] = {-3.5, kNaN, -0.1, kNaN};
  r[kMD] = {kNaN, -0.5, -0.6, 0.1};
  GpuCalibration c = make({1, 66, 6554, 65536}, r);
  for (int densify_everywhere = 1; densify_everywhere >= 0; --densify_everywhere) {
    if (!densify_everywhere) c.ms[2][kDensify] = kNaN;
    GpuCalibration prepared = c;
    prepared.prepare();
    ASSERT_TRUE(prepared.prepared);
    EXPECT_FALSE(c.prepared);
    EXPECT_EQ(prepared.relative, densify_everywhere == 1);
    EXPECT_EQ(prepared.points[kVD], 2);
    // At the probes the curves pass through the timings (log2 of the ratio to densify, or of
    // the time); between two probes where a kernel was timed they are the straight line.
    const std::int64_t sizes[4] = {1, 66, 6554, 65536};
    const auto predicted = [&](std::int64_t n, int k) {
      return select_calibrated_kernel(prepared, n, kAll, 1.0).predicted[k];
    };
    for (int k = 0; k < 4; ++k) {
      int last = -1;  // the previous probe where k was timed
      for (int p = 0; p < 4; ++p) {
        if (std::isnan(r[k][p])) continue;
        EXPECT_NEAR(predicted(sizes[p], k), r[k][p], 1e-12) << "kernel " << k << " probe " << p;
        if (last >= 0)
          for (const std::int64_t n :
               {sizes[last] + 1, (sizes[last] + sizes[p]) / 2, sizes[p] - 1}) {
            const double at = (std::log2(static_cast<double>(n)) - std::log2(sizes[last])) /
                              (std::log2(sizes[p]) - std::log2(sizes[last]));
            EXPECT_NEAR(predicted(n, k), r[k][last] + (r[k][p] - r[k][last]) * at, 1e-12)
                << "kernel " << k << " nnz_x " << n;
          }
        last = p;
      }
    }
    for (std::int64_t n = 1; n <= 200000; n = n * 3 / 2 + 1)
      for (double margin : {1.0, 1.2}) {
        const GpuSelection a = select_calibrated_kernel(c, n, kAll, margin);
        const GpuSelection b = select_calibrated_kernel(prepared, n, kAll, margin);
        EXPECT_EQ(a.kernel, b.kernel) << "nnz_x " << n;
        for (int k = 0; k < 4; ++k)
          if (std::isnan(a.predicted[k]))
            EXPECT_TRUE(std::isnan(b.predicted[k])) << "kernel " << k << " nnz_x " << n;
          else
            EXPECT_DOUBLE_EQ(a.predicted[k], b.predicted[k]) << "kernel " << k << " nnz_x " << n;
      }
  }
}

TEST(SpmspvCalibration, DirectKernelMustBeatItsBalancedSibling) {
  auto r = slow(2);
  r[kVB] = {-1.0, -1.0};
  r[kVD] = {-1.05, -1.05};  // 3.5 % faster than vector_balanced: not enough
  EXPECT_EQ(select_calibrated_kernel(make({10, 1000}, r), 100, kAll, 1.2).kernel,
            gpu::Kernel::vector_balanced);
  r[kVD] = {-1.5, -1.5};  // 41 % faster
  EXPECT_EQ(select_calibrated_kernel(make({10, 1000}, r), 100, kAll, 1.2).kernel,
            gpu::Kernel::vector_direct);
  // The sibling unavailable (or not timed): the direct kernel competes alone.
  r[kVD] = {-1.05, -1.05};
  bool no_vb[5] = {true, true, true, false, true};
  EXPECT_EQ(select_calibrated_kernel(make({10, 1000}, r), 100, no_vb, 1.2).kernel,
            gpu::Kernel::vector_direct);
  r[kVB] = {kNaN, kNaN};
  EXPECT_EQ(select_calibrated_kernel(make({10, 1000}, r), 100, kAll, 1.2).kernel,
            gpu::Kernel::vector_direct);
  // The same for the matrix-driven pair.
  auto m = slow(2);
  m[kMB] = {-1.0, -1.0};
  m[kMD] = {-1.05, -1.05};
  EXPECT_EQ(select_calibrated_kernel(make({10, 1000}, m), 100, kAll, 1.2).kernel,
            gpu::Kernel::matrix_balanced);
  EXPECT_DOUBLE_EQ(kCalibrationSiblingMargin, 1.1);
}

TEST(SpmspvCalibration, KernelsNotTimed) {
  // Timed at the smallest probe only (too slow there to be timed above): its value held above.
  auto r = slow(3);
  r[kMD] = {2.5, kNaN, kNaN};
  r[kVB] = {-1.0, -0.5, 0.5};
  const GpuCalibration c = make({10, 100, 1000}, r);
  const GpuSelection s = select_calibrated_kernel(c, 5000, kAll, 1.2);
  EXPECT_DOUBLE_EQ(s.predicted[kMD], 2.5);
  // Never timed: not predicted, never chosen, even as the only sparse kernel with no densify.
  auto n = slow(2);
  n[kVB] = {kNaN, kNaN};
  n[kMB] = {-3.0, -3.0};
  const GpuCalibration nv = make({10, 1000}, n);
  bool vb_only[5] = {false, false, false, true, false};
  const GpuSelection t = select_calibrated_kernel(nv, 100, vb_only, 1.2);
  EXPECT_TRUE(std::isnan(t.predicted[kVB]));
  EXPECT_EQ(t.kernel, gpu::Kernel::vector_balanced);  // the fallback: the only available one
  bool vb_densify[5] = {false, false, false, true, true};
  EXPECT_EQ(select_calibrated_kernel(nv, 100, vb_densify, 1.2).kernel, gpu::Kernel::densify);
}

TEST(SpmspvCalibration, NeverAnUnavailableKernel) {
  // Made-up calibrations over three probes; every availability pattern and many sizes.
  std::uint64_t state = 12345;
  auto next = [&] {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<double>(state >> 11) / 9007199254740992.0;  // [0, 1)
  };
  int sparse = 0, dense = 0;
  for (int trial = 0; trial < 200; ++trial) {
    std::vector<std::vector<double>> r(4, std::vector<double>(3));
    for (auto& row : r)
      for (double& v : row) v = next() < 0.1 ? kNaN : 6 * next() - 3;
    const GpuCalibration c = make({4, 400, 40000}, r);
    for (int pattern = 1; pattern < 32; ++pattern) {
      bool available[5];
      for (int k = 0; k < 5; ++k) available[k] = (pattern >> k) & 1;
      for (std::int64_t n : {1, 20, 4000, 1000000}) {
        const GpuSelection s = select_calibrated_kernel(c, n, available, 1.2);
        const int picked = static_cast<int>(s.kernel);
        ASSERT_TRUE(available[picked]) << trial << " " << pattern << " " << n;
        if (picked == kDensify) {
          ++dense;
          continue;
        }
        ++sparse;
        if (std::isnan(s.predicted[picked])) continue;  // fallback (nothing predicted)
        // Of least prediction among the other competitors, faster than densify by the margin.
        if (available[kDensify]) EXPECT_LT(s.predicted[picked], -std::log2(1.2));
        for (int k = 0; k < 4; ++k) {
          if (!available[k] || std::isnan(s.predicted[k]) || k == picked) continue;
          const bool dropped_direct =
              (k == kMD && available[kMB] && !std::isnan(s.predicted[kMB])) ||
              (k == kVD && available[kVB] && !std::isnan(s.predicted[kVB]));
          if (!dropped_direct) EXPECT_LE(s.predicted[picked], s.predicted[k]);
        }
      }
    }
  }
  EXPECT_GT(sparse, 0);
  EXPECT_GT(dense, 0);
}

TEST(SpmspvCalibration, WithoutDensifyTimingsTheLeastTimeWins) {
  // An op the dense SpMV cannot do: densify not timed, predictions are log2(ms).
  GpuCalibration c;
  c.probes = 2;
  c.nnz_x[0] = 10;
  c.nnz_x[1] = 1000;
  c.ms[0][kMB] = 4.0;
  c.ms[1][kMB] = 4.0;
  c.ms[0][kVB] = 1.0;
  c.ms[1][kVB] = 16.0;
  bool no_densify[5] = {true, true, true, true, false};
  const GpuSelection s = select_calibrated_kernel(c, 10, no_densify, 1.2);
  EXPECT_DOUBLE_EQ(s.predicted[kVB], 0.0);
  EXPECT_DOUBLE_EQ(s.predicted[kMB], 2.0);
  EXPECT_TRUE(std::isnan(s.predicted[kMD]));
  EXPECT_EQ(s.kernel, gpu::Kernel::vector_balanced);
  EXPECT_EQ(select_calibrated_kernel(c, 1000, no_densify, 1.2).kernel,
            gpu::Kernel::matrix_balanced);
  // Densify available at the call but not timed: no basis to leave it.
  EXPECT_EQ(select_calibrated_kernel(c, 10, kAll, 1.2).kernel, gpu::Kernel::densify);
}

TEST(SpmspvCalibration, OptionAndCApi) {
  EXPECT_TRUE(SpmspvOptions{}.calibrate);
  EXPECT_GT(SpmspvOptions{}.calibration_margin, 1.0);
  SpmspvOperator<double, std::int32_t, std::int32_t> op;
  op.set_calibrate(false);
  EXPECT_FALSE(op.options().calibrate);
  // Host memory: no calibration.
  const auto m = gen::poisson2d(6, 5).convert<double, std::int32_t, std::int32_t>();
  op.setup(m.view());
  EXPECT_EQ(op.calibration(Op::N, OutputFormat::dense).probes, 0);
  hola_spmspv h = nullptr;
  ASSERT_EQ(hola_spmspv_create(&h, HOLA_FLOAT64, HOLA_INT32, HOLA_INT32, nullptr, 0), HOLA_SUCCESS);
  EXPECT_EQ(hola_spmspv_set_calibrate(h, 0), HOLA_SUCCESS);
  EXPECT_EQ(hola_spmspv_set_calibrate(h, 1), HOLA_SUCCESS);
  EXPECT_EQ(hola_spmspv_set_calibrate(nullptr, 1), HOLA_INVALID_ARGUMENT);
  EXPECT_EQ(hola_spmspv_destroy(h), HOLA_SUCCESS);
}

}  // namespace
}  // namespace hola::test
