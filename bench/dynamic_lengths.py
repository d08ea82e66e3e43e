"""Dynamic shapes on Hugging Face decoders: one compile over many sequence lengths.

Compiles each model with ``torch.compile(model, backend="glassbox", dynamic=True)`` under
``torch.no_grad()`` (the ``bench/hf_models.py`` configs, ``use_cache=False``), runs it at every
sequence length from 1 to --max-length, and prints per model: how many graphs Dynamo compiled,
each graph's native share of nodes and segments, and the largest difference from eager over all
lengths:

    .venv/bin/python bench/dynamic_lengths.py [--models gpt2,llama] [--max-length 64]

Needs transformers (``pip install -c requirements/constraints.txt transformers==5.24.0``).
"""

from __future__ import annotations

import argparse
import os
import sys

import torch

from glassbox.backend import REPORTS, register

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from hf_models import SMALL, build  # noqa: E402

register()


def measure(name: str, max_length: int) -> str:
    from torch._dynamo.utils import counters

    torch.manual_seed(0)
    model, kwargs = build(name, SMALL)
    model.eval()
    vocab = model.config.vocab_size
    torch._dynamo.reset()
    graphs, start = counters["stats"]["unique_graphs"], len(REPORTS)
    compiled = torch.compile(model, backend="glassbox", dynamic=True)
    worst = 0.0
    with torch.no_grad():
        for length in range(1, max_length + 1):
            ids = torch.randint(0, vocab, (1, length))
            got = compiled(input_ids=ids, use_cache=False).logits
            want = model(input_ids=ids, use_cache=False).logits
            worst = max(worst, (got - want).abs().max().item())
    shares = ", ".join(f"{r.native_share:.1%} ({r.segments} segments)" for r in REPORTS[start:])
    count = counters["stats"]["unique_graphs"] - graphs
    return f"| {name} | 1-{max_length} | {count} | {shares} | {worst:.1e} |"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", default="gpt2,llama")
    parser.add_argument("--max-length", type=int, default=64)
    args = parser.parse_args()
    print("| model | lengths | graphs | native share of each graph | max \\|diff\\| |")
    print("|---|---|---:|---|---:|")
    for name in args.models.split(","):
        print(measure(name, args.max_length), flush=True)


if __name__ == "__main__":
    main()
