// GPU tests of the Hola-SpMV kernel family (hola::gpu::make_hola): every value / index type on
// the generated families, the real matrices and the block boundaries; every compiled
// configuration, in both modes, on matrices that reach each code path (long rows, empty rows,
// blocks with more rows than buffer slots, misaligned arrays); bitwise reproducibility of the
// deterministic mode; non-default stream and stream capture; configuration errors.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "gpu_harness.hpp"
#include "hola/error.hpp"
#include "hola/generators.hpp"
#include "hola/gpu_kernels.hpp"
#include "status_of.hpp"

namespace hola::test {
namespace {

// The defaults (256 threads; 4 nonzeros per thread for double, 8 for float).
template <class V>
constexpr std::int64_t default_nnz_per_block() {
  return sizeof(V) > 4 ? 256 * 4 : 256 * 8;
}

// The kernel under test, as a KernelFactory.
template <class V, class I, class O>
constexpr auto make = &gpu::make_hola<V, I, O>;

// The kernel with op N's atomic path forced on every matrix size (the default takes the carry
// path, the deterministic mode's, on matrices below KernelOptions::carry_path_max_nnz's default,
// which is every matrix of these tests but one).
template <class V, class I, class O>
SpmvKernelPtr<V, I, O> make_atomic(const KernelOptions& options) {
  KernelOptions o = options;
  o.carry_path_max_nnz = 0;
  return gpu::make_hola<V, I, O>(o);
}

inline KernelOptions atomic_options() {
  KernelOptions o;
  o.carry_path_max_nnz = 0;
  return o;
}

// Op N's two paths (atomic, and the carry path in deterministic mode) and op T on a corpus.
template <class V, class I, class O>
void check_both_modes(const std::vector<NamedMatrix>& corpus) {
  check_kernel_on_corpus<DeviceMemory, V, I, O>(corpus, make<V, I, O>, atomic_options());
  check_kernel_on_corpus<DeviceMemory, V, I, O>(corpus, make<V, I, O>, deterministic_options());
}

// Matrices aimed at the kernel's special paths, for blocks of 512 to 8192 nonzeros.
std::vector<NamedMatrix> special_path_corpus() {
  std::vector<NamedMatrix> c;
  // Rows spanning many blocks (block reduction, pass-through carries), with short rows around.
  c.push_back({"one row of 60000 in 300 rows", gen::one_full_row(300, 60000, 150, 31)});
  c.push_back({"first row full", gen::one_full_row(200, 30000, 0, 32)});
  c.push_back({"last row full", gen::one_full_row(200, 30000, 199, 33)});
  c.push_back({"circuit long rows", gen::circuit(40000, 34, 0.3, 4, 30000, 4.0)});
  // Mostly empty rows: blocks with more rows than buffer slots (COO mode), and warps that step
  // over empty rows.
  c.push_back({"95% empty rows", gen::circuit(120000, 35, 0.95, 0, 1, 1.0)});
  c.push_back({"90% empty rows, long rows", gen::circuit(60000, 36, 0.9, 2, 20000, 2.0)});
  c.push_back({"50% empty rows", gen::circuit(30000, 37, 0.5, 0, 1, 3.0)});
  c.push_back({"sparse rows 50000 x 5000 nnz", gen::random_with_nnz(50000, 50000, 5000, 38)});
  // One nonzero per row: exactly NPB rows per block.
  c.push_back({"tall one per row", gen::random_rect(30000, 500, 1, 39)});
  // Rows of 16 / 32 / 64 nonzeros: row ends on thread and warp boundaries.
  c.push_back({"banded 16 per row", gen::random_rect(4000, 4000, 16, 40)});
  c.push_back({"banded 64 per row", gen::random_rect(2000, 5000, 64, 41)});
  c.push_back({"rmat scale 12", gen::rmat(12, 8, 42)});
  c.push_back({"arrow 20000", gen::arrow(20000)});
  return c;
}

// Columns that collide in the transpose combiner's table (slot = column mod 2 x nonzeros per
// block): every column is a multiple of `stride`, so all land on few slots and most products
// take the overflow path (straight atomics); rows also repeat columns across the block.
gen::Csr64 colliding_columns(std::int64_t rows, int per_row, std::int64_t stride,
                             std::int64_t distinct) {
  gen::Csr64 A;
  A.rows = rows;
  A.cols = stride * distinct;
  std::uint64_t state = 0x9e3779b97f4a7c15ull;
  for (std::int64_t r = 0; r < rows; ++r) {
    for (int j = 0; j < per_row; ++j) {
      A.col_idx.push_back(((r * per_row + j) % distinct) * stride);
      state = state * 6364136223846793005ull + 1442695040888963407ull;
      A.values.push_back(double(state >> 11) / double(1ull << 53) - 0.5);
    }
    A.row_ptr.push_back(static_cast<std::int64_t>(A.col_idx.size()));
  }
  return A;
}

std::vector<NamedMatrix> combiner_corpus() {
  std::vector<NamedMatrix> c;
  c.push_back({"colliding columns, 64 distinct", colliding_columns(3000, 7, 4096, 64)});
  c.push_back({"colliding columns, 1000 distinct", colliding_columns(5000, 5, 2048, 1000)});
  c.push_back({"one column", colliding_columns(4000, 1, 1, 1)});
  c.push_back({"stencil27 12^3", gen::stencil27(12, 12, 12)});
  c.push_back({"tall one per row", gen::random_rect(30000, 500, 1, 39)});
  return c;
}

KernelOptions transpose_variant(int variant, int threads = 0, int nnz_per_thread = 0) {
  KernelOptions o = kernel_config(threads, nnz_per_thread);
  o.transpose_variant = variant;
  return o;
}

KernelOptions l2_prefetch(int blocks_ahead, bool deterministic = false) {
  KernelOptions o = kernel_config(0, 0, deterministic);
  o.l2_prefetch_tiles = blocks_ahead;
  return o;
}

// y = 1.25 A x - 0.5 y_in (op N) by make(options), NaN-poisoned output, copied back; x and y_in
// drawn from `seed`, so that two calls with the same seed compute the same product.
template <class V, class I, class O>
std::vector<V> product_of(const gen::Csr64& A64, const KernelOptions& options, std::uint64_t seed) {
  KernelOnMatrix<DeviceMemory, V, I, O> k(A64, make<V, I, O>, options, nullptr);
  const auto& [M, kernel, host, unused_seed] = k;
  const std::vector<V> x = random_vector<V>(host.cols, seed);
  const std::vector<V> y_in = random_vector<V>(host.rows, seed + 1);
  DeviceMemory::Array<V> dx(x), dy(y_in), dz(host.rows);
  dz.upload(
      std::vector<V>(static_cast<std::size_t>(host.rows), std::numeric_limits<V>::quiet_NaN()));
  kernel->apply(Op::N, V(1.25), dx.get(), V(-0.5), dy.get(), dz.get(), nullptr);
  DeviceMemory::sync();
  return dz.download();
}

template <class T>
class HolaTest : public ::testing::Test {};
TYPED_TEST_SUITE(HolaTest, AllTypes);

// Every transpose variant (thread-order atomics, shared-memory combiner, warp-order atomics) on
// inputs that fill the combiner's table, collide in it and overflow it.
TYPED_TEST(HolaTest, TransposeVariants) {
  HOLA_TYPES;
  for (int variant : {0, 1, 2}) {
    SCOPED_TRACE("transpose variant " + std::to_string(variant));
    for (const auto& corpus : {combiner_corpus(), special_path_corpus(), family_corpus()})
      check_kernel_on_corpus<DeviceMemory, V, I, O>(corpus, make<V, I, O>,
                                                    transpose_variant(variant));
    if (::testing::Test::HasFatalFailure()) return;
  }
  // Largest blocks that still combine: 512 x 4 and 128 x 16 (2048 nonzeros); warp order with
  // the largest block.
  for (const KernelOptions& options :
       {transpose_variant(1, 512, 4), transpose_variant(1, 128, 16), transpose_variant(2, 512, 16)})
    check_kernel_on_corpus<DeviceMemory, V, I, O>(combiner_corpus(), make<V, I, O>, options);
}

TYPED_TEST(HolaTest, FamilyCorpus) {
  HOLA_TYPES;
  check_kernel_on_corpus<DeviceMemory, V, I, O>(family_corpus(), make<V, I, O>, KernelOptions{});
}

TYPED_TEST(HolaTest, FamilyCorpusDeterministicMode) {
  HOLA_TYPES;
  check_deterministic_on_families<V, I, O>(make<V, I, O>, "the transpose adds with float atomics");
}

TYPED_TEST(HolaTest, SpecialPaths) {
  HOLA_TYPES;
  check_both_modes<V, I, O>(special_path_corpus());
}

TYPED_TEST(HolaTest, BlockBoundaries) {
  HOLA_TYPES;
  check_both_modes<V, I, O>(boundary_corpus(default_nnz_per_block<V>()));
}

// On the carry path, products of at most as many blocks as a block has threads add the carries
// in their last block (one launch), larger ones in fixup_kernel: both sides of the bound (128
// threads x 4: 512 nonzeros a block, bound 128 blocks), a row over 100 blocks (its carries summed
// by one thread of the last block), blocks in COO mode; by default and in deterministic mode.
TYPED_TEST(HolaTest, FusedFixupAroundItsBound) {
  HOLA_TYPES;
  std::vector<NamedMatrix> around;
  around.push_back({"128 blocks", gen::random_rect(8192, 8192, 8, 81)});
  around.push_back({"129 blocks", gen::random_rect(8256, 8256, 8, 82)});
  around.push_back({"one row over 100 blocks", gen::one_full_row(40, 51200, 20, 83)});
  around.push_back({"blocks of 5000 rows", gen::random_with_nnz(50000, 50000, 5000, 84)});
  for (bool deterministic : {false, true}) {
    SCOPED_TRACE(deterministic ? "deterministic" : "default");
    check_fused_fixup<V, I, O>(make<V, I, O>, kernel_config(128, 4, deterministic), around);
  }
}

// The L2 prefetch of the block ahead is a hint: with any distance (one block ahead, a few, past
// the grid) the products are right on every path, and on the carry path bitwise those without it.
TYPED_TEST(HolaTest, L2PrefetchChangesNoResult) {
  HOLA_TYPES;
  for (int ahead : {1, 3}) {
    SCOPED_TRACE("prefetch " + std::to_string(ahead) + " blocks ahead");
    KernelOptions atomic = l2_prefetch(ahead);
    atomic.carry_path_max_nnz = 0;
    check_kernel_on_corpus<DeviceMemory, V, I, O>(
        ahead == 1 ? family_corpus() : special_path_corpus(), make<V, I, O>, atomic);
    if (::testing::Test::HasFatalFailure()) return;
  }
  const gen::Csr64 rmat = gen::rmat(16, 16, 61);
  const std::vector<V> without = product_of<V, I, O>(rmat, l2_prefetch(0, true), 20261128);
  for (int ahead : {1, 7, 1 << 20}) {
    const std::vector<V> with = product_of<V, I, O>(rmat, l2_prefetch(ahead, true), 20261128);
    ASSERT_EQ(0, std::memcmp(without.data(), with.data(), with.size() * sizeof(V)))
        << "prefetch " << ahead << " blocks ahead changed the carry path's bits";
  }
}

// The prefetch runs only when asked for (hola_kernel.cuh: measured slower by default since the
// matrix loads are evict-first): no note by default, in either precision or op, on a stencil
// or on random columns; the asked distance is reported for op N only.
TEST(HolaL2Prefetch, OffUnlessAsked) {
  using i32 = std::int32_t;
  const gen::Csr64 stencil = gen::stencil27(64, 64, 64);  // 6.9 M nonzeros
  const gen::Csr64 random = gen::random_rect(250000, 250000, 16, 71);
  const auto tuning = [](const gen::Csr64& A64, auto value, const KernelOptions& options,
                         Op op = Op::N) {
    using V = decltype(value);
    return KernelOnMatrix<DeviceMemory, V, i32, i32>(A64, make<V, i32, i32>, options, nullptr)
        .kernel->tuning(op);
  };
  EXPECT_EQ(tuning(stencil, 0.0, KernelOptions{}), "");
  EXPECT_EQ(tuning(stencil, 0.0f, KernelOptions{}), "");
  EXPECT_EQ(tuning(random, 0.0, KernelOptions{}), "");
  EXPECT_EQ(tuning(stencil, 0.0, l2_prefetch(0)), "");
  EXPECT_EQ(tuning(stencil, 0.0, l2_prefetch(5)), "L2 prefetch 5 blocks ahead");
  EXPECT_EQ(tuning(stencil, 0.0f, l2_prefetch(5)), "L2 prefetch 5 blocks ahead");
  EXPECT_EQ(tuning(stencil, 0.0, l2_prefetch(5), Op::T), "");
  // And the default's products on both are right, in both modes.
  const std::vector<NamedMatrix> large{{"stencil27 64^3", stencil}, {"random 250000", random}};
  check_kernel_on_corpus<DeviceMemory, double, i32, i32>(large, make<double, i32, i32>,
                                                         KernelOptions{});
  check_kernel_on_corpus<DeviceMemory, double, i32, i32>(large, make<double, i32, i32>,
                                                         deterministic_options());
}

template <class V, class I, class O>
void check_real_corpus() {
  if (matrices_dir().empty()) GTEST_SKIP() << "real matrices not found (HOLA_MATRICES_DIR)";
  check_both_modes<V, I, O>(real_corpus());
}

TEST(HolaRealCorpus, DoubleInt32) { check_real_corpus<double, std::int32_t, std::int32_t>(); }
TEST(HolaRealCorpus, FloatInt64) { check_real_corpus<float, std::int64_t, std::int64_t>(); }

// Every compiled configuration (kernels/cuda/hola/hola_kernel.cuh: 128, 256 or 512 threads; 4, 8
// or 16 nonzeros per thread), in both modes, at its own block boundaries and on the special paths.
template <class V, class I, class O>
void check_every_compiled_configuration() {
  check_every_configuration<V, I, O>(make_atomic<V, I, O>, {128, 256, 512}, {4, 8, 16},
                                     {false, true}, special_path_corpus());
}

TEST(HolaConfigurations, EveryCompiledConfigurationDouble) {
  check_every_compiled_configuration<double, std::int32_t, std::int32_t>();
}

TEST(HolaConfigurations, EveryCompiledConfigurationFloatMixed) {
  check_every_compiled_configuration<float, std::int64_t, std::int32_t>();
}

TEST(HolaConfigurations, InvalidOptionsThrow) {
  for (const KernelOptions& options :
       {kernel_config(256, 6), kernel_config(100, 8), kernel_config(1024, 0), kernel_config(0, 32),
        kernel_config(-1, 0),
        transpose_variant(1, 512, 8),  // table would not fit: 4096 nonzeros per block
        transpose_variant(3), transpose_variant(-2), l2_prefetch(-2)})
    EXPECT_EQ(status_of([&] { make<double, std::int32_t, std::int32_t>(options); }),
              status::invalid_argument)
        << "threads " << options.threads_per_block << ", nnz per thread " << options.nnz_per_thread
        << ", transpose variant " << options.transpose_variant;
}

template <class V, class I, class O>
std::string kernel_name(const KernelOptions& options) {
  return make<V, I, O>(options)->name();
}

TEST(HolaConfigurations, NameShowsNonDefaultConfiguration) {
  using i32 = std::int32_t;
  using i64 = std::int64_t;
  EXPECT_EQ((kernel_name<double, i32, i32>(KernelOptions{})), "hola");
  EXPECT_EQ((kernel_name<double, i32, i32>(kernel_config(256, 4))), "hola");
  EXPECT_EQ((kernel_name<float, i32, i32>(kernel_config(0, 8))), "hola");
  EXPECT_EQ((kernel_name<double, i32, i32>(kernel_config(512, 16))), "hola:512x16");
  EXPECT_EQ((kernel_name<float, i64, i64>(kernel_config(128, 0))), "hola:128x8");
  EXPECT_EQ((kernel_name<double, i32, i32>(transpose_variant(0))), "hola:256x4,t-thread-order");
  EXPECT_EQ((kernel_name<double, i32, i32>(transpose_variant(1))), "hola:256x4,t-combine");
  EXPECT_EQ((kernel_name<double, i32, i32>(transpose_variant(2))), "hola");
}

TEST(HolaDeterministic, TransposeIsRefused) {
  auto kernel = make<double, std::int32_t, std::int32_t>(deterministic_options());
  expect_transpose_refused(*kernel, gen::poisson2d(10, 10));
}

TYPED_TEST(HolaTest, DeterministicModeIsBitwiseReproducible) {
  HOLA_TYPES;
  // About 1M and 0.8M nonzeros: power-law rows and a few rows of 100000 among empty rows.
  const gen::Csr64 rmat = gen::rmat(16, 16, 61);
  const gen::Csr64 circuit = gen::circuit(200000, 62, 0.3, 8, 100000, 4.0);
  const KernelOptions options = deterministic_options();
  expect_bitwise_reproducible<V, I, O>("rmat scale 16", rmat, make<V, I, O>, options);
  expect_bitwise_reproducible<V, I, O>("circuit 200000", circuit, make<V, I, O>, options);
  expect_bitwise_reproducible<V, I, O>("circuit 200000", circuit, make<V, I, O>,
                                       kernel_config(128, 4, true));
  expect_bitwise_reproducible<V, I, O>("rmat scale 16", rmat, make<V, I, O>,
                                       kernel_config(512, 16, true));
}

TYPED_TEST(HolaTest, NonDefaultStream) {
  HOLA_TYPES;
  for (const KernelOptions& options : {KernelOptions{}, atomic_options(), deterministic_options()})
    check_on_blocking_stream<V, I, O>(make<V, I, O>, options);
}

// Op N's paths and op T, captured into one graph (check_apply_capturable).
TYPED_TEST(HolaTest, ApplyIsCapturable) {
  HOLA_TYPES;
  check_apply_capturable<V, I, O>(make<V, I, O>,
                                  {KernelOptions{}, atomic_options(), deterministic_options()});
}

// Values and column indices that are not 16-byte aligned (a view into the middle of larger
// arrays): the kernel must fall back from vector loads.
TYPED_TEST(HolaTest, MisalignedArrays) {
  HOLA_TYPES;
  const CsrMatrix<V, I, O> A = gen::circuit(30000, 91, 0.3, 3, 9000, 4.0).convert<V, I, O>();
  const std::size_t nnz = A.col_idx.size();
  std::vector<I> cols(nnz + 1, I(0));
  std::vector<V> vals(nnz + 1, V(0));
  std::copy(A.col_idx.begin(), A.col_idx.end(), cols.begin() + 1);
  std::copy(A.values.begin(), A.values.end(), vals.begin() + 1);
  DeviceMemory::Array<O> d_row_ptr(A.row_ptr);
  DeviceMemory::Array<I> d_cols(cols);
  DeviceMemory::Array<V> d_vals(vals);
  CsrView<V, I, O> view = A.view();
  view.row_ptr = d_row_ptr.get();
  view.col_idx = d_cols.get() + 1;
  view.values = d_vals.get() + 1;
  view.memory = Memory::device;

  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  for (bool deterministic : {false, true}) {
    auto kernel = make_atomic<V, I, O>(kernel_config(0, 0, deterministic));
    kernel->setup(view, nullptr);
    for (Op op : {Op::N, Op::T}) {
      if (!kernel->supports(op)) continue;
      const std::int64_t nx = op == Op::N ? A.cols : A.rows;
      const std::int64_t ny = op == Op::N ? A.rows : A.cols;
      const std::vector<V> x = random_vector<V>(nx, seed + 1);
      const std::vector<V> y_in = random_vector<V>(ny, seed + 2);
      DeviceMemory::Array<V> dx(x), dy(y_in);
      kernel->apply(op, V(0.5), dx.get(), V(-2), dy.get(), dy.get(), nullptr);
      DeviceMemory::sync();
      EXPECT_TRUE(matches_reference(op, V(0.5), A.view(), x, V(-2), y_in, dy.download()))
          << "op " << op_name(op) << (deterministic ? ", deterministic" : "");
    }
  }
}

TYPED_TEST(HolaTest, WorkspaceIsSmall) {
  HOLA_TYPES;
  const gen::Csr64 A64 = gen::rmat(14, 8, 91);
  const std::int64_t blocks =
      (A64.nnz() + default_nnz_per_block<V>() - 1) / default_nnz_per_block<V>();
  const std::size_t atomic = workspace_after_setup<V, I, O>(A64, make<V, I, O>, atomic_options());
  const std::size_t deterministic =
      workspace_after_setup<V, I, O>(A64, make<V, I, O>, deterministic_options());
  // One row start per block (+ 1).
  EXPECT_EQ(atomic, static_cast<std::size_t>((blocks + 1) * sizeof(O)));
  // Plus one carry per block and the fused fix-up's counter of finished blocks.
  EXPECT_EQ(deterministic, static_cast<std::size_t>((blocks + 1) * sizeof(O) + blocks * sizeof(V) +
                                                    sizeof(unsigned)));
  // The default holds the carries below the size limit only.
  EXPECT_EQ((workspace_after_setup<V, I, O>(A64, make<V, I, O>, KernelOptions{})), deterministic);
  KernelOptions small_limit;
  small_limit.carry_path_max_nnz = A64.nnz() - 1;
  EXPECT_EQ((workspace_after_setup<V, I, O>(A64, make<V, I, O>, small_limit)), atomic);
}

// Below the size limit the default mode's op N is the carry path: bitwise reproducible although
// determinism was not asked for (op T stays available).
TYPED_TEST(HolaTest, DefaultModeIsReproducibleOnSmallMatrices) {
  HOLA_TYPES;
  const gen::Csr64 rmat = gen::rmat(16, 16, 61);  // about 1M nonzeros, under the limit
  ASSERT_LT(rmat.nnz(), std::int64_t(1) << 21);
  auto plain = make<V, I, O>(KernelOptions{});
  EXPECT_TRUE(plain->supports(Op::T));
  EXPECT_FALSE(plain->deterministic());
  expect_bitwise_reproducible<V, I, O>("rmat scale 16", rmat, make<V, I, O>, KernelOptions{});
}

}  // namespace
}  // namespace hola::test
