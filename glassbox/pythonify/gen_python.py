"""gen_python: the IR Program as one Python file, sections in the order the file runs them.

The file needs torch (and, for Inductor, torch._inductor's runtime to load the generated kernels);
it never calls torch.compile or Dynamo. Guard helpers (``resolve``, ``module``...) come from
``glassbox.capture.guard_runtime`` (their source is written into the file); ``global_value`` is
the file's own.
"""

from __future__ import annotations

from glassbox.pythonify import ir

RULE = "# " + "=" * 98


def _section(number: int, title: str, text: str) -> str:
    return f"\n\n{RULE}\n# {number}. {title}\n{RULE}\n\n{text.rstrip()}\n"


def _indent(lines, prefix="    ") -> str:
    return "".join(prefix + line + "\n" if line else "\n" for line in lines)


def _comment(text: str) -> str:
    return " ".join(str(text).split())


PRELUDE = '''\
import builtins
import functools
import importlib
import math
import operator
import sys
import types

import torch
import torch.utils._device  # noqa: F401 - read by the guards (current default device)
{imports}

class GuardError(Exception):
    """No variant's guards hold for these inputs; names the first failing condition of each.

    args: (frame name, [(compile id, failing condition), ...], whether it is the entry frame).
    """

    def __str__(self):
        frame, failures, _ = self.args
        tried = "; ".join(f"variant {{cid}}: {{condition}}" for cid, condition in failures)
        return f"no compiled variant of {{frame}} accepts these inputs ({{tried}})"


# What the file does when the entry frame's guards all fail: "error" raises GuardError, "eager"
# runs target(*args, **kwargs) uncompiled. (A resume frame always raises: code already ran.)
ON_GUARD_FAILURE = "error"


def global_value(G, name):
    """A global the compiled code reads: the frame's module globals, then builtins."""
    try:
        return G[name]
    except KeyError:
        return getattr(builtins, name)
'''

INDUCTOR_LOADER = '''
def load_inductor_module(name, source):
    """Inductor's output code as a module (its C++ kernels compile once, then come from the \
cache)."""
    module = types.ModuleType(name)
    module.__file__ = name + ".py"
    exec(compile(source, "<" + name + ">", "exec"), module.__dict__)
    return module
'''


def _constant_source(value) -> str:
    import torch

    data = value.contiguous().cpu()
    shape = tuple(data.shape)
    device = f".to({str(value.device)!r})" if value.device.type != "cpu" else ""
    if not data.numel():  # frombuffer refuses an empty buffer
        return f"torch.empty({shape}, dtype={data.dtype}){device}"
    raw = data.reshape(-1).view(torch.uint8).numpy().tobytes().hex()  # (0-d: one element)
    return (
        f"torch.frombuffer(bytearray.fromhex({raw!r}), dtype=torch.uint8)"
        f".view({data.dtype}).reshape({shape}).clone()" + device
    )


def _raw_string(text: str) -> str:
    if '"""' not in text and not text.endswith("\\"):
        return 'r"""' + text + '"""'
    return repr(text)


# -- sections ------------------------------------------------------------------------------
def arguments_section(program: ir.Program) -> str:
    a = program.arguments
    out = [
        f"# run(target, *args, **kwargs) enters {a.frame_name}({', '.join(a.params)}).",
        f"# Its globals, by path: {a.globals_path}. Every value the compiled code reads is read",
        "# from those locals and globals by the paths below (Dynamo's sources), never by id.",
        "",
        "",
        "def frame_globals(target):",
        f"    return {a.globals_path}",
        "",
        "",
        "def frame_cells(target):",
        f"    return {a.cells_path}",
        "",
    ]
    for region, paths in a.input_paths.items():
        out.append("")
        out.append(f"# Inputs of {region}, in order:")
        out.append(f"INPUTS_{region} = (")
        out += [f"    {p!r}," for p in paths]
        out.append(")")
    return "\n".join(out)


