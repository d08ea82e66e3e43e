"""The public API: ``glassbox.pythonify(...)`` and ``glassbox.compile(..., pythonify=path)``."""

from __future__ import annotations

import os

from glassbox.pythonify import gen_binary, gen_python
from glassbox.pythonify.adapters.dynamo import Recorder
from glassbox.pythonify.pipeline import RuntimeWrapperPipeline


def _title(target, backend: str, dynamic, mode) -> str:
    name = (
        type(target).__qualname__
        if hasattr(target, "forward")
        else getattr(target, "__qualname__", repr(target))
    )
    extra = "".join(
        f", {k}={v!r}" for k, v in (("dynamic", dynamic), ("mode", mode)) if v is not None
    )
    return f"torch.compile({name}, backend={backend!r}{extra}), pythonified"


class PythonifiedCompile:
    """``glassbox.compile``'s result: torch.compile's callable that keeps ``path`` up to date.

    Each call runs the torch.compile'd target while recording; when the call compiled something
    new (a first compile, a graph break's resume function, a recompile), the file is rewritten
    with every variant recorded so far. ``program()`` and ``binary()`` give the IR and the
    gen_binary callable for the latest state.
    """

    def __init__(self, target, path, backend="inductor", dynamic=None, mode=None, **kwargs):
        import torch

        self.target = target
        self.path = os.fspath(path) if path is not None else None
        self.backend, self.dynamic, self.mode = backend, dynamic, mode
        self.recorder = Recorder(backend, mode=mode, options=kwargs.pop("options", None))
        self.compiled = torch.compile(target, backend=self.recorder, dynamic=dynamic, **kwargs)
        self._first_inputs = None
        self._seen = 0
        self._program = None

    def __call__(self, *args, **kwargs):
        if self._first_inputs is None:
            self._first_inputs = (args, kwargs)
        with self.recorder:
            out = self.compiled(*args, **kwargs)
        if len(self.recorder.compile_ids) != self._seen:
            self._seen = len(self.recorder.compile_ids)
            self._program = None
            if self.path is not None:
                self.write(self.path)
        return out

    def program(self):
        if self._program is None:
            args, kwargs = self._first_inputs
            pipeline = RuntimeWrapperPipeline(self.recorder, self.target, args, kwargs, self.mode)
            self._program = pipeline.build(
                _title(self.target, self.backend, self.dynamic, self.mode)
            )
        return self._program

    def write(self, path) -> str:
        text = gen_python.render(self.program())
        with open(path, "w") as handle:
            handle.write(text)
        return os.fspath(path)

    def binary(self):
        return gen_binary.build(self.program())


def compile(model, pythonify=None, backend="inductor", **torch_compile_kwargs):  # noqa: A001
    """Like ``torch.compile(model, backend=...)``; also writes ``pythonify`` (a path) as it runs."""
    return PythonifiedCompile(model, pythonify, backend=backend, **torch_compile_kwargs)


def pythonify(
    model_or_fn,
    example_args,
    path,
    example_kwargs=None,
    backend="inductor",
    dynamic=None,
    mode=None,
):
    """Compile ``model_or_fn`` on the example inputs now and write the pythonified file to ``path``.

    Returns the :class:`PythonifiedCompile` (call it with more inputs to add variants).
    """
    compiled = PythonifiedCompile(model_or_fn, path, backend=backend, dynamic=dynamic, mode=mode)
    compiled(*tuple(example_args), **dict(example_kwargs or {}))
    if not compiled.recorder.compile_ids:
        compiled.write(path)  # raises PythonifyError naming the frame Dynamo did not compile
    return compiled
