"""Whether two code objects do the same thing, when their bytecode differs only in bookkeeping.

Dynamo's transformed code keeps values on the stack where source must name them, deletes locals
whose values are still on the stack, and loads its own globals early; no source recompiles to
that bytecode exactly. This module runs straight-line code symbolically and compares what it
*does*: every operation that can run other code or be seen outside the frame (a call, an
attribute or item read or write, an arithmetic operator, a global or shared cell read, an
import, a container built or mutated) is an effect, recorded in order with the symbolic values
it takes; locals, the stack, constants and tuples are bookkeeping that only moves values between
effects. Two code objects whose effects and returned value are equal, step for step, behave
alike. Lists and dicts the frame builds (``effect_lists``, ``effect_dicts``), its cells and new
functions (``effect_cells``) and Dynamo's own hooks and graph outputs (``effect_dynamo``) are
modelled in their own modules.

The check is conservative: a branch, an exception handler, a generator, or any instruction not
listed below means "not shown", never "equal". Two exceptions to strict ordering are Dynamo's
own facts: globals whose names Dynamo installs (``__compiled_fn_*``, ``__resume_at_*``,
``__import_*``, ``__builtins_dict_*``) are bound before the frame runs and never rebound, so
reading them is bookkeeping too; and ``del`` of a local only ends a lifetime (a value may then be
freed later, never computed differently), so deletions are ignored.
"""

from __future__ import annotations

import copy
import dis
import sys
import types
from collections.abc import Callable
from typing import Any

from glassbox.verify import effect_dynamo as dynamo
from glassbox.verify.effect_cells import Cells, cell_op, cells_set
from glassbox.verify.effect_dicts import Dicts
from glassbox.verify.effect_lists import LIST, LIST_METHODS, Lists
from glassbox.verify.effect_terms import CARRIED, EXHAUSTED, NULL, NotShown, constant_term

DYNAMO_GLOBAL_PREFIXES = ("__compiled_fn_", "__resume_at_", "__import_", "__builtins_dict_")
CO_GENERATOR_LIKE = 0x20 | 0x80 | 0x100 | 0x200  # generators, coroutines, async generators
BOOKKEEPING = frozenset(
    {
        "NOP",
        "RESUME",
        "CACHE",
        "EXTENDED_ARG",
        "PRECALL",
        "MAKE_CELL",
        "COPY_FREE_VARS",
        "NOT_TAKEN",
    }
)
MAX_PATHS = 64
# name -> (test, the test's outcome on which it jumps, whether the tested value stays on a jump)
CONDITIONAL_JUMPS = {
    f"{prefix}IF_{kind}": (test, outcome, False)
    for prefix in ("POP_JUMP_", "POP_JUMP_FORWARD_", "POP_JUMP_BACKWARD_")
    for kind, test, outcome in (
        ("TRUE", "truth", True),
        ("FALSE", "truth", False),
        ("NONE", "is None", True),
        ("NOT_NONE", "is None", False),
    )
}
CONDITIONAL_JUMPS.update(
    {
        "JUMP_IF_TRUE_OR_POP": ("truth", True, True),
        "JUMP_IF_FALSE_OR_POP": ("truth", False, True),
    }
)
MUTATIONS = frozenset(
    {"LIST_EXTEND", "LIST_APPEND", "SET_UPDATE", "SET_ADD", "DICT_UPDATE", "DICT_MERGE"}
)
EMPTY_UPDATES = frozenset({"LIST_EXTEND", "SET_UPDATE"})
EMPTY_TUPLE = ("tuple", ())
OPERATOR_OPS = frozenset(
    {
        "BINARY_OP",
        "COMPARE_OP",
        "IS_OP",
        "CONTAINS_OP",
        "UNARY_NEGATIVE",
        "UNARY_NOT",
        "UNARY_INVERT",
        "UNARY_POSITIVE",
        "TO_BOOL",
        "GET_ITER",
        "FORMAT_SIMPLE",
        "CALL_INTRINSIC_1",
    }
)
BINARY_OPS_310 = {name for name in dis.opname if name.startswith(("BINARY_", "INPLACE_"))}


