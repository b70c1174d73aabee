// GPU tests of the Hola-SpMV kernel family (hola::gpu::make_hola): every value / index type on
// the generated families, the real matrices and the block boundaries; every compiled
// configuration, in both modes, on matrices that reach each code path (long rows, empty rows,
// blocks with more rows than buffer slots, misaligned arrays); bitwise reproducibility of the
// deterministic mode; non-default stream and stream capture; configuration errors.
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

// The compiled configurations (kernels/cuda/hola/hola_kernel.cuh) and the defaults
// (256 threads; 4 nonzeros per thread for double, 8 for float).
constexpr int kThreadChoices[] = {128, 256, 512};
constexpr int kNnzPerThreadChoices[] = {4, 8, 16};
template <class V>
constexpr std::int64_t default_nnz_per_block() {
  return sizeof(V) > 4 ? 256 * 4 : 256 * 8;
}

KernelOptions config(int threads, int nnz_per_thread, bool deterministic = false) {
  KernelOptions o;
  o.threads_per_block = threads;
  o.nnz_per_thread = nnz_per_thread;
  o.deterministic = deterministic;
  return o;
}

KernelOptions deterministic_options() {
  KernelOptions o;
  o.deterministic = true;
  return o;
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
  KernelOptions o = config(threads, nnz_per_thread);
  o.transpose_variant = variant;
  return o;
}

template <class T>
class HolaTest : public ::testing::Test {};
TYPED_TEST_SUITE(HolaTest, AllTypes);

// Every transpose variant (thread-order atomics, shared-memory combiner, warp-order atomics) on
// inputs that fill the combiner's table, collide in it and overflow it.
TYPED_TEST(HolaTest, TransposeVariants) {
  using V = typename TypeParam::V;
  using I = typename TypeParam::I;
  using O = typename TypeParam::O;
  for (int variant : {0, 1, 2}) {
    SCOPED_TRACE("transpose variant " + std::to_string(variant));
    check_kernel_on_corpus<DeviceMemory, V, I, O>(combiner_corpus(), &gpu::make_hola<V, I, O>,
                                                  transpose_variant(variant));
    check_kernel_on_corpus<DeviceMemory, V, I, O>(special_path_corpus(), &gpu::make_hola<V, I, O>,
                                                  transpose_variant(variant));
    check_kernel_on_corpus<DeviceMemory, V, I, O>(family_corpus(), &gpu::make_hola<V, I, O>,
                                                  transpose_variant(variant));
    if (::testing::Test::HasFatalFailure()) return;
  }
  // Largest blocks that still combine: 512 x 4 and 128 x 16 (2048 nonzeros); warp order with
  // the largest block.
  check_kernel_on_corpus<DeviceMemory, V, I, O>(combiner_corpus(), &gpu::make_hola<V, I, O>,
                                                transpose_variant(1, 512, 4));
  check_kernel_on_corpus<DeviceMemory, V, I, O>(combiner_corpus(), &gpu::make_hola<V, I, O>,
                                                transpose_variant(1, 128, 16));
  check_kernel_on_corpus<DeviceMemory, V, I, O>(combiner_corpus(), &gpu::make_hola<V, I, O>,
                                                transpose_variant(2, 512, 16));
}

TYPED_TEST(HolaTest, FamilyCorpus) {
  using V = typename TypeParam::V;
  using I = typename TypeParam::I;
  using O = typename TypeParam::O;
  check_kernel_on_corpus<DeviceMemory, V, I, O>(family_corpus(), &gpu::make_hola<V, I, O>,
                                                KernelOptions{});
}

TYPED_TEST(HolaTest, FamilyCorpusDeterministicMode) {
  using V = typename TypeParam::V;
  using I = typename TypeParam::I;
  using O = typename TypeParam::O;
  auto kernel = gpu::make_hola<V, I, O>(deterministic_options());
  EXPECT_TRUE(kernel->deterministic());
  EXPECT_TRUE(kernel->supports(Op::N));
  EXPECT_FALSE(kernel->supports(Op::T)) << "the transpose adds with float atomics";
  check_kernel_on_corpus<DeviceMemory, V, I, O>(family_corpus(), &gpu::make_hola<V, I, O>,
                                                deterministic_options());
}

TYPED_TEST(HolaTest, SpecialPaths) {
  using V = typename TypeParam::V;
  using I = typename TypeParam::I;
  using O = typename TypeParam::O;
  check_kernel_on_corpus<DeviceMemory, V, I, O>(special_path_corpus(), &gpu::make_hola<V, I, O>,
                                                KernelOptions{});
  check_kernel_on_corpus<DeviceMemory, V, I, O>(special_path_corpus(), &gpu::make_hola<V, I, O>,
                                                deterministic_options());
}

