// LightSpMV (make_light, make_light_forced) on the device: every type combination over the
// generated families and the real matrices, both row distributions at every vector width,
// several rounds per take,
// deterministic mode (op N bitwise reproducible, op T refused), a non-default stream, block
// sizes at both ends, and the row counter reset over many applies queued back to back.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "gpu_harness.hpp"
#include "hola/generators.hpp"
#include "hola/gpu_kernels.hpp"

namespace hola::test {
namespace {

using gpu::LightDistribution;

template <class V_, class I_, class O_>
struct Combo {
  using V = V_;
  using I = I_;
  using O = O_;
};
using AllCombos = ::testing::Types<
    Combo<float, std::int32_t, std::int32_t>, Combo<float, std::int32_t, std::int64_t>,
    Combo<float, std::int64_t, std::int32_t>, Combo<float, std::int64_t, std::int64_t>,
    Combo<double, std::int32_t, std::int32_t>, Combo<double, std::int32_t, std::int64_t>,
    Combo<double, std::int64_t, std::int32_t>, Combo<double, std::int64_t, std::int64_t>>;

// Built once per process: generating and reading them is the slow part of the checks.
const std::vector<NamedMatrix>& families() {
  static const std::vector<NamedMatrix> corpus = family_corpus();
  return corpus;
}
const std::vector<NamedMatrix>& reals() {
  static const std::vector<NamedMatrix> corpus =
      matrices_dir().empty() ? std::vector<NamedMatrix>{} : real_corpus();
  return corpus;
}
// Moderate irregular matrices for the reproducibility and many-applies checks.
const std::vector<NamedMatrix>& irregular() {
  static const std::vector<NamedMatrix> corpus = {
      {"rmat scale 16", gen::rmat(16, 16, 41)},
      {"circuit 200k", gen::circuit(200000, 42, 0.3, 8, 40000, 4.0)}};
  return corpus;
}

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

// Op N `runs` times with the same inputs: every output bitwise equal to the first, which
// matches the reference.
template <class V, class I, class O>
void expect_bitwise_reproducible(const NamedMatrix& m, KernelFactory<V, I, O> make,
                                 const KernelOptions& options, int runs = 10) {
  PlacedMatrix<DeviceMemory, V, I, O> M(m.A);
  auto kernel = make(options);
  kernel->setup(M.view(), nullptr);
  const CsrView<V, I, O> host = M.host.view();
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE("matrix " + m.name + ", kernel " + kernel->name() + ", seed " +
               std::to_string(seed));
  const std::vector<V> x = random_vector<V>(host.cols, seed);
  const std::vector<V> y_in = random_vector<V>(host.rows, seed + 1);
  const std::vector<V> poison(static_cast<std::size_t>(host.rows),
                              std::numeric_limits<V>::quiet_NaN());
  DeviceMemory::Array<V> dx(host.cols), dy(host.rows), dz(host.rows);
  dx.upload(x);
  dy.upload(y_in);
  const V alpha = V(1.25), beta = V(-0.5);
  std::vector<V> first;
  for (int run = 0; run < runs; ++run) {
    dz.upload(poison);
    kernel->apply(Op::N, alpha, dx.get(), beta, dy.get(), dz.get(), nullptr);
    DeviceMemory::sync();
    const std::vector<V> z = dz.download();
    if (run == 0) {
      ASSERT_TRUE(matches_reference(Op::N, alpha, host, x, beta, y_in, z));
      first = z;
    } else {
      ASSERT_EQ(0, std::memcmp(first.data(), z.data(), z.size() * sizeof(V)))
          << "run " << run << " differs bitwise from run 0";
    }
  }
}

// `applies` applies queued on `stream` with no synchronisation between them, alternating op N
// and op T (when supported), each into its own NaN-poisoned output with its own alpha; then
// every output is checked. A row counter left unreset would leave rows NaN.
template <class V, class I, class O>
void check_back_to_back(const NamedMatrix& m, KernelFactory<V, I, O> make,
                        const KernelOptions& options, cudaStream_t stream, int applies = 50) {
  PlacedMatrix<DeviceMemory, V, I, O> M(m.A);
  auto kernel = make(options);
  kernel->setup(M.view(), stream);
  const CsrView<V, I, O> host = M.host.view();
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE("matrix " + m.name + ", kernel " + kernel->name() + ", seed " +
               std::to_string(seed));
  const V nan = std::numeric_limits<V>::quiet_NaN();
  const std::vector<V> x_n = random_vector<V>(host.cols, seed);
  const std::vector<V> x_t = random_vector<V>(host.rows, seed + 1);
  const std::vector<V> y_t = random_vector<V>(host.cols, seed + 2);
  DeviceMemory::Array<V> dx_n(host.cols), dx_t(host.rows), dy_t(host.cols);
  dx_n.upload(x_n);
  dx_t.upload(x_t);
  dy_t.upload(y_t);
  std::vector<Op> ops;
  std::vector<std::unique_ptr<DeviceMemory::Array<V>>> outs;
  for (int k = 0; k < applies; ++k) {
    const Op op = (k % 2 == 1 && kernel->supports(Op::T)) ? Op::T : Op::N;
    const std::int64_t n_out = op == Op::N ? host.rows : host.cols;
    ops.push_back(op);
    outs.push_back(std::make_unique<DeviceMemory::Array<V>>(n_out));
    outs.back()->upload(std::vector<V>(static_cast<std::size_t>(n_out), nan));
  }
  DeviceMemory::sync();
  const V beta_t = V(0.5);
  auto alpha_of = [](int k) { return static_cast<V>(1.0 + 0.125 * k); };
  for (int k = 0; k < applies; ++k) {
    if (ops[k] == Op::N)
      kernel->apply(Op::N, alpha_of(k), dx_n.get(), V(0), nullptr, outs[k]->get(), stream);
    else
      kernel->apply(Op::T, alpha_of(k), dx_t.get(), beta_t, dy_t.get(), outs[k]->get(), stream);
  }
  HOLA_TEST_CUDA(cudaStreamSynchronize(stream));
  DeviceMemory::sync();
  for (int k = 0; k < applies; ++k) {
    SCOPED_TRACE("apply " + std::to_string(k) + ", op " + op_name(ops[k]));
    const std::vector<V> out = outs[k]->download();
    if (ops[k] == Op::N) {
      const std::vector<V> unread(static_cast<std::size_t>(host.rows), V(0));
      ASSERT_TRUE(matches_reference(Op::N, alpha_of(k), host, x_n, V(0), unread, out));
    } else {
      ASSERT_TRUE(matches_reference(Op::T, alpha_of(k), host, x_t, beta_t, y_t, out));
    }
  }
}

// A stream that waits for the legacy default stream, where the harness's cudaMemcpy uploads go.
struct Stream {
  cudaStream_t s = nullptr;
  Stream() { HOLA_TEST_CUDA(cudaStreamCreate(&s)); }
  ~Stream() { cudaStreamDestroy(s); }
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
};

template <class C>
class LightTest : public ::testing::Test {};
TYPED_TEST_SUITE(LightTest, AllCombos);

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
  PlacedMatrix<DeviceMemory, V, I, O> M(gen::poisson2d(20, 20));
  kernel->setup(M.view(), nullptr);
  DeviceMemory::Array<V> dx(400), dy(400);
  try {
    kernel->apply(Op::T, V(1), dx.get(), V(0), dy.get(), dy.get(), nullptr);
    ADD_FAILURE() << "op T accepted in deterministic mode";
  } catch (const hola::error& e) {
    EXPECT_EQ(e.code(), status::unsupported);
  }
}

TYPED_TEST(LightTest, BitwiseReproducibleOpN) {
  using V = typename TypeParam::V;
  using I = typename TypeParam::I;
  using O = typename TypeParam::O;
  KernelOptions options;
  options.deterministic = true;
  for (const NamedMatrix& m : irregular()) {
    expect_bitwise_reproducible<V, I, O>(m, gpu::make_light<V, I, O>, options);
    expect_bitwise_reproducible<V, I, O>(m, make_light_fixed<V, I, O, LightDistribution::warp, 2>,
                                         options);
    expect_bitwise_reproducible<V, I, O>(m, make_light_fixed<V, I, O, LightDistribution::vector, 8>,
                                         options);
    expect_bitwise_reproducible<V, I, O>(m, make_light_fixed<V, I, O, LightDistribution::warp, 32>,
                                         options);
    expect_bitwise_reproducible<V, I, O>(
        m, make_light_rounds<V, I, O, LightDistribution::warp, 4, 16>, options);
  }
}

TYPED_TEST(LightTest, NonDefaultStream) {
  using V = typename TypeParam::V;
  using I = typename TypeParam::I;
  using O = typename TypeParam::O;
  Stream stream;
  check_kernel_on_corpus<DeviceMemory, V, I, O>(families(), gpu::make_light<V, I, O>, {}, stream.s);
}

TYPED_TEST(LightTest, CounterResetOverManyApplies) {
  using V = typename TypeParam::V;
  using I = typename TypeParam::I;
  using O = typename TypeParam::O;
  Stream stream;
  for (const NamedMatrix& m : irregular()) {
    check_back_to_back<V, I, O>(m, gpu::make_light<V, I, O>, {}, stream.s);
    check_back_to_back<V, I, O>(m, make_light_fixed<V, I, O, LightDistribution::vector, 2>, {},
                                stream.s);
    check_back_to_back<V, I, O>(m, make_light_fixed<V, I, O, LightDistribution::warp, 4>, {},
                                nullptr);
    check_back_to_back<V, I, O>(m, make_light_rounds<V, I, O, LightDistribution::warp, 8, 1>, {},
                                stream.s);
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
