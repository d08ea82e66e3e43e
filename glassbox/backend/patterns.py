"""Formulas written out op by op that name one op the runtime has: the graph is rewritten to that
op before lowering, so that it runs as one step (or folds into a product's epilogue) instead of
a chain of elementwise passes.

    gelu_tanh: 0.5 * x * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 * x ** 3))), the "gelu_new" of
               GPT-2 and many models after it, becomes aten.gelu(x, approximate="tanh").

A match needs the exact structure (the product of 0.5, x and the sum in any order and grouping)
and the constants to float32 precision; every node it replaces other than the last must be read
only inside the formula (a training graph may save one for its backward: then nothing changes).
"""

from __future__ import annotations

import math

import torch
from torch.fx import Graph, Node

aten = torch.ops.aten
_MUL, _ADD = aten.mul.Tensor, aten.add.Tensor


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


def _factors(node, inner: set) -> tuple[list, float]:
    """The tensor factors and the constant of a product tree of ``aten.mul`` nodes; nested
    products are entered only where read once (they are replaced with the root)."""
    scaled = _with_constant(node, _MUL)
    if scaled is not None:
        inner.add(node)
        tensors, c = _factors(scaled[0], inner) if len(scaled[0].users) == 1 else ([scaled[0]], 1)
        return tensors, c * scaled[1]
    if isinstance(node, Node) and node.target is _MUL and not node.kwargs:
        if all(isinstance(a, Node) for a in node.args):
            inner.add(node)
            tensors, c = [], 1.0
            for a in node.args:
                ts, ca = _factors(a, inner) if len(a.users) == 1 else ([a], 1.0)
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
        power = term[0]
        if (
            isinstance(power, Node)
            and power.target is aten.pow.Tensor_Scalar
            and power.args == (x, power.args[1])
            and _near(power.args[1], 3.0)
        ):
            inner.update((node, total, cubic, power))
            return x
    return None


def _gelu_tanh_at(tanh: Node) -> tuple[Node, Node, set] | None:
    """(root, x, replaced nodes) of a gelu_tanh formula around this tanh node."""
    inner = {tanh}
    x = _tanh_argument_input(tanh.args[0], inner)
    if x is None or len(tanh.users) != 1:
        return None
    one_plus = next(iter(tanh.users))
    shifted = _with_constant(one_plus, _ADD)
    if shifted is None or shifted[0] is not tanh or not _near(shifted[1], 1.0):
        return None
    inner.add(one_plus)
    root = one_plus
    while len(root.users) == 1 and next(iter(root.users)).target is _MUL:
        root = next(iter(root.users))
        tensors, c = _factors(root, inner)
        if sorted(map(id, tensors)) == sorted(map(id, (x, one_plus))) and _near(c, 0.5):
            return root, x, inner
    return None


def _read_only_inside(nodes: set, root: Node) -> bool:
    return all(n is root or all(u in nodes for u in n.users) for n in nodes)


def rewrite_known_formulas(graph: Graph) -> int:
    """Rewrite each gelu_tanh formula of float tensors into one aten.gelu; returns how many."""
    count = 0
    for tanh in [n for n in graph.nodes if n.target is aten.tanh.default]:
        if tanh.graph is not graph or not tanh.users:  # erased by an earlier rewrite
            continue
        found = _gelu_tanh_at(tanh)
        if found is None:
            continue
        root, x, inner = found
        val = root.meta.get("val")
        if not _read_only_inside(inner, root) or not isinstance(val, torch.Tensor):
            continue
        if (
            not val.dtype.is_floating_point
            or getattr(x.meta.get("val"), "dtype", None) != val.dtype
        ):
            continue
        with graph.inserting_before(root):
            gelu = graph.call_function(aten.gelu.default, (x,), {"approximate": "tanh"})
        gelu.meta = dict(root.meta)
        root.replace_all_uses_with(gelu)
        for n in sorted(inner, key=_position(graph), reverse=True):
            graph.erase_node(n)
        count += 1
    return count


def _position(graph: Graph):
    """A key giving each node's place in the graph (to erase readers before what they read)."""
    order = {n: i for i, n in enumerate(graph.nodes)}
    return order.__getitem__
