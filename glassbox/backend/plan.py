"""Planning: fuse elementwise chains, number the slots, place arena buffers by lifetime, and
serialize the result through the C++ writer (``glassbox._core.serialize_program``)."""

from __future__ import annotations

from glassbox.backend import elementwise as ew
from glassbox.backend.kernel_args import StridedArgs
from glassbox.backend.program import ALIAS, ARENA, ITEMSIZE, Instr, Slot, numel
from glassbox.backend.symbolic import ExprTable, Shapes, Unbound, is_symbolic

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


def place_arena(instrs: list[Instr], outputs: list[Slot], nbytes=lambda s: s.nbytes) -> int:
    """Give every arena slot an offset; buffers whose lifetimes do not overlap share memory.
    The runtime places the arena of a program with symbols again for each binding, the same way
    (cpp/runtime/arena_layout.cpp)."""
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
            size = max(_align(nbytes(s)), ALIGN)
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
    shapes: Shapes | None = None,
) -> bytes:
    """The artifact's bytes. ``arguments``: the exported function's signature, (name, input
    position or -1, a fixed value's Python literal) in call order (see glassbox.export).
    ``shapes``: the symbols' example values and ranges, where sizes depend on them; the program
    declares every size at the example, and an expression table for the symbolic ones."""
    from glassbox import _core

    shapes = shapes or Shapes()
    instrs = fuse_elementwise(instrs, outputs)

    def hint_nbytes(s: Slot) -> int:
        return numel([shapes.hint(d) for d in s.shape]) * ITEMSIZE[s.dtype]

    arena_size = place_arena(instrs, outputs, hint_nbytes)
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
    operands = [
        ([number(s) for s in ins.inputs], [number(s) for s in ins.outputs]) for ins in instrs
    ]
    out_ids = [number(s) for s in outputs]
    values = []
    for s in slots:
        index = numbering[id(s.alias_of)] if s.kind == ALIAS else s.index
        values.append((s.dtype, [shapes.hint(d) for d in s.shape], s.kind, index))
    symbolic, args = _symbolic_tables(shapes, slots, instrs, inputs)
    instr_tuples = [
        (ins.op, ins_ids, outs_ids, a)
        for ins, (ins_ids, outs_ids), a in zip(instrs, operands, args, strict=True)
    ]
    return _core.serialize_program(
        values, in_ids, out_ids, instr_tuples, constants, arena_size, list(arguments), *symbolic
    )


def _symbolic_tables(shapes: Shapes, slots, instrs, inputs) -> tuple[tuple, list]:
    """(symbols, exprs, value_dims) for serialize_program, empty for a program of static sizes;
    and each instruction's typed arguments as serialized. A size no input dim can bind is an
    Unsupported for the whole segment."""
    from glassbox.backend.lower import Unsupported

    if not any(is_symbolic(d) for s in slots for d in s.shape) and not any(
        is_symbolic(i) for ins in instrs for i in _strided_values(ins.args)
    ):
        return (), [_resolved(ins.args, shapes, None) for ins in instrs]
    table = ExprTable(shapes)
    table.bind_inputs([s.shape for s in inputs])
    try:
        value_dims = [[table.ref(d) for d in s.shape] for s in slots]
        args = [_resolved(ins.args, shapes, table) for ins in instrs]
    except Unbound as e:
        raise Unsupported(str(e)) from e
    value_dims = [dims if any(d >= 0 for d in dims) else [] for dims in value_dims]
    return (table.symbols, table.exprs, value_dims), args


def _strided_values(args) -> list:
    return [args.offset, *args.strides] if isinstance(args, StridedArgs) else []


def _resolved(args, shapes: Shapes, table: ExprTable | None):
    """``args`` as serialized: a StridedArgs' offset and strides at the example binding, with the
    expression ids of the symbolic ones (StridedArgs.offset_expr, stride_exprs)."""
    if not isinstance(args, StridedArgs):
        return args
    offset_expr = table.ref(args.offset) if table else -1
    stride_exprs = [table.ref(s) for s in args.strides] if table else []
    return StridedArgs(
        shapes.hint(args.offset),
        [shapes.hint(s) for s in args.strides],
        offset_expr,
        stride_exprs if any(r >= 0 for r in stride_exprs) else [],
    )
