// Deterministic matrix generators (docs/architecture.md, "Test matrices").
//
// Determinism: every random quantity comes from a splitmix64 stream keyed by (seed, family tag,
// row or chunk index), so the result does not depend on the number of OpenMP threads nor on the
// schedule. Everything that decides structure uses integer arithmetic or single, correctly
// rounded IEEE operations (no libm transcendental functions, no std:: distributions, nothing a
// compiler may contract into an FMA), so the same seed gives the same bits on any platform.
#include "hola/generators.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <new>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include "hola/error.hpp"

#ifdef _OPENMP
#include <omp.h>
#endif

namespace hola::gen {
namespace {

using i64 = std::int64_t;
using u64 = std::uint64_t;
using u32 = std::uint32_t;
using u128 = unsigned __int128;

constexpr u64 kGamma = 0x9e3779b97f4a7c15ULL;

constexpr u64 mix64(u64 z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// Family tags: the same seed gives unrelated streams in different generators.
enum class Tag : u64 {
  banded = 1,
  random_rect,
  rmat_edges,
  rmat_values,
  rmat_noise,
  circuit_shape,
  circuit_cols,
  circuit_long,
  arrow,
  random_nnz,
  single_row,
  single_column,
  one_full_row,
  powerlaw_lengths,
  powerlaw_cols,
  powerlaw_values,
  permutation,
};

// splitmix64: tiny state, passes BigCrush, and cheap to seed per row.
class Rng {
 public:
  explicit Rng(u64 state) : s_(state) {}
  u64 next() {
    s_ += kGamma;
    return mix64(s_);
  }
  // Uniform in [0, n) by multiply-high (bias below n / 2^64, irrelevant here); n > 0.
  u64 below(u64 n) { return static_cast<u64>((static_cast<u128>(next()) * n) >> 64); }
  // Uniform in [-1, 1] without 0: magnitude (m + 1) / 2^53 is exact, sign from a separate bit.
  double value() {
    const u64 r = next();
    const double mag = static_cast<double>((r >> 11) + 1) * 0x1p-53;
    return (r & 1) ? -mag : mag;
  }
  // Approximately standard normal: Irwin-Hall sum of twelve 16-bit uniforms. Integer sum, one
  // exact division, so identical everywhere; tails stop at +-6 sigma, harmless for matrices.
  double normal() {
    i64 s = 0;
    for (int k = 0; k < 3; ++k) {
      const u64 r = next();
      s += static_cast<i64>(r & 0xffff) + static_cast<i64>((r >> 16) & 0xffff) +
           static_cast<i64>((r >> 32) & 0xffff) + static_cast<i64>(r >> 48);
    }
    return static_cast<double>(2 * s - 12 * 65535) / 131072.0;
  }

 private:
  u64 s_;
};

Rng stream(u64 seed, Tag tag, u64 index) {
  return Rng(mix64(mix64(mix64(seed) ^ static_cast<u64>(tag) * kGamma) + index));
}

// floor(p * 2^64) for p in [0, 1); comparisons next() < threshold are Bernoulli(p) draws.
u64 prob_threshold(double p) {
  if (!(p > 0)) return 0;
  if (p >= 1) return std::numeric_limits<u64>::max();
  return static_cast<u64>(std::ldexp(p, 64));  // exact scaling by a power of two
}

[[noreturn]] void bad_arg(const std::string& where, const std::string& what) {
  fail(status::invalid_argument, "hola::gen::" + where + ": " + what);
}

void require(bool ok, const char* where, const std::string& what) {
  if (!ok) bad_arg(where, what);
}

// Below this much work a parallel region costs more than it saves (and much more on a loaded
// machine, where a barrier can wait a whole scheduler time slice).
constexpr std::int64_t kSerialBelow = 1 << 16;

// Caps that keep every size computation inside int64 (far beyond any host memory).
constexpr i64 kMaxEntries = i64(1) << 48;

i64 checked_product(i64 a, i64 b, const char* where) {
  const u128 p = static_cast<u128>(a) * static_cast<u128>(b);
  if (p > static_cast<u128>(kMaxEntries)) bad_arg(where, "size too large");
  return static_cast<i64>(p);
}

// Runs a generator body; allocation failure becomes hola::error(out_of_memory).
template <class F>
Csr64 guarded(const char* where, F&& body) {
  try {
    return body();
  } catch (const std::bad_alloc&) {
    fail(status::out_of_memory, std::string("hola::gen::") + where + ": out of host memory");
  }
}

Csr64 make_shell(i64 rows, i64 cols) {
  Csr64 m;
  m.rows = rows;
  m.cols = cols;
  m.row_ptr.assign(static_cast<std::size_t>(rows) + 1, 0);
  return m;
}

// row_ptr[i + 1] holds row i's length on entry, the offsets on exit; sizes the arrays.
void finish_offsets(Csr64& m) {
  for (i64 i = 0; i < m.rows; ++i) m.row_ptr[i + 1] += m.row_ptr[i];
  const auto nnz = static_cast<std::size_t>(m.row_ptr[m.rows]);
  m.col_idx.resize(nnz);
  m.values.resize(nnz);
}

// Short rows dominate: insertion sort beats std::sort's setup there.
template <class T>
void sort_small(T* first, T* last) {
  if (last - first > 32) {
    std::sort(first, last);
    return;
  }
  for (T* i = first + 1; i < last; ++i) {
    const T v = *i;
    T* j = i;
    for (; j > first && *(j - 1) > v; --j) *j = *(j - 1);
    *j = v;
  }
}

// Extends `buf` (sorted, unique, values in [0, n)) to exactly k distinct sorted values.
// `draw` proposes candidates; after a few rounds of collisions, uniform draws take over so that
// the loop ends even for a narrow `draw`. Needs k <= n.
template <class Draw>
void fill_distinct(Rng& rng, i64 k, i64 n, std::vector<i64>& buf, Draw&& draw) {
  if (static_cast<i64>(buf.size()) >= k) return;
  if (2 * k > n) {
    // Dense: selection sampling (Knuth's algorithm S) over the values not yet present gives a
    // sorted result in O(n) without rejection.
    std::vector<i64> have;
    have.swap(buf);
    i64 need = k - static_cast<i64>(have.size());
    i64 left = n - static_cast<i64>(have.size());
    std::size_t h = 0;
    buf.reserve(static_cast<std::size_t>(k));
    for (i64 v = 0; v < n; ++v) {
      if (h < have.size() && have[h] == v) {
        buf.push_back(v);
        ++h;
        continue;
      }
      if (need > 0 && static_cast<i64>(rng.below(static_cast<u64>(left))) < need) {
        buf.push_back(v);
        --need;
      }
      --left;
    }
    return;
  }
  for (int round = 0; static_cast<i64>(buf.size()) < k; ++round) {
    const std::size_t old = buf.size();
    const i64 need = k - static_cast<i64>(old);
    for (i64 j = 0; j < need; ++j)
      buf.push_back(round < 8 ? draw(rng) : static_cast<i64>(rng.below(static_cast<u64>(n))));
    sort_small(buf.data() + old, buf.data() + buf.size());
    std::inplace_merge(buf.begin(), buf.begin() + static_cast<std::ptrdiff_t>(old), buf.end());
    buf.erase(std::unique(buf.begin(), buf.end()), buf.end());
  }
}

void distinct_uniform(Rng& rng, i64 k, i64 n, std::vector<i64>& buf) {
  buf.clear();
  fill_distinct(rng, k, n, buf, [n](Rng& r) { return static_cast<i64>(r.below(u64(n))); });
}

// LSD radix sort of the low `bits` bits of the keys (higher bits must be zero), 11-bit digits.
// Threads count and scatter contiguous slices; the sorted keys do not depend on the split.
void radix_sort(std::vector<u64>& keys, int bits) {
  constexpr int kDigit = 11;
  constexpr std::size_t kBuckets = std::size_t(1) << kDigit;
  const i64 n = static_cast<i64>(keys.size());
  if (n < 2 || bits <= 0) return;
  std::vector<u64> tmp(keys.size());
  int threads = 1;
#ifdef _OPENMP
  if (n > 16 * kSerialBelow) threads = omp_get_max_threads();
#endif
  std::vector<i64> count(kBuckets * static_cast<std::size_t>(threads));
  for (int shift = 0; shift < bits; shift += kDigit) {
    std::fill(count.begin(), count.end(), 0);
#pragma omp parallel num_threads(threads)
    {
      int t = 0, nt = 1;
#ifdef _OPENMP
      t = omp_get_thread_num();
      nt = omp_get_num_threads();
#endif
      const i64 lo = n * t / nt, hi = n * (t + 1) / nt;
      i64* c = count.data() + kBuckets * static_cast<std::size_t>(t);
      for (i64 e = lo; e < hi; ++e) ++c[(keys[e] >> shift) & (kBuckets - 1)];
#pragma omp barrier
#pragma omp single
      {
        // Exclusive prefix in (digit, thread) order keeps the sort stable.
        i64 sum = 0;
        for (std::size_t d = 0; d < kBuckets; ++d)
          for (int u = 0; u < nt; ++u) {
            i64& x = count[kBuckets * static_cast<std::size_t>(u) + d];
            const i64 v = x;
            x = sum;
            sum += v;
          }
      }
      for (i64 e = lo; e < hi; ++e) tmp[c[(keys[e] >> shift) & (kBuckets - 1)]++] = keys[e];
    }
    keys.swap(tmp);
  }
}

// ---------------------------------------------------------------------------------------------
// Stencils on an nx x ny x nz grid, index x + nx (y + ny z). Scanning dz, dy, dx upwards gives
// increasing columns, so rows come out sorted.

Csr64 stencil(const char* where, i64 nx, i64 ny, i64 nz, bool full27, double diag) {
  require(nx >= 0 && ny >= 0 && nz >= 0, where, "grid sizes must be >= 0");
  const i64 n = checked_product(checked_product(nx, ny, where), nz, where);
  checked_product(n, 27, where);
  // Neighbour offsets in increasing column order (dz, then dy, then dx).
  struct Offset {
    int dx, dy, dz;
  };
  std::vector<Offset> offsets;
  for (int dz = -1; dz <= 1; ++dz)
    for (int dy = -1; dy <= 1; ++dy)
      for (int dx = -1; dx <= 1; ++dx)
        if (full27 || std::abs(dx) + std::abs(dy) + std::abs(dz) <= 1)
          offsets.push_back({dx, dy, dz});
  Csr64 m = make_shell(n, n);
  const i64 lines = ny * nz;
  // Neighbours per axis at coordinate v of an axis of length len: 1, 2 or 3.
  auto span = [](i64 v, i64 len) -> i64 { return 1 + (v > 0) + (v + 1 < len); };
#pragma omp parallel for if (n > kSerialBelow) schedule(static)
  for (i64 line = 0; line < lines; ++line) {
    const i64 y = line % ny, z = line / ny;
    const i64 sy = span(y, ny), sz = span(z, nz);
    for (i64 x = 0; x < nx; ++x) {
      const i64 sx = span(x, nx);
      m.row_ptr[x + nx * line + 1] = full27 ? sx * sy * sz : sx + sy + sz - 2;
    }
  }
  finish_offsets(m);
#pragma omp parallel for if (n > kSerialBelow) schedule(static)
  for (i64 line = 0; line < lines; ++line) {
    const i64 y = line % ny, z = line / ny;
    for (i64 x = 0; x < nx; ++x) {
      const i64 row = x + nx * line;
      i64 p = m.row_ptr[row];
      for (const Offset& o : offsets) {
        if (x + o.dx < 0 || x + o.dx >= nx || y + o.dy < 0 || y + o.dy >= ny || z + o.dz < 0 ||
            z + o.dz >= nz)
          continue;
        m.col_idx[p] = row + o.dx + nx * (o.dy + ny * o.dz);
        m.values[p] = (o.dx | o.dy | o.dz) == 0 ? diag : -1.0;
        ++p;
      }
    }
  }
  return m;
}

// ---------------------------------------------------------------------------------------------
// Spec parsing helpers.

struct KeyDef {
  const char* name;
  const char* def;  // shown by spec_help; "" when the default depends on other keys
  const char* note;
};

class Params {
 public:
  Params(std::string family, std::string valid)
      : family_(std::move(family)), valid_(std::move(valid)) {}
  std::map<std::string, std::string> kv;

  bool has(const std::string& k) const { return kv.count(k) != 0; }

  i64 integer(const std::string& k, i64 def) const {
    auto it = kv.find(k);
    if (it == kv.end()) return def;
    const std::string& s = it->second;
    i64 v = 0;
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec == std::errc() && p == s.data() + s.size()) return v;
    // Accept integral scientific notation such as 1e6.
    double d = 0;
    auto [q, ec2] = std::from_chars(s.data(), s.data() + s.size(), d);
    if (ec2 == std::errc() && q == s.data() + s.size() && std::isfinite(d) && d == std::floor(d) &&
        std::fabs(d) <= 9.0e18)
      return static_cast<i64>(d);
    bad(k, s, "an integer");
  }

  u64 seed(const std::string& k = "seed") const {
    auto it = kv.find(k);
    if (it == kv.end()) return 1;
    const std::string& s = it->second;
    u64 v = 0;
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || p != s.data() + s.size()) bad(k, s, "an unsigned 64-bit integer");
    return v;
  }

