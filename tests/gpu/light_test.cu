// LightSpMV (make_light, make_light_forced) on the device: every type combination over the
// generated families and the real matrices, both row distributions at every vector width,
// several rounds per take,
// deterministic mode (op N bitwise reproducible, op T refused), a non-default stream, block
// sizes at both ends, and the row counter reset over many applies queued back to back.
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

using gpu::LightDistribution;

// make_light_forced as a KernelFactory.
template <class V, class I, class O, LightDistribution D, int Width>
SpmvKernelPtr<V, I, O> make_light_fixed(const KernelOptions& options) {
  return gpu::make_light_forced<V, I, O>(options, D, Width);
}

// make_light_forced with the rounds per take forced too.
template <class V, class I, class O, LightDistribution D, int Width, int Rounds>
SpmvKernelPtr<V, I, O> make_light_rounds(const KernelOptions& options) {
  return gpu::make_light_forced<V, I, O>(options, D, Width, Rounds);
}

template <class C>
class LightTest : public ::testing::Test {};
TYPED_TEST_SUITE(LightTest, AllTypes);

TYPED_TEST(LightTest, FamilyCorpus) {
  using V = typename TypeParam::V;
  using I = typename TypeParam::I;
  using O = typename TypeParam::O;
  check_kernel_on_corpus<DeviceMemory, V, I, O>(families(), gpu::make_light<V, I, O>, {});
}

TYPED_TEST(LightTest, RealCorpus) {
  using V = typename TypeParam::V;
  using I = typename TypeParam::I;
  using O = typename TypeParam::O;
  if (reals().empty()) GTEST_SKIP() << "real matrices not found (HOLA_MATRICES_DIR)";
  check_kernel_on_corpus<DeviceMemory, V, I, O>(reals(), gpu::make_light<V, I, O>, {});
}

TYPED_TEST(LightTest, WarpLevelEveryWidth) {
  using V = typename TypeParam::V;
  using I = typename TypeParam::I;
  using O = typename TypeParam::O;
  constexpr auto D = LightDistribution::warp;
  check_kernel_on_corpus<DeviceMemory, V, I, O>(families(), make_light_fixed<V, I, O, D, 2>, {});
  check_kernel_on_corpus<DeviceMemory, V, I, O>(families(), make_light_fixed<V, I, O, D, 4>, {});
  check_kernel_on_corpus<DeviceMemory, V, I, O>(families(), make_light_fixed<V, I, O, D, 8>, {});
  check_kernel_on_corpus<DeviceMemory, V, I, O>(families(), make_light_fixed<V, I, O, D, 32>, {});
}

TYPED_TEST(LightTest, VectorLevelEveryWidth) {
  using V = typename TypeParam::V;
  using I = typename TypeParam::I;
  using O = typename TypeParam::O;
  constexpr auto D = LightDistribution::vector;
  check_kernel_on_corpus<DeviceMemory, V, I, O>(families(), make_light_fixed<V, I, O, D, 2>, {});
  check_kernel_on_corpus<DeviceMemory, V, I, O>(families(), make_light_fixed<V, I, O, D, 4>, {});
  check_kernel_on_corpus<DeviceMemory, V, I, O>(families(), make_light_fixed<V, I, O, D, 8>, {});
  check_kernel_on_corpus<DeviceMemory, V, I, O>(families(), make_light_fixed<V, I, O, D, 32>, {});
}

TYPED_TEST(LightTest, WarpLevelRoundsPerTake) {
  using V = typename TypeParam::V;
  using I = typename TypeParam::I;
  using O = typename TypeParam::O;
  constexpr auto D = LightDistribution::warp;
  // 1: the paper's variant; 16: the most; 3: a take that ends inside the last rows.
  check_kernel_on_corpus<DeviceMemory, V, I, O>(families(), make_light_rounds<V, I, O, D, 2, 1>,
                                                {});
  check_kernel_on_corpus<DeviceMemory, V, I, O>(families(), make_light_rounds<V, I, O, D, 4, 16>,
                                                {});
  check_kernel_on_corpus<DeviceMemory, V, I, O>(families(), make_light_rounds<V, I, O, D, 32, 3>,
                                                {});
}

TYPED_TEST(LightTest, BlockSizes) {
  using V = typename TypeParam::V;
  using I = typename TypeParam::I;
  using O = typename TypeParam::O;
  for (int threads : {32, 1024}) {
    SCOPED_TRACE("threads_per_block " + std::to_string(threads));
    KernelOptions options;
    options.threads_per_block = threads;
    check_kernel_on_corpus<DeviceMemory, V, I, O>(families(), gpu::make_light<V, I, O>, options);
    check_kernel_on_corpus<DeviceMemory, V, I, O>(
        families(), make_light_fixed<V, I, O, LightDistribution::vector, 4>, options);
  }
}

