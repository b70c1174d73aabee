// C API of the sparse-vector products (hola/hola_spmspv.h) over hola::SpmspvOperator.
#include <memory>
#include <new>
#include <string>

#include "c_api_support.hpp"
#include "hola/error.hpp"
#include "hola/hola_spmspv.h"
#include "hola/spmspv_operator.hpp"

namespace {

thread_local std::string spmspv_last_error;

// Type-erased operator: one instance per (value, index, offset) type.
struct AnySpmspv {
  virtual ~AnySpmspv() = default;
  virtual void setup(std::int64_t rows, std::int64_t cols, std::int64_t nnz, const void* row_ptr,
                     const void* col_idx, const void* values, hola::Memory memory,
                     std::uint64_t version, void* stream) = 0;
  virtual void apply(hola_op trans, hola_semiring semiring, const hola_sparse_vector& x,
                     const hola_spmspv_mask* mask, hola_spmspv_output& y, void* stream) = 0;
  virtual const char* last() const = 0;
  virtual void set_validate_vectors(bool on) = 0;
  virtual void set_calibrate(bool on) = 0;
  virtual void set_deterministic(bool on) = 0;
};

template <class V, class I, class O>
struct TypedSpmspv final : AnySpmspv {
  hola::SpmspvOperator<V, I, O> op;
  explicit TypedSpmspv(hola::SpmspvOptions o) : op(std::move(o)) {}
  void setup(std::int64_t rows, std::int64_t cols, std::int64_t nnz, const void* row_ptr,
             const void* col_idx, const void* values, hola::Memory memory, std::uint64_t version,
             void* stream) override {
    op.setup(hola::c_api::csr_view<V, I, O>(rows, cols, nnz, row_ptr, col_idx, values, memory),
             version, stream);
  }
  void apply(hola_op trans, hola_semiring semiring, const hola_sparse_vector& x,
             const hola_spmspv_mask* mask, hola_spmspv_output& y, void* stream) override {
    if (trans != HOLA_OP_N && trans != HOLA_OP_T)
      hola::fail(hola::status::invalid_argument, "hola_spmspv_apply: op must be N or T");
    hola::spmspv::SparseVectorView<V, I> xv;
    xv.size = x.size;
    xv.nnz = x.nnz;
    xv.format = static_cast<hola::spmspv::VectorFormat>(x.format);
    xv.indices = static_cast<const I*>(x.indices);
    xv.values = static_cast<const V*>(x.values);
    xv.bits = x.bits;
    xv.memory = op.memory();  // x, the mask and y live where the matrix does
    hola::spmspv::Mask m;
    if (mask) {
      m.values = mask->values;
      m.size = mask->size;
      m.complement = mask->complement != 0;
      m.allowed = mask->allowed;
    }
    hola::spmspv::Output<V, I> out;
    out.format = y.dense ? hola::spmspv::OutputFormat::dense : hola::spmspv::OutputFormat::sparse;
    out.size = y.size;
    out.dense = static_cast<V*>(y.dense_values);
    out.indices = static_cast<I*>(y.indices);
    out.values = static_cast<V*>(y.values);
    out.capacity = y.capacity;
    out.want_sorted = y.want_sorted != 0;
    op.apply(trans == HOLA_OP_N ? hola::Op::N : hola::Op::T,
             static_cast<hola::spmspv::Semiring>(semiring), xv, out, m, stream);
    y.nnz = out.nnz;
    y.sorted = out.sorted ? 1 : 0;
  }
  const char* last() const override { return op.last_kernel(); }
  void set_validate_vectors(bool on) override { op.set_validate_vectors(on); }
  void set_calibrate(bool on) override { op.set_calibrate(on); }
  void set_deterministic(bool on) override { op.set_deterministic(on); }
};

template <class F>
hola_status guarded(F&& f) {
  return hola::c_api::guarded(spmspv_last_error, std::forward<F>(f));
}

AnySpmspv* get(hola_spmspv op) { return hola::c_api::object_of<AnySpmspv>(op, "null hola_spmspv"); }

}  // namespace

