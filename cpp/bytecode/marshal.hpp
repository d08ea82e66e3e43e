// The marshal reader: bytes in CPython's marshal format (version 4) to the code model.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "bytecode/code.hpp"
#include "bytecode/error.hpp"

namespace glassbox::bytecode {

// How deep marshalled objects may nest (containers and code objects, also through shared
// references). CPython allows 2000; its parser cannot produce more than a few hundred, and a
// lower bound keeps every recursive consumer (repr, decompiler, destructors) far from the stack
// limit, sanitizer builds included.
inline constexpr int kMaxMarshalDepth = 500;

// Reads one marshalled object (normally a code object) from `data`. The layout of code objects
// depends on `minor`. Throws BytecodeError naming the offset on malformed or truncated input.
// Nesting is bounded and no allocation exceeds what the remaining input could describe.
ObjectRef read_marshal(std::string_view data, PyMinor minor);

// The checks CPython's code constructor makes on the counts of `code`; throws BytecodeError
// naming `offset` (where the code object starts in the input) on the first that fails.
void validate_code(const CodeObject& code, std::size_t offset);

// A parsed .pyc file: its header and top-level module code object.
struct PycFile {
  PyMinor minor = 0;
  std::uint16_t magic = 0;
  std::uint32_t flags = 0;
  std::shared_ptr<const CodeObject> code;
};

// The CPython minor version (10..13) that a .pyc magic number belongs to, if supported.
std::optional<PyMinor> minor_from_magic(std::uint16_t magic);

// Parses a whole .pyc file: 16-byte header, then the marshalled module code. The version comes
// from the magic number unless `forced_minor` is given.
PycFile read_pyc(std::string_view data, std::optional<PyMinor> forced_minor = std::nullopt);

}  // namespace glassbox::bytecode
