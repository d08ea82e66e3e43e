"""Lowering: ATen nodes of an FX graph to the instructions of a native program.

Each supported ATen op has a handler that reads the node's arguments and its ``meta["val"]``
(shapes and dtypes) and emits instructions over :class:`Slot` values. Views are kept pending and
only copied when a consumer needs contiguous memory (see :mod:`glassbox.backend.program`).
"""

from __future__ import annotations

import operator

import torch

from glassbox.backend import elementwise as ew
from glassbox.backend.kernel_args import (
    AdaptivePool2dArgs,
    ArangeArgs,
    AttentionArgs,
    AttentionView,
    BatchNormArgs,
    Conv2dArgs,
    DimArgs,
    FullArgs,
    GemmArgs,
    IndexArgs,
    KernelArgs,
    LayerNormArgs,
    Pool2dArgs,
    ReduceArgs,
    StridedArgs,
)
from glassbox.backend.ops import GROUPED_ATTENTION, GROUPED_SDPA, ROTARY
from glassbox.backend.program import (
    ALIAS,
    BOOL,
    CONSTANT,
    FLOAT32,
    INPUT,
    INT32,
    INT64,
    Instr,
    Slot,
    View,
    contiguous_strides,
    numel,
)
from glassbox.backend.symbolic import Shapes, Unbound, dim_of, is_symbolic

aten = torch.ops.aten

DTYPES = {torch.float32: FLOAT32, torch.int64: INT64, torch.bool: BOOL, torch.int32: INT32}


class Unsupported(Exception):
    """This node cannot run natively; the partitioner sends it to PyTorch."""


class NodeUnsupported(Unsupported):
    """Lowering ``node`` failed (an op's symbolic form it cannot handle, ...): that node falls back
    and the graph is partitioned again."""

    def __init__(self, node, reason: str) -> None:
        super().__init__(f"{node.target}: {reason}")
        self.node, self.reason = node, reason


def dtype_code(dtype) -> int:
    if dtype not in DTYPES:
        raise Unsupported(f"dtype {dtype}")
    return DTYPES[dtype]


def meta_val(node):
    return node.meta.get("val")


def shape_of(t) -> tuple:
    """The sizes of a traced tensor: ints, or sympy expressions where they depend on symbols."""
    return tuple(dim_of(d) for d in t.shape)


def is_symbolic_scalar(val) -> bool:
    """A traced value that is a size (an int computed from symbols), not a tensor."""
    return isinstance(val, (torch.SymInt, int)) and not isinstance(val, bool)


def _strided(offset, strides) -> StridedArgs:
    """A view's StridedArgs: plain ints, or SymInt expressions that planning resolves."""
    return StridedArgs(
        offset if is_symbolic(offset) else int(offset),
        [s if is_symbolic(s) else int(s) for s in strides],
    )


class Lowerer:
    """Lowers one segment of nodes. ``env`` maps FX nodes to slots (or tuples of slots)."""

    def __init__(self) -> None:
        self.instrs: list[Instr] = []
        self.constants: list[bytes] = []
        # A tensor named twice (tied weights: an embedding and the head that reuses it) is one
        # constant: keyed by its memory and layout, the tensor held so its address stays its own.
        self._constant_index: dict[tuple, tuple[int, torch.Tensor]] = {}
        self.env: dict = {}
        self.shapes = Shapes()

    # -- slots -------------------------------------------------------------------------------
    def new_slot(self, val) -> Slot:
        self.shapes.note(val)
        return Slot(dtype_code(val.dtype), shape_of(val))

    def input_slot(self, val, position: int) -> Slot:
        self.shapes.note(val)
        return Slot(dtype_code(val.dtype), shape_of(val), kind=INPUT, index=position)

    def constant_slot(self, tensor: torch.Tensor) -> Slot:
        key = None
        if tensor.device.type == "cpu" and tensor.layout == torch.strided:
            key = (
                tensor.untyped_storage().data_ptr(),
                tensor.storage_offset(),
                tuple(tensor.shape),
                tensor.stride(),
                tensor.dtype,
            )
            if key in self._constant_index:
                return Slot(
                    dtype_code(tensor.dtype),
                    tuple(tensor.shape),
                    kind=CONSTANT,
                    index=self._constant_index[key][0],
                )
        # A real tensor of the graph (a get_attr constant) read as it is, whatever mode the
        # compiler runs under: AOTAutograd compiles training graphs under a fake tensor mode.
        from torch.utils._python_dispatch import _disable_current_modes

        with _disable_current_modes():
            t = tensor.detach().contiguous().cpu()
            data = t.numpy().tobytes()
        slot = Slot(dtype_code(t.dtype), tuple(t.shape), kind=CONSTANT, index=len(self.constants))
        if key is not None:
            self._constant_index[key] = (len(self.constants), tensor)
        self.constants.append(data)
        return slot

    def alias(self, slot: Slot, shape) -> Slot:
        slot = self.contiguous(slot)
        return Slot(slot.dtype, tuple(shape), kind=ALIAS, alias_of=slot.root())

    def view_of(self, slot: Slot, shape, strides, offset) -> Slot:
        """A pending strided view (over the contiguous memory of ``slot``'s base)."""
        if slot.view is not None and slot.materialized is None:
            base = slot.view.base
        else:
            base = self.contiguous(slot)
        return Slot(base.dtype, tuple(shape), view=View(base, tuple(strides), offset))

    def layout(self, slot: Slot):
        """(base, strides, offset) of a slot, pending view or not."""
        if slot.view is not None and slot.materialized is None:
            return slot.view.base, slot.view.strides, slot.view.offset
        s = self.contiguous(slot)
        return s, contiguous_strides(s.shape), 0

    def contiguous(self, slot: Slot) -> Slot:
        if slot.view is None:
            return slot
        if slot.materialized is None:
            v = slot.view
            if (
                v.offset == 0
                and v.strides == contiguous_strides(slot.shape)
                and numel(slot.shape) == numel(v.base.shape)
            ):
                slot.materialized = Slot(slot.dtype, slot.shape, kind=ALIAS, alias_of=v.base.root())
            else:
                out = Slot(slot.dtype, slot.shape)
                self.emit("copy_strided", [v.base], [out], _strided(v.offset, v.strides))
                slot.materialized = out
        return slot.materialized

    def broadcastable(self, slot: Slot) -> Slot:
        """For elementwise operands: an expanded view is read through broadcasting, no copy."""
        if slot.view is None:
            return slot
        if slot.materialized is not None:  # copied already: read the copy
            return slot.materialized
        v = slot.view
        reduced = tuple(1 if st == 0 else d for d, st in zip(slot.shape, v.strides, strict=False))
        expect = contiguous_strides(reduced)
        if (
            v.offset == 0
            and numel(reduced) == numel(v.base.shape)
            and all(st == e for st, e, d in zip(v.strides, expect, reduced, strict=False) if d != 1)
        ):
            return Slot(slot.dtype, reduced, kind=ALIAS, alias_of=v.base.root())
        return self.contiguous(slot)

    def emit(self, op, inputs, outputs, args: KernelArgs | None = None) -> Instr:
        if args is not None and not isinstance(args, StridedArgs):
            for name, value in vars(args).items():
                if any(is_symbolic(v) for v in (value if isinstance(value, list) else [value])):
                    raise Unsupported(f"symbolic {type(args).__name__}.{name}")
        ins = Instr(op, list(inputs), list(outputs), args)
        self.instrs.append(ins)
        return ins

    # -- nodes -------------------------------------------------------------------------------
    def arg(self, a):
        if isinstance(a, torch.fx.Node):
            return self.env[a]
        if isinstance(a, (list, tuple)):
            return type(a)(self.arg(x) for x in a)
        return a

    def lower_node(self, node) -> None:
        handler = HANDLERS.get(node.target)
        if handler is None:
            raise Unsupported(str(node.target))
        args = [self.arg(a) for a in node.args]
        kwargs = {k: self.arg(v) for k, v in node.kwargs.items()}
        try:
            self.env[node] = handler(self, node, *args, **kwargs)
        except NodeUnsupported:
            raise
        except (Unsupported, Unbound) as e:
            raise NodeUnsupported(node, str(e)) from e
        except (TypeError, ValueError) as e:  # a size whose symbolic form the handler cannot use
            raise NodeUnsupported(node, f"{type(e).__name__}: {e}") from e


