// The order of a function's names and local variables.
//
// CPython numbers `co_names` and `co_varnames` in the order the compiler first meets each name.
// Code that was not compiled from source (Dynamo's transformed functions and resume functions)
// keeps names the instructions never use, or lists them in another order; instructions refer to
// names by index, so the recompiled code differs. A dead `if 0:` block at the top of the body
// mentions every name in the wanted order: the compiler registers the names while it compiles the
// block, then drops the block's code (only a NOP is left, which carries a line number).
#include <algorithm>
#include <functional>
#include <map>
#include <set>
#include <string_view>

#include "decompiler/decoder.hpp"
#include "decompiler/printer.hpp"

namespace glassbox::decompiler {

namespace {

bool uses_fast(const Operation& op) {
  return (op.op == Op::LoadName || op.op == Op::StoreName || op.op == Op::DeleteName ||
          op.op == Op::LoadFastAndClear) &&
         (op.scope == Scope::Fast || op.op == Op::LoadFastAndClear);
}

// Whether the first uses of `wanted`'s entries, in operation order, list exactly `wanted`.
bool first_uses_match(const std::vector<std::string_view>& first_uses,
                      const std::vector<std::string>& wanted) {
  return std::equal(first_uses.begin(), first_uses.end(), wanted.begin(), wanted.end());
}

// An order on names for membership tests only: by length, then by bytes. Names of different
// lengths (most pairs) compare without a call to memcmp, which the lexicographic order made for
// every probe of its searches.
bool shorter_or_before(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return a.size() < b.size();
  return a.compare(b) < 0;
}

// Whether `name` is new to `seen` (sorted by shorter_or_before), which then holds it; `seen`
// views the names, which must outlive it.
bool first_sight(std::vector<std::string_view>& seen, const std::string& name) {
  auto at = std::lower_bound(seen.begin(), seen.end(), std::string_view(name), shorter_or_before);
  if (at != seen.end() && *at == name) return false;
  seen.insert(at, name);
  return true;
}

bool is_identifier(const std::string& name) {
  if (name.empty() || (name[0] >= '0' && name[0] <= '9')) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           static_cast<unsigned char>(c) >= 0x80;
  });
}

// The order in which the compiler meets names when it compiles `body`: roughly the printed order,
// with the compiler's exceptions (an assignment's value before its targets, a for loop's iterable
// before its target, ...). `complete` turns false where the tree does not say (text-only parts:
// imports, parameter defaults and annotations).
// `Meet` is called as meet(name, is_attribute, binds) for each name met; `binds`: the name is
// bound by an inlined comprehension (a cell variable of the function is met as a local there
// only: see comprehension_target).
template <class Meet>
class SourceOrder {
 public:
  SourceOrder(const CompilerProfile& profile, Meet meet)
      : profile_(profile), meet_(std::move(meet)) {}
  bool complete = true;

  void body(const Body& b) {
    for (const StmtPtr& s : b) stmt(*s);
  }

 private:
  const CompilerProfile& profile_;
  Meet meet_;

  // The finally bodies around the statement being compiled, innermost last, and how many of
  // them lie outside each enclosing loop: a return, break or continue compiles a copy of each
  // finally body it leaves, innermost first (each without itself and those inside it).
  std::vector<const Body*> finally_;
  std::vector<size_t> loops_;

  void loop_body(const Body& b) {
    loops_.push_back(finally_.size());
    body(b);
    loops_.pop_back();
  }
  void unwind(size_t outer) {
    if (finally_.size() > 50) return;
    std::vector<const Body*> saved = finally_;
    for (size_t k = saved.size(); k-- > outer;) {
      finally_.assign(saved.begin(), saved.begin() + static_cast<long>(k));
      std::vector<size_t> saved_loops = loops_;
      loops_.clear();
      body(*saved[k]);
      loops_ = std::move(saved_loops);
    }
    finally_ = std::move(saved);
  }

  void name(const std::string& n) { meet_(n, false, false); }
  void attribute(const std::string& n) { meet_(n, true, false); }

  // A target of an inlined comprehension: compile.c's push_inlined_comprehension_state isolates
  // each name the comprehension binds with LOAD_FAST_AND_CLEAR, which registers it in
  // co_varnames even where it is a cell of the function (elsewhere a cell is reached by
  // LOAD_DEREF/STORE_DEREF, which register no local).
  void comprehension_target(const ExprPtr& t, int depth) {
    if (!t || depth > 100) return;
    switch (t->kind) {
      case ExprKind::Name:
        return meet_(t->text, false, true);
      case ExprKind::Tuple:
      case ExprKind::List:
      case ExprKind::Starred:
        for (const ExprPtr& a : t->args) comprehension_target(a, depth + 1);
        return;
      default:
        return expr(t);
    }
  }

  void expr(const ExprPtr& e) {
    if (!e) return;
    switch (e->kind) {
      case ExprKind::Name:
        if (e->text == "__debug__") return;  // compiled as a constant
        return name(e->text);
      case ExprKind::Constant:
        return;
      case ExprKind::Attribute:
        expr(e->args[0]);
        return attribute(e->text);
      case ExprKind::IfExp:
        expr(e->args[1]);
        expr(e->args[0]);
        return expr(e->args[2]);
      case ExprKind::NamedExpr:
        expr(e->args[1]);
        return expr(e->args[0]);
      case ExprKind::Lambda:
        if (e->text.find('=') != std::string::npos)
          complete = false;  // defaults in the header text
        return;
      case ExprKind::ListComp:
      case ExprKind::SetComp:
      case ExprKind::DictComp:
      case ExprKind::GeneratorExp: {
        if (e->clauses.empty()) return;
        expr(e->clauses[0].iter);
        // A generator expression, and any comprehension where none is inlined, is a code
        // object of its own: only the first iterable is met here.
        if (!profile_.inlines_comprehensions || e->kind == ExprKind::GeneratorExp) return;
        for (size_t k = 0; k < e->clauses.size(); ++k) {
          if (k > 0) expr(e->clauses[k].iter);
          comprehension_target(e->clauses[k].target, 0);
          for (const ExprPtr& c : e->clauses[k].conditions) expr(c);
        }
        for (const ExprPtr& a : e->args) expr(a);
        return;
      }
      case ExprKind::Internal:
        complete = false;
        return;
      default:
        for (const ExprPtr& a : e->args) expr(a);
        return;
    }
  }

