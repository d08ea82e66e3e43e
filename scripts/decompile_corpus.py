"""The decompiler's whole output on a fixed corpus, one file per Python version: the check that a
refactor changed nothing.

    python3 scripts/decompile_corpus.py /tmp/before             # with .venv/bin/glassbox-decompile
    ... change, rebuild ...
    python3 scripts/decompile_corpus.py /tmp/after && diff -r /tmp/before /tmp/after

The corpus: each installed CPython 3.10-3.13's standard library (tests excluded) compiled at -O0
and -O1, plus any folders of .py files named with ``--extra`` (compiled at -O0). Each version's
file holds, per input, a ``#### path optimize`` line, the decompiler's stdout and stderr, and its
exit code. ``--decompiler`` (or ``GLASSBOX_DECOMPILE``) picks the build.
"""

from __future__ import annotations

import argparse
import glob
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "scripts"))

from misses import stdlib_files  # noqa: E402

COMPILE = r"""
import os, py_compile, sys
out = sys.argv[1]
for n, line in enumerate(sys.stdin.read().splitlines()):
    path, level = line.rsplit("\t", 1)
    target = os.path.join(out, f"{n:06d}.pyc")
    try:
        py_compile.compile(path, cfile=target, doraise=True, optimize=int(level))
    except Exception:
        continue
    print(f"{target}\t{path} {level}")
"""


def interpreter(version: str) -> str | None:
    found = sorted(
        glob.glob(os.path.expanduser(f"~/.pyenv/versions/{version}.*/bin/python{version}"))
    )
    return found[-1] if found else None


def corpus(python: str, extra: list[str]) -> list[tuple[str, int]]:
    lib = subprocess.check_output(
        [python, "-c", "import sysconfig; print(sysconfig.get_paths()['stdlib'])"], text=True
    ).strip()
    items = [(path, level) for path in stdlib_files(lib) for level in (0, 1)]
    for folder in extra:
        items += [
            (p, 0) for p in sorted(glob.glob(os.path.join(folder, "**", "*.py"), recursive=True))
        ]
    return items


def decompile_version(version: str, python: str, args: argparse.Namespace, work: str) -> None:
    folder = os.path.join(work, version)
    os.makedirs(folder, exist_ok=True)
    listing = "".join(f"{path}\t{level}\n" for path, level in corpus(python, args.extra))
    compiled = subprocess.run(
        [python, "-I", "-W", "ignore", "-c", COMPILE, folder],
        input=listing,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.splitlines()
    with open(os.path.join(args.out, f"{version}.txt"), "wb") as out:
        for line in compiled:
            pyc, name = line.split("\t", 1)
            run = subprocess.run([args.decompiler, pyc], capture_output=True, timeout=120)
            out.write(f"#### {name}\n".encode() + run.stdout + run.stderr)
            out.write(f"rc={run.returncode}\n".encode())
    print(f"{version}: {len(compiled)} inputs", file=sys.stderr)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", help="folder for 3.X.txt (created)")
    parser.add_argument(
        "--decompiler",
        default=os.environ.get(
            "GLASSBOX_DECOMPILE", os.path.join(ROOT, ".venv", "bin", "glassbox-decompile")
        ),
    )
    parser.add_argument("--extra", action="append", default=[], help="a folder of .py files")
    parser.add_argument("--versions", nargs="+", default=["3.10", "3.11", "3.12", "3.13"])
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    with tempfile.TemporaryDirectory() as work:
        for version in args.versions:
            python = interpreter(version)
            if python is None:
                print(f"{version}: no interpreter under ~/.pyenv, skipped", file=sys.stderr)
                continue
            decompile_version(version, python, args, work)


if __name__ == "__main__":
    main()
