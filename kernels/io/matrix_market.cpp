// Matrix Market (coordinate) reader and writer.
//
// Reading is one pass over the whole file held in one buffer: std::from_chars for every number,
// coordinates into preallocated arrays, then a counting sort on rows, a stable sort of each row by
// column (skipped for rows already in order, the usual case) and the summation of duplicates.
// Duplicates are summed in file order (mirrored entries of a symmetric file take the place of the
// entry they mirror), so the result does not depend on the sorting algorithm.
//
// Accepted beyond the letter of the format, because real files do it: header keywords in any
// case, tabs and CR-LF line ends, a leading '+' on numbers, Fortran 'D' exponents ("1.5D+03"),
// and "inf" / "nan" values (whatever std::from_chars accepts: the file is taken at its word).
// Values too large or too small for V become +-inf or (sub)normal / zero, as a cast would.
// Not accepted: comment lines after the size line (the format allows them only before it; blank
// lines are allowed anywhere after the banner), and extra text on any line.

#include "hola/matrix_market.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <initializer_list>
#include <limits>
#include <memory>
#include <new>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>
#include <type_traits>
#include <utility>
#include <vector>

#include "hola/detail/instantiate.hpp"
#include "hola/error.hpp"

namespace hola {
namespace {

constexpr const char* kBannerHelp =
    "'%%MatrixMarket matrix coordinate <real|integer|pattern> "
    "<general|symmetric|skew-symmetric>'";

#if defined(__GNUC__)
#define HOLA_PREFETCH_W(p) __builtin_prefetch((p), 1)
#else
#define HOLA_PREFETCH_W(p) ((void)(p))
#endif

inline bool is_blank(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}
inline bool is_sep(char c) { return is_blank(c) || c == '\n'; }
inline bool is_digit(char c) { return c >= '0' && c <= '9'; }

inline const char* skip_blanks(const char* p, const char* end) {
  while (p != end && is_blank(*p)) ++p;
  return p;
}

inline const char* token_end(const char* p, const char* end) {
  while (p != end && !is_sep(*p)) ++p;
  return p;
}

// A token for an error message: cut short and with control bytes replaced, since it may come
// from a binary file.
std::string quote(std::string_view s) {
  constexpr std::size_t kMax = 40;
  std::string out = "'";
  for (std::size_t i = 0; i < s.size() && i < kMax; ++i) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    out += (c < 0x20 || c == 0x7f) ? '?' : static_cast<char>(c);
  }
  if (s.size() > kMax) out += "...";
  return out + "'";
}

std::string quote_token(const char* p, const char* end) {
  return quote(std::string_view(p, static_cast<std::size_t>(token_end(p, end) - p)));
}

bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    char x = a[i];
    if (x >= 'A' && x <= 'Z') x = static_cast<char>(x - 'A' + 'a');
    if (x != b[i]) return false;  // b is always lower case
  }
  return true;
}

[[noreturn]] void parse_fail(const std::string& name, std::int64_t line, const std::string& what) {
  fail(status::parse, name + ":" + std::to_string(line) + ": " + what);
}

struct Header {
  MatrixMarketInfo info;
  std::size_t body = 0;   // offset just past the size line
  std::int64_t line = 0;  // line number of the first line after the size line
};

std::vector<std::string_view> split_blanks(std::string_view s) {
  std::vector<std::string_view> out;
  const char* p = s.data();
  const char* end = p + s.size();
  for (;;) {
    p = skip_blanks(p, end);
    if (p == end) break;
    const char* q = p;
    while (q != end && !is_blank(*q)) ++q;
    out.emplace_back(p, static_cast<std::size_t>(q - p));
    p = q;
  }
  return out;
}

// The value of one banner word (case-insensitive) among `words`; anything else is a parse error
// on line 1 that lists them: "unknown <what> 'x' in the banner (expected 'a', 'b' or 'c')".
template <class E>
E banner_word(const std::string& name, const char* what, std::string_view token,
              std::initializer_list<std::pair<const char*, E>> words) {
  std::string expected;
  std::size_t i = 0;
  for (const auto& [word, value] : words) {
    if (iequals(token, word)) return value;
    expected += std::string(i == 0 ? "" : i + 1 == words.size() ? " or " : ", ") + "'" + word + "'";
    ++i;
  }
  parse_fail(name, 1,
             "unknown " + std::string(what) + " " + quote(token) + " in the banner (expected " +
                 expected + ")");
}

