"""Run a pythonified file in this (fresh) process: ``fresh_run.py FILE MODEL SEED OUT [BATCH]``.

The model is rebuilt from its seed; torch.compile and Dynamo are made unusable first, and the
process checks at the end that Dynamo was never imported (aot_eager) or never ran a frame.
Saves the output, the input's and parameters' gradients and the buffers to OUT (torch.save).
"""

from __future__ import annotations

import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).parent))
import pythonify_zoo as zoo  # noqa: E402


def _forbidden(*args, **kwargs):
    raise AssertionError("torch.compile was called by a pythonified file")


torch.compile = _forbidden


def main() -> None:
    path, name, seed, out = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
    batch = int(sys.argv[5]) if len(sys.argv) > 5 else 3
    train = "--eval" not in sys.argv
    model = zoo.build(name, seed)
    model.train(train)
    args, kwargs = zoo.inputs(name, batch=batch)
    x = args[0].requires_grad_(train)
    namespace = {"target": model, "args": args, "kwargs": kwargs}
    exec(compile(Path(path).read_text(), path, "exec"), namespace)  # the exec() convention
    y = zoo.tensor_of(namespace["y"])
    result = {"y": y.detach(), "buffers": {k: v.clone() for k, v in model.named_buffers()}}
    if train:
        y.sum().backward()
        result["x.grad"] = x.grad
        result["grads"] = {k: p.grad for k, p in model.named_parameters()}
    result["dynamo_imported"] = "torch._dynamo" in sys.modules
    if result["dynamo_imported"]:
        from torch._dynamo.utils import counters

        result["dynamo_frames"] = sum(counters["frames"].values())
    torch.save(result, out)


if __name__ == "__main__":
    main()
