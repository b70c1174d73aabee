#include "hola/selector.hpp"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <sstream>
#include <type_traits>

#include "hola/detail/instantiate.hpp"
#include "hola/error.hpp"
#include "hola/kernel_table.hpp"
#include "selector_tree.hpp"

namespace hola {

namespace {

std::string describe(const RowLengthStats& s) {
  std::ostringstream out;
  out << "rows " << s.rows << ", nnz " << s.nnz << ", mean row " << s.mean_row() << ", max row "
      << s.max_row << ", gini " << s.gini;
  return out.str();
}

// The selector's labels: names of the kernel table's rows.
constexpr const char* kScalar = rows::Scalar::family.name;
constexpr const char* kHola = rows::Hola::family.name;
constexpr const char* kVendor = rows::Cusparse::family.name;  // also the race's baseline
constexpr const char* kCpu = rows::Cpu::family.name;
constexpr const char* kInode = rows::Inode::family.name;
constexpr const char* kMerge = rows::Merge::family.name;
constexpr const char* kVectorAdaptive = rows::VectorAdaptive::family.name;

// Whether the family can take these index types (vendor_available: index type == offset type).
bool can_take(const std::string& name, bool vendor_available) {
  const KernelFamily* f = find_family(name);
  return vendor_available || !f || f->mixed_index_types();
}

// A rule's pick `name` leads; the previous pick and its alternatives stay as alternatives, for
// auto's check (or the race) to weigh against it.
KernelSelection lead_with(KernelSelection chosen, const char* name) {
  std::vector<std::string> alternatives{chosen.name};
  for (const std::string& a : chosen.alternatives)
    if (a != name && a != chosen.name) alternatives.push_back(a);
  chosen.name = name;
  chosen.alternatives = std::move(alternatives);
  return chosen;
}

// Whether `name` is the pick or one of its alternatives.
bool weighs(const KernelSelection& chosen, const std::string& name) {
  return chosen.name == name || std::find(chosen.alternatives.begin(), chosen.alternatives.end(),
                                          name) != chosen.alternatives.end();
}

}  // namespace

KernelSelection select_device_kernel_by_rule(Op op, bool single_precision, bool vendor_available,
                                             const RowLengthStats& s) {
  const std::string why = "auto rule (" + describe(s) + "): ";
  // Short, even rows: one thread per row reads each row in one go and writes y coalesced; it
  // was the fastest kernel for both ops on the 7-point stencils and the small banded matrix
  // (1.3-2.1x cuSPARSE). Long rows make it serialise, so the longest row bounds it.
  if (s.rows > 0 && s.max_row <= 32 && s.mean_row() <= 12.0)
    return {kScalar, why + "short even rows -> " + kScalar, {}};
  if (op == Op::T) {
    // No Hola transpose beat cuSPARSE's on the irregular and long-row matrices yet.
    if (vendor_available) return {kVendor, why + "transpose -> " + kVendor, {}};
    return {kHola, why + "transpose, mixed index types (no cuSPARSE) -> " + kHola, {}};
  }
  // Double: hola was fastest or within 6 % of the best on every other anchor matrix. Single:
  // cuSPARSE ALG1 was ahead of hola on the stencils and banded matrices.
  if (single_precision && vendor_available)
    return {kVendor, why + "single precision -> " + kVendor, {}};
  return {kHola, why + "-> " + kHola, {}};
}

KernelSelection select_device_kernel(Op op, bool single_precision, bool vendor_available,
                                     const MatrixFeatures& features) {
  const RowLengthStats& s = features.lengths;
  const StructureStats& c = features.structure;
  const detail::TreePick pick =
      detail::tree_pick(single_precision, op, detail::tree_features(features));
  if (!pick.kernel) return select_device_kernel_by_rule(op, single_precision, vendor_available, s);
  std::ostringstream why;
  why << "auto tree (" << (single_precision ? "float" : "double") << ", op " << op_name(op) << ", "
      << detail::tree_provenance() << "; " << describe(s) << ", group efficiency "
      << c.group_efficiency() << ", x near in row " << c.fraction(c.row_near)
      << ", near the row above " << c.fraction(c.neighbor_near) << "): leaf " << pick.leaf << " -> "
      << pick.kernel;
  if (!can_take(pick.kernel, vendor_available)) {
    // cuSPARSE needs equal column index and row offset types.
    KernelSelection rule = select_device_kernel_by_rule(op, single_precision, false, s);
    rule.reason = why.str() + ", which cannot take mixed index types; " + rule.reason;
    return rule;
  }
  KernelSelection chosen{pick.kernel, why.str(), {}};
  for (const char* name : {pick.second, kVendor})
    if (name && can_take(name, vendor_available) && !weighs(chosen, name))
      chosen.alternatives.emplace_back(name);
  return chosen;
}

KernelSelection adjust_for_offset_width(KernelSelection chosen, Op op, bool wide_offsets,
                                        std::int64_t nnz) {
  if (op != Op::N || !wide_offsets || chosen.name != kScalar || nnz <= kWideOffsetScalarMaxNnz)
    return chosen;
  chosen.reason += "; 64-bit row offsets and " + std::to_string(nnz) +
                   " nonzeros: the trees' 32-bit data do not hold for " + kScalar + " -> " + kHola;
  chosen.name = kHola;
  // The race (on request) still weighs the vendor against it, never scalar again.
  std::vector<std::string> kept;
  for (const std::string& a : chosen.alternatives)
    if (a != kScalar && a != kHola) kept.push_back(a);
  chosen.alternatives = kept;
  return chosen;
}

KernelSelection adjust_transpose_for_short_rows(KernelSelection chosen, Op op, bool wide_offsets,
                                                const RowLengthStats& s) {
  if (op != Op::T || wide_offsets || chosen.name == kScalar || s.rows == 0 ||
      s.max_row > kShortRowsTransposeMaxRow || s.nnz < kShortRowsTransposeMinNnz)
    return chosen;
  chosen.reason += "; op T, rows of at most " + std::to_string(kShortRowsTransposeMaxRow) +
                   " entries, " + std::to_string(s.nnz) + " nonzeros -> " + kScalar;
  // The race (on request) still weighs the tree's pick against it.
  return lead_with(std::move(chosen), kScalar);
}

KernelSelection prefer_row_groups(KernelSelection chosen, Op op, const MatrixFeatures& features) {
  const StructureStats& c = features.structure;
  const double same = c.fraction(c.neighbor_same);
  const double min_same = op == Op::N ? kRowGroupsMinSameFractionN : kRowGroupsMinSameFraction;
  if (same < min_same || chosen.name == kInode ||
      (op == Op::T && c.nnz < kRowGroupsTransposeMinNnz))
    return chosen;
  std::ostringstream why;
  why << "; " << same << " of the nonzeros repeat the row above (block rows) -> " << kInode;
  chosen.reason += why.str();
  return lead_with(std::move(chosen), kInode);
}

KernelSelection check_vector_adaptive_on_even_rows(KernelSelection chosen, Op op,
                                                   const RowLengthStats& s) {
  const double mean = s.mean_row();
  const double min_mean = op == Op::T ? kEvenRowsCheckMinMeanTranspose : kEvenRowsCheckMinMean;
  if (weighs(chosen, kVectorAdaptive) || s.nnz < kEvenRowsCheckMinNnz || mean < min_mean ||
      static_cast<double>(s.max_row) > kEvenRowsCheckMaxOverMean * mean)
    return chosen;
  chosen.alternatives.emplace_back(kVectorAdaptive);
  chosen.reason += std::string("; rows of even length: ") + kVectorAdaptive + " checked";
  return chosen;
}

KernelSelection check_merge_for_hub_columns(KernelSelection chosen, Op op,
                                            const RowLengthStats& s) {
  if (op != Op::T || weighs(chosen, kMerge)) return chosen;
  const double mean_row = s.mean_row();
  const double mean_column = s.cols > 0 ? static_cast<double>(s.nnz) / s.cols : 0.0;
  const bool long_rows = s.nnz >= kHubCheckMinNnz && s.max_row >= kHubCheckMinMaxRow &&
                         static_cast<double>(s.max_row) >= kHubCheckRowsOverMean * mean_row;
  const bool long_columns = mean_column >= static_cast<double>(kHubCheckMinMaxRow) &&
                            mean_column >= kHubCheckRowsOverMean * mean_row;
  if (!long_rows && !long_columns) return chosen;
  chosen.alternatives.emplace_back(kMerge);
  std::ostringstream why;
  if (long_rows)
    why << "; long rows (" << s.max_row << " entries)";
  else
    why << "; columns of " << mean_column << " entries on average";
  why << ": " << kMerge << " checked for hub columns";
  chosen.reason += why.str();
  return chosen;
}

template <class V, class I, class O>
KernelChoice select_kernels(const std::string& requested, const CsrView<V, I, O>& A, void* stream) {
  if (A.memory == Memory::host) {
    const KernelSelection cpu{
        kCpu,
        requested == "auto" || requested == kCpu
            ? "host memory: OpenMP CPU kernel"
            : "host memory: OpenMP CPU kernel (requested '" + requested + "' runs on the GPU only)",
        {}};
    return {cpu, cpu, {}, 0.0};
  }
  if (requested != "auto")
    return {{requested, "requested", {}}, {requested, "requested", {}}, {}, 0.0};
  KernelChoice choice;
#if defined(HOLA_ENABLE_CUDA)
  const auto start = std::chrono::steady_clock::now();
  choice.features =
      gpu::device_matrix_features(A.row_ptr, A.col_idx, A.rows, A.cols, A.nnz, stream);
  choice.features_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
#else
  (void)stream;
  fail(status::no_device, "auto on a device matrix needs a build of Hola with CUDA");
#endif
  const bool single = std::is_same_v<V, float>, vendor = std::is_same_v<I, O>;
  const RowLengthStats& lengths = choice.features.lengths;
  choice.n = check_vector_adaptive_on_even_rows(
      prefer_row_groups(
          adjust_for_offset_width(select_device_kernel(Op::N, single, vendor, choice.features),
                                  Op::N, sizeof(O) == 8, A.nnz),
          Op::N, choice.features),
      Op::N, lengths);
  choice.t = check_vector_adaptive_on_even_rows(
      check_merge_for_hub_columns(
          prefer_row_groups(adjust_transpose_for_short_rows(
                                select_device_kernel(Op::T, single, vendor, choice.features), Op::T,
                                sizeof(O) == 8, lengths),
                            Op::T, choice.features),
          Op::T, lengths),
      Op::T, lengths);
  return choice;
}

#define HOLA_INSTANTIATE(V, I, O) \
  template KernelChoice select_kernels<V, I, O>(const std::string&, const CsrView<V, I, O>&, void*);
HOLA_FOR_EACH_VALUE_INDEX_OFFSET(HOLA_INSTANTIATE)
#undef HOLA_INSTANTIATE

}  // namespace hola
