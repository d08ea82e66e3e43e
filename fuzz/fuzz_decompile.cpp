// libFuzzer target for everything that reads a .pyc after the marshal reader: instruction
// decoding, line and exception tables, the disassembler and the decompiler. Any input must give a
// listing and source, or a BytecodeError; a crash, a hang, a sanitizer report or any other
// exception is a finding.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "bytecode/disassembler.hpp"
#include "bytecode/marshal.hpp"
#include "decompiler/decompiler.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  glassbox::bytecode::PycFile pyc;
  try {
    pyc = glassbox::bytecode::read_pyc(input);
  } catch (const glassbox::bytecode::BytecodeError&) {
    return 0;
  }
  try {
    glassbox::bytecode::disassemble(*pyc.code);
  } catch (const glassbox::bytecode::BytecodeError&) {
  }
  try {
    glassbox::decompiler::decompile_module(*pyc.code);
  } catch (const glassbox::bytecode::BytecodeError&) {
  }
  return 0;
}
