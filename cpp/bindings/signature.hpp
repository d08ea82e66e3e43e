// The signature step of glassbox.decompiler (_with_signature, _with_bare_signature) made in C++
// for the common cases, so that decompile(function) skips it: the header written with the
// function's literal defaults, or the decompiler's own header kept as it is.
#pragma once

#include <Python.h>

#include <string>

namespace glassbox::bindings {

// True where `function` (a function object) has no annotations, every default and keyword
// default it has is a literal (_literal's repr of a scalar, or a tuple or list of them), its
// name and free variables are ASCII identifiers, and its signature step would return without
// compiling: `source` (its code's decompiled source, without fallbacks) is then rewritten as
// that step returns it. False, `source` untouched, where any of that does not hold or cannot be
// read (the Python side then decides).
bool write_final_signature(PyObject* function, std::string& source);

}  // namespace glassbox::bindings
