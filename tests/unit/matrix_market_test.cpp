// Matrix Market reader and writer: every header flavour, every malformed input, round trips in
// all type combinations, and the real matrices of the shared corpus.
#include "hola/matrix_market.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>  // mkfifo

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <iterator>
#include <limits>
#include <map>
#include <ostream>
#include <random>
#include <string>
#include <thread>
#include <tuple>
#include <utility>
#include <vector>

#include "corpus.hpp"
#include "hola/csr_view.hpp"
#include "hola/error.hpp"
#include "type_lists.hpp"

namespace {

using hola::CsrMatrix;
using hola::MatrixMarketInfo;
using hola::MmField;
using hola::MmSymmetry;
using hola::status;
using I32 = std::int32_t;
using I64 = std::int64_t;

template <class V = double, class I = I32, class O = I32>
CsrMatrix<V, I, O> parse(const std::string& text, MatrixMarketInfo* info = nullptr) {
  return hola::parse_matrix_market<V, I, O>(text, "test.mtx", info);
}

// The header of `text` as parse() reports it.
MatrixMarketInfo parsed_info(const std::string& text) {
  MatrixMarketInfo info;
  parse(text, &info);
  return info;
}

template <class V, class I, class O>
void expect_csr(const CsrMatrix<V, I, O>& A, I64 rows, I64 cols, const std::vector<I64>& row_ptr,
                const std::vector<I64>& col_idx, const std::vector<double>& values) {
  EXPECT_EQ(A.rows, rows);
  EXPECT_EQ(A.cols, cols);
  EXPECT_EQ(std::vector<I64>(A.row_ptr.begin(), A.row_ptr.end()), row_ptr);
  EXPECT_EQ(std::vector<I64>(A.col_idx.begin(), A.col_idx.end()), col_idx);
  EXPECT_EQ(std::vector<double>(A.values.begin(), A.values.end()), values);
}

// Runs f and checks that it throws hola::error with `code` and a message containing `needle`.
void expect_error(const std::function<void()>& f, status code, const std::string& needle) {
  try {
    f();
    ADD_FAILURE() << "no exception; expected " << hola::status_name(code) << " containing '"
                  << needle << "'";
  } catch (const hola::error& e) {
    EXPECT_EQ(e.code(), code) << e.what();
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos)
        << "message '" << e.what() << "' lacks '" << needle << "'";
  }
}

std::string temp_path(const std::string& name) { return ::testing::TempDir() + "hola_mm_" + name; }

void write_text(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  ASSERT_TRUE(out.good()) << path;
}

// ---------------------------------------------------------------- flavours

TEST(MatrixMarketParse, RealGeneralWithCommentsBlankLinesAndUnsortedEntries) {
  const auto A = parse(
      "%%MatrixMarket matrix coordinate real general\n"
      "% a comment\n"
      "\n"
      "%another\n"
      "3 4 5\n"
      "3 4 -2.5\n"
      "1 3 3e2\n"
      "\n"
      "1 1 1.25\n"
      "3 1 .5\n"
      "1 2 -0.125\n");
  expect_csr(A, 3, 4, {0, 3, 3, 5}, {0, 1, 2, 0, 3}, {1.25, -0.125, 300, 0.5, -2.5});
}

TEST(MatrixMarketParse, IntegerGeneral) {
  const auto A = parse(
      "%%MatrixMarket matrix coordinate integer general\n"
      "2 3 3\n"
      "2 3 -7\n"
      "1 2 +4\n"
      "2 1 9007199254740993\n");  // beyond 2^53: rounds like a cast from int64
  expect_csr(A, 2, 3, {0, 1, 3}, {1, 0, 2},
             {4, static_cast<double>(INT64_C(9007199254740993)), -7});
}

TEST(MatrixMarketParse, PatternGeneralValuesAreOne) {
  const auto A = parse<float, I64, I64>(
      "%%MatrixMarket matrix coordinate pattern general\n"
      "3 3 3\n"
      "2 2\n"
      "1 3\n"
      "3 1\n");
  expect_csr(A, 3, 3, {0, 1, 2, 3}, {2, 1, 0}, {1, 1, 1});
}

TEST(MatrixMarketParse, RealSymmetricLowerAndUpperEntriesAreMirrored) {
  // (2,1) is in the lower triangle, (1,3) in the upper one: both are mirrored.
  const auto A = parse(
      "%%MatrixMarket matrix coordinate real symmetric\n"
      "3 3 4\n"
      "1 1 1\n"
      "2 1 2\n"
      "1 3 3\n"
      "3 3 4\n");
  expect_csr(A, 3, 3, {0, 3, 4, 6}, {0, 1, 2, 0, 0, 2}, {1, 2, 3, 2, 3, 4});
}

TEST(MatrixMarketParse, IntegerSymmetric) {
  const auto A = parse<float, I32, I64>(
      "%%MatrixMarket matrix coordinate integer symmetric\n"
      "2 2 2\n"
      "2 1 5\n"
      "2 2 -1\n");
  expect_csr(A, 2, 2, {0, 1, 3}, {1, 0, 1}, {5, 5, -1});
}

TEST(MatrixMarketParse, PatternSymmetric) {
  const auto A = parse<double, I64, I32>(
      "%%MatrixMarket matrix coordinate pattern symmetric\n"
      "3 3 3\n"
      "2 1\n"
      "3 2\n"
      "3 3\n");
  expect_csr(A, 3, 3, {0, 1, 3, 5}, {1, 0, 2, 1, 2}, {1, 1, 1, 1, 1});
}

