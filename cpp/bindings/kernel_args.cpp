#include "bindings/kernel_args.hpp"

#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <cstdint>
#include <optional>
#include <string_view>
#include <tuple>
#include <vector>

#include "bindings/errors.hpp"
#include "runtime/kernel_args.hpp"

namespace nb = nanobind;
namespace rt = glassbox::runtime;

namespace glassbox::bindings {
namespace {

// Reads the fields of one dataclass by name.
struct Fields {
  const nb::object& o;
  template <typename T>
  T get(const char* name) const {
    return nb::cast<T>(o.attr(name));
  }
  std::int64_t i64(const char* name) const { return get<std::int64_t>(name); }
  bool flag(const char* name) const { return get<bool>(name); }
  double f64(const char* name) const { return get<double>(name); }
};

rt::KernelArgs conv2d(const Fields& f) {
  rt::Conv2dArgs c;
  c.stride_h = f.i64("stride_h"), c.stride_w = f.i64("stride_w");
  c.pad_h = f.i64("pad_h"), c.pad_w = f.i64("pad_w");
  c.dilation_h = f.i64("dilation_h"), c.dilation_w = f.i64("dilation_w");
  c.groups = f.i64("groups"), c.epilogue = f.i64("epilogue");
  c.has_bias = f.flag("has_bias"), c.batch_norm = f.flag("batch_norm");
  c.batch_norm_weight = f.flag("batch_norm_weight"), c.batch_norm_bias = f.flag("batch_norm_bias");
  c.batch_norm_eps = f.f64("batch_norm_eps");
  return c;
}

rt::KernelArgs gemm(const Fields& f) {
  rt::GemmArgs g;
  g.trans_a = f.flag("trans_a"), g.trans_b = f.flag("trans_b"), g.epilogue = f.i64("epilogue");
  g.beta = f.f64("beta"), g.alpha = f.f64("alpha");
  return g;
}

// An AttentionView dataclass, or None.
std::optional<rt::AttentionView> attention_view(const nb::object& o) {
  if (o.is_none()) return std::nullopt;
  const Fields f{o};
  return rt::AttentionView{f.i64("offset"),      f.i64("batch"),       f.i64("heads"),
                           f.i64("tokens"),      f.i64("width"),       f.i64("batch_stride"),
                           f.i64("head_stride"), f.i64("token_stride")};
}

rt::KernelArgs attention(const Fields& f) {
  rt::AttentionArgs t;
  t.scale = f.f64("scale"), t.causal = f.flag("causal"), t.has_mask = f.flag("has_mask");
  t.q_tokens_first = f.flag("q_tokens_first"), t.k_tokens_first = f.flag("k_tokens_first");
  t.v_tokens_first = f.flag("v_tokens_first"), t.out_tokens_first = f.flag("out_tokens_first");
  t.has_logsumexp = f.flag("has_logsumexp");
  t.q_view = attention_view(f.o.attr("q_view")), t.k_view = attention_view(f.o.attr("k_view"));
  t.v_view = attention_view(f.o.attr("v_view"));
  return t;
}

rt::KernelArgs pool2d(const Fields& f) {
  rt::Pool2dArgs p;
  p.kernel_h = f.i64("kernel_h"), p.kernel_w = f.i64("kernel_w");
  p.stride_h = f.i64("stride_h"), p.stride_w = f.i64("stride_w");
  p.pad_h = f.i64("pad_h"), p.pad_w = f.i64("pad_w");
  p.dilation_h = f.i64("dilation_h"), p.dilation_w = f.i64("dilation_w");
  p.ceil_mode = f.flag("ceil_mode"), p.count_include_pad = f.flag("count_include_pad");
  p.divisor_override = f.i64("divisor_override");
  return p;
}

rt::KernelArgs strided(const Fields& f) {
  rt::StridedArgs s;
  s.offset = f.i64("offset");
  s.strides = f.get<std::vector<std::int64_t>>("strides");
  s.offset_expr = f.get<std::int32_t>("offset_expr");
  s.stride_exprs = f.get<std::vector<std::int32_t>>("stride_exprs");
  return s;
}

rt::KernelArgs elementwise(const Fields& f) {
  using Op = std::tuple<std::int32_t, std::int32_t, std::int32_t, std::int32_t>;
  rt::ElementwiseArgs e;
  for (const auto& [code, a, b, c] : f.get<std::vector<Op>>("ops"))
    e.ops.push_back({code, a, b, c});
  e.outputs = f.get<std::vector<std::int32_t>>("outputs");
  e.constants = f.get<std::vector<double>>("constants");
  return e;
}

}  // namespace

rt::KernelArgs kernel_args_from_python(const std::string& op, const nb::object& args) {
  if (args.is_none()) return std::monostate{};
  const char* family = rt::family_of_kernel(op);
  if (!family) throw InputError("typed arguments for '" + op + "', which takes none");
  const std::string_view name = family;
  const Fields f{args};
  if (name == "Conv2dArgs") return conv2d(f);
  if (name == "GemmArgs") return gemm(f);
  if (name == "AttentionArgs") return attention(f);
  if (name == "Pool2dArgs") return pool2d(f);
  if (name == "AdaptivePool2dArgs") {
    return rt::AdaptivePool2dArgs{f.i64("output_h"), f.i64("output_w")};
  }
  if (name == "ReduceArgs") {
    return rt::ReduceArgs{f.get<std::vector<std::int64_t>>("dims"), f.flag("keepdim"),
                          f.f64("correction")};
  }
  if (name == "DimArgs") return rt::DimArgs{f.i64("dim")};
  if (name == "IndexArgs") return rt::IndexArgs{f.get<std::vector<std::int64_t>>("dims")};
  if (name == "LayerNormArgs") {
    return rt::LayerNormArgs{f.i64("normalized_dims"), f.flag("has_weight"), f.flag("has_bias"),
                             f.f64("eps")};
  }
  if (name == "BatchNormArgs") {
    return rt::BatchNormArgs{f.flag("has_weight"), f.flag("has_bias"), f.f64("eps")};
  }
  if (name == "StridedArgs") return strided(f);
  if (name == "FullArgs") return rt::FullArgs{f.f64("value")};
  if (name == "ArangeArgs") return rt::ArangeArgs{f.f64("start"), f.f64("step")};
  return elementwise(f);
}

}  // namespace glassbox::bindings
