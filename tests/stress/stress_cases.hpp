// The case lists of hola-stress: the scale stage, past reports, and the fuzzer's draw.
#pragma once

#include <random>
#include <string>
#include <vector>

#include "stress_engine.hpp"

namespace hola::stress {

struct ScaleCase {
  std::string spec;                // MatrixSpec text
  std::vector<std::string> types;  // TypeSpec texts, each a separate case
  std::string why;
  std::vector<std::string> kernels;  // empty: every kernel
  bool quick = false;                // betas 0 and 0.5, one stream (largest cases)
  bool minimal = false;              // one apply per op (beta 0.5, in place)
};

// Sizes where limits bite: 10^8 rows, more than 2^31 nonzeros, 90 % empty rows, aspect 100,
// one row of 10^8 nonzeros (device memory allowing: cases that do not fit are skipped).
std::vector<ScaleCase> scale_cases();
// Matrices of past bug reports and every shrunk fuzzer failure.
std::vector<ScaleCase> regression_cases();

struct FuzzCase {
  MatrixSpec spec;
  TypeSpec types;
  std::vector<KernelRun> runs;
  CheckOptions options;
};
// One random matrix (shapes, row-length laws and sizes around the kernels' block and tile
// boundaries), random types, hola plus three other random kernels, one random beta and stream.
FuzzCase draw_fuzz_case(std::mt19937_64& rng, const std::vector<KernelRun>& runs);

}  // namespace hola::stress
