#include "decompiler/lift.hpp"

#include <algorithm>
#include <array>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "bytecode/error.hpp"
#include "bytecode/instructions.hpp"
#include "bytecode/opcodes.hpp"

namespace glassbox::decompiler {

namespace {

using bytecode::CodeObject;
using bytecode::Instruction;

// Opnames whose meaning is the same in every version that has them (argument passed through).
const std::unordered_map<std::string_view, Op>& plain_ops() {
  static const std::unordered_map<std::string_view, Op> table = {
      {"POP_TOP", Op::PopTop},
      {"PUSH_NULL", Op::PushNull},
      {"COPY", Op::Copy},
      {"SWAP", Op::Swap},
      {"LOAD_BUILD_CLASS", Op::LoadBuildClass},
      {"LOAD_ASSERTION_ERROR", Op::LoadAssertionError},
      {"LOAD_LOCALS", Op::LoadLocals},
      {"STORE_SUBSCR", Op::StoreSubscr},
      {"STORE_SLICE", Op::StoreSlice},
      {"DELETE_SUBSCR", Op::DeleteSubscr},
      {"TO_BOOL", Op::ToBool},
      {"IS_OP", Op::IsOp},
      {"CONTAINS_OP", Op::ContainsOp},
      {"BINARY_SUBSCR", Op::BinarySubscr},
      {"BINARY_SLICE", Op::BinarySlice},
      {"BUILD_SLICE", Op::BuildSlice},
      {"BUILD_TUPLE", Op::BuildTuple},
      {"BUILD_LIST", Op::BuildList},
      {"BUILD_SET", Op::BuildSet},
      {"BUILD_MAP", Op::BuildMap},
      {"BUILD_CONST_KEY_MAP", Op::BuildConstKeyMap},
      {"BUILD_STRING", Op::BuildString},
      {"LIST_APPEND", Op::ListAppend},
      {"SET_ADD", Op::SetAdd},
      {"MAP_ADD", Op::MapAdd},
      {"LIST_EXTEND", Op::ListExtend},
      {"SET_UPDATE", Op::SetUpdate},
      {"DICT_UPDATE", Op::DictUpdate},
      {"DICT_MERGE", Op::DictMerge},
      {"LIST_TO_TUPLE", Op::ListToTuple},
      {"CALL_FUNCTION_EX", Op::CallEx},
      {"CALL_INTRINSIC_2", Op::CallIntrinsic2},
      {"MAKE_FUNCTION", Op::MakeFunction},
      {"SET_FUNCTION_ATTRIBUTE", Op::SetFunctionAttribute},
      {"FORMAT_VALUE", Op::FormatValue},
      {"CONVERT_VALUE", Op::ConvertValue},
      {"FORMAT_SIMPLE", Op::FormatSimple},
      {"FORMAT_WITH_SPEC", Op::FormatWithSpec},
      {"RETURN_VALUE", Op::ReturnValue},
      {"RAISE_VARARGS", Op::RaiseVarargs},
      {"RERAISE", Op::Reraise},
      {"END_FOR", Op::EndFor},
      {"GET_ITER", Op::GetIter},
      {"GET_YIELD_FROM_ITER", Op::GetYieldFromIter},
      {"GET_AITER", Op::GetAiter},
      {"GET_ANEXT", Op::GetAnext},
      {"END_ASYNC_FOR", Op::EndAsyncFor},
      {"GET_AWAITABLE", Op::GetAwaitable},
      {"SEND", Op::Send},
      {"YIELD_VALUE", Op::YieldValue},
      {"RETURN_GENERATOR", Op::ReturnGenerator},
      {"IMPORT_STAR", Op::ImportStar},
      {"UNPACK_SEQUENCE", Op::UnpackSequence},
      {"UNPACK_EX", Op::UnpackEx},
      {"BEFORE_WITH", Op::BeforeWith},
      {"BEFORE_ASYNC_WITH", Op::BeforeAsyncWith},
      {"WITH_EXCEPT_START", Op::WithExceptStart},
      {"PUSH_EXC_INFO", Op::PushExcInfo},
      {"POP_EXCEPT", Op::PopExcept},
      {"CHECK_EXC_MATCH", Op::CheckExcMatch},
      {"CHECK_EG_MATCH", Op::CheckEgMatch},
      {"POP_BLOCK", Op::PopBlock},
      {"SETUP_FINALLY", Op::SetupFinally},
      {"SETUP_WITH", Op::SetupWith},
      {"SETUP_ASYNC_WITH", Op::SetupAsyncWith},
      {"SETUP_ANNOTATIONS", Op::SetupAnnotations},
      {"GET_LEN", Op::GetLen},
      {"MATCH_CLASS", Op::MatchClass},
      {"MATCH_MAPPING", Op::MatchMapping},
      {"MATCH_SEQUENCE", Op::MatchSequence},
      {"MATCH_KEYS", Op::MatchKeys},
      {"PRINT_EXPR", Op::PrintExpr},
      {"CLEANUP_THROW", Op::CleanupThrow},
      {"END_SEND", Op::EndSend},
      {"DUP_TOP", Op::Copy},
      {"ROT_TWO", Op::Swap},
      {"UNARY_POSITIVE", Op::UnaryOp},
      {"UNARY_NEGATIVE", Op::UnaryOp},
      {"UNARY_NOT", Op::UnaryOp},
      {"UNARY_INVERT", Op::UnaryOp},
      {"JUMP_FORWARD", Op::Jump},
      {"JUMP_BACKWARD", Op::Jump},
      {"JUMP_ABSOLUTE", Op::Jump},
      {"JUMP_BACKWARD_NO_INTERRUPT", Op::Jump},
      {"JUMP", Op::Jump},
      {"JUMP_NO_INTERRUPT", Op::Jump},
      {"FOR_ITER", Op::ForIter},
      {"JUMP_IF_FALSE_OR_POP", Op::JumpIfOrPop},
      {"JUMP_IF_TRUE_OR_POP", Op::JumpIfOrPop},
      {"RETURN_CONST", Op::ReturnConst},
      {"LOAD_CONST", Op::LoadConst},
      {"IMPORT_NAME", Op::ImportName},
      {"IMPORT_FROM", Op::ImportFrom},
      {"LOAD_CLOSURE", Op::LoadClosure},
      {"STORE_ATTR", Op::StoreAttr},
      {"DELETE_ATTR", Op::DeleteAttr},
      {"LOAD_METHOD", Op::LoadMethod},
      {"COMPARE_OP", Op::Compare},
      {"BINARY_OP", Op::BinaryOp},
      {"CALL_INTRINSIC_1", Op::CallIntrinsic1},
      {"LOAD_SUPER_ATTR", Op::LoadSuperAttr},
      {"LOAD_ATTR", Op::LoadAttr},
      {"CALL", Op::Call},
      {"CALL_KW", Op::Call},
      {"CALL_FUNCTION", Op::Call},
      {"CALL_METHOD", Op::Call},
      {"CALL_FUNCTION_KW", Op::Call},
      {"ASYNC_GEN_WRAP",
       Op::Nop},  // 3.11: `yield` in an async generator; 3.12 makes it intrinsic 4
  };
  return table;
}

// Name loads and stores: the op and the scope their opname means.
struct NameOp {
  Op op;
  Scope scope;
};
const std::unordered_map<std::string_view, NameOp>& name_ops() {
  static const std::unordered_map<std::string_view, NameOp> table = {
      {"LOAD_NAME", {Op::LoadName, Scope::Name}},
      {"LOAD_FAST", {Op::LoadName, Scope::Fast}},
      {"LOAD_FAST_CHECK", {Op::LoadName, Scope::Fast}},
      {"LOAD_FAST_AND_CLEAR", {Op::LoadFastAndClear, Scope::Fast}},
      {"LOAD_GLOBAL", {Op::LoadName, Scope::Global}},
      {"LOAD_DEREF", {Op::LoadName, Scope::Deref}},
      {"LOAD_CLASSDEREF", {Op::LoadName, Scope::ClassDeref}},
      {"LOAD_FROM_DICT_OR_DEREF", {Op::LoadName, Scope::ClassDeref}},
      {"LOAD_FROM_DICT_OR_GLOBALS", {Op::LoadName, Scope::Name}},
      {"STORE_NAME", {Op::StoreName, Scope::Name}},
      {"STORE_FAST", {Op::StoreName, Scope::Fast}},
      {"STORE_GLOBAL", {Op::StoreName, Scope::Global}},
      {"STORE_DEREF", {Op::StoreName, Scope::Deref}},
      {"DELETE_NAME", {Op::DeleteName, Scope::Name}},
      {"DELETE_FAST", {Op::DeleteName, Scope::Fast}},
      {"DELETE_GLOBAL", {Op::DeleteName, Scope::Global}},
      {"DELETE_DEREF", {Op::DeleteName, Scope::Deref}},
  };
  return table;
}

// 3.10's one-operator opcodes.
const std::unordered_map<std::string_view, std::string_view>& operator_ops_310() {
  static const std::unordered_map<std::string_view, std::string_view> table = {
      {"BINARY_POWER", "**"},
      {"BINARY_MULTIPLY", "*"},
      {"BINARY_MATRIX_MULTIPLY", "@"},
      {"BINARY_FLOOR_DIVIDE", "//"},
      {"BINARY_TRUE_DIVIDE", "/"},
      {"BINARY_MODULO", "%"},
      {"BINARY_ADD", "+"},
      {"BINARY_SUBTRACT", "-"},
      {"BINARY_LSHIFT", "<<"},
      {"BINARY_RSHIFT", ">>"},
      {"BINARY_AND", "&"},
      {"BINARY_XOR", "^"},
      {"BINARY_OR", "|"},
      {"INPLACE_POWER", "**="},
      {"INPLACE_MULTIPLY", "*="},
      {"INPLACE_MATRIX_MULTIPLY", "@="},
      {"INPLACE_FLOOR_DIVIDE", "//="},
      {"INPLACE_TRUE_DIVIDE", "/="},
      {"INPLACE_MODULO", "%="},
      {"INPLACE_ADD", "+="},
      {"INPLACE_SUBTRACT", "-="},
      {"INPLACE_LSHIFT", "<<="},
      {"INPLACE_RSHIFT", ">>="},
      {"INPLACE_AND", "&="},
      {"INPLACE_XOR", "^="},
      {"INPLACE_OR", "|="},
  };
  return table;
}

// The conditional jumps: what the popped value must be for the jump to happen.
const std::unordered_map<std::string_view, int>& conditional_jumps() {
  static const std::unordered_map<std::string_view, int> table = {
      {"POP_JUMP_IF_FALSE", 0},          {"POP_JUMP_IF_TRUE", 1},
      {"POP_JUMP_IF_NONE", 2},           {"POP_JUMP_IF_NOT_NONE", 3},
      {"POP_JUMP_FORWARD_IF_FALSE", 0},  {"POP_JUMP_FORWARD_IF_TRUE", 1},
      {"POP_JUMP_FORWARD_IF_NONE", 2},   {"POP_JUMP_FORWARD_IF_NOT_NONE", 3},
      {"POP_JUMP_BACKWARD_IF_FALSE", 0}, {"POP_JUMP_BACKWARD_IF_TRUE", 1},
      {"POP_JUMP_BACKWARD_IF_NONE", 2},  {"POP_JUMP_BACKWARD_IF_NOT_NONE", 3},
  };
  return table;
}

// Instructions that leave no trace in the source.
bool is_dropped(std::string_view name) {
  return name == "NOP" || name == "CACHE" || name == "RESUME" || name == "EXTENDED_ARG" ||
         name == "PRECALL" || name == "MAKE_CELL" || name == "COPY_FREE_VARS" ||
         name == "GEN_START" || name == "KW_NAMES" || name == "RESUME_CHECK" ||
         name == "ENTER_EXECUTOR" || name == "TO_BOOL";
}

// Whether control never continues to the next instruction after `name`.
bool ends_flow(std::string_view name) {
  return name == "JUMP_FORWARD" || name == "JUMP_ABSOLUTE" || name == "JUMP_BACKWARD" ||
         name == "JUMP_BACKWARD_NO_INTERRUPT" || name == "JUMP" || name == "JUMP_NO_INTERRUPT" ||
         name == "RETURN_VALUE" || name == "RETURN_CONST" || name == "RAISE_VARARGS" ||
         name == "RERAISE";
}

// The opnames Lifter::run and Lifter::lift_one look at by name before (or besides) the tables.
bool read_by_name(std::string_view name) {
  return name == "JUMP_FORWARD" || name == "JUMP_ABSOLUTE" || name == "JUMP" ||
         name == "SETUP_FINALLY" || name == "GET_ANEXT" || name == "END_ASYNC_FOR" ||
         name == "CLEANUP_THROW" || name == "GET_AWAITABLE" || name == "BEFORE_ASYNC_WITH" ||
         name == "SETUP_ASYNC_WITH" || name == "LOAD_DEREF" || name == "LOAD_LOCALS" ||
         name == "STORE_DEREF" || name == "KW_NAMES" || name == "TO_BOOL";
}

// What the tables above say about one opname, looked up once per (version, opcode): lift_one runs
// for every instruction, and hashing its name into each table showed in profiles.
struct OpnameLookups {
  bool dropped = false;
  bool ends_flow = false;  // ends_flow(name)
  bool by_name = false;    // read_by_name(name): every other opname skips those checks
  const NameOp* name_op = nullptr;
  const int* condition = nullptr;
  const std::string_view* operator_310 = nullptr;
  const Op* plain = nullptr;
};

template <typename Table>
const typename Table::mapped_type* find_in(const Table& table, std::string_view name) {
  auto found = table.find(name);
  return found == table.end() ? nullptr : &found->second;
}

using VersionLookups = std::array<OpnameLookups, 256>;

// One version's lookups by opcode (taken once per code object: the guard of the table's static
// initialization, checked on every call, showed in profiles when called per instruction).
const VersionLookups& version_lookups(int minor) {
  constexpr int kVersions = bytecode::kMaxSupportedMinor - bytecode::kMinSupportedMinor + 1;
  static const std::array<VersionLookups, kVersions> kLookups = [] {
    std::array<VersionLookups, kVersions> all{};
    for (int m = bytecode::kMinSupportedMinor; m <= bytecode::kMaxSupportedMinor; ++m) {
      for (int op = 0; op < 256; ++op) {
        std::string_view name = bytecode::opcode_display_name(bytecode::opcode_table(m), op);
        OpnameLookups& lookups =
            all[static_cast<size_t>(m - bytecode::kMinSupportedMinor)][static_cast<size_t>(op)];
        lookups.dropped = is_dropped(name);
        lookups.ends_flow = ends_flow(name);
        lookups.by_name = read_by_name(name);
        lookups.name_op = find_in(name_ops(), name);
        lookups.condition = find_in(conditional_jumps(), name);
        lookups.operator_310 = find_in(operator_ops_310(), name);
        lookups.plain = find_in(plain_ops(), name);
      }
    }
    return all;
  }();
  if (minor < bytecode::kMinSupportedMinor || minor > bytecode::kMaxSupportedMinor)
    throw bytecode::BytecodeError("unsupported Python version 3." + std::to_string(minor));
  return kLookups[static_cast<size_t>(minor - bytecode::kMinSupportedMinor)];
}

const char* const kBinaryOperators[] = {"+", "&",  "//", "<<", "@", "*", "%",
                                        "|", "**", ">>", "-",  "/", "^"};
const char* const kCompareOperators[] = {"<", "<=", "==", "!=", ">", ">="};

// Whether `row` covers an instruction marked in `reachable` (instructions sorted by offset).
bool covers_reachable(const std::vector<Instruction>& all, const std::vector<char>& reachable,
                      const bytecode::ExceptionTableEntry& row) {
  auto first =
      std::lower_bound(all.begin(), all.end(), row.start,
                       [](const Instruction& ins, int offset) { return ins.offset < offset; });
  for (auto it = first; it != all.end() && it->offset < row.end; ++it) {
    if (reachable[static_cast<size_t>(it - all.begin())]) return true;
  }
  return false;
}

// The instructions control can reach from the first one: by falling through, by a jump (3.10's
// SETUP_* included), or, 3.11+, by an exception raised where a table row covers a reached one.
// The compiler leaves no unreachable code; generated code does (a Dynamo resume function's
// prologue jumps into the middle of the original body, which stays in place, never run).
std::vector<char> reachable_instructions(const std::vector<Instruction>& all,
                                         const std::vector<bytecode::ExceptionTableEntry>& rows,
                                         int minor) {
  const VersionLookups& lookups = version_lookups(minor);
  // The first instruction at each byte offset: a table, not a hash map (an allocation per
  // instruction showed in profiles).
  int limit = 0;
  for (const Instruction& ins : all) limit = std::max(limit, ins.offset + 1);
  std::vector<int> at(static_cast<size_t>(limit), -1);
  for (size_t i = 0; i < all.size(); ++i) {
    int offset = all[i].offset;
    if (offset >= 0 && offset < limit && at[static_cast<size_t>(offset)] < 0)
      at[static_cast<size_t>(offset)] = static_cast<int>(i);
  }
  auto index_at = [&](int offset) {
    return offset >= 0 && offset < limit ? at[static_cast<size_t>(offset)] : -1;
  };
  std::vector<char> seen(all.size(), false);
  std::vector<size_t> work{0};
  for (bool grew = true; grew;) {
    while (!work.empty()) {
      size_t i = work.back();
      work.pop_back();
      if (i >= all.size() || seen[i]) continue;
      seen[i] = true;
      int target = index_at(all[i].jump_target);
      if (target >= 0) work.push_back(static_cast<size_t>(target));
      if (!lookups[static_cast<size_t>(all[i].opcode & 255)].ends_flow) work.push_back(i + 1);
    }
    grew = false;
    for (const auto& row : rows) {
      int target = index_at(row.target);
      if (target < 0 || seen[static_cast<size_t>(target)] || !covers_reachable(all, seen, row))
        continue;
      work.push_back(static_cast<size_t>(target));
      grew = true;
    }
  }
  return seen;
}

// Whether instruction `i` is a forward jump over unreachable instructions only: no jump at all
// once they are gone (Dynamo's resume prologue jumping over the original body's start), or over
// none (Dynamo's `JUMP_FORWARD 0` from its generated code into the original instructions; the
// compiler never leaves a jump to the next instruction).
bool jumps_over_unreachable(const std::vector<Instruction>& all, const std::vector<char>& reachable,
                            size_t i) {
  std::string_view name = all[i].opname;
  if (name != "JUMP_FORWARD" && name != "JUMP_ABSOLUTE" && name != "JUMP") return false;
  size_t k = i + 1;
  for (; k < all.size() && all[k].offset < all[i].jump_target; ++k) {
    if (reachable[k]) return false;
  }
  return k < all.size() && all[k].offset == all[i].jump_target;
}

// The instructions of the code being lifted live in a buffer of the thread's, kept between
// code objects (up to a size): a fresh vector each time was among the largest allocations of a
// decompilation. Taken while in use, so that a nested lift gets a buffer of its own.
constexpr size_t kKeptInstructions = 2048;  // about 200 KiB

std::vector<Instruction>& instruction_buffer() {
  thread_local std::vector<Instruction> buffer;
  return buffer;
}

// Likewise the operations (given back by ~LiftedCode) and the offset-to-operation table.
constexpr size_t kKeptOperations = 2048;  // about 230 KiB
constexpr size_t kKeptOffsets = 16384;

std::vector<Operation>& operation_buffer() {
  thread_local std::vector<Operation> buffer;
  return buffer;
}

std::vector<int>& offset_buffer() {
  thread_local std::vector<int> buffer;
  return buffer;
}

class Lifter {
 public:
  explicit Lifter(const CodeObject& code)
      : code_(code), minor_(code.minor), lookups_(version_lookups(code.minor)) {}

