"""glassbox.decompile: every input kind, and source that recompiles to the original bytecode.

Sources are compiled with ``dont_inherit=True``: this file's ``from __future__ import annotations``
must not leak into the code under test.

"Equal" is the verifier's strict comparison (glassbox.verify.normalize): instructions, constants,
names, flags and nested code objects, line numbers aside.
"""

from __future__ import annotations

import ast
import functools
import importlib.util
import json
import marshal
import os
import subprocess
import textwrap
import types
import warnings
from typing import Any

import pytest

import glassbox
import glassbox.decompiler
from glassbox.verify import normalize, pythons

# name -> source defining a function of that name (at module level, so its qualname is its name).
FUNCTIONS = {
    "arith": "def arith(a, b):\n    return a * b + 1\n",
    "signature": "def signature(a, b=2, *args, c, d=4, **kw):\n    return (a, b, args, c, d, kw)\n",
    "docstring": 'def docstring(x):\n    """Say what it does."""\n    return x\n',
    "branches": """
        def branches(x):
            if x > 0:
                return 1
            elif x < 0:
                return -1
            return 0
        """,
    "for_loop": """
        def for_loop(xs):
            total = 0
            for x in xs:
                total += x
            return total
        """,
    "while_loop": """
        def while_loop(n):
            while n > 0:
                n -= 1
                if n == 5:
                    break
            return n
        """,
    "try_except": """
        def try_except(f):
            try:
                return f()
            except ValueError as error:
                return str(error)
        """,
    "with_block": """
        def with_block(path):
            with open(path) as handle:
                return handle.read()
        """,
    "comprehension": "def comprehension(xs):\n    return [x * 2 for x in xs if x]\n",
    "generator": "def generator(xs):\n    for x in xs:\n        yield x + 1\n",
    "calls": "def calls(f, a):\n    return f(a, 1, key=a.b, *a, **a)\n",
    "annotations": "def annotations(a: int, b: 'str' = '') -> list:\n    return [a, b]\n",
    "fstring": "def fstring(x, y):\n    return f'{x!r:>10} and {y}'\n",
    "try_finally": """
        def try_finally(lock, f):
            lock.acquire()
            try:
                f()
            finally:
                lock.release()
        """,
    "nested_def": """
        def nested_def(a):
            def helper(b):
                return a + b
            return helper
        """,
    "async_def": """
        async def async_def(session, urls):
            async with session:
                async for url in urls:
                    await session.get(url)
        """,
}

# The cases the core cannot reconstruct yet: xfail(strict=False), so they pass when it can.
NOT_YET: dict[str, str] = {}

MODULE = """
import os
from typing import Any

X = 1.5

def f(a, b=2):
    return os.path.join(a, str(b))

class K:
    def m(self, n: int):
        return self
"""


def function_from(source: str, name: str) -> Any:
    namespace: dict[str, Any] = {}
    exec(compile(textwrap.dedent(source), f"<{name}>", "exec", dont_inherit=True), namespace)
    return namespace[name]


def find_code(code: types.CodeType, name: str) -> types.CodeType:
    """The first code object called ``name`` in ``code``'s tree (depth first)."""
    if code.co_name == name:
        return code
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            try:
                return find_code(const, name)
            except LookupError:
                pass
    raise LookupError(name)


def assert_same_code(expected: types.CodeType, source: str, ignore: frozenset = frozenset()):
    recompiled = compile(source, "<decompiled>", "exec", dont_inherit=True)
    if expected.co_name != "<module>":
        recompiled = find_code(recompiled, expected.co_name)
    comparison = normalize.compare(expected, recompiled, ignore)
    assert comparison.equal, f"{comparison.first_difference.describe()}\n--- source:\n{source}"


def cases() -> list:
    return [
        pytest.param(name, marks=pytest.mark.xfail(reason=NOT_YET[name], strict=False))
        if name in NOT_YET
        else name
        for name in FUNCTIONS
    ]


@pytest.mark.parametrize("name", cases())
def test_function_round_trip(name: str) -> None:
    function = function_from(FUNCTIONS[name], name)
    source = glassbox.decompile(function)
    assert f"def {name}(" in source
    assert_same_code(function.__code__, source)


@pytest.mark.parametrize("name", cases())
def test_function_code_round_trip(name: str) -> None:
    code = function_from(FUNCTIONS[name], name).__code__
    assert_same_code(code, glassbox.decompile(code))