  // A match pattern: names are captures (`_` is none), keys and classes are loads; a mapping's
  // keys are compiled before its values.
  void pattern(const ExprPtr& p, int depth) {
    if (!p || depth > 100) return;
    switch (p->kind) {
      case ExprKind::Name:
        if (p->text != "_") name(p->text);
        return;
      case ExprKind::MatchAs:
        pattern(p->args[0], depth + 1);
        return name(p->text);
      case ExprKind::Starred:
      case ExprKind::Keyword:
        return pattern(p->args[0], depth + 1);
      case ExprKind::Dict:
        for (size_t k = 0; k + 1 < p->args.size(); k += 2) expr(p->args[k]);
        for (size_t k = 0; k + 1 < p->args.size(); k += 2) pattern(p->args[k + 1], depth + 1);
        return;
      case ExprKind::Call:
        expr(p->args[0]);
        for (size_t k = 1; k < p->args.size(); ++k) pattern(p->args[k], depth + 1);
        return;
      case ExprKind::List:
      case ExprKind::MatchOr:
        for (const ExprPtr& a : p->args) pattern(a, depth + 1);
        return;
      default:
        return expr(p);
    }
  }

  // `import a.b.c [as d]`, `from m import x [as y], ...` as the decompiler prints them: the
  // module's name (dotted: one entry of co_names), the attributes taken from it, then each
  // stored name.
  void import(const std::string& text) {
    auto split = [](const std::string& list, char sep) {
      std::vector<std::string> parts;
      size_t begin = 0;
      while (begin <= list.size()) {
        size_t end = list.find(sep, begin);
        if (end == std::string::npos) end = list.size();
        std::string part = list.substr(begin, end - begin);
        while (!part.empty() && part.front() == ' ') part.erase(part.begin());
        while (!part.empty() && part.back() == ' ') part.pop_back();
        parts.push_back(part);
        begin = end + 1;
      }
      return parts;
    };
    auto as_parts = [](const std::string& item) {
      size_t as = item.find(" as ");
      return as == std::string::npos
                 ? std::pair<std::string, std::string>{item, ""}
                 : std::pair<std::string, std::string>{item.substr(0, as), item.substr(as + 4)};
    };
    if (text.rfind("import ", 0) == 0) {
      for (const std::string& item : split(text.substr(7), ',')) {
        auto [module, alias] = as_parts(item);
        attribute(module);
        std::vector<std::string> dotted = split(module, '.');
        if (alias.empty()) {
          name(dotted[0]);
          continue;
        }
        for (size_t k = 1; k < dotted.size(); ++k) attribute(dotted[k]);
        name(alias);
      }
      return;
    }
    size_t at = text.find(" import ");
    if (text.rfind("from ", 0) != 0 || at == std::string::npos) {
      complete = false;
      return;
    }
    std::string module = text.substr(5, at - 5);
    attribute(module.substr(module.find_first_not_of('.') == std::string::npos
                                ? module.size()
                                : module.find_first_not_of('.')));
    std::string names = text.substr(at + 8);
    if (names == "*") return;
    if (!names.empty() && names.front() == '(') names = names.substr(1, names.size() - 2);
    for (const std::string& item : split(names, ',')) {
      auto [taken, alias] = as_parts(item);
      attribute(taken);
      name(alias.empty() ? taken : alias);
    }
  }

  void stmt(const Stmt& s) {
    switch (s.kind) {
      case StmtKind::Assign:
        expr(s.exprs.back());
        for (size_t k = 0; k + 1 < s.exprs.size(); ++k) expr(s.exprs[k]);
        return;
      case StmtKind::Import:
        return import(s.text);
      case StmtKind::AnnAssign:
      case StmtKind::Fallback:
        complete = false;
        return;
      case StmtKind::For:
        expr(s.exprs[1]);
        expr(s.exprs[0]);
        loop_body(s.bodies[0]);
        body(s.bodies[1]);
        return;
      case StmtKind::Try:
        if (!s.bodies[2].empty()) finally_.push_back(&s.bodies[2]);
        body(s.bodies[0]);
        if (profile_.try_else_before_handlers) body(s.bodies[1]);
        for (const ExceptHandler& h : s.handlers) {
          expr(h.type);
          if (!h.name.empty()) name(h.name);
          body(h.body);
        }
        if (!profile_.try_else_before_handlers) body(s.bodies[1]);
        if (!s.bodies[2].empty()) finally_.pop_back();
        body(s.bodies[2]);
        return;
      case StmtKind::While:
        expr(s.exprs[0]);
        loop_body(s.bodies[0]);
        body(s.bodies[1]);
        return;
      case StmtKind::Return:
        for (const ExprPtr& e : s.exprs) expr(e);
        return unwind(0);
      case StmtKind::Break:
      case StmtKind::Continue:
        return unwind(loops_.empty() ? 0 : loops_.back());
      case StmtKind::With:
        for (const ExprPtr& e : s.exprs) expr(e);  // context, target pairs
        body(s.bodies[0]);
        return;
      case StmtKind::FunctionDef:
        for (const ExprPtr& d : s.decorators) expr(d);
        if (s.header.find('=') != std::string::npos || s.header.find(':') != std::string::npos ||
            s.returns) {
          complete = false;
        }
        return name(s.text);
      case StmtKind::Match:
        expr(s.exprs[0]);
        for (size_t k = 0; k < s.bodies.size() && 2 * k + 2 < s.exprs.size(); ++k) {
          pattern(s.exprs[2 * k + 1], 0);
          expr(s.exprs[2 * k + 2]);
          body(s.bodies[k]);
        }
        return;
      case StmtKind::ClassDef:
        for (const ExprPtr& d : s.decorators) expr(d);
        for (const ExprPtr& e : s.exprs) expr(e);
        return name(s.text);
      default:
        for (const ExprPtr& e : s.exprs) expr(e);
        for (const Body& b : s.bodies) body(b);
        return;
    }
  }
};

