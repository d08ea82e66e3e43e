"""AOTAutograd adapter: a region's graphs and ``ViewAndMutationMeta`` as IR nodes.

The forward graph returns, in order: new values of inputs the runtime mutates, the user outputs,
intermediate bases, tensors saved for backward (with, then without, version-counter checks) and
SymInts saved for backward. :class:`AOTAutogradWrapper` records those positions; the visitors
write the ``torch.autograd.Function`` that calls the graphs. What the written wrapper does not
reproduce (tensor subclasses, effect tokens, metadata-only input mutations, output aliases it
cannot regenerate as AOT does: see ``aliases``) is refused here with :class:`PythonifyError`,
never approximated.
"""

from __future__ import annotations

import math
import types

from glassbox.pythonify.adapters.aliases import output_aliases
from glassbox.pythonify.adapters.inputs import PythonifyError
from glassbox.pythonify.ir import AOTAutogradWrapper, KernelLoad

MAX_CONSTANT_ELEMENTS = 1 << 16


def _import_line(name: str, value) -> str:
    import torch

    if isinstance(value, types.ModuleType):
        return f"import {value.__name__} as {name}" if value.__name__ != name else f"import {name}"
    if isinstance(value, float) and (math.isinf(value) or math.isnan(value)):
        return f"{name} = float({str(value)!r})"
    if value is type(None):
        return f"{name} = type(None)"
    if value is torch.device:
        return f"from torch import device as {name}"
    module_name = getattr(value, "__module__", None)
    qualname = getattr(value, "__qualname__", None)
    if (
        module_name == "builtins"
        and getattr(
            __builtins__ if isinstance(__builtins__, dict) else vars(__builtins__),
            "get",
            lambda k: None,
        )(qualname)
        is value
    ):
        return f"{name} = {qualname}" if name != qualname else f"{name} = builtins.{qualname}"
    if module_name and qualname and "." not in qualname and "<" not in qualname:
        import importlib

        try:
            if getattr(importlib.import_module(module_name), qualname) is value:
                return f"from {module_name} import {qualname} as {name}"
        except Exception:
            pass
    raise PythonifyError(f"graph global {name!r} ({value!r}) cannot be imported by name")


def fx_kernel(name: str, gm, compiled=None) -> KernelLoad:
    """An FX GraphModule as a standalone ``def name(...)`` (``self`` and get_attr resolved)."""
    import torch

    python = gm.graph.python_code(root_module="self")
    source = python.src
    constants = {}
    for node in gm.graph.nodes:
        if node.op == "call_module":
            raise PythonifyError(f"graph {name} calls a submodule ({node.target})")
        if node.op == "get_attr":
            value = getattr(gm, node.target)
            if not isinstance(value, torch.Tensor) or value.numel() > MAX_CONSTANT_ELEMENTS:
                raise PythonifyError(f"graph {name} reads attribute {node.target}")
            constant = f"{name}_{node.target.replace('.', '_')}"
            constants[constant] = value.detach().clone()
            source = source.replace(f"self.{node.target}", constant)
    head = "def forward(self, "
    if head in source:
        source = source.replace(head, f"def {name}(", 1)
    else:
        source = source.replace("def forward(self)", f"def {name}()", 1)
    if "self" in source.replace("self.", "").split():
        raise PythonifyError(f"graph {name} still refers to self")
    imports = {key: _import_line(key, value) for key, value in python.globals.items()}
    return KernelLoad(name, "fx", source.strip() + "\n", imports, constants, compiled)


def inductor_kernel(name: str, graph) -> KernelLoad:
    if not graph.inductor_source and not any("call" in n.op for n in graph.gm.graph.nodes):
        # A graph without calls (it returns inputs): Inductor runs the FX graph's own forward.
        return fx_kernel(name, graph.gm, graph.compiled)
    if not graph.inductor_source:
        raise PythonifyError(f"inductor produced no output code for {name}")
    compiled = graph.compiled
    live = None
    if compiled is not None and getattr(compiled, "current_callable", None) is not None:
        live = compiled.current_callable
    return KernelLoad(name, "inductor", graph.inductor_source, live=live)


