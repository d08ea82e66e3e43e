"""The semantic check: a module's CPython tests on the original and on the decompiled module.

For one judging interpreter: ``semantic_prepare.py`` writes each target's decompiled copy into its
own shadow folder; then, per target, ``semantic_child.py`` runs the target's tests twice in fresh
processes (``-s -S``): on the originals, then with the shadow folder as ``PYTHONPATH`` (ahead of
the standard library). Every test that passed on the originals must pass on the decompiled
module; one that fails, errors, is not run or is lost to a crash or hang of the child is a break.
A target whose copy could not be written (output that does not compile, a decompiler crash)
breaks all its tests. A target the child did not import from its shadow (frozen, imported at
start-up) is "not shadowed": reported and left out of the counts.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from glassbox.verify.pythons import Interpreter
from glassbox.verify.semantic_targets import Target

CHILD = Path(__file__).with_name("semantic_child.py")
PREPARE = Path(__file__).with_name("semantic_prepare.py")
PASSING = frozenset({"pass", "xfail"})  # an expected failure that fails as expected passes
LOG_TAIL_LINES = 20


@dataclass
class ChildRun:
    """What one test process left: its JSON answers, exit code (None: killed at the timeout)."""

    records: list[dict]
    returncode: int | None
    seconds: float
    log_tail: str

    @property
    def complete(self) -> bool:
        return any("done" in r for r in self.records)

    def outcomes(self) -> dict[str, tuple[str, str]]:
        """``test id -> (outcome, message)``; a repeated id gets ``#2``, ``#3`` ..."""
        found: dict[str, tuple[str, str]] = {}
        for record in self.records:
            if "test" in record:
                name, n = record["test"], 1
                while name in found:
                    n += 1
                    name = f"{record['test']}#{n}"
                found[name] = (record["outcome"], record.get("message", ""))
        return found

    def problem(self) -> str:
        """Why the run did not finish ("" when it did)."""
        if self.complete:
            return ""
        started = [r["start"] for r in self.records if "start" in r]
        during = f" during {started[-1]}" if started else " before any test"
        if self.returncode is None:
            return f"child hung (killed at the timeout){during}"
        return f"child died (exit {self.returncode}){during}: {last_line(self.log_tail)}"

    def fixture_messages(self) -> list[str]:
        return [f"{r['fixture']}: {r['message']}" for r in self.records if "fixture" in r]

    def shadow_records(self) -> list[dict]:
        return [r for r in self.records if "shadow" in r]


@dataclass
class Break:
    module: str
    test: str
    message: str


@dataclass
class ModuleResult:
    """One target on one interpreter."""

    target: Target
    absent: bool = False
    files: int = 0
    fallbacks: int = 0
    fallback_lines: list[str] = field(default_factory=list)
    decompile_failures: list[dict] = field(default_factory=list)
    not_shadowed: str = ""  # why the decompiled run did not use the shadow copy
    original_problem: str = ""  # the run on the originals did not finish: its passes still count
    passing_original: int = 0
    passing_decompiled: int = 0
    breaks: list[Break] = field(default_factory=list)
    seconds: tuple[float, float] = (0.0, 0.0)

    @property
    def counted(self) -> bool:
        return not self.absent and not self.not_shadowed


def last_line(text: str) -> str:
    lines = [line for line in text.strip().splitlines() if line.strip()]
    return lines[-1].strip()[:300] if lines else ""


def prepare_shadows(
    interpreter: Interpreter, targets: list[Target], decompiler: str, shadow: str, timeout: float
) -> dict[str, dict]:
    """Decompile every target into ``shadow/NAME`` under ``interpreter``; records by name."""
    config = {
        "decompiler": decompiler,
        "timeout": timeout,
        "stdlib": interpreter.stdlib,
        "shadow": shadow,
        "modules": [t.module for t in targets],
    }
    result = subprocess.run(
        [interpreter.executable, "-I", str(PREPARE), json.dumps(config)],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        check=False,
    )
    records = {r["module"]: r for r in map(json.loads, result.stdout.splitlines())}
    for target in targets:  # the preparing process died: what it did not answer failed
        records.setdefault(
            target.module,
            {"module": target.module, "absent": False, "files": 0, "fallbacks": 0,
             "fallback_lines": [], "failures": [
                 {"file": target.module, "status": "error", "message": last_line(result.stderr)}
             ]},
        )  # fmt: skip
    return records


