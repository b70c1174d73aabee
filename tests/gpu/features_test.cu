// gpu::device_row_length_stats and gpu::device_structure_stats (the selector's features) against
// the CPU row_length_stats and structure_stats on every generated family, the real matrices and
// shapes that stress the sort and the reductions: every index / offset type pair, a non-default
// stream, more than 2^16 blocks of rows, one very long row, empty rows.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <tuple>
#include <vector>

#include "gpu_harness.hpp"
#include "hola/features.hpp"
#include "hola/generators.hpp"

namespace hola::test {
namespace {

template <class O>
RowLengthStats on_device(const gen::Csr64& A, cudaStream_t stream = nullptr) {
  DeviceMemory::Array<O> d(std::vector<O>(A.row_ptr.begin(), A.row_ptr.end()));
  return gpu::device_row_length_stats(d.get(), A.rows, A.cols, A.nnz(), stream);
}

void expect_same(const RowLengthStats& gpu, const RowLengthStats& cpu, const std::string& name) {
  SCOPED_TRACE(name);
  // Counts: equal.
  EXPECT_EQ(std::tie(gpu.rows, gpu.cols, gpu.nnz, gpu.min_row, gpu.max_row, gpu.empty_rows),
            std::tie(cpu.rows, cpu.cols, cpu.nnz, cpu.min_row, cpu.max_row, cpu.empty_rows))
      << "(rows, cols, nnz, min_row, max_row, empty_rows)";
  // The GPU sums in double in another order; the CPU in long double.
  EXPECT_NEAR(gpu.std_row, cpu.std_row, 1e-9 * std::max(1.0, cpu.std_row));
  EXPECT_NEAR(gpu.gini, cpu.gini, 1e-9);
  EXPECT_GE(gpu.gini, 0.0);
  EXPECT_LT(gpu.gini, 1.0);
}

template <class O>
void check(const std::vector<NamedMatrix>& corpus) {
  for (const NamedMatrix& m : corpus)
    expect_same(on_device<O>(m.A), row_length_stats(m.A.row_ptr.data(), m.A.rows, m.A.cols),
                m.name + (sizeof(O) == 4 ? " (int32 offsets)" : " (int64 offsets)"));
}

TEST(DeviceRowLengthStats, FamilyCorpus) {
  check<std::int32_t>(families());
  check<std::int64_t>(families());
}

TEST(DeviceRowLengthStats, RealCorpus) {
  if (reals().empty()) GTEST_SKIP() << "real matrices not found (HOLA_MATRICES_DIR)";
  check<std::int32_t>(reals());
  check<std::int64_t>(reals());
}

TEST(DeviceRowLengthStats, KnownValues) {
  // Lengths 0, 0, 1, 3 (Gini from the definition: sum |xi - xj| / (2 n^2 mean) = 20 / 32).
  gen::Csr64 A;
  A.rows = 4;
  A.cols = 3;
  A.row_ptr = {0, 0, 0, 1, 4};
  A.col_idx = {1, 0, 1, 2};
  A.values = {1, 1, 1, 1};
  const RowLengthStats s = on_device<std::int32_t>(A);
  EXPECT_EQ(s.nnz, 4);
  EXPECT_EQ(s.min_row, 0);
  EXPECT_EQ(s.max_row, 3);
  EXPECT_EQ(s.empty_rows, 2);
  EXPECT_DOUBLE_EQ(s.empty_fraction(), 0.5);
  EXPECT_NEAR(s.gini, 20.0 / 32.0, 1e-15);
  EXPECT_NEAR(s.std_row, std::sqrt(1.5), 1e-12);  // mean 1, squares 1 + 1 + 0 + 4
  // Equal rows: Gini 0, std 0.
  const RowLengthStats p = on_device<std::int64_t>(gen::poisson2d(1, 50));
  EXPECT_EQ(p.rows, 50);
  EXPECT_NEAR(p.gini, row_length_stats(gen::poisson2d(1, 50).row_ptr.data(), 50).gini, 1e-12);
  const RowLengthStats e = on_device<std::int32_t>(gen::empty(100, 7));
  EXPECT_EQ(e.nnz, 0);
  EXPECT_EQ(e.empty_rows, 100);
  EXPECT_EQ(e.gini, 0.0);
  EXPECT_EQ(e.std_row, 0.0);
  const RowLengthStats z = on_device<std::int32_t>(gen::empty(0, 0));
  EXPECT_EQ(z.rows, 0);
  EXPECT_EQ(z.nnz, 0);
}

TEST(DeviceRowLengthStats, LargeAndSkewed) {
  // Over 2^16 blocks of 256 rows (the lengths kernel loops; cheap to generate), and one row of
  // a million nonzeros next to short ones (a 21-bit sort).
  const gen::Csr64 tall = gen::single_column(reduced() ? 300000 : 17000000, 3);
  expect_same(on_device<std::int32_t>(tall),
              row_length_stats(tall.row_ptr.data(), tall.rows, tall.cols), "single column");
  const gen::Csr64 skew = gen::circuit(2000000, 5, 0.3, 1, 1000000, 3.0);
  expect_same(on_device<std::int64_t>(skew),
              row_length_stats(skew.row_ptr.data(), skew.rows, skew.cols), "circuit, one long row");
}

TEST(DeviceRowLengthStats, NonDefaultStream) {
  TestStream stream(TestStream::non_blocking);
  const gen::Csr64 A = gen::rmat(14, 8, 9);
  // on_device's upload synchronizes the device: the non-blocking stream sees the data.
  expect_same(on_device<std::int32_t>(A, stream.get()),
              row_length_stats(A.row_ptr.data(), A.rows, A.cols), "rmat 14 on a stream");
}

// Structure statistics: integer counts, so the GPU must equal the CPU exactly.
template <class I, class O>
StructureStats structure_on_device(const gen::Csr64& A, cudaStream_t stream = nullptr) {
  DeviceMemory::Array<O> d_row_ptr(std::vector<O>(A.row_ptr.begin(), A.row_ptr.end()));
  DeviceMemory::Array<I> d_col_idx(std::vector<I>(A.col_idx.begin(), A.col_idx.end()));
  return gpu::device_structure_stats(d_row_ptr.get(), d_col_idx.get(), A.rows, A.nnz(), stream);
}

void expect_same_structure(const StructureStats& gpu, const gen::Csr64& A,
                           const std::string& name) {
  SCOPED_TRACE(name);
  const StructureStats cpu = structure_stats(A.row_ptr.data(), A.col_idx.data(), A.rows);
  EXPECT_EQ(std::tie(gpu.nnz, gpu.group_slots, gpu.row_near, gpu.neighbor_near, gpu.neighbor_mid,
                     gpu.neighbor_same),
            std::tie(cpu.nnz, cpu.group_slots, cpu.row_near, cpu.neighbor_near, cpu.neighbor_mid,
                     cpu.neighbor_same))
      << "(nnz, group_slots, row_near, neighbor_near, neighbor_mid, neighbor_same)";
  EXPECT_GE(gpu.group_slots, gpu.nnz);
  EXPECT_LE(gpu.neighbor_near, gpu.neighbor_mid);
}

void check_structure(const std::vector<NamedMatrix>& corpus) {
  for (const NamedMatrix& m : corpus) {
    expect_same_structure(structure_on_device<std::int32_t, std::int32_t>(m.A), m.A,
                          m.name + " (int32, int32)");
    expect_same_structure(structure_on_device<std::int32_t, std::int64_t>(m.A), m.A,
                          m.name + " (int32, int64)");
    expect_same_structure(structure_on_device<std::int64_t, std::int32_t>(m.A), m.A,
                          m.name + " (int64, int32)");
    expect_same_structure(structure_on_device<std::int64_t, std::int64_t>(m.A), m.A,
                          m.name + " (int64, int64)");
  }
}

TEST(DeviceStructureStats, FamilyCorpus) { check_structure(families()); }

TEST(DeviceStructureStats, RealCorpus) {
  if (reals().empty()) GTEST_SKIP() << "real matrices not found (HOLA_MATRICES_DIR)";
  check_structure(reals());
}

TEST(DeviceStructureStats, EdgeShapes) {
  const gen::Csr64 none = gen::empty(100, 7);
  const StructureStats e = structure_on_device<std::int32_t, std::int32_t>(none);
  EXPECT_EQ(e.nnz, 0);
  EXPECT_EQ(e.group_slots, 0);
  EXPECT_EQ(e.group_efficiency(), 0.0);
  EXPECT_EQ((structure_on_device<std::int32_t, std::int32_t>(gen::empty(0, 0)).nnz), 0);
  // Rows in a partial last group (33 rows: groups of 32 and 1).
  const gen::Csr64 odd = gen::banded_normal(33, 4, 3.0, 7);
  expect_same_structure(structure_on_device<std::int32_t, std::int32_t>(odd), odd, "33 rows");
  // Many blocks of nonzeros, one row of a million next to short ones, a single row.
  const gen::Csr64 skew = gen::circuit(2000000, 5, 0.3, 1, 1000000, 3.0);
  expect_same_structure(structure_on_device<std::int32_t, std::int64_t>(skew), skew,
                        "circuit, one long row");
  const gen::Csr64 row = gen::single_row(100000, 50000, 4);
  expect_same_structure(structure_on_device<std::int64_t, std::int64_t>(row), row, "one row");
}

TEST(DeviceStructureStats, NonDefaultStream) {
  TestStream stream(TestStream::non_blocking);
  const gen::Csr64 A = gen::rmat(14, 8, 9);
  expect_same_structure(structure_on_device<std::int32_t, std::int32_t>(A, stream.get()), A,
                        "rmat 14 on a stream");
}

}  // namespace
}  // namespace hola::test
