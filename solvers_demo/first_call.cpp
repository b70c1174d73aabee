// hola-first-call: what the first products of a process cost, phase by phase, on the host's
// clock (each phase ends with a synchronised stream). A host library's first MatMult pays these
// once per process and structure, so a faster kernel is felt only after they are paid back.
//
//   hola-first-call -m poisson3d:n=215 [-k auto] [--check 0|1] [--op N|T] [--products 30]
//
// Phases: the CUDA context (cudaFree(0)), the matrix's upload (not Hola's: the host library has
// the matrix on the device already), the Operator's setup, then each product. Run it with
// CUDA_MODULE_LOADING=EAGER to move the loading of every kernel module into the context phase.
// One JSON line on stdout.

#include <cuda_runtime_api.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "hola/generators.hpp"
#include "hola/gpu_kernels.hpp"
#include "hola/operator.hpp"
#include "run_info.hpp"

namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

void check(cudaError_t e, const char* what) {
  if (e == cudaSuccess) return;
  std::fprintf(stderr, "hola-first-call: %s: %s\n", what, cudaGetErrorString(e));
  std::exit(1);
}

template <class T>
T* upload(const std::vector<T>& h) {
  T* d = nullptr;
  check(cudaMalloc(reinterpret_cast<void**>(&d), std::max<std::size_t>(1, h.size()) * sizeof(T)),
        "cudaMalloc");
  check(cudaMemcpy(d, h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice), "cudaMemcpy");
  return d;
}

}  // namespace

int main(int argc, char** argv) {
  std::string spec = "poisson3d:n=100", kernel = "auto", op_name = "N";
  bool check_on = true, pre_steps = false;
  int products = 30;
  CLI::App app{"hola-first-call: the cost of the first products of a process, phase by phase"};
  app.add_option("-m,--matrix", spec, "generator spec (hola-bench --list-generators)");
  app.add_option("-k,--kernel", kernel, "kernel name (auto by default)");
  app.add_option("--check", check_on, "auto's check at the first products (1) or not (0)");
  app.add_flag("--pre-steps", pre_steps,
               "time Hola's first runtime call and the memory pool's first allocation apart");
  app.add_option("--op", op_name, "N or T")->check(CLI::IsMember({"N", "T"}));
  app.add_option("--products", products, "products timed one by one")->check(CLI::Range(1, 100000));
  CLI11_PARSE(app, argc, argv);
  if (!hola::gpu::gpu_available()) {
    std::fprintf(stderr, "hola-first-call: no CUDA device\n");
    return 77;
  }
  const hola::Op op = op_name == "T" ? hola::Op::T : hola::Op::N;

  // The matrix is generated before the context exists, so that the context phase is alone.
  const auto A = hola::gen::from_spec(spec).convert<double, int, int>();
  const auto x_host = hola::gen::random_vector<double>(op == hola::Op::N ? A.cols : A.rows, 7);
  const std::int64_t ny = op == hola::Op::N ? A.rows : A.cols;

  nlohmann::json out;
  out["tool"] = "hola-first-call";
  out["commit"] = hola::demo::commit_id();
  out["command"] = hola::demo::command_line(argc, argv);
  out["device"] = hola::gpu::device_name();
  out["matrix"] = spec;
  out["rows"] = A.rows;
  out["nnz"] = A.nnz();
  out["kernel"] = kernel;
  out["check"] = check_on;
  out["op"] = op_name;
  const char* loading = std::getenv("CUDA_MODULE_LOADING");
  out["cuda_module_loading"] = loading ? loading : "";

  auto t0 = Clock::now();
  check(cudaFree(nullptr), "cudaFree(0)");
  out["context_ms"] = ms_since(t0);

  t0 = Clock::now();
  int* d_ptr = upload(A.row_ptr);
  int* d_col = upload(A.col_idx);
  double* d_val = upload(A.values);
  double* d_x = upload(x_host);
  double* d_y = nullptr;
  check(cudaMalloc(reinterpret_cast<void**>(&d_y), std::max<std::int64_t>(1, ny) * sizeof(double)),
        "cudaMalloc");
  cudaStream_t stream = nullptr;
  check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate");
  check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
  out["upload_ms"] = ms_since(t0);

  // Optional steps before the setup, each timed on its own, to tell the setup's first-time
  // costs apart: Hola's first call into the CUDA runtime, and the stream-ordered memory pool's
  // first allocation (the validation takes its flags from it).
  if (pre_steps) {
    t0 = Clock::now();
    (void)hola::gpu::gpu_available();
    out["pre_gpu_available_ms"] = ms_since(t0);
    t0 = Clock::now();
    void* scratch = nullptr;
    check(cudaMallocAsync(&scratch, 256, stream), "cudaMallocAsync");
    check(cudaFreeAsync(scratch, stream), "cudaFreeAsync");
    check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
    out["pre_pool_ms"] = ms_since(t0);
    t0 = Clock::now();
    check(cudaMallocAsync(&scratch, 256, stream), "cudaMallocAsync");
    check(cudaFreeAsync(scratch, stream), "cudaFreeAsync");
    check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
    out["pre_pool_again_ms"] = ms_since(t0);
  }
  out["pre_steps"] = pre_steps;

  hola::OperatorOptions options;
  options.kernel = kernel;
  options.auto_check = check_on;
  t0 = Clock::now();
  hola::Operator<double, int, int> spmv(options);
  spmv.setup(hola::csr_view(A.rows, A.cols, A.nnz(), d_ptr, d_col, d_val, hola::Memory::device), 1,
             stream);
  check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
  out["setup_ms"] = ms_since(t0);
  const hola::SetupTimes steps = spmv.last_setup_times();
  out["setup_steps_ms"] = {
      {"analyze", steps.analyze_ms}, {"choose", steps.choose_ms}, {"prepare", steps.prepare_ms}};

  std::vector<double> each;
  int check_products = 0;
  for (int p = 0; p < products; ++p) {
    const bool pending = spmv.auto_check_pending(op);
    t0 = Clock::now();
    spmv.apply(op, 1.0, hola::ConstVec<double>{d_x, op == hola::Op::N ? A.cols : A.rows}, 0.0,
               hola::Vec<double>{d_y, ny}, stream);
    check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
    each.push_back(ms_since(t0));
    if (pending) check_products = p + 1;
  }
  std::vector<double> tail(each.begin() + std::min<int>(check_products, products - 1), each.end());
  std::nth_element(tail.begin(), tail.begin() + tail.size() / 2, tail.end());
  out["product_ms"] = each;
  out["check_products"] = check_products;
  out["steady_product_ms"] = tail[tail.size() / 2];
  double first_total = 0;
  for (int p = 0; p < check_products; ++p) first_total += each[p] - tail[tail.size() / 2];
  out["check_excess_ms"] = first_total;
  out["chosen"] = spmv.kernel_name(op);
  std::printf("%s\n", out.dump().c_str());

  cudaFree(d_ptr);
  cudaFree(d_col);
  cudaFree(d_val);
  cudaFree(d_x);
  cudaFree(d_y);
  cudaStreamDestroy(stream);
  return 0;
}
