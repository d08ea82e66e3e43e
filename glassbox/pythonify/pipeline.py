"""RuntimeWrapperPipeline: the recorded compilation, through the adapters, into one IR Program.

The stages, in the order the written file runs them: argument extraction (inputs adapter), the
frames Dynamo compiled with their cache entries (guards adapter, glue adapter), the compiled
regions each ``__compiled_fn_*`` stands for (AOT adapter, CUDA graphs adapter), and the
dispatchers that try each frame's variants in Dynamo's order.
"""

from __future__ import annotations

import ast
import re
import types

from glassbox.capture.records import RESUME_PREFIX, safe_name
from glassbox.pythonify.adapters.aot import aot_wrapper
from glassbox.pythonify.adapters.cudagraphs import cudagraph_setup
from glassbox.pythonify.adapters.dynamo import COMPILED_FN, FrameRecord, Recorder, region_of
from glassbox.pythonify.adapters.glue import GlueError, called_names, decompile_glue
from glassbox.pythonify.adapters.guards import guard_check, helpers_used
from glassbox.pythonify.adapters.inputs import (
    PythonifyError,
    argument_extraction,
    entry_function,
    example_locals,
    params_of,
)
from glassbox.pythonify.adapters.resume import globals_source, read_resume
from glassbox.pythonify.adapters.signature import signature_of
from glassbox.pythonify.adapters.values import restate
from glassbox.pythonify.gen_python import DYNAMO_UTILS_FUNCTIONS
from glassbox.pythonify.ir import (
    Binding,
    CallableInvocation,
    CompiledRegion,
    Condition,
    GuardCheck,
    MultiRegionDispatch,
    Program,
    ReturnResult,
)