// Banner, comments and size line. Complex files are rejected here unless only the header is
// wanted (read_matrix_market_info can describe a file it cannot read).
Header parse_header(std::string_view text, const std::string& name, bool reject_complex) {
  if (text.empty())
    parse_fail(name, 1, "empty file; expected the banner " + std::string(kBannerHelp));
  std::size_t eol = std::min(text.find('\n'), text.size());
  const auto tok = split_blanks(text.substr(0, eol));
  if (tok.empty() || !iequals(tok[0], "%%matrixmarket"))
    parse_fail(name, 1,
               "missing Matrix Market banner: expected " + std::string(kBannerHelp) + ", found " +
                   quote(text.substr(0, eol)));
  if (tok.size() < 5)
    parse_fail(name, 1, "incomplete banner: expected " + std::string(kBannerHelp));
  if (tok.size() > 5)
    parse_fail(name, 1, "unexpected text " + quote(tok[5]) + " after the symmetry in the banner");

  if (!iequals(tok[1], "matrix"))
    parse_fail(name, 1, "unknown object " + quote(tok[1]) + " in the banner (expected 'matrix')");
  bool array = false;
  if (iequals(tok[2], "array")) {
    array = true;
  } else if (!iequals(tok[2], "coordinate")) {
    parse_fail(name, 1,
               "unknown format " + quote(tok[2]) + " in the banner (expected 'coordinate')");
  }
  Header h;
  MatrixMarketInfo& info = h.info;
  info.field = banner_word<MmField>(name, "field", tok[3],
                                    {{"real", MmField::real},
                                     {"integer", MmField::integer},
                                     {"pattern", MmField::pattern},
                                     {"complex", MmField::complex}});
  info.symmetry = banner_word<MmSymmetry>(name, "symmetry", tok[4],
                                          {{"general", MmSymmetry::general},
                                           {"symmetric", MmSymmetry::symmetric},
                                           {"skew-symmetric", MmSymmetry::skew_symmetric},
                                           {"hermitian", MmSymmetry::hermitian}});
  if (array)
    fail(status::unsupported, name +
                                  ":1: array (dense) Matrix Market files are not supported; "
                                  "only the coordinate format is");
  if (info.field == MmField::complex && reject_complex)
    fail(status::unsupported, name + ":1: complex Matrix Market files are not supported");
  // The format defines these combinations as invalid: there is no conjugate of a real number
  // worth a separate keyword, and a pattern entry has no sign to negate.
  if (info.symmetry == MmSymmetry::hermitian && info.field != MmField::complex)
    parse_fail(name, 1, "'hermitian' symmetry is only valid with the 'complex' field");
  if (info.symmetry == MmSymmetry::skew_symmetric && info.field == MmField::pattern)
    parse_fail(name, 1, "'skew-symmetric' symmetry is not valid with the 'pattern' field");

  // Comment and blank lines up to the size line.
  std::size_t pos = eol < text.size() ? eol + 1 : eol;
  std::int64_t line = 2;
  for (;;) {
    if (pos >= text.size())
      parse_fail(name, line, "missing size line 'rows cols entries' (the file ends in the header)");
    eol = std::min(text.find('\n', pos), text.size());
    const char* p = skip_blanks(text.data() + pos, text.data() + eol);
    if (p != text.data() + eol && *p != '%') break;
    pos = eol + 1;
    ++line;
  }

  const char* p = text.data() + pos;
  const char* end = text.data() + eol;
  const std::string size_line = quote(std::string_view(p, static_cast<std::size_t>(end - p)));
  std::int64_t sizes[3];
  for (int k = 0; k < 3; ++k) {
    p = skip_blanks(p, end);
    if (p == end)
      parse_fail(name, line, "bad size line " + size_line + ": expected 'rows cols entries'");
    const char* q = (*p == '+' && p + 1 != end && is_digit(p[1])) ? p + 1 : p;
    const auto r = std::from_chars(q, end, sizes[k]);
    if (r.ec == std::errc::result_out_of_range)
      parse_fail(name, line, "size " + quote_token(p, end) + " in the size line is too large");
    if (r.ec != std::errc() || (r.ptr != end && !is_sep(*r.ptr)))
      parse_fail(name, line, "bad size line " + size_line + ": expected 'rows cols entries'");
    p = r.ptr;
  }
  p = skip_blanks(p, end);
  if (p != end)
    parse_fail(name, line, "unexpected text " + quote_token(p, end) + " after the size line");
  if (sizes[0] < 0 || sizes[1] < 0 || sizes[2] < 0)
    parse_fail(name, line, "negative size in the size line " + size_line);
  info.rows = sizes[0];
  info.cols = sizes[1];
  info.stored_entries = sizes[2];
  if (info.symmetry != MmSymmetry::general && info.rows != info.cols)
    parse_fail(name, line,
               "symmetric and skew-symmetric matrices must be square, but the size line says " +
                   std::to_string(info.rows) + " x " + std::to_string(info.cols));
  h.body = eol < text.size() ? eol + 1 : eol;
  h.line = line + 1;
  return h;
}