  LiftedCode run() {
    // Bare: the lifter needs no argrepr (a listing's text) and checks the indices it reads.
    std::vector<Instruction> instructions = std::exchange(instruction_buffer(), {});
    bytecode::decode_bare_instructions(code_, instructions);
    std::vector<bytecode::ExceptionTableEntry> rows;
    if (minor_ >= 11) rows = bytecode::parse_exception_table(code_);
    std::vector<char> reachable = reachable_instructions(instructions, rows, minor_);
    out_.ops = std::exchange(operation_buffer(), {});
    out_.ops.reserve(instructions.size());
    int max_offset = static_cast<int>(code_.code.size());
    // One entry per code unit: instructions start at even offsets only, and an odd offset maps
    // to the next unit's entry as to the next surviving operation (`slot`).
    std::vector<int> offset_index = std::exchange(offset_buffer(), {});
    offset_index.assign(static_cast<size_t>(max_offset) / 2 + 2, -1);
    auto slot = [](int offset) { return static_cast<size_t>(offset + 1) / 2; };
    std::vector<char> nop_at(offset_index.size(), 0);
    for (size_t i = 0; i < instructions.size(); ++i) {
      const Instruction& ins = instructions[i];
      // (The offset of an instruction left out maps to the next surviving operation.)
      if (!reachable[i]) continue;
      if (ins.opname == "NOP" && ins.offset >= 0 && ins.offset <= max_offset)
        nop_at[slot(ins.offset)] = 1;
      if (!lookups_of(ins).by_name) {  // none of the shapes below
        if (ins.offset >= 0 && ins.offset <= max_offset)
          offset_index[slot(ins.offset)] = static_cast<int>(out_.ops.size());
        lift_one(instructions, i);
        continue;
      }
      if (jumps_over_unreachable(instructions, reachable, i)) continue;
      if (size_t head = async_for_head(instructions, i); head > 0) {
        if (ins.offset >= 0 && ins.offset <= max_offset)
          offset_index[slot(ins.offset)] = static_cast<int>(out_.ops.size());
        emit(Op::ForIter, ins).text = "async";
        out_.ops.back().target = async_for_exit_;
        i += head - 1;
        continue;
      }
      if (minor_ >= 10 && ins.opname == "END_ASYNC_FOR" && async_for_ends_.count(ins.offset)) {
        if (ins.offset >= 0 && ins.offset <= max_offset)
          offset_index[slot(ins.offset)] = static_cast<int>(out_.ops.size());
        emit(Op::EndFor, ins);
        continue;
      }
      if (size_t loop = async_with_await_loop(instructions, i); loop > 0) {
        i += loop - 1;  // the skipped offsets map to the next surviving operation
        continue;
      }
      if (ins.offset >= 0 && ins.offset <= max_offset) {
        offset_index[slot(ins.offset)] = static_cast<int>(out_.ops.size());
      }
      lift_one(instructions, i);
    }
    // Offsets without a surviving operation (dropped or folded instructions) map to the next one.
    int next = static_cast<int>(out_.ops.size());
    for (size_t k = offset_index.size(); k-- > 0;) {
      if (offset_index[k] < 0 || offset_index[k] > next)
        offset_index[k] = next;
      else
        next = offset_index[k];
    }
    auto index_of = [&](int offset) {
      if (offset < 0 || offset > max_offset)
        throw bytecode::BytecodeError("jump target out of range");
      return offset_index[slot(offset)];
    };
    for (Operation& op : out_.ops) {
      if (op.target < 0) continue;
      op.target_nop = op.target <= max_offset && nop_at[slot(op.target)];
      op.target = index_of(op.target);
    }
    if (minor_ >= 11) {
      for (const auto& entry : rows) {
        if (!covers_reachable(instructions, reachable, entry)) continue;
        // The range of a dropped `async with` SEND loop (3.12+) is empty once lifted.
        if (dropped_send_loop_ && index_of(entry.start) == index_of(entry.end)) continue;
        if (async_for_ends_.count(entry.target)) continue;  // an `async for` loop's own handler
        out_.handlers.push_back({index_of(entry.start), index_of(entry.end), index_of(entry.target),
                                 entry.depth, entry.lasti});
      }
    }
    if (instructions.capacity() <= kKeptInstructions)
      instruction_buffer() = std::move(instructions);
    if (offset_index.capacity() <= kKeptOffsets) offset_buffer() = std::move(offset_index);
    return std::move(out_);
  }

