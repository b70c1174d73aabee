// auto's check at the first products (OperatorOptions::auto_check): the tree's pick, the leaf's
// runner-up and cuSPARSE take turns over the first products of each op, and the fastest stays.
// The verdict is forced through the margins, auto_check_margin and auto_check_vendor_margin (tiny:
// the fastest challenger wins; huge: the pick stays), so that both outcomes are tested whatever
// the GPU's timings.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "corpus.hpp"
#include "gpu_harness.hpp"
#include "hola/generators.hpp"
#include "hola/gpu_kernels.hpp"
#include "hola/operator.hpp"
#include "hola/selector.hpp"

namespace hola::test {
namespace {

constexpr double kChallengerAlwaysWins = 1e-9;
constexpr double kPickAlwaysStays = 1e9;
// ProductCheck::products(3) (plugin/src/product_check.hpp): pick, runner-up, cuSPARSE.
constexpr int kCheckProducts = 12;

// The kernel a check's verdict names in the selection reason ("... -> name"), else empty.
std::string verdict_of(const std::string& reason, Op op) {
  const std::string mark = std::string("op ") + op_name(op) + " checked at its first products";
  const std::size_t at = reason.rfind(mark);
  if (at == std::string::npos) return {};
  const std::size_t arrow = reason.find(" -> ", at);
  if (arrow == std::string::npos) return {};
  const std::size_t end = reason.find(';', arrow);
  return reason.substr(arrow + 4, end == std::string::npos ? std::string::npos : end - arrow - 4);
}

std::vector<NamedMatrix> check_corpus() {
  return {{"poisson3d 24^3", gen::poisson3d(24, 24, 24)},
          {"circuit 60k", gen::circuit(60000, 5, 0.3, 4, 20000, 3.0)},
          {"rmat 14", gen::rmat(14, 8, 7)}};
}

OperatorOptions with_margin(double margin) {
  OperatorOptions o;
  o.auto_check_margin = margin;
  o.auto_check_vendor_margin = margin;
  return o;
}

// Products of both ops, interleaved (BiCG's order), each checked against the reference: beta =
// 0 on a NaN-poisoned y and beta != 0 in place, until neither op's check is pending. Returns
// how many rounds that took.
template <class V, class I>
int products_until_checked(Operator<V, I, I>& op, const CsrView<V, I, I>& host) {
  std::uint64_t seed = fresh_seed();
  int round = 0;
  for (; round < 4 * kCheckProducts; ++round) {
    if (!op.auto_check_pending(Op::N) && !op.auto_check_pending(Op::T)) break;
    for (Op o : {Op::N, Op::T}) {
      const std::int64_t nx = o == Op::N ? host.cols : host.rows;
      const std::int64_t ny = o == Op::N ? host.rows : host.cols;
      const std::vector<V> x = random_vector<V>(nx, ++seed);
      const bool beta_zero = round % 2 == 0;
      const V beta = beta_zero ? V(0) : V(-0.5);
      const std::vector<V> y = beta_zero ? std::vector<V>(static_cast<std::size_t>(ny),
                                                          std::numeric_limits<V>::quiet_NaN())
                                         : random_vector<V>(ny, ++seed);
      DeviceMemory::Array<V> dx(nx), dy(ny);
      dx.upload(x);
      dy.upload(y);
      op.apply(o, V(1.5), {dx.get(), nx}, beta, {dy.get(), ny});
      DeviceMemory::sync();
      EXPECT_TRUE(matches_reference(o, V(1.5), host, x, beta,
                                    beta_zero ? std::vector<V>(static_cast<std::size_t>(ny)) : y,
                                    dy.download()))
          << "op " << op_name(o) << ", product " << round << " (" << op.kernel_name(o) << ")";
    }
  }
  return round;
}

template <class V, class I>
void check_verdict(double margin, bool challenger_wins) {
  int checked = 0;
  for (const NamedMatrix& m : check_corpus()) {
    PlacedMatrix<DeviceMemory, V, I, I> M(m.A);
    Operator<V, I, I> op(with_margin(margin));
    op.setup(M.view(), 1);
    const std::string pick[2] = {op.kernel_name(Op::N), op.kernel_name(Op::T)};
    SCOPED_TRACE(m.name + ", picks " + pick[0] + " / " + pick[1]);
    for (int k = 0; k < 2; ++k) {
      const Op o = k == 0 ? Op::N : Op::T;
      // cuSPARSE challenges every other pick (a cuSPARSE pick may still have a runner-up).
      if (pick[k] != "cusparse") EXPECT_TRUE(op.auto_check_pending(o)) << op_name(o);
    }
    const bool pending[2] = {op.auto_check_pending(Op::N), op.auto_check_pending(Op::T)};
    const int rounds = products_until_checked(op, M.host.view());
    // The verdict comes at the product right after the check's (4 per kernel, 2 or 3 kernels).
    EXPECT_LE(rounds, kCheckProducts + 1);
    for (int k = 0; k < 2; ++k) {
      const Op o = k == 0 ? Op::N : Op::T;
      EXPECT_FALSE(op.auto_check_pending(o));
      if (!pending[k]) continue;
      ++checked;
      const std::string verdict = verdict_of(op.selection_reason(), o);
      EXPECT_FALSE(verdict.empty()) << op.selection_reason();
      EXPECT_EQ(op.kernel_name(o), verdict);
      if (challenger_wins)
        EXPECT_NE(verdict, pick[k]) << op.selection_reason();
      else
        EXPECT_EQ(verdict, pick[k]) << op.selection_reason();
      const KernelSelection& s = k == 0 ? op.decision()->choice.n : op.decision()->choice.t;
      EXPECT_EQ(s.name, verdict);
    }
    // After the verdict: new values, and the products still right.
    std::vector<V> values = random_vector<V>(M.host.nnz(), 42);
    M.values.upload(values);
    M.host.values = values;
    op.setup(M.view(), 1);
    EXPECT_EQ(op.analysis_count(), 1u);
    const std::int64_t n = M.host.cols;
    const std::vector<V> x = random_vector<V>(n, 43);
    DeviceMemory::Array<V> dx(n), dy(M.host.rows);
    dx.upload(x);
    op.apply(Op::N, V(1), {dx.get(), n}, V(0), {dy.get(), M.host.rows});
    DeviceMemory::sync();
    EXPECT_TRUE(matches_reference(Op::N, V(1), M.host.view(), x, V(0), {}, dy.download()));
  }
  EXPECT_GT(checked, 0) << "nothing was checked";
}

TEST(AutoCheckGpu, FasterChallengerTakesOver) {
  check_verdict<double, std::int32_t>(kChallengerAlwaysWins, true);
  check_verdict<float, std::int32_t>(kChallengerAlwaysWins, true);
  check_verdict<double, std::int64_t>(kChallengerAlwaysWins, true);
}

TEST(AutoCheckGpu, PickStaysWhenNotBeaten) {
  check_verdict<double, std::int32_t>(kPickAlwaysStays, false);
  check_verdict<float, std::int64_t>(kPickAlwaysStays, false);
}

// Each challenger is judged by its own margin: with the runner-up's huge and cuSPARSE's tiny,
// the verdict is cuSPARSE; the other way round, never cuSPARSE (the runner-up if the leaf has
// one, else the pick).
template <class V, class I>
void check_vendor_margin() {
  int checked = 0;
  for (const NamedMatrix& m : check_corpus()) {
    for (bool vendor_wins : {true, false}) {
      PlacedMatrix<DeviceMemory, V, I, I> M(m.A);
      OperatorOptions o;
      o.auto_check_margin = vendor_wins ? kPickAlwaysStays : kChallengerAlwaysWins;
      o.auto_check_vendor_margin = vendor_wins ? kChallengerAlwaysWins : kPickAlwaysStays;
      Operator<V, I, I> op(o);
      op.setup(M.view(), 1);
      const std::string pick[2] = {op.kernel_name(Op::N), op.kernel_name(Op::T)};
      const bool pending[2] = {op.auto_check_pending(Op::N), op.auto_check_pending(Op::T)};
      SCOPED_TRACE(m.name + ", picks " + pick[0] + " / " + pick[1] +
                   (vendor_wins ? ", cuSPARSE's margin tiny" : ", the runner-up's margin tiny"));
      products_until_checked(op, M.host.view());
      for (int k = 0; k < 2; ++k) {
        const Op on = k == 0 ? Op::N : Op::T;
        if (!pending[k] || pick[k] == "cusparse") continue;
        ++checked;
        const std::string verdict = verdict_of(op.selection_reason(), on);
        EXPECT_EQ(op.kernel_name(on), verdict) << op.selection_reason();
        if (vendor_wins)
          EXPECT_EQ(verdict, "cusparse") << op.selection_reason();
        else
          EXPECT_NE(verdict, "cusparse") << op.selection_reason();
      }
    }
  }
  EXPECT_GT(checked, 0) << "nothing was checked";
}

TEST(AutoCheckGpu, EachChallengerHasItsOwnMargin) {
  check_vendor_margin<double, std::int32_t>();
  check_vendor_margin<float, std::int64_t>();
}

// A duplicate takes over the verdict: the winner from its first product, checked against
// cuSPARSE alone (a duplicate's decision carries no runner-up).
TEST(AutoCheckGpu, DuplicateTakesOverTheVerdict) {
  const gen::Csr64 A64 = gen::poisson3d(24, 24, 24);
  PlacedMatrix<DeviceMemory, double, std::int32_t, std::int32_t> M(A64), D(A64);
  Operator<double, std::int32_t, std::int32_t> first(with_margin(kChallengerAlwaysWins)),
      dup(with_margin(kChallengerAlwaysWins));
  first.setup(M.view(), 1);
  ASSERT_TRUE(first.auto_check_pending(Op::N)) << first.selection_reason();
  const std::string pick = first.kernel_name(Op::N);
  products_until_checked(first, M.host.view());
  const std::string won = first.kernel_name(Op::N);
  ASSERT_NE(won, pick) << first.selection_reason();
  dup.reuse_decision(first.decision());
  dup.setup(D.view(), 1);
  EXPECT_EQ(dup.kernel_name(Op::N), won) << dup.selection_reason();
  EXPECT_EQ(dup.auto_check_pending(Op::N), won != "cusparse") << dup.selection_reason();
  products_until_checked(dup, D.host.view());
}

// Every product the caller sees while the check compares is the pick's: bitwise equal to an
// Operator that runs the pick alone, in place and with beta = 0. Block rows with random values,
// where auto's op N pick is inode (each row summed in a fixed order) and its challengers sum in
// other orders: cuSPARSE alone, on the same inputs, must differ somewhere, so that a
// challenger's product reaching the caller would show.
TEST(AutoCheckGpu, CallerSeesOnlyThePicksProducts) {
  using V = double;
  using I = std::int32_t;
  gen::Csr64 A64 = gen::elasticity(16, 16, 16, 3);
  A64.values = gen::random_vector<double>(A64.nnz(), 5);
  PlacedMatrix<DeviceMemory, V, I, I> M(A64);
  Operator<V, I, I> checked(with_margin(kPickAlwaysStays));
  checked.setup(M.view(), 1);
  ASSERT_TRUE(checked.auto_check_pending(Op::N)) << checked.selection_reason();
  ASSERT_EQ(checked.kernel_name(Op::N), "inode") << checked.selection_reason();
  auto alone = [&](const std::string& kernel) {
    OperatorOptions o;
    o.kernel = kernel;
    auto op = std::make_unique<Operator<V, I, I>>(o);
    op->setup(M.view(), 1);
    return op;
  };
  const auto pick = alone("inode"), vendor = alone("cusparse");
  const auto host = M.host.view();
  int products = 0, vendor_differs = 0;
  for (; products < 2 * kCheckProducts && checked.auto_check_pending(Op::N); ++products) {
    const bool beta_zero = products % 2 == 0;
    const V beta = beta_zero ? V(0) : V(-0.5);
    const std::vector<V> x = gen::random_vector<V>(host.cols, 100 + products);
    const std::vector<V> y = beta_zero ? std::vector<V>(static_cast<std::size_t>(host.rows),
                                                        std::numeric_limits<V>::quiet_NaN())
                                       : gen::random_vector<V>(host.rows, 200 + products);
    DeviceMemory::Array<V> dx(x), y_checked(y), y_pick(y), y_vendor(y);
    checked.apply(Op::N, V(1.5), {dx.get(), host.cols}, beta, {y_checked.get(), host.rows});
    pick->apply(Op::N, V(1.5), {dx.get(), host.cols}, beta, {y_pick.get(), host.rows});
    vendor->apply(Op::N, V(1.5), {dx.get(), host.cols}, beta, {y_vendor.get(), host.rows});
    DeviceMemory::sync();
    const std::vector<V> got = y_checked.download(), want = y_pick.download();
    EXPECT_TRUE(got == want) << "product " << products;
    if (y_vendor.download() != want) ++vendor_differs;
  }
  EXPECT_FALSE(checked.auto_check_pending(Op::N)) << checked.selection_reason();
  EXPECT_GE(products, 8) << checked.selection_reason();  // at least pick and cuSPARSE, 4 each
  EXPECT_GT(vendor_differs, 0) << "cuSPARSE summed as inode does: the test could not fail";
}

// Where no check can run: off, deterministic mode, the setup race. Mixed index types: checked
// without cuSPARSE, which cannot take them.
TEST(AutoCheckGpu, NotPendingWhereItCannotRun) {
  const gen::Csr64 A64 = gen::poisson3d(24, 24, 24);
  auto pending = [&](OperatorOptions o, auto index_tag) {
    using O = decltype(index_tag);
    PlacedMatrix<DeviceMemory, double, std::int32_t, O> M(A64);
    Operator<double, std::int32_t, O> op(o);
    op.setup(M.view(), 1);
    return op.auto_check_pending(Op::N) || op.auto_check_pending(Op::T);
  };
  OperatorOptions on = with_margin(kChallengerAlwaysWins);
  ASSERT_TRUE(pending(on, std::int32_t{}));
  OperatorOptions off = on;
  off.auto_check = false;
  EXPECT_FALSE(pending(off, std::int32_t{}));
  OperatorOptions det = on;
  det.deterministic = true;
  EXPECT_FALSE(pending(det, std::int32_t{}));
  OperatorOptions raced = on;
  raced.auto_trial = true;
  EXPECT_FALSE(pending(raced, std::int32_t{}));
  PlacedMatrix<DeviceMemory, double, std::int32_t, std::int64_t> M(A64);
  Operator<double, std::int32_t, std::int64_t> mixed(on);
  mixed.setup(M.view(), 1);
  for (int k = 0; k < 3 * kCheckProducts; ++k) {
    for (Op o : {Op::N, Op::T}) {
      const std::int64_t nx = o == Op::N ? M.host.cols : M.host.rows;
      const std::int64_t ny = o == Op::N ? M.host.rows : M.host.cols;
      DeviceMemory::Array<double> dx(nx), dy(ny);
      dx.upload(random_vector<double>(nx, 3));
      mixed.apply(o, 1.0, {dx.get(), nx}, 0.0, {dy.get(), ny});
      DeviceMemory::sync();
    }
  }
  for (Op o : {Op::N, Op::T}) {
    EXPECT_FALSE(mixed.auto_check_pending(o));
    EXPECT_NE(mixed.kernel_name(o), "cusparse");
  }
  EXPECT_EQ(mixed.selection_reason().find(" cusparse "), std::string::npos)
      << mixed.selection_reason();
}

// A product captured into a CUDA graph ends the check on the pick (the graph keeps it; cuSPARSE,
// whose setup synchronises, never runs inside a capture), at the first product and after it.
TEST(AutoCheckGpu, GraphCaptureEndsTheCheckOnThePick) {
  using V = double;
  using I = std::int32_t;
  for (int before : {0, 1}) {
    SCOPED_TRACE("products before the capture: " + std::to_string(before));
    PlacedMatrix<DeviceMemory, V, I, I> M(gen::poisson3d(24, 24, 24));
    Operator<V, I, I> op(with_margin(kChallengerAlwaysWins));
    op.setup(M.view(), 1);
    const std::string pick = op.kernel_name(Op::N);
    ASSERT_TRUE(op.auto_check_pending(Op::N)) << op.selection_reason();
    const auto host = M.host.view();
    const std::vector<V> x = random_vector<V>(host.cols, 5);
    DeviceMemory::Array<V> dx(host.cols), dy(host.rows);
    dx.upload(x);
    cudaStream_t s = nullptr;
    ASSERT_EQ(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), cudaSuccess);
    for (int k = 0; k < before; ++k)
      op.apply(Op::N, V(1), {dx.get(), host.cols}, V(0), {dy.get(), host.rows}, s);
    ASSERT_EQ(cudaStreamSynchronize(s), cudaSuccess);
    dy.upload(
        std::vector<V>(static_cast<std::size_t>(host.rows), std::numeric_limits<V>::quiet_NaN()));
    cudaGraph_t graph = nullptr;
    ASSERT_EQ(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal), cudaSuccess);
    op.apply(Op::N, V(1), {dx.get(), host.cols}, V(0), {dy.get(), host.rows}, s);
    ASSERT_EQ(cudaStreamEndCapture(s, &graph), cudaSuccess);
    EXPECT_FALSE(op.auto_check_pending(Op::N));
    EXPECT_NE(op.selection_reason().find("a CUDA graph captured its product"), std::string::npos)
        << op.selection_reason();
    cudaGraphExec_t exec = nullptr;
    ASSERT_EQ(cudaGraphInstantiate(&exec, graph, 0), cudaSuccess);
    ASSERT_EQ(cudaGraphLaunch(exec, s), cudaSuccess);
    ASSERT_EQ(cudaStreamSynchronize(s), cudaSuccess);
    EXPECT_TRUE(matches_reference(Op::N, V(1), host, x, V(0), {}, dy.download()));
    for (int k = 0; k < 2 * kCheckProducts; ++k)
      op.apply(Op::N, V(1), {dx.get(), host.cols}, V(0), {dy.get(), host.rows}, s);
    ASSERT_EQ(cudaStreamSynchronize(s), cudaSuccess);
    EXPECT_EQ(op.kernel_name(Op::N), pick);
    EXPECT_TRUE(matches_reference(Op::N, V(1), host, x, V(0), {}, dy.download()));
    EXPECT_EQ(cudaGraphExecDestroy(exec), cudaSuccess);
    EXPECT_EQ(cudaGraphDestroy(graph), cudaSuccess);
    EXPECT_EQ(cudaStreamDestroy(s), cudaSuccess);
  }
}

