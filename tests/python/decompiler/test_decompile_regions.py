"""A statement the decompiler cannot reconstruct falls back alone: the statements before it are
source that runs as the original's, the region raises, and what follows it is still source.

The undecodable statement is made by hand: `z = 2` in the compiled function is overwritten with
a RERAISE outside any handler (and a NOP), which no Python source compiles to.
"""

from __future__ import annotations

import dis
import types
import warnings

import pytest

import glassbox
from glassbox import DecompileWarning


def _with_undecodable_assignment(function: types.FunctionType) -> types.FunctionType:
    code = function.__code__
    raw = bytearray(code.co_code)
    instructions = list(dis.get_instructions(code))
    for load, store in zip(instructions, instructions[1:], strict=False):
        if load.opname == "LOAD_CONST" and load.argval == 2 and store.opname == "STORE_FAST":
            raw[load.offset : load.offset + 2] = bytes([dis.opmap["RERAISE"], 0])
            raw[store.offset : store.offset + 2] = bytes([dis.opmap["NOP"], 0])
            break
    else:
        raise AssertionError("no `z = 2` to overwrite")
    return types.FunctionType(code.replace(co_code=bytes(raw)), function.__globals__)


def rec(value: object) -> None:  # the decompiled copies get their own
    raise AssertionError("only the decompiled functions run")


def _plain(x):
    rec("before")
    if x:
        z = 2  # noqa: F841
    rec("after")
    for y in x:
        rec(y)
    return x


def _generator(x):
    rec("before")
    if x:
        z = 2  # noqa: F841
    yield x


def _decompile(function: types.FunctionType) -> tuple[str, list[DecompileWarning]]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        source = glassbox.decompile(function)
    return source, [w.message for w in caught if isinstance(w.message, DecompileWarning)]


def _load(source: str, name: str, calls: list) -> types.FunctionType:
    namespace: dict = {"rec": calls.append}
    exec(compile(source, "<decompiled>", "exec"), namespace)
    return namespace[name]


def test_the_statements_around_a_failed_region_are_source() -> None:
    source, warned = _decompile(_with_undecodable_assignment(_plain))
    assert len(warned) == 1 and len(warned[0].fallbacks) == 1, source
    assert "could not reconstruct line" in source
    raise_at = source.index("raise NotImplementedError")
    assert source.index("rec('before')") < raise_at < source.index("rec('after')")
    assert "for y in x:" in source[raise_at:]
    calls: list = []
    with pytest.raises(NotImplementedError):
        _load(source, "_plain", calls)([])
    assert calls == ["before"]  # what ran before the region, and nothing after it


def test_a_generator_stays_a_generator_when_its_yield_is_past_the_region() -> None:
    source, warned = _decompile(_with_undecodable_assignment(_generator))
    assert warned, source
    calls: list = []
    made = _load(source, "_generator", calls)([])
    assert isinstance(made, types.GeneratorType) and calls == []
    with pytest.raises(NotImplementedError):
        next(made)
    assert calls == ["before"]
