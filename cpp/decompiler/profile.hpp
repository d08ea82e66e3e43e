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
  // flowgraph.c's push_cold_blocks_to_end (3.12+): blocks reached only by jumps (an except
  // clause's handler code, a bottom test reached only from it, the code after a loop reached only
  // by breaks from handler code) are placed after the function's normal code.
  bool cold_blocks_at_end = minor_ >= 12;
  // 3.12+ has no backward conditional jump (flowgraph.c's normalize_jumps_in_block reverses it):
  // a test jumping back is `jump-if over; JUMP_BACKWARD`, a loop's bottom test `jump-if exit;
  // JUMP_BACKWARD`.
  bool conditional_jumps_forward_only = minor_ >= 12;
  // 3.12+: a written `return K` is RETURN_CONST (flowgraph.c's optimize_basic_block), while a
  // return copied into both branches of `return K if c else x` keeps LOAD_CONST; RETURN_VALUE.
  bool folds_return_const = minor_ >= 12;
  // 3.10/3.11's duplicate_exits_without_lineno (compile.c): each copy of a short exit block
  // without a line of its own is placed right after the original, under the same handlers.
  bool exit_copies_follow_original = minor_ <= 11;
  // 3.13's duplicate_exits_without_lineno also copies a block without a line number that holds an
  // eval-breaker check (a JUMP_BACKWARD) for each jump to it.
  bool copies_jump_blocks_without_lineno = minor_ >= 13;
  // A jump to a short exit block (a return, a raise) with a line of its own becomes a copy of
  // that block: 3.10's extend_block (compile.c), 3.12+'s inline_small_exit_blocks (flowgraph.c).
  // 3.11 copies only blocks without a line number.
  bool inlines_small_exit_blocks = minor_ != 11;
  // 3.12+: such a copy keeps the original's line numbers.
  bool exit_copies_keep_lines = minor_ >= 12;
  // 3.10: a break's copy of the short exit block after a for loop is found without an END_FOR at
  // the loop's exit (3.12+ has one; 3.11 copies no such block).
  bool break_copies_without_end_for = minor_ == 10;
  // 3.10's compiler_call_exit_with_nones: LOAD_CONST None; DUP_TOP; DUP_TOP; CALL_FUNCTION 3
  // (3.11+: three LOAD_CONST None, then CALL 2).
  bool with_exit_dups_none = minor_ == 10;
  // 3.10's compiler_try_except (SETUP_FINALLY/POP_BLOCK): the handler code follows the try body,
  // each clause's type test chains to the next, the last to the RERAISE that closes them.
  bool block_stack_handlers = minor_ == 10;
  // 3.11: exception-table handlers, their code (with its cleanup block) placed right after the
  // try body (3.12+ moves it to the end: cold_blocks_at_end).
  bool table_handlers_inline = minor_ == 11;
  // 3.10's compiler_while: the jump back of `while True` keeps the loop's line, so a jump to it
  // from code of another line is not threaded to the head.
  bool while_true_back_jump_keeps_line = minor_ == 10;

  // ---- try statements read from exception tables (handlers.cpp)

  // ---- 3.10's block stack: SETUP_* and POP_BLOCK (block_stack.cpp)

  // ---- expressions, definitions, match (expressions.cpp, definitions.cpp, match.cpp)

  // ---- name order (name_order.cpp)
};

}  // namespace glassbox::decompiler
