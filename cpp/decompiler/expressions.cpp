// The symbolic stack: operations that compute values become expression trees; operations that
// consume a value at statement level (stores, POP_TOP, returns, raises) become statements.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <functional>
#include <set>
#include <string>
#include <utility>

#include "bytecode/repr.hpp"
#include "decompiler/decoder.hpp"
#include "decompiler/dominators.hpp"
#include "decompiler/percent_format.hpp"
#include "decompiler/printer.hpp"

namespace glassbox::decompiler {

namespace {

using bytecode::ObjectKind;

ExprPtr internal(const char* tag, std::vector<ExprPtr> args = {}) {
  return make_expr(ExprKind::Internal, std::move(args), tag);
}

// The slots of one unpacking of `source` into `count` targets: slot k, once stored, fills
// target k of the group; the group counts in `ref` how many are filled.
std::vector<ExprPtr> unpack_slots(ExprPtr source, size_t count) {
  auto group = internal("unpack", {std::move(source)});
  group->clauses.resize(count);  // the targets, filled by stores
  group->ref = 0;
  std::vector<ExprPtr> slots;
  for (size_t k = 0; k < count; ++k) {
    slots.push_back(internal("unpack_slot", {group}));
    slots.back()->ref = static_cast<int>(k);
  }
  return slots;
}

// A format spec as the printer wants it: literal text, or an f-string of its own.
ExprPtr raw_spec(const ExprPtr& spec) {
  if (spec && spec->kind == ExprKind::Constant && !spec->ops.empty())
    return make_constant(spec->ops[0]);
  // A spec that is one nested field (`f"{n:{sep}}"`) has no BUILD_STRING: its FORMAT_VALUE
  // (FORMAT_SIMPLE in 3.13) result is the whole spec.
  if (spec && spec->kind == ExprKind::FormattedValue) return make_expr(ExprKind::JoinedStr, {spec});
  return spec;
}

// `not (a is b)` reads better, and compiles the same, as `a is not b`.
const char* negated_operator(const std::string& op) {
  if (op == "is") return "is not";
  if (op == "is not") return "is";
  if (op == "in") return "not in";
  if (op == "not in") return "in";
  return nullptr;
}

// The keyword a call's dict key spells: a string constant that is an identifier and no keyword;
// empty otherwise.
std::string keyword_name(const ExprPtr& key) {
  static const std::set<std::string> reserved = {
      "False", "None",     "True",  "and",    "as",   "assert", "async",  "await",    "break",
      "class", "continue", "def",   "del",    "elif", "else",   "except", "finally",  "for",
      "from",  "global",   "if",    "import", "in",   "is",     "lambda", "nonlocal", "not",
      "or",    "pass",     "raise", "return", "try",  "while",  "with",   "yield"};
  if (!key || key->kind != ExprKind::Constant || key->text.size() < 3 || key->text[0] != '\'' ||
      key->text.back() != '\'')
    return {};
  std::string name = key->text.substr(1, key->text.size() - 2);
  if (std::isdigit(static_cast<unsigned char>(name[0])) || reserved.count(name)) return {};
  bool plain = std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  });
  return plain ? name : std::string();
}

// Whether DICT_MERGE of `mapping` into `display` is a group of keyword arguments (`f(**a, k=v)`):
// the compiler gathers consecutive keywords into one group and merges a group only right after a
// `**` (the first group is the dict itself), a group compiling as a display of its keys would.
// Otherwise (merged into the empty dict the compiler starts with, or right after a group, or with
// keys that are no keywords or repeat one) it is a `**{...}` display.
bool keyword_group(const Expr& mapping, const Expr& display) {
  size_t size = display.args.size();
  if (mapping.kind != ExprKind::Dict || mapping.args.empty() || size < 2 || display.args[size - 2])
    return false;
  std::set<std::string> seen;
  for (size_t k = 0; k + 1 < display.args.size(); k += 2) {
    std::string name = keyword_name(display.args[k]);
    if (!name.empty()) seen.insert(name);
  }
  for (size_t k = 0; k + 1 < mapping.args.size(); k += 2) {
    std::string name = keyword_name(mapping.args[k]);
    if (name.empty() || !seen.insert(name).second) return false;
  }
  return true;
}

// Source that evaluates to the complex constant (real, imag) where its repr reads back otherwise:
// "-1j" is -(1j), complex(-0.0, -1.0), which repr writes "(-0-1j)"; complex(0.0, -1.0), repr
// "-1j", is 0-1j. Zero parts of mixed signs other than these keep the repr.
std::string complex_source(double real, double imag) {
  std::string repr = bytecode::repr_complex(real, imag);
  bool negative_real = std::signbit(real), negative_imag = std::signbit(imag);
  if (real != 0.0 || (!negative_real && !negative_imag)) return repr;
  if (negative_real && negative_imag) return "-" + bytecode::repr_complex(0.0, -imag);  // -(xj)
  if (imag == 0.0) return repr;  // complex(0.0, -0.0), complex(-0.0, 0.0): no constant spells
  std::string flipped = "(0-" + bytecode::repr_complex(0.0, std::fabs(imag)) + ")";
  return negative_real ? "-" + flipped : flipped;
}

}  // namespace

ExprPtr negate(const ExprPtr& e) {
  if (e->kind == ExprKind::Compare && e->ops.size() == 1) {
    if (const char* flipped = negated_operator(e->ops[0])) {
      auto copy = std::make_shared<Expr>(*e);
      copy->ops[0] = flipped;
      return copy;
    }
  }
  if (e->kind == ExprKind::UnaryOp && e->text == "not") return e->args[0];
  return make_expr(ExprKind::UnaryOp, {e}, "not");
}

bool CodeDecoder::is_null(const ExprPtr& e) const { return is_internal(e, "null"); }

ExprPtr CodeDecoder::pop_raw() {
  if (stack_.empty()) throw DecodeFailure("stack underflow");
  ExprPtr value = std::move(stack_.back());
  stack_.pop_back();
  return value;
}

// A stored value used again as a value: `(name := value)`. Stored to several names on its way
// (`(b := (a := value))`, or generated code's `COPY 1; STORE_FAST a; COPY 1; STORE_FAST b`), the
// first store is the innermost.
ExprPtr walrus(const ExprPtr& chain) {
  if (chain->clauses.empty()) throw DecodeFailure("assignment used as a value");
  ExprPtr value = chain->args[0];
  for (const auto& clause : chain->clauses) {
    if (clause.target->kind != ExprKind::Name) throw DecodeFailure("assignment used as a value");
    value = make_expr(ExprKind::NamedExpr, {clause.target, value});
  }
  return value;
}

// Whether `used`, popped, is the value `kept` on the stack: the same, or, `kept` a value stored
// on its way (a pending walrus), the walrus each pop of it makes (`a < (b := c) < d` keeps a copy
// of the walrus's value for the next link: compiler_nameop's COPY and store come before it).
bool CodeDecoder::is_use_of(const ExprPtr& used, const ExprPtr& kept) {
  if (used == kept) return true;
  if (!used || !is_internal(kept, "chain") || kept->args.empty()) return false;
  ExprPtr value = used;
  for (auto clause = kept->clauses.rbegin(); clause != kept->clauses.rend(); ++clause) {
    if (value->kind != ExprKind::NamedExpr || value->args.size() != 2 ||
        value->args[0] != clause->target)
      return false;
    value = value->args[1];
  }
  return !kept->clauses.empty() && value == kept->args[0];
}

ExprPtr CodeDecoder::pop() {
  ExprPtr value = pop_raw();
  if (is_internal(value, "unpack_slot") || is_internal(value, "unpack_star")) {
    push(value);  // (found there with the group's other slots)
    ExprPtr name = unpack_to_temporaries(value);
    pop_raw();
    return name;
  }
  return is_internal(value, "chain") ? walrus(value) : value;
}

ExprPtr CodeDecoder::top(int depth) const {
  if (depth < 1 || static_cast<size_t>(depth) > stack_.size())
    throw DecodeFailure("stack underflow");
  return stack_[stack_.size() - static_cast<size_t>(depth)];
}

void CodeDecoder::push(ExprPtr value) { stack_.push_back(std::move(value)); }

namespace {

// The names a target binds: `a`, `a, *b`; not the names in `a[i]` or `a.b`, which it only reads.
void collect_names(const ExprPtr& e, std::vector<std::string>& names) {
  if (!e) return;
  if (e->kind == ExprKind::Name) names.push_back(e->text);
  if (e->kind != ExprKind::Tuple && e->kind != ExprKind::List && e->kind != ExprKind::Starred)
    return;
  for (const ExprPtr& arg : e->args) collect_names(arg, names);
}

void replace_value(ExprPtr& e, const ExprPtr& from, const ExprPtr& to, int depth = 0) {
  if (!e || depth > 200) return;
  if (e == from) {
    e = to;
    return;
  }
  for (ExprPtr& arg : e->args) replace_value(arg, from, to, depth + 1);
}

bool contains_value(const ExprPtr& tree, const ExprPtr& value, int depth = 0) {
  if (!tree || depth > 200) return false;
  for (const ExprPtr& arg : tree->args) {
    if (arg == value || contains_value(arg, value, depth + 1)) return true;
  }
  return false;
}

// The names bound in an expression: its walrus targets (a comprehension's bind in the enclosing
// scope; a lambda's in its own, counted all the same: more names only spill more).
void collect_walrus_targets(const ExprPtr& e, std::vector<std::string>& names, int depth = 0) {
  if (!e || depth > 200) return;
  if (e->kind == ExprKind::NamedExpr && !e->args.empty()) collect_names(e->args[0], names);
  for (const ExprPtr& arg : e->args) collect_walrus_targets(arg, names, depth + 1);
  for (const ComprehensionClause& clause : e->clauses) {
    collect_walrus_targets(clause.iter, names, depth + 1);
    for (const ExprPtr& test : clause.conditions) collect_walrus_targets(test, names, depth + 1);
  }
}

// The names an import statement's source binds: `import a.b` binds a, `import a as b` and
// `from m import a as b` bind b.
void import_names(const std::string& text, std::vector<std::string>& names) {
  bool from = text.compare(0, 5, "from ") == 0;
  size_t start = from ? text.find(" import ") : text.find(' ');
  if (start == std::string::npos) return;
  start += from ? 8 : 1;
  std::string list = text.substr(start);
  size_t pos = 0;
  while (pos <= list.size()) {
    size_t comma = list.find(',', pos);
    std::string part =
        list.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
    size_t as = part.find(" as ");
    std::string name = as == std::string::npos ? part : part.substr(as + 4);
    name.erase(std::remove_if(name.begin(), name.end(),
                              [](char c) { return c == ' ' || c == '(' || c == ')' || c == '\n'; }),
               name.end());
    if (as == std::string::npos) name = name.substr(0, name.find('.'));
    if (!name.empty() && name != "*") names.push_back(name);
    if (comma == std::string::npos) break;
    pos = comma + 1;
  }
}

// Every name in a match pattern and every `as` name: the captures, and more.
void pattern_names(const ExprPtr& e, std::vector<std::string>& names, int depth = 0) {
  if (!e || depth > 200) return;
  if (e->kind == ExprKind::Name) names.push_back(e->text);
  if (e->kind == ExprKind::MatchAs && !e->text.empty()) names.push_back(e->text);
  for (const ExprPtr& arg : e->args) pattern_names(arg, names, depth + 1);
}

// The names a statement binds or deletes, in its nested bodies too (not in a definition's own
// scope): a value still on the stack that is one of them must be read before the statement runs.
void written_names(const Stmt& stmt, std::vector<std::string>& names, int depth = 0) {
  if (depth > 100) return;
  size_t targets = 0;
  if (stmt.kind == StmtKind::Delete)
    targets = stmt.exprs.size();
  else if (stmt.kind == StmtKind::Assign && !stmt.exprs.empty())
    targets = stmt.exprs.size() - 1;
  else if ((stmt.kind == StmtKind::AugAssign || stmt.kind == StmtKind::AnnAssign ||
            stmt.kind == StmtKind::For) &&
           !stmt.exprs.empty())
    targets = 1;
  for (size_t k = 0; k < targets; ++k) collect_names(stmt.exprs[k], names);
  if (stmt.kind == StmtKind::With) {
    for (size_t k = 1; k < stmt.exprs.size(); k += 2) collect_names(stmt.exprs[k], names);
  }
  if (stmt.kind == StmtKind::FunctionDef || stmt.kind == StmtKind::ClassDef ||
      stmt.kind == StmtKind::TypeAlias) {
    names.push_back(stmt.text);
    for (const ExprPtr& e : stmt.decorators) collect_walrus_targets(e, names);
  }
  if (stmt.kind == StmtKind::Import) import_names(stmt.text, names);
  for (const ExprPtr& e : stmt.exprs) collect_walrus_targets(e, names);
  if (stmt.kind == StmtKind::Match) {
    // Capture patterns are names (an over-approximation: every name in a pattern).
    for (size_t k = 1; k < stmt.exprs.size(); ++k) pattern_names(stmt.exprs[k], names);
  }
  if (stmt.kind == StmtKind::FunctionDef || stmt.kind == StmtKind::ClassDef) return;
  for (const Body& body : stmt.bodies) {
    for (const StmtPtr& s : body) written_names(*s, names, depth + 1);
  }
  for (const ExceptHandler& handler : stmt.handlers) {
    if (!handler.name.empty()) names.push_back(handler.name);
    for (const StmtPtr& s : handler.body) written_names(*s, names, depth + 1);
  }
}

}  // namespace

