// hola-bench: every kernel against cuSPARSE on the same GPU in the same run
// (docs/architecture.md, "Performance method"); host
// kernels (-k cpu) on the CPU, also where there is no GPU.
#include <unistd.h>
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <fstream>
#include <iostream>
#include <memory>
#include <thread>

#include "../run_info.hpp"
#include "bench.hpp"
#include "hola/error.hpp"
#include "hola/gpu_kernels.hpp"
#include "hola/registry.hpp"

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

const char* yes_no(bool b) { return b ? "yes" : "no"; }

std::string clock_text(double seconds) {
  const int s = static_cast<int>(seconds + 0.5);
  char buf[32];
  std::snprintf(buf, sizeof buf, "%d:%02d", s / 60, s % 60);
  return buf;
}

// Progress on stderr: a bar redrawn in place on a terminal, a line per 5 % otherwise (logs).
class Progress {
 public:
  Progress(std::size_t total, bool enabled)
      : total_(total), enabled_(enabled && total > 1), tty_(isatty(2)), start_(Clock::now()) {}
  void done(std::size_t finished, const std::string& last) {
    if (!enabled_) return;
    const double elapsed = seconds_since(start_);
    const double left = finished ? elapsed / finished * (total_ - finished) : 0;
    const int width = 30, filled = static_cast<int>(width * finished / total_);
    if (tty_) {
      std::fprintf(stderr, "\r[%s%s] %zu/%zu %s elapsed, ~%s left  %-30.30s",
                   std::string(filled, '#').c_str(), std::string(width - filled, '.').c_str(),
                   finished, total_, clock_text(elapsed).c_str(), clock_text(left).c_str(),
                   last.c_str());
      if (finished == total_) std::fprintf(stderr, "\n");
    } else if (finished * 20 / total_ != last_step_ || finished == total_) {
      last_step_ = finished * 20 / total_;
      std::fprintf(stderr, "progress: %zu/%zu matrices, %s elapsed, ~%s left\n", finished, total_,
                   clock_text(elapsed).c_str(), clock_text(left).c_str());
    }
    std::fflush(stderr);
  }

 private:
  std::size_t total_;
  bool enabled_, tty_;
  Clock::time_point start_;
  std::size_t last_step_ = 0;
};

