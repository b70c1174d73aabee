// hola-bench: every kernel against cuSPARSE on the same GPU in the same run (DESIGN.md §6).
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "bench.hpp"
#include "hola/error.hpp"
#include "hola/gpu_kernels.hpp"
#include "hola/matrix_market.hpp"
#include "hola/registry.hpp"

namespace {

// The generated matrices of ANCHORS.md.
const std::vector<std::pair<std::string, std::string>> kAnchorSet = {
    {"poisson3d-64", "poisson3d:n=64"},
    {"poisson3d-200", "poisson3d:n=200"},
    {"stencil27-128", "stencil27:n=128"},
    {"banded-s10", "banded:rows=1048576,per_row=22,sigma=10"},
    {"banded-s1000", "banded:rows=1048576,per_row=22,sigma=1000"},
    {"banded-s40000", "banded:rows=1048576,per_row=22,sigma=40000"},
    {"uniform-22", "banded:rows=1048576,per_row=22,sigma=0"},
    {"rmat-21-16", "rmat:scale=21,ef=16"},
    {"circuit-4M", "circuit:rows=4000000,mean=4.4"},
    {"banded-small", "banded:rows=20000,per_row=10,sigma=50"},
};

struct Source {
  std::string name, spec;
};

std::vector<Source> expand(const std::vector<std::string>& inputs) {
  namespace fs = std::filesystem;
  std::vector<Source> out;
  for (const std::string& in : inputs) {
    if (in == "anchors") {
      for (const auto& [n, s] : kAnchorSet) out.push_back({n, s});
    } else if (fs::is_directory(in)) {
      std::vector<std::string> files;
      for (const auto& e : fs::directory_iterator(in))
        if (e.path().extension() == ".mtx") files.push_back(e.path().string());
      std::sort(files.begin(), files.end());
      for (const auto& f : files) out.push_back({fs::path(f).stem().string(), f});
    } else if (fs::is_regular_file(in)) {
      out.push_back({fs::path(in).stem().string(), in});
    } else {
      out.push_back({in, in});
    }
  }
  return out;
}

hola::gen::Csr64 load(const Source& s) {
  namespace fs = std::filesystem;
  if (fs::is_regular_file(s.spec))
    return hola::read_matrix_market<double, std::int64_t, std::int64_t>(s.spec);
  return hola::gen::from_spec(s.spec);
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"hola-bench: time Hola's SpMV kernels against cuSPARSE on this GPU"};
  std::vector<std::string> inputs{"anchors"};
  std::vector<std::string> kernel_specs;
  std::vector<std::string> precisions{"double", "float"};
  std::vector<std::string> ops{"N", "T"};
  hola::bench::Settings settings;
  std::string json_path, csv_path, commit;
  bool list_kernels = false, no_check = false;
  app.add_option("-m,--matrix", inputs,
                 "Matrix Market files, directories of them, generator specs (e.g. "
                 "poisson3d:n=200) or 'anchors' (the ANCHORS.md set)");
  app.add_option("-k,--kernel", kernel_specs,
                 "kernels, optionally with options: hola:tpb=256,npt=8,det=1 (default: all GPU "
                 "kernels)");
  app.add_option("-p,--precision", precisions, "double and/or float")
      ->check(CLI::IsMember({"double", "float"}));
  app.add_option("--op", ops, "N and/or T")->check(CLI::IsMember({"N", "T"}));
  app.add_option("--index", settings.index, "index type of columns and offsets")
      ->check(CLI::IsMember({"int32", "int64"}));
  app.add_option("-r,--reps", settings.reps, "timed repetitions (median reported)")
      ->check(CLI::Range(1, 100000));
  app.add_option("--warmup", settings.warmup, "untimed repetitions first")
      ->check(CLI::Range(0, 100000));
  app.add_option("--json", json_path, "write results as JSON");
  app.add_option("--csv", csv_path, "write results as CSV");
  app.add_option("--commit", commit, "git commit recorded in the results");
  app.add_flag("--no-check", no_check, "skip the comparison with the reference");
  app.add_flag("--list-kernels", list_kernels, "print the kernel registry and exit");
  CLI11_PARSE(app, argc, argv);
  settings.check = !no_check;