// work_version, what a caller replaying a captured product compares: 0 while the check's
// products alternate kernels (no graph may keep one of them), then one number per op that further
// products keep and the verdict, a capture or a new values pointer changes.
TEST(AutoCheckGpu, WorkVersionIsZeroWhileTheCheckCompares) {
  using V = double;
  using I = std::int32_t;
  PlacedMatrix<DeviceMemory, V, I, I> M(gen::circuit(60000, 5, 0.3, 4, 20000, 3.0));
  const auto host = M.host.view();
  {
    Operator<V, I, I> op(with_margin(kChallengerAlwaysWins));
    op.setup(M.view(), 1);
    ASSERT_TRUE(op.auto_check_pending(Op::N)) << op.selection_reason();
    EXPECT_EQ(op.work_version(Op::N), 0u);
    products_until_checked(op, host);
    ASSERT_FALSE(op.auto_check_pending(Op::N));
    ASSERT_FALSE(op.auto_check_pending(Op::T));
    const std::uint64_t n = op.work_version(Op::N), t = op.work_version(Op::T);
    EXPECT_NE(n, 0u);
    EXPECT_NE(t, 0u);
    DeviceMemory::Array<V> dx(host.cols), dy(host.rows);
    dx.upload(random_vector<V>(host.cols, 3));
    for (int k = 0; k < 3; ++k)
      op.apply(Op::N, V(1), {dx.get(), host.cols}, V(0), {dy.get(), host.rows});
    DeviceMemory::sync();
    EXPECT_EQ(op.work_version(Op::N), n);
    EXPECT_EQ(op.work_version(Op::T), t);
    // The values through another pointer (same numbers, a copy): the kernels read the new one.
    DeviceMemory::Array<V> values(M.host.values);
    auto moved = M.view();
    moved.values = values.get();
    op.setup(moved, 1);
    EXPECT_NE(op.work_version(Op::N), n);
    EXPECT_NE(op.work_version(Op::T), t);
  }
  {
    // A capture ends the check on the pick: from then on a version.
    Operator<V, I, I> op(with_margin(kChallengerAlwaysWins));
    op.setup(M.view(), 1);
    ASSERT_EQ(op.work_version(Op::N), 0u);
    DeviceMemory::Array<V> dx(host.cols), dy(host.rows);
    dx.upload(random_vector<V>(host.cols, 4));
    cudaStream_t s = nullptr;
    ASSERT_EQ(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), cudaSuccess);
    cudaGraph_t graph = nullptr;
    ASSERT_EQ(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal), cudaSuccess);
    op.apply(Op::N, V(1), {dx.get(), host.cols}, V(0), {dy.get(), host.rows}, s);
    ASSERT_EQ(cudaStreamEndCapture(s, &graph), cudaSuccess);
    const std::uint64_t captured = op.work_version(Op::N);
    EXPECT_NE(captured, 0u);
    op.apply(Op::N, V(1), {dx.get(), host.cols}, V(0), {dy.get(), host.rows}, s);
    ASSERT_EQ(cudaStreamSynchronize(s), cudaSuccess);
    EXPECT_EQ(op.work_version(Op::N), captured);
    EXPECT_EQ(cudaGraphDestroy(graph), cudaSuccess);
    EXPECT_EQ(cudaStreamDestroy(s), cudaSuccess);
  }
}

