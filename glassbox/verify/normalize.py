"""Code objects in a form two compilations of the same program agree on, and their comparison.

This module runs under the *judging* interpreter (CPython 3.10 to 3.13), imported by the worker
script as a plain module, so it uses nothing but that interpreter's standard library.

What is compared, for every code object of the tree (nested code objects are paired in the order
they appear in ``co_consts``):

* the instructions of ``dis.get_instructions`` as a list indexed from 0, without ``NOP``,
  ``EXTENDED_ARG`` (``dis`` folds it into the next argument) and ``CACHE``. Jumps compare by the
  index of their target, constant loads by the constant's value, every other instruction by its
  opcode, its raw argument and the argument's meaning as ``dis`` shows it (so a different name
  shows where it is used);
* the exception table (3.11+) as ``(start, end, target)`` instruction indices with depth and
  ``lasti``; empty entries are dropped and adjacent entries with the same handler merged;
* ``co_consts`` by value: floats and complex numbers by ``repr`` (so ``-0.0 != 0.0`` and
  ``nan == nan``), ``True`` differs from ``1``, tuples and frozensets element by element, a code
  object by its name (its contents are compared as a nested code object). They are compared in
  the order of first use by the instructions, then the unused ones (a docstring) in stored order;
* ``co_argcount``, ``co_posonlyargcount``, ``co_kwonlyargcount``, ``co_flags`` (every bit),
  ``co_nlocals``, ``co_stacksize``, ``co_names``, ``co_varnames``, ``co_cellvars``,
  ``co_freevars``, ``co_name`` and ``co_qualname`` (3.11+).

Ignored: line numbers and positions (``co_firstlineno``, ``co_linetable``/``co_lnotab``),
``co_filename`` and absolute byte offsets; and the compiler's choices that only line numbers drive,
so that the same code laid out on other lines compares equal:

* the NOPs that carry a line number;
* jump threading, which the compiler skips across lines: a jump to an unconditional jump counts
  as a jump to that one's target, and 3.10/3.11 ``JUMP_IF_<X>_OR_POP`` landing on a jump that
  tests the same value counts as the threaded jump the optimizer would make of it;
* a conditional jump over an unconditional one (``POP_JUMP_IF_TRUE L; JUMP M; L:``) that
  nothing else lands on counts as the inverted test jumping to M (``POP_JUMP_IF_FALSE M``);
* the direction in 3.11's jump names (``POP_JUMP_FORWARD_IF_X``/``POP_JUMP_BACKWARD_IF_X``,
  ``JUMP_FORWARD``/``JUMP_BACKWARD``): the target index says it;
* 3.13's superinstructions (``LOAD_FAST_LOAD_FAST``, ``STORE_FAST_LOAD_FAST``,
  ``STORE_FAST_STORE_FAST``), fused only within a line: compared as their two halves;
* 3.11+'s ``SWAP n`` before n stores, which the compiler drops by exchanging the stores only
  within a line (apply_static_swaps): compared with the stores exchanged;
* 3.13's ``STORE_FAST x; STORE_FAST x``, which the compiler makes ``POP_TOP; STORE_FAST x`` only
  within a line: compared as the latter;
* 3.13 class bodies' ``__firstlineno__ = N``: N is not compared;
* the order of ``co_consts`` (see above), which follows from the order things were compiled in.
"""

from __future__ import annotations

import bisect
import dis
import sys
import types
from collections.abc import Iterator
from dataclasses import dataclass, field