class _Run:
    """One symbolic run of a straight-line code object."""

    def __init__(self, code: types.CodeType) -> None:
        self.code = code
        self.stack: list[tuple] = []
        self.locals: dict[str, tuple] = {}
        self.effects: list[tuple] = []
        self.kw_names: tuple = ()
        self.lists = Lists()
        self.dicts = Dicts()
        self.scope: tuple = ()  # which loop body the effects being recorded belong to
        self.loops = 0
        self.loop_depth = 0
        self.forks = 0
        nargs = code.co_argcount + code.co_kwonlyargcount
        nargs += bool(code.co_flags & 0x04) + bool(code.co_flags & 0x08)
        for name in code.co_varnames[:nargs]:
            self.locals[name] = ("arg", name)
        self.cells = Cells(code.co_cellvars, code.co_freevars, set(code.co_varnames[:nargs]))
        self.dynamo = dynamo.DynamoBookkeeping()

    def effect(self, *what: Any) -> tuple:
        """Record an effect and return the symbolic value it produces. Known lists and dicts it
        is given escape (see :mod:`glassbox.verify.effect_lists`, ``effect_dicts``), and so do
        those held in them."""
        self.dynamo.seen(what)
        seen: Any = what
        while True:
            escaped = self.dicts.escape(self.lists.escape(seen))
            if escaped == seen:
                break
            seen = escaped
        self.effects.append(seen)
        return ("value", self.scope, len(self.effects) - 1)

    def pop(self, n: int = 1) -> list[tuple]:
        if n > len(self.stack):
            raise NotShown("stack underflow")
        if n == 0:
            return []
        items = self.stack[-n:]
        del self.stack[-n:]
        return items

    def load_local(self, name: str) -> tuple:
        value = self.locals.get(name, CARRIED)
        if value == CARRIED:
            raise NotShown(f"local {name} may be unbound or set by another loop iteration")
        return value


def _name_of_global(instruction: dis.Instruction) -> str:
    return instruction.argval if isinstance(instruction.argval, str) else str(instruction.argval)


def _callee(run: _Run, args: list[tuple]) -> tuple[tuple, list[tuple]]:
    """Pops the two slots under a call's arguments (3.11+, and 3.10's CALL_METHOD): the callable
    and the self or NULL beside it, in the version's order."""
    first, second = run.pop(2)
    if sys.version_info >= (3, 13):
        return first, args if second == NULL else [second, *args]
    if first == NULL:
        return second, args
    return first, [second, *args]


def _call(run: _Run, argc: int, kw_names: tuple) -> None:
    callable_, args = _callee(run, run.pop(argc))
    if len(callable_) == 3 and callable_[0] == LIST:  # list.append / list.extend
        if len(args) == 1 and not kw_names:
            if not run.lists.call(callable_, tuple(args), kw_names):
                run.effect("mutate", f"LIST_{callable_[2].upper()}", callable_[1], args[0])
            run.stack.append(constant_term(None))
            return
        callable_ = run.effect("getattr", callable_[1], callable_[2])
    run.stack.append(_call_effect(run, callable_, args, kw_names))


def _call_effect(run: _Run, callable_: tuple, args: list[tuple] | tuple, kw_names: tuple) -> tuple:
    """A call (one of Dynamo's profiler hooks is recorded apart); its value."""
    value = dynamo.hook_call(run, callable_, list(args), kw_names)
    if value is None:
        value = run.effect("call", callable_, tuple(args), kw_names)
        dynamo.note_call(run, callable_, value)
    return value


def _load_global(run: _Run, instruction: dis.Instruction) -> None:
    name = _name_of_global(instruction)
    with_null = sys.version_info >= (3, 11) and instruction.arg & 1
    if with_null and sys.version_info < (3, 13):
        run.stack.append(NULL)
    if name.startswith(DYNAMO_GLOBAL_PREFIXES):
        run.stack.append(("global", name))
    else:
        run.stack.append(run.effect("load_global", name))
    if with_null and sys.version_info >= (3, 13):
        run.stack.append(NULL)