 private:
  const CodeObject& code_;
  int minor_;
  const VersionLookups& lookups_;
  LiftedCode out_;

  const OpnameLookups& lookups_of(const Instruction& ins) const {
    return lookups_[static_cast<size_t>(ins.opcode & 255)];
  }
  std::vector<std::string> pending_kwnames_;
  int pending_kwnames_line_ = -1;  // the line the pending KW_NAMES started, if any
  int pending_nop_line_ = -1;      // the line a NOP dropped since the last operation started

  Operation& emit(Op op, const Instruction& ins) {
    Operation& operation = out_.ops.emplace_back();
    operation.op = op;
    operation.arg = ins.arg;
    operation.offset = ins.offset;
    operation.line = ins.line;
    operation.nop_line = pending_nop_line_;
    pending_nop_line_ = -1;
    operation.target = ins.jump_target;  // a byte offset until run() converts it
    operation.no_interrupt = op == Op::Jump && (ins.opname == "JUMP_BACKWARD_NO_INTERRUPT" ||
                                                ins.opname == "JUMP_NO_INTERRUPT");
    return operation;
  }

  const std::string& name_at(int index) const {
    if (index < 0 || static_cast<size_t>(index) >= code_.names.size())
      throw bytecode::BytecodeError("bad name index");
    return code_.names[static_cast<size_t>(index)];
  }
  const std::string& local_at(int index) const {
    if (index < 0 || static_cast<size_t>(index) >= code_.localsplusnames.size()) {
      throw bytecode::BytecodeError("bad local index");
    }
    return code_.localsplusnames[static_cast<size_t>(index)];
  }
  bytecode::ObjectRef const_at(int index) const {
    if (index < 0 || static_cast<size_t>(index) >= code_.consts.size())
      throw bytecode::BytecodeError("bad const index");
    return code_.consts[static_cast<size_t>(index)];
  }

