"""The glassbox native backend: ``torch.compile(model, backend="glassbox")``, plus
:func:`glassbox.export` / :func:`glassbox.load` for standalone artifacts.

Pipeline: AOTAutograd with core ATen decompositions -> partition (native / fallback segments,
a report per graph) -> lower (instructions over value slots) -> plan (fusion, arena by lifetime)
-> serialize (FlatBuffers, through the C++ writer) -> C++ runtime.
"""

from __future__ import annotations

import logging

from glassbox.backend.compiled import REPORTS, compile_graph
from glassbox.backend.export import ExportError, export, load

log = logging.getLogger("glassbox.backend")

__all__ = ["REPORTS", "ExportError", "export", "glassbox_backend", "load"]


def glassbox_backend(gm, example_inputs, **kwargs):
    """The torch.compile backend: forward and backward graphs both go through the runtime.

    Inference (grad disabled, or no input requiring grad) takes a shorter road when it can: the
    Dynamo graph is traced to core ATen here and the compiled graph goes back to Dynamo as is,
    without AOTAutograd's runtime wrapper (about 15 us a call). Graphs that need that wrapper
    (input mutations, outputs aliasing inputs, module state, dynamic shapes) and training take
    the AOTAutograd road."""
    from torch._decomp import core_aten_decompositions
    from torch._dynamo.backends.common import aot_autograd
    from torch._functorch.aot_autograd import make_boxed_func

    _leave_out_overhead_records()
    compiled = _compile_inference(gm, example_inputs)
    if compiled is not None:
        return compiled

    counter = {"n": 0}

    def named(kind):
        def compiler(graph_module, inputs):
            counter["n"] += 1
            # AOTAutograd calls compiled graphs with one list of arguments ("boxed"); saying so
            # spares the user its warning about a compiler that does not.
            return make_boxed_func(
                compile_graph(graph_module, inputs, name=f"{kind}#{counter['n']}")
            )

        return compiler

    if _needs_grad(example_inputs):
        decompositions = _training_decompositions(core_aten_decompositions())
    else:
        decompositions = _inference_decompositions()
    return aot_autograd(
        fw_compiler=named("forward"),
        bw_compiler=named("backward"),
        inference_compiler=named("inference"),
        decompositions=decompositions,
    )(gm, example_inputs)


def _leave_out_overhead_records() -> None:
    """Leave Dynamo's profiler records out of the frame being compiled.

    With ``torch._dynamo.config.record_runtime_overhead`` (on by default), the code Dynamo
    generates for a frame calls two of its functions around the argument extraction, on every
    call, only to name that stretch in profiler traces: ~2 us a call, which is a tenth of a batch-1
    MLP's call. Frames compiled by glassbox go without them unless a profiler runs while they
    compile or ``GLASSBOX_RECORD_RUNTIME_OVERHEAD=1``. The setting is read when Dynamo writes the
    frame's code, after the backend returns, and restored when Dynamo's compile of the frame ends,
    so frames compiled by other backends keep the records."""
    import os

    import torch
    from torch._dynamo import callback_handler
    from torch._dynamo import config as dynamo_config
    from torch._guards import TracingContext

    if (
        not dynamo_config.record_runtime_overhead
        or os.environ.get("GLASSBOX_RECORD_RUNTIME_OVERHEAD") == "1"
        or torch.autograd.profiler._is_profiler_enabled
        or TracingContext.try_get() is None  # called outside a Dynamo compile: nothing to restore
    ):
        return
    # One callback, registered again after torch._dynamo.reset() cleared it (it must not remove
    # itself: Dynamo is iterating over the list when it runs).
    if _restore_overhead_records not in callback_handler.end_callbacks:
        callback_handler.register_end_callback(_restore_overhead_records)
    dynamo_config.record_runtime_overhead = False
    _OVERHEAD_RECORDS["off"] = True


_OVERHEAD_RECORDS = {"off": False}  # whether glassbox turned the records off for this compile


