// Host cost of op T's window plan (kernels/cuda/rowwise/transpose_windows.hpp) on samples taken as
// window_scatter.cuh takes them (16 runs of 256 rows spread over the matrix, at most 16 384
// entries each): the counting of the sampled offsets and the plans at 48 and 24 KiB. Built
// against two copies of the header (before and after a change) by plan_cost.sh; median of 7.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "hola/generators.hpp"
#include "rowwise/transpose_windows.hpp"

namespace {

using namespace hola::cuda::rowwise;

double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

void measure(const std::string& name, const hola::gen::Csr64& A) {
  std::vector<std::int64_t> offsets;
  std::int64_t sampled = 0;
  for (int t = 0; t < 16; ++t) {
    const std::int64_t first = (A.rows - 256) * t / 15;
    std::vector<std::int64_t> rp(A.row_ptr.begin() + first, A.row_ptr.begin() + first + 257);
    const std::int64_t n = std::min<std::int64_t>(16384, rp.back() - rp.front());
    std::vector<std::int64_t> cols(A.col_idx.begin() + rp.front(),
                                   A.col_idx.begin() + rp.front() + n);
    sampled += add_diagonal_offsets(rp, cols, first, offsets, A.rows, A.cols);
  }
  for (int bytes : {8, 4}) {
    std::vector<double> count_ms, plan_ms;
    bool active = false;
    for (int rep = 0; rep < 7; ++rep) {
      auto t0 = std::chrono::steady_clock::now();
      const std::vector<DiagonalCount> h = count_offsets(offsets);
      count_ms.push_back(ms_since(t0));
      t0 = std::chrono::steady_clock::now();
      active = false;
      for (int kib : {48, 24}) {
        TransposeWindowLimits l;
        l.rows = A.rows;
        l.cols = A.cols;
        l.max_slots = kib * 1024 / bytes;
        l.min_tile_rows = 256;
        l.max_tile_rows = std::min<std::int64_t>(4096, A.rows / (4 * 132));  // H200: 132 SMs
        active = plan_transpose_windows(h, sampled, l).active() || active;
      }
      plan_ms.push_back(ms_since(t0));
    }
    std::printf(
        "%-28s %-6s %7zu offsets  count %6.2f ms  plans %6.2f ms  total %6.2f ms  windows %s\n",
        name.c_str(), bytes == 8 ? "double" : "float", offsets.size(), median(count_ms),
        median(plan_ms), median(count_ms) + median(plan_ms), active ? "yes" : "no");
  }
}

}  // namespace

int main() {
  measure("poisson3d:n=128", hola::gen::poisson3d(128, 128, 128));
  measure("stencil27:n=128", hola::gen::stencil27(128, 128, 128));
  measure("elasticity:n=64", hola::gen::elasticity(64, 64, 64));
  measure("rmat:scale=21,ef=16", hola::gen::rmat(21, 16, 7));
  measure("random:rows=2^20,per_row=22", hola::gen::random_rect(1 << 20, 1 << 20, 22, 3));
  for (double sigma : {1000.0, 10000.0, 40000.0})
    measure("banded:rows=4e5,per_row=40,sigma=" + std::to_string(static_cast<int>(sigma)),
            hola::gen::banded_normal(400000, 40, sigma, 5));
  measure("interp3d:n=65", hola::gen::interpolation3d(65, 65, 65));
  measure("banded:8:1 tall,sigma=300", hola::gen::banded_normal(1 << 21, 1 << 18, 16, 300.0, 5));
  return 0;
}