// How many kernels a verdict compared: the names in "...(best of 3, us): a 1.2 b 3.4 -> a".
int kernels_in_verdict(const std::string& reason, Op op) {
  const std::string mark = std::string("op ") + op_name(op) + " checked at its first products";
  const std::size_t at = reason.rfind(mark);
  if (at == std::string::npos) return 0;
  const std::size_t colon = reason.find("us):", at), arrow = reason.find(" -> ", at);
  if (colon == std::string::npos || arrow == std::string::npos || arrow < colon) return 0;
  int words = 0;
  bool in_word = false;
  for (std::size_t k = colon + 4; k < arrow; ++k) {
    const bool space = reason[k] == ' ';
    if (!space && !in_word) ++words;
    in_word = !space;
  }
  return words / 2;  // name, time
}

// Products queued back to back without waiting (a solver's loop that lets the GPU fall
// behind): the verdict still comes at the product right after the check's 4 per kernel, so that
// which product runs which kernel does not depend on the GPU's progress; every product is right.
TEST(AutoCheckGpu, VerdictAtAFixedProduct) {
  using V = float;
  using I = std::int32_t;
  PlacedMatrix<DeviceMemory, V, I, I> M(gen::circuit(60000, 5, 0.3, 4, 20000, 3.0));
  Operator<V, I, I> op(with_margin(kChallengerAlwaysWins));
  op.setup(M.view(), 1);
  ASSERT_TRUE(op.auto_check_pending(Op::N)) << op.selection_reason();
  const auto host = M.host.view();
  const std::vector<V> x = random_vector<V>(host.cols, 9);
  constexpr int kProducts = 64;
  DeviceMemory::Array<V> dx(host.cols), dy(host.rows * kProducts);
  dx.upload(x);
  dy.upload(std::vector<V>(static_cast<std::size_t>(host.rows * kProducts),
                           std::numeric_limits<V>::quiet_NaN()));
  int verdict_at = -1;  // 1-based number of the product at which the check stopped
  for (int k = 0; k < kProducts; ++k) {
    op.apply(Op::N, V(1), {dx.get(), host.cols}, V(0), {dy.get() + k * host.rows, host.rows});
    if (verdict_at < 0 && !op.auto_check_pending(Op::N)) verdict_at = k + 1;
  }
  DeviceMemory::sync();
  const int kernels = kernels_in_verdict(op.selection_reason(), Op::N);
  ASSERT_GE(kernels, 2) << op.selection_reason();
  EXPECT_EQ(verdict_at, 4 * kernels + 1) << op.selection_reason();
  EXPECT_EQ(op.kernel_name(Op::N), verdict_of(op.selection_reason(), Op::N))
      << op.selection_reason();
  const std::vector<V> all = dy.download();
  for (int k = 0; k < kProducts; ++k) {
    const std::vector<V> y(all.begin() + k * host.rows, all.begin() + (k + 1) * host.rows);
    EXPECT_TRUE(matches_reference(Op::N, V(1), host, x, V(0), {}, y)) << "product " << k;
  }
}

