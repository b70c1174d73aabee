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

}  // namespace
}  // namespace hola::test
