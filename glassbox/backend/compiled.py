"""A compiled FX graph: native segments run by the C++ runtime, fallback segments by PyTorch."""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence

import torch

from glassbox.backend.lower import (
    Lowerer,
    NodeUnsupported,
    Unsupported,
    _permute,
    is_symbolic_scalar,
    meta_val,
)
from glassbox.backend.partition import (
    Report,
    float_operands_as_tensors,
    partition,
    symbolic_scalars,
)
from glassbox.backend.patterns import rewrite_known_formulas
from glassbox.backend.plan import serialize
from glassbox.backend.program import INPUT
from glassbox.backend.symbolic import dim_of, is_symbolic

log = logging.getLogger("glassbox.backend")
REPORTS: list[Report] = []


def _map_args(a, env, ids):
    if isinstance(a, torch.fx.Node):
        return env[ids[a]]
    if isinstance(a, (list, tuple)):
        return type(a)(_map_args(x, env, ids) for x in a)
    if isinstance(a, dict):
        return {k: _map_args(v, env, ids) for k, v in a.items()}
    return a


_DTYPES = {0: torch.float32, 1: torch.int64, 2: torch.bool, 3: torch.int32}


def _by_address(
    specs: list[tuple[torch.dtype, torch.Size]],
) -> Callable[[list[torch.Tensor]], bool]:
    """A predicate on a program's input tensors: True when they can go to the runtime by address
    alone (the declared dtype and shape, C-contiguous, on the CPU, no lazy negation); otherwise
    they go through ``run`` (a DLPack export per tensor, strides allowed). ~1 us a tensor.
    A None size in ``specs`` depends on symbols: the C++ entry checks it."""

    def same_shape(t: torch.Tensor, shape) -> bool:
        return t.dim() == len(shape) and all(
            d is None or d == e for d, e in zip(shape, t.shape, strict=False)
        )

    def checked(ts: list[torch.Tensor]) -> bool:
        for t, (dtype, shape) in zip(ts, specs, strict=False):
            if (
                t.dtype is not dtype
                or not same_shape(t, shape)
                or not t.is_contiguous()
                or not t.is_cpu
                or t.is_neg()
            ):
                return False
        return True

    return checked


def _record(ts: list[torch.Tensor], specs) -> Callable[..., bool] | None:
    """A guard for later calls: the metadata of tensors that passed ``_by_address``, checked by
    the C++ TensorGuards Dynamo's own guards use (dtype, device, sizes, strides, dispatch keys, so
    also the negation bit; ~0.1 us a tensor). None on a torch without it: every call is checked
    in Python. Sizes that depend on symbols, and the strides of their tensors, are left to the
    C++ entry (see TensorCall::bind)."""
    try:
        from torch._C._dynamo.guards import TensorGuards
    except ImportError:  # pragma: no cover - a torch without Dynamo's C++ guards
        return None
    sizes, strides = [], []
    for t, (_, shape) in zip(ts, specs, strict=False):
        dynamic = None in shape
        sizes.append([None if d is None else t.shape[k] for k, d in enumerate(shape)])
        strides.append([None] * t.dim() if dynamic else list(t.stride()))
    return TensorGuards(*ts, dynamic_dims_sizes=sizes, dynamic_dims_strides=strides).check


_OUTPUT, _ARGUMENT, _NONE = 0, 1, 2  # where each item of a graph's output list comes from


def _weight_positions(instrs) -> list[int]:
    """Input positions read as the weight operand of a product (B of mm, addmm) or of a
    convolution: the runtime keeps them packed (reordered) from run to run while the caller gives
    them the same address and version. Not those of one-row products (the matrix-vector kernel
    streams the weight as it is, so reading their versions would be wasted: ~0.1 us a weight a
    call)."""
    positions = set()
    for ins in instrs:
        if ins.op in ("mm", "addmm") and ins.outputs[0].shape[0] != 1:
            weight = ins.inputs[-1]
        elif ins.op == "conv2d":
            weight = ins.inputs[1]
        else:
            continue
        root = weight.root()
        if root.kind == INPUT:
            positions.add(root.index)
    return sorted(positions)


def _empty_strided(shape, strides, dtype):
    return torch.empty_strided(shape, strides, dtype=dtype, device="cpu")


