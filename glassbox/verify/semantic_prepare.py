"""The semantic check's decompiling step: decompiled copies of modules, under the judging Python.

Run as a script by the judging interpreter (``python3.X -I semantic_prepare.py CONFIG_JSON``),
never imported by glassbox; it reuses ``worker.py`` next to it, so each file goes the verifier's
way: compiled by this interpreter to a .pyc, decompiled by the executable, the output compiled
again. CONFIG_JSON holds ``decompiler``, ``timeout`` (seconds per file), ``stdlib`` (the
interpreter's standard library), ``shadow`` (the folder to write into) and ``modules``
(top-level names). For each module it writes ``shadow/NAME/NAME.py`` or ``shadow/NAME/NAME/...``
(a package whole; its ``test``/``tests`` folders and data files copied as they are) and prints
one JSON line::

    {"module": name, "absent": bool, "files": n, "fallbacks": n, "fallback_lines": [...],
     "failures": [{"file": relative path, "status": s, "message": m}]}

``status`` is the verifier's: ``no_compile``, ``rejected``, ``crash`` or ``hang``. A module with
a failure must count as failing every test; its folder is incomplete.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import sys
import tempfile
import warnings

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import worker  # noqa: E402  (the verifier's worker next to this script)

COPIED_DIRS = frozenset({"test", "tests", "idle_test"})  # a package's own tests: not decompiled
FALLBACK_LINES_KEPT = 20  # per module, in the answer
FALLBACK_LINE = re.compile(r"^.*?: (?=line \d+ in )")  # the executable's and the .pyc's names


def decompile_file(source: str, target: str, config: dict, folder: str) -> dict:
    """Decompile ``source`` into ``target``; ``{"status": "ok"|..., "fallbacks": [lines]}``."""
    pyc = os.path.join(folder, "module.pyc")
    worker._compiled(source, pyc, 0)
    returncode, out, err, _ = worker.run_decompiler(config["decompiler"], pyc, config["timeout"])
    if returncode is None:
        return {"status": "hang", "message": f"no answer within {config['timeout']:g} s"}
    if returncode == worker.BAD_INPUT_EXIT_CODE:
        return {"status": "rejected", "message": worker._tail(err, 1) or "exit code 2"}
    if returncode not in worker.OUTPUT_EXIT_CODES:
        return {"status": "crash", "message": f"exit code {returncode}: {worker._tail(err, 1)}"}
    lines = err.decode("utf-8", "replace").strip().splitlines() if returncode == 1 else []
    fallbacks = [FALLBACK_LINE.sub("", line) for line in lines]  # "line N in f: could not ..."
    try:
        compile(out.decode("utf-8"), source, "exec", dont_inherit=True)
    except Exception as error:  # SyntaxError, ValueError (null bytes), RecursionError, ...
        return {"status": "no_compile", "message": worker._compile_error(error)}
    with open(target, "wb") as handle:
        handle.write(out)
    return {"status": "ok", "fallbacks": fallbacks}


def module_files(stdlib: str, name: str) -> tuple[str, list[tuple[str, bool]]] | None:
    """The module's root (file or package folder) and its files as ``(relative path,
    decompile?)``; ``None`` when the standard library has no such module."""
    single = os.path.join(stdlib, name + ".py")
    if os.path.isfile(single):
        return stdlib, [(name + ".py", True)]
    package = os.path.join(stdlib, name)
    if not os.path.isfile(os.path.join(package, "__init__.py")):
        return None
    files = []
    for folder, subfolders, names in os.walk(package):
        subfolders[:] = sorted(d for d in subfolders if d != "__pycache__")
        relative = os.path.relpath(folder, stdlib)
        copied = bool(COPIED_DIRS.intersection(relative.split(os.sep)))
        for file in sorted(names):
            files.append((os.path.join(relative, file), file.endswith(".py") and not copied))
    return stdlib, files


def prepare(name: str, config: dict, folder: str) -> dict:
    record: dict = {"module": name, "absent": False, "files": 0, "fallbacks": 0}
    record.update(fallback_lines=[], failures=[])
    found = module_files(config["stdlib"], name)
    if found is None:
        record["absent"] = True
        return record
    root, files = found
    destination = os.path.join(config["shadow"], name)
    for relative, decompile in files:
        source, target = os.path.join(root, relative), os.path.join(destination, relative)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        if not decompile:
            shutil.copyfile(source, target)
            continue
        record["files"] += 1
        try:
            verdict = decompile_file(source, target, config, folder)
        except Exception as error:  # the source itself does not compile, an unreadable file
            verdict = {"status": "error", "message": f"{type(error).__name__}: {error}"[:300]}
        if verdict["status"] != "ok":
            record["failures"].append({"file": relative, **verdict})
            continue
        record["fallbacks"] += len(verdict["fallbacks"])
        kept = FALLBACK_LINES_KEPT - len(record["fallback_lines"])
        record["fallback_lines"].extend(f"{relative}: {x}" for x in verdict["fallbacks"][:kept])
    return record


def main() -> int:
    config = json.loads(sys.argv[1])
    warnings.simplefilter("ignore")  # SyntaxWarnings of the files decompiled are not ours
    answers = sys.stdout
    sys.stdout = sys.stderr  # nothing but answers may reach the driver's pipe
    with tempfile.TemporaryDirectory(prefix="glassbox-semantic-") as folder:
        for name in config["modules"]:
            answers.write(json.dumps(prepare(name, config, folder)) + "\n")
            answers.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
