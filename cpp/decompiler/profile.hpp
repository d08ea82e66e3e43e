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