// One entry of a row while the CSR is built: column and value side by side, so that the scatter
// by rows touches one random cache line per entry instead of two.
template <class V, class I>
struct RowEntry {
  I col;
  V val;
};

// Sorts one row by column, keeping equal columns in their order so that duplicates are summed
// in file order: insertion sort for short rows, bottom-up merge sort with scratch space
// allocated once per matrix for long ones.
template <class V, class I>
class RowSorter {
 public:
  using Entry = RowEntry<V, I>;

  void sort(Entry* e, std::int64_t n, std::int64_t max_row) {
    constexpr std::int64_t kRun = 32;
    for (std::int64_t s = 0; s < n; s += kRun) insertion_sort(e + s, std::min(kRun, n - s));
    if (n <= kRun) return;
    if (scratch_.empty()) scratch_.resize(static_cast<std::size_t>(max_row));
    Entry* a = e;
    Entry* b = scratch_.data();
    for (std::int64_t width = kRun; width < n; width *= 2) {
      for (std::int64_t lo = 0; lo < n; lo += 2 * width) {
        const std::int64_t mid = std::min(lo + width, n);
        const std::int64_t hi = std::min(lo + 2 * width, n);
        std::int64_t i = lo, j = mid, k = lo;
        while (i < mid && j < hi) b[k++] = (a[j].col < a[i].col) ? a[j++] : a[i++];
        while (i < mid) b[k++] = a[i++];
        while (j < hi) b[k++] = a[j++];
      }
      std::swap(a, b);
    }
    if (a != e) std::copy(a, a + n, e);
  }

 private:
  static void insertion_sort(Entry* e, std::int64_t n) {
    for (std::int64_t i = 1; i < n; ++i) {
      const Entry x = e[i];
      std::int64_t j = i;
      for (; j > 0 && x.col < e[j - 1].col; --j) e[j] = e[j - 1];
      e[j] = x;
    }
  }

  std::vector<Entry> scratch_;
};

template <class V, class I, class O>
class Reader {
 public:
  Reader(std::string_view text, const std::string& name) : text_(text), name_(name) {}

  CsrMatrix<V, I, O> read(MatrixMarketInfo* info_out) {
    const Header h = parse_header(text_, name_, /*reject_complex=*/true);
    info_ = h.info;
    line_ = h.line;
    check_fits_indices();
    try {
      CsrMatrix<V, I, O> A = read_body(h.body);
      if (info_out) *info_out = info_;
      return A;
    } catch (const std::bad_alloc&) {
      fail(status::out_of_memory, memory_message());
    } catch (const std::length_error&) {
      fail(status::out_of_memory, memory_message());
    }
  }

 private:
  [[noreturn]] void bad(const std::string& what) const { parse_fail(name_, line_, what); }

  std::string memory_message() const {
    return name_ + ": not enough memory for a " + std::to_string(info_.rows) + " x " +
           std::to_string(info_.cols) + " matrix with " + std::to_string(info_.stored_entries) +
           " stored entries";
  }

  void check_fits_indices() const {
    constexpr auto imax = static_cast<std::int64_t>(std::numeric_limits<I>::max());
    if (info_.rows > imax || info_.cols > imax)
      fail(status::unsupported, name_ + ": a " + std::to_string(info_.rows) + " x " +
                                    std::to_string(info_.cols) + " matrix does not fit " +
                                    index_type_name<I>() + " column indices (use int64)");
  }

  // Index token at p (p is not at a separator). Returns the position after it.
  const char* read_index(const char* p, const char* end, std::int64_t bound, const char* what,
                         std::int64_t& out) const {
    // Fast path for the usual token, up to 18 plain digits (cannot overflow); anything else goes
    // through from_chars and its error handling.
    std::int64_t x = 0;
    const char* d = p;
    while (d != end && is_digit(*d) && d - p < 18) x = 10 * x + (*d++ - '0');
    if (d != p && (d == end || is_sep(*d)) && x >= 1 && x <= bound) {
      out = x;
      return d;
    }
    return read_index_slow(p, end, bound, what, out);
  }

