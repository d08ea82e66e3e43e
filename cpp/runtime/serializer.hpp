// Writing artifacts: a plain ProgramSpec (what the Python lowering produces) to the bytes of a
// .gbx file, FlatBuffer first, then the 64-byte aligned constant segment.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "runtime/shape_expr.hpp"
#include "runtime/tensor.hpp"

namespace glassbox::runtime {

struct ProgramSpec {
  std::vector<ValueDesc> values;  // numel is ignored
  std::vector<std::int32_t> inputs;
  std::vector<std::int32_t> outputs;
  std::vector<InstrDesc> instructions;
  std::vector<std::string> constants;  // raw bytes of each constant
  std::uint64_t arena_size = 0;
  std::vector<ArgumentDesc> arguments;  // empty: none recorded
  std::vector<SymbolDesc> symbols;      // empty: static shapes
  std::vector<ExprDesc> exprs;
};

std::string serialize_program(const ProgramSpec& spec);

}  // namespace glassbox::runtime
