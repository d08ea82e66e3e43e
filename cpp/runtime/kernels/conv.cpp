// Convolution and pooling over NCHW float32.
//   conv2d (x, w, [bias], [bn_weight], [bn_bias], [bn_mean, bn_var]) -> out
//                                       Conv2dArgs: an inference batch norm applied to the result
//                                       (its parameters follow the bias), then an activation
//                                       (Epilogue). oneDNN's convolution (OneDnnConv); where it
//                                       refuses, im2col then one sgemm per image and group
//   max_pool2d (x) -> out[, indices]    Pool2dArgs (no count_include_pad or divisor_override)
//   avg_pool2d (x) -> out               Pool2dArgs (no dilation)
//   adaptive_avg_pool2d (x) -> out      AdaptivePool2dArgs
#include <cblas.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <unordered_map>
#include <vector>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "runtime/kernel.hpp"
#include "runtime/kernels/blas.hpp"
#include "runtime/kernels/onednn.hpp"
#include "runtime/kernels/packed_gemm.hpp"
#include "runtime/kernels/vector_math.hpp"
#include "runtime/team_stalls.hpp"

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

constexpr std::int64_t kMaxWindow = 1 << 20;

// Pool2dArgs' fields: positive kernel, stride and dilation; padding at most half the kernel (as
// torch requires); avg_pool2d's own fields only on avg_pool2d, and no dilation there.
const Pool2dArgs& verify_pool_args(const VerifyContext& c, bool average) {
  const auto& a = c.args_as<Pool2dArgs>();
  c.field("Pool2dArgs.kernel_h", a.kernel_h, 1, kMaxWindow);
  c.field("Pool2dArgs.kernel_w", a.kernel_w, 1, kMaxWindow);
  c.field("Pool2dArgs.stride_h", a.stride_h, 1, kMaxWindow);
  c.field("Pool2dArgs.stride_w", a.stride_w, 1, kMaxWindow);
  c.field("Pool2dArgs.pad_h", a.pad_h, 0, a.kernel_h / 2);
  c.field("Pool2dArgs.pad_w", a.pad_w, 0, a.kernel_w / 2);
  c.field("Pool2dArgs.dilation_h", a.dilation_h, 1, average ? 1 : kMaxWindow);
  c.field("Pool2dArgs.dilation_w", a.dilation_w, 1, average ? 1 : kMaxWindow);
  c.field("Pool2dArgs.divisor_override", a.divisor_override, 0, average ? kMaxWindow : 0);
  c.require(average || !a.count_include_pad, "Pool2dArgs.count_include_pad is avg_pool2d's");
  return a;
}

// The batch norm's parameters among the inputs (after the bias).
std::size_t bn_inputs(const Conv2dArgs& a) {
  return a.batch_norm ? 2 + a.batch_norm_weight + a.batch_norm_bias : 0;
}

bool in_range(std::int64_t v, std::int64_t lo) { return v >= lo && v <= (1 << 20); }

void verify_conv2d(const VerifyContext& c) {
  const auto* a = &c.args_as<Conv2dArgs>();
  c.require(a->batch_norm || (!a->batch_norm_weight && !a->batch_norm_bias),
            "batch norm parameters without a batch norm");
  c.require(a->epilogue >= 0 && a->epilogue <= static_cast<std::int64_t>(Epilogue::Silu),
            "bad epilogue");
  c.require(a->batch_norm ? a->batch_norm_eps >= 0 : a->batch_norm_eps == 0,
            "Conv2dArgs.batch_norm_eps must be >= 0 with a batch norm, 0 without");
  c.arity(2 + a->has_bias + bn_inputs(*a), 1);
  c.require(in_range(a->stride_h, 1) && in_range(a->stride_w, 1) && in_range(a->pad_h, 0) &&
                in_range(a->pad_w, 0) && in_range(a->dilation_h, 1) && in_range(a->dilation_w, 1) &&
                in_range(a->groups, 1),
            "bad stride, padding, dilation or groups");
  const ValueDesc &x = c.in(0), &w = c.in(1), &out = c.out(0);
  for (const ValueDesc* v : {&x, &w, &out}) c.dtype(*v, DType::Float32, "operand");
  c.require(x.shape.size() == 4 && w.shape.size() == 4, "input and weight must be 4-d");
  const std::int64_t g = a->groups;
  c.require(x.shape[1] == w.shape[1] * g && w.shape[0] % g == 0, "channels do not match groups");
  if (a->has_bias) c.shape(c.in(2), {w.shape[0]}, "bias");
  for (std::size_t j = 0; j < bn_inputs(*a); ++j) {
    c.dtype(c.in(2 + a->has_bias + j), DType::Float32, "batch norm parameter");
    c.shape(c.in(2 + a->has_bias + j), {w.shape[0]}, "batch norm parameter");
  }
  c.shape(out,
          {x.shape[0], w.shape[0],
           pooled_size(x.shape[2], w.shape[2], a->stride_h, a->pad_h, a->dilation_h, false),
           pooled_size(x.shape[3], w.shape[3], a->stride_w, a->pad_w, a->dilation_w, false)},
          "output");
}

