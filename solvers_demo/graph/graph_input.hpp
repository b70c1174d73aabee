// Graph input shared by hola-bfs and hola-pagerank: a Matrix Market file or a Graph500-style
// Kronecker (R-MAT) graph, optionally made undirected (A + A^T pattern, self-loops dropped), and
// its "graph" block in their --output JSON.
#pragma once

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "hola/generators.hpp"
#include "hola/matrix_market.hpp"

namespace hola::demo {

// Pattern of A + A^T without the diagonal, values 1.
inline gen::Csr64 undirected(const gen::Csr64& m) {
  std::vector<std::int64_t> deg(static_cast<std::size_t>(m.rows) + 1, 0);
  for (std::int64_t r = 0; r < m.rows; ++r)
    for (auto k = m.row_ptr[r]; k < m.row_ptr[r + 1]; ++k)
      if (m.col_idx[k] != r) {
        ++deg[r + 1];
        ++deg[m.col_idx[k] + 1];
      }
  for (std::int64_t r = 0; r < m.rows; ++r) deg[r + 1] += deg[r];
  std::vector<std::int64_t> cols(static_cast<std::size_t>(deg[m.rows]));
  std::vector<std::int64_t> next(deg.begin(), deg.end() - 1);
  for (std::int64_t r = 0; r < m.rows; ++r)
    for (auto k = m.row_ptr[r]; k < m.row_ptr[r + 1]; ++k)
      if (m.col_idx[k] != r) {
        cols[next[r]++] = m.col_idx[k];
        cols[next[m.col_idx[k]]++] = r;
      }
  gen::Csr64 s;
  s.rows = s.cols = m.rows;
  s.row_ptr.assign(1, 0);
  for (std::int64_t r = 0; r < m.rows; ++r) {
    auto b = cols.begin() + deg[r], e = cols.begin() + deg[r + 1];
    std::sort(b, e);
    e = std::unique(b, e);
    for (auto it = b; it != e; ++it) s.col_idx.push_back(*it);
    s.row_ptr.push_back(static_cast<std::int64_t>(s.col_idx.size()));
  }
  s.values.assign(s.col_idx.size(), 1.0);
  return s;
}

// Where the graph comes from: --matrix FILE, else --kronecker SCALE with --edge-factor.
struct GraphInput {
  std::string file;
  int scale = 16;
  int edge_factor = 16;
};

// The options of GraphInput (the first options of both demos).
inline void add_graph_options(CLI::App& app, GraphInput& in) {
  app.add_option("-m,--matrix", in.file, "Matrix Market file (edge i -> j per entry a_ij)")
      ->check(CLI::ExistingFile);
  app.add_option("-k,--kronecker", in.scale, "Kronecker (R-MAT) graph of 2^SCALE vertices")
      ->check(CLI::Range(1, 30));
  app.add_option("-e,--edge-factor", in.edge_factor, "edges per vertex of the Kronecker graph")
      ->check(CLI::Range(1, 1024));
}

// The graph of `in` (the Kronecker graph drawn with `seed`); `make_undirected` symmetrizes.
inline gen::Csr64 load_graph(const GraphInput& in, std::uint64_t seed, bool make_undirected) {
  gen::Csr64 g = in.file.empty() ? gen::rmat(in.scale, in.edge_factor, seed)
                                 : read_matrix_market<double, std::int64_t, std::int64_t>(in.file);
  return make_undirected ? undirected(g) : g;
}

// The "graph" block of the demos' --output JSON: where `g` came from (source, and scale and
// edge factor of a Kronecker graph, 0 for a file) and its vertices, plus `extra` (each demo's
// edge count and direction, under its own names).
inline nlohmann::json graph_json(const GraphInput& in, const gen::Csr64& g,
                                 const nlohmann::json& extra) {
  nlohmann::json j = {{"source", in.file.empty() ? "kronecker" : in.file},
                      {"scale", in.file.empty() ? in.scale : 0},
                      {"edge_factor", in.file.empty() ? in.edge_factor : 0},
                      {"vertices", g.rows}};
  j.update(extra);
  return j;
}

}  // namespace hola::demo