SKIPPED_OPNAMES = frozenset({"NOP", "EXTENDED_ARG", "CACHE"})
JUMP_OPCODES = (
    frozenset(dis.hasjrel) | frozenset(dis.hasjabs) | frozenset(getattr(dis, "hasjump", ()))
)
CONST_OPCODES = frozenset(dis.hasconst)
# 3.13's fused pairs of local-variable instructions and the two instructions each stands for.
# The instructions 3.11+'s apply_static_swaps may exchange to drop a SWAP.
SWAPPABLE = frozenset({"STORE_FAST", "STORE_FAST_MAYBE_NULL", "POP_TOP"})
SUPERINSTRUCTIONS = {
    "LOAD_FAST_LOAD_FAST": ("LOAD_FAST", "LOAD_FAST"),
    "STORE_FAST_STORE_FAST": ("STORE_FAST", "STORE_FAST"),
    "STORE_FAST_LOAD_FAST": ("STORE_FAST", "LOAD_FAST"),
}
# The conditional jump that pops its test: what JUMP_IF_<X>_OR_POP becomes when threaded.
POP_JUMP_IF = {
    sense: f"POP_JUMP_IF_{sense}"
    if f"POP_JUMP_IF_{sense}" in dis.opmap
    else f"POP_JUMP_FORWARD_IF_{sense}"
    for sense in ("TRUE", "FALSE")
}
INVERTED_TEST = {
    "POP_JUMP_IF_TRUE": "POP_JUMP_IF_FALSE",
    "POP_JUMP_IF_FALSE": "POP_JUMP_IF_TRUE",
    "POP_JUMP_IF_NONE": "POP_JUMP_IF_NOT_NONE",
    "POP_JUMP_IF_NOT_NONE": "POP_JUMP_IF_NONE",
}
UNCONDITIONAL_JUMPS = frozenset(
    {"JUMP_ABSOLUTE", "JUMP_FORWARD", "JUMP_BACKWARD", "JUMP_BACKWARD_NO_INTERRUPT"}
)
FLAG_NAMES = dict(dis.COMPILER_FLAG_NAMES)
FLAG_NAMES.setdefault(0x1000000, "FUTURE_ANNOTATIONS")
FLAG_NAMES.setdefault(0x20000, "FUTURE_DIVISION")
FLAG_NAMES.setdefault(0x2000000, "FUTURE_GENERATOR_STOP")
CO_OPTIMIZED = 0x1

# Header fields compared for each code object, in the order differences are reported.
HEADER_FIELDS = (
    "co_argcount",
    "co_posonlyargcount",
    "co_kwonlyargcount",
    "co_flags",
    "co_nlocals",
    "co_stacksize",
    "co_names",
    "co_varnames",
    "co_cellvars",
    "co_freevars",
    "co_name",
    "co_qualname",
)


@dataclass(frozen=True)
class Op:
    """One normalized instruction: ``key`` is what is compared, ``text`` what is shown."""

    key: tuple
    text: str


@dataclass
class NormalCode:
    """A code object reduced to what the verifier compares; ``children`` are its nested codes."""

    qualname: str
    header: dict
    consts: tuple
    const_texts: tuple
    ops: list
    exception_table: list
    children: list = field(default_factory=list)


@dataclass(frozen=True)
class Difference:
    """The first place two code objects disagree.

    ``where`` is ``"instruction"``, ``"exception table"``, ``"co_consts"``, a header field name
    such as ``"co_names"``, or ``"code object"`` (one side has no code object to pair with).
    ``index`` is the instruction, entry or constant index, or ``None`` for whole fields.
    """

    qualname: str
    where: str
    index: int | None
    expected: str
    got: str

    def to_json(self) -> dict:
        return {
            "qualname": self.qualname,
            "where": self.where,
            "index": self.index,
            "expected": self.expected,
            "got": self.got,
        }

    def describe(self) -> str:
        at = f"{self.where} #{self.index}" if self.index is not None else self.where
        return f"{self.qualname}: {at}: expected {self.expected}, got {self.got}"


@dataclass(frozen=True)
class Comparison:
    """The outcome of comparing two code-object trees."""

    code_objects: int  # in the expected tree
    equal_code_objects: int  # those whose own fields, constants and instructions are all equal
    first_difference: Difference | None  # in depth-first order, parents before children
    # Those equal together with every code object nested in them (a function whose lambda
    # differs is equal, not subtree-equal): what a reader of whole functions gets back.
    subtree_equal_code_objects: int = 0

    @property
    def equal(self) -> bool:
        return self.first_difference is None


