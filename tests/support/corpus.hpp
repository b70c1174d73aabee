// The test corpus (docs/architecture.md, "Test matrices"): every generated family at test size and
// the real matrices.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "hola/generators.hpp"

namespace hola::test {

struct NamedMatrix {
  std::string name;
  gen::Csr64 A;
};

// Every generated family, small enough for a unit test but large enough to span many GPU blocks:
// stencils (5, 7, 27 point), banded (sigma 10, 1000, uniform), R-MAT, circuit-like, arrow,
// wide and tall rectangles, medium rows (120 per row), 0 x 0, 0 nonzeros, all rows empty, single
// row, single column, one row holding every nonzero.
std::vector<NamedMatrix> family_corpus();

// Matrices whose nonzero counts sit at k * nnz_per_block - 1, k * nnz_per_block, +1 for
// k = 1, 2, 3 (and the same inside one long row), for a kernel's block size.
std::vector<NamedMatrix> boundary_corpus(std::int64_t nnz_per_block);

// Directory of the real matrices, decided at run time: the environment variable
// HOLA_MATRICES_DIR when set and not empty, else the build's default (../shared/matrices beside
// the sources unless configured otherwise). Empty string when that folder does not exist: tests
// on real matrices then skip themselves (GTEST_SKIP() << matrices_missing_reason()).
std::string matrices_dir();

// Why matrices_dir() is empty: which folder was looked for and how to point the tests at one.
std::string matrices_missing_reason();

// Every .mtx file of matrices_dir(), read as double / int64; pattern matrices get
// deterministic pseudo-random values (never zero). Throws when the directory is missing.
std::vector<NamedMatrix> real_corpus();

// True when HOLA_TEST_REDUCED is set (compute-sanitizer runs): the corpora shrink.
bool reduced();

// Fresh seed for random inputs (different every run); tests print it on failure.
std::uint64_t fresh_seed();

}  // namespace hola::test
