#include "stress_engine.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <cub/device/device_scan.cuh>
#include <limits>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <type_traits>

#include "hola/error.hpp"
#include "hola/hola.h"
#include "hola/operator.hpp"
#include "hola/registry.hpp"

namespace hola::stress {

namespace {

#define STRESS_CUDA(call)                                                                  \
  do {                                                                                     \
    cudaError_t e_ = (call);                                                               \
    if (e_ != cudaSuccess)                                                                 \
      throw std::runtime_error(std::string(#call) + ": " + cudaGetErrorString(e_) + " (" + \
                               __FILE__ + ":" + std::to_string(__LINE__) + ")");           \
  } while (0)

// ---------------------------------------------------------------------------------------------
// Device-side formulas of a MatrixSpec.

struct DeviceSpec {
  std::int64_t rows, cols, len, empty_run, huge_row, huge_len, nx, band;
  double empty_fraction;
  int dist;
  int reversed;
  int shuffled;
  int duplicates;
  std::uint64_t seed;
};

__host__ __device__ inline std::uint64_t mix64(std::uint64_t z) {
  z += 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}
__host__ __device__ inline std::uint64_t hash3(std::uint64_t seed, std::uint64_t a,
                                               std::uint64_t b) {
  return mix64(seed ^ mix64(a * 0x632be59bd9b4e019ull ^ mix64(b + 0x2545f4914f6cdd1dull)));
}
__host__ __device__ inline double unit(std::uint64_t h) {
  return static_cast<double>(h >> 11) * (1.0 / 9007199254740992.0);
}
// Uniform in [-1, 1] away from 0 (zeros would hide unwritten or misplaced products).
__host__ __device__ inline double signed_value(std::uint64_t h) {
  const double v = 2.0 * unit(h) - 1.0;
  return fabs(v) < 1e-3 ? 0.5 : v;
}

__device__ std::int64_t stencil_length(const DeviceSpec& s, std::int64_t r) {
  const std::int64_t ny = s.rows / s.nx;
  const std::int64_t ix = r % s.nx, iy = r / s.nx;
  (void)ny;
  return 1 + (ix > 0) + (ix + 1 < s.nx) + (iy > 0) + (iy + 1 < s.rows / s.nx);
}

// Columns a random row draws from: the band's, or all.
__device__ std::int64_t band_width(const DeviceSpec& s) {
  return s.band > 0 && 2 * s.band + 1 < s.cols ? 2 * s.band + 1 : s.cols;
}

// First column of row r's band: r cols / rows - band, kept inside [0, cols - width].
__device__ std::int64_t band_start(const DeviceSpec& s, std::int64_t r) {
  const std::int64_t width = band_width(s);
  if (width == s.cols) return 0;
  const auto centre = static_cast<std::int64_t>(
      (static_cast<unsigned __int128>(r) * static_cast<unsigned __int128>(s.cols)) /
      static_cast<unsigned __int128>(s.rows));
  const std::int64_t first = centre - s.band;
  return first < 0 ? 0 : (first > s.cols - width ? s.cols - width : first);
}

__device__ std::int64_t row_length(const DeviceSpec& s, std::int64_t r) {
  if (r == s.huge_row) return s.huge_len < s.cols ? s.huge_len : s.cols;
  if (s.dist == static_cast<int>(RowDist::stencil5)) return stencil_length(s, r);
  if (s.empty_fraction > 0 &&
      unit(hash3(s.seed, static_cast<std::uint64_t>(r / s.empty_run), 11)) < s.empty_fraction)
    return 0;
  const std::uint64_t h = hash3(s.seed, static_cast<std::uint64_t>(r), 12);
  std::int64_t L = 0;
  switch (static_cast<RowDist>(s.dist)) {
    case RowDist::constant:
      L = s.len;
      break;
    case RowDist::uniform:
      L = static_cast<std::int64_t>(h % static_cast<std::uint64_t>(s.len + 1));
      break;
    case RowDist::power_law: {
      const double u = unit(h);
      const double l = floor(pow(1.0 - u, -1.0 / 1.5));
      L = l > static_cast<double>(s.len) ? s.len : static_cast<std::int64_t>(l);
      if (L < 1) L = 1;
      break;
    }
    case RowDist::bimodal:
      L = unit(hash3(s.seed, static_cast<std::uint64_t>(r), 13)) < 0.9
              ? 1 + static_cast<std::int64_t>(h % 4)
              : s.len;
      break;
    default:
      L = 0;
  }
  const std::int64_t width = band_width(s);
  return L < width ? L : width;
}

// Column and value of the j-th nonzero (of L) of row r. Random rows: one column drawn in each of
// L equal strata of [0, cols), so the columns are distinct and ascending (descending in odd
// rows when reversed).
__device__ void entry(const DeviceSpec& s, std::int64_t r, std::int64_t j, std::int64_t L,
                      std::int64_t* col, double* val) {
  if (s.reversed && (r & 1)) j = L - 1 - j;
  if (s.shuffled && L > 1) {
    // j -> (a j + b) mod L with a coprime to L: a permutation of the row's positions.
    const std::uint64_t h = hash3(s.seed, static_cast<std::uint64_t>(r), 14);
    const int primes[] = {3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47};
    std::int64_t a = 1;
    for (int p : primes)
      if (L % p != 0) {
        a = p;
        break;
      }
    const std::int64_t b = static_cast<std::int64_t>(h % static_cast<std::uint64_t>(L));
    j = static_cast<std::int64_t>(
        (static_cast<unsigned __int128>(a) * static_cast<unsigned __int128>(j) + b) %
        static_cast<unsigned __int128>(L));
  }
  if (s.dist == static_cast<int>(RowDist::stencil5) && r != s.huge_row) {
    const std::int64_t ix = r % s.nx, iy = r / s.nx;
    std::int64_t c[5];
    int n = 0;
    if (iy > 0) c[n++] = r - s.nx;
    if (ix > 0) c[n++] = r - 1;
    c[n++] = r;
    if (ix + 1 < s.nx) c[n++] = r + 1;
    if (iy + 1 < s.rows / s.nx) c[n++] = r + s.nx;
    *col = c[j];
    *val = c[j] == r ? 4.0 : -1.0;
    return;
  }
  if (s.duplicates) {
    const std::uint64_t h =
        hash3(s.seed ^ 0x3c6ef372u, static_cast<std::uint64_t>(r), static_cast<std::uint64_t>(j));
    *col =
        band_start(s, r) + static_cast<std::int64_t>(h % static_cast<std::uint64_t>(band_width(s)));
    *val = signed_value(mix64(h));
    return;
  }
  // lo = floor(j width / L) without overflow for width, L < 2^62 / 2^31; the strata span the
  // row's band (every column without one).
  const std::int64_t width = r == s.huge_row ? s.cols : band_width(s);
  const std::int64_t first = r == s.huge_row ? 0 : band_start(s, r);
  const auto lo = static_cast<std::int64_t>(
      (static_cast<unsigned __int128>(j) * static_cast<unsigned __int128>(width)) /
      static_cast<unsigned __int128>(L));
  const auto hi = static_cast<std::int64_t>(
      (static_cast<unsigned __int128>(j + 1) * static_cast<unsigned __int128>(width)) /
      static_cast<unsigned __int128>(L));
  const std::uint64_t h =
      hash3(s.seed ^ 0x5bd1e995u, static_cast<std::uint64_t>(r), static_cast<std::uint64_t>(j));
  *col = first + lo + static_cast<std::int64_t>(h % static_cast<std::uint64_t>(hi - lo));
  *val = signed_value(mix64(h));
}

__global__ void lengths_kernel(DeviceSpec s, std::int64_t* len) {
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t r = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
       r <= s.rows; r += stride)
    len[r] = r < s.rows ? row_length(s, r) : 0;
}

template <class O>
__global__ void narrow_offsets_kernel(const std::int64_t* in, std::int64_t n, O* out) {
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += stride)
    out[i] = static_cast<O>(in[i]);
}

// Row holding nonzero k: the last r with row_ptr[r] <= k.
template <class O>
__device__ std::int64_t row_of(const O* row_ptr, std::int64_t rows, std::int64_t k) {
  std::int64_t lo = 0, hi = rows;  // row_ptr[lo] <= k < row_ptr[hi]
  while (hi - lo > 1) {
    const std::int64_t mid = lo + (hi - lo) / 2;
    if (static_cast<std::int64_t>(row_ptr[mid]) <= k)
      lo = mid;
    else
      hi = mid;
  }
  return lo;
}

template <class V, class I, class O>
__global__ void fill_kernel(DeviceSpec s, const O* row_ptr, std::int64_t nnz, I* col_idx,
                            V* values) {
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t k = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; k < nnz;
       k += stride) {
    const std::int64_t r = row_of(row_ptr, s.rows, k);
    const std::int64_t a = row_ptr[r], L = static_cast<std::int64_t>(row_ptr[r + 1]) - a;
    std::int64_t c;
    double v;
    entry(s, r, k - a, L, &c, &v);
    col_idx[k] = static_cast<I>(c);
    values[k] = static_cast<V>(v);
  }
}

