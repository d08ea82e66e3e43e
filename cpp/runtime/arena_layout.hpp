// Arena placement by lifetime, as the Python planner does it (glassbox/backend/plan.py,
// place_arena): each instruction's outputs take the first free block large enough, and a block is
// free again after its slot's last read. Used for each binding of a program with symbols.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "runtime/tensor.hpp"

namespace glassbox::runtime {

// Sets the offset (index) of every Arena slot of `values` and returns the arena's size.
// Slots must be in range (a verified program).
std::size_t place_arena(std::vector<ValueDesc>& values, const std::vector<InstrDesc>& instructions,
                        const std::vector<std::int32_t>& outputs);

}  // namespace glassbox::runtime