def _load_attr(run: _Run, instruction: dis.Instruction, method: bool) -> None:
    (obj,) = run.pop()
    hook = dynamo.hook(run, obj, instruction.argval)
    if run.lists.of(obj) is not None and instruction.argval in LIST_METHODS:
        value: tuple = (LIST, obj, instruction.argval)  # called at once (or made an effect)
    else:
        value = hook or run.effect("getattr", obj, instruction.argval)
    # A method load and an attribute load followed by a call do the same; model both as the
    # bound attribute, called with no extra self.
    if method and sys.version_info >= (3, 13):
        run.stack += [value, NULL]
    elif method:
        run.stack += [NULL, value]
    else:
        run.stack.append(value)


def _stack_op(run: _Run, name: str, arg: int) -> bool:
    """Stack and local bookkeeping; False if ``name`` is not one of these."""
    stack = run.stack
    if name == "POP_TOP":
        run.pop()
    elif name == "PUSH_NULL":
        stack.append(NULL)
    elif name in ("COPY", "DUP_TOP"):
        depth = arg if name == "COPY" else 1
        if depth > len(stack):
            raise NotShown("stack underflow")
        stack.append(stack[-depth])
    elif name == "SWAP":
        if arg > len(stack):
            raise NotShown("stack underflow")
        stack[-1], stack[-arg] = stack[-arg], stack[-1]
    elif name in ("ROT_TWO", "ROT_THREE", "ROT_FOUR"):
        n = {"ROT_TWO": 2, "ROT_THREE": 3, "ROT_FOUR": 4}[name]
        items = run.pop(n)
        stack += [items[-1], *items[:-1]]
    else:
        return False
    return True


def _local_op(run: _Run, instruction: dis.Instruction) -> bool:
    name, value = instruction.opname, instruction.argval
    if name in ("LOAD_FAST", "LOAD_FAST_CHECK"):
        run.stack.append(run.load_local(value))
    elif name == "LOAD_FAST_LOAD_FAST":
        run.stack += [run.load_local(value[0]), run.load_local(value[1])]
    elif name == "STORE_FAST":
        run.locals[value] = run.pop()[0]
    elif name == "STORE_FAST_STORE_FAST":
        first, second = run.pop(2)
        run.locals[value[0]], run.locals[value[1]] = second, first
    elif name == "STORE_FAST_LOAD_FAST":
        run.locals[value[0]] = run.pop()[0]
        run.stack.append(run.load_local(value[1]))
    elif name == "DELETE_FAST":
        run.load_local(value)  # deleting an unbound local raises: not modelled
        del run.locals[value]
    elif name == "LOAD_CONST":
        run.stack.append(constant_term(value))
    elif name == "RETURN_CONST":
        run.effect("return", constant_term(value))
    else:
        return False
    return True


def _build_op(run: _Run, instruction: dis.Instruction) -> bool:
    name, arg = instruction.opname, instruction.arg or 0
    if name == "BUILD_TUPLE":
        run.stack.append(("tuple", tuple(run.pop(arg))))
    elif name == "BUILD_LIST":
        run.stack.append(run.lists.build(run.pop(arg)))
    elif name in ("BUILD_SET", "BUILD_MAP"):  # hashing the items may call __hash__
        items = run.pop(arg * 2 if name == "BUILD_MAP" else arg)
        known = run.dicts.build(items) if name == "BUILD_MAP" else None
        run.stack.append(known or run.effect("build", name, tuple(items)))
    elif name == "BUILD_CONST_KEY_MAP":  # the same dict as BUILD_MAP of the pairs
        keys, values = run.pop()[0], run.pop(arg)
        if keys[:1] != ("tuple",) or len(keys[1]) != arg:
            raise NotShown("BUILD_CONST_KEY_MAP without a tuple of keys")
        pairs = [item for pair in zip(keys[1], values, strict=True) for item in pair]
        known = run.dicts.build(pairs)
        run.stack.append(known or run.effect("build", "BUILD_MAP", tuple(pairs)))
    elif name == "BUILD_SLICE":
        run.stack.append(("slice", tuple(run.pop(arg))))
    elif name == "BUILD_STRING":
        run.stack.append(run.effect("build", name, tuple(run.pop(arg))))
    elif name in MUTATIONS:
        (value,) = run.pop()
        if arg > len(run.stack):
            raise NotShown("stack underflow")
        target = run.stack[-arg]
        method = (LIST, target, "append" if name == "LIST_APPEND" else "extend")
        if name in EMPTY_UPDATES and value == EMPTY_TUPLE:  # {*()}: adds nothing, runs nothing
            pass
        elif name in ("DICT_MERGE", "DICT_UPDATE") and run.dicts.merge(
            target, value, strict=name == "DICT_MERGE"
        ):
            pass
        elif not (name.startswith("LIST_") and run.lists.call(method, (value,), ())):
            run.effect("mutate", name, target, value)
    elif name == "LIST_TO_TUPLE":
        (value,) = run.pop()
        items = run.lists.of(value)
        known = ("tuple", tuple(items)) if items is not None else None
        run.stack.append(known or run.effect("tuple_of", value))
    elif name == "UNPACK_SEQUENCE":
        source = run.effect("unpack", run.pop()[0], arg)
        run.stack += [("item", source, i) for i in reversed(range(arg))]
    else:
        return False
    return True


