#include "hola/registry.hpp"

#include "hola/detail/instantiate.hpp"
#include "hola/error.hpp"
#include "hola/kernel_table.hpp"

namespace hola {

namespace {

KernelInfo info_of(const KernelFamily& f) {
  return {f.name,
          f.description,
          f.memory,
          f.op_n(),
          f.op_t(),
          f.deterministic_n(),
          f.deterministic_t(),
          f.mixed_index_types(),
          f.setup_data()};
}

// "auto" is no family: the Operator resolves it (plugin/src/selector.cpp). In deterministic mode
// a pick without a deterministic op makes way for the first kernel of the table that has it (op T:
// the row kernels' column gather).
const KernelInfo& auto_info() {
  static const KernelInfo info{"auto",
                               "chosen per matrix from its features (docs/kernels.md)",
                               Memory::device,
                               true,
                               true,
                               true,
                               true,
                               true,
                               true};
  return info;
}

const char* yes_no(bool b) { return b ? "yes" : "no"; }

std::string markdown_row(const KernelInfo& k) {
  const std::string deterministic = k.deterministic_n && k.deterministic_t ? "N and T"
                                    : k.deterministic_n                    ? "N"
                                    : k.deterministic_t                    ? "T"
                                                                           : "no";
  return "| `" + k.name + "` | " + memory_name(k.memory) + " | " + yes_no(k.op_n) + " | " +
         yes_no(k.op_t) + " | " + deterministic + " | " + yes_no(k.mixed_index_types) + " | " +
         yes_no(k.setup_data) + " | " + k.description + " |\n";
}

}  // namespace

const std::vector<KernelInfo>& KernelRegistry::kernels() {
  static const std::vector<KernelInfo> list = [] {
    std::vector<KernelInfo> v;
    for (const KernelFamily& f : kernel_families)
      if (built(f)) v.push_back(info_of(f));
    v.push_back(auto_info());
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

std::string KernelRegistry::markdown_table() {
  std::string s =
      "| name | memory | N | T | deterministic | mixed index types | setup data | what it is |\n"
      "|---|---|---|---|---|---|---|---|\n";
  for (const KernelFamily& f : kernel_families) s += markdown_row(info_of(f));
  return s + markdown_row(auto_info());
}

template <class V, class I, class O>
SpmvKernelPtr<V, I, O> KernelRegistry::create(const std::string& name,
                                              const KernelOptions& options) {
  SpmvKernelPtr<V, I, O> made;
  for_each_kernel_row([&](auto row) {
    using Row = decltype(row);
    if (made || name != Row::family.name) return;
    if constexpr (built(Row::family))
      made = Row::template make<V, I, O>(options);
    else
      fail(status::unsupported,
           "kernel '" + name + "' needs a build with CUDA (this build has " + names() + ")");
  });
  if (made) return made;
  if (name == "auto") fail(status::invalid_argument, "'auto' is resolved by the Operator");
  fail(status::invalid_argument, "unknown kernel '" + name + "' (known: " + names() + ")");
}

#define HOLA_INSTANTIATE(V, I, O)                                                     \
  template SpmvKernelPtr<V, I, O> KernelRegistry::create<V, I, O>(const std::string&, \
                                                                  const KernelOptions&);
HOLA_FOR_EACH_VALUE_INDEX_OFFSET(HOLA_INSTANTIATE)
#undef HOLA_INSTANTIATE

}  // namespace hola
