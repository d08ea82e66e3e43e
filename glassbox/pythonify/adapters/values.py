"""Python source that rebuilds an object in another process, by name or by value, never by id."""

from __future__ import annotations

import builtins
import types

from glassbox.capture.guard_runtime import resolve
from glassbox.capture.guards import builtin_type_path


def restate(obj) -> str | None:
    """An expression for ``obj`` (the guard helpers ``module``/``resolve`` in scope), or None."""
    import torch

    if obj is None or obj is True or obj is False or obj is Ellipsis:
        return repr(obj)
    if obj is builtins.__dict__:
        return "builtins.__dict__"
    if isinstance(obj, types.ModuleType):
        return f"module({obj.__name__!r})"
    if isinstance(obj, torch.device):
        return f"torch.device({str(obj)!r})"
    if isinstance(obj, torch.dtype):
        return str(obj)
    module_name = getattr(obj, "__module__", None)
    qualname = getattr(obj, "__qualname__", None)
    if isinstance(module_name, str) and isinstance(qualname, str) and "<locals>" not in qualname:
        if module_name == "builtins" and isinstance(obj, type):
            path = builtin_type_path(qualname, id(obj))
            if path is not None:
                return (
                    path.removeprefix("builtins.")
                    if path.startswith("builtins.")
                    else (f"resolve({path!r})")
                )
        if module_name == "builtins" and getattr(builtins, qualname, None) is obj:
            return qualname
        path = f"{module_name}.{qualname}"
        try:
            if resolve(path) is obj:
                return f"resolve({path!r})"
        except Exception:
            pass
    return None
