"""``_core.decompile_code`` reads a live code object's fields instead of its marshal.dumps: it
must decompile exactly as ``decompile_marshal`` does on those bytes, or decline (None)."""

from __future__ import annotations

import importlib
import inspect
import marshal
import sys
import types

import pytest

import glassbox
from glassbox import _core

# The versions the live reader is enabled for (cpp/bindings/live_code.cpp).
LIVE = sys.version_info[:2] == (3, 11)
CO_NEWLOCALS = 0x2

SOURCE = """
def sets(x, y):
    a = x in {"pear", "fig", "apple", "kiwi", "plum", "lime", "date", "quince", "yuzu"}
    b = y not in {1, 2.5, None, (1, "x"), b"q", -7, 3j, ..., True}
    return a, b, [v for v in x if v in {"u", "vv", "www"}]

def nested(n):
    k = 3
    def inner(m):
        return (lambda: m + k)() + 1e300 * -0.0
    return inner(n), {i: i * 2 for i in range(n)}, "caf\\u00e9 \\U0001f600"

f = lambda: 1; g = lambda: 1
"""


def _marshal_path(code: types.CodeType, readable: bool) -> object:
    as_function = bool(code.co_flags & CO_NEWLOCALS)
    return _core.decompile_marshal(
        marshal.dumps(code), sys.version_info.minor, as_function, readable
    )


def _codes() -> list[types.CodeType]:
    module = compile(SOURCE, "<live>", "exec")
    codes = [module] + [c for c in module.co_consts if isinstance(c, types.CodeType)]
    for name in ("ftplib", "typing", "pydoc", "html"):  # set constants of many strings
        mod = importlib.import_module(name)
        codes.append(compile(inspect.getsource(mod), mod.__file__ or name, "exec"))
    return codes


@pytest.mark.parametrize("readable", [False, True])
def test_same_as_the_marshal_path(readable: bool) -> None:
    for code in _codes():
        live = _core.decompile_code(code, readable)
        if not LIVE:
            assert live is None
            continue
        assert live is not None, code.co_name
        assert live == _marshal_path(code, readable), code.co_name


@pytest.mark.parametrize(
    "constant",
    [2**70, -(2**64), "lone \ud800 surrogate", frozenset({1, 1.5, "a"}), [1], object()],
)
def test_declines_or_agrees(constant: object) -> None:
    """Constants beyond the reader (big ints, lone surrogates, types marshal would not write as
    constants) make it decline; the public API then goes through marshal (or names them)."""
    code = compile("def f():\n    return C\n", "<live>", "exec").co_consts[0]
    consts = tuple(constant if c is None else c for c in code.co_consts) + (constant,)
    code = code.replace(co_consts=consts)
    live = _core.decompile_code(code)
    plain = type(constant) in (frozenset,)
    if LIVE and plain:
        assert live == _marshal_path(code, False)
    else:
        assert live is None
    function = types.FunctionType(code, {})
    assert glassbox.decompiler.decompile_detailed(function).source.startswith(
        ("def f", "# Constants")
    )


def test_not_a_code_object() -> None:
    assert _core.decompile_code(42) is None


def _functions(source: str) -> dict[str, types.FunctionType]:
    namespace: dict[str, object] = {}
    exec(compile(source, "<live>", "exec"), namespace)
    return {k: v for k, v in namespace.items() if isinstance(v, types.FunctionType)}


def test_decompile_function_final_only_where_the_signature_step_agrees() -> None:
    """``_core.decompile_function``'s third item says the source is final: then it is what
    ``_with_signature`` makes of ``decompile_code``'s source (the header with the literal
    defaults, or the decompiler's own), and nothing is final that it would compile to decide."""
    functions = _functions(
        "def plain(a, b):\n    return a + b\n"
        "def defaults(a, b=1, c=(2, 'x', [None, -0.5]), *d, e=b'q', f, **g):\n    return a\n"
        "def positional_only(a, b=True, /, c=None):\n    return b\n"
        "def keyword_only(a, *, b):\n    return b\n"
        "def star(*args, **kwargs):\n    return args\n"
        "async def coroutine(a, b=2):\n    return a\n"
        "def annotated(a: int):\n    return a\n"
        "def object_default(a=object()):\n    return a\n"
        "def set_default(a={1}):\n    return a\n"
        "def infinite(a=float('inf')):\n    return a\n"
        "def huge(a=10**5000):\n    return a\n"
        "def outer(x):\n    def inner(y=3):\n        return x + y\n    return inner\n"
        "def caf\u00e9(a):\n    return a\n"
    )
    functions["inner"] = functions["outer"](1)
    for module in (inspect, importlib.import_module("ftplib")):
        functions.update(
            {f"{module.__name__}.{k}": v for k, v in vars(module).items() if inspect.isfunction(v)}
        )
    finals = set()
    for name, function in functions.items():
        found = _core.decompile_function(function)
        if not LIVE:
            assert found is None
            continue
        assert found is not None, name
        source, fallbacks, final = found
        decompiled, decompiled_fallbacks = _core.decompile_code(function.__code__)
        assert fallbacks == decompiled_fallbacks, name
        if not final:
            assert source == decompiled, name
            continue
        finals.add(name)
        assert not fallbacks
        assert glassbox.decompiler._with_signature(decompiled, function) == source, name
    if LIVE:
        written = {"plain", "defaults", "positional_only", "keyword_only", "star", "coroutine"}
        assert written | {"inner", "inspect.ismodule"} <= finals
        assert not finals & {"annotated", "object_default", "set_default", "infinite", "huge"}
        assert "caf\u00e9" not in finals
        assert (
            "def defaults(a, b=1, c=(2, 'x', [None, -0.5]), *d, e=b'q', f, **g):"
            in (_core.decompile_function(functions["defaults"])[0])
        )
    assert _core.decompile_function(len) is None


def test_decompile_plain_function_is_decompile_function_in_one_answer() -> None:
    """``_core.decompile_plain_function`` (``decompile``'s common call) answers the final source
    as a str where ``decompile_function`` finds it final, else what that returns; False for what
    is not a function without attributes of its own (``decompile`` then takes its general path)."""
    functions = _functions(
        "def plain(a, b=1):\n    return a + b\n"
        "def annotated(a: int, *, b):\n    return a\n"
        "def tagged(a):\n    return a\n"
    )
    functions["tagged"].note = "an attribute of its own"
    for name in ("plain", "annotated"):
        function = functions[name]
        found = _core.decompile_function(function)
        answer = _core.decompile_plain_function(function)
        if found is not None and found[2]:
            assert answer == found[0] == glassbox.decompile(function), name
        else:
            assert answer == found, name
        assert (found is not None) == LIVE
    assert _core.decompile_plain_function(functions["tagged"]) is False
    assert _core.decompile_plain_function(len) is False
    assert _core.decompile_plain_function(functions["plain"].__code__) is False
    assert glassbox.decompile(functions["tagged"]).startswith("def tagged(a):")
