// GPU SpMSpV kernels (kernels/cuda/spmspv) against the CPU reference: every kernel, op,
// semiring, mask, vector format and output form on every generated family, densities 0..1; bad
// vectors rejected with y untouched. Exits 77 (skipped) without a GPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "gpu_harness.hpp"
#include "hola/generators.hpp"
#include "hola/spmspv.hpp"
#include "hola/spmspv_gpu.hpp"
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

std::vector<std::pair<std::string, gen::Csr64>> families() {
  std::vector<std::pair<std::string, gen::Csr64>> f;
  f.emplace_back("poisson2d", gen::poisson2d(12, 10));
  f.emplace_back("poisson3d", gen::poisson3d(6, 5, 4));
  f.emplace_back("stencil27", gen::stencil27(5, 5, 4));
  f.emplace_back("banded_normal", gen::banded_normal(300, 6, 10.0, 1));
  f.emplace_back("random_rect_wide", gen::random_rect(90, 300, 5, 3));
  f.emplace_back("random_rect_tall", gen::random_rect(300, 70, 4, 4));
  f.emplace_back("rmat", gen::rmat(9, 8, 5));
  f.emplace_back("circuit", gen::circuit(400, 6, 0.3, 2, 150));
  f.emplace_back("arrow", gen::arrow(120));
  f.emplace_back("random_with_nnz", gen::random_with_nnz(200, 150, 1000, 7));
  f.emplace_back("empty", gen::empty(50, 40));
  f.emplace_back("single_row", gen::single_row(200, 50, 8));
  f.emplace_back("single_column", gen::single_column(100, 9));
  f.emplace_back("one_full_row", gen::one_full_row(60, 80, 17, 10));
  f.emplace_back("rmat_large", gen::rmat(14, 16, 11));
  return f;
}

const gpu::Kernel kKernels[] = {gpu::Kernel::matrix_direct, gpu::Kernel::matrix_balanced,
                                gpu::Kernel::vector_direct, gpu::Kernel::vector_balanced};
const Semiring kSemirings[] = {Semiring::plus_times, Semiring::or_and, Semiring::min_first,
                               Semiring::min_second};

// x of length n with round(density n) random entries: sorted and unsorted lists and bitmap.
template <class V, class I>
struct HostVector {
  std::vector<I> sorted_idx, unsorted_idx;
  std::vector<V> sorted_val, unsorted_val, dense;
  std::vector<std::uint32_t> bits;
  HostVector(std::int64_t n, double density, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::vector<std::int64_t> perm(static_cast<std::size_t>(n));
    std::iota(perm.begin(), perm.end(), 0);
    std::shuffle(perm.begin(), perm.end(), rng);
    perm.resize(static_cast<std::size_t>(std::llround(density * static_cast<double>(n))));
    const auto vals = gen::random_vector<V>(static_cast<std::int64_t>(perm.size()), seed + 1);
    dense.assign(static_cast<std::size_t>(n), V(0));
    bits.assign(static_cast<std::size_t>((n + 31) / 32), 0u);
    for (std::size_t k = 0; k < perm.size(); ++k) {
      unsorted_idx.push_back(static_cast<I>(perm[k]));
      unsorted_val.push_back(vals[k]);
      dense[perm[k]] = vals[k];
      bits[perm[k] / 32] |= 1u << (perm[k] % 32);
    }
    std::sort(perm.begin(), perm.end());
    for (auto j : perm) {
      sorted_idx.push_back(static_cast<I>(j));
      sorted_val.push_back(dense[j]);
    }
  }
};

template <class T>
class SpmspvGpu : public ::testing::Test {};
using GpuTypes = ::testing::Types<
    Types<double, std::int32_t, std::int32_t>, Types<float, std::int64_t, std::int64_t>,
    Types<double, std::int64_t, std::int32_t>, Types<float, std::int32_t, std::int64_t>>;
TYPED_TEST_SUITE(SpmspvGpu, GpuTypes);

