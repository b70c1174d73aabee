#include "bench.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <random>
#include <stdexcept>

#include "hola/error.hpp"
#include "hola/reference.hpp"
#include "hola/registry.hpp"

namespace hola::bench {

namespace {

void cuda_check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) fail(status::cuda, std::string(what) + ": " + cudaGetErrorString(e));
}
#define BENCH_CUDA(call) cuda_check((call), #call)

template <class T>
struct DeviceArray {
  T* ptr = nullptr;
  std::size_t n = 0;
  DeviceArray() = default;
  explicit DeviceArray(std::size_t count) : n(count) {
    BENCH_CUDA(cudaMalloc(reinterpret_cast<void**>(&ptr), std::max<std::size_t>(n, 1) * sizeof(T)));
  }
  DeviceArray(const std::vector<T>& v) : DeviceArray(v.size()) { upload(v); }
  ~DeviceArray() { cudaFree(ptr); }
  DeviceArray(DeviceArray&& o) noexcept : ptr(o.ptr), n(o.n) {
    o.ptr = nullptr;
    o.n = 0;
  }
  DeviceArray(const DeviceArray&) = delete;
  void upload(const std::vector<T>& v) {
    if (n) BENCH_CUDA(cudaMemcpy(ptr, v.data(), n * sizeof(T), cudaMemcpyHostToDevice));
    // A copy from pageable memory can return before it landed; the kernels run on a
    // non-blocking stream that does not wait for it.
    BENCH_CUDA(cudaDeviceSynchronize());
  }
  std::vector<T> download() const {
    std::vector<T> v(n);
    if (n) BENCH_CUDA(cudaMemcpy(v.data(), ptr, n * sizeof(T), cudaMemcpyDeviceToHost));
    return v;
  }
};

template <class V>
std::vector<V> random_values(std::int64_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> d(-1.0, 1.0);
  std::vector<V> v(static_cast<std::size_t>(n));
  for (auto& e : v) e = static_cast<V>(d(rng));
  return v;
}

// Minimal bytes of DESIGN.md §6 for y = A x (beta = 0).
template <class V, class I, class O>
double floor_bytes(Op op, std::int64_t rows, std::int64_t cols, std::int64_t nnz) {
  const double matrix = static_cast<double>(nnz) * (sizeof(V) + sizeof(I)) +
                        static_cast<double>(rows + 1) * sizeof(O);
  const double vectors = static_cast<double>(rows + cols) * sizeof(V);
  (void)op;  // x and y swap sizes under T; the sum is the same
  return matrix + vectors;
}