// A fresh temporary: a name the code object does not use.
ExprPtr CodeDecoder::fresh_temporary() {
  std::string temp;
  do {
    temp = "_gb_tmp" + std::to_string(spilled_++);
  } while (std::find(code_.varnames.begin(), code_.varnames.end(), temp) != code_.varnames.end() ||
           std::find(code_.names.begin(), code_.names.end(), temp) != code_.names.end());
  return make_name(temp);
}

// Whether `name` (as printed) is a cell or free variable of the code object: read with LOAD_DEREF.
bool CodeDecoder::cell_variable(const std::string& name) const {
  auto named = [&](const std::string& var) { return source_name(var) == name; };
  return std::any_of(code_.cellvars.begin(), code_.cellvars.end(), named) ||
         std::any_of(code_.freevars.begin(), code_.freevars.end(), named);
}

// A stored value still on the stack (`COPY 1; STORE_FAST t`, generated code) when a statement
// runs: the store happens where the value was computed, before the statement, as `t = value`.
// The stack reads the value again through a plain local it was stored to (nothing else can rebind
// one, and spill_pending spills it again before a statement that does), else a temporary.
ExprPtr CodeDecoder::spill_chain(const ExprPtr& chain, bool names_too) {
  std::vector<ExprPtr> exprs;
  std::string kept;
  for (const auto& clause : chain->clauses) {
    exprs.push_back(clause.target);
    const ExprPtr& t = clause.target;
    if (kept.empty() && !names_too && t->kind == ExprKind::Name && role_ == CodeRole::Function &&
        std::find(code_.varnames.begin(), code_.varnames.end(), t->text) != code_.varnames.end() &&
        std::find(code_.cellvars.begin(), code_.cellvars.end(), t->text) == code_.cellvars.end())
      kept = t->text;
  }
  if (kept.empty()) {
    ExprPtr temp = fresh_temporary();
    kept = temp->text;
    exprs.push_back(temp);
  }
  exprs.push_back(chain->args[0]);
  out_->push_back(make_stmt(StmtKind::Assign, std::move(exprs)));
  return make_name(kept);
}

// Values still on the stack were computed before `stmt` runs, but print where they are used, after
// it. Compiled source never leaves such values across a statement (loop iterators and the like are
// internal values), but generated bytecode (Dynamo's) does: a value that the statement could change
// (a name it rebinds or deletes, anything that calls or reads a container) moves to a temporary,
// and a value stored on its way (a walrus still pending) is stored here, before the statement.
void CodeDecoder::spill_pending(Stmt& stmt, bool names_too, size_t produced_from, size_t below) {
  if (stack_.size() <= statement_depth_ || role_ == CodeRole::Comprehension) return;
  // Only values above the topmost internal one (an iterator, a saved local, a with exit): below it
  // are the values of an enclosing construct (a comprehension's result being built). A cell (it
  // stays the frame's: read later, it is the same), a pending store, an unpacked item are values.
  auto unpacked = [&](size_t k) {
    return is_internal(stack_[k], "unpack_slot") || is_internal(stack_[k], "unpack_star");
  };
  size_t first = stack_.size();
  while (first > statement_depth_ && stack_[first - 1] &&
         (stack_[first - 1]->kind != ExprKind::Internal || is_null(stack_[first - 1]) ||
          is_internal(stack_[first - 1], "chain") || is_internal(stack_[first - 1], "closure") ||
          unpacked(first - 1))) {
    --first;
  }
  std::vector<std::string> written;
  written_names(stmt, written);
  // Whether the slot is read after a statement that encloses this one: names read again later
  // could be rebound by then.
  auto read_later = [&](size_t k) { return names_too || k >= produced_from; };
  auto needs_spill = [&](size_t k) {
    const ExprPtr& value = stack_[k];
    if (!value || value->kind == ExprKind::Constant) return false;
    if (value->kind == ExprKind::Internal) return is_internal(value, "chain");
    if (value->kind != ExprKind::Name) return true;
    if (value->text.compare(0, 7, "_gb_tmp") == 0) return false;  // bound once, where spilled
    // A cell's value is read where the bytecode read it: any code the statement runs (a call, an
    // attribute, a finalizer) may rebind a cell that a closure shares.
    return read_later(k) ||
           std::find(written.begin(), written.end(), value->text) != written.end() ||
           cell_variable(value->text);
  };
  std::function<void(size_t, int)> spill = [&](size_t k, int depth) {
    ExprPtr value = stack_[k];
    if (!needs_spill(k)) return;
    // A value another slot is built from (a COPY kept while it was built) was computed first.
    for (size_t j = first; depth < 16 && j < stack_.size(); ++j) {
      if (j != k && stack_[j] != value && needs_spill(j) && contains_value(value, stack_[j]))
        spill(j, depth + 1);
    }
    value = stack_[k];
    ExprPtr name;
    if (is_internal(value, "chain")) {
      name = spill_chain(value, read_later(k));
    } else {
      name = fresh_temporary();
      out_->push_back(make_stmt(StmtKind::Assign, {name, value}));
    }
    // The same object (a COPY) elsewhere on the stack or in the statement is now the temporary.
    for (ExprPtr& slot : stack_) replace_value(slot, value, name);
    for (ExprPtr& e : stmt.exprs) replace_value(e, value, name);
  };
  for (size_t k = first; k < stack_.size() && k < below; ++k) {
    if (unpacked(k)) unpack_to_temporaries(stack_[k]);  // (the unpacking ran before the statement)
    spill(k, 0);
  }
}

// LIST_EXTEND and friends below the top of the stack, with no internal value (a comprehension's
// iterator) in between: not a display being built but generated code (Dynamo's) growing a list that
// is also used elsewhere. Compiled source only does that in comprehensions.
bool CodeDecoder::mutates_deeper(int depth) const {
  // Called before the argument is popped: the object is at depth + 1.
  if (depth <= 1 || role_ == CodeRole::Comprehension ||
      static_cast<size_t>(depth) + 1 > stack_.size())
    return false;
  for (int k = 1; k <= depth + 1; ++k) {
    const ExprPtr& value = stack_[stack_.size() - static_cast<size_t>(k)];
    if (!value || value->kind == ExprKind::Internal) return false;
  }
  return true;
}

// `target.method(args)` on the object at `depth` (after popping the arguments), as a statement:
// the object moves to a temporary first so that every use of it sees the change.
void CodeDecoder::mutate_in_place(int depth, const char* method, std::vector<ExprPtr> args) {
  ExprPtr target = top(depth);
  args.insert(args.begin(), make_expr(ExprKind::Attribute, {target}, method));
  // emit() spills the pending values, the object among them, and renames it in the statement.
  emit(make_stmt(StmtKind::Expr, {make_expr(ExprKind::Call, std::move(args))}));
  if (top(depth)->kind != ExprKind::Name)
    throw DecodeFailure("in-place change of an unnamed value");
}

void CodeDecoder::emit(StmtPtr stmt) {
  if (expression_only_ > 0) throw DecodeFailure("statement inside an expression");
  spill_pending(*stmt);
  out_->push_back(std::move(stmt));
  last_emit_depth_ = stack_.size();
  bare_exit_depth_ = -1;
}

std::string CodeDecoder::source_name(const std::string& name) const {
  if (class_name_.empty() || name.size() < 4 || name[0] != '_') return name;
  size_t strip = class_name_.find_first_not_of('_');
  if (strip == std::string::npos) return name;
  std::string prefix = "_" + class_name_.substr(strip) + "__";
  if (name.compare(0, prefix.size(), prefix) != 0 || name.size() == prefix.size()) return name;
  if (name.size() >= prefix.size() + 2 && name.compare(name.size() - 2, 2, "__") == 0) return name;
  return "__" + name.substr(prefix.size());
}

ExprPtr CodeDecoder::name_expr(const std::string& name) const {
  return make_name(source_name(name));
}

ExprPtr CodeDecoder::constant(const bytecode::ObjectRef& obj) const {
  switch (obj->kind) {
    case ObjectKind::Tuple: {
      std::vector<ExprPtr> items;
      for (const auto& item : obj->items) items.push_back(constant(item));
      return make_expr(ExprKind::Tuple, std::move(items));
    }
    case ObjectKind::FrozenSet: {
      std::vector<ExprPtr> items;
      for (const auto& item : obj->items) items.push_back(constant(item));
      return make_expr(ExprKind::Set, std::move(items));
    }
    case ObjectKind::Float:
      if (std::isinf(obj->real)) return make_constant(obj->real > 0 ? "1e309" : "-1e309");
      if (std::isnan(obj->real)) throw DecodeFailure("nan constant");
      break;
    case ObjectKind::Ellipsis:
      return make_constant("...");
    case ObjectKind::Code:
      throw DecodeFailure("code object used as a value");
    case ObjectKind::Str: {
      ExprPtr text = make_constant(bytecode::python_repr(*obj));
      text->ops = {obj->text};  // the raw value, for f-string literal pieces
      return text;
    }
    case ObjectKind::Complex:
      if (!std::isfinite(obj->real) || !std::isfinite(obj->imag))
        throw DecodeFailure("non-finite complex");
      return make_constant(complex_source(obj->real, obj->imag));
    default:
      break;
  }
  return make_constant(bytecode::python_repr(*obj));
}

// Pops the arguments of a call and returns the call expression.
ExprPtr CodeDecoder::build_call(const Operation& op) {
  std::vector<ExprPtr> args(static_cast<size_t>(op.arg));
  for (size_t k = args.size(); k-- > 0;) args[k] = pop();
  size_t keywords = op.kwnames.size();
  if (keywords > args.size()) throw DecodeFailure("more keyword names than arguments");
  for (size_t k = 0; k < keywords; ++k) {
    ExprPtr& arg = args[args.size() - keywords + k];
    arg = make_expr(ExprKind::Keyword, {arg}, op.kwnames[k]);
  }
  ExprPtr callable = pop();
  if (op.null_slot) {
    ExprPtr below = pop();
    if (is_null(callable)) {
      callable = below;
    } else if (!is_null(below)) {
      args.insert(args.begin(), callable);  // a bound self, or a comprehension's iterator
      callable = below;
    }
  }
  if (ExprPtr special = call_special(callable, args)) return special;
  if (callable->kind == ExprKind::Internal && !is_internal(callable, "with_exit")) {
    throw DecodeFailure("call of " + callable->text);
  }
  if (is_internal(callable, "with_exit")) return internal("with_exit_call");
  args.insert(args.begin(), callable);
  return make_expr(ExprKind::Call, std::move(args));
}

