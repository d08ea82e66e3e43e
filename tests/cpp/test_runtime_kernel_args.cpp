// Typed kernel arguments (schema/program.fbs, KernelArgs): every family survives the artifact as
// written, and each is refused at load when missing, carried by a kernel of another family or of
// none, or holding a bad value (the error names the field).
#include <flatbuffers/flatbuffers.h>
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "runtime/kernel_args.hpp"
#include "runtime/program.hpp"
#include "runtime/serializer.hpp"

namespace rt = glassbox::runtime;

namespace {

struct Operand {
  rt::Shape shape;
  rt::DType dtype = rt::DType::Float32;
};

// One instruction over program inputs `ins` writing arena outputs `outs`.
rt::ProgramSpec one(const std::string& op, const std::vector<Operand>& ins,
                    const std::vector<Operand>& outs, rt::KernelArgs args) {
  rt::ProgramSpec s;
  std::vector<std::int32_t> in_slots, out_slots;
  for (std::size_t i = 0; i < ins.size(); ++i) {
    rt::ValueDesc v;
    v.dtype = ins[i].dtype, v.shape = ins[i].shape;
    v.kind = rt::ValueKind::Input, v.index = static_cast<std::int64_t>(i);
    in_slots.push_back(static_cast<std::int32_t>(s.values.size()));
    s.inputs.push_back(in_slots.back());
    s.values.push_back(v);
  }
  std::int64_t offset = 0;
  for (const Operand& o : outs) {
    rt::ValueDesc v;
    v.dtype = o.dtype, v.shape = o.shape, v.kind = rt::ValueKind::Arena, v.index = offset;
    offset += (rt::numel_of(o.shape) * static_cast<std::int64_t>(rt::element_size(o.dtype)) + 63) /
              64 * 64;
    out_slots.push_back(static_cast<std::int32_t>(s.values.size()));
    s.outputs.push_back(out_slots.back());
    s.values.push_back(v);
  }
  s.instructions.push_back({op, in_slots, out_slots, std::move(args)});
  s.arena_size = static_cast<std::uint64_t>(offset) + 64;
  return s;
}

std::shared_ptr<const rt::Program> load(const rt::ProgramSpec& s) {
  std::string bytes = rt::serialize_program(s);
  return rt::Program::load_buffer(bytes.data(), bytes.size());
}

std::string load_error(const rt::ProgramSpec& s) {
  try {
    load(s);
  } catch (const rt::LoadError& e) {
    return e.what();
  }
  return "";
}

// A well-formed instruction of every family, and a kernel of that family.
struct Case {
  rt::ProgramSpec spec;
  const char* family;
};

std::vector<Case> cases() {
  const rt::DType i64 = rt::DType::Int64;
  rt::Conv2dArgs conv;
  conv.has_bias = true;
  rt::Pool2dArgs pool{2, 2, 2, 2, 0, 0, 1, 1, false, false, 0};
  rt::LayerNormArgs ln{1, true, false, 1e-5};
  rt::ElementwiseArgs program{{{0, 0, -1, -1}, {3, 0, 1, -1}}, {2}, {2.5}};  // x * 2.5
  rt::AttentionArgs attention_views;  // k and v split from one [1, 5, 16] projection
  attention_views.k_view = rt::AttentionView{0, 1, 2, 5, 4, 80, 4, 16};
  attention_views.v_view = rt::AttentionView{8, 1, 2, 5, 4, 80, 4, 16};
  return {
      {one("conv2d", {{{1, 2, 4, 4}}, {{3, 2, 3, 3}}, {{3}}}, {{{1, 3, 2, 2}}}, conv),
       "Conv2dArgs"},
      {one("bmm", {{{2, 3, 4}}, {{2, 4, 5}}}, {{{2, 3, 5}}}, rt::GemmArgs{}), "GemmArgs"},
      {one("max_pool2d", {{{1, 1, 4, 4}}}, {{{1, 1, 2, 2}}, {{1, 1, 2, 2}, i64}}, pool),
       "Pool2dArgs"},
      {one("adaptive_avg_pool2d", {{{1, 2, 5, 5}}}, {{{1, 2, 1, 1}}}, rt::AdaptivePool2dArgs{1, 1}),
       "AdaptivePool2dArgs"},
      {one("var", {{{2, 3}}}, {{{2, 1}}}, rt::ReduceArgs{{-1}, true, 1.0}), "ReduceArgs"},
      {one("softmax", {{{2, 3}}}, {{{2, 3}}}, rt::DimArgs{-1}), "DimArgs"},
      {one("index", {{{3, 4}}, {{2}, i64}}, {{{3, 2}}}, rt::IndexArgs{{1}}), "IndexArgs"},
      {one("layer_norm", {{{2, 3}}, {{3}}}, {{{2, 3}}}, ln), "LayerNormArgs"},
      {one("batch_norm", {{{2, 3}}, {{3}}, {{3}}}, {{{2, 3}}},
           rt::BatchNormArgs{false, false, 1e-5}),
       "BatchNormArgs"},
      {one("copy_strided", {{{2, 3}}}, {{{3, 2}}}, rt::StridedArgs{0, {1, 3}, -1, {}}),
       "StridedArgs"},
      {one("full", {}, {{{2}}}, rt::FullArgs{-INFINITY}), "FullArgs"},
      {one("arange", {}, {{{4}, i64}}, rt::ArangeArgs{1, 3}), "ArangeArgs"},
      {one("elementwise", {{{4}}}, {{{4}}}, program), "ElementwiseArgs"},
      {one("attention", {{{1, 2, 3, 4}}, {{1, 2, 5, 4}}, {{1, 2, 5, 4}}}, {{{1, 2, 3, 4}}},
           rt::AttentionArgs{}),
       "AttentionArgs"},
      {one("attention", {{{1, 2, 3, 4}}, {{1, 5, 16}}, {{1, 5, 16}}}, {{{1, 2, 3, 4}}},
           attention_views),
       "AttentionArgs"},
  };
}

}  // namespace