template <class V, class I, class O>
std::vector<Row> run_typed(const std::string& matrix_name, const gen::Csr64& A64,
                           const std::string& precision, const std::vector<Op>& ops,
                           const std::vector<KernelSpec>& kernels, const Settings& s,
                           double copy_gbs) {
  const CsrMatrix<V, I, O> H = A64.convert<V, I, O>();
  // Never time on zeros or on all-ones: random values in [-1, 1].
  CsrMatrix<V, I, O> Hr = H;
  Hr.values = random_values<V>(H.nnz(), 12345);
  const CsrView<V, I, O> hv = Hr.view();
  DeviceArray<O> d_row_ptr(Hr.row_ptr);
  DeviceArray<I> d_col_idx(Hr.col_idx);
  DeviceArray<V> d_values(Hr.values);
  CsrView<V, I, O> dv = hv;
  dv.row_ptr = d_row_ptr.ptr;
  dv.col_idx = d_col_idx.ptr;
  dv.values = d_values.ptr;
  dv.memory = Memory::device;

  int dev = 0;
  BENCH_CUDA(cudaGetDevice(&dev));
  int l2 = 0;
  BENCH_CUDA(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev));
  cudaStream_t stream;
  BENCH_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  cudaEvent_t e0, e1;
  BENCH_CUDA(cudaEventCreate(&e0));
  BENCH_CUDA(cudaEventCreate(&e1));

  std::vector<Row> rows;
  for (Op op : ops) {
    const std::int64_t nx = op == Op::N ? hv.cols : hv.rows;
    const std::int64_t ny = op == Op::N ? hv.rows : hv.cols;
    // Rotate x / y sets so that small problems are not timed from L2 alone.
    const double vec_bytes = static_cast<double>(nx + ny) * sizeof(V);
    const int sets =
        static_cast<int>(std::clamp(std::ceil(3.0 * l2 / std::max(vec_bytes, 1.0)), 1.0, 16.0));
    const std::vector<V> x = random_values<V>(nx, 777 + static_cast<int>(op));
    std::vector<DeviceArray<V>> dx, dy;
    for (int i = 0; i < sets; ++i) {
      dx.emplace_back(x);
      dy.emplace_back(static_cast<std::size_t>(ny));
    }
    std::vector<V> ref(static_cast<std::size_t>(ny));
    if (s.check)
      reference::spmv(op, V(1), hv, x.data(), V(0), static_cast<const V*>(nullptr), ref.data());
    const double fbytes = floor_bytes<V, I, O>(op, hv.rows, hv.cols, hv.nnz);
    const double floor_ms = fbytes / (copy_gbs * 1e9) * 1e3;
    double cusparse_ms = 0;
    for (const KernelSpec& ks : kernels) {
      Row row;
      row.matrix = matrix_name;
      row.precision = precision;
      row.index = s.index;
      row.op = op_name(op);
      row.kernel = ks.label;
      row.rows = hv.rows;
      row.cols = hv.cols;
      row.nnz = hv.nnz;
      row.floor_ms = floor_ms;
      try {
        auto kernel = KernelRegistry::create<V, I, O>(ks.name, ks.options);
        if (!kernel->supports(op)) {
          row.note = "op not supported";
          rows.push_back(row);
          continue;
        }
        kernel->setup(dv, stream);
        row.workspace_bytes = kernel->workspace_bytes();
        for (int w = 0; w < s.warmup; ++w)
          kernel->apply(op, V(1), dx[w % sets].ptr, V(0), nullptr, dy[w % sets].ptr, stream);
        BENCH_CUDA(cudaStreamSynchronize(stream));
        std::vector<float> times;
        for (int r = 0; r < s.reps; ++r) {
          const int k = r % sets;
          BENCH_CUDA(cudaEventRecord(e0, stream));
          kernel->apply(op, V(1), dx[k].ptr, V(0), nullptr, dy[k].ptr, stream);
          BENCH_CUDA(cudaEventRecord(e1, stream));
          BENCH_CUDA(cudaEventSynchronize(e1));
          float ms = 0;
          BENCH_CUDA(cudaEventElapsedTime(&ms, e0, e1));
          times.push_back(ms);
        }
        BENCH_CUDA(cudaGetLastError());
        std::sort(times.begin(), times.end());
        row.time_ms = times[times.size() / 2];
        row.min_ms = times.front();
        row.pct_floor = row.time_ms > 0 ? 100.0 * floor_ms / row.time_ms : 0;
        row.gbs = row.time_ms > 0 ? fbytes / (row.time_ms * 1e-3) / 1e9 : 0;
        if (s.check) {
          // Fresh output poisoned with NaN, one more apply, compare with the reference.
          std::vector<V> poison(static_cast<std::size_t>(ny), std::numeric_limits<V>::quiet_NaN());
          dy[0].upload(poison);
          kernel->apply(op, V(1), dx[0].ptr, V(0), nullptr, dy[0].ptr, stream);
          BENCH_CUDA(cudaStreamSynchronize(stream));
          std::string why;
          const std::vector<V> y = dy[0].download();
          row.correct = reference::count_mismatches(op, V(1), hv, x.data(), V(0),
                                                    static_cast<const V*>(nullptr), ref.data(),
                                                    y.data(), &why, 1) == 0;
          if (!row.correct) row.note = "WRONG RESULT:" + why;
        } else {
          row.correct = true;
          row.note = "not checked";
        }
        if (ks.name == "cusparse" && cusparse_ms == 0) cusparse_ms = row.time_ms;
      } catch (const std::exception& e) {
        row.note = e.what();
        cudaGetLastError();
      }
      rows.push_back(row);
    }
    for (Row& r : rows)
      if (r.matrix == matrix_name && r.op == op_name(op) && r.precision == precision &&
          r.time_ms > 0 && cusparse_ms > 0)
        r.speedup_vs_cusparse = cusparse_ms / r.time_ms;
  }
  cudaEventDestroy(e0);
  cudaEventDestroy(e1);
  cudaStreamDestroy(stream);
  return rows;
}

}  // namespace

