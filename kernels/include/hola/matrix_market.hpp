// Matrix Market (coordinate) reader and writer.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "hola/csr_view.hpp"

namespace hola {

enum class MmField { real, integer, pattern, complex };
enum class MmSymmetry { general, symmetric, skew_symmetric, hermitian };

struct MatrixMarketInfo {
  MmField field = MmField::real;
  MmSymmetry symmetry = MmSymmetry::general;
  std::int64_t rows = 0;
  std::int64_t cols = 0;
  std::int64_t stored_entries = 0;  // entries listed in the file
};

// Reads a coordinate Matrix Market file into a CSR matrix: 1-based input, symmetric and
// skew-symmetric expanded, duplicates summed, each row sorted by column, pattern entries = 1.
// Every malformed input throws hola::error(status::parse) naming the file and line;
// unreadable files throw status::io; complex or array files throw status::unsupported.
template <class V, class I, class O>
CsrMatrix<V, I, O> read_matrix_market(const std::string& path, MatrixMarketInfo* info = nullptr);

// Same, from text in memory; `name` is used in error messages.
template <class V, class I, class O>
CsrMatrix<V, I, O> parse_matrix_market(std::string_view text, const std::string& name = "<text>",
                                       MatrixMarketInfo* info = nullptr);

// Header and size line only.
MatrixMarketInfo read_matrix_market_info(const std::string& path);

// Writes "coordinate real general", 1-based, values with full round-trip precision.
template <class V, class I, class O>
void write_matrix_market(const std::string& path, const CsrView<V, I, O>& A);

}  // namespace hola
