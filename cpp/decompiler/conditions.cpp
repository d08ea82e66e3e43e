// Conditions: condition chains of `expr; jump-if` items, the boolean tests they form, and the
// if statements and conditional expressions whose branches their true and false exits delimit.
#include <algorithm>
#include <functional>
#include <optional>

#include "bytecode/instructions.hpp"
#include "decompiler/decoder.hpp"
#include "decompiler/structure_support.hpp"

namespace glassbox::decompiler {

ExprPtr negate(const ExprPtr& e);

namespace {

// Whether `op` leaves the function (a return or raise): code after it is reached only by jumps.
bool leaves_function(Op op) {
  return op == Op::ReturnValue || op == Op::ReturnConst || op == Op::RaiseVarargs ||
         op == Op::Reraise;
}

// An identity or membership test in jump position keeps the IS_OP/CONTAINS_OP argument its
// source wrote: the compiler folds `not (a is b)` into `a is not b` only where the `not` applies
// to the comparison itself, and under `not (a and b is c)` turns the jump around instead.
// (3.11+ compiles `x is None` and `x is not None` to a None test jump either way.)
bool keeps_operator(const ExprPtr& e, bool none_free) {
  return e->kind == ExprKind::Compare && e->ops.size() == 1 && e->args.size() == 2 &&
         (e->ops[0] == "in" || e->ops[0] == "not in" || e->ops[0] == "is" ||
          e->ops[0] == "is not") &&
         !(none_free && is_none(e->args[1]));
}

bool is_kept_negation(const ExprPtr& e, bool none_free) {
  return e->kind == ExprKind::UnaryOp && e->text == "not" && keeps_operator(e->args[0], none_free);
}

// `not` of a test in jump position, as read from the jumps: De Morgan keeps the reading natural
// (`a is not None and not b` rather than `not (a is None or b)`) and compiles to the same jumps;
// an identity or membership test keeps its operator under a `not` that `settle_test` places.
ExprPtr negate_jumps(const ExprPtr& e, bool none_free) {
  if (e->kind == ExprKind::BoolOp) {
    std::vector<ExprPtr> parts;
    for (const ExprPtr& part : e->args) parts.push_back(negate_jumps(part, none_free));
    return make_expr(ExprKind::BoolOp, std::move(parts), e->text == "and" ? "or" : "and");
  }
  if (keeps_operator(e, none_free)) return make_expr(ExprKind::UnaryOp, {e}, "not");
  return negate(e);
}

// The source of a test read by `negate_jumps`: a `not` over a kept identity or membership test
// moves up to the and/or around it (`not (a is b) or not c` is `not (a is b and c)`), the only
// place the source can have it; where no and/or can take it (a kept test beside it), or at the
// top, the operator turns instead (the compiler's own reading of `not (a is b)`).
ExprPtr settle_test(const ExprPtr& e, bool none_free, bool top) {
  if (e->kind == ExprKind::UnaryOp && e->text == "not" && e->args[0]->kind == ExprKind::BoolOp) {
    ExprPtr inner = settle_test(e->args[0], none_free, false);
    if (inner->kind == ExprKind::UnaryOp && inner->text == "not") return inner->args[0];
    return make_expr(ExprKind::UnaryOp, {inner}, "not");
  }
  if (e->kind != ExprKind::BoolOp)
    return top && is_kept_negation(e, none_free) ? negate(e->args[0]) : e;
  std::vector<ExprPtr> parts;
  for (const ExprPtr& part : e->args) parts.push_back(settle_test(part, none_free, false));
  bool any_kept = std::any_of(parts.begin(), parts.end(),
                              [&](const ExprPtr& p) { return is_kept_negation(p, none_free); });
  bool any_bare = std::any_of(parts.begin(), parts.end(),
                              [&](const ExprPtr& p) { return keeps_operator(p, none_free); });
  if (any_kept && !any_bare) {
    std::vector<ExprPtr> flipped;
    for (const ExprPtr& part : parts) flipped.push_back(negate(part));
    ExprPtr inner =
        make_expr(ExprKind::BoolOp, std::move(flipped), e->text == "and" ? "or" : "and");
    return make_expr(ExprKind::UnaryOp, {inner}, "not");
  }
  for (ExprPtr& part : parts)
    if (is_kept_negation(part, none_free)) part = negate(part->args[0]);
  return make_expr(ExprKind::BoolOp, std::move(parts), e->text);
}

}  // namespace

ExprPtr negate_test(const ExprPtr& e, bool none_free) {
  return settle_test(negate_jumps(e, none_free), none_free, true);
}

namespace {

bool is_none_constant(const Operation& op) {
  return (op.op == Op::ReturnConst || op.op == Op::LoadConst) && op.constant &&
         op.constant->kind == bytecode::ObjectKind::None;
}

// Whether the operations ending just before `end` return None.
bool ends_in_return_none(const std::vector<Operation>& ops, int end) {
  if (end < 1) return false;
  const Operation& last = ops[static_cast<size_t>(end - 1)];
  if (last.op == Op::ReturnConst) return is_none_constant(last);
  return last.op == Op::ReturnValue && end >= 2 &&
         is_none_constant(ops[static_cast<size_t>(end - 2)]);
}

bool is_identity_or_membership(const ExprPtr& e) {
  return e->kind == ExprKind::Compare && e->ops.size() == 1 &&
         (e->ops[0] == "in" || e->ops[0] == "not in" || e->ops[0] == "is" || e->ops[0] == "is not");
}

// A test that cannot be written turned around: `not (a in b)` compiles as `a not in b`;
// `not (a < b < c)` jumps when the chain holds, its cleanup falling into the code after the
// test (compiler_jump_if), where the chain's own cleanup jumps where the test fails.
bool cannot_turn_around(const ExprPtr& e) {
  return is_identity_or_membership(e) || (e->kind == ExprKind::Compare && e->ops.size() > 1);
}

// (So does an and/or of tests with one of those among them, but for `is None`, which
// compiles to a None test jump either way.)
bool mentions_identity_or_membership(const ExprPtr& e, int depth) {
  if (e->kind == ExprKind::BoolOp && depth < 50) {
    return std::any_of(e->args.begin(), e->args.end(), [&](const ExprPtr& part) {
      return mentions_identity_or_membership(part, depth + 1);
    });
  }
  if (e->kind == ExprKind::UnaryOp && e->text == "not" && depth < 50)
    return mentions_identity_or_membership(e->args[0], depth + 1);
  if (depth > 0 && e->kind == ExprKind::Compare && e->args.size() == 2 &&
      (is_none(e->args[0]) || is_none(e->args[1])))
    return false;
  return cannot_turn_around(e);
}

}  // namespace

std::vector<CodeDecoder::ConditionItem> CodeDecoder::collect_conditions_range(int begin, int end) {
  std::vector<ConditionItem> items;
  int start = begin;
  int k = begin;
  ++expression_only_;
  while (k < end) {
    const Operation& op = lifted_.ops[static_cast<size_t>(k)];
    if (op.op == Op::JumpIf && value_boolop_end(k) < 0) {
      items.push_back({pop(), op.arg, op.target, start, k, k + 1});
      start = ++k;
      continue;
    }
    k = execute_step(k);
  }
  --expression_only_;
  return items;
}

// The cleanup may sit elsewhere (3.12+) and hold a copy of the code where the chain goes
// when false (`POP_TOP; RETURN_CONST None`, an assert's raise) instead of jumping there.
void CodeDecoder::consume_moved_chain_cleanup(int k, int cleanup, int false_exit) {
  const auto& ops = lifted_.ops;
  int size = static_cast<int>(ops.size());
  if (cleanup > k && cleanup + 1 < size && ops[static_cast<size_t>(cleanup)].op == Op::PopTop) {
    // (Or the cleanup falls into that code: the true path ends in a return or a raise.)
    if (cleanup + 1 == false_exit) {
      mark_consumed(cleanup, cleanup + 1);
      return;
    }
    const Operation& after = ops[static_cast<size_t>(cleanup) + 1];
    int copied = copied_block_length(cleanup + 1, false_exit);
    if (after.op == Op::Jump && same_target(after.target, false_exit)) copied = 1;
    // (Not where another jump goes there too: then the code the cleanup falls into is the
    // original, and the last link's way the copy, as at the bottom of a rotated loop whose
    // top test jumps to its exit; that code is kept.)
    bool shared = false;
    for (const Operation& o : ops) shared |= is_jump(o.op) && o.target == cleanup + 1;
    if (shared) {
      mark_consumed(cleanup, cleanup + 1);
      return;
    }
    if (copied > 0) {
      mark_consumed(cleanup, cleanup + 1 + copied);
      return;
    }
  }
  throw DecodeFailure("chained comparison cleanup");
}

// Gathers `expr; jump-if` items starting with the jump at `j` (its value is on the stack), as
// long as what follows is another pure test, and keeps the longest prefix whose targets are
// only its own true and false exits.
// A chained comparison as a test: `a < b < c` keeps a copy of b on the stack below the first
// comparison, whose false exit goes through a cleanup block (POP_TOP; JUMP) placed after the
// last comparison's jump and a jump over it.
CodeDecoder::ConditionItem CodeDecoder::finish_chained_test(ConditionItem item) {
  const auto& ops = lifted_.ops;
  ExprPtr first = item.expr;
  if (first->kind != ExprKind::Compare || stack_.empty() || !is_use_of(first->args.back(), top()))
    return item;
  ExprPtr kept = top();  // (the middle operand, or the walrus storing it)
  int cleanup = item.target;
  int k = item.jump + 1;
  ++expression_only_;
  while (k < static_cast<int>(ops.size()) && ops[static_cast<size_t>(k)].op != Op::JumpIf) {
    // (A named expression in a later link: COPY 1, then the store, compiler_visit_expr's
    // NamedExpr_kind.)
    Op op = ops[static_cast<size_t>(k)].op;
    bool walrus = op == Op::StoreName && ops[static_cast<size_t>(k) - 1].op == Op::Copy &&
                  ops[static_cast<size_t>(k) - 1].arg == 1;
    if (!is_pure(op) && !walrus) throw DecodeFailure("chained comparison test");
    k = execute_step(k);
  }
  --expression_only_;
  if (k + 1 >= static_cast<int>(ops.size())) throw DecodeFailure("chained comparison test");
  ExprPtr second = pop();
  const Operation& last_jump = ops[static_cast<size_t>(k)];
  int last_sense = last_jump.arg;
  // 3.11+: a last link `... is None` became POP_JUMP_IF_[NOT_]NONE on the middle operand. Read
  // as jumping when the chain is false, where its cleanup must lead too (checked below).
  bool none_link = last_sense >= 2 && is_use_of(second, kept);
  if (none_link) {
    second = make_expr(ExprKind::Compare, {second, make_constant("None")});
    second->ops = {last_sense == 3 ? "is" : "is not"};
    last_sense = 0;
  }
  if (second->kind != ExprKind::Compare || !is_use_of(second->args[0], kept)) {
    throw DecodeFailure("chained comparison test");
  }
  auto merged = std::make_shared<Expr>(*first);
  merged->args.insert(merged->args.end(), second->args.begin() + 1, second->args.end());
  merged->ops.insert(merged->ops.end(), second->ops.begin(), second->ops.end());
  ConditionItem result{merged, last_sense, last_jump.target, item.start, k, k + 1};
  if (!stack_.empty() && is_use_of(second->args.back(), top())) {
    // A longer chain: the same cleanup block serves every link.
    result = finish_chained_test(result);
    return result;
  }
  // 3.12+ has no backward conditional jump: the last test jumping back to a loop's head
  // becomes the opposite jump over a JUMP_BACKWARD, to the jump over the cleanup (when false,
  // `if a < b < c: <rest of the body>`; when true, `if not a < b < c: ...`, whose cleanup
  // falls into the rest).
  if (profile_.conditional_jumps_forward_only && last_sense <= 1 && last_jump.target == k + 2 &&
      cleanup == k + 3 && k + 4 < static_cast<int>(ops.size()) &&
      ops[static_cast<size_t>(k) + 1].op == Op::Jump &&
      ops[static_cast<size_t>(k) + 1].target <= k &&
      ops[static_cast<size_t>(k) + 2].op == Op::Jump &&
      (last_sense == 1 ? ops[static_cast<size_t>(k) + 2].target > cleanup
                       : ops[static_cast<size_t>(k) + 2].target == cleanup + 1) &&
      ops[static_cast<size_t>(cleanup)].op == Op::PopTop) {
    result.sense = 1 - last_sense;
    result.target = ops[static_cast<size_t>(k) + 1].target;
    result.next = ops[static_cast<size_t>(k) + 2].target;
    return result;
  }
  const Operation& over = ops[static_cast<size_t>(k) + 1];
  if (over.op != Op::Jump || cleanup != k + 2 ||
      ops[static_cast<size_t>(cleanup)].op != Op::PopTop) {
    consume_moved_chain_cleanup(k, cleanup, last_sense == 0 ? last_jump.target : k + 1);
    return result;
  }
  if (none_link && !same_target(cleanup + 1, last_jump.target) &&
      copied_block_length(cleanup + 1, last_jump.target) == 0) {
    throw DecodeFailure("chained comparison test");
  }
  result.next = over.target;
  return result;
}

// The tests of one part of a conditional expression used as a test (`finish_if_expression_test`):
// pure operations and jumps, from `begin` to `end`, under the handler of `like`; each test jumps
// to `label`, to `end` or to a later test of the part, and the last falls through to `last_next`.
std::vector<CodeDecoder::ConditionItem> CodeDecoder::if_expression_part(int begin, int end,
                                                                        int like, int label,
                                                                        int last_next) {
  const auto& ops = lifted_.ops;
  for (int k = begin; k < end; ++k) {
    Op op = ops[static_cast<size_t>(k)].op;
    if ((op != Op::JumpIf && !is_pure(op) && op != Op::MakeFunction) ||
        flow_.handler_covering(k) != flow_.handler_covering(like) ||
        flow_.last_backward_source[static_cast<size_t>(k)] > k)
      throw DecodeFailure("conditional expression test");
  }
  size_t depth = stack_.size();
  std::vector<ConditionItem> items = collect_conditions_range(begin, end);
  if (items.empty() || stack_.size() != depth || items.back().next != last_next ||
      !same_target(items.back().target, label))
    throw DecodeFailure("conditional expression test");
  for (ConditionItem& item : items) {
    bool inside = std::any_of(items.begin(), items.end(), [&](const ConditionItem& other) {
      return other.start == item.target && other.start > item.jump;
    });
    if (inside || same_target(item.target, label)) continue;
    if (!same_target(item.target, end)) throw DecodeFailure("conditional expression test");
    item.target = end;  // (the jump over the else part, or through it)
  }
  return items;
}

// `if (a if b else c):` is compiled as the test b jumping to the else part c when false, the
// tests of a jumping where the whole test jumps (its label) or falling through to a jump over
// the else part to the code after it, and the tests of c jumping alike (compiler_jump_if's
// IfExp_kind; `not`, and/or around it combine as with any test). Read as one item, `a if b else
// c`, jumping to the label as the else part's last test does; `item` unchanged where the code is
// not that.
CodeDecoder::ConditionItem CodeDecoder::finish_if_expression_test(ConditionItem item) {
  const auto& ops = lifted_.ops;
  int size = static_cast<int>(ops.size());
  int else_start = item.target;
  if (else_start <= item.next + 1 || else_start >= size) return item;
  const Operation& over = ops[static_cast<size_t>(else_start - 1)];
  if (over.op != Op::Jump || over.target <= else_start) return item;
  int end = over.target;
  if (end >= size || ops[static_cast<size_t>(end - 1)].op != Op::JumpIf) return item;
  int label = ops[static_cast<size_t>(end - 1)].target;  // the else part's last test's
  if (label >= item.start && label < end) return item;
  std::vector<ExprPtr> saved = stack_;
  size_t body_size = out_->size();
  try {
    std::vector<ConditionItem> yes =
        if_expression_part(item.next, else_start - 1, item.jump, label, else_start - 1);
    std::vector<ConditionItem> no = if_expression_part(else_start, end, item.jump, label, end);
    if (out_->size() != body_size) throw DecodeFailure("conditional expression test");
    // (Read as jumping to the label when true where the parts' last tests do; a None test may
    // read either way.)
    int sense = ops[static_cast<size_t>(end - 1)].arg;
    if (sense >= 2) sense = ops[static_cast<size_t>(else_start - 2)].arg;
    bool cond = sense == 1;
    ExprPtr test = build_condition({item}, 0, 1, else_start, false, item.next);
    ExprPtr body = build_condition(yes, 0, yes.size(), label, cond, else_start - 1);
    ExprPtr orelse = build_condition(no, 0, no.size(), label, cond, end);
    ExprPtr value = make_expr(ExprKind::IfExp, {body, test, orelse});
    return ConditionItem{value, cond ? 1 : 0, label, item.start, no.back().jump, end};
  } catch (const DecodeFailure&) {
    stack_ = saved;
    out_->resize(body_size);
    return item;
  }
}

// A chained comparison ending a condition, jumping when false: compiler_jump_if's Compare_kind
// jumps over its cleanup to the code where the condition holds, and a short exit block there
// is copied into that jump (3.10 extend_block, 3.12+ inline_small_exit_blocks). The original
// stays right after the cleanup (consumed by finish_chained_test) where an earlier test jumps
// when the condition holds, `if a or b < c < d: return 0`: that test goes where the copy is.
bool CodeDecoder::original_after_chain_cleanup(int copy, int t) const {
  const auto& ops = lifted_.ops;
  int length = copied_block_length(copy, t);
  int cleanup = copy + length;
  if (length == 0 || cleanup >= t || ops[static_cast<size_t>(cleanup)].op != Op::PopTop)
    return false;
  for (int k = cleanup; k < t; ++k) {
    if (!consumed_[static_cast<size_t>(k)]) return false;
  }
  return true;
}

// Gathers `expr; jump-if` items starting with the jump at `j` (its value is on the stack), as
// long as what follows is another pure test, and keeps the longest prefix whose targets are
// only its own true and false exits.
// (3.10: a chained comparison's cleanup, POP_TOP, falls into the short exit block where the
// chain goes when false, which extend_block copied into the jump over the cleanup: a test
// before the chain that jumps to that block, consumed with the cleanup, goes where the copy
// goes.)
// finish_chained_test leaves that block unconsumed where a jump reaches it (the exit of a
// rotated loop whose top test jumps there); it is still the copy's place where every such jump
// is a test of this condition, and the block is then consumed as the copy's original.
int CodeDecoder::condition_exit(const std::vector<ConditionItem>& items, int t,
                                const ConditionItem& last) const {
  const auto& ops = lifted_.ops;
  auto only_this_condition_jumps_to = [&] {
    for (size_t q = 0; q < ops.size(); ++q) {
      const int at = static_cast<int>(q);
      if (is_jump(ops[q].op) && ops[q].target == t && (at < items.front().start || at > last.jump))
        return false;
    }
    return true;
  };
  if (t == last.next || same_target(t, last.target) || t < 1) return t;
  if (t > last.next && original_after_chain_cleanup(last.next, t)) {
    return only_this_condition_jumps_to() ? last.next : t;
  }
  if (ops[static_cast<size_t>(t) - 1].op != Op::PopTop || !consumed_[static_cast<size_t>(t) - 1])
    return t;
  if (!consumed_[static_cast<size_t>(t)] && !only_this_condition_jumps_to()) return t;
  if (copied_block_length(last.next, t) > 0) return last.next;
  if (copied_block_length(last.target, t) > 0) return last.target;
  return t;
}

// 3.12+: two copies of one short exit on other lines are two statements' exits: a copy keeps
// the block's line, or, of a block without one, takes the line of the jump to it
// (duplicate_exits_without_lineno, propagate_line_numbers), and the tests of one condition
// jump to one block from one line. `if a:` then `if b:` on a line of its own, both ending the
// function (two `return None` copies), is no `if a and b:` (sympy's _matches). (An and-chain
// spread over lines reads as nested ifs: the same behaviour. Where a test jumps elsewhere, an
// or or a nested if's body, the lines are no guide: asyncio's `_on_completion`.)
bool CodeDecoder::exit_copies_on_other_lines(int a, int b) const {
  if (!profile_.copies_exits_with_jump_lines) return false;
  a = resolve(a);
  b = resolve(b);
  if (a == b) return false;
  int line_a = lifted_.ops[static_cast<size_t>(a)].line;
  int line_b = lifted_.ops[static_cast<size_t>(b)].line;
  return line_a >= 0 && line_b >= 0 && line_a != line_b;
}

// 3.12+ has no backward conditional jump: a test of an and/or jumping back to the loop head
// (threaded there from the loop's jump back) becomes a jump over a JUMP_BACKWARD that no line
// and (inside a handler's region) no handler covers (normalize_jumps, after
// label_exception_targets). Where more tests follow, the item is read back as that jump:
// `for x in r: if a or b and c: yield x` (xml.etree.ElementPath's select). The same jumps.
bool CodeDecoder::turned_over_jump_back(ConditionItem* item, int end) const {
  const auto& ops = lifted_.ops;
  const int over = item->next;
  // (Only for a test whose region ends the loop body: in an if's branch, `if a and b: ...`
  // then `else: continue`, the if reads its own jumps back.)
  // (A for body with no jump back of its own, every way back threaded into its tests
  // (optimize_basic_block's jump threading, then remove_unreachable): up to the FOR_ITER's exit.)
  if (!profile_.conditional_jumps_forward_only || loops_.empty() || item->target != over + 1 ||
      over + 1 >= end || item->turned)
    return false;
  const LoopContext& loop = loops_.back();
  int body_end = loop.back_jump >= 0 ? loop.back_jump : loop.body_end;
  if (body_end < 0 || end < body_end) return false;
  const Operation& back = ops[static_cast<size_t>(over)];
  if (back.op != Op::Jump || back.target >= over || back.line >= 0 ||
      resolve(back.target) != resolve(loops_.back().continue_target) ||
      ops[static_cast<size_t>(over) + 1].op == Op::Jump)
    return false;
  for (const Operation& o : ops) {
    if (is_jump(o.op) && o.target == over) return false;  // (its own block, only fallen into)
  }
  if (int handler = flow_.handler_covering(item->start);
      handler >= 0 && flow_.handler_covering(over) == handler)
    return false;
  static const int flipped[] = {1, 0, 3, 2};
  item->sense = flipped[item->sense];
  item->target = back.target;
  item->next = over + 1;
  item->turned = true;
  return true;
}

// Turned items are kept only where the last item's jump was turned too, read by the if as a
// whole (if_inverted_over_jump_back): else the items are read as they were, up to the first
// turned one. The last item's own turned jump is left to the if.
void CodeDecoder::keep_turned_items(std::vector<ConditionItem>& items, const TurnedItems& turned,
                                    size_t* best, std::vector<ExprPtr>* best_stack, int end) const {
  if (turned.originals.empty() || turned.originals.front().first >= *best) return;
  ConditionItem last = items[*best - 1];
  for (const auto& [index, original] : turned.originals) {
    if (index + 1 == *best) last = original;
  }
  // (Nor where code after the test jumps back into it or to its label: the last item is a
  // loop's test, `if a: while b:`, its body's end jumping back to the label.)
  bool jumped_back_into = false;
  for (int k = last.next + 1; k < end && !jumped_back_into; ++k) {
    const Operation& o = lifted_.ops[static_cast<size_t>(k)];
    jumped_back_into = is_jump(o.op) && o.target >= items[0].start && o.target <= last.next + 1;
  }
  if (ConditionItem probe = last; jumped_back_into || !turned_over_jump_back(&probe, end)) {
    *best = turned.best;
    *best_stack = turned.best_stack;
    items[turned.originals.front().first] = turned.originals.front().second;
    return;
  }
  items[*best - 1] = last;
}

// Whether the first `count` items form a whole condition: every item goes to the last one's
// true or false exit, or to a later item.
bool CodeDecoder::condition_complete(const std::vector<ConditionItem>& items, size_t count,
                                     int end) const {
  const auto& ops = lifted_.ops;
  const ConditionItem& last = items[count - 1];
  // (No if's then-branch falls into its label through a test whose other way goes past the
  // label inside the region: that test's if is nested, and the label's code only looks like
  // where an earlier item goes, two alike short returns: `if a: if c or d: return R`, then
  // `x = e()`, then `return R`. A longer prefix only: the first test is what is left.)
  int label = last.target;
  if (count > 1 && label > last.next && label < end &&
      ops[static_cast<size_t>(label) - 1].op == Op::JumpIf) {
    int past = ops[static_cast<size_t>(label) - 1].target;
    if (past > label && past < end) return false;
  }
  // (An and-chain whose tests all jump to copies of one exit, on other lines: nested ifs.)
  bool all_to_exit = true;
  bool apart = false;
  for (size_t k = 0; k < count; ++k) {
    int t = condition_exit(items, items[k].target, last);
    if (t == last.next || same_target(t, last.target)) {
      all_to_exit &= t != last.next;
      apart |=
          t != last.next && chains_apart_by_lines_ && exit_copies_on_other_lines(t, last.target);
      continue;
    }
    all_to_exit = false;
    if (items[k].turned && resolve(t) == resolve(last.next)) continue;
    bool internal = false;
    for (size_t m = k + 1; m < count; ++m) internal |= items[m].start == t;
    if (!internal) return false;
  }
  if (apart && all_to_exit) read_chain_apart_ = true;
  return !(apart && all_to_exit);
}

// The operations of the test starting at `*k`, up to its jump, evaluated (`*k` moves on):
// false where one of them is no part of a test.
bool CodeDecoder::read_test_operations(int* k, int end, int j, int region) {
  const auto& ops = lifted_.ops;
  bool ok = true;
  ++expression_only_;
  try {
    while (*k < end &&
           (ops[static_cast<size_t>(*k)].op != Op::JumpIf || value_boolop_end(*k) >= 0)) {
      // (A lambda or generator expression in a test makes a function, a generator expression
      // takes its iterable's iterator: no statement. Nor into a try body: `if a: try: if b:
      // ...` ending alike; a later part is covered by the first's handler.)
      Op op = ops[static_cast<size_t>(*k)].op;
      // (A named expression in a later test: COPY 1, then the store (compiler_visit_expr's
      // NamedExpr_kind), a value left for the test.)
      bool walrus = op == Op::StoreName && *k > 0 &&
                    ops[static_cast<size_t>(*k) - 1].op == Op::Copy &&
                    ops[static_cast<size_t>(*k) - 1].arg == 1;
      if ((!is_pure(op) && op != Op::MakeFunction && op != Op::GetIter && !walrus) ||
          flow_.last_backward_source[static_cast<size_t>(*k)] > *k ||
          flow_.handler_covering(*k) != flow_.handler_covering(j) ||
          (region != -2 && op != Op::Nop && flow_.handler_covering(*k) != region)) {
        ok = false;
        break;
      }
      *k = execute_step(*k);
    }
  } catch (const DecodeFailure&) {
    ok = false;
  }
  return ok;
}

std::vector<CodeDecoder::ConditionItem> CodeDecoder::collect_conditions(int j, int end,
                                                                        int stmt_start) {
  const auto& ops = lifted_.ops;
  std::vector<ConditionItem> items;
  items.push_back(finish_if_expression_test(
      finish_chained_test({pop(), ops[static_cast<size_t>(j)].arg,
                           ops[static_cast<size_t>(j)].target, stmt_start, j, j + 1})));
  size_t best = condition_complete(items, 1, end) ? 1 : 0;
  std::vector<ExprPtr> best_stack = stack_;
  // 3.11+: a test is computed under one handler; an operation under another starts a statement
  // of its own (a try statement's body: `if a:` then `try: if b:`, whose jumps may meet).
  int region = profile_.exception_table && j > 0 ? flow_.handler_covering(j - 1) : -2;
  int k = items.back().next;
  // (A test jumping to the operation after it goes there either way, no part of an and/or with
  // later tests: `if a: pass`, its body a NOP the lift dropped, then `if b:`.)
  TurnedItems turned;
  while (k < end && items.size() < 64 && items.back().target != items.back().next) {
    // (In a for body with no jump back of its own, only into a next test on the item's line:
    // one on another line is a statement of its own, `if a is not b:` then `assert c`.)
    if (ConditionItem item = items.back();
        turned_over_jump_back(&item, end) &&
        (loops_.back().back_jump >= 0 ||
         line_at(ops, item.next) == line_at(ops, items.back().jump))) {
      if (turned.originals.empty()) {
        turned.best = best;
        turned.best_stack = best_stack;
      }
      turned.originals.push_back({items.size() - 1, items.back()});
      items.back() = item;
      k = item.next;
    }
    int start = k;
    size_t depth = stack_.size();
    // (Restored, not decremented: an evaluate that threw inside leaves its own increment.)
    Restore<int> only(expression_only_);
    bool ok = read_test_operations(&k, end, j, region);
    expression_only_ = only.saved;
    // (A chained comparison's first link keeps a copy of its middle operand below it.)
    bool chain_link = stack_.size() == depth + 2 && top()->kind == ExprKind::Compare &&
                      top()->args.size() == 2 && is_use_of(top()->args.back(), top(2));
    if (!ok || k >= end || (stack_.size() != depth + 1 && !chain_link) || start == k) break;
    try {
      items.push_back(finish_if_expression_test(
          finish_chained_test({pop(), ops[static_cast<size_t>(k)].arg,
                               ops[static_cast<size_t>(k)].target, start, k, k + 1})));
    } catch (const DecodeFailure&) {
      break;
    }
    if (stack_.size() != depth) break;
    k = items.back().next;
    if (condition_complete(items, items.size(), end)) {
      best = items.size();
      best_stack = stack_;
    }
  }
  keep_turned_items(items, turned, &best, &best_stack, end);
  if (best == 0) throw DecodeFailure("incomplete condition");
  items.resize(best);
  for (ConditionItem& item : items) {
    const int t = item.target;
    item.target = condition_exit(items, t, items.back());
    if (item.target != t && !consumed_[static_cast<size_t>(t)])
      mark_consumed(t, t + copied_block_length(item.target, t));
    if (item.turned && resolve(item.target) == resolve(items.back().next))
      item.target = items.back().next;
  }
  stack_ = best_stack;
  return items;
}

// The test of one item that jumps to its target when it equals `cond`.
ExprPtr CodeDecoder::condition_atom(const ConditionItem& item, bool cond, bool top) const {
  ExprPtr atom = item.expr;
  bool sense = item.sense == 1;
  if (item.sense >= 2) {
    atom = make_expr(ExprKind::Compare, {atom, make_constant("None")});
    atom->ops = {item.sense == 2 ? "is" : "is not"};
    sense = true;
  }
  if (sense == cond) return atom;
  ExprPtr negated = negate_jumps(atom, profile_.none_tests_jump);
  return top ? settle_test(negated, profile_.none_tests_jump, true) : negated;
}

// The test that items [lo, hi) compute: they jump to `label` when it equals `cond`, and
// otherwise fall through to `end_position`.
ExprPtr CodeDecoder::build_condition(const std::vector<ConditionItem>& items, size_t lo, size_t hi,
                                     int label, bool cond, int end_position, bool top) const {
  if (hi - lo == 1) return condition_atom(items[lo], cond, top);
  // The first item leaving the range says whether this is a chain to `label` or to the end.
  size_t first = lo;
  auto is_label = [&](int t) { return t == label || (t != end_position && same_target(t, label)); };
  while (first < hi && !is_label(items[first].target) && items[first].target != end_position)
    ++first;
  if (first >= hi) throw DecodeFailure("malformed condition");
  bool to_label = is_label(items[first].target);
  int split_target = to_label ? label : end_position;
  std::vector<std::pair<size_t, size_t>> groups;
  size_t group_start = lo;
  // (A group ends only where no test of it jumps into a later group, past the next one's start:
  // `(a or b and c) and not d`, where `a` jumps to `d`.)
  // Nor where one jumps to the chain's other exit: only the last group leaves both ways
  // (`a or (b and (c or d))`, where `b` jumps to the label).
  auto jumps_past = [&](size_t from, size_t k) {
    for (size_t m = from; m <= k; ++m) {
      for (size_t x = k + 2; x < hi; ++x) {
        if (items[m].target == items[x].start) return true;
      }
      int t = items[m].target;
      if (to_label ? t == end_position : (is_label(t) && t != end_position)) return true;
    }
    return false;
  };
  for (size_t k = lo; k < hi; ++k) {
    bool last = k + 1 == hi;
    if (last || ((items[k].target == split_target || (to_label && is_label(items[k].target))) &&
                 !jumps_past(group_start, k))) {
      groups.push_back({group_start, k + 1});
      group_start = k + 1;
    }
  }
  if (groups.size() < 2) throw DecodeFailure("condition without structure");
  // For a chain to the label: every group jumps to the label on `inner`; and-chains jump on false.
  // For a chain to the end: groups jump to the end on `inner`; and-chains jump on false.
  const ConditionItem& last_item = items[hi - 1];
  bool inner_sense =
      to_label ? (last_item.sense == 1 || last_item.sense == 2)
               : (items[groups[0].second - 1].sense == 1 || items[groups[0].second - 1].sense == 2);
  bool is_and = !inner_sense;
  bool own_cond =
      to_label ? inner_sense : !inner_sense;  // what the whole chain jumps to `label` on
  std::vector<ExprPtr> values;
  for (size_t g = 0; g < groups.size(); ++g) {
    auto [a, b] = groups[g];
    int next_position = b < items.size() ? items[b].start : end_position;
    if (b == hi) next_position = end_position;
    ExprPtr value;
    if (g + 1 < groups.size() && !to_label) {
      value = build_condition(items, a, b, end_position, inner_sense, next_position, false);
    } else if (to_label) {
      value = build_condition(items, a, b, label, inner_sense, next_position, false);
    } else {
      value = build_condition(items, a, b, label, own_cond, next_position, false);
    }
    const char* word = is_and ? "and" : "or";
    if (value->kind == ExprKind::BoolOp && value->text == word) {
      values.insert(values.end(), value->args.begin(), value->args.end());
    } else {
      values.push_back(value);
    }
  }
  ExprPtr combined = make_expr(ExprKind::BoolOp, std::move(values), is_and ? "and" : "or");
  if (own_cond != cond) combined = negate_jumps(combined, profile_.none_tests_jump);
  return top ? settle_test(combined, profile_.none_tests_jump, true) : combined;
}

bool CodeDecoder::decode_if_expression(int j, int true_start, int false_start, ExprPtr condition) {
  (void)j;
  const Operation& jump = lifted_.ops[static_cast<size_t>(false_start - 1)];
  if (jump.op != Op::Jump || jump.target <= false_start) return false;
  return decode_if_expression_parts(true_start, false_start - 1, false_start, jump.target,
                                    std::move(condition));
}

// The branches of `yes if condition else no`: the then-part [true_start, then_end), which goes on
// at `join` (its closing jump, or a copy of the code there), the else part [false_start, join).
bool CodeDecoder::decode_if_expression_parts(int true_start, int then_end, int false_start,
                                             int join, ExprPtr condition) {
  std::vector<ExprPtr> saved = stack_;
  size_t body_size = out_->size();
  auto fail = [&] {
    stack_ = saved;
    out_->resize(body_size);
    expression_only_ = 0;
    return false;
  };
  try {
    // (Most failures are a statement in a branch: evaluate says so without throwing.)
    bool refused = false;
    ExprPtr yes;
    {
      Restore<std::pair<int, int>> restore(if_expression_join_);
      if_expression_join_ = {join, then_end};
      yes = evaluate(true_start, then_end, &refused);
    }
    if (refused) return fail();
    ExprPtr no = evaluate(false_start, join, &refused);
    if (refused) return fail();
    push(make_expr(ExprKind::IfExp, {yes, std::move(condition), no}));
    if_expression_end_ = join;
    return true;
  } catch (const DecodeFailure&) {
    return fail();
  }
}

// 3.10/3.12+: where a conditional expression's then-part ends (at `label`, where its else part
// starts) in a copy of the short exit block at `join` (a return or raise, which the else part
// falls into), where that copy starts; else -1. The then-part's jump to `join` was replaced by
// the block itself (3.10's extend_block, 3.12+'s inline_small_exit_blocks in flowgraph.c):
// `return a and (b if c else d)`, whose and/or value ends at the return too.
int CodeDecoder::copied_join_start(int then_begin, int label, int join) const {
  int length = copied_tail_length(join);
  if (!profile_.inlines_small_exit_blocks || length == 0 || label - length <= then_begin ||
      join < label || !same_operations(lifted_.ops, label - length, join, length))
    return -1;
  return label - length;
}

// A conditional expression nested in the region [begin, end) whose test is not one plain jump
// when false (`a if b and c else d`, `a if not b else d`, `a if b is None else d`): the test's
// items jump to the else part when false or fall through to the then part, which ends in a jump
// over the else part, to `end` or (an operand) to inside the region, or in a copy of the short
// exit block at `end` (copied_join_start). Returns where decoding goes on, or -1 (the stack
// restored) where the code is not that.
int CodeDecoder::decode_compound_if_expression(int j, int begin, int end) {
  const auto& ops = lifted_.ops;
  std::vector<ExprPtr> saved = stack_;
  size_t body_size = out_->size();
  auto fail = [&] {
    stack_ = saved;
    out_->resize(body_size);
    return -1;
  };
  try {
    std::vector<ConditionItem> items = collect_conditions(j, end, begin);
    int then_begin = items.back().next;
    int label = items.back().target;
    if (label <= then_begin || label >= end || out_->size() != body_size) return fail();
    const Operation& over = ops[static_cast<size_t>(label - 1)];
    int then_end = label - 1;
    int join = over.target;
    // (Threaded to an enclosing conditional expression's join: see evaluate.)
    if (if_expression_join_.second == end && join == if_expression_join_.first) join = end;
    if (over.op != Op::Jump || join <= label || join > end) {
      then_end = copied_join_start(then_begin, label, end);
      join = end;
      if (then_end < 0) return fail();
    }
    ExprPtr test = build_condition(items, 0, items.size(), label, false, then_begin);
    if (!decode_if_expression_parts(then_begin, then_end, label, join, test)) return fail();
    return if_expression_end_;
  } catch (const DecodeFailure&) {
    return fail();
  }
}

// 3.10/3.12+ copy the code after a conditional expression into both branches when it ends in a
// return or raise (`raise E(a if c else b)`, `x = f(a if c else b); return x`): each branch
// computes its value and runs its own copy of that tail. Returns where the then-branch's copy
// starts (the decoding goes on there, the other copy consumed), or -1.
int CodeDecoder::decode_copied_tail_if_expression(int true_start, int false_start, int end,
                                                  const ExprPtr& condition) {
  const auto& ops = lifted_.ops;
  auto terminal = [&](int k) {
    Op op = ops[static_cast<size_t>(k)].op;
    return op == Op::ReturnValue || op == Op::ReturnConst || op == Op::RaiseVarargs;
  };
  if (!profile_.inlines_small_exit_blocks || false_start - true_start < 2 ||
      !terminal(false_start - 1))
    return -1;
  int false_end = false_start;
  while (false_end < end && !terminal(false_end)) {
    const Operation& o = ops[static_cast<size_t>(false_end)];
    if (o.op == Op::Jump || (o.target >= 0 && (o.target < false_start || o.target > end)))
      return -1;
    ++false_end;
  }
  // (3.11+: a region ending at its try's last covered operation leaves out the return or raise
  // there, which no handler covers: compiler_return in a try body.)
  if (false_end > end || (false_end == end && !terminal(end))) return -1;
  ++false_end;  // one past the other copy's return or raise
  // (The copy is one exit block of at most four instructions, MAX_COPY_SIZE: the branches' own
  // values may end alike too, `a + n if c else b + n`.)
  int longest = 0;
  while (longest < 4 && longest < false_start - true_start - 1 &&
         longest < false_end - false_start - 1 &&
         same_operations(ops, false_start - 1 - longest, false_end - 1 - longest, 1)) {
    ++longest;
  }
  std::vector<ExprPtr> saved = stack_;
  size_t body_size = out_->size();
  for (int n = longest; n >= 1; --n) {
    try {
      ExprPtr yes = evaluate(true_start, false_start - n);
      ExprPtr no = evaluate(false_start, false_end - n);
      push(make_expr(ExprKind::IfExp, {yes, condition, no}));
      mark_consumed(false_start, false_end);
      return false_start - n;
    } catch (const DecodeFailure&) {
      stack_ = saved;
      out_->resize(body_size);
      expression_only_ = 0;
    }
  }
  return -1;
}

// An if statement read from its test (decode_condition): the test's items, where the branches
// begin, and the loop the statement is in.
struct CodeDecoder::IfShape {
  int j = 0;     // the test's first jump
  int end = 0;   // the region's end
  int exit = 0;  // where the region goes on
  std::vector<ConditionItem> items;
  int then_begin = 0;  // where the test falls through: the then-branch
  int label = 0;       // where the test jumps: the else, or the code after the if
  ExprPtr test;        // the if's test, as the then-branch runs it
  // A copy, not a pointer into loops_: decoding a branch may open a nested loop, and the
  // push_back that does so may move every element (a use after free under fuzzing).
  std::optional<LoopContext> loop;
};

int CodeDecoder::decode_condition(int j, int end, int exit, int stmt_start) {
  const auto& ops = lifted_.ops;
  if (int next = execute_value_boolop(j); next >= 0) return next;
  std::vector<ConditionItem> items = collect_conditions(j, end, stmt_start);
  const ConditionItem& last = items.back();
  int then_begin = last.next;
  int label = last.target;
  ExprPtr test = build_condition(items, 0, items.size(), label, false, then_begin);
  // `a if test else b` as a value.
  if (stack_.size() > statement_depth_ ||
      (label > then_begin && ops[static_cast<size_t>(label - 1)].op == Op::Jump &&
       ops[static_cast<size_t>(label - 1)].target > label)) {
    if (label > then_begin && decode_if_expression(j, then_begin, label, test))
      return if_expression_end_;
    if (stack_.size() > statement_depth_) {
      if (int next = decode_copied_tail_if_expression(then_begin, label, end, test); next >= 0)
        return next;
    }
  }
  // 3.10, `return (a if c else b,)` or a return of one inside a try: the copied tail after a
  // constant then-value builds a tuple of it or pops a block. Read as statements, the compiler
  // would fold `return (a,)` into a constant, or load the constant after POP_BLOCK (compile.c's
  // compiler_return unwinds before loading a constant value).
  if (profile_.block_stack && stack_.size() == statement_depth_ && label > then_begin + 2 &&
      ops[static_cast<size_t>(then_begin)].op == Op::LoadConst &&
      ((ops[static_cast<size_t>(then_begin) + 1].op == Op::BuildTuple &&
        ops[static_cast<size_t>(then_begin) + 1].arg == 1) ||
       ops[static_cast<size_t>(then_begin) + 1].op == Op::PopBlock)) {
    if (int next = decode_copied_tail_if_expression(then_begin, label, end, test); next >= 0)
      return next;
  }
  // An if statement with a value still pending (a return's, waiting for a finally copy): the
  // value was computed before it, once, not again in each branch that ends a statement (nor read
  // again after the branches, when a name).
  if (stack_.size() > statement_depth_) {
    auto marker = make_stmt(StmtKind::Pass);
    spill_pending(*marker, true);
  }
  // (The loop: a copy, see IfShape.)
  IfShape s{j,
            end,
            exit,
            std::move(items),
            then_begin,
            label,
            std::move(test),
            loops_.empty() ? std::nullopt : std::optional<LoopContext>(loops_.back())};
  if (int next = if_inverted_over_jump_back(s); next >= 0) return next;
  if (int next = if_jumping_back(s); next >= 0) return next;
  if (s.label > s.end) return if_leaving_region(s);
  if (int next = if_else_pass_over_jump(s); next >= 0) return next;
  if (int next = if_else_over_jump(s); next >= 0) return next;
  if (int next = if_else_ending_loop_body(s); next >= 0) return next;
  if (int next = if_else_with_turned_test_in_then(s); next >= 0) return next;
  if (int next = if_else_pass_jumping_back(s); next >= 0) return next;
  if (int next = if_else_continue_ending_loop_body(s); next >= 0) return next;
  if (int next = if_else_returning_ending_loop_body(s); next >= 0) return next;
  if (int next = if_else_clauses_to_cold_test(s); next >= 0) return next;
  if (int next = if_else_then_ends_in_else_pass(s); next >= 0) return next;
  if (int next = if_else_jumped_from_inside(s); next >= 0) return next;
  if (int next = if_else_joined_by_handlers(s); next >= 0) return next;
  if (int next = if_else_with_suppressed_return(s); next >= 0) return next;
  if (int next = if_else_with_suppressed_jump(s); next >= 0) return next;
  if (int next = if_continue_then_break(s); next >= 0) return next;
  if (int next = if_else_breaks_threaded_to_head(s); next >= 0) return next;
  if (int next = if_else_loop_break_copies(s); next >= 0) return next;
  fold_exit_block_copies(s);
  if (int next = if_else_exit_copies(s); next >= 0) return next;
  if (int next = if_else_copied_exit(s); next >= 0) return next;
  return if_with_final_return(s);
}

void CodeDecoder::emit_if_statement(ExprPtr condition, Body then_body, Body else_body) {
  emit(make_stmt(StmtKind::If, {std::move(condition)},
                 {std::move(then_body), std::move(else_body)}));
}

void CodeDecoder::emit_if(const IfShape& s, Body then_body, Body else_body) {
  if (else_body.empty() && emit_if_around_assert(s, then_body)) return;
  emit_if_or_assert(s.test, std::move(then_body), std::move(else_body));
}

// `if a: assert b`: compiler_if's jump_if(a, false) to the end, then compiler_assert's
// jump_if(b, true) to the same end before its raise. Read as one assert, `not (a and not b)`
// turns an identity or membership test of b around (`not (x is y)` folds to `x is not y`), and
// `not a or b` does so for a's: where both hold one, in the sense each jumps when written, only
// the nested if compiles to these jumps. The assert starts a line of its own; 3.12+ raise on the
// assert's first line (a written `assert not a or b` spanning lines raises on the line of a).
bool CodeDecoder::emit_if_around_assert(const IfShape& s, const Body& then_body) {
  const auto& ops = lifted_.ops;
  if (then_body.size() != 1 || !is_assert_false(then_body[0]) || s.items.size() < 2) return false;
  auto kept = [&](size_t lo, size_t hi, int sense) {
    for (size_t k = lo; k < hi; ++k) {
      const ConditionItem& item = s.items[k];
      if (item.sense == sense && item.target == s.label &&
          keeps_operator(item.expr, profile_.none_tests_jump))
        return true;
    }
    return false;
  };
  for (size_t k = 1; k < s.items.size(); ++k) {
    const int line = ops[static_cast<size_t>(s.items[k].start)].line;
    if (line < 0 || line == line_at(ops, s.items[0].start) || !kept(0, k, 0) ||
        !kept(k, s.items.size(), 1))
      continue;
    if (profile_.assert_raise_on_statement_line && line_at(ops, s.then_begin) != line) continue;
    try {
      ExprPtr outer = build_condition(s.items, 0, k, s.label, false, s.items[k].start);
      ExprPtr inner = build_condition(s.items, k, s.items.size(), s.label, true, s.then_begin);
      std::vector<ExprPtr> parts = then_body[0]->exprs;
      parts[0] = inner;
      StmtPtr assertion = make_stmt(StmtKind::Assert, std::move(parts));
      assertion->line = then_body[0]->line;
      emit_if_statement(outer, {std::move(assertion)}, {});
      return true;
    } catch (const DecodeFailure&) {
      return false;
    }
  }
  return false;
}

bool CodeDecoder::is_assert_false(const StmtPtr& stmt) const {
  return stmt->kind == StmtKind::Assert &&
         !(profile_.keeps_folded_constants && has_constant(bytecode::ObjectKind::False, true)) &&
         !stmt->exprs.empty() && stmt->exprs[0]->kind == ExprKind::Constant &&
         (stmt->exprs[0]->text == "False" || stmt->exprs[0]->text == "0");
}

void CodeDecoder::emit_if_or_assert(const ExprPtr& test, Body then_body, Body else_body) {
  // `if not test: raise AssertionError(msg)` is an assert.
  // (The raise of LOAD_ASSERTION_ERROR arrives as `assert False[, msg]`, or `assert 0` where
  // the code keeps a 0 and no False (assert_false_spelling); where 3.10/3.11 kept a folded
  // False, the source said `if test: assert False`.)
  if (then_body.size() == 1 && else_body.empty() && is_assert_false(then_body[0])) {
    std::vector<ExprPtr> parts = then_body[0]->exprs;
    parts[0] = negate(test);
    emit(make_stmt(StmtKind::Assert, std::move(parts)));
    return;
  }
  emit(make_stmt(StmtKind::If, {test}, {std::move(then_body), std::move(else_body)}));
}

// A membership or identity test jumps when true only where the compiler turned the jump
// around: `if a not in b: continue` keeps its jump-when-false.
bool CodeDecoder::needs_inversion(const IfShape& s) {
  const auto& ops = lifted_.ops;
  const std::vector<ConditionItem>& items = s.items;
  const int end = s.end;
  const int then_begin = s.then_begin;
  const int label = s.label;
  const ExprPtr& test = s.test;
  const std::optional<LoopContext>& loop = s.loop;
  // (Not where a test jumps to the jump back itself: a written `continue`, which the compiler
  // keeps as a block of its own, `if a or b: continue`; turning a test around adds a jump
  // back that only the test falls into; an item read back from such a jump, `turned`, is one.)
  for (const ConditionItem& item : items) {
    if (item.target == then_begin && !item.turned) return false;
  }
  // (Not where the jump back starts a line other than the last test's: normalize_jumps_in_block
  // gives the JUMP_BACKWARD it adds the location of the jump it turns around, so one on a line
  // of its own is a written `continue`, `if a and b in c:` then `continue` below it.)
  if (int line = ops[static_cast<size_t>(then_begin)].line;
      line >= 0 && line != line_at(ops, items.back().jump))
    return false;
  // (Not where a chained comparison's cleanup lies before the label: it falls into a written
  // `continue`, `if not a < b < c: continue`; turned around, the cleanup jumps back itself and
  // is placed after the body.)
  for (int k = items[0].start; k < label; ++k) {
    const Operation& o = ops[static_cast<size_t>(k)];
    if (o.op == Op::JumpIf && o.target > k && o.target < label &&
        ops[static_cast<size_t>(o.target)].op == Op::PopTop)
      return false;
  }
  // (Not a while loop's first test, jumped back to from the end of its body.)
  for (int k = label; k < end; ++k) {
    const Operation& o = ops[static_cast<size_t>(k)];
    if ((o.op == Op::Jump || o.op == Op::JumpIf) && o.target == label) return false;
  }
  // (Not where an earlier test of the loop body jumps to the region's end: an or of tests
  // whose first goes on to the code the region ends at.)
  bool joined = false;
  for (int k = loop->continue_target; k >= 0 && k < items[0].start && !joined; ++k) {
    const Operation& o = ops[static_cast<size_t>(k)];
    joined = o.op == Op::JumpIf && o.target > then_begin && o.target <= end;
  }
  // 3.13, inside a handler's region: no handler covers the test's (last) jump where the
  // compiler threaded it to the loop head and turned it around; `if not test: continue` keeps
  // it covered like the test.
  if (int handler = flow_.handler_covering(items[0].start);
      table_readings_ && profile_.turned_test_uncovered && handler >= 0 && !joined) {
    used_table_reading_ = true;
    return flow_.handler_covering(items.back().jump) != handler;
  }
  // 3.12: nor the JUMP_BACKWARD added when turning it around, where a written `continue` that
  // leaves no try (the loop head is covered alike) keeps the handler.
  if (int handler = flow_.handler_covering(items[0].start);
      table_readings_ && profile_.added_jump_back_uncovered && handler >= 0 && !joined &&
      flow_.handler_covering(loop->continue_target) == handler) {
    used_table_reading_ = true;
    return flow_.handler_covering(then_begin) < 0;
  }
  // (An item read back from a jump over a jump back (turned_over_jump_back): the compiler
  // turned the last one too where that jump back has no line; a written `continue` has one.)
  for (const ConditionItem& item : items) {
    if (item.turned && ops[static_cast<size_t>(then_begin)].line < 0) return true;
  }
  if (items.size() > 1) return mentions_identity_or_membership(test, 0);
  // (A chained comparison jumping when false, its cleanup after the label (see above): the
  // compiler turned around its last link's jump back, `assert a < b < c` ending a loop body.)
  const ExprPtr& only = items[0].expr;
  if (only->kind == ExprKind::Compare && only->ops.size() > 1) return true;
  if (cannot_turn_around(only)) return items[0].sense != 0;
  // (Any other test whose jump back starts no line entry of its own, continuing the test's line:
  // the one normalize_jumps_in_block added turning the test around. A `continue` written on a
  // line of its own starts one; one written on the test's line compiles to the same code as the
  // turned test with the rest of the loop body as the if's body. Not 3.13: there a test jumping
  // to a line-less jump back takes a copy of it, inline_small_or_no_lineno_blocks.)
  // (Jumping over it when true: jumping when false, it is an or's item leaving for the head.)
  return !profile_.inlines_no_lineno_blocks && items[0].sense == 1 &&
         same_target(s.exit, loop->continue_target) &&
         ops[static_cast<size_t>(then_begin)].line < 0 && !starts_line_on_prefix(then_begin);
}

int CodeDecoder::if_inverted_over_jump_back(const IfShape& s) {
  const auto& ops = lifted_.ops;
  const int end = s.end;
  const int exit = s.exit;
  const int then_begin = s.then_begin;
  const int label = s.label;
  const ExprPtr& test = s.test;
  const std::optional<LoopContext>& loop = s.loop;
  // 3.12+ has no backward conditional jump: `if test: <rest of the loop body>` becomes a jump
  // over a JUMP_BACKWARD to the loop head when the test fails.
  // Only a membership or identity test needs it: `not (a in b)` is compiled as `a not in b`.
  if (profile_.conditional_jumps_forward_only && loop && label == then_begin + 1 && label < end &&
      ops[static_cast<size_t>(then_begin)].op == Op::Jump &&
      same_target(ops[static_cast<size_t>(then_begin)].target, loop->continue_target) &&
      needs_inversion(s)) {
    // (Where the region goes on elsewhere, an if branch ending with this test, its elif after
    // it, the jump back is the test's else: a `continue`. Not where the region ends with the
    // loop's own jump back: falling off the if reaches it, as the jump threaded to its target
    // did, optimize_basic_block's jump to an unconditional jump.)
    Body otherwise;
    if (!same_target(exit, loop->continue_target) && end - 1 != loop->back_jump)
      otherwise.push_back(make_stmt(StmtKind::Continue));
    emit_if_or_assert(negate_test(test, profile_.none_tests_jump), decode_range(label, end, exit),
                      std::move(otherwise));
    return end;
  }
  return -1;
}

int CodeDecoder::if_jumping_back(IfShape& s) {
  const int j = s.j;
  const int end = s.end;
  const int exit = s.exit;
  const int then_begin = s.then_begin;
  const int label = s.label;
  ExprPtr& test = s.test;
  const std::optional<LoopContext>& loop = s.loop;
  // A test that jumps back to the loop head: `if test: <rest of the loop body>`.
  if (label <= j) {
    if (!loop || resolve(label) != resolve(loop->continue_target))
      throw DecodeFailure("backward condition");
    // (Only where falling off the region goes back there too: else, inside an if statement's
    // branch, `if not test: continue`.)
    if (!same_target(exit, loop->continue_target)) {
      test = negate_test(test, profile_.none_tests_jump);
      emit_if(s, {make_stmt(StmtKind::Continue)}, {});
      return then_begin;
    }
    Body then_body;
    if (then_begin >= end && loop->break_target == then_begin) {
      then_body.push_back(make_stmt(StmtKind::Break));
    } else {
      then_body = decode_range(then_begin, end, exit);
    }
    emit_if(s, std::move(then_body), {});
    return std::max(end, then_begin);
  }
  return -1;
}

int CodeDecoder::if_leaving_region(IfShape& s) {
  const auto& ops = lifted_.ops;
  const int j = s.j;
  const int end = s.end;
  const int exit = s.exit;
  const int then_begin = s.then_begin;
  const int label = s.label;
  ExprPtr& test = s.test;
  const std::optional<LoopContext>& loop = s.loop;
  if (loop && resolve(label) == resolve(loop->break_target)) {
    test = negate(test);
    emit_if(s, {make_stmt(StmtKind::Break)}, {});
    return then_begin;
  }
  if (same_target(label, exit)) {
    emit_if(s, decode_range(then_begin, end, exit), {});
    return end;
  }
  // (A jump to a copy of the region's exit block goes there: the copy is consumed.)
  if (int length = exit_copy_length(exit, label); length > 0 && end == exit) {
    mark_consumed(label, label + length);
    emit_if(s, decode_range(then_begin, end, exit), {});
    return end;
  }
  // 3.12+: a try body's last statement `if test: ...; return` ends past the covered range (a
  // return cannot raise); the region may grow up to its limit over operations no handler covers.
  Op before = ops[static_cast<size_t>(label - 1)].op;
  // (Or covered only by a handler around the try statement: a return's finally copy in a try
  // nested in another's body, which 3.11 leaves to the outer handler, the one covering the
  // inner try's own handler code.)
  // (Or its then-branch ends in a `break` or `continue` of the loop around the try: the
  // unwinding, compiler_unwind_fblock_stack, pops the try's block first, so the for loop's
  // POP_TOP and the jump lie past the covered range too.)
  const Operation& last_jump = ops[static_cast<size_t>(label - 1)];
  bool loop_jump = loop && last_jump.op == Op::Jump &&
                   (resolve(last_jump.target) == resolve(loop->break_target) ||
                    resolve(last_jump.target) == resolve(loop->continue_target));
  if (label <= region_limit_ &&
      (then_begin >= end || before == Op::ReturnConst || before == Op::ReturnValue || loop_jump)) {
    int own = end > 0 ? flow_.handler_covering(end - 1) : -1;
    auto around = [&](int covering) {
      for (int h = own, hops = 0; h >= 0 && hops < 16; ++hops) {
        h = flow_.handler_covering(h);
        if (h == covering) return true;
      }
      return false;
    };
    bool uncovered = true;
    for (int k = end; k < label && uncovered; ++k) {
      int covering = flow_.handler_covering(k);
      uncovered = covering < 0 || (covering != own && around(covering));
    }
    if (uncovered) {
      emit_if(s, decode_range(then_begin, label, label), {});
      return label;
    }
  }
  throw DecodeFailure("condition jumps out of its region at offset " +
                      std::to_string(ops[static_cast<size_t>(j)].offset));
}

// 3.12+: whether the region's exit `exit` is a copy of an enclosing except clause's exit, its
// POP_EXCEPT (and name unbinding) read with that clause and its jump retargeted to `join`, the
// clause's end (decode_except_clause_body). 3.13's inline_small_or_no_lineno_blocks (flowgraph.c)
// gives an if/else in a try body in that clause such a copy at the end of its then-branch too:
// the then-branch's jump to `join` is the if/else falling into the exit.
bool CodeDecoder::leads_to_clause_end(int exit, int join) const {
  const auto& ops = lifted_.ops;
  int size = static_cast<int>(ops.size());
  int k = exit;
  while (k >= 0 && k < size && consumed_[static_cast<size_t>(k)] &&
         ops[static_cast<size_t>(k)].op != Op::Jump)
    ++k;
  return k > exit && k < size && ops[static_cast<size_t>(k)].op == Op::Jump &&
         ops[static_cast<size_t>(k)].target == join &&
         std::find(clause_end_jumps_.begin(), clause_end_jumps_.end(), k) !=
             clause_end_jumps_.end();
}

// `if test: A else: pass`: compile.c's compiler_if ends A with a jump over the else, whose
// `pass` (Pass_kind) is a NOP with its own line that remove_redundant_nops (flowgraph.c) keeps;
// lift dropped it (`nop_line` of the join), so A's jump goes to the label itself, the operation
// a branch without an else would fall into.
int CodeDecoder::if_else_pass_over_jump(const IfShape& s) {
  const auto& ops = lifted_.ops;
  const int label = s.label;
  if (label - 1 < s.then_begin || label >= s.end) return -1;
  const Operation& jump = ops[static_cast<size_t>(label - 1)];
  if (jump.op != Op::Jump || jump.target != label || ops[static_cast<size_t>(label)].nop_line < 0)
    return -1;
  Body then_body = decode_range(s.then_begin, label - 1, label);
  emit_if(s, std::move(then_body), {make_stmt(StmtKind::Pass)});
  return label;
}

int CodeDecoder::if_else_over_jump(const IfShape& s) {
  const auto& ops = lifted_.ops;
  const int j = s.j;
  const int end = s.end;
  const int exit = s.exit;
  const int then_begin = s.then_begin;
  const int label = s.label;
  const ExprPtr& test = s.test;
  const std::optional<LoopContext>& loop = s.loop;
  const Operation& before_label = ops[static_cast<size_t>(label - 1)];
  // (The then-branch may also jump back to the region's exit: 3.13 places an except clause
  // after the code, jumping back to the join.)
  bool jumps_back_to_exit =
      profile_.cold_blocks_at_end && before_label.op == Op::Jump && before_label.target < j &&
      same_target(before_label.target, exit) &&
      !(loop && (resolve(before_label.target) == resolve(loop->continue_target) ||
                 resolve(before_label.target) == resolve(loop->break_target)));
  if (before_label.op == Op::Jump && (before_label.target > label || jumps_back_to_exit) &&
      label - 1 >= then_begin) {
    int join = jumps_back_to_exit ? end : before_label.target;
    // (Falling off the loop body's end where this region goes there too.)
    bool falls_off =
        falls_into_jump_back(label - 1, join) && (join <= end || same_target(join, exit));
    bool is_loop_jump = loop && !falls_off &&
                        (resolve(join) == resolve(loop->break_target) ||
                         resolve(join) == resolve(loop->continue_target));
    // (A forward jump to the loop's own jump back, which ends the region, is the end of an
    // if/else ending the loop body: a `continue` jumps back itself.)
    if (is_loop_jump && join == end - 1 && join > label &&
        ops[static_cast<size_t>(join)].op == Op::Jump &&
        same_target(ops[static_cast<size_t>(join)].target, loop->continue_target) &&
        same_target(exit, loop->continue_target)) {
      Body then_body = decode_range(then_begin, label - 1, join);
      Body else_body = decode_range(label, join, join);
      emit_if(s, std::move(then_body), std::move(else_body));
      return join;
    }
    if (!is_loop_jump) {
      // (A join past the region that repeats its exit block is a copy of it: the exit.)
      // (The copy is consumed.)
      if (int n = join > end && resolve(join) != resolve(exit) ? copied_exit_block(exit, join) : 0;
          n > 0) {
        mark_consumed(join, join + n);
        exit_copies_read_.insert(join);
        join = exit;
      }
      if (int n =
              join > end && resolve(join) != resolve(exit) ? jump_line_exit_copy(exit, join) : 0;
          n > 0) {
        mark_consumed(join, join + n);
        exit_copies_read_.insert(join);
        join = exit;
      }
      if (join > end && leads_to_clause_end(exit, join)) join = exit;
      int else_end = join <= end ? join : end;
      if (join > end && resolve(join) != resolve(exit))
        throw DecodeFailure("if/else join outside its region");
      Body then_body = decode_range(then_begin, label - 1, join);
      Body else_body = decode_range(label, else_end, join <= end ? join : exit);
      // (A then-branch that only jumps back to the exit is `if test: <else>`, its test inverted
      // over that jump: 3.12+ has no backward conditional jump.)
      if (jumps_back_to_exit && then_body.empty() && !else_body.empty()) {
        emit_if_statement(negate_test(test, profile_.none_tests_jump), std::move(else_body), {});
        return else_end;
      }
      emit_if(s, std::move(then_body), std::move(else_body));
      return else_end;
    }
    if (int next = if_else_threaded_join(s); next >= 0) return next;
  }
  return -1;
}

// 3.12: an if/else whose then-branch ends in `if t: break` (or `continue`): the test's jump to
// the jump over the else was threaded to the join (flowgraph.c's jump threading in
// optimize_basic_block), and that jump, then unreachable, removed (remove_unreachable). The
// then-branch's jump-if past the label, within the region, goes to the join; the else runs from
// the label up to it. -1 where no test of the then-branch jumps there.
int CodeDecoder::if_else_threaded_join(const IfShape& s) {
  const auto& ops = lifted_.ops;
  int join = -1;
  for (int k = s.then_begin; k + 1 < s.label; ++k) {
    const Operation& o = ops[static_cast<size_t>(k)];
    if (o.op == Op::JumpIf && o.target > s.label && o.target <= s.end)
      join = std::max(join, o.target);
  }
  if (join < 0) return -1;
  // (The else goes on there: it falls into the join or jumps to it.)
  bool reaches = falls_through(ops[static_cast<size_t>(join) - 1].op);
  for (int k = s.label; k < join && !reaches; ++k)
    reaches = is_jump(ops[static_cast<size_t>(k)].op) && ops[static_cast<size_t>(k)].target == join;
  if (!reaches) return -1;
  Body then_body = decode_range(s.then_begin, s.label, join);
  Body else_body = decode_range(s.label, join, join);
  emit_if(s, std::move(then_body), std::move(else_body));
  return join;
}

// The line an EXTENDED_ARG prefix of the operation at `i` starts (lift keeps the operation's
// own line entry only), or -1.
int CodeDecoder::line_on_prefix(int i) const {
  const Operation& op = lifted_.ops[static_cast<size_t>(i)];
  std::vector<bytecode::Instruction> all = bytecode::decode_bare_instructions(code_);
  for (size_t k = 1; k < all.size(); ++k) {
    if (all[k].offset != op.offset) continue;
    return all[k - 1].opname == "EXTENDED_ARG" && all[k - 1].starts_line ? all[k - 1].line : -1;
  }
  return -1;
}

// Whether operation `i` starts a line entry, also where the entry starts on its EXTENDED_ARG
// prefix (dropped by lift: dis shows the line there, on the instruction's first code unit).
bool CodeDecoder::starts_line_on_prefix(int i) const {
  const Operation& op = lifted_.ops[static_cast<size_t>(i)];
  if (op.line >= 0) return true;
  std::vector<bytecode::Instruction> all = bytecode::decode_bare_instructions(code_);
  for (size_t k = 1; k < all.size(); ++k) {
    if (all[k].offset != op.offset) continue;
    return all[k - 1].opname == "EXTENDED_ARG" && all[k - 1].starts_line;
  }
  return false;
}

int CodeDecoder::if_else_ending_loop_body(const IfShape& s) {
  const auto& ops = lifted_.ops;
  const int end = s.end;
  const int exit = s.exit;
  const int then_begin = s.then_begin;
  const int label = s.label;
  const std::optional<LoopContext>& loop = s.loop;
  const Operation& before_label = ops[static_cast<size_t>(label - 1)];
  // 3.12+: a then-branch ending a loop body's last if/else jumps back to the loop's head (no
  // jump to a join first): that jump carries the line of a statement before it, where a
  // written `continue` has a line of its own, after them. (3.13: where the then-branch ends
  // with a while loop, duplicate_exits_without_lineno copies that jump, which has no line, for
  // each of the loop's two exits; each copy takes the line of the test jumping to it, starting
  // no line entry: two jumps back in a row.)
  bool copied_jump_back =
      profile_.inlines_no_lineno_blocks && label - 2 > then_begin && before_label.op == Op::Jump &&
      ops[static_cast<size_t>(label) - 2].op == Op::Jump &&
      same_target(ops[static_cast<size_t>(label) - 2].target, before_label.target);
  // (Or the jump starts no line entry, where the then-branch ends with an if whose test jumps
  // back: compiler_if's jump over the else has no location.)
  // (Or no line entry at all, continuing the line of the branch's last statement, where that is
  // an if whose test flowgraph.c threaded to the join, then to the loop head, and turned around:
  // `POP_JUMP_IF_TRUE` over a JUMP_BACKWARD with no line entry of its own (a written `continue`
  // has one). Its `if not test: continue` reading cannot write a membership or identity test,
  // whose `not` folds into the operator. Not where the jump back is itself such a test's,
  // falling into the label over it.)
  const Operation& two_before = ops[static_cast<size_t>(label) - 2];
  bool jump_turned = two_before.op == Op::JumpIf && two_before.target == label;
  bool turned_test_before = false;
  for (int k = then_begin; loop && before_label.line < 0 && !jump_turned && k + 2 < label; ++k) {
    const Operation& o = ops[static_cast<size_t>(k)];
    const Operation& next = ops[static_cast<size_t>(k) + 1];
    turned_test_before |= o.op == Op::JumpIf && o.target == k + 2 && next.op == Op::Jump &&
                          same_target(next.target, loop->continue_target) &&
                          !starts_line_on_prefix(k + 1) && !starts_line_on_prefix(label - 1);
  }
  // (Or the then-branch ends in a with statement: compiler_with's `JUMP exit` after the exit
  // call, with the with's location, threaded to the head, starts no line entry, where a written
  // `continue` after the with starts one; the with's suppressed path is threaded there too,
  // where it would jump to a written `continue`, its line being another.)
  // (Not a written `continue` leaving the with: its NOP, with the continue's line, precedes
  // the exit calls, written_return_leaving_with.)
  // (starts_line_on_prefix decodes the code object again: asked last, for a loop only.)
  bool continues_line =
      loop && before_label.line < 0 && label - 6 >= then_begin && is_exit_call(ops, label - 6) &&
      !written_return_leaving_with(ops, label - 1) && !starts_line_on_prefix(label - 1);
  // (Or the else is `pass` (or `continue`): a jump back to the head with a line of its own,
  // other than the test's; flowgraph.c's jump_thread retargets a jump to a jump only where both
  // have one line or the target none, so the test still jumps to it, where an if ending the
  // loop body alone would have its test turned around over a jump back.)
  // (A jump back far enough for an EXTENDED_ARG prefix has its line entry on the prefix.)
  const Operation& at_label = ops[static_cast<size_t>(label)];
  bool else_owns_line = loop && label + 1 == end && at_label.op == Op::Jump &&
                        same_target(at_label.target, loop->continue_target);
  if (else_owns_line) {
    int line = at_label.line >= 0 ? at_label.line : line_on_prefix(label);
    else_owns_line = line > 0 && line != line_at(ops, s.items.back().jump);
  }
  if (profile_.threads_jumps_to_jumps && loop && before_label.op == Op::Jump &&
      label - 1 > then_begin && label < end &&
      same_target(before_label.target, loop->continue_target) &&
      (same_target(exit, loop->continue_target) || else_owns_line) &&
      (before_label.line > 0 || copied_jump_back || turned_test_before ||
       (before_label.line < 0 &&
        ends_with_test_over_jump_back(then_begin, label, loop->continue_target)) ||
       continues_line || else_owns_line) &&
      !on_new_line(label - 1) && !continue_leaves_try(label - 1, before_label.target)) {
    // (Not to its end: a jump there from inside goes to the else. In a region going on
    // elsewhere, an enclosing if read without its else, that jump is a `continue` of its own.)
    bool to_head = same_target(exit, loop->continue_target);
    Body then_body = decode_range(then_begin, to_head ? label - 1 : label, exit);
    Body else_body = decode_range(label, end, exit);
    if (else_body.empty() && else_owns_line) else_body.push_back(make_stmt(StmtKind::Pass));
    emit_if(s, std::move(then_body), std::move(else_body));
    return end;
  }
  return -1;
}

// 3.12: an if/elif chain ending a loop body whose then-branch never falls off (a break, return or
// raise last) but holds an if whose test, on falling off, goes to the end of the chain: that jump
// (to the branch's jump over the else, to the loop's jump back) flowgraph.c threaded to the
// loop head and normalize_jumps_in_block turned around, `POP_JUMP_IF_TRUE` over a JUMP_BACKWARD
// starting no line entry (a written `continue` starts one). The code at the label is then the
// else: read as code after the if, falling off the nested if would reach it, not the loop head
// (`if not test: continue` in its place prints the continue on a line of its own).
int CodeDecoder::if_else_with_turned_test_in_then(const IfShape& s) {
  const auto& ops = lifted_.ops;
  const std::optional<LoopContext>& loop = s.loop;
  if (!profile_.conditional_jumps_forward_only || profile_.inlines_no_lineno_blocks || !loop ||
      s.label - 1 <= s.then_begin || s.label >= s.end ||
      !same_target(s.exit, loop->continue_target) ||
      falls_through(ops[static_cast<size_t>(s.label) - 1].op))
    return -1;
  bool turned = false;
  for (int k = s.then_begin; k < s.label; ++k) {
    const Operation& o = ops[static_cast<size_t>(k)];
    // (Nothing in the then-branch goes into the else.)
    if (is_jump(o.op) && o.target >= s.label && o.target < s.end) return -1;
    if (k + 2 >= s.label || o.op != Op::JumpIf || o.target != k + 2) continue;
    const Operation& next = ops[static_cast<size_t>(k) + 1];
    turned |= next.op == Op::Jump && same_target(next.target, loop->continue_target) &&
              !starts_line_on_prefix(k + 1);
  }
  if (!turned) return -1;
  Body then_body = decode_range(s.then_begin, s.label, s.exit);
  Body else_body = decode_range(s.label, s.end, s.exit);
  emit_if(s, std::move(then_body), std::move(else_body));
  return s.end;
}

// An if/else ending a loop body whose else is only `pass`, the then-branch jumping back to the
// head: the else is the NOP that compiler_visit_stmt's `pass` leaves, with its line, then the
// jump back (a copy without a line of its own, so the NOP is kept; lift drops the NOP onto it,
// `nop_line`). Without an else the test would jump back itself; a `pass` after the if would
// have the then-branch fall into it, no jump back before it.
int CodeDecoder::if_else_pass_jumping_back(const IfShape& s) {
  const auto& ops = lifted_.ops;
  const int label = s.label;
  const std::optional<LoopContext>& loop = s.loop;
  if (!loop || label - 1 <= s.then_begin || label + 1 != s.end ||
      !same_target(s.exit, loop->continue_target))
    return -1;
  const Operation& at_label = ops[static_cast<size_t>(label)];
  const Operation& before_label = ops[static_cast<size_t>(label) - 1];
  if (at_label.op != Op::Jump || at_label.nop_line < 0 || at_label.line >= 0 ||
      !same_target(at_label.target, loop->continue_target) || before_label.op != Op::Jump ||
      !same_target(before_label.target, loop->continue_target))
    return -1;
  Body then_body = decode_range(s.then_begin, label - 1, s.exit);
  Body else_body{make_stmt(StmtKind::Pass)};
  else_body.back()->line = at_label.nop_line;
  emit_if(s, std::move(then_body), std::move(else_body));
  return s.end;
}

// 3.10: an if/else ending a loop body whose else is `continue`: the then-branch's line-less
// jump over the else, threaded to the loop head, then the else's own jump back, starting the
// continue's line (threaded_jump_over_else_keeps_else_jump). Read as written, not as an if
// falling off its end into a `continue` after it (which would have the one jump).
int CodeDecoder::if_else_continue_ending_loop_body(const IfShape& s) {
  const auto& ops = lifted_.ops;
  const int label = s.label;
  if (!profile_.threaded_jump_over_else_keeps_else_jump || !s.loop || label + 1 != s.end ||
      label - 1 <= s.then_begin)
    return -1;
  const Operation& over = ops[static_cast<size_t>(label) - 1];
  const Operation& at_label = ops[static_cast<size_t>(label)];
  int head = s.loop->continue_target;
  if (over.op != Op::Jump || at_label.op != Op::Jump || over.line >= 0 || at_label.line < 0 ||
      !same_target(over.target, head) || !same_target(at_label.target, head) ||
      on_new_line(label - 1))
    return -1;
  // (In a region going on elsewhere, an enclosing if read without its else, the then-branch's
  // jump back is a `continue` of its own.)
  Body then_body =
      decode_range(s.then_begin, same_target(s.exit, head) ? label - 1 : label, s.exit);
  emit_if(s, std::move(then_body), {make_stmt(StmtKind::Continue)});
  return s.end;
}

// 3.12+: an if/else ending a loop body whose then-branch ends in an if/else with `else: pass`:
// the pass's jump back to the head keeps a line of its own, other than the test's (jump_thread
// leaves the test jumping to it), after the then-branch's jump over it, which has none, threaded
// to the head: `elif a: (if b: x) else: pass` then `else: <else>`. A `continue` written after the
// inner if would take the inner then-branch's fall-off, with no jump of its own before it. The
// inner if reads its `else: pass` (if_else_ending_loop_body) in the then-branch [then, label).
int CodeDecoder::if_else_then_ends_in_else_pass(const IfShape& s) {
  const auto& ops = lifted_.ops;
  const std::optional<LoopContext>& loop = s.loop;
  const int pass = s.label - 1;
  if (!profile_.threads_jumps_to_jumps || !loop || s.label >= s.end || pass - 1 <= s.then_begin ||
      !same_target(s.exit, loop->continue_target))
    return -1;
  const int head = loop->continue_target;
  const Operation& pass_jump = ops[static_cast<size_t>(pass)];
  const Operation& over = ops[static_cast<size_t>(pass) - 1];
  if (pass_jump.op != Op::Jump || !same_target(pass_jump.target, head) || pass_jump.line <= 0 ||
      over.op != Op::Jump || !same_target(over.target, head) || over.line >= 0)
    return -1;
  bool tested = false;
  for (int k = s.then_begin; k < pass - 1 && !tested; ++k) {
    const Operation& o = ops[static_cast<size_t>(k)];
    tested = o.op == Op::JumpIf && o.target == pass && line_at(ops, k) != pass_jump.line;
  }
  if (!tested) return -1;
  return emit_if_else_at_label(s);
}

// The if/else read from its shape: the then-branch up to the label, the else from there to the
// region's end.
int CodeDecoder::emit_if_else_at_label(const IfShape& s) {
  Body then_body = decode_range(s.then_begin, s.label, s.exit);
  Body else_body = decode_range(s.label, s.end, s.exit);
  emit_if(s, std::move(then_body), std::move(else_body));
  return s.end;
}

// 3.12+: an if/else ending a loop body whose then-branch ends in an if returning or raising,
// whose membership or identity test flowgraph.c threaded to the join, then to the loop head, and
// turned around over a jump back (normalize_jumps_in_block): `if a: (if b is c: return)` then
// `else: <else>`. Read as an if without an else, the test would need an `else: continue`, whose
// jump has a line of its own (`not (b is c)` compiles as `b is not c`). The then-branch cannot
// fall into the label: the else runs from there to the region's end, the loop body's. (3.12:
// likewise a then-branch ending in a break, `if a: (if t: x; break)`.)
int CodeDecoder::if_else_returning_ending_loop_body(const IfShape& s) {
  const auto& ops = lifted_.ops;
  const std::optional<LoopContext>& loop = s.loop;
  if (!profile_.conditional_jumps_forward_only || !loop || s.label >= s.end ||
      s.label - 1 <= s.then_begin || !same_target(s.exit, loop->continue_target))
    return -1;
  const Operation& last_op = ops[static_cast<size_t>(s.label) - 1];
  Op last = last_op.op;
  // (Or breaks, 3.12: its jump leaves the loop, never falling into the label either.)
  bool breaks = last == Op::Jump && !profile_.inlines_no_lineno_blocks &&
                same_target(last_op.target, loop->break_target);
  if (!leaves_function(last) && !breaks) return -1;
  if (!ends_with_test_over_jump_back(s.then_begin, s.label, loop->continue_target)) return -1;
  return emit_if_else_at_label(s);
}

// 3.12+: an if/else ending the body of a loop whose bottom test is cold code (while_head's
// cold_tail), whose then-branch does not fall into the label (it ends in a try whose body returns,
// or breaks through a copy of the code after the loop): only the clauses of that try go on, and
// push_cold_blocks_to_end left their jump to the moved test (the next iteration), not to a join
// (compile.c's compiler_if emits no jump over the else after a branch that cannot fall off).
// Read as an if without an else, the clauses would fall into the label: the else runs from there
// to the region's end, the loop body's.
int CodeDecoder::if_else_clauses_to_cold_test(const IfShape& s) {
  const auto& ops = lifted_.ops;
  const std::optional<LoopContext>& loop = s.loop;
  if (!profile_.cold_blocks_at_end || !loop || s.label >= s.end || s.label - 1 <= s.then_begin ||
      !same_target(s.exit, loop->continue_target))
    return -1;
  Op last = ops[static_cast<size_t>(s.label) - 1].op;
  if (!leaves_function(last)) return -1;
  const int head = loop->continue_target;
  bool to_cold_test = false;
  for (int target : handler_exits(s.then_begin, s.label)) {
    auto cold = cold_tests_.find(target);
    to_cold_test |= cold != cold_tests_.end() && cold->second == head;
  }
  if (!to_cold_test) return -1;
  return emit_if_else_at_label(s);
}

// 3.12+ has no backward conditional jump: an if ending a loop body's branch turns its test
// around over a jump back to the head. A membership or identity test cannot be written turned
// around (`not (a in b)` compiles as `a not in b`): read outside an if/else, that if would need
// an `else: continue`, whose jump has a line of its own. Nor, 3.12, can any test whose jump back
// starts no line entry (a `continue` on a line of its own starts one; 3.13 copies the jump back
// for such a test, inline_small_or_no_lineno_blocks, the test jumping forward to the copy). The
// if's body runs to the branch's end (no jump after it), and no test jumps to the label (the rest
// of a condition the test items did not take in).
bool CodeDecoder::ends_with_test_over_jump_back(int begin, int label, int head) const {
  const auto& ops = lifted_.ops;
  bool found = false;
  for (int k = begin; k + 1 < label; ++k) {
    const Operation& o = ops[static_cast<size_t>(k)];
    if (!is_jump(o.op)) continue;
    if (o.op == Op::JumpIf && same_target(o.target, label)) return false;
    Op tested = k > begin ? ops[static_cast<size_t>(k) - 1].op : Op::Nop;
    const Operation& next = ops[static_cast<size_t>(k) + 1];
    found =
        o.op == Op::JumpIf && o.target == k + 2 && next.op == Op::Jump &&
        same_target(next.target, head) &&
        (tested == Op::ContainsOp || tested == Op::IsOp ||
         (!profile_.inlines_no_lineno_blocks && next.line < 0 && !starts_line_on_prefix(k + 1)));
    if (found) ++k;  // (past the jump back)
  }
  return found;
}

int CodeDecoder::if_else_jumped_from_inside(const IfShape& s) {
  const auto& ops = lifted_.ops;
  const int end = s.end;
  const int exit = s.exit;
  const int then_begin = s.then_begin;
  const int label = s.label;
  const std::optional<LoopContext>& loop = s.loop;
  // A then-branch ending in a try/with statement jumps over the else from inside that statement;
  // 3.12+ also threads a nested if's test straight to the join when the then-branch has no jump
  // of its own at its end (it returns).
  auto jumps_forward = [&](const Operation& o) {
    return o.op == Op::Jump || (profile_.threads_jumps_to_jumps && o.op == Op::JumpIf);
  };
  // (Never where the then-branch ends in a test that falls into the label: the rest of the
  // condition, which the test items did not take in, not an if/else.)
  bool falls_into_label =
      label > then_begin && ops[static_cast<size_t>(label) - 1].op == Op::JumpIf;
  auto loop_jump = [&](int target) {
    return loop && (resolve(target) == resolve(loop->break_target) ||
                    resolve(target) == resolve(loop->continue_target));
  };
  // (The then-branch does not fall into the label: it ends in a jump, a return or a raise.)
  Op branch_last = label > then_begin ? ops[static_cast<size_t>(label) - 1].op : Op::Nop;
  bool branch_leaves = branch_last == Op::Jump || branch_last == Op::ReturnValue ||
                       branch_last == Op::ReturnConst || branch_last == Op::RaiseVarargs ||
                       branch_last == Op::Reraise;
  for (int k = then_begin; k < label; ++k) {
    const Operation& inner = ops[static_cast<size_t>(k)];
    if (falls_into_label && inner.op == Op::JumpIf) continue;
    // (A statement in the branch falling into a jump back that this region also ends at: the
    // else runs to the region's end; breaks and continues inside the branch are no join.)
    bool into_jump_back = jumps_forward(inner) && falls_into_jump_back(k, inner.target) &&
                          (inner.target <= end || same_target(inner.target, exit));
    // (Or a statement in the branch whose way out the compiler threaded past the region's end
    // to its exit, the join of an enclosing if/else: this if/else ends the region, its else runs
    // to the region's end.)
    bool to_exit = jumps_forward(inner) && inner.target > end && branch_leaves &&
                   same_target(inner.target, exit) && !loop_jump(inner.target);
    if (!jumps_forward(inner) || inner.target <= label ||
        (inner.target > end && !into_jump_back && !to_exit))
      continue;
    // (A `break` in the branch (compiler_break's jump to the loop's exit: an if's, an except
    // clause's in a try whose body jumps over the else) is never the join: the code after the
    // if/else lies inside the loop body, before the loop's exit.)
    auto breaks = [&](int target) {
      return loop && resolve(target) == resolve(loop->break_target);
    };
    if (!into_jump_back && breaks(inner.target)) continue;
    int join = std::min(inner.target, end);
    for (int m = k + 1; m < label; ++m) {
      const Operation& other = ops[static_cast<size_t>(m)];
      if (jumps_forward(other) && other.target > join && other.target <= end &&
          !(into_jump_back && loop_jump(other.target) && !falls_into_jump_back(m, other.target)) &&
          !breaks(other.target))
        join = other.target;
    }
    if (!into_jump_back && !falls_into_jump_back(k, join) && loop_jump(join)) break;
    int join_exit = inner.target > end ? exit : join;
    Body then_body = decode_range(then_begin, label, join_exit);
    Body else_body = decode_range(label, join, join_exit);
    emit_if(s, std::move(then_body), std::move(else_body));
    return join;
  }
  return -1;
}

int CodeDecoder::if_else_joined_by_handlers(const IfShape& s) {
  const int end = s.end;
  const int then_begin = s.then_begin;
  const int label = s.label;
  const std::optional<LoopContext>& loop = s.loop;
  // 3.12+ places the handlers of a try in the then-branch after the function's code: where the
  // try's body does not fall through (it returns), only its clauses jump over the else.
  if (profile_.cold_blocks_at_end) {
    int join = -1;
    for (int target : handler_exits(then_begin, label)) {
      if (target > label && target <= end && target > join &&
          flow_.reachable[static_cast<size_t>(target)])  // (code the else reaches too)
        join = target;
    }
    if (join > label && !(loop && (resolve(join) == resolve(loop->break_target) ||
                                   resolve(join) == resolve(loop->continue_target)))) {
      Body then_body = decode_range(then_begin, label, join);
      Body else_body = decode_range(label, join, join);
      emit_if(s, std::move(then_body), std::move(else_body));
      return join;
    }
  }
  return -1;
}

int CodeDecoder::if_else_with_suppressed_return(const IfShape& s) {
  const auto& ops = lifted_.ops;
  const int end = s.end;
  const int then_begin = s.then_begin;
  const int label = s.label;
  // 3.12+: a then-branch ending in a with statement whose body does not fall through (it
  // returns): where the code after the if/else is the function's implicit `return None`, the
  // path of a suppressed exception ends in a copy of it (starting no line of its own) instead of
  // a jump over the else. Without an else, it would go on at the label. The original ends the
  // region, the else falling into it, or is gone where nothing reaches it; only handler code
  // follows.
  if (profile_.cold_blocks_at_end && role_ != CodeRole::Module && label > then_begin &&
      label < end) {
    Op closing = ops[static_cast<size_t>(label) - 1].op;
    auto implicit_return_at = [&](int at) {
      const Operation& o = ops[static_cast<size_t>(at)];
      return o.op == Op::ReturnConst && o.constant &&
             o.constant->kind == bytecode::ObjectKind::None && o.line < 0 &&
             flow_.handler_covering(at) == flow_.handler_covering(then_begin);
    };
    int join = -1;
    for (int k = end - 1; k >= label; --k) {
      if (flow_.reachable[static_cast<size_t>(k)]) {
        join = k;
        break;
      }
    }
    // (Or the region goes on at a copy of it: the if ends a branch of an enclosing if, whose
    // code after it is that return, each branch falling off ending in a copy.)
    int goes_on = resolve(s.exit);
    bool exit_copy = goes_on >= end && goes_on < static_cast<int>(ops.size()) &&
                     flow_.reachable[static_cast<size_t>(goes_on)] && implicit_return_at(goes_on);
    for (int k = end; k < static_cast<int>(ops.size()) && join >= 0 && !exit_copy; ++k) {
      if (flow_.reachable[static_cast<size_t>(k)]) join = -1;
    }
    // (Gone: the else ends in a return or raise, its only statement too.)
    if (join >= label && !implicit_return_at(join)) {
      Op last = ops[static_cast<size_t>(join)].op;
      join = last == Op::ReturnValue || last == Op::ReturnConst || last == Op::RaiseVarargs ||
                     last == Op::Reraise
                 ? join + 1
                 : -1;
    }
    bool suppressed_return = false;
    for (int back : cold_with_suppressed_paths(then_begin, label))
      suppressed_return = suppressed_return || implicit_return_at(back);
    bool else_reaches = join > label;
    for (int k = label; k < join && else_reaches; ++k) {
      const Operation& o = ops[static_cast<size_t>(k)];
      else_reaches = !((is_jump(o.op) && o.target > join) || o.op == Op::PushExcInfo);
    }
    if (suppressed_return && else_reaches &&
        (closing == Op::ReturnValue || closing == Op::ReturnConst || closing == Op::RaiseVarargs)) {
      Body then_body = decode_range(then_begin, label, exit_copy && join >= end ? s.exit : join);
      Body else_body = decode_range(label, join, join);
      emit_if(s, std::move(then_body), std::move(else_body));
      return join;
    }
  }
  return -1;
}

// 3.12+: where the suppressed path goes on for each with statement starting in [begin, end)
// whose handler lies in unreachable (cold) code from `end` on: the operation after the path's
// `POP_EXCEPT; POP_TOP; POP_TOP` (compiler_with's WITH_EXCEPT_START jump when __exit__ is true).
std::vector<int> CodeDecoder::cold_with_suppressed_paths(int begin, int end) const {
  const auto& ops = lifted_.ops;
  std::vector<int> paths;
  for (const HandlerRegion& region : flow_.regions) {
    if (region.start < begin || region.start >= end || region.target < end ||
        flow_.reachable[static_cast<size_t>(region.target)] ||
        static_cast<size_t>(region.target) + 3 >= ops.size() ||
        ops[static_cast<size_t>(region.target)].op != Op::PushExcInfo ||
        ops[static_cast<size_t>(region.target) + 1].op != Op::WithExceptStart ||
        ops[static_cast<size_t>(region.target) + 2].op != Op::JumpIf)
      continue;
    int back = ops[static_cast<size_t>(region.target) + 2].target + 4;
    if (back > region.target && static_cast<size_t>(back) < ops.size()) paths.push_back(back);
  }
  return paths;
}

// 3.12+: a then-branch ending in a with statement whose body does not fall through (it
// returns): its exit and compiler_if's jump over the else were unreachable and are gone, and the
// path of a suppressed exception jumps to the code after the with, the code after the if/else
// (the jump threaded by optimize_basic_block). Where it jumps to where the region goes on and
// not to the label, the code at the label is an else: without one, the code after the with
// would be there. (The branch must not fall or jump into the label itself.)
int CodeDecoder::if_else_with_suppressed_jump(const IfShape& s) {
  const auto& ops = lifted_.ops;
  const int then_begin = s.then_begin;
  const int label = s.label;
  if (!profile_.cold_blocks_at_end || label <= then_begin || label >= s.end ||
      same_target(label, s.exit))
    return -1;
  Op closing = ops[static_cast<size_t>(label) - 1].op;
  if (closing != Op::ReturnValue && closing != Op::ReturnConst && closing != Op::RaiseVarargs)
    return -1;
  for (int k = then_begin; k < label; ++k) {
    const Operation& o = ops[static_cast<size_t>(k)];
    if (is_jump(o.op) && resolve(o.target) == resolve(label)) return -1;
  }
  bool suppressed_jump = false;
  for (int back : cold_with_suppressed_paths(then_begin, label)) {
    suppressed_jump =
        suppressed_jump || (ops[static_cast<size_t>(back)].op == Op::Jump &&
                            same_target(ops[static_cast<size_t>(back)].target, s.exit));
  }
  if (!suppressed_jump) return -1;
  Body then_body = decode_range(then_begin, label, s.exit);
  Body else_body = decode_range(label, s.end, s.exit);
  emit_if(s, std::move(then_body), std::move(else_body));
  return s.end;
}

int CodeDecoder::if_continue_then_break(const IfShape& s) {
  const auto& ops = lifted_.ops;
  const int end = s.end;
  const int exit = s.exit;
  const int then_begin = s.then_begin;
  const int label = s.label;
  const std::optional<LoopContext>& loop = s.loop;
  // The last test of a loop body whose false exit leaves the loop (a `while True` whose body ends
  // in `if test: continue`): falling off the end there is a break, not the next iteration.
  if (label == end && loop && !same_target(label, exit) &&
      resolve(label) == resolve(loop->break_target) && label > then_begin) {
    Body then_body = decode_range(then_begin, label, exit);
    // The test jumps straight to the loop's exit and the branch jumps straight back: `if test:
    // A; continue` then `break`, as written. (`if test: A else: break` jumps to the else's own
    // break and ends its branch with a jump to the loop's jump back.)
    // decode_while_true turns it back where the loop stays `while True` (a `while test` loop's
    // reading needs the if/else).
    const Operation& branch_end = ops[static_cast<size_t>(label) - 1];
    bool written = label == loop->break_target && branch_end.op == Op::Jump &&
                   branch_end.target < label && same_target(branch_end.target, exit);
    if (then_body.empty()) {
      emit_if(s, {make_stmt(StmtKind::Continue)}, {});
      emit(make_stmt(StmtKind::Break));
    } else {
      emit_if(s, std::move(then_body), {make_stmt(StmtKind::Break)});
      if (written) written_continues_.insert(out_->back());
    }
    return label;
  }
  return -1;
}

// An if/else ending a loop body whose then-branch ends in a for loop: the inner loop's breaks
// jump to the code after it, the if's jump over the else (compiler_if), which goes to the loop's
// jump back (compiler_for's, no location); flowgraph.c's jump threading sends them straight to
// the loop head, and where the inner loop's end never falls through (its else ends in a break or
// return) nothing jumps over the else any more. The then-branch, read with the loop head as its
// exit, ends where the if/else does: the else runs to the region's end.
int CodeDecoder::if_else_breaks_threaded_to_head(const IfShape& s) {
  const auto& ops = lifted_.ops;
  const int end = s.end;
  const int exit = s.exit;
  const int then_begin = s.then_begin;
  const int label = s.label;
  const std::optional<LoopContext>& loop = s.loop;
  if (!profile_.threads_jumps_to_jumps || !loop || label >= end || label <= then_begin ||
      !same_target(exit, loop->continue_target))
    return -1;
  // (The then-branch never falls into the label.)
  Op branch_last = ops[static_cast<size_t>(label) - 1].op;
  if (branch_last != Op::Jump && branch_last != Op::ReturnValue && branch_last != Op::ReturnConst &&
      branch_last != Op::RaiseVarargs && branch_last != Op::Reraise)
    return -1;
  bool threaded_break = false;
  for (int k = then_begin; k < label && !threaded_break; ++k) {
    const Operation& head = ops[static_cast<size_t>(k)];
    if (head.op != Op::ForIter || head.target <= k || head.target > label) continue;
    for (int m = k + 1; m < head.target && !threaded_break; ++m) {
      const Operation& o = ops[static_cast<size_t>(m)];
      threaded_break = o.op == Op::Jump && o.target < k &&
                       ops[static_cast<size_t>(m) - 1].op == Op::PopTop &&
                       same_target(o.target, loop->continue_target);
    }
  }
  // (3.12+: or a loop's `break` in an except clause, placed after the function's code with the
  // handler code (push_cold_blocks_to_end): threaded alike, `POP_EXCEPT; JUMP head`. The try
  // starts inside a loop of the then-branch (its row covering the earliest operation: regions
  // are merged per handler), so the jump leaves that loop: a break, never the outer `continue`.)
  for (size_t r = 0; profile_.cold_blocks_at_end && !threaded_break && r < flow_.regions.size();
       ++r) {
    const HandlerRegion& region = flow_.regions[r];
    if (region.start < then_begin || region.start >= label || region.target < label ||
        ops[static_cast<size_t>(region.target)].op != Op::PushExcInfo ||
        !in_branch_loop(then_begin, region.start, label))
      continue;
    int cleanup = flow_.handler_covering(region.target);
    for (int k = region.target; k < cleanup && !threaded_break; ++k) {
      const Operation& o = ops[static_cast<size_t>(k)];
      threaded_break =
          o.op == Op::Jump && o.target < then_begin && same_target(o.target, loop->continue_target);
    }
  }
  if (!threaded_break) return -1;
  Body then_body = decode_range(then_begin, label, exit);
  Body else_body = decode_range(label, end, exit);
  emit_if(s, std::move(then_body), std::move(else_body));
  return end;
}

// Whether `k` lies in a loop whose head and jumps back are all in [begin, end).
bool CodeDecoder::in_branch_loop(int begin, int k, int end) const {
  for (int head = begin; head <= k; ++head) {
    int last = flow_.last_backward_source[static_cast<size_t>(head)];
    if (last >= k && last < end) return true;
  }
  return false;
}

void CodeDecoder::fold_exit_block_copies(IfShape& s) {
  const auto& ops = lifted_.ops;
  const std::vector<ConditionItem>& items = s.items;
  const int then_begin = s.then_begin;
  int& label = s.label;
  // Tests jumping to copies of one exit block (the compiler copies a short return, or the RERAISE
  // ending a finally body, for each jump to it; `a and b` ending a finally body): the copies lie
  // back to back, the then-branch ends at the first, the others are no code of their own.
  int first_copy = label;
  for (const ConditionItem& item : items) {
    if (item.target > then_begin && item.target < first_copy && same_target(item.target, label))
      first_copy = item.target;
  }
  if (first_copy < label) {
    int length = copied_tail_length(label);
    bool copies = length > 0 && (label - first_copy) % length == 0;
    for (int k = first_copy; copies && k < label; k += length)
      copies = same_operations(ops, k, label, length);
    bool jumps = length == 0;  // (decode_finally_body's RERAISE copies, jumps to its end)
    for (int k = first_copy; jumps && k < label; ++k) {
      jumps = ops[static_cast<size_t>(k)].op == Op::Jump &&
              resolve(ops[static_cast<size_t>(k)].target) == resolve(label);
    }
    if (copies || jumps) {
      mark_consumed(first_copy + (jumps ? 1 : length), label + length);
      label = first_copy;
    }
  }
  consume_exit_copies_after_label(s);
}

// 3.12+ duplicate_exits_without_lineno gives each jump to a line-less exit block its own copy,
// placed after the original in the order of the jumps, the last test's first: `if a and b: X`
// in a finally copy before a return (the RETURN_VALUE of the value waiting under the copy) has
// b's copy at the label and a's after it. Those later copies, reached only by the tests' jumps,
// are no code of their own: consumed with the if.
void CodeDecoder::consume_exit_copies_after_label(const IfShape& s) {
  const auto& ops = lifted_.ops;
  const int label = s.label;
  int length = copied_tail_length(label);
  int last_copy = label;
  for (const ConditionItem& item : s.items) {
    if (item.target > label && same_target(item.target, label))
      last_copy = std::max(last_copy, item.target);
  }
  if (length <= 0 || last_copy == label || (last_copy - label) % length != 0 ||
      static_cast<size_t>(last_copy + length) > ops.size())
    return;
  Op last = ops[static_cast<size_t>(label + length - 1)].op;
  if (last != Op::ReturnValue && last != Op::ReturnConst && last != Op::Reraise &&
      last != Op::RaiseVarargs)
    return;  // (a copy falling into the next would be code)
  for (int k = label + length; k <= last_copy; k += length) {
    if (!same_operations(ops, k, label, length)) return;
  }
  // (Nothing else jumps into them.)
  for (size_t k = 0; k < ops.size(); ++k) {
    int target = ops[k].target;
    if (!is_jump(ops[k].op) || target <= label || target >= last_copy + length) continue;
    bool from_test = false;
    for (const ConditionItem& item : s.items) from_test |= item.jump == static_cast<int>(k);
    if (!from_test) return;
  }
  mark_consumed(label + length, last_copy + length);
}

// 3.12+ copies a short exit block (a return or raise) into a jump to it: a then-branch that
// jumped over its else to the code after the if/else ends in a copy of that code, with its
// lines (a return written there has its own). The original is the last such code in the
// region, where the else falls into it. (The copy is one whole statement: it starts the
// branch or follows the end of another, and stores nothing before its end.)
int CodeDecoder::if_else_copied_exit(const IfShape& s) {
  const auto& ops = lifted_.ops;
  const int end = s.end;
  const int then_begin = s.then_begin;
  const int label = s.label;
  std::vector<bool> targeted(7, false);  // the operations before label that a jump goes to
  for (const Operation& o : ops) {
    if (profile_.exit_copies_keep_lines && is_jump(o.op) && o.target >= label - 7 &&
        o.target < label)
      targeted[static_cast<size_t>(label - o.target - 1)] = true;
  }
  for (int n = std::min(6, label - then_begin);
       profile_.exit_copies_keep_lines && label < end && n >= 1; --n) {
    Op closing = ops[static_cast<size_t>(label) - 1].op;
    if (closing != Op::ReturnValue && closing != Op::ReturnConst && closing != Op::RaiseVarargs)
      break;
    if (int next = if_else_copied_exit_of_length(s, n, targeted); next >= 0) return next;
  }
  return -1;
}

int CodeDecoder::if_else_copied_exit_of_length(const IfShape& s, int n,
                                               const std::vector<bool>& targeted) {
  const auto& ops = lifted_.ops;
  const int end = s.end;
  const int exit = s.exit;
  const int then_begin = s.then_begin;
  const int label = s.label;
  Op closing = ops[static_cast<size_t>(label) - 1].op;
  int copy = label - n;
  bool one_statement = copy_is_one_statement(s, copy, n, targeted);
  // (A constant return alone may be the implicit `return None`, whose copies take their lines
  // from what precedes them: equal lines prove nothing. But a copy of it, starting no line of
  // its own, ends a branch that falls off its end, where a written `return` has its line; the
  // original is then the last operation of the region. Its handlers are those around the if
  // statement, which its test runs under: a try starting the branch covers the branch's first
  // operation, not the copy, which the try's body falls into.)
  bool implicit_return =
      n == 1 && closing == Op::ReturnConst && role_ != CodeRole::Module &&
      ops[static_cast<size_t>(copy)].constant &&
      ops[static_cast<size_t>(copy)].constant->kind == bytecode::ObjectKind::None &&
      ops[static_cast<size_t>(copy)].line < 0 && !written_return_leaving_with(ops, copy) &&
      flow_.handler_covering(copy) == flow_.handler_covering(s.j);
  if (!one_statement || (n == 1 && closing == Op::ReturnConst && !implicit_return)) return -1;
  int join = copy_original(s, copy, n, implicit_return);
  // The then-branch of an if ending an except clause leaves it (POP_EXCEPT, after that a
  // named clause's `name = None; del name`) for a copy of the code after the try statement:
  // all the rest of the region is its else.
  int leave = copy - 1;
  if (leave >= then_begin + 3 && ops[static_cast<size_t>(leave)].op == Op::DeleteName) leave -= 3;
  bool leaves_clause = join < label && n == clause_tail_length_ && clause_tail_ >= 0 &&
                       leave >= then_begin && ops[static_cast<size_t>(leave)].op == Op::PopExcept &&
                       is_line_copy(ops, copy, clause_tail_, n);
  if (join < label && !leaves_clause) return -1;
  // (The copy is decoded with the branch, which a statement ending there may need, and then
  // dropped, unless that statement took it in: a with statement's normal path.)
  Body then_body = decode_range(then_begin, label, leaves_clause ? exit : join);
  if (then_body.empty()) throw DecodeFailure("copied code after an if");
  StmtKind last = then_body.back()->kind;
  if (last == StmtKind::Return || last == StmtKind::Raise) then_body.pop_back();
  // (A loop ending the branch may leave through further copies of the implicit return.)
  while (implicit_return && !then_body.empty() && then_body.back()->kind == StmtKind::Return &&
         (then_body.back()->exprs.empty() || is_none(then_body.back()->exprs[0]))) {
    then_body.pop_back();
  }
  // (A with statement ending the branch took the copy, after its exit call, in as its own
  // `return None`: the branch falls off the with's end instead.)
  if (implicit_return && is_exit_call(ops, copy - 5)) {
    Body* inner = &then_body;
    while (!inner->empty() && inner->back()->kind == StmtKind::With)
      inner = &inner->back()->bodies[0];
    if (inner != &then_body && !inner->empty() && inner->back()->kind == StmtKind::Return &&
        (inner->back()->exprs.empty() || is_none(inner->back()->exprs[0]))) {
      inner->pop_back();
      if (inner->empty()) inner->push_back(make_stmt(StmtKind::Pass));
    }
  }
  Body else_body = leaves_clause ? decode_range(label, end, exit) : decode_range(label, join, join);
  if (else_body.empty() && !leaves_clause && join == label) else_body = else_pass(copy, join);
  emit_if(s, std::move(then_body), std::move(else_body));
  return leaves_clause ? end : join;
}

// 3.12+: a then-branch jumping over its else to the implicit `return None` ends in a copy of it
// (inline_small_exit_blocks replaced the jump), a block without a line that the tests inside
// the branch jumped to as well (the branch's end: an if ending it, `and` operands);
// duplicate_exits_without_lineno (flowgraph.c) then gave each such jump a copy of its own, with
// the jump's line, placed right after the block, the last jump's copy first. The branch ends
// before the block, the tests jumping to the copies go where it goes (the copies are consumed),
// and the else runs from the label to the final return it falls into, or, where no code is
// reachable after it (an else ending in a raise: every jump to the return got a copy, the
// original went), to the region's end.
int CodeDecoder::if_else_exit_copies(const IfShape& s) {
  const int first = exit_copies_start(s.then_begin, s.label);
  if (first < 0) return -1;
  auto ends_code = [&](int at) {  // nothing reachable from `at` on
    for (size_t k = static_cast<size_t>(std::max(at, 0)); k < lifted_.ops.size(); ++k) {
      if (flow_.reachable[k]) return false;
    }
    return true;
  };
  // (The final return itself, where the code ends: a copy of it ending an else, code following
  // it, is a written `return None`'s. Or no final return at all: the else never falls off its
  // end, the block was copied into every jump to it.)
  int join = copy_original(s, first, 1, true);
  if (join >= s.label && !ends_code(join + 1)) return -1;
  if (join < s.label && (s.end <= s.label || !ends_code(s.end) || !else_is_code(s))) return -1;
  mark_consumed(first + 1, s.label);
  Body then_body = decode_range(s.then_begin, first, join >= s.label ? join : first);
  if (then_body.empty()) then_body.push_back(make_stmt(StmtKind::Pass));
  Body else_body =
      join >= s.label ? decode_range(s.label, join, join) : decode_range(s.label, s.end, s.exit);
  emit_if(s, std::move(then_body), std::move(else_body));
  return join >= s.label ? join : s.end;
}

// Whether [label, end) is an else: normal code under the test's handlers, no handler code that
// push_cold_blocks_to_end placed after the branch.
bool CodeDecoder::else_is_code(const IfShape& s) const {
  const auto& ops = lifted_.ops;
  if (!flow_.reachable[static_cast<size_t>(s.label)]) return false;
  for (int k = s.label; k < s.end; ++k) {
    if (ops[static_cast<size_t>(k)].op == Op::PushExcInfo ||
        flow_.handler_covering(k) != flow_.handler_covering(s.then_begin))
      return false;
  }
  return true;
}

// The block at the start of the run of `return None` copies ending [then_begin, label), as
// if_else_exit_copies reads it: each copy the target of one jump from inside the branch before
// the block, on that jump's line, the jumps in reverse order of their copies; the block reached
// by falling into it, without a line of its own, or by the last jump only. Else -1. (3.12+: a
// clause of a try in the branch, placed after the code by push_cold_blocks_to_end, jumps there
// too: its copy comes nearest the block, its jump being the last.)
int CodeDecoder::exit_copies_start(int then_begin, int label) const {
  const auto& ops = lifted_.ops;
  auto returns_none = [&](int k) {
    const Operation& o = ops[static_cast<size_t>(k)];
    return o.op == Op::ReturnConst && is_none_constant(o);
  };
  if (!profile_.copies_exits_with_jump_lines || label - 2 <= then_begin ||
      !returns_none(label - 1) || !returns_none(label - 2))
    return -1;
  std::vector<std::vector<int>> sources(static_cast<size_t>(label - then_begin));
  for (size_t q = 0; q < ops.size(); ++q) {
    int t = ops[q].target;
    if (is_jump(ops[q].op) && t >= then_begin && t < label)
      sources[static_cast<size_t>(t - then_begin)].push_back(static_cast<int>(q));
  }
  auto from = [&](int k) -> const std::vector<int>& {
    return sources[static_cast<size_t>(k - then_begin)];
  };
  int first = label - 1;
  int later_source = -1;  // the jump to the copy after the one looked at
  while (first - 1 > then_begin && returns_none(first - 1) && from(first).size() == 1) {
    int source = from(first)[0];
    // (An except clause's way out: POP_EXCEPT, then the unbinding of its name; not a with's
    // exit after its handler, which returns through the copy inside the with.)
    int leave = source - 1;
    if (leave >= 3 && ops[static_cast<size_t>(leave)].op == Op::DeleteName) leave -= 3;
    bool cold = source >= label && !flow_.reachable[static_cast<size_t>(source)] &&
                ops[static_cast<size_t>(leave)].op == Op::PopExcept;
    if ((!cold && (source < then_begin || source >= first - 1)) || source <= later_source ||
        line_at(ops, source) != line_at(ops, first))
      break;
    later_source = source;
    --first;
  }
  if (first == label - 1) return -1;
  const Operation& before = ops[static_cast<size_t>(first) - 1];
  bool falls_in = from(first).empty() && ops[static_cast<size_t>(first)].line < 0 &&
                  !is_jump(before.op) && falls_through(before.op);
  bool last_jump = from(first).size() == 1 && from(first)[0] > later_source &&
                   from(first)[0] < first && from(first)[0] >= then_begin;
  if (!falls_in && !last_jump) return -1;
  // (Under the handlers of the if statement, those of its test's last jump before the branch,
  // not of a try starting the branch.)
  if (flow_.handler_covering(first) != flow_.handler_covering(then_begin - 1)) return -1;
  for (int k = first + 1; k < label; ++k) {
    if (flow_.handler_covering(k) != flow_.handler_covering(first)) return -1;
  }
  return first;
}

bool CodeDecoder::copy_is_one_statement(const IfShape& s, int copy, int n,
                                        const std::vector<bool>& targeted) const {
  const auto& ops = lifted_.ops;
  const int then_begin = s.then_begin;
  const int label = s.label;
  const std::optional<LoopContext>& loop = s.loop;
  bool one_statement = copy == then_begin || ends_statement(ops[static_cast<size_t>(copy) - 1].op);
  for (int k = copy; k + 1 < label && one_statement; ++k)
    one_statement = !ends_statement(ops[static_cast<size_t>(k)].op);
  // (Nothing jumps into it, but to its start, nor to a POP_TOP before it: a chained
  // comparison's cleanup before a copy is no statement.)
  for (int k = copy - 1; k < label; ++k) {
    if (k != copy && targeted[static_cast<size_t>(label - k - 1)] &&
        (k > copy || ops[static_cast<size_t>(k)].op == Op::PopTop)) {
      one_statement = false;
    }
  }
  // (Nor a `break` that the compiler replaced with a copy of the code after the loop: a NOP
  // with the line of the statement, or a for loop's iterator popped first.)
  if (copy > then_begin) {
    const Operation& before = ops[static_cast<size_t>(copy) - 1];
    if ((before.op == Op::Nop && before.line >= 0) || break_copies_.count(copy - 1) > 0)
      one_statement = false;
  }
  if (loop && is_line_copy(ops, copy, loop->break_target, n)) one_statement = false;
  // (Nor such a NOP that lift dropped onto the copy (decode_nop_break_copy), in a `while True`
  // that no code follows, each break holding a copy of the exit block: 3.12+'s
  // inline_small_exit_blocks left no original, so none lies after the loop to compare with.)
  if (one_statement && loop && nop_break_copy_at(copy) &&
      absent_break_target_copy(copy, label) == n)
    one_statement = false;
  return one_statement;
}

// An else of only `pass` (or another statement compiled to a NOP: compile.c's Pass_kind) leaves
// a NOP with its own line at the label, where the else falls into the code after the if/else;
// remove_redundant_nops (flowgraph.c) keeps it, the next operation starting another line. Lift
// dropped it onto the original of the copied exit block (`nop_line`), which the then-branch's
// copy lacks (a NOP of that block itself is copied with it). Else empty: no else.
Body CodeDecoder::else_pass(int copy, int join) const {
  const auto& ops = lifted_.ops;
  const Operation& original = ops[static_cast<size_t>(join)];
  Body body;
  if (original.nop_line < 0 || original.line < 0 || original.nop_line == original.line ||
      ops[static_cast<size_t>(copy)].nop_line >= 0)
    return body;
  body.push_back(make_stmt(StmtKind::Pass));
  body.back()->line = original.nop_line;
  return body;
}

namespace {

// propagate_line_numbers (flowgraph.c) gives a block without a line of its own that is reached
// by one jump only (nothing falls into it) the line of that jump: the jump, where `at` starts
// such a block with that line; else -1.
int line_giving_jump(const std::vector<Operation>& ops, int at) {
  if (at <= 0 || static_cast<size_t>(at) >= ops.size() ||
      falls_through(ops[static_cast<size_t>(at) - 1].op))
    return -1;
  int source = -1;
  for (size_t k = 0; k < ops.size(); ++k) {
    if (!is_jump(ops[k].op) || ops[k].target != at) continue;
    if (source >= 0) return -1;
    source = static_cast<int>(k);
  }
  return source >= 0 && ops[static_cast<size_t>(at)].line == line_at(ops, source) ? source : -1;
}

}  // namespace

int CodeDecoder::copy_original(const IfShape& s, int copy, int n, bool implicit_return) const {
  const auto& ops = lifted_.ops;
  const int end = s.end;
  const int exit = s.exit;
  const int label = s.label;
  const std::optional<LoopContext>& loop = s.loop;
  // (The final return without a line of its own: one the only jump to it, from the else (not
  // the test's, which has no else), gave its line, the code before it not falling in, too.)
  // (Where the branch and the else run under the same handlers as the copy: a return leaving
  // a with, a finally or an except clause runs their exit code, under none, just before.)
  // (3.12+ places handler code after the function's: only that may follow the original.)
  auto only_cold_after = [&](int at) {
    for (int k = at + 1; k < end; ++k) {
      if (flow_.reachable[static_cast<size_t>(k)]) return false;
    }
    return true;
  };
  auto from_else = [&](int at) {
    int source = line_giving_jump(ops, at);
    return source >= label && source < at;
  };
  auto is_implicit_return = [&](int at) {
    return at >= label && only_cold_after(at) && at < static_cast<int>(ops.size()) &&
           same_operations(ops, copy, at, 1) &&
           (ops[static_cast<size_t>(at)].line < 0 || from_else(at)) &&
           flow_.handler_covering(at) == flow_.handler_covering(s.j);
  };
  // (Or the region's end, when the original follows it. Not a copy in a branch of the else,
  // which something in the else jumps past, nor one in the handlers placed after the code.)
  auto else_reaches = [&](int join) {
    for (int k = label; k < join; ++k) {
      const Operation& o = ops[static_cast<size_t>(k)];
      if ((is_jump(o.op) && o.target > join && o.target < end) || o.op == Op::PushExcInfo)
        return false;
    }
    return true;
  };
  // (The region's end only where the then-branch would go on there: not a loop's exit, where
  // the copy is a `break`.)
  int join = std::min(end, static_cast<int>(ops.size()) - n);
  if (join == end &&
      (!same_target(end, exit) || (loop && resolve(end) == resolve(loop->break_target)))) {
    --join;
  }
  while (join >= label &&
         !((implicit_return ? is_implicit_return(join) : is_line_copy(ops, copy, join, n)) &&
           else_reaches(join))) {
    --join;
  }
  return join;
}

int CodeDecoder::if_with_final_return(const IfShape& s) {
  const auto& ops = lifted_.ops;
  const int j = s.j;
  const int end = s.end;
  const int exit = s.exit;
  const int then_begin = s.then_begin;
  const int label = s.label;
  int fall_offs_before = s.loop ? cold_test_fall_offs_[s.loop->continue_target] : 0;
  Body then_body = decode_range(then_begin, label, label);
  // (A jump in the then-branch to the loop's cold bottom test, read as falling off, goes on with
  // the next iteration, not at the label: this reading would run the code there after it.)
  if (s.loop && cold_test_fall_offs_[s.loop->continue_target] != fall_offs_before &&
      resolve(label) != s.loop->continue_target)
    throw DecodeFailure(
        "a then-branch's jump to the loop's cold test read as falling into the label");
  // At module level the final `return None` is duplicated into branches: the rest is an else.
  if (role_ == CodeRole::Module && ends_in_return_none(ops, label)) {
    if (!then_body.empty() && then_body.back()->kind == StmtKind::Return) then_body.pop_back();
    Body else_body = label < end ? decode_range(label, end, exit) : Body{};
    emit_if(s, std::move(then_body), std::move(else_body));
    return end;
  }
  // 3.11 copies the implicit `return None` (it has no line) into a then-branch that jumped over
  // its else to it: a copy starting no line, where a written `return` starts its own, ends the
  // branch, and the else runs to that final return, under the same handlers as the test.
  int size = static_cast<int>(ops.size());
  bool final_implicit_return = false;
  if (size >= 2 && ends_in_return_none(ops, size)) {
    int start = ops[static_cast<size_t>(size) - 1].op == Op::ReturnConst ? size - 1 : size - 2;
    final_implicit_return = ops[static_cast<size_t>(start)].line < 0 &&
                            flow_.handler_covering(start) == flow_.handler_covering(j) &&
                            flow_.handler_covering(size - 1) == flow_.handler_covering(j);
  }
  if (!profile_.inlines_small_exit_blocks && role_ != CodeRole::Module && label < end &&
      final_implicit_return && (end == size || resolve(end) >= size - 2) && !then_body.empty() &&
      then_body.back()->kind == StmtKind::Return && !then_body.back()->new_line &&
      (then_body.back()->exprs.empty() || is_none(then_body.back()->exprs[0]))) {
    then_body.pop_back();
    Body else_body = decode_range(label, end, exit);
    emit_if(s, std::move(then_body), std::move(else_body));
    return end;
  }
  emit_if(s, std::move(then_body), {});
  return label;
}

}  // namespace glassbox::decompiler