struct ConvShape {
  std::int64_t C, H, W, O, kh, kw, OH, OW, sh, sw, ph, pw, dh, dw, g, cg, og, K, P;
  bool direct;  // 1x1, stride 1, no padding: the image is its own column matrix
  // After the bias: a folded batch norm's per-channel scale and shift (or null), the epilogue.
  const float* scale = nullptr;
  const float* shift = nullptr;
  Epilogue epilogue = Epilogue::None;
};

// The column matrix [K, P] of one group of one image.
void im2col(const ConvShape& s, const float* xg, float* col, bool threads) {
  run_team(threads && s.K * s.P >= (1 << 16) ? max_team() : 1, [&](int part, int parts) {
    for (std::int64_t ci = s.cg * part / parts; ci < s.cg * (part + 1) / parts; ++ci) {
      for (std::int64_t i = 0; i < s.kh; ++i) {
        for (std::int64_t j = 0; j < s.kw; ++j) {
          float* row = col + ((ci * s.kh + i) * s.kw + j) * s.P;
          for (std::int64_t oh = 0; oh < s.OH; ++oh) {
            std::int64_t ih = oh * s.sh - s.ph + i * s.dh;
            float* r = row + oh * s.OW;
            if (ih < 0 || ih >= s.H) {
              std::fill(r, r + s.OW, 0.0f);
              continue;
            }
            const float* xr = xg + (ci * s.H + ih) * s.W;
            for (std::int64_t ow = 0; ow < s.OW; ++ow) {
              std::int64_t iw = ow * s.sw - s.pw + j * s.dw;
              r[ow] = (iw >= 0 && iw < s.W) ? xr[iw] : 0.0f;
            }
          }
        }
      }
    }
  });
}

// One image: per group, im2col (`threads`: over OpenMP threads) and one sgemm; then the bias, the
// folded batch norm and the epilogue.
void conv_image(const ConvShape& s, const float* x, const float* w, const float* bias, float* out,
                float* col, bool threads) {
  for (std::int64_t gi = 0; gi < s.g; ++gi) {
    const float* src = x + gi * s.cg * s.H * s.W;
    if (!s.direct) {
      im2col(s, src, col, threads);
      src = col;
    }
    float* og_out = out + gi * s.og * s.P;
    if (s.K == 0) {
      std::fill(og_out, og_out + s.og * s.P, 0.0f);
    } else {
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, static_cast<blasint>(s.og),
                  static_cast<blasint>(s.P), static_cast<blasint>(s.K), 1.0f, w + gi * s.og * s.K,
                  static_cast<blasint>(s.K), src, static_cast<blasint>(s.P), 0.0f, og_out,
                  static_cast<blasint>(s.P));
    }
  }
  if (!bias && !s.scale && s.epilogue == Epilogue::None) return;
  for (std::int64_t o = 0; o < s.O; ++o) {  // one pass per channel, while it is in cache
    float* p = out + o * s.P;
    if (bias) {
      for (std::int64_t i = 0; i < s.P; ++i) p[i] += bias[o];
    }
    if (s.scale) {
      const float a = s.scale[o], b = s.shift[o];
      for (std::int64_t i = 0; i < s.P; ++i) p[i] = p[i] * a + b;
    }
    epilogue_row(s.epilogue, p, 0, s.P);
  }
}