def _allocation(program) -> tuple[Callable[..., torch.Tensor], list[tuple]]:
    """How the C++ entry allocates each output: a callable and its arguments per output.

    torch's own CPU allocation without the dispatcher, as Inductor's generated code calls it
    (~0.45 us; ``torch.empty`` and ``torch.empty_like`` take ~0.85 us); ``torch.empty_like`` of a
    template on a torch without it. A program with symbols always allocates by (shape, strides,
    dtype): the C++ entry replaces the shape and strides with each call's."""
    outputs = [(_DTYPES[d], tuple(shape)) for d, shape in program.output_info()]
    try:
        from torch._C._dynamo.guards import _empty_strided_cpu
    except ImportError:  # pragma: no cover - a torch without it
        if program.symbols():
            return _empty_strided, [
                (shape, _contiguous_strides(shape), dtype) for dtype, shape in outputs
            ]
        # Real templates, whatever mode the compiler runs under (AOTAutograd compiles under a
        # fake tensor mode).
        from torch.utils._python_dispatch import _disable_current_modes

        with _disable_current_modes():
            return torch.empty_like, [
                (torch.empty(shape, dtype=dtype, device="cpu"),) for dtype, shape in outputs
            ]
    return _empty_strided_cpu, [
        (shape, _contiguous_strides(shape), dtype) for dtype, shape in outputs
    ]


def _contiguous_strides(shape: tuple[int, ...]) -> tuple[int, ...]:
    strides, step = [], 1
    for d in reversed(shape):
        strides.append(step)
        step *= max(d, 1)
    return tuple(reversed(strides))


def tensor_call(
    program,
    arg_positions: Sequence[int],
    weights: Sequence[int],
    result_plan: list[tuple[int, int]],
    dynamic: Sequence[Sequence[bool]] = (),
):
    """The program's per-call entry (a C++ ``TensorCall``): argument ``arg_positions[i]`` is input
    i; returns the list ``result_plan`` describes, of (_OUTPUT, o), (_ARGUMENT, k), (_NONE, 0).

    Calls go by address (one crossing into C++: data pointers, versions of the ``weights``
    inputs, outputs allocated (see ``_allocation``), the run) once their tensors pass a guard
    recorded from an earlier call that passed the Python checks; others come here first. Inputs
    the runtime cannot take by address (strided, another dtype, a lazy negation) go through a
    DLPack export and come back as new tensors.

    Weight versions (see gbx_run_into): a weight keeps its version while it is the same tensor
    object (held by a weak reference) at the same autograd version counter, bumped by every
    in-place write through the tensor or its views; writes the counter does not see (through
    ``.data``, or a NumPy view) are not seen: call ``torch._dynamo.reset()`` after those.
    Inference tensors have no counter and are never reused.

    ``dynamic[i][k]``: whether dim k of input i depends on the program's symbols (sizes that vary
    from call to call); the C++ entry binds the symbols from those inputs' shapes and checks them.
    """
    specs = [
        (_DTYPES[d], tuple(None if dynamic and dynamic[i][k] else n for k, n in enumerate(shape)))
        for i, (d, shape) in enumerate(program.input_info())
    ]
    checked = _by_address(specs)
    allocate, allocate_args = _allocation(program)

    needed = max(arg_positions, default=-1) + 1

    def fallback(*args):
        if len(args) < needed:
            raise ValueError(f"expected at least {needed} arguments, got {len(args)}")
        ts = [args[k] for k in arg_positions]
        if checked(ts):
            call.guard = _record(ts, specs)
            return call.run_checked(*args)
        outs = [torch.from_numpy(o) for o in program.run([_plain(t) for t in ts])]
        return [
            outs[k] if kind == _OUTPUT else args[k] if kind == _ARGUMENT else None
            for kind, k in result_plan
        ]

    dynamic_inputs = [i for i, (_, shape) in enumerate(specs) if None in shape]
    call = program.tensor_call(
        list(arg_positions),
        list(weights),
        allocate_args,
        allocate,
        result_plan,
        fallback,
        dynamic_inputs,
    )
    return call


class NativeStep:
    """One native segment. ``layouts[k]`` is None for an output the runtime writes in the layout
    the graph expects (contiguous), else the permutation that turns the runtime's contiguous
    tensor back into the graph's strides (see ``_output_layout``)."""

    def __init__(self, program, in_ids, out_ids, nbytes, weights=(), layouts=None, dynamic=()):
        self.program, self.in_ids, self.out_ids, self.nbytes = program, in_ids, out_ids, nbytes
        self.weights = list(weights)
        self.layouts = list(layouts) if layouts is not None else [None] * len(out_ids)
        self.dynamic = [list(d) for d in dynamic]  # per input, per dim: depends on symbols
        self.call = tensor_call(
            program,
            range(len(in_ids)),
            self.weights,
            [(_OUTPUT, k) for k in range(len(out_ids))],
            self.dynamic,
        )

    def __call__(self, env):
        outs = self.call(*[env[i] for i in self.in_ids])
        for i, o, back in zip(self.out_ids, outs, self.layouts, strict=False):
            env[i] = o if back is None else o.permute(back)


