// auto's check at the first products when the device is out of memory for the challengers'
// output (plugin/src/operator.cpp, checked_product): the check ends on the pick, which computes
// the product, instead of failing it. The test fills the GPU's memory, so it runs alone
// (RUN_SERIAL in tests/CMakeLists.txt).
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "gpu_harness.hpp"
#include "hola/generators.hpp"
#include "hola/operator.hpp"

namespace hola::test {
namespace {

// Allocates device memory until only about `keep` bytes are free; frees it when destroyed.
class DeviceMemoryHog {
 public:
  explicit DeviceMemoryHog(std::size_t keep) {
    constexpr std::size_t kChunk = std::size_t(1) << 30, kGranule = std::size_t(2) << 20;
    for (;;) {
      std::size_t free = 0, total = 0;
      HOLA_TEST_CUDA(cudaMemGetInfo(&free, &total));
      if (free <= keep + kGranule) break;
      std::size_t bytes = free - keep > kChunk ? kChunk : (free - keep) / kGranule * kGranule;
      void* p = nullptr;
      while (bytes >= kGranule && cudaMalloc(&p, bytes) != cudaSuccess) {
        (void)cudaGetLastError();  // not sticky; clear it
        bytes /= 2;
      }
      if (bytes < kGranule) break;
      blocks_.emplace_back(p, cudaFree);
    }
  }
  std::size_t free_now() const {
    std::size_t free = 0, total = 0;
    HOLA_TEST_CUDA(cudaMemGetInfo(&free, &total));
    return free;
  }

 private:
  std::vector<std::unique_ptr<void, cudaError_t (*)(void*)>> blocks_;
};

TEST(AutoCheckMemoryFull, CheckEndsOnThePickWhenItsOutputCannotBeAllocated) {
  using V = double;
  using I = std::int32_t;
  // 16 M rows of 3 entries: the challengers' output vector is 128 MiB, their own setup (cuSPARSE's
  // buffer, the row kernels' small tables) far less.
  const gen::Csr64 A64 = gen::banded_normal(std::int64_t(1) << 24, 3, 10.0, 11);
  PlacedMatrix<DeviceMemory, V, I, I> M(A64);
  const auto host = M.host.view();
  Operator<V, I, I> checked;
  checked.setup(M.view(), 1);
  ASSERT_TRUE(checked.auto_check_pending(Op::N)) << checked.selection_reason();
  const std::string pick = checked.kernel_name(Op::N);
  OperatorOptions alone_options;
  alone_options.kernel = pick;
  Operator<V, I, I> alone(alone_options);
  alone.setup(M.view(), 1);

  const std::vector<V> x = gen::random_vector<V>(host.cols, 3);
  const std::vector<V> poison(static_cast<std::size_t>(host.rows),
                              std::numeric_limits<V>::quiet_NaN());
  DeviceMemory::Array<V> dx(x), y_checked(poison), y_alone(poison);
  const std::size_t output_bytes = static_cast<std::size_t>(host.rows) * sizeof(V);
  {
    // Free memory left: 7/8 of the output vector, room for the challengers' setup but not for
    // the output.
    DeviceMemoryHog hog(output_bytes / 8 * 7);
    ASSERT_LT(hog.free_now(), output_bytes) << "could not fill the device's memory";
    checked.apply(Op::N, V(1.5), {dx.get(), host.cols}, V(0), {y_checked.get(), host.rows});
    alone.apply(Op::N, V(1.5), {dx.get(), host.cols}, V(0), {y_alone.get(), host.rows});
    DeviceMemory::sync();
  }
  const std::string reason = checked.selection_reason();
  EXPECT_FALSE(checked.auto_check_pending(Op::N)) << reason;
  EXPECT_EQ(checked.kernel_name(Op::N), pick) << reason;
  EXPECT_NE(reason.find("no device memory for the challengers' output"), std::string::npos)
      << "the check did not end at the output's allocation (a challenger's setup may have run "
         "out of memory first: then leave more free memory): "
      << reason;
  const std::vector<V> got = y_checked.download();
  EXPECT_TRUE(got == y_alone.download());
  EXPECT_TRUE(matches_reference(Op::N, V(1.5), host, x, V(0),
                                std::vector<V>(static_cast<std::size_t>(host.rows)), got));

  // Memory back: the check does not start again; products in place stay the pick's.
  checked.apply(Op::N, V(1), {dx.get(), host.cols}, V(-0.5), {y_checked.get(), host.rows});
  alone.apply(Op::N, V(1), {dx.get(), host.cols}, V(-0.5), {y_alone.get(), host.rows});
  DeviceMemory::sync();
  EXPECT_FALSE(checked.auto_check_pending(Op::N));
  EXPECT_TRUE(y_checked.download() == y_alone.download());
}

}  // namespace
}  // namespace hola::test