template <class V>
__global__ void random_vector_kernel(std::uint64_t seed, std::int64_t n, V* v) {
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += stride)
    v[i] = static_cast<V>(signed_value(hash3(seed, static_cast<std::uint64_t>(i), 99)));
}

// Reference, op N: one thread per row, double, row order.
template <class V, class I, class O>
__global__ void reference_n_kernel(std::int64_t rows, const O* row_ptr, const I* col_idx,
                                   const V* values, const V* x, double* sum, double* abs_sum,
                                   double* count) {
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t r = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; r < rows;
       r += stride) {
    double s = 0, a = 0;
    const std::int64_t b = row_ptr[r], e = row_ptr[r + 1];
    for (std::int64_t k = b; k < e; ++k) {
      const double p = static_cast<double>(values[k]) * static_cast<double>(x[col_idx[k]]);
      s += p;
      a += fabs(p);
    }
    sum[r] = s;
    abs_sum[r] = a;
    count[r] = static_cast<double>(e - b);
  }
}

// Reference, op T: one thread per nonzero, double atomics into the column's entry.
template <class V, class I, class O>
__global__ void reference_t_kernel(std::int64_t rows, std::int64_t nnz, const O* row_ptr,
                                   const I* col_idx, const V* values, const V* x, double* sum,
                                   double* abs_sum, double* count) {
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t k = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; k < nnz;
       k += stride) {
    const std::int64_t r = row_of(row_ptr, rows, k);
    const std::int64_t c = col_idx[k];
    const double p = static_cast<double>(values[k]) * static_cast<double>(x[r]);
    atomicAdd(sum + c, p);
    atomicAdd(abs_sum + c, fabs(p));
    atomicAdd(count + c, 1.0);
  }
}