// CALL_FUNCTION_EX: f(*args) / f(*args, **kwargs), with the argument tuple and dict displays
// spread back into ordinary arguments.
ExprPtr CodeDecoder::build_call_ex(const Operation& op) {
  ExprPtr kwargs = (op.arg & 1) ? pop() : nullptr;
  ExprPtr positional = pop();
  ExprPtr callable = pop();
  if (op.null_slot) {
    ExprPtr below = pop();
    if (is_null(callable)) callable = below;
  }
  std::vector<ExprPtr> args{callable};
  // The compiler builds the positional tuple from the arguments (a tuple display, or a list made
  // a tuple where one is starred or there are more than 30) where the call has a `**` or a star,
  // and otherwise compiles a lone starred argument's value directly: `g(*[1, 2])`, `g(*(a, b))`.
  auto spread = [&](const Expr& tuple) {
    return tuple.kind == ExprKind::Tuple &&
           (kwargs || tuple.args.size() > 30 ||
            std::any_of(tuple.args.begin(), tuple.args.end(),
                        [](const ExprPtr& item) { return item->kind == ExprKind::Starred; }));
  };
  if (spread(*positional)) {
    for (const ExprPtr& item : positional->args) args.push_back(item);
  } else {
    args.push_back(make_expr(ExprKind::Starred, {positional}));
  }
  if (kwargs) {
    if (kwargs->kind == ExprKind::Dict) {
      for (size_t k = 0; k + 1 < kwargs->args.size(); k += 2) {
        const ExprPtr& key = kwargs->args[k];
        if (!key) {
          args.push_back(make_expr(ExprKind::DoubleStarred, {kwargs->args[k + 1]}));
        } else if (key->kind == ExprKind::Constant && key->text.size() >= 2 &&
                   key->text[0] == '\'') {
          args.push_back(make_expr(ExprKind::Keyword, {kwargs->args[k + 1]},
                                   key->text.substr(1, key->text.size() - 2)));
        } else {
          throw DecodeFailure("unexpected keyword key");
        }
      }
    } else {
      args.push_back(make_expr(ExprKind::DoubleStarred, {kwargs}));
    }
  }
  // (A class with starred bases or `**` keywords: `class C(*bases):`.)
  std::vector<ExprPtr> rest(args.begin() + 1, args.end());
  if (ExprPtr special = call_special(callable, rest)) return special;
  return make_expr(ExprKind::Call, std::move(args));
}

namespace {

// Drops the marks that start a repeated lambda or comprehension on a line of its own (a
// backslash continuation) from `e` and what it holds.
void clear_own_lines(const ExprPtr& e, int depth = 0) {
  if (!e || depth > 100) return;
  bool marked_kind = e->kind == ExprKind::Lambda || e->kind == ExprKind::ListComp ||
                     e->kind == ExprKind::SetComp || e->kind == ExprKind::DictComp ||
                     e->kind == ExprKind::GeneratorExp;
  if (marked_kind) e->ref = -1;
  for (const ExprPtr& arg : e->args) clear_own_lines(arg, depth + 1);
  for (const ComprehensionClause& clause : e->clauses) {
    clear_own_lines(clause.target, depth + 1);
    clear_own_lines(clause.iter, depth + 1);
    for (const ExprPtr& condition : clause.conditions) clear_own_lines(condition, depth + 1);
  }
}

}  // namespace

// Before 3.12 an f-string's expressions cannot hold a backslash (an escaped string constant),
// nor a line break: a repeated lambda there stays on the line (it may then be one constant).
bool CodeDecoder::fstring_writable(const ExprPtr& joined) const {
  if (profile_.fstring_any_expression) return true;
  for (const ExprPtr& part : joined->args) {
    if (part->kind != ExprKind::FormattedValue) continue;
    clear_own_lines(part->args[0]);
    if (print_expr(*part->args[0]).find('\\') != std::string::npos) return false;
    if (part->args.size() > 1 && part->args[1] && part->args[1]->kind == ExprKind::JoinedStr &&
        !fstring_writable(part->args[1]))
      return false;
  }
  return true;
}

void CodeDecoder::check_fstring(const ExprPtr& joined) const {
  if (!fstring_writable(joined)) throw DecodeFailure("f-string expression needs a backslash");
}

// 3.11: an f-string that cannot be written, as the %-format it came from (percent_format.hpp);
// null where it can be written, or no %-format spells it. Its parts are kept for a BUILD_STRING
// that takes the value in.
ExprPtr CodeDecoder::percent_written(const ExprPtr& joined) {
  if (!profile_.folds_percent_format || fstring_writable(joined)) return nullptr;
  ExprPtr written = percent_format(*joined, code_.minor);
  if (written) percent_parts_.emplace_back(written, joined);
  return written;
}

namespace {

// Operations whose execution, where it makes a statement, makes it last: execute's case for each
// ends in a call of store or pop_top, whose own statement is the last thing each does. A trial
// read stopped there leaves what a DecodeFailure thrown there would have left.
bool ends_statement_softly(Op op) {
  return op == Op::StoreName || op == Op::StoreAttr || op == Op::StoreSubscr || op == Op::PopTop;
}

}  // namespace

ExprPtr CodeDecoder::evaluate(int begin, int end, bool* refused) {
  // Nested conditional expressions recurse through here: bound the depth (crafted code).
  struct Nesting {
    int& level;
    explicit Nesting(int& l) : level(l) {
      if (++level > 100) {
        --level;
        throw DecodeFailure("expressions nested too deeply");
      }
    }
    ~Nesting() { --level; }
  } nesting(evaluate_depth_);
  size_t depth = stack_.size();
  ++expression_only_;
  int i = begin;
  while (i < end) {
    const Operation& op = lifted_.ops[static_cast<size_t>(i)];
    // A conditional expression nested in this one (`a if x else b if y else c`, 3.11): one test
    // jumping to the else, whose then-part jumps to where this region ends.
    if (op.op == Op::JumpIf && op.target > i + 1 && op.target < end && value_boolop_end(i) < 0 &&
        !stack_.empty()) {
      const Operation& over = lifted_.ops[static_cast<size_t>(op.target) - 1];
      // (In an enclosing conditional expression's then-part, a jump to its join is the jump to
      // this region's end, the then-part's closing jump: flowgraph.c's jump threading,
      // `(b if e else d) if c else a`.)
      bool threaded = if_expression_join_.second == end && over.target == if_expression_join_.first;
      bool single = op.arg == 0 && over.op == Op::Jump && (over.target == end || threaded);
      // (Or one that is an operand here, joining inside the region: `f(a if x else b) if y
      // else c`, `a and g(b if c else d)`; compile.c's compiler_ifexp jumps over the else to
      // right after it. A test that is no and/or value has no other reading here: execute_step
      // refuses it.)
      bool operand =
          op.arg == 0 && over.op == Op::Jump && over.target > op.target && over.target < end;
      std::vector<ExprPtr> before = stack_;
      int only = expression_only_;
      if (single || operand) {
        ExprPtr condition = pop();
        if (threaded ? decode_if_expression_parts(i + 1, op.target - 1, op.target, end, condition)
                     : decode_if_expression(i, i + 1, op.target, condition)) {
          i = if_expression_end_;
          continue;
        }
        stack_ = before;
        expression_only_ = only;
      }
      // (A test of several parts: `a if b and c else d`.)
      if (int next = decode_compound_if_expression(i, begin, end); next >= 0) {
        i = next;
        continue;
      }
      expression_only_ = only;
      if (single) throw DecodeFailure("nested conditional expression");
    }
    if (refused == nullptr || !ends_statement_softly(op.op)) {
      i = execute_step(i);
      continue;
    }
    {
      Restore<bool> restore(soft_statement_);
      soft_statement_ = true;
      i = execute_step(i);
    }
    if (statement_refused_) {  // (what the DecodeFailure would have left)
      statement_refused_ = false;
      *refused = true;
      return nullptr;
    }
  }
  --expression_only_;
  if (stack_.size() != depth + 1) throw DecodeFailure("expression region has unbalanced stack");
  return pop();
}

// `await x` and `yield from x`: the value, then LOAD_CONST None and a SEND loop (3.11+) or
// YIELD_FROM (3.10), which leave the result. Only the plain await (argument 0) is handled.
int CodeDecoder::execute_delegation(int i) {
  const auto& ops = lifted_.ops;
  const Operation& op = ops[static_cast<size_t>(i)];
  if (op.op == Op::GetAwaitable && op.arg != 0 && profile_.awaitable_marks_async_with)
    throw DecodeFailure("async with is not supported yet");
  size_t k = static_cast<size_t>(i) + 1;
  if (k + 1 >= ops.size() || ops[k].op != Op::LoadConst ||
      ops[k].constant->kind != ObjectKind::None) {
    throw DecodeFailure("await without its send loop");
  }
  int next;
  if (ops[k + 1].op == Op::Send) {
    next = ops[k + 1].target;
    if (next < static_cast<int>(ops.size()) && ops[static_cast<size_t>(next)].op == Op::EndSend)
      ++next;
  } else if (ops[k + 1].op == Op::Unknown && ops[k + 1].text == "YIELD_FROM") {
    next = static_cast<int>(k) + 2;
  } else {
    throw DecodeFailure("await without its send loop");
  }
  ExprPtr value = pop();
  // An async comprehension (or one that awaits) is a coroutine function the compiler calls and
  // awaits: in the source, the await is implicit (a list, set or dict is never awaitable).
  if (op.op == Op::GetAwaitable &&
      (value->kind == ExprKind::ListComp || value->kind == ExprKind::SetComp ||
       value->kind == ExprKind::DictComp)) {
    push(value);
    return next;
  }
  push(make_expr(op.op == Op::GetAwaitable ? ExprKind::Await : ExprKind::YieldFrom, {value}));
  return next;
}

// 3.10/3.11: the code after an and/or value, short and ending in a return (the statement ending
// a function), stands once after the last operand, which falls into it, then once per jump to
// it, back to back (duplicate_exits_without_lineno gives each jump its own copy). Where `target`,
// jumped to from `i`, is such a copy: the original, where the value ends and decoding goes on;
// the copies, which only the value's jumps reach, are consumed (`copies_end`: one past the
// last). Else `target`.
int CodeDecoder::tail_copy_original(int i, int target, int* copies_end) {
  const auto& ops = lifted_.ops;
  int length = copied_tail_length(target);
  if (!profile_.copies_exits_per_jump || length == 0) return target;
  int original = target;
  while (original - length > i + 1 && same_operations(ops, original - length, target, length))
    original -= length;
  // (Only and/or jumps keeping their value, from before it, reach a copy, and only its start.)
  auto reached = [&](int from, int to) {
    bool any = false;
    for (int k = 0; k < static_cast<int>(ops.size()); ++k) {
      const Operation& o = ops[static_cast<size_t>(k)];
      if (!is_jump(o.op) || o.target <= from || o.target >= to) continue;
      if ((o.target - original) % length != 0 || o.op != Op::JumpIfOrPop || k >= original)
        return -1;
      any = true;
    }
    return any ? 1 : 0;
  };
  int end = target + length;
  while (same_operations(ops, end, target, length) && reached(end - 1, end + length) == 1)
    end += length;
  if (original == target || reached(original, end) != 1) return target;
  mark_consumed(original + length, end);
  if (copies_end) *copies_end = end;
  return original;
}

// A popping jump that starts a value-producing `and`/`or` whose operands are mixed (`a and b or
// c`): the compiler threads `a`'s JUMP_IF_FALSE_OR_POP through the JUMP_IF_TRUE_OR_POP after `b`
// into a popping jump to `c`. The operation before its target is then a jump keeping its value (or
// a popping one, itself threaded, whose target is preceded by one, and so on).
int CodeDecoder::value_boolop_end(int j) const {
  const auto& ops = lifted_.ops;
  int at = j;
  for (int hops = 0; hops < 64; ++hops) {
    const Operation& jump = ops[static_cast<size_t>(at)];
    if (jump.op != Op::JumpIf || jump.arg > 1 || jump.target <= at + 1) return -1;
    if (static_cast<size_t>(jump.target) >= ops.size()) return -1;
    const Operation& before = ops[static_cast<size_t>(jump.target) - 1];
    if (before.op == Op::JumpIfOrPop) return before.target > jump.target ? before.target : -1;
    at = jump.target - 1;
  }
  return -1;
}

