// BatchedOperator: validation once (device index arrays mirrored on the host for it), features,
// plan, dispatch to the CPU kernels or kernels/cuda/batched.
#include "hola/batched_operator.hpp"

#include <cstdint>
#include <string>
#include <vector>

#include "hola/batched_generate.hpp"
#include "hola/batched_gpu.hpp"
#include "hola/error.hpp"
#include "hola/gpu_kernels.hpp"

namespace hola {

const char* batched_backend_name(BatchedBackend b) {
  switch (b) {
    case BatchedBackend::automatic:
      return "automatic";
    case BatchedBackend::cpu:
      return "cpu";
    case BatchedBackend::reference:
      return "reference";
    case BatchedBackend::gpu:
      return "gpu";
  }
  return "unknown";
}

namespace {

// Copies count entries of a device array to the host (empty when the pointer is null).
template <class T>
std::vector<T> mirror(const T* device, std::int64_t count) {
  std::vector<T> host;
  if (device == nullptr || count <= 0) return host;
  host.resize(static_cast<std::size_t>(count));
  gpu::copy_device_to_host(host.data(), device, host.size() * sizeof(T));
  return host;
}

// validate() on a device batch: sizes are checked before anything is copied, then the index
// arrays come to the host (values stay on the device; validate only checks them for null).
template <class V, class I>
batched::Features validate_device(const batched::BatchView<V, I>& b) {
  if (b.count < 0 || b.total_rows < 0 || b.total_cols < 0 || b.total_nnz < 0 || b.shared_rows < 0 ||
      b.shared_cols < 0 || b.shared_nnz < 0)
    fail(status::invalid_argument, "batched: negative count or sizes");
  batched::BatchData<V, I> m;  // the host mirrors of the index arrays
  if (b.format == batched::Format::csr_shared) {
    m.row_ptr = mirror(b.row_ptr, b.shared_rows + 1);
    m.col_idx = mirror(b.col_idx, b.shared_nnz);
  } else {
    m.row_off = mirror(b.row_off, b.count + 1);
    m.col_off = mirror(b.col_off, b.count + 1);
    m.nnz_off = mirror(b.nnz_off, b.count + 1);
    if (b.format == batched::Format::csr) m.row_ptr = mirror(b.row_ptr, b.total_rows + 1);
    if (b.format == batched::Format::coo) m.row_idx = mirror(b.row_idx, b.total_nnz);
    m.col_idx = mirror(b.col_idx, b.total_nnz);
  }
  batched::BatchView<V, I> h = b;
  h.memory = Memory::host;
  m.point_index_arrays(h, batched::BatchData<V, I>::template data_or_null<I>);
  return batched::validate(h);
}

}  // namespace

template <class V, class I>
BatchedOperator<V, I>::BatchedOperator(const batched::BatchView<V, I>& batch,
                                       BatchedBackend backend, const std::string& kernel,
                                       int cpu_threads)
    : batch_(batch), backend_(backend), cpu_threads_(cpu_threads) {
  if (backend_ == BatchedBackend::automatic)
    backend_ = batch.memory == Memory::device ? BatchedBackend::gpu : BatchedBackend::cpu;
  const batched::Kernel requested = batched::kernel_from_name(kernel);
  if (backend_ == BatchedBackend::gpu) {
#if defined(HOLA_ENABLE_CUDA)
    if (batch.memory != Memory::device)
      fail(status::invalid_argument, "batched: the gpu backend needs a device batch");
    if (!gpu::gpu_available()) fail(status::no_device, "batched: no usable GPU");
    features_ = validate_device(batch);
#else
    fail(status::unsupported, "batched: this build has no CUDA (gpu backend)");
#endif
  } else {
    if (batch.memory != Memory::host)
      fail(status::invalid_argument, std::string("batched: the ") + batched_backend_name(backend_) +
                                         " backend needs a host batch");
    if (requested != batched::Kernel::auto_select)
      fail(status::invalid_argument,
           "batched: kernel '" + kernel + "' is a GPU kernel; the CPU backends take 'auto'");
    features_ = batched::validate(batch);
  }
  plan_ = batched::choose_plan(features_, batch.format, sizeof(V), requested);
}

template <class V, class I>
void BatchedOperator<V, I>::apply(V alpha, const V* x, std::int64_t x_len, V beta, V* y,
                                  std::int64_t y_len, void* stream, const int* skip) const {
  batched::check_vectors(batch_, x, x_len, y, y_len);
  switch (backend_) {
    case BatchedBackend::reference:
      batched::reference_apply(batch_, alpha, x, beta, y, skip);
      return;
    case BatchedBackend::cpu:
    case BatchedBackend::automatic:
      batched::omp_apply(batch_, alpha, x, beta, y, cpu_threads_, skip);
      return;
    case BatchedBackend::gpu:
#if defined(HOLA_ENABLE_CUDA)
      batched::gpu::apply(batch_, plan_, alpha, x, beta, y, stream, skip);
      return;
#else
      (void)stream;
      fail(status::unsupported, "batched: this build has no CUDA (gpu backend)");
#endif
  }
}

template <class V, class I>
std::string BatchedOperator<V, I>::kernel_name() const {
  if (backend_ == BatchedBackend::gpu) return batched::kernel_name(plan_.kernel);
  return batched_backend_name(backend_);
}

template class BatchedOperator<float, std::int32_t>;
template class BatchedOperator<float, std::int64_t>;
template class BatchedOperator<double, std::int32_t>;
template class BatchedOperator<double, std::int64_t>;

}  // namespace hola
