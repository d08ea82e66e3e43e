"""Elementwise ops as micro-programs, and their fusion into one pass over memory.

Opcodes mirror cpp/runtime/kernels/elementwise.cpp. Each lowered elementwise node starts as its own
``elementwise`` instruction holding a symbolic micro-program; :func:`fuse` merges consecutive ones
with the same output shape, and :func:`encode` turns each into registers and integer arguments.
"""

from __future__ import annotations

from glassbox.backend.kernel_args import ElementwiseArgs
from glassbox.backend.program import ALIAS, BOOL, FLOAT32, Instr, Slot

OPCODES = [
    "CONST", "ADD", "SUB", "MUL", "DIV", "POW", "MAX", "MIN", "EQ", "NE", "LT", "LE", "GT", "GE",
    "WHERE", "NEG", "ABS", "RELU", "SIGMOID", "TANH", "EXP", "LOG", "SQRT", "RSQRT", "RECIP",
    "ERF", "GELU", "GELU_TANH", "SILU", "NOT", "AND", "OR", "SIN", "COS", "LOG1P", "EXPM1",
    "FLOOR", "CEIL", "ROUND", "SIGN", "ISNAN",
]  # fmt: skip
OP = {name: i for i, name in enumerate(OPCODES)}


class Expr:
    """Builds one node's micro-program: ``e.op("ADD", e.inp(x), e.const(1.0))``."""

    def __init__(self) -> None:
        self.ops: list[tuple[int, list, float]] = []

    def inp(self, slot: Slot):
        return ("in", slot)

    def const(self, value: float):
        self.ops.append((OP["CONST"], [], float(value)))
        return ("op", len(self.ops) - 1)

    def op(self, name: str, *args):
        self.ops.append((OP[name], list(args), 0.0))
        return ("op", len(self.ops) - 1)


def make_instr(expr: Expr, result, out: Slot) -> Instr:
    inputs = [a[1] for _, args, _ in expr.ops for a in args if a[0] == "in"]
    if result[0] == "in":  # the node is the identity: still an instruction, one MUL by 1 away
        one = expr.const(1.0)
        result = expr.op("MUL", result, one)
    return Instr("elementwise", inputs, [out], micro=list(expr.ops), micro_outputs=[result])


def fuse(instrs: list[Instr], live_after) -> list[Instr]:
    """Merge runs of elementwise instructions with one output shape into one instruction.

    ``live_after(slot, position)`` tells whether a slot is read by anything at or after
    ``position`` in ``instrs`` (or is a program output); fused-away values that are not become
    registers only.
    """
    out: list[Instr] = []
    group: Instr | None = None
    group_members: list[int] = []

    def close():
        nonlocal group
        if group is not None:
            last = group_members[-1]
            keep_slots, keep_refs = [], []
            for slot, ref in zip(group.outputs, group.micro_outputs, strict=False):
                if live_after(slot, last + 1):
                    keep_slots.append(slot)
                    keep_refs.append(ref)
            group.outputs, group.micro_outputs = keep_slots, keep_refs
            if group.outputs:
                out.append(group)
        group = None

    for pos, ins in enumerate(instrs):
        if ins.op != "elementwise":
            close()
            out.append(ins)
            continue
        if (
            group is not None
            and group.outputs[0].shape == ins.outputs[0].shape
            and not _reads_view_of(ins, group.outputs)
        ):
            pairs = zip(group.outputs, group.micro_outputs, strict=False)
            produced = {id(s): ref for s, ref in pairs}
            base = len(group.micro)

            def remap(a, produced=produced, base=base):
                if a[0] == "in" and id(a[1]) in produced:
                    return produced[id(a[1])]
                if a[0] == "op":
                    return ("op", a[1] + base)
                return a

            for code, args, value in ins.micro:
                group.micro.append((code, [remap(a) for a in args], value))
            for slot, ref in zip(ins.outputs, ins.micro_outputs, strict=False):
                group.outputs.append(slot)
                group.micro_outputs.append(remap(ref))
            group_members.append(pos)
            continue
        close()
        group = Instr(
            "elementwise",
            [],
            list(ins.outputs),
            micro=list(ins.micro),
            micro_outputs=list(ins.micro_outputs),
        )
        group_members = [pos]
    close()
    return out


def _reads_view_of(ins: Instr, produced: list[Slot]) -> bool:
    """Whether ``ins`` reads a view (an alias slot) of a value the group produces: the group
    writes its outputs after it has read its inputs, so such an instruction starts a new group."""
    roots = {id(s) for s in produced}
    return any(
        a[0] == "in" and a[1].kind == ALIAS and id(a[1].root()) in roots
        for _, args, _ in ins.micro
        for a in args
    )


def encode(ins: Instr) -> None:
    """Assign registers: inputs first (deduplicated), then one per micro-op."""
    inputs: list[Slot] = []
    index: dict[int, int] = {}
    for _, args, _ in ins.micro:
        for a in args:
            if a[0] == "in" and id(a[1]) not in index:
                index[id(a[1])] = len(inputs)
                inputs.append(a[1])
    n_in = len(inputs)

    def reg(a):
        return index[id(a[1])] if a[0] == "in" else n_in + a[1]

    ops: list[tuple[int, int, int, int]] = []
    constants: list[float] = []
    for code, args, value in ins.micro:
        if code == OP["CONST"]:
            ops.append((code, len(constants), -1, -1))
            constants.append(float(value))
        else:
            r0, r1, r2 = [reg(a) for a in args] + [-1] * (3 - len(args))
            ops.append((code, r0, r1, r2))
    outputs = [reg(r) for r in ins.micro_outputs]
    ins.inputs, ins.args = inputs, ElementwiseArgs(ops, outputs, constants)


def output_dtype_ok(dtype: int) -> bool:
    return dtype in (FLOAT32, BOOL)
