"""Judges every case of ``decompile_cases`` under the interpreter that runs this script.

Run as ``python3.X -I decompile_version_worker.py NORMALIZE_DIR DECOMPILER`` by
``test_decompile_versions``; uses only that interpreter's standard library, the verifier's
``normalize.py`` (in NORMALIZE_DIR) and the stdlib-only helpers next to this file. For each case
that interpreter compiles: compile the case's module to a ``.pyc``, decompile the ``.pyc`` with the
``glassbox-decompile`` executable, compile its output with this same interpreter, compare the two
module code objects with the verifier's comparator, then run both modules and ``f`` on the
case's inputs and compare the outcomes; then the same outcomes with the output compiled at -O1
against the source at -O1. Prints one JSON object: case name -> verdict.
"""

from __future__ import annotations

import importlib.util
import json
import marshal
import os
import subprocess
import sys
import tempfile
import traceback
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, sys.argv[1])

import normalize  # noqa: E402
from decompile_cases import CASES  # noqa: E402
from decompile_harness import (  # noqa: E402
    Overtime,
    fresh_namespace,
    module_outcome,
    outcomes,
    watchdog,
)

MINOR = sys.version_info.minor


def behaviour(code, case) -> list:
    namespace = fresh_namespace()
    try:
        with watchdog():
            result = [module_outcome(namespace, code)]
            if not case.module or case.entry in namespace:
                result.extend(outcomes(namespace, case))
    except Overtime:
        return ["overtime"]
    return result


def judge(case, decompiler: str, folder: str) -> dict:
    code = compile(case.text, f"<case {case.name}>", "exec", dont_inherit=True)
    pyc = os.path.join(folder, case.name + ".pyc")
    with open(pyc, "wb") as handle:
        handle.write(importlib.util.MAGIC_NUMBER + bytes(12) + marshal.dumps(code))
    run = subprocess.run([decompiler, pyc], capture_output=True, timeout=60)
    if run.returncode not in (0, 1):
        return {"status": "crash", "message": f"exit {run.returncode}: {run.stderr[-300:]!r}"}
    source = run.stdout.decode("utf-8")
    verdict = {"source": source, "fallbacks": run.stderr.decode("utf-8", "replace").strip()}
    try:
        recompiled = compile(source, "<decompiled>", "exec", dont_inherit=True)
    except SyntaxError as error:
        return {**verdict, "status": "no_compile", "message": f"SyntaxError: {error}"}
    comparison = normalize.compare(code, recompiled)
    same = behaviour(code, case) == behaviour(recompiled, case)
    # Under -O: the output for -O0 code, compiled at -O1, against the source at -O1 (at -O0 where
    # the source has code only -O0 runs: the bytecode runs it at every level).
    level = 0 if case.debug_only_code else 1
    reference = compile(case.text, f"<case {case.name}>", "exec", dont_inherit=True, optimize=level)
    optimized = compile(source, "<decompiled>", "exec", dont_inherit=True, optimize=1)
    verdict.update(
        code_equal=comparison.equal and run.returncode == 0,
        difference=comparison.first_difference.describe() if comparison.first_difference else None,
        behaviour_equal=same,
        behaviour_equal_optimized=behaviour(reference, case) == behaviour(optimized, case),
    )
    return verdict


def main() -> int:
    decompiler = sys.argv[2]
    warnings.simplefilter("ignore")
    verdicts = {}
    with tempfile.TemporaryDirectory(prefix="glassbox-behaviour-") as folder:
        for case in CASES:
            if not case.runs_on(MINOR):
                continue
            try:
                verdicts[case.name] = judge(case, decompiler, folder)
            except Exception:
                verdicts[case.name] = {"status": "error", "message": traceback.format_exc()}
    json.dump(verdicts, sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main())
