// Host features of generator specs, for the selector's family sweep (bench/selector/README.md):
// the same counts hola-bench writes into its "matrices" entries (rows ... neighbor_same), from
// hola::gen::from_spec and hola::matrix_features (kernels/include/hola/features.hpp; the GPU's
// gpu::device_matrix_features agrees with them exactly, hola-bench checks it), on a machine
// without CUDA. Builds the whole matrix (16 bytes per nonzero: poisson3d:n=400 needs ~7.5 GB).
//
//   g++ -O2 -std=c++17 -fopenmp -Ikernels/include bench/selector/family_features.cpp \
//       kernels/generators/generators.cpp kernels/error.cpp -o /tmp/family_features
//   /tmp/family_features poisson3d:n=256 "banded:rows=16777216,per_row=10,sigma=100,seed=1"
//
// Prints one JSON object per line: {"matrix": spec, "spec": spec, rows, cols, nnz, ...}.
#include <cstdio>
#include <exception>

#include "hola/features.hpp"
#include "hola/generators.hpp"

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s SPEC [SPEC ...]\n", argv[0]);
    return 2;
  }
  for (int a = 1; a < argc; ++a) {
    try {
      const hola::gen::Csr64 m = hola::gen::from_spec(argv[a]);
      const hola::MatrixFeatures f =
          hola::matrix_features(m.row_ptr.data(), m.col_idx.data(), m.rows, m.cols);
      const hola::RowLengthStats& s = f.lengths;
      const hola::StructureStats& c = f.structure;
      std::printf(
          "{\"matrix\": \"%s\", \"spec\": \"%s\", \"rows\": %lld, \"cols\": %lld, \"nnz\": %lld, "
          "\"min_row\": %lld, \"max_row\": %lld, \"empty_rows\": %lld, \"std_row\": %.17g, "
          "\"gini\": %.17g, \"group_slots\": %lld, \"row_near\": %lld, \"neighbor_near\": %lld, "
          "\"neighbor_mid\": %lld, \"neighbor_same\": %lld}\n",
          argv[a], argv[a], static_cast<long long>(s.rows), static_cast<long long>(s.cols),
          static_cast<long long>(s.nnz), static_cast<long long>(s.min_row),
          static_cast<long long>(s.max_row), static_cast<long long>(s.empty_rows), s.std_row,
          s.gini, static_cast<long long>(c.group_slots), static_cast<long long>(c.row_near),
          static_cast<long long>(c.neighbor_near), static_cast<long long>(c.neighbor_mid),
          static_cast<long long>(c.neighbor_same));
      std::fflush(stdout);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "%s: %s\n", argv[a], e.what());
      return 1;
    }
  }
  return 0;
}
