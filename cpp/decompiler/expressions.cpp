// The symbolic stack: operations that compute values become expression trees; operations that
// consume a value at statement level (stores, POP_TOP, returns, raises) become statements.
#include <cmath>

#include "bytecode/repr.hpp"
#include "decompiler/decoder.hpp"
#include "decompiler/printer.hpp"

namespace glassbox::decompiler {

namespace {

using bytecode::ObjectKind;

ExprPtr internal(const char* tag, std::vector<ExprPtr> args = {}) {
  return make_expr(ExprKind::Internal, std::move(args), tag);
}

bool is_none(const ExprPtr& e) { return e && e->kind == ExprKind::Constant && e->text == "None"; }

// A format spec as the printer wants it: literal text, or an f-string of its own.
ExprPtr raw_spec(const ExprPtr& spec) {
  if (spec && spec->kind == ExprKind::Constant && !spec->ops.empty()) return make_constant(spec->ops[0]);
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

bool CodeDecoder::is_internal(const ExprPtr& e, const char* tag) {
  return e && e->kind == ExprKind::Internal && e->text == tag;
}

bool CodeDecoder::is_null(const ExprPtr& e) const { return is_internal(e, "null"); }

ExprPtr CodeDecoder::pop_raw() {
  if (stack_.empty()) throw DecodeFailure("stack underflow");
  ExprPtr value = std::move(stack_.back());
  stack_.pop_back();
  return value;
}

// A stored value used again as a value: `(name := value)`.
ExprPtr walrus(const ExprPtr& chain) {
  if (chain->clauses.size() != 1 || chain->clauses[0].target->kind != ExprKind::Name) {
    throw DecodeFailure("assignment used as a value");
  }
  return make_expr(ExprKind::NamedExpr, {chain->clauses[0].target, chain->args[0]});
}

ExprPtr CodeDecoder::pop() {
  ExprPtr value = pop_raw();
  return is_internal(value, "chain") ? walrus(value) : value;
}

ExprPtr CodeDecoder::top(int depth) const {
  if (depth < 1 || static_cast<size_t>(depth) > stack_.size()) throw DecodeFailure("stack underflow");
  return stack_[stack_.size() - static_cast<size_t>(depth)];
}

void CodeDecoder::push(ExprPtr value) { stack_.push_back(std::move(value)); }

void CodeDecoder::emit(StmtPtr stmt) {
  if (expression_only_ > 0) throw DecodeFailure("statement inside an expression");
  out_->push_back(std::move(stmt));
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

ExprPtr CodeDecoder::name_expr(const std::string& name) const { return make_name(source_name(name)); }

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
      if (!std::isfinite(obj->real) || !std::isfinite(obj->imag)) throw DecodeFailure("non-finite complex");
      break;
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
  if (positional->kind == ExprKind::Tuple || positional->kind == ExprKind::List) {
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
        } else if (key->kind == ExprKind::Constant && key->text.size() >= 2 && key->text[0] == '\'') {
          args.push_back(make_expr(ExprKind::Keyword, {kwargs->args[k + 1]}, key->text.substr(1, key->text.size() - 2)));
        } else {
          throw DecodeFailure("unexpected keyword key");
        }
      }
    } else {
      args.push_back(make_expr(ExprKind::DoubleStarred, {kwargs}));
    }
  }
  return make_expr(ExprKind::Call, std::move(args));
}

// Before 3.12 an f-string's expressions cannot hold a backslash (an escaped string constant).
void CodeDecoder::check_fstring(const ExprPtr& joined) const {
  if (code_.minor >= 12) return;
  for (const ExprPtr& part : joined->args) {
    if (part->kind != ExprKind::FormattedValue) continue;
    if (print_expr(*part->args[0]).find('\\') != std::string::npos) {
      throw DecodeFailure("f-string expression needs a backslash");
    }
    if (part->args.size() > 1 && part->args[1] && part->args[1]->kind == ExprKind::JoinedStr) check_fstring(part->args[1]);
  }
}

