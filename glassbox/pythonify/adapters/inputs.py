"""Inputs adapter: how ``run(target, *args, **kwargs)`` reaches the entry frame, by path.

For a module, Dynamo compiled ``type(target).forward``: its globals are
``type(target).forward.__globals__`` and ``target`` is its ``self``. For a function, ``target``'s
own ``__globals__``. Graph inputs are read by the glue by the same paths Dynamo's sources name
(``L['self']._modules['fc']._parameters['weight']``), never by id.
"""

from __future__ import annotations

import inspect

from glassbox.pythonify.adapters.signature import NotLiteral, literal
from glassbox.pythonify.ir import ArgumentExtraction


class PythonifyError(Exception):
    """The compiled program uses something pythonify cannot write down faithfully."""


def entry_function(target):
    """(the function Dynamo enters first, the path to it from ``target``, whether a module).

    Not unwrapped: Dynamo enters the outermost function, a decorator's wrapper included (its
    closure holds the wrapped function).
    """
    import torch

    if isinstance(target, torch.nn.Module):
        return type(target).forward, "type(target).forward", True
    if not inspect.isfunction(target):
        raise PythonifyError(f"cannot pythonify a {type(target).__name__}")
    return target, "target", False


def _params(function, bound_self: bool) -> list[str]:
    out = []
    signature = inspect.signature(function)
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
    function, path, is_module = entry_function(target)
    return ArgumentExtraction(
        frame_name=function.__name__,
        params=_params(function, is_module),
        call_target="target",
        globals_path=f"{path}.__globals__",
        function_path=path,
        eager_call="target(*args, **kwargs)",
    )


def example_locals(target, args, kwargs) -> dict:
    """The entry frame's locals for the example inputs (to evaluate identity guards)."""
    function, _, is_module = entry_function(target)
    call_args = (target, *args) if is_module else args
    bound = inspect.signature(function).bind(*call_args, **kwargs)
    bound.apply_defaults()
    return dict(bound.arguments)