TYPED_TEST(HolaTest, BlockBoundaries) {
  using V = typename TypeParam::V;
  using I = typename TypeParam::I;
  using O = typename TypeParam::O;
  const auto corpus = boundary_corpus(default_nnz_per_block<V>());
  check_kernel_on_corpus<DeviceMemory, V, I, O>(corpus, &gpu::make_hola<V, I, O>, KernelOptions{});
  check_kernel_on_corpus<DeviceMemory, V, I, O>(corpus, &gpu::make_hola<V, I, O>,
                                                deterministic_options());
}

template <class V, class I, class O>
void check_real_corpus() {
  if (matrices_dir().empty()) GTEST_SKIP() << "real matrices not found (HOLA_MATRICES_DIR)";
  const auto corpus = real_corpus();
  check_kernel_on_corpus<DeviceMemory, V, I, O>(corpus, &gpu::make_hola<V, I, O>, KernelOptions{});
  check_kernel_on_corpus<DeviceMemory, V, I, O>(corpus, &gpu::make_hola<V, I, O>,
                                                deterministic_options());
}

TEST(HolaRealCorpus, DoubleInt32) { check_real_corpus<double, std::int32_t, std::int32_t>(); }
TEST(HolaRealCorpus, FloatInt64) { check_real_corpus<float, std::int64_t, std::int64_t>(); }

// Every compiled (threads, nonzeros per thread) pair, in both modes, at its own block
// boundaries and on the special paths.
template <class V, class I, class O>
void check_every_configuration() {
  for (int threads : kThreadChoices) {
    for (int npt : kNnzPerThreadChoices) {
      for (bool deterministic : {false, true}) {
        SCOPED_TRACE("threads " + std::to_string(threads) + ", nnz per thread " +
                     std::to_string(npt) + (deterministic ? ", deterministic" : ""));
        const KernelOptions options = config(threads, npt, deterministic);
        check_kernel_on_corpus<DeviceMemory, V, I, O>(boundary_corpus(threads * npt),
                                                      &gpu::make_hola<V, I, O>, options);
        check_kernel_on_corpus<DeviceMemory, V, I, O>(special_path_corpus(),
                                                      &gpu::make_hola<V, I, O>, options);
        if (::testing::Test::HasFatalFailure()) return;
      }
    }
  }
}

TEST(HolaConfigurations, EveryCompiledConfigurationDouble) {
  check_every_configuration<double, std::int32_t, std::int32_t>();
}

TEST(HolaConfigurations, EveryCompiledConfigurationFloatMixed) {
  check_every_configuration<float, std::int64_t, std::int32_t>();
}

TEST(HolaConfigurations, InvalidOptionsThrow) {
  auto expect_invalid = [](const KernelOptions& options) {
    try {
      gpu::make_hola<double, std::int32_t, std::int32_t>(options);
      ADD_FAILURE() << "no exception for threads " << options.threads_per_block
                    << ", nnz per thread " << options.nnz_per_thread;
    } catch (const hola::error& e) {
      EXPECT_EQ(e.code(), status::invalid_argument) << e.what();
    }
  };
  expect_invalid(config(256, 6));
  expect_invalid(config(100, 8));
  expect_invalid(config(1024, 0));
  expect_invalid(config(0, 32));
  expect_invalid(config(-1, 0));
  expect_invalid(transpose_variant(1, 512, 8));  // table would not fit: 4096 nonzeros per block
  expect_invalid(transpose_variant(3));
  expect_invalid(transpose_variant(-2));
}

template <class V, class I, class O>
std::string kernel_name(const KernelOptions& options) {
  return gpu::make_hola<V, I, O>(options)->name();
}

TEST(HolaConfigurations, NameShowsNonDefaultConfiguration) {
  using i32 = std::int32_t;
  using i64 = std::int64_t;
  EXPECT_EQ((kernel_name<double, i32, i32>(KernelOptions{})), "hola");
  EXPECT_EQ((kernel_name<double, i32, i32>(config(256, 4))), "hola");
  EXPECT_EQ((kernel_name<float, i32, i32>(config(0, 8))), "hola");
  EXPECT_EQ((kernel_name<double, i32, i32>(config(512, 16))), "hola:512x16");
  EXPECT_EQ((kernel_name<float, i64, i64>(config(128, 0))), "hola:128x8");
  EXPECT_EQ((kernel_name<double, i32, i32>(transpose_variant(0))), "hola:256x4,t-thread-order");
  EXPECT_EQ((kernel_name<double, i32, i32>(transpose_variant(1))), "hola:256x4,t-combine");
  EXPECT_EQ((kernel_name<double, i32, i32>(transpose_variant(2))), "hola");
}

