#include "runtime/kernel_args.hpp"

#include <iterator>
#include <optional>
#include <unordered_map>
#include <variant>
#include <vector>

#include "program_generated.h"
#include "runtime/flatbuffer_vectors.hpp"

namespace glassbox::runtime {
namespace {

KernelArgs read_conv2d(const fb::Conv2dArgs& a) {
  Conv2dArgs c;
  c.stride_h = a.stride_h(), c.stride_w = a.stride_w();
  c.pad_h = a.pad_h(), c.pad_w = a.pad_w();
  c.dilation_h = a.dilation_h(), c.dilation_w = a.dilation_w();
  c.groups = a.groups();
  c.has_bias = a.has_bias(), c.batch_norm = a.batch_norm();
  c.batch_norm_weight = a.batch_norm_weight(), c.batch_norm_bias = a.batch_norm_bias();
  c.epilogue = static_cast<std::int64_t>(a.epilogue());
  c.batch_norm_eps = a.batch_norm_eps();
  return c;
}

KernelArgs read_gemm(const fb::GemmArgs& a) {
  GemmArgs g;
  g.trans_a = a.trans_a(), g.trans_b = a.trans_b();
  g.epilogue = static_cast<std::int64_t>(a.epilogue());
  g.beta = a.beta(), g.alpha = a.alpha();
  return g;
}

std::optional<AttentionView> read_view(const fb::AttentionView* v) {
  if (!v) return std::nullopt;
  return AttentionView{v->offset(), v->batch(),        v->heads(),       v->tokens(),
                       v->width(),  v->batch_stride(), v->head_stride(), v->token_stride()};
}

KernelArgs read_attention(const fb::AttentionArgs& a) {
  AttentionArgs t;
  t.scale = a.scale(), t.causal = a.causal(), t.has_mask = a.has_mask();
  t.q_tokens_first = a.q_tokens_first(), t.k_tokens_first = a.k_tokens_first();
  t.v_tokens_first = a.v_tokens_first(), t.out_tokens_first = a.out_tokens_first();
  t.has_logsumexp = a.has_logsumexp();
  t.q_view = read_view(a.q_view()), t.k_view = read_view(a.k_view());
  t.v_view = read_view(a.v_view());
  return t;
}

KernelArgs read_pool2d(const fb::Pool2dArgs& a) {
  Pool2dArgs p;
  p.kernel_h = a.kernel_h(), p.kernel_w = a.kernel_w();
  p.stride_h = a.stride_h(), p.stride_w = a.stride_w();
  p.pad_h = a.pad_h(), p.pad_w = a.pad_w();
  p.dilation_h = a.dilation_h(), p.dilation_w = a.dilation_w();
  p.ceil_mode = a.ceil_mode(), p.count_include_pad = a.count_include_pad();
  p.divisor_override = a.divisor_override();
  return p;
}

KernelArgs read_strided(const fb::StridedArgs& a) {
  StridedArgs s;
  s.offset = a.offset();
  s.strides = copy_vector(a.strides());
  s.offset_expr = a.offset_expr();
  s.stride_exprs = copy_vector(a.stride_exprs());
  return s;
}

KernelArgs read_elementwise(const fb::ElementwiseArgs& a) {
  ElementwiseArgs e;
  if (a.ops()) {
    for (const fb::ElementwiseOp* op : *a.ops())
      e.ops.push_back({op->code(), op->a(), op->b(), op->c()});
  }
  e.outputs = copy_vector(a.outputs());
  e.constants = copy_vector(a.constants());
  return e;
}

}  // namespace

KernelArgs read_kernel_args(const fb::Instruction& in) {
  if (const auto* a = in.args_as_Conv2dArgs()) return read_conv2d(*a);
  if (const auto* a = in.args_as_GemmArgs()) return read_gemm(*a);
  if (const auto* a = in.args_as_AttentionArgs()) return read_attention(*a);
  if (const auto* a = in.args_as_Pool2dArgs()) return read_pool2d(*a);
  if (const auto* a = in.args_as_AdaptivePool2dArgs()) {
    return AdaptivePool2dArgs{a->output_h(), a->output_w()};
  }
  if (const auto* a = in.args_as_ReduceArgs()) {
    return ReduceArgs{copy_vector(a->dims()), a->keepdim(), a->correction()};
  }
  if (const auto* a = in.args_as_DimArgs()) return DimArgs{a->dim()};
  if (const auto* a = in.args_as_IndexArgs()) return IndexArgs{copy_vector(a->dims())};
  if (const auto* a = in.args_as_LayerNormArgs()) {
    return LayerNormArgs{a->normalized_dims(), a->has_weight(), a->has_bias(), a->eps()};
  }
  if (const auto* a = in.args_as_BatchNormArgs()) {
    return BatchNormArgs{a->has_weight(), a->has_bias(), a->eps()};
  }
  if (const auto* a = in.args_as_StridedArgs()) return read_strided(*a);
  if (const auto* a = in.args_as_FullArgs()) return FullArgs{a->value()};
  if (const auto* a = in.args_as_ArangeArgs()) return ArangeArgs{a->start(), a->step()};
  if (const auto* a = in.args_as_ElementwiseArgs()) return read_elementwise(*a);
  return std::monostate{};
}

namespace {

using Builder = flatbuffers::FlatBufferBuilder;
using Written = std::pair<std::uint8_t, std::uint32_t>;

template <typename T>
Written tagged(fb::KernelArgs tag, flatbuffers::Offset<T> offset) {
  return {static_cast<std::uint8_t>(tag), offset.o};
}

// One overload per family: its table, and the union's tag.
struct Writer {
  Builder& b;
  Written operator()(const std::monostate&) const { return {0, 0}; }
  Written operator()(const Conv2dArgs& c) const {
    return tagged(fb::KernelArgs::Conv2dArgs,
                  fb::CreateConv2dArgs(b, c.stride_h, c.stride_w, c.pad_h, c.pad_w, c.dilation_h,
                                       c.dilation_w, c.groups, c.has_bias, c.batch_norm,
                                       c.batch_norm_weight, c.batch_norm_bias,
                                       static_cast<fb::Epilogue>(c.epilogue), c.batch_norm_eps));
  }
  Written operator()(const GemmArgs& g) const {
    return tagged(fb::KernelArgs::GemmArgs,
                  fb::CreateGemmArgs(b, g.trans_a, g.trans_b, static_cast<fb::Epilogue>(g.epilogue),
                                     g.beta, g.alpha));
  }
  Written operator()(const AttentionArgs& t) const {
    const std::optional<fb::AttentionView> q = view(t.q_view), k = view(t.k_view),
                                           v = view(t.v_view);
    return tagged(fb::KernelArgs::AttentionArgs,
                  fb::CreateAttentionArgs(b, t.scale, t.causal, t.has_mask, t.q_tokens_first,
                                          t.k_tokens_first, t.v_tokens_first, t.out_tokens_first,
                                          t.has_logsumexp, q ? &*q : nullptr, k ? &*k : nullptr,
                                          v ? &*v : nullptr));
  }
  static std::optional<fb::AttentionView> view(const std::optional<AttentionView>& v) {
    if (!v) return std::nullopt;
    return fb::AttentionView(v->offset, v->batch, v->heads, v->tokens, v->width, v->batch_stride,
                             v->head_stride, v->token_stride);
  }
  Written operator()(const Pool2dArgs& p) const {
    return tagged(fb::KernelArgs::Pool2dArgs,
                  fb::CreatePool2dArgs(b, p.kernel_h, p.kernel_w, p.stride_h, p.stride_w, p.pad_h,
                                       p.pad_w, p.dilation_h, p.dilation_w, p.ceil_mode,
                                       p.count_include_pad, p.divisor_override));
  }
  Written operator()(const AdaptivePool2dArgs& a) const {
    return tagged(fb::KernelArgs::AdaptivePool2dArgs,
                  fb::CreateAdaptivePool2dArgs(b, a.output_h, a.output_w));
  }
  Written operator()(const ReduceArgs& r) const {
    return tagged(fb::KernelArgs::ReduceArgs,
                  fb::CreateReduceArgs(b, b.CreateVector(r.dims), r.keepdim, r.correction));
  }
  Written operator()(const DimArgs& d) const {
    return tagged(fb::KernelArgs::DimArgs, fb::CreateDimArgs(b, d.dim));
  }
  Written operator()(const IndexArgs& i) const {
    return tagged(fb::KernelArgs::IndexArgs, fb::CreateIndexArgs(b, b.CreateVector(i.dims)));
  }
  Written operator()(const LayerNormArgs& l) const {
    return tagged(fb::KernelArgs::LayerNormArgs,
                  fb::CreateLayerNormArgs(b, l.normalized_dims, l.has_weight, l.has_bias, l.eps));
  }
  Written operator()(const BatchNormArgs& n) const {
    return tagged(fb::KernelArgs::BatchNormArgs,
                  fb::CreateBatchNormArgs(b, n.has_weight, n.has_bias, n.eps));
  }
  Written operator()(const StridedArgs& s) const {
    auto exprs = s.stride_exprs.empty() ? 0 : b.CreateVector(s.stride_exprs);
    return tagged(
        fb::KernelArgs::StridedArgs,
        fb::CreateStridedArgs(b, s.offset, b.CreateVector(s.strides), s.offset_expr, exprs));
  }
  Written operator()(const FullArgs& f) const {
    return tagged(fb::KernelArgs::FullArgs, fb::CreateFullArgs(b, f.value));
  }
  Written operator()(const ArangeArgs& a) const {
    return tagged(fb::KernelArgs::ArangeArgs, fb::CreateArangeArgs(b, a.start, a.step));
  }
  Written operator()(const ElementwiseArgs& e) const {
    std::vector<fb::ElementwiseOp> ops;
    for (const ElementwiseOp& op : e.ops) ops.emplace_back(op.code, op.a, op.b, op.c);
    return tagged(
        fb::KernelArgs::ElementwiseArgs,
        fb::CreateElementwiseArgs(b, b.CreateVectorOfStructs(ops), b.CreateVector(e.outputs),
                                  b.CreateVector(e.constants)));
  }
};

// The families' names (their tables in program.fbs), in KernelArgs' order.
constexpr const char* kFamilies[] = {nullptr,         "Conv2dArgs",    "GemmArgs",
                                     "AttentionArgs", "Pool2dArgs",    "AdaptivePool2dArgs",
                                     "ReduceArgs",    "DimArgs",       "IndexArgs",
                                     "LayerNormArgs", "BatchNormArgs", "StridedArgs",
                                     "FullArgs",      "ArangeArgs",    "ElementwiseArgs"};
static_assert(std::size(kFamilies) == std::variant_size_v<KernelArgs>);

}  // namespace

std::pair<std::uint8_t, std::uint32_t> write_kernel_args(flatbuffers::FlatBufferBuilder& b,
                                                         const KernelArgs& args) {
  return std::visit(Writer{b}, args);
}

const char* family_of(const KernelArgs& args) { return kFamilies[args.index()]; }

const char* family_of_kernel(const std::string& op) {
  static const std::unordered_map<std::string, const char*> families = {
      {"conv2d", "Conv2dArgs"},
      {"mm", "GemmArgs"},
      {"addmm", "GemmArgs"},
      {"bmm", "GemmArgs"},
      {"attention", "AttentionArgs"},
      {"max_pool2d", "Pool2dArgs"},
      {"avg_pool2d", "Pool2dArgs"},
      {"adaptive_avg_pool2d", "AdaptivePool2dArgs"},
      {"sum", "ReduceArgs"},
      {"mean", "ReduceArgs"},
      {"amax", "ReduceArgs"},
      {"amin", "ReduceArgs"},
      {"any", "ReduceArgs"},
      {"all", "ReduceArgs"},
      {"var", "ReduceArgs"},
      {"softmax", "DimArgs"},
      {"log_softmax", "DimArgs"},
      {"cumsum", "DimArgs"},
      {"gather", "DimArgs"},
      {"index_select", "DimArgs"},
      {"cat", "DimArgs"},
      {"index", "IndexArgs"},
      {"layer_norm", "LayerNormArgs"},
      {"rms_norm", "LayerNormArgs"},
      {"batch_norm", "BatchNormArgs"},
      {"copy_strided", "StridedArgs"},
      {"rotary", "StridedArgs"},
      {"scatter_strided", "StridedArgs"},
      {"full", "FullArgs"},
      {"arange", "ArangeArgs"},
      {"elementwise", "ElementwiseArgs"},
  };
  auto it = families.find(op);
  return it == families.end() ? nullptr : it->second;
}

}  // namespace glassbox::runtime