TEST(MatrixMarketParse, SkewSymmetricMirrorIsNegated) {
  const auto A = parse(
      "%%MatrixMarket matrix coordinate real skew-symmetric\n"
      "3 3 2\n"
      "2 1 1.5\n"
      "1 3 -2\n");  // upper triangle is accepted too
  expect_csr(A, 3, 3, {0, 2, 3, 4}, {1, 2, 0, 0}, {-1.5, -2, 1.5, 2});
}

TEST(MatrixMarketParse, HeaderKeywordsAreCaseInsensitive) {
  MatrixMarketInfo info;
  const auto A = parse(
      "%%matrixmarket MATRIX Coordinate REAL Skew-Symmetric\n"
      "2 2 1\n"
      "2 1 3\n",
      &info);
  EXPECT_EQ(info.field, MmField::real);
  EXPECT_EQ(info.symmetry, MmSymmetry::skew_symmetric);
  expect_csr(A, 2, 2, {0, 1, 2}, {1, 0}, {-3, 3});
}

TEST(MatrixMarketParse, InfoIsFilled) {
  const MatrixMarketInfo info = parsed_info(
      "%%MatrixMarket matrix coordinate pattern symmetric\n"
      "4 4 2\n"
      "2 1\n"
      "4 4\n");
  EXPECT_EQ(info.field, MmField::pattern);
  EXPECT_EQ(info.symmetry, MmSymmetry::symmetric);
  EXPECT_EQ(info.rows, 4);
  EXPECT_EQ(info.cols, 4);
  EXPECT_EQ(info.stored_entries, 2);
}

TEST(MatrixMarketParse, CrLfTabsAndNoFinalNewline) {
  const auto A = parse(
      "%%MatrixMarket\tmatrix coordinate real general \r\n"
      "% comment\r\n"
      "\t2 2 2\r\n"
      "\r\n"
      "2\t2\t7 \r\n"
      "  1 1 6");
  expect_csr(A, 2, 2, {0, 1, 2}, {0, 1}, {6, 7});
}

TEST(MatrixMarketParse, EmptyAndRectangularShapes) {
  expect_csr(parse("%%MatrixMarket matrix coordinate real general\n0 0 0\n"), 0, 0, {0}, {}, {});
  expect_csr(parse("%%MatrixMarket matrix coordinate real general\n3 0 0\n"), 3, 0, {0, 0, 0, 0},
             {}, {});
  expect_csr(parse("%%MatrixMarket matrix coordinate pattern general\n0 5 0"), 0, 5, {0}, {}, {});
  // A single column, empty first and last rows.
  expect_csr(parse("%%MatrixMarket matrix coordinate real general\n5 1 2\n4 1 2\n2 1 1\n"), 5, 1,
             {0, 0, 1, 1, 2, 2}, {0, 0}, {1, 2});
}

TEST(MatrixMarketParse, DuplicatesAreSummed) {
  expect_csr(parse("%%MatrixMarket matrix coordinate real general\n"
                   "2 2 5\n1 2 1\n2 1 4\n1 2 2\n1 1 8\n1 2 0.5\n"),
             2, 2, {0, 2, 3}, {0, 1, 0}, {8, 3.5, 4});
  // Pattern duplicates count twice.
  expect_csr(parse("%%MatrixMarket matrix coordinate pattern general\n1 1 2\n1 1\n1 1\n"), 1, 1,
             {0, 1}, {0}, {2});
  // A symmetric file listing both (2,1) and (1,2): each is mirrored, then summed.
  expect_csr(parse("%%MatrixMarket matrix coordinate real symmetric\n2 2 2\n2 1 1\n1 2 10\n"), 2, 2,
             {0, 1, 2}, {1, 0}, {11, 11});
}

// Long shuffled rows with duplicates go through the merge sort, short ones through insertion.
TEST(MatrixMarketParse, LongShuffledRowsWithDuplicates) {
  std::mt19937 rng(42);
  const int rows = 7, cols = 300;
  std::map<std::pair<int, int>, double> expected;
  std::vector<std::string> lines;
  for (int r = 0; r < rows; ++r) {
    const int count = r == 3 ? 1000 : (r == 5 ? 0 : 5 * r + 1);
    for (int k = 0; k < count; ++k) {
      const int c = static_cast<int>(rng() % cols);
      const int v = static_cast<int>(rng() % 19) - 9;  // small integers: sums are exact
      expected[{r, c}] += v;
      lines.push_back(std::to_string(r + 1) + " " + std::to_string(c + 1) + " " +
                      std::to_string(v) + "\n");
    }
  }
  std::shuffle(lines.begin(), lines.end(), rng);
  std::string text = "%%MatrixMarket matrix coordinate integer general\n" + std::to_string(rows) +
                     " " + std::to_string(cols) + " " + std::to_string(lines.size()) + "\n";
  for (const auto& l : lines) text += l;

  std::vector<I64> row_ptr(rows + 1, 0), col_idx;
  std::vector<double> values;
  for (const auto& [rc, v] : expected) {
    ++row_ptr[rc.first + 1];
    col_idx.push_back(rc.second);
    values.push_back(v);
  }
  for (int r = 0; r < rows; ++r) row_ptr[r + 1] += row_ptr[r];
  expect_csr(parse(text), rows, cols, row_ptr, col_idx, values);
  expect_csr(parse<float, I64, I64>(text), rows, cols, row_ptr, col_idx, values);
}

