// The inode kernel (make_inode) on the device: every type combination over the generated
// families and the real matrices, block-row matrices whose runs of rows with one column list are
// 1 to 8 rows long (cut into groups of at most 4), runs of empty rows and of identical dense rows,
// every forced width, deterministic mode (op N bitwise reproducible, op T refused), a non-default
// stream, block sizes at both ends, many applies queued back to back, the groups it finds, and
// bad options.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "gpu_harness.hpp"
#include "hola/generators.hpp"
#include "hola/gpu_kernels.hpp"

namespace hola::test {
namespace {

// n x n with every row holding the same `per_row` columns (one run of n rows).
gen::Csr64 identical_rows(std::int64_t n, std::int64_t per_row) {
  gen::Csr64 A;
  A.rows = n;
  A.cols = n;
  A.row_ptr.assign(1, 0);
  const std::vector<double> values = gen::random_vector<double>(n * per_row, 11);
  for (std::int64_t i = 0; i < n; ++i) {
    for (std::int64_t k = 0; k < per_row; ++k) {
      A.col_idx.push_back((k * 7) % n);
      const double v = values[static_cast<std::size_t>(A.col_idx.size() - 1)];
      A.values.push_back(v == 0.0 ? 0.5 : v);
    }
    A.row_ptr.push_back(static_cast<std::int64_t>(A.col_idx.size()));
  }
  return A;
}

// Block rows of 1 to 8 unknowns per node (runs of that many rows), rows of one column list
// throughout, and runs of empty rows between nonempty ones.
std::vector<NamedMatrix> block_rows() {
  std::vector<NamedMatrix> corpus;
  for (int block : {1, 2, 3, 4, 5, 8})
    corpus.push_back({"elasticity 5x4x3, " + std::to_string(block) + " unknowns",
                      gen::elasticity(5, 4, 3, block)});
  corpus.push_back({"elasticity 16^3", gen::elasticity(16, 16, 16)});
  corpus.push_back({"one run of 1000 rows", identical_rows(1000, 9)});
  corpus.push_back({"runs of empty rows", gen::random_with_nnz(5000, 5000, 4000, 17)});
  corpus.push_back({"empty 300 x 200", gen::empty(300, 200)});
  return corpus;
}

template <class V, class I, class O, int Lanes>
SpmvKernelPtr<V, I, O> make_inode_lanes(const KernelOptions& options) {
  KernelOptions forced = options;
  forced.lanes_per_row = Lanes;
  return gpu::make_inode<V, I, O>(forced);
}

template <class C>
class InodeTest : public ::testing::Test {};
TYPED_TEST_SUITE(InodeTest, AllTypes);

TYPED_TEST(InodeTest, FamilyCorpus) {
  HOLA_TYPES;
  check_kernel_on_corpus<DeviceMemory, V, I, O>(families(), gpu::make_inode<V, I, O>, {});
}

TYPED_TEST(InodeTest, BlockRowsEveryWidth) {
  HOLA_TYPES;
  for (KernelFactory<V, I, O> make :
       {&gpu::make_inode<V, I, O>, &make_inode_lanes<V, I, O, 2>, &make_inode_lanes<V, I, O, 4>,
        &make_inode_lanes<V, I, O, 8>, &make_inode_lanes<V, I, O, 16>,
        &make_inode_lanes<V, I, O, 32>})
    check_kernel_on_corpus<DeviceMemory, V, I, O>(block_rows(), make, {});
}

TYPED_TEST(InodeTest, RealCorpus) {
  HOLA_TYPES;
  if (reals().empty()) GTEST_SKIP() << "real matrices not found (HOLA_MATRICES_DIR)";
  check_kernel_on_corpus<DeviceMemory, V, I, O>(reals(), gpu::make_inode<V, I, O>, {});
}

// The groups setup finds, as tuning() reports them, and the memory they take.
TYPED_TEST(InodeTest, GroupsFound) {
  HOLA_TYPES;
  struct Case {
    gen::Csr64 A;
    std::int64_t groups;
  };
  // 60 nodes: runs of 3 rows are one group each, of 5 rows two (4 + 1), of 8 rows two.
  const std::vector<Case> cases = {
      {gen::elasticity(5, 4, 3, 3), 60},  {gen::elasticity(5, 4, 3, 5), 120},
      {gen::elasticity(5, 4, 3, 8), 120}, {gen::elasticity(5, 4, 3, 1), 60},
      {identical_rows(1000, 9), 250},     {gen::empty(300, 200), 75}};
  for (const Case& c : cases) {
    KernelOnMatrix<DeviceMemory, V, I, O> k(c.A, gpu::make_inode<V, I, O>, {}, nullptr);
    const std::string tuning = k.kernel->tuning(Op::N);
    EXPECT_EQ(tuning.rfind(std::to_string(c.groups) + " groups of ", 0), 0u)
        << c.A.rows << " rows: " << tuning;
    EXPECT_EQ(k.kernel->workspace_bytes(),
              static_cast<std::size_t>(c.groups + 1) * sizeof(std::int64_t));
  }
  // 5-point rows: no two neighbours share a column list, so every row is a group.
  KernelOnMatrix<DeviceMemory, V, I, O> k(gen::poisson2d(30, 20), gpu::make_inode<V, I, O>, {},
                                          nullptr);
  EXPECT_EQ(k.kernel->tuning(Op::N).rfind("600 groups of 1.00 rows", 0), 0u)
      << k.kernel->tuning(Op::N);
}

TYPED_TEST(InodeTest, BlockSizes) {
  HOLA_TYPES;
  for (int threads : {32, 1024}) {
    SCOPED_TRACE("threads_per_block " + std::to_string(threads));
    check_kernel_on_corpus<DeviceMemory, V, I, O>(block_rows(), gpu::make_inode<V, I, O>,
                                                  kernel_config(threads, 0));
  }
}

TYPED_TEST(InodeTest, DeterministicMode) {
  HOLA_TYPES;
  check_deterministic_against_default<V, I, O>(gpu::make_inode<V, I, O>);
}

TYPED_TEST(InodeTest, BitwiseReproducibleOpN) {
  HOLA_TYPES;
  std::vector<NamedMatrix> corpus = irregular();
  corpus.push_back({"elasticity 24^3", gen::elasticity(24, 24, 24)});
  for (const NamedMatrix& m : corpus)
    expect_bitwise_reproducible<V, I, O>(m.name, m.A, gpu::make_inode<V, I, O>,
                                         deterministic_options());
}

TYPED_TEST(InodeTest, NonDefaultStreamAndManyApplies) {
  HOLA_TYPES;
  TestStream stream;
  check_kernel_on_corpus<DeviceMemory, V, I, O>(block_rows(), gpu::make_inode<V, I, O>, {},
                                                stream.get());
  for (const NamedMatrix& m : irregular())
    check_back_to_back<V, I, O>(m, gpu::make_inode<V, I, O>, {}, stream.get());
  check_back_to_back<V, I, O>({"elasticity 24^3", gen::elasticity(24, 24, 24)},
                              gpu::make_inode<V, I, O>, {}, stream.get());
}

TYPED_TEST(InodeTest, BadOptionsAndMemory) {
  HOLA_TYPES;
  EXPECT_EQ((gpu::make_inode<V, I, O>({})->name()), "inode");
  for (int bad : {1, 3, 64, -2}) {
    KernelOptions wrong;
    wrong.lanes_per_row = bad;
    EXPECT_THROW((gpu::make_inode<V, I, O>(wrong)), hola::error) << bad;
  }
  EXPECT_THROW((gpu::make_inode<V, I, O>(kernel_config(100, 0))), hola::error);
  const CsrMatrix<V, I, O> host = gen::poisson2d(4, 4).convert<V, I, O>();
  auto fresh = gpu::make_inode<V, I, O>({});
  EXPECT_THROW(fresh->setup(host.view(), nullptr), hola::error);
}

}  // namespace
}  // namespace hola::test
