#include "corpus.hpp"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <random>
#include <stdexcept>
#include <string>
#include <system_error>

#include "hola/matrix_market.hpp"

namespace hola::test {

bool reduced() {
  const char* r = std::getenv("HOLA_TEST_REDUCED");
  return r && *r && std::string(r) != "0";
}

std::vector<NamedMatrix> family_corpus() {
  std::vector<NamedMatrix> c;
  auto add = [&](std::string name, gen::Csr64 A) { c.push_back({std::move(name), std::move(A)}); };
  if (reduced()) {
    // For compute-sanitizer runs (10-100x slower): one of each kind of structure, small.
    add("poisson2d 20x20", gen::poisson2d(20, 20));
    add("rmat scale 9", gen::rmat(9, 8, 14));
    add("circuit", gen::circuit(3000, 15, 0.3, 2, 1500, 4.0));
    add("single row 1x5000", gen::single_row(5000, 4000, 18));
    add("all rows empty 50x40", gen::empty(50, 40));
    add("0x0", gen::empty(0, 0));
    return c;
  }
  add("poisson2d 60x50", gen::poisson2d(60, 50));
  add("poisson3d 24^3", gen::poisson3d(24, 24, 24));
  add("stencil27 14^3", gen::stencil27(14, 14, 14));
  add("banded sigma=10", gen::banded_normal(6000, 12, 10.0, 11));
  add("banded sigma=1000", gen::banded_normal(6000, 12, 1000.0, 12));
  add("banded uniform", gen::banded_normal(6000, 12, 0.0, 13));
  add("rmat scale 13", gen::rmat(13, 8, 14));
  add("circuit", gen::circuit(20000, 15, 0.3, 3, 9000, 4.0));
  add("arrow 3000", gen::arrow(3000));
  add("wide 200x9000", gen::random_rect(200, 9000, 40, 16));
  add("tall 9000x150", gen::random_rect(9000, 150, 5, 17));
  add("medium rows 500x500", gen::random_rect(500, 500, 120, 23));
  add("0x0", gen::empty(0, 0));
  add("5x0", gen::empty(5, 0));
  add("0x7", gen::empty(0, 7));
  add("all rows empty 500x400", gen::empty(500, 400));
  add("single row 1x20000", gen::single_row(20000, 15000, 18));
  add("single column 7000x1", gen::single_column(7000, 19));
  add("one full row", gen::one_full_row(4000, 4000, 1234, 20));
  add("1x1", gen::random_with_nnz(1, 1, 1, 21));
  add("tiny 3x4", gen::random_with_nnz(3, 4, 5, 22));
  return c;
}

std::vector<NamedMatrix> boundary_corpus(std::int64_t nnz_per_block) {
  std::vector<NamedMatrix> c;
  for (std::int64_t k = 1; k <= 3; ++k) {
    for (std::int64_t d = -1; d <= 1; ++d) {
      const std::int64_t nnz = k * nnz_per_block + d;
      if (nnz <= 0) continue;
      const std::uint64_t seed = static_cast<std::uint64_t>(100 + 3 * k + d);
      const std::string tag = std::to_string(k) + "*npb" + (d < 0 ? "-1" : d > 0 ? "+1" : "");
      // Many short rows (some empty), and the same count inside one single row.
      const std::int64_t rows = std::max<std::int64_t>(1, nnz / 3);
      c.push_back({"boundary rows " + tag, gen::random_with_nnz(rows, rows, nnz, seed)});
      c.push_back({"boundary one row " + tag, gen::single_row(nnz + 5, nnz, seed)});
    }
  }
  return c;
}

namespace {

// Where the real matrices are looked for, at run time: the environment variable
// HOLA_MATRICES_DIR when set and not empty (only there: a missing folder means no matrices, so
// HOLA_MATRICES_DIR=/nonexistent runs the suite as a fresh clone would), else the build's default
// (the CMake cache variable HOLA_MATRICES_DIR, by default ../shared/matrices beside the sources).
std::string matrices_candidate(bool* from_env) {
  const char* env = std::getenv("HOLA_MATRICES_DIR");
  *from_env = env && *env;
  return *from_env ? std::string(env) : std::string(HOLA_DEFAULT_MATRICES_DIR);
}

}  // namespace

std::string matrices_dir() {
  bool from_env = false;
  const std::string dir = matrices_candidate(&from_env);
  std::error_code ec;
  return !dir.empty() && std::filesystem::is_directory(dir, ec) ? dir : std::string();
}

std::string matrices_missing_reason() {
  bool from_env = false;
  const std::string dir = matrices_candidate(&from_env);
  return "real test matrices not found: " +
         (from_env ? "HOLA_MATRICES_DIR=" + dir + " is not a directory"
                   : "HOLA_MATRICES_DIR is not set and the default " + dir + " is absent") +
         " (set HOLA_MATRICES_DIR to the folder of the shared corpus to run these tests)";
}

std::vector<NamedMatrix> real_corpus() {
  namespace fs = std::filesystem;
  const std::string dir = matrices_dir();
  if (dir.empty()) throw std::runtime_error(matrices_missing_reason());
  std::vector<std::string> files;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().extension() == ".mtx") files.push_back(e.path().string());
  std::sort(files.begin(), files.end());
  if (files.empty()) throw std::runtime_error("no .mtx files in " + dir);
  if (reduced()) files.resize(std::min<std::size_t>(files.size(), 2));
  std::vector<NamedMatrix> c;
  for (const std::string& f : files) {
    MatrixMarketInfo info;
    auto A = read_matrix_market<double, std::int64_t, std::int64_t>(f, &info);
    if (info.field == MmField::pattern) {
      // Value 1 everywhere would hide wrong column indices in symmetric sums: use random values.
      std::mt19937_64 rng(A.nnz());
      std::uniform_real_distribution<double> d(0.1, 1.0);
      for (auto& v : A.values) v = (rng() & 1) ? d(rng) : -d(rng);
    }
    c.push_back({fs::path(f).filename().string(), std::move(A)});
  }
  return c;
}

std::uint64_t fresh_seed() {
  static std::random_device rd;
  return (static_cast<std::uint64_t>(rd()) << 32) ^ rd();
}

}  // namespace hola::test
