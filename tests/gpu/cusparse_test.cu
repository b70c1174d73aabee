// GPU tests of the cuSPARSE wrapper (hola::gpu::make_cusparse, CSR_ALG1 and CSR_ALG2): the four
// type combinations cuSPARSE accepts (row offsets and column indices of one type) on the
// generated families and the real matrices, mixed index types refused with status::unsupported,
// deterministic mode, bitwise reproducibility of ALG2, non-default stream.
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

namespace hola::test {
namespace {

template <class V_, class I_, class O_>
struct Types {
  using V = V_;
  using I = I_;
  using O = O_;
};
using SameIndexTypes = ::testing::Types<
    Types<float, std::int32_t, std::int32_t>, Types<float, std::int64_t, std::int64_t>,
    Types<double, std::int32_t, std::int32_t>, Types<double, std::int64_t, std::int64_t>>;
using MixedIndexTypes = ::testing::Types<
    Types<float, std::int32_t, std::int64_t>, Types<float, std::int64_t, std::int32_t>,
    Types<double, std::int32_t, std::int64_t>, Types<double, std::int64_t, std::int32_t>>;

// KernelFactory is a plain function pointer: one non-capturing lambda per algorithm.
template <class V, class I, class O>
KernelFactory<V, I, O> factory(int alg) {
  if (alg == 1) {
    return [](const KernelOptions& o) { return gpu::make_cusparse<V, I, O>(o, 1); };
  }
  return [](const KernelOptions& o) { return gpu::make_cusparse<V, I, O>(o, 2); };
}

struct Stream {
  cudaStream_t s = nullptr;
  explicit Stream(unsigned flags) { HOLA_TEST_CUDA(cudaStreamCreateWithFlags(&s, flags)); }
  ~Stream() { cudaStreamDestroy(s); }
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
};

template <class T>
class CusparseTest : public ::testing::Test {};
TYPED_TEST_SUITE(CusparseTest, SameIndexTypes);

TYPED_TEST(CusparseTest, Names) {
  using V = typename TypeParam::V;
  using I = typename TypeParam::I;
  using O = typename TypeParam::O;
  const auto alg1 = factory<V, I, O>(1)(KernelOptions{});
  const auto alg2 = factory<V, I, O>(2)(KernelOptions{});
  EXPECT_EQ(alg1->name(), "cusparse-alg1");
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
  const gen::Csr64 A64 = gen::rmat(16, 16, 61);
  PlacedMatrix<DeviceMemory, V, I, O> M(A64);
  KernelOptions options;
  options.deterministic = true;
  auto kernel = gpu::make_cusparse<V, I, O>(options, 2);
  kernel->setup(M.view(), nullptr);
  const CsrView<V, I, O> host = M.host.view();
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const std::vector<V> x = random_vector<V>(host.cols, seed);
  const std::vector<V> y_in = random_vector<V>(host.rows, seed + 1);
  DeviceMemory::Array<V> dx(host.cols), dy(host.rows), dz(host.rows);
  dx.upload(x);
  dy.upload(y_in);
  const V alpha = V(1.25), beta = V(0.5);
  std::vector<V> first;
  for (int run = 0; run < 10; ++run) {
    dz.upload(
        std::vector<V>(static_cast<std::size_t>(host.rows), std::numeric_limits<V>::quiet_NaN()));
    kernel->apply(Op::N, alpha, dx.get(), beta, dy.get(), dz.get(), nullptr);
    DeviceMemory::sync();
    const std::vector<V> z = dz.download();
    if (run == 0) {
      first = z;
      ASSERT_TRUE(matches_reference(Op::N, alpha, host, x, beta, y_in, z));
    } else {
      ASSERT_EQ(0, std::memcmp(first.data(), z.data(), z.size() * sizeof(V)))
          << "run " << run << " differs bitwise from run 0";
    }
  }
}

TYPED_TEST(CusparseTest, NonDefaultStream) {
  using V = typename TypeParam::V;
  using I = typename TypeParam::I;
  using O = typename TypeParam::O;
  // Blocking stream: it waits for the harness's cudaMemcpy uploads on the legacy stream.
  Stream stream(cudaStreamDefault);
  for (int alg : {1, 2}) {
    SCOPED_TRACE("alg " + std::to_string(alg));
    check_kernel_on_matrix<DeviceMemory, V, I, O>("circuit", gen::circuit(20000, 71, 0.3, 3, 9000),
                                                  factory<V, I, O>(alg), KernelOptions{}, stream.s);
    check_kernel_on_matrix<DeviceMemory, V, I, O>("rmat scale 13", gen::rmat(13, 8, 72),
                                                  factory<V, I, O>(alg), KernelOptions{}, stream.s);
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
