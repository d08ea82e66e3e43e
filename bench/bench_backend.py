"""Benchmark of the glassbox backend against eager and Inductor, in one run.

Latency at batch 1 (median of repeated calls, eager, Inductor and glassbox called in turn so that
the machine's load weighs on each alike) and throughput at batch 32 (samples per second) for the
zoo models, printed as a table of ratios (>1 means glassbox is faster):

    .venv/bin/python bench/bench_backend.py [--models mlp,encoder,cnn,gpt2] [--seconds 1.0]
        [--threads N] [--gpt-layers 12]

Not a test: numbers depend on the machine and its load.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

# --threads N pins eager/Inductor (torch) and glassbox (OpenBLAS, and OpenMP: the column split,
# oneDNN) to the same thread count; it must be known before either library is loaded.
if "--threads" in sys.argv:
    threads = sys.argv[sys.argv.index("--threads") + 1]
    os.environ["OPENBLAS_NUM_THREADS"] = os.environ["OMP_NUM_THREADS"] = threads

import torch  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "python" / "backend"))
from zoo import GPT2, MLP, EncoderBlock, GPTConfig, ResNet18Like, randomize_bn  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from timing import interleaved, three_runners  # noqa: E402

import glassbox  # noqa: E402,F401  (registers the backend)
from glassbox.backend import REPORTS, register  # noqa: E402

register()


def make(name, batch):
    torch.manual_seed(0)
    if name == "mlp":
        return MLP(256, 512, 10, depth=3), (torch.randn(batch, 256),)
    if name == "encoder":
        return EncoderBlock(256, 4, 1024), (torch.randn(batch, 32, 256),)
    if name == "cnn":
        return randomize_bn(ResNet18Like(width=16, classes=10)), (torch.randn(batch, 3, 64, 64),)
    if name == "gpt2":
        cfg = GPTConfig(layers=int(ARGS.gpt_layers))  # GPT-2 small widths; --gpt-layers 12 for all
        return GPT2(cfg), (torch.randint(0, cfg.vocab, (batch, 64)),)
    raise ValueError(name)


def bench(name, seconds):
    row = {}
    for batch in ARGS.batches:
        model, args = make(name, batch)
        runners = three_runners(model)
        with torch.no_grad():
            start = len(REPORTS)
            ref = model(*args)
            for key, fn in runners.items():
                out = fn(*args)
                err = ((out - ref).abs().max() / ref.abs().max().clamp_min(1e-12)).item()
                assert err < 1e-3, (name, key, err)
            for key, t in interleaved(runners, seconds, *args).items():
                row[(key, batch)] = t
            if batch == 1:
                reps = REPORTS[start:]
                row["share"] = sum(r.native_nodes for r in reps) / max(
                    1, sum(r.total_nodes for r in reps)
                )
    return row


def _loaded_openblas() -> str:
    """The OpenBLAS the runtime was linked with (the OpenMP build where present: see
    CMakeLists.txt), so that both sides of the GEMM row run the same library."""
    from glassbox import _core  # noqa: F401  (loads it)

    with open("/proc/self/maps") as maps:
        for line in maps:
            path = line.split()[-1]
            if "libopenblas" in path:
                return path
    return "libopenblas.so.0"


def bench_gemm(n, seconds):
    """GFLOP/s of an exported n x n x n product through glassbox.load vs OpenBLAS's own sgemm
    (the same system library, called through ctypes)."""
    import ctypes
    import tempfile

    import numpy as np

    blas = ctypes.CDLL(_loaded_openblas())
    a, b = np.random.rand(n, n).astype(np.float32), np.random.rand(n, n).astype(np.float32)
    c = np.empty((n, n), np.float32)
    fp = ctypes.POINTER(ctypes.c_float)
    pa, pb, pc = (x.ctypes.data_as(fp) for x in (a, b, c))
    f1, f0 = ctypes.c_float(1.0), ctypes.c_float(0.0)

    def raw():
        blas.cblas_sgemm(101, 111, 111, n, n, n, f1, pa, n, pb, n, f0, pc, n)

    class MM(torch.nn.Module):
        def forward(self, x, y):
            return x @ y

    with tempfile.TemporaryDirectory() as tmp:
        glassbox.export(MM(), (torch.from_numpy(a), torch.from_numpy(b)), f"{tmp}/mm.gbx")
        fn = glassbox.load(f"{tmp}/mm.gbx")
        t = interleaved({"raw": raw, "gbx": lambda: fn(a, b)}, seconds)
        t_raw, t_gbx = t["raw"], t["gbx"]
    flops = 2 * n**3
    return flops / t_gbx / 1e9, flops / t_raw / 1e9


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--models", default="mlp,encoder,cnn,gpt2")
    p.add_argument("--seconds", type=float, default=1.0)
    p.add_argument("--gpt-layers", default="2")
    p.add_argument("--threads", type=int, default=0, help="0: library defaults")
    p.add_argument("--quick", action="store_true", help="batch 1 only, no GEMM rows")
    global ARGS
    ARGS = p.parse_args()
    ARGS.batches = (1,) if ARGS.quick else (1, 32)
    if ARGS.threads:
        torch.set_num_threads(ARGS.threads)
    print(f"torch {torch.__version__}, {torch.get_num_threads()} threads")
    header = (
        f"{'model':10} {'native':>7} {'b1 eager ms':>12} {'b1 gbx ms':>10} {'vs eager':>9} "
        f"{'vs ind':>7} {'b32 gbx/s':>10} {'vs eager':>9} {'vs ind':>7}"
    )
    for n in () if ARGS.quick else (256, 1024):
        g, r = bench_gemm(n, ARGS.seconds)
        print(f"gemm {n}^3: glassbox {g:.1f} GFLOP/s, OpenBLAS {r:.1f} GFLOP/s ({g / r:.2f}x)")
    print(header[: header.index(" b32")] if ARGS.quick else header)
    for name in ARGS.models.split(","):
        r = bench(name, ARGS.seconds)
        g1 = r[("glassbox", 1)]
        if ARGS.quick:
            print(
                f"{name:10} {100 * r['share']:6.1f}% {1e3 * r[('eager', 1)]:12.3f} "
                f"{1e3 * g1:10.3f} {r[('eager', 1)] / g1:8.2f}x {r[('inductor', 1)] / g1:6.2f}x",
                flush=True,
            )
            continue
        g32 = r[("glassbox", 32)]
        print(
            f"{name:10} {100 * r['share']:6.1f}% {1e3 * r[('eager', 1)]:12.3f} {1e3 * g1:10.3f} "
            f"{r[('eager', 1)] / g1:8.2f}x {r[('inductor', 1)] / g1:6.2f}x {32 / g32:10.1f} "
            f"{r[('eager', 32)] / g32:8.2f}x {r[('inductor', 32)] / g32:6.2f}x",
            flush=True,
        )


ARGS = None

if __name__ == "__main__":
    main()
