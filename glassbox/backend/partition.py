"""Partitioning an FX graph into native segments and PyTorch fallback segments.

Nodes are taken in graph order; a run of consecutive supported nodes is a native segment and a run
of unsupported ones a fallback segment. Before that, unsupported nodes are moved as late as their
users allow so that they gather together and crossings stay few. The report says how much of the
graph runs natively and which ops did not.
"""

from __future__ import annotations

import collections
import operator
from dataclasses import dataclass, field

import torch

from glassbox.backend.lower import Unsupported, check_supported, is_symbolic_scalar, meta_val


@dataclass
class Report:
    name: str
    total_nodes: int = 0
    native_nodes: int = 0
    fallback_ops: collections.Counter = field(default_factory=collections.Counter)
    segments: int = 0
    reasons: dict = field(default_factory=dict)  # op -> why the first of its nodes fell back

    @property
    def native_share(self) -> float:
        return self.native_nodes / self.total_nodes if self.total_nodes else 1.0

    def __str__(self) -> str:
        fb = (
            ", ".join(
                f"{op} x{n}" + (f" ({self.reasons[op]})" if op in self.reasons else "")
                for op, n in self.fallback_ops.most_common()
            )
            or "none"
        )
        return (
            f"[glassbox] {self.name}: {self.native_nodes}/{self.total_nodes} nodes native "
            f"({100 * self.native_share:.1f}%), {self.segments} segments; fallback: {fb}"
        )


@dataclass
class Segment:
    native: bool
    nodes: list


def symbolic_scalars(graph: torch.fx.Graph) -> list:
    """Nodes that compute sizes from the graph's size arguments alone (``s0 + 1``): native
    segments read their values from the traced expressions, so they belong to no segment; a
    PyTorch op or an output that reads one has it computed first (see CompiledGraph)."""
    found: set = set()
    for node in graph.nodes:
        if (
            node.op == "call_function"
            and is_symbolic_scalar(meta_val(node))
            and all(a.op == "placeholder" or a in found for a in node.all_input_nodes)
        ):
            found.add(node)
    return [n for n in graph.nodes if n in found]


def classify(graph: torch.fx.Graph, forced: dict | None = None) -> dict:
    """node -> None if supported, else the reason. ``forced``: nodes whose lowering failed, with
    the reason."""
    reasons = {}
    for node in graph.nodes:
        if node.op != "call_function":
            continue
        if forced and node in forced:
            reasons[node] = forced[node]
            continue
        try:
            check_supported(node)
            reasons[node] = None
        except Unsupported as e:
            reasons[node] = str(e) or str(node.target)
    # getitem follows its producer.
    for node in graph.nodes:
        if node.op == "call_function" and node.target is operator.getitem:
            src = node.args[0]
            reasons[node] = reasons.get(src, "getitem of a non-node")
    return reasons


def float_operands_as_tensors(graph: torch.fx.Graph) -> None:
    """A float known only at run time (a module's float constant, which a graph traced with
    dynamic shapes takes as a 0-d input and reads with ``.item()``) as the operand of a float32
    op at a place that takes a tensor: given instead as a 0-d float32 tensor that PyTorch makes
    first (hoisted), so that the op stays native. PyTorch computes a float32 op with a Python
    float operand in float32, as with a 0-d float32 tensor: the same result."""
    for node in list(graph.nodes):
        if node.op != "call_function" or not isinstance(node.target, torch._ops.OpOverload):
            continue
        schema = node.target._schema.arguments
        val = meta_val(node)
        tensors = [meta_val(a) for a in node.all_input_nodes]
        if not isinstance(val, torch.Tensor) or val.dtype != torch.float32:
            continue
        if any(isinstance(t, torch.Tensor) and t.dtype != torch.float32 for t in tensors):
            continue
        for i, a in enumerate(node.args[: len(schema)]):
            if not (
                isinstance(a, torch.fx.Node)
                and isinstance(meta_val(a), torch.SymFloat)
                and isinstance(schema[i].type, torch.TensorType)
            ):
                continue
            with graph.inserting_before(node):
                t = graph.call_function(
                    torch.ops.aten.scalar_tensor.default, (a,), {"dtype": torch.float32}
                )
            t.meta["val"] = torch.empty((), dtype=torch.float32)
            node.update_arg(i, t)


def partition(
    graph: torch.fx.Graph, name: str = "graph", forced: dict | None = None
) -> tuple[list[Segment], Report]:
    reasons = classify(graph, forced)
    sizes = set(symbolic_scalars(graph))
    nodes = [n for n in graph.nodes if n.op == "call_function" and n not in sizes]
    report = Report(name, total_nodes=len(nodes) + len(sizes), native_nodes=len(sizes))
    for n in nodes:
        if reasons[n] is None:
            report.native_nodes += 1
        else:
            report.fallback_ops[str(n.target)] += 1
            if reasons[n] != str(n.target):
                report.reasons.setdefault(str(n.target), reasons[n])
    order = _sink_unsupported(nodes, reasons)
    segments: list[Segment] = []
    for n in order:
        native = reasons[n] is None
        if segments and segments[-1].native == native:
            segments[-1].nodes.append(n)
        else:
            segments.append(Segment(native, [n]))
    report.segments = len(segments)
    return segments, report


_SCALARS = (torch.SymFloat, torch.SymInt, torch.SymBool, float, int, bool)


def _hoisted(nodes: list, reasons: dict) -> list:
    """Fallback nodes that compute a 0-d tensor or a scalar from the graph's inputs alone,
    deterministically: a graph traced with dynamic shapes takes a module's float constants as
    0-d float64 inputs (an eps, a scale) that it converts, or reads with ``.item()``, before use.
    Run first, they split no native segment."""
    found: set = set()
    for n in nodes:
        val = meta_val(n)
        if (
            reasons[n] is not None
            and (isinstance(val, torch.Tensor) and val.dim() == 0 or isinstance(val, _SCALARS))
            and torch.Tag.nondeterministic_seeded not in getattr(n.target, "tags", ())
            and all(a.op in ("placeholder", "get_attr") or a in found for a in n.all_input_nodes)
        ):
            found.add(n)
    return [n for n in nodes if n in found]


def _sink_unsupported(nodes: list, reasons: dict) -> list:
    """A valid topological order where fallback nodes run as late as possible (but those
    _hoisted, which run first)."""
    order: list = _hoisted(nodes, reasons)
    nodes = [n for n in nodes if n not in set(order)]
    position = {n: i for i, n in enumerate(nodes)}
    pending_fallback: list = []
    for n in nodes:
        if reasons[n] is not None:
            pending_fallback.append(n)
            continue
        # A native node needing a pending fallback node forces those (and their deps) out first.
        needed = _needed_from(n, pending_fallback, position)
        if needed:
            order.extend(needed)
            pending_fallback = [p for p in pending_fallback if p not in needed]
        order.append(n)
    order.extend(pending_fallback)
    return order


def _needed_from(node, pending: list, position: dict) -> list:
    if not pending:
        return []
    pending_set = set(pending)
    needed = set()
    stack = [a for a in node.all_input_nodes if a in pending_set]
    while stack:
        p = stack.pop()
        if p in needed:
            continue
        needed.add(p)
        stack.extend(a for a in p.all_input_nodes if a in pending_set)
    return sorted(needed, key=position.__getitem__)