  const char* read_index_slow(const char* p, const char* end, std::int64_t bound, const char* what,
                              std::int64_t& out) const {
    const char* q = (*p == '+' && p + 1 != end && is_digit(p[1])) ? p + 1 : p;
    const auto r = std::from_chars(q, end, out);
    if (r.ec == std::errc::invalid_argument || (r.ptr != end && !is_sep(*r.ptr)))
      bad(std::string(what) + " " + quote_token(p, end) + " is not an integer");
    if (r.ec == std::errc::result_out_of_range || out < 1 || out > bound)
      bad(std::string(what) + " " + quote_token(p, end) + " is out of range: " +
          (bound == 0 ? std::string("the matrix has no ") + (what[0] == 'r' ? "rows" : "columns")
                      : "must be in [1, " + std::to_string(bound) + "]"));
    return r.ptr;
  }

  // Value token at p (p is not at a separator) for the real and integer fields.
  template <MmField F>
  const char* read_value(const char* p, const char* end, V& out) const {
    const char* q = p;
    if (*q == '+' && q + 1 != end && *(q + 1) != '-' && *(q + 1) != '+') ++q;
    if constexpr (F == MmField::integer) {
      std::int64_t iv;
      const auto r = std::from_chars(q, end, iv);
      if (r.ec == std::errc() && (r.ptr == end || is_sep(*r.ptr))) {
        out = static_cast<V>(iv);
        return r.ptr;
      }
      // Integers beyond int64 are still numbers: take them as floating point.
      if (r.ec != std::errc::result_out_of_range)
        bad("integer value expected, found " + quote_token(p, end));
    }
    auto r = std::from_chars(q, end, out);
    if (r.ec == std::errc() && (r.ptr == end || is_sep(*r.ptr))) return r.ptr;
    if (r.ec == std::errc() && (*r.ptr == 'd' || *r.ptr == 'D'))
      return read_fortran(p, q, end, out);
    if (r.ec == std::errc::result_out_of_range && (r.ptr == end || is_sep(*r.ptr))) {
      read_out_of_range(q, r.ptr, p, end, out);
      return r.ptr;
    }
    if (r.ec == std::errc::invalid_argument && F == MmField::real)
      bad("numeric value expected, found " + quote_token(p, end));
    bad("bad value " + quote_token(p, end));
  }

  // "1.5D+03": Fortran exponent letter, found in files converted from Harwell-Boeing.
  const char* read_fortran(const char* p, const char* q, const char* end, V& out) const {
    const char* t = token_end(q, end);
    char buf[64];
    const std::size_t n = static_cast<std::size_t>(t - q);
    if (n >= sizeof buf) bad("bad value " + quote_token(p, end));
    for (std::size_t i = 0; i < n; ++i) buf[i] = (q[i] == 'd' || q[i] == 'D') ? 'e' : q[i];
    const auto r = std::from_chars(buf, buf + n, out);
    if (r.ptr != buf + n) bad("bad value " + quote_token(p, end));
    if (r.ec == std::errc::result_out_of_range) read_out_of_range(buf, buf + n, p, end, out);
    return t;
  }

  // A well-formed number beyond V's range: long double has the range of any file we may meet;
  // then saturate to +-inf (a large value) or keep the rounded tiny value, as a cast would.
  // [q, t) is the number's text (maybe rewritten), p the token in the file for messages.
  void read_out_of_range(const char* q, const char* t, const char* p, const char* end,
                         V& out) const {
    long double x = 0;
    const auto r = std::from_chars(q, t, x);
    if (r.ec != std::errc() || r.ptr != t)
      bad("value " + quote_token(p, end) + " is out of range even for long double");
    if (std::fabs(x) > static_cast<long double>(std::numeric_limits<V>::max()))
      out = std::copysign(std::numeric_limits<V>::infinity(), static_cast<V>(x < 0 ? -1 : 1));
    else
      out = static_cast<V>(x);
  }

  CsrMatrix<V, I, O> read_body(std::size_t body) {
    if (info_.field == MmField::pattern) return read_entries<MmField::pattern>(body);
    if (info_.field == MmField::integer) return read_entries<MmField::integer>(body);
    return read_entries<MmField::real>(body);
  }