TEST(MatrixMarketParse, NumberSpellings) {
  const auto A = parse(
      "%%MatrixMarket matrix coordinate real general\n"
      "1 8 8\n"
      "1 1 +2.5\n"
      "1 2 1.5D+03\n"  // Fortran exponent
      "1 3 -2.5d-1\n"
      "1 4 inf\n"
      "1 5 -Infinity\n"
      "1 6 1e400\n"  // beyond double: saturates
      "1 7 -1e-400\n"
      "+1 +8 5.\n");
  const double inf = std::numeric_limits<double>::infinity();
  expect_csr(A, 1, 8, {0, 8}, {0, 1, 2, 3, 4, 5, 6, 7},
             {2.5, 1500, -0.25, inf, -inf, inf, -0.0, 5});
  EXPECT_TRUE(std::signbit(A.values[6]));
  const auto N = parse("%%MatrixMarket matrix coordinate real general\n1 1 1\n1 1 nan\n");
  EXPECT_TRUE(std::isnan(N.values[0]));
}

TEST(MatrixMarketParse, FloatOutOfRangeConverts) {
  const auto A = parse<float>(
      "%%MatrixMarket matrix coordinate real general\n"
      "1 5 5\n"
      "1 1 1e39\n"
      "1 2 -1e39\n"
      "1 3 1e-50\n"
      "1 4 1e-40\n"  // float subnormal
      "1 5 3.40282346e38\n");
  const float inf = std::numeric_limits<float>::infinity();
  EXPECT_EQ(A.values[0], inf);
  EXPECT_EQ(A.values[1], -inf);
  EXPECT_EQ(A.values[2], 0.0f);
  EXPECT_EQ(A.values[3], 1e-40f);
  EXPECT_EQ(A.values[4], std::numeric_limits<float>::max());
}

// ---------------------------------------------------------------- malformed input

struct BadCase {
  const char* what;
  std::string text;
  status code;
  int line;
  const char* needle;  // also expected in the message
};

std::vector<BadCase> bad_cases() {
  const std::string rg = "%%MatrixMarket matrix coordinate real general\n";
  const std::string pg = "%%MatrixMarket matrix coordinate pattern general\n";
  const std::string ig = "%%MatrixMarket matrix coordinate integer general\n";
  const std::string rs = "%%MatrixMarket matrix coordinate real symmetric\n";
  const std::string rk = "%%MatrixMarket matrix coordinate real skew-symmetric\n";
  const status P = status::parse;
  return {
      {"empty file", "", P, 1, "empty"},
      {"no banner", "3 3 1\n1 1 1\n", P, 1, "banner"},
      {"blank first line", "\n" + rg + "1 1 0\n", P, 1, "banner"},
      {"misspelt banner", "%%MatrixMarkt matrix coordinate real general\n1 1 0\n", P, 1, "banner"},
      {"incomplete banner", "%%MatrixMarket matrix coordinate real\n1 1 0\n", P, 1, "banner"},
      {"banner garbage", "%%MatrixMarket matrix coordinate real general x\n1 1 0\n", P, 1, "'x'"},
      {"unknown object", "%%MatrixMarket vector coordinate real general\n1 1 0\n", P, 1,
       "'vector'"},
      {"unknown format", "%%MatrixMarket matrix sparse real general\n1 1 0\n", P, 1, "'sparse'"},
      {"unknown field", "%%MatrixMarket matrix coordinate quaternion general\n1 1 0\n", P, 1,
       "unknown field 'quaternion' in the banner (expected 'real', 'integer', 'pattern' or "
       "'complex')"},
      {"unknown symmetry", "%%MatrixMarket matrix coordinate real diagonal\n1 1 0\n", P, 1,
       "unknown symmetry 'diagonal' in the banner (expected 'general', 'symmetric', "
       "'skew-symmetric' or 'hermitian')"},
      {"real hermitian", "%%MatrixMarket matrix coordinate real hermitian\n1 1 0\n", P, 1,
       "hermitian"},
      {"pattern skew", "%%MatrixMarket matrix coordinate pattern skew-symmetric\n1 1 0\n", P, 1,
       "skew"},
      {"no size line", rg + "% only comments\n\n", P, 4, "size line"},
      {"short size line", rg + "% c\n3 3\n", P, 3, "size line"},
      {"non-numeric size", rg + "3 x 3\n", P, 2, "size line"},
      {"fractional size", rg + "3.0 3 1\n", P, 2, "size line"},
      {"size line garbage", rg + "3 3 1 1\n1 1 1\n", P, 2, "after the size line"},
      {"negative rows", rg + "-1 3 0\n", P, 2, "negative"},
      {"negative entries", rg + "3 3 -1\n", P, 2, "negative"},
      {"huge size", rg + "3 3 99999999999999999999\n", P, 2, "too large"},
      {"symmetric not square", rs + "3 4 1\n1 1 1\n", P, 2, "square"},
      {"row index too large", rg + "3 3 2\n1 1 1\n4 1 1\n", P, 4, "row index '4'"},
      {"row index bound named", rg + "3 3 1\n4 1 1\n", P, 3, "[1, 3]"},
      {"column index zero", rg + "3 5 1\n1 0 1\n", P, 3, "column index '0'"},
      {"column index bound named", rg + "3 5 1\n1 6 1\n", P, 3, "[1, 5]"},
      {"negative index", rg + "3 3 1\n-1 1 1\n", P, 3, "row index '-1'"},
      {"index in empty matrix", rg + "0 0 1\n1 1 1\n", P, 3, "no rows"},
      {"fractional index", rg + "3 3 1\n1.5 1 1\n", P, 3, "not an integer"},
      {"index overflow", rg + "3 3 1\n99999999999999999999 1 1\n", P, 3, "out of range"},
      {"missing column", rg + "3 3 1\n1\n", P, 3, "missing column"},
      {"missing value", rg + "3 3 2\n1 1 1\n2 2\n", P, 4, "missing value"},
      {"missing value at end", rg + "3 3 1\n2 2", P, 3, "missing value"},
      {"non-numeric value", rg + "3 3 1\n1 1 abc\n", P, 3, "'abc'"},
      {"value with suffix", rg + "3 3 1\n1 1 1.5x\n", P, 3, "'1.5x'"},
      {"value without exponent", rg + "3 3 1\n1 1 1e\n", P, 3, "'1e'"},
      {"double sign", rg + "3 3 1\n1 1 --1\n", P, 3, "'--1'"},
      {"absurd exponent", rg + "3 3 1\n1 1 1e99999\n", P, 3, "out of range"},
      {"fractional integer", ig + "3 3 1\n1 1 2.5\n", P, 3, "integer value"},
      {"trailing garbage", rg + "3 3 1\n1 1 1.0 7\n", P, 3, "'7'"},
      {"value in pattern file", pg + "3 3 1\n1 1 1.0\n", P, 3, "'1.0'"},
      {"truncated", rg + "3 3 3\n1 1 1\n2 2 2\n", P, 5, "2 of the 3"},
      {"truncated no newline", rg + "% c\n3 3 3\n1 1 1\n2 2 2", P, 5, "2 of the 3"},
      {"no entries at all", rg + "3 3 3\n", P, 3, "0 of the 3"},
      {"too many", rg + "3 3 1\n1 1 1\n\n2 2 2\n", P, 5, "more entries than the 1"},
      {"comment among entries", rg + "3 3 2\n1 1 1\n% late comment\n2 2 2\n", P, 4, "comment"},
      {"skew diagonal", rk + "3 3 2\n2 1 1\n2 2 1\n", P, 4, "diagonal"},
      {"binary junk",
       std::string("\x7f"
                   "ELF\x01\x02\0\0",
                   8),
       P, 1, "banner"},
      {"complex", "%%MatrixMarket matrix coordinate complex general\n1 1 1\n1 1 1 0\n",
       status::unsupported, 1, "complex Matrix Market files are not supported"},
      {"complex hermitian", "%%MatrixMarket matrix coordinate complex hermitian\n1 1 0\n",
       status::unsupported, 1, "complex"},
      {"array", "%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n4\n", status::unsupported,
       1, "array"},
  };
}

