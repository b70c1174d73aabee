// The SpMSpV candidates and the GPU selection (hola/spmspv_operator.hpp): the trees of
// spmspv_tree_generated.hpp (bench/selector/train_spmspv.py) and the rule around them, which
// train_spmspv.py's choose() mirrors; the calibrated selection and its probes, which
// bench/selector/study_spmspv_calibration.py simulated (calibrated(), choose()).
#include <algorithm>
#include <cmath>
#include <limits>
#include <random>

#include "hola/spmspv_operator.hpp"
#include "spmspv_tree_generated.hpp"

namespace hola::spmspv {

const std::vector<Candidate>& candidates() {
  static const std::vector<Candidate> list = {
      {"reference", Memory::host, ""},
      {"matrix_driven", Memory::host, "op T: the column view"},
      {"vector_driven", Memory::host, "op N: the column view"},
      {"matrix_direct", Memory::device, "op T: the column view"},
      {"matrix_balanced", Memory::device, "op T: the column view"},
      {"vector_direct", Memory::device, "op N: the column view"},
      {"vector_balanced", Memory::device, "op N: the column view"},
      {"densify", Memory::device, "the plus_times semiring"},
  };
  return list;
}

namespace {

// select_gpu_kernel's order when nothing predicts: densify, then the balanced kernels, then the
// direct ones; the first available (densify when none is).
gpu::Kernel fallback_kernel(const bool available[5]) {
  const gpu::Kernel order[] = {gpu::Kernel::densify, gpu::Kernel::vector_balanced,
                               gpu::Kernel::matrix_balanced, gpu::Kernel::vector_direct,
                               gpu::Kernel::matrix_direct};
  for (gpu::Kernel k : order)
    if (available[static_cast<int>(k)]) return k;
  return gpu::Kernel::densify;
}

}  // namespace

GpuSelection select_gpu_kernel(const GpuCallFeatures& f, const bool available[5]) {
  GpuSelection s;
  for (double& p : s.predicted) p = std::numeric_limits<double>::quiet_NaN();
  const auto tf =
      detail::spmspv_tree_features(f.nnz_x, f.nnz, f.n_in, f.n_out, f.max_len, f.std_len,
                                   f.densify_ms, f.transpose, f.sparse_output, f.allowed_fraction);
  double margin = 1;
  s.from_tree = detail::spmspv_tree_predict(f.single_precision, tf, s.predicted, margin);
  s.margin = margin;
  const bool densify_ok = available[static_cast<int>(gpu::Kernel::densify)];
  if (!s.from_tree) {
    for (double& p : s.predicted) p = std::numeric_limits<double>::quiet_NaN();
    s.kernel = fallback_kernel(available);
    return s;
  }
  int best = -1;
  for (int k = 0; k < 4; ++k)
    if (available[k] && (best < 0 || s.predicted[k] < s.predicted[best])) best = k;
  // Densify unless a sparse kernel is predicted faster by the margin: ties and doubt go to the
  // candidate whose cost does not depend on x.
  if (densify_ok && (best < 0 || !(s.predicted[best] < -std::log2(margin))))
    s.kernel = gpu::Kernel::densify;
  else
    s.kernel = best < 0 ? gpu::Kernel::densify : static_cast<gpu::Kernel>(best);
  return s;
}

GpuCalibration::GpuCalibration() {
  for (auto& row : ms)
    for (double& t : row) t = std::numeric_limits<double>::quiet_NaN();
}

std::vector<std::int64_t> calibration_probe_sizes(std::int64_t n_in) {
  std::vector<std::int64_t> sizes;
  if (n_in <= 0) return sizes;
  for (double d : kCalibrationDensities) {
    const std::int64_t k = std::clamp<std::int64_t>(
        static_cast<std::int64_t>(std::llround(d * static_cast<double>(n_in))), 1, n_in);
    if (sizes.empty() || k > sizes.back()) sizes.push_back(k);
  }
  return sizes;
}

std::vector<std::int64_t> calibration_probe_indices(std::int64_t n, std::int64_t k,
                                                    std::uint64_t seed) {
  std::vector<std::int64_t> out;
  if (n <= 0 || k <= 0) return out;
  k = std::min(k, n);
  // Rejection sampling into a bitmap; past half of n the complement is drawn instead, so that
  // each draw succeeds with probability >= 1/2.
  const bool complement = k > n / 2;
  const std::int64_t draws = complement ? n - k : k;
  std::vector<std::uint64_t> bits(static_cast<std::size_t>((n + 63) / 64), 0);
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<std::int64_t> pick(0, n - 1);
  for (std::int64_t got = 0; got < draws;) {
    const std::int64_t i = pick(rng);
    std::uint64_t& word = bits[static_cast<std::size_t>(i >> 6)];
    const std::uint64_t bit = std::uint64_t{1} << (i & 63);
    if (!(word & bit)) {
      word |= bit;
      ++got;
    }
  }
  out.reserve(static_cast<std::size_t>(k));
  for (std::int64_t i = 0; i < n; ++i)
    if (((bits[static_cast<std::size_t>(i >> 6)] >> (i & 63)) & 1) != (complement ? 1u : 0u))
      out.push_back(i);
  return out;
}

void calibration_probe_include(std::vector<std::int64_t>& probe, std::int64_t index) {
  if (probe.empty() || std::binary_search(probe.begin(), probe.end(), index)) return;
  // Replace the middle entry: the size stays, and so does the spread of the rest.
  probe[probe.size() / 2] = index;
  std::sort(probe.begin(), probe.end());
}

namespace {

// ys(xs) at x: linear between the points, the first value below them, above them the last
// segment's slope when positive (constant otherwise); NaN without points.
double interpolate(const double* xs, const double* ys, int n, double x) {
  if (n == 0) return std::numeric_limits<double>::quiet_NaN();
  if (n == 1 || x <= xs[0]) return ys[0];
  for (int i = 1; i < n; ++i)
    if (x <= xs[i]) return ys[i - 1] + (ys[i] - ys[i - 1]) * (x - xs[i - 1]) / (xs[i] - xs[i - 1]);
  const double slope = (ys[n - 1] - ys[n - 2]) / (xs[n - 1] - xs[n - 2]);
  return ys[n - 1] + std::max(slope, 0.0) * (x - xs[n - 1]);
}

bool timed(double ms) { return std::isfinite(ms) && ms > 0; }

}  // namespace

void GpuCalibration::prepare() {
  const int n_probes = std::clamp(probes, 0, max_probes);
  const int d = static_cast<int>(gpu::Kernel::densify);
  // Relative to densify when it was timed at every probe; else log2 of the time in ms.
  relative = n_probes > 0;
  for (int p = 0; p < n_probes; ++p) relative = relative && timed(ms[p][d]);
  for (int k = 0; k < 4; ++k) {
    int n = 0;
    for (int p = 0; p < n_probes; ++p) {
      if (!timed(ms[p][k]) || nnz_x[p] < 1) continue;
      const double at = std::log2(static_cast<double>(nnz_x[p]));
      if (n > 0 && at <= xs[k][n - 1]) continue;  // sizes must increase
      xs[k][n] = at;
      ys[k][n] = std::log2(ms[p][k]) - (relative ? std::log2(ms[p][d]) : 0.0);
      ++n;
    }
    points[k] = n;
  }
  prepared = true;
}

GpuSelection select_calibrated_kernel(const GpuCalibration& c, std::int64_t nnz_x,
                                      const bool available[5], double margin) {
  constexpr double nan = std::numeric_limits<double>::quiet_NaN();
  GpuSelection s;
  for (double& p : s.predicted) p = nan;
  s.margin = margin;
  const int probes = std::clamp(c.probes, 0, GpuCalibration::max_probes);
  const int d = static_cast<int>(gpu::Kernel::densify);
  if (probes == 0) {
    s.kernel = fallback_kernel(available);
    return s;
  }
  s.calibrated = true;
  if (!c.prepared) {  // a calibration made by hand: its curves derived for this call
    GpuCalibration prepared = c;
    prepared.prepare();
    return select_calibrated_kernel(prepared, nnz_x, available, margin);
  }
  const bool relative = c.relative;
  const double x = std::log2(static_cast<double>(std::max<std::int64_t>(nnz_x, 1)));
  for (int k = 0; k < 4; ++k) s.predicted[k] = interpolate(c.xs[k], c.ys[k], c.points[k], x);
  // The candidates: available and predicted; a direct kernel only when predicted faster than its
  // balanced sibling by the sibling margin (when that one competes).
  bool competes[4];
  for (int k = 0; k < 4; ++k) competes[k] = available[k] && !std::isnan(s.predicted[k]);
  const int siblings[2][2] = {{static_cast<int>(gpu::Kernel::matrix_direct),
                               static_cast<int>(gpu::Kernel::matrix_balanced)},
                              {static_cast<int>(gpu::Kernel::vector_direct),
                               static_cast<int>(gpu::Kernel::vector_balanced)}};
  for (const auto& pair : siblings) {
    const int direct = pair[0], balanced = pair[1];
    if (competes[direct] && competes[balanced] &&
        !(s.predicted[direct] < s.predicted[balanced] - std::log2(kCalibrationSiblingMargin)))
      competes[direct] = false;
  }
  int best = -1;
  for (int k = 0; k < 4; ++k)
    if (competes[k] && (best < 0 || s.predicted[k] < s.predicted[best])) best = k;
  if (available[d]) {
    // Densify unless a sparse kernel is predicted faster by the margin (which needs densify's
    // own timings).
    s.kernel = best >= 0 && relative && s.predicted[best] < -std::log2(margin)
                   ? static_cast<gpu::Kernel>(best)
                   : gpu::Kernel::densify;
  } else {
    s.kernel = best >= 0 ? static_cast<gpu::Kernel>(best) : fallback_kernel(available);
  }
  return s;
}

}  // namespace hola::spmspv
