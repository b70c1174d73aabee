// The SpMSpV candidates and the GPU selection (hola/spmspv_operator.hpp): the trees of
// spmspv_tree_generated.hpp (bench/selector/train_spmspv.py) and the rule around them, which
// train_spmspv.py's choose() mirrors.
#include <cmath>
#include <limits>

#include "hola/spmspv_operator.hpp"
#include "spmspv_tree_generated.hpp"

namespace hola::spmspv {

const std::vector<Candidate>& candidates() {
  static const std::vector<Candidate> list = {
      {"reference", Memory::host, ""},
      {"matrix_driven", Memory::host, "op T: the column view"},
      {"vector_driven", Memory::host, "op N: the column view"},
      {"matrix_direct", Memory::device, "op T: the column view"},
      {"matrix_balanced", Memory::device, "op T: the column view"},
      {"vector_direct", Memory::device, "op N: the column view"},
      {"vector_balanced", Memory::device, "op N: the column view"},
      {"densify", Memory::device, "the plus_times semiring"},
  };
  return list;
}

GpuSelection select_gpu_kernel(const GpuCallFeatures& f, const bool available[5]) {
  GpuSelection s;
  for (double& p : s.predicted) p = std::numeric_limits<double>::quiet_NaN();
  const auto tf =
      detail::spmspv_tree_features(f.nnz_x, f.nnz, f.n_in, f.n_out, f.max_len, f.std_len,
                                   f.densify_ms, f.transpose, f.sparse_output, f.allowed_fraction);
  double margin = 1;
  s.from_tree = detail::spmspv_tree_predict(f.single_precision, tf, s.predicted, margin);
  s.margin = margin;
  const bool densify_ok = available[static_cast<int>(gpu::Kernel::densify)];
  if (!s.from_tree) {
    for (double& p : s.predicted) p = std::numeric_limits<double>::quiet_NaN();
    const gpu::Kernel order[] = {gpu::Kernel::densify, gpu::Kernel::vector_balanced,
                                 gpu::Kernel::matrix_balanced, gpu::Kernel::vector_direct,
                                 gpu::Kernel::matrix_direct};
    for (gpu::Kernel k : order)
      if (available[static_cast<int>(k)]) {
        s.kernel = k;
        return s;
      }
    s.kernel = gpu::Kernel::densify;
    return s;
  }
  int best = -1;
  for (int k = 0; k < 4; ++k)
    if (available[k] && (best < 0 || s.predicted[k] < s.predicted[best])) best = k;
  // Densify unless a sparse kernel is predicted faster by the margin: ties and doubt go to the
  // candidate whose cost does not depend on x.
  if (densify_ok && (best < 0 || !(s.predicted[best] < -std::log2(margin))))
    s.kernel = gpu::Kernel::densify;
  else
    s.kernel = best < 0 ? gpu::Kernel::densify : static_cast<gpu::Kernel>(best);
  return s;
}

}  // namespace hola::spmspv
