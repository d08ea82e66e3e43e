"""The verifier's worker: judges files one at a time under the interpreter it runs in.

Run as a script by the judging interpreter (``python3.X -I worker.py CONFIG_JSON``), never
imported by glassbox: it uses only that interpreter's standard library and ``normalize.py`` next
to it. It reads one JSON-encoded source path per line on stdin and answers each with one JSON
object per line on stdout (see ``judge``). CONFIG_JSON holds ``decompiler`` (the executable),
``timeout`` (seconds per file) and, optionally, ``optimize`` (the level the decompiled .pyc is
compiled at, as ``python -O``/``-OO`` would write ``.opt-1``/``.opt-2``) and ``recompile_optimize``
(the level the output is compiled at; default the same).

For each file: compile it to a .pyc in a temporary folder, run the decompiler on the .pyc, compile
what it printed with this same interpreter, and compare both code-object trees (``normalize``).
Where the two levels differ (the cross-level check: decompile -O0 code, recompile at -O1), the
output is compared with the source compiled at the recompiling level: code the decompiler added
that only -O0 keeps (an assignment under ``if __debug__:``) shows there.
"""

from __future__ import annotations

import json
import marshal
import os
import py_compile
import signal
import subprocess
import sys
import tempfile
import time
import traceback
import warnings

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import normalize  # noqa: E402  (the module next to this script, not the glassbox package)

OUTPUT_EXIT_CODES = (0, 1)  # 0: full success, 1: output with marked fallbacks
BAD_INPUT_EXIT_CODE = 2


def _tail(data: bytes, lines: int = 5) -> str:
    text = data.decode("utf-8", "replace").strip()
    return "\n".join(text.splitlines()[-lines:])


def run_decompiler(decompiler: str, pyc: str, timeout: float) -> tuple:
    """``(returncode or None on timeout, stdout, stderr, seconds)``; a hang kills the group."""
    start = time.perf_counter()
    process = subprocess.Popen(
        [decompiler, pyc],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    try:
        out, err = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        out, err = process.communicate()
        return None, out, err, None
    return process.returncode, out, err, time.perf_counter() - start


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


def _compile_error(error: BaseException) -> str:
    where = f" (line {error.lineno})" if getattr(error, "lineno", None) else ""
    message = error.msg if isinstance(error, SyntaxError) else str(error)
    return f"{type(error).__name__}: {message}{where}"


def _compiled(path: str, pyc: str, optimize: int):
    py_compile.compile(path, cfile=pyc, doraise=True, optimize=optimize)
    with open(pyc, "rb") as handle:
        return marshal.loads(handle.read()[16:])


def judge(
    path: str,
    decompiler: str,
    timeout: float,
    folder: str,
    optimize: int = 0,
    recompile_optimize: int | None = None,
) -> dict:
    """The verdict on one source file, as a JSON-ready dict.

    ``status`` is one of ``equal``, ``different`` (recompiles, code differs), ``no_compile``
    (output is not valid Python), ``rejected`` (exit 2), ``crash`` (another exit code or a
    signal), ``hang`` (timeout) or ``skipped`` (the source itself does not compile).
    """
    record: dict = {"file": path}
    pyc = os.path.join(folder, os.path.basename(path) + "c")
    level = optimize if recompile_optimize is None else recompile_optimize
    try:
        original = _compiled(path, pyc + ".expected", level)
        if level != optimize:
            _compiled(path, pyc, optimize)
        else:
            os.replace(pyc + ".expected", pyc)
    except (py_compile.PyCompileError, OSError, ValueError) as error:
        record.update(status="skipped", message=str(error).strip().splitlines()[-1][:300])
        return record
    record["code_objects"] = normalize.count_code_objects(original)
    returncode, out, err, seconds = run_decompiler(decompiler, pyc, timeout)
    record.update(
        exit_code=returncode, seconds=seconds, equal_code_objects=0, subtree_equal_code_objects=0
    )
    if returncode is None:
        record.update(status="hang", message=f"no answer within {timeout:g} s")
    elif returncode < 0:
        record.update(status="crash", message=f"killed by {_signal_name(-returncode)}")
    elif returncode == BAD_INPUT_EXIT_CODE:
        record.update(status="rejected", message=_tail(err, 1) or "exit code 2")
    elif returncode not in OUTPUT_EXIT_CODES:
        record.update(status="crash", message=f"exit code {returncode}: {_tail(err, 1)}")
    else:
        record["fallback_lines"] = len(err.strip().splitlines()) if returncode == 1 else 0
        _judge_output(record, original, out, path, level)
    return record


def _judge_output(record: dict, original, out: bytes, path: str, optimize: int) -> None:
    try:
        text = out.decode("utf-8")
        recompiled = compile(text, path, "exec", dont_inherit=True, optimize=optimize)
    except Exception as error:  # SyntaxError, ValueError (null bytes), RecursionError, ...
        record.update(status="no_compile", message=_compile_error(error))
        return
    comparison = normalize.compare(original, recompiled)
    record.update(
        status="equal" if comparison.equal else "different",
        equal_code_objects=comparison.equal_code_objects,
        subtree_equal_code_objects=comparison.subtree_equal_code_objects,
    )
    if comparison.first_difference is not None:
        record["difference"] = comparison.first_difference.to_json()


def main() -> int:
    config = json.loads(sys.argv[1])
    warnings.simplefilter("ignore")  # SyntaxWarnings of the files judged are not ours to show
    answers = sys.stdout
    sys.stdout = sys.stderr  # nothing but answers may reach the driver's pipe
    with tempfile.TemporaryDirectory(prefix="glassbox-verify-") as folder:
        for line in sys.stdin:
            path = json.loads(line)
            try:
                record = judge(
                    path,
                    config["decompiler"],
                    config["timeout"],
                    folder,
                    config.get("optimize", 0),
                    config.get("recompile_optimize"),
                )
            except Exception:
                record = {"file": path, "status": "error", "message": traceback.format_exc()}
            answers.write(json.dumps(record) + "\n")
            answers.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
