"""A compiled FX graph: native segments run by the C++ runtime, fallback segments by PyTorch."""

from __future__ import annotations

import itertools
import logging
import weakref

import torch

from glassbox.backend.lower import Lowerer, Unsupported, meta_val
from glassbox.backend.partition import Report, partition
from glassbox.backend.plan import serialize
from glassbox.backend.program import INPUT

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


_DTYPES = {0: torch.float32, 1: torch.int64, 2: torch.bool}


def _address_check(program):
    """A predicate on a program's input tensors: True when they can go to ``run_ptrs`` by address
    alone (the declared dtype and shape, C-contiguous, on the CPU, no lazy negation), which skips
    a DLPack export per tensor; otherwise they go through ``run``.

    The attribute checks cost ~1 us a tensor in Python. Once a call passes them, its tensors'
    metadata is recorded in a TensorGuards (the C++ check Dynamo's guards use: dtype, device,
    sizes, strides, dispatch keys, so also the negation bit), and later calls that match it
    skip the Python checks (~0.1 us a tensor)."""
    specs = [(_DTYPES[d], torch.Size(shape)) for d, shape in program.input_info()]

    def checked(ts):
        for t, (dtype, shape) in zip(ts, specs, strict=False):
            if (
                t.dtype is not dtype
                or t.shape != shape
                or not t.is_contiguous()
                or not t.is_cpu
                or t.is_neg()
            ):
                return False
        return True

    try:
        from torch._C._dynamo.guards import TensorGuards
    except ImportError:  # pragma: no cover - a torch without Dynamo's C++ guards
        return checked
    recorded = None

    def guarded(ts):
        nonlocal recorded
        if recorded is not None and recorded.check(*ts):
            return True
        if not checked(ts):
            return False
        recorded = TensorGuards(
            *ts,
            dynamic_dims_sizes=[list(t.shape) for t in ts],
            dynamic_dims_strides=[list(t.stride()) for t in ts],
        )
        return True

    return guarded


_next_version = itertools.count(1).__next__


def _weight_positions(instrs) -> list[int]:
    """Input positions read as the weight operand of a product (B of mm, addmm): the runtime keeps
    them packed from run to run while the caller gives them the same address and version."""
    positions = set()
    for ins in instrs:
        if ins.op in ("mm", "addmm"):
            root = ins.inputs[-1].root()
            if root.kind == INPUT:
                positions.add(root.index)
    return sorted(positions)


def _input_versions(n, positions):
    """A function from a call's input tensors to the versions the runtime gets (see gbx_run_into).

    A weight keeps its version while it is the same tensor object (held by a weak reference, so
    a new tensor at a freed one's address is never taken for it) at the same autograd version
    counter (bumped by every in-place write through the tensor or its views, under no_grad too);
    otherwise it gets a fresh process-wide number. Writes the counter does not see (through
    ``.data``, or a NumPy view) are not seen: call ``torch._dynamo.reset()`` after those.
    Inference tensors have no counter: version 0, never reused. Other inputs are always 0."""
    versions = [0] * n
    seen: list = [(None, None)] * len(positions)

    def current(ts):
        for j, i in enumerate(positions):
            t = ts[i]
            ref, counter = seen[j]
            try:
                v = t._version
            except RuntimeError:  # an inference tensor
                versions[i] = 0
                seen[j] = (None, None)
                continue
            if counter != v or ref is None or ref() is not t:
                seen[j] = (weakref.ref(t), v)
                versions[i] = _next_version()
        return list(versions)

    return current


class _Runner:
    """Runs one program on tensors: returns its outputs as new tensors, computed in place."""

    def __init__(self, program, weights):
        self.program = program
        self.checked = _address_check(program)
        self.versions = _input_versions(program.num_inputs, weights)
        # torch.empty's arguments per output: sizes as separate ints (faster to parse than a
        # tuple), or the empty tuple of a 0-d tensor.
        self.outputs = [(tuple(shape) or ((),), _DTYPES[d]) for d, shape in program.output_info()]

    def __call__(self, ts):
        if self.checked(ts):
            # Plain contiguous CPU tensors of the declared dtypes and shapes: hand the runtime
            # their addresses, skipping a DLPack export per tensor. Outputs on the CPU whatever
            # torch's default device is.
            outs = [torch.empty(*s, dtype=dtype, device="cpu") for s, dtype in self.outputs]
            self.program.run_ptrs_into(
                [t.data_ptr() for t in ts], self.versions(ts), [o.data_ptr() for o in outs]
            )
            return outs
        return [torch.from_numpy(o) for o in self.program.run([_plain(t) for t in ts])]


