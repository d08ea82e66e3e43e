"""The lowered program in Python: value slots and instructions, before planning and serialization.

A :class:`Slot` is one tensor of the program. A slot may also be a *pending view* (``view`` set):
a strided window onto another slot that is only copied to contiguous memory when a consumer needs
it; GEMMs read a transposed view directly and elementwise ops read an expanded view directly.
"""

from __future__ import annotations

from dataclasses import dataclass, field

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


@dataclass
class Conv2dArgs:
    """conv2d's typed arguments (schema/program.fbs, Conv2dArgs; the bindings read them by name).
    Inputs: x, w, then the bias and the folded batch norm's weight, bias, mean and var as the
    flags say; floats [eps] with a batch norm."""

    stride_h: int = 1
    stride_w: int = 1
    pad_h: int = 0
    pad_w: int = 0
    dilation_h: int = 1
    dilation_w: int = 1
    groups: int = 1
    has_bias: bool = False
    batch_norm: bool = False
    batch_norm_weight: bool = False
    batch_norm_bias: bool = False
    epilogue: int = 0  # EPILOGUES (lower.py)


@dataclass
class GemmArgs:
    """mm, addmm and bmm's typed arguments (schema/program.fbs, GemmArgs): with trans_a the slot a
    holds A^T, likewise b; addmm alone takes beta and alpha, bmm no epilogue."""

    trans_a: bool = False
    trans_b: bool = False
    epilogue: int = 0  # EPILOGUES (lower.py)
    beta: float = 1.0
    alpha: float = 1.0


@dataclass
class AttentionArgs:
    """attention's typed arguments (schema/program.fbs, AttentionArgs): a ``*_tokens_first``
    slot holds [batch, tokens, heads, width], the operand being its transpose(1, 2)."""

    scale: float = 1.0
    causal: bool = False
    has_mask: bool = False
    q_tokens_first: bool = False
    k_tokens_first: bool = False
    v_tokens_first: bool = False
    out_tokens_first: bool = False
    has_logsumexp: bool = False  # output 1: each query row's log-sum-exp, [B, L, H]


@dataclass(eq=False)
class Instr:
    op: str
    inputs: list[Slot]
    outputs: list[Slot]
    ints: list[int] = field(default_factory=list)
    floats: list[float] = field(default_factory=list)
    # Elementwise instructions keep a symbolic micro-program until fusion is done:
    # each op is (opcode, operands) with operands ("in", slot) | ("op", k) | ("const", float).
    micro: list | None = None
    micro_outputs: list | None = None  # per output slot: ("in", slot) | ("op", k)
    # the kernel family's typed arguments, if it has any
    args: Conv2dArgs | GemmArgs | AttentionArgs | None = None
