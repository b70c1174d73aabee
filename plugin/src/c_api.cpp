// C API over hola::Operator: type erasure by value / index / offset type.
#include <cstdint>
#include <cstring>
#include <new>
#include <string>

#include "c_api_support.hpp"
#include "hola/error.hpp"
#include "hola/gpu_kernels.hpp"
#include "hola/hola.h"
#include "hola/operator.hpp"
#include "hola/registry.hpp"

namespace {

thread_local std::string last_error;

struct AnyOperator {
  virtual ~AnyOperator() = default;
  virtual void setup(std::int64_t rows, std::int64_t cols, std::int64_t nnz, const void* row_ptr,
                     const void* col_idx, const void* values, hola::Memory memory,
                     std::uint64_t version, void* stream) = 0;
  virtual void apply(hola::Op op, const void* alpha, const void* x, std::int64_t nx,
                     const void* beta, const void* y_in, void* y_out, std::int64_t ny,
                     void* stream) = 0;
  virtual std::string kernel_name(hola::Op op) const = 0;
  virtual std::size_t workspace_bytes() const = 0;
  virtual std::uint64_t work_version(hola::Op op) const = 0;
  virtual void multiply_add(const void* x, std::int64_t nx, const void* y, void* z, std::int64_t nz,
                            void* stream) = 0;
  virtual void set_auto_race(bool on) = 0;
  virtual void set_auto_check(bool on) = 0;
  std::string names[2];
};

template <class V, class I, class O>
struct TypedOperator final : AnyOperator {
  hola::Operator<V, I, O> op;
  explicit TypedOperator(hola::OperatorOptions o) : op(std::move(o)) {}
  void setup(std::int64_t rows, std::int64_t cols, std::int64_t nnz, const void* row_ptr,
             const void* col_idx, const void* values, hola::Memory memory, std::uint64_t version,
             void* stream) override {
    op.setup(hola::c_api::csr_view<V, I, O>(rows, cols, nnz, row_ptr, col_idx, values, memory),
             version, stream);
    names[0] = op.kernel_name(hola::Op::N);
    names[1] = op.kernel_name(hola::Op::T);
  }
  void apply(hola::Op o, const void* alpha, const void* x, std::int64_t nx, const void* beta,
             const void* y_in, void* y_out, std::int64_t ny, void* stream) override {
    if (!alpha || !beta) hola::fail(hola::status::invalid_argument, "alpha and beta are required");
    const V a = *static_cast<const V*>(alpha), b = *static_cast<const V*>(beta);
    op.apply(o, a, hola::ConstVec<V>{static_cast<const V*>(x), nx}, b,
             hola::ConstVec<V>{static_cast<const V*>(y_in), y_in ? ny : 0},
             hola::Vec<V>{static_cast<V*>(y_out), ny}, stream);
  }
  std::string kernel_name(hola::Op o) const override { return op.kernel_name(o); }
  void set_auto_race(bool on) override { op.set_auto_trial(on); }
  void set_auto_check(bool on) override { op.set_auto_check(on); }
  std::size_t workspace_bytes() const override { return op.workspace_bytes(); }
  std::uint64_t work_version(hola::Op o) const override { return op.work_version(o); }
  void multiply_add(const void* x, std::int64_t nx, const void* y, void* z, std::int64_t nz,
                    void* stream) override {
    op.multiply_add(hola::ConstVec<V>{static_cast<const V*>(x), nx},
                    hola::ConstVec<V>{static_cast<const V*>(y), nz},
                    hola::Vec<V>{static_cast<V*>(z), nz}, stream);
  }
};

template <class F>
hola_status guarded(F&& f) {
  return hola::c_api::guarded(last_error, std::forward<F>(f));
}

AnyOperator* get(hola_operator op) {
  return hola::c_api::object_of<AnyOperator>(op, "null hola_operator");
}

hola::Op to_op(hola_op t) {
  if (t != HOLA_OP_N && t != HOLA_OP_T) hola::fail(hola::status::invalid_argument, "bad hola_op");
  return t == HOLA_OP_N ? hola::Op::N : hola::Op::T;
}

}  // namespace