def find_code(code: types.CodeType, name: str) -> types.CodeType | None:
    """The first code object named ``name`` in ``code`` and the code nested in it, depth first."""
    if code.co_name == name:
        return code
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            found = find_code(const, name)
            if found is not None:
                return found
    return None


def const_key(value: object) -> tuple:
    """A hashable value that is equal exactly when two constants are the same constant."""
    if isinstance(value, types.CodeType):
        return ("code", value.co_name)
    if isinstance(value, float):
        return ("float", repr(value))
    if isinstance(value, complex):
        return ("complex", repr(value.real), repr(value.imag))
    if isinstance(value, tuple):
        return ("tuple", *(const_key(item) for item in value))
    if isinstance(value, frozenset):
        return ("frozenset", *sorted((const_key(item) for item in value), key=repr))
    if value is None or value is Ellipsis or isinstance(value, (bool, int, str, bytes)):
        return (type(value).__name__, value)
    return (type(value).__name__, repr(value))


def const_text(value: object) -> str:
    """How a constant is shown in a report: its repr, or ``<code object NAME>``."""
    if isinstance(value, types.CodeType):
        return f"<code object {value.co_name}>"
    if isinstance(value, tuple) and any(isinstance(item, types.CodeType) for item in value):
        return "(" + ", ".join(const_text(item) for item in value) + ")"
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def flags_text(flags: int) -> str:
    names = [name for bit, name in sorted(FLAG_NAMES.items()) if flags & bit]
    unknown = flags & ~sum(FLAG_NAMES)
    if unknown:
        names.append(hex(unknown))
    return "|".join(names) or "0"


def _qualname(code: types.CodeType, parent: NormalCode | None) -> str:
    qualname = getattr(code, "co_qualname", None)  # 3.11+
    if qualname is not None:
        return qualname
    if parent is None or parent.qualname == "<module>":
        return code.co_name
    separator = ".<locals>." if parent.header["co_flags"] & CO_OPTIMIZED else "."
    return parent.qualname + separator + code.co_name


def _varint(data: Iterator[int]) -> int:
    byte = next(data)
    value = byte & 63
    while byte & 64:
        byte = next(data)
        value = (value << 6) | (byte & 63)
    return value


def raw_exception_table(code: types.CodeType) -> list:
    """``(start, end, target, depth, lasti)`` byte offsets of the 3.11+ exception table."""
    data = iter(getattr(code, "co_exceptiontable", b""))
    entries = []
    while True:
        try:
            start = _varint(data) * 2
        except StopIteration:
            return entries
        end = start + _varint(data) * 2
        target = _varint(data) * 2
        depth_lasti = _varint(data)
        entries.append((start, end, target, depth_lasti >> 1, bool(depth_lasti & 1)))


def _exception_table(code: types.CodeType, offsets: list) -> list:
    entries: list = []
    for start, end, target, depth, lasti in raw_exception_table(code):
        first = bisect.bisect_left(offsets, start)
        stop = bisect.bisect_left(offsets, end)
        if first == stop:
            continue
        handler = (bisect.bisect_left(offsets, target), depth, lasti)
        if entries and entries[-1][1] == first and entries[-1][2:] == handler:
            entries[-1] = (entries[-1][0], stop, *handler)
        else:
            entries.append((first, stop, *handler))
    return entries


def _jump_targets(instructions: list, offsets: list) -> dict:
    """Instruction index -> index of its jump's final target. A jump to an unconditional jump
    counts as a jump to where that one goes: the compiler threads such chains only where line
    numbers allow (3.10 keeps ``JUMP_ABSOLUTE`` hops that carry a line of their own)."""
    direct = {
        index: bisect.bisect_left(offsets, instruction.argval)
        for index, instruction in enumerate(instructions)
        if instruction.opcode in JUMP_OPCODES
    }
    final = {}
    for index, target in direct.items():
        seen = {index}
        while (
            target in direct
            and target not in seen
            and instructions[target].opname in UNCONDITIONAL_JUMPS
        ):
            seen.add(target)
            target = direct[target]
        final[index] = target
    return final


