#include "runtime/shape_expr.hpp"

#include <algorithm>

namespace glassbox::runtime {

namespace {

constexpr std::size_t kMaxExprs = 1 << 16;

bool is_binary(ExprOp op) { return op >= ExprOp::Add && op <= ExprOp::Min; }

std::string entry(std::size_t i) { return "expression " + std::to_string(i); }

// Floor division and modulo as Python (and sympy's FloorDiv, PythonMod) define them.
std::int64_t floor_div(std::int64_t a, std::int64_t b) {
  std::int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

std::int64_t floor_mod(std::int64_t a, std::int64_t b) {
  std::int64_t r = a % b;
  return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
}

std::int64_t apply(ExprOp op, std::int64_t a, std::int64_t b, std::size_t i) {
  std::int64_t r = 0;
  switch (op) {
    case ExprOp::Add:
      if (__builtin_add_overflow(a, b, &r)) throw RunError(entry(i) + " overflows");
      return r;
    case ExprOp::Mul:
      if (__builtin_mul_overflow(a, b, &r)) throw RunError(entry(i) + " overflows");
      return r;
    case ExprOp::FloorDiv:
    case ExprOp::Mod:
      if (b == 0) throw RunError(entry(i) + " divides by zero");
      if (b == -1 && a == INT64_MIN) throw RunError(entry(i) + " overflows");
      return op == ExprOp::FloorDiv ? floor_div(a, b) : floor_mod(a, b);
    case ExprOp::Max:
      return std::max(a, b);
    case ExprOp::Min:
      return std::min(a, b);
    default:
      break;
  }
  throw RunError(entry(i) + " has an unknown operation");
}

}  // namespace

void verify_exprs(const std::vector<ExprDesc>& exprs, std::size_t num_symbols) {
  if (exprs.size() > kMaxExprs) throw LoadError("too many expressions");
  for (std::size_t i = 0; i < exprs.size(); ++i) {
    const ExprDesc& e = exprs[i];
    auto earlier = [&](std::int64_t id) { return id >= 0 && static_cast<std::size_t>(id) < i; };
    if (e.op == ExprOp::Const) continue;
    if (e.op == ExprOp::Symbol) {
      if (e.a < 0 || static_cast<std::size_t>(e.a) >= num_symbols) {
        throw LoadError(entry(i) + " names a missing symbol " + std::to_string(e.a));
      }
    } else if (!is_binary(e.op)) {
      throw LoadError(entry(i) + " has an unknown operation");
    } else if (!earlier(e.a) || !earlier(e.b)) {
      throw LoadError(entry(i) + " reads an expression that is not an earlier one");
    } else if ((e.op == ExprOp::FloorDiv || e.op == ExprOp::Mod) &&
               exprs[e.b].op == ExprOp::Const && exprs[e.b].a == 0) {
      throw LoadError(entry(i) + " divides by zero");
    }
  }
}

std::vector<std::int64_t> evaluate_exprs(const std::vector<ExprDesc>& exprs,
                                         const std::vector<SymbolDesc>& symbols,
                                         const std::vector<std::int64_t>& values) {
  if (values.size() != symbols.size()) {
    throw RunError("expected " + std::to_string(symbols.size()) + " symbol values, got " +
                   std::to_string(values.size()));
  }
  for (std::size_t s = 0; s < symbols.size(); ++s) {
    if (values[s] < symbols[s].min || values[s] > symbols[s].max) {
      throw RunError("symbol s" + std::to_string(s) + " = " + std::to_string(values[s]) +
                     " lies outside its range [" + std::to_string(symbols[s].min) + ", " +
                     std::to_string(symbols[s].max) + "]");
    }
  }
  std::vector<std::int64_t> out(exprs.size());
  for (std::size_t i = 0; i < exprs.size(); ++i) {
    const ExprDesc& e = exprs[i];
    if (e.op == ExprOp::Const) {
      out[i] = e.a;
    } else if (e.op == ExprOp::Symbol) {
      out[i] = values[static_cast<std::size_t>(e.a)];
    } else {
      out[i] =
          apply(e.op, out[static_cast<std::size_t>(e.a)], out[static_cast<std::size_t>(e.b)], i);
    }
  }
  return out;
}

std::string binding_str(const std::vector<std::int64_t>& values) {
  std::string s;
  for (std::size_t i = 0; i < values.size(); ++i) {
    s += (i ? ", s" : "s") + std::to_string(i) + "=" + std::to_string(values[i]);
  }
  return s;
}

}  // namespace glassbox::runtime
