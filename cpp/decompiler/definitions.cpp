// Definitions: functions, lambdas, classes, comprehensions and imports, rebuilt from the stack
// shapes that create them, and the finishing touches of a body (docstring, declarations,
// implicit returns).
#include <algorithm>
#include <cctype>
#include <set>

#include "bytecode/disassembler.hpp"
#include "bytecode/error.hpp"
#include "bytecode/repr.hpp"
#include "decompiler/decoder.hpp"
#include "decompiler/printer.hpp"

namespace glassbox::decompiler {

namespace {

constexpr int kFlagVarargs = 0x04;
constexpr int kFlagVarkeywords = 0x08;
constexpr int kFlagGenerator = 0x20;
constexpr int kFlagCoroutine = 0x80;
constexpr int kFlagAsyncGenerator = 0x200;
constexpr int kFlagFutureAnnotations = 0x1000000;

bool expr_yields(const ExprPtr& e, int depth) {
  if (!e || depth > 200) return false;
  if (e->kind == ExprKind::Yield || e->kind == ExprKind::YieldFrom) return true;
  if (e->kind == ExprKind::Lambda || e->kind == ExprKind::GeneratorExp) return false;
  for (const ExprPtr& arg : e->args) {
    if (expr_yields(arg, depth + 1)) return true;
  }
  for (const ComprehensionClause& clause : e->clauses) {
    if (expr_yields(clause.iter, depth + 1)) return true;
  }
  return false;
}

// Whether a function body holds a yield (outside nested functions and classes).
bool body_yields(const Body& body, int depth = 0) {
  if (depth > 200) return false;
  for (const StmtPtr& s : body) {
    if (s->kind == StmtKind::FunctionDef || s->kind == StmtKind::ClassDef) continue;
    for (const ExprPtr& e : s->exprs) {
      if (expr_yields(e, 0)) return true;
    }
    for (const Body& inner : s->bodies) {
      if (body_yields(inner, depth + 1)) return true;
    }
    for (const ExceptHandler& handler : s->handlers) {
      if (expr_yields(handler.type, 0) || body_yields(handler.body, depth + 1)) return true;
    }
  }
  return false;
}

// Whether `text` is, as a whole, an annotation expression of a small grammar that is always valid
// Python: names, numbers, plain strings, `...`, attributes, subscripts, lists, tuples, unary
// minus and `|`. (Under `from __future__ import annotations` the compiler stores each annotation
// as this text; anything outside the grammar stays a string constant.)
class AnnotationSource {
 public:
  explicit AnnotationSource(const std::string& text) : text_(text) {}

  bool valid() {
    if (text_.size() > 1000 || !expr(0)) return false;
    skip();
    return at_ == text_.size();
  }

 private:
  static constexpr int kMaxDepth = 50;

  void skip() {
    while (at_ < text_.size() && text_[at_] == ' ') ++at_;
  }
  bool eat(char c) {
    skip();
    if (at_ < text_.size() && text_[at_] == c) {
      ++at_;
      return true;
    }
    return false;
  }
  bool peek(char c) {
    skip();
    return at_ < text_.size() && text_[at_] == c;
  }
  static bool word_char(char c) {
    return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           static_cast<unsigned char>(c) >= 0x80;
  }
  bool name() {
    skip();
    size_t start = at_;
    while (at_ < text_.size() && word_char(text_[at_])) ++at_;
    if (at_ == start || (text_[start] >= '0' && text_[start] <= '9')) return false;
    static const std::set<std::string> keywords = {
        "and",    "as",   "assert", "async",  "await",  "break",   "class",    "continue",
        "def",    "del",  "elif",   "else",   "except", "finally", "for",      "from",
        "global", "if",   "import", "in",     "is",     "lambda",  "nonlocal", "not",
        "or",     "pass", "raise",  "return", "try",    "while",   "with",     "yield"};
    return keywords.count(text_.substr(start, at_ - start)) == 0;
  }
  bool atom(int depth) {
    skip();
    if (at_ >= text_.size()) return false;
    char c = text_[at_];
    if (c >= '0' && c <= '9') {
      while (at_ < text_.size() && text_[at_] >= '0' && text_[at_] <= '9') ++at_;
      if (at_ < text_.size() && word_char(text_[at_])) return false;
      return true;
    }
    if (c == '\'' || c == '"') {
      size_t end = text_.find(c, at_ + 1);
      if (end == std::string::npos) return false;
      for (size_t k = at_ + 1; k < end; ++k) {
        if (text_[k] == '\\' || text_[k] == '\n' || text_[k] == '\r') return false;
      }
      at_ = end + 1;
      return true;
    }
    if (text_.compare(at_, 3, "...") == 0) {
      at_ += 3;
      return true;
    }
    if (c == '(') return ++at_, sequence(depth, ')');
    if (c == '[') return ++at_, sequence(depth, ']');
    return name();
  }
  bool sequence(int depth, char close) {
    if (eat(close)) return true;
    do {
      if (peek(close)) break;
      if (!expr(depth + 1)) return false;
    } while (eat(','));
    return eat(close);
  }
  bool primary(int depth) {
    if (!atom(depth)) return false;
    for (;;) {
      if (eat('.')) {
        if (!name()) return false;
      } else if (eat('[')) {
        if (peek(']') || !sequence(depth, ']')) return false;
      } else {
        return true;
      }
    }
  }
  bool expr(int depth) {
    if (depth > kMaxDepth) return false;
    do {
      eat('-');
      if (!primary(depth)) return false;
    } while (eat('|'));
    return true;
  }

