// libFuzzer target for the marshal reader and repr: any input must parse or raise BytecodeError.
// Any other exception, a crash or a sanitizer report is a finding.
//
//   CXX=clang++-14 cmake -S . -B build-fuzz -G Ninja -DGLASSBOX_FUZZ=ON && ninja -C build-fuzz
//   fuzz_marshal python3 scripts/make_fuzz_corpus.py corpus && build-fuzz/fuzz_marshal corpus
//   -max_total_time=300
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "bytecode/marshal.hpp"
#include "bytecode/repr.hpp"

namespace {

using glassbox::bytecode::BytecodeError;
using glassbox::bytecode::CodeObject;
using glassbox::bytecode::Object;
using glassbox::bytecode::ObjectKind;
using glassbox::bytecode::PyMinor;

void check_code(const CodeObject& code);

// Walks everything the reader built, as a consumer would, and checks the invariants it promises.
void check_object(const Object& object) {
  glassbox::bytecode::python_repr(object);
  if (object.kind == ObjectKind::Dict && object.items.size() % 2 != 0) std::abort();
  if (object.kind == ObjectKind::Code) check_code(*object.code);
}

void check_code(const CodeObject& code) {
  if (code.localsplusnames.size() != code.localspluskinds.size()) std::abort();
  if (code.nlocals < 0 || code.argcount < code.posonlyargcount || code.code.size() % 2 != 0) {
    std::abort();
  }
  if (static_cast<std::size_t>(code.argcount + code.kwonlyargcount) > code.varnames.size()) {
    std::abort();
  }
  for (const auto& constant : code.consts) check_object(*constant);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  try {
    const auto pyc = glassbox::bytecode::read_pyc(input);
    check_code(*pyc.code);
  } catch (const BytecodeError& error) {
    if (error.offset() != BytecodeError::npos && error.offset() > size) std::abort();
  }
  for (PyMinor minor = glassbox::bytecode::kMinSupportedMinor;
       minor <= glassbox::bytecode::kMaxSupportedMinor; ++minor) {
    try {
      check_object(*glassbox::bytecode::read_marshal(input, minor));
    } catch (const BytecodeError& error) {
      if (error.offset() != BytecodeError::npos && error.offset() > size) std::abort();
    }
  }
  return 0;
}
