// Deterministic generators for every matrix family (docs/architecture.md, "Test matrices"). Same
// arguments and seed: same matrix, on any machine. Rows come out sorted by column without
// duplicates. They build 64-bit double matrices; convert<V, I, O>() gives the other types.
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "hola/csr_view.hpp"

namespace hola::gen {

using Csr64 = CsrMatrix<double, std::int64_t, std::int64_t>;

// Finite-difference Laplacians (diagonal 2d / 3d, off-diagonals -1; 27-point: 26 and -1).
Csr64 poisson2d(std::int64_t nx, std::int64_t ny);                   // 5-point
Csr64 poisson3d(std::int64_t nx, std::int64_t ny, std::int64_t nz);  // 7-point
Csr64 stencil27(std::int64_t nx, std::int64_t ny, std::int64_t nz);  // 27-point
// Trilinear interpolation from a coarse vertex grid of cx x cy x cz points to the fine grid of
// (2cx - 1) x (2cy - 1) x (2cz - 1) (every other fine point coarse), both numbered x fastest: the
// prolongation of geometric multigrid (PCMG on a DMDA); its transpose is the restriction.
// Rows hold 1, 2, 4 or 8 entries of weight 1, 1/2, 1/4 or 1/8 and sum to 1.
Csr64 interpolation3d(std::int64_t cx, std::int64_t cy, std::int64_t cz);

// `per_row` draws per row with columns ~ N(i, sigma) (drawn again when outside the matrix,
// duplicates merged); sigma <= 0 means uniformly random columns. Values uniform in [-1, 1] (never
// 0, as in every random family below). With `cols` (rows x cols) the band follows the scaled
// diagonal, column floor(i cols / rows): the shape of a multigrid interpolation (tall) or
// restriction (wide). The square matrix is the same with or without `cols`.
Csr64 banded_normal(std::int64_t rows, int per_row, double sigma, std::uint64_t seed);
Csr64 banded_normal(std::int64_t rows, std::int64_t cols, int per_row, double sigma,
                    std::uint64_t seed);

// rows x cols, `per_row` distinct uniformly random columns per row (wide or tall rectangles).
Csr64 random_rect(std::int64_t rows, std::int64_t cols, int per_row, std::uint64_t seed);

// R-MAT power-law graph with 2^scale vertices and edge_factor * 2^scale edges before
// merging duplicates (Graph500 probabilities by default). Rows = cols = 2^scale, empty rows kept,
// duplicates merged (one kept). The quadrant probabilities of each level are perturbed by a
// relative `noise` (default 0: plain R-MAT) drawn once from the seed; it smooths the degree
// distribution.
Csr64 rmat(int scale, int edge_factor, std::uint64_t seed, double a = 0.57, double b = 0.19,
           double c = 0.19);
Csr64 rmat(int scale, int edge_factor, std::uint64_t seed, double a, double b, double c,
           double noise);

// Finite-element-like block rows: a nx x ny x nz grid of nodes with `block` unknowns each (3 for
// 3D elasticity), every node coupled to its 27-point neighbours by a dense block x block block,
// so interior rows hold 27 block entries (81 for block = 3). Symmetric, 27 block on the
// diagonal, -1 elsewhere. points = 7 couples each node to its 7-point neighbours instead (5 when
// nz = 1): the matrices of finite differences with several fields a node (a PETSc DMDA with
// dof = block and a star stencil, e.g. SNES ex19's 4 fields on a 2D grid: 20 entries a row).
Csr64 elasticity(std::int64_t nx, std::int64_t ny, std::int64_t nz, int block = 3, int points = 27);

// rows x cols with heavy-tailed (Pareto, Zipf-like) row lengths: P(length > x) = (x_min / x)^tail
// with x_min set for a mean of `mean` (tail in (1, 8]; lengths at least 1, capped at cols),
// distinct uniformly random columns, values uniform in [-1, 1].
Csr64 powerlaw_rows(std::int64_t rows, std::int64_t cols, double mean, double tail,
                    std::uint64_t seed);

// P A P^T for a random permutation P from `seed`: the same matrix with rows and columns
// renumbered alike (square matrices only), rows sorted again. In specs: any family's key perm=SEED.
Csr64 permute_symmetric(const Csr64& a, std::uint64_t seed);

// Circuit-like, square: a fraction of empty rows, short rows of random (geometric) length with
// mean `mean_len` (>= 1: the diagonal, mostly near neighbours, a few far columns), and
// `long_rows` very long rows at pseudo-random positions with `long_len` uniformly spread
// nonzeros each (0: 400000 capped at rows).
Csr64 circuit(std::int64_t rows, std::uint64_t seed, double empty_fraction = 0.3, int long_rows = 8,
              std::int64_t long_len = 0, double mean_len = 4.0);

// The off-diagonal (ghost) block of one rank of a 7-point 3D Laplacian split into z-slabs: the
// rank's nx x ny x nz slab as rows, the neighbouring planes below and above as 2 nx ny columns;
// only the slab's bottom and top planes have entries (-1), every other row is empty.
Csr64 ghost_block(std::int64_t nx, std::int64_t ny, std::int64_t nz);

// Arrow: diagonal plus a full first row and a full first column.
Csr64 arrow(std::int64_t n);

// Exactly `nnz` nonzeros spread over `rows` rows (lengths random, columns random): used to hit
// the kernels' nonzeros-per-block boundaries exactly.
Csr64 random_with_nnz(std::int64_t rows, std::int64_t cols, std::int64_t nnz, std::uint64_t seed);

Csr64 empty(std::int64_t rows, std::int64_t cols);                          // all rows empty
Csr64 single_row(std::int64_t cols, std::int64_t nnz, std::uint64_t seed);  // 1 x cols
Csr64 single_column(std::int64_t rows, std::uint64_t seed);                 // rows x 1, full
// One row (index `row`) holds every nonzero.
Csr64 one_full_row(std::int64_t rows, std::int64_t cols, std::int64_t row, std::uint64_t seed);

// Generator specs, e.g. "poisson3d:n=200", "banded:rows=1048576,per_row=22,sigma=1000,seed=1",
// "rmat:scale=21,ef=16", "elasticity:n=64", "poisson3d:n=100,perm=7". Unknown names or keys, bad
// numbers and invalid sizes throw status::invalid_argument. The anchor matrices
// (docs/architecture.md): poisson3d:n=64, poisson3d:n=200, stencil27:n=128,
// banded:rows=1048576,per_row=22,sigma=10 (1000, 40000, uniform), rmat:scale=21,ef=16,
// circuit:rows=4000000,mean=4.4, banded:rows=20000,per_row=10,sigma=50.
Csr64 from_spec(const std::string& spec);
// One line per family: name and keys with defaults.
std::vector<std::string> spec_help();

// n values uniform in [-1, 1) from `seed` (vectors and matrix values of tests and benchmarks);
// the same seed gives the same values on every machine.
template <class V>
std::vector<V> random_vector(std::int64_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> dist(-1.0, 1.0);
  std::vector<V> v(static_cast<std::size_t>(n));
  for (auto& e : v) e = static_cast<V>(dist(rng));
  return v;
}

}  // namespace hola::gen