def _output_layout(val) -> tuple[list[int], list[int]] | None:
    """For a segment output whose traced value is dense but not contiguous (a permuted layout,
    as ``permute(...).clone()`` or a transposed weight leaves it): the order of its dimensions in
    memory, outermost first, and the permutation that turns a contiguous tensor of that order
    back into the traced strides. None for contiguous, overlapping or empty values.

    The strides matter: AOTAutograd traces the backward with the forward's output strides, and
    some kernels it calls (the flash-attention backward on the CPU) read a saved tensor by the
    strides they expect, not the ones they get."""
    if not isinstance(val, torch.Tensor) or val.numel() == 0 or val.dim() < 2:
        return None
    shape, strides = tuple(val.shape), tuple(val.stride())
    if strides == _contiguous_strides(shape):
        return None
    order = sorted(range(val.dim()), key=lambda d: (-strides[d], d))
    step = 1
    for d in reversed(order):  # dense: each dimension steps over all the ones inside it
        if shape[d] != 1 and strides[d] != step:
            return None
        step *= shape[d]
    back = [0] * len(order)
    for position, d in enumerate(order):
        back[d] = position
    return order, back


def _plain(t):
    """DLPack refuses tensors that require grad (the runtime never needs their history) and
    exports a lazily negated tensor's memory without its negation."""
    if t.requires_grad:
        t = t.detach()
    return t.resolve_neg() if t.is_neg() else t


class FallbackStep:
    def __init__(self, nodes, ids):
        self.nodes = list(nodes)
        self.calls = [(ids[n], n.target, n.args, n.kwargs) for n in nodes]
        self.ids = ids

    def __call__(self, env):
        ids = self.ids
        for out, target, args, kwargs in self.calls:
            env[out] = target(*_map_args(args, env, ids), **_map_args(kwargs, env, ids))


def lower_segment(gm, nodes, ids, inside):
    """Lower one native segment to a loaded program; returns a NativeStep."""
    from glassbox import _core

    lw = Lowerer()
    in_nodes, in_slots = [], []
    for n in nodes:
        for a in n.all_input_nodes:
            if a in inside or a in lw.env:
                continue
            if a.op == "get_attr":
                lw.env[a] = lw.constant_slot(_get_attr(gm, a.target))
                continue
            val = meta_val(a)
            if is_symbolic_scalar(val):  # a size: its expression, no program input
                lw.env[a] = dim_of(val)
                continue
            if not isinstance(val, torch.Tensor):
                raise Unsupported(f"input {a} is not a tensor")
            slot = lw.input_slot(val, len(in_slots))
            lw.env[a] = slot
            in_nodes.append(a)
            in_slots.append(slot)
    for n in nodes:
        lw.lower_node(n)
    out_nodes = [n for n in nodes if any(u not in inside for u in n.users)]
    out_slots, layouts = [], []
    for n in out_nodes:
        s = lw.env[n]
        if not hasattr(s, "dtype"):
            raise Unsupported(f"multi-output node {n} used outside its segment")
        layout = _output_layout(meta_val(n))
        if layout is not None:
            order, _ = layout
            s = _permute(lw, None, s, order)
        out_slots.append(lw.contiguous(s))
        layouts.append(None if layout is None else layout[1])
    weights = _weight_positions(lw.instrs)
    data = serialize(lw.instrs, in_slots, out_slots, lw.constants, shapes=lw.shapes)
    program = _core.RuntimeProgram.from_bytes(data)
    return NativeStep(
        program,
        [ids[n] for n in in_nodes],
        [ids[n] for n in out_nodes],
        len(data),
        weights,
        layouts,
        [[is_symbolic(d) for d in s.shape] for s in in_slots],
    )


def _get_attr(gm, target):
    obj = gm
    for part in target.split("."):
        obj = getattr(obj, part)
    return obj


def _lower_segments(gm, ids, name):
    """The steps of a graph and its report. A node whose lowering fails (its symbolic form, an
    argument the handler cannot take) falls back alone: the graph is partitioned again without
    it. A segment that fails as a whole (a size no input binds, ...) falls back whole."""
    forced: dict = {}
    while True:
        segments, report = partition(gm.graph, name, forced)
        steps = []
        try:
            for seg in segments:
                steps.append(_segment_step(gm, seg, ids, report))
        except NodeUnsupported as e:
            log.info("node falls back: %s", e)
            forced[e.node] = e.reason
            continue
        return steps, report


