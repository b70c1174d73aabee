// gpu::device_structure_stats: the selector's column-structure features from device CSR arrays
// (features.hpp has the definitions and the CPU version they must equal).
#include <thrust/iterator/counting_iterator.h>
#include <cub/device/device_reduce.cuh>

#include <cstdint>

#include "common/cuda_utils.cuh"
#include "hola/detail/instantiate.hpp"
#include "hola/features.hpp"

namespace hola::gpu {

namespace {

struct StructureSums {
  unsigned long long group_slots;
  unsigned long long row_near;
  unsigned long long neighbor_near;
  unsigned long long neighbor_mid;
};

struct AddSums {
  __host__ __device__ StructureSums operator()(const StructureSums& a,
                                               const StructureSums& b) const {
    return {a.group_slots + b.group_slots, a.row_near + b.row_near,
            a.neighbor_near + b.neighbor_near, a.neighbor_mid + b.neighbor_mid};
  }
};

// Group g of kStructureGroupRows rows -> (rows in it) x (its longest row).
template <class O>
struct GroupSlots {
  const O* row_ptr;
  std::int64_t rows;
  __host__ __device__ StructureSums operator()(std::int64_t g) const {
    const std::int64_t first = g * StructureStats::kStructureGroupRows;
    const std::int64_t last = first + StructureStats::kStructureGroupRows < rows
                                  ? first + StructureStats::kStructureGroupRows
                                  : rows;
    std::int64_t longest = 0;
    std::int64_t begin = static_cast<std::int64_t>(row_ptr[first]);
    for (std::int64_t r = first; r < last; ++r) {
      const std::int64_t end = static_cast<std::int64_t>(row_ptr[r + 1]);
      longest = end - begin > longest ? end - begin : longest;
      begin = end;
    }
    return {static_cast<unsigned long long>((last - first) * longest), 0, 0, 0};
  }
};

// Nonzero j -> its row (binary search: the row r with row_ptr[r] <= j < row_ptr[r + 1]) and
// the comparisons with the previous nonzero of the row and with the row above.
template <class I, class O>
struct NonzeroLocality {
  const O* row_ptr;
  const I* col_idx;
  std::int64_t rows;
  __host__ __device__ StructureSums operator()(std::int64_t j) const {
    std::int64_t lo = 0, hi = rows;  // row_ptr[lo] <= j < row_ptr[hi]
    while (hi - lo > 1) {
      const std::int64_t mid = lo + (hi - lo) / 2;
      if (static_cast<std::int64_t>(row_ptr[mid]) <= j)
        lo = mid;
      else
        hi = mid;
    }
    const std::int64_t begin = static_cast<std::int64_t>(row_ptr[lo]);
    const std::int64_t c = static_cast<std::int64_t>(col_idx[j]);
    StructureSums s{0, 0, 0, 0};
    if (j > begin)
      s.row_near = detail::columns_within(c, static_cast<std::int64_t>(col_idx[j - 1]),
                                          StructureStats::kNearColumns);
    if (lo > 0) {
      const std::int64_t above = static_cast<std::int64_t>(row_ptr[lo - 1]);
      if (j - begin < begin - above) {
        const std::int64_t a = static_cast<std::int64_t>(col_idx[above + (j - begin)]);
        s.neighbor_near = detail::columns_within(c, a, StructureStats::kNearColumns);
        s.neighbor_mid = detail::columns_within(c, a, StructureStats::kMidColumns);
      }
    }
    return s;
  }
};

}  // namespace

template <class I, class O>
StructureStats device_structure_stats(const O* row_ptr, const I* col_idx, std::int64_t rows,
                                      std::int64_t nnz, void* stream) {
  StructureStats result;
  if (rows <= 0) return result;
  const cudaStream_t s = cuda::as_stream(stream);
  const std::int64_t groups =
      (rows + StructureStats::kStructureGroupRows - 1) / StructureStats::kStructureGroupRows;
  const thrust::counting_iterator<std::int64_t> items(0);
  const StructureSums zero{0, 0, 0, 0};
  const GroupSlots<O> per_group{row_ptr, rows};
  const NonzeroLocality<I, O> per_nonzero{row_ptr, col_idx, rows};

  std::size_t group_bytes = 0, nonzero_bytes = 0;
  HOLA_CUDA_CHECK(cub::DeviceReduce::TransformReduce(nullptr, group_bytes, items,
                                                     static_cast<StructureSums*>(nullptr), groups,
                                                     AddSums{}, per_group, zero, s));
  if (nnz > 0)
    HOLA_CUDA_CHECK(cub::DeviceReduce::TransformReduce(nullptr, nonzero_bytes, items,
                                                       static_cast<StructureSums*>(nullptr), nnz,
                                                       AddSums{}, per_nonzero, zero, s));
  const std::size_t temp_bytes =
      ((group_bytes > nonzero_bytes ? group_bytes : nonzero_bytes) + 255) / 256 * 256;
  cuda::StreamScratch scratch(temp_bytes + 2 * sizeof(StructureSums), s);
  char* temp = scratch.as<char>();
  auto* d_sums = reinterpret_cast<StructureSums*>(temp + temp_bytes);
  std::size_t bytes = temp_bytes;
  HOLA_CUDA_CHECK(cub::DeviceReduce::TransformReduce(temp, bytes, items, d_sums, groups, AddSums{},
                                                     per_group, zero, s));
  StructureSums sums[2] = {zero, zero};
  if (nnz > 0) {
    bytes = temp_bytes;
    HOLA_CUDA_CHECK(cub::DeviceReduce::TransformReduce(temp, bytes, items, d_sums + 1, nnz,
                                                       AddSums{}, per_nonzero, zero, s));
  }
  HOLA_CUDA_CHECK(cudaMemcpyAsync(sums, d_sums, (nnz > 0 ? 2 : 1) * sizeof(StructureSums),
                                  cudaMemcpyDeviceToHost, s));
  HOLA_CUDA_CHECK(cudaStreamSynchronize(s));

  result.nnz = nnz;
  result.group_slots = static_cast<std::int64_t>(sums[0].group_slots);
  result.row_near = static_cast<std::int64_t>(sums[1].row_near);
  result.neighbor_near = static_cast<std::int64_t>(sums[1].neighbor_near);
  result.neighbor_mid = static_cast<std::int64_t>(sums[1].neighbor_mid);
  return result;
}

#define HOLA_INSTANTIATE_STRUCTURE(I, O)                                                 \
  template StructureStats device_structure_stats<I, O>(const O*, const I*, std::int64_t, \
                                                       std::int64_t, void*);
HOLA_FOR_EACH_INDEX_OFFSET(HOLA_INSTANTIATE_STRUCTURE)
#undef HOLA_INSTANTIATE_STRUCTURE

}  // namespace hola::gpu
