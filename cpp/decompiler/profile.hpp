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
  // 3.11's assemble adds `LOAD_CONST None; RETURN_VALUE` where the code falls off an empty block
  // (the end of a final if/else whose branches return), and trim_unused_consts drops only
  // trailing unused constants: the None stays where constants the optimizer folds later
  // (fold_tuple_on_constants) follow it. 3.10 keeps every None; 3.12's remove_unused_consts
  // drops it.
  bool keeps_dead_end_none = minor_ == 11;

  // ---- conditions and conditional expressions (conditions.cpp)
  // The layout 3.12+ gives a jump whose target is an unconditional jump: it goes straight to
  // that jump's target (a then-branch ending a loop body's last if/else jumps back to the loop's
  // head with no jump to a join first; a nested if's test jumps to the outer join).
  bool threads_jumps_to_jumps = minor_ >= 12;
  // 3.13, inside a handler's region: no table row covers a test's last jump where the compiler
  // threaded it to the loop head and turned it around (a written `if not test: continue` keeps
  // it covered like the test).
  bool turned_test_uncovered = minor_ >= 13;
  // 3.12: no table row covers the JUMP_BACKWARD that normalize_jumps_in_block adds when it turns
  // such a test around (a written `continue` that leaves no try keeps the handler).
  bool added_jump_back_uncovered = minor_ == 12;

  // ---- loops and statements (structure.cpp)
  // flowgraph.c's push_cold_blocks_to_end (3.12+): blocks reached only by jumps (an except
  // clause's handler code, a bottom test reached only from it, the code after a loop reached only
  // by breaks from handler code) are placed after the function's normal code.
  bool cold_blocks_at_end = minor_ >= 12;
  // 3.12+ has no backward conditional jump (flowgraph.c's normalize_jumps_in_block reverses it):
  // a test jumping back is `jump-if over; JUMP_BACKWARD`, a loop's bottom test `jump-if exit;
  // JUMP_BACKWARD`.
  bool conditional_jumps_forward_only = minor_ >= 12;
  // A jump to a short exit block (a return, a raise) with a line of its own becomes a copy of
  // that block: 3.10's extend_block (compile.c), 3.12+'s inline_small_exit_blocks (flowgraph.c).
  // 3.11 copies only blocks without a line number.
  bool inlines_small_exit_blocks = minor_ != 11;
  // 3.12+: such a copy keeps the original's line numbers; inline_small_exit_blocks copies any
  // short exit block, its line number or not (the code after a try statement into its clauses).
  bool exit_copies_keep_lines = minor_ >= 12;
  // 3.12+'s compiler_assert raises at the statement's location (LOC(s)): a raise after a test
  // spanning lines starts a line entry of the assert's first line; 3.10/3.11 go on on the last.
  bool assert_raise_on_statement_line = minor_ >= 12;
  // 3.10: a break's copy of the short exit block after a for loop is found without an END_FOR at
  // the loop's exit (3.12+ has one; 3.11 copies no such block).
  bool break_copies_without_end_for = minor_ == 10;
  // 3.10's compiler_call_exit_with_nones: LOAD_CONST None; DUP_TOP; DUP_TOP; CALL_FUNCTION 3
  // (3.11+: three LOAD_CONST None, then CALL 2).
  bool with_exit_dups_none = minor_ == 10;
  // 3.10's compiler_while: the jump back of `while True` keeps the loop's line, so a jump to it
  // from code of another line is not threaded to the head.
  bool while_true_back_jump_keeps_line = minor_ == 10;
  // 3.11+'s `while True`: the loop's own jump back, on the loop's line, lands past the NOP its
  // folded test left at the head (that NOP's line is the jump's own); a written `continue` on a
  // line of its own lands on the NOP, which keeps the loop's line for it.
  bool written_continue_lands_on_head_nop = minor_ >= 11;
  // compiler_while: the folded test of `while True` leaves a NOP with the loop's line at its
  // head (remove_redundant_nops keeps it before a body on a later line); the bottom jump back,
  // to the body after it, has that line too (3.10-3.13).
  bool while_true_leaves_nop = true;
  // 3.11's optimize_basic_block threads a branch's jump over an empty else (`else: pass`) to the
  // loop's jump back into a copy of it, and keeps a `continue` ending the loop's last branch: a
  // jump back right before the loop's own was written (a branch falling through has none).
  bool keeps_jump_before_loop_end = minor_ == 11;
  // 3.10's compiler_if: the then-branch's jump over the else has no line (ADDOP_JUMP_NOLINE);
  // optimize_cfg threads it to the loop head where the if ends a loop body, and an
  // `else: continue` keeps its own jump back, on its own line, after it.
  bool threaded_jump_over_else_keeps_else_jump = minor_ == 10;

  // ---- try statements read from exception tables (handlers.cpp)
  // Zero-cost exceptions (3.11+, compile.c's compiler_try_except/_finally and the exception
  // table of assemble_exception_table): a try body carries no SETUP_*/POP_BLOCK; the table says
  // which handler covers what, and leaves out the jumps that cannot raise.
  bool exception_table = minor_ >= 11;
  // 3.11: the handler code stays where compile.c emits it, inside a loop's body before its
  // exit; 3.12+ moves it after the function's code (cold_blocks_at_end).
  bool inline_handlers = minor_ == 11;
  // A short exit block without a line number (a finally's RERAISE, the implicit `return None`)
  // is copied into each block that jumps to it: compile.c's extend_block (3.11), flowgraph.c's
  // inline_small_exit_blocks (3.12+). As the table-read shapes hold them: 3.11+.
  bool copies_exit_blocks = minor_ >= 11;
  // flowgraph.c's inline_small_exit_blocks copies an exit block of at most MAX_COPY_SIZE (4)
  // instructions into each unconditional jump to it. 3.12's optimize_cfg runs it again after
  // optimize_basic_block fused `LOAD_CONST; RETURN_VALUE` into RETURN_CONST; 3.13's runs it
  // once, first (RETURN_CONST and the superinstructions made later count two).
  bool copies_exit_blocks_after_fusing = minor_ == 12;
  // flowgraph.c's inline_small_or_no_lineno_blocks (3.13+) copies any block without a line
  // number into every jump to it, an exit block or not (a loop's jump back with its eval-breaker
  // check, a clause's exit).
  bool inlines_no_lineno_blocks = minor_ >= 13;
  // compiler_try_except (3.13+) ends an except clause that falls off its end with
  // `POP_EXCEPT; JUMP_NO_INTERRUPT end`; a written `continue` or `break` (compiler_continue,
  // compiler_break) leaves with a plain JUMP. (3.12 and before: a plain jump for both.)
  bool clause_exit_no_interrupt = minor_ >= 13;
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
  // PEP 701 (3.12+): an f-string's expressions may hold any expression, backslashes and line
  // breaks included; before, an escaped string constant or a line break cannot stand in one.
  bool fstring_any_expression = minor_ >= 12;
  // ast_opt.c optimize_format (3.11+): `'%s' % (a,)` with only %s/%r/%a compiles as an
  // f-string (FORMAT_VALUE, BUILD_STRING).
  bool folds_percent_format = minor_ >= 11;
  // compile.c compiler_class_body: a class body opens with `__module__ = __name__` and
  // `__qualname__ = '...'`, and on 3.13+ `__firstlineno__ = N` after them.
  bool class_records_firstlineno = minor_ >= 13;
  // compile.c compiler_async_with (3.11+): GET_AWAITABLE's oparg marks the awaits of an `async
  // with`'s __aenter__ (1) and __aexit__ (2).
  bool awaitable_marks_async_with = minor_ >= 11;
  // 3.10/3.11 give each jump to a short exit block ending in a return (an and/or value's tail,
  // the implicit `return None`) its own copy, laid out back to back after the original, under
  // the same handlers
  // (compile.c extend_block, duplicate_exits_without_lineno); the decoder folds these copies.
  bool copies_exits_per_jump = minor_ <= 11;
  // 3.12+'s duplicate_exits_without_lineno (flowgraph.c): each further jump to an exit block
  // without a line gets a copy placed right after the block (the last jump's copy first), its
  // line the jump's (propagate_line_numbers spreads it).
  bool copies_exits_with_jump_lines = minor_ >= 12;
  // 3.13's duplicate_exits_without_lineno copies a line-less jump back too (an eval-breaker
  // check, is_exit_or_eval_check_without_lineno) for each further jump to it.
  bool copies_jump_back_exits = minor_ >= 13;
  // flowgraph.c optimize_basic_block (3.13+): of two STORE_FASTs of one local on one line, the
  // first becomes POP_TOP (`a, _, _ = t`).
  bool pops_overwritten_stores = minor_ >= 13;
  // 3.13's LOAD_GLOBAL / LOAD_ATTR with the low oparg bit push the NULL of a call above the
  // callable (Python/bytecodes.c); 3.11/3.12 push it below.
  bool null_above_callable = minor_ >= 13;
  // compile.c compiler_return / flowgraph.c (3.12+): `return CONST` is one RETURN_CONST; a
  // LOAD_CONST + RETURN_VALUE is a return the compiler copied, not one written so.
  bool returns_constants = minor_ >= 12;
  // 3.10 keeps the handled exception as three values (type, value, traceback) on the stack,
  // POP_EXCEPT pops them all; 3.11+ keeps one exception.
  bool exception_is_triple = minor_ <= 10;
  // compile.c apply_static_swaps (3.11+): the SWAPs of a tuple assignment (`a, b = b, a`) are
  // removed by reordering its stores.
  bool swaps_stores_statically = minor_ >= 11;
  // SWAP n (3.11+) reaches any depth; 3.10 has ROT_TWO and ROT_THREE (read as SWAP 2 and a
  // rotation of 3).
  bool swap_reaches_any_depth = minor_ >= 11;
  // 3.10's compiler_make_closure pushes the qualified name for MAKE_FUNCTION; 3.11+ takes it
  // from the code object.
  bool make_function_takes_qualname = minor_ <= 10;
  // 3.10's MATCH_KEYS and MATCH_CLASS push a success flag above their result, tested by
  // POP_JUMP_IF_FALSE; 3.11+ push the result or None only (compile.c compiler_pattern_*).
  bool match_pushes_success_flag = minor_ <= 10;
  // compile.c compiler_pattern_mapping (3.11+) builds a `**rest` with BUILD_MAP, DICT_UPDATE and
  // one DELETE_SUBSCR per key; 3.10 has COPY_DICT_WITHOUT_KEYS.
  bool match_rest_by_deleting_keys = minor_ >= 11;
  // 3.10 compiles `continue` in a case body as a jump back, and a case body's fall-off as a jump
  // forward to the loop's own jump back (compile.c compiler_match, compiler_continue): a case
  // body ending in a jump back is a `continue`.
  bool case_continue_jumps_back = minor_ <= 10;

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
  // 3.10 compiles `pass` as a NOP that clean_basic_block keeps where its line is the only mark of
  // the statement: one right before the implicit `return None` is a `pass` ending a branch.
  bool keeps_pass_before_return_none = minor_ == 10;
};

}  // namespace glassbox::decompiler
