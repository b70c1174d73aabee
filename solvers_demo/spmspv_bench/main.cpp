// hola-spmspv-bench (issue 17, docs/spmspv.md): y = op(A) x with a sparse x over plus_times,
// swept over x densities 1e-6..1 on every matrix, with a dense and a sparse y. Per case, each
// candidate of hola::SpmspvOperator on device memory is timed through the operator with that
// kernel forced (the four GPU SpMSpV kernels and densify-and-SpMV: x scattered into a dense
// vector, one SpMV with hola::Operator "auto", a sparse y compacted), then the operator's own
// selection ("auto") next to them, and, for a dense y, the outside baseline densify-and-SpMV
// with cuSPARSE (the bench's own scatter + hola's preprocessed cuSPARSE kernel). CUDA events
// around each call (warm-up, then the median of the repetitions); every candidate's result
// (auto's too) is checked once per case against the CPU reference (computed once per case, on
// a host thread while the GPU runs). The JSON records per case the features, every time, the
// best, auto's pick and its ratios to the best and to densify-and-SpMV, and the old rule's pick
// (hola::spmspv::select_algorithm, 2f6d850); per matrix the structure statistics and the
// operator's setup timing of densify-and-SpMV. It is the input of bench/selector/train_spmspv.py
// and bench/plot_spmspv.py. Timed loops: no allocation, no host<->device copy, one event
// synchronization per repetition (to read its time); x is uploaded before each case's loops.
#include <cuda_runtime_api.h>
#include <CLI/CLI.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <functional>
#include <future>
#include <limits>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <random>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "../run_info.hpp"
#include "densify.hpp"
#include "generated_set.hpp"
#include "hola/error.hpp"
#include "hola/generators.hpp"
#include "hola/matrix_market.hpp"
#include "hola/operator.hpp"
#include "hola/registry.hpp"
#include "hola/spmspv.hpp"
#include "hola/spmspv_gpu.hpp"
#include "hola/spmspv_operator.hpp"

namespace {

using json = nlohmann::json;
using hola::Op;
namespace sp = hola::spmspv;
using Csr64 = hola::gen::Csr64;

void cuda_check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e));
}
#define BENCH_CUDA(call) cuda_check((call), #call)

// Device array of at least one element (so that empty matrices still get valid pointers).
template <class T>
struct DeviceArray {
  T* ptr = nullptr;
  explicit DeviceArray(std::size_t n) {
    BENCH_CUDA(cudaMalloc(reinterpret_cast<void**>(&ptr), std::max<std::size_t>(n, 1) * sizeof(T)));
  }
  ~DeviceArray() { cudaFree(ptr); }
  DeviceArray(const DeviceArray&) = delete;
  DeviceArray& operator=(const DeviceArray&) = delete;
  void upload(const T* src, std::size_t n) {
    if (n) BENCH_CUDA(cudaMemcpy(ptr, src, n * sizeof(T), cudaMemcpyHostToDevice));
  }
  void download(T* dst, std::size_t n) const {
    if (n) BENCH_CUDA(cudaMemcpy(dst, ptr, n * sizeof(T), cudaMemcpyDeviceToHost));
  }
};

// The operator's candidates (hola::spmspv::candidates(), device memory), the outside baseline,
// and the operator's own selection.
const std::vector<std::string> kOperatorKernels = {"matrix_direct", "matrix_balanced",
                                                   "vector_direct", "vector_balanced", "densify"};
const std::string kCusparse = "densify_cusparse";
const std::string kAuto = "auto";

struct Settings {
  int warmup = 3;
  int reps = 15;
  double time_cap_ms = 2.0;
  double min_density = 1e-6;
  int points_per_decade = 2;
  std::vector<Op> ops;
  std::vector<sp::OutputFormat> outputs;
  std::vector<double> mask_allowed;  // mask cases: allowed fractions (empty: no mask cases)
  std::vector<std::string> candidates;
  bool with_auto = true;
  bool deterministic = false;  // SpmspvOptions::deterministic (the atomic kernels then refuse)
  std::uint64_t seed = 1;
};

// Densities min_density .. 1 in steps of 10^(1 / points_per_decade), 1 included.
std::vector<double> densities(const Settings& s) {
  std::vector<double> d;
  const int decades = static_cast<int>(std::lround(-std::log10(s.min_density)));
  const int points = decades * s.points_per_decade;
  for (int k = 0; k <= points; ++k)
    d.push_back(std::pow(10.0, -static_cast<double>(points - k) / s.points_per_decade));
  return d;
}

