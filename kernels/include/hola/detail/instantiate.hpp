// The value / index / offset type combinations every templated component is instantiated for.
// Each file defines its own per-instantiation macro M(V, I, O) and expands it with
// HOLA_FOR_EACH_VALUE_INDEX_OFFSET(M): float-i32-o32, float-i32-o64, float-i64-o32,
// float-i64-o64, then the same four for double (the order of the typed-test lists in
// tests/support/type_lists.hpp). Files split by value type expand
// HOLA_FOR_EACH_INDEX_OFFSET_OF(M, V), the four of one value type; components without a value
// type define M(I, O) and expand HOLA_FOR_EACH_INDEX_OFFSET(M).
#pragma once

#include <cstdint>

#define HOLA_FOR_EACH_INDEX_OFFSET_OF(M, V) \
  M(V, std::int32_t, std::int32_t)          \
  M(V, std::int32_t, std::int64_t)          \
  M(V, std::int64_t, std::int32_t)          \
  M(V, std::int64_t, std::int64_t)

#define HOLA_FOR_EACH_VALUE_INDEX_OFFSET(M) \
  HOLA_FOR_EACH_INDEX_OFFSET_OF(M, float)   \
  HOLA_FOR_EACH_INDEX_OFFSET_OF(M, double)

#define HOLA_FOR_EACH_INDEX_OFFSET(M) \
  M(std::int32_t, std::int32_t)       \
  M(std::int32_t, std::int64_t)       \
  M(std::int64_t, std::int32_t)       \
  M(std::int64_t, std::int64_t)