def _kernel(name: str, graph, backend: str) -> KernelLoad:
    if backend == "inductor":
        return inductor_kernel(name, graph)
    return fx_kernel(name, graph.gm, graph.compiled)


def _span(value: slice, total: int) -> tuple[int, int]:
    start, stop, _ = value.indices(total)
    return (start, stop)


def aot_wrapper(region_name: str, record, backend: str) -> AOTAutogradWrapper:
    from torch._functorch._aot_autograd.schemas import MutationType, OutputType

    md = record.fw_metadata
    if md is None:
        raise PythonifyError(f"no AOTAutograd metadata was recorded for {region_name}")
    if getattr(md, "tokens", None):
        raise PythonifyError(f"{region_name}: effect tokens are not supported")
    if any(type(m).__name__ == "SubclassCreationMeta" for m in md.subclass_inp_meta or ()):
        raise PythonifyError(f"{region_name}: tensor subclass inputs are not supported")
    mutated = list(md.mutated_inp_runtime_indices)
    for index in mutated:
        info = md.input_info[index]
        if info.mutates_metadata or not info.mutates_data:
            raise PythonifyError(f"{region_name}: input {index} has a metadata mutation")
    inference = record.inference is not None and record.forward is None
    aliases = output_aliases(md, region_name, training=not inference)
    forward_graph = record.inference if inference else record.forward
    if forward_graph is None:
        raise PythonifyError(f"{region_name}: no forward graph was recorded")
    forward = _kernel(
        f"{region_name}_{'inference' if inference else 'forward'}", forward_graph, backend
    )
    wrapper = AOTAutogradWrapper(
        name=f"{region_name}_runtime",
        forward=forward,
        backward=None,
        inference=inference,
        num_inputs=len(md.input_info),
        mutated_inputs=mutated,
        num_outputs=md.num_outputs,
        unsafe_view_outputs=list(md.unsafe_view_out_indices),
        aliases=aliases,
        num_intermediate_bases=md.num_intermediate_bases,
    )
    if inference:
        return wrapper
    if record.backward is None:
        raise PythonifyError(f"{region_name}: training graph without a backward graph")
    wrapper.backward = _kernel(f"{region_name}_backward", record.backward, backend)
    total = len(list(forward_graph.gm.graph.find_nodes(op="output"))[0].args[0])
    wrapper.saved_tensors = _span(md.tensors_saved_for_backwards_with_vc_check_slice, total)
    wrapper.saved_tensors_no_vc = _span(md.tensors_saved_for_backwards_no_vc_check_slice, total)
    wrapper.saved_symints = _span(md.symints_saved_for_backwards_slice, total)
    opaque = getattr(md, "opaque_objects_saved_for_backwards_slice", None)
    if opaque is not None and _span(opaque, total)[0] != _span(opaque, total)[1]:
        raise PythonifyError(f"{region_name}: opaque objects saved for backward")
    metas = [
        md.input_info[i] for i in range(len(md.input_info))
        if md.input_info[i].mutation_type == MutationType.MUTATED_OUT_GRAPH
    ] + list(md.output_info)  # fmt: skip
    wrapper.non_differentiable = [i for i, meta in enumerate(metas) if not meta.requires_grad]
    grads = [
        i for i, index in enumerate(mutated)
        if md.input_info[index].mutates_data and md.input_info[index].requires_grad
    ]  # fmt: skip
    import torch

    for i, info in enumerate(md.output_info):
        plain = info.output_type in (
            OutputType.non_alias, OutputType.unsafe_view_alias, OutputType.custom_function_view
        )  # fmt: skip
        if plain and issubclass(info.raw_type, torch.Tensor) and info.requires_grad_for_backward:
            grads.append(len(mutated) + i)
    start = len(mutated) + md.num_outputs  # intermediate bases: always differentiable
    wrapper.grad_positions = grads + list(range(start, start + md.num_intermediate_bases))
    return wrapper
