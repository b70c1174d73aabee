// GPU SpMSpV kernels (kernels/cuda/spmspv) against the CPU reference: every kernel, op,
// semiring, mask, vector format and output form on every generated family, densities 0..1; bad
// vectors rejected with y untouched. Then the operator's device path (hola::SpmspvOperator and
// the C API on device memory): every candidate forced, densify-and-SpMV included, and auto;
// the device column view against the host one; bad input leaving y unchanged; repeated applies
// and a values refresh; an apply captured into a CUDA graph (no allocation, no
// synchronisation); the deterministic mode through the C API (bitwise repeatable, equal to the
// C++ path, refusals and bad input with y untouched). Exits 77 (skipped) without a GPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include <cmath>
#include <limits>
#include <map>
#include <memory>
#include <sstream>
#include <type_traits>

#include "gpu_harness.hpp"
#include "hola/generators.hpp"
#include "hola/hola_spmspv.h"
#include "hola/spmspv.hpp"
#include "hola/spmspv_gpu.hpp"
#include "hola/spmspv_operator.hpp"
#include "spmspv_cases.hpp"
#include "status_of.hpp"

namespace hola::test {
namespace {

using namespace hola::spmspv;
using DM = DeviceMemory;

template <class T>
std::vector<T> with_one(std::vector<T> v) {  // device arrays of at least one element
  if (v.empty()) v.push_back(T{});
  return v;
}

// A matrix on the host and the device, with its transpose (column view) on both.
template <class V, class I, class O>
struct DeviceMatrix {
  CsrMatrix<V, I, O> host;
  ColumnView<V, I, O> cols;
  DM::Array<O> rp, crp;
  DM::Array<I> ci, cri;
  DM::Array<V> va, cva;
  CsrView<V, I, O> A, At;
  explicit DeviceMatrix(CsrMatrix<V, I, O> m)
      : host(std::move(m)),
        rp(host.row_ptr.size()),
        crp(static_cast<std::size_t>(host.cols + 1)),
        ci(std::max<std::size_t>(1, host.col_idx.size())),
        cri(std::max<std::size_t>(1, host.col_idx.size())),
        va(std::max<std::size_t>(1, host.values.size())),
        cva(std::max<std::size_t>(1, host.values.size())) {
    cols.build(host.view());
    rp.upload(host.row_ptr);
    ci.upload(with_one(host.col_idx));
    va.upload(with_one(host.values));
    crp.upload(cols.col_ptr);
    cri.upload(with_one(cols.row_idx));
    cva.upload(with_one(cols.values));
    A = host.view();
    A.row_ptr = rp.get();
    A.col_idx = ci.get();
    A.values = va.get();
    A.memory = Memory::device;
    At = cols.transposed_view();
    At.row_ptr = crp.get();
    At.col_idx = cri.get();
    At.values = cva.get();
    At.memory = Memory::device;
  }
};

const gpu::Kernel kKernels[] = {gpu::Kernel::matrix_direct, gpu::Kernel::matrix_balanced,
                                gpu::Kernel::vector_direct, gpu::Kernel::vector_balanced};

// y on the device: dense (form 0), sparse sorted (1) or sparse unsorted (2), poisoned first
// (values NaN, indices -1) so that an entry the call should write and did not shows.
template <class V, class I>
struct DeviceOutput {
  std::int64_t n;
  DM::Array<V> vals;
  DM::Array<I> idx;
  Output<V, I> y;
  std::vector<V> host_vals;
  std::vector<I> host_idx;
  DeviceOutput(std::int64_t size, int form)
      : n(size),
        vals(static_cast<std::size_t>(std::max<std::int64_t>(1, size))),
        idx(static_cast<std::size_t>(std::max<std::int64_t>(1, size))) {
    vals.upload(std::vector<V>(vals.n, std::numeric_limits<V>::quiet_NaN()));
    idx.upload(std::vector<I>(idx.n, I(-1)));
    y.size = n;
    y.format = form == 0 ? OutputFormat::dense : OutputFormat::sparse;
    y.want_sorted = form == 1;
    if (form == 0) {
      y.dense = vals.get();
    } else {
      y.values = vals.get();
      y.indices = idx.get();
      y.capacity = n;
    }
  }
  // The result as a host Output (after the call; synchronizes).
  Output<V, I> host() {
    DM::sync();
    host_vals = vals.download();
    host_idx = idx.download();
    Output<V, I> h = y;
    if (y.format == OutputFormat::dense) {
      h.dense = host_vals.data();
    } else {
      h.values = host_vals.data();
      h.indices = host_idx.data();
    }
    return h;
  }
};

// A mask of n bytes on the host and the device (about a third masked out).
struct DeviceMask {
  std::vector<std::uint8_t> host;
  DM::Array<std::uint8_t> dev;
  explicit DeviceMask(std::int64_t n) : host(static_cast<std::size_t>(n)), dev(host.size()) {
    std::mt19937_64 rng(static_cast<std::uint64_t>(n) + 5);
    for (auto& b : host) b = static_cast<std::uint8_t>(rng() % 3 == 0 ? 0 : 1 + rng() % 4);
    dev.upload(host);
  }
  // kind 0: none, 1: mask, 2: complemented; `host_side`: the host copy's pointer.
  Mask get(int kind, bool host_side) {
    Mask m;
    if (kind == 0) return m;
    m.values = host_side ? host.data() : dev.get();
    m.size = static_cast<std::int64_t>(host.size());
    m.complement = kind == 2;
    std::int64_t allowed = 0;
    for (auto b : host) allowed += (b != 0) != m.complement;
    m.allowed = allowed;
    return m;
  }
};

// One apply of `kern` into a poisoned y (DeviceOutput's forms), compared with the CPU reference:
// "" when right, else what differs.
template <class V, class I, class O>
std::string apply_and_compare(gpu::Spmspv<V, I, O>& k, gpu::Kernel kern, Op op, Semiring s,
                              const DeviceMatrix<V, I, O>& dm, const SparseVectorView<V, I>& hx,
                              const SparseVectorView<V, I>& dx, const Mask& hm, const Mask& dmk,
                              int form, cudaStream_t stream) {
  DeviceOutput<V, I> out(op == Op::N ? dm.A.rows : dm.A.cols, form);
  k.apply(kern, op, s, dx, dmk, out.y, stream);
  Problem<V, I, O> p;
  p.op = op;
  p.semiring = s;
  p.A = dm.host.view();
  p.x = hx;
  p.mask = hm;
  return compare_with_reference(p, out.host());
}

template <class T>
class SpmspvGpu : public ::testing::Test {};
using GpuTypes = ::testing::Types<
    Types<double, std::int32_t, std::int32_t>, Types<float, std::int64_t, std::int64_t>,
    Types<double, std::int64_t, std::int32_t>, Types<float, std::int32_t, std::int64_t>>;
TYPED_TEST_SUITE(SpmspvGpu, GpuTypes);

TYPED_TEST(SpmspvGpu, EveryKernelMatchesReference) {
  HOLA_TYPES;
  std::int64_t checked = 0, rotate = 0;
  TestStream stream(TestStream::non_blocking);
  for (const auto& [name, m64] : spmspv_families(SpmspvExtraFamily::rmat_large)) {
    DeviceMatrix<V, I, O> dm(m64.template convert<V, I, O>());
    gpu::Spmspv<V, I, O> k;
    k.setup(dm.A, &dm.At);
    for (Op op : {Op::N, Op::T}) {
      const std::int64_t n_in = op == Op::N ? dm.A.cols : dm.A.rows;
      const std::int64_t n_out = op == Op::N ? dm.A.rows : dm.A.cols;
      std::vector<std::uint8_t> mask(static_cast<std::size_t>(n_out));
      std::mt19937_64 rng(7);
      for (auto& b : mask) b = static_cast<std::uint8_t>(rng() % 3 == 0 ? 0 : 1 + rng() % 4);
      DM::Array<std::uint8_t> d_mask(mask.size());
      d_mask.upload(mask);
      for (double density : {0.0, 0.004, 0.05, 0.5, 1.0}) {
        const TestVector<V, I> hv(n_in, density, 100 + checked);
        DM::Array<I> d_sidx(with_one(hv.sorted_idx)), d_uidx(with_one(hv.unsorted_idx));
        DM::Array<V> d_sval(with_one(hv.sorted_val)), d_uval(with_one(hv.unsorted_val)),
            d_dense(with_one(hv.dense_val));
        DM::Array<std::uint32_t> d_bits(with_one(hv.bits));
        for (VectorFormat f :
             {VectorFormat::sorted, VectorFormat::unsorted, VectorFormat::bitmap}) {
          // The same vector on the host and the device.
          const SparseVectorView<V, I> hx = hv.view(f);
          SparseVectorView<V, I> dx = hx;
          dx.memory = Memory::device;
          if (f == VectorFormat::sorted) {
            dx.indices = d_sidx.get();
            dx.values = d_sval.get();
          } else if (f == VectorFormat::unsorted) {
            dx.indices = d_uidx.get();
            dx.values = d_uval.get();
          } else {
            dx.bits = d_bits.get();
            dx.values = d_dense.get();
          }
          for (int mk = 0; mk < 3; ++mk)
            for (Semiring s : kSemirings)
              for (gpu::Kernel kern : kKernels) {
                Mask hm, dmk;
                if (mk > 0) {
                  hm.values = mask.data();
                  dmk.values = d_mask.get();
                  hm.size = dmk.size = n_out;
                  hm.complement = dmk.complement = mk == 2;
                }
                const int form = static_cast<int>(rotate++ % 3);
                const std::string diff =
                    apply_and_compare(k, kern, op, s, dm, hx, dx, hm, dmk, form, stream.get());
                EXPECT_TRUE(diff.empty())
                    << name << " op " << op_name(op) << " density " << density << " "
                    << format_name(f) << " mask " << mk << " " << semiring_name(s) << " "
                    << gpu::kernel_name(kern) << " form " << form << ":\n"
                    << diff;
                ++checked;
              }
        }
      }
    }
  }
  EXPECT_GT(checked, 10000);
}

// vector_direct at every group width (lanes per entry of x), forced: per call the width follows
// nnz(x) and the GPU's size, so a test's small vectors alone would only see the widest groups.
// Rows longer than the group's rounds (arrow, one_full_row, R-MAT hubs) go to the whole warp,
// rows of 256 entries or more to the heavy-row pass: a few (the large arrow, one full row of
// 5 000, R-MAT hubs: many warps per row) or more than that pass has warps (the 10 000 rows of
// 300 entries of `heavy_rows`, op T at density 1: whole rows per warp). Dense and sparse y
// alternate, so a dense call that left the accumulator, the flags or the heavy-row count dirty
// shows in the next sparse one.
TYPED_TEST(SpmspvGpu, VectorDirectEveryGroupWidth) {
  HOLA_TYPES;
  std::int64_t checked = 0, rotate = 0;
  TestStream stream(TestStream::non_blocking);
  auto families = spmspv_families(SpmspvExtraFamily::rmat_large);
  families.emplace_back("arrow_3000", gen::arrow(3000));
  families.emplace_back("one_full_row_5000", gen::one_full_row(400, 5000, 123, 12));
  families.emplace_back("heavy_rows", gen::random_rect(10000, 2000, 300, 13));
  for (const auto& [name, m64] : families) {
    DeviceMatrix<V, I, O> dm(m64.template convert<V, I, O>());
    gpu::Spmspv<V, I, O> k;
    k.setup(dm.A, &dm.At);
    for (Op op : {Op::N, Op::T}) {
      const std::int64_t n_in = op == Op::N ? dm.A.cols : dm.A.rows;
      const std::int64_t n_out = op == Op::N ? dm.A.rows : dm.A.cols;
      DeviceMask mask(n_out);
      for (double density : {0.004, 0.05, 1.0}) {
        const TestVector<V, I> hv(n_in, density, 500 + checked);
        DM::Array<I> d_idx(with_one(hv.sorted_idx));
        DM::Array<V> d_val(with_one(hv.sorted_val));
        const SparseVectorView<V, I> hx = hv.view(VectorFormat::sorted);
        SparseVectorView<V, I> dx = hx;
        dx.memory = Memory::device;
        dx.indices = d_idx.get();
        dx.values = d_val.get();
        for (int lanes : {1, 2, 4, 8, 16, 32}) {
          k.set_direct_lanes(lanes);
          for (int masked : {0, 2})  // none, complemented
            for (Semiring s : kSemirings) {
              const int form = static_cast<int>(rotate++ % 3);
              const std::string diff = apply_and_compare(
                  k, gpu::Kernel::vector_direct, op, s, dm, hx, dx, mask.get(masked, true),
                  mask.get(masked, false), form, stream.get());
              EXPECT_TRUE(diff.empty())
                  << name << " op " << op_name(op) << " density " << density << " lanes " << lanes
                  << " masked " << masked << " " << semiring_name(s) << " form " << form << ":\n"
                  << diff;
              ++checked;
            }
        }
      }
    }
  }
  EXPECT_GT(checked, 4000);
  gpu::Spmspv<double, std::int32_t, std::int32_t> refused;
  EXPECT_EQ(status_of([&] { refused.set_direct_lanes(3); }), status::invalid_argument);
  EXPECT_EQ(status_of([&] { refused.set_direct_lanes(64); }), status::invalid_argument);
}

TYPED_TEST(SpmspvGpu, BadVectorsChangeNothing) {
  HOLA_TYPES;
  DeviceMatrix<V, I, O> dm(gen::random_rect(40, 50, 4, 31).template convert<V, I, O>());
  gpu::Spmspv<V, I, O> k;
  k.setup(dm.A, &dm.At);
  gpu::Spmspv<V, I, O> no_at;
  no_at.setup(dm.A, nullptr);
  const TestVector<V, I> hv(50, 0.3, 3);
  struct Case {
    std::string what;
    std::vector<I> idx;
    VectorFormat f;
  };
  std::vector<Case> cases;
  auto out_of_range = hv.sorted_idx;
  out_of_range.back() = I(50);
  cases.push_back({"index == size", out_of_range, VectorFormat::sorted});
  auto neg = hv.unsorted_idx;
  neg[2] = I(-3);
  cases.push_back({"negative", neg, VectorFormat::unsorted});
  auto dup = hv.unsorted_idx;
  dup[5] = dup[1];
  cases.push_back({"duplicate", dup, VectorFormat::unsorted});
  auto unordered = hv.sorted_idx;
  std::swap(unordered[1], unordered[4]);
  cases.push_back({"unsorted in sorted", unordered, VectorFormat::sorted});
  DM::Array<V> d_val(hv.sorted_val.size());
  d_val.upload(hv.sorted_val);
  for (const auto& c : cases)
    for (gpu::Kernel kern : kKernels) {
      DM::Array<I> d_idx(c.idx.size());
      d_idx.upload(c.idx);
      SparseVectorView<V, I> x;
      x.size = 50;
      x.nnz = static_cast<std::int64_t>(c.idx.size());
      x.format = c.f;
      x.indices = d_idx.get();
      x.values = d_val.get();
      x.memory = Memory::device;
      std::vector<V> sentinel(40, V(-7));
      DM::Array<V> d_y(40);
      d_y.upload(sentinel);
      Output<V, I> y;
      y.format = OutputFormat::dense;
      y.size = 40;
      y.dense = d_y.get();
      EXPECT_EQ(status_of([&] { k.apply(kern, Op::N, Semiring::plus_times, x, Mask{}, y); }),
                status::invalid_argument)
          << c.what << " " << gpu::kernel_name(kern);
      DM::sync();
      EXPECT_EQ(d_y.download(), sentinel) << c.what << ": y changed";
    }
  // Sizes, and a kernel needing A^T without it.
  DM::Array<I> d_idx(hv.sorted_idx.size());
  d_idx.upload(hv.sorted_idx);
  SparseVectorView<V, I> x;
  x.size = 50;
  x.nnz = static_cast<std::int64_t>(hv.sorted_idx.size());
  x.indices = d_idx.get();
  x.values = d_val.get();
  x.memory = Memory::device;
  DM::Array<V> d_y(50);
  Output<V, I> y;
  y.format = OutputFormat::dense;
  y.size = 40;
  y.dense = d_y.get();
  EXPECT_EQ(status_of([&] {
              no_at.apply(gpu::Kernel::vector_direct, Op::N, Semiring::plus_times, x, Mask{}, y);
            }),
            status::invalid_argument);
  y.size = 41;
  EXPECT_EQ(status_of([&] {
              k.apply(gpu::Kernel::matrix_direct, Op::N, Semiring::plus_times, x, Mask{}, y);
            }),
            status::size_mismatch);
  // Sparse y with too little room: nothing written.
  y.size = 40;
  y.format = OutputFormat::sparse;
  DM::Array<I> d_yi(50);
  std::vector<V> sentinel(50, V(-7));
  d_y.upload(sentinel);
  y.values = d_y.get();
  y.indices = d_yi.get();
  y.capacity = 1;
  EXPECT_EQ(status_of([&] {
              k.apply(gpu::Kernel::matrix_balanced, Op::N, Semiring::plus_times, x, Mask{}, y);
            }),
            status::invalid_argument);
  DM::sync();
  EXPECT_EQ(d_y.download(), sentinel);
}

// ---------------------------------------------------------------------------------------------
// The operator's device path.

// A matrix in device memory only (the operator builds its own column view), and its host copy.
template <class V, class I, class O>
struct DeviceCsr {
  CsrMatrix<V, I, O> host;
  DM::Array<O> rp;
  DM::Array<I> ci;
  DM::Array<V> va;
  CsrView<V, I, O> A;
  explicit DeviceCsr(CsrMatrix<V, I, O> m)
      : host(std::move(m)),
        rp(host.row_ptr.size()),
        ci(std::max<std::size_t>(1, host.col_idx.size())),
        va(std::max<std::size_t>(1, host.values.size())) {
    rp.upload(host.row_ptr);
    ci.upload(with_one(host.col_idx));
    va.upload(with_one(host.values));
    A = host.view();
    A.row_ptr = rp.get();
    A.col_idx = ci.get();
    A.values = va.get();
    A.memory = Memory::device;
  }
};

// One random sparse vector on the host and on the device, in every format.
template <class V, class I>
struct DeviceVector {
  TestVector<V, I> hv;
  DM::Array<I> sidx, uidx;
  DM::Array<V> sval, uval, dense;
  DM::Array<std::uint32_t> bits;
  DeviceVector(std::int64_t n, double density, std::uint64_t seed)
      : hv(n, density, seed),
        sidx(with_one(hv.sorted_idx)),
        uidx(with_one(hv.unsorted_idx)),
        sval(with_one(hv.sorted_val)),
        uval(with_one(hv.unsorted_val)),
        dense(with_one(hv.dense_val)),
        bits(with_one(hv.bits)) {}
  SparseVectorView<V, I> device(VectorFormat f) {
    SparseVectorView<V, I> x = hv.view(f);
    x.memory = Memory::device;
    if (f == VectorFormat::sorted) {
      x.indices = sidx.get();
      x.values = sval.get();
    } else if (f == VectorFormat::unsorted) {
      x.indices = uidx.get();
      x.values = uval.get();
    } else {
      x.bits = bits.get();
      x.values = dense.get();
    }
    return x;
  }
};

const char* const kOperatorKernels[] = {"auto",          "matrix_direct",   "matrix_balanced",
                                        "vector_direct", "vector_balanced", "densify"};

template <class V, class I, class O>
Problem<V, I, O> host_problem(const CsrMatrix<V, I, O>& A, Op op, Semiring s,
                              const SparseVectorView<V, I>& hx, const Mask& hm) {
  Problem<V, I, O> p;
  p.op = op;
  p.semiring = s;
  p.A = A.view();
  p.x = hx;
  p.mask = hm;
  return p;
}

// vector_balanced with the sorted write-back (WriteBack::sorted) on every family, op, vector
// format, mask, semiring and output form: right against the reference, with the default chunk
// and with chunks of nnz / 64 pairs (at least 7: runs cross chunks, up to 64 chunks a call); a
// dense y over plus_times bitwise equal
// to matrix_direct's (both sum each output's products in increasing input index, from the
// first) and to a second call's.
TYPED_TEST(SpmspvGpu, SortedWriteBack) {
  HOLA_TYPES;
  std::int64_t checked = 0, rotate = 0, bitwise = 0;
  TestStream stream(TestStream::non_blocking);
  auto families = spmspv_families(SpmspvExtraFamily::rmat_large);
  families.emplace_back("arrow_3000", gen::arrow(3000));
  for (const auto& [name, m64] : families) {
    DeviceMatrix<V, I, O> dm(m64.template convert<V, I, O>());
    gpu::Spmspv<V, I, O> k;
    k.setup(dm.A, &dm.At);
    for (std::int64_t chunk : {std::int64_t(0), std::max<std::int64_t>(7, dm.A.nnz / 64)}) {
      k.set_write_back(gpu::WriteBack::sorted, chunk);
      EXPECT_EQ(k.write_back(), gpu::WriteBack::sorted);
      for (Op op : {Op::N, Op::T}) {
        const std::int64_t n_in = op == Op::N ? dm.A.cols : dm.A.rows;
        const std::int64_t n_out = op == Op::N ? dm.A.rows : dm.A.cols;
        DeviceMask mask(n_out);
        for (double density : {0.004, 0.05, 0.5, 1.0}) {
          DeviceVector<V, I> dv(n_in, density, 700 + static_cast<std::uint64_t>(checked));
          for (VectorFormat f :
               {VectorFormat::sorted, VectorFormat::unsorted, VectorFormat::bitmap})
            for (int mk = 0; mk < 3; ++mk)
              for (Semiring s : kSemirings) {
                const int form = static_cast<int>(rotate++ % 3);
                const std::string diff = apply_and_compare(
                    k, gpu::Kernel::vector_balanced, op, s, dm, dv.hv.view(f), dv.device(f),
                    mask.get(mk, true), mask.get(mk, false), form, stream.get());
                EXPECT_TRUE(diff.empty())
                    << name << " chunk " << chunk << " op " << op_name(op) << " density " << density
                    << " " << format_name(f) << " mask " << mk << " " << semiring_name(s)
                    << " form " << form << ":\n"
                    << diff;
                ++checked;
              }
          // Bitwise: sorted write-back (twice) and matrix_direct, dense y, plus_times.
          for (VectorFormat f :
               {VectorFormat::sorted, VectorFormat::unsorted, VectorFormat::bitmap}) {
            std::vector<V> got[3];
            const gpu::Kernel runs[3] = {gpu::Kernel::vector_balanced, gpu::Kernel::vector_balanced,
                                         gpu::Kernel::matrix_direct};
            for (int r = 0; r < 3; ++r) {
              DeviceOutput<V, I> out(n_out, 0);
              k.apply(runs[r], op, Semiring::plus_times, dv.device(f), mask.get(1, false), out.y,
                      stream.get());
              out.host();
              got[r] = out.host_vals;
            }
            for (int r = 1; r < 3; ++r)
              EXPECT_EQ(std::memcmp(got[0].data(), got[r].data(), got[0].size() * sizeof(V)), 0)
                  << name << " chunk " << chunk << " op " << op_name(op) << " density " << density
                  << " " << format_name(f) << ": " << (r == 1 ? "second call" : "matrix_direct")
                  << " differs bitwise";
            ++bitwise;
          }
        }
      }
    }
    k.set_write_back(gpu::WriteBack::atomic);
    EXPECT_EQ(k.write_back(), gpu::WriteBack::atomic);
    DeviceVector<V, I> dv(dm.A.rows, 0.05, 9);
    const std::string diff =
        apply_and_compare(k, gpu::Kernel::vector_balanced, Op::T, Semiring::plus_times, dm,
                          dv.hv.view(VectorFormat::sorted), dv.device(VectorFormat::sorted), Mask{},
                          Mask{}, 1, stream.get());
    EXPECT_TRUE(diff.empty()) << name << " back to atomic:\n" << diff;
  }
  EXPECT_GT(checked, 3000);
  EXPECT_GT(bitwise, 100);
  gpu::Spmspv<double, std::int32_t, std::int32_t> refused;
  EXPECT_EQ(status_of([&] { refused.set_write_back(static_cast<gpu::WriteBack>(5)); }),
            status::invalid_argument);
  EXPECT_EQ(status_of([&] { refused.set_write_back(gpu::WriteBack::sorted, -1); }),
            status::invalid_argument);
}

template <class T>
class SpmspvOperatorGpu : public ::testing::Test {};
TYPED_TEST_SUITE(SpmspvOperatorGpu, GpuTypes);

// Every candidate forced, and auto, on every family: ops, densities, vector formats, masks
// (plain and complemented), output forms, semirings (densify: plus_times; refused otherwise with
// y unchanged).
TYPED_TEST(SpmspvOperatorGpu, EveryCandidateMatchesReference) {
  HOLA_TYPES;
  std::int64_t checked = 0, rotate = 0;
  TestStream stream(TestStream::non_blocking);
  for (const auto& [name, m64] : spmspv_families(SpmspvExtraFamily::rmat_large)) {
    DeviceCsr<V, I, O> dm(m64.template convert<V, I, O>());
    SpmspvOperator<V, I, O> op;
    op.setup(dm.A, 0, stream.get());
    EXPECT_GE(op.densify_ms(Op::N), 0.0) << name;
    EXPECT_GE(op.densify_ms(Op::T), 0.0) << name;
    for (Op o : {Op::N, Op::T}) {
      const std::int64_t n_in = o == Op::N ? dm.A.cols : dm.A.rows;
      const std::int64_t n_out = o == Op::N ? dm.A.rows : dm.A.cols;
      DeviceMask mask(n_out);
      for (double density : {0.0, 0.02, 0.4, 1.0}) {
        DeviceVector<V, I> dv(n_in, density, 300 + static_cast<std::uint64_t>(checked));
        for (int mk = 0; mk < 3; ++mk)
          for (const char* kernel : kOperatorKernels) {
            const auto f = static_cast<VectorFormat>(rotate % 3);
            const int form = static_cast<int>((rotate / 3) % 3);
            const bool densify = std::string(kernel) == "densify";
            const Semiring s = densify ? Semiring::plus_times : kSemirings[rotate % 4];
            ++rotate;
            DeviceOutput<V, I> dy(n_out, form);
            op.set_kernel(kernel);
            op.apply(o, s, dv.device(f), dy.y, mask.get(mk, false), stream.get());
            const auto p = host_problem(dm.host, o, s, dv.hv.view(f), mask.get(mk, true));
            const std::string diff = compare_with_reference(p, dy.host());
            EXPECT_TRUE(diff.empty())
                << name << " op " << op_name(o) << " density " << density << " " << format_name(f)
                << " mask " << mk << " " << semiring_name(s) << " kernel " << kernel << " ran "
                << op.last_kernel() << " form " << form << ":\n"
                << diff << op.last_reason();
            if (std::string(kernel) != "auto") EXPECT_STREQ(op.last_kernel(), kernel);
            ++checked;
          }
        // Densify over another semiring: refused, y untouched.
        DeviceOutput<V, I> dy(n_out, 0);
        op.set_kernel("densify");
        EXPECT_EQ(status_of([&] {
                    op.apply(o, Semiring::min_second, dv.device(VectorFormat::sorted), dy.y, {},
                             stream.get());
                  }),
                  status::unsupported);
        const auto untouched = dy.vals.download();
        EXPECT_TRUE(std::all_of(untouched.begin(), untouched.end(), [](V v) {
          return std::isnan(v);
        })) << name;
      }
    }
  }
  EXPECT_GT(checked, 2000);
}

// Densify into a sparse y flags output i when a stored entry of row i of op(A) meets x: a thread
// reads a row's first 32 entries, its warp the rest (presence_pull_kernel). Row r of A holds
// columns 0 .. len[r] - 1, lengths around those bounds, two long rows, and rows enough that
// several warps hold long rows at once; x is one entry at columns around the bounds and past
// every row. Op N reads the rows of A, op T those of A^T, so the transposed matrix puts the long
// rows under op T too. Every present output, and only those, must come out (masked or not).
TYPED_TEST(SpmspvOperatorGpu, DensifyPresenceOfLongRows) {
  HOLA_TYPES;
  const std::vector<std::int64_t> lens = {0,  1,  31, 32,   33,    63, 64, 65,
                                          70, 96, 97, 5000, 40000, 2,  65, 40000};
  const std::int64_t cols = 40001;
  gen::Csr64 a;
  a.cols = cols;
  for (int copy = 0; copy < 5; ++copy)  // 80 rows: three warps and a part
    for (std::int64_t len : lens) {
      for (std::int64_t c = 0; c < len; ++c) {
        a.col_idx.push_back(c);
        a.values.push_back(1.0 + static_cast<double>(c % 7));
      }
      a.row_ptr.push_back(static_cast<std::int64_t>(a.col_idx.size()));
      ++a.rows;
    }
  TestStream stream(TestStream::non_blocking);
  std::int64_t checked = 0;
  for (int transposed = 0; transposed < 2; ++transposed) {
    gen::Csr64 m64 = a;
    if (transposed) {
      ColumnView<double, std::int64_t, std::int64_t> t;
      t.build(a.view());
      m64.rows = a.cols;
      m64.cols = a.rows;
      m64.row_ptr = t.col_ptr;
      m64.col_idx = t.row_idx;
      m64.values = t.values;
    }
    DeviceCsr<V, I, O> dm(m64.template convert<V, I, O>());
    SpmspvOperator<V, I, O> op;
    op.setup(dm.A, 0, stream.get());
    op.set_kernel("densify");
    for (Op o : {Op::N, Op::T}) {
      const std::int64_t n_in = o == Op::N ? dm.A.cols : dm.A.rows;
      const std::int64_t n_out = o == Op::N ? dm.A.rows : dm.A.cols;
      DeviceMask mask(n_out);
      for (std::int64_t at : {0, 30, 31, 32, 33, 62, 63, 64, 65, 69, 95, 96, 4999, 39999, 40000}) {
        if (at >= n_in) continue;
        const std::vector<I> hidx = {static_cast<I>(at)};
        const std::vector<V> hval = {V(2)};
        DM::Array<I> didx(1);
        DM::Array<V> dval(1);
        didx.upload(hidx);
        dval.upload(hval);
        SparseVectorView<V, I> hx;
        hx.size = n_in;
        hx.nnz = 1;
        hx.format = VectorFormat::sorted;
        hx.indices = hidx.data();
        hx.values = hval.data();
        SparseVectorView<V, I> dx = hx;
        dx.memory = Memory::device;
        dx.indices = didx.get();
        dx.values = dval.get();
        for (int mk = 0; mk < 3; ++mk)
          for (int form : {1, 2}) {
            DeviceOutput<V, I> dy(n_out, form);
            op.apply(o, Semiring::plus_times, dx, dy.y, mask.get(mk, false), stream.get());
            EXPECT_STREQ(op.last_kernel(), "densify");
            const auto p = host_problem(dm.host, o, Semiring::plus_times, hx, mask.get(mk, true));
            const std::string diff = compare_with_reference(p, dy.host());
            EXPECT_TRUE(diff.empty())
                << (transposed ? "A^T" : "A") << " op " << op_name(o) << " x at " << at << " mask "
                << mk << " form " << form << ":\n"
                << diff;
            ++checked;
          }
      }
    }
  }
  EXPECT_GT(checked, 100);
}

// SpmspvOptions::deterministic: matrix_direct and vector_balanced (sorted write-back) are the
// only candidates, both summing each output's products in increasing input index, so y is the
// same whichever runs: auto and both forced give bitwise equal dense y's (plus_times), right
// against the reference, over every vector format with a mask; every semiring into a sparse y
// asked unsorted comes out right and sorted; the other kernels are refused with y unchanged.
TYPED_TEST(SpmspvOperatorGpu, DeterministicMode) {
  HOLA_TYPES;
  TestStream stream(TestStream::non_blocking);
  SpmspvOptions options;
  options.deterministic = true;
  std::int64_t compared = 0, rotate = 0;
  for (const auto& [name, m64] : spmspv_families(SpmspvExtraFamily::rmat_large)) {
    DeviceCsr<V, I, O> dm(m64.template convert<V, I, O>());
    SpmspvOperator<V, I, O> op(options);
    op.setup(dm.A, 0, stream.get());
    for (Op o : {Op::N, Op::T}) {
      const std::int64_t n_in = o == Op::N ? dm.A.cols : dm.A.rows;
      const std::int64_t n_out = o == Op::N ? dm.A.rows : dm.A.cols;
      DeviceMask mask(n_out);
      for (double density : {0.004, 0.05, 0.5, 1.0}) {
        DeviceVector<V, I> dv(n_in, density, 900 + static_cast<std::uint64_t>(compared));
        for (VectorFormat f :
             {VectorFormat::sorted, VectorFormat::unsorted, VectorFormat::bitmap}) {
          const char* const kernels[3] = {"auto", "matrix_direct", "vector_balanced"};
          std::vector<V> got[3];
          for (int r = 0; r < 3; ++r) {
            op.set_kernel(kernels[r]);
            DeviceOutput<V, I> dy(n_out, 0);
            op.apply(o, Semiring::plus_times, dv.device(f), dy.y, mask.get(1, false), stream.get());
            const auto p =
                host_problem(dm.host, o, Semiring::plus_times, dv.hv.view(f), mask.get(1, true));
            const std::string diff = compare_with_reference(p, dy.host());
            EXPECT_TRUE(diff.empty()) << name << " op " << op_name(o) << " density " << density
                                      << " " << format_name(f) << " " << kernels[r] << ":\n"
                                      << diff;
            const std::string ran = op.last_kernel();
            EXPECT_TRUE(ran == "matrix_direct" || ran == "vector_balanced") << ran;
            got[r] = dy.host_vals;
          }
          for (int r = 1; r < 3; ++r)
            EXPECT_EQ(std::memcmp(got[0].data(), got[r].data(), got[0].size() * sizeof(V)), 0)
                << name << " op " << op_name(o) << " density " << density << " " << format_name(f)
                << ": " << kernels[r] << " differs bitwise from auto";
          op.set_kernel("auto");
          const Semiring s = kSemirings[rotate++ % 4];
          DeviceOutput<V, I> sy(n_out, 2);  // sparse, asked unsorted
          op.apply(o, s, dv.device(f), sy.y, mask.get(2, false), stream.get());
          const auto p = host_problem(dm.host, o, s, dv.hv.view(f), mask.get(2, true));
          const std::string diff = compare_with_reference(p, sy.host());
          EXPECT_TRUE(diff.empty()) << name << " sparse y " << semiring_name(s) << ":\n" << diff;
          EXPECT_TRUE(sy.y.sorted) << name;
          ++compared;
        }
      }
      for (const char* refused : {"matrix_balanced", "vector_direct", "densify"}) {
        op.set_kernel(refused);
        DeviceOutput<V, I> dy(n_out, 0);
        DeviceVector<V, I> dv(n_in, 0.05, 5);
        EXPECT_EQ(status_of([&] {
                    op.apply(o, Semiring::plus_times, dv.device(VectorFormat::sorted), dy.y, {},
                             stream.get());
                  }),
                  status::unsupported)
            << refused;
        const auto untouched = dy.vals.download();
        EXPECT_TRUE(
            std::all_of(untouched.begin(), untouched.end(), [](V v) { return std::isnan(v); }))
            << name << " " << refused;
      }
    }
  }
  EXPECT_GT(compared, 100);
  // The mode follows set_deterministic from the next setup, even of the same structure.
  DeviceCsr<V, I, O> dm(gen::random_rect(300, 200, 6, 17).template convert<V, I, O>());
  SpmspvOperator<V, I, O> op;
  op.setup(dm.A, 0, stream.get());
  DeviceVector<V, I> dv(dm.A.cols, 0.05, 3);
  auto runs_balanced = [&] {
    op.set_kernel("matrix_balanced");
    DeviceOutput<V, I> dy(dm.A.rows, 0);
    return status_of([&] {
      op.apply(Op::N, Semiring::plus_times, dv.device(VectorFormat::sorted), dy.y, {},
               stream.get());
      DM::sync();
    });
  };
  EXPECT_EQ(runs_balanced(), status::success);
  op.set_deterministic(true);
  EXPECT_EQ(runs_balanced(), status::success);  // until the next setup
  op.setup(dm.A, 0, stream.get());
  EXPECT_EQ(runs_balanced(), status::unsupported);
  op.set_deterministic(false);
  op.setup(dm.A, 0, stream.get());
  EXPECT_EQ(runs_balanced(), status::success);
}

// auto over a density sweep on larger matrices, dense and sparse y, N and T: right results,
// and the picks it made (printed).
TYPED_TEST(SpmspvOperatorGpu, AutoOverDensitySweep) {
  HOLA_TYPES;
  TestStream stream(TestStream::non_blocking);
  const std::pair<std::string, gen::Csr64> mats[] = {{"rmat_s14", gen::rmat(14, 16, 3)},
                                                     {"poisson3d_40", gen::poisson3d(40, 40, 40)}};
  for (const auto& [name, m64] : mats) {
    DeviceCsr<V, I, O> dm(m64.template convert<V, I, O>());
    SpmspvOperator<V, I, O> op;
    op.setup(dm.A, 0, stream.get());
    std::map<std::string, int> picks;
    for (Op o : {Op::N, Op::T}) {
      const std::int64_t n_in = o == Op::N ? dm.A.cols : dm.A.rows;
      const std::int64_t n_out = o == Op::N ? dm.A.rows : dm.A.cols;
      for (double density : {1e-4, 1e-3, 1e-2, 0.1, 0.3, 1.0})
        for (int form : {0, 1}) {
          DeviceVector<V, I> dv(n_in, density, 17);
          DeviceOutput<V, I> dy(n_out, form);
          op.apply(o, Semiring::plus_times, dv.device(VectorFormat::sorted), dy.y, {},
                   stream.get());
          ++picks[op.last_kernel()];
          const auto p = host_problem(dm.host, o, Semiring::plus_times,
                                      dv.hv.view(VectorFormat::sorted), Mask{});
          EXPECT_EQ(compare_with_reference(p, dy.host()), "")
              << name << " op " << op_name(o) << " density " << density << " form " << form << ": "
              << op.last_reason();
          EXPECT_FALSE(op.last_reason().empty());
        }
    }
    std::string seen;
    for (const auto& [k, n] : picks) seen += " " + k + " x" + std::to_string(n);
    std::printf("%s (densify N %.4f ms, T %.4f ms): auto picked%s\n", name.c_str(),
                op.densify_ms(Op::N), op.densify_ms(Op::T), seen.c_str());
  }
}

// The calibration at setup (SpmspvOptions::calibrate, on by default): every candidate timed at
// each probe size of both ops and output forms; auto right whatever it picks, from the
// calibration for unmasked calls and from the trees for masked ones or with calibrate off; the
// densify times given in the options kept, with and without calibration.
TYPED_TEST(SpmspvOperatorGpu, CalibratedAuto) {
  HOLA_TYPES;
  TestStream stream(TestStream::non_blocking);
  DeviceCsr<V, I, O> dm(gen::rmat(13, 16, 5).template convert<V, I, O>());
  SpmspvOperator<V, I, O> op;
  ASSERT_TRUE(op.options().calibrate);
  op.setup(dm.A, 0, stream.get());
  for (Op o : {Op::N, Op::T})
    for (OutputFormat form : {OutputFormat::dense, OutputFormat::sparse}) {
      const GpuCalibration c = op.calibration(o, form);
      const auto sizes = calibration_probe_sizes(o == Op::N ? dm.A.cols : dm.A.rows);
      ASSERT_EQ(c.probes, static_cast<int>(sizes.size()));
      for (int p = 0; p < c.probes; ++p) {
        EXPECT_EQ(c.nnz_x[p], sizes[p]);
        EXPECT_GT(c.ms[p][4], 0.0) << "densify at probe " << p;
      }
      for (int k = 0; k < 4; ++k) EXPECT_GT(c.ms[0][k], 0.0) << "kernel " << k;
    }
  DeviceMask mask(dm.A.rows);  // square: the same length for both ops
  std::map<std::string, int> picks;
  for (Op o : {Op::N, Op::T}) {
    const std::int64_t n_in = o == Op::N ? dm.A.cols : dm.A.rows;
    const std::int64_t n_out = o == Op::N ? dm.A.rows : dm.A.cols;
    for (double density : {0.0, 1e-4, 1e-3, 1e-2, 0.1, 0.5, 1.0})
      for (int form : {0, 1, 2})
        for (int mk : {0, 1}) {
          DeviceVector<V, I> dv(n_in, density, 23);
          DeviceOutput<V, I> dy(n_out, form);
          const Semiring s = form == 2 ? Semiring::min_second : Semiring::plus_times;
          op.apply(o, s, dv.device(VectorFormat::sorted), dy.y, mask.get(mk, false), stream.get());
          ++picks[op.last_kernel()];
          const auto p =
              host_problem(dm.host, o, s, dv.hv.view(VectorFormat::sorted), mask.get(mk, true));
          const std::string why = op.last_reason();
          EXPECT_EQ(compare_with_reference(p, dy.host()), "")
              << op_name(o) << " density " << density << " form " << form << " mask " << mk << ": "
              << why;
          EXPECT_EQ(why.find("calibrated at setup") != std::string::npos, mk == 0) << why;
          if (s != Semiring::plus_times) EXPECT_STRNE(op.last_kernel(), "densify");
        }
  }
  std::string seen;
  for (const auto& [k, n] : picks) seen += " " + k + " x" + std::to_string(n);
  std::printf("rmat_s13 calibrated: auto picked%s\n", seen.c_str());
  // Calibration off at apply: the trees.
  op.set_calibrate(false);
  {
    DeviceVector<V, I> dv(dm.A.cols, 1e-3, 29);
    DeviceOutput<V, I> dy(dm.A.rows, 0);
    op.apply(Op::N, Semiring::plus_times, dv.device(VectorFormat::sorted), dy.y, {}, stream.get());
    EXPECT_EQ(op.last_reason().find("calibrated"), std::string::npos) << op.last_reason();
  }
  // Densify times given: kept, with calibration off (no calibration) and on.
  for (bool calibrate : {false, true}) {
    SpmspvOptions opt;
    opt.calibrate = calibrate;
    opt.densify_ms_n = 0.5;
    opt.densify_ms_t = 0.25;
    SpmspvOperator<V, I, O> fixed(opt);
    fixed.setup(dm.A, 0, stream.get());
    EXPECT_EQ(fixed.densify_ms(Op::N), 0.5);
    EXPECT_EQ(fixed.densify_ms(Op::T), 0.25);
    EXPECT_EQ(fixed.calibration(Op::T, OutputFormat::sparse).probes > 0, calibrate);
    for (Op o : {Op::N, Op::T})
      for (double density : {1e-3, 0.3}) {
        DeviceVector<V, I> dv(dm.A.rows, density, 31);
        DeviceOutput<V, I> dy(dm.A.rows, 1);
        fixed.apply(o, Semiring::plus_times, dv.device(VectorFormat::sorted), dy.y, {},
                    stream.get());
        const auto p = host_problem(dm.host, o, Semiring::plus_times,
                                    dv.hv.view(VectorFormat::sorted), Mask{});
        EXPECT_EQ(compare_with_reference(p, dy.host()), "") << fixed.last_reason();
        const std::string why = fixed.last_reason();
        EXPECT_EQ(why.find("calibrated at setup") != std::string::npos, calibrate) << why;
        if (!calibrate)
          EXPECT_NE(why.find(o == Op::N ? "densify 0.5 ms" : "densify 0.25 ms"), std::string::npos)
              << why;
      }
  }
}

// The symmetric option (A serves as A^T) and no column view (op N's vector kernels refused,
// auto never picks them; a sparse y of densify with op T found from A's rows).
TYPED_TEST(SpmspvOperatorGpu, StructureOptions) {
  HOLA_TYPES;
  TestStream stream(TestStream::non_blocking);
  {
    DeviceCsr<V, I, O> dm(gen::poisson2d(20, 17).template convert<V, I, O>());
    SpmspvOptions opt;
    opt.symmetric = true;
    SpmspvOperator<V, I, O> op(opt);
    op.setup(dm.A, 0, stream.get());
    EXPECT_EQ(op.column_view_bytes(), 0u);
    for (const char* kernel : kOperatorKernels)
      for (Op o : {Op::N, Op::T}) {
        DeviceVector<V, I> dv(dm.A.rows, 0.1, 5);
        DeviceOutput<V, I> dy(dm.A.rows, 1);
        op.set_kernel(kernel);
        op.apply(o, Semiring::plus_times, dv.device(VectorFormat::unsorted), dy.y, {},
                 stream.get());
        const auto p = host_problem(dm.host, o, Semiring::plus_times,
                                    dv.hv.view(VectorFormat::unsorted), Mask{});
        EXPECT_EQ(compare_with_reference(p, dy.host()), "") << kernel << " " << op_name(o);
      }
  }
  DeviceCsr<V, I, O> dm(gen::random_rect(60, 150, 5, 8).template convert<V, I, O>());
  SpmspvOptions opt;
  opt.column_view = false;
  SpmspvOperator<V, I, O> op(opt);
  op.setup(dm.A, 0, stream.get());
  EXPECT_EQ(op.column_view_bytes(), 0u);
  DeviceMask mask(150);
  for (const char* kernel : kOperatorKernels)
    for (Op o : {Op::N, Op::T})
      for (int mk = 0; mk < 3; ++mk) {
        const std::int64_t n_in = o == Op::N ? 150 : 60, n_out = o == Op::N ? 60 : 150;
        if (mk > 0 && o == Op::N) continue;  // the mask is sized for op T's y
        DeviceVector<V, I> dv(n_in, 0.2, 9);
        DeviceOutput<V, I> dy(n_out, 1);
        op.set_kernel(kernel);
        const std::string k = kernel;
        const bool needs_view =
            (o == Op::N && k.rfind("vector", 0) == 0) || (o == Op::T && k.rfind("matrix", 0) == 0);
        const auto call = [&] {
          op.apply(o, Semiring::plus_times, dv.device(VectorFormat::bitmap), dy.y,
                   mask.get(mk, false), stream.get());
        };
        if (needs_view) {
          EXPECT_EQ(status_of(call), status::unsupported) << k << " " << op_name(o);
          continue;
        }
        call();
        const std::string ran = op.last_kernel();
        EXPECT_FALSE((o == Op::N && ran.rfind("vector", 0) == 0) ||
                     (o == Op::T && ran.rfind("matrix", 0) == 0))
            << ran;
        const auto p = host_problem(dm.host, o, Semiring::plus_times,
                                    dv.hv.view(VectorFormat::bitmap), mask.get(mk, true));
        EXPECT_EQ(compare_with_reference(p, dy.host()), "") << k << " " << op_name(o) << " " << mk;
      }
}

// Bad input: the right status, y (dense and sparse) unchanged, and the next good call right
// (the workspace is left clean by a failure).
TYPED_TEST(SpmspvOperatorGpu, BadInputLeavesYUnchanged) {
  HOLA_TYPES;
  TestStream stream(TestStream::non_blocking);
  DeviceCsr<V, I, O> dm(gen::random_rect(40, 50, 4, 31).template convert<V, I, O>());
  SpmspvOperator<V, I, O> op;
  op.setup(dm.A, 0, stream.get());
  const TestVector<V, I> hv(50, 0.3, 3);
  DM::Array<V> d_val(with_one(hv.sorted_val)), d_dense(with_one(hv.dense_val));
  DM::Array<I> d_good(with_one(hv.sorted_idx));
  struct Case {
    std::string what;
    std::vector<I> idx;
    VectorFormat f;
  };
  std::vector<Case> cases;
  auto out_of_range = hv.sorted_idx;
  out_of_range.back() = I(50);
  cases.push_back({"index == size", out_of_range, VectorFormat::sorted});
  auto neg = hv.unsorted_idx;
  neg[2] = I(-3);
  cases.push_back({"negative", neg, VectorFormat::unsorted});
  auto dup = hv.unsorted_idx;
  dup[5] = dup[1];
  cases.push_back({"duplicate", dup, VectorFormat::unsorted});
  auto unordered = hv.sorted_idx;
  std::swap(unordered[1], unordered[4]);
  cases.push_back({"unsorted in sorted", unordered, VectorFormat::sorted});
  const std::vector<V> sentinel(50, V(-7));
  const std::vector<I> sentinel_idx(50, I(-9));
  DM::Array<V> d_y(sentinel);
  DM::Array<I> d_yi(sentinel_idx);
  auto unchanged = [&](const std::string& what) {
    DM::sync();
    EXPECT_EQ(d_y.download(), sentinel) << what << ": y changed";
    EXPECT_EQ(d_yi.download(), sentinel_idx) << what << ": y's indices changed";
  };
  auto output = [&](int form) {
    Output<V, I> y;
    y.size = 40;
    y.format = form == 0 ? OutputFormat::dense : OutputFormat::sparse;
    y.dense = form == 0 ? d_y.get() : nullptr;
    y.values = form == 0 ? nullptr : d_y.get();
    y.indices = form == 0 ? nullptr : d_yi.get();
    y.capacity = form == 0 ? 0 : 40;
    return y;
  };
  auto good_x = [&] {
    SparseVectorView<V, I> x;
    x.size = 50;
    x.nnz = hv.nnz();
    x.format = VectorFormat::sorted;
    x.indices = d_good.get();
    x.values = d_val.get();
    x.memory = Memory::device;
    return x;
  };
  for (const char* kernel : kOperatorKernels) {
    op.set_kernel(kernel);
    const std::string k = kernel;
    for (int form : {0, 1}) {
      const std::string where = k + " form " + std::to_string(form);
      for (const auto& c : cases) {
        DM::Array<I> d_idx(c.idx);
        SparseVectorView<V, I> x = good_x();
        x.format = c.f;
        x.indices = d_idx.get();
        Output<V, I> y = output(form);
        EXPECT_EQ(status_of([&] { op.apply(Op::N, Semiring::plus_times, x, y, {}, stream.get()); }),
                  status::invalid_argument)
            << c.what << " " << where;
        unchanged(c.what + " " + where);
      }
      // Bitmap: nnz disagreeing with the bits; a bit set past the size.
      {
        SparseVectorView<V, I> x;
        x.size = 50;
        x.nnz = hv.nnz() + 1;
        x.format = VectorFormat::bitmap;
        DM::Array<std::uint32_t> bits(hv.bits);
        x.bits = bits.get();
        x.values = d_dense.get();
        x.memory = Memory::device;
        Output<V, I> y = output(form);
        EXPECT_EQ(status_of([&] { op.apply(Op::N, Semiring::plus_times, x, y, {}, stream.get()); }),
                  status::invalid_argument)
            << "bitmap count " << where;
        unchanged("bitmap count " + where);
        auto tail = hv.bits;
        tail.back() |= 1u << 31;  // bit 63 of a 50-entry vector
        DM::Array<std::uint32_t> tail_bits(tail);
        x.bits = tail_bits.get();
        x.nnz = hv.nnz() + 1;
        EXPECT_EQ(status_of([&] { op.apply(Op::N, Semiring::plus_times, x, y, {}, stream.get()); }),
                  status::invalid_argument)
            << "bitmap tail " << where;
        unchanged("bitmap tail " + where);
      }
      // Sizes.
      {
        SparseVectorView<V, I> x = good_x();
        x.size = 49;
        Output<V, I> y = output(form);
        EXPECT_EQ(status_of([&] { op.apply(Op::N, Semiring::plus_times, x, y, {}, stream.get()); }),
                  status::size_mismatch)
            << where;
        x.size = 50;
        y.size = 41;
        EXPECT_EQ(status_of([&] { op.apply(Op::N, Semiring::plus_times, x, y, {}, stream.get()); }),
                  status::size_mismatch)
            << where;
        y.size = 40;
        DeviceMask mask(39);
        EXPECT_EQ(status_of([&] {
                    op.apply(Op::N, Semiring::plus_times, x, y, mask.get(1, false), stream.get());
                  }),
                  status::size_mismatch)
            << where;
        unchanged("sizes " + where);
      }
      // Host memory passed as device memory; x marked as host memory.
      {
        SparseVectorView<V, I> x = good_x();
        x.values = hv.sorted_val.data();
        Output<V, I> y = output(form);
        EXPECT_EQ(status_of([&] { op.apply(Op::N, Semiring::plus_times, x, y, {}, stream.get()); }),
                  status::invalid_argument)
            << "host x " << where;
        x = good_x();
        x.memory = Memory::host;
        EXPECT_EQ(status_of([&] { op.apply(Op::N, Semiring::plus_times, x, y, {}, stream.get()); }),
                  status::invalid_argument)
            << "x marked host " << where;
        unchanged("host memory " + where);
      }
      // y overlapping x.
      {
        SparseVectorView<V, I> x = good_x();
        DM::Array<V> shared(60);
        x.values = shared.get();
        Output<V, I> y = output(form);
        if (form == 0)
          y.dense = shared.get() + 2;
        else
          y.values = shared.get() + 2;
        EXPECT_EQ(status_of([&] { op.apply(Op::N, Semiring::plus_times, x, y, {}, stream.get()); }),
                  status::aliasing)
            << where;
      }
    }
    // A sparse y without room for the result: nothing written.
    {
      Output<V, I> y = output(1);
      y.capacity = 1;
      EXPECT_EQ(
          status_of([&] { op.apply(Op::N, Semiring::plus_times, good_x(), y, {}, stream.get()); }),
          status::invalid_argument)
          << k << " capacity";
      unchanged(k + " capacity");
    }
    // The next good call is right (flags and accumulator left clean by the failures).
    for (int form : {0, 1}) {
      DeviceOutput<V, I> dy(40, form);
      op.apply(Op::N, Semiring::plus_times, good_x(), dy.y, {}, stream.get());
      const auto p =
          host_problem(dm.host, Op::N, Semiring::plus_times, hv.view(VectorFormat::sorted), Mask{});
      EXPECT_EQ(compare_with_reference(p, dy.host()), "") << k << " after errors, form " << form;
    }
  }
}

// Many applies on one operator (kernels, ops, semirings, forms in turn), then new values for
// the same structure: a refresh (the device column view gathers them again).
TYPED_TEST(SpmspvOperatorGpu, RepeatedAppliesAndValueRefresh) {
  HOLA_TYPES;
  TestStream stream(TestStream::non_blocking);
  DeviceCsr<V, I, O> dm(gen::rmat(10, 8, 21).template convert<V, I, O>());
  SpmspvOperator<V, I, O> op;
  op.setup(dm.A, 1, stream.get());
  const std::int64_t n = dm.A.rows;
  DeviceVector<V, I> dv(n, 0.05, 77);
  std::vector<std::unique_ptr<DM::Array<V>>> values;  // alive while the operator reads them
  for (int round = 0; round < 3; ++round) {
    for (int call = 0; call < 48; ++call) {
      const char* kernel = kOperatorKernels[call % 6];
      const Op o = (call / 6) % 2 ? Op::T : Op::N;
      const bool densify = std::string(kernel) == "densify";
      const Semiring s = densify ? Semiring::plus_times : kSemirings[(call / 12) % 4];
      const int form = call % 3;
      DeviceOutput<V, I> dy(n, form);
      op.set_kernel(kernel);
      op.apply(o, s, dv.device(VectorFormat::sorted), dy.y, {}, stream.get());
      const auto p = host_problem(dm.host, o, s, dv.hv.view(VectorFormat::sorted), Mask{});
      EXPECT_EQ(compare_with_reference(p, dy.host()), "")
          << "round " << round << " call " << call << " " << kernel << " " << op_name(o);
    }
    if (round == 2) break;
    // New values in another array, same structure and version: values refreshed only (the
    // device column view gathers them again, the kernels read the new array).
    for (auto& v : dm.host.values) v = V(2) * v - V(0.25);
    values.push_back(std::make_unique<DM::Array<V>>(with_one(dm.host.values)));
    CsrView<V, I, O> A = dm.A;
    A.values = values.back()->get();
    op.setup(A, 1, stream.get());
  }
}

// The case of a failure in a benchmark sweep (densify, a wide random matrix of 131 072 x
// 1 048 576, op N, sparse y, x at density 0.1, on a non-blocking stream: once, the last entry of y
// held 0; traced to cuSPARSE's ALG1 as densify's SpMV): every candidate and auto, many times
// over, each call checked with y poisoned, dense and sparse y.
TEST(SpmspvOperatorGpuWide, RepeatedCallsDouble) {
  using V = double;
  using I = std::int32_t;
  using O = std::int32_t;
  TestStream stream(TestStream::non_blocking);
  DeviceCsr<V, I, O> dm(gen::random_rect(1 << 17, 1 << 20, 16, 1).template convert<V, I, O>());
  SpmspvOperator<V, I, O> op;
  op.setup(dm.A, 0, stream.get());
  int failures = 0;
  for (double density : {0.1, 0.01}) {
    DeviceVector<V, I> dv(dm.A.cols, density, 91);
    const auto p =
        host_problem(dm.host, Op::N, Semiring::plus_times, dv.hv.view(VectorFormat::sorted), {});
    const ReferenceResult<V, I, O> reference(p);
    for (const char* kernel : {"densify", "auto", "matrix_balanced", "densify"})
      for (int form : {1, 0})
        for (int call = 0; call < 12 && failures < 5; ++call) {
          DeviceOutput<V, I> dy(dm.A.rows, form);
          op.set_kernel(kernel);
          op.apply(Op::N, Semiring::plus_times, dv.device(VectorFormat::sorted), dy.y, {},
                   stream.get());
          const std::string diff = reference.compare(dy.host());
          failures += diff.empty() ? 0 : 1;
          EXPECT_EQ(diff, "") << kernel << " ran " << op.last_kernel() << ", density " << density
                              << ", form " << form << ", call " << call << "\n"
                              << op.last_reason();
        }
  }
}

// SpMSpV's densify on the wide matrix of the densify failure (131 072 x 1 048 576, 16 entries
// per row), x at density 0.1, sparse y: how many of `calls` products are wrong, behind a given
// dense SpMV kernel, on a blocking or non-blocking stream, with or without the column view.
struct WideDensify {
  using V = double;
  using I = std::int32_t;
  using O = std::int32_t;
  DeviceCsr<V, I, O> dm{gen::random_rect(1 << 17, 1 << 20, 16, 1).template convert<V, I, O>()};
  DeviceVector<V, I> dv{dm.A.cols, 0.1, 91};
  ReferenceResult<V, I, O> reference{
      host_problem(dm.host, Op::N, Semiring::plus_times, dv.hv.view(VectorFormat::sorted), {})};

