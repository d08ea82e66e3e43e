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
  // 3.12+ flowgraph.c normalize_jumps_in_block: no conditional jump goes backward; one that
  // would is turned around over a JUMP_BACKWARD (3.10 jumps back with POP_JUMP_IF_*, 3.11 with
  // POP_JUMP_BACKWARD_IF_*).
  bool no_backward_conditional_jumps = minor_ >= 12;
  // 3.11+ compile.c assemble_exception_table: handlers come from the exception table, which
  // covers each instruction (3.10: SETUP_* and POP_BLOCK instead).
  bool exception_table = minor_ >= 11;
  // 3.10's block stack (compile.c compiler_unwind_fblock): a return unwinds the blocks it
  // leaves (POP_BLOCK) before loading a constant value.
  bool block_stack = minor_ <= 10;
  // 3.12+ flowgraph.c push_cold_blocks_to_end: code reached only from exception handlers (an
  // except clause, a with's suppressing path) goes after the function's code, jumping back.
  bool cold_blocks_at_end = minor_ >= 12;
  // 3.11 compile.c extend_block copies a short exit block into a jump to it only where the
  // block has no line number (the implicit `return None`); 3.10's extend_block and 3.12+'s
  // flowgraph.c inline_small_exit_blocks copy it with its lines.
  bool copies_only_lineless_exit_blocks = minor_ == 11;
  // 3.12+ flowgraph.c inline_small_exit_blocks: a short exit block (a return or raise) is copied,
  // lines and all, into a jump to it, where the code after an if/else is one.
  bool copies_exit_blocks_with_lines = minor_ >= 12;
  // 3.13+ flowgraph.c duplicate_exits_without_lineno (is_exit_or_eval_check_without_lineno):
  // a jump back (an eval-breaker check) without a line is copied for each jump to it, each copy
  // taking the line of the jump.
  bool copies_lineless_jumps_back = minor_ >= 13;

  // ---- loops and statements (structure.cpp)

  // ---- try statements read from exception tables (handlers.cpp)

  // ---- 3.10's block stack: SETUP_* and POP_BLOCK (block_stack.cpp)

  // ---- expressions, definitions, match (expressions.cpp, definitions.cpp, match.cpp)

  // ---- name order (name_order.cpp)
};

}  // namespace glassbox::decompiler
