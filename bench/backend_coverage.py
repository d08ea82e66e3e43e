"""How much of real models' inference graphs the glassbox backend runs natively.

For Hugging Face architectures built from small configs (2 layers, d 128, random weights, batch 1,
16 tokens; no download: HF_HUB_OFFLINE=1), compiles each with ``backend="glassbox"`` under
``torch.no_grad()``, runs it, and prints per architecture: the native share of the inference
graphs' nodes, the segments of each graph (native and fallback runs; 1 is one native segment),
the fallback ops with their counts, and the largest absolute difference from eager:

    .venv/bin/python bench/backend_coverage.py [--models gpt2,bert,...] [--verbose]

Needs transformers (``pip install -c requirements/constraints.txt transformers==5.24.0``).
Not a test: it reports, and exits 0 whatever it finds (an architecture that fails to build or run
is a row saying why).
"""

from __future__ import annotations

import argparse
import collections
import os
import sys
import traceback

import torch  # noqa: E402

import glassbox  # noqa: E402,F401  (registers the backend)
from glassbox.backend import REPORTS, register  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from hf_models import SMALL, build, tensors_of  # noqa: E402

register()

MODELS = "gpt2,bert,llama,t5,vit,opt,bloom,mistral,qwen2,distilbert,roberta,bart,deit"


def measure(name) -> dict:
    torch.manual_seed(0)
    model, kwargs = build(name)
    model.eval()
    torch._dynamo.reset()
    compiled = torch.compile(model, backend="glassbox", dynamic=False)
    with torch.no_grad():
        expected = tensors_of(model(**kwargs))
        start = len(REPORTS)
        actual = tensors_of(compiled(**kwargs))
        reports = REPORTS[start:]
    diff = max(
        ((a - e).abs().max().item() for a, e in zip(actual, expected, strict=True) if e.numel()),
        default=0.0,
    )
    return {"reports": reports, "diff": diff}


def row(name, result) -> str:
    reports = result["reports"]
    total = sum(r.total_nodes for r in reports)
    native = sum(r.native_nodes for r in reports)
    fallback: collections.Counter = collections.Counter()
    for r in reports:
        fallback.update(r.fallback_ops)
    segments = ",".join(str(r.segments) for r in reports)
    ops = ", ".join(f"{op.replace('aten.', '')} x{n}" for op, n in fallback.most_common())
    share = 100 * native / total if total else 100.0
    return (
        f"{name:10} {len(reports):>6} {native:>5}/{total:<5} {share:6.1f}% {segments:>9} "
        f"{result['diff']:9.1e}  {ops or '-'}"
    )


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--models", default=MODELS)
    p.add_argument("--verbose", action="store_true", help="print each graph's report")
    args = p.parse_args()
    torch.set_num_threads(max(1, torch.get_num_threads()))
    print(f"torch {torch.__version__}; {SMALL.describe()}")
    print(f"{'model':10} {'graphs':>6} {'native':>11} {'share':>7} {'segments':>9} "
          f"{'max |diff|':>9}  fallback ops")  # fmt: skip
    totals = collections.Counter()
    for name in args.models.split(","):
        try:
            result = measure(name)
        except Exception as e:  # a row that says why, and on to the next architecture
            print(f"{name:10} failed: {type(e).__name__}: {str(e).splitlines()[0][:120]}")
            if args.verbose:
                traceback.print_exc()
            continue
        print(row(name, result), flush=True)
        for r in result["reports"]:
            totals["graphs"] += 1
            totals["one segment"] += r.segments == 1 and r.native_nodes == r.total_nodes
            totals["nodes"] += r.total_nodes
            totals["native"] += r.native_nodes
            if args.verbose:
                print("   ", r)
    if totals["graphs"]:
        print(
            f"all: {100 * totals['native'] / max(1, totals['nodes']):.2f}% of "
            f"{totals['nodes']} nodes native; {totals['one segment']}/{totals['graphs']} graphs "
            "are one native segment"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
