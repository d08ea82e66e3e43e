"""`make demo`: the main job on a built-in example.

For now the main job is the bytecode layer: disassemble a built-in example function with the C++
core, through the Python API and through `glassbox-decompile --dis` on a compiled .pyc.
"""

from __future__ import annotations

import py_compile
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import glassbox

EXAMPLE_SOURCE = '''\
def scaled_relu(values, scale=2.0):
    """A small example with a loop, a branch and a comprehension."""
    out = []
    for v in values:
        if v > 0:
            out.append(v * scale)
        else:
            out.append(0.0)
    return [round(x, 3) for x in out]
'''


def decompile_executable() -> str:
    """Path of glassbox-decompile, installed next to this interpreter."""
    beside = Path(sys.executable).with_name("glassbox-decompile")
    return str(beside) if beside.exists() else shutil.which("glassbox-decompile") or str(beside)


def main() -> int:
    namespace: dict[str, object] = {}
    exec(compile(EXAMPLE_SOURCE, "<glassbox-demo>", "exec"), namespace)
    print("== glassbox.dis(scaled_relu)  (C++ core, this interpreter's bytecode)")
    glassbox.dis(namespace["scaled_relu"])

    with tempfile.TemporaryDirectory() as tmp:
        source = Path(tmp) / "example.py"
        source.write_text(EXAMPLE_SOURCE)
        pyc = py_compile.compile(str(source), cfile=str(Path(tmp) / "example.pyc"), doraise=True)
        print(f"\n== glassbox-decompile --dis {Path(pyc).name}")
        result = subprocess.run([decompile_executable(), "--dis", pyc], check=False)
    return result.returncode


if __name__ == "__main__":
    raise SystemExit(main())