def _short_circuit(instructions: list, targets: dict, index: int) -> tuple:
    """3.10/3.11 ``JUMP_IF_<X>_OR_POP`` in the form the peephole optimizer gives it when line
    numbers do not stop it: landing on a jump that tests the same value, it goes on to that
    jump's target (or past it, for the opposite test). Returns ``(opname, target)``."""
    name, target = instructions[index].opname, targets[index]
    sense = "TRUE" if "TRUE" in name else "FALSE"
    opposite = "FALSE" if sense == "TRUE" else "TRUE"
    seen = set()
    while target < len(instructions) and target not in seen:
        seen.add(target)
        landing = instructions[target].opname
        if landing == f"JUMP_IF_{sense}_OR_POP":  # the same test again, the value kept: go on
            target = targets[target]
        elif landing in (f"POP_JUMP_IF_{sense}", f"POP_JUMP_FORWARD_IF_{sense}"):
            return POP_JUMP_IF[sense], targets[target]
        elif landing in (
            f"JUMP_IF_{opposite}_OR_POP",
            f"POP_JUMP_IF_{opposite}",
            f"POP_JUMP_FORWARD_IF_{opposite}",
        ):
            return POP_JUMP_IF[sense], target + 1
        else:
            break
    return name, target


def _instructions(code: types.CodeType) -> list:
    """The instructions compared: no NOP/EXTENDED_ARG/CACHE, 3.13 superinstructions split in
    two (the compiler fuses a pair only when both are on the same line). The second half gets
    the odd offset after the first, so jumps and exception-table offsets still map with bisect."""
    found = []
    for instruction in dis.get_instructions(code):
        if instruction.opname in SKIPPED_OPNAMES:
            continue
        halves = SUPERINSTRUCTIONS.get(instruction.opname)
        if halves is None:
            found.append(instruction)
            continue
        args = (instruction.arg >> 4, instruction.arg & 15)
        pairs = zip(halves, args, instruction.argval, strict=True)
        for half, (opname, arg, name) in enumerate(pairs):
            found.append(
                instruction._replace(
                    opname=opname,
                    opcode=dis.opmap[opname],
                    arg=arg,
                    argval=name,
                    argrepr=name,
                    offset=instruction.offset + half,
                )
            )
    return found


def _jump_name(opname: str) -> str:
    """A jump's name without its direction (3.11's POP_JUMP_FORWARD_IF_X and
    POP_JUMP_BACKWARD_IF_X, JUMP_FORWARD and JUMP_BACKWARD): the target index says it."""
    if opname.endswith("NO_INTERRUPT"):
        return opname
    return opname.replace("_FORWARD", "").replace("_BACKWARD", "")


def _fold_jumps_over_jumps(instructions: list, landings: set) -> list:
    """``POP_JUMP_IF_X L; JUMP M; L:`` as the ``POP_JUMP_IF_NOT_X M`` it stands for, when nothing
    else lands on the ``JUMP``: whether the compiler inverts the test depends on line numbers."""
    offsets = _offsets(instructions)
    folded: list = []
    index = 0
    while index < len(instructions):
        instruction = instructions[index]
        name = _jump_name(instruction.opname)
        if (
            name in INVERTED_TEST
            and index + 2 < len(instructions)
            and _jump_name(instructions[index + 1].opname) in ("JUMP", "JUMP_ABSOLUTE")
            and instructions[index + 1].offset not in landings
            and bisect.bisect_left(offsets, instruction.argval) == index + 2
        ):
            jump = instructions[index + 1]
            folded.append(instruction._replace(opname=INVERTED_TEST[name], argval=jump.argval))
            index += 2
            continue
        folded.append(instruction)
        index += 1
    return folded