def _access_op(run: _Run, instruction: dis.Instruction) -> bool:
    name, value, arg = instruction.opname, instruction.argval, instruction.arg or 0
    if name == "LOAD_GLOBAL":
        _load_global(run, instruction)
    elif name == "LOAD_NAME":
        run.stack.append(run.effect("load_name", value))
    elif name == "LOAD_ATTR":
        _load_attr(run, instruction, sys.version_info >= (3, 12) and bool(arg & 1))
    elif name == "LOAD_METHOD":
        _load_attr(run, instruction, True)
    elif name == "STORE_ATTR":
        obj, stored = run.pop(2)[::-1]
        run.effect("setattr", obj, value, stored)
    elif name == "DELETE_ATTR":
        run.effect("delattr", run.pop()[0], value)
    elif name in ("BINARY_SUBSCR", "BINARY_SLICE"):
        container, *key = run.pop(2 if name == "BINARY_SUBSCR" else 3)
        index = key[0] if len(key) == 1 else ("slice", tuple(key))
        read = run.lists.read(container, index) or dynamo.graph_output(run, container, index)
        run.stack.append(read if read is not None else run.effect("getitem", container, index))
    elif name in ("STORE_SUBSCR", "STORE_SLICE"):
        stored, container, *key = run.pop(3 if name == "STORE_SUBSCR" else 4)
        index = key[0] if len(key) == 1 else ("slice", tuple(key))
        if not run.lists.write(container, index, stored):
            run.effect("setitem", container, index, stored)
    elif name == "DELETE_SUBSCR":
        container, index = run.pop(2)
        if not run.lists.write(container, index, None):
            run.effect("delitem", container, index)
    else:
        return False
    return True


def _other_op(run: _Run, instruction: dis.Instruction) -> bool:
    name, arg = instruction.opname, instruction.arg or 0
    if name in OPERATOR_OPS or (sys.version_info < (3, 11) and name in BINARY_OPS_310):
        count = 2 if name.startswith(("BINARY", "INPLACE", "COMPARE", "IS_", "CONTAINS")) else 1
        run.stack.append(run.effect("operator", name, arg, tuple(run.pop(count))))
    elif name == "KW_NAMES":
        run.kw_names = instruction.argval
    elif name in ("CALL", "CALL_KW"):
        kw_names = run.pop()[0] if name == "CALL_KW" else run.kw_names
        _call(run, arg, kw_names)
        run.kw_names = ()
    elif name == "CALL_METHOD":  # 3.10: [NULL or method, bound or self, args]
        _call(run, arg, ())
    elif name in ("CALL_FUNCTION", "CALL_FUNCTION_KW"):  # 3.10: [callable, args, (names)]
        kw_names = run.pop()[0] if name == "CALL_FUNCTION_KW" else ()
        args = run.pop(arg)
        (callable_,) = run.pop()
        run.stack.append(_call_effect(run, callable_, args, kw_names))
    elif name == "CALL_FUNCTION_EX":
        kwargs = run.pop()[0] if arg & 1 else None
        (positional,) = run.pop()
        if sys.version_info >= (3, 11):
            callable_, _ = _callee(run, [])
        else:
            (callable_,) = run.pop()
        items = run.lists.of(positional)  # the call makes a tuple of a list
        positional = ("tuple", tuple(items)) if items is not None else positional
        if positional[:1] == ("tuple",) and kwargs is None:  # f(*(a, b)) is f(a, b)
            run.stack.append(_call_effect(run, callable_, positional[1], ()))
        else:
            run.stack.append(run.effect("call_ex", callable_, positional, kwargs))
    elif name == "FORMAT_VALUE":
        spec = run.pop()[0] if arg & 0x04 else None
        run.stack.append(run.effect("format", arg & 0x03, run.pop()[0], spec))
    elif name in ("IMPORT_NAME", "IMPORT_FROM"):
        operands = tuple(run.pop(2)) if name == "IMPORT_NAME" else (run.stack[-1],)
        run.stack.append(run.effect(name, instruction.argval, operands))
    elif name == "RETURN_VALUE":
        run.effect("return", run.pop()[0])
    else:
        return False
    return True


