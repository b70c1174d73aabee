// Type lists of the typed tests: one Types<V, I, O> per value / column index / row offset
// combination. The order is fixed (gtest numbers the instantiations /0, /1, ... in list order and
// scripts/device-check.sh filters on `*/0.*`), and it is the order of
// HOLA_FOR_EACH_VALUE_INDEX_OFFSET (hola/detail/instantiate.hpp).
#pragma once

#include <gtest/gtest.h>

#include <cstdint>

namespace hola::test {

template <class V_, class I_, class O_>
struct Types {
  using V = V_;  // values
  using I = I_;  // column indices
  using O = O_;  // row offsets
};

// The 8 combinations: float-i32-o32, float-i32-o64, float-i64-o32, float-i64-o64, then double.
using AllTypes = ::testing::Types<
    Types<float, std::int32_t, std::int32_t>, Types<float, std::int32_t, std::int64_t>,
    Types<float, std::int64_t, std::int32_t>, Types<float, std::int64_t, std::int64_t>,
    Types<double, std::int32_t, std::int32_t>, Types<double, std::int32_t, std::int64_t>,
    Types<double, std::int64_t, std::int32_t>, Types<double, std::int64_t, std::int64_t>>;

// Column indices and row offsets of one type (what cuSPARSE accepts).
using SameIndexTypes = ::testing::Types<
    Types<float, std::int32_t, std::int32_t>, Types<float, std::int64_t, std::int64_t>,
    Types<double, std::int32_t, std::int32_t>, Types<double, std::int64_t, std::int64_t>>;

// Column indices and row offsets of different types.
using MixedIndexTypes = ::testing::Types<
    Types<float, std::int32_t, std::int64_t>, Types<float, std::int64_t, std::int32_t>,
    Types<double, std::int32_t, std::int64_t>, Types<double, std::int64_t, std::int32_t>>;

// The batched tests (hola/batched.hpp): one index type for offsets and indices, so Types<V, I, I>.
using BatchTypes = SameIndexTypes;

}  // namespace hola::test

// In a typed test's body: V, I, O of its TypeParam. HOLA_TYPES_OF(T) in a fixture over T.
#define HOLA_TYPES_OF(T)   \
  using V = typename T::V; \
  using I = typename T::I; \
  using O = typename T::O
#define HOLA_TYPES HOLA_TYPES_OF(TypeParam)
// In a batched typed test's body: V and I of its TypeParam (BatchTypes).
#define HOLA_BATCH_TYPES           \
  using V = typename TypeParam::V; \
  using I = typename TypeParam::I
