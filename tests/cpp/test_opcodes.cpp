// The generated per-version opcode tables and the rules layered on them.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdlib>
#include <string>

#include "bytecode/error.hpp"
#include "bytecode/opcodes.hpp"

namespace glassbox::bytecode {
namespace {

const OpcodeInfo& info(PyMinor minor, std::string_view name) {
  const OpcodeTable& table = opcode_table(minor);
  const int op = table.opcode_of(name);
  EXPECT_GE(op, 0) << name << " missing from 3." << minor;
  return table.ops.at(static_cast<std::size_t>(op < 0 ? 0 : op));
}

TEST(OpcodeTable, EachSupportedVersionHasItsTable) {
  for (PyMinor minor = kMinSupportedMinor; minor <= kMaxSupportedMinor; ++minor) {
    const OpcodeTable& table = opcode_table(minor);
    EXPECT_EQ(table.minor, minor);
    EXPECT_EQ(table.cmp_op.size(), 6u);
    EXPECT_EQ(table.cmp_op[2], "==");
    EXPECT_EQ(table.function_flags.size(), 4u);
    EXPECT_EQ(table.function_flags[3], "closure");
    EXPECT_EQ(table.conversions.size(), 4u);
    EXPECT_EQ(table.conversions[2], "repr");
  }
}

TEST(OpcodeTable, UnsupportedVersionsThrow) {
  EXPECT_THROW(opcode_table(9), BytecodeError);
  EXPECT_THROW(opcode_table(14), BytecodeError);
}

TEST(OpcodeTable, KnownOpcodeNumbers) {
  EXPECT_EQ(opcode_table(10).opcode_of("LOAD_CONST"), 100);
  EXPECT_EQ(opcode_table(11).opcode_of("LOAD_CONST"), 100);
  EXPECT_EQ(opcode_table(12).opcode_of("RETURN_CONST"), 121);
  EXPECT_EQ(opcode_table(13).opcode_of("LOAD_CONST"), 83);
  EXPECT_EQ(opcode_table(13).opcode_of("CACHE"), 0);
  EXPECT_EQ(opcode_table(10).opcode_of("EXTENDED_ARG"), 144);
  EXPECT_EQ(opcode_table(12).opcode_of("NO_SUCH_OPCODE"), -1);
  EXPECT_EQ(opcode_table(12).opcode_of(""), -1);
}

TEST(OpcodeTable, ArgumentFlags) {
  EXPECT_TRUE(info(10, "LOAD_CONST").has_arg);
  EXPECT_TRUE(info(10, "LOAD_CONST").has_const);
  EXPECT_FALSE(info(10, "RETURN_VALUE").has_arg);
  EXPECT_TRUE(info(10, "JUMP_ABSOLUTE").has_jabs);
  EXPECT_TRUE(info(10, "FOR_ITER").has_jrel);
  EXPECT_TRUE(info(10, "LOAD_DEREF").has_free);
  EXPECT_TRUE(info(11, "MAKE_CELL").has_free);
  EXPECT_TRUE(info(12, "LOAD_FAST_CHECK").has_local);
  EXPECT_TRUE(info(13, "LOAD_FAST_LOAD_FAST").has_local);
  EXPECT_TRUE(info(12, "COMPARE_OP").has_compare);
  EXPECT_TRUE(info(12, "LOAD_ATTR").has_name);
  // 3.13's has_arg comes from the interpreter, not HAVE_ARGUMENT: WITH_EXCEPT_START has none.
  EXPECT_FALSE(info(13, "WITH_EXCEPT_START").has_arg);
}

TEST(OpcodeTable, InlineCacheEntries) {
  EXPECT_EQ(info(10, "LOAD_GLOBAL").cache_entries, 0);
  EXPECT_EQ(info(11, "LOAD_GLOBAL").cache_entries, 5);
  EXPECT_EQ(info(12, "LOAD_GLOBAL").cache_entries, 4);
  EXPECT_EQ(info(13, "LOAD_GLOBAL").cache_entries, 4);
  EXPECT_EQ(info(11, "LOAD_ATTR").cache_entries, 4);
  EXPECT_EQ(info(12, "LOAD_ATTR").cache_entries, 9);
  EXPECT_EQ(info(11, "PRECALL").cache_entries, 1);
  EXPECT_EQ(info(12, "FOR_ITER").cache_entries, 1);
  EXPECT_EQ(info(13, "POP_JUMP_IF_FALSE").cache_entries, 1);
  EXPECT_EQ(info(12, "POP_JUMP_IF_FALSE").cache_entries, 0);
  EXPECT_EQ(info(13, "CALL").cache_entries, 3);
}

TEST(OpcodeTable, BackwardJumps) {
  EXPECT_TRUE(info(11, "JUMP_BACKWARD").jump_backward);
  EXPECT_TRUE(info(11, "POP_JUMP_BACKWARD_IF_TRUE").jump_backward);
  EXPECT_FALSE(info(11, "POP_JUMP_FORWARD_IF_TRUE").jump_backward);
  EXPECT_TRUE(info(12, "JUMP_BACKWARD_NO_INTERRUPT").jump_backward);
  EXPECT_TRUE(info(13, "JUMP_BACKWARD").jump_backward);
  EXPECT_FALSE(info(13, "FOR_ITER").jump_backward);
  EXPECT_FALSE(info(10, "JUMP_ABSOLUTE").jump_backward);
}

TEST(OpcodeTable, SpecializedOpcodesNameThemselvesButActAsTheirBase) {
  const OpcodeTable& table = opcode_table(12);
  const int specialized = table.opcode_of("LOAD_ATTR_SLOT");
  ASSERT_GE(specialized, 0);
  const OpcodeInfo& op = table.ops[static_cast<std::size_t>(specialized)];
  EXPECT_EQ(op.base_opcode, table.opcode_of("LOAD_ATTR"));
  EXPECT_EQ(op.cache_entries, 9);
  EXPECT_EQ(op.arg_kind, ArgKind::AttrName);
}

TEST(OpcodeTable, ArgumentKindsFollowEachVersionsDis) {
  EXPECT_EQ(info(10, "LOAD_GLOBAL").arg_kind, ArgKind::Name);
  EXPECT_EQ(info(11, "LOAD_GLOBAL").arg_kind, ArgKind::GlobalName);
  EXPECT_EQ(info(11, "LOAD_ATTR").arg_kind, ArgKind::Name);
  EXPECT_EQ(info(12, "LOAD_ATTR").arg_kind, ArgKind::AttrName);
  EXPECT_EQ(info(12, "LOAD_SUPER_ATTR").arg_kind, ArgKind::SuperAttrName);
  EXPECT_EQ(info(11, "KW_NAMES").arg_kind, ArgKind::ConstIndex);
  EXPECT_EQ(info(12, "KW_NAMES").arg_kind, ArgKind::Const);
  EXPECT_EQ(info(12, "RETURN_CONST").arg_kind, ArgKind::Const);
  EXPECT_EQ(info(13, "STORE_FAST_STORE_FAST").arg_kind, ArgKind::LocalPair);
  EXPECT_EQ(info(10, "LOAD_CLOSURE").arg_kind, ArgKind::Free);
  EXPECT_EQ(info(13, "LOAD_DEREF").arg_kind, ArgKind::Free);
  EXPECT_EQ(info(10, "FORMAT_VALUE").arg_kind, ArgKind::FormatValue);
  EXPECT_EQ(info(13, "CONVERT_VALUE").arg_kind, ArgKind::ConvertValue);
  EXPECT_EQ(info(12, "MAKE_FUNCTION").arg_kind, ArgKind::FunctionFlags);
  EXPECT_EQ(info(13, "SET_FUNCTION_ATTRIBUTE").arg_kind, ArgKind::FunctionFlags);
  EXPECT_EQ(info(11, "BINARY_OP").arg_kind, ArgKind::BinaryOp);
  EXPECT_EQ(info(12, "CALL_INTRINSIC_2").arg_kind, ArgKind::Intrinsic2);
  EXPECT_EQ(info(10, "JUMP_IF_NOT_EXC_MATCH").arg_kind, ArgKind::Jump);
  EXPECT_EQ(info(13, "COMPARE_OP").arg_kind, ArgKind::Compare);
  EXPECT_EQ(info(13, "BUILD_TUPLE").arg_kind, ArgKind::None);
}

TEST(OpcodeTable, SideTables) {
  EXPECT_TRUE(opcode_table(10).binary_ops.empty());
  ASSERT_EQ(opcode_table(11).binary_ops.size(), 26u);
  EXPECT_EQ(opcode_table(11).binary_ops[0], "+");
  EXPECT_EQ(opcode_table(12).binary_ops[13], "+=");
  EXPECT_EQ(opcode_table(13).binary_ops[25], "^=");
  EXPECT_TRUE(opcode_table(11).intrinsic1.empty());
  EXPECT_EQ(opcode_table(12).intrinsic1.at(2), "INTRINSIC_IMPORT_STAR");
  EXPECT_EQ(opcode_table(12).intrinsic2.size(), 5u);
  EXPECT_EQ(opcode_table(13).intrinsic2.at(5), "INTRINSIC_SET_TYPEPARAM_DEFAULT");
}

TEST(OpcodeTable, PresentationRules) {
  EXPECT_EQ(opcode_table(11).compare_shift, 0);
  EXPECT_EQ(opcode_table(12).compare_shift, 4);
  EXPECT_EQ(opcode_table(13).compare_shift, 5);
  EXPECT_EQ(opcode_table(13).compare_bool_flag, 16);
  EXPECT_EQ(opcode_table(12).null_marker, NullMarker::Prefix);
  EXPECT_EQ(opcode_table(13).null_marker, NullMarker::Suffix);
  EXPECT_FALSE(opcode_table(11).jumps_skip_caches);
  EXPECT_TRUE(opcode_table(12).jumps_skip_caches);
  EXPECT_FALSE(opcode_table(10).deref_into_localsplus);
  EXPECT_TRUE(opcode_table(11).deref_into_localsplus);
}

TEST(OpcodeTable, DisplayNames) {
  EXPECT_EQ(opcode_display_name(opcode_table(10), 0), "<0>");
  EXPECT_EQ(opcode_display_name(opcode_table(10), 100), "LOAD_CONST");
  EXPECT_EQ(opcode_display_name(opcode_table(13), 0), "CACHE");
  EXPECT_EQ(opcode_display_name(opcode_table(11), 255), "<255>");
  EXPECT_THROW(opcode_display_name(opcode_table(12), 256), BytecodeError);
  EXPECT_THROW(opcode_display_name(opcode_table(12), -1), BytecodeError);
}

// The committed .inc files must be what scripts/gen_opcodes.py makes from the interpreters found
// on this machine (versions not installed are skipped by the script).
TEST(OpcodeTable, GeneratedFilesAreUpToDate) {
#ifdef GLASSBOX_SOURCE_DIR
  if (std::system(
          "python3 -c 'import sys; sys.exit(sys.version_info < (3, 8))' > /dev/null 2>&1") != 0) {
    GTEST_SKIP() << "python3 not available";
  }
  const std::string command = std::string("python3 \"") + GLASSBOX_SOURCE_DIR +
                              "/scripts/gen_opcodes.py\" --all --check > /dev/null";
  const int status = std::system(command.c_str());
  if (status != 0 && WEXITSTATUS(status) == 2)
    GTEST_SKIP() << "no CPython 3.10..3.13 interpreter found";
  EXPECT_EQ(status, 0) << "run: python3 scripts/gen_opcodes.py --all --check";
#else
  GTEST_SKIP() << "GLASSBOX_SOURCE_DIR not defined";
#endif
}

}  // namespace
}  // namespace glassbox::bytecode
