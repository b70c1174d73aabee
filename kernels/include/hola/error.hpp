// Error type shared by every layer: kernels throw it, the plugin and the C API translate it.
#pragma once

#include <stdexcept>
#include <string>

namespace hola {

enum class status : int {
  success = 0,
  invalid_argument = 1,  // sizes, null pointers, unsupported option values
  invalid_csr = 2,       // CSR structure that violates the contract
  aliasing = 3,          // x overlaps y / z
  size_mismatch = 4,     // vector or matrix sizes disagree
  unsupported = 5,       // a type, op or mode the chosen kernel cannot do
  io = 6,                // file cannot be opened / read / written
  parse = 7,             // malformed Matrix Market input
  cuda = 8,              // CUDA runtime error
  cusparse = 9,          // cuSPARSE error
  no_device = 10,        // device memory given but no usable GPU
  out_of_memory = 11,
  internal = 12,
};

const char* status_name(status s) noexcept;

class error : public std::runtime_error {
 public:
  error(status code, const std::string& message) : std::runtime_error(message), code_(code) {}
  status code() const noexcept { return code_; }

 private:
  status code_;
};

[[noreturn]] void fail(status code, const std::string& message);

}  // namespace hola