  std::vector<std::string> tuple_strings(const bytecode::ObjectRef& obj) const {
    std::vector<std::string> names;
    if (obj && obj->kind == bytecode::ObjectKind::Tuple) {
      for (const auto& item : obj->items) names.push_back(item->text);
    }
    return names;
  }

  // The name an instruction with a name/local/free argument refers to.
  const std::string& name_of(const Instruction& ins, Scope scope) const {
    switch (scope) {
      case Scope::Fast:
        return local_at(ins.arg);
      case Scope::Deref:
      case Scope::ClassDeref:
        return minor_ == 10 ? local_at(ins.arg + static_cast<int>(code_.varnames.size()))
                            : local_at(ins.arg);
      case Scope::Global:
        return name_at(minor_ >= 11 && ins.opname == "LOAD_GLOBAL" ? ins.arg >> 1 : ins.arg);
      case Scope::Name:
        return name_at(ins.arg);
    }
    return name_at(ins.arg);  // (every scope is handled above)
  }

  // `async with` (3.11+): the awaits of __aenter__ (GET_AWAITABLE 1) and __aexit__ (GET_AWAITABLE
  // 2) are part of the statement, not expressions; their SEND loop (3.12+: with its END_SEND and
  // its CLEANUP_THROW) is dropped so that the statement reads like a plain `with`
  // (BEFORE_ASYNC_WITH lifts to BeforeWith with arg 1). Returns the number of instructions dropped,
  // 0 where `i` does not start such a loop.
  size_t async_with_await_loop(const std::vector<Instruction>& all, size_t i) const {
    const Instruction& ins = all[i];
    if (minor_ == 10) return async_with_await_310(all, i);
    // 3.12+: the out-of-line `CLEANUP_THROW; JUMP_BACKWARD` back to a dropped loop's END_SEND.
    if (minor_ >= 12 && ins.opname == "CLEANUP_THROW" && i + 1 < all.size() &&
        (all[i + 1].opname == "JUMP_BACKWARD" ||
         all[i + 1].opname == "JUMP_BACKWARD_NO_INTERRUPT") &&
        dropped_end_sends_.count(all[i + 1].jump_target)) {
      return 2;
    }
    if (minor_ < 11 || ins.opname != "GET_AWAITABLE" || (ins.arg != 1 && ins.arg != 2)) return 0;
    if (i + 6 >= all.size()) return 0;
    const Instruction& send = all[i + 2];
    const Instruction& back = all[i + 5];
    bool shape = all[i + 1].opname == "LOAD_CONST" && send.opname == "SEND" &&
                 all[i + 3].opname == "YIELD_VALUE" && all[i + 4].opname == "RESUME" &&
                 back.opname == "JUMP_BACKWARD_NO_INTERRUPT" && back.jump_target == send.offset;
    if (!shape) return 0;
    bytecode::ObjectRef none = const_at(all[i + 1].arg);
    if (!none || none->kind != bytecode::ObjectKind::None) return 0;
    size_t end = i + 6;  // 3.12+: an inline CLEANUP_THROW (in the exit handler), then END_SEND
    if (minor_ >= 12 && end < all.size() && all[end].opname == "CLEANUP_THROW") ++end;
    if (end >= all.size() || send.jump_target != all[end].offset) return 0;
    if (minor_ >= 12) {
      if (all[end].opname != "END_SEND") return 0;
      dropped_end_sends_.insert(all[end].offset);
      ++end;
      dropped_send_loop_ = true;
    }
    return end - i;
  }
  // `async for`: the head that awaits __anext__ (3.10: SETUP_FINALLY, GET_ANEXT, LOAD_CONST None,
  // YIELD_FROM, POP_BLOCK; 3.11+: GET_ANEXT, LOAD_CONST None and the SEND loop, 3.12+ with its
  // END_SEND) is one ForIter whose exit is the END_ASYNC_FOR that ends the loop (found through
  // the handler covering the head), which becomes an EndFor. Returns the instructions used, 0
  // where `i` starts no such head.
  size_t async_for_head(const std::vector<Instruction>& all, size_t i) const {
    auto name_is = [&](size_t k, std::string_view name) {
      return k < all.size() && all[k].opname == name;
    };
    auto is_none = [&](size_t k) {
      if (!name_is(k, "LOAD_CONST")) return false;
      bytecode::ObjectRef value = const_at(all[k].arg);
      return value && value->kind == bytecode::ObjectKind::None;
    };
    auto ends_loop = [&](int offset) {
      for (const Instruction& other : all) {
        if (other.offset == offset) return other.opname == "END_ASYNC_FOR";
      }
      return false;
    };
    if (minor_ == 10) {
      if (!name_is(i, "SETUP_FINALLY") || !name_is(i + 1, "GET_ANEXT") || !is_none(i + 2) ||
          !name_is(i + 3, "YIELD_FROM") || !name_is(i + 4, "POP_BLOCK") ||
          !ends_loop(all[i].jump_target)) {
        return 0;
      }
      async_for_exit_ = all[i].jump_target;
      async_for_ends_.insert(async_for_exit_);
      return 5;
    }
    if (!name_is(i, "GET_ANEXT") || !is_none(i + 1) || !name_is(i + 2, "SEND") ||
        !name_is(i + 3, "YIELD_VALUE") || !name_is(i + 4, "RESUME") ||
        !name_is(i + 5, "JUMP_BACKWARD_NO_INTERRUPT") ||
        all[i + 5].jump_target != all[i + 2].offset) {
      return 0;
    }
    size_t used = 6;
    if (minor_ >= 12) {
      if (name_is(i + 6, "CLEANUP_THROW")) ++used;  // placed inline when nothing precedes it
      if (!name_is(i + used, "END_SEND") || all[i + 2].jump_target != all[i + used].offset)
        return 0;
      dropped_end_sends_.insert(all[i + used].offset);
      ++used;
    } else if (i + 6 >= all.size() || all[i + 2].jump_target != all[i + 6].offset) {
      return 0;
    }
    int exit = -1;
    for (const auto& entry : exception_table()) {
      if (entry.start <= all[i].offset && all[i].offset < entry.end) {
        exit = entry.target;
        break;
      }
    }
    if (exit < 0 || !ends_loop(exit)) return 0;
    async_for_exit_ = exit;
    async_for_ends_.insert(exit);
    dropped_send_loop_ = true;
    return used;
  }
  const std::vector<bytecode::ExceptionTableEntry>& exception_table() const {
    if (!table_parsed_) {
      table_ = bytecode::parse_exception_table(code_);
      table_parsed_ = true;
    }
    return table_;
  }
  mutable int async_for_exit_ = -1;
  mutable std::unordered_set<int> async_for_ends_;
  mutable bool table_parsed_ = false;
  mutable std::vector<bytecode::ExceptionTableEntry> table_;
  mutable bool dropped_send_loop_ = false;
  mutable std::unordered_set<int> dropped_end_sends_;