__device__ inline bool same_bits(float a, float b) {
  return __float_as_uint(a) == __float_as_uint(b);
}
__device__ inline bool same_bits(double a, double b) {
  return __double_as_longlong(a) == __double_as_longlong(b);
}

struct Verdict {
  unsigned long long bad;
  unsigned long long first_bad;
  unsigned long long guard_bad;
};

// |y - (alpha s + beta y_in)| <= eps (16 + 4 sqrt(len)) (|alpha| sum|a x| + |beta y_in|); NaN
// fails. The guard past the end must keep its pattern.
template <class V>
__global__ void compare_kernel(std::int64_t n, const V* y, const V* y_in, double alpha, double beta,
                               const double* sum, const double* abs_sum, const double* count,
                               std::int64_t guard, V guard_value, double eps, Verdict* verdict) {
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
       i < n + guard; i += stride) {
    if (i >= n) {
      if (!same_bits(y[i], guard_value)) atomicAdd(&verdict->guard_bad, 1ull);
      continue;
    }
    const double yin = beta != 0 ? static_cast<double>(y_in[i]) : 0.0;
    const double want = alpha * sum[i] + beta * yin;
    const double scale = fabs(alpha) * abs_sum[i] + fabs(beta * yin);
    const double tol = eps * (16.0 + 4.0 * sqrt(count[i])) * scale;
    const double got = static_cast<double>(y[i]);
    if (!(fabs(got - want) <= tol)) {
      atomicAdd(&verdict->bad, 1ull);
      atomicMin(&verdict->first_bad, static_cast<unsigned long long>(i));
    }
  }
}

unsigned grid_for(std::int64_t n) {
  const std::int64_t blocks = (n + 255) / 256;
  return static_cast<unsigned>(std::max<std::int64_t>(1, std::min<std::int64_t>(blocks, 65536)));
}

template <class T>
struct Buffer {
  T* ptr = nullptr;
  std::int64_t n = 0;
  explicit Buffer(std::int64_t count) : n(count) {
    STRESS_CUDA(cudaMalloc(reinterpret_cast<void**>(&ptr),
                           static_cast<std::size_t>(std::max<std::int64_t>(1, count)) * sizeof(T)));
  }
  ~Buffer() { cudaFree(ptr); }
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
};

