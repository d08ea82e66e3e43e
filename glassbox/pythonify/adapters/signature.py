"""Source text for a code object's parameters and for constant values (defaults, literals)."""

from __future__ import annotations

import math
import types

CO_VARARGS = 0x04
CO_VARKEYWORDS = 0x08


class NotLiteral(Exception):
    """A value with no literal source form."""


def literal(value) -> str:
    """Python source for a constant (a parameter default, say)."""
    if isinstance(value, float):
        if math.isnan(value):
            return "float('nan')"
        if math.isinf(value):
            return "float('inf')" if value > 0 else "float('-inf')"
        return repr(value)
    if value is None or isinstance(value, (bool, int, str, bytes, complex)):
        return repr(value)
    if isinstance(value, tuple):
        inner = ", ".join(literal(v) for v in value)
        return f"({inner},)" if len(value) == 1 else f"({inner})"
    if isinstance(value, frozenset):
        return f"frozenset({{{', '.join(literal(v) for v in value)}}})" if value else "frozenset()"
    if value is Ellipsis:
        return "..."
    raise NotLiteral(f"a {type(value).__name__} is not a literal")


def signature_of(code: types.CodeType) -> list[str]:
    """The parameters of ``code`` as they appear in a ``def``."""
    names = list(code.co_varnames)
    positional = code.co_argcount
    kwonly = code.co_kwonlyargcount
    params = names[:positional]
    index = positional + kwonly
    if code.co_flags & CO_VARARGS:
        params.append("*" + names[index])
        index += 1
    elif kwonly:
        params.append("*")
    params += names[positional : positional + kwonly]
    if code.co_flags & CO_VARKEYWORDS:
        params.append("**" + names[index])
    return params
