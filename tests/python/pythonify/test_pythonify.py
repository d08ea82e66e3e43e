"""Pythonify: the written file reproduces torch.compile in a fresh process, without Dynamo."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
import pythonify_zoo as zoo
import torch

import glassbox
from glassbox.pythonify import PythonifyError, gen_binary, gen_python

HERE = Path(__file__).parent
ROOT = HERE.parents[2]


def fresh(path, name, tmp_path, seed=0, batch=3, train=True):
    out = tmp_path / f"{name}-{batch}.pt"
    command = [sys.executable, str(HERE / "fresh_run.py"), str(path), name, str(seed), str(out)]
    command += [str(batch)] + ([] if train else ["--eval"])
    done = subprocess.run(command, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    return torch.load(out)


def reference(name, backend, batch=3, train=True, dynamic=None):
    """torch.compile's and eager's results for the same seeds, as fresh_run computes them."""
    results = {}
    for mode in ("compiled", "eager"):
        torch._dynamo.reset()
        model = zoo.build(name, 0)
        model.train(train)
        args, kwargs = zoo.inputs(name, batch=batch)
        x = args[0].requires_grad_(train)
        fn = torch.compile(model, backend=backend, dynamic=dynamic) if mode == "compiled" else model
        y = zoo.tensor_of(fn(*args, **kwargs))
        result = {"y": y.detach(), "buffers": {k: v.clone() for k, v in model.named_buffers()}}
        if train:
            y.sum().backward()
            result["x.grad"] = x.grad
            result["grads"] = {k: p.grad for k, p in model.named_parameters()}
        results[mode] = result
    return results


def assert_same(got, want, exact):
    def check(a, b, what):
        if exact:
            assert torch.equal(a, b), what
        else:
            torch.testing.assert_close(a, b, atol=1e-4, rtol=1e-4, msg=what)

    check(got["y"], want["y"], "output")
    for key, value in want["buffers"].items():
        check(got["buffers"][key], value, f"buffer {key}")
    if "x.grad" in want:
        check(got["x.grad"], want["x.grad"], "input gradient")
        for key, value in want["grads"].items():
            check(got["grads"][key], value, f"gradient of {key}")


def write(name, tmp_path, backend="aot_eager", dynamic=None, train=True, batch=3):
    model = zoo.build(name, 0)
    model.train(train)
    args, kwargs = zoo.inputs(name, batch=batch)
    args[0].requires_grad_(train)
    path = tmp_path / f"{name}.py"
    compiled = glassbox.pythonify(
        model, args, path, example_kwargs=kwargs, backend=backend, dynamic=dynamic
    )
    return path, compiled


@pytest.mark.parametrize("name", ["BreakNorm", "MLP"])
def test_fresh_process_training_bitwise(name, tmp_path):
    path, _ = write(name, tmp_path)
    got = fresh(path, name, tmp_path)
    assert not got["dynamo_imported"]
    want = reference(name, "aot_eager")
    assert_same(got, want["compiled"], exact=True)
    assert_same(got, want["eager"], exact=False)


def test_fresh_process_inference_and_sections(tmp_path):
    path, _ = write("MLP", tmp_path, train=False)
    text = path.read_text()
    headers = re.findall(r"^# \d\. (.+)$", text, re.MULTILINE)
    assert [h.split(" (")[0] for h in headers] == [
        "Argument extraction", "Guard checks", "Compiled graphs", "Autograd wrappers",
        "Graph-break glue", "Variants and dispatchers", "Invocation and result",
    ]  # fmt: skip
    assert not re.search(r"id\(.*\) == \d{6,}", text), "a process-local id in the file"
    with torch.no_grad():
        got = fresh(path, "MLP", tmp_path, train=False)
    want = reference("MLP", "aot_eager", train=False)
    assert_same(got, want["compiled"], exact=True)


def test_dynamic_shapes_other_batch(tmp_path):
    path, _ = write("MLP", tmp_path, dynamic=True, batch=3)
    got = fresh(path, "MLP", tmp_path, batch=7)
    want = reference("MLP", "aot_eager", batch=7, dynamic=True)
    assert_same(got, want["compiled"], exact=True)


def test_recompile_variants_and_kwargs(tmp_path):
    path = tmp_path / "branchy.py"
    model = zoo.build("Branchy")
    compiled = glassbox.compile(model, pythonify=str(path), backend="aot_eager")
    (x,), kwargs = zoo.inputs("Branchy")
    compiled(x, **kwargs)
    compiled(x)  # bias=None: Dynamo recompiles the frame
    x5 = torch.randn(5, 4)
    compiled(x5, **kwargs)  # a new batch size: a third variant (automatic dynamic shapes)
    namespace = {}
    exec(compile(path.read_text(), str(path), "exec"), namespace)
    rebuilt = zoo.build("Branchy")
    torch._dynamo.reset()
    reference_fn = torch.compile(zoo.build("Branchy"), backend="aot_eager")
    for call_args, call_kwargs in (((x,), kwargs), ((x,), {}), ((x5,), kwargs)):
        got = namespace["run"](rebuilt, *call_args, **call_kwargs)
        assert torch.equal(got, reference_fn(*call_args, **call_kwargs))
    assert path.read_text().count("def guard_forward_") == 3


def test_guard_failures_name_the_guard(tmp_path):
    path, _ = write("MLP", tmp_path, train=False)
    namespace = {}
    exec(compile(path.read_text(), str(path), "exec"), namespace)
    model = zoo.build("MLP")
    run = namespace["run"]
    GuardError = namespace["GuardError"]
    cases = {
        "dtype": (torch.randn(3, 4, dtype=torch.float64), "dtype == torch.float32"),
        "shape": (torch.randn(3, 5), "size(1) == 4"),
        "device": (torch.randn(3, 4, device="meta"), "device.type == 'cpu'"),
    }
    for what, (x, expected) in cases.items():
        with pytest.raises(GuardError) as caught:
            run(model, x)
        assert expected in str(caught.value), (what, str(caught.value))
    namespace["ON_GUARD_FAILURE"] = "eager"
    y = run(model, torch.randn(3, 4, dtype=torch.float64).float())
    assert y.shape == (3, 3)
    model.double()
    x = torch.randn(3, 4, dtype=torch.float64)
    torch.testing.assert_close(run(model, x), model(x))  # eager fallback


@pytest.mark.parametrize("name", ["BreakNorm", "MLP", "Branchy"])
def test_gen_python_and_gen_binary_agree(name, tmp_path):
    path, compiled = write(name, tmp_path)
    program = compiled.program()
    run_binary = gen_binary.build(program)
    namespace = {}
    exec(compile(gen_python.render(program), name, "exec"), namespace)
    results = []
    for run in (namespace["run"], run_binary):
        model = zoo.build(name, 0)
        args, kwargs = zoo.inputs(name)
        x = args[0].requires_grad_(True)
        y = run(model, *args, **kwargs)
        y.sum().backward()
        results.append((y.detach(), x.grad, [p.grad for p in model.parameters()]))
    (y1, g1, p1), (y2, g2, p2) = results
    assert torch.equal(y1, y2) and torch.equal(g1, g2)
    assert all(torch.equal(a, b) for a, b in zip(p1, p2, strict=True))


def test_inductor_cpu_fresh_process_bitwise(tmp_path):
    """Inductor's C++ kernels and wrapper, loaded by the file without torch.compile (slow: one)."""
    path, _ = write("MLP", tmp_path, backend="inductor")
    assert "load_inductor_module" in path.read_text()
    got = fresh(path, "MLP", tmp_path)
    assert got.get("dynamo_frames", 0) == 0  # the inductor runtime imports Dynamo; no frame ran
    want = reference("MLP", "inductor")
    assert_same(got, want["compiled"], exact=True)
    assert_same(got, want["eager"], exact=False)


def test_nothing_compiled_is_an_error_not_a_missing_file(tmp_path):
    class Recurrent(torch.nn.Module):  # Dynamo runs nn.GRU eagerly: no frame is compiled
        def __init__(self):
            super().__init__()
            self.gru = torch.nn.GRU(4, 6, batch_first=True)

        def forward(self, x):
            return self.gru(x)

    torch._dynamo.reset()
    path = tmp_path / "gru.py"
    with pytest.raises(PythonifyError, match="compiled no frame for .*forward"):
        glassbox.pythonify(Recurrent(), (torch.randn(2, 3, 4),), path, backend="aot_eager")
    assert not path.exists()


def test_inductor_under_python_O_is_refused():
    """Inductor compiling afresh under -O miscompiles real models (torch 2.13): refused by name."""
    code = (
        "import glassbox\n"
        "from glassbox.pythonify.adapters.dynamo import Recorder\n"
        "from glassbox.pythonify import PythonifyError\n"
        "Recorder('aot_eager')\n"
        "try:\n"
        "    Recorder('inductor')\n"
        "except PythonifyError as error:\n"
        "    print('refused:', error)\n"
    )
    done = subprocess.run([sys.executable, "-O", "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "refused: backend='inductor' under python -O" in done.stdout
