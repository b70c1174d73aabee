// hola-batched-bench (issue 18): batched SpMV y_i = A_i x_i (alpha 1, beta 0) over a sweep of
// generated batches, every Hola GPU plan that applies (forced kernel x group size x staged x) and
// `auto` (BatchedOperator), against looped cuSPARSE (one preprocessed cusparseSpMV per matrix),
// one cuSPARSE SpMV on the block-diagonal CSR of the batch, and the CPU OpenMP backend. GPU times:
// CUDA events around each launch, warm-up first, median of the repetitions. Every GPU result is
// checked against the CPU result, per matrix, relative to the matrix's largest |y|.
// The timed loops launch only; result checks copy y to the host between plans (not timed).
#include <cuda_runtime.h>
#include <cusparse.h>
#include <omp.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <limits>
#include <memory>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "../run_info.hpp"
#include "batches.hpp"
#include "hola/batched.hpp"
#include "hola/batched_gpu.hpp"
#include "hola/batched_operator.hpp"
#include "hola/error.hpp"

namespace {

using hola::batched::Format;
using hola::batched::Kernel;
using hola::batched::Plan;
using hola::batched_bench::I;
using json = nlohmann::json;

#define BENCH_CUDA(call)                                                            \
  do {                                                                              \
    const cudaError_t e_ = (call);                                                  \
    if (e_ != cudaSuccess)                                                          \
      throw std::runtime_error(std::string(#call) + ": " + cudaGetErrorString(e_)); \
  } while (0)
#define BENCH_CUSPARSE(call)                                                            \
  do {                                                                                  \
    const cusparseStatus_t s_ = (call);                                                 \
    if (s_ != CUSPARSE_STATUS_SUCCESS)                                                  \
      throw std::runtime_error(std::string(#call) + ": " + cusparseGetErrorString(s_)); \
  } while (0)

template <class T>
class DeviceArray {
 public:
  DeviceArray() = default;
  explicit DeviceArray(std::size_t n) : n_(n) {
    if (n > 0) BENCH_CUDA(cudaMalloc(reinterpret_cast<void**>(&p_), n * sizeof(T)));
  }
  explicit DeviceArray(const std::vector<T>& v) : DeviceArray(v.size()) {
    if (n_ > 0) BENCH_CUDA(cudaMemcpy(p_, v.data(), n_ * sizeof(T), cudaMemcpyHostToDevice));
  }
  ~DeviceArray() {
    if (p_) cudaFree(p_);
  }
  DeviceArray(DeviceArray&& o) noexcept : p_(o.p_), n_(o.n_) { o.p_ = nullptr, o.n_ = 0; }
  DeviceArray& operator=(DeviceArray&& o) noexcept {
    std::swap(p_, o.p_);
    std::swap(n_, o.n_);
    return *this;
  }
  DeviceArray(const DeviceArray&) = delete;
  DeviceArray& operator=(const DeviceArray&) = delete;
  T* get() const { return p_; }
  std::size_t size() const { return n_; }

 private:
  T* p_ = nullptr;
  std::size_t n_ = 0;
};

struct Settings {
  int warmup = 3;
  int reps = 15;
  int loop_reps = 3;
  int cpu_reps = 5;
  std::vector<Kernel> kernels;       // forced plans of these kernels only (empty: every kernel)
  std::int64_t loop_subset = 10000;  // looped cuSPARSE: matrices timed when the batch is larger
  double time_budget_s = 0;          // 0: none; otherwise no new case starts after this
  std::uint64_t seed = 1;
};

struct CaseSpec {
  std::string pattern;
  std::int64_t count = 0, min_size = 0, max_size = 0;
  std::string name() const {
    std::ostringstream s;
    if (pattern == "shared2d")
      s << pattern << " " << min_size << "x" << min_size << " x" << count;
    else
      s << pattern << " " << min_size << ".." << max_size << " x" << count;
    return s.str();
  }
};

// pattern:count:min:max (shared2d: pattern:count:side).
CaseSpec parse_case(const std::string& text) {
  std::vector<std::string> parts;
  std::stringstream ss(text);
  for (std::string p; std::getline(ss, p, ':');) parts.push_back(p);
  const auto& names = hola::batched_bench::pattern_names();
  CaseSpec c;
  try {
    if (parts.empty() || std::find(names.begin(), names.end(), parts[0]) == names.end())
      throw std::invalid_argument("pattern");
    c.pattern = parts[0];
    if (c.pattern == "shared2d") {
      if (parts.size() != 3) throw std::invalid_argument("fields");
      c.count = std::stoll(parts[1]);
      c.min_size = c.max_size = std::stoll(parts[2]);
    } else {
      if (parts.size() != 4) throw std::invalid_argument("fields");
      c.count = std::stoll(parts[1]);
      c.min_size = std::stoll(parts[2]);
      c.max_size = std::stoll(parts[3]);
    }
  } catch (const std::exception&) {
    throw std::invalid_argument("--case '" + text +
                                "': expected PATTERN:COUNT:MIN:MAX or shared2d:COUNT:SIDE");
  }
  if (c.count < 1 || c.min_size < 1 || c.max_size < c.min_size)
    throw std::invalid_argument("--case '" + text + "': need COUNT >= 1, 1 <= MIN <= MAX");
  return c;
}

std::vector<CaseSpec> default_sweep(bool quick) {
  std::vector<CaseSpec> out;
  const std::vector<std::pair<std::int64_t, std::int64_t>> sizes{{16, 64}, {64, 256}, {256, 1024}};
  if (quick) {
    for (auto [lo, hi] : sizes)
      for (std::int64_t n : {1000, 10000}) out.push_back({"mixed", n, lo, hi});
    out.push_back({"shared2d", 10000, 12, 12});
    return out;
  }
  // Batch size: the mix at each size class (10^6 only for the smallest matrices).
  for (std::int64_t n : {1000, 10000, 100000, 1000000}) out.push_back({"mixed", n, 16, 64});
  for (std::int64_t n : {1000, 10000, 100000}) out.push_back({"mixed", n, 64, 256});
  for (std::int64_t n : {1000, 10000, 100000}) out.push_back({"mixed", n, 256, 1024});
  // Pattern: one of each at 10^4 matrices per size class.
  for (auto [lo, hi] : sizes)
    for (const char* p : {"stencil1d", "stencil2d", "random", "wide"})
      out.push_back({p, 10000, lo, hi});
  // Shared pattern (the csr_shared fast path) at 36, 144 and 576 rows.
  for (std::int64_t side : {6, 12, 24})
    for (std::int64_t n : {10000, 100000}) out.push_back({"shared2d", n, side, side});
  return out;
}

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const std::size_t h = v.size() / 2;
  return v.size() % 2 ? v[h] : 0.5 * (v[h - 1] + v[h]);
}

// Median time (microseconds) of `launch` on `stream`, CUDA events around each repetition.
template <class F>
double time_gpu_us(F&& launch, int warmup, int reps, cudaStream_t stream) {
  for (int i = 0; i < warmup; ++i) launch();
  std::vector<cudaEvent_t> ev(static_cast<std::size_t>(2 * reps));
  for (auto& e : ev) BENCH_CUDA(cudaEventCreate(&e));
  for (int i = 0; i < reps; ++i) {
    BENCH_CUDA(cudaEventRecord(ev[2 * i], stream));
    launch();
    BENCH_CUDA(cudaEventRecord(ev[2 * i + 1], stream));
  }
  BENCH_CUDA(cudaStreamSynchronize(stream));
  std::vector<double> t;
  for (int i = 0; i < reps; ++i) {
    float ms = 0;
    BENCH_CUDA(cudaEventElapsedTime(&ms, ev[2 * i], ev[2 * i + 1]));
    t.push_back(1000.0 * ms);
  }
  for (auto& e : ev) cudaEventDestroy(e);
  return median(t);
}

// Largest per-matrix error of y against ref, relative to the matrix's largest |ref|, over
// matrices [first, last) (row ranges from row_off); NaN (an unwritten row) counts as infinite.
template <class V>
double max_rel_err(const std::vector<I>& row_off, std::int64_t first, std::int64_t last, const V* y,
                   const std::vector<V>& ref) {
  double worst = 0;
#pragma omp parallel for schedule(dynamic, 256) reduction(max : worst)
  for (std::int64_t i = first; i < last; ++i) {
    double mx = 0, d = 0;
    for (std::int64_t r = row_off[i]; r < row_off[i + 1]; ++r) {
      mx = std::max(mx, std::fabs(static_cast<double>(ref[r])));
      const double e = std::fabs(static_cast<double>(y[r]) - static_cast<double>(ref[r]));
      d = std::isnan(e) ? std::numeric_limits<double>::infinity() : std::max(d, e);
    }
    const double rel = d / std::max(mx, 1e-300);
    worst = std::max(worst, rel);
  }
  return worst;
}

// Bytes a product moves at least: every stored array once, x read, y written.
template <class V>
double batch_bytes(const hola::batched::BatchData<V, I>& d) {
  const double idx = static_cast<double>(d.row_off.size() + d.col_off.size() + d.nnz_off.size() +
                                         d.row_ptr.size() + d.row_idx.size() + d.col_idx.size());
  return idx * sizeof(I) +
         static_cast<double>(d.values.size() + d.total_cols + d.total_rows) * sizeof(V);
}

// A batch in device memory plus its host data.
template <class V>
struct DeviceBatch {
  const hola::batched::BatchData<V, I>* host = nullptr;
  std::vector<DeviceArray<I>> index;
  DeviceArray<V> values;
  hola::batched::BatchView<V, I> view;
  explicit DeviceBatch(const hola::batched::BatchData<V, I>& h) : host(&h), values(h.values) {
    view = h.view();
    view.memory = hola::Memory::device;
    index.reserve(6);
    h.point_index_arrays(view, [&](const std::vector<I>& a) -> const I* {
      if (a.empty()) return nullptr;
      index.emplace_back(a);
      return index.back().get();
    });
    view.values = h.values.empty() ? nullptr : values.get();
  }
};

std::string plan_label(Format f, const Plan& p) {
  return std::string(hola::batched::format_name(f)) + "/" + hola::batched::kernel_name(p.kernel) +
         "/g" + std::to_string(p.group_threads) + (p.stage_x ? "/stage" : "");
}

json plan_json(Format f, const Plan& p) {
  return {{"format", hola::batched::format_name(f)},
          {"kernel", hola::batched::kernel_name(p.kernel)},
          {"block_threads", p.block_threads},
          {"group_threads", p.group_threads},
          {"stage_x", p.stage_x},
          {"stage_cols", p.stage_cols},
          {"label", plan_label(f, p)}};
}

// Forced plans for a format: each kernel of hola::batched::kKernels that takes it (and is in
// `only`, when that is not empty) at group sizes 32..256, x in global memory, and x staged as
// well when the block's share fits the kernel's stage budget.
std::vector<Plan> forced_plans(Format f, const hola::batched::Features& feat, std::size_t vb,
                               const std::vector<Kernel>& only) {
  std::vector<Plan> out;
  for (const hola::batched::KernelDesc& kd : hola::batched::kKernels) {
    const Kernel k = kd.kernel;
    if (!hola::batched::kernel_supports(k, f)) continue;
    if (!only.empty() && std::find(only.begin(), only.end(), k) == only.end()) continue;
    const Plan rule = hola::batched::choose_plan(feat, f, vb, k);
    for (int g : {32, 64, 128, 256}) {
      Plan p = rule;
      p.group_threads = g;
      const std::size_t bytes = static_cast<std::size_t>(p.matrices_per_block()) *
                                static_cast<std::size_t>(feat.max_cols) * vb;
      p.stage_x = false;
      p.stage_cols = 0;
      out.push_back(p);
      // And x staged, where the block's share fits the kernel's stage budget: both are timed, so
      // that KernelDesc::stages_x can be checked against every kernel's own measurements.
      if (feat.max_cols > 0 && bytes <= hola::batched::stage_bytes_budget(k, p.block_threads, vb)) {
        p.stage_x = true;
        p.stage_cols = feat.max_cols;
        out.push_back(p);
      }
    }
  }
  return out;
}

template <class V>
struct Tolerance {
  static constexpr double value = sizeof(V) == 4 ? 1e-4 : 1e-10;
};

const char* precision_name(std::size_t bytes) { return bytes == 4 ? "float" : "double"; }

template <class V>
cudaDataType cuda_type() {
  return sizeof(V) == 4 ? CUDA_R_32F : CUDA_R_64F;
}

// Looped cuSPARSE on the first `k` matrices of a CSR batch: one handle, per matrix a CSR
// descriptor (its own 0-based row offsets), dense vectors, a buffer, cusparseSpMV_preprocess; then
// only the cusparseSpMV calls are timed. Returns the median time of the loop (us) and fills y.
template <class V>
double looped_cusparse_us(cusparseHandle_t handle, const hola::batched::BatchData<V, I>& h,
                          const DeviceBatch<V>& d, std::int64_t k, const V* x, V* y,
                          const Settings& s, cudaStream_t stream) {
  // Per matrix 0-based row offsets, concatenated (matrix i's start at local_start[i]).
  std::vector<I> local;
  std::vector<std::int64_t> local_start(static_cast<std::size_t>(k));
  for (std::int64_t i = 0; i < k; ++i) {
    local_start[i] = static_cast<std::int64_t>(local.size());
    for (std::int64_t r = h.row_off[i]; r <= h.row_off[i + 1]; ++r)
      local.push_back(h.row_ptr[r] - h.nnz_off[i]);
  }
  DeviceArray<I> d_local(local);
  const V alpha = 1, beta = 0;
  struct Item {
    cusparseSpMatDescr_t a = nullptr;
    cusparseDnVecDescr_t x = nullptr, y = nullptr;
    std::size_t buffer_offset = 0;
  };
  std::vector<Item> items;
  items.reserve(static_cast<std::size_t>(k));
  std::vector<std::size_t> sizes;
  std::size_t total = 0;
  auto destroy = [&] {
    for (auto& it : items) {
      if (it.a) cusparseDestroySpMat(it.a);
      if (it.x) cusparseDestroyDnVec(it.x);
      if (it.y) cusparseDestroyDnVec(it.y);
    }
  };
  DeviceArray<unsigned char> buffer;
  double us = 0;
  try {
    for (std::int64_t i = 0; i < k; ++i) {
      const std::int64_t rows = h.row_off[i + 1] - h.row_off[i];
      const std::int64_t cols = h.col_off[i + 1] - h.col_off[i];
      const std::int64_t nnz = h.nnz_off[i + 1] - h.nnz_off[i];
      items.emplace_back();
      Item& it = items.back();
      if (rows == 0 || cols == 0) continue;  // nothing to compute; cuSPARSE is not called
      BENCH_CUSPARSE(cusparseCreateCsr(&it.a, rows, cols, nnz, d_local.get() + local_start[i],
                                       const_cast<I*>(d.view.col_idx) + h.nnz_off[i],
                                       const_cast<V*>(d.view.values) + h.nnz_off[i],
                                       CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                                       CUSPARSE_INDEX_BASE_ZERO, cuda_type<V>()));
      BENCH_CUSPARSE(
          cusparseCreateDnVec(&it.x, cols, const_cast<V*>(x) + h.col_off[i], cuda_type<V>()));
      BENCH_CUSPARSE(cusparseCreateDnVec(&it.y, rows, y + h.row_off[i], cuda_type<V>()));
      std::size_t bytes = 0;
      BENCH_CUSPARSE(cusparseSpMV_bufferSize(handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, it.a,
                                             it.x, &beta, it.y, cuda_type<V>(),
                                             CUSPARSE_SPMV_ALG_DEFAULT, &bytes));
      it.buffer_offset = total;
      total += (bytes + 255) / 256 * 256;
    }
    // One allocation carved into per-matrix buffers: preprocessing ties a buffer to its matrix.
    buffer = DeviceArray<unsigned char>(std::max<std::size_t>(total, 256));
    for (auto& it : items)
      if (it.a)
        BENCH_CUSPARSE(cusparseSpMV_preprocess(
            handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, it.a, it.x, &beta, it.y,
            cuda_type<V>(), CUSPARSE_SPMV_ALG_DEFAULT, buffer.get() + it.buffer_offset));
    us = time_gpu_us(
        [&] {
          for (auto& it : items)
            if (it.a)
              cusparseSpMV(handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, it.a, it.x, &beta,
                           it.y, cuda_type<V>(), CUSPARSE_SPMV_ALG_DEFAULT,
                           buffer.get() + it.buffer_offset);
        },
        1, s.loop_reps, stream);
  } catch (...) {
    destroy();
    throw;
  }
  destroy();
  return us;
}

struct Timer {
  std::chrono::steady_clock::time_point t0 = std::chrono::steady_clock::now();
  double seconds() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  }
};

// One case in one precision: every plan, the baselines, the checks. `csr` is the CSR batch (the
// reference, the baselines and the row layout of every format); `others` the other formats.
template <class V>
json run_case(const CaseSpec& spec, const hola::batched::BatchData<V, I>& csr,
              const std::vector<const hola::batched::BatchData<V, I>*>& others, const Settings& s,
              cudaStream_t stream, cusparseHandle_t handle) {
  const std::int64_t count = csr.count, N = csr.total_rows, M = csr.total_cols;
  const double tol = Tolerance<V>::value;
  json c;
  c["case"] = spec.name();
  c["pattern"] = spec.pattern;
  c["count"] = count;
  c["min_size"] = spec.min_size;
  c["max_size"] = spec.max_size;
  c["precision"] = precision_name(sizeof(V));
  c["index"] = "int32";
  c["alpha"] = 1;
  c["beta"] = 0;
  c["tolerance"] = tol;

  // x random; the CPU result (OpenMP backend) is both the baseline and the reference.
  std::vector<V> x(static_cast<std::size_t>(M)), ref(static_cast<std::size_t>(N));
  {
    std::mt19937_64 rng(s.seed + 99);
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    for (auto& e : x) e = static_cast<V>(u(rng));
  }
  hola::BatchedOperator<V, I> cpu(csr.view(), hola::BatchedBackend::cpu, "auto", 0);
  const auto& feat = cpu.features();
  c["total_rows"] = feat.total_rows;
  c["total_cols"] = feat.total_cols;
  c["total_nnz"] = feat.total_nnz;
  c["max_rows"] = feat.max_rows;
  c["max_cols"] = feat.max_cols;
  c["max_row_nnz"] = feat.max_row_nnz;
  c["mean_row_nnz"] = feat.mean_row_nnz();
  c["mean_rows"] = count > 0 ? static_cast<double>(N) / static_cast<double>(count) : 0.0;
  c["empty_matrices"] = feat.empty_matrices;
  const double csr_bytes = batch_bytes(csr);
  c["csr_bytes"] = csr_bytes;
  std::vector<double> cpu_t;
  for (int r = 0; r < s.cpu_reps + 1; ++r) {
    Timer t;
    cpu.apply(V(1), x.data(), M, V(0), ref.data(), N);
    if (r > 0) cpu_t.push_back(1e6 * t.seconds());  // the first run warms up
  }
  const double cpu_us = median(cpu_t);
  c["cpu_omp"] = {{"time_us", cpu_us},
                  {"threads", omp_get_max_threads()},
                  {"gbs", csr_bytes / (cpu_us * 1e3)},
                  {"reps", s.cpu_reps}};

  DeviceArray<V> d_x(x), d_y(static_cast<std::size_t>(N));
  // Pinned: every plan's y comes back for its check (up to 10^8 rows).
  V* y = nullptr;
  BENCH_CUDA(
      cudaMallocHost(reinterpret_cast<void**>(&y), std::max<std::int64_t>(N, 1) * sizeof(V)));
  const std::unique_ptr<V, cudaError_t (*)(void*)> y_owner(y, cudaFreeHost);
  // Hola kernels run on y full of NaN (all bits set): beta == 0 must not read it and every row
  // must be written. cuSPARSE runs on a zeroed y (whether it reads y at beta == 0 is not ours).
  auto poison = [&] { BENCH_CUDA(cudaMemsetAsync(d_y.get(), 0xff, N * sizeof(V), stream)); };
  auto zero_y = [&] { BENCH_CUDA(cudaMemsetAsync(d_y.get(), 0, N * sizeof(V), stream)); };
  auto check = [&](std::int64_t first, std::int64_t last) {
    BENCH_CUDA(cudaStreamSynchronize(stream));
    if (N > 0) BENCH_CUDA(cudaMemcpy(y, d_y.get(), N * sizeof(V), cudaMemcpyDeviceToHost));
    return max_rel_err(csr.row_off, first, last, y, ref);
  };

  // Block-diagonal CSR: global row pointer as is, columns shifted by each matrix's x offset.
  DeviceBatch<V> dcsr(csr);
  double blockdiag_us = 0;
  {
    std::vector<I> gcol(csr.col_idx.size());
#pragma omp parallel for schedule(dynamic, 1024)
    for (std::int64_t i = 0; i < count; ++i)
      for (std::int64_t q = csr.nnz_off[i]; q < csr.nnz_off[i + 1]; ++q)
        gcol[q] = csr.col_idx[q] + csr.col_off[i];
    DeviceArray<I> d_gcol(gcol);
    const V alpha = 1, beta = 0;
    cusparseSpMatDescr_t a = nullptr;
    cusparseDnVecDescr_t vx = nullptr, vy = nullptr;
    BENCH_CUSPARSE(cusparseCreateCsr(&a, N, M, csr.total_nnz, const_cast<I*>(dcsr.view.row_ptr),
                                     d_gcol.get(), dcsr.values.get(), CUSPARSE_INDEX_32I,
                                     CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, cuda_type<V>()));
    BENCH_CUSPARSE(cusparseCreateDnVec(&vx, M, d_x.get(), cuda_type<V>()));
    BENCH_CUSPARSE(cusparseCreateDnVec(&vy, N, d_y.get(), cuda_type<V>()));
    std::size_t bytes = 0;
    BENCH_CUSPARSE(cusparseSpMV_bufferSize(handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, a, vx,
                                           &beta, vy, cuda_type<V>(), CUSPARSE_SPMV_ALG_DEFAULT,
                                           &bytes));
    DeviceArray<unsigned char> buf(std::max<std::size_t>(bytes, 256));
    BENCH_CUSPARSE(cusparseSpMV_preprocess(handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, a, vx,
                                           &beta, vy, cuda_type<V>(), CUSPARSE_SPMV_ALG_DEFAULT,
                                           buf.get()));
    zero_y();
    blockdiag_us = time_gpu_us(
        [&] {
          cusparseSpMV(handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, a, vx, &beta, vy,
                       cuda_type<V>(), CUSPARSE_SPMV_ALG_DEFAULT, buf.get());
        },
        s.warmup, s.reps, stream);
    const double err = check(0, count);
    cusparseDestroySpMat(a);
    cusparseDestroyDnVec(vx);
    cusparseDestroyDnVec(vy);
    const double bd_bytes = csr_bytes - static_cast<double>(3 * (count + 1)) * sizeof(I);
    c["blockdiag_cusparse"] = {{"time_us", blockdiag_us},
                               {"gbs", bd_bytes / (blockdiag_us * 1e3)},
                               {"max_rel_err", err},
                               {"ok", err <= tol},
                               {"alg", "CUSPARSE_SPMV_ALG_DEFAULT"}};
  }

  // Looped cuSPARSE, on a subset of the first K matrices when the batch is larger, scaled.
  double looped_us = 0;
  {
    const std::int64_t k = std::min(count, s.loop_subset);
    zero_y();
    const double measured =
        looped_cusparse_us(handle, csr, dcsr, k, d_x.get(), d_y.get(), s, stream);
    const double err = check(0, k);
    looped_us =
        measured * static_cast<double>(count) / static_cast<double>(std::max<std::int64_t>(k, 1));
    c["looped_cusparse"] = {{"time_us", looped_us},         {"measured_matrices", k},
                            {"measured_time_us", measured}, {"scaled_from_subset", k < count},
                            {"max_rel_err", err},           {"ok", err <= tol},
                            {"reps", s.loop_reps},          {"alg", "CUSPARSE_SPMV_ALG_DEFAULT"}};
  }

  // Hola: auto (BatchedOperator) and every forced plan, per format.
  json plans = json::array();
  json by_format = json::object();
  double best_us = 0, auto_us = 0;
  std::string best_label, auto_label;
  std::vector<std::pair<const hola::batched::BatchData<V, I>*, const DeviceBatch<V>*>> formats;
  std::vector<std::unique_ptr<DeviceBatch<V>>> owned;
  formats.push_back({&csr, &dcsr});
  for (const auto* o : others) {
    owned.push_back(std::make_unique<DeviceBatch<V>>(*o));
    formats.push_back({o, owned.back().get()});
  }
  const Format primary = others.empty() || others.front()->format != Format::csr_shared
                             ? Format::csr
                             : Format::csr_shared;
  for (const auto& [h, d] : formats) {
    const double bytes = batch_bytes(*h);
    hola::BatchedOperator<V, I> op(d->view, hola::BatchedBackend::gpu, "auto");
    auto record = [&](const Plan& p, bool is_auto, double us, double err) {
      json r = plan_json(h->format, p);
      r["auto"] = is_auto;
      r["time_us"] = us;
      r["gbs"] = bytes / (us * 1e3);
      r["max_rel_err"] = err;
      r["ok"] = err <= tol;
      r["speedup_vs_looped_cusparse"] = looped_us / us;
      r["speedup_vs_blockdiag_cusparse"] = blockdiag_us / us;
      r["speedup_vs_cpu"] = cpu_us / us;
      plans.push_back(r);
      return r;
    };
    poison();
    const double a_us =
        time_gpu_us([&] { op.apply(V(1), d_x.get(), M, V(0), d_y.get(), N, stream); }, s.warmup,
                    s.reps, stream);
    const json a = record(op.plan(), true, a_us, check(0, count));
    double fbest = 0;
    json fbest_plan;
    for (const Plan& p : forced_plans(h->format, op.features(), sizeof(V), s.kernels)) {
      poison();
      const double us = time_gpu_us(
          [&] {
            hola::batched::gpu::apply(d->view, p, V(1), d_x.get(), V(0), d_y.get(),
                                      static_cast<void*>(stream));
          },
          s.warmup, s.reps, stream);
      const json r = record(p, false, us, check(0, count));
      if (r["ok"].get<bool>() && (fbest == 0 || us < fbest)) {
        fbest = us;
        fbest_plan = r;
      }
    }
    by_format[hola::batched::format_name(h->format)] = {
        {"auto_label", a["label"]},
        {"auto_time_us", a_us},
        {"auto_ok", a["ok"]},
        {"best_forced_label", fbest_plan.is_null() ? json(nullptr) : fbest_plan["label"]},
        {"best_forced_time_us", fbest},
        {"auto_over_best", fbest > 0 ? a_us / fbest : 0.0},
        {"bytes", bytes}};
    if (h->format == primary) {
      auto_us = a_us;
      auto_label = a["label"].get<std::string>();
    }
    if (fbest > 0 && (best_us == 0 || fbest < best_us)) {
      best_us = fbest;
      best_label = fbest_plan["label"].get<std::string>();
    }
  }
  bool all_ok = c["blockdiag_cusparse"]["ok"].get<bool>() && c["looped_cusparse"]["ok"].get<bool>();
  for (const auto& r : plans) all_ok = all_ok && r["ok"].get<bool>();
  c["plans"] = plans;
  c["by_format"] = by_format;
  c["auto"] = {
      {"format", hola::batched::format_name(primary)}, {"label", auto_label}, {"time_us", auto_us}};
  c["best"] = {{"label", best_label}, {"time_us", best_us}};
  auto ratio = [](double a, double b) { return b > 0 ? a / b : 0.0; };
  c["speedup"] = {{"best_vs_looped_cusparse", ratio(looped_us, best_us)},
                  {"best_vs_blockdiag_cusparse", ratio(blockdiag_us, best_us)},
                  {"best_vs_cpu", ratio(cpu_us, best_us)},
                  {"auto_vs_looped_cusparse", ratio(looped_us, auto_us)},
                  {"auto_vs_blockdiag_cusparse", ratio(blockdiag_us, auto_us)},
                  {"auto_vs_cpu", ratio(cpu_us, auto_us)},
                  {"auto_over_best", ratio(auto_us, best_us)}};
  c["ok"] = all_ok;
  std::fprintf(stderr,
               "  %-7s best %-30s %10.1f us | auto %-30s %10.1f us | blockdiag %10.1f us | looped "
               "%12.1f us%s | cpu %10.1f us | best x%.1f looped x%.2f blockdiag x%.1f cpu | %s\n",
               precision_name(sizeof(V)), best_label.c_str(), best_us, auto_label.c_str(), auto_us,
               blockdiag_us, looped_us,
               c["looped_cusparse"]["scaled_from_subset"].get<bool>() ? " (scaled)" : "", cpu_us,
               ratio(looped_us, best_us), ratio(blockdiag_us, best_us), ratio(cpu_us, best_us),
               all_ok ? "ok" : "MISMATCH");
  return c;
}

std::string device_name() {
  int dev = 0;
  cudaDeviceProp p{};
  if (cudaGetDevice(&dev) != cudaSuccess || cudaGetDeviceProperties(&p, dev) != cudaSuccess)
    return "unknown";
  return std::string(p.name) + " (" + std::to_string(p.multiProcessorCount) + " SMs)";
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "hola-batched-bench: batched SpMV (issue 18), every Hola GPU plan and auto against looped "
      "cuSPARSE, block-diagonal cuSPARSE and the CPU OpenMP backend"};
  Settings s;
  bool quick = false;
  std::string output, precision = "both";
  std::vector<std::string> case_specs;
  app.add_flag("--quick", quick, "small sweep (10^3 and 10^4 mixed batches, one shared pattern)");
  app.add_option("--case", case_specs,
                 "PATTERN:COUNT:MIN:MAX or shared2d:COUNT:SIDE instead of the sweep (repeatable; "
                 "patterns: stencil1d stencil2d random wide mixed shared2d)");
  app.add_option("--precision", precision, "float, double or both")
      ->check(CLI::IsMember({"float", "double", "both"}));
  app.add_option("--output", output, "JSON results file");
  app.add_option("--warmup", s.warmup, "untimed launches first")->check(CLI::Range(0, 1000));
  app.add_option("--reps", s.reps, "timed launches (median)")->check(CLI::Range(1, 10000));
  app.add_option("--loop-reps", s.loop_reps, "timed loops of looped cuSPARSE")
      ->check(CLI::Range(1, 1000));
  app.add_option("--cpu-reps", s.cpu_reps, "timed CPU runs")->check(CLI::Range(1, 1000));
  app.add_option("--loop-subset", s.loop_subset,
                 "looped cuSPARSE times this many matrices of larger batches and scales")
      ->check(CLI::Range(1, 100000000));
  app.add_option("--time-budget", s.time_budget_s,
                 "seconds after which no new case starts (0: none)")
      ->check(CLI::Range(0.0, 1e7));
  app.add_option("--seed", s.seed, "random seed");
  std::vector<std::string> kernel_names;
  app.add_option("--kernels", kernel_names,
                 "time forced plans of these kernels only (comma-separated; default every kernel; "
                 "auto and the baselines always run)")
      ->delimiter(',');
  bool list_kernels = false;
  app.add_flag("--list-kernels", list_kernels, "print the GPU kernels (name, formats, mapping)");
  CLI11_PARSE(app, argc, argv);
  if (list_kernels) {
    for (const auto& kd : hola::batched::kKernels) {
      std::string formats;
      for (Format f : {Format::csr, Format::csr_shared, Format::coo, Format::ell})
        if (kd.formats & hola::batched::format_bit(f))
          formats += std::string(formats.empty() ? "" : ",") + hola::batched::format_name(f);
      std::printf("%-11s %-15s %s\n", kd.name, formats.c_str(), kd.mapping);
    }
    return 0;
  }

  std::vector<CaseSpec> cases;
  try {
    for (const auto& name : kernel_names) {
      const Kernel k = hola::batched::kernel_from_name(name);
      if (k == Kernel::auto_select)
        throw std::invalid_argument("--kernels: auto always runs; name forced kernels");
      s.kernels.push_back(k);
    }
    for (const auto& t : case_specs) cases.push_back(parse_case(t));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "hola-batched-bench: %s\n", e.what());
    return 2;
  }
  if (cases.empty()) cases = default_sweep(quick);
  if (!output.empty() && !std::ofstream(output, std::ios::app)) {
    std::fprintf(stderr, "hola-batched-bench: cannot write %s\n", output.c_str());
    return 2;
  }
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::fprintf(stderr, "hola-batched-bench: no usable GPU\n");
    return 2;
  }

