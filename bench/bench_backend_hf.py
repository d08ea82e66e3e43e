"""The glassbox backend against eager and Inductor on Hugging Face architectures, in one run.

Each model is built from a config (random weights, no download; ``hf_models.py``) and compiled
with ``dynamic=False`` by Inductor and by glassbox; under ``torch.no_grad()`` the three are called
in turn (median of interleaved calls) at each batch:

    .venv/bin/python bench/bench_backend_hf.py [--models gpt2,bert,llama,t5,vit]
        [--wide gpt2,bert] [--batches 1x16,8x128] [--seconds 1.0]

``--models`` run at small widths (d 128, 4 heads, 2 layers); ``--wide`` at GPT-2 small's widths
(d 768, 12 heads, 2 layers; GPT-2 keeps its 50257-word vocabulary). The table gives per model
and batch: the native share of the graph's nodes and its segments (1: one native program), the
median call of each, the ratios (above 1: glassbox faster), and glassbox's largest difference
from eager. Not a test: the figures depend on the machine and its load.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import sys

import torch

import glassbox  # noqa: F401  (registers the backend)
from glassbox.backend import REPORTS, register

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from hf_models import GPT2_SMALL_WIDTH, SMALL, build, tensors_of  # noqa: E402
from timing import interleaved, three_runners  # noqa: E402

register()


def measure(name: str, size, seconds: float) -> dict:
    torch.manual_seed(0)
    model, kwargs = build(name, size)
    runners = three_runners(model)
    with torch.no_grad():
        expected = tensors_of(model(**kwargs))
        start = len(REPORTS)
        actual = tensors_of(runners["glassbox"](**kwargs))
        reports = REPORTS[start:]
        runners["inductor"](**kwargs)
        times = interleaved(runners, seconds, **kwargs)
    pairs = zip(actual, expected, strict=True)
    diff = max((float((a - e).abs().max()) for a, e in pairs if e.numel()), default=0.0)
    total = sum(r.total_nodes for r in reports)
    native = sum(r.native_nodes for r in reports)
    return {
        "times": times,
        "share": native / total if total else 1.0,
        "segments": ",".join(str(r.segments) for r in reports) or "-",
        "diff": diff,
    }


def row(label: str, batch: str, m: dict) -> str:
    t = m["times"]
    return (
        f"| {label} | {batch} | {100 * m['share']:.1f}% | {m['segments']} | "
        f"{t['eager'] * 1e3:.3f} | {t['inductor'] * 1e3:.3f} | {t['glassbox'] * 1e3:.3f} | "
        f"{t['eager'] / t['glassbox']:.2f}× | {t['inductor'] / t['glassbox']:.2f}× | "
        f"{m['diff']:.1e} |"
    )


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--models", default="gpt2,bert,llama,t5,vit")
    p.add_argument("--wide", default="gpt2,bert")
    p.add_argument("--batches", default="1x16,8x128", help="batch x tokens, comma-separated")
    p.add_argument("--seconds", type=float, default=1.0, help="per runner and row")
    args = p.parse_args()
    print(f"torch {torch.__version__}, {torch.get_num_threads()} threads, load {os.getloadavg()}")
    print("| model | batch x tokens | native | segments | eager ms | Inductor ms | glassbox ms "
          "| vs eager | vs Inductor | max \\|diff\\| |")  # fmt: skip
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    plan = [(n, SMALL, "d 128") for n in args.models.split(",") if n]
    plan += [(n, GPT2_SMALL_WIDTH, "d 768") for n in args.wide.split(",") if n]
    for name, base, width in plan:
        for spec in args.batches.split(","):
            batch, tokens = (int(v) for v in spec.split("x"))
            size = dataclasses.replace(base, batch=batch, tokens=tokens)
            label = f"{name} ({width})"
            try:
                print(row(label, spec, measure(name, size, args.seconds)), flush=True)
            except Exception as e:  # a row that says why, and on to the next
                print(f"| {label} | {spec} | failed: {type(e).__name__}: {str(e)[:100]} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
