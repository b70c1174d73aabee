// The grid problems that the demos solve and the adapter tests check, one row at a time, for any
// host library: `add(column, value)` is called once per entry of row r, the diagonal first and
// then the neighbours in a fixed order (so every library gets the same matrix). Header only and
// standard C++ only: the demos own it, the tests may include it (never the other way round).
#pragma once

#include <cmath>

namespace hola::grid {

// Row r of the 3D 7-point Laplacian on an n x n x n grid (SPD: 6 on the diagonal, -1 for each
// neighbour); r = (i n + j) n + k.
template <class I, class Add>
void poisson3d_row(I n, I r, Add&& add) {
  const I nn = n * n, i = r / nn, j = (r / n) % n, k = r % n;
  add(r, 6.0);
  if (i > 0) add(r - nn, -1.0);
  if (i < n - 1) add(r + nn, -1.0);
  if (j > 0) add(r - n, -1.0);
  if (j < n - 1) add(r + n, -1.0);
  if (k > 0) add(r - 1, -1.0);
  if (k < n - 1) add(r + 1, -1.0);
}

// Row r of the same Laplacian with `dof` unknowns per grid node, coupled within each node as a
// PETSc DMDA with dof > 1 assembles them: r = node dof + a, and the row holds all dof unknowns of
// the node and of each of its neighbours, so the dof rows of a node share one column list. Each
// 7-point entry becomes a dof x dof block: the entry on its diagonal, -|entry| c off it, with
// c = 1 / (2 dof) (the node's own block adds 1 + 12 (dof - 1) c to its diagonal, so the matrix
// stays symmetric and strictly diagonally dominant). dof = 1 gives poisson3d_row.
template <class I, class Add>
void poisson3d_block_row(I n, I dof, I r, Add&& add) {
  const I node = r / dof, a = r % dof;
  const double coupling = 1.0 / (2.0 * static_cast<double>(dof));
  const double own = 1.0 + 12.0 * static_cast<double>(dof - 1) * coupling;
  // The diagonal first, as in poisson3d_row.
  poisson3d_row(n, node, [&](I col_node, double value) {
    const bool self = col_node == node;
    if (self) add(r, value + (dof > 1 ? own : 0.0));
    for (I b = 0; b < dof; ++b)
      if (!(self && b == a))
        add(col_node * dof + b, (b == a ? value : -std::abs(value) * coupling));
  });
}

// The coefficients of a 5-point operator on an n x n grid, r = i n + j: the diagonal, the
// neighbours at i - 1 and i + 1, and those at j - 1 and j + 1 (unequal ones make it unsymmetric,
// e.g. convection-diffusion).
struct FivePoint {
  double diag = 4.0, i_minus = -1.0, i_plus = -1.0, j_minus = -1.0, j_plus = -1.0;
};

// Row r of the 5-point operator `c` on an n x n grid.
template <class I, class Add>
void five_point_row(I n, I r, const FivePoint& c, Add&& add) {
  const I i = r / n, j = r % n;
  add(r, c.diag);
  if (i > 0) add(r - n, c.i_minus);
  if (i < n - 1) add(r + n, c.i_plus);
  if (j > 0) add(r - 1, c.j_minus);
  if (j < n - 1) add(r + 1, c.j_plus);
}

}  // namespace hola::grid
