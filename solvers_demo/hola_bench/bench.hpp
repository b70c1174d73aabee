// hola-bench internals: timing of one kernel on one matrix on the GPU (DESIGN.md §6).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "hola/generators.hpp"
#include "hola/spmv_kernel.hpp"

namespace hola::bench {

// "hola:tpb=256,npt=8,det=1" → registry name + KernelOptions.
struct KernelSpec {
  std::string label;  // as given
  std::string name;   // registry name
  KernelOptions options;
};
KernelSpec parse_kernel_spec(const std::string& spec);

struct Settings {
  int warmup = 5;
  int reps = 30;
  bool check = true;
  std::string index = "int32";  // int32 or int64 for both column indices and row offsets
};

struct Row {
  std::string matrix, precision, op, kernel, index;
  std::int64_t rows = 0, cols = 0, nnz = 0;
  double time_ms = 0, min_ms = 0, pct_floor = 0, speedup_vs_cusparse = 0, gbs = 0;
  double floor_ms = 0;
  std::size_t workspace_bytes = 0;
  bool correct = false;
  std::string note;  // why a kernel was skipped or failed
};

// Device-to-device copy bandwidth in GB/s, counting bytes read plus written.
double measure_copy_bandwidth_gbs();

// Runs every kernel spec on A for one precision and both requested ops. The first spec whose
// registry name is "cusparse" is the baseline of speedup_vs_cusparse.
std::vector<Row> run_matrix(const std::string& matrix_name, const gen::Csr64& A,
                            const std::string& precision, const std::vector<Op>& ops,
                            const std::vector<KernelSpec>& kernels, const Settings& settings,
                            double copy_gbs);

std::string device_name();

}  // namespace hola::bench
