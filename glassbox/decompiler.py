"""The Python face of the C++ bytecode core: disassembly and decompilation."""

from __future__ import annotations

import ast
import inspect
import marshal
import re
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


def _literal(value: Any) -> str | None:
    """Source for ``value`` if it is a literal that reads back equal (and of the same type)."""
    try:
        text = repr(value)
        back = ast.literal_eval(text)
    except (ValueError, SyntaxError, TypeError, RecursionError, MemoryError):
        return None
    same = type(back) is type(value) and (back == value or (back != back and value != value))
    return text if same else None


def _annotation(value: Any) -> str | None:
    """Source for an annotation: a string as written, a builtin or importable class by name."""
    if isinstance(value, str):
        return value if value.isidentifier() else repr(value)
    if isinstance(value, type):
        if value.__module__ == "builtins":
            return value.__qualname__
        return f"{value.__module__}.{value.__qualname__}"
    return _literal(value)


def _signature_parts(func: types.FunctionType) -> tuple[str, str, list[str]]:
    """The parameter list and return annotation of ``func`` with its defaults and annotations,
    and comments for the ones that have no source form (not literals)."""
    code = func.__code__
    names = code.co_varnames
    positional = names[: code.co_argcount]
    kwonly = names[code.co_argcount : code.co_argcount + code.co_kwonlyargcount]
    index = code.co_argcount + code.co_kwonlyargcount
    varargs = names[index] if code.co_flags & inspect.CO_VARARGS else None
    index += 1 if varargs else 0
    varkw = names[index] if code.co_flags & inspect.CO_VARKEYWORDS else None
    annotations = getattr(func, "__annotations__", None) or {}
    defaults = func.__defaults__ or ()
    kwdefaults = func.__kwdefaults__ or {}
    notes: list[str] = []

    def param(name: str, has_default: bool = False, default: Any = None) -> str:
        text = name
        if name in annotations:
            ann = _annotation(annotations[name])
            if ann is None:
                notes.append(f"annotation of {name}: a {type(annotations[name]).__name__}")
            else:
                text += f": {ann}"
        if has_default:
            literal = _literal(default)
            if literal is None:
                notes.append(f"default of {name}: a {type(default).__name__} object, not a literal")
            else:
                text += f" = {literal}" if name in annotations else f"={literal}"
        return text

    first_default = len(positional) - len(defaults)
    parts = [
        param(name, i >= first_default, defaults[i - first_default] if i >= first_default else None)
        for i, name in enumerate(positional)
    ]
    if code.co_posonlyargcount:
        parts.insert(code.co_posonlyargcount, "/")
    if varargs:
        parts.append("*" + param(varargs))
    elif kwonly:
        parts.append("*")
    parts += [param(name, name in kwdefaults, kwdefaults.get(name)) for name in kwonly]
    if varkw:
        parts.append("**" + param(varkw))
    returns = ""
    if "return" in annotations:
        ann = _annotation(annotations["return"])
        returns = f" -> {ann}" if ann else ""
    return ", ".join(parts), returns, notes


def _with_signature(source: str, func: types.FunctionType) -> str:
    """Puts ``func``'s defaults and annotations, which live on the function object rather than
    in its code, into the header of its decompiled ``def``."""
    try:
        params, returns, notes = _signature_parts(func)
    except (AttributeError, IndexError, TypeError):
        return source
    name = re.escape(func.__code__.co_name)
    header = re.compile(
        rf"^(?P<indent>[ \t]*)(?P<async>async )?def {name}\(.*\)(?: -> .*)?:$", re.M
    )
    match = header.search(source)
    if not match:
        return source
    indent = match.group("indent")
    comments = "".join(f"{indent}# {note}\n" for note in notes)
    new_header = (
        f"{indent}{match.group('async') or ''}def {func.__code__.co_name}({params}){returns}:"
    )
    candidate = source[: match.start()] + comments + new_header + source[match.end() :]
    try:
        compile(candidate, "<glassbox>", "exec")
    except SyntaxError:
        return source
    return candidate


def decompile_detailed(obj: Any) -> Decompiled:
    """Like :func:`decompile`, but returns the fallbacks instead of warning about them."""
    function = inspect.unwrap(obj) if callable(obj) else None
    function = getattr(function, "__func__", function)
    if isinstance(function, types.FunctionType):
        result = _decompile_code(function.__code__)
        return Decompiled(_with_signature(result.source, function), result.fallbacks)
    return _decompile_code(obj)


def _decompile_code(obj: Any) -> Decompiled:
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