TEST(MatrixMarketParse, MalformedInputGivesStatusAndLine) {
  for (const BadCase& c : bad_cases()) {
    SCOPED_TRACE(c.what);
    const std::string where = "test.mtx:" + std::to_string(c.line) + ":";
    expect_error([&] { parse(c.text); }, c.code, where);
    expect_error([&] { parse(c.text); }, c.code, c.needle);
    expect_error([&] { parse<float, I64, I64>(c.text); }, c.code, where);
  }
}

// Random damage to valid files: each result is a matrix or a hola::error, never a crash or
// another exception (run under the sanitizers to make this test count).
TEST(MatrixMarketParse, DamagedInputParsesOrThrowsHolaError) {
  const std::vector<std::string> seeds = {
      "%%MatrixMarket matrix coordinate real general\n% c\n3 4 4\n1 1 1.5\n3 4 -2e3\n2 2 7\n"
      "1 4 .25\n",
      "%%MatrixMarket matrix coordinate pattern symmetric\n4 4 3\n2 1\n4 4\n3 1\n",
      "%%MatrixMarket matrix coordinate integer skew-symmetric\n3 3 2\n2 1 5\n3 1 -4\n"};
  const std::string alphabet = "0123456789 \n\t-+.eE%dxn\r";
  std::mt19937 rng(1234);
  int parsed = 0, rejected = 0;
  for (int trial = 0; trial < 3000; ++trial) {
    std::string text = seeds[trial % seeds.size()];
    const int edits = 1 + static_cast<int>(rng() % 3);
    for (int e = 0; e < edits; ++e) {
      const std::size_t at = rng() % (text.size() + 1);
      const char ch = alphabet[rng() % alphabet.size()];
      switch (rng() % 4) {
        case 0:
          if (at < text.size()) text[at] = ch;
          break;
        case 1:
          text.insert(at, 1, ch);
          break;
        case 2:
          if (at < text.size()) text.erase(at, 1);
          break;
        default:  // truncation
          text.resize(at);
          break;
      }
    }
    try {
      const auto A = parse<float, I32, I32>(text);
      ++parsed;
      ASSERT_EQ(static_cast<I64>(A.row_ptr.size()), A.rows + 1);
      ASSERT_EQ(A.row_ptr.back(), A.nnz());
      for (I64 r = 0; r < A.rows; ++r)
        for (I64 j = A.row_ptr[r]; j < A.row_ptr[r + 1]; ++j) {
          ASSERT_TRUE(A.col_idx[j] >= 0 && A.col_idx[j] < A.cols) << text;
          ASSERT_TRUE(j == A.row_ptr[r] || A.col_idx[j - 1] < A.col_idx[j]) << text;
        }
    } catch (const hola::error& e) {
      ++rejected;
      const status code = e.code();
      ASSERT_TRUE(code == status::parse || code == status::unsupported) << e.what();
    }
  }
  EXPECT_GT(parsed, 30);
  EXPECT_GT(rejected, 100);
}

TEST(MatrixMarketParse, MalformedFileNamesTheFile) {
  const std::string path = temp_path("truncated.mtx");
  write_text(path, "%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 1\n");
  expect_error([&] { hola::read_matrix_market<double, I32, I32>(path); }, status::parse,
               path + ":4:");
  std::remove(path.c_str());
}

