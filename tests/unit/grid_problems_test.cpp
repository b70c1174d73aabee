// The demos' grid problems (solvers_demo/grid_problems.hpp): the block Laplacian that
// petsc_matmult_calls -dof and the PETSc tests assemble is what its comment says.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <utility>
#include <vector>

#include "../../solvers_demo/grid_problems.hpp"

namespace {

using Entries = std::vector<std::pair<std::int64_t, double>>;

Entries block_row(std::int64_t n, std::int64_t dof, std::int64_t r) {
  Entries row;
  hola::grid::poisson3d_block_row(n, dof, r, [&](std::int64_t c, double v) {
    row.push_back({c, v});
  });
  return row;
}

TEST(GridProblems, OneUnknownANodeIsThePoissonRow) {
  const std::int64_t n = 5;
  for (std::int64_t r = 0; r < n * n * n; ++r) {
    Entries plain;
    hola::grid::poisson3d_row(n, r, [&](std::int64_t c, double v) { plain.push_back({c, v}); });
    EXPECT_EQ(block_row(n, 1, r), plain) << "row " << r;
  }
}

TEST(GridProblems, BlockLaplacianIsSymmetricDominantAndAlikeWithinANode) {
  const std::int64_t n = 4, dof = 3, rows = n * n * n * dof;
  std::map<std::pair<std::int64_t, std::int64_t>, double> a;
  for (std::int64_t r = 0; r < rows; ++r) {
    const Entries row = block_row(n, dof, r);
    ASSERT_FALSE(row.empty());
    EXPECT_EQ(row.front().first, r) << "the diagonal first";
    double off = 0;
    for (const auto& [c, v] : row) {
      ASSERT_GE(c, 0);
      ASSERT_LT(c, rows);
      EXPECT_TRUE(a.emplace(std::make_pair(r, c), v).second) << "row " << r << " repeats " << c;
      if (c != r) off += std::abs(v);
    }
    EXPECT_GT(row.front().second, off) << "row " << r << " not strictly diagonally dominant";
    // Interior nodes have 7 neighbours (themselves included), each with all dof unknowns.
    EXPECT_LE(row.size(), static_cast<std::size_t>(7 * dof));
  }
  EXPECT_EQ(block_row(n, dof, (1 * n * n + 1 * n + 1) * dof).size(), 7u * dof);
  for (const auto& [rc, v] : a) {
    const auto t = a.find({rc.second, rc.first});
    ASSERT_NE(t, a.end()) << rc.first << "," << rc.second;
    EXPECT_EQ(t->second, v);
  }
  // The dof rows of a node share one column list.
  for (std::int64_t node = 0; node < n * n * n; ++node) {
    std::vector<std::vector<std::int64_t>> columns;
    for (std::int64_t k = 0; k < dof; ++k) {
      std::vector<std::int64_t> c;
      for (const auto& e : block_row(n, dof, node * dof + k)) c.push_back(e.first);
      std::sort(c.begin(), c.end());
      columns.push_back(c);
    }
    for (std::int64_t k = 1; k < dof; ++k) EXPECT_EQ(columns[k], columns[0]) << "node " << node;
  }
}

}  // namespace
