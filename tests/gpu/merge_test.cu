// GPU tests of the merge-path kernel (hola::gpu::make_merge): every value / index type on the
// generated families, the real matrices and the tile boundaries; rows spanning many tiles;
// every compiled configuration; bitwise reproducibility of y = A x; non-default stream and
// stream capture (apply() must only enqueue work on its stream).
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "gpu_harness.hpp"
#include "hola/error.hpp"
#include "hola/generators.hpp"
#include "hola/gpu_kernels.hpp"

namespace hola::test {
namespace {

// The compiled configurations (kThreadChoices x kItemChoices in kernels/cuda/merge/
// merge_spmv.cuh) and the defaults (128 threads; 7 items for double, 11 for float).
constexpr int kThreadChoices[] = {64, 128, 256};
constexpr int kItemChoices[] = {5, 7, 9, 11};
template <class V>
constexpr std::int64_t default_tile_items() {
  return sizeof(V) > 4 ? 128 * 7 : 128 * 11;
}

KernelOptions config(int threads, int items, bool deterministic = false) {
  KernelOptions o;
  o.threads_per_block = threads;
  o.nnz_per_thread = items;
  o.deterministic = deterministic;
  return o;
}

// Matrices whose rows cover many tiles (and many 32-tile chunks of the fix-up) for small tiles.
std::vector<NamedMatrix> long_row_corpus() {
  std::vector<NamedMatrix> c;
  c.push_back({"one row of 100000", gen::one_full_row(50, 100000, 25, 41)});
  c.push_back({"first row full", gen::one_full_row(300, 40000, 0, 42)});
  c.push_back({"last row full", gen::one_full_row(300, 40000, 299, 43)});
  c.push_back({"circuit long rows", gen::circuit(60000, 44, 0.3, 4, 40000, 4.0)});
  c.push_back({"single row 1x70000", gen::single_row(70000, 70000, 45)});
  c.push_back({"arrow 20000", gen::arrow(20000)});
  return c;
}

template <class T>
class MergeTest : public ::testing::Test {};
TYPED_TEST_SUITE(MergeTest, AllTypes);

TYPED_TEST(MergeTest, FamilyCorpus) {
  using V = typename TypeParam::V;
  using I = typename TypeParam::I;
  using O = typename TypeParam::O;
  check_kernel_on_corpus<DeviceMemory, V, I, O>(family_corpus(), &gpu::make_merge<V, I, O>,
                                                KernelOptions{});
}

TYPED_TEST(MergeTest, FamilyCorpusDeterministicMode) {
  using V = typename TypeParam::V;
  using I = typename TypeParam::I;
  using O = typename TypeParam::O;
  KernelOptions options;
  options.deterministic = true;
  auto kernel = gpu::make_merge<V, I, O>(options);
  EXPECT_TRUE(kernel->deterministic());
  EXPECT_TRUE(kernel->supports(Op::N));
  EXPECT_FALSE(kernel->supports(Op::T)) << "the transpose scatters with float atomics";
  check_kernel_on_corpus<DeviceMemory, V, I, O>(family_corpus(), &gpu::make_merge<V, I, O>,
                                                options);
}

TYPED_TEST(MergeTest, RealCorpus) {
  using V = typename TypeParam::V;
  using I = typename TypeParam::I;
  using O = typename TypeParam::O;
  if (matrices_dir().empty()) GTEST_SKIP() << "real matrices not found (HOLA_MATRICES_DIR)";
  check_kernel_on_corpus<DeviceMemory, V, I, O>(real_corpus(), &gpu::make_merge<V, I, O>,
                                                KernelOptions{});
}

TYPED_TEST(MergeTest, TileBoundaries) {
  using V = typename TypeParam::V;
  using I = typename TypeParam::I;
  using O = typename TypeParam::O;
  // A tile holds rows + nonzeros; the "one row" matrices hit the boundaries exactly.
  check_kernel_on_corpus<DeviceMemory, V, I, O>(boundary_corpus(default_tile_items<V>()),
                                                &gpu::make_merge<V, I, O>, KernelOptions{});
}

TYPED_TEST(MergeTest, RowsSpanningManyTiles) {
  using V = typename TypeParam::V;
  using I = typename TypeParam::I;
  using O = typename TypeParam::O;
  // Smallest tiles (320 items): the long rows cover hundreds of tiles and fix-up chunks.
  check_kernel_on_corpus<DeviceMemory, V, I, O>(long_row_corpus(), &gpu::make_merge<V, I, O>,
                                                config(64, 5));
  check_kernel_on_corpus<DeviceMemory, V, I, O>(long_row_corpus(), &gpu::make_merge<V, I, O>,
                                                KernelOptions{});
}

// Every compiled (threads, items) pair, at its own tile boundaries and on irregular matrices.
template <class V, class I, class O>
void check_every_configuration() {
  std::vector<NamedMatrix> irregular;
  irregular.push_back({"rmat scale 12", gen::rmat(12, 8, 51)});
  irregular.push_back({"circuit", gen::circuit(20000, 52, 0.3, 3, 9000, 4.0)});
  irregular.push_back({"all rows empty 3000x20", gen::empty(3000, 20)});
  for (int threads : kThreadChoices) {
    for (int items : kItemChoices) {
      SCOPED_TRACE("threads " + std::to_string(threads) + ", items " + std::to_string(items));
      const KernelOptions options = config(threads, items);
      check_kernel_on_corpus<DeviceMemory, V, I, O>(boundary_corpus(threads * items),
                                                    &gpu::make_merge<V, I, O>, options);
      check_kernel_on_corpus<DeviceMemory, V, I, O>(irregular, &gpu::make_merge<V, I, O>, options);
      if (::testing::Test::HasFatalFailure()) return;
    }
  }
}

TEST(MergeConfigurations, EveryCompiledConfigurationDouble) {
  check_every_configuration<double, std::int32_t, std::int32_t>();
}

TEST(MergeConfigurations, EveryCompiledConfigurationFloatMixed) {
  check_every_configuration<float, std::int64_t, std::int32_t>();
}

TEST(MergeConfigurations, InvalidOptionsThrow) {
  auto expect_invalid = [](const KernelOptions& options) {
    try {
      gpu::make_merge<double, std::int32_t, std::int32_t>(options);
      ADD_FAILURE() << "no exception for threads " << options.threads_per_block << ", items "
                    << options.nnz_per_thread;
    } catch (const hola::error& e) {
      EXPECT_EQ(e.code(), status::invalid_argument) << e.what();
    }
  };
  expect_invalid(config(128, 6));
  expect_invalid(config(100, 7));
  expect_invalid(config(-1, 0));
  expect_invalid(config(0, 64));
}

TYPED_TEST(MergeTest, BitwiseReproducible) {
  using V = typename TypeParam::V;
  using I = typename TypeParam::I;
  using O = typename TypeParam::O;
  const gen::Csr64 rmat = gen::rmat(16, 16, 61);
  const gen::Csr64 circuit = gen::circuit(200000, 62, 0.3, 8, 100000, 4.0);
  for (bool deterministic : {false, true}) {
    KernelOptions options;
    options.deterministic = deterministic;
    expect_bitwise_reproducible<V, I, O>("rmat scale 16", rmat, &gpu::make_merge<V, I, O>, options);
    expect_bitwise_reproducible<V, I, O>("circuit 200000", circuit, &gpu::make_merge<V, I, O>,
                                         options);
  }
  expect_bitwise_reproducible<V, I, O>("circuit 200000, 64 x 5", circuit, &gpu::make_merge<V, I, O>,
                                       config(64, 5));
}

TYPED_TEST(MergeTest, NonDefaultStream) {
  using V = typename TypeParam::V;
  using I = typename TypeParam::I;
  using O = typename TypeParam::O;
  // A blocking stream: the harness uploads with cudaMemcpy on the legacy default stream, which
  // a blocking stream waits for (a non-blocking one would race with the uploads).
  TestStream stream(TestStream::blocking);
  const KernelOptions options;
  check_kernel_on_matrix<DeviceMemory, V, I, O>("circuit", gen::circuit(20000, 71, 0.3, 3, 9000),
                                                &gpu::make_merge<V, I, O>, options, stream.get());
  check_kernel_on_matrix<DeviceMemory, V, I, O>("rmat scale 13", gen::rmat(13, 8, 72),
                                                &gpu::make_merge<V, I, O>, options, stream.get());
}

// apply() only enqueues work on its stream: no allocation, no synchronization, no work on
// another stream. Stream capture rejects all three, so capture N and T into a graph and run it.
TYPED_TEST(MergeTest, ApplyIsCapturable) {
  using V = typename TypeParam::V;
  using I = typename TypeParam::I;
  using O = typename TypeParam::O;
  PlacedMatrix<DeviceMemory, V, I, O> M(gen::circuit(30000, 81, 0.3, 3, 9000, 4.0));
  const CsrView<V, I, O> host = M.host.view();
  TestStream stream(TestStream::non_blocking);
  // The uploads went to the legacy stream, which a non-blocking stream does not wait for.
  DeviceMemory::sync();
  auto kernel = gpu::make_merge<V, I, O>(KernelOptions{});
  kernel->setup(M.view(), stream.get());

  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const V nan = std::numeric_limits<V>::quiet_NaN();
  const std::vector<V> x = random_vector<V>(host.cols, seed);
  const std::vector<V> xt = random_vector<V>(host.rows, seed + 1);
  const std::vector<V> y_nan(static_cast<std::size_t>(host.rows), nan);
  const std::vector<V> yt_in = random_vector<V>(host.cols, seed + 2);
  DeviceMemory::Array<V> dx(host.cols), dy(host.rows), dxt(host.rows), dyt(host.cols),
      dzt(host.cols);
  dx.upload(x);
  dy.upload(y_nan);
  dxt.upload(xt);
  dyt.upload(yt_in);
  dzt.upload(std::vector<V>(static_cast<std::size_t>(host.cols), nan));
  DeviceMemory::sync();

  const V alpha = V(-0.75), beta_t = V(2.5);
  run_captured(stream.get(), [&] {
    kernel->apply(Op::N, alpha, dx.get(), V(0), dy.get(), dy.get(), stream.get());
    kernel->apply(Op::T, alpha, dxt.get(), beta_t, dyt.get(), dzt.get(), stream.get());
  });

  EXPECT_TRUE(matches_reference(Op::N, alpha, host, x, V(0), y_nan, dy.download()));
  EXPECT_TRUE(matches_reference(Op::T, alpha, host, xt, beta_t, yt_in, dzt.download()));
}

TYPED_TEST(MergeTest, WorkspaceIsSmall) {
  using V = typename TypeParam::V;
  using I = typename TypeParam::I;
  using O = typename TypeParam::O;
  const gen::Csr64 A64 = gen::rmat(14, 8, 91);
  PlacedMatrix<DeviceMemory, V, I, O> M(A64);
  auto kernel = gpu::make_merge<V, I, O>(KernelOptions{});
  kernel->setup(M.view(), nullptr);
  // Per tile: one start coordinate (16 bytes) and one carry (sizeof V).
  const std::int64_t tiles = (A64.rows + A64.nnz()) / default_tile_items<V>() + 1;
  EXPECT_GT(kernel->workspace_bytes(), 0u);
  EXPECT_LE(kernel->workspace_bytes(), static_cast<std::size_t>((tiles + 1) * (16 + sizeof(V))));
}

}  // namespace
}  // namespace hola::test