TYPED_TEST(LightTest, DeterministicMode) {
  using V = typename TypeParam::V;
  using I = typename TypeParam::I;
  using O = typename TypeParam::O;
  KernelOptions options;
  options.deterministic = true;
  auto kernel = gpu::make_light<V, I, O>(options);
  EXPECT_TRUE(kernel->deterministic());
  EXPECT_TRUE(kernel->supports(Op::N));
  EXPECT_FALSE(kernel->supports(Op::T));
  auto plain = gpu::make_light<V, I, O>({});
  EXPECT_FALSE(plain->deterministic());
  EXPECT_TRUE(plain->supports(Op::T));
  // Op N over the corpus (the check skips the unsupported op T).
  check_kernel_on_corpus<DeviceMemory, V, I, O>(families(), gpu::make_light<V, I, O>, options);
  // Op T refused at apply.
  expect_transpose_refused(*kernel, gen::poisson2d(20, 20));
}

TYPED_TEST(LightTest, BitwiseReproducibleOpN) {
  using V = typename TypeParam::V;
  using I = typename TypeParam::I;
  using O = typename TypeParam::O;
  KernelOptions options;
  options.deterministic = true;
  for (const NamedMatrix& m : irregular()) {
    expect_bitwise_reproducible<V, I, O>(m.name, m.A, gpu::make_light<V, I, O>, options);
    expect_bitwise_reproducible<V, I, O>(
        m.name, m.A, make_light_fixed<V, I, O, LightDistribution::warp, 2>, options);
    expect_bitwise_reproducible<V, I, O>(
        m.name, m.A, make_light_fixed<V, I, O, LightDistribution::vector, 8>, options);
    expect_bitwise_reproducible<V, I, O>(
        m.name, m.A, make_light_fixed<V, I, O, LightDistribution::warp, 32>, options);
    expect_bitwise_reproducible<V, I, O>(
        m.name, m.A, make_light_rounds<V, I, O, LightDistribution::warp, 4, 16>, options);
  }
}

TYPED_TEST(LightTest, NonDefaultStream) {
  using V = typename TypeParam::V;
  using I = typename TypeParam::I;
  using O = typename TypeParam::O;
  TestStream stream;
  check_kernel_on_corpus<DeviceMemory, V, I, O>(families(), gpu::make_light<V, I, O>, {},
                                                stream.get());
}

TYPED_TEST(LightTest, CounterResetOverManyApplies) {
  using V = typename TypeParam::V;
  using I = typename TypeParam::I;
  using O = typename TypeParam::O;
  TestStream stream;
  for (const NamedMatrix& m : irregular()) {
    check_back_to_back<V, I, O>(m, gpu::make_light<V, I, O>, {}, stream.get());
    check_back_to_back<V, I, O>(m, make_light_fixed<V, I, O, LightDistribution::vector, 2>, {},
                                stream.get());
    check_back_to_back<V, I, O>(m, make_light_fixed<V, I, O, LightDistribution::warp, 4>, {},
                                nullptr);
    check_back_to_back<V, I, O>(m, make_light_rounds<V, I, O, LightDistribution::warp, 8, 1>, {},
                                stream.get());
  }
}

TYPED_TEST(LightTest, WorkspaceAndBadOptions) {
  using V = typename TypeParam::V;
  using I = typename TypeParam::I;
  using O = typename TypeParam::O;
  PlacedMatrix<DeviceMemory, V, I, O> M(gen::poisson2d(10, 10));
  auto kernel = gpu::make_light<V, I, O>({});
  EXPECT_EQ(kernel->name(), "light");
  kernel->setup(M.view(), nullptr);
  EXPECT_GT(kernel->workspace_bytes(), 0u);
  EXPECT_LE(kernel->workspace_bytes(), 64u);
  KernelOptions bad;
  bad.threads_per_block = 100;
  // (Extra parentheses: the template argument commas would split the macro arguments.)
  EXPECT_THROW((gpu::make_light<V, I, O>(bad)), hola::error);
  EXPECT_THROW((gpu::make_light_forced<V, I, O>({}, LightDistribution::warp, 16)), hola::error);
  EXPECT_THROW((gpu::make_light_forced<V, I, O>({}, LightDistribution::warp, 8, 17)), hola::error);
  EXPECT_THROW((gpu::make_light_forced<V, I, O>({}, LightDistribution::vector, 8, 4)), hola::error);
  // Host memory is refused at setup.
  const CsrMatrix<V, I, O> host = gen::poisson2d(4, 4).convert<V, I, O>();
  auto fresh = gpu::make_light<V, I, O>({});
  EXPECT_THROW(fresh->setup(host.view(), nullptr), hola::error);
}

}  // namespace
}  // namespace hola::test