// 3.10 replaces a jump to a short exit block (a `return` or `raise` of up to four instructions)
// with a copy of the block: `if c: A else: B` + `return r` compiles as `if c: A; return r` +
// `B; return r`, and a `break` out of `while True` as a copy of the return after the loop. The
// decoder reads the copies where they stand; the order in which the compiler met the names tells
// where the source had them. CopiedTails finds the places where a copy may stand for a jump
// and puts the exit back: site `which` only, or every site (-1); it returns how many it saw.
class CopiedTails {
 public:
  explicit CopiedTails(int which) : which_(which) {}
  int sites() const { return seen_; }

  // `next` is the text of the statement that runs when `b` falls off its end ("" where that is
  // not a plain statement: a loop's next iteration, the end of the function).
  void body(Body& b, const std::string& next, int depth) {
    if (depth > 100) return;
    for (size_t k = 0; k < b.size(); ++k) {
      Stmt& s = *b[k];
      if (s.kind == StmtKind::If) {
        std::string after = k + 1 < b.size() ? text(b[k + 1]) : next;
        for (Body& inner : s.bodies) body(inner, after, depth + 1);
        continue;
      }
      for (Body& inner : s.bodies) body(inner, "", depth + 1);
      for (ExceptHandler& h : s.handlers) body(h.body, "", depth + 1);
    }
    // `if c: A; T` + `B; T` -> `if c: A else: B` + `T`; the same where B ends in another exit
    // (T after it is never reached: the compiler drops it), or where B falls off the end of `b`
    // into T. From the last such `if` up, so that an elif chain folds from its end.
    for (size_t k = b.size(); k-- > 0;) {
      Stmt& s = *b[k];
      if (s.kind != StmtKind::If || s.bodies.size() != 2 || !s.bodies[1].empty() ||
          s.bodies[0].size() < 2 || !is_exit(*s.bodies[0].back()) || k + 1 >= b.size()) {
        continue;
      }
      StmtPtr tail = s.bodies[0].back();
      std::string tail_text = text(tail);
      bool ends_in_tail = text(b.back()) == tail_text;
      bool ends_in_exit = is_exit(*b.back());
      if (!ends_in_tail && !(ends_in_exit && b.back()->kind == StmtKind::Raise) &&
          !(!ends_in_exit && next == tail_text)) {
        continue;
      }
      if (!take()) continue;
      s.bodies[0].pop_back();
      auto rest_end = b.end() - (ends_in_tail ? 1 : 0);
      s.bodies[1].assign(b.begin() + static_cast<long>(k) + 1, rest_end);
      b.erase(b.begin() + static_cast<long>(k) + 1, b.end());
      if (ends_in_tail || ends_in_exit) b.push_back(tail);
    }
    // `while True: ... T ...` (no break) -> `while True: ... break ...` + `T`.
    if (b.empty() || b.back()->kind != StmtKind::While || !b.back()->bodies[1].empty()) return;
    Stmt& loop = *b.back();
    if (loop.exprs[0]->kind != ExprKind::Constant ||
        (loop.exprs[0]->text != "True" && loop.exprs[0]->text != "1"))
      return;
    std::vector<std::string> exits;
    bool breaks = false;
    loop_exits(loop.bodies[0], &exits, &breaks, 0);
    if (breaks) return;
    for (const std::string& exit : exits) {
      if (!take()) continue;
      StmtPtr tail;
      replace_exits(loop.bodies[0], exit, &tail, 0);
      b.push_back(tail);
      return;
    }
  }

 private:
  int which_;
  int seen_ = 0;

  // Whether the current site is one to rewrite.
  bool take() {
    int site = seen_++;
    return which_ == -1 || which_ == site;
  }
  static bool is_exit(const Stmt& s) {
    return s.kind == StmtKind::Return || s.kind == StmtKind::Raise;
  }
  static std::string text(const StmtPtr& s) { return print_body(Body{s}); }

  // The exits and breaks of a loop body outside nested loops, through `if` branches only.
  static void loop_exits(const Body& b, std::vector<std::string>* exits, bool* breaks, int depth) {
    if (depth > 100) return;
    for (const StmtPtr& s : b) {
      if (s->kind == StmtKind::Break) *breaks = true;
      if (is_exit(*s) && std::find(exits->begin(), exits->end(), text(s)) == exits->end())
        exits->push_back(text(s));
      if (s->kind == StmtKind::If)
        for (const Body& inner : s->bodies) loop_exits(inner, exits, breaks, depth + 1);
    }
  }
  static void replace_exits(Body& b, const std::string& exit, StmtPtr* tail, int depth) {
    if (depth > 100) return;
    for (StmtPtr& s : b) {
      if (is_exit(*s) && text(s) == exit) {
        *tail = s;
        s = make_stmt(StmtKind::Break);
      } else if (s->kind == StmtKind::If) {
        for (Body& inner : s->bodies) replace_exits(inner, exit, tail, depth + 1);
      }
    }
  }
};

// How many instructions storing to `target` takes (5: more than a copied exit block holds).
int store_size(const ExprPtr& target) {
  auto simple = [](const ExprPtr& e) {
    return e->kind == ExprKind::Name || e->kind == ExprKind::Constant;
  };
  if (target->kind == ExprKind::Name) return 1;
  if (target->kind == ExprKind::Attribute && target->args[0]->kind == ExprKind::Name) return 2;
  if (target->kind == ExprKind::Subscript && target->args[0]->kind == ExprKind::Name &&
      simple(target->args[1])) {
    return 3;
  }
  return 5;
}

// How many instructions the exit `s` takes (5 where it is no short exit); null: the function's
// implicit `return None`.
int exit_size(const Stmt* s) {
  if (s == nullptr) return 2;
  if (s->kind == StmtKind::Raise && s->exprs.empty()) return 1;
  if ((s->kind == StmtKind::Return || s->kind == StmtKind::Raise) && s->exprs.size() <= 1 &&
      (s->exprs.empty() || !s->exprs[0] || s->exprs[0]->kind == ExprKind::Name ||
       s->exprs[0]->kind == ExprKind::Constant)) {
    return 2;
  }
  return 5;
}