TEST(MatrixMarketParse, SizesBeyondIndexTypesAreUnsupported) {
  const std::string big_rows = "%%MatrixMarket matrix coordinate real general\n3000000000 1 0\n";
  const std::string big_cols =
      "%%MatrixMarket matrix coordinate pattern general\n1 3000000000 1\n"
      "1 2999999999\n";
  expect_error([&] { parse<double, I32, I64>(big_rows); }, status::unsupported, "int32");
  expect_error([&] { parse<float, I32, I32>(big_cols); }, status::unsupported, "3000000000");
  // int64 column indices take the wide matrix; nothing is allocated per column.
  const auto A = parse<float, I64, I32>(big_cols);
  expect_csr(A, 1, 3000000000LL, {0, 1}, {2999999998LL}, {1});
}

// ---------------------------------------------------------------- files

TEST(MatrixMarketFile, MissingFileIsIoError) {
  const std::string path = temp_path("does_not_exist.mtx");
  expect_error([&] { hola::read_matrix_market<double, I32, I32>(path); }, status::io, path);
  expect_error([&] { hola::read_matrix_market_info(path); }, status::io, path);
}

TEST(MatrixMarketFile, DirectoryIsIoError) {
  const std::string dir = ::testing::TempDir();
  expect_error([&] { hola::read_matrix_market<double, I32, I32>(dir); }, status::io, "");
  expect_error([&] { hola::read_matrix_market_info(dir); }, status::io, "");
}

TEST(MatrixMarketFile, EmptyFileIsParseError) {
  const std::string path = temp_path("empty.mtx");
  write_text(path, "");
  expect_error([&] { hola::read_matrix_market<double, I32, I32>(path); }, status::parse,
               path + ":1:");
  expect_error([&] { hola::read_matrix_market_info(path); }, status::parse, path + ":1:");
  std::remove(path.c_str());
}

// Files that cannot be mapped (pipes) are read into a buffer instead.
TEST(MatrixMarketFile, ReadsFromAPipe) {
  const std::string path = temp_path("fifo.mtx");
  std::remove(path.c_str());
  ASSERT_EQ(mkfifo(path.c_str(), 0600), 0) << path;
  std::string text = "%%MatrixMarket matrix coordinate real general\n100000 3 100000\n";
  for (int r = 100000; r >= 1; --r)
    text += std::to_string(r) + " " + std::to_string(r % 3 + 1) + " 0.5\n";
  std::thread writer([&] {
    std::ofstream out(path, std::ios::binary);
    out << text;
  });
  CsrMatrix<double, I32, I32> A;
  EXPECT_NO_THROW((A = hola::read_matrix_market<double, I32, I32>(path)));
  writer.join();
  std::remove(path.c_str());
  ASSERT_EQ(A.rows, 100000);
  EXPECT_EQ(A.nnz(), 100000);
  EXPECT_EQ(A.col_idx[0], 1);
  EXPECT_EQ(A.col_idx[99999], 1);
  EXPECT_EQ(A.row_ptr[100000], 100000);
}

TEST(MatrixMarketFile, InfoReadsTheHeaderOnly) {
  const std::string path = temp_path("info.mtx");
  // The entries are garbage: only the banner and size line are read.
  write_text(path,
             "%%MatrixMarket matrix coordinate complex hermitian\n% c\n\n 7 7 12 \nnot an entry\n");
  const MatrixMarketInfo info = hola::read_matrix_market_info(path);
  EXPECT_EQ(info.field, MmField::complex);
  EXPECT_EQ(info.symmetry, MmSymmetry::hermitian);
  EXPECT_EQ(info.rows, 7);
  EXPECT_EQ(info.cols, 7);
  EXPECT_EQ(info.stored_entries, 12);

  write_text(path, "%%MatrixMarket matrix coordinate integer general\n3 4 5");  // no newline
  EXPECT_EQ(hola::read_matrix_market_info(path).stored_entries, 5);
  write_text(path, "%%MatrixMarket matrix array real general\n3 4\n");
  expect_error([&] { hola::read_matrix_market_info(path); }, status::unsupported, "array");
  write_text(path, "%%MatrixMarket matrix coordinate real general\n% c\n3 x 4\n");
  expect_error([&] { hola::read_matrix_market_info(path); }, status::parse, path + ":3:");
  write_text(path, "%%MatrixMarket matrix coordinate real general\n% c\n");
  expect_error([&] { hola::read_matrix_market_info(path); }, status::parse, "size line");
  std::remove(path.c_str());
}

// ---------------------------------------------------------------- writer

template <class T>
class MatrixMarketRoundTrip : public ::testing::Test {};

using hola::test::AllTypes;
TYPED_TEST_SUITE(MatrixMarketRoundTrip, AllTypes);

template <class V, class I, class O>
CsrMatrix<V, I, O> random_matrix(I64 rows, I64 cols, unsigned seed) {
  std::mt19937_64 rng(seed);
  CsrMatrix<V, I, O> A;
  A.rows = rows;
  A.cols = cols;
  A.row_ptr.assign(1, 0);
  // Values that stress the text form: extremes, subnormals, signed zero, infinities, random bits.
  const std::vector<V> special = {V(0),
                                  -V(0),
                                  V(1) / V(3),
                                  std::numeric_limits<V>::max(),
                                  std::numeric_limits<V>::lowest(),
                                  std::numeric_limits<V>::min(),
                                  std::numeric_limits<V>::denorm_min(),
                                  -std::numeric_limits<V>::denorm_min(),
                                  std::numeric_limits<V>::epsilon(),
                                  std::numeric_limits<V>::infinity(),
                                  -std::numeric_limits<V>::infinity(),
                                  V(123456789),
                                  V(1e-7)};
  std::size_t next_special = 0;
  for (I64 r = 0; r < rows; ++r) {
    if (r % 5 != 3) {  // every fifth row empty
      for (I64 c = 0; c < cols; ++c) {
        if (rng() % 4 != 0) continue;
        A.col_idx.push_back(static_cast<I>(c));
        V v;
        if (next_special < special.size()) {
          v = special[next_special++];
        } else {
          do {  // random bit patterns, NaN excluded (its payload is not kept by the text form)
            if constexpr (sizeof(V) == 4) {
              const auto bits = static_cast<std::uint32_t>(rng());
              std::memcpy(&v, &bits, sizeof v);
            } else {
              const std::uint64_t bits = rng();
              std::memcpy(&v, &bits, sizeof v);
            }
          } while (std::isnan(v));
        }
        A.values.push_back(v);
      }
    }
    A.row_ptr.push_back(static_cast<O>(A.col_idx.size()));
  }
  return A;
}

