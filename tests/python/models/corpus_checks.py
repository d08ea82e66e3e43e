"""The two checks the corpus runs on each entry and backend: capture and pythonify.

capture: the results (outputs, and gradients for training entries) with ``glassbox.capture``
are bitwise those of the same torch.compile without it, nothing raises, every dumped ``.py``
compiles, and the index says how many compiled frames run from their dump file.

pythonify: ``glassbox.pythonify`` writes a file, which a fresh process (``fresh_model_run.py``:
torch.compile forbidden, no Dynamo frame may run) executes; its results must be bitwise those of
torch.compile with the same backend and within 1e-4 of eager. A ``PythonifyError`` is a refusal,
recorded with its message.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
import traceback
from pathlib import Path

import corpus_outputs as outputs
import torch
from corpus import Entry

import glassbox

HERE = Path(__file__).resolve().parent
TOLERANCE = 1e-4


def compiled_call(entry: Entry, backend: str, seed: int = 0) -> outputs.Flat:
    """The entry's results through ``torch.compile(backend=backend)``, from an empty cache."""
    torch._dynamo.reset()
    target, args, kwargs = entry.build(seed)
    compiled = torch.compile(target, backend=backend)
    return outputs.call(target, args, kwargs, entry.train, run=compiled)


def eager_call(entry: Entry, seed: int = 0) -> outputs.Flat:
    target, args, kwargs = entry.build(seed)
    return outputs.call(target, args, kwargs, entry.train)


def short_error(error: BaseException) -> str:
    text = f"{type(error).__name__}: {error}".strip()
    return text.splitlines()[0][:300] if text else type(error).__name__


def dump_report(dump_dir: Path) -> dict:
    """What the dump says: compiled frames, those running from their file, files that do not
    compile, capture's own errors, and why the others run Dynamo's bytecode."""
    index = json.loads((dump_dir / "index.json").read_text())
    compiles = [c for f in index["functions"] for c in f["compiles"]]
    not_from_dump = [c["why_original_runs"] or "" for c in compiles if not c["runs_from_dump"]]
    broken = []
    for path in sorted(dump_dir.rglob("*.py")):
        try:
            compile(path.read_text(), str(path), "exec")
        except SyntaxError as error:
            broken.append(f"{path.relative_to(dump_dir)}: {short_error(error)}")
    return {
        "frames": len(compiles),
        "from_dump": len(compiles) - len(not_from_dump),
        "why_not_from_dump": sorted({_first_line(reason) for reason in not_from_dump}),
        "py_files": len(list(dump_dir.rglob("*.py"))),
        "uncompilable": broken,
        "capture_errors": [str(e)[:300] for e in index["errors"]],
    }


def _first_line(text: str) -> str:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return lines[0][:200] if lines else "(no reason given)"


def check_capture(entry: Entry, backend: str, dump_dir: Path, plain: outputs.Flat) -> dict:
    """Capture's record for one entry and backend; ``plain`` is the same compile's results."""
    torch._dynamo.reset()
    target, args, kwargs = entry.build(0)
    start = time.perf_counter()
    try:
        with glassbox.capture(dump_dir):
            compiled = torch.compile(target, backend=backend)
            captured = outputs.call(target, args, kwargs, entry.train, run=compiled)
    except Exception as error:  # capture must never raise: this is what the sweep reports
        return {"status": "raised", "error": short_error(error), "trace": _tail()}
    record = {"seconds": round(time.perf_counter() - start, 3)}
    record["differences"] = outputs.differences(captured, plain, exact=True)[:5]
    try:
        record.update(dump_report(dump_dir))
    except (OSError, ValueError, KeyError) as error:
        record["index_error"] = short_error(error)
    problems = record.get("uncompilable", []) + record.get("capture_errors", [])
    problems += [record["index_error"]] if "index_error" in record else []
    if record["differences"]:
        record["status"] = "changed"
    elif problems:
        record["status"], record["error"] = "dump-problem", problems[0]
    else:
        record["status"] = "ok"
    return record


def _tail() -> str:
    return traceback.format_exc()[-2000:]


def check_pythonify(
    entry: Entry, backend: str, path: Path, plain: outputs.Flat, eager: outputs.Flat, optimize: bool
) -> dict:
    """Pythonify's record: ok, refused (PythonifyError), error, fresh-failed or mismatch."""
    from glassbox.pythonify import PythonifyError

    torch._dynamo.reset()
    target, args, kwargs = entry.build(0)
    try:
        if entry.train:
            outputs.trainable_inputs(args, kwargs)
            glassbox.pythonify(target, args, path, example_kwargs=kwargs, backend=backend)
        else:
            with torch.no_grad():
                glassbox.pythonify(target, args, path, example_kwargs=kwargs, backend=backend)
    except PythonifyError as error:
        return {"status": "refused", "error": short_error(error)}
    except Exception as error:
        return {"status": "error", "error": short_error(error), "trace": _tail()}
    fresh = run_fresh(entry.name, path, optimize)
    if "error" in fresh:
        return {"status": "fresh-failed", "error": fresh["error"]}
    record = {
        "differences": outputs.differences(fresh["flat"], plain, exact=True)[:5],
        "eager_differences": outputs.differences(fresh["flat"], eager, False, TOLERANCE)[:5],
        "dynamo_frames": fresh["dynamo_frames"],
        "seconds": fresh["seconds"],
    }
    record["bitwise"] = not record["differences"]
    record["close_to_eager"] = not record["eager_differences"]
    ok = record["bitwise"] and record["close_to_eager"] and not fresh["dynamo_frames"]
    record["status"] = "ok" if ok else "mismatch"
    return record


def run_fresh(name: str, path: Path, optimize: bool, timeout: float = 600) -> dict:
    """Run the pythonified file in a fresh process; its flat results, or the error it gave."""
    out = path.with_suffix(".pt")
    command = [sys.executable, *(["-O"] if optimize else []), str(HERE / "fresh_model_run.py")]
    command += [str(path), name, str(out)]
    start = time.perf_counter()
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"error": f"timed out after {timeout:.0f} s"}
    if done.returncode != 0:
        lines = [line for line in done.stderr.splitlines() if line.strip()]
        return {"error": (lines[-1] if lines else f"exit code {done.returncode}")[:300]}
    result = torch.load(out)
    result["seconds"] = round(time.perf_counter() - start, 3)
    return result
