"""Every code object of a standard library that does not come back strictly equal, one per line.

    python3 scripts/misses.py 3.12 > /tmp/m312.tsv   # file, qualname, size, kind, difference
    python3 scripts/misses.py 3.11 --optimize 0 --recompile-optimize 1   # the cross-level check
    python3 scripts/misses.py 3.12 .venv/lib/python3.11/site-packages/rich  # other code than
                                                                            # the stdlib

``kind`` is ``fallback`` when the decompiled function holds a marked fallback (its own code, not a
nested one), ``missing`` when the code object has no counterpart (a parent fell back), else
``other`` (same behaviour, other instructions); across levels, ``source`` where the source's own
code object differs between them (its asserts, `if __debug__:`, docstrings), ``kept`` where
the output then compiles to what the decompiled level's code does (`if __debug__:` read as the
`if True:` it compiles like). Sorted by size, smallest first: the best place to
start. ``GLASSBOX_DECOMPILE=/path/to/glassbox-decompile`` judges another build (a copy of an
older one, to see what a change won and lost). Runs the comparison under the judging interpreter
with the verifier's ``normalize.py``. ``--optimize N`` decompiles .pyc compiled at level N;
``--recompile-optimize M`` (default N) recompiles the output at M and compares it with the source
compiled at M (0 then 1: does anything the decompiler wrote for -O0 code vanish under -O?).
"""

from __future__ import annotations

import argparse
import glob
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

INNER = r"""
import marshal, os, py_compile, subprocess, sys, tempfile, warnings
sys.path.insert(0, sys.argv[1])
import normalize
decompiler = sys.argv[2]
optimize, level = int(sys.argv[3]), int(sys.argv[4])
files = sys.stdin.read().split("\n")
warnings.simplefilter("ignore")
def walk(e, g):
    yield e, g
    for i, c in enumerate(e.children):
        yield from walk(c, g.children[i] if g is not None and i < len(g.children) else None)
def has_fallback(n):
    return any("NotImplementedError" in op.text for op in n.ops)
with tempfile.TemporaryDirectory() as tmp:
    for path in filter(None, files):
        try:
            pyc = os.path.join(tmp, "x.pyc")
            py_compile.compile(path, cfile=pyc + ".expected", doraise=True, optimize=level)
            with open(pyc + ".expected", "rb") as f:
                original = marshal.loads(f.read()[16:])
            py_compile.compile(path, cfile=pyc, doraise=True, optimize=optimize)
        except Exception:
            continue
        try:
            r = subprocess.run([decompiler, pyc], capture_output=True, timeout=60)
        except subprocess.TimeoutExpired:
            print(f"{path}\t<module>\t0\thang\t"); continue
        if r.returncode not in (0, 1):
            print(f"{path}\t<module>\t0\tcrash\t{r.returncode}"); continue
        try:
            got = compile(r.stdout.decode(), path, "exec", dont_inherit=True, optimize=level)
        except SyntaxError as e:
            print(f"{path}\t<module>\t0\tno_compile\t{e}"); continue
        own = {}  # (qualname, occurrence) -> the source's code at the decompiled level
        if optimize != level:
            with open(pyc, "rb") as f:
                for b, _ in walk(normalize.normalize(marshal.loads(f.read()[16:])), None):
                    own.setdefault(b.qualname, []).append(b)
        seen = {}
        for e, g in walk(normalize.normalize(original), normalize.normalize(got)):
            at = seen[e.qualname] = seen.get(e.qualname, -1) + 1
            if g is None:
                print(f"{path}\t{e.qualname}\t{len(e.ops)}\tmissing\t"); continue
            d = normalize.difference_here(e, g, frozenset())
            if d is None:
                continue
            kind = "fallback" if has_fallback(g) and not has_fallback(e) else "other"
            mine = own.get(e.qualname, [])
            own_differs = at < len(mine) and normalize.difference_here(e, mine[at], frozenset())
            if kind == "other" and own_differs:
                # The source's own code differs between the levels (asserts, `if __debug__:`):
                # "kept" where the output runs what the code it was decompiled from runs.
                kept = normalize.difference_here(mine[at], g, frozenset()) is None
                kind = "kept" if kept else "source"
            text = d.describe().replace("\t", " ")[:300]
            print(f"{path}\t{e.qualname}\t{len(e.ops)}\t{kind}\t{text}", flush=True)
"""


def stdlib_files(lib: str) -> list[str]:
    files = []
    for path in sorted(glob.glob(os.path.join(lib, "**", "*.py"), recursive=True)):
        rel = os.path.relpath(path, lib)
        parts = rel.split(os.sep)
        if "site-packages" in parts or any(p in ("test", "tests", "idle_test") for p in parts):
            continue
        if parts[0] in ("lib2to3",) and "tests" in parts:
            continue
        files.append(path)
    return files


def named_files(paths: list[str]) -> list[str]:
    files = []
    for path in paths:
        if os.path.isdir(path):
            files.extend(sorted(glob.glob(os.path.join(path, "**", "*.py"), recursive=True)))
        else:
            files.append(path)
    return [os.path.abspath(f) for f in files]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("version", help="3.10, 3.11, 3.12 or 3.13 (found under ~/.pyenv)")
    parser.add_argument("--optimize", type=int, choices=(0, 1, 2), default=0)
    parser.add_argument("--recompile-optimize", type=int, choices=(0, 1, 2))
    parser.add_argument(
        "paths", nargs="*", help=".py files or folders to judge instead of the standard library"
    )
    args = parser.parse_args()
    version = args.version
    level = args.optimize if args.recompile_optimize is None else args.recompile_optimize
    python = sorted(
        glob.glob(os.path.expanduser(f"~/.pyenv/versions/{version}.*/bin/python{version}"))
    )[-1]
    lib = subprocess.check_output(
        [python, "-c", "import sysconfig; print(sysconfig.get_paths()['stdlib'])"], text=True
    ).strip()
    if args.paths:
        files = named_files(args.paths)
        lib = os.path.commonpath([os.path.dirname(f) for f in files])
    else:
        files = stdlib_files(lib)
    out = subprocess.run(
        [
            python,
            "-I",
            "-c",
            INNER,
            os.path.join(ROOT, "glassbox", "verify"),
            os.environ.get("GLASSBOX_DECOMPILE")
            or os.path.join(ROOT, ".venv", "bin", "glassbox-decompile"),
            str(args.optimize),
            str(level),
        ],
        input="\n".join(files),
        capture_output=True,
        text=True,
    )
    rows = [line.split("\t") for line in out.stdout.splitlines()]
    rows.sort(key=lambda r: int(r[2]))
    for r in rows:
        r[0] = os.path.relpath(r[0], lib)
        print("\t".join(r))
    sys.stderr.write(out.stderr[-2000:])
    if out.returncode != 0:
        # (Killed or crashed part way: the files after the one it stopped at were not judged.)
        sys.exit(
            f"misses.py: the judging process exited with {out.returncode}; the list is partial"
        )


if __name__ == "__main__":
    main()
