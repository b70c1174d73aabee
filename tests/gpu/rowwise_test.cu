// Row-wise kernels (make_scalar, make_vector, make_vector_adaptive, make_vector_adaptive_forced)
// on the device: every type combination over the generated families and the real matrices,
// every adaptive width forced, deterministic mode (op N and op T bitwise reproducible), a
// non-default stream, block sizes at both ends and many applies queued back to back; op T both as
// the one-launch gather of small matrices and as the atomic scatter.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "gpu_harness.hpp"
#include "hola/generators.hpp"
#include "hola/gpu_kernels.hpp"

namespace hola::test {
namespace {

// make_vector_adaptive_forced as a KernelFactory.
template <class V, class I, class O, int Lanes>
SpmvKernelPtr<V, I, O> make_adaptive_fixed(const KernelOptions& options) {
  return gpu::make_vector_adaptive_forced<V, I, O>(options, Lanes);
}

// One op T product (x = 1), waited for: what a kernel plans at its first op T (the gather's
// column index, the windows) is then in place.
template <class V, class I, class O>
void transpose_once(KernelOnMatrix<DeviceMemory, V, I, O>& k) {
  DeviceMemory::Array<V> x(k.host.rows), y(k.host.cols);
  x.upload(std::vector<V>(static_cast<std::size_t>(k.host.rows), V(1)));
  k.kernel->apply(Op::T, V(1), x.get(), V(0), y.get(), y.get(), nullptr);
  DeviceMemory::sync();
}

// Shared-memory values a block of the window kernel holds, from tuning(Op::T) ("..., N columns a
// tile of R rows"); -1 without windows.
long window_columns(const std::string& tuning) {
  const std::size_t end = tuning.find(" columns a tile");
  if (end == std::string::npos) return -1;
  const std::size_t begin = tuning.rfind(' ', end - 1) + 1;
  return std::stol(tuning.substr(begin, end - begin));
}

// The kernel's workspace after setup and one op T product.
template <class V, class I, class O>
std::size_t workspace_after_transpose(const gen::Csr64& A64, KernelFactory<V, I, O> make,
                                      const KernelOptions& options) {
  KernelOnMatrix<DeviceMemory, V, I, O> k(A64, make, options, nullptr);
  transpose_once(k);
  return k.kernel->workspace_bytes();
}

template <class C>
class RowwiseTest : public ::testing::Test {};
TYPED_TEST_SUITE(RowwiseTest, AllTypes);

TYPED_TEST(RowwiseTest, FamilyCorpus) {
  HOLA_TYPES;
  check_kernel_on_corpus<DeviceMemory, V, I, O>(families(), gpu::make_scalar<V, I, O>, {});
  check_kernel_on_corpus<DeviceMemory, V, I, O>(families(), gpu::make_vector<V, I, O>, {});
  check_kernel_on_corpus<DeviceMemory, V, I, O>(families(), gpu::make_vector_adaptive<V, I, O>, {});
}

// Op T's atomic scatter (the default on larger matrices) on the families, whose matrices are
// small enough for the one-launch gather by default.
TYPED_TEST(RowwiseTest, FamilyCorpusScatterTranspose) {
  HOLA_TYPES;
  KernelOptions scatter;
  scatter.gather_transpose_max_nnz = 0;
  check_kernel_on_corpus<DeviceMemory, V, I, O>(families(), gpu::make_scalar<V, I, O>, scatter);
  check_kernel_on_corpus<DeviceMemory, V, I, O>(families(), gpu::make_vector<V, I, O>, scatter);
  check_kernel_on_corpus<DeviceMemory, V, I, O>(families(), gpu::make_vector_adaptive<V, I, O>,
                                                scatter);
}

// The gather on every family matrix whatever its size, and at the limit: one nonzero more than
// allowed falls back to the scatter, exactly the limit keeps the gather (both must be right).
TYPED_TEST(RowwiseTest, GatherTransposeLimits) {
  HOLA_TYPES;
  KernelOptions always;
  always.gather_transpose_max_nnz = std::int64_t(1) << 40;
  check_kernel_on_corpus<DeviceMemory, V, I, O>(families(), gpu::make_vector_adaptive<V, I, O>,
                                                always);
  const gen::Csr64 A = gen::poisson2d(40, 40);
  for (std::int64_t limit : {A.nnz() - 1, A.nnz()}) {
    KernelOptions o;
    o.gather_transpose_max_nnz = limit;
    SCOPED_TRACE("gather_transpose_max_nnz " + std::to_string(limit));
    check_kernel_on_matrix<DeviceMemory, V, I, O>("poisson2d 40x40", A, gpu::make_scalar<V, I, O>,
                                                  o);
    EXPECT_EQ((workspace_after_transpose<V, I, O>(A, gpu::make_scalar<V, I, O>, o)) > 0,
              limit >= A.nnz());
  }
}

// n x n: the diagonal plus, for each (column, length) of `hubs`, that column filled in rows
// 0 .. length - 2 (with its diagonal entry, `length` entries when column >= length - 1).
gen::Csr64 hub_columns(std::int64_t n,
                       const std::vector<std::pair<std::int64_t, std::int64_t>>& hubs) {
  gen::Csr64 A;
  A.rows = n;
  A.cols = n;
  A.row_ptr.assign(1, 0);
  const std::vector<double> values =
      gen::random_vector<double>(n * (1 + std::int64_t(hubs.size())), 7);
  for (std::int64_t i = 0; i < n; ++i) {
    std::vector<std::int64_t> cols{i};
    for (const auto& [c, length] : hubs)
      if (i < length - 1 && c != i) cols.push_back(c);
    std::sort(cols.begin(), cols.end());
    for (std::int64_t c : cols) {
      A.col_idx.push_back(c);
      const double v = values[static_cast<std::size_t>(A.col_idx.size() - 1)];
      A.values.push_back(v == 0.0 ? 0.5 : v);
    }
    A.row_ptr.push_back(static_cast<std::int64_t>(A.col_idx.size()));
  }
  return A;
}

// The gather's long columns: those of 64 to 255 entries go from their vector to their warp,
// those of 256 or more (and 16 times the mean) are cut into chunks of 128 summed by separate warps.
// Many hub columns in one warp at the vector widths the mean column length picks (2, 4, 16, 32
// lanes), single hubs on both sides of each threshold and one of 313 chunks; applies queued back to
// back (the chunk counters are reset by the kernel itself) and bitwise equal results on repeated op
// T products.
TYPED_TEST(RowwiseTest, GatherLongColumns) {
  HOLA_TYPES;
  KernelOptions always;
  always.gather_transpose_max_nnz = std::int64_t(1) << 40;
  TestStream stream;
  for (std::int64_t length : {200, 3000})
    for (int hubs : {3, 9, 21, 45}) {
      std::vector<std::pair<std::int64_t, std::int64_t>> spec;
      for (int h = 0; h < hubs; ++h) spec.emplace_back(1 + 2 * h, length);  // every other column
      const NamedMatrix m{std::to_string(hubs) + " hub columns of " + std::to_string(length),
                          hub_columns(3000, spec)};
      check_kernel_on_matrix<DeviceMemory, V, I, O>(m.name, m.A, gpu::make_scalar<V, I, O>, always);
      check_kernel_on_matrix<DeviceMemory, V, I, O>(m.name, m.A, gpu::make_vector<V, I, O>, always);
      check_back_to_back<V, I, O>(m, gpu::make_vector<V, I, O>, always, stream.get());
      expect_bitwise_reproducible<V, I, O>(m.name, m.A, gpu::make_vector<V, I, O>, always, 5,
                                           Op::T);
    }
  for (std::int64_t length : {63, 64, 65, 255, 256, 257, 1442, 40000}) {
    const NamedMatrix m{"hub column of " + std::to_string(length),
                        hub_columns(50000, {{49999, length}, {5, length / 2}})};
    check_kernel_on_matrix<DeviceMemory, V, I, O>(m.name, m.A, gpu::make_vector<V, I, O>, always);
    check_back_to_back<V, I, O>(m, gpu::make_vector<V, I, O>, always, stream.get());
  }
}

TYPED_TEST(RowwiseTest, RealCorpus) {
  HOLA_TYPES;
  if (reals().empty()) GTEST_SKIP() << "real matrices not found (HOLA_MATRICES_DIR)";
  check_kernel_on_corpus<DeviceMemory, V, I, O>(reals(), gpu::make_scalar<V, I, O>, {});
  check_kernel_on_corpus<DeviceMemory, V, I, O>(reals(), gpu::make_vector<V, I, O>, {});
  check_kernel_on_corpus<DeviceMemory, V, I, O>(reals(), gpu::make_vector_adaptive<V, I, O>, {});
}

TYPED_TEST(RowwiseTest, AdaptiveEveryWidth) {
  HOLA_TYPES;
  for (KernelFactory<V, I, O> make :
       {&make_adaptive_fixed<V, I, O, 2>, &make_adaptive_fixed<V, I, O, 4>,
        &make_adaptive_fixed<V, I, O, 8>, &make_adaptive_fixed<V, I, O, 16>,
        &make_adaptive_fixed<V, I, O, 32>})
    check_kernel_on_corpus<DeviceMemory, V, I, O>(families(), make, {});
}

// vector-adaptive's width from the mean row length (about six entries a lane), and
// KernelOptions::lanes_per_row forcing it: the width setup chose, as tuning() reports it, and
// the products right with the forced width.
TYPED_TEST(RowwiseTest, AdaptiveWidthRuleAndOption) {
  HOLA_TYPES;
  const std::vector<std::pair<gen::Csr64, std::string>> cases = {
      {gen::poisson2d(64, 64), "2 lanes per row"},               // mean 4.9
      {gen::random_rect(2000, 4000, 16, 7), "2 lanes per row"},  // 16, below 6 * 2^1.5
      {gen::stencil27(16, 16, 16), "4 lanes per row"},           // 23.9
      {gen::random_rect(2000, 4000, 40, 7), "8 lanes per row"},
      {gen::random_rect(2000, 4000, 100, 7), "16 lanes per row"},
      {gen::random_rect(500, 4000, 200, 7), "32 lanes per row"}};
  for (const auto& [A64, expected] : cases) {
    KernelOnMatrix<DeviceMemory, V, I, O> k(A64, gpu::make_vector_adaptive<V, I, O>, {}, nullptr);
    EXPECT_EQ(k.kernel->tuning(Op::N), expected) << A64.rows << " x " << A64.cols;
  }
  KernelOptions forced;
  forced.lanes_per_row = 8;
  {
    KernelOnMatrix<DeviceMemory, V, I, O> k(gen::poisson2d(64, 64),
                                            gpu::make_vector_adaptive<V, I, O>, forced, nullptr);
    EXPECT_EQ(k.kernel->tuning(Op::N), "8 lanes per row");
  }
  check_kernel_on_corpus<DeviceMemory, V, I, O>(families(), gpu::make_vector_adaptive<V, I, O>,
                                                forced);
  for (int bad : {1, 3, 64, -2}) {
    KernelOptions wrong;
    wrong.lanes_per_row = bad;
    EXPECT_THROW((gpu::make_vector_adaptive<V, I, O>(wrong)), hola::error) << bad;
  }
}

// Op N with every step predicated (KernelOptions::predicated_row_steps): right on the families
// forced on or off, the same bits either way at every width (the same additions in the same
// order) on matrices whose lanes end mid-round, hold many rounds or nothing; bad values throw.
TYPED_TEST(RowwiseTest, PredicatedRowSteps) {
  HOLA_TYPES;
  const std::vector<KernelFactory<V, I, O>> widths = {
      &gpu::make_vector_adaptive<V, I, O>, &make_adaptive_fixed<V, I, O, 2>,
      &make_adaptive_fixed<V, I, O, 4>,    &make_adaptive_fixed<V, I, O, 8>,
      &make_adaptive_fixed<V, I, O, 16>,   &gpu::make_vector<V, I, O>};
  const std::vector<NamedMatrix> bitwise = {
      {"27-point 9^3", gen::stencil27(9, 9, 9)},
      {"random, 31 a row", gen::random_rect(700, 900, 31, 11)},
      {"one entry a row", gen::single_column(3000, 2)},
      {"power-law rows, mean 12", gen::powerlaw_rows(2000, 3000, 12.0, 1.5, 4)},
      {"circuit (empty and long rows)", gen::circuit(5000, 6, 0.3, 2, 1500)}};
  // Forced on at every width; forced off where the rule turns it on (AdaptiveEveryWidth runs the
  // rule at every width).
  KernelOptions on, off;
  on.predicated_row_steps = 1;
  off.predicated_row_steps = 0;
  for (KernelFactory<V, I, O> make : widths)
    check_kernel_on_corpus<DeviceMemory, V, I, O>(families(), make, on);
  for (KernelFactory<V, I, O> make : {widths[0], widths[1], widths[2]})
    check_kernel_on_corpus<DeviceMemory, V, I, O>(families(), make, off);
  for (KernelFactory<V, I, O> make : widths) {
    for (const NamedMatrix& m : bitwise) {
      std::vector<std::vector<V>> y;
      for (int predicated : {0, 1}) {
        KernelOptions o;
        o.predicated_row_steps = predicated;
        KernelOnMatrix<DeviceMemory, V, I, O> k(m.A, make, o, nullptr);
        DeviceMemory::Array<V> dx(k.host.cols), dy(k.host.rows);
        dx.upload(random_vector<V>(k.host.cols, 5));
        k.kernel->apply(Op::N, V(1), dx.get(), V(0), nullptr, dy.get(), nullptr);
        DeviceMemory::sync();
        y.push_back(dy.download());
      }
      EXPECT_EQ(std::memcmp(y[0].data(), y[1].data(), y[0].size() * sizeof(V)), 0)
          << m.name << ": predicated and plain steps differ";
    }
  }
  for (int bad : {-2, 2}) {
    KernelOptions wrong;
    wrong.predicated_row_steps = bad;
    EXPECT_THROW((gpu::make_vector_adaptive<V, I, O>(wrong)), hola::error) << bad;
  }
}

// Op T's scatter with the products combined per column across the warp
// (KernelOptions::transpose_combine): every forced width and the rule's, on the families and on
// block-row matrices whose neighbouring rows share every column (so groups of up to 32 lanes
// combine), NaN-poisoned outputs, every alpha / beta; tuning() says it; bad values throw.
TYPED_TEST(RowwiseTest, TransposeCombine) {
  HOLA_TYPES;
  KernelOptions combined;
  combined.gather_transpose_max_nnz = 0;  // the scatter at every size
  combined.transpose_combine = 1;
  std::vector<NamedMatrix> corpus = families();
  corpus.push_back({"elasticity 6^3, 3 unknowns", gen::elasticity(6, 6, 6)});
  corpus.push_back({"elasticity 4^3, 8 unknowns", gen::elasticity(4, 4, 4, 8)});
  corpus.push_back({"elasticity 3^3, 32 unknowns", gen::elasticity(3, 3, 3, 32)});
  for (KernelFactory<V, I, O> make :
       {&gpu::make_vector_adaptive<V, I, O>, &make_adaptive_fixed<V, I, O, 2>,
        &make_adaptive_fixed<V, I, O, 4>, &make_adaptive_fixed<V, I, O, 8>,
        &make_adaptive_fixed<V, I, O, 16>, &gpu::make_vector<V, I, O>})
    check_kernel_on_corpus<DeviceMemory, V, I, O>(corpus, make, combined);
  {
    KernelOnMatrix<DeviceMemory, V, I, O> k(gen::stencil27(16, 16, 16),
                                            gpu::make_vector_adaptive<V, I, O>, combined, nullptr);
    EXPECT_EQ(k.kernel->tuning(Op::T), "4 lanes per row, columns combined");
    EXPECT_EQ(k.kernel->tuning(Op::N), "4 lanes per row");
  }
  for (int bad : {-2, 2, 7}) {
    KernelOptions wrong;
    wrong.transpose_combine = bad;
    EXPECT_THROW((gpu::make_vector_adaptive<V, I, O>(wrong)), hola::error) << bad;
  }
}

// Op T through shared-memory windows (KernelOptions::transpose_window): forced on (every band
// that fits, tiles of 256 rows, so that small matrices span many tiles) with every width and
// both ends of the block sizes, on the families and on banded, stencil and block-row matrices
// (entries in windows and outside them in one product), NaN-poisoned outputs, every alpha / beta,
// first and repeated applies; at the default on matrices large enough for it, where tuning()
// names the windows, and not on random columns; bad values throw.
TYPED_TEST(RowwiseTest, TransposeWindows) {
  HOLA_TYPES;
  KernelOptions forced;
  forced.gather_transpose_max_nnz = 0;  // the scatter at every size
  forced.transpose_window = 1;
  std::vector<NamedMatrix> corpus = families();
  corpus.push_back({"banded sigma 30", gen::banded_normal(5000, 12, 30.0, 3)});
  corpus.push_back({"banded sigma 3000", gen::banded_normal(20000, 9, 3000.0, 4)});
  corpus.push_back({"poisson3d 24^3", gen::poisson3d(24, 24, 24)});
  corpus.push_back({"stencil27 14^3", gen::stencil27(14, 14, 14)});
  corpus.push_back({"elasticity 7^3, 3 unknowns", gen::elasticity(7, 7, 7)});
  corpus.push_back({"tall band 8:1", gen::banded_normal(16000, 2000, 8, 20.0, 6)});
  corpus.push_back({"wide band 1:3", gen::banded_normal(3000, 9000, 10, 100.0, 7)});
  for (KernelFactory<V, I, O> make :
       {&gpu::make_vector_adaptive<V, I, O>, &make_adaptive_fixed<V, I, O, 2>,
        &make_adaptive_fixed<V, I, O, 8>, &make_adaptive_fixed<V, I, O, 16>,
        &gpu::make_vector<V, I, O>})
    check_kernel_on_corpus<DeviceMemory, V, I, O>(corpus, make, forced);
  for (int threads : {32, 1024}) {
    KernelOptions sized = forced;
    sized.threads_per_block = threads;
    check_kernel_on_corpus<DeviceMemory, V, I, O>(corpus, make_adaptive_fixed<V, I, O, 4>, sized);
  }
  {
    KernelOnMatrix<DeviceMemory, V, I, O> k(gen::stencil27(14, 14, 14),
                                            gpu::make_vector_adaptive<V, I, O>, forced, nullptr);
    EXPECT_EQ(k.kernel->tuning(Op::T), "4 lanes per row");  // planned at the first op T
    transpose_once(k);
    EXPECT_EQ(k.kernel->tuning(Op::T), "4 lanes per row, 1 window, 678 columns a tile of 256 rows");
    EXPECT_EQ(k.kernel->workspace_bytes(), 0u);
  }
  // The rule (a 48 KiB budget, untimed): windows on bands of random columns of 262 144 rows,
  // square and wide (along the scaled diagonal; 8 entries a column), none on a stencil (whose
  // diagonals the plain scatter already coalesces) nor on random columns.
  KernelOptions scatter;
  scatter.gather_transpose_max_nnz = 0;
  const std::vector<NamedMatrix> large = {
      {"banded 262144, sigma 100", gen::banded_normal(262144, 12, 100.0, 5)},
      {"wide band 262144 x 524288", gen::banded_normal(262144, 524288, 16, 100.0, 8)},
      {"poisson3d 64^3", gen::poisson3d(64, 64, 64)},
      {"random 262144 x 8", gen::random_rect(262144, 262144, 8, 5)}};
  KernelOptions rule = scatter;
  rule.transpose_window_kib = 48;
  check_kernel_on_corpus<DeviceMemory, V, I, O>(large, gpu::make_vector_adaptive<V, I, O>, rule);
  for (std::size_t m = 0; m < large.size(); ++m) {
    KernelOnMatrix<DeviceMemory, V, I, O> k(large[m].A, gpu::make_vector_adaptive<V, I, O>, rule,
                                            nullptr);
    transpose_once(k);
    const bool windows = k.kernel->tuning(Op::T).find("window") != std::string::npos;
    EXPECT_EQ(windows, m < 2) << large[m].name << ": " << k.kernel->tuning(Op::T);
  }
  // The default times the 48 and 24 KiB plans and the plain scatter at the first op T on scratch
  // vectors: the caller's vectors hold only the product, and the choice stays.
  check_kernel_on_corpus<DeviceMemory, V, I, O>({large[0], large[1]},
                                                gpu::make_vector_adaptive<V, I, O>, scatter);
  for (std::size_t m = 0; m < 2; ++m) {
    KernelOnMatrix<DeviceMemory, V, I, O> k(large[m].A, gpu::make_vector_adaptive<V, I, O>, scatter,
                                            nullptr);
    transpose_once(k);
    const std::string chosen = k.kernel->tuning(Op::T);
    EXPECT_TRUE(chosen == "2 lanes per row" || chosen.find(" window") != std::string::npos)
        << chosen;
    transpose_once(k);
    EXPECT_EQ(k.kernel->tuning(Op::T), chosen) << large[m].name;
  }
  KernelOptions off = scatter;
  off.transpose_window = 0;
  {
    KernelOnMatrix<DeviceMemory, V, I, O> k(large[0].A, gpu::make_vector_adaptive<V, I, O>, off,
                                            nullptr);
    transpose_once(k);
    EXPECT_EQ(k.kernel->tuning(Op::T), "2 lanes per row");
  }
  // A smaller budget: right on both bands, and the square band's windows within 8 KiB.
  KernelOptions small = scatter;
  small.transpose_window_kib = 8;
  check_kernel_on_corpus<DeviceMemory, V, I, O>({large[0], large[1]},
                                                gpu::make_vector_adaptive<V, I, O>, small);
  {
    KernelOnMatrix<DeviceMemory, V, I, O> k(large[0].A, gpu::make_vector_adaptive<V, I, O>, small,
                                            nullptr);
    transpose_once(k);
    const long columns = window_columns(k.kernel->tuning(Op::T));
    ASSERT_GT(columns, 0) << k.kernel->tuning(Op::T);
    EXPECT_LE(columns * sizeof(V), 8u * 1024) << k.kernel->tuning(Op::T);
  }
  for (int bad : {-2, 2, 5}) {
    KernelOptions wrong;
    wrong.transpose_window = bad;
    EXPECT_THROW((gpu::make_vector_adaptive<V, I, O>(wrong)), hola::error) << bad;
    EXPECT_THROW((gpu::make_vector<V, I, O>(wrong)), hola::error) << bad;
  }
  // 96 KiB: opted in (H100 / H200 allow 227 KiB a block). The bands above fit in 48 KiB, so a
  // forced plan on a wider band makes the block take more: in doubles sigma 1 000, 16 a row (one
  // window of about 8 000 columns, 63 KiB), in floats sigma 3 000, 9 a row (about 21 700 columns,
  // 85 KiB). A double plan on the float's band keeps only bands that fit a 256-row tile and takes
  // a few hundred columns (the sampler's plan, replayed on the host, and run A of session 22).
  KernelOptions large_budget = scatter;
  large_budget.transpose_window_kib = 96;
  check_kernel_on_corpus<DeviceMemory, V, I, O>({large[0], large[1]},
                                                gpu::make_vector_adaptive<V, I, O>, large_budget);
  KernelOptions large_forced = forced;
  large_forced.transpose_window_kib = 96;
  const NamedMatrix wide_band =
      sizeof(V) == 8 ? NamedMatrix{"banded sigma 1000", gen::banded_normal(20000, 16, 1000.0, 4)}
                     : NamedMatrix{"banded sigma 3000", gen::banded_normal(20000, 9, 3000.0, 4)};
  check_kernel_on_corpus<DeviceMemory, V, I, O>({wide_band}, gpu::make_vector_adaptive<V, I, O>,
                                                large_forced);
  {
    KernelOnMatrix<DeviceMemory, V, I, O> k(wide_band.A, gpu::make_vector_adaptive<V, I, O>,
                                            large_forced, nullptr);
    transpose_once(k);
    const long columns = window_columns(k.kernel->tuning(Op::T));
    EXPECT_GT(columns * static_cast<long>(sizeof(V)), 48 * 1024) << k.kernel->tuning(Op::T);
    EXPECT_LE(columns * static_cast<long>(sizeof(V)), 96 * 1024) << k.kernel->tuning(Op::T);
  }
  for (int bad : {-1, 97}) {
    KernelOptions wrong;
    wrong.transpose_window_kib = bad;
    EXPECT_THROW((gpu::make_vector_adaptive<V, I, O>(wrong)), hola::error) << bad;
  }
}

// The window plan's sample taken on the GPU (offsets written there, counted on the host) equals
// the host's own sample of the same rows (copied rows, offsets taken there): square,
// tall and wide bands, runs whose entries pass the cap (a band of 80 a row, a row of 50 000),
// empty rows, a matrix smaller than one run.
TYPED_TEST(RowwiseTest, WindowPlanSampleOnTheGpu) {
  HOLA_TYPES;
  const std::vector<NamedMatrix> matrices = {
      {"banded sigma 300", gen::banded_normal(300000, 22, 300.0, 5)},
      {"band of 80 a row", gen::banded_normal(100000, 80, 1000.0, 11)},
      {"tall band 8:1", gen::banded_normal(1 << 19, 1 << 16, 12, 100.0, 6)},
      {"wide band 1:3", gen::banded_normal(1 << 16, 3 << 16, 8, 500.0, 7)},
      {"circuit", gen::circuit(200000, 8, 0.3, 8, 30000)},
      {"poisson 40^3", gen::poisson3d(40, 40, 40)},
      {"100 rows", gen::banded_normal(100, 5, 3.0, 9)},
      // Row 26 540 lies in the ninth run (rows 26 530-26 785) and holds every entry, more than a
      // run's cap: no offset at all, and that run counts only the 10 empty rows before it.
      {"one full row", gen::one_full_row(50000, 50000, 26540, 10)},
  };
  const std::string full_row = matrices.back().name;
  for (const NamedMatrix& m : matrices) {
    SCOPED_TRACE(m.name);
    PlacedMatrix<DeviceMemory, V, I, O> M(m.A);
    std::int64_t gpu_rows = -1, host_rows = -1;
    const auto on_gpu = gpu::window_plan_sample<V, I, O>(M.view(), true, gpu_rows, nullptr);
    const auto on_host = gpu::window_plan_sample<V, I, O>(M.view(), false, host_rows, nullptr);
    EXPECT_EQ(gpu_rows, host_rows);
    EXPECT_EQ(on_gpu, on_host);
    if (m.name == full_row) {
      EXPECT_EQ(host_rows, 15 * 256 + 10);
      EXPECT_TRUE(on_host.empty());
    } else {
      EXPECT_GT(host_rows, 0);
      EXPECT_FALSE(on_host.empty());
    }
  }
}

TYPED_TEST(RowwiseTest, BlockSizes) {
  HOLA_TYPES;
  for (int threads : {32, 1024}) {
    SCOPED_TRACE("threads_per_block " + std::to_string(threads));
    const KernelOptions options = kernel_config(threads, 0);
    check_kernel_on_corpus<DeviceMemory, V, I, O>(families(), gpu::make_scalar<V, I, O>, options);
    check_kernel_on_corpus<DeviceMemory, V, I, O>(families(), gpu::make_vector<V, I, O>, options);
    check_kernel_on_corpus<DeviceMemory, V, I, O>(families(), make_adaptive_fixed<V, I, O, 4>,
                                                  options);
  }
}

// Deterministic mode: op N and op T (the column gather, at every size) on every family, first and
// repeated applies, NaN-poisoned outputs, beta 0.
TYPED_TEST(RowwiseTest, DeterministicMode) {
  HOLA_TYPES;
  for (KernelFactory<V, I, O> make : {&gpu::make_scalar<V, I, O>, &gpu::make_vector<V, I, O>,
                                      &gpu::make_vector_adaptive<V, I, O>}) {
    const auto det = make(deterministic_options());
    SCOPED_TRACE(det->name());
    EXPECT_TRUE(det->deterministic());
    EXPECT_TRUE(det->supports(Op::N));
    EXPECT_TRUE(det->supports(Op::T));
    EXPECT_FALSE(make({})->deterministic());
    check_kernel_on_corpus<DeviceMemory, V, I, O>(families(), make, deterministic_options());
  }
}

// Op T in deterministic mode, run ten times: right, and bitwise equal each time. The matrices are
// above the gather's default size limit (2^18 nonzeros: beyond it the default mode scatters with
// atomics), and two have columns long enough to be summed in chunks (a dense column of 3·10^5
// entries; R-MAT hubs).
TYPED_TEST(RowwiseTest, BitwiseReproducibleOpT) {
  HOLA_TYPES;
  std::vector<NamedMatrix> corpus = irregular();
  corpus.push_back({"arrow 300k", gen::arrow(300000)});
  corpus.push_back({"single column 10^6", gen::single_column(1000000, 43)});
  for (const NamedMatrix& m : corpus) {
    ASSERT_GT(m.A.nnz(), std::int64_t(1) << 18) << m.name;
    for (KernelFactory<V, I, O> make :
         {&gpu::make_scalar<V, I, O>, &gpu::make_vector_adaptive<V, I, O>})
      expect_bitwise_reproducible<V, I, O>(m.name, m.A, make, deterministic_options(), 10, Op::T);
  }
}

TYPED_TEST(RowwiseTest, BitwiseReproducibleOpN) {
  HOLA_TYPES;
  for (const NamedMatrix& m : irregular())
    for (KernelFactory<V, I, O> make :
         {&gpu::make_scalar<V, I, O>, &gpu::make_vector<V, I, O>,
          &gpu::make_vector_adaptive<V, I, O>, &make_adaptive_fixed<V, I, O, 2>})
      expect_bitwise_reproducible<V, I, O>(m.name, m.A, make, deterministic_options());
}

TYPED_TEST(RowwiseTest, NonDefaultStream) {
  HOLA_TYPES;
  TestStream stream;
  check_kernel_on_corpus<DeviceMemory, V, I, O>(families(), gpu::make_scalar<V, I, O>, {},
                                                stream.get());
  check_kernel_on_corpus<DeviceMemory, V, I, O>(families(), gpu::make_vector_adaptive<V, I, O>, {},
                                                stream.get());
}

TYPED_TEST(RowwiseTest, ManyAppliesBackToBack) {
  HOLA_TYPES;
  TestStream stream;
  for (const NamedMatrix& m : irregular()) {
    check_back_to_back<V, I, O>(m, gpu::make_scalar<V, I, O>, {}, stream.get());
    check_back_to_back<V, I, O>(m, gpu::make_vector<V, I, O>, {}, stream.get());
    check_back_to_back<V, I, O>(m, gpu::make_vector_adaptive<V, I, O>, {}, nullptr);
  }
}

TYPED_TEST(RowwiseTest, NamesWorkspaceAndBadOptions) {
  HOLA_TYPES;
  EXPECT_EQ((gpu::make_scalar<V, I, O>({})->name()), "scalar");
  EXPECT_EQ((gpu::make_vector<V, I, O>({})->name()), "vector");
  EXPECT_EQ((gpu::make_vector_adaptive<V, I, O>({})->name()), "vector-adaptive");
  // Nothing after setup. Small matrices get a column index for the one-launch op T at the first
  // op T product; with the gather off, nothing then either.
  const gen::Csr64 small = gen::poisson2d(10, 10);
  EXPECT_EQ((workspace_after_setup<V, I, O>(small, gpu::make_vector_adaptive<V, I, O>, {})), 0u);
  EXPECT_GT((workspace_after_transpose<V, I, O>(small, gpu::make_vector_adaptive<V, I, O>, {})),
            0u);
  KernelOptions scatter;
  scatter.gather_transpose_max_nnz = 0;
  EXPECT_EQ(
      (workspace_after_transpose<V, I, O>(small, gpu::make_vector_adaptive<V, I, O>, scatter)), 0u);
  EXPECT_EQ((workspace_after_setup<V, I, O>(small, gpu::make_vector_adaptive<V, I, O>,
                                            deterministic_options())),
            0u);
  // Deterministic mode: the column index at any size, even with the gather's limit at 0.
  KernelOptions det_no_limit = deterministic_options();
  det_no_limit.gather_transpose_max_nnz = 0;
  EXPECT_GT((workspace_after_transpose<V, I, O>(small, gpu::make_scalar<V, I, O>, det_no_limit)),
            0u);
  // (Extra parentheses: the template argument commas would split the macro arguments.)
  EXPECT_THROW((gpu::make_scalar<V, I, O>(kernel_config(48, 0))), hola::error);
  EXPECT_THROW((gpu::make_vector_adaptive_forced<V, I, O>({}, 64)), hola::error);
  const CsrMatrix<V, I, O> host = gen::poisson2d(4, 4).convert<V, I, O>();
  auto fresh = gpu::make_vector<V, I, O>({});
  EXPECT_THROW(fresh->setup(host.view(), nullptr), hola::error);
}

}  // namespace
}  // namespace hola::test
