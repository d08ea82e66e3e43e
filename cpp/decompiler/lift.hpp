// Lifting: one version's instructions to version-neutral operations.
//
// Every CPython 3.10-3.13 instruction becomes at most one `Operation` whose kind says what it does
// to the value stack, independent of how that version spells it (CALL_FUNCTION / PRECALL+CALL /
// CALL_KW are all `Call`; the POP_JUMP_(FORWARD|BACKWARD)_IF_* family is one `JumpIf`). Jumps
// point at operation indices. Instructions with no effect on the source (NOP, CACHE, RESUME,
// EXTENDED_ARG, PRECALL, MAKE_CELL, COPY_FREE_VARS) are dropped.
#pragma once

#include <string>
#include <vector>

#include "bytecode/code.hpp"

namespace glassbox::decompiler {

enum class Op {
  Unknown,  // text = the opname
  PopTop,
  PushNull,
  Copy,       // arg = depth (1 = top)
  Swap,       // arg = depth
  Rotate,     // arg = depth: the top value moves down to that depth (3.10 ROT_THREE/ROT_FOUR/ROT_N)
  LoadConst,  // constant
  LoadName,   // text = name; scope
  LoadFastAndClear,  // text = name (3.12+ inlined comprehensions save the variable)
  LoadAttr,          // text
  LoadMethod,        // text; pushes NULL-slot + attribute
  LoadSuperAttr,     // text; arg bit 1 = method form (3.12+)
  LoadClosure,       // text
  LoadBuildClass,
  LoadAssertionError,
  LoadLocals,
  StoreName,  // text; scope
  StoreAttr,  // text
  StoreSubscr,
  StoreSlice,
  DeleteName,  // text; scope
  DeleteAttr,  // text
  DeleteSubscr,
  BinaryOp,    // text = operator ("+", "+=" for in-place)
  UnaryOp,     // text ("-", "+", "~", "not")
  ToBool,      // no effect on the source
  Compare,     // text
  IsOp,        // arg 1 = "is not"
  ContainsOp,  // arg 1 = "not in"
  BinarySubscr,
  BinarySlice,
  BuildSlice,  // arg
  BuildTuple,  // arg
  BuildList,
  BuildSet,
  BuildMap,
  BuildConstKeyMap,
  BuildString,
  ListAppend,  // arg
  SetAdd,
  MapAdd,
  ListExtend,
  SetUpdate,
  DictUpdate,
  DictMerge,
  ListToTuple,
  Call,            // arg = positional+keyword count; kwnames; null_slot
  CallEx,          // arg & 1: has **kwargs
  CallIntrinsic1,  // arg = function index (3.12+)
  CallIntrinsic2,
  MakeFunction,          // arg = flags (3.13: folded from SET_FUNCTION_ATTRIBUTE)
  SetFunctionAttribute,  // arg = flag (3.13)
  FormatValue,           // arg = conversion (0..3) | 4 when a spec is on the stack
  ConvertValue,          // arg = conversion (3.13)
  FormatSimple,
  FormatWithSpec,
  ReturnValue,
  ReturnConst,   // constant
  RaiseVarargs,  // arg
  Reraise,
  Jump,    // target
  JumpIf,  // target; arg = what the popped value must be to jump: 0 false, 1 true, 2 None, 3 not
           // None
  JumpIfOrPop,  // target; arg 0 false / 1 true: jumps keeping the value, else pops it
  ForIter,      // target = first operation after the loop
  EndFor,
  GetIter,
  GetYieldFromIter,
  GetAiter,
  GetAnext,
  EndAsyncFor,
  GetAwaitable,
  Send,
  YieldValue,
  ReturnGenerator,
  ImportName,  // text = module; the level and fromlist are the two values below
  ImportFrom,  // text
  ImportStar,
  UnpackSequence,  // arg
  UnpackEx,        // arg = before | after << 8
  BeforeWith,
  BeforeAsyncWith,
  WithExceptStart,
  PushExcInfo,
  PopExcept,
  CheckExcMatch,
  CheckEgMatch,
  PopBlock,      // 3.10 block pops
  SetupFinally,  // 3.10: target = handler
  SetupWith,     // 3.10
  SetupAsyncWith,
  SetupAnnotations,
  GetLen,
  MatchClass,
  MatchMapping,
  MatchSequence,
  MatchKeys,
  PrintExpr,
  CleanupThrow,
  EndSend,
  Nop,
};

// Where a name lives: the operation family that loads or stores it.
enum class Scope { Name, Fast, Global, Deref, ClassDeref };

struct Operation {
  Op op = Op::Unknown;
  int arg = 0;
  int target = -1;         // operation index of a jump target
  bool null_slot = false;  // LoadName(Global)/LoadAttr also push NULL; Call pops a NULL/self slot
  Scope scope = Scope::Name;
  std::string text;
  std::vector<std::string> kwnames;  // Call
  bytecode::ObjectRef constant;      // LoadConst, ReturnConst
  int offset = 0;                    // byte offset of the instruction
  int line = -1;
  int nop_line = -1;        // the line a NOP just before (dropped) started, if any
  bool target_nop = false;  // a jump landing on a NOP (dropped: the target is the op after it)
  // A Jump the compiler emitted as JUMP_NO_INTERRUPT (JUMP_BACKWARD_NO_INTERRUPT once assembled):
  // never a written `continue` or `break` (compiler_continue/compiler_break emit a plain JUMP).
  bool no_interrupt = false;
};

// Whether `op` transfers control to its target (a jump, a conditional one, a for loop's exit).
inline bool is_jump(Op op) {
  return op == Op::Jump || op == Op::JumpIf || op == Op::JumpIfOrPop || op == Op::ForIter;
}

// Whether `op` names an entry of co_names (rather than a local, cell or constant).
inline bool uses_co_names(const Operation& op) {
  switch (op.op) {
    case Op::LoadName:
    case Op::StoreName:
    case Op::DeleteName:
      return op.scope == Scope::Name || op.scope == Scope::Global;
    case Op::LoadAttr:
    case Op::LoadMethod:
    case Op::LoadSuperAttr:
    case Op::StoreAttr:
    case Op::DeleteAttr:
    case Op::ImportName:
    case Op::ImportFrom:
      return true;
    default:
      return false;
  }
}

// An exception-table row in operation indices (3.11+).
struct Handler {
  int start = 0;  // first covered operation
  int end = 0;    // one past the last covered operation
  int target = 0;
  int depth = 0;
  bool lasti = false;
};

struct LiftedCode {
  std::vector<Operation> ops;
  std::vector<Handler> handlers;

  LiftedCode() = default;
  LiftedCode(const LiftedCode&) = default;
  LiftedCode(LiftedCode&&) = default;
  LiftedCode& operator=(const LiftedCode&) = default;
  LiftedCode& operator=(LiftedCode&&) = default;
  // Leaves the memory of `ops` (up to a size) to the thread's next lift: a fresh vector per code
  // object was among the largest allocations of a decompilation.
  ~LiftedCode();
};

// Lifts `code`; throws bytecode::BytecodeError on undecodable input.
LiftedCode lift(const bytecode::CodeObject& code);

}  // namespace glassbox::decompiler