// Images over OpenMP threads, each with its own column matrix and single-threaded sgemms (a batch
// of small per-image products gains nothing from BLAS threads: ResNet-like convolutions at batch
// 32 ran ~2x slower than eager that way). 0 or 1: the images in turn, BLAS threads inside each.
int image_team(std::int64_t n, const ConvShape& s) {
#ifdef _OPENMP
  if (n < 2 || omp_in_parallel() || s.O * s.K * s.P < (1 << 16)) return 1;
  return static_cast<int>(std::min<std::int64_t>(omp_get_max_threads(), n));
#else
  (void)n, (void)s;
  return 1;
#endif
}

// oneDNN's convolution, the path for every convolution it accepts: direct convolution kernels
// instead of im2col + sgemm (the im2col of a 7x7 stem alone took ~2.5x eager's whole convolution),
// the weight reordered once into the primitive's layout and kept in the instruction's cache,
// reordered again only when its pointer or version changes (every call when it has no version).
// The program's input and output are NCHW; the primitive picks its own layouts (blocked over
// channels: oneDNN 2.6's kernels for plain NCHW are im2col + GEMM as well) and the input and
// output are reordered into and out of them around it, as torch's own oneDNN convolution does.
struct OneDnnConv : KernelCache {
  bool refused = false;
  dnnl::convolution_forward primitive;
  dnnl::memory src, bias, dst;        // src, dst: the caller's NCHW memory
  dnnl::memory inner_src, inner_dst;  // in the primitive's layouts, when they differ from NCHW
  dnnl::memory bn_scale, bn_shift;    // per output channel, post-ops of a folded batch norm
  ReorderedWeight weight;

  OneDnnConv(const ConvShape& s, std::int64_t n, bool has_bias) {
    using dnnl::memory;
    using Tag = memory::format_tag;
    const auto f32 = memory::data_type::f32;
    try {
      dnnl::engine& engine = onednn_engine();
      memory::desc src_md({n, s.C, s.H, s.W}, f32, Tag::nchw);
      memory::desc dst_md({n, s.O, s.OH, s.OW}, f32, Tag::nchw);
      memory::dims wdims =
          s.g > 1 ? memory::dims{s.g, s.og, s.cg, s.kh, s.kw} : memory::dims{s.O, s.cg, s.kh, s.kw};
      memory::desc plain_md(wdims, f32, s.g > 1 ? Tag::goihw : Tag::oihw);
      memory::desc any_md(wdims, f32, Tag::any);
      memory::desc bias_md({s.O}, f32, Tag::x);
      // oneDNN counts dilation from 0 (none), torch from 1.
      memory::dims strides{s.sh, s.sw}, dilates{s.dh - 1, s.dw - 1}, pad{s.ph, s.pw};
      const auto kind = dnnl::prop_kind::forward_inference;
      const auto algo = dnnl::algorithm::convolution_direct;
      memory::desc src_any({n, s.C, s.H, s.W}, f32, Tag::any);
      memory::desc dst_any({n, s.O, s.OH, s.OW}, f32, Tag::any);
      auto desc = has_bias ? dnnl::convolution_forward::desc(kind, algo, src_any, any_md, bias_md,
                                                             dst_any, strides, dilates, pad, pad)
                           : dnnl::convolution_forward::desc(kind, algo, src_any, any_md, dst_any,
                                                             strides, dilates, pad, pad);
      dnnl::primitive_attr attr;
      dnnl::post_ops ops;
      memory::desc per_channel({1, s.O, 1, 1}, f32, Tag::nchw);
      if (s.scale) {
        ops.append_binary(dnnl::algorithm::binary_mul, per_channel);
        ops.append_binary(dnnl::algorithm::binary_add, per_channel);
      }
      if (s.epilogue != Epilogue::None)
        ops.append_eltwise(1.0f, onednn_eltwise(s.epilogue), onednn_alpha(s.epilogue), 0.0f);
      attr.set_post_ops(ops);
      dnnl::convolution_forward::primitive_desc pd(desc, attr, engine);
      bn_scale = memory(per_channel, engine, nullptr);
      bn_shift = memory(per_channel, engine, nullptr);
      primitive = dnnl::convolution_forward(pd);
      src = memory(src_md, engine, nullptr);
      dst = memory(dst_md, engine, nullptr);
      if (pd.src_desc() != src_md) inner_src = memory(pd.src_desc(), engine);
      if (pd.dst_desc() != dst_md) inner_dst = memory(pd.dst_desc(), engine);
      weight.plain = memory(plain_md, engine, nullptr);
      weight.packed = memory(pd.weights_desc(), engine);
      bias = memory(bias_md, engine, nullptr);
    } catch (const dnnl::error&) {
      refused = true;
    }
  }
};