TEST(KernelArgs, EveryFamilyLoadsAsWritten) {
  for (const Case& c : cases()) {
    const rt::InstrDesc& written = c.spec.instructions[0];
    EXPECT_STREQ(rt::family_of_kernel(written.op), c.family);
    std::shared_ptr<const rt::Program> p = load(c.spec);
    const rt::KernelArgs& read = p->instructions()[0].args;
    EXPECT_STREQ(rt::family_of(read), c.family);
    // Written again from what was read, the artifact is the same bytes.
    rt::ProgramSpec again = c.spec;
    again.instructions[0].args = read;
    EXPECT_EQ(rt::serialize_program(again), rt::serialize_program(c.spec)) << c.family;
  }
}

TEST(KernelArgs, EveryFamilyIsRequiredAndOnlyByItsKernels) {
  for (const Case& c : cases()) {
    rt::ProgramSpec s = c.spec;
    const std::string op = s.instructions[0].op;
    s.instructions[0].args = std::monostate{};
    EXPECT_NE(load_error(s).find("expects its arguments as " + std::string(c.family)),
              std::string::npos)
        << load_error(s);
    // Another family's table on this kernel.
    s.instructions[0].args = c.family == std::string("DimArgs") ? rt::KernelArgs(rt::FullArgs{})
                                                                : rt::KernelArgs(rt::DimArgs{});
    const char* other = c.family == std::string("DimArgs") ? "FullArgs" : "DimArgs";
    EXPECT_NE(
        load_error(s).find("carries " + std::string(other) + ", which '" + op + "' does not take"),
        std::string::npos)
        << load_error(s);
  }
  // Kernels that take no arguments refuse every table.
  rt::ProgramSpec s = one("convert", {{{2}}}, {{{2}, rt::DType::Int64}}, std::monostate{});
  EXPECT_EQ(load_error(s), "");
  s.instructions[0].args = rt::ReduceArgs{};
  EXPECT_NE(load_error(s).find("carries ReduceArgs, which 'convert' does not take"),
            std::string::npos);
}

// Each family's fields are verified; the error names the field.
TEST(KernelArgs, BadFieldValuesAreRefusedByName) {
  std::vector<Case> all = cases();
  auto refused = [&](std::size_t k, auto change, const std::string& field) {
    rt::ProgramSpec s = all[k].spec;
    change(s.instructions[0].args);
    const std::string error = load_error(s);
    EXPECT_NE(error.find(field), std::string::npos) << all[k].family << ": " << error;
  };
  using A = rt::KernelArgs;
  refused(
      2, [](A& a) { std::get<rt::Pool2dArgs>(a).kernel_h = 0; }, "Pool2dArgs.kernel_h is 0");
  refused(
      2, [](A& a) { std::get<rt::Pool2dArgs>(a).pad_w = 2; }, "Pool2dArgs.pad_w is 2");
  refused(
      2, [](A& a) { std::get<rt::Pool2dArgs>(a).divisor_override = 3; },
      "Pool2dArgs.divisor_override");  // avg_pool2d's own
  refused(
      3, [](A& a) { std::get<rt::AdaptivePool2dArgs>(a).output_w = -1; },
      "AdaptivePool2dArgs.output_w is -1");
  refused(
      4, [](A& a) { std::get<rt::ReduceArgs>(a).dims = {2}; }, "ReduceArgs.dims is 2");
  refused(
      4,
      [](A& a) {
        std::get<rt::ReduceArgs>(a).dims = {1, -1};
      },
      "ReduceArgs.dims repeats");
  refused(
      4, [](A& a) { std::get<rt::ReduceArgs>(a).correction = NAN; }, "ReduceArgs.correction");
  refused(
      5, [](A& a) { std::get<rt::DimArgs>(a).dim = -3; }, "DimArgs.dim is -3");
  refused(
      6, [](A& a) { std::get<rt::IndexArgs>(a).dims = {2}; }, "IndexArgs.dims is 2");
  refused(
      6,
      [](A& a) {
        std::get<rt::IndexArgs>(a).dims = {0, 1};
      },
      "IndexArgs.dims must name one dim per index tensor");
  refused(
      7, [](A& a) { std::get<rt::LayerNormArgs>(a).normalized_dims = 3; },
      "LayerNormArgs.normalized_dims is 3");
  refused(
      7, [](A& a) { std::get<rt::LayerNormArgs>(a).has_bias = true; },
      "LayerNormArgs.has_weight/has_bias");
  refused(
      8, [](A& a) { std::get<rt::BatchNormArgs>(a).eps = INFINITY; }, "BatchNormArgs.eps");
  refused(
      9, [](A& a) { std::get<rt::StridedArgs>(a).strides = {1}; }, "StridedArgs.strides has 1");
  refused(
      9, [](A& a) { std::get<rt::StridedArgs>(a).offset = 6; }, "StridedArgs.offset is 6");
  refused(
      11, [](A& a) { std::get<rt::ArangeArgs>(a).step = NAN; }, "ArangeArgs.start and step");
  refused(
      12, [](A& a) { std::get<rt::ElementwiseArgs>(a).ops[0].code = 999; },
      "ElementwiseArgs.ops[0]: unknown elementwise opcode 999");
  refused(
      12, [](A& a) { std::get<rt::ElementwiseArgs>(a).ops[0].a = 1; },
      "ElementwiseArgs.ops[0].a (a constant's index) is 1");
  refused(
      12, [](A& a) { std::get<rt::ElementwiseArgs>(a).ops[1].b = 2; },
      "ElementwiseArgs.ops[1] reads an undefined register");
  refused(
      12,
      [](A& a) {
        std::get<rt::ElementwiseArgs>(a).outputs = {2, 2};
      },
      "ElementwiseArgs.outputs does not name one register per output");
  refused(
      12, [](A& a) { std::get<rt::ElementwiseArgs>(a).outputs = {3}; },
      "ElementwiseArgs.outputs is 3");
  refused(
      13, [](A& a) { std::get<rt::AttentionArgs>(a).scale = NAN; },
      "AttentionArgs.scale must be finite");
  refused(
      14, [](A& a) { std::get<rt::AttentionArgs>(a).v_view->offset = 9; },
      "AttentionArgs: the value view reaches outside its slot of 80");
}