namespace glassbox::decompiler {

// 3.10, 3.12+: `if test: ...; while True: A else: B` then C, C a short exit block, the loop left
// only by breaks out of a try/finally or with statement: compile.c's compiler_break unwinds
// the statement and jumps to C, a jump that inline_small_exit_blocks (3.10: extend_block)
// replaced with a copy of C, with C's lines. The then-branch never falls through (compiler_if's
// jump over the else is unreachable and goes), so the code at the label is the else, which
// falls into C. The then-branch goes to C (decode_while_true's break target), the else is
// [label, C). -1 where that is not the shape.
int CodeDecoder::if_else_loop_break_copies(const IfShape& s) {
  const auto& ops = lifted_.ops;
  const int label = s.label;
  if (!profile_.inlines_small_exit_blocks || label >= s.end || label - 1 <= s.then_begin ||
      !may_start_statement(ops[static_cast<size_t>(label)].op) || stack_.size() != statement_depth_)
    return -1;
  const Operation& back = ops[static_cast<size_t>(label) - 1];
  if (back.op != Op::Jump || back.target < s.then_begin || back.target >= label - 1) return -1;
  for (int k = s.then_begin; k < label; ++k) {
    const Operation& o = ops[static_cast<size_t>(k)];
    if (is_jump(o.op) && (o.target < s.then_begin || o.target >= label)) return -1;
  }
  // (Copies of the code at the label: the loop ends the if, without an else.)
  int join = loop_break_copies_join(s.then_begin, label, s.end);
  if (join <= label) return -1;
  // (The else goes nowhere past the join; nothing else jumps into it or to the join, but the
  // handler code of its statements, reached only by raising, going back to their ends.)
  for (size_t k = 0; k < ops.size(); ++k) {
    const Operation& o = ops[k];
    if (!is_jump(o.op) || !flow_.reachable[k]) continue;
    bool in_else = static_cast<int>(k) >= label && static_cast<int>(k) < join;
    if (in_else ? (o.target < label || o.target > join) : (o.target > label && o.target <= join))
      return -1;
  }
  Body then_body = decode_range(s.then_begin, label, join);
  Body else_body = decode_range(label, join, join);
  emit_if(s, std::move(then_body), std::move(else_body));
  return join;
}

// The block in [label, end) of which the returns and raises in [begin, label) that are copies
// (with its lines, the longest such) are copies, the same for every such copy: the last one
// reached without raising (the original, which the else falls into; the copies in the else of
// its own breaks come before it). -1 where there is none.
int CodeDecoder::loop_break_copies_join(int begin, int label, int end) const {
  const auto& ops = lifted_.ops;
  int join = -1;
  for (int r = begin; r < label; ++r) {
    Op op = ops[static_cast<size_t>(r)].op;
    if (op != Op::ReturnValue && op != Op::ReturnConst && op != Op::RaiseVarargs) continue;
    int found = -1;
    for (int n = std::min(16, r - begin + 1); n >= 1 && found < 0; --n) {
      for (int x = label; x + n <= end; ++x) {
        if (flow_.reachable[static_cast<size_t>(x)] && is_line_copy(ops, r - n + 1, x, n))
          found = x;
      }
    }
    if (found < 0) continue;
    if (join >= 0 && join != found) return -1;
    join = found;
  }
  return join;
}

}  // namespace glassbox::decompiler