// Runs the convolution through oneDNN and returns true, or returns false having done nothing (no
// cache, an empty operand, a shape the library refuses): the caller then runs im2col + sgemm.
bool run_onednn_conv(const KernelContext& c, const ConvShape& s, std::int64_t n) {
  std::unique_ptr<KernelCache>* cache = c.cache();
  if (!cache || n == 0 || s.C == 0 || s.O == 0 || s.K == 0) return false;
  const bool has_bias = std::get<Conv2dArgs>(c.args()).has_bias;
  if (!*cache) *cache = std::make_unique<OneDnnConv>(s, n, has_bias);
  auto* k = dynamic_cast<OneDnnConv*>(cache->get());
  if (!k || k->refused) return false;
  dnnl::stream& stream = onednn_stream();
  if (k->weight.refresh(stream, c.in(1).f32(), c.version(1))) {
    stream.wait();
    c.release_input(1);
  }
  k->src.set_data_handle(const_cast<float*>(c.in(0).f32()));
  k->dst.set_data_handle(c.out(0).f32());
  if (k->inner_src) dnnl::reorder(k->src, k->inner_src).execute(stream, k->src, k->inner_src);
  dnnl::memory& src = k->inner_src ? k->inner_src : k->src;
  dnnl::memory& dst = k->inner_dst ? k->inner_dst : k->dst;
  std::unordered_map<int, dnnl::memory> args{
      {DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, k->weight.packed}, {DNNL_ARG_DST, dst}};
  if (has_bias) {
    k->bias.set_data_handle(const_cast<float*>(c.in(2).f32()));
    args.emplace(DNNL_ARG_BIAS, k->bias);
  }
  if (s.scale) {
    k->bn_scale.set_data_handle(const_cast<float*>(s.scale));
    k->bn_shift.set_data_handle(const_cast<float*>(s.shift));
    args.emplace(DNNL_ARG_ATTR_MULTIPLE_POST_OP(0) | DNNL_ARG_SRC_1, k->bn_scale);
    args.emplace(DNNL_ARG_ATTR_MULTIPLE_POST_OP(1) | DNNL_ARG_SRC_1, k->bn_shift);
  }
  k->primitive.execute(stream, args);
  if (k->inner_dst) dnnl::reorder(k->inner_dst, k->dst).execute(stream, k->inner_dst, k->dst);
  stream.wait();
  return true;
}

