#include "hola/error.hpp"

namespace hola {

const char* status_name(status s) noexcept {
  switch (s) {
    case status::success:
      return "success";
    case status::invalid_argument:
      return "invalid argument";
    case status::invalid_csr:
      return "invalid CSR";
    case status::aliasing:
      return "aliasing vectors";
    case status::size_mismatch:
      return "size mismatch";
    case status::unsupported:
      return "unsupported";
    case status::io:
      return "I/O error";
    case status::parse:
      return "parse error";
    case status::cuda:
      return "CUDA error";
    case status::cusparse:
      return "cuSPARSE error";
    case status::no_device:
      return "no GPU device";
    case status::out_of_memory:
      return "out of memory";
    case status::internal:
      return "internal error";
  }
  return "unknown";
}

void fail(status code, const std::string& message) { throw error(code, message); }

}  // namespace hola