namespace {

// One jump of an and/or value: its sense (jump if true: 1), where it goes, where it stands,
// whether it keeps the value (JUMP_IF_*_OR_POP).
struct BoolopPart {
  int sense;
  int target;
  int jump;
  bool keeps;
};

// The tree of an and/or value from its operands and its jumps (one between each two operands),
// ending at `end`; null where no tree fits.
ExprPtr build_boolop(const std::vector<ExprPtr>& operands, const std::vector<BoolopPart>& parts,
                     int end) {
  // can_end[i][m]: jump i acts as jump m would on a value of its sense (jump m itself, jump m of
  // the other sense which pops and falls through, or jump m of the same sense going where jump i
  // goes), so its sub-expression may end after operand m (n: the whole expression).
  size_t n = parts.size();
  if (n > 256) throw DecodeFailure("and/or value");
  std::vector<char> ends_flat(n * (n + 1), 0);
  auto can_end = [&](size_t i, size_t m) -> char& { return ends_flat[i * (n + 1) + m]; };
  for (size_t i = 0; i < n; ++i) {
    const BoolopPart& part = parts[i];
    can_end(i, n) = part.keeps && part.target == end;
    for (size_t m = i + 1; m < n; ++m) {
      const BoolopPart& via = parts[m];
      bool same_place =
          via.sense == part.sense && via.keeps == part.keeps && via.target == part.target;
      if (part.keeps)
        can_end(i, m) = via.jump == part.target || same_place;
      else
        can_end(i, m) = (via.jump + 1 == part.target && via.sense != part.sense) || same_place;
    }
  }
  // Operands [lo, hi] ending after hi: one `and` or `or` split at jumps that may end after hi, each
  // group between them a sub-expression. Threading makes some ends ambiguous: a small search.
  int budget = 20000;
  std::function<ExprPtr(size_t, size_t)> build = [&](size_t lo, size_t hi) -> ExprPtr {
    if (lo == hi) return operands[lo];
    std::vector<size_t> splits;
    std::function<ExprPtr(size_t, int)> choose = [&](size_t i, int sense) -> ExprPtr {
      if (--budget < 0) return nullptr;
      if (i == hi) {
        if (splits.empty()) return nullptr;
        const char* word = sense == 1 ? "or" : "and";
        std::vector<ExprPtr> values;
        size_t group = lo;
        for (size_t k = 0; k <= splits.size(); ++k) {
          size_t last = k < splits.size() ? splits[k] : hi;
          ExprPtr value = build(group, last);
          if (!value) return nullptr;
          if (value->kind == ExprKind::BoolOp && value->text == word) {
            values.insert(values.end(), value->args.begin(), value->args.end());
          } else {
            values.push_back(value);
          }
          group = last + 1;
        }
        return make_expr(ExprKind::BoolOp, std::move(values), word);
      }
      if (can_end(i, hi) && (sense < 0 || sense == parts[i].sense)) {
        splits.push_back(i);
        if (ExprPtr found = choose(i + 1, parts[i].sense)) return found;
        splits.pop_back();
      }
      bool inner = false;
      // Not a split: it ends inside its group (the last group may end after hi too).
      for (size_t m = i + 1; m <= hi; ++m) inner |= can_end(i, m) != 0;
      return inner ? choose(i + 1, sense) : nullptr;
    };
    return choose(lo, -1);
  };
  return build(0, n);
}

}  // namespace

// Reads the whole expression: operands end at the jumps taken at the expression's own stack depth.
// Each jump, un-threaded, says "keep the value and leave the sub-expression that ends after
// operand t"; the tree is rebuilt from those ends.
int CodeDecoder::execute_value_boolop(int j) {
  int end = value_boolop_end(j);
  if (end < 0) return -1;
  const auto& ops = lifted_.ops;
  int length = copied_tail_length(end);
  int copies_end = end;
  int original = tail_copy_original(j, end, &copies_end);
  end = original;
  std::vector<ExprPtr> operands{pop()};
  std::vector<BoolopPart> parts{
      {ops[static_cast<size_t>(j)].arg, ops[static_cast<size_t>(j)].target, j, false}};
  size_t depth = stack_.size();
  int k = j + 1;
  ++expression_only_;
  while (k < end) {
    const Operation& op = ops[static_cast<size_t>(k)];
    if ((op.op == Op::JumpIf || op.op == Op::JumpIfOrPop) && stack_.size() == depth + 1) {
      if (op.arg > 1 || op.target <= k) throw DecodeFailure("and/or value");
      operands.push_back(pop());
      // (A jump to a copy of the code after the value goes to its original, the value's end.)
      int target = op.target > original && op.target < copies_end && length > 0 &&
                           (op.target - original) % length == 0
                       ? original
                       : op.target;
      parts.push_back({op.arg, target, k, op.op == Op::JumpIfOrPop});
      ++k;
      continue;
    }
    if (op.op == Op::JumpIf || op.op == Op::Jump) throw DecodeFailure("and/or value");
    k = execute_step(k);
  }
  --expression_only_;
  if (k != end || stack_.size() != depth + 1) throw DecodeFailure("and/or value");
  operands.push_back(pop());
  ExprPtr value = build_boolop(operands, parts, end);
  if (!value) throw DecodeFailure("and/or value");
  push(value);
  return end;
}

// One step of the symbolic stack at i: a special form (and/or value, chained comparison, await)
// as a whole, or one operation. Returns the index to go on from.
int CodeDecoder::execute_step(int i) {
  int next = execute_special(i);
  if (next >= 0) return next;
  execute(i);
  return i + 1;
}

// Value-producing `and`/`or` and chained comparisons: the jumps that stay inside one expression.
int CodeDecoder::execute_special(int i) {
  const Operation& op = lifted_.ops[static_cast<size_t>(i)];
  if (op.op == Op::GetAwaitable || op.op == Op::GetYieldFromIter) return execute_delegation(i);
  // 3.12+: an inlined comprehension inside an expression (a conditional expression's branch).
  if (op.op == Op::LoadFastAndClear && expression_only_ > 0) {
    Restore<int> restore(expression_only_);
    expression_only_ = 0;
    return decode_inline_comprehension(i);
  }
  if (op.op == Op::JumpIf) return execute_value_boolop(i);
  if (op.op == Op::Swap || op.op == Op::Rotate) return rotated_tuple_assignment(i);
  if (op.op != Op::JumpIfOrPop) return -1;
  ExprPtr left = top();
  int target = op.target;
  if (target <= i) throw DecodeFailure("backward and/or");
  // Chained comparison: `a < b < c` keeps b (a copy) below the first comparison's result.
  if (left->kind == ExprKind::Compare && stack_.size() >= 2 &&
      is_use_of(left->args.back(), top(2)) && op.arg == 0) {
    return execute_chained_comparison(i, left);
  }
  return execute_jump_or_pop_boolop(i, left);
}

// The rest of a chained comparison whose first comparison `left` is on the stack above its
// kept right side; the next index.
int CodeDecoder::execute_chained_comparison(int i, const ExprPtr& left) {
  int target = lifted_.ops[static_cast<size_t>(i)].target;
  pop();
  ExprPtr kept = top();  // (the middle operand, or the walrus storing it)
  // The code after the chain, short and ending in a return (`return a < b < c`), may be
  // copied by the compiler to the end of the last comparison in place of the jump over the
  // cleanup (SWAP 2; POP_TOP at `target`), whose path falls into the original: the chain
  // ends where that copy starts, and the code after it is the original.
  const auto& ops = lifted_.ops;
  int stop = target;
  int resume = -1;
  if (static_cast<size_t>(target) + 2 < ops.size() &&
      ops[static_cast<size_t>(target)].op == Op::Swap &&
      ops[static_cast<size_t>(target)].arg == 2 &&
      ops[static_cast<size_t>(target) + 1].op == Op::PopTop) {
    int length = copied_tail_length(target + 2);
    if (length > 0 && target - length > i &&
        same_operations(ops, target - length, target + 2, length)) {
      stop = target - length;
      resume = target + 2;
    }
  }
  // Run the rest of the chain up to its jump over the cleanup at `target`.
  int k = i + 1;
  ++expression_only_;
  while (k < stop && ops[static_cast<size_t>(k)].op != Op::Jump) k = execute_step(k);
  --expression_only_;
  ExprPtr right = pop();
  if (right->kind != ExprKind::Compare || right->args.empty() || !is_use_of(right->args[0], kept) ||
      !is_use_of(left->args.back(), kept)) {
    throw DecodeFailure("unrecognized chained comparison");
  }
  auto merged = std::make_shared<Expr>(*left);
  merged->args.insert(merged->args.end(), right->args.begin() + 1, right->args.end());
  merged->ops.insert(merged->ops.end(), right->ops.begin(), right->ops.end());
  push(merged);
  if (resume >= 0) {
    if (k != stop && k != resume) throw DecodeFailure("chained comparison cleanup");
    return resume;
  }
  if (k < target) {
    // JUMP_FORWARD over the cleanup (SWAP 2; POP_TOP) at `target`.
    int after = lifted_.ops[static_cast<size_t>(k)].target;
    if (after < target + 2) throw DecodeFailure("chained comparison cleanup");
    return after;
  }
  return k;
}

// `a and b` / `a or b` as a value from its JUMP_IF_*_OR_POP, `left` on the stack; the next
// index.
int CodeDecoder::execute_jump_or_pop_boolop(int i, const ExprPtr& left) {
  const Operation& op = lifted_.ops[static_cast<size_t>(i)];
  int target = op.target;
  pop();
  // In a conditional expression's then-part, `a or b` jumps to the end of the whole conditional
  // expression: flowgraph.c's jump threading retargets its jump to the then-part's closing
  // JUMP_FORWARD (`(a or b) if c else d`). Read it as the jump to that JUMP it was.
  if (target == if_expression_join_.first) target = if_expression_join_.second;
  int stop = target;
  int resume = tail_copy_original(i, target);
  if (resume < target) stop = resume;
  // The code after the value, short and ending in a return (`a and f(a)` ending the function:
  // POP_TOP; RETURN_CONST None), may stand twice: where the jump goes and, copied, after the
  // right operand (3.12+ flowgraph.c's duplicate_exits_without_lineno gives the fall-through
  // its own copy). The right operand ends where that copy starts; decoding goes on at the
  // original, which runs the same instructions. (Not where another jump lands inside the copy.)
  if (int length = copied_tail_length(target);
      resume == target && length > 0 && target - length > i + 1 &&
      same_operations(lifted_.ops, target - length, target, length)) {
    bool landed = false;
    for (const Operation& o : lifted_.ops)
      landed |= o.target > target - length && o.target < target;
    if (!landed) stop = target - length;
  }
  ExprPtr right = evaluate(i + 1, stop);
  const char* word = op.arg == 0 ? "and" : "or";
  // (A left side of the same word is a group of its own, `(a and b) and c`: its jumps land on
  // this one, where compile.c's compiler_boolop sends a flat chain's all to its end. 3.12+
  // keeps them there; 3.10/3.11 thread them on to the end, and the right side takes them in.)
  std::vector<ExprPtr> values;
  values.push_back(left);
  if (right->kind == ExprKind::BoolOp && right->text == word) {
    values.insert(values.end(), right->args.begin(), right->args.end());
  } else {
    values.push_back(right);
  }
  push(make_expr(ExprKind::BoolOp, std::move(values), word));
  return resume;
}

