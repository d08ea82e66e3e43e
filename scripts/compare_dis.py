#!/usr/bin/env python3
"""Compare `glassbox-decompile --dis` with CPython's dis.dis over a standard library.

    python3 scripts/compare_dis.py PYTHON [FILE.py ...] [--tool PATH] [--jobs N] [--no-tests]

PYTHON is the interpreter whose version is tested (e.g. ~/.pyenv/versions/3.12.1/bin/python3.12).
Each source (default: every .py under PYTHON's Lib/, site-packages excluded) is compiled with PYTHON
to a .pyc in a temporary directory; PYTHON runs tests/python/dis_reference.py on it and the tool
lists it, many files per process. The listings are compared after normalizing what may
legitimately differ: runs of whitespace, code object addresses (`at 0x...`), and the order of
frozenset elements (set iteration order depends on the hash seed). Sources PYTHON cannot compile
(deliberately broken test data) are skipped and counted.

Prints each mismatching file with its first differing line, then `matched M / N`; exits 1 if any
file differs or fails.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
REFERENCE = REPO / "tests" / "python" / "dis_reference.py"
TEST_DIRS = {"test", "tests", "idle_test"}

COMPILE_SNIPPET = r"""
import py_compile, sys
for line in sys.stdin:
    src, dst = line.rstrip("\n").split("\t")
    try:
        py_compile.compile(src, cfile=dst, doraise=True)
        print("ok\t" + src, flush=True)
    except BaseException as error:
        print("fail\t" + src + "\t" + type(error).__name__, flush=True)
"""


# ---------------------------------------------------------------------------------------------
# Normalization


def _scan_string(text: str, i: int) -> int:
    """Index just past the string literal whose opening quote is at text[i]."""
    quote = text[i]
    i += 1
    while i < len(text) and text[i] != quote:
        i += 2 if text[i] == "\\" else 1
    return i + 1


def _split_top_level(text: str) -> list[str]:
    """Split `text` at the commas that are outside brackets and string literals."""
    parts, depth, start, i = [], 0, 0, 0
    while i < len(text):
        c = text[i]
        if c in "'\"":
            i = _scan_string(text, i)
            continue
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        elif c == "," and depth == 0:
            parts.append(text[start:i].strip())
            start = i + 1
        i += 1
    parts.append(text[start:].strip())
    return [part for part in parts if part]


def _matching_close(text: str, open_index: int) -> int:
    """Index of the bracket closing the one at text[open_index], or -1."""
    depth, i = 0, open_index
    while i < len(text):
        c = text[i]
        if c in "'\"":
            i = _scan_string(text, i)
            continue
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
            if depth == 0:
                return i
        i += 1
    return -1


def sort_frozensets(text: str) -> str:
    """Rewrite every `frozenset({a, b})` with its elements sorted (recursively)."""
    out, i = [], 0
    marker = "frozenset({"
    while True:
        j = text.find(marker, i)
        if j < 0:
            out.append(text[i:])
            return "".join(out)
        # Skip occurrences inside string literals: count unescaped quotes is costly; a frozenset
        # marker inside a string is rare and harmless (it is normalized the same on both sides).
        brace = j + len(marker) - 1
        close = _matching_close(text, brace)
        if close < 0:
            out.append(text[i:])
            return "".join(out)
        elements = sorted(sort_frozensets(e) for e in _split_top_level(text[brace + 1 : close]))
        out.append(text[i:j] + marker + ", ".join(elements) + "}")
        i = close + 1


ADDRESS = re.compile(r"at 0x[0-9a-f]+")


def normalize_line(line: str, strict_whitespace: bool) -> str:
    line = ADDRESS.sub("at 0x0", line)
    if "frozenset({" in line:
        line = sort_frozensets(line)
    return line.rstrip() if strict_whitespace else " ".join(line.split())


def normalize(text: str, strict_whitespace: bool) -> list[str]:
    return [normalize_line(line, strict_whitespace) for line in text.rstrip("\n").split("\n")]


# ---------------------------------------------------------------------------------------------
# Running the interpreter and the tool


def stdlib_sources(python: str, include_tests: bool) -> list[Path]:
    lib = subprocess.run(
        [python, "-c", "import sysconfig; print(sysconfig.get_paths()['stdlib'])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    sources = []
    for root, dirs, files in os.walk(lib):
        dirs[:] = sorted(
            d
            for d in dirs
            if d != "site-packages" and d != "__pycache__" and (include_tests or d not in TEST_DIRS)
        )
        sources += [Path(root) / f for f in sorted(files) if f.endswith(".py")]
    return sources


def compile_all(
    python: str, sources: list[Path], out_dir: Path
) -> tuple[dict[str, Path], list[str]]:
    """Compiles each source to out_dir/N.pyc; returns {pyc: source} and the sources that failed."""
    pairs = {str(out_dir / f"{n:05d}.pyc"): src for n, src in enumerate(sources)}
    by_source = {str(src): pyc for pyc, src in pairs.items()}
    stdin = "".join(f"{src}\t{pyc}\n" for pyc, src in pairs.items())
    result = subprocess.run(
        [python, "-W", "ignore", "-c", COMPILE_SNIPPET], input=stdin, capture_output=True, text=True
    )
    compiled, failed = {}, []
    for line in result.stdout.splitlines():
        status, src, *_ = line.split("\t")
        if status == "ok":
            compiled[by_source[src]] = Path(src)
        else:
            failed.append(src)
    return compiled, failed


def split_listings(stdout: str, pycs: list[str]) -> dict[str, str]:
    """Splits a batch's output at its '### FILE' lines."""
    if len(pycs) == 1:
        return {pycs[0]: stdout}
    listings: dict[str, list[str]] = {}
    current: list[str] | None = None
    wanted = set(pycs)
    for line in stdout.split("\n"):
        if line.startswith("### ") and line[4:] in wanted:
            current = listings.setdefault(line[4:], [])
            continue
        if current is not None:
            current.append(line)
    return {pyc: "\n".join(lines) for pyc, lines in listings.items()}


