// The hola::status a call throws (status::success when it throws nothing).
#pragma once

#include <functional>

#include "hola/error.hpp"

namespace hola::test {

inline hola::status status_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const hola::error& e) {
    return e.code();
  }
  return hola::status::success;
}

}  // namespace hola::test
