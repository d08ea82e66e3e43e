"""Extra first-call compile time of glassbox.capture against plain torch.compile, over the zoo.

    .venv/bin/python bench/bench_capture.py [--backend aot_eager] [--repeat 5] [--models a,b]

For each model of the capture test zoo: the first call (compile included) of torch.compile with
an empty Dynamo cache, with and without capture, best of ``--repeat``; each round runs both, the
one that goes first alternating, so that neither always follows the other. Prints the ratio
capture/plain per model and over the whole zoo (sum of times). Target: at most 1.10.

The ``cpu`` columns take the main thread's CPU time (``time.thread_time``) instead of the clock,
best of the same rounds: on a machine shared with other work they move far less than the clock.
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


def first_call_seconds(name: str, backend: str, dump_dir: str | None) -> tuple[float, float]:
    """(clock, main-thread CPU) seconds of the first call."""
    torch._dynamo.reset()
    model, x = make(name)
    compiled = torch.compile(model, backend=backend)
    capture = glassbox.capture(dump_dir) if dump_dir else contextlib.nullcontext()
    with contextlib.redirect_stdout(io.StringIO()):
        start, start_cpu = time.perf_counter(), time.thread_time()
        with capture:
            compiled(x)
        return time.perf_counter() - start, time.thread_time() - start_cpu


def _row(name: str, plain: tuple[float, float], captured: tuple[float, float]) -> str:
    ratios = [c / p for p, c in zip(plain, captured, strict=True)]
    return (
        f"{name:<18}{plain[0]:>9.3f}{captured[0]:>9.3f}{ratios[0]:>8.3f}"
        f"{plain[1]:>12.3f}{captured[1]:>9.3f}{ratios[1]:>8.3f}"
    )


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
        totals = {False: [0.0, 0.0], True: [0.0, 0.0]}  # with capture? -> [clock, cpu]
        print(f"backend={args.backend}  best of {args.repeat}  (seconds, first call)")
        print(
            f"{'model':<18}{'plain':>9}{'capture':>9}{'ratio':>8}"
            f"{'cpu: plain':>12}{'capture':>9}{'ratio':>8}"
        )
        for name in names:
            best = {False: [float("inf")] * 2, True: [float("inf")] * 2}
            for round_ in range(args.repeat):
                for with_capture in (False, True) if round_ % 2 == 0 else (True, False):
                    dump = str(Path(tmp) / name) if with_capture else None
                    seconds = first_call_seconds(name, args.backend, dump)
                    pairs = zip(best[with_capture], seconds, strict=True)
                    best[with_capture] = [min(pair) for pair in pairs]
            for with_capture, (clock, cpu) in best.items():
                totals[with_capture][0] += clock
                totals[with_capture][1] += cpu
            print(_row(name, best[False], best[True]))
        print(_row("zoo (sum)", totals[False], totals[True]))
    torch._dynamo.reset()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