def guard_source(check: ir.GuardCheck) -> str:
    lines = [
        f"def {check.name}(L, G):",
        f'    """Compile {check.compile_id} of {check.frame_name}: '
        "None when every condition holds,",
        '    else the first failing condition."""',
        "    try:",
    ]
    for condition in check.conditions:
        note = _comment(condition.note)
        if condition.code is None:
            lines.append(f"        # not checked: {note}")
            continue
        lines += [f"        {name} = {value}" for name, value in condition.binds]
        lines.append(f"        if not ({condition.code}):" + (f"  # {note}" if note else "")[:4000])
        lines.append(f"            return {(condition.original or condition.code)!r}")
    lines += [
        "        pass",
        "    except Exception as error:  # a value a guard reads is missing or of another kind",
        "        return 'guard raised ' + repr(error)",
        "    return None",
    ]
    return "\n".join(lines)


def kernel_source(kernel: ir.KernelLoad) -> str:
    if kernel.kind == "fx":
        out = [f"{name} = {_constant_source(value)}" for name, value in kernel.constants.items()]
        return "\n".join(out + [kernel.source.rstrip()])
    return (
        f"# Inductor's output code for {kernel.name}, loaded as a module; call(args) runs it.\n"
        f"{kernel.name}_SOURCE = {_raw_string(kernel.source)}\n"
        f"{kernel.name}_module = load_inductor_module({kernel.name!r}, {kernel.name}_SOURCE)\n\n\n"
        f"def {kernel.name}(*args):\n"
        f"    return {kernel.name}_module.call(list(args))"
    )


def _alias_expression(alias: ir.OutputAlias, training: bool) -> str:
    """AOT's regeneration of one aliased output from ``inputs`` and ``fw`` (the forward's
    returns after the mutated inputs: user outputs, then intermediate bases)."""
    unwrap = ".alias" if training else ""  # training: the Function returned a TensorAlias
    if alias.kind in ("is_input", "alias_of_input"):
        base = f"inputs[{alias.base_index}]"
    else:
        base = f"fw[{alias.base_index}]" + (unwrap if alias.base_is_alias else "")
    if alias.kind == "is_input":
        return base
    if alias.views is None:
        return f"alias_from_base({base}, fw[{alias.index}]{unwrap}, {alias.requires_grad!r})"
    view = base
    for call in alias.views:
        view = call.format(view)
    return f"alias_grad({base}, {view}, {alias.requires_grad!r})"


def _returns(w: ir.AOTAutogradWrapper, indent: str) -> list[str]:
    """The user outputs from ``outs``, aliased ones regenerated as AOTAutograd's runtime does."""
    m, o = len(w.mutated_inputs), w.num_outputs
    if not w.aliases:
        return [f"{indent}return list(outs[{m}:{m + o}])"]
    lines = [f"{indent}fw = outs[{m}:]", f"{indent}ret = list(fw[:{o}])"]
    for alias in w.aliases:
        note = f"  # {alias.kind}"
        expression = _alias_expression(alias, not w.inference)
        lines.append(f"{indent}ret[{alias.index}] = {expression}{note}")
    return lines + [f"{indent}return ret"]


def _inference_source(region: ir.CompiledRegion, doc: str, mutations: list[str]) -> str:
    w = region.wrapper
    m = len(w.mutated_inputs)
    lines = [
        f"def {region.name}(*inputs):",
        f'    """{doc}: the inference graph, then input mutations."""',
        f"    outs = {w.forward.name}(*inputs)",
        *mutations,
    ]
    for idx in w.unsafe_view_outputs:
        lines.append(
            f"    outs[{m + idx}] = "
            f"torch.ops.aten._unsafe_view(outs[{m + idx}], outs[{m + idx}].shape)"
        )
    return "\n".join(lines + _returns(w, "    "))