  const std::string& text_;
  size_t at_ = 0;
};

bool is_str_constant(const ExprPtr& e) {
  return e && e->kind == ExprKind::Constant && !e->text.empty() &&
         (e->text[0] == '\'' || e->text[0] == '"');
}

// The identifier a constant string key names ('x' -> x).
std::string key_name(const ExprPtr& e) {
  if (!e || !e->ops.empty()) return e && !e->ops.empty() ? e->ops[0] : std::string();
  return is_str_constant(e) ? e->text.substr(1, e->text.size() - 2) : std::string();
}

// A docstring with line breaks reads best triple-quoted, when that spells the same value.
// The docstring `text` as a triple-quoted literal, where it reads the same so; null where not.
ExprPtr triple_quoted(const std::string& text) {
  const std::string triple(3, '\'');
  if (text.find('\n') == std::string::npos || text.find(triple) != std::string::npos ||
      text.back() == '\'') {
    return nullptr;
  }
  for (unsigned char c : text) {
    if (c == '\\' || (c < 0x20 && c != '\n' && c != '\t') || c == 0x7f) return nullptr;
  }
  return make_constant(triple + text + triple);
}

ExprPtr docstring(const ExprPtr& constant) {
  if (constant->ops.empty()) return constant;
  ExprPtr triple = triple_quoted(constant->ops[0]);
  return triple ? triple : constant;
}

// Module code ends in `return None`, which the compiler copies into the branches that end the
// module; in tail position they are the end of the module, not statements.
// A function's `return None` on a line of its own was written (and stays). A finally body's
// return is never a copy (compiler_try_finally's handler copy ends in RERAISE) and never the end
// of the code: it drops the exception being raised (or the body's return value).
void strip_tail_returns(Body& body, bool keep_written = false) {
  while (!body.empty() && is_return_none(body.back()) && !(keep_written && body.back()->new_line))
    body.pop_back();
  if (body.empty()) return;
  StmtPtr& last = body.back();
  if (last->kind == StmtKind::If || last->kind == StmtKind::Try || last->kind == StmtKind::With) {
    size_t bodies = last->kind == StmtKind::Try ? std::min<size_t>(last->bodies.size(), 2)
                                                : last->bodies.size();
    for (size_t b = 0; b < bodies; ++b) strip_tail_returns(last->bodies[b], keep_written);
    for (ExceptHandler& handler : last->handlers) strip_tail_returns(handler.body, keep_written);
  }
}

// Module and class code end in `return None`, which the compiler copies into branches that reach
// the end (3.10: an except clause of a final try statement). Such a branch followed by more
// statements is an if/else or try/else whose else holds the rest.
// `copies_only` (a 3.10/3.11 function): only a then-branch's `return None` on the line of other
// code, after a statement of the branch, is such a copy (see the Function case below); the
// branches of an if ending the body (but for such copies) end the function too.
void fold_end_returns(Body& body, bool copies_only = false) {
  for (size_t k = 0; k + 1 < body.size(); ++k) {
    StmtPtr& s = body[k];
    bool ends = false;
    if (s->kind == StmtKind::If && s->bodies.size() >= 2 && s->bodies[1].empty()) {
      const Body& then = s->bodies[0];
      ends = !then.empty() && is_return_none(then.back()) &&
             !(copies_only && (then.back()->return_line || then.size() < 2));
    } else if (copies_only) {
      continue;
    } else if (s->kind == StmtKind::Try && s->bodies.size() >= 3 && s->bodies[1].empty() &&
               s->bodies[2].empty() && !s->handlers.empty()) {
      ends = true;
      for (const ExceptHandler& h : s->handlers)
        ends = ends && !h.body.empty() && is_return_none(h.body.back());
    }
    if (!ends) continue;
    Body rest(body.begin() + static_cast<long>(k) + 1, body.end());
    body.resize(k + 1);
    fold_end_returns(rest, copies_only);
    s->bodies[1] = std::move(rest);
    break;
  }
  if (!copies_only) return;
  size_t last = body.size();  // (before the copies ending the function)
  while (last > 0 && is_return_none(body[last - 1]) && !body[last - 1]->return_line) --last;
  if (last > 0 && body[last - 1]->kind == StmtKind::If) {
    for (Body& inner : body[last - 1]->bodies) fold_end_returns(inner, true);
  }
}

// `return None` is a syntax error in an async generator, where the bare `return` (which compiles
// alike) is not: every `return None` of the function becomes one.
void bare_returns(Body& body) {
  for (StmtPtr& s : body) {
    if (is_return_none(s)) s = make_stmt(StmtKind::Return);
    if (s->kind == StmtKind::FunctionDef || s->kind == StmtKind::ClassDef) continue;
    for (Body& inner : s->bodies) bare_returns(inner);
    for (ExceptHandler& handler : s->handlers) bare_returns(handler.body);
  }
}

bool contains_return(const Body& body) {
  for (const StmtPtr& s : body) {
    if (s->kind == StmtKind::Return) return true;
    if (s->kind == StmtKind::FunctionDef || s->kind == StmtKind::ClassDef) continue;
    for (const Body& inner : s->bodies) {
      if (contains_return(inner)) return true;
    }
    for (const ExceptHandler& handler : s->handlers) {
      if (contains_return(handler.body)) return true;
    }
  }
  return false;
}

bool is_identifier(const std::string& name) {
  if (name.empty() || std::isdigit(static_cast<unsigned char>(name[0]))) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    auto u = static_cast<unsigned char>(c);
    return std::isalnum(u) || c == '_' || u >= 0x80;
  });
}

bool is_name_store(const StmtPtr& s, const char* name) {
  return s->kind == StmtKind::Assign && s->exprs.size() == 2 &&
         s->exprs[0]->kind == ExprKind::Name && s->exprs[0]->text == name;
}

// The end of a class body: `return None`, or the class cell (`__class__`, a 3.12 closure value).
bool is_class_return(const StmtPtr& s) {
  if (s->kind != StmtKind::Return) return false;
  if (is_return_none(s)) return true;
  const ExprPtr& value = s->exprs[0];
  return (value->kind == ExprKind::Name && value->text == "__class__") ||
         (value->kind == ExprKind::Internal && value->text == "closure");
}

// A class body's epilogue (3.13's `__static_attributes__ = (...)`, 3.12+'s `__classdictcell__`,
// then the return of None or of the class cell) has no line of its own: the compiler copies it
// into the branches that reach the end of the body. Each copy becomes a plain `return`, which
// `fold_end_returns` and `strip_tail_returns` then read as a module's copied returns.
bool is_epilogue_store(const StmtPtr& s) {
  return is_name_store(s, "__static_attributes__") || is_name_store(s, "__classdictcell__");
}

// The epilogue's stores ending every branch of the statements before one shared return (copies
// of the exit block that the decoder read as branches falling into it).
void strip_trailing_epilogue_stores(Body& body) {
  while (!body.empty() && is_epilogue_store(body.back())) body.pop_back();
  if (body.empty()) return;
  StmtPtr& last = body.back();
  if (last->kind == StmtKind::If || last->kind == StmtKind::Try || last->kind == StmtKind::With) {
    for (Body& inner : last->bodies) strip_trailing_epilogue_stores(inner);
    for (ExceptHandler& handler : last->handlers) strip_trailing_epilogue_stores(handler.body);
  }
}

void strip_class_epilogues(Body& body) {
  for (size_t k = 0; k < body.size(); ++k) {
    StmtPtr& s = body[k];
    if (is_class_return(s)) {
      size_t first = k;
      while (first > 0 && is_epilogue_store(body[first - 1])) --first;
      if (first < k || !is_return_none(s)) {
        body.erase(body.begin() + static_cast<long>(first), body.begin() + static_cast<long>(k));
        k = first;
        body[k] = make_stmt(StmtKind::Return);
      }
      if (k > 0) {
        StmtPtr& before = body[k - 1];
        if (before->kind == StmtKind::If || before->kind == StmtKind::Try ||
            before->kind == StmtKind::With) {
          for (Body& inner : before->bodies) strip_trailing_epilogue_stores(inner);
          for (ExceptHandler& handler : before->handlers)
            strip_trailing_epilogue_stores(handler.body);
        }
      }
      continue;
    }
    if (s->kind == StmtKind::FunctionDef || s->kind == StmtKind::ClassDef) continue;
    for (Body& inner : s->bodies) strip_class_epilogues(inner);
    for (ExceptHandler& handler : s->handlers) strip_class_epilogues(handler.body);
  }
}

// The attribute names stored on `self` anywhere in a target (3.13 collects `self.name` stores
// into the class's `__static_attributes__`).
void self_stores_in_target(const ExprPtr& e, std::set<std::string>& out) {
  if (!e) return;
  if (e->kind == ExprKind::Attribute) {
    if (!e->args.empty() && e->args[0] && e->args[0]->kind == ExprKind::Name &&
        e->args[0]->text == "self")
      out.insert(e->text);
    return;
  }
  if (e->kind == ExprKind::Tuple || e->kind == ExprKind::List || e->kind == ExprKind::Starred) {
    for (const ExprPtr& arg : e->args) self_stores_in_target(arg, out);
  }
}

void self_stores_in_expr(const ExprPtr& e, std::set<std::string>& out, int depth = 0) {
  if (!e || depth > 200) return;
  for (const ComprehensionClause& clause : e->clauses) {
    self_stores_in_target(clause.target, out);
    self_stores_in_expr(clause.iter, out, depth + 1);
    for (const ExprPtr& c : clause.conditions) self_stores_in_expr(c, out, depth + 1);
  }
  for (const ExprPtr& arg : e->args) self_stores_in_expr(arg, out, depth + 1);
}

