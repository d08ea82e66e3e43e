"""The Python face of the C++ bytecode core: disassembly and decompilation."""

from __future__ import annotations

import ast
import inspect
import keyword
import marshal
import math
import re
import sys
import types
import warnings
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any, NamedTuple, TextIO, cast

from glassbox import _core
from glassbox.errors import DecompileWarning

SUPPORTED_MINORS = range(10, 14)
CO_NEWLOCALS = 0x2  # set on the code of functions, lambdas, comprehensions; not on module code
_CO_VARARGS = inspect.CO_VARARGS
_CO_VARKEYWORDS = inspect.CO_VARKEYWORDS
_CO_STARS = _CO_VARARGS | _CO_VARKEYWORDS


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
    """Decompiled source and the regions left as marked fallbacks (empty on full success).

    ``constants`` maps each name the source uses for a constant marshal cannot carry (see
    :func:`decompile`) to that object; empty for code whose constants are all marshallable.
    """

    source: str
    fallbacks: list[Fallback]
    constants: Mapping[str, Any] = MappingProxyType({})


def _running_minor() -> int:
    minor = sys.version_info.minor
    if sys.version_info.major != 3 or minor not in SUPPORTED_MINORS:
        raise RuntimeError(f"glassbox supports CPython 3.10 to 3.13, not {sys.version}")
    return minor


# Types whose repr always reads back equal and of the same type (a float's, where finite).
_ROUND_TRIP_TYPES = frozenset({type(None), bool, int, str, bytes})


def _reads_back(value: Any, depth: int = 0) -> bool:
    """Whether ``ast.literal_eval(repr(value))`` is equal to ``value`` and of its type, known
    without parsing: a round-trip scalar, or a tuple, list, set or dict of them (exact types)."""
    kind = type(value)
    if kind in _ROUND_TRIP_TYPES:
        return True
    if kind is float:
        return math.isfinite(value)
    if depth >= 20:  # (and a container that holds itself)
        return False
    if kind is tuple or kind is list or kind is set:
        return all(_reads_back(item, depth + 1) for item in value)
    if kind is dict:
        return all(
            _reads_back(k, depth + 1) and _reads_back(v, depth + 1) for k, v in value.items()
        )
    return False


def _literal(value: Any) -> str | None:
    """Source for ``value`` if it is a literal that reads back equal (and of the same type)."""
    if _reads_back(value):
        try:
            return repr(value)
        except (ValueError, MemoryError):  # an int with more digits than str() allows
            return None
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


# Values whose repr is an expression on one line whatever the value, so that a header holding
# it parses by construction (see _plain).
_PLAIN_SCALARS = frozenset({type(None), bool, int, float, complex, str, bytes})
_PLAIN_CONTAINERS = frozenset({tuple, list, set})


def _plain(value: Any, depth: int = 0) -> bool:
    """Whether ``repr(value)`` is a one-line expression for every such value: builtin scalars,
    and tuples, lists, sets and dicts of them (not subclasses, whose repr may be anything)."""
    kind = type(value)
    if kind in _PLAIN_SCALARS:
        return True
    if depth > 20:
        return False
    if kind in _PLAIN_CONTAINERS:
        return all(_plain(item, depth + 1) for item in value)
    if kind is dict:
        return all(_plain(k, depth + 1) and _plain(v, depth + 1) for k, v in value.items())
    return False


def _plain_name(text: Any) -> bool:
    """Whether ``text`` is ASCII identifiers joined by dots, none a keyword."""
    return type(text) is str and all(
        part.isascii() and part.isidentifier() and not keyword.iskeyword(part)
        for part in text.split(".")
    )


def _plain_annotation(value: Any) -> bool:
    """Whether :func:`_annotation`'s text for ``value`` parses by construction."""
    if type(value) is str:
        return not value.isidentifier() or _plain_name(value)
    if isinstance(value, type):
        module = value.__module__
        return (module == "builtins" or _plain_name(module)) and _plain_name(value.__qualname__)
    return _plain(value)


