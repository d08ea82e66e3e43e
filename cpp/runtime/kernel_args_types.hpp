// The typed arguments of each kernel family (schema/program.fbs, KernelArgs) as plain structs, the
// form the loader reads them into and kernels read. Fields mirror the schema's tables; defaults are
// the schema's defaults. Values are checked by each kernel's verify function.
#pragma once

#include <cstdint>
#include <optional>
#include <variant>
#include <vector>

namespace glassbox::runtime {

// conv2d (Conv2dArgs).
struct Conv2dArgs {
  std::int64_t stride_h = 1, stride_w = 1, pad_h = 0, pad_w = 0, dilation_h = 1, dilation_w = 1,
               groups = 1;
  bool has_bias = false, batch_norm = false, batch_norm_weight = false, batch_norm_bias = false;
  std::int64_t epilogue = 0;  // Epilogue (packed_gemm.hpp)
  double batch_norm_eps = 0.0;
};

// mm, addmm and bmm (GemmArgs).
struct GemmArgs {
  bool trans_a = false, trans_b = false;
  std::int64_t epilogue = 0;  // Epilogue (packed_gemm.hpp)
  double beta = 1.0, alpha = 1.0;
};

// An attention operand read in place as a strided view of its slot (AttentionView): element
// (b, h, t, e) of [batch, heads, tokens, width] at offset + b, h, t . strides + e.
struct AttentionView {
  std::int64_t offset = 0, batch = 0, heads = 0, tokens = 0, width = 0;
  std::int64_t batch_stride = 0, head_stride = 0, token_stride = 0;
};

// attention (AttentionArgs). An operand's view, where present, replaces its tokens_first flag.
struct AttentionArgs {
  double scale = 1.0;
  bool causal = false, has_mask = false;
  bool q_tokens_first = false, k_tokens_first = false, v_tokens_first = false,
       out_tokens_first = false, has_logsumexp = false;
  std::optional<AttentionView> q_view = std::nullopt, k_view = std::nullopt, v_view = std::nullopt;
};

// max_pool2d and avg_pool2d (Pool2dArgs).
struct Pool2dArgs {
  std::int64_t kernel_h = 0, kernel_w = 0, stride_h = 0, stride_w = 0, pad_h = 0, pad_w = 0,
               dilation_h = 1, dilation_w = 1;
  bool ceil_mode = false, count_include_pad = false;
  std::int64_t divisor_override = 0;
};

// adaptive_avg_pool2d (AdaptivePool2dArgs).
struct AdaptivePool2dArgs {
  std::int64_t output_h = 0, output_w = 0;
};

// sum, mean, amax, amin, any, all, var (ReduceArgs).
struct ReduceArgs {
  std::vector<std::int64_t> dims;
  bool keepdim = false;
  double correction = 0.0;
};

// softmax, log_softmax, cumsum, gather, index_select, cat (DimArgs).
struct DimArgs {
  std::int64_t dim = 0;
};

// index (IndexArgs).
struct IndexArgs {
  std::vector<std::int64_t> dims;
};

// layer_norm (LayerNormArgs).
struct LayerNormArgs {
  std::int64_t normalized_dims = 0;
  bool has_weight = false, has_bias = false;
  double eps = 0.0;
};

// batch_norm (BatchNormArgs).
struct BatchNormArgs {
  bool has_weight = false, has_bias = false;
  double eps = 0.0;
};

// copy_strided and scatter_strided (StridedArgs). The exprs are cleared once a program is
// specialized to a binding of its symbols.
struct StridedArgs {
  std::int64_t offset = 0;
  std::vector<std::int64_t> strides;
  std::int32_t offset_expr = -1;           // -1, or the Expr id of offset
  std::vector<std::int32_t> stride_exprs;  // empty, or per stride -1 or an Expr id
};

// full (FullArgs) and arange (ArangeArgs).
struct FullArgs {
  double value = 0.0;
};
struct ArangeArgs {
  double start = 0.0, step = 1.0;
};

// One op of the elementwise program (ElementwiseOp): registers a, b, c (CONST: a indexes
// constants).
struct ElementwiseOp {
  std::int32_t code = 0, a = -1, b = -1, c = -1;
};
struct ElementwiseArgs {
  std::vector<ElementwiseOp> ops;
  std::vector<std::int32_t> outputs;  // the register each output is stored from
  std::vector<double> constants;
};

// An instruction's typed arguments: none (a kernel that takes none), or its family's. The order is
// the schema union's.
using KernelArgs = std::variant<std::monostate, Conv2dArgs, GemmArgs, AttentionArgs, Pool2dArgs,
                                AdaptivePool2dArgs, ReduceArgs, DimArgs, IndexArgs, LayerNormArgs,
                                BatchNormArgs, StridedArgs, FullArgs, ArangeArgs, ElementwiseArgs>;

}  // namespace glassbox::runtime