// The `self.name` stores of a class's functions (nested classes collect their own), and the
// functions among them that take `self` as their first parameter and hold a fallback (their
// whole body, or a region of it).
void self_stores(const Body& body, std::set<std::string>& out, std::vector<Stmt*>& fallbacks) {
  for (const StmtPtr& s : body) {
    if (s->kind == StmtKind::ClassDef) continue;
    switch (s->kind) {
      case StmtKind::Assign:
        for (size_t k = 0; k + 1 < s->exprs.size(); ++k) self_stores_in_target(s->exprs[k], out);
        break;
      case StmtKind::AnnAssign:
        if (s->exprs.size() >= 3 && s->exprs[2]) self_stores_in_target(s->exprs[0], out);
        break;
      case StmtKind::For:
        if (!s->exprs.empty()) self_stores_in_target(s->exprs[0], out);
        break;
      case StmtKind::With:
        for (size_t k = 1; k < s->exprs.size(); k += 2) self_stores_in_target(s->exprs[k], out);
        break;
      default:
        break;
    }
    for (const ExprPtr& e : s->exprs) self_stores_in_expr(e, out);
    if (s->kind == StmtKind::FunctionDef && s->bodies.size() == 1 &&
        std::any_of(s->bodies[0].begin(), s->bodies[0].end(),
                    [](const StmtPtr& t) { return t->kind == StmtKind::Fallback; }) &&
        s->header.rfind("self", 0) == 0 &&
        (s->header.size() == 4 ||
         !(std::isalnum(static_cast<unsigned char>(s->header[4])) || s->header[4] == '_'))) {
      fallbacks.push_back(s.get());
    }
    for (const Body& inner : s->bodies) self_stores(inner, out, fallbacks);
    for (const ExceptHandler& handler : s->handlers) self_stores(handler.body, out, fallbacks);
  }
}
}  // namespace

// The IMPORT_NAME value under a chain of IMPORT_FROMs. Only what IMPORT_NAME pushed names a
// module; anything else (possible in crafted bytecode) has no import statement form.
static ExprPtr import_root(const ExprPtr& value) {
  ExprPtr root = value;
  while (root && root->kind == ExprKind::Internal && root->text == "import_from" &&
         !root->args.empty()) {
    root = root->args[0];
  }
  if (!root || root->kind != ExprKind::Internal || root->text != "import" ||
      root->args.size() < 2) {
    throw DecodeFailure("import from a value that is not a module");
  }
  return root;
}

std::string import_statement_module(const ExprPtr& import) {
  ExprPtr root = import_root(import);
  int level = 0;
  if (root->args[0] && root->args[0]->kind == ExprKind::Constant) {
    const std::string& text = root->args[0]->text;
    // A relative import's level is a small count of dots (crafted code may hold any integer).
    if (text.size() > 4 || text.find_first_not_of("0123456789") != std::string::npos)
      throw DecodeFailure("import level out of range");
    level = std::atoi(text.c_str());
  }
  return std::string(static_cast<size_t>(std::max(level, 0)), '.') +
         (root->ops.empty() ? "" : root->ops[0]);
}

ExprPtr CodeDecoder::make_function(const Operation& op) {
  if (profile_.make_function_takes_qualname) pop();  // the qualified name
  ExprPtr code = pop();
  if (!is_internal(code, "code")) throw DecodeFailure("MAKE_FUNCTION without a code object");
  ExprPtr closure = (op.arg & 0x08) ? pop() : nullptr;
  ExprPtr annotations = (op.arg & 0x04) ? pop() : nullptr;
  ExprPtr kwdefaults = (op.arg & 0x02) ? pop() : nullptr;
  ExprPtr defaults = (op.arg & 0x01) ? pop() : nullptr;
  auto function = make_expr(ExprKind::Internal, {defaults, kwdefaults, annotations}, "function");
  function->ref = code->ref;
  const auto& nested = *functions_[static_cast<size_t>(code->ref)];
  if (nested.name == "<lambda>") return lambda_expr(function);
  return function;
}

ExprPtr CodeDecoder::annotation_source(const ExprPtr& annotation) const {
  if (!(code_.flags & kFlagFutureAnnotations) || !is_str_constant(annotation) ||
      annotation->ops.empty() || !AnnotationSource(annotation->ops[0]).valid()) {
    return annotation;
  }
  return make_name(annotation->ops[0]);  // printed as it is
}

std::string CodeDecoder::parameters(const bytecode::CodeObject& code, const ExprPtr& function,
                                    ExprPtr* returns) {
  const std::vector<std::string>& names = code.varnames;
  int positional = code.argcount;
  int kwonly = code.kwonlyargcount;
  bool varargs = code.flags & kFlagVarargs;
  bool varkeywords = code.flags & kFlagVarkeywords;
  size_t needed =
      static_cast<size_t>(positional + kwonly + (varargs ? 1 : 0) + (varkeywords ? 1 : 0));
  if (names.size() < needed) throw DecodeFailure("too few variable names for the parameters");
  ExprPtr defaults = function->args[0];
  ExprPtr kwdefaults = function->args[1];
  ExprPtr annotation_list = function->args[2];
  std::vector<std::pair<std::string, ExprPtr>> annotations;
  if (annotation_list) {
    if (annotation_list->kind != ExprKind::Tuple)
      throw DecodeFailure("annotations are not a tuple");
    for (size_t k = 0; k + 1 < annotation_list->args.size(); k += 2) {
      annotations.push_back(
          {key_name(annotation_list->args[k]), annotation_source(annotation_list->args[k + 1])});
    }
  }
  auto annotation_of = [&](const std::string& name) -> ExprPtr {
    for (auto& [key, value] : annotations) {
      if (key == name) return value;
    }
    return nullptr;
  };
  if (returns) *returns = annotation_of("return");
  std::vector<ExprPtr> default_values;
  if (defaults) {
    if (defaults->kind != ExprKind::Tuple) throw DecodeFailure("defaults are not a tuple");
    default_values = defaults->args;
  }
  auto one = [&](const std::string& raw, ExprPtr value) {
    std::string name = source_name(raw);
    ExprPtr annotation = annotation_of(raw);
    std::string text = name;
    if (annotation) text += ": " + print_expr(*annotation, Precedence::Test);
    if (value) text += (annotation ? " = " : "=") + print_expr(*value, Precedence::Test);
    return text;
  };
  std::vector<std::string> parts;
  size_t first_default = static_cast<size_t>(positional) -
                         std::min(default_values.size(), static_cast<size_t>(positional));
  for (int k = 0; k < positional; ++k) {
    ExprPtr value = static_cast<size_t>(k) >= first_default
                        ? default_values[static_cast<size_t>(k) - first_default]
                        : nullptr;
    parts.push_back(one(names[static_cast<size_t>(k)], value));
    if (k + 1 == code.posonlyargcount) parts.push_back("/");
  }
  size_t next = static_cast<size_t>(positional + kwonly);
  if (varargs) {
    parts.push_back("*" + one(names[next], nullptr));
    ++next;
  } else if (kwonly > 0) {
    parts.push_back("*");
  }
  for (int k = 0; k < kwonly; ++k) {
    const std::string& raw = names[static_cast<size_t>(positional + k)];
    ExprPtr value;
    if (kwdefaults && kwdefaults->kind == ExprKind::Dict) {
      for (size_t m = 0; m + 1 < kwdefaults->args.size(); m += 2) {
        if (key_name(kwdefaults->args[m]) == raw) value = kwdefaults->args[m + 1];
      }
    }
    parts.push_back(one(raw, value));
  }
  if (varkeywords) parts.push_back("**" + one(names[next], nullptr));
  std::string out;
  for (size_t k = 0; k < parts.size(); ++k) out += (k ? ", " : "") + parts[k];
  return out;
}

