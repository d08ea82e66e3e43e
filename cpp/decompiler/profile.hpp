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

  // ---- expressions, definitions, match (expressions.cpp, definitions.cpp, match.cpp)

  // ---- name order (name_order.cpp)
  // compiler_comprehension (3.12+, PEP 709): a list, set or dict comprehension is compiled inline
  // in the enclosing code, which meets its names; a generator expression stays a code object.
  bool inlines_comprehensions = minor_ >= 12;
  // compiler_try_except (3.11+): the else clause is compiled right after the body, before the
  // handlers; 3.10 compiles it after them.
  bool try_else_before_handlers = minor_ >= 11;
  // 3.10's optimize_cfg (extend_block, Python/compile.c) replaces a jump to a short exit block
  // (a return or raise) with a copy of it: `if c: a = 1` / `else: b = 2` / `return r` has two
  // RETURN_VALUEs on 3.10, one on 3.11+ (which copies only exits without a line number). The
  // decoder reads a copy where it stands; the name order tells where the source had it.
  bool copies_short_exit_blocks = minor_ == 10;
  // compiler_import_as registers `import a.b.c as d`'s parts after the first (IMPORT_FROM b, c)
  // on every version; the dead name block writes such an import only where that was checked
  // against the compiler (3.11+; 3.10.13 registers the same names and constants).
  bool dead_import_as_lists_parts = minor_ >= 11;
};

}  // namespace glassbox::decompiler