KernelSpec parse_kernel_spec(const std::string& spec) {
  KernelSpec k;
  k.label = spec;
  const auto colon = spec.find(':');
  k.name = spec.substr(0, colon);
  if (!KernelRegistry::find(k.name) || k.name == "auto")
    fail(status::invalid_argument,
         "unknown kernel '" + k.name + "' (known: " + KernelRegistry::names() + ")");
  if (colon == std::string::npos) return k;
  std::string rest = spec.substr(colon + 1);
  std::size_t pos = 0;
  while (pos < rest.size()) {
    std::size_t comma = rest.find(',', pos);
    if (comma == std::string::npos) comma = rest.size();
    const std::string kv = rest.substr(pos, comma - pos);
    const auto eq = kv.find('=');
    if (eq == std::string::npos) fail(status::invalid_argument, "bad kernel option '" + kv + "'");
    const std::string key = kv.substr(0, eq);
    int value = 0;
    try {
      value = std::stoi(kv.substr(eq + 1));
    } catch (const std::exception&) {
      fail(status::invalid_argument, "bad value in kernel option '" + kv + "'");
    }
    if (key == "tpb")
      k.options.threads_per_block = value;
    else if (key == "npt")
      k.options.nnz_per_thread = value;
    else if (key == "det")
      k.options.deterministic = value != 0;
    else if (key == "tcombine")
      k.options.transpose_combine = value;
    else
      fail(status::invalid_argument,
           "unknown kernel option '" + key + "' (tpb, npt, det, tcombine)");
    pos = comma + 1;
  }
  return k;
}

double measure_copy_bandwidth_gbs() {
  const std::size_t bytes = std::size_t(1) << 30;
  DeviceArray<char> a(bytes), b(bytes);
  BENCH_CUDA(cudaMemset(a.ptr, 1, bytes));
  cudaEvent_t e0, e1;
  BENCH_CUDA(cudaEventCreate(&e0));
  BENCH_CUDA(cudaEventCreate(&e1));
  std::vector<float> t;
  for (int i = 0; i < 12; ++i) {
    BENCH_CUDA(cudaEventRecord(e0));
    BENCH_CUDA(cudaMemcpyAsync(b.ptr, a.ptr, bytes, cudaMemcpyDeviceToDevice));
    BENCH_CUDA(cudaEventRecord(e1));
    BENCH_CUDA(cudaEventSynchronize(e1));
    float ms = 0;
    BENCH_CUDA(cudaEventElapsedTime(&ms, e0, e1));
    if (i >= 2) t.push_back(ms);
  }
  cudaEventDestroy(e0);
  cudaEventDestroy(e1);
  std::sort(t.begin(), t.end());
  return 2.0 * bytes / (t[t.size() / 2] * 1e-3) / 1e9;
}

std::vector<Row> run_matrix(const std::string& matrix_name, const gen::Csr64& A,
                            const std::string& precision, const std::vector<Op>& ops,
                            const std::vector<KernelSpec>& kernels, const Settings& s,
                            double copy_gbs) {
  const bool i64 = s.index == "int64";
  if (precision == "double")
    return i64 ? run_typed<double, std::int64_t, std::int64_t>(matrix_name, A, precision, ops,
                                                               kernels, s, copy_gbs)
               : run_typed<double, std::int32_t, std::int32_t>(matrix_name, A, precision, ops,
                                                               kernels, s, copy_gbs);
  if (precision == "float")
    return i64 ? run_typed<float, std::int64_t, std::int64_t>(matrix_name, A, precision, ops,
                                                              kernels, s, copy_gbs)
               : run_typed<float, std::int32_t, std::int32_t>(matrix_name, A, precision, ops,
                                                              kernels, s, copy_gbs);
  fail(status::invalid_argument, "precision must be float or double");
}

std::string device_name() {
  int dev = 0;
  cudaDeviceProp p{};
  if (cudaGetDevice(&dev) != cudaSuccess || cudaGetDeviceProperties(&p, dev) != cudaSuccess)
    return "unknown";
  return std::string(p.name) + " (" + std::to_string(p.multiProcessorCount) + " SMs, " +
         std::to_string(p.l2CacheSize >> 20) + " MB L2)";
}

}  // namespace hola::bench