STEPS: tuple[Callable[[_Run, dis.Instruction], bool], ...] = (
    lambda run, ins: _stack_op(run, ins.opname, ins.arg or 0),
    cell_op,
    _local_op,
    _build_op,
    _access_op,
    _other_op,
)


def _instructions(code: types.CodeType) -> tuple[list[dis.Instruction], dict[int, int]]:
    """The instructions that are not bookkeeping, and the position of each offset's next one."""
    every = list(dis.get_instructions(code))
    kept = [ins for ins in every if ins.opname not in BOOKKEEPING]
    position, at = {}, len(kept)
    for ins in reversed(every):
        if ins.opname not in BOOKKEEPING:
            at -= 1
        position[ins.offset] = at
    return kept, position


def _run_block(run: _Run, code: list, position: dict[int, int], start: int, end: int) -> None:
    """Runs instructions [start, end): straight-line code, plain ``for`` loops, and branches
    (each path then runs to its end on its own)."""
    index = start
    while index < end:
        instruction = code[index]
        if instruction.opname == "FOR_ITER":
            index = _run_loop(run, code, position, index)
            continue
        if instruction.opname in ("JUMP_FORWARD", "JUMP_ABSOLUTE") and not run.loop_depth:
            index = position[instruction.argval]
            continue
        if instruction.opname in CONDITIONAL_JUMPS:
            _branch(run, code, position, index, end)
            return
        if instruction.opcode in dis.hasjrel or instruction.opcode in dis.hasjabs:
            raise NotShown(f"a jump of another kind ({instruction.opname})")
        if instruction.opname == "END_FOR":  # 3.12 pops the iterator and a filler; 3.13 one
            run.pop(2 if sys.version_info < (3, 13) else 1)
        elif not any(step(run, instruction) for step in STEPS):
            raise NotShown(f"instruction {instruction.opname}")
        if run.effects and run.effects[-1][0] == "return":
            if run.loop_depth:
                raise NotShown("a return inside a loop")
            return
        index += 1


def _branch(run: _Run, code: list, position: dict[int, int], index: int, end: int) -> None:
    """A conditional jump: both paths run to their ends from copies of the state; one effect
    holds the test and each path's effects (so how the source laid the paths out, which test
    it negated, or which tail it shared, does not matter)."""
    name = code[index].opname
    if run.loop_depth:
        raise NotShown("a branch inside a loop")
    run.forks += 1
    if run.forks > MAX_PATHS:
        raise NotShown(f"more than {MAX_PATHS} paths")
    test, jumps_when, keeps = CONDITIONAL_JUMPS[name]
    (condition,) = run.pop()
    paths = {}
    for outcome in (True, False):
        path = copy.deepcopy(run)
        path.effects, path.scope = [], (*run.scope, ("path", run.forks, outcome))
        if keeps and outcome == jumps_when:
            path.stack.append(condition)
        target = position[code[index].argval] if outcome == jumps_when else index + 1
        _run_block(path, code, position, target, end)
        if not path.effects or path.effects[-1][0] not in ("return", "branch"):
            raise NotShown("a path that falls off the end")
        paths[outcome], run.forks = tuple(path.effects), path.forks
    run.effect("branch", test, condition, paths[True], paths[False])