namespace {

// A lambda's body as its one expression. 3.12+ copies the return into both branches of a
// conditional expression: `if c: return a` then `return b` (or an if/else) is `a if c else b`.
ExprPtr lambda_body_expression(const Body& body, size_t from = 0, int depth = 0) {
  if (from >= body.size() || depth > 100) return nullptr;
  const StmtPtr& s = body[from];
  if (s->kind == StmtKind::Return)
    return from + 1 == body.size() && !s->exprs.empty() ? s->exprs[0] : nullptr;
  if (s->kind != StmtKind::If || s->exprs.size() != 1 || s->bodies.size() < 2) return nullptr;
  ExprPtr then = lambda_body_expression(s->bodies[0], 0, depth + 1);
  ExprPtr other = s->bodies[1].empty()      ? lambda_body_expression(body, from + 1, depth + 1)
                  : from + 1 == body.size() ? lambda_body_expression(s->bodies[1], 0, depth + 1)
                                            : nullptr;
  if (!then || !other) return nullptr;
  return make_expr(ExprKind::IfExp, {then, s->exprs[0], other});
}

bool same_but_lines(const bytecode::CodeObject& a, const bytecode::CodeObject& b, int depth = 0);

bool same_constant(const bytecode::ObjectRef& a, const bytecode::ObjectRef& b, int depth) {
  if (!a || !b || a->kind != b->kind) return false;
  if (a->kind == bytecode::ObjectKind::Code) return same_but_lines(*a->code, *b->code, depth + 1);
  return bytecode::python_repr(*a) == bytecode::python_repr(*b);
}

// Whether two code objects are equal but for their line numbers.
bool same_but_lines(const bytecode::CodeObject& a, const bytecode::CodeObject& b, int depth) {
  if (depth > 50 || a.code != b.code || a.names != b.names ||
      a.localsplusnames != b.localsplusnames || a.localspluskinds != b.localspluskinds ||
      a.argcount != b.argcount || a.posonlyargcount != b.posonlyargcount ||
      a.kwonlyargcount != b.kwonlyargcount || a.flags != b.flags || a.qualname != b.qualname ||
      a.exceptiontable != b.exceptiontable || a.consts.size() != b.consts.size())
    return false;
  for (size_t k = 0; k < a.consts.size(); ++k) {
    if (!same_constant(a.consts[k], b.consts[k], depth)) return false;
  }
  return true;
}

// Whether `code` repeats, but for its line numbers, a code object `parent` holds before it: the
// compiler keeps one constant for equal code objects, and code objects of one line are equal.
bool repeats_earlier_code(const bytecode::CodeObject& parent, const bytecode::CodeObject& code) {
  for (const bytecode::ObjectRef& value : parent.consts) {
    if (!value || value->kind != bytecode::ObjectKind::Code) continue;
    if (value->code.get() == &code) return false;
    if (same_but_lines(*value->code, code)) return true;
  }
  return false;
}

}  // namespace

// Whether the lambda or comprehension made from functions_[ref] starts a line of its own: its
// code object repeats an earlier one of this code but for its lines (equal code objects of one
// line are one constant), and this is the first use of its own constant (the compiler made one
// constant of those of its line: later uses stay on that line).
bool CodeDecoder::starts_own_line(int ref) const {
  const bytecode::CodeObject& code = *functions_[static_cast<size_t>(ref)];
  int load = function_loads_[static_cast<size_t>(ref)];
  if (load < 0 || !repeats_earlier_code(code_, code)) return false;
  for (int k = 0; k < load; ++k) {
    const Operation& other = lifted_.ops[static_cast<size_t>(k)];
    if (other.op == Op::LoadConst && other.constant && other.constant->code.get() == &code)
      return false;
  }
  return true;
}

ExprPtr CodeDecoder::lambda_expr(const ExprPtr& function) {
  const auto& code = *functions_[static_cast<size_t>(function->ref)];
  CodeDecoder nested(code, CodeRole::Lambda, session_, class_name_);
  Body body = nested.decode();
  ExprPtr value = lambda_body_expression(body);
  if (!value) throw DecodeFailure("lambda body is not one expression");
  std::string params = parameters(code, function, nullptr);
  ExprPtr lambda = make_expr(ExprKind::Lambda, {value}, params);
  // (A repeated lambda goes on a line of its own, or the two would be one constant.)
  if (starts_own_line(function->ref)) lambda->ref = 1;
  return lambda;
}

ExprPtr CodeDecoder::comprehension(const ExprPtr& function, const ExprPtr& iter) {
  const auto& code = *functions_[static_cast<size_t>(function->ref)];
  CodeDecoder nested(code, CodeRole::Comprehension, session_, class_name_);
  ExprPtr result = comprehension_from_body(code.name, nested.decode(), iter);
  if (starts_own_line(function->ref)) result->ref = 1;  // (as a repeated lambda)
  return result;
}

namespace {

// The condition under which a comprehension's loop body goes on past `stmt`, where `stmt` only
// skips to the next item (its branches end in `continue` or fall through): `if not t:
// continue` (t); `if t: (if not a: continue) else: (if not b: continue)` (`a if t else b`, the
// compiler's jump on t to the tests of a or b); a branch that skips or goes on makes an and/or
// (`if t: (if not a: continue)` is `not t or a`; `if t: ... else: continue` is `t and ...`).
// nullptr where `stmt` is not that. Only the truth of a filter counts, so each reading runs the
// same tests in the same order as the statement.
ExprPtr filter_condition(const Stmt& stmt, int depth = 0);

ExprPtr filter_boolop(const char* word, const ExprPtr& a, const ExprPtr& b);

// A branch of such an if: its filters joined by `and`; nullptr where it is a lone `continue`
// (`skips`) or holds anything else.
ExprPtr filter_branch(const Body& body, bool& skips, int depth) {
  skips = body.size() == 1 && body[0]->kind == StmtKind::Continue;
  if (skips || body.empty()) return nullptr;
  ExprPtr joined = filter_condition(*body.back(), depth + 1);
  for (size_t k = body.size() - 1; joined && k-- > 0;) {
    ExprPtr one = filter_condition(*body[k], depth + 1);
    joined = one ? filter_boolop("and", one, joined) : nullptr;
  }
  return joined;
}

// `a and b` or `a or b`, a right operand of the same operator joined into it.
ExprPtr filter_boolop(const char* word, const ExprPtr& a, const ExprPtr& b) {
  std::vector<ExprPtr> values{a};
  if (b->kind == ExprKind::BoolOp && b->text == word) {
    values.insert(values.end(), b->args.begin(), b->args.end());
  } else {
    values.push_back(b);
  }
  return make_expr(ExprKind::BoolOp, std::move(values), word);
}

ExprPtr filter_condition(const Stmt& stmt, int depth) {
  if (stmt.kind != StmtKind::If || stmt.exprs.size() != 1 || depth > 100) return nullptr;
  const ExprPtr& test = stmt.exprs[0];
  bool then_skips = false;
  bool else_skips = false;
  ExprPtr yes = filter_branch(stmt.bodies[0], then_skips, depth);
  bool no_else = stmt.bodies.size() < 2 || stmt.bodies[1].empty();
  ExprPtr no = no_else ? nullptr : filter_branch(stmt.bodies[1], else_skips, depth);
  if ((!yes && !then_skips) || (!no_else && !no && !else_skips) || (then_skips && else_skips))
    return nullptr;
  if (then_skips) return no ? filter_boolop("and", negate(test), no) : negate(test);
  if (no_else) return filter_boolop("or", negate(test), yes);
  if (else_skips) return filter_boolop("and", test, yes);
  return make_expr(ExprKind::IfExp, {yes, test, no});
}

}  // namespace

