"""Interleaved timing for the benchmarks: the functions compared are called in turn, one call each
per round, so that a change in the machine's load while measuring weighs on all of them alike."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Mapping


def interleaved(
    fns: Mapping[str, Callable], seconds: float, *args, min_rounds: int = 5, **kwargs
) -> dict[str, float]:
    """Median seconds per call of each function over about ``seconds`` each (at least
    ``min_rounds`` rounds), after three warm-up calls of each."""
    for fn in fns.values():
        for _ in range(3):
            fn(*args, **kwargs)
    times: dict[str, list[float]] = {key: [] for key in fns}
    end = time.perf_counter() + seconds * len(fns)
    first = next(iter(fns))
    while time.perf_counter() < end or len(times[first]) < min_rounds:
        for key, fn in fns.items():
            t0 = time.perf_counter()
            fn(*args, **kwargs)
            times[key].append(time.perf_counter() - t0)
    return {key: statistics.median(t) for key, t in times.items()}


def three_runners(model) -> dict[str, Callable]:
    """The model in eval mode, called as it is (eager), compiled by Inductor, and by glassbox
    (``dynamic=False``; each compile from an empty Dynamo cache)."""
    import torch

    model.eval()
    runners = {"eager": model}
    for backend in ("inductor", "glassbox"):
        torch._dynamo.reset()
        runners[backend] = torch.compile(model, backend=backend, dynamic=False)
    return runners
