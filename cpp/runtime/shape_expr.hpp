// Sizes over symbols (schema/program.fbs, Expr and Symbol): a table of expressions in topological
// order, verified at load and evaluated for each binding of the symbols.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "runtime/tensor.hpp"

namespace glassbox::runtime {

enum class ExprOp : std::int8_t {
  Const = 0,
  Symbol = 1,
  Add = 2,
  Mul = 3,
  FloorDiv = 4,
  Mod = 5,
  Max = 6,
  Min = 7
};

struct ExprDesc {
  ExprOp op = ExprOp::Const;
  std::int64_t a = 0;  // Const: the value; Symbol: the symbol id; else an earlier expression id
  std::int64_t b = 0;  // the second operand's id (binary operations)
};

// A symbol, bound by the size of dim `dim` of program input `input`.
struct SymbolDesc {
  std::int32_t input = 0;
  std::int32_t dim = 0;
  std::int64_t min = 0;
  std::int64_t max = 0;
};

// Throws LoadError unless every entry is a known operation whose operands are earlier entries,
// whose symbols exist, and whose constant divisors are not zero.
void verify_exprs(const std::vector<ExprDesc>& exprs, std::size_t num_symbols);

// The value of every expression at this binding (one value per symbol, each in its range).
// Throws RunError on a division by zero or an overflow.
std::vector<std::int64_t> evaluate_exprs(const std::vector<ExprDesc>& exprs,
                                         const std::vector<SymbolDesc>& symbols,
                                         const std::vector<std::int64_t>& values);

// "s0=3, s1=7": a binding, for messages.
std::string binding_str(const std::vector<std::int64_t>& values);

}  // namespace glassbox::runtime
