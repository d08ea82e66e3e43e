// Inputs the fuzzers once crashed on (fuzz/regressions/): each must now give a result or a clean
// error. Run under ASan and UBSan by `make test`, so a regression is a failure here.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "bytecode/disassembler.hpp"
#include "bytecode/marshal.hpp"
#include "decompiler/decompiler.hpp"
#include "glassbox/runtime.h"

namespace {

namespace fs = std::filesystem;

std::string read_bytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

void decompile_or_reject(const std::string& data) {
  try {
    auto pyc = glassbox::bytecode::read_pyc(data);
    try {
      glassbox::bytecode::disassemble(*pyc.code);
    } catch (const glassbox::bytecode::BytecodeError&) {
    }
    glassbox::decompiler::decompile_module(*pyc.code);
  } catch (const glassbox::bytecode::BytecodeError&) {
  }
}

TEST(FuzzRegressions, EveryRecordedInputIsHandled) {
  const fs::path folder = fs::path(GLASSBOX_SOURCE_DIR) / "fuzz" / "regressions";
  int seen = 0;
  for (const auto& entry : fs::directory_iterator(folder)) {
    const std::string name = entry.path().filename().string();
    const std::string data = read_bytes(entry.path());
    SCOPED_TRACE(name);
    if (name.rfind("decompile-", 0) == 0) {
      EXPECT_NO_THROW(decompile_or_reject(data));
    } else if (name.rfind("loader-", 0) == 0) {
      gbx_program* program = gbx_load_buffer(data.data(), data.size());
      if (program) gbx_program_free(program);
    }
    ++seen;
  }
  EXPECT_GE(seen, 3);
}

}  // namespace
