// co_code to instructions: unpacking code units (EXTENDED_ARG, inline caches), jump targets,
// labels, line starts, and each argument spelled as that version's dis spells it.
#include "bytecode/instructions.hpp"

#include <array>
#include <cstdint>
#include <limits>
#include <set>
#include <string>

#include "bytecode/error.hpp"
#include "bytecode/repr.hpp"

namespace glassbox::bytecode {
namespace {

// How each version's dis walks and marks the code, beyond the opcode table.
struct DecodeRules {
  PyMinor minor;
  bool wrap_extended_arg;         // 3.11+: the folded argument wraps like a C int
  bool exception_targets_marked;  // 3.11, 3.12: handlers get ">>" like jump targets
  bool labels;                    // 3.13: jump targets and exception bounds get "L<n>" labels
};

constexpr DecodeRules kDecodeRules[] = {
    {10, false, false, false},
    {11, true, true, false},
    {12, true, true, false},
    {13, true, false, true},
};

const DecodeRules& decode_rules(PyMinor minor) {
  for (const DecodeRules& rules : kDecodeRules) {
    if (rules.minor == minor) return rules;
  }
  throw BytecodeError("unsupported Python version 3." + std::to_string(minor));
}

[[noreturn]] void fail_at(const Instruction& instruction, const std::string& reason) {
  throw BytecodeError(std::string(instruction.opname) + " at byte " +
                      std::to_string(instruction.offset) + ": " + reason);
}

// --- Pass 1: code units to instructions ----------------------------------------------------------

// EXTENDED_ARG folding as dis does it: each prefix shifts its argument into the next one. From 3.11
// the value wraps at 2**31 like the C int it is; anything beyond int range is rejected.
class ArgumentFolder {
 public:
  explicit ArgumentFolder(bool wrap) : wrap_(wrap) {}

  long long fold(std::uint8_t byte, bool is_extended_arg) {
    const long long arg = byte | pending_;
    pending_ = 0;
    if (arg < std::numeric_limits<int>::min() || arg > std::numeric_limits<int>::max()) return arg;
    if (is_extended_arg) {
      pending_ = arg * 256;
      if (wrap_ && pending_ >= (1LL << 31)) pending_ -= (1LL << 32);
    }
    return arg;
  }

  void reset() { pending_ = 0; }

