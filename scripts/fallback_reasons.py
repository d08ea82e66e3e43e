"""Where the decompiler falls back on a standard library: the reasons, counted, and the shortest
functions behind one reason (the best place to start a fix).

    python3 scripts/fallback_reasons.py 3.12                      # reasons, most frequent first
    python3 scripts/fallback_reasons.py 3.12 --match "unstructured jump"  # + the 5 shortest
    python3 scripts/fallback_reasons.py 3.12 .venv/lib/python3.11/site-packages/rich  # other code

The version picks ~/.pyenv/versions/3.X.*; each standard-library file (tests excluded, as the
verifier does), or each .py file under the paths given, is compiled by that interpreter and
decompiled by .venv/bin/glassbox-decompile (``GLASSBOX_DECOMPILE=/path`` judges another build).
"""

from __future__ import annotations

import argparse
import ast
import collections
import glob
import json
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DECOMPILER = os.environ.get(
    "GLASSBOX_DECOMPILE", os.path.join(ROOT, ".venv", "bin", "glassbox-decompile")
)
LINE = re.compile(r": line (\d+) in (\S+): could not reconstruct: (.*)$")


def interpreter(version: str) -> str:
    pattern = os.path.expanduser(f"~/.pyenv/versions/{version}.*/bin/python{version}")
    found = sorted(glob.glob(pattern))
    if not found:
        raise SystemExit(f"no CPython {version} under ~/.pyenv/versions")
    return found[-1]


def stdlib_files(python: str) -> tuple[str, list[str]]:
    lib = subprocess.check_output(
        [python, "-c", "import sysconfig; print(sysconfig.get_paths()['stdlib'])"], text=True
    ).strip()
    files = []
    for folder, dirs, names in os.walk(lib):
        parts = os.path.relpath(folder, lib).split(os.sep)
        if "site-packages" in parts or "test" in parts or "tests" in parts or "idle_test" in parts:
            dirs.clear()
            continue
        files.extend(os.path.join(folder, name) for name in names if name.endswith(".py"))
    return lib, sorted(files)


def files_under(paths: list[str]) -> list[str]:
    files = []
    for path in paths:
        if os.path.isfile(path):
            files.append(path)
        for folder, _, names in os.walk(path):
            files.extend(os.path.join(folder, name) for name in names if name.endswith(".py"))
    return sorted(files)


def compile_all(python: str, files: list[str], out: str) -> dict[str, str]:
    script = (
        "import py_compile, sys, json\n"
        "done = {}\n"
        "for line in sys.stdin:\n"
        "    src, pyc = json.loads(line)\n"
        "    try:\n"
        "        py_compile.compile(src, cfile=pyc, doraise=True)\n"
        "        done[pyc] = src\n"
        "    except Exception:\n"
        "        pass\n"
        "print(json.dumps(done))\n"
    )
    lines = "".join(
        json.dumps([src, os.path.join(out, f"{k}.pyc")]) + "\n" for k, src in enumerate(files)
    )
    result = subprocess.run([python, "-c", script], input=lines, text=True, capture_output=True)
    return json.loads(result.stdout)


def shortest_functions(failures: list[tuple[str, int, str]], count: int) -> list[tuple[int, str]]:
    found = []
    for source, line, qualname in failures:
        try:
            text = open(source, encoding="utf-8").read()
            tree = ast.parse(text)
        except (OSError, SyntaxError, ValueError):
            continue
        # The innermost function holding the line (a region's first line, or the def's).
        holding = [
            node
            for node in ast.walk(tree)
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
            and (node.decorator_list[0].lineno if node.decorator_list else node.lineno)
            <= line
            <= (node.end_lineno or node.lineno)
        ]
        if holding:
            node = min(holding, key=lambda n: (n.end_lineno or n.lineno) - n.lineno)
            segment = ast.get_source_segment(text, node) or ""
            found.append((len(segment.splitlines()), f"# {source}: {qualname}\n{segment}"))
    return sorted(found)[:count]


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("version", help="3.10, 3.11, 3.12 or 3.13")
    parser.add_argument("paths", nargs="*", help="files or folders instead of the stdlib")
    parser.add_argument("--match", help="also print the 5 shortest functions with this reason")
    args = parser.parse_intermixed_args(argv)
    missing = [path for path in args.paths if not os.path.exists(path)]
    if missing:
        parser.error(f"no such file or folder: {', '.join(missing)} (a reason goes after --match)")
    python = interpreter(args.version)
    pattern = args.match
    files = files_under(args.paths) if args.paths else stdlib_files(python)[1]
    reasons: collections.Counter = collections.Counter()
    matching = []
    with tempfile.TemporaryDirectory() as out:
        for pyc, source in compile_all(python, files, out).items():
            run = subprocess.run([DECOMPILER, pyc], capture_output=True, text=True)
            for line in run.stderr.splitlines():
                match = LINE.search(line)
                if not match:
                    continue
                reason = re.sub(r"\d+", "N", match.group(3))
                reasons[reason] += 1
                if pattern and pattern in match.group(3):
                    matching.append((source, int(match.group(1)), match.group(2)))
    for reason, count in reasons.most_common():
        print(f"{count:6d}  {reason}")
    for _, text in shortest_functions(matching, 5):
        print("\n" + text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
