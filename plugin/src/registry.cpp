#include "hola/registry.hpp"

#include "hola/cpu_spmv.hpp"
#include "hola/detail/instantiate.hpp"
#include "hola/error.hpp"
#include "hola/gpu_kernels.hpp"

namespace hola {

const std::vector<KernelInfo>& KernelRegistry::kernels() {
  // Capabilities as implemented by each family (kernels/cpu, kernels/cuda/*); the registry
  // test checks them against the kernels' own supports() / deterministic().
  static const std::vector<KernelInfo> list = [] {
    std::vector<KernelInfo> v;
    v.push_back({"cpu", "OpenMP merge-path split per thread (host memory)", Memory::host, true,
                 true, true, true, true});
#if defined(HOLA_ENABLE_CUDA)
    v.push_back({"hola", "Hola-SpMV: strict nnz split per block and thread, bit-mask rows",
                 Memory::device, true, true, true, false, true});
    v.push_back({"merge", "merge-path SpMV with deterministic carry fix-up", Memory::device, true,
                 true, true, false, true});
    v.push_back({"light", "LightSpMV: persistent grid, dynamic rows through an atomic counter",
                 Memory::device, true, true, true, false, true});
    v.push_back({"scalar", "one thread per row", Memory::device, true, true, true, false, true});
    v.push_back({"vector", "one warp per row", Memory::device, true, true, true, false, true});
    v.push_back({"vector-adaptive", "2-32 lanes per row from the mean row length", Memory::device,
                 true, true, true, false, true});
    v.push_back({"cusparse", "cuSPARSE cusparseSpMV CSR_ALG1", Memory::device, true, true, false,
                 false, false});
    v.push_back({"cusparse-alg2", "cuSPARSE cusparseSpMV CSR_ALG2 (deterministic op N)",
                 Memory::device, true, true, true, false, false});
#endif
    // Deterministic T only where the chosen kernel has it (the CPU kernel; no GPU kernel yet).
    v.push_back({"auto", "chosen per matrix from its row lengths (docs/kernels.md)", Memory::device,
                 true, true, true, false, true});
    return v;
  }();
  return list;
}

const KernelInfo* KernelRegistry::find(const std::string& name) {
  for (const KernelInfo& k : kernels())
    if (k.name == name) return &k;
  return nullptr;
}

std::string KernelRegistry::names() {
  std::string s;
  for (const KernelInfo& k : kernels()) s += (s.empty() ? "" : ", ") + k.name;
  return s;
}

template <class V, class I, class O>
SpmvKernelPtr<V, I, O> KernelRegistry::create(const std::string& name,
                                              const KernelOptions& options) {
  if (name == "cpu") return std::make_unique<cpu::MergeSpmv<V, I, O>>(options);
#if defined(HOLA_ENABLE_CUDA)
  if (name == "hola") return gpu::make_hola<V, I, O>(options);
  if (name == "merge") return gpu::make_merge<V, I, O>(options);
  if (name == "light") return gpu::make_light<V, I, O>(options);
  if (name == "scalar") return gpu::make_scalar<V, I, O>(options);
  if (name == "vector") return gpu::make_vector<V, I, O>(options);
  if (name == "vector-adaptive") return gpu::make_vector_adaptive<V, I, O>(options);
  if (name == "cusparse") return gpu::make_cusparse<V, I, O>(options, 1);
  if (name == "cusparse-alg2") return gpu::make_cusparse<V, I, O>(options, 2);
#else
  for (const char* gpu_name : {"hola", "merge", "light", "scalar", "vector", "vector-adaptive",
                               "cusparse", "cusparse-alg2"})
    if (name == gpu_name)
      fail(status::unsupported,
           "kernel '" + name + "' needs a build with CUDA (this build has " + names() + ")");
#endif
  if (name == "auto") fail(status::invalid_argument, "'auto' is resolved by the Operator");
  fail(status::invalid_argument, "unknown kernel '" + name + "' (known: " + names() + ")");
}

#define HOLA_INSTANTIATE(V, I, O)                                                     \
  template SpmvKernelPtr<V, I, O> KernelRegistry::create<V, I, O>(const std::string&, \
                                                                  const KernelOptions&);
HOLA_FOR_EACH_VALUE_INDEX_OFFSET(HOLA_INSTANTIATE)
#undef HOLA_INSTANTIATE

}  // namespace hola
