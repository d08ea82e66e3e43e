// A listing equivalent to that version's `dis.dis`, for a code object and its nested code objects.
#pragma once

#include <string>

#include "bytecode/code.hpp"

namespace glassbox::bytecode {

// The text `dis.dis(code)` prints under CPython 3.`code.minor`: the instructions, the exception
// table (3.11+), then "Disassembly of <code object ...>:" sections for each nested code object,
// recursively. Code object addresses print as 0x0.
std::string disassemble(const CodeObject& code);

}  // namespace glassbox::bytecode
