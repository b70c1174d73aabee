// The CPU kernel over the whole test corpus (every family, the real matrices), all types.
#include <gtest/gtest.h>

#include "hola/cpu_spmv.hpp"
#include "spmv_check.hpp"

namespace {

template <class T>
class CpuCorpus : public ::testing::Test {};

template <class V_, class I_, class O_>
struct Types {
  using V = V_;
  using I = I_;
  using O = O_;
};
using AllTypes = ::testing::Types<
    Types<float, std::int32_t, std::int32_t>, Types<float, std::int32_t, std::int64_t>,
    Types<float, std::int64_t, std::int32_t>, Types<float, std::int64_t, std::int64_t>,
    Types<double, std::int32_t, std::int32_t>, Types<double, std::int32_t, std::int64_t>,
    Types<double, std::int64_t, std::int32_t>, Types<double, std::int64_t, std::int64_t>>;
TYPED_TEST_SUITE(CpuCorpus, AllTypes);

template <class V, class I, class O>
hola::SpmvKernelPtr<V, I, O> make_cpu(const hola::KernelOptions& o) {
  return std::make_unique<hola::cpu::MergeSpmv<V, I, O>>(o);
}

TYPED_TEST(CpuCorpus, Families) {
  using V = typename TypeParam::V;
  using I = typename TypeParam::I;
  using O = typename TypeParam::O;
  for (int threads : {1, 3}) {
    hola::KernelOptions opt;
    opt.cpu_threads = threads;
    hola::test::check_kernel_on_corpus<hola::test::HostMemory, V, I, O>(
        hola::test::family_corpus(), &make_cpu<V, I, O>, opt);
  }
}

TYPED_TEST(CpuCorpus, RealMatrices) {
  using V = typename TypeParam::V;
  using I = typename TypeParam::I;
  using O = typename TypeParam::O;
  hola::test::check_kernel_on_corpus<hola::test::HostMemory, V, I, O>(
      hola::test::real_corpus(), &make_cpu<V, I, O>, hola::KernelOptions{});
}

TYPED_TEST(CpuCorpus, BlockBoundaries) {
  using V = typename TypeParam::V;
  using I = typename TypeParam::I;
  using O = typename TypeParam::O;
  hola::KernelOptions opt;
  opt.cpu_threads = 4;
  hola::test::check_kernel_on_corpus<hola::test::HostMemory, V, I, O>(
      hola::test::boundary_corpus(64), &make_cpu<V, I, O>, opt);
}

}  // namespace
