// Normalizations: softmax, log_softmax, layer_norm, batch_norm (inference).
//   softmax / log_softmax (x) -> out                 DimArgs
//   layer_norm (x, [weight], [bias]) -> out[, mean, rstd]
//                                  LayerNormArgs (normalized_dims, has_weight, has_bias, eps)
//   rms_norm (x, [weight]) -> out  LayerNormArgs (normalized_dims, has_weight, eps; no bias)
//   batch_norm (x, [weight], [bias], running_mean, running_var) -> out[, empty, empty]
//                                  BatchNormArgs (has_weight, has_bias, eps); channels are dim 1
#include <algorithm>
#include <cmath>

#include "runtime/kernel.hpp"
#include "runtime/kernels/vector_math.hpp"
#include "runtime/team_stalls.hpp"

namespace glassbox::runtime {
namespace {

// Rows of at least this many elements in all are split across OpenMP threads.
[[maybe_unused]] constexpr std::int64_t kParallelElements = 1 << 16;

// Softmax (or log-softmax) of one contiguous row: the vectorised path of the common last-dim case.
// Row functions carry the clones, not the OpenMP loops over them (GCC outlines a parallel region
// into a function of its own, which target_clones would not reach), and are no templates (Clang's
// target_clones takes none).
GBX_CLONES void softmax_row(const float* xp, float* yp, std::int64_t size, bool log) {
  float mx = vmath::max_f32(xp, size);
  for (std::int64_t k = 0; k < size; ++k) yp[k] = vmath::exp_f32(xp[k] - mx);
  if (log) {
    float lse = mx + std::log(vmath::sum_f32(yp, size));
    for (std::int64_t k = 0; k < size; ++k) yp[k] = xp[k] - lse;
  } else {
    float inv = 1.0f / vmath::sum_f32(yp, size);
    for (std::int64_t k = 0; k < size; ++k) yp[k] *= inv;
  }
}

// row(r) for each of `rows` rows of `size` elements, split across a team when large (each row is
// computed alike on whichever thread runs it).
template <typename Row>
void for_each_row(std::int64_t rows, std::int64_t size, Row&& row) {
  run_team(rows * size >= kParallelElements ? max_team() : 1, [&](int part, int parts) {
    for (std::int64_t r = rows * part / parts; r < rows * (part + 1) / parts; ++r) row(r);
  });
}

template <bool Log>
void softmax_rows(const float* x, float* y, std::int64_t rows, std::int64_t size) {
  for_each_row(rows, size,
               [&](std::int64_t r) { softmax_row(x + r * size, y + r * size, size, Log); });
}

void split_at(const Shape& shape, std::int64_t dim, std::int64_t& outer, std::int64_t& size,
              std::int64_t& inner) {
  outer = 1;
  inner = 1;
  for (std::int64_t d = 0; d < dim; ++d) outer *= shape[d];
  size = shape.empty() ? 1 : shape[dim];
  for (std::size_t d = dim + 1; d < shape.size(); ++d) inner *= shape[d];
}

void verify_softmax(const VerifyContext& c) {
  c.arity(1, 1);
  c.dtype(c.in(0), DType::Float32, "input");
  c.dtype(c.out(0), DType::Float32, "output");
  c.shape(c.out(0), c.in(0).shape, "output");
  std::size_t nd = std::max<std::size_t>(c.in(0).shape.size(), 1);  // a 0-d input: dim 0 or -1
  c.dim_field("DimArgs.dim", c.args_as<DimArgs>().dim, nd);
}

template <bool Log>
void run_softmax(const KernelContext& c) {
  TensorRef in = c.in(0), out = c.out(0);
  std::int64_t dim = in.ndim() ? normalize_dim(c.args_as<DimArgs>().dim, in.ndim()) : 0;
  std::int64_t outer, size, inner;
  split_at(in.shape(), dim, outer, size, inner);
  const float* x = in.f32();
  float* y = out.f32();
  if (inner == 1) {
    softmax_rows<Log>(x, y, outer, size);
    return;
  }
  for (std::int64_t o = 0; o < outer; ++o) {
    for (std::int64_t i = 0; i < inner; ++i) {
      const float* xp = x + o * size * inner + i;
      float* yp = y + o * size * inner + i;
      float mx = -INFINITY;
      for (std::int64_t k = 0; k < size; ++k) mx = std::max(mx, xp[k * inner]);
      double sum = 0;
      for (std::int64_t k = 0; k < size; ++k) {
        float e = std::exp(xp[k * inner] - mx);
        sum += e;
        if (!Log) yp[k * inner] = e;
      }
      if (Log) {
        float lse = mx + static_cast<float>(std::log(sum));
        for (std::int64_t k = 0; k < size; ++k) yp[k * inner] = xp[k * inner] - lse;
      } else {
        float inv = static_cast<float>(1.0 / sum);
        for (std::int64_t k = 0; k < size; ++k) yp[k * inner] *= inv;
      }
    }
  }
}

void verify_layer_norm(const VerifyContext& c) {
  const auto& a = c.args_as<LayerNormArgs>();
  std::int64_t nn = a.normalized_dims;
  bool hw = a.has_weight, hb = a.has_bias;
  c.require(c.num_inputs() == 1u + hw + hb,
            "input count does not match LayerNormArgs.has_weight/has_bias");
  c.require(c.num_outputs() == 1 || c.num_outputs() == 3, "expects 1 or 3 outputs");
  c.require(std::isfinite(a.eps), "LayerNormArgs.eps is not finite");
  const ValueDesc& x = c.in(0);
  c.dtype(x, DType::Float32, "input");
  c.field("LayerNormArgs.normalized_dims", nn, 1, static_cast<std::int64_t>(x.shape.size()));
  Shape norm(x.shape.end() - nn, x.shape.end());
  for (std::size_t j = 1; j < c.num_inputs(); ++j) {
    c.dtype(c.in(j), DType::Float32, "weight/bias");
    c.shape(c.in(j), norm, "weight/bias");
  }
  c.shape(c.out(0), x.shape, "output");
  c.dtype(c.out(0), DType::Float32, "output");
  if (c.num_outputs() == 3) {
    Shape stat(x.shape.begin(), x.shape.end() - nn);
    stat.resize(x.shape.size(), 1);
    c.shape(c.out(1), stat, "mean");
    c.shape(c.out(2), stat, "rstd");
    c.dtype(c.out(1), DType::Float32, "mean");
    c.dtype(c.out(2), DType::Float32, "rstd");
  }
}

// One row of layer_norm in float: two passes (the mean, then the squared deviations: no
// cancellation), then the affine map; returns the mean and 1/std.
GBX_CLONES void layer_norm_row(const float* xp, float* yp, const float* w, const float* b,
                               std::int64_t size, float eps, float* mean, float* rstd) {
  // The mean is c + d: c the row's first element, d the mean difference to it. Deviations are
  // (x - c) - d, exact in their first step, so a large common offset costs no precision.
  float n = static_cast<float>(size), c = xp[0];
  float d = vmath::sum_f32(xp, size, c) / n;
  float rs = 1.0f / std::sqrt(vmath::sum_sq_dev_f32(xp, size, c, d) / n + eps);
  if (w && b) {
    for (std::int64_t i = 0; i < size; ++i) yp[i] = ((xp[i] - c) - d) * rs * w[i] + b[i];
  } else {
    for (std::int64_t i = 0; i < size; ++i) yp[i] = ((xp[i] - c) - d) * rs;
    if (w)
      for (std::int64_t i = 0; i < size; ++i) yp[i] *= w[i];
    if (b)
      for (std::int64_t i = 0; i < size; ++i) yp[i] += b[i];
  }
  *mean = c + d;
  *rstd = rs;
}

// Elements in each row normalized over x's last `dims` dims.
std::int64_t normalized_size(const TensorRef& x, std::int64_t dims) {
  std::int64_t size = 1;
  for (std::size_t d = x.ndim() - dims; d < x.ndim(); ++d) size *= x.dim(d);
  return size;
}

void layer_norm_rows(const float* x, float* y, const float* w, const float* b, std::int64_t rows,
                     std::int64_t size, float eps, float* mean_out, float* rstd_out) {
  for_each_row(rows, size, [&](std::int64_t r) {
    float mean, rstd;
    layer_norm_row(x + r * size, y + r * size, w, b, size, eps, &mean, &rstd);
    if (mean_out) {
      mean_out[r] = mean;
      rstd_out[r] = rstd;
    }
  });
}

void run_layer_norm(const KernelContext& c) {
  TensorRef x = c.in(0), y = c.out(0);
  const auto& a = c.args_as<LayerNormArgs>();
  std::int64_t nn = a.normalized_dims;
  bool hw = a.has_weight, hb = a.has_bias;
  const float* w = hw ? c.in(1).f32() : nullptr;
  const float* b = hb ? c.in(1 + hw).f32() : nullptr;
  std::int64_t size = normalized_size(x, nn);
  std::int64_t rows = size ? x.numel() / size : 0;
  float* mean_out = c.num_outputs() == 3 ? c.out(1).f32() : nullptr;
  float* rstd_out = c.num_outputs() == 3 ? c.out(2).f32() : nullptr;
  layer_norm_rows(x.f32(), y.f32(), w, b, rows, size, static_cast<float>(a.eps), mean_out,
                  rstd_out);
}

// rms_norm: layer_norm's arguments without a bias, one output.
void verify_rms_norm(const VerifyContext& c) {
  const auto& a = c.args_as<LayerNormArgs>();
  c.require(!a.has_bias, "rms_norm takes no bias");
  c.require(c.num_outputs() == 1, "rms_norm has one output");
  verify_layer_norm(c);
}

// One row of rms_norm: x / sqrt(mean(x^2) + eps), then the weight, each step rounded as the
// formula models write (x * rsqrt(...), then * w).
GBX_CLONES void rms_norm_row(const float* xp, float* yp, const float* w, std::int64_t size,
                             float eps) {
  const float ms = vmath::sum_sq_dev_f32(xp, size, 0.0f, 0.0f) / static_cast<float>(size);
  const float rs = 1.0f / std::sqrt(ms + eps);
  if (w) {
    for (std::int64_t i = 0; i < size; ++i) yp[i] = (xp[i] * rs) * w[i];
  } else {
    for (std::int64_t i = 0; i < size; ++i) yp[i] = xp[i] * rs;
  }
}

void run_rms_norm(const KernelContext& c) {
  TensorRef x = c.in(0), y = c.out(0);
  const auto& a = c.args_as<LayerNormArgs>();
  const float* w = a.has_weight ? c.in(1).f32() : nullptr;
  const std::int64_t size = normalized_size(x, a.normalized_dims);
  const std::int64_t rows = size ? x.numel() / size : 0;
  const float eps = static_cast<float>(a.eps);
  for_each_row(rows, size, [&](std::int64_t r) {
    rms_norm_row(x.f32() + r * size, y.f32() + r * size, w, size, eps);
  });
}

void verify_batch_norm(const VerifyContext& c) {
  const auto& a = c.args_as<BatchNormArgs>();
  bool hw = a.has_weight, hb = a.has_bias;
  c.require(c.num_inputs() == 3u + hw + hb,
            "input count does not match BatchNormArgs.has_weight/has_bias");
  c.require(std::isfinite(a.eps), "BatchNormArgs.eps is not finite");
  c.require(c.num_outputs() >= 1 && c.num_outputs() <= 3, "expects 1 to 3 outputs");
  const ValueDesc& x = c.in(0);
  c.require(x.shape.size() >= 2, "input needs a channel dim");
  c.dtype(x, DType::Float32, "input");
  for (std::size_t j = 1; j < c.num_inputs(); ++j) {
    c.dtype(c.in(j), DType::Float32, "parameter");
    c.shape(c.in(j), {x.shape[1]}, "parameter");
  }
  c.shape(c.out(0), x.shape, "output");
  c.dtype(c.out(0), DType::Float32, "output");
  for (std::size_t j = 1; j < c.num_outputs(); ++j)
    c.require(c.out(j).numel == 0, "extra outputs must be empty");
}

void run_batch_norm(const KernelContext& c) {
  TensorRef x = c.in(0), y = c.out(0);
  const auto& a = c.args_as<BatchNormArgs>();
  bool hw = a.has_weight, hb = a.has_bias;
  const float* w = hw ? c.in(1).f32() : nullptr;
  const float* b = hb ? c.in(1 + hw).f32() : nullptr;
  const float* mean = c.in(1 + hw + hb).f32();
  const float* var = c.in(2 + hw + hb).f32();
  double eps = a.eps;
  std::int64_t n = x.dim(0), ch = x.dim(1), inner = 1;
  for (std::size_t d = 2; d < x.ndim(); ++d) inner *= x.dim(d);
  for (std::int64_t k = 0; k < ch; ++k) {
    float scale = static_cast<float>(1.0 / std::sqrt(static_cast<double>(var[k]) + eps));
    if (w) scale *= w[k];
    float shift = (b ? b[k] : 0.0f) - mean[k] * scale;
    for (std::int64_t i = 0; i < n; ++i) {
      const float* xp = x.f32() + (i * ch + k) * inner;
      float* yp = y.f32() + (i * ch + k) * inner;
      for (std::int64_t j = 0; j < inner; ++j) yp[j] = xp[j] * scale + shift;
    }
  }
}

}  // namespace

void register_normalization_kernels(KernelRegistry& registry) {
  registry.add({"softmax", verify_softmax, run_softmax<false>});
  registry.add({"log_softmax", verify_softmax, run_softmax<true>});
  registry.add({"layer_norm", verify_layer_norm, run_layer_norm});
  registry.add({"rms_norm", verify_rms_norm, run_rms_norm});
  registry.add({"batch_norm", verify_batch_norm, run_batch_norm});
}

}  // namespace glassbox::runtime