  double real(const std::string& k, double def) const {
    auto it = kv.find(k);
    if (it == kv.end()) return def;
    const std::string& s = it->second;
    double v = 0;
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || p != s.data() + s.size() || !std::isfinite(v)) bad(k, s, "a number");
    return v;
  }

  int small_int(const std::string& k, i64 def) const {
    const i64 v = integer(k, def);
    if (v < std::numeric_limits<int>::min() || v > std::numeric_limits<int>::max())
      bad(k, kv.at(k), "a 32-bit integer");
    return static_cast<int>(v);
  }

  [[noreturn]] void bad(const std::string& k, const std::string& s, const char* what) const {
    fail(status::invalid_argument, "hola::gen::from_spec: " + family_ + ": value '" + s +
                                       "' of key '" + k + "' is not " + what +
                                       " (valid keys: " + valid_ + ")");
  }

 private:
  std::string family_;
  std::string valid_;
};

struct Family {
  const char* name;
  std::vector<KeyDef> keys;
  std::function<Csr64(const Params&)> build;
};

// Accepted by every family: the matrix P A P^T for a random permutation P from the seed.
constexpr KeyDef kPermKey{"perm", "", "rows and columns renumbered by a random permutation"};

const std::vector<Family>& families() {
  static const std::vector<Family> f = {
      {"poisson2d",
       {{"n", "1000", "grid side"}, {"nx", "", "=n"}, {"ny", "", "=n"}},
       [](const Params& p) {
         const i64 n = p.integer("n", 1000);
         return poisson2d(p.integer("nx", n), p.integer("ny", n));
       }},
      {"poisson3d",
       {{"n", "200", "grid side"}, {"nx", "", "=n"}, {"ny", "", "=n"}, {"nz", "", "=n"}},
       [](const Params& p) {
         const i64 n = p.integer("n", 200);
         return poisson3d(p.integer("nx", n), p.integer("ny", n), p.integer("nz", n));
       }},
      {"stencil27",
       {{"n", "128", "grid side"}, {"nx", "", "=n"}, {"ny", "", "=n"}, {"nz", "", "=n"}},
       [](const Params& p) {
         const i64 n = p.integer("n", 128);
         return stencil27(p.integer("nx", n), p.integer("ny", n), p.integer("nz", n));
       }},
      {"interp3d",
       {{"n", "65", "coarse grid side (fine side 2n - 1)"},
        {"nx", "", "=n"},
        {"ny", "", "=n"},
        {"nz", "", "=n"}},
       [](const Params& p) {
         const i64 n = p.integer("n", 65);
         return interpolation3d(p.integer("nx", n), p.integer("ny", n), p.integer("nz", n));
       }},
      {"elasticity",
       {{"n", "48", "node grid side"},
        {"nx", "", "=n"},
        {"ny", "", "=n"},
        {"nz", "", "=n"},
        {"block", "3", "unknowns per node"},
        {"points", "27", "node stencil: 27 or 7 (5 when nz = 1)"}},
       [](const Params& p) {
         const i64 n = p.integer("n", 48);
         return elasticity(p.integer("nx", n), p.integer("ny", n), p.integer("nz", n),
                           p.small_int("block", 3), p.small_int("points", 27));
       }},
      {"powerlaw",
       {{"rows", "1048576", ""},
        {"cols", "", "=rows"},
        {"mean", "16", "mean row length (before capping at cols)"},
        {"tail", "1.5", "Pareto tail index of the row lengths"},
        {"seed", "1", ""}},
       [](const Params& p) {
         const i64 rows = p.integer("rows", 1048576);
         return powerlaw_rows(rows, p.integer("cols", rows), p.real("mean", 16.0),
                              p.real("tail", 1.5), p.seed());
       }},
      {"banded",
       {{"rows", "1048576", ""},
        {"cols", "", "=rows; otherwise the band follows column row * cols / rows"},
        {"per_row", "22", "draws per row"},
        {"sigma", "10", "0 or 'uniform': uniform columns"},
        {"seed", "1", ""}},
       [](const Params& p) {
         double sigma = 0;
         if (!(p.has("sigma") && p.kv.at("sigma") == "uniform")) sigma = p.real("sigma", 10.0);
         const i64 rows = p.integer("rows", 1048576);
         return banded_normal(rows, p.integer("cols", rows), p.small_int("per_row", 22), sigma,
                              p.seed());
       }},
      {"random",
       {{"rows", "1048576", ""}, {"cols", "", "=rows"}, {"per_row", "22", ""}, {"seed", "1", ""}},
       [](const Params& p) {
         const i64 rows = p.integer("rows", 1048576);
         return random_rect(rows, p.integer("cols", rows), p.small_int("per_row", 22), p.seed());
       }},
      {"rmat",
       {{"scale", "21", "rows = 2^scale"},
        {"ef", "16", "edges per row before merging"},
        {"a", "0.57", ""},
        {"b", "0.19", ""},
        {"c", "0.19", "d = 1-a-b-c"},
        {"noise", "0", "relative per-level noise"},
        {"seed", "1", ""}},
       [](const Params& p) {
         return rmat(p.small_int("scale", 21), p.small_int("ef", 16), p.seed(), p.real("a", 0.57),
                     p.real("b", 0.19), p.real("c", 0.19), p.real("noise", 0.0));
       }},
      {"circuit",
       {{"rows", "4000000", ""},
        {"empty", "0.3", "fraction of empty rows"},
        {"long_rows", "8", ""},
        {"long_len", "0", "0: min(400000, rows)"},
        {"mean", "4", "mean length of non-empty short rows"},
        {"seed", "1", ""}},
       [](const Params& p) {
         return circuit(p.integer("rows", 4000000), p.seed(), p.real("empty", 0.3),
                        p.small_int("long_rows", 8), p.integer("long_len", 0), p.real("mean", 4.0));
       }},
      {"ghost",
       {{"n", "200", "grid side"}, {"nx", "", "=n"}, {"ny", "", "=n"}, {"nz", "", "=n/2"}},
       [](const Params& p) {
         const i64 n = p.integer("n", 200);
         return ghost_block(p.integer("nx", n), p.integer("ny", n), p.integer("nz", n / 2));
       }},
      {"arrow",
       {{"n", "100000", ""}},
       [](const Params& p) { return arrow(p.integer("n", 100000)); }},
      {"random_nnz",
       {{"rows", "1000", ""}, {"cols", "", "=rows"}, {"nnz", "10000", ""}, {"seed", "1", ""}},
       [](const Params& p) {
         const i64 rows = p.integer("rows", 1000);
         return random_with_nnz(rows, p.integer("cols", rows), p.integer("nnz", 10000), p.seed());
       }},
      {"empty",
       {{"rows", "1000", ""}, {"cols", "", "=rows"}},
       [](const Params& p) {
         const i64 rows = p.integer("rows", 1000);
         return empty(rows, p.integer("cols", rows));
       }},
      {"single_row",
       {{"cols", "1000000", ""}, {"nnz", "", "=cols"}, {"seed", "1", ""}},
       [](const Params& p) {
         const i64 cols = p.integer("cols", 1000000);
         return single_row(cols, p.integer("nnz", cols), p.seed());
       }},
      {"single_column",
       {{"rows", "1000000", ""}, {"seed", "1", ""}},
       [](const Params& p) { return single_column(p.integer("rows", 1000000), p.seed()); }},
      {"one_full_row",
       {{"rows", "100000", ""}, {"cols", "", "=rows"}, {"row", "0", ""}, {"seed", "1", ""}},
       [](const Params& p) {
         const i64 rows = p.integer("rows", 100000);
         return one_full_row(rows, p.integer("cols", rows), p.integer("row", 0), p.seed());
       }},
  };
  return f;
}

