// GPU tests of the merge-path kernel (hola::gpu::make_merge): every value / index type on the
// generated families, the real matrices and the tile boundaries; rows spanning many tiles;
// every compiled configuration; bitwise reproducibility of y = A x; non-default stream and
// stream capture (apply() must only enqueue work on its stream).
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "gpu_harness.hpp"
#include "hola/error.hpp"
#include "hola/generators.hpp"
#include "hola/gpu_kernels.hpp"
#include "status_of.hpp"

namespace hola::test {
namespace {

// The default tile (128 threads; 7 items for double, 11 for float).
template <class V>
constexpr std::int64_t default_tile_items() {
  return sizeof(V) > 4 ? 128 * 7 : 128 * 11;
}

// The kernel under test, as a KernelFactory.
template <class V, class I, class O>
constexpr auto make = &gpu::make_merge<V, I, O>;

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
  HOLA_TYPES;
  check_kernel_on_corpus<DeviceMemory, V, I, O>(family_corpus(), make<V, I, O>, KernelOptions{});
}

TYPED_TEST(MergeTest, FamilyCorpusDeterministicMode) {
  HOLA_TYPES;
  check_deterministic_on_families<V, I, O>(make<V, I, O>,
                                           "the transpose scatters with float atomics");
}

TYPED_TEST(MergeTest, RealCorpus) {
  HOLA_TYPES;
  if (matrices_dir().empty()) GTEST_SKIP() << "real matrices not found (HOLA_MATRICES_DIR)";
  check_kernel_on_corpus<DeviceMemory, V, I, O>(real_corpus(), make<V, I, O>, KernelOptions{});
}

TYPED_TEST(MergeTest, TileBoundaries) {
  HOLA_TYPES;
  // A tile holds rows + nonzeros; the "one row" matrices hit the boundaries exactly.
  check_kernel_on_corpus<DeviceMemory, V, I, O>(boundary_corpus(default_tile_items<V>()),
                                                make<V, I, O>, KernelOptions{});
}

TYPED_TEST(MergeTest, RowsSpanningManyTiles) {
  HOLA_TYPES;
  // Smallest tiles (320 items): the long rows cover hundreds of tiles and fix-up chunks.
  for (const KernelOptions& options : {kernel_config(64, 5), KernelOptions{}})
    check_kernel_on_corpus<DeviceMemory, V, I, O>(long_row_corpus(), make<V, I, O>, options);
}

// Up to THREADS tiles the last block adds the carries (no second launch), above a kernel of its
// own: both sides of the bound, with long rows whose carries cross chunks (check_fused_fixup).
TYPED_TEST(MergeTest, FusedFixupAroundItsBound) {
  HOLA_TYPES;
  std::vector<NamedMatrix> around;  // tiles of 320 items (64 x 5): 32 rows of 9 a tile
  around.push_back({"64 tiles", gen::random_rect(2048, 2048, 9, 71)});
  around.push_back({"65 tiles", gen::random_rect(2060, 2060, 9, 72)});
  around.push_back({"one row over 45 tiles (two chunks)", gen::one_full_row(50, 15000, 25, 73)});
  check_fused_fixup<V, I, O>(make<V, I, O>, kernel_config(64, 5), around);
}

// Every compiled (threads, items) pair (kThreadChoices x kItemChoices in
// kernels/cuda/merge/merge_spmv.cuh), at its own tile boundaries and on irregular matrices.
template <class V, class I, class O>
void check_every_compiled_configuration() {
  std::vector<NamedMatrix> irregular;
  irregular.push_back({"rmat scale 12", gen::rmat(12, 8, 51)});
  irregular.push_back({"circuit", gen::circuit(20000, 52, 0.3, 3, 9000, 4.0)});
  irregular.push_back({"all rows empty 3000x20", gen::empty(3000, 20)});
  check_every_configuration<V, I, O>(make<V, I, O>, {64, 128, 256}, {5, 7, 9, 11}, {false},
                                     irregular);
}

TEST(MergeConfigurations, EveryCompiledConfigurationDouble) {
  check_every_compiled_configuration<double, std::int32_t, std::int32_t>();
}

TEST(MergeConfigurations, EveryCompiledConfigurationFloatMixed) {
  check_every_compiled_configuration<float, std::int64_t, std::int32_t>();
}

TEST(MergeConfigurations, InvalidOptionsThrow) {
  for (const KernelOptions& options :
       {kernel_config(128, 6), kernel_config(100, 7), kernel_config(-1, 0), kernel_config(0, 64)})
    EXPECT_EQ(status_of([&] { make<double, std::int32_t, std::int32_t>(options); }),
              status::invalid_argument)
        << "threads " << options.threads_per_block << ", items " << options.nnz_per_thread;
}

TYPED_TEST(MergeTest, BitwiseReproducible) {
  HOLA_TYPES;
  const gen::Csr64 rmat = gen::rmat(16, 16, 61);
  const gen::Csr64 circuit = gen::circuit(200000, 62, 0.3, 8, 100000, 4.0);
  for (const KernelOptions& options : {KernelOptions{}, deterministic_options()}) {
    expect_bitwise_reproducible<V, I, O>("rmat scale 16", rmat, make<V, I, O>, options);
    expect_bitwise_reproducible<V, I, O>("circuit 200000", circuit, make<V, I, O>, options);
  }
  expect_bitwise_reproducible<V, I, O>("circuit 200000, 64 x 5", circuit, make<V, I, O>,
                                       kernel_config(64, 5));
}

TYPED_TEST(MergeTest, NonDefaultStream) {
  HOLA_TYPES;
  check_on_blocking_stream<V, I, O>(make<V, I, O>, KernelOptions{});
}

// Op N and op T captured into one graph (check_apply_capturable).
TYPED_TEST(MergeTest, ApplyIsCapturable) {
  HOLA_TYPES;
  check_apply_capturable<V, I, O>(make<V, I, O>, {KernelOptions{}});
}

// Op T with hub columns summed per block (transpose_hubs): the families and the long rows
// (arrow: one hub column), R-MAT graphs, more hubs than slots (every column of a dense-ish random
// matrix is one), slot counts from the smallest allowed to the default, what tuning() and the
// workspace report once the hubs are known, a first product inside a graph capture, and bad
// option values.
TYPED_TEST(MergeTest, TransposeHubs) {
  HOLA_TYPES;
  std::vector<NamedMatrix> corpus = family_corpus();
  for (NamedMatrix& m : long_row_corpus()) corpus.push_back(std::move(m));
  corpus.push_back({"rmat 14, ef 16", gen::rmat(14, 16, 3)});
  corpus.push_back({"rmat 12, ef 8, a = 0.7", gen::rmat(12, 8, 5, 0.7, 0.1, 0.1)});
  corpus.push_back({"random 5000 x 5000, 150 a row", gen::random_rect(5000, 5000, 150, 9)});
  // Warps whose nonzeros all hit one hub sum in registers first (one column; tiles that end
  // inside a warp), and warps that hit a few hubs at once (3 full columns).
  corpus.push_back({"single column 300007 x 1", gen::single_column(300007, 4)});
  corpus.push_back({"tall 200003 x 3, full", gen::random_rect(200003, 3, 3, 6)});
  corpus.push_back({"tall 100003 x 40, 2 a row", gen::random_rect(100003, 40, 2, 8)});
  for (int slots : {1, 64, 128, 4096}) {
    KernelOptions hubs;
    hubs.transpose_hubs = slots;
    SCOPED_TRACE("transpose_hubs " + std::to_string(slots));
    check_kernel_on_corpus<DeviceMemory, V, I, O>(corpus, make<V, I, O>, hubs);
  }
  const auto after_transpose = [](const gen::Csr64& A, int slots) {
    KernelOptions hubs;
    hubs.transpose_hubs = slots;
    KernelOnMatrix<DeviceMemory, V, I, O> k(A, make<V, I, O>, hubs, nullptr);
    DeviceMemory::Array<V> x(A.rows), y(A.cols);
    x.upload(std::vector<V>(static_cast<std::size_t>(A.rows), V(1)));
    k.kernel->apply(Op::T, V(1), x.get(), V(0), y.get(), y.get(), nullptr);
    DeviceMemory::sync();
    return std::make_pair(k.kernel->tuning(Op::T), k.kernel->workspace_bytes());
  };
  // The default hub table (of column indices) is the smallest power of two from 64 that the
  // hubs found fill at most half, up to 2048 entries; it is kept on top of the tiles'
  // coordinates and carries.
  const auto fitted_entries = [](const std::string& tuning) {
    const int hubs = std::stoi(tuning);  // "N hub columns (...)"
    int entries = 64;
    while (entries < 2 * hubs) entries *= 2;
    return static_cast<std::size_t>(entries);
  };
  KernelOptions off;
  off.transpose_hubs = 0;
  const gen::Csr64 rmat = gen::rmat(14, 16, 3);
  for (int slots : {-1, 1}) {
    const auto [rmat_tuning, rmat_bytes] = after_transpose(rmat, slots);
    ASSERT_NE(rmat_tuning.find("hub columns"), std::string::npos) << rmat_tuning;
    const std::size_t plain_rmat = workspace_after_setup<V, I, O>(rmat, make<V, I, O>, off);
    EXPECT_EQ(rmat_bytes, plain_rmat + fitted_entries(rmat_tuning) * sizeof(I)) << rmat_tuning;
  }
  // One hub (the arrow's dense column): the smallest table; a size named in the options stays.
  const gen::Csr64 arrow = gen::arrow(20000);
  const std::size_t plain_arrow = workspace_after_setup<V, I, O>(arrow, make<V, I, O>, off);
  const auto [arrow_tuning, arrow_bytes] = after_transpose(arrow, -1);
  EXPECT_EQ(arrow_tuning.rfind("1 hub columns", 0), 0u) << arrow_tuning;
  EXPECT_EQ(arrow_bytes, plain_arrow + 64 * sizeof(I));
  EXPECT_EQ(after_transpose(arrow, 1024).second, plain_arrow + 1024 * sizeof(I));
  // Every column holds about 150 entries: all are hubs, as many as half the table. 64 hubs hold
  // 1.3 % of the nonzeros, under kHubMinShare: none are kept.
  const gen::Csr64 dense = gen::random_rect(5000, 5000, 150, 9);
  const std::string many = after_transpose(dense, 2048).first;
  EXPECT_EQ(many.rfind("1024 hub columns", 0), 0u) << many;
  EXPECT_EQ(after_transpose(dense, 128).first, "");
  // Poisson: no column reaches 64 entries, nothing is kept, the plain kernel runs.
  const gen::Csr64 poisson = gen::poisson2d(60, 60);
  const auto [poisson_tuning, poisson_bytes] = after_transpose(poisson, 1);
  EXPECT_EQ(poisson_tuning, "");
  const std::size_t plain_bytes =
      workspace_after_setup<V, I, O>(poisson, make<V, I, O>, KernelOptions{});
  EXPECT_EQ(poisson_bytes, plain_bytes);
  // The first op T product captured into a graph: the hubs are not searched during the capture.
  KernelOptions on;
  on.transpose_hubs = 1;
  check_apply_capturable<V, I, O>(make<V, I, O>, {on});
  for (int bad : {-2, 2, 63, 100, 32768}) {
    KernelOptions wrong;
    wrong.transpose_hubs = bad;
    EXPECT_THROW((make<V, I, O>(wrong)), hola::error) << bad;
  }
}

TYPED_TEST(MergeTest, WorkspaceIsSmall) {
  HOLA_TYPES;
  const gen::Csr64 A64 = gen::rmat(14, 8, 91);
  const std::size_t bytes = workspace_after_setup<V, I, O>(A64, make<V, I, O>, KernelOptions{});
  // Per tile: one start coordinate (16 bytes) and one carry (sizeof V).
  const std::int64_t tiles = (A64.rows + A64.nnz()) / default_tile_items<V>() + 1;
  EXPECT_GT(bytes, 0u);
  EXPECT_LE(bytes, static_cast<std::size_t>((tiles + 1) * (16 + sizeof(V))));
}

}  // namespace
}  // namespace hola::test
