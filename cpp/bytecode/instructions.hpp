// Decoding co_code into instructions with resolved arguments, for one version's opcode table.
#pragma once

#include <string>
#include <vector>

#include "bytecode/code.hpp"
#include "bytecode/opcodes.hpp"

namespace glassbox::bytecode {

struct Instruction {
  int offset = 0;         // byte offset of this code unit in co_code
  int opcode = 0;
  std::string_view opname;
  int arg = 0;            // full argument, EXTENDED_ARG prefixes folded in
  bool has_arg = false;
  int jump_target = -1;   // byte offset of the jump target, or -1
  int cache_entries = 0;  // CACHE code units after this one (skipped, not listed)
  int line = -1;          // line number where this instruction starts a line; -1 otherwise
  bool starts_line = false;
  bool is_jump_target = false;
  std::string argrepr;    // as dis shows it in parentheses
};

// One row of the 3.11+ exception table, in byte offsets.
struct ExceptionTableEntry {
  int start = 0;  // first covered byte offset
  int end = 0;    // one past the last covered byte offset
  int target = 0;
  int depth = 0;
  bool lasti = false;
};

// All instructions of `code`, in order (EXTENDED_ARG listed as its own instruction, CACHE entries
// skipped), with argrepr, jump targets and line starts filled as that version's dis does.
// Throws BytecodeError on an argument that points outside its table, a truncated code unit, etc.
std::vector<Instruction> decode_instructions(const CodeObject& code);

std::vector<ExceptionTableEntry> parse_exception_table(const CodeObject& code);

// (byte offset, line) pairs where a new line starts, as dis.findlinestarts gives them.
std::vector<std::pair<int, int>> line_starts(const CodeObject& code);

}  // namespace glassbox::bytecode