  // 3.10 `async with`: BEFORE_ASYNC_WITH, the await of __aenter__ and SETUP_ASYNC_WITH together do
  // what SETUP_WITH does; the awaits after WITH_EXCEPT_START and after the exit call
  // (LOAD_CONST None, DUP_TOP, DUP_TOP, CALL_FUNCTION 3: compiler-made) are dropped likewise.
  size_t async_with_await_310(const std::vector<Instruction>& all, size_t i) const {
    if (all[i].opname == "BEFORE_ASYNC_WITH") return 1;  // SETUP_ASYNC_WITH then stands for it
    if (all[i].opname != "GET_AWAITABLE" || i == 0 || i + 2 >= all.size()) return 0;
    if (all[i + 1].opname != "LOAD_CONST" || all[i + 2].opname != "YIELD_FROM") return 0;
    bytecode::ObjectRef none = const_at(all[i + 1].arg);
    if (!none || none->kind != bytecode::ObjectKind::None) return 0;
    const std::string_view before = all[i - 1].opname;
    bool statement_await = before == "BEFORE_ASYNC_WITH" || before == "WITH_EXCEPT_START";
    if (before == "CALL_FUNCTION" && all[i - 1].arg == 3 && i >= 4 &&
        all[i - 2].opname == "DUP_TOP" && all[i - 3].opname == "DUP_TOP" &&
        all[i - 4].opname == "LOAD_CONST") {
      bytecode::ObjectRef first = const_at(all[i - 4].arg);
      statement_await = first && first->kind == bytecode::ObjectKind::None;
    }
    return statement_await ? 3 : 0;
  }