def _restore_overhead_records(_args=None) -> None:
    from torch._dynamo import config as dynamo_config

    if _OVERHEAD_RECORDS["off"]:
        dynamo_config.record_runtime_overhead = True
        _OVERHEAD_RECORDS["off"] = False


# Decompositions whose forward does not fit the backward AOTAutograd pairs with it: the CPU
# flash attention's decomposition computes the forward in plain operations but its saved
# "logsumexp" is the attention matrix, which the flash backward misreads (torch 2.13: gradients
# off by thousands, whatever backend compiles the graphs). The forward stays one fallback op.
_UNSAFE_FOR_TRAINING = ("_scaled_dot_product_flash_attention_for_cpu",)


def _training_decompositions(table: dict) -> dict:
    return {
        op: fn
        for op, fn in table.items()
        if not any(name in str(op) for name in _UNSAFE_FOR_TRAINING)
    }


def _inference_decompositions() -> dict:
    """Core ATen decompositions, but attention stays one op (CPU flash attention, which torch's
    own scaled_dot_product_attention picks for these calls) where the attention kernel computes
    the call; elsewhere the products, mask and softmax of its decomposition."""
    import torch
    from torch._decomp import core_aten_decompositions

    from glassbox.backend.lower import FLASH_ATTENTION, SDPA, attention_is_native, sdpa_is_native

    table = core_aten_decompositions()

    def keep(op, native):
        if op not in table:  # a CustomDecompTable, whose get() answers None
            return
        decompose = table[op]

        def keep_native(*args, **kwargs):
            if native(*args, **kwargs):
                return NotImplemented  # traced as the op itself, or as torch composes it
            return decompose(*args, **kwargs)

        table[op] = keep_native

    keep(FLASH_ATTENTION, attention_is_native)
    keep(SDPA, sdpa_is_native)
    # SiLU stays one op: the runtime computes it, and a product before it applies it as written.
    silu = torch.ops.aten.silu.default
    if silu in table:
        del table[silu]
    return table


def _needs_grad(example_inputs) -> bool:
    """Whether a call with these inputs records gradients (grad mode on, an input requiring
    grad): the training road."""
    import torch

    return torch.is_grad_enabled() and any(
        isinstance(a, torch.Tensor) and a.requires_grad for a in example_inputs
    )


def _compile_inference(gm, example_inputs):
    """The compiled graph for an inference call that needs no calling-convention changes, or None.

    Dynamo guards on the grad mode and on each input's requires_grad, so a graph compiled here
    is only reused by calls that cannot need gradients either."""
    import torch
    from torch._functorch.aot_autograd import aot_export_joint_simple

    tensors = [a for a in example_inputs if isinstance(a, torch.Tensor)]
    if len(tensors) != len(example_inputs):
        return None
    if _needs_grad(example_inputs):
        return None
    if any(not isinstance(d, int) for t in tensors for d in t.shape):
        return None
    # Parameters or buffers still held by the graph module would be baked into the program as
    # constants and miss later updates; AOTAutograd lifts them to inputs instead.
    if next(gm.parameters(), None) is not None or next(gm.buffers(), None) is not None:
        return None
    try:
        aten = aot_export_joint_simple(
            gm, tuple(example_inputs), trace_joint=False, decompositions=_inference_decompositions()
        )
    except Exception as e:  # mutations, aliasing outputs, pytrees: AOTAutograd handles those
        log.info("inference graph takes the AOTAutograd road: %s", str(e).splitlines()[0])
        return None
    return compile_graph(aten, example_inputs, name="inference (direct)")


def register() -> None:
    """Register "glassbox" with torch._dynamo (on ``import glassbox`` when torch is loaded)."""
    from torch._dynamo import list_backends, register_backend

    if "glassbox" not in list_backends(exclude_tags=()):
        register_backend(name="glassbox")(glassbox_backend)
