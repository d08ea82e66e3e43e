// Structuring of exception-table regions (3.11+): try/except/else/finally and with.
//
// A handler that starts with PUSH_EXC_INFO owns the operations its table rows cover: that is
// the try body. What follows the body up to the handler is the `else` (or, for a finally, the
// finally body's normal-path copy) and a jump past the handlers.
#include <algorithm>
#include <exception>
#include <map>
#include <set>
#include <string>

#include "bytecode/instructions.hpp"
#include "decompiler/decoder.hpp"
#include "decompiler/handlers_support.hpp"
#include "decompiler/printer.hpp"

namespace glassbox::decompiler {

constexpr int kMaxCopySize = 4;  // flowgraph.c's MAX_COPY_SIZE

// Whether a jump of [from, to) lands in [begin, end): code there starts a block of its own, so
// it is no copy of a short exit block (3.10 copies one whole, without a label inside).
bool jumped_into(const std::vector<Operation>& ops, int from, int to, int begin, int end) {
  for (int k = from; k < to; ++k) {
    const Operation& op = ops[static_cast<size_t>(k)];
    if (is_jump(op.op) && op.target >= begin && op.target < end) return true;
  }
  return false;
}

namespace {

bool is_cleanup_block(const std::vector<Operation>& ops, int at) {
  return at >= 0 && static_cast<size_t>(at) + 2 < ops.size() &&
         ops[static_cast<size_t>(at)].op == Op::Copy && ops[static_cast<size_t>(at)].arg == 3 &&
         ops[static_cast<size_t>(at) + 1].op == Op::PopExcept &&
         ops[static_cast<size_t>(at) + 2].op == Op::Reraise;
}

bool is_spill_of(const StmtPtr& assign, const ExprPtr& name) {
  return name && name->kind == ExprKind::Name && name->text.compare(0, 7, "_gb_tmp") == 0 &&
         assign->kind == StmtKind::Assign && assign->exprs.size() == 2 &&
         assign->exprs[0]->kind == ExprKind::Name && assign->exprs[0]->text == name->text;
}

// A copy of `body` whose compound statements are copies too (expressions are shared).
Body clone_body(const Body& body, int depth = 0) {
  Body out;
  for (const StmtPtr& s : body) {
    auto copy = std::make_shared<Stmt>(*s);
    if (depth < 100) {
      for (Body& inner : copy->bodies) inner = clone_body(inner, depth + 1);
      for (ExceptHandler& handler : copy->handlers)
        handler.body = clone_body(handler.body, depth + 1);
    }
    out.push_back(copy);
  }
  return out;
}

// Removes the statement printing as `returned` that ends each branch of the if ending `body`
// (the branches of nested ifs ending it too); how many it removed.
int strip_branch_returns(Body& body, const std::string& returned, int depth = 0) {
  if (body.empty() || depth > 100) return 0;
  StmtPtr last = body.back();
  if (last->kind == StmtKind::Return && print_body({last}) == returned) {
    body.pop_back();
    return 1;
  }
  int removed = 0;
  if (last->kind == StmtKind::Try && last->bodies.size() == 3 && last->bodies[2].empty()) {
    // (A try/except: the exit copied after its body, or its else, and after each clause.)
    removed +=
        strip_branch_returns(last->bodies[last->bodies[1].empty() ? 0 : 1], returned, depth + 1);
    for (ExceptHandler& handler : last->handlers)
      removed += strip_branch_returns(handler.body, returned, depth + 1);
    return removed;
  }
  if (last->kind != StmtKind::If) return 0;
  for (Body& branch : last->bodies) removed += strip_branch_returns(branch, returned, depth + 1);
  return removed;
}

}  // namespace

namespace {

// Whether body[begin, end) prints as `text` (an empty range as nothing).
bool prints_as(const Body& body, size_t begin, size_t end, const std::string& text) {
  if (begin == end) return text.empty();
  return print_body(Body(body.begin() + static_cast<std::ptrdiff_t>(begin),
                         body.begin() + static_cast<std::ptrdiff_t>(end))) == text;
}

// Whether body[begin, k) is the finally copy `copy_text` before the exit body[k]: a copy ending
// in an if holds that exit copied into each branch (inline_small_exit_blocks, 3.11+), the exit
// being the last thing before the function's end.
bool copy_ends_at(const Body& body, size_t begin, size_t k, const std::string& copy_text) {
  Body before(body.begin() + static_cast<std::ptrdiff_t>(begin),
              body.begin() + static_cast<std::ptrdiff_t>(k));
  if (print_body(before) == copy_text) return true;
  Body stripped = clone_body(before);
  return strip_branch_returns(stripped, print_body({body[k]})) > 0 &&
         print_body(stripped) == copy_text;
}

// Whether the copy before the exit body[k] (its inner statements' pending copies first) is there.
// (Only the copy of the outermost statement, the last before the exit, holds the exit copied
// into its branches: compiler_unwind_fblock_stack emits the inner copies first.)
bool copy_before_exit(const Body& body, size_t k, const std::string& copy_text, size_t copy_size) {
  const Stmt& stmt = *body[k];
  size_t pending = stmt.pending_count;
  if (k < copy_size + pending) return false;
  if (pending > 0 && !prints_as(body, k - copy_size - pending, k - copy_size, stmt.pending_copies))
    return false;
  return copy_size == 0 || copy_ends_at(body, k - copy_size, k, copy_text);
}

// The returned value, computed before the copy, waits on the stack while it runs; where the
// decoder spilled it only inside the copy (before a statement that could change the name it
// reads), that spill moves before the copy when the copy is there without it.
bool spill_before_copy(Body& body, size_t k, const std::string& copy_text, size_t copy_size) {
  const Stmt& exit = *body[k];
  size_t start = k - std::min(k, copy_size + exit.pending_count);
  if (exit.kind != StmtKind::Return || exit.exprs.size() != 1 || start == 0) return false;
  size_t at = start;
  while (at < k && !is_spill_of(body[at], exit.exprs[0])) ++at;
  if (at == k) return false;
  StmtPtr spill = body[at];
  body.erase(body.begin() + static_cast<std::ptrdiff_t>(at));
  body.insert(body.begin() + static_cast<std::ptrdiff_t>(start - 1), spill);
  if (copy_before_exit(body, k, copy_text, copy_size)) return true;
  body.erase(body.begin() + static_cast<std::ptrdiff_t>(start - 1));
  body.insert(body.begin() + static_cast<std::ptrdiff_t>(at), spill);
  return false;
}

// Whether every way through `body` ends in the return printing as `returned`.
bool all_branches_return(const Body& body, const std::string& returned, int depth = 0) {
  if (body.empty() || depth > 100) return false;
  const Stmt& last = *body.back();
  if (last.kind == StmtKind::Return) return print_body({body.back()}) == returned;
  if (last.kind == StmtKind::If)
    return all_branches_return(last.bodies[0], returned, depth + 1) &&
           all_branches_return(last.bodies[1], returned, depth + 1);
  if (last.kind != StmtKind::Try || last.bodies.size() != 3 || !last.bodies[2].empty() ||
      last.handlers.empty())
    return false;
  bool returns = all_branches_return(last.bodies[last.bodies[1].empty() ? 0 : 1], returned, depth);
  for (const ExceptHandler& handler : last.handlers)
    returns = returns && all_branches_return(handler.body, returned, depth + 1);
  return returns;
}

// A copy ending in a try/except ends the body where the exit after it was copied into every
// branch (inline_small_exit_blocks, 3.11+): the branches' returns come out after it, as the exit
// of the copy, when the copy is then there (see copy_before_exit, spill_before_copy).
bool exit_after_copy(Body& body, const std::string& copy_text, size_t copy_size) {
  if (body.empty() || copy_size == 0 || body.back()->kind != StmtKind::Try) return false;
  StmtPtr last = body.back();
  const Body* path = &last->bodies[last->bodies[1].empty() ? 0 : 1];
  if (path->empty() || path->back()->kind != StmtKind::Return) return false;
  StmtPtr exit = path->back();
  std::string returned = print_body({exit});
  if (!all_branches_return(body, returned)) return false;
  Body stripped = clone_body({last});
  strip_branch_returns(stripped, returned);
  body.back() = stripped[0];
  body.push_back(make_stmt(StmtKind::Return, exit->exprs));
  size_t k = body.size() - 1;
  if (copy_before_exit(body, k, copy_text, copy_size) ||
      spill_before_copy(body, k, copy_text, copy_size))
    return true;
  body.pop_back();
  body.back() = last;
  return false;
}

}  // namespace

// The compiler copies the finally body before every exit that leaves the try: each return, and
// each break/continue not inside a loop of the try body itself. The decoded body holds those
// copies (after the return value, spilled to a temporary, was computed): they go, and the value
// comes back into the return. False when an exit lacks its copy: the statement cannot be trusted.
// With `may_defer` (an enclosing try/finally's body is being decoded), an exit whose copy is not
// right before it keeps it as pending: the enclosing statement's copy may come between.
bool strip_finally_copies(Body& body, const std::string& copy_text, size_t copy_size, bool in_loop,
                          int depth, bool may_defer) {
  if (depth > 100) return false;
  exit_after_copy(body, copy_text, copy_size);
  // The exits of this body first: a copy that ends in an if holds the exit copied into its
  // branches too, which are no exits of their own.
  for (size_t k = 0; k < body.size(); ++k) {
    // (A computed value loaded after the copy: a break's copy of the code after its loop, the
    // loop around this statement; else no reading.)
    if (body[k]->kind == StmtKind::Return && body[k]->loads_after_statements &&
        copy_size + body[k]->pending_count > 0) {
      if (!body[k]->copies_loop_exit || in_loop) return false;
      StmtPtr brk = make_stmt(StmtKind::Break);
      brk->pending_copies = body[k]->pending_copies;
      brk->pending_count = body[k]->pending_count;
      body[k] = brk;
    }
    Stmt& stmt = *body[k];
    bool leaves = stmt.kind == StmtKind::Return ||
                  (!in_loop && (stmt.kind == StmtKind::Break || stmt.kind == StmtKind::Continue));
    if (!leaves || stmt.copies_after) {
      if (stmt.pending_count > 0 && !may_defer) return false;  // (it never left the outermost)
      continue;
    }
    if (!copy_before_exit(body, k, copy_text, copy_size) &&
        !spill_before_copy(body, k, copy_text, copy_size)) {
      if (!may_defer) return false;
      stmt.pending_copies += copy_size > 0 ? copy_text : std::string();
      stmt.pending_count += copy_size;
      continue;
    }
    size_t strip = copy_size + stmt.pending_count;
    body.erase(body.begin() + static_cast<std::ptrdiff_t>(k - strip),
               body.begin() + static_cast<std::ptrdiff_t>(k));
    k -= strip;
    stmt.pending_copies.clear();
    stmt.pending_count = 0;
    if (stmt.kind == StmtKind::Return && stmt.exprs.size() == 1 && k > 0 &&
        is_spill_of(body[k - 1], stmt.exprs[0])) {
      stmt.exprs[0] = body[k - 1]->exprs[1];
      body.erase(body.begin() + static_cast<std::ptrdiff_t>(k - 1));
      --k;
    }
  }
  for (const StmtPtr& compound : body) {
    Stmt& stmt = *compound;
    if (stmt.kind == StmtKind::FunctionDef || stmt.kind == StmtKind::ClassDef) continue;
    bool loop = stmt.kind == StmtKind::For || stmt.kind == StmtKind::While;
    for (size_t b = 0; b < stmt.bodies.size(); ++b) {
      if (!strip_finally_copies(stmt.bodies[b], copy_text, copy_size, in_loop || (loop && b == 0),
                                depth + 1, may_defer)) {
        return false;
      }
    }
    for (ExceptHandler& handler : stmt.handlers) {
      if (!strip_finally_copies(handler.body, copy_text, copy_size, in_loop, depth + 1, may_defer))
        return false;
    }
  }
  return true;
}

// Whether a statement of `body` still holds finally copies pending (see strip_finally_copies).
bool has_pending_copies(const Body& body, int depth) {
  if (depth > 100) return true;
  for (const StmtPtr& stmt : body) {
    if (stmt->pending_count > 0) return true;
    for (const Body& inner : stmt->bodies)
      if (has_pending_copies(inner, depth + 1)) return true;
    for (const ExceptHandler& handler : stmt->handlers)
      if (has_pending_copies(handler.body, depth + 1)) return true;
  }
  return false;
}

namespace {

// The start of an except* handler: PUSH_EXC_INFO, then the list that collects what the clauses
// raise (3.11: COPY 1; BUILD_LIST 0; SWAP 2; 3.12+: BUILD_LIST 0; COPY 2).
bool is_except_star_prologue(const std::vector<Operation>& ops, int handler,
                             const CompilerProfile& profile) {
  auto is = [&](int k, Op op, int arg) {
    return k >= 0 && static_cast<size_t>(k) < ops.size() && ops[static_cast<size_t>(k)].op == op &&
           ops[static_cast<size_t>(k)].arg == arg;
  };
  if (!profile.exception_table) return false;  // (no except* before 3.11)
  if (profile.except_star_list_swapped) {
    return is(handler + 1, Op::Copy, 1) && is(handler + 2, Op::BuildList, 0) &&
           is(handler + 3, Op::Swap, 2);
  }
  return is(handler + 1, Op::BuildList, 0) && is(handler + 2, Op::Copy, 2);
}

// The jump ending an except clause's exit at `k`: POP_EXCEPT, `name = None; del name` for a
// named clause, then a jump to the join; -1 when there is none at `k`.
// (`name`: only with the unbinding of that name, or only without one where it is empty.)
int clause_exit_jump(const std::vector<Operation>& ops, int k, const std::string* name = nullptr) {
  auto is = [&](int at, Op op) {
    return at >= 0 && static_cast<size_t>(at) < ops.size() && ops[static_cast<size_t>(at)].op == op;
  };
  if (!is(k, Op::PopExcept)) return -1;
  bool unbinds = is(k + 1, Op::LoadConst) && is(k + 2, Op::StoreName) &&
                 is(k + 3, Op::DeleteName) &&
                 ops[static_cast<size_t>(k) + 2].text == ops[static_cast<size_t>(k) + 3].text;
  if (name && (unbinds ? ops[static_cast<size_t>(k) + 2].text != *name : !name->empty())) return -1;
  if (unbinds) k += 3;
  return is(k + 1, Op::Jump) ? k + 1 : -1;
}

// Jumps of the operation list retargeted (and listed in `jumps`) while one clause is decoded;
// put back however the decoding ends.
struct Retargeted {
  Retargeted(std::vector<Operation>& ops, std::vector<int>& jumps) : ops(ops), jumps(jumps) {}
  Retargeted(const Retargeted&) = delete;
  Retargeted& operator=(const Retargeted&) = delete;
  ~Retargeted() {
    for (auto [jump, target] : saved) ops[static_cast<size_t>(jump)].target = target;
    jumps.resize(jumps.size() - saved.size());
  }
  void retarget(int jump, int target) {
    saved.push_back({jump, ops[static_cast<size_t>(jump)].target});
    ops[static_cast<size_t>(jump)].target = target;
    jumps.push_back(jump);
  }
  std::vector<Operation>& ops;
  std::vector<int>& jumps;
  std::vector<std::pair<int, int>> saved;
};

}  // namespace

// Whether operations at `at` are `name = None; del name` (LOAD_CONST, STORE, DELETE of one name).
bool unbinds_clause_name(const std::vector<Operation>& ops, int at) {
  if (at < 0 || static_cast<size_t>(at) + 2 >= ops.size()) return false;
  const Operation* o = &ops[static_cast<size_t>(at)];
  return o[0].op == Op::LoadConst && o[1].op == Op::StoreName && o[2].op == Op::DeleteName &&
         o[1].text == o[2].text;
}

// The same unbinding right after a POP_EXCEPT: the compiler's (compiler_try_except ending a
// named clause, compiler_unwind_fblock leaving one), never one a clause writes under its handler.
bool unbinds_after_pop_except(const std::vector<Operation>& ops, int at) {
  return at >= 1 && unbinds_clause_name(ops, at) &&
         ops[static_cast<size_t>(at) - 1].op == Op::PopExcept;
}

// compiler_unwind_fblock_stack: a `continue`, `break` or `return` leaving a clause nested in the
// clause of an enclosing `except ... as name` pops each handler (POP_EXCEPT), then unbinds that
// name (`name = None; del name`) before its jump or return. The unbinding at `at`, of an
// enclosing clause's name, right after a POP_EXCEPT and right before the jump or return (a
// `del name` written after a nested try statement is followed by more code, at the least the
// clause's own POP_EXCEPT).
bool CodeDecoder::unwinds_enclosing_clause(int at) const {
  const auto& ops = lifted_.ops;
  if (!unbinds_after_pop_except(ops, at) || static_cast<size_t>(at) + 3 >= ops.size()) return false;
  const std::string& name = ops[static_cast<size_t>(at) + 1].text;
  Op after = ops[static_cast<size_t>(at) + 3].op;
  return (after == Op::Jump || after == Op::ReturnValue || after == Op::ReturnConst) &&
         std::find(enclosing_clause_names_.begin(), enclosing_clause_names_.end(), name) !=
             enclosing_clause_names_.end();
}

// The line of operation `k` (operations carry the line only where one starts).
int line_at(const std::vector<Operation>& ops, int k) {
  for (; k >= 0; --k) {
    if (ops[static_cast<size_t>(k)].line >= 0) return ops[static_cast<size_t>(k)].line;
  }
  return -1;
}

bool ends_statement(Op op) {
  return op == Op::StoreName || op == Op::StoreAttr || op == Op::StoreSubscr ||
         op == Op::StoreSlice || op == Op::DeleteName || op == Op::DeleteAttr ||
         op == Op::DeleteSubscr || op == Op::PopTop || op == Op::Nop || op == Op::PopExcept ||
         op == Op::ReturnValue || op == Op::ReturnConst || op == Op::RaiseVarargs ||
         op == Op::Reraise || op == Op::Jump || op == Op::JumpIf;
}

// Whether a statement may start with `op` (it loads something, or is a NOP).
bool may_start_statement(Op op) {
  return op == Op::LoadName || op == Op::LoadConst || op == Op::PushNull ||
         op == Op::LoadAssertionError || op == Op::Nop;
}

// Whether [copy, copy + n) is a copy of the code at `original`, kept with its lines: the same
// operations, starting a statement or returning a constant, from the same source lines.
bool is_line_copy(const std::vector<Operation>& ops, int copy, int original, int n) {
  if (!same_operations(ops, copy, original, n)) return false;
  Op first = ops[static_cast<size_t>(copy)].op;
  if (!may_start_statement(first) && first != Op::ReturnConst) return false;
  for (int k = 0; k < n; ++k) {
    if (line_at(ops, copy + k) != line_at(ops, original + k)) return false;
  }
  return true;
}

// A short tail (ending in return or raise) that the compiler copied into each path leaving a
// try/except: when every clause that can fall through ends with `tail`, those copies go and the
// caller puts `tail` after the statement. False (nothing changed) otherwise. In handler code
// (`cold`, 3.12+) the code after the statement follows its inline handlers, the else precedes
// them: a tail that no clause repeats is the else's own.
bool CodeDecoder::strip_copied_tail(Stmt& stmt, const Body& tail, bool cold) const {
  if (tail.empty() ||
      (tail.back()->kind != StmtKind::Return && tail.back()->kind != StmtKind::Raise)) {
    return false;
  }
  std::string text = print_body(tail);
  std::string last = print_body({tail.back()});
  size_t n = tail.size();
  // (A return computing its value before the clause unwinds is the clause's own.)
  auto ends_with_tail = [&](const Body& b) {
    return b.size() >= n && !b.back()->unwinds_clause &&
           print_body(Body(b.end() - static_cast<long>(n), b.end())) == text;
  };
  if (cold && std::none_of(stmt.handlers.begin(), stmt.handlers.end(),
                           [&](const ExceptHandler& c) { return ends_with_tail(c.body); }))
    return false;
  for (const ExceptHandler& clause : stmt.handlers) {
    const Body& b = clause.body;
    if (ends_with_tail(b)) continue;
    StmtKind kind = b.empty() ? StmtKind::Pass : b.back()->kind;
    // A clause that cannot fall through needs no copy; a return that repeats the tail's last
    // statement may be that copy's end (then the tail is not a copy), unless it is the clause's
    // own.
    if (kind != StmtKind::Raise &&
        (kind != StmtKind::Return || (print_body({b.back()}) == last && !b.back()->unwinds_clause)))
      return false;
  }
  for (ExceptHandler& clause : stmt.handlers) {
    Body& b = clause.body;
    if (ends_with_tail(b)) b.resize(b.size() - n);
    if (b.empty()) b.push_back(make_stmt(StmtKind::Pass));
  }
  return true;
}

// How many times `text` (n statements) ends `body` or, through a trailing if, one of its
// branches; with `strip`, those copies go (a then-branch left empty gets `pass`). An if whose
// then-branch ends in a copy and that has no else is followed by what was its else (read after
// it, the then-branch not falling through): stripped, that code goes back into its else.
int branch_end_copies(Body& body, const std::string& text, size_t n, bool strip) {
  auto ends_with = [&](const Body& b) {
    return b.size() >= n && print_body(Body(b.end() - static_cast<long>(n), b.end())) == text;
  };
  int count = 0;
  size_t rest = body.size();
  if (ends_with(body)) {
    ++count;
    rest -= n;
    if (strip) body.resize(rest);
  }
  if (rest == 0) return count;
  if (body[rest - 1]->kind == StmtKind::If) {
    Stmt& last = *body[rest - 1];
    for (Body& branch : last.bodies) {
      count += branch_end_copies(branch, text, n, strip);
      if (strip && branch.empty() && &branch == &last.bodies[0])
        branch.push_back(make_stmt(StmtKind::Pass));
    }
    return count;
  }
  // A try/except ending it (3.10): its body's jump past the clauses (or its else's end) and each
  // clause's fall through go on to the end of the enclosing clause, each holding its own copy
  // (compile.c's extend_block inlines the jump there, POP_BLOCK and POP_EXCEPT first). Where a
  // path falls off to a join instead, the caller finds its jump there (emit_setup_except).
  if (body[rest - 1]->kind == StmtKind::Try && body[rest - 1]->bodies.size() == 3 &&
      body[rest - 1]->bodies[2].empty() && !body[rest - 1]->handlers.empty()) {
    Stmt& last = *body[rest - 1];
    Body& normal = last.bodies[1].empty() ? last.bodies[0] : last.bodies[1];
    count += branch_end_copies(normal, text, n, strip);
    if (strip && last.bodies[0].empty()) last.bodies[0].push_back(make_stmt(StmtKind::Pass));
    for (ExceptHandler& clause : last.handlers) {
      count += branch_end_copies(clause.body, text, n, strip);
      if (strip && clause.body.empty()) clause.body.push_back(make_stmt(StmtKind::Pass));
    }
    return count;
  }
  bool found = false;
  for (size_t j = rest - 1; j-- > 0;) {
    Stmt& s = *body[j];
    if (s.kind != StmtKind::If || s.bodies.size() < 2 || !s.bodies[1].empty() ||
        !ends_with(s.bodies[0]))
      continue;
    count += branch_end_copies(s.bodies[0], text, n, strip);
    if (strip && s.bodies[0].empty()) s.bodies[0].push_back(make_stmt(StmtKind::Pass));
    Body orelse(body.begin() + static_cast<long>(j) + 1, body.begin() + static_cast<long>(rest));
    // (An earlier such if holds this one in its else, an elif chain whose branches each end in
    // a copy: the copies in what follows it are counted once, with the last if found.)
    if (!found) count += branch_end_copies(orelse, text, n, strip);
    found = true;
    if (strip) {
      s.bodies[1] = std::move(orelse);
      body.erase(body.begin() + static_cast<long>(j) + 1, body.begin() + static_cast<long>(rest));
    }
    rest = j + 1;
  }
  return count;
}

// 3.10: a short tail (ending in return or raise) copied into each way out of the clauses, the
// copies counted in the operations (`copies`, per clause: a POP_EXCEPT followed by the tail's
// operations, where a clause's own return of a computed value loads it before POP_EXCEPT). When
// each clause ends with exactly that many copies (at its end, or ending the branches of an if
// that ends it), they go and the caller puts `tail` after the statement; a clause without one
// must end in a raise or another return. False (nothing changed) otherwise.
bool CodeDecoder::strip_counted_copies(Stmt& stmt, const Body& tail,
                                       const std::vector<int>& copies) const {
  if (tail.empty() || copies.size() != stmt.handlers.size() ||
      (tail.back()->kind != StmtKind::Return && tail.back()->kind != StmtKind::Raise)) {
    return false;
  }
  std::string text = print_body(tail);
  std::string last = print_body({tail.back()});
  size_t n = tail.size();
  bool any = false;
  for (size_t c = 0; c < copies.size(); ++c) {
    Body& b = stmt.handlers[c].body;
    if (branch_end_copies(b, text, n, false) != copies[c]) return false;
    any |= copies[c] > 0;
    StmtKind kind = b.empty() ? StmtKind::Pass : b.back()->kind;
    if (copies[c] == 0 && kind != StmtKind::Raise &&
        (kind != StmtKind::Return || print_body({b.back()}) == last))
      return false;
  }
  if (!any) return false;
  for (ExceptHandler& clause : stmt.handlers) {
    branch_end_copies(clause.body, text, n, true);
    if (clause.body.empty()) clause.body.push_back(make_stmt(StmtKind::Pass));
  }
  return true;
}

// The body ends with the finally body's normal-path copy, an if, into whose branches the compiler
// copied the return that follows the statement (`if t: a; return v` then `return v`, or
// `if t: a else: return v`): that copy goes, and the return comes after the statement (the
// result; null when the body does not end so).
StmtPtr CodeDecoder::strip_normal_copy_with_returns(Body& body, const std::string& copy_text,
                                                    size_t copy_size) const {
  if (body.empty()) return nullptr;
  StmtPtr final_return;
  size_t end = body.size();
  if (body.back()->kind == StmtKind::Return) {
    final_return = body.back();
    --end;
  }
  if (end < copy_size || copy_size == 0) return nullptr;
  size_t begin = end - copy_size;
  Body tail = clone_body(
      Body(body.begin() + static_cast<long>(begin), body.begin() + static_cast<long>(end)));
  const StmtPtr& last_if = tail.back();
  if (last_if->kind != StmtKind::If || last_if->bodies.size() < 2) return nullptr;
  if (!final_return) {
    const Body& orelse = last_if->bodies[1];
    if (orelse.size() != 1 || orelse[0]->kind != StmtKind::Return) return nullptr;
    final_return = orelse[0];
  }
  if (strip_branch_returns(tail, print_body({final_return})) == 0 ||
      print_body(tail) != copy_text) {
    return nullptr;
  }
  body.erase(body.begin() + static_cast<long>(begin), body.end());
  return final_return;
}

// 3.12+: the one place in [from, to) that the except clauses of `handler` jump to after their
// POP_EXCEPT (and the unbinding of an `as` name): where they go on when they fall off their end,
// the code after the statement. -1 where none does or they go to different places there.
int CodeDecoder::clause_exit_before(int handler, int from, int to) const {
  const auto& ops = lifted_.ops;
  int cleanup = flow_.handler_covering(handler);
  int found = -1;
  for (int k = handler; k < cleanup && k + 1 < static_cast<int>(ops.size()); ++k) {
    if (ops[static_cast<size_t>(k)].op != Op::PopExcept) continue;
    int jump = k + 1;
    if (jump + 3 < cleanup && unbinds_clause_name(ops, jump)) jump += 3;
    const Operation& op = ops[static_cast<size_t>(jump)];
    if (op.op != Op::Jump || op.target < from || op.target >= to) continue;
    if (found >= 0 && found != op.target) return -1;
    found = op.target;
  }
  return found;
}

// Where the body of the try statement at `i` (its handler's table region ending at `body_end`)
// ends, taking in the jumps that cannot raise and that the table leaves out.
int CodeDecoder::try_body_end(int i, int end, int handler, int body_end) const {
  const auto& ops = lifted_.ops;
  // A jump cannot raise: a loop ending the body closes with a jump back the table leaves out.
  while (body_end < handler && ops[static_cast<size_t>(body_end)].op == Op::Jump &&
         ops[static_cast<size_t>(body_end)].target >= i &&
         ops[static_cast<size_t>(body_end)].target < body_end) {
    ++body_end;
  }
  body_end = inlined_body_exit_end(i, end, handler, body_end);
  // Nor a `continue` or `break` out of the body: it leaves the try block first (POP_BLOCK, then
  // its jump; compile.c's compiler_unwind_fblock), so the table leaves it out. A test of the body
  // jumping past such jumps, to the body's own end, takes them in (3.11+). So does a jump of
  // the body's own (covered: an if/else's then-branch) past a return of its else branch:
  // compiler_return unwinds the try before its RETURN_VALUE (a constant's value too).
  for (int k = i; profile_.exception_table && k < body_end; ++k) {
    const Operation& test = ops[static_cast<size_t>(k)];
    int t = test.target;
    bool own_jump = test.op == Op::Jump && flow_.handler_covering(k) == handler;
    if ((test.op != Op::JumpIf && !own_jump) || t <= body_end || t >= handler || t > end) continue;
    bool leaves = true;
    for (int q = body_end; q < t && leaves; ++q) {
      const Operation& o = ops[static_cast<size_t>(q)];
      bool returns = own_jump && (o.op == Op::ReturnConst || o.op == Op::ReturnValue);
      leaves = (returns || (o.op == Op::Jump && (o.target < i || o.target > t))) &&
               flow_.handler_covering(q) != handler;
    }
    if (leaves) body_end = t;
  }
  return body_end;
}

// 3.13: flowgraph.c's inline_small_or_no_lineno_blocks copies the try body's way out (its
// POP_BLOCK, then the jump to the code after the statement: no line of its own) into the
// then-branch of an if/else ending the body, so that jump lies outside the covered range. Where
// the else returns (compiler_return unwinds the try before its RETURN_VALUE), the code after
// the statement follows the else, and the jump goes there: the body runs up to its target. Not
// a `break` out of the loop around the statement (it also leaves the try first).
int CodeDecoder::inlined_body_exit_end(int i, int end, int handler, int body_end) const {
  const auto& ops = lifted_.ops;
  if (!profile_.inlines_no_lineno_blocks) return body_end;
  int found = body_end;
  for (int k = i + 1; k <= body_end && k < handler; ++k) {
    const Operation& jump = ops[static_cast<size_t>(k)];
    int t = jump.target;
    if (jump.op != Op::Jump || t <= std::max(body_end, k + 1) || t >= handler || t > end ||
        in_try_body(k, handler) || !in_try_body(k - 1, handler) || leaves_loop(t))
      continue;
    if (else_returns_before(k, t, i, handler)) found = std::max(found, t);
  }
  return found;
}

// Whether [k + 1, t) is an else branch ending the try body in a return: the body's own covered
// code, returns the table leaves out, or other copies of the body's way out (jumps to t).
bool CodeDecoder::else_returns_before(int k, int t, int i, int handler) const {
  const auto& ops = lifted_.ops;
  for (int q = k + 1; q < t; ++q) {
    const Operation& o = ops[static_cast<size_t>(q)];
    bool returns = o.op == Op::ReturnConst || o.op == Op::ReturnValue;
    bool covered = in_try_body(q, handler);
    if (!covered && !returns && !(o.op == Op::Jump && o.target == t)) return false;
    if (covered && is_jump(o.op) && (o.target < i || o.target >= t)) return false;
  }
  Op last = ops[static_cast<size_t>(t) - 1].op;
  return last == Op::ReturnConst || last == Op::ReturnValue;
}

// Whether `handler` starts except clauses: they start with POP_TOP or a type test; finally does
// not.
bool CodeDecoder::handler_is_except(int handler) const {
  const auto& ops = lifted_.ops;
  bool is_except = ops[static_cast<size_t>(handler) + 1].op == Op::PopTop;
  for (int k = handler + 1; !is_except && k < static_cast<int>(ops.size()); ++k) {
    Op op = ops[static_cast<size_t>(k)].op;
    if (op == Op::CheckExcMatch) is_except = true;
    if (op == Op::CheckExcMatch || op == Op::JumpIf || op == Op::PopTop || op == Op::StoreName ||
        op == Op::ReturnValue || op == Op::Jump || op == Op::Reraise) {
      break;
    }
  }
  return is_except;
}

// (Covered by `handler`, or by one of a statement nested in the body, whose own handler block
// this one covers; not by one around the statement, a generator's.)
bool CodeDecoder::in_try_body(int k, int handler) const {
  int covering = flow_.handler_covering(k);
  for (int hops = 0; covering >= 0 && hops < 16; ++hops) {
    if (covering == handler) return true;
    covering = flow_.handler_covering(covering);
  }
  return false;
}

// Whether the `length` operations after `last`, the body's last normally reachable covered
// operation, are a copy of the code after the statement (cold_body_end).
bool CodeDecoder::cold_tail_copied(int last, int length, int handler, bool is_except) const {
  const auto& ops = lifted_.ops;
  bool copied = false;
  int cleanup = flow_.handler_covering(handler);
  for (int k = handler; length > 0 && k + length <= cleanup && !copied; ++k)
    copied = same_operations(ops, k, last + 1, length);
  // (Or a clause of a statement nested in the body repeats it after its POP_EXCEPT, which the
  // handler covers: the code after both statements; a return of the body's own starts its
  // line.)
  const Operation& tail = ops[static_cast<size_t>(last) + 1];
  bool tail_starts = may_start_statement(tail.op) || tail.op == Op::ReturnConst;
  for (int k = last + 2;
       length > 0 && k + length <= handler && !copied && tail_starts && tail.line < 0; ++k) {
    copied = !flow_.reachable[static_cast<size_t>(k)] && in_try_body(k - 1, handler) &&
             ops[static_cast<size_t>(k) - 1].op == Op::PopExcept &&
             !flow_.reachable[static_cast<size_t>(k) - 1] &&
             same_operations(ops, k, last + 1, length);
  }
  // (A finally body's normal-path copy, then the return after the statement: the handler
  // holds the same operations, then its RERAISE.)
  if (!is_except && length > 1 && handler + length < cleanup &&
      same_operations(ops, last + 1, handler + 1, length - 1))
    copied = true;
  // (A raise cannot leave the try: one outside the handler's cover is an else clause's.)
  if (length > 0 && ops[static_cast<size_t>(last + length)].op == Op::RaiseVarargs &&
      !in_try_body(last + length, handler))
    copied = true;
  // (Nor can a return computing its value: the body computes it under the handler, and only
  // the return itself, or a constant's, is left out.)
  if (length > 1 && !in_try_body(last + 1, handler)) copied = true;
  return copied;
}

// 3.12+: the handler also covers the cold code of statements nested in the body (their
// handlers, placed after the function's code): the body ends with its last normally reachable
// covered operation, and what follows is the code after the statement (for a finally, its
// normal-path copy first). But a short return or raise there that no clause repeats is the
// body's own (`with ...: return True`).
int CodeDecoder::cold_body_end(int i, int end, int handler, int body_end, bool is_except) {
  const auto& ops = lifted_.ops;
  int last = -1;
  for (int k = i; k < body_end; ++k) {
    if (flow_.reachable[static_cast<size_t>(k)] && in_try_body(k, handler)) last = k;
  }
  // (A `while` loop ending the body ends in its bottom test, compiler_while's second
  // compiler_jump_if, backward: flowgraph.c's normalize_jumps turns it into a forward test
  // over a JUMP_BACKWARD in a block of its own, added after label_exception_targets, so that
  // no handler covers the jump. It is the body's own: the test jumps just past it, it goes back
  // into the body.)
  if (last > i && last + 1 < body_end && flow_.reachable[static_cast<size_t>(last) + 1] &&
      flow_.handler_covering(last + 1) < 0 && ops[static_cast<size_t>(last)].op == Op::JumpIf &&
      ops[static_cast<size_t>(last)].target == last + 2) {
    const Operation& back = ops[static_cast<size_t>(last) + 1];
    if (back.op == Op::Jump && back.target >= i && back.target <= last) ++last;
  }
  // (An if ending the body whose test jumps where the jump after the body's last covered
  // operation goes, right past it: that jump is the body's way out over a NOP lift dropped.
  // 3.13 keeps one on the test's line where `if t: with ...:` ends the body; the with's exit
  // jump, which no handler covers, goes past it.)
  if (last > i && last + 2 < body_end && ops[static_cast<size_t>(last) + 1].op == Op::Jump &&
      ops[static_cast<size_t>(last) + 1].target == last + 2 && !in_try_body(last + 1, handler)) {
    for (int k = i; k < last; ++k) {
      const Operation& test = ops[static_cast<size_t>(k)];
      if (test.op == Op::JumpIf && test.target == last + 2 && in_try_body(k, handler)) {
        ++last;
        break;
      }
    }
  }
  int length = last >= i ? copied_tail_length(last + 1) : 0;
  bool copied = length > 0 && cold_tail_copied(last, length, handler, is_except);
  if (last >= i && (length == 0 || copied)) {
    body_end = last + 1;
    used_table_reading_ = true;
  } else if (last >= i && length > 0 && body_end > end && last + 1 + length <= end &&
             !is_exit_call(ops, last + 1)) {
    // (The body's own tail, in the region the statement is in: what follows it up to the
    // table's end is cold code of statements nested in the body, past that region. Not the
    // exit of a with around the statement, the code after it.)
    body_end = last + 1 + length;
  } else if (last >= i && is_except) {
    // (Else the code after the statement is where the clauses that fall off their end jump
    // back to, past the body's own tail, in this region: cold code of statements nested in
    // the body follows it.)
    int after = clause_exit_before(handler, last + 1, std::min(body_end, end + 1));
    if (after >= 0) {
      body_end = after;
      used_table_reading_ = true;
    }
  }
  return body_end;
}

int CodeDecoder::decode_try(int i, int end, int exit) {
  const auto& ops = lifted_.ops;
  bool mid_expression = mid_expression_try_;
  mid_expression_try_ = false;
  const HandlerRegion* region = flow_.outermost_region_at(i, opened_try_);
  int handler = region->target;
  int body_end = region->end;
  if (handler <= i || body_end > handler) throw DecodeFailure("try handler before its body");
  body_end = try_body_end(i, end, handler, body_end);
  OpenTry open(opened_try_, handler);
  // Classify the handler: except clauses start with POP_TOP or a type test; finally does not.
  bool is_except = handler_is_except(handler);
  mid_expression_try_ = mid_expression && !is_except;
  if (is_except_star_prologue(ops, handler, profile_)) {
    return decode_try_star(i, body_end, handler, end, exit);
  }
  if (profile_.cold_blocks_at_end && table_readings_ &&
      !flow_.reachable[static_cast<size_t>(body_end) - 1])
    body_end = cold_body_end(i, end, handler, body_end, is_except);
  return is_except ? decode_try_except(i, body_end, handler, end, exit)
                   : decode_try_finally(i, body_end, handler, end, exit);
}

// The start of the exit (POP_EXCEPT, the unbinding of `bound`, the jump to the join) ending the
// clause body [begin, end) where an earlier operation of the body jumps to it; else -1.
int CodeDecoder::shared_clause_exit(int begin, int end, const std::string& bound) const {
  const auto& ops = lifted_.ops;
  int start = end - 2;
  if (start >= begin && !bound.empty()) start -= 3;
  if (start < begin || clause_exit_jump(ops, start, &bound) != end - 1) return -1;
  for (int k = begin; k < start; ++k) {
    const Operation& op = ops[static_cast<size_t>(k)];
    if ((op.op == Op::Jump || op.op == Op::JumpIf) && op.target == start) return start;
  }
  return -1;
}

// 3.12+ places the code after a try statement that only its clauses reach after the handler
// code (cold blocks). Where it starts at `from` and returns, jumping back to `join` on its other
// ways, its end (past the return); -1 where it is not so: cold code of its own, the handler
// code of `cleanup`'s statement, jumps elsewhere.
int CodeDecoder::cold_code_return_end(int from, int join, int cleanup) const {
  const auto& ops = lifted_.ops;
  int reach = from;  // the farthest forward jump target so far
  for (int k = from; k < static_cast<int>(ops.size()); ++k) {
    const Operation& o = ops[static_cast<size_t>(k)];
    bool returns = o.op == Op::ReturnValue || o.op == Op::ReturnConst;
    if (returns && reach <= k + 1) return k + 1;
    bool back_to_join = o.op == Op::Jump && o.target < from && resolve(o.target) == join;
    // (Or falls into the join: push_cold_blocks_to_end added the jump back to the block that
    // followed it, where nothing in it jumps past that jump.)
    if (back_to_join && reach <= k) return k + 1;
    if (flow_.reachable[static_cast<size_t>(k)] || o.op == Op::PushExcInfo || returns ||
        o.op == Op::Reraise || (is_jump(o.op) && o.target < k && !back_to_join) ||
        flow_.handler_covering(k) != flow_.handler_covering(cleanup))
      return -1;
    if (is_jump(o.op) && o.target > k) reach = std::max(reach, o.target);
  }
  return -1;
}

// Whether `target` is the innermost loop's exit or head.
bool CodeDecoder::leaves_loop(int target) const {
  return !loops_.empty() && (same_target(target, loops_.back().break_target) ||
                             same_target(target, loops_.back().continue_target));
}

// Whether the body's normal path jumps over the handler code, or back to the loop's head just
// before it.
void CodeDecoder::read_except_jumps(int i, int end, int exit, TryExceptShape& s) const {
  const auto& ops = lifted_.ops;
  const Operation& before_handler = ops[static_cast<size_t>(s.handler) - 1];
  // (3.11: a jump forward out of the loop is the else's `break` where nothing falls through the
  // statement, not its jump over the handlers. 3.12+ too, where the statement lies in handler
  // code, whose own handlers stay inline.)
  s.jumps_over = before_handler.op == Op::Jump && before_handler.target > s.handler &&
                 !(profile_.exception_table && !loops_.empty() &&
                   same_target(before_handler.target, loops_.back().break_target) &&
                   !same_target(before_handler.target, loops_.back().continue_target));
  // (A jump back placed before the handler but after the region belongs to an enclosing loop
  // whose head is this loop's too: 3.12+ places handlers after the whole function's code.)
  s.jumps_back = before_handler.op == Op::Jump && before_handler.target < i && !loops_.empty() &&
                 s.handler <= end &&
                 resolve(before_handler.target) == resolve(loops_.back().continue_target);
  // (3.12+ keeps the handlers of a statement in handler code inline, after the body's jump back:
  // that jump is the statement's end only where the region goes on with the loop's next
  // iteration, not where it is a branch that other code follows.)
  if (s.jumps_back && profile_.cold_blocks_at_end &&
      resolve(exit) != resolve(loops_.back().continue_target)) {
    s.jumps_back = false;
  }
  // (Nor where the loop's bottom test is cold code: the jump back is the body's `continue`.)
  if (s.jumps_back && jumps_past_cold_test(before_handler.target)) s.jumps_back = false;
  // (3.11: not where a clause goes on elsewhere, to code after the statement that does not
  // jump back at once: that jump is the body's written `continue`. 3.12+ too where the jump
  // back leaves an except clause around the statement, POP_EXCEPT before it: the clauses'
  // way on is then that clause's own exit, unless they go on to other code of the clause.)
  bool leaves_clause =
      s.handler >= 2 && ops[static_cast<size_t>(s.handler) - 2].op == Op::PopExcept;
  // (3.12+ alike where the statement is cold code, only except clauses reaching it: its handler
  // code stays inline, after the jump back, and the code after the statement may follow a
  // clause's POP_EXCEPT there, the clause falling into it: that jump is then a `continue`.)
  bool cold = profile_.cold_blocks_at_end && !flow_.reachable[static_cast<size_t>(i)];
  if (!s.jumps_back || !(profile_.inline_handlers || leaves_clause || cold)) return;
  for (int p = s.handler; cold && !leaves_clause && p < s.cleanup; ++p) {
    int q = after_pop_except(p, s.cleanup);
    if (q >= 0 && q < s.cleanup && may_start_statement(ops[static_cast<size_t>(q)].op))
      s.jumps_back = false;
  }
  for (int k = s.handler; s.jumps_back && k < s.cleanup; ++k) {
    const Operation& op = ops[static_cast<size_t>(k)];
    if (op.op != Op::Jump || op.target <= s.cleanup ||
        resolve(op.target) == resolve(loops_.back().continue_target) ||
        same_target(op.target, loops_.back().break_target)) {
      continue;
    }
    const auto t = static_cast<size_t>(op.target);
    bool same_way_out = leaves_clause && t + 1 < ops.size() && ops[t].op == Op::PopExcept &&
                        ops[t + 1].op == Op::Jump &&
                        resolve(ops[t + 1].target) == resolve(loops_.back().continue_target);
    s.jumps_back = same_way_out;
  }
}

// 3.12+: the body falls into a short exit block (a return) without a line after the statement;
// each clause's jump there got a copy of it from duplicate_exits_without_lineno (flowgraph.c),
// placed right after it (the last jump's first), on the jump's line: the clauses join the body
// at the exit, the copies consumed with the statement.
void CodeDecoder::read_except_join_copies(const std::vector<int>& targets,
                                          TryExceptShape& s) const {
  if (targets.empty()) return;
  int first = *std::min_element(targets.begin(), targets.end());
  int last = *std::max_element(targets.begin(), targets.end());
  int n = first > s.body_end ? jump_line_exit_copy(s.body_end, first) : 0;
  if (n <= 0 || (last - s.body_end) % n != 0) return;
  for (int c = first + n; c <= last; c += n) {
    if (jump_line_exit_copy(c - n, c) != n) return;
  }
  for (int t : targets) {
    if ((t - s.body_end) % n != 0) return;
  }
  s.join_copy = {first, last + n};
  s.back_join = s.body_end;
}

// Where the else and the statement end, read off the jumps of the clauses and of the body.
void CodeDecoder::read_except_join(int i, int end, TryExceptShape& s) const {
  const auto& ops = lifted_.ops;
  int handler = s.handler;
  int cleanup = s.cleanup;
  s.else_end = s.jumps_over || s.jumps_back ? handler - 1 : handler;
  s.try_end = s.jumps_over ? ops[static_cast<size_t>(handler) - 1].target : -1;
  std::vector<int> back_targets;
  for (int k = handler; k < cleanup; ++k) {
    const Operation& op = ops[static_cast<size_t>(k)];
    if (op.op != Op::Jump || leaves_loop(op.target)) continue;
    if (op.target > cleanup && op.target > s.try_end) s.try_end = op.target;
    if (op.op == Op::Jump && op.target > i && op.target < handler && op.target >= s.body_end) {
      s.back_join = op.target;
      back_targets.push_back(op.target);
    }
  }
  read_except_join_copies(back_targets, s);
  s.handlers_leave = s.try_end >= 0;
  if (s.back_join >= 0 && !s.jumps_over) {
    s.else_end = s.back_join;
    s.try_end = s.back_join;
    // The join lies past the region (an if branch ending with this statement): the jump that
    // closes the region goes there, and is the body's way out too; or the body does not fall
    // through: the region ends with its return (one a handler need not cover).
    Op last = end > i ? ops[static_cast<size_t>(end) - 1].op : Op::Unknown;
    bool body_leaves =
        (last == Op::ReturnValue || last == Op::ReturnConst) && end <= s.body_end + 1;
    if (s.back_join > end && end >= s.body_end &&
        ((static_cast<size_t>(end) < ops.size() && ops[static_cast<size_t>(end)].op == Op::Jump &&
          same_target(ops[static_cast<size_t>(end)].target, s.back_join)) ||
         body_leaves)) {
      s.else_end = end;
    }
  } else if (s.try_end < 0 && handler >= end) {
    s.else_end = end;  // the handlers never rejoin: what follows the body is its else
    s.try_end = end;
  } else if (int exit_jump = clause_exit_jump(ops, s.body_end);
             s.try_end < 0 && !s.jumps_over && exit_jump >= 0 && exit_jump < s.else_end &&
             !leaves_loop(ops[static_cast<size_t>(exit_jump)].target)) {
    // The statement ends an except clause of an enclosing try, and its handlers never rejoin:
    // what follows the body is that clause's exit (POP_EXCEPT, the unbinding of its name, then
    // its jump to the join).
    s.else_end = s.body_end;
    s.try_end = s.body_end;
  }
}

namespace {

// A cleanup handler that is no statement's (pop_inlined_comprehension_state's, compile.c):
// it restores what it saved and re-raises, never falling through nor jumping.
bool only_reraises(const std::vector<Operation>& ops, int target) {
  if (ops[static_cast<size_t>(target)].op == Op::PushExcInfo) return false;
  for (size_t k = static_cast<size_t>(target); k < ops.size(); ++k) {
    Op op = ops[k].op;
    if (op == Op::Reraise) return true;
    if (op != Op::Swap && op != Op::PopTop && op != Op::StoreName) return false;
  }
  return false;
}

}  // namespace

namespace {

// co_names numbering of the names operations meet, leaving out those met before `end`
// (compiler_add_o numbers a name where it is first met).
struct NamesMetPast {
  const std::vector<Operation>& ops;
  std::map<std::string, int> index;  // name -> its co_names number
  std::set<std::string> before;      // names met in [0, end)