TYPED_TEST(MatrixMarketRoundTrip, WriteThenReadIsBitwiseEqual) {
  HOLA_TYPES;
  const std::string path = temp_path(std::string("roundtrip_") + hola::value_type_name<V>() +
                                     hola::index_type_name<I>() + hola::index_type_name<O>());
  for (const auto& [rows, cols] :
       std::vector<std::pair<I64, I64>>{{40, 37}, {0, 0}, {3, 0}, {1, 200}}) {
    SCOPED_TRACE(std::to_string(rows) + " x " + std::to_string(cols));
    const auto A = random_matrix<V, I, O>(rows, cols, 7);
    hola::write_matrix_market(path, A.view());
    MatrixMarketInfo info;
    const auto B = hola::read_matrix_market<V, I, O>(path, &info);
    EXPECT_EQ(info.field, MmField::real);
    EXPECT_EQ(info.symmetry, MmSymmetry::general);
    EXPECT_EQ(info.stored_entries, A.nnz());
    EXPECT_EQ(B.rows, A.rows);
    EXPECT_EQ(B.cols, A.cols);
    EXPECT_EQ(B.row_ptr, A.row_ptr);
    EXPECT_EQ(B.col_idx, A.col_idx);
    ASSERT_EQ(B.values.size(), A.values.size());
    if (!A.values.empty()) {  // memcmp must not see the null data() of an empty vector
      EXPECT_EQ(std::memcmp(B.values.data(), A.values.data(), A.values.size() * sizeof(V)), 0);
    }
  }
  std::ifstream in(path);
  std::string first, second;
  std::getline(in, first);
  std::getline(in, second);
  EXPECT_EQ(first, "%%MatrixMarket matrix coordinate real general");
  EXPECT_EQ(second, "% written by Hola");
  std::remove(path.c_str());
}

TEST(MatrixMarketWrite, WritesOneBasedEntries) {
  const std::string path = temp_path("small.mtx");
  const auto A =
      parse("%%MatrixMarket matrix coordinate real general\n2 3 3\n2 3 0.1\n1 1 -2\n2 1 1e+300\n");
  hola::write_matrix_market(path, A.view());
  std::ifstream in(path);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(text,
            "%%MatrixMarket matrix coordinate real general\n% written by Hola\n2 3 3\n"
            "1 1 -2\n2 1 1e+300\n2 3 0.1\n");
  std::remove(path.c_str());
}

TEST(MatrixMarketWrite, Errors) {
  const auto A = parse("%%MatrixMarket matrix coordinate real general\n2 2 1\n1 2 1\n");
  auto v = A.view();
  v.memory = hola::Memory::device;
  const std::string path = temp_path("never_written.mtx");
  expect_error([&] { hola::write_matrix_market(path, v); }, status::invalid_argument, "device");
  EXPECT_FALSE(std::ifstream(path).good());

  const std::string no_dir = temp_path("no_such_dir/a.mtx");
  expect_error([&] { hola::write_matrix_market(no_dir, A.view()); }, status::io, no_dir);

  auto bad = A.view();
  const std::int32_t bad_cols[] = {5};
  bad.col_idx = bad_cols;
  expect_error([&] { hola::write_matrix_market(path, bad); }, status::invalid_csr, "column");
  EXPECT_FALSE(std::ifstream(path).good());
}

// ---------------------------------------------------------------- real matrices

struct RealMatrix {
  const char* file;
  I64 rows, cols, stored, full;
  MmField field;
  MmSymmetry symmetry;
  I64 longest_row, empty_rows;
};

// The table of the corpus README.
const RealMatrix kRealMatrices[] = {
    {"CA-HepPh.mtx", 89209, 89209, 237010, 237010, MmField::integer, MmSymmetry::general, 491,
     77201},
    {"Franz6_id1959_aug.mtx", 10592, 3016, 48472, 48472, MmField::integer, MmSymmetry::general, 6,
     0},
    {"Groebner_id2003_aug.mtx", 4967, 2456, 173670, 173670, MmField::integer, MmSymmetry::general,
     829, 0},
    {"arrow.mtx", 46500, 46500, 139498, 139498, MmField::integer, MmSymmetry::general, 46500, 0},
    {"bayer10.mtx", 13436, 13436, 94926, 94926, MmField::real, MmSymmetry::general, 27, 0},
    {"bcsstk13.mtx", 2003, 2003, 42943, 83883, MmField::real, MmSymmetry::symmetric, 95, 0},
    {"mbeacxc.mtx", 496, 496, 49920, 49920, MmField::real, MmSymmetry::general, 484, 48},
    {"pushpull.mtx", 4000, 4000, 99208, 196305, MmField::pattern, MmSymmetry::symmetric, 124, 0},
    {"rajat01.mtx", 6833, 6833, 43250, 43250, MmField::pattern, MmSymmetry::general, 1442, 0},
    {"sparse-images-1024.mtx", 1200, 1024, 122713, 122713, MmField::pattern, MmSymmetry::general,
     276, 0},
    {"usroads.mtx", 129164, 129164, 165435, 330870, MmField::pattern, MmSymmetry::symmetric, 7, 0},
};