  // The opnames read_by_name lists that lift_one reads apart from the tables: whether this one
  // was lifted (or dropped) here.
  bool lift_by_name(const std::vector<Instruction>& instructions, size_t i) {
    const Instruction& ins = instructions[i];
    std::string_view name = ins.opname;
    if (minor_ >= 11 && name == "BEFORE_ASYNC_WITH") {
      emit(Op::BeforeWith, ins).arg = 1;
      return true;
    }
    if (minor_ == 10 && name == "SETUP_ASYNC_WITH") {
      emit(Op::SetupWith, ins).text = "async";  // BEFORE_ASYNC_WITH and its await were dropped
      return true;
    }
    // 3.12+: LOAD_LOCALS pushes the mapping that LOAD_FROM_DICT_OR_DEREF/GLOBALS looks in
    // first: together they are one name load (a class body's free variable).
    // An annotation scope inside a class reads the class namespace through the __classdict__
    // cell the same way; the class body stores that cell with LOAD_LOCALS; STORE_DEREF.
    bool classdict = minor_ >= 12 && (name == "LOAD_DEREF" || name == "LOAD_LOCALS") &&
                     (name == "LOAD_LOCALS" || local_at(ins.arg) == "__classdict__");
    if (classdict && i + 1 < instructions.size() &&
        (instructions[i + 1].opname == "LOAD_FROM_DICT_OR_DEREF" ||
         instructions[i + 1].opname == "LOAD_FROM_DICT_OR_GLOBALS")) {
      return true;
    }
    if (minor_ >= 12 && name == "STORE_DEREF" && local_at(ins.arg) == "__classdict__" && i > 0 &&
        instructions[i - 1].opname == "LOAD_LOCALS") {
      out_.ops.pop_back();  // the LOAD_LOCALS
      return true;
    }
    if (name == "KW_NAMES") {
      pending_kwnames_ = tuple_strings(const_at(ins.arg));
      pending_kwnames_line_ = ins.line;
    }
    // 3.13: `not not x` is a TO_BOOL alone (the optimizer removes the two UNARY_NOTs); every
    // other TO_BOOL comes before a conditional jump or a `not`.
    if (minor_ >= 13 && name == "TO_BOOL") {
      size_t next = i + 1;
      while (next < instructions.size() &&
             (instructions[next].opname == "EXTENDED_ARG" || instructions[next].opname == "CACHE"))
        ++next;
      std::string_view after = next < instructions.size() ? instructions[next].opname : "";
      if (next < instructions.size() && after != "POP_JUMP_IF_FALSE" &&
          after != "POP_JUMP_IF_TRUE" && after != "UNARY_NOT" && after != "TO_BOOL") {
        emit(Op::UnaryOp, ins).text = "not";
        emit(Op::UnaryOp, ins).text = "not";
        return true;
      }
    }
    return false;
  }

