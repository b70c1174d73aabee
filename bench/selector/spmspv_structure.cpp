// Structure statistics of hola-spmspv-bench's generated matrices, on a machine without CUDA:
// the "structure" entry the bench writes into its "matrices" (rows ... of A and of A^T, from
// solvers_demo/spmspv_bench/generated_set.hpp), for result files written before the bench
// recorded it (bench/selector/train_spmspv.py --structure). The committed output is
// bench/selector/data/spmspv-structure.json.
//
//   g++ -O2 -std=c++17 -fopenmp -Ikernels/include -Isolvers_demo/spmspv_bench \
//       bench/selector/spmspv_structure.cpp kernels/generators/generators.cpp kernels/error.cpp \
//       -o /tmp/spmspv_structure
//   /tmp/spmspv_structure > bench/selector/data/spmspv-structure.json
//
// Builds each matrix of the full set (kronecker_s18 and s20 included) and of --quick in turn.
#include <cstdio>
#include <set>
#include <string>

#include "generated_set.hpp"

namespace {

void print_stats(const char* key, const hola::RowLengthStats& s, bool last) {
  std::printf(
      "    \"%s\": {\"rows\": %lld, \"nnz\": %lld, \"min\": %lld, \"max\": %lld, "
      "\"std\": %.17g, \"gini\": %.17g, \"empty\": %lld}%s\n",
      key, static_cast<long long>(s.rows), static_cast<long long>(s.nnz),
      static_cast<long long>(s.min_row), static_cast<long long>(s.max_row), s.std_row, s.gini,
      static_cast<long long>(s.empty_rows), last ? "" : ",");
}

}  // namespace

int main() {
  std::set<std::string> seen;
  std::printf("{\"generator\": \"bench/selector/spmspv_structure.cpp\", \"matrices\": [\n");
  bool first = true;
  for (bool quick : {false, true})
    for (const auto& spec : hola::bench::generated_set(quick, {18, 20}, 1)) {
      if (!seen.insert(spec.name).second) continue;
      const hola::bench::Csr64 m = spec.make();
      const auto s = hola::bench::structure_summary(m);
      std::printf("%s  {\"name\": \"%s\", \"rows\": %lld, \"cols\": %lld, \"nnz\": %lld,\n",
                  first ? "" : ",\n", spec.name.c_str(), static_cast<long long>(m.rows),
                  static_cast<long long>(m.cols), static_cast<long long>(m.nnz()));
      std::printf("   \"structure\": {\n");
      print_stats("rows_of_A", s.rows_of_A, false);
      print_stats("rows_of_At", s.rows_of_At, true);
      std::printf("   }}");
      std::fflush(stdout);
      first = false;
    }
  std::printf("\n]}\n");
  return 0;
}
