"""glassbox: make torch.compile a glass box.

The bytecode layer: :func:`dis` prints a listing equivalent to the running interpreter's
``dis.dis``, computed by the C++ core from the marshalled code object; :func:`decompile` turns a
code object, function or ``.pyc`` back into source that recompiles to the same bytecode.
"""

from __future__ import annotations

from glassbox.decompiler import decompile, dis, disassemble
from glassbox.errors import BytecodeError, DecompileWarning

__all__ = ["BytecodeError", "DecompileWarning", "decompile", "dis", "disassemble"]
__version__ = "0.1.0"

# Capture needs torch; it is imported on first use so that `import glassbox` stays light.
_CAPTURE_EXPORTS = ("capture", "prepare_debug", "debug")
_PYTHONIFY_EXPORTS = ("pythonify", "compile")


def __getattr__(name: str):
    if name in _CAPTURE_EXPORTS:
        import importlib

        package = importlib.import_module("glassbox.capture")  # callable: capture(dump_dir)
        value = package if name == "capture" else getattr(package, name)
        globals()[name] = value
        return value
    if name in _PYTHONIFY_EXPORTS:  # pythonify(...) and compile(..., pythonify=path)
        import importlib

        package = importlib.import_module("glassbox.pythonify")  # callable: pythonify(...)
        value = package if name == "pythonify" else getattr(package, name)
        globals()[name] = value
        return value
    if name in _BACKEND_EXPORTS:  # glassbox.export / glassbox.load: torch imported on first use
        import importlib

        value = getattr(importlib.import_module("glassbox.backend.export"), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'glassbox' has no attribute {name!r}")


# The native backend (glassbox.backend): export/load resolved lazily like capture. The
# torch.compile backend "glassbox" is found through the torch_dynamo_backends entry point; if torch
# is already imported it is registered right away (never importing torch here).
_BACKEND_EXPORTS = ("export", "load")


def _register_backend_if_dynamo_loaded() -> None:
    import sys

    if "torch" in sys.modules:
        from glassbox.backend import register

        register()


_register_backend_if_dynamo_loaded()
