// Host SpMSpV: validation, column view, sequential reference, OpenMP matrix-driven and
// vector-driven kernels (hola/spmspv.hpp, docs/spmspv.md).
#include "hola/spmspv.hpp"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <sstream>
#include <utility>

#include "hola/detail/instantiate.hpp"
#include "hola/error.hpp"
#include "hola/validate.hpp"

namespace hola::spmspv {

namespace {

bool overlaps(const void* a, std::size_t na, const void* b, std::size_t nb) {
  if (!a || !b || na == 0 || nb == 0) return false;
  auto pa = reinterpret_cast<std::uintptr_t>(a), pb = reinterpret_cast<std::uintptr_t>(b);
  return pa < pb + nb && pb < pa + na;
}

int popcount32(std::uint32_t w) {
  int c = 0;
  while (w) {
    w &= w - 1;
    ++c;
  }
  return c;
}

template <class V, class I, class O>
std::int64_t out_size(const Problem<V, I, O>& p) {
  return p.op == Op::N ? p.A.rows : p.A.cols;
}
template <class V, class I, class O>
std::int64_t in_size(const Problem<V, I, O>& p) {
  return p.op == Op::N ? p.A.cols : p.A.rows;
}

// (status, message) of the first problem found; status::success when none.
template <class V, class I, class O>
std::pair<status, std::string> check(const Problem<V, I, O>& p, const Output<V, I>& y,
                                     Workspace<V, I>& ws) {
  std::ostringstream msg;
  auto bad = [&](status s) { return std::make_pair(s, msg.str()); };
  if (p.op != Op::N && p.op != Op::T) {
    msg << "spmspv: op must be N or T";
    return bad(status::invalid_argument);
  }
  if (!is_valid_semiring(p.semiring)) {
    msg << "spmspv: unknown semiring " << static_cast<int>(p.semiring);
    return bad(status::invalid_argument);
  }
  if (std::string s = check_csr_shape(p.A); !s.empty()) {
    msg << "spmspv: matrix: " << s;
    return bad(status::invalid_csr);
  }
  if (p.A.memory != Memory::host || p.x.memory != Memory::host) {
    msg << "spmspv: host kernels need host memory";
    return bad(status::unsupported);
  }
  if (p.At) {
    if (p.At->rows != p.A.cols || p.At->cols != p.A.rows || p.At->nnz != p.A.nnz) {
      msg << "spmspv: transposed view is " << p.At->rows << " x " << p.At->cols << " with "
          << p.At->nnz << " nonzeros, A is " << p.A.rows << " x " << p.A.cols << " with "
          << p.A.nnz;
      return bad(status::size_mismatch);
    }
  }
  const std::int64_t n_in = in_size(p), n_out = out_size(p);
  const auto& x = p.x;
  if (x.size != n_in) {
    msg << "spmspv: x has size " << x.size << ", op(A) has " << n_in << " columns";
    return bad(status::size_mismatch);
  }
  if (y.size != n_out) {
    msg << "spmspv: y has size " << y.size << ", op(A) has " << n_out << " rows";
    return bad(status::size_mismatch);
  }
  if (p.mask.values && p.mask.size != n_out) {
    msg << "spmspv: mask has size " << p.mask.size << ", y has " << n_out;
    return bad(status::size_mismatch);
  }
  if (!p.mask.values && p.mask.complement) {
    msg << "spmspv: complemented mask without mask values";
    return bad(status::invalid_argument);
  }
  if (x.nnz < 0 || x.nnz > x.size) {
    msg << "spmspv: x has " << x.nnz << " entries for size " << x.size;
    return bad(status::invalid_argument);
  }
  if (x.format != VectorFormat::sorted && x.format != VectorFormat::unsorted &&
      x.format != VectorFormat::bitmap) {
    msg << "spmspv: unknown vector format " << static_cast<int>(x.format);
    return bad(status::invalid_argument);
  }
  if (y.format != OutputFormat::dense && y.format != OutputFormat::sparse) {
    msg << "spmspv: unknown output format " << static_cast<int>(y.format);
    return bad(status::invalid_argument);
  }
  // Output pointers and aliasing with the inputs.
  std::size_t y_val_bytes = 0, y_idx_bytes = 0;
  const void* y_val = nullptr;
  if (y.format == OutputFormat::dense) {
    if (n_out > 0 && !y.dense) {
      msg << "spmspv: dense y is null";
      return bad(status::invalid_argument);
    }
    y_val = y.dense;
    y_val_bytes = static_cast<std::size_t>(n_out) * sizeof(V);
  } else {
    if (y.capacity < 0 || (y.capacity > 0 && (!y.indices || !y.values))) {
      msg << "spmspv: sparse y needs indices and values with capacity >= 0";
      return bad(status::invalid_argument);
    }
    y_val = y.values;
    y_val_bytes = static_cast<std::size_t>(y.capacity) * sizeof(V);
    y_idx_bytes = static_cast<std::size_t>(y.capacity) * sizeof(I);
  }
  std::size_t x_val_bytes = 0, x_idx_bytes = 0;
  const void* x_idx = nullptr;
  if (x.format == VectorFormat::bitmap) {
    if (x.size > 0 && (!x.bits || !x.values)) {
      msg << "spmspv: bitmap x needs bits and values";
      return bad(status::invalid_argument);
    }
    x_val_bytes = static_cast<std::size_t>(x.size) * sizeof(V);
    x_idx = x.bits;
    x_idx_bytes = static_cast<std::size_t>((x.size + 31) / 32) * 4;
  } else {
    if (x.nnz > 0 && (!x.indices || !x.values)) {
      msg << "spmspv: x needs indices and values";
      return bad(status::invalid_argument);
    }
    x_val_bytes = static_cast<std::size_t>(x.nnz) * sizeof(V);
    x_idx = x.indices;
    x_idx_bytes = static_cast<std::size_t>(x.nnz) * sizeof(I);
  }
  const void* ins[] = {x.values, x_idx, p.mask.values};
  const std::size_t in_bytes[] = {x_val_bytes, x_idx_bytes,
                                  p.mask.values ? static_cast<std::size_t>(n_out) : 0};
  for (int k = 0; k < 3; ++k) {
    if (overlaps(ins[k], in_bytes[k], y_val, y_val_bytes) ||
        overlaps(ins[k], in_bytes[k], y.indices, y_idx_bytes)) {
      msg << "spmspv: y overlaps an input array";
      return bad(status::aliasing);
    }
  }
  if (y.format == OutputFormat::sparse && overlaps(y.values, y_val_bytes, y.indices, y_idx_bytes)) {
    msg << "spmspv: y's indices and values overlap";
    return bad(status::aliasing);
  }
  // Entries of x.
  if (x.format == VectorFormat::bitmap) {
    const std::int64_t words = (x.size + 31) / 32;
    std::int64_t count = 0;
    for (std::int64_t w = 0; w < words; ++w) count += popcount32(x.bits[w]);
    if (x.size % 32 != 0 && words > 0 && (x.bits[words - 1] >> (x.size % 32)) != 0) {
      msg << "spmspv: bitmap x has bits set at or past its size " << x.size;
      return bad(status::invalid_argument);
    }
    if (count != x.nnz) {
      msg << "spmspv: bitmap x has " << count << " bits set, nnz says " << x.nnz;
      return bad(status::invalid_argument);
    }
    return {status::success, {}};
  }
  for (std::int64_t k = 0; k < x.nnz; ++k) {
    const std::int64_t j = static_cast<std::int64_t>(x.indices[k]);
    if (j < 0 || j >= x.size) {
      msg << "spmspv: x index " << j << " at entry " << k << " is outside [0, " << x.size << ")";
      return bad(status::invalid_argument);
    }
    if (x.format == VectorFormat::sorted && k > 0 &&
        j <= static_cast<std::int64_t>(x.indices[k - 1])) {
      msg << "spmspv: sorted x has index " << j << " at entry " << k << " after "
          << static_cast<std::int64_t>(x.indices[k - 1])
          << (j == static_cast<std::int64_t>(x.indices[k - 1]) ? " (duplicate)" : " (unsorted)");
      return bad(status::invalid_argument);
    }
  }
  if (x.format == VectorFormat::unsorted && x.nnz > 1) {
    if (ws.x_flag.size() < static_cast<std::size_t>(x.size))
      ws.x_flag.resize(static_cast<std::size_t>(x.size), 0);
    std::int64_t dup = -1;
    std::int64_t k = 0;
    for (; k < x.nnz; ++k) {
      auto& f = ws.x_flag[static_cast<std::size_t>(x.indices[k])];
      if (f) {
        dup = k;
        break;
      }
      f = 1;
    }
    for (std::int64_t q = 0; q < k; ++q) ws.x_flag[static_cast<std::size_t>(x.indices[q])] = 0;
    if (dup >= 0) {
      msg << "spmspv: x has index " << static_cast<std::int64_t>(x.indices[dup]) << " twice (entry "
          << dup << ")";
      return bad(status::invalid_argument);
    }
  }
  return {status::success, {}};
}

// Whether entry i of y may be written.
struct MaskTest {
  const std::uint8_t* m;
  bool complement;
  bool operator()(std::int64_t i) const { return !m || ((m[i] != 0) != complement); }
};

template <class T>
void grow(std::vector<T>& v, std::int64_t n) {
  if (v.size() < static_cast<std::size_t>(n)) v.resize(static_cast<std::size_t>(n), T{});
}

// Sequential oracle: one pass over every nonzero of A, x densified, accumulation one step more
// precise than V. Allocates its own arrays.
template <class S, class V, class I, class O>
void reference_impl(const Problem<V, I, O>& p, Output<V, I>& y) {
  using W = wide_t<V>;
  const auto& A = p.A;
  const auto& x = p.x;
  const std::int64_t n_out = y.size;
  std::vector<std::uint8_t> xf(static_cast<std::size_t>(x.size), 0);
  std::vector<W> xv(static_cast<std::size_t>(x.size), W(0));
  if (x.format == VectorFormat::bitmap) {
    for (std::int64_t j = 0; j < x.size; ++j)
      if ((x.bits[j / 32] >> (j % 32)) & 1u) {
        xf[j] = 1;
        xv[j] = static_cast<W>(x.values[j]);
      }
  } else {
    for (std::int64_t k = 0; k < x.nnz; ++k) {
      xf[x.indices[k]] = 1;
      xv[x.indices[k]] = static_cast<W>(x.values[k]);
    }
  }
  MaskTest allowed{p.mask.values, p.mask.complement};
  std::vector<W> acc(static_cast<std::size_t>(n_out), S::template identity<W>());
  std::vector<std::uint8_t> hit(static_cast<std::size_t>(n_out), 0);
  for (std::int64_t r = 0; r < A.rows; ++r) {
    for (O k = A.row_ptr[r]; k < A.row_ptr[r + 1]; ++k) {
      const std::int64_t c = static_cast<std::int64_t>(A.col_idx[k]);
      const std::int64_t i = p.op == Op::N ? r : c;  // output entry
      const std::int64_t j = p.op == Op::N ? c : r;  // entry of x
      if (!xf[j] || !allowed(i)) continue;
      const W prod = S::mul(static_cast<W>(A.values[k]), xv[j]);
      acc[i] = hit[i] ? S::add(acc[i], prod) : prod;
      hit[i] = 1;
    }
  }
  std::int64_t count = 0;
  for (std::int64_t i = 0; i < n_out; ++i) count += hit[i];
  if (y.format == OutputFormat::dense) {
    for (std::int64_t i = 0; i < n_out; ++i)
      y.dense[i] = hit[i] ? static_cast<V>(acc[i]) : S::template identity<V>();
    y.nnz = count;
    y.sorted = true;
    return;
  }
  if (count > y.capacity)
    fail(status::invalid_argument, "spmspv: y has " + std::to_string(count) +
                                       " entries, capacity is " + std::to_string(y.capacity));
  std::int64_t q = 0;
  for (std::int64_t i = 0; i < n_out; ++i)
    if (hit[i]) {
      y.indices[q] = static_cast<I>(i);
      y.values[q] = static_cast<V>(acc[i]);
      ++q;
    }
  y.nnz = count;
  y.sorted = true;
}

// x as a bitmap: flags + dense values (list formats scattered into ws; bitmap used as is).
template <class V, class I>
struct XBitmap {
  const std::uint32_t* bits = nullptr;
  const std::uint8_t* flag = nullptr;
  const V* dense = nullptr;
  bool has(std::int64_t j) const { return bits ? ((bits[j >> 5] >> (j & 31)) & 1u) : flag[j]; }
};

template <class V, class I>
XBitmap<V, I> scatter_x(const SparseVectorView<V, I>& x, Workspace<V, I>& ws) {
  XBitmap<V, I> b;
  if (x.format == VectorFormat::bitmap) {
    b.bits = x.bits;
    b.dense = x.values;
    return b;
  }
  grow(ws.x_flag, x.size);
  grow(ws.x_dense, x.size);
#pragma omp parallel for schedule(static) if (x.nnz > 65536)
  for (std::int64_t k = 0; k < x.nnz; ++k) {
    ws.x_flag[x.indices[k]] = 1;
    ws.x_dense[x.indices[k]] = x.values[k];
  }
  b.flag = ws.x_flag.data();
  b.dense = ws.x_dense.data();
  return b;
}

template <class V, class I>
void unscatter_x(const SparseVectorView<V, I>& x, Workspace<V, I>& ws) {
  if (x.format == VectorFormat::bitmap) return;
#pragma omp parallel for schedule(static) if (x.nnz > 65536)
  for (std::int64_t k = 0; k < x.nnz; ++k) ws.x_flag[x.indices[k]] = 0;
}

// Matrix-driven: rows of M (A for op N, A^T for op T) in parallel, x through a bitmap.
template <class S, class V, class I, class O>
void matrix_driven_impl(const Problem<V, I, O>& p, Output<V, I>& y, Workspace<V, I>& ws) {
  const CsrView<V, I, O>& M = p.op == Op::N ? p.A : *p.At;
  const std::int64_t n = y.size;
  const auto xb = scatter_x(p.x, ws);
  MaskTest allowed{p.mask.values, p.mask.complement};
  grow(ws.acc, n);
  grow(ws.present, n);
  V* acc = ws.acc.data();
  std::uint8_t* present = ws.present.data();
  const int nt = omp_get_max_threads();
  grow(ws.counts, nt + 1);
  std::int64_t* counts = ws.counts.data();
  bool overflow = false;
  int team_size = 0;
#pragma omp parallel num_threads(nt)
  {
    const int t = omp_get_thread_num(), team = omp_get_num_threads();
#pragma omp for schedule(dynamic, 256)
    for (std::int64_t i = 0; i < n; ++i) {
      present[i] = 0;
      if (!allowed(i)) continue;
      V a = S::template identity<V>();
      bool hit = false;
      for (O k = M.row_ptr[i]; k < M.row_ptr[i + 1]; ++k) {
        const std::int64_t j = static_cast<std::int64_t>(M.col_idx[k]);
        if (!xb.has(j)) continue;
        const V prod = S::mul(M.values[k], xb.dense[j]);
        a = hit ? S::add(a, prod) : prod;
        hit = true;
      }
      acc[i] = a;
      present[i] = hit;
    }
    // Compaction in index order: static chunks, counted, offset, written.
    const std::int64_t lo = n * t / team, hi = n * (t + 1) / team;
    std::int64_t c = 0;
    for (std::int64_t i = lo; i < hi; ++i) c += present[i];
    counts[t + 1] = c;
#pragma omp barrier
#pragma omp single
    {
      counts[0] = 0;
      for (int q = 0; q < team; ++q) counts[q + 1] += counts[q];
      team_size = team;
      overflow = y.format == OutputFormat::sparse && counts[team] > y.capacity;
    }
    if (y.format == OutputFormat::dense) {
      for (std::int64_t i = lo; i < hi; ++i)
        y.dense[i] = present[i] ? acc[i] : S::template identity<V>();
    } else if (!overflow) {
      std::int64_t q = counts[t];
      for (std::int64_t i = lo; i < hi; ++i)
        if (present[i]) {
          y.indices[q] = static_cast<I>(i);
          y.values[q] = acc[i];
          ++q;
        }
    }
    for (std::int64_t i = lo; i < hi; ++i) present[i] = 0;
  }
  unscatter_x(p.x, ws);
  const std::int64_t count = counts[team_size];
  if (overflow)
    fail(status::invalid_argument, "spmspv: y has " + std::to_string(count) +
                                       " entries, capacity is " + std::to_string(y.capacity));
  y.nnz = count;
  y.sorted = true;
}

// Touched entries of an owner range [lo, hi) listed in `list` (count c): sorted in place, by a
// scan of the flags when the range is dense enough, else by a sort.
template <class I>
void sort_touched(I* list, std::int64_t c, std::int64_t lo, std::int64_t hi,
                  const std::uint8_t* present) {
  if (c < 2) return;
  if (c * 16 >= hi - lo) {
    std::int64_t q = 0;
    for (std::int64_t i = lo; i < hi; ++i)
      if (present[i]) list[q++] = static_cast<I>(i);
  } else {
    std::sort(list, list + c);
  }
}

// Vector-driven: rows of M (A^T for op N, A for op T) that x selects, products bucketed by the
// thread that owns their output range, each owner reducing its buckets in a dense accumulator.
template <class S, class V, class I, class O>
void vector_driven_impl(const Problem<V, I, O>& p, Output<V, I>& y, Workspace<V, I>& ws) {
  const CsrView<V, I, O>& M = p.op == Op::N ? *p.At : p.A;
  const auto& x = p.x;
  const std::int64_t n = y.size;
  MaskTest allowed{p.mask.values, p.mask.complement};
  // x as a list (index, value position).
  const I* xi = x.indices;
  const bool bitmap = x.format == VectorFormat::bitmap;
  if (bitmap) {
    grow(ws.x_list, x.nnz);
    std::int64_t q = 0;
    for (std::int64_t w = 0; w < (x.size + 31) / 32; ++w)
      for (std::uint32_t bits = x.bits[w]; bits; bits &= bits - 1) {
        int b = 0;
        while (!((bits >> b) & 1u)) ++b;
        ws.x_list[q++] = static_cast<I>(w * 32 + b);
      }
    xi = ws.x_list.data();
  }
  auto xval = [&](std::int64_t k) { return bitmap ? x.values[xi[k]] : x.values[k]; };
  const std::int64_t nx = x.nnz;
  // Prefix of touched nonzeros per entry of x.
  grow(ws.counts, nx + 1);
  std::int64_t* pre = ws.counts.data();
  pre[0] = 0;
  for (std::int64_t k = 0; k < nx; ++k)
    pre[k + 1] = pre[k] + static_cast<std::int64_t>(M.row_ptr[xi[k] + 1] - M.row_ptr[xi[k]]);
  const std::int64_t touched = pre[nx];
  grow(ws.acc, n);
  grow(ws.present, n);
  V* acc = ws.acc.data();
  std::uint8_t* present = ws.present.data();
  const int nt = touched < 16384 ? 1 : omp_get_max_threads();
  if (nt == 1) {
    grow(ws.out_idx, std::min(touched, n));
    std::int64_t c = 0;
    for (std::int64_t k = 0; k < nx; ++k) {
      const V xv = xval(k);
      const std::int64_t j = xi[k];
      for (O e = M.row_ptr[j]; e < M.row_ptr[j + 1]; ++e) {
        const std::int64_t i = static_cast<std::int64_t>(M.col_idx[e]);
        if (!allowed(i)) continue;
        const V prod = S::mul(M.values[e], xv);
        if (present[i]) {
          acc[i] = S::add(acc[i], prod);
        } else {
          acc[i] = prod;
          present[i] = 1;
          ws.out_idx[c++] = static_cast<I>(i);
        }
      }
    }
    I* list = ws.out_idx.data();
    const bool sorted = y.format == OutputFormat::sparse && y.want_sorted;
    if (sorted) sort_touched(list, c, 0, n, present);
    if (y.format == OutputFormat::sparse && c > y.capacity) {
      for (std::int64_t q = 0; q < c; ++q) present[list[q]] = 0;
      fail(status::invalid_argument, "spmspv: y has " + std::to_string(c) +
                                         " entries, capacity is " + std::to_string(y.capacity));
    }
    if (y.format == OutputFormat::dense) {
      std::fill(y.dense, y.dense + n, S::template identity<V>());
      for (std::int64_t q = 0; q < c; ++q) y.dense[list[q]] = acc[list[q]];
    } else {
      for (std::int64_t q = 0; q < c; ++q) {
        y.indices[q] = list[q];
        y.values[q] = acc[list[q]];
      }
    }
    for (std::int64_t q = 0; q < c; ++q) present[list[q]] = 0;
    y.nnz = c;
    y.sorted = sorted || c < 2;
    return;
  }
  // Parallel: thread t handles touched nonzeros [touched t / nt, touched (t + 1) / nt); owner o
  // of output i is i / chunk. cnt[t * nt + o]: products of t for o; then offsets.
  const std::int64_t chunk = (n + nt - 1) / nt;
  std::vector<std::int64_t> cnt(static_cast<std::size_t>(nt) * nt + 1, 0);
  std::vector<std::int64_t> touched_per_owner(static_cast<std::size_t>(nt) + 1, 0);
  grow(ws.bucket_idx, touched);
  grow(ws.bucket_val, touched);
  grow(ws.out_idx, touched);
  const bool sorted = y.format == OutputFormat::sparse && y.want_sorted;
  bool overflow = false;
  std::int64_t total = 0;
  auto for_my_products = [&](int t, auto&& f) {
    const std::int64_t lo = touched * t / nt, hi = touched * (t + 1) / nt;
    if (lo >= hi) return;
    std::int64_t k = std::upper_bound(pre, pre + nx + 1, lo) - pre - 1;
    for (std::int64_t pos = lo; pos < hi; ++k) {
      const std::int64_t j = xi[k];
      const std::int64_t end = std::min(hi, pre[k + 1]);
      const O base = M.row_ptr[j] - static_cast<O>(pre[k]);
      const V xv = xval(k);
      for (; pos < end; ++pos) {
        const O e = base + static_cast<O>(pos);
        const std::int64_t i = static_cast<std::int64_t>(M.col_idx[e]);
        if (allowed(i)) f(i, e, xv);
      }
    }
  };
#pragma omp parallel num_threads(nt)
  {
    const int t = omp_get_thread_num();
    std::int64_t* mine = cnt.data() + static_cast<std::size_t>(t) * nt;
    if (omp_get_num_threads() == nt) {
      for_my_products(t, [&](std::int64_t i, O, V) { ++mine[i / chunk]; });
    }
#pragma omp barrier
#pragma omp single
    {
      if (omp_get_num_threads() != nt) {  // fewer threads than asked: count sequentially
        for (int tt = 0; tt < nt; ++tt) {
          std::int64_t* m = cnt.data() + static_cast<std::size_t>(tt) * nt;
          for_my_products(tt, [&](std::int64_t i, O, V) { ++m[i / chunk]; });
        }
      }
      // Exclusive offsets ordered by (owner, thread).
      std::int64_t run = 0;
      for (int o = 0; o < nt; ++o)
        for (int tt = 0; tt < nt; ++tt) {
          auto& v = cnt[static_cast<std::size_t>(tt) * nt + o];
          const std::int64_t c = v;
          v = run;
          run += c;
        }
      cnt[static_cast<std::size_t>(nt) * nt] = run;
    }
    // Pass 2: write products into buckets (thread tt's work done by whoever runs iteration tt).
#pragma omp for schedule(static, 1)
    for (int tt = 0; tt < nt; ++tt) {
      std::int64_t* off = cnt.data() + static_cast<std::size_t>(tt) * nt;
      std::vector<std::int64_t> pos(off, off + nt);
      for_my_products(tt, [&](std::int64_t i, O e, V xv) {
        const std::int64_t q = pos[i / chunk]++;
        ws.bucket_idx[q] = static_cast<I>(i);
        ws.bucket_val[q] = S::mul(M.values[e], xv);
      });
    }
    // Owners reduce their buckets.
#pragma omp for schedule(static, 1)
    for (int o = 0; o < nt; ++o) {
      const std::int64_t b0 = cnt[o], b1 = o + 1 < nt ? cnt[o + 1] : cnt[nt * nt];
      std::int64_t c = 0;
      I* list = ws.out_idx.data() + b0;
      for (std::int64_t q = b0; q < b1; ++q) {
        const std::int64_t i = ws.bucket_idx[q];
        if (present[i]) {
          acc[i] = S::add(acc[i], ws.bucket_val[q]);
        } else {
          acc[i] = ws.bucket_val[q];
          present[i] = 1;
          list[c++] = static_cast<I>(i);
        }
      }
      const std::int64_t lo = std::min(n, o * chunk), hi = std::min(n, (o + 1) * chunk);
      if (sorted) sort_touched(list, c, lo, hi, present);
      touched_per_owner[o + 1] = c;
    }
#pragma omp single
    {
      for (int o = 0; o < nt; ++o) touched_per_owner[o + 1] += touched_per_owner[o];
      total = touched_per_owner[nt];
      overflow = y.format == OutputFormat::sparse && total > y.capacity;
    }
    if (y.format == OutputFormat::dense) {
#pragma omp for schedule(static)
      for (std::int64_t i = 0; i < n; ++i) y.dense[i] = S::template identity<V>();
    }
#pragma omp for schedule(static, 1)
    for (int o = 0; o < nt; ++o) {
      const std::int64_t b0 = cnt[o];
      const std::int64_t c = touched_per_owner[o + 1] - touched_per_owner[o];
      const I* list = ws.out_idx.data() + b0;
      if (y.format == OutputFormat::dense) {
        for (std::int64_t q = 0; q < c; ++q) y.dense[list[q]] = acc[list[q]];
      } else if (!overflow) {
        const std::int64_t d = touched_per_owner[o];
        for (std::int64_t q = 0; q < c; ++q) {
          y.indices[d + q] = list[q];
          y.values[d + q] = acc[list[q]];
        }
      }
      for (std::int64_t q = 0; q < c; ++q) present[list[q]] = 0;
    }
  }
  if (overflow)
    fail(status::invalid_argument, "spmspv: y has " + std::to_string(total) +
                                       " entries, capacity is " + std::to_string(y.capacity));
  y.nnz = total;
  y.sorted = sorted || total < 2;
}

}  // namespace

template <class V, class I, class O>
std::string check_problem(const Problem<V, I, O>& p, const Output<V, I>& y, Workspace<V, I>& ws) {
  return check(p, y, ws).second;
}

template <class V, class I, class O>
void validate_problem(const Problem<V, I, O>& p, const Output<V, I>& y, Workspace<V, I>& ws) {
  auto r = check(p, y, ws);
  if (r.first != status::success) fail(r.first, r.second);
}

template <class V, class I, class O>
void multiply(Algorithm algorithm, const Problem<V, I, O>& p, Output<V, I>& y,
              Workspace<V, I>& ws) {
  validate_problem(p, y, ws);
  const bool needs_at = (algorithm == Algorithm::matrix_driven && p.op == Op::T) ||
                        (algorithm == Algorithm::vector_driven && p.op == Op::N);
  if (needs_at && !p.At)
    fail(status::invalid_argument, std::string("spmspv: ") + algorithm_name(algorithm) +
                                       " with op " + op_name(p.op) +
                                       " needs the column view (Problem::At)");
  dispatch_semiring(p.semiring, [&](auto ops) {
    using S = decltype(ops);
    switch (algorithm) {
      case Algorithm::reference:
        reference_impl<S>(p, y);
        break;
      case Algorithm::matrix_driven:
        matrix_driven_impl<S>(p, y, ws);
        break;
      case Algorithm::vector_driven:
        vector_driven_impl<S>(p, y, ws);
        break;
      default:
        fail(status::invalid_argument, "spmspv: unknown algorithm");
    }
  });
}

template <class V, class I, class O>
void ColumnView<V, I, O>::build(const CsrView<V, I, O>& A) {
  rows = A.rows;
  cols = A.cols;
  nnz = A.nnz;
  col_ptr.assign(static_cast<std::size_t>(cols + 1), O(0));
  row_idx.resize(static_cast<std::size_t>(nnz));
  values.resize(static_cast<std::size_t>(nnz));
  position.resize(static_cast<std::size_t>(nnz));
  for (std::int64_t k = 0; k < nnz; ++k) ++col_ptr[static_cast<std::size_t>(A.col_idx[k]) + 1];
  for (std::int64_t c = 0; c < cols; ++c) col_ptr[c + 1] += col_ptr[c];
  std::vector<O> next(col_ptr.begin(), col_ptr.end() - 1);
  for (std::int64_t r = 0; r < rows; ++r)
    for (O k = A.row_ptr[r]; k < A.row_ptr[r + 1]; ++k) {
      const O q = next[static_cast<std::size_t>(A.col_idx[k])]++;
      row_idx[q] = static_cast<I>(r);
      values[q] = A.values[k];
      position[q] = k;
    }
}

template <class V, class I, class O>
void ColumnView<V, I, O>::refresh_values(const CsrView<V, I, O>& A) {
  if (A.nnz != nnz) fail(status::size_mismatch, "spmspv: column view refresh with another nnz");
#pragma omp parallel for schedule(static) if (nnz > 65536)
  for (std::int64_t q = 0; q < nnz; ++q) values[q] = A.values[position[q]];
}

template <class V, class I, class O>
std::size_t ColumnView<V, I, O>::bytes() const {
  return col_ptr.size() * sizeof(O) + row_idx.size() * sizeof(I) + values.size() * sizeof(V) +
         position.size() * sizeof(O);
}

template <class V, class I, class O>
CsrView<V, I, O> ColumnView<V, I, O>::transposed_view() const {
  return csr_view(cols, rows, nnz, col_ptr.data(), row_idx.data(), values.data());
}

template <class V, class I>
std::size_t Workspace<V, I>::bytes() const {
  return acc.size() * sizeof(V) + present.size() + x_flag.size() + x_dense.size() * sizeof(V) +
         x_list.size() * sizeof(I) + counts.size() * 8 + bucket_idx.size() * sizeof(I) +
         bucket_val.size() * sizeof(V) + out_idx.size() * sizeof(I) + out_val.size() * sizeof(V);
}

template <class V, class I, class O>
ReferenceResult<V, I, O>::ReferenceResult(const Problem<V, I, O>& p)
    : semiring_(p.semiring), n_(p.op == Op::N ? p.A.rows : p.A.cols) {
  const std::int64_t n = n_;
  Workspace<V, I> ws;
  // Reference: present entries and values.
  std::vector<I> ref_idx(static_cast<std::size_t>(n));
  std::vector<V> ref_val(static_cast<std::size_t>(n));
  Output<V, I> r = sparse_output(n, ref_idx.data(), ref_val.data());
  multiply(Algorithm::reference, p, r, ws);
  nnz_ = r.nnz;
  // Magnitude bound for plus_times: the reference on |A| and |x|.
  bound_.assign(static_cast<std::size_t>(n), 0.0);
  if (p.semiring == Semiring::plus_times) {
    std::vector<V> abs_a(p.A.values, p.A.values + p.A.nnz);
    for (auto& v : abs_a) v = std::abs(v);
    const std::int64_t nxv = p.x.format == VectorFormat::bitmap ? p.x.size : p.x.nnz;
    std::vector<V> abs_x(p.x.values, p.x.values + nxv);
    for (auto& v : abs_x) v = std::abs(v);
    Problem<V, I, O> q = p;
    q.A.values = abs_a.data();
    q.x.values = abs_x.data();
    q.At = nullptr;
    std::vector<V> b(static_cast<std::size_t>(n));
    Output<V, I> bo;
    bo.format = OutputFormat::dense;
    bo.size = n;
    bo.dense = b.data();
    multiply(Algorithm::reference, q, bo, ws);
    for (std::int64_t i = 0; i < n; ++i) bound_[i] = static_cast<double>(b[i]);
    std::vector<std::int64_t> col_count(static_cast<std::size_t>(p.A.cols), 0);
    for (std::int64_t rr = 0; rr < p.A.rows; ++rr) {
      kmax_ = std::max<std::int64_t>(kmax_, p.A.row_ptr[rr + 1] - p.A.row_ptr[rr]);
      for (O k = p.A.row_ptr[rr]; k < p.A.row_ptr[rr + 1]; ++k)
        kmax_ = std::max(kmax_, ++col_count[static_cast<std::size_t>(p.A.col_idx[k])]);
    }
  }
  present_.assign(static_cast<std::size_t>(n), 0);
  dense_.resize(static_cast<std::size_t>(n));
  dispatch_semiring(p.semiring, [&](auto ops) {
    using S = decltype(ops);
    std::fill(dense_.begin(), dense_.end(), S::template identity<V>());
  });
  for (std::int64_t q = 0; q < r.nnz; ++q) {
    present_[static_cast<std::size_t>(ref_idx[q])] = 1;
    dense_[static_cast<std::size_t>(ref_idx[q])] = ref_val[q];
  }
}

template <class V, class I, class O>
std::string ReferenceResult<V, I, O>::compare(const Output<V, I>& y) const {
  const std::int64_t n = n_;
  std::ostringstream msg;
  if (y.size != n) {
    msg << "y has size " << y.size << ", the reference " << n << "\n";
    return msg.str();
  }
  const double eps = std::numeric_limits<V>::epsilon();
  int reported = 0;
  auto differ = [&](std::int64_t i, V got, V want) {
    if (semiring_ != Semiring::plus_times) {
      const bool same = got == want || (std::isnan(got) && std::isnan(want));
      return !same;
    }
    if (!std::isfinite(got)) return true;
    // Where values underflow (entries near V's range limit: bayer10 in float), each product may
    // also lose up to the smallest normal value (a kernel that flushes subnormals to zero).
    const double tol = 2.0 * static_cast<double>(kmax_ + 2) *
                       (eps * bound_[i] + static_cast<double>(std::numeric_limits<V>::min()));
    return std::abs(static_cast<double>(got) - static_cast<double>(want)) > tol;
  };
  auto report = [&](const std::string& s) {
    if (reported++ < 5) msg << s << "\n";
  };
  if (y.format == OutputFormat::dense) {
    for (std::int64_t i = 0; i < n; ++i)
      if (differ(i, y.dense[i], dense_[i]))
        report("y[" + std::to_string(i) + "] = " + std::to_string(y.dense[i]) + ", reference " +
               std::to_string(dense_[i]));
    return msg.str();
  }
  if (y.nnz != nnz_)
    report("y has " + std::to_string(y.nnz) + " entries, reference " + std::to_string(nnz_));
  std::vector<std::uint8_t> seen(static_cast<std::size_t>(n), 0);
  bool in_order = true;
  for (std::int64_t q = 0; q < y.nnz && q < y.capacity; ++q) {
    const std::int64_t i = static_cast<std::int64_t>(y.indices[q]);
    if (i < 0 || i >= n) {
      report("y index " + std::to_string(i) + " out of range");
      continue;
    }
    if (q > 0 && i <= static_cast<std::int64_t>(y.indices[q - 1])) in_order = false;
    if (seen[i]++) report("y has index " + std::to_string(i) + " twice");
    if (!present_[i])
      report("y has index " + std::to_string(i) + ", reference does not");
    else if (differ(i, y.values[q], dense_[i]))
      report("y[" + std::to_string(i) + "] = " + std::to_string(y.values[q]) + ", reference " +
             std::to_string(dense_[i]));
  }
  if (y.sorted && !in_order) report("y claims to be sorted and is not");
  if (y.want_sorted && !in_order) report("sorted output asked for, y is not sorted");
  return msg.str();
}

template <class V, class I, class O>
std::string compare_with_reference(const Problem<V, I, O>& p, const Output<V, I>& y) {
  return ReferenceResult<V, I, O>(p).compare(y);
}

template <class V, class I, class O>
VectorFeatures vector_features(const Problem<V, I, O>& p) {
  VectorFeatures f;
  f.nnz_x = p.x.nnz;
  f.matrix_nnz = p.A.nnz;
  const CsrView<V, I, O>* M = p.op == Op::N ? p.At : &p.A;
  if (!M) {
    f.touched_nnz = -1;
  } else if (p.x.format == VectorFormat::bitmap) {
    std::int64_t t = 0;
    for (std::int64_t w = 0; w < (p.x.size + 31) / 32; ++w)
      for (std::uint32_t bits = p.x.bits[w]; bits; bits &= bits - 1) {
        int b = 0;
        while (!((bits >> b) & 1u)) ++b;
        const std::int64_t j = w * 32 + b;
        t += static_cast<std::int64_t>(M->row_ptr[j + 1] - M->row_ptr[j]);
      }
    f.touched_nnz = t;
  } else {
    std::int64_t t = 0;
    for (std::int64_t k = 0; k < p.x.nnz; ++k) {
      const std::int64_t j = p.x.indices[k];
      t += static_cast<std::int64_t>(M->row_ptr[j + 1] - M->row_ptr[j]);
    }
    f.touched_nnz = t;
  }
  const std::int64_t n_out = p.op == Op::N ? p.A.rows : p.A.cols;
  if (p.mask.values && p.mask.allowed >= 0 && n_out > 0)
    f.allowed_fraction = static_cast<double>(p.mask.allowed) / static_cast<double>(n_out);
  return f;
}

Algorithm select_algorithm(const VectorFeatures& f) {
  if (f.touched_nnz < 0) return Algorithm::matrix_driven;
  const double matrix_cost = static_cast<double>(f.matrix_nnz) * f.allowed_fraction;
  const double vector_cost = 4.0 * static_cast<double>(f.touched_nnz);
  return vector_cost < matrix_cost ? Algorithm::vector_driven : Algorithm::matrix_driven;
}

#define HOLA_SPMSPV_INSTANTIATE(V, I, O)                                                          \
  template struct ColumnView<V, I, O>;                                                            \
  template std::string check_problem(const Problem<V, I, O>&, const Output<V, I>&,                \
                                     Workspace<V, I>&);                                           \
  template void validate_problem(const Problem<V, I, O>&, const Output<V, I>&, Workspace<V, I>&); \
  template void multiply(Algorithm, const Problem<V, I, O>&, Output<V, I>&, Workspace<V, I>&);    \
  template VectorFeatures vector_features(const Problem<V, I, O>&);                               \
  template std::string compare_with_reference(const Problem<V, I, O>&, const Output<V, I>&);      \
  template class ReferenceResult<V, I, O>;
HOLA_FOR_EACH_VALUE_INDEX_OFFSET(HOLA_SPMSPV_INSTANTIATE)
#undef HOLA_SPMSPV_INSTANTIATE

template struct Workspace<float, std::int32_t>;
template struct Workspace<float, std::int64_t>;
template struct Workspace<double, std::int32_t>;
template struct Workspace<double, std::int64_t>;

}  // namespace hola::spmspv
