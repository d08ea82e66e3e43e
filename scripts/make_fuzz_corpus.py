#!/usr/bin/env python3
"""Writes a seed corpus for fuzz/fuzz_marshal.cpp into the directory given as argv[1].

For each installed pyenv interpreter 3.10-3.13 (~/.pyenv/versions/3.X.*) it compiles a few
standard-library modules and writes each as a .pyc image (header + marshal) and as bare marshal
data (no header), so the fuzzer starts from real code objects of every layout. A few plain
marshalled constants are added as well.

    python3 scripts/make_fuzz_corpus.py /tmp/fuzz-corpus
"""

import glob
import os
import pathlib
import subprocess
import sys

VERSIONS = ["3.10", "3.11", "3.12", "3.13"]
# Small modules with a spread of constructs: classes, closures, comprehensions, try/with, match.
MODULES = ["keyword", "bisect", "colorsys", "this", "fnmatch", "shlex", "textwrap", "reprlib"]

CHILD = r"""
import importlib._bootstrap_external as bootstrap
import importlib.util, marshal, pathlib, sys
out = pathlib.Path(sys.argv[1])
tag = "py3%d" % sys.version_info[1]
for name in sys.argv[2:]:
    spec = importlib.util.find_spec(name)
    source = pathlib.Path(spec.origin).read_bytes()
    code = compile(source, spec.origin, "exec")
    pyc = bootstrap._code_to_timestamp_pyc(code, 0, len(source))
    (out / f"{name}.{tag}.pyc").write_bytes(bytes(pyc))
    (out / f"{name}.{tag}.marshal").write_bytes(marshal.dumps(code))
constants = [
    (1, 2.5, 3j, b"x", "\u00e9\ud800", None, ...),
    frozenset({1, "a"}), {1: [2]}, 2**200, -(2**40),
]
for i, value in enumerate(constants):
    (out / f"const{i}.{tag}.marshal").write_bytes(marshal.dumps(value))
"""


def main():
    if len(sys.argv) != 2:
        sys.exit(f"usage: {sys.argv[0]} OUTPUT_DIR")
    out = pathlib.Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    found = 0
    for version in VERSIONS:
        pythons = sorted(
            glob.glob(os.path.expanduser(f"~/.pyenv/versions/{version}.*/bin/python{version}"))
        )
        if not pythons:
            print(f"skipping {version}: not installed under ~/.pyenv/versions", file=sys.stderr)
            continue
        subprocess.run([pythons[-1], "-c", CHILD, str(out), *MODULES], check=True)
        found += 1
    if not found:
        sys.exit("no Python 3.10-3.13 found under ~/.pyenv/versions")
    print(f"wrote {len(list(out.iterdir()))} files to {out}")


if __name__ == "__main__":
    main()
