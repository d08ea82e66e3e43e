"""Extra first-call compile time of glassbox.capture against plain torch.compile, over the zoo.

    .venv/bin/python bench/bench_capture.py [--backend aot_eager] [--repeat 5] [--models a,b]

For each model of the capture test zoo: the first call (compile included) of torch.compile with
an empty Dynamo cache, with and without capture, best of ``--repeat``; each round runs both, the
one that goes first alternating, so that neither always follows the other. Prints the ratio
capture/plain per model and over the whole zoo (sum of times). Target: at most 1.10.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "python" / "capture"))

import torch  # noqa: E402
from capture_zoo import make, zoo  # noqa: E402

import glassbox  # noqa: E402


def first_call_seconds(name: str, backend: str, dump_dir: str | None) -> float:
    torch._dynamo.reset()
    model, x = make(name)
    compiled = torch.compile(model, backend=backend)
    capture = glassbox.capture(dump_dir) if dump_dir else contextlib.nullcontext()
    with contextlib.redirect_stdout(io.StringIO()):
        start = time.perf_counter()
        with capture:
            compiled(x)
        return time.perf_counter() - start


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backend", default="aot_eager")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--models", default=",".join(zoo()))
    args = parser.parse_args(argv)
    names = args.models.split(",")
    with tempfile.TemporaryDirectory() as tmp:
        first_call_seconds(names[0], args.backend, None)  # warm-up: imports, first-time caches
        first_call_seconds(names[0], args.backend, str(Path(tmp) / "warm"))
        totals = [0.0, 0.0]
        print(f"backend={args.backend}  best of {args.repeat}  (seconds, first call)")
        print(f"{'model':<18}{'plain':>9}{'capture':>9}{'ratio':>8}")
        for name in names:
            best = {False: float("inf"), True: float("inf")}  # with capture? -> seconds
            for round_ in range(args.repeat):
                for with_capture in (False, True) if round_ % 2 == 0 else (True, False):
                    dump = str(Path(tmp) / name) if with_capture else None
                    seconds = first_call_seconds(name, args.backend, dump)
                    best[with_capture] = min(best[with_capture], seconds)
            plain, captured = best[False], best[True]
            totals[0] += plain
            totals[1] += captured
            print(f"{name:<18}{plain:>9.3f}{captured:>9.3f}{captured / plain:>8.3f}")
        print(f"{'zoo (sum)':<18}{totals[0]:>9.3f}{totals[1]:>9.3f}{totals[1] / totals[0]:>8.3f}")
    torch._dynamo.reset()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