class _Signature(NamedTuple):
    params: str  # the parameter list with the defaults and annotations that have a source form
    returns: str  # " -> annotation" or ""
    notes: list[str]  # comments for the defaults and annotations that have none
    bare: str  # the parameter list without defaults and annotations, as the decompiler writes it
    plain: bool  # whether the header with `params` and `returns` parses by construction
    # False where it cannot parse: a positional parameter written without a default (one that
    # has no source form) after one written with a default
    parses: bool = True


def _parameter_names(code: types.CodeType) -> tuple[tuple[str, ...], tuple[str, ...], Any, Any]:
    """The positional and keyword-only parameter names, and the ``*args`` and ``**kwargs`` names
    (None without)."""
    names = code.co_varnames
    argcount = code.co_argcount
    index = argcount + code.co_kwonlyargcount
    positional = names[:argcount]
    kwonly = names[argcount:index]
    flags = code.co_flags
    varargs = names[index] if flags & _CO_VARARGS else None
    index += 1 if varargs else 0
    varkw = names[index] if flags & _CO_VARKEYWORDS else None
    return positional, kwonly, varargs, varkw


def _join_parameters(
    code: types.CodeType, positional: Any, kwonly: Any, varargs: str | None, varkw: str | None
) -> str:
    """A parameter list from each parameter's text (``varargs``, ``varkw``: None without)."""
    parts = list(positional)
    if code.co_posonlyargcount:
        parts.insert(code.co_posonlyargcount, "/")
    if varargs is not None:
        parts.append("*" + varargs)
    elif kwonly:
        parts.append("*")
    parts += kwonly
    if varkw is not None:
        parts.append("**" + varkw)
    return ", ".join(parts)


def _signature_parts(func: types.FunctionType) -> _Signature:
    """The parameter list and return annotation of ``func`` with its defaults and annotations,
    and comments for the ones that have no source form (not literals)."""
    code = func.__code__
    positional, kwonly, varargs, varkw = _parameter_names(code)
    annotations = getattr(func, "__annotations__", None) or {}
    defaults = func.__defaults__ or ()
    kwdefaults = func.__kwdefaults__ or {}
    bare = _join_parameters(code, positional, kwonly, varargs or None, varkw or None)
    if not (annotations or defaults or kwdefaults):
        return _Signature(bare, "", [], bare, True)
    notes: list[str] = []
    plain: list[bool] = []  # per annotation and default written: whether it parses by construction
    written: list[bool] = []  # per parameter: whether it is written with a default

    def param(name: str, has_default: bool = False, default: Any = None) -> str:
        text = name
        if name in annotations:
            ann = _annotation(annotations[name])
            if ann is None:
                notes.append(f"annotation of {name}: a {type(annotations[name]).__name__}")
            else:
                text += f": {ann}"
                plain.append(_plain_annotation(annotations[name]))
        literal = _literal(default) if has_default else None
        if has_default and literal is None:
            notes.append(f"default of {name}: a {type(default).__name__} object, not a literal")
        elif has_default:
            text += f" = {literal}" if name in annotations else f"={literal}"
            plain.append(_plain(default))
        written.append(literal is not None)
        return text

    first_default = len(positional) - len(defaults)
    positional_texts = [
        param(name, i >= first_default, defaults[i - first_default] if i >= first_default else None)
        for i, name in enumerate(positional)
    ]
    # A positional parameter without a default after one with a default does not parse.
    ordered = True not in written or all(written[written.index(True) :])
    plain.append(ordered)
    varargs_text = param(varargs) if varargs else None
    kwonly_texts = [param(name, name in kwdefaults, kwdefaults.get(name)) for name in kwonly]
    varkw_text = param(varkw) if varkw else None
    params = _join_parameters(code, positional_texts, kwonly_texts, varargs_text, varkw_text)
    returns = ""
    if "return" in annotations:
        ann = _annotation(annotations["return"])
        returns = f" -> {ann}" if ann else ""
        plain.append(not ann or _plain_annotation(annotations["return"]))
    plain += [note.isprintable() for note in notes]  # a comment line stays one line
    return _Signature(params, returns, notes, bare, all(plain), ordered)