std::string key_list(const Family& f) {
  std::string s;
  for (const auto& k : f.keys) {
    if (!s.empty()) s += ", ";
    s += k.name;
  }
  return s;
}

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t");
  if (b == std::string::npos) return "";
  const auto e = s.find_last_not_of(" \t");
  return s.substr(b, e - b + 1);
}

}  // namespace

// ---------------------------------------------------------------------------------------------

Csr64 poisson2d(i64 nx, i64 ny) {
  return guarded("poisson2d", [&] { return stencil("poisson2d", nx, ny, 1, false, 4.0); });
}

Csr64 poisson3d(i64 nx, i64 ny, i64 nz) {
  return guarded("poisson3d", [&] { return stencil("poisson3d", nx, ny, nz, false, 6.0); });
}

Csr64 stencil27(i64 nx, i64 ny, i64 nz) {
  return guarded("stencil27", [&] { return stencil("stencil27", nx, ny, nz, true, 26.0); });
}

Csr64 interpolation3d(i64 cx, i64 cy, i64 cz) {
  constexpr const char* where = "interpolation3d";
  require(cx >= 1 && cy >= 1 && cz >= 1, where, "coarse grid sizes must be >= 1");
  const i64 fx = 2 * cx - 1, fy = 2 * cy - 1, fz = 2 * cz - 1;
  return guarded(where, [&] {
    const i64 coarse = checked_product(checked_product(cx, cy, where), cz, where);
    const i64 fine = checked_product(checked_product(fx, fy, where), fz, where);
    checked_product(fine, 8, where);
    Csr64 m = make_shell(fine, coarse);
    // A fine index at an even position is a coarse point (one parent), at an odd one halfway
    // between two.
    auto parents = [](i64 f) { return f % 2 == 0 ? 1 : 2; };
    for (i64 k = 0; k < fz; ++k)
      for (i64 j = 0; j < fy; ++j)
        for (i64 i = 0; i < fx; ++i)
          m.row_ptr[(k * fy + j) * fx + i + 1] = parents(i) * parents(j) * parents(k);
    finish_offsets(m);
#pragma omp parallel for if (fine > kSerialBelow) schedule(static)
    for (i64 k = 0; k < fz; ++k)
      for (i64 j = 0; j < fy; ++j)
        for (i64 i = 0; i < fx; ++i) {
          i64 p = m.row_ptr[(k * fy + j) * fx + i];
          const int pk = parents(k), pj = parents(j), pi = parents(i);
          const double w = 1.0 / static_cast<double>(pk * pj * pi);
          // Loops from the slowest coarse index to the fastest: columns come out sorted.
          for (int c = 0; c < pk; ++c)
            for (int b = 0; b < pj; ++b)
              for (int a = 0; a < pi; ++a) {
                m.col_idx[p] = ((k / 2 + c) * cy + (j / 2 + b)) * cx + (i / 2 + a);
                m.values[p] = w;
                ++p;
              }
        }
    return m;
  });
}

