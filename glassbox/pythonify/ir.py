"""The pythonify IR: what the written file (or the in-memory callable) is made of.

Adapters turn what was recorded during compilation into these nodes; the pipeline assembles them
into a :class:`Program`; a visitor (``gen_python`` or ``gen_binary``) renders the program. Nodes
hold text (Python expressions, statements, graph code) and, for ``gen_binary``, the live objects
compilation produced. Nothing in a node refers to an object by its process-local id.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class ArgumentExtraction:
    """How ``run(target, *args, **kwargs)`` becomes the entry frame's locals and globals."""

    frame_name: str  # the function Dynamo compiled first (e.g. "forward")
    params: list[str]  # its parameters, as in a ``def`` (defaults rendered as literals)
    call_target: str  # "target" (a function) or "target" as self (a module's forward)
    globals_path: str  # Python expression over ``target`` giving the frame's globals
    cells_path: str  # Python expression over ``target`` giving that function's closure cells
    eager_call: str  # the expression that runs the original code eagerly
    input_paths: dict[str, list[str]] = field(default_factory=dict)  # region -> graph input paths


@dataclass
class Condition:
    code: str | None  # a Python boolean expression over L and G; None: a note only
    note: str
    binds: list[tuple[str, str]] = field(default_factory=list)  # locals read first: name, expr
    original: str | None = None  # the condition as Dynamo's guard reads it (its failure message)


@dataclass
class GuardCheck:
    name: str
    frame_name: str
    compile_id: str
    conditions: list[Condition]


@dataclass
class KernelLoad:
    """One compiled graph: FX code as Python (aot_eager) or Inductor's output code."""

    name: str
    kind: str  # "fx" or "inductor"
    source: str  # "fx": a ``def name(...)``; "inductor": the output-code module's text
    globals: dict[str, str] = field(default_factory=dict)  # name -> import statement (fx)
    constants: dict[str, object] = field(default_factory=dict)  # name -> tensor (fx get_attr)
    live: object = None  # the callable compilation produced (gen_binary): takes *args


@dataclass
class OutputAlias:
    """A user output AOTAutograd's runtime regenerates as an alias (``gen_alias_from_base``).

    ``kind`` is the ``OutputType`` name. The base is ``inputs[base_index]`` (``is_input``,
    ``alias_of_input``) or the forward's return ``base_index`` counted after the mutated inputs
    (user outputs, then intermediate bases). ``views``: the view calls replayed on the base, in
    order, each a Python call with ``{}`` for its tensor (AOT's ViewMeta replay); None: the
    compiled output's own view of its ``_base``, else ``as_strided`` (AOT's fallback).
    """

    index: int  # the user output's position
    kind: str
    base_index: int
    base_is_alias: bool = False  # the base is an aliased user output (unwrapped in training)
    requires_grad: bool = False
    views: list[str] | None = None


@dataclass
class AOTAutogradWrapper:
    """AOTAutograd's runtime for one region: which outputs are what, what is saved."""

    name: str
    forward: KernelLoad  # the inference graph when ``inference``
    backward: KernelLoad | None
    inference: bool
    num_inputs: int
    mutated_inputs: list[int]  # input indices the wrapper copies new values into
    num_outputs: int
    unsafe_view_outputs: list[int]
    saved_tensors: tuple[int, int] = (0, 0)  # [start, stop) of fw outputs saved (vc checked)
    saved_tensors_no_vc: tuple[int, int] = (0, 0)
    saved_symints: tuple[int, int] = (0, 0)
    non_differentiable: list[int] = field(default_factory=list)  # fw return positions
    grad_positions: list[int] = field(default_factory=list)  # grads the backward graph takes
    aliases: list[OutputAlias] = field(default_factory=list)  # outputs regenerated as aliases
    num_intermediate_bases: int = 0  # forward returns after the user outputs, bases of aliases


@dataclass
class CUDAGraphSetup:
    """``mode="reduce-overhead"`` on CUDA: capture the region once, replay it after."""

    name: str
    region: str
    static_inputs: list[int]  # inputs that keep their address (parameters, buffers)
    warmup: int = 1


@dataclass
class CompiledRegion:
    """What one ``__compiled_fn_*`` of Dynamo's transformed code becomes."""

    name: str
    dynamo_name: str
    compile_id: str
    input_sources: list[str]
    wrapper: AOTAutogradWrapper
    cudagraph: CUDAGraphSetup | None = None
    dynamo_graph: str = ""


@dataclass
class Binding:
    """A name the decompiled glue reads (a global or a free variable) and what it is bound to."""

    name: str
    source: str  # a Python expression over G (the frame's globals) and cells (its closure)
    note: str = ""


@dataclass
class CallableInvocation:
    """The glue of one cache entry: the transformed code, decompiled, with its names bound."""

    name: str
    compile_id: str
    bindings: list[Binding]
    function: str  # the decompiled ``def`` (named as the frame)
    function_name: str
    origin: str = "decompiled"
    not_shown: str | None = None  # None: shown to do what Dynamo's code does; else why not


@dataclass
class MultiRegionDispatch:
    """One frame: its variants (guard, glue) in the order Dynamo tries them."""

    name: str
    frame_name: str
    params: list[str]
    variants: list[tuple[GuardCheck, CallableInvocation]]
    entry: bool
    code_location: str = ""
    free: list[str] = field(default_factory=list)  # the frame's free variables, read as L[name]


@dataclass
class ReturnResult:
    """``run`` and the exec() convention: inputs ``args``/``kwargs``, result ``y``."""

    entry: str
    args_name: str = "args"
    kwargs_name: str = "kwargs"
    result_name: str = "y"


@dataclass
class Program:
    title: str
    backend: str
    arguments: ArgumentExtraction
    guards: list[GuardCheck]
    kernels: list[KernelLoad]
    regions: list[CompiledRegion]
    glue: list[CallableInvocation]
    dispatchers: list[MultiRegionDispatch]
    result: ReturnResult
    on_guard_failure: str = "error"  # or "eager"
    guard_helpers: set[str] = field(default_factory=set)  # from glassbox.capture.guard_runtime