def _def_line(source: str, name: str) -> tuple[int, int, str, str] | None:
    r"""The first line ``{indent}{async }def {name}(...):`` (or ``...) -> ...:``) of ``source``:
    its start, its end, its indent and its ``async `` or "". The same line as the pattern
    ``^([ \t]*)(async )?def NAME\(.*\)(?: -> .*)?:$`` (re.M) finds, without compiling a
    pattern per name."""
    needle = f"def {name}("
    at = source.find(needle)
    while at >= 0:
        start = source.rfind("\n", 0, at) + 1
        indent = source[start:at]
        is_async = indent.endswith("async ")
        indent = indent[:-6] if is_async else indent
        if not indent.strip(" \t"):
            end = source.find("\n", at + len(needle))
            end = len(source) if end < 0 else end
            rest = source[at + len(needle) : end]
            if rest.endswith("):") or (rest.endswith(":") and ") -> " in rest[:-1]):
                return start, end, indent, "async " if is_async else ""
        at = source.find(needle, at + 1)
    return None


def _with_signature(source: str, func: types.FunctionType) -> str:
    """Puts ``func``'s defaults and annotations, which live on the function object rather than
    in its code, into the header of its decompiled ``def``.

    The new header is kept only where the source still compiles. Where the header is the
    decompiler's own (its parameters without defaults, the function and free variables plain
    names) and every default and annotation written parses by construction, it does: the rest
    of the source is the decompiler's, which compiles. Otherwise the source is compiled."""
    code = func.__code__
    if not (func.__defaults__ or func.__kwdefaults__ or func.__annotations__):
        return _with_bare_signature(source, code)
    try:
        signature = _signature_parts(func)
    except (AttributeError, IndexError, TypeError):
        return source
    if not signature.parses:  # compile() would raise SyntaxError: the source as it is
        return source
    found = _def_line(source, code.co_name)
    if not found:
        return source
    start, end, indent, is_async = found
    comments = "".join(f"{indent}# {note}\n" for note in signature.notes)
    header = f"{indent}{is_async}def {code.co_name}("
    new_header = f"{header}{signature.params}){signature.returns}:"
    candidate = source[:start] + comments + new_header + source[end:]
    if (
        signature.plain
        and source[start:end] == f"{header}{signature.bare}):"
        and code.co_name.isidentifier()
        and all(name.isidentifier() for name in code.co_freevars)
    ):
        return candidate
    try:
        compile(candidate, "<glassbox>", "exec")
    except SyntaxError:
        return source
    return candidate


def _with_bare_signature(source: str, code: types.CodeType) -> str:
    """:func:`_with_signature` for a function without defaults and annotations: the header it
    would write is the parameter list alone, which is the decompiler's own where it is the same
    text; otherwise the new header is kept where the source still compiles."""
    name = code.co_name
    try:
        if code.co_posonlyargcount or code.co_kwonlyargcount or code.co_flags & _CO_STARS:
            positional, kwonly, varargs, varkw = _parameter_names(code)
            bare = _join_parameters(code, positional, kwonly, varargs or None, varkw or None)
        else:  # positional parameters alone: _join_parameters' text, built directly
            bare = ", ".join(code.co_varnames[: code.co_argcount])
    except (AttributeError, IndexError, TypeError):
        return source
    plain_names = name.isidentifier() and (
        not code.co_freevars or all(free.isidentifier() for free in code.co_freevars)
    )
    header = f"def {name}({bare}):"
    if (
        source.startswith(header)
        and source.find("\n", 0, len(header) + 1) == len(header)
        and plain_names
    ):
        # The source's first line is the def: the line _def_line would find, already the
        # header written.
        return source
    found = _def_line(source, name)
    if not found:
        return source
    start, end, indent, is_async = found
    new_header = f"{indent}{is_async}def {name}({bare}):"
    if source[start:end] == new_header:
        if plain_names:
            return source
        candidate = source
    else:
        candidate = source[:start] + new_header + source[end:]
    try:
        compile(candidate, "<glassbox>", "exec")
    except SyntaxError:
        return source
    return candidate