// Operations that only move, drop or duplicate stack values.
bool CodeDecoder::execute_stack(const Operation& op, int i) {
  switch (op.op) {
    case Op::Nop:
    case Op::ToBool:
      return true;
    case Op::PopTop: {
      ExprPtr value = pop_raw();
      if (is_internal(value, "unpack_slot") || is_internal(value, "unpack_star")) {
        // 3.13 turns the first of two stores of one local on one line into POP_TOP
        // (`a, _, _ = t`; `_, _, _, x = t` three of them): the unpacked value is stored to the
        // name the next store stores.
        size_t next = static_cast<size_t>(i) + 1;
        const auto& ops = lifted_.ops;
        while (next < ops.size() && ops[next].op == Op::PopTop && ops[next].line < 0) ++next;
        if (!profile_.pops_overwritten_stores || next >= ops.size() ||
            ops[next].op != Op::StoreName || ops[next].scope != Scope::Fast ||
            ops[next].line != op.line || stack_.empty() ||
            !(is_internal(stack_.back(), "unpack_slot") ||
              is_internal(stack_.back(), "unpack_star")) ||
            stack_.back()->args[0] != value->args[0]) {
          throw DecodeFailure("unpacked value popped");
        }
        store(name_expr(ops[next].text), value);
        return true;
      }
      pop_top(value);
      return true;
    }
    case Op::PushNull:
      push(internal("null"));
      return true;
    case Op::Copy:
      push(top(op.arg));
      return true;
    case Op::Swap: {
      if (op.arg < 2 || static_cast<size_t>(op.arg) > stack_.size())
        throw DecodeFailure("bad swap");
      std::swap(stack_.back(), stack_[stack_.size() - static_cast<size_t>(op.arg)]);
      return true;
    }
    case Op::Rotate: {
      if (op.arg < 2 || static_cast<size_t>(op.arg) > stack_.size())
        throw DecodeFailure("bad rotate");
      ExprPtr moved = pop();
      stack_.insert(stack_.end() - (op.arg - 1), moved);
      return true;
    }
    case Op::SetupAnnotations:
    case Op::PopBlock:
      return true;
    case Op::PopExcept: {
      // The previous exception: one value from 3.11, three (type, value, traceback) in 3.10.
      for (int k = profile_.exception_is_triple ? 3 : 1; k > 0; --k) {
        if (!is_internal(pop(), "prev_exc")) throw DecodeFailure("POP_EXCEPT of a non-exception");
      }
      return true;
    }
    default:
      return false;
  }
}

// Loads: constants, names, attributes, methods, cells, the class builder.
bool CodeDecoder::execute_load(const Operation& op, int i) {
  switch (op.op) {
    case Op::LoadConst:
      if (op.constant->kind == ObjectKind::Code) {
        ExprPtr code = internal("code");
        code->ref = static_cast<int>(functions_.size());
        functions_.push_back(op.constant->code);
        function_loads_.push_back(i);
        push(code);
        return true;
      }
      push(constant(op.constant));
      return true;
    case Op::LoadName:
      if (op.null_slot && !profile_.null_above_callable) push(internal("null"));
      push(name_expr(op.text));
      if (op.null_slot && profile_.null_above_callable) push(internal("null"));
      return true;
    case Op::LoadAttr: {
      ExprPtr base = pop();
      // (A cell, generated code: given its source form after decoding, cells_as_values.)
      if (base->kind == ExprKind::Internal && !is_internal(base, "closure"))
        throw DecodeFailure("attribute of internal value");
      push(make_expr(ExprKind::Attribute, {base}, source_name(op.text)));
      return true;
    }
    case Op::LoadMethod: {
      ExprPtr base = pop();
      if (base->kind == ExprKind::Internal && !is_internal(base, "closure"))
        throw DecodeFailure("method of internal value");
      push(internal("null"));
      push(make_expr(ExprKind::Attribute, {base}, source_name(op.text)));
      return true;
    }
    case Op::LoadClosure:  // (the cell's name: cells_as_values)
      push(internal("closure", {name_expr(op.text)}));
      return true;
    case Op::LoadSuperAttr: {  // 3.12+: super().name, or super(cls, obj).name
      ExprPtr self = pop();
      ExprPtr cls = pop();
      ExprPtr super_fn = pop();
      ExprPtr call = (op.arg & 2) ? make_expr(ExprKind::Call, {super_fn, cls, self})
                                  : make_expr(ExprKind::Call, {super_fn});
      if (op.arg & 1) push(internal("null"));
      push(make_expr(ExprKind::Attribute, {call}, source_name(op.text)));
      return true;
    }
    case Op::LoadBuildClass:
      push(internal("build_class"));
      return true;
    case Op::LoadAssertionError: {
      ExprPtr name = make_name("AssertionError");
      name->ref = 7;  // LOAD_ASSERTION_ERROR: only an assert statement makes it
      push(name);
      return true;
    }
    default:
      return false;
  }
}

// Stores and deletions, and the unpacking that feeds stores.
bool CodeDecoder::execute_store(const Operation& op, int i) {
  switch (op.op) {
    case Op::StoreName: {
      if (op.scope == Scope::Fast) swapped_tuple_assignment(i);
      // (The clause's own `name = None` is kept: only compiler_try_except's unbinding, the store
      // right before `del name` right after the clause's POP_EXCEPT, is the cleanup.)
      Restore<bool> keep(keep_handler_store_);
      keep_handler_store_ = !unbinds_after_pop_except(lifted_.ops, i - 1);
      Restore<bool> keep_enclosing(unbinds_enclosing_clause_);
      unbinds_enclosing_clause_ = unwinds_enclosing_clause(i - 1);
      store(name_expr(op.text), pop_raw());
      return true;
    }
    case Op::StoreAttr: {
      ExprPtr base = pop();
      ExprPtr value = pop_raw();
      store(make_expr(ExprKind::Attribute, {base}, source_name(op.text)), value);
      return true;
    }
    case Op::StoreSubscr: {
      ExprPtr index = pop();
      ExprPtr base = pop();
      ExprPtr value = pop_raw();
      store(make_expr(ExprKind::Subscript, {base, index}), value);
      return true;
    }
    case Op::StoreSlice: {
      ExprPtr stop = pop();
      ExprPtr start = pop();
      ExprPtr base = pop();
      // (Raw, as for STORE_SUBSCR: the value may be a slot of a tuple assignment whose values
      // compiler_visit_stmt's rotation left on the stack, `a[i:], b[:] = x, y`; read as a value
      // it moved to a temporary computed before the first store, out of the source's order.)
      ExprPtr value = pop_raw();
      ExprPtr slice = make_expr(ExprKind::Slice,
                                {is_none(start) ? nullptr : start, is_none(stop) ? nullptr : stop});
      store(make_expr(ExprKind::Subscript, {base, slice}), value);
      return true;
    }
    case Op::DeleteName:
      // compiler_try_except's `name = None; del name` ending a named clause after its POP_EXCEPT
      // (a `name = None; del name` the clause writes, under its handler, is statements).
      if (!handler_name_.empty() && op.text == handler_name_ &&
          unbinds_after_pop_except(lifted_.ops, i - 2))
        return true;
      if (unwinds_enclosing_clause(i - 2)) return true;
      emit(make_stmt(StmtKind::Delete, {name_expr(op.text)}));
      return true;
    case Op::DeleteAttr:
      emit(make_stmt(StmtKind::Delete,
                     {make_expr(ExprKind::Attribute, {pop()}, source_name(op.text))}));
      return true;
    case Op::DeleteSubscr: {
      ExprPtr index = pop();
      ExprPtr base = pop();
      emit(make_stmt(StmtKind::Delete, {make_expr(ExprKind::Subscript, {base, index})}));
      return true;
    }
    case Op::UnpackSequence:
    case Op::UnpackEx: {
      ExprPtr source = pop_raw();
      int before = op.op == Op::UnpackSequence ? op.arg : (op.arg & 0xff);
      int after = op.op == Op::UnpackSequence ? 0 : (op.arg >> 8);
      int count = before + after + (op.op == Op::UnpackEx ? 1 : 0);
      std::vector<ExprPtr> slots = unpack_slots(source, static_cast<size_t>(count));
      if (op.op == Op::UnpackEx) slots[static_cast<size_t>(before)]->text = "unpack_star";
      for (size_t k = slots.size(); k-- > 0;) push(slots[k]);
      return true;
    }
    default:
      return false;
  }
}

namespace {

// A literal the AST optimizer folds: a constant, or a tuple of them.
bool is_literal(const Expr& e) {
  if (e.kind == ExprKind::Constant) return true;
  if (e.kind != ExprKind::Tuple) return false;
  for (const ExprPtr& item : e.args) {
    if (!is_literal(*item)) return false;
  }
  return true;
}

// Whether UTF-8 (surrogatepass) text holds a lone surrogate, which no source literal spells.
bool has_surrogate(const std::string& text) {
  for (size_t k = 0; k + 1 < text.size(); ++k) {
    auto lead = static_cast<unsigned char>(text[k]);
    auto next = static_cast<unsigned char>(text[k + 1]);
    if (lead == 0xED && next >= 0xA0 && next <= 0xBF) return true;
  }
  return false;
}

// Where a BINARY_OP % of a str constant stands, the source kept the AST optimizer from folding
// it, by writing the format as an f-string without fields (a JoinedStr, which the optimizer does
// not take as a constant). It folds `str % literal` into the constant it evaluates to (where that
// does not raise or grow too long), and 3.11+ folds `'...%s...' % (a, b)` with a tuple display
// into an f-string (percent_format.hpp). The JoinedStr compiles to the same LOAD_CONST.
ExprPtr unfolded_format(const ExprPtr& left, const Expr& right, bool folds_percent_format) {
  if (left->kind != ExprKind::Constant || left->ops.empty() || has_surrogate(left->ops[0])) {
    return left;
  }
  bool folds = is_literal(right);
  if (!folds && folds_percent_format && right.kind == ExprKind::Tuple) {
    folds = percent_folds(left->ops[0], right.args.size()) &&
            std::none_of(right.args.begin(), right.args.end(),
                         [](const ExprPtr& item) { return item->kind == ExprKind::Starred; });
  }
  return folds ? make_expr(ExprKind::JoinedStr, {make_constant(left->ops[0])}) : left;
}

}  // namespace

// Operators, subscripts and slices.
bool CodeDecoder::execute_operator(const Operation& op) {
  switch (op.op) {
    case Op::BinaryOp: {
      ExprPtr right = pop();
      ExprPtr left = pop();
      if (op.text == "%") left = unfolded_format(left, *right, profile_.folds_percent_format);
      push(make_expr(ExprKind::BinOp, {left, right}, op.text));
      return true;
    }
    case Op::UnaryOp:
      // (`not not x` is a bool, not x: only an identity or membership test folds a `not`.)
      if (op.text == "not" && top()->kind == ExprKind::UnaryOp && top()->text == "not") {
        push(make_expr(ExprKind::UnaryOp, {pop()}, "not"));
        return true;
      }
      if (op.text == "not") {
        push(negate(pop()));
        return true;
      }
      push(make_expr(ExprKind::UnaryOp, {pop()}, op.text));
      return true;
    case Op::Compare:
    case Op::IsOp:
    case Op::ContainsOp: {
      ExprPtr right = pop();
      ExprPtr left = pop();
      ExprPtr cmp = make_expr(ExprKind::Compare, {left, right});
      if (op.op == Op::Compare)
        cmp->ops = {op.text};
      else if (op.op == Op::IsOp)
        cmp->ops = {op.arg ? "is not" : "is"};
      else
        cmp->ops = {op.arg ? "not in" : "in"};
      push(cmp);
      return true;
    }
    case Op::BinarySubscr: {
      ExprPtr index = pop();
      ExprPtr base = pop();
      push(make_expr(ExprKind::Subscript, {base, index}));
      return true;
    }
    case Op::BinarySlice: {
      ExprPtr stop = pop();
      ExprPtr start = pop();
      ExprPtr base = pop();
      ExprPtr slice = make_expr(ExprKind::Slice,
                                {is_none(start) ? nullptr : start, is_none(stop) ? nullptr : stop});
      push(make_expr(ExprKind::Subscript, {base, slice}));
      return true;
    }
    case Op::BuildSlice: {
      std::vector<ExprPtr> parts(static_cast<size_t>(op.arg));
      for (size_t k = parts.size(); k-- > 0;) {
        parts[k] = pop();
        if (is_none(parts[k])) parts[k] = nullptr;
      }
      push(make_expr(ExprKind::Slice, std::move(parts)));
      return true;
    }
    default:
      return false;
  }
}