// `x = a if c else b` before a short exit: 3.10 copies the store and the exit into the then-branch
// (extend_block: the jump over the else goes to an exit block of up to four instructions), so
// the decoder reads `if c: x = a` + `else: x = b` (once CopiedTails or fold_end_returns put the
// else back). The compiler meets the names of `b` before the target's there, where the if
// statement meets the target's first: both compile to the same instructions, the order of the
// names tells them apart. Folds every such `if c: T = a else: T = b` (one assignment each, the
// same targets; its store and the exit after it four instructions at most) into
// `T = a if c else b`, elif chains from their end; both run the same code. `after` is the exit
// that falling off the end of `b` runs (null: the function's end), or `none` where that is no
// exit.
bool fold_if_exp_assigns(Body& b, const Stmt* after, bool none, int depth) {
  if (depth > 100) return false;
  bool folded = false;
  for (size_t k = 0; k < b.size(); ++k) {
    StmtPtr& s = b[k];
    bool next_none = k + 1 < b.size() ? exit_size(b[k + 1].get()) > 4 : none;
    const Stmt* next = k + 1 < b.size() ? b[k + 1].get() : after;
    for (Body& inner : s->bodies) {
      bool through = s->kind == StmtKind::If;  // (a loop's, try's or with's end is no exit)
      folded = fold_if_exp_assigns(inner, next, next_none || !through, depth + 1) || folded;
    }
    for (ExceptHandler& h : s->handlers)
      folded = fold_if_exp_assigns(h.body, nullptr, true, depth + 1) || folded;
    if (s->kind != StmtKind::If || s->bodies.size() != 2 || s->bodies[0].size() != 1 ||
        s->bodies[1].size() != 1 || next_none) {
      continue;
    }
    const Stmt& yes = *s->bodies[0][0];
    const Stmt& no = *s->bodies[1][0];
    if (yes.kind != StmtKind::Assign || no.kind != StmtKind::Assign ||
        yes.exprs.size() != no.exprs.size() || yes.exprs.size() < 2) {
      continue;
    }
    bool same = true;
    int size = exit_size(next) + static_cast<int>(yes.exprs.size()) - 2;  // (DUP_TOP each)
    for (size_t t = 0; t + 1 < yes.exprs.size() && same; ++t) {
      same = print_body({make_stmt(StmtKind::Expr, {yes.exprs[t]})}) ==
             print_body({make_stmt(StmtKind::Expr, {no.exprs[t]})});
      size += store_size(yes.exprs[t]);
    }
    if (!same || size > 4) continue;
    std::vector<ExprPtr> targets(yes.exprs.begin(), yes.exprs.end() - 1);
    targets.push_back(make_expr(ExprKind::IfExp, {yes.exprs.back(), s->exprs[0], no.exprs.back()}));
    s = make_stmt(StmtKind::Assign, std::move(targets));
    folded = true;
  }
  return folded;
}

Body deep_copy(const Body& b, int depth) {
  Body out;
  for (const StmtPtr& s : b) {
    auto c = std::make_shared<Stmt>(*s);
    if (depth < 100) {
      for (Body& inner : c->bodies) inner = deep_copy(inner, depth + 1);
      for (ExceptHandler& h : c->handlers) h.body = deep_copy(h.body, depth + 1);
    }
    out.push_back(c);
  }
  return out;
}

}  // namespace

namespace {

// A list compared with its wanted order as names are met: the first `count` entries met so far,
// and whether every name met so far kept that order. A name met again is one of the first
// `count` (while the order holds; once it breaks, the answer is no). Where the name met stands
// in the list decides (one scan of the list per name, or none where it is known).
struct Progress {
  const std::vector<std::string>& wanted;
  size_t count = 0;
  bool in_order = true;
  // `at`: where the name stands in the list (its first place), wanted.size() where it is not in
  // it; `unlisted_breaks`: whether a name not in the list breaks the order (else it is passed by).
  void meet_at(size_t at, bool unlisted_breaks) {
    if (!in_order) return;
    if (at == wanted.size()) {
      if (unlisted_breaks) in_order = false;
    } else if (at == count) {
      ++count;
    } else if (at > count) {
      in_order = false;
    }
  }
  void meet(const std::string& n) {
    if (in_order)
      meet_at(static_cast<size_t>(std::find(wanted.begin(), wanted.end(), n) - wanted.begin()),
              true);
  }
  bool matches() const { return in_order && count == wanted.size(); }
};

}  // namespace

// Whether compiling `body` registers exactly code_.names and the non-parameter locals, in order:
// 1 yes, 0 no, -1 the tree cannot tell.
int CodeDecoder::source_order_matches(const Body& body,
                                      const std::vector<std::string>& locals) const {
  // Names are read by their source spelling; without a class to mangle in, that is the name.
  const bool mangles = !class_name_.empty();
  // The source spelling of each of code_.names, where one is mangled (a name is met by its
  // spelling and stands for the first name spelled so); empty where each is its own.
  std::vector<std::string> spelled;
  if (mangles) {
    for (const std::string& n : code_.names) spelled.push_back(source_name(n));
    if (spelled == code_.names) spelled.clear();
  }
  std::vector<std::string> mangled;  // the spellings `variables` views, where they differ
  std::vector<std::string> wanted_locals;
  if (mangles) {
    mangled.reserve(code_.varnames.size() + code_.cellvars.size() + code_.freevars.size());
    for (const auto* list : {&code_.varnames, &code_.cellvars, &code_.freevars}) {
      for (const std::string& n : *list) mangled.push_back(source_name(n));
    }
    for (const std::string& n : locals) wanted_locals.push_back(source_name(n));
  }
  const std::vector<std::string>& wanted = mangles ? wanted_locals : locals;
  std::vector<std::string_view> variables;  // sorted by shorter_or_before
  if (mangles) {
    variables.assign(mangled.begin(), mangled.end());
  } else {
    variables.reserve(code_.varnames.size() + code_.cellvars.size() + code_.freevars.size());
    for (const auto* list : {&code_.varnames, &code_.cellvars, &code_.freevars}) {
      variables.insert(variables.end(), list->begin(), list->end());
    }
  }
  std::sort(variables.begin(), variables.end(), shorter_or_before);
  // Where each variable stands among the wanted locals (wanted.size(): not among them), found
  // once rather than for each name met.
  std::vector<size_t> wanted_at(variables.size());
  for (size_t k = 0; k < variables.size(); ++k) {
    wanted_at[k] =
        static_cast<size_t>(std::find(wanted.begin(), wanted.end(), variables[k]) - wanted.begin());
  }
  // The cells (by source spelling): a parameter, or a name an inlined comprehension binds, is
  // a local too (co_varnames); no other use of a cell registers one.
  std::vector<std::string> cells;
  for (const std::string& n : code_.cellvars) cells.push_back(mangles ? source_name(n) : n);
  auto is_cell = [&](const std::string& n) {
    return std::find(cells.begin(), cells.end(), n) != cells.end();
  };
  Progress names{code_.names};
  Progress fast{wanted};
  SourceOrder order(profile_, [&](const std::string& n, bool is_attribute, bool binds) {
    if (!is_attribute) {
      auto at = std::lower_bound(variables.begin(), variables.end(), std::string_view(n),
                                 shorter_or_before);
      if (at != variables.end() && *at == n) {
        // A cell registers no local where it is read or stored (LOAD_DEREF, STORE_DEREF).
        if (!binds && is_cell(n)) return;
        // Only the wanted locals count, in the order first met.
        fast.meet_at(wanted_at[static_cast<size_t>(at - variables.begin())], false);
        return;
      }
    }
    auto found = std::find(spelled.begin(), spelled.end(), n);
    names.meet(found == spelled.end() ? n
                                      : code_.names[static_cast<size_t>(found - spelled.begin())]);
  });
  order.body(body);
  if (!order.complete) return -1;
  if (!names.matches()) return 0;
  return fast.matches() ? 1 : 0;
}

