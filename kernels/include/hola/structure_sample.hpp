// A sample of a CSR structure: row_ptr at kStructureSamples rows spread from 0 to rows and
// col_idx at kStructureSamples positions spread over the nonzeros. The Operator compares samples
// to notice that arrays at the same addresses, with the same sizes, now hold another structure
// (a caller that freed a matrix and allocated the next one of the same shape, without a new
// structure version): that must not reuse the old analysis.
#pragma once

#include <cstdint>
#include <vector>

namespace hola {

inline constexpr int kStructureSamples = 64;

#if defined(__CUDACC__)
#define HOLA_SAMPLE_HD __host__ __device__
#else
#define HOLA_SAMPLE_HD
#endif

// Position of sample k (0 <= k < kStructureSamples) in [0, n]: 0 and n included. Also called
// by the device kernel that takes the sample.
HOLA_SAMPLE_HD inline std::int64_t structure_sample_position(int k, std::int64_t n) {
  constexpr std::int64_t d = kStructureSamples - 1;  // floor(n k / d) without overflow
  return n <= 0 ? 0 : (n / d) * k + (n % d) * k / d;
}

// Host arrays.
template <class I, class O>
std::vector<std::int64_t> structure_sample(const O* row_ptr, const I* col_idx, std::int64_t rows,
                                           std::int64_t nnz);

namespace gpu {
// Device arrays: one tiny kernel on `stream`, read back (synchronises the stream). Builds
// without CUDA throw status::no_device.
template <class I, class O>
std::vector<std::int64_t> structure_sample_device(const O* row_ptr, const I* col_idx,
                                                  std::int64_t rows, std::int64_t nnz,
                                                  void* stream);
}  // namespace gpu

}  // namespace hola
