"""Live code objects whose constants marshal cannot carry (Dynamo puts any object in co_consts):
each such constant is named in the decompiled source, and compile_with_constants loads the object
as a constant again, so the recompiled code is the original's."""

from __future__ import annotations

import marshal
import types

import pytest

import glassbox
from glassbox.decompiler import compile_with_constants, decompile_detailed
from glassbox.verify.normalize import compare


class Marker:
    """An object marshal cannot write."""

    def __repr__(self) -> str:
        return "Marker()"


MARKER = Marker()


def _with_constants(code: types.CodeType, replacements: dict) -> types.CodeType:
    """``code`` with constants replaced (nested code objects too): what Dynamo's code looks like."""
    consts = []
    for value in code.co_consts:
        if isinstance(value, types.CodeType):
            value = _with_constants(value, replacements)
        elif isinstance(value, (str, tuple)) and value in replacements:
            value = replacements[value]
        consts.append(value)
    return code.replace(co_consts=tuple(consts))


def _function(code: types.CodeType, name: str) -> types.CodeType:
    return next(c for c in code.co_consts if isinstance(c, types.CodeType) and c.co_name == name)


SOURCE = """
def outer(x):
    def inner(y):
        return call(y, "MARK")

    return inner(x), "MARK", ("MARK2", 1)
"""
# compiled without this file's ``from __future__ import annotations`` (a flag in co_flags)
ORIGINAL = _function(compile(SOURCE, "<original>", "exec", dont_inherit=True), "outer")
LIVE = _with_constants(ORIGINAL, {"MARK": MARKER, ("MARK2", 1): (MARKER, 1)})


def test_unmarshallable_constants_are_named():
    with pytest.raises(ValueError):
        marshal.dumps(LIVE)
    result = decompile_detailed(LIVE)
    assert not result.fallbacks
    assert dict(result.constants) == {
        "__glassbox_const_0": MARKER,
        "__glassbox_const_1": (MARKER, 1),
    }
    assert "#   __glassbox_const_0 = Marker()" in result.source
    assert "return call(y, __glassbox_const_0)" in result.source  # the same object, one name
    assert glassbox.decompile(LIVE) == result.source


def test_compiled_with_constants_is_the_original():
    result = decompile_detailed(LIVE)
    module = compile_with_constants(result.source, "<decompiled>", result.constants)
    recompiled = _function(module, "outer")
    assert compare(LIVE, recompiled, frozenset({"co_qualname"})).equal
    assert MARKER in recompiled.co_consts and (MARKER, 1) in recompiled.co_consts
    assert MARKER in _function(recompiled, "inner").co_consts
    namespace = {"call": lambda y, marker: (y, marker)}
    exec(module, namespace)
    assert namespace["outer"](3) == ((3, MARKER), MARKER, (MARKER, 1))


def test_a_named_first_constant_is_not_a_docstring():
    def first(x):
        return x

    code = first.__code__.replace(co_consts=(MARKER, *first.__code__.co_consts[1:]))
    source = decompile_detailed(code).source
    assert '"""' not in source and "'__glassbox_const_0'" not in source


@pytest.mark.parametrize(
    "statement", ["y = __glassbox_const_0[0]", "if __glassbox_const_0:\n    pass", "y = -c * 2"]
)
def test_folded_operands_are_refused(statement):
    constants = {"__glassbox_const_0": MARKER}
    if "__glassbox_const_0" not in statement:
        compile_with_constants(statement, "<s>", constants)  # nothing named: compiles as is
        return
    with pytest.raises(ValueError, match="__glassbox_const_0"):
        compile_with_constants(statement, "<s>", constants)


def test_marshallable_code_is_unchanged():
    result = decompile_detailed(ORIGINAL)
    assert not result.constants and "__glassbox_const" not in result.source
