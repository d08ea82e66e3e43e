"""Inputs adapter: how ``run(target, *args, **kwargs)`` reaches the entry frame, by path.

For a module, Dynamo compiled ``type(target).forward``: its globals are
``type(target).forward.__globals__`` and ``target`` is its ``self``. For a function, ``target``'s
own ``__globals__``. Graph inputs are read by the glue by the same paths Dynamo's sources name
(``L['self']._modules['fc']._parameters['weight']``), never by id.
"""

from __future__ import annotations

import inspect
import types
from dataclasses import dataclass

from glassbox.pythonify.adapters.signature import NotLiteral, literal
from glassbox.pythonify.ir import ArgumentExtraction


class PythonifyError(Exception):
    """The compiled program uses something pythonify cannot write down faithfully."""


@dataclass
class Entry:
    """The function Dynamo enters first, and how the file reaches its globals and closure."""

    function: types.FunctionType
    globals_source: str  # an expression over ``target``
    cells_source: str  # an expression over ``target``: the closure cells, by position
    bound_self: bool  # a module's forward: ``target`` is its ``self``


def entry_function(target) -> Entry:
    """Not unwrapped: Dynamo enters the outermost function, a decorator's wrapper included (its
    closure holds the wrapped function). A module whose forward Dynamo skips (``torch.nn``'s own,
    such as ``Sequential``) is entered through ``wrap_inline``'s ``inner(*args, **kwargs)``, whose
    one cell holds the module.
    """
    import torch

    if isinstance(target, torch.nn.Module):
        if _entered_through_wrap_inline(target):
            from torch._dynamo.external_utils import wrap_inline

            return Entry(
                wrap_inline(target),
                "module('torch._dynamo.external_utils').__dict__",
                "(types.CellType(target),)",
                False,
            )
        path = "type(target).forward"
        return Entry(type(target).forward, f"{path}.__globals__", f"{path}.__closure__ or ()", True)
    if not inspect.isfunction(target):
        raise PythonifyError(f"cannot pythonify a {type(target).__name__}")
    return Entry(target, "target.__globals__", "target.__closure__ or ()", False)


def _entered_through_wrap_inline(module) -> bool:
    """Dynamo's own test (``OptimizedModule._initialize``) for wrapping the top frame."""
    from torch._dynamo import config, trace_rules

    forward = module.forward
    return bool(
        config.wrap_top_frame
        or (isinstance(forward, types.MethodType) and trace_rules.check(forward))
    )


def params_of(function) -> list[str]:
    """The parameters of ``function`` as in a ``def`` (defaults as literals)."""
    out = []
    signature = inspect.signature(function, follow_wrapped=False)
    for parameter in signature.parameters.values():
        text = parameter.name
        if parameter.kind is parameter.VAR_POSITIONAL:
            text = "*" + text
        elif parameter.kind is parameter.VAR_KEYWORD:
            text = "**" + text
        if parameter.default is not parameter.empty:
            try:
                text += "=" + literal(parameter.default)
            except NotLiteral as error:
                raise PythonifyError(
                    f"default of {parameter.name!r} is not a literal: {error}"
                ) from None
        out.append(text)
    kinds = [p.kind for p in signature.parameters.values()]
    if inspect.Parameter.KEYWORD_ONLY in kinds and inspect.Parameter.VAR_POSITIONAL not in kinds:
        first = kinds.index(inspect.Parameter.KEYWORD_ONLY)
        out.insert(first, "*")
    if inspect.Parameter.POSITIONAL_ONLY in kinds:
        last = max(i for i, k in enumerate(kinds) if k is inspect.Parameter.POSITIONAL_ONLY)
        out.insert(last + 1, "/")
    return out


def argument_extraction(target) -> ArgumentExtraction:
    entry = entry_function(target)
    return ArgumentExtraction(
        frame_name=entry.function.__name__,
        params=params_of(entry.function),
        call_target="target",
        globals_path=entry.globals_source,
        cells_path=entry.cells_source,
        eager_call="target(*args, **kwargs)",
    )


def example_locals(target, args, kwargs) -> dict:
    """The entry frame's locals for the example inputs (to evaluate identity guards)."""
    entry = entry_function(target)
    call_args = (target, *args) if entry.bound_self else args
    signature = inspect.signature(entry.function, follow_wrapped=False)
    bound = signature.bind(*call_args, **kwargs)
    bound.apply_defaults()
    free = entry.function.__code__.co_freevars
    cells = entry.function.__closure__ or ()
    return dict(bound.arguments) | {n: c.cell_contents for n, c in zip(free, cells, strict=True)}
