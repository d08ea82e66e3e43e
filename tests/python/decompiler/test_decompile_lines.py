"""Decompiled source keeps the original's line numbers where it can: each statement starts on the
line it started on in the original (blank lines fill what comments and blank lines took), so
tracebacks, warnings and code that reads its own line numbers see the same lines.
"""

from __future__ import annotations

import textwrap
import traceback
import types

import glassbox

SOURCE = textwrap.dedent(
    '''
    """A module with comments and blank lines between its statements."""

    import traceback

    # A comment the decompiler cannot see.
    LIMIT = 3


    def decorate(function):
        return function


    @decorate
    def lines(n):
        """Docstring."""

        total = 0
        # one
        # two
        for k in range(n):

            if k % 2:
                # odd
                total += k
            total -= 1
        try:
            here = traceback.extract_stack(limit=1)[-1].lineno
        except KeyError:
            here = None
        return total, here


    class Box:

        size = LIMIT

        def fail(self):

            raise ValueError(self.size)
    '''
)


def _code_objects(code: types.CodeType) -> list[types.CodeType]:
    found = [code]
    for constant in code.co_consts:
        if isinstance(constant, types.CodeType):
            found.extend(_code_objects(constant))
    return found


def _lines(code: types.CodeType) -> list[int]:
    return [line for _, _, line in code.co_lines() if line is not None]


def test_statements_keep_their_lines() -> None:
    original = compile(SOURCE, "<original>", "exec")
    source = glassbox.decompile(original)
    decompiled = compile(source, "<decompiled>", "exec")
    pairs = list(zip(_code_objects(original), _code_objects(decompiled), strict=True))
    for before, after in pairs:
        assert after.co_firstlineno == before.co_firstlineno, after.co_qualname
        assert _lines(after) == _lines(before), after.co_qualname


def test_traceback_and_introspected_lines_match() -> None:
    original = compile(SOURCE, "<module>", "exec")
    decompiled = compile(glassbox.decompile(original), "<module>", "exec")
    results = []
    for code in (original, decompiled):
        namespace: dict = {}
        exec(code, namespace)
        try:
            namespace["Box"]().fail()
        except ValueError as error:
            failed_at = traceback.extract_tb(error.__traceback__)[-1].lineno
        results.append((namespace["lines"](5), failed_at))
    assert results[0] == results[1]


def test_readable_output_is_not_padded() -> None:
    def spaced():
        first = 1

        # a comment

        return first

    assert "\n\n" not in glassbox.decompile(spaced, readable=True)


def test_padding_is_bounded() -> None:
    # A statement two million lines down (a crafted line table can say anything) is printed
    # without the blank lines that would put it there.
    far = compile("x = 1\n" + "\n" * 2_000_000 + "y = 2\n", "<far>", "exec")
    source = glassbox.decompile(far)
    assert source.split() == ["x", "=", "1", "y", "=", "2"]
    assert len(source) < 100