Csr64 elasticity(i64 nx, i64 ny, i64 nz, int block, int points) {
  constexpr const char* where = "elasticity";
  require(nx >= 0 && ny >= 0 && nz >= 0, where, "grid sizes must be >= 0");
  require(block >= 1 && block <= 64, where,
          "block must be in [1, 64], got " + std::to_string(block));
  require(points == 27 || points == 7, where,
          "points must be 27 or 7, got " + std::to_string(points));
  return guarded(where, [&] {
    // The node graph, each coupling a dense block x block: node k's dof d is row k * block + d,
    // and a node's columns are its neighbours' dofs in node order.
    const Csr64 nodes = stencil(where, nx, ny, nz, points == 27, 1.0);
    const i64 b = block;
    Csr64 m =
        make_shell(checked_product(nodes.rows, b, where), checked_product(nodes.rows, b, where));
    checked_product(nodes.nnz(), b * b, where);
    for (i64 k = 0; k < nodes.rows; ++k)
      for (i64 d = 0; d < b; ++d)
        m.row_ptr[k * b + d + 1] = (nodes.row_ptr[k + 1] - nodes.row_ptr[k]) * b;
    finish_offsets(m);
#pragma omp parallel for if (m.rows > kSerialBelow) schedule(static)
    for (i64 k = 0; k < nodes.rows; ++k)
      for (i64 d = 0; d < b; ++d) {
        const i64 row = k * b + d;
        i64 p = m.row_ptr[row];
        for (i64 q = nodes.row_ptr[k]; q < nodes.row_ptr[k + 1]; ++q)
          for (i64 e = 0; e < b; ++e) {
            const i64 col = nodes.col_idx[q] * b + e;
            m.col_idx[p] = col;
            // Symmetric and diagonally dominant: points b on the diagonal, -1 elsewhere.
            m.values[p] = col == row ? static_cast<double>(points) * static_cast<double>(b) : -1.0;
            ++p;
          }
      }
    return m;
  });
}

Csr64 powerlaw_rows(i64 rows, i64 cols, double mean, double tail, std::uint64_t seed) {
  constexpr const char* where = "powerlaw_rows";
  require(rows >= 0 && cols >= 1, where, "need rows >= 0 and cols >= 1");
  require(mean >= 1.0 && mean <= static_cast<double>(cols), where,
          "mean must be in [1, cols], got " + std::to_string(mean));
  require(tail > 1.0 && tail <= 8.0, where, "tail must be in (1, 8], got " + std::to_string(tail));
  return guarded(where, [&] {
    Csr64 m = make_shell(rows, cols);
    // Pareto lengths, P(L > x) = (x_min / x)^tail, whose mean is x_min tail / (tail - 1). The
    // quantile u^(-1 / tail) is this file's one use of libm (exp2, log2: not correctly rounded
    // everywhere). It is rounded down to an integer at once, so another libm can change a
    // length only where the quantile lies within a few ulp of an integer: a chance of about
    // 2^-40 a row.
    const double x_min = std::max(1.0, mean * (tail - 1.0) / tail);
    Rng lengths = stream(seed, Tag::powerlaw_lengths, 0);
    i64 total = 0;
    for (i64 i = 0; i < rows; ++i) {
      const double u = static_cast<double>((lengths.next() >> 11) + 1) * 0x1p-53;  // (0, 1]
      const double len = x_min / std::exp2(std::log2(u) / tail);
      const i64 l = len >= static_cast<double>(cols) ? cols : static_cast<i64>(len);
      m.row_ptr[i + 1] = std::max<i64>(1, l);
      total += m.row_ptr[i + 1];
      require(total <= kMaxEntries, where, "too many entries");
    }
    finish_offsets(m);
#pragma omp parallel for if (total > kSerialBelow) schedule(dynamic, 256)
    for (i64 i = 0; i < rows; ++i) {
      Rng rng = stream(seed, Tag::powerlaw_cols, static_cast<u64>(i));
      std::vector<i64> buf;
      distinct_uniform(rng, m.row_ptr[i + 1] - m.row_ptr[i], cols, buf);
      Rng vals = stream(seed, Tag::powerlaw_values, static_cast<u64>(i));
      for (std::size_t k = 0; k < buf.size(); ++k) {
        m.col_idx[m.row_ptr[i] + static_cast<i64>(k)] = buf[k];
        m.values[m.row_ptr[i] + static_cast<i64>(k)] = vals.value();
      }
    }
    return m;
  });
}

