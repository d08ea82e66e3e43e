"""`make demo`: the main job on a built-in example.

The bytecode layer (disassemble and decompile a built-in example with the C++ core, through the
Python API and `glassbox-decompile`), then capture, pythonify and the native backend on small
built-in models.
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


def tiny_model_class() -> type:
    """The built-in model of the demos: a Linear and a print, so Dynamo breaks the graph."""
    import torch

    class TinyModel(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.linear = torch.nn.Linear(4, 4)

        def forward(self, x):
            y = self.linear(x).relu()
            print("   (TinyModel: a print, so Dynamo breaks the graph here)")
            return (y * 2).sum()

    return TinyModel


def capture_demo(dump_dir: str = "build/demo-capture") -> None:
    """Capture torch.compile (aot_eager, CPU) of a small model with a graph break into dump_dir."""
    try:
        import torch
    except ImportError:
        print("\n== capture: skipped (torch is not installed)")
        return

    TinyModel = tiny_model_class()
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

    TinyModel = tiny_model_class()
    print(f"\n== glassbox.pythonify(TinyModel(), (x,), {path!r}, backend='aot_eager')")
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    torch.manual_seed(0)
    x = torch.randn(2, 4)
    glassbox.pythonify(TinyModel(), (x,), path, backend="aot_eager")
    torch.manual_seed(0)
    model = TinyModel()  # rebuilt from the same seed: the file reads its weights by path
    namespace = {"__name__": "pythonified", "target": model, "args": (x,)}
    exec(compile(Path(path).read_text(), path, "exec"), namespace)
    namespace["y"].backward()
    print(
        f"wrote {path}; y = {namespace['y'].item():.6f}, "
        f"|grad W| = {model.linear.weight.grad.norm().item():.6f}"
    )


def backend_demo(out_dir: str = "build/demo-backend") -> int:
    """Compile a small model with backend="glassbox", export it, and run it with glassbox-run."""
    try:
        import numpy as np
        import torch
    except ImportError:
        print("\n== native backend: skipped (torch or numpy is not installed)")
        return 0

    torch.manual_seed(0)
    model = torch.nn.Sequential(
        torch.nn.Linear(16, 32), torch.nn.GELU(), torch.nn.LayerNorm(32), torch.nn.Linear(32, 4)
    ).eval()
    x = torch.randn(3, 16)
    with torch.no_grad():
        expected = model(x)
        compiled = torch.compile(model, backend="glassbox")(x)
    print("\n== torch.compile(model, backend='glassbox')")
    print(f"max |compiled - eager| = {(compiled - expected).abs().max().item():.2e}")

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    artifact = out / "model.gbx"
    glassbox.export(model, (x,), str(artifact))
    np.save(out / "x.npy", x.numpy())
    run_exe = Path(sys.executable).with_name("glassbox-run")
    print(f"== glassbox.export -> {artifact}; {run_exe.name} {artifact} --inputs x.npy")
    result = subprocess.run(
        [str(run_exe), str(artifact), "--inputs", str(out / "x.npy"), "--outputs", str(out)],
        check=False,
    )
    if result.returncode != 0:
        return result.returncode
    from_runner = np.load(out / "out0.npy")
    from_load = glassbox.load(str(artifact))(x)
    from_load = from_load[0] if isinstance(from_load, (tuple, list)) else from_load
    print(
        f"max |glassbox-run - eager| = {abs(from_runner - expected.numpy()).max():.2e}, "
        f"max |glassbox-run - glassbox.load| = {abs(from_runner - np.asarray(from_load)).max():.2e}"
    )
    return 0


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
        if result.returncode == 0:
            print(f"\n== glassbox-decompile {Path(pyc).name}  (the module's source, from bytecode)")
            result = subprocess.run([decompile_executable(), pyc], check=False)
    print("\n== glassbox.decompile(scaled_relu)")
    print(glassbox.decompile(namespace["scaled_relu"]))
    capture_demo()
    pythonify_demo()
    backend_status = backend_demo()
    return result.returncode or backend_status


if __name__ == "__main__":
    raise SystemExit(main())