def _function_forward(w: ir.AOTAutogradWrapper) -> list[str]:
    """``forward`` of the autograd.Function: the graph, saved values, aliases as TensorAlias."""
    m, o = len(w.mutated_inputs), w.num_outputs
    a, b = w.saved_tensors
    c, d = w.saved_tensors_no_vc
    e, f = w.saved_symints
    lines = [
        "    @staticmethod",
        "    def forward(ctx, *inputs):",
        f"        outs = list({w.forward.name}(*inputs))",
    ]
    for idx in w.unsafe_view_outputs:
        k = m + idx
        lines.append(f"        outs[{k}] = torch.ops.aten._unsafe_view(outs[{k}], outs[{k}].shape)")
    lines += [
        "        ctx.save_for_backward("
        f"*[t.detach() if t._is_view() else t for t in outs[{a}:{b}]])",
        f"        ctx.saved_no_vc = [t.detach() if t._is_view() else t for t in outs[{c}:{d}]]",
        f"        ctx.symints = outs[{e}:{f}]",
    ]
    for alias in w.aliases:
        lines.append(f"        outs[{m + alias.index}] = TensorAlias(outs[{m + alias.index}])")
    if w.non_differentiable:
        picks = ", ".join(f"outs[{i}]" for i in w.non_differentiable)
        lines.append(
            "        ctx.mark_non_differentiable("
            f"*[t for t in ({picks},) if isinstance(t, torch.Tensor)])"
        )
    return lines + [
        "        ctx._materialize_non_diff_grads = False",
        f"        return tuple(outs[:{m + o + w.num_intermediate_bases}])",
    ]


def _training_source(region: ir.CompiledRegion, doc: str, mutations: list[str]) -> str:
    w = region.wrapper
    cls = f"{region.name}_Function"
    lines = [
        f"class {cls}(torch.autograd.Function):",
        f'    """{doc}: AOTAutograd forward and backward graphs."""',
        "",
        *_function_forward(w),
        "",
        "    @staticmethod",
        "    def backward(ctx, *grads):",
        f"        tangents = [contiguous(grads[i]) for i in {tuple(w.grad_positions)!r}]",
        f"        return tuple({w.backward.name}("
        "*ctx.symints, *ctx.saved_tensors, *ctx.saved_no_vc, *tangents))",
        "",
        "",
        f"def {region.name}(*inputs):",
        f'    """{doc}: forward through {cls}, then input mutations."""',
    ]
    if w.aliases:  # AOT applies the Function with view replay on (autograd views replay views)
        lines += [
            "    replay = torch._C._is_view_replay_enabled()",
            "    torch._C._set_view_replay_enabled(True)",
            "    try:",
            f"        outs = {cls}.apply(*inputs)",
            "    finally:",
            "        torch._C._set_view_replay_enabled(replay)",
        ]
    else:
        lines.append(f"    outs = {cls}.apply(*inputs)")
    return "\n".join(lines + mutations + _returns(w, "    "))


def wrapper_source(region: ir.CompiledRegion) -> str:
    w = region.wrapper
    doc = f"Dynamo graph {region.dynamo_name} (compile {region.compile_id})"
    mutations = [f"    inputs[{idx}].copy_(outs[{i}])" for i, idx in enumerate(w.mutated_inputs)]
    if w.inference:
        return _inference_source(region, doc, mutations)
    return _training_source(region, doc, mutations)


ALIAS_HELPERS = '''

class TensorAlias:
    """An aliased output the autograd.Function returns wrapped (AOTAutograd's TensorAlias):
    autograd does not track it; the wrapper regenerates it from its base afterwards."""

    def __init__(self, alias):
        self.alias = alias


def alias_grad(base, out, requires_grad):
    """gen_alias_from_base's last step: the alias requires grad as the traced output did."""
    if base.requires_grad and not requires_grad:
        return out.detach()
    if not base.requires_grad and requires_grad:
        out.requires_grad_(True)
    return out


def alias_from_base(base, out, requires_grad):
    """gen_alias_from_base without a recorded view replay: ``out``'s own view of its ``_base``
    replayed on ``base``, else ``base.as_strided`` with ``out``'s size, stride and offset."""
    if out._base is not None:
        b = out._base
        same = base.size() == b.size() and base.stride() == b.stride()
        if base is not b and not (same and base.storage_offset() == b.storage_offset()):
            reshaped = base.as_strided(b.size(), b.stride(), b.storage_offset())
        else:
            reshaped = base
        view = out._view_func(reshaped)
        if view is not None and view.shape == out.shape:
            return alias_grad(base, view, requires_grad)
    size, stride, offset = out.size(), out.stride(), out.storage_offset()
    if base.is_complex() and not out.is_complex():
        view = torch.view_as_real(base).as_strided(size, stride, offset)
    elif not base.is_complex() and out.is_complex():
        view = torch.view_as_complex(base).as_strided(size, stride, offset)
    else:
        view = base.as_strided(size, stride, offset)
    view = alias_grad(base, view, requires_grad)
    if view.dtype != out.dtype:
        view = view.view(out.dtype)
    return view
'''


