"""``glassbox.capture(dump_dir)``: hooks into Dynamo while the block runs, writes the dump.

Two hooks, both removed on exit: Dynamo's bytecode hook (each transformed code object is
decompiled into the dump and, when verified, the dumped code is what Dynamo runs) and a
handler on PyTorch's structured trace (graphs, output code, metrics and graph-break reasons by
compile id), with a filter that keeps torch from building the trace records capture does not use.
Guards, the full_code files and the index are written on exit, from Dynamo's cache entries.
Every hook steps aside on any exception (the program runs on as without capture) and the index
says why; every ``.py`` written compiles (text that would not is kept as comments).
"""

from __future__ import annotations

import os
import threading
import types
import warnings

from glassbox.capture import index as index_mod
from glassbox.capture.full_code import render_full_code
from glassbox.capture.guards import conditions_of, guard_body, render_guards_file
from glassbox.capture.records import (
    RESUME_PREFIX,
    EntryRecord,
    FrameRecord,
    compile_dir,
    safe_name,
)
from glassbox.capture.source import compilable, reading_only, render, same_interface
from glassbox.capture.trace import GRAPH_FILES, TraceCollector
from glassbox.capture.writer import DumpWriter

GRAPH_PRELUDE = (
    "import math\nimport torch\nfrom torch import device, inf, nan  # noqa: F401\n"
    "import torch.fx._lazy_graph_module  # noqa: F401\n"
    "import torch.fx._pytree as fx_pytree  # noqa: F401\n\n"
)

_active_lock = threading.Lock()
_active: Capture | None = None
_last_dump_dir: str | None = None


def active_capture() -> Capture | None:
    return _active


def last_dump_dir() -> str | None:
    return _last_dump_dir


RUN_DUMPED_POLICIES = ("verified", "decompiled", "never")


