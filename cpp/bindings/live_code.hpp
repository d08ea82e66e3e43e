// The code model of a live code object of the running interpreter, read from the object's own
// fields instead of from marshal.dumps bytes.
#pragma once

#include <Python.h>

#include <memory>

#include "bytecode/code.hpp"

namespace glassbox::bindings {

// What read_marshal(marshal.dumps(code), minor) builds for `code` (a code object of the running
// interpreter), or null where this reader declines and the caller is to go through marshal: a
// version it is not enabled for, a constant other than None, bool, an int of 64 bits, float,
// complex, bytes, a str without lone surrogates, Ellipsis, tuple, frozenset or code object (of
// exactly those types), nesting or size near the marshal reader's bounds.
std::shared_ptr<const bytecode::CodeObject> read_live_code(PyObject* code);

}  // namespace glassbox::bindings