def _landings(code: types.CodeType, instructions: list) -> set:
    """The offsets that start a basic block: jump targets and exception handlers."""
    landings = {i.argval for i in instructions if i.opcode in JUMP_OPCODES}
    landings.update(entry[2] for entry in raw_exception_table(code))
    return landings


def _next_swappable(found: list, index: int, landings: set) -> int | None:
    """flowgraph.c's next_swappable_instruction, within the block, whatever the lines."""
    for after in range(index + 1, len(found)):
        if found[after] is None:  # a SWAP already dropped: a NOP
            continue
        if found[after].offset in landings or found[after].opname not in SWAPPABLE:
            return None
        return after
    return None


def _stores_apart(found: list, first: int, last: int) -> bool:
    """Whether swapping the operations at ``first`` and ``last`` keeps every name's final value:
    they store to different names, and nothing between them stores to either."""
    names = [i.arg if i.opname != "POP_TOP" else None for i in found[first : last + 1] if i]
    if names[0] is None and names[-1] is None:
        return True
    if names[0] == names[-1]:
        return False
    return all(name is None or name not in (names[0], names[-1]) for name in names[1:-1])


def _drop_swap(found: list, at: int, landings: set, handler: dict) -> bool:
    """One step of apply_static_swaps: the ``SWAP n`` at ``at`` dropped and the first and n-th
    stores after it exchanged, where that keeps what they store (False where it does not)."""
    swap = found[at]
    first = last = _next_swappable(found, at, landings)
    for _ in range(swap.arg - 1):
        last = None if last is None else _next_swappable(found, last, landings)
    if first is None or last is None or not _stores_apart(found, first, last):
        return False
    if handler.get(swap.offset) != handler.get(found[last].offset):
        return False
    found[at] = None
    found[first], found[last] = (
        found[last]._replace(offset=found[first].offset),
        found[first]._replace(offset=found[last].offset),
    )
    return True


def _swap_leftwards(found: list, index: int, offsets: list, landings: set, handler: dict) -> None:
    """flowgraph.c's apply_static_swaps from the SWAP at ``index``, walking left over the SWAPs
    and stores of its block (``offsets``: each position's offset before any swap; ``handler``:
    per offset, its exception handler)."""
    for at in range(index, -1, -1):
        current = found[at]
        if current is not None:
            if current.opname == "SWAP":
                if not _drop_swap(found, at, landings, handler):
                    return
            elif current.opname not in SWAPPABLE:
                return
        if offsets[at] in landings:
            return


def _static_swaps(code: types.CodeType, instructions: list, landings: set) -> list:
    """3.11+: a ``SWAP n`` before n stores as the exchanged stores the compiler makes of it
    (apply_static_swaps) only where the stores are on one line (``a, b = b, a`` written on one
    line or over two)."""
    if sys.version_info < (3, 11) or not any(i.opname == "SWAP" for i in instructions):
        return instructions
    handler = {}
    for start, end, target, _, _ in raw_exception_table(code):
        for instruction in instructions:
            if start <= instruction.offset < end:
                handler.setdefault(instruction.offset, target)
    offsets = _offsets(instructions)
    found: list = list(instructions)
    for index in range(len(found)):
        if found[index] is not None and found[index].opname == "SWAP":
            _swap_leftwards(found, index, offsets, landings, handler)
    return [i for i in found if i is not None]


def _pop_double_stores(instructions: list, landings: set) -> list:
    """3.13: ``STORE_FAST x; STORE_FAST x`` as the ``POP_TOP; STORE_FAST x`` the compiler makes of
    it when both are on one line (``_, a, _ = t`` written on one line or over three)."""
    if sys.version_info < (3, 13):
        return instructions
    found = list(instructions)
    for index in range(len(found) - 1):
        first, second = found[index], found[index + 1]
        if (
            first.opname == "STORE_FAST"
            and second.opname == "STORE_FAST"
            and first.arg == second.arg
            and second.offset not in landings
        ):
            found[index] = first._replace(
                opname="POP_TOP", opcode=dis.opmap["POP_TOP"], arg=None, argval=None, argrepr=""
            )
    return found