# torch._dynamo.utils as the glue reads it: the file's own ``DynamoUtils`` (profiling markers as
# no-ops, the setattr helpers restated), so that the file does not need Dynamo.
_DYNAMO_UTILS = "__import_torch_dot__dynamo_dot_utils"
# Globals Dynamo installs in the frame's module (compiled graphs, resume functions, imports).
_INSTALLED = re.compile(r"^(__compiled_fn_|__resume_at_|__import_|__builtins_dict__|___)")


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
        self.eager_resumes: set[types.CodeType] = set()
        self.routed: dict[types.CodeType, types.FunctionType] = {}  # code -> function recorded

    def build(self, title: str) -> Program:
        arguments = argument_extraction(self.target)
        function = entry_function(self.target).function
        entry_code = function.__code__
        if entry_code not in self.frames or not self.frames[entry_code].entries:
            others = [c.co_qualname for c, f in self.frames.items() if f.entries]
            if others:
                raise PythonifyError(
                    f"Dynamo skipped {function.__qualname__} (a graph break in a loop, say) and "
                    f"compiled only frames it calls from eager code ({', '.join(others)}); the "
                    "file cannot route calls made by eager code into them"
                )
            raise PythonifyError(
                f"Dynamo compiled no frame for {function.__qualname__}: it ran the call eagerly "
                "(a skipped module such as nn.GRU/nn.LSTM, or code Dynamo skips), so there is "
                "nothing to pythonify; torch._dynamo.explain(target)(*args) says why"
            )
        for code in self.frames:
            self._name_frame(code)
        self.entry_code, self.entry_function = entry_code, function
        pending, done = [entry_code], set()
        while pending:
            code = pending.pop(0)
            if code in done:
                continue
            done.add(code)
            pending += self._frame(code, entry=code is entry_code)
        unreached = [c.co_qualname for c, f in self.frames.items() if f.entries and c not in done]
        if unreached:
            raise PythonifyError(
                f"Dynamo compiled {', '.join(unreached)} as frames of their own, called from code "
                "that runs as plain Python (an attribute or method call, say); the file cannot "
                "route such a call to the compiled frame, so it would run it uncompiled"
            )
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

    def _name_frame(self, code: types.CodeType) -> str:
        """The frame's dispatcher name, unique in the file: resume functions of one frame share
        a co_name (the two branches after a data-dependent jump resume at the same line)."""
        if code not in self.dispatch_names:
            base = f"frame_{safe_name(code.co_name)}"
            taken = set(self.dispatch_names.values())
            name, n = base, 1
            while name in taken:
                n += 1
                name = f"{base}_{n}"
            self.dispatch_names[code] = name
        return self.dispatch_names[code]

    # -- one frame -----------------------------------------------------------------------
    def _frame(self, code: types.CodeType, entry: bool) -> list[types.CodeType]:
        frame = self.frames[code]
        frame_name = self.dispatch_names[code]
        frame_locals = example_locals(self.target, self.args, self.kwargs) if entry else None
        variants, called = [], []
        for n, record in enumerate(frame.entries):
            ident = f"{frame_name.removeprefix('frame_')}_{n}"
            check = guard_check(f"guard_{ident}", code.co_name, record, frame_locals, frame.globals)
            glue, resumes = self._glue(f"glue_{ident}", record, frame)
            self.guards.append(check)
            self.glue.append(glue)
            variants.append((check, glue))
            called += resumes
        params = signature_of(code)
        if entry:
            params = argument_extraction(self.target).params
        elif code in self.routed:
            params = params_of(self.routed[code])
        self._dispatcher(code, params, variants, entry or code in self.routed)
        return called

    def _dispatcher(self, code: types.CodeType, params: list[str], variants, entry: bool) -> None:
        self.dispatchers.append(
            MultiRegionDispatch(
                name=self.dispatch_names[code],
                frame_name=code.co_name,
                params=params,
                variants=variants,
                entry=entry,
                code_location=f"{code.co_filename}:{code.co_firstlineno}",
                free=list(code.co_freevars),
            )
        )

    def _glue(self, name: str, record, frame) -> tuple[CallableInvocation, list]:
        where = f"{frame.original.co_name} (compile {record.compile_id})"
        return self._invocation(name, record.transformed, record.compile_id, frame, where)

    def _invocation(
        self, name: str, code: types.CodeType, compile_id: str, frame, where: str
    ) -> tuple[CallableInvocation, list]:
        """``code`` decompiled into a function of (G, cells) with every name it reads bound."""
        try:
            glue = decompile_glue(code)
        except GlueError as error:
            raise PythonifyError(f"cannot write the glue of {where}: {error}") from None
        resumes: list[types.CodeType] = []
        bindings = [
            Binding(name, f"cells[{i}].cell_contents", "free variable")
            for i, name in enumerate(glue.free)
        ]
        bindings += [
            Binding(name, f"cells[{i}]", f"the cell of free variable {glue.free[i]} itself")
            for name, i in glue.cells.items()
        ]
        for placeholder, value in glue.placeholders.items():
            source = restate(value)
            if source is None:
                raise PythonifyError(
                    f"cannot write the glue of {where}: constant {value!r} has no source form"
                )
            bindings.append(Binding(placeholder, source, "a constant of the transformed code"))
        for global_name in glue.globals:
            source, note = self._global_binding(global_name, glue.function, frame, resumes, where)
            bindings.append(Binding(global_name, source, note))
        self._route_calls(glue, bindings, frame, resumes)
        function = ast.unparse(glue.function)
        invocation = CallableInvocation(name, compile_id, bindings, function, glue.function.name)
        invocation.not_shown = glue.not_shown
        return invocation, resumes

    def _global_binding(self, global_name: str, function, frame, resumes, where) -> tuple[str, str]:
        """What a global the glue reads becomes in the file (and why)."""
        value = frame.globals.get(global_name)
        if COMPILED_FN.match(global_name):
            return self._region(global_name, frame).name, "compiled graph"
        if global_name.startswith("__resume_at_"):
            return self._resume_binding(global_name, value, frame, resumes, where)
        if global_name == _DYNAMO_UTILS:
            unknown = _attributes_of(function, global_name) - DYNAMO_UTILS_FUNCTIONS
            if unknown:
                raise PythonifyError(
                    f"cannot write the glue of {where}: it calls torch._dynamo.utils."
                    f"{sorted(unknown)[0]}, which the file does not restate"
                )
            return "DynamoUtils", "Dynamo's run-time helpers, restated"
        if not _INSTALLED.match(global_name):
            return f"global_value(G, {global_name!r})", "global"
        source = restate(value) if global_name in frame.globals else None
        if source is None:
            raise PythonifyError(
                f"cannot write the glue of {where}: the global {global_name} Dynamo installed "
                f"({type(value).__name__}) cannot be restated by name"
            )
        return source, "installed by Dynamo"

    def _route_calls(self, glue, bindings: list[Binding], frame, called: list) -> None:
        """A name the glue calls that held, while recording, a function Dynamo compiled as a
        frame of its own (a decorator's wrapped function, a helper the frame calls after a graph
        break) goes through that frame's dispatcher, as Dynamo's frame hook sends the call."""
        names = called_names(glue.function)
        plain = set(glue.free) | {g for g in glue.globals if not _INSTALLED.match(g)}
        for binding in bindings:
            if binding.name not in names or binding.name not in plain:
                continue
            value = self._recorded_value(binding.name, glue, frame)
            code = getattr(value, "__code__", None)
            if not isinstance(value, types.FunctionType) or code not in self.frames:
                continue
            if not self.frames[code].entries:
                continue
            self.routed[code] = value
            called.append(code)
            recorded = (code.co_name, code.co_firstlineno, code.co_filename.rsplit("/", 1)[-1])
            binding.source = f"routed({binding.source}, {self.dispatch_names[code]}, {recorded!r})"
            binding.note += ", its calls routed to the frame Dynamo compiled"

    def _recorded_value(self, name: str, glue, frame):
        """What ``name`` held while recording: the free variables of the entry frame and of
        routed frames (their functions were recorded) and any frame's globals are known; a
        resume frame's closure is not (None)."""
        if name in glue.free:
            function = self._recorded_function(frame.original)
            names = function.__code__.co_freevars if function is not None else ()
            cells = dict(zip(names, function.__closure__ or (), strict=True)) if names else {}
            try:
                return cells[name].cell_contents
            except (KeyError, ValueError):
                return None
        return frame.globals.get(name)

    def _recorded_function(self, code: types.CodeType) -> types.FunctionType | None:
        """The function whose closure ``code`` sees: the entry's, a routed frame's, or, for a
        resume function (closure passed at run time), the function it resumes (its cells are
        the ones the transformed code passes on). A wrong pick is caught by ``routed`` at run
        time: it checks the code of what it is called with."""
        known = dict(self.routed)
        known[self.entry_code] = self.entry_function
        if code in known:
            return known[code]
        for original, function in known.items():
            prefix = f"{RESUME_PREFIX}{original.co_name}_at_"
            if code.co_name.startswith(prefix) and code.co_filename == original.co_filename:
                return function
        return None

    def _resume_binding(self, global_name: str, value, frame, resumes, where) -> tuple[str, str]:
        """A ``__resume_at_*`` global: the resume frame's dispatcher, given its globals (and, when
        Dynamo installed a factory, the closure the glue passes)."""
        try:
            resume = read_resume(value)
        except ValueError as error:
            raise PythonifyError(
                f"cannot write the glue of {where}: resume function {global_name}: {error}"
            ) from None
        resume_globals = globals_source(resume.globals, frame.globals)
        if resume_globals is None:
            raise PythonifyError(
                f"cannot write the glue of {where}: the globals of resume function {global_name} "
                "are not a module's"
            )
        code = resume.code
        if code in self.frames and self.frames[code].entries:
            resumes.append(code)
            dispatcher, note = self.dispatch_names[code], "resume function"
        else:
            dispatcher = self._uncompiled_resume(code, resume.globals, global_name)
            note = "resume function Dynamo did not compile, as plain Python"
        if resume.factory:
            source = f"lambda closure: functools.partial({dispatcher}, {resume_globals}, closure)"
            return source, note + " (made with the closure the code passes)"
        return f"functools.partial({dispatcher}, {resume_globals}, ())", note

    def _uncompiled_resume(self, code: types.CodeType, resume_globals: dict, global_name: str):
        """A resume function Dynamo has no compiled variant of (it ran it eagerly: nothing to
        trace; or it never ran, a branch not taken while recording): the file runs it as plain
        Python, decompiled, as torch.compile runs it eagerly. Its dispatcher checks no guards."""
        if code in self.eager_resumes:
            return self.dispatch_names[code]
        where = f"{code.co_name} ({global_name}, not compiled by Dynamo)"
        ident = self._name_frame(code).removeprefix("frame_") + "_eager"
        self.eager_resumes.add(code)
        note = (
            "Dynamo compiled no variant of this resume function while recording (it ran it "
            "eagerly, or the branch that calls it did not run): it runs as plain Python"
        )
        check = GuardCheck(f"guard_{ident}", code.co_name, "eager", [Condition(None, note)])
        frame = FrameRecord(code, resume_globals)
        glue, called = self._invocation(f"glue_{ident}", code, "eager", frame, where)
        if called:
            raise PythonifyError(f"cannot write {where}: it calls another resume function")
        self.guards.append(check)
        self.glue.append(glue)
        self._dispatcher(code, signature_of(code), [(check, glue)], entry=False)
        return self.dispatch_names[code]

    def _region(self, global_name: str, frame) -> CompiledRegion:
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


def _attributes_of(function: ast.FunctionDef, name: str) -> set[str]:
    """The attributes ``function`` reads from the global ``name``."""
    return {
        node.attr
        for node in ast.walk(function)
        if isinstance(node, ast.Attribute)
        and isinstance(node.value, ast.Name)
        and node.value.id == name
    }


def _devices(args, kwargs) -> set[str]:
    import torch

    values = list(args) + list(kwargs.values())
    return {v.device.type for v in values if isinstance(v, torch.Tensor)}
