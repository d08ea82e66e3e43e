"""Formulas written out op by op that name one op the runtime has: the graph is rewritten to that
op before lowering, so that it runs as one step (or folds into a product's epilogue) instead of
a chain of elementwise passes.

    gelu_tanh: 0.5 * x * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 * x ** 3))), the "gelu_new" of
               GPT-2 and many models after it, becomes aten.gelu(x, approximate="tanh").
    rms_norm:  [w *] x * rsqrt(mean(x ** 2, -1, keepdim) + eps), as Llama, T5 and most decoders
               write it (w: a tensor of the last dim's size), becomes aten.rms_norm(x, [d], w, eps).

A match needs float32 values, the exact structure (the product of 0.5, x and the sum in any order
and grouping) and the constants to float32 precision; every node it replaces other than the last
must be read only inside the formula (a training graph may save one for its backward: then
nothing changes).
"""

from __future__ import annotations

import math
from typing import NamedTuple

import torch
from torch.fx import Graph, Node

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
_FORMULAS = ((aten.tanh.default, _gelu_tanh_at), (aten.rsqrt.default, _rms_norm_at))


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
