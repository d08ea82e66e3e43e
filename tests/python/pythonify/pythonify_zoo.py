"""Small models for the pythonify tests: each is rebuilt from a seed in any process."""

from __future__ import annotations

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


def build(name: str, seed: int = 0) -> torch.nn.Module:
    torch.manual_seed(seed)
    return {"MLP": MLP, "BreakNorm": BreakNorm, "Branchy": Branchy}[name]()


def inputs(name: str, seed: int = 1, batch: int = 3):
    generator = torch.Generator().manual_seed(seed)
    x = torch.randn(batch, 4, generator=generator)
    if name == "Branchy":
        return (x,), {"bias": torch.randn(4, generator=generator)}
    return (x,), {}
