"""Timings over the real-model corpus (tests/python/models): capture's extra first-call time
and a pythonified file's per-call overhead against torch.compile's, as ratios from one run.

    .venv/bin/python bench/bench_models.py [--models gpt2,bert,...|all] [--repeat 3]
        [--backend aot_eager] [--pythonify-models gpt2,dict_output] [--calls 200] [--threads 1]

capture: for each entry, the first call (compile included, an empty Dynamo cache) of
torch.compile with and without ``glassbox.capture``, best of ``--repeat``, the one that goes
first alternating per round; the ratio capture/plain per entry and over the sum (target: at most
1.10), by the clock and by the main thread's CPU time (which moves less on a shared machine).
An entry whose run raises (a capture bug, listed by the sweep) is left out of the sum.

pythonify: for each of ``--pythonify-models`` (inference, no_grad), the per-call time of the
pythonified file's ``run(target, ...)`` and of the torch.compile'd target, interleaved in blocks,
medians; the ratio pythonified/torch.compile (1.0: no overhead). A model pythonify refuses is
reported as refused. Torch runs on one thread unless ``--threads`` says otherwise: on these
tiny models, a loaded machine's OpenMP joins would swamp the calls themselves.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "python" / "models"))

import corpus  # noqa: E402
import corpus_outputs as outputs  # noqa: E402
import torch  # noqa: E402

import glassbox  # noqa: E402

DEFAULT_MODELS = "gpt2,llama,bert,distilbert,t5,bart,vit,resnet,wav2vec2,clip,module_list"
PYTHONIFY_MODELS = "bert,llama,t5,bart,dict_output,break_in_nested_call"


def first_call(entry: corpus.Entry, backend: str, dump_dir: str | None) -> tuple[float, float]:
    """(clock, main-thread CPU) seconds of the entry's first compiled call."""
    torch._dynamo.reset()
    target, args, kwargs = entry.build(0)
    compiled = torch.compile(target, backend=backend)
    capture = glassbox.capture(dump_dir) if dump_dir else contextlib.nullcontext()
    with contextlib.redirect_stdout(io.StringIO()):
        start, start_cpu = time.perf_counter(), time.thread_time()
        with capture:
            outputs.call(target, args, kwargs, entry.train, run=compiled)
        return time.perf_counter() - start, time.thread_time() - start_cpu


def best_of(entry: corpus.Entry, backend: str, repeat: int, tmp: Path) -> dict[bool, list]:
    """With capture? -> the best (clock, CPU) seconds over ``repeat`` rounds, order alternating."""
    best = {False: [float("inf")] * 2, True: [float("inf")] * 2}
    for round_ in range(repeat):
        for with_capture in (False, True) if round_ % 2 == 0 else (True, False):
            dump = str(tmp / entry.name) if with_capture else None
            seconds = first_call(entry, backend, dump)
            best[with_capture] = [
                min(pair) for pair in zip(best[with_capture], seconds, strict=True)
            ]
    return best


def capture_ratios(names: list[str], backend: str, repeat: int, tmp: Path) -> None:
    print(f"capture, backend={backend}, best of {repeat} (seconds, first call)")
    print(f"{'entry':<22}{'plain':>8}{'capture':>9}{'ratio':>7}{'cpu plain':>11}{'capture':>9}"
          f"{'ratio':>7}")  # fmt: skip
    totals = {False: [0.0, 0.0], True: [0.0, 0.0]}
    for name in names:
        try:
            best = best_of(corpus.get(name), backend, repeat, tmp)
        except Exception as error:  # a glassbox bug the sweep reports: not timed, not summed
            print(f"{name:<22}left out: {type(error).__name__}: {str(error)[:80]}", flush=True)
            continue
        for with_capture, seconds in best.items():
            totals[with_capture] = [
                sum(pair) for pair in zip(totals[with_capture], seconds, strict=True)
            ]
        print(_row(name, best[False], best[True]), flush=True)
    print(_row("corpus (sum)", totals[False], totals[True]))


def _row(name: str, plain: list[float], captured: list[float]) -> str:
    ratios = [c / p for p, c in zip(plain, captured, strict=True)]
    return (
        f"{name:<22}{plain[0]:>8.2f}{captured[0]:>9.2f}{ratios[0]:>7.3f}"
        f"{plain[1]:>11.2f}{captured[1]:>9.2f}{ratios[1]:>7.3f}"
    )


def per_call_ratio(entry: corpus.Entry, backend: str, calls: int, tmp: Path) -> str:
    """Per-call microseconds of the pythonified run() and of torch.compile, and their ratio."""
    from glassbox.pythonify import PythonifyError

    torch._dynamo.reset()
    target, args, kwargs = entry.build(0)
    path = tmp / f"{entry.name}.py"
    with torch.no_grad():
        try:
            glassbox.pythonify(target, args, path, example_kwargs=kwargs, backend=backend)
        except PythonifyError as error:
            return f"refused: {str(error).splitlines()[0][:100]}"
        namespace: dict = {"__name__": f"{entry.name}_pythonified"}
        exec(compile(path.read_text(), str(path), "exec"), namespace)
        torch._dynamo.reset()
        compiled = torch.compile(target, backend=backend)
        candidates = {
            "torch.compile": lambda: compiled(*args, **kwargs),
            "pythonified": lambda: namespace["run"](target, *args, **kwargs),
        }
        times = _interleaved(candidates, calls)
    compiled_us, pythonified_us = times["torch.compile"], times["pythonified"]
    return (
        f"torch.compile {compiled_us:.1f} us, pythonified {pythonified_us:.1f} us, "
        f"ratio {pythonified_us / compiled_us:.3f}"
    )


def _interleaved(candidates: dict, calls: int, blocks: int = 15) -> dict[str, float]:
    """Median microseconds per call over blocks of ``calls // blocks`` calls, taken in turn."""
    per_block = max(1, calls // blocks)
    for run in candidates.values():
        for _ in range(5):
            run()  # warm-up (the compile happens here)
    samples: dict[str, list[float]] = {name: [] for name in candidates}
    for _ in range(blocks):
        for name, run in candidates.items():
            start = time.perf_counter()
            for _ in range(per_block):
                run()
            samples[name].append((time.perf_counter() - start) / per_block * 1e6)
    return {name: statistics.median(values) for name, values in samples.items()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", default=DEFAULT_MODELS, help="entries, or 'all'")
    parser.add_argument("--backend", default="aot_eager")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--pythonify-models", default=PYTHONIFY_MODELS)
    parser.add_argument("--calls", type=int, default=300)
    parser.add_argument("--threads", type=int, default=1, help="torch threads (0: leave as is)")
    options = parser.parse_args(argv)
    if options.threads:  # tiny models: OpenMP joins on a loaded machine swamp the call itself
        torch.set_num_threads(options.threads)
    names = list(corpus.entries()) if options.models == "all" else options.models.split(",")
    with tempfile.TemporaryDirectory() as tmp:
        first_call(corpus.get(names[0]), options.backend, None)  # warm-up: imports, caches
        if options.repeat > 0:
            capture_ratios(names, options.backend, options.repeat, Path(tmp))
        print(f"\npythonify per-call overhead, backend={options.backend}, inference")
        for name in filter(None, options.pythonify_models.split(",")):
            result = per_call_ratio(corpus.get(name), options.backend, options.calls, Path(tmp))
            print(f"{name:<22}{result}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
