// Per-version opcode tables, generated from each CPython version's own `opcode` module
// (scripts/gen_opcodes.py writes opcodes_3XX.inc; a test checks them against the interpreters).
#pragma once

#include <array>
#include <cstdint>
#include <string_view>
#include <vector>

#include "bytecode/code.hpp"

namespace glassbox::bytecode {

// What an instruction's argument refers to, i.e. how dis spells it. Derived per version from the
// opcode's flags and name (see opcodes.cpp); `None` means a plain number.
enum class ArgKind : std::uint8_t {
  None,
  Const,          // co_consts[arg]
  ConstIndex,     // a co_consts index that dis leaves unspelled (3.11's KW_NAMES)
  Name,           // co_names[arg]
  GlobalName,     // LOAD_GLOBAL 3.11+: co_names[arg >> 1], bit 0 pushes NULL
  AttrName,       // LOAD_ATTR 3.12+: co_names[arg >> 1], bit 0 is a method load
  SuperAttrName,  // LOAD_SUPER_ATTR: co_names[arg >> 2], bit 0 is a method load
  Jump,           // a jump; the target is a byte offset
  Local,          // a fast local
  LocalPair,      // 3.13 superinstructions: two fast locals, arg >> 4 and arg & 15
  Free,           // a cell or free variable
  Compare,        // cmp_op
  FormatValue,    // FORMAT_VALUE (3.10-3.12): conversion in bits 0-1, bit 2 "with format"
  ConvertValue,   // CONVERT_VALUE (3.13): the conversion
  FunctionFlags,  // MAKE_FUNCTION (3.10-3.12) / SET_FUNCTION_ATTRIBUTE (3.13) flag bits
  BinaryOp,       // BINARY_OP (3.11+): _nb_ops
  Intrinsic1,     // CALL_INTRINSIC_1 (3.12+)
  Intrinsic2,     // CALL_INTRINSIC_2 (3.12+)
};

struct OpcodeInfo {
  std::string_view name;  // empty for an unassigned opcode ("<N>" in dis)
  bool has_arg = false;
  bool has_const = false;
  bool has_name = false;
  bool has_local = false;
  bool has_free = false;
  bool has_compare = false;
  bool has_jrel = false;
  bool has_jabs = false;
  std::uint8_t cache_entries = 0;  // inline CACHE code units following the instruction
  // Added: the base ("deoptimized") opcode a specialized opcode stands for (itself otherwise);
  // all flags above describe the base, as dis reads them.
  std::uint8_t base_opcode = 0;
  bool jump_backward = false;  // a relative jump whose argument counts backwards
  ArgKind arg_kind = ArgKind::None;
};

// Where dis writes the marker of the NULL / self that LOAD_GLOBAL and LOAD_ATTR push.
enum class NullMarker : std::uint8_t {
  Prefix,  // 3.11, 3.12: "NULL + name", "NULL|self + name"
  Suffix,  // 3.13: "name + NULL", "name + NULL|self"
};

struct OpcodeTable {
  PyMinor minor;
  std::array<OpcodeInfo, 256> ops;
  int opcode_of(std::string_view name) const;  // -1 if absent

  // Side tables dis uses to spell arguments, from that version's opcode/dis modules.
  std::vector<std::string_view> cmp_op;          // COMPARE_OP
  std::vector<std::string_view> binary_ops;      // BINARY_OP (3.11+), e.g. "+="
  std::vector<std::string_view> intrinsic1;      // CALL_INTRINSIC_1 (3.12+)
  std::vector<std::string_view> intrinsic2;      // CALL_INTRINSIC_2 (3.12+)
  std::vector<std::string_view> function_flags;  // MAKE_FUNCTION / SET_FUNCTION_ATTRIBUTE bits
  std::vector<std::string_view> conversions;     // FORMAT_VALUE / CONVERT_VALUE: "", "str", ...

  // How that version's dis reads arguments.
  int compare_shift = 0;      // COMPARE_OP spells cmp_op[arg >> compare_shift]
  int compare_bool_flag = 0;  // 3.13: the arg bit that wraps it in "bool(...)"; 0: none
  NullMarker null_marker = NullMarker::Prefix;
  bool jumps_skip_caches = false;  // 3.12+: relative jumps count from after the CACHE units
  // 3.11+: cell and free variable args index localsplusnames; 3.10: cellvars + freevars.
  bool deref_into_localsplus = true;
};

// The table for 3.`minor`; throws BytecodeError for an unsupported version.
const OpcodeTable& opcode_table(PyMinor minor);

// The name dis prints for `opcode` under `table`: its name, or "<N>" when unassigned.
std::string_view opcode_display_name(const OpcodeTable& table, int opcode);

}  // namespace glassbox::bytecode