Csr64 permute_symmetric(const Csr64& a, std::uint64_t seed) {
  constexpr const char* where = "permute_symmetric";
  require(a.rows == a.cols, where,
          "needs a square matrix, got " + std::to_string(a.rows) + " x " + std::to_string(a.cols));
  return guarded(where, [&] {
    const i64 n = a.rows;
    // Fisher-Yates: old index i becomes new index perm[i].
    std::vector<i64> perm(static_cast<std::size_t>(n));
    for (i64 i = 0; i < n; ++i) perm[i] = i;
    Rng rng = stream(seed, Tag::permutation, 0);
    for (i64 i = n - 1; i > 0; --i)
      std::swap(perm[i], perm[static_cast<i64>(rng.below(static_cast<u64>(i + 1)))]);
    std::vector<i64> old_of(static_cast<std::size_t>(n));
    for (i64 i = 0; i < n; ++i) old_of[perm[i]] = i;
    Csr64 m = make_shell(n, n);
    for (i64 r = 0; r < n; ++r) m.row_ptr[r + 1] = a.row_ptr[old_of[r] + 1] - a.row_ptr[old_of[r]];
    finish_offsets(m);
#pragma omp parallel for if (n > kSerialBelow) schedule(static)
    for (i64 r = 0; r < n; ++r) {
      const i64 src = old_of[r];
      std::vector<std::pair<i64, double>> row;
      row.reserve(static_cast<std::size_t>(a.row_ptr[src + 1] - a.row_ptr[src]));
      for (i64 p = a.row_ptr[src]; p < a.row_ptr[src + 1]; ++p)
        row.emplace_back(perm[a.col_idx[p]], a.values[p]);
      std::sort(row.begin(), row.end());
      i64 p = m.row_ptr[r];
      for (const auto& [c, v] : row) {
        m.col_idx[p] = c;
        m.values[p] = v;
        ++p;
      }
    }
    return m;
  });
}

Csr64 banded_normal(i64 rows, int per_row, double sigma, std::uint64_t seed) {
  return banded_normal(rows, rows, per_row, sigma, seed);
}

Csr64 banded_normal(i64 rows, i64 cols, int per_row, double sigma, std::uint64_t seed) {
  constexpr const char* where = "banded_normal";
  require(rows >= 0, where, "rows must be >= 0, got " + std::to_string(rows));
  require(cols >= 1 || (rows == 0 && cols == 0), where,
          "cols must be >= 1, got " + std::to_string(cols));
  require(per_row >= 0, where, "per_row must be >= 0, got " + std::to_string(per_row));
  require(std::isfinite(sigma), where, "sigma must be finite");
  return guarded(where, [&] {
    const i64 slots = checked_product(rows, per_row, where);
    const bool uniform = !(sigma > 0);
    const double limit = static_cast<double>(cols);
    // Draw into fixed slots of per_row entries, then pack: one pass of random numbers.
    std::vector<i64> tmp_c(static_cast<std::size_t>(slots));
    std::vector<double> tmp_v(static_cast<std::size_t>(slots));
    Csr64 m = make_shell(rows, cols);
#pragma omp parallel for if (slots > kSerialBelow) schedule(static)
    for (i64 i = 0; i < rows; ++i) {
      Rng rng = stream(seed, Tag::banded, static_cast<u64>(i));
      const i64 centre = cols == rows
                             ? i
                             : static_cast<i64>(static_cast<u128>(i) * static_cast<u128>(cols) /
                                                static_cast<u128>(rows));
      i64* c = tmp_c.data() + i * per_row;
      for (int j = 0; j < per_row; ++j) {
        if (uniform) {
          c[j] = static_cast<i64>(rng.below(static_cast<u64>(cols)));
          continue;
        }
        // Columns outside the matrix are drawn again (truncated normal): clamping would pile
        // them on the first and last column and merge them away near the borders. After a few
        // misses (sigma far above rows) clamp instead.
        i64 col = -1;
        for (int attempt = 0; attempt < 8 && col < 0; ++attempt) {
          const double t = rng.normal() * sigma;  // one rounded product: platform independent
          if (t > -limit && t < limit) {
            const i64 x = centre + std::llround(t);
            if (x >= 0 && x < cols)
              col = x;
            else if (attempt == 7)
              col = std::clamp<i64>(x, 0, cols - 1);
          } else if (attempt == 7) {
            col = t > 0 ? cols - 1 : 0;
          }
        }
        c[j] = col;
      }
      sort_small(c, c + per_row);
      const i64 len = std::unique(c, c + per_row) - c;
      double* v = tmp_v.data() + i * per_row;
      for (i64 j = 0; j < len; ++j) v[j] = rng.value();
      m.row_ptr[i + 1] = len;
    }
    finish_offsets(m);
#pragma omp parallel for if (slots > kSerialBelow) schedule(static)
    for (i64 i = 0; i < rows; ++i) {
      const i64 b = m.row_ptr[i], len = m.row_ptr[i + 1] - b;
      std::copy_n(tmp_c.data() + i * per_row, len, m.col_idx.data() + b);
      std::copy_n(tmp_v.data() + i * per_row, len, m.values.data() + b);
    }
    return m;
  });
}

Csr64 random_rect(i64 rows, i64 cols, int per_row, std::uint64_t seed) {
  constexpr const char* where = "random_rect";
  require(rows >= 0 && cols >= 0, where,
          "sizes must be >= 0, got " + std::to_string(rows) + " x " + std::to_string(cols));
  require(per_row >= 0 && per_row <= cols, where,
          "per_row must be in [0, cols = " + std::to_string(cols) + "], got " +
              std::to_string(per_row));
  return guarded(where, [&] {
    const i64 nnz = checked_product(rows, per_row, where);
    Csr64 m = make_shell(rows, cols);
    for (i64 i = 0; i <= rows; ++i) m.row_ptr[i] = i * per_row;
    m.col_idx.resize(static_cast<std::size_t>(nnz));
    m.values.resize(static_cast<std::size_t>(nnz));
#pragma omp parallel if (nnz > kSerialBelow)
    {
      std::vector<i64> buf;
      buf.reserve(static_cast<std::size_t>(per_row) * 2);
#pragma omp for schedule(static)
      for (i64 i = 0; i < rows; ++i) {
        Rng rng = stream(seed, Tag::random_rect, static_cast<u64>(i));
        distinct_uniform(rng, per_row, cols, buf);
        const i64 b = i * per_row;
        for (int j = 0; j < per_row; ++j) {
          m.col_idx[b + j] = buf[j];
          m.values[b + j] = rng.value();
        }
      }
    }
    return m;
  });
}