  if (list_kernels) {
    std::printf("%-16s %-7s %-3s %-3s %-13s %-13s %s\n", "kernel", "memory", "N", "T", "determ. N",
                "determ. T", "description");
    for (const hola::KernelInfo& k : hola::KernelRegistry::kernels())
      std::printf("%-16s %-7s %-3s %-3s %-13s %-13s %s\n", k.name.c_str(),
                  hola::memory_name(k.memory), k.op_n ? "yes" : "no", k.op_t ? "yes" : "no",
                  k.deterministic_n ? "yes" : "no", k.deterministic_t ? "yes" : "no",
                  k.description.c_str());
    return 0;
  }
  if (!hola::gpu::gpu_available()) {
    std::fprintf(stderr, "hola-bench: no usable CUDA GPU (or a build without CUDA)\n");
    return 2;
  }
  try {
    std::vector<hola::bench::KernelSpec> kernels;
    if (kernel_specs.empty())
      for (const hola::KernelInfo& k : hola::KernelRegistry::kernels())
        if (k.memory == hola::Memory::device && k.name != "auto") kernel_specs.push_back(k.name);
    // cuSPARSE ALG1 is the baseline of every speedup: always measured, first.
    kernel_specs.erase(std::remove(kernel_specs.begin(), kernel_specs.end(), "cusparse"),
                       kernel_specs.end());
    kernel_specs.insert(kernel_specs.begin(), "cusparse");
    for (const auto& s : kernel_specs) kernels.push_back(hola::bench::parse_kernel_spec(s));
    std::vector<hola::Op> op_list;
    for (const auto& o : ops) op_list.push_back(o == "N" ? hola::Op::N : hola::Op::T);

    std::string command;
    for (int i = 0; i < argc; ++i) command += (i ? " " : "") + std::string(argv[i]);
    const double copy_gbs = hola::bench::measure_copy_bandwidth_gbs();
    const std::string device = hola::bench::device_name();
    std::printf("device: %s, copy bandwidth %.0f GB/s\n", device.c_str(), copy_gbs);
    std::printf("%-16s %-6s %-2s %-22s %10s %10s %8s %8s %s\n", "matrix", "prec", "op", "kernel",
                "nnz", "ms", "%floor", "vs cusp", "note");

    std::vector<hola::bench::Row> all;
    for (const Source& src : expand(inputs)) {
      const auto t0 = std::chrono::steady_clock::now();
      const hola::gen::Csr64 A = load(src);
      const double gen_s =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      std::fprintf(stderr, "[%s] %lld x %lld, %lld nnz (loaded in %.1f s)\n", src.name.c_str(),
                   static_cast<long long>(A.rows), static_cast<long long>(A.cols),
                   static_cast<long long>(A.nnz()), gen_s);
      for (const auto& prec : precisions) {
        auto rows =
            hola::bench::run_matrix(src.name, A, prec, op_list, kernels, settings, copy_gbs);
        for (const auto& r : rows)
          std::printf("%-16s %-6s %-2s %-22s %10lld %10.4f %7.1f%% %7.2fx %s\n", r.matrix.c_str(),
                      r.precision.c_str(), r.op.c_str(), r.kernel.c_str(),
                      static_cast<long long>(r.nnz), r.time_ms, r.pct_floor, r.speedup_vs_cusparse,
                      r.note.c_str());
        std::fflush(stdout);
        all.insert(all.end(), rows.begin(), rows.end());
      }
    }

    bool all_correct = true;
    for (const auto& r : all)
      if (!r.correct && r.note != "op not supported") all_correct = false;
    if (!json_path.empty()) {
      nlohmann::json j;
      j["commit"] = commit;
      j["device"] = device;
      j["command"] = command;
      j["copy_bandwidth_gbs"] = copy_gbs;
      j["index_type"] = settings.index;
      j["reps"] = settings.reps;
      j["results"] = nlohmann::json::array();
      for (const auto& r : all)
        j["results"].push_back({{"matrix", r.matrix},
                                {"rows", r.rows},
                                {"cols", r.cols},
                                {"nnz", r.nnz},
                                {"precision", r.precision},
                                {"op", r.op},
                                {"kernel", r.kernel},
                                {"time_ms", r.time_ms},
                                {"min_ms", r.min_ms},
                                {"floor_ms", r.floor_ms},
                                {"pct_floor", r.pct_floor},
                                {"speedup_vs_cusparse", r.speedup_vs_cusparse},
                                {"gbs", r.gbs},
                                {"workspace_bytes", r.workspace_bytes},
                                {"correct", r.correct},
                                {"note", r.note}});
      std::ofstream(json_path) << j.dump(1) << "\n";
    }
    if (!csv_path.empty()) {
      std::ofstream csv(csv_path);
      csv << "matrix,rows,cols,nnz,precision,op,kernel,time_ms,pct_floor,speedup_vs_cusparse,"
             "correct,note\n";
      for (const auto& r : all)
        csv << r.matrix << ',' << r.rows << ',' << r.cols << ',' << r.nnz << ',' << r.precision
            << ',' << r.op << ',' << r.kernel << ',' << r.time_ms << ',' << r.pct_floor << ','
            << r.speedup_vs_cusparse << ',' << r.correct << ",\"" << r.note << "\"\n";
    }
    if (!all_correct) {
      std::fprintf(stderr, "hola-bench: some kernels gave WRONG results (see the note column)\n");
      return 1;
    }
  } catch (const hola::error& e) {
    std::fprintf(stderr, "hola-bench: %s\n", e.what());
    return 1;
  }
  return 0;
}
