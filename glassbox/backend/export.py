"""glassbox.export / glassbox.load: one graph, no breaks, into a standalone .gbx artifact."""

from __future__ import annotations

import os
import warnings


class ExportError(RuntimeError):
    """The model cannot become a standalone artifact (graph break, unsupported op, ...)."""


# Arguments that are not tensors but become constants of the program (their values fixed at
# export, named in the artifact's signature).
FIXED_TYPES = (bool, int, float, type(None))


def find_runner() -> str | None:
    """The path of the installed ``glassbox-run`` (GLASSBOX_RUN, else beside this interpreter,
    else on PATH), or None."""
    import shutil
    import sys
    from pathlib import Path

    for candidate in (
        os.environ.get("GLASSBOX_RUN"),
        str(Path(sys.executable).with_name("glassbox-run")),
        shutil.which("glassbox-run"),
    ):
        if candidate and Path(candidate).exists():
            return candidate
    return None


def export(model, example_args, path, example_kwargs=None):
    """Trace ``model`` with torch.export, lower every node natively, write ``path``.

    Parameters and buffers become constants in the artifact. The artifact's inputs are the
    flattened tensor arguments; its outputs the flattened outputs. Arguments that are bool, int,
    float or None are fixed to their example values (torch.export specializes the graph on them)
    and recorded, with every argument's name, in the artifact (see :class:`LoadedProgram`).
    Returns the partition report.
    """
    import torch

    from glassbox.backend import _inference_decompositions
    from glassbox.backend.lower import Unsupported
    from glassbox.backend.partition import partition
    from glassbox.backend.patterns import rewrite_known_formulas
    from glassbox.backend.plan import serialize

    ep = torch.export.export(model, tuple(example_args), kwargs=example_kwargs or {})
    with warnings.catch_warnings():
        # torch's own deep copy of the module call graph trips its LeafSpec deprecation; nothing
        # the caller wrote or can change.
        warnings.filterwarnings("ignore", message=r".*LeafSpec.*deprecated", category=FutureWarning)
        ep = ep.run_decompositions(_inference_decompositions())
    gm = ep.graph_module
    rewrite_known_formulas(gm.graph)
    segments, report = partition(gm.graph, name=type(model).__name__)
    if any(not s.native for s in segments):
        raise ExportError(
            "cannot export: these ops have no native kernel: "
            + ", ".join(sorted(report.fallback_ops))
        )
    lw, inputs, arguments = _bind_inputs(ep)
    try:
        for node in gm.graph.nodes:
            if node.op == "call_function":
                lw.lower_node(node)
            elif node.op == "get_attr":
                lw.env[node] = lw.constant_slot(getattr(gm, node.target))
    except Unsupported as e:
        raise ExportError(f"cannot export: {e}") from e
    data = serialize(lw.instrs, inputs, _outputs(ep, lw), lw.constants, arguments)
    tmp = os.fspath(path) + ".tmp"
    with open(tmp, "wb") as f:
        f.write(data)
    os.replace(tmp, path)
    return report


def _bind_inputs(ep):
    """A Lowerer with the graph's placeholders bound: user tensors to program inputs, fixed
    arguments to their values, parameters, buffers and constant tensors to constants. Returns
    (lowerer, input slots, the signature: (name, input position or -1, value literal) each)."""
    import torch
    from torch.export.graph_signature import ConstantArgument, InputKind

    from glassbox.backend.lower import Lowerer, meta_val

    lw = Lowerer()
    inputs, arguments = [], []
    placeholders = [n for n in ep.graph_module.graph.nodes if n.op == "placeholder"]
    for node, spec in zip(placeholders, ep.graph_signature.input_specs, strict=False):
        if spec.kind == InputKind.USER_INPUT and isinstance(spec.arg, ConstantArgument):
            value = spec.arg.value
            if not isinstance(value, FIXED_TYPES):
                raise ExportError(
                    f"input {spec.arg.name} is a {type(value).__name__}: arguments must be "
                    "tensors, or bool, int, float or None (fixed at export)"
                )
            lw.env[node] = value
            arguments.append((spec.arg.name, -1, repr(value)))
        elif spec.kind == InputKind.USER_INPUT:
            val = meta_val(node)
            if not isinstance(val, torch.Tensor):
                raise ExportError(f"input {spec.arg.name} is not a tensor")
            lw.env[node] = lw.input_slot(val, len(inputs))
            arguments.append((spec.arg.name, len(inputs), ""))
            inputs.append(lw.env[node])
        elif spec.kind in (InputKind.PARAMETER, InputKind.BUFFER, InputKind.CONSTANT_TENSOR):
            held = ep.state_dict if spec.target in ep.state_dict else ep.constants
            lw.env[node] = lw.constant_slot(held[spec.target])
        else:
            raise ExportError(f"unsupported graph input kind {spec.kind}")
    return lw, inputs, arguments