TEST(HolaDeterministic, TransposeIsRefused) {
  auto kernel = gpu::make_hola<double, std::int32_t, std::int32_t>(deterministic_options());
  expect_transpose_refused(*kernel, gen::poisson2d(10, 10));
}

TYPED_TEST(HolaTest, DeterministicModeIsBitwiseReproducible) {
  using V = typename TypeParam::V;
  using I = typename TypeParam::I;
  using O = typename TypeParam::O;
  // About 1M and 0.8M nonzeros: power-law rows and a few rows of 100000 among empty rows.
  const gen::Csr64 rmat = gen::rmat(16, 16, 61);
  const gen::Csr64 circuit = gen::circuit(200000, 62, 0.3, 8, 100000, 4.0);
  const KernelOptions options = deterministic_options();
  expect_bitwise_reproducible<V, I, O>("rmat scale 16", rmat, &gpu::make_hola<V, I, O>, options);
  expect_bitwise_reproducible<V, I, O>("circuit 200000", circuit, &gpu::make_hola<V, I, O>,
                                       options);
  expect_bitwise_reproducible<V, I, O>("circuit 200000", circuit, &gpu::make_hola<V, I, O>,
                                       config(128, 4, true));
  expect_bitwise_reproducible<V, I, O>("rmat scale 16", rmat, &gpu::make_hola<V, I, O>,
                                       config(512, 16, true));
}

TYPED_TEST(HolaTest, NonDefaultStream) {
  using V = typename TypeParam::V;
  using I = typename TypeParam::I;
  using O = typename TypeParam::O;
  // A blocking stream: the harness uploads with cudaMemcpy on the legacy default stream, which
  // a blocking stream waits for (a non-blocking one would race with the uploads).
  TestStream stream(TestStream::blocking);
  for (const KernelOptions& options : {KernelOptions{}, deterministic_options()}) {
    check_kernel_on_matrix<DeviceMemory, V, I, O>("circuit", gen::circuit(20000, 71, 0.3, 3, 9000),
                                                  &gpu::make_hola<V, I, O>, options, stream.get());
    check_kernel_on_matrix<DeviceMemory, V, I, O>("rmat scale 13", gen::rmat(13, 8, 72),
                                                  &gpu::make_hola<V, I, O>, options, stream.get());
  }
}

// apply() only enqueues work on its stream: no allocation, no synchronization, no work on
// another stream. Stream capture rejects all three, so capture N and T into a graph and run it.
TYPED_TEST(HolaTest, ApplyIsCapturable) {
  using V = typename TypeParam::V;
  using I = typename TypeParam::I;
  using O = typename TypeParam::O;
  PlacedMatrix<DeviceMemory, V, I, O> M(gen::circuit(30000, 81, 0.3, 3, 9000, 4.0));
  const CsrView<V, I, O> host = M.host.view();
  TestStream stream(TestStream::non_blocking);
  auto kernel = gpu::make_hola<V, I, O>(KernelOptions{});
  auto kernel_det = gpu::make_hola<V, I, O>(deterministic_options());
  kernel->setup(M.view(), stream.get());
  kernel_det->setup(M.view(), stream.get());

  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const V nan = std::numeric_limits<V>::quiet_NaN();
  const std::vector<V> x = random_vector<V>(host.cols, seed);
  const std::vector<V> xt = random_vector<V>(host.rows, seed + 1);
  const std::vector<V> y_nan(static_cast<std::size_t>(host.rows), nan);
  const std::vector<V> y_in = random_vector<V>(host.rows, seed + 3);
  const std::vector<V> yt_in = random_vector<V>(host.cols, seed + 2);
  DeviceMemory::Array<V> dx(host.cols), dy(host.rows), dyd(host.rows), dxt(host.rows),
      dyt(host.cols), dzt(host.cols);
  dx.upload(x);
  dy.upload(y_nan);
  dyd.upload(y_in);
  dxt.upload(xt);
  dyt.upload(yt_in);
  dzt.upload(std::vector<V>(static_cast<std::size_t>(host.cols), nan));
  DeviceMemory::sync();  // uploads went to the legacy stream, which this stream does not wait for

  const V alpha = V(-0.75), beta = V(1.5), beta_t = V(2.5);
  run_captured(stream.get(), [&] {
    kernel->apply(Op::N, alpha, dx.get(), V(0), dy.get(), dy.get(), stream.get());
    kernel_det->apply(Op::N, alpha, dx.get(), beta, dyd.get(), dyd.get(), stream.get());
    kernel->apply(Op::T, alpha, dxt.get(), beta_t, dyt.get(), dzt.get(), stream.get());
  });

  EXPECT_TRUE(matches_reference(Op::N, alpha, host, x, V(0), y_nan, dy.download()));
  EXPECT_TRUE(matches_reference(Op::N, alpha, host, x, beta, y_in, dyd.download()));
  EXPECT_TRUE(matches_reference(Op::T, alpha, host, xt, beta_t, yt_in, dzt.download()));
}

