"""Peak memory of `glassbox-run` on an exported GPT-2 against the size of the model's weights plus
its largest activation set:

    .venv/bin/python bench/bench_artifact_memory.py [--layers 12] [--d 768] [--heads 12]
        [--vocab 50257] [--tokens 16] [--keep DIR]

Builds GPT2LMHeadModel from a GPT2Config (GPT-2 small by default: 124M parameters, random
weights, nothing downloaded), exports it with `glassbox.export`, runs the artifact under
`/usr/bin/time -v glassbox-run ... --memory` and prints:

- weights: the bytes of the model's parameters and buffers, each tensor counted once;
- activations: the program's arena (every intermediate value, placed by lifetime: the largest
  set live at once, as planned) plus the outputs, which the runner allocates beside it;
- peak RSS: `/usr/bin/time`'s "Maximum resident set size" of the whole `glassbox-run` process;
- ratio = peak RSS / (weights + activations), and the largest difference from eager.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import tempfile
from pathlib import Path

import numpy as np

from glassbox.backend.export import find_runner

TIME = "/usr/bin/time"


def weight_bytes(model) -> int:
    """Parameters and buffers, a tensor shared by two modules (tied weights) counted once."""
    seen, total = set(), 0
    for t in list(model.parameters()) + list(model.buffers()):
        key = (t.untyped_storage().data_ptr(), t.storage_offset(), tuple(t.shape))
        if key not in seen:
            seen.add(key)
            total += t.numel() * t.element_size()
    return total


def run_measured(runner: str, artifact, inputs, out_dir) -> dict:
    """Run the artifact once under /usr/bin/time; the runner's --memory figures and the peak RSS
    (bytes)."""
    cmd = [TIME, "-v", runner, str(artifact), "--inputs", *map(str, inputs)]
    cmd += ["--outputs", str(out_dir), "--memory"]
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise RuntimeError(f"glassbox-run failed ({proc.returncode}):\n{proc.stderr}")
    figures = dict((k, int(v)) for k, v in re.findall(r"(\w+_bytes) (\d+)", proc.stderr))
    figures["peak_rss_bytes"] = 1024 * int(
        re.search(r"Maximum resident set size \(kbytes\): (\d+)", proc.stderr).group(1)
    )
    return figures


def gpt2(layers, d, heads, vocab):
    import torch
    from transformers import GPT2Config, GPT2LMHeadModel

    torch.manual_seed(0)
    cfg = GPT2Config(n_layer=layers, n_embd=d, n_head=heads, vocab_size=vocab)
    return GPT2LMHeadModel(cfg).eval()


def measure(model, ids, workdir) -> dict:
    """Export ``model`` on ``ids``, run it under glassbox-run, and gather the figures."""
    import torch

    import glassbox

    runner = find_runner()
    if runner is None:
        raise RuntimeError("glassbox-run is not installed (set GLASSBOX_RUN to a built one)")
    workdir = Path(workdir)
    artifact, ids_path, out = workdir / "model.gbx", workdir / "ids.npy", workdir / "out"
    with torch.no_grad():
        glassbox.export(model, (ids,), artifact, example_kwargs={"use_cache": False})
        expected = model(ids, use_cache=False).logits.numpy()
    np.save(ids_path, ids.numpy())
    figures = run_measured(runner, artifact, [ids_path], out)
    got = np.load(out / "out0.npy")
    figures["weight_bytes"] = weight_bytes(model)
    figures["activation_bytes"] = figures["arena_bytes"] + figures["output_bytes"]
    figures["ratio"] = figures["peak_rss_bytes"] / (
        figures["weight_bytes"] + figures["activation_bytes"]
    )
    figures["max_abs_diff"] = float(np.abs(got - expected).max())
    figures["command"] = (
        f"{TIME} -v {runner} {artifact} --inputs {ids_path} --outputs {out} --memory"
    )
    return figures


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--layers", type=int, default=12)
    ap.add_argument("--d", type=int, default=768)
    ap.add_argument("--heads", type=int, default=12)
    ap.add_argument("--vocab", type=int, default=50257)
    ap.add_argument("--tokens", type=int, default=16)
    ap.add_argument("--keep", help="write the artifact and outputs here (default: a temp dir)")
    args = ap.parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    import torch

    model = gpt2(args.layers, args.d, args.heads, args.vocab)
    ids = torch.randint(0, args.vocab, (1, args.tokens))
    with tempfile.TemporaryDirectory() as tmp:
        workdir = Path(args.keep or tmp)
        workdir.mkdir(parents=True, exist_ok=True)
        f = measure(model, ids, workdir)
    mib = 1 << 20
    params = sum(p.numel() for p in model.parameters())
    print(
        f"GPT-2 {args.layers} layers, d {args.d}, vocab {args.vocab}: {params / 1e6:.1f}M "
        f"parameters, {args.tokens} tokens"
    )
    print(f"weights         {f['weight_bytes'] / mib:9.1f} MiB")
    print(f"constants       {f['constant_bytes'] / mib:9.1f} MiB  (in the artifact)")
    print(f"arena           {f['arena_bytes'] / mib:9.1f} MiB")
    print(f"outputs         {f['output_bytes'] / mib:9.1f} MiB")
    print(f"peak RSS        {f['peak_rss_bytes'] / mib:9.1f} MiB  (glassbox-run, /usr/bin/time)")
    print(f"ratio           {f['ratio']:9.3f}  peak RSS / (weights + arena + outputs)")
    print(f"max |diff|      {f['max_abs_diff']:9.2e}  vs eager")
    print(f"command: {f['command']}")


if __name__ == "__main__":
    main()