// Value of (r, c) in a CSR with sorted rows; false if absent.
template <class V, class I, class O>
bool find_entry(const CsrMatrix<V, I, O>& A, I64 r, I64 c, V* v) {
  const auto first = A.col_idx.begin() + static_cast<std::ptrdiff_t>(A.row_ptr[r]);
  const auto last = A.col_idx.begin() + static_cast<std::ptrdiff_t>(A.row_ptr[r + 1]);
  const auto it = std::lower_bound(first, last, static_cast<I>(c));
  if (it == last || *it != c) return false;
  *v = A.values[static_cast<std::size_t>(it - A.col_idx.begin())];
  return true;
}

// The real matrices are optional (a fresh clone has none): every test below skips itself, with the
// reason, when their folder is absent. Present, a missing README or file fails.
// The generated families cover the structure classes of the real matrices, so that the tests'
// coverage does not depend on the corpus being present: for each structural measure, some family
// matrix is at least as extreme as the most extreme real matrix of the table (empty rows, long
// rows (share of the nonzeros in the longest row), aspect ratio, rows nearly full, medium-length
// rows, symmetric).
struct Shape {
  double empty_fraction = 0, longest_share = 0, aspect = 0, longest_over_cols = 0, mean_row = 0;
};

Shape shape_of(I64 rows, I64 cols, I64 nnz, I64 longest, I64 empty) {
  Shape s;
  if (rows == 0 || cols == 0 || nnz == 0) return s;
  const double mean = static_cast<double>(nnz) / static_cast<double>(rows);
  s.empty_fraction = static_cast<double>(empty) / static_cast<double>(rows);
  s.longest_share = static_cast<double>(longest) / static_cast<double>(nnz);
  s.aspect = std::max(static_cast<double>(rows) / static_cast<double>(cols),
                      static_cast<double>(cols) / static_cast<double>(rows));
  s.longest_over_cols = static_cast<double>(longest) / static_cast<double>(cols);
  if (rows >= 100) s.mean_row = mean;  // a single long row is another class
  return s;
}

TEST(MatrixMarketRealMatrices, GeneratedFamiliesCoverTheirStructureClasses) {
  Shape real, fam;
  auto widen = [](Shape& to, const Shape& s) {
    to.empty_fraction = std::max(to.empty_fraction, s.empty_fraction);
    to.longest_share = std::max(to.longest_share, s.longest_share);
    to.aspect = std::max(to.aspect, s.aspect);
    to.longest_over_cols = std::max(to.longest_over_cols, s.longest_over_cols);
    to.mean_row = std::max(to.mean_row, s.mean_row);
  };
  bool real_symmetric = false, family_symmetric = false;
  for (const RealMatrix& m : kRealMatrices) {
    widen(real, shape_of(m.rows, m.cols, m.full, m.longest_row, m.empty_rows));
    real_symmetric = real_symmetric || m.symmetry == MmSymmetry::symmetric;
  }
  for (const auto& f : hola::test::family_corpus()) {
    const auto& A = f.A;
    I64 longest = 0, empty = 0;
    for (I64 r = 0; r < A.rows; ++r) {
      const I64 len = A.row_ptr[r + 1] - A.row_ptr[r];
      longest = std::max(longest, len);
      empty += (len == 0);
    }
    widen(fam, shape_of(A.rows, A.cols, A.nnz(), longest, empty));
    if (A.rows == A.cols && A.nnz() > 0) {
      bool sym = true;
      double t;
      for (I64 r = 0; r < A.rows && sym; ++r)
        for (I64 j = A.row_ptr[r]; j < A.row_ptr[r + 1] && sym; ++j)
          sym = find_entry(A, A.col_idx[j], r, &t);
      family_symmetric = family_symmetric || sym;
    }
  }
  EXPECT_GE(fam.empty_fraction, real.empty_fraction);
  EXPECT_GE(fam.longest_share, real.longest_share);
  EXPECT_GE(fam.aspect, real.aspect);
  EXPECT_GE(fam.longest_over_cols, real.longest_over_cols);
  EXPECT_GE(fam.mean_row, real.mean_row);
  EXPECT_TRUE(family_symmetric || !real_symmetric);
}

TEST(MatrixMarketRealMatrices, DirectoryHasTheReadme) {
  const std::string dir = hola::test::matrices_dir();
  if (dir.empty()) GTEST_SKIP() << hola::test::matrices_missing_reason();
  EXPECT_TRUE(std::ifstream(dir + "/README.md").good())
      << "corpus directory " << dir << " (HOLA_MATRICES_DIR) has no README.md";
}

