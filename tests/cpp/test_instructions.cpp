// Decoding instructions, arguments, line starts and exception tables, per version.
#include <gtest/gtest.h>

#include <initializer_list>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "bytecode/error.hpp"
#include "bytecode/instructions.hpp"

namespace glassbox::bytecode {
namespace {

ObjectRef make_object(ObjectKind kind, std::string text = "") {
  auto object = std::make_shared<Object>();
  object->kind = kind;
  if (kind == ObjectKind::Int) object->int_decimal = text;
  if (kind == ObjectKind::Str) object->text = text;
  return object;
}

int op(PyMinor minor, std::string_view name) {
  const int opcode = opcode_table(minor).opcode_of(name);
  if (opcode < 0) ADD_FAILURE() << name << " is not an opcode of 3." << minor;
  return opcode;
}

// A code object with a few constants, names and variables, and the given code units.
// Each element of `units` is {opname, arg}; "" means a raw CACHE / zero unit.
CodeObject make_code(PyMinor minor, std::initializer_list<std::pair<std::string_view, int>> units) {
  CodeObject code;
  code.minor = minor;
  for (const auto& [name, arg] : units) {
    code.code += static_cast<char>(name.empty() ? 0 : op(minor, name));
    code.code += static_cast<char>(arg);
  }
  code.consts = {make_object(ObjectKind::None), make_object(ObjectKind::Int, "1"),
                 make_object(ObjectKind::Str, "x")};
  code.names = {"a", "b", "c"};
  code.varnames = {"p", "q"};
  code.cellvars = {"cell"};
  code.freevars = {"free"};
  code.localsplusnames = {"p", "q", "cell", "free"};
  code.localspluskinds = {kLocalKindLocal, kLocalKindLocal, kLocalKindCell, kLocalKindFree};
  code.firstlineno = 1;
  code.name = code.qualname = "f";
  code.filename = "t.py";
  return code;
}

std::string error_of(const CodeObject& code) {
  try {
    decode_instructions(code);
  } catch (const BytecodeError& error) {
    return error.what();
  }
  return "no error";
}

TEST(DecodeInstructions, SimpleSequence310) {
  const auto instructions =
      decode_instructions(make_code(10, {{"LOAD_CONST", 2}, {"RETURN_VALUE", 0}}));
  ASSERT_EQ(instructions.size(), 2u);
  EXPECT_EQ(instructions[0].offset, 0);
  EXPECT_EQ(instructions[0].opname, "LOAD_CONST");
  EXPECT_TRUE(instructions[0].has_arg);
  EXPECT_EQ(instructions[0].arg, 2);
  EXPECT_EQ(instructions[0].argrepr, "'x'");
  EXPECT_EQ(instructions[1].offset, 2);
  EXPECT_EQ(instructions[1].opname, "RETURN_VALUE");
  EXPECT_FALSE(instructions[1].has_arg);
  EXPECT_EQ(instructions[1].argrepr, "");
}

TEST(DecodeInstructions, ExtendedArgIsListedAndFolded) {
  const auto instructions =
      decode_instructions(make_code(12, {{"EXTENDED_ARG", 1}, {"BUILD_TUPLE", 2}}));
  ASSERT_EQ(instructions.size(), 2u);
  EXPECT_EQ(instructions[0].opname, "EXTENDED_ARG");
  EXPECT_EQ(instructions[0].arg, 1);
  EXPECT_EQ(instructions[1].arg, 258);
  EXPECT_EQ(instructions[1].offset, 2);
}

TEST(DecodeInstructions, ExtendedArgWrapsLikeACIntFrom311) {
  // 0xFFFFFF << 8 passes 2**31: 3.11+ wrap it negative, as dis does; 3.10 cannot hold it.
  const auto units = {std::pair<std::string_view, int>{"EXTENDED_ARG", 255},
                      {"EXTENDED_ARG", 255},
                      {"EXTENDED_ARG", 255},
                      {"BUILD_TUPLE", 255}};
  const auto instructions = decode_instructions(make_code(11, units));
  ASSERT_EQ(instructions.size(), 4u);
  EXPECT_EQ(instructions[2].arg, 16777215);
  EXPECT_EQ(instructions[3].arg, -1);
  EXPECT_NE(error_of(make_code(10, units)).find("overflow"), std::string::npos);
}

TEST(DecodeInstructions, CachesAreSkipped) {
  const auto instructions = decode_instructions(make_code(
      11, {{"LOAD_GLOBAL", 3}, {"", 0}, {"", 0}, {"", 0}, {"", 0}, {"", 0}, {"RETURN_VALUE", 0}}));
  ASSERT_EQ(instructions.size(), 2u);
  EXPECT_EQ(instructions[0].cache_entries, 5);
  EXPECT_EQ(instructions[1].offset, 12);
}

TEST(DecodeInstructions, JumpTargetsPerVersion) {
  // 3.10: absolute jumps count code units from the start, relative ones from the next unit.
  auto v310 =
      decode_instructions(make_code(10, {{"JUMP_FORWARD", 1}, {"NOP", 0}, {"JUMP_ABSOLUTE", 0}}));
  EXPECT_EQ(v310[0].jump_target, 4);
  EXPECT_EQ(v310[0].argrepr, "to 4");
  EXPECT_EQ(v310[2].jump_target, 0);
  EXPECT_TRUE(v310[0].is_jump_target);
  EXPECT_TRUE(v310[2].is_jump_target);
  EXPECT_FALSE(v310[1].is_jump_target);
  // 3.11: backward jumps count back from the next unit.
  auto v311 = decode_instructions(make_code(11, {{"NOP", 0}, {"NOP", 0}, {"JUMP_BACKWARD", 2}}));
  EXPECT_EQ(v311[2].jump_target, 2);
  EXPECT_EQ(v311[2].argrepr, "to 2");
  // 3.12: relative jumps start after the instruction's caches (FOR_ITER has one).
  auto v312 =
      decode_instructions(make_code(12, {{"FOR_ITER", 1}, {"", 0}, {"NOP", 0}, {"END_FOR", 0}}));
  EXPECT_EQ(v312[0].jump_target, 6);
  // 3.13: labels instead of offsets.
  auto v313 = decode_instructions(make_code(13, {{"NOP", 0}, {"JUMP_BACKWARD", 3}, {"", 0}}));
  EXPECT_EQ(v313[1].jump_target, 0);
  EXPECT_EQ(v313[1].argrepr, "to L1");
  EXPECT_EQ(v313[0].label, 1);
  EXPECT_TRUE(v313[0].is_jump_target);
}

TEST(DecodeInstructions, GlobalsAndAttributesMarkTheirNull) {
  EXPECT_EQ(decode_instructions(make_code(10, {{"LOAD_GLOBAL", 1}}))[0].argrepr, "b");
  auto global311 = make_code(11, {{"LOAD_GLOBAL", 3}, {"", 0}, {"", 0}, {"", 0}, {"", 0}, {"", 0}});
  EXPECT_EQ(decode_instructions(global311)[0].argrepr, "NULL + b");
  auto global313 = make_code(13, {{"LOAD_GLOBAL", 3}, {"", 0}, {"", 0}, {"", 0}, {"", 0}});
  EXPECT_EQ(decode_instructions(global313)[0].argrepr, "b + NULL");
  auto attr = {std::pair<std::string_view, int>{"LOAD_ATTR", 5},
               {"", 0},
               {"", 0},
               {"", 0},
               {"", 0},
               {"", 0},
               {"", 0},
               {"", 0},
               {"", 0},
               {"", 0}};
  EXPECT_EQ(decode_instructions(make_code(12, attr))[0].argrepr, "NULL|self + c");
  EXPECT_EQ(decode_instructions(make_code(13, attr))[0].argrepr, "c + NULL|self");
  auto plain_attr = make_code(12, {{"LOAD_ATTR", 4},
                                   {"", 0},
                                   {"", 0},
                                   {"", 0},
                                   {"", 0},
                                   {"", 0},
                                   {"", 0},
                                   {"", 0},
                                   {"", 0},
                                   {"", 0}});
  EXPECT_EQ(decode_instructions(plain_attr)[0].argrepr, "c");
  EXPECT_EQ(decode_instructions(make_code(12, {{"LOAD_SUPER_ATTR", 5}, {"", 0}}))[0].argrepr,
            "NULL|self + b");
}

TEST(DecodeInstructions, ComparisonsPerVersion) {
  EXPECT_EQ(decode_instructions(make_code(10, {{"COMPARE_OP", 2}}))[0].argrepr, "==");
  EXPECT_EQ(decode_instructions(make_code(12, {{"COMPARE_OP", 2 << 4}, {"", 0}}))[0].argrepr, "==");
  EXPECT_EQ(decode_instructions(make_code(13, {{"COMPARE_OP", 2 << 5}, {"", 0}}))[0].argrepr, "==");
  EXPECT_EQ(decode_instructions(make_code(13, {{"COMPARE_OP", (4 << 5) | 16}, {"", 0}}))[0].argrepr,
            "bool(>)");
  EXPECT_EQ(decode_instructions(make_code(12, {{"IS_OP", 1}}))[0].argrepr, "");
}

TEST(DecodeInstructions, FlagsAndOperators) {
  EXPECT_EQ(decode_instructions(make_code(10, {{"FORMAT_VALUE", 6}}))[0].argrepr,
            "repr, with format");
  EXPECT_EQ(decode_instructions(make_code(12, {{"FORMAT_VALUE", 4}}))[0].argrepr, "with format");
  EXPECT_EQ(decode_instructions(make_code(12, {{"FORMAT_VALUE", 0}}))[0].argrepr, "");
  EXPECT_EQ(decode_instructions(make_code(13, {{"CONVERT_VALUE", 3}}))[0].argrepr, "ascii");
  EXPECT_EQ(decode_instructions(make_code(10, {{"MAKE_FUNCTION", 9}}))[0].argrepr,
            "defaults, closure");
  EXPECT_EQ(decode_instructions(make_code(13, {{"SET_FUNCTION_ATTRIBUTE", 2}}))[0].argrepr,
            "kwdefaults");
  EXPECT_EQ(decode_instructions(make_code(11, {{"BINARY_OP", 13}, {"", 0}}))[0].argrepr, "+=");
  EXPECT_EQ(decode_instructions(make_code(12, {{"CALL_INTRINSIC_1", 3}}))[0].argrepr,
            "INTRINSIC_STOPITERATION_ERROR");
  EXPECT_EQ(decode_instructions(make_code(13, {{"CALL_INTRINSIC_2", 1}}))[0].argrepr,
            "INTRINSIC_PREP_RERAISE_STAR");
  EXPECT_EQ(decode_instructions(make_code(12, {{"BUILD_SLICE", 3}}))[0].argrepr, "");
  EXPECT_EQ(decode_instructions(make_code(12, {{"RAISE_VARARGS", 1}}))[0].argrepr, "");
}

TEST(DecodeInstructions, ConstantsPerVersion) {
  // 3.11's dis does not look up KW_NAMES' tuple; 3.12 does, and has RETURN_CONST.
  EXPECT_EQ(decode_instructions(make_code(11, {{"KW_NAMES", 2}}))[0].argrepr, "");
  EXPECT_EQ(decode_instructions(make_code(12, {{"KW_NAMES", 2}}))[0].argrepr, "'x'");
  EXPECT_EQ(decode_instructions(make_code(12, {{"RETURN_CONST", 0}}))[0].argrepr, "None");
  EXPECT_EQ(decode_instructions(make_code(13, {{"LOAD_CONST", 1}}))[0].argrepr, "1");
}

TEST(DecodeInstructions, VariablesPerVersion) {
  EXPECT_EQ(decode_instructions(make_code(10, {{"LOAD_FAST", 1}}))[0].argrepr, "q");
  // 3.10 indexes cellvars + freevars; 3.11+ index localsplusnames.
  EXPECT_EQ(decode_instructions(make_code(10, {{"LOAD_DEREF", 0}}))[0].argrepr, "cell");
  EXPECT_EQ(decode_instructions(make_code(10, {{"LOAD_DEREF", 1}}))[0].argrepr, "free");
  EXPECT_EQ(decode_instructions(make_code(11, {{"LOAD_DEREF", 3}}))[0].argrepr, "free");
  EXPECT_EQ(decode_instructions(make_code(12, {{"LOAD_FAST", 2}}))[0].argrepr, "cell");
  EXPECT_EQ(decode_instructions(make_code(13, {{"LOAD_FAST_LOAD_FAST", 0x13}}))[0].argrepr,
            "q, free");
  EXPECT_EQ(decode_instructions(make_code(13, {{"STORE_FAST_STORE_FAST", 0x10}}))[0].argrepr,
            "q, p");
}

TEST(DecodeInstructions, UnknownOpcodesPrintTheirNumber) {
  CodeObject code = make_code(10, {});
  code.code = std::string("\x00\x00", 2);
  const auto instructions = decode_instructions(code);
  ASSERT_EQ(instructions.size(), 1u);
  EXPECT_EQ(instructions[0].opname, "<0>");
  EXPECT_FALSE(instructions[0].has_arg);
}

TEST(DecodeInstructions, BadArgumentsThrow) {
  EXPECT_NE(error_of(make_code(10, {{"LOAD_CONST", 3}})).find("constant index 3 is out of range"),
            std::string::npos);
  EXPECT_NE(error_of(make_code(12, {{"LOAD_NAME", 9}})).find("name index 9"), std::string::npos);
  EXPECT_NE(error_of(make_code(11, {{"LOAD_GLOBAL", 7}})).find("name index 3"), std::string::npos);
  EXPECT_NE(error_of(make_code(10, {{"LOAD_FAST", 2}})).find("local variable index 2"),
            std::string::npos);
  EXPECT_NE(error_of(make_code(10, {{"LOAD_DEREF", 2}})).find("free variable"), std::string::npos);
  EXPECT_NE(error_of(make_code(13, {{"LOAD_FAST", 4}})).find("variable index 4"),
            std::string::npos);
  EXPECT_NE(error_of(make_code(13, {{"LOAD_FAST_LOAD_FAST", 0x50}})).find("variable index 5"),
            std::string::npos);
  EXPECT_NE(error_of(make_code(10, {{"COMPARE_OP", 6}})).find("comparison index 6"),
            std::string::npos);
  EXPECT_NE(error_of(make_code(11, {{"BINARY_OP", 26}, {"", 0}})).find("binary operator"),
            std::string::npos);
  EXPECT_NE(error_of(make_code(13, {{"CONVERT_VALUE", 4}})).find("conversion index 4"),
            std::string::npos);
  EXPECT_NE(error_of(make_code(12, {{"CALL_INTRINSIC_1", 12}})).find("intrinsic index 12"),
            std::string::npos);
  EXPECT_NE(error_of(make_code(11, {{"KW_NAMES", 3}})).find("constant index 3"), std::string::npos);
}

TEST(DecodeInstructions, JumpsOutsideTheCodeThrow) {
  EXPECT_NE(
      error_of(make_code(10, {{"JUMP_ABSOLUTE", 2}})).find("jump target 4 is outside the code"),
      std::string::npos);
  EXPECT_NE(error_of(make_code(11, {{"JUMP_BACKWARD", 2}})).find("jump target -2"),
            std::string::npos);
  EXPECT_NE(error_of(make_code(12, {{"FOR_ITER", 0}, {"", 0}})).find("jump target 4"),
            std::string::npos);
}

TEST(DecodeInstructions, TruncatedCodeUnitThrows) {
  CodeObject code = make_code(12, {{"NOP", 0}});
  code.code += '\x09';
  EXPECT_NE(error_of(code).find("truncated code unit"), std::string::npos);
}

TEST(DecodeInstructions, UnsupportedVersionThrows) {
  CodeObject code = make_code(12, {{"NOP", 0}});
  code.minor = 9;
  EXPECT_THROW(decode_instructions(code), BytecodeError);
}

// --- Line numbers --------------------------------------------------------------------------------

using Starts = std::vector<std::pair<int, int>>;

std::string bytes(std::initializer_list<int> values) {
  std::string out;
  for (int value : values) out += static_cast<char>(value);
  return out;
}

TEST(LineStarts, Format310) {
  CodeObject code = make_code(10, {{"NOP", 0}, {"NOP", 0}, {"NOP", 0}, {"NOP", 0}, {"NOP", 0}});
  code.firstlineno = 5;
  // (2 bytes, +0) (0 bytes, +2: moves the line only) (2, +0) (2, no line) (2, +1) (2, -1)
  code.linetable = bytes({2, 0, 0, 2, 2, 0, 2, 0x80, 2, 1, 2, 0xff});
  EXPECT_EQ(line_starts(code), (Starts{{0, 5}, {2, 7}, {6, 8}, {8, 7}}));
}

TEST(LineStarts, Format310EndingInAnEmptyRangeThrows) {
  CodeObject code = make_code(10, {{"NOP", 0}});
  code.linetable = bytes({2, 1, 0, 1});
  EXPECT_THROW(line_starts(code), BytecodeError);
  code.linetable = bytes({2});
  EXPECT_THROW(line_starts(code), BytecodeError);
}

// Location table entries: kind in bits 3-6, length - 1 in bits 0-2, bit 7 starts an entry.
int entry(int kind, int units) { return 0x80 | (kind << 3) | (units - 1); }

CodeObject location_code(PyMinor minor) {
  CodeObject code = make_code(minor, {});
  code.code = std::string(12, '\x00');
  code.firstlineno = 10;
  code.linetable = bytes({
      entry(13, 1), 0,           // no columns, line +0 -> 10
      entry(13, 1), 2 * 3,       // line +3 -> 13
      entry(15, 1),              // no location
      entry(11, 1), 0, 0,        // one-line form, line +1 -> 14
      entry(13, 1), 2 * 14 + 1,  // line -14 -> 0
      entry(13, 1), 2 * 1 + 1,   // line -1 -> -1, which is "None" from 3.12 on
  });
  return code;
}

TEST(LineStarts, LocationTablePerVersion) {
  EXPECT_EQ(line_starts(location_code(11)), (Starts{{0, 10}, {2, 13}, {6, 14}, {8, 0}}));
  EXPECT_EQ(line_starts(location_code(12)), (Starts{{0, 10}, {2, 13}, {6, 14}, {8, 0}}));
  // 3.13 lists the changes to "no line" (-1) too.
  EXPECT_EQ(line_starts(location_code(13)),
            (Starts{{0, 10}, {2, 13}, {4, -1}, {6, 14}, {8, 0}, {10, -1}}));
}

TEST(LineStarts, NegativeLinesFrom312) {
  CodeObject code = make_code(12, {});
  code.code = std::string(4, '\x00');
  code.firstlineno = 1;
  code.linetable = bytes({entry(13, 1), 2 * 5 + 1, entry(13, 1), 2 * 3});  // -4, then -1
  EXPECT_EQ(line_starts(code), (Starts{{0, -4}}));                         // -1 reads None
  code.minor = 11;
  EXPECT_EQ(line_starts(code), Starts{});  // 3.11: every negative line reads None
}

TEST(LineStarts, MultiByteVarint) {
  CodeObject code = make_code(11, {});
  code.code = std::string(2, '\x00');
  code.firstlineno = 0;
  code.linetable = bytes({entry(14, 1), 0x40 | 8, 3, 0, 0, 0});  // +((3 << 6 | 8) >> 1) = +100
  EXPECT_EQ(line_starts(code), (Starts{{0, 100}}));
}

TEST(LineStarts, TruncatedLocationTableThrows) {
  CodeObject code = make_code(12, {});
  code.code = std::string(2, '\x00');
  code.linetable = bytes({entry(13, 1)});
  EXPECT_THROW(line_starts(code), BytecodeError);
  code.linetable = bytes({entry(14, 1), 0x40 | 8});
  EXPECT_THROW(line_starts(code), BytecodeError);
}

TEST(LineStarts, InstructionsGetTheirLine) {
  CodeObject code = make_code(12, {{"NOP", 0}, {"NOP", 0}, {"NOP", 0}});
  code.firstlineno = 3;
  code.linetable = bytes({entry(13, 2), 0, entry(13, 1), 2});
  const auto instructions = decode_instructions(code);
  EXPECT_TRUE(instructions[0].starts_line);
  EXPECT_EQ(instructions[0].line, 3);
  EXPECT_FALSE(instructions[1].starts_line);
  EXPECT_EQ(instructions[1].line, -1);
  EXPECT_TRUE(instructions[2].starts_line);
  EXPECT_EQ(instructions[2].line, 4);
}

// --- Exception table -----------------------------------------------------------------------------

TEST(ExceptionTable, ParsesEntriesInBytes) {
  CodeObject code = make_code(11, {});
  code.code = std::string(400, '\x00');
  // start 2, length 3, target 10, depth 1 + lasti; then start 100 (two chunks), length 1,
  // target 4, depth 0.
  code.exceptiontable = bytes({0x80 | 2, 3, 10, 3, 0x80 | 0x40 | 1, 36, 1, 4, 0});
  const auto entries = parse_exception_table(code);
  ASSERT_EQ(entries.size(), 2u);
  EXPECT_EQ(entries[0].start, 4);
  EXPECT_EQ(entries[0].end, 10);
  EXPECT_EQ(entries[0].target, 20);
  EXPECT_EQ(entries[0].depth, 1);
  EXPECT_TRUE(entries[0].lasti);
  EXPECT_EQ(entries[1].start, 200);
  EXPECT_EQ(entries[1].end, 202);
  EXPECT_EQ(entries[1].target, 8);
  EXPECT_EQ(entries[1].depth, 0);
  EXPECT_FALSE(entries[1].lasti);
}

TEST(ExceptionTable, NoneBefore311) {
  CodeObject code = make_code(10, {{"NOP", 0}});
  code.exceptiontable = bytes({0x80, 1, 0, 0});
  EXPECT_TRUE(parse_exception_table(code).empty());
}

TEST(ExceptionTable, TruncatedOrOutsideTheCodeThrows) {
  CodeObject code = make_code(12, {{"NOP", 0}, {"NOP", 0}});
  code.exceptiontable = bytes({0x80, 1, 1});
  EXPECT_THROW(parse_exception_table(code), BytecodeError);
  code.exceptiontable = bytes({0x80, 1, 1, 0x40});
  EXPECT_THROW(parse_exception_table(code), BytecodeError);
  code.exceptiontable = bytes({0x80, 3, 1, 0});  // covers 0..6 of 4 bytes
  EXPECT_THROW(parse_exception_table(code), BytecodeError);
  code.exceptiontable = bytes({0x80, 1, 2, 0});  // handler at byte 4 of 4
  EXPECT_THROW(parse_exception_table(code), BytecodeError);
  code.exceptiontable = bytes({0x80, 0x7f, 0x7f, 0x7f, 0x7f, 0x7f, 0x7f, 0x3f, 1, 0});  // huge
  EXPECT_THROW(parse_exception_table(code), BytecodeError);
}

TEST(ExceptionTable, HandlersAreMarkedAsJumpTargets) {
  CodeObject code = make_code(12, {{"NOP", 0}, {"NOP", 0}, {"PUSH_EXC_INFO", 0}});
  code.exceptiontable = bytes({0x80, 1, 2, 0});
  auto decoded = decode_code(code);
  EXPECT_TRUE(decoded.instructions[2].is_jump_target);
  EXPECT_FALSE(decoded.instructions[0].is_jump_target);
  // 3.13 labels the start, the end and the handler, in offset order.
  code.minor = 13;
  code.code = bytes({op(13, "NOP"), 0, op(13, "NOP"), 0, op(13, "PUSH_EXC_INFO"), 0});
  decoded = decode_code(code);
  EXPECT_EQ(decoded.labels, (std::map<int, int>{{0, 1}, {2, 2}, {4, 3}}));
  EXPECT_EQ(decoded.instructions[0].label, 1);
  EXPECT_EQ(decoded.instructions[1].label, 2);
  EXPECT_EQ(decoded.instructions[2].label, 3);
}

}  // namespace
}  // namespace glassbox::bytecode
