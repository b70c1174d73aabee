// Semirings of the sparse-vector products (SpMSpV), usable on host and device. A semiring is
// (add, multiply, identity of add); multiply(a, x) takes the matrix entry a first and the vector
// entry x second, whatever the op (N or T).
#pragma once

#include <cmath>
#include <limits>

#if defined(__CUDACC__)
#define HOLA_SPMSPV_HD __host__ __device__ __forceinline__
#else
#define HOLA_SPMSPV_HD inline
#endif

namespace hola::spmspv {

enum class Semiring : int {
  plus_times = 0,  // arithmetic: y_i = sum_j a_ij x_j
  or_and = 1,      // Boolean: y_i = OR_j (a_ij != 0 AND x_j != 0), stored as 1 or 0
  min_first = 2,   // y_i = min_j a_ij over the j where x_j is present (BFS levels, SSSP steps)
  min_second = 3,  // y_i = min_j x_j over the j where a_ij is present (BFS parents: x_j = j)
};

inline const char* semiring_name(Semiring s) {
  switch (s) {
    case Semiring::plus_times:
      return "plus_times";
    case Semiring::or_and:
      return "or_and";
    case Semiring::min_first:
      return "min_first";
    case Semiring::min_second:
      return "min_second";
  }
  return "unknown";
}

inline bool is_valid_semiring(Semiring s) {
  return s == Semiring::plus_times || s == Semiring::or_and || s == Semiring::min_first ||
         s == Semiring::min_second;
}

// Compile-time semiring, one struct per enum value; the kernels are templates over these.
template <Semiring S>
struct Ops;

// The identity of add in the arithmetic and Boolean semirings.
struct ZeroIdentity {
  template <class T>
  static HOLA_SPMSPV_HD T identity() {
    return T(0);
  }
};

template <>
struct Ops<Semiring::plus_times> : ZeroIdentity {
  template <class T>
  static HOLA_SPMSPV_HD T add(T a, T b) {
    return a + b;
  }
  template <class T>
  static HOLA_SPMSPV_HD T mul(T a, T x) {
    return a * x;
  }
  static constexpr bool exact = false;  // result depends on the summation order (rounding)
};

template <>
struct Ops<Semiring::or_and> : ZeroIdentity {
  template <class T>
  static HOLA_SPMSPV_HD T add(T a, T b) {
    return (a != T(0) || b != T(0)) ? T(1) : T(0);
  }
  template <class T>
  static HOLA_SPMSPV_HD T mul(T a, T x) {
    return (a != T(0) && x != T(0)) ? T(1) : T(0);
  }
  static constexpr bool exact = true;
};

// What the two min semirings share: identity +inf, add = min.
struct MinOps {
  template <class T>
  static HOLA_SPMSPV_HD T identity() {
    return static_cast<T>(HUGE_VALF);  // +inf; callable in device code (no host-only call)
  }
  template <class T>
  static HOLA_SPMSPV_HD T add(T a, T b) {
    return b < a ? b : a;
  }
  static constexpr bool exact = true;
};

template <>
struct Ops<Semiring::min_first> : MinOps {
  template <class T>
  static HOLA_SPMSPV_HD T mul(T a, T /*x*/) {
    return a;
  }
};

template <>
struct Ops<Semiring::min_second> : MinOps {
  template <class T>
  static HOLA_SPMSPV_HD T mul(T /*a*/, T x) {
    return x;
  }
};

// Calls f(Ops<S>{}) for the run-time semiring s.
template <class F>
decltype(auto) dispatch_semiring(Semiring s, F&& f) {
  switch (s) {
    case Semiring::or_and:
      return f(Ops<Semiring::or_and>{});
    case Semiring::min_first:
      return f(Ops<Semiring::min_first>{});
    case Semiring::min_second:
      return f(Ops<Semiring::min_second>{});
    default:
      return f(Ops<Semiring::plus_times>{});
  }
}

}  // namespace hola::spmspv
