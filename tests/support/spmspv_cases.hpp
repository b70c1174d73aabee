// Inputs of the SpMSpV tests on the host (tests/unit/spmspv_test.cpp) and the device
// (tests/gpu/spmspv_gpu_test.cu): the generated families they sweep, random sparse vectors in
// every format, the semirings.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "hola/generators.hpp"
#include "hola/spmspv.hpp"

namespace hola::test {

// The family added to the common list: the host sweep takes a uniform band, the device sweep a
// larger R-MAT (more blocks).
enum class SpmspvExtraFamily { banded_uniform, rmat_large };

// Every generated family, small enough to sweep every combination.
inline std::vector<std::pair<std::string, gen::Csr64>> spmspv_families(SpmspvExtraFamily extra) {
  std::vector<std::pair<std::string, gen::Csr64>> f;
  f.emplace_back("poisson2d", gen::poisson2d(12, 10));
  f.emplace_back("poisson3d", gen::poisson3d(6, 5, 4));
  f.emplace_back("stencil27", gen::stencil27(5, 5, 4));
  f.emplace_back("banded_normal", gen::banded_normal(300, 6, 10.0, 1));
  if (extra == SpmspvExtraFamily::banded_uniform)
    f.emplace_back("banded_uniform", gen::banded_normal(200, 5, 0.0, 2));
  f.emplace_back("random_rect_wide", gen::random_rect(90, 300, 5, 3));
  f.emplace_back("random_rect_tall", gen::random_rect(300, 70, 4, 4));
  f.emplace_back("rmat", gen::rmat(9, 8, 5));
  f.emplace_back("circuit", gen::circuit(400, 6, 0.3, 2, 150));
  f.emplace_back("arrow", gen::arrow(120));
  f.emplace_back("random_with_nnz", gen::random_with_nnz(200, 150, 1000, 7));
  f.emplace_back("empty", gen::empty(50, 40));
  f.emplace_back("single_row", gen::single_row(200, 50, 8));
  f.emplace_back("single_column", gen::single_column(100, 9));
  f.emplace_back("one_full_row", gen::one_full_row(60, 80, 17, 10));
  if (extra == SpmspvExtraFamily::rmat_large) f.emplace_back("rmat_large", gen::rmat(14, 16, 11));
  return f;
}

inline constexpr spmspv::Semiring kSemirings[] = {
    spmspv::Semiring::plus_times, spmspv::Semiring::or_and, spmspv::Semiring::min_first,
    spmspv::Semiring::min_second};

// Sparse x of length n with round(density n) entries at random distinct positions, in every
// format (host arrays). Owns its arrays.
template <class V, class I>
struct TestVector {
  std::int64_t n = 0;
  std::vector<I> sorted_idx, unsorted_idx;
  std::vector<V> sorted_val, unsorted_val, dense_val;
  std::vector<std::uint32_t> bits;

  TestVector(std::int64_t size, double density, std::uint64_t seed) : n(size) {
    std::mt19937_64 rng(seed);
    std::vector<std::int64_t> perm(static_cast<std::size_t>(n));
    std::iota(perm.begin(), perm.end(), 0);
    std::shuffle(perm.begin(), perm.end(), rng);
    const auto nnz = static_cast<std::int64_t>(std::llround(density * static_cast<double>(n)));
    perm.resize(static_cast<std::size_t>(nnz));
    auto vals = gen::random_vector<V>(nnz, seed + 1);
    dense_val.assign(static_cast<std::size_t>(n), V(0));
    bits.assign(static_cast<std::size_t>((n + 31) / 32), 0u);
    for (std::int64_t k = 0; k < nnz; ++k) {
      unsorted_idx.push_back(static_cast<I>(perm[k]));
      unsorted_val.push_back(vals[k]);
      dense_val[perm[k]] = vals[k];
      bits[perm[k] / 32] |= 1u << (perm[k] % 32);
    }
    std::vector<std::int64_t> order(perm.begin(), perm.end());
    std::sort(order.begin(), order.end());
    for (auto j : order) {
      sorted_idx.push_back(static_cast<I>(j));
      sorted_val.push_back(dense_val[j]);
    }
  }
  std::int64_t nnz() const { return static_cast<std::int64_t>(sorted_idx.size()); }
  spmspv::SparseVectorView<V, I> view(spmspv::VectorFormat f) const {
    spmspv::SparseVectorView<V, I> x;
    x.size = n;
    x.nnz = nnz();
    x.format = f;
    if (f == spmspv::VectorFormat::sorted) {
      x.indices = sorted_idx.data();
      x.values = sorted_val.data();
    } else if (f == spmspv::VectorFormat::unsorted) {
      x.indices = unsorted_idx.data();
      x.values = unsorted_val.data();
    } else {
      x.bits = bits.data();
      x.values = dense_val.data();
    }
    return x;
  }
};

}  // namespace hola::test
