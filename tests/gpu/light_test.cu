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
  HOLA_TYPES;
  check_kernel_on_corpus<DeviceMemory, V, I, O>(families(), gpu::make_light<V, I, O>, {});
}

TYPED_TEST(LightTest, RealCorpus) {
  HOLA_TYPES;
  if (reals().empty()) GTEST_SKIP() << "real matrices not found (HOLA_MATRICES_DIR)";
  check_kernel_on_corpus<DeviceMemory, V, I, O>(reals(), gpu::make_light<V, I, O>, {});
}

// Distribution D forced at every vector width.
template <class V, class I, class O, LightDistribution D>
void check_every_width() {
  for (KernelFactory<V, I, O> make :
       {&make_light_fixed<V, I, O, D, 2>, &make_light_fixed<V, I, O, D, 4>,
        &make_light_fixed<V, I, O, D, 8>, &make_light_fixed<V, I, O, D, 32>})
    check_kernel_on_corpus<DeviceMemory, V, I, O>(families(), make, {});
}

TYPED_TEST(LightTest, WarpLevelEveryWidth) {
  HOLA_TYPES;
  check_every_width<V, I, O, LightDistribution::warp>();
}

TYPED_TEST(LightTest, VectorLevelEveryWidth) {
  HOLA_TYPES;
  check_every_width<V, I, O, LightDistribution::vector>();
}

TYPED_TEST(LightTest, WarpLevelRoundsPerTake) {
  HOLA_TYPES;
  constexpr auto D = LightDistribution::warp;
  // 1: the paper's variant; 16: the most; 3: a take that ends inside the last rows.
  for (KernelFactory<V, I, O> make :
       {&make_light_rounds<V, I, O, D, 2, 1>, &make_light_rounds<V, I, O, D, 4, 16>,
        &make_light_rounds<V, I, O, D, 32, 3>})
    check_kernel_on_corpus<DeviceMemory, V, I, O>(families(), make, {});
}

TYPED_TEST(LightTest, BlockSizes) {
  HOLA_TYPES;
  for (int threads : {32, 1024}) {
    SCOPED_TRACE("threads_per_block " + std::to_string(threads));
    const KernelOptions options = kernel_config(threads, 0);
    check_kernel_on_corpus<DeviceMemory, V, I, O>(families(), gpu::make_light<V, I, O>, options);
    check_kernel_on_corpus<DeviceMemory, V, I, O>(
        families(), make_light_fixed<V, I, O, LightDistribution::vector, 4>, options);
  }
}

TYPED_TEST(LightTest, DeterministicMode) {
  HOLA_TYPES;
  check_deterministic_against_default<V, I, O>(gpu::make_light<V, I, O>);
}

TYPED_TEST(LightTest, BitwiseReproducibleOpN) {
  HOLA_TYPES;
  for (const NamedMatrix& m : irregular())
    for (KernelFactory<V, I, O> make :
         {&gpu::make_light<V, I, O>, &make_light_fixed<V, I, O, LightDistribution::warp, 2>,
          &make_light_fixed<V, I, O, LightDistribution::vector, 8>,
          &make_light_fixed<V, I, O, LightDistribution::warp, 32>,
          &make_light_rounds<V, I, O, LightDistribution::warp, 4, 16>})
      expect_bitwise_reproducible<V, I, O>(m.name, m.A, make, deterministic_options());
}

TYPED_TEST(LightTest, NonDefaultStream) {
  HOLA_TYPES;
  TestStream stream;
  check_kernel_on_corpus<DeviceMemory, V, I, O>(families(), gpu::make_light<V, I, O>, {},
                                                stream.get());
}

TYPED_TEST(LightTest, CounterResetOverManyApplies) {
  HOLA_TYPES;
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
  HOLA_TYPES;
  EXPECT_EQ((gpu::make_light<V, I, O>({})->name()), "light");
  const std::size_t bytes =
      workspace_after_setup<V, I, O>(gen::poisson2d(10, 10), gpu::make_light<V, I, O>, {});
  EXPECT_GT(bytes, 0u);
  EXPECT_LE(bytes, 64u);
  // (Extra parentheses: the template argument commas would split the macro arguments.)
  EXPECT_THROW((gpu::make_light<V, I, O>(kernel_config(100, 0))), hola::error);
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
