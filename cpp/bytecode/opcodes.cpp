// The per-version opcode tables: generated facts (opcodes_3XX.inc) plus the few rules that say how
// each version's dis reads them.
#include "bytecode/opcodes.hpp"

#include <string>

#include "bytecode/error.hpp"

namespace glassbox::bytecode {
namespace {

// One generated row: the facts about one opcode (see scripts/gen_opcodes.py).
struct OpcodeRow {
  int opcode;
  std::string_view name;
  int base_opcode;
  int cache_entries;
  unsigned flags;
};

constexpr unsigned kArg = 1u << 0;
constexpr unsigned kConst = 1u << 1;
constexpr unsigned kName = 1u << 2;
constexpr unsigned kLocal = 1u << 3;
constexpr unsigned kFree = 1u << 4;
constexpr unsigned kCompare = 1u << 5;
constexpr unsigned kJrel = 1u << 6;
constexpr unsigned kJabs = 1u << 7;
constexpr unsigned kBackward = 1u << 8;

#include "bytecode/opcodes_310.inc"
#include "bytecode/opcodes_311.inc"
#include "bytecode/opcodes_312.inc"
#include "bytecode/opcodes_313.inc"

// How each version's dis reads arguments, beyond what the opcode module says.
struct ArgRules {
  PyMinor minor;
  int compare_shift;
  int compare_bool_flag;
  NullMarker null_marker;
  bool jumps_skip_caches;
  bool deref_into_localsplus;
};

constexpr ArgRules kArgRules[] = {
    // minor, compare shift, bool flag, NULL marker, jumps skip caches, deref into localsplus
    {10, 0, 0, NullMarker::Prefix, false, false},
    {11, 0, 0, NullMarker::Prefix, false, true},
    {12, 4, 0, NullMarker::Prefix, true, true},
    {13, 5, 16, NullMarker::Suffix, true, true},
};

// Opcodes whose argument dis spells specially, and the versions whose dis does so.
struct SpecialArg {
  std::string_view name;
  ArgKind kind;
  PyMinor since;
  PyMinor until;
};

constexpr SpecialArg kSpecialArgs[] = {
    {"KW_NAMES", ArgKind::ConstIndex, 11, 11},  // 3.11's dis only looks up LOAD_CONST's value
    {"LOAD_GLOBAL", ArgKind::GlobalName, 11, kMaxSupportedMinor},
    {"LOAD_ATTR", ArgKind::AttrName, 12, kMaxSupportedMinor},
    {"LOAD_SUPER_ATTR", ArgKind::SuperAttrName, 12, kMaxSupportedMinor},
    {"LOAD_FAST_LOAD_FAST", ArgKind::LocalPair, 13, kMaxSupportedMinor},
    {"STORE_FAST_LOAD_FAST", ArgKind::LocalPair, 13, kMaxSupportedMinor},
    {"STORE_FAST_STORE_FAST", ArgKind::LocalPair, 13, kMaxSupportedMinor},
    {"FORMAT_VALUE", ArgKind::FormatValue, 10, 12},
    {"CONVERT_VALUE", ArgKind::ConvertValue, 13, kMaxSupportedMinor},
    {"MAKE_FUNCTION", ArgKind::FunctionFlags, 10, 12},
    {"SET_FUNCTION_ATTRIBUTE", ArgKind::FunctionFlags, 13, kMaxSupportedMinor},
    {"BINARY_OP", ArgKind::BinaryOp, 11, kMaxSupportedMinor},
    {"CALL_INTRINSIC_1", ArgKind::Intrinsic1, 12, kMaxSupportedMinor},
    {"CALL_INTRINSIC_2", ArgKind::Intrinsic2, 12, kMaxSupportedMinor},
};

// The argument kind of a base opcode: its special spelling if it has one, else from its flags in
// the order of precedence dis checks them.
ArgKind classify(PyMinor minor, std::string_view base_name, unsigned flags) {
  for (const SpecialArg& special : kSpecialArgs) {
    if (special.name == base_name && minor >= special.since && minor <= special.until)
      return special.kind;
  }
  if (flags & kConst) return ArgKind::Const;
  if (flags & kName) return ArgKind::Name;
  if (flags & (kJrel | kJabs)) return ArgKind::Jump;
  if (flags & kLocal) return ArgKind::Local;
  if (flags & kFree) return ArgKind::Free;
  if (flags & kCompare) return ArgKind::Compare;
  return ArgKind::None;
}

OpcodeInfo info_from_row(PyMinor minor, const OpcodeRow& row, std::string_view base_name) {
  OpcodeInfo info;
  info.name = row.name;
  info.has_arg = row.flags & kArg;
  info.has_const = row.flags & kConst;
  info.has_name = row.flags & kName;
  info.has_local = row.flags & kLocal;
  info.has_free = row.flags & kFree;
  info.has_compare = row.flags & kCompare;
  info.has_jrel = row.flags & kJrel;
  info.has_jabs = row.flags & kJabs;
  info.cache_entries = static_cast<std::uint8_t>(row.cache_entries);
  info.base_opcode = static_cast<std::uint8_t>(row.base_opcode);
  info.jump_backward = row.flags & kBackward;
  info.arg_kind = classify(minor, base_name, row.flags);
  return info;
}

template <std::size_t N>
std::vector<std::string_view> to_vector(const std::array<std::string_view, N>& names) {
  return std::vector<std::string_view>(names.begin(), names.end());
}

const ArgRules& arg_rules(PyMinor minor) {
  for (const ArgRules& rules : kArgRules) {
    if (rules.minor == minor) return rules;
  }
  throw BytecodeError("unsupported Python version 3." + std::to_string(minor));
}

// One version's generated tables, gathered from its namespace (py310, py311, ...).
struct GeneratedTables {
  PyMinor minor;
  const std::array<OpcodeRow, 256>& rows;
  std::vector<std::string_view> cmp_op, binary_ops, intrinsic1, intrinsic2, function_flags,
      conversions;
};

#define GLASSBOX_GENERATED_TABLES(ns)                                                          \
  GeneratedTables {                                                                            \
    ns::kMinor, ns::kOpcodes, to_vector(ns::kCmpOp), to_vector(ns::kBinaryOps),                \
        to_vector(ns::kIntrinsic1), to_vector(ns::kIntrinsic2), to_vector(ns::kFunctionFlags), \
        to_vector(ns::kConversions)                                                            \
  }

OpcodeTable build_table(const GeneratedTables& generated) {
  OpcodeTable table{};
  table.minor = generated.minor;
  for (const OpcodeRow& row : generated.rows) {
    const std::string_view base_name =
        generated.rows.at(static_cast<std::size_t>(row.base_opcode)).name;
    table.ops.at(static_cast<std::size_t>(row.opcode)) =
        info_from_row(generated.minor, row, base_name);
  }
  table.cmp_op = generated.cmp_op;
  table.binary_ops = generated.binary_ops;
  table.intrinsic1 = generated.intrinsic1;
  table.intrinsic2 = generated.intrinsic2;
  table.function_flags = generated.function_flags;
  table.conversions = generated.conversions;
  const ArgRules& rules = arg_rules(generated.minor);
  table.compare_shift = rules.compare_shift;
  table.compare_bool_flag = rules.compare_bool_flag;
  table.null_marker = rules.null_marker;
  table.jumps_skip_caches = rules.jumps_skip_caches;
  table.deref_into_localsplus = rules.deref_into_localsplus;
  return table;
}

}  // namespace

int OpcodeTable::opcode_of(std::string_view name) const {
  if (name.empty()) return -1;
  for (std::size_t op = 0; op < ops.size(); ++op) {
    // A specialized opcode answers to its own name only; the base answers to the base name.
    if (ops[op].name == name) return static_cast<int>(op);
  }
  return -1;
}

const OpcodeTable& opcode_table(PyMinor minor) {
  static const OpcodeTable k310 = build_table(GLASSBOX_GENERATED_TABLES(py310));
  static const OpcodeTable k311 = build_table(GLASSBOX_GENERATED_TABLES(py311));
  static const OpcodeTable k312 = build_table(GLASSBOX_GENERATED_TABLES(py312));
  static const OpcodeTable k313 = build_table(GLASSBOX_GENERATED_TABLES(py313));
  switch (minor) {
    case 10:
      return k310;
    case 11:
      return k311;
    case 12:
      return k312;
    case 13:
      return k313;
    default:
      throw BytecodeError("unsupported Python version 3." + std::to_string(minor));
  }
}

std::string_view opcode_display_name(const OpcodeTable& table, int opcode) {
  static const std::array<std::string, 256> kUnassigned = [] {
    std::array<std::string, 256> names;
    for (std::size_t op = 0; op < names.size(); ++op) names[op] = "<" + std::to_string(op) + ">";
    return names;
  }();
  if (opcode < 0 || opcode > 255)
    throw BytecodeError("opcode out of range: " + std::to_string(opcode));
  const std::string_view name = table.ops[static_cast<std::size_t>(opcode)].name;
  return name.empty() ? std::string_view(kUnassigned[static_cast<std::size_t>(opcode)]) : name;
}

}  // namespace glassbox::bytecode
