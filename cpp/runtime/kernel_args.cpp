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
  return {0, 0};
}

const char* kernel_of(const KernelArgs& args) {
  if (std::holds_alternative<Conv2dArgs>(args)) return "conv2d";
  return nullptr;
}

}  // namespace glassbox::runtime