Csr64 rmat(int scale, int edge_factor, std::uint64_t seed, double a, double b, double c) {
  return rmat(scale, edge_factor, seed, a, b, c, 0.0);
}

Csr64 rmat(int scale, int edge_factor, std::uint64_t seed, double a, double b, double c,
           double noise) {
  constexpr const char* where = "rmat";
  require(scale >= 0 && scale <= 32, where,
          "scale must be in [0, 32], got " + std::to_string(scale));
  require(edge_factor >= 0, where, "edge_factor must be >= 0");
  require(std::isfinite(a) && std::isfinite(b) && std::isfinite(c) && a >= 0 && b >= 0 && c >= 0 &&
              a + b + c <= 1 + 1e-12,
          where, "need a, b, c >= 0 and a + b + c <= 1");
  require(std::isfinite(noise) && noise >= 0 && noise < 1, where, "noise must be in [0, 1)");
  return guarded(where, [&]() -> Csr64 {
    const i64 n = i64(1) << scale;
    const i64 m_edges = checked_product(n, edge_factor, where);
    // Quadrant probabilities in 32-bit fixed point (exact scaling, so platform independent),
    // perturbed per level by integer noise and renormalised into cumulative thresholds.
    const u64 one = u64(1) << 32;
    const u64 wa = static_cast<u64>(std::llround(std::ldexp(a, 32)));
    const u64 wb = static_cast<u64>(std::llround(std::ldexp(b, 32)));
    const u64 wc = static_cast<u64>(std::llround(std::ldexp(c, 32)));
    const u64 wabc = wa + wb + wc;
    const u64 wd = wabc >= one ? 0 : one - wabc;
    const i64 nf = std::llround(std::ldexp(noise, 16));
    std::vector<u64> t1(scale), t2(scale), t3(scale);
    Rng nrng = stream(seed, Tag::rmat_noise, 0);
    for (int l = 0; l < scale; ++l) {
      u64 w[4] = {wa, wb, wc, wd};
      u64 total = 0;
      for (u64& x : w) {
        const i64 f = 65536 + static_cast<i64>(nrng.below(static_cast<u64>(2 * nf + 1))) - nf;
        x *= static_cast<u64>(f);
        total += x;
      }
      auto cut = [&](u64 part) {
        return static_cast<u64>((static_cast<u128>(part) << 32) / static_cast<u128>(total));
      };
      t1[l] = cut(w[0]);
      t2[l] = cut(w[0] + w[1]);
      t3[l] = cut(w[0] + w[1] + w[2]);
    }
    // Edges are generated in fixed chunks, each with its own stream: thread-count independent.
    // Packed as row << scale | col, so sorting the keys sorts by row, then column.
    constexpr i64 kChunk = 1 << 14;
    const i64 chunks = (m_edges + kChunk - 1) / kChunk;
    std::vector<u64> keys(static_cast<std::size_t>(m_edges));
#pragma omp parallel for if (m_edges > kSerialBelow) schedule(static)
    for (i64 ch = 0; ch < chunks; ++ch) {
      Rng rng = stream(seed, Tag::rmat_edges, static_cast<u64>(ch));
      const i64 end = std::min(m_edges, (ch + 1) * kChunk);
      for (i64 e = ch * kChunk; e < end; ++e) {
        u64 key = 0, r = 0;
        for (int l = 0; l < scale; ++l) {
          if ((l & 1) == 0) r = rng.next();
          const u64 u = (l & 1) ? (r >> 32) : (r & 0xffffffffULL);
          // Quadrants a | b / c | d: row bit = u >= t2, column bit = parity of the three
          // comparisons. Branch-free: the branches would be mispredicted about half the time.
          const u64 g1 = u >= t1[l], g2 = u >= t2[l], g3 = u >= t3[l];
          key |= (g2 << (2 * scale - 1 - l)) | ((g1 ^ g2 ^ g3) << (scale - 1 - l));
        }
        keys[e] = key;
      }
    }
    // Radix sort streams through memory; bucketing by row with atomics was 5x slower (random
    // access to 2^scale counters). Sorted keys are unique of any thread count.
    radix_sort(keys, 2 * scale);
    const u64 col_mask = scale == 32 ? ~u64(0) >> 32 : (u64(1) << scale) - 1;
    Csr64 mat = make_shell(n, n);
    i64 unique = 0;
    for (i64 e = 0; e < m_edges; ++e) {
      if (e > 0 && keys[e] == keys[e - 1]) continue;  // duplicates merged, one kept
      ++mat.row_ptr[(keys[e] >> scale) + 1];
      keys[unique++] = keys[e];
    }
    finish_offsets(mat);
#pragma omp parallel for if (unique > kSerialBelow) schedule(static)
    for (i64 p = 0; p < unique; ++p) mat.col_idx[p] = static_cast<i64>(keys[p] & col_mask);
#pragma omp parallel for if (unique > kSerialBelow) schedule(dynamic, 4096)
    for (i64 i = 0; i < n; ++i) {
      Rng rng = stream(seed, Tag::rmat_values, static_cast<u64>(i));
      for (i64 p = mat.row_ptr[i]; p < mat.row_ptr[i + 1]; ++p) mat.values[p] = rng.value();
    }
    return mat;
  });
}