  template <MmField F>
  CsrMatrix<V, I, O> read_entries(std::size_t body) {
    const std::int64_t rows = info_.rows;
    const std::int64_t cols = info_.cols;
    const std::int64_t stored = info_.stored_entries;
    const bool mirror = info_.symmetry != MmSymmetry::general;
    const bool skew = info_.symmetry == MmSymmetry::skew_symmetric;

    const char* p = text_.data() + body;
    const char* const end = text_.data() + text_.size();
    // An entry takes at least 4 bytes ("1 1" and a newline): a size line that promises more
    // cannot be met, and must not make us allocate for it.
    const std::int64_t cap =
        std::min<std::int64_t>(stored, static_cast<std::int64_t>((end - p + 1) / 4));
    std::unique_ptr<I[]> r_of(new I[static_cast<std::size_t>(cap)]);
    std::unique_ptr<I[]> c_of(new I[static_cast<std::size_t>(cap)]);
    std::unique_ptr<V[]> v_of(F == MmField::pattern ? nullptr
                                                    : new V[static_cast<std::size_t>(cap)]);
    // start[r + 1] will count row r's entries, then become the row offsets.
    std::vector<std::int64_t> start(static_cast<std::size_t>(rows) + 1, 0);

    std::int64_t k = 0;
    while (k < stored) {
      p = skip_blanks(p, end);
      if (p == end)
        bad("the file ends after " + std::to_string(k) + " of the " + std::to_string(stored) +
            " entries declared in the size line (truncated file?)");
      if (*p == '\n') {
        ++line_;
        ++p;
        continue;
      }
      if (*p == '%') bad("comment line among the entries (comments must precede the size line)");
      std::int64_t r, c;
      V v = V(1);
      p = read_index(p, end, rows, "row index", r);
      p = skip_blanks(p, end);
      if (p == end || *p == '\n') bad("missing column index");
      p = read_index(p, end, cols, "column index", c);
      if (skew && r == c)
        bad("diagonal entry (" + std::to_string(r) + ", " + std::to_string(c) +
            ") in a skew-symmetric matrix (its diagonal is zero and must not be stored)");
      if constexpr (F != MmField::pattern) {
        p = skip_blanks(p, end);
        if (p == end || *p == '\n') bad("missing value");
        p = read_value<F>(p, end, v);
      }
      p = skip_blanks(p, end);
      if (p != end && *p != '\n')
        bad("unexpected text " + quote_token(p, end) + " after the entry");
      if (p != end) {
        ++line_;
        ++p;
      }
      // Cannot happen for a well-formed entry (see cap), but nothing may write past the arrays.
      if (k == cap) fail(status::internal, name_ + ": Matrix Market entry bound exceeded");
      r_of[static_cast<std::size_t>(k)] = static_cast<I>(r - 1);
      c_of[static_cast<std::size_t>(k)] = static_cast<I>(c - 1);
      if constexpr (F != MmField::pattern) v_of[static_cast<std::size_t>(k)] = v;
      ++k;
    }
    // Only blank lines may follow the last entry.
    for (;;) {
      p = skip_blanks(p, end);
      if (p == end) break;
      if (*p != '\n')
        bad("more entries than the " + std::to_string(stored) +
            " declared in the size line (or unexpected text after the last entry)");
      ++line_;
      ++p;
    }

    // Counting apart from parsing: this loop keeps many cache misses in flight, where the
    // parsing loop has room for only one at a time (3x slower in total when fused).
    const I* const r_at = r_of.get();
    const I* const c_at = c_of.get();
    std::int64_t* const count = start.data() + 1;
    if (mirror) {
      for (std::int64_t e = 0; e < stored; ++e) {
        ++count[r_at[e]];
        if (r_at[e] != c_at[e]) ++count[c_at[e]];
      }
    } else {
      for (std::int64_t e = 0; e < stored; ++e) ++count[r_at[e]];
    }
    for (std::int64_t r = 0; r < rows; ++r) start[r + 1] += start[r];
    const std::int64_t expanded = start[rows];

    // Counting sort on rows; start[r] walks to the end of row r. The targets are random, so the
    // loop prefetches the row counters kFar entries ahead and the target slots kNear ahead
    // (2x faster on large matrices).
    using Entry = RowEntry<V, I>;
    std::unique_ptr<Entry[]> rows_of(new Entry[static_cast<std::size_t>(expanded)]);
    {
      Entry* const out = rows_of.get();
      const V* const v_at = v_of.get();
      std::int64_t* const at = start.data();
      constexpr std::int64_t kFar = 32, kNear = 8;
      for (std::int64_t e = 0; e < stored; ++e) {
        if (e + kFar < stored) {
          HOLA_PREFETCH_W(at + r_at[e + kFar]);
          if (mirror) HOLA_PREFETCH_W(at + c_at[e + kFar]);
        }
        if (e + kNear < stored) {
          HOLA_PREFETCH_W(out + at[r_at[e + kNear]]);
          if (mirror) HOLA_PREFETCH_W(out + at[c_at[e + kNear]]);
        }
        const I r = r_at[e];
        const I c = c_at[e];
        V v = V(1);
        if constexpr (F != MmField::pattern) v = v_at[e];
        out[at[r]++] = Entry{c, v};
        if (mirror && r != c) out[at[c]++] = Entry{r, skew ? -v : v};
      }
    }
    r_of.reset();
    c_of.reset();
    v_of.reset();
    for (std::int64_t r = rows; r > 0; --r) start[r] = start[r - 1];
    start[0] = 0;

    std::int64_t max_row = 0;
    for (std::int64_t r = 0; r < rows; ++r) max_row = std::max(max_row, start[r + 1] - start[r]);

    // Sort the rows that need it (most files come sorted by row or by column: then every row is
    // already in order), sum duplicates and write the CSR arrays.
    CsrMatrix<V, I, O> A;
    A.rows = rows;
    A.cols = cols;
    A.col_idx.resize(static_cast<std::size_t>(expanded));
    A.values.resize(static_cast<std::size_t>(expanded));
    I* const col = A.col_idx.data();
    V* const val = A.values.data();
    RowSorter<V, I> sorter;
    std::int64_t w = 0;  // output position; start[r + 1] becomes w after row r
    std::int64_t b = 0;  // row r's first entry in rows_of
    for (std::int64_t r = 0; r < rows; ++r) {
      const std::int64_t e = start[r + 1];
      Entry* const row = rows_of.get() + b;
      const std::int64_t n = e - b;
      bool strict = true;  // strictly increasing: sorted without duplicates
      for (std::int64_t j = 1; strict && j < n; ++j) strict = row[j - 1].col < row[j].col;
      if (strict) {
        for (std::int64_t j = 0; j < n; ++j, ++w) {
          col[w] = row[j].col;
          val[w] = row[j].val;
        }
      } else {
        sorter.sort(row, n, max_row);
        const std::int64_t row_w = w;
        for (std::int64_t j = 0; j < n; ++j) {
          if (w > row_w && col[w - 1] == row[j].col) {
            val[w - 1] += row[j].val;
          } else {
            col[w] = row[j].col;
            val[w] = row[j].val;
            ++w;
          }
        }
      }
      start[r + 1] = w;
      b = e;
    }
    rows_of.reset();
    if (w > static_cast<std::int64_t>(std::numeric_limits<O>::max()))
      fail(status::unsupported, name_ + ": a matrix with " + std::to_string(w) +
                                    " nonzeros does not fit " + index_type_name<O>() +
                                    " row offsets (use int64)");
    if (w < expanded) {
      A.col_idx.resize(static_cast<std::size_t>(w));
      A.values.resize(static_cast<std::size_t>(w));
      A.col_idx.shrink_to_fit();
      A.values.shrink_to_fit();
    }
    A.row_ptr.assign(start.begin(), start.end());
    return A;
  }