void run_conv2d(const KernelContext& c) {
  const Conv2dArgs& a = std::get<Conv2dArgs>(c.args());
  TensorRef x = c.in(0), w = c.in(1), out = c.out(0);
  ConvShape s{};
  s.C = x.dim(1), s.H = x.dim(2), s.W = x.dim(3), s.O = w.dim(0), s.kh = w.dim(2), s.kw = w.dim(3);
  s.OH = out.dim(2), s.OW = out.dim(3);
  s.sh = a.stride_h, s.sw = a.stride_w, s.ph = a.pad_h, s.pw = a.pad_w;
  s.dh = a.dilation_h, s.dw = a.dilation_w, s.g = a.groups;
  s.cg = s.C / s.g, s.og = s.O / s.g, s.K = s.cg * s.kh * s.kw, s.P = s.OH * s.OW;
  s.direct = s.kh == 1 && s.kw == 1 && s.sh == 1 && s.sw == 1 && s.ph == 0 && s.pw == 0;
  if (out.numel() == 0) return;
  const std::int64_t n = x.dim(0);
  // A folded batch norm: y = x * scale + shift per channel, as torch's inference batch norm
  // (x - mean) / sqrt(var + eps) * weight + bias.
  std::vector<float> scale, shift;
  if (a.batch_norm) {
    std::size_t at = 2 + a.has_bias;
    const float* bw = a.batch_norm_weight ? c.in(at++).f32() : nullptr;
    const float* bb = a.batch_norm_bias ? c.in(at++).f32() : nullptr;
    const float* mean = c.in(at++).f32();
    const float* var = c.in(at).f32();
    const double eps = a.batch_norm_eps;
    scale.resize(static_cast<std::size_t>(s.O));
    shift.resize(static_cast<std::size_t>(s.O));
    for (std::int64_t o = 0; o < s.O; ++o) {
      const double k = (bw ? bw[o] : 1.0) / std::sqrt(static_cast<double>(var[o]) + eps);
      scale[o] = static_cast<float>(k);
      shift[o] = static_cast<float>((bb ? bb[o] : 0.0) - mean[o] * k);
    }
    s.scale = scale.data();
    s.shift = shift.data();
  }
  s.epilogue = static_cast<Epilogue>(a.epilogue);
  if (run_onednn_conv(c, s, n)) return;
  const float* bias = a.has_bias ? c.in(2).f32() : nullptr;
  const std::size_t col_size = s.direct ? 0 : static_cast<std::size_t>(s.K * s.P);
  auto image = [&](std::int64_t b, float* col, bool threads) {
    conv_image(s, x.f32() + b * s.C * s.H * s.W, w.f32(), bias, out.f32() + b * s.O * s.P, col,
               threads);
  };
  const int team = image_team(n, s);
  if (team >= 2 && TeamStalls::may_fork()) {
    std::vector<float> cols(col_size * static_cast<std::size_t>(team));
    BlasOnCallers on_callers;
    TeamRegion region;
#ifdef _OPENMP
#pragma omp parallel for num_threads(team) schedule(static)
#endif
    for (std::int64_t b = 0; b < n; ++b) {
#ifdef _OPENMP
      const int t = omp_get_thread_num();
#else
      const int t = 0;
#endif
      region.part(t,
                  [&] { image(b, cols.data() + col_size * static_cast<std::size_t>(t), false); });
    }
    return;
  }
  std::vector<float> col(col_size);
  for (std::int64_t b = 0; b < n; ++b) image(b, col.data(), true);
}

void verify_max_pool(const VerifyContext& c) {
  c.require(c.num_inputs() == 1 && (c.num_outputs() == 1 || c.num_outputs() == 2),
            "expects 1 input, 1 or 2 outputs");
  const Pool2dArgs& a = verify_pool_args(c, false);
  const ValueDesc& x = c.in(0);
  c.dtype(x, DType::Float32, "input");
  c.require(x.shape.size() == 4, "input must be 4-d");
  Shape s{x.shape[0], x.shape[1],
          pooled_size(x.shape[2], a.kernel_h, a.stride_h, a.pad_h, a.dilation_h, a.ceil_mode),
          pooled_size(x.shape[3], a.kernel_w, a.stride_w, a.pad_w, a.dilation_w, a.ceil_mode)};
  c.shape(c.out(0), s, "output");
  c.dtype(c.out(0), DType::Float32, "output");
  if (c.num_outputs() == 2) {
    c.shape(c.out(1), s, "indices");
    c.dtype(c.out(1), DType::Int64, "indices");
  }
}

// The taps t in [0, k) of a window starting at `start` with 0 <= start + t d < size: [lo, hi).
void taps(std::int64_t start, std::int64_t k, std::int64_t d, std::int64_t size, std::int64_t& lo,
          std::int64_t& hi) {
  lo = start >= 0 ? 0 : (-start + d - 1) / d;
  hi = start >= size ? 0 : std::min(k, (size - 1 - start) / d + 1);
  if (hi < lo) hi = lo;
}

