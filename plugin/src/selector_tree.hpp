// Interface of the learned kernel selector: decision trees trained by bench/selector/train.py on
// hola-bench data and written out as plain C++ (selector_tree_generated.cpp). Not installed.
#pragma once

#include "hola/features.hpp"
#include "hola/types.hpp"

namespace hola::detail {

// The trees' inputs. Single precision because scikit-learn compares features as float32 against
// double thresholds; rounding them the same way makes C++ and Python take the same branches.
// train.py's tree_features() computes the same quantities, in the same order of operations.
struct TreeFeatures {
  float rows, cols, nnz, min_row, max_row, mean_row, std_row, gini, empty_fraction;
  float max_over_mean;   // longest row / mean row: imbalance
  float cv_row;          // std / mean row length
  float cols_over_rows;  // shape: wide > 1 > tall
  // StructureStats as fractions of nnz: lane use of one thread per row in groups of 32 rows;
  // x read in runs along a row; x shared with the row above (same line; within 1024 columns);
  // the row above's column list repeated (block rows: the unknowns of one mesh node).
  float group_efficiency, row_near, neighbor_near, neighbor_mid, neighbor_same;
};

inline TreeFeatures tree_features(const MatrixFeatures& m) {
  const RowLengthStats& s = m.lengths;
  const StructureStats& c = m.structure;
  const double rows = static_cast<double>(s.rows), cols = static_cast<double>(s.cols);
  const double nnz = static_cast<double>(s.nnz);
  const double mean = s.rows > 0 ? nnz / rows : 0.0;
  TreeFeatures f{};
  f.rows = static_cast<float>(rows);
  f.cols = static_cast<float>(cols);
  f.nnz = static_cast<float>(nnz);
  f.min_row = static_cast<float>(static_cast<double>(s.min_row));
  f.max_row = static_cast<float>(static_cast<double>(s.max_row));
  f.mean_row = static_cast<float>(mean);
  f.std_row = static_cast<float>(s.std_row);
  f.gini = static_cast<float>(s.gini);
  f.empty_fraction =
      static_cast<float>(s.rows > 0 ? static_cast<double>(s.empty_rows) / rows : 0.0);
  f.max_over_mean = static_cast<float>(mean > 0 ? static_cast<double>(s.max_row) / mean : 0.0);
  f.cv_row = static_cast<float>(mean > 0 ? s.std_row / mean : 0.0);
  f.cols_over_rows = static_cast<float>(s.rows > 0 ? cols / rows : 0.0);
  f.group_efficiency = static_cast<float>(c.group_efficiency());
  f.row_near = static_cast<float>(c.fraction(c.row_near));
  f.neighbor_near = static_cast<float>(c.fraction(c.neighbor_near));
  f.neighbor_mid = static_cast<float>(c.fraction(c.neighbor_mid));
  f.neighbor_same = static_cast<float>(c.fraction(c.neighbor_same));
  return f;
}

struct TreePick {
  const char* kernel = nullptr;  // registry name; nullptr: no tree for this combination
  // The leaf's runner-up, timed against `kernel` (and cuSPARSE) at setup; may equal `kernel`.
  const char* second = nullptr;
  int leaf = -1;  // leaf number in the tree (shown in the selection reason)
};

// Generated (selector_tree_generated.cpp).
TreePick tree_pick(bool single_precision, Op op, const TreeFeatures& f);
// Which data the trees were trained on (device, commit, date), for the selection reason.
const char* tree_provenance();

}  // namespace hola::detail
