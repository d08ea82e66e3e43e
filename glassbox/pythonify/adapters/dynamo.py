"""Recording a torch.compile run: the frames Dynamo transformed, their graphs, their guards.

:class:`Recorder` is a Dynamo backend (it wraps ``aot_eager`` or ``inductor``, compiling exactly as
they do) plus Dynamo's bytecode hook. While the example runs it keeps, per compiled graph, the
graph inputs' sources (paths such as ``L['self']._modules['fc']._parameters['weight']``), the AOT
forward/backward/inference graphs with AOTAutograd's metadata, and Inductor's output code; and per
frame the transformed code objects. Afterwards :meth:`Recorder.frames` reads Dynamo's cache
entries (guards, transformed code, in the order Dynamo tries them).
"""

from __future__ import annotations

import re
import sys
import types
from dataclasses import dataclass, field

from glassbox.capture.records import RESUME_PREFIX

COMPILED_FN = re.compile(r"^__compiled_fn_(\d+)")
# Recording compiles without Inductor's caches; on the corpus, torch 2.13's Inductor compiling
# afresh under python -O gave NaN or wrong outputs (codegen, t5, wavlm, siglip) or raised
# (IndexError in select_tiling) where the same compile without -O matches eager.
INDUCTOR_UNDER_O = (
    "backend='inductor' under python -O: Inductor compiling without its cache under -O gives "
    "wrong outputs or fails on real models (torch 2.13); pythonify without -O, or with "
    "backend='aot_eager'"
)


@dataclass
class GraphRecord:
    """One graph AOTAutograd handed to the backend compiler."""

    kind: str  # "forward", "backward" or "inference"
    gm: object  # the torch.fx.GraphModule
    inductor_source: str | None = None  # Inductor's output code (a module with call(args))
    compiled: object = None  # the boxed callable the backend returned (used by gen_binary)


@dataclass
class RegionRecord:
    """One Dynamo graph: what ``__compiled_fn_*`` computes."""

    compile_id: str
    number: int  # the order of backend calls in this session
    input_sources: list[str]
    dynamo_code: str
    fw_metadata: object = None
    forward: GraphRecord | None = None
    backward: GraphRecord | None = None
    inference: GraphRecord | None = None
    backend_output: object = None  # what the backend returned to Dynamo


@dataclass
class EntryRecord:
    """A cache entry: guards + transformed code, for one compile of one frame."""

    compile_id: str
    guard_manager: object
    transformed: types.CodeType


@dataclass
class FrameRecord:
    original: types.CodeType
    globals: dict
    entries: list[EntryRecord] = field(default_factory=list)

    @property
    def is_resume(self) -> bool:
        return self.original.co_name.startswith(RESUME_PREFIX)


class _RegionCallable:
    """What the recorder returns to Dynamo: the backend's callable, tagged with its record."""

    def __init__(self, compiled, record: RegionRecord) -> None:
        self.compiled = compiled
        self.glassbox_region = record

    def __call__(self, *args):
        return self.compiled(*args)


def _current_compile_id() -> str:
    from torch._guards import CompileContext

    cid = CompileContext.current_compile_id()
    return f"{cid.frame_id}/{cid.frame_compile_id}" if cid else "?"


def _boxed(gm):
    from torch._functorch._aot_autograd.utils import make_boxed_func

    return make_boxed_func(gm.forward)


