// The text of dis.dis(code) for each version: instruction lines, the exception table, and the
// nested code objects, recursively.
#include "bytecode/disassembler.hpp"

#include <algorithm>
#include <string>
#include <vector>

#include "bytecode/error.hpp"
#include "bytecode/instructions.hpp"
#include "bytecode/repr.hpp"

namespace glassbox::bytecode {
namespace {

constexpr std::size_t kOpnameWidth = 20;
constexpr std::size_t kArgWidth = 5;
constexpr int kNoLine = -1;

// How each version lays out a listing.
struct ListingStyle {
  PyMinor minor;
  bool labels;  // 3.13: a label column ("L1:"), no offsets, jumps "to L1", "--" for no line
};

constexpr ListingStyle kListingStyles[] = {{10, false}, {11, false}, {12, false}, {13, true}};

const ListingStyle& listing_style(PyMinor minor) {
  for (const ListingStyle& style : kListingStyles) {
    if (style.minor == minor) return style;
  }
  throw BytecodeError("unsupported Python version 3." + std::to_string(minor));
}

std::string pad_left(const std::string& text, std::size_t width) {
  return text.size() >= width ? text : std::string(width - text.size(), ' ') + text;
}

std::string pad_right(std::string text, std::size_t width) {
  if (text.size() < width) text.append(width - text.size(), ' ');
  return text;
}

void rstrip(std::string& text) {
  while (!text.empty() && text.back() == ' ') text.pop_back();
}

// The widths of the columns of one code object's listing.
struct Columns {
  std::size_t line = 0;    // 0: no line number column
  std::size_t offset = 0;  // 0: no offset column (3.13)
  std::size_t label = 0;   // 3.13 only
};

// Before 3.13: a line column when there is any line start; 3 wide unless a line needs more.
std::size_t line_width_before_313(const std::vector<std::pair<int, int>>& starts) {
  if (starts.empty()) return 0;
  int max_line = starts.front().second;
  for (const auto& start : starts) max_line = std::max(max_line, start.second);
  return max_line >= 1000 ? std::to_string(max_line).size() : 3;
}

// 3.13: lines 0 and None do not count; if nothing is left there is no column. Room for "--" if
// some start has no line.
std::size_t line_width_313(const std::vector<std::pair<int, int>>& starts) {
  bool any_line = false;
  bool any_none = false;
  int max_line = 0;
  for (const auto& start : starts) {
    if (start.second == kNoLine) any_none = true;
    if (start.second == kNoLine || start.second == 0) continue;
    max_line = any_line ? std::max(max_line, start.second) : start.second;
    any_line = true;
  }
  if (!any_line || max_line == -1) return 0;
  std::size_t width = std::max<std::size_t>(3, std::to_string(max_line).size());
  if (width < 4 && any_none) width = 4;
  return width;
}

Columns column_widths(const CodeObject& code, const DecodedCode& decoded,
                      const ListingStyle& style) {
  Columns columns;
  if (style.labels) {
    columns.line = line_width_313(decoded.line_starts);
    columns.label = 4 + std::to_string(decoded.labels.size()).size();
  } else {
    columns.line = line_width_before_313(decoded.line_starts);
    const long long max_offset = static_cast<long long>(code.code.size()) - 2;
    columns.offset = max_offset >= 10000 ? std::to_string(max_offset).size() : 4;
  }
  return columns;
}

std::string line_field(const Instruction& instruction, const Columns& columns) {
  if (!instruction.starts_line) return std::string(columns.line, ' ');
  if (instruction.line == kNoLine) return pad_left("  --", columns.line);
  return pad_left(std::to_string(instruction.line), columns.line);
}

// The opcode name and argument; from 3.13 a long name eats into the argument's width.
std::string opcode_fields(const Instruction& instruction, bool long_names_overflow) {
  std::string text = pad_right(std::string(instruction.opname), kOpnameWidth);
  if (!instruction.has_arg) return text;
  std::size_t arg_width = kArgWidth;
  if (long_names_overflow && instruction.opname.size() > kOpnameWidth) {
    arg_width -= std::min(kArgWidth, instruction.opname.size() - kOpnameWidth);
  }
  text += " " + pad_left(std::to_string(instruction.arg), arg_width);
  if (!instruction.argrepr.empty()) text += " (" + instruction.argrepr + ")";
  return text;
}

std::string instruction_line(const Instruction& instruction, const Columns& columns,
                             const ListingStyle& style) {
  std::vector<std::string> fields;
  if (columns.line > 0) fields.push_back(line_field(instruction, columns));
  if (style.labels) {
    const std::string label =
        instruction.label > 0 ? "L" + std::to_string(instruction.label) + ":" : "";
    fields.push_back(pad_left(label, columns.label));
    fields.push_back("   ");  // the "-->" current-instruction column
  } else {
    fields.push_back("   ");
    fields.push_back(instruction.is_jump_target ? ">>" : "  ");
    fields.push_back(pad_left(std::to_string(instruction.offset), columns.offset));
  }
  fields.push_back(opcode_fields(instruction, style.labels));
  std::string line;
  for (std::size_t i = 0; i < fields.size(); ++i) {
    if (i > 0) line += ' ';
    line += fields[i];
  }
  rstrip(line);
  return line;
}

std::string exception_entry_line(const ExceptionTableEntry& entry, const DecodedCode& decoded,
                                 const ListingStyle& style) {
  std::string text = "  ";
  if (style.labels) {
    text += "L" + std::to_string(decoded.labels.at(entry.start)) + " to L" +
            std::to_string(decoded.labels.at(entry.end)) + " -> L" +
            std::to_string(decoded.labels.at(entry.target));
  } else {
    text += std::to_string(entry.start) + " to " + std::to_string(entry.end - 2) + " -> " +
            std::to_string(entry.target);
  }
  text += " [" + std::to_string(entry.depth) + "]";
  if (entry.lasti) text += " lasti";
  return text;
}

// dis.disassemble(code): one code object, without its nested ones.
void append_listing(const CodeObject& code, std::string& out) {
  const ListingStyle& style = listing_style(code.minor);
  const DecodedCode decoded = decode_code(code);
  const Columns columns = column_widths(code, decoded, style);
  for (const Instruction& instruction : decoded.instructions) {
    if (columns.line > 0 && instruction.starts_line && instruction.offset > 0) out += '\n';
    out += instruction_line(instruction, columns, style);
    out += '\n';
  }
  if (decoded.exception_table.empty()) return;
  out += "ExceptionTable:\n";
  for (const ExceptionTableEntry& entry : decoded.exception_table) {
    out += exception_entry_line(entry, decoded, style);
    out += '\n';
  }
}

// dis._disassemble_recursive: the code, then each nested code object in co_consts order.
void append_recursive(const CodeObject& code, std::string& out) {
  append_listing(code, out);
  for (const ObjectRef& constant : code.consts) {
    if (!constant || constant->kind != ObjectKind::Code || !constant->code) continue;
    out += "\nDisassembly of " + python_repr(*constant, code.minor) + ":\n";
    append_recursive(*constant->code, out);
  }
}

}  // namespace

std::string disassemble(const CodeObject& code) {
  std::string out;
  append_recursive(code, out);
  return out;
}

}  // namespace glassbox::bytecode
