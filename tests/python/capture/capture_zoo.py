"""A small model zoo for capture tests and the capture benchmark: tiny shapes, CPU."""

from __future__ import annotations

import torch
from torch import nn


class MLP(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.net = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 4))

    def forward(self, x):
        return self.net(x)


class CNN(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.conv = nn.Conv2d(2, 4, 3, padding=1)
        self.head = nn.Linear(4, 3)

    def forward(self, x):
        y = torch.relu(self.conv(x))
        return self.head(y.mean(dim=(2, 3)))


class TransformerBlock(nn.Module):
    def __init__(self, dim: int = 8, heads: int = 2) -> None:
        super().__init__()
        self.norm1 = nn.LayerNorm(dim)
        self.attn = nn.MultiheadAttention(dim, heads, batch_first=True)
        self.norm2 = nn.LayerNorm(dim)
        self.ff = nn.Sequential(nn.Linear(dim, 2 * dim), nn.GELU(), nn.Linear(2 * dim, dim))

    def forward(self, x):
        h = self.norm1(x)
        x = x + self.attn(h, h, h, need_weights=False)[0]
        return x + self.ff(self.norm2(x))


class Loop(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.layers = nn.ModuleList(nn.Linear(8, 8) for _ in range(3))

    def forward(self, x):
        for layer in self.layers:
            x = torch.tanh(layer(x)) + x
        return x


class BreakOnPrint(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.a = nn.Linear(8, 8)
        self.b = nn.Linear(8, 4)

    def forward(self, x):
        y = self.a(x).relu()
        print("glassbox zoo: graph break")  # graph break
        return self.b(y)


class BreakOnItem(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.a = nn.Linear(8, 4)

    def forward(self, x):
        y = self.a(x)
        scale = y.abs().max().item()  # graph break (no capture of scalar outputs)
        return y / (scale + 1.0)


class DataDependentBranch(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.a = nn.Linear(8, 4)

    def forward(self, x):
        y = self.a(x)
        if y.sum() > 0:  # graph break: a branch on a tensor's value
            return y * 2
        return y - 1


def _unsupported(t):
    """A call Dynamo cannot trace (it goes through a C extension on a Python object)."""
    return torch.from_numpy(t.detach().numpy().copy())


class UnsupportedCall(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.a = nn.Linear(8, 4)

    def forward(self, x):
        y = self.a(x)
        z = torch._dynamo.disable(_unsupported)(y)  # graph break: an explicitly skipped call
        return y + z


class Inner(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.lin = nn.Linear(8, 8)

    def forward(self, x):
        x = self.lin(x)
        print("glassbox zoo: break inside a nested module")
        return x.sigmoid()


class Nested(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.inner = Inner()
        self.out = nn.Linear(8, 2)

    def forward(self, x):
        with torch.no_grad():
            offset = x.mean()
        return self.out(self.inner(x) + offset)


def zoo() -> dict[str, tuple[type[nn.Module], tuple[int, ...]]]:
    """name -> (model class, input shape)."""
    return {
        "mlp": (MLP, (3, 8)),
        "cnn": (CNN, (2, 2, 5, 5)),
        "transformer": (TransformerBlock, (2, 3, 8)),
        "loop": (Loop, (3, 8)),
        "break_print": (BreakOnPrint, (3, 8)),
        "break_item": (BreakOnItem, (3, 8)),
        "data_branch": (DataDependentBranch, (3, 8)),
        "unsupported_call": (UnsupportedCall, (3, 8)),
        "nested": (Nested, (3, 8)),
    }


def make(name: str, seed: int = 0):
    """A fresh model and input of the zoo entry ``name``, the same for the same seed."""
    cls, shape = zoo()[name]
    torch.manual_seed(seed)
    model = cls()
    x = torch.randn(*shape)
    return model, x