// The comprehension whose loop nest is `body`: for statements become clauses, the tests around
// the innermost statement (or `if not test: continue` before it) become conditions, and the
// appended (or yielded) value is the element.
ExprPtr CodeDecoder::comprehension_from_body(const std::string& code_name, const Body& body,
                                             const ExprPtr& iter) const {
  ExprKind kind = code_name == "<listcomp>"   ? ExprKind::ListComp
                  : code_name == "<setcomp>"  ? ExprKind::SetComp
                  : code_name == "<dictcomp>" ? ExprKind::DictComp
                                              : ExprKind::GeneratorExp;
  auto result = make_expr(kind, {});
  const Body* level = &body;
  size_t at = 0;
  while (at < level->size()) {
    const StmtPtr& stmt = (*level)[at];
    bool no_else = stmt->bodies.size() < 2 || stmt->bodies[1].empty();
    if (stmt->kind == StmtKind::For && stmt->bodies[1].empty()) {
      result->clauses.push_back({stmt->exprs[0], stmt->exprs[1], {}, stmt->is_async});
      level = &stmt->bodies[0];
      at = 0;
      continue;
    }
    // compile.c's compiler_sync_comprehension_generator: a clause past the first iterating a
    // one-element list or tuple (`for y in [f(x)]`) is its element assigned to the target, no
    // loop; the rest of the level is the clause's body.
    if (stmt->kind == StmtKind::Assign && stmt->exprs.size() == 2 && !result->clauses.empty() &&
        stmt->exprs[1]->kind != ExprKind::Starred) {
      ExprPtr one = make_expr(ExprKind::Tuple, {stmt->exprs[1]});
      result->clauses.push_back({stmt->exprs[0], one, {}, false});
      ++at;
      continue;
    }
    if (ExprPtr condition = result->clauses.empty() ? nullptr : filter_condition(*stmt)) {
      result->clauses.back().conditions.push_back(condition);
      ++at;
      continue;
    }
    if (stmt->kind == StmtKind::If && !result->clauses.empty() && no_else &&
        at + 1 == level->size()) {
      result->clauses.back().conditions.push_back(stmt->exprs[0]);
      level = &stmt->bodies[0];
      at = 0;
      continue;
    }
    if (stmt->kind == StmtKind::Expr && is_internal(stmt->exprs[0], "append")) {
      result->args = stmt->exprs[0]->args;
      break;
    }
    if (stmt->kind == StmtKind::Expr && stmt->exprs[0]->kind == ExprKind::Yield &&
        !stmt->exprs[0]->args.empty()) {
      result->args = {stmt->exprs[0]->args[0] ? stmt->exprs[0]->args[0] : make_constant("None")};
      break;
    }
    throw DecodeFailure("unrecognized comprehension body");
  }
  if (result->clauses.empty() || result->args.empty()) throw DecodeFailure("empty comprehension");
  if ((kind == ExprKind::DictComp) != (result->args.size() == 2))
    throw DecodeFailure("comprehension element");
  result->clauses[0].iter = iter;
  return result;
}

int CodeDecoder::decode_inline_comprehension(int i) {
  const auto& ops = lifted_.ops;
  int count = static_cast<int>(ops.size());
  ExprPtr iter = pop();
  int k = i;
  std::vector<std::string> saved;
  while (k < count && ops[static_cast<size_t>(k)].op == Op::LoadFastAndClear)
    saved.push_back(ops[static_cast<size_t>(k++)].text);
  int n = static_cast<int>(saved.size());
  if (k + 3 >= count || ops[static_cast<size_t>(k)].op != Op::Swap ||
      ops[static_cast<size_t>(k + 2)].op != Op::Swap ||
      ops[static_cast<size_t>(k + 3)].op != Op::ForIter || !is_internal(iter, "iter")) {
    throw DecodeFailure("inlined comprehension shape");
  }
  Op build = ops[static_cast<size_t>(k + 1)].op;
  const char* name = build == Op::BuildList  ? "<listcomp>"
                     : build == Op::BuildSet ? "<setcomp>"
                     : build == Op::BuildMap ? "<dictcomp>"
                                             : nullptr;
  if (!name) throw DecodeFailure("inlined comprehension display");
  Body scratch;
  Body* saved_out = out_;
  out_ = &scratch;
  // The saved variables stay below the result; the stores that restore them leave no source.
  for (int m = 0; m < n; ++m) push(make_expr(ExprKind::Internal, {}, "saved_local"));
  push(make_expr(ExprKind::Internal, {}, "comprehension_result"));
  push(iter);
  size_t saved_depth = statement_depth_;
  statement_depth_ = stack_.size() - 1;
  int after = decode_for(k + 3, count);
  // The jump over the comprehension's cleanup handler, placed inline (after an async for's end).
  if (after + 1 < count && ops[static_cast<size_t>(after)].op == Op::Jump) {
    int over = ops[static_cast<size_t>(after)].target;
    if (over > after + 1 && over <= count && flow_.region_for_target(after + 1) &&
        ops[static_cast<size_t>(over - 1)].op == Op::Reraise) {
      mark_consumed(after, over);
      after = over;
    }
  }
  statement_depth_ = saved_depth;
  out_ = saved_out;
  pop();  // the result placeholder
  push(comprehension_from_body(name, scratch, iter->args[0]));
  return after;
}

ExprPtr CodeDecoder::call_special(ExprPtr callable, std::vector<ExprPtr>& args) {
  if (is_internal(callable, "function")) {
    const auto& code = *functions_[static_cast<size_t>(callable->ref)];
    bool is_comprehension = code.name == "<listcomp>" || code.name == "<setcomp>" ||
                            code.name == "<dictcomp>" || code.name == "<genexpr>";
    if (is_comprehension && args.size() == 1 && is_internal(args[0], "iter")) {
      return comprehension(callable, args[0]->args[0]);
    }
    if (code.name.rfind("<generic parameters of ", 0) == 0)
      return generic_definition(callable, args);
    throw DecodeFailure("call of a function object");
  }
  if (is_internal(callable, "build_class")) {
    if (args.size() < 2 || !is_internal(args[0], "function"))
      throw DecodeFailure("class without a body");
    auto cls = make_expr(ExprKind::Internal, args, "class");
    return cls;
  }
  return nullptr;
}

bool CodeDecoder::store_definition(const ExprPtr& target, const ExprPtr& value) {
  if (is_internal(value, "type_alias")) {
    if (target->kind != ExprKind::Name || value->ops.empty() || value->ops[0] != target->text)
      throw DecodeFailure("type alias stored under another name");
    auto stmt = make_stmt(StmtKind::TypeAlias, {value->args[0]});
    stmt->text = target->text;
    stmt->names.assign(value->ops.begin() + 1, value->ops.end());
    emit(stmt);
    return true;
  }
  std::vector<ExprPtr> decorators;
  ExprPtr inner = value;
  while (inner->kind == ExprKind::Call && inner->args.size() == 2 &&
         (inner->args[1]->kind == ExprKind::Call || is_internal(inner->args[1], "function") ||
          is_internal(inner->args[1], "class"))) {
    decorators.push_back(inner->args[0]);
    inner = inner->args[1];
  }
  bool is_function = is_internal(inner, "function");
  if (!is_function && !is_internal(inner, "class")) return false;
  if (target->kind != ExprKind::Name) throw DecodeFailure("definition stored to a non-name");
  emit(is_function ? function_def(target->text, inner, decorators)
                   : class_def(target->text, inner, decorators));
  return true;
}

StmtPtr CodeDecoder::function_def(const std::string& name, const ExprPtr& function,
                                  std::vector<ExprPtr> decorators) {
  const auto& code = *functions_[static_cast<size_t>(function->ref)];
  auto stmt = make_stmt(StmtKind::FunctionDef);
  stmt->text = name;
  stmt->header = parameters(code, function, &stmt->returns);
  stmt->names = function->ops;  // type parameters (see generic_definition)
  stmt->decorators = std::move(decorators);
  stmt->is_async = code.flags & (kFlagCoroutine | kFlagAsyncGenerator);
  stmt->bodies.push_back(decode_nested(code, CodeRole::Function, session_, class_name_));
  return stmt;
}

StmtPtr CodeDecoder::class_def(const std::string& name, const ExprPtr& cls,
                               std::vector<ExprPtr> decorators) {
  const auto& code = *functions_[static_cast<size_t>(cls->args[0]->ref)];
  auto stmt = make_stmt(StmtKind::ClassDef);
  stmt->text = name;
  stmt->exprs.assign(cls->args.begin() + 2, cls->args.end());
  stmt->names = cls->ops;  // type parameters (see generic_definition)
  stmt->decorators = std::move(decorators);
  stmt->bodies.push_back(decode_nested(code, CodeRole::Class, session_, code.name));
  return stmt;
}

