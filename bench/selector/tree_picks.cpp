// The generated trees' picks for feature lines, without CUDA (bench/selector/compare_trees.py
// builds it once per selector_tree_generated.cpp it compares).
//
//   g++ -O1 -std=c++17 -Iplugin/src -Ikernels/include bench/selector/tree_picks.cpp \
//       plugin/src/selector_tree_generated.cpp -o /tmp/tree_picks
//
// stdin: one matrix a line, "name rows cols nnz min_row max_row empty_rows std_row gini
// group_slots row_near neighbor_near neighbor_mid neighbor_same" (the counts of hola-bench's
// "matrices" entries). stdout: "name precision op first second" for double / float, N / T.
#include <cstdio>
#include <iostream>
#include <string>

#include "selector_tree.hpp"

int main() {
  std::string name;
  hola::MatrixFeatures m;
  hola::RowLengthStats& s = m.lengths;
  hola::StructureStats& c = m.structure;
  while (std::cin >> name >> s.rows >> s.cols >> s.nnz >> s.min_row >> s.max_row >> s.empty_rows >>
         s.std_row >> s.gini >> c.group_slots >> c.row_near >> c.neighbor_near >> c.neighbor_mid >>
         c.neighbor_same) {
    c.nnz = s.nnz;
    const hola::detail::TreeFeatures f = hola::detail::tree_features(m);
    for (const bool single : {false, true})
      for (const hola::Op op : {hola::Op::N, hola::Op::T}) {
        const hola::detail::TreePick p = hola::detail::tree_pick(single, op, f);
        std::printf("%s %s %s %s %s\n", name.c_str(), single ? "float" : "double",
                    op == hola::Op::N ? "N" : "T", p.kernel ? p.kernel : "-",
                    p.second ? p.second : "-");
      }
  }
  return 0;
}
