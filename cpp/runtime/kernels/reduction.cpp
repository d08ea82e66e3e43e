// Reductions over a set of dims: sum, mean, amax, amin, var (float32 in and out), any and all
// (any dtype in, bool out: whether some / every element is nonzero; NaN is nonzero).
//   ReduceArgs: dims (each reduced dim once), keepdim, correction (var's; 0 for the others)
// The output shape is the input shape with the reduced dims set to 1 (keepdim) or removed.
// Accumulation is in double. When the reduced dims are the trailing ones each output is one
// contiguous run (a sum runs over 8 partial sums, one per lane, added in a fixed order; large
// tensors are split by outputs across a team, which leaves every output's bits as they are);
// otherwise a general pass scatters every input element to its output.
// And one scan: cumsum (in) -> out, DimArgs: float32 out accumulates in double, int64 out
// in int64 (from int64, int32 or bool input, as torch promotes).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "runtime/kernel.hpp"
#include "runtime/kernels/vector_math.hpp"
#include "runtime/team_stalls.hpp"

namespace glassbox::runtime {
namespace {

enum class Reduce { Sum, Mean, Amax, Amin, Var };

// Input elements from which a reduction is split across a team.
[[maybe_unused]] constexpr std::int64_t kParallelElements = 1 << 16;

typedef float f32x8 __attribute__((vector_size(32)));
typedef double f64x8 __attribute__((vector_size(64)));

// The sum of a row in double: 8 lanes of partial sums (lane l adds elements i = l mod 8), then
// the lanes in order, then the tail.
GBX_CLONES double sum_row(const float* x, std::int64_t n) {
  f64x8 acc = {};
  std::int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    f32x8 v;
    std::memcpy(&v, x + i, sizeof v);
    acc += __builtin_convertvector(v, f64x8);
  }
  double s = 0.0;
  for (int l = 0; l < 8; ++l) s += acc[l];
  for (; i < n; ++i) s += x[i];
  return s;
}

std::vector<char> reduced_mask(const std::vector<std::int64_t>& dims, std::size_t ndim) {
  std::vector<char> mask(ndim, 0);
  for (std::int64_t d : dims) mask[normalize_dim(d, ndim)] = 1;
  return mask;
}

// The reduced dims (ReduceArgs.dims) and the output shape they give; returns how many elements
// each output reduces. Only var takes a correction.
std::int64_t verify_reduced_shape(const VerifyContext& c, bool corrected) {
  c.arity(1, 1);
  const auto& a = c.args_as<ReduceArgs>();
  c.require(corrected ? std::isfinite(a.correction) : a.correction == 0.0,
            corrected ? "ReduceArgs.correction is not finite" : "takes no ReduceArgs.correction");
  const ValueDesc &in = c.in(0), &out = c.out(0);
  std::size_t nd = in.shape.size();
  std::vector<char> mask(nd, 0);
  for (std::int64_t dim : a.dims) {
    std::int64_t d = c.dim_field("ReduceArgs.dims", dim, nd);
    c.require(!mask[d], "ReduceArgs.dims repeats dim " + std::to_string(d));
    mask[d] = 1;
  }
  Shape expected;
  std::int64_t count = 1;
  for (std::size_t d = 0; d < nd; ++d) {
    if (mask[d]) {
      count *= in.shape[d];
      if (a.keepdim) expected.push_back(1);
    } else {
      expected.push_back(in.shape[d]);
    }
  }
  c.shape(out, expected, "output");
  return count;
}

template <Reduce R>
void verify(const VerifyContext& c) {
  std::int64_t count = verify_reduced_shape(c, R == Reduce::Var);
  c.dtype(c.in(0), DType::Float32, "input");
  c.dtype(c.out(0), DType::Float32, "output");
  if (R == Reduce::Amax || R == Reduce::Amin) {
    c.require(count > 0 || c.out(0).numel == 0, "max/min of an empty set");
  }
}

template <Reduce R>
double init() {
  if (R == Reduce::Amax) return -std::numeric_limits<double>::infinity();
  if (R == Reduce::Amin) return std::numeric_limits<double>::infinity();
  return 0.0;
}

template <Reduce R>
inline void combine(double& acc, double x) {
  if (R == Reduce::Amax)
    acc = (x != x || x > acc) ? x : acc;
  else if (R == Reduce::Amin)
    acc = (x != x || x < acc) ? x : acc;
  else
    acc += x;
}

// Whether the reduced dims are the innermost ones (each output reduces one contiguous run).
bool reduces_trailing(const std::vector<char>& mask) {
  bool kept_seen = false;
  for (std::size_t k = mask.size(); k-- > 0;) {
    if (!mask[k])
      kept_seen = true;
    else if (kept_seen)
      return false;
  }
  return true;
}

// accumulate() where output o reduces the contiguous run o of the input.
template <Reduce R>
void accumulate_rows(const float* x, std::int64_t n, std::vector<double>& acc,
                     const std::vector<double>* center) {
  const std::int64_t outs = static_cast<std::int64_t>(acc.size());
  const std::int64_t run = outs ? n / outs : 0;
  run_team(n >= kParallelElements ? max_team() : 1, [&](int part, int parts) {
    for (std::int64_t o = outs * part / parts; o < outs * (part + 1) / parts; ++o) {
      double a = acc[o];
      const float* row = x + o * run;
      if (center) {
        double m = (*center)[o];
        for (std::int64_t i = 0; i < run; ++i) a += (row[i] - m) * (row[i] - m);
      } else if (R == Reduce::Sum) {
        a += sum_row(row, run);
      } else {
        for (std::int64_t i = 0; i < run; ++i) combine<R>(a, row[i]);
      }
      acc[o] = a;
    }
  });
}

// acc[o] combined over all inputs mapped to o; `center` (per output) subtracted and squared if set.
template <Reduce R>
void accumulate(const float* x, const Shape& shape, const std::vector<char>& mask,
                std::vector<double>& acc, const std::vector<double>* center) {
  std::size_t nd = shape.size();
  std::int64_t n = numel_of(shape);
  if (n == 0) return;
  // Output strides expressed over input dims (0 on reduced dims).
  std::vector<std::int64_t> ostride(nd, 0);
  std::int64_t s = 1;
  for (std::size_t k = nd; k-- > 0;) {
    if (!mask[k]) {
      ostride[k] = s;
      s *= shape[k];
    }
  }
  if (reduces_trailing(mask)) {
    accumulate_rows<R>(x, n, acc, center);
    return;
  }
  std::vector<std::int64_t> index(nd, 0);
  std::int64_t o = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    if (center) {
      double d = x[i] - (*center)[o];
      acc[o] += d * d;
    } else {
      combine<R>(acc[o], x[i]);
    }
    for (std::size_t k = nd; k-- > 0;) {
      if (++index[k] < shape[k]) {
        o += ostride[k];
        break;
      }
      o -= ostride[k] * (shape[k] - 1);
      index[k] = 0;
    }
  }
}

