"""Formulas written out op by op that name one op the runtime has: the graph is rewritten to that
op before lowering, so that it runs as one step (or folds into a product's epilogue) instead of
a chain of elementwise passes.

    gelu_tanh: 0.5 * x * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 * x ** 3))), the "gelu_new" of
               GPT-2 and many models after it, becomes aten.gelu(x, approximate="tanh").
    rms_norm:  [w *] x * rsqrt(mean(x ** 2, -1, keepdim) + eps), as Llama, T5 and most decoders
               write it (w: a tensor of the last dim's size), becomes aten.rms_norm(x, [d], w, eps).
    rotary:    x * cos + cat(-x[..., h:], x[..., :h]) * sin over a last dim of 2h (Llama's
               ``apply_rotary_pos_emb``), becomes glassbox::rotary(x, cos, sin) (see ops.py).
    grouped attention: CPU flash attention whose keys and values are ``repeat_kv``'s copies,
               reshape(expand(x[:, :, None], [B, Hk, n, S, E]), [B, Hk * n, S, E]), becomes
               glassbox::grouped_attention over x itself (the kernel reads each key head for
               its n query heads); scaled_dot_product_attention over them (torch.export's
               graphs) becomes glassbox::grouped_sdpa.

A match needs float32 values, the exact structure (the product of 0.5, x and the sum in any order
and grouping) and the constants to float32 precision; every node it replaces other than the last
must be read only inside the formula (a training graph may save one for its backward: then
nothing changes).
"""

from __future__ import annotations

import math
import operator
from typing import NamedTuple

import torch
from torch.fx import Graph, Node

from glassbox.backend.ops import GROUPED_ATTENTION, GROUPED_SDPA, ROTARY

aten = torch.ops.aten
_MUL, _ADD = aten.mul.Tensor, aten.add.Tensor
_ASSERT = aten._assert_tensor_metadata.default  # a check of a value's dtype, not a use of it


def _readers(node: Node) -> list[Node]:
    """The nodes that compute with ``node``: its users but metadata checks (a replaced node's
    checks go with it; the backend proves them from the traced metadata anyway)."""
    return [u for u in node.users if u.target is not _ASSERT]


def _near(value, expected: float) -> bool:
    return isinstance(value, (int, float)) and math.isclose(value, expected, rel_tol=1e-6)


def _with_constant(node, target) -> tuple[Node, float] | None:
    """(tensor operand, number) of ``node`` when it is ``target`` of a node and a number."""
    if not isinstance(node, Node) or node.target is not target or node.kwargs:
        return None
    a, b = node.args
    if isinstance(a, Node) and isinstance(b, (int, float)) and not isinstance(b, bool):
        return a, float(b)
    if isinstance(b, Node) and isinstance(a, (int, float)) and not isinstance(a, bool):
        return b, float(a)
    return None


class Match(NamedTuple):
    """A formula found: its last node, every node it replaces (the root among them), the tensors
    it computes with, and the call that replaces it."""

    root: Node
    inner: set
    tensors: tuple
    target: object
    args: tuple
    kwargs: dict


def _power_of(node, exponent: float) -> Node | None:
    """x, where ``node`` is x ** exponent."""
    if not isinstance(node, Node) or node.target is not aten.pow.Tensor_Scalar or node.kwargs:
        return None
    base, e = node.args
    return base if _near(e, exponent) else None


def _factors(node, inner: set) -> tuple[list, float]:
    """The tensor factors and the constant of a product tree of ``aten.mul`` nodes; nested
    products are entered only where read once (they are replaced with the root)."""
    scaled = _with_constant(node, _MUL)
    if scaled is not None:
        inner.add(node)
        tensors, c = (
            _factors(scaled[0], inner) if len(_readers(scaled[0])) == 1 else ([scaled[0]], 1)
        )
        return tensors, c * scaled[1]
    if isinstance(node, Node) and node.target is _MUL and not node.kwargs:
        if all(isinstance(a, Node) for a in node.args):
            inner.add(node)
            tensors, c = [], 1.0
            for a in node.args:
                ts, ca = _factors(a, inner) if len(_readers(a)) == 1 else ([a], 1.0)
                tensors, c = tensors + ts, c * ca
            return tensors, c
    return [node], 1.0