  void lift_one(const std::vector<Instruction>& instructions, size_t i) {
    const Instruction& ins = instructions[i];
    std::string_view name = ins.opname;
    const OpnameLookups& lookups = lookups_of(ins);
    if (lookups.by_name && lift_by_name(instructions, i)) return;
    if (lookups.dropped) {
      if (name == "NOP" && ins.line >= 0) pending_nop_line_ = ins.line;
      return;
    }
    if (const NameOp* found = lookups.name_op) {
      Operation& op = emit(found->op, ins);
      op.scope = found->scope;
      op.text = name_of(ins, op.scope);
      op.null_slot = minor_ >= 11 && name == "LOAD_GLOBAL" && (ins.arg & 1);
      return;
    }
    if (name == "LOAD_FAST_LOAD_FAST" || name == "STORE_FAST_STORE_FAST" ||
        name == "STORE_FAST_LOAD_FAST") {
      Op first = name == "LOAD_FAST_LOAD_FAST" ? Op::LoadName : Op::StoreName;
      Op second = name == "STORE_FAST_STORE_FAST"                            ? Op::StoreName
                  : first == Op::StoreName && name == "STORE_FAST_LOAD_FAST" ? Op::LoadName
                                                                             : first;
      // (Each half takes its own local's index as its argument, as LOAD_FAST/STORE_FAST do: a
      // copied tail that the compiler's insert_superinstructions joined in one copy and not in
      // the other, where a LOAD_FAST_CHECK broke the pair, compares equal to it.)
      Operation& a = emit(first, ins);
      a.scope = Scope::Fast;
      a.arg = ins.arg >> 4;
      a.text = local_at(a.arg);
      Operation& b = emit(second, ins);
      b.scope = Scope::Fast;
      b.arg = ins.arg & 15;
      b.text = local_at(b.arg);
      return;
    }
    if (const int* found = lookups.condition) {
      emit(Op::JumpIf, ins).arg = *found;
      return;
    }
    if (const std::string_view* found = lookups.operator_310) {
      emit(Op::BinaryOp, ins).text = std::string(*found);
      return;
    }
    if (name == "JUMP_IF_NOT_EXC_MATCH") {  // 3.10
      emit(Op::CheckExcMatch, ins).target = -1;
      emit(Op::JumpIf, ins).arg = 0;
      return;
    }
    if (name == "ROT_THREE" || name == "ROT_FOUR" || name == "ROT_N") {
      emit(Op::Rotate, ins).arg = name == "ROT_THREE" ? 3 : name == "ROT_FOUR" ? 4 : ins.arg;
      return;
    }
    if (name == "DUP_TOP_TWO") {
      emit(Op::Copy, ins).arg = 2;
      emit(Op::Copy, ins).arg = 2;
      return;
    }
    const Op* found = lookups.plain;
    if (!found) {
      emit(Op::Unknown, ins).text = std::string(name);
      return;
    }
    Operation& op = emit(*found, ins);
    refine(op, ins, name, instructions, i);
  }

