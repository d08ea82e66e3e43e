// 3.10's block stack: SETUP_FINALLY / SETUP_WITH and POP_BLOCK delimit the protected code.
//
// The handler a SETUP_* pushes is the except clauses, the finally body or the with statement's
// exit; POP_BLOCK ends the protected body, and the compiler copies the body's way out (POP_BLOCK,
// the finally body or exit call) to each place that leaves it.
#include <algorithm>

#include "bytecode/instructions.hpp"
#include "decompiler/decoder.hpp"
#include "decompiler/handlers_support.hpp"
#include "decompiler/printer.hpp"

namespace glassbox::decompiler {

namespace {

// The closing RERAISE that ends the else at `target`, or -1.
// (An if/else ending the finally body: its then-branch ends in a copy of the closing RERAISE,
// right before the else that its test jumps to, which runs without jumps into the closing one.)
// (Its tests jump no further than past that RERAISE: an elif's.)
int else_reraise(const std::vector<Operation>& ops, int target) {
  int furthest = target;
  for (int k = target; k < static_cast<int>(ops.size()) && k < target + 64; ++k) {
    const Operation& o = ops[static_cast<size_t>(k)];
    Op op = o.op;
    if (op == Op::Reraise) return o.arg == 0 && furthest <= k + 1 ? k : -1;
    if (op == Op::JumpIf && o.target > k) {
      furthest = std::max(furthest, o.target);
      continue;
    }
    if (is_jump(op) || op == Op::SetupFinally || op == Op::SetupWith || op == Op::ReturnValue ||
        op == Op::RaiseVarargs || op == Op::PopBlock)
      return -1;
  }
  return -1;
}

bool returned_past_blocks(const Body& body);

// One past the run of operations from `handler` that the handler's own flow reaches (jumps,
// falling through, nested SETUP_* handlers) within [handler, limit): 3.10 lays a finally body
// out in one run (compiler_try_finally), and jumps out of it are a break's or a continue's.
int reached_run_end(const std::vector<Operation>& ops, int handler, int limit) {
  std::vector<bool> reached(static_cast<size_t>(limit - handler), false);
  std::vector<int> work{handler};
  reached[0] = true;
  while (!work.empty()) {
    int k = work.back();
    work.pop_back();
    const Operation& op = ops[static_cast<size_t>(k)];
    bool stops = op.op == Op::Jump || op.op == Op::ReturnValue || op.op == Op::ReturnConst ||
                 op.op == Op::RaiseVarargs || op.op == Op::Reraise;
    bool branches = is_jump(op.op) || op.op == Op::SetupFinally || op.op == Op::SetupWith;
    for (int next : {branches ? op.target : -1, stops ? -1 : k + 1}) {
      if (next >= handler && next < limit && !reached[static_cast<size_t>(next - handler)]) {
        reached[static_cast<size_t>(next - handler)] = true;
        work.push_back(next);
      }
    }
  }
  int run_end = handler;
  while (run_end < limit && reached[static_cast<size_t>(run_end - handler)]) ++run_end;
  return run_end;
}

}  // namespace

namespace {

// Whether `op` ends an expression's evaluation rather than a statement (no store, pop or jump;
// nor POP_BLOCK, nor a constant's load: a constant's return reads the same either way).
bool loads_value(Op op) {
  return !ends_statement(op) && !is_jump(op) && op != Op::PopBlock && op != Op::LoadConst;
}

}  // namespace

int CodeDecoder::decode_setup_finally(int i, int end, int exit) {
  const auto& ops = lifted_.ops;
  int handler = ops[static_cast<size_t>(i)].target;
  // (A finally body ending the code may be as short as one operation and its RERAISE.)
  if (handler <= i || static_cast<size_t>(handler) + 2 > ops.size())
    throw DecodeFailure("SETUP_FINALLY target");
  if (starts_except(ops, handler)) {
    if (static_cast<size_t>(handler) + 3 > ops.size()) throw DecodeFailure("SETUP_FINALLY target");
    return decode_setup_except(i, handler, end, exit);
  }
  // try/finally: the finally body is at the handler up to RERAISE, and copied after POP_BLOCK.
  int reraise = finally_closing_reraise(handler, end);
  int copy_length = reraise - handler;
  // (The RERAISEs copied for tests jumping to the closing one, after the last branch's: on the
  // normal path the tests jump past the copy, reraise_copy_of_test.)
  std::vector<bool> own = nested_own_reraises(handler, reraise);
  int last = reraise;
  while (!dropped_closing(reraise) && last - 1 > handler &&
         !own[static_cast<size_t>(last - 1 - handler)] &&
         reraise_copy_of_test(last - 1, handler, -1)) {
    --last;
    --copy_length;
  }
  // A branch's RERAISE is, on the normal path, falling through (or the copied code after).
  if (last > handler && !dropped_closing(reraise) &&
      ops[static_cast<size_t>(last) - 1].op == Op::Reraise &&
      ops[static_cast<size_t>(last) - 1].arg == 0) {
    --copy_length;
  }
  // (A body ending in a loop that only breaks leave: the normal copy's breaks go to the code
  // after the statement, copied after the copy where short, read only by the normal path's walk:
  // without it, that copy would read as a return's way out of the body.)
  bool ends_in_loop =
      dropped_closing(reraise) && reraise > handler && loop_ends_finally_body(handler, reraise);
  int pop_block = normal_path_pop_block(i, handler, copy_length);
  int try_end =
      pop_block < 0 ? -1 : finally_normal_path_end(i, &pop_block, handler, reraise, copy_length);
  // (The code after the statement kept only as copies in the normal copy's branches: read from
  // the first, after the statement; see copied_exit_only.)
  std::pair<int, int> copied_exit = try_end == handler ? copied_exit_ : std::pair<int, int>{-1, 0};
  if (try_end < 0 && ends_in_loop)
    throw DecodeFailure("finally loop's breaks run the code after it");
  // (Read with the copy stripped, a `return value` after the normal path's copy stays in the
  // body, its value then read before the finally body runs. compiler_return loads a computed
  // value before POP_BLOCK: loaded after the copy, it is the code after the statement, copied
  // into the copy's branches by extend_block (_bootsubprocess's check_output). A constant's
  // return reads the same either way.)
  for (int k = i + 2; try_end < 0 && k < handler; ++k) {
    if (ops[static_cast<size_t>(k)].op == Op::ReturnValue &&
        loads_value(ops[static_cast<size_t>(k) - 1].op))
      throw DecodeFailure("finally copy then a computed return");
  }
  if (try_end < 0) return decode_finally_without_normal_path(i, handler, reraise, end, exit);
  ExprPtr returned;
  Body body;
  {
    Restore<int> enclosing(enclosing_finally_);
    ++enclosing_finally_;
    body = decode_finally_try_body(i, pop_block, handler, &try_end, &returned);
  }
  Body final_body = decode_setup_finally_handler(handler, reraise, body);
  // The returned value's finally copy lies outside the body, after POP_BLOCK.
  if (returned) {
    body.push_back(make_stmt(StmtKind::Return, {returned}));
    body.back()->copies_after = true;
  }
  emit_try_finally(std::move(body), std::move(final_body));
  if (copied_exit.first >= 0) {
    auto [start, length] = copied_exit;
    if (returned) throw DecodeFailure("finally copy then a computed return");
    for (StmtPtr& s : decode_range(start, start + length, start + length)) emit(s);
  }
  if (returned) try_end = returned_past_excepts(try_end, end);
  if (try_end > end && !same_target(try_end, exit))
    throw DecodeFailure("try statement leaves its region");
  return std::min(try_end, end);
}

// 3.10: where a `return value` of a try/finally body, the value kept on the stack past the
// finally copy (returns_after_blocks), leaves enclosing try/except statements: their POP_BLOCKs
// at `try_end`, then the one RETURN_VALUE (compiler_unwind_fblock_stack), all in the region of
// the innermost one's body, are that return's; one past it. (An enclosing try/finally's body
// ends at its own POP_BLOCK: it takes the RETURN_VALUE itself, decode_finally_try_body.)
int CodeDecoder::returned_past_excepts(int try_end, int end) {
  const auto& ops = lifted_.ops;
  int k = try_end;
  while (k < end && ops[static_cast<size_t>(k)].op == Op::PopBlock) ++k;
  if (k == try_end || k >= end || ops[static_cast<size_t>(k)].op != Op::ReturnValue) return try_end;
  mark_consumed(try_end, k + 1);
  return k + 1;
}

// The closing RERAISE of the finally body at `handler` (or one past the body, where it was
// dropped: see dropped_closing_reraise).
int CodeDecoder::finally_closing_reraise(int handler, int end) const {
  const auto& ops = lifted_.ops;
  int reraise = handler;
  while (reraise < static_cast<int>(ops.size()) &&
         ops[static_cast<size_t>(reraise)].op != Op::Reraise)
    ++reraise;
  // The compiler copies the closing RERAISE into each branch that ends the finally body: the
  // body ends at the last of them that a jump inside it reaches (else_reraise).
  for (bool grew = true; grew;) {
    grew = false;
    for (int k = handler; k < reraise; ++k) {
      const Operation& op = ops[static_cast<size_t>(k)];
      if ((op.op == Op::Jump || op.op == Op::JumpIf) && op.target > reraise &&
          static_cast<size_t>(op.target) < ops.size() &&
          ops[static_cast<size_t>(op.target)].op == Op::Reraise) {
        reraise = op.target;
        grew = true;
      } else if (op.op == Op::JumpIf && op.target == reraise + 1 &&
                 ops[static_cast<size_t>(reraise)].arg == 0) {
        if (int closing = else_reraise(ops, op.target); closing > reraise) {
          reraise = closing;
          grew = true;
        }
      }
    }
  }
  int closing = dropped_closing_reraise(handler, reraise, end);
  if (dropped_closing(closing)) return closing;
  // A try/except nested in the body has its own RERAISE (the no-match one of
  // compiler_try_except, or its named clause's cleanup) before the closing one: the body runs on
  // past it, up to the RERAISE that ends the run of code the handler reaches.
  int limit = std::min(end, static_cast<int>(ops.size()));
  if (closing + 1 >= limit) return closing;
  int run_end = reached_run_end(ops, handler, limit);
  const Operation& last = ops[static_cast<size_t>(run_end) - 1];
  if (run_end - 1 > closing && last.op == Op::Reraise && last.arg == 0) {
    // (Unless that RERAISE is a nested try/finally's own closing one: the body ends with that
    // statement, whose normal path jumped to this body's closing RERAISE; extend_block copied
    // it there and dropped the original, as in dropped_closing_reraise.)
    std::vector<bool> own = nested_own_reraises(handler, run_end);
    if (!own.empty() && own[static_cast<size_t>(run_end - 1 - handler)]) return run_end;
    return run_end - 1;
  }
  return loop_ends_finally_body(handler, run_end) ? run_end : closing;
}

// 3.10: whether the finally body at `handler`, laid out in one run up to `run_end`, ends in a
// loop that only breaks leave (`while True:`): the run ends in the loop's jump back, and the
// closing RERAISE after it, which each break jumped to, was copied into the breaks
// (optimize_cfg's extend_block) and dropped, reached by nothing. The body then ends one past the
// run, every RERAISE in it but a nested statement's own standing for a jump there (see
// dropped_closing_reraise).
bool CodeDecoder::loop_ends_finally_body(int handler, int run_end) const {
  const auto& ops = lifted_.ops;
  const Operation& last = ops[static_cast<size_t>(run_end) - 1];
  if (last.op != Op::Jump || last.target < handler || last.target >= run_end - 1) return false;
  std::vector<bool> own = nested_own_reraises(handler, run_end);
  for (int k = last.target; k < run_end - 1; ++k) {
    const Operation& op = ops[static_cast<size_t>(k)];
    bool owned = !own.empty() && own[static_cast<size_t>(k - handler)];
    if (op.op == Op::Reraise && op.arg == 0 && !owned) return true;
  }
  return false;
}

// The POP_BLOCK that starts the normal path's copy of the finally body (`copy_length`
// operations from `handler`); -1 where the body has no normal path.
int CodeDecoder::normal_path_pop_block(int i, int handler, int copy_length) const {
  const auto& ops = lifted_.ops;
  // The normal path's POP_BLOCK is followed by the finally body's copy (not that of a with
  // statement around the try, whose exit follows the finally copy of a return). (A nested
  // SETUP_*'s relative argument differs where the copies' exits do, as a jump's.)
  auto starts_copy = [&](int q) {
    for (int n = 0; n < std::min(copy_length, 3); ++n) {
      const Operation& x = ops[static_cast<size_t>(q + 1 + n)];
      const Operation& y = ops[static_cast<size_t>(handler + n)];
      bool relative = is_jump(x.op) || x.op == Op::SetupFinally || x.op == Op::SetupWith;
      if (x.op != y.op || (!relative && (x.arg != y.arg || x.text != y.text))) return false;
    }
    return true;
  };
  int pop_block = -1;
  for (int q = handler - 1; q > i; --q) {
    if (ops[static_cast<size_t>(q)].op == Op::PopBlock && q + 1 + copy_length <= handler &&
        starts_copy(q)) {
      pop_block = q;
      break;
    }
  }
  // (The normal path is the body's last block: no jump of the body before it lands after it.
  // Where one does, that POP_BLOCK starts the copy of a return's way out.)
  for (int k = i + 1; k < pop_block; ++k) {
    const Operation& op = ops[static_cast<size_t>(k)];
    if (is_jump(op.op) && op.target > pop_block && op.target < handler) pop_block = -1;
  }
  return pop_block;
}

// Where the normal path from *pop_block (moved to the first of its copies, merge_exit_copies)
// ends: past the finally copy, the jump over the handler and a return's ways out of with
// statements around the try; -1 where the body is read as having no normal path.
int CodeDecoder::finally_normal_path_end(int i, int* pop_block, int handler, int reraise,
                                         int copy_length) {
  const auto& ops = lifted_.ops;
  int copies_at = *pop_block;
  *pop_block = merge_exit_copies(i, *pop_block, handler);
  int try_end = *pop_block + 1 + copy_length;
  // (The short exit after the statement copied into the copy's branches.)
  copy_returns_ = false;
  copied_exit_ = {-1, 0};
  int walked = normal_copy_end(*pop_block + 1, handler, reraise, -1);
  if (walked >= 0) try_end = walked;
  // (The closing RERAISE dropped: the normal copy runs up to the handler, or to a jump over it,
  // its nested statement's handler last. Where its copied exits differ in length from the
  // RERAISE copies, no walk along the exception copy finds its end: the body is read with the
  // copy after it, and the copy stripped, as where the body has no normal path.)
  bool copy_ends_at_handler =
      try_end == handler ||
      (try_end + 1 == handler && ops[static_cast<size_t>(try_end)].op == Op::Jump);
  if (walked < 0 && *pop_block == copies_at && dropped_closing(reraise) && !copy_ends_at_handler)
    return -1;
  // The normal path jumps over the handler to the code after the statement. (Ending an
  // enclosing finally body, it jumps to that body's end once for each branch of the copy that
  // ends there: the enclosing body's closing RERAISE copied into each, extend_block, read as
  // jumps to its end by decode_finally_body.)
  if (static_cast<size_t>(try_end) < ops.size() && try_end < handler &&
      ops[static_cast<size_t>(try_end)].op == Op::Jump &&
      ops[static_cast<size_t>(try_end)].target > reraise) {
    int target = ops[static_cast<size_t>(try_end)].target;
    int last = try_end + 1;
    while (last < handler && finally_body_end_ == target &&
           ops[static_cast<size_t>(last)].op == Op::Jump &&
           ops[static_cast<size_t>(last)].target == target)
      ++last;
    if (last == handler) {
      mark_consumed(try_end, last);
      try_end = target;
    }
  }
  // (3.10: a return leaving with statements around the try leaves each after the finally copy:
  // compiler_unwind_fblock's POP_BLOCK, ROT_TWO under the value and the exit call.)
  int leaving = try_end;
  while (profile_.block_stack && static_cast<size_t>(leaving) + 8 <= ops.size() &&
         ops[static_cast<size_t>(leaving)].op == Op::PopBlock &&
         ops[static_cast<size_t>(leaving) + 1].op == Op::Swap && is_exit_call_310(ops, leaving + 2))
    leaving += 7;
  if (leaving > try_end && ops[static_cast<size_t>(leaving)].op == Op::ReturnValue) {
    mark_consumed(try_end, leaving);
    try_end = leaving;
  }
  return try_end;
}

// The try body [i + 1, pop_block) of a try/finally; where it returns a value (`try: return
// value`), that value into *returned and *try_end past the return's copies.
Body CodeDecoder::decode_finally_try_body(int i, int pop_block, int handler, int* try_end,
                                          ExprPtr* returned) {
  const auto& ops = lifted_.ops;
  // `try: return value finally: ...`: the value waits on the stack while the finally copy runs.
  bool returns_value = static_cast<size_t>(*try_end) < ops.size() &&
                       ops[static_cast<size_t>(*try_end)].op == Op::ReturnValue;
  // (Or each branch of the copy returns it, up to the handler: see normal_copy_end.)
  bool copy_returns = copy_returns_ && *try_end == handler;
  returns_value |= copy_returns;
  // (Or the value is returned past the enclosing blocks' ways out: `try: try: return value
  // finally: a finally: b` keeps it on the stack through each block's POP_BLOCK and finally
  // copy, compiler_unwind_fblock_stack, to the one RETURN_VALUE after them. The enclosing
  // statement reads that RETURN_VALUE as this return's: see returned_inside.)
  bool past_blocks = !returns_value && returns_after_blocks(*try_end);
  take_region_value_ = true;
  region_value_ = nullptr;
  Body body = decode_range(i + 1, pop_block, pop_block);
  take_region_value_ = false;
  // (A try/finally nested deeper may have returned it: its body ends this one.)
  bool returns_past_blocks = past_blocks && (region_value_ || returned_past_blocks(body));
  returns_value |= returns_past_blocks;
  // (A value left for no return would be lost; a return read past the blocks needs this one's.)
  if ((region_value_ || returned_past_blocks(body)) && !returns_value)
    throw DecodeFailure("try/finally body leaves a value");
  *returned = returns_value ? region_value_ : nullptr;
  region_value_ = nullptr;
  if (returns_past_blocks) return body;
  // (`try: return value` of a try/except in the body, leaving both blocks: that statement read
  // the finally copy and the return, as a return of its body.)
  // (Or a try/finally in the body that returned it past this block: returns_after_blocks.)
  bool returned_inside =
      returns_value && !*returned && pop_block > i + 1 &&
      ((ops[static_cast<size_t>(pop_block) - 1].op == Op::PopBlock && !body.empty() &&
        body.back()->kind == StmtKind::Try && !body.back()->bodies[0].empty() &&
        body.back()->bodies[0].back()->kind == StmtKind::Return) ||
       (returns_after_blocks(pop_block) && returned_past_blocks(body)));
  if ((*returned || returned_inside) && !copy_returns) {
    // A finally body ending in an if: the return that follows its normal-path copy is copied to
    // the end of each branch, the other copies after the first, where the copy's jumps go.
    int copy_begin = pop_block + 1;
    for (++*try_end; *try_end < handler && ops[static_cast<size_t>(*try_end)].op == Op::ReturnValue;
         ++*try_end) {
      bool jumped_to = false;
      for (int k = copy_begin; k < *try_end && !jumped_to; ++k)
        jumped_to = is_jump(ops[static_cast<size_t>(k)].op) &&
                    ops[static_cast<size_t>(k)].target == *try_end;
      if (!jumped_to) break;
      mark_consumed(*try_end, *try_end + 1);
    }
  }
  return body;
}

// 3.10: whether the code at `k` leaves enclosing blocks on the way to a return: POP_BLOCK,
// then only the blocks' finally copies (statements: forward jumps inside them, no block, no
// other way out) and further POP_BLOCKs, up to a RETURN_VALUE that no jump passes (a copy
// ending in an if has the return copied into its branches: a jump past one lands on the next).
bool CodeDecoder::returns_after_blocks(int k) const {
  const auto& ops = lifted_.ops;
  if (!profile_.block_stack || k < 0 || static_cast<size_t>(k) >= ops.size() ||
      ops[static_cast<size_t>(k)].op != Op::PopBlock)
    return false;
  int furthest = k;
  for (int n = k + 1; n < static_cast<int>(ops.size()); ++n) {
    const Operation& op = ops[static_cast<size_t>(n)];
    if (op.op == Op::ReturnValue && furthest <= n) return true;
    if (is_jump(op.op) && op.target > n) {
      furthest = std::max(furthest, op.target);
      continue;
    }
    if (is_jump(op.op) || op.op == Op::SetupFinally || op.op == Op::SetupWith ||
        op.op == Op::ReturnConst || op.op == Op::RaiseVarargs || op.op == Op::Reraise ||
        op.op == Op::YieldValue)
      return false;
  }
  return false;
}

namespace {

// Whether `body` ends in try/finally statements, one in the other, the innermost's body ending
// in a return whose value was kept past their blocks (returns_after_blocks).
bool returned_past_blocks(const Body& body) {
  const Body* at = &body;
  for (int depth = 0; depth < 100 && !at->empty(); ++depth) {
    const Stmt& last = *at->back();
    if (last.kind == StmtKind::Return) return depth > 0 && last.copies_after;
    if (last.kind != StmtKind::Try || last.bodies.size() != 3 || last.bodies[2].empty())
      return false;
    at = &last.bodies[0];
  }
  return false;
}

}  // namespace

// 3.10: whether the finally body ending at `reraise` lost its closing RERAISE (then `reraise` is
// one past the body, see dropped_closing_reraise).
bool CodeDecoder::dropped_closing(int reraise) const {
  return static_cast<size_t>(reraise) >= lifted_.ops.size() ||
         lifted_.ops[static_cast<size_t>(reraise)].op != Op::Reraise;
}

// 3.10: a try statement nested in the finally body whose every way out ends the body (each in
// a RERAISE): optimize_cfg's extend_block replaces each jump to the closing RERAISE (an exit
// block of at most 4 instructions, with the short code before it) with a copy of it, and
// duplicate_exits_without_lineno copies the POP_BLOCK-led exits; the original, reached by
// nothing, is dropped (or kept where the nested try's normal path falls into it, its handler
// laid out after it). The first RERAISE after the handler is then one ending the nested try's
// body, before that try's handler. Where a try nested before `reraise` has its handler
// past it, the finally body is the code reachable from `handler` (laid out in one run), and
// its end is one past that run: returned instead of a RERAISE's index (`ops[end]` is then no
// RERAISE; every copy in the run but a nested statement's own stands for a jump there).
int CodeDecoder::dropped_closing_reraise(int handler, int reraise, int end) const {
  const auto& ops = lifted_.ops;
  int limit = std::min(end, static_cast<int>(ops.size()));
  bool nested_past = false;
  for (int k = handler; k < reraise; ++k) {
    const Operation& op = ops[static_cast<size_t>(k)];
    if ((op.op == Op::SetupFinally || op.op == Op::SetupWith) && op.target > reraise)
      nested_past = true;
  }
  if (!nested_past || reraise >= limit) return reraise;
  int run_end = reached_run_end(ops, handler, limit);
  const Operation& last = ops[static_cast<size_t>(run_end) - 1];
  return last.op == Op::Reraise ? run_end : reraise;
}

// 3.10: the finally body at `handler`, under the three exception values, up to its closing
// RERAISE; its copies on the ways out of the try body are stripped from `body`.
Body CodeDecoder::decode_setup_finally_handler(int handler, int reraise, Body& body) {
  std::vector<ExprPtr> saved_stack = stack_;
  size_t saved_depth = statement_depth_;
  // (Under the exception, the previous one that the handler saved: a return or break in the
  // finally body pops the exception, then POP_EXCEPT the previous one, compiler_unwind_fblock's
  // FINALLY_END.)
  for (int k = 0; k < 3; ++k) push(make_expr(ExprKind::Internal, {}, "prev_exc"));
  for (int k = 0; k < 3; ++k) push(make_expr(ExprKind::Internal, {}, "exc"));
  statement_depth_ = stack_.size();
  Body final_body = decode_finally_body(handler, reraise);
  stack_ = saved_stack;
  statement_depth_ = saved_depth;
  mark_consumed(handler, dropped_closing(reraise) ? reraise : reraise + 1);
  if (!strip_finally_copies(body, print_body(final_body), final_body.size(), false, 0,
                            enclosing_finally_ > 0)) {
    throw DecodeFailure("finally copy on an exit path");
  }
  return final_body;
}

// 3.10 try/finally whose body never falls off its end (it ends in a raise, a return or a jump
// back): the compiler drops the unreachable normal path (POP_BLOCK and the finally copy after
// it), so the body runs up to the handler and the statement ends after the closing RERAISE.
int CodeDecoder::decode_finally_without_normal_path(int i, int handler, int reraise, int end,
                                                    int exit) {
  const Operation& last = lifted_.ops[static_cast<size_t>(handler) - 1];
  bool falls_off = last.op != Op::RaiseVarargs && last.op != Op::Reraise &&
                   last.op != Op::ReturnValue &&
                   !(last.op == Op::Jump && last.target < handler - 1);
  if (falls_off) throw DecodeFailure("try/finally without its normal path");
  Body body;
  {
    Restore<int> enclosing(enclosing_finally_);
    ++enclosing_finally_;
    body = decode_range(i + 1, handler, handler);
  }
  Body final_body = decode_setup_finally_handler(handler, reraise, body);
  emit_try_finally(std::move(body), std::move(final_body));
  int try_end = dropped_closing(reraise) ? reraise : reraise + 1;
  if (try_end > end && !same_target(try_end, exit))
    throw DecodeFailure("try statement leaves its region");
  return std::min(try_end, end);
}

// 3.10 copies a protected body's whole way out (POP_BLOCK, the finally body or with exit, and
// the code after the statement, when short and ending in a return) to each place that leaves the
// body, back to back before the handler. Jumps to a later copy go to the first one instead, and
// the later copies are consumed. Returns the first copy's POP_BLOCK.
// (In an enclosing finally body's exception copy the way out ends in a copy of its closing
// RERAISE, which decode_finally_body reads as a jump past this handler, to that body's end.)
int CodeDecoder::merge_exit_copies(int begin, int pop_block, int handler) {
  auto& ops = lifted_.ops;
  int length = handler - pop_block;
  const Operation& last = ops[static_cast<size_t>(handler) - 1];
  bool exits = last.op == Op::ReturnValue || (last.op == Op::Jump && last.target > handler);
  if (length < 3 || !exits) return pop_block;
  int first = pop_block;
  // (The copies' last operations: the same return, or jumps to the same place.)
  auto same_copy = [&](int at) {
    const Operation& end_op = ops[static_cast<size_t>(at + length) - 1];
    return same_operations(ops, at, pop_block, length - 1) && end_op.op == last.op &&
           (last.op == Op::ReturnValue || end_op.target == last.target);
  };
  while (first - length > begin && same_copy(first - length)) first -= length;
  if (first == pop_block) return pop_block;
  for (int k = begin; k < first; ++k) {
    Operation& op = ops[static_cast<size_t>(k)];
    bool jumps = op.op == Op::Jump || op.op == Op::JumpIf || op.op == Op::JumpIfOrPop;
    if (jumps && op.target > first && op.target <= pop_block && (op.target - first) % length == 0)
      op.target = first;
  }
  mark_consumed(first + length, handler);
  return first;
}

// 3.10: a try/except body's way out (POP_BLOCK, then a short tail ending in a return or raise)
// reached by falling through and by jumps: duplicate_exits_without_lineno gives each jump a copy of
// its own, placed after the original, back to back before the handler. Where there are more than
// one such copies, the jumps to them go to the last one and the others are consumed: the body
// then ends in one way out, reached by jumps and by the fall through the consumed copies.
void CodeDecoder::merge_except_exit_copies(int begin, int handler) {
  auto& ops = lifted_.ops;
  int pop_block = handler - 1;
  while (pop_block > begin && handler - pop_block <= 4 &&
         ops[static_cast<size_t>(pop_block)].op != Op::PopBlock)
    --pop_block;
  int length = handler - pop_block;
  if (ops[static_cast<size_t>(pop_block)].op != Op::PopBlock || length < 3) return;
  int first = pop_block;
  while (first - length > begin && same_operations(ops, first - length, pop_block, length))
    first -= length;
  // (A fall and one jump: read as they are. Two copies that nothing falls into, the code before
  // them leaving the body, are both jumps': merged alike.)
  Op before = first > begin ? ops[static_cast<size_t>(first) - 1].op : Op::PopBlock;
  if (pop_block == first || (pop_block - first < 2 * length && falls_through(before))) return;
  for (int k = begin; k < first && pop_block - first < 2 * length; ++k) {
    const Operation& op = ops[static_cast<size_t>(k)];
    if (op.op == Op::ForIter && op.target >= first && op.target < pop_block) return;
  }
  for (int k = begin; k < first; ++k) {
    Operation& op = ops[static_cast<size_t>(k)];
    bool jumps = op.op == Op::Jump || op.op == Op::JumpIf || op.op == Op::JumpIfOrPop;
    if (jumps && op.target >= first && op.target < pop_block && (op.target - first) % length == 0)
      op.target = pop_block;
  }
  mark_consumed(first, pop_block);
}

namespace {

// Whether the operation at `at` returns or raises.
bool exits_at(const std::vector<Operation>& ops, int at) {
  Op op = ops[static_cast<size_t>(at)].op;
  return op == Op::ReturnValue || op == Op::RaiseVarargs;
}

// The typed clauses from `handler`, each [start, next clause), read up to `walk_end`.
std::vector<std::pair<int, int>> typed_clause_ranges(const std::vector<Operation>& ops, int handler,
                                                     int walk_end) {
  std::vector<std::pair<int, int>> typed_clauses;
  for (int c = handler; c < walk_end;) {
    // (A typed clause starts with DUP_TOP of the exception; the RERAISE where the last one's
    // test fails ends them, and a later try statement's clauses are its own.)
    if (ops[static_cast<size_t>(c)].op == Op::Reraise) break;
    int check = c;
    while (check + 1 < walk_end && ops[static_cast<size_t>(check)].op != Op::CheckExcMatch &&
           !is_jump(ops[static_cast<size_t>(check)].op))
      ++check;
    if (check + 1 >= walk_end || ops[static_cast<size_t>(check)].op != Op::CheckExcMatch ||
        ops[static_cast<size_t>(check) + 1].op != Op::JumpIf ||
        ops[static_cast<size_t>(check) + 1].target <= check)
      break;
    int next = ops[static_cast<size_t>(check) + 1].target;
    typed_clauses.emplace_back(c, next);
    c = next;
  }
  return typed_clauses;
}

// Whether a jump at `k` to `target` stays in one of the typed clauses.
bool stays_in_clause(const std::vector<std::pair<int, int>>& typed_clauses, int k, int target) {
  return std::any_of(typed_clauses.begin(), typed_clauses.end(), [&](const auto& clause) {
    return k >= clause.first && target < clause.second;
  });
}

// Whether the POP_BLOCK at `q` (its exit up to `end`) is reached more than one way from the body
// at `i`: jumps to it, or one and the operation before falling into it. The compiler's own
// POP_BLOCK ending the body has no line (compiler_try_except), and 3.10's
// duplicate_exits_without_lineno gives each jump to that exit block, once extend_block copied
// the code after the statement into it, a copy of its own: a POP_BLOCK shared so is a `return`
// (or raise) of the body, with its line. (Not where copies of it lie before it, which
// merge_except_exit_copies retargeted to it.)
bool shared_pop_block(const std::vector<Operation>& ops, int i, int q, int end) {
  int length = end - q;
  if (q - length > i && same_operations(ops, q - length, q, length)) return false;
  int jumps = 0;
  for (int k = i + 1; k < q; ++k) {
    const Operation& op = ops[static_cast<size_t>(k)];
    jumps += is_jump(op.op) && op.target == q;
  }
  return jumps >= 2 || (jumps == 1 && falls_through(ops[static_cast<size_t>(q) - 1].op));
}

// Without an else, what follows POP_BLOCK is a copy of a short tail after the statement (the
// jump to it inlined: one ending in a return or raise), which each clause that falls through
// repeats: where that tail starts, or `body_end` where there is none.
int body_tail_begin(const std::vector<Operation>& ops, int i, int else_begin, int body_end) {
  int tail_begin = body_end;
  if (else_begin < 0 && body_end > i + 1 &&
      (ops[static_cast<size_t>(body_end) - 1].op == Op::ReturnValue ||
       ops[static_cast<size_t>(body_end) - 1].op == Op::RaiseVarargs)) {
    for (int q = body_end - 1; q > i; --q) {
      Op op = ops[static_cast<size_t>(q)].op;
      // (`return value` in the body: the value is computed before POP_BLOCK, no tail; a tail
      // starts a statement: by loading a value, deleting a name, or a bare `raise`. Not a with's
      // exit call after its POP_BLOCK: a return unwinding the with too, from an except clause
      // around this statement (POP_EXCEPT before it), compiler_unwind_fblock_stack.)
      const Operation& first = ops[static_cast<size_t>(q) + 1];
      bool bare_raise = first.op == Op::RaiseVarargs && first.arg == 0 && q + 2 == body_end;
      if (op == Op::PopBlock && (q + 2 < body_end || bare_raise) &&
          ops[static_cast<size_t>(q) - 1].op != Op::PopBlock &&  // a return leaving two blocks
          !is_exit_call_310(ops, q + 1) &&
          (first.op == Op::LoadConst || first.op == Op::LoadName || first.op == Op::LoadClosure ||
           first.op == Op::LoadAssertionError || first.op == Op::DeleteName || bare_raise) &&
          !jumped_into(ops, i + 1, q + 1, q + 2, body_end) &&
          !shared_pop_block(ops, i, q, body_end))
        tail_begin = q + 1;
      if (op == Op::PopBlock || op == Op::Jump || op == Op::JumpIf || op == Op::SetupFinally ||
          op == Op::SetupWith || op == Op::ForIter)
        break;
    }
  }
  return tail_begin;
}

// Where each typed clause (and a bare except, up to `handlers_end`) ends, for the search of
// their copies of the code after the statement; nothing when they do not read consistently.
std::vector<int> clause_ends(const std::vector<Operation>& ops,
                             const std::vector<std::pair<int, int>>& typed_clauses,
                             int handlers_end) {
  std::vector<int> ends;
  for (const auto& [c, next] : typed_clauses) {
    int check = c;
    while (check < next && ops[static_cast<size_t>(check)].op != Op::CheckExcMatch) ++check;
    if (check + 3 >= next) break;
    bool named = ops[static_cast<size_t>(check) + 3].op == Op::StoreName;
    ends.push_back(named && ops[static_cast<size_t>(next) - 1].op == Op::Reraise ? next - 4 : next);
  }
  int last_next = typed_clauses.back().second;
  bool bare = ops[static_cast<size_t>(last_next)].op != Op::Reraise;
  if (bare && is_pop_tops(ops, last_next, 3))
    ends.push_back(handlers_end);  // a bare except: up to the else, or the join
  bool consistent = ends.size() == typed_clauses.size() + (bare ? 1 : 0);
  if (!consistent) ends.clear();
  return ends;
}

// The start of the copy of the code after the statement that ends the clause ending (in a
// return or raise) at `e`, after its POP_EXCEPT and the unbinding of its name; -1 if none.
int clause_tail_copy(const std::vector<Operation>& ops, int handler, int e) {
  int p = e - 2;
  while (p > e - 9 && p > handler && ops[static_cast<size_t>(p)].op != Op::PopExcept) --p;
  if (ops[static_cast<size_t>(p)].op != Op::PopExcept) return -1;
  int s = p + 1;
  if (unbinds_clause_name(ops, s)) s += 3;
  int length = e - s;
  // (`return K`: the clause's own return reads alike, and is kept as it is.)
  bool returns_constant = length == 2 && ops[static_cast<size_t>(s)].op == Op::LoadConst &&
                          ops[static_cast<size_t>(s) + 1].op == Op::ReturnValue;
  // (A copy starts a statement: it loads a value or deletes a name, or is a bare raise; a
  // return inside a loop pops the iterator under its value after POP_EXCEPT.)
  const Operation& start = ops[static_cast<size_t>(s)];
  bool starts = start.op == Op::LoadConst || start.op == Op::LoadName ||
                start.op == Op::LoadClosure || start.op == Op::LoadAssertionError ||
                start.op == Op::DeleteName ||
                (start.op == Op::RaiseVarargs && start.arg == 0 && length == 1);
  if (length < 1 || length > 4 || !starts || returns_constant) return -1;
  bool straight = true;
  for (int k = s; k < e - 1; ++k) {
    Op op = ops[static_cast<size_t>(k)].op;
    straight = straight && !is_jump(op) && !exits_at(ops, k) && op != Op::PopExcept &&
               op != Op::PopBlock && op != Op::SetupFinally && op != Op::SetupWith &&
               op != Op::Reraise;
  }
  return straight ? s : -1;
}

// The clauses' copies of the code after the statement (clause_tail_copy), into `clause_copy`
// (a clause's end -> the start of its copy) and `copy_length`: the first copy, or -1 (and no
// copies) where a clause that falls through has none, or they differ.
int collect_clause_copies(const std::vector<Operation>& ops, int handler,
                          const std::vector<int>& ends, std::map<int, int>& clause_copy,
                          int& copy_length) {
  bool consistent = true;
  int first_copy = -1;
  for (int e : ends) {
    if (!consistent || e <= handler) continue;
    // (A clause without a copy must not fall through.)
    bool ends_clause = exits_at(ops, e - 1) || ops[static_cast<size_t>(e) - 1].op == Op::Reraise;
    consistent = ends_clause;
    if (!exits_at(ops, e - 1)) continue;
    int s = clause_tail_copy(ops, handler, e);
    if (s < 0) continue;
    int length = e - s;
    if (first_copy >= 0 &&
        (length != copy_length || !same_operations(ops, s, first_copy, length))) {
      consistent = false;
      continue;
    }
    first_copy = s;
    copy_length = length;
    clause_copy[e] = s;
  }
  if (!consistent || first_copy < 0) {
    clause_copy.clear();
    return -1;
  }
  return first_copy;
}

// The body's other ways out to the tail (POP_BLOCK and a copy of it: a branch falling off the
// body's end, the copy duplicated for it) end its branches: they go, where as many end them.
void strip_body_tail_copies(const std::vector<Operation>& ops, int i, int tail_begin, int body_end,
                            Body& body, const Body& tail) {
  int length = body_end - tail_begin;
  int count = 0;
  // (Not a copy right after a with statement's exit call: extend_block's copy for the with's
  // normal path, which decode_setup_with reads as the with's way out, no branch's end.)
  for (int p = i + 1; p + 1 + length <= tail_begin; ++p) {
    count += ops[static_cast<size_t>(p)].op == Op::PopBlock &&
             same_operations(ops, p + 1, tail_begin, length) && !is_exit_call_310(ops, p - 5);
  }
  std::string text = print_body(tail);
  if (count > 0 && branch_end_copies(body, text, tail.size(), false) == count)
    branch_end_copies(body, text, tail.size(), true);
}

// The tail's copies in each clause [from, to), by its operations [tail_ops, + tail_length).
std::vector<int> clause_tail_copies(const std::vector<Operation>& ops,
                                    const std::vector<std::pair<int, int>>& clause_ranges,
                                    bool counted, int tail_ops, int tail_length,
                                    const std::set<int>& read_as_exit) {
  std::vector<int> copies;
  for (auto [from, to] : clause_ranges) {
    int count = 0;
    for (int p = from; p < to && counted; ++p) {
      // (A copy an if/else read as its exit is no statement of the clause: not counted.)
      if (ops[static_cast<size_t>(p)].op != Op::PopExcept || read_as_exit.count(p) > 0) continue;
      int s = p + 1;
      if (unbinds_clause_name(ops, s)) s += 3;
      if (s + tail_length <= to && same_operations(ops, s, tail_ops, tail_length)) ++count;
    }
    copies.push_back(count);
  }
  return copies;
}

}  // namespace

int CodeDecoder::decode_setup_except(int i, int handler, int end, int exit) {
  const auto& ops = lifted_.ops;
  if (exits_at(ops, handler - 1)) merge_except_exit_copies(i, handler);
  ExceptShape shape = except_clauses_shape(i, handler, end);
  shape.tail_begin = body_tail_begin(ops, i, shape.else_begin, shape.body_end);
  except_else_tail(shape, handler, end);
  except_clause_copies(shape, i, handler, end, exit);
  ExceptBodies parts = decode_except_bodies(shape, i, end);
  auto stmt = make_stmt(StmtKind::Try, {}, {std::move(parts.body), std::move(parts.orelse), {}});
  std::vector<std::pair<int, int>> clause_ranges = decode_except_clauses(*stmt, shape, handler);
  // (Clauses past the region that clauses_past_region could not read, a bare except among them:
  // a try statement without its clauses would drop what they run.)
  if (stmt->handlers.empty()) throw DecodeFailure("except clauses past the region");
  mark_consumed(handler, shape.clauses_end >= 0 ? shape.clauses_end : shape.handlers_end);
  return emit_setup_except(stmt, shape, parts, clause_ranges, end, exit);
}

// 3.10 try/except at `i` with its clauses at `handler`: where its else, clauses and join lie.
CodeDecoder::ExceptShape CodeDecoder::except_clauses_shape(int i, int handler, int end) const {
  const auto& ops = lifted_.ops;
  ExceptShape shape;
  shape.else_begin = except_else_begin(i, handler, end);
  int else_begin = shape.else_begin;
  shape.body_end = else_begin >= 0 ? handler - 1 : handler;
  // Where the clauses go when done: past the else, if there is one.
  int join = -1;
  auto is_loop_exit = [&](int target) {
    return !loops_.empty() && (same_target(target, loops_.back().break_target) ||
                               same_target(target, loops_.back().continue_target));
  };
  // (A body's jump past the region's end is its way out threaded through an enclosing
  // statement's jump (optimize_cfg's jump threading), never an else: the clauses end with the
  // region, what lies past it is not theirs.)
  int scan_end = else_begin >= 0 && (else_begin <= end || handler >= end) ? else_begin : end;
  // The typed clauses, each [start, next clause): a jump inside one to a place before the next
  // clause stays in that clause (an if/else of its body whose join the compiler replaced with a
  // copy of the clause's exit), never the statement's join.
  // (The region may be the body of an enclosing try/finally, which this statement's body leaves
  // by a return: its POP_BLOCK ends the region, the enclosing one's starts what follows, and the
  // clauses lie past it.)
  bool clauses_outside = else_begin < 0 && handler >= end && end > i + 1 &&
                         ops[static_cast<size_t>(end) - 1].op == Op::PopBlock &&
                         ops[static_cast<size_t>(end)].op == Op::PopBlock;
  int walk_end = clauses_outside ? static_cast<int>(ops.size()) : scan_end;
  shape.typed_clauses = typed_clause_ranges(ops, handler, walk_end);
  const std::vector<std::pair<int, int>>& typed_clauses = shape.typed_clauses;
  // Without an else, typed clauses whose last type test fails to a RERAISE end there (no bare
  // except): a jump after it belongs to the code after the statement (a later try's), never to
  // this one's join.
  int join_scan_end = scan_end;
  if (else_begin < 0 && !clauses_outside && !typed_clauses.empty() &&
      typed_clauses.back().second < scan_end &&
      ops[static_cast<size_t>(typed_clauses.back().second)].op == Op::Reraise)
    join_scan_end = typed_clauses.back().second + 1;
  // (A statement in a clause falling off the loop body's end goes on to the clause's own
  // POP_EXCEPT, whose jump back to the loop's head (compiler_try_except's jump to the end,
  // threaded there) leaves no forward jump to the join: that POP_EXCEPT is the clause's, never
  // the join, where no clause of a try in the innermost loop is open around this statement.)
  auto clause_exit_back = [&](int target) {
    return !loops_.empty() && clause_loops_ != loops_.size() && target + 1 < scan_end &&
           ops[static_cast<size_t>(target)].op == Op::PopExcept &&
           ops[static_cast<size_t>(target) + 1].op == Op::Jump &&
           same_target(ops[static_cast<size_t>(target) + 1].target, loops_.back().continue_target);
  };
  for (int k = handler; k < join_scan_end; ++k) {
    const Operation& op = ops[static_cast<size_t>(k)];
    // (A backward jump is a loop's inside a clause, never the join.)
    // (A forward jump to the loop's own jump back is a clause falling off the loop body's end.)
    if (op.op == Op::Jump && op.target > handler && op.target > k &&
        (!is_loop_exit(op.target) || falls_into_jump_back(k, op.target)) && op.target > join &&
        !stays_in_clause(typed_clauses, k, op.target) && !clause_exit_back(op.target))
      join = op.target;
  }
  if (join < 0) join = else_begin >= 0 ? else_begin : scan_end;
  // (Clauses rejoining elsewhere than that threaded way out: no reading.)
  if (scan_end < else_begin && join != else_begin)
    throw DecodeFailure("try body and clauses leave the region apart");
  shape.join = join;
  shape.handlers_end = std::min(else_begin >= 0 ? else_begin : join, end);
  if (clauses_outside) clauses_past_region(shape, handler, end);
  return shape;
}

// 3.10 try/except: where its else starts (the body's jump over the clauses goes there); -1 if
// it has none.
int CodeDecoder::except_else_begin(int i, int handler, int end) const {
  const auto& ops = lifted_.ops;
  const Operation& before = ops[static_cast<size_t>(handler) - 1];
  // (POP_BLOCK, POP_TOP of a for loop's iterator, then the jump: a break ending the body, not
  // the jump to an else.)
  // (Or POP_BLOCK then the jump, out of a while loop, which has no iterator to pop: the jump over
  // the clauses goes to an else inside the loop, never straight to the code after it. An
  // `else: break` keeps its own jump for its line: the body's jump goes there, not threaded. A
  // `break` after the statement, which the jump over the clauses was threaded through, is where
  // the clauses that fall through go too: none may.)
  auto pops_block = [&](int k) { return ops[static_cast<size_t>(k)].op == Op::PopBlock; };
  bool in_while = !loops_.empty() && loops_.back().continue_target >= 0 &&
                  ops[static_cast<size_t>(loops_.back().continue_target)].op != Op::ForIter &&
                  before.target >= 0 &&
                  (before.target == loops_.back().break_target ||
                   ops[static_cast<size_t>(before.target)].op != Op::Jump);
  for (int k = handler; in_while && k < end; ++k) {
    const Operation& o = ops[static_cast<size_t>(k)];
    in_while = o.op != Op::Jump || !same_target(o.target, loops_.back().break_target);
  }
  bool body_breaks = !loops_.empty() && same_target(before.target, loops_.back().break_target) &&
                     ((handler >= i + 3 && ops[static_cast<size_t>(handler) - 2].op == Op::PopTop &&
                       pops_block(handler - 3)) ||
                      (in_while && handler >= i + 2 && pops_block(handler - 2)));
  return before.op == Op::Jump && before.target > handler && !body_breaks ? before.target : -1;
}

// A bare except clause at `k` that never rejoins (compiler_try_except: POP_TOP x3, its body,
// no POP_EXCEPT and jump of its own where each way through it raises or returns): one past its
// last operation, the first exit no earlier jump or block setup (a nested try's handler) of the
// clause goes past; -1 where a way out leaves it or its end is not reached before `limit`.
namespace {
int bare_clause_end(const std::vector<Operation>& ops, int k, int limit) {
  if (!is_pop_tops(ops, k, 3)) return -1;
  int reach = k;  // the furthest place a jump or setup inside the clause goes to
  for (int p = k + 3; p < limit; ++p) {
    const Operation& op = ops[static_cast<size_t>(p)];
    if (op.target >= 0 && op.target <= k) return -1;
    reach = std::max(reach, op.target);
    bool ends = exits_at(ops, p) || op.op == Op::Reraise;
    if (ends && reach <= p) return p + 1;
  }
  return -1;
}
}  // namespace

// Clauses past the region that never rejoin (each raises or returns): the statement is the whole
// region, its clauses end at the RERAISE where the last type test fails, or with a bare except
// clause's last operation (bare_clause_end).
void CodeDecoder::clauses_past_region(ExceptShape& shape, int handler, int end) const {
  const auto& ops = lifted_.ops;
  const std::vector<std::pair<int, int>>& typed_clauses = shape.typed_clauses;
  int last = typed_clauses.empty() ? handler : typed_clauses.back().second;
  int bare_end = bare_clause_end(ops, last, static_cast<int>(ops.size()));
  if (bare_end < 0 && (typed_clauses.empty() || ops[static_cast<size_t>(last)].op != Op::Reraise))
    return;
  int clauses_end = bare_end >= 0 ? bare_end : last + 1;
  for (int k = handler; k < last && clauses_end >= 0; ++k) {
    const Operation& op = ops[static_cast<size_t>(k)];
    if (op.op == Op::Jump && op.target > k && !stays_in_clause(typed_clauses, k, op.target))
      clauses_end = -1;
  }
  if (clauses_end >= 0) {
    shape.clauses_end = clauses_end;
    shape.join = end;
    shape.handlers_end = bare_end >= 0 ? bare_end : clauses_end - 1;
  }
}

// With an else and no clause jumping past it, the clauses that fall through end in a copy
// (after their POP_EXCEPT) of a short tail ending in a return: the else runs up to that tail,
// which is the code after the statement.
void CodeDecoder::except_else_tail(ExceptShape& shape, int handler, int end) const {
  const auto& ops = lifted_.ops;
  int else_begin = shape.else_begin;
  if (else_begin < 0 || shape.join != else_begin) return;
  for (int p = handler; p < else_begin && shape.tail_end < 0; ++p) {
    if (ops[static_cast<size_t>(p)].op != Op::PopExcept) continue;
    int q = p + 1;
    while (q < else_begin && !is_jump(ops[static_cast<size_t>(q)].op) &&
           ops[static_cast<size_t>(q)].op != Op::ReturnValue)
      ++q;
    // (A return of the clause's own computes its value before POP_EXCEPT, but a constant's:
    // `return K` there is the same as a copy of it.)
    if (q >= else_begin || q == p + 1 || ops[static_cast<size_t>(q)].op != Op::ReturnValue ||
        (q == p + 2 && ops[static_cast<size_t>(p) + 1].op == Op::LoadConst))
      continue;
    int length = q - p;
    for (int r = else_begin; r < end; ++r) {
      Op op = ops[static_cast<size_t>(r)].op;
      if (op == Op::ReturnValue) {
        if (r - length + 1 > else_begin && same_operations(ops, r - length + 1, p + 1, length)) {
          shape.join = r - length + 1;
          shape.tail_end = r + 1;
        }
        break;
      }
      if (is_jump(op) || op == Op::SetupFinally || op == Op::SetupWith || op == Op::PopBlock) break;
    }
  }
}

// Neither the body nor the else falls through (each returns or raises), and the clauses that
// do end (after their POP_EXCEPT and the unbinding of their name) in a copy of the code after
// the statement: 3.10 replaces a jump to an exit block of at most 4 instructions with a copy of
// it, and the original goes when nothing else reaches it. (A clause's own return of a computed
// value loads it before POP_EXCEPT; its own raise has no POP_EXCEPT; its own `return K` is the
// same as a copy.) The copy starts at clause_copy[clause end], the code after the statement is
// read from one of them, and the else runs up to the original when that was kept.
void CodeDecoder::except_clause_copies(ExceptShape& shape, int i, int handler, int end,
                                       int exit) const {
  const auto& ops = lifted_.ops;
  int else_begin = shape.else_begin;
  bool body_exits = shape.body_end > i + 1 && exits_at(ops, shape.body_end - 1);
  // (A body ending in a `continue` or `break` (its POP_BLOCK, then the loop's jump) never falls
  // through either: the code after the statement is reached from the clauses only, and a copy
  // after a clause's POP_EXCEPT runs once the exception is handled, never inside the clause.)
  const Operation& body_last = ops[static_cast<size_t>(shape.body_end) - 1];
  bool body_leaves = !body_exits && else_begin < 0 && shape.body_end > i + 2 &&
                     body_last.op == Op::Jump && leaves_loop(body_last.target);
  // (Nor does a body ending in a loop that never ends, `while True` without a break: its jump
  // back is the body's last operation, compiler_while dropping the POP_BLOCK nothing reaches.)
  bool body_loops = !body_exits && else_begin < 0 && body_last.op == Op::Jump &&
                    body_last.target > i && body_last.target < shape.body_end;
  const Operation& else_last = ops[static_cast<size_t>(end) - 1];
  bool else_leaves = else_begin >= 0 && !exits_at(ops, end - 1) && else_last.op == Op::Jump &&
                     leaves_loop(else_last.target);
  if (shape.tail_end >= 0 || shape.clauses_end >= 0 || shape.typed_clauses.empty() ||
      !((else_begin < 0 && (body_exits || body_leaves || body_loops)) ||
        (else_begin >= 0 && shape.join == else_begin)))
    return;
  std::vector<int> ends = clause_ends(ops, shape.typed_clauses, shape.handlers_end);
  int first_copy = collect_clause_copies(ops, handler, ends, shape.clause_copy, shape.copy_length);
  if (first_copy < 0) return;
  // (Where the body or else leaves the loop, a copy that is a `break`'s, of the code after the
  // loop (note_clause_break_copies), is read so: the break leaves the clause as well.)
  if ((body_leaves || else_leaves) && breaks_copy(first_copy, shape.copy_length)) {
    shape.clause_copy.clear();
    return;
  }
  int copy_length = shape.copy_length;
  if (else_begin >= 0) {
    // The original stays where the else falls into it (last in the region).
    // (Or it is the code after the region, which ends with the statement: an if's then-branch
    // whose join the clauses' copies repeat.)
    if (end - copy_length > else_begin &&
        same_operations(ops, end - copy_length, first_copy, copy_length)) {
      shape.original_tail = end - copy_length;
    } else if (same_operations(ops, end, first_copy, copy_length) && same_target(end, exit) &&
               !exits_at(ops, end - 1)) {
      shape.original_after = true;
    } else if (!exits_at(ops, end - 1) && !else_leaves) {
      // (An else ending in a `continue` or `break` does not fall through either.)
      shape.clause_copy.clear();
    }
    for (int k = else_begin; k < end && !shape.clause_copy.empty(); ++k) {
      const Operation& op = ops[static_cast<size_t>(k)];
      int kept = shape.original_tail >= 0 ? shape.original_tail : end;
      if (is_jump(op.op) && op.target >= kept && op.target != shape.original_tail &&
          !(shape.original_after && op.target == end))
        shape.clause_copy.clear();
    }
  }
  // (Without an else, what follows the body's POP_BLOCK is a copy: of the same code, read
  // below as a tail; else of a short else, the body's jump to it inlined.)
  if (!shape.clause_copy.empty() && else_begin < 0 && shape.tail_begin < shape.body_end) {
    if (shape.body_end - shape.tail_begin == copy_length &&
        same_operations(ops, shape.tail_begin, first_copy, copy_length))
      shape.clause_copy.clear();
    else
      shape.copied_else = true;
  }
  if (!shape.clause_copy.empty() && else_begin >= 0)
    shape.join = shape.original_tail >= 0 ? shape.original_tail : end;
}

// 3.10: whether the copy at `copy` of `length` operations after a clause's POP_EXCEPT is a
// `break`'s copy of the code after the innermost loop (compile.c's extend_block): the code at the
// loop's exit, or a `while True`'s only copy of it (note_clause_break_copies).
bool CodeDecoder::breaks_copy(int copy, int length) const {
  if (loops_.empty()) return false;
  auto noted = clause_breaks_.find(copy);
  if (noted != clause_breaks_.end() && noted->second.second == length) return true;
  int target = loops_.back().break_target;
  const auto& ops = lifted_.ops;
  return target >= 0 && target + length <= static_cast<int>(ops.size()) &&
         same_operations(ops, copy, target, length);
}

// The body, else and tail (the code after the statement, read from a copy) of the try/except.
CodeDecoder::ExceptBodies CodeDecoder::decode_except_bodies(const ExceptShape& shape, int i,
                                                            int end) {
  const auto& ops = lifted_.ops;
  int tail_begin = shape.tail_begin;
  int body_end = shape.body_end;
  int else_begin = shape.else_begin;
  int join = shape.join;
  ExceptBodies parts;
  {
    Restore<std::vector<int>> open(open_except_bodies_);
    open_except_bodies_.push_back(i);
    parts.body = decode_range(i + 1, tail_begin, tail_begin);
  }
  Body tail = tail_begin < body_end ? decode_range(tail_begin, body_end, body_end) : Body{};
  parts.orelse = else_begin >= 0 && join > else_begin
                     ? decode_range(else_begin, std::min(join, end), join)
                     : Body{};
  if (shape.tail_end >= 0) tail = decode_range(join, shape.tail_end, shape.tail_end);
  if (tail_begin < body_end && !tail.empty())
    strip_body_tail_copies(ops, i, tail_begin, body_end, parts.body, tail);
  if (shape.copied_else) parts.orelse = std::move(tail);
  if (shape.original_after) {
    tail.clear();
  } else if (!shape.clause_copy.empty()) {
    int from = shape.original_tail >= 0 ? shape.original_tail : shape.clause_copy.begin()->second;
    tail = decode_range(from, from + shape.copy_length, from + shape.copy_length);
    parts.copy_tail_end = shape.original_tail >= 0 ? end : -1;
  }
  parts.tail = std::move(tail);
  return parts;
}

// The except clauses at `handler`, under the three exception values, into `stmt`; each
// clause's [body, end).
std::vector<std::pair<int, int>> CodeDecoder::decode_except_clauses(Stmt& stmt,
                                                                    const ExceptShape& shape,
                                                                    int handler) {
  const auto& ops = lifted_.ops;
  std::vector<ExprPtr> saved_stack = stack_;
  size_t saved_depth = statement_depth_;
  std::string saved_name = handler_name_;
  for (int m = 0; m < 3; ++m) push(make_expr(ExprKind::Internal, {}, "prev_exc"));
  std::vector<ExprPtr> clause_stack = stack_;
  Restore<size_t> keep_loops(clause_loops_);
  clause_loops_ = loops_.size();
  std::vector<std::pair<int, int>> clause_ranges;  // each clause's [body, end)
  // (A join at the innermost for loop's exit, FOR_ITER's target, is no place a clause goes on
  // to: falling off the loop body jumps back to its head. A clause's jump there pops the
  // iterator first, compile.c's compiler_break unwinding the loop (POP_EXCEPT, POP_TOP, jump):
  // a `break`, read so where the clause's way on is the loop's next iteration.)
  int clause_exit = shape.join;
  if (!loops_.empty() && loops_.back().continue_target >= 0 &&
      ops[static_cast<size_t>(loops_.back().continue_target)].op == Op::ForIter &&
      ops[static_cast<size_t>(loops_.back().continue_target)].target == shape.join &&
      same_target(shape.join, loops_.back().break_target))
    clause_exit = loops_.back().continue_target;
  int k = handler;
  while (k < shape.handlers_end) {
    stack_ = clause_stack;
    statement_depth_ = clause_stack.size();
    ExceptHandler clause;
    if (ops[static_cast<size_t>(k)].op == Op::Reraise) break;
    int clause_end;
    int body_begin = read_except_clause_head(clause, k, shape.handlers_end, &clause_end);
    clause_ranges.emplace_back(body_begin, clause_end);
    handler_name_ = clause.name;
    Restore<std::vector<std::string>> keep_enclosing(enclosing_clause_names_);
    if (!saved_name.empty()) enclosing_clause_names_.push_back(saved_name);
    auto copy = shape.clause_copy.find(clause_end);
    clause.body = copy != shape.clause_copy.end()
                      ? decode_range(body_begin, copy->second, copy->second)
                      : decode_range(body_begin, clause_end, clause_exit);
    if (copy != shape.clause_copy.end() && clause.body.empty())
      clause.body.push_back(make_stmt(StmtKind::Pass));
    handler_name_ = saved_name;
    bool bare = clause.type == nullptr;
    stmt.handlers.push_back(std::move(clause));
    if (bare) break;
    k = ops[static_cast<size_t>(clause_end)].op == Op::LoadConst &&
                !stmt.handlers.back().name.empty()
            ? clause_end + 4
            : clause_end;
  }
  stack_ = saved_stack;
  statement_depth_ = saved_depth;
  return clause_ranges;
}

// The head of the except clause at `k`: its type and name into `clause`, its end into
// *clause_end; returns where its body starts.
int CodeDecoder::read_except_clause_head(ExceptHandler& clause, int k, int handlers_end,
                                         int* clause_end) {
  const auto& ops = lifted_.ops;
  if (is_pop_tops(ops, k, 3)) {
    *clause_end = handlers_end;
    return k + 3;
  }
  int check = k + 1;
  while (check < handlers_end && ops[static_cast<size_t>(check)].op != Op::CheckExcMatch) ++check;
  if (check + 4 >= handlers_end) throw DecodeFailure("except clause without a type test");
  push(make_expr(ExprKind::Internal, {}, "exc"));
  clause.type = evaluate(k + 1, check);
  pop();
  *clause_end = ops[static_cast<size_t>(check) + 1].target;
  const Operation& bind = ops[static_cast<size_t>(check) + 3];
  int body_begin = check + 5;
  if (bind.op == Op::StoreName) {
    clause.name = source_name(bind.text);
    if (ops[static_cast<size_t>(body_begin)].op == Op::SetupFinally) ++body_begin;
    if (*clause_end - 4 > body_begin && ops[static_cast<size_t>(*clause_end) - 1].op == Op::Reraise)
      *clause_end -= 4;
  } else if (bind.op != Op::PopTop) {
    throw DecodeFailure("except clause binds in an unexpected way");
  }
  return body_begin;
}

// Emits the try/except and the code after it read with it (the tail, whose copies the clauses
// hold); returns where the statement ends.
int CodeDecoder::emit_setup_except(const StmtPtr& stmt, const ExceptShape& shape,
                                   ExceptBodies& parts,
                                   const std::vector<std::pair<int, int>>& clause_ranges, int end,
                                   int exit) {
  Body& tail = parts.tail;
  if (!shape.clause_copy.empty()) {
    emit(stmt);
    for (StmtPtr& s : tail) emit(s);
    if (shape.else_begin >= 0) return parts.copy_tail_end >= 0 ? parts.copy_tail_end : end;
  }
  // The tail's copies in each clause, by its operations.
  int tail_ops = shape.tail_end >= 0 ? shape.join : shape.tail_begin;
  int tail_length =
      shape.tail_end >= 0 ? shape.tail_end - shape.join : shape.body_end - shape.tail_begin;
  std::vector<int> copies =
      clause_tail_copies(lifted_.ops, clause_ranges, !tail.empty() && shape.clause_copy.empty(),
                         tail_ops, tail_length, exit_copies_read_);
  // (A clause jumping to the join falls off to the code after the statement there, a jump that
  // extend_block would have replaced with a copy of a short exit: the body's tail is its own.)
  bool rejoined = false;
  for (int k = clause_ranges.empty() ? 0 : clause_ranges.front().first;
       k < shape.handlers_end && shape.tail_end < 0 && !clause_ranges.empty(); ++k) {
    const Operation& op = lifted_.ops[static_cast<size_t>(k)];
    rejoined |= op.op == Op::Jump && same_target(op.target, shape.join);
  }
  if (!shape.clause_copy.empty()) {
  } else if (tail.empty() || (!rejoined && (strip_counted_copies(*stmt, tail, copies) ||
                                            strip_copied_tail(*stmt, tail)))) {
    emit(stmt);
    for (StmtPtr& s : tail) emit(s);
  } else if (shape.tail_end >=
             0) {  // not a copy after all: the code after the statement, as it was
    Body after = std::move(stmt->bodies[1]);
    stmt->bodies[1].clear();
    emit(stmt);
    for (StmtPtr& s : after) emit(s);
    for (StmtPtr& s : tail) emit(s);
  } else {
    // Not a copy: a return of a constant in the body (the compiler loads a constant after
    // unwinding the block), or else the statement's else (a return of a computed value loads it
    // before POP_BLOCK; a raise cannot be left after it).
    bool body_return = tail.size() == 1 && tail[0]->kind == StmtKind::Return &&
                       (tail[0]->exprs.empty() || !tail[0]->exprs[0] ||
                        tail[0]->exprs[0]->kind == ExprKind::Constant);
    for (StmtPtr& s : tail) stmt->bodies[body_return ? 0 : 1].push_back(s);
    emit(stmt);
  }
  if (shape.tail_end >= 0) return shape.tail_end;
  if (shape.join > end && !same_target(shape.join, exit))
    throw DecodeFailure("try statement leaves its region");
  return std::min(shape.join, end);
}

int CodeDecoder::decode_setup_with(int i, int end, int exit) {
  const auto& ops = lifted_.ops;
  int handler = ops[static_cast<size_t>(i)].target;
  if (handler <= i || static_cast<size_t>(handler) + 3 > ops.size() ||
      ops[static_cast<size_t>(handler)].op != Op::WithExceptStart ||
      ops[static_cast<size_t>(handler) + 1].op != Op::JumpIf) {
    throw DecodeFailure("with statement without its exit handler");
  }
  ExprPtr context = pop();
  const Operation& before = ops[static_cast<size_t>(handler) - 1];
  bool jumps_over = before.op == Op::Jump && before.target > handler;
  int body_end = jumps_over ? handler - 1 : handler;
  int with_end = jumps_over ? before.target : ops[static_cast<size_t>(handler) + 1].target + 5;
  if (!jumps_over && ops[static_cast<size_t>(body_end) - 1].op == Op::ReturnValue) {
    for (int q = body_end - 1; q > i; --q) {
      if (ops[static_cast<size_t>(q)].op != Op::PopBlock) continue;
      if (q + 6 < body_end) body_end = merge_exit_copies(i, q, body_end) + (body_end - q);
      break;
    }
  }
  // The code after the statement, short and ending in a return, copied after the normal path's
  // exit call (POP_BLOCK, then 5 operations) in place of a jump to it (extend_block). A bare
  // RETURN_VALUE (n = 1): the statement lies in a finally body's copy on a return's way out,
  // the returned value waiting under it (compiler_unwind_fblock_stack); the body's own return
  // has ROT_TWO, not POP_BLOCK, before the exit call. Or ending in a raise: extend_block copies
  // any exit block (a bare `raise` after the statement in an except clause: threading's
  // Thread.start); a raise the body writes comes before its POP_BLOCK.
  Op last = ops[static_cast<size_t>(body_end) - 1].op;
  if (!jumps_over && with_end < static_cast<int>(ops.size()) &&
      (last == Op::ReturnValue || last == Op::RaiseVarargs || last == Op::Reraise)) {
    for (int n = 1; body_end - n - 6 > i && n <= 12; ++n) {
      int copy = body_end - n;
      if (ops[static_cast<size_t>(copy) - 6].op == Op::PopBlock &&
          ops[static_cast<size_t>(copy) - 1].op == Op::PopTop &&
          same_operations(ops, copy, with_end, n)) {
        mark_consumed(copy, body_end);
        body_end = copy;
        break;
      }
    }
  }
  push(make_expr(ExprKind::Internal, {}, "with_exit"));
  push(make_expr(ExprKind::Internal, {}, "with_value"));
  size_t saved_depth = statement_depth_;
  statement_depth_ = stack_.size() - 1;
  ExprPtr saved_target = captured_target_;
  captured_target_ = nullptr;
  Body body = decode_range(i + 1, body_end, with_end);
  ExprPtr target = captured_target_;
  captured_target_ = saved_target;
  statement_depth_ = saved_depth;
  pop();
  pop();
  mark_consumed(handler, ops[static_cast<size_t>(handler) + 1].target + 5);
  auto stmt = make_stmt(StmtKind::With, {context, target}, {std::move(body)});
  stmt->is_async = ops[static_cast<size_t>(i)].text == "async";  // SETUP_ASYNC_WITH (see lift)
  emit(stmt);
  if (with_end > end && !same_target(with_end, exit))
    throw DecodeFailure("with statement leaves its region");
  return std::min(with_end, end);
}

}  // namespace glassbox::decompiler