def _tanh_argument_input(node, inner: set) -> Node | None:
    """x, where ``node`` is sqrt(2 / pi) * (x + 0.044715 * x ** 3)."""
    scaled = _with_constant(node, _MUL)
    if scaled is None or not _near(scaled[1], math.sqrt(2 / math.pi)):
        return None
    total = scaled[0]
    if not isinstance(total, Node) or total.target is not _ADD or total.kwargs:
        return None
    if len(total.args) != 2 or not all(isinstance(a, Node) for a in total.args):
        return None
    for x, cubic in (total.args, reversed(total.args)):
        term = _with_constant(cubic, _MUL)
        if term is None or not _near(term[1], 0.044715):
            continue
        if _power_of(term[0], 3.0) is x:
            inner.update((node, total, cubic, term[0]))
            return x
    return None


def _gelu_tanh_at(tanh: Node) -> Match | None:
    """The gelu_tanh formula around this tanh node."""
    inner = {tanh}
    x = _tanh_argument_input(tanh.args[0], inner)
    if x is None or len(_readers(tanh)) != 1:
        return None
    one_plus = _readers(tanh)[0]
    shifted = _with_constant(one_plus, _ADD)
    if shifted is None or shifted[0] is not tanh or not _near(shifted[1], 1.0):
        return None
    inner.add(one_plus)
    root = one_plus
    while len(_readers(root)) == 1 and _readers(root)[0].target is _MUL:
        root = _readers(root)[0]
        tensors, c = _factors(root, inner)
        if sorted(map(id, tensors)) == sorted(map(id, (x, one_plus))) and _near(c, 0.5):
            return Match(root, inner, (x,), aten.gelu.default, (x,), {"approximate": "tanh"})
    return None


def _rsqrt_of_mean_square(node, inner: set) -> tuple[Node, float] | None:
    """(x, eps), where ``node`` is rsqrt(mean(x ** 2, [-1], keepdim=True) + eps)."""
    if not isinstance(node, Node) or node.target is not aten.rsqrt.default:
        return None
    shifted = _with_constant(node.args[0], _ADD)
    if shifted is None:
        return None
    mean = shifted[0]
    if not isinstance(mean, Node) or mean.target is not aten.mean.dim or mean.kwargs:
        return None
    square = mean.args[0]
    x = _power_of(square, 2.0)
    if not isinstance(x, Node):
        return None
    ndim = getattr(x.meta.get("val"), "ndim", 0)
    last = ([-1], True), ([ndim - 1], True)
    if ndim < 1 or tuple(mean.args[1:]) not in last:
        return None
    inner.update((node, node.args[0], mean, square))
    return x, shifted[1]


def _rms_norm_at(rsqrt: Node) -> Match | None:
    """The rms_norm formula at this rsqrt: the outermost product of x, the rsqrt and at most one
    [d] tensor (the weight)."""
    inner: set = set()
    found = _rsqrt_of_mean_square(rsqrt, inner)
    if found is None:
        return None
    x, eps = found
    size = x.meta["val"].shape[-1]
    node, best = rsqrt, None
    while len(_readers(node)) == 1 and _readers(node)[0].target is _MUL:
        node = _readers(node)[0]
        tensors, c = _factors(node, set())
        rest = [t for t in tensors if t is not x and t is not rsqrt]
        if len(tensors) - len(rest) != 2 or not _near(c, 1.0) or len(rest) > 1:
            break
        w = rest[0].meta.get("val") if rest else None
        if rest and (not isinstance(w, torch.Tensor) or tuple(w.shape) != (size,)):
            break
        best = (node, rest[0] if rest else None)
    if best is None:
        return None
    root, weight = best
    _factors(root, inner)
    tensors = (x,) if weight is None else (x, weight)
    return Match(root, inner, tensors, aten.rms_norm.default, (x, [size], weight, eps), {})


def _operands(node, target) -> tuple | None:
    """The two operands of ``node`` when it is ``target`` applied to two nodes."""
    if not isinstance(node, Node) or node.target is not target or node.kwargs:
        return None
    if len(node.args) != 2 or not all(isinstance(a, Node) for a in node.args):
        return None
    return node.args


def _last_dim_slice(node, ndim: int) -> tuple[Node, int, int] | None:
    """(x, start, end) of ``node`` = x[..., start:end] (step 1; a missing start is 0)."""
    if not isinstance(node, Node) or node.target is not aten.slice.Tensor or node.kwargs:
        return None
    x, dim, start, end, step = (*node.args, *(None, 0, None, None, 1)[len(node.args) :])
    if dim not in (-1, ndim - 1) or step != 1:
        return None
    start = 0 if start is None else start
    end = 2**63 - 1 if end is None else end
    return (x, start, end) if isinstance(start, int) and isinstance(end, int) else None