def _outputs(ep, lw):
    from torch.export.graph_signature import OutputKind

    out_node = next(n for n in ep.graph_module.graph.nodes if n.op == "output")
    outputs = []
    for arg, spec in zip(out_node.args[0], ep.graph_signature.output_specs, strict=False):
        if spec.kind != OutputKind.USER_OUTPUT:
            continue
        if not hasattr(lw.env.get(arg), "dtype"):
            raise ExportError(f"output {arg} is not a tensor")
        outputs.append(lw.contiguous(lw.env[arg]))
    return outputs


class LoadedProgram:
    """A loaded artifact. Call it with the flattened input tensors (torch or NumPy), or, for an
    artifact that records its signature (``glassbox.export`` writes one), with the exported
    function's arguments, positional or by name: arguments that were fixed at export may be left
    out or given their exported value (another value is a ValueError: the program was specialized
    on it).

    ``arguments``: (name, program input position or -1, fixed value or None) of each argument, in
    call order; ``constants``: the fixed ones, by name."""

    def __init__(self, path):
        from glassbox import _core

        self.path = os.fspath(path)
        self._program = _core.RuntimeProgram.from_file(self.path)
        self.arguments = [
            (name, position, None if text is None else _literal(text))
            for name, position, text in self._program.arguments()
        ]

    @property
    def constants(self) -> dict:
        return {name: value for name, position, value in self.arguments if position < 0}

    def _bind(self, args, kwargs) -> list:
        """The program's inputs from a call with the exported function's arguments."""
        names = [name for name, _, _ in self.arguments]
        if len(args) > len(names):
            raise TypeError(f"expected at most {len(names)} arguments, got {len(args)}")
        given = dict(zip(names, args, strict=False))
        for name in kwargs:
            if name not in names or name in given:
                raise TypeError(f"unexpected or repeated argument {name!r}")
        given.update(kwargs)
        tensors = [None] * self.num_inputs
        for name, position, value in self.arguments:
            if position >= 0:
                if name not in given:
                    raise TypeError(f"missing argument {name!r}")
                tensors[position] = given[name]
            elif name in given and (type(given[name]) is not type(value) or given[name] != value):
                raise ValueError(
                    f"argument {name!r} was fixed to {value!r} at export, got {given[name]!r}"
                )
        return tensors

    @property
    def num_inputs(self) -> int:
        return self._program.num_inputs

    @property
    def num_outputs(self) -> int:
        return self._program.num_outputs

    def __call__(self, *inputs, **kwargs):
        # Called with the exported function's arguments (more than it has: left to the runtime's
        # count check).
        if self.arguments and (kwargs or self.num_inputs != len(inputs) <= len(self.arguments)):
            inputs = self._bind(inputs, kwargs)
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


def _literal(text: str):
    """A fixed argument's value from its Python literal (repr of a bool, int, float or None)."""
    import ast

    if text in ("inf", "-inf", "nan"):
        return float(text)
    return ast.literal_eval(text)


def load(path) -> LoadedProgram:
    """Load and verify a .gbx artifact; returns a callable."""
    return LoadedProgram(path)