// Planes (image x channel) over OpenMP threads when there is enough work.
template <typename Plane>
void over_planes(std::int64_t planes, std::int64_t work_per_plane, Plane&& plane) {
  const bool team = planes > 1 && planes * work_per_plane >= (1 << 17);
  run_team(team ? max_team() : 1, [&](int part, int parts) {
    for (std::int64_t p = planes * part / parts; p < planes * (part + 1) / parts; ++p) plane(p);
  });
}

// One output row of a max pool without indices and without dilation, over input rows [i0, i1):
// each tap of the window a pass over the row's outputs (independent lanes, which vectorise),
// instead of each output a pass over its taps. The same values as the window-by-window loop,
// NaN included (the last NaN wins): the taps of an output are visited in the same order.
GBX_CLONES void max_pool_row(const float* xp, std::int64_t W, std::int64_t OW, std::int64_t kw,
                             std::int64_t sw, std::int64_t pw, std::int64_t i0, std::int64_t i1,
                             float* out) {
  std::fill(out, out + OW, -std::numeric_limits<float>::infinity());
  for (std::int64_t i = i0; i < i1; ++i) {
    for (std::int64_t j = 0; j < kw; ++j) {
      // Outputs whose tap j falls inside the row: 0 <= ow * sw - pw + j < W.
      const std::int64_t lo = j >= pw ? 0 : (pw - j + sw - 1) / sw;
      const std::int64_t hi = W - 1 + pw - j < 0 ? 0 : std::min(OW, (W - 1 + pw - j) / sw + 1);
      const float* x = xp + i * W + j - pw;
      for (std::int64_t ow = lo; ow < hi; ++ow) {
        const float v = x[ow * sw];
        out[ow] = (v > out[ow] || v != v) ? v : out[ow];
      }
    }
  }
}

void run_max_pool(const KernelContext& c) {
  const auto& a = c.args_as<Pool2dArgs>();
  std::int64_t kh = a.kernel_h, kw = a.kernel_w, sh = a.stride_h, sw = a.stride_w, ph = a.pad_h,
               pw = a.pad_w, dh = a.dilation_h, dw = a.dilation_w;
  TensorRef x = c.in(0), out = c.out(0);
  std::int64_t planes = x.dim(0) * x.dim(1), H = x.dim(2), W = x.dim(3), OH = out.dim(2),
               OW = out.dim(3);
  std::int64_t* idx = c.num_outputs() == 2 ? c.out(1).i64() : nullptr;
  const float* xs = x.f32();
  float* outs = out.f32();
  if (!idx && dh == 1 && dw == 1) {
    over_planes(planes, OH * OW * kh * kw, [&](std::int64_t p) {
      for (std::int64_t oh = 0; oh < OH; ++oh) {
        const std::int64_t h0 = oh * sh - ph;
        max_pool_row(xs + p * H * W, W, OW, kw, sw, pw, std::max<std::int64_t>(h0, 0),
                     std::min(h0 + kh, H), outs + (p * OH + oh) * OW);
      }
    });
    return;
  }
  // As torch's CPU kernel: the first of equal maxima, NaN wins (the last NaN); a window with no
  // tap inside the input is -inf at index -1 (padding is at most half the kernel, so none is).
  over_planes(planes, OH * OW * kh * kw, [&](std::int64_t p) {
    const float* xp = xs + p * H * W;
    for (std::int64_t oh = 0; oh < OH; ++oh) {
      std::int64_t h0 = oh * sh - ph, i0, i1;
      taps(h0, kh, dh, H, i0, i1);
      for (std::int64_t ow = 0; ow < OW; ++ow) {
        std::int64_t w0 = ow * sw - pw, j0, j1;
        taps(w0, kw, dw, W, j0, j1);
        float best = -std::numeric_limits<float>::infinity();
        std::int64_t at = i0 < i1 && j0 < j1 ? (h0 + i0 * dh) * W + w0 + j0 * dw : -1;
        for (std::int64_t i = i0; i < i1; ++i) {
          const std::int64_t row = (h0 + i * dh) * W + w0;
          for (std::int64_t j = j0; j < j1; ++j) {
            const float v = xp[row + j * dw];
            const bool take = v > best || v != v;
            best = take ? v : best;
            at = take ? row + j * dw : at;
          }
        }
        std::int64_t o = (p * OH + oh) * OW + ow;
        outs[o] = best;
        if (idx) idx[o] = at;
      }
    }
  });
}

