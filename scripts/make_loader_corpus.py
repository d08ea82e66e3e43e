"""Seed corpus for fuzz_loader: a few small real .gbx artifacts exported with glassbox.export.

python scripts/make_loader_corpus.py OUT_DIR
"""

from __future__ import annotations

import sys
from pathlib import Path

import torch

import glassbox


def seed_models() -> dict[str, tuple[torch.nn.Module, tuple[torch.Tensor, ...]]]:
    torch.manual_seed(0)
    mlp = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.ReLU(), torch.nn.Linear(8, 2))
    conv = torch.nn.Sequential(torch.nn.Conv2d(1, 2, 3, padding=1), torch.nn.MaxPool2d(2))
    norm = torch.nn.Sequential(torch.nn.LayerNorm(6), torch.nn.Softmax(dim=-1))
    return {
        "mlp": (mlp.eval(), (torch.randn(2, 4),)),
        "conv": (conv.eval(), (torch.randn(1, 1, 6, 6),)),
        "norm": (norm.eval(), (torch.randn(3, 6),)),
    }


def main(out_dir: str) -> None:
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    for name, (model, args) in seed_models().items():
        glassbox.export(model, args, str(out / f"{name}.gbx"))
    print(f"wrote {len(list(out.glob('*.gbx')))} seed artifacts to {out}")


if __name__ == "__main__":
    main(sys.argv[1])
