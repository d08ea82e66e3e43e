#include "runtime/kernel_args.hpp"

#include "program_generated.h"

namespace glassbox::runtime {

KernelArgs read_kernel_args(const fb::Instruction& instruction) {
  if (const fb::Conv2dArgs* a = instruction.args_as_Conv2dArgs()) {
    Conv2dArgs c;
    c.stride_h = a->stride_h(), c.stride_w = a->stride_w();
    c.pad_h = a->pad_h(), c.pad_w = a->pad_w();
    c.dilation_h = a->dilation_h(), c.dilation_w = a->dilation_w();
    c.groups = a->groups();
    c.has_bias = a->has_bias(), c.batch_norm = a->batch_norm();
    c.batch_norm_weight = a->batch_norm_weight(), c.batch_norm_bias = a->batch_norm_bias();
    c.epilogue = static_cast<std::int64_t>(a->epilogue());
    return c;
  }
  if (const fb::GemmArgs* a = instruction.args_as_GemmArgs()) {
    GemmArgs g;
    g.trans_a = a->trans_a(), g.trans_b = a->trans_b();
    g.epilogue = static_cast<std::int64_t>(a->epilogue());
    g.beta = a->beta(), g.alpha = a->alpha();
    return g;
  }
  if (const fb::AttentionArgs* a = instruction.args_as_AttentionArgs()) {
    AttentionArgs t;
    t.scale = a->scale(), t.causal = a->causal(), t.has_mask = a->has_mask();
    t.q_tokens_first = a->q_tokens_first(), t.k_tokens_first = a->k_tokens_first();
    t.v_tokens_first = a->v_tokens_first(), t.out_tokens_first = a->out_tokens_first();
    t.has_logsumexp = a->has_logsumexp();
    return t;
  }
  return std::monostate{};
}

std::pair<std::uint8_t, std::uint32_t> write_kernel_args(flatbuffers::FlatBufferBuilder& b,
                                                         const KernelArgs& args) {
  if (const auto* c = std::get_if<Conv2dArgs>(&args)) {
    auto offset = fb::CreateConv2dArgs(b, c->stride_h, c->stride_w, c->pad_h, c->pad_w,
                                       c->dilation_h, c->dilation_w, c->groups, c->has_bias,
                                       c->batch_norm, c->batch_norm_weight, c->batch_norm_bias,
                                       static_cast<fb::Epilogue>(c->epilogue));
    return {static_cast<std::uint8_t>(fb::KernelArgs::Conv2dArgs), offset.o};
  }
  if (const auto* g = std::get_if<GemmArgs>(&args)) {
    auto offset = fb::CreateGemmArgs(b, g->trans_a, g->trans_b,
                                     static_cast<fb::Epilogue>(g->epilogue), g->beta, g->alpha);
    return {static_cast<std::uint8_t>(fb::KernelArgs::GemmArgs), offset.o};
  }
  if (const auto* t = std::get_if<AttentionArgs>(&args)) {
    auto offset = fb::CreateAttentionArgs(b, t->scale, t->causal, t->has_mask, t->q_tokens_first,
                                          t->k_tokens_first, t->v_tokens_first, t->out_tokens_first,
                                          t->has_logsumexp);
    return {static_cast<std::uint8_t>(fb::KernelArgs::AttentionArgs), offset.o};
  }
  return {0, 0};
}

const char* family_of(const KernelArgs& args) {
  if (std::holds_alternative<Conv2dArgs>(args)) return "Conv2dArgs";
  if (std::holds_alternative<GemmArgs>(args)) return "GemmArgs";
  if (std::holds_alternative<AttentionArgs>(args)) return "AttentionArgs";
  return nullptr;
}

const char* family_of_kernel(const std::string& op) {
  if (op == "conv2d") return "Conv2dArgs";
  if (op == "mm" || op == "addmm" || op == "bmm") return "GemmArgs";
  if (op == "attention") return "AttentionArgs";
  return nullptr;
}

}  // namespace glassbox::runtime