def _same_sizes(a, b) -> bool:
    """Whether two shapes are equal for every binding of their symbols (no guard is added)."""
    from torch.fx.experimental.symbolic_shapes import statically_known_true

    return len(a) == len(b) and all(
        statically_known_true(p == q) for p, q in zip(a, b, strict=True)
    )


def _rotated_input(cat: Node) -> Node | None:
    """x, where ``cat`` is cat((-x[..., h:], x[..., :h]), -1) and x's last dim is 2h."""
    if len(cat.args) != 2 or cat.kwargs or not isinstance(cat.args[0], (list, tuple)):
        return None
    parts, ndim = cat.args[0], getattr(cat.meta.get("val"), "ndim", 0)
    if len(parts) != 2 or cat.args[1] not in (-1, ndim - 1) or ndim < 1:
        return None
    neg, low = parts
    if not isinstance(neg, Node) or neg.target is not aten.neg.default:
        return None
    high, low = _last_dim_slice(neg.args[0], ndim), _last_dim_slice(low, ndim)
    if high is None or low is None or high[0] is not low[0]:
        return None
    width = high[0].meta["val"].shape[-1]
    if not isinstance(width, int) or width % 2 or width == 0:
        return None
    half = width // 2
    return high[0] if (high[1], low[1], low[2]) == (half, 0, half) and high[2] >= width else None


def _rotary_at(cat: Node) -> Match | None:
    """The rotary formula around this cat: x * cos + cat(...) * sin, products and sum in any
    operand order, cos and sin broadcasting to x's shape with x's last dim."""
    x = _rotated_input(cat)
    readers = _readers(cat)
    if x is None or len(readers) != 1 or _operands(readers[0], _MUL) is None:
        return None
    sin_product = readers[0]
    sin = next((a for a in sin_product.args if a is not cat), None)
    if sin is None or len(_readers(sin_product)) != 1:
        return None
    total = _readers(sin_product)[0]
    terms = _operands(total, _ADD)
    cos_product = next((a for a in terms or () if a is not sin_product), None)
    cos_factors = _operands(cos_product, _MUL)
    if cos_factors is None or x not in cos_factors or cos_factors[0] is cos_factors[1]:
        return None
    cos = cos_factors[1] if cos_factors[0] is x else cos_factors[0]
    shape = tuple(x.meta["val"].shape)
    for t in (cos, sin):
        val = t.meta.get("val")
        if not isinstance(val, torch.Tensor) or val.ndim > len(shape):
            return None
        if not _same_sizes(val.shape[-1:], shape[-1:]):
            return None
    if not _same_sizes(total.meta["val"].shape, shape):
        return None
    neg, low = cat.args[0]
    inner = {cat, neg, neg.args[0], low, sin_product, cos_product, total}
    return Match(total, inner, (x, cos, sin), ROTARY, (x, cos, sin), {})


_RESHAPES = (aten.view.default, aten._unsafe_view.default, aten.reshape.default)
_FLASH = aten._scaled_dot_product_flash_attention_for_cpu.default
_SDPA = aten.scaled_dot_product_attention.default


def _repeated_heads(node, inner: set) -> tuple[Node, object] | None:
    """(x, n), where ``node`` is x [B, Hk, S, E] with each head repeated n times in turn:
    reshape([clone](expand(unsqueeze(x, 2), [B, Hk, n, S, E])), [B, Hk * n, S, E])."""
    if not isinstance(node, Node) or node.target not in _RESHAPES:
        return None
    chain = [node, node.args[0]]
    if isinstance(chain[-1], Node) and chain[-1].target is aten.clone.default:
        chain.append(chain[-1].args[0])
    expand = chain[-1]
    if not isinstance(expand, Node) or expand.target is not aten.expand.default:
        return None
    unsqueeze = expand.args[0]
    if not isinstance(unsqueeze, Node) or unsqueeze.target is not aten.unsqueeze.default:
        return None
    x = unsqueeze.args[0]
    if unsqueeze.args[1:] != (2,) or getattr(x.meta.get("val"), "ndim", 0) != 4:
        return None
    shape, wide = x.meta["val"].shape, expand.meta["val"].shape
    n = wide[2]
    heads = (shape[0], shape[1] * n, shape[2], shape[3])
    if not _same_sizes((*wide[:2], *wide[3:]), shape) or not _same_sizes(
        node.meta["val"].shape, heads
    ):
        return None
    inner.update((*chain, unsqueeze))
    return x, n


