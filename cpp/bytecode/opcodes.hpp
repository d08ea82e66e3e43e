// Per-version opcode tables, generated from each CPython version's own `opcode` module
// (scripts/gen_opcodes.py writes opcodes_3XX.inc; a test checks them against the interpreters).
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

#include "bytecode/code.hpp"

namespace glassbox::bytecode {

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
};

struct OpcodeTable {
  PyMinor minor;
  std::array<OpcodeInfo, 256> ops;
  int opcode_of(std::string_view name) const;  // -1 if absent
};

// The table for 3.`minor`; throws BytecodeError for an unsupported version.
const OpcodeTable& opcode_table(PyMinor minor);

}  // namespace glassbox::bytecode
