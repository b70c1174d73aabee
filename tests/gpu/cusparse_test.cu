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
  using V = typename TypeParam::V;
  using I = typename TypeParam::I;
  using O = typename TypeParam::O;
  const auto alg1 = factory<V, I, O>(1)(KernelOptions{});
  const auto alg2 = factory<V, I, O>(2)(KernelOptions{});
  EXPECT_EQ(alg1->name(), "cusparse");  // registry names, as the Operator reports them
  EXPECT_EQ(alg2->name(), "cusparse-alg2");
}

TYPED_TEST(CusparseTest, FamilyCorpus) {
  using V = typename TypeParam::V;
  using I = typename TypeParam::I;
  using O = typename TypeParam::O;
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
  using V = typename TypeParam::V;
  using I = typename TypeParam::I;
  using O = typename TypeParam::O;
  if (matrices_dir().empty()) GTEST_SKIP() << "real matrices not found (HOLA_MATRICES_DIR)";
  const std::vector<NamedMatrix> corpus = real_corpus();
  for (int alg : {1, 2}) {
    SCOPED_TRACE("alg " + std::to_string(alg));
    check_kernel_on_corpus<DeviceMemory, V, I, O>(corpus, factory<V, I, O>(alg), KernelOptions{});
  }
}

TYPED_TEST(CusparseTest, DeterministicMode) {
  using V = typename TypeParam::V;
  using I = typename TypeParam::I;
  using O = typename TypeParam::O;
  KernelOptions options;
  options.deterministic = true;
  // ALG2 is bitwise reproducible for N only; ALG1 for nothing.
  auto alg2 = gpu::make_cusparse<V, I, O>(options, 2);
  EXPECT_TRUE(alg2->deterministic());
  EXPECT_TRUE(alg2->supports(Op::N));
  EXPECT_FALSE(alg2->supports(Op::T));
  auto alg1 = gpu::make_cusparse<V, I, O>(options, 1);
  EXPECT_FALSE(alg1->deterministic());
  EXPECT_FALSE(alg1->supports(Op::N));
  EXPECT_FALSE(alg1->supports(Op::T));
  check_kernel_on_corpus<DeviceMemory, V, I, O>(family_corpus(), factory<V, I, O>(2), options);
}

TYPED_TEST(CusparseTest, Alg2BitwiseReproducible) {
  using V = typename TypeParam::V;
  using I = typename TypeParam::I;
  using O = typename TypeParam::O;
  KernelOptions options;
  options.deterministic = true;
  expect_bitwise_reproducible<V, I, O>("rmat scale 16", gen::rmat(16, 16, 61), factory<V, I, O>(2),
                                       options);
}

TYPED_TEST(CusparseTest, NonDefaultStream) {
  using V = typename TypeParam::V;
  using I = typename TypeParam::I;
  using O = typename TypeParam::O;
  // Blocking stream: it waits for the harness's cudaMemcpy uploads on the legacy stream.
  TestStream stream(TestStream::blocking);
  for (int alg : {1, 2}) {
    SCOPED_TRACE("alg " + std::to_string(alg));
    check_kernel_on_matrix<DeviceMemory, V, I, O>("circuit", gen::circuit(20000, 71, 0.3, 3, 9000),
                                                  factory<V, I, O>(alg), KernelOptions{},
                                                  stream.get());
    check_kernel_on_matrix<DeviceMemory, V, I, O>("rmat scale 13", gen::rmat(13, 8, 72),
                                                  factory<V, I, O>(alg), KernelOptions{},
                                                  stream.get());
  }
}

TYPED_TEST(CusparseTest, WorkspaceReported) {
  using V = typename TypeParam::V;
  using I = typename TypeParam::I;
  using O = typename TypeParam::O;
  PlacedMatrix<DeviceMemory, V, I, O> M(gen::poisson2d(100, 100));
  for (int alg : {1, 2}) {
    auto kernel = gpu::make_cusparse<V, I, O>(KernelOptions{}, alg);
    kernel->setup(M.view(), nullptr);
    EXPECT_GT(kernel->workspace_bytes(), 0u) << "alg " << alg;
  }
}

template <class T>
class CusparseMixedTest : public ::testing::Test {};
TYPED_TEST_SUITE(CusparseMixedTest, MixedIndexTypes);

TYPED_TEST(CusparseMixedTest, SetupThrowsUnsupported) {
  using V = typename TypeParam::V;
  using I = typename TypeParam::I;
  using O = typename TypeParam::O;
  PlacedMatrix<DeviceMemory, V, I, O> M(gen::poisson2d(10, 10));
  for (int alg : {1, 2}) {
    auto kernel = gpu::make_cusparse<V, I, O>(KernelOptions{}, alg);
    EXPECT_FALSE(kernel->supports(Op::N));
    EXPECT_FALSE(kernel->supports(Op::T));
    try {
      kernel->setup(M.view(), nullptr);
      ADD_FAILURE() << "setup accepted mixed index types (alg " << alg << ")";
    } catch (const hola::error& e) {
      EXPECT_EQ(e.code(), status::unsupported) << e.what();
    }
  }
}

TEST(CusparseOptions, InvalidAlgorithmThrows) {
  try {
    gpu::make_cusparse<double, std::int32_t, std::int32_t>(KernelOptions{}, 3);
    ADD_FAILURE() << "alg 3 accepted";
  } catch (const hola::error& e) {
    EXPECT_EQ(e.code(), status::invalid_argument) << e.what();
  }
}

}  // namespace
}  // namespace hola::test
