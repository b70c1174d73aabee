// Device-memory policy for the generic kernel checks of tests/support/spmv_check.hpp.
#pragma once

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "spmv_check.hpp"

namespace hola::test {

#define HOLA_TEST_CUDA(call)                                                        \
  do {                                                                              \
    cudaError_t e_ = (call);                                                        \
    if (e_ != cudaSuccess)                                                          \
      throw std::runtime_error(std::string(#call) + ": " + cudaGetErrorString(e_)); \
  } while (0)

struct DeviceMemory {
  static constexpr Memory kind = Memory::device;
  template <class T>
  struct Array {
    T* ptr = nullptr;
    std::size_t n = 0;
    explicit Array(std::size_t count = 0) : n(count) {
      // Always allocate at least one element so that empty arrays are still valid pointers.
      HOLA_TEST_CUDA(cudaMalloc(reinterpret_cast<void**>(&ptr), (n > 0 ? n : 1) * sizeof(T)));
    }
    ~Array() { cudaFree(ptr); }
    Array(const Array&) = delete;
    Array& operator=(const Array&) = delete;
    T* get() { return ptr; }
    void upload(const std::vector<T>& v) {
      if (v.size() != n) throw std::runtime_error("upload: size mismatch");
      if (n) HOLA_TEST_CUDA(cudaMemcpy(ptr, v.data(), n * sizeof(T), cudaMemcpyHostToDevice));
      // A copy from pageable memory may return before the data landed; kernels on other
      // (non-blocking) streams must see it.
      HOLA_TEST_CUDA(cudaDeviceSynchronize());
    }
    std::vector<T> download() const {
      std::vector<T> v(n);
      if (n) HOLA_TEST_CUDA(cudaMemcpy(v.data(), ptr, n * sizeof(T), cudaMemcpyDeviceToHost));
      return v;
    }
  };
  // Waits for the kernels and surfaces asynchronous errors (illegal address, ...).
  static void sync() { HOLA_TEST_CUDA(cudaDeviceSynchronize()); }
};

}  // namespace hola::test