Csr64 circuit(i64 rows, std::uint64_t seed, double empty_fraction, int long_rows, i64 long_len,
              double mean_len) {
  constexpr const char* where = "circuit";
  require(rows >= 0, where, "rows must be >= 0, got " + std::to_string(rows));
  require(std::isfinite(empty_fraction) && empty_fraction >= 0 && empty_fraction <= 1, where,
          "empty_fraction must be in [0, 1]");
  require(long_rows >= 0 && long_rows <= rows, where,
          "long_rows must be in [0, rows], got " + std::to_string(long_rows));
  require(long_len >= 0 && long_len <= rows, where,
          "long_len must be in [0, rows] (0: default 400000 capped at rows), got " +
              std::to_string(long_len));
  require(std::isfinite(mean_len) && mean_len >= 1, where, "mean_len must be >= 1");
  return guarded(where, [&] {
    const i64 cols = rows;
    if (long_len == 0) long_len = std::min<i64>(400000, cols);
    Csr64 m = make_shell(rows, cols);
    // Long rows at pseudo-random distinct positions (sorted).
    std::vector<i64> long_pos;
    {
      Rng rng = stream(seed, Tag::circuit_long, 0);
      distinct_uniform(rng, long_rows, rows, long_pos);
    }
    auto long_index = [&](i64 i) -> i64 {
      auto it = std::lower_bound(long_pos.begin(), long_pos.end(), i);
      return (it != long_pos.end() && *it == i) ? it - long_pos.begin() : -1;
    };
    const u64 empty_thr = prob_threshold(empty_fraction);
    const bool all_empty = empty_fraction >= 1;
    // Geometric lengths on {1, 2, ...} with mean mean_len: continue with probability 1 - 1/mean.
    const u64 stop_thr = prob_threshold(1.0 / mean_len);
    const bool always_one = mean_len <= 1;
    auto short_len = [&](i64 i) -> i64 {
      Rng rng = stream(seed, Tag::circuit_shape, static_cast<u64>(i));
      if (all_empty || rng.next() < empty_thr) return 0;
      i64 len = 1;
      if (!always_one)
        while (len < cols && rng.next() >= stop_thr) ++len;
      return len;
    };
#pragma omp parallel for if (rows > kSerialBelow) schedule(static)
    for (i64 i = 0; i < rows; ++i) m.row_ptr[i + 1] = long_index(i) >= 0 ? long_len : short_len(i);
    finish_offsets(m);
#pragma omp parallel if (m.nnz() > kSerialBelow)
    {
      std::vector<i64> buf;
      buf.reserve(64);
#pragma omp for schedule(dynamic, 1024)
      for (i64 i = 0; i < rows; ++i) {
        const i64 b = m.row_ptr[i], len = m.row_ptr[i + 1] - b;
        if (len == 0) continue;
        const i64 li = long_index(i);
        Rng rng = li >= 0 ? stream(seed, Tag::circuit_long, static_cast<u64>(li) + 1)
                          : stream(seed, Tag::circuit_cols, static_cast<u64>(i));
        buf.clear();
        if (li >= 0) {
          distinct_uniform(rng, len, cols, buf);  // a supply / ground node touching everything
        } else {
          // Diagonal, mostly near neighbours, and now and then a far node.
          buf.push_back(i);
          const i64 w = 16 + 2 * len;
          fill_distinct(rng, len, cols, buf, [&](Rng& r) -> i64 {
            const u64 u = r.next();
            if ((u & 7) != 0) {
              const i64 c = i + static_cast<i64>((u >> 3) % static_cast<u64>(2 * w + 1)) - w;
              if (c >= 0 && c < cols) return c;
            }
            return static_cast<i64>(r.below(static_cast<u64>(cols)));
          });
        }
        for (i64 j = 0; j < len; ++j) {
          m.col_idx[b + j] = buf[j];
          m.values[b + j] = rng.value();
        }
      }
    }
    return m;
  });
}

Csr64 ghost_block(i64 nx, i64 ny, i64 nz) {
  constexpr const char* where = "ghost_block";
  require(nx >= 0 && ny >= 0 && nz >= 0, where, "grid sizes must be >= 0");
  return guarded(where, [&] {
    const i64 plane = checked_product(nx, ny, where);
    const i64 rows = checked_product(plane, nz, where);
    Csr64 m = make_shell(rows, 2 * plane);
    if (plane == 0 || nz == 0) return m;
    // Row lengths: the bottom plane couples to the plane below (ghost columns [0, plane)), the
    // top plane to the plane above ([plane, 2 plane)); with one plane it does both.
    for (i64 k = 0; k < plane; ++k) {
      m.row_ptr[k + 1] += 1;
      m.row_ptr[(nz - 1) * plane + k + 1] += 1;
    }
    finish_offsets(m);
    for (i64 k = 0; k < plane; ++k) {
      const i64 bottom = m.row_ptr[k], top = m.row_ptr[(nz - 1) * plane + k + 1] - 1;
      m.col_idx[bottom] = k;
      m.col_idx[top] = plane + k;
      m.values[bottom] = -1.0;
      m.values[top] = -1.0;
    }
    return m;
  });
}

Csr64 arrow(i64 n) {
  require(n >= 0, "arrow", "n must be >= 0, got " + std::to_string(n));
  return guarded("arrow", [&] {
    checked_product(n, 3, "arrow");
    Csr64 m = make_shell(n, n);
    if (n == 0) return m;
    m.row_ptr[1] = n;
    for (i64 i = 1; i < n; ++i) m.row_ptr[i + 1] = 2;  // first column and diagonal
    finish_offsets(m);
    for (i64 j = 0; j < n; ++j) m.col_idx[j] = j;
#pragma omp parallel for if (n > kSerialBelow) schedule(static)
    for (i64 i = 1; i < n; ++i) {
      m.col_idx[m.row_ptr[i]] = 0;
      m.col_idx[m.row_ptr[i] + 1] = i;
    }
    // Values are random but fixed (no seed in the interface): one stream per 64 k entries.
    const i64 nnz = m.nnz();
    constexpr i64 kChunk = 1 << 16;
#pragma omp parallel for if (n > kSerialBelow) schedule(static)
    for (i64 ch = 0; ch < (nnz + kChunk - 1) / kChunk; ++ch) {
      Rng rng = stream(1, Tag::arrow, static_cast<u64>(ch));
      for (i64 p = ch * kChunk; p < std::min(nnz, (ch + 1) * kChunk); ++p)
        m.values[p] = rng.value();
    }
    return m;
  });
}

Csr64 random_with_nnz(i64 rows, i64 cols, i64 nnz, std::uint64_t seed) {
  constexpr const char* where = "random_with_nnz";
  require(rows >= 0 && cols >= 0 && nnz >= 0, where, "sizes and nnz must be >= 0");
  require(static_cast<u128>(rows) * static_cast<u128>(cols) >= static_cast<u128>(nnz), where,
          "nnz = " + std::to_string(nnz) + " does not fit in " + std::to_string(rows) + " x " +
              std::to_string(cols));
  require(static_cast<u128>(rows) * static_cast<u128>(cols) <= (u128(1) << 62), where,
          "rows * cols must be <= 2^62");
  require(nnz <= kMaxEntries, where, "nnz too large");
  return guarded(where, [&] {
    Csr64 m = make_shell(rows, cols);
    if (nnz == 0) return m;
    // About one row in eight is kept empty, unless the others cannot hold nnz entries.
    std::vector<i64> usable;
    usable.reserve(static_cast<std::size_t>(rows));
    {
      Rng rng = stream(seed, Tag::random_nnz, 0);
      for (i64 i = 0; i < rows; ++i)
        if ((rng.next() & 7) != 0) usable.push_back(i);
      if (static_cast<u128>(usable.size()) * static_cast<u128>(cols) < static_cast<u128>(nnz)) {
        usable.resize(static_cast<std::size_t>(rows));
        for (i64 i = 0; i < rows; ++i) usable[i] = i;
      }
    }
    // nnz distinct cells of the usable rows x cols grid, sorted: rows and columns in order.
    std::vector<i64> cells;
    {
      Rng rng = stream(seed, Tag::random_nnz, 1);
      distinct_uniform(rng, nnz, static_cast<i64>(usable.size()) * cols, cells);
    }
    for (i64 cell : cells) ++m.row_ptr[usable[cell / cols] + 1];
    finish_offsets(m);
    for (i64 p = 0; p < nnz; ++p) m.col_idx[p] = cells[p] % cols;
#pragma omp parallel for if (nnz > kSerialBelow) schedule(dynamic, 1024)
    for (i64 i = 0; i < rows; ++i) {
      Rng rng = stream(seed, Tag::random_nnz, static_cast<u64>(i) + 2);
      for (i64 p = m.row_ptr[i]; p < m.row_ptr[i + 1]; ++p) m.values[p] = rng.value();
    }
    return m;
  });
}

