// The decompiler on small programs compiled by each CPython version (decompiler_samples.inc,
// written by scripts/gen_decompiler_test_data.py): the exact source comes back, no fallbacks.
#include <gtest/gtest.h>

#include <string>

#include "bytecode/marshal.hpp"
#include "decompiler/decompiler.hpp"
#include "decompiler/lift.hpp"
#include "decompiler/printer.hpp"
#include "decompiler_samples.hpp"

namespace {

using glassbox::bytecode::ObjectKind;
using glassbox::bytecode::read_marshal;
using namespace glassbox::decompiler;

using glassbox::test::from_hex;
using glassbox::test::kSamples;
using glassbox::test::Sample;

const glassbox::bytecode::CodeObject& module_code(const Sample& sample) {
  static thread_local glassbox::bytecode::ObjectRef keep;
  keep = read_marshal(from_hex(sample.hex), sample.minor);
  EXPECT_EQ(keep->kind, ObjectKind::Code);
  return *keep->code;
}

TEST(DecompilerRoundTrip, SamplesComeBackExactly) {
  ASSERT_GT(sizeof(kSamples) / sizeof(kSamples[0]), 10u);
  for (const Sample& sample : kSamples) {
    SCOPED_TRACE(std::string("3.") + std::to_string(sample.minor) + " " + sample.name);
    DecompileResult result = decompile_module(module_code(sample));
    EXPECT_EQ(result.source, sample.source);
    EXPECT_TRUE(result.fallbacks.empty());
  }
}

TEST(DecompilerLift, CallsAreOneOperationInEveryVersion) {
  for (const Sample& sample : kSamples) {
    if (std::string(sample.name) != "expressions") continue;
    SCOPED_TRACE(sample.minor);
    LiftedCode lifted = lift(module_code(sample));
    int calls = 0;
    for (const Operation& op : lifted.ops) {
      EXPECT_NE(op.op, Op::Unknown) << op.text;
      if (op.op == Op::CallEx) ++calls;
    }
    EXPECT_EQ(calls, 1);  // f(*a, k=1, **kw)
  }
}

TEST(DecompilerLift, JumpTargetsAreOperationIndices) {
  for (const Sample& sample : kSamples) {
    LiftedCode lifted = lift(module_code(sample));
    for (const Operation& op : lifted.ops) {
      if (op.target < 0) continue;
      EXPECT_LE(op.target, static_cast<int>(lifted.ops.size()));
    }
  }
}

TEST(DecompilerFallback, UndecodableCodeBecomesAMarkedRaise) {
  // A function whose body is a bare RERAISE outside any handler cannot be structured.
  Sample sample = kSamples[0];
  for (const Sample& s : kSamples) {
    if (s.minor == 11 && std::string(s.name) == "assignments") sample = s;
  }
  glassbox::bytecode::CodeObject code = module_code(sample);
  ASSERT_EQ(code.minor, 11);
  code.code = std::string("\x97\x00\x77\x00", 4);  // RESUME 0; RERAISE 0
  code.exceptiontable.clear();
  DecompileResult result = decompile_module(code);
  ASSERT_EQ(result.fallbacks.size(), 1u);
  EXPECT_NE(result.source.find("# glassbox: could not reconstruct"), std::string::npos);
  EXPECT_NE(result.source.find("raise NotImplementedError("), std::string::npos);
}

TEST(DecompilerPrinter, ElifChainsAndPrecedence) {
  auto inner = make_stmt(StmtKind::If, {make_name("b")}, {{make_stmt(StmtKind::Pass)}, {}});
  auto outer = make_stmt(StmtKind::If, {make_name("a")}, {{make_stmt(StmtKind::Pass)}, {inner}});
  EXPECT_EQ(print_body({outer}), "if a:\n    pass\nelif b:\n    pass\n");
  ExprPtr sum = make_expr(ExprKind::BinOp, {make_name("x"), make_name("y")}, "+");
  ExprPtr product = make_expr(ExprKind::BinOp, {sum, make_name("z")}, "*");
  EXPECT_EQ(print_expr(*product), "(x + y) * z");
}

}  // namespace
