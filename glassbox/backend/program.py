"""The lowered program in Python: value slots and instructions, before planning and serialization.

A :class:`Slot` is one tensor of the program. A slot may also be a *pending view* (``view`` set):
a strided window onto another slot that is only copied to contiguous memory when a consumer needs
it; GEMMs read a transposed view directly and elementwise ops read an expanded view directly.
"""

from __future__ import annotations

from dataclasses import dataclass

from glassbox.backend.kernel_args import KernelArgs

# Value kinds and dtype codes, as in schema/program.fbs.
INPUT, CONSTANT, ARENA, ALIAS = 0, 1, 2, 3
FLOAT32, INT64, BOOL, INT32 = 0, 1, 2, 3


ITEMSIZE = {FLOAT32: 4, INT64: 8, BOOL: 1, INT32: 4}


def contiguous_strides(shape) -> tuple[int, ...]:
    strides, s = [], 1
    for d in reversed(shape):
        strides.append(s)
        s *= d
    return tuple(reversed(strides))


def numel(shape) -> int:
    n = 1
    for d in shape:
        n *= d
    return n


@dataclass(eq=False)
class View:
    base: Slot  # a materialized slot
    strides: tuple[int, ...]
    offset: int


@dataclass(eq=False)
class Slot:
    dtype: int
    shape: tuple[int, ...]
    kind: int = ARENA
    index: int = 0  # input position / constant index / arena offset (set by planning)
    alias_of: Slot | None = None  # kind == ALIAS
    view: View | None = None  # pending strided view, not yet materialized
    materialized: Slot | None = None  # the contiguous copy of a pending view, once made

    @property
    def nbytes(self) -> int:
        return numel(self.shape) * ITEMSIZE[self.dtype]

    def root(self) -> Slot:
        return self.alias_of.root() if self.alias_of is not None else self


@dataclass(eq=False)
class Instr:
    op: str
    inputs: list[Slot]
    outputs: list[Slot]
    args: KernelArgs | None = None  # the kernel family's typed arguments, if it takes any
    # Elementwise instructions keep a symbolic micro-program until fusion is done:
    # each op is (opcode, operands) with operands ("in", slot) | ("op", k) | ("const", float).
    micro: list | None = None
    micro_outputs: list | None = None  # per output slot: ("in", slot) | ("op", k)
