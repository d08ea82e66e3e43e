"""Results of one call as plain data, their loss, and how two results compare.

A call's result (a tensor, tuple, list, dict, ``ModelOutput`` or dataclass, nested) is flattened
to ``{path: tensor or repr}``: the paths carry the structure, so two results have the same
structure exactly when their paths and non-tensor values are equal. A training call adds the
gradients of the parameters and of the floating-point inputs under ``grad/...``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

import torch

Flat = dict[str, object]


def flatten(value: object, path: str = "out", detach: bool = True) -> Flat:
    if isinstance(value, torch.Tensor):
        return {path: value.detach() if detach else value}
    if isinstance(value, dict):  # ModelOutput is a dict too (its fields that are not None)
        items = [(f"{path}.{key}", item) for key, item in value.items()]
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        fields = dataclasses.fields(value)
        items = [(f"{path}.{f.name}", getattr(value, f.name)) for f in fields]
    elif isinstance(value, (tuple, list)):
        items = [(f"{path}[{index}]", item) for index, item in enumerate(value)]
    else:
        return {path: f"{type(value).__name__}: {value!r}"}
    flat: Flat = {f"{path}:type": type(value).__name__}
    for item_path, item in items:
        flat.update(flatten(item, item_path, detach))
    return flat


def loss_of(result: object) -> torch.Tensor:
    """What a training entry backpropagates: the model's own loss, else the sum of its outputs."""
    loss = result.get("loss") if isinstance(result, dict) else None
    if isinstance(loss, torch.Tensor):
        return loss
    found = flatten(result, detach=False).values()
    tensors = [v for v in found if isinstance(v, torch.Tensor)]
    return sum(t.float().sum() for t in tensors if t.is_floating_point())


def trainable_inputs(args: tuple, kwargs: dict) -> list[torch.Tensor]:
    """The floating-point tensor arguments, made to require grad (their gradients are compared)."""
    found = [v for v in (*args, *kwargs.values()) if isinstance(v, torch.Tensor)]
    return [t.requires_grad_(True) for t in found if t.is_floating_point()]


def call(target: Callable, args: tuple, kwargs: dict, train: bool, run: Callable | None = None):
    """Call ``run(*args, **kwargs)`` (default: ``target``) as the entry is run: under no_grad, or
    with gradients of the target's parameters and the floating inputs. Returns the flat result."""
    run = target if run is None else run
    if not train:
        with torch.no_grad():
            return flatten(run(*args, **kwargs))
    inputs = trainable_inputs(args, kwargs)
    result = run(*args, **kwargs)
    flat = flatten(result)
    loss_of(result).backward()
    parameters = target.named_parameters() if isinstance(target, torch.nn.Module) else []
    for name, parameter in parameters:
        if parameter.grad is not None:
            flat[f"grad/{name}"] = parameter.grad.clone()
    for index, tensor in enumerate(inputs):
        if tensor.grad is not None:
            flat[f"grad/input{index}"] = tensor.grad.clone()
    return flat


def differences(got: Flat, want: Flat, exact: bool, tolerance: float = 1e-4) -> list[str]:
    """What differs between two flat results (empty when equal): structure, values, tensors."""
    if got.keys() != want.keys():
        missing, extra = sorted(want.keys() - got.keys()), sorted(got.keys() - want.keys())
        return [f"structure: missing {missing[:4]}, extra {extra[:4]}"]
    found = []
    for path, expected in want.items():
        value = got[path]
        if not isinstance(expected, torch.Tensor) or not isinstance(value, torch.Tensor):
            if value != expected:
                found.append(f"{path}: {value!r} != {expected!r}")
        elif not _tensors_match(value, expected, exact, tolerance):
            found.append(f"{path}: {_describe(value, expected)}")
    return found


def _tensors_match(a: torch.Tensor, b: torch.Tensor, exact: bool, tolerance: float) -> bool:
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    if exact:
        return torch.equal(a, b)
    return torch.allclose(a, b, atol=tolerance, rtol=tolerance, equal_nan=True)


def _describe(a: torch.Tensor, b: torch.Tensor) -> str:
    if a.shape != b.shape or a.dtype != b.dtype:
        return f"{a.dtype}{list(a.shape)} != {b.dtype}{list(b.shape)}"
    if not a.is_floating_point():
        return f"{int((a != b).sum())} elements differ"
    return f"max abs difference {float((a - b).abs().max()):.3g}"
