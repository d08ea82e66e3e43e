// A kernel family's typed arguments from Python (glassbox/backend/program.py's dataclasses, read
// by field name) into the runtime's structs (runtime/kernel_args_types.hpp).
#pragma once

#include <nanobind/nanobind.h>

#include <string>

#include "runtime/kernel_args_types.hpp"

namespace glassbox::bindings {

// None, or the arguments of the family `op` takes; raises InputError for a kernel that takes none.
runtime::KernelArgs kernel_args_from_python(const std::string& op, const nanobind::object& args);

}  // namespace glassbox::bindings