def check_supported(node) -> None:
    """Raise Unsupported unless this node can be lowered (op known, static float/int/bool)."""
    if node.target not in HANDLERS:
        raise Unsupported(str(node.target))
    vals = meta_val(node)
    vals = vals if isinstance(vals, (list, tuple)) else [vals]
    for v in vals:
        if isinstance(v, torch.Tensor):
            dtype_code(v.dtype)
        elif v is not None and node.target is not operator.getitem:
            raise Unsupported("non-tensor output")
    for a in node.all_input_nodes:
        v = meta_val(a)
        if isinstance(v, torch.Tensor):
            dtype_code(v.dtype)
        elif not isinstance(v, (list, tuple)) and not is_symbolic_scalar(v):
            raise Unsupported("non-tensor input")
    check = CHECKS.get(node.target)
    if check is not None:
        try:
            check(node)
        except Unsupported:
            raise
        except Exception as e:  # a check that cannot read the node: do not lower it
            raise Unsupported(f"{node.target}: {e}") from e


# -- handlers ----------------------------------------------------------------------------------
HANDLERS: dict = {}
CHECKS: dict = {}


def handles(*targets, check=None):
    def register(fn):
        for t in targets:
            HANDLERS[t] = fn
            if check is not None:
                CHECKS[t] = check
        return fn

    return register


def out_slot(lw: Lowerer, node) -> Slot:
    return lw.new_slot(meta_val(node))


# Elementwise ------------------------------------------------------------------------------------
def operand(lw: Lowerer, e: ew.Expr, x):
    if isinstance(x, Slot):
        return e.inp(lw.broadcastable(x))
    if isinstance(x, bool):
        return e.const(1.0 if x else 0.0)
    if isinstance(x, (int, float)):
        return e.const(float(x))
    raise Unsupported(f"operand {type(x).__name__}")


INT_SAFE = {
    aten.add.Tensor, aten.add.Scalar, aten.sub.Tensor, aten.sub.Scalar, aten.rsub.Scalar,
    aten.mul.Tensor, aten.mul.Scalar, aten.neg.default, aten.abs.default, aten.maximum.default,
    aten.minimum.default, aten.where.self, aten.clamp.default, aten.masked_fill.Scalar,
}  # fmt: skip


def ew_check(node):
    dtype = meta_val(node).dtype
    if dtype in (torch.int64, torch.int32) and node.target not in INT_SAFE:
        raise Unsupported(f"{dtype} result of a non-integer op")
    if dtype not in DTYPES:
        raise Unsupported("elementwise on unsupported dtype")
    if node.target in (aten.bitwise_and.Tensor, aten.bitwise_or.Tensor, aten.bitwise_not.default):
        if any(meta_val(a).dtype != torch.bool for a in node.all_input_nodes):
            raise Unsupported("bitwise op on non-bool")


def elementwise(build):
    """Wrap a builder ``build(e, *operands, **kw) -> ref`` into a node handler."""

    def handler(lw: Lowerer, node, *args, **kwargs):
        e = ew.Expr()
        ops = [operand(lw, e, a) if isinstance(a, (Slot, int, float)) else a for a in args]
        result = build(e, *ops, **kwargs)
        out = out_slot(lw, node)
        lw.instrs.append(ew.make_instr(e, result, out))
        return out

    return handler


def binary(name):
    return elementwise(lambda e, a, b: e.op(name, a, b))


def unary(name):
    return elementwise(lambda e, a: e.op(name, a))


def with_alpha(name):
    def build(e, a, b, alpha=1):
        if alpha != 1:
            b = e.op("MUL", b, e.const(alpha))
        return e.op(name, a, b)

    return elementwise(build)


for _t, _n in [
    (aten.add.Tensor, "ADD"), (aten.add.Scalar, "ADD"), (aten.sub.Tensor, "SUB"),
    (aten.sub.Scalar, "SUB"), (aten.rsub.Scalar, "RSUB"),
]:  # fmt: skip
    if _n != "RSUB":
        handles(_t, check=ew_check)(with_alpha(_n))
handles(aten.rsub.Scalar, check=ew_check)(
    elementwise(lambda e, a, b, alpha=1: e.op("SUB", b, e.op("MUL", a, e.const(alpha))))
)
for _t, _n in [
    (aten.mul.Tensor, "MUL"), (aten.mul.Scalar, "MUL"), (aten.div.Tensor, "DIV"),
    (aten.div.Scalar, "DIV"), (aten.pow.Tensor_Tensor, "POW"), (aten.maximum.default, "MAX"),
    (aten.minimum.default, "MIN"), (aten.eq.Tensor, "EQ"), (aten.eq.Scalar, "EQ"),
    (aten.ne.Tensor, "NE"), (aten.ne.Scalar, "NE"), (aten.lt.Tensor, "LT"), (aten.lt.Scalar, "LT"),
    (aten.le.Tensor, "LE"), (aten.le.Scalar, "LE"), (aten.gt.Tensor, "GT"), (aten.gt.Scalar, "GT"),
    (aten.ge.Tensor, "GE"), (aten.ge.Scalar, "GE"), (aten.logical_and.default, "AND"),
    (aten.logical_or.default, "OR"), (aten.bitwise_and.Tensor, "AND"),
    (aten.bitwise_or.Tensor, "OR"),
]:  # fmt: skip
    handles(_t, check=ew_check)(binary(_n))
for _t, _n in [
    (aten.neg.default, "NEG"), (aten.abs.default, "ABS"),
    (aten.sigmoid.default, "SIGMOID"), (aten.tanh.default, "TANH"), (aten.exp.default, "EXP"),
    (aten.log.default, "LOG"), (aten.sqrt.default, "SQRT"), (aten.rsqrt.default, "RSQRT"),
    (aten.reciprocal.default, "RECIP"), (aten.erf.default, "ERF"),
    (aten.logical_not.default, "NOT"), (aten.sin.default, "SIN"), (aten.cos.default, "COS"),
    (aten.log1p.default, "LOG1P"), (aten.expm1.default, "EXPM1"), (aten.floor.default, "FLOOR"),
    (aten.ceil.default, "CEIL"), (aten.round.default, "ROUND"), (aten.sign.default, "SIGN"),
    (aten.isnan.default, "ISNAN"), (aten.bitwise_not.default, "NOT"),
]:  # fmt: skip
    handles(_t, check=ew_check)(unary(_n))


