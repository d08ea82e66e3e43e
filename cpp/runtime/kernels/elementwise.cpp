// Elementwise family: one kernel, "elementwise", runs a fused chain of elementwise ops in one pass
// over memory. The chain is a tiny register program, its ElementwiseArgs:
//   ops       = (opcode, a, b, c) per op: the registers it reads (CONST: a indexes constants)
//   outputs   = the register each output is stored from
//   constants = scalar constants, read by CONST
// Registers 0..n_inputs-1 hold the inputs (broadcast to the output shape); op k writes register
// n_inputs + k. All outputs share one shape. Values are computed in float32 (in double when an
// operand or result is an integer) and stored as the output dtype (bool stores x != 0). Work
// proceeds in blocks so each op is a tight loop.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

#include "runtime/kernel.hpp"
#include "runtime/kernels/vector_math.hpp"
#include "runtime/team_stalls.hpp"

namespace glassbox::runtime {
namespace {

enum Op : std::int64_t {
  CONST = 0,
  ADD,
  SUB,
  MUL,
  DIV,
  POW,
  MAX,
  MIN,
  EQ,
  NE,
  LT,
  LE,
  GT,
  GE,
  WHERE,
  NEG,
  ABS,
  RELU,
  SIGMOID,
  TANH,
  EXP,
  LOG,
  SQRT,
  RSQRT,
  RECIP,
  ERF,
  GELU,
  GELU_TANH,
  SILU,
  NOT,
  AND,
  OR,
  SIN,
  COS,
  LOG1P,
  EXPM1,
  FLOOR,
  CEIL,
  ROUND,
  SIGN,
  ISNAN,
  NUM_OPS
};

int arity_of(std::int64_t op) {
  switch (op) {
    case CONST:
      return 0;
    case ADD:
    case SUB:
    case MUL:
    case DIV:
    case POW:
    case MAX:
    case MIN:
    case EQ:
    case NE:
    case LT:
    case LE:
    case GT:
    case GE:
    case AND:
    case OR:
      return 2;
    case WHERE:
      return 3;
    default:
      return 1;
  }
}

constexpr std::int64_t kBlock = 1024;
[[maybe_unused]] constexpr std::int64_t kParallelElements = 1 << 16;

// A computed value stored as an integer: NaN becomes 0, values out of range saturate (C++ leaves
// out-of-range conversions undefined).
template <typename I, typename R>
I to_int(R v) {
  if (!(v == v)) return 0;
  if (v >= static_cast<R>(std::numeric_limits<I>::max())) return std::numeric_limits<I>::max();
  if (v <= static_cast<R>(std::numeric_limits<I>::min())) return std::numeric_limits<I>::min();
  return static_cast<I>(v);
}

void verify(const VerifyContext& c) {
  const auto& p = c.args_as<ElementwiseArgs>();
  c.require(c.num_outputs() >= 1, "needs at least one output");
  c.require(p.ops.size() < 100000, "ElementwiseArgs.ops: too many ops");
  const std::int64_t n_in = static_cast<std::int64_t>(c.num_inputs());
  const std::int64_t n_ops = static_cast<std::int64_t>(p.ops.size());
  const std::int64_t n_constants = static_cast<std::int64_t>(p.constants.size());
  for (std::int64_t k = 0; k < n_ops; ++k) {
    const ElementwiseOp& op = p.ops[static_cast<std::size_t>(k)];
    const std::string where = "ElementwiseArgs.ops[" + std::to_string(k) + "]";
    c.require(op.code >= 0 && op.code < NUM_OPS,
              where + ": unknown elementwise opcode " + std::to_string(op.code));
    if (op.code == CONST) {
      c.field((where + ".a (a constant's index)").c_str(), op.a, 0, n_constants - 1);
      continue;
    }
    const std::int32_t regs[3] = {op.a, op.b, op.c};
    for (int j = 0; j < arity_of(op.code); ++j) {
      c.require(regs[j] >= 0 && regs[j] < n_in + k, where + " reads an undefined register");
    }
  }
  c.require(p.outputs.size() == c.num_outputs(),
            "ElementwiseArgs.outputs does not name one register per output");
  for (std::int32_t r : p.outputs) {
    c.field("ElementwiseArgs.outputs", r, 0, n_in + n_ops - 1);
  }
  const Shape& shape = c.out(0).shape;
  for (std::size_t j = 0; j < c.num_outputs(); ++j) {
    c.shape(c.out(j), shape, "output");
  }
  std::vector<std::int64_t> strides;
  for (std::size_t j = 0; j < c.num_inputs(); ++j) {
    c.require(broadcast_strides(c.in(j).shape, shape, strides),
              "input " + std::to_string(j) + " " + shape_str(c.in(j).shape) +
                  " does not broadcast to " + shape_str(shape));
  }
}

// One contiguous run of an input, converted to the registers' type: a float copy, bools through
// kernel.hpp's vectorised loop (as a template instance it stayed scalar), the rest by cast.
template <typename T, typename R>
void convert_run(const T* from, R* to, std::int64_t n) {
  for (std::int64_t i = 0; i < n; ++i) to[i] = static_cast<R>(from[i]);
}
inline void convert_run(const float* from, float* to, std::int64_t n) {
  std::memcpy(to, from, static_cast<std::size_t>(n) * sizeof(float));
}
inline void convert_run(const bool* from, float* to, std::int64_t n) {
  bools_to_floats(from, to, n);
}

// Results as bools, compiled per x86-64 level (the plain loop stayed scalar).
GBX_CLONES void store_bools(const float* from, bool* to, std::int64_t n) {
  auto* bytes = reinterpret_cast<std::uint8_t*>(to);
  for (std::int64_t i = 0; i < n; ++i) bytes[i] = from[i] != 0.0f;
}

template <typename T, typename R>
void load_block(const T* src, R* dst, std::int64_t start, std::int64_t len, const Shape& shape,
                const std::vector<std::int64_t>& strides, bool same, bool scalar) {
  if (same) {
    convert_run(src + start, dst, len);
    return;
  }
  if (scalar) {
    std::fill(dst, dst + len, static_cast<R>(src[0]));
    return;
  }
  std::size_t nd = shape.size();
  std::int64_t index[16];
  std::int64_t rem = start, offset = 0;
  for (std::size_t k = nd; k-- > 0;) {
    index[k] = rem % shape[k];
    rem /= shape[k];
    offset += index[k] * strides[k];
  }
  // Along the innermost dim a run is a copy (stride 1), a fill (stride 0, a broadcast) or a
  // strided gather, each a plain loop; the index steps once a run, not once an element.
  const std::int64_t last = shape[nd - 1], step = strides[nd - 1];
  for (std::int64_t i = 0; i < len;) {
    std::int64_t run = std::min(len - i, last - index[nd - 1]);
    const T* from = src + offset;
    if (step == 1) {
      convert_run(from, dst + i, run);
    } else if (step == 0) {
      std::fill(dst + i, dst + i + run, static_cast<R>(from[0]));
    } else {
      for (std::int64_t j = 0; j < run; ++j) dst[i + j] = static_cast<R>(from[j * step]);
    }
    i += run;
    offset += (run - 1) * step;
    index[nd - 1] += run - 1;
    next_strided(shape, strides.data(), index, offset);
  }
}

// Transcendental ops: float32 through the branch-free approximations of vector_math.hpp (they
// vectorise; std::erf, std::exp and std::tanh do not), double through libm.
GBX_VMATH float erf_of(float x) { return vmath::erf_f32(x); }
inline double erf_of(double x) { return std::erf(x); }
GBX_VMATH float exp_of(float x) { return vmath::exp_f32(x); }
inline double exp_of(double x) { return std::exp(x); }
GBX_VMATH float silu_of(float x) { return vmath::silu_f32(x); }
inline double silu_of(double x) { return x / (1.0 + std::exp(-x)); }
GBX_VMATH float gelu_erf(float x) { return vmath::gelu_erf_f32(x); }
inline double gelu_erf(double x) { return 0.5 * x * std::erfc(-x * 0.70710678118654752); }
GBX_VMATH float gelu_tanh(float x) { return vmath::gelu_tanh_f32(x); }
GBX_VMATH float tanh_of(float x) { return vmath::tanh_f32(x); }
inline double tanh_of(double x) { return std::tanh(x); }
inline double gelu_tanh(double x) {
  return x / (1.0 + std::exp(-2.0 * 0.79788456080286536 * (x + 0.044715 * x * x * x)));
}

template <typename R>
inline __attribute__((always_inline)) void apply(std::int64_t op, R* r, const R* a, const R* b,
                                                 const R* c, std::int64_t n, R constant) {
  switch (op) {
    case CONST:
      std::fill(r, r + n, constant);
      break;
    case ADD:
      for (std::int64_t i = 0; i < n; ++i) r[i] = a[i] + b[i];
      break;
    case SUB:
      for (std::int64_t i = 0; i < n; ++i) r[i] = a[i] - b[i];
      break;
    case MUL:
      for (std::int64_t i = 0; i < n; ++i) r[i] = a[i] * b[i];
      break;
    case DIV:
      for (std::int64_t i = 0; i < n; ++i) r[i] = a[i] / b[i];
      break;
    case POW:
      for (std::int64_t i = 0; i < n; ++i) r[i] = std::pow(a[i], b[i]);
      break;
    case MAX:
      for (std::int64_t i = 0; i < n; ++i) r[i] = (a[i] != a[i] || a[i] > b[i]) ? a[i] : b[i];
      break;
    case MIN:
      for (std::int64_t i = 0; i < n; ++i) r[i] = (a[i] != a[i] || a[i] < b[i]) ? a[i] : b[i];
      break;
    case EQ:
      for (std::int64_t i = 0; i < n; ++i) r[i] = a[i] == b[i];
      break;
    case NE:
      for (std::int64_t i = 0; i < n; ++i) r[i] = a[i] != b[i];
      break;
    case LT:
      for (std::int64_t i = 0; i < n; ++i) r[i] = a[i] < b[i];
      break;
    case LE:
      for (std::int64_t i = 0; i < n; ++i) r[i] = a[i] <= b[i];
      break;
    case GT:
      for (std::int64_t i = 0; i < n; ++i) r[i] = a[i] > b[i];
      break;
    case GE:
      for (std::int64_t i = 0; i < n; ++i) r[i] = a[i] >= b[i];
      break;
    case WHERE:
      for (std::int64_t i = 0; i < n; ++i) r[i] = a[i] != R(0) ? b[i] : c[i];
      break;
    case NEG:
      for (std::int64_t i = 0; i < n; ++i) r[i] = -a[i];
      break;
    case ABS:
      for (std::int64_t i = 0; i < n; ++i) r[i] = std::fabs(a[i]);
      break;
    case RELU:
      for (std::int64_t i = 0; i < n; ++i) r[i] = a[i] > R(0) ? a[i] : (a[i] != a[i] ? a[i] : R(0));
      break;
    case SIGMOID:
      for (std::int64_t i = 0; i < n; ++i) r[i] = R(1) / (R(1) + exp_of(-a[i]));
      break;
    case TANH:
      for (std::int64_t i = 0; i < n; ++i) r[i] = tanh_of(a[i]);
      break;
    case EXP:
      for (std::int64_t i = 0; i < n; ++i) r[i] = exp_of(a[i]);
      break;
    case LOG:
      for (std::int64_t i = 0; i < n; ++i) r[i] = std::log(a[i]);
      break;
    case SQRT:
      for (std::int64_t i = 0; i < n; ++i) r[i] = std::sqrt(a[i]);
      break;
    case RSQRT:
      for (std::int64_t i = 0; i < n; ++i) r[i] = R(1) / std::sqrt(a[i]);
      break;
    case RECIP:
      for (std::int64_t i = 0; i < n; ++i) r[i] = R(1) / a[i];
      break;
    case ERF:
      for (std::int64_t i = 0; i < n; ++i) r[i] = erf_of(a[i]);
      break;
    case GELU:
      for (std::int64_t i = 0; i < n; ++i) r[i] = gelu_erf(a[i]);
      break;
    case GELU_TANH:
      for (std::int64_t i = 0; i < n; ++i) r[i] = gelu_tanh(a[i]);
      break;
    case SILU:
      for (std::int64_t i = 0; i < n; ++i) r[i] = silu_of(a[i]);
      break;
    case NOT:
      for (std::int64_t i = 0; i < n; ++i) r[i] = a[i] == R(0);
      break;
    case AND:
      for (std::int64_t i = 0; i < n; ++i) r[i] = (a[i] != R(0)) & (b[i] != R(0));  // vectorises
      break;
    case OR:
      for (std::int64_t i = 0; i < n; ++i) r[i] = (a[i] != R(0)) | (b[i] != R(0));
      break;
    case SIN:
      for (std::int64_t i = 0; i < n; ++i) r[i] = std::sin(a[i]);
      break;
    case COS:
      for (std::int64_t i = 0; i < n; ++i) r[i] = std::cos(a[i]);
      break;
    case LOG1P:
      for (std::int64_t i = 0; i < n; ++i) r[i] = std::log1p(a[i]);
      break;
    case EXPM1:
      for (std::int64_t i = 0; i < n; ++i) r[i] = std::expm1(a[i]);
      break;
    case FLOOR:
      for (std::int64_t i = 0; i < n; ++i) r[i] = std::floor(a[i]);
      break;
    case CEIL:
      for (std::int64_t i = 0; i < n; ++i) r[i] = std::ceil(a[i]);
      break;
    case ROUND:
      for (std::int64_t i = 0; i < n; ++i) r[i] = std::nearbyint(a[i]);
      break;
    case SIGN:
      for (std::int64_t i = 0; i < n; ++i) r[i] = static_cast<R>((a[i] > R(0)) - (a[i] < R(0)));
      break;
    case ISNAN:
      for (std::int64_t i = 0; i < n; ++i) r[i] = a[i] != a[i];
      break;
    default:
      break;
  }
}

// The float32 ops, compiled once per x86-64 level (GBX_CLONES).
GBX_CLONES void apply_f32(std::int64_t op, float* r, const float* a, const float* b, const float* c,
                          std::int64_t n, float constant) {
  apply<float>(op, r, a, b, c, n, constant);
}
inline void apply_as(std::int64_t op, float* r, const float* a, const float* b, const float* c,
                     std::int64_t n, float constant) {
  apply_f32(op, r, a, b, c, n, constant);
}
inline void apply_as(std::int64_t op, double* r, const double* a, const double* b, const double* c,
                     std::int64_t n, double constant) {
  apply<double>(op, r, a, b, c, n, constant);
}

struct InputPlan {
  TensorRef ref;
  std::vector<std::int64_t> strides;
  bool same, scalar;
};

// Loads input j's elements [start, start + len) into dst, converted to R.
template <typename R>
void load_input(const InputPlan& ip, R* dst, std::int64_t start, std::int64_t len,
                const Shape& shape) {
  switch (ip.ref.dtype()) {
    case DType::Float32:
      load_block(ip.ref.f32(), dst, start, len, shape, ip.strides, ip.same, ip.scalar);
      break;
    case DType::Int64:
      load_block(ip.ref.i64(), dst, start, len, shape, ip.strides, ip.same, ip.scalar);
      break;
    case DType::Bool:
      load_block(ip.ref.b8(), dst, start, len, shape, ip.strides, ip.same, ip.scalar);
      break;
    case DType::Int32:
      load_block(ip.ref.i32(), dst, start, len, shape, ip.strides, ip.same, ip.scalar);
      break;
  }
}

// Stores len elements of src at [start, start + len) of out, converted to its dtype.
template <typename R>
void store_output(TensorRef out, const R* src, std::int64_t start, std::int64_t len) {
  switch (out.dtype()) {
    case DType::Float32:
      if constexpr (std::is_same_v<R, float>) {
        std::memcpy(out.f32() + start, src, static_cast<std::size_t>(len) * sizeof(float));
      } else {
        for (std::int64_t i = 0; i < len; ++i) out.f32()[start + i] = static_cast<float>(src[i]);
      }
      break;
    case DType::Int64:
      for (std::int64_t i = 0; i < len; ++i) out.i64()[start + i] = to_int<std::int64_t>(src[i]);
      break;
    case DType::Bool:
      if constexpr (std::is_same_v<R, float>) {
        store_bools(src, out.b8() + start, len);
      } else {
        for (std::int64_t i = 0; i < len; ++i) out.b8()[start + i] = src[i] != R(0);
      }
      break;
    case DType::Int32:
      for (std::int64_t i = 0; i < len; ++i) out.i32()[start + i] = to_int<std::int32_t>(src[i]);
      break;
  }
}

// Where register j of a block starts: a float32 input that is read whole in the output's order is
// read where it lies, every other input is loaded into its register first.
template <typename R>
const R* input_register(const InputPlan& ip, R* reg, std::int64_t start, std::int64_t len,
                        const Shape& shape) {
  if constexpr (std::is_same_v<R, float>) {
    if (ip.same && ip.ref.dtype() == DType::Float32) return ip.ref.f32() + start;
  }
  load_input(ip, reg, start, len, shape);
  return reg;
}

// One block of the program: inputs into registers, each op, outputs out of registers.
template <typename R>
void run_block(const KernelContext& c, const ElementwiseArgs& p,
               const std::vector<InputPlan>& inputs, R* regs, const R** at, std::int64_t start,
               std::int64_t len) {
  const Shape& shape = c.out(0).shape();
  const std::int64_t n_in = static_cast<std::int64_t>(inputs.size());
  for (std::int64_t j = 0; j < n_in; ++j)
    at[j] = input_register(inputs[j], regs + j * kBlock, start, len, shape);
  const std::int64_t n_ops = static_cast<std::int64_t>(p.ops.size());
  for (std::int64_t k = 0; k < n_ops; ++k) {
    const ElementwiseOp& op = p.ops[static_cast<std::size_t>(k)];
    R* r = regs + (n_in + k) * kBlock;
    int ar = arity_of(op.code);
    const R* a = ar >= 1 ? at[op.a] : nullptr;
    const R* b = ar >= 2 ? at[op.b] : nullptr;
    const R* cc = ar >= 3 ? at[op.c] : nullptr;
    R constant = op.code == CONST ? static_cast<R>(p.constants[op.a]) : R(0);
    apply_as(op.code, r, a, b, cc, len, constant);
    at[n_in + k] = r;
  }
  for (std::size_t j = 0; j < p.outputs.size(); ++j) {
    store_output(c.out(j), at[p.outputs[j]], start, len);
  }
}

template <typename R>
void run_as(const KernelContext& c) {
  const auto& p = c.args_as<ElementwiseArgs>();
  const Shape& shape = c.out(0).shape();
  const std::int64_t total = c.out(0).numel();
  const std::int64_t n_in = static_cast<std::int64_t>(c.num_inputs());
  const std::int64_t n_regs = n_in + static_cast<std::int64_t>(p.ops.size());
  std::vector<InputPlan> inputs;
  for (std::int64_t j = 0; j < n_in; ++j) {
    InputPlan ip{c.in(j), {}, false, false};
    broadcast_strides(ip.ref.shape(), shape, ip.strides);
    ip.same = ip.ref.numel() == total;
    ip.scalar = ip.ref.numel() == 1;
    inputs.push_back(std::move(ip));
  }
  const std::int64_t n_blocks = (total + kBlock - 1) / kBlock;
  // Blocks are independent: large tensors are split across a team, each part with its registers.
  run_team(total >= kParallelElements ? max_team() : 1, [&](int part, int parts) {
    std::vector<R> regs(static_cast<std::size_t>(n_regs * kBlock));
    std::vector<const R*> at(static_cast<std::size_t>(n_regs));
    for (std::int64_t blk = n_blocks * part / parts; blk < n_blocks * (part + 1) / parts; ++blk) {
      const std::int64_t start = blk * kBlock;
      run_block(c, p, inputs, regs.data(), at.data(), start, std::min(kBlock, total - start));
    }
  });
}

// float32 programs compute in float; any int64 or int32 operand or result switches to double, which
// holds every int32 and every int64 up to 2^53 exactly (index arithmetic, masks).
bool is_integer(DType d) { return d == DType::Int64 || d == DType::Int32; }

void run(const KernelContext& c) {
  bool wide = false;
  for (std::size_t j = 0; j < c.num_inputs(); ++j) wide |= is_integer(c.in(j).dtype());
  for (std::size_t j = 0; j < c.num_outputs(); ++j) wide |= is_integer(c.out(j).dtype());
  if (wide)
    run_as<double>(c);
  else
    run_as<float>(c);
}

}  // namespace

void register_elementwise_kernels(KernelRegistry& registry) {
  registry.add({"elementwise", verify, run});
}

}  // namespace glassbox::runtime