# What ``DynamoUtils`` in GLUE_HELPERS defines (the pipeline refuses glue that calls anything else).
DYNAMO_UTILS_FUNCTIONS = frozenset({
    "record_pregraph_bytecode_enter", "record_pregraph_bytecode_exit",
    "object_setattr_ignore_descriptor", "object_delattr_ignore_descriptor",
    "call_size", "call_stride", "call_storage_offset",
})  # fmt: skip
GLUE_HELPERS = '''

def closure_values(names, cells):
    """A frame's free variables by name, from its closure cells (Dynamo's guards read L[name])."""
    values = {}
    for name, cell in zip(names, cells):
        try:
            values[name] = cell.cell_contents
        except ValueError:  # an empty cell
            pass
    return values


def routed(function, dispatcher, code):
    """``function``, a frame Dynamo compiled on its own, called from code that runs as plain
    Python: its calls go through the frame's dispatcher (Dynamo's frame hook does the same).
    ``code`` (name, first line, file name) is the code recorded; another function fails as a
    guard does."""

    def call(*args, **kwargs):
        try:
            found = getattr(function, "__code__", None)
            if found is None or (found.co_name, found.co_firstlineno) != code[:2] or not (
                found.co_filename.endswith(code[2])
            ):
                raise GuardError(code[0], [("routed", f"the function called is not {code}")], True)
            return dispatcher(function.__globals__, function.__closure__ or (), *args, **kwargs)
        except GuardError as error:
            if ON_GUARD_FAILURE == "eager" and error.args[2]:
                return function(*args, **kwargs)
            raise

    return call


class DynamoUtils:
    """The torch._dynamo.utils functions Dynamo's transformed code calls, without Dynamo."""

    @staticmethod
    def record_pregraph_bytecode_enter():
        return None  # a profiler marker in Dynamo; nothing to mark here

    @staticmethod
    def record_pregraph_bytecode_exit(marker):
        return None

    @staticmethod
    def object_setattr_ignore_descriptor(obj, name, value):
        object.__getattribute__(obj, "__dict__")[name] = value

    @staticmethod
    def object_delattr_ignore_descriptor(obj, name):
        del object.__getattribute__(obj, "__dict__")[name]

    @staticmethod
    def call_size(x, i):
        return x.size(i)

    @staticmethod
    def call_stride(x, i):
        return x.stride(i)

    @staticmethod
    def call_storage_offset(x):
        return x.storage_offset()
'''


CONTIGUOUS = '''
def contiguous(grad):
    """AOTAutograd traced the backward with contiguous tangents; give it contiguous ones."""
    if isinstance(grad, torch.Tensor) and not grad.is_contiguous():
        return grad.contiguous()
    return grad
'''