_FunctionType = types.FunctionType


def decompile_detailed(obj: Any, *, readable: bool = False) -> Decompiled:
    """Like :func:`decompile`, but returns the fallbacks instead of warning about them."""
    function = inspect.unwrap(obj) if callable(obj) else None
    function = getattr(function, "__func__", function)
    if isinstance(function, types.FunctionType):
        result = _decompile_code(function.__code__, readable)
        return Decompiled(
            _with_signature(result.source, function), result.fallbacks, result.constants
        )
    return _decompile_code(obj, readable)


def _decompile_code(obj: Any, readable: bool = False) -> Decompiled:
    result = _exact_or_readable(obj, readable)
    if not readable:
        return result
    from glassbox.readable import readable as hoisted

    return result._replace(source=hoisted(result.source))


def _exact_or_readable(obj: Any, readable: bool) -> Decompiled:
    if isinstance(obj, (bytes, bytearray, memoryview)):
        if readable:
            raise TypeError("readable output is for code objects and functions, not .pyc bytes")
        source, fallbacks = _core.decompile_pyc(bytes(obj))
    elif isinstance(obj, str):
        raise TypeError("decompile takes a code object, a function or method, or .pyc bytes")
    else:
        code = _code_of(obj)
        pair = _core.decompile_code(code, readable)
        if pair is not None:
            return Decompiled(pair[0], [Fallback(*fallback) for fallback in pair[1]])
        try:
            data, constants = marshal.dumps(code), {}
        except ValueError:  # a live code object's constant marshal cannot carry: name it
            code, constants = name_constants(code)
            data = marshal.dumps(code)
        as_function = bool(code.co_flags & CO_NEWLOCALS)
        options = {"readable": True} if readable else {}
        source, fallbacks = _core.decompile_marshal(data, _running_minor(), as_function, **options)
        if constants:
            return Decompiled(
                _with_constant_names(source, constants),
                [Fallback(*fallback) for fallback in fallbacks],
                MappingProxyType(constants),
            )
    return Decompiled(source, [Fallback(*fallback) for fallback in fallbacks])