// Displays built at once: tuples, lists, sets, strings, dicts.
bool CodeDecoder::execute_build(const Operation& op) {
  switch (op.op) {
    case Op::BuildTuple:
    case Op::BuildList:
    case Op::BuildSet:
    case Op::BuildString: {
      std::vector<ExprPtr> items(static_cast<size_t>(op.arg));
      for (size_t k = items.size(); k-- > 0;) items[k] = pop();
      if (op.op == Op::BuildTuple && !items.empty() && is_internal(items[0], "closure")) {
        push(internal("closure", std::move(items)));
        return true;
      }
      ExprKind kind = op.op == Op::BuildTuple  ? ExprKind::Tuple
                      : op.op == Op::BuildList ? ExprKind::List
                      : op.op == Op::BuildSet  ? ExprKind::Set
                                               : ExprKind::JoinedStr;
      if (kind == ExprKind::JoinedStr) {
        std::vector<ExprPtr> parts;
        for (ExprPtr& item : items) {
          for (const auto& [written, joined] : percent_parts_) {
            if (item == written) item = joined;
          }
          if (item->kind == ExprKind::JoinedStr) {
            parts.insert(parts.end(), item->args.begin(), item->args.end());
          } else if (item->kind == ExprKind::Constant && !item->ops.empty()) {
            parts.push_back(make_constant(item->ops[0]));
          } else {
            parts.push_back(item);
          }
        }
        items = std::move(parts);
      }
      ExprPtr built = make_expr(kind, std::move(items));
      if (kind == ExprKind::JoinedStr) {
        if (ExprPtr written = percent_written(built)) {
          push(written);
          return true;
        }
        check_fstring(built);
      }
      push(built);
      return true;
    }
    case Op::BuildMap: {
      std::vector<ExprPtr> items(static_cast<size_t>(op.arg) * 2);
      for (size_t k = items.size(); k-- > 0;) items[k] = pop();
      push(make_expr(ExprKind::Dict, std::move(items)));
      return true;
    }
    case Op::BuildConstKeyMap: {
      ExprPtr keys = pop();
      std::vector<ExprPtr> values(static_cast<size_t>(op.arg));
      for (size_t k = values.size(); k-- > 0;) values[k] = pop();
      if (keys->kind != ExprKind::Tuple || keys->args.size() != values.size())
        throw DecodeFailure("const key map");
      std::vector<ExprPtr> items;
      for (size_t k = 0; k < values.size(); ++k) {
        items.push_back(keys->args[k]);
        items.push_back(values[k]);
      }
      push(make_expr(ExprKind::Dict, std::move(items)));
      return true;
    }
    case Op::ListToTuple: {
      ExprPtr list = pop();
      push(make_expr(ExprKind::Tuple, list->args));
      return true;
    }
    default:
      return false;
  }
}

// Displays grown in place (`[*a, b]`, `{**m}`), and the appends of comprehensions.
bool CodeDecoder::execute_display_update(const Operation& op) {
  switch (op.op) {
    case Op::ListExtend:
    case Op::SetUpdate: {
      if (mutates_deeper(op.arg)) {
        mutate_in_place(op.arg, op.op == Op::ListExtend ? "extend" : "update", {pop()});
        return true;
      }
      ExprPtr iterable = pop();
      ExprPtr display = top(op.arg);
      auto grown = std::make_shared<Expr>(*display);
      bool folded = op.op == Op::ListExtend ? iterable->kind == ExprKind::Tuple
                                            : iterable->kind == ExprKind::Set;
      std::function<bool(const ExprPtr&, int)> constant_value = [&](const ExprPtr& e, int depth) {
        if (e->kind == ExprKind::Constant) return true;
        return (e->kind == ExprKind::Tuple || e->kind == ExprKind::Set) && depth < 50 &&
               std::all_of(e->args.begin(), e->args.end(),
                           [&](const ExprPtr& item) { return constant_value(item, depth + 1); });
      };
      if (folded && iterable->args.size() > 0 && grown->args.empty() &&
          constant_value(iterable, 0)) {
        // a constant display folded into a tuple (a list) or a frozenset (a set)
        grown->args = iterable->args;
      } else {
        grown->args.push_back(make_expr(ExprKind::Starred, {iterable}));
      }
      stack_[stack_.size() - static_cast<size_t>(op.arg)] = grown;
      return true;
    }
    case Op::DictUpdate:
    case Op::DictMerge: {
      if (mutates_deeper(op.arg)) {
        mutate_in_place(op.arg, "update", {pop()});
        return true;
      }
      ExprPtr mapping = pop();
      ExprPtr display = top(op.arg);
      auto grown = std::make_shared<Expr>(*display);
      if (op.op == Op::DictMerge && keyword_group(*mapping, *display)) {
        grown->args.insert(grown->args.end(), mapping->args.begin(), mapping->args.end());
      } else {
        grown->args.push_back(nullptr);
        grown->args.push_back(mapping);
      }
      stack_[stack_.size() - static_cast<size_t>(op.arg)] = grown;
      return true;
    }
    case Op::ListAppend:
    case Op::SetAdd: {
      if (mutates_deeper(op.arg)) {
        mutate_in_place(op.arg, op.op == Op::ListAppend ? "append" : "add", {pop()});
        return true;
      }
      ExprPtr value = pop();
      if (op.arg == 1) {  // a display being built: [*a, b]
        auto grown = std::make_shared<Expr>(*top());
        grown->args.push_back(value);
        stack_.back() = grown;
        return true;
      }
      emit(make_stmt(StmtKind::Expr, {internal("append", {value})}));
      return true;
    }
    case Op::MapAdd: {
      ExprPtr value = pop();
      ExprPtr key = pop();
      if (op.arg == 1) {
        auto grown = std::make_shared<Expr>(*top());
        grown->args.push_back(key);
        grown->args.push_back(value);
        stack_.back() = grown;
        return true;
      }
      emit(make_stmt(StmtKind::Expr, {internal("append", {key, value})}));
      return true;
    }
    default:
      return false;
  }
}

// The parts of an f-string: formatted values and their conversions and specs.
bool CodeDecoder::execute_format(const Operation& op) {
  switch (op.op) {
    case Op::FormatValue: {
      ExprPtr spec = (op.arg & 4) ? pop() : nullptr;
      ExprPtr value = pop();
      static const char* const conversions[] = {"", "s", "r", "a"};
      ExprPtr formatted =
          make_expr(ExprKind::FormattedValue, {value, raw_spec(spec)}, conversions[op.arg & 3]);
      ExprPtr alone = make_expr(ExprKind::JoinedStr, {formatted});
      if (ExprPtr written = percent_written(alone)) {
        push(written);
        return true;
      }
      check_fstring(alone);
      push(formatted);
      return true;
    }
    case Op::ConvertValue: {
      ExprPtr value = pop();
      static const char* const conversions[] = {"", "s", "r", "a"};
      push(make_expr(ExprKind::FormattedValue, {value, nullptr}, conversions[op.arg & 3]));
      return true;
    }
    case Op::FormatSimple:
    case Op::FormatWithSpec: {
      ExprPtr spec = op.op == Op::FormatWithSpec ? pop() : nullptr;
      ExprPtr value = pop();
      if (value->kind == ExprKind::FormattedValue && !value->args[1]) {
        auto copy = std::make_shared<Expr>(*value);
        copy->args[1] = raw_spec(spec);
        push(copy);
        return true;
      }
      push(make_expr(ExprKind::FormattedValue, {value, raw_spec(spec)}, ""));
      return true;
    }
    default:
      return false;
  }
}

// Calls, function definitions, intrinsics.
bool CodeDecoder::execute_call(const Operation& op) {
  switch (op.op) {
    case Op::Call:
      push(build_call(op));
      return true;
    case Op::CallEx:
      push(build_call_ex(op));
      return true;
    case Op::MakeFunction:
      push(make_function(op));
      return true;
    case Op::CallIntrinsic1:
      call_intrinsic1(op);
      return true;
    case Op::CallIntrinsic2:
      call_intrinsic2(op);
      return true;
    default:
      return false;
  }
}

// Iterators, yields and generators.
bool CodeDecoder::execute_generator(const Operation& op) {
  switch (op.op) {
    case Op::GetIter:
      push(internal("iter", {pop()}));
      return true;
    case Op::YieldValue: {
      ExprPtr value = pop();
      push(make_expr(ExprKind::Yield, {is_none(value) ? nullptr : value}));
      return true;
    }
    case Op::ReturnGenerator:
      push(internal("generator"));
      return true;
    case Op::GetAiter: {
      ExprPtr iter = internal("iter", {pop()});
      iter->ops = {"async"};
      push(iter);
      return true;
    }
    case Op::GetAwaitable:
    case Op::GetAnext:
    case Op::Send:
    case Op::GetYieldFromIter:
      throw DecodeFailure("async/yield from is not supported yet");
    default:
      return false;
  }
}

// A BUILD_TUPLE at `i` over LOAD_CONSTs alone: 3.12+ optimize_basic_block folds a tuple of
// constants written in one block, so such a build is a copy of a join block whose first item
// came from a branch (see returned_display_if_expression).
bool CodeDecoder::builds_constant_tuple(int i) const {
  if (i < 0) return false;
  const Operation& build = lifted_.ops[static_cast<size_t>(i)];
  if (build.op != Op::BuildTuple || build.arg < 1 || i - build.arg < 0) return false;
  for (int k = i - build.arg; k < i; ++k)
    if (lifted_.ops[static_cast<size_t>(k)].op != Op::LoadConst) return false;
  return true;
}

// Whether the unwinding at `k` (a with's exit call) follows compiler_break's NOP, which lift
// drops onto the operation after it: POP_BLOCK where the block stack unwinds first (3.10).
bool CodeDecoder::breaks_before(int k) const {
  const auto& ops = lifted_.ops;
  if (k < 0 || loops_.empty()) return false;
  if (ops[static_cast<size_t>(k)].nop_line >= 0) return true;
  return profile_.block_stack && k > 0 && ops[static_cast<size_t>(k) - 1].op == Op::PopBlock &&
         ops[static_cast<size_t>(k) - 1].nop_line >= 0;
}

// Ways out of the code: return, raise.
bool CodeDecoder::execute_exit(const Operation& op, int i) {
  switch (op.op) {
    case Op::ReturnValue: {
      bool loaded_after = stack_.size() > last_emit_depth_;
      bool after_exit =
          bare_exit_depth_ >= 0 && stack_.size() > static_cast<size_t>(bare_exit_depth_);
      ExprPtr value = pop();
      auto stmt = make_stmt(StmtKind::Return, {value});
      // (`return None` before 3.12: the line is the LOAD_CONST's.)
      bool loads_constant = i > 0 && lifted_.ops[static_cast<size_t>(i) - 1].op == Op::LoadConst;
      stmt->new_line = on_new_line(loads_constant ? i - 1 : i) ||
                       line_held_by_copies(loads_constant ? i - 1 : i);
      // (3.10: a `return K` leaving a try body starts with compiler_unwind_fblock's POP_BLOCK,
      // which takes the line; the compiler's own POP_BLOCK ending the body has none.)
      if (profile_.block_stack && loads_constant && i >= 2 &&
          lifted_.ops[static_cast<size_t>(i) - 2].op == Op::PopBlock)
        stmt->new_line = stmt->new_line || on_new_line(i - 2);
      stmt->return_line = loads_constant && on_return_line(i - 1);
      stmt->unwinds_clause = !loads_constant && unwinds_clause_before(i);
      stmt->loads_after_statements = !loads_constant && loaded_after;
      bool copies_exit = !loads_constant && (loaded_after || after_exit) && copies_loop_exit(i);
      stmt->copies_loop_exit = stmt->loads_after_statements && copies_exit;
      // (A computed value loaded after a with's exit call, the copy of the code after the loop:
      // a break's. compiler_return loads a return's value first. Not a copy: the return after
      // the with statement, its exit call ending the body.)
      if (after_exit && copies_exit) {
        emit(make_stmt(StmtKind::Break));
        return true;
      }
      // (Not a copy of that code, yet a break's all the same: compiler_break's NOP, with the
      // break's line, comes before the unwinding, POP_BLOCK (3.10) and the exit call. What it
      // copies, the code after a loop, was not found: no reading.)
      if (after_exit && !loads_constant && breaks_before(bare_exit_at_))
        throw DecodeFailure("a break's copy of the code after its loop");
      if (profile_.block_stack && !loads_constant && loaded_past_enclosing_unwind(i) &&
          !returns_bound_local(i))
        throw DecodeFailure("a clause's copy of the code after its enclosing try");
      if (!loads_constant) stmt->keyword_line = op.line;
      // (A `pass` kept for its line before it, the NOP dropped at lift: `else: pass`.)
      const Operation& load = lifted_.ops[static_cast<size_t>(loads_constant ? i - 1 : i)];
      if (profile_.keeps_pass_before_return_none && loads_constant && load.nop_line >= 0 &&
          load.constant && load.constant->kind == bytecode::ObjectKind::None)
        emit(make_stmt(StmtKind::Pass));
      // 3.12+ folds `return CONST` into RETURN_CONST: a constant returned by LOAD_CONST +
      // RETURN_VALUE is a branch of `return a if c else b` whose return the compiler copied.
      // (A tuple or frozenset constant too: its value reads as a display. Not the value of an
      // and/or whose last operand the constant is.)
      if (profile_.returns_constants && loads_constant &&
          (value->kind == ExprKind::Constant || value->kind == ExprKind::Tuple ||
           value->kind == ExprKind::Set)) {
        stmt->text = "unfolded";
      } else if (profile_.returns_constants && builds_constant_tuple(i - 1)) {
        stmt->text = "display";
      }
      emit(stmt);
      return true;
    }
    case Op::ReturnConst: {
      auto stmt = make_stmt(StmtKind::Return, {constant(op.constant)});
      stmt->new_line = on_new_line(i) || line_held_by_copies(i);
      // (flowgraph.c optimize_basic_block folds LOAD_CONST + RETURN_VALUE before
      // inline_small_exit_blocks copies a return: a RETURN_CONST is a `return K` as written,
      // never a branch of `return a if c else b`; fold_return_if_expression keeps it.)
      if (profile_.returns_constants) stmt->text = "written";
      emit(stmt);
      return true;
    }
    case Op::RaiseVarargs:
      emit_raise(op);
      return true;
    case Op::PrintExpr:
      throw DecodeFailure("interactive print");
    default:
      return false;
  }
}