// The check's timer times each product on the GPU alone: the host's time to queue it (here a
// sleep between start and the product) stays out of the slot, up to the gate's timeout; past
// it, the GPU goes on and the slot times the wait as before. Ungated, slot 0 would read >= 3 ms.
TEST(ProductTimerGpu, GateKeepsTheHostsQueueingOutOfTheSlot) {
  using namespace std::chrono_literals;
  cudaStream_t s = nullptr;
  ASSERT_EQ(cudaStreamCreate(&s), cudaSuccess);
  void* scratch = nullptr;
  ASSERT_EQ(cudaMalloc(&scratch, 4096), cudaSuccess);
  {
    gpu::ProductTimer timer(2, /*gate_timeout_us=*/1e6);
    ASSERT_TRUE(timer.gated()) << "mapped host memory is unavailable on this GPU";
    const auto begin = std::chrono::steady_clock::now();
    timer.start(0, s);
    std::this_thread::sleep_for(3ms);
    ASSERT_EQ(cudaMemsetAsync(scratch, 0, 4096, s), cudaSuccess);
    timer.stop(0, s);
    // Slot 1 shares the timer: a second gate after the first opened.
    timer.start(1, s);
    ASSERT_EQ(cudaMemsetAsync(scratch, 1, 4096, s), cudaSuccess);
    timer.stop(1, s);
    timer.wait();
    // The gates opened at stop(), not at their 1 s timeout (which would also keep the slots
    // short, so the wall time is what tells).
    EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count(), 0.5);
    EXPECT_LT(timer.elapsed_ms(0), 1.0);
    EXPECT_LT(timer.elapsed_ms(1), 1.0);
  }
  {
    gpu::ProductTimer timer(1, /*gate_timeout_us=*/1000);
    timer.start(0, s);
    std::this_thread::sleep_for(20ms);
    ASSERT_EQ(cudaMemsetAsync(scratch, 0, 4096, s), cudaSuccess);
    timer.stop(0, s);
    timer.wait();
    EXPECT_GT(timer.elapsed_ms(0), 10.0) << "the gate should have timed out after 1 ms";
  }
  {
    // A timer dropped between start and stop (a product that threw) opens its gate: the
    // stream does not wait out the 10 s timeout.
    auto timer = std::make_unique<gpu::ProductTimer>(1, /*gate_timeout_us=*/1e7);
    timer->start(0, s);
    timer.reset();
    const auto begin = std::chrono::steady_clock::now();
    ASSERT_EQ(cudaStreamSynchronize(s), cudaSuccess);
    EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count(), 1.0);
  }
  cudaFree(scratch);
  cudaStreamDestroy(s);
}

}  // namespace
}  // namespace hola::test
