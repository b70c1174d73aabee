// Scale and fuzz checking of every device kernel against a trusted GPU reference.
//
// A MatrixSpec describes a matrix by formulas (row lengths, columns and values are hashes of
// the seed and the position), so that matrices of 10^8 rows or 2^31+ nonzeros are generated
// on the GPU in milliseconds and a failing case is reproduced from one line of text. The
// reference is one thread per row summing in double in row order (op N) and double atomics
// per nonzero (op T); every kernel's output is compared row by row with a tolerance scaled by
// the row's sum of |a x| and its length, and y is poisoned with NaN before every apply.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "hola/types.hpp"

namespace hola::stress {

enum class RowDist {
  constant,   // every row `len` nonzeros
  uniform,    // 0 .. len
  power_law,  // Pareto(1.5) lengths, capped at len
  bimodal,    // 90 % of rows 1..4, the rest `len`
  stencil5,   // 2D 5-point Laplacian on a grid of nx columns (rows = cols = nx * ny)
};

struct MatrixSpec {
  std::int64_t rows = 0;
  std::int64_t cols = 0;
  RowDist dist = RowDist::constant;
  std::int64_t len = 1;
  double empty_fraction = 0;   // rows (or runs of rows) forced empty
  std::int64_t empty_run = 1;  // empty rows come in runs of this many rows
  std::int64_t huge_row = -1;  // this row holds huge_len nonzeros (spread over the columns)
  std::int64_t huge_len = 0;
  std::int64_t nx = 0;  // stencil5 grid width
  // Random rows within a band: the columns of row r drawn from the 2 band + 1 columns around
  // r cols / rows (shifted to stay inside [0, cols)); 0: from every column.
  std::int64_t band = 0;
  bool reversed = false;    // odd rows list their columns in descending order (unsorted CSR)
  bool shuffled = false;    // every row lists its columns in a scrambled order (unsorted CSR)
  bool duplicates = false;  // columns drawn independently: repeats within a row are allowed
  bool misaligned = false;  // the CSR arrays start one element past an aligned address
  std::uint64_t seed = 1;

  // "rows=..,cols=..,dist=..,..." and back; parse() throws hola::error on a bad spec.
  std::string to_string() const;
  static MatrixSpec parse(const std::string& text);
};

struct TypeSpec {
  bool is_double = true;
  int index_bits = 32;   // column indices
  int offset_bits = 32;  // row offsets
  std::string to_string() const;
  static TypeSpec parse(const std::string& text);  // "double,32,64"
};

// One way of running a kernel: through hola::Operator (C++) or the C API.
struct KernelRun {
  std::string kernel;  // registry name, or "auto"
  bool deterministic = false;
  bool c_api = false;
  std::string label() const;
};

struct CheckOptions {
  std::vector<Op> ops{Op::N, Op::T};
  std::vector<double> betas{0.0, 1.0, 0.5};  // 0 poisoned, 1 out of place, other in place
  double alpha = -1.25;
  int repeats = 2;  // applies per (op, beta, stream): first and repeated
  // 0: the legacy default stream (nullptr), 1: a non-blocking stream of the caller's.
  std::vector<int> streams{0, 1};
  bool validate = true;  // Operator's structural check at setup
  // The CSR arrays are written on the caller's non-blocking stream and setup is called on that
  // stream at once, without a host synchronisation (setup must be ordered after the writes).
  bool setup_on_stream = false;
  // Self-test of the checker: one entry of y is overwritten after every apply, so that every
  // check must fail.
  bool corrupt_output = false;
  bool verbose = false;
};

struct Failure {
  std::string what;  // kernel, op, beta, stream, repeat
  std::int64_t bad = 0;
  std::int64_t first_bad = -1;
  double got = 0, want = 0;
  std::string error;           // an exception where a result was expected
  bool out_of_memory = false;  // that exception was status::out_of_memory
};

struct CaseResult {
  std::string spec;
  std::string types;
  std::int64_t nnz = 0;
  std::string skipped;                // why the whole case did not run (memory, index width)
  std::int64_t checks = 0;            // kernel x op x beta x stream x repeat comparisons
  std::vector<std::string> kernels;   // "run-label -> kernel that ran (N), (T)"
  std::vector<std::string> refusals;  // clear errors instead of a result (not wrong answers)
  std::vector<Failure> failures;
  double seconds = 0;
  bool ok() const { return failures.empty(); }
};

// Bytes the GPU needs for the case (matrix, vectors, reference), for skipping what cannot fit.
std::int64_t estimate_bytes(const MatrixSpec& spec, const TypeSpec& types, std::int64_t nnz);
// Nonzeros of the spec (computed on the GPU).
std::int64_t count_nnz(const MatrixSpec& spec);

CaseResult run_case(const MatrixSpec& spec, const TypeSpec& types,
                    const std::vector<KernelRun>& runs, const CheckOptions& options);

// Every device kernel of the registry plus "auto", the deterministic variants and the C API.
std::vector<KernelRun> all_kernel_runs();

}  // namespace hola::stress