def run_batch(command: list[str], pycs: list[str]) -> tuple[dict[str, str], str]:
    result = subprocess.run(
        command + pycs,
        capture_output=True,
        env={**os.environ, "PYTHONIOENCODING": "utf-8", "PYTHONHASHSEED": "0"},
    )
    stdout = result.stdout.decode("utf-8", errors="backslashreplace")
    stderr = result.stderr.decode("utf-8", errors="backslashreplace")
    return split_listings(stdout, pycs), stderr


def run_batches(
    command: list[str], pycs: list[str], batch: int, jobs: int
) -> tuple[dict[str, str], str]:
    chunks = [pycs[i : i + batch] for i in range(0, len(pycs), batch)]
    listings: dict[str, str] = {}
    errors = []
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        for found, stderr in pool.map(lambda chunk: run_batch(command, chunk), chunks):
            listings.update(found)
            if stderr:
                errors.append(stderr)
    return listings, "".join(errors)


def errors_by_file(stderr: str, pycs: list[str]) -> dict[str, str]:
    errors = {}
    for line in stderr.splitlines():
        for pyc in pycs:
            if pyc in line:
                errors.setdefault(pyc, line)
    return errors


def first_difference(expected: list[str], actual: list[str]) -> tuple[int, str, str] | None:
    for n in range(max(len(expected), len(actual))):
        want = expected[n] if n < len(expected) else "<end of listing>"
        got = actual[n] if n < len(actual) else "<end of listing>"
        if want != got:
            return n + 1, want, got
    return None


def find_tool(explicit: str | None) -> str:
    candidates = [
        explicit,
        os.environ.get("GLASSBOX_DECOMPILE"),
        shutil.which("glassbox-decompile"),
        str(REPO / "build" / "glassbox-decompile"),
    ]
    for candidate in candidates:
        if candidate and Path(candidate).exists():
            return candidate
    sys.exit("compare_dis: glassbox-decompile not found; pass --tool or set GLASSBOX_DECOMPILE")


# ---------------------------------------------------------------------------------------------


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("python", help="the interpreter of the version under test")
    parser.add_argument(
        "files", nargs="*", type=Path, help="sources to compare (default: its whole Lib/)"
    )
    parser.add_argument(
        "--tool", help="glassbox-decompile executable (default: $GLASSBOX_DECOMPILE, PATH, build/)"
    )
    parser.add_argument(
        "--no-tests", action="store_true", help="skip test/, tests/ and idle_test/ directories"
    )
    parser.add_argument("--jobs", type=int, default=2, help="processes at a time (default 2)")
    parser.add_argument("--batch", type=int, default=150, help="files per process (default 150)")
    parser.add_argument(
        "--strict-whitespace", action="store_true", help="compare whitespace exactly too"
    )
    parser.add_argument("--show", type=int, default=30, help="mismatches to print (default 30)")
    args = parser.parse_args()

    tool = find_tool(args.tool)
    version = subprocess.run(
        [args.python, "-c", "import sys; print('%d.%d' % sys.version_info[:2])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    sources = [f.resolve() for f in args.files] or stdlib_sources(args.python, not args.no_tests)

    with tempfile.TemporaryDirectory(prefix="compare_dis_") as tmp:
        compiled, failed_to_compile = compile_all(args.python, sources, Path(tmp))
        pycs = sorted(compiled)
        with ThreadPoolExecutor(max_workers=2) as pool:
            reference_job = pool.submit(
                run_batches, [args.python, str(REFERENCE)], pycs, args.batch, max(1, args.jobs // 2)
            )
            tool_job = pool.submit(
                run_batches, [tool, "--dis"], pycs, args.batch, max(1, args.jobs - args.jobs // 2)
            )
            expected, reference_stderr = reference_job.result()
            actual, tool_stderr = tool_job.result()

    tool_errors = errors_by_file(tool_stderr, pycs)
    reference_errors = errors_by_file(reference_stderr, pycs)
    matched, shown = 0, 0
    for pyc in pycs:
        source = compiled[pyc]
        if pyc in reference_errors:
            problem = f"reference failed: {reference_errors[pyc]}"
        elif pyc in tool_errors:
            problem = f"tool failed: {tool_errors[pyc]}"
        else:
            diff = first_difference(
                normalize(expected.get(pyc, ""), args.strict_whitespace),
                normalize(actual.get(pyc, ""), args.strict_whitespace),
            )
            if diff is None:
                matched += 1
                continue
            line, want, got = diff
            problem = f"line {line}\n    dis:  {want}\n    tool: {got}"
        if shown < args.show:
            print(f"MISMATCH {source}: {problem}")
            shown += 1
    print(
        f"Python {version}: matched {matched} / {len(pycs)} files"
        f" ({len(failed_to_compile)} sources not compilable, skipped)"
    )
    return 0 if matched == len(pycs) else 1


if __name__ == "__main__":
    sys.exit(main())