void verify_avg_pool(const VerifyContext& c) {
  c.arity(1, 1);
  const Pool2dArgs& a = verify_pool_args(c, true);
  const ValueDesc& x = c.in(0);
  c.dtype(x, DType::Float32, "input");
  c.require(x.shape.size() == 4, "input must be 4-d");
  c.shape(c.out(0),
          {x.shape[0], x.shape[1],
           pooled_size(x.shape[2], a.kernel_h, a.stride_h, a.pad_h, 1, a.ceil_mode),
           pooled_size(x.shape[3], a.kernel_w, a.stride_w, a.pad_w, 1, a.ceil_mode)},
          "output");
}

void run_avg_pool(const KernelContext& c) {
  const auto& a = c.args_as<Pool2dArgs>();
  std::int64_t kh = a.kernel_h, kw = a.kernel_w, sh = a.stride_h, sw = a.stride_w, ph = a.pad_h,
               pw = a.pad_w;
  bool include_pad = a.count_include_pad;
  std::int64_t divisor = a.divisor_override;
  TensorRef x = c.in(0), out = c.out(0);
  std::int64_t planes = x.dim(0) * x.dim(1), H = x.dim(2), W = x.dim(3), OH = out.dim(2),
               OW = out.dim(3);
  const float* xs = x.f32();
  float* outs = out.f32();
  over_planes(planes, OH * OW * kh * kw, [&](std::int64_t p) {
    const float* xp = xs + p * H * W;
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
        outs[(p * OH + oh) * OW + ow] = div > 0 ? static_cast<float>(sum / div) : 0.0f;
      }
    }
  });
}

void verify_adaptive_avg(const VerifyContext& c) {
  c.arity(1, 1);
  const auto& a = c.args_as<AdaptivePool2dArgs>();
  const ValueDesc& x = c.in(0);
  c.dtype(x, DType::Float32, "input");
  c.require(x.shape.size() == 4, "input must be 4-d");
  c.field("AdaptivePool2dArgs.output_h", a.output_h, 0, kMaxWindow);
  c.field("AdaptivePool2dArgs.output_w", a.output_w, 0, kMaxWindow);
  c.shape(c.out(0), {x.shape[0], x.shape[1], a.output_h, a.output_w}, "output");
}

void run_adaptive_avg(const KernelContext& c) {
  TensorRef x = c.in(0), out = c.out(0);
  std::int64_t planes = x.dim(0) * x.dim(1), H = x.dim(2), W = x.dim(3), OH = out.dim(2),
               OW = out.dim(3);
  const float* xs = x.f32();
  float* outs = out.f32();
  over_planes(planes, H * W, [&](std::int64_t p) {
    const float* xp = xs + p * H * W;
    for (std::int64_t oh = 0; oh < OH; ++oh) {
      std::int64_t h0 = oh * H / OH, h1 = ((oh + 1) * H + OH - 1) / OH;
      for (std::int64_t ow = 0; ow < OW; ++ow) {
        std::int64_t w0 = ow * W / OW, w1 = ((ow + 1) * W + OW - 1) / OW;
        double sum = 0;
        for (std::int64_t i = h0; i < h1; ++i) {
          for (std::int64_t j = w0; j < w1; ++j) sum += xp[i * W + j];
        }
        std::int64_t cnt = (h1 - h0) * (w1 - w0);
        outs[(p * OH + oh) * OW + ow] = cnt ? static_cast<float>(sum / cnt) : NAN;
      }
    }
  });
}

}  // namespace

void register_conv_kernels(KernelRegistry& registry) {
  registry.add({"conv2d", verify_conv2d, run_conv2d});
  registry.add({"max_pool2d", verify_max_pool, run_max_pool});
  registry.add({"avg_pool2d", verify_avg_pool, run_avg_pool});
  registry.add({"adaptive_avg_pool2d", verify_adaptive_avg, run_adaptive_avg});
}

}  // namespace glassbox::runtime