DeviceSpec to_device(const MatrixSpec& m) {
  DeviceSpec s{};
  s.rows = m.rows;
  s.cols = m.cols;
  s.len = m.len;
  s.empty_run = std::max<std::int64_t>(1, m.empty_run);
  s.huge_row = m.huge_row;
  s.huge_len = m.huge_len;
  s.nx = m.nx;
  s.band = m.band;
  s.empty_fraction = m.empty_fraction;
  s.dist = static_cast<int>(m.dist);
  s.reversed = m.reversed ? 1 : 0;
  s.shuffled = m.shuffled ? 1 : 0;
  s.duplicates = m.duplicates ? 1 : 0;
  s.seed = m.seed;
  return s;
}

void check_spec(const MatrixSpec& m) {
  if (m.rows < 0 || m.cols < 0 || m.len < 0 || m.huge_len < 0 || m.band < 0)
    fail(status::invalid_argument, "stress spec: negative size in " + m.to_string());
  if (m.dist == RowDist::stencil5) {
    if (m.nx <= 0 || m.rows % m.nx != 0 || m.rows != m.cols)
      fail(status::invalid_argument, "stress spec: stencil5 needs nx > 0, rows = cols = nx * ny");
  }
}

// Row offsets (int64) of the spec, computed on the GPU.
std::unique_ptr<Buffer<std::int64_t>> offsets64(const MatrixSpec& m, std::int64_t* nnz) {
  check_spec(m);
  const DeviceSpec s = to_device(m);
  auto len = std::make_unique<Buffer<std::int64_t>>(m.rows + 1);
  lengths_kernel<<<grid_for(m.rows + 1), 256>>>(s, len->ptr);
  STRESS_CUDA(cudaGetLastError());
  auto off = std::make_unique<Buffer<std::int64_t>>(m.rows + 1);
  std::size_t temp_bytes = 0;
  STRESS_CUDA(cub::DeviceScan::ExclusiveSum(nullptr, temp_bytes, len->ptr, off->ptr, m.rows + 1));
  Buffer<unsigned char> temp(static_cast<std::int64_t>(temp_bytes));
  STRESS_CUDA(cub::DeviceScan::ExclusiveSum(temp.ptr, temp_bytes, len->ptr, off->ptr, m.rows + 1));
  STRESS_CUDA(cudaMemcpy(nnz, off->ptr + m.rows, sizeof(std::int64_t), cudaMemcpyDeviceToHost));
  return off;
}

template <class V>
V nan_pattern() {
  V v;
  std::memset(&v, 0xff, sizeof(V));  // the bytes cudaMemset(0xff) writes: a NaN
  return v;
}

template <class V, class I, class O>
class Case {
 public:
  Case(const MatrixSpec& spec, std::int64_t nnz, const Buffer<std::int64_t>& off64, bool async_fill)
      : spec_(spec),
        nnz_(nnz),
        nvec_(std::max(spec.rows, spec.cols)),
        row_ptr_(spec.rows + 2),
        col_idx_(nnz + 1),
        values_(nnz + 1),
        rp_(row_ptr_.ptr + (spec.misaligned ? 1 : 0)),
        ci_(col_idx_.ptr + (spec.misaligned ? 1 : 0)),
        va_(values_.ptr + (spec.misaligned ? 1 : 0)),
        x_(nvec_),
        y_in_(nvec_),
        y_(nvec_ + kGuard),
        sum_(nvec_),
        abs_(nvec_),
        count_(nvec_),
        verdict_(1) {
    STRESS_CUDA(cudaStreamCreateWithFlags(&non_blocking_, cudaStreamNonBlocking));
    STRESS_CUDA(cudaDeviceSynchronize());  // the int64 offsets are ready
    // async_fill: the arrays are written on the non-blocking stream and left in flight.
    const cudaStream_t s = async_fill ? non_blocking_ : nullptr;
    narrow_offsets_kernel<O><<<grid_for(spec.rows + 1), 256, 0, s>>>(off64.ptr, spec.rows + 1, rp_);
    fill_kernel<V, I, O><<<grid_for(nnz), 256, 0, s>>>(to_device(spec), rp_, nnz, ci_, va_);
    STRESS_CUDA(cudaGetLastError());
    if (!async_fill) STRESS_CUDA(cudaDeviceSynchronize());
  }
  cudaStream_t stream() const { return non_blocking_; }
  ~Case() { cudaStreamDestroy(non_blocking_); }

  CsrView<V, I, O> view() const {
    return {spec_.rows, spec_.cols, nnz_, rp_, ci_, va_, Memory::device};
  }