class NativeStep:
    def __init__(self, program, in_ids, out_ids, nbytes, weights=()):
        self.program, self.in_ids, self.out_ids, self.nbytes = program, in_ids, out_ids, nbytes
        self.runner = _Runner(program, weights)

    def __call__(self, env):
        outs = self.runner([env[i] for i in self.in_ids])
        for i, o in zip(self.out_ids, outs, strict=False):
            env[i] = o


def _plain(t):
    """DLPack refuses tensors that require grad (the runtime never needs their history) and
    exports a lazily negated tensor's memory without its negation."""
    if t.requires_grad:
        t = t.detach()
    return t.resolve_neg() if t.is_neg() else t


class FallbackStep:
    def __init__(self, nodes, ids):
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
            if not isinstance(val, torch.Tensor):
                raise Unsupported(f"input {a} is not a tensor")
            slot = lw.input_slot(val, len(in_slots))
            lw.env[a] = slot
            in_nodes.append(a)
            in_slots.append(slot)
    for n in nodes:
        lw.lower_node(n)
    out_nodes = [n for n in nodes if any(u not in inside for u in n.users)]
    out_slots = []
    for n in out_nodes:
        s = lw.env[n]
        if not hasattr(s, "dtype"):
            raise Unsupported(f"multi-output node {n} used outside its segment")
        out_slots.append(lw.contiguous(s))
    weights = _weight_positions(lw.instrs)
    data = serialize(lw.instrs, in_slots, out_slots, lw.constants)
    program = _core.RuntimeProgram.from_bytes(data)
    return NativeStep(
        program, [ids[n] for n in in_nodes], [ids[n] for n in out_nodes], len(data), weights
    )


def _get_attr(gm, target):
    obj = gm
    for part in target.split("."):
        obj = getattr(obj, part)
    return obj


class CompiledGraph:
    """Callable with the calling convention of the FX graph (positional tensors in, list out)."""

    def __init__(self, gm: torch.fx.GraphModule, name: str = "graph"):
        graph = gm.graph
        segments, report = partition(graph, name)
        self.report = report
        ids = {}
        placeholders = [n for n in graph.nodes if n.op == "placeholder"]
        for n in graph.nodes:
            ids[n] = len(ids)
        self.placeholder_ids = [ids[n] for n in placeholders]
        self.n_env = len(ids)
        self.constants = [
            (ids[n], _get_attr(gm, n.target)) for n in graph.nodes if n.op == "get_attr"
        ]
        self.steps = []
        for seg in segments:
            if seg.native:
                try:
                    self.steps.append(lower_segment(gm, seg.nodes, ids, set(seg.nodes)))
                    continue
                except Unsupported as e:
                    log.info("segment falls back: %s", e)
                    report.native_nodes -= len(seg.nodes)
                    report.fallback_ops["<segment: " + str(e) + ">"] += len(seg.nodes)
            self.steps.append(FallbackStep(seg.nodes, ids))
        output = next(n for n in graph.nodes if n.op == "output")
        self.output_args = output.args[0]
        self.ids = ids
        REPORTS.append(report)
        log.info("%s", report)

        self._fast = None
        if len(self.steps) == 1 and isinstance(self.steps[0], NativeStep) and not self.constants:
            self._fast = self._make_fast(self.steps[0])

    def _make_fast(self, step):
        """One native segment over graph inputs: call the program with no environment at all."""
        position = {ids: k for k, ids in enumerate(self.placeholder_ids)}
        if not all(i in position for i in step.in_ids):
            return None
        arg_pos = [position[i] for i in step.in_ids]
        out_index = {i: k for k, i in enumerate(step.out_ids)}
        plan = []
        for a in self.output_args:
            if isinstance(a, torch.fx.Node) and self.ids[a] in out_index:
                plan.append((0, out_index[self.ids[a]]))
            elif isinstance(a, torch.fx.Node) and self.ids[a] in position:
                plan.append((1, position[self.ids[a]]))
            elif a is None:
                plan.append((2, None))
            else:
                return None
        runner = step.runner

        def fast(*args):
            outs = runner([args[k] for k in arg_pos])
            return [outs[k] if kind == 0 else args[k] if kind == 1 else None for kind, k in plan]

        return fast

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
            if not isinstance(v, torch.Tensor) or any(not isinstance(d, int) for d in v.shape):
                report = Report(
                    name, total_nodes=sum(1 for m in gm.graph.nodes if m.op == "call_function")
                )
                report.fallback_ops["<dynamic or non-tensor inputs>"] = report.total_nodes
                REPORTS.append(report)
                log.info("%s", report)
                return gm.forward
    return CompiledGraph(gm, name)
