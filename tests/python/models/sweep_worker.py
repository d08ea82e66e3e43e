"""One corpus entry through every backend, in its own process (scripts/model_sweep.py runs it).

    python [-O] sweep_worker.py NAME OUT.jsonl [--backends eager,aot_eager,inductor]

Appends to OUT one JSON line as each stage starts (``{"stage": ..., "backend": ...}``, so that
the driver can tell where a crash or hang happened) and one record per backend:
``{"name", "family", "train", "backend", "compile", "capture", "pythonify"}``; for the glassbox
backend also ``native``: one record per graph it compiled (``native_graphs``).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import corpus  # noqa: E402
import corpus_checks as checks  # noqa: E402
import corpus_outputs as outputs  # noqa: E402
import torch  # noqa: E402

from glassbox.backend import REPORTS  # noqa: E402

PYTHONIFY_BACKENDS = ("aot_eager", "inductor")


class Log:
    """The JSON-lines file the driver reads, flushed after every line."""

    def __init__(self, path: str) -> None:
        self.handle = open(path, "a")  # noqa: SIM115 (kept open for the process's life)

    def write(self, record: dict) -> None:
        self.handle.write(json.dumps(record) + "\n")
        self.handle.flush()


def native_graphs(reports: list) -> list[dict]:
    """What the glassbox backend made of each graph: its name (inference, forward or backward),
    nodes, nodes run natively, segments, and the ops that fell back."""
    return [
        {
            "graph": report.name,
            "nodes": report.total_nodes,
            "native": report.native_nodes,
            "segments": report.segments,
            "fallback": dict(report.fallback_ops),
        }
        for report in reports
    ]


def run_backend(entry: corpus.Entry, backend: str, eager: outputs.Flat, log: Log, tmp: Path):
    record = {"name": entry.name, "family": entry.family, "train": entry.train}
    record["backend"] = backend
    log.write({"stage": "compile", "backend": backend})
    try:
        start = len(REPORTS)
        plain = checks.compiled_call(entry, backend)
        if backend == "glassbox":
            record["native"] = native_graphs(REPORTS[start:])
    except Exception as error:  # torch.compile itself fails: nothing of glassbox to judge
        record["compile"] = {"status": "error", "error": checks.short_error(error)}
        log.write(record)
        return
    record["compile"] = {"status": "ok"}
    record["compile"]["close_to_eager"] = not outputs.differences(plain, eager, False)
    log.write({"stage": "capture", "backend": backend})
    record["capture"] = checks.check_capture(entry, backend, tmp / f"dump-{backend}", plain)
    if backend in PYTHONIFY_BACKENDS:
        log.write({"stage": "pythonify", "backend": backend})
        path = tmp / f"{entry.name}-{backend}.py"
        optimize = sys.flags.optimize > 0
        record["pythonify"] = checks.check_pythonify(entry, backend, path, plain, eager, optimize)
    log.write(record)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("name")
    parser.add_argument("out")
    parser.add_argument("--backends", default="eager,aot_eager,inductor")
    options = parser.parse_args(argv)
    entry = corpus.get(options.name)
    log = Log(options.out)
    torch.manual_seed(0)
    log.write({"stage": "eager", "backend": None})
    eager = checks.eager_call(entry)
    with tempfile.TemporaryDirectory(prefix=f"sweep-{entry.name}-") as tmp:
        for backend in options.backends.split(","):
            run_backend(entry, backend, eager, log, Path(tmp))
    log.write({"stage": "done", "backend": None})
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
