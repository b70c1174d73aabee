// gpu::device_structure_stats: the selector's column-structure features from device CSR arrays
// (features.hpp has the definitions and the CPU version they must equal).
#include <thrust/iterator/counting_iterator.h>
#include <cub/block/block_reduce.cuh>
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
  unsigned long long neighbor_same;
};

struct AddSums {
  __host__ __device__ StructureSums operator()(const StructureSums& a,
                                               const StructureSums& b) const {
    return {a.group_slots + b.group_slots, a.row_near + b.row_near,
            a.neighbor_near + b.neighbor_near, a.neighbor_mid + b.neighbor_mid,
            a.neighbor_same + b.neighbor_same};
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
    return {static_cast<unsigned long long>((last - first) * longest), 0, 0, 0, 0};
  }
};

// The comparisons of nonzero j (in row r, which starts at `begin` and ends at `end`; row r - 1
// starts at `above`) with the previous nonzero of its row and with the same position of the row
// above.
template <class I>
__device__ void add_locality(const I* __restrict__ col_idx, std::int64_t j, std::int64_t r,
                             std::int64_t begin, std::int64_t end, std::int64_t above,
                             StructureSums& s) {
  const std::int64_t c = static_cast<std::int64_t>(col_idx[j]);
  if (j > begin)
    s.row_near += detail::columns_within(c, static_cast<std::int64_t>(col_idx[j - 1]),
                                         StructureStats::kNearColumns);
  if (r > 0 && j - begin < begin - above) {
    const std::int64_t a = static_cast<std::int64_t>(col_idx[above + (j - begin)]);
    s.neighbor_near += detail::columns_within(c, a, StructureStats::kNearColumns);
    s.neighbor_mid += detail::columns_within(c, a, StructureStats::kMidColumns);
    s.neighbor_same += end - begin == begin - above && c == a;
  }
}

constexpr int kLocalityThreads = 256;
constexpr int kNonzerosPerThread = 16;

