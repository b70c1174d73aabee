// What the C APIs (hola.h, hola_spmspv.h, hola_batched.h) share: the error boundary that turns
// C++ exceptions into a hola_status plus a message, and the dispatch from the run-time index
// types to a typed object.
#pragma once

#include <cstdint>
#include <new>
#include <string>
#include <utility>

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

}  // namespace hola::c_api