  json out;
  out["commit"] = hola::demo::commit_id();
  out["device"] = device_name();
  out["command"] = hola::demo::command_line(argc, argv);
  out["cpu_threads"] = omp_get_max_threads();
  out["warmup"] = s.warmup;
  out["reps"] = s.reps;
  out["loop_reps"] = s.loop_reps;
  out["cpu_reps"] = s.cpu_reps;
  out["loop_subset"] = s.loop_subset;
  out["seed"] = s.seed;
  out["kernels"] = json::array();
  for (Kernel k : s.kernels) out["kernels"].push_back(hola::batched::kernel_name(k));
  out["note"] =
      "y = A x (alpha 1, beta 0), int32 indices; GPU times: CUDA events, median; looped cuSPARSE "
      "times only the cusparseSpMV calls (descriptors, buffers, preprocessing made before) and, "
      "when measured_matrices < count, the first measured_matrices matrices scaled by "
      "count / measured_matrices; CPU: the OpenMP backend, wall clock, median";
  out["cases"] = json::array();
  out["skipped"] = json::array();
  int status = 0;
  const Timer total;
  cudaStream_t stream = nullptr;
  cusparseHandle_t handle = nullptr;
  try {
    BENCH_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    BENCH_CUSPARSE(cusparseCreate(&handle));
    BENCH_CUSPARSE(cusparseSetStream(handle, stream));
    for (std::size_t ci = 0; ci < cases.size(); ++ci) {
      const CaseSpec& spec = cases[ci];
      if (s.time_budget_s > 0 && total.seconds() > s.time_budget_s) {
        std::fprintf(stderr, "[%zu/%zu] %s: skipped (time budget)\n", ci + 1, cases.size(),
                     spec.name().c_str());
        out["skipped"].push_back(spec.name());
        continue;
      }
      const Timer t;
      const bool shared = spec.pattern == "shared2d";
      auto ms = hola::batched_bench::make_matrices<double>(spec.pattern, spec.count, spec.min_size,
                                                           spec.max_size, s.seed + ci);
      const auto csr = hola::batched_bench::build_batch(ms, Format::csr);
      std::vector<hola::batched::BatchData<double, I>> other;
      if (shared) {
        other.push_back(hola::batched_bench::build_batch(ms, Format::csr_shared));
      } else {
        other.push_back(hola::batched_bench::build_batch(ms, Format::coo));
        other.push_back(hola::batched_bench::build_batch(ms, Format::ell));
      }
      ms.clear();
      ms.shrink_to_fit();
      std::fprintf(stderr, "[%zu/%zu] %s: %lld rows, %lld nonzeros (built in %.1f s)\n", ci + 1,
                   cases.size(), spec.name().c_str(), static_cast<long long>(csr.total_rows),
                   static_cast<long long>(csr.total_nnz), t.seconds());
      // ELL of patterns with very uneven rows pads too much to be worth timing.
      std::vector<const hola::batched::BatchData<double, I>*> others;
      for (const auto& o : other)
        if (o.format != Format::ell || o.total_nnz <= 4 * std::max<std::int64_t>(csr.total_nnz, 1))
          others.push_back(&o);
      if (precision != "float") {
        json c = run_case<double>(spec, csr, others, s, stream, handle);
        if (!c["ok"].get<bool>()) status = 1;
        out["cases"].push_back(std::move(c));
      }
      if (precision != "double") {
        const auto fcsr = hola::batched_bench::convert_values<float>(csr);
        std::vector<hola::batched::BatchData<float, I>> fother;
        for (const auto* o : others)
          fother.push_back(hola::batched_bench::convert_values<float>(*o));
        std::vector<const hola::batched::BatchData<float, I>*> fothers;
        for (const auto& o : fother) fothers.push_back(&o);
        json c = run_case<float>(spec, fcsr, fothers, s, stream, handle);
        if (!c["ok"].get<bool>()) status = 1;
        out["cases"].push_back(std::move(c));
      }
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "hola-batched-bench: %s\n", e.what());
    status = 1;
    out["error"] = e.what();
  }
  if (handle) cusparseDestroy(handle);
  if (stream) cudaStreamDestroy(stream);
  out["wall_s"] = total.seconds();
  out["all_ok"] = status == 0;
  if (!output.empty()) {
    std::ofstream f(output);
    if (!f) {
      std::fprintf(stderr, "hola-batched-bench: cannot write %s\n", output.c_str());
      return 2;
    }
    f << out.dump(1) << "\n";
  }
  std::fprintf(stderr, "hola-batched-bench: %zu results in %.1f s%s\n", out["cases"].size(),
               total.seconds(), status ? ", FAILURES (see ok fields)" : ", all verified");
  return status;
}