  // Fresh x and y_in for op, and the reference sums of A x or A^T x.
  void prepare(Op op, std::uint64_t seed) {
    const std::int64_t nx = op == Op::N ? spec_.cols : spec_.rows;
    const std::int64_t ny = op == Op::N ? spec_.rows : spec_.cols;
    random_vector_kernel<V><<<grid_for(nx), 256>>>(seed, nx, x_.ptr);
    random_vector_kernel<V><<<grid_for(ny), 256>>>(seed + 1, ny, y_in_.ptr);
    if (op == Op::N) {
      reference_n_kernel<V, I, O><<<grid_for(spec_.rows), 256>>>(spec_.rows, rp_, ci_, va_, x_.ptr,
                                                                 sum_.ptr, abs_.ptr, count_.ptr);
    } else {
      STRESS_CUDA(cudaMemset(sum_.ptr, 0, sizeof(double) * std::max<std::int64_t>(1, ny)));
      STRESS_CUDA(cudaMemset(abs_.ptr, 0, sizeof(double) * std::max<std::int64_t>(1, ny)));
      STRESS_CUDA(cudaMemset(count_.ptr, 0, sizeof(double) * std::max<std::int64_t>(1, ny)));
      reference_t_kernel<V, I, O><<<grid_for(nnz_), 256>>>(spec_.rows, nnz_, rp_, ci_, va_, x_.ptr,
                                                           sum_.ptr, abs_.ptr, count_.ptr);
    }
    STRESS_CUDA(cudaGetLastError());
    STRESS_CUDA(cudaDeviceSynchronize());
  }

  // Runs apply on y (poisoned, or a copy of y_in for in-place betas) and compares.
  template <class Apply>
  Failure check(Op op, double alpha, double beta, bool non_blocking, Apply&& apply) {
    const std::int64_t ny = op == Op::N ? spec_.rows : spec_.cols;
    cudaStream_t s = non_blocking ? non_blocking_ : nullptr;
    const bool in_place = beta != 0.0 && beta != 1.0;
    STRESS_CUDA(cudaMemsetAsync(y_.ptr, 0xff, sizeof(V) * (ny + kGuard), s));
    if (in_place)
      STRESS_CUDA(cudaMemcpyAsync(y_.ptr, y_in_.ptr, sizeof(V) * ny, cudaMemcpyDeviceToDevice, s));
    Failure f;
    try {
      apply(static_cast<V>(alpha), x_.ptr, static_cast<V>(beta),
            beta == 0.0 ? nullptr : (in_place ? y_.ptr : y_in_.ptr), y_.ptr, ny, s);
      STRESS_CUDA(cudaStreamSynchronize(s));
    } catch (const hola::error& e) {
      cudaStreamSynchronize(s);
      f.error = e.what();
      f.out_of_memory = e.code() == status::out_of_memory;
      return f;
    } catch (const std::exception& e) {
      cudaStreamSynchronize(s);
      f.error = e.what();
      return f;
    }
    Verdict init{0, std::numeric_limits<unsigned long long>::max(), 0};
    STRESS_CUDA(cudaMemcpy(verdict_.ptr, &init, sizeof(Verdict), cudaMemcpyHostToDevice));
    compare_kernel<V><<<grid_for(ny + kGuard), 256>>>(
        ny, y_.ptr, y_in_.ptr, alpha, beta, sum_.ptr, abs_.ptr, count_.ptr, kGuard,
        nan_pattern<V>(), static_cast<double>(std::numeric_limits<V>::epsilon()), verdict_.ptr);
    STRESS_CUDA(cudaGetLastError());
    Verdict v;
    STRESS_CUDA(cudaMemcpy(&v, verdict_.ptr, sizeof(Verdict), cudaMemcpyDeviceToHost));
    f.bad = static_cast<std::int64_t>(v.bad);
    if (v.guard_bad) {
      f.error = "wrote " + std::to_string(v.guard_bad) + " entries past the end of y";
    }
    if (v.bad) {
      f.first_bad = static_cast<std::int64_t>(v.first_bad);
      V got;
      double want_sum;
      STRESS_CUDA(cudaMemcpy(&got, y_.ptr + f.first_bad, sizeof(V), cudaMemcpyDeviceToHost));
      STRESS_CUDA(
          cudaMemcpy(&want_sum, sum_.ptr + f.first_bad, sizeof(double), cudaMemcpyDeviceToHost));
      f.got = static_cast<double>(got);
      f.want = alpha * want_sum;  // beta part left out: printed for orientation only
    }
    return f;
  }

