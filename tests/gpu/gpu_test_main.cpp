// main() of every GPU test: without a usable GPU the executable reports itself skipped
// (exit code 77, ctest's SKIP_RETURN_CODE) instead of passing silently.
#include <gtest/gtest.h>

#include <cstdio>

#include "hola/gpu_kernels.hpp"

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  if (!hola::gpu::gpu_available()) {
    std::printf("SKIPPED: no CUDA device available, GPU tests not run\n");
    return 77;
  }
  return RUN_ALL_TESTS();
}
