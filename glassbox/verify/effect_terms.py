"""The symbolic values :mod:`glassbox.verify.effects` computes with, and its "no verdict" error.

A term is a tuple that says what a value is: ``("arg", name)``, ``("const", type, repr)``,
``("tuple", items)``, ``("value", scope, n)`` (what the n-th effect gave), and so on. Two runs
agree when their terms are equal. A code object (a nested function's body) is a :class:`CodeKey`,
equal to another exactly when ``verify.normalize`` finds the two trees equal.
"""

from __future__ import annotations

import types
from typing import Any

from glassbox.verify.normalize import compare

NULL = ("<null>",)
CARRIED = ("<carried>",)  # a local a loop body sets: unknown in the body before it is set, after
EXHAUSTED = ("<exhausted>",)  # 3.12+: what an exhausted FOR_ITER leaves for END_FOR
# A nested code object's qualified name follows where the source put it, as for the frame itself.
CODE_IGNORED_FIELDS = frozenset({"co_qualname"})
PLAIN_CONSTANTS = (int, float, complex, str, bytes, bool, type(None), type(...))


class NotShown(Exception):
    """The code does something this check does not model: no verdict."""


def constant_term(value: Any) -> tuple:
    if isinstance(value, PLAIN_CONSTANTS):
        return ("const", type(value).__name__, repr(value))
    if isinstance(value, tuple):
        return ("tuple", tuple(constant_term(item) for item in value))
    if isinstance(value, frozenset):
        return ("frozenset", tuple(sorted(repr(item) for item in value)))
    if isinstance(value, types.CodeType):
        return ("code", CodeKey(value))
    return ("object", id(value))  # named constants: the very object on both sides


def _plain_tree(code: types.CodeType) -> bool:
    """Whether every constant of the tree is one ``normalize`` compares by value exactly."""

    def plain(value: Any) -> bool:
        if isinstance(value, (tuple, frozenset)):
            return all(plain(item) for item in value)
        if isinstance(value, types.CodeType):
            return _plain_tree(value)
        return isinstance(value, PLAIN_CONSTANTS)

    return all(plain(value) for value in code.co_consts)


class CodeKey:
    """A nested function's code object, as a term: equal to another when both trees compare
    equal (instructions, constants, names, flags, nested code; the qualified name aside). A tree
    with a live constant (compared only by ``repr`` there) is not modelled."""

    def __init__(self, code: types.CodeType) -> None:
        if not _plain_tree(code):
            raise NotShown(f"nested code {code.co_name} with a constant of another type")
        self.code = code

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, CodeKey):
            return NotImplemented
        return self.code is other.code or compare(self.code, other.code, CODE_IGNORED_FIELDS).equal

    def __hash__(self) -> int:
        return hash((self.code.co_name, self.code.co_argcount))

    def __deepcopy__(self, memo: dict) -> CodeKey:
        return self  # immutable

    def __repr__(self) -> str:
        return f"CodeKey({self.code.co_name})"
