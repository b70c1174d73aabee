// inode's width rule (kernels/cuda/inode/inode_width.hpp) on the block-row layouts it was fitted
// to (H200; bench/results/2026-11-28-session14/summary.txt scores each pick against the best).
#include <gtest/gtest.h>

#include "../../kernels/cuda/inode/inode_width.hpp"

namespace {

using hola::cuda::inode::inode_lanes_per_row;

TEST(InodeWidth, BlockRowsOfTheMeasuredLayouts) {
  // SNES ex19 (2D, 5 nodes of 4 unknowns: 20 entries a row, groups of 4 rows): 8 lanes.
  EXPECT_EQ(inode_lanes_per_row(19.96, 4.0), 8);
  // 3D 7-point nodes of 4 unknowns (28 a row): 8.
  EXPECT_EQ(inode_lanes_per_row(27.6, 4.0), 8);
  // 7-point nodes of 2 (14 a row) and 2D nodes of 3 (15 a row): 4 and 8.
  EXPECT_EQ(inode_lanes_per_row(13.9, 2.0), 4);
  EXPECT_EQ(inode_lanes_per_row(15.0, 3.0), 8);
  // 3D elasticity, 27-point nodes of 3 (81 a row): 16. Groups hold at most 4 rows, so nodes of
  // 5 unknowns (135 a row) make groups of 4 + 1 (2.5 rows on average): 16, which ran 0.93-0.98
  // of the best (32); nodes of 8 (216 a row) make 4 + 4: 32, the best.
  EXPECT_EQ(inode_lanes_per_row(81.0, 3.0), 16);
  EXPECT_EQ(inode_lanes_per_row(135.0, 2.5), 16);
  EXPECT_EQ(inode_lanes_per_row(216.0, 4.0), 32);
}

TEST(InodeWidth, PowersOfTwoFromTwoToThirtyTwo) {
  EXPECT_EQ(inode_lanes_per_row(0.0, 1.0), 2);   // an empty matrix
  EXPECT_EQ(inode_lanes_per_row(7.0, 1.0), 2);   // rows alone: Poisson
  EXPECT_EQ(inode_lanes_per_row(26.9, 1.0), 4);  // rows alone: 27-point
  EXPECT_EQ(inode_lanes_per_row(1e6, 4.0), 32);
  // Each bound belongs to the wider side; the widths never shrink as the work grows.
  EXPECT_EQ(inode_lanes_per_row(8.0, 1.0), 4);
  EXPECT_EQ(inode_lanes_per_row(32.0, 1.0), 8);
  EXPECT_EQ(inode_lanes_per_row(128.0, 1.0), 16);
  EXPECT_EQ(inode_lanes_per_row(512.0, 1.0), 32);
  int last = 2;
  for (double w = 0.5; w < 4096; w *= 1.1) {
    const int lanes = inode_lanes_per_row(w, 1.0);
    EXPECT_GE(lanes, last);
    EXPECT_TRUE(lanes == 2 || lanes == 4 || lanes == 8 || lanes == 16 || lanes == 32);
    last = lanes;
  }
}

}  // namespace