ExprPtr CodeDecoder::evaluate(int begin, int end) {
  size_t depth = stack_.size();
  ++expression_only_;
  int i = begin;
  while (i < end) {
    int next = execute_special(i);
    if (next >= 0) {
      i = next;
      continue;
    }
    execute(i);
    ++i;
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
  if (op.op == Op::GetAwaitable && op.arg != 0 && code_.minor >= 11) throw DecodeFailure("async with is not supported yet");
  size_t k = static_cast<size_t>(i) + 1;
  if (k + 1 >= ops.size() || ops[k].op != Op::LoadConst || ops[k].constant->kind != ObjectKind::None) {
    throw DecodeFailure("await without its send loop");
  }
  int next;
  if (ops[k + 1].op == Op::Send) {
    next = ops[k + 1].target;
    if (next < static_cast<int>(ops.size()) && ops[static_cast<size_t>(next)].op == Op::EndSend) ++next;
  } else if (ops[k + 1].op == Op::Unknown && ops[k + 1].text == "YIELD_FROM") {
    next = static_cast<int>(k) + 2;
  } else {
    throw DecodeFailure("await without its send loop");
  }
  ExprPtr value = pop();
  push(make_expr(op.op == Op::GetAwaitable ? ExprKind::Await : ExprKind::YieldFrom, {value}));
  return next;
}

// Value-producing `and`/`or` and chained comparisons: the jumps that stay inside one expression.
int CodeDecoder::execute_special(int i) {
  const Operation& op = lifted_.ops[static_cast<size_t>(i)];
  if (op.op == Op::GetAwaitable || op.op == Op::GetYieldFromIter) return execute_delegation(i);
  if (op.op != Op::JumpIfOrPop) return -1;
  ExprPtr left = top();
  int target = op.target;
  if (target <= i) throw DecodeFailure("backward and/or");
  // Chained comparison: `a < b < c` keeps b (a copy) below the first comparison's result.
  if (left->kind == ExprKind::Compare && stack_.size() >= 2 && top(2) == left->args.back() && op.arg == 0) {
    pop();
    // Run the rest of the chain up to its jump over the cleanup at `target`.
    int k = i + 1;
    ++expression_only_;
    while (k < target && lifted_.ops[static_cast<size_t>(k)].op != Op::Jump) {
      int next = execute_special(k);
      if (next >= 0) {
        k = next;
        continue;
      }
      execute(k);
      ++k;
    }
    --expression_only_;
    ExprPtr right = pop();
    if (right->kind != ExprKind::Compare || right->args.empty() || right->args[0] != left->args.back()) {
      throw DecodeFailure("unrecognized chained comparison");
    }
    auto merged = std::make_shared<Expr>(*left);
    merged->args.insert(merged->args.end(), right->args.begin() + 1, right->args.end());
    merged->ops.insert(merged->ops.end(), right->ops.begin(), right->ops.end());
    push(merged);
    if (k < target) {
      // JUMP_FORWARD over the cleanup (SWAP 2; POP_TOP) at `target`.
      int after = lifted_.ops[static_cast<size_t>(k)].target;
      if (after < target + 2) throw DecodeFailure("chained comparison cleanup");
      return after;
    }
    return k;
  }
  pop();
  ExprPtr right = evaluate(i + 1, target);
  const char* word = op.arg == 0 ? "and" : "or";
  std::vector<ExprPtr> values;
  for (const ExprPtr& side : {left, right}) {
    if (side->kind == ExprKind::BoolOp && side->text == word) {
      for (const ExprPtr& item : side->args) values.push_back(item);
    } else {
      values.push_back(side);
    }
  }
  push(make_expr(ExprKind::BoolOp, std::move(values), word));
  return target;
}

void CodeDecoder::execute(int i) {
  if (--session_.steps_left < 0) throw DecodeFailure("step budget exhausted");
  const Operation& op = lifted_.ops[static_cast<size_t>(i)];
  switch (op.op) {
    case Op::Nop:
    case Op::ToBool:
      return;
    case Op::PopTop:
      return pop_top(pop_raw());
    case Op::PushNull:
      return push(internal("null"));
    case Op::Copy:
      return push(top(op.arg));
    case Op::Swap: {
      if (op.arg < 2 || static_cast<size_t>(op.arg) > stack_.size()) throw DecodeFailure("bad swap");
      std::swap(stack_.back(), stack_[stack_.size() - static_cast<size_t>(op.arg)]);
      return;
    }
    case Op::Rotate: {
      if (op.arg < 2 || static_cast<size_t>(op.arg) > stack_.size()) throw DecodeFailure("bad rotate");
      ExprPtr moved = pop();
      stack_.insert(stack_.end() - (op.arg - 1), moved);
      return;
    }
    case Op::LoadConst:
      if (op.constant->kind == ObjectKind::Code) {
        ExprPtr code = internal("code");
        code->ref = static_cast<int>(functions_.size());
        functions_.push_back(op.constant->code);
        return push(code);
      }
      return push(constant(op.constant));
    case Op::LoadName:
      if (op.null_slot && code_.minor < 13) push(internal("null"));
      push(name_expr(op.text));
      if (op.null_slot && code_.minor >= 13) push(internal("null"));
      return;
    case Op::LoadAttr: {
      ExprPtr base = pop();
      if (base->kind == ExprKind::Internal) throw DecodeFailure("attribute of internal value");
      return push(make_expr(ExprKind::Attribute, {base}, source_name(op.text)));
    }
    case Op::LoadMethod: {
      ExprPtr base = pop();
      if (base->kind == ExprKind::Internal) throw DecodeFailure("method of internal value");
      push(internal("null"));
      return push(make_expr(ExprKind::Attribute, {base}, source_name(op.text)));
    }
    case Op::LoadClosure:
      return push(internal("closure"));
    case Op::LoadSuperAttr: {  // 3.12+: super().name, or super(cls, obj).name
      ExprPtr self = pop();
      ExprPtr cls = pop();
      ExprPtr super_fn = pop();
      ExprPtr call = (op.arg & 2) ? make_expr(ExprKind::Call, {super_fn, cls, self}) : make_expr(ExprKind::Call, {super_fn});
      if (op.arg & 1) push(internal("null"));
      return push(make_expr(ExprKind::Attribute, {call}, source_name(op.text)));
    }
    case Op::LoadBuildClass:
      return push(internal("build_class"));
    case Op::LoadAssertionError: {
      ExprPtr name = make_name("AssertionError");
      name->ref = 7;  // LOAD_ASSERTION_ERROR: only an assert statement makes it
      return push(name);
    }
    case Op::StoreName:
      return store(name_expr(op.text), pop_raw());
    case Op::StoreAttr: {
      ExprPtr base = pop();
      ExprPtr value = pop_raw();
      return store(make_expr(ExprKind::Attribute, {base}, source_name(op.text)), value);
    }
    case Op::StoreSubscr: {
      ExprPtr index = pop();
      ExprPtr base = pop();
      ExprPtr value = pop_raw();
      return store(make_expr(ExprKind::Subscript, {base, index}), value);
    }
    case Op::StoreSlice: {
      ExprPtr stop = pop();
      ExprPtr start = pop();
      ExprPtr base = pop();
      ExprPtr value = pop();
      ExprPtr slice = make_expr(ExprKind::Slice, {is_none(start) ? nullptr : start, is_none(stop) ? nullptr : stop});
      return store(make_expr(ExprKind::Subscript, {base, slice}), value);
    }
    case Op::DeleteName:
      if (!handler_name_.empty() && op.text == handler_name_) return;  // the `except ... as` cleanup
      return emit(make_stmt(StmtKind::Delete, {name_expr(op.text)}));
    case Op::DeleteAttr:
      return emit(make_stmt(StmtKind::Delete, {make_expr(ExprKind::Attribute, {pop()}, source_name(op.text))}));
    case Op::DeleteSubscr: {
      ExprPtr index = pop();
      ExprPtr base = pop();
      return emit(make_stmt(StmtKind::Delete, {make_expr(ExprKind::Subscript, {base, index})}));
    }
    case Op::BinaryOp: {
      ExprPtr right = pop();
      ExprPtr left = pop();
      return push(make_expr(ExprKind::BinOp, {left, right}, op.text));
    }
    case Op::UnaryOp:
      if (op.text == "not") return push(negate(pop()));
      return push(make_expr(ExprKind::UnaryOp, {pop()}, op.text));
    case Op::Compare:
    case Op::IsOp:
    case Op::ContainsOp: {
      ExprPtr right = pop();
      ExprPtr left = pop();
      ExprPtr cmp = make_expr(ExprKind::Compare, {left, right});
      if (op.op == Op::Compare) cmp->ops = {op.text};
      else if (op.op == Op::IsOp) cmp->ops = {op.arg ? "is not" : "is"};
      else cmp->ops = {op.arg ? "not in" : "in"};
      return push(cmp);
    }
    case Op::BinarySubscr: {
      ExprPtr index = pop();
      ExprPtr base = pop();
      return push(make_expr(ExprKind::Subscript, {base, index}));
    }
    case Op::BinarySlice: {
      ExprPtr stop = pop();
      ExprPtr start = pop();
      ExprPtr base = pop();
      ExprPtr slice = make_expr(ExprKind::Slice, {is_none(start) ? nullptr : start, is_none(stop) ? nullptr : stop});
      return push(make_expr(ExprKind::Subscript, {base, slice}));
    }
    case Op::BuildSlice: {
      std::vector<ExprPtr> parts(static_cast<size_t>(op.arg));
      for (size_t k = parts.size(); k-- > 0;) {
        parts[k] = pop();
        if (is_none(parts[k])) parts[k] = nullptr;
      }
      return push(make_expr(ExprKind::Slice, std::move(parts)));
    }
    case Op::BuildTuple:
    case Op::BuildList:
    case Op::BuildSet:
    case Op::BuildString: {
      std::vector<ExprPtr> items(static_cast<size_t>(op.arg));
      for (size_t k = items.size(); k-- > 0;) items[k] = pop();
      if (op.op == Op::BuildTuple && !items.empty() && is_internal(items[0], "closure")) {
        return push(internal("closure"));
      }
      ExprKind kind = op.op == Op::BuildTuple ? ExprKind::Tuple
                      : op.op == Op::BuildList ? ExprKind::List
                      : op.op == Op::BuildSet ? ExprKind::Set
                                              : ExprKind::JoinedStr;
      if (kind == ExprKind::JoinedStr) {
        std::vector<ExprPtr> parts;
        for (ExprPtr& item : items) {
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
      if (kind == ExprKind::JoinedStr) check_fstring(built);
      return push(built);
    }
    case Op::BuildMap: {
      std::vector<ExprPtr> items(static_cast<size_t>(op.arg) * 2);
      for (size_t k = items.size(); k-- > 0;) items[k] = pop();
      return push(make_expr(ExprKind::Dict, std::move(items)));
    }
    case Op::BuildConstKeyMap: {
      ExprPtr keys = pop();
      std::vector<ExprPtr> values(static_cast<size_t>(op.arg));
      for (size_t k = values.size(); k-- > 0;) values[k] = pop();
      if (keys->kind != ExprKind::Tuple || keys->args.size() != values.size()) throw DecodeFailure("const key map");
      std::vector<ExprPtr> items;
      for (size_t k = 0; k < values.size(); ++k) {
        items.push_back(keys->args[k]);
        items.push_back(values[k]);
      }
      return push(make_expr(ExprKind::Dict, std::move(items)));
    }
    case Op::ListExtend:
    case Op::SetUpdate: {
      ExprPtr iterable = pop();
      ExprPtr display = top(op.arg);
      auto grown = std::make_shared<Expr>(*display);
      if (iterable->kind == ExprKind::Tuple && iterable->args.size() > 0 && grown->args.empty() &&
          iterable->args[0]->kind == ExprKind::Constant) {
        grown->args = iterable->args;  // a constant display folded into a tuple
      } else {
        grown->args.push_back(make_expr(ExprKind::Starred, {iterable}));
      }
      stack_[stack_.size() - static_cast<size_t>(op.arg)] = grown;
      return;
    }
    case Op::DictUpdate:
    case Op::DictMerge: {
      ExprPtr mapping = pop();
      ExprPtr display = top(op.arg);
      auto grown = std::make_shared<Expr>(*display);
      if (mapping->kind == ExprKind::Dict && op.op == Op::DictMerge) {
        grown->args.insert(grown->args.end(), mapping->args.begin(), mapping->args.end());
      } else {
        grown->args.push_back(nullptr);
        grown->args.push_back(mapping);
      }
      stack_[stack_.size() - static_cast<size_t>(op.arg)] = grown;
      return;
    }
    case Op::ListAppend:
    case Op::SetAdd: {
      ExprPtr value = pop();
      if (op.arg == 1) {  // a display being built: [*a, b]
        auto grown = std::make_shared<Expr>(*top());
        grown->args.push_back(value);
        stack_.back() = grown;
        return;
      }
      return emit(make_stmt(StmtKind::Expr, {internal("append", {value})}));
    }
    case Op::MapAdd: {
      ExprPtr value = pop();
      ExprPtr key = pop();
      if (op.arg == 1) {
        auto grown = std::make_shared<Expr>(*top());
        grown->args.push_back(key);
        grown->args.push_back(value);
        stack_.back() = grown;
        return;
      }
      return emit(make_stmt(StmtKind::Expr, {internal("append", {key, value})}));
    }
    case Op::ListToTuple: {
      ExprPtr list = pop();
      return push(make_expr(ExprKind::Tuple, list->args));
    }
    case Op::Call:
      return push(build_call(op));
    case Op::CallEx:
      return push(build_call_ex(op));
    case Op::MakeFunction:
      return push(make_function(op));
    case Op::FormatValue: {
      ExprPtr spec = (op.arg & 4) ? pop() : nullptr;
      ExprPtr value = pop();
      static const char* const conversions[] = {"", "s", "r", "a"};
      ExprPtr formatted = make_expr(ExprKind::FormattedValue, {value, raw_spec(spec)}, conversions[op.arg & 3]);
      check_fstring(make_expr(ExprKind::JoinedStr, {formatted}));
      return push(formatted);
    }
    case Op::ConvertValue: {
      ExprPtr value = pop();
      static const char* const conversions[] = {"", "s", "r", "a"};
      return push(make_expr(ExprKind::FormattedValue, {value, nullptr}, conversions[op.arg & 3]));
    }
    case Op::FormatSimple:
    case Op::FormatWithSpec: {
      ExprPtr spec = op.op == Op::FormatWithSpec ? pop() : nullptr;
      ExprPtr value = pop();
      if (value->kind == ExprKind::FormattedValue && !value->args[1]) {
        auto copy = std::make_shared<Expr>(*value);
        copy->args[1] = raw_spec(spec);
        return push(copy);
      }
      return push(make_expr(ExprKind::FormattedValue, {value, raw_spec(spec)}, ""));
    }
    case Op::ReturnValue: {
      ExprPtr value = pop();
      return emit(make_stmt(StmtKind::Return, {value}));
    }
    case Op::ReturnConst:
      return emit(make_stmt(StmtKind::Return, {constant(op.constant)}));
    case Op::RaiseVarargs: {
      std::vector<ExprPtr> parts(static_cast<size_t>(op.arg));
      for (size_t k = parts.size(); k-- > 0;) parts[k] = pop();
      return emit(make_stmt(StmtKind::Raise, std::move(parts)));
    }
    case Op::GetIter:
      return push(internal("iter", {pop()}));
    case Op::YieldValue: {
      ExprPtr value = pop();
      return push(make_expr(ExprKind::Yield, {is_none(value) ? nullptr : value}));
    }
    case Op::ReturnGenerator:
      return push(internal("generator"));
    case Op::ImportName: {
      ExprPtr fromlist = pop();
      ExprPtr level = pop();
      ExprPtr import = internal("import", {level, fromlist});
      import->ops = {op.text};
      return push(import);
    }
    case Op::ImportFrom: {
      ExprPtr module = top();
      ExprPtr from = internal("import_from", {module});
      from->ops = {op.text};
      return push(from);
    }
    case Op::ImportStar: {
      ExprPtr module = pop();
      auto stmt = make_stmt(StmtKind::Import);
      stmt->text = "from " + import_statement_module(module) + " import *";
      return emit(stmt);
    }
    case Op::UnpackSequence:
    case Op::UnpackEx: {
      ExprPtr source = pop_raw();
      int before = op.op == Op::UnpackSequence ? op.arg : (op.arg & 0xff);
      int after = op.op == Op::UnpackSequence ? 0 : (op.arg >> 8);
      int count = before + after + (op.op == Op::UnpackEx ? 1 : 0);
      auto group = internal("unpack", {source});
      group->clauses.resize(static_cast<size_t>(count));  // the targets, filled by stores
      group->ref = 0;                                     // how many are filled
      for (int k = count; k-- > 0;) {
        ExprPtr slot = internal("unpack_slot", {group});
        slot->ref = k;
        if (op.op == Op::UnpackEx && k == before) slot->text = "unpack_star";
        push(slot);
      }
      return;
    }
    case Op::SetupAnnotations:
    case Op::PopBlock:
      return;
    case Op::PrintExpr:
      throw DecodeFailure("interactive print");
    case Op::PopExcept: {
      // The previous exception: one value from 3.11, three (type, value, traceback) in 3.10.
      for (int k = code_.minor == 10 ? 3 : 1; k > 0; --k) {
        if (!is_internal(pop(), "prev_exc")) throw DecodeFailure("POP_EXCEPT of a non-exception");
      }
      return;
    }
    case Op::GetAwaitable:
    case Op::GetAiter:
    case Op::GetAnext:
    case Op::Send:
    case Op::GetYieldFromIter:
      throw DecodeFailure("async/yield from is not supported yet");
    default:
      throw DecodeFailure("unsupported operation " + (op.text.empty() ? std::to_string(static_cast<int>(op.op)) : op.text));
  }
}

void CodeDecoder::pop_top(ExprPtr value) {
  if (is_internal(value, "chain")) return emit(make_stmt(StmtKind::Expr, {walrus(value)}));
  if (value->kind == ExprKind::Internal) {
    if (value->text == "import") return emit_import_from(value);
    // Iterators popped by return/break, exit results, the generator marker: no source.
    return;
  }
  emit(make_stmt(StmtKind::Expr, {value}));
}

void CodeDecoder::store(ExprPtr target, ExprPtr value) {
  if (target->kind == ExprKind::Name && target->text == "__classcell__") return;
  // The `except ... as name` cleanup: name = None; del name.
  if (!handler_name_.empty() && target->kind == ExprKind::Name && target->text == handler_name_ && is_none(value)) {
    return;
  }
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
  if (value->kind == ExprKind::Internal) {
    const std::string& tag = value->text;
    if (tag == "unpack_slot" || tag == "unpack_star") {
      ExprPtr group = value->args[0];
      auto& slot = group->clauses[static_cast<size_t>(value->ref)];
      slot.target = tag == "unpack_star" ? make_expr(ExprKind::Starred, {target}) : target;
      if (++group->ref == static_cast<int>(group->clauses.size())) {
        std::vector<ExprPtr> targets;
        for (auto& clause : group->clauses) targets.push_back(clause.target);
        return store(make_expr(ExprKind::Tuple, std::move(targets)), group->args[0]);
      }
      return;
    }
    if (tag == "saved_local") return;  // an inlined comprehension restoring its variable
    if (tag == "loop_target" || tag == "with_value" || tag == "exc") {
      captured_target_ = target;
      return;
    }
    if (store_import(target, value)) return;
  }
  if (store_definition(target, value)) return;
  if (value->kind == ExprKind::Internal) throw DecodeFailure("store of " + value->text);
  // `x += v` arrives as a store of an in-place operation whose left side is the target.
  if (value->kind == ExprKind::BinOp && value->text.size() >= 2 && value->text.back() == '=') {
    StmtPtr aug = make_stmt(StmtKind::AugAssign, {target, value->args[1]});
    aug->text = value->text.substr(0, value->text.size() - 1);
    return emit(aug);
  }
  // Annotated assignment at module/class level: __annotations__['x'] = annotation.
  if (target->kind == ExprKind::Subscript && target->args[0]->kind == ExprKind::Name &&
      target->args[0]->text == "__annotations__" && target->args[1]->kind == ExprKind::Constant &&
      target->args[1]->text.size() >= 2 && target->args[1]->text[0] == '\'') {
    std::string name = target->args[1]->text.substr(1, target->args[1]->text.size() - 2);
    if (!out_->empty() && out_->back()->kind == StmtKind::Assign && out_->back()->exprs.size() == 2 &&
        out_->back()->exprs[0]->kind == ExprKind::Name && out_->back()->exprs[0]->text == name) {
      StmtPtr assign = out_->back();
      out_->back() = make_stmt(StmtKind::AnnAssign, {assign->exprs[0], value, assign->exprs[1]});
      return;
    }
    return emit(make_stmt(StmtKind::AnnAssign, {make_name(name), value}));
  }
  emit(make_stmt(StmtKind::Assign, {target, value}));
}

}  // namespace glassbox::decompiler
