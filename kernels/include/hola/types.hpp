// Basic enums and type traits used by every kernel.
#pragma once

#include <cstdint>
#include <string>
#include <type_traits>

namespace hola {

// Operation applied to A: N (y = A x) or T (y = A^T x).
enum class Op { N, T };

// Where the arrays of a view live.
enum class Memory { host, device };

inline const char* op_name(Op op) { return op == Op::N ? "N" : "T"; }
inline const char* memory_name(Memory m) { return m == Memory::host ? "host" : "device"; }

template <class V>
inline constexpr bool is_supported_value_v = std::is_same_v<V, float> || std::is_same_v<V, double>;

template <class I>
inline constexpr bool is_supported_index_v =
    std::is_same_v<I, std::int32_t> || std::is_same_v<I, std::int64_t>;

template <class V>
constexpr const char* value_type_name() {
  if constexpr (std::is_same_v<V, float>)
    return "float";
  else
    return "double";
}

template <class I>
constexpr const char* index_type_name() {
  if constexpr (std::is_same_v<I, std::int32_t>)
    return "int32";
  else
    return "int64";
}

// Accumulator used by the reference: one step more precise than V.
template <class V>
using wide_t = std::conditional_t<std::is_same_v<V, float>, double, long double>;

}  // namespace hola