def decompile(obj: Any, *, readable: bool = False) -> str:
    """Python source that compiles back to ``obj``'s bytecode (or, with ``readable=True``,
    source that behaves the same, written as a person would).

    ``obj`` is one of:

    * the bytes of a whole ``.pyc`` file of CPython 3.10 to 3.13 (the version comes from its
      magic number): the module's whole source;
    * a module code object of the running interpreter (``compile(text, name, "exec")``): the
      module's whole source;
    * a function, method, generator or coroutine, or a function's code object: a ``def``
      (``lambda`` and comprehension code come out as a ``def`` too). Free variables are kept
      by an enclosing function that defines the cells.

    A live code object may hold constants marshal cannot carry (Dynamo puts objects such as a
    ``torch.device`` in ``co_consts``): each is named ``__glassbox_const_N`` in the source, and
    a comment at its top gives each name's object (its ``repr``). Bind the names to run the
    source; :func:`compile_with_constants` compiles it so that it loads the objects as
    constants, as the original does (:attr:`Decompiled.constants` has the objects).

    Regions the decompiler cannot reconstruct are emitted as marked fallbacks: the source is
    returned anyway and a :class:`glassbox.DecompileWarning` names each region (its
    ``fallbacks`` attribute lists them as :class:`Fallback`). Raises
    :class:`glassbox.BytecodeError` for malformed bytes and ``TypeError`` for other objects.

    ``readable=True`` (code objects and functions; for generated code such as Dynamo's) leaves
    out what only byte equality needs: the block that fixes the order of local names, the
    folded ``if True:`` tests, and values stored on their way (``(t := x).y``), which become
    statements (``t = x`` then ``t.y``). The source does the same operations in the same order,
    but does not recompile to the same bytecode.
    """
    # The common call, a function with no attributes of its own (so no `__wrapped__` or
    # `__func__`), in one crossing: its final source, or decompile_function's answer; False for
    # any other object, which the checks below take.
    if not readable:
        found = _core.decompile_plain_function(obj)
        if type(found) is str:
            return found
        if found is not False:
            source, fallbacks = _function_source(obj, found)
            if fallbacks:
                warnings.warn(DecompileWarning(fallbacks), stacklevel=2)
            return source
    # A plain function that decompile_detailed takes as it is (inspect.unwrap and the __func__
    # lookup leave it alone), checked inline: each Python call on its way costs.
    if (
        not readable
        and type(obj) is _FunctionType
        and not hasattr(obj, "__wrapped__")
        and not hasattr(obj, "__func__")
    ):
        found = _core.decompile_function(obj)
        if found is not None and found[2]:  # final: no fallbacks, the signature made in C++
            return found[0]
        source, fallbacks = _function_source(obj, found)
    else:
        result = decompile_detailed(obj, readable=readable)
        source, fallbacks = result.source, result.fallbacks
    if fallbacks:
        warnings.warn(DecompileWarning(fallbacks), stacklevel=2)
    return source


def _function_source(
    function: types.FunctionType, found: tuple[str, list[Any], bool] | None
) -> tuple[str, list[Fallback]]:
    """``decompile_detailed(function)``'s source and fallbacks, without building its result
    where the code is read from its fields or marshals (the common case: every constant is a
    plain builtin value). ``found`` is ``_core.decompile_function(function)``, not final (a
    final source is returned before this is called)."""
    code = function.__code__
    if found is not None:
        source, fallbacks, _ = found
    else:
        try:
            data = marshal.dumps(code)
        except ValueError:
            result = decompile_detailed(function)
            return result.source, result.fallbacks
        as_function = bool(code.co_flags & CO_NEWLOCALS)
        source, fallbacks = _core.decompile_marshal(data, _running_minor(), as_function)
    marked = [Fallback(*fallback) for fallback in fallbacks] if fallbacks else []
    if function.__defaults__ or function.__kwdefaults__ or function.__annotations__:
        return _with_signature(source, function), marked
    return _with_bare_signature(source, code), marked  # what _with_signature does for it


# -- constants marshal cannot carry ----------------------------------------------------------
# Each becomes a bytes placeholder (never a docstring, unlike a str) while the code is marshalled
# and decompiled; the source then names it, and compile_with_constants puts the object back.
CONSTANT_PREFIX = "__glassbox_const_"
_PLACEHOLDER_LITERAL = re.compile(r"""b(['"])(__glassbox_const_\d+)\1""")
_CONSTANT_NAME = re.compile(r"\b__glassbox_const_\d+\b")
# Where the compiler folds or tests a constant operand at compile time: a named constant there
# would not behave as the object once it is a literal.
_FOLDED_FIELDS = {
    ast.BinOp: ("left", "right"),
    ast.UnaryOp: ("operand",),
    ast.Subscript: ("value", "slice"),
    ast.BoolOp: ("values",),
    ast.If: ("test",),
    ast.While: ("test",),
    ast.IfExp: ("test",),
    ast.Assert: ("test",),
    ast.comprehension: ("ifs",),
    ast.FormattedValue: ("value",),
}


def _marshallable(value: object) -> bool:
    try:
        marshal.dumps(value)
    except ValueError:
        return False
    return True


