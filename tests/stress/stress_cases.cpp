#include "stress_cases.hpp"

#include <algorithm>

namespace hola::stress {

std::vector<ScaleCase> scale_cases() {
  const std::vector<std::string> both = {"double,32,32", "float,32,32"};
  const std::vector<std::string> dbl = {"double,32,32"};
  const std::vector<std::string> no_scalar = {
      "hola", "merge", "light", "vector", "vector-adaptive", "cusparse", "cusparse-alg2", "auto"};
  return {
      {"rows=100000000,cols=100000000,dist=stencil5,nx=10000", both,
       "2D 5-point, 10^8 rows: rows x 32 passes 2^31"},
      {"rows=100000000,cols=100000000,dist=constant,len=22,seed=5",
       {"double,32,64", "float,64,64"},
       "2.2e9 nonzeros: more than 2^31, 64-bit offsets",
       {},
       true},
      // vector / vector-adaptive op T through shared-memory windows (a band of random columns),
      // tiles of 10^8 rows' index arithmetic, more than 2^31 nonzeros.
      {"rows=100000000,cols=100000000,dist=constant,len=24,band=1500,seed=14",
       {"double,32,64", "float,64,64"},
       "a band of random columns, 2.4e9 nonzeros, 64-bit offsets",
       {},
       true},
      {"rows=100000000,cols=100000000,dist=uniform,len=6,empty=0.9,seed=6", dbl,
       "10^8 rows, 90 % empty"},
      {"rows=100000000,cols=100000000,dist=uniform,len=6,empty=0.9,run=100000,seed=7", dbl,
       "10^8 rows, 90 % empty in runs of 10^5 rows"},
      {"rows=10000000,cols=100000,dist=constant,len=8,seed=8", both, "tall, aspect 100"},
      {"rows=100000,cols=10000000,dist=constant,len=800,seed=9", dbl, "wide, aspect 100"},
      // One thread per row ("scalar") walks 10^8 nonzeros alone: seconds per apply, so it runs
      // one check per op there (the last case); every other kernel runs the quick set.
      {"rows=1000,cols=100000000,dist=constant,len=3,huge_row=500,huge_len=100000000,seed=10", both,
       "one row of 10^8 nonzeros", no_scalar, true},
      {"rows=1,cols=100000000,dist=constant,len=100000000,seed=11", dbl,
       "a single row of 10^8 nonzeros", no_scalar, true},
      {"rows=100000000,cols=1,dist=constant,len=1,seed=12", dbl, "a single column, 10^8 rows"},
      {"rows=30000000,cols=30000000,dist=power,len=100000,seed=13", dbl,
       "power-law rows, 3e7 rows"},
      {"rows=1,cols=100000000,dist=constant,len=100000000,seed=11",
       dbl,
       "a single row of 10^8 nonzeros, one thread per row",
       {"scalar"},
       true,
       true},
  };
}

std::vector<ScaleCase> regression_cases() {
  const std::vector<std::string> dbl = {"double,32,32"};
  return {
      // Issue 14 (H200, commit 0d0f7c8): hola returned NaN / wrong rows on these three.
      {"rows=25000000,cols=25000000,dist=stencil5,nx=5000",
       {"double,32,32", "float,32,32"},
       "issue 14: 2D 5-point 5000^2, hola N and T gave NaN"},
      {"rows=4000000,cols=200000,dist=constant,len=10,seed=3", dbl,
       "issue 14: tall 4e6 x 2e5, 10 random columns per row, hola N wrong"},
      {"rows=20000000,cols=20000000,dist=uniform,len=6,empty=0.9,seed=4", dbl,
       "issue 14: 2e7 rows, 90 % empty, hola T wrong"},
      // The same shapes with unsorted, repeated columns and arrays off the 16-byte alignment.
      {"rows=4000000,cols=200000,dist=constant,len=10,duplicates=1,shuffled=1,seed=3", dbl,
       "issue 14 variant: tall, columns drawn independently"},
      {"rows=25000000,cols=25000000,dist=stencil5,nx=5000,misaligned=1,shuffled=1", dbl,
       "issue 14 variant: 2D 5-point, unaligned arrays, unsorted rows"},
  };
}

namespace {

template <class T>
T pick(std::mt19937_64& rng, const std::vector<T>& v) {
  return v[std::uniform_int_distribution<std::size_t>(0, v.size() - 1)(rng)];
}
std::int64_t between(std::mt19937_64& rng, std::int64_t lo, std::int64_t hi) {
  return std::uniform_int_distribution<std::int64_t>(lo, hi)(rng);
}

}  // namespace

FuzzCase draw_fuzz_case(std::mt19937_64& rng, const std::vector<KernelRun>& runs) {
  FuzzCase c;
  MatrixSpec& s = c.spec;
  s.seed = rng() % 1000000007ull + 1;
  // Nonzeros per block or tile of the compiled kernels: hola threads x nonzeros per thread,
  // merge 128 x 7 (double) / 11 (float) path items, warps and blocks of the row-wise kernels.
  const std::vector<std::int64_t> boundaries = {32,   64,   128,  256,  512,   896,  1024,
                                                1408, 2048, 4096, 8192, 16384, 65536};
  const int shape = static_cast<int>(between(rng, 0, 9));
  if (shape <= 3) {
    // General random rows.
    s.rows = pick<std::int64_t>(rng, {between(rng, 0, 64), between(rng, 1, 3000),
                                      between(rng, 1, 50000), between(rng, 1, 300000)});
    s.cols = pick<std::int64_t>(
        rng, {s.rows, between(rng, 1, 64), between(rng, 1, 5000), between(rng, 1, 400000)});
    s.dist = pick<RowDist>(
        rng, {RowDist::constant, RowDist::uniform, RowDist::power_law, RowDist::bimodal});
    s.len = pick<std::int64_t>(rng, {between(rng, 0, 8), between(rng, 1, 40), between(rng, 1, 400),
                                     between(rng, 1, 5000)});
    s.empty_fraction = pick<double>(rng, {0.0, 0.0, 0.3, 0.9, 0.99});
    s.empty_run = pick<std::int64_t>(rng, {1, 1, between(rng, 2, 64), between(rng, 100, 20000)});
    if (between(rng, 0, 3) == 0 && s.rows > 0) {
      s.huge_row = between(rng, 0, s.rows - 1);
      s.huge_len = pick<std::int64_t>(rng, {between(rng, 100, 5000), between(rng, 5000, 200000)});
    }
  } else if (shape <= 5) {
    // nnz exactly at a block or tile boundary +- 1: one nonzero per row.
    const std::int64_t b = pick(rng, boundaries) * between(rng, 1, 3) + between(rng, -1, 1);
    s.rows = std::max<std::int64_t>(0, b);
    s.cols = pick<std::int64_t>(rng, {s.rows, between(rng, 1, 1000)});
    s.dist = RowDist::constant;
    s.len = 1;
    if (between(rng, 0, 2) == 0) {
      s.empty_fraction = 0.5;
      s.rows *= 2;
    }
  } else if (shape == 6) {
    // Rows exactly one block or tile long +- 1, and long rows crossing many blocks.
    s.rows = between(rng, 1, 6);
    s.dist = RowDist::constant;
    s.len = pick(rng, boundaries) * between(rng, 1, 4) + between(rng, -1, 1);
    s.len = std::max<std::int64_t>(s.len, 0);
    s.cols = std::max<std::int64_t>(s.len, between(rng, 1, 100000));
  } else if (shape == 7) {
    // 2D 5-point stencils of random grids.
    s.dist = RowDist::stencil5;
    s.nx = between(rng, 1, 400);
    s.rows = s.cols = s.nx * between(rng, 1, 400);
  } else if (shape == 8) {
    // Many empty rows per block (more rows than a block has nonzeros).
    s.rows = between(rng, 1000, 400000);
    s.cols = between(rng, 1, 100000);
    s.dist = pick<RowDist>(rng, {RowDist::constant, RowDist::uniform});
    s.len = between(rng, 1, 6);
    s.empty_fraction = pick<double>(rng, {0.9, 0.99, 0.999});
    s.empty_run = pick<std::int64_t>(rng, {1, between(rng, 2, 5000)});
  } else {
    // Degenerate shapes: no rows, no columns, no nonzeros.
    s.rows = pick<std::int64_t>(rng, {0, 1, between(rng, 0, 100)});
    s.cols = pick<std::int64_t>(rng, {0, 1, between(rng, 0, 100)});
    s.dist = RowDist::constant;
    s.len = pick<std::int64_t>(rng, {0, 1, between(rng, 0, 100)});
  }
  s.reversed = between(rng, 0, 5) == 0;
  s.shuffled = between(rng, 0, 5) == 0;
  s.duplicates = s.dist != RowDist::stencil5 && between(rng, 0, 7) == 0;
  s.misaligned = between(rng, 0, 5) == 0;
  if (s.huge_row >= s.rows) s.huge_row = -1;

  c.types.is_double = between(rng, 0, 1) == 1;
  c.types.index_bits = pick<int>(rng, {32, 64});
  c.types.offset_bits = pick<int>(rng, {32, 64});

  std::vector<KernelRun> others;
  for (const KernelRun& r : runs)
    if (r.kernel == "hola" && !r.deterministic && !r.c_api)
      c.runs.push_back(r);
    else
      others.push_back(r);
  std::shuffle(others.begin(), others.end(), rng);
  for (std::size_t i = 0; i < others.size() && i < 3; ++i) c.runs.push_back(others[i]);

  c.options.betas = {pick<double>(rng, {0.0, 1.0, 0.5})};
  c.options.alpha = pick<double>(rng, {1.0, -1.25, 0.5});
  c.options.streams = {pick<int>(rng, {0, 1})};
  c.options.repeats = 2;
  c.options.validate = true;
  return c;
}

}  // namespace hola::stress