template <Reduce R>
void run(const KernelContext& c) {
  TensorRef in = c.in(0), out = c.out(0);
  std::vector<char> mask = reduced_mask(c.args_as<ReduceArgs>().dims, in.ndim());
  std::int64_t outs = out.numel();
  std::int64_t count = outs ? in.numel() / outs : 0;
  constexpr Reduce first = (R == Reduce::Mean || R == Reduce::Var) ? Reduce::Sum : R;
  std::vector<double> acc(static_cast<std::size_t>(outs), init<first>());
  accumulate<first>(in.f32(), in.shape(), mask, acc, nullptr);
  if (R == Reduce::Mean || R == Reduce::Var) {
    for (double& a : acc) a /= static_cast<double>(count);
  }
  if (R == Reduce::Var) {
    std::vector<double> sq(acc.size(), 0.0);
    accumulate<Reduce::Sum>(in.f32(), in.shape(), mask, sq, &acc);
    double denom = static_cast<double>(count) - c.args_as<ReduceArgs>().correction;
    for (std::size_t o = 0; o < sq.size(); ++o) acc[o] = denom > 0 ? sq[o] / denom : NAN;
  }
  for (std::int64_t o = 0; o < outs; ++o) out.f32()[o] = static_cast<float>(acc[o]);
}

// Element i of a tensor of any dtype, as T.
template <typename T>
T element(const TensorRef& t, std::int64_t i) {
  switch (t.dtype()) {
    case DType::Float32:
      return static_cast<T>(t.f32()[i]);
    case DType::Int64:
      return static_cast<T>(t.i64()[i]);
    case DType::Int32:
      return static_cast<T>(t.i32()[i]);
    case DType::Bool:
      return static_cast<T>(t.b8()[i]);
  }
  return T(0);
}