nlohmann::json matrix_json(const hola::bench::PreparedMatrix& m,
                           const hola::bench::FeatureReport* gpu) {
  const hola::MatrixFeatures& f = gpu ? gpu->features : m.cpu_features;
  const hola::RowLengthStats& s = f.lengths;
  const hola::StructureStats& c = f.structure;
  nlohmann::json j = {{"matrix", m.source.name},
                      {"family", m.source.family},
                      {"spec", m.source.spec},
                      {"rows", m.rows},
                      {"cols", m.cols},
                      {"nnz", m.nnz},
                      {"min_row", s.min_row},
                      {"max_row", s.max_row},
                      {"mean_row", s.mean_row()},
                      {"std_row", s.std_row},
                      {"gini", s.gini},
                      {"empty_rows", s.empty_rows},
                      {"empty_fraction", s.empty_fraction()},
                      {"group_slots", c.group_slots},
                      {"row_near", c.row_near},
                      {"neighbor_near", c.neighbor_near},
                      {"neighbor_mid", c.neighbor_mid},
                      {"neighbor_same", c.neighbor_same},
                      {"group_efficiency", c.group_efficiency()},
                      {"row_near_fraction", c.fraction(c.row_near)},
                      {"neighbor_near_fraction", c.fraction(c.neighbor_near)},
                      {"neighbor_mid_fraction", c.fraction(c.neighbor_mid)},
                      {"neighbor_same_fraction", c.fraction(c.neighbor_same)},
                      {"features_from", gpu ? "gpu" : "cpu"},
                      {"load_s", m.load_s}};
  if (gpu) {
    j["features_ms"] = gpu->features_ms;
    j["features_check"] = gpu->mismatch.empty() ? "agrees with the CPU" : gpu->mismatch;
  }
  return j;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "hola-bench: time Hola's SpMV kernels against cuSPARSE on this GPU (or the host "
      "kernels, -k cpu, on the CPU: no GPU needed)"};
  std::vector<std::string> inputs{"anchors"};
  std::vector<std::string> kernel_specs;
  std::vector<std::string> precisions{"double", "float"};
  std::vector<std::string> ops{"N", "T"};
  hola::bench::Settings settings;
  std::string json_path, csv_path, output_path, commit;
  bool list_kernels = false, markdown = false, no_check = false, features_only = false,
       no_progress = false;
  double time_budget_s = 0;
  unsigned jobs = std::max(1u, std::thread::hardware_concurrency());
  app.add_option("-m,--matrix", inputs,
                 "Matrix Market files, directories of them, generator specs (e.g. "
                 "poisson3d:n=200), @FILE (one spec or 'name spec' per line) or 'anchors' (the "
                 "anchor set of docs/performance.md)");
  app.add_option("-k,--kernel", kernel_specs,
                 "kernels, optionally with options: hola:tpb=256,npt=8,det=1; 'auto' times the "
                 "Operator's choice (auto:check=0: without its check at the first products); 'cpu' "
                 "runs on the host (default: every GPU kernel, or the "
                 "host kernels without a GPU)");
  app.add_option("-p,--precision", precisions, "double and/or float")
      ->check(CLI::IsMember({"double", "float"}));
  app.add_option("--op", ops, "N and/or T")->check(CLI::IsMember({"N", "T"}));
  app.add_option("--index", settings.index, "index type of columns and offsets")
      ->check(CLI::IsMember({"int32", "int64"}));
  app.add_option("-r,--reps", settings.reps, "timed repetitions (median reported)")
      ->check(CLI::Range(1, 100000));
  app.add_option("--warmup", settings.warmup, "untimed repetitions first")
      ->check(CLI::Range(0, 100000));
  app.add_option("--time-cap-ms", settings.time_cap_ms,
                 "stop repeating a kernel once one run takes longer, and record that run (0: no "
                 "cap)")
      ->check(CLI::Range(0.0, 1e9));
  app.add_option("--time-budget-s", time_budget_s,
                 "start no new matrix after this many seconds; what was measured is written (0: "
                 "no budget)")
      ->check(CLI::Range(0.0, 1e9));
  app.add_option("-j,--jobs", jobs, "CPU threads that load matrices and check results")
      ->check(CLI::Range(1u, 1024u));
  app.add_option("-o,--output", output_path,
                 "write results to this file: CSV when it ends in .csv, else JSON");
  app.add_option("--json", json_path, "write results as JSON");
  app.add_option("--csv", csv_path, "write results as CSV");
  app.add_option("--commit", commit,
                 "git commit recorded in the results (default: $HOLA_COMMIT, else git rev-parse)");
  app.add_flag("--no-check", no_check, "skip the comparison with the reference");
  app.add_option("--setup-reps", settings.setup_reps,
                 "also time this many fresh setups per kernel (median reported as setup_ms)")
      ->check(CLI::NonNegativeNumber);
  app.add_flag("--auto-race", settings.auto_race,
               "auto with the setup race (off by default, as in the Operator)");
  bool no_compress = false;
  app.add_flag("--auto-no-compress", no_compress,
               "auto without leaving empty rows out (OperatorOptions::compress_empty_rows)");
  app.add_option("--beta", settings.beta,
                 "0: y = A x (default); 1: y += A x in place, as for a ghost block")
      ->check(CLI::IsMember({0, 1}));
  app.add_flag("--graph", settings.graph,
               "also capture each GPU kernel's product into a CUDA graph, after its timed runs: "
               "the graph's nodes and kernel launches per product, whether it captures at all, "
               "and the time per product of a graph of --graph-products products (median of "
               "--reps launches of the whole graph, at least 3)");
  app.add_option("--graph-products", settings.graph_products,
                 "with --graph: products in the timed graph, over the x / y sets of the timed "
                 "runs")
      ->check(CLI::Range(1, 100000));
  app.add_option("--block-us", settings.block_us,
                 "before each timed GPU product, keep the stream busy this many microseconds, so "
                 "that the events time the product on the GPU alone, not the host's time to queue "
                 "it (0: off, the default; a run whose block ended too early is timed again with "
                 "a longer one)")
      ->check(CLI::Range(0.0, 20000.0));
  app.add_flag("--features-only", features_only,
               "only compute the selector's matrix features (on the GPU when there is one, else "
               "on the CPU) and write them");
  app.add_flag("--no-progress", no_progress, "no progress report on stderr");
  app.add_flag("--list-kernels", list_kernels, "print the kernel registry and exit");
  app.add_flag("--markdown", markdown,
               "with --list-kernels: every family of the kernel table as the Markdown table of "
               "docs/kernels.md");
  CLI11_PARSE(app, argc, argv);
  settings.check = !no_check;
  if (commit.empty()) commit = hola::demo::commit_id();
  settings.auto_compress = !no_compress;
  if (!output_path.empty()) {
    const bool csv =
        output_path.size() >= 4 && output_path.substr(output_path.size() - 4) == ".csv";
    (csv ? csv_path : json_path) = output_path;
  }

  if (list_kernels) {
    if (markdown) {
      std::fputs(hola::KernelRegistry::markdown_table().c_str(), stdout);
      return 0;
    }
    std::printf("%-16s %-7s %-3s %-3s %-10s %-10s %-6s %-6s %s\n", "kernel", "memory", "N", "T",
                "determ. N", "determ. T", "mixed", "setup", "description");
    for (const hola::KernelInfo& k : hola::KernelRegistry::kernels())
      std::printf("%-16s %-7s %-3s %-3s %-10s %-10s %-6s %-6s %s\n", k.name.c_str(),
                  hola::memory_name(k.memory), yes_no(k.op_n), yes_no(k.op_t),
                  yes_no(k.deterministic_n), yes_no(k.deterministic_t), yes_no(k.mixed_index_types),
                  yes_no(k.setup_data), k.description.c_str());
    return 0;
  }
  const bool gpu = hola::gpu::gpu_available();
  if (!gpu && !features_only) {
    for (const auto& spec : kernel_specs) {
      const std::string name = hola::bench::parse_kernel_spec(spec).name;
      if (!hola::bench::is_host_kernel(name)) {
        std::fprintf(stderr,
                     "hola-bench: kernel '%s' needs a CUDA GPU and none is usable here; host "
                     "kernels (-k cpu) run without one\n",
                     name.c_str());
        return 2;
      }
    }
  }
  const auto start = Clock::now();
  int exit_code = 0;
  try {
    std::vector<hola::bench::KernelSpec> kernels;
    const hola::Memory where = gpu ? hola::Memory::device : hola::Memory::host;
    if (kernel_specs.empty())
      for (const hola::KernelInfo& k : hola::KernelRegistry::kernels())
        if (k.memory == where && k.name != "auto") kernel_specs.push_back(k.name);
    if (gpu) {
      // cuSPARSE ALG1 is the baseline of every speedup: always measured, first.
      kernel_specs.erase(std::remove(kernel_specs.begin(), kernel_specs.end(), "cusparse"),
                         kernel_specs.end());
      kernel_specs.insert(kernel_specs.begin(), "cusparse");
    }
    for (const auto& s : kernel_specs) kernels.push_back(hola::bench::parse_kernel_spec(s));
    std::vector<hola::Op> op_list;
    for (const auto& o : ops) op_list.push_back(o == "N" ? hola::Op::N : hola::Op::T);

    std::string command;
    for (int i = 0; i < argc; ++i) command += (i ? " " : "") + std::string(argv[i]);
    const std::vector<hola::bench::Source> sources = hola::bench::expand_sources(inputs);
    const double copy_gbs = gpu && !features_only ? hola::bench::measure_copy_bandwidth_gbs() : 0;
    bool any_host = false;
    for (const auto& k : kernels) any_host = any_host || hola::bench::is_host_kernel(k.name);
    if (any_host && !features_only)
      settings.host_copy_gbs = hola::bench::measure_host_copy_bandwidth_gbs();
    const std::string device = gpu             ? hola::bench::device_name()
                               : features_only ? "none (CPU features only)"
                                               : "none (host kernels only)";
    if (!features_only) {
      if (gpu)
        std::printf("device: %s, copy bandwidth %.0f GB/s\n", device.c_str(), copy_gbs);
      else
        std::printf("device: %s\n", device.c_str());
      if (any_host)
        std::printf("host: %u threads, copy bandwidth %.0f GB/s (floor of host kernels)\n",
                    std::max(1u, std::thread::hardware_concurrency()), settings.host_copy_gbs);
      char graph_header[64] = "";
      if (settings.graph)
        std::snprintf(graph_header, sizeof graph_header, "%8s %9s %8s ", "graph us", "g vs cusp",
                      "launches");
      std::printf("%-16s %-6s %-2s %-22s %10s %10s %8s %8s %s%s\n", "matrix", "prec", "op",
                  "kernel", "nnz", "ms", "%floor", "vs cusp", graph_header, "note");
    }

    // Loading (generation, conversion) runs ahead on some threads, comparisons with the
    // reference on the others, while this thread drives the GPU. Measured on the CPU: loading
    // costs about 100-200 ns per nonzero, the 32 comparisons of a matrix (8 kernels, 2 ops, 2
    // precisions) about as much together.
    const unsigned loaders = std::max(1u, jobs * 2 / 5);
    const unsigned checker_threads = std::max(1u, jobs > loaders + 1 ? jobs - loaders - 1 : 1u);
    // --features-only: the GPU features need the arrays in the run's index type (one copy).
    const std::vector<std::string> load_precisions =
        !features_only ? precisions
                       : (gpu ? std::vector<std::string>{"float"} : std::vector<std::string>{});
    std::atomic<bool> stopping{false};
    std::vector<hola::bench::Row> all;
    std::vector<hola::bench::PendingCheck> pending;  // rows are indices into `all`
    nlohmann::json matrices = nlohmann::json::array();
    std::vector<std::string> failed;
    std::size_t processed = 0;
    bool stopped_early = false;
    // On the heap so that a run stopped by the time budget can exit without waiting for the
    // loads still running (they are abandoned, see the end).
    auto load_pool_owner = std::make_unique<hola::bench::ThreadPool>(loaders);
    auto checkers_owner = std::make_unique<hola::bench::ThreadPool>(checker_threads);
    hola::bench::ThreadPool& load_pool = *load_pool_owner;
    hola::bench::ThreadPool& checkers = *checkers_owner;
    {
      std::deque<std::future<hola::bench::PreparedMatrix>> ahead;
      std::size_t next = 0;
      auto refill = [&] {
        while (next < sources.size() && ahead.size() < loaders + 1) {
          const hola::bench::Source src = sources[next++];
          ahead.push_back(load_pool.submit([src, &load_precisions, &settings, &stopping] {
            hola::bench::PreparedMatrix m;
            if (stopping) {
              m.source = src;
              m.error = "not loaded: time budget spent";
              return m;
            }
            return hola::bench::prepare_matrix(src, load_precisions, settings.index);
          }));
        }
      };
      Progress progress(sources.size(), !no_progress);
      refill();
      while (!ahead.empty()) {
        if (time_budget_s > 0 && seconds_since(start) > time_budget_s) {
          stopping = true;
          stopped_early = true;
          break;
        }
        hola::bench::PreparedMatrix m = ahead.front().get();
        ahead.pop_front();
        refill();
        ++processed;
        if (!m.error.empty()) {
          std::fprintf(stderr, "hola-bench: %s: %s\n", m.source.name.c_str(), m.error.c_str());
          failed.push_back(m.source.name + ": " + m.error);
          progress.done(processed, m.source.name);
          continue;
        }
        if (gpu) {
          const hola::bench::FeatureReport f = hola::bench::measure_features(m);
          if (!f.mismatch.empty()) {
            std::fprintf(stderr, "hola-bench: %s: %s\n", m.source.name.c_str(), f.mismatch.c_str());
            failed.push_back(m.source.name + ": " + f.mismatch);
          }
          matrices.push_back(matrix_json(m, &f));
        } else {
          matrices.push_back(matrix_json(m, nullptr));
        }
        if (!features_only) {
          // The checkers keep up with the GPU except on very large matrices; bound the queue
          // (each task holds an output vector).
          while (checkers.queued() > 4 * checker_threads)
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
          for (const auto& prec : precisions) {
            std::vector<hola::bench::PendingCheck> mine;
            auto rows = hola::bench::run_matrix(m, prec, op_list, kernels, settings, copy_gbs,
                                                checkers, mine);
            for (auto& p : mine) pending.push_back({p.row + all.size(), std::move(p.verdict)});
            for (const auto& r : rows) {
              char setup[128] = "";
              const hola::SetupTimes& st = r.setup_steps;
              if (r.setup_ms > 0 && st.analyze_ms + st.choose_ms + st.prepare_ms > 0)
                std::snprintf(setup, sizeof setup,
                              "setup %.3f ms (analyze %.3f, choose %.3f, prepare %.3f); ",
                              r.setup_ms, st.analyze_ms, st.choose_ms, st.prepare_ms);
              else if (r.setup_ms > 0)
                std::snprintf(setup, sizeof setup, "setup %.3f ms; ", r.setup_ms);
              // No cuSPARSE time in runs without a GPU: a dash, not 0.00x.
              char versus[32] = "       -";
              if (r.speedup_vs_cusparse > 0)
                std::snprintf(versus, sizeof versus, "%7.2fx", r.speedup_vs_cusparse);
              // --graph: µs per product in the graph, its ratio to cuSPARSE's, kernel nodes of
              // one product; dashes where not measured.
              std::string graph;
              if (settings.graph) {
                char us[16] = "       -", gversus[16] = "        -", launches[16] = "       -";
                if (r.graph_ms > 0) std::snprintf(us, sizeof us, "%8.2f", r.graph_ms * 1e3);
                if (r.graph_speedup_vs_cusparse > 0)
                  std::snprintf(gversus, sizeof gversus, "%8.2fx", r.graph_speedup_vs_cusparse);
                if (r.graph_nodes)
                  std::snprintf(launches, sizeof launches, "%8d", r.graph_nodes->kernel);
                graph = std::string(us) + " " + gversus + " " + launches + " ";
              }
              std::string note = r.note;
              if (!r.graph_note.empty())
                note += (note.empty() ? "" : "; ") + std::string("graph: ") + r.graph_note;
              std::printf("%-16s %-6s %-2s %-22s %10lld %10.4f %7.1f%% %s %s%s%s\n",
                          r.matrix.c_str(), r.precision.c_str(), r.op.c_str(), r.kernel.c_str(),
                          static_cast<long long>(r.nnz), r.time_ms, r.pct_floor, versus,
                          graph.c_str(), setup, note.c_str());
            }
            std::fflush(stdout);
            all.insert(all.end(), rows.begin(), rows.end());
          }
        }
        progress.done(processed, m.source.name);
      }
      for (auto& p : pending) {
        const std::string verdict = p.verdict.get();
        hola::bench::Row& r = all[p.row];
        r.correct = verdict.empty();
        if (!verdict.empty()) r.note = verdict + (r.note.empty() ? "" : "; " + r.note);
      }
      if (stopped_early) {
        std::fprintf(stderr,
                     "hola-bench: time budget of %.0f s spent after %zu of %zu matrices; writing "
                     "what was measured\n",
                     time_budget_s, processed, sources.size());
        // Loads still running would only delay the exit: abandon them.
        load_pool_owner.release();
        ahead.clear();  // futures of std::packaged_task do not block in their destructor
      }
    }
    checkers_owner.reset();

    bool all_correct = true;
    for (const auto& r : all)
      if (!r.correct && r.note != "op not supported") {
        all_correct = false;
        std::fprintf(stderr, "hola-bench: %s %s op %s %s: %s\n", r.matrix.c_str(),
                     r.precision.c_str(), r.op.c_str(), r.kernel.c_str(), r.note.c_str());
      }
    if (!json_path.empty()) {
      nlohmann::json j;
      j["commit"] = commit;
      j["device"] = device;
      j["command"] = command;
      j["copy_bandwidth_gbs"] = copy_gbs;
      j["host_copy_bandwidth_gbs"] = settings.host_copy_gbs;
      j["index_type"] = settings.index;
      j["reps"] = settings.reps;
      j["beta"] = settings.beta;
      j["auto_compress_empty_rows"] = settings.auto_compress;
      j["warmup"] = settings.warmup;
      j["time_cap_ms"] = settings.time_cap_ms;
      j["graph"] = settings.graph;
      j["block_us"] = settings.block_us;
      if (settings.graph) j["graph_products"] = settings.graph_products;
      j["matrices_requested"] = sources.size();
      j["stopped_early"] = stopped_early;
      j["failed"] = failed;
      j["wall_s"] = seconds_since(start);
      j["matrices"] = matrices;
      j["results"] = nlohmann::json::array();
      for (const auto& r : all) {
        nlohmann::json row = {{"matrix", r.matrix},
                              {"family", r.family},
                              {"rows", r.rows},
                              {"cols", r.cols},
                              {"nnz", r.nnz},
                              {"precision", r.precision},
                              {"op", r.op},
                              {"kernel", r.kernel},
                              {"time_ms", r.time_ms},
                              {"min_ms", r.min_ms},
                              {"runs", r.runs},
                              {"late_runs", r.late_runs},
                              {"block_us", r.block_us},
                              {"floor_ms", r.floor_ms},
                              {"pct_floor", r.pct_floor},
                              {"speedup_vs_cusparse", r.speedup_vs_cusparse},
                              {"gbs", r.gbs},
                              {"workspace_bytes", r.workspace_bytes},
                              {"first_setup_ms", r.first_setup_ms},
                              {"first_run_ms", r.first_run_ms},
                              {"setup_ms", r.setup_ms},
                              {"setup_steps_ms",
                               {{"analyze", r.setup_steps.analyze_ms},
                                {"choose", r.setup_steps.choose_ms},
                                {"prepare", r.setup_steps.prepare_ms}}},
                              {"correct", r.correct},
                              {"note", r.note}};
        // --graph, GPU rows: node counts are null where not even one product was captured.
        if (r.graph_tried) {
          row["graph_capturable"] = r.graph_capturable;
          row["graph_kernels_per_product"] = nullptr;
          row["graph_nodes_per_product"] = nullptr;
          row["graph_node_types"] = nullptr;
          if (r.graph_nodes) {
            const hola::bench::GraphNodeCounts& n = *r.graph_nodes;
            row["graph_kernels_per_product"] = n.kernel;
            row["graph_nodes_per_product"] = n.total();
            row["graph_node_types"] = {{"kernel", n.kernel},
                                       {"memset", n.memset},
                                       {"memcpy", n.memcpy},
                                       {"other", n.other}};
          }
          row["graph_ms"] = r.graph_ms;
          row["graph_runs"] = r.graph_runs;
          row["graph_speedup"] = r.graph_speedup_vs_cusparse;
          row["graph_note"] = r.graph_note;
        }
        j["results"].push_back(row);
      }
      std::ofstream(json_path) << j.dump(1) << "\n";
    }
    if (!csv_path.empty()) {
      std::ofstream csv(csv_path);
      csv << "matrix,rows,cols,nnz,precision,op,kernel,time_ms,pct_floor,speedup_vs_cusparse,"
             "correct,note,family,runs";
      // --graph: its columns last, so that the columns before keep their places.
      if (settings.graph)
        csv << ",graph_capturable,graph_kernels_per_product,graph_nodes_per_product,graph_ms,"
               "graph_speedup,graph_note";
      csv << "\n";
      for (const auto& r : all) {
        csv << r.matrix << ',' << r.rows << ',' << r.cols << ',' << r.nnz << ',' << r.precision
            << ',' << r.op << ',' << r.kernel << ',' << r.time_ms << ',' << r.pct_floor << ','
            << r.speedup_vs_cusparse << ',' << r.correct << ",\"" << r.note << "\"," << r.family
            << ',' << r.runs;
        if (settings.graph) {
          csv << ',';
          if (r.graph_tried) csv << r.graph_capturable;
          csv << ',';
          if (r.graph_nodes)
            csv << r.graph_nodes->kernel << ',' << r.graph_nodes->total();
          else
            csv << ',';
          csv << ',' << r.graph_ms << ',' << r.graph_speedup_vs_cusparse << ",\"" << r.graph_note
              << '"';
        }
        csv << "\n";
      }
    }
    if (!all_correct) {
      std::fprintf(stderr, "hola-bench: some kernels gave WRONG results (see the note column)\n");
      exit_code = 1;
    }
    if (!failed.empty()) {
      std::fprintf(stderr, "hola-bench: %zu matrices failed (listed in the JSON)\n", failed.size());
      exit_code = 1;
    }
    if (stopped_early) {
      std::fflush(stdout);
      std::fflush(stderr);
      std::_Exit(exit_code);  // without joining the abandoned loader threads
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "hola-bench: %s\n", e.what());
    return 1;
  }
  return exit_code;
}
