"""Drives worker processes of one judging interpreter in parallel and collects their verdicts."""

from __future__ import annotations

import json
import os
import queue
import statistics
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path

from glassbox.verify.pythons import Interpreter

WORKER = Path(__file__).with_name("worker.py")
# How long a worker may take over one file beyond the decompiler's own timeout (compiling and
# comparing a big module on a loaded machine) before the driver gives up on it.
WORKER_GRACE_SECONDS = 300.0


class _Worker:
    """One ``worker.py`` process: a file path goes in, a JSON verdict comes out."""

    def __init__(self, interpreter: Interpreter, config: dict) -> None:
        self._stderr = tempfile.TemporaryFile()
        self._process = subprocess.Popen(
            [interpreter.executable, "-I", str(WORKER), json.dumps(config)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._stderr,
            text=True,
            encoding="utf-8",
            bufsize=1,
        )

    def judge(self, path: str, limit: float) -> dict:
        watchdog = threading.Timer(limit, self._process.kill)
        watchdog.start()
        try:
            assert self._process.stdin and self._process.stdout
            self._process.stdin.write(json.dumps(path) + "\n")
            self._process.stdin.flush()
            line = self._process.stdout.readline()
        except OSError:
            line = ""
        finally:
            watchdog.cancel()
        if line:
            return json.loads(line)
        return {"file": path, "status": "error", "message": self._death_notice(limit)}

    @property
    def alive(self) -> bool:
        return self._process.poll() is None

    def _death_notice(self, limit: float) -> str:
        self._process.kill()
        self._process.wait()
        self._stderr.seek(0)
        tail = self._stderr.read().decode("utf-8", "replace").strip().splitlines()[-3:]
        why = f"worker died (exit {self._process.returncode}; limit {limit:g} s)"
        return why + ("\n" + "\n".join(tail) if tail else "")

    def close(self) -> None:
        if self._process.stdin:
            self._process.stdin.close()
        try:
            self._process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait()
        if self._process.stdout:
            self._process.stdout.close()
        self._stderr.close()


def judge_files(
    interpreter: Interpreter,
    files: list[str],
    decompiler: str,
    *,
    jobs: int,
    timeout: float,
    optimize: int = 0,
    recompile_optimize: int | None = None,
    on_verdict: Callable[[dict], None] = lambda record: None,
) -> list[dict]:
    """Verdicts on ``files`` (in their order) from ``jobs`` workers running ``interpreter``.

    ``optimize`` is the level the decompiled .pyc is compiled at; ``recompile_optimize`` (default
    the same) the level the output is recompiled and compared at (see worker.py).
    """
    pending: queue.Queue[str] = queue.Queue()
    for path in files:
        pending.put(path)
    verdicts: dict[str, dict] = {}
    lock = threading.Lock()
    config = {
        "decompiler": decompiler,
        "timeout": timeout,
        "optimize": optimize,
        "recompile_optimize": recompile_optimize,
    }

    def serve() -> None:
        worker = _Worker(interpreter, config)
        try:
            while True:
                try:
                    path = pending.get_nowait()
                except queue.Empty:
                    return
                record = worker.judge(path, timeout + WORKER_GRACE_SECONDS)
                if not worker.alive:
                    worker.close()
                    worker = _Worker(interpreter, config)
                with lock:
                    verdicts[path] = record
                    on_verdict(record)
        finally:
            worker.close()

    threads = [threading.Thread(target=serve, daemon=True) for _ in range(max(1, jobs))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return [verdicts[path] for path in files]


def startup_seconds(decompiler: str, runs: int = 5) -> float | None:
    """Median wall time of ``decompiler --help``: the cost of starting the process at all."""
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        try:
            result = subprocess.run(
                [decompiler, "--help"],
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                timeout=2,
            )
        except (OSError, subprocess.SubprocessError):
            return None
        if result.returncode != 0:
            return None
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def default_jobs() -> int:
    return max(1, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else 1)
