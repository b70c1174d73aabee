// hola-batched-cg: Jacobi-preconditioned CG on many small SPD systems at once (issue 18). The
// systems, their layout and Jacobi preconditioner shared by the CPU and GPU paths, and the entry
// points.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "hola/batched_generate.hpp"

namespace hola::batched_cg {

using Matrix = batched::SmallMatrix<double>;

// Symmetric matrix from the strict upper triangle (i < j entries) and the diagonal, scaled as
// D A D with D random in [0.5, 2] (SPD is kept; Jacobi then has something to fix).
inline Matrix assemble(std::int64_t n,
                       const std::vector<std::vector<std::pair<std::int64_t, double>>>& upper,
                       const std::vector<double>& diag, std::mt19937_64& rng) {
  std::vector<std::vector<std::pair<std::int64_t, double>>> rows(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) {
    rows[i].push_back({i, diag[i]});
    for (const auto& [j, v] : upper[i]) {
      rows[i].push_back({j, v});
      rows[j].push_back({i, v});
    }
  }
  std::uniform_real_distribution<double> scale(0.5, 2.0);
  std::vector<double> d(static_cast<std::size_t>(n));
  for (auto& e : d) e = scale(rng);
  Matrix m;
  m.rows = m.cols = n;
  for (std::int64_t i = 0; i < n; ++i) {
    std::sort(rows[i].begin(), rows[i].end());
    for (const auto& [j, v] : rows[i]) {
      m.r.push_back(i);
      m.c.push_back(j);
      m.v.push_back(d[i] * v * d[j]);
    }
  }
  return m;
}

// 1D Laplacian (shifted), n unknowns.
inline Matrix stencil_1d(std::int64_t n, std::mt19937_64& rng) {
  const double shift = std::uniform_real_distribution<double>(0.01, 1.0)(rng);
  std::vector<std::vector<std::pair<std::int64_t, double>>> up(static_cast<std::size_t>(n));
  std::vector<double> diag(static_cast<std::size_t>(n), 2.0 + shift);
  for (std::int64_t i = 0; i + 1 < n; ++i) up[i].push_back({i + 1, -1.0});
  return assemble(n, up, diag, rng);
}

// 2D 5-point Laplacian (shifted) on an nx x ny grid.
inline Matrix stencil_2d(std::int64_t nx, std::int64_t ny, std::mt19937_64& rng) {
  const double shift = std::uniform_real_distribution<double>(0.01, 1.0)(rng);
  const std::int64_t n = nx * ny;
  std::vector<std::vector<std::pair<std::int64_t, double>>> up(static_cast<std::size_t>(n));
  std::vector<double> diag(static_cast<std::size_t>(n), 4.0 + shift);
  for (std::int64_t j = 0; j < ny; ++j)
    for (std::int64_t i = 0; i < nx; ++i) {
      const std::int64_t k = j * nx + i;
      if (i + 1 < nx) up[k].push_back({k + 1, -1.0});
      if (j + 1 < ny) up[k].push_back({k + nx, -1.0});
    }
  return assemble(n, up, diag, rng);
}

// Random sparse symmetric, strictly diagonally dominant with a positive diagonal (hence SPD).
inline Matrix random_spd(std::int64_t n, std::mt19937_64& rng) {
  std::vector<std::vector<std::pair<std::int64_t, double>>> up(static_cast<std::size_t>(n));
  std::vector<double> rowsum(static_cast<std::size_t>(n), 0.0);
  std::uniform_real_distribution<double> val(-1.0, 1.0);
  std::uniform_int_distribution<std::int64_t> col(0, n - 1);
  for (std::int64_t i = 0; i < n; ++i) {
    const int k = static_cast<int>(std::uniform_int_distribution<int>(0, 4)(rng));
    std::vector<std::int64_t> js;
    for (int t = 0; t < k; ++t) {
      const std::int64_t j = col(rng);
      if (j > i && std::find(js.begin(), js.end(), j) == js.end()) js.push_back(j);
    }
    for (auto j : js) {
      const double v = val(rng);
      up[i].push_back({j, v});
      rowsum[i] += std::fabs(v);
      rowsum[j] += std::fabs(v);
    }
  }
  std::vector<double> diag(static_cast<std::size_t>(n));
  std::uniform_real_distribution<double> extra(0.1, 1.0);
  for (std::int64_t i = 0; i < n; ++i) diag[i] = rowsum[i] + extra(rng);
  return assemble(n, up, diag, rng);
}

// count systems of sizes about [min_size, max_size], a third of each kind. Built in parallel
// (OpenMP), each system from its own random stream, so the systems do not depend on the thread
// count.
inline std::vector<Matrix> make_systems(std::int64_t count, std::int64_t min_size,
                                        std::int64_t max_size, std::uint64_t seed) {
  std::vector<Matrix> out(static_cast<std::size_t>(count));
#pragma omp parallel for schedule(dynamic, 64)
  for (std::int64_t s = 0; s < count; ++s) {
    std::mt19937_64 rng(seed * 0x9E3779B97F4A7C15ull + static_cast<std::uint64_t>(s) + 1);
    const std::int64_t n = std::uniform_int_distribution<std::int64_t>(min_size, max_size)(rng);
    switch (s % 3) {
      case 0:
        out[s] = stencil_1d(n, rng);
        break;
      case 1: {
        const std::int64_t side =
            std::max<std::int64_t>(1, static_cast<std::int64_t>(std::sqrt(static_cast<double>(n))));
        const std::int64_t nx = std::uniform_int_distribution<std::int64_t>(
            std::max<std::int64_t>(1, side / 2), side)(rng);
        out[s] = stencil_2d(nx, std::max<std::int64_t>(1, n / nx), rng);
        break;
      }
      default:
        out[s] = random_spd(n, rng);
    }
  }
  return out;
}

// Where each system's unknowns start in the concatenated vectors (systems.size() + 1 entries),
// and the Jacobi preconditioner 1 / a_ii (1 where a row stores no diagonal entry).
struct Layout {
  std::vector<std::int64_t> off;
  std::vector<double> dinv;
};
inline Layout layout(const std::vector<Matrix>& systems, std::int64_t total_rows) {
  const std::int64_t S = static_cast<std::int64_t>(systems.size());
  Layout l;
  l.off.assign(static_cast<std::size_t>(S + 1), 0);
  for (std::int64_t s = 0; s < S; ++s) l.off[s + 1] = l.off[s] + systems[s].rows;
  l.dinv.assign(static_cast<std::size_t>(total_rows), 1.0);
  for (std::int64_t s = 0; s < S; ++s)
    for (std::int64_t k = 0; k < systems[s].nnz(); ++k)
      if (systems[s].r[k] == systems[s].c[k])
        l.dinv[l.off[s] + systems[s].r[k]] = 1.0 / systems[s].v[k];
  return l;
}

// Per-system result of a solve.
struct SolveStats {
  std::vector<int> iterations;  // per system
  std::vector<char> converged;  // per system
  int sweeps = 0;               // batched SpMV calls
  double seconds = 0;           // wall time of the whole call (setup + solve + results back)
  double setup_seconds = 0;     // batch layout, operator (validation), GPU: allocations, uploads
  double solve_seconds = 0;     // the iterations only (GPU: first kernel to the last sync)
};

// Batched Jacobi-CG on the CPU (BatchedOperator, OpenMP) over `format`; x, b concatenated.
SolveStats solve_cpu(const std::vector<Matrix>& systems, batched::Format format,
                     const std::vector<double>& b, std::vector<double>& x, double tol, int max_iter,
                     int threads);

#if defined(HOLA_ENABLE_CUDA)
// The same on the GPU: every iteration on the device (batched SpMV + one fused update kernel a
// system), per-system convergence flags checked on the host every check_every iterations.
// Run on an H200 (2f6d850) and an H100 (56996ca): docs/batched.md.
SolveStats solve_gpu(const std::vector<Matrix>& systems, batched::Format format,
                     const std::vector<double>& b, std::vector<double>& x, double tol, int max_iter,
                     int check_every);
// The GPU's name and SM count ("unknown" when it cannot be read).
std::string gpu_name();
#endif

}  // namespace hola::batched_cg
