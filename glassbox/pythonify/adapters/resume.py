"""Resume functions as Dynamo installs them: what a ``__resume_at_*`` global holds.

Dynamo installs a resume function as a global of the frame's module (``OutputGraph.
install_resume_function_global``): the function itself (``types.FunctionType(code, f_globals)``)
when its code has no free variables, else a factory ``_make_fn(closure)`` that makes it with the
closure the transformed code builds. Either way the function's globals are those of the frame it
resumes, which for a frame Dynamo inlined may be another module's.
"""

from __future__ import annotations

import sys
import types
from dataclasses import dataclass


@dataclass
class ResumeGlobal:
    code: types.CodeType  # the resume function's code
    globals: dict  # its globals
    factory: bool  # the global is called with a closure tuple and returns the function


def read_resume(value) -> ResumeGlobal:
    """The resume function a ``__resume_at_*`` global stands for; ValueError if it is neither
    form Dynamo installs."""
    if not isinstance(value, types.FunctionType):
        raise ValueError(f"it is a {type(value).__name__}, not a function")
    names = value.__code__.co_freevars
    if value.__closure__ and {"code", "f_globals"} <= set(names):
        cells = dict(zip(names, value.__closure__, strict=True))
        code, f_globals = cells["code"].cell_contents, cells["f_globals"].cell_contents
        if isinstance(code, types.CodeType) and isinstance(f_globals, dict) and code.co_freevars:
            return ResumeGlobal(code, f_globals, factory=True)
    if value.__code__.co_freevars:
        raise ValueError(f"it has free variables ({', '.join(names)}) and is not Dynamo's factory")
    return ResumeGlobal(value.__code__, value.__globals__, factory=False)


def globals_source(resume_globals: dict, frame_globals: dict) -> str | None:
    """An expression for ``resume_globals`` in the file, where ``G`` is the calling frame's
    globals: ``G`` itself, or a module's namespace by the module's name; None if it is neither."""
    if resume_globals is frame_globals:
        return "G"
    name = resume_globals.get("__name__")
    module = sys.modules.get(name) if isinstance(name, str) else None
    if module is not None and vars(module) is resume_globals:
        return f"vars(module({name!r}))"
    return None