@handles(aten.pow.Tensor_Scalar, check=ew_check)
@elementwise
def _pow_scalar(e, a, b):
    if b[0] == "op" and e.ops[b[1]][0] == ew.OP["CONST"]:
        exponent = e.ops[b[1]][2]
        if exponent == 2.0:
            return e.op("MUL", a, a)
        if exponent == 3.0:  # as ATen's pow kernel computes it: (a * a) * a
            return e.op("MUL", e.op("MUL", a, a), a)
        if exponent == 0.5:
            return e.op("SQRT", a)
        if exponent == -1.0:
            return e.op("RECIP", a)
    return e.op("POW", a, b)


@elementwise
def _gelu(e, a, approximate="none"):
    return e.op("GELU_TANH" if approximate == "tanh" else "GELU", a)


# Activations a product applies to its result as it writes it (GemmArgs.epilogue,
# Conv2dArgs.epilogue).
EPILOGUES = {"RELU": 1, "GELU": 2, "GELU_TANH": 3, "SILU": 4}
_RESHAPES = (aten.view.default, aten._unsafe_view.default, aten.reshape.default)


def _last_writer_of(lw: Lowerer, x):
    """The last instruction emitted when ``x`` is its first output as a whole (no pending view),
    else None: the instruction that may still take on more work on ``x`` (a fold)."""
    last = lw.instrs[-1] if lw.instrs else None
    if last is None or not isinstance(x, Slot) or x.view is not None:
        return None
    return last if x.root() is last.outputs[0] else None


def fold_activation(lw: Lowerer, node, x, name):
    """The slot of ``node`` (an activation of ``x``) when the activation can be applied by the
    product or convolution that computed ``x``, or None. That instruction must be the last one
    emitted and its result read by this node alone, directly or through reshapes (a convolution:
    directly, or through the batch norm it applies, see _fold_batch_norm), so no one sees it before
    the activation: the epilogue field of its GemmArgs or Conv2dArgs."""
    last = _last_writer_of(lw, x)
    if last is None:
        return None
    n = node.args[0]
    if last.op in ("mm", "addmm") and last.args.epilogue == 0:
        while len(n.users) == 1 and n.target in _RESHAPES:
            n = n.args[0]
        if len(n.users) != 1 or n.target not in (aten.mm.default, aten.addmm.default):
            return None
    elif last.op == "conv2d" and last.args.epilogue == 0:
        if n.target is operator.getitem and len(n.users) == 1:
            n = n.args[0]  # the batch norm folded into the convolution: its only reader is n
        if len(n.users) != 1 or n.target not in (aten.convolution.default, _BATCH_NORM):
            return None
        last.args.epilogue = EPILOGUES[name]
        return lw.alias(last.outputs[0], shape_of(meta_val(node)))
    else:
        return None
    last.args.epilogue = EPILOGUES[name]
    return lw.alias(last.outputs[0], shape_of(meta_val(node)))


_relu = unary("RELU")


@handles(aten.gelu.default, check=ew_check)
def _gelu_or_epilogue(lw, node, x, approximate="none"):
    name = "GELU_TANH" if approximate == "tanh" else "GELU"
    return fold_activation(lw, node, x, name) or _gelu(lw, node, x, approximate=approximate)


_silu = unary("SILU")


@handles(aten.silu.default, check=ew_check)
def _silu_or_epilogue(lw, node, x):
    return fold_activation(lw, node, x, "SILU") or _silu(lw, node, x)


@handles(aten.relu.default, check=ew_check)
def _relu_or_epilogue(lw, node, x):
    return fold_activation(lw, node, x, "RELU") or _relu(lw, node, x)


@handles(aten.where.self, check=ew_check)
@elementwise
def _where(e, c, a, b):
    return e.op("WHERE", c, a, b)


@handles(aten.clamp.default, check=ew_check)
@elementwise
def _clamp(e, a, lo=None, hi=None):
    if lo is not None:
        a = e.op("MAX", a, e.const(lo) if not isinstance(lo, tuple) else lo)
    if hi is not None:
        a = e.op("MIN", a, e.const(hi) if not isinstance(hi, tuple) else hi)
    return a


@handles(aten.hardtanh.default, check=ew_check)
@elementwise
def _hardtanh(e, a, lo=-1.0, hi=1.0):
    lo, hi = (v if isinstance(v, tuple) else e.const(v) for v in (lo, hi))  # given: operands
    return e.op("MIN", e.op("MAX", a, lo), hi)


def float_slot(lw: Lowerer, shape, build, *slots) -> Slot:
    """A new float32 slot of ``shape``: ``build(e, *refs)`` over ``slots`` (broadcast to it)."""
    e = ew.Expr()
    out = Slot(dtype_code(torch.float32), tuple(shape))
    lw.instrs.append(ew.make_instr(e, build(e, *(e.inp(lw.broadcastable(s)) for s in slots)), out))
    return out


@handles(aten.masked_fill.Scalar, check=ew_check)
@elementwise
def _masked_fill(e, a, mask, value):
    return e.op("WHERE", mask, value, a)


@handles(aten.threshold_backward.default, check=ew_check)
@elementwise
def _threshold_backward(e, grad, x, threshold):
    return e.op("WHERE", e.op("LE", x, threshold), e.const(0.0), grad)


@handles(aten.sigmoid_backward.default, check=ew_check)
@elementwise
def _sigmoid_backward(e, grad, y):
    return e.op("MUL", grad, e.op("MUL", y, e.op("SUB", e.const(1.0), y)))


@handles(aten.tanh_backward.default, check=ew_check)
@elementwise
def _tanh_backward(e, grad, y):
    return e.op("MUL", grad, e.op("SUB", e.const(1.0), e.op("MUL", y, y)))


# GEMM -------------------------------------------------------------------------------------------
def gemm_operand(lw: Lowerer, slot: Slot):
    """(slot, transposed): a transpose of the last two dims is folded into the product."""
    base, strides, offset = lw.layout(slot)
    nd = len(slot.shape)
    if offset == 0 and nd >= 2 and numel(base.shape) == numel(slot.shape):
        want_t = list(contiguous_strides(slot.shape[:-2] + (slot.shape[-1], slot.shape[-2])))
        want_t[-1], want_t[-2] = want_t[-2], want_t[-1]
        if tuple(strides) == tuple(want_t) and any(d != 1 for d in slot.shape):
            t_shape = slot.shape[:-2] + (slot.shape[-1], slot.shape[-2])
            return Slot(base.dtype, t_shape, kind=ALIAS, alias_of=base.root()), 1
    return lw.contiguous(slot), 0


def gemm_check(node):
    for a in node.all_input_nodes:
        if meta_val(a).dtype != torch.float32:
            raise Unsupported("gemm on non-float32")


@handles(aten.mm.default, check=gemm_check)
def _mm(lw, node, a, b):
    (a, ta), (b, tb) = gemm_operand(lw, a), gemm_operand(lw, b)
    out = out_slot(lw, node)
    lw.emit("mm", [a, b], [out]).args = GemmArgs(bool(ta), bool(tb))
    return out


@handles(aten.bmm.default, check=gemm_check)
def _bmm(lw, node, a, b):
    (a, ta), (b, tb) = gemm_operand(lw, a), gemm_operand(lw, b)
    out = out_slot(lw, node)
    lw.emit("bmm", [a, b], [out]).args = GemmArgs(bool(ta), bool(tb))
    return out


