"""Run a pythonified corpus entry in this fresh process: ``fresh_model_run.py FILE NAME OUT``.

The entry is rebuilt from the corpus (seed 0); torch.compile is made unusable first, and the
Dynamo frames counted before and after the run must be the same (transformers imports Dynamo, so
its import proves nothing). Saves the flat results (corpus_outputs.call) and the frame count to OUT.
"""

from __future__ import annotations

import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))
import corpus  # noqa: E402
import corpus_outputs as outputs  # noqa: E402


def _forbidden(*args, **kwargs):
    raise RuntimeError("torch.compile was called by a pythonified file")


torch.compile = _forbidden


def _frames() -> int:
    if "torch._dynamo" not in sys.modules:
        return 0
    from torch._dynamo.utils import counters

    return sum(counters["frames"].values())


def main() -> None:
    path, name, out = sys.argv[1], sys.argv[2], sys.argv[3]
    entry = corpus.get(name)
    target, args, kwargs = entry.build(0)
    code = compile(Path(path).read_text(), path, "exec")

    def run_file(*call_args, **call_kwargs):
        namespace = {"target": target, "args": call_args, "kwargs": call_kwargs}
        exec(code, namespace)  # the exec() convention: the result is left in y
        return namespace["y"]

    before = _frames()
    flat = outputs.call(target, args, kwargs, entry.train, run=run_file)
    torch.save({"flat": flat, "dynamo_frames": _frames() - before}, out)


if __name__ == "__main__":
    main()
