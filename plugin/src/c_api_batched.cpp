// C API of batched SpMV (hola_batched.h) over hola::BatchedOperator: type erasure by value and
// index type.
#include <cstdint>
#include <memory>
#include <new>
#include <string>

#include "c_api_support.hpp"
#include "hola/batched_operator.hpp"
#include "hola/error.hpp"
#include "hola/hola_batched.h"

namespace {

thread_local std::string batched_last_error;

struct AnyBatched {
  virtual ~AnyBatched() = default;
  virtual void apply(const void* alpha, const void* x, std::int64_t nx, const void* beta, void* y,
                     std::int64_t ny, void* stream) = 0;
  std::string name;
};

template <class V, class I>
struct TypedBatched final : AnyBatched {
  hola::BatchedOperator<V, I> op;
  TypedBatched(const hola::batched::BatchView<V, I>& b, hola::BatchedBackend backend,
               const std::string& kernel)
      : op(b, backend, kernel) {
    name = op.kernel_name();
  }
  void apply(const void* alpha, const void* x, std::int64_t nx, const void* beta, void* y,
             std::int64_t ny, void* stream) override {
    if (alpha == nullptr || beta == nullptr)
      hola::fail(hola::status::invalid_argument, "batched: alpha or beta is null");
    op.apply(*static_cast<const V*>(alpha), static_cast<const V*>(x), nx,
             *static_cast<const V*>(beta), static_cast<V*>(y), ny, stream);
  }
};

template <class V, class I>
AnyBatched* make(const hola_batched_desc& d, hola::BatchedBackend backend,
                 const std::string& kernel) {
  hola::batched::BatchView<V, I> b;
  b.format = static_cast<hola::batched::Format>(d.format);
  b.memory = d.memory == HOLA_MEMORY_DEVICE ? hola::Memory::device : hola::Memory::host;
  b.count = d.count;
  b.shared_rows = d.shared_rows;
  b.shared_cols = d.shared_cols;
  b.shared_nnz = d.shared_nnz;
  b.total_rows = d.total_rows;
  b.total_cols = d.total_cols;
  b.total_nnz = d.total_nnz;
  b.row_off = static_cast<const I*>(d.row_off);
  b.col_off = static_cast<const I*>(d.col_off);
  b.nnz_off = static_cast<const I*>(d.nnz_off);
  b.row_ptr = static_cast<const I*>(d.row_ptr);
  b.row_idx = static_cast<const I*>(d.row_idx);
  b.col_idx = static_cast<const I*>(d.col_idx);
  b.values = static_cast<const V*>(d.values);
  return new TypedBatched<V, I>(b, backend, kernel);
}

template <class F>
hola_status guarded(F&& f) {
  return hola::c_api::guarded(batched_last_error, std::forward<F>(f));
}

AnyBatched* get(hola_batched op) {
  return hola::c_api::object_of<AnyBatched>(op, "batched: null hola_batched");
}

}  // namespace

extern "C" {

hola_status hola_batched_create(hola_batched* op, const hola_batched_desc* desc,
                                hola_batched_backend backend, const char* kernel) {
  return guarded([&] {
    if (op == nullptr || desc == nullptr)
      hola::fail(hola::status::invalid_argument, "batched: null handle or descriptor pointer");
    *op = nullptr;
    const auto& d = *desc;
    if (d.format != HOLA_BATCHED_CSR && d.format != HOLA_BATCHED_CSR_SHARED &&
        d.format != HOLA_BATCHED_COO && d.format != HOLA_BATCHED_ELL)
      hola::fail(hola::status::invalid_argument, "batched: unknown format");
    hola::c_api::check_types(d.value_type, d.index_type, d.index_type,
                             "batched: value type must be float32 or float64",
                             "batched: index type must be int32 or int64");
    if (d.memory != HOLA_MEMORY_HOST && d.memory != HOLA_MEMORY_DEVICE)
      hola::fail(hola::status::invalid_argument, "batched: unknown memory kind");
    hola::BatchedBackend be;
    switch (backend) {
      case HOLA_BATCHED_BACKEND_AUTO:
        be = hola::BatchedBackend::automatic;
        break;
      case HOLA_BATCHED_BACKEND_CPU:
        be = hola::BatchedBackend::cpu;
        break;
      case HOLA_BATCHED_BACKEND_REFERENCE:
        be = hola::BatchedBackend::reference;
        break;
      case HOLA_BATCHED_BACKEND_GPU:
        be = hola::BatchedBackend::gpu;
        break;
      default:
        hola::fail(hola::status::invalid_argument, "batched: unknown backend");
    }
    const std::string k = kernel ? kernel : "auto";
    const bool f32 = d.value_type == HOLA_FLOAT32, i32 = d.index_type == HOLA_INT32;
    AnyBatched* made =
        f32 ? (i32 ? make<float, std::int32_t>(d, be, k) : make<float, std::int64_t>(d, be, k))
            : (i32 ? make<double, std::int32_t>(d, be, k) : make<double, std::int64_t>(d, be, k));
    *op = reinterpret_cast<hola_batched>(made);
  });
}

hola_status hola_batched_apply(hola_batched op, const void* alpha, const void* x, int64_t x_size,
                               const void* beta, void* y, int64_t y_size, void* stream) {
  return guarded([&] { get(op)->apply(alpha, x, x_size, beta, y, y_size, stream); });
}

hola_status hola_batched_kernel_name(hola_batched op, const char** name) {
  return guarded([&] {
    if (name == nullptr) hola::fail(hola::status::invalid_argument, "batched: null name pointer");
    *name = get(op)->name.c_str();
  });
}

hola_status hola_batched_destroy(hola_batched op) { return hola::c_api::destroy<AnyBatched>(op); }

const char* hola_batched_last_error(void) { return batched_last_error.c_str(); }

}  // extern "C"
