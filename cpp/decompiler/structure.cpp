// Structuring: regions of the operation list become if/while/for/try/with statements.
//
// A region [begin, end) is decoded statement by statement; `exit` is where control goes when it
// falls off the end (a jump there at the end of the region is implicit). Conditional jumps are
// grouped into condition chains (one boolean test each), whose true and false targets delimit
// the branches. Loops are found from their shapes: FOR_ITER, a rotated `while` test (the test is
// compiled again at the bottom, jumping back), or a backward jump (`while True`).
#include <algorithm>
#include <functional>
#include <optional>

#include "decompiler/decoder.hpp"
#include "decompiler/printer.hpp"
#include "decompiler/structure_support.hpp"

namespace glassbox::decompiler {

ExprPtr negate(const ExprPtr& e);
ExprPtr negate_test(const ExprPtr& e, bool none_free);  // De Morgan over the jumps (conditions.cpp)

int CodeDecoder::resolve(int target) const {
  for (int hops = 0; hops < 16 && target >= 0 && static_cast<size_t>(target) < lifted_.ops.size();
       ++hops) {
    if (auto cold = cold_tests_.find(target); cold != cold_tests_.end()) return cold->second;
    const Operation& op = lifted_.ops[static_cast<size_t>(target)];
    if (op.op != Op::Jump) break;
    target = op.target;
  }
  return target;
}

// Whether a jump to `target` goes straight to the head of the innermost loop where the loop's
// bottom test is cold code (decode_while's cold tail): what falls off the body's end goes to that
// test, so such a jump is a written `continue`, never the body's end.
bool CodeDecoder::jumps_past_cold_test(int target) const {
  if (loops_.empty() || cold_tests_.count(target) != 0) return false;
  int head = loops_.back().continue_target;
  if (resolve(target) != head) return false;
  for (const auto& [test, test_head] : cold_tests_) {
    if (test_head == head) return true;
  }
  return false;
}

// Whether the jump at `from` to `target` is a forward jump to a jump back to the innermost loop's
// head (its own, ending its body, or a written `continue`): the end of the statements before
// that jump, falling into it (the compiler keeps such a jump where the jump back has a line of
// its own: a `continue`'s, or 3.10 `while True`'s), never a written `continue`, which jumps back
// itself.
bool CodeDecoder::falls_into_jump_back(int from, int target) const {
  if (loops_.empty() || target <= from) return false;
  if (target == loops_.back().back_jump) return true;
  const Operation& op = lifted_.ops[static_cast<size_t>(target)];
  return op.op == Op::Jump && op.target < target &&
         resolve(target) == resolve(loops_.back().continue_target);
}

// Whether jumps to `a` and to `b` go to the same place: the same operation after jump chains,
// or two copies of one short exit block (the compiler duplicates `return` blocks).
bool CodeDecoder::same_target(int a, int b) const {
  a = resolve(a);
  b = resolve(b);
  if (a == b) return true;
  const auto& ops = lifted_.ops;
  int size = static_cast<int>(ops.size());
  for (int k = 0; k < 4 && a + k < size && b + k < size; ++k) {
    const Operation& x = ops[static_cast<size_t>(a + k)];
    const Operation& y = ops[static_cast<size_t>(b + k)];
    if (x.op != y.op || x.arg != y.arg || x.text != y.text) return false;
    if (x.op == Op::LoadConst || x.op == Op::ReturnConst) {
      if (!x.constant || !y.constant || x.constant->kind != y.constant->kind ||
          (x.constant->kind != bytecode::ObjectKind::None &&
           x.constant->kind != bytecode::ObjectKind::True &&
           x.constant->kind != bytecode::ObjectKind::False)) {
        return false;
      }
    } else if (x.op != Op::ReturnValue && x.op != Op::LoadName) {
      return false;
    }
    if (x.op == Op::ReturnValue || x.op == Op::ReturnConst) return true;
  }
  return false;
}

// 3.10/3.11: duplicate_exits_without_lineno gives each jump to a short exit block without a line
// of its own (an except clause's way out: POP_EXCEPT, the unbinding of its name, the return) a
// copy, placed after the original; each then takes the line of the code jumping to it (on its
// first operation only). The length of the exit block at `exit` where `copy` starts one
// of its copies, back to back after it, under the same handlers; else 0.
int CodeDecoder::exit_copy_length(int exit, int copy) const {
  // (No chains where the profile says the compiler makes no such copies: the table is empty.)
  if (exit < 0 || copy <= exit || static_cast<size_t>(copy) >= normalized_.exit_chain.size())
    return 0;
  int chain = normalized_.exit_chain[static_cast<size_t>(exit)];
  if (chain < 0 || normalized_.exit_chain[static_cast<size_t>(copy)] != chain) return 0;
  return normalized_.exit_length[static_cast<size_t>(chain)];
}

// 3.10/3.11: extend_block inlines a short exit (the code after a try statement, ending in a
// return) into the block jumping to it (an except clause's POP_EXCEPT and jump), then
// duplicate_exits_without_lineno gives each jump to that block a copy of its own: an if/else
// nested in a clause's if/else jumps to its copy, not to the enclosing branch's. The length of
// the block at `copy` when it repeats the one at `exit` (the same straight operations, up to a
// return, under the same handlers); else 0.
int CodeDecoder::copied_exit_block(int exit, int copy) const {
  const auto& ops = lifted_.ops;
  int size = static_cast<int>(ops.size());
  if (!profile_.copies_exits_per_jump || exit < 0 || copy <= exit || copy >= size) return 0;
  for (int n = 1; n <= 8 && copy + n <= size; ++n) {
    const Operation& o = ops[static_cast<size_t>(copy + n - 1)];
    if (is_jump(o.op) || o.op == Op::Reraise || o.op == Op::RaiseVarargs) return 0;
    if (!same_operations(ops, exit, copy, n) ||
        flow_.handler_covering(exit + n - 1) != flow_.handler_covering(copy + n - 1))
      return 0;
    if (o.op == Op::ReturnValue) return n;
  }
  return 0;
}

// 3.12+: duplicate_exits_without_lineno (flowgraph.c) gives each further jump to a short exit
// block without a line of its own a copy, placed right after the block, on the jump's line. The
// length of the block at `exit` where `copy` is such a copy (the same straight operations up to
// a return, under the same handlers); else 0.
int CodeDecoder::jump_line_exit_copy(int exit, int copy) const {
  const auto& ops = lifted_.ops;
  int n = copy - exit;
  if (!profile_.copies_exits_with_jump_lines || exit < 0 || n <= 0 || n > 8 ||
      copy + n > static_cast<int>(ops.size()) || !same_operations(ops, exit, copy, n))
    return 0;
  for (int k = 0; k < n; ++k) {
    const Operation& o = ops[static_cast<size_t>(copy + k)];
    bool returns = o.op == Op::ReturnValue || o.op == Op::ReturnConst;
    if (is_jump(o.op) || o.op == Op::Reraise || o.op == Op::RaiseVarargs ||
        returns != (k == n - 1) ||
        flow_.handler_covering(exit + k) != flow_.handler_covering(copy + k))
      return 0;
  }
  return n;
}

Body CodeDecoder::decode_range(int begin, int end, int exit) {
  return decode_range_extending(begin, &end, end, exit);
}

// A return whose RETURN_VALUE starts a line above its value's first (compile.c's compiler_return:
// `return (` there, the value below, the NOP on the return's line keeping the exit block from
// being copied): the statement starts on the return's line, the value on its own.
void CodeDecoder::place_return_value(Stmt& s) const {
  if (s.kind != StmtKind::Return || s.value_line > 0 || s.keyword_line <= 0 ||
      s.keyword_line >= s.line || s.exprs.empty() || !s.exprs[0])
    return;
  s.value_line = s.line;
  s.line = s.keyword_line;
}

// Like decode_range, but a statement left unfinished at `*end` (its value still on the stack, as
// a `return` whose last operation lies outside an exception-table region) is finished, up to
// `limit`; `*end` becomes where the region really ends.
Body CodeDecoder::decode_range_extending(int begin, int* end, int limit, int exit) {
  // A region is a sequence of statements: whatever one path does to the stack (a return popping
  // loop iterators) is undone for the paths decoded after it.
  Body body;
  Body* saved = out_;
  std::vector<ExprPtr> saved_stack = stack_;
  out_ = &body;
  Restore<int> limit_guard(region_limit_);
  region_limit_ = limit;
  bool keep_region_stack = keep_region_stack_;
  keep_region_stack_ = false;
  // (The value is this region's own, not that of a region nested in it: an if's branch.)
  bool take_region_value = take_region_value_;
  take_region_value_ = false;
  int i = begin;
  int start = begin;  // where the statement being decoded started: its line is the statement's
  while (i < *end) {
    if (stack_.size() <= statement_depth_) start = i;
    size_t before = body.size();
    i = decode_statement(i, *end, exit);
    for (size_t k = before; k < body.size(); ++k) {
      if (body[k]->line == 0) body[k]->line = std::max(line_at(lifted_.ops, start), 0);
      place_return_value(*body[k]);
    }
  }
  // A value the region computed is still on the stack (on top, or below an iterator it was
  // swapped under on its way to a return). The NULLs of calls being prepared over it do not
  // count: 3.11/3.12's PUSH_NULL comes first, `f()()` in a finally copy after a return's value
  // pushes two (compiler_call's maybe_optimize_method_call, ADDOP(PUSH_NULL) before the callee).
  auto pending_value = [&] {
    size_t seen = 0;
    for (size_t k = stack_.size(); k-- > 0 && seen < 2;) {
      const ExprPtr& value = stack_[k];
      if (is_internal(value, "null")) continue;
      ++seen;
      if (!value || value->kind == ExprKind::Internal) continue;
      if (k >= saved_stack.size() || value != saved_stack[k]) return true;
    }
    return false;
  };
  if (take_region_value) {
    if (stack_.size() == saved_stack.size() + 1 && stack_.back() &&
        stack_.back()->kind != ExprKind::Internal) {
      region_value_ = stack_.back();
    }
  }
  if (keep_region_stack) {
    // A try body that began with values on the stack (generated code): what it leaves on the
    // stack lives on after the statement, so it moves to temporaries inside the body.
    keep_region_stack = false;
    size_t produced = 0;
    while (produced < saved_stack.size() && produced < stack_.size() &&
           stack_[produced] == saved_stack[produced])
      ++produced;
    auto marker = make_stmt(StmtKind::Pass);
    spill_pending(*marker, false, produced);
    out_ = saved;
    return body;
  }
  while (i < limit && pending_value()) i = decode_statement(i, limit, exit);
  *end = i;
  out_ = saved;
  stack_ = std::move(saved_stack);
  if (profile_.returns_constants) fold_return_if_expression(body);
  return body;
}

// 3.12+: `if c: return K` (K a constant returned by LOAD_CONST + RETURN_VALUE, not the
// RETURN_CONST a plain `return K` compiles to) ending a body with another return is
// `return K if c else <other>`, whose return the compiler copied into both branches; so is
// `if c: return x` followed by such a `return K` (`return x if c else K`).
void CodeDecoder::fold_return_if_expression(Body& body) const {
  while (body.size() >= 2) {
    const StmtPtr& last = body.back();
    const StmtPtr& test = body[body.size() - 2];
    if (last->kind != StmtKind::Return || last->exprs.size() != 1 || !last->exprs[0] ||
        test->kind != StmtKind::If || test->exprs.size() != 1 || test->bodies.size() < 2 ||
        !test->bodies[1].empty() || test->bodies[0].size() != 1) {
      return;
    }
    const StmtPtr& then = test->bodies[0][0];
    // (Either branch may be the constant one: `return x if c else K` too.)
    if (then->kind != StmtKind::Return || then->exprs.size() != 1 || !then->exprs[0] ||
        then->text == "written" || last->text == "written") {
      return;
    }
    bool display = (then->text == "display" || last->text == "display") &&
                   then->text != "unfolded" && last->text != "unfolded";
    if (!display && then->text != "unfolded" && last->text != "unfolded") return;
    ExprPtr value =
        display ? returned_display_if_expression(then->exprs[0], test->exprs[0], last->exprs[0])
                : make_expr(ExprKind::IfExp, {then->exprs[0], test->exprs[0], last->exprs[0]});
    if (!value) return;
    auto folded = make_stmt(StmtKind::Return, {value});
    folded->text = display ? "display" : "unfolded";
    body.resize(body.size() - 2);
    body.push_back(folded);
  }
}

// The value of `return (a if c else b, K)` from its two copied returns (marked "display": a
// tuple built of constants at run time, which optimize_basic_block would have folded had it
// been written so). The join block after the conditional expression (the later items' loads,
// BUILD_TUPLE, RETURN_VALUE) is one flowgraph.c inline_small_exit_blocks copies into both
// branches (at most MAX_COPY_SIZE, 4, instructions): the copies differ in their first item.
ExprPtr CodeDecoder::returned_display_if_expression(const ExprPtr& then, const ExprPtr& test,
                                                    const ExprPtr& other) const {
  if (then->kind != ExprKind::Tuple || other->kind != ExprKind::Tuple || then->args.empty() ||
      then->args.size() != other->args.size() || then->args.size() > 3) {
    return nullptr;
  }
  for (size_t k = 1; k < then->args.size(); ++k) {
    const Expr& item = *then->args[k];
    if ((item.kind != ExprKind::Constant && item.kind != ExprKind::Name) ||
        print_expr(item) != print_expr(*other->args[k])) {
      return nullptr;
    }
  }
  std::vector<ExprPtr> items = then->args;
  items[0] = make_expr(ExprKind::IfExp, {then->args[0], test, other->args[0]});
  return make_expr(ExprKind::Tuple, std::move(items));
}

// A `break` at `i` that the loop's layout shows without a jump: a POP_TOP of the iterator before
// a copy of the code after the loop, or, 3.10, an except clause's copy of it (clause_breaks_).
// Where the statement after it starts; -1 if none.
int CodeDecoder::decode_break_copy(int i, int end) {
  const Operation& op = lifted_.ops[static_cast<size_t>(i)];
  // (A break out of with statements calls their exits first, compiler_unwind_fblock_stack,
  // which leave the exits on the symbolic stack for the other paths: the pop is the iterator's
  // under them.)
  size_t exits = 0;
  if (bare_exit_depth_ >= 0 && stack_.size() == static_cast<size_t>(bare_exit_depth_)) {
    while (exits < stack_.size() && is_internal(top(static_cast<int>(exits) + 1), "with_exit"))
      ++exits;
  }
  if (op.op == Op::PopTop && !loops_.empty() && stack_.size() > exits &&
      is_internal(top(static_cast<int>(exits) + 1), "iter")) {
    auto found = break_copies_.find(i);
    if (found != break_copies_.end() && found->second.first == loops_.back().continue_target &&
        i + found->second.second < end) {
      if (exits == 0) pop();
      emit(make_stmt(StmtKind::Break));
      return i + 1 + found->second.second;
    }
    // `break` pops the iterator; its jump is left out where the code after the loop follows.
    if (i + 1 == loops_.back().break_target && stack_.size() == statement_depth_) {
      pop();
      emit(make_stmt(StmtKind::Break));
      return i + 1;
    }
  }
  if (int next = decode_clause_break_copy(i, end); next >= 0) return next;
  if (int next = decode_nop_break_copy(i, end); next >= 0) return next;
  if (int next = decode_try_break_copy(i, end); next >= 0) return next;
  if (!loops_.empty() && !clause_breaks_.empty()) {
    auto found = clause_breaks_.find(i);
    if (found != clause_breaks_.end() && found->second.first == loops_.back().continue_target &&
        i + found->second.second <= end) {
      ++clause_breaks_read_;
      emit(make_stmt(StmtKind::Break));
      return i + found->second.second;
    }
  }
  return -1;
}

// 3.10, 3.12+: a `break` at `i` out of an except clause of a try in the innermost loop, where the
// code after the loop is a short exit block: compile.c's compiler_break unwinds the clause
// (POP_EXCEPT, the unbinding of its name) and a for loop's iterator (POP_TOP), then jumps
// there, and flowgraph.c's inline_small_exit_blocks (3.10: compile.c's extend_block) replaces
// the jump with a copy of the block.
// The copy runs outside the clause (its raise has no context): never read it as clause code.
// Where the statement after it starts; -1 if that is not the shape.
int CodeDecoder::decode_clause_break_copy(int i, int end) {
  const auto& ops = lifted_.ops;
  size_t saved = profile_.exception_is_triple ? 3 : 1;  // the previous exception's values
  if (!profile_.inlines_small_exit_blocks || ops[static_cast<size_t>(i)].op != Op::PopExcept ||
      loops_.empty() || clause_loops_ != loops_.size() || stack_.size() != statement_depth_ ||
      stack_.size() < saved || !is_internal(top(), "prev_exc"))
    return -1;
  const LoopContext& loop = loops_.back();
  if (loop.break_target < 0 || loop.continue_target < 0) return -1;
  bool for_loop = ops[static_cast<size_t>(loop.continue_target)].op == Op::ForIter;
  int k = i + 1;
  if (k + 3 < end && unbinds_clause_name(ops, k)) k += 3;
  if (for_loop) {
    if (k >= end || ops[static_cast<size_t>(k)].op != Op::PopTop || stack_.size() <= saved ||
        !is_internal(stack_[stack_.size() - saved - 1], "iter"))
      return -1;
    ++k;
  }
  int length = break_copy_length(k, end, loop.break_target, !for_loop);
  if (length < 0) return -1;
  for (size_t n = 0; n < saved; ++n) pop();
  if (for_loop) pop();
  emit(make_stmt(StmtKind::Break));
  return k + length;
}

// 3.10, 3.12+: a `break` at `i` out of a `while` loop, where the code after the loop is a short
// exit block: compile.c's compiler_break emits a NOP with the statement's line, then the jump
// that inline_small_exit_blocks (3.10: extend_block) replaces with a copy of the block, which
// starts a line of its own (the NOP stays: remove_redundant_nops). The copy is a `break`, not
// the statement it repeats. Where the statement after it starts; -1 if that is not the shape.
int CodeDecoder::decode_nop_break_copy(int i, int end) {
  if (!nop_break_copy_at(i) || stack_.size() != statement_depth_) return -1;
  int length = break_copy_length(i, end, loops_.back().break_target, true);
  if (length < 0) return -1;
  emit(make_stmt(StmtKind::Break));
  return i + length;
}

// 3.10: a `break` at `i` out of a try body in the innermost `while` loop, where the code after
// the loop is a short exit block: compile.c's compiler_break unwinds the try (POP_BLOCK,
// compiler_unwind_fblock_stack), then jumps there, and extend_block replaces the jump with a
// copy of the block. The copy runs outside the try (its raise is not the handler's): never read
// it as the body's. (A return of the body computes its value before POP_BLOCK.) Where the
// statement after it starts; -1 if that is not the shape.
int CodeDecoder::decode_try_break_copy(int i, int end) {
  const auto& ops = lifted_.ops;
  const LoopContext* loop = innermost_while();
  if (!profile_.block_stack || ops[static_cast<size_t>(i)].op != Op::PopBlock || !loop ||
      stack_.size() != statement_depth_ || open_except_bodies_.empty() ||
      open_except_bodies_.back() < loop->continue_target)
    return -1;
  int length = i + 1 < end ? copied_block_length(i + 1, loop->break_target) : 0;
  if (length == 0 || i + 1 + length > end) return -1;
  Op last = ops[static_cast<size_t>(i + length)].op;
  if (last != Op::ReturnValue && last != Op::RaiseVarargs) return -1;
  emit(make_stmt(StmtKind::Break));
  return i + 1 + length;
}

// Whether the block ending at the return or raise `i` is a copy of the code after the innermost
// `while` loop: a break's jump there that extend_block (3.10) or inline_small_exit_blocks (3.11+)
// replaced with the block. (A `for` loop's break pops its iterator first.)
bool CodeDecoder::copies_loop_exit(int i) const {
  const LoopContext* loop = innermost_while();
  if (!loop) return false;
  for (int n = 1; n <= 16 && i - n + 1 >= 0; ++n)
    if (copied_block_length(i - n + 1, loop->break_target) == n) return true;
  return false;
}

// The innermost loop where it is a `while` whose head and exit are known; nullptr otherwise.
// (A `for` loop's break pops its iterator before its copy: its readings are their own.)
const LoopContext* CodeDecoder::innermost_while() const {
  if (loops_.empty()) return nullptr;
  const LoopContext& loop = loops_.back();
  if (loop.break_target < 0 || loop.continue_target < 0 ||
      lifted_.ops[static_cast<size_t>(loop.continue_target)].op == Op::ForIter)
    return nullptr;
  return &loop;
}

// Whether `i` may start decode_nop_break_copy's shape: the first operation of a copy holding
// the line of a NOP (lift drops it onto the copy) with another line, in a `while` loop.
bool CodeDecoder::nop_break_copy_at(int i) const {
  const auto& ops = lifted_.ops;
  const Operation& op = ops[static_cast<size_t>(i)];
  const LoopContext* loop = innermost_while();
  if (!profile_.inlines_small_exit_blocks || !loop || op.nop_line < 0 || op.line < 0 ||
      op.line == op.nop_line)
    return false;
  // (compiler_break unwinds the try statements it leaves, POP_BLOCK before the jump: a copy
  // covered by the handler of a try inside the loop is that try's body, `while True: try:
  // return f()`.)
  return !covered_by_try_from(i, loop->continue_target);
}

// Whether the handler covering operation `k` is that of a try statement starting at or after
// `from` (one inside a loop whose head is `from`).
bool CodeDecoder::covered_by_try_from(int k, int from) const {
  int handler = flow_.handler_covering(k);
  const HandlerRegion* region = handler < 0 ? nullptr : flow_.region_for_target(handler);
  return region && region->start >= from;
}

// The length of a break's copy at `k` of the block at `break_target` (the code after the loop),
// or, `while_true` and that code absent (3.12+: a `while True` left only by such breaks), of the
// short exit block every such break holds, recorded for decode_while_true to write after the
// loop (3.10: note_clause_break_copies reads that shape). -1 where the copy runs past `end`,
// ends in a jump, or differs from the other breaks' copies.
int CodeDecoder::break_copy_length(int k, int end, int break_target, bool while_true) {
  const auto& ops = lifted_.ops;
  int length = k < end ? copied_block_length(k, break_target) : 0;
  bool absent = length == 0 && while_true && !profile_.block_stack &&
                (length = absent_break_target_copy(k, end)) > 0;
  if (length == 0 || k + length > end || ops[static_cast<size_t>(k + length - 1)].op == Op::Jump)
    return -1;
  if (absent) {
    if (clause_break_tail_ >= 0 && copied_block_length(k, clause_break_tail_) != length) return -1;
    clause_break_tail_ = k;
    clause_break_tail_length_ = length;
  }
  return length;
}

// Where the innermost loop, a `while True`, has no code after it that its exit reaches (its
// break target lies past the code, or is handler code), a clause's break copy at `k` is the only
// place of that code: a short block ending in a return or raise, without jumps (flowgraph.c's
// inline_small_exit_blocks copies blocks of at most four instructions). Its length, or 0.
int CodeDecoder::absent_break_target_copy(int k, int end) const {
  const auto& ops = lifted_.ops;
  int target = loops_.back().break_target;
  if (!may_start_statement(ops[static_cast<size_t>(k)].op) ||
      (target < static_cast<int>(ops.size()) && flow_.reachable[static_cast<size_t>(target)]))
    return 0;
  for (int c = k; c < end && c < k + 6; ++c) {
    Op op = ops[static_cast<size_t>(c)].op;
    if (op == Op::ReturnValue || op == Op::ReturnConst || op == Op::RaiseVarargs) return c - k + 1;
    if (is_jump(op) || op == Op::PopExcept || op == Op::PopTop || op == Op::Swap ||
        op == Op::Reraise || op == Op::StoreName || op == Op::ForIter)
      return 0;
  }
  return 0;
}

// A `while True:` starting the body of an enclosing `while True:` has its head where the
// enclosing loop's jumps back go: each loop's folded test left a NOP with its line there
// (compiler_while), and lift keeps the line of the last, the inner loop's, which its own bottom
// jump back has too. That jump, the last one to `i` in the region with that line, where the
// enclosing loop's own jump back has another line; -1 if none.
int CodeDecoder::nested_while_true_jump(int i, int end) const {
  const auto& ops = lifted_.ops;
  const LoopContext& outer = loops_.back();
  int line = ops[static_cast<size_t>(i)].nop_line;
  if (!profile_.while_true_leaves_nop || line < 0 || outer.back_jump < 0 ||
      ops[static_cast<size_t>(outer.back_jump)].line == line || outer.continue_target != i)
    return -1;
  for (int k = std::min(end, outer.back_jump) - 1; k > i; --k) {
    const Operation& back = ops[static_cast<size_t>(k)];
    if (flow_.reachable[static_cast<size_t>(k)] && back.op == Op::Jump && back.target == i &&
        back.line == line)
      return k;
  }
  return -1;
}

// The loop opened at `i` that starts the body of the enclosing loop (see
// decode_at_statement_start): whether the region holds it, its jump back in `*source`.
bool CodeDecoder::closes_nested_loop(int i, int end, int* source) const {
  const auto& ops = lifted_.ops;
  WhileShape shape = while_head(i);
  if (shape.found && shape.tail < end) return true;
  if (int back = nested_while_true_jump(i, end); back > i) {
    *source = back;
    return true;
  }
  if (resolve(loops_.back().continue_target) == resolve(i)) return false;
  for (int k = end - 1; k > i; --k) {
    const Operation& back = ops[static_cast<size_t>(k)];
    if (flow_.reachable[static_cast<size_t>(k)] && back.target == i &&
        (back.op == Op::Jump || back.op == Op::JumpIf)) {
      *source = k;
      return true;
    }
  }
  return closes_cold_nested_loop(i, end, source);
}

// 3.12+: a `while True:` starting the body of an enclosing `while test:` loop whose only jumps
// back are its except clauses' `continue`s, handler code push_cold_blocks_to_end placed after
// the function's code (`while a: while True: try: ... except E: continue` + `break`). The
// enclosing loop's own jumps back to `i` are its bottom test's, past the region (compiler_while
// copies the test there); its `continue`s go to the top test. So a cold jump to `i` from the
// handler of a try statement in the region is the nested loop's: the last in `*source`. (Where
// the enclosing loop's bottom test is cold too, its jump back is no `continue`: no such loop.)
bool CodeDecoder::closes_cold_nested_loop(int i, int end, int* source) const {
  const auto& ops = lifted_.ops;
  if (!profile_.cold_blocks_at_end) return false;
  for (int k = static_cast<int>(ops.size()) - 1; k >= end; --k) {
    const Operation& back = ops[static_cast<size_t>(k)];
    if (flow_.reachable[static_cast<size_t>(k)] || back.op != Op::Jump || back.target != i)
      continue;
    // (Not the enclosing loop's bottom test, cold itself: `jump-if exit; JUMP_BACKWARD body`.)
    if (ops[static_cast<size_t>(k) - 1].op == Op::JumpIf) return false;
    int origin = warm_origin(k);
    if (origin < i || origin >= end) return false;
    *source = k;
    return true;
  }
  return false;
}

// 3.12+: where cold code at `k` comes from: past the handler code before it, the try
// statement's body that handler covers, itself maybe cold code (push_cold_blocks_to_end moves
// what only handlers reach after everything, handler code first); `k` where it is warm; -1 where
// that is not so.
int CodeDecoder::warm_origin(int k) const {
  const auto& ops = lifted_.ops;
  for (int hops = 0; hops < 16 && k >= 0; ++hops) {
    if (flow_.reachable[static_cast<size_t>(k)]) return k;
    int handler = k;
    while (handler >= 0 && ops[static_cast<size_t>(handler)].op != Op::PushExcInfo) --handler;
    if (handler < 0) return -1;
    int start = -1;
    for (const HandlerRegion& region : flow_.regions) {
      if (region.target == handler && (start < 0 || region.start < start)) start = region.start;
    }
    if (start < 0 || start >= handler) return -1;
    k = start;
  }
  return -1;
}

// Whether every jump back to `head` is in the handler code (unreachable but through an
// exception) of a try statement inside [head, ...): a `continue` of its clause. (A jump back
// from the handler of a try that starts before `head` goes to the code after that statement.)
bool CodeDecoder::only_cold_jumps_back(int head) const {
  const auto& ops = lifted_.ops;
  bool any = false;
  for (size_t k = static_cast<size_t>(head) + 1; k < ops.size(); ++k) {
    if (!is_jump(ops[k].op) || ops[k].target != head) continue;
    if (flow_.reachable[k]) return false;
    int origin = warm_origin(static_cast<int>(k));
    if (origin < head) return false;
    any = true;
  }
  return any;
}

// 3.12+: the last reachable jump back to `head` in [head, end), where the loop's last jump back
// is cold (a clause's `continue`, placed after the function's code by push_cold_blocks_to_end):
// the loop's own jump back ending its body (compiler_while), which the cold one follows
// (`while True: try: ... except E: continue else: if a: ... else: break`); -1 if none.
int CodeDecoder::last_warm_jump_back(int head, int end) const {
  const auto& ops = lifted_.ops;
  for (int k = end - 1; k > head; --k) {
    const Operation& op = ops[static_cast<size_t>(k)];
    if (op.op == Op::Jump && op.target == head && flow_.reachable[static_cast<size_t>(k)]) return k;
  }
  return -1;
}

// Whether every jump out of the handler code of the try statements in [head, end) goes back to
// `head` (a `continue`): none goes on to code of the loop placed with that handler code.
bool CodeDecoder::clauses_only_continue(int head, int end) const {
  for (int target : handler_exits(head, end)) {
    if (resolve(target) != resolve(head)) return false;
  }
  return true;
}

// Whether [head, end) holds what decode_nop_break_copy may read as a `break`'s copy of the code
// after a loop at `head`: an operation whose line is not the one its NOP had, outside the
// handlers of the try statements in the loop (the loop then goes on past `end`).
bool CodeDecoder::may_hold_break_copy(int head, int end) const {
  const auto& ops = lifted_.ops;
  auto outside = [&](int k) { return !covered_by_try_from(k, head); };
  for (int k = head; k < end; ++k) {
    const Operation& op = ops[static_cast<size_t>(k)];
    if (op.nop_line >= 0 && op.line >= 0 && op.line != op.nop_line && outside(k)) return true;
  }
  // (Or the body ends in a short exit block with a line of its own, all outside them: such a
  // copy has the break's line where its NOP was dropped.)
  for (int k = end - 1; k >= head && k >= end - 4 && outside(k); --k) {
    if (ops[static_cast<size_t>(k)].line >= 0) return true;
  }
  return false;
}

// A loop starting at `i`, whose last jump back is at `source`; -1 if none.
int CodeDecoder::decode_loop_at(int i, int end, int exit, int source, bool nested) {
  const auto& ops = lifted_.ops;
  WhileShape shape = while_head(i);
  // (A jump back to the test from past the loop's own jump back closes a `while True`
  // around it: that loop first.)
  // (Not one in cold code past the loop's exit, 3.12+, reached from the handler of a try
  // statement in this loop's body: the code after it that only its clauses reach, going on with
  // this loop's next iteration.)
  bool cold_source = false;
  if (profile_.cold_blocks_at_end && shape.found && source > shape.exit) {
    int origin = warm_origin(source);
    cold_source = origin >= shape.body && origin < shape.exit;
  }
  bool enclosed = !nested && shape.found && source > shape.tail && source < end &&
                  ops[static_cast<size_t>(source)].op == Op::Jump && !cold_source;
  if (shape.found && shape.exit <= end && !enclosed) return decode_while(i, shape, end);
  if (shape.loop_test > i && shape.exit > i && shape.exit <= end)
    return decode_if_around_loop(i, shape.loop_test, shape.exit);
  // The loop ends the region, its exits copies of the region's exit placed past it (a
  // return, copied for each jump of the test): without a break, nothing else runs after.
  if (shape.found && !enclosed && shape.tail < end && same_target(shape.exit, exit) &&
      loop_else_end(shape.body, shape.tail, shape.exit, static_cast<int>(ops.size())) ==
          shape.exit) {
    decode_while(i, shape, end);
    return end;
  }
  // 3.12+: the same where that handler code lies in the region, the loop ending the code
  // (`while True: try: return f() except E: continue`): the loop's body ends with its last
  // statement, never with the handler code push_cold_blocks_to_end moved after it.
  // (Only where the loop's last statement returns or raises and only handler code follows:
  // else a `break` may go past it.)
  if (!shape.found && profile_.cold_blocks_at_end && source > i && source < end &&
      only_cold_jumps_back(i)) {
    int loop_end = cold_jump_back_loop_end(i, end, exit);
    if (loop_end > i && static_cast<size_t>(loop_end) < ops.size() &&
        !may_hold_break_copy(i, loop_end) && clauses_only_continue(i, loop_end) &&
        !flow_.reachable[static_cast<size_t>(loop_end)] &&
        ops[static_cast<size_t>(loop_end) - 1].op != Op::Jump)
      return decode_while_true(i, loop_end - 1, end, exit);
  }
  if ((!shape.found || enclosed) && source > i && source < end)
    return decode_while_true(i, source, end, exit);
  // 3.12+: a `while True:` whose jumps back are all in its except clauses' handler code,
  // placed after the function's code (`while True: try: ... except E: continue` then
  // `break`).
  if (!shape.found && profile_.cold_blocks_at_end && source >= end &&
      !flow_.reachable[static_cast<size_t>(source)]) {
    if (int warm = last_warm_jump_back(i, end); warm > i)
      return decode_while_true(i, warm, end, exit);
    if (int loop_end = cold_jump_back_loop_end(i, end, exit); loop_end > i)
      return decode_while_true(i, loop_end - 1, end, exit);
  }
  return -1;
}

// Whether the try statement of `region`, starting at `i`, covers the test of a `while` loop
// starting there too: the try holds the loop (compiler_while emits the top test before the
// body, so a try in the loop's body starts after it). `while b: try: while a: ...`: the
// enclosing loop's jump back to `i` lies past the region, yet the test is the try's. (Not
// before that enclosing loop is open: a `while True:` whose jump back to `i` lies past the
// region holds the try.)
bool CodeDecoder::covers_while_test(int i, const HandlerRegion& region) const {
  WhileShape shape = while_head(i);
  if (!shape.found) return false;
  for (int k = i; k < shape.body && k < region.end; ++k) {
    if (flow_.reachable[static_cast<size_t>(k)] && flow_.handler_covering(k) == region.target)
      return true;
  }
  return false;
}

// Whether every jump back to the loop head `head` lies in code `handler` covers: every loop
// starting there (each has one) is inside that handler's try.
bool CodeDecoder::continue_covered_by(int head, int handler) const {
  const auto& ops = lifted_.ops;
  bool any = false;
  for (size_t k = static_cast<size_t>(head) + 1; k < ops.size(); ++k) {
    if (!is_jump(ops[k].op) || ops[k].target != head) continue;
    if (flow_.handler_covering(static_cast<int>(k)) != handler) return false;
    any = true;
  }
  return any;
}

// A statement starting at `i` with nothing pending on the stack: a loop or a try statement
// starting there; -1 if neither.
int CodeDecoder::decode_at_statement_start(int i, int end, int exit) {
  const auto& ops = lifted_.ops;
  stmt_start_ = i;
  bool open = std::find(open_loop_entries_.begin(), open_loop_entries_.end(), i) !=
              open_loop_entries_.end();
  int source = flow_.last_backward_source[static_cast<size_t>(i)];
  // A loop nested at the start of an enclosing loop's body (`while a: while True: ...`): its
  // jumps back lie inside the region and go to the operation the enclosing loop's go to (the
  // enclosing loop's own jumps back are at its end, or go to its test).
  bool nested = open;
  if (open && !loops_.empty() &&
      std::count(open_loop_entries_.begin(), open_loop_entries_.end(), i) == 1 &&
      closes_nested_loop(i, end, &source))
    open = false;
  // A try whose body holds a loop starting at the same operation is the outer statement: its
  // handler covers normally reachable code from the loop's jump back on (not only the handler
  // code of a statement nested in the loop, which 3.12+ places after the loop).
  const HandlerRegion* region = flow_.outermost_region_at(i, opened_try_);
  // (Or a jump back to the loop's head that its handler covers: compiler_continue unwinds the
  // blocks inside the loop only, each try's POP_BLOCK ending its cover (compiler_unwind_fblock),
  // so a try still covering every jump back lies outside the loops there. 3.12+: the only jump
  // back may be an except clause's, in handler code placed after the try's normal code.)
  auto holds_loop = [&] {
    if (source <= i) return true;
    for (int k = source; k < region->end; ++k) {
      if (flow_.reachable[static_cast<size_t>(k)] && flow_.handler_covering(k) == region->target)
        return true;
    }
    return continue_covered_by(i, region->target);
  };
  if (region && ops[static_cast<size_t>(region->target)].op == Op::PushExcInfo &&
      region->end > i + 1 &&
      ((region->end > source && holds_loop()) ||
       ((nested || region->end > source) && covers_while_test(i, *region)))) {
    return decode_try(i, end, exit);
  }
  if (!open) {
    if (int next = decode_loop_at(i, end, exit, source, nested); next >= 0) return next;
  }
  if (const HandlerRegion* region = flow_.outermost_region_at(i, opened_try_)) {
    if (ops[static_cast<size_t>(region->target)].op == Op::PushExcInfo)
      return decode_try(i, end, exit);
  }
  return -1;
}

int CodeDecoder::decode_statement(int i, int end, int exit) {
  const auto& ops = lifted_.ops;
  const Operation& op = ops[static_cast<size_t>(i)];
  if (consumed_[static_cast<size_t>(i)]) return i + 1;
  if (int next = decode_break_copy(i, end); next >= 0) return next;
  if (op.op == Op::LoadFastAndClear) return decode_inline_comprehension(i);
  if (op.op == Op::Jump) return decode_jump(i, end, exit);
  if (op.op == Op::ForIter) return decode_for(i, end, exit);
  if (op.op == Op::BeforeWith) return decode_with(i, end, exit);
  // 3.10: a loop whose body starts with a try/with has its head on the SETUP_*: the loop first.
  bool loop_head = stack_.size() <= statement_depth_ &&
                   flow_.last_backward_source[static_cast<size_t>(i)] > i &&
                   std::find(open_loop_entries_.begin(), open_loop_entries_.end(), i) ==
                       open_loop_entries_.end();
  if (op.op == Op::SetupFinally && !loop_head) return decode_setup_finally(i, end, exit);
  if (op.op == Op::SetupWith && !loop_head) return decode_setup_with(i, end, exit);
  if (op.op == Op::JumpIf) return decode_condition(i, end, exit, stmt_start_);
  if (int skipped = skip_with_exit_call(i); skipped > i) return skipped;
  if (stack_.size() <= statement_depth_) {
    if (int next = decode_at_statement_start(i, end, exit); next >= 0) return next;
  }
  if (int next = decode_match(i, end, exit); next >= 0) return next;
  if (stack_.size() > statement_depth_ && role_ != CodeRole::Comprehension) {
    // Generated code (Dynamo's) opens a try region in the middle of an expression; the values
    // computed so far move to temporaries and the try statement starts here.
    const HandlerRegion* region = flow_.outermost_region_at(i, opened_try_);
    if (region && ops[static_cast<size_t>(region->target)].op == Op::PushExcInfo &&
        region->end > i && !consumed_[static_cast<size_t>(region->target)]) {
      auto marker = make_stmt(StmtKind::Pass);
      spill_pending(*marker);
      mid_expression_try_ = true;
      return decode_try(i, end, exit);
    }
  }
  return execute_step(i);
}

// 3.12+: a loop ending an enclosing loop's body exits by the enclosing loop's jump back; the
// top test's jump to it was threaded there and turned around, over a JUMP_BACKWARD of its own
// that no handler covers (a written `if not test: continue` keeps the test's handler). Whether
// the test [head, k] is that shape, read into `shape`. (An or's earlier items jump to the body
// too, an and's within the test: compiler_jump_if; the bottom copy turns each jump to the body
// around over a JUMP_BACKWARD of its own.)
bool CodeDecoder::read_threaded_while(int head, int k, WhileShape& shape) const {
  const auto& ops = lifted_.ops;
  int body = k + 2;
  int tail = flow_.last_backward_source[static_cast<size_t>(body)];
  bool single = true;
  for (int m = head; m < k; ++m) {
    const Operation& o = ops[static_cast<size_t>(m)];
    if (is_jump(o.op))
      single &= o.op == Op::JumpIf && (o.target == body || (o.target > m && o.target <= k));
  }
  bool covered =
      table_readings_ && flow_.handler_covering(head) >= 0 && flow_.handler_covering(k + 1) >= 0;
  if (single && !covered && tail > body && static_cast<size_t>(tail) + 1 < ops.size() &&
      ops[static_cast<size_t>(tail)].op == Op::Jump &&
      ops[static_cast<size_t>(tail - 1)].op == Op::JumpIf &&
      ops[static_cast<size_t>(tail - 1)].target == tail + 1 &&
      ops[static_cast<size_t>(tail) + 1].op == Op::Jump &&
      same_target(ops[static_cast<size_t>(tail) + 1].target,
                  ops[static_cast<size_t>(k) + 1].target)) {
    shape.found = true;
    shape.body = body;
    shape.tail = tail;
    shape.exit = tail + 1;
    shape.threaded = true;
    return true;
  }
  return false;
}

// The loop whose test [head, k] ends in a chained comparison's last link at `k`, its cleanup at
// `cleanup` (see while_head); not found where the bottom test does not repeat it.
CodeDecoder::WhileShape CodeDecoder::chained_while(int head, int k, int cleanup) const {
  const auto& ops = lifted_.ops;
  const Operation& op = ops[static_cast<size_t>(k)];
  WhileShape shape;
  int top_way = chained_exit_way(cleanup + 1, op.target);
  int body = cleanup + 1 + top_way;
  int tail = top_way > 0 && static_cast<size_t>(body) < ops.size()
                 ? flow_.last_backward_source[static_cast<size_t>(body)]
                 : -1;
  int bottom = tail;  // the bottom test's last link
  if (profile_.conditional_jumps_forward_only && tail > body &&
      ops[static_cast<size_t>(tail)].op == Op::Jump)
    bottom = ops[static_cast<size_t>(tail - 1)].target == tail + 1 ? tail - 1 : -1;
  int way = tail > body ? chained_exit_way(tail + 1, op.target) : 0;
  if (ops[static_cast<size_t>(k) + 1].target == body && bottom > body && way > 0 &&
      op.target == tail + 2 + way && ops[static_cast<size_t>(bottom)].op == Op::JumpIf &&
      ops[static_cast<size_t>(tail) + 1 + static_cast<size_t>(way)].op == Op::PopTop &&
      chained_links_to(body, bottom, tail + 1 + way) &&
      chained_test_repeated(head, k, body, bottom, op.target)) {
    shape.found = true;
    shape.body = body;
    shape.tail = tail;
    shape.exit = op.target;
    shape.chain_cleanup = 2 + top_way;
  }
  return shape;
}

// A body that never falls off its end has no bottom test: its last jump back is a
// `continue` (to the test), and it ends before the exit in a return or raise, or in that
// jump. No jump of the body goes to the exit or past it (a `break` ending the body falls
// into the exit: `if t: ...; continue` then `break`, read with its bottom test elsewhere).
bool CodeDecoder::body_never_falls_off(int head, int body, int tail, int exit) const {
  const auto& ops = lifted_.ops;
  bool open_end = ops[static_cast<size_t>(tail)].op == Op::Jump &&
                  ops[static_cast<size_t>(tail)].target == head && exit > tail;
  if (open_end) {
    Op last = ops[static_cast<size_t>(exit) - 1].op;
    open_end = exit - 1 == tail || last == Op::ReturnValue || last == Op::ReturnConst ||
               last == Op::RaiseVarargs || last == Op::Reraise;
    for (int m = body; open_end && m < exit; ++m) {
      const Operation& inner = ops[static_cast<size_t>(m)];
      if (is_jump(inner.op) && inner.target >= exit) open_end = false;
    }
  }
  return open_end;
}

// Whether the operation before `end`, the last of a loop body read up to its exit, is reached
// and falls into the exit (3.12+ cold bottom test: only a `break` goes there without a jump).
bool CodeDecoder::body_falls_into(int body, int end) const {
  return end > body && flow_.reachable[static_cast<size_t>(end) - 1] &&
         falls_through(lifted_.ops[static_cast<size_t>(end) - 1].op);
}

// The exit of a loop whose bottom test ends at `tail` and whose top test jumps to `target`, past
// `tail + 1`; -1 where that is not a loop's layout. Between the bottom test and the exit there
// may be a copy of the code after the loop (a short block ending in return), placed there by the
// compiler (or, the test being an and/or, one copy for each of its jumps, back to back); or the
// top test's jump was threaded through the jump after the loop (over the else of an if ending
// with it).
int CodeDecoder::exit_past_copies(int tail, int target) const {
  const auto& ops = lifted_.ops;
  if (same_target(target, tail + 1)) {
    // 3.13's duplicate_exits_without_lineno also copies a block without a line number that
    // holds an eval-breaker check (the enclosing loop's JUMP_BACKWARD, an if's then-branch
    // ending with the loop) for each jump to it: the bottom test falls into one copy, the top
    // test jumps to the next. The loop's exit is the last copy; the others are its.
    const Operation& last_copy = ops[static_cast<size_t>(target)];
    bool copied_jumps = profile_.inlines_no_lineno_blocks && last_copy.op == Op::Jump;
    for (int c = tail + 1; copied_jumps && c < target; ++c)
      copied_jumps = ops[static_cast<size_t>(c)].op == Op::Jump &&
                     ops[static_cast<size_t>(c)].target == last_copy.target;
    return copied_jumps ? target : tail + 1;
  }
  int gap = target - (tail + 1);
  Op last = ops[static_cast<size_t>(target - 1)].op;
  int length = copied_tail_length(target);
  bool copies = length > 0 && gap % length == 0;
  for (int c = tail + 1; copies && c < target; c += length)
    copies = same_operations(ops, c, target, length);
  if (!copies && (gap > 4 || (last != Op::ReturnValue && last != Op::ReturnConst))) return -1;
  return target;
}

// 3.12+: the bottom test of the rotated loop whose top test ends with the jump-if at `k`, where
// the last jump back to the body, at `tail`, is cold code's: a loop nested at the body's start
// (`while a: while True: try: ... except E: continue` + `break`) shares its head, and its
// clause's `continue` lies in the handler code push_cold_blocks_to_end placed after the
// function's code. The last warm `jump-if exit; JUMP_BACKWARD body` before it (compiler_while's
// copy of the test); `tail` where there is none.
int CodeDecoder::warm_bottom_test(int k, int tail) const {
  const auto& ops = lifted_.ops;
  int body = k + 1;
  if (!profile_.cold_blocks_at_end || tail <= body || flow_.reachable[static_cast<size_t>(tail)])
    return tail;
  int exit = ops[static_cast<size_t>(k)].target;
  // (A cold bottom test itself, `jump-if exit; JUMP_BACKWARD body`: read_rotated_while's
  // cold_tail.)
  const Operation& before = ops[static_cast<size_t>(tail) - 1];
  if (before.op == Op::JumpIf && same_target(before.target, exit)) return tail;
  for (int m = tail - 1; m > body; --m) {
    const Operation& back = ops[static_cast<size_t>(m)];
    const Operation& test = ops[static_cast<size_t>(m) - 1];
    if (flow_.reachable[static_cast<size_t>(m)] && back.op == Op::Jump && back.target == body &&
        test.op == Op::JumpIf && same_target(test.target, exit))
      return m;
  }
  return tail;
}

// The rotated loop whose top test ends with the jump-if at `k`, read into `shape`: false where
// the test goes on past `k` (while_head reads on), true where `shape` is the answer (found or
// not).
bool CodeDecoder::read_rotated_while(int head, int k, WhileShape& shape) const {
  const auto& ops = lifted_.ops;
  const Operation& op = ops[static_cast<size_t>(k)];
  int body = k + 1;
  int tail = warm_bottom_test(k, flow_.last_backward_source[static_cast<size_t>(body)]);
  // (Without a bottom test, the loop's jumps back all go to the test: `continue`s.)
  if (tail <= k) {
    if (test_goes_on(k, op.target)) return false;
    tail = flow_.last_backward_source[static_cast<size_t>(head)];
    // (3.12+: the last may be cold code's, past the exit, where only except clauses reach the
    // code after a try statement: push_cold_blocks_to_end. The body's own ends before it.)
    if (profile_.cold_blocks_at_end && tail > op.target && op.target > body &&
        !flow_.reachable[static_cast<size_t>(tail)]) {
      for (int m = op.target - 1; m > k; --m) {
        const Operation& back = ops[static_cast<size_t>(m)];
        if (back.op == Op::Jump && back.target == head) {
          tail = m;
          break;
        }
      }
    }
  }
  if (tail <= k) return false;
  // 3.12+ has no backward conditional jump: the bottom test is `jump-if exit; JUMP_BACKWARD`.
  // (Its jump goes back to the body, past the top test (compiler_while's jump_if to `body`): a
  // jump to the test is a `continue`, after `if test: continue` whose false exit is the `break`
  // that ends the body, jumping where the loop's exit goes.)
  bool split_tail = ops[static_cast<size_t>(tail)].op == Op::Jump &&
                    ops[static_cast<size_t>(tail)].target > k &&
                    ops[static_cast<size_t>(tail - 1)].op == Op::JumpIf &&
                    same_target(ops[static_cast<size_t>(tail - 1)].target, op.target);
  bool open_end = !split_tail && body_never_falls_off(head, body, tail, op.target);
  if (ops[static_cast<size_t>(tail)].op != Op::JumpIf && !split_tail && !open_end) return false;
  // 3.12+: a body that never falls off its end (it ends in a `break`, a copy of the short code
  // after the loop) while an except clause of it goes on with the next iteration: only handler
  // code reaches the bottom test, a cold block that flowgraph.c's push_cold_blocks_to_end
  // places after the handler code, past the exit and its jump back to the exit with it.
  bool cold_tail =
      profile_.cold_blocks_at_end && split_tail && op.target > body && op.target < tail &&
      !flow_.reachable[static_cast<size_t>(tail)] &&
      flow_.reachable[static_cast<size_t>(op.target)] &&
      static_cast<size_t>(tail) + 1 < ops.size() &&
      ((ops[static_cast<size_t>(tail) + 1].op == Op::Jump &&
        ops[static_cast<size_t>(tail) + 1].target == op.target) ||
       (!flow_.reachable[static_cast<size_t>(tail) + 1] && same_target(tail + 1, op.target)));
  if (op.target < tail + 1 && !cold_tail) return false;
  int exit = op.target;
  if (open_end) {
    tail = exit - 1;
  } else if (!cold_tail && op.target != tail + 1) {
    // (A cold tail: decode_while reads the body up to the exit.)
    exit = exit_past_copies(tail, op.target);
    if (exit < 0) return false;
  }
  // Every earlier jump of the test goes to the loop's exit or within the test (and/or): one
  // going elsewhere is an if around the loop.
  for (int m = head; m < k; ++m) {
    const Operation& earlier = ops[static_cast<size_t>(m)];
    if (earlier.op == Op::JumpIf && earlier.target > body &&
        !same_target(earlier.target, op.target))
      return true;
  }
  // (`if a: while b: ...`: a's jump goes where the loop's exit does, and the bottom test
  // repeats b alone. The if first; its body starts with the loop.)
  if (int loop_test = open_end ? -1 : loop_test_after_if_test(head, body, tail); loop_test > head) {
    shape.loop_test = loop_test;
    shape.exit = exit;
    return true;
  }
  shape.found = true;
  shape.body = body;
  shape.tail = tail;
  shape.exit = exit;
  shape.open_end = open_end;
  shape.cold_tail = cold_tail;
  return true;
}

// Whether the test of a loop goes on past its jump-if at `k` to `exit`: `while a and b:`, whose
// later item jumps to a copy of the exit (3.12+ duplicate_exits_without_lineno gives each jump
// to the line-less exit block its own) and whose bottom copy (compiler_while visits the test
// twice) jumps back past that item. A `continue` jumps to the top test, so the loop's jumps back
// to the head are no sign that the body has no bottom test.
bool CodeDecoder::test_goes_on(int k, int exit) const {
  const auto& ops = lifted_.ops;
  int size = static_cast<int>(ops.size());
  int m = k + 1;
  while (m < size && is_pure(ops[static_cast<size_t>(m)].op) &&
         ops[static_cast<size_t>(m)].op != Op::JumpIf)
    ++m;
  if (m + 1 >= size || m == k + 1 || ops[static_cast<size_t>(m)].op != Op::JumpIf ||
      ops[static_cast<size_t>(m)].target == exit ||
      !same_target(ops[static_cast<size_t>(m)].target, exit))
    return false;
  return flow_.last_backward_source[static_cast<size_t>(m) + 1] > m;
}

// A rotated `while test:` at `head`: the test [head, body) ends in a jump to `exit` and is
// compiled again at the bottom, jumping back to `body` when true.
CodeDecoder::WhileShape CodeDecoder::while_head(int head) const {
  const auto& ops = lifted_.ops;
  WhileShape shape;
  for (int k = head; k < static_cast<int>(ops.size()) && k < head + 200; ++k) {
    const Operation& op = ops[static_cast<size_t>(k)];
    // A named expression in the test: COPY 1 then the store.
    bool walrus = op.op == Op::StoreName && k > head &&
                  ops[static_cast<size_t>(k - 1)].op == Op::Copy &&
                  ops[static_cast<size_t>(k - 1)].arg == 1;
    // (A lambda or generator expression in the test makes a function, a generator expression
    // takes its iterable's iterator; a for loop's GET_ITER is followed by FOR_ITER, a def's
    // MAKE_FUNCTION by its store.)
    bool made = op.op == Op::MakeFunction || op.op == Op::GetIter;
    if (!is_pure(op.op) && op.op != Op::JumpIf && !walrus && !made) return shape;
    if (op.op != Op::JumpIf) continue;
    if (profile_.conditional_jumps_forward_only && op.target == k + 2 &&
        ops[static_cast<size_t>(k) + 1].op == Op::Jump &&
        ops[static_cast<size_t>(k) + 1].target < head && read_threaded_while(head, k, shape))
      return shape;
    // A chained comparison's last link jumps to the exit, then `JUMP body` over the cleanup
    // block of its earlier links, `POP_TOP` and the way to the exit (compiler_jump_if's layout
    // of a Compare with several links): `JUMP exit`, or, 3.10 and 3.12+, a copy of the exit
    // block where that is a short return (the jump to it inlined). The bottom test ends
    // `jump-if body` (3.12+: `jump-if over; JUMP_BACKWARD body`), the way to the exit again,
    // then its own cleanup, falling into the exit.
    // (Not with a named expression in the test, whose store collect_conditions does not take.)
    bool named = false;
    for (int m = head; m < k; ++m) named |= ops[static_cast<size_t>(m)].op == Op::StoreName;
    if (int cleanup = chained_test_cleanup(head, k); cleanup == k + 2 && !named)
      return chained_while(head, k, cleanup);
    if (read_rotated_while(head, k, shape)) return shape;
  }
  return shape;
}

// Where the chained comparison whose last link jumps at `last` (its first link at or after
// `from`) has its cleanup block, `POP_TOP` after the jump that follows `last`, whose earlier
// links jump there; -1 if that is not the shape.
int CodeDecoder::chained_test_cleanup(int from, int last) const {
  const auto& ops = lifted_.ops;
  if (static_cast<size_t>(last) + 2 >= ops.size()) return -1;
  const Operation& over = ops[static_cast<size_t>(last) + 1];
  int cleanup = last + 2;
  if (over.op != Op::Jump || ops[static_cast<size_t>(cleanup)].op != Op::PopTop) return -1;
  return chained_links_to(from, last, cleanup) ? cleanup : -1;
}

// Whether a link of the chained comparison in [from, last) jumps to its cleanup at `cleanup`.
bool CodeDecoder::chained_links_to(int from, int last, int cleanup) const {
  const auto& ops = lifted_.ops;
  for (int m = from; m < last; ++m) {
    const Operation& link = ops[static_cast<size_t>(m)];
    if (link.op == Op::JumpIf && link.target == cleanup) return true;
  }
  return false;
}

// Whether the bottom copy of a loop's test, ending with the chained comparison's last link at
// `bottom`, repeats the whole top test [head, last], whose jumps go to the loop's `exit` or stay
// within the test: `if a: while b < c < d:` repeats only the loop's own test (the if first,
// its then-branch starting with the loop).
bool CodeDecoder::chained_test_repeated(int head, int last, int body, int bottom, int exit) const {
  const auto& ops = lifted_.ops;
  std::vector<int> top;
  for (int m = head; m < last; ++m) {
    const Operation& o = ops[static_cast<size_t>(m)];
    if (!is_jump(o.op)) {
      top.push_back(m);
    } else if (o.op != Op::JumpIf || (o.target > body && !same_target(o.target, exit))) {
      return false;
    }
  }
  size_t matched = 0;
  for (int m = bottom - 1; m >= body && matched < top.size(); --m) {
    if (is_jump(ops[static_cast<size_t>(m)].op)) continue;
    if (!same_operations(ops, top[top.size() - 1 - matched], m, 1)) break;
    ++matched;
  }
  return matched == top.size();
}

// The length of the way from a chained comparison's cleanup at `at` to `exit`: `JUMP exit`, or
// a copy of the short block at `exit` that the compiler put there for that jump (3.10, 3.12+);
// 0 if neither.
int CodeDecoder::chained_exit_way(int at, int exit) const {
  const auto& ops = lifted_.ops;
  if (at < 0 || static_cast<size_t>(at) >= ops.size()) return 0;
  const Operation& first = ops[static_cast<size_t>(at)];
  if (first.op == Op::Jump) return same_target(first.target, exit) ? 1 : 0;
  if (!profile_.inlines_small_exit_blocks) return 0;
  int length = copied_block_length(at, exit);
  Op last = length > 0 ? ops[static_cast<size_t>(at + length - 1)].op : Op::Nop;
  bool exits = last == Op::ReturnValue || last == Op::ReturnConst || last == Op::RaiseVarargs ||
               last == Op::Reraise;
  return exits ? length : 0;
}

// Where the test [head, body) of a rotated loop whose bottom test ends at `tail` starts after
// an enclosing if's test, or -1: the bottom copy repeats only the top test's later items, and
// the operation before the first of them is a jump (compiler_while visits the test twice, the
// if's test once; 3.13 lays out `if a: while b:` alike, its bottom test `jump-if exit;
// JUMP_BACKWARD`). (Not where 3.12+ tests jump back to the body, which the copy shows otherwise.)
int CodeDecoder::loop_test_after_if_test(int head, int body, int tail) const {
  const auto& ops = lifted_.ops;
  std::vector<int> top;
  for (int k = head; k < body; ++k) {
    const Operation& o = ops[static_cast<size_t>(k)];
    if (profile_.conditional_jumps_forward_only && o.op == Op::JumpIf && o.target == body)
      return -1;
    if (!is_jump(o.op)) top.push_back(k);
  }
  // (Matched backward from the copy's last jump: only the top test's later items.)
  size_t matched = 0;
  for (int k = tail; k >= body && matched < top.size(); --k) {
    if (is_jump(ops[static_cast<size_t>(k)].op)) continue;
    if (!same_operations(ops, top[top.size() - 1 - matched], k, 1)) break;
    ++matched;
  }
  if (matched == 0 || matched == top.size()) return -1;
  int loop_test = top[top.size() - matched];
  return ops[static_cast<size_t>(loop_test) - 1].op == Op::JumpIf ? loop_test : -1;
}

// `if a: while b: ...` (see loop_test_after_if_test): a's test [head, loop_test) jumps where
// the loop's exit is; the loop is the if's body.
int CodeDecoder::decode_if_around_loop(int head, int loop_test, int exit) {
  std::vector<ConditionItem> items = collect_conditions_range(head, loop_test);
  ExprPtr test = build_condition(items, 0, items.size(), exit, false, loop_test);
  Body then = decode_range(loop_test, exit, exit);
  emit(make_stmt(StmtKind::If, {test}, {std::move(then), {}}));
  return exit;
}

// The test of the rotated loop `shape` at `head`.
ExprPtr CodeDecoder::while_test(int head, const WhileShape& shape) {
  const auto& ops = lifted_.ops;
  if (shape.threaded) {  // `if not test: <jump to the exit>`
    std::vector<ConditionItem> items = collect_conditions_range(head, shape.body - 1);
    return negate_test(build_condition(items, 0, items.size(), shape.body, false, shape.body - 1),
                       profile_.none_tests_jump);
  }
  std::vector<ConditionItem> items;
  if (shape.chain_cleanup > 0) {  // (collect_conditions reads a chained comparison's links)
    int j = head;
    ++expression_only_;
    while (ops[static_cast<size_t>(j)].op != Op::JumpIf) j = execute_step(j);
    --expression_only_;
    items = collect_conditions(j, shape.body, head);
  } else {
    items = collect_conditions_range(head, shape.body);
  }
  return build_condition(items, 0, items.size(), shape.exit, false, shape.body);
}

// The copy computes the same values (3.12+ where tests jump back, a threaded exit); and an
// if's test jumping where the loop's does is no part of the loop's test: `if a: while b: ...`,
// whose copy repeats b alone, the end of the top test. Throws where the copy [body_end, tail]
// of the rotated loop `shape`'s test at `head` is not that.
void CodeDecoder::check_while_test_copy(int head, const WhileShape& shape, int body_end,
                                        int jumps_back) const {
  const auto& ops = lifted_.ops;
  std::vector<int> top, bottom;
  for (int k = head; k < shape.body; ++k)
    if (!is_jump(ops[static_cast<size_t>(k)].op)) top.push_back(k);
  for (int k = body_end; k <= shape.tail; ++k)
    if (!is_jump(ops[static_cast<size_t>(k)].op)) bottom.push_back(k);
  auto repeats = [&](size_t from) {  // bottom repeats top from `from` on
    if (top.size() - from != bottom.size()) return false;
    for (size_t n = 0; n < bottom.size(); ++n)
      if (!same_operations(ops, top[from + n], bottom[n], 1)) return false;
    return true;
  };
  if ((jumps_back > 0 || shape.threaded || shape.cold_tail) && !repeats(0))
    throw DecodeFailure("while test copy");
  // (Matched backward from the copy's last jump: only the top test's later items.)
  size_t matched = 0;
  for (int k = shape.tail; k >= shape.body && matched < top.size(); --k) {
    if (is_jump(ops[static_cast<size_t>(k)].op)) continue;
    if (!same_operations(ops, top[top.size() - 1 - matched], k, 1)) break;
    ++matched;
  }
  if (matched > 0 && matched < top.size() && jumps_back == 0 &&
      ops[static_cast<size_t>(top[top.size() - matched] - 1)].op == Op::JumpIf)
    throw DecodeFailure("while test copy: an if's test before the loop's");
}

namespace {

// Whether the last statement of `b`, or one ending a branch of it, is a `break` that
// end_with_fall_break read from a fall into the loop's exit.
bool ends_in_fall_break(const Body& b, int depth) {
  if (b.empty() || depth > 50) return false;
  const Stmt& last = *b.back();
  if (last.kind == StmtKind::Break) return last.text == "falls_into_exit";
  if (last.kind != StmtKind::If && last.kind != StmtKind::Try) return false;
  return std::any_of(last.bodies.begin(), last.bodies.end(),
                     [&](const Body& branch) { return ends_in_fall_break(branch, depth + 1); });
}

}  // namespace

int CodeDecoder::decode_while(int head, const WhileShape& shape, int end) {
  const auto& ops = lifted_.ops;
  ExprPtr test = while_test(head, shape);
  int copy_length = shape.body - head;
  // 3.12+ has no backward conditional jump: in the copy, each test that goes to the body when
  // true jumps over a JUMP_BACKWARD of its own instead.
  int jumps_back = 0;
  for (int k = head; profile_.conditional_jumps_forward_only && k < shape.body; ++k) {
    const Operation& o = ops[static_cast<size_t>(k)];
    jumps_back += o.op == Op::JumpIf && o.target == shape.body;
  }
  // (A threaded top test's last item jumps over the way out, as its copy does over the jump back:
  // only the earlier items' jumps to the body add one.)
  if (shape.threaded) jumps_back = std::max(jumps_back - 1, 0);
  int body_end = shape.tail + 1 - (copy_length - shape.chain_cleanup) - jumps_back;
  if (ops[static_cast<size_t>(shape.tail)].op == Op::Jump && !shape.threaded) --body_end;
  if (shape.open_end) body_end = shape.exit;
  if (body_end < shape.body) throw DecodeFailure("while test copy");
  check_while_test_copy(head, shape, body_end, jumps_back);
  // A cold bottom test (while_head): the body runs to the exit; the clauses' jumps to the test go
  // on with the next iteration, as to the head.
  Restore<std::map<int, int>> keep_cold_tests(cold_tests_);
  bool falls_into_break = false;
  if (shape.cold_tail) {
    cold_tests_[body_end] = head;
    mark_consumed(body_end, shape.tail + 2);
    // (3.12: the test's way out jumps to a copy of the short exit block after the loop, placed
    // where the body ends: duplicate_exits_without_lineno's copy, reached from the test only.)
    const Operation& way_out = ops[static_cast<size_t>(shape.tail) + 1];
    if (way_out.op == Op::Jump && way_out.target != shape.exit &&
        !flow_.reachable[static_cast<size_t>(way_out.target)]) {
      if (int n = copied_block_length(way_out.target, shape.exit); n > 0)
        mark_consumed(way_out.target, way_out.target + n);
    }
    body_end = shape.exit;
    // (push_cold_blocks_to_end moved the test away: the body's next iteration jumps there, so an
    // operation that falls into the exit placed after the body is a `break` at the end of a
    // nested statement (a try body's, its NOP's line on the exit), not the body's end: read so
    // by the statement (end_with_fall_break), checked below.)
    falls_into_break = body_falls_into(shape.body, body_end);
  }
  // (A threaded exit is the enclosing loop's jump back: no else, and its breaks go there too.)
  int size = static_cast<int>(lifted_.ops.size());
  int loop_exit =
      shape.threaded ? shape.exit : loop_else_end(shape.body, body_end, shape.exit, size);
  // (A break threaded to the enclosing loop's next iteration: the else runs to the end of the
  // region, the enclosing body's end, not of the code.)
  if (!shape.threaded && loop_exit == size && end > shape.exit && end < size) loop_exit = end;
  if (falls_into_break && loop_exit != shape.exit) throw DecodeFailure("body falls into its exit");
  loops_.push_back({head, loop_exit});
  loops_.back().falls_into_break = falls_into_break;
  open_loop_entries_.push_back(shape.body);
  Body body = decode_range(shape.body, body_end, head);
  open_loop_entries_.pop_back();
  loops_.pop_back();
  if (falls_into_break && !ends_in_fall_break(body, 0))
    throw DecodeFailure("body falls into its exit");
  Body orelse = loop_exit > shape.exit ? decode_range(shape.exit, loop_exit, loop_exit) : Body{};
  emit(make_stmt(StmtKind::While, {test}, {std::move(body), std::move(orelse)}));
  return loop_exit;
}

// Whether `at` starts `__exit__(None, None, None)` and the POP_TOP of its result (3.11+).
bool is_exit_call(const std::vector<Operation>& ops, int at) {
  if (at < 0 || static_cast<size_t>(at) + 5 > ops.size()) return false;
  for (int k = 0; k < 3; ++k) {
    const Operation& load = ops[static_cast<size_t>(at + k)];
    if (load.op != Op::LoadConst || load.constant->kind != bytecode::ObjectKind::None) return false;
  }
  return ops[static_cast<size_t>(at) + 3].op == Op::Call &&
         ops[static_cast<size_t>(at) + 3].arg == 2 &&
         ops[static_cast<size_t>(at) + 4].op == Op::PopTop;
}

// Whether `at` starts 3.10's `__exit__(None, None, None)` (DUP_TOPs of one None, CALL_FUNCTION
// 3) and the POP_TOP of its result.
bool is_exit_call_310(const std::vector<Operation>& ops, int at) {
  if (at < 0 || static_cast<size_t>(at) + 5 > ops.size()) return false;
  const Operation& load = ops[static_cast<size_t>(at)];
  return load.op == Op::LoadConst && load.constant->kind == bytecode::ObjectKind::None &&
         ops[static_cast<size_t>(at) + 1].op == Op::Copy &&
         ops[static_cast<size_t>(at) + 2].op == Op::Copy &&
         ops[static_cast<size_t>(at) + 3].op == Op::Call &&
         ops[static_cast<size_t>(at) + 3].arg == 3 &&
         ops[static_cast<size_t>(at) + 4].op == Op::PopTop;
}

// Whether the return at `at`, after the exit calls of the with statements it leaves, is a
// written `return` (3.12+): the statement's NOP, with its own line, precedes those calls. Without
// it the return is a copy of the code after the statements, which the with statements fall into.
bool written_return_leaving_with(const std::vector<Operation>& ops, int at) {
  if (!is_exit_call(ops, at - 5)) return false;
  int k = at - 5;
  while (is_exit_call(ops, k - 5)) k -= 5;
  return ops[static_cast<size_t>(k)].nop_line >= 0;
}

// The call of a with statement's __exit__(None, None, None) on a normal, return, break or
// continue path. It leaves no source; the exit stays on the symbolic stack for the other paths.
int CodeDecoder::skip_with_exit_call(int i) {
  const auto& ops = lifted_.ops;
  if (profile_.with_exit_dups_none) {
    if (stack_.size() >= 1 && is_internal(top(), "with_exit") && is_exit_call_310(ops, i)) {
      bare_exit_depth_ = static_cast<int>(stack_.size());
      bare_exit_at_ = i;
      return i + 5;
    }
    if (stack_.size() >= 2 && is_internal(top(2), "with_exit") &&
        ops[static_cast<size_t>(i)].op == Op::Swap && is_exit_call_310(ops, i + 1)) {
      return i + 6;
    }
    return i;
  }
  if (stack_.size() >= 1 && is_internal(top(), "with_exit") && is_exit_call(ops, i)) {
    bare_exit_depth_ = static_cast<int>(stack_.size());
    bare_exit_at_ = i;
    return i + 5;
  }
  if (stack_.size() >= 2 && is_internal(top(2), "with_exit") &&
      ops[static_cast<size_t>(i)].op == Op::Swap && ops[static_cast<size_t>(i)].arg == 2 &&
      is_exit_call(ops, i + 1)) {
    return i + 6;
  }
  return i;
}

bool CodeDecoder::has_constant(bytecode::ObjectKind kind, bool unused_only) const {
  return std::any_of(code_.consts.begin(), code_.consts.end(), [&](const bytecode::ObjectRef& c) {
    return c->kind == kind &&
           (!unused_only || std::none_of(lifted_.ops.begin(), lifted_.ops.end(),
                                         [&](const Operation& op) { return op.constant == c; }));
  });
}

bool CodeDecoder::has_zero_constant() const {
  return std::any_of(code_.consts.begin(), code_.consts.end(), [](const bytecode::ObjectRef& c) {
    return c->kind == bytecode::ObjectKind::Int && c->int_decimal == "0";
  });
}

// The test of an assert that always fails. 3.10/3.11 keep the folded test's constant in
// co_consts (compiler_jump_if visits it, the optimizer folds the jump; keeps_folded_constants):
// `assert 0` leaves a 0 there, `assert False` a False. Where the code holds a 0 and no False,
// the source said 0 (both fail alike).
std::string CodeDecoder::assert_false_spelling() const {
  if (!profile_.keeps_folded_constants || has_constant(bytecode::ObjectKind::False, false) ||
      !has_zero_constant())
    return "False";
  return "0";
}

// 3.11 places an except clause's code, and its cleanup block, right after the try body: a
// `while True` whose last jump back is a clause's `continue` goes on past it with the rest of
// the try statement's handler code (covered by, or the target of, a handler whose covered range
// starts in the loop after its head), and the loop's exit, where the body's `break` jumps, is
// after that code.
int CodeDecoder::loop_handler_code_end(int head, int last_jump, int end) const {
  auto in_loop = [&](const HandlerRegion* region) {
    return region && region->start > head && region->start <= last_jump;
  };
  // (A cleanup block, `COPY 3; POP_EXCEPT; RERAISE 1`, is covered by nothing after its start.)
  bool straight = false;  // the previous operation, taken, goes on to this one
  int k = last_jump + 1;
  while (k < end) {
    int covering = flow_.handler_covering(k);
    if (!straight && !in_loop(flow_.region_for_target(k)) &&
        !(covering >= 0 && in_loop(flow_.region_for_target(covering))))
      break;
    Op op = lifted_.ops[static_cast<size_t>(k)].op;
    straight = op != Op::Reraise && op != Op::RaiseVarargs && op != Op::ReturnValue &&
               op != Op::ReturnConst && op != Op::Jump;
    ++k;
  }
  int code_end = straight ? last_jump + 1 : k;
  // (compiler_try_except places all of a try's handler code between its handler entry,
  // PUSH_EXC_INFO, and its cleanup block, `COPY 3; POP_EXCEPT; RERAISE 1`, the target of the
  // row covering that entry. A clause's way out after its body, `POP_EXCEPT; JUMP end`, is
  // covered by no row: where the last jump back is in a clause, the loop goes on to the
  // cleanup's end.)
  // (The try may start at the head: its handler, before the last jump back, is in the loop.)
  for (const HandlerRegion& region : flow_.regions) {
    if (region.start < head || region.target > last_jump ||
        lifted_.ops[static_cast<size_t>(region.target)].op != Op::PushExcInfo)
      continue;
    int cleanup = flow_.handler_covering(region.target);
    if (cleanup <= last_jump) continue;
    for (int r = cleanup; r < end; ++r) {
      if (lifted_.ops[static_cast<size_t>(r)].op != Op::Reraise) continue;
      code_end = std::max(code_end, r + 1);
      break;
    }
  }
  return code_end;
}

// The end of a `while True:` at `head` whose normal code (before [head, end)'s end) never jumps
// back to it: the first unconditional jump, return or raise that every forward jump before it
// stays within (its last statement, whose jump goes after the loop); -1 where there is none.
int CodeDecoder::cold_jump_back_loop_end(int head, int end, int exit) const {
  const auto& ops = lifted_.ops;
  int reach = head;  // the farthest forward jump target so far
  for (int k = head; k < end; ++k) {
    const Operation& op = ops[static_cast<size_t>(k)];
    bool forward = (op.op == Op::Jump || op.op == Op::JumpIf || op.op == Op::JumpIfOrPop ||
                    op.op == Op::ForIter) &&
                   op.target > k;
    if (forward && op.op != Op::Jump) reach = std::max(reach, op.target);
    bool exits = op.op == Op::Jump || op.op == Op::ReturnValue || op.op == Op::ReturnConst ||
                 op.op == Op::RaiseVarargs || op.op == Op::Reraise;
    if (exits && reach <= k + 1 && flow_.reachable[static_cast<size_t>(k)] &&
        (op.op != Op::Jump || op.target < head || op.target == k + 1 || op.target >= end))
      return k + 1;
    if (forward) reach = std::max(reach, op.target);
  }
  // (No way out before the region's end, and none past it: the body runs to the end of the
  // region, which goes on elsewhere. Its last statement was a `break` whose jump is the one
  // after the region, an if's jump over its else: the compiler threads the break to the if's
  // join (`if a: while True: try: ... except E: continue` + `break`, `else: ...`).)
  if (reach <= end && end > head && !same_target(exit, head) &&
      flow_.reachable[static_cast<size_t>(end) - 1] &&
      falls_through(ops[static_cast<size_t>(end) - 1].op))
    return end;
  return -1;
}

// 3.10: the RERAISE closing the except clauses of the outermost try in the loop whose handler
// code holds the loop's last jump back; -1 if none. compiler_try_except chains each clause's
// type test to the next clause's, the last one to that RERAISE: a test before the jump goes
// past it, and the chain from there ends at the RERAISE.
int CodeDecoder::loop_clauses_reraise(int head, int last_jump, int end) const {
  const auto& ops = lifted_.ops;
  auto test_target = [&](int k) {  // the target of the type test at k, or -1
    return ops[static_cast<size_t>(k)].op == Op::CheckExcMatch && k + 1 < end &&
                   ops[static_cast<size_t>(k) + 1].op == Op::JumpIf
               ? ops[static_cast<size_t>(k) + 1].target
               : -1;
  };
  int found = -1;
  for (int k = head; k + 1 < last_jump; ++k) {
    int next = test_target(k);
    while (next > last_jump && next < end) {
      const Operation& at = ops[static_cast<size_t>(next)];
      if (at.op == Op::Reraise && at.arg == 0) {
        found = std::max(found, next);
        break;
      }
      // (The next clause: its type expression, then its test.)
      int test = next;
      while (test < end && test < next + 32 &&
             ops[static_cast<size_t>(test)].op != Op::CheckExcMatch)
        ++test;
      if (test >= end || test_target(test) <= next) break;
      next = test_target(test);
    }
  }
  return found;
}

// A `while True:` whose body ends in a return or raise keeps no jump back at its end (the
// compiler drops the unreachable one: flowgraph.c's remove_unreachable, 3.10 compile.c's
// eliminate_unreachable): its last jump back, a `continue`, is not its end. Where a forward jump
// of the body before `exit` (past that jump back) goes past it, the body runs on to the first
// return or raise after which nothing jumps further (the least such body: the code past it is
// reached by the loop's breaks). `exit` where none jumps past it, or nothing closes them.
// Where the body falls off the region's end with no return or raise met, `end`: the loop ends
// the region, its last statement a `break` into the code after it, whose jump (to the next
// block) remove_redundant_jumps dropped (an if's join copied into the break: SharedMemory's
// `if a: ... else: while True: try: ... finally: ...` + `break`).
int CodeDecoder::body_past_last_jump_back(int head, int exit, int end) const {
  const auto& ops = lifted_.ops;
  auto forward = [&](int k) {
    const Operation& op = ops[static_cast<size_t>(k)];
    return (op.op == Op::Jump || op.op == Op::JumpIf || op.op == Op::JumpIfOrPop) && op.target > k
               ? op.target
               : -1;
  };
  // (Or a with or try statement open across that jump back: the body runs on, through the
  // code that statement falls into, to the first return or raise.)
  int reach = open_statement_end(head, exit, end);
  bool open = reach > exit;
  for (int k = head; k < exit; ++k) reach = std::max(reach, forward(k));
  // (Or one landing on it, an if's test over its `continue`, where no `break` ended the body:
  // compiler_break emits a NOP with its line before its jump, which remove_redundant_jumps
  // drops where the loop's exit follows; the NOP stays (remove_redundant_nops keeps one whose
  // line the next operation's is not), so code after the loop starts on it; a break's jump kept
  // (its line the NOP's) goes there too. The body then runs on, straight, to its return or
  // raise.)
  bool lands = exit > 0 && reach == exit && ops[static_cast<size_t>(exit)].nop_line < 0;
  for (int k = 0; lands && k < static_cast<int>(ops.size()); ++k) {
    const Operation& op = ops[static_cast<size_t>(k)];
    lands = op.target != exit ||
            (k >= head && k < exit && (op.op == Op::JumpIf || op.op == Op::JumpIfOrPop));
  }
  if (lands) ++reach;
  if (reach <= exit || exit <= 0 || falls_through(ops[static_cast<size_t>(exit) - 1].op))
    return exit;
  for (int k = exit; k < end; ++k) {
    if (k > reach && !((open || lands) && falls_through(ops[static_cast<size_t>(k) - 1].op))) break;
    const Operation& op = ops[static_cast<size_t>(k)];
    if (!flow_.reachable[static_cast<size_t>(k)] || op.op == Op::PushExcInfo) return exit;
    reach = std::max(reach, forward(k));
    bool leaves = op.op == Op::ReturnValue || op.op == Op::ReturnConst || op.op == Op::RaiseVarargs;
    if (leaves && reach <= k + 1) return k + 1;
    if (op.op == Op::Jump && op.target < k) return exit;
    if (k + 1 == end && reach <= end && profile_.cold_blocks_at_end && falls_through(op.op))
      return end;
  }
  return exit;
}

// 3.12+: where the last jump back `exit - 1` is a `continue` inside a with or try statement of
// the loop at `head` whose body goes on after it (`with x: if a: continue` + more of the body),
// the end of what that statement's handler covers past it (+1), else -1: the loop's body holds
// the whole statement. (compiler_while emits the body, then its jump back, which
// remove_unreachable drops where the body ends in a return or raise; the handler code is cold,
// after the function's code: push_cold_blocks_to_end.)
int CodeDecoder::open_statement_end(int head, int exit, int end) const {
  if (!profile_.cold_blocks_at_end || exit <= head) return -1;
  int outer = flow_.handler_covering(head);
  std::vector<int> open;
  for (int k = head; k < exit; ++k) {
    int h = flow_.handler_covering(k);
    if (h >= 0 && h != outer && flow_.reachable[static_cast<size_t>(k)]) open.push_back(h);
  }
  int last = -1;
  for (int k = exit; k < end; ++k) {
    int h = flow_.handler_covering(k);
    if (h >= 0 && flow_.reachable[static_cast<size_t>(k)] &&
        std::find(open.begin(), open.end(), h) != open.end())
      last = k + 1;
  }
  return last;
}

// Whether a reachable forward jump in [begin, last] goes to `target`, the operation after last,
// which returns or raises.
bool CodeDecoder::jumped_to_from(int begin, int last, int target) const {
  const auto& ops = lifted_.ops;
  Op op = ops[static_cast<size_t>(last)].op;
  if (target != last + 1 || (op != Op::RaiseVarargs && op != Op::Reraise && op != Op::ReturnValue &&
                             op != Op::ReturnConst))
    return false;
  return jumped_over_to(begin, target);
}

// Whether the code from `from` on, following jumps, falling through and entering handlers,
// ever runs an operation in [begin, end).
bool CodeDecoder::reaches_range(int from, int begin, int end) const {
  const auto& ops = lifted_.ops;
  int size = static_cast<int>(ops.size());
  std::vector<char> seen(ops.size(), 0);
  std::vector<int> work{from};
  while (!work.empty()) {
    int k = work.back();
    work.pop_back();
    if (k < 0 || k >= size || seen[static_cast<size_t>(k)]) continue;
    if (k >= begin && k < end) return true;
    seen[static_cast<size_t>(k)] = 1;
    const Operation& o = ops[static_cast<size_t>(k)];
    if (o.target >= 0) work.push_back(o.target);
    if (falls_through(o.op)) work.push_back(k + 1);
    work.push_back(flow_.handler_covering(k));
  }
  return false;
}

// 3.12+: the end of a `while True:` at `head` whose last jump back, `last_jump`, is cold
// (reached from handler code only: `try: ... except E: ... else: break`), where the body's
// `break` is the last statement of a try's else: compiler_break emits a NOP with its line,
// then the jump to the loop's exit block; push_cold_blocks_to_end moves the jump back after
// the function's code, so that exit block follows the NOP, and remove_redundant_jumps drops
// the jump. The first operation after such a NOP, falling in from it, whose code never runs
// the loop's again; -1 where there is none.
int CodeDecoder::cold_loop_break_exit(int head, int last_jump) const {
  const auto& ops = lifted_.ops;
  if (!profile_.cold_blocks_at_end || flow_.reachable[static_cast<size_t>(last_jump)] ||
      falls_through(ops[static_cast<size_t>(last_jump) - 1].op))
    return -1;
  // (The try ends the body: its clauses' ways out, `POP_EXCEPT` (and the unbinding of a clause's
  // name), jump to the jump back, and nothing else does.)
  for (int k = head; k < last_jump; ++k) {
    const Operation& o = ops[static_cast<size_t>(k)];
    if (o.target != last_jump) continue;
    int p = k >= 3 && unbinds_clause_name(ops, k - 3) ? k - 4 : k - 1;
    if (o.op != Op::Jump || p < 0 || ops[static_cast<size_t>(p)].op != Op::PopExcept) return -1;
  }
  // (Entered by falling from the operation before, or by a jump over it: an if's test ending
  // the else, `if x: raise`, jumps to the NOP.)
  for (int k = head + 1; k < last_jump; ++k) {
    const Operation& o = ops[static_cast<size_t>(k)];
    const Operation& before = ops[static_cast<size_t>(k) - 1];
    if (o.nop_line < 0 || !flow_.reachable[static_cast<size_t>(k)]) continue;
    bool falls = flow_.reachable[static_cast<size_t>(k) - 1] && falls_through(before.op) &&
                 !is_jump(before.op);
    if ((falls || jumped_over_to(head, k)) && !reaches_range(k, head, k)) return k;
  }
  return -1;
}

// Whether a reachable forward jump in [begin, target - 1) goes to `target`.
bool CodeDecoder::jumped_over_to(int begin, int target) const {
  for (int k = begin; k + 1 < target; ++k) {
    const Operation& o = lifted_.ops[static_cast<size_t>(k)];
    if (is_jump(o.op) && o.target == target && flow_.reachable[static_cast<size_t>(k)]) return true;
  }
  return false;
}

// Where the `while True:` at `head`, whose last jump back is `last_jump`, ends; `*ends_in_break`:
// reaching the body's end leaves the loop (a `break`).
int CodeDecoder::while_true_exit(int head, int last_jump, int end, bool* ends_in_break) const {
  if (int exit = cold_loop_break_exit(head, last_jump); exit > head && exit < end) {
    *ends_in_break = true;
    return exit;
  }
  int loop_exit = last_jump + 1;
  // (Then reaching the body's end leaves the loop: a `break`.)
  *ends_in_break =
      profile_.inline_handlers && loop_handler_code_end(head, last_jump, end) > loop_exit;
  if (*ends_in_break) loop_exit = loop_handler_code_end(head, last_jump, end);
  // (3.12+: a loop closed by handler code only, whose body falls off the region's end: see
  // cold_jump_back_loop_end.)
  if (profile_.cold_blocks_at_end && loop_exit == end &&
      falls_through(lifted_.ops[static_cast<size_t>(last_jump)].op))
    *ends_in_break = true;
  // (3.12+: or one ending in a return or raise whose body jumps to its end: the try's else
  // `break` falling into the code after the loop, its jump to the next block removed
  // (flowgraph.c's normalize_jumps/remove_redundant_jumps), a test jumping over a raise to it.)
  if (profile_.cold_blocks_at_end && !*ends_in_break && loop_exit <= end &&
      jumped_to_from(head, last_jump, loop_exit))
    *ends_in_break = true;
  // (3.10: the RERAISE closing the except clauses of a try in the body follows its last clause,
  // which ends with the jump back, a `continue`. Where the jump back is a `continue` in an
  // earlier clause, the later clauses follow it up to that RERAISE, and the body goes on after
  // it; a body that ends in `break` has no jump there: compiler_break's jump to the loop's exit
  // block, placed right after, is removed as a jump to the next block. The body's end is then
  // after the RERAISE, reaching it a `break`: what follows reads alike after the loop.)
  if (!*ends_in_break && loop_exit < end) {
    loop_exit = body_past_last_jump_back(head, loop_exit, end);
    // (Run to the region's end, falling off it: a `break`.)
    *ends_in_break =
        loop_exit == end && falls_through(lifted_.ops[static_cast<size_t>(end) - 1].op);
  }
  if (profile_.block_stack && !*ends_in_break) {
    int reraise = loop_clauses_reraise(head, last_jump, end);
    if (reraise == loop_exit) {
      ++loop_exit;
    } else if (reraise > loop_exit) {
      loop_exit = reraise + 1;
      *ends_in_break = true;
    }
  }
  return loop_exit;
}

// 3.12+ places the code after the loop, reached only by breaks from except clauses, after
// their handler code (cold blocks, after the loop's jump back): the breaks are the jumps from
// the handler code of a try in the loop forward past its cleanup, all to the same place. Where
// they go, or `break_target`.
int CodeDecoder::cold_break_target(int head, int loop_exit, int end, int region_exit,
                                   int break_target) const {
  int found = -1;
  bool same = true;
  for (int target : handler_exits(head, loop_exit)) {
    if (target < loop_exit) continue;
    same &= found < 0 || target == found;
    found = target;
  }
  if (found >= 0 && same && (found <= end || resolve(found) == resolve(region_exit))) return found;
  return break_target;
}

// 3.12+: a `while True:` left only by breaks from except clauses, the code after it going on
// past it (an enclosing if's join, the enclosing loop's next iteration): that code is reached
// from the clauses only, so push_cold_blocks_to_end (flowgraph.c) placed it after their handler
// code, its fall into what follows the loop made a jump back there. Where all the breaks go to
// such code (its handler the loop's jump back's), its start, `*jump` its jump back; else -1.
int CodeDecoder::cold_code_after_loop(int head, int last_jump, int loop_exit, int end,
                                      int region_exit, int* jump) const {
  const auto& ops = lifted_.ops;
  int size = static_cast<int>(ops.size());
  int start = -1;
  int breaks = 0;
  for (int target : handler_exits(head, loop_exit)) {
    if (start >= 0 && target != start) return -1;
    start = target;
    ++breaks;
  }
  if (!profile_.cold_blocks_at_end || start < end || start >= size ||
      falls_through(ops[static_cast<size_t>(start) - 1].op))
    return -1;
  // (Its end: the first way out that every forward jump before it stays within.)
  int reach = start;
  int k = start;
  for (; k < size; ++k) {
    const Operation& o = ops[static_cast<size_t>(k)];
    if (flow_.handler_covering(k) != flow_.handler_covering(last_jump)) return -1;
    if (!falls_through(o.op) && reach <= k) break;
    if (is_jump(o.op) && o.target > k) reach = std::max(reach, o.target);
  }
  if (k == size || ops[static_cast<size_t>(k)].op != Op::Jump) return -1;
  int goes_on = ops[static_cast<size_t>(k)].target;
  if (goes_on != loop_exit && !(loop_exit == end && same_target(goes_on, region_exit))) return -1;
  // (Nothing else enters it.)
  for (int m = 0; m < size; ++m) {
    int t = ops[static_cast<size_t>(m)].target;
    if ((m < start || m > k) && t >= start && t <= k && --breaks < 0) return -1;
  }
  *jump = k;
  return breaks == 0 ? start : -1;
}

// 3.12+: a loop ending the body of a with statement, left only by breaks from except clauses:
// the code after the loop (the with's exit call, then where the with goes on) is reached from
// those clauses only, so push_cold_blocks_to_end (flowgraph.c) placed it after their handler
// code, as for a with ending the body (enclosing_with_exit_end). Where all the breaks go there,
// that code is read here and its start is where breaks go; else `end`.
int CodeDecoder::cold_with_exit_break(int head, int last_jump, int end) {
  int found = -1;
  for (int target : handler_exits(head, end)) {
    if (target < end) continue;
    if (found >= 0 && target != found) return end;
    found = target;
  }
  int cold_end = found < 0 ? -1 : enclosing_with_exit_end(last_jump, found, end);
  if (cold_end < 0) return end;
  mark_consumed(found, cold_end);
  return found;
}

// Whether the block popped at `p` (POP_EXCEPT, or POP_BLOCK) in the loop from `head` ends an
// except clause or a try/except's body (3.10).
bool CodeDecoder::leaves_try_except(int head, int p) const {
  const auto& ops = lifted_.ops;
  int size = static_cast<int>(ops.size());
  if (ops[static_cast<size_t>(p)].op != Op::PopExcept &&
      ops[static_cast<size_t>(p)].op != Op::PopBlock)
    return false;
  if (ops[static_cast<size_t>(p)].op != Op::PopBlock) return true;
  // (Only a try/except's block: its handler tests or pops the exception.)
  int setup = p - 1;
  while (setup > head && !(ops[static_cast<size_t>(setup)].op == Op::SetupFinally &&
                           ops[static_cast<size_t>(setup)].target > p))
    --setup;
  if (ops[static_cast<size_t>(setup)].op != Op::SetupFinally) return false;
  int handler = ops[static_cast<size_t>(setup)].target;
  return handler + 3 < size && ((ops[static_cast<size_t>(handler)].op == Op::Copy &&
                                 ops[static_cast<size_t>(handler)].arg == 1) ||
                                (ops[static_cast<size_t>(handler)].op == Op::PopTop &&
                                 ops[static_cast<size_t>(handler) + 1].op == Op::PopTop &&
                                 ops[static_cast<size_t>(handler) + 2].op == Op::PopTop));
}

// 3.10: an except clause's break jumps to the code after the loop; where that is a short exit
// block (return or raise), the jump became a copy of it after the clause's POP_EXCEPT (a
// return of the clause's own loads its value before POP_EXCEPT; `return K` reads alike). The
// original stays after the loop where something else reaches it; else nothing follows the
// loop in the region, and the copy is the code after the loop: `*clause_tail` (-1 where an
// original is kept), of `*clause_tail_length` operations. The copies go to clause_breaks_.
void CodeDecoder::note_clause_break_copies(int head, int last_jump, int loop_exit, int end,
                                           int region_exit, int* clause_tail,
                                           int* clause_tail_length) {
  const auto& ops = lifted_.ops;
  int size = static_cast<int>(ops.size());
  for (int p = head; p < last_jump; ++p) {
    // (A break out of a try body: POP_BLOCK, then the copy; a return of the body's own
    // computes its value first.)
    if (!leaves_try_except(head, p)) continue;
    int s = p + 1;
    if (s + 3 < size && unbinds_clause_name(ops, s)) s += 3;
    if (s >= last_jump) continue;
    Op first = ops[static_cast<size_t>(s)].op;
    if (first != Op::LoadName && first != Op::LoadConst && first != Op::PushNull) continue;
    int length = 0;
    for (int c = s; c < s + 4 && c < last_jump; ++c) {
      Op op = ops[static_cast<size_t>(c)].op;
      if (op == Op::ReturnValue || op == Op::RaiseVarargs) {
        bool constant = c == s + 1 && first == Op::LoadConst && op == Op::ReturnValue;
        if (!constant) length = c - s + 1;
        break;
      }
      if (is_jump(op) || op == Op::PopTop || op == Op::PopBlock || op == Op::PopExcept ||
          op == Op::Swap || op == Op::Rotate || op == Op::Reraise || op == Op::SetupFinally ||
          op == Op::SetupWith)
        break;
    }
    if (length == 0) continue;
    bool kept =
        loop_exit + length <= size && loop_exit < end && same_operations(ops, s, loop_exit, length);
    bool absent = loop_exit >= end && same_target(end, region_exit);
    if (!kept && !absent) continue;
    if (!kept) {
      if (*clause_tail >= 0 &&
          (length != *clause_tail_length || !same_operations(ops, s, *clause_tail, length)))
        continue;
      *clause_tail = s;
      *clause_tail_length = length;
    }
    clause_breaks_[s] = {head, length};
  }
}

// Whether `while True` at `head` was written `while True` rather than `while 1`.
bool CodeDecoder::while_true_spelled_true(int head) const {
  // 3.10 and 3.11 keep the folded test's constant in co_consts: True for `while True`, 1 for
  // `while 1` (CPython's own library has both).
  bool has_one = std::any_of(code_.consts.begin(), code_.consts.end(), [](const auto& c) {
    return c->kind == bytecode::ObjectKind::Int && c->int_decimal == "1";
  });
  bool spelled_true = !profile_.keeps_folded_constants ||
                      has_constant(bytecode::ObjectKind::True, false) || !has_one;
  // The folded test's constant was added to co_consts when the compiler reached the loop: after
  // the constants of the code before it. An unused True or 1 placed there tells the spelling.
  if (profile_.keeps_folded_constants) {
    auto unused_after = [&](size_t index) {
      const auto& c = code_.consts[index];
      return std::none_of(lifted_.ops.begin(), lifted_.ops.end(),
                          [&](const Operation& op) { return op.constant == c; });
    };
    size_t before = 0;
    for (int k = 0; k < head; ++k) {
      const auto& c = lifted_.ops[static_cast<size_t>(k)].constant;
      if (!c) continue;
      for (size_t index = 0; index < code_.consts.size(); ++index)
        if (code_.consts[index] == c) before = std::max(before, index);
    }
    for (size_t index = before + 1; index < code_.consts.size(); ++index) {
      const auto& c = code_.consts[index];
      bool is_true = c->kind == bytecode::ObjectKind::True;
      bool is_one = c->kind == bytecode::ObjectKind::Int && c->int_decimal == "1";
      if ((is_true || is_one) && unused_after(index)) {
        spelled_true = is_true;
        break;
      }
    }
  }
  return spelled_true;
}

namespace {

// Whether the body `b` never falls off its end: it ends in a break, continue, return or raise,
// or in an if/else whose branches both do.
bool ends_in_jump(const Body& b, int depth) {
  if (b.empty() || depth > 50) return false;
  const Stmt& last = *b.back();
  if (last.kind == StmtKind::Break || last.kind == StmtKind::Continue ||
      last.kind == StmtKind::Return || last.kind == StmtKind::Raise)
    return true;
  return last.kind == StmtKind::If && last.bodies.size() == 2 &&
         ends_in_jump(last.bodies[0], depth + 1) && ends_in_jump(last.bodies[1], depth + 1);
}

bool if_else_break(const StmtPtr& s) {  // `if x: A else: break`, A not empty
  return s->kind == StmtKind::If && s->exprs.size() == 1 && s->bodies.size() == 2 &&
         !s->bodies[0].empty() && s->bodies[1].size() == 1 &&
         s->bodies[1][0]->kind == StmtKind::Break;
}

}  // namespace

// Whether the loop at `head`, whose last jump back is `last_jump`, is a `while True:` by the NOP
// that compiler_while leaves of its folded test just before the body, with the line of
// the bottom jump back (lift drops it, the head keeps its line): never a `while test:` whose
// body never falls off its end, whose head is its test and whose jumps back are `continue`s.
bool CodeDecoder::while_true_written(int head, int last_jump) const {
  const auto& ops = lifted_.ops;
  int nop_line = ops[static_cast<size_t>(head)].nop_line;
  return profile_.while_true_leaves_nop && nop_line >= 0 &&
         nop_line == ops[static_cast<size_t>(last_jump)].line;
}

// `if x: A else: break` read by if_continue_then_break where the test jumps straight to the
// loop's exit (no `break` of its own there: compiler_break's jump has the break's line, which
// jump_thread does not thread a test through) is `if x: A; continue`, the `break` after it. An
// A ending in such an if of its own (`if x: B; if y: C; continue`, then `break`) jumps to that
// exit too: the inner if is turned back, and A falls into the `break` after the outer one.
void CodeDecoder::turn_back_written_continue(const StmtPtr& s) {
  const StmtPtr& inner = s->bodies[0].back();
  if (if_else_break(inner) && written_continues_.count(inner)) {
    turn_back_written_continue(inner);
  } else {
    s->bodies[0].push_back(make_stmt(StmtKind::Continue));
  }
  s->bodies[1].clear();
}

// Emits the `while True:` (or `while 1:`) loop whose body is `body`, or the `while test:` it
// reads as (not where the loop is `written` `while True:`).
void CodeDecoder::emit_while_true(Body body, bool ends_in_break, bool spelled_true, bool written) {
  // `while test: B` whose body never falls off its end has no copy of the test at the bottom:
  // it reads as `while True: if test: B else: break` (3.10/3.11 would keep an unused True).
  // Where B falls off its end it went back to the test: a written `continue`.
  if (ends_in_break && !ends_in_jump(body, 0)) body.push_back(make_stmt(StmtKind::Break));
  if (!written && body.size() == 1 && if_else_break(body[0]) &&
      !(profile_.keeps_folded_constants && has_constant(bytecode::ObjectKind::True, true))) {
    StmtPtr test = body[0];
    Body loop_body = std::move(test->bodies[0]);
    // (`if x: A else: break` ending B was `if x: A; continue` then `break`.)
    StmtPtr& last = loop_body.back();
    if (if_else_break(last)) {
      if (!ends_in_jump(last->bodies[0], 0))
        last->bodies[0].push_back(make_stmt(StmtKind::Continue));
      last->bodies[1].clear();
      loop_body.push_back(make_stmt(StmtKind::Break));
    } else if (!ends_in_jump(loop_body, 0)) {
      loop_body.push_back(make_stmt(StmtKind::Continue));
    }
    emit(make_stmt(StmtKind::While, {test->exprs[0]}, {std::move(loop_body), {}}));
    return;
  }
  if (!body.empty() && if_else_break(body.back()) && written_continues_.count(body.back())) {
    turn_back_written_continue(body.back());
    body.push_back(make_stmt(StmtKind::Break));
  }
  emit(make_stmt(StmtKind::While, {make_constant(spelled_true ? "True" : "1")},
                 {std::move(body), {}}));
}

int CodeDecoder::decode_while_true(int head, int last_jump, int end, int region_exit) {
  bool ends_in_break = false;
  int loop_exit = while_true_exit(head, last_jump, end, &ends_in_break);
  // (The cold jump back past the code after the loop ends the body: the clauses' way on. The
  // body falls into the loop's exit through a nested statement's `break`: end_with_fall_break.)
  bool cold_exit = loop_exit < last_jump && cold_loop_break_exit(head, last_jump) == loop_exit;
  if (cold_exit) {
    mark_consumed(last_jump, last_jump + 1);
    ends_in_break = false;
  }
  bool past = loop_exit == end && breaks_past_region(head, loop_exit, end, region_exit);
  // (A loop ending a then-branch whose else follows: its breaks go to the join, where the
  // region goes, not into the else; see if_else_loop_break_copies.)
  past = past || (loop_exit == end && region_exit > end);
  int break_target = past ? region_exit : loop_exit;
  const auto& ops = lifted_.ops;
  if (!past && profile_.cold_blocks_at_end && static_cast<size_t>(loop_exit) < ops.size() &&
      !flow_.reachable[static_cast<size_t>(loop_exit)])
    break_target = cold_break_target(head, loop_exit, end, region_exit, break_target);
  if (!past && profile_.cold_blocks_at_end && break_target == end)
    break_target = cold_with_exit_break(head, last_jump, end);
  int cold_jump = -1;  // the jump back ending the code after the loop, placed cold
  int cold_after =
      past || cold_exit || ends_in_break
          ? -1
          : cold_code_after_loop(head, last_jump, loop_exit, end, region_exit, &cold_jump);
  if (cold_after >= 0) break_target = cold_after;
  int clause_tail = -1;  // the copy read as the code after the loop, where no original is kept
  int clause_tail_length = 0;
  if (profile_.block_stack && !past)
    note_clause_break_copies(head, last_jump, loop_exit, end, region_exit, &clause_tail,
                             &clause_tail_length);
  // (Read before the loop's clauses consume the copy.)
  Body after_loop;
  if (clause_tail >= 0)
    after_loop = decode_range(clause_tail, clause_tail + clause_tail_length,
                              clause_tail + clause_tail_length);
  Restore<int> keep_breaks_read(clause_breaks_read_);
  clause_breaks_read_ = 0;
  Restore<int> keep_tail(clause_break_tail_);
  Restore<int> keep_tail_length(clause_break_tail_length_);
  clause_break_tail_ = -1;
  loops_.push_back({head, break_target, last_jump});
  loops_.back().falls_into_break = cold_exit;
  loops_.back().clauses_jump_back = cold_exit;
  open_loop_entries_.push_back(head);
  Body body = decode_range(head, loop_exit, ends_in_break ? loop_exit : head);
  open_loop_entries_.pop_back();
  loops_.pop_back();
  if (cold_exit && !ends_in_fall_break(body, 0)) throw DecodeFailure("body falls into its exit");
  if (clause_breaks_read_ == 0) after_loop.clear();
  // (A break copy at the head would read the loop again.)
  if (clause_break_tail_ == head) throw DecodeFailure("break copy at the loop's head");
  if (clause_break_tail_ >= 0 && after_loop.empty()) {
    // (The try statement marked its handler code read: the copy is read again.)
    int tail_end = clause_break_tail_ + clause_break_tail_length_;
    auto first = consumed_.begin() + clause_break_tail_;
    std::vector<bool> kept(first, consumed_.begin() + tail_end);
    std::fill(first, consumed_.begin() + tail_end, false);
    after_loop = decode_range(clause_break_tail_, tail_end, tail_end);
    std::copy(kept.begin(), kept.end(), consumed_.begin() + clause_break_tail_);
  }
  if (cold_after >= 0) {
    after_loop = decode_range(cold_after, cold_jump, cold_jump);
    mark_consumed(cold_after, cold_jump + 1);
  }
  emit_while_true(std::move(body), ends_in_break, while_true_spelled_true(head),
                  while_true_written(head, last_jump));
  for (StmtPtr& s : after_loop) emit(s);
  return loop_exit;
}

// Whether a jump of the loop body [begin, body_end) goes past the end of the region the loop
// ends, straight to where that region goes when it ends (a break jumping over the else of an if
// whose then-branch ends with the loop; or, where the region goes on at its end, through a jump
// there, the break that jump threading (flowgraph.c's jump_thread) sent on to its target).
bool CodeDecoder::breaks_past_region(int begin, int body_end, int end, int region_exit) const {
  if (region_exit < end) return false;
  auto past = [&](int target) { return target > end && resolve(target) == resolve(region_exit); };
  for (int k = begin; k < body_end; ++k) {
    const Operation& op = lifted_.ops[static_cast<size_t>(k)];
    if (op.op == Op::Jump && past(op.target)) return true;
  }
  // (3.12+: or an except clause's `break`, placed after the function's code with the handler
  // code (flowgraph.c's push_cold_blocks_to_end), whose jump to the block after the loop, the
  // if's jump over its else, was threaded to the join (jump threading in optimize_basic_block;
  // the if's jump itself is gone where the loop never falls off its end: remove_unreachable).)
  if (profile_.cold_blocks_at_end) {
    for (int target : handler_exits(begin, body_end))
      if (past(target)) return true;
  }
  return false;
}

// Where the jumps out of the handler code of the try statements that start in [begin, end) go,
// where that code was placed after `end` (3.12+ places handlers after the function's code):
// back into the code before it, or past its cleanup block.
std::vector<int> CodeDecoder::handler_exits(int begin, int end) const {
  const auto& ops = lifted_.ops;
  std::vector<int> targets;
  for (const HandlerRegion& region : flow_.regions) {
    if (region.start < begin || region.start >= end || region.target < end ||
        ops[static_cast<size_t>(region.target)].op != Op::PushExcInfo)
      continue;
    int cleanup = flow_.handler_covering(region.target);
    for (int k = region.target; k < cleanup; ++k) {
      const Operation& o = ops[static_cast<size_t>(k)];
      if (o.op == Op::Jump && (o.target < region.target || o.target >= cleanup + 3))
        targets.push_back(o.target);
    }
  }
  return targets;
}

// Where a loop's `else` ends: the farthest forward jump out of the body (a `break`), if beyond
// the natural exit.
int CodeDecoder::loop_else_end(int body_begin, int body_end, int exit, int end) const {
  int farthest = exit;
  int outer_continue = loops_.empty() ? -1 : loops_.back().continue_target;
  auto jumps_to = [&](int target) {
    // (Not one going where the exit goes: a loop ending an if's then-branch exits through the
    // jump over the else, to which its breaks were threaded.)
    if (target > farthest && target <= end && resolve(target) != resolve(exit)) farthest = target;
    // A break whose jump was threaded to the enclosing loop's next iteration: the loop (with
    // its else) runs to the end of the enclosing body.
    if (outer_continue >= 0 && target < body_begin && same_target(target, outer_continue) &&
        end > farthest) {
      farthest = end;
    }
  };
  for (int k = body_begin; k < body_end; ++k) {
    const Operation& op = lifted_.ops[static_cast<size_t>(k)];
    if (op.op == Op::Jump) jumps_to(op.target);
  }
  // 3.12+: an except clause's `break` lies with the handler code after the function's code
  // (flowgraph.c's push_cold_blocks_to_end), its jump threaded as the body's are: one back into
  // the code before that handler code (a jump to cold code after it is the clause's way on to
  // a test or statement placed there, no break).
  if (profile_.cold_blocks_at_end) {
    for (const HandlerRegion& region : flow_.regions) {
      if (region.start < body_begin || region.start >= body_end || region.target < body_end)
        continue;
      for (int target : handler_exits(region.start, region.start + 1))
        if (target < region.target) jumps_to(target);
    }
  }
  return farthest;
}

// Where the for loop at `i` exits (FOR_ITER's target). The loop ends its region and its exit is
// a copy of the `return` after it, placed out of line: the loop ends where its region does.
int CodeDecoder::for_exit(int i, int end) {
  const auto& ops = lifted_.ops;
  int exit = ops[static_cast<size_t>(i)].target;
  int last = flow_.last_backward_source[static_cast<size_t>(i)];
  int size = static_cast<int>(ops.size());
  // (3.11: the handler code of a try ending the body may follow the last jump back.)
  int body_end =
      last > i && profile_.inline_handlers ? loop_handler_code_end(i, last, end) : last + 1;
  if (exit > end && last > i && body_end == end && exit < size) {
    const Operation& first = ops[static_cast<size_t>(exit)];
    int length = first.op == Op::ReturnConst ? 1
                 : first.op == Op::LoadConst && exit + 1 < size &&
                         ops[static_cast<size_t>(exit) + 1].op == Op::ReturnValue
                     ? 2
                     : 0;
    if (length > 0) {
      mark_consumed(exit, exit + length);
      exit = end;
    }
  }
  return exit;
}

// 3.12+: the copy keeps the original's lines; past an else, the original follows the else
// (which nothing jumps over, up to it). Where a break's copy (after its POP_TOP) in the body of
// the for loop at `i` has its original after `after`, that original; else -1.
int CodeDecoder::break_copy_line_original(int i, int exit, int after, int end) const {
  const auto& ops = lifted_.ops;
  int break_tail = -1;
  for (int k = i + 1; k + 1 < exit && break_tail < 0; ++k) {
    int length = ops[static_cast<size_t>(k)].op == Op::PopTop && !pops_under_return_value(k)
                     ? copied_tail_length(k + 1)
                     : 0;
    if (length == 0 || k + 1 + length > exit) continue;
    for (int at = after + 1; at <= end && at + length <= static_cast<int>(ops.size()); ++at) {
      const Operation& o = ops[static_cast<size_t>(at) - 1];
      if (o.op == Op::PushExcInfo || (is_jump(o.op) && o.target > at && o.target <= end)) break;
      if (is_line_copy(ops, k + 1, at, length)) {
        break_tail = at;
        break;
      }
    }
  }
  return break_tail;
}

// 3.10, 3.12+: a loop whose else cannot fall off its end (it returns or raises), and whose breaks
// go to a short exit block (return or raise) after it: each break pops the iterator and runs a copy
// of that block, and nothing keeps the original. The else runs to the region's end, the copy is the
// code after the loop. (A return of the loop's own computes its value before popping the iterator;
// its own raise leaves the iterator; `return K` reads alike.) Sets shape.break_tail (the first
// break's copy of the code after the loop) and its length.
void CodeDecoder::read_break_tail_copy(int i, int end, ForShape& shape) const {
  const auto& ops = lifted_.ops;
  int exit = shape.exit;
  bool else_leaves = false;
  for (int j = shape.after; j < end; ++j) {
    const Operation& op = ops[static_cast<size_t>(j)];
    else_leaves |= is_jump(op.op) && (op.target >= end || op.target < shape.after);
  }
  // (Not with a with statement in the body: the copy after its exit call was read as the
  // break's while the loop's own exit stayed the else, dropping the code after the loop.)
  for (int k = i + 1; k < exit && !else_leaves; ++k) {
    Op op = ops[static_cast<size_t>(k)].op;
    else_leaves = op == Op::SetupWith || op == Op::SetupAsyncWith || op == Op::BeforeWith ||
                  op == Op::BeforeAsyncWith;
  }
  for (int k = i + 1; k + 2 < exit && !else_leaves && shape.break_tail < 0; ++k) {
    if (ops[static_cast<size_t>(k)].op != Op::PopTop) continue;
    Op first = ops[static_cast<size_t>(k) + 1].op;
    if (first != Op::LoadName && first != Op::LoadConst && first != Op::PushNull) continue;
    for (int c = k + 1; c < k + 5 && c < exit; ++c) {
      Op op = ops[static_cast<size_t>(c)].op;
      // (3.12+ `return K` is RETURN_CONST: a copy holding statements before it is a break's,
      // the loop's own return pops the iterator right before it.)
      if (op == Op::ReturnValue || op == Op::RaiseVarargs || op == Op::ReturnConst) {
        bool constant = c == k + 2 && first == Op::LoadConst && op == Op::ReturnValue;
        // (Not a return's unwinding of a try or with around it: what follows its POP_TOP, the
        // finally or exit code, lies outside that statement's handler.)
        bool same_handler = true;
        for (int q = k + 1; q <= c; ++q)
          same_handler &= flow_.handler_covering(q) == flow_.handler_covering(k);
        if (!constant && c > k + 1 && same_handler) {
          shape.break_tail = k + 1;
          shape.break_tail_length = c - k;
        }
        break;
      }
      if (op == Op::Swap || op == Op::PopTop || op == Op::PopBlock || op == Op::PopExcept ||
          is_jump(op) || op == Op::Reraise || op == Op::SetupFinally || op == Op::SetupWith)
        break;
    }
  }
}

// 3.12+ `async for` whose exit (END_ASYNC_FOR, a handler) was placed out of line, after the
// code that follows the loop: there the else runs and jumps back to that code.
void CodeDecoder::read_out_of_line_async_else(int i, ForShape& shape) {
  const auto& ops = lifted_.ops;
  int tail = flow_.last_backward_source[static_cast<size_t>(i)];
  int live = tail + 1;  // the first operation after the body not decoded elsewhere
  while (tail > i && live < shape.exit && consumed_[static_cast<size_t>(live)]) ++live;
  if (ops[static_cast<size_t>(i)].text != "async" || tail <= i || shape.exit <= live) return;
  int back = shape.after;
  int copy = -1;  // where a copy of the code after the loop stands in for the jump back
  while (back < static_cast<int>(ops.size()) &&
         !(ops[static_cast<size_t>(back)].op == Op::Jump &&
           resolve(ops[static_cast<size_t>(back)].target) == resolve(tail + 1))) {
    if (ops[static_cast<size_t>(back)].op == Op::ReturnValue ||
        ops[static_cast<size_t>(back)].op == Op::ReturnConst ||
        ops[static_cast<size_t>(back)].op == Op::Reraise) {
      // That code, short and ending in a return, copied in place of the jump back
      // (inline_small_or_no_lineno_blocks): the else ends where the copy starts.
      int length = copied_tail_length(tail + 1);
      copy = back + 1 - length;
      if (length == 0 || copy < shape.after || !same_operations(ops, copy, tail + 1, length))
        throw DecodeFailure("async for exit without its jump back");
      break;
    }
    ++back;
  }
  if (back >= static_cast<int>(ops.size()))
    throw DecodeFailure("async for exit without its jump back");
  mark_consumed(shape.exit, back + 1);
  // The else's jump back to the code after the loop does not make that code a loop.
  int& source = flow_.last_backward_source[static_cast<size_t>(tail + 1)];
  if (source == back) {
    source = -1;
    for (int k = tail + 1; k < static_cast<int>(ops.size()); ++k) {
      const Operation& o = ops[static_cast<size_t>(k)];
      if (k != back && flow_.reachable[static_cast<size_t>(k)] && o.target == tail + 1 &&
          (o.op == Op::Jump || o.op == Op::JumpIf)) {
        source = k;
      }
    }
  }
  shape.out_of_line = true;
  shape.else_end = copy >= 0 ? copy : back;
  shape.exit = tail + 1;
  shape.loop_exit = tail + 1;
  shape.break_target = shape.loop_exit;
}

// The layout of the for loop at `i`: its exit, its else, where its breaks go.
CodeDecoder::ForShape CodeDecoder::for_shape(int i, int end, int region_exit) {
  const auto& ops = lifted_.ops;
  ForShape shape;
  shape.exit = for_exit(i, end);
  int after = shape.exit;
  if (after < static_cast<int>(ops.size()) && ops[static_cast<size_t>(after)].op == Op::EndFor)
    ++after;
  shape.after = after;
  int loop_exit = loop_else_end(i + 1, shape.exit, after, end);
  // A `break` whose code after the loop is short and returns pops the iterator and runs a copy
  // of that code: where no break jump shows the else, the original's place ends it.
  bool else_by_jumps = loop_exit != after;
  if (!else_by_jumps) loop_exit = copied_break_target(i, after, end, region_exit);
  if (!else_by_jumps && loop_exit == after && profile_.exit_copies_keep_lines &&
      after > shape.exit) {
    if (int original = break_copy_line_original(i, shape.exit, after, end); original >= 0)
      loop_exit = original;
  }
  if (profile_.inlines_small_exit_blocks && !else_by_jumps && loop_exit == after && after < end &&
      end > i &&
      (ops[static_cast<size_t>(end) - 1].op == Op::ReturnValue ||
       ops[static_cast<size_t>(end) - 1].op == Op::ReturnConst ||
       ops[static_cast<size_t>(end) - 1].op == Op::RaiseVarargs)) {
    read_break_tail_copy(i, end, shape);
    if (shape.break_tail >= 0) loop_exit = end;
  }
  shape.after_else = else_by_jumps ? -1 : loop_exit;  // where the breaks' copies come from
  // A break jumping past the region's end, straight to where the region goes when it ends: the
  // loop (with its else, which cannot fall off its end there) runs to the region's end, and its
  // breaks go to that exit (an if's then-branch ending in a loop whose else raises, the break
  // jumping over the if's else).
  shape.break_target = loop_exit;
  if (breaks_past_region(i + 1, shape.exit, end, region_exit)) {
    loop_exit = end;
    shape.break_target = region_exit;
  }
  shape.loop_exit = loop_exit;
  shape.else_begin = after;  // out of line, where the else begins
  shape.else_end = loop_exit;
  read_out_of_line_async_else(i, shape);
  return shape;
}

// The body of the for loop at `i` over `iter`, its target stored in `*target`.
Body CodeDecoder::decode_for_body(int i, const ExprPtr& iter, const ForShape& shape, int end,
                                  int region_exit, ExprPtr* target) {
  const auto& ops = lifted_.ops;
  push(iter);
  push(make_expr(ExprKind::Internal, {}, "loop_target"));
  size_t depth = statement_depth_;
  statement_depth_ = stack_.size() - 1;
  ExprPtr saved_target = captured_target_;
  captured_target_ = nullptr;
  int back_jump = shape.exit - 1;
  if (ops[static_cast<size_t>(back_jump)].op != Op::Jump ||
      ops[static_cast<size_t>(back_jump)].target != i)
    back_jump = -1;
  int lands = shape.loop_exit < end ? shape.loop_exit : region_exit;
  bool breaks_thread =
      loops_.empty() || lands < 0 || same_target(lands, loops_.back().continue_target);
  loops_.push_back({i, shape.break_target, back_jump, breaks_thread});
  loops_.back().body_end = shape.exit;
  threaded_breaks_ = 0;
  Body body = decode_range(i + 1, shape.exit, i);
  loops_.pop_back();
  *target = captured_target_;
  captured_target_ = saved_target;
  statement_depth_ = depth;
  pop();  // the target placeholder
  pop();  // the iterator
  if (!*target) throw DecodeFailure("for loop without a target");
  return body;
}

// Whether the for loop's else part is only the enclosing loop's own jump back, starting no line
// entry: falling off the loop reaches it (compiler_for's jump back has no location; a written
// `else: continue` starts a line of its own). 3.12 enum's `_find_data_type_`.
bool CodeDecoder::else_is_outer_jump_back(const ForShape& shape) const {
  if (loops_.empty() || shape.loop_exit != shape.after + 1) return false;
  const LoopContext& outer = loops_.back();
  const Operation& jump = lifted_.ops[static_cast<size_t>(shape.after)];
  return outer.body_end >= 0 && shape.after == outer.back_jump && jump.op == Op::Jump &&
         jump.line < 0 && !starts_line_on_prefix(shape.after);
}

// After the for loop `stmt` (and the code after it, read from a break's copy): breaks threaded to
// the enclosing loop's next iteration land there only where the loop's end never falls through
// (its else ends in a `continue`, `break`, return or raise): then a `continue` follows the loop.
void CodeDecoder::close_for(const Stmt& stmt, bool after_loop, int threaded_breaks, int loop_exit,
                            int end) {
  if (threaded_breaks > 0) {
    const Body& tail = stmt.bodies[1];
    if (!ends_in_jump(tail, 0) || after_loop)
      throw DecodeFailure("break threaded past the code after its loop");
    emit(make_stmt(StmtKind::Continue));
  } else if (loop_exit == end && !after_loop && !loops_.empty() &&
             same_target(end, loops_.back().break_target) &&
             !same_target(end, loops_.back().continue_target)) {
    // Breaks landing at the region's end, which is the enclosing loop's exit: the code after
    // this loop is a `break` of that loop, whose jump the compiler threaded there (3.11,
    // `while True: for ...: ... else: ... continue` then `break`).
    emit(make_stmt(StmtKind::Break));
  }
}

int CodeDecoder::decode_for(int i, int end, int region_exit) {
  const auto& ops = lifted_.ops;
  ExprPtr iter = pop();
  if (!is_internal(iter, "iter") && !(iter->kind == ExprKind::Name && iter->text == ".0")) {
    throw DecodeFailure("for loop over a non-iterator");
  }
  ForShape shape = for_shape(i, end, region_exit);
  if (shape.break_tail >= 0) {
    for (int k = i + 1; k + shape.break_tail_length < shape.exit; ++k) {
      if (ops[static_cast<size_t>(k)].op == Op::PopTop &&
          same_operations(ops, k + 1, shape.break_tail, shape.break_tail_length))
        break_copies_[k] = {i, shape.break_tail_length};
    }
  } else {
    note_break_copies(i, shape.exit, shape.after_else);
  }
  // (Read before the body: a clause's break consumes its copy with the clause's handler code.)
  Body after_loop;
  int tail_end = shape.break_tail + shape.break_tail_length;
  if (shape.break_tail >= 0) after_loop = decode_range(shape.break_tail, tail_end, tail_end);
  Restore<int> keep_threaded(threaded_breaks_);
  ExprPtr target;
  Body body = decode_for_body(i, iter, shape, end, region_exit, &target);
  int threaded_breaks = threaded_breaks_;
  Body orelse;
  if (shape.out_of_line) {
    for (int k = shape.else_begin; k < shape.else_end; ++k)
      consumed_[static_cast<size_t>(k)] = false;
    orelse = decode_range(shape.else_begin, shape.else_end, shape.loop_exit);
    mark_consumed(shape.else_begin, shape.else_end);
  } else if (shape.loop_exit > shape.after && !else_is_outer_jump_back(shape)) {
    orelse = decode_range(shape.after, shape.loop_exit, shape.break_target);
  }
  ExprPtr source = is_internal(iter, "iter") ? iter->args[0] : iter;
  auto stmt = make_stmt(StmtKind::For, {target, source}, {std::move(body), std::move(orelse)});
  stmt->is_async = ops[static_cast<size_t>(i)].text == "async";  // see lift: async_for_head
  emit(stmt);
  for (StmtPtr& s : after_loop) emit(s);
  close_for(*stmt, !after_loop.empty(), threaded_breaks, shape.loop_exit, end);
  return shape.loop_exit;
}

// The POP_TOP at `k` pops a for loop's iterator for a return, not for a break: compile.c's
// compiler_unwind_fblock (FOR_LOOP, preserve_tos) swaps the value the return keeps under the
// iterator first, `SWAP 2; POP_TOP`, where a break pops it alone. What follows a return's pop
// inside a try is its finally's copy, which can match the end of the code after the loop.
bool CodeDecoder::pops_under_return_value(int k) const {
  return k > 0 && lifted_.ops[static_cast<size_t>(k) - 1].op == Op::Swap &&
         lifted_.ops[static_cast<size_t>(k) - 1].arg == 2;
}

// A `break` out of the for loop at `head` whose code after the loop is short and returns: the
// compiler pops the iterator and copies that code (3.10, 3.12+) instead of jumping. Such POP_TOPs
// are recorded; decode_statement makes each a `break`.
void CodeDecoder::note_break_copies(int head, int exit, int after_else) {
  const auto& ops = lifted_.ops;
  int size = static_cast<int>(ops.size());
  if (exit >= size) return;
  // A break goes to the code after the loop and its else: `after_else`, where no break jump
  // says otherwise (-1: the loop has an else that a break jumps past). 3.10 has no END_FOR at
  // the exit. (3.11 copies only blocks without a line number, which the code after a loop has.)
  bool end_for = ops[static_cast<size_t>(exit)].op == Op::EndFor;
  if (!end_for && (!profile_.break_copies_without_end_for || after_else < 0)) return;
  int tail = after_else >= 0 ? after_else : exit + 1;
  int length = 0;
  for (int k = tail; k < size && k < tail + 8; ++k) {
    Op op = ops[static_cast<size_t>(k)].op;
    if (op == Op::ReturnValue || op == Op::ReturnConst) {
      length = k - tail + 1;
      break;
    }
    if (is_jump(op)) return;
  }
  if (length == 0) return;
  for (int k = head + 1; k + length < exit; ++k) {
    if (ops[static_cast<size_t>(k)].op == Op::PopTop && !pops_under_return_value(k) &&
        same_operations(ops, k + 1, tail, length))
      break_copies_[k] = {head, length};
  }
}

// 3.10, 3.12+: where the for loop at `head` has no break jump, the start of the short return that
// ends the code after its exit (`exit`: after END_FOR) when a break copied it (POP_TOP, then the
// same operations): that code before the copy is the loop's else. `exit` otherwise. A copied
// `return <constant>` is left out: a return inside the loop compiles the same, and reads better.
int CodeDecoder::copied_break_target(int head, int exit, int end, int region_exit) const {
  const auto& ops = lifted_.ops;
  if (!profile_.inlines_small_exit_blocks) return exit;
  for (int k = head + 1; k < exit; ++k) {
    if (ops[static_cast<size_t>(k)].op != Op::PopTop) continue;
    if (pops_under_return_value(k)) continue;
    // The copy: a statement of its own (it starts by loading a value, or by leaving a 3.10 try
    // block or the except clause the loop is in: POP_EXCEPT, which the clause's own way out to
    // the code after the try statement starts with too, 3.10 extend_block's copy of that code
    // after the clause's POP_EXCEPT, 3.12+ the cold clause exit) that returns without a jump and
    // leaves no handler.
    Op first = ops[static_cast<size_t>(k) + 1].op;
    bool leaves_clause =
        (profile_.cold_blocks_at_end || profile_.block_stack) && first == Op::PopExcept;
    bool plain =
        first == Op::LoadName || first == Op::LoadConst || first == Op::PopBlock || leaves_clause;
    int copy_end = -1;
    for (int c = k + 1; c < k + 9 && c < exit && plain && copy_end < 0; ++c) {
      Op op = ops[static_cast<size_t>(c)].op;
      if (op == Op::ReturnValue) copy_end = c;
      plain = op != Op::Swap && (op != Op::PopExcept || (leaves_clause && c == k + 1)) &&
              op != Op::PopTop && !is_jump(op) && op != Op::ReturnConst && op != Op::RaiseVarargs &&
              op != Op::Reraise;
    }
    int length = copy_end - k;
    int value = k + 1;  // (past the block pops)
    while (value < copy_end && (ops[static_cast<size_t>(value)].op == Op::PopBlock ||
                                ops[static_cast<size_t>(value)].op == Op::PopExcept))
      ++value;
    if (copy_end < 0 || length < 2 ||
        (copy_end - value == 1 && ops[static_cast<size_t>(value)].op == Op::LoadConst)) {
      continue;
    }
    // The else before the copy's original runs into it: its jumps stay between the two.
    // (Not another copy in handler code: a suppressing with's, ending the loop body.) A copy
    // leaving the clause: the original is the clause's way out, its POP_EXCEPT ending the region
    // (3.12+ handler code, which is the only place it can be; 3.10 the clause's end).
    int last_start = leaves_clause ? end - 1 : end - length;
    // The loop ending a region that falls into its exit (a try's else, 3.10): the code after the
    // loop is the code there, past the region (`falls_into_exit`).
    if (falls_into_exit(end, region_exit, length) && same_operations(ops, k + 1, end, length))
      last_start = end;
    for (int start = exit; start <= last_start; ++start) {
      bool clause_way_out = leaves_clause && start == end - 1;
      if ((!flow_.reachable[static_cast<size_t>(start)] && !clause_way_out) ||
          !same_operations(ops, k + 1, start, length))
        continue;
      for (int j = exit; j < start; ++j) {
        const Operation& op = ops[static_cast<size_t>(j)];
        if (is_jump(op.op) && (op.target < exit || op.target > start)) return exit;
      }
      return start;
    }
  }
  return exit;
}

// Whether a region ending at `end` falls into its exit there: the block of `length` operations
// at `end` is reachable code the region goes to (`region_exit`), so the code after a loop ending
// the region is that block.
bool CodeDecoder::falls_into_exit(int end, int region_exit, int length) const {
  return end == region_exit && end >= 1 && end + length <= static_cast<int>(lifted_.ops.size()) &&
         flow_.reachable[static_cast<size_t>(end)] &&
         !is_jump(lifted_.ops[static_cast<size_t>(end) - 1].op);
}

// 3.11 (keeps_jump_before_loop_end): a branch's jump back to the loop's head at `i`, right before
// the region's exit where the loop's own jump back is, was written: a branch falling into the exit
// has no jump. It is a `continue`, or the jump over an `else: pass` that optimize_basic_block
// threaded to the head (the same instructions; read as `continue`).
// 3.10 (threaded_jump_over_else_keeps_else_jump): only such a jump starting a line of its own is
// a `continue` (compile.c's compiler_continue); a then-branch's jump over the else has no line
// (compiler_if's ADDOP_JUMP_NOLINE), which optimize_basic_block threads to the head.
// 3.13: likewise where the jump at the exit is the copy a test got (jump_back_copy_at).
bool CodeDecoder::jump_before_loop_end(int i, int target, int exit) const {
  const auto& ops = lifted_.ops;
  bool written_line = profile_.threaded_jump_over_else_keeps_else_jump && i >= 1 &&
                      ops[static_cast<size_t>(i)].line >= 0 &&
                      ops[static_cast<size_t>(i)].line != line_at(ops, i - 1);
  if ((!profile_.keeps_jump_before_loop_end && !written_line && !jump_back_copy_at(exit)) ||
      loops_.empty() || i + 1 != exit || target == exit || static_cast<size_t>(exit) >= ops.size())
    return false;
  const Operation& end_jump = ops[static_cast<size_t>(exit)];
  int head = loops_.back().continue_target;
  return end_jump.op == Op::Jump && head >= 0 && same_target(target, head) &&
         same_target(end_jump.target, head);
}

// 3.13 (copies_jump_back_exits): whether the jump back at `at` is the copy of a line-less jump
// back that duplicate_exits_without_lineno gave the one test jumping to it, with that test's
// line (the original, right before it, is fallen into, so a jump there ends a branch that jumps
// back on its own: `if a: (if b: X)` then `else: Y` ending a loop body in an if branch).
bool CodeDecoder::jump_back_copy_at(int at) const {
  const auto& ops = lifted_.ops;
  if (!profile_.copies_jump_back_exits || at < 1 || static_cast<size_t>(at) >= ops.size() ||
      ops[static_cast<size_t>(at)].op != Op::Jump || ops[static_cast<size_t>(at)].target >= at)
    return false;
  // (Not after a with statement's exit call: its suppressing path goes to the original too,
  // threaded to the head, which a `continue` written after the with would take instead.)
  if (at >= 6 && is_exit_call(ops, at - 6)) return false;
  int jumper = -1;
  for (size_t k = 0; k < ops.size(); ++k) {
    if (is_jump(ops[k].op) && ops[k].target == at - 1) return false;  // (a copy itself)
    if (!is_jump(ops[k].op) || ops[k].target != at) continue;
    if (jumper >= 0 || ops[k].op != Op::JumpIf) return false;
    jumper = static_cast<int>(k);
  }
  // (Only one copy, right after the original, which only falls in: where tests of an and/or got
  // one each, back to back, a `continue` written after the original would take their jumps.)
  const Operation& after = ops[static_cast<size_t>(at) + 1 < ops.size() ? at + 1 : at];
  if (at + 1 < static_cast<int>(ops.size()) && after.op == Op::Jump &&
      after.target == ops[static_cast<size_t>(at)].target)
    return false;
  return jumper >= 0 && jumper < at && line_at(ops, at) == line_at(ops, jumper);
}

// 3.12+: a `continue` in a try body unwinds the try first (compiler_unwind_fblock_stack's
// POP_BLOCK), so no table row covers its jump back, on a line of its own, while the operation
// before it is covered; a then-branch's jump to a join in the body stays covered, or (3.13, a
// copy of the body's line-less closing jump, inline_small_or_no_lineno_blocks) takes the line
// before it. (Not the jump back added when a test is turned around, added_jump_back_uncovered:
// it follows the test.)
bool CodeDecoder::continue_leaves_try(int i, int target) const {
  const auto& ops = lifted_.ops;
  if (!profile_.cold_blocks_at_end || loops_.empty() || i < 1) return false;
  const Operation& jump = ops[static_cast<size_t>(i)];
  const Operation& before = ops[static_cast<size_t>(i) - 1];
  int handler = flow_.handler_covering(i - 1);
  return handler >= 0 && flow_.handler_covering(i) != handler && target < i &&
         same_target(target, loops_.back().continue_target) && jump.line >= 0 &&
         jump.line != line_at(ops, i - 1) && !is_jump(before.op);
}

// 3.11+: a jump back landing on the NOP at the head of a `while True` whose own jump back lands
// past it is a written `continue` (written_continue_lands_on_head_nop).
bool CodeDecoder::lands_on_head_nop(int i, int target) const {
  const auto& ops = lifted_.ops;
  if (!profile_.written_continue_lands_on_head_nop || loops_.empty()) return false;
  const LoopContext& loop = loops_.back();
  if (loop.back_jump < 0 || i == loop.back_jump || loop.continue_target < 0) return false;
  const Operation& own = ops[static_cast<size_t>(loop.back_jump)];
  const Operation& jump = ops[static_cast<size_t>(i)];
  return jump.op == Op::Jump && jump.target_nop && jump.line >= 0 && own.op == Op::Jump &&
         !own.target_nop && own.target == target && same_target(target, loop.continue_target);
}

// 3.13+: an except clause's way out, POP_EXCEPT (and the unbinding of its name) then a jump
// back to the innermost loop's head, is a written `continue` where the jump is a plain one:
// compiler_try_except leaves a clause falling off its end with JUMP_NO_INTERRUPT
// (clause_exit_no_interrupt), compiler_continue with JUMP. (Where optimize_basic_block threads
// a clause's fall-off through a jump back to the head, it too becomes a plain JUMP to the head:
// the bytes a `continue` compiles to, where its POP_EXCEPT starts a line.)
bool CodeDecoder::interruptible_clause_exit(int i) const {
  const auto& ops = lifted_.ops;
  if (!profile_.clause_exit_no_interrupt || loops_.empty() || i < 1) return false;
  const Operation& jump = ops[static_cast<size_t>(i)];
  if (jump.op != Op::Jump || jump.no_interrupt || jump.target >= i ||
      jump.target != loops_.back().continue_target)
    return false;
  int pop = i >= 4 && unbinds_clause_name(ops, i - 3) ? i - 4 : i - 1;
  // (compiler_continue unwinds the clause on the `continue`'s line: its POP_EXCEPT starts a line.
  // The clause's own exit has none: a copy of it (inline_small_or_no_lineno_blocks), threaded
  // to the head, keeps the line of what falls into it, as after a try/finally's normal copy.)
  const Operation& unwind = ops[static_cast<size_t>(pop)];
  return pop >= 1 && unwind.op == Op::PopExcept && unwind.line >= 0 &&
         unwind.line != line_at(ops, pop - 1);
}

int CodeDecoder::decode_jump(int i, int end, int exit) {
  int target = lifted_.ops[static_cast<size_t>(i)].target;
  // The last operation of the region, but for handler blocks decoded with their statements.
  int next = i + 1;
  while (next < end && consumed_[static_cast<size_t>(next)]) ++next;
  bool last = next == end;
  // 3.10 `while True`: the loop's jump back keeps the loop's line, so a jump to it from code
  // with another line is not threaded: a jump straight back to the head, other than the loop's
  // own, is a written `continue`. (A for loop's jump back has no line: its jumps are threaded.)
  bool written_continue = false;
  if (profile_.while_true_back_jump_keeps_line && !loops_.empty() && target < i) {
    const LoopContext& loop = loops_.back();
    int head = loop.continue_target;
    written_continue = loop.back_jump >= 0 && i != loop.back_jump && head >= 0 &&
                       lifted_.ops[static_cast<size_t>(head)].op != Op::ForIter &&
                       lifted_.ops[static_cast<size_t>(loop.back_jump)].op == Op::Jump &&
                       same_target(lifted_.ops[static_cast<size_t>(loop.back_jump)].target, head) &&
                       same_target(target, head) && exit > i;
  }
  written_continue |= target < i && jumps_past_cold_test(target);
  written_continue |= target < i && lands_on_head_nop(i, target);
  written_continue |= interruptible_clause_exit(i);
  written_continue |= target < i && last && jump_before_loop_end(i, target, exit);
  if (last && same_target(target, exit) && !written_continue) return end;
  // A jump to the innermost loop's bottom test placed as cold code (while_head's cold_tail) is
  // the loop body falling off its end, never a written `continue` (which goes to the top test).
  if (auto cold = cold_tests_.find(target); last && cold != cold_tests_.end() && !loops_.empty() &&
                                            cold->second == loops_.back().continue_target) {
    ++cold_test_fall_offs_[cold->second];
    return end;
  }
  // (A copy of an except clause's exit, ending a region that ends the clause.)
  if (last && target == end &&
      std::find(clause_end_jumps_.begin(), clause_end_jumps_.end(), i) != clause_end_jumps_.end())
    return end;
  if (!loops_.empty()) {
    const LoopContext& loop = loops_.back();
    if (target == loop.continue_target || resolve(target) == resolve(loop.continue_target)) {
      emit(make_stmt(StmtKind::Continue));
      return i + 1;
    }
    if (resolve(target) == resolve(loop.break_target)) {
      emit(make_stmt(StmtKind::Break));
      return i + 1;
    }
    // A break threaded to the enclosing loop's next iteration (Python has no `continue outer`).
    if (loops_.size() >= 2 && target < i &&
        same_target(target, loops_[loops_.size() - 2].continue_target)) {
      // (Where the code after the loop goes elsewhere, an if branch before its elif, decode_for
      // adds the jump to the enclosing loop's next iteration after the loop.)
      if (!loop.breaks_thread) ++threaded_breaks_;
      emit(make_stmt(StmtKind::Break));
      return i + 1;
    }
  }
  // Generated code jumping over a handler block already decoded with its try statement.
  if (target > i && stack_.size() > statement_depth_) {
    bool skipped_all = true;
    for (int k = i + 1; k < target && skipped_all; ++k)
      skipped_all = consumed_[static_cast<size_t>(k)];
    if (skipped_all) return i + 1;
  }
  throw DecodeFailure("unstructured jump at offset " +
                      std::to_string(lifted_.ops[static_cast<size_t>(i)].offset));
}

// The length of the block at `copy` when it repeats the one at `original` up to and including its
// end (a return, a raise, or a jump to the same place); 0 when it does not.
int CodeDecoder::copied_block_length(int copy, int original) const {
  const auto& ops = lifted_.ops;
  int size = static_cast<int>(ops.size());
  if (copy == original) return 0;
  for (int n = 0; n < 64 && copy + n < size && original + n < size; ++n) {
    const Operation& x = ops[static_cast<size_t>(copy + n)];
    const Operation& y = ops[static_cast<size_t>(original + n)];
    // (A jump's argument is relative to where it is: its target decides.)
    if (x.op != y.op || (x.arg != y.arg && x.op != Op::Jump) || x.text != y.text ||
        x.scope != y.scope || x.null_slot != y.null_slot || x.kwnames != y.kwnames ||
        x.op == Op::JumpIf || x.op == Op::ForIter) {
      return 0;
    }
    if (x.constant || y.constant) {
      if (!x.constant || !y.constant || constant(x.constant)->text != constant(y.constant)->text)
        return 0;
    }
    if (x.op == Op::Jump) return same_target(x.target, y.target) ? n + 1 : 0;
    if (x.op == Op::ReturnValue || x.op == Op::ReturnConst || x.op == Op::RaiseVarargs ||
        x.op == Op::Reraise) {
      return n + 1;
    }
  }
  return 0;
}

}  // namespace glassbox::decompiler