  std::string_view text_;
  const std::string& name_;
  MatrixMarketInfo info_;
  std::int64_t line_ = 1;
};

struct FileCloser {
  void operator()(std::FILE* f) const { std::fclose(f); }
};

// A whole file's bytes. Regular files are mapped (MAP_POPULATE: measured 5x faster than reading
// 100 MB into a buffer, which pays a copy and page faults); anything else (pipes, devices) is
// read into a buffer. A file truncated by someone else while mapped would raise SIGBUS: accepted.
class FileText {
 public:
  explicit FileText(const std::string& path) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0)
      fail(status::io, "cannot open Matrix Market file '" + path + "': " + std::strerror(errno));
    struct stat st;
    const bool stat_ok = ::fstat(fd, &st) == 0;
    if (stat_ok && S_ISDIR(st.st_mode)) {
      ::close(fd);
      fail(status::io, "cannot read Matrix Market file '" + path + "': it is a directory");
    }
    if (stat_ok && S_ISREG(st.st_mode) && st.st_size > 0) {
      void* m = ::mmap(nullptr, static_cast<std::size_t>(st.st_size), PROT_READ,
                       MAP_PRIVATE | MAP_POPULATE, fd, 0);
      if (m != MAP_FAILED) {
        map_ = static_cast<const char*>(m);
        size_ = static_cast<std::size_t>(st.st_size);
        ::close(fd);
        return;
      }
    }
    std::size_t size = 0;
    buf_.resize(std::size_t(1) << 16);
    for (;;) {
      if (size == buf_.size()) buf_.resize(2 * buf_.size());
      const ssize_t got = ::read(fd, &buf_[size], buf_.size() - size);
      if (got < 0 && errno == EINTR) continue;
      if (got < 0) {
        const int err = errno;
        ::close(fd);
        fail(status::io, "cannot read Matrix Market file '" + path + "': " + std::strerror(err));
      }
      if (got == 0) break;
      size += static_cast<std::size_t>(got);
    }
    ::close(fd);
    buf_.resize(size);
  }
  ~FileText() {
    if (map_) ::munmap(const_cast<char*>(map_), size_);
  }
  FileText(const FileText&) = delete;
  FileText& operator=(const FileText&) = delete;

  std::string_view view() const { return map_ ? std::string_view(map_, size_) : buf_; }

 private:
  const char* map_ = nullptr;
  std::size_t size_ = 0;
  std::string buf_;
};