  NamesMetPast(const std::vector<std::string>& names, const std::vector<Operation>& operations,
               int end)
      : ops(operations) {
    for (size_t k = 0; k < names.size(); ++k) index.emplace(names[k], static_cast<int>(k));
    for (int k = 0; k < end; ++k) {
      if (uses_co_names(ops[static_cast<size_t>(k)]))
        before.insert(ops[static_cast<size_t>(k)].text);
    }
  }
  // The numbers of the names first met in [begin, end).
  std::set<int> met(int begin, int end) const {
    std::set<int> found;
    for (int k = begin; k < end; ++k) {
      const Operation& op = ops[static_cast<size_t>(k)];
      auto at = index.find(op.text);
      if (uses_co_names(op) && !before.count(op.text) && at != index.end())
        found.insert(at->second);
    }
    return found;
  }
};

}  // namespace

// Module code (no name-order block): whether the names the code after the body [body_end,
// else_end) meets first were met after the handler's, in co_names order. compiler_try_except
// compiles the body, the else, then the handlers (the code after the statement last), and
// compiler_add_o numbers names as met: names first met there (not before the body's end) all
// numbered past those first met in the handler code are the code after the statement.
bool CodeDecoder::names_met_after_handler(const TryExceptShape& s) const {
  if (s.else_end <= s.body_end || s.cleanup <= s.handler) return false;
  NamesMetPast names(code_.names, lifted_.ops, s.body_end);
  std::set<int> after = names.met(s.body_end, s.else_end);
  std::set<int> handler = names.met(s.handler, s.cleanup);
  for (auto k = after.begin(); k != after.end();) {
    bool both = handler.erase(*k) > 0;
    k = both ? after.erase(k) : std::next(k);
  }
  return !after.empty() && !handler.empty() && *after.begin() > *handler.rbegin();
}

// Module code with an else and code after the statement, both first meeting names: the else's
// are numbered before the handlers', the code after's past them (compiler_try_except's order):
// the statement start where that numbering turns is the else's end, or -1. (Only where no jump
// crosses it: the else's statements end there.)
int CodeDecoder::else_end_by_names(const TryExceptShape& s) const {
  const auto& ops = lifted_.ops;
  if (s.else_end <= s.body_end || s.cleanup <= s.handler) return -1;
  NamesMetPast names(code_.names, ops, s.body_end);
  const std::map<std::string, int>& index = names.index;
  std::set<std::string> seen = names.before;
  std::set<int> handler = names.met(s.handler, s.cleanup);
  if (handler.empty()) return -1;
  int turn = -1;  // the first operation meeting a name numbered past the handlers'
  bool any_before = false;
  for (int k = s.body_end; k < s.else_end; ++k) {
    const Operation& op = ops[static_cast<size_t>(k)];
    auto at = index.find(op.text);
    if (!uses_co_names(op) || at == index.end() || !seen.insert(op.text).second ||
        handler.count(at->second))
      continue;
    bool after = at->second > *handler.rbegin();
    if (!after && at->second > *handler.begin()) return -1;
    if (after && turn < 0) turn = k;
    if (!after && turn >= 0) return -1;
    any_before |= !after;
  }
  if (turn < 0 || !any_before) return -1;
  int split = turn;  // back to the start of its statement's line
  while (split > s.body_end && line_at(ops, split - 1) == line_at(ops, turn)) --split;
  if (split <= s.body_end || !may_start_statement(ops[static_cast<size_t>(split)].op)) return -1;
  Op before = ops[static_cast<size_t>(split) - 1].op;  // (a statement ends there, leaving nothing)
  if (before != Op::StoreName && before != Op::StoreAttr && before != Op::PopTop &&
      before != Op::RaiseVarargs && before != Op::DeleteName && before != Op::Nop)
    return -1;
  for (int k = s.body_end; k < s.else_end; ++k) {
    const Operation& op = ops[static_cast<size_t>(k)];
    if (is_jump(op.op) && ((k < split && op.target > split) || (k >= split && op.target < split)))
      return -1;
  }
  return split;
}

// Where the handlers never rejoin, what follows the body is its else or, the same code, the
// code after the statement (decoded as the else, then moved out). 3.12+ places handler blocks
// last, in the order they were compiled: a handler of that code placed before this one's was
// compiled first, in the else. (Not for a statement in handler code, `cold`: the blocks that
// push_cold_blocks_to_end (flowgraph.c) moves keep the order they were compiled in, a try
// nested there keeps its handlers inline, after the else and before the code after it.) That
// code may end in the loop's jump back (jumps_back: a try past the loop's head, tomllib's loads).
void CodeDecoder::read_except_sequential(int i, int end, TryExceptShape& s) const {
  const auto& ops = lifted_.ops;
  bool names_after = role_ != CodeRole::Module || names_met_after_handler(s);
  int split = !names_after && profile_.cold_blocks_at_end ? else_end_by_names(s) : -1;
  if (profile_.cold_blocks_at_end && (names_after || split >= 0) && !s.jumps_over && !s.cold &&
      s.back_join < 0 && (s.try_end < 0 || s.handler >= end) && s.else_end > s.body_end) {
    s.sequential = true;
    for (int k = s.handler; k < s.cleanup; ++k) {  // (not even to a loop's head or exit)
      const Operation& op = ops[static_cast<size_t>(k)];
      s.sequential &= op.op != Op::Jump || (op.target >= s.handler && op.target < s.cleanup);
    }
    // (A body ending in a jump to the operation after it, past a NOP lift dropped
    // (cold_body_end), has no else: compiler_try_except places an else right after the body.)
    const Operation& last = ops[static_cast<size_t>(s.body_end) - 1];
    bool jumps_out = s.body_end > i && last.op == Op::Jump && last.target == s.body_end;
    // (Nor with a try nested in the body: its handler may fall through into the else. A
    // cleanup handler that is no try statement's, an inlined comprehension's, only re-raises.
    // One covering past the body encloses the statement, `try: try:` starting where it does,
    // where every clause raises: a clause falling through goes on to the enclosing finally's
    // copies, no rejoining that reads off the handler's jumps.)
    bool clauses_raise = std::none_of(ops.begin() + s.handler, ops.begin() + s.cleanup,
                                      [](const Operation& op) { return op.op == Op::PopExcept; });
    for (const HandlerRegion& region : flow_.regions) {
      s.sequential &=
          !(region.start >= s.body_end && region.start < s.else_end && region.target < s.handler &&
            flow_.reachable[static_cast<size_t>(region.start)]);
      s.sequential &= region.target == s.handler || region.start < i ||
                      (clauses_raise && region.end > s.body_end) || region.start >= s.body_end ||
                      jumps_out || only_reraises(ops, region.target);
    }
  }
  if (split >= 0 && s.sequential) {  // (the else ends there, the code after follows it)
    s.else_end = s.try_end = split;
    s.sequential = false;
  }
}

// Where a clause leaves through its POP_EXCEPT (at the handler's level), the operation after
// it (past a named clause's `name = None; del name`) is the code after the statement.
// (A named clause's body is covered by the unbinding of its name, `name = None; del name;
// raise`, itself covered by the cleanup block.)
bool CodeDecoder::in_except_clause_body(int k, int cleanup) const {
  const auto& ops = lifted_.ops;
  int covering = flow_.handler_covering(k);
  if (covering == cleanup) return true;
  return covering >= 0 && covering + 3 < cleanup &&
         ops[static_cast<size_t>(covering)].op == Op::LoadConst &&
         ops[static_cast<size_t>(covering) + 1].op == Op::StoreName &&
         ops[static_cast<size_t>(covering) + 2].op == Op::DeleteName &&
         ops[static_cast<size_t>(covering) + 3].op == Op::Reraise &&
         flow_.handler_covering(covering) == cleanup;
}

// That code lies where the statement does, under the handler of what is around it (as the
// cleanup block does): a return unwinding a with or finally around the statement on its way
// out runs their exit code outside it. Or, given the `original` of a copy there, under the
// original's handler: a copy keeps the handler of its original's place (flowgraph.c's
// label_exception_targets runs before inline_small_exit_blocks), a statement ending a try's
// body copying the code after that try, outside its cover.
int CodeDecoder::after_pop_except(int p, int cleanup, int original) const {
  const auto& ops = lifted_.ops;
  if (ops[static_cast<size_t>(p)].op != Op::PopExcept || flow_.handler_covering(p) == cleanup ||
      !in_except_clause_body(p - 1, cleanup)) {
    return -1;
  }
  int q = p + 1;
  if (q + 3 < cleanup && unbinds_clause_name(ops, q)) q += 3;
  int covering = flow_.handler_covering(q);
  bool placed = covering == flow_.handler_covering(cleanup) ||
                (original >= 0 && covering == flow_.handler_covering(original));
  return placed ? q : -1;
}

// (The copy ends its clause: at the next clause's type test, the no-match RERAISE, a named
// clause's unbinding for the raising path, or the cleanup block.)
bool CodeDecoder::ends_except_clause(int k, int handler, int cleanup) const {
  const auto& ops = lifted_.ops;
  if (k == cleanup) return true;
  for (int t = handler; t + 2 < cleanup; ++t) {
    const Operation& test = ops[static_cast<size_t>(t) + 1];
    if (ops[static_cast<size_t>(t)].op != Op::CheckExcMatch || test.op != Op::JumpIf ||
        flow_.handler_covering(t) != cleanup) {
      continue;
    }
    if (k == test.target) return true;
    if (k == test.target - 4 && ops[static_cast<size_t>(t) + 2].op == Op::StoreName &&
        ops[static_cast<size_t>(k)].op == Op::LoadConst) {
      return true;
    }
  }
  return false;
}

// 3.12+ copies the code after the statement, when short and ending in a return or raise, to
// each clause in place of its jump there (inline_small_exit_blocks); the body's normal path
// falls into the original, at the end of the region: that is the join, what lies between the
// body and it the else. The copy keeps the original's line numbers (a clause's own `return
// None` has its own).
void CodeDecoder::read_except_tail_copy(int end, int exit, TryExceptShape& s) const {
  const auto& ops = lifted_.ops;
  if (!profile_.exit_copies_keep_lines || s.jumps_over || s.jumps_back || s.back_join >= 0 ||
      s.handlers_leave)
    return;
  // (3.12+ places cold code before the handlers: an inlined comprehension's cleanup handler
  // ends the region after the original.)
  int live_end = s.else_end;
  while (profile_.cold_blocks_at_end && live_end > s.body_end &&
         !flow_.reachable[static_cast<size_t>(live_end) - 1])
    --live_end;
  for (int p = s.handler + 2; p < s.cleanup && s.tail_copy < 0; ++p) {
    int q = after_pop_except(p, s.cleanup);
    int length = q < 0 ? 0 : copied_tail_length(q);
    int at = live_end - length;
    if (length > 0 && at >= s.body_end && ends_except_clause(q + length, s.handler, s.cleanup) &&
        is_line_copy(ops, q, at, length)) {
      s.tail_copy = at;
      s.tail_copy_length = length;
    }
    // (Or the original follows the region, where the statement's region goes on: the
    // statement ends an if's then-branch, whose test jumps there, or a try's body.)
    int q_end = q >= 0 ? q : after_pop_except(p, s.cleanup, end);
    int length_end = q_end < 0 ? 0 : copied_tail_length(q_end);
    if (s.tail_copy < 0 && length_end > 0 && s.else_end == end && same_target(end, exit) &&
        ends_except_clause(q_end + length_end, s.handler, s.cleanup) &&
        is_line_copy(ops, q_end, end, length_end)) {
      s.tail_copy = end;
      s.tail_copy_length = length_end;
    }
    // (Or it straddles the region's end: the statements before its return end the region, the
    // return is the region's exit, the implicit `return None` an enclosing if reads as its join
    // (copy_original), where inline_small_exit_blocks copied the whole block into each path.)
    int straddles = end - length + 1;
    if (s.tail_copy < 0 && length > 1 && s.else_end == end && same_target(end, exit) &&
        straddles >= s.body_end && ends_except_clause(q + length, s.handler, s.cleanup) &&
        is_line_copy(ops, q, straddles, length)) {
      s.tail_copy = straddles;
      s.tail_copy_length = length;
    }
  }
  if (s.tail_copy >= 0) {
    s.else_end = s.try_end = s.tail_copy;
    s.sequential = false;
  }
}

// 3.13 threads an if's jump to the loop's jump back (inverted: a test jumping over a jump back
// that has no line of its own) only where nothing lies between them: in the code after a try
// statement whose clauses end in `continue`, never in a try's else, whose end first jumps to
// the statement's end. Such a test in what follows the body makes the clauses `continue`s and
// that code the statement's successor.
void CodeDecoder::read_clauses_continue(int end, TryExceptShape& s) const {
  const auto& ops = lifted_.ops;
  if (!profile_.inlines_no_lineno_blocks || loops_.empty() || s.tail_copy >= 0 || s.jumps_over ||
      s.jumps_back || s.back_join >= 0 || s.handlers_leave || s.handler < end ||
      s.else_end != end || s.else_end <= s.body_end)
    return;
  int head = resolve(loops_.back().continue_target);
  bool all_continue = true;
  bool any_continue = false;
  bool all_direct = true;  // (a written `continue` jumps to the head itself)
  for (int k = s.handler; k < s.cleanup; ++k) {
    const Operation& op = ops[static_cast<size_t>(k)];
    if (op.op != Op::Jump || (op.target >= s.handler && op.target < s.cleanup)) continue;
    bool back = resolve(op.target) == head;
    all_continue &= back;
    any_continue |= back;
    all_direct &= op.target == head;
  }
  bool threaded = false;
  for (int p = s.body_end; p + 2 < s.else_end && !threaded; ++p) {
    const Operation& test = ops[static_cast<size_t>(p)];
    const Operation& back = ops[static_cast<size_t>(p) + 1];
    threaded = test.op == Op::JumpIf && test.target == p + 2 && back.op == Op::Jump &&
               back.target < p && resolve(back.target) == head && back.line < 0;
  }
  bool nested = false;  // (a try in what follows: its handlers may fall through into it)
  for (const HandlerRegion& region : flow_.regions) {
    nested |= region.target != s.handler && region.start >= s.body_end &&
              region.start < s.else_end && flow_.reachable[static_cast<size_t>(region.start)];
  }
  // (Or the body's jump to that code lost its table row: the code after the statement, where the
  // clauses' written `continue`s jump to the head, not to the loop's jump back.)
  threaded |= all_direct && body_jumps_to_else_covered(s) == 0;
  if (all_continue && any_continue && threaded && !nested) {
    s.clauses_continue = true;
    s.sequential = true;
  }
}

// 3.12+: clauses that all leave with `continue` or `break` never rejoin either. A try or with
// in what follows the body whose handler lies after this one's was compiled after the
// statement, not in its else (push_cold_blocks_to_end keeps the order the blocks were compiled
// in). (A break's jump to the code after the loop: multiprocessing's pool.worker.)
void CodeDecoder::read_clauses_continue_before_code(int i, int end, TryExceptShape& s) const {
  const auto& ops = lifted_.ops;
  if (!profile_.cold_blocks_at_end || role_ == CodeRole::Module || loops_.empty() || s.sequential ||
      s.jumps_over || s.jumps_back || s.back_join >= 0 || s.tail_copy >= 0 || s.handlers_leave ||
      s.else_end <= s.body_end || s.handler < end)
    return;
  int head = resolve(loops_.back().continue_target);
  int after_loop = loops_.back().break_target;
  bool any_leaves = false;
  for (int k = s.handler; k < s.cleanup; ++k) {
    const Operation& op = ops[static_cast<size_t>(k)];
    if (op.op != Op::Jump || (op.target >= s.handler && op.target < s.cleanup)) continue;
    int target = resolve(op.target);
    if (target != head && (after_loop < 0 || target != resolve(after_loop))) return;
    any_leaves = true;
  }
  bool compiled_after = false;
  for (const HandlerRegion& region : flow_.regions) {
    if (region.target != s.handler && region.start >= i && region.start < s.body_end) return;
    if (region.start < s.body_end || region.start >= s.else_end ||
        !flow_.reachable[static_cast<size_t>(region.start)])
      continue;
    if (region.target < s.handler) return;  // compiled first: the else's
    compiled_after |= region.target > s.cleanup;
  }
  if (any_leaves && compiled_after) {
    s.clauses_continue = true;
    s.sequential = true;
  }
}

// 3.13: the try body ends in `POP_BLOCK; JUMP end` (compiler_try_except) where it has no else,
// a block without a line that inline_small_or_no_lineno_blocks (flowgraph.c) copies into each
// unconditional jump to it (a with's way out past a suppressed exception, an if/else's join):
// the copy's jump lies past the POP_BLOCK, where no table row covers it. Such a jump of the
// body to the code after it still covered went to code of the statement, its else; one no
// longer covered, to the code after the statement. (Only where the operation before the jump
// lies in the body, the body's own; -1 where no such jump is.)
int CodeDecoder::body_jumps_to_else_covered(const TryExceptShape& s) const {
  const auto& ops = lifted_.ops;
  if (!profile_.inlines_no_lineno_blocks || s.else_end <= s.body_end) return -1;
  int found = -1;
  for (int k = 1; static_cast<size_t>(k) < ops.size(); ++k) {
    const Operation& op = ops[static_cast<size_t>(k)];
    if (op.op != Op::Jump || op.target != s.body_end || !in_try_body(k - 1, s.handler)) continue;
    int covered = in_try_body(k, s.handler) ? 1 : 0;
    if (found >= 0 && found != covered) return -1;
    found = covered;
  }
  return found;
}

// Conversely, a test there jumping forward to a jump back to the loop's head that nothing falls
// into, and that took the test's line (its only way in), was not threaded: the body's else
// (where the clauses never rejoin).
void CodeDecoder::read_else_not_threaded(TryExceptShape& s) const {
  const auto& ops = lifted_.ops;
  if (!profile_.inlines_no_lineno_blocks || !s.sequential || s.clauses_continue) return;
  if (body_jumps_to_else_covered(s) == 1) s.sequential = false;
  if (loops_.empty()) return;
  int head = resolve(loops_.back().continue_target);
  for (int p = s.body_end; p < s.else_end && s.sequential; ++p) {
    const Operation& test = ops[static_cast<size_t>(p)];
    int t = test.target;
    if (test.op != Op::JumpIf || t <= p + 1 || t >= s.else_end) continue;
    const Operation& back = ops[static_cast<size_t>(t)];
    Op before = ops[static_cast<size_t>(t) - 1].op;
    bool before_leaves =
        (before == Op::Jump && resolve(ops[static_cast<size_t>(t) - 1].target) == head) ||
        before == Op::ReturnValue || before == Op::ReturnConst || before == Op::RaiseVarargs ||
        before == Op::Reraise;
    if (back.op == Op::Jump && back.target < p && resolve(back.target) == head && before_leaves &&
        back.line >= 0 && back.line == line_at(ops, p)) {
      s.sequential = false;
    }
  }
}

// The statement's end where the clauses do not say it; then the code after the statement that
// 3.12+ places after the handler code (cold code).
void CodeDecoder::read_except_outside(int i, int end, int exit, TryExceptShape& s) const {
  const auto& ops = lifted_.ops;
  if (s.try_end < 0) s.try_end = s.cleanup + 3;
  // (A loop region holding the handler may end before its cleanup block.)
  bool cleanup_after = s.try_end > end && s.try_end == s.cleanup + 3 && end <= s.cleanup;
  for (int k = end; cleanup_after && k < s.try_end; ++k)
    cleanup_after = !flow_.reachable[static_cast<size_t>(k)];
  if (cleanup_after && s.handler < end) s.try_end = end;
  // 3.12+: the code after the statement, reached from its clauses only (the body ends in a
  // continue or return), lies after the handler code and jumps back to the loop's head when
  // done: it ends the loop body, after the statement.
  bool ends_loop_body = !loops_.empty() && same_target(exit, loops_.back().continue_target);
  if (profile_.cold_blocks_at_end && s.try_end > end && s.try_end > s.cleanup && ends_loop_body) {
    int head = resolve(loops_.back().continue_target);
    int outside_end = loop_tail_end(s.try_end, s.cleanup, head);
    int consumed = outside_end + 1;  // (its jump back)
    if (outside_end < 0) consumed = outside_end = cold_loop_tail_end(s.try_end, s.cleanup, head);
    if (outside_end >= 0) {
      s.outside = s.try_end;
      s.outside_end = outside_end;
      s.outside_consumed = consumed;
      // (What the body does after the table's cover up to the region's end is its own: its
      // jump back to the loop's head, a `continue`.)
      s.else_end = std::min(s.else_end, end);
      // (Past a copy of the exit consumed with a cold bottom test: decode_while.)
      int next = s.body_end + 1;
      while (next < end && consumed_[static_cast<size_t>(next)]) ++next;
      if (next == end && ops[static_cast<size_t>(s.body_end)].op == Op::Jump &&
          resolve(ops[static_cast<size_t>(s.body_end)].target) == head)
        s.body_end = end;
    }
  }
  // (Or the statement ends an if's branch, whose join `exit` lies before that code: it returns,
  // and goes back to the join on its other ways.)
  if (profile_.cold_blocks_at_end && s.try_end > end && s.try_end > s.cleanup && !ends_loop_body &&
      exit > i && exit < s.try_end) {
    // (Or it holds statements whose own handler code stays inline, between them (a
    // comprehension's, a nested try's), and returns or raises, or leaves the loop the if lies
    // in; not by falling into the loop's cold bottom test, which the branch's end does not
    // reach.)
    int stop = cold_code_return_end(s.try_end, resolve(exit), s.cleanup);
    if (stop < 0) stop = cold_loop_tail_end(s.try_end, s.cleanup, -1);
    if (stop > s.try_end) {
      s.outside = s.try_end;
      s.outside_end = s.outside_consumed = stop;
      s.else_end = std::min(s.else_end, end);
    }
  }
}

// The end of the code at `from`, after the handler code, that ends with a jump back to the
// loop's head `head` (that jump), or -1.
int CodeDecoder::loop_tail_end(int from, int cleanup, int head) const {
  const auto& ops = lifted_.ops;
  int outside_end = -1;
  for (int k = from; k < static_cast<int>(ops.size()); ++k) {
    const Operation& o = ops[static_cast<size_t>(k)];
    if (o.op == Op::Jump && o.target < from && resolve(o.target) == head) {
      outside_end = k;
      break;
    }
    if (flow_.reachable[static_cast<size_t>(k)] || o.op == Op::PushExcInfo || o.op == Op::Reraise ||
        o.op == Op::ReturnValue || o.op == Op::ReturnConst || o.op == Op::RaiseVarargs ||
        (is_jump(o.op) && o.target < k) ||
        flow_.handler_covering(k) != flow_.handler_covering(cleanup))
      break;
  }
  for (int k = from; outside_end >= 0 && k < outside_end; ++k) {
    const Operation& o = ops[static_cast<size_t>(k)];
    if (is_jump(o.op) && o.target > outside_end) outside_end = -1;
  }
  return outside_end;
}

// 3.12+: code after the statement that only its clauses reach, ending the loop body, that
// returns or raises, or falls into the loop's bottom test where that test is cold code too
// (decode_while's cold tail; not where `head` is -1): its end (past the return, raise, or the
// `break` or `continue` ending it; the test), or -1. Code that only
// the clauses reach is cold as a whole (flowgraph.c's push_cold_blocks_to_end moves it in one
// piece): the handler code of the statements in it stays inline, between them; its `continue`s
// and `break`s leave it.
int CodeDecoder::cold_loop_tail_end(int from, int cleanup, int head) const {
  const auto& ops = lifted_.ops;
  int size = static_cast<int>(ops.size());
  int own = flow_.handler_covering(cleanup);
  int reach = from;  // the farthest place the code so far goes on at
  int stop = -1;
  for (int k = from; k < size && stop < 0; ++k) {
    const Operation& o = ops[static_cast<size_t>(k)];
    if (auto cold = cold_tests_.find(k);
        head >= 0 && cold != cold_tests_.end() && cold->second == head) {
      if (reach > k) return -1;
      stop = k;
      break;
    }
    int covering = flow_.handler_covering(k);
    if (flow_.reachable[static_cast<size_t>(k)] || (covering != own && covering < from)) return -1;
    if (covering != own) reach = std::max(reach, covering);
    if (is_jump(o.op) && !leaves_loop(o.target)) {
      if (o.target < from) return -1;
      reach = std::max(reach, o.target);
    }
    // (Or a `break` or `continue` ending the tail: a jump out of the loop that nothing in the
    // tail jumps past.)
    bool leaves = o.op == Op::ReturnValue || o.op == Op::ReturnConst || o.op == Op::RaiseVarargs ||
                  (o.op == Op::Reraise && covering == own) ||
                  (o.op == Op::Jump && covering == own && leaves_loop(o.target));
    if (leaves && reach <= k) stop = k + 1;
  }
  if (stop <= from) return -1;
  for (int k = from; k < stop; ++k) {
    const Operation& o = ops[static_cast<size_t>(k)];
    int covering = flow_.handler_covering(k);
    if ((covering != own && covering >= stop) ||
        (is_jump(o.op) && o.target > stop && !leaves_loop(o.target)))
      return -1;
  }
  return stop;
}

// Where the body, the else and the clauses go on when done: the join.
void CodeDecoder::read_except_end(int i, int end, int exit, TryExceptShape& s) const {
  const auto& ops = lifted_.ops;
  // (3.12+: or the statement ends the body of an enclosing with that only its clauses leave
  // normally: the with's exit call, and the code after the with, reached from them only, lie
  // after the handler code (enclosing_with_exit_end); the clauses go there, the with's end.)
  if (s.try_end > end && s.outside < 0 && resolve(s.try_end) != resolve(exit)) {
    if (int cold_end = enclosing_with_exit_end(s.cleanup, s.try_end, end); cold_end >= 0) {
      s.with_exit = {s.try_end, cold_end};
      s.else_end = std::min(s.else_end, end);
    } else {
      // (A clause's copy of the short exit the region goes on to, as the body's way out is:
      // 3.11+ copies exit blocks without a line number into each block that jumps there.)
      if (!same_target(s.try_end, exit)) throw DecodeFailure("try statement leaves its region");
      s.try_end = exit;
    }
  }
  // (A statement ending a region whose last operation, before the handler code, jumps to its
  // exit joins at that jump: a loop's jump back, which the clauses jump to.)
  s.join = s.try_end;
  if (s.try_end == end && end > i && end - 1 < s.handler &&
      ops[static_cast<size_t>(end) - 1].op == Op::Jump &&
      same_target(ops[static_cast<size_t>(end) - 1].target, exit)) {
    s.join = end - 1;
  }
  // 3.11 places the handler code inside the loop, before its exit: a statement ending the loop's
  // body whose handler code ends where the loop exits goes there only by `break`s; its end goes
  // on with the next iteration. (3.12+ alike where the body falls into the loop's exit through
  // a nested `break`, the jump back cold: cold_loop_break_exit.)
  if (!loops_.empty() && (profile_.inline_handlers || loops_.back().clauses_jump_back) &&
      same_target(s.join, loops_.back().break_target) && !same_target(s.join, exit) &&
      same_target(exit, loops_.back().continue_target))
    s.join = exit;
  if (s.try_end > end) s.try_end = end;
}

// The statement with its body and else decoded; its clauses come next.
StmtPtr CodeDecoder::decode_except_body_and_else(int i, int end, int exit, TryExceptShape& s) {
  const auto& ops = lifted_.ops;
  // Operations that cannot raise end the body outside the table (`return` after an if): a jump
  // of the body past them, to the end of the body, takes them in.
  for (int k = i; s.jumps_over && k < s.body_end && s.body_end < s.else_end; ++k) {
    const Operation& op = ops[static_cast<size_t>(k)];
    bool jumps = op.op == Op::Jump || op.op == Op::JumpIf || op.op == Op::JumpIfOrPop;
    if (jumps && op.target == s.else_end) s.body_end = s.else_end;
  }
  // (Without an else, the body's end is the statement's: it goes on at the join.)
  Body body = decode_range_extending(i, &s.body_end, s.else_end,
                                     s.body_end < s.else_end ? s.body_end : s.join);
  // (An else running to the region's end goes on where the region does.)
  Body orelse =
      s.body_end < s.else_end
          ? decode_range(s.body_end, s.else_end, s.else_end == end && s.join == end ? exit : s.join)
          : Body{};
  // Ending the body of a loop, the else goes on with the next iteration when done: the jumps
  // back (3.12+ copies them for each way to the end) are no statements of their own.
  // (Not where the code after the statement, placed after the handler code, follows it.)
  while (!orelse.empty() && orelse.back()->kind == StmtKind::Continue && !loops_.empty() &&
         s.else_end >= end && s.outside < 0 && same_target(exit, loops_.back().continue_target)) {
    orelse.pop_back();
  }

  // 3.11: the jump back before the handler code is the else's `continue` where the statement's
  // region goes on elsewhere (an if branch, its else placed after the handler code).
  if (profile_.inline_handlers && s.jumps_back && !same_target(exit, loops_.back().continue_target))
    orelse.push_back(make_stmt(StmtKind::Continue));
  return make_stmt(StmtKind::Try, {}, {std::move(body), std::move(orelse), {}});
}

// Whether the body or its else reaches the code after the statement (ends without a return or
// raise, or jumps past the else's end other than out of a loop).
bool CodeDecoder::except_body_falls_through(int i, const TryExceptShape& s) const {
  const auto& ops = lifted_.ops;
  bool body_falls_through = false;
  if (s.else_end > s.body_end) {
    const Operation& last_op = ops[static_cast<size_t>(s.else_end) - 1];
    Op last = last_op.op;
    // (A `continue` or `break` ending it leaves the loop's body, not into the code after.)
    body_falls_through = last != Op::ReturnValue && last != Op::ReturnConst &&
                         last != Op::RaiseVarargs && last != Op::Reraise &&
                         !(last == Op::Jump && leaves_loop(last_op.target));
    for (int q = i; q < s.else_end && !body_falls_through; ++q) {
      const Operation& op = ops[static_cast<size_t>(q)];
      body_falls_through = is_jump(op.op) && op.target >= s.else_end && !leaves_loop(op.target);
    }
  }
  return body_falls_through;
}

// An except clause's type test at `k` and its binding: sets the clause's type and name and
// `bound` (the name as the operations spell it), `*body_begin`; returns the clause's end.
int CodeDecoder::read_except_test(int k, int cleanup, ExceptHandler& clause, std::string& bound,
                                  int* body_begin) {
  const auto& ops = lifted_.ops;
  int clause_end = cleanup;
  *body_begin = k + 1;
  if (ops[static_cast<size_t>(k)].op != Op::PopTop) {
    int check = k;
    while (check < cleanup && ops[static_cast<size_t>(check)].op != Op::CheckExcMatch) ++check;
    if (check + 2 >= cleanup || ops[static_cast<size_t>(check) + 1].op != Op::JumpIf) {
      throw DecodeFailure("except clause without a type test");
    }
    clause.type = evaluate(k, check);
    clause_end = ops[static_cast<size_t>(check) + 1].target;
    const Operation& bind = ops[static_cast<size_t>(check) + 2];
    *body_begin = check + 3;
    if (bind.op == Op::StoreName) bound = bind.text;
    if (bind.op == Op::StoreName) {
      clause.name = source_name(bind.text);
      // The body is protected by `name = None; del name; raise` just before the next clause.
      if (clause_end - 4 > *body_begin &&
          ops[static_cast<size_t>(clause_end) - 1].op == Op::Reraise) {
        clause_end -= 4;
      }
    } else if (bind.op != Op::PopTop) {
      throw DecodeFailure("except clause binds in an unexpected way");
    }
    pop();  // the exception value
  } else {
    pop();
  }
  return clause_end;
}

// Where the clause's own code ends, before code after the statement placed in it.
int CodeDecoder::except_clause_decode_end(int body_begin, int clause_end, int end,
                                          bool body_falls_through, TryExceptShape& s) {
  const auto& ops = lifted_.ops;
  // 3.12+ may place the code after the statement right after a clause, which then falls
  // through its POP_EXCEPT into it (the body cannot fall through, or jumps there too).
  int decode_end = clause_end;
  for (int p = body_begin; s.tail_copy >= 0 && p + s.tail_copy_length < clause_end; ++p) {
    int q = after_pop_except(p, s.cleanup, s.tail_copy);
    if (q + s.tail_copy_length == clause_end &&
        is_line_copy(ops, q, s.tail_copy, s.tail_copy_length)) {
      decode_end = q;
    }
  }
  if (profile_.cold_blocks_at_end && s.tail_copy < 0 && !s.jumps_over && s.back_join < 0 &&
      body_falls_through) {
    // (A body that seems to fall off the region's end (a `continue` running a with's exit on
    // its way) while a clause falls into code past the region: no reading puts that code
    // inside the clause. 3.13 leaves that code where it is, the clause jumping there after its
    // POP_EXCEPT: the same shape.)
    int q = clause_last_exit(body_begin, clause_end, s.cleanup);
    const Operation* jump =
        q >= end && q + 1 == clause_end ? &ops[static_cast<size_t>(q)] : nullptr;
    if (jump && jump->op == Op::Jump && jump->target > q && !leaves_loop(jump->target) &&
        may_start_statement(ops[static_cast<size_t>(jump->target)].op))
      throw DecodeFailure("code after an except clause's statement past its region");
    if (q >= end && may_start_statement(ops[static_cast<size_t>(q)].op) &&
        !loop_break_copy(q, clause_end))
      throw DecodeFailure("code after an except clause's statement past its region");
  }
  if (profile_.cold_blocks_at_end && s.tail_copy < 0 && !s.jumps_over && s.back_join < 0 &&
      !body_falls_through) {
    if (int q = clause_last_exit(body_begin, clause_end, s.cleanup); q >= end) {
      // (Past the region: the code after the statement, that the clause's last POP_EXCEPT
      // falls into; the earlier ones are the clause's continue or break.)
      const Operation& start = ops[static_cast<size_t>(q)];
      int length = copied_tail_length(q);
      bool copy_of_else_end = length > 0 && s.else_end - length >= s.body_end &&
                              is_line_copy(ops, q, s.else_end - length, length);
      if (!copy_of_else_end &&
          (may_start_statement(start.op) || (start.op == Op::RaiseVarargs && start.arg == 0)))
        return clause_after_region(q, clause_end, end, s);
    }
    for (int p = body_begin; p + 1 < clause_end; ++p) {
      if (int q = after_pop_except(p, s.cleanup); q >= 0) {
        // (A return in the clause computes its value before POP_EXCEPT; code after the
        // statement starts by loading something.)
        // (Unless the body falls into a copy of it: then the copy is the code after.)
        int length = copied_tail_length(q);
        bool copy_of_else_end = length > 0 && s.else_end - length >= s.body_end &&
                                is_line_copy(ops, q, s.else_end - length, length);
        if (may_start_statement(ops[static_cast<size_t>(q)].op) && s.try_end > clause_end &&
            q < end && !copy_of_else_end) {
          decode_end = q;
          s.try_end = s.join = q;
          s.after_clause = {q, clause_end};
          s.sequential = false;  // what follows the body is its else
        }
        break;
      }
    }
  }
  return decode_end;
}

// 3.12+: where the code after the clause's last POP_EXCEPT (and the unbinding of its name)
// starts, where that runs straight to the clause's end; -1 if none. (That POP_EXCEPT lies under
// the handlers around the statement: a nested try's lies under this one's cleanup.)
int CodeDecoder::clause_last_exit(int body_begin, int clause_end, int cleanup) const {
  const auto& ops = lifted_.ops;
  int outer = flow_.handler_covering(cleanup);
  for (int p = clause_end - 2; p >= body_begin; --p) {
    Op op = ops[static_cast<size_t>(p)].op;
    if (op == Op::PopExcept) {
      int q = p + 1;
      if (q + 3 < clause_end && unbinds_clause_name(ops, q)) q += 3;
      return flow_.handler_covering(p) == outer && flow_.handler_covering(q) == outer ? q : -1;
    }
    if (is_jump(op) || op == Op::ReturnValue || op == Op::ReturnConst || op == Op::RaiseVarargs ||
        op == Op::Reraise || op == Op::PushExcInfo)
      return -1;
  }
  return -1;
}

// 3.12+: whether [q, clause_end) is a `break`'s copy of the code after the innermost loop, or of
// the only code a `while True` left that way has (decode_clause_break_copy reads it).
bool CodeDecoder::loop_break_copy(int q, int clause_end) const {
  const auto& ops = lifted_.ops;
  return !loops_.empty() && loops_.back().break_target >= 0 &&
         (copied_block_length(q, loops_.back().break_target) == clause_end - q ||
          (ops[static_cast<size_t>(loops_.back().continue_target)].op != Op::ForIter &&
           absent_break_target_copy(q, clause_end) == clause_end - q));
}

// 3.12+: the code after the statement that a clause falls into past its POP_EXCEPT at `q` lies
// past the region (cold code, flowgraph.c's push_cold_blocks_to_end), the statement ending the
// region: it runs once the exception is handled, never inside the clause. Straight code ending
// in a return or raise is read after the statement (another clause may hold a copy of it);
// anything else falls back. Returns where the clause's own code ends.
int CodeDecoder::clause_after_region(int q, int clause_end, int end, TryExceptShape& s) const {
  const auto& ops = lifted_.ops;
  // (Not where that code is a `break`'s copy of the code after the innermost loop, or of the
  // only code a `while True` left that way has (decode_clause_break_copy reads it): that break
  // leaves the clause as well, and it runs past the POP_EXCEPT as the code does.)
  if (loop_break_copy(q, clause_end)) return clause_end;
  // (The region ends in the body's way out, a `continue` or `break`: the code after the
  // statement is read after it. A region ending otherwise (in a copy of the code after an
  // enclosing statement, which its reading drops from the end) falls back.)
  const Operation& way_out = ops[static_cast<size_t>(end) - 1];
  bool straight =
      s.try_end == end && clause_end > q && way_out.op == Op::Jump && leaves_loop(way_out.target);
  for (int k = q; straight && k + 1 < clause_end; ++k) {
    Op op = ops[static_cast<size_t>(k)].op;
    straight = !is_jump(op) && op != Op::PopExcept && op != Op::PushExcInfo &&
               op != Op::ReturnValue && op != Op::ReturnConst && op != Op::RaiseVarargs &&
               op != Op::Reraise && flow_.handler_covering(k) == flow_.handler_covering(q);
  }
  Op last = ops[static_cast<size_t>(clause_end) - 1].op;
  straight =
      straight && (last == Op::ReturnValue || last == Op::ReturnConst || last == Op::RaiseVarargs);
  int length = clause_end - q;
  if (straight && s.outside >= 0) {
    straight = s.outside_end - s.outside == length && same_operations(ops, q, s.outside, length);
  } else if (straight) {
    s.outside = q;
    s.outside_end = s.outside_consumed = clause_end;
    s.outside_in_clause = true;
    s.sequential = false;  // what follows the body is its else
  }
  if (!straight) throw DecodeFailure("code after an except clause's statement past its region");
  return q;
}

// The code after the statement now read after it (clause_after_region): the body's (or else's)
// way out at the region's end, the loop's jump, is a written `continue` or `break` (the compiler
// emits no jump for the end of a loop body that falls off it).
void CodeDecoder::end_with_loop_jump(Stmt& stmt, const TryExceptShape& s) const {
  const auto& ops = lifted_.ops;
  int end = s.try_end;
  // (An else that is only that jump, read as a `continue`: the body's own, which falls into it.)
  if (s.body_end + 1 == end && stmt.bodies[1].size() == 1) {
    stmt.bodies[0].push_back(stmt.bodies[1][0]);
    stmt.bodies[1].clear();
  }
  Body& last = stmt.bodies[1].empty() ? stmt.bodies[0] : stmt.bodies[1];
  StmtKind kind = last.empty() ? StmtKind::Pass : last.back()->kind;
  if (kind == StmtKind::Continue || kind == StmtKind::Break || kind == StmtKind::Return ||
      kind == StmtKind::Raise)
    return;
  const Operation& jump = ops[static_cast<size_t>(end) - 1];
  if (loops_.empty() || jump.op != Op::Jump)
    throw DecodeFailure("code after an except clause's statement past its region");
  if (same_target(jump.target, loops_.back().continue_target)) {
    last.push_back(make_stmt(StmtKind::Continue));
  } else if (same_target(jump.target, loops_.back().break_target)) {
    last.push_back(make_stmt(StmtKind::Break));
  } else {
    throw DecodeFailure("code after an except clause's statement past its region");
  }
}

// 3.12+, a loop whose bottom test push_cold_blocks_to_end moved away (only handler code reaches
// it): a body (or else) falling into the loop's exit ends in a `break`, compiler_break's NOP and
// jump, the jump to the block that now follows removed (optimize_basic_block). The `break`
// whose jump is left out marks itself for decode_while.
void CodeDecoder::end_with_fall_break(int i, Stmt& stmt, const TryExceptShape& s) const {
  const auto& ops = lifted_.ops;
  if (loops_.empty() || !loops_.back().falls_into_break || s.sequential ||
      s.try_end != loops_.back().break_target || s.else_end != s.try_end || s.try_end <= i ||
      s.try_end > s.handler)
    return;
  auto last = static_cast<size_t>(s.try_end) - 1;
  // (Or, where the clauses jump back, a test of the body or else jumping to the exit, over its
  // last statement: `if x: raise`, then the `break`.)
  bool falls = flow_.reachable[last] && falls_through(ops[last].op);
  bool jumped = !falls && loops_.back().clauses_jump_back && jumped_over_to(i, s.try_end);
  if (!falls && !jumped) return;
  Body& body = stmt.bodies[1].empty() ? stmt.bodies[0] : stmt.bodies[1];
  // (That test's jump to the exit read as an `else: break` of an if whose branch never falls
  // through: the `break` follows the if.)
  if (jumped && !body.empty() && body.back()->kind == StmtKind::If) {
    Stmt& test = *body.back();
    StmtKind then_last = test.bodies[0].empty() ? StmtKind::Pass : test.bodies[0].back()->kind;
    if (test.bodies.size() == 2 && test.bodies[1].size() == 1 &&
        test.bodies[1][0]->kind == StmtKind::Break &&
        (then_last == StmtKind::Raise || then_last == StmtKind::Return))
      test.bodies[1].clear();
  }
  StmtKind kind = body.empty() ? StmtKind::Pass : body.back()->kind;
  if (kind == StmtKind::Break || kind == StmtKind::Continue || kind == StmtKind::Return ||
      kind == StmtKind::Raise)
    return;
  auto fall_break = make_stmt(StmtKind::Break);
  fall_break->text = "falls_into_exit";
  // (Where the clauses jump back (cold_loop_break_exit), the `break`'s NOP line, dropped onto
  // the exit, tells where it was written: after the clauses' lines, in the else;
  // compiler_try_except compiles the body, then the handlers, then the else.)
  int line = ops[static_cast<size_t>(s.try_end)].nop_line;
  if (loops_.back().clauses_jump_back && line >= 0) {
    fall_break->line = line;
    int clauses_last = -1;
    for (int k = s.handler; k < s.cleanup; ++k)
      clauses_last = std::max(clauses_last, ops[static_cast<size_t>(k)].line);
    if (stmt.bodies[1].empty() && line > clauses_last) {
      stmt.bodies[1].push_back(fall_break);
      return;
    }
  }
  body.push_back(fall_break);
}

// The body of a clause, [body_begin, decode_end), with the copies of its exit read as jumps to
// its end.
Body CodeDecoder::decode_except_clause_body(int body_begin, int decode_end,
                                            const std::string& bound, const std::string& name,
                                            const std::string& saved_name,
                                            const TryExceptShape& s) {
  const auto& ops = lifted_.ops;
  // 3.12+: a clause ending in an if/else (or in a statement holding one) copies its exit
  // (POP_EXCEPT, the unbinding of its name, the jump back to the join) into each branch that
  // falls off the end: each copy is read as a jump to the clause's end.
  Retargeted retargeted(lifted_.ops, clause_end_jumps_);
  int join = s.join;
  if (profile_.cold_blocks_at_end && join >= 0 && join < s.handler && !leaves_loop(join)) {
    // (Where the clause's own exit ends it and other branches jump to it, `if a: ... elif
    // b: ...` whose test jumps there (3.13), the copies go there too: one join for the if.)
    int own_exit = shared_clause_exit(body_begin, decode_end, bound);
    bool copied = false;
    for (int p = body_begin; p < decode_end; ++p) {
      int jump = clause_exit_jump(ops, p, &bound);
      // (3.13 copies a block without a line number into every jump to it, not only an exit
      // block (flowgraph.c's inline_small_or_no_lineno_blocks): where no branch jumps to the
      // exit ending the clause, the branch falling into it holds it as the others hold their
      // copies, and it reads alike, as the end of that branch.)
      bool last_too = profile_.inlines_no_lineno_blocks && copied && own_exit < 0;
      if (jump < 0 || (jump + 1 >= decode_end && !last_too) ||
          !same_target(ops[static_cast<size_t>(jump)].target, join))
        continue;
      copied = true;
      retargeted.retarget(jump, own_exit >= 0 ? own_exit : decode_end);
      mark_consumed(p, jump);
      p = jump;
    }
  }
  // 3.13: a clause ending the clause of an enclosing try copies that clause's exit (its
  // POP_EXCEPT, the unbinding of its name, its jump to the join) after its own POP_EXCEPT,
  // where the body jumps to the original at the join.
  if (join >= 0 && static_cast<size_t>(join) < ops.size() &&
      ops[static_cast<size_t>(join)].op == Op::PopExcept) {
    for (int p = body_begin; p + 1 < decode_end; ++p) {
      if (ops[static_cast<size_t>(p)].op == Op::PopExcept &&
          copied_block_length(p + 1, join) == decode_end - (p + 1)) {
        mark_consumed(p + 1, decode_end);
        decode_end = p + 1;
        break;
      }
    }
  }
  Restore<std::vector<std::string>> keep_enclosing(enclosing_clause_names_);
  if (!saved_name.empty()) enclosing_clause_names_.push_back(saved_name);
  handler_name_ = name;
  Body body;
  {
    Restore<size_t> keep_loops(clause_loops_);
    clause_loops_ = loops_.size();
    Restore<int> keep_tail(clause_tail_);
    Restore<int> keep_tail_length(clause_tail_length_);
    clause_tail_ = s.tail_copy;
    clause_tail_length_ = s.tail_copy_length;
    body = decode_range(body_begin, decode_end, join);
  }
  handler_name_ = saved_name;
  return body;
}

// One except clause starting at `k` (its type test, or POP_TOP for a bare except), added to
// `handlers`; returns where the next one starts.
int CodeDecoder::decode_except_clause(int k, int end, bool body_falls_through,
                                      const std::string& saved_name, TryExceptShape& s,
                                      std::vector<ExceptHandler>& handlers) {
  const auto& ops = lifted_.ops;
  ExceptHandler clause;
  int body_begin = k + 1;
  std::string bound;  // the name the clause binds, as the operations spell it
  int clause_end = read_except_test(k, s.cleanup, clause, bound, &body_begin);
  int decode_end = except_clause_decode_end(body_begin, clause_end, end, body_falls_through, s);
  clause.body =
      decode_except_clause_body(body_begin, decode_end, bound, clause.name, saved_name, s);
  handlers.push_back(std::move(clause));
  return ops[static_cast<size_t>(clause_end)].op == Op::LoadConst && !handlers.back().name.empty()
             ? clause_end + 4
             : clause_end;
}

// 3.12+: a clause's written `return None` unwinds the clause on the return's line, its
// POP_EXCEPT starting that line (compiler_return, compiler_unwind_fblock); a clause falling
// through to a copy of the code's end leaves on the line of its last statement (the exit
// compiler_try_except adds has no location). A named clause unbinds its name between them.
bool CodeDecoder::clause_returns_written(const TryExceptShape& s) const {
  const auto& ops = lifted_.ops;
  for (int p = s.handler + 1; p + 1 < s.cleanup; ++p) {
    if (ops[static_cast<size_t>(p)].op != Op::PopExcept) continue;
    int r = p + 4 < s.cleanup && unbinds_clause_name(ops, p + 1) ? p + 4 : p + 1;
    const Operation& ret = ops[static_cast<size_t>(r)];
    if (ret.op != Op::ReturnConst || !ret.constant ||
        ret.constant->kind != bytecode::ObjectKind::None) {
      continue;
    }
    int line = ops[static_cast<size_t>(p)].line;
    if (line < 0 || line == line_at(ops, p - 1)) return false;
  }
  return true;
}

// The statement emitted, with the code after it that its else or the clauses hold moved out.
void CodeDecoder::emit_try_except(StmtPtr& stmt, int exit, const TryExceptShape& shape) {
  mark_consumed(shape.handler, shape.cleanup + 3);
  if (shape.with_exit.second > 0) mark_consumed(shape.with_exit.first, shape.with_exit.second);
  for (int q = shape.after_clause.first; q < shape.after_clause.second; ++q)
    consumed_[static_cast<size_t>(q)] = false;
  if (shape.outside_in_clause) {
    for (int q = shape.outside; q < shape.outside_end; ++q)
      consumed_[static_cast<size_t>(q)] = false;
    end_with_loop_jump(*stmt, shape);
  }
  emit(stmt);
  // 3.12+ copies a short tail after the statement (ending in return or raise) into each path
  // that reaches it: an `else` ending so, repeated at the end of every clause that falls through,
  // is the code after the statement.
  Body& orelse_body = stmt->bodies[1];
  bool sequential = shape.sequential;
  // (A clause ending in `return None` may be one falling through to a copy of the end; not
  // where each such return is written.)
  for (const ExceptHandler& clause : stmt->handlers) {
    if (!sequential || clause_returns_written(shape)) break;
    const Body& b = clause.body;
    sequential &= b.empty() || b.back()->kind != StmtKind::Return ||
                  (!b.back()->exprs.empty() && !is_none(b.back()->exprs[0]));
  }
  if (shape.clauses_continue && sequential) {
    for (ExceptHandler& clause : stmt->handlers) {
      Body& b = clause.body;
      StmtKind last = b.empty() ? StmtKind::Pass : b.back()->kind;
      if (last != StmtKind::Continue && last != StmtKind::Return && last != StmtKind::Raise &&
          last != StmtKind::Break)
        b.push_back(make_stmt(StmtKind::Continue));
    }
  }
  // (Not where the code after the statement was read from a clause: the else is the body's own;
  // nor where a jump of the body still covered goes there, body_jumps_to_else_covered.)
  if (profile_.exit_copies_keep_lines && !shape.outside_in_clause &&
      body_jumps_to_else_covered(shape) != 1 &&
      (strip_copied_tail(*stmt, orelse_body, shape.cold) || sequential)) {
    Body after = std::move(orelse_body);
    orelse_body.clear();
    for (StmtPtr& s : after) emit(s);
  }
  if (shape.outside >= 0) {
    Body after = decode_range(shape.outside, shape.outside_end, exit);
    mark_consumed(shape.outside, shape.outside_consumed);
    for (StmtPtr& s : after) emit(s);
  }
}

int CodeDecoder::decode_try_except(int i, int body_end, int handler, int end, int exit) {
  const auto& ops = lifted_.ops;
  Restore<int> keep_clause_tail(clause_tail_);  // (not the body's or else's: see the clauses)
  clause_tail_ = -1;
  TryExceptShape s;
  s.handler = handler;
  s.body_end = body_end;
  s.cleanup = flow_.handler_covering(handler);
  if (!is_cleanup_block(ops, s.cleanup)) throw DecodeFailure("except handler without its cleanup");
  // (Not where the body falls into the enclosing clause's POP_EXCEPT: that is the way out of
  // the clause, to the code after the enclosing statement, or a copy of it.)
  s.cold = profile_.cold_blocks_at_end && !flow_.reachable[static_cast<size_t>(i)] &&
           static_cast<size_t>(body_end) < ops.size() &&
           ops[static_cast<size_t>(body_end)].op != Op::PopExcept;
  read_except_jumps(i, end, exit, s);
  read_except_join(i, end, s);
  mark_consumed(s.join_copy.first, s.join_copy.second);
  read_except_sequential(i, end, s);
  read_except_tail_copy(end, exit, s);
  read_clauses_continue(end, s);
  read_clauses_continue_before_code(i, end, s);
  read_else_not_threaded(s);
  read_except_outside(i, end, exit, s);
  read_except_end(i, end, exit, s);
  auto stmt = decode_except_body_and_else(i, end, exit, s);
  end_with_fall_break(i, *stmt, s);
  // 3.12+: the table covers every raise of the body (calls not: a return's way out of a with
  // calls its exit uncovered); one it leaves out is the code after the statement (past a
  // nested try/finally's normal copy that returns in a branch, the clauses placed after the
  // code), never the body's.
  for (int k = i; profile_.cold_blocks_at_end && k < s.body_end; ++k) {
    if (ops[static_cast<size_t>(k)].op == Op::RaiseVarargs &&
        flow_.reachable[static_cast<size_t>(k)] && !in_try_body(k, handler))
      throw DecodeFailure("try body holds code its handler does not cover");
  }
  std::vector<ExprPtr> saved_stack = stack_;
  size_t saved_depth = statement_depth_;
  std::string saved_name = handler_name_;
  push(make_expr(ExprKind::Internal, {}, "prev_exc"));
  std::vector<ExprPtr> clause_stack = stack_;
  clause_stack.push_back(make_expr(ExprKind::Internal, {}, "exc"));
  bool body_falls_through = except_body_falls_through(i, s);
  int k = handler + 1;
  while (k < s.cleanup) {
    stack_ = clause_stack;
    statement_depth_ = clause_stack.size() - 1;
    if (ops[static_cast<size_t>(k)].op == Op::Reraise) {  // no clause matched
      ++k;
      continue;
    }
    k = decode_except_clause(k, end, body_falls_through, saved_name, s, stmt->handlers);
    if (stmt->handlers.back().type == nullptr) break;  // a bare except is the last clause
  }
  stack_ = saved_stack;
  statement_depth_ = saved_depth;
  emit_try_except(stmt, exit, s);
  return s.try_end;
}

// try/except*: each clause tests with CHECK_EG_MATCH, binds or pops the matched group, runs its
// body under a handler that appends what it raises to the list; the end re-raises what is left.
//   clause: <type> CHECK_EG_MATCH; COPY 1; POP_JUMP_IF_NONE no_match; STORE name | POP_TOP;
//           <body>; [name = None; del name]; JUMP j_next
//           [name = None; del name]; LIST_APPEND 3; POP_TOP; JUMP (the body's handler)
//           j_next: JUMP next;  no_match: POP_TOP;  next: ...
//   end:    LIST_APPEND 1; PREP_RERAISE_STAR; COPY 1; POP_JUMP_IF_NOT_NONE reraise; POP_TOP;
//           POP_EXCEPT; JUMP join (3.12+: a copy of the code after the statement);
//           reraise: SWAP 2; POP_EXCEPT; RERAISE 0;  cleanup: COPY 3; POP_EXCEPT; RERAISE 1
namespace {

// The operation at `k` of an except* handler's code, which must be there.
const Operation& star_op(const std::vector<Operation>& ops, int k) {
  if (k < 0 || k >= static_cast<int>(ops.size())) throw DecodeFailure("except* handler shape");
  return ops[static_cast<size_t>(k)];
}

bool star_is(const std::vector<Operation>& ops, int k, Op op) {
  return k >= 0 && k < static_cast<int>(ops.size()) && ops[static_cast<size_t>(k)].op == op;
}

}  // namespace

// One except* clause starting at `k` (its type), decoded with the stack the handler starts with;
// `*next` is where the next clause starts.
ExceptHandler CodeDecoder::decode_star_clause(int k, int cleanup,
                                              const std::vector<ExprPtr>& saved_stack,
                                              const std::string& saved_name, int* next) {
  const auto& ops = lifted_.ops;
  auto at = [&](int m) -> const Operation& { return star_op(ops, m); };
  auto is = [&](int m, Op op) { return star_is(ops, m, op); };
  int check = k;
  while (check < cleanup && !is(check, Op::CheckEgMatch)) ++check;
  if (check + 3 >= cleanup || at(check + 1).op != Op::Copy || at(check + 1).arg != 1 ||
      at(check + 2).op != Op::JumpIf || at(check + 2).arg != 2) {
    throw DecodeFailure("except* clause without a type test");
  }
  ExceptHandler clause;
  clause.star = true;
  stack_ = saved_stack;
  statement_depth_ = stack_.size();
  clause.type = evaluate(k, check);
  int no_match = at(check + 2).target;
  if (no_match <= check + 3 || no_match >= cleanup || at(no_match).op != Op::PopTop)
    throw DecodeFailure("except* clause shape");
  const Operation& bind = at(check + 3);
  bool named = bind.op == Op::StoreName;
  if (named) {
    clause.name = source_name(bind.text);
  } else if (bind.op != Op::PopTop) {
    throw DecodeFailure("except* clause binds in an unexpected way");
  }
  int body_begin = check + 4;
  int named_ops = named ? 3 : 0;
  // The body's handler is the last LIST_APPEND 3 of the clause, after its `name = None; del`.
  int append = no_match - 1;
  while (append > body_begin && !(is(append, Op::ListAppend) && at(append).arg == 3)) --append;
  int handler_start = append - named_ops;
  int body_jump = handler_start - 1;
  // 3.13 threads the last clause's exit jump to the end, with a copy of its LIST_APPEND 1.
  if (is(body_jump, Op::Jump) && is(body_jump - 1, Op::ListAppend) && at(body_jump - 1).arg == 1)
    --body_jump;
  int body_stop = body_jump - named_ops;
  bool raises = is(body_jump, Op::RaiseVarargs) || is(body_jump, Op::Reraise);
  if (raises) body_stop = body_jump = handler_start;  // a body ending in raise has no exit
  auto is_name_reset = [&](int m) {
    return !named || (is(m, Op::LoadConst) && is(m + 1, Op::StoreName) &&
                      is(m + 2, Op::DeleteName) && at(m + 1).text == bind.text);
  };
  if (body_stop < body_begin || append <= body_begin || !is(append + 1, Op::PopTop) ||
      !(raises || is(body_jump, Op::Jump) || is(body_jump, Op::ListAppend)) ||
      !is_name_reset(handler_start) || (!raises && !is_name_reset(body_stop))) {
    throw DecodeFailure("except* clause cleanup");
  }
  handler_name_ = clause.name;
  clause.body = decode_range(body_begin, body_stop, body_stop);
  handler_name_ = saved_name;
  *next = no_match + 1;
  return clause;
}

// The end of an except* handler from `e`: what no clause handled is raised again. Its
// `reraise: SWAP 2; POP_EXCEPT; RERAISE 0`, and `*pop_except` the POP_EXCEPT before it.
int CodeDecoder::star_reraise(int e, int cleanup, int* pop_except) const {
  const auto& ops = lifted_.ops;
  auto at = [&](int m) -> const Operation& { return star_op(ops, m); };
  auto is = [&](int m, Op op) { return star_is(ops, m, op); };
  int reraise = -1;
  for (int m = e; m < cleanup; ++m) {
    if (is(m, Op::JumpIf) && at(m).arg == 3) {
      reraise = at(m).target;
      break;
    }
  }
  if (!is(e, Op::ListAppend) || reraise < 0 || reraise + 3 != cleanup || !is(reraise, Op::Swap) ||
      !is(reraise + 1, Op::PopExcept) || !is(reraise + 2, Op::Reraise)) {
    throw DecodeFailure("except* without its re-raise");
  }
  *pop_except = -1;
  for (int m = e; m < reraise; ++m) {
    if (is(m, Op::PopExcept)) {
      *pop_except = m;
      break;
    }
  }
  if (*pop_except < 0) throw DecodeFailure("except* without its re-raise");
  return reraise;
}

// Where the except* statement's body, else and the code after it lie, read off the handler's
// way out after its POP_EXCEPT.
CodeDecoder::StarJoin CodeDecoder::star_join(int body_end, int handler, int cleanup, int pop_except,
                                             int reraise) {
  const auto& ops = lifted_.ops;
  auto at = [&](int m) -> const Operation& { return star_op(ops, m); };
  auto is = [&](int m, Op op) { return star_is(ops, m, op); };
  const Operation& before_handler = at(handler - 1);
  int after = pop_except + 1;
  StarJoin shape;
  shape.else_end = handler;
  shape.else_begin = body_end;
  if (after + 1 == reraise && is(after, Op::Jump) && at(after).target > cleanup) {
    shape.try_end = at(after).target;
    if (before_handler.op == Op::Jump && same_target(before_handler.target, shape.try_end)) {
      shape.else_end = handler - 1;
    } else if (before_handler.op == Op::Jump && before_handler.target == cleanup + 3 &&
               shape.try_end > cleanup + 3) {
      // 3.11: the else follows the handler; the body jumps to it, the handler past it.
      shape.else_end = handler - 1;
      shape.else_begin = cleanup + 3;
    }
  } else if (after + 1 == reraise && is(after, Op::Jump) && at(after).target >= body_end &&
             at(after).target < handler) {
    // 3.12+: the handler follows the function's code and jumps back to the join.
    shape.try_end = at(after).target;
    shape.else_end = shape.try_end;
  } else if (after + (handler - body_end) == reraise &&
             same_operations(ops, after, body_end, handler - body_end)) {
    // 3.12+: the code after the statement, copied to the handler's end; it follows the statement.
    shape.try_end = body_end;
    shape.else_end = body_end;
    mark_consumed(after, reraise);
  } else if (body_end == handler && after < reraise &&
             (is(reraise - 1, Op::ReturnValue) || is(reraise - 1, Op::ReturnConst))) {
    // 3.12+: the body never falls through; the code after the statement exists only at the
    // handler's end.
    shape.tail_begin = after;
    shape.try_end = cleanup + 3;
    shape.else_end = handler;
  } else {
    throw DecodeFailure("except* join");
  }
  return shape;
}

int CodeDecoder::decode_try_star(int i, int body_end, int handler, int end, int exit) {
  const auto& ops = lifted_.ops;
  int cleanup = flow_.handler_covering(handler);
  if (!is_cleanup_block(ops, cleanup)) throw DecodeFailure("except* handler without its cleanup");
  Restore<std::vector<ExprPtr>> keep_stack(stack_);
  Restore<size_t> keep_depth(statement_depth_);
  Restore<std::string> keep_name(handler_name_);
  const std::vector<ExprPtr>& saved_stack = keep_stack.saved;
  const size_t saved_depth = keep_depth.saved;
  const std::string& saved_name = keep_name.saved;
  auto stmt = make_stmt(StmtKind::Try, {}, {{}, {}, {}});
  int k = handler + (profile_.except_star_list_swapped ? 4 : 3);
  while (k < cleanup && !star_is(ops, k, Op::ListAppend))
    stmt->handlers.push_back(decode_star_clause(k, cleanup, saved_stack, saved_name, &k));
  if (stmt->handlers.empty()) throw DecodeFailure("except* without clauses");
  // The end: what no clause handled is raised again.
  int pop_except = -1;
  int reraise = star_reraise(k, cleanup, &pop_except);
  StarJoin shape = star_join(body_end, handler, cleanup, pop_except, reraise);
  int else_end = shape.else_end;
  int try_end = shape.try_end;
  int else_begin = shape.else_begin;
  int tail_begin = shape.tail_begin;
  if (try_end > end && resolve(try_end) != resolve(exit))
    throw DecodeFailure("try statement leaves its region");
  int join = try_end;
  if (try_end > end) try_end = end;
  stack_ = saved_stack;
  statement_depth_ = saved_depth;
  stmt->bodies[0] = decode_range_extending(i, &body_end, std::max(else_end, body_end), body_end);
  if (else_begin != body_end) {
    if (body_end != else_end) throw DecodeFailure("except* body before its handler");
    stmt->bodies[1] = decode_range(else_begin, try_end, join);
  } else if (body_end < else_end) {
    stmt->bodies[1] = decode_range(body_end, else_end, join);
  }
  emit(stmt);
  if (tail_begin >= 0) {
    Body tail = decode_range(tail_begin, reraise, reraise);
    for (StmtPtr& s : tail) emit(s);
  }
  mark_consumed(handler, cleanup + 3);
  return else_end == body_end && try_end == body_end ? body_end : try_end;
}

namespace {

bool same_statement(const StmtPtr& a, const StmtPtr& b) {
  return print_body({a}) == print_body({b});
}

}  // namespace

// `if t: a; c else: b; c` back to `if t: a else: b` then `c`: the compiler copies what follows an
// if/else into both branches when each ends by re-raising (the handler copy of a finally body).
void CodeDecoder::hoist_common_tail(Body& body) const {
  if (body.empty() || body.back()->kind != StmtKind::If || body.back()->bodies.size() < 2) return;
  StmtPtr stmt = body.back();
  Body& then_body = stmt->bodies[0];
  Body& else_body = stmt->bodies[1];
  Body tail;
  while (then_body.size() > 1 && else_body.size() > 1 &&
         same_statement(then_body.back(), else_body.back())) {
    tail.insert(tail.begin(), then_body.back());
    then_body.pop_back();
    else_body.pop_back();
  }
  // An else holding a single if prints as elif: keep it, the else is still there.
  body.insert(body.end(), tail.begin(), tail.end());
}

// 3.12+: whether the normal-path copy starting at `k` is itself cold code: the try body ends in
// an async for, whose exit (END_ASYNC_FOR) compiler_async_for reaches only as the handler of
// StopAsyncIteration, and nothing jumps there (a `break` would make it warm). Then
// push_cold_blocks_to_end keeps the copy in place, the handler blocks of statements nested in it
// (an await's CLEANUP_THROW) inline, as in the handler's copy.
bool CodeDecoder::normal_copy_is_cold(int k) const {
  const auto& ops = lifted_.ops;
  if (!profile_.cold_blocks_at_end || k <= 0 || static_cast<size_t>(k) >= ops.size() ||
      ops[static_cast<size_t>(k) - 1].op != Op::EndFor)
    return false;
  // (lift reads the async loop's head as a ForIter marked "async" whose exit is that END_FOR.)
  bool async_exit = std::any_of(ops.begin(), ops.end(), [&](const Operation& o) {
    return o.op == Op::ForIter && o.text == "async" && o.target == k - 1;
  });
  return async_exit && std::none_of(ops.begin(), ops.end(), [&](const Operation& o) {
           return is_jump(o.op) && o.target == k;
         });
}

// How long the normal-path copy of the finally body [final_begin, final_end) is (`cold`: that
// copy is cold code, see normal_copy_is_cold).
int CodeDecoder::finally_copy_length(int final_begin, int final_end, bool cold) const {
  const auto& ops = lifted_.ops;
  int copy_length = final_end - final_begin;
  // 3.11+: a RERAISE copied to the end of the finally body's last branch is, on the normal path,
  // just falling through (or the code after the statement, a return, copied into each branch):
  // the normal copy is one operation shorter.
  if (profile_.copies_exit_blocks && final_end - 1 > final_begin &&
      ops[static_cast<size_t>(final_end) - 1].op == Op::Reraise &&
      ops[static_cast<size_t>(final_end) - 1].arg == 0) {
    --copy_length;
  }
  // 3.12+ moves the handler blocks of statements nested in the normal-path copy after the code,
  // while in the handler (itself cold code) they stay inline, or follow its closing RERAISE when
  // copies of that RERAISE replaced the jumps to it: the copy is as long as what the handler
  // reaches without raising, less what only the handler has (its closing RERAISE, jumps over
  // inline blocks, the unwinding of a return out of it).
  if (profile_.cold_blocks_at_end && !cold)
    copy_length = cold_finally_copy_length(final_begin, final_end);
  return copy_length;
}

// Whether `k` (in the finally body's handler copy from `begin`) is a RERAISE copied by
// duplicate_exits_without_lineno (flowgraph.c; 3.10/3.11 compile.c) for a conditional jump to
// the closing RERAISE: a copy of its own per jump, placed after the original, where nothing
// falls in. On the normal path the test jumps to the code after the statement: no operation.
bool CodeDecoder::reraise_copy_of_test(int k, int begin, int cleanup) const {
  const auto& ops = lifted_.ops;
  if (k <= begin || static_cast<size_t>(k) >= ops.size()) return false;
  const Operation& o = ops[static_cast<size_t>(k)];
  return o.op == Op::Reraise && o.arg == 0 && !falls_through(ops[static_cast<size_t>(k) - 1].op) &&
         (cleanup < 0 || flow_.handler_covering(k) == cleanup);
}

// What the finally body's handler copy [final_begin, final_end) reaches without raising (a
// RERAISE copied for a test is reached, and leads nowhere).
std::vector<bool> CodeDecoder::handler_copy_reached(int final_begin, int final_end) const {
  const auto& ops = lifted_.ops;
  std::vector<bool> seen(static_cast<size_t>(final_end - final_begin), false);
  std::vector<int> work{final_begin};
  const int cleanup = flow_.handler_covering(final_begin - 1);
  while (!work.empty()) {
    int k = work.back();
    work.pop_back();
    if (k < final_begin || k >= final_end || seen[static_cast<size_t>(k - final_begin)]) continue;
    seen[static_cast<size_t>(k - final_begin)] = true;
    if (reraise_copy_of_test(k, final_begin, cleanup)) continue;
    const Operation& o = ops[static_cast<size_t>(k)];
    if (o.target >= 0) work.push_back(o.target);
    if (falls_through(o.op)) work.push_back(k + 1);
  }
  return seen;
}

// 3.12+: the normal copy [body_end, normal_end) as counted from the finally body's handler copy
// [final_begin, final_end) holds what the count assumed: each block copied into jumps as often
// (inlined_return_blocks), and each test the handler's copy reaches, in order, jumping inside
// the copy where the handler's jumps inside its own (a test of a copy counted short jumps past
// it, to code that would be read as following the statement).
bool CodeDecoder::normal_copy_agrees(int body_end, int normal_end, int final_begin,
                                     int final_end) const {
  const auto& ops = lifted_.ops;
  if (normal_end <= body_end) return true;
  std::vector<bool> seen = handler_copy_reached(final_begin, final_end);
  const int cleanup = flow_.handler_covering(final_begin - 1);
  for (const InlinedReturns::Block& block :
       inlined_return_blocks(final_begin, final_end, seen).blocks) {
    int n = static_cast<int>(block.ops.size());
    int found = 0;
    for (int p = body_end; p + n <= normal_end; ++p) {
      bool same = true;
      for (int j = 0; j < n && same; ++j)
        same = same_operations(ops, p + j, block.ops[static_cast<size_t>(j)], 1);
      found += same;
    }
    if (found < block.copies) return false;
  }
  std::vector<int> tests;
  for (int k = final_begin; k < final_end; ++k) {
    if (seen[static_cast<size_t>(k - final_begin)] && ops[static_cast<size_t>(k)].op == Op::JumpIf)
      tests.push_back(k);
  }
  size_t n = 0;
  for (int k = body_end; k < normal_end; ++k) {
    const Operation& o = ops[static_cast<size_t>(k)];
    if (o.op != Op::JumpIf) continue;
    if (n >= tests.size()) return false;
    const Operation& twin = ops[static_cast<size_t>(tests[n++])];
    bool inside = twin.target > final_begin && twin.target < final_end &&
                  !reraise_copy_of_test(twin.target, final_begin, cleanup);
    if (inside && (o.target <= body_end || o.target >= normal_end)) return false;
  }
  return n == tests.size();
}

// 3.12+: finally_copy_length, as what the handler reaches without raising, less what only the
// handler has.
int CodeDecoder::cold_finally_copy_length(int final_begin, int final_end) const {
  const auto& ops = lifted_.ops;
  std::vector<bool> seen = handler_copy_reached(final_begin, final_end);
  const int cleanup = flow_.handler_covering(final_begin - 1);
  int reached = 0;
  int last = -1;
  for (int k = final_begin; k < final_end; ++k) {
    // (A RERAISE copied for a test jumping to the end is none of the copy: the test's jump.)
    if (!seen[static_cast<size_t>(k - final_begin)] ||
        reraise_copy_of_test(k, final_begin, cleanup))
      continue;
    ++reached;
    last = k;
  }
  int copy_length = reached;
  // (A jump over an inline handler block, to the next operation reached, has no copy: there
  // the block is not in the way.)
  for (int k = final_begin; k < final_end; ++k) {
    const Operation& o = ops[static_cast<size_t>(k)];
    if (!seen[static_cast<size_t>(k - final_begin)] || o.op != Op::Jump || o.target <= k + 1)
      continue;
    int next = k + 1;
    while (next < final_end && !seen[static_cast<size_t>(next - final_begin)]) ++next;
    if (next == o.target) --copy_length;
  }
  // (Nor has the unwinding of the handler by a return or jump out of the finally body:
  // `[SWAP 2] POP_TOP [SWAP 2] POP_EXCEPT`, the exception and the previous one dropped.)
  for (int k = final_begin + 1; k < final_end; ++k) {
    if (!seen[static_cast<size_t>(k - final_begin)] ||
        ops[static_cast<size_t>(k)].op != Op::PopExcept)
      continue;
    auto is = [&](int at, Op op) {
      return at >= final_begin && ops[static_cast<size_t>(at)].op == op;
    };
    if (is(k - 1, Op::Swap) && is(k - 2, Op::PopTop) && is(k - 3, Op::Swap))
      copy_length -= 4;
    else if (is(k - 1, Op::PopTop))
      copy_length -= 2;
  }
  if (last >= 0 && ops[static_cast<size_t>(last)].op == Op::Reraise &&
      ops[static_cast<size_t>(last)].arg == 0 && last > final_begin)
    --copy_length;
  return copy_length + inlined_return_blocks(final_begin, final_end, seen).extra;
}

// inline_small_exit_blocks (flowgraph.c) in a finally body's two copies: a block returning out
// of the body is, in the handler's copy, longer by the handler's unwinding (`POP_TOP POP_EXCEPT`
// before a constant's return, `SWAP 2; POP_TOP; SWAP 2; POP_EXCEPT` before a value's). Where the
// normal path's block is short enough to copy and the handler's is not, each unconditional jump
// to it in the normal copy holds a copy, where the handler's keeps the jump. The block from `t`
// in the handler's copy: its operations on the normal path (the return last), or {} when it is
// none such.
std::vector<int> CodeDecoder::copied_return_block(int t, int end) const {
  const auto& ops = lifted_.ops;
  auto op_at = [&](int k) { return ops[static_cast<size_t>(k)].op; };
  int ret = t;
  while (ret < end && !is_jump(op_at(ret)) && op_at(ret) != Op::ReturnConst &&
         op_at(ret) != Op::ReturnValue && op_at(ret) != Op::RaiseVarargs &&
         op_at(ret) != Op::Reraise && op_at(ret) != Op::PopExcept)
    ++ret;
  // (Only the unwinding's POP_EXCEPT: a return out of a clause nested in the body unwinds more.)
  if (ret + 1 >= end || ret - 1 < t || op_at(ret) != Op::PopExcept) return {};
  Op closing = op_at(ret + 1);
  bool value = ret - 3 >= t && op_at(ret - 1) == Op::Swap && op_at(ret - 2) == Op::PopTop &&
               op_at(ret - 3) == Op::Swap;
  bool constant = op_at(ret - 1) == Op::PopTop;
  if (!(closing == Op::ReturnConst && constant) && !(closing == Op::ReturnValue && value))
    return {};
  int first_unwound = value ? ret - 3 : ret - 1;
  // (A block ends where a jump lands.)
  for (const Operation& o : ops) {
    if (is_jump(o.op) && o.target > t && o.target <= ret + 1) return {};
  }
  // MAX_COPY_SIZE counts instructions when the pass ran (copies_exit_blocks_after_fusing).
  int count = 0;
  int from = ops[static_cast<size_t>(t)].offset;
  int to = ops[static_cast<size_t>(first_unwound)].offset;
  for (const bytecode::Instruction& in : bytecode::decode_bare_instructions(code_)) {
    if (in.offset < from || in.offset >= to || in.opname == "EXTENDED_ARG") continue;
    bool fused = in.opname == "LOAD_FAST_LOAD_FAST" || in.opname == "STORE_FAST_LOAD_FAST" ||
                 in.opname == "STORE_FAST_STORE_FAST";
    count += fused && !profile_.copies_exit_blocks_after_fusing ? 2 : 1;
  }
  count += closing == Op::ReturnConst && !profile_.copies_exit_blocks_after_fusing ? 2 : 1;
  if (count > kMaxCopySize) return {};
  std::vector<int> block;
  for (int k = t; k < first_unwound; ++k) block.push_back(k);
  block.push_back(ret + 1);
  return block;
}

// The blocks of the finally body's handler copy [final_begin, final_end) (`seen`: what it
// reaches without raising) that the normal copy copies into its jumps (copied_return_block), and
// how much longer that makes the normal copy than the handler's count.
CodeDecoder::InlinedReturns CodeDecoder::inlined_return_blocks(
    int final_begin, int final_end, const std::vector<bool>& seen) const {
  const auto& ops = lifted_.ops;
  auto reached = [&](int k) {
    return k >= final_begin && k < final_end && seen[static_cast<size_t>(k - final_begin)];
  };
  InlinedReturns found;
  std::map<int, int> jumps;  // block start -> unconditional jumps to it
  for (int k = final_begin; k < final_end; ++k) {
    const Operation& o = ops[static_cast<size_t>(k)];
    if (!reached(k) || o.op != Op::Jump || o.target <= k || !reached(o.target)) continue;
    std::vector<int> block = copied_return_block(o.target, final_end);
    if (block.empty()) continue;
    // (The jump: counted one, or none where it only steps over an inline handler block.)
    int next = k + 1;
    while (next < final_end && !reached(next)) ++next;
    found.extra += static_cast<int>(block.size()) - (next == o.target ? 0 : 1);
    ++jumps[o.target];
  }
  for (const auto& [t, count] : jumps) {
    std::vector<int> block = copied_return_block(t, final_end);
    // (The original stays where anything else goes to it.)
    bool kept = reached(t - 1) && falls_through(ops[static_cast<size_t>(t) - 1].op);
    for (int k = final_begin; k < final_end && !kept; ++k) {
      const Operation& o = ops[static_cast<size_t>(k)];
      kept = reached(k) && is_jump(o.op) && o.target == t && o.op != Op::Jump;
    }
    if (!kept) found.extra -= static_cast<int>(block.size());
    found.blocks.push_back({std::move(block), count + (kept ? 1 : 0)});
  }
  return found;
}

// Where the normal-path copy of the finally body ends, after the body ending at `body_end`.
int CodeDecoder::finally_normal_end(int i, int body_end, int handler, int final_end,
                                    bool mid_expression) {
  const auto& ops = lifted_.ops;
  int final_begin = handler + 1;
  int cleanup = flow_.handler_covering(handler);
  int copy_length = finally_copy_length(final_begin, final_end, normal_copy_is_cold(body_end));
  int normal_end = body_end + copy_length;
  // 3.12: a test of the finally body jumping to its end goes, on the normal path, to the code
  // after the statement; where that is a loop's jump back, the test is inverted over a copy of
  // the jump back (no conditional jump goes backward): one operation more for each.
  if (profile_.inverts_tests_to_jump_back && !loops_.empty() && !mid_expression) {
    int head = resolve(loops_.back().continue_target);
    auto jumps_back = [&](int k) {
      return k < handler && ops[static_cast<size_t>(k)].op == Op::Jump &&
             ops[static_cast<size_t>(k)].target < i &&
             resolve(ops[static_cast<size_t>(k)].target) == head;
    };
    int to_end = 0;
    for (int k = final_begin; k < final_end; ++k) {
      const Operation& o = ops[static_cast<size_t>(k)];
      to_end += o.op == Op::JumpIf &&
                (o.target == final_end || reraise_copy_of_test(o.target, final_begin, cleanup));
    }
    if (to_end > 0 && !jumps_back(normal_end) && jumps_back(normal_end + to_end))
      normal_end += to_end;
  }
  // 3.11: the exit block after the statement, when it has no line (the implicit `return None`),
  // is copied into each branch of the normal-path copy that re-raises in the handler's copy (the
  // last branch falls into the original): the copy is longer by those. Walked in step with the
  // handler's copy, each of its RERAISEs matching a jump, a copy of that block, or nothing (the
  // last operation, falling through).
  // 3.12+ copies any short exit block after the statement so (inline_small_exit_blocks), its
  // line or not.
  if (profile_.copies_exit_blocks && !mid_expression) {
    if (int walked = normal_copy_end(body_end, final_begin, final_end, cleanup); walked >= 0)
      normal_end = walked;
  }
  // 3.13: where a loop's jump back follows the statement, inline_small_or_no_lineno_blocks
  // copies it (no line) into each way there: the copy's fall-off gets one, and a test of the
  // copy jumping to its end gets another, placed after it. The jump back the copy falls into
  // goes where the test's goes: the statement ends at the test's.
  if (profile_.inlines_no_lineno_blocks && !loops_.empty() && !mid_expression) {
    int head = resolve(loops_.back().continue_target);
    auto jumps_back = [&](int k) {
      return k < handler && ops[static_cast<size_t>(k)].op == Op::Jump &&
             ops[static_cast<size_t>(k)].target < i &&
             resolve(ops[static_cast<size_t>(k)].target) == head;
    };
    auto tested = [&](int k) {
      for (int t = body_end; t < normal_end; ++t) {
        const Operation& o = ops[static_cast<size_t>(t)];
        if (o.op == Op::JumpIf && o.target == k) return true;
      }
      return false;
    };
    while (jumps_back(normal_end) && jumps_back(normal_end + 1) && tested(normal_end + 1))
      ++normal_end;
  }
  return normal_end;
}

// Where the try/finally statement ends, its normal-path copy ending at `normal_end`.
// 3.11: whether the `return K` after the normal-path finally copy ending at `normal_end` is the
// try body's own: compiler_return marks the return's line with a NOP before unwinding (the copy,
// compiler_unwind_fblock_stack), then loads the constant, which continues the copy's last line;
// a return written after the statement starts a line of its own. Nothing else may jump to it (a
// return inside the body would drop those paths' way there).
bool CodeDecoder::constant_return_after_copy(int i, int body_end, int normal_end) const {
  const auto& ops = lifted_.ops;
  int size = static_cast<int>(ops.size());
  if (profile_.block_stack || profile_.returns_constants || body_end <= i ||
      normal_end <= body_end || normal_end + 2 > size ||
      ops[static_cast<size_t>(body_end)].nop_line < 0)
    return false;
  const Operation& load = ops[static_cast<size_t>(normal_end)];
  if (load.op != Op::LoadConst || load.line >= 0 || !load.constant ||
      ops[static_cast<size_t>(normal_end) + 1].op != Op::ReturnValue)
    return false;
  for (const Operation& op : ops) {
    if (is_jump(op.op) && op.target == normal_end) return false;
  }
  return true;
}

int CodeDecoder::finally_try_end(int i, int body_end, int normal_end, int handler, int cleanup,
                                 bool mid_expression) const {
  const auto& ops = lifted_.ops;
  int try_end = cleanup + 3;
  // A body that never falls off its end (it raises or returns, or ends in a loop's jump back
  // to a head inside it, and no jump of it goes past its end) has no normal-path copy of the
  // finally body (compiler_try_finally emits it only where the body's end is reachable).
  const Operation* last = body_end > i ? &ops[static_cast<size_t>(body_end) - 1] : nullptr;
  bool jumps_back = last && last->op == Op::Jump && last->target >= i && last->target < body_end;
  bool falls_through =
      !last || !(last->op == Op::RaiseVarargs || last->op == Op::Reraise ||
                 last->op == Op::ReturnValue || last->op == Op::ReturnConst || jumps_back);
  for (int k = i; !falls_through && k < body_end; ++k) {
    const Operation& o = ops[static_cast<size_t>(k)];
    falls_through = is_jump(o.op) && o.target >= body_end;
  }
  if (profile_.cold_blocks_at_end && !falls_through && !mid_expression) {
    try_end = body_end;
  } else if (normal_end < handler && ops[static_cast<size_t>(normal_end)].op == Op::Jump &&
             ops[static_cast<size_t>(normal_end)].target > handler) {
    try_end = ops[static_cast<size_t>(normal_end)].target;
  } else if (normal_end < handler) {
    try_end = normal_end;  // the handler is placed after the function's code (3.12+)
  }
  return try_end;
}

// A try/except nested in the body as a statement of its own starts a line of its own: the
// NOPs of both `try:` lines precede the body (one try/except/finally statement has one; the
// lifted operations have no NOPs).
bool CodeDecoder::nested_try_separate(int i, const Body& body) const {
  const auto& ops = lifted_.ops;
  bool separate = false;
  if (body.size() == 1 && body[0]->kind == StmtKind::Try && !body[0]->handlers.empty()) {
    std::vector<bytecode::Instruction> all = bytecode::decode_bare_instructions(code_);
    size_t at = 0;
    while (at < all.size() && all[at].offset != ops[static_cast<size_t>(i)].offset) ++at;
    auto line_nop = [&](size_t k) { return all[k].opname == "NOP" && all[k].line >= 0; };
    separate = at >= 2 && at < all.size() && line_nop(at - 1) && line_nop(at - 2) &&
               all[at - 2].line < all[at - 1].line;
  }
  return separate;
}

// Where the finally body's handler copy after `handler` ends: its closing RERAISE, before the
// cleanup block; or, where the body ends in a loop that only a `break` leaves (`while True:`),
// the cleanup block itself: the loop's jump back comes last, and the RERAISE the break goes to
// was copied into its place (3.11+: the short exit block inlined, flowgraph.c; 3.10:
// compile.c's extend_block). -1 where the handler is not so.
int CodeDecoder::finally_body_end(int handler, int cleanup) const {
  const auto& ops = lifted_.ops;
  if (!is_cleanup_block(ops, cleanup) || cleanup <= handler + 1) return -1;
  const Operation& last = ops[static_cast<size_t>(cleanup) - 1];
  if (last.op == Op::Reraise) return cleanup - 1;
  // (A body ending in a raise: compiler_try_finally's closing RERAISE after it is unreachable,
  // removed; the body runs up to the cleanup block.)
  if (last.op == Op::RaiseVarargs) return cleanup;
  if (last.op != Op::Jump || last.target <= handler || last.target >= cleanup - 1) return -1;
  for (int k = handler + 1; k < cleanup; ++k) {
    const Operation& o = ops[static_cast<size_t>(k)];
    if (o.op == Op::Reraise && o.arg == 0 && flow_.handler_covering(k) == cleanup) return cleanup;
  }
  return -1;
}

// A finally body ending in a loop that only breaks leave (finally_body_end at the cleanup
// block): the normal-path copy (from `body_end`, about `normal_end`) ends in the loop's jump
// back, and its breaks go to the code after the statement, which nothing falls into; where
// short, each break holds a copy of it (inline_small_exit_blocks) and no original is left. The
// copy is never decoded, so those copies are read only where they are the implicit `return
// None` of code the statement ends (only handler code after the copy); a jump to the code after
// reads as any break. False where a return of the copy is anything else.
bool CodeDecoder::loop_breaks_return_none(int body_end, int normal_end, int handler,
                                          int cleanup) const {
  const auto& ops = lifted_.ops;
  int size = static_cast<int>(ops.size());
  auto none = [&](int k) {
    const Operation& o = ops[static_cast<size_t>(k)];
    return o.constant && o.constant->kind == bytecode::ObjectKind::None;
  };
  // (The copy's jump back: the first after its counted end, where a break's copy is longer than
  // the RERAISE it stands for. An earlier one leaves the rest reachable: refused below.)
  int copy_end = -1;
  for (int k = std::max(normal_end - 1, body_end); k < handler && copy_end < 0; ++k) {
    const Operation& o = ops[static_cast<size_t>(k)];
    if (o.op == Op::Jump && o.target < k && o.target >= body_end) copy_end = k + 1;
  }
  if (copy_end < 0) return false;
  bool returns = false;
  for (int k = body_end; k < copy_end; ++k) {
    const Operation& o = ops[static_cast<size_t>(k)];
    if (!flow_.reachable[static_cast<size_t>(k)]) continue;
    if (o.op == Op::ReturnConst && !none(k)) return false;
    if (o.op == Op::ReturnValue &&
        (k == body_end || ops[static_cast<size_t>(k) - 1].op != Op::LoadConst || !none(k - 1)))
      return false;
    returns |= o.op == Op::ReturnConst || o.op == Op::ReturnValue;
  }
  for (int k = copy_end; returns && k < size; ++k) {
    bool handler_code = k >= handler && k < cleanup + 3;
    if (!handler_code && flow_.reachable[static_cast<size_t>(k)]) return false;
  }
  return true;
}

// 3.12+: whether the normal-path copy ending at `normal_end` was counted short: it ends in a
// return while the code after it repeats the finally body's last statement, the one before the
// handler's closing RERAISE. (inline_small_exit_blocks copies a short return block into the
// normal copy's branch where the handler's copy, unwinding first, jumps to its own:
// cold_finally_copy_length does not count that copy.)
bool CodeDecoder::normal_copy_counted_short(int normal_end, int final_begin, int final_end) const {
  const auto& ops = lifted_.ops;
  int size = static_cast<int>(ops.size());
  if (normal_end < 1 || normal_end >= size || final_end <= final_begin || final_end >= size)
    return false;
  Op copy_last = ops[static_cast<size_t>(normal_end) - 1].op;
  const Operation& closing = ops[static_cast<size_t>(final_end)];
  if ((copy_last != Op::ReturnConst && copy_last != Op::ReturnValue) || closing.op != Op::Reraise ||
      closing.arg != 0 || ops[static_cast<size_t>(final_end) - 1].op != Op::PopTop)
    return false;
  // The last statement: an expression statement, back to the operation that ends the one before.
  int start = final_end - 1;
  while (start > final_begin) {
    Op op = ops[static_cast<size_t>(start) - 1].op;
    if (op == Op::PopTop || op == Op::StoreName || op == Op::StoreAttr || op == Op::StoreSubscr ||
        op == Op::ReturnConst || op == Op::ReturnValue || is_jump(op) || op == Op::PopExcept ||
        op == Op::Reraise || op == Op::RaiseVarargs)
      break;
    --start;
  }
  int length = final_end - start;
  return length > 1 && normal_end + length <= size &&
         same_operations(ops, normal_end, start, length);
}

int CodeDecoder::decode_try_finally(int i, int body_end, int handler, int end, int exit) {
  const auto& ops = lifted_.ops;
  int cleanup = flow_.handler_covering(handler);
  int final_end = finally_body_end(handler, cleanup);
  if (final_end < 0) throw DecodeFailure("finally handler without its cleanup");
  bool mid_expression = mid_expression_try_;
  mid_expression_try_ = false;
  keep_region_stack_ = mid_expression;
  Body body;
  {
    Restore<int> enclosing(enclosing_finally_);
    ++enclosing_finally_;
    body = mid_expression ? decode_range(i, body_end, body_end)
                          : decode_range_extending(i, &body_end, handler, body_end);
  }
  int final_begin = handler + 1;
  int normal_end = finally_normal_end(i, body_end, handler, final_end, mid_expression);
  if (profile_.cold_blocks_at_end && normal_copy_counted_short(normal_end, final_begin, final_end))
    throw DecodeFailure("finally copy counted short");
  int try_end = finally_try_end(i, body_end, normal_end, handler, cleanup, mid_expression);
  // (No normal copy where the body never falls off its end.)
  if (profile_.cold_blocks_at_end && !mid_expression && try_end != body_end &&
      !normal_copy_is_cold(body_end) && normal_end <= handler &&
      !normal_copy_agrees(body_end, normal_end, final_begin, final_end))
    throw DecodeFailure("finally copy counted short");
  if (try_end > end && resolve(try_end) != resolve(exit))
    throw DecodeFailure("try statement leaves its region");
  if (final_end == cleanup && ops[static_cast<size_t>(cleanup) - 1].op == Op::Jump &&
      !loop_breaks_return_none(body_end, normal_end, handler, cleanup))
    throw DecodeFailure("finally loop's breaks run the code after it");
  // The normal-path copy is never decoded: neither are the handler blocks of the statements in it.
  if (profile_.cold_blocks_at_end && try_end != body_end && normal_end <= handler)
    consume_copy_handlers(body_end, normal_end);
  std::vector<ExprPtr> saved_stack = stack_;
  size_t saved_depth = statement_depth_;
  push(make_expr(ExprKind::Internal, {}, "prev_exc"));
  push(make_expr(ExprKind::Internal, {}, "exc"));
  statement_depth_ = stack_.size();
  Body final_body = decode_finally_body(final_begin, final_end, cleanup);
  mark_consumed(handler, cleanup + 3);
  stack_ = saved_stack;
  statement_depth_ = saved_depth;
  // A body that decoded to nothing although it computes something lost its operations.
  for (int k = i; body.empty() && !mid_expression && k < body_end; ++k) {
    if (ops[static_cast<size_t>(k)].op != Op::Nop) throw DecodeFailure("try/finally body lost");
  }
  // 3.11+: with a return after the statement, its normal-path finally copy can end the body,
  // the return copied into each branch of it.
  StmtPtr after =
      profile_.copies_exit_blocks && !final_body.empty()
          ? strip_normal_copy_with_returns(body, print_body(final_body), final_body.size())
          : nullptr;
  if (!strip_finally_copies(body, print_body(final_body), final_body.size(), false, 0,
                            enclosing_finally_ > 0)) {
    // (A copy whose and-chain was read as nested ifs, its tests jumping to copies of the exit on
    // their own lines, where the finally body's tests jump to one end: read again, see
    // chains_apart_by_lines_.)
    copy_unmatched_apart_ |= read_chain_apart_;
    throw DecodeFailure("finally copy on an exit path");
  }
  // (`try: return value`: the value, computed before the copy, waited in a temporary.)
  if (after && after->exprs.size() == 1 && !body.empty() &&
      is_spill_of(body.back(), after->exprs[0])) {
    body.back() = make_stmt(StmtKind::Return, {body.back()->exprs[1]});
    after = nullptr;
  }
  // Nothing follows the statement: a `return None` ending the body is the code's own final return,
  // copied there (3.12+).
  if (try_end >= static_cast<int>(ops.size()) && body.size() == 2 && is_return_none(body[1]))
    body.pop_back();
  if (!mid_expression && try_end == normal_end &&
      constant_return_after_copy(i, body_end, normal_end)) {
    const Operation& load = ops[static_cast<size_t>(normal_end)];
    body.push_back(make_stmt(StmtKind::Return, {constant(load.constant)}));
    body.back()->copies_after = true;
    body.back()->new_line = true;
    body.back()->line = ops[static_cast<size_t>(body_end)].nop_line;
    mark_consumed(normal_end, normal_end + 2);
    try_end = normal_end + 2;
  }
  // A try/except nested in the body as a statement of its own starts a line of its own.
  bool separate = nested_try_separate(i, body);
  emit_try_finally(std::move(body), std::move(final_body), separate);
  if (after) emit(after);  // (the code's final `return None` goes with the other ones)
  return try_end > end ? end : try_end;
}

// 3.12+ places the handler blocks of the statements in [begin, end) after the code: when that
// code is a copy nobody decodes (a finally body's normal-path copy), they are consumed with it.
// A block is what its handler reaches without raising, outside the normally reachable code (a
// suppressing with jumps back into it), with its cleanup block; the handler blocks of statements
// inside those blocks go too.
void CodeDecoder::consume_copy_handlers(int begin, int end) {
  const auto& ops = lifted_.ops;
  int size = static_cast<int>(ops.size());
  std::vector<bool> taken(ops.size(), false);
  for (int k = begin; k < end && k < size; ++k) taken[static_cast<size_t>(k)] = true;
  for (bool grew = true; grew;) {
    grew = false;
    for (const HandlerRegion& region : flow_.regions) {
      int target = region.target;
      if (target < end || target >= size || taken[static_cast<size_t>(target)] ||
          flow_.reachable[static_cast<size_t>(target)]) {
        continue;
      }
      // (Every operation it covers lies in the copy or in blocks consumed with it.)
      bool inside = false;
      for (const Handler& row : flow_.rows) {
        if (row.target != target) continue;
        inside = true;
        for (int k = row.start; k < row.end && inside; ++k) inside = taken[static_cast<size_t>(k)];
        if (!inside) break;
      }
      if (!inside) continue;
      std::vector<int> work{target};
      while (!work.empty()) {
        int k = work.back();
        work.pop_back();
        if (k < end || k >= size || taken[static_cast<size_t>(k)] ||
            flow_.reachable[static_cast<size_t>(k)]) {
          continue;
        }
        taken[static_cast<size_t>(k)] = true;
        consumed_[static_cast<size_t>(k)] = true;
        const Operation& o = ops[static_cast<size_t>(k)];
        if (o.target >= 0) work.push_back(o.target);
        if (falls_through(o.op)) work.push_back(k + 1);
        int covering = flow_.handler_covering(k);
        if (is_cleanup_block(ops, covering)) {
          for (int c = covering; c < covering + 3; ++c) {
            taken[static_cast<size_t>(c)] = true;
            consumed_[static_cast<size_t>(c)] = true;
          }
        }
      }
      grew = true;
    }
  }
}

// normal_copy_end's walk: the copy at `copy` against the finally body [final_begin, final_end),
// each branch's end (a RERAISE, or a jump to the closing one) matched by a jump or a copied exit
// block, recorded in `tails`. Where the copy ends; -1 where it does not match.
int CodeDecoder::walk_normal_copy(int copy, int final_begin, int final_end, int cleanup,
                                  std::vector<std::pair<int, int>>& tails) {
  const auto& ops = lifted_.ops;
  int size = static_cast<int>(ops.size());
  int q = copy;
  std::vector<bool> own = nested_own_reraises(final_begin, final_end);
  for (int p = final_begin; p < final_end; ++p) {
    if (q >= size) return -1;
    const Operation& x = ops[static_cast<size_t>(p)];
    const Operation& y = ops[static_cast<size_t>(q)];
    // (A RERAISE, or a jump to the closing one, that ends a branch.)
    bool leaves =
        x.op == Op::Reraise && x.arg == 0 && (cleanup < 0 || flow_.handler_covering(p) == cleanup);
    leaves &= own.empty() || !own[static_cast<size_t>(p - final_begin)];
    leaves |= x.op == Op::Jump && x.target == final_end && y.op != Op::Jump &&
              ops[static_cast<size_t>(final_end)].op == Op::Reraise;
    if (leaves) {
      // (A RERAISE copied for a test: on the normal path the test jumps to the code after the
      // statement, copied for it where that is an exit block without a line, else nothing.)
      bool test_copy = reraise_copy_of_test(p, final_begin, cleanup);
      if (y.op == Op::Jump && !test_copy) {
        ++q;
        continue;
      }
      int length = copied_tail_length(q);
      if (length > 0 && (ops[static_cast<size_t>(q + length) - 1].op == Op::ReturnValue ||
                         ops[static_cast<size_t>(q + length) - 1].op == Op::ReturnConst)) {
        tails.emplace_back(q, length);
        q += length;
        continue;
      }
      // (The last branch falls through, copies for tests after it.)
      int rest = p + 1;
      while (rest < final_end && reraise_copy_of_test(rest, final_begin, cleanup)) ++rest;
      if (test_copy || rest == final_end) continue;
      return -1;
    }
    // (A jump's or a nested SETUP_*'s relative argument differs where the copies' exits do; so
    // does 3.10's JUMP_IF_NOT_EXC_MATCH's, which the type test keeps.)
    bool relative = is_jump(x.op) || x.op == Op::SetupFinally || x.op == Op::SetupWith ||
                    x.op == Op::CheckExcMatch;
    if (x.op != y.op || x.text != y.text || (!relative && x.arg != y.arg) ||
        x.constant != y.constant || (cleanup >= 0 && flow_.handler_covering(q) == cleanup)) {
      return -1;
    }
    ++q;
  }
  return q;
}

// 3.10: whether the copy's branches end in copies of one exit block that returns a value it
// loads (compile.c's extend_block copies it into each; the original, reached by nothing more, is
// dropped): the code after the statement, which ends the code. Not a `return value` of the body:
// compiler_return loads a computed value before the finally copy, and a constant's (loaded
// after it) reads the same either way.
bool CodeDecoder::copied_exit_only(const std::vector<std::pair<int, int>>& tails) const {
  const auto& ops = lifted_.ops;
  if (!profile_.block_stack || tails.empty()) return false;
  const int first = tails.front().first;
  const int length = tails.front().second;
  if (length < 2 || ops[static_cast<size_t>(first + length) - 1].op != Op::ReturnValue)
    return false;
  for (int k = first; k < first + length - 1; ++k) {
    Op op = ops[static_cast<size_t>(k)].op;
    if (is_jump(op) || op == Op::ReturnValue || op == Op::RaiseVarargs || op == Op::Reraise ||
        op == Op::SetupFinally || op == Op::SetupWith || op == Op::PopBlock || op == Op::PopExcept)
      return false;
  }
  return std::all_of(tails.begin(), tails.end(), [&](const std::pair<int, int>& tail) {
    return tail.second == length && same_operations(ops, tail.first, first, length);
  });
}

// 3.10+: where the normal-path copy of the finally body [final_begin, final_end) starting at
// `copy` ends, when some of its branches end in copies of the exit block that follows it (each in
// place of a RERAISE of the handler's copy); -1 when it has none, or does not match.
int CodeDecoder::normal_copy_end(int copy, int final_begin, int final_end, int cleanup) {
  const auto& ops = lifted_.ops;
  int size = static_cast<int>(ops.size());
  std::vector<std::pair<int, int>> tails;  // (start, length) of each copied exit block
  int q = walk_normal_copy(copy, final_begin, final_end, cleanup, tails);
  if (q < 0 || tails.empty()) return -1;
  // (3.10: every branch of the copy returns the value the body left waiting, a bare RETURN_VALUE:
  // no original of the return follows, the copy runs up to the handler.)
  copy_returns_ = q == final_begin && cleanup < 0;
  for (const auto& [start, length] : tails) copy_returns_ &= length == 1;
  if (copy_returns_) return q;
  if (q == final_begin && copied_exit_only(tails)) {
    copied_exit_ = tails.front();
    return q;
  }
  // (3.11: a copy ending in a loop that only its breaks leave, `while True:`, ends in its jump
  // back, and no original follows where nothing falls into it: the statement ends the code, each
  // break a copy of the implicit `return None` (the block copied has no line of its own). 3.12+
  // reads such a copy's length from what its handler reaches, cold_finally_copy_length. 3.10:
  // the copy runs up to the handler, which ends the code, its closing RERAISE dropped:
  // loop_ends_finally_body.)
  const Operation& last = ops[static_cast<size_t>(q) - 1];
  bool ends_code = cleanup >= 0
                       ? cleanup + 3 == size
                       : q == final_begin && final_end == size && dropped_closing(final_end);
  if (!profile_.cold_blocks_at_end && q > copy && last.op == Op::Jump && last.target >= copy &&
      last.target < q - 1 && ends_code) {
    auto none = [&](int k) {
      const Operation& o = ops[static_cast<size_t>(k)];
      return o.constant && o.constant->kind == bytecode::ObjectKind::None;
    };
    for (const auto& [start, length] : tails) {
      const Operation& first = ops[static_cast<size_t>(start)];
      bool returns_none = (length == 1 && first.op == Op::ReturnConst && none(start)) ||
                          (length == 2 && first.op == Op::LoadConst && none(start) &&
                           ops[static_cast<size_t>(start) + 1].op == Op::ReturnValue);
      if (!returns_none) return -1;
    }
    return q;
  }
  // (Each copy repeats the block that follows the copy: the code after the statement. A copy's
  // line is the one its predecessor had, where the block had one predecessor once copied.)
  for (const auto& [start, length] : tails) {
    if (!same_operations(ops, start, q, length)) return -1;
  }
  // The last branch falls into a copy too where a test of the copy jumps to the original, after
  // it: the original is no statement of its own.
  int length = tails.front().second;
  for (int next = q + length; same_operations(ops, q, next, length); next += length) {
    bool jumped_to = false;
    for (int k = copy; k < q && !jumped_to; ++k)
      jumped_to =
          is_jump(ops[static_cast<size_t>(k)].op) && ops[static_cast<size_t>(k)].target == next;
    if (!jumped_to) break;
    mark_consumed(next, next + length);
  }
  return q;
}

// A finally body [begin, end) whose branches end in copies of its closing RERAISE: while it is
// decoded, each such RERAISE (not already part of a decoded statement) means "to the end of the
// body", a jump there.
Body CodeDecoder::decode_finally_body(int begin, int end, int cleanup) {
  std::vector<std::pair<int, Operation>> rewritten;
  std::vector<bool> own = nested_own_reraises(begin, end);
  for (int k = begin; k < end; ++k) {
    Operation& op = lifted_.ops[static_cast<size_t>(k)];
    if (op.op != Op::Reraise || op.arg != 0 || consumed_[static_cast<size_t>(k)]) continue;
    if (!own.empty() && own[static_cast<size_t>(k - begin)]) continue;
    // (3.11+: not a RERAISE of a try nested in the finally body, under a handler of its own.)
    if (cleanup >= 0 && flow_.handler_covering(k) != cleanup) continue;
    rewritten.emplace_back(k, op);
    op.op = Op::Jump;
    op.target = end;
  }
  std::vector<int> copies = consume_reraise_copies(rewritten);
  struct RestoreOps {
    std::vector<Operation>& ops;
    const std::vector<std::pair<int, Operation>>& saved;
    std::vector<bool>& consumed;
    const std::vector<int>& copies;
    ~RestoreOps() {
      for (const auto& [k, op] : saved) ops[static_cast<size_t>(k)] = op;
      if (std::uncaught_exceptions() == 0) return;  // (a failed reading leaves them to the next)
      for (int k : copies) consumed[static_cast<size_t>(k)] = false;
    }
  } restore_ops{lifted_.ops, rewritten, consumed_, copies};
  Restore<int> keep_end(finally_body_end_);
  finally_body_end_ = end;
  Body body = decode_range(begin, end, end);
  if (!rewritten.empty()) hoist_common_tail(body);
  return body;
}

// duplicate_exits_without_lineno (flowgraph.c; 3.10/3.11 compile.c): each test jumping to the
// finally body's closing RERAISE (`if a and b:` ending the handler copy) goes to a copy of it of
// its own, laid after the original, where nothing falls in. Such a copy, already a jump to the
// body's end (decode_finally_body), is read only through its jumps: consumed, so that no
// statement after the if reads it. The copies consumed are returned.
std::vector<int> CodeDecoder::consume_reraise_copies(
    const std::vector<std::pair<int, Operation>>& rewritten) {
  std::vector<int> copies;
  for (const auto& [copy, original] : rewritten) {
    if (copy == 0 || falls_through(lifted_.ops[static_cast<size_t>(copy) - 1].op)) continue;
    mark_consumed(copy, copy + 1);
    copies.push_back(copy);
  }
  return copies;
}

// try/finally; try/except/finally when the body is a try/except statement alone.
// (`separate`: the try/except has a line of its own, another statement.)
void CodeDecoder::emit_try_finally(Body body, Body final_body, bool separate) {
  if (final_body.empty()) final_body.push_back(make_stmt(StmtKind::Pass));  // `finally: pass`
  if (!separate && body.size() == 1 && body[0]->kind == StmtKind::Try &&
      body[0]->bodies[2].empty() && !body[0]->handlers.empty()) {
    StmtPtr merged = body[0];
    merged->bodies[2] = std::move(final_body);
    emit(merged);
  } else {
    emit(make_stmt(StmtKind::Try, {}, {std::move(body), {}, std::move(final_body)}));
  }
}

// The length of the short run of operations from `k` that ends in a return or raise without a
// jump (a tail the compiler may copy), or 0 (normalize.hpp's exit_run).
int CodeDecoder::copied_tail_length(int k) const {
  if (k < 0 || static_cast<size_t>(k) >= normalized_.exit_run.size()) return 0;
  return normalized_.exit_run[static_cast<size_t>(k)];
}

// copied_tail_length, or where `k` starts an except clause's way out, POP_EXCEPT then such a
// run, the length of both: the compiler copies a short exit block into the blocks that jump to
// it (3.11's extend_block, any of at most 4 instructions; 3.12+ where it has no line number),
// and a clause's `POP_EXCEPT; JUMP end` whose end is such a return becomes one itself.
// (3.11: only the clause's way out, which the with body cannot hold; a plain copied return
// reads as the body's own `return`, which compiles alike.)
int CodeDecoder::copied_exit_length(int k) const {
  bool clause_exit = static_cast<size_t>(k) < lifted_.ops.size() &&
                     lifted_.ops[static_cast<size_t>(k)].op == Op::PopExcept;
  if (!profile_.copies_exit_blocks || (!profile_.exit_copies_keep_lines && !clause_exit)) return 0;
  int length = copied_tail_length(clause_exit ? k + 1 : k);
  return length > 0 && clause_exit ? length + 1 : length;
}

// The with statement's exit handler (PUSH_EXC_INFO; WITH_EXCEPT_START; POP_JUMP_IF_TRUE) and
// the ends read off it before the suppressed path is looked at.
CodeDecoder::WithShape CodeDecoder::with_shape(int i) const {
  const auto& ops = lifted_.ops;
  int handler = flow_.handler_covering(i + 1);
  const HandlerRegion* region = handler < 0 ? nullptr : flow_.region_for_target(handler);
  if (!region || static_cast<size_t>(handler) + 2 >= ops.size() ||
      ops[static_cast<size_t>(handler)].op != Op::PushExcInfo ||
      ops[static_cast<size_t>(handler) + 1].op != Op::WithExceptStart ||
      ops[static_cast<size_t>(handler) + 2].op != Op::JumpIf) {
    throw DecodeFailure("with statement without its exit handler");
  }
  const Operation& before_handler = ops[static_cast<size_t>(handler) - 1];
  WithShape shape;
  shape.handler = handler;
  shape.jumps_over = before_handler.op == Op::Jump && before_handler.target > handler;
  shape.body_end = shape.jumps_over ? handler - 1 : handler;
  shape.reraise_target = ops[static_cast<size_t>(handler) + 2].target;
  shape.with_end = shape.jumps_over ? before_handler.target : shape.reraise_target + 4;
  shape.cleanup = flow_.handler_covering(handler);
  return shape;
}

// 3.12+: the handler sits after the function's code, and the suppressed path jumps back to the
// join, or goes on elsewhere (a loop's next iteration, a copy of the code after the statement).
void CodeDecoder::read_with_suppressed_path(int i, int end, int exit, int normal_end,
                                            WithShape& shape) {
  const auto& ops = lifted_.ops;
  int reraise_target = shape.reraise_target;
  const Operation& back = ops[static_cast<size_t>(reraise_target) + 4];
  if (back.op == Op::Jump && back.target > i && back.target < shape.handler) {
    // (A join past the region, which the statement ends (an if's then-branch, whose jump
    // over the else follows): the body ends with the region.)
    shape.body_end = back.target > end && same_target(back.target, exit) ? end : back.target;
    shape.with_end = back.target;
    mark_consumed(reraise_target, reraise_target + 5);
  } else if (back.op == Op::Jump && back.target > reraise_target + 4) {
    // The body never falls through (it returns): only a suppressed exception reaches the code
    // after the statement, jumping over the cleanup.
    shape.with_end = back.target;
    mark_consumed(reraise_target, reraise_target + 5);
  } else if (back.op == Op::Jump && back.target < i && !loops_.empty() &&
             same_target(back.target, loops_.back().continue_target)) {
    // The statement ends a loop body: the suppressed path goes on with the next iteration,
    // as the body's normal path does: the statement ends with its region. (Where the region
    // ends with a jump back after the body's exit call, that jump is not the statement's: it
    // ends an if's then-branch that the statement ends, going on to the loop's end.)
    shape.body_end = std::min(shape.body_end, end);
    int last = shape.body_end - 1;
    if (last - 5 > i && ops[static_cast<size_t>(last)].op == Op::Jump &&
        same_target(ops[static_cast<size_t>(last)].target, back.target) &&
        is_exit_call(ops, last - 5)) {
      shape.body_end = last;
    }
    shape.with_end = shape.body_end;
    shape.body_exit = back.target;
    mark_consumed(reraise_target, reraise_target + 5);
  } else if (back.op == Op::ReturnConst && reraise_target + 4 >= end &&
             suppressed_return_goes_on(exit, reraise_target + 4)) {
    // The code after the statement is a return, copied to the end of the suppressed path
    // (and of the body's normal path): the statement ends with its region.
    shape.body_end = std::min(shape.body_end, end);
    shape.with_end = shape.body_end;
    returns_after_ = true;
    mark_consumed(reraise_target, reraise_target + 5);
  } else if (returned_value_copy(i, normal_end, shape)) {
    read_with_exit_copy_before_handler(i, end, 1, normal_end, shape);
  } else if (int length = copied_exit_length(reraise_target + 4);
             length > 0 && normal_end - length > i + 1 &&
             (normal_end - length <= end || same_target(normal_end - length, exit)) &&
             same_operations(ops, normal_end - length, reraise_target + 4, length)) {
    read_with_exit_copy_before_handler(i, end, length, normal_end, shape);
  } else if (length > 0) {
    read_with_exit_copy_after_exit_call(i, length, shape);
  }
}

// 3.12+: whether the return copied to the end of a with statement's suppressed path (at `copy`)
// is the code where the statement's region goes on (`exit`): that return itself, or the
// function's implicit `return None` where no code follows (copied everywhere, the original gone).
// (Not where an if's then-branch ends in the statement, its body returning: no jump over the
// else is left, and the else at the label is not the code after the statement.)
bool CodeDecoder::suppressed_return_goes_on(int exit, int copy) const {
  const auto& ops = lifted_.ops;
  int at = resolve(exit);
  if (same_operations(ops, at, copy, 1)) return true;
  const Operation& o = ops[static_cast<size_t>(copy)];
  if (role_ == CodeRole::Module || !o.constant || o.constant->kind != bytecode::ObjectKind::None)
    return false;
  for (int k = std::max(at, 0); k < static_cast<int>(ops.size()); ++k) {
    if (flow_.reachable[static_cast<size_t>(k)]) return false;
  }
  return true;
}

// 3.11: a with statement in a finally body's copy on a return's way out
// (compiler_unwind_fblock_stack keeps the returned value on the stack under it): the code after
// the statement is that return's bare RETURN_VALUE, and extend_block (compile.c) copies it, an
// exit block, after the body's exit call in place of the jump to it. (Not the body's own
// return, which swaps its value under the exit first: SWAP 2 before the exit call.)
bool CodeDecoder::returned_value_copy(int i, int normal_end, const WithShape& shape) const {
  const auto& ops = lifted_.ops;
  if (!profile_.copies_exit_blocks || profile_.exit_copies_keep_lines) return false;
  int copy = normal_end - 1;
  return ops[static_cast<size_t>(shape.reraise_target) + 4].op == Op::ReturnValue && copy - 6 > i &&
         ops[static_cast<size_t>(copy)].op == Op::ReturnValue && is_exit_call(ops, copy - 5) &&
         ops[static_cast<size_t>(copy) - 6].op != Op::Swap;
}

// The code after the statement, short and ending in a return or raise, copied to the end
// of the suppressed path; the body's normal path falls into it, just before the handler
// (and the handlers of statements in the body, placed before it). (Not a copy past the
// statement's region: another branch's, an else after an if's then-branch ending in the
// statement, all of whose branches got a copy of the code after the if.)
void CodeDecoder::read_with_exit_copy_before_handler(int i, int end, int length, int normal_end,
                                                     WithShape& shape) {
  const auto& ops = lifted_.ops;
  int reraise_target = shape.reraise_target;
  shape.body_end = normal_end - length;
  shape.with_end = shape.body_end;
  mark_consumed(reraise_target, reraise_target + 4 + length);
  // Or the body's normal path, done with its exit call, holds a copy of its own (its jump
  // there inlined), with the original's lines; the original is reached by other jumps.
  // (Where the original is past the statement's region, the join of an if whose
  // then-branch the statement ends, after the other branches, that copy ends the region.)
  int copy = normal_end - length > end ? end - length : normal_end - 2 * length;
  bool copied = copy - 5 > i && is_exit_call(ops, copy - 5) &&
                same_operations(ops, copy, normal_end - length, length);
  for (int n = 0; n < length && copied; ++n)
    copied = line_at(ops, copy + n) == line_at(ops, normal_end - length + n);
  if (copied) {
    shape.body_end = copy;
    shape.with_end = copy + length;
    mark_consumed(copy, shape.with_end);
  }
}

// Or the original follows the body's exit call inside the region (more code comes before
// the handler: the statement's region is a loop body or a try body): the exit call is the
// first operation after the body that this handler does not cover.
// (The body's last exit call: a return's inside the body is followed by more of it; the
// cold code of statements nested in it is not. A loop's iterator popped first: a copy
// of the code after the loop, which the loop knows as a break.)
void CodeDecoder::read_with_exit_copy_after_exit_call(int i, int length, WithShape& shape) {
  const auto& ops = lifted_.ops;
  int handler = shape.handler;
  int reraise_target = shape.reraise_target;
  auto body_after = [&](int p) {
    for (int k = p; k < handler; ++k) {
      if (flow_.reachable[static_cast<size_t>(k)] && flow_.handler_covering(k) == handler)
        return true;
    }
    return false;
  };
  for (int p = i + 7; p + length <= handler; ++p) {
    if (is_exit_call(ops, p - 5) && flow_.handler_covering(p - 6) == handler &&
        flow_.handler_covering(p - 5) != handler && flow_.reachable[static_cast<size_t>(p)] &&
        same_operations(ops, p, reraise_target + 4, length) && !body_after(p) &&
        (ops[static_cast<size_t>(p)].op != Op::PopTop || break_copies_.count(p) > 0)) {
      shape.body_end = p;
      shape.with_end = p;
      mark_consumed(reraise_target, reraise_target + 4 + length);
      break;
    }
  }
}

// 3.12+: a with statement ending the body of an enclosing with whose normal path leaves only
// through it: where its body returns, the code after it (the enclosing body's exit call, then the
// code after the enclosing statement) is reached from its suppressed path only, so
// push_cold_blocks_to_end (flowgraph.c) placed it after the handler code. Where `after` (the
// suppressed path's join) is that code: line-less NOPs outside the enclosing with's cover, its
// exit call, then where the enclosing statement goes on (a jump there, or a copy of the short
// exit block there), the end of that code; else -1. (`end`: the statement's region's, which
// must be the enclosing body's.)
int CodeDecoder::enclosing_with_exit_end(int i, int after, int end) const {
  const auto& ops = lifted_.ops;
  int size = static_cast<int>(ops.size());
  auto open = open_with_ends_.find(flow_.handler_covering(i));
  if (!profile_.cold_blocks_at_end || open == open_with_ends_.end() || open->second.first != end)
    return -1;
  int enclosing = open->first;
  int goes_on = resolve(open->second.second);
  int p = after;
  while (p < size && ops[static_cast<size_t>(p)].op == Op::Nop &&
         ops[static_cast<size_t>(p)].line < 0)
    ++p;
  for (int k = after; k < p + 5 && k < size; ++k) {
    if (flow_.handler_covering(k) == enclosing) return -1;
  }
  if (!is_exit_call(ops, p) || p + 5 >= size) return -1;
  int q = p + 5;
  // (Or a jump to where the enclosing with's suppressed path goes, its join: itself read past its
  // region, the exit of a with enclosing it placed there too.)
  if (ops[static_cast<size_t>(q)].op == Op::Jump) {
    int suppressed = ops[static_cast<size_t>(enclosing) + 2].target + 4;
    bool joins = suppressed < size && ops[static_cast<size_t>(suppressed)].op == Op::Jump &&
                 resolve(suppressed) == resolve(q);
    return resolve(q) == goes_on || joins ? q + 1 : -1;
  }
  int length = copied_tail_length(q);
  if (length == 0 || q == goes_on) return -1;
  if (same_operations(ops, q, goes_on, length)) return q + length;
  // (Or the function's implicit `return None`, its original gone: suppressed_return_goes_on.)
  bool implicit = length == 1 && ops[static_cast<size_t>(q)].op == Op::ReturnConst &&
                  suppressed_return_goes_on(open->second.second, q);
  return implicit ? q + 1 : -1;
}

// The with statement at i whose code goes on past `end`, its region's end: there lies the exit
// call of an enclosing with (consumed here), or the code after the statement placed after its
// handler code (`tail`, read after the statement). Narrows `body_end` and `with_end` to the
// region; throws where it is neither.
void CodeDecoder::read_with_past_region(int i, int end, int exit, int reraise_target, int cleanup,
                                        int& body_end, int& with_end, std::pair<int, int>& tail) {
  const auto& ops = lifted_.ops;
  int cold_end = enclosing_with_exit_end(i, with_end, end);
  int tail_end = cold_end < 0 ? cold_with_tail_end(with_end, cleanup, exit) : -1;
  // (The suppressed path jumps there too: read with it, where the body's last operation, the
  // exit's jump there, made it look like the normal path jumping over the handler.)
  const Operation& back = ops[static_cast<size_t>(reraise_target) + 4];
  bool joins = back.op == Op::Jump && resolve(back.target) == resolve(with_end);
  if (tail_end >= 0 && !joins) tail_end = -1;
  if (joins && (tail_end >= 0 || cold_end >= 0))
    mark_consumed(reraise_target + 4, reraise_target + 5);
  if (cold_end < 0 && tail_end < 0) throw DecodeFailure("with statement leaves its region");
  if (cold_end >= 0) mark_consumed(with_end, cold_end);
  if (tail_end >= 0) tail = {with_end, tail_end};
  body_end = std::min(body_end, end);
  // (Not the copy of the loop's exit that its cold bottom test jumps to, read with that test
  // and laid after the loop body's last jump back: decode_while.)
  while (tail_end >= 0 && body_end - 1 > i && consumed_[static_cast<size_t>(body_end) - 1])
    --body_end;
  with_end = end;
}

int CodeDecoder::decode_with(int i, int end, int exit) {
  const auto& ops = lifted_.ops;
  ExprPtr context = pop();
  WithShape shape = with_shape(i);
  int handler = shape.handler;
  int reraise_target = shape.reraise_target;
  // (3.12+: handlers of statements in the body lie between its normal path and this handler,
  // where the statement is on the normal path itself.)
  int normal_end = handler;
  while (profile_.cold_blocks_at_end && flow_.reachable[static_cast<size_t>(i)] &&
         normal_end - 1 > i && !flow_.reachable[static_cast<size_t>(normal_end) - 1])
    --normal_end;
  // 3.12+: the handler sits after the function's code and jumps back to the join.
  if (!shape.jumps_over && static_cast<size_t>(reraise_target) + 4 < ops.size())
    read_with_suppressed_path(i, end, exit, normal_end, shape);
  int body_end = shape.body_end;
  int with_end = shape.with_end;
  int body_exit = shape.body_exit;
  int cleanup = shape.cleanup;
  mark_consumed(handler, reraise_target + 4);
  if (cleanup >= 0) mark_consumed(cleanup, cleanup + 3);
  std::pair<int, int> tail{0, 0};  // the code after the statement, after the handlers
  if (with_end > end && resolve(with_end) != resolve(exit))
    read_with_past_region(i, end, exit, reraise_target, cleanup, body_end, with_end, tail);
  push(make_expr(ExprKind::Internal, {}, "with_exit"));
  push(make_expr(ExprKind::Internal, {}, "with_value"));
  size_t saved_depth = statement_depth_;
  statement_depth_ = stack_.size() - 1;
  ExprPtr saved_target = captured_target_;
  captured_target_ = nullptr;
  bool returns_after = returns_after_;
  returns_after_ = false;
  Body body;
  {
    OpenTry open(opened_try_, handler);
    Restore<std::map<int, std::pair<int, int>>> restore(open_with_ends_);
    open_with_ends_[handler] = {body_end, tail.second > 0   ? tail.first
                                          : with_end == end ? exit
                                                            : with_end};
    body = decode_range(i + 1, body_end, body_exit >= 0 ? body_exit : with_end);
  }
  // At module level that return is the implicit `return None` at the end of the code.
  if (returns_after && role_ == CodeRole::Module && !body.empty() &&
      body.back()->kind == StmtKind::Return) {
    body.pop_back();
  }
  ExprPtr target = captured_target_;
  captured_target_ = saved_target;
  statement_depth_ = saved_depth;
  pop();  // the entered value
  if (!is_internal(pop(), "with_exit")) throw DecodeFailure("with statement stack");
  // The return ending the body after its exit call is the code after the statement, a copy the
  // body's normal path falls into (3.12+ duplicate_exits_without_lineno), as the suppressed path
  // does: it follows the statement. (Not a written one: compiler_return's NOP with the return's
  // line before the exit call.)
  StmtPtr after;
  if (returns_after && role_ != CodeRole::Module && !body.empty() &&
      body.back()->kind == StmtKind::Return && body_end - 6 > i &&
      ops[static_cast<size_t>(body_end) - 1].op == Op::ReturnConst &&
      is_exit_call(ops, body_end - 6) &&
      same_operations(ops, body_end - 1, reraise_target + 4, 1) &&
      !(ops[static_cast<size_t>(body_end) - 6].nop_line >= 0 &&
        ops[static_cast<size_t>(body_end) - 6].nop_line == line_at(ops, body_end - 1))) {
    after = body.back();
    body.pop_back();
  }
  auto stmt = make_stmt(StmtKind::With, {context, target}, {std::move(body)});
  stmt->is_async = ops[static_cast<size_t>(i)].arg == 1;  // BEFORE_ASYNC_WITH on 3.11 (see lift)
  emit(stmt);
  if (after) emit(after);
  if (tail.second > 0) {
    Body rest = decode_range(tail.first, tail.second, exit);
    mark_consumed(tail.first, tail.second);
    for (StmtPtr& s : rest) emit(s);
  }
  return with_end > end ? end : with_end;
}

// 3.12+: a with statement ending a loop body whose body never falls through (a `while True:`
// left by breaks from its except clauses): the code after it is reached from the suppressed
// path and the breaks' way out only, cold code that push_cold_blocks_to_end (flowgraph.c) placed
// after the statement's handler code, ending the loop body as read_except_outside reads it for
// a try statement (cold_loop_tail_end). Its end, or -1.
int CodeDecoder::cold_with_tail_end(int after, int cleanup, int exit) const {
  if (!profile_.cold_blocks_at_end || loops_.empty() || after <= cleanup ||
      !same_target(exit, loops_.back().continue_target))
    return -1;
  int head = resolve(loops_.back().continue_target);
  int tail_end = loop_tail_end(after, cleanup, head);
  if (tail_end >= 0) return tail_end;
  return cold_loop_tail_end(after, cleanup, head);
}

}  // namespace glassbox::decompiler