class Recorder:
    """A Dynamo backend that records while compiling exactly as ``backend`` would."""

    SUPPORTED = ("aot_eager", "inductor")

    def __init__(self, backend: str = "inductor", mode: str | None = None, options=None) -> None:
        if backend not in self.SUPPORTED:
            raise ValueError(f"pythonify supports backends {self.SUPPORTED}, not {backend!r}")
        if backend == "inductor" and sys.flags.optimize:
            from glassbox.pythonify.adapters.inputs import PythonifyError

            raise PythonifyError(INDUCTOR_UNDER_O)
        self.backend = backend
        self.mode = mode
        self.options = options
        self.regions: list[RegionRecord] = []
        self.transformed: dict[types.CodeType, dict] = {}  # original code -> its globals
        self.compile_ids: set[str] = set()  # compiles made while recording
        self._hook = None

    # -- Dynamo's bytecode hook ----------------------------------------------------------
    def __enter__(self):
        import torch._dynamo.convert_frame as convert_frame

        self._hook = convert_frame.register_bytecode_hook(self._on_bytecode)
        return self

    def __exit__(self, *exc) -> None:
        if self._hook is not None:
            self._hook.remove()
            self._hook = None

    def _on_bytecode(self, original: types.CodeType, transformed: types.CodeType):
        self.transformed.setdefault(original, _globals_of_frame_being_compiled(original))
        self.compile_ids.add(_current_compile_id())
        return None

    # -- the backend ---------------------------------------------------------------------
    def __call__(self, gm, example_inputs):
        import torch._functorch.config as functorch_config

        # The backward graph is compiled with the forward (not at the first backward) so that
        # the file can be written after a forward-only example call.
        # Caches are off while recording: a cache hit would skip the compilers that record.
        patches = {"force_non_lazy_backward_lowering": True, "enable_autograd_cache": False}
        with functorch_config.patch(**patches):
            if self.backend != "inductor":
                return self._compile(gm, example_inputs)
            import torch._inductor.config as inductor_config

            with inductor_config.patch(fx_graph_cache=False):
                return self._compile(gm, example_inputs)

    def _compile(self, gm, example_inputs):
        record = RegionRecord(
            compile_id=_current_compile_id(),
            number=len(self.regions),
            input_sources=_input_sources(gm),
            dynamo_code=gm.code,
        )
        self.regions.append(record)
        if self.backend == "aot_eager":
            compiled = self._aot_eager(gm, example_inputs, record)
        else:
            compiled = self._inductor(gm, example_inputs, record)
        record.backend_output = compiled
        return _RegionCallable(compiled, record)

    def _graph_compiler(self, kind: str, record: RegionRecord):
        def compiler(gm, example_inputs):
            graph = GraphRecord(kind, gm)
            _attach(record, graph)
            graph.compiled = _boxed(gm)
            return graph.compiled

        return compiler

    def _aot_eager(self, gm, example_inputs, record):
        from functorch.compile import min_cut_rematerialization_partition
        from torch._dynamo.backends.common import aot_autograd

        # As torch._dynamo.backends.debugging.aot_eager, with recording compilers.
        return aot_autograd(
            fw_compiler=self._graph_compiler("forward", record),
            bw_compiler=self._graph_compiler("backward", record),
            inference_compiler=self._graph_compiler("inference", record),
            partition_fn=min_cut_rematerialization_partition,
            keep_inference_input_mutations=True,
        )(gm, example_inputs)

    def _inductor(self, gm, example_inputs, record):
        from torch._inductor.compile_fx import compile_fx, compile_fx_inner

        def inner(graph_gm, inputs, *args, **kwargs):
            out = compile_fx_inner(graph_gm, inputs, *args, **kwargs)
            if kwargs.get("is_backward"):
                kind = "backward"
            elif kwargs.get("is_inference"):
                kind = "inference"
            else:
                kind = "forward"
            graph = GraphRecord(kind, graph_gm, getattr(out, "source_code", None), out)
            _attach(record, graph)
            return out

        patches = dict(self.options or {})
        if self.mode:
            import torch._inductor

            patches.update(torch._inductor.list_mode_options(self.mode))
        return compile_fx(gm, example_inputs, inner_compile=inner, config_patches=patches or None)

    # -- afterwards ----------------------------------------------------------------------
    def frames(self) -> dict[types.CodeType, FrameRecord]:
        """Every frame Dynamo transformed, with its cache entries in the order Dynamo tries them."""
        from torch._C._dynamo.eval_frame import _debug_get_cache_entry_list

        out = {}
        for original, frame_globals in self.transformed.items():
            frame = FrameRecord(original, frame_globals)
            for entry in _debug_get_cache_entry_list(original):
                if str(entry.compile_id) not in self.compile_ids:
                    continue  # an entry another torch.compile made
                frame.entries.append(
                    EntryRecord(str(entry.compile_id), entry.guard_manager, entry.code)
                )
            out[original] = frame
        return out


def _attach(record: RegionRecord, graph: GraphRecord) -> None:
    from torch._guards import TracingContext

    setattr(record, graph.kind, graph)
    if graph.kind in ("forward", "inference"):
        context = TracingContext.try_get()
        if context is not None and context.fw_metadata is not None:
            record.fw_metadata = context.fw_metadata


def _input_sources(gm) -> list[str]:
    sources = []
    for node in gm.graph.nodes:
        if node.op != "placeholder":
            continue
        grapharg = node.meta.get("grapharg")
        source = getattr(grapharg, "source", None)
        name = getattr(source, "name", None)
        if callable(name):
            name = name()
        sources.append(name if isinstance(name, str) else f"<{node.name}>")
    return sources


def _globals_of_frame_being_compiled(original: types.CodeType) -> dict:
    """The globals of the frame Dynamo is compiling (found on the compiler's own stack)."""
    frame = sys._getframe(1)
    while frame is not None:
        local = frame.f_locals
        for key in ("frame", "code"):
            candidate = local.get(key)
            if candidate is original and isinstance(local.get("globals"), dict):
                return local["globals"]
            if getattr(candidate, "f_code", None) is original:
                return candidate.f_globals
        frame = frame.f_back
    return {}


def region_of(value) -> RegionRecord | None:
    """The record behind a ``__compiled_fn_*`` global (Dynamo wraps what the backend returned)."""
    seen = 0
    while value is not None and seen < 8:
        record = getattr(value, "glassbox_region", None)
        if record is not None:
            return record
        value = getattr(value, "__wrapped__", None) or getattr(
            value, "_torchdynamo_orig_callable", None
        )
        seen += 1
    return None
