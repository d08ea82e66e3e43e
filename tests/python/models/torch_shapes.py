"""Torch-level shapes real code has, beside the architectures: wrapped forwards, closures,
generator expressions over locals, containers compiled directly, non-tensor keyword arguments,
dict and dataclass outputs, graph breaks inside loops and nested calls."""

from __future__ import annotations

import functools
from dataclasses import dataclass

import torch
from corpus import Built, Entry
from torch import nn

WIDTH = 16
BATCH = 4


def _inputs(seed: int, *shape: int) -> torch.Tensor:
    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed + 1))


def scaled(factor: float):
    """A decorator with a closure, as libraries write them (functools.wraps keeps the name)."""

    def decorate(function):
        @functools.wraps(function)
        def wrapper(self, x, *args, **kwargs):
            return function(self, x * factor, *args, **kwargs)

        return wrapper

    return decorate


class WrappedForward(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc = nn.Linear(WIDTH, WIDTH)

    @scaled(0.5)
    def forward(self, x):
        return torch.relu(self.fc(x))


def closure(seed: int) -> Built:
    """A plain function compiled directly, closing over a weight tensor and a float."""
    torch.manual_seed(seed)
    weight, shift = torch.randn(WIDTH, WIDTH), 0.25

    def step(x):
        return torch.tanh(x @ weight + shift)

    return step, (_inputs(seed, BATCH, WIDTH),), {}


class GeneratorOverLocals(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.heads = nn.ModuleList(nn.Linear(WIDTH, WIDTH) for _ in range(3))

    def forward(self, x):
        parts = [head(x) for head in self.heads]
        scales = (1.0, 0.5, 0.25)
        total = sum(s * p for s, p in zip(scales, parts, strict=True))
        return torch.stack(tuple(p.amax(dim=-1) for p in parts)), total


def sequential(seed: int) -> Built:
    """A bare nn.Sequential compiled directly (Dynamo enters it through a closure)."""
    torch.manual_seed(seed)
    model = nn.Sequential(nn.Linear(WIDTH, 32), nn.GELU(), nn.LayerNorm(32), nn.Linear(32, 4))
    return model.eval(), (_inputs(seed, BATCH, WIDTH),), {}


def nested_sequential(seed: int) -> Built:
    """Sequentials inside a Sequential, with a ModuleList-built block in the middle."""
    torch.manual_seed(seed)
    blocks = [nn.Sequential(nn.Linear(WIDTH, WIDTH), nn.SiLU()) for _ in range(2)]
    model = nn.Sequential(*blocks, nn.Sequential(nn.Dropout(0.1), nn.Linear(WIDTH, 2)))
    return model.eval(), (_inputs(seed, BATCH, WIDTH),), {}


class ModuleListLoop(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.layers = nn.ModuleList(nn.Linear(WIDTH, WIDTH) for _ in range(3))
        self.norms = nn.ModuleDict({"pre": nn.LayerNorm(WIDTH), "post": nn.LayerNorm(WIDTH)})

    def forward(self, x):
        x = self.norms["pre"](x)
        for index, layer in enumerate(self.layers):
            x = x + layer(x) / (index + 1)
        return self.norms["post"](x)


class Options(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc = nn.Linear(WIDTH, WIDTH)

    def forward(self, x, *, normalize: bool = False, repeat: int = 1, mask=None, scale=None):
        for _ in range(repeat):
            x = self.fc(x)
        if normalize:
            x = torch.nn.functional.normalize(x, dim=-1)
        if mask is not None:
            x = x.masked_fill(mask, 0.0)
        return x * scale if scale is not None else x


class DictOutput(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.body = nn.Linear(WIDTH, WIDTH)
        self.head = nn.Linear(WIDTH, 3)

    def forward(self, x):
        hidden = torch.relu(self.body(x))
        return {"logits": self.head(hidden), "hidden": hidden, "count": 3}


@dataclass
class Prediction:
    logits: torch.Tensor
    hidden: torch.Tensor
    aux: torch.Tensor | None = None


class DataclassOutput(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.body = nn.Linear(WIDTH, WIDTH)
        self.head = nn.Linear(WIDTH, 3)

    def forward(self, x):
        hidden = torch.sigmoid(self.body(x))
        return Prediction(logits=self.head(hidden), hidden=hidden)


class BreakInLoop(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.layers = nn.ModuleList(nn.Linear(WIDTH, WIDTH) for _ in range(3))

    def forward(self, x):
        for layer in self.layers:
            x = torch.relu(layer(x))
            torch._dynamo.graph_break()
        return x.sum(dim=-1)


def _normalized(x: torch.Tensor) -> torch.Tensor:
    x = x - x.mean(dim=-1, keepdim=True)
    torch._dynamo.graph_break()  # inside a nested call: Dynamo inlines, breaks, resumes twice
    return x / (x.std(dim=-1, keepdim=True) + 1e-5)


class BreakInNestedCall(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.inner = nn.Linear(WIDTH, WIDTH)
        self.outer = nn.Linear(WIDTH, 4)

    def forward(self, x):
        return self.outer(_normalized(self.inner(x)))


class DataDependentBranch(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc = nn.Linear(WIDTH, WIDTH)

    def forward(self, x):
        y = self.fc(x)
        if y.sum() > 0:  # a data-dependent branch: a graph break on a tensor's value
            return y.relu()
        return -y


def _build_module(cls: type[nn.Module], kwargs: dict, seed: int) -> Built:
    torch.manual_seed(seed)
    return cls().eval(), (_inputs(seed, BATCH, WIDTH),), dict(kwargs)


def _shape(name: str, build, train: bool = False) -> Entry:
    return Entry(name, "torch", build, train)


def _module(name: str, cls: type[nn.Module], train: bool = False, **kwargs) -> Entry:
    """An entry whose target is ``cls()`` called on a (4, 16) input with ``kwargs``."""
    return _shape(name, functools.partial(_build_module, cls, kwargs), train)


ENTRIES = [
    _module("wrapped_forward", WrappedForward, train=True),
    _shape("closure", closure),
    _module("generator_over_locals", GeneratorOverLocals, train=True),
    _shape("sequential", sequential),
    _shape("nested_sequential", nested_sequential, train=True),
    _module("module_list", ModuleListLoop),
    _module("nontensor_kwargs", Options, normalize=True, repeat=2, mask=None, scale=None),
    _module("dict_output", DictOutput, train=True),
    _module("dataclass_output", DataclassOutput),
    _module("break_in_loop", BreakInLoop, train=True),
    _module("break_in_nested_call", BreakInNestedCall),
    _module("data_dependent_branch", DataDependentBranch),
]
