"""The typed arguments of each kernel family, as schema/program.fbs's KernelArgs tables: one
dataclass per table, fields named and ordered as there (the bindings read them by name). A kernel
takes its family's table, or none (embedding, convert)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class Conv2dArgs:
    """conv2d: inputs x, w, then the bias and the folded batch norm's weight, bias, mean and var
    as the flags say."""

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
    batch_norm_eps: float = 0.0


@dataclass
class GemmArgs:
    """mm, addmm and bmm: with trans_a the slot a holds A^T, likewise b; addmm alone takes beta and
    alpha, bmm no epilogue."""

    trans_a: bool = False
    trans_b: bool = False
    epilogue: int = 0  # EPILOGUES (lower.py)
    beta: float = 1.0
    alpha: float = 1.0


@dataclass(frozen=True)
class AttentionView:
    """An attention operand read in place from its slot: element (b, h, t, e) of
    [batch, heads, tokens, width] at offset + b * batch_stride + h * head_stride
    + t * token_stride + e."""

    offset: int
    batch: int
    heads: int
    tokens: int
    width: int
    batch_stride: int
    head_stride: int
    token_stride: int


@dataclass
class AttentionArgs:
    """attention: an operand with a ``*_view`` is that view of its slot; else a
    ``*_tokens_first`` slot holds [batch, tokens, heads, width], the operand being its
    transpose(1, 2)."""

    scale: float = 1.0
    causal: bool = False
    has_mask: bool = False
    q_tokens_first: bool = False
    k_tokens_first: bool = False
    v_tokens_first: bool = False
    out_tokens_first: bool = False
    has_logsumexp: bool = False  # output 1: each query row's log-sum-exp, [B, L, H]
    q_view: AttentionView | None = None
    k_view: AttentionView | None = None
    v_view: AttentionView | None = None


@dataclass
class Pool2dArgs:
    """max_pool2d and avg_pool2d (avg_pool2d: no dilation; count_include_pad and divisor_override
    are its own, 0 for none)."""

    kernel_h: int
    kernel_w: int
    stride_h: int
    stride_w: int
    pad_h: int = 0
    pad_w: int = 0
    dilation_h: int = 1
    dilation_w: int = 1
    ceil_mode: bool = False
    count_include_pad: bool = False
    divisor_override: int = 0


@dataclass
class AdaptivePool2dArgs:
    output_h: int
    output_w: int


@dataclass
class ReduceArgs:
    """sum, mean, amax, amin, any, all, var: the reduced dims; var's correction (0 for others)."""

    dims: list[int]
    keepdim: bool = False
    correction: float = 0.0


@dataclass
class DimArgs:
    """softmax, log_softmax, cumsum, gather, index_select, cat."""

    dim: int


@dataclass
class IndexArgs:
    """index: the dims of x its index tensors index, increasing."""

    dims: list[int]


@dataclass
class LayerNormArgs:
    normalized_dims: int
    has_weight: bool
    has_bias: bool
    eps: float


@dataclass
class BatchNormArgs:
    has_weight: bool
    has_bias: bool
    eps: float


@dataclass
class StridedArgs:
    """copy_strided and scatter_strided: the view ``offset + i . strides``. Offset and strides may
    be symbolic while lowering; planning writes their example values and expression ids
    (offset_expr, stride_exprs; -1 for a static value) into the copy it serializes."""

    offset: Any
    strides: list[Any]
    offset_expr: int = -1
    stride_exprs: list[int] = field(default_factory=list)


@dataclass
class FullArgs:
    value: float


@dataclass
class ArangeArgs:
    start: float
    step: float = 1.0


@dataclass
class ElementwiseArgs:
    """The fused elementwise program: (opcode, a, b, c) per op, registers read (-1 past its
    arity; CONST: a indexes constants); the register each output is stored from."""

    ops: list[tuple[int, int, int, int]]
    outputs: list[int]
    constants: list[float]


KernelArgs = (
    Conv2dArgs
    | GemmArgs
    | AttentionArgs
    | Pool2dArgs
    | AdaptivePool2dArgs
    | ReduceArgs
    | DimArgs
    | IndexArgs
    | LayerNormArgs
    | BatchNormArgs
    | StridedArgs
    | FullArgs
    | ArangeArgs
    | ElementwiseArgs
)