 private:
  static constexpr std::int64_t kGuard = 64;
  MatrixSpec spec_;
  std::int64_t nnz_;
  std::int64_t nvec_;
  Buffer<O> row_ptr_;
  Buffer<I> col_idx_;
  Buffer<V> values_;
  O* rp_;  // the arrays the kernels see (one element in when misaligned)
  I* ci_;
  V* va_;
  Buffer<V> x_, y_in_, y_;
  Buffer<double> sum_, abs_, count_;
  Buffer<Verdict> verdict_;
  cudaStream_t non_blocking_ = nullptr;
};

template <class V>
constexpr hola_value_type c_value_type() {
  return std::is_same_v<V, float> ? HOLA_FLOAT32 : HOLA_FLOAT64;
}
template <class I>
constexpr hola_index_type c_index_type() {
  return sizeof(I) == 4 ? HOLA_INT32 : HOLA_INT64;
}

void c_check(hola_status s) {
  if (s != HOLA_SUCCESS)
    throw hola::error(static_cast<status>(s), std::string("C API: ") + hola_last_error());
}

template <class V, class I, class O>
void run_typed(const MatrixSpec& spec, const Buffer<std::int64_t>& off64, std::int64_t nnz,
               const std::vector<KernelRun>& runs, const CheckOptions& opt, CaseResult& result) {
  Case<V, I, O> c(spec, nnz, off64, opt.setup_on_stream);
  void* const setup_stream = opt.setup_on_stream ? c.stream() : nullptr;
  const CsrView<V, I, O> A = c.view();
  // One operator per run, set up once: every check after the first is a repeated apply.
  struct Prepared {
    KernelRun run;
    std::unique_ptr<Operator<V, I, O>> op;
    hola_operator c_op = nullptr;
    std::string refused;
  };
  std::vector<Prepared> prepared;
  for (const KernelRun& run : runs) {
    Prepared p;
    p.run = run;
    try {
      if (run.c_api) {
        c_check(hola_operator_create(&p.c_op, c_value_type<V>(), c_index_type<I>(),
                                     c_index_type<O>(), run.kernel.c_str(), run.deterministic));
        c_check(hola_operator_setup_on_stream(p.c_op, A.rows, A.cols, A.nnz, A.row_ptr, A.col_idx,
                                              A.values, HOLA_MEMORY_DEVICE, 0, setup_stream));
        const char *n = nullptr, *t = nullptr;
        c_check(hola_operator_kernel_name(p.c_op, HOLA_OP_N, &n));
        std::string names = n ? n : "?";
        if (hola_operator_kernel_name(p.c_op, HOLA_OP_T, &t) == HOLA_SUCCESS && t)
          names += std::string(", ") + t;
        result.kernels.push_back(run.label() + " -> " + names);
      } else {
        OperatorOptions o;
        o.kernel = run.kernel;
        o.deterministic = run.deterministic;
        o.validate = opt.validate;
        p.op = std::make_unique<Operator<V, I, O>>(o);
        p.op->setup(A, 0, setup_stream);
        result.kernels.push_back(run.label() + " -> " + p.op->kernel_name(Op::N) + ", " +
                                 p.op->kernel_name(Op::T));
      }
    } catch (const std::exception& e) {
      p.refused = e.what();
      result.refusals.push_back(run.label() + ": " + e.what());
      if (p.c_op) hola_operator_destroy(p.c_op);
      p.c_op = nullptr;
      p.op.reset();
    }
    prepared.push_back(std::move(p));
  }
  STRESS_CUDA(cudaDeviceSynchronize());  // every setup has run; the fill is done by now
  std::uint64_t seed = spec.seed * 7919 + 17;
  for (Op op : opt.ops) {
    c.prepare(op, seed++);
    for (Prepared& p : prepared) {
      if (!p.refused.empty()) continue;
      if (op == Op::T && p.op && p.op->kernel_name(Op::T).empty()) continue;  // deterministic
      bool out_of_memory = false;
      for (double beta : opt.betas)
        for (int stream : opt.streams)
          for (int rep = 0; rep < opt.repeats && !out_of_memory; ++rep) {
            Failure f =
                c.check(op, opt.alpha, beta, stream == 1,
                        [&](V alpha, const V* x, V b, const V* y_in, V* y, std::int64_t ny,
                            cudaStream_t s) {
                          const std::int64_t nx = op == Op::N ? A.cols : A.rows;
                          if (p.c_op) {
                            c_check(hola_operator_apply(p.c_op, op == Op::N ? HOLA_OP_N : HOLA_OP_T,
                                                        &alpha, x, nx, &b, y_in, y, ny, s));
                          } else {
                            p.op->apply(op, alpha, {x, nx}, b, {y_in, y_in ? ny : 0}, {y, ny}, s);
                          }
                          if (opt.corrupt_output && ny > 0)
                            STRESS_CUDA(cudaMemsetAsync(y + ny / 2, 0x3f, sizeof(V), s));
                        });
            ++result.checks;
            if (f.bad == 0 && f.error.empty()) continue;
            if (f.out_of_memory && p.run.deterministic && op == Op::T) {
              // Not a wrong answer: the device cannot hold the column index that deterministic
              // op T builds at its first product, beside every other run's data. Reported as a
              // refusal; this run's remaining checks of the op are skipped. Anywhere else an
              // out-of-memory error is a failure (run F: a stale one reached a plain run).
              result.refusals.push_back(p.run.label() + " op " + op_name(op) + ": " + f.error);
              --result.checks;
              out_of_memory = true;
              continue;
            }
            std::ostringstream what;
            what << p.run.label() << " op " << op_name(op) << " beta " << beta
                 << (stream ? " non-blocking" : " default-stream") << " apply " << rep + 1;
            f.what = what.str();
            result.failures.push_back(f);
          }
    }
  }
  for (Prepared& p : prepared)
    if (p.c_op) hola_operator_destroy(p.c_op);
}

}  // namespace