// ---- 3.12+ type parameters (PEP 695).

// CALL_INTRINSIC_1: 7 TYPEVAR, 8 PARAMSPEC, 9 TYPEVARTUPLE define a type parameter from its
// name; 10 SUBSCRIPT_GENERIC makes a generic class's Generic[...] base; 11 TYPEALIAS makes a
// `type` statement's value from (name, type parameters, lazily evaluated value).
void CodeDecoder::call_intrinsic1(const Operation& op) {
  switch (op.arg) {
    case 7:
    case 8:
    case 9: {
      std::string name = key_name(pop());
      if (name.empty()) throw DecodeFailure("type parameter without a name");
      type_params_.push_back((op.arg == 8 ? "**" : op.arg == 9 ? "*" : "") + name);
      return push(make_expr(ExprKind::Internal, {}, "type_param"));
    }
    case 10:
      pop();
      return push(make_expr(ExprKind::Internal, {}, "generic_base"));
    case 11: {
      ExprPtr tuple = pop();
      if (tuple->kind != ExprKind::Tuple || tuple->args.size() != 3 ||
          !is_internal(tuple->args[2], "function")) {
        throw DecodeFailure("type alias shape");
      }
      std::string name = key_name(tuple->args[0]);
      if (name.empty()) throw DecodeFailure("type alias without a name");
      auto alias = make_expr(ExprKind::Internal, {lazy_value(tuple->args[2])}, "type_alias");
      alias->ops.push_back(name);
      if (!is_none(tuple->args[1]))
        alias->ops.insert(alias->ops.end(), type_params_.begin(), type_params_.end());
      return push(alias);
    }
    default:
      throw DecodeFailure("unsupported intrinsic function " + std::to_string(op.arg));
  }
}

// CALL_INTRINSIC_2: 2 TYPEVAR_WITH_BOUND and 3 TYPEVAR_WITH_CONSTRAINTS (name, lazily evaluated
// bound); 4 SET_FUNCTION_TYPE_PARAMS (function, type parameters), which generic_definition reads
// from the parameters recorded here.
void CodeDecoder::call_intrinsic2(const Operation& op) {
  ExprPtr second = pop();
  ExprPtr first = pop();
  switch (op.arg) {
    case 2:
    case 3: {
      std::string name = key_name(first);
      if (name.empty() || !is_internal(second, "function"))
        throw DecodeFailure("type parameter bound shape");
      ExprPtr bound = lazy_value(second);
      if ((op.arg == 3) != (bound->kind == ExprKind::Tuple))
        throw DecodeFailure("type parameter constraints shape");
      type_params_.push_back(name + ": " + print_expr(*bound, Precedence::Test));
      return push(make_expr(ExprKind::Internal, {}, "type_param"));
    }
    case 4:
      if (!is_internal(first, "function")) throw DecodeFailure("type parameters of a non-function");
      return push(first);
    default:
      throw DecodeFailure("unsupported intrinsic function " + std::to_string(op.arg));
  }
}

// The value of a lazily evaluated function (a type alias's value, a type parameter's bound): the
// one expression it returns.
ExprPtr CodeDecoder::lazy_value(const ExprPtr& function) {
  const auto& code = *functions_[static_cast<size_t>(function->ref)];
  CodeDecoder nested(code, CodeRole::Lambda, session_, class_name_);
  Body body = nested.decode();
  if (body.size() != 1 || body[0]->kind != StmtKind::Return || body[0]->exprs.empty() ||
      !body[0]->exprs[0]) {
    throw DecodeFailure("lazily evaluated value is not one expression");
  }
  return body[0]->exprs[0];
}

// `def f[T](...)`, `class C[T](...)` and `type A[T] = ...`: the compiler wraps the definition in a
// `<generic parameters of X>` function that defines the type parameters and returns it, called
// at once (with the defaults as its arguments).
ExprPtr CodeDecoder::generic_definition(const ExprPtr& callable, const std::vector<ExprPtr>& args) {
  const auto& code = *functions_[static_cast<size_t>(callable->ref)];
  if (args.size() > static_cast<size_t>(code.argcount))
    throw DecodeFailure("generic parameters called with extra arguments");
  CodeDecoder nested(code, CodeRole::Function, session_, class_name_);
  Body body = nested.decode();
  if (body.empty() || body.back()->kind != StmtKind::Return || body.back()->exprs.empty() ||
      !body.back()->exprs[0] || nested.type_params_.empty()) {
    throw DecodeFailure("generic parameters without a definition");
  }
  ExprPtr result = body.back()->exprs[0];
  // `.defaults` and `.kwdefaults` are the call's arguments.
  auto argument = [&](const ExprPtr& e) {
    for (size_t k = 0; e && e->kind == ExprKind::Name && k < args.size(); ++k) {
      if (k < code.varnames.size() && code.varnames[k] == e->text) return args[k];
    }
    return e;
  };
  auto adopt = [&](const ExprPtr& function) {
    if (!is_internal(function, "function") || function->ref < 0 ||
        static_cast<size_t>(function->ref) >= nested.functions_.size()) {
      throw DecodeFailure("generic definition without its function");
    }
    auto copy = std::make_shared<Expr>(*function);
    copy->ref = static_cast<int>(functions_.size());
    functions_.push_back(nested.functions_[static_cast<size_t>(function->ref)]);
    function_loads_.push_back(-1);
    for (ExprPtr& arg : copy->args) arg = argument(arg);
    return copy;
  };
  if (is_internal(result, "function")) {
    ExprPtr function = adopt(result);
    function->ops = nested.type_params_;
    return function;
  }
  if (is_internal(result, "class") && !result->args.empty()) {
    auto cls = std::make_shared<Expr>(*result);
    cls->args.clear();
    for (size_t k = 0; k < result->args.size(); ++k) {
      const ExprPtr& arg = result->args[k];
      if (k == 0) {
        cls->args.push_back(adopt(arg));
      } else if (!(arg->kind == ExprKind::Name && arg->text == ".generic_base") &&
                 !is_internal(arg, "generic_base")) {
        cls->args.push_back(arg);
      }
    }
    cls->ops = nested.type_params_;
    return cls;
  }
  if (is_internal(result, "type_alias")) return result;
  throw DecodeFailure("generic parameters of an unknown definition");
}

bool CodeDecoder::store_import(const ExprPtr& target, const ExprPtr& value) {
  if (target->kind != ExprKind::Name) return false;
  if (is_internal(value, "import")) {
    const std::string module = value->ops.empty() ? "" : value->ops[0];
    if (!is_none(value->args[1]) || (value->args[0] && value->args[0]->text != "0")) {
      throw DecodeFailure("import stored directly");
    }
    std::string first = module.substr(0, module.find('.'));
    auto stmt = make_stmt(StmtKind::Import);
    if (target->text == first) {
      stmt->text = "import " + module;
    } else if (module.find('.') == std::string::npos) {
      stmt->text = "import " + module + " as " + target->text;
    } else {
      throw DecodeFailure("dotted import stored under another name");
    }
    emit(stmt);
    return true;
  }
  if (is_internal(value, "import_from")) {
    ExprPtr root = import_root(value);
    if (value->ops.empty()) throw DecodeFailure("import of an unnamed attribute");
    std::string name = value->ops[0];
    if (is_none(root->args[1])) {  // import a.b.c as d
      auto stmt = make_stmt(StmtKind::Import);
      stmt->text = "import " + (root->ops.empty() ? "" : root->ops[0]) + " as " + target->text;
      emit(stmt);
      return true;
    }
    root->args.push_back(make_name(name == target->text ? name : name + " as " + target->text));
    return true;
  }
  return false;
}

