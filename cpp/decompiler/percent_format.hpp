// 3.11+ compiles `'...%s...' % (a, b)`, a str constant formatted with a tuple display, as the
// f-string it spells where every specification is %s, %r or %a with an optional width and
// precision (ast_opt.c's optimize_format). Before 3.12 an f-string's expression cannot hold a
// backslash: such an f-string is written as the %-format it compiles alike to.
#pragma once

#include "bytecode/code.hpp"
#include "decompiler/ast.hpp"

namespace glassbox::decompiler {

// `joined` (an f-string's parts) as `'format' % (values,)`, or null where no %-format spells it.
ExprPtr percent_format(const Expr& joined, bytecode::PyMinor minor);

// Whether optimize_format folds `format % (items...)`, a tuple display of `items` values, into
// an f-string: every specification is flags, at most two digits of width, an optional `.` and
// at most two digits of precision, then s, r or a; one per item, and at least one.
bool percent_folds(const std::string& format, size_t items);

}  // namespace glassbox::decompiler