// The table above is the README's: a file added to or changed in the corpus must show up here.
TEST(MatrixMarketRealMatrices, TableMatchesTheReadme) {
  const std::string dir = hola::test::matrices_dir();
  if (dir.empty()) GTEST_SKIP() << hola::test::matrices_missing_reason();
  std::ifstream in(dir + "/README.md");
  ASSERT_TRUE(in.good()) << "no README.md in " << dir;
  std::string line;
  int rows_seen = 0;
  while (std::getline(in, line)) {
    if (line.rfind("| ", 0) != 0 || line.find(".mtx") == std::string::npos) continue;
    std::vector<std::string> cell;
    std::size_t pos = 1;
    for (std::size_t bar; (bar = line.find('|', pos)) != std::string::npos; pos = bar + 1) {
      std::string c = line.substr(pos, bar - pos);
      c.erase(0, c.find_first_not_of(' '));
      c.erase(c.find_last_not_of(' ') + 1);
      cell.push_back(c);
    }
    ASSERT_GE(cell.size(), 8u) << line;
    ++rows_seen;
    const RealMatrix* m = nullptr;
    for (const RealMatrix& x : kRealMatrices)
      if (cell[0] == x.file) m = &x;
    ASSERT_NE(m, nullptr) << cell[0] << " is in the README but not in this test";
    EXPECT_EQ(std::to_string(m->rows), cell[1]) << cell[0];
    EXPECT_EQ(std::to_string(m->cols), cell[2]) << cell[0];
    EXPECT_EQ(std::to_string(m->stored), cell[3]) << cell[0];
    EXPECT_EQ(std::to_string(m->full), cell[4]) << cell[0];
    const char* field = m->field == MmField::real      ? "real"
                        : m->field == MmField::integer ? "integer"
                                                       : "pattern";
    const char* symmetry = m->symmetry == MmSymmetry::general ? "general" : "symmetric";
    EXPECT_EQ(std::string(field) + " " + symmetry, cell[5]) << cell[0];
    EXPECT_EQ(std::to_string(m->longest_row), cell[6]) << cell[0];
    EXPECT_EQ(std::to_string(m->empty_rows), cell[7]) << cell[0];
  }
  EXPECT_EQ(rows_seen, static_cast<int>(std::size(kRealMatrices)));
}

// Test names and messages show the file, not the bytes of the table row.
void PrintTo(const RealMatrix& m, std::ostream* os) { *os << m.file; }

class MatrixMarketRealMatrix : public ::testing::TestWithParam<RealMatrix> {};

// A missing file fails (read_matrix_market throws status::io): the corpus is part of the tests.
TEST_P(MatrixMarketRealMatrix, MatchesTheCorpusTable) {
  const RealMatrix& m = GetParam();
  const std::string dir = hola::test::matrices_dir();
  if (dir.empty()) GTEST_SKIP() << hola::test::matrices_missing_reason();
  const std::string path = dir + "/" + m.file;
  MatrixMarketInfo info;
  CsrMatrix<double, I32, I32> A;
  try {
    A = hola::read_matrix_market<double, I32, I32>(path, &info);
  } catch (const hola::error& e) {
    FAIL() << "cannot read " << path << ": " << e.what();
  }
  const MatrixMarketInfo head = hola::read_matrix_market_info(path);
  EXPECT_EQ(std::tie(head.rows, head.cols, head.stored_entries), std::tie(m.rows, m.cols, m.stored))
      << "(rows, cols, stored entries) of the header";
  EXPECT_EQ(head.field, m.field);
  EXPECT_EQ(head.symmetry, m.symmetry);
  EXPECT_EQ(info.stored_entries, m.stored);

  ASSERT_EQ(A.rows, m.rows);
  ASSERT_EQ(A.cols, m.cols);
  ASSERT_EQ(static_cast<I64>(A.row_ptr.size()), m.rows + 1);
  EXPECT_EQ(A.nnz(), m.full);
  EXPECT_EQ(A.row_ptr.back(), A.nnz());
  I64 longest = 0, empty = 0, diagonal = 0;
  bool sorted = true, in_range = true, pattern_ones = true, symmetric = true;
  for (I64 r = 0; r < A.rows; ++r) {
    const I64 b = A.row_ptr[r], e = A.row_ptr[r + 1];
    longest = std::max(longest, e - b);
    empty += (e == b);
    for (I64 j = b; j < e; ++j) {
      const I64 c = A.col_idx[j];
      in_range = in_range && c >= 0 && c < A.cols;
      sorted = sorted && (j == b || A.col_idx[j - 1] < c);
      diagonal += (c == r);
      if (m.field == MmField::pattern) pattern_ones = pattern_ones && A.values[j] == 1.0;
      double t;
      if (m.symmetry == MmSymmetry::symmetric)
        symmetric = symmetric && find_entry(A, c, r, &t) && t == A.values[j];
    }
  }
  EXPECT_EQ(longest, m.longest_row);
  EXPECT_EQ(empty, m.empty_rows);
  EXPECT_TRUE(sorted) << "rows not strictly increasing";
  EXPECT_TRUE(in_range);
  EXPECT_TRUE(pattern_ones);
  EXPECT_TRUE(symmetric);
  if (m.symmetry == MmSymmetry::symmetric) {
    EXPECT_EQ(m.full, 2 * m.stored - diagonal);
  }

  // Another type combination gives the same structure and the values rounded to float.
  const auto B = hola::read_matrix_market<float, I64, I64>(path);
  EXPECT_TRUE(std::equal(B.row_ptr.begin(), B.row_ptr.end(), A.row_ptr.begin(), A.row_ptr.end()));
  EXPECT_TRUE(std::equal(B.col_idx.begin(), B.col_idx.end(), A.col_idx.begin(), A.col_idx.end()));
  ASSERT_EQ(B.values.size(), A.values.size());
  I64 off = 0;
  for (std::size_t j = 0; j < A.values.size(); ++j)
    off += std::fabs(B.values[j] - A.values[j]) >
           1e-6 * std::fabs(A.values[j]) + std::numeric_limits<float>::min();  // underflow
  EXPECT_EQ(off, 0);
}

INSTANTIATE_TEST_SUITE_P(Corpus, MatrixMarketRealMatrix, ::testing::ValuesIn(kRealMatrices),
                         [](const ::testing::TestParamInfo<RealMatrix>& p) {
                           std::string name = p.param.file;
                           name.resize(name.size() - 4);  // ".mtx"
                           for (char& ch : name)
                             if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
                           return name;
                         });

}  // namespace
