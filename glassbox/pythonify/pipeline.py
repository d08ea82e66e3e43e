"""RuntimeWrapperPipeline: the recorded compilation, through the adapters, into one IR Program.

The stages, in the order the written file runs them: argument extraction (inputs adapter), the
frames Dynamo compiled with their cache entries (guards adapter, glue adapter), the compiled
regions each ``__compiled_fn_*`` stands for (AOT adapter, CUDA graphs adapter), and the
dispatchers that try each frame's variants in Dynamo's order.
"""

from __future__ import annotations

import types

from glassbox.capture.records import safe_name
from glassbox.pythonify.adapters import glue as glue_adapter
from glassbox.pythonify.adapters.aot import aot_wrapper
from glassbox.pythonify.adapters.cudagraphs import cudagraph_setup
from glassbox.pythonify.adapters.dynamo import COMPILED_FN, Recorder, region_of
from glassbox.pythonify.adapters.guards import guard_check, helpers_used
from glassbox.pythonify.adapters.inputs import (
    PythonifyError,
    argument_extraction,
    entry_function,
    example_locals,
)
from glassbox.pythonify.ir import (
    CallableInvocation,
    CompiledRegion,
    MultiRegionDispatch,
    Program,
    ReturnResult,
)

# Dynamo's bytecode-timing calls (torch._dynamo.utils.record_pregraph_bytecode_*) are dropped:
# they only feed Dynamo's own metrics, and the file must not need Dynamo.
_DYNAMO_UTILS = "_DYNAMO_UTILS_"


class RuntimeWrapperPipeline:
    def __init__(self, recorder: Recorder, target, args, kwargs, mode=None) -> None:
        self.recorder = recorder
        self.target = target
        self.args = tuple(args)
        self.kwargs = dict(kwargs or {})
        self.mode = mode
        self.frames = recorder.frames()
        self.regions: dict[int, CompiledRegion] = {}
        self.dispatch_names: dict[types.CodeType, str] = {}
        self.guards, self.glue, self.dispatchers = [], [], []

    def build(self, title: str) -> Program:
        arguments = argument_extraction(self.target)
        function, _, _ = entry_function(self.target)
        entry_code = function.__code__
        if entry_code not in self.frames or not self.frames[entry_code].entries:
            raise PythonifyError(
                f"Dynamo compiled no frame for {function.__qualname__}: it ran the call eagerly "
                "(a skipped module such as nn.GRU/nn.LSTM, or code Dynamo skips), so there is "
                "nothing to pythonify; torch._dynamo.explain(target)(*args) says why"
            )
        for code in self.frames:
            self.dispatch_names[code] = f"frame_{safe_name(code.co_name)}"
        pending, done = [entry_code], set()
        while pending:
            code = pending.pop(0)
            if code in done:
                continue
            done.add(code)
            pending += self._frame(code, entry=code is entry_code)
        regions = sorted(self.regions.values(), key=lambda r: r.name)
        for region in regions:
            arguments.input_paths[region.name] = region.input_sources
        kernels = []
        for region in regions:
            kernels.append(region.wrapper.forward)
            if region.wrapper.backward is not None:
                kernels.append(region.wrapper.backward)
        return Program(
            title=title,
            backend=self.recorder.backend,
            arguments=arguments,
            guards=self.guards,
            kernels=kernels,
            regions=regions,
            glue=self.glue,
            dispatchers=self.dispatchers,
            result=ReturnResult(entry=self.dispatch_names[entry_code]),
            guard_helpers=helpers_used(self.guards),
        )

    # -- one frame -----------------------------------------------------------------------
    def _frame(self, code: types.CodeType, entry: bool) -> list[types.CodeType]:
        frame = self.frames[code]
        frame_name = self.dispatch_names[code]
        frame_locals = example_locals(self.target, self.args, self.kwargs) if entry else None
        variants, called = [], []
        for n, record in enumerate(frame.entries):
            ident = f"{safe_name(code.co_name)}_{n}"
            check = guard_check(f"guard_{ident}", code.co_name, record, frame_locals, frame.globals)
            glue, resumes = self._glue(f"glue_{ident}", record, frame)
            self.guards.append(check)
            self.glue.append(glue)
            variants.append((check, glue))
            called += resumes
        params = glue_adapter.signature_of(code)
        if entry:
            params = argument_extraction(self.target).params
        self.dispatchers.append(
            MultiRegionDispatch(
                name=frame_name,
                frame_name=code.co_name,
                params=params,
                variants=variants,
                entry=entry,
                code_location=f"{code.co_filename}:{code.co_firstlineno}",
            )
        )
        return called

    def _glue(self, name: str, record, frame) -> tuple[CallableInvocation, list]:
        resumes = []

        def rename(global_name: str) -> str:
            if COMPILED_FN.match(global_name):
                return self._region(global_name, frame, record).name
            if global_name.startswith("__resume_at_"):
                function = frame.globals.get(global_name)
                code = getattr(function, "__code__", None)
                if code not in self.frames or not self.frames[code].entries:
                    raise PythonifyError(
                        f"resume function {global_name} ran without being compiled by Dynamo"
                    )
                resumes.append(code)
                return self.dispatch_names[code]
            if global_name == "__import_torch_dot__dynamo_dot_utils":
                return _DYNAMO_UTILS
            if global_name.startswith("__import_"):
                return f"module({global_name[len('__import_') :].replace('_dot_', '.')!r})"
            if global_name.startswith("__builtins_dict__"):
                return "builtins.__dict__"
            return f"global_value(G, {global_name!r})"

        try:
            translated = glue_adapter.translate(
                record.transformed, name, rename, _DYNAMO_UTILS, set(self.dispatch_names.values())
            )
        except glue_adapter.GlueError as error:
            raise PythonifyError(
                f"cannot write the glue of {frame.original.co_name} (compile "
                f"{record.compile_id}): {error}"
            ) from None
        lines = translated.lines
        params = ["G", *translated.params]
        return CallableInvocation(name, record.compile_id, params, lines, "translated"), resumes

    def _region(self, global_name: str, frame, record) -> CompiledRegion:
        record_region = region_of(frame.globals.get(global_name))
        if record_region is None:
            raise PythonifyError(f"{global_name} was not compiled by the pythonify recorder")
        key = record_region.number
        if key in self.regions:
            return self.regions[key]
        number = COMPILED_FN.match(global_name)[1]
        name = f"compiled_fn_{number}"
        wrapper = aot_wrapper(name, record_region, self.recorder.backend)
        devices = _devices(self.args, self.kwargs)
        region = CompiledRegion(
            name=name,
            dynamo_name=global_name,
            compile_id=record_region.compile_id,
            input_sources=record_region.input_sources,
            wrapper=wrapper,
            cudagraph=cudagraph_setup(name, self.mode, record_region.input_sources, devices),
            dynamo_graph=record_region.dynamo_code,
        )
        self.regions[key] = region
        return region


def _devices(args, kwargs) -> set[str]:
    import torch

    values = list(args) + list(kwargs.values())
    return {v.device.type for v in values if isinstance(v, torch.Tensor)}
