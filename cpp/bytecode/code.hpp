// The code model: what a marshalled CPython code object holds, as plain C++ data.
//
// The marshal reader (marshal.hpp) fills it; the instruction decoder, the disassembler and the
// decompiler read it. Constants are an immutable tree of `Object`s shared by `ObjectRef`.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace glassbox::bytecode {

// The CPython minor version the bytecode belongs to: 10, 11, 12 or 13 (always 3.x).
using PyMinor = int;
inline constexpr PyMinor kMinSupportedMinor = 10;
inline constexpr PyMinor kMaxSupportedMinor = 13;

struct Object;
struct CodeObject;
using ObjectRef = std::shared_ptr<const Object>;

enum class ObjectKind {
  None,
  False,
  True,
  StopIteration,
  Ellipsis,
  Int,
  Float,
  Complex,
  Bytes,
  Str,
  Tuple,
  List,
  Dict,
  Set,
  FrozenSet,
  Code,
};

// One marshalled value. Only the fields of its kind are meaningful.
struct Object {
  ObjectKind kind = ObjectKind::None;
  // Int: the exact value in decimal ("-12", "340282366920938463463374607431768211456").
  // Huge values (beyond what CPython would repr) read "<int of N bits>".
  std::string int_decimal;
  double real = 0.0;  // Float, and the real part of Complex
  double imag = 0.0;  // Complex
  // Bytes: raw bytes. Str: UTF-8 text; lone surrogates are kept as their 3-byte
  // (surrogatepass) encoding, exactly as marshal stores them.
  std::string text;
  std::vector<ObjectRef> items;  // Tuple, List, Set, FrozenSet; Dict as key, value, key, value...
  std::shared_ptr<const CodeObject> code;  // Code
};

// Kinds of the entries of co_localsplusnames (3.11+), as in CPython's
// Include/internal/pycore_code.h.
inline constexpr std::uint8_t kLocalKindArgVar = 0x08;  // CO_FAST_ARG_VAR (3.13); harmless earlier
inline constexpr std::uint8_t kLocalKindHidden = 0x10;  // CO_FAST_HIDDEN (3.12+)
inline constexpr std::uint8_t kLocalKindLocal = 0x20;   // CO_FAST_LOCAL
inline constexpr std::uint8_t kLocalKindCell = 0x40;    // CO_FAST_CELL
inline constexpr std::uint8_t kLocalKindFree = 0x80;    // CO_FAST_FREE

struct CodeObject {
  PyMinor minor = 11;
  int argcount = 0;
  int posonlyargcount = 0;
  int kwonlyargcount = 0;
  int nlocals = 0;  // 3.10: marshalled; 3.11+: number of kLocalKindLocal entries
  int stacksize = 0;
  int flags = 0;
  int firstlineno = 0;
  std::string code;  // co_code: 2-byte code units, CACHE entries included (3.11+)
  std::vector<ObjectRef> consts;
  std::vector<std::string> names;
  // 3.11+: the marshalled co_localsplusnames / co_localspluskinds. 3.10: built from
  // varnames + cellvars + freevars with the matching kinds, so users can index uniformly.
  std::vector<std::string> localsplusnames;
  std::vector<std::uint8_t> localspluskinds;
  // Derived views, as the code object's Python attributes present them.
  std::vector<std::string> varnames;
  std::vector<std::string> cellvars;
  std::vector<std::string> freevars;
  std::string filename;
  std::string name;
  std::string qualname;        // 3.11+; equals name on 3.10
  std::string linetable;       // 3.10: co_linetable (the 3.10 format); 3.11+: location table
  std::string exceptiontable;  // 3.11+; empty on 3.10
};

// Fills varnames, cellvars, freevars and nlocals from localsplusnames and localspluskinds (3.11+),
// as CPython derives them: a cell that is also an argument is both a local and a cell, so it is
// listed in co_varnames and in co_cellvars.
inline void derive_local_views(CodeObject& code) {
  std::size_t counts[3] = {0, 0, 0};  // (each list reserved once, not grown by doubling)
  for (const std::uint8_t kind : code.localspluskinds) {
    counts[0] += (kind & kLocalKindLocal) != 0;
    counts[1] += (kind & kLocalKindCell) != 0;
    counts[2] += (kind & kLocalKindFree) != 0;
  }
  code.varnames.reserve(code.varnames.size() + counts[0]);
  code.cellvars.reserve(code.cellvars.size() + counts[1]);
  code.freevars.reserve(code.freevars.size() + counts[2]);
  for (std::size_t i = 0; i < code.localspluskinds.size(); ++i) {
    const std::uint8_t kind = code.localspluskinds[i];
    if (kind & kLocalKindLocal) code.varnames.push_back(code.localsplusnames[i]);
    if (kind & kLocalKindCell) code.cellvars.push_back(code.localsplusnames[i]);
    if (kind & kLocalKindFree) code.freevars.push_back(code.localsplusnames[i]);
  }
  code.nlocals = static_cast<int>(code.varnames.size());
}

}  // namespace glassbox::bytecode