// sum and avg_pool2d: a correction on a reduction other than var, and a dilation on avg_pool2d.
TEST(KernelArgs, FieldsOfOneKernelAreRefusedOnItsSiblings) {
  rt::ProgramSpec s = one("sum", {{{2, 3}}}, {{{2}}}, rt::ReduceArgs{{1}, false, 1.0});
  EXPECT_NE(load_error(s).find("takes no ReduceArgs.correction"), std::string::npos);
  std::get<rt::ReduceArgs>(s.instructions[0].args).correction = 0.0;
  EXPECT_EQ(load_error(s), "");
  rt::Pool2dArgs pool{2, 2, 2, 2, 0, 0, 2, 1, false, true, 0};
  s = one("avg_pool2d", {{{1, 1, 4, 4}}}, {{{1, 1, 2, 2}}}, pool);
  EXPECT_NE(load_error(s).find("Pool2dArgs.dilation_h is 2"), std::string::npos);
  std::get<rt::Pool2dArgs>(s.instructions[0].args).dilation_h = 1;
  EXPECT_EQ(load_error(s), "");
  s = one("max_pool2d", {{{1, 1, 4, 4}}}, {{{1, 1, 2, 2}}}, pool);
  std::get<rt::Pool2dArgs>(s.instructions[0].args).dilation_h = 1;
  EXPECT_NE(load_error(s).find("Pool2dArgs.count_include_pad is avg_pool2d's"), std::string::npos);
}

// An artifact of another format version (3: positional ints) is refused, naming both versions.
TEST(KernelArgs, OtherFormatVersionsAreRefused) {
  for (std::uint32_t version : {3u, 6u}) {
    // A Program table with its first field (version, at vtable offset 4) alone, as flatc's
    // CreateProgram writes it; the runtime keeps the generated header to itself.
    flatbuffers::FlatBufferBuilder b;
    const flatbuffers::uoffset_t start = b.StartTable();
    b.AddElement<std::uint32_t>(4, version, 0);
    b.Finish(flatbuffers::Offset<void>(b.EndTable(start)), "GBX1");
    try {
      rt::Program::load_buffer(b.GetBufferPointer(), b.GetSize());
      ADD_FAILURE() << "version " << version << " loaded";
    } catch (const rt::LoadError& e) {
      EXPECT_EQ(std::string(e.what()), "unsupported program format version " +
                                           std::to_string(version) +
                                           " (this runtime reads versions 4 to 5)");
    }
  }
}

// Format 5 only added attention views: a version 4 artifact (none) loads as it is.
TEST(KernelArgs, FormatVersionFourStillLoads) {
  const Case c = cases()[13];
  std::string bytes = rt::serialize_program(c.spec);
  auto* root = flatbuffers::GetMutableRoot<flatbuffers::Table>(bytes.data());
  ASSERT_TRUE(root->SetField<std::uint32_t>(4, 4, 0));  // Program.version
  EXPECT_EQ(rt::Program::load_buffer(bytes.data(), bytes.size())->instructions()[0].op,
            "attention");
}
