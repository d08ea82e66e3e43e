// percent_format: an f-string's parts back to the %-format that 3.11's optimize_format turns into
// them (Python/ast_opt.c), or none where no %-format compiles to those parts.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "decompiler/percent_format.hpp"
#include "decompiler/printer.hpp"

namespace glassbox::decompiler {
namespace {

// A literal part (raw text) or a field `{name!conversion:spec}` (spec "" for none).
ExprPtr literal(const std::string& text) { return make_constant(text); }
ExprPtr field(const std::string& name, const std::string& conversion, const std::string& spec) {
  return make_expr(ExprKind::FormattedValue,
                   {make_name(name), spec.empty() ? nullptr : make_constant(spec)}, conversion);
}

std::string written(std::vector<ExprPtr> parts) {
  ExprPtr joined = make_expr(ExprKind::JoinedStr, std::move(parts));
  ExprPtr format = percent_format(*joined, 11);
  return format ? print_expr(*format) : "<none>";
}

TEST(PercentFormat, ConversionsAndLiteralPercents) {
  EXPECT_EQ(written({field("a", "r", ""), literal(":\n 100%"), field("b", "s", "")}),
            "'%r:\\n 100%%%s' % (a, b)");
  EXPECT_EQ(written({field("a", "a", "")}), "'%a' % (a,)");
}

TEST(PercentFormat, WidthAndPrecision) {
  // '>' stands for a right-justified width; without it the width was left-justified ('-').
  EXPECT_EQ(written({field("a", "s", ">5"), field("b", "r", "3"), field("c", "s", ".2"),
                     field("d", "s", ">7.1")}),
            "'%5s%-3r%.2s%7.1s' % (a, b, c, d)");
}

TEST(PercentFormat, NoneWhereNoPercentFormatCompilesToIt) {
  EXPECT_EQ(written({field("a", "", "")}), "<none>");      // no conversion: f"{a}"
  EXPECT_EQ(written({field("a", "s", "<5")}), "<none>");   // an alignment % cannot write
  EXPECT_EQ(written({field("a", "s", ">05")}), "<none>");  // a leading zero
  EXPECT_EQ(written({field("a", "s", ">")}), "<none>");    // '>' without a width
  EXPECT_EQ(written({field("a", "s", "5.")}), "<none>");   // '.' without a precision
  EXPECT_EQ(written({literal("only text")}), "<none>");    // no field at all
}

}  // namespace
}  // namespace glassbox::decompiler