// True once `text` holds the banner and a complete size line (the first line after the banner
// that is neither blank nor a comment, with its newline).
bool header_complete(std::string_view text) {
  std::size_t pos = text.find('\n');
  while (pos != std::string_view::npos) {
    const std::size_t eol = text.find('\n', pos + 1);
    if (eol == std::string_view::npos) return false;
    const char* p = skip_blanks(text.data() + pos + 1, text.data() + eol);
    if (p != text.data() + eol && *p != '%') return true;
    pos = eol;
  }
  return false;
}

// Room for one entry line of text: two 64-bit indices and a shortest double, with margins.
constexpr std::size_t kMaxEntryChars = 128;

class Writer {
 public:
  explicit Writer(const std::string& path) : path_(path), buf_(1 << 20) {
    f_ = std::fopen(path.c_str(), "wb");
    if (!f_) fail(status::io, "cannot open '" + path + "' for writing: " + std::strerror(errno));
  }
  ~Writer() {
    if (f_) {  // only after an error: leave no truncated file behind
      std::fclose(f_);
      std::remove(path_.c_str());
    }
  }

  void text(const char* s) {
    const std::size_t n = std::strlen(s);
    room(n);
    std::memcpy(buf_.data() + used_, s, n);
    used_ += n;
  }
  void integer(std::int64_t x) { put(x); }
  template <class V>
  void value(V x) {
    put(x);  // shortest text that reads back to the same bits
  }
  void ch(char c) { buf_[used_++] = c; }
  void room(std::size_t n) {
    if (buf_.size() - used_ < n + kMaxEntryChars) flush();
    if (buf_.size() < n + kMaxEntryChars) buf_.resize(n + kMaxEntryChars);
  }

  void close() {
    flush();
    std::FILE* f = f_;
    f_ = nullptr;
    if (std::fclose(f) != 0) {
      const int err = errno;
      std::remove(path_.c_str());
      fail(status::io, "cannot write '" + path_ + "': " + std::strerror(err));
    }
  }

 private:
  template <class T>
  void put(T x) {
    const auto r = std::to_chars(buf_.data() + used_, buf_.data() + buf_.size(), x);
    used_ = static_cast<std::size_t>(r.ptr - buf_.data());
  }
  void flush() {
    if (used_ && std::fwrite(buf_.data(), 1, used_, f_) != used_)
      fail(status::io, "cannot write '" + path_ + "': " + std::strerror(errno));
    used_ = 0;
  }

  std::string path_;
  std::vector<char> buf_;
  std::size_t used_ = 0;
  std::FILE* f_ = nullptr;
};