void CodeDecoder::emit_import_from(const ExprPtr& module) {
  if (module->args.size() <= 2) return;  // the intermediate module of `import a.b as c`
  auto stmt = make_stmt(StmtKind::Import);
  stmt->text = "from " + import_statement_module(module) + " import ";
  for (size_t k = 2; k < module->args.size(); ++k)
    stmt->text += (k > 2 ? ", " : "") + module->args[k]->text;
  emit(stmt);
}

namespace {

// The operations of 3.12+ comprehensions inlined into this code: from the LOAD_FAST_AND_CLEAR
// that saves their variables to their loop's exit. Inlined into a class body, they read the
// names they do not bind with LOAD_GLOBAL (a comprehension does not see the class's names).
std::vector<bool> inlined_comprehension_ops(const std::vector<Operation>& ops) {
  std::vector<bool> inside(ops.size(), false);
  size_t count = ops.size();
  for (size_t k = 0; k < count; ++k) {
    if (ops[k].op != Op::LoadFastAndClear || (k > 0 && ops[k - 1].op == Op::LoadFastAndClear))
      continue;
    size_t loop = k;
    while (loop < count && ops[loop].op == Op::LoadFastAndClear) ++loop;
    loop += 3;  // SWAP, the display, SWAP
    if (loop >= count || ops[loop].op != Op::ForIter || ops[loop - 1].op != Op::Swap) continue;
    size_t end = std::min(count, static_cast<size_t>(std::max(ops[loop].target, 0)));
    for (size_t m = k; m < end; ++m) inside[m] = true;
  }
  return inside;
}

}  // namespace

void CodeDecoder::add_declarations(Body& body) const {
  std::set<std::string> globals_seen;
  std::set<std::string> nonlocals_seen;
  std::vector<std::string> globals;
  std::vector<std::string> nonlocals;
  std::vector<bool> inlined = inlined_comprehension_ops(lifted_.ops);
  for (size_t k = 0; k < lifted_.ops.size(); ++k) {
    const Operation& op = lifted_.ops[k];
    bool writes = op.op == Op::StoreName || op.op == Op::DeleteName;
    if (op.scope == Scope::Global && (writes || (role_ == CodeRole::Class && !inlined[k])) &&
        (op.op == Op::StoreName || op.op == Op::DeleteName || op.op == Op::LoadName)) {
      if (globals_seen.insert(op.text).second) globals.push_back(source_name(op.text));
    }
    if (op.scope == Scope::Deref && writes && role_ == CodeRole::Function &&
        std::find(code_.freevars.begin(), code_.freevars.end(), op.text) != code_.freevars.end()) {
      if (nonlocals_seen.insert(op.text).second) nonlocals.push_back(source_name(op.text));
    }
  }
  size_t at =
      (!body.empty() && body[0]->kind == StmtKind::Expr && is_str_constant(body[0]->exprs[0])) ? 1
                                                                                               : 0;
  // `from __future__` imports must stay first.
  while (at < body.size() && body[at]->kind == StmtKind::Import &&
         body[at]->text.rfind("from __future__ ", 0) == 0)
    ++at;
  if (!nonlocals.empty()) {
    auto stmt = make_stmt(StmtKind::Nonlocal);
    stmt->names = nonlocals;
    body.insert(body.begin() + static_cast<long>(at), stmt);
  }
  if (!globals.empty()) {
    auto stmt = make_stmt(StmtKind::Global);
    stmt->names = globals;
    body.insert(body.begin() + static_cast<long>(at), stmt);
  }
}

// 3.13 collects every `self.name` store of a class's functions into its
// `__static_attributes__`; the stores of a function that fell back are lost with its code. They
// are written after the fallback's raise, where they never run but still count.
void CodeDecoder::keep_static_attributes(Body& body) const {
  std::set<std::string> expected;
  for (size_t k = 0; k + 1 < lifted_.ops.size(); ++k) {
    const Operation& load = lifted_.ops[k];
    const Operation& store = lifted_.ops[k + 1];
    if (load.op != Op::LoadConst || store.op != Op::StoreName ||
        store.text != "__static_attributes__" || !load.constant ||
        load.constant->kind != bytecode::ObjectKind::Tuple) {
      continue;
    }
    for (const bytecode::ObjectRef& item : load.constant->items) {
      if (item && item->kind == bytecode::ObjectKind::Str) expected.insert(item->text);
    }
  }
  if (expected.empty()) return;
  std::set<std::string> found;
  std::vector<Stmt*> fallbacks;
  self_stores(body, found, fallbacks);
  if (fallbacks.empty()) return;
  std::vector<ExprPtr> targets;
  for (const std::string& name : expected) {
    if (!found.count(name) && is_identifier(name))
      targets.push_back(make_expr(ExprKind::Attribute, {make_name("self")}, name));
  }
  if (targets.empty()) return;
  auto comment = make_stmt(StmtKind::Comment);
  comment->text = "glassbox: never runs; keeps the class's __static_attributes__";
  targets.push_back(make_constant("None"));
  fallbacks[0]->bodies[0].push_back(comment);
  fallbacks[0]->bodies[0].push_back(make_stmt(StmtKind::Assign, std::move(targets)));
}

// How many statements open a class body as its prologue (profile.hpp
// class_records_firstlineno): `__module__`, `__qualname__` and on 3.13+ `__firstlineno__`, each
// once and in that order. A written `__qualname__ = '...'` or `__module__ = 're'` after them
// stays, first in the body though it is.
size_t CodeDecoder::class_prologue_length(const Body& body) const {
  static const char* const kPrologue[] = {"__module__", "__qualname__", "__firstlineno__"};
  size_t length = profile_.class_records_firstlineno ? 3 : 2;
  size_t k = 0;
  while (k < length && k < body.size() && is_name_store(body[k], kPrologue[k])) ++k;
  return k;
}

// 3.11 (keeps_dead_end_none): a None among the constants that no instruction loads, with only
// tuples after it (those fold_tuple_on_constants adds after code generation): assemble's
// `return None` for code falling off the end of an empty block, removed as unreachable.
bool CodeDecoder::has_dead_end_none() const {
  if (!profile_.keeps_dead_end_none) return false;
  const auto& consts = code_.consts;
  for (size_t k = 1; k < consts.size(); ++k) {
    if (consts[k]->kind != bytecode::ObjectKind::None) continue;
    if (std::any_of(lifted_.ops.begin(), lifted_.ops.end(),
                    [&](const Operation& op) { return op.constant == consts[k]; }))
      return false;
    return k + 1 < consts.size() &&
           std::all_of(consts.begin() + static_cast<long>(k) + 1, consts.end(),
                       [](const auto& c) { return c->kind == bytecode::ObjectKind::Tuple; });
  }
  return false;
}

