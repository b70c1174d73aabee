// hola-stress: every device kernel at the sizes where 32-bit arithmetic and grid limits bite
// (--scale), on the matrices of issue reports (--regressions), and on randomized structures
// (--fuzz N). Every result is compared with a trusted GPU reference; see stress_engine.hpp.
// Exit code 0 only when no case failed; skipped cases (memory, index width) are listed.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "hola/gpu_kernels.hpp"
#include "stress_cases.hpp"
#include "stress_engine.hpp"

namespace {

using hola::stress::CaseResult;
using hola::stress::CheckOptions;
using hola::stress::KernelRun;
using hola::stress::MatrixSpec;
using hola::stress::TypeSpec;

struct Totals {
  long cases = 0, skipped = 0, failed = 0;
  long long checks = 0;
  nlohmann::json results = nlohmann::json::array();
};

void report(const CaseResult& r, Totals& t, bool verbose) {
  ++t.cases;
  nlohmann::json j{{"spec", r.spec},
                   {"types", r.types},
                   {"nnz", r.nnz},
                   {"checks", r.checks},
                   {"seconds", r.seconds}};
  if (!r.skipped.empty()) {
    ++t.skipped;
    j["skipped"] = r.skipped;
    std::printf("SKIP  %s [%s]: %s\n", r.spec.c_str(), r.types.c_str(), r.skipped.c_str());
  } else {
    t.checks += r.checks;
    j["kernels"] = r.kernels;
    j["refusals"] = r.refusals;
    nlohmann::json fails = nlohmann::json::array();
    for (const auto& f : r.failures)
      fails.push_back({{"what", f.what},
                       {"bad_entries", f.bad},
                       {"first_bad", f.first_bad},
                       {"got", f.got},
                       {"alpha_times_reference", f.want},
                       {"error", f.error}});
    j["failures"] = fails;
    if (!r.ok()) ++t.failed;
    if (verbose || !r.ok() || !r.refusals.empty())
      std::printf("%s  %s [%s] nnz %lld: %lld checks, %.1f s\n", r.ok() ? "ok  " : "FAIL",
                  r.spec.c_str(), r.types.c_str(), static_cast<long long>(r.nnz),
                  static_cast<long long>(r.checks), r.seconds);
    for (const auto& s : r.refusals) std::printf("      refused: %s\n", s.c_str());
    for (const auto& f : r.failures)
      std::printf("      FAILED %s: %lld wrong entries, first %lld (got %g, alpha*ref %g) %s\n",
                  f.what.c_str(), static_cast<long long>(f.bad),
                  static_cast<long long>(f.first_bad), f.got, f.want, f.error.c_str());
  }
  std::fflush(stdout);
  t.results.push_back(j);
}

// Greedy shrinking of a failing case: keep any simplification that still fails.
MatrixSpec shrink(MatrixSpec spec, const TypeSpec& types, const KernelRun& run,
                  const CheckOptions& opt) {
  auto fails = [&](const MatrixSpec& s) {
    try {
      return !hola::stress::run_case(s, types, {run}, opt).ok();
    } catch (const std::exception&) {
      return false;
    }
  };
  const std::vector<std::function<bool(MatrixSpec&)>> steps = {
      [](MatrixSpec& s) {
        if (s.dist == hola::stress::RowDist::stencil5 || s.rows < 2) return false;
        s.rows /= 2;
        if (s.huge_row >= s.rows) s.huge_row = s.rows - 1;
        return true;
      },
      [](MatrixSpec& s) {
        if (s.dist == hola::stress::RowDist::stencil5 || s.cols < 2) return false;
        s.cols /= 2;
        return true;
      },
      [](MatrixSpec& s) {
        if (s.len < 2) return false;
        s.len /= 2;
        return true;
      },
      [](MatrixSpec& s) {
        if (s.huge_row < 0) return false;
        s.huge_row = -1;
        s.huge_len = 0;
        return true;
      },
      [](MatrixSpec& s) {
        if (s.huge_len < 2) return false;
        s.huge_len /= 2;
        return true;
      },
      [](MatrixSpec& s) {
        if (s.empty_fraction == 0) return false;
        s.empty_fraction = 0;
        return true;
      },
      [](MatrixSpec& s) {
        if (!s.reversed) return false;
        s.reversed = false;
        return true;
      },
      [](MatrixSpec& s) {
        if (!s.shuffled) return false;
        s.shuffled = false;
        return true;
      },
      [](MatrixSpec& s) {
        if (!s.misaligned) return false;
        s.misaligned = false;
        return true;
      },
  };
  for (int round = 0; round < 64; ++round) {
    bool progress = false;
    for (const auto& step : steps) {
      MatrixSpec t = spec;
      if (step(t) && fails(t)) {
        spec = t;
        progress = true;
      }
    }
    if (!progress) break;
  }
  return spec;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"hola-stress: kernels against a GPU reference at scale and on random structures"};
  bool scale = false, regressions = false, quick = false, verbose = false, no_shrink = false;
  long fuzz = 0;
  unsigned long long seed = 0;
  std::string spec_text, types_text = "double,32,32", output, only_kernel;
  std::vector<std::string> kernels;
  double max_gib = 0;
  app.add_flag("--scale", scale,
               "the scale stage: sizes where limits bite (device memory allowing)");
  app.add_flag("--regressions", regressions, "the cases of past reports and fuzzer finds");
  app.add_option("--fuzz", fuzz, "randomized matrices to draw (each run by several kernels)");
  app.add_option("--seed", seed, "fuzzer seed (0: from the clock; always printed)");
  app.add_option("--spec", spec_text, "one matrix, e.g. rows=1000,cols=1000,dist=uniform,len=9");
  app.add_option("--types", types_text, "value,index bits,offset bits for --spec")
      ->capture_default_str();
  app.add_option("--kernel", kernels, "kernels to run (default: every device kernel, auto, C API)");
  app.add_flag("--quick", quick, "one beta, one stream, one repeat per kernel and op");
  app.add_option("--max-gib", max_gib, "skip scale cases above this many GiB (0: what fits)");
  app.add_flag("--no-shrink", no_shrink, "report fuzzer failures without shrinking them");
  app.add_option("--output", output, "JSON file with every case and its outcome");
  app.add_flag("-v,--verbose", verbose, "print every case, not only failures");
  CLI11_PARSE(app, argc, argv);

