// Batched SpMV kernels on the device (kernels/cuda/batched) against the CPU reference: every
// kernel of batched::kKernels, forced plans (one warp, two warps and a whole block per matrix; x
// staged or not; blocks of 512 and 1024) and the auto plan, on randomized batches (empty
// matrices, 1 x 1, rows longer than a warp and than csr_tiled's tiles, every row empty, wide
// rows, mixed sizes 1..1024, shared patterns), float / double, int32 / int64, alpha / beta
// cases, NaN-poisoned y, repeated applies (bitwise reproducible), a non-blocking stream, and
// BatchedOperator on device memory. Where it ran on a GPU, and at which commit: docs/batched.md.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "gpu_harness.hpp"
#include "hola/batched.hpp"
#include "hola/batched_generate.hpp"
#include "hola/batched_gpu.hpp"
#include "hola/batched_operator.hpp"
#include "status_of.hpp"

namespace hola::test {
namespace {

using batched::BatchData;
using batched::BatchView;
using batched::Format;
using batched::Kernel;
using batched::Plan;
using batched::SmallMatrix;

template <class T>
class BatchedGpuTest : public ::testing::Test {};
TYPED_TEST_SUITE(BatchedGpuTest, BatchTypes);

template <class T>
using DArray = DeviceMemory::Array<T>;

// A batch copied to the device; the view's pointers are null where the host's are.
template <class V, class I>
struct DeviceBatch {
  BatchView<V, I> view;
  std::vector<std::unique_ptr<DArray<I>>> index_arrays;  // the copies the view points at
  DArray<V> values;
  explicit DeviceBatch(const BatchData<V, I>& d) : view(d.view()), values(d.values) {
    view.memory = Memory::device;
    // Each index pointer of the view (null where the host array is empty) and its host array.
    const std::pair<const I**, const std::vector<I>*> index[] = {
        {&view.row_off, &d.row_off}, {&view.col_off, &d.col_off}, {&view.nnz_off, &d.nnz_off},
        {&view.row_ptr, &d.row_ptr}, {&view.row_idx, &d.row_idx}, {&view.col_idx, &d.col_idx}};
    for (const auto& [pointer, host] : index)
      if (*pointer) *pointer = index_arrays.emplace_back(std::make_unique<DArray<I>>(*host))->get();
    if (view.values) view.values = values.get();
  }
};

template <class V>
std::vector<V> absolute(std::vector<V> v) {
  for (auto& e : v) e = std::fabs(e);
  return v;
}

// Reference result and the error bound sum |alpha a x| + |beta y| (reference on |A|, |x|, |y|).
template <class V, class I>
void expected(const BatchData<V, I>& d, V alpha, const std::vector<V>& x, V beta,
              const std::vector<V>& y0, std::vector<V>& want, std::vector<V>& bound) {
  want = y0;
  batched::reference_apply(d.view(), alpha, x.data(), beta, want.data());
  BatchData<V, I> a = d;
  a.values = absolute(a.values);
  const std::vector<V> ax = absolute(x);
  bound = beta == V(0) ? std::vector<V>(y0.size(), V(0)) : absolute(y0);
  batched::reference_apply(a.view(), std::fabs(alpha), ax.data(), std::fabs(beta), bound.data());
}

template <class V>
void expect_near_ref(const std::vector<V>& got, const std::vector<V>& want,
                     const std::vector<V>& bound, std::int64_t max_row, const std::string& what) {
  ASSERT_EQ(got.size(), want.size());
  const double eps = std::numeric_limits<V>::epsilon();
  std::int64_t bad = 0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    const double err = std::fabs(static_cast<double>(got[i]) - static_cast<double>(want[i]));
    const double tol = 2.0 * eps * static_cast<double>(max_row + 2) * bound[i] +
                       std::numeric_limits<V>::denorm_min();
    if (!(err <= tol) && bad++ < 5)
      ADD_FAILURE() << what << ": y[" << i << "] = " << got[i] << ", reference " << want[i];
  }
  EXPECT_EQ(bad, 0) << what;
}

struct AB {
  double alpha, beta;
};
constexpr AB kAB[] = {{1.0, 0.0}, {2.5, -0.5}, {-1.0, 1.0}, {0.0, 0.0}};

// The plans every kernel of `format` (every row of batched::kKernels that takes it) is run with:
// auto, then forced group sizes with x staged or not, and two other block shapes (groups of one
// warp in a block of 512, groups of four warps in a block of 1024).
std::vector<Plan> plans_for(const batched::Features& f, Format format, std::size_t vbytes) {
  std::vector<Plan> out{batched::choose_plan(f, format, vbytes)};
  for (const batched::KernelDesc& kd : batched::kKernels) {
    if (!batched::kernel_supports(kd.kernel, format)) continue;
    for (int group : {32, 64, 256})
      for (bool stage : {false, true}) {
        Plan p;
        p.kernel = kd.kernel;
        p.block_threads = 256;
        p.group_threads = group;
        const std::size_t budget = batched::stage_bytes_budget(p.kernel, p.block_threads, vbytes);
        const std::size_t bytes =
            static_cast<std::size_t>(p.matrices_per_block()) * f.max_cols * vbytes;
        p.stage_x = stage && f.max_cols > 0 && bytes <= budget;
        p.stage_cols = p.stage_x ? f.max_cols : 0;
        if (stage && !p.stage_x) {
          // Too large for every matrix: stage what fits, larger matrices read x from global.
          p.stage_x = true;
          p.stage_cols = static_cast<std::int64_t>(budget / (vbytes * p.matrices_per_block()));
        }
        out.push_back(p);
      }
    for (auto [block, group] : {std::pair{512, 32}, std::pair{1024, 128}}) {
      Plan p;
      p.kernel = kd.kernel;
      p.block_threads = block;
      p.group_threads = group;
      // A kernel whose work space for such a block exceeds the launch's shared memory (csr_i in
      // double at 1024 threads) is refused by check_plan; the CPU tests check that refusal.
      if (batched::plan_shared_bytes(p, vbytes) <= batched::kStageBytesLimit) out.push_back(p);
    }
    // The tile kernels' 64-bit local-index path, which only batches of more than 2^31 rows,
    // columns or entries take on their own.
    if (kd.kernel == batched::Kernel::csr_tiled || kd.kernel == batched::Kernel::csr_i)
      for (int group : {64, 256}) {
        Plan p;
        p.kernel = kd.kernel;
        p.block_threads = 256;
        p.group_threads = group;
        p.local_index_64 = true;
        out.push_back(p);
      }
  }
  return out;
}

std::string describe(const Plan& p) {
  return std::string(batched::kernel_name(p.kernel)) + " group " + std::to_string(p.group_threads) +
         (p.stage_x ? " staged" : "") + (p.local_index_64 ? " 64-bit local" : "");
}

template <class V, class I>
void check_on_device(const std::vector<SmallMatrix<V>>& ms, Format format, std::uint64_t seed) {
  const BatchData<V, I> d = batched::make_batch<V, I>(ms, format);
  const batched::Features f = batched::validate(d.view());
  DeviceBatch<V, I> db(d);
  const std::vector<V> x = random_vector<V>(d.total_cols, seed);
  const std::vector<V> y_start = random_vector<V>(d.total_rows, seed + 1);
  DArray<V> dx(x), dy(y_start.size());
  TestStream stream(TestStream::non_blocking);
  for (const Plan& plan : plans_for(f, format, sizeof(V))) {
    for (const AB s : kAB) {
      const V alpha = static_cast<V>(s.alpha), beta = static_cast<V>(s.beta);
      std::vector<V> y0 = y_start;
      if (beta == V(0)) std::fill(y0.begin(), y0.end(), std::numeric_limits<V>::quiet_NaN());
      std::vector<V> want, bound;
      expected(d, alpha, x, beta, y0, want, bound);
      dy.upload(y0);
      batched::gpu::apply(db.view, plan, alpha, dx.get(), beta, dy.get(), stream.get());
      HOLA_TEST_CUDA(cudaStreamSynchronize(stream.get()));
      DeviceMemory::sync();
      expect_near_ref(dy.download(), want, bound, f.max_row_nnz,
                      std::string(batched::format_name(format)) + " " + describe(plan) + " alpha " +
                          std::to_string(s.alpha) + " beta " + std::to_string(s.beta));
    }
  }
}

constexpr Format kFormats[] = {Format::csr, Format::coo, Format::ell};

TYPED_TEST(BatchedGpuTest, SmallMixedBatches) {
  HOLA_BATCH_TYPES;
  const auto ms = batched::random_matrices<V>(500, 1, 40, 5);
  for (Format f : kFormats) check_on_device<V, I>(ms, f, 5);
}

TYPED_TEST(BatchedGpuTest, MixedSizesUpTo1024) {
  HOLA_BATCH_TYPES;
  const auto ms = batched::random_matrices<V>(60, 1, 1024, 6);
  for (Format f : kFormats) check_on_device<V, I>(ms, f, 6);
}

TYPED_TEST(BatchedGpuTest, SharedPattern) {
  HOLA_BATCH_TYPES;
  for (std::int64_t n : {1, 7, 33, 300}) {
    const auto ms = batched::random_shared<V>(200, n, n, 50 + n);
    check_on_device<V, I>(ms, Format::csr_shared, 7);
  }
}

TYPED_TEST(BatchedGpuTest, EmptyTinyAndLongRows) {
  HOLA_BATCH_TYPES;
  std::mt19937_64 rng(8);
  std::vector<SmallMatrix<V>> ms{batched::random_matrix<V>(0, 0, 1, 0.0, rng),
                                 batched::random_matrix<V>(1, 1, 1, 1.0, rng),
                                 batched::random_matrix<V>(4, 0, 1, 0.0, rng),
                                 batched::random_matrix<V>(0, 9, 1, 0.0, rng),
                                 batched::random_matrix<V>(6, 500, 500, 1.0, rng),
                                 batched::random_matrix<V>(33, 70, 70, 1.0, rng)};
  for (Format f : kFormats) check_on_device<V, I>(ms, f, 8);
  for (Format f : kFormats) check_on_device<V, I>({}, f, 9);
}

// Every plan twice in a row: with beta == 0 on a NaN-filled y the two results must be equal bit
// for bit (no kernel uses atomics); with beta != 0 the second apply works on the first's result
// and must match the reference applied twice.
template <class V, class I>
void check_repeated(const std::vector<SmallMatrix<V>>& ms, Format format, std::uint64_t seed) {
  const BatchData<V, I> d = batched::make_batch<V, I>(ms, format);
  const batched::Features f = batched::validate(d.view());
  DeviceBatch<V, I> db(d);
  const std::vector<V> x = random_vector<V>(d.total_cols, seed);
  const std::vector<V> y_start = random_vector<V>(d.total_rows, seed + 1);
  const std::vector<V> nan(y_start.size(), std::numeric_limits<V>::quiet_NaN());
  DArray<V> dx(x), dy(y_start.size());
  // Reference of two applies, and the bound of the second (|alpha A x| + |beta| bound of first).
  const V alpha = V(1.5), beta = V(-0.5);
  std::vector<V> want1, bound1, want2, unused;
  expected(d, alpha, x, beta, y_start, want1, bound1);
  expected(d, alpha, x, beta, want1, want2, unused);
  BatchData<V, I> abs_d = d;
  abs_d.values = absolute(abs_d.values);
  const std::vector<V> ax = absolute(x);
  std::vector<V> bound2 = bound1;
  batched::reference_apply(abs_d.view(), std::fabs(alpha), ax.data(), std::fabs(beta),
                           bound2.data());
  for (const Plan& plan : plans_for(f, format, sizeof(V))) {
    const std::string what = std::string(batched::format_name(format)) + " " + describe(plan);
    std::vector<V> first;
    for (int run = 0; run < 2; ++run) {
      dy.upload(nan);
      batched::gpu::apply(db.view, plan, V(1), dx.get(), V(0), dy.get(), nullptr);
      DeviceMemory::sync();
      const std::vector<V> got = dy.download();
      if (run == 0)
        first = got;
      else
        EXPECT_EQ(0, std::memcmp(first.data(), got.data(), got.size() * sizeof(V)))
            << what << ": two runs differ";
    }
    dy.upload(y_start);
    batched::gpu::apply(db.view, plan, alpha, dx.get(), beta, dy.get(), nullptr);
    batched::gpu::apply(db.view, plan, alpha, dx.get(), beta, dy.get(), nullptr);
    DeviceMemory::sync();
    expect_near_ref(dy.download(), want2, bound2, f.max_row_nnz, what + " applied twice");
  }
}

// Skip flags in device memory, every plan: flagged matrices keep their rows of y bit for bit, the
// others match the reference.
template <class V, class I>
void check_skip(const std::vector<SmallMatrix<V>>& ms, Format format, std::uint64_t seed) {
  const BatchData<V, I> d = batched::make_batch<V, I>(ms, format);
  const batched::Features f = batched::validate(d.view());
  DeviceBatch<V, I> db(d);
  std::mt19937_64 rng(seed);
  std::vector<int> skip(static_cast<std::size_t>(d.count));
  for (auto& k : skip) k = static_cast<int>(rng() % 3);
  const std::vector<V> x = random_vector<V>(d.total_cols, seed);
  const std::vector<V> y0 = random_vector<V>(d.total_rows, seed + 1);
  std::vector<V> want, bound;
  expected(d, V(2), x, V(0.5), y0, want, bound);
  std::vector<int> skipped_row(y0.size(), 0);
  for (std::int64_t b = 0; b < d.count; ++b) {
    const std::int64_t r0 = format == Format::csr_shared ? b * d.shared_rows : d.row_off[b];
    const std::int64_t r1 = format == Format::csr_shared ? r0 + d.shared_rows : d.row_off[b + 1];
    for (std::int64_t r = r0; r < r1; ++r) skipped_row[r] = skip[b];
  }
  DArray<int> dskip(skip);
  DArray<V> dx(x), dy(y0.size());
  for (const Plan& plan : plans_for(f, format, sizeof(V))) {
    const std::string what = std::string(batched::format_name(format)) + " " + describe(plan);
    dy.upload(y0);
    batched::gpu::apply(db.view, plan, V(2), dx.get(), V(0.5), dy.get(), nullptr, dskip.get());
    DeviceMemory::sync();
    const std::vector<V> got = dy.download();
    std::vector<V> got_kept, want_kept, bound_kept;
    for (std::size_t r = 0; r < got.size(); ++r) {
      if (skipped_row[r]) {
        ASSERT_EQ(0, std::memcmp(&got[r], &y0[r], sizeof(V))) << what << ": skipped row " << r;
      } else {
        got_kept.push_back(got[r]);
        want_kept.push_back(want[r]);
        bound_kept.push_back(bound[r]);
      }
    }
    expect_near_ref(got_kept, want_kept, bound_kept, f.max_row_nnz, what + " with skip flags");
  }
}

TYPED_TEST(BatchedGpuTest, SkipFlags) {
  HOLA_BATCH_TYPES;
  const auto ms = batched::random_matrices<V>(200, 1, 300, 21);
  for (Format f : kFormats) check_skip<V, I>(ms, f, 21);
  check_skip<V, I>(batched::random_shared<V>(60, 50, 50, 22), Format::csr_shared, 22);
}

// Matrices at the edges of csr_tiled's tiles (batched::tile_edge_matrices: rows of a tile's length
// and one more or less for every group size, rows longer than any tile, every row empty, more
// rows than a group, wide rows), every kernel.
TYPED_TEST(BatchedGpuTest, TileEdges) {
  HOLA_BATCH_TYPES;
  const auto ms = batched::tile_edge_matrices<V>(12);
  for (Format f : kFormats) check_on_device<V, I>(ms, f, 12);
}

TYPED_TEST(BatchedGpuTest, WideRows) {
  HOLA_BATCH_TYPES;
  std::mt19937_64 rng(13);
  std::vector<SmallMatrix<V>> ms;
  for (int i = 0; i < 200; ++i) {
    const std::int64_t n = std::uniform_int_distribution<std::int64_t>(16, 400)(rng);
    ms.push_back(batched::random_matrix<V>(n, n, 32, 0.0, rng));
  }
  check_on_device<V, I>(ms, Format::csr, 13);
}

TYPED_TEST(BatchedGpuTest, SharedPatternLongAndEmptyRows) {
  HOLA_BATCH_TYPES;
  check_on_device<V, I>(batched::random_shared<V>(30, 40, 4500, 14), Format::csr_shared, 14);
  check_on_device<V, I>(batched::random_shared<V>(20, 300, 0, 15), Format::csr_shared, 15);
}

TYPED_TEST(BatchedGpuTest, RepeatedAppliesAreReproducible) {
  HOLA_BATCH_TYPES;
  check_repeated<V, I>(batched::tile_edge_matrices<V>(16), Format::csr, 16);
  check_repeated<V, I>(batched::random_matrices<V>(300, 1, 200, 17), Format::csr, 17);
  check_repeated<V, I>(batched::random_shared<V>(50, 120, 120, 18), Format::csr_shared, 18);
  check_repeated<V, I>(batched::random_matrices<V>(100, 1, 60, 19), Format::coo, 19);
  check_repeated<V, I>(batched::random_matrices<V>(100, 1, 60, 20), Format::ell, 20);
}

TYPED_TEST(BatchedGpuTest, OperatorOnDeviceMemory) {
  HOLA_BATCH_TYPES;
  const auto ms = batched::random_matrices<V>(300, 1, 100, 10);
  for (Format f : kFormats) {
    const auto d = batched::make_batch<V, I>(ms, f);
    DeviceBatch<V, I> db(d);
    BatchedOperator<V, I> op(db.view);
    EXPECT_EQ(op.backend(), BatchedBackend::gpu);
    EXPECT_TRUE(batched::kernel_supports(op.plan().kernel, f));
    const std::vector<V> x = random_vector<V>(d.total_cols, 1);
    const std::vector<V> y0 = random_vector<V>(d.total_rows, 2);
    DArray<V> dx(x), dy(y0);
    op.apply(V(1.5), dx.get(), d.total_cols, V(0.5), dy.get(), d.total_rows);
    DeviceMemory::sync();
    std::vector<V> want, bound;
    expected(d, V(1.5), x, V(0.5), y0, want, bound);
    expect_near_ref(dy.download(), want, bound, op.features().max_row_nnz, op.kernel_name());
    // A broken device batch is refused at construction.
    auto broken = d;
    broken.col_idx[0] = I(-7);
    DeviceBatch<V, I> dbad(broken);
    EXPECT_EQ(status_of([&] { BatchedOperator<V, I> bad(dbad.view); }), status::invalid_csr)
        << "broken device batch";
  }
}

TYPED_TEST(BatchedGpuTest, BadPlansRefused) {
  HOLA_BATCH_TYPES;
  const auto d = batched::make_batch<V, I>(batched::random_matrices<V>(20, 1, 10, 1), Format::coo);
  DeviceBatch<V, I> db(d);
  DArray<V> dx(static_cast<std::size_t>(d.total_cols)), dy(static_cast<std::size_t>(d.total_rows));
  Plan p;
  p.kernel = Kernel::csr_vector;  // not a COO kernel
  EXPECT_THROW(batched::gpu::apply(db.view, p, V(1), dx.get(), V(0), dy.get(), nullptr), error);
  p.kernel = Kernel::coo;
  p.group_threads = 48;  // not a multiple of 32
  EXPECT_THROW(batched::gpu::apply(db.view, p, V(1), dx.get(), V(0), dy.get(), nullptr), error);
  p.group_threads = 32;
  p.stage_x = true;
  p.stage_cols = 1 << 20;  // far beyond shared memory
  EXPECT_THROW(batched::gpu::apply(db.view, p, V(1), dx.get(), V(0), dy.get(), nullptr), error);
  // csr_tiled: more two-warp groups than named barriers; staged x that fits the other kernels
  // but not next to the tiles' work space.
  const auto c = batched::make_batch<V, I>(batched::random_matrices<V>(20, 1, 10, 1), Format::csr);
  DeviceBatch<V, I> dc(c);
  p = Plan{};
  p.kernel = Kernel::csr_tiled;
  p.block_threads = 1024;
  p.group_threads = 64;
  EXPECT_EQ(
      status_of([&] { batched::gpu::apply(dc.view, p, V(1), dx.get(), V(0), dy.get(), nullptr); }),
      status::invalid_argument);
  p.block_threads = 256;
  p.stage_x = true;
  p.stage_cols = static_cast<std::int64_t>(batched::kStageBytesLimit / (sizeof(V) * 4));
  EXPECT_EQ(
      status_of([&] { batched::gpu::apply(dc.view, p, V(1), dx.get(), V(0), dy.get(), nullptr); }),
      status::invalid_argument);
  p.kernel = Kernel::csr_scalar;
  EXPECT_NO_THROW(batched::gpu::apply(dc.view, p, V(1), dx.get(), V(0), dy.get(), nullptr));
  DeviceMemory::sync();
}

}  // namespace
}  // namespace hola::test
