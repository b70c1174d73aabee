// inode's vector width, chosen at setup once the groups are known. Plain C++ (no CUDA), so the
// unit tests check the rule on the CPU.
#pragma once

namespace hola::cuda::inode {

// The power of two in [2, 32] nearest (on a log scale) to sqrt(L b), L the mean row length and b
// the mean rows of a group: each lane multiplies every column it reads into all b rows of its
// group, so a group wants more lanes than one row of the same length (vector-adaptive's rule,
// about six entries a lane, gave 4 lanes to SNES ex19's 20-entry rows of 4 unknowns a node,
// where 8 run 1.3-1.5x faster). Bounds on L b: 2^3, 2^5, 2^7, 2^9 (square roots 2^1.5 ... 2^4.5).
// Fitted on an H200 to every width forced on block rows of 2-8 unknowns a node with 14-216
// entries a row (bench/results/2026-11-28-session14/ run D, .../2026-11-28-session13/ run B):
// 0.979 of the best width's speed on the geometric mean of 52 cases, 0.885 at the lowest
// (elasticity 16^3, float), where mean / 6 reached 0.863 and 0.307.
inline int inode_lanes_per_row(double mean_row_length, double mean_group_rows) {
  const double products = mean_row_length * mean_group_rows;  // per column list of a group
  if (products < 8.0) return 2;
  if (products < 32.0) return 4;
  if (products < 128.0) return 8;
  if (products < 512.0) return 16;
  return 32;
}

}  // namespace hola::cuda::inode
