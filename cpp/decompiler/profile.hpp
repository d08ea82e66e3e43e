// The compiler profile: what one CPython version's compiler does to the code it emits, as data.
//
// The decoder undoes the compiler's layout (Python/compile.c, Python/flowgraph.c). Where versions
// differ, it asks a fact of this profile, never the version number. Each fact is one line: the
// versions it holds for, and a comment naming what the compiler does and where. Lifting
// (lift.cpp) reads each version's own instructions and is the one other place that knows the
// version; the opcode tables are data too (cpp/bytecode/opcodes_3XX.inc).
#pragma once

#include "bytecode/code.hpp"

namespace glassbox::decompiler {

class CompilerProfile {
  bytecode::PyMinor minor_;  // read only by the facts below

 public:
  explicit CompilerProfile(bytecode::PyMinor minor) : minor_(minor) {}

  // ---- expressions and tests
  // compiler_jump_if (3.11+): `x is None` / `x is not None` in jump position compile to
  // POP_JUMP_IF_NONE / POP_JUMP_IF_NOT_NONE.
  bool none_tests_jump = minor_ >= 11;
  // 3.10/3.11 keep a folded test's constant (True of `while True`, False of `assert False`) in
  // co_consts, where no instruction uses it; 3.12's remove_unused_consts drops it.
  bool keeps_folded_constants = minor_ <= 11;

  // ---- conditions and conditional expressions (conditions.cpp)

  // ---- loops and statements (structure.cpp)

  // ---- try statements read from exception tables (handlers.cpp)
  // Zero-cost exceptions (3.11+, compile.c's compiler_try_except/_finally and the exception
  // table of assemble_exception_table): a try body carries no SETUP_*/POP_BLOCK; the table says
  // which handler covers what, and leaves out the jumps that cannot raise.
  bool exception_table = minor_ >= 11;
  // 3.11: the handler code stays where compile.c emits it, inside a loop's body before its
  // exit; 3.12+ moves it after the function's code (cold_blocks_at_end).
  bool inline_handlers = minor_ == 11;
  // flowgraph.c's push_cold_blocks_to_end (3.12+): handler blocks, and code only they reach,
  // are placed after the function's code, in the order they were compiled, and jump back.
  bool cold_blocks_at_end = minor_ >= 12;
  // A short exit block without a line number (a finally's RERAISE, the implicit `return None`)
  // is copied into each block that jumps to it: compile.c's extend_block (3.11), flowgraph.c's
  // inline_small_exit_blocks (3.12+). As the table-read shapes hold them: 3.11+.
  bool copies_exit_blocks = minor_ >= 11;
  // flowgraph.c's inline_small_exit_blocks (3.12+) copies any short exit block (ending in a
  // return or raise), its line number or not: the code after a try statement into its clauses.
  bool copies_exit_blocks_with_lines = minor_ >= 12;
  // flowgraph.c's inline_small_or_no_lineno_blocks (3.13+) copies any block without a line
  // number into every jump to it, an exit block or not (a loop's jump back, a clause's exit).
  bool inlines_no_lineno_blocks = minor_ >= 13;
  // 3.12: a test of a finally body's normal-path copy jumping to the copy's end, where a loop's
  // jump back follows, jumps there inverted over a copy of the jump back (no conditional jump
  // goes backward); 3.13 does not.
  bool inverts_tests_to_jump_back = minor_ == 12;
  // compile.c's compiler_try_star_except starts the handler with the list collecting what the
  // clauses raise: 3.11 `COPY 1; BUILD_LIST 0; SWAP 2`, 3.12+ `BUILD_LIST 0; COPY 2`.
  bool except_star_list_swapped = minor_ == 11;

  // ---- 3.10's block stack: SETUP_* and POP_BLOCK (block_stack.cpp)
  // 3.10 sets up and leaves protected code with instructions: SETUP_FINALLY / SETUP_WITH push a
  // block whose handler is the except clauses, the finally body or the with exit, and POP_BLOCK
  // ends it (compile.c compiler_try_finally, compiler_try_except, compiler_with; and
  // compiler_unwind_fblock on the ways out: POP_BLOCK, then the finally body or the exit call).
  // 3.11+ makes them pseudo-instructions that the exception table replaces (compile.c
  // label_exception_targets, assemble_exception_table).
  bool block_stack = minor_ == 10;

  // ---- expressions, definitions, match (expressions.cpp, definitions.cpp, match.cpp)

  // ---- name order (name_order.cpp)
};

}  // namespace glassbox::decompiler
