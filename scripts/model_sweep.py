"""Capture and pythonify on every architecture of the real-model corpus, each in its own process.

    .venv/bin/python scripts/model_sweep.py [--optimize] [--models gpt2,bert] [--families vision]
        [--backends eager,aot_eager,inductor] [--timeout 1200] [--out build/model-sweep]

For each entry of tests/python/models/corpus.py, ``tests/python/models/sweep_worker.py`` runs in
a subprocess (under ``python -O`` with ``--optimize``, the pythonified files' fresh processes too)
with a timeout, so that a hang or a crash stops one entry, not the sweep. Per entry and backend:
capture (results bitwise unchanged, no exception, dumped files compile, the share of compiled
frames that run from their dump) and, for aot_eager and inductor, pythonify (the file run in a
fresh process: bitwise equal to torch.compile, within 1e-4 of eager; or refused with
PythonifyError). ``--backends glassbox`` sweeps the native backend: its results within 1e-4 of
eager (gradients too for training entries) and, per graph, the native share of nodes, the
segments and the fallback ops. Prints progress as it goes; writes OUT.json and OUT.md (the table,
the summary, failures grouped by reason) after every entry. Exit code 1 when a capture run
changed results or raised (a crash inside the capture stage counts as raising), else 0.

A correctness sweep, so it lives with the other drivers in scripts/; the timings are in
bench/bench_models.py.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MODELS = ROOT / "tests" / "python" / "models"
sys.path.insert(0, str(MODELS))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import corpus  # noqa: E402
import sweep_report  # noqa: E402


def run_entry(entry: corpus.Entry, backends: list[str], optimize: bool, timeout: float) -> list:
    """The entry's records, one per backend; a backend the worker never finished is recorded as
    a timeout or crash in the stage it had reached."""
    with tempfile.TemporaryDirectory(prefix="sweep-") as tmp:
        log = Path(tmp) / "log.jsonl"
        command = [sys.executable, *(["-O"] if optimize else []), str(MODELS / "sweep_worker.py")]
        command += [entry.name, str(log), "--backends", ",".join(backends)]
        try:
            done = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
            failure = None if done.returncode == 0 else _crash(done)
        except subprocess.TimeoutExpired:
            failure = {"status": "timeout", "error": f"no result after {timeout:.0f} s"}
        lines = [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []
    records = [line for line in lines if "stage" not in line]
    stages = [line for line in lines if "stage" in line]
    finished = {record["backend"] for record in records}
    for backend in backends:
        if backend not in finished:
            reached = [s["stage"] for s in stages if s["backend"] == backend] or ["not started"]
            lost = failure or {"status": "crash", "error": "the worker stopped early"}
            records.append(_lost(entry, backend, reached[-1], lost))
    return records


def _crash(done: subprocess.CompletedProcess) -> dict:
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    last = lines[-1][:300] if lines else ""
    return {"status": "crash", "error": f"exit code {done.returncode}: {last}"}


def _lost(entry: corpus.Entry, backend: str, stage: str, failure: dict) -> dict:
    """A record for a backend whose worker hung or crashed during ``stage``."""
    record = {"name": entry.name, "family": entry.family, "train": entry.train}
    record.update(backend=backend, lost_in=stage)
    if stage in ("compile", "eager", "not started"):
        record["compile"] = failure
    else:
        record["compile"] = {"status": "ok"}
        record["capture"] = failure if stage == "capture" else {"status": "unknown"}
        if stage == "pythonify":
            record["pythonify"] = failure
    return record


def select(options: argparse.Namespace) -> list[corpus.Entry]:
    chosen = list(corpus.entries().values())
    if options.models:
        wanted = options.models.split(",")
        chosen = [corpus.get(name) for name in wanted]
    if options.families:
        families = options.families.split(",")
        chosen = [entry for entry in chosen if entry.family in families]
    return chosen


def _meta(options: argparse.Namespace) -> dict:
    import torch
    import transformers

    return {
        "python": platform.python_version(),
        "torch": torch.__version__,
        "transformers": transformers.__version__,
        "optimize": options.optimize,
        "backends": options.backends,
        "started": time.strftime("%Y-%m-%d %H:%M:%S"),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", default="")
    parser.add_argument("--families", default="")
    parser.add_argument("--backends", default="eager,aot_eager,inductor")
    parser.add_argument("--optimize", action="store_true", help="run the workers under python -O")
    parser.add_argument("--timeout", type=float, default=1200, help="seconds per entry")
    parser.add_argument("--out", default=str(ROOT / "build" / "model-sweep"))
    options = parser.parse_args(argv)
    entries, backends = select(options), options.backends.split(",")
    out = Path(options.out + ("-O" if options.optimize else ""))
    out.parent.mkdir(parents=True, exist_ok=True)
    meta, records, start = _meta(options), [], time.perf_counter()
    print(f"{len(entries)} entries x {len(backends)} backends, python{' -O' * options.optimize}")
    for number, entry in enumerate(entries, 1):
        began = time.perf_counter()
        found = run_entry(entry, backends, options.optimize, options.timeout)
        records += found
        took = time.perf_counter() - began
        for record in found:
            print(f"[{number}/{len(entries)}] {sweep_report.progress_line(record)}", flush=True)
        print(f"    {entry.name}: {took:.0f} s, {time.perf_counter() - start:.0f} s so far")
        meta["seconds"] = round(time.perf_counter() - start, 1)
        sweep_report.write(out, meta, records)
    print(sweep_report.summary(records))
    if "glassbox" in backends:
        print(sweep_report.native_summary(records))
    print(f"table: {out}.md, records: {out}.json")
    return 1 if sweep_report.capture_broke(records) else 0


if __name__ == "__main__":
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    raise SystemExit(main())
