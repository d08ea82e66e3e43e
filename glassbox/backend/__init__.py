"""The glassbox native backend: ``torch.compile(model, backend="glassbox")``, plus
:func:`glassbox.export` / :func:`glassbox.load` for standalone artifacts.

Pipeline: AOTAutograd with core ATen decompositions -> partition (native / fallback segments,
a report per graph) -> lower (instructions over value slots) -> plan (fusion, arena by lifetime)
-> serialize (FlatBuffers, through the C++ writer) -> C++ runtime.
"""

from __future__ import annotations

from glassbox.backend.compiled import REPORTS, compile_graph
from glassbox.backend.export import ExportError, export, load

__all__ = ["REPORTS", "ExportError", "export", "glassbox_backend", "load"]


def glassbox_backend(gm, example_inputs, **kwargs):
    """The torch.compile backend: forward and backward graphs both go through the runtime."""
    from torch._decomp import core_aten_decompositions
    from torch._dynamo.backends.common import aot_autograd

    counter = {"n": 0}

    def named(kind):
        def compiler(graph_module, inputs):
            counter["n"] += 1
            return compile_graph(graph_module, inputs, name=f"{kind}#{counter['n']}")

        return compiler

    return aot_autograd(
        fw_compiler=named("forward"),
        bw_compiler=named("backward"),
        inference_compiler=named("inference"),
        decompositions=core_aten_decompositions(),
    )(gm, example_inputs)


def register() -> None:
    """Register "glassbox" with torch._dynamo (on ``import glassbox`` when torch is loaded)."""
    from torch._dynamo import list_backends, register_backend

    if "glassbox" not in list_backends(exclude_tags=()):
        register_backend(name="glassbox")(glassbox_backend)
