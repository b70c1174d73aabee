// The "auto" selector on the CPU: row_length_stats (the features), the generated trees (they
// must pick what the Python trees picked for the same features), the fallbacks and the rule.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "../../plugin/src/selector_tree.hpp"
#include "../../plugin/src/selector_tree_cases.hpp"
#include "hola/features.hpp"
#include "hola/generators.hpp"
#include "hola/kernel_table.hpp"
#include "hola/selector.hpp"

namespace {

hola::RowLengthStats stats_of(const hola::gen::Csr64& A) {
  return hola::row_length_stats(A.row_ptr.data(), A.rows, A.cols);
}

hola::MatrixFeatures features_of(const hola::detail::TreeCase& c) {
  hola::MatrixFeatures f;
  // In the order of the members of RowLengthStats and StructureStats (hola/features.hpp).
  f.lengths = {c.rows, c.cols, c.nnz, c.min_row, c.max_row, c.empty_rows, c.std_row, c.gini};
  f.structure = {c.nnz,           c.group_slots,  c.row_near,
                 c.neighbor_near, c.neighbor_mid, c.neighbor_same};
  return f;
}

hola::MatrixFeatures all_features_of(const hola::gen::Csr64& A) {
  return hola::matrix_features(A.row_ptr.data(), A.col_idx.data(), A.rows, A.cols);
}

// Gini and std from their definitions, O(rows^2).
void expect_definitions(const hola::gen::Csr64& A) {
  const auto s = stats_of(A);
  std::vector<double> len;
  for (std::int64_t r = 0; r < A.rows; ++r)
    len.push_back(static_cast<double>(A.row_ptr[r + 1] - A.row_ptr[r]));
  const double n = static_cast<double>(len.size()), mean = static_cast<double>(A.nnz()) / n;
  double pairs = 0, squares = 0;
  for (double a : len) {
    squares += (a - mean) * (a - mean);
    for (double b : len) pairs += std::fabs(a - b);
  }
  EXPECT_NEAR(s.gini, mean > 0 ? pairs / (2 * n * n * mean) : 0.0, 1e-12);
  EXPECT_NEAR(s.std_row, std::sqrt(squares / n), 1e-9 * std::max(1.0, s.std_row));
}

TEST(RowLengthStats, CountsLengthsAndEmptyRows) {
  const auto A = hola::gen::arrow(100);
  const auto s = stats_of(A);
  EXPECT_EQ(s.rows, 100);
  EXPECT_EQ(s.cols, 100);
  EXPECT_EQ(s.nnz, A.nnz());
  EXPECT_EQ(s.max_row, 100);
  EXPECT_EQ(s.min_row, 2);
  EXPECT_EQ(s.empty_rows, 0);
  const auto E = stats_of(hola::gen::empty(7, 3));
  EXPECT_EQ(E.empty_rows, 7);
  EXPECT_EQ(E.max_row, 0);
  EXPECT_DOUBLE_EQ(E.mean_row(), 0.0);
  EXPECT_DOUBLE_EQ(E.empty_fraction(), 1.0);
  EXPECT_EQ(E.gini, 0.0);
  EXPECT_EQ(hola::row_length_stats<std::int64_t>(nullptr, 0).rows, 0);
}

TEST(RowLengthStats, GiniAndStdMatchTheirDefinitions) {
  expect_definitions(hola::gen::arrow(300));
  expect_definitions(hola::gen::poisson2d(20, 15));
  expect_definitions(hola::gen::circuit(2000, 3, 0.3, 2, 500, 3.0));
  expect_definitions(hola::gen::rmat(9, 8, 4));
  // One row far longer than the row count: the sorting path instead of the histogram.
  expect_definitions(hola::gen::one_full_row(10, 5000, 3, 1));
  EXPECT_NEAR(stats_of(hola::gen::poisson2d(1, 1)).gini, 0.0, 1e-15);
}

TEST(Selector, GeneratedTreesPickWhatPythonPicked) {
  int checked = 0;
  for (const hola::detail::TreeCase& c : hola::detail::kTreeCases) {
    if (!c.kernel) continue;  // a tree file without cases
    const hola::MatrixFeatures s = features_of(c);
    const hola::Op op = c.transpose ? hola::Op::T : hola::Op::N;
    const auto pick = hola::select_device_kernel(op, c.single_precision, true, s);
    EXPECT_EQ(pick.name, c.kernel) << pick.reason;
    // The race at setup: the leaf's runner-up (when it differs) and cuSPARSE, each once.
    std::vector<std::string> expected;
    if (std::string(c.second) != c.kernel) expected.push_back(c.second);
    if (std::string(c.kernel) != "cusparse" && std::string(c.second) != "cusparse")
      expected.push_back("cusparse");
    EXPECT_EQ(pick.alternatives, expected) << pick.reason;
    EXPECT_NE(pick.reason.find("auto tree"), std::string::npos) << pick.reason;
    EXPECT_NE(hola::find_family(pick.name), nullptr) << pick.name;
    ++checked;
  }
  std::printf("%d generated cases (%s)\n", checked, hola::detail::tree_provenance());
}

// Poisson 3D (7-point, hola::gen::poisson3d(n, n, n)) from n = 100 (within the measured sizes of
// the corpus, up to 2.2 M rows) to 400 (64 M rows), features from
// bench/selector/family_features.cpp (bench/selector/data/family-sweep-features.jsonl). The mean
// row length creeps towards 7 with n (7 - 6 / n): the trees before the margin
// (bench/results/selector-2026-11-25-alone.json) split on mean_row <= 6.9714, giving scalar at
// 200^3 and vector-adaptive from 256^3 on, which was 12 % slower than cuSPARSE in a PETSc CG solve.
// One family, one pick, whatever its size, for every precision and op. (The trees of
// bench/results/selector-2026-11-28.json needed an exception for float op T, n = 100; those of
// selector-2026-11-28-inode.json do not.)
TEST(Selector, Poisson3dGetsOnePickAtEverySize) {
  struct Size {
    std::int64_t rows, nnz, min_row, max_row, empty_rows;
    double std_row, gini;
    std::int64_t group_slots, row_near, neighbor_near, neighbor_mid;
  };
  const Size sizes[] = {
      {1000000, 6940000, 4, 7, 0, 0.24248711305964282, 0.008147005362536023, 6962432, 1980000,
       6889699, 6909895},  // n = 100
      {2097152, 14581760, 4, 7, 0, 0.214808235701055, 0.0064352338108119, 14614528, 4161536,
       14499455, 14532475},  // n = 128
      {4096000, 28518400, 4, 7, 0, 0.19243505397925814, 0.0051889875451024605, 28569600, 8140800,
       28389919, 28441435},  // n = 160
      {8000000, 55760000, 4, 7, 0, 0.17233687939614087, 0.004177584188522238, 55843200, 15920000,
       55559399, 55639795},  // n = 200
      {16777216, 117047296, 4, 7, 0, 0.15249391637455575, 0.0032819426154549894, 117178368,
       33423360, 116718847, 116850427},  // n = 256
      {32768000, 228761600, 4, 7, 0, 0.13650206042400972, 0.0026360315962700087, 228966400,
       65331200, 228248639, 228454075},  // n = 320
      {64000000, 447040000, 4, 7, 0, 0.12216791722870617, 0.002115566937173407, 447372800,
       127680000, 446238799, 446559595},  // n = 400
  };
  const auto features = [](const Size& z) {
    hola::MatrixFeatures f;
    f.lengths = {z.rows, z.rows, z.nnz, z.min_row, z.max_row, z.empty_rows, z.std_row, z.gini};
    f.structure = {z.nnz, z.group_slots, z.row_near, z.neighbor_near, z.neighbor_mid};
    return f;
  };
  for (const bool single : {false, true}) {
    for (const hola::Op op : {hola::Op::N, hola::Op::T}) {
      std::string first;
      for (const Size& z : sizes) {
        const hola::MatrixFeatures f = features(z);
        const auto pick = hola::select_device_kernel(op, single, true, f);
        EXPECT_NE(pick.reason.find("auto tree"), std::string::npos) << pick.reason;
        if (first.empty()) first = pick.name;
        EXPECT_EQ(pick.name, first) << z.rows << " rows: " << pick.reason;
      }
    }
  }
}

// Whether the kernel table says the family needs equal column index and row offset types.
bool equal_types_only(const std::string& name) {
  const hola::KernelFamily* f = hola::find_family(name);
  return f && !f->mixed_index_types();
}

TEST(Selector, EqualTypeOnlyPicksGiveWayForMixedIndexTypes) {
  int checked = 0;
  for (const hola::detail::TreeCase& c : hola::detail::kTreeCases) {
    if (!c.kernel || !equal_types_only(c.kernel)) continue;
    const hola::MatrixFeatures s = features_of(c);
    const auto pick = hola::select_device_kernel(c.transpose ? hola::Op::T : hola::Op::N,
                                                 c.single_precision, false, s);
    EXPECT_FALSE(equal_types_only(pick.name)) << pick.reason;
    EXPECT_NE(pick.reason.find("mixed index types"), std::string::npos) << pick.reason;
    for (const std::string& alt : pick.alternatives) EXPECT_FALSE(equal_types_only(alt)) << alt;
    ++checked;
  }
  EXPECT_GT(checked, 0);
}

TEST(StructureStats, CountsOnASmallMatrix) {
  // Rows: {0, 1, 40}, {}, {2, 3000}, {2, 50, 2000}, {1}.
  hola::gen::Csr64 A;
  A.rows = 5;
  A.cols = 3001;
  A.row_ptr = {0, 3, 3, 5, 8, 9};
  A.col_idx = {0, 1, 40, 2, 3000, 2, 50, 2000, 1};
  A.values.assign(9, 1.0);
  const auto s = hola::structure_stats(A.row_ptr.data(), A.col_idx.data(), A.rows);
  EXPECT_EQ(s.nnz, 9);
  EXPECT_EQ(s.group_slots, 5 * 3);  // one group of 5 rows, the longest has 3
  // Within 32 of the previous column in the row: only the 1 after the 0 (40 - 1 and 50 - 2
  // are too far).
  EXPECT_EQ(s.row_near, 1);
  // Row 2 against row 1 (empty): nothing. Row 3 against row 2: 2~2 near, 50~3000 no.
  // Row 4 against row 3: 1~2 near. Row 1 is empty.
  EXPECT_EQ(s.neighbor_near, 2);
  EXPECT_EQ(s.neighbor_mid, 2);
  EXPECT_DOUBLE_EQ(s.group_efficiency(), 9.0 / 15.0);
  EXPECT_DOUBLE_EQ(s.fraction(s.row_near), 1.0 / 9.0);
  // Row 3's second column 2900: 100 from the 3000 above it, within the mid distance only.
  A.col_idx[6] = 2900;
  const auto m = hola::structure_stats(A.row_ptr.data(), A.col_idx.data(), A.rows);
  EXPECT_EQ(m.neighbor_near, 2);
  EXPECT_EQ(m.neighbor_mid, 3);  // 2900 is within 1024 of 3000
  const auto none = hola::structure_stats<std::int32_t, std::int32_t>(nullptr, nullptr, 0);
  EXPECT_EQ(none.nnz, 0);
}

TEST(StructureStats, CountsRowsRepeatingTheRowAbove) {
  // Rows: {0, 1, 2} three times, then {1, 2, 3}, {1, 2} and {1, 2}.
  hola::gen::Csr64 A;
  A.rows = 6;
  A.cols = 4;
  A.row_ptr = {0, 3, 6, 9, 12, 14, 16};
  A.col_idx = {0, 1, 2, 0, 1, 2, 0, 1, 2, 1, 2, 3, 1, 2, 1, 2};
  A.values.assign(16, 1.0);
  const auto s = hola::structure_stats(A.row_ptr.data(), A.col_idx.data(), A.rows);
  // Rows 1 and 2 repeat row 0 (3 + 3); row 3 differs at every position; row 4 is shorter than
  // row 3 (its 1, 2 are not at row 3's positions anyway); row 5 repeats row 4 (2).
  EXPECT_EQ(s.neighbor_same, 8);
  // Block rows of 3 unknowns per node: two rows of every three repeat the one above.
  const auto block = all_features_of(hola::gen::elasticity(6, 5, 4, 3)).structure;
  EXPECT_NEAR(block.fraction(block.neighbor_same), 2.0 / 3.0, 1e-12);
  const auto stencil = all_features_of(hola::gen::stencil27(12, 12, 12)).structure;
  EXPECT_EQ(stencil.neighbor_same, 0);
}

// Block rows take `inode` (op T only from kRowGroupsTransposeMinNnz nonzeros on, op N only from 3
// unknowns a node), the tree's pick becoming its runner-up; other matrices keep the tree's choice.
TEST(Selector, BlockRowsPreferInode) {
  const hola::KernelSelection tree{"vector-adaptive", "tree", {"hola", "cusparse"}};
  const auto small_blocks = all_features_of(hola::gen::elasticity(6, 6, 6, 3));
  ASSERT_LT(small_blocks.structure.nnz, hola::kRowGroupsTransposeMinNnz);
  const auto n = hola::prefer_row_groups(tree, hola::Op::N, small_blocks);
  EXPECT_EQ(n.name, "inode");
  // The tree's pick, then its own alternatives: auto's check times them all against inode.
  EXPECT_EQ(n.alternatives, (std::vector<std::string>{"vector-adaptive", "hola", "cusparse"}));
  const hola::KernelSelection inode_among{"hola", "tree", {"inode", "hola", "cusparse"}};
  EXPECT_EQ(hola::prefer_row_groups(inode_among, hola::Op::N, small_blocks).alternatives,
            (std::vector<std::string>{"hola", "cusparse"}));
  EXPECT_NE(n.reason.find("block rows"), std::string::npos) << n.reason;
  EXPECT_EQ(hola::prefer_row_groups(tree, hola::Op::T, small_blocks).name, "vector-adaptive");
  const auto large_blocks = all_features_of(hola::gen::elasticity(16, 16, 16, 2));
  ASSERT_GE(large_blocks.structure.nnz, hola::kRowGroupsTransposeMinNnz);
  EXPECT_EQ(hola::prefer_row_groups(tree, hola::Op::T, large_blocks).name, "inode");
  // Nodes of 2 unknowns: op N keeps the tree's pick.
  EXPECT_EQ(hola::prefer_row_groups(tree, hola::Op::N, large_blocks).name, "vector-adaptive");
  // SNES ex19's layout (2D, 4 unknowns a node, 20 entries a row): inode for both ops.
  const auto ex19 = all_features_of(hola::gen::elasticity(130, 130, 1, 4, 7));
  ASSERT_GE(ex19.structure.nnz, hola::kRowGroupsTransposeMinNnz);
  for (hola::Op op : {hola::Op::N, hola::Op::T})
    EXPECT_EQ(hola::prefer_row_groups(tree, op, ex19).name, "inode");
  for (const auto& other : {all_features_of(hola::gen::stencil27(40, 40, 40)),
                            all_features_of(hola::gen::elasticity(14, 14, 14, 1))}) {
    for (hola::Op op : {hola::Op::N, hola::Op::T}) {
      const auto kept = hola::prefer_row_groups(tree, op, other);
      EXPECT_EQ(kept.name, tree.name);
      EXPECT_EQ(kept.alternatives, tree.alternatives);
    }
  }
}

TEST(StructureStats, SeparateStencilsFromRandomColumns) {
  // Same row lengths (5 per row), different x access: the features must tell them apart.
  const auto stencil = all_features_of(hola::gen::poisson2d(200, 200)).structure;
  const auto random = all_features_of(hola::gen::random_rect(40000, 40000, 5, 3)).structure;
  EXPECT_GT(stencil.fraction(stencil.neighbor_near), 0.9);
  EXPECT_LT(random.fraction(random.neighbor_near), 0.01);
  EXPECT_GT(stencil.fraction(stencil.row_near), 0.3);
  EXPECT_LT(random.fraction(random.row_near), 0.05);
  // Equal row lengths in every group of 32 rows: the stencil's only imbalance is its border.
  EXPECT_GT(stencil.group_efficiency(), 0.95);
  const auto skew = all_features_of(hola::gen::one_full_row(20000, 20000, 3, 1)).structure;
  EXPECT_LT(skew.group_efficiency(), 0.2);
}

TEST(Selector, TreeFeaturesAreTheDocumentedRatios) {
  const auto all = all_features_of(hola::gen::circuit(5000, 2, 0.25, 2, 1000, 3.0));
  const auto& s = all.lengths;
  const auto& c = all.structure;
  const auto f = hola::detail::tree_features(all);
  EXPECT_FLOAT_EQ(f.group_efficiency, static_cast<float>(c.nnz) / c.group_slots);
  EXPECT_FLOAT_EQ(f.row_near, static_cast<float>(c.row_near) / c.nnz);
  EXPECT_FLOAT_EQ(f.neighbor_near, static_cast<float>(c.neighbor_near) / c.nnz);
  EXPECT_FLOAT_EQ(f.neighbor_mid, static_cast<float>(c.neighbor_mid) / c.nnz);
  EXPECT_FLOAT_EQ(f.neighbor_same, static_cast<float>(c.neighbor_same) / c.nnz);
  EXPECT_FLOAT_EQ(f.nnz, static_cast<float>(s.nnz));
  EXPECT_FLOAT_EQ(f.mean_row, static_cast<float>(s.mean_row()));
  EXPECT_FLOAT_EQ(f.empty_fraction, static_cast<float>(s.empty_fraction()));
  EXPECT_FLOAT_EQ(f.max_over_mean, static_cast<float>(s.max_row / s.mean_row()));
  EXPECT_FLOAT_EQ(f.cv_row, static_cast<float>(s.std_row / s.mean_row()));
  EXPECT_FLOAT_EQ(f.cols_over_rows, 1.0f);
  // No rows, no nonzeros: every ratio 0, no division by zero.
  const auto z = hola::detail::tree_features(hola::MatrixFeatures{});
  EXPECT_EQ(z.group_efficiency, 0.0f);
  EXPECT_EQ(z.neighbor_near, 0.0f);
  EXPECT_EQ(z.mean_row, 0.0f);
  EXPECT_EQ(z.max_over_mean, 0.0f);
  EXPECT_EQ(z.cv_row, 0.0f);
  EXPECT_EQ(z.cols_over_rows, 0.0f);
}

TEST(SelectorRule, ShortEvenRowsGoToScalar) {
  const auto s = stats_of(hola::gen::poisson3d(10, 10, 10));
  for (hola::Op op : {hola::Op::N, hola::Op::T})
    for (bool single : {false, true})
      EXPECT_EQ(hola::select_device_kernel_by_rule(op, single, true, s).name, "scalar");
}

TEST(SelectorRule, LongRowsNeverGoToScalar) {
  const auto s = stats_of(hola::gen::circuit(20000, 1, 0.3, 2, 5000, 2.0));
  EXPECT_EQ(hola::select_device_kernel_by_rule(hola::Op::N, false, true, s).name, "hola");
  EXPECT_EQ(hola::select_device_kernel_by_rule(hola::Op::N, true, true, s).name, "cusparse");
  EXPECT_EQ(hola::select_device_kernel_by_rule(hola::Op::T, false, true, s).name, "cusparse");
}

TEST(SelectorRule, MixedIndexTypesAvoidCusparse) {
  const auto s = stats_of(hola::gen::banded_normal(5000, 22, 1000.0, 2));
  EXPECT_EQ(hola::select_device_kernel_by_rule(hola::Op::N, true, false, s).name, "hola");
  EXPECT_EQ(hola::select_device_kernel_by_rule(hola::Op::T, false, false, s).name, "hola");
  EXPECT_NE(hola::select_device_kernel_by_rule(hola::Op::T, false, false, s).reason.find("mixed"),
            std::string::npos);
  // Whatever the trees say, mixed index types never get cuSPARSE.
  for (hola::Op op : {hola::Op::N, hola::Op::T})
    for (bool single : {false, true})
      EXPECT_EQ(
          hola::select_device_kernel(op, single, false,
                                     all_features_of(hola::gen::banded_normal(5000, 22, 1000.0, 2)))
              .name.rfind("cusparse", 0),
          std::string::npos);
}

// 64-bit row offsets: a scalar pick for op N above the size limit becomes hola (the trees' data
// were 32-bit); smaller matrices, op T, other kernels and 32-bit offsets keep the tree's pick.
TEST(Selector, WideOffsetsReplaceScalarOnLargeMatrices) {
  const std::int64_t big = hola::kWideOffsetScalarMaxNnz + 1;
  const hola::KernelSelection scalar{"scalar", "tree", {"scalar", "vector", "cusparse"}};
  const auto wide = hola::adjust_for_offset_width(scalar, hola::Op::N, true, big);
  EXPECT_EQ(wide.name, "hola");
  EXPECT_NE(wide.reason.find("64-bit row offsets"), std::string::npos);
  EXPECT_EQ(wide.alternatives, (std::vector<std::string>{"vector", "cusparse"}));
  EXPECT_EQ(hola::adjust_for_offset_width(scalar, hola::Op::N, false, big).name, "scalar");
  EXPECT_EQ(hola::adjust_for_offset_width(scalar, hola::Op::T, true, big).name, "scalar");
  EXPECT_EQ(
      hola::adjust_for_offset_width(scalar, hola::Op::N, true, hola::kWideOffsetScalarMaxNnz).name,
      "scalar");
  const hola::KernelSelection merge{"merge", "tree", {"scalar"}};
  const auto kept = hola::adjust_for_offset_width(merge, hola::Op::N, true, big);
  EXPECT_EQ(kept.name, "merge");
  EXPECT_EQ(kept.alternatives, merge.alternatives);
  EXPECT_EQ(kept.reason, "tree");
}

// Op T with long rows: merge joins the check (hub columns), the pick stays.
TEST(Selector, LongRowsAddMergeToTheTransposeCheck) {
  hola::RowLengthStats s;
  s.rows = 1 << 20;
  s.nnz = 16 * s.rows;
  s.max_row = 100000;
  const hola::KernelSelection tree{"cusparse", "tree", {"hola"}};
  const auto t = hola::check_merge_for_hub_columns(tree, hola::Op::T, s);
  EXPECT_EQ(t.name, "cusparse");
  EXPECT_EQ(t.alternatives, (std::vector<std::string>{"hola", "merge"}));
  EXPECT_NE(t.reason.find("merge checked for hub columns"), std::string::npos) << t.reason;
  // Once only; not for op N, merge's own pick, short rows, rows near the mean, small matrices.
  EXPECT_EQ(hola::check_merge_for_hub_columns(t, hola::Op::T, s).alternatives, t.alternatives);
  EXPECT_EQ(hola::check_merge_for_hub_columns(tree, hola::Op::N, s).alternatives,
            tree.alternatives);
  const hola::KernelSelection merge{"merge", "tree", {"hola"}};
  EXPECT_EQ(hola::check_merge_for_hub_columns(merge, hola::Op::T, s).alternatives,
            merge.alternatives);
  hola::RowLengthStats shorter = s;
  shorter.max_row = hola::kHubCheckMinMaxRow - 1;
  shorter.nnz = 4 * shorter.rows;
  EXPECT_EQ(hola::check_merge_for_hub_columns(tree, hola::Op::T, shorter).alternatives,
            tree.alternatives);
  hola::RowLengthStats even = s;
  even.nnz = static_cast<std::int64_t>(even.max_row / hola::kHubCheckRowsOverMean) * even.rows + 1;
  EXPECT_EQ(hola::check_merge_for_hub_columns(tree, hola::Op::T, even).alternatives,
            tree.alternatives);
  hola::RowLengthStats small = s;
  small.rows = 1000;
  small.nnz = hola::kHubCheckMinNnz - 1;
  EXPECT_EQ(hola::check_merge_for_hub_columns(tree, hola::Op::T, small).alternatives,
            tree.alternatives);
}

TEST(Selector, LongColumnsAddMergeToTheTransposeCheck) {
  // One column of 2^20 rows (any size: the rows are short, the columns long).
  hola::RowLengthStats s;
  s.rows = 1 << 20;
  s.cols = 1;
  s.nnz = s.rows;
  s.min_row = s.max_row = 1;
  const hola::KernelSelection tree{"inode", "tree", {"cusparse"}};
  const auto t = hola::check_merge_for_hub_columns(tree, hola::Op::T, s);
  EXPECT_EQ(t.alternatives, (std::vector<std::string>{"cusparse", "merge"}));
  EXPECT_NE(t.reason.find("entries on average: merge checked"), std::string::npos) << t.reason;
  EXPECT_EQ(hola::check_merge_for_hub_columns(tree, hola::Op::N, s).alternatives,
            tree.alternatives);
  // Small tall matrices too: 1000 rows, 8 columns, all full.
  hola::RowLengthStats tall;
  tall.rows = 1000;
  tall.cols = 8;
  tall.nnz = 8000;
  tall.min_row = tall.max_row = 8;
  EXPECT_EQ(hola::check_merge_for_hub_columns(tree, hola::Op::T, tall).alternatives,
            (std::vector<std::string>{"cusparse", "merge"}));
  // Columns no longer than the rows (square, or too short on average): nothing added.
  hola::RowLengthStats square = tall;
  square.cols = square.rows;
  EXPECT_EQ(hola::check_merge_for_hub_columns(tree, hola::Op::T, square).alternatives,
            tree.alternatives);
  hola::RowLengthStats short_columns = s;
  short_columns.cols = s.rows / (hola::kHubCheckMinMaxRow - 1);
  EXPECT_EQ(hola::check_merge_for_hub_columns(tree, hola::Op::T, short_columns).alternatives,
            tree.alternatives);
}

TEST(Selector, EvenRowsAddVectorAdaptiveToTheCheck) {
  hola::RowLengthStats s;
  s.rows = 1 << 20;
  s.nnz = 27 * s.rows - 1000;  // a 27-point stencil: the longest row near the mean
  s.max_row = 27;
  const hola::KernelSelection tree{"cusparse", "tree", {"hola"}};
  const auto c = hola::check_vector_adaptive_on_even_rows(tree, hola::Op::N, s);
  EXPECT_EQ(c.name, "cusparse");
  EXPECT_EQ(c.alternatives, (std::vector<std::string>{"hola", "vector-adaptive"}));
  EXPECT_NE(c.reason.find("even length: vector-adaptive checked"), std::string::npos) << c.reason;
  // Once only; not when it is the pick, for uneven, short-on-average rows or small matrices.
  EXPECT_EQ(hola::check_vector_adaptive_on_even_rows(c, hola::Op::N, s).alternatives,
            c.alternatives);
  const hola::KernelSelection va{"vector-adaptive", "tree", {"hola"}};
  EXPECT_EQ(hola::check_vector_adaptive_on_even_rows(va, hola::Op::N, s).alternatives,
            va.alternatives);
  hola::RowLengthStats uneven = s;
  uneven.max_row = static_cast<std::int64_t>(hola::kEvenRowsCheckMaxOverMean * 27) + 1;
  EXPECT_EQ(hola::check_vector_adaptive_on_even_rows(tree, hola::Op::N, uneven).alternatives,
            tree.alternatives);
  hola::RowLengthStats short_rows = s;
  short_rows.nnz = 7 * s.rows;
  short_rows.max_row = 7;
  ASSERT_LT(short_rows.mean_row(), hola::kEvenRowsCheckMinMean);
  EXPECT_EQ(hola::check_vector_adaptive_on_even_rows(tree, hola::Op::N, short_rows).alternatives,
            tree.alternatives);
  hola::RowLengthStats small = s;
  small.rows = 1000;
  small.nnz = 27 * 1000;
  ASSERT_LT(small.nnz, hola::kEvenRowsCheckMinNnz);
  EXPECT_EQ(hola::check_vector_adaptive_on_even_rows(tree, hola::Op::N, small).alternatives,
            tree.alternatives);
  // The row lengths of a 3D 27-point stencil and of 3D block rows (3 unknowns a node) add it;
  // those of a 7-point Poisson matrix do not.
  for (const auto& A : {hola::gen::stencil27(40, 40, 40), hola::gen::elasticity(24, 24, 24, 3)}) {
    const hola::KernelSelection picked{"hola", "tree", {"cusparse"}};
    EXPECT_EQ(
        hola::check_vector_adaptive_on_even_rows(picked, hola::Op::N, all_features_of(A).lengths)
            .alternatives,
        (std::vector<std::string>{"cusparse", "vector-adaptive"}));
  }
  const auto poisson = all_features_of(hola::gen::poisson3d(40, 40, 40));
  EXPECT_EQ(
      hola::check_vector_adaptive_on_even_rows(tree, hola::Op::N, poisson.lengths).alternatives,
      tree.alternatives);
  // Op T takes shorter rows (vector-adaptive's windows pay on bands of a few entries a row): the
  // 7-point matrix, a band of 6 draws a row; not rows of fewer than 4 on average.
  EXPECT_EQ(
      hola::check_vector_adaptive_on_even_rows(tree, hola::Op::T, poisson.lengths).alternatives,
      (std::vector<std::string>{"hola", "vector-adaptive"}));
  const auto band = all_features_of(hola::gen::banded_normal(100000, 6, 300.0, 1));
  EXPECT_EQ(hola::check_vector_adaptive_on_even_rows(tree, hola::Op::T, band.lengths).alternatives,
            (std::vector<std::string>{"hola", "vector-adaptive"}));
  EXPECT_EQ(hola::check_vector_adaptive_on_even_rows(tree, hola::Op::N, band.lengths).alternatives,
            tree.alternatives);
  hola::RowLengthStats three = s;
  three.nnz = 3 * s.rows;
  three.max_row = 3;
  ASSERT_LT(three.mean_row(), hola::kEvenRowsCheckMinMeanTranspose);
  EXPECT_EQ(hola::check_vector_adaptive_on_even_rows(tree, hola::Op::T, three).alternatives,
            tree.alternatives);
}

TEST(Selector, ShortRowsTakeScalarForLargeTransposes) {
  hola::RowLengthStats s;
  s.rows = 1 << 16;
  s.nnz = hola::kShortRowsTransposeMinNnz;
  s.max_row = hola::kShortRowsTransposeMaxRow;
  const hola::KernelSelection tree{"hola", "tree", {"vector", "cusparse"}};
  const auto t = hola::adjust_transpose_for_short_rows(tree, hola::Op::T, false, s);
  EXPECT_EQ(t.name, "scalar");
  EXPECT_NE(t.reason.find("op T, rows of at most 8"), std::string::npos) << t.reason;
  EXPECT_EQ(t.alternatives, (std::vector<std::string>{"hola", "vector", "cusparse"}));
  // Not for op N, 64-bit offsets, a longer row or a matrix the gather takes.
  EXPECT_EQ(hola::adjust_transpose_for_short_rows(tree, hola::Op::N, false, s).name, "hola");
  EXPECT_EQ(hola::adjust_transpose_for_short_rows(tree, hola::Op::T, true, s).name, "hola");
  hola::RowLengthStats longer = s;
  longer.max_row = hola::kShortRowsTransposeMaxRow + 1;
  EXPECT_EQ(hola::adjust_transpose_for_short_rows(tree, hola::Op::T, false, longer).name, "hola");
  hola::RowLengthStats small = s;
  small.nnz = hola::kShortRowsTransposeMinNnz - 1;
  const auto kept = hola::adjust_transpose_for_short_rows(tree, hola::Op::T, false, small);
  EXPECT_EQ(kept.name, "hola");
  EXPECT_EQ(kept.reason, "tree");
}

TEST(Selector, HostMatricesAlwaysUseTheCpuKernel) {
  const auto A = hola::gen::poisson2d(5, 5).convert<double, int, int>();
  const auto c = hola::select_kernels("hola", A.view());
  EXPECT_EQ(c.n.name, "cpu");
  EXPECT_EQ(c.t.name, "cpu");
  EXPECT_NE(c.n.reason.find("GPU only"), std::string::npos);
  const auto a = hola::select_kernels("auto", A.view());
  EXPECT_EQ(a.n.name, "cpu");
  EXPECT_EQ(a.features_ms, 0.0);  // no features for host matrices
}

}  // namespace
