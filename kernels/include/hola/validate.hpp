// Checks of CSR structure and of apply() arguments. Invalid input never reaches a kernel.
#pragma once

#include <cstdint>
#include <string>

#include "hola/csr_view.hpp"

namespace hola {

struct ValidationOptions {
  bool require_sorted = false;   // columns strictly increasing inside each row
  bool allow_duplicates = true;  // same column twice in a row (only if not require_sorted)
};

// Empty string when the view is a valid CSR matrix, otherwise a precise description of the
// first problem found (which row / entry, what value). Host memory only.
template <class V, class I, class O>
std::string check_csr(const CsrView<V, I, O>& A, const ValidationOptions& options = {});

// Throws hola::error(status::invalid_csr, ...) with check_csr's message.
template <class V, class I, class O>
void validate_csr(const CsrView<V, I, O>& A, const ValidationOptions& options = {});

// Checks only what needs no access to the arrays (sizes, null pointers, index type ranges).
template <class V, class I, class O>
std::string check_csr_shape(const CsrView<V, I, O>& A);

// Throws status::aliasing when [x, x + nx) overlaps [y, y + ny) (byte ranges of V elements).
template <class V>
void check_no_alias(const V* x, std::int64_t nx, const V* y, std::int64_t ny, const char* what);

}  // namespace hola
