// The CPU kernel over the whole test corpus (every family, the real matrices), all types.
#include <gtest/gtest.h>

#include "corpus.hpp"
#include "hola/cpu_spmv.hpp"
#include "spmv_check.hpp"
#include "type_lists.hpp"

namespace {

template <class T>
class CpuCorpus : public ::testing::Test {};

using hola::test::AllTypes;
TYPED_TEST_SUITE(CpuCorpus, AllTypes);

template <class V, class I, class O>
hola::SpmvKernelPtr<V, I, O> make_cpu(const hola::KernelOptions& o) {
  return std::make_unique<hola::cpu::MergeSpmv<V, I, O>>(o);
}

TYPED_TEST(CpuCorpus, Families) {
  HOLA_TYPES;
  for (int threads : {1, 3}) {
    hola::KernelOptions opt;
    opt.cpu_threads = threads;
    hola::test::check_kernel_on_corpus<hola::test::HostMemory, V, I, O>(hola::test::family_corpus(),
                                                                        &make_cpu<V, I, O>, opt);
  }
}

TYPED_TEST(CpuCorpus, RealMatrices) {
  HOLA_TYPES;
  if (hola::test::matrices_dir().empty()) GTEST_SKIP() << hola::test::matrices_missing_reason();
  hola::test::check_kernel_on_corpus<hola::test::HostMemory, V, I, O>(
      hola::test::real_corpus(), &make_cpu<V, I, O>, hola::KernelOptions{});
}

TYPED_TEST(CpuCorpus, BlockBoundaries) {
  HOLA_TYPES;
  hola::KernelOptions opt;
  opt.cpu_threads = 4;
  hola::test::check_kernel_on_corpus<hola::test::HostMemory, V, I, O>(
      hola::test::boundary_corpus(64), &make_cpu<V, I, O>, opt);
}

}  // namespace
