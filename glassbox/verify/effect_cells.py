"""Cells, closures and the functions made over them, for :mod:`glassbox.verify.effects`.

``("cell", name)`` is the frame's cell of that variable (capture only compares code objects with
the same cell and free variables). A free variable's cell is shared with the enclosing function
and whatever else closes over it: every read or write of it is an effect. The frame's own cells
(``co_cellvars``) are new when the frame starts, holding the argument where the cell is one;
until the frame hands the cell itself out (``LOAD_CLOSURE``, 3.13's ``LOAD_FAST`` of a cell
variable), nothing else can reach it, so reading and writing it is bookkeeping like a local.
Handing it out is an effect that records what it holds; every later read or write is an effect.

``MAKE_FUNCTION`` makes a new function and runs no other code (its module comes from the frame's
globals, a dict). Its term is the order functions were made in, its code (a
:class:`~glassbox.verify.effect_terms.CodeKey`) and its closure, defaults, keyword defaults and
annotations. ``__closure__`` is a read-only member of the exact function type: reading it back is
bookkeeping.
"""

from __future__ import annotations

import sys
from typing import Any

from glassbox.verify.effect_terms import CARRIED, NotShown, constant_term

UNBOUND = ("<unbound cell>",)
FUNCTION = "<function>"  # (FUNCTION, n, code key, ((attribute, term), ...))
# MAKE_FUNCTION's flags (3.10-3.12) and SET_FUNCTION_ATTRIBUTE's (3.13), popped top first.
ATTRIBUTES = ((0x08, "closure"), (0x04, "annotations"), (0x02, "kwdefaults"), (0x01, "defaults"))
FAST_OPS = frozenset(
    {"LOAD_FAST", "LOAD_FAST_CHECK", "LOAD_FAST_AND_CLEAR", "STORE_FAST", "DELETE_FAST"}
    | {"LOAD_FAST_LOAD_FAST", "STORE_FAST_LOAD_FAST", "STORE_FAST_STORE_FAST"}
)


class Cells:
    """The frame's cells: what each own cell holds while only the frame can reach it."""

    def __init__(self, cellvars: tuple[str, ...], freevars: tuple[str, ...], args: set) -> None:
        if len(set(cellvars) | set(freevars)) != len(cellvars) + len(freevars):
            raise NotShown("a name that is both a cell and a free variable")
        self.free = frozenset(freevars)
        self.names = self.free | frozenset(cellvars)
        self.held: dict[str, tuple] = {
            name: ("arg", name) if name in args else UNBOUND for name in cellvars
        }
        self.functions = 0

    def own(self, name: str) -> bool:
        """Whether ``name`` is a cell only this frame can reach."""
        return name in self.held

    def read(self, name: str) -> tuple:
        value = self.held[name]
        if value in (UNBOUND, CARRIED):
            raise NotShown(f"cell {name} may be empty or set by another loop iteration")
        return value


def _fast_names(argval: Any) -> tuple[str, ...]:
    return tuple(argval) if isinstance(argval, tuple) else (argval,)


def _hand_out(run: Any, name: str) -> None:
    """Pushes the cell itself; an own cell escapes (an effect with what it holds)."""
    cells: Cells = run.cells
    if name not in cells.names:
        raise NotShown(f"the cell of {name}, not a cell or free variable")
    if cells.own(name):
        if run.loop_depth:
            raise NotShown(f"cell {name} handed out inside a loop")
        held = cells.held.pop(name)
        if held == CARRIED:
            raise NotShown(f"cell {name} handed out after a loop that sets it")
        run.effect("cell escapes", name, held)
    run.stack.append(("cell", name))


def _deref_op(run: Any, name: str, variable: str) -> None:
    cells: Cells = run.cells
    own = cells.own(variable)
    if name == "LOAD_DEREF":
        run.stack.append(cells.read(variable) if own else run.effect("load_deref", variable))
    elif name == "STORE_DEREF":
        (value,) = run.pop()
        if own:
            cells.held[variable] = value
        else:
            run.effect("store_deref", variable, value)
    elif own:  # DELETE_DEREF: deleting an empty cell raises
        cells.read(variable)
        cells.held[variable] = UNBOUND
    else:
        run.effect("delete_deref", variable)


def _make_function(run: Any, flags: int) -> None:
    """MAKE_FUNCTION: [attributes by flag, code, (3.10: qualified name)] -> a function term."""
    if sys.version_info < (3, 11):
        run.pop()  # the qualified name: set by where the source put it, as co_qualname
    (code,) = run.pop()
    if code[:1] != ("code",):
        raise NotShown("MAKE_FUNCTION of something other than a code constant")
    attributes = {what: run.pop()[0] for flag, what in ATTRIBUTES if flags & flag}
    run.cells.functions += 1
    run.stack.append(_function(run.cells.functions, code[1], attributes))


def _function(number: int, code: Any, attributes: dict[str, tuple]) -> tuple:
    return (FUNCTION, number, code, tuple(sorted(attributes.items())))


def _set_function_attribute(run: Any, flag: int) -> None:
    """3.13: [value, function] -> the function with one more attribute set."""
    value, function = run.pop(2)
    what = dict((bit, name) for bit, name in ATTRIBUTES).get(flag)
    if function[:1] != (FUNCTION,) or what is None:
        raise NotShown("SET_FUNCTION_ATTRIBUTE on something other than a new function")
    attributes = dict(function[3])
    others = (*run.stack, *run.locals.values())
    if what in attributes or any(term[:2] == function[:2] for term in others):
        raise NotShown("SET_FUNCTION_ATTRIBUTE on a function already in use")
    attributes[what] = value
    run.stack.append(_function(function[1], function[2], attributes))


def _closure_read(run: Any, instruction: Any) -> bool:
    """``function.__closure__`` of a function this frame made: its closure tuple, or None."""
    method = instruction.opname == "LOAD_METHOD" or (
        sys.version_info >= (3, 12) and bool((instruction.arg or 0) & 1)
    )
    if instruction.argval != "__closure__" or method or not run.stack:
        return False
    function = run.stack[-1]
    if function[:1] != (FUNCTION,):
        return False
    run.stack[-1] = dict(function[3]).get("closure", constant_term(None))
    return True


def cell_op(run: Any, instruction: Any) -> bool:
    """Cells, closures and new functions; False if ``instruction`` is not one of these."""
    name, value = instruction.opname, instruction.argval
    if name == "LOAD_CLOSURE":
        _hand_out(run, value)
    elif name in FAST_OPS and sys.version_info >= (3, 11):
        cells = [n for n in _fast_names(value) if n in run.cells.names]
        if not cells:
            return False
        if name != "LOAD_FAST":  # 3.11+ share a slot with the cell: only 3.13's LOAD_CLOSURE
            raise NotShown(f"{name} of the slot of cell {cells[0]}")
        _hand_out(run, value)
    elif name in ("LOAD_DEREF", "STORE_DEREF", "DELETE_DEREF"):
        _deref_op(run, name, value)
    elif name == "MAKE_FUNCTION":
        _make_function(run, 0 if sys.version_info >= (3, 13) else instruction.arg or 0)
    elif name == "SET_FUNCTION_ATTRIBUTE":
        _set_function_attribute(run, instruction.arg or 0)
    elif name == "LOAD_ATTR":
        return _closure_read(run, instruction)
    else:
        return False
    return True


def cells_set(instruction: Any) -> tuple[str, ...]:
    """The cells an instruction stores or deletes."""
    if instruction.opname in ("STORE_DEREF", "DELETE_DEREF"):
        return (instruction.argval,)
    return ()
