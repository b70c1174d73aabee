// The column index of a CSR structure: A's entries in column-major order, each as its CSR slot
// (`position`) and its row (`row_idx`), with column offsets (`col_ptr`). Built on the device by a
// stable CUB radix sort of the column indices carrying the slots, so the entries of a column stay
// in row order. It holds no values: a reader takes A.values[position[k]], so new values with the
// same structure need nothing rebuilt. Used by the SpMSpV column view (which copies the values
// through it) and by the row kernels' one-launch op T for small matrices. Internal header.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <cub/device/device_radix_sort.cuh>

#include "common/cuda_utils.cuh"

namespace hola::cuda {

namespace column_index_detail {

constexpr int kBlock = 256;

inline unsigned blocks_for(std::int64_t n, int max_blocks) {
  std::int64_t b = (n + kBlock - 1) / kBlock;
  if (b < 1) b = 1;
  if (b > max_blocks) b = max_blocks;
  return static_cast<unsigned>(b);
}

// Bits needed for values 0 .. n - 1 (the radix sort's end bit), at most I's width.
template <class I>
int key_bits(std::int64_t n) {
  int b = 1;
  while (b < static_cast<int>(sizeof(I) * 8) && (std::int64_t(1) << b) < n) ++b;
  return b;
}

// a[i] = i: the CSR slots the sort carries.
template <class O>
__global__ void iota_kernel(O* a, std::int64_t n) {
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x)
    a[i] = static_cast<O>(i);
}

// col_ptr[j] = number of sorted column indices < j, j = 0 .. cols.
template <class I, class O>
__global__ void column_offsets_kernel(const I* sorted_cols, std::int64_t nnz, std::int64_t cols,
                                      O* col_ptr) {
  for (std::int64_t j = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; j <= cols;
       j += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    std::int64_t lo = 0, hi = nnz;  // first slot with a column >= j
    while (lo < hi) {
      const std::int64_t mid = lo + (hi - lo) / 2;
      if (static_cast<std::int64_t>(sorted_cols[mid]) < j)
        lo = mid + 1;
      else
        hi = mid;
    }
    col_ptr[j] = static_cast<O>(lo);
  }
}

// row_idx[k] = the row holding CSR slot position[k] (binary search in A's row offsets).
template <class I, class O>
__global__ void entry_rows_kernel(std::int64_t nnz, const O* position, const O* row_ptr,
                                  std::int64_t rows, I* row_idx) {
  for (std::int64_t k = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; k < nnz;
       k += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    row_idx[k] = static_cast<I>(row_of_slot(row_ptr, rows, static_cast<std::int64_t>(position[k])));
  }
}

}  // namespace column_index_detail

// Memory: (cols + 1 + nnz) sizeof(O) + nnz sizeof(I); the build borrows nnz (sizeof(I) +
// sizeof(O)) bytes more plus CUB's scratch, in stream order.
template <class I, class O>
class ColumnIndex {
 public:
  // A's structure in device memory, valid; A's rows must fit I (they become row_idx). Queued on
  // `stream` without synchronising it (the caller synchronises before relying on the arrays'
  // contents from the host, and stream order covers kernels on the same stream).
  void build(const O* row_ptr, const I* col_idx, std::int64_t rows, std::int64_t cols,
             std::int64_t nnz, cudaStream_t stream) {
    using namespace column_index_detail;
    const std::size_t un = static_cast<std::size_t>(nnz > 0 ? nnz : 1);
    col_ptr_.resize(static_cast<std::size_t>(cols + 1) * sizeof(O));
    row_idx_.resize(un * sizeof(I));
    position_.resize(un * sizeof(O));
    cols_ = cols;
    nnz_ = nnz;
    if (nnz == 0) {
      HOLA_CUDA_CHECK(cudaMemsetAsync(col_ptr_.get(), 0,
                                      static_cast<std::size_t>(cols + 1) * sizeof(O), stream));
      return;
    }
    const int blocks_max = current_device_info().sm_count * 8;
    StreamScratch keys(un * sizeof(I), stream), slots(un * sizeof(O), stream);
    iota_kernel<<<blocks_for(nnz, blocks_max), kBlock, 0, stream>>>(slots.as<O>(), nnz);
    HOLA_CUDA_CHECK_LAUNCH("iota");
    std::size_t temp_bytes = 0;
    const int end_bit = key_bits<I>(cols);
    HOLA_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, temp_bytes, col_idx, keys.as<I>(),
                                                    slots.as<O>(), position(), nnz, 0, end_bit,
                                                    stream));
    StreamScratch temp(temp_bytes > 0 ? temp_bytes : 1, stream);
    HOLA_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(temp.as<void>(), temp_bytes, col_idx,
                                                    keys.as<I>(), slots.as<O>(), position(), nnz, 0,
                                                    end_bit, stream));
    column_offsets_kernel<<<blocks_for(cols + 1, blocks_max), kBlock, 0, stream>>>(
        keys.as<I>(), nnz, cols, col_ptr());
    HOLA_CUDA_CHECK_LAUNCH("column_offsets");
    entry_rows_kernel<<<blocks_for(nnz, blocks_max), kBlock, 0, stream>>>(nnz, position(), row_ptr,
                                                                          rows, row_idx());
    HOLA_CUDA_CHECK_LAUNCH("entry_rows");
  }

  O* col_ptr() const { return col_ptr_.as<O>(); }
  I* row_idx() const { return row_idx_.as<I>(); }
  O* position() const { return position_.as<O>(); }
  std::int64_t cols() const { return cols_; }
  std::int64_t nnz() const { return nnz_; }
  std::size_t bytes() const { return col_ptr_.bytes() + row_idx_.bytes() + position_.bytes(); }

 private:
  DeviceBuffer col_ptr_, row_idx_, position_;
  std::int64_t cols_ = 0, nnz_ = 0;
};

}  // namespace hola::cuda