def _bound(node: Node) -> dict:
    """A call's arguments by name, defaults filled in (from the op's schema)."""
    bound = {}
    for i, argument in enumerate(node.target._schema.arguments):
        if i < len(node.args):
            bound[argument.name] = node.args[i]
        elif argument.name in node.kwargs:
            bound[argument.name] = node.kwargs[argument.name]
        else:
            bound[argument.name] = argument.default_value if argument.has_default_value() else None
    return bound


def _grouped_arguments(call: dict, inner: set) -> tuple | None:
    """(q, k, v, mask, dropout_p, is_causal, scale) of an attention call whose k and v are
    repeat_kv's copies, with k and v the unrepeated tensors."""
    keys, values = _repeated_heads(call["key"], inner), _repeated_heads(call["value"], inner)
    if keys is None or values is None or not _same_sizes(keys[1:], values[1:]):
        return None
    names = ("attn_mask", "dropout_p", "is_causal", "scale")
    return (call["query"], keys[0], values[0], *(call[n] for n in names))


def _grouped_attention_at(flash: Node) -> Match | None:
    """Flash attention over repeat_kv's copies of k and v, read for its output alone."""
    inner = {flash}
    if any(u.target is not operator.getitem for u in flash.users):
        return None
    used = [u for u in flash.users if _readers(u)]
    if len(used) != 1 or used[0].args[1] != 0:
        return None
    args = _grouped_arguments(_bound(flash), inner)
    if args is None:
        return None
    inner.update(flash.users)
    return Match(used[0], inner, args[:3], GROUPED_ATTENTION, args, {})


def _grouped_sdpa_at(sdpa: Node) -> Match | None:
    """scaled_dot_product_attention over repeat_kv's copies of k and v."""
    inner = {sdpa}
    call = _bound(sdpa)
    args = None if call["enable_gqa"] else _grouped_arguments(call, inner)
    return None if args is None else Match(sdpa, inner, args[:3], GROUPED_SDPA, args, {})


def _read_only_inside(nodes: set, root: Node) -> bool:
    return all(n is root or all(u in nodes for u in _readers(n)) for n in nodes)


def _all_float32(root: Node, *tensors) -> bool:
    """Whether the formula computes in float32, as the runtime does. In half precision the op
    rounds once where the formula rounds at each step: a segment PyTorch runs would then differ
    from eager, so those stay as written."""
    return all(getattr(n.meta.get("val"), "dtype", None) == torch.float32 for n in (root, *tensors))


def _replace(graph: Graph, m: Match) -> None:
    with graph.inserting_before(m.root):
        new = graph.call_function(m.target, m.args, m.kwargs)
    new.meta = dict(m.root.meta)
    m.root.replace_all_uses_with(new)
    checks = {u for n in m.inner for u in n.users if u.target is _ASSERT}
    for n in sorted(m.inner | checks, key=_position(graph), reverse=True):
        graph.erase_node(n)


# Each formula by the node it is found from.
_FORMULAS = (
    (aten.tanh.default, _gelu_tanh_at),
    (aten.rsqrt.default, _rms_norm_at),
    (aten.cat.default, _rotary_at),
    (_FLASH, _grouped_attention_at),
    (_SDPA, _grouped_sdpa_at),
)


def rewrite_known_formulas(graph: Graph) -> int:
    """Rewrite each float32 formula that names one op (see above); returns how many."""
    count = 0
    for anchor, match_at in _FORMULAS:
        for node in [n for n in graph.nodes if n.target is anchor]:
            if node.graph is not graph or not node.users:  # erased by an earlier rewrite
                continue
            m = match_at(node)
            if m is None or not _read_only_inside(m.inner, m.root):
                continue
            if not _all_float32(m.root, *m.tensors):
                continue
            _replace(graph, m)
            count += 1
    return count


def _position(graph: Graph):
    """A key giving each node's place in the graph (to erase readers before what they read)."""
    order = {n: i for i, n in enumerate(graph.nodes)}
    return order.__getitem__