def _segment_step(gm, seg, ids, report):
    if seg.native:
        try:
            return lower_segment(gm, seg.nodes, ids, set(seg.nodes))
        except NodeUnsupported:
            raise
        except Unsupported as e:
            log.info("segment falls back: %s", e)
            reason = str(e)
        except Exception as e:  # a glassbox bug: PyTorch runs the segment, and the report says so
            log.warning("glassbox could not build a native segment; PyTorch runs it: %r", e)
            reason = f"internal error: {type(e).__name__}: {e}"
        report.native_nodes -= len(seg.nodes)
        report.fallback_ops["<segment: " + reason + ">"] += len(seg.nodes)
    return FallbackStep(seg.nodes, ids)


def _sizes_needed(graph, steps) -> list:
    """The size computations (see partition.symbolic_scalars) that PyTorch ops or the graph's
    outputs read, with those they read, in graph order."""
    sizes = set(symbolic_scalars(graph))
    readers = [n for step in steps if isinstance(step, FallbackStep) for n in step.nodes]
    readers += [n for n in graph.nodes if n.op == "output"]
    needed: set = set()
    stack = [a for n in readers for a in n.all_input_nodes if a in sizes]
    while stack:
        n = stack.pop()
        if n not in needed:
            needed.add(n)
            stack.extend(a for a in n.all_input_nodes if a in sizes)
    return [n for n in graph.nodes if n in needed]


class CompiledGraph:
    """Callable with the calling convention of the FX graph (positional tensors in, list out)."""

    def __init__(self, gm: torch.fx.GraphModule, name: str = "graph"):
        graph = gm.graph
        rewrite_known_formulas(graph)
        float_operands_as_tensors(graph)
        ids = {}
        placeholders = [n for n in graph.nodes if n.op == "placeholder"]
        for n in graph.nodes:
            ids[n] = len(ids)
        self.placeholder_ids = [ids[n] for n in placeholders]
        self.n_env = len(ids)
        self.constants = [
            (ids[n], _get_attr(gm, n.target)) for n in graph.nodes if n.op == "get_attr"
        ]
        self.steps, report = _lower_segments(gm, ids, name)
        self.report = report
        sizes = _sizes_needed(graph, self.steps)
        if sizes:
            self.steps.insert(0, FallbackStep(sizes, ids))
        output = next(n for n in graph.nodes if n.op == "output")
        self.output_args = output.args[0]
        self.ids = ids
        REPORTS.append(report)
        log.info("%s", report)

        self._fast = None
        if len(self.steps) == 1 and isinstance(self.steps[0], NativeStep) and not self.constants:
            self._fast = self._make_fast(self.steps[0])

    def _make_fast(self, step):
        """One native segment over graph inputs: the graph's arguments go to the C++ entry as
        they come, with no environment and no Python frame of ours."""
        position = {ids: k for k, ids in enumerate(self.placeholder_ids)}
        if not all(i in position for i in step.in_ids) or any(step.layouts):
            return None
        out_index = {i: k for k, i in enumerate(step.out_ids)}
        plan = []
        for a in self.output_args:
            if isinstance(a, torch.fx.Node) and self.ids[a] in out_index:
                plan.append((_OUTPUT, out_index[self.ids[a]]))
            elif isinstance(a, torch.fx.Node) and self.ids[a] in position:
                plan.append((_ARGUMENT, position[self.ids[a]]))
            elif a is None:
                plan.append((_NONE, 0))
            else:
                return None
        return tensor_call(
            step.program, [position[i] for i in step.in_ids], step.weights, plan, step.dynamic
        )

    def __call__(self, *args):
        if self._fast is not None:
            return self._fast(*args)
        env = [None] * self.n_env
        for i, a in zip(self.placeholder_ids, args, strict=False):
            env[i] = a
        for i, t in self.constants:
            env[i] = t
        for step in self.steps:
            step(env)
        return _map_args(self.output_args, env, self.ids)


def compile_graph(gm: torch.fx.GraphModule, example_inputs, name: str = "graph"):
    for n in gm.graph.nodes:
        if n.op == "placeholder":
            v = meta_val(n)
            if not isinstance(v, torch.Tensor) and not is_symbolic_scalar(v):
                report = Report(
                    name, total_nodes=sum(1 for m in gm.graph.nodes if m.op == "call_function")
                )
                report.fallback_ops["<non-tensor inputs>"] = report.total_nodes
                REPORTS.append(report)
                log.info("%s", report)
                return gm.forward
    compiled = CompiledGraph(gm, name)
    # A graph that is one native segment is called straight through its C++ entry.
    return compiled._fast if compiled._fast is not None else compiled