// Puts back the exits 3.10 copied (CopiedTails) where that makes the source meet the names in
// the original's order: one site at a time, then all of them.
bool CodeDecoder::restore_copied_tails(Body& body, const std::vector<std::string>& locals) const {
  CopiedTails count(-2);
  Body probe = deep_copy(body, 0);
  count.body(probe, "", 0);
  for (int which = 0; which <= count.sites() && which < 64; ++which) {
    Body candidate = deep_copy(body, 0);
    CopiedTails rewrite(which == count.sites() ? -1 : which);
    rewrite.body(candidate, "", 0);
    if (source_order_matches(candidate, locals) == 1) {
      body = std::move(candidate);
      return true;
    }
  }
  // The same with the copied stores of conditional expressions folded (fold_if_exp_assigns).
  for (int which = -1; which <= count.sites() && which < 64; ++which) {
    Body candidate = deep_copy(body, 0);
    if (which >= 0) {
      CopiedTails rewrite(which == count.sites() ? -1 : which);
      rewrite.body(candidate, "", 0);
    }
    if (fold_if_exp_assigns(candidate, nullptr, false, 0) &&
        source_order_matches(candidate, locals) == 1) {
      body = std::move(candidate);
      return true;
    }
  }
  return false;
}

// The free variables (co_freevars) that no instruction reads, writes or passes on as a closure.
// (`super()` reads `__class__` from the frame, with no instruction of its own before 3.12.)
std::vector<std::string> CodeDecoder::unused_free_variables() const {
  std::vector<std::string> unused;
  bool calls_super =
      std::find(code_.names.begin(), code_.names.end(), "super") != code_.names.end();
  for (const std::string& name : code_.freevars) {
    if (name == "__class__" && calls_super) continue;
    bool used = std::any_of(lifted_.ops.begin(), lifted_.ops.end(), [&](const Operation& op) {
      bool deref = op.scope == Scope::Deref || op.scope == Scope::ClassDeref;
      return op.text == name && (op.op == Op::LoadClosure ||
                                 (deref && (op.op == Op::LoadName || op.op == Op::StoreName ||
                                            op.op == Op::DeleteName)));
    });
    if (!used) unused.push_back(name);
  }
  return unused;
}

// Readable output: of the dead block, only what behaviour needs. A free variable no instruction
// uses stays one (callers check the interface: Dynamo compares co_freevars), and a local that is
// read but never stored stays local (reading it raises, where a global would be looked up).
void CodeDecoder::add_interface_names(Body& body) const {
  std::set<std::string> stored;
  int parameters = code_.argcount + code_.kwonlyargcount + ((code_.flags & 0x04) ? 1 : 0) +
                   ((code_.flags & 0x08) ? 1 : 0);
  for (int k = 0; k < parameters && static_cast<size_t>(k) < code_.varnames.size(); ++k)
    stored.insert(code_.varnames[static_cast<size_t>(k)]);
  for (const Operation& op : lifted_.ops) {
    if (op.op == Op::StoreName && op.scope == Scope::Fast) stored.insert(op.text);
  }
  std::vector<ExprPtr> unbound;
  for (const Operation& op : lifted_.ops) {
    bool read = uses_fast(op) && op.op != Op::StoreName;
    if (read && !stored.count(op.text) &&
        std::none_of(unbound.begin(), unbound.end(),
                     [&](const ExprPtr& e) { return e->text == source_name(op.text); }))
      unbound.push_back(name_expr(op.text));
  }
  Body block;
  for (const std::string& name : unused_free_variables())
    block.push_back(make_stmt(StmtKind::Expr, {name_expr(name)}));
  if (!unbound.empty()) block.push_back(make_stmt(StmtKind::Delete, std::move(unbound)));
  if (block.empty()) return;
  auto comment = make_stmt(StmtKind::Comment);
  comment->text = "glassbox: never runs; keeps free variables free and unassigned locals local";
  size_t at = 0;
  while (at < body.size() &&
         (body[at]->kind == StmtKind::Global || body[at]->kind == StmtKind::Nonlocal))
    ++at;
  body.insert(body.begin() + static_cast<long>(at),
              make_stmt(StmtKind::If, {make_constant("0")}, {std::move(block), {}}));
  body.insert(body.begin() + static_cast<long>(at), comment);
}

// How many names after the dotted module name names[k] are its parts after the first, as
// `import a.b.c as d` registers them (3.11+, IMPORT_FROM); 0 when they are not.
size_t CodeDecoder::import_as_parts(const std::vector<std::string>& names, size_t k) const {
  if (!profile_.dead_import_as_lists_parts || code_.varnames.empty()) return 0;
  const std::string& name = names[k];
  size_t count = 0;
  for (size_t dot = name.find('.'); dot != std::string::npos; dot = name.find('.', dot + 1)) {
    size_t next = name.find('.', dot + 1);
    std::string part = name.substr(dot + 1, next == std::string::npos ? next : next - dot - 1);
    if (k + 1 + count >= names.size() || names[k + 1 + count] != part) return 0;
    ++count;
  }
  return count;
}