Csr64 empty(i64 rows, i64 cols) {
  require(rows >= 0 && cols >= 0, "empty",
          "sizes must be >= 0, got " + std::to_string(rows) + " x " + std::to_string(cols));
  return guarded("empty", [&] { return make_shell(rows, cols); });
}

Csr64 single_row(i64 cols, i64 nnz, std::uint64_t seed) {
  constexpr const char* where = "single_row";
  require(cols >= 0, where, "cols must be >= 0, got " + std::to_string(cols));
  require(nnz >= 0 && nnz <= cols, where,
          "nnz must be in [0, cols = " + std::to_string(cols) + "], got " + std::to_string(nnz));
  require(cols <= kMaxEntries, where, "cols too large");
  return guarded(where, [&] {
    Csr64 m = make_shell(1, cols);
    Rng rng = stream(seed, Tag::single_row, 0);
    distinct_uniform(rng, nnz, cols, m.col_idx);
    m.row_ptr[1] = nnz;
    m.values.resize(static_cast<std::size_t>(nnz));
    for (double& v : m.values) v = rng.value();
    return m;
  });
}

Csr64 single_column(i64 rows, std::uint64_t seed) {
  constexpr const char* where = "single_column";
  require(rows >= 0, where, "rows must be >= 0, got " + std::to_string(rows));
  require(rows <= kMaxEntries, where, "rows too large");
  return guarded(where, [&] {
    Csr64 m = make_shell(rows, 1);
    for (i64 i = 0; i <= rows; ++i) m.row_ptr[i] = i;
    m.col_idx.assign(static_cast<std::size_t>(rows), 0);
    m.values.resize(static_cast<std::size_t>(rows));
    Rng rng = stream(seed, Tag::single_column, 0);
    for (double& v : m.values) v = rng.value();
    return m;
  });
}

Csr64 one_full_row(i64 rows, i64 cols, i64 row, std::uint64_t seed) {
  constexpr const char* where = "one_full_row";
  require(
      rows >= 1 && cols >= 0, where,
      "need rows >= 1 and cols >= 0, got " + std::to_string(rows) + " x " + std::to_string(cols));
  require(row >= 0 && row < rows, where,
          "row must be in [0, rows = " + std::to_string(rows) + "), got " + std::to_string(row));
  require(cols <= kMaxEntries, where, "cols too large");
  return guarded(where, [&] {
    Csr64 m = make_shell(rows, cols);
    for (i64 i = row + 1; i <= rows; ++i) m.row_ptr[i] = cols;
    m.col_idx.resize(static_cast<std::size_t>(cols));
    m.values.resize(static_cast<std::size_t>(cols));
    Rng rng = stream(seed, Tag::one_full_row, 0);
    for (i64 j = 0; j < cols; ++j) {
      m.col_idx[j] = j;
      m.values[j] = rng.value();
    }
    return m;
  });
}

Csr64 from_spec(const std::string& spec) {
  const auto colon = spec.find(':');
  const std::string name = trim(spec.substr(0, colon));
  const Family* fam = nullptr;
  for (const auto& f : families())
    if (name == f.name) fam = &f;
  if (fam == nullptr) {
    std::string names;
    for (const auto& f : families()) names += std::string(names.empty() ? "" : ", ") + f.name;
    fail(status::invalid_argument, "hola::gen::from_spec: unknown family '" + name + "' in '" +
                                       spec + "' (valid: " + names + ")");
  }
  const std::string valid = key_list(*fam) + ", " + kPermKey.name;
  Params p(fam->name, valid);
  const std::string body = colon == std::string::npos ? "" : trim(spec.substr(colon + 1));
  std::size_t start = 0;
  while (!body.empty() && start <= body.size()) {
    const auto comma = body.find(',', start);
    const std::string item =
        trim(body.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    start = comma == std::string::npos ? body.size() + 1 : comma + 1;
    const auto eq = item.find('=');
    const std::string key = trim(item.substr(0, eq));
    const std::string value = eq == std::string::npos ? "" : trim(item.substr(eq + 1));
    bool known = key == kPermKey.name;
    for (const auto& k : fam->keys) known = known || key == k.name;
    if (!known)
      fail(status::invalid_argument, "hola::gen::from_spec: " + name + ": unknown key '" + key +
                                         "' in '" + spec + "' (valid keys: " + valid + ")");
    if (eq == std::string::npos || value.empty())
      fail(status::invalid_argument, "hola::gen::from_spec: " + name + ": key '" + key +
                                         "' needs a value, as in " + key +
                                         "=... (valid keys: " + valid + ")");
    if (!p.kv.emplace(key, value).second)
      fail(status::invalid_argument, "hola::gen::from_spec: " + name + ": key '" + key +
                                         "' given twice in '" + spec + "' (valid keys: " + valid +
                                         ")");
  }
  try {
    if (!p.has(kPermKey.name)) return fam->build(p);
    const u64 perm_seed = p.seed(kPermKey.name);
    p.kv.erase(kPermKey.name);
    return permute_symmetric(fam->build(p), perm_seed);
  } catch (const error& e) {
    // Generator argument errors get the spec and the valid keys; parse errors have them.
    if (e.code() != status::invalid_argument ||
        std::string(e.what()).rfind("hola::gen::from_spec", 0) == 0)
      throw;
    fail(status::invalid_argument,
         std::string(e.what()) + " [spec '" + spec + "'; valid keys: " + valid + "]");
  }
}

std::vector<std::string> spec_help() {
  std::vector<std::string> lines;
  for (const auto& f : families()) {
    std::string s = std::string(f.name) + ":";
    bool first = true;
    for (const auto& k : f.keys) {
      s += first ? " " : ", ";
      first = false;
      s += k.name;
      if (*k.def) s += std::string("=") + k.def;
      if (*k.note) s += std::string(" (") + k.note + ")";
    }
    lines.push_back(s);
  }
  lines.push_back(std::string("any square family, ") + kPermKey.name + "=SEED: " + kPermKey.note);
  return lines;
}

}  // namespace hola::gen