TYPED_TEST(SpmspvGpu, EveryKernelMatchesReference) {
  using V = typename TypeParam::V;
  using I = typename TypeParam::I;
  using O = typename TypeParam::O;
  std::int64_t checked = 0, rotate = 0;
  TestStream stream(TestStream::non_blocking);
  for (const auto& [name, m64] : families()) {
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
        HostVector<V, I> hv(n_in, density, 100 + checked);
        DM::Array<I> d_sidx(std::max<std::size_t>(1, hv.sorted_idx.size())),
            d_uidx(std::max<std::size_t>(1, hv.unsorted_idx.size()));
        DM::Array<V> d_sval(std::max<std::size_t>(1, hv.sorted_val.size())),
            d_uval(std::max<std::size_t>(1, hv.unsorted_val.size())),
            d_dense(std::max<std::size_t>(1, hv.dense.size()));
        DM::Array<std::uint32_t> d_bits(std::max<std::size_t>(1, hv.bits.size()));
        d_sidx.upload(with_one(hv.sorted_idx));
        d_uidx.upload(with_one(hv.unsorted_idx));
        d_sval.upload(with_one(hv.sorted_val));
        d_uval.upload(with_one(hv.unsorted_val));
        d_dense.upload(with_one(hv.dense));
        d_bits.upload(with_one(hv.bits));
        for (VectorFormat f :
             {VectorFormat::sorted, VectorFormat::unsorted, VectorFormat::bitmap}) {
          SparseVectorView<V, I> hx, dx;  // the same vector on the host and the device
          hx.size = dx.size = n_in;
          hx.nnz = dx.nnz = static_cast<std::int64_t>(hv.sorted_idx.size());
          hx.format = dx.format = f;
          dx.memory = Memory::device;
          if (f == VectorFormat::sorted) {
            hx.indices = hv.sorted_idx.data();
            hx.values = hv.sorted_val.data();
            dx.indices = d_sidx.get();
            dx.values = d_sval.get();
          } else if (f == VectorFormat::unsorted) {
            hx.indices = hv.unsorted_idx.data();
            hx.values = hv.unsorted_val.data();
            dx.indices = d_uidx.get();
            dx.values = d_uval.get();
          } else {
            hx.bits = hv.bits.data();
            hx.values = hv.dense.data();
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
                const std::size_t un = static_cast<std::size_t>(std::max<std::int64_t>(1, n_out));
                DM::Array<V> d_yv(un);
                DM::Array<I> d_yi(un);
                Output<V, I> dy;
                dy.size = n_out;
                dy.format = form == 0 ? OutputFormat::dense : OutputFormat::sparse;
                dy.want_sorted = form == 1;
                if (form == 0) {
                  dy.dense = d_yv.get();
                } else {
                  dy.values = d_yv.get();
                  dy.indices = d_yi.get();
                  dy.capacity = n_out;
                }
                k.apply(kern, op, s, dx, dmk, dy, stream.get());
                DM::sync();
                auto yv = d_yv.download();
                auto yi = d_yi.download();
                Output<V, I> hy = dy;
                if (form == 0) {
                  hy.dense = yv.data();
                } else {
                  hy.values = yv.data();
                  hy.indices = yi.data();
                }
                Problem<V, I, O> p;
                p.op = op;
                p.semiring = s;
                p.A = dm.host.view();
                p.x = hx;
                p.mask = hm;
                const std::string diff = compare_with_reference(p, hy);
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

TYPED_TEST(SpmspvGpu, BadVectorsChangeNothing) {
  using V = typename TypeParam::V;
  using I = typename TypeParam::I;
  using O = typename TypeParam::O;
  DeviceMatrix<V, I, O> dm(gen::random_rect(40, 50, 4, 31).template convert<V, I, O>());
  gpu::Spmspv<V, I, O> k;
  k.setup(dm.A, &dm.At);
  gpu::Spmspv<V, I, O> no_at;
  no_at.setup(dm.A, nullptr);
  HostVector<V, I> hv(50, 0.3, 3);
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

}  // namespace
}  // namespace hola::test