METHOD = """
class Holder:
    def method(self, a):
        return self, a
"""

CLOSURE = """
def outer():
    captured = 3

    def inner(x):
        return x + captured

    return inner
"""


def test_method() -> None:
    holder = function_from(METHOD, "Holder")
    source = glassbox.decompile(holder().method)
    assert "def method(self, a)" in source
    # Decompiled alone, the method is a plain def: its qualname loses the "Holder." prefix.
    assert_same_code(holder.method.__code__, source, frozenset({"co_qualname"}))


def test_closure_keeps_its_free_variables() -> None:
    inner = function_from(CLOSURE, "outer")()
    source = glassbox.decompile(inner)
    assert "def inner(x)" in source
    assert_same_code(inner.__code__, source, frozenset({"co_qualname"}))


# Parameter lists without defaults or annotations: the def line the source starts with.
BARE_HEADERS = [
    "def f():",
    "def f(a, b):",
    "def f(a, /, b):",
    "def f(a, *args):",
    "def f(*, k):",
    "def f(a, *args, k, **kw):",
    "async def f(a):",
]


@pytest.mark.parametrize("header", BARE_HEADERS)
def test_parameters_without_defaults(header: str) -> None:
    function = function_from(f"{header}\n    return 0\n", "f")
    source = glassbox.decompile(function)
    assert source.splitlines()[0] == header
    assert_same_code(function.__code__, source)


# (def line defining f, the def line decompile writes, whether a comment names a default without
# a source form): defaults and annotations with a source form go into the header; where a
# positional parameter whose default has none follows one with a default, that header would not
# parse, and the decompiler's own stays, as it is.
SIGNATURES = [
    ("def f(a, b=2, *, c: int = 3) -> str:", "def f(a, b=2, *, c: int = 3) -> str:", False),
    ("def f(a, b=SENTINEL, c=2):", "def f(a, b, c=2):", True),
    ("def f(a, b=2, c=SENTINEL):", "def f(a, b, c):", False),
    ("def f(a=1, /, b=SENTINEL, *, c=SENTINEL):", "def f(a, /, b, *, c):", False),
]


@pytest.mark.parametrize(("header", "written", "comment"), SIGNATURES)
def test_signature_in_the_header(header: str, written: str, comment: bool) -> None:
    source = f"SENTINEL = object()\n{header}\n    return 0\n"
    function = function_from(source, "f")
    decompiled = glassbox.decompile(function)
    lines = decompiled.splitlines()
    assert lines[1 if comment else 0] == written
    assert (lines[0] == "# default of b: a object object, not a literal") == comment
    assert_same_code(function.__code__, decompiled)


def _reads_back_by_parsing(value: object) -> bool:
    try:
        back = ast.literal_eval(repr(value))
    except (ValueError, SyntaxError, TypeError, RecursionError, MemoryError):
        return False
    return type(back) is type(value) and (back == value or (back != back and value != value))


_SELF_HOLDING: list[object] = [1]
_SELF_HOLDING.append(_SELF_HOLDING)
LITERALS = [
    None,
    True,
    -3,
    2**64,
    "a'b\ud800",
    b"\x00",
    1.5,
    -0.0,
    float("nan"),
    float("inf"),
    1j,
    (),
    (1,),
    [1, [2.5, "x"]],
    set(),
    {1, 2},
    {"k": (1, None)},
    {(1, 2): [b"", False]},
    frozenset({1}),
    [float("inf")],
    (float("nan"),),
    [1j],
    _SELF_HOLDING,
    [[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]],
    object(),
    int,
    range(3),
]


@pytest.mark.parametrize("value", LITERALS, ids=range(len(LITERALS)))
def test_default_literals_read_back(value: object) -> None:
    """A default or annotation is written as its repr exactly where that reads back equal and of
    the same type (known for plain values without parsing; parsed otherwise)."""
    text = glassbox.decompiler._literal(value)
    assert (text is not None) == _reads_back_by_parsing(value)
    assert text is None or text == repr(value)


def test_wrapper_decompiles_the_wrapped_function() -> None:
    function = function_from("def f(a, b=2):\n    return a + b\n", "f")
    wrapper = functools.wraps(function)(lambda *args: function(*args))
    source = glassbox.decompile(function)
    assert source.startswith("def f(a, b=2):")
    assert glassbox.decompile(wrapper) == source