def cudagraph_source(setup: ir.CUDAGraphSetup) -> str:
    return f'''\
class {setup.name}_State:
    """mode="reduce-overhead": capture {setup.region} into a CUDA graph once, then replay."""

    graph = None
    static_inputs = None
    static_outputs = None


def {setup.name}(*inputs):
    state = {setup.name}_State
    if state.graph is None:
        state.static_inputs = [x if i in {tuple(setup.static_inputs)!r} \
or not isinstance(x, torch.Tensor)
                               else x.clone() for i, x in enumerate(inputs)]
        stream = torch.cuda.Stream()
        stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(stream):
            for _ in range({setup.warmup}):
                {setup.region}_eager(*state.static_inputs)
        torch.cuda.current_stream().wait_stream(stream)
        state.graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(state.graph):
            state.static_outputs = {setup.region}_eager(*state.static_inputs)
    for i, (static, x) in enumerate(zip(state.static_inputs, inputs)):
        if i not in {tuple(setup.static_inputs)!r} and isinstance(x, torch.Tensor):
            static.copy_(x)
    state.graph.replay()
    return [o.clone() for o in state.static_outputs]'''


def glue_source(glue: ir.CallableInvocation) -> str:
    """A function of (G, cells) that binds the names the decompiled transformed code reads."""
    what = f"Compile {glue.compile_id}: Dynamo's transformed code"
    if glue.compile_id == "eager":
        what = "Not compiled by Dynamo: the resume function"
    check = "shown to do the same operations in the same order (glassbox.verify)"
    if glue.not_shown is not None:
        why = _comment(glue.not_shown)[:300].replace("\\", "/").replace('"', "'")
        check = "NOT shown to do the same: " + why
    lines = [
        f"def {glue.name}(G, cells):",
        f'    """{what} as Python ({glue.origin} by glassbox),',
        "    with the globals and free variables it reads bound first.",
        "",
        f"    Against the bytecode: {check}",
        '    """',
    ]
    for binding in glue.bindings:
        note = f"  # {binding.note}" if binding.note else ""
        lines.append(f"    {binding.name} = {binding.source}{note}")
    lines.append("")
    lines += ["    " + line if line else "" for line in glue.function.splitlines()]
    lines += ["", f"    return {glue.function_name}"]
    return "\n".join(lines)


def _plain(param: str) -> str:
    return param.split("=", 1)[0]


def dispatch_source(dispatch: ir.MultiRegionDispatch) -> str:
    params = [p for p in dispatch.params if p not in ("*", "/")]
    names = [_plain(p).lstrip("*") for p in params]
    passed, keyword = [], False
    for p in dispatch.params:
        name = _plain(p)
        if p == "/":
            continue
        if p == "*":
            keyword = True
        elif name.startswith("**"):
            passed.append(name)
        elif name.startswith("*"):
            passed.append(name)
            keyword = True
        else:
            passed.append(f"{name}={name}" if keyword else name)
    call_args = ", ".join(passed)
    where = f" ({dispatch.code_location})" if dispatch.code_location else ""
    lines = [
        f"def {dispatch.name}(G, cells, {', '.join(dispatch.params)}):",
        f'    """Frame {dispatch.frame_name}{where}: the first variant whose guards hold.',
        "",
        "    G: the frame's globals; cells: its closure (the free variables, by position).",
        '    """',
        "    L = {" + ", ".join(f"{n!r}: {n}" for n in names) + "}",
    ]
    if dispatch.free:
        lines.append(f"    L.update(closure_values({tuple(dispatch.free)!r}, cells))")
    lines.append("    failures = []")
    for check, glue in dispatch.variants:
        lines += [
            f"    failed = {check.name}(L, G)",
            "    if failed is None:",
            f"        return {glue.name}(G, cells)({call_args})",
            f"    failures.append(({check.compile_id!r}, failed))",
        ]
    lines.append(f"    raise GuardError({dispatch.frame_name!r}, failures, {dispatch.entry!r})")
    return "\n".join(lines)


def result_source(program: ir.Program) -> str:
    r = program.result
    entry_args = (
        "target, *args, **kwargs"
        if program.arguments.globals_path.startswith("type(target)")
        else "*args, **kwargs"
    )
    return f'''\
def run(target, *args, **kwargs):
    """What torch.compile(target)(*args, **kwargs) computes, without torch.compile."""
    try:
        return {r.entry}(frame_globals(target), frame_cells(target), {entry_args})
    except GuardError as error:
        if ON_GUARD_FAILURE == "eager" and error.args[2]:
            return {program.arguments.eager_call}
        raise


# exec() convention: with `target` (and optionally `{r.args_name}`, `{r.kwargs_name}`) in the
# namespace, running this file leaves the result in `{r.result_name}`.
if "target" in globals():
    {r.result_name} = run(target, *globals().get({r.args_name!r}, ()), \
**globals().get({r.kwargs_name!r}, {{}}))'''