// RAISE_VARARGS: `raise [exc [from cause]]`, or an `assert False[, msg]` (an AssertionError
// raised unconditionally).
void CodeDecoder::emit_raise(const Operation& op) {
  std::vector<ExprPtr> parts(static_cast<size_t>(op.arg));
  for (size_t k = parts.size(); k-- > 0;) parts[k] = pop();
  // LOAD_ASSERTION_ERROR raised unconditionally: `assert False[, msg]` (a test that failed
  // makes it `assert test[, msg]`, see decode_condition).
  if (parts.size() == 1 && parts[0]->kind == ExprKind::Name && parts[0]->ref == 7) {
    emit(make_stmt(StmtKind::Assert, {make_constant(assert_false_spelling())}));
    return;
  }
  if (parts.size() == 1 && parts[0]->kind == ExprKind::Call && parts[0]->args.size() == 2 &&
      parts[0]->args[0]->ref == 7 && parts[0]->args[1]->kind != ExprKind::Keyword &&
      parts[0]->args[1]->kind != ExprKind::Starred &&
      parts[0]->args[1]->kind != ExprKind::DoubleStarred) {
    emit(make_stmt(StmtKind::Assert, {make_constant(assert_false_spelling()), parts[0]->args[1]}));
    return;
  }
  emit(make_stmt(StmtKind::Raise, std::move(parts)));
}

// Imports.
bool CodeDecoder::execute_import(const Operation& op) {
  switch (op.op) {
    case Op::ImportName: {
      ExprPtr fromlist = pop();
      ExprPtr level = pop();
      ExprPtr import = internal("import", {level, fromlist});
      import->ops = {op.text};
      push(import);
      return true;
    }
    case Op::ImportFrom: {
      ExprPtr module = top();
      ExprPtr from = internal("import_from", {module});
      from->ops = {op.text};
      push(from);
      return true;
    }
    case Op::ImportStar: {
      ExprPtr module = pop();
      auto stmt = make_stmt(StmtKind::Import);
      stmt->text = "from " + import_statement_module(module) + " import *";
      emit(stmt);
      if (op.arg == 1) push(internal("intrinsic_result"));  // 3.12+: popped next, no source
      return true;
    }
    default:
      return false;
  }
}

void CodeDecoder::execute(int i) {
  if (--session_.steps_left < 0) throw DecodeFailure("step budget exhausted");
  const Operation& op = lifted_.ops[static_cast<size_t>(i)];
  // 3.11+: a handler starting with PUSH_EXC_INFO is a try or with statement's (compiler_try_except,
  // compiler_try_finally, compiler_with push it with SETUP_FINALLY/SETUP_CLEANUP); an operation
  // it covers read while that statement is not open is read as if no handler covered it: what it
  // raises would no longer reach the clauses.
  if (int handler = try_covering_[static_cast<size_t>(i)];
      handler >= 0 && !opened_try_[static_cast<size_t>(handler)])
    throw DecodeFailure("operation outside its try statement");
  if (execute_stack(op, i) || execute_load(op, i) || execute_store(op, i) || execute_operator(op) ||
      execute_build(op) || execute_display_update(op) || execute_format(op) || execute_call(op) ||
      execute_generator(op) || execute_exit(op, i) || execute_import(op))
    return;
  throw DecodeFailure("unsupported operation " +
                      (op.text.empty() ? std::to_string(static_cast<int>(op.op)) : op.text));
}

// `a, b = x, y` and `a, b, c = x, y, z`: the compiler replaces the tuple's packing and unpacking
// by a rotation of the values (3.10: ROT_TWO, or ROT_THREE + ROT_TWO; 3.11+: SWAP 2 or 3), and
// 3.11+ removes that rotation again when the targets are distinct local names, by storing the
// values last first. Either way the values become the slots of one unpacking of their tuple, so
// that the stores that follow build the tuple assignment. The number of plain values at the
// statement's level, or 0 when they are not such a group.
size_t CodeDecoder::tuple_values_pending() const {
  size_t first = stack_.size();
  while (first > statement_depth_ && stack_[first - 1] &&
         stack_[first - 1]->kind != ExprKind::Internal)
    --first;
  size_t count = stack_.size() - first;
  if (count < 2 || count > 3) return 0;
  for (size_t a = first; a < stack_.size(); ++a) {
    for (size_t b = first; b < stack_.size(); ++b) {
      // The same value twice is `a = b = v` (a COPY, or a constant loaded again); a value built
      // from another is an augmented assignment to a subscript or attribute.
      if (a != b && (stack_[a] == stack_[b] || contains_value(stack_[a], stack_[b]))) return 0;
    }
  }
  return count;
}

// An unpacked value used as a value rather than stored, or still on the stack when a statement
// runs: generated code (Dynamo unpacks a call's results onto the stack and juggles the items into
// lists) where the compiler stores every item at once. The unpacking is then an assignment of its
// own, where it ran: to the targets stored so far and to temporaries, which the group's slots on
// the stack become. Values under the lowest slot were computed before it, and move to temporaries
// first where it could change them. The name the slot `slot` (on the stack) now reads.
ExprPtr CodeDecoder::unpack_to_temporaries(ExprPtr slot) {
  ExprPtr group = slot->args[0];
  size_t count = group->clauses.size();
  std::vector<ExprPtr> names(count), targets(count);
  size_t lowest = stack_.size();
  for (size_t k = stack_.size(); k-- > 0;) {
    const ExprPtr& other = stack_[k];
    if (!(is_internal(other, "unpack_slot") || is_internal(other, "unpack_star")) ||
        other->args[0] != group)
      continue;
    auto index = static_cast<size_t>(other->ref);
    if (!names[index]) names[index] = fresh_temporary();
    targets[index] =
        other->text == "unpack_star" ? make_expr(ExprKind::Starred, {names[index]}) : names[index];
    lowest = k;
  }
  for (size_t k = 0; k < count; ++k) {
    if (!targets[k]) targets[k] = group->clauses[k].target;
    // (An item taken by a nested unpacking not yet stored: no place for it to go.)
    if (!targets[k]) throw DecodeFailure("unpacked value out of reach");
  }
  ExprPtr source = is_internal(group->args[0], "chain") ? walrus(group->args[0]) : group->args[0];
  if (source->kind == ExprKind::Internal)
    throw DecodeFailure("unpacking of " + source->text + " used as a value");
  if (!names[static_cast<size_t>(slot->ref)]) throw DecodeFailure("unpacked value out of reach");
  if (expression_only_ > 0) throw DecodeFailure("statement inside an expression");
  for (size_t k = lowest; k < stack_.size(); ++k) {
    if ((is_internal(stack_[k], "unpack_slot") || is_internal(stack_[k], "unpack_star")) &&
        stack_[k]->args[0] == group)
      stack_[k] = names[static_cast<size_t>(stack_[k]->ref)];
  }
  group->clauses.assign(count, {});  // (no store completes it again)
  group->ref = -1;
  StmtPtr assign =
      make_stmt(StmtKind::Assign, {make_expr(ExprKind::Tuple, std::move(targets)), source});
  spill_pending(*assign, false, SIZE_MAX, lowest);
  out_->push_back(std::move(assign));
  return names[static_cast<size_t>(slot->ref)];
}

void CodeDecoder::unpack_pending_values(size_t count, bool stored_last_first) {
  size_t first = stack_.size() - count;
  std::vector<ExprPtr> values(stack_.begin() + static_cast<long>(first), stack_.end());
  std::vector<ExprPtr> slots = unpack_slots(make_expr(ExprKind::Tuple, values), count);
  for (size_t k = 0; k < count; ++k)
    stack_[first + k] = slots[stored_last_first ? k : count - 1 - k];
}

void CodeDecoder::swapped_tuple_assignment(int i) {
  const auto& ops = lifted_.ops;
  if (!profile_.swaps_stores_statically) return;
  size_t count = tuple_values_pending();
  if (count == 0 || static_cast<size_t>(i) + count > ops.size()) return;
  std::set<std::string> names;
  for (size_t k = 0; k < count; ++k) {
    const Operation& store_op = ops[static_cast<size_t>(i) + k];
    if (store_op.op != Op::StoreName || store_op.scope != Scope::Fast ||
        !names.insert(store_op.text).second)
      return;
  }
  unpack_pending_values(count, true);
}

int CodeDecoder::rotated_tuple_assignment(int i) {
  const auto& ops = lifted_.ops;
  size_t count = tuple_values_pending();
  if (count == 0) return -1;
  auto is = [&](int at, Op op, int arg) {
    return static_cast<size_t>(at) < ops.size() && ops[static_cast<size_t>(at)].op == op &&
           ops[static_cast<size_t>(at)].arg == arg;
  };
  int after = -1;
  if (is(i, Op::Swap, static_cast<int>(count)) && (profile_.swap_reaches_any_depth || count == 2)) {
    after = i + 1;
  } else if (!profile_.swap_reaches_any_depth && count == 3 && is(i, Op::Rotate, 3) &&
             is(i + 1, Op::Swap, 2)) {
    after = i + 2;
  }
  if (after < 0) return -1;
  // What follows must be the stores (and the loads of their targets' objects and keys); a
  // nested target unpacks its value into as many more.
  size_t stores = 0;
  size_t needed = count;
  for (size_t k = static_cast<size_t>(after); k < ops.size() && stores < needed; ++k) {
    Op next = ops[k].op;
    if (next == Op::StoreName || next == Op::StoreAttr || next == Op::StoreSubscr ||
        next == Op::StoreSlice) {  // (3.12+: compiler_visit_expr's STORE_SLICE for `a[i:j] =`)
      ++stores;
    } else if (next == Op::UnpackSequence && ops[k].arg >= 1) {
      needed += static_cast<size_t>(ops[k].arg) - 1;
    } else if (next == Op::UnpackEx) {
      needed += static_cast<size_t>((ops[k].arg & 0xFF) + (ops[k].arg >> 8));
    } else if (next != Op::LoadName && next != Op::LoadConst && next != Op::LoadAttr &&
               next != Op::BinarySubscr && next != Op::BinaryOp && next != Op::UnaryOp &&
               next != Op::BuildSlice && next != Op::Nop) {
      return -1;
    }
  }
  if (stores < needed) return -1;
  unpack_pending_values(count, false);
  return after;
}