// nnz distinct sorted indices in [0, n), drawn with `rng` (partial Fisher-Yates on a reused
// permutation buffer: O(nnz) per draw after the first).
template <class I>
void draw_indices(std::int64_t n, std::int64_t nnz, std::mt19937_64& rng,
                  std::vector<std::int64_t>& perm, std::vector<I>& out) {
  if (static_cast<std::int64_t>(perm.size()) != n) {
    perm.resize(static_cast<std::size_t>(n));
    for (std::int64_t i = 0; i < n; ++i) perm[i] = i;
  }
  for (std::int64_t k = 0; k < nnz; ++k) {
    std::uniform_int_distribution<std::int64_t> pick(k, n - 1);
    std::swap(perm[k], perm[pick(rng)]);
  }
  out.resize(static_cast<std::size_t>(nnz));
  for (std::int64_t k = 0; k < nnz; ++k) out[k] = static_cast<I>(perm[k]);
  std::sort(out.begin(), out.end());
}

template <class T>
double median(std::vector<T> t) {
  std::sort(t.begin(), t.end());
  const std::size_t n = t.size();
  return n % 2 ? t[n / 2] : 0.5 * (t[n / 2 - 1] + t[n / 2]);
}

std::string gpu_name() {
  int dev = 0;
  cudaDeviceProp p{};
  if (cudaGetDevice(&dev) != cudaSuccess || cudaGetDeviceProperties(&p, dev) != cudaSuccess)
    return "unknown";
  return std::string(p.name) + " (" + std::to_string(p.multiProcessorCount) + " SMs)";
}

// Masked cases run at these densities only (1e-3, 1e-1, 1): a mask multiplies the sweep.
bool masked_density(double d) {
  const double l = std::log10(d);
  return std::abs(l + 3) < 1e-9 || std::abs(l + 1) < 1e-9 || std::abs(l) < 1e-9;
}

// The GPU kernel the 2f6d850 rule stands for: select_algorithm chooses between the
// matrix-driven and vector-driven families; on the GPU each family's load-balanced kernel
// (safe on skewed rows) is taken.
std::string rule_pick(const sp::VectorFeatures& f) {
  return sp::select_algorithm(f) == sp::Algorithm::vector_driven ? "vector_balanced"
                                                                 : "matrix_balanced";
}

json stats_json(const hola::RowLengthStats& s) {
  return {{"rows", s.rows},   {"nnz", s.nnz},   {"min", s.min_row},     {"max", s.max_row},
          {"std", s.std_row}, {"gini", s.gini}, {"empty", s.empty_rows}};
}

const char* output_name(sp::OutputFormat f) {
  return f == sp::OutputFormat::dense ? "dense" : "sparse";
}

// Running totals of the summary (per output form and over all cases).
struct Tally {
  int cases = 0, at_95 = 0, slower = 0, slower_noise = 0, slower_best_densify = 0;
  double log_sum = 0, worst = 1;
  void add(double ratio, bool slower_than_densify, bool beyond_noise, bool slower_than_best) {
    ++cases;
    log_sum += std::log(ratio);
    worst = std::min(worst, ratio);
    at_95 += ratio >= 0.95;
    slower += slower_than_densify;
    slower_noise += beyond_noise;
    slower_best_densify += slower_than_best;
  }
  json to_json() const {
    return {{"cases", cases},
            {"ratio_geomean", cases ? std::exp(log_sum / cases) : 0.0},
            {"ratio_min", worst},
            {"at_least_0_95", at_95},
            {"slower_than_densify", slower},
            {"slower_than_densify_beyond_2_percent", slower_noise},
            {"slower_than_best_densify", slower_best_densify}};
  }
  std::string line(const std::string& what) const {
    char buf[512];
    std::snprintf(buf, sizeof buf,
                  "summary %s: %d cases; time(best) / time(it) geomean %.3f, min %.3f, >= 0.95 in "
                  "%d; slower than densify-and-SpMV in %d (%d by > 2 %%); slower than the best "
                  "densify-and-SpMV measured (cuSPARSE's included) in %d",
                  what.c_str(), cases, cases ? std::exp(log_sum / cases) : 0.0, worst, at_95,
                  slower, slower_noise, slower_best_densify);
    return buf;
  }
};

struct Totals {
  std::map<std::string, Tally> tallies;  // "auto", "auto pick", "rule", each also per output
  int failures = 0;
  std::size_t case_no = 0, case_total = 0;
};

