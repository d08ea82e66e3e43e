"""gen_binary: the IR Program as an in-memory callable, without writing a file.

The compiled graphs are the live objects compilation produced (the FX GraphModules' code for
aot_eager, Inductor's loaded ``call`` for inductor) instead of their source; guards, wrappers,
glue and dispatchers are the same definitions ``gen_python`` writes, compiled in memory.
"""

from __future__ import annotations

from glassbox.pythonify import gen_python, ir


def build(program: ir.Program):
    """``run(target, *args, **kwargs)`` for ``program``."""
    namespace: dict = {"__name__": "glassbox_pythonify_binary"}
    for kernel in program.kernels:
        if kernel.live is None:
            raise ValueError(f"gen_binary: no live callable for {kernel.name}")
        namespace[kernel.name] = _unboxed(kernel)
    source = gen_python.render(program, kernels_as_source=False)
    exec(compile(source, "<glassbox pythonify binary>", "exec"), namespace)
    return namespace["run"]


def _unboxed(kernel: ir.KernelLoad):
    live = kernel.live

    def call(*args):
        return live(list(args))

    call.__name__ = kernel.name
    return call