  int wrong_calls(const char* dense, TestStream::Kind kind, bool column_view, int calls) {
    TestStream stream(kind);
    SpmspvOptions options;
    options.kernel = "densify";
    options.dense.kernel = dense;
    options.column_view = column_view;
    options.calibrate = false;
    options.densify_ms_n = options.densify_ms_t = 1.0;
    SpmspvOperator<V, I, O> op(options);
    op.setup(dm.A, 0, stream.get());
    int failures = 0;
    for (int call = 0; call < calls; ++call) {
      DeviceOutput<V, I> dy(dm.A.rows, 1);
      op.apply(Op::N, Semiring::plus_times, dv.device(VectorFormat::sorted), dy.y, {},
               stream.get());
      const std::string diff = reference.compare(dy.host());
      if (!diff.empty() && failures++ == 0)
        ADD_FAILURE() << "dense " << dense << ", call " << call << ": " << diff;
    }
    return failures;
  }
};

// Behind each dense SpMV kernel but cuSPARSE's ALG1 (about one call in 100 to 300 wrong there;
// the operator's auto runs the vendor pick as ALG2).
TEST(SpmspvOperatorGpuWide, DensifyOverEveryDenseKernel) {
  WideDensify w;
  for (const char* dense : {"scalar", "hola", "vector-adaptive", "cusparse-alg2", "auto"})
    EXPECT_EQ(w.wrong_calls(dense, TestStream::non_blocking, true, 80), 0) << "dense " << dense;
}

// Behind auto's pick, 300 calls on a blocking stream with the column view and on a non-blocking
// one without.
TEST(SpmspvOperatorGpuWide, DensifyAutoStreamKinds) {
  WideDensify w;
  for (auto kind : {TestStream::blocking, TestStream::non_blocking}) {
    const int wrong = w.wrong_calls("auto", kind, kind == TestStream::blocking, 300);
    std::printf("densify over auto's dense SpMV, %s stream: %d of 300 calls wrong\n",
                kind == TestStream::blocking ? "blocking" : "non-blocking", wrong);
    EXPECT_EQ(wrong, 0);
  }
}

// OperatorOptions::auto_vendor_kernel, which densify above sets to ALG2: auto's cuSPARSE pick
// and the race's cuSPARSE entrant run under that name, anything else is unchanged, and the
// product equals a Hola kernel's. On the wide matrix, where auto's trees pick cuSPARSE.
TEST(SpmspvOperatorGpuWide, AutoVendorKernelRenamesTheCusparsePick) {
  WideDensify w;
  using V = WideDensify::V;
  using I = WideDensify::I;
  using O = WideDensify::O;
  const CsrView<V, I, O>& A = w.dm.A;
  std::vector<V> xh(static_cast<std::size_t>(A.cols));
  for (std::size_t i = 0; i < xh.size(); ++i) xh[i] = V(1) + V(i % 7) / V(8);
  DeviceMemory::Array<V> x(xh), y(static_cast<std::size_t>(A.rows));
  auto product = [&](const OperatorOptions& o, std::string& name, std::string& why) {
    Operator<V, I, O> op(o);
    op.setup(A);
    op.apply(Op::N, V(1), ConstVec<V>{x.get(), A.cols}, V(0), ConstVec<V>{},
             Vec<V>{y.get(), A.rows});
    DeviceMemory::sync();
    name = op.kernel_name(Op::N);
    why = op.selection_reason();
    return y.download();
  };
  OperatorOptions plain, alg2, raced, scalar;
  alg2.auto_vendor_kernel = raced.auto_vendor_kernel = "cusparse-alg2";
  raced.auto_trial = true;
  scalar.kernel = "scalar";
  std::string n_plain, n_alg2, n_raced, n_scalar, why;
  product(plain, n_plain, why);
  const std::vector<V> got = product(alg2, n_alg2, why);
  std::printf("auto picks %s; with auto_vendor_kernel = cusparse-alg2: %s (%s)\n", n_plain.c_str(),
              n_alg2.c_str(), why.c_str());
  EXPECT_EQ(n_alg2, n_plain == "cusparse" ? std::string("cusparse-alg2") : n_plain);
  product(raced, n_raced, why);
  EXPECT_NE(n_raced, "cusparse") << why;
  // The race's entrants: ALG2 in place of ALG1.
  const std::string timed = "op N timed at setup (us per apply):";
  const std::size_t at = why.find(timed);
  ASSERT_NE(at, std::string::npos) << why;
  const std::string entrants =
      why.substr(at + timed.size(), why.find(" -> ", at) - at - timed.size());
  EXPECT_NE(entrants.find(" cusparse-alg2 "), std::string::npos) << why;
  EXPECT_EQ(entrants.find(" cusparse "), std::string::npos) << why;
  const std::vector<V> want = product(scalar, n_scalar, why);
  for (std::size_t i = 0; i < want.size(); ++i)
    ASSERT_NEAR(got[i], want[i], 1e-12 * (std::fabs(want[i]) + 1)) << "row " << i;
  OperatorOptions bad;
  bad.auto_vendor_kernel = "scalar";
  using WideOperator = Operator<V, I, O>;
  EXPECT_THROW(WideOperator{bad}, error);
}

// The device column view: the same arrays as the host one (entries of a column in row order).
TYPED_TEST(SpmspvOperatorGpu, DeviceColumnViewMatchesHost) {
  HOLA_TYPES;
  TestStream stream(TestStream::non_blocking);
  for (const auto& [name, m64] : spmspv_families(SpmspvExtraFamily::rmat_large)) {
    DeviceCsr<V, I, O> dm(m64.template convert<V, I, O>());
    ColumnView<V, I, O> host;
    host.build(dm.host.view());
    gpu::DeviceColumnView<V, I, O> dev;
    dev.build(dm.A, stream.get());
    const CsrView<V, I, O> t = dev.view();
    ASSERT_EQ(t.rows, dm.A.cols) << name;
    ASSERT_EQ(t.cols, dm.A.rows) << name;
    ASSERT_EQ(t.nnz, dm.A.nnz) << name;
    std::vector<O> col_ptr(static_cast<std::size_t>(t.rows + 1));
    std::vector<I> row_idx(static_cast<std::size_t>(t.nnz));
    std::vector<V> values(static_cast<std::size_t>(t.nnz));
    HOLA_TEST_CUDA(
        cudaMemcpy(col_ptr.data(), t.row_ptr, col_ptr.size() * sizeof(O), cudaMemcpyDeviceToHost));
    if (t.nnz > 0) {
      HOLA_TEST_CUDA(cudaMemcpy(row_idx.data(), t.col_idx, row_idx.size() * sizeof(I),
                                cudaMemcpyDeviceToHost));
      HOLA_TEST_CUDA(
          cudaMemcpy(values.data(), t.values, values.size() * sizeof(V), cudaMemcpyDeviceToHost));
    }
    EXPECT_EQ(col_ptr, host.col_ptr) << name;
    EXPECT_EQ(row_idx, host.row_idx) << name;
    EXPECT_EQ(values, host.values) << name;
    if (t.nnz > 0) EXPECT_EQ(dev.bytes(), host.bytes()) << name;
  }
}

// An apply with a dense y and no vector validation queues its work on the caller's stream and
// nothing else: captured into a CUDA graph (which fails on an allocation, a synchronisation or
// work on another stream), for every kernel and auto.
TYPED_TEST(SpmspvOperatorGpu, ApplyCapturesIntoAGraph) {
  HOLA_TYPES;
  TestStream stream(TestStream::non_blocking);
  DeviceCsr<V, I, O> dm(gen::rmat(11, 8, 4).template convert<V, I, O>());
  SpmspvOptions opt;
  opt.validate_vectors = false;
  SpmspvOperator<V, I, O> op(opt);
  op.setup(dm.A, 0, stream.get());
  const std::int64_t n = dm.A.rows;
  for (double density : {0.001, 0.5})
    for (const char* kernel : kOperatorKernels)
      for (Op o : {Op::N, Op::T}) {
        DeviceVector<V, I> dv(n, density, 8);
        DeviceOutput<V, I> dy(n, 0);
        DeviceMask mask(n);
        op.set_kernel(kernel);
        run_captured(stream.get(), [&] {
          op.apply(o, Semiring::plus_times, dv.device(VectorFormat::unsorted), dy.y,
                   mask.get(1, false), stream.get());
        });
        const auto p = host_problem(dm.host, o, Semiring::plus_times,
                                    dv.hv.view(VectorFormat::unsorted), mask.get(1, true));
        EXPECT_EQ(compare_with_reference(p, dy.host()), "") << kernel << " " << op_name(o);
      }
}

// The C API on device memory: setup with HOLA_MEMORY_DEVICE, dense and sparse y, every kernel
// name, errors with nothing written.
TEST(SpmspvGpuCApi, DeviceMemory) {
  using V = double;
  using I = std::int32_t;
  using O = std::int64_t;
  TestStream stream(TestStream::non_blocking);
  DeviceCsr<V, I, O> dm(gen::random_rect(70, 90, 6, 12).template convert<V, I, O>());
  hola_spmspv op = nullptr;
  ASSERT_EQ(hola_spmspv_create(&op, HOLA_FLOAT64, HOLA_INT32, HOLA_INT64, nullptr, 0),
            HOLA_SUCCESS);
  ASSERT_EQ(
      hola_spmspv_setup_on_stream(op, dm.A.rows, dm.A.cols, dm.A.nnz, dm.A.row_ptr, dm.A.col_idx,
                                  dm.A.values, HOLA_MEMORY_DEVICE, 0, stream.get()),
      HOLA_SUCCESS)
      << hola_spmspv_last_error();
  DeviceVector<V, I> dv(90, 0.2, 4);
  const SparseVectorView<V, I> xs = dv.device(VectorFormat::sorted);
  hola_sparse_vector x{90, xs.nnz, HOLA_SPVEC_SORTED, xs.indices, xs.values, nullptr};
  for (int form : {0, 1}) {
    DeviceOutput<V, I> dy(70, form);
    hola_spmspv_output y{};
    y.dense = form == 0;
    y.size = 70;
    y.dense_values = dy.y.dense;
    y.indices = dy.y.indices;
    y.values = dy.y.values;
    y.capacity = dy.y.capacity;
    y.want_sorted = 1;
    ASSERT_EQ(hola_spmspv_apply_on_stream(op, HOLA_OP_N, HOLA_SEMIRING_PLUS_TIMES, &x, nullptr, &y,
                                          stream.get()),
              HOLA_SUCCESS)
        << hola_spmspv_last_error();
    dy.y.nnz = y.nnz;
    dy.y.sorted = y.sorted != 0;
    const auto p = host_problem(dm.host, Op::N, Semiring::plus_times,
                                dv.hv.view(VectorFormat::sorted), Mask{});
    EXPECT_EQ(compare_with_reference(p, dy.host()), "") << form;
    const char* name = nullptr;
    ASSERT_EQ(hola_spmspv_last_kernel(op, &name), HOLA_SUCCESS);
    EXPECT_TRUE(find_if(spmspv::candidates().begin(), spmspv::candidates().end(),
                        [&](auto& c) {
                          return std::string(c.name) == name && c.memory == Memory::device;
                        }) != spmspv::candidates().end())
        << name;
  }
  // Errors: an index out of range, host memory as x, a host kernel name on a device matrix;
  // y untouched.
  DeviceOutput<V, I> dy(70, 0);
  hola_spmspv_output y{};
  y.dense = 1;
  y.size = 70;
  y.dense_values = dy.y.dense;
  std::vector<I> bad = dv.hv.sorted_idx;
  bad.back() = 90;
  DM::Array<I> d_bad(with_one(bad));
  hola_sparse_vector xb = x;
  xb.indices = d_bad.get();
  EXPECT_EQ(hola_spmspv_apply_on_stream(op, HOLA_OP_N, HOLA_SEMIRING_PLUS_TIMES, &xb, nullptr, &y,
                                        stream.get()),
            HOLA_INVALID_ARGUMENT);
  EXPECT_NE(std::string(hola_spmspv_last_error()).find("outside"), std::string::npos)
      << hola_spmspv_last_error();
  hola_sparse_vector xh = x;
  xh.values = dv.hv.sorted_val.data();
  EXPECT_EQ(hola_spmspv_apply_on_stream(op, HOLA_OP_N, HOLA_SEMIRING_PLUS_TIMES, &xh, nullptr, &y,
                                        stream.get()),
            HOLA_INVALID_ARGUMENT);
  EXPECT_NE(std::string(hola_spmspv_last_error()).find("device memory"), std::string::npos)
      << hola_spmspv_last_error();
  const auto untouched = dy.vals.download();
  EXPECT_TRUE(std::all_of(untouched.begin(), untouched.end(), [](V v) { return std::isnan(v); }));
  EXPECT_EQ(hola_spmspv_set_validate_vectors(op, 0), HOLA_SUCCESS);
  EXPECT_EQ(hola_spmspv_destroy(op), HOLA_SUCCESS);
  hola_spmspv host_kernel = nullptr;
  ASSERT_EQ(
      hola_spmspv_create(&host_kernel, HOLA_FLOAT64, HOLA_INT32, HOLA_INT64, "vector_driven", 0),
      HOLA_SUCCESS);
  EXPECT_EQ(
      hola_spmspv_setup_on_stream(host_kernel, dm.A.rows, dm.A.cols, dm.A.nnz, dm.A.row_ptr,
                                  dm.A.col_idx, dm.A.values, HOLA_MEMORY_DEVICE, 0, stream.get()),
      HOLA_UNSUPPORTED);
  EXPECT_EQ(hola_spmspv_destroy(host_kernel), HOLA_SUCCESS);
}

// ---------------------------------------------------------------------------------------------
// The C API's deterministic mode (hola_spmspv_set_deterministic) on device memory, through the
// C API only, against the host reference and the C++ path.

template <class V>
constexpr hola_value_type c_value_type() {
  return std::is_same_v<V, float> ? HOLA_FLOAT32 : HOLA_FLOAT64;
}
template <class T>
constexpr hola_index_type c_index_type() {
  static_assert(sizeof(T) == 4 || sizeof(T) == 8);
  return sizeof(T) == 4 ? HOLA_INT32 : HOLA_INT64;
}
hola_spvec_format c_format(VectorFormat f) {
  return f == VectorFormat::sorted     ? HOLA_SPVEC_SORTED
         : f == VectorFormat::unsorted ? HOLA_SPVEC_UNSORTED
                                       : HOLA_SPVEC_BITMAP;
}
hola_semiring c_semiring(Semiring s) {
  return s == Semiring::plus_times  ? HOLA_SEMIRING_PLUS_TIMES
         : s == Semiring::or_and    ? HOLA_SEMIRING_OR_AND
         : s == Semiring::min_first ? HOLA_SEMIRING_MIN_FIRST
                                    : HOLA_SEMIRING_MIN_SECOND;
}
template <class V, class I>
hola_sparse_vector c_vector(const SparseVectorView<V, I>& x) {
  return {x.size, x.nnz, c_format(x.format), x.indices, x.values, x.bits};
}

// A hola_spmspv of the types V, I, O (destroyed with it), applied into a DeviceOutput.
template <class V, class I, class O>
struct CSpmspv {
  hola_spmspv op = nullptr;
  hola_status created;
  explicit CSpmspv(const char* kernel)
      : created(hola_spmspv_create(&op, c_value_type<V>(), c_index_type<I>(), c_index_type<O>(),
                                   kernel, 0)) {}
  ~CSpmspv() { hola_spmspv_destroy(op); }
  CSpmspv(const CSpmspv&) = delete;
  CSpmspv& operator=(const CSpmspv&) = delete;
  hola_status setup(const DeviceCsr<V, I, O>& dm, cudaStream_t stream) {
    return hola_spmspv_setup_on_stream(op, dm.A.rows, dm.A.cols, dm.A.nnz, dm.A.row_ptr,
                                       dm.A.col_idx, dm.A.values, HOLA_MEMORY_DEVICE, 0, stream);
  }
  // y is dy.y as a hola_spmspv_output; on success its nnz and sorted go back to dy.y.
  hola_status apply(hola_op o, Semiring s, const hola_sparse_vector& x, const Mask& m,
                    DeviceOutput<V, I>& dy, cudaStream_t stream) {
    const hola_spmspv_mask mask{m.values, m.size, m.complement ? 1 : 0, m.allowed};
    hola_spmspv_output y{};
    y.dense = dy.y.format == OutputFormat::dense ? 1 : 0;
    y.size = dy.y.size;
    y.dense_values = dy.y.dense;
    y.indices = dy.y.indices;
    y.values = dy.y.values;
    y.capacity = dy.y.capacity;
    y.want_sorted = dy.y.want_sorted ? 1 : 0;
    const hola_status st = hola_spmspv_apply_on_stream(op, o, c_semiring(s), &x,
                                                       m.values ? &mask : nullptr, &y, stream);
    if (st == HOLA_SUCCESS) {
      dy.y.nnz = y.nnz;
      dy.y.sorted = y.sorted != 0;
    }
    return st;
  }
  hola_status apply(Op o, Semiring s, const SparseVectorView<V, I>& x, const Mask& m,
                    DeviceOutput<V, I>& dy, cudaStream_t stream) {
    return apply(o == Op::N ? HOLA_OP_N : HOLA_OP_T, s, c_vector(x), m, dy, stream);
  }
  std::string last_kernel() const {
    const char* name = nullptr;
    if (hola_spmspv_last_kernel(op, &name) != HOLA_SUCCESS || !name) return "(none)";
    return name;
  }
};

// "" when a and b (both downloaded by host()) hold the same bits (memcmp): every entry of a
// dense y; the nnz, the first nnz indices and values of a sparse one. Else the first difference.
template <class V, class I>
std::string bitwise_difference(const DeviceOutput<V, I>& a, const DeviceOutput<V, I>& b) {
  std::ostringstream msg;
  msg << std::hexfloat;
  const bool dense = a.y.format == OutputFormat::dense;
  if (!dense && a.y.nnz != b.y.nnz) {
    msg << "nnz " << a.y.nnz << " vs " << b.y.nnz;
    return msg.str();
  }
  const std::size_t n = dense ? a.host_vals.size() : static_cast<std::size_t>(a.y.nnz);
  if (a.host_vals.size() < n || b.host_vals.size() < n || b.host_vals.size() != a.host_vals.size())
    return "not downloaded or nnz past the arrays";
  if (!dense && std::memcmp(a.host_idx.data(), b.host_idx.data(), n * sizeof(I)) != 0)
    for (std::size_t q = 0; q < n; ++q)
      if (a.host_idx[q] != b.host_idx[q]) {
        msg << "index at " << q << ": " << a.host_idx[q] << " vs " << b.host_idx[q];
        return msg.str();
      }
  if (std::memcmp(a.host_vals.data(), b.host_vals.data(), n * sizeof(V)) != 0)
    for (std::size_t q = 0; q < n; ++q)
      if (std::memcmp(&a.host_vals[q], &b.host_vals[q], sizeof(V)) != 0) {
        msg << (dense ? "y[" : "value at [") << q << "]: " << a.host_vals[q] << " vs "
            << b.host_vals[q];
        return msg.str();
      }
  return "";
}

// "" when a sparse y (downloaded by host()) says it is sorted and its indices strictly increase.
template <class V, class I>
std::string unsorted_entries(const DeviceOutput<V, I>& a) {
  if (!a.y.sorted) return "y.sorted is 0";
  if (a.y.nnz < 0 || static_cast<std::size_t>(a.y.nnz) > a.host_idx.size())
    return "nnz " + std::to_string(a.y.nnz) + " past the arrays";
  for (std::int64_t q = 1; q < a.y.nnz; ++q)
    if (!(a.host_idx[static_cast<std::size_t>(q - 1)] < a.host_idx[static_cast<std::size_t>(q)]))
      return "indices not strictly increasing at " + std::to_string(q);
  return "";
}

// y as poisoned by DeviceOutput: values all NaN, indices all -1 (synchronises).
template <class V, class I>
bool still_poisoned(DeviceOutput<V, I>& dy) {
  dy.host();
  return std::all_of(dy.host_vals.begin(), dy.host_vals.end(), [](V v) { return std::isnan(v); }) &&
         std::all_of(dy.host_idx.begin(), dy.host_idx.end(), [](I i) { return i == I(-1); });
}

template <class T>
class SpmspvGpuCApiTyped : public ::testing::Test {};
TYPED_TEST_SUITE(SpmspvGpuCApiTyped, GpuTypes);

// Matrices of the C API's deterministic tests: R-MAT (hub rows and columns), an arrow (one full
// row and column), a 3D Poisson stencil, a rectangular random one.
std::vector<std::pair<std::string, gen::Csr64>> c_api_deterministic_matrices() {
  std::vector<std::pair<std::string, gen::Csr64>> m;
  m.emplace_back("rmat_s13", gen::rmat(13, 16, 5));
  m.emplace_back("arrow_2000", gen::arrow(2000));
  m.emplace_back("poisson3d_16", gen::poisson3d(16, 16, 16));
  m.emplace_back("random_rect_300x200", gen::random_rect(300, 200, 6, 17));
  return m;
}

// hola_spmspv_set_deterministic(op, 1) before setup, on operators of kernel auto (calibrated),
// matrix_direct and vector_balanced: ops N and T, x sorted, unsorted and bitmap at densities
// 0.004 to 1, dense y and sparse y asked sorted and unsorted, plus_times and the other semirings,
// with and without a mask (plain and complemented). Each call twice into a NaN-poisoned y: right
// against the host reference, the two calls bitwise equal, a sparse y sorted (flag and strictly
// increasing indices), the kernel that ran one of the two deterministic ones, and bitwise equal
// to the C++ SpmspvOperator in deterministic mode with matrix_direct forced (so auto and both
// forced kernels agree bitwise too).
TYPED_TEST(SpmspvGpuCApiTyped, DeterministicMode) {
  HOLA_TYPES;
  TestStream stream(TestStream::non_blocking);
  const char* const kernels[3] = {"auto", "matrix_direct", "vector_balanced"};
  struct Call {
    Semiring s;
    int mask;  // DeviceMask::get's kind
    int form;  // DeviceOutput's form
  };
  std::int64_t compared = 0, rotate = 0;
  for (const auto& [name, m64] : c_api_deterministic_matrices()) {
    DeviceCsr<V, I, O> dm(m64.template convert<V, I, O>());
    std::vector<std::unique_ptr<CSpmspv<V, I, O>>> ops;
    for (const char* kernel : kernels) {
      ops.push_back(std::make_unique<CSpmspv<V, I, O>>(kernel));
      CSpmspv<V, I, O>& c = *ops.back();
      ASSERT_EQ(c.created, HOLA_SUCCESS) << kernel << ": " << hola_spmspv_last_error();
      ASSERT_EQ(hola_spmspv_set_deterministic(c.op, 1), HOLA_SUCCESS) << hola_spmspv_last_error();
      if (std::string(kernel) != "auto")
        ASSERT_EQ(hola_spmspv_set_calibrate(c.op, 0), HOLA_SUCCESS) << hola_spmspv_last_error();
      ASSERT_EQ(c.setup(dm, stream.get()), HOLA_SUCCESS)
          << name << " " << kernel << ": " << hola_spmspv_last_error();
    }
    SpmspvOptions options;
    options.deterministic = true;
    options.kernel = "matrix_direct";
    options.calibrate = false;
    SpmspvOperator<V, I, O> cpp(options);
    cpp.setup(dm.A, 0, stream.get());
    for (Op o : {Op::N, Op::T}) {
      const std::int64_t n_in = o == Op::N ? dm.A.cols : dm.A.rows;
      const std::int64_t n_out = o == Op::N ? dm.A.rows : dm.A.cols;
      DeviceMask mask(n_out);
      for (double density : {0.004, 0.05, 0.5, 1.0}) {
        DeviceVector<V, I> dv(n_in, density, 1300 + static_cast<std::uint64_t>(compared));
        for (VectorFormat f :
             {VectorFormat::sorted, VectorFormat::unsorted, VectorFormat::bitmap}) {
          const Call calls[] = {{Semiring::plus_times, 1, 0},
                                {Semiring::plus_times, 0, 1},
                                {Semiring::plus_times, 1, 2},
                                {kSemirings[1 + rotate % 3], 2, 2},
                                {kSemirings[1 + (rotate + 1) % 3], 0, 0}};
          ++rotate;
          for (const Call& c : calls) {
            std::ostringstream where_s;
            where_s << name << " op " << op_name(o) << " density " << density << " "
                    << format_name(f) << " " << semiring_name(c.s) << " mask " << c.mask << " form "
                    << c.form;
            const std::string where = where_s.str();
            const ReferenceResult<V, I, O> reference(
                host_problem(dm.host, o, c.s, dv.hv.view(f), mask.get(c.mask, true)));
            DeviceOutput<V, I> anchor(n_out, c.form);
            cpp.apply(o, c.s, dv.device(f), anchor.y, mask.get(c.mask, false), stream.get());
            EXPECT_EQ(reference.compare(anchor.host()), "") << where << ": C++ path";
            for (int k = 0; k < 3; ++k) {
              DeviceOutput<V, I> first(n_out, c.form), second(n_out, c.form);
              DeviceOutput<V, I>* ys[2] = {&first, &second};
              for (int r = 0; r < 2; ++r) {
                DeviceOutput<V, I>& dy = *ys[r];
                ASSERT_EQ(
                    ops[k]->apply(o, c.s, dv.device(f), mask.get(c.mask, false), dy, stream.get()),
                    HOLA_SUCCESS)
                    << where << " " << kernels[k] << ": " << hola_spmspv_last_error();
                EXPECT_EQ(reference.compare(dy.host()), "")
                    << where << " " << kernels[k] << " call " << r;
                if (c.form != 0)
                  EXPECT_EQ(unsorted_entries(dy), "")
                      << where << " " << kernels[k] << " call " << r;
                const std::string ran = ops[k]->last_kernel();
                if (k == 0)
                  EXPECT_TRUE(ran == "matrix_direct" || ran == "vector_balanced")
                      << where << ": auto ran " << ran;
                else
                  EXPECT_EQ(ran, kernels[k]) << where;
              }
              EXPECT_EQ(bitwise_difference(first, second), "")
                  << where << " " << kernels[k] << ": the second call differs bitwise";
              EXPECT_EQ(bitwise_difference(anchor, first), "")
                  << where << " " << kernels[k]
                  << " (C API) differs bitwise from the C++ path's matrix_direct";
            }
            ++compared;
          }
        }
      }
    }
  }
  EXPECT_EQ(compared, 4 * 2 * 4 * 3 * 5);
}

// What SpmspvOperatorGpu.DeterministicMode refuses, through the C API: operators created with
// kernel matrix_balanced, vector_direct or densify, deterministic, set up fine; every apply
// (op N and T, x sorted and unsorted, dense and sparse y) returns HOLA_UNSUPPORTED, saying
// "deterministic", with y untouched (still NaN / -1). Then the mode follows
// hola_spmspv_set_deterministic from the next setup of the same structure: matrix_balanced
// runs, still runs after set_deterministic(1) until the next setup, is refused after it, runs
// again (right) after set_deterministic(0) and a setup. A null handle is refused.
TYPED_TEST(SpmspvGpuCApiTyped, DeterministicRefusals) {
  HOLA_TYPES;
  TestStream stream(TestStream::non_blocking);
  std::int64_t refusals = 0;
  for (const auto& [name, m64] : c_api_deterministic_matrices()) {
    DeviceCsr<V, I, O> dm(m64.template convert<V, I, O>());
    for (const char* refused : {"matrix_balanced", "vector_direct", "densify"}) {
      CSpmspv<V, I, O> c(refused);
      ASSERT_EQ(c.created, HOLA_SUCCESS) << refused << ": " << hola_spmspv_last_error();
      ASSERT_EQ(hola_spmspv_set_deterministic(c.op, 1), HOLA_SUCCESS) << hola_spmspv_last_error();
      ASSERT_EQ(c.setup(dm, stream.get()), HOLA_SUCCESS)
          << name << " " << refused << ": " << hola_spmspv_last_error();
      for (Op o : {Op::N, Op::T}) {
        const std::int64_t n_in = o == Op::N ? dm.A.cols : dm.A.rows;
        const std::int64_t n_out = o == Op::N ? dm.A.rows : dm.A.cols;
        DeviceVector<V, I> dv(n_in, 0.05, 5);
        for (VectorFormat f : {VectorFormat::sorted, VectorFormat::unsorted})
          for (int form : {0, 1, 2}) {
            DeviceOutput<V, I> dy(n_out, form);
            EXPECT_EQ(c.apply(o, Semiring::plus_times, dv.device(f), Mask{}, dy, stream.get()),
                      HOLA_UNSUPPORTED)
                << name << " " << refused << " op " << op_name(o) << " " << format_name(f)
                << " form " << form;
            EXPECT_NE(std::string(hola_spmspv_last_error()).find("deterministic"),
                      std::string::npos)
                << hola_spmspv_last_error();
            EXPECT_TRUE(still_poisoned(dy)) << name << " " << refused << " op " << op_name(o) << " "
                                            << format_name(f) << " form " << form << ": y changed";
            ++refusals;
          }
      }
    }
  }
  EXPECT_EQ(refusals, 4 * 3 * 2 * 2 * 3);
  // The mode follows hola_spmspv_set_deterministic from the next setup, even of the same
  // structure.
  DeviceCsr<V, I, O> dm(gen::random_rect(300, 200, 6, 17).template convert<V, I, O>());
  CSpmspv<V, I, O> c("matrix_balanced");
  ASSERT_EQ(c.created, HOLA_SUCCESS) << hola_spmspv_last_error();
  ASSERT_EQ(c.setup(dm, stream.get()), HOLA_SUCCESS) << hola_spmspv_last_error();
  DeviceVector<V, I> dv(dm.A.cols, 0.05, 3);
  const ReferenceResult<V, I, O> reference(
      host_problem(dm.host, Op::N, Semiring::plus_times, dv.hv.view(VectorFormat::sorted), Mask{}));
  auto runs_balanced = [&](const std::string& when) {
    DeviceOutput<V, I> dy(dm.A.rows, 0);
    const hola_status st = c.apply(Op::N, Semiring::plus_times, dv.device(VectorFormat::sorted),
                                   Mask{}, dy, stream.get());
    if (st == HOLA_SUCCESS) {
      EXPECT_EQ(reference.compare(dy.host()), "") << when;
      EXPECT_EQ(c.last_kernel(), "matrix_balanced") << when;
    } else {
      EXPECT_TRUE(still_poisoned(dy)) << when << ": y changed";
    }
    return st;
  };
  EXPECT_EQ(runs_balanced("default"), HOLA_SUCCESS) << hola_spmspv_last_error();
  EXPECT_EQ(hola_spmspv_set_deterministic(c.op, 1), HOLA_SUCCESS);
  EXPECT_EQ(runs_balanced("on, before setup"), HOLA_SUCCESS) << hola_spmspv_last_error();
  EXPECT_EQ(c.setup(dm, stream.get()), HOLA_SUCCESS) << hola_spmspv_last_error();
  EXPECT_EQ(runs_balanced("on, after setup"), HOLA_UNSUPPORTED);
  EXPECT_EQ(hola_spmspv_set_deterministic(c.op, 0), HOLA_SUCCESS);
  EXPECT_EQ(c.setup(dm, stream.get()), HOLA_SUCCESS) << hola_spmspv_last_error();
  EXPECT_EQ(runs_balanced("off again, after setup"), HOLA_SUCCESS) << hola_spmspv_last_error();
  EXPECT_EQ(hola_spmspv_set_deterministic(nullptr, 1), HOLA_INVALID_ARGUMENT);
}

// Bad input through the C API in deterministic mode (operators of kernel auto, matrix_direct and
// vector_balanced; dense y, sparse y asked sorted and unsorted), as in
// SpmspvOperatorGpu.BadInputLeavesYUnchanged: an index == size, a negative one, a duplicate, an
// unsorted "sorted" list, a bitmap whose count is wrong, host memory as x, an unknown op, a
// null x (HOLA_INVALID_ARGUMENT); x or y of the wrong size, a mask of the wrong size
// (HOLA_SIZE_MISMATCH); a sparse y without room (HOLA_INVALID_ARGUMENT) — each with y untouched
// (still NaN / -1); y overlapping x (HOLA_ALIASING). The next good call is right and bitwise
// equal to the one before the errors. Then set_deterministic(0) and a setup: a call still right.
TYPED_TEST(SpmspvGpuCApiTyped, DeterministicBadInputLeavesYUnchanged) {
  HOLA_TYPES;
  TestStream stream(TestStream::non_blocking);
  DeviceCsr<V, I, O> dm(gen::random_rect(40, 50, 4, 31).template convert<V, I, O>());
  const TestVector<V, I> hv(50, 0.3, 3);
  DM::Array<V> d_val(with_one(hv.sorted_val)), d_dense(with_one(hv.dense_val));
  DM::Array<I> d_good(with_one(hv.sorted_idx));
  const hola_sparse_vector good{50,           hv.nnz(),    HOLA_SPVEC_SORTED,
                                d_good.get(), d_val.get(), nullptr};
  struct Case {
    std::string what;
    std::vector<I> idx;
    hola_spvec_format f;
  };
  std::vector<Case> cases;
  auto out_of_range = hv.sorted_idx;
  out_of_range.back() = I(50);
  cases.push_back({"index == size", out_of_range, HOLA_SPVEC_SORTED});
  auto neg = hv.unsorted_idx;
  neg[2] = I(-3);
  cases.push_back({"negative", neg, HOLA_SPVEC_UNSORTED});
  auto dup = hv.unsorted_idx;
  dup[5] = dup[1];
  cases.push_back({"duplicate", dup, HOLA_SPVEC_UNSORTED});
  auto unordered = hv.sorted_idx;
  std::swap(unordered[1], unordered[4]);
  cases.push_back({"unsorted in sorted", unordered, HOLA_SPVEC_SORTED});
  const ReferenceResult<V, I, O> reference(
      host_problem(dm.host, Op::N, Semiring::plus_times, hv.view(VectorFormat::sorted), Mask{}));
  for (const char* kernel : {"auto", "matrix_direct", "vector_balanced"}) {
    CSpmspv<V, I, O> c(kernel);
    ASSERT_EQ(c.created, HOLA_SUCCESS) << hola_spmspv_last_error();
    ASSERT_EQ(hola_spmspv_set_deterministic(c.op, 1), HOLA_SUCCESS) << hola_spmspv_last_error();
    ASSERT_EQ(c.setup(dm, stream.get()), HOLA_SUCCESS) << hola_spmspv_last_error();
    const std::string k = kernel;
    for (int form : {0, 1, 2}) {
      const std::string where = k + " form " + std::to_string(form);
      DeviceOutput<V, I> before(40, form);
      ASSERT_EQ(c.apply(HOLA_OP_N, Semiring::plus_times, good, Mask{}, before, stream.get()),
                HOLA_SUCCESS)
          << where << ": " << hola_spmspv_last_error();
      EXPECT_EQ(reference.compare(before.host()), "") << where;
      // One refused call into a fresh poisoned y of `size` entries: `want`, y untouched.
      auto refused = [&](const std::string& what, hola_op o, const hola_sparse_vector* x,
                         const Mask& m, std::int64_t size, std::int64_t capacity,
                         hola_status want) {
        DeviceOutput<V, I> dy(size, form);
        if (form != 0) dy.y.capacity = capacity;
        const hola_spmspv_mask mask{m.values, m.size, m.complement ? 1 : 0, m.allowed};
        hola_spmspv_output y{};
        y.dense = form == 0 ? 1 : 0;
        y.size = size;
        y.dense_values = dy.y.dense;
        y.indices = dy.y.indices;
        y.values = dy.y.values;
        y.capacity = dy.y.capacity;
        y.want_sorted = dy.y.want_sorted ? 1 : 0;
        EXPECT_EQ(hola_spmspv_apply_on_stream(c.op, o, HOLA_SEMIRING_PLUS_TIMES, x,
                                              m.values ? &mask : nullptr, &y, stream.get()),
                  want)
            << what << " " << where << ": " << hola_spmspv_last_error();
        EXPECT_TRUE(still_poisoned(dy)) << what << " " << where << ": y changed";
      };
      for (const auto& cs : cases) {
        DM::Array<I> d_idx(cs.idx);
        hola_sparse_vector x = good;
        x.format = cs.f;
        x.indices = d_idx.get();
        refused(cs.what, HOLA_OP_N, &x, Mask{}, 40, 40, HOLA_INVALID_ARGUMENT);
      }
      {
        DM::Array<std::uint32_t> bits(hv.bits);
        const hola_sparse_vector x{50,      hv.nnz() + 1,  HOLA_SPVEC_BITMAP,
                                   nullptr, d_dense.get(), bits.get()};
        refused("bitmap count", HOLA_OP_N, &x, Mask{}, 40, 40, HOLA_INVALID_ARGUMENT);
      }
      {
        hola_sparse_vector x = good;
        x.values = hv.sorted_val.data();
        refused("host x", HOLA_OP_N, &x, Mask{}, 40, 40, HOLA_INVALID_ARGUMENT);
      }
      refused("unknown op", static_cast<hola_op>(2), &good, Mask{}, 40, 40, HOLA_INVALID_ARGUMENT);
      refused("null x", HOLA_OP_N, nullptr, Mask{}, 40, 40, HOLA_INVALID_ARGUMENT);
      {
        hola_sparse_vector x = good;
        x.size = 49;
        refused("x size 49", HOLA_OP_N, &x, Mask{}, 40, 40, HOLA_SIZE_MISMATCH);
      }
      refused("y size 41", HOLA_OP_N, &good, Mask{}, 41, 41, HOLA_SIZE_MISMATCH);
      {
        DeviceMask mask(39);
        refused("mask size 39", HOLA_OP_N, &good, mask.get(1, false), 40, 40, HOLA_SIZE_MISMATCH);
      }
      if (form != 0 && reference.nnz() > 1)
        refused("capacity 1", HOLA_OP_N, &good, Mask{}, 40, 1, HOLA_INVALID_ARGUMENT);
      {
        DM::Array<V> shared(60);
        DM::Array<I> shared_idx(60);
        hola_sparse_vector x = good;
        x.values = shared.get();
        hola_spmspv_output y{};
        y.dense = form == 0 ? 1 : 0;
        y.size = 40;
        y.dense_values = form == 0 ? shared.get() + 2 : nullptr;
        y.values = form == 0 ? nullptr : shared.get() + 2;
        y.indices = form == 0 ? nullptr : shared_idx.get();
        y.capacity = form == 0 ? 0 : 40;
        y.want_sorted = form == 1;
        EXPECT_EQ(hola_spmspv_apply_on_stream(c.op, HOLA_OP_N, HOLA_SEMIRING_PLUS_TIMES, &x,
                                              nullptr, &y, stream.get()),
                  HOLA_ALIASING)
            << where << ": " << hola_spmspv_last_error();
      }
      // The next good call: right, sorted, bitwise equal to the one before the errors.
      DeviceOutput<V, I> after(40, form);
      ASSERT_EQ(c.apply(HOLA_OP_N, Semiring::plus_times, good, Mask{}, after, stream.get()),
                HOLA_SUCCESS)
          << where << ": " << hola_spmspv_last_error();
      EXPECT_EQ(reference.compare(after.host()), "") << where << " after errors";
      if (form != 0) EXPECT_EQ(unsorted_entries(after), "") << where << " after errors";
      EXPECT_EQ(bitwise_difference(before, after), "") << where << " after errors";
    }
    // The mode off again (from the next setup): calls still right.
    ASSERT_EQ(hola_spmspv_set_deterministic(c.op, 0), HOLA_SUCCESS) << hola_spmspv_last_error();
    ASSERT_EQ(c.setup(dm, stream.get()), HOLA_SUCCESS) << hola_spmspv_last_error();
    for (int form : {0, 1, 2}) {
      DeviceOutput<V, I> dy(40, form);
      ASSERT_EQ(c.apply(HOLA_OP_N, Semiring::plus_times, good, Mask{}, dy, stream.get()),
                HOLA_SUCCESS)
          << k << " off, form " << form << ": " << hola_spmspv_last_error();
      EXPECT_EQ(reference.compare(dy.host()), "") << k << " off, form " << form;
      if (k != "auto") EXPECT_EQ(c.last_kernel(), k);
    }
  }
}

}  // namespace
}  // namespace hola::test
