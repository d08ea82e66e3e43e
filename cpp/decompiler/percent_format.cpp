#include "decompiler/percent_format.hpp"

#include <cctype>
#include <string>
#include <vector>

#include "bytecode/repr.hpp"

namespace glassbox::decompiler {

namespace {

// The %-specification whose f-string spec optimize_format writes as `spec` (">W", "W" for a
// left-justified width, ".P", or both; none for no spec), or "" where it writes none such.
std::string specification(const std::string& spec, const std::string& conversion) {
  if (spec.empty()) return "";
  size_t k = 0;
  bool right = k < spec.size() && spec[k] == '>';
  if (right) ++k;
  size_t width_start = k;
  while (k < spec.size() && std::isdigit(static_cast<unsigned char>(spec[k]))) ++k;
  std::string width = spec.substr(width_start, k - width_start);
  std::string precision;
  if (k < spec.size() && spec[k] == '.') {
    size_t start = ++k;
    while (k < spec.size() && std::isdigit(static_cast<unsigned char>(spec[k]))) ++k;
    if (k == start) return "";
    precision = "." + spec.substr(start, k - start);
  }
  // (The width is written without leading zeros, and is positive where '>' stands before it.)
  bool width_ok = width.empty() || (width[0] != '0');
  if (k != spec.size() || !width_ok || (right && width.empty())) return "";
  std::string flags = !width.empty() && !right ? "-" : "";
  return "%" + flags + width + precision + conversion;
}

// Skips at most two digits at format[k]; false where a third follows.
bool short_number(const std::string& format, size_t& k) {
  size_t start = k;
  while (k < format.size() && std::isdigit(static_cast<unsigned char>(format[k]))) ++k;
  return k - start <= 2;
}

}  // namespace

bool percent_folds(const std::string& format, size_t items) {
  size_t specifications = 0;
  for (size_t k = 0; k < format.size(); ++k) {
    if (format[k] != '%') continue;
    if (++k < format.size() && format[k] == '%') continue;
    while (k < format.size() && std::string("-+ #0").find(format[k]) != std::string::npos) ++k;
    if (!short_number(format, k)) return false;
    if (k < format.size() && format[k] == '.' && !short_number(format, ++k)) return false;
    if (k >= format.size() || std::string("sra").find(format[k]) == std::string::npos) {
      return false;
    }
    ++specifications;
  }
  return specifications > 0 && specifications == items;
}

ExprPtr percent_format(const Expr& joined, bytecode::PyMinor minor) {
  std::string format;
  std::vector<ExprPtr> values;
  for (const ExprPtr& part : joined.args) {
    if (part->kind != ExprKind::FormattedValue) {
      if (part->kind != ExprKind::Constant) return nullptr;
      for (char c : part->text) format += c == '%' ? std::string("%%") : std::string(1, c);
      continue;
    }
    const std::string& conversion = part->text;
    if (conversion != "s" && conversion != "r" && conversion != "a") return nullptr;
    std::string written = "%" + conversion;
    if (part->args.size() > 1 && part->args[1]) {
      const Expr& spec = *part->args[1];
      if (spec.kind != ExprKind::Constant) return nullptr;
      written = specification(spec.text, conversion);
      if (written.empty()) return nullptr;
    }
    format += written;
    values.push_back(part->args[0]);
  }
  if (values.empty()) return nullptr;
  ExprPtr text = make_constant(bytecode::repr_str(format, minor));
  text->ops = {format};
  return make_expr(ExprKind::BinOp, {text, make_expr(ExprKind::Tuple, std::move(values))}, "%");
}

}  // namespace glassbox::decompiler
