// The value / index / offset type combinations every templated component is instantiated for.
// Each file defines its own per-instantiation macro M(V, I, O) and expands it with
// HOLA_FOR_EACH_VALUE_INDEX_OFFSET(M): float-i32-o32, float-i32-o64, float-i64-o32,
// float-i64-o64, then the same four for double (the order of the typed-test lists in
// tests/support/type_lists.hpp).
#pragma once

#include <cstdint>

#define HOLA_FOR_EACH_VALUE_INDEX_OFFSET(M) \
  M(float, std::int32_t, std::int32_t)      \
  M(float, std::int32_t, std::int64_t)      \
  M(float, std::int64_t, std::int32_t)      \
  M(float, std::int64_t, std::int64_t)      \
  M(double, std::int32_t, std::int32_t)     \
  M(double, std::int32_t, std::int64_t)     \
  M(double, std::int64_t, std::int32_t)     \
  M(double, std::int64_t, std::int64_t)
