"""Planning: fuse elementwise chains, number the slots, place arena buffers by lifetime, and
serialize the result through the C++ writer (``glassbox._core.serialize_program``)."""

from __future__ import annotations

from glassbox.backend import elementwise as ew
from glassbox.backend.program import ALIAS, ARENA, Instr, Slot

ALIGN = 64


def _align(n: int) -> int:
    return (n + ALIGN - 1) // ALIGN * ALIGN


def last_uses(instrs: list[Instr], outputs: list[Slot]) -> dict[int, int]:
    """Position of the last read of each root slot (len(instrs) for program outputs)."""
    last: dict[int, int] = {}
    for pos, ins in enumerate(instrs):
        for s in ins.inputs:
            last[id(s.root())] = pos
        if ins.micro is not None:
            for _, args, _ in ins.micro:
                for a in args:
                    if a[0] == "in":
                        last[id(a[1].root())] = pos
    for s in outputs:
        last[id(s.root())] = len(instrs)
    return last


def fuse_elementwise(instrs: list[Instr], outputs: list[Slot]) -> list[Instr]:
    last = last_uses(instrs, outputs)
    fused = ew.fuse(instrs, lambda slot, pos: last.get(id(slot.root()), -1) >= pos)
    for ins in fused:
        if ins.op == "elementwise":
            ew.encode(ins)
    return fused


def place_arena(instrs: list[Instr], outputs: list[Slot]) -> int:
    """Give every arena slot an offset; buffers whose lifetimes do not overlap share memory."""
    last = last_uses(instrs, outputs)
    free: list[tuple[int, int]] = []  # (offset, size)
    live: list[tuple[int, int, int]] = []  # (end, offset, size)
    top = 0
    for pos, ins in enumerate(instrs):
        still = []
        for end, off, size in live:
            if end < pos:
                free.append((off, size))
            else:
                still.append((end, off, size))
        live = still
        free = _coalesce(free)
        for s in ins.outputs:
            assert s.kind == ARENA
            size = max(_align(s.nbytes), ALIGN)
            offset = None
            for i, (off, fsize) in enumerate(free):
                if fsize >= size:
                    offset = off
                    free[i] = (off + size, fsize - size)
                    if free[i][1] == 0:
                        del free[i]
                    break
            if offset is None:
                offset, top = top, top + size
            s.index = offset
            live.append((last.get(id(s), pos), offset, size))
    return top


def _coalesce(free):
    free.sort()
    out: list[tuple[int, int]] = []
    for off, size in free:
        if out and out[-1][0] + out[-1][1] == off:
            out[-1] = (out[-1][0], out[-1][1] + size)
        else:
            out.append((off, size))
    return out


def serialize(
    instrs: list[Instr],
    inputs: list[Slot],
    outputs: list[Slot],
    constants: list[bytes],
    arguments: list[tuple[str, int, str]] = (),
) -> bytes:
    """The artifact's bytes. ``arguments``: the exported function's signature, (name, input
    position or -1, a fixed value's Python literal) in call order (see glassbox.export)."""
    from glassbox import _core

    instrs = fuse_elementwise(instrs, outputs)
    arena_size = place_arena(instrs, outputs)
    numbering: dict[int, int] = {}
    slots: list[Slot] = []

    def number(s: Slot) -> int:
        if id(s) not in numbering:
            if s.kind == ALIAS:
                number(s.alias_of)
            numbering[id(s)] = len(slots)
            slots.append(s)
        return numbering[id(s)]

    in_ids = [number(s) for s in inputs]
    instr_tuples = []
    for ins in instrs:
        instr_tuples.append(
            (
                ins.op,
                [number(s) for s in ins.inputs],
                [number(s) for s in ins.outputs],
                ins.ints,
                ins.floats,
            )
        )
    out_ids = [number(s) for s in outputs]
    values = []
    for s in slots:
        index = numbering[id(s.alias_of)] if s.kind == ALIAS else s.index
        values.append((s.dtype, list(s.shape), s.kind, index))
    return _core.serialize_program(
        values, in_ids, out_ids, instr_tuples, constants, arena_size, list(arguments)
    )