namespace {

bool ends_in_exit(const Body& body) {
  return !body.empty() &&
         (body.back()->kind == StmtKind::Return || body.back()->kind == StmtKind::Raise);
}

// A function ending in a return or raise after an if whose then-branch ends in one, where the
// code's constants hold the None of a dead end (has_dead_end_none): compiler_if left the
// function's code in the empty block after an if/else, whose else held the rest. Both run the
// same code: the then-branch never falls through.
void fold_final_else(Body& body) {
  if (!ends_in_exit(body)) return;
  for (size_t k = body.size() - 1; k-- > 0;) {
    StmtPtr& s = body[k];
    if (s->kind != StmtKind::If) continue;
    if (s->bodies.size() < 2 || !s->bodies[1].empty() || !ends_in_exit(s->bodies[0])) return;
    s->bodies[1].assign(body.begin() + static_cast<long>(k) + 1, body.end());
    body.resize(k + 1);
    return;
  }
}

// Module and class code hold no written `return`: one inside a loop that ends the code is a
// `break` whose jump to the code after the loop, the code's end, became a copy of that code
// (3.10 extend_block, 3.11+ inline_small_exit_blocks, or the jump to the next block removed),
// ending in the implicit `return None` (compiler_while/compiler_for, compiler_break).

// The loops ending `body` (nothing after them up to the code's end, through if branches), with
// the statement list holding each.
void tail_loops(Body& body, std::vector<std::pair<Body*, size_t>>& loops) {
  if (body.empty()) return;
  Stmt& last = *body.back();
  if (last.kind == StmtKind::While || last.kind == StmtKind::For) {
    loops.emplace_back(&body, body.size() - 1);
  } else if (last.kind == StmtKind::If) {
    for (Body& inner : last.bodies) tail_loops(inner, loops);
  }
}

struct LoopReturn {
  Body* body;
  size_t index;
  bool uncovered;  // reached through if branches and try elses only: no handler, no clause
};

// The returns and breaks of one loop's body (not of loops or definitions nested in it).
void loop_exits(Body& body, bool uncovered, std::vector<LoopReturn>& returns, bool& breaks) {
  for (size_t k = 0; k < body.size(); ++k) {
    Stmt& s = *body[k];
    if (s.kind == StmtKind::Return) returns.push_back({&body, k, uncovered});
    if (s.kind == StmtKind::Break) breaks = true;
    if (s.kind == StmtKind::While || s.kind == StmtKind::For || s.kind == StmtKind::FunctionDef ||
        s.kind == StmtKind::ClassDef) {
      continue;
    }
    for (size_t b = 0; b < s.bodies.size(); ++b) {
      bool open = s.kind == StmtKind::If ||
                  (s.kind == StmtKind::Try && b == 1 && s.bodies.size() > 2 && s.bodies[2].empty());
      loop_exits(s.bodies[b], uncovered && open, returns, breaks);
    }
    for (ExceptHandler& handler : s.handlers) loop_exits(handler.body, false, returns, breaks);
  }
}

int max_line(const Body& body, const Stmt* skip_from, const Stmt* skip_to) {
  int line = 0;
  bool skipping = false;
  for (const StmtPtr& s : body) {
    if (s.get() == skip_from) skipping = true;
    if (!skipping) {
      line = std::max(line, s->line);
      for (const Body& inner : s->bodies)
        line = std::max(line, max_line(inner, skip_from, skip_to));
      for (const ExceptHandler& h : s->handlers)
        line = std::max(line, max_line(h.body, skip_from, skip_to));
    }
    if (s.get() == skip_to) skipping = false;
  }
  return line;
}

// How many statements before a loop's one return are the copy of the code after the loop: those
// whose lines all follow every other line of the loop (the code after a loop comes after it).
size_t copied_run(const Stmt& loop, const LoopReturn& r) {
  const Body& body = *r.body;
  size_t start = r.index;
  while (start > 0 && body[start - 1]->line > 0 &&
         body[start - 1]->line > std::max(loop.line, max_line(loop.bodies[0], body[start - 1].get(),
                                                              body[r.index].get()))) {
    --start;
  }
  return r.index - start;
}

void loop_returns_to_breaks(Body& outer, size_t at) {
  Stmt& loop = *outer[at];
  std::vector<LoopReturn> returns;
  bool breaks = false;
  loop_exits(loop.bodies[0], true, returns, breaks);
  if (returns.empty()) return;
  for (const LoopReturn& r : returns) {
    if (!is_return_none((*r.body)[r.index])) return;
  }
  // One return may carry a copy of the code after the loop (which then runs after it), where no
  // other way out of the loop skips that code and no handler covered the copy.
  size_t copied = 0;
  if (returns.size() == 1 && returns[0].uncovered && !breaks &&
      (loop.bodies.size() < 2 || loop.bodies[1].empty())) {
    copied = copied_run(loop, returns[0]);
  }
  for (auto r = returns.rbegin(); r != returns.rend(); ++r) {
    Body& body = *r->body;
    StmtPtr brk = make_stmt(StmtKind::Break);
    brk->line = body[r->index]->line;
    Body after(body.begin() + static_cast<long>(r->index - copied),
               body.begin() + static_cast<long>(r->index));
    body.erase(body.begin() + static_cast<long>(r->index - copied),
               body.begin() + static_cast<long>(r->index) + 1);
    body.insert(body.begin() + static_cast<long>(r->index - copied), brk);
    outer.insert(outer.end(), after.begin(), after.end());
  }
}

}  // namespace

Body CodeDecoder::finish_body(Body body) const {
  switch (role_) {
    case CodeRole::Module:
    case CodeRole::Class: {
      if (role_ == CodeRole::Class) {
        strip_class_epilogues(body);
        keep_static_attributes(body);
      }
      Body kept;
      size_t prologue = role_ == CodeRole::Class ? class_prologue_length(body) : 0;
      for (size_t k = prologue; k < body.size(); ++k) {
        const StmtPtr& s = body[k];
        if (role_ == CodeRole::Class &&
            (is_name_store(s, "__static_attributes__") || is_name_store(s, "__type_params__") ||
             is_name_store(s, "__classdictcell__"))) {
          continue;
        }
        if (is_name_store(s, "__doc__") && is_str_constant(s->exprs[1]) && kept.empty()) {
          kept.push_back(make_stmt(StmtKind::Expr, {docstring(s->exprs[1])}));
          kept.back()->line = s->line;
          continue;
        }
        kept.push_back(s);
      }
      body = std::move(kept);
      if (role_ == CodeRole::Class && !body.empty() && body.back()->kind == StmtKind::Return)
        body.pop_back();
      if (contains_return(body)) fold_end_returns(body);
      strip_tail_returns(body);
      if (contains_return(body)) {
        std::vector<std::pair<Body*, size_t>> loops;
        tail_loops(body, loops);
        for (auto& [holder, at] : loops) loop_returns_to_breaks(*holder, at);
      }
      if (contains_return(body)) throw DecodeFailure("return outside a function");
      break;
    }
    case CodeRole::Function: {
      // 3.10/3.11 give each jump to the implicit `return None` (no line of its own) a copy of it
      // (compile.c: extend_block, duplicate_exits_without_lineno; 3.10's copy takes the line of
      // the code before it, 3.11's has none; a written `return` and its copies keep their own).
      // A then-branch ending in such a copy, followed by the rest of the function, is an
      // if/else: read as an early return, the rest compiles the same, but the tests of an
      // `and`/`or` in the branch would all jump to one written `return`, where the compiler
      // gives each its own copy. (Both readings run the same code.)
      if (profile_.copies_exits_per_jump) fold_end_returns(body, true);
      strip_tail_returns(body, true);
      if (has_dead_end_none()) fold_final_else(body);
      if (code_.flags & kFlagAsyncGenerator) bare_returns(body);
      // A generator whose every yield was unreachable (`return` then `yield`): the yield that
      // made it one comes back, after a return.
      if ((code_.flags & (kFlagGenerator | kFlagAsyncGenerator)) && !body_yields(body)) {
        if (body.empty() || body.back()->kind != StmtKind::Return)
          body.push_back(make_stmt(StmtKind::Return));
        body.push_back(make_stmt(StmtKind::Expr, {make_expr(ExprKind::Yield, {})}));
      }
      // 3.10-3.13 put the docstring, or None, first among a function's constants.
      // (Triple-quoted straight from the text where it can be: its repr would go unused.)
      if (!code_.consts.empty() && code_.consts[0]->kind == bytecode::ObjectKind::Str) {
        ExprPtr doc = triple_quoted(code_.consts[0]->text);
        body.insert(body.begin(),
                    make_stmt(StmtKind::Expr, {doc ? doc : docstring(constant(code_.consts[0]))}));
      }
      break;
    }
    case CodeRole::Lambda:
    case CodeRole::Comprehension:
      return body;
  }
  add_declarations(body);
  if (session_.output == Output::Readable) {
    if (role_ == CodeRole::Function) add_interface_names(body);
    return body;
  }
  add_folded_true_test(body);
  if (role_ == CodeRole::Function) add_name_order(body);
  if (role_ == CodeRole::Module || role_ == CodeRole::Class) add_unused_names(body);
  return body;
}

}  // namespace glassbox::decompiler
