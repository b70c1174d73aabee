// hola::Operator and the C API on device matrices: auto selection, every kernel by name,
// fallbacks, deterministic mode, GPU validation of bad CSR input, the analysis cache.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "corpus.hpp"
#include "gpu_harness.hpp"
#include "hola/error.hpp"
#include "hola/features.hpp"
#include "hola/generators.hpp"
#include "hola/hola.h"
#include "hola/operator.hpp"
#include "hola/registry.hpp"
#include "hola/selector.hpp"
#include "operator_as_kernel.hpp"
#include "status_of.hpp"

namespace hola::test {
namespace {

// y = alpha op(A) x + beta y through the Operator, checked against the reference.
template <class V, class I, class O>
void check_operator(const std::string& name, const gen::Csr64& A64, OperatorOptions options) {
  PlacedMatrix<DeviceMemory, V, I, O> M(A64);
  Operator<V, I, O> op(options);
  op.setup(M.view(), 1);
  const CsrView<V, I, O> host = M.host.view();
  SCOPED_TRACE(name + ", requested " + options.kernel + ", chosen N " + op.kernel_name(Op::N) +
               ", T " + op.kernel_name(Op::T) + " (" + op.selection_reason() + ")");
  std::uint64_t s = fresh_seed();
  for (Op o : {Op::N, Op::T}) {
    const std::int64_t nx = o == Op::N ? host.cols : host.rows;
    const std::int64_t ny = o == Op::N ? host.rows : host.cols;
    const std::vector<V> x = random_vector<V>(nx, ++s);
    const std::vector<V> y = random_vector<V>(ny, ++s);
    DeviceMemory::Array<V> dx(nx), dy(ny), dz(ny);
    dx.upload(x);
    dy.upload(y);
    dz.upload(std::vector<V>(static_cast<std::size_t>(ny), std::numeric_limits<V>::quiet_NaN()));
    op.apply(o, V(0.5), {dx.get(), nx}, V(-2), {dy.get(), ny}, {dz.get(), ny});
    DeviceMemory::sync();
    EXPECT_TRUE(matches_reference(o, V(0.5), host, x, V(-2), y, dz.download()))
        << "op " << op_name(o);
  }
  // PETSc's MatMultAdd form.
  const std::vector<V> x = random_vector<V>(host.cols, ++s);
  const std::vector<V> y = random_vector<V>(host.rows, ++s);
  DeviceMemory::Array<V> dx(host.cols), dy(host.rows), dz(host.rows);
  dx.upload(x);
  dy.upload(y);
  op.multiply_add({dx.get(), host.cols}, {dy.get(), host.rows}, {dz.get(), host.rows});
  DeviceMemory::sync();
  EXPECT_TRUE(matches_reference(Op::N, V(1), host, x, V(1), y, dz.download())) << "z = y + A x";
}

std::vector<NamedMatrix> operator_corpus() {
  return {{"poisson3d 20^3", gen::poisson3d(20, 20, 20)},
          {"circuit", gen::circuit(30000, 3, 0.3, 3, 12000, 4.0)},
          {"banded sigma=1000", gen::banded_normal(8000, 22, 1000.0, 4)},
          {"wide", gen::random_rect(300, 5000, 30, 5)},
          {"all rows empty", gen::empty(100, 50)}};
}

TEST(OperatorGpu, AutoAndEveryKernelByName) {
  for (const NamedMatrix& m : operator_corpus()) {
    for (const KernelInfo& k : KernelRegistry::kernels()) {
      if (k.memory != Memory::device && k.name != "auto") continue;
      OperatorOptions o;
      o.kernel = k.name;
      check_operator<double, std::int32_t, std::int32_t>(m.name, m.A, o);
      check_operator<float, std::int32_t, std::int64_t>(m.name, m.A, o);  // no cuSPARSE here
    }
  }
}

// The wide random matrix of the SpMSpV densify failure (131 072 x 1 048 576, 16 entries per row),
// an x that is 90 % zeros (densify's dense x) and the exact product A x on the host.
struct WideProblem {
  using V = double;
  using I = std::int32_t;
  PlacedMatrix<DeviceMemory, V, I, I> M{gen::random_rect(1 << 17, 1 << 20, 16, 1)};
  CsrView<V, I, I> host = M.host.view();
  std::vector<V> x = sparse_x(host.cols);
  std::vector<V> ref = product(host, x);