// The locals, in order, for the dead block of add_name_order: `del a, b` registers each (a
// DELETE_FAST). A cell that is a local too (3.12+: a name an inlined comprehension binds) is
// deleted by DELETE_DEREF, which registers none: `[c for c in ()]` registers it as
// push_inlined_comprehension_state does (LOAD_FAST_AND_CLEAR; the unused `()` goes with the
// dead code, remove_unused_consts).
void CodeDecoder::add_dead_block_locals(Body& block, const std::vector<std::string>& locals) const {
  std::vector<ExprPtr> targets;
  auto flush = [&] {
    if (!targets.empty()) block.push_back(make_stmt(StmtKind::Delete, std::move(targets)));
    targets.clear();
  };
  for (const std::string& name : locals) {
    bool cell =
        profile_.inlines_comprehensions &&
        std::find(code_.cellvars.begin(), code_.cellvars.end(), name) != code_.cellvars.end();
    if (!cell) {
      targets.push_back(name_expr(name));
      continue;
    }
    flush();
    auto comprehension = make_expr(ExprKind::ListComp, {name_expr(name)});
    comprehension->clauses.push_back({name_expr(name), make_expr(ExprKind::Tuple, {}), {}});
    block.push_back(make_stmt(StmtKind::Expr, {comprehension}));
  }
  flush();
}

// co_names, in order, for the dead block of add_name_order.
void CodeDecoder::add_dead_block_names(Body& block) const {
  // `None.name`: the attribute puts `name` in co_names without making it a variable (a bare
  // name could become a free variable of an enclosing function). None is always a constant of
  // a function.
  const std::vector<std::string>& names = code_.names;
  for (size_t k = 0; k < names.size(); ++k) {
    const std::string& name = names[k];
    if (!is_identifier(name)) {
      // A dotted module name of `from a.b import c` (c a local): the same import registers it
      // and the name after it.
      bool dotted = !name.empty() && name.front() != '.' && name.back() != '.' &&
                    name.find("..") == std::string::npos;
      size_t part = 0;
      while (dotted && part < name.size()) {
        size_t dot = std::min(name.find('.', part), name.size());
        dotted = is_identifier(name.substr(part, dot - part));
        part = dot + 1;
      }
      auto local = [&](const std::string& n) {  // (a cell of the function's is one too)
        return std::find(code_.varnames.begin(), code_.varnames.end(), n) != code_.varnames.end() ||
               std::find(code_.cellvars.begin(), code_.cellvars.end(), n) != code_.cellvars.end();
      };
      if (dotted && k + 1 < names.size() && is_identifier(names[k + 1]) && local(names[k + 1])) {
        auto import = make_stmt(StmtKind::Import);
        import->text = "from " + name + " import " + names[k + 1];
        block.push_back(import);
        ++k;
      } else if (size_t parts = import_as_parts(names, k); dotted && parts > 0) {
        // `import a.b.c as d` registers a.b.c, then b and c (IMPORT_FROM), and stores d: any
        // local of the function will do.
        auto import = make_stmt(StmtKind::Import);
        import->text = "import " + name + " as " + code_.varnames[0];
        block.push_back(import);
        k += parts;
      }
      continue;
    }
    block.push_back(
        make_stmt(StmtKind::Expr,
                  {make_expr(ExprKind::Attribute, {make_constant("None")}, source_name(name))}));
  }
}

// The dead block's test. 3.10/3.11 keep the test's constant (keeps_folded_constants): where None
// comes first among the constants (a function without a docstring) and 0 does not follow it,
// `if None:` adds none; elsewhere `if 0:`.
std::string CodeDecoder::dead_block_test() const {
  const auto& consts = code_.consts;
  bool none_first = profile_.keeps_folded_constants && !consts.empty() &&
                    consts[0]->kind == bytecode::ObjectKind::None &&
                    !(consts.size() > 1 && consts[1]->kind == bytecode::ObjectKind::Int &&
                      consts[1]->int_decimal == "0");
  return none_first ? "None" : "0";
}

void CodeDecoder::add_name_order(Body& body) const {
  // (Views of the operations' names: copies of each showed in profiles.)
  std::vector<std::string_view> name_uses;
  std::vector<std::string_view> fast_uses;
  std::vector<std::string_view> seen_names;
  std::vector<std::string_view> seen_fast;
  // (Each is a subset of its table, typically all of it: reserved, not grown.)
  name_uses.reserve(code_.names.size());
  seen_names.reserve(code_.names.size());
  fast_uses.reserve(code_.localsplusnames.size());
  seen_fast.reserve(code_.localsplusnames.size());
  for (const Operation& op : lifted_.ops) {
    if (uses_co_names(op)) {
      // `import a.b` stores `a`; the module text holds the dotted name, whose parts are not names.
      if (first_sight(seen_names, op.text)) name_uses.push_back(op.text);
    } else if (uses_fast(op)) {
      if (first_sight(seen_fast, op.text)) fast_uses.push_back(op.text);
    }
  }
  int parameters = code_.argcount + code_.kwonlyargcount + ((code_.flags & 0x04) ? 1 : 0) +
                   ((code_.flags & 0x08) ? 1 : 0);
  // (Generated code may list a name among both the locals and the free variables, which no
  // source can: it stays a free variable, which callers of the code check.)
  std::vector<std::string> locals;
  locals.reserve(code_.varnames.size());
  for (size_t k = static_cast<size_t>(std::max(parameters, 0)); k < code_.varnames.size(); ++k) {
    const std::string& name = code_.varnames[k];
    if (std::find(code_.freevars.begin(), code_.freevars.end(), name) == code_.freevars.end())
      locals.push_back(name);
  }
  std::vector<std::string_view> used_locals;
  used_locals.reserve(fast_uses.size());
  for (std::string_view name : fast_uses) {
    if (std::find(locals.begin(), locals.end(), name) != locals.end()) used_locals.push_back(name);
  }
  // Only names the instructions never use call for the block: a name used somewhere is registered
  // by the decompiled source itself, and in source order, which is the compiler's (the bytecode
  // order differs where 3.12+ moves exception handlers to the end). When the block is written, it
  // lists every name, which fixes the order of the used ones too.
  bool names_ok =
      name_uses.size() >= code_.names.size() || first_uses_match(name_uses, code_.names);
  bool locals_ok = used_locals.size() >= locals.size() || first_uses_match(used_locals, locals);
  bool order_ok = false;
  if (names_ok && locals_ok) {
    // Every name is used; the source registers them, but perhaps in another order than the
    // original's (an else clause placed differently, a reordered branch). Where the tree cannot
    // tell, the order of first use in the bytecode is the best guess.
    int matches = source_order_matches(body, locals);
    order_ok =
        matches == 1 ||
        (matches == 0 && profile_.copies_short_exit_blocks && restore_copied_tails(body, locals)) ||
        (matches < 0 && first_uses_match(name_uses, code_.names) &&
         first_uses_match(used_locals, locals));
    if (!order_ok) names_ok = locals_ok = false;
  }
  std::vector<std::string> unused_free = unused_free_variables();
  if (order_ok && unused_free.empty()) return;

  Body block;
  // A free variable no instruction uses (Dynamo keeps the original's): a bare read makes it one.
  for (const std::string& name : unused_free)
    block.push_back(make_stmt(StmtKind::Expr, {name_expr(name)}));
  if (!locals_ok && !locals.empty()) add_dead_block_locals(block, locals);
  if (!names_ok) add_dead_block_names(block);
  if (block.empty()) return;
  auto dead = make_stmt(StmtKind::If, {make_constant(dead_block_test())}, {block, {}});
  size_t at = (!body.empty() && body[0]->kind == StmtKind::Expr &&
               body[0]->exprs[0]->kind == ExprKind::Constant)
                  ? 1
                  : 0;
  while (at < body.size() &&
         (body[at]->kind == StmtKind::Global || body[at]->kind == StmtKind::Nonlocal))
    ++at;
  auto comment = make_stmt(StmtKind::Comment);
  comment->text = "glassbox: never runs; lists the names in the order of the original code object";
  body.insert(body.begin() + static_cast<long>(at), dead);
  body.insert(body.begin() + static_cast<long>(at), comment);
}

