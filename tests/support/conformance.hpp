// The conformance suite: what every kernel of the kernel table must do, for host kernels (run in
// CI, tests/unit/conformance_test.cpp) and device kernels (run on a GPU,
// tests/gpu/device_conformance_test.cu). A new family joins by its table row alone: the suite walks
// KernelRegistry::kernels() for the memory it is instantiated for.
//
// For each kernel and each value / index type pair:
//  - every generated matrix family and the block-boundary matrices of the common block sizes:
//    op N and (where supported) op T, six (alpha, beta) pairs, in place and into a NaN-poisoned
//    distinct output, y_in untouched, fresh random x and y, new values through set_values
//    (check_kernel_on_matrix);
//  - the deterministic variant where the table says there is one: two applies bitwise equal
//    (op N, and op T where the table offers it deterministically);
//  - through hola::Operator with the kernel named: bad calls (sizes that do not match, x
//    aliasing y, null vectors, a column out of range or a broken row_ptr at setup) give the
//    documented status and leave y and the Operator as they were.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "corpus.hpp"
#include "hola/error.hpp"
#include "hola/operator.hpp"
#include "hola/registry.hpp"
#include "spmv_check.hpp"
#include "status_of.hpp"

namespace hola::test {

// Registry names of the table's kernels that live in `memory` (auto excluded: it is a choice
// among them, tested with the Operator).
inline std::vector<std::string> table_kernels(Memory memory) {
  std::vector<std::string> names;
  for (const KernelInfo& k : KernelRegistry::kernels())
    if (k.memory == memory && k.name != "auto") names.push_back(k.name);
  return names;
}

template <class Mem, class V, class I, class O>
bool takes_types(const KernelInfo& info) {
  return info.mixed_index_types || std::is_same_v<I, O>;
}

// Products on every family and block boundary, plain and (where offered) deterministic.
template <class Mem, class V, class I, class O>
void conform_products(const std::string& name, void* stream = nullptr) {
  const KernelInfo* info = KernelRegistry::find(name);
  ASSERT_NE(info, nullptr) << name;
  if (!takes_types<Mem, V, I, O>(*info)) return;  // the Operator falls back (tested there)
  SCOPED_TRACE("kernel " + name);
  std::vector<NamedMatrix> corpus = family_corpus();
  if (!reduced())
    for (std::int64_t block : {128, 896, 1024, 2048})
      for (NamedMatrix& m : boundary_corpus(block)) corpus.push_back(std::move(m));
  KernelFactory<V, I, O> make = [name](const KernelOptions& o) {
    return KernelRegistry::create<V, I, O>(name, o);
  };
  check_kernel_on_corpus<Mem, V, I, O>(corpus, make, KernelOptions{}, stream);
  if (!info->deterministic_n) return;
  KernelOptions det;
  det.deterministic = true;
  SCOPED_TRACE("deterministic");
  check_kernel_on_corpus<Mem, V, I, O>(family_corpus(), make, det, stream);
  // Bitwise reproducible ops.
  const gen::Csr64 A64 = gen::circuit(20000, 5, 0.3, 2, 5000);
  PlacedMatrix<Mem, V, I, O> M(A64);
  auto kernel = make(det);
  kernel->setup(M.view(), stream);
  const std::vector<V> x = random_vector<V>(A64.cols, fresh_seed());
  typename Mem::template Array<V> dx(A64.cols), dy(A64.rows);
  dx.upload(x);
  // Two applies of op bitwise equal (a square matrix: x and y serve both ops).
  const auto expect_two_equal = [&](Op op) {
    std::vector<std::vector<V>> runs;
    for (int r = 0; r < 2; ++r) {
      kernel->apply(op, V(1), dx.get(), V(0), nullptr, dy.get(), stream);
      Mem::sync();
      runs.push_back(dy.download());
    }
    EXPECT_EQ(std::memcmp(runs[0].data(), runs[1].data(), runs[0].size() * sizeof(V)), 0)
        << "deterministic op " << op_name(op) << " differs between two applies";
  };
  expect_two_equal(Op::N);
  // Op T where the table offers it deterministically.
  if (!info->deterministic_t) return;
  EXPECT_TRUE(kernel->supports(Op::T));
  expect_two_equal(Op::T);
}

// Bad calls through the Operator with the kernel named: the status, and nothing written.
template <class Mem, class V, class I, class O>
void conform_bad_calls(const std::string& name, void* stream = nullptr) {
  SCOPED_TRACE("kernel " + name);
  const gen::Csr64 A64 = gen::banded_normal(300, 6, 15.0, 4);
  PlacedMatrix<Mem, V, I, O> M(A64);
  OperatorOptions opt;
  opt.kernel = name;
  Operator<V, I, O> op(opt);
  op.setup(M.view(), 0, stream);
  const std::int64_t n = A64.rows;
  const std::vector<V> y0 = random_vector<V>(n, 11);
  typename Mem::template Array<V> dx(n), dy(n), big(2 * n);
  dx.upload(random_vector<V>(n, 12));
  dy.upload(y0);
  big.upload(random_vector<V>(2 * n, 13));
  const std::vector<V> big0 = big.download();
  auto y_untouched = [&] {
    Mem::sync();
    const std::vector<V> y = dy.download();
    return std::memcmp(y.data(), y0.data(), y0.size() * sizeof(V)) == 0;
  };
  EXPECT_EQ(status_of([&] {
              op.apply(Op::N, V(1), {dx.get(), n - 1}, V(0), {dy.get(), n}, stream);
            }),
            status::size_mismatch);
  EXPECT_EQ(status_of([&] {
              op.apply(Op::N, V(1), {dx.get(), n}, V(0), {dy.get(), n + 1}, stream);
            }),
            status::size_mismatch);
  EXPECT_EQ(status_of([&] {
              op.apply(Op::N, V(1), {dx.get(), n}, V(1), {dy.get(), n - 1}, {dy.get(), n}, stream);
            }),
            status::size_mismatch);
  EXPECT_EQ(status_of([&] {
              op.apply(Op::N, V(1), {nullptr, n}, V(0), {dy.get(), n}, stream);
            }),
            status::invalid_argument);
  EXPECT_TRUE(y_untouched());
  // x overlapping y; y_in partially overlapping y_out.
  EXPECT_EQ(status_of([&] {
              op.apply(Op::N, V(1), {big.get(), n}, V(0), {big.get() + 7, n}, stream);
            }),
            status::aliasing);
  EXPECT_EQ(
      status_of([&] {
        op.apply(Op::N, V(1), {dx.get(), n}, V(1), {big.get(), n}, {big.get() + 3, n}, stream);
      }),
      status::aliasing);
  Mem::sync();
  const std::vector<V> big_after = big.download();
  EXPECT_EQ(std::memcmp(big_after.data(), big0.data(), big0.size() * sizeof(V)), 0)
      << "a refused apply wrote to its output";
  // Invalid structures at setup (validation on): a column out of range, a row_ptr that falls.
  for (int broken = 0; broken < 2; ++broken) {
    gen::Csr64 B = A64;
    if (broken == 0)
      B.col_idx[B.col_idx.size() / 2] = B.cols;
    else
      B.row_ptr[B.rows / 2] = B.row_ptr[B.rows / 2 + 1] + 1;
    PlacedMatrix<Mem, V, I, O> MB(B);
    EXPECT_EQ(status_of([&] { op.setup(MB.view(), 1, stream); }), status::invalid_csr)
        << (broken == 0 ? "column out of range" : "row_ptr not monotone");
  }
  // The Operator still holds the first matrix and still works.
  EXPECT_TRUE(op.is_set_up_for(Operator<V, I, O>::fingerprint(M.view(), 0)));
  const std::vector<V> x = random_vector<V>(n, 14);
  dx.upload(x);
  op.apply(Op::N, V(1), {dx.get(), n}, V(0), {dy.get(), n}, stream);
  Mem::sync();
  EXPECT_TRUE(matches_reference(Op::N, V(1), M.host.view(), x, V(0), y0, dy.download()));
}

// conform_products for every table kernel of Mem's memory, on each of `streams`.
template <class Mem, class V, class I, class O>
void conform_every_kernel_products(const std::vector<void*>& streams = {nullptr}) {
  const std::vector<std::string> kernels = table_kernels(Mem::kind);
  ASSERT_FALSE(kernels.empty());
  for (const std::string& name : kernels)
    for (void* stream : streams) conform_products<Mem, V, I, O>(name, stream);
}

// conform_bad_calls for every table kernel of Mem's memory.
template <class Mem, class V, class I, class O>
void conform_every_kernel_bad_calls() {
  for (const std::string& name : table_kernels(Mem::kind)) conform_bad_calls<Mem, V, I, O>(name);
}

}  // namespace hola::test