extern "C" {

hola_status hola_spmspv_create(hola_spmspv* op, hola_value_type value_type,
                               hola_index_type col_index_type, hola_index_type row_offset_type,
                               const char* kernel, int symmetric) {
  return guarded([&] {
    if (!op) hola::fail(hola::status::invalid_argument, "hola_spmspv_create: null output");
    *op = nullptr;
    hola::c_api::check_types(value_type, col_index_type, row_offset_type,
                             "hola_spmspv_create: unknown value type",
                             "hola_spmspv_create: unknown index type");
    hola::SpmspvOptions o;
    if (kernel) o.kernel = kernel;
    o.symmetric = symmetric != 0;
    *op = reinterpret_cast<hola_spmspv>(hola::c_api::make_for_types<AnySpmspv, TypedSpmspv>(
        value_type, col_index_type, row_offset_type, o));
  });
}

hola_status hola_spmspv_setup(hola_spmspv op, int64_t rows, int64_t cols, int64_t nnz,
                              const void* row_ptr, const void* col_idx, const void* values,
                              uint64_t structure_version) {
  return hola_spmspv_setup_on_stream(op, rows, cols, nnz, row_ptr, col_idx, values,
                                     HOLA_MEMORY_HOST, structure_version, nullptr);
}

hola_status hola_spmspv_setup_on_stream(hola_spmspv op, int64_t rows, int64_t cols, int64_t nnz,
                                        const void* row_ptr, const void* col_idx,
                                        const void* values, hola_memory memory,
                                        uint64_t structure_version, void* stream) {
  return guarded([&] {
    if (memory != HOLA_MEMORY_HOST && memory != HOLA_MEMORY_DEVICE)
      hola::fail(hola::status::invalid_argument, "hola_spmspv_setup: unknown memory kind");
    get(op)->setup(rows, cols, nnz, row_ptr, col_idx, values,
                   memory == HOLA_MEMORY_DEVICE ? hola::Memory::device : hola::Memory::host,
                   structure_version, stream);
  });
}

hola_status hola_spmspv_apply(hola_spmspv op, hola_op trans, hola_semiring semiring,
                              const hola_sparse_vector* x, const hola_spmspv_mask* mask,
                              hola_spmspv_output* y) {
  return hola_spmspv_apply_on_stream(op, trans, semiring, x, mask, y, nullptr);
}

hola_status hola_spmspv_apply_on_stream(hola_spmspv op, hola_op trans, hola_semiring semiring,
                                        const hola_sparse_vector* x, const hola_spmspv_mask* mask,
                                        hola_spmspv_output* y, void* stream) {
  return guarded([&] {
    if (!x || !y) hola::fail(hola::status::invalid_argument, "hola_spmspv_apply: null x or y");
    get(op)->apply(trans, semiring, *x, mask, *y, stream);
  });
}

hola_status hola_spmspv_set_validate_vectors(hola_spmspv op, int on) {
  return guarded([&] { get(op)->set_validate_vectors(on != 0); });
}

hola_status hola_spmspv_set_calibrate(hola_spmspv op, int on) {
  return guarded([&] { get(op)->set_calibrate(on != 0); });
}

hola_status hola_spmspv_set_deterministic(hola_spmspv op, int on) {
  return guarded([&] { get(op)->set_deterministic(on != 0); });
}

hola_status hola_spmspv_last_kernel(hola_spmspv op, const char** name) {
  return guarded([&] {
    if (!name) hola::fail(hola::status::invalid_argument, "hola_spmspv_last_kernel: null name");
    *name = get(op)->last();
  });
}

hola_status hola_spmspv_destroy(hola_spmspv op) { return hola::c_api::destroy<AnySpmspv>(op); }

const char* hola_spmspv_last_error(void) { return spmspv_last_error.c_str(); }

}  // extern "C"
