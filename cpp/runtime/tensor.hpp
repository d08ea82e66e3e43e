// Plain descriptions the runtime works with once a program is verified: dtypes, value slots,
// instructions. Nothing here knows about FlatBuffers.
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "runtime/kernel_args_types.hpp"

namespace glassbox::runtime {

enum class DType : std::int8_t { Float32 = 0, Int64 = 1, Bool = 2, Int32 = 3 };

inline bool is_valid_dtype(int code) { return code >= 0 && code <= 3; }
std::size_t element_size(DType dtype);
const char* dtype_name(DType dtype);

using Shape = std::vector<std::int64_t>;
std::int64_t numel_of(const Shape& shape);
std::string shape_str(const Shape& shape);

enum class ValueKind : std::int8_t { Input = 0, Constant = 1, Arena = 2, Alias = 3 };

// One slot of the program: a contiguous tensor of a fixed dtype and shape.
struct ValueDesc {
  DType dtype = DType::Float32;
  Shape shape;
  std::int64_t numel = 0;
  ValueKind kind = ValueKind::Arena;
  std::int64_t index = 0;          // input position, constant index, arena offset or aliased slot
  std::vector<std::int32_t> dims;  // empty, or per dim -1 (static) or an expression id
  std::size_t nbytes() const { return static_cast<std::size_t>(numel) * element_size(dtype); }
};

struct InstrDesc {
  std::string op;
  std::vector<std::int32_t> inputs;
  std::vector<std::int32_t> outputs;
  KernelArgs args;  // the kernel family's typed arguments (kernel_args_types.hpp)
};

// One argument of an exported function (schema/program.fbs, Argument).
struct ArgumentDesc {
  std::string name;
  std::int32_t input = -1;  // program input position, or -1 for a value fixed at export
  std::string value;        // that value as a Python literal
};

// An artifact that fails verification. The message says what and where.
class LoadError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A failure while running: bad inputs, an index out of range inside a kernel.
class RunError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace glassbox::runtime
