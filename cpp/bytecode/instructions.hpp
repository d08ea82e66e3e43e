// Decoding co_code into instructions with resolved arguments, for one version's opcode table.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "bytecode/code.hpp"
#include "bytecode/opcodes.hpp"

namespace glassbox::bytecode {

struct Instruction {
  int offset = 0;  // byte offset of this code unit in co_code
  int opcode = 0;
  std::string_view opname;
  int arg = 0;  // full argument, EXTENDED_ARG prefixes folded in
  bool has_arg = false;
  int jump_target = -1;   // byte offset of the jump target, or -1
  int cache_entries = 0;  // CACHE code units after this one (skipped, not listed)
  int line = -1;          // line number where this instruction starts a line; -1 otherwise
  bool starts_line = false;
  bool is_jump_target = false;
  std::string argrepr;  // as dis shows it in parentheses
  // Added: 3.13's label number ("L3:") when dis labels this offset, -1 otherwise. On 3.13 a line
  // start can have no line ("--"): then starts_line is true and line is -1.
  int label = -1;
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

// Added: the same instructions as the decompiler needs them, without what only a listing shows:
// arguments, jump targets and line starts (`line`, `starts_line`) are filled; `argrepr`, `label`
// and `is_jump_target` are left empty, and argument indices are not checked against their tables
// (the caller checks what it reads). Several times cheaper than decode_instructions.
std::vector<Instruction> decode_bare_instructions(const CodeObject& code);
// The same into `out`, whose old contents are dropped and whose memory is reused.
void decode_bare_instructions(const CodeObject& code, std::vector<Instruction>& out);

std::vector<ExceptionTableEntry> parse_exception_table(const CodeObject& code);

// (byte offset, line) pairs where a new line starts, as dis.findlinestarts gives them.
// Added note: on 3.13 a start with no line number has line -1 (dis's None); earlier versions
// never list those.
std::vector<std::pair<int, int>> line_starts(const CodeObject& code);

// Added: everything dis derives from one code object, computed once.
struct DecodedCode {
  std::vector<Instruction> instructions;
  std::vector<ExceptionTableEntry> exception_table;  // empty before 3.11
  std::vector<std::pair<int, int>> line_starts;
  std::map<int, int> labels;  // 3.13: byte offset -> label number; empty before 3.13
};

DecodedCode decode_code(const CodeObject& code);

}  // namespace glassbox::bytecode