// Values and column indices that are not 16-byte aligned (a view into the middle of larger
// arrays): the kernel must fall back from vector loads.
TYPED_TEST(HolaTest, MisalignedArrays) {
  using V = typename TypeParam::V;
  using I = typename TypeParam::I;
  using O = typename TypeParam::O;
  const CsrMatrix<V, I, O> A = gen::circuit(30000, 91, 0.3, 3, 9000, 4.0).convert<V, I, O>();
  const std::size_t nnz = A.col_idx.size();
  std::vector<I> cols(nnz + 1, I(0));
  std::vector<V> vals(nnz + 1, V(0));
  std::copy(A.col_idx.begin(), A.col_idx.end(), cols.begin() + 1);
  std::copy(A.values.begin(), A.values.end(), vals.begin() + 1);
  DeviceMemory::Array<O> d_row_ptr(A.row_ptr.size());
  DeviceMemory::Array<I> d_cols(nnz + 1);
  DeviceMemory::Array<V> d_vals(nnz + 1);
  d_row_ptr.upload(A.row_ptr);
  d_cols.upload(cols);
  d_vals.upload(vals);
  CsrView<V, I, O> view = A.view();
  view.row_ptr = d_row_ptr.get();
  view.col_idx = d_cols.get() + 1;
  view.values = d_vals.get() + 1;
  view.memory = Memory::device;

  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  for (bool deterministic : {false, true}) {
    auto kernel = gpu::make_hola<V, I, O>(config(0, 0, deterministic));
    kernel->setup(view, nullptr);
    for (Op op : {Op::N, Op::T}) {
      if (!kernel->supports(op)) continue;
      const std::int64_t nx = op == Op::N ? A.cols : A.rows;
      const std::int64_t ny = op == Op::N ? A.rows : A.cols;
      const std::vector<V> x = random_vector<V>(nx, seed + 1);
      const std::vector<V> y_in = random_vector<V>(ny, seed + 2);
      DeviceMemory::Array<V> dx(nx), dy(ny);
      dx.upload(x);
      dy.upload(y_in);
      kernel->apply(op, V(0.5), dx.get(), V(-2), dy.get(), dy.get(), nullptr);
      DeviceMemory::sync();
      EXPECT_TRUE(matches_reference(op, V(0.5), A.view(), x, V(-2), y_in, dy.download()))
          << "op " << op_name(op) << (deterministic ? ", deterministic" : "");
    }
  }
}

TYPED_TEST(HolaTest, WorkspaceIsSmall) {
  using V = typename TypeParam::V;
  using I = typename TypeParam::I;
  using O = typename TypeParam::O;
  const gen::Csr64 A64 = gen::rmat(14, 8, 91);
  PlacedMatrix<DeviceMemory, V, I, O> M(A64);
  const std::int64_t blocks =
      (A64.nnz() + default_nnz_per_block<V>() - 1) / default_nnz_per_block<V>();
  auto kernel = gpu::make_hola<V, I, O>(KernelOptions{});
  kernel->setup(M.view(), nullptr);
  // One row start per block (+ 1).
  EXPECT_EQ(kernel->workspace_bytes(), static_cast<std::size_t>((blocks + 1) * sizeof(O)));
  auto kernel_det = gpu::make_hola<V, I, O>(deterministic_options());
  kernel_det->setup(M.view(), nullptr);
  // Plus one carry per block.
  EXPECT_EQ(kernel_det->workspace_bytes(),
            static_cast<std::size_t>((blocks + 1) * sizeof(O) + blocks * sizeof(V)));
}

}  // namespace
}  // namespace hola::test