def _offsets(instructions: list) -> list:
    return [i.offset for i in instructions]


def _ops(code: types.CodeType) -> tuple:
    instructions = _instructions(code)
    # (The blocks' starts, by offset: none of the steps below moves a jump or its target.)
    landings = _landings(code, instructions)
    instructions = _static_swaps(code, instructions, landings)
    instructions = _fold_jumps_over_jumps(_pop_double_stores(instructions, landings), landings)
    offsets = _offsets(instructions)
    targets = _jump_targets(instructions, offsets)
    ops = []
    for index, instruction in enumerate(instructions):
        name = instruction.opname
        if index in targets:
            target = targets[index]
            if name in ("JUMP_IF_FALSE_OR_POP", "JUMP_IF_TRUE_OR_POP"):
                name, target = _short_circuit(instructions, targets, index)
            ops.append(Op((_jump_name(name), "jump", target), f"{name} -> #{target}"))
        elif instruction.opcode in CONST_OPCODES:
            value = instruction.argval
            ops.append(Op((name, "const", const_key(value)), f"{name} {const_text(value)}"))
        elif instruction.arg is None:
            ops.append(Op((name,), name))
        else:
            shown = f" ({instruction.argrepr})" if instruction.argrepr else ""
            key = (name, instruction.arg, instruction.argrepr)
            ops.append(Op(key, f"{name} {instruction.arg}{shown}"))
    masked = _mask_firstlineno(instructions, ops)
    return ops, offsets, _const_order(code, instructions, masked)


def _mask_firstlineno(instructions: list, ops: list) -> set:
    """3.13 class bodies store their first line number (``__firstlineno__ = N``): a line number
    in disguise. Its ``LOAD_CONST`` compares equal whatever N is; returns its instruction index."""
    masked = set()
    for index, instruction in enumerate(instructions):
        if index and instruction.opname == "STORE_NAME" and instruction.argval == "__firstlineno__":
            load = instructions[index - 1]
            if load.opname == "LOAD_CONST" and isinstance(load.argval, int):
                ops[index - 1] = Op(("LOAD_CONST", "firstlineno"), "LOAD_CONST <__firstlineno__>")
                masked.add(index - 1)
    return masked


def _const_order(code: types.CodeType, instructions: list, masked: set) -> list:
    """co_consts indices in the order compared: those instructions load, by first use, then the
    others (docstrings, 3.10's leading None) in co_consts order. Constants only a masked load
    uses are left out. The instructions compare loads by value, so this makes co_consts add the
    unused constants to the comparison without making the order the compiler stored them in
    (which line numbers can change) matter."""
    used: dict = {}
    masked_only: dict = {}
    for index, instruction in enumerate(instructions):
        if instruction.opcode in CONST_OPCODES:
            (masked_only if index in masked else used).setdefault(instruction.arg, None)
    unused = [i for i in range(len(code.co_consts)) if i not in used and i not in masked_only]
    return list(used) + unused


def normalize(code: types.CodeType, parent: NormalCode | None = None) -> NormalCode:
    """The comparable form of ``code`` and, recursively, of the code objects it contains."""
    header = {name: getattr(code, name) for name in HEADER_FIELDS if hasattr(code, name)}
    ops, offsets, const_order = _ops(code)
    node = NormalCode(
        qualname=_qualname(code, parent),
        header=header,
        consts=tuple(const_key(code.co_consts[i]) for i in const_order),
        const_texts=tuple(const_text(code.co_consts[i]) for i in const_order),
        ops=ops,
        exception_table=_exception_table(code, offsets),
    )
    for value in code.co_consts:
        if isinstance(value, types.CodeType):
            node.children.append(normalize(value, node))
    return node


def count_code_objects(code: types.CodeType) -> int:
    nested = (value for value in code.co_consts if isinstance(value, types.CodeType))
    return 1 + sum(count_code_objects(value) for value in nested)