@handles(aten.addmm.default, check=gemm_check)
def _addmm(lw, node, bias, a, b, beta=1, alpha=1):
    (a, ta), (b, tb) = gemm_operand(lw, a), gemm_operand(lw, b)
    out = out_slot(lw, node)
    ins = lw.emit("addmm", [lw.broadcastable(bias), a, b], [out])
    ins.args = GemmArgs(bool(ta), bool(tb), beta=float(beta), alpha=float(alpha))
    return out


# Attention --------------------------------------------------------------------------------------
FLASH_ATTENTION = aten._scaled_dot_product_flash_attention_for_cpu.default
SDPA = aten.scaled_dot_product_attention.default


def attention_is_native(query, key, value, dropout_p=0.0, is_causal=False, attn_mask=None,
                        scale=None) -> bool:  # fmt: skip
    """Whether the attention kernel computes this call of CPU flash attention (tensors or their
    fake values): float32 [B, H, L, E] against [B, Hk, S, E] with H a multiple of Hk, no dropout,
    a float32 mask of at most 4 dims or none, and a head size known now when no scale is given."""
    tensors = (query, key, value) + ((attn_mask,) if attn_mask is not None else ())
    if any(t.dtype != torch.float32 for t in tensors) or dropout_p != 0.0:
        return False
    if any(t.dim() != 4 for t in tensors[:3]) or attn_mask is not None and attn_mask.dim() > 4:
        return False
    from torch.fx.experimental.symbolic_shapes import statically_known_true as known

    q, k, v = query.shape, key.shape, value.shape
    if scale is None and not isinstance(q[3], int):
        return False
    same = [(k[i], v[i]) for i in range(4)] + [(q[0], k[0]), (q[3], k[3]), (q[1] % k[1], 0)]
    return all(known(a == b) for a, b in same)


def _traced_call(node) -> tuple[tuple, dict]:
    """A node's arguments with each node replaced by its traced value."""
    return torch.fx.node.map_arg((node.args, dict(node.kwargs)), meta_val)


def attention_check(node):
    args, kwargs = _traced_call(node)
    if not attention_is_native(*args, **kwargs):
        raise Unsupported("attention: dtype, dropout, mask or head layout")
    if any(u.target is not operator.getitem for u in node.users):
        raise Unsupported("attention: its outputs are read whole")


BLAS_LEADING_DIM_MAX = 2**31 - 1  # a row stride BLAS takes (blasint)


def attention_view(shape, strides, offset) -> AttentionView | None:
    """The AttentionView of a [B, H, T, E] view of its base, or None where the kernel cannot read
    it in place: a symbolic size, stride or offset, a stride other than 1 along E, a negative
    one, or rows closer than E apart. A size-1 dim's stride is never followed: its rows are made
    E apart (what BLAS asks of a row stride)."""
    if any(is_symbolic(x) for x in (*shape, *strides, offset)):
        return None
    (b, h, t, e), (sb, sh, st, se) = (int(x) for x in shape), (int(x) for x in strides)
    if t == 1:
        st = max(e, 1)
    if (se != 1 and e != 1) or min(sb, sh, st) < 0 or not max(e, 1) <= st <= BLAS_LEADING_DIM_MAX:
        return None
    return AttentionView(int(offset), b, h, t, e, sb, sh, st)


def attention_operand(lw: Lowerer, slot: Slot) -> tuple[Slot, bool, AttentionView | None]:
    """(slot, tokens_first, view) for a [B, H, T, E] operand: a contiguous tensor is read as it
    is and the transpose(1, 2) of a contiguous [B, T, H, E] one by its flag; any other view whose
    last stride is 1 is read in place from its base (q, k and v split from one fused projection),
    the rest as a contiguous [B, H, T, E] copy."""
    base, strides, offset = lw.layout(slot)
    b, h, t, e = slot.shape
    if offset == 0 and numel(base.shape) == numel(slot.shape):
        if tuple(strides) == (t * h * e, e, h * e, 1) and h != 1 and t != 1:
            return Slot(base.dtype, (b, t, h, e), kind=ALIAS, alias_of=base.root()), True, None
        if tuple(strides) == contiguous_strides(slot.shape):
            return lw.contiguous(slot), False, None
    view = attention_view(slot.shape, strides, offset)  # a pending view: copied if not read
    if view is None:
        return lw.contiguous(slot), False, None
    return base, False, view


def attention_mask(lw: Lowerer, mask: Slot, scores) -> Slot:
    """The mask as a 4-dim slot whose dims are each the scores' or 1, the last one the scores'."""
    reduced = lw.broadcastable(mask)
    if reduced.shape[-1:] != scores[-1:]:
        reduced = lw.contiguous(mask)
    if len(reduced.shape) < 4:
        reduced = lw.alias(reduced, (1,) * (4 - len(reduced.shape)) + tuple(reduced.shape))
    return reduced


def sdpa_is_native(query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False,
                   scale=None, enable_gqa=False) -> bool:  # fmt: skip
    """Whether the attention kernel computes this call of torch's scaled_dot_product_attention
    (a boolean mask becomes a float one first; CPU tensors, or their fake values)."""
    if query.device.type != "cpu" or query.dim() != 4 or key.dim() != 4:
        return False
    if not enable_gqa and query.shape[1] != key.shape[1]:
        return False
    mask = attn_mask
    if attn_mask is not None and attn_mask.dtype == torch.bool:
        mask = query.new_empty(attn_mask.shape)
    return attention_is_native(query, key, value, dropout_p, is_causal, mask, scale)


def sdpa_check(node):
    args, kwargs = _traced_call(node)
    if not sdpa_is_native(*args, **kwargs):
        raise Unsupported("attention: dtype, dropout, mask or head layout")


def emit_attention(lw: Lowerer, val, q, k, v, is_causal, mask, scale, logsumexp=False):
    """The attention instruction; its output a [B, H, L, E] view of a [B, L, H, E] slot, and with
    ``logsumexp`` each query row's log-sum-exp, a [B, H, L] view of a [B, L, H] slot (the layout
    CPU flash attention saves for its backward)."""
    (qs, qt, qv), (ks, kt, kv), (vs, vt, vv) = (attention_operand(lw, x) for x in (q, k, v))
    b, h, length, e = q.shape
    if scale is None:
        scale = 1.0 / float(e) ** 0.5
    inputs = [qs, ks, vs]
    if mask is not None:
        inputs.append(attention_mask(lw, mask, (b, h, length, k.shape[2])))
    out = Slot(FLOAT32, (b, length, h, e))
    outs = [out] + ([Slot(FLOAT32, (b, length, h))] if logsumexp else [])
    lw.shapes.note(val)
    ins = lw.emit("attention", inputs, outs)
    ins.args = AttentionArgs(
        float(scale), bool(is_causal), mask is not None, qt, kt, vt, True, bool(logsumexp),
        q_view=qv, k_view=kv, v_view=vv,
    )  # fmt: skip
    view = lw.view_of(out, (b, h, length, e), (length * h * e, e, h * e, 1), 0)
    if not logsumexp:
        return view
    return view, lw.view_of(outs[1], (b, h, length), (length * h, 1, h), 0)


@handles(FLASH_ATTENTION, check=attention_check)
def _attention(lw, node, q, k, v, dropout_p=0.0, is_causal=False, attn_mask=None, scale=None):
    saved = any(u.args[1] == 1 for u in node.users)  # training: the backward reads it
    out = emit_attention(lw, meta_val(node)[0], q, k, v, is_causal, attn_mask, scale, saved)
    return out if saved else (out, None)