 private:
  bool wrap_;
  long long pending_ = 0;
};

// dis's jump target: absolute jumps count code units from the start; relative ones from the next
// instruction (3.12+: after its caches), backwards for the JUMP_BACKWARD family.
long long jump_target_of(const Instruction& instruction, const OpcodeInfo& info,
                         const OpcodeTable& table) {
  if (info.has_jabs) return instruction.arg * 2LL;
  const long long distance = (info.jump_backward ? -2LL : 2LL) * instruction.arg;
  const long long caches = table.jumps_skip_caches ? 2LL * info.cache_entries : 0;
  return instruction.offset + 2LL + distance + caches;
}

void resolve_jump(Instruction& instruction, const OpcodeInfo& info, const OpcodeTable& table,
                  std::size_t code_size) {
  const long long target = jump_target_of(instruction, info, table);
  if (target < 0 || target >= static_cast<long long>(code_size)) {
    fail_at(instruction, "jump target " + std::to_string(target) + " is outside the code (" +
                             std::to_string(code_size) + " bytes)");
  }
  instruction.jump_target = static_cast<int>(target);
}

// EXTENDED_ARG's opcode per version, looked up once (opcode_of scans the table by name).
int extended_arg_opcode(PyMinor minor) {
  static const std::array<int, kMaxSupportedMinor - kMinSupportedMinor + 1> kOpcodes = [] {
    std::array<int, kMaxSupportedMinor - kMinSupportedMinor + 1> opcodes{};
    for (PyMinor m = kMinSupportedMinor; m <= kMaxSupportedMinor; ++m) {
      opcodes[static_cast<std::size_t>(m - kMinSupportedMinor)] =
          opcode_table(m).opcode_of("EXTENDED_ARG");
    }
    return opcodes;
  }();
  return kOpcodes[static_cast<std::size_t>(minor - kMinSupportedMinor)];
}

// opcode_display_name of every opcode per version, computed once.
const std::array<std::string_view, 256>& display_names(PyMinor minor) {
  using Names = std::array<std::string_view, 256>;
  static const std::array<Names, kMaxSupportedMinor - kMinSupportedMinor + 1> kNames = [] {
    std::array<Names, kMaxSupportedMinor - kMinSupportedMinor + 1> all{};
    for (PyMinor m = kMinSupportedMinor; m <= kMaxSupportedMinor; ++m) {
      Names& names = all[static_cast<std::size_t>(m - kMinSupportedMinor)];
      for (int op = 0; op < 256; ++op) {
        names[static_cast<std::size_t>(op)] = opcode_display_name(opcode_table(m), op);
      }
    }
    return all;
  }();
  return kNames[static_cast<std::size_t>(minor - kMinSupportedMinor)];
}

// Fills `instructions` (dropping what it held, keeping its memory).
void unpack(const CodeObject& code, const OpcodeTable& table, const DecodeRules& rules,
            std::vector<Instruction>& instructions) {
  const std::string& units = code.code;
  if (units.size() > static_cast<std::size_t>(std::numeric_limits<int>::max() / 2)) {
    throw BytecodeError("co_code is too large (" + std::to_string(units.size()) + " bytes)");
  }
  if (units.size() % 2 != 0) {
    throw BytecodeError("co_code has an odd length: truncated code unit", units.size() - 1);
  }
  const int extended_arg = extended_arg_opcode(rules.minor);
  const std::array<std::string_view, 256>& names = display_names(rules.minor);
  ArgumentFolder folder(rules.wrap_extended_arg);
  instructions.clear();
  instructions.reserve(units.size() / 2);
  for (std::size_t offset = 0; offset < units.size(); offset += 2) {
    const auto opcode = static_cast<std::uint8_t>(units[offset]);
    const OpcodeInfo& info = table.ops[opcode];
    Instruction& instruction = instructions.emplace_back();
    instruction.offset = static_cast<int>(offset);
    instruction.opcode = opcode;
    instruction.opname = names[opcode];
    instruction.cache_entries = info.cache_entries;
    if (info.has_arg) {
      const long long arg = folder.fold(static_cast<std::uint8_t>(units[offset + 1]),
                                        info.base_opcode == extended_arg);
      if (arg < std::numeric_limits<int>::min() || arg > std::numeric_limits<int>::max()) {
        fail_at(instruction, "EXTENDED_ARG prefixes make the argument overflow an int");
      }
      instruction.has_arg = true;
      instruction.arg = static_cast<int>(arg);
      if (info.arg_kind == ArgKind::Jump) resolve_jump(instruction, info, table, units.size());
    } else {
      folder.reset();
    }
    offset += 2 * static_cast<std::size_t>(info.cache_entries);
  }
}

// --- Pass 2: jump targets and labels -------------------------------------------------------------

std::set<int> jump_targets(const std::vector<Instruction>& instructions) {
  std::set<int> targets;
  for (const Instruction& instruction : instructions) {
    if (instruction.jump_target >= 0) targets.insert(instruction.jump_target);
  }
  return targets;
}

// 3.13 numbers every jump target and exception-table start, end and target, in offset order.
std::map<int, int> make_labels(const std::vector<Instruction>& instructions,
                               const std::vector<ExceptionTableEntry>& entries) {
  std::set<int> offsets = jump_targets(instructions);
  for (const ExceptionTableEntry& entry : entries) {
    offsets.insert({entry.start, entry.end, entry.target});
  }
  std::map<int, int> labels;
  for (int offset : offsets) labels.emplace(offset, static_cast<int>(labels.size()) + 1);
  return labels;
}

// Before 3.13: the offsets marked ">>": jump targets, and (3.11, 3.12) handlers of non-empty
// ranges.
std::set<int> marked_offsets(const std::vector<Instruction>& instructions,
                             const std::vector<ExceptionTableEntry>& entries,
                             const DecodeRules& rules) {
  std::set<int> marked = jump_targets(instructions);
  if (rules.exception_targets_marked) {
    for (const ExceptionTableEntry& entry : entries) {
      if (entry.start < entry.end) marked.insert(entry.target);
    }
  }
  return marked;
}

// --- Pass 3: spelling arguments ------------------------------------------------------------------

// Everything an argument can refer to.
struct ArgContext {
  const CodeObject& code;
  const OpcodeTable& table;
  const std::map<int, int>& labels;  // 3.13: jumps read "to L<n>"; empty before
  bool jumps_to_labels;
};

template <typename T>
const T& entry_at(const std::vector<T>& entries, long long index, const char* what,
                  const Instruction& instruction) {
  if (index < 0 || index >= static_cast<long long>(entries.size())) {
    fail_at(instruction, std::string(what) + " index " + std::to_string(index) +
                             " is out of range (" + std::to_string(entries.size()) + " entries)");
  }
  return entries[static_cast<std::size_t>(index)];
}

// The table index held in the bits of `arg` above `shift`; negative arguments index nothing.
long long index_in(int arg, int shift) { return arg < 0 ? -1 : arg >> shift; }

std::string constant_repr(const ArgContext& context, const Instruction& instruction) {
  const ObjectRef& constant =
      entry_at(context.code.consts, instruction.arg, "constant", instruction);
  if (!constant) fail_at(instruction, "constant is missing");
  return python_repr(*constant, context.code.minor);
}

// The marker of the extra NULL (or self) a load pushes, where this version puts it.
std::string with_null_marker(const OpcodeTable& table, const std::string& name, bool pushes_null,
                             const char* marker) {
  if (!pushes_null || name.empty()) return name;
  return table.null_marker == NullMarker::Prefix ? std::string(marker) + " + " + name
                                                 : name + " + " + std::string(marker);
}

// A fast local, cell or free variable by its oparg. 3.11+ index co_localsplusnames; 3.10 indexes
// co_varnames for locals and cellvars + freevars for the rest.
const std::string& variable_name(const ArgContext& context, long long index, bool is_cell_or_free,
                                 const Instruction& instruction) {
  const CodeObject& code = context.code;
  if (context.table.deref_into_localsplus) {
    return entry_at(code.localsplusnames, index, "variable", instruction);
  }
  if (!is_cell_or_free) return entry_at(code.varnames, index, "local variable", instruction);
  const auto cells = static_cast<long long>(code.cellvars.size());
  if (index >= 0 && index < cells) return code.cellvars[static_cast<std::size_t>(index)];
  return entry_at(code.freevars, index - cells, "free variable", instruction);
}

std::string compare_repr(const ArgContext& context, const Instruction& instruction) {
  const OpcodeTable& table = context.table;
  const long long index = index_in(instruction.arg, table.compare_shift);
  std::string repr(entry_at(table.cmp_op, index, "comparison", instruction));
  if (table.compare_bool_flag != 0 && (instruction.arg & table.compare_bool_flag)) {
    repr = "bool(" + repr + ")";
  }
  return repr;
}

std::string format_value_repr(const ArgContext& context, const Instruction& instruction) {
  std::string repr(
      entry_at(context.table.conversions, instruction.arg & 3, "conversion", instruction));
  if (instruction.arg & 4) repr += repr.empty() ? "with format" : ", with format";
  return repr;
}

std::string function_flags_repr(const ArgContext& context, const Instruction& instruction) {
  std::string repr;
  const auto& flags = context.table.function_flags;
  for (std::size_t bit = 0; bit < flags.size(); ++bit) {
    if (!(instruction.arg & (1 << bit))) continue;
    if (!repr.empty()) repr += ", ";
    repr += flags[bit];
  }
  return repr;
}

std::string jump_repr(const ArgContext& context, const Instruction& instruction) {
  if (!context.jumps_to_labels) return "to " + std::to_string(instruction.jump_target);
  return "to L" + std::to_string(context.labels.at(instruction.jump_target));
}

std::string argument_repr(const ArgContext& context, const Instruction& instruction) {
  const OpcodeTable& table = context.table;
  const CodeObject& code = context.code;
  const int arg = instruction.arg;
  switch (table.ops[static_cast<std::size_t>(instruction.opcode)].arg_kind) {
    case ArgKind::None:
      return "";
    case ArgKind::Const:
      return constant_repr(context, instruction);
    case ArgKind::ConstIndex:
      entry_at(code.consts, arg, "constant", instruction);
      return "";
    case ArgKind::Name:
      return entry_at(code.names, arg, "name", instruction);
    case ArgKind::GlobalName:
      return with_null_marker(table, entry_at(code.names, index_in(arg, 1), "name", instruction),
                              arg & 1, "NULL");
    case ArgKind::AttrName:
      return with_null_marker(table, entry_at(code.names, index_in(arg, 1), "name", instruction),
                              arg & 1, "NULL|self");
    case ArgKind::SuperAttrName:
      return with_null_marker(table, entry_at(code.names, index_in(arg, 2), "name", instruction),
                              arg & 1, "NULL|self");
    case ArgKind::Jump:
      return jump_repr(context, instruction);
    case ArgKind::Local:
      return variable_name(context, arg, false, instruction);
    case ArgKind::LocalPair:
      return variable_name(context, index_in(arg, 4), false, instruction) + ", " +
             variable_name(context, arg & 15, false, instruction);
    case ArgKind::Free:
      return variable_name(context, arg, true, instruction);
    case ArgKind::Compare:
      return compare_repr(context, instruction);
    case ArgKind::FormatValue:
      return format_value_repr(context, instruction);
    case ArgKind::ConvertValue:
      return std::string(entry_at(table.conversions, arg, "conversion", instruction));
    case ArgKind::FunctionFlags:
      return function_flags_repr(context, instruction);
    case ArgKind::BinaryOp:
      return std::string(entry_at(table.binary_ops, arg, "binary operator", instruction));
    case ArgKind::Intrinsic1:
      return std::string(entry_at(table.intrinsic1, arg, "intrinsic", instruction));
    case ArgKind::Intrinsic2:
      return std::string(entry_at(table.intrinsic2, arg, "intrinsic", instruction));
  }
  return "";
}

// --- Pass 4: line starts -------------------------------------------------------------------------

void mark_line_starts(std::vector<Instruction>& instructions,
                      const std::vector<std::pair<int, int>>& starts) {
  auto start = starts.begin();
  for (Instruction& instruction : instructions) {
    while (start != starts.end() && start->first < instruction.offset) ++start;
    if (start != starts.end() && start->first == instruction.offset) {
      instruction.starts_line = true;
      instruction.line = start->second;
    }
  }
}

}  // namespace

DecodedCode decode_code(const CodeObject& code) {
  const OpcodeTable& table = opcode_table(code.minor);
  const DecodeRules& rules = decode_rules(code.minor);
  DecodedCode decoded;
  unpack(code, table, rules, decoded.instructions);
  decoded.exception_table = parse_exception_table(code);
  decoded.line_starts = line_starts(code);
  if (rules.labels) decoded.labels = make_labels(decoded.instructions, decoded.exception_table);
  const std::set<int> marked = marked_offsets(decoded.instructions, decoded.exception_table, rules);
  const ArgContext context{code, table, decoded.labels, rules.labels};
  for (Instruction& instruction : decoded.instructions) {
    if (instruction.has_arg) instruction.argrepr = argument_repr(context, instruction);
    if (rules.labels) {
      auto label = decoded.labels.find(instruction.offset);
      if (label != decoded.labels.end()) instruction.label = label->second;
      instruction.is_jump_target = instruction.label > 0;
    } else {
      instruction.is_jump_target = marked.count(instruction.offset) > 0;
    }
  }
  mark_line_starts(decoded.instructions, decoded.line_starts);
  return decoded;
}

std::vector<Instruction> decode_instructions(const CodeObject& code) {
  return decode_code(code).instructions;
}

std::vector<Instruction> decode_bare_instructions(const CodeObject& code) {
  std::vector<Instruction> instructions;
  decode_bare_instructions(code, instructions);
  return instructions;
}

void decode_bare_instructions(const CodeObject& code, std::vector<Instruction>& out) {
  unpack(code, opcode_table(code.minor), decode_rules(code.minor), out);
  mark_line_starts(out, line_starts(code));
}

}  // namespace glassbox::bytecode
