"""glassbox.export / glassbox.load: one graph, no breaks, into a standalone .gbx artifact."""

from __future__ import annotations

import os
import warnings


class ExportError(RuntimeError):
    """The model cannot become a standalone artifact (graph break, unsupported op, ...)."""


def export(model, example_args, path, example_kwargs=None):
    """Trace ``model`` with torch.export, lower every node natively, write ``path``.

    Parameters and buffers become constants in the artifact. The artifact's inputs are the
    flattened tensor arguments; its outputs the flattened outputs. Returns the partition report.
    """
    import torch
    from torch.export.graph_signature import InputKind, OutputKind

    from glassbox.backend.lower import Lowerer, Unsupported, meta_val
    from glassbox.backend.partition import partition
    from glassbox.backend.plan import serialize

    ep = torch.export.export(model, tuple(example_args), kwargs=example_kwargs or {})
    with warnings.catch_warnings():
        # torch's own deep copy of the module call graph trips its LeafSpec deprecation; nothing
        # the caller wrote or can change.
        warnings.filterwarnings("ignore", message=r".*LeafSpec.*deprecated", category=FutureWarning)
        ep = ep.run_decompositions()
    gm = ep.graph_module
    sig = ep.graph_signature
    segments, report = partition(gm.graph, name=type(model).__name__)
    if any(not s.native for s in segments):
        raise ExportError(
            "cannot export: these ops have no native kernel: "
            + ", ".join(sorted(report.fallback_ops))
        )
    lw = Lowerer()
    placeholders = [n for n in gm.graph.nodes if n.op == "placeholder"]
    inputs = []
    for node, spec in zip(placeholders, sig.input_specs, strict=False):
        if spec.kind == InputKind.USER_INPUT:
            val = meta_val(node)
            if not isinstance(val, torch.Tensor):
                raise ExportError(f"input {spec.arg.name} is not a tensor")
            lw.env[node] = lw.input_slot(val, len(inputs))
            inputs.append(lw.env[node])
        elif spec.kind in (InputKind.PARAMETER, InputKind.BUFFER):
            tensor = (
                ep.state_dict[spec.target]
                if spec.target in ep.state_dict
                else ep.constants[spec.target]
            )
            lw.env[node] = lw.constant_slot(tensor)
        elif spec.kind == InputKind.CONSTANT_TENSOR:
            lw.env[node] = lw.constant_slot(ep.constants[spec.target])
        else:
            raise ExportError(f"unsupported graph input kind {spec.kind}")
    try:
        for node in gm.graph.nodes:
            if node.op == "call_function":
                lw.lower_node(node)
            elif node.op == "get_attr":
                lw.env[node] = lw.constant_slot(getattr(gm, node.target))
    except Unsupported as e:
        raise ExportError(f"cannot export: {e}") from e
    out_node = next(n for n in gm.graph.nodes if n.op == "output")
    outputs = []
    for arg, spec in zip(out_node.args[0], sig.output_specs, strict=False):
        if spec.kind != OutputKind.USER_OUTPUT:
            continue
        if not hasattr(lw.env.get(arg), "dtype"):
            raise ExportError(f"output {arg} is not a tensor")
        outputs.append(lw.contiguous(lw.env[arg]))
    data = serialize(lw.instrs, inputs, outputs, lw.constants)
    tmp = os.fspath(path) + ".tmp"
    with open(tmp, "wb") as f:
        f.write(data)
    os.replace(tmp, path)
    return report


class LoadedProgram:
    """A loaded artifact. Call it with the flattened input tensors (torch or NumPy)."""

    def __init__(self, path):
        from glassbox import _core

        self.path = os.fspath(path)
        self._program = _core.RuntimeProgram.from_file(self.path)

    @property
    def num_inputs(self) -> int:
        return self._program.num_inputs

    @property
    def num_outputs(self) -> int:
        return self._program.num_outputs

    def __call__(self, *inputs):
        as_torch = False
        arrays = []
        for x in inputs:
            if type(x).__module__.startswith("torch"):
                as_torch = True
                x = x.detach()
                if x.device.type != "cpu":
                    raise ValueError("glassbox runs on CPU tensors only")
            arrays.append(x)
        outs = self._program.run(arrays)
        if as_torch:
            import torch

            outs = [torch.from_numpy(o) for o in outs]
        return outs[0] if len(outs) == 1 else tuple(outs)


def load(path) -> LoadedProgram:
    """Load and verify a .gbx artifact; returns a callable."""
    return LoadedProgram(path)
