// The one error type of the bytecode layer: what went wrong, and where in the input.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>

namespace glassbox::bytecode {

// Raised for any malformed, truncated or unsupported input. `offset` is the byte offset in the
// input buffer where the problem was found (or npos when it has no position).
class BytecodeError : public std::runtime_error {
 public:
  static constexpr std::size_t npos = static_cast<std::size_t>(-1);

  BytecodeError(const std::string& reason, std::size_t offset = npos)
      : std::runtime_error(offset == npos ? reason
                                          : "at offset " + std::to_string(offset) + ": " + reason),
        reason_(reason),
        offset_(offset) {}

  const std::string& reason() const { return reason_; }
  std::size_t offset() const { return offset_; }

 private:
  std::string reason_;
  std::size_t offset_;
};

}  // namespace glassbox::bytecode
