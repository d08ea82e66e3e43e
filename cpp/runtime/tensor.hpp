// Plain descriptions the runtime works with once a program is verified: dtypes, value slots,
// instructions. Nothing here knows about FlatBuffers.
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <variant>
#include <vector>

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

// conv2d's typed arguments (schema/program.fbs, Conv2dArgs).
struct Conv2dArgs {
  std::int64_t stride_h = 1, stride_w = 1, pad_h = 0, pad_w = 0, dilation_h = 1, dilation_w = 1,
               groups = 1;
  bool has_bias = false, batch_norm = false, batch_norm_weight = false, batch_norm_bias = false;
  std::int64_t epilogue = 0;  // Epilogue (packed_gemm.hpp)
};

// mm, addmm and bmm's typed arguments (schema/program.fbs, GemmArgs).
struct GemmArgs {
  bool trans_a = false, trans_b = false;
  std::int64_t epilogue = 0;  // Epilogue (packed_gemm.hpp)
  double beta = 1.0, alpha = 1.0;
};

// attention's typed arguments (schema/program.fbs, AttentionArgs).
struct AttentionArgs {
  double scale = 1.0;
  bool causal = false, has_mask = false;
  bool q_tokens_first = false, k_tokens_first = false, v_tokens_first = false,
       out_tokens_first = false, has_logsumexp = false;
};

// An instruction's typed arguments: none (its ints and floats say everything), or its family's.
using KernelArgs = std::variant<std::monostate, Conv2dArgs, GemmArgs, AttentionArgs>;

struct InstrDesc {
  std::string op;
  std::vector<std::int32_t> inputs;
  std::vector<std::int32_t> outputs;
  std::vector<std::int64_t> ints;
  std::vector<double> floats;
  std::vector<std::int32_t> int_exprs;  // empty, or per ints entry -1 or an expression id
  KernelArgs args;
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
