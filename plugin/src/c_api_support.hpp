// What the C APIs (hola.h, hola_spmspv.h, hola_batched.h) share: the error boundary that turns
// C++ exceptions into a hola_status plus a message, the dispatch from the run-time value and
// index types to a typed object, handles, and the CSR view of untyped arrays.
#pragma once

#include <cstdint>
#include <new>
#include <string>
#include <utility>

#include "hola/csr_view.hpp"
#include "hola/error.hpp"
#include "hola/hola.h"

namespace hola::c_api {

// Runs f; a thrown hola::error becomes its status, anything else an internal or out-of-memory
// status. The message goes to `last_error` (each C API keeps its own, thread-local).
template <class F>
hola_status guarded(std::string& last_error, F&& f) {
  try {
    std::forward<F>(f)();
    return HOLA_SUCCESS;
  } catch (const hola::error& e) {
    last_error = e.what();
    return static_cast<hola_status>(e.code());
  } catch (const std::bad_alloc&) {
    last_error = "out of host memory";
    return HOLA_OUT_OF_MEMORY;
  } catch (const std::exception& e) {
    last_error = e.what();
    return HOLA_INTERNAL_ERROR;
  }
}

// The run-time types of a create call: the value type must be HOLA_FLOAT32 or HOLA_FLOAT64
// (else unsupported with `bad_value`), the column index and row offset types HOLA_INT32 or
// HOLA_INT64 (else unsupported with `bad_index`).
inline void check_types(hola_value_type value_type, hola_index_type index_type,
                        hola_index_type offset_type, const char* bad_value, const char* bad_index) {
  auto valid_index = [](hola_index_type t) { return t == HOLA_INT32 || t == HOLA_INT64; };
  if (value_type != HOLA_FLOAT32 && value_type != HOLA_FLOAT64)
    fail(status::unsupported, bad_value);
  if (!valid_index(index_type) || !valid_index(offset_type)) fail(status::unsupported, bad_index);
}

// new Typed<V, I, O>(args...) as a Base*, for the column index and row offset types chosen at
// run time (the callers have checked that both are HOLA_INT32 or HOLA_INT64).
template <class Base, template <class, class, class> class Typed, class V, class... Args>
Base* make_for_index_types(hola_index_type index_type, hola_index_type offset_type,
                           Args&&... args) {
  using i32 = std::int32_t;
  using i64 = std::int64_t;
  if (index_type == HOLA_INT32)
    return offset_type == HOLA_INT32
               ? static_cast<Base*>(new Typed<V, i32, i32>(std::forward<Args>(args)...))
               : static_cast<Base*>(new Typed<V, i32, i64>(std::forward<Args>(args)...));
  return offset_type == HOLA_INT32
             ? static_cast<Base*>(new Typed<V, i64, i32>(std::forward<Args>(args)...))
             : static_cast<Base*>(new Typed<V, i64, i64>(std::forward<Args>(args)...));
}

// The same with the value type chosen at run time too (checked: HOLA_FLOAT32 or HOLA_FLOAT64).
template <class Base, template <class, class, class> class Typed, class... Args>
Base* make_for_types(hola_value_type value_type, hola_index_type index_type,
                     hola_index_type offset_type, Args&&... args) {
  if (value_type == HOLA_FLOAT32)
    return make_for_index_types<Base, Typed, float>(index_type, offset_type,
                                                    std::forward<Args>(args)...);
  return make_for_index_types<Base, Typed, double>(index_type, offset_type,
                                                   std::forward<Args>(args)...);
}

// The object behind a C handle; a null handle is an invalid argument with that message.
template <class Object, class Handle>
Object* object_of(Handle handle, const char* null_message) {
  if (!handle) fail(status::invalid_argument, null_message);
  return reinterpret_cast<Object*>(handle);
}

// Deletes the object behind a C handle (a null handle is no error).
template <class Object, class Handle>
hola_status destroy(Handle handle) {
  delete reinterpret_cast<Object*>(handle);
  return HOLA_SUCCESS;
}

// The CSR view of the C API's untyped arrays.
template <class V, class I, class O>
CsrView<V, I, O> csr_view(std::int64_t rows, std::int64_t cols, std::int64_t nnz,
                          const void* row_ptr, const void* col_idx, const void* values,
                          Memory memory = Memory::host) {
  return hola::csr_view(rows, cols, nnz, static_cast<const O*>(row_ptr),
                        static_cast<const I*>(col_idx), static_cast<const V*>(values), memory);
}

}  // namespace hola::c_api
