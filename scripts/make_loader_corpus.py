"""Seed corpus for fuzz_loader: a few small real .gbx artifacts exported with glassbox.export,
and programs with symbolic sizes (expression table, symbols) from graphs compiled with
``dynamic=True``.

python scripts/make_loader_corpus.py OUT_DIR
"""

from __future__ import annotations

import sys
from pathlib import Path

import torch

import glassbox


class FusedAttention(torch.nn.Module):
    """One projection split into q, k and v: an attention kernel reading three views of a slot."""

    def __init__(self) -> None:
        super().__init__()
        self.qkv = torch.nn.Linear(8, 24)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        q, k, v = (t.view(1, 3, 2, 4).transpose(1, 2) for t in self.qkv(x).split(8, dim=2))
        return torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True)


class Rotary(torch.nn.Module):
    """A projection's heads transposed and rotated (Llama's rotary embedding): the rotary kernel
    reading its input through a strided view."""

    def __init__(self) -> None:
        super().__init__()
        self.q = torch.nn.Linear(8, 8)
        self.register_buffer("cos", torch.randn(1, 1, 3, 4))
        self.register_buffer("sin", torch.randn(1, 1, 3, 4))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        q = self.q(x).view(1, 3, 2, 4).transpose(1, 2)
        rotated = torch.cat((-q[..., 2:], q[..., :2]), dim=-1)
        return q * self.cos + rotated * self.sin


def seed_models() -> dict[str, tuple[torch.nn.Module, tuple[torch.Tensor, ...]]]:
    torch.manual_seed(0)
    mlp = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.ReLU(), torch.nn.Linear(8, 2))
    conv = torch.nn.Sequential(torch.nn.Conv2d(1, 2, 3, padding=1), torch.nn.MaxPool2d(2))
    norm = torch.nn.Sequential(torch.nn.LayerNorm(6), torch.nn.Softmax(dim=-1))
    return {
        "mlp": (mlp.eval(), (torch.randn(2, 4),)),
        "conv": (conv.eval(), (torch.randn(1, 1, 6, 6),)),
        "norm": (norm.eval(), (torch.randn(3, 6),)),
        "fused_attention": (FusedAttention().eval(), (torch.randn(1, 3, 8),)),
        "rotary": (Rotary().eval(), (torch.randn(1, 3, 8),)),
    }


def symbolic_seeds() -> list[bytes]:
    """The artifacts of a dynamic-shape MLP and attention-like block, as the backend writes them
    (glassbox.export traces static shapes)."""
    from glassbox.backend import compiled

    captured: list[bytes] = []
    original = compiled.serialize

    def capture(*args, **kwargs):
        captured.append(original(*args, **kwargs))
        return captured[-1]

    def attention(x):
        return torch.softmax(x @ x.transpose(-1, -2), -1) @ x[:, :, :2]

    mlp, _ = seed_models()["mlp"]
    compiled.serialize = capture
    try:
        for fn, x in ((mlp, torch.randn(3, 4)), (attention, torch.randn(2, 5, 4))):
            torch._dynamo.reset()
            with torch.no_grad():
                torch.compile(fn, backend="glassbox", dynamic=True)(x)
    finally:
        compiled.serialize = original
    return captured


def main(out_dir: str) -> None:
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    for name, (model, args) in seed_models().items():
        glassbox.export(model, args, str(out / f"{name}.gbx"))
    for k, data in enumerate(symbolic_seeds()):
        (out / f"symbolic{k}.gbx").write_bytes(data)
    print(f"wrote {len(list(out.glob('*.gbx')))} seed artifacts to {out}")


if __name__ == "__main__":
    main(sys.argv[1])