// A module or class body whose co_names hold names no instruction uses: code the compiler
// dropped after it met the names (`if False: from typing import IO`; 3.12+). Each run of such
// names goes back, in a dead `if 0:` block, before the statement that first meets the name
// following the run, so the compiler meets them in the original's order.
void CodeDecoder::add_unused_names(Body& body) const {
  // 3.10/3.11 keep the dropped code's constants, which the tree does not know.
  if (profile_.keeps_folded_constants) return;
  std::set<std::string> used;
  for (const Operation& op : lifted_.ops) {
    if (uses_co_names(op)) used.insert(op.text);
  }
  const std::vector<std::string>& names = code_.names;
  std::vector<std::pair<size_t, std::vector<std::string>>> blocks;  // (statement, names)
  for (size_t k = 0; k < names.size();) {
    if (used.count(names[k])) {
      ++k;
      continue;
    }
    std::vector<std::string> run;
    for (; k < names.size() && !used.count(names[k]); ++k) {
      if (!is_identifier(names[k])) return;  // a dotted module name of an import
      run.push_back(names[k]);
    }
    size_t at = body.size();
    if (k < names.size()) {
      const std::string& next = names[k];
      at = body.size();
      for (size_t p = 0; p < body.size() && at == body.size(); ++p) {
        bool met = false;
        SourceOrder order(profile_,
                          [&](const std::string& n, bool, bool) { met = met || n == next; });
        order.body({body[p]});
        // (SourceOrder leaves annotated assignments out: their parts, in any order.)
        if (body[p]->kind == StmtKind::AnnAssign) {
          for (const ExprPtr& e : body[p]->exprs) {
            if (e) order.body({make_stmt(StmtKind::Expr, {e})});
          }
        }
        if (met) at = p;
      }
      if (at == body.size()) return;  // the tree does not say where
    }
    blocks.emplace_back(at, std::move(run));
  }
  for (size_t b = blocks.size(); b-- > 0;) {
    Body block;
    for (const std::string& name : blocks[b].second) {
      block.push_back(make_stmt(StmtKind::Expr,
                                {make_expr(ExprKind::Attribute, {make_constant("None")}, name)}));
    }
    auto comment = make_stmt(StmtKind::Comment);
    comment->text = "glassbox: never runs; names the original met in code it dropped";
    auto dead = make_stmt(StmtKind::If, {make_constant("False")}, {block, {}});
    body.insert(body.begin() + static_cast<long>(blocks[b].first), dead);
    body.insert(body.begin() + static_cast<long>(blocks[b].first), comment);
  }
}

namespace {

// The key under which a constant expression of the tree and an entry of co_consts meet: the
// printed constant, a tuple of constants as the tuple the compiler folds it into ("" if neither).
std::string constant_key(const Expr& e, int depth) {
  if (e.kind == ExprKind::Constant) return e.text;
  if (e.kind != ExprKind::Tuple || depth > 20) return "";
  std::string key = "(";
  for (size_t k = 0; k < e.args.size(); ++k) {
    std::string item = e.args[k] ? constant_key(*e.args[k], depth + 1) : "";
    if (item.empty()) return "";
    key += (k ? ", " : "") + item;
  }
  return key + (e.args.size() == 1 ? ",)" : ")");
}

// Where the compiler meets constants, for the folded `if True:` (see add_folded_true_test).
class ConstantUses {
 public:
  ConstantUses(std::map<std::string, size_t> index, std::map<std::string, size_t> code_index,
               size_t folded)
      : index_(std::move(index)), code_index_(std::move(code_index)), folded_(folded) {}

  // The first statement (in compile order) that adds a constant placed after co_consts[folded_]:
  // `if True:` goes around it, or around the compound statement it opens when that adds no
  // constant of its own before it. Null where none is found, or where the source meets a True
  // first (which then adds the constant itself, where it belongs).
  StmtPtr* find(Body& b, int depth) {
    if (depth > 100 || stopped_) return nullptr;
    for (StmtPtr& s : b) {
      int own = own_constants(*s);
      if (own == kTrue) stopped_ = true;
      if (stopped_) return nullptr;
      if (own == kAfter) return &s;
      bool first = true;
      for (Body* inner : bodies(*s)) {
        StmtPtr* found = find(*inner, depth + 1);
        if (stopped_) return nullptr;
        if (found) {
          bool opens =
              first && own == kNone && !inner->empty() && found == &inner->front() &&
              (s->kind == StmtKind::For || s->kind == StmtKind::While ||
               s->kind == StmtKind::With || s->kind == StmtKind::Try || s->kind == StmtKind::If);
          return opens ? &s : found;
        }
        first = false;
      }
    }
    return nullptr;
  }