// One matrix in one precision: host copy and column view (features and reference), A on the
// device, the operator (which builds A^T on the device), cuSPARSE for the baseline, and the
// vectors. Then every (op, density, mask, output form) case.
template <class V>
void run_matrix(const std::string& name, const Csr64& m64, const std::string& precision,
                const Settings& s, cudaStream_t stream, json& cases, json& matrices,
                Totals& totals) {
  using I = std::int32_t;
  using O = std::int32_t;
  const auto h = m64.convert<V, I, O>();  // throws when the matrix does not fit 32-bit indices
  const auto A_host = h.view();
  sp::ColumnView<V, I, O> columns;
  columns.build(A_host);
  const auto At_host = columns.transposed_view();
  const std::size_t nnz = static_cast<std::size_t>(h.nnz());
  const auto structure = hola::bench::structure_summary(m64);

  DeviceArray<O> rp(h.row_ptr.size());
  DeviceArray<I> ci(nnz);
  DeviceArray<V> va(nnz);
  rp.upload(h.row_ptr.data(), h.row_ptr.size());
  ci.upload(h.col_idx.data(), nnz);
  va.upload(h.values.data(), nnz);
  auto A_dev = hola::csr_view<V, I, O>(h.rows, h.cols, h.nnz(), rp.ptr, ci.ptr, va.ptr,
                                       hola::Memory::device);
  BENCH_CUDA(cudaDeviceSynchronize());

  hola::SpmspvOptions options;
  options.validate_vectors = false;  // timed like the kernels: the caller vouches for x
  options.deterministic = s.deterministic;
  hola::SpmspvOperator<V, I, O> op(options);
  const auto t_setup = std::chrono::steady_clock::now();
  op.setup(A_dev, 0, stream);
  const double setup_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t_setup).count();
  auto cusparse = hola::KernelRegistry::create<V, I, O>("cusparse", hola::KernelOptions{});
  cusparse->setup(A_dev, stream);

  const std::int64_t n_max = std::max(h.rows, h.cols);
  DeviceArray<I> x_idx(static_cast<std::size_t>(n_max)), y_idx(static_cast<std::size_t>(n_max));
  DeviceArray<V> x_val(static_cast<std::size_t>(n_max)), x_dense(static_cast<std::size_t>(n_max)),
      y(static_cast<std::size_t>(n_max));
  DeviceArray<std::uint8_t> d_mask(static_cast<std::size_t>(n_max));
  cudaEvent_t e0, e1;
  BENCH_CUDA(cudaEventCreate(&e0));
  BENCH_CUDA(cudaEventCreate(&e1));

  matrices.push_back(
      {{"name", name},
       {"precision", precision},
       {"rows", h.rows},
       {"cols", h.cols},
       {"nnz", h.nnz()},
       {"structure",
        {{"rows_of_A", stats_json(structure.rows_of_A)},
         {"rows_of_At", stats_json(structure.rows_of_At)}}},
       {"densify_setup_ms", {{"N", op.densify_ms(Op::N)}, {"T", op.densify_ms(Op::T)}}},
       {"operator_setup_s", setup_s},
       {"column_view_bytes", op.column_view_bytes()},
       {"gpu_workspace_bytes", op.workspace_bytes()}});

  std::mt19937_64 rng(s.seed);
  std::vector<std::int64_t> perm;
  std::vector<I> xi;
  std::vector<V> xv;
  std::vector<std::uint8_t> mask_host;
  std::vector<double> mask_cases = {-1.0};  // -1: no mask
  mask_cases.insert(mask_cases.end(), s.mask_allowed.begin(), s.mask_allowed.end());
  for (Op o : s.ops) {
    const std::int64_t n_in = o == Op::N ? h.cols : h.rows;
    const std::int64_t n_out = o == Op::N ? h.rows : h.cols;
    for (double density : densities(s))
      for (double allowed : mask_cases) {
        if (allowed >= 0 && !masked_density(density)) continue;
        ++totals.case_no;
        if (n_in == 0) continue;
        const std::int64_t nnz_x =
            std::clamp<std::int64_t>(std::llround(density * static_cast<double>(n_in)), 1, n_in);
        draw_indices(n_in, nnz_x, rng, perm, xi);
        std::uniform_real_distribution<double> u(0.5, 1.5);
        xv.resize(xi.size());
        for (auto& v : xv) v = static_cast<V>((rng() & 1 ? 1 : -1) * u(rng));
        x_idx.upload(xi.data(), xi.size());
        x_val.upload(xv.data(), xv.size());
        sp::Mask mask_h, mask_d;
        if (allowed >= 0) {
          std::bernoulli_distribution keep(allowed);
          mask_host.resize(static_cast<std::size_t>(n_out));
          std::int64_t count = 0;
          for (auto& b : mask_host) count += (b = keep(rng) ? 1 : 0);
          d_mask.upload(mask_host.data(), mask_host.size());
          mask_h.values = mask_host.data();
          mask_d.values = d_mask.ptr;
          mask_h.size = mask_d.size = n_out;
          mask_h.allowed = mask_d.allowed = count;
        }
        BENCH_CUDA(cudaDeviceSynchronize());

        // Host copy of the problem (features, reference). Its arrays stay alive until every
        // check of this case has finished (the futures are drained below).
        auto p = std::make_shared<sp::Problem<V, I, O>>();
        p->op = o;
        p->semiring = sp::Semiring::plus_times;
        p->A = A_host;
        p->At = &At_host;
        p->x.size = n_in;
        p->x.nnz = nnz_x;
        p->x.format = sp::VectorFormat::sorted;
        auto xi_copy = std::make_shared<std::vector<I>>(xi);
        auto xv_copy = std::make_shared<std::vector<V>>(xv);
        auto mask_copy = std::make_shared<std::vector<std::uint8_t>>(mask_host);
        p->x.indices = xi_copy->data();
        p->x.values = xv_copy->data();
        p->mask = mask_h;
        if (mask_h.values) p->mask.values = mask_copy->data();
        const sp::VectorFeatures f = sp::vector_features(*p);
        const std::string rule = rule_pick(f);
        std::shared_future<std::shared_ptr<sp::ReferenceResult<V, I, O>>> reference =
            std::async(std::launch::async, [p, xi_copy, xv_copy, mask_copy] {
              return std::make_shared<sp::ReferenceResult<V, I, O>>(*p);
            }).share();
        // Ready before any timing: most calls here are bound by the host's launch path (the GPU
        // waits for it), which a reference computed alongside would compete with.
        reference.wait();

        sp::SparseVectorView<V, I> xd;
        xd.size = n_in;
        xd.nnz = nnz_x;
        xd.format = sp::VectorFormat::sorted;
        xd.indices = x_idx.ptr;
        xd.values = x_val.ptr;
        xd.memory = hola::Memory::device;

        for (sp::OutputFormat form : s.outputs) {
          sp::Output<V, I> yd;
          yd.format = form;
          yd.size = n_out;
          if (form == sp::OutputFormat::dense) {
            yd.dense = y.ptr;
          } else {
            yd.values = y.ptr;
            yd.indices = y_idx.ptr;
            yd.capacity = n_out;
            yd.want_sorted = true;
          }
          std::vector<std::string> names = s.candidates;
          if (form == sp::OutputFormat::sparse || allowed >= 0)  // baseline: dense y, no mask
            names.erase(std::remove(names.begin(), names.end(), kCusparse), names.end());
          if (s.with_auto) names.push_back(kAuto);
          std::string auto_pick;
          auto run = [&](const std::string& name) {
            if (name == kCusparse) {
              hola::bench::densify(n_in, nnz_x, x_idx.ptr, x_val.ptr, x_dense.ptr, stream);
              cusparse->apply(o, V(1), x_dense.ptr, V(0), nullptr, y.ptr, stream);
              return;
            }
            op.set_kernel(name);
            op.apply(o, sp::Semiring::plus_times, xd, yd, mask_d, stream);
            if (name == kAuto) auto_pick = op.last_kernel();
          };
          json times = json::object(), checks = json::object();
          struct PendingCheck {
            std::string name;
            double ms;
            std::future<std::string> diff;
          };
          std::vector<PendingCheck> pending;
          // A candidate that throws is recorded (unavailable, or a failure) and dropped.
          std::vector<std::string> live;
          auto attempt = [&](const std::string& name, auto&& body) {
            try {
              body();
              return;
            } catch (const hola::error& e) {
              cudaGetLastError();  // clear a launch error so that the next candidate runs
              if (e.code() == hola::status::unsupported) {
                checks[name] = std::string("unavailable: ") + e.what();
              } else {
                checks[name] = std::string("error: ") + e.what();
                ++totals.failures;
              }
            } catch (const std::exception& e) {
              checks[name] = std::string("error: ") + e.what();
              ++totals.failures;
              cudaGetLastError();
            }
            live.erase(std::remove(live.begin(), live.end(), name), live.end());
          };
          for (const std::string& name : names) {
            if (name == kCusparse && !cusparse->supports(o)) {
              checks[name] = "op not supported";
              continue;
            }
            live.push_back(name);
            attempt(name, [&] {
              for (int w = 0; w < s.warmup; ++w) run(name);
            });
          }
          // Timed in rounds, every candidate once per round: what drifts during a case (clocks,
          // the host) reaches every candidate alike. Each
          // round in its own order (shuffled from a fixed seed), so that each candidate follows
          // each other in turn: a call right after one that swept the whole matrix through L2
          // finds less of its own data there. In a fixed order `auto` always followed the same
          // candidate and took 8-14 % longer than the same kernel by name on the 10^6-row
          // matrices with a dense y; shuffled, 0.4 %
          // (bench/results/2026-11-27-h100-spmspv-rounds/).
          std::map<std::string, std::vector<float>> t;
          // The host's time to queue each call (between the two event records): a call of a few
          // microseconds can wait on the host, and auto's selection runs there.
          std::map<std::string, std::vector<double>> host_us;
          std::vector<std::string> capped;
          std::mt19937 order_rng(static_cast<unsigned>(totals.case_no));
          for (int r = 0; r < s.reps; ++r) {
            std::vector<std::string> round(live);
            std::shuffle(round.begin(), round.end(), order_rng);
            for (const std::string& name : round) {
              if (std::find(capped.begin(), capped.end(), name) != capped.end()) continue;
              attempt(name, [&] {
                float ms = 0;
                BENCH_CUDA(cudaEventRecord(e0, stream));
                const auto h0 = std::chrono::steady_clock::now();
                run(name);
                const auto h1 = std::chrono::steady_clock::now();
                BENCH_CUDA(cudaEventRecord(e1, stream));
                host_us[name].push_back(std::chrono::duration<double, std::micro>(h1 - h0).count());
                BENCH_CUDA(cudaEventSynchronize(e1));
                BENCH_CUDA(cudaEventElapsedTime(&ms, e0, e1));
                t[name].push_back(ms);
                // A hopeless candidate (one thread on a very long row) stops at 3 runs.
                if (r >= 2 && ms > s.time_cap_ms) capped.push_back(name);
              });
            }
          }
          for (const std::string& name : std::vector<std::string>(live))
            attempt(name, [&] {
              // Verification (outside the timing): y poisoned (NaN), one more call, y copied to
              // the host and compared with the reference on a host thread while the next
              // candidate is verified.
              BENCH_CUDA(cudaMemsetAsync(y.ptr, 0xff, static_cast<std::size_t>(n_out) * sizeof(V),
                                         stream));
              BENCH_CUDA(cudaMemsetAsync(y_idx.ptr, 0xff,
                                         static_cast<std::size_t>(n_out) * sizeof(I), stream));
              run(name);
              BENCH_CUDA(cudaStreamSynchronize(stream));
              auto got = std::make_shared<sp::Output<V, I>>(yd);
              auto vals = std::make_shared<std::vector<V>>();
              auto idx = std::make_shared<std::vector<I>>();
              if (form == sp::OutputFormat::dense || name == kCusparse) {
                vals->resize(static_cast<std::size_t>(n_out));
                y.download(vals->data(), vals->size());
                got->format = sp::OutputFormat::dense;
                got->dense = vals->data();
              } else {
                const auto k = static_cast<std::size_t>(yd.nnz);
                vals->resize(std::max<std::size_t>(k, 1));
                idx->resize(std::max<std::size_t>(k, 1));
                y.download(vals->data(), k);
                y_idx.download(idx->data(), k);
                got->values = vals->data();
                got->indices = idx->data();
                got->capacity = static_cast<std::int64_t>(k);
              }
              pending.push_back({name, median(t[name]),
                                 std::async(std::launch::async, [reference, got, vals, idx] {
                                   return reference.get()->compare(*got);
                                 })});
            });
          for (auto& c : pending) {  // a candidate's time counts only when its result is right
            const std::string diff = c.diff.get();
            checks[c.name] = diff.empty() ? "ok" : diff.substr(0, 300);
            if (diff.empty())
              times[c.name] = c.ms;
            else
              ++totals.failures;
          }

          // Best over the verified candidates (auto is no candidate), of the operator's alone,
          // and of densify-and-SpMV (the operator's and cuSPARSE's).
          auto time_of = [&](const std::string& n) {
            return times.contains(n) ? times[n].get<double>()
                                     : std::numeric_limits<double>::infinity();
          };
          std::string best, best_operator, best_densify;
          for (auto it = times.begin(); it != times.end(); ++it) {
            const std::string& n = it.key();
            if (n == kAuto) continue;
            if (best.empty() || time_of(n) < time_of(best)) best = n;
            const bool operator_kernel = std::find(kOperatorKernels.begin(), kOperatorKernels.end(),
                                                   n) != kOperatorKernels.end();
            if (operator_kernel && (best_operator.empty() || time_of(n) < time_of(best_operator)))
              best_operator = n;
            if (n.rfind("densify", 0) == 0 &&
                (best_densify.empty() || time_of(n) < time_of(best_densify)))
              best_densify = n;
          }
          json host_medians = json::object();
          for (auto& [n, v] : host_us)
            if (times.contains(n)) host_medians[n] = median(v);
          json c = {{"matrix", name},
                    {"precision", precision},
                    {"op", hola::op_name(o)},
                    {"output", output_name(form)},
                    {"mask_allowed", allowed >= 0 ? json(allowed) : json()},
                    {"density_requested", density},
                    {"features",
                     {{"nnz_x", f.nnz_x},
                      {"touched_nnz", f.touched_nnz},
                      {"matrix_nnz", f.matrix_nnz},
                      {"rows", h.rows},
                      {"cols", h.cols},
                      {"n_in", n_in},
                      {"n_out", n_out},
                      {"density", static_cast<double>(nnz_x) / static_cast<double>(n_in)},
                      {"allowed_fraction", f.allowed_fraction},
                      {"op", hola::op_name(o)}}},
                    {"times_ms", times},
                    {"host_us", host_medians},
                    {"checks", checks},
                    {"best", best.empty() ? json() : json(best)},
                    {"best_ms", best.empty() ? json() : json(time_of(best))},
                    {"best_operator", best_operator.empty() ? json() : json(best_operator)},
                    {"best_densify", best_densify.empty() ? json() : json(best_densify)},
                    {"pick", rule}};
          const double densify_ms = time_of("densify");
          const double best_densify_ms = best_densify.empty() ? densify_ms : time_of(best_densify);
          const std::string tally_key = std::string(" (") + output_name(form) + " y)";
          auto record = [&](const std::string& key, double ms) {
            if (best_operator.empty() || !std::isfinite(ms)) return;
            const double ratio = time_of(best_operator) / ms;
            const bool slower = std::isfinite(densify_ms) && ms > densify_ms;
            const bool noise = std::isfinite(densify_ms) && ms > 1.02 * densify_ms;
            const bool slower_best = std::isfinite(best_densify_ms) && ms > best_densify_ms;
            totals.tallies[key].add(ratio, slower, noise, slower_best);
            totals.tallies[key + tally_key].add(ratio, slower, noise, slower_best);
          };
          if (times.contains(kAuto)) {
            const double auto_ms = time_of(kAuto);
            c["auto"] = auto_pick;
            c["auto_ms"] = auto_ms;
            if (!best_operator.empty()) c["auto_ratio_to_best"] = time_of(best_operator) / auto_ms;
            if (!best.empty()) c["auto_ratio_to_best_measured"] = time_of(best) / auto_ms;
            if (std::isfinite(densify_ms)) c["auto_speedup_vs_densify"] = densify_ms / auto_ms;
            if (std::isfinite(best_densify_ms))
              c["auto_speedup_vs_best_densify"] = best_densify_ms / auto_ms;
            record("auto", auto_ms);
            // The picked candidate's own time: the selection's quality without the noise of a
            // second measurement.
            if (times.contains(auto_pick)) {
              c["auto_pick_ratio_to_best"] = time_of(best_operator) / time_of(auto_pick);
              record("auto (picked candidate's time)", time_of(auto_pick));
            }
          }
          if (times.contains(rule)) {
            c["pick_ms"] = time_of(rule);
            if (!best_operator.empty())
              c["pick_ratio_to_best"] = time_of(best_operator) / time_of(rule);
            if (std::isfinite(densify_ms))
              c["pick_speedup_vs_densify"] = densify_ms / time_of(rule);
            record("rule of 2f6d850", time_of(rule));
          }
          std::fprintf(
              stderr,
              "[%zu/%zu] %s %s op %s %s y%s density %.1e nnz_x %lld touched %lld: best "
              "%s %.4f ms, auto %s %.4f ms (%.3f of best)\n",
              totals.case_no, totals.case_total, name.c_str(), precision.c_str(), hola::op_name(o),
              output_name(form), allowed >= 0 ? " masked" : "", density,
              static_cast<long long>(f.nnz_x), static_cast<long long>(f.touched_nnz),
              best.empty() ? "-" : best.c_str(), best.empty() ? 0.0 : time_of(best),
              auto_pick.c_str(), time_of(kAuto),
              c.contains("auto_ratio_to_best") ? c["auto_ratio_to_best"].get<double>() : 0.0);
          cases.push_back(std::move(c));
        }
        reference.get();  // the problem's arrays outlive every check of the case
      }
  }
  cudaEventDestroy(e0);
  cudaEventDestroy(e1);
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "SpMSpV density sweep: GPU SpMSpV kernels, densify-and-SpMV and the operator's "
      "selection (JSON)"};
  std::vector<std::string> files, kernel_names, op_names{"N", "T"};
  std::vector<int> scales{18, 20};
  std::string precision = "double", output, output_form = "both", commit;
  bool quick = false, with_generated = false, no_auto = false;
  double budget_s = 0;
  Settings s;
  app.add_option("-m,--matrix", files, "Matrix Market file (repeatable); default: generated set")
      ->check(CLI::ExistingFile);
  app.add_flag("--generated", with_generated, "the generated set too when --matrix is given");
  app.add_flag("--quick", quick, "small generated matrices (Kronecker scale 14, ~1e5 rows)");
  app.add_option("--kronecker-scale", scales, "Kronecker scales of the generated set")
      ->check(CLI::Range(1, 24));
  std::vector<std::string> all_kernels = kOperatorKernels;
  all_kernels.push_back(kCusparse);
  app.add_option("-k,--kernel", kernel_names, "candidates to time (repeatable; default all)")
      ->check(CLI::IsMember(all_kernels));
  app.add_flag("--no-auto", no_auto, "do not time the operator's selection");
  app.add_flag("--deterministic", s.deterministic,
               "the operator in deterministic mode: matrix_direct and vector_balanced with the "
               "sorted write-back (the other candidates are refused and left out)");
  app.add_option("--op", op_names, "ops (N, T)")->check(CLI::IsMember({"N", "T"}));
  app.add_option("--precision", precision, "double, float or both")
      ->check(CLI::IsMember({"double", "float", "both"}));
  app.add_option("--output-form", output_form, "y dense, sparse (sorted) or both")
      ->check(CLI::IsMember({"dense", "sparse", "both"}));
  app.add_option("--mask-allowed", s.mask_allowed,
                 "also masked cases (densities 1e-3, 1e-1, 1) with a random mask allowing this "
                 "fraction of y (repeatable)")
      ->check(CLI::Range(0.0, 1.0));
  app.add_option("--min-density", s.min_density, "lowest x density (a power of 10)")
      ->check(CLI::Range(1e-9, 1.0));
  app.add_option("--points-per-decade", s.points_per_decade, "densities per factor 10")
      ->check(CLI::Range(1, 10));
  app.add_option("--warmup", s.warmup, "untimed calls per candidate and case")
      ->check(CLI::Range(0, 1000));
  app.add_option("--reps", s.reps, "timed calls per candidate and case (median reported)")
      ->check(CLI::Range(1, 10000));
  app.add_option("--time-cap-ms", s.time_cap_ms,
                 "a candidate whose call takes longer stops after 3 timed calls");
  app.add_option("--time-budget-s", budget_s,
                 "start no new matrix after this many seconds (0: no limit); the JSON lists the "
                 "matrices left out");
  app.add_option("--seed", s.seed, "seed of the generated matrices and vectors");
  app.add_option("-o,--output", output, "JSON output file (default: stdout)");
  app.add_option("--commit", commit,
                 "git commit recorded in the results (default: $HOLA_COMMIT, else git rev-parse)");
  CLI11_PARSE(app, argc, argv);

  const std::string command = hola::demo::command_line(argc, argv);
  s.candidates = kernel_names.empty() ? all_kernels : kernel_names;
  s.with_auto = !no_auto;
  for (const auto& o : op_names) s.ops.push_back(o == "N" ? Op::N : Op::T);
  if (output_form != "sparse") s.outputs.push_back(sp::OutputFormat::dense);
  if (output_form != "dense") s.outputs.push_back(sp::OutputFormat::sparse);
  std::vector<std::string> precisions = precision == "both"
                                            ? std::vector<std::string>{"double", "float"}
                                            : std::vector<std::string>{precision};
  if (!output.empty()) {  // fail now, not after the sweep; nothing is written on error
    const auto dir = std::filesystem::absolute(output).parent_path();
    if (!std::filesystem::is_directory(dir)) {
      std::fprintf(stderr, "error: --output %s: folder %s does not exist\n", output.c_str(),
                   dir.c_str());
      return 2;
    }
  }

  try {
    int devices = 0;
    if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0)
      throw std::runtime_error("no CUDA device");
    std::vector<hola::bench::GeneratedSpec> mats;
    for (const auto& f : files)
      mats.push_back({f, "file", [f] {
                        return hola::read_matrix_market<double, std::int64_t, std::int64_t>(f);
                      }});
    if (files.empty() || with_generated) {
      auto g = hola::bench::generated_set(quick, scales, s.seed);
      for (auto& m : g) mats.push_back(std::move(m));
    }
    cudaStream_t stream;
    BENCH_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    json cases = json::array(), matrices = json::array(), left_out = json::array();
    Totals totals;
    std::size_t per_op = 0;  // cases (each with every output form) per matrix and op
    for (double d : densities(s)) per_op += 1 + (masked_density(d) ? s.mask_allowed.size() : 0);
    const std::size_t per_matrix = s.ops.size() * per_op;
    totals.case_total = mats.size() * precisions.size() * per_matrix;
    const auto t0 = std::chrono::steady_clock::now();
    auto elapsed = [&] {
      return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    };
    for (const auto& spec : mats) {
      if (budget_s > 0 && elapsed() > budget_s) {
        left_out.push_back(spec.name);
        totals.case_no += precisions.size() * per_matrix;
        continue;
      }
      const double start = elapsed();
      const Csr64 m = spec.make();
      for (const auto& prec : precisions) {
        if (prec == "double")
          run_matrix<double>(spec.name, m, prec, s, stream, cases, matrices, totals);
        else
          run_matrix<float>(spec.name, m, prec, s, stream, cases, matrices, totals);
      }
      std::fprintf(stderr, "%s: %.1f s\n", spec.name.c_str(), elapsed() - start);
    }
    BENCH_CUDA(cudaStreamDestroy(stream));

    // Summary of the operator's selection over the sweep (issue 17's targets: >= 0.95 of the
    // best per call, never slower than densify-and-SpMV).
    json summary = {{"cases", cases.size()},
                    {"verification_failures", totals.failures},
                    {"seconds", elapsed()},
                    {"matrices_left_out", left_out}};
    for (const auto& [key, tally] : totals.tallies) {
      summary[key] = tally.to_json();
      std::fprintf(stderr, "%s\n", tally.line(key).c_str());
    }
    std::fprintf(stderr, "summary: %zu cases, %d verification failures, %.1f s%s\n", cases.size(),
                 totals.failures, elapsed(),
                 left_out.empty() ? ""
                                  : (", " + std::to_string(left_out.size()) +
                                     " matrices left out by the time budget")
                                        .c_str());
    char date[32];
    const std::time_t now = std::time(nullptr);
    std::strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
    json doc = {{"benchmark", "hola-spmspv-bench"},
                {"commit", commit.empty() ? hola::demo::commit_id() : commit},
                {"gpu", gpu_name()},
                {"command", command},
                {"date", date},
                {"semiring", "plus_times"},
                {"deterministic", s.deterministic},
                {"index_types", "int32 indices and offsets"},
                {"timing",
                 {{"warmup", s.warmup},
                  {"reps", s.reps},
                  {"time_cap_ms", s.time_cap_ms},
                  {"statistic", "median of per-call CUDA event times (ms)"}}},
                {"operator",
                 "hola::SpmspvOperator on device memory, vector validation off; candidates "
                 "timed with set_kernel(name), auto with its own selection "
                 "(calibrated at setup: hola::spmspv::select_calibrated_kernel; masked cases: "
                 "the trees, hola::spmspv::select_gpu_kernel)"},
                {"selection_rule_2f6d850",
                 "hola::spmspv::select_algorithm (vector-driven when 4 touched_nnz < "
                 "allowed_fraction matrix_nnz): vector_driven -> vector_balanced, matrix_driven "
                 "-> matrix_balanced (the field \"pick\")"},
                {"candidates", s.candidates},
                {"matrices", matrices},
                {"cases", cases},
                {"summary", summary}};
    const std::string text = doc.dump(1);
    if (output.empty()) {
      std::printf("%s\n", text.c_str());
    } else {
      std::ofstream out(output);
      out << text << "\n";
      if (!out) throw std::runtime_error("cannot write " + output);
      std::fprintf(stderr, "wrote %s\n", output.c_str());
    }
    return totals.failures ? 1 : 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 2;
  }
}
