// Python's repr() of marshalled constants, byte for byte as the matching CPython prints it.
#pragma once

#include <string>

#include "bytecode/code.hpp"

namespace glassbox::bytecode {

// repr(obj) as CPython would print it. A code object prints as
// `<code object NAME at 0x0, file "FILE", line N>` (the address is not meaningful here).
// Set and frozenset elements keep their marshalled order. Which characters of a str print as
// themselves follows the Unicode database of CPython 3.`minor`.
std::string python_repr(const Object& obj, PyMinor minor = 11);

// repr of a str given as UTF-8 (surrogatepass), as CPython 3.`minor` prints it.
std::string repr_str(const std::string& utf8, PyMinor minor = 11);
std::string repr_bytes(const std::string& raw);  // repr of a bytes object
std::string repr_float(double value);            // repr of a float
std::string repr_complex(double real, double imag);

}  // namespace glassbox::bytecode