def _entry_text(entry: tuple | None) -> str:
    if entry is None:
        return "<no entry>"
    start, stop, target, depth, lasti = entry
    return f"#{start} to #{stop} -> #{target} [{depth}]{' lasti' if lasti else ''}"


def _header_text(name: str, value: object) -> str:
    return flags_text(value) if name == "co_flags" else repr(value)


def _first_in_sequence(expected: list, got: list, key, text) -> tuple | None:
    """``(index, expected text, got text)`` of the first position where the sequences differ."""
    for index in range(max(len(expected), len(got))):
        mine = expected[index] if index < len(expected) else None
        theirs = got[index] if index < len(got) else None
        if mine is None or theirs is None or key(mine) != key(theirs):
            return index, text(mine), text(theirs)
    return None


def difference_here(
    expected: NormalCode, got: NormalCode, ignore: frozenset = frozenset()
) -> Difference | None:
    """The first difference between two code objects themselves (nested codes not entered)."""
    qualname = expected.qualname
    found = _first_in_sequence(
        expected.ops, got.ops, lambda op: op.key, lambda op: op.text if op else "<end of code>"
    )
    if found:
        return Difference(qualname, "instruction", *found)
    found = _first_in_sequence(
        expected.exception_table, got.exception_table, lambda entry: entry, _entry_text
    )
    if found:
        return Difference(qualname, "exception table", *found)
    for name, value in expected.header.items():
        other = got.header.get(name)
        if name not in ignore and value != other:
            return Difference(
                qualname, name, None, _header_text(name, value), _header_text(name, other)
            )
    if "co_consts" not in ignore:
        pairs_expected = list(zip(expected.consts, expected.const_texts, strict=True))
        pairs_got = list(zip(got.consts, got.const_texts, strict=True))
        found = _first_in_sequence(
            pairs_expected,
            pairs_got,
            lambda pair: pair[0],
            lambda pair: pair[1] if pair else "<no constant>",
        )
        if found:
            return Difference(qualname, "co_consts", *found)
    return None


def _pairs(expected: NormalCode, got: NormalCode | None) -> Iterator[tuple]:
    yield expected, got
    for index, child in enumerate(expected.children):
        other = got.children[index] if got is not None and index < len(got.children) else None
        yield from _pairs(child, other)


def _difference(
    mine: NormalCode, theirs: NormalCode | None, ignore: frozenset
) -> Difference | None:
    if theirs is None:
        return Difference(mine.qualname, "code object", None, "present", "<missing>")
    return difference_here(mine, theirs, ignore)


def _subtree_equal(expected: NormalCode, equal: dict) -> tuple:
    """``(code objects equal with all they contain, code objects)`` in ``expected``'s tree;
    ``equal`` maps ``id`` of each expected node to whether it is equal itself."""
    whole_count, nodes = 0, 1
    whole = equal[id(expected)]
    for child in expected.children:
        below, size = _subtree_equal(child, equal)
        whole_count, nodes = whole_count + below, nodes + size
        whole = whole and below == size
    return whole_count + (1 if whole else 0), nodes


def compare_normalized(
    expected: NormalCode, got: NormalCode, ignore: frozenset = frozenset()
) -> Comparison:
    first = None
    equal: dict = {}
    for mine, theirs in _pairs(expected, got):
        difference = _difference(mine, theirs, ignore)
        equal[id(mine)] = difference is None
        if difference is not None and first is None:
            first = difference
    subtree, _ = _subtree_equal(expected, equal)
    return Comparison(len(equal), sum(equal.values()), first, subtree)


def compare(
    expected: types.CodeType, got: types.CodeType, ignore: frozenset = frozenset()
) -> Comparison:
    """Compare two code-object trees; ``ignore`` names header fields (or ``co_consts``) to skip."""
    return compare_normalized(normalize(expected), normalize(got), frozenset(ignore))