def grouped_attention_check(node):
    (q, k, v, mask, dropout_p, is_causal, scale), _ = _traced_call(node)
    if not attention_is_native(q, k, v, dropout_p, is_causal, mask, scale):
        raise Unsupported("attention: dtype, dropout, mask or head layout")


@handles(GROUPED_ATTENTION, check=grouped_attention_check)
def _grouped_attention(lw, node, q, k, v, attn_mask, dropout_p, is_causal, scale):
    """glassbox::grouped_attention (patterns.py): k and v with fewer heads than q, each read for
    its group of query heads by the kernel."""
    return emit_attention(lw, meta_val(node), q, k, v, is_causal, attn_mask, scale)


@handles(SDPA, check=sdpa_check)
def _sdpa(lw, node, q, k, v, attn_mask=None, dropout_p=0.0, is_causal=False, scale=None,
          enable_gqa=False):  # fmt: skip
    """torch's own scaled_dot_product_attention, as torch.export keeps it: a boolean mask is made
    the float mask CPU flash attention takes (0 where True, -inf where False)."""
    if attn_mask is not None and attn_mask.dtype == BOOL:
        m = lw.broadcastable(attn_mask)
        inf = float("inf")
        attn_mask = float_slot(
            lw, m.shape, lambda e, x: e.op("WHERE", x, e.const(0.0), e.const(-inf)), m
        )
    return emit_attention(lw, meta_val(node), q, k, v, is_causal, attn_mask, scale)


def grouped_sdpa_check(node):
    (q, k, v, mask, dropout_p, is_causal, scale), _ = _traced_call(node)
    if not sdpa_is_native(q, k, v, mask, dropout_p, is_causal, scale, enable_gqa=True):
        raise Unsupported("attention: dtype, dropout, mask or head layout")


@handles(GROUPED_SDPA, check=grouped_sdpa_check)
def _grouped_sdpa(lw, node, q, k, v, attn_mask, dropout_p, is_causal, scale):
    """glassbox::grouped_sdpa (patterns.py): torch's attention, k and v with fewer heads."""
    return _sdpa(lw, node, q, k, v, attn_mask, dropout_p, is_causal, scale, True)


# Views ------------------------------------------------------------------------------------------
def _view_strides(lw, x):
    base, strides, offset = lw.layout(x)
    return base, list(strides), offset


def view_strides(shape, strides, new_shape, lt=operator.lt):
    """Strides that show a tensor of ``shape`` and ``strides`` as ``new_shape`` without copying,
    or None where no view can (PyTorch's computeStride): dims are merged or split only within
    runs of dims that are contiguous with each other. ``lt`` compares sizes (symbolic ones by
    their ranges, see Shapes.lt)."""
    if not shape or numel(shape) == 0:
        return None
    new = [0] * len(new_shape)
    view_d = len(new_shape) - 1
    chunk_base = strides[-1]
    tensor_numel = view_numel = 1
    for d in reversed(range(len(shape))):
        tensor_numel *= shape[d]
        if d == 0 or (shape[d - 1] != 1 and strides[d - 1] != tensor_numel * chunk_base):
            while view_d >= 0 and (lt(view_numel, tensor_numel) or new_shape[view_d] == 1):
                new[view_d] = view_numel * chunk_base
                view_numel *= new_shape[view_d]
                view_d -= 1
            if view_numel != tensor_numel:
                return None
            if d > 0:
                chunk_base = strides[d - 1]
                tensor_numel = view_numel = 1
    return new if view_d == -1 else None


@handles(aten.view.default, aten._unsafe_view.default, aten.reshape.default)
def _reshape(lw, node, x, shape):
    shape = shape_of(meta_val(node))
    if x.view is not None and x.materialized is None:
        # A pending view stays one where it can (a slice of q/k/v split into heads): its
        # consumer then gathers from the base once instead of twice.
        base, strides, offset = lw.layout(x)
        new = view_strides(x.shape, strides, shape, lw.shapes.lt)
        if new is not None:
            return lw.view_of(x, shape, new, offset)
    return lw.alias(x, shape)


@handles(aten.squeeze.dim, aten.squeeze.dims, aten.squeeze.default, aten.unsqueeze.default)
def _squeeze(lw, node, x, *dims):
    shape = shape_of(meta_val(node))
    if x.view is None or x.materialized is not None:
        return lw.alias(x, shape)
    base, strides, offset = _view_strides(lw, x)
    keep = [(d, s) for d, s in zip(x.shape, strides, strict=False) if d != 1]
    it = iter(keep)
    new_strides = [next(it)[1] if d != 1 else 0 for d in shape]
    return lw.view_of(x, shape, new_strides, offset)


@handles(aten.clone.default, aten.alias.default, aten.lift_fresh_copy.default, aten.detach.default)
def _clone(lw, node, x, **kwargs):
    return x


@handles(aten.permute.default)
def _permute(lw, node, x, dims):
    base, strides, offset = _view_strides(lw, x)
    nd = len(x.shape)
    dims = [d % nd for d in dims] if nd else []
    return lw.view_of(x, [x.shape[d] for d in dims], [strides[d] for d in dims], offset)


@handles(aten.t.default, aten.transpose.int)
def _transpose(lw, node, x, d0=0, d1=1):
    nd = len(x.shape)
    if nd < 2:
        return x
    dims = list(range(nd))
    d0, d1 = d0 % nd, d1 % nd
    dims[d0], dims[d1] = dims[d1], dims[d0]
    return _permute(lw, node, x, dims)


@handles(aten.expand.default)
def _expand(lw, node, x, sizes, implicit=False):
    return broadcast_view(lw, x, shape_of(meta_val(node)))


def broadcast_view(lw, x, shape):
    """``x`` broadcast to ``shape``, a pending view."""
    base, strides, offset = _view_strides(lw, x)
    lead = len(shape) - len(x.shape)
    new_strides = [0] * lead + [
        0 if (x.shape[i] == 1 and shape[lead + i] != 1) else strides[i] for i in range(len(x.shape))
    ]
    return lw.view_of(x, shape, new_strides, offset)


@handles(aten.slice.Tensor)
def _slice(lw, node, x, dim=0, start=None, end=None, step=1):
    base, strides, offset = _view_strides(lw, x)
    dim %= len(x.shape)
    size = x.shape[dim]
    start = 0 if start is None else start
    end = size if end is None else end
    if any(is_symbolic(v) for v in (size, start, end)):
        return _symbolic_slice(lw, node, x, dim, start, step, strides, offset)
    start = max(0, min(size, start + size if start < 0 else start))
    end = max(start, min(size, end + size if end < 0 else end))
    shape = list(x.shape)
    shape[dim] = (end - start + step - 1) // step
    offset += start * strides[dim]
    strides[dim] *= step
    return lw.view_of(x, shape, strides, offset)


def _symbolic_slice(lw, node, x, dim, start, step, strides, offset):
    """A slice whose bounds or size depend on symbols: its size as traced, its start as given
    (from the end where negative; clamped starts are left to the runtime's checks)."""
    if is_symbolic(start) or start < 0:
        raise Unsupported("a slice whose start depends on the sizes")
    shape = list(x.shape)
    shape[dim] = shape_of(meta_val(node))[dim] if node.target is aten.slice.Tensor else None
    if shape[dim] is None:
        raise Unsupported("a split of a symbolic size")
    offset += start * strides[dim]
    strides[dim] *= step
    return lw.view_of(x, shape, strides, offset)