def test_module_code_round_trip() -> None:
    code = compile(MODULE, "<module-test>", "exec", dont_inherit=True)
    source = glassbox.decompile(code)
    assert "def f(a, b=2)" in source and "class K" in source
    assert_same_code(code, source)


def pyc_of(code: types.CodeType) -> bytes:
    return importlib.util.MAGIC_NUMBER + b"\0" * 12 + marshal.dumps(code)


def test_pyc_bytes_round_trip() -> None:
    code = compile(MODULE, "<module-test>", "exec", dont_inherit=True)
    for data in (pyc_of(code), bytearray(pyc_of(code)), memoryview(pyc_of(code))):
        assert_same_code(code, glassbox.decompile(data))


# Compiles MODULE in another interpreter, and judges the source decompiled here, there.
OTHER_VERSION = """
import importlib.util, json, marshal, sys
sys.path.insert(0, sys.argv[1])
import normalize
request = json.loads(sys.stdin.read())
code = compile(request["module"], "<module-test>", "exec")
if request.get("source") is None:
    pyc = importlib.util.MAGIC_NUMBER + bytes(12) + marshal.dumps(code)
    sys.stdout.write(pyc.hex())
else:
    d = normalize.compare(code, compile(request["source"], "<decompiled>", "exec"))
    sys.stdout.write(json.dumps(d.first_difference.describe() if d.first_difference else None))
"""


@pytest.mark.parametrize("minor", [10, 11, 12, 13])
def test_pyc_of_another_version(minor: int) -> None:
    found = pythons.find_version(minor)
    if found is None:
        pytest.skip(f"no Python 3.{minor}")

    def ask(source: str | None) -> str:
        return subprocess.run(
            [found.executable, "-I", "-c", OTHER_VERSION, os.path.dirname(normalize.__file__)],
            input=json.dumps({"module": MODULE, "source": source}),
            capture_output=True,
            text=True,
            check=True,
        ).stdout

    source = glassbox.decompile(bytes.fromhex(ask(None)))
    assert json.loads(ask(source)) is None


def test_bad_inputs() -> None:
    with pytest.raises(TypeError):
        glassbox.decompile("x = 1")
    with pytest.raises(TypeError):
        glassbox.decompile(42)
    with pytest.raises(glassbox.BytecodeError):
        glassbox.decompile(b"\x00\x01\x02")


class FakeCore:
    """Stands in for glassbox._core: a result with one fallback region."""

    def decompile_code(self, code: types.CodeType, readable: bool = False) -> None:
        return None  # declines: the code goes through marshal

    def decompile_function(self, function: types.FunctionType) -> None:
        return None  # declines likewise

    def decompile_plain_function(self, function: object) -> bool | None:
        # Declines a function likewise; False for anything else, as the real one answers.
        return None if type(function) is types.FunctionType else False

    def decompile_marshal(self, data: bytes, minor: int, as_function: bool):
        kind = "def" if as_function else "module"
        return f"# {kind}\nx = 1\n", [("f", 3, "irreducible control flow")]

    def decompile_pyc(self, data: bytes):
        return "x = 1\n", [("<module>", 1, "unknown opcode")]


def test_fallbacks_warn_and_return_the_source(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(glassbox.decompiler, "_core", FakeCore())
    with pytest.warns(glassbox.DecompileWarning, match="irreducible control flow") as record:
        source = glassbox.decompile(lambda: None)
    assert source == "# def\nx = 1\n"
    assert record[0].message.fallbacks == [("f", 3, "irreducible control flow")]
    with pytest.warns(glassbox.DecompileWarning, match="unknown opcode"):
        glassbox.decompile(b"pyc")
    with pytest.warns(glassbox.DecompileWarning):
        assert glassbox.decompile(compile("", "<m>", "exec")) == "# module\nx = 1\n"
    detailed = glassbox.decompiler.decompile_detailed(lambda: None)
    assert detailed.fallbacks == [glassbox.decompiler.Fallback("f", 3, "irreducible control flow")]


def test_no_warning_on_full_success(monkeypatch: pytest.MonkeyPatch) -> None:
    class Clean(FakeCore):
        def decompile_marshal(self, data: bytes, minor: int, as_function: bool):
            return "x = 1\n", []

    monkeypatch.setattr(glassbox.decompiler, "_core", Clean())
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert glassbox.decompile(lambda: None) == "x = 1\n"
