// Convolution and pooling over NCHW float32.
//   conv2d (x, w, [bias]) -> out        ints [has_bias, sh, sw, ph, pw, dh, dw, groups]
//                                       im2col then one sgemm per image and group
//   max_pool2d (x) -> out[, indices]    ints [kh, kw, sh, sw, ph, pw, dh, dw, ceil_mode]
//   avg_pool2d (x) -> out               ints [kh, kw, sh, sw, ph, pw, ceil_mode,
//                                             count_include_pad, divisor_override (0: none)]
//   adaptive_avg_pool2d (x) -> out      ints [oh, ow]
#include <cblas.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "runtime/kernel.hpp"

namespace glassbox::runtime {
namespace {

std::int64_t pooled_size(std::int64_t in, std::int64_t k, std::int64_t s, std::int64_t p,
                         std::int64_t d, bool ceil_mode) {
  std::int64_t span = in + 2 * p - d * (k - 1) - 1;
  if (span < 0) return 0;
  std::int64_t out = (ceil_mode ? (span + s - 1) / s : span / s) + 1;
  if (ceil_mode && (out - 1) * s >= in + p) --out;
  return out;
}

bool positive(const std::vector<std::int64_t>& v, std::size_t from, std::size_t to) {
  for (std::size_t i = from; i < to; ++i) {
    if (v[i] <= 0 || v[i] > (1 << 20)) return false;
  }
  return true;
}

void verify_conv2d(const VerifyContext& c) {
  c.num_ints(8);
  const auto& a = c.ints();
  bool has_bias = a[0] != 0;
  c.arity(2 + has_bias, 1);
  c.require(positive(a, 1, 3) && positive(a, 5, 8) && a[3] >= 0 && a[4] >= 0 && a[3] < (1 << 20) &&
                a[4] < (1 << 20),
            "bad stride, padding, dilation or groups");
  const ValueDesc &x = c.in(0), &w = c.in(1), &out = c.out(0);
  for (const ValueDesc* v : {&x, &w, &out}) c.dtype(*v, DType::Float32, "operand");
  c.require(x.shape.size() == 4 && w.shape.size() == 4, "input and weight must be 4-d");
  std::int64_t g = a[7];
  c.require(x.shape[1] == w.shape[1] * g && w.shape[0] % g == 0, "channels do not match groups");
  if (has_bias) c.shape(c.in(2), {w.shape[0]}, "bias");
  c.shape(out,
          {x.shape[0], w.shape[0], pooled_size(x.shape[2], w.shape[2], a[1], a[3], a[5], false),
           pooled_size(x.shape[3], w.shape[3], a[2], a[4], a[6], false)},
          "output");
}

void run_conv2d(const KernelContext& c) {
  const auto& a = c.ints();
  bool has_bias = a[0] != 0;
  std::int64_t sh = a[1], sw = a[2], ph = a[3], pw = a[4], dh = a[5], dw = a[6], g = a[7];
  TensorRef x = c.in(0), w = c.in(1), out = c.out(0);
  std::int64_t n = x.dim(0), C = x.dim(1), H = x.dim(2), W = x.dim(3);
  std::int64_t O = w.dim(0), kh = w.dim(2), kw = w.dim(3), OH = out.dim(2), OW = out.dim(3);
  std::int64_t cg = C / g, og = O / g, K = cg * kh * kw, P = OH * OW;
  if (out.numel() == 0) return;
  bool direct = kh == 1 && kw == 1 && sh == 1 && sw == 1 && ph == 0 && pw == 0;
  std::vector<float> col(direct ? 0 : static_cast<std::size_t>(K * P));
  for (std::int64_t b = 0; b < n; ++b) {
    for (std::int64_t gi = 0; gi < g; ++gi) {
      const float* xg = x.f32() + (b * C + gi * cg) * H * W;
      const float* src = xg;
      if (!direct) {
#ifdef _OPENMP
#pragma omp parallel for schedule(static) if (K * P >= (1 << 16))
#endif
        for (std::int64_t ci = 0; ci < cg; ++ci) {
          for (std::int64_t i = 0; i < kh; ++i) {
            for (std::int64_t j = 0; j < kw; ++j) {
              float* row = col.data() + ((ci * kh + i) * kw + j) * P;
              for (std::int64_t oh = 0; oh < OH; ++oh) {
                std::int64_t ih = oh * sh - ph + i * dh;
                float* r = row + oh * OW;
                if (ih < 0 || ih >= H) {
                  std::fill(r, r + OW, 0.0f);
                  continue;
                }
                const float* xr = xg + (ci * H + ih) * W;
                for (std::int64_t ow = 0; ow < OW; ++ow) {
                  std::int64_t iw = ow * sw - pw + j * dw;
                  r[ow] = (iw >= 0 && iw < W) ? xr[iw] : 0.0f;
                }
              }
            }
          }
        }
        src = col.data();
      }
      float* og_out = out.f32() + (b * O + gi * og) * P;
      if (K == 0) {
        std::fill(og_out, og_out + og * P, 0.0f);
      } else {
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, static_cast<blasint>(og),
                    static_cast<blasint>(P), static_cast<blasint>(K), 1.0f, w.f32() + gi * og * K,
                    static_cast<blasint>(K), src, static_cast<blasint>(P), 0.0f, og_out,
                    static_cast<blasint>(P));
      }
    }
    if (has_bias) {
      const float* bias = c.in(2).f32();
      for (std::int64_t o = 0; o < O; ++o) {
        float* p = out.f32() + (b * O + o) * P;
        for (std::int64_t i = 0; i < P; ++i) p[i] += bias[o];
      }
    }
  }
}

void verify_max_pool(const VerifyContext& c) {
  c.num_ints(9);
  const auto& a = c.ints();
  c.require(c.num_inputs() == 1 && (c.num_outputs() == 1 || c.num_outputs() == 2),
            "expects 1 input, 1 or 2 outputs");
  // Padding is at most half the kernel (as torch requires), compared without overflow.
  c.require(positive(a, 0, 4) && positive(a, 6, 8) && a[4] >= 0 && a[5] >= 0 && a[4] <= a[0] / 2 &&
                a[5] <= a[1] / 2,
            "bad kernel, stride, padding or dilation");
  const ValueDesc& x = c.in(0);
  c.dtype(x, DType::Float32, "input");
  c.require(x.shape.size() == 4, "input must be 4-d");
  Shape s{x.shape[0], x.shape[1], pooled_size(x.shape[2], a[0], a[2], a[4], a[6], a[8] != 0),
          pooled_size(x.shape[3], a[1], a[3], a[5], a[7], a[8] != 0)};
  c.shape(c.out(0), s, "output");
  c.dtype(c.out(0), DType::Float32, "output");
  if (c.num_outputs() == 2) {
    c.shape(c.out(1), s, "indices");
    c.dtype(c.out(1), DType::Int64, "indices");
  }
}

void run_max_pool(const KernelContext& c) {
  const auto& a = c.ints();
  std::int64_t kh = a[0], kw = a[1], sh = a[2], sw = a[3], ph = a[4], pw = a[5], dh = a[6],
               dw = a[7];
  TensorRef x = c.in(0), out = c.out(0);
  std::int64_t planes = x.dim(0) * x.dim(1), H = x.dim(2), W = x.dim(3), OH = out.dim(2),
               OW = out.dim(3);
  std::int64_t* idx = c.num_outputs() == 2 ? c.out(1).i64() : nullptr;
  for (std::int64_t p = 0; p < planes; ++p) {
    const float* xp = x.f32() + p * H * W;
    for (std::int64_t oh = 0; oh < OH; ++oh) {
      for (std::int64_t ow = 0; ow < OW; ++ow) {
        float best = -std::numeric_limits<float>::infinity();
        std::int64_t at = -1;
        for (std::int64_t i = 0; i < kh; ++i) {
          std::int64_t ih = oh * sh - ph + i * dh;
          if (ih < 0 || ih >= H) continue;
          for (std::int64_t j = 0; j < kw; ++j) {
            std::int64_t iw = ow * sw - pw + j * dw;
            if (iw < 0 || iw >= W) continue;
            float v = xp[ih * W + iw];
            if (v > best || v != v || at < 0) {
              best = v;
              at = ih * W + iw;
              if (v != v) break;
            }
          }
        }
        std::int64_t o = (p * OH + oh) * OW + ow;
        out.f32()[o] = best;
        if (idx) idx[o] = at;
      }
    }
  }
}

void verify_avg_pool(const VerifyContext& c) {
  c.arity(1, 1);
  c.num_ints(9);
  const auto& a = c.ints();
  c.require(positive(a, 0, 4) && a[4] >= 0 && a[5] >= 0 && a[4] <= a[0] / 2 && a[5] <= a[1] / 2 &&
                a[8] >= 0,
            "bad kernel, stride or padding");
  const ValueDesc& x = c.in(0);
  c.dtype(x, DType::Float32, "input");
  c.require(x.shape.size() == 4, "input must be 4-d");
  c.shape(c.out(0),
          {x.shape[0], x.shape[1], pooled_size(x.shape[2], a[0], a[2], a[4], 1, a[6] != 0),
           pooled_size(x.shape[3], a[1], a[3], a[5], 1, a[6] != 0)},
          "output");
}

void run_avg_pool(const KernelContext& c) {
  const auto& a = c.ints();
  std::int64_t kh = a[0], kw = a[1], sh = a[2], sw = a[3], ph = a[4], pw = a[5];
  bool include_pad = a[7] != 0;
  std::int64_t divisor = a[8];
  TensorRef x = c.in(0), out = c.out(0);
  std::int64_t planes = x.dim(0) * x.dim(1), H = x.dim(2), W = x.dim(3), OH = out.dim(2),
               OW = out.dim(3);
  for (std::int64_t p = 0; p < planes; ++p) {
    const float* xp = x.f32() + p * H * W;
    for (std::int64_t oh = 0; oh < OH; ++oh) {
      for (std::int64_t ow = 0; ow < OW; ++ow) {
        std::int64_t h0 = oh * sh - ph, w0 = ow * sw - pw;
        std::int64_t h1 = std::min(h0 + kh, H + ph), w1 = std::min(w0 + kw, W + pw);
        std::int64_t pool = (h1 - h0) * (w1 - w0);
        h0 = std::max<std::int64_t>(h0, 0);
        w0 = std::max<std::int64_t>(w0, 0);
        h1 = std::min(h1, H);
        w1 = std::min(w1, W);
        double sum = 0;
        for (std::int64_t i = h0; i < h1; ++i) {
          for (std::int64_t j = w0; j < w1; ++j) sum += xp[i * W + j];
        }
        std::int64_t div = divisor ? divisor : (include_pad ? pool : (h1 - h0) * (w1 - w0));
        out.f32()[(p * OH + oh) * OW + ow] = div > 0 ? static_cast<float>(sum / div) : 0.0f;
      }
    }
  }
}

void verify_adaptive_avg(const VerifyContext& c) {
  c.arity(1, 1);
  c.num_ints(2);
  const ValueDesc& x = c.in(0);
  c.dtype(x, DType::Float32, "input");
  c.require(x.shape.size() == 4, "input must be 4-d");
  c.require(c.ints()[0] >= 0 && c.ints()[1] >= 0, "bad output size");
  c.shape(c.out(0), {x.shape[0], x.shape[1], c.ints()[0], c.ints()[1]}, "output");
}

void run_adaptive_avg(const KernelContext& c) {
  TensorRef x = c.in(0), out = c.out(0);
  std::int64_t planes = x.dim(0) * x.dim(1), H = x.dim(2), W = x.dim(3), OH = out.dim(2),
               OW = out.dim(3);
  for (std::int64_t p = 0; p < planes; ++p) {
    const float* xp = x.f32() + p * H * W;
    for (std::int64_t oh = 0; oh < OH; ++oh) {
      std::int64_t h0 = oh * H / OH, h1 = ((oh + 1) * H + OH - 1) / OH;
      for (std::int64_t ow = 0; ow < OW; ++ow) {
        std::int64_t w0 = ow * W / OW, w1 = ((ow + 1) * W + OW - 1) / OW;
        double sum = 0;
        for (std::int64_t i = h0; i < h1; ++i) {
          for (std::int64_t j = w0; j < w1; ++j) sum += xp[i * W + j];
        }
        std::int64_t cnt = (h1 - h0) * (w1 - w0);
        out.f32()[(p * OH + oh) * OW + ow] = cnt ? static_cast<float>(sum / cnt) : NAN;
      }
    }
  }
}

}  // namespace

void register_conv_kernels(KernelRegistry& registry) {
  registry.add({"conv2d", verify_conv2d, run_conv2d});
  registry.add({"max_pool2d", verify_max_pool, run_max_pool});
  registry.add({"avg_pool2d", verify_avg_pool, run_avg_pool});
  registry.add({"adaptive_avg_pool2d", verify_adaptive_avg, run_adaptive_avg});
}

}  // namespace glassbox::runtime