template <class V, class I, class O>
void check_writable(const CsrView<V, I, O>& A) {
  if (A.memory != Memory::host)
    fail(status::invalid_argument,
         "write_matrix_market: the matrix is in device memory; copy it to the host first");
  if (A.rows < 0 || A.cols < 0 || A.nnz < 0)
    fail(status::invalid_argument, "write_matrix_market: negative size " + std::to_string(A.rows) +
                                       " x " + std::to_string(A.cols) + ", nnz " +
                                       std::to_string(A.nnz));
  if ((!A.row_ptr && A.rows > 0) || ((!A.col_idx || !A.values) && A.nnz > 0))
    fail(status::invalid_argument, "write_matrix_market: null CSR array");
  // A corrupt view would give a file that does not read back; check before writing anything.
  const std::int64_t first = A.row_ptr ? static_cast<std::int64_t>(A.row_ptr[0]) : 0;
  const std::int64_t last = A.row_ptr ? static_cast<std::int64_t>(A.row_ptr[A.rows]) : 0;
  if (first != 0 || last != A.nnz)
    fail(status::invalid_csr, "write_matrix_market: row_ptr[0] = " + std::to_string(first) +
                                  ", row_ptr[rows] = " + std::to_string(last) +
                                  ", nnz = " + std::to_string(A.nnz));
  for (std::int64_t r = 0; r < A.rows; ++r) {
    if (A.row_ptr[r + 1] < A.row_ptr[r])
      fail(status::invalid_csr,
           "write_matrix_market: row_ptr decreases at row " + std::to_string(r));
    for (O j = A.row_ptr[r]; j < A.row_ptr[r + 1]; ++j)
      if (A.col_idx[j] < 0 || static_cast<std::int64_t>(A.col_idx[j]) >= A.cols)
        fail(status::invalid_csr, "write_matrix_market: column index " +
                                      std::to_string(A.col_idx[j]) + " out of range in row " +
                                      std::to_string(r));
  }
}

}  // namespace

template <class V, class I, class O>
CsrMatrix<V, I, O> parse_matrix_market(std::string_view text, const std::string& name,
                                       MatrixMarketInfo* info) {
  return Reader<V, I, O>(text, name).read(info);
}

template <class V, class I, class O>
CsrMatrix<V, I, O> read_matrix_market(const std::string& path, MatrixMarketInfo* info) {
  const FileText text(path);
  return parse_matrix_market<V, I, O>(text.view(), path, info);
}

MatrixMarketInfo read_matrix_market_info(const std::string& path) {
  std::unique_ptr<std::FILE, FileCloser> f(std::fopen(path.c_str(), "rb"));
  if (!f)
    fail(status::io, "cannot open Matrix Market file '" + path + "': " + std::strerror(errno));
  // Only up to the size line: the entries may be gigabytes.
  std::string text;
  char chunk[1 << 14];
  while (!header_complete(text)) {
    const std::size_t got = std::fread(chunk, 1, sizeof chunk, f.get());
    text.append(chunk, got);
    if (got < sizeof chunk) break;
  }
  if (std::ferror(f.get()))
    fail(status::io, "cannot read Matrix Market file '" + path + "': " + std::strerror(errno));
  return parse_header(text, path, /*reject_complex=*/false).info;
}

template <class V, class I, class O>
void write_matrix_market(const std::string& path, const CsrView<V, I, O>& A) {
  check_writable(A);
  Writer w(path);
  w.text("%%MatrixMarket matrix coordinate real general\n% written by Hola\n");
  w.room(0);
  w.integer(A.rows);
  w.ch(' ');
  w.integer(A.cols);
  w.ch(' ');
  w.integer(A.nnz);
  w.ch('\n');
  for (std::int64_t r = 0; r < A.rows; ++r) {
    for (std::int64_t j = A.row_ptr[r]; j < static_cast<std::int64_t>(A.row_ptr[r + 1]); ++j) {
      w.room(0);
      w.integer(r + 1);
      w.ch(' ');
      w.integer(static_cast<std::int64_t>(A.col_idx[j]) + 1);
      w.ch(' ');
      w.value(A.values[j]);
      w.ch('\n');
    }
  }
  w.close();
}

#define HOLA_MM_INSTANTIATE(V, I, O)                                                              \
  template CsrMatrix<V, I, O> read_matrix_market<V, I, O>(const std::string&, MatrixMarketInfo*); \
  template CsrMatrix<V, I, O> parse_matrix_market<V, I, O>(std::string_view, const std::string&,  \
                                                           MatrixMarketInfo*);                    \
  template void write_matrix_market<V, I, O>(const std::string&, const CsrView<V, I, O>&);

HOLA_FOR_EACH_VALUE_INDEX_OFFSET(HOLA_MM_INSTANTIATE)
#undef HOLA_MM_INSTANTIATE
#undef HOLA_PREFETCH_W

}  // namespace hola