class Capture:
    """The context manager behind :func:`glassbox.capture`; one per ``with`` block."""

    def __init__(self, dump_dir: str | os.PathLike, run_dumped: str = "verified") -> None:
        if run_dumped not in RUN_DUMPED_POLICIES:
            raise ValueError(f"run_dumped must be one of {RUN_DUMPED_POLICIES}, not {run_dumped!r}")
        self.run_dumped = run_dumped
        self.writer = DumpWriter(dump_dir)
        self.frames: dict[types.CodeType, FrameRecord] = {}
        self.errors: list[str] = []
        self.collector = TraceCollector(self._on_graph)
        self._hook_handle = None

    @property
    def dump_dir(self) -> str:
        return str(self.writer.root)

    # -- entering and leaving ------------------------------------------------------------
    def __enter__(self) -> Capture:
        global _active
        import torch._dynamo.convert_frame as convert_frame

        with _active_lock:
            if _active is not None:
                raise RuntimeError("glassbox.capture blocks cannot be nested")
            self.writer.prepare()
            _active = self
        self.collector.attach()
        self._hook_handle = convert_frame.register_bytecode_hook(self._on_bytecode)
        return self

    def __exit__(self, *exc_info) -> None:
        global _active, _last_dump_dir
        try:
            if self._hook_handle is not None:
                self._hook_handle.remove()
            self.collector.detach()
            self._finish()
        finally:
            with _active_lock:
                _active = None
                _last_dump_dir = self.dump_dir

    # -- during the block ----------------------------------------------------------------
    def _frame(self, original: types.CodeType) -> FrameRecord:
        frame = self.frames.get(original)
        if frame is None:
            taken = {f.full_code_file for f in self.frames.values()}
            base = f"full_code_for_{safe_name(original.co_name)}"
            name, n = f"{base}.py", 1
            while name in taken:
                n += 1
                name = f"{base}_{n}.py"
            frame = self.frames[original] = FrameRecord(original, name)
        return frame

    def _on_bytecode(self, original: types.CodeType, transformed: types.CodeType):
        """Dynamo's bytecode hook: dump ``transformed``; return the dumped code when the policy
        lets it run."""
        try:
            return self._dump_transformed(original, transformed)
        except Exception as error:  # capture never breaks compilation
            self.errors.append(f"bytecode hook for {original.co_name}: {error!r}")
            return None

    def _dump_transformed(self, original, transformed):
        from torch._guards import CompileContext

        cid = CompileContext.current_compile_id()
        compile_id = f"{cid.frame_id}/{cid.frame_compile_id}" if cid else "unknown"
        folder = compile_dir(compile_id)
        frame = self._frame(original)
        relative = f"{folder}/transformed_{safe_name(original.co_name)}.py"
        title = (
            f"Dynamo's transformed code of {original.co_name} ({frame.where}), compile {compile_id}"
        )
        rendered = render(transformed, str(self.writer.path(relative)), title, self.run_dumped)
        if rendered.code is not None and not same_interface(original, rendered.code):
            why = "the dumped code's arguments, free or cell variables are not the original's"
            rendered = reading_only(transformed, title, why, None)  # Dynamo would refuse it
        self._write_py(relative, rendered.source)
        entry = EntryRecord(
            compile_id,
            transformed,
            relative,
            rendered.code is not None,
            rendered.reason,
            source=rendered.source,
            unverified=rendered.unverified,
        )
        entry.resume_names = _resume_names(transformed)
        if frame.is_resume:
            original_rel = f"{folder}/resume_original_{safe_name(original.co_name)}.py"
            title = f"Dynamo's resume function {original.co_name}, as Dynamo generated it"
            path = str(self.writer.path(original_rel))
            why = "Dynamo's input: what runs is its transformed code (transformed_*.py)"
            text = render(original, path, title, "never", never_reason=why).source
            self._write_py(original_rel, text)
            entry.original_file = original_rel
        frame.entries.append(entry)
        return rendered.code

    def _on_graph(self, compile_id: str, name: str, payload: str) -> None:
        relative = f"{compile_dir(compile_id)}/{GRAPH_FILES[name]}"
        if name == "inductor_output_code":
            text = f"# Inductor's output code, compile {compile_id}.\n" + payload
        else:
            title = name.replace("_", " ")
            text = f"# {title}, compile {compile_id}.\n" + GRAPH_PRELUDE + payload
        self._write_py(relative, text)

    def _write_py(self, relative: str, text: str) -> None:
        """Write a ``.py`` file of the dump; text that does not compile is kept as comments."""
        self.writer.write(relative, compilable(text, str(self.writer.path(relative))))

    # -- on exit -------------------------------------------------------------------------
    def _finish(self) -> None:
        for frame in self.frames.values():
            try:
                self._write_guards(frame)
            except Exception as error:
                self.errors.append(f"guards of {frame.name}: {error!r}")
        for frame in self.frames.values():
            try:
                text = render_full_code(frame, self.collector.compiles)
                self._write_py(frame.full_code_file, text)
            except Exception as error:
                self.errors.append(f"full_code of {frame.name}: {error!r}")
        self.errors.extend(self.collector.errors)
        try:
            index_mod.write_index(self)
        except Exception as error:  # the dump is incomplete, the program runs on
            warnings.warn(f"glassbox.capture could not write its index: {error!r}", stacklevel=3)

    def _write_guards(self, frame: FrameRecord) -> None:
        from torch._C._dynamo.eval_frame import _debug_get_cache_entry_list

        by_id = {entry.compile_id: entry for entry in frame.entries}
        for cache_entry in _debug_get_cache_entry_list(frame.original):
            compile_id = str(cache_entry.compile_id)
            entry = by_id.get(compile_id)
            if entry is None:
                continue
            relative = f"{compile_dir(compile_id)}/guards.py"
            entry.conditions = conditions_of(cache_entry.guard_manager)
            entry.guard_body = guard_body(entry.conditions)
            text = render_guards_file(entry.guard_body, compile_id, frame.name, frame.where)
            self._write_py(relative, text)
            entry.guards_file = relative


def _resume_names(code: types.CodeType) -> list[str]:
    """Resume functions the transformed code calls: by global name or as a code constant."""
    names = [n for n in code.co_names if n.startswith("__resume_at") or RESUME_PREFIX in n]
    names += [
        c.co_name
        for c in code.co_consts
        if isinstance(c, types.CodeType) and c.co_name.startswith(RESUME_PREFIX)
    ]
    return list(dict.fromkeys(names))


def capture(dump_dir: str | os.PathLike, *, run_dumped: str = "verified") -> Capture:
    """Record everything torch.compile does inside the ``with`` block into ``dump_dir``.

    ``run_dumped`` says when the dumped transformed code runs instead of Dynamo's bytecode (so
    that breakpoints in it are hit): ``"verified"`` (the default) only when it recompiles, at
    the running interpreter's optimization level, to Dynamo's bytecode (line numbers, file name
    and qualified name aside); ``"never"``; ``"decompiled"``, an opt-in for stepping through
    that also runs fully reconstructed code with Dynamo's arguments, free and cell variables
    whose bytecode differs: it is not shown to behave as Dynamo's and may change results or
    raise. Wherever the dumped code does not run, Dynamo's does and the file says why."""
    return Capture(dump_dir, run_dumped)


def prepare_debug(dump_src_dir: str | os.PathLike, *, run_dumped: str = "verified") -> Capture:
    """depyf's name for :func:`capture` (the same ``run_dumped`` policies and default)."""
    return Capture(dump_src_dir, run_dumped)