 private:
  static constexpr int kNone = 0;     // no constant the tree shows
  static constexpr int kBefore = -1;  // only constants placed before the True
  static constexpr int kAfter = 1;    // first a constant placed after it
  static constexpr int kTrue = 2;     // first a True
  std::map<std::string, size_t> index_;
  std::map<std::string, size_t> code_index_;
  size_t folded_;
  bool stopped_ = false;

  static std::vector<Body*> bodies(Stmt& s) {
    std::vector<Body*> out;
    if (s.kind == StmtKind::FunctionDef || s.kind == StmtKind::ClassDef) return out;
    if (!s.bodies.empty()) out.push_back(&s.bodies[0]);
    for (ExceptHandler& h : s.handlers) out.push_back(&h.body);
    for (size_t k = 1; k < s.bodies.size(); ++k) out.push_back(&s.bodies[k]);
    return out;
  }

  // What `s` itself (not its nested bodies) adds first: kAfter, kTrue, else kBefore or kNone.
  int own_constants(const Stmt& s) const {
    int found = kNone;
    auto meet_index = [&](size_t index) {
      if (found == kAfter || found == kTrue) return;
      found = index > folded_ ? kAfter : index == folded_ ? kTrue : kBefore;
    };
    auto meet = [&](const std::string& key, const std::map<std::string, size_t>& table) {
      auto at = table.find(key);
      if (at != table.end()) meet_index(at->second);
    };
    std::function<void(const ExprPtr&, int)> expr = [&](const ExprPtr& e, int depth) {
      if (!e || depth > 100) return;
      std::string key = constant_key(*e, 0);
      if (!key.empty()) return meet(key, index_);
      if ((e->kind == ExprKind::List || e->kind == ExprKind::Set) && e->args.size() > 2) {
        // A display of three or more constants loads them as one tuple.
        auto as_tuple = make_expr(ExprKind::Tuple, e->args);
        std::string items = constant_key(*as_tuple, 0);
        if (!items.empty()) {
          if (e->kind == ExprKind::List) meet(items, index_);
          return;
        }
      }
      if (e->kind == ExprKind::JoinedStr) {
        for (const ExprPtr& a : e->args)
          if (a && a->kind != ExprKind::Constant) expr(a, depth + 1);
        return;
      }
      if (e->kind == ExprKind::Call) {
        std::string names;
        for (const ExprPtr& a : e->args)
          if (a && a->kind == ExprKind::Keyword)
            names += (names.empty() ? "'" : ", '") + a->text + "'";
        for (const ExprPtr& a : e->args) expr(a, depth + 1);
        if (!names.empty())
          meet("(" + names + (names.find(',') == std::string::npos ? ",)" : ")"), index_);
        return;
      }
      // (Defaults are text; the compiler folds them into a tuple, leaving each constant unused.)
      if (e->kind == ExprKind::Lambda && e->text.find("True") != std::string::npos)
        meet_index(folded_);
      if (e->kind == ExprKind::Lambda || e->kind == ExprKind::ListComp ||
          e->kind == ExprKind::SetComp || e->kind == ExprKind::DictComp ||
          e->kind == ExprKind::GeneratorExp) {
        return;  // a code object of its own; its place is not looked up
      }
      for (const ExprPtr& a : e->args) expr(a, depth + 1);
    };
    for (const ExprPtr& d : s.decorators) expr(d, 0);
    switch (s.kind) {
      case StmtKind::Expr:
        if (!s.exprs.empty() && s.exprs[0] && s.exprs[0]->kind == ExprKind::Constant) return 0;
        break;
      case StmtKind::FunctionDef:
      case StmtKind::ClassDef:
        if (s.header.find("True") != std::string::npos) meet_index(folded_);
        meet(s.text, code_index_);
        break;
      case StmtKind::Return:
        if (s.exprs.empty()) meet("None", index_);
        break;
      case StmtKind::Import: {
        size_t dots = s.text.rfind("from ", 0) == 0 ? s.text.find_first_not_of('.', 5) - 5 : 0;
        meet(std::to_string(dots), index_);
        break;
      }
      default:
        break;
    }
    for (const ExprPtr& e : s.exprs) expr(e, 0);
    return found;
  }
};

}  // namespace

// 3.10/3.11 compile `if __debug__:` and `if True:` alike (the AST optimizer folds `__debug__` into
// True at -O0) as LOAD_CONST True and a test the optimizer then removes: the True stays in
// co_consts, unused, where the compiler met the test. Where the code holds such a True and the
// tree adds a constant placed after it before any True, the test goes back around the first
// statement that does. It is written `if True:`, never `if __debug__:`: the bytecode runs the
// statement at every level, and under -O `if __debug__:` would drop it (in Dynamo's resume
// functions, an assignment the code after it reads: UnboundLocalError under `python -O`).
void CodeDecoder::add_folded_true_test(Body& body) const {
  if (!profile_.keeps_folded_constants) return;
  size_t folded = 0;
  for (size_t k = 1; k < code_.consts.size() && folded == 0; ++k) {
    const auto& c = code_.consts[k];
    if (c->kind == bytecode::ObjectKind::True &&
        std::none_of(lifted_.ops.begin(), lifted_.ops.end(),
                     [&](const Operation& op) { return op.constant == c; })) {
      folded = k;
    }
  }
  if (folded == 0) return;
  std::map<std::string, size_t> index;
  std::map<std::string, size_t> code_index;
  for (size_t k = 0; k < code_.consts.size(); ++k) {
    const auto& c = code_.consts[k];
    if (c->kind == bytecode::ObjectKind::Code) {
      if (c->code) code_index.emplace(c->code->name, k);
      continue;
    }
    try {
      std::string key = constant_key(*constant(c), 0);
      if (!key.empty()) index.emplace(key, k);
    } catch (const DecodeFailure&) {
    }
  }
  ConstantUses uses(std::move(index), std::move(code_index), folded);
  StmtPtr* at = uses.find(body, 0);
  if (!at) return;
  *at = make_stmt(StmtKind::If, {make_constant("True")}, {{*at}, {}});
}

}  // namespace glassbox::decompiler