@handles(aten.select.int)
def _select(lw, node, x, dim, index):
    base, strides, offset = _view_strides(lw, x)
    dim %= len(x.shape)
    index = index + x.shape[dim] if index < 0 else index
    offset += index * strides[dim]
    shape = list(x.shape)
    del shape[dim], strides[dim]
    return lw.view_of(x, shape, strides, offset)


@handles(aten.split_with_sizes.default, aten.split.Tensor)
def _split(lw, node, x, sizes, dim=0):
    dim %= len(x.shape)
    if isinstance(sizes, int):
        n = x.shape[dim]
        sizes = [min(sizes, n - i) for i in range(0, n, sizes)] or [0]
    outs, start = [], 0
    for size in sizes:
        outs.append(_slice(lw, node, x, dim, start, start + size, 1))
        start += size
    return tuple(outs)


@handles(aten.repeat.default)
def _repeat(lw, node, x, repeats):
    """``x`` tiled ``repeats`` times along each dim (leading dims added as needed): a view with a
    stride-0 copy dim before each of x's dims, copied, then read as the result's shape."""
    out_shape = shape_of(meta_val(node))
    if any(is_symbolic(v) for v in (*repeats, *x.shape)):
        raise Unsupported("repeat with symbolic sizes")
    _, strides, offset = _view_strides(lw, x)
    lead = len(repeats) - len(x.shape)
    sizes, steps = [1] * lead + list(x.shape), [0] * lead + strides
    shape, tiled_strides = [], []
    for r, size, step in zip(repeats, sizes, steps, strict=True):
        shape += [r, size]
        tiled_strides += [0, step]
    tiled = lw.view_of(x, shape, tiled_strides, offset)
    return lw.alias(tiled, out_shape)