  std::size_t rows() const { return static_cast<std::size_t>(host.rows); }

  static std::vector<V> sparse_x(std::int64_t n) {
    std::vector<V> v = random_vector<V>(n, 5);
    for (std::size_t j = 0; j < v.size(); ++j)
      if (j % 10 != 3) v[j] = V(0);
    return v;
  }
  static std::vector<V> product(const CsrView<V, I, I>& A, const std::vector<V>& v) {
    std::vector<V> y(static_cast<std::size_t>(A.rows));
    for (std::size_t i = 0; i < y.size(); ++i)
      for (I k = A.row_ptr[i]; k < A.row_ptr[i + 1]; ++k)
        y[i] += A.values[k] * v[static_cast<std::size_t>(A.col_idx[k])];
    return y;
  }
};

// WideProblem on a non-blocking stream: every device kernel and auto, many applies in a row with
// beta = 0 and y poisoned each time (inside SpMSpV's densify, cuSPARSE ALG1 left the last entry
// of y wrong about once in a hundred such products; alone it never did).
TEST(OperatorGpu, WideMatrixManyRepeatedApplies) {
  using V = WideProblem::V;
  using I = WideProblem::I;
  WideProblem w;
  auto& M = w.M;
  const CsrView<V, I, I> host = w.host;
  const std::vector<V>& x = w.x;
  DeviceMemory::Array<V> dx(x), dy(static_cast<std::size_t>(host.rows));
  const std::vector<V> poison(static_cast<std::size_t>(host.rows),
                              std::numeric_limits<V>::quiet_NaN());
  TestStream stream(TestStream::non_blocking);
  for (const KernelInfo& k : KernelRegistry::kernels()) {
    if (k.memory != Memory::device && k.name != "auto") continue;
    OperatorOptions o;
    o.kernel = k.name;
    Operator<V, I, I> op(o);
    op.setup(M.view(), 1, stream.get());
    int bad = 0;
    for (int call = 0; call < 60 && bad < 3; ++call) {
      dy.upload(poison);
      op.apply(Op::N, V(1), {dx.get(), host.cols}, V(0), {dy.get(), host.rows}, stream.get());
      DeviceMemory::sync();
      const auto r = matches_reference(Op::N, V(1), host, x, V(0), poison, dy.download());
      bad += r ? 0 : 1;
      EXPECT_TRUE(r) << k.name << " (ran " << op.kernel_name(Op::N) << "), call " << call;
    }
  }
}

// cuSPARSE alone on the wide matrix, 150 products with beta = 0 after y was filled with NaN, with
// the previous product's result, or with zeros: how often is a row wrong, and which?
TEST(OperatorGpu, WideMatrixCusparseBetaZero) {
  using V = WideProblem::V;
  using I = WideProblem::I;
  WideProblem w;
  const std::size_t rows = w.rows();
  DeviceMemory::Array<V> dx(w.x), dy(rows);
  TestStream stream(TestStream::non_blocking);
  OperatorOptions o;
  o.kernel = "cusparse";
  Operator<V, I, I> op(o);
  op.setup(w.M.view(), 1, stream.get());
  const char* fills[] = {"NaN", "previous result", "zeros"};
  int total_bad = 0;
  for (int fill = 0; fill < 3; ++fill) {
    int bad_calls = 0;
    std::string first;
    std::vector<V> prev = w.ref;
    for (int call = 0; call < 150; ++call) {
      if (fill == 0) dy.upload(std::vector<V>(rows, std::numeric_limits<V>::quiet_NaN()));
      if (fill == 1) dy.upload(prev);
      if (fill == 2) dy.upload(std::vector<V>(rows, V(0)));
      op.apply(Op::N, V(1), {dx.get(), w.host.cols}, V(0), {dy.get(), w.host.rows}, stream.get());
      DeviceMemory::sync();
      const std::vector<V> y = dy.download();
      int bad_rows = 0;
      for (std::size_t i = 0; i < rows; ++i)
        if (!(std::abs(y[i] - w.ref[i]) <= 1e-12 * (1 + std::abs(w.ref[i])))) {
          if (first.empty())
            first = "call " + std::to_string(call) + ": y[" + std::to_string(i) +
                    "] = " + std::to_string(y[i]) + ", reference " + std::to_string(w.ref[i]);
          ++bad_rows;
        }
      bad_calls += bad_rows > 0;
      prev = y;
    }
    std::printf("cusparse beta 0, y filled with %s first: %d of 150 products wrong%s%s\n",
                fills[fill], bad_calls, first.empty() ? "" : "; first: ", first.c_str());
    total_bad += bad_calls;
  }
  EXPECT_EQ(total_bad, 0);
}

// The same products read back on the product's stream only (cudaStreamSynchronize), with the GPU
// kept busy before each product, then again after a device-wide synchronisation: does any of
// cuSPARSE's work finish outside the stream it was given?
TEST(OperatorGpu, WideMatrixCusparseStreamOrder) {
  using V = WideProblem::V;
  using I = WideProblem::I;
  WideProblem w;
  const std::size_t rows = w.rows();
  auto wrong_rows = [&](const V* y) {
    int bad = 0;
    for (std::size_t i = 0; i < rows; ++i)
      bad += !(std::abs(y[i] - w.ref[i]) <= 1e-12 * (1 + std::abs(w.ref[i])));
    return bad;
  };
  DeviceMemory::Array<V> dx(w.x), dy(rows), busy(std::size_t(1) << 24);
  V* early = nullptr;
  HOLA_TEST_CUDA(cudaMallocHost(reinterpret_cast<void**>(&early), rows * sizeof(V)));
  for (const char* kernel : {"cusparse", "cusparse-alg2", "scalar"}) {
    TestStream stream(TestStream::non_blocking);
    OperatorOptions o;
    o.kernel = kernel;
    Operator<V, I, I> op(o);
    op.setup(w.M.view(), 1, stream.get());
    int early_bad = 0, late_bad = 0;
    for (int call = 0; call < 150; ++call) {
      HOLA_TEST_CUDA(cudaMemsetAsync(busy.get(), call & 0xff, busy.n * sizeof(V), stream.get()));
      op.apply(Op::N, V(1), {dx.get(), w.host.cols}, V(0), {dy.get(), w.host.rows}, stream.get());
      HOLA_TEST_CUDA(
          cudaMemcpyAsync(early, dy.get(), rows * sizeof(V), cudaMemcpyDeviceToHost, stream.get()));
      HOLA_TEST_CUDA(cudaStreamSynchronize(stream.get()));
      early_bad += wrong_rows(early) > 0;
      DeviceMemory::sync();
      late_bad += wrong_rows(dy.download().data()) > 0;
    }
    std::printf("%s: %d of 150 wrong when read on the stream, %d after a device sync\n", kernel,
                early_bad, late_bad);
    EXPECT_EQ(early_bad + late_bad, 0) << kernel;
  }
  cudaFreeHost(early);
}

// "auto" on a device matrix: the kernel the selector picks on the matrix's GPU features (the
// trees are retrained per GPU, so the test follows select_kernels rather than naming
// kernels), and the features equal the CPU statistics.
TEST(OperatorGpu, AutoFollowsTheSelectorOnGpuFeatures) {
  const std::vector<NamedMatrix> cases = {{"poisson3d 16^3", gen::poisson3d(16, 16, 16)},
                                          {"circuit", gen::circuit(30000, 3, 0.3, 3, 12000, 4.0)},
                                          {"rmat 12", gen::rmat(12, 8, 5)}};
  for (const NamedMatrix& m : cases) {
    SCOPED_TRACE(m.name);
    PlacedMatrix<DeviceMemory, double, std::int32_t, std::int32_t> M(m.A);
    OperatorOptions raced;
    raced.auto_trial = true;
    Operator<double, std::int32_t, std::int32_t> op(raced);
    op.setup(M.view());
    const auto host = M.host.view();
    const MatrixFeatures cpu = matrix_features(host.row_ptr, host.col_idx, host.rows, host.cols);
    const MatrixFeatures gpu_features = gpu::device_matrix_features(
        M.view().row_ptr, M.view().col_idx, host.rows, host.cols, host.nnz, nullptr);
    EXPECT_EQ(gpu_features.lengths.max_row, cpu.lengths.max_row);
    EXPECT_EQ(gpu_features.lengths.nnz, cpu.lengths.nnz);
    EXPECT_EQ(gpu_features.structure.neighbor_near, cpu.structure.neighbor_near);
    OperatorOptions plain;
    plain.auto_trial = false;
    Operator<double, std::int32_t, std::int32_t> untimed(plain);
    untimed.setup(M.view());
    EXPECT_EQ(untimed.selection_reason().find("timed at setup"), std::string::npos)
        << untimed.selection_reason();
    // The selection with the plugin's rules after the trees (their alternatives join the race).
    const KernelChoice choice = select_kernels("auto", M.view(), nullptr);
    for (Op o : {Op::N, Op::T}) {
      const KernelSelection& expected = o == Op::N ? choice.n : choice.t;
      // The setup race keeps the tree's pick or one of its alternatives.
      std::vector<std::string> allowed = expected.alternatives;
      allowed.push_back(expected.name);
      EXPECT_NE(std::find(allowed.begin(), allowed.end(), op.kernel_name(o)), allowed.end())
          << op.kernel_name(o) << ": " << op.selection_reason();
      if (!expected.alternatives.empty())
        EXPECT_NE(op.selection_reason().find(std::string("op ") + op_name(o) + " timed at setup"),
                  std::string::npos)
            << op.selection_reason();
      // Without the race: exactly the tree's pick.
      EXPECT_EQ(untimed.kernel_name(o), expected.name);
    }
  }
}

// The race at setup must leave a working Operator whatever it keeps: both ops and the
// MatMultAdd form against the reference, on matrices where different kernels win, in both
// precisions and with int64 offsets (no cuSPARSE among the alternatives then).
TEST(OperatorGpu, RacedAutoGivesCorrectProducts) {
  const std::vector<NamedMatrix> cases = {
      {"poisson2d 300^2", gen::poisson2d(300, 300)},
      {"circuit 200k", gen::circuit(200000, 7, 0.3, 4, 50000, 3.0)},
      {"random 100k x 300k", gen::random_rect(100000, 300000, 6, 5)},
      {"rmat 16", gen::rmat(16, 8, 3)}};
  OperatorOptions raced;
  raced.auto_trial = true;
  for (const NamedMatrix& m : cases) {
    check_operator<double, std::int32_t, std::int32_t>(m.name, m.A, raced);
    check_operator<float, std::int32_t, std::int32_t>(m.name, m.A, raced);
    check_operator<double, std::int32_t, std::int64_t>(m.name, m.A, raced);
  }
}

// A duplicate on the GPU (same pattern, its own device arrays) takes over the first matrix's
// kernels, raced or not, without features or race, and computes the right products.
TEST(OperatorGpu, DuplicateTakesOverTheDecision) {
  for (bool race : {false, true}) {
    const gen::Csr64 A64 = gen::circuit(60000, 5, 0.3, 4, 20000, 3.0);
    PlacedMatrix<DeviceMemory, double, std::int32_t, std::int32_t> M(A64), D(A64);
    OperatorOptions o;
    o.auto_trial = race;
    Operator<double, std::int32_t, std::int32_t> first(o), dup(o);
    first.setup(M.view(), 1);
    dup.reuse_decision(first.decision());
    dup.setup(D.view(), 1);
    SCOPED_TRACE(dup.selection_reason());
    EXPECT_NE(dup.selection_reason().find("taken over"), std::string::npos);
    // No second race: the race's report, taken over with the decision, appears at most once.
    EXPECT_EQ(dup.selection_reason().find("op N timed at setup"),
              dup.selection_reason().rfind("op N timed at setup"));
    for (Op op : {Op::N, Op::T}) EXPECT_EQ(dup.kernel_name(op), first.kernel_name(op));
    const auto host = D.host.view();
    for (Op op : {Op::N, Op::T}) {
      const std::int64_t nx = op == Op::N ? host.cols : host.rows;
      const std::int64_t ny = op == Op::N ? host.rows : host.cols;
      const std::vector<double> x = random_vector<double>(nx, 11);
      DeviceMemory::Array<double> dx(nx), dy(ny);
      dx.upload(x);
      dy.upload(std::vector<double>(static_cast<std::size_t>(ny),
                                    std::numeric_limits<double>::quiet_NaN()));
      dup.apply(op, 1.0, {dx.get(), nx}, 0.0, {nullptr, 0}, {dy.get(), ny});
      DeviceMemory::sync();
      EXPECT_TRUE(matches_reference(op, 1.0, host, x, 0.0, std::vector<double>(ny), dy.download()))
          << "op " << op_name(op);
    }
  }
}

TEST(OperatorGpu, KernelNamesAreRegistryNames) {
  // What kernel_name() reports must be a name the registry (and -mat_hola_kernel) takes: the
  // race's picks are compared with the tree's names. Tuned hola configurations add a suffix.
  PlacedMatrix<DeviceMemory, double, std::int32_t, std::int32_t> M(gen::poisson2d(50, 50));
  for (const KernelInfo& k : KernelRegistry::kernels()) {
    if (k.memory != Memory::device || k.name == "auto") continue;  // auto reports its choice
    OperatorOptions o;
    o.kernel = k.name;
    Operator<double, std::int32_t, std::int32_t> op(o);
    op.setup(M.view());
    EXPECT_EQ(op.kernel_name(Op::N), k.name);
  }
}

TEST(OperatorGpu, DeterministicAutoIsNotRaced) {
  PlacedMatrix<DeviceMemory, double, std::int32_t, std::int32_t> M(gen::poisson2d(200, 200));
  OperatorOptions o;
  o.deterministic = true;
  o.auto_trial = true;  // asked for, and still not raced
  Operator<double, std::int32_t, std::int32_t> op(o);
  op.setup(M.view());
  EXPECT_EQ(op.selection_reason().find("timed at setup"), std::string::npos)
      << op.selection_reason();
}

TEST(OperatorGpu, DeterministicModeIsReproducibleInBothOps) {
  PlacedMatrix<DeviceMemory, double, std::int32_t, std::int32_t> M(gen::rmat(12, 8, 9));
  OperatorOptions o;
  o.kernel = "hola";
  o.deterministic = true;
  Operator<double, std::int32_t, std::int32_t> op(o);
  op.setup(M.view());
  EXPECT_EQ(op.kernel_name(Op::N), "hola");
  const std::int64_t n = M.host.rows;
  const std::vector<double> x = random_vector<double>(n, 3);
  DeviceMemory::Array<double> dx(n), dy(n);
  dx.upload(x);
  const auto op_apply = [&](Op which) { op.apply(which, 1.0, {dx.get(), n}, 0.0, {dy.get(), n}); };
  // Five applies of `which`: right the first time, bitwise equal after.
  const auto expect_reproducible = [&](Op which) {
    std::vector<double> first;
    for (int run = 0; run < 5; ++run) {
      op_apply(which);
      DeviceMemory::sync();
      const std::vector<double> y = dy.download();
      if (run == 0) {
        first = y;
        EXPECT_TRUE(matches_reference(which, 1.0, M.host.view(), x, 0.0, {}, y)) << op_name(which);
      } else {
        EXPECT_EQ(std::memcmp(first.data(), y.data(), y.size() * sizeof(double)), 0)
            << op_name(which);
      }
    }
  };
  expect_reproducible(Op::N);
  // hola's op T uses atomics: the first kernel of the table with a deterministic op T (the row
  // kernels' column gather) takes it, and says so.
  EXPECT_EQ(op.kernel_name(Op::T), "scalar");
  EXPECT_NE(op.selection_reason().find("cannot do op T deterministically"), std::string::npos)
      << op.selection_reason();
  expect_reproducible(Op::T);
  // auto in deterministic mode: op T as well.
  OperatorOptions a;
  a.deterministic = true;
  Operator<double, std::int32_t, std::int32_t> op_auto(a);
  op_auto.setup(M.view());
  op_auto.apply(Op::T, 1.0, {dx.get(), n}, 0.0, {dy.get(), n});
  DeviceMemory::sync();
  EXPECT_TRUE(matches_reference(Op::T, 1.0, M.host.view(), x, 0.0, {}, dy.download()))
      << op_auto.kernel_name(Op::T);
}

TEST(OperatorGpu, InvalidDeviceCsrIsRejectedOnTheGpu) {
  auto A = gen::poisson2d(30, 30).convert<double, std::int32_t, std::int32_t>();
  gen::Csr64 bad_cols = gen::poisson2d(30, 30);
  bad_cols.col_idx[17] = 5000;
  PlacedMatrix<DeviceMemory, double, std::int32_t, std::int32_t> M(bad_cols);
  Operator<double, std::int32_t, std::int32_t> op;
  try {
    op.setup(M.view());
    FAIL() << "column out of range not detected";
  } catch (const hola::error& e) {
    EXPECT_EQ(e.code(), status::invalid_csr);
    EXPECT_NE(std::string(e.what()).find("col_idx[17] = 5000"), std::string::npos) << e.what();
  }
  gen::Csr64 bad_rows = gen::poisson2d(30, 30);
  std::swap(bad_rows.row_ptr[10], bad_rows.row_ptr[11]);
  PlacedMatrix<DeviceMemory, double, std::int32_t, std::int32_t> R(bad_rows);
  try {
    op.setup(R.view());
    FAIL() << "non-monotone row_ptr not detected";
  } catch (const hola::error& e) {
    EXPECT_EQ(e.code(), status::invalid_csr);
    EXPECT_NE(std::string(e.what()).find("row_ptr[10]"), std::string::npos) << e.what();
  }
  EXPECT_FALSE(op.is_setup());
}

TEST(OperatorGpu, SameStructureIsCachedAndNewValuesAreUsed) {
  PlacedMatrix<DeviceMemory, double, std::int32_t, std::int32_t> M(gen::poisson3d(12, 12, 12));
  Operator<double, std::int32_t, std::int32_t> op;
  op.setup(M.view(), 3);
  op.setup(M.view(), 3);
  EXPECT_EQ(op.analysis_count(), 1u);
  std::vector<double> vals = random_vector<double>(M.host.nnz(), 99);
  M.values.upload(vals);
  M.host.values = vals;
  op.setup(M.view(), 3);
  EXPECT_EQ(op.analysis_count(), 1u);
  const std::vector<double> x = random_vector<double>(M.host.cols, 7);
  DeviceMemory::Array<double> dx(M.host.cols), dy(M.host.rows);
  dx.upload(x);
  op.apply(Op::N, 1.0, {dx.get(), M.host.cols}, 0.0, {dy.get(), M.host.rows});
  DeviceMemory::sync();
  EXPECT_TRUE(matches_reference(Op::N, 1.0, M.host.view(), x, 0.0, {}, dy.download()));
}

// Empty rows left out (OperatorOptions::compress_empty_rows) on the GPU: the kernels' full
// harness on small ghost blocks with the floor at 0, every kernel by name; then at the default
// floor a 3D Laplacian slab's ghost block of 4.2 M rows, 2^17 of them with entries, where the
// grid-stride gather and scatter run over more rows than one launch of blocks covers.
template <class V, class I, class O>
void check_empty_rows_left_out() {
  const std::vector<NamedMatrix> small = {
      {"ghost block 30x20x12", gen::ghost_block(30, 20, 12)},
      {"circuit, 90% empty", gen::circuit(20000, 3, 0.9, 2, 900)}};
  for (const NamedMatrix& m : small) {
    for (const KernelInfo& k : KernelRegistry::kernels()) {
      if (k.memory != Memory::device && k.name != "auto") continue;
      if (!k.mixed_index_types && !std::is_same_v<I, O>) continue;
      OperatorOptions o;
      o.kernel = k.name;
      o.compress_min_empty_rows = 0;
      check_kernel_on_matrix<DeviceMemory, V, I, O>(m.name, m.A, operator_factory<V, I, O>(o),
                                                    KernelOptions{});
      PlacedMatrix<DeviceMemory, V, I, O> M(m.A);
      Operator<V, I, O> op(o);
      op.setup(M.view(), 1);
      EXPECT_GT(op.compressed_rows(), 0) << m.name << ", " << k.name;
    }
  }
  if (reduced()) return;  // compute-sanitizer runs: the small blocks above suffice
  const gen::Csr64 big = gen::ghost_block(256, 256, 64);
  check_kernel_on_matrix<DeviceMemory, V, I, O>(
      "ghost block 256x256x64", big, operator_factory<V, I, O>(OperatorOptions{}), KernelOptions{});
  PlacedMatrix<DeviceMemory, V, I, O> M(big);
  Operator<V, I, O> op;
  op.setup(M.view(), 1);
  EXPECT_EQ(op.compressed_rows(), 2 * 256 * 256) << op.selection_reason();
}

TEST(OperatorGpu, EmptyRowsLeftOut) {
  check_empty_rows_left_out<double, std::int32_t, std::int32_t>();
  check_empty_rows_left_out<float, std::int64_t, std::int64_t>();
  check_empty_rows_left_out<double, std::int32_t, std::int64_t>();
}

// Another structure of the same sizes written into the same device arrays, no structure
// version: every kernel (auto too) must analyse again, not reuse what it kept of the old one.
TEST(OperatorGpu, AnotherStructureAtTheSameAddressesIsAnalysedAgain) {
  const gen::Csr64 first = gen::poisson3d(14, 14, 14);
  const gen::Csr64 second = gen::random_with_nnz(first.rows, first.cols, first.nnz(), 5);
  for (const KernelInfo& k : KernelRegistry::kernels()) {
    if (k.memory != Memory::device) continue;
    SCOPED_TRACE("kernel " + k.name);
    PlacedMatrix<DeviceMemory, double, std::int32_t, std::int32_t> M(first);
    OperatorOptions o;
    o.kernel = k.name;
    Operator<double, std::int32_t, std::int32_t> op(o);
    op.setup(M.view());
    const auto S = second.convert<double, std::int32_t, std::int32_t>();
    M.row_ptr.upload(S.row_ptr);
    M.col_idx.upload(S.col_idx);
    M.values.upload(S.values);
    M.host = S;
    op.setup(M.view());
    EXPECT_EQ(op.analysis_count(), 2u);
    const std::vector<double> x = random_vector<double>(S.cols, 8);
    DeviceMemory::Array<double> dx(S.cols), dy(S.rows);
    dx.upload(x);
    dy.upload(std::vector<double>(S.rows, std::numeric_limits<double>::quiet_NaN()));
    op.apply(Op::N, 1.0, {dx.get(), S.cols}, 0.0, {dy.get(), S.rows});
    DeviceMemory::sync();
    EXPECT_TRUE(matches_reference(Op::N, 1.0, S.view(), x, 0.0, {}, dy.download()));
  }
}

TEST(OperatorGpu, CApiOnDeviceMemory) {
  PlacedMatrix<DeviceMemory, double, std::int64_t, std::int64_t> M(
      gen::banded_normal(3000, 9, 30.0, 8));
  hola_operator op = nullptr;
  ASSERT_EQ(hola_operator_create(&op, HOLA_FLOAT64, HOLA_INT64, HOLA_INT64, "auto", 0),
            HOLA_SUCCESS);
  const auto v = M.view();
  ASSERT_EQ(hola_operator_setup(op, v.rows, v.cols, v.nnz, v.row_ptr, v.col_idx, v.values,
                                HOLA_MEMORY_DEVICE, 0),
            HOLA_SUCCESS)
      << hola_last_error();
  const std::vector<double> x = random_vector<double>(v.cols, 5);
  DeviceMemory::Array<double> dx(v.cols), dy(v.rows);
  dx.upload(x);
  const double one = 1.0, zero = 0.0;
  ASSERT_EQ(hola_operator_apply(op, HOLA_OP_N, &one, dx.get(), v.cols, &zero, nullptr, dy.get(),
                                v.rows, nullptr),
            HOLA_SUCCESS)
      << hola_last_error();
  DeviceMemory::sync();
  EXPECT_TRUE(matches_reference(Op::N, 1.0, M.host.view(), x, 0.0, {}, dy.download()));
  hola_operator_destroy(op);
}

}  // namespace
}  // namespace hola::test
