"""Small models for the pythonify tests: each is rebuilt from a seed in any process."""

from __future__ import annotations

import dataclasses
import functools

import torch


class MLP(torch.nn.Module):
    """Nested modules, a kwarg with a default."""

    def __init__(self) -> None:
        super().__init__()
        self.body = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.ReLU())
        self.head = torch.nn.Linear(8, 3)

    def forward(self, x, scale=1.0):
        return self.head(self.body(x)) * scale


class BreakNorm(torch.nn.Module):
    """A graph break (print), BatchNorm running statistics updated in training, a buffer."""

    def __init__(self) -> None:
        super().__init__()
        self.fc = torch.nn.Linear(4, 4)
        self.bn = torch.nn.BatchNorm1d(4)
        self.register_buffer("offset", torch.linspace(-1, 1, 4))

    def forward(self, x):
        h = self.bn(self.fc(x)).relu()
        print("BreakNorm: graph break")
        return (h + self.offset).tanh().sum(dim=1)


class Branchy(torch.nn.Module):
    """A data-dependent Python branch: a graph break whose resume path depends on a value."""

    def __init__(self) -> None:
        super().__init__()
        self.fc = torch.nn.Linear(4, 4)

    def forward(self, x, *, bias=None):
        h = self.fc(x)
        if bias is not None:
            h = h + bias
        return h.sin()


def scaled(factor: float):
    """A decorator as transformers writes them (functools.wraps; the wrapped function in a cell)."""

    def decorate(function):
        @functools.wraps(function)
        def wrapper(self, *args, **kwargs):
            return function(self, *args, **kwargs) * factor

        return wrapper

    return decorate


class Decorated(torch.nn.Module):
    """A decorated forward: Dynamo enters the wrapper, whose code has free variables."""

    def __init__(self) -> None:
        super().__init__()
        self.fc = torch.nn.Linear(4, 4)

    @scaled(0.5)
    def forward(self, x, *, flag=True, mode="tanh", n=2, extra=None):
        h = self.fc(x)
        for _ in range(n):
            h = getattr(torch, mode)(h) if flag else h
        return h if extra is None else h + extra


class Closures(torch.nn.Module):
    """Inner functions over forward's locals (cell variables) and a generator expression."""

    def __init__(self) -> None:
        super().__init__()
        self.fcs = torch.nn.ModuleList([torch.nn.Linear(4, 4) for _ in range(3)])

    def forward(self, x):
        scale = x.shape[-1] ** -0.5

        def layer(i, h):
            return self.fcs[i](h).relu() * scale

        parts = [layer(i, x) for i in range(3)]
        return sum(p.sin() for p in parts)


@dataclasses.dataclass
class Result:
    value: torch.Tensor
    aux: torch.Tensor


class Outputs(torch.nn.Module):
    """A dict and a dataclass in the output."""

    def __init__(self) -> None:
        super().__init__()
        self.fc = torch.nn.Linear(4, 4)

    def forward(self, x):
        h = self.fc(x)
        return {"result": Result(h.relu(), h.sum(dim=1)), "x": x.cos()}


class Inner(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc = torch.nn.Linear(4, 4)

    def forward(self, x):
        h = self.fc(x).relu()
        torch._dynamo.graph_break()
        return h * 2


class NestedBreak(torch.nn.Module):
    """A graph break inside a nested call."""

    def __init__(self) -> None:
        super().__init__()
        self.inner = Inner()
        self.fc = torch.nn.Linear(4, 4)

    def forward(self, x):
        h = self.inner(self.fc(x))
        return h + h.tanh()


class NestedLoopBreak(NestedBreak):
    """A graph break inside a nested call made in a loop."""

    def forward(self, x):
        h = self.fc(x)
        for _ in range(2):
            h = h + self.inner(h).tanh()
        return h


class LoopBreak(torch.nn.Module):
    """A graph break inside a loop of forward itself: Dynamo skips forward, compiles the blocks."""

    def __init__(self) -> None:
        super().__init__()
        self.blocks = torch.nn.ModuleList([Inner() for _ in range(2)])

    def forward(self, x):
        for block in self.blocks:
            x = block(x)
            torch._dynamo.graph_break()
        return x


def sequential() -> torch.nn.Module:
    return torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.ReLU(), torch.nn.Linear(8, 4))