@handles(aten.constant_pad_nd.default)
def _constant_pad(lw, node, x, pad, value=0):
    """``x`` inside a tensor filled with ``value``: ``pad`` gives (before, after) per dim from the
    last. Negative pads (crops) are left to PyTorch."""
    if any(is_symbolic(v) or v < 0 for v in pad) or any(is_symbolic(d) for d in x.shape):
        raise Unsupported("a crop or symbolic padding")
    out_shape = shape_of(meta_val(node))
    filled = Slot(x.dtype, out_shape)
    lw.emit("full", [], [filled], FullArgs(float(value)))
    strides = contiguous_strides(out_shape)
    offset = sum(pad[2 * i] * strides[len(out_shape) - 1 - i] for i in range(len(pad) // 2))
    return _scatter_strided(lw, node, filled, x, list(strides), offset)


@handles(aten.cat.default)
def _cat(lw, node, tensors, dim=0):
    out = out_slot(lw, node)
    ins = [
        lw.contiguous(t) for t in tensors if numel(t.shape) > 0 or len(t.shape) == len(out.shape)
    ]
    ins = [t for t in ins if len(t.shape) == len(out.shape)]
    lw.emit("cat", ins, [out], DimArgs(dim % len(out.shape)))
    return out


@handles(aten._to_copy.default)
def _to_copy(lw, node, x, **kwargs):
    out = out_slot(lw, node)
    if out.dtype == x.dtype:
        return x
    lw.emit("convert", [lw.contiguous(x)], [out])
    return out


@handles(torch.ops.prims.convert_element_type.default)
def _convert_element_type(lw, node, x, dtype):
    return _to_copy(lw, node, x)


@handles(aten.full.default)
@handles(aten.full_like.default)
def _full(lw, node, size, value, **kwargs):
    out = out_slot(lw, node)
    lw.emit("full", [], [out], FullArgs(float(value)))
    return out


@handles(aten.scalar_tensor.default)
def _scalar_tensor(lw, node, value, **kwargs):
    out = out_slot(lw, node)
    lw.emit("full", [], [out], FullArgs(float(value)))
    return out


@handles(aten.arange.start_step)
def _arange(lw, node, start, end, step=1, **kwargs):
    out = out_slot(lw, node)
    lw.emit("arange", [], [out], ArangeArgs(float(start), float(step)))
    return out


@handles(operator.getitem)
def _getitem(lw, node, xs, i):
    return xs[i]


def _metadata_check(node):
    """``_assert_tensor_metadata`` checks a traced tensor's metadata, which is static here (the
    graph runs only on inputs of the traced shapes and dtypes): proven now, or left to PyTorch,
    which raises where the graph would."""
    val = meta_val(node.args[0])
    size, stride, dtype = (list(node.args[1:]) + [None, None, None])[:3]
    kw = node.kwargs
    size, stride, dtype = kw.get("size", size), kw.get("stride", stride), kw.get("dtype", dtype)
    device, layout = kw.get("device"), kw.get("layout")
    if (
        (size is not None and _sizes(val.shape) != _sizes(size))
        or (stride is not None and _sizes(val.stride()) != _sizes(stride))
        or (dtype is not None and val.dtype != dtype)
        or (device is not None and val.device != torch.device(device))
        or (layout is not None and val.layout != layout)
    ):
        raise Unsupported("a metadata assertion that fails")


def _sizes(sizes) -> list:
    """Sizes compared as expressions: comparing SymInts would add a guard on them."""
    return [dim_of(d) for d in sizes]


@handles(aten._assert_tensor_metadata.default, check=_metadata_check)
def _assert_metadata(lw, node, x, *args, **kwargs):
    return None  # proven by _metadata_check when the graph was lowered: no instruction


@handles(aten.copy.default)
def _copy(lw, node, dst, src, non_blocking=False):
    """``dst``'s shape and dtype, ``src``'s values (broadcast, converted)."""
    out = out_slot(lw, node)
    if src.shape != out.shape:
        src = broadcast_view(lw, src, out.shape)
    src = lw.contiguous(src)
    if src.dtype == out.dtype:
        return src
    lw.emit("convert", [src], [out])
    return out


def _scatter_strided(lw, node, x, src, strides, offset):
    """``x`` with the view (``offset``, ``strides`` over ``src``'s shape) replaced by ``src``."""
    out = out_slot(lw, node)
    ins = [lw.contiguous(x), lw.contiguous(src)]
    lw.emit("scatter_strided", ins, [out], _strided(offset, strides))
    return out


@handles(aten.slice_scatter.default)
def _slice_scatter(lw, node, x, src, dim=0, start=None, end=None, step=1):
    """``x`` with ``x[start:end:step]`` along ``dim`` replaced by ``src`` (of that slice's shape,
    which sets the end)."""
    strides = list(contiguous_strides(x.shape))
    dim %= len(x.shape)
    size = x.shape[dim]
    start = 0 if start is None else start
    start = max(0, min(size, start + size if start < 0 else start))
    offset = start * strides[dim]
    strides[dim] *= step
    return _scatter_strided(lw, node, x, src, strides, offset)


@handles(aten.select_scatter.default)
def _select_scatter(lw, node, x, src, dim, index):
    strides = list(contiguous_strides(x.shape))
    dim %= len(x.shape)
    index = index + x.shape[dim] if index < 0 else index
    offset = index * strides[dim]
    del strides[dim]
    return _scatter_strided(lw, node, x, src, strides, offset)


# Reductions -------------------------------------------------------------------------------------
def red_check(node):
    out = meta_val(node)
    out = out[0] if isinstance(out, (list, tuple)) else out
    if meta_val(node.args[0]).dtype != torch.float32 or out.dtype != torch.float32:
        raise Unsupported("reduction on non-float32")


def _dims(x, dims):
    nd = len(x.shape)
    if isinstance(dims, int):
        dims = [dims]
    if dims is None or dims == [] or dims == ():
        return list(range(nd))
    return sorted(d % nd for d in dims) if nd else []


def reduction(kind):
    def handler(lw, node, x, dims=None, keepdim=False, **kwargs):
        out = out_slot(lw, node)
        lw.emit(kind, [lw.contiguous(x)], [out], ReduceArgs(_dims(x, dims), bool(keepdim)))
        return out

    return handler


handles(aten.sum.dim_IntList, aten.sum.default, check=red_check)(reduction("sum"))
handles(aten.mean.dim, aten.mean.default, check=red_check)(reduction("mean"))
handles(aten.amax.default, check=red_check)(reduction("amax"))
handles(aten.amin.default, check=red_check)(reduction("amin"))
# Whether some / every element is nonzero, for inputs of any dtype (masks): a bool result.
handles(aten.any.dim, aten.any.dims, aten.any.default)(reduction("any"))
handles(aten.all.dim, aten.all.dims, aten.all.default)(reduction("all"))


def cumsum_check(node):
    out, x = meta_val(node), meta_val(node.args[0])
    if not (out.dtype == torch.float32 or (out.dtype == torch.int64 and x.dtype != torch.float32)):
        raise Unsupported(f"cumsum from {x.dtype} to {out.dtype}")


@handles(aten.cumsum.default, check=cumsum_check)
def _cumsum(lw, node, x, dim, dtype=None):
    out = out_slot(lw, node)
    lw.emit("cumsum", [lw.contiguous(x)], [out], DimArgs(dim))
    return out


@handles(aten.linalg_vector_norm.default, check=red_check)
def _vector_norm(lw, node, x, order=2, dims=None, keepdim=False, dtype=None):
    """The 2-norm: the square root of the sum of squares (other orders are left to PyTorch)."""
    if order != 2 or dtype is not None:
        raise Unsupported(f"vector norm of order {order}")
    squares = float_slot(lw, x.shape, lambda e, a: e.op("MUL", a, a), x)
    total = Slot(squares.dtype, shape_of(meta_val(node)))
    lw.emit("sum", [squares], [total], ReduceArgs(_dims(x, dims), bool(keepdim)))
    return float_slot(lw, total.shape, lambda e, t: e.op("SQRT", t), total)


@handles(aten.var.correction, check=red_check)
def _var(lw, node, x, dims=None, correction=None, keepdim=False):
    out = out_slot(lw, node)
    corr = 1.0 if correction is None else float(correction)
    lw.emit("var", [lw.contiguous(x)], [out], ReduceArgs(_dims(x, dims), bool(keepdim), corr))
    return out


# Normalization ----------------------------------------------------------------------------------
@handles(aten._softmax.default, check=red_check)
def _softmax(lw, node, x, dim, half_to_float=False):
    out = out_slot(lw, node)
    lw.emit("softmax", [lw.contiguous(x)], [out], DimArgs(dim))
    return out


@handles(aten._log_softmax.default, check=red_check)
def _log_softmax(lw, node, x, dim, half_to_float=False):
    out = out_slot(lw, node)
    lw.emit("log_softmax", [lw.contiguous(x)], [out], DimArgs(dim))
    return out


def _outs(lw, node):
    return tuple(lw.new_slot(v) for v in meta_val(node))


@handles(aten.native_layer_norm.default, check=red_check)
def _layer_norm(lw, node, x, normalized_shape, weight, bias, eps):
    outs = _outs(lw, node)
    ins = [lw.contiguous(x)] + [lw.contiguous(t) for t in (weight, bias) if t is not None]
    args = LayerNormArgs(len(normalized_shape), weight is not None, bias is not None, float(eps))
    lw.emit("layer_norm", ins, list(outs), args)
    return outs


@handles(aten.rms_norm.default, check=red_check)
def _rms_norm(lw, node, x, normalized_shape, weight=None, eps=None):
    """x * rsqrt(mean(x ** 2) + eps) [* weight] over the last dims (patterns.py writes it from
    the formula models spell out); eps None is the dtype's epsilon, as torch takes it."""
    if eps is None:
        eps = torch.finfo(meta_val(node).dtype).eps
    ins = [lw.contiguous(x)] + ([lw.contiguous(weight)] if weight is not None else [])
    args = LayerNormArgs(len(normalized_shape), weight is not None, False, float(eps))
    out = out_slot(lw, node)
    lw.emit("rms_norm", ins, [out], args)
    return out


def rotary_check(node):
    if any(meta_val(n).dtype != torch.float32 for n in (node, *node.all_input_nodes)):
        raise Unsupported("rotary: a dtype other than float32")


@handles(ROTARY, check=rotary_check)
def _rotary(lw, node, x, cos, sin):
    """glassbox::rotary (patterns.py writes it from Llama's formula): x is read in place through
    its view (the transposed q and k of a projection), cos and sin through broadcasting."""
    out = out_slot(lw, node)
    base, strides, offset = lw.layout(x)
    tables = []
    for t in (cos, sin):
        reduced = lw.broadcastable(t)
        tables.append(reduced if reduced.shape[-1:] == out.shape[-1:] else lw.contiguous(t))
    lw.emit("rotary", [base, *tables], [out], _strided(offset, strides))
    return out


@handles(aten.native_group_norm.default, check=red_check)
def _group_norm(lw, node, x, weight, bias, n, c, spatial, groups, eps):
    """Each group of channels normalized as one row (the layer norm of [N * groups, C / groups *
    HxW], no affine), then each channel's weight and bias. Its mean and rstd outputs, which only
    training reads, are left to PyTorch."""
    if any(u.target is not operator.getitem or u.args[1] != 0 for u in node.users):
        raise Unsupported("group norm whose mean or rstd is read")
    if any(is_symbolic(v) for v in (n, c, spatial, groups)):
        raise Unsupported("group norm with symbolic sizes")
    rows = (n * groups, c // groups * spatial)
    f32 = dtype_code(torch.float32)
    normed, mean, rstd = Slot(f32, rows), Slot(f32, (rows[0], 1)), Slot(f32, (rows[0], 1))
    args = LayerNormArgs(1, False, False, float(eps))
    lw.emit("layer_norm", [lw.alias(x, rows)], [normed, mean, rstd], args)
    shape = shape_of(meta_val(node)[0])
    channel = (c,) + (1,) * (len(shape) - 2)  # broadcasts over N and the spatial dims
    params = [lw.alias(t, channel) for t in (weight, bias) if t is not None]

    def affine(e, y, *wb):
        y = e.op("MUL", y, wb[0]) if weight is not None else y
        return e.op("ADD", y, wb[-1]) if bias is not None else y

    out = float_slot(lw, shape, affine, lw.alias(normed, shape), *params)
    return out, lw.alias(mean, (n, groups)), lw.alias(rstd, (n, groups))


_BATCH_NORM = aten._native_batch_norm_legit_no_training.default


def _fold_batch_norm(lw: Lowerer, node, x, params, eps):
    """The output slots of an inference batch norm that the convolution computing ``x`` applies as
    it writes its result (a per-channel scale and shift: Conv2dArgs.batch_norm, which parameters
    are present and batch_norm_eps, the parameters as inputs), or None. The convolution
    must be the last instruction emitted, read by this batch norm alone, whose result is read
    through its first output only (its other outputs are empty in inference)."""
    last = _last_writer_of(lw, x)
    if last is None or last.op != "conv2d" or last.args.batch_norm or last.args.epilogue:
        return None
    conv = node.args[0]
    if conv.target is not aten.convolution.default or len(conv.users) != 1:
        return None
    if any(u.target is not operator.getitem or u.args[1] != 0 for u in node.users):
        return None
    present = [t for t in params if t is not None]
    # Contiguous already, so that taking them emits nothing after the convolution.
    if not all(isinstance(t, Slot) and t.view is None for t in present):
        return None
    weight, bias = params[0], params[1]
    last.inputs += present
    last.args.batch_norm = True
    last.args.batch_norm_weight, last.args.batch_norm_bias = weight is not None, bias is not None
    last.args.batch_norm_eps = float(eps)
    vals = meta_val(node)
    return (lw.alias(last.outputs[0], shape_of(vals[0])),) + tuple(lw.new_slot(v) for v in vals[1:])


@handles(_BATCH_NORM, check=red_check)
def _batch_norm(lw, node, x, weight, bias, mean, var, momentum, eps):
    folded = _fold_batch_norm(lw, node, x, (weight, bias, mean, var), eps)
    if folded is not None:
        return folded
    outs = _outs(lw, node)
    ins = [lw.contiguous(x)] + [
        lw.contiguous(t) for t in (weight, bias, mean, var) if t is not None
    ]
    args = BatchNormArgs(weight is not None, bias is not None, float(eps))
    lw.emit("batch_norm", ins, list(outs), args)
    return outs


# Convolution and pooling ------------------------------------------------------------------------
def conv_check(node):
    x = meta_val(node.args[0])
    if x.dim() not in (3, 4) or node.args[6] or x.dtype != torch.float32:
        raise Unsupported("only 1-d and 2-d, non-transposed float32 convolution")


@handles(aten.convolution.default, check=conv_check)
def _conv(lw, node, x, w, b, stride, padding, dilation, transposed, output_padding, groups):
    """A 2-d convolution; a 1-d one is the 2-d convolution of height 1 (x and w read as
    [N, C, 1, L] and [O, C/groups, 1, K], the result read back as [N, O, L'])."""
    if any(is_symbolic(v) for v in (*stride, *padding, *dilation, groups)):
        raise Unsupported("symbolic convolution stride, padding, dilation or groups")
    flat = len(x.shape) == 3
    if flat:
        x = lw.alias(x, (*x.shape[:2], 1, x.shape[2]))
        w = lw.alias(w, (*w.shape[:2], 1, w.shape[2]))
        stride, padding, dilation = (1, *stride), (0, *padding), (1, *dilation)
    shape = shape_of(meta_val(node))
    out = Slot(dtype_code(torch.float32), (*shape[:2], 1, shape[2]) if flat else shape)
    ins = [lw.contiguous(x), lw.contiguous(w)] + ([lw.contiguous(b)] if b is not None else [])
    # One value for every spatial dim where the graph gives one (siglip's patch embedding).
    (sh, sw), (ph, pw), (dh, dw) = _pair(stride), _pair(padding), _pair(dilation)
    args = Conv2dArgs(sh, sw, ph, pw, dh, dw, groups, has_bias=b is not None)
    lw.emit("conv2d", ins, [out]).args = args
    return lw.alias(out, shape) if flat else out


def pool_check(node):
    x = meta_val(node.args[0])
    if x.dim() != 4 or x.dtype != torch.float32:
        raise Unsupported("only 4-d float32 pooling")


def _pair(v, default=None):
    if v is None or v == []:
        v = default
    v = list(v) if isinstance(v, (list, tuple)) else [v]
    return v * 2 if len(v) == 1 else v


@handles(aten.max_pool2d_with_indices.default, check=pool_check)
def _max_pool(lw, node, x, kernel, stride=None, padding=0, dilation=1, ceil_mode=False):
    """The pooled values, and their indices only where something reads them (training): the
    kernel pools faster without them."""
    outs = _outs(lw, node)
    if not any(u.target is not operator.getitem or u.args[1] == 1 for u in node.users):
        outs = (outs[0], None)
    (kh, kw), (sh, sw) = _pair(kernel), _pair(stride, _pair(kernel))
    (ph, pw), (dh, dw) = _pair(padding), _pair(dilation)
    args = Pool2dArgs(kh, kw, sh, sw, ph, pw, dh, dw, ceil_mode=bool(ceil_mode))
    lw.emit("max_pool2d", [lw.contiguous(x)], [o for o in outs if o is not None], args)
    return outs


@handles(aten.avg_pool2d.default, check=pool_check)
def _avg_pool(
    lw, node, x, kernel, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
    divisor_override=None,
):  # fmt: skip
    out = out_slot(lw, node)
    (kh, kw), (sh, sw) = _pair(kernel), _pair(stride, _pair(kernel))
    ph, pw = _pair(padding)
    args = Pool2dArgs(
        kh, kw, sh, sw, ph, pw, ceil_mode=bool(ceil_mode),
        count_include_pad=bool(count_include_pad), divisor_override=divisor_override or 0,
    )  # fmt: skip
    lw.emit("avg_pool2d", [lw.contiguous(x)], [out], args)
    return out


@handles(aten._adaptive_avg_pool2d.default, check=pool_check)
def _adaptive_avg(lw, node, x, output_size):
    out = out_slot(lw, node)
    oh, ow = output_size
    lw.emit("adaptive_avg_pool2d", [lw.contiguous(x)], [out], AdaptivePool2dArgs(oh, ow))
    return out


# Indexing ---------------------------------------------------------------------------------------
@handles(aten.embedding.default)
def _embedding(lw, node, weight, indices, *rest):
    out = out_slot(lw, node)
    lw.emit("embedding", [lw.contiguous(weight), lw.contiguous(indices)], [out])
    return out


def gather_check(node):
    if meta_val(node.args[2]).dtype != torch.int64:
        raise Unsupported("gather with a non-int64 index")


@handles(aten.gather.default, check=gather_check)
def _gather(lw, node, x, dim, index, sparse_grad=False):
    out = out_slot(lw, node)
    lw.emit("gather", [lw.contiguous(x), lw.contiguous(index)], [out], DimArgs(dim))
    return out


def index_check(node):
    indices = node.args[1]
    if not any(i is not None for i in indices):
        raise Unsupported("index without index tensors")
    for i in indices:
        if i is not None and meta_val(i).dtype != torch.int64:
            raise Unsupported("index by a mask or non-int64 tensor")


@handles(aten.index.Tensor, check=index_check)
def _index(lw, node, x, indices):
    """Advanced indexing ``x[..., i, j, ...]`` by int64 tensors (broadcast together); the
    kernel places the indexed dims as torch does."""
    out = out_slot(lw, node)
    dims = [d for d, i in enumerate(indices) if i is not None]
    tensors = [lw.contiguous(i) for i in indices if i is not None]
    lw.emit("index", [lw.contiguous(x), *tensors], [out], IndexArgs(dims))
    return out


@handles(aten.index_select.default)
def _index_select(lw, node, x, dim, index):
    out = out_slot(lw, node)
    lw.emit("index_select", [lw.contiguous(x), lw.contiguous(index)], [out], DimArgs(dim))
    return out
