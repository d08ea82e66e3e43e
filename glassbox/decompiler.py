"""The Python face of the C++ bytecode core: disassembly and decompilation."""

from __future__ import annotations

import inspect
import marshal
import sys
import types
import warnings
from typing import Any, NamedTuple, TextIO

from glassbox import _core
from glassbox.errors import DecompileWarning

SUPPORTED_MINORS = range(10, 14)
CO_NEWLOCALS = 0x2  # set on the code of functions, lambdas, comprehensions; not on module code


def _code_of(obj: Any) -> types.CodeType:
    """The code object behind a function, method, generator, frame, code object or source text."""
    if isinstance(obj, types.CodeType):
        return obj
    if isinstance(obj, str):
        try:
            return compile(obj, "<dis>", "eval")
        except SyntaxError:
            return compile(obj, "<dis>", "exec")
    obj = inspect.unwrap(obj) if callable(obj) else obj
    for attr in ("__func__", "__code__", "gi_code", "ag_code", "cr_code", "f_code"):
        inner = getattr(obj, attr, None)
        if inner is not None:
            return _code_of(inner)
    raise TypeError(f"don't know how to disassemble {type(obj).__name__} objects")


def disassemble(obj: Any) -> str:
    """The listing ``dis.dis(obj)`` would print, as a string.

    ``obj`` is a function, method, generator, code object or source string of the running
    interpreter, or the bytes of a whole ``.pyc`` file of CPython 3.10 to 3.13 (its version comes
    from its magic number). Raises :class:`glassbox.BytecodeError` for bad bytes.
    """
    if isinstance(obj, (bytes, bytearray, memoryview)):
        return _core.disassemble_pyc(bytes(obj))
    minor = sys.version_info.minor
    if sys.version_info.major != 3 or minor not in SUPPORTED_MINORS:
        raise RuntimeError(f"glassbox supports CPython 3.10 to 3.13, not {sys.version}")
    return _core.disassemble_marshal(marshal.dumps(_code_of(obj)), minor)


def dis(obj: Any, *, file: TextIO | None = None) -> None:
    """Print a listing equivalent to ``dis.dis(obj)``; see :func:`disassemble`."""
    print(disassemble(obj), end="", file=file or sys.stdout)


class Fallback(NamedTuple):
    """A region the decompiler could not reconstruct; the source marks it instead."""

    code_name: str  # qualname of the code object it is in
    first_line: int
    reason: str


class Decompiled(NamedTuple):
    """Decompiled source and the regions left as marked fallbacks (empty on full success)."""

    source: str
    fallbacks: list[Fallback]


def _running_minor() -> int:
    minor = sys.version_info.minor
    if sys.version_info.major != 3 or minor not in SUPPORTED_MINORS:
        raise RuntimeError(f"glassbox supports CPython 3.10 to 3.13, not {sys.version}")
    return minor


def decompile_detailed(obj: Any) -> Decompiled:
    """Like :func:`decompile`, but returns the fallbacks instead of warning about them."""
    if isinstance(obj, (bytes, bytearray, memoryview)):
        source, fallbacks = _core.decompile_pyc(bytes(obj))
    elif isinstance(obj, str):
        raise TypeError("decompile takes a code object, a function or method, or .pyc bytes")
    else:
        code = _code_of(obj)
        as_function = bool(code.co_flags & CO_NEWLOCALS)
        source, fallbacks = _core.decompile_marshal(
            marshal.dumps(code), _running_minor(), as_function
        )
    return Decompiled(source, [Fallback(*fallback) for fallback in fallbacks])


def decompile(obj: Any) -> str:
    """Python source that compiles back to ``obj``'s bytecode.

    ``obj`` is one of:

    * the bytes of a whole ``.pyc`` file of CPython 3.10 to 3.13 (the version comes from its
      magic number): the module's whole source;
    * a module code object of the running interpreter (``compile(text, name, "exec")``): the
      module's whole source;
    * a function, method, generator or coroutine, or a function's code object: a ``def``
      (``lambda`` and comprehension code come out as a ``def`` too). Free variables are kept
      by an enclosing function that defines the cells.

    Regions the decompiler cannot reconstruct are emitted as marked fallbacks: the source is
    returned anyway and a :class:`glassbox.DecompileWarning` names each region (its
    ``fallbacks`` attribute lists them as :class:`Fallback`). Raises
    :class:`glassbox.BytecodeError` for malformed bytes and ``TypeError`` for other objects.
    """
    result = decompile_detailed(obj)
    if result.fallbacks:
        warnings.warn(DecompileWarning(result.fallbacks), stacklevel=2)
    return result.source