class NoGradBreak(torch.nn.Module):
    """A forward under @torch.no_grad() with a graph break: Dynamo compiles the decorator's
    wrapper, whose code passes the cell of its free variable (the wrapped function) on."""

    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(4, 4)

    @torch.no_grad()
    def forward(self, x):
        y = self.lin(x) * 2
        print("glassbox-zoo")
        return self.lin(y)


class Aliases(torch.nn.Module):
    """Outputs that alias: an intermediate returned with its views, the input and its
    transpose (AOT: alias_of_intermediate_base_is_user_output, is_input, alias_of_input). With
    dynamic shapes the view's size is symbolic: AOT replays the output's own view instead."""

    def __init__(self) -> None:
        super().__init__()
        self.fc = torch.nn.Linear(4, 4)

    def forward(self, x):
        y = self.fc(x)
        return y, y.view(x.shape[0], 2, 2), y[0], x, x.t()


class IntermediateBases(torch.nn.Module):
    """Two views of one intermediate that is not returned (AOT returns it as an intermediate
    base), a product, and a view of a view of the input."""

    def __init__(self) -> None:
        super().__init__()
        self.fc = torch.nn.Linear(4, 4)

    def forward(self, x):
        y = self.fc(x).relu()
        return y.view(-1), y.t(), y * 2, x.view(-1)[1:].unsqueeze(0)


class InplaceViews(torch.nn.Module):
    """Views of an intermediate changed in place (ViewMetas of in-place views: transpose_)."""

    def __init__(self) -> None:
        super().__init__()
        self.fc = torch.nn.Linear(4, 4)

    def forward(self, x):
        y = self.fc(x)
        z = y.view(-1, 2)
        z.transpose_(0, 1)
        return y, z, y.unsqueeze(0).squeeze_(0)


class Passthrough(torch.nn.Module):
    """Returns its input and a detached alias: under no_grad a graph without calls (Inductor
    runs the FX graph itself)."""

    def forward(self, x):
        return x.detach(), x


def hf_bert() -> torch.nn.Module:
    """A tiny BERT (random weights, offline): a ModelOutput built in Dynamo's output code, and a
    guard on a global Dynamo installed by id."""
    import transformers

    config = transformers.BertConfig(
        num_hidden_layers=2, hidden_size=64, num_attention_heads=2, intermediate_size=128,
        vocab_size=100, max_position_embeddings=32,
    )  # fmt: skip
    return transformers.BertModel(config)


MODELS = {
    "MLP": MLP, "BreakNorm": BreakNorm, "Branchy": Branchy, "Decorated": Decorated,
    "Closures": Closures, "Outputs": Outputs, "NestedBreak": NestedBreak, "LoopBreak": LoopBreak,
    "NestedLoopBreak": NestedLoopBreak,
    "Sequential": sequential, "HFBert": hf_bert, "NoGradBreak": NoGradBreak,
    "Aliases": Aliases, "IntermediateBases": IntermediateBases, "InplaceViews": InplaceViews,
    "Passthrough": Passthrough,
}  # fmt: skip


def build(name: str, seed: int = 0) -> torch.nn.Module:
    torch.manual_seed(seed)
    return MODELS[name]()


def inputs(name: str, seed: int = 1, batch: int = 3):
    generator = torch.Generator().manual_seed(seed)
    if name == "HFBert":
        return (torch.randint(0, 100, (batch, 8), generator=generator),), {}
    x = torch.randn(batch, 4, generator=generator)
    if name == "Branchy":
        return (x,), {"bias": torch.randn(4, generator=generator)}
    if name == "Decorated":
        return (x,), {"flag": True, "mode": "sigmoid", "n": 3, "extra": None}
    return (x,), {}


def tensor_of(output) -> torch.Tensor:
    """One tensor standing for an output (a dict or dataclass of tensors: theirs, concatenated)."""
    if isinstance(output, torch.Tensor):
        return output
    if dataclasses.is_dataclass(output):
        output = {f.name: getattr(output, f.name) for f in dataclasses.fields(output)}
    values = output if isinstance(output, (tuple, list)) else output.values()
    return torch.cat([tensor_of(v).flatten() for v in values if v is not None])