extern "C" {

hola_status hola_operator_create(hola_operator* op, hola_value_type value_type,
                                 hola_index_type col_index_type, hola_index_type row_offset_type,
                                 const char* kernel, int deterministic) {
  return guarded([&] {
    if (!op) hola::fail(hola::status::invalid_argument, "null output pointer");
    *op = nullptr;
    hola::c_api::check_types(value_type, col_index_type, row_offset_type,
                             "value type must be HOLA_FLOAT32 or HOLA_FLOAT64",
                             "index types must be HOLA_INT32 or HOLA_INT64");
    hola::OperatorOptions opt;
    opt.kernel = kernel ? kernel : "auto";
    opt.deterministic = deterministic != 0;
    *op = reinterpret_cast<hola_operator>(hola::c_api::make_for_types<AnyOperator, TypedOperator>(
        value_type, col_index_type, row_offset_type, std::move(opt)));
  });
}

hola_status hola_operator_set_auto_race(hola_operator op, int on) {
  return guarded([&] { get(op)->set_auto_race(on != 0); });
}

hola_status hola_operator_set_auto_check(hola_operator op, int on) {
  return guarded([&] { get(op)->set_auto_check(on != 0); });
}

hola_status hola_operator_setup_on_stream(hola_operator op, int64_t rows, int64_t cols, int64_t nnz,
                                          const void* row_ptr, const void* col_idx,
                                          const void* values, hola_memory memory,
                                          uint64_t structure_version, void* stream) {
  return guarded([&] {
    if (memory != HOLA_MEMORY_HOST && memory != HOLA_MEMORY_DEVICE)
      hola::fail(hola::status::invalid_argument, "bad hola_memory");
    get(op)->setup(rows, cols, nnz, row_ptr, col_idx, values,
                   memory == HOLA_MEMORY_HOST ? hola::Memory::host : hola::Memory::device,
                   structure_version, stream);
  });
}

hola_status hola_operator_setup(hola_operator op, int64_t rows, int64_t cols, int64_t nnz,
                                const void* row_ptr, const void* col_idx, const void* values,
                                hola_memory memory, uint64_t structure_version) {
  return hola_operator_setup_on_stream(op, rows, cols, nnz, row_ptr, col_idx, values, memory,
                                       structure_version, nullptr);
}

hola_status hola_operator_apply(hola_operator op, hola_op trans, const void* alpha, const void* x,
                                int64_t x_size, const void* beta, const void* y_in, void* y_out,
                                int64_t y_size, void* stream) {
  return guarded(
      [&] { get(op)->apply(to_op(trans), alpha, x, x_size, beta, y_in, y_out, y_size, stream); });
}

hola_status hola_operator_multiply_add(hola_operator op, const void* x, int64_t x_size,
                                       const void* y, void* z, int64_t z_size, void* stream) {
  return guarded([&] { get(op)->multiply_add(x, x_size, y, z, z_size, stream); });
}

hola_status hola_operator_kernel_name(hola_operator op, hola_op trans, const char** name) {
  return guarded([&] {
    if (!name) hola::fail(hola::status::invalid_argument, "null output pointer");
    AnyOperator* any = get(op);
    const hola::Op o = to_op(trans);
    any->names[o == hola::Op::N ? 0 : 1] = any->kernel_name(o);
    *name = any->names[o == hola::Op::N ? 0 : 1].c_str();
  });
}

hola_status hola_operator_workspace_bytes(hola_operator op, size_t* bytes) {
  return guarded([&] {
    if (!bytes) hola::fail(hola::status::invalid_argument, "null output pointer");
    *bytes = get(op)->workspace_bytes();
  });
}

hola_status hola_operator_work_version(hola_operator op, hola_op trans, uint64_t* version) {
  return guarded([&] {
    if (!version) hola::fail(hola::status::invalid_argument, "null output pointer");
    *version = get(op)->work_version(to_op(trans));
  });
}

hola_status hola_operator_destroy(hola_operator op) {
  return hola::c_api::destroy<AnyOperator>(op);
}

const char* hola_last_error(void) { return last_error.c_str(); }

const char* hola_status_string(hola_status s) {
  return hola::status_name(static_cast<hola::status>(s));
}

int hola_gpu_available(void) { return hola::gpu::gpu_available() ? 1 : 0; }

const char* hola_kernel_names(void) {
  static const std::string names = hola::KernelRegistry::names();
  return names.c_str();
}

}  // extern "C"