void verify_logical(const VerifyContext& c) {
  verify_reduced_shape(c, false);
  c.dtype(c.out(0), DType::Bool, "output");
}

// any: the largest of the 0/1 flags is 1 (of none: -inf); all: the smallest is 1 (of none: +inf).
template <Reduce R>
void run_logical(const KernelContext& c) {
  TensorRef in = c.in(0), out = c.out(0);
  std::vector<char> mask = reduced_mask(c.args_as<ReduceArgs>().dims, in.ndim());
  const std::int64_t outs = out.numel();
  if (in.dtype() == DType::Bool && outs > 0 && reduces_trailing(mask)) {
    // Masks: each output scans its run of bytes (0 or 1) with a plain loop, no conversions.
    const std::int64_t run = in.numel() / outs;
    for (std::int64_t o = 0; o < outs; ++o) {
      const std::uint8_t* row = reinterpret_cast<const std::uint8_t*>(in.b8()) + o * run;
      std::uint8_t any = 0, all = 1;
      for (std::int64_t i = 0; i < run; ++i) any |= row[i], all &= row[i];
      out.b8()[o] = R == Reduce::Amax ? any != 0 : all != 0;
    }
    return;
  }
  std::vector<float> flags(static_cast<std::size_t>(in.numel()));
  for (std::int64_t i = 0; i < in.numel(); ++i) flags[i] = element<double>(in, i) != 0.0;
  std::vector<double> acc(static_cast<std::size_t>(out.numel()), init<R>());
  accumulate<R>(flags.data(), in.shape(), mask, acc, nullptr);
  for (std::int64_t o = 0; o < out.numel(); ++o) out.b8()[o] = acc[o] > 0.0;
}

void verify_cumsum(const VerifyContext& c) {
  c.arity(1, 1);
  const ValueDesc &in = c.in(0), &out = c.out(0);
  // A 0-d input: dim 0 or -1.
  c.dim_field("DimArgs.dim", c.args_as<DimArgs>().dim, std::max<std::size_t>(in.shape.size(), 1));
  c.shape(out, in.shape, "output");
  c.require(
      out.dtype == DType::Float32 || (out.dtype == DType::Int64 && in.dtype != DType::Float32),
      "output must be float32, or int64 from an integer or bool input");
}

template <typename Acc, typename Out>
void scan(const TensorRef& in, Out* out, std::int64_t outer, std::int64_t n, std::int64_t inner) {
  for (std::int64_t o = 0; o < outer; ++o) {
    for (std::int64_t i = 0; i < inner; ++i) {
      Acc acc = 0;
      for (std::int64_t k = 0; k < n; ++k) {
        std::int64_t at = (o * n + k) * inner + i;
        acc += element<Acc>(in, at);
        out[at] = static_cast<Out>(acc);
      }
    }
  }
}

void run_cumsum(const KernelContext& c) {
  TensorRef in = c.in(0), out = c.out(0);
  std::int64_t dim = in.ndim() ? normalize_dim(c.args_as<DimArgs>().dim, in.ndim()) : 0;
  std::int64_t outer = 1, inner = 1, n = in.ndim() ? in.dim(dim) : 1;
  for (std::int64_t d = 0; d < dim; ++d) outer *= in.dim(d);
  for (std::size_t d = dim + 1; d < in.ndim(); ++d) inner *= in.dim(d);
  if (out.dtype() == DType::Float32)
    scan<double>(in, out.f32(), outer, n, inner);
  else
    scan<std::int64_t>(in, out.i64(), outer, n, inner);
}

}  // namespace

void register_reduction_kernels(KernelRegistry& registry) {
  registry.add({"sum", verify<Reduce::Sum>, run<Reduce::Sum>});
  registry.add({"mean", verify<Reduce::Mean>, run<Reduce::Mean>});
  registry.add({"amax", verify<Reduce::Amax>, run<Reduce::Amax>});
  registry.add({"amin", verify<Reduce::Amin>, run<Reduce::Amin>});
  registry.add({"var", verify<Reduce::Var>, run<Reduce::Var>});
  registry.add({"any", verify_logical, run_logical<Reduce::Amax>});
  registry.add({"all", verify_logical, run_logical<Reduce::Amin>});
  registry.add({"cumsum", verify_cumsum, run_cumsum});
}

}  // namespace glassbox::runtime
