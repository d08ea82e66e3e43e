// Views and copies. Reshapes are not instructions at all: they are Alias slots sharing memory.
// Everything that changes the order of elements is one gather into a contiguous output.
//   copy_strided (in) -> out    StridedArgs, a stride per dim of out:
//                               out[i] = in[offset + i . strides]
//                               (permute, transpose, expand, slice, select, clone, ...)
//   scatter_strided (self, src) -> out   StridedArgs, a stride per dim of src: out = self, then
//                               out[offset + i . strides] = src[i] (slice_scatter, select_scatter)
//   cat          (in...) -> out DimArgs (a dim of out)
//   convert      (in) -> out    dtype conversion, same shape (no arguments)
//   full         () -> out      FullArgs
//   arange       () -> out      ArangeArgs
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

#include "runtime/kernel.hpp"
#include "runtime/team_stalls.hpp"

namespace glassbox::runtime {
namespace {

// Output elements from which a copy is split across a team. A copy is quick (131072 floats: ~20 µs
// on one thread, ~12 on two), and a team region waits for its slowest thread: where the second
// core is slow to come (another process, a busy host), a region costs 100-200 µs, and Llama's
// copies and cats at 8 x 128 took 4 times as long split as on one thread.
[[maybe_unused]] constexpr std::int64_t kParallelElements = 1 << 19;

void verify_copy_strided(const VerifyContext& c) {
  c.arity(1, 1);
  const ValueDesc &in = c.in(0), &out = c.out(0);
  c.require(in.dtype == out.dtype, "input and output dtypes differ");
  verify_view_bounds(c, out.shape, in.numel);
}

void verify_scatter_strided(const VerifyContext& c) {
  c.arity(2, 1);
  const ValueDesc &self = c.in(0), &src = c.in(1), &out = c.out(0);
  c.require(self.dtype == out.dtype && src.dtype == out.dtype, "dtypes differ");
  c.shape(out, self.shape, "output");
  verify_view_bounds(c, src.shape, out.numel);
}

// out = self, then src written over the strided view of out (slice_scatter, select_scatter).
void run_scatter_strided(const KernelContext& c) {
  TensorRef self = c.in(0), src = c.in(1), out = c.out(0);
  std::size_t elem = element_size(out.dtype());
  if (out.numel()) std::memcpy(out.data, self.data, static_cast<std::size_t>(out.numel()) * elem);
  const auto* from = static_cast<const std::uint8_t*>(src.data);
  auto* to = static_cast<std::uint8_t*>(out.data);
  for_each_strided(
      src.shape(), c.args_as<StridedArgs>().strides.data(), c.args_as<StridedArgs>().offset,
      [&](std::int64_t i, std::int64_t at) { std::memcpy(to + at * elem, from + i * elem, elem); });
}

// Rows [r0, r1) of copy_strided (a row: the innermost dim of out).
struct StridedRows {
  const std::uint8_t* src;
  std::uint8_t* dst;
  const Shape& shape;
  const std::int64_t* strides;
  std::int64_t offset;
  std::size_t elem;

  void copy(std::int64_t r0, std::int64_t r1) const {
    const Shape outer(shape.begin(), shape.end() - (shape.empty() ? 0 : 1));
    const std::int64_t inner = shape.empty() ? 1 : shape.back();
    std::int64_t index[16] = {0}, at = offset;
    for (std::size_t k = outer.size(), rest = static_cast<std::size_t>(r0); k-- > 0;) {
      index[k] = static_cast<std::int64_t>(rest) % outer[k];  // r0 unravelled over the outer dims
      rest /= static_cast<std::size_t>(outer[k]);
      at += index[k] * strides[k];
    }
    for (std::int64_t r = r0; r < r1; ++r) {
      row(dst + r * inner * static_cast<std::int64_t>(elem), at, inner);
      next_strided(outer, strides, index, at);
    }
  }

