// Whether a function's decompiled source is final as it is: the check
// glassbox.decompiler._with_bare_signature makes for a function without defaults and
// annotations, made in C++ for the common case so that decompile(function) skips it.
#pragma once

#include <Python.h>

#include <string>

namespace glassbox::bindings {

// True where `function` (a function object) has no defaults, keyword defaults or annotations, no
// positional-only, keyword-only, *args or **kwargs parameters and no free variables, its name
// is an ASCII identifier, and `source` begins with the line `def NAME(P1, P2, ...):` written
// from its code's co_varnames: _with_bare_signature then returns the source unchanged. False
// where any of that does not hold or cannot be read (the Python side then decides).
bool bare_header_as_written(PyObject* function, const std::string& source);

}  // namespace glassbox::bindings
