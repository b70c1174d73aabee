// GPU tests of the cuSPARSE wrapper (hola::gpu::make_cusparse, CSR_ALG1 and CSR_ALG2): the four
// type combinations cuSPARSE accepts (row offsets and column indices of one type) on the
// generated families and the real matrices, mixed index types refused with status::unsupported,
// deterministic mode, bitwise reproducibility of ALG2, non-default stream.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "gpu_harness.hpp"
#include "hola/error.hpp"
#include "hola/generators.hpp"
#include "hola/gpu_kernels.hpp"
#include "status_of.hpp"

namespace hola::test {
namespace {

// KernelFactory is a plain function pointer: one non-capturing lambda per algorithm.
template <class V, class I, class O>
KernelFactory<V, I, O> factory(int alg) {
  if (alg == 1) {
    return [](const KernelOptions& o) { return gpu::make_cusparse<V, I, O>(o, 1); };
  }
  return [](const KernelOptions& o) { return gpu::make_cusparse<V, I, O>(o, 2); };
}

template <class T>
class CusparseTest : public ::testing::Test {};
TYPED_TEST_SUITE(CusparseTest, SameIndexTypes);

TYPED_TEST(CusparseTest, Names) {
  HOLA_TYPES;
  const auto alg1 = factory<V, I, O>(1)(KernelOptions{});
  const auto alg2 = factory<V, I, O>(2)(KernelOptions{});
  EXPECT_EQ(alg1->name(), "cusparse");  // registry names, as the Operator reports them
  EXPECT_EQ(alg2->name(), "cusparse-alg2");
}

TYPED_TEST(CusparseTest, FamilyCorpus) {
  HOLA_TYPES;
  for (int alg : {1, 2}) {
    SCOPED_TRACE("alg " + std::to_string(alg));
    auto kernel = factory<V, I, O>(alg)(KernelOptions{});
    EXPECT_TRUE(kernel->supports(Op::N));
    EXPECT_TRUE(kernel->supports(Op::T));
    EXPECT_FALSE(kernel->deterministic()) << "the transpose is ALG1 for both algorithms";
    check_kernel_on_corpus<DeviceMemory, V, I, O>(family_corpus(), factory<V, I, O>(alg),
                                                  KernelOptions{});
  }
}

TYPED_TEST(CusparseTest, RealCorpus) {
  HOLA_TYPES;
  if (matrices_dir().empty()) GTEST_SKIP() << "real matrices not found (HOLA_MATRICES_DIR)";
  const std::vector<NamedMatrix> corpus = real_corpus();
  for (int alg : {1, 2}) {
    SCOPED_TRACE("alg " + std::to_string(alg));
    check_kernel_on_corpus<DeviceMemory, V, I, O>(corpus, factory<V, I, O>(alg), KernelOptions{});
  }
}

TYPED_TEST(CusparseTest, DeterministicMode) {
  HOLA_TYPES;
  const KernelOptions options = deterministic_options();
  // ALG2 is bitwise reproducible for N only; ALG1 for nothing.
  expect_deterministic_op_n_only(*gpu::make_cusparse<V, I, O>(options, 2));
  auto alg1 = gpu::make_cusparse<V, I, O>(options, 1);
  EXPECT_FALSE(alg1->deterministic());
  EXPECT_FALSE(alg1->supports(Op::N));
  EXPECT_FALSE(alg1->supports(Op::T));
  check_kernel_on_corpus<DeviceMemory, V, I, O>(family_corpus(), factory<V, I, O>(2), options);
}

TYPED_TEST(CusparseTest, Alg2BitwiseReproducible) {
  HOLA_TYPES;
  expect_bitwise_reproducible<V, I, O>("rmat scale 16", gen::rmat(16, 16, 61), factory<V, I, O>(2),
                                       deterministic_options());
}

TYPED_TEST(CusparseTest, NonDefaultStream) {
  HOLA_TYPES;
  for (int alg : {1, 2}) {
    SCOPED_TRACE("alg " + std::to_string(alg));
    check_on_blocking_stream<V, I, O>(factory<V, I, O>(alg), KernelOptions{});
  }
}

TYPED_TEST(CusparseTest, WorkspaceReported) {
  HOLA_TYPES;
  for (int alg : {1, 2})
    EXPECT_GT((workspace_after_setup<V, I, O>(gen::poisson2d(100, 100), factory<V, I, O>(alg),
                                              KernelOptions{})),
              0u)
        << "alg " << alg;
}

template <class T>
class CusparseMixedTest : public ::testing::Test {};
TYPED_TEST_SUITE(CusparseMixedTest, MixedIndexTypes);

TYPED_TEST(CusparseMixedTest, SetupThrowsUnsupported) {
  HOLA_TYPES;
  PlacedMatrix<DeviceMemory, V, I, O> M(gen::poisson2d(10, 10));
  for (int alg : {1, 2}) {
    auto kernel = gpu::make_cusparse<V, I, O>(KernelOptions{}, alg);
    EXPECT_FALSE(kernel->supports(Op::N));
    EXPECT_FALSE(kernel->supports(Op::T));
    EXPECT_EQ(status_of([&] { kernel->setup(M.view(), nullptr); }), status::unsupported)
        << "setup of mixed index types, alg " << alg;
  }
}

TEST(CusparseOptions, InvalidAlgorithmThrows) {
  EXPECT_EQ(status_of([] { gpu::make_cusparse<double, std::int32_t, std::int32_t>({}, 3); }),
            status::invalid_argument)
      << "alg 3";
}

}  // namespace
}  // namespace hola::test
