// The generated matrices of hola-spmspv-bench (docs/spmspv.md, "Density sweep") and their
// structure statistics, host only: the bench (main.cpp) sweeps them, and
// bench/selector/spmspv_structure.cpp prints the statistics of the same matrices for result files
// written before the bench recorded them. Same name, same matrix (fixed seeds).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "hola/features.hpp"
#include "hola/generators.hpp"

namespace hola::bench {

using Csr64 = hola::gen::Csr64;

// A matrix of the set: its name and how to build it (built when its turn comes: the largest
// take seconds on the host).
struct GeneratedSpec {
  std::string name;
  std::string family;  // kronecker, rmat, poisson2d, ... (the sweep's order mixes families)
  std::function<Csr64()> make;
};

// rows x cols, row lengths from a Pareto law of shape 1.5 (heavy tail: finite mean, infinite
// variance) with mean about `mean`, at most `max_len`, columns uniformly random and distinct,
// rows in random order. Few rows hold many nonzeros while every column has about the same
// count: skewed for op T's vector-driven kernels (rows of A) and op N's matrix-driven ones,
// uniform for op N's vector-driven kernels (columns). Values uniform in [-1, 1], never 0.
inline Csr64 zipf_rows(std::int64_t rows, std::int64_t cols, double mean, std::int64_t max_len,
                       std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  const double xm = mean / 3.0;  // Pareto(1.5) has mean 3 xm
  Csr64 m;
  m.rows = rows;
  m.cols = cols;
  m.row_ptr.assign(static_cast<std::size_t>(rows + 1), 0);
  std::vector<std::int64_t> row;
  std::uniform_int_distribution<std::int64_t> col(0, cols - 1);
  std::uniform_real_distribution<double> val(-1.0, 1.0);
  for (std::int64_t i = 0; i < rows; ++i) {
    const double draw = xm * std::pow(1.0 - u(rng), -1.0 / 1.5);
    const auto len = std::clamp<std::int64_t>(static_cast<std::int64_t>(draw), 1,
                                              std::min<std::int64_t>(max_len, cols));
    row.clear();
    for (std::int64_t k = 0; k < len; ++k) row.push_back(col(rng));
    std::sort(row.begin(), row.end());
    row.erase(std::unique(row.begin(), row.end()), row.end());
    for (std::int64_t c : row) {
      m.col_idx.push_back(c);
      double v = val(rng);
      m.values.push_back(v == 0.0 ? 0.5 : v);
    }
    m.row_ptr[static_cast<std::size_t>(i + 1)] = static_cast<std::int64_t>(m.col_idx.size());
  }
  return m;
}

// The sweep's matrices. Full set (about 70 M nonzeros in all): Graph500 Kronecker graphs (R-MAT
// a = 0.57, b = c = 0.19, edge factor 16, directed) of `scales`; R-MAT scale 18 with milder
// (a = 0.45) and steeper (a = 0.70) skew; 2D / 3D Poisson and a 27-point stencil at a small and
// a large size; banded (16 per row, sigma 64) at 2^16 and 2^20 rows; Pareto row lengths;
// uniformly random at 8 and 64 per row; a wide random rectangle. --quick: a few small ones.
// Ordered so that families alternate and small matrices come early: a sweep cut short by its
// time budget still spans the families. The names of the 2f6d850 sweep (kronecker_s18 / s20,
// poisson2d_1024, poisson3d_100, banded_1048576, random_uniform_1048576) denote the same
// matrices as then.
inline std::vector<GeneratedSpec> generated_set(bool quick, const std::vector<int>& scales,
                                                std::uint64_t seed) {
  using namespace hola::gen;
  std::vector<GeneratedSpec> s;
  if (quick) {
    s.push_back({"kronecker_s14", "kronecker", [=] { return rmat(14, 16, seed); }});
    s.push_back({"poisson2d_256", "poisson2d", [] { return poisson2d(256, 256); }});
    s.push_back({"poisson3d_40", "poisson3d", [] { return poisson3d(40, 40, 40); }});
    s.push_back({"banded_65536", "banded", [=] { return banded_normal(1 << 16, 16, 64.0, seed); }});
    s.push_back({"zipf_rows_65536", "zipf_rows",
                 [=] { return zipf_rows(1 << 16, 1 << 16, 8.0, 1 << 12, seed); }});
    s.push_back({"random_uniform_65536", "random_uniform",
                 [=] { return random_rect(1 << 16, 1 << 16, 8, seed); }});
    return s;
  }
  s.push_back({"poisson2d_128", "poisson2d", [] { return poisson2d(128, 128); }});
  s.push_back({"kronecker_s16", "kronecker", [=] { return rmat(16, 16, seed); }});
  s.push_back({"poisson3d_32", "poisson3d", [] { return poisson3d(32, 32, 32); }});
  s.push_back({"banded_65536", "banded", [=] { return banded_normal(1 << 16, 16, 64.0, seed); }});
  s.push_back({"rmat_mild_s18", "rmat", [=] { return rmat(18, 16, seed, 0.45, 0.22, 0.22); }});
  s.push_back({"stencil27_48", "stencil27", [] { return stencil27(48, 48, 48); }});
  s.push_back({"random_wide_131072x1048576", "random_rect",
               [=] { return random_rect(1 << 17, 1 << 20, 16, seed); }});
  for (int scale : scales)
    s.push_back({"kronecker_s" + std::to_string(scale), "kronecker",
                 [=] { return rmat(scale, 16, seed); }});
  s.push_back({"poisson2d_1024", "poisson2d", [] { return poisson2d(1024, 1024); }});
  s.push_back({"zipf_rows_1048576", "zipf_rows",
               [=] { return zipf_rows(1 << 20, 1 << 20, 8.0, 1 << 16, seed); }});
  s.push_back({"rmat_steep_s18", "rmat", [=] { return rmat(18, 16, seed, 0.70, 0.10, 0.10); }});
  s.push_back({"poisson3d_100", "poisson3d", [] { return poisson3d(100, 100, 100); }});
  s.push_back({"banded_1048576", "banded", [=] { return banded_normal(1 << 20, 16, 64.0, seed); }});
  s.push_back({"random_uniform_1048576", "random_uniform",
               [=] { return random_rect(1 << 20, 1 << 20, 8, seed); }});
  s.push_back({"random_uniform_262144x64", "random_uniform",
               [=] { return random_rect(1 << 18, 1 << 18, 64, seed); }});
  return s;
}

// Row-length statistics of A (its rows) and of A^T (A's columns): what the per-call selection
// reads (the rows of the matrix the vector-driven kernel walks: A^T for op N, A for op T).
struct StructureSummary {
  RowLengthStats rows_of_A, rows_of_At;
};

inline StructureSummary structure_summary(const Csr64& m) {
  StructureSummary s;
  s.rows_of_A = row_length_stats(m.row_ptr.data(), m.rows, m.cols);
  std::vector<std::int64_t> col_ptr(static_cast<std::size_t>(m.cols + 1), 0);
  for (std::int64_t c : m.col_idx) ++col_ptr[static_cast<std::size_t>(c + 1)];
  for (std::int64_t j = 0; j < m.cols; ++j)
    col_ptr[static_cast<std::size_t>(j + 1)] += col_ptr[static_cast<std::size_t>(j)];
  s.rows_of_At = row_length_stats(col_ptr.data(), m.cols, m.rows);
  return s;
}

}  // namespace hola::bench