  void row(std::uint8_t* to, std::int64_t at, std::int64_t inner) const {
    const std::int64_t s = shape.empty() ? 1 : strides[shape.size() - 1];
    if (s == 1) {
      std::memcpy(to, src + at * static_cast<std::int64_t>(elem), inner * elem);
    } else if (elem == 4) {
      const float* sp = reinterpret_cast<const float*>(src) + at;
      float* dp = reinterpret_cast<float*>(to);
      for (std::int64_t i = 0; i < inner; ++i) dp[i] = sp[i * s];
    } else {
      for (std::int64_t i = 0; i < inner; ++i) {
        std::memcpy(to + i * static_cast<std::int64_t>(elem), src + (at + i * s) * elem, elem);
      }
    }
  }
};

// Rows are independent: large copies are split across a team.
void run_copy_strided(const KernelContext& c) {
  TensorRef in = c.in(0), out = c.out(0);
  const Shape& shape = out.shape();
  const std::int64_t n = out.numel();
  if (n == 0) return;
  const auto& args = c.args_as<StridedArgs>();
  const StridedRows rows{static_cast<const std::uint8_t*>(in.data),
                         static_cast<std::uint8_t*>(out.data),
                         shape,
                         args.strides.data(),
                         args.offset,
                         element_size(out.dtype())};
  const std::int64_t count = n / (shape.empty() ? 1 : shape.back());
  run_team(n >= kParallelElements ? max_team() : 1, [&](int part, int parts) {
    rows.copy(count * part / parts, count * (part + 1) / parts);
  });
}

void verify_cat(const VerifyContext& c) {
  c.require(c.num_inputs() >= 1 && c.num_outputs() == 1, "expects inputs and one output");
  const ValueDesc& out = c.out(0);
  std::int64_t dim = c.dim_field("DimArgs.dim", c.args_as<DimArgs>().dim, out.shape.size());
  std::int64_t total = 0;
  for (std::size_t j = 0; j < c.num_inputs(); ++j) {
    const ValueDesc& in = c.in(j);
    c.require(in.dtype == out.dtype, "dtypes differ");
    c.require(in.shape.size() == out.shape.size(), "ranks differ");
    for (std::size_t d = 0; d < in.shape.size(); ++d) {
      if (static_cast<std::int64_t>(d) != dim)
        c.require(in.shape[d] == out.shape[d], "shapes differ outside dim");
    }
    total += in.shape[dim];
  }
  c.require(total == out.shape[dim], "sizes along dim do not add up");
}

void run_cat(const KernelContext& c) {
  TensorRef out = c.out(0);
  std::int64_t dim = normalize_dim(c.args_as<DimArgs>().dim, out.ndim());
  std::size_t elem = element_size(out.dtype());
  std::int64_t outer = 1, inner = 1;
  for (std::int64_t d = 0; d < dim; ++d) outer *= out.dim(d);
  for (std::size_t d = dim + 1; d < out.ndim(); ++d) inner *= out.dim(d);
  std::int64_t out_row = out.dim(dim) * inner;
  auto* dst = static_cast<std::uint8_t*>(out.data);
  // Outer rows are independent: large outputs are split across a team.
  run_team(out.numel() >= kParallelElements ? max_team() : 1, [&](int part, int parts) {
    std::int64_t at = 0;
    for (std::size_t j = 0; j < c.num_inputs(); ++j) {
      TensorRef in = c.in(j);
      std::int64_t row = in.dim(dim) * inner;
      const auto* src = static_cast<const std::uint8_t*>(in.data);
      for (std::int64_t o = outer * part / parts; o < outer * (part + 1) / parts && row > 0; ++o) {
        std::memcpy(dst + (o * out_row + at) * elem, src + o * row * elem, row * elem);
      }
      at += row;
    }
  });
}

void verify_convert(const VerifyContext& c) {
  c.arity(1, 1);
  c.shape(c.out(0), c.in(0).shape, "output");
}

template <typename From, typename To>
void convert(const From* src, To* dst, std::int64_t n) {
  for (std::int64_t i = 0; i < n; ++i) {
    if constexpr (std::is_same_v<To, bool>) {
      dst[i] = src[i] != From(0);
    } else if constexpr (std::is_floating_point_v<From> && std::is_integral_v<To>) {
      From v = src[i];
      // Out-of-range float to int is undefined in C++: saturate (NaN becomes 0).
      if (!(v == v))
        dst[i] = 0;
      else if (v >= static_cast<From>(std::numeric_limits<To>::max()))
        dst[i] = std::numeric_limits<To>::max();
      else if (v <= static_cast<From>(std::numeric_limits<To>::min()))
        dst[i] = std::numeric_limits<To>::min();
      else
        dst[i] = static_cast<To>(v);
    } else {
      dst[i] = static_cast<To>(src[i]);
    }
  }
}

// bool to float32 (masks): the vectorised loop of kernel.hpp.
void convert(const bool* src, float* dst, std::int64_t n) { bools_to_floats(src, dst, n); }

template <typename From>
void convert_to(const From* src, const TensorRef& out, std::int64_t n) {
  switch (out.dtype()) {
    case DType::Float32:
      convert(src, out.f32(), n);
      break;
    case DType::Int64:
      convert(src, out.i64(), n);
      break;
    case DType::Bool:
      convert(src, out.b8(), n);
      break;
    case DType::Int32:
      convert(src, out.i32(), n);
      break;
  }
}

void run_convert(const KernelContext& c) {
  TensorRef in = c.in(0), out = c.out(0);
  switch (in.dtype()) {
    case DType::Float32:
      convert_to(in.f32(), out, in.numel());
      break;
    case DType::Int64:
      convert_to(in.i64(), out, in.numel());
      break;
    case DType::Bool:
      convert_to(in.b8(), out, in.numel());
      break;
    case DType::Int32:
      convert_to(in.i32(), out, in.numel());
      break;
  }
}

void verify_full(const VerifyContext& c) {
  c.arity(0, 1);  // FullArgs.value: any double (-inf fills masks)
}

void run_full(const KernelContext& c) {
  TensorRef out = c.out(0);
  double v = c.args_as<FullArgs>().value;
  std::int64_t n = out.numel();
  switch (out.dtype()) {
    case DType::Float32:
      for (std::int64_t i = 0; i < n; ++i) out.f32()[i] = static_cast<float>(v);
      break;
    case DType::Int64: {
      std::int64_t iv = 0;
      convert(&v, &iv, 1);
      for (std::int64_t i = 0; i < n; ++i) out.i64()[i] = iv;
      break;
    }
    case DType::Bool:
      for (std::int64_t i = 0; i < n; ++i) out.b8()[i] = v != 0.0;
      break;
    case DType::Int32: {
      std::int32_t iv = 0;
      convert(&v, &iv, 1);
      for (std::int64_t i = 0; i < n; ++i) out.i32()[i] = iv;
      break;
    }
  }
}

void verify_arange(const VerifyContext& c) {
  c.arity(0, 1);
  const auto& a = c.args_as<ArangeArgs>();
  c.require(std::isfinite(a.start) && std::isfinite(a.step),
            "ArangeArgs.start and step must be finite");
  c.require(c.out(0).shape.size() == 1, "output must be 1-d");
  c.require(c.out(0).dtype != DType::Bool, "output must be numeric");
}

void run_arange(const KernelContext& c) {
  TensorRef out = c.out(0);
  double start = c.args_as<ArangeArgs>().start, step = c.args_as<ArangeArgs>().step;
  for (std::int64_t i = 0; i < out.numel(); ++i) {
    double v = start + step * static_cast<double>(i);
    if (out.dtype() == DType::Float32)
      out.f32()[i] = static_cast<float>(v);
    else if (out.dtype() == DType::Int32)
      convert(&v, out.i32() + i, 1);
    else
      convert(&v, out.i64() + i, 1);
  }
}

}  // namespace

void register_view_kernels(KernelRegistry& registry) {
  registry.add({"copy_strided", verify_copy_strided, run_copy_strided});
  registry.add({"scatter_strided", verify_scatter_strided, run_scatter_strided});
  registry.add({"cat", verify_cat, run_cat});
  registry.add({"convert", verify_convert, run_convert});
  registry.add({"full", verify_full, run_full});
  registry.add({"arange", verify_arange, run_arange});
}

}  // namespace glassbox::runtime
