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


def capture_demo(dump_dir: str = "build/demo-capture") -> None:
    """Capture torch.compile (aot_eager, CPU) of a small model with a graph break into dump_dir."""
    try:
        import torch
    except ImportError:
        print("\n== capture: skipped (torch is not installed)")
        return

    class TinyModel(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.linear = torch.nn.Linear(4, 4)

        def forward(self, x):
            y = self.linear(x).relu()
            print("   (TinyModel: a print, so Dynamo breaks the graph here)")
            return (y * 2).sum()

    print(f"\n== glassbox.capture({dump_dir!r}): torch.compile(TinyModel(), backend='aot_eager')")
    model = torch.compile(TinyModel(), backend="aot_eager")
    with glassbox.capture(dump_dir) as capture:
        model(torch.randn(2, 4)).backward()
    dump = Path(capture.dump_dir)
    print(f"dump: {dump}  (start with {dump / 'index.md'})")
    for path in sorted(dump.rglob("*.py")):
        print(f"   {path.relative_to(dump)}")


def pythonify_demo(path: str = "build/demo-pythonify.py") -> None:
    """Pythonify a small model with a graph break (aot_eager, training) and run the file."""
    try:
        import torch
    except ImportError:
        print("\n== pythonify: skipped (torch is not installed)")
        return

    class TinyBreak(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.linear = torch.nn.Linear(4, 4)

        def forward(self, x):
            y = self.linear(x).relu()
            print("   (TinyBreak: a print, so Dynamo breaks the graph here)")
            return (y * 2).sum()

    print(f"\n== glassbox.pythonify(TinyBreak(), (x,), {path!r}, backend='aot_eager')")
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    torch.manual_seed(0)
    x = torch.randn(2, 4)
    glassbox.pythonify(TinyBreak(), (x,), path, backend="aot_eager")
    torch.manual_seed(0)
    model = TinyBreak()  # rebuilt from the same seed: the file reads its weights by path
    namespace = {"__name__": "pythonified", "target": model, "args": (x,)}
    exec(compile(Path(path).read_text(), path, "exec"), namespace)
    namespace["y"].backward()
    print(f"wrote {path}; y = {namespace['y'].item():.6f}, "
          f"|grad W| = {model.linear.weight.grad.norm().item():.6f}")


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
    capture_demo()
    pythonify_demo()
    return result.returncode


if __name__ == "__main__":
    raise SystemExit(main())