// Each thread takes kNonzerosPerThread consecutive nonzeros: one binary search for the row of
// the first, then the row advances as the nonzeros cross row ends (the next row is tried first,
// a search only past empty rows). One search per nonzero made this pass the most expensive
// part of `auto`'s setup.
template <class I, class O>
__global__ void __launch_bounds__(kLocalityThreads)
    locality_kernel(const O* __restrict__ row_ptr, const I* __restrict__ col_idx, std::int64_t rows,
                    std::int64_t nnz, StructureSums* out) {
  StructureSums mine{0, 0, 0, 0, 0};
  const std::int64_t chunks = (nnz + kNonzerosPerThread - 1) / kNonzerosPerThread;
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t chunk = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
       chunk < chunks; chunk += stride) {
    std::int64_t j = chunk * kNonzerosPerThread;
    const std::int64_t last = j + kNonzerosPerThread < nnz ? j + kNonzerosPerThread : nnz;
    std::int64_t r = cuda::row_of_slot(row_ptr, rows, j);
    std::int64_t begin = static_cast<std::int64_t>(row_ptr[r]);
    std::int64_t end = static_cast<std::int64_t>(row_ptr[r + 1]);
    std::int64_t above = r > 0 ? static_cast<std::int64_t>(row_ptr[r - 1]) : 0;
    for (; j < last; ++j) {
      if (j >= end) {
        // j == end: row r + 1 holds it unless empty rows follow.
        r = static_cast<std::int64_t>(row_ptr[r + 2]) > j
                ? r + 1
                : cuda::row_of_slot(row_ptr, rows, j, r + 1);
        above = static_cast<std::int64_t>(row_ptr[r - 1]);
        begin = static_cast<std::int64_t>(row_ptr[r]);
        end = static_cast<std::int64_t>(row_ptr[r + 1]);
      }
      add_locality(col_idx, j, r, begin, end, above, mine);
    }
  }
  using Reduce = cub::BlockReduce<unsigned long long, kLocalityThreads>;
  __shared__ typename Reduce::TempStorage temp;
  const unsigned long long near_sum = Reduce(temp).Sum(mine.row_near);
  __syncthreads();
  const unsigned long long neighbor_near_sum = Reduce(temp).Sum(mine.neighbor_near);
  __syncthreads();
  const unsigned long long neighbor_mid_sum = Reduce(temp).Sum(mine.neighbor_mid);
  __syncthreads();
  const unsigned long long neighbor_same_sum = Reduce(temp).Sum(mine.neighbor_same);
  if (threadIdx.x == 0) {
    atomicAdd(&out->row_near, near_sum);
    atomicAdd(&out->neighbor_near, neighbor_near_sum);
    atomicAdd(&out->neighbor_mid, neighbor_mid_sum);
    atomicAdd(&out->neighbor_same, neighbor_same_sum);
  }
}

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
  const StructureSums zero{0, 0, 0, 0, 0};
  const GroupSlots<O> per_group{row_ptr, rows};

  std::size_t group_bytes = 0;
  HOLA_CUDA_CHECK(cub::DeviceReduce::TransformReduce(nullptr, group_bytes, items,
                                                     static_cast<StructureSums*>(nullptr), groups,
                                                     AddSums{}, per_group, zero, s));
  const std::size_t temp_bytes = (group_bytes + 255) / 256 * 256;
  cuda::StreamScratch scratch(temp_bytes + 2 * sizeof(StructureSums), s);
  char* temp = scratch.as<char>();
  auto* d_sums = reinterpret_cast<StructureSums*>(temp + temp_bytes);
  std::size_t bytes = temp_bytes;
  HOLA_CUDA_CHECK(cub::DeviceReduce::TransformReduce(temp, bytes, items, d_sums, groups, AddSums{},
                                                     per_group, zero, s));
  StructureSums sums[2] = {zero, zero};
  if (nnz > 0) {
    HOLA_CUDA_CHECK(cudaMemsetAsync(d_sums + 1, 0, sizeof(StructureSums), s));
    const auto& info = cuda::current_device_info();
    const std::int64_t chunks = (nnz + kNonzerosPerThread - 1) / kNonzerosPerThread;
    const std::int64_t blocks_needed = (chunks + kLocalityThreads - 1) / kLocalityThreads;
    const std::int64_t blocks_max = 8LL * (info.sm_count > 0 ? info.sm_count : 1);
    const int blocks = static_cast<int>(blocks_needed < blocks_max ? blocks_needed : blocks_max);
    locality_kernel<I, O>
        <<<blocks, kLocalityThreads, 0, s>>>(row_ptr, col_idx, rows, nnz, d_sums + 1);
    HOLA_CUDA_CHECK_LAUNCH("locality_kernel");
  }
  HOLA_CUDA_CHECK(cudaMemcpyAsync(sums, d_sums, (nnz > 0 ? 2 : 1) * sizeof(StructureSums),
                                  cudaMemcpyDeviceToHost, s));
  HOLA_CUDA_CHECK(cudaStreamSynchronize(s));

  result.nnz = nnz;
  result.group_slots = static_cast<std::int64_t>(sums[0].group_slots);
  result.row_near = static_cast<std::int64_t>(sums[1].row_near);
  result.neighbor_near = static_cast<std::int64_t>(sums[1].neighbor_near);
  result.neighbor_mid = static_cast<std::int64_t>(sums[1].neighbor_mid);
  result.neighbor_same = static_cast<std::int64_t>(sums[1].neighbor_same);
  return result;
}

#define HOLA_INSTANTIATE_STRUCTURE(I, O)                                                 \
  template StructureStats device_structure_stats<I, O>(const O*, const I*, std::int64_t, \
                                                       std::int64_t, void*);
HOLA_FOR_EACH_INDEX_OFFSET(HOLA_INSTANTIATE_STRUCTURE)
#undef HOLA_INSTANTIATE_STRUCTURE

}  // namespace hola::gpu
