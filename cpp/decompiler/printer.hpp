// The source printer: statement and expression trees to Python text, with the fewest parentheses
// that keep the meaning (Python's own precedence table).
#pragma once

#include <string>

#include "decompiler/ast.hpp"

namespace glassbox::decompiler {

// Binding strength of Python's expression forms, weakest first (as in Lib/ast.py).
enum class Precedence : int {
  NamedExpr = 1,
  Tuple,
  Yield,
  Test,
  Or,
  And,
  Not,
  Cmp,
  BitOr,
  BitXor,
  BitAnd,
  Shift,
  Arith,
  Term,
  Factor,
  Power,
  Await,
  Atom,
};

// The expression as source, parenthesized if it binds weaker than `context` requires.
std::string print_expr(const Expr& expr, Precedence context = Precedence::Tuple);

// The statements as source lines, each indented by `indent` levels of four spaces.
// `first_line` > 0: the source line the output's first line stands for; each statement with a
// known line then starts on that line where the output has not gone past it (blank lines fill
// the gap), so that tracebacks, warnings and inspect see the original's line numbers.
// `reserve`: the bytes to reserve for the text up front (a whole code object's source: growing
// it by doubling from empty copied it about ten times).
std::string print_body(const Body& body, int indent = 0, int first_line = 0, size_t reserve = 0);

// The binary operator's precedence ("+" -> Arith); Atom for an unknown operator.
Precedence binary_precedence(const std::string& op);

}  // namespace glassbox::decompiler