// Whether operation i is the first on its line, in layout order (its line above all before it).
bool CodeDecoder::on_new_line(int i) {
  const auto& ops = lifted_.ops;
  if (max_line_before_.empty()) {
    max_line_before_.reserve(ops.size());
    int highest = -1;
    for (const Operation& op : ops) {
      max_line_before_.push_back(highest);
      highest = std::max(highest, op.line);
    }
  }
  int line = ops[static_cast<size_t>(i)].line;
  return line > 0 && line > max_line_before_[static_cast<size_t>(i)];
}

// 3.12+'s inline_small_exit_blocks (3.10's extend_block) copies a short exit block with a line
// of its own, the line with it, into the jumps to it, and a copy may lie before the original (a
// chained comparison's cleanup: `POP_TOP`, then the copy of the return its false exit goes to; the
// last link's copy right before the original, which then starts no line). Whether the exit block at
// operation i starts its line all the same: every operation before it starting that line (or a
// later one) starts such a copy, which no other operation of the line follows.
bool CodeDecoder::line_held_by_copies(int i) {
  const auto& ops = lifted_.ops;
  if (!profile_.inlines_small_exit_blocks || on_new_line(i)) return false;
  const int n = normalized_.exit_run[static_cast<size_t>(i)];
  if (n <= 0) return false;
  int start = i;  // where the line starts: i, or a copy right before it
  while (ops[static_cast<size_t>(start)].line < 0 && start >= n &&
         same_operations(ops, start - n, i, n)) {
    start -= n;
    for (int k = start + 1; k < start + n; ++k) {
      if (ops[static_cast<size_t>(k)].line >= 0) return false;
    }
  }
  const int line = ops[static_cast<size_t>(start)].line;
  if (line <= 0 || line < max_line_before_[static_cast<size_t>(start)]) return false;
  for (int k = 0; k < start; ++k) {
    if (ops[static_cast<size_t>(k)].line != line) continue;
    if (k + n > start || !same_operations(ops, k, i, n)) return false;
    if (k + n < start && ops[static_cast<size_t>(k + n)].line < 0) return false;
  }
  return true;
}

// Whether operation i (a `return None`'s LOAD_CONST) is on a line nothing but such returns start:
// a written `return`'s, where a copy of the implicit one takes the line of the code before it.
bool CodeDecoder::on_return_line(int i) {
  const auto& ops = lifted_.ops;
  auto returns_none = [&](size_t k) {
    return k + 1 < ops.size() && ops[k].op == Op::LoadConst && ops[k + 1].op == Op::ReturnValue &&
           ops[k].constant && ops[k].constant->kind == bytecode::ObjectKind::None;
  };
  if (shared_lines_.empty()) {
    shared_lines_.insert(-1);
    for (size_t k = 0; k < ops.size(); ++k) {
      if (ops[k].line > 0 && !returns_none(k)) shared_lines_.insert(ops[k].line);
    }
  }
  int line = -1;
  for (int k = i; k >= 0 && line < 0; --k) line = ops[static_cast<size_t>(k)].line;
  return line > 0 && !shared_lines_.count(line);
}

// Whether the RETURN_VALUE at i leaves an except clause holding a value computed inside it:
// compiler_unwind_fblock (HANDLER_CLEANUP, preserve_tos) swaps the value under the previous
// exception and pops it (3.10: ROT_FOUR), then clears a clause's name, right before the return.
bool CodeDecoder::unwinds_clause_before(int i) const {
  const auto& ops = lifted_.ops;
  for (int k = i - 1; k >= 0; --k) {
    switch (ops[static_cast<size_t>(k)].op) {
      case Op::PopExcept:  // (not a value computed before the statement, left under it)
        while (--k >= 0 && (ops[static_cast<size_t>(k)].op == Op::PopBlock ||
                            ops[static_cast<size_t>(k)].op == Op::Nop)) {
        }
        return k >= 0 && (ops[static_cast<size_t>(k)].op == Op::Swap ||
                          ops[static_cast<size_t>(k)].op == Op::Rotate);
      case Op::PopBlock:
      case Op::Nop:
      case Op::LoadConst:
      case Op::StoreName:
      case Op::DeleteName:
        continue;
      default:
        return false;
    }
  }
  return false;
}

// 3.10: whether the value returned at i is loaded right after a clause's POP_EXCEPT and an
// enclosing block's POP_BLOCK. compiler_return computes a written return's value before
// compiler_unwind_fblock_stack unwinds (preserve_tos: the value is loaded before POP_EXCEPT), so
// this is no return of the clause's: it is the code after the enclosing statement, a small exit
// block extend_block copied into the clause's way out, and it runs outside that statement's
// handler.
bool CodeDecoder::loaded_past_enclosing_unwind(int i) const {
  const auto& ops = lifted_.ops;
  auto at = [&](int k) { return ops[static_cast<size_t>(k)].op; };
  int k = i - 1;
  while (k >= 0 && !ends_statement(at(k)) && !is_jump(at(k)) && at(k) != Op::PopBlock) --k;
  if (k == i - 1 || k < 0 || at(k) != Op::PopBlock) return false;
  while (k >= 0 && at(k) == Op::PopBlock) --k;
  return k >= 0 && at(k) == Op::PopExcept;
}

// Whether the RETURN_VALUE at i returns a local that is bound wherever it runs: a lone
// LOAD_FAST of a name stored in a block that dominates the return's, and deleted nowhere. Such a
// return cannot raise, so no handler around it can tell where it stands.
bool CodeDecoder::returns_bound_local(int i) const {
  const auto& ops = lifted_.ops;
  if (i < 1) return false;
  const Operation& load = ops[static_cast<size_t>(i) - 1];
  if (load.op != Op::LoadName || load.scope != Scope::Fast) return false;
  auto same_local = [&](const Operation& o, Op kind) {
    return o.op == kind && o.scope == Scope::Fast && o.text == load.text;
  };
  for (const Operation& o : ops) {
    if (same_local(o, Op::DeleteName) || o.op == Op::LoadFastAndClear) return false;
  }
  ControlFlowGraph cfg = build_cfg(lifted_);
  Dominators dom = find_dominators(cfg, PostDominators::Skip);
  int block = cfg.block_of[static_cast<size_t>(i)];
  for (int k = 0; k < i - 1; ++k) {
    if (same_local(ops[static_cast<size_t>(k)], Op::StoreName) &&
        cfg.block_of[static_cast<size_t>(k)] != block &&
        dom.dominates(cfg.block_of[static_cast<size_t>(k)], block))
      return true;
  }
  return false;
}

void CodeDecoder::pop_top(ExprPtr value) {
  const bool soft = std::exchange(soft_statement_, false);
  // Generated code discards temporaries and constants it juggled: no statement to show.
  if (spilled_ > 0 &&
      ((value->kind == ExprKind::Name && value->text.rfind("_gb_tmp", 0) == 0) || is_none(value))) {
    return;
  }
  if (is_internal(value, "chain")) return emit(make_stmt(StmtKind::Expr, {walrus(value)}));
  if (value->kind == ExprKind::Internal) {
    if (value->text == "import") return emit_import_from(value);
    // Iterators popped by return/break, exit results, the generator marker: no source.
    return;
  }
  if (soft && expression_only_ > 0) {
    statement_refused_ = true;  // emit would throw
    return;
  }
  emit(make_stmt(StmtKind::Expr, {value}));
}

// A store of an internal value: an unpacked slot, a scope's own bookkeeping, a captured target, an
// import. True when the store is done with.
bool CodeDecoder::store_internal(const ExprPtr& target, const ExprPtr& value) {
  const std::string& tag = value->text;
  if (tag == "unpack_slot" || tag == "unpack_star") {
    ExprPtr group = value->args[0];
    auto& slot = group->clauses[static_cast<size_t>(value->ref)];
    if (slot.target || group->ref < 0) throw DecodeFailure("unpacked value stored twice");
    slot.target = tag == "unpack_star" ? make_expr(ExprKind::Starred, {target}) : target;
    if (++group->ref == static_cast<int>(group->clauses.size())) {
      std::vector<ExprPtr> targets;
      for (auto& clause : group->clauses) {
        if (!clause.target) throw DecodeFailure("unpacked value never stored");
        targets.push_back(clause.target);
      }
      store(make_expr(ExprKind::Tuple, std::move(targets)), group->args[0]);
    }
    return true;
  }
  if (tag == "saved_local") return true;  // an inlined comprehension restoring its variable
  // The stores of a generic definition's scope: the type parameters, Generic[...].
  if (tag == "type_param" || tag == "generic_base") return true;
  // 3.12: a class body with annotation scopes keeps its namespace cell.
  if (tag == "closure" && target->kind == ExprKind::Name && target->text == "__classdictcell__")
    return true;
  if (tag == "loop_target" || tag == "with_value" || tag == "exc") {
    captured_target_ = target;
    return true;
  }
  return store_import(target, value);
}

// Annotated assignment at module/class level: __annotations__['x'] = annotation (joining the
// assignment to x just before). False when the target is not one.
bool CodeDecoder::store_annotation(const ExprPtr& target, const ExprPtr& value) {
  if (!(target->kind == ExprKind::Subscript && target->args[0]->kind == ExprKind::Name &&
        target->args[0]->text == "__annotations__" && target->args[1]->kind == ExprKind::Constant &&
        target->args[1]->text.size() >= 2 && target->args[1]->text[0] == '\'')) {
    return false;
  }
  std::string name = target->args[1]->text.substr(1, target->args[1]->text.size() - 2);
  if (!out_->empty() && out_->back()->kind == StmtKind::Assign && out_->back()->exprs.size() == 2 &&
      out_->back()->exprs[0]->kind == ExprKind::Name && out_->back()->exprs[0]->text == name) {
    StmtPtr assign = out_->back();
    out_->back() = make_stmt(StmtKind::AnnAssign,
                             {assign->exprs[0], annotation_source(value), assign->exprs[1]});
    return true;
  }
  emit(make_stmt(StmtKind::AnnAssign, {make_name(name), annotation_source(value)}));
  return true;
}

void CodeDecoder::store(ExprPtr target, ExprPtr value) {
  const bool soft = std::exchange(soft_statement_, false);
  if (target->kind == ExprKind::Name && target->text == "__classcell__") return;
  // The `except ... as name` cleanup: name = None; del name.
  if (!handler_name_.empty() && target->kind == ExprKind::Name && target->text == handler_name_ &&
      is_none(value) && !keep_handler_store_) {
    return;
  }
  if (unbinds_enclosing_clause_ && target->kind == ExprKind::Name && is_none(value)) return;
  // `a = b = v`: the value is still on the stack (a COPY) for the next target.
  bool is_chain = is_internal(value, "chain");
  if (!stack_.empty() && stack_.back() == value && value->kind != ExprKind::Internal) {
    auto chain = internal("chain", {value});
    chain->clauses.push_back({target, nullptr, {}, false});
    stack_.back() = chain;
    return;
  }
  if (is_chain && !stack_.empty() && stack_.back() == value) {
    value->clauses.push_back({target, nullptr, {}, false});
    return;
  }
  if (is_chain) {
    std::vector<ExprPtr> exprs;
    for (auto& clause : value->clauses) exprs.push_back(clause.target);
    exprs.push_back(target);
    ExprPtr source = value->args[0];
    if (store_definition(target, source)) throw DecodeFailure("chained definition");
    exprs.push_back(source);
    return emit(make_stmt(StmtKind::Assign, std::move(exprs)));
  }
  if (value->kind == ExprKind::Internal && store_internal(target, value)) return;
  if (store_definition(target, value)) return;
  if (value->kind == ExprKind::Internal) throw DecodeFailure("store of " + value->text);
  // `x += v` arrives as a store of an in-place operation whose left side is the target.
  if (value->kind == ExprKind::BinOp && value->text.size() >= 2 && value->text.back() == '=') {
    if (soft && expression_only_ > 0) {
      statement_refused_ = true;  // emit would throw
      return;
    }
    StmtPtr aug = make_stmt(StmtKind::AugAssign, {target, value->args[1]});
    aug->text = value->text.substr(0, value->text.size() - 1);
    return emit(aug);
  }
  if (store_annotation(target, value)) return;
  if (soft && expression_only_ > 0) {
    statement_refused_ = true;  // emit would throw
    return;
  }
  emit(make_stmt(StmtKind::Assign, {target, value}));
}

}  // namespace glassbox::decompiler
