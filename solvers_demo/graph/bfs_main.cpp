// hola-bfs: direction-optimizing BFS on the host SpMSpV kernels (docs/spmspv.md). Graph500-style:
// a Kronecker graph (undirected) or a Matrix Market file, BFS from several random roots with a
// reached vertex, each result checked with the Graph500 parent rules, TEPS per root and their
// harmonic mean.
#include <CLI/CLI.hpp>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

#include "graph_input.hpp"
#include "hola/error.hpp"
#include "hola/spmspv_graph.hpp"
#include "hola/validate.hpp"

int main(int argc, char** argv) {
  CLI::App app{"Hola BFS: direction-optimizing breadth-first search on SpMSpV (host)"};
  hola::demo::GraphInput input;
  std::string direction = "auto";
  int roots = 16;
  std::uint64_t seed = 1;
  bool directed = false, no_validate = false;
  hola::demo::add_graph_options(app, input);
  app.add_option("-r,--roots", roots, "number of BFS roots")->check(CLI::Range(1, 1 << 20));
  app.add_option("-d,--direction", direction, "auto, push or pull")
      ->check(CLI::IsMember({"auto", "push", "pull"}));
  app.add_option("-s,--seed", seed, "seed of the graph and of the roots");
  app.add_flag("--directed", directed, "keep the graph directed (default: A + A^T)");
  app.add_flag("--no-validate", no_validate, "skip the Graph500 parent check");
  CLI11_PARSE(app, argc, argv);

  try {
    using clock = std::chrono::steady_clock;
    const auto g = hola::demo::load_graph(input, seed, !directed);
    const auto A = g.view();
    std::printf("graph: %lld vertices, %lld stored edges (%s)\n", static_cast<long long>(g.rows),
                static_cast<long long>(g.nnz()), directed ? "directed" : "undirected");
    hola::spmspv::BfsOptions opt;
    opt.direction = direction == "push"   ? hola::spmspv::BfsDirection::push
                    : direction == "pull" ? hola::spmspv::BfsDirection::pull
                                          : hola::spmspv::BfsDirection::automatic;
    opt.symmetric = !directed;
    hola::validate_csr(A);  // once; not inside the timed searches
    opt.validate = false;
    std::mt19937_64 rng(seed + 12345);
    double inv_sum = 0;
    int done = 0, failed = 0;
    for (int attempt = 0; done < roots && attempt < 100 * roots && g.rows > 0; ++attempt) {
      const std::int64_t root =
          static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(g.rows));
      if (g.row_ptr[root + 1] == g.row_ptr[root]) continue;  // Graph500: roots with an edge
      const auto t0 = clock::now();
      const auto r = hola::spmspv::bfs(A, root, opt);
      const double sec = std::chrono::duration<double>(clock::now() - t0).count();
      // Graph500 counts undirected edges once: stored entries / 2 when symmetrized.
      const double edges = directed ? double(r.edges) : double(r.edges) / 2;
      const double teps = sec > 0 ? edges / sec : 0;
      std::string check = "not checked";
      if (!no_validate) {
        check = hola::spmspv::check_bfs_parents(A, root, r.parent);
        if (!check.empty()) ++failed;
        if (check.empty()) check = "valid";
      }
      int push = 0;
      for (auto s : r.steps) push += s == hola::spmspv::Algorithm::vector_driven;
      std::printf(
          "root %lld: reached %lld, depth %d, %d push + %d pull levels, %.3f ms, %.3f "
          "MTEPS, %s\n",
          static_cast<long long>(root), static_cast<long long>(r.reached), r.depth, push,
          static_cast<int>(r.steps.size()) - push, sec * 1e3, teps / 1e6, check.c_str());
      if (teps > 0) inv_sum += 1 / teps;
      ++done;
    }
    if (done > 0 && inv_sum > 0)
      std::printf("harmonic mean over %d roots: %.3f MTEPS\n", done, done / inv_sum / 1e6);
    if (failed > 0) {
      std::printf("%d roots FAILED validation\n", failed);
      return 1;
    }
    return done > 0 ? 0 : 1;
  } catch (const hola::error& e) {
    std::fprintf(stderr, "hola-bfs: %s (%s)\n", e.what(), hola::status_name(e.code()));
    return 2;
  }
}