  // Per-opcode argument decoding on top of the plain mapping.
  void refine(Operation& op, const Instruction& ins, std::string_view name,
              const std::vector<Instruction>& all, size_t i) {
    switch (op.op) {
      case Op::Copy:
        if (name == "DUP_TOP") op.arg = 1;
        break;
      case Op::Swap:
        if (name == "ROT_TWO") op.arg = 2;
        break;
      case Op::UnaryOp:
        op.text = name == "UNARY_NEGATIVE" ? "-"
                  : name == "UNARY_NOT"    ? "not"
                  : name == "UNARY_INVERT" ? "~"
                                           : "+";
        break;
      case Op::LoadConst:
      case Op::ReturnConst:
        op.constant = const_at(ins.arg);
        break;
      case Op::ImportName:
      case Op::ImportFrom:
      case Op::StoreAttr:
      case Op::DeleteAttr:
      case Op::LoadMethod:
        op.text = name_at(ins.arg);
        break;
      case Op::LoadClosure:
        op.text = minor_ == 10 ? local_at(ins.arg + static_cast<int>(code_.varnames.size()))
                               : local_at(ins.arg);
        break;
      case Op::LoadAttr:
        if (minor_ >= 12) {
          op.text = name_at(ins.arg >> 1);
          if (ins.arg & 1) op.op = Op::LoadMethod;
        } else {
          op.text = name_at(ins.arg);
        }
        break;
      case Op::LoadSuperAttr:
        op.text = name_at(ins.arg >> 2);
        break;
      case Op::Compare: {
        int index = minor_ >= 13 ? ins.arg >> 5 : minor_ == 12 ? ins.arg >> 4 : ins.arg;
        if (index < 0 || index > 5) throw bytecode::BytecodeError("bad comparison operator");
        op.text = kCompareOperators[index];
        break;
      }
      case Op::BinaryOp: {
        int index = ins.arg % 13;
        if (ins.arg < 0 || ins.arg >= 26) throw bytecode::BytecodeError("bad binary operator");
        op.text = std::string(kBinaryOperators[index]) + (ins.arg >= 13 ? "=" : "");
        break;
      }
      case Op::Call:
        op.null_slot = minor_ >= 11 || name == "CALL_METHOD";
        if (name == "CALL_KW" || name == "CALL_FUNCTION_KW") {
          // The keyword names are a constant tuple loaded just before.
          if (out_.ops.size() >= 2 && out_.ops[out_.ops.size() - 2].op == Op::LoadConst) {
            op.kwnames = tuple_strings(out_.ops[out_.ops.size() - 2].constant);
            Operation call = op;
            out_.ops.pop_back();
            out_.ops.back() = call;
          }
        } else if (minor_ >= 11) {
          op.kwnames = std::move(pending_kwnames_);
          pending_kwnames_.clear();
          // (3.12: KW_NAMES shares the call's location; where it started the line, the call
          // starts it, as 3.13's CALL_KW does.)
          if (op.line < 0) op.line = pending_kwnames_line_;
          pending_kwnames_line_ = -1;
        }
        break;
      case Op::CallEx:
        op.null_slot = minor_ >= 11;
        break;
      case Op::CallIntrinsic1:
        switch (ins.arg) {
          case 1:
            op.op = Op::PrintExpr;
            break;
          case 2:
            op.op = Op::ImportStar;
            op.arg = 1;
            break;  // pushes a result (None), unlike IMPORT_STAR
          case 5:
            op.op = Op::UnaryOp;
            op.text = "+";
            break;
          case 6:
            op.op = Op::ListToTuple;
            break;
          case 4:
            op.op = Op::Nop;
            break;  // async generator wrap
          default:
            break;
        }
        break;
      case Op::JumpIfOrPop:
        op.arg = name == "JUMP_IF_TRUE_OR_POP" ? 1 : 0;
        break;
      case Op::EndFor:
        // 3.13 splits the loop exit into END_FOR + POP_TOP.
        if (minor_ >= 13 && i + 1 < all.size() && all[i + 1].opname == "POP_TOP")
          skip_next_pop_ = true;
        break;
      case Op::PopTop:
        if (skip_next_pop_) {
          skip_next_pop_ = false;
          out_.ops.pop_back();
        }
        break;
      default:
        break;
    }
    if (op.op != Op::EndFor && op.op != Op::PopTop) skip_next_pop_ = false;
    fold_312_value_jump();
    fold_313_function_attributes();
  }

  bool skip_next_pop_ = false;

  // 3.12+ compiles `a and b` as a value to COPY 1; POP_JUMP_IF_FALSE; POP_TOP: the 3.11
  // JUMP_IF_FALSE_OR_POP.
  void fold_312_value_jump() {
    auto& ops = out_.ops;
    size_t n = ops.size();
    if (minor_ < 12 || n < 3) return;
    Operation& copy = ops[n - 3];
    Operation& jump = ops[n - 2];
    if (copy.op != Op::Copy || copy.arg != 1 || jump.op != Op::JumpIf || jump.arg > 1 ||
        ops[n - 1].op != Op::PopTop) {
      return;
    }
    Operation folded = jump;
    folded.op = Op::JumpIfOrPop;
    folded.offset = copy.offset;
    folded.line = copy.line;
    ops.resize(n - 3);
    ops.push_back(folded);
  }

  // 3.13: MAKE_FUNCTION then SET_FUNCTION_ATTRIBUTE flag... is one MakeFunction with the flags.
  void fold_313_function_attributes() {
    auto& ops = out_.ops;
    size_t n = ops.size();
    if (n < 2 || ops[n - 1].op != Op::SetFunctionAttribute || ops[n - 2].op != Op::MakeFunction)
      return;
    ops[n - 2].arg |= ops[n - 1].arg;
    ops.pop_back();
  }
};

}  // namespace

LiftedCode::~LiftedCode() {
  std::vector<Operation>& kept = operation_buffer();
  if (ops.capacity() > kKeptOperations || ops.capacity() <= kept.capacity()) return;
  ops.clear();
  kept = std::move(ops);
}

LiftedCode lift(const bytecode::CodeObject& code) { return Lifter(code).run(); }

}  // namespace glassbox::decompiler