def _placeholder_constants(code: types.CodeType, constants: dict[str, Any]) -> types.CodeType:
    consts = []
    for value in code.co_consts:
        if isinstance(value, types.CodeType):
            value = _placeholder_constants(value, constants)
        elif not _marshallable(value):
            name = next((n for n, v in constants.items() if v is value), None)
            if name is None:
                name = f"{CONSTANT_PREFIX}{len(constants)}"
                constants[name] = value
            value = name.encode()
        consts.append(value)
    return code.replace(co_consts=tuple(consts))


def name_constants(code: types.CodeType) -> tuple[types.CodeType, dict[str, Any]]:
    """``code`` with each constant marshal cannot carry (in nested code objects too) replaced by
    a placeholder, and the objects by the name the decompiled source gives them."""
    constants: dict[str, Any] = {}
    if _marshallable(code):
        return code, constants
    return _placeholder_constants(code, constants), constants


def _one_line_repr(value: object, limit: int = 100) -> str:
    try:
        text = repr(value)
    except Exception as error:  # a repr that fails still names the type
        text = f"<{type(value).__name__} object, repr failed: {error!r}>"
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _with_constant_names(source: str, constants: Mapping[str, Any]) -> str:
    """The decompiler's source with each placeholder literal written as its name, under a comment
    that says which object each name stands for."""
    named = _PLACEHOLDER_LITERAL.sub(lambda match: match.group(2), source)
    lines = ["# Constants of the code object that marshal cannot carry, named (bind the names to"]
    lines.append(
        "# run this source; glassbox.decompiler.compile_with_constants loads the objects):"
    )
    lines += [f"#   {name} = {_one_line_repr(value)}" for name, value in constants.items()]
    return "\n".join(lines) + "\n" + named


def _check_not_folded(tree: ast.AST, constants: Mapping[str, Any]) -> None:
    for node in ast.walk(tree):
        for field in _FOLDED_FIELDS.get(type(node), ()):
            value = getattr(node, field)
            for child in value if isinstance(value, list) else [value]:
                if isinstance(child, ast.Name) and child.id in constants:
                    raise ValueError(
                        f"{child.id} is an operand the compiler evaluates "
                        f"({type(node).__name__}.{field}): it cannot be compiled as a constant"
                    )


def _restored(value: object, objects: dict[bytes, Any]) -> object:
    if isinstance(value, types.CodeType):
        consts = tuple(_restored(item, objects) for item in value.co_consts)
        return value.replace(co_consts=consts)
    if type(value) is bytes:
        if value in objects:
            return objects[value]
        if CONSTANT_PREFIX.encode() in value:
            raise ValueError("the compiler folded a named constant into another constant")
    if type(value) in (tuple, frozenset):  # the compiler folds displays of constants
        return type(value)(_restored(item, objects) for item in value)
    return value


def compile_with_constants(
    source: str,
    filename: str,
    constants: Mapping[str, Any],
    mode: str = "exec",
    optimize: int = -1,
) -> types.CodeType:
    """Compile decompiled ``source`` so that each name of ``constants`` (see :func:`decompile`)
    is a constant holding its object, as in the code that was decompiled (``LOAD_CONST``, not a
    global). Compiled with ``dont_inherit=True`` at the ``optimize`` level (-1: the running
    interpreter's). Raises ``SyntaxError`` for bad source, and ``ValueError`` where a named
    constant is an operand the compiler would evaluate (``c + 1``, ``c[0]``, ``if c:``)."""
    if not constants:
        return compile(source, filename, mode, dont_inherit=True, optimize=optimize)
    _check_not_folded(ast.parse(source, filename, mode), constants)
    placeholders = _CONSTANT_NAME.sub(
        lambda match: repr(match.group(0).encode()) if match.group(0) in constants else match[0],
        source,
    )
    code = compile(placeholders, filename, mode, dont_inherit=True, optimize=optimize)
    objects = {name.encode(): value for name, value in constants.items()}
    return cast(types.CodeType, _restored(code, objects))
