"""`make demo`: the main job on a built-in example.

Each capability once, briefly: the decompiler on a built-in example's .pyc (its listing and its
source), then capture, pythonify and the native backend on small built-in models, and a summary
of what was done and where the files are.
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


def decompile_demo(tmp: Path) -> str:
    """The bytecode layer on the example: its listing and its source, from a .pyc file."""
    source = tmp / "example.py"
    source.write_text(EXAMPLE_SOURCE)
    pyc = py_compile.compile(str(source), cfile=str(tmp / "example.pyc"), doraise=True)
    exe = decompile_executable()
    print("== 1. decompiler: glassbox-decompile --dis example.pyc  (the listing dis.dis prints)")
    listing = subprocess.run([exe, "--dis", pyc], capture_output=True, text=True, check=True)
    lines = listing.stdout.splitlines()
    print("   " + "\n   ".join(lines[:14]) + f"\n   ... ({len(lines)} lines)")
    print("\n   glassbox-decompile example.pyc  (the source, from the bytecode alone)")
    decompiled = subprocess.run([exe, pyc], capture_output=True, text=True, check=True).stdout
    print("   " + "\n   ".join(decompiled.rstrip().splitlines()))
    same = _same_bytecode(EXAMPLE_SOURCE, decompiled)
    print(f"   recompiles to the same bytecode: {same}")
    return f"example.pyc decompiled; recompiles to the same bytecode: {same}"


def _same_bytecode(original: str, decompiled: str) -> bool:
    """Whether the two module sources compile to equal code objects (line numbers aside)."""
    from glassbox.verify.normalize import compare

    first = compile(original, "example.py", "exec")
    second = compile(decompiled, "example.py", "exec")
    return compare(first, second, frozenset()).equal


def capture_demo(dump_dir: str = "build/demo-capture") -> str:
    """Capture torch.compile (aot_eager, CPU) of a small model with a graph break into dump_dir."""
    import torch

    TinyModel = tiny_model_class()
    print(f"\n== 2. capture: torch.compile(TinyModel(), backend='aot_eager') into {dump_dir}/")
    model = torch.compile(TinyModel(), backend="aot_eager")
    with glassbox.capture(dump_dir) as capture:
        model(torch.randn(2, 4)).backward()
    dump = Path(capture.dump_dir)
    files = sorted(dump.rglob("*.py"))
    by_folder: dict[str, list[str]] = {}
    for path in files:
        folder = str(path.parent.relative_to(dump))
        by_folder.setdefault("" if folder == "." else folder + "/", []).append(path.name)
    for folder, names in by_folder.items():
        print(f"   {folder or './'}  " + ", ".join(names))
    entries = [entry for frame in capture.frames.values() for entry in frame.entries]
    running = sum(entry.runs_from_dump for entry in entries)
    print(f"   {running} of {len(entries)} transformed code objects run from their dump file")
    return f"{len(files)} .py files in {dump}/ (start with {dump / 'index.md'})"


def pythonify_demo(path: str = "build/demo-pythonify.py") -> str:
    """Pythonify a small model with a graph break (aot_eager, training) and run the file."""
    import torch

    TinyModel = tiny_model_class()
    print(f"\n== 3. pythonify: glassbox.pythonify(TinyModel(), (x,), {path!r})")
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    torch.manual_seed(0)
    x = torch.randn(2, 4)
    glassbox.pythonify(TinyModel(), (x,), path, backend="aot_eager")
    torch.manual_seed(0)
    model = TinyModel()  # rebuilt from the same seed: the file reads its weights by path
    namespace = {"__name__": "pythonified", "target": model, "args": (x,)}
    exec(compile(Path(path).read_text(), path, "exec"), namespace)
    namespace["y"].backward()
    torch.manual_seed(0)
    eager = TinyModel()
    expected = eager(x)
    expected.backward()
    same = torch.equal(namespace["y"], expected) and torch.allclose(
        model.linear.weight.grad, eager.linear.weight.grad
    )
    lines = len(Path(path).read_text().splitlines())
    print(f"   wrote {path} ({lines} lines); run with exec(): result and gradient as eager: {same}")
    return f"{path}: {lines} lines, runs without Dynamo, same result and gradient: {same}"


def backend_demo(out_dir: str = "build/demo-backend") -> tuple[int, str]:
    """Compile a small model with backend="glassbox", export it, and run it with glassbox-run."""
    import numpy as np
    import torch

    torch.manual_seed(0)
    model = torch.nn.Sequential(
        torch.nn.Linear(16, 32), torch.nn.GELU(), torch.nn.LayerNorm(32), torch.nn.Linear(32, 4)
    ).eval()
    x = torch.randn(3, 16)
    with torch.no_grad():
        expected = model(x)
        compiled = torch.compile(model, backend="glassbox")(x)
    print("\n== 4. native backend: torch.compile(model, backend='glassbox')")
    print(f"   max |compiled - eager| = {(compiled - expected).abs().max().item():.1e}")
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    artifact = out / "model.gbx"
    glassbox.export(model, (x,), str(artifact))
    np.save(out / "x.npy", x.numpy())
    run_exe = Path(sys.executable).with_name("glassbox-run")
    print(f"   glassbox.export -> {artifact}; glassbox-run {artifact} --inputs x.npy")
    result = subprocess.run(
        [str(run_exe), str(artifact), "--inputs", str(out / "x.npy"), "--outputs", str(out)],
        capture_output=True,
        text=True,
        check=False,
    )
    if result.returncode != 0:
        print(result.stderr)
        return result.returncode, f"glassbox-run failed with exit code {result.returncode}"
    error = abs(np.load(out / "out0.npy") - expected.numpy()).max()
    print(f"   max |glassbox-run - eager| = {error:.1e}  (no Python in the run)")
    size = artifact.stat().st_size
    return 0, f"{artifact} ({size} bytes) runs in glassbox-run, error {error:.1e}"


def main() -> int:
    summary: list[tuple[str, str]] = []
    with tempfile.TemporaryDirectory() as tmp:
        summary.append(("decompiler", decompile_demo(Path(tmp))))
    status = 0
    try:
        import torch  # noqa: F401
    except ImportError:
        print("\n(torch is not installed: capture, pythonify and the backend are skipped)")
    else:
        summary.append(("capture", capture_demo()))
        summary.append(("pythonify", pythonify_demo()))
        status, line = backend_demo()
        summary.append(("backend", line))
    print("\n== What the demo did")
    for name, line in summary:
        print(f"   {name:<11} {line}")
    return status


if __name__ == "__main__":
    raise SystemExit(main())