def header(program: ir.Program) -> str:
    return (
        f'"""{program.title}\n\n'
        "Written by glassbox.pythonify: "
        "everything torch.compile does at run time for this program,\n"
        "as explicit Python. Use: run(target, *args, **kwargs), where target is the module or\n"
        "function that was compiled, rebuilt in this process; or exec() this file with `target`,\n"
        "`args` (a tuple) and `kwargs` (a dict) in the namespace: the result is left in `y`.\n"
        '"""\n'
    )


def imports(program: ir.Program, kernels_as_source: bool = True) -> str:
    lines = []
    if kernels_as_source:
        seen: dict[str, str] = {}
        for kernel in program.kernels:
            for name, line in kernel.globals.items():
                if name in ("torch", "builtins", "operator", "types"):
                    continue
                if seen.get(name, line) != line:
                    raise ValueError(f"graphs disagree on global {name!r}")
                seen[name] = line
        lines += sorted(set(seen.values()))
    return "\n".join(lines)


def guard_helpers(program: ir.Program) -> str:
    """The guard helpers the conditions call, as defined in glassbox.capture.guard_runtime.

    Their source is written into the file (not imported) so that the file does not import
    glassbox, whose package import registers a Dynamo backend when torch is loaded.
    """
    import inspect

    from glassbox.capture import guard_runtime

    names = sorted(program.guard_helpers | {"module"})
    return "\n\n".join(inspect.getsource(getattr(guard_runtime, n)).rstrip() for n in names)


def render(program: ir.Program, kernels_as_source: bool = True) -> str:
    parts = [header(program), PRELUDE.format(imports=imports(program, kernels_as_source))]
    parts.append(
        "\n\n# Guard helpers (from glassbox.capture.guard_runtime).\n"
        + guard_helpers(program)
        + "\n"
    )
    if kernels_as_source and any(k.kind == "inductor" for k in program.kernels):
        parts.append(INDUCTOR_LOADER)
    parts.append(CONTIGUOUS)
    if any(region.wrapper.aliases for region in program.regions):
        parts.append(ALIAS_HELPERS)
    parts.append(GLUE_HELPERS)
    parts.append(_section(1, "Argument extraction", arguments_section(program)))
    parts.append(
        _section(2, "Guard checks", "\n\n\n".join(guard_source(g) for g in program.guards))
    )
    if kernels_as_source:
        kernels = "\n\n\n".join(kernel_source(k) for k in program.kernels)
    else:
        kernels = "# (gen_binary: the compiled graphs are the live callables in the namespace)"
    backend = {"aot_eager": "FX graphs as Python", "inductor": "Inductor output code"}.get(
        program.backend, program.backend
    )
    parts.append(_section(3, f"Compiled graphs ({backend})", kernels))
    wrappers = []
    for region in program.regions:
        text = wrapper_source(region)
        if region.cudagraph is not None:
            text = text.replace(f"def {region.name}(", f"def {region.name}_eager(", 1)
            text += "\n\n\n" + cudagraph_source(region.cudagraph)
            text += f"\n\n\n{region.name} = {region.cudagraph.name}"
        wrappers.append(text)
    parts.append(_section(4, "Autograd wrappers (AOTAutograd's runtime)", "\n\n\n".join(wrappers)))
    parts.append(
        _section(5, "Graph-break glue", "\n\n\n".join(glue_source(g) for g in program.glue))
    )
    parts.append(
        _section(
            6,
            "Variants and dispatchers",
            "\n\n\n".join(dispatch_source(d) for d in program.dispatchers),
        )
    )
    parts.append(_section(7, "Invocation and result", result_source(program)))
    return "".join(parts)