// ---- 3.10: SETUP_FINALLY / SETUP_WITH and POP_BLOCK delimit the protected code.

namespace glassbox::decompiler {

// 3.10 (else empty), a finally body [begin, end): the RERAISE operations in it that are a nested
// statement's own, never a copy of the closing one: where an except clause's failed type test
// jumps, and a nested finally's closing one (the first after its handler).
std::vector<bool> CodeDecoder::nested_own_reraises(int begin, int end) const {
  const auto& ops = lifted_.ops;
  if (!profile_.block_stack) return {};
  std::vector<bool> own(static_cast<size_t>(std::max(end - begin, 0)), false);
  auto mark = [&](int at) {
    if (at >= begin && at < end) own[static_cast<size_t>(at - begin)] = true;
  };
  for (int k = begin; k < end; ++k) {
    const Operation& op = ops[static_cast<size_t>(k)];
    if (op.op == Op::JumpIf && k > 0 && ops[static_cast<size_t>(k) - 1].op == Op::CheckExcMatch)
      mark(op.target);
    if (op.op == Op::SetupFinally && op.target > k && op.target < end &&
        !starts_except(ops, op.target)) {
      // (Its closing one may be copied into each branch that ends that body, as this one's is:
      // finally_closing_reraise finds where that body ends. Every RERAISE up to there ends
      // that body, or a statement nested in it, never this one.)
      int closing = finally_closing_reraise(op.target, end);
      for (int j = op.target; j <= closing && j < end; ++j)
        if (ops[static_cast<size_t>(j)].op == Op::Reraise) mark(j);
    }
  }
  return own;
}

}  // namespace glassbox::decompiler