std::string MatrixSpec::to_string() const {
  static const char* names[] = {"constant", "uniform", "power", "bimodal", "stencil5"};
  std::ostringstream s;
  s << "rows=" << rows << ",cols=" << cols << ",dist=" << names[static_cast<int>(dist)]
    << ",len=" << len;
  if (empty_fraction > 0) s << ",empty=" << empty_fraction << ",run=" << empty_run;
  if (huge_row >= 0) s << ",huge_row=" << huge_row << ",huge_len=" << huge_len;
  if (dist == RowDist::stencil5) s << ",nx=" << nx;
  if (band > 0) s << ",band=" << band;
  if (reversed) s << ",reversed=1";
  if (shuffled) s << ",shuffled=1";
  if (duplicates) s << ",duplicates=1";
  if (misaligned) s << ",misaligned=1";
  s << ",seed=" << seed;
  return s.str();
}

MatrixSpec MatrixSpec::parse(const std::string& text) {
  MatrixSpec m;
  std::istringstream in(text);
  std::string item;
  auto number = [&](const std::string& key, const std::string& v) -> double {
    try {
      std::size_t used = 0;
      const double d = std::stod(v, &used);
      if (used != v.size()) throw std::invalid_argument(v);
      return d;
    } catch (const std::exception&) {
      fail(status::invalid_argument, "stress spec: bad number '" + v + "' for " + key);
    }
  };
  while (std::getline(in, item, ',')) {
    const auto eq = item.find('=');
    if (eq == std::string::npos) fail(status::invalid_argument, "stress spec: no '=' in " + item);
    const std::string key = item.substr(0, eq), v = item.substr(eq + 1);
    if (key == "rows")
      m.rows = static_cast<std::int64_t>(number(key, v));
    else if (key == "cols")
      m.cols = static_cast<std::int64_t>(number(key, v));
    else if (key == "len")
      m.len = static_cast<std::int64_t>(number(key, v));
    else if (key == "empty")
      m.empty_fraction = number(key, v);
    else if (key == "run")
      m.empty_run = static_cast<std::int64_t>(number(key, v));
    else if (key == "huge_row")
      m.huge_row = static_cast<std::int64_t>(number(key, v));
    else if (key == "huge_len")
      m.huge_len = static_cast<std::int64_t>(number(key, v));
    else if (key == "nx")
      m.nx = static_cast<std::int64_t>(number(key, v));
    else if (key == "band")
      m.band = static_cast<std::int64_t>(number(key, v));
    else if (key == "reversed")
      m.reversed = number(key, v) != 0;
    else if (key == "shuffled")
      m.shuffled = number(key, v) != 0;
    else if (key == "duplicates")
      m.duplicates = number(key, v) != 0;
    else if (key == "misaligned")
      m.misaligned = number(key, v) != 0;
    else if (key == "seed")
      m.seed = static_cast<std::uint64_t>(number(key, v));
    else if (key == "dist") {
      if (v == "constant")
        m.dist = RowDist::constant;
      else if (v == "uniform")
        m.dist = RowDist::uniform;
      else if (v == "power")
        m.dist = RowDist::power_law;
      else if (v == "bimodal")
        m.dist = RowDist::bimodal;
      else if (v == "stencil5")
        m.dist = RowDist::stencil5;
      else
        fail(status::invalid_argument, "stress spec: unknown dist '" + v + "'");
    } else {
      fail(status::invalid_argument, "stress spec: unknown key '" + key + "'");
    }
  }
  check_spec(m);
  return m;
}