def _locals_set(instruction: dis.Instruction) -> tuple[str, ...]:
    """The locals an instruction stores or deletes."""
    name, value = instruction.opname, instruction.argval
    if name in ("STORE_FAST", "DELETE_FAST"):
        return (value,)
    if name == "STORE_FAST_STORE_FAST":
        return tuple(value)
    return (value[0],) if name == "STORE_FAST_LOAD_FAST" else ()


def _known_items(run: _Run) -> list:
    """A copy of the items of every list and dict of the frame, wherever held (None: escaped)."""
    lists = [
        ("list", n, None if items is None else list(items))
        for n, items in enumerate(run.lists.items)
    ]
    dicts = [
        ("dict", n, None if items is None else dict(items))
        for n, items in enumerate(run.dicts.items)
    ]
    return [*lists, *dicts]


def _changed(before: list, after: list) -> bool:
    """Whether a list or dict known in ``before`` changed or escaped by ``after``."""
    now = {(kind, n): items for kind, n, items in after}
    return any(items is not None and now[kind, n] != items for kind, n, items in before)


def _carry(run: _Run, assigned: set[str], cells: set[str]) -> None:
    """The locals and own cells a loop body sets: unknown around and across its iterations."""
    for name in assigned:
        run.locals[name] = CARRIED
    for name in cells:
        if run.cells.own(name):
            run.cells.held[name] = CARRIED


def _run_loop(run: _Run, code: list, position: dict[int, int], head: int) -> int:
    """A ``for`` loop whose body is straight-line: one effect that holds the body's effects,
    run once over a symbolic item. Returns the position after the loop."""
    exit_ = position[code[head].argval]
    back = code[exit_ - 1] if exit_ > head + 1 else None
    if back is None or back.opname != "JUMP_BACKWARD" or position[back.argval] != head:
        raise NotShown("a loop other than a plain for loop")
    known = _known_items(run)
    body_code = code[head + 1 : exit_ - 1]
    assigned = {name for ins in body_code for name in _locals_set(ins)}
    cells = {name for ins in body_code for name in cells_set(ins) if run.cells.own(name)}
    _carry(run, assigned, cells)
    outer_stack, outer_effects, outer_scope = list(run.stack), run.effects, run.scope
    run.loops += 1
    run.loop_depth += 1
    run.effects, run.scope = [], (*outer_scope, run.loops)
    run.stack.append(("loop item", run.scope))
    _run_block(run, code, position, head + 1, exit_ - 1)
    if run.stack != outer_stack:
        raise NotShown("a loop body that leaves values on the stack")
    body, run.effects, run.scope = tuple(run.effects), outer_effects, outer_scope
    run.loop_depth -= 1
    if _changed(known, _known_items(run)):
        raise NotShown("a loop body that changes a list or dict the frame built before the loop")
    run.effect("loop", run.stack[-1], body)
    _carry(run, assigned, cells)
    if sys.version_info < (3, 12):
        run.pop()
    else:
        run.stack.append(EXHAUSTED)
    return exit_


def trace(code: types.CodeType) -> list[tuple]:
    """The effects of a code object that is straight-line but for plain ``for`` loops, in
    order; raises :class:`NotShown`."""
    if code.co_flags & CO_GENERATOR_LIKE:
        raise NotShown("a generator or coroutine")
    if getattr(code, "co_exceptiontable", b""):
        raise NotShown("an exception handler")
    run = _Run(code)
    instructions, position = _instructions(code)
    _run_block(run, instructions, position, 0, len(instructions))
    if not run.effects or run.effects[-1][0] not in ("return", "branch"):
        raise NotShown("falls off its end")
    return [*run.effects, run.dynamo.summary()]


def same_effects(expected: types.CodeType, got: types.CodeType) -> str | None:
    """None when both code objects do the same effects with the same values, in the same order,
    and return the same value; else why that was not shown."""
    try:
        mine, theirs = trace(expected), trace(got)
    except NotShown as error:
        return f"not shown to do the same: {error}"
    except Exception as error:  # a malformed stack shape: no verdict
        return f"not shown to do the same: {error!r}"
    for index, (one, other) in enumerate(zip(mine, theirs, strict=False)):
        if one != other:
            return f"effect #{index} differs: {one[0]} against {other[0]}"
    if len(mine) != len(theirs):
        return f"{len(mine)} effects against {len(theirs)}"
    return None