  if (!hola::gpu::gpu_available()) {
    std::printf("SKIPPED: no CUDA device available, nothing checked\n");
    return 77;
  }
  std::vector<KernelRun> runs = hola::stress::all_kernel_runs();
  if (!kernels.empty()) {
    std::vector<KernelRun> chosen;
    for (const auto& r : runs)
      if (std::find(kernels.begin(), kernels.end(), r.kernel) != kernels.end()) chosen.push_back(r);
    runs = chosen;
  }
  CheckOptions opt;
  if (quick) {
    opt.betas = {0.0};
    opt.streams = {1};
    opt.repeats = 1;
  }
  Totals totals;
  try {
    auto run_list = [&](const std::vector<hola::stress::ScaleCase>& cases) {
      for (const auto& c : cases) {
        const MatrixSpec spec = MatrixSpec::parse(c.spec);
        for (const std::string& t : c.types) {
          const TypeSpec types = TypeSpec::parse(t);
          if (max_gib > 0) {
            const auto bytes =
                hola::stress::estimate_bytes(spec, types, hola::stress::count_nnz(spec));
            if (bytes > max_gib * (1ll << 30)) {
              std::printf("SKIP  %s [%s]: over --max-gib\n", c.spec.c_str(), t.c_str());
              ++totals.skipped;
              continue;
            }
          }
          std::vector<KernelRun> case_runs;
          for (const auto& r : runs)
            if (c.kernels.empty() ||
                std::find(c.kernels.begin(), c.kernels.end(), r.kernel) != c.kernels.end())
              case_runs.push_back(r);
          CheckOptions o = opt;
          if (c.quick) {
            o.betas = {0.0, 0.5};
            o.streams = {1};
          }
          if (c.minimal) {
            o.betas = {0.5};
            o.repeats = 1;
          }
          std::printf("case  %s [%s] (%s)\n", c.spec.c_str(), t.c_str(), c.why.c_str());
          std::fflush(stdout);
          report(hola::stress::run_case(spec, types, case_runs, o), totals, true);
        }
      }
    };
    if (!spec_text.empty()) {
      report(hola::stress::run_case(MatrixSpec::parse(spec_text), TypeSpec::parse(types_text), runs,
                                    opt),
             totals, true);
    }
    if (regressions) run_list(hola::stress::regression_cases());
    if (scale) run_list(hola::stress::scale_cases());
    if (fuzz > 0) {
      if (seed == 0) seed = std::random_device{}();
      std::printf("fuzz: %ld matrices, seed %llu (rerun: --fuzz %ld --seed %llu)\n", fuzz, seed,
                  fuzz, seed);
      std::fflush(stdout);
      std::mt19937_64 rng(seed);
      for (long i = 0; i < fuzz; ++i) {
        const hola::stress::FuzzCase fc = hola::stress::draw_fuzz_case(rng, runs);
        CaseResult r = hola::stress::run_case(fc.spec, fc.types, fc.runs, fc.options);
        report(r, totals, verbose);
        if (!r.ok() && !no_shrink) {
          for (const KernelRun& run : fc.runs) {
            if (hola::stress::run_case(fc.spec, fc.types, {run}, fc.options).ok()) continue;
            const MatrixSpec small = shrink(fc.spec, fc.types, run, fc.options);
            std::printf("      shrunk: --spec %s --types %s --kernel %s\n",
                        small.to_string().c_str(), fc.types.to_string().c_str(),
                        run.kernel.c_str());
          }
        }
        if ((i + 1) % 1000 == 0) {
          std::printf("fuzz: %ld / %ld matrices, %ld failed\n", i + 1, fuzz, totals.failed);
          std::fflush(stdout);
        }
      }
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "hola-stress: %s\n", e.what());
    return 2;
  }
  if (!output.empty()) {
    std::ofstream out(output);
    out << nlohmann::json{{"seed", seed},
                          {"cases", totals.cases},
                          {"skipped", totals.skipped},
                          {"failed", totals.failed},
                          {"checks", totals.checks},
                          {"results", totals.results}}
               .dump(1)
        << "\n";
  }
  std::printf("%ld passed, %ld failed, %ld skipped (%lld kernel checks)\n",
              totals.cases - totals.failed - totals.skipped, totals.failed, totals.skipped,
              totals.checks);
  return totals.failed == 0 ? 0 : 1;
}
