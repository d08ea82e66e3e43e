// The decompiler: a code object of CPython 3.10-3.13 back to Python source that recompiles to the
// same bytecode. Passes (one file each): lift (per-version instructions to version-neutral
// operations) -> cfg (basic blocks, exception regions) -> dominators and loops -> structure
// (if/while/for/try/with/match regions) -> statement and expression trees (ast.hpp) -> printer.
#pragma once

#include <string>
#include <vector>

#include "bytecode/code.hpp"

namespace glassbox::decompiler {

struct Fallback {
  std::string code_name;  // qualname of the code object
  int first_line = 0;
  std::string reason;
};

struct DecompileResult {
  std::string source;
  std::vector<Fallback> fallbacks;  // regions emitted as marked fallbacks; empty on full success
};

// Exact: source that recompiles to the same bytecode (.pyc and library code). Readable (generated
// code such as Dynamo's): the same behaviour without the scaffolding whose only purpose is byte
// equality (the dead `if 0:` blocks that fix the order of names and constants, `if True:` around
// a statement where 3.10/3.11 folded a test).
enum class Output { Exact, Readable };

// A module code object (a .pyc's top level) to its whole source.
DecompileResult decompile_module(const bytecode::CodeObject& code, Output output = Output::Exact);

// A function's code object to a `def` whose compiled code equals the original. Free variables
// are kept by an enclosing function that defines the cells (with a comment saying so).
DecompileResult decompile_function(const bytecode::CodeObject& code, Output output = Output::Exact);

}  // namespace glassbox::decompiler
