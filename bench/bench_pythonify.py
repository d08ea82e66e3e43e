"""Per-call overhead of a pythonified callable against torch.compile's, on a tiny model.

Usage: python bench/bench_pythonify.py [--backend aot_eager|inductor] [--calls N]
Prints microseconds per call for: eager, torch.compile, the pythonified file's run(), and the
ratio pythonified / torch.compile (target: <= 1, no slower). Inference (no_grad) and training
forward are measured separately. The model is tiny so the time is mostly overhead.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import torch

import glassbox


class Tiny(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc = torch.nn.Linear(8, 8)

    def forward(self, x):
        return self.fc(x).relu()


def per_call(fn, x, calls: int) -> float:
    for _ in range(20):
        fn(x)
    best = float("inf")
    for _ in range(5):
        start = time.perf_counter()
        for _ in range(calls):
            fn(x)
        best = min(best, (time.perf_counter() - start) / calls)
    return best * 1e6


def measure(backend: str, calls: int, grad: bool) -> dict:
    torch._dynamo.reset()
    torch.manual_seed(0)
    model = Tiny()
    x = torch.randn(2, 8)
    context = torch.enable_grad() if grad else torch.no_grad()
    with context, tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "tiny.py"
        glassbox.pythonify(model, (x,), path, backend=backend)
        namespace = {"__name__": "tiny_pythonified"}
        exec(compile(path.read_text(), str(path), "exec"), namespace)
        run = namespace["run"]
        torch._dynamo.reset()
        compiled = torch.compile(model, backend=backend)
        compiled(x)
        out = {
            "eager": per_call(model, x, calls),
            "torch.compile": per_call(compiled, x, calls),
            "pythonified": per_call(lambda v: run(model, v), x, calls),
        }
    out["ratio"] = out["pythonified"] / out["torch.compile"]
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--backend", default="aot_eager")
    parser.add_argument("--calls", type=int, default=500)
    options = parser.parse_args()
    for grad in (False, True):
        r = measure(options.backend, options.calls, grad)
        label = "training forward" if grad else "inference (no_grad)"
        print(
            f"{options.backend} {label}: eager {r['eager']:.1f} us, torch.compile "
            f"{r['torch.compile']:.1f} us, pythonified {r['pythonified']:.1f} us, "
            f"ratio pythonified/torch.compile = {r['ratio']:.2f}"
        )


if __name__ == "__main__":
    main()
