// Typed kernel arguments (schema/program.fbs, KernelArgs): read from and written to an artifact,
// and which family each kernel takes. Adding a family: NOTES.md.
#pragma once

#include <cstdint>
#include <string>
#include <utility>

#include "runtime/tensor.hpp"

namespace flatbuffers {
class FlatBufferBuilder;
}

namespace glassbox::fb {
struct Instruction;
}

namespace glassbox::runtime {

// The typed arguments an instruction carries (monostate when none). Values are checked by the
// kernel's verify function, not here.
KernelArgs read_kernel_args(const fb::Instruction& instruction);

// The union's type tag and table offset for CreateInstruction (0, 0 for none).
std::pair<std::uint8_t, std::uint32_t> write_kernel_args(flatbuffers::FlatBufferBuilder& b,
                                                         const KernelArgs& args);

// The name of the family of an instruction's arguments (its table in program.fbs), or null for
// none; and the family a kernel takes, or null for a kernel that takes no arguments (embedding,
// convert).
// An instruction carries exactly its kernel's family.
const char* family_of(const KernelArgs& args);
const char* family_of_kernel(const std::string& op);

}  // namespace glassbox::runtime
