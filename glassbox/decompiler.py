"""The Python face of the C++ bytecode core: disassembly now, decompilation as it lands."""

from __future__ import annotations

import inspect
import marshal
import sys
import types
from typing import Any, TextIO

from glassbox import _core

SUPPORTED_MINORS = range(10, 14)


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