def _child_env(shadow: str | None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    if shadow:
        env["PYTHONPATH"] = shadow
    return env


def run_child(
    interpreter: Interpreter, target: Target, shadow: str | None, folder: str, timeout: float
) -> ChildRun:
    """Run ``target``'s tests in a fresh ``interpreter`` with ``shadow`` first on the path (None:
    the originals), in the new empty ``folder``; a hang kills the child's process group."""
    os.makedirs(os.path.join(folder, "cwd"))
    out, log = os.path.join(folder, "answers.jsonl"), os.path.join(folder, "output.log")
    config = {"modules": [target.module], "tests": list(target.tests), "shadow": shadow}
    config.update(out=out, timeout=timeout)
    command = [interpreter.executable, "-s", "-S", str(CHILD), json.dumps(config)]
    start = time.monotonic()
    with open(log, "wb") as output:
        child = subprocess.Popen(
            command,
            cwd=os.path.join(folder, "cwd"),
            env=_child_env(shadow),
            stdin=subprocess.DEVNULL,
            stdout=output,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        try:
            returncode: int | None = child.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            returncode = None
        _kill_group(child)
    seconds = time.monotonic() - start
    return ChildRun(_read_answers(out), returncode, seconds, _tail(log))


def _kill_group(child: subprocess.Popen) -> None:
    """Kill what is left of the child's session (its own process group), then reap it."""
    try:
        os.killpg(child.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    child.wait()


def _read_answers(path: str) -> list[dict]:
    records = []
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            for line in handle:
                try:
                    records.append(json.loads(line))
                except ValueError:  # the last line of a child killed while writing
                    break
    except OSError:
        pass
    return records


def _tail(path: str) -> str:
    with open(path, "rb") as handle:
        handle.seek(max(0, os.path.getsize(path) - 8192))
        text = handle.read().decode("utf-8", "replace")
    return "\n".join(text.splitlines()[-LOG_TAIL_LINES:])


def _why_not_shadowed(run: ChildRun, module: str) -> str:
    for record in run.shadow_records():
        if record["shadow"] == module and not record["shadowed"]:
            if record["why"].startswith("import failed"):
                return ""  # the decompiled module was found and raised: its tests count
            return record["why"] or "not imported from the shadow"
    return ""


def compare(result: ModuleResult, original: ChildRun, decompiled: ChildRun | None) -> None:
    """Fill ``result``'s counts and breaks from the two runs (``decompiled`` None: the module
    could not be decompiled, so every test breaks)."""
    result.original_problem = original.problem()
    passing = [t for t, (o, _) in original.outcomes().items() if o in PASSING]
    result.passing_original = len(passing)
    if decompiled is None:
        failure = result.decompile_failures[0]
        everything = f"not decompiled: {failure['file']}: {failure['status']}: {failure['message']}"
    else:
        result.not_shadowed = _why_not_shadowed(decompiled, result.target.module)
        everything = decompiled.problem()
    got = decompiled.outcomes() if decompiled else {}
    fixtures = decompiled.fixture_messages() if decompiled else []
    missing = f"not run ({fixtures[0]})" if fixtures else "not run"
    for test in passing:
        outcome, message = ("", everything) if everything else got.get(test, ("", missing))
        if outcome in PASSING:
            result.passing_decompiled += 1
        else:
            result.breaks.append(Break(result.target.module, test, message or outcome))


def judge_target(
    interpreter: Interpreter, target: Target, prepared: dict, shadow: str, work: str,
    timeout: float,
) -> ModuleResult:  # fmt: skip
    """Both runs of one target and their comparison."""
    result = ModuleResult(target, absent=prepared["absent"], files=prepared["files"])
    result.fallbacks, result.fallback_lines = prepared["fallbacks"], prepared["fallback_lines"]
    result.decompile_failures = prepared["failures"]
    if result.absent:
        return result
    original = run_child(interpreter, target, None, os.path.join(work, "original"), timeout)
    decompiled = None
    if not result.decompile_failures:
        decompiled = run_child(
            interpreter, target, shadow, os.path.join(work, "decompiled"), timeout
        )
    result.seconds = (original.seconds, decompiled.seconds if decompiled else 0.0)
    compare(result, original, decompiled)
    return result


def check_version(
    interpreter: Interpreter,
    targets: list[Target],
    decompiler: str,
    *,
    jobs: int,
    timeout: float,
    decompile_timeout: float = 60.0,
    keep: str | None = None,
    on_result: Callable[[ModuleResult], None] = lambda result: None,
) -> list[ModuleResult]:
    """Every target on ``interpreter``, ``jobs`` targets at a time, results in target order.
    ``keep``: a folder to leave the shadows, answers and logs in, under ``3.X/`` (replaced)."""
    with tempfile.TemporaryDirectory(prefix="glassbox-semantic-") as scratch:
        root = os.path.join(keep or scratch, f"3.{interpreter.minor}")
        shutil.rmtree(root, ignore_errors=True)  # a kept folder's previous run
        os.makedirs(root)
        shadows = os.path.join(root, "shadow")
        prepared = prepare_shadows(interpreter, targets, decompiler, shadows, decompile_timeout)
        lock = threading.Lock()

        def one(target: Target) -> ModuleResult:
            shadow, work = os.path.join(shadows, target.module), os.path.join(root, target.module)
            result = judge_target(
                interpreter, target, prepared[target.module], shadow, work, timeout
            )
            with lock:
                on_result(result)
            return result

        with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
            return list(pool.map(one, targets))