std::string TypeSpec::to_string() const {
  return std::string(is_double ? "double" : "float") + "," + std::to_string(index_bits) + "," +
         std::to_string(offset_bits);
}

TypeSpec TypeSpec::parse(const std::string& text) {
  TypeSpec t;
  char value[16] = {0};
  if (std::sscanf(text.c_str(), "%15[a-z],%d,%d", value, &t.index_bits, &t.offset_bits) != 3 ||
      (std::string(value) != "float" && std::string(value) != "double") ||
      (t.index_bits != 32 && t.index_bits != 64) || (t.offset_bits != 32 && t.offset_bits != 64))
    fail(status::invalid_argument,
         "types '" + text + "': expected float|double,32|64,32|64 (value, columns, offsets)");
  t.is_double = std::string(value) == "double";
  return t;
}

std::string KernelRun::label() const {
  return (c_api ? "C:" : "") + kernel + (deterministic ? "(deterministic)" : "");
}

std::int64_t count_nnz(const MatrixSpec& spec) {
  std::int64_t nnz = 0;
  offsets64(spec, &nnz);
  return nnz;
}

std::int64_t estimate_bytes(const MatrixSpec& spec, const TypeSpec& t, std::int64_t nnz) {
  const std::int64_t v = t.is_double ? 8 : 4;
  const std::int64_t n = std::max(spec.rows, spec.cols);
  // matrix + int64 offsets (generation) + x, y_in, y + reference (3 doubles) + kernel
  // workspaces and cuSPARSE buffers (a margin of a quarter of the matrix).
  const std::int64_t matrix = nnz * (v + t.index_bits / 8) + (spec.rows + 1) * (t.offset_bits / 8);
  return matrix + matrix / 4 + (spec.rows + 1) * 8 + n * (3 * v + 24) + (256 << 20);
}

CaseResult run_case(const MatrixSpec& spec, const TypeSpec& types,
                    const std::vector<KernelRun>& runs, const CheckOptions& options) {
  const auto t0 = std::chrono::steady_clock::now();
  CaseResult result;
  result.spec = spec.to_string();
  result.types = types.to_string();
  std::int64_t nnz = 0;
  auto off = offsets64(spec, &nnz);
  result.nnz = nnz;
  if (types.offset_bits == 32 && nnz > std::numeric_limits<std::int32_t>::max()) {
    result.skipped = "nnz does not fit 32-bit offsets";
    return result;
  }
  if (types.index_bits == 32 && spec.cols > std::numeric_limits<std::int32_t>::max()) {
    result.skipped = "cols do not fit 32-bit column indices";
    return result;
  }
  std::size_t free_bytes = 0, total = 0;
  STRESS_CUDA(cudaMemGetInfo(&free_bytes, &total));
  const std::int64_t need = estimate_bytes(spec, types, nnz);
  if (need > static_cast<std::int64_t>(free_bytes)) {
    result.skipped = "needs about " + std::to_string(need >> 20) + " MiB, " +
                     std::to_string(free_bytes >> 20) + " MiB free";
    return result;
  }
  auto dispatch = [&](auto v_tag) {
    using V = decltype(v_tag);
    if (types.index_bits == 32 && types.offset_bits == 32)
      run_typed<V, std::int32_t, std::int32_t>(spec, *off, nnz, runs, options, result);
    else if (types.index_bits == 32)
      run_typed<V, std::int32_t, std::int64_t>(spec, *off, nnz, runs, options, result);
    else if (types.offset_bits == 32)
      run_typed<V, std::int64_t, std::int32_t>(spec, *off, nnz, runs, options, result);
    else
      run_typed<V, std::int64_t, std::int64_t>(spec, *off, nnz, runs, options, result);
  };
  if (types.is_double)
    dispatch(double{});
  else
    dispatch(float{});
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return result;
}

std::vector<KernelRun> all_kernel_runs() {
  std::vector<KernelRun> runs;
  for (const KernelInfo& k : KernelRegistry::kernels()) {
    if (k.memory != Memory::device) continue;
    runs.push_back({k.name, false, false});
    if (k.deterministic_n && k.name != "auto" && k.name != "cusparse-alg2")
      runs.push_back({k.name, true, false});
  }
  runs.push_back({"hola", false, true});  // the C API path
  return runs;
}

}  // namespace hola::stress
