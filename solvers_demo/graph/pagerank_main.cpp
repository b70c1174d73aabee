// hola-pagerank: PageRank on the host (docs/spmspv.md): a Kronecker graph or a Matrix Market
// file, damping, tolerance, optional personalization on a few vertices; prints iterations, time
// per iteration and the top-ranked vertices.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <numeric>
#include <vector>

#include "graph_input.hpp"
#include "hola/error.hpp"
#include "hola/spmspv_graph.hpp"

int main(int argc, char** argv) {
  CLI::App app{"Hola PageRank (host)"};
  hola::demo::GraphInput input;
  int max_iter = 100, top = 10;
  std::uint64_t seed = 1;
  double damping = 0.85, tol = 1e-9;
  bool undirected = false;
  std::vector<std::int64_t> personal;
  hola::demo::add_graph_options(app, input);
  app.add_option("-s,--seed", seed, "seed of the graph");
  app.add_option("--damping", damping, "damping factor in [0, 1)")
      ->check(CLI::Range(0.0, 0.999999));
  app.add_option("--tol", tol, "stop when the L1 change of one iteration is below this");
  app.add_option("--max-iter", max_iter, "iteration limit")->check(CLI::Range(0, 100000));
  app.add_option("--personalize", personal, "teleport only to these vertices (equal weights)");
  app.add_option("--top", top, "vertices to print")->check(CLI::Range(0, 1000));
  app.add_flag("--undirected", undirected, "use A + A^T");
  CLI11_PARSE(app, argc, argv);

  try {
    const auto g = hola::demo::load_graph(input, seed, undirected);
    std::printf("graph: %lld vertices, %lld edges\n", static_cast<long long>(g.rows),
                static_cast<long long>(g.nnz()));
    hola::spmspv::PageRankOptions opt;
    opt.damping = damping;
    opt.tolerance = tol;
    opt.max_iterations = max_iter;
    if (!personal.empty()) {
      opt.personalization.assign(static_cast<std::size_t>(g.rows), 0.0);
      for (auto v : personal) {
        if (v < 0 || v >= g.rows)
          throw hola::error(hola::status::invalid_argument, "--personalize: vertex out of range");
        opt.personalization[v] = 1.0;
      }
    }
    const auto t0 = std::chrono::steady_clock::now();
    const auto r = hola::spmspv::pagerank(g.view(), opt);
    const double sec = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const double sum = std::accumulate(r.rank.begin(), r.rank.end(), 0.0);
    std::printf(
        "%d iterations, last L1 change %.3e, %.3f ms total (%.3f ms per iteration, setup "
        "included), sum of ranks %.12f\n",
        r.iterations, r.change, sec * 1e3, r.iterations ? sec * 1e3 / r.iterations : 0.0, sum);
    std::vector<std::int64_t> order(r.rank.size());
    std::iota(order.begin(), order.end(), 0);
    const auto k = std::min<std::size_t>(static_cast<std::size_t>(top), order.size());
    std::partial_sort(order.begin(), order.begin() + k, order.end(),
                      [&](auto a, auto b) { return r.rank[a] > r.rank[b]; });
    for (std::size_t i = 0; i < k; ++i)
      std::printf("%3zu. vertex %lld  %.6e\n", i + 1, static_cast<long long>(order[i]),
                  r.rank[order[i]]);
    return 0;
  } catch (const hola::error& e) {
    std::fprintf(stderr, "hola-pagerank: %s (%s)\n", e.what(), hola::status_name(e.code()));
    return 2;
  }
}
