#include "runtime/serializer.hpp"

#include "program_generated.h"
#include "runtime/kernel_args.hpp"
#include "runtime/program.hpp"

namespace glassbox::runtime {

namespace {
std::uint64_t align_up(std::uint64_t n) {
  return (n + kSegmentAlignment - 1) / kSegmentAlignment * kSegmentAlignment;
}
}  // namespace

std::string serialize_program(const ProgramSpec& spec) {
  // Constant layout inside the segment.
  std::vector<std::uint64_t> offsets;
  std::uint64_t seg_size = 0;
  for (const std::string& c : spec.constants) {
    offsets.push_back(seg_size);
    seg_size = align_up(seg_size + c.size());
  }

  // The segment offset is stored in the FlatBuffer, whose size depends on it only through the
  // value of a fixed-width field: build once with a placeholder, then patch by rebuilding.
  auto build = [&](std::uint64_t seg_offset) {
    flatbuffers::FlatBufferBuilder b(1024);
    std::vector<flatbuffers::Offset<fb::Value>> values;
    for (const ValueDesc& v : spec.values) {
      values.push_back(fb::CreateValue(b, static_cast<fb::DType>(v.dtype), b.CreateVector(v.shape),
                                       static_cast<fb::ValueKind>(v.kind), v.index,
                                       v.dims.empty() ? 0 : b.CreateVector(v.dims)));
    }
    std::vector<flatbuffers::Offset<fb::Instruction>> instrs;
    for (const InstrDesc& in : spec.instructions) {
      auto [args_type, args] = write_kernel_args(b, in.args);
      instrs.push_back(fb::CreateInstruction(
          b, b.CreateString(in.op), b.CreateVector(in.inputs), b.CreateVector(in.outputs),
          static_cast<fb::KernelArgs>(args_type), flatbuffers::Offset<void>(args)));
    }
    std::vector<flatbuffers::Offset<fb::Constant>> consts;
    for (std::size_t i = 0; i < spec.constants.size(); ++i) {
      consts.push_back(fb::CreateConstant(b, offsets[i], spec.constants[i].size()));
    }
    std::vector<flatbuffers::Offset<fb::Argument>> args;
    for (const ArgumentDesc& a : spec.arguments) {
      args.push_back(fb::CreateArgument(b, b.CreateString(a.name), a.input,
                                        a.input < 0 ? b.CreateString(a.value) : 0));
    }
    std::vector<flatbuffers::Offset<fb::Symbol>> symbols;
    for (const SymbolDesc& sym : spec.symbols) {
      symbols.push_back(fb::CreateSymbol(b, sym.input, sym.dim, sym.min, sym.max));
    }
    std::vector<flatbuffers::Offset<fb::Expr>> exprs;
    for (const ExprDesc& e : spec.exprs) {
      exprs.push_back(fb::CreateExpr(b, static_cast<fb::ExprOp>(e.op), e.a, e.b));
    }
    auto program = fb::CreateProgram(
        b, kFormatVersion, b.CreateVector(values), b.CreateVector(spec.inputs),
        b.CreateVector(spec.outputs), b.CreateVector(instrs), b.CreateVector(consts),
        spec.arena_size, seg_offset, seg_size, args.empty() ? 0 : b.CreateVector(args),
        symbols.empty() ? 0 : b.CreateVector(symbols), exprs.empty() ? 0 : b.CreateVector(exprs));
    fb::FinishProgramBuffer(b, program);
    return std::string(reinterpret_cast<const char*>(b.GetBufferPointer()), b.GetSize());
  };
  std::string head = build(0);
  std::uint64_t seg_offset = align_up(head.size());
  head = build(seg_offset);
  if (head.size() > seg_offset) {  // cannot happen: same fields, same widths; be safe anyway
    seg_offset = align_up(head.size());
    head = build(seg_offset);
  }
  std::string out = head;
  out.resize(seg_offset, '\0');
  for (std::size_t i = 0; i < spec.constants.size(); ++i) {
    out.resize(seg_offset + offsets[i], '\0');
    out += spec.constants[i];
  }
  out.resize(seg_offset + seg_size, '\0');
  return out;
}

}  // namespace glassbox::runtime
