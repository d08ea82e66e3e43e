"""The model zoo: outputs and gradients with capture equal those without it."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest
import torch

import glassbox

sys.path.insert(0, str(Path(__file__).parent))
from capture_zoo import make, zoo  # noqa: E402

ROOT = Path(__file__).resolve().parents[3]


def _run(model, x, compiled):
    x = x.clone().requires_grad_()
    out = compiled(x)
    out.sum().backward()
    grads = [p.grad.clone() for p in model.parameters()]
    return out.detach(), x.grad.clone(), grads


@pytest.mark.parametrize("name", sorted(zoo()))
def test_zoo_results_unchanged(tmp_path, name):
    model, x = make(name)
    expected = _run(model, x, model)
    model.zero_grad()
    with glassbox.capture(tmp_path):
        got = _run(model, x, torch.compile(model, backend="aot_eager"))
    torch.testing.assert_close(got, expected)
    index = json.loads((tmp_path / "index.json").read_text())
    assert index["functions"] and not index["errors"], index["errors"]
    for path in tmp_path.rglob("*.py"):  # every dumped file is Python
        compile(path.read_text(), str(path), "exec", dont_inherit=True)


@pytest.mark.parametrize("name", ["break_print", "nested"])
def test_same_as_plain_compile(tmp_path, name):
    model, x = make(name)
    plain = _run(model, x, torch.compile(model, backend="aot_eager"))
    torch._dynamo.reset()
    model.zero_grad()
    with glassbox.capture(tmp_path):
        captured = _run(model, x, torch.compile(model, backend="aot_eager"))
    for a, b in zip(plain[:2], captured[:2], strict=True):
        assert torch.equal(a, b)
    assert all(torch.equal(a, b) for a, b in zip(plain[2], captured[2], strict=True))


def test_automatic_dynamic_recompile_is_indexed(tmp_path):
    model, _ = make("mlp")
    compiled = torch.compile(model, backend="eager")
    with glassbox.capture(tmp_path):
        for batch in (2, 3, 4):
            compiled(torch.randn(batch, 8))
    (function,) = [f for f in json.loads((tmp_path / "index.json").read_text())["functions"]]
    assert len(function["compiles"]) == 2
    assert "size mismatch" in function["compiles"][1]["recompile_reason"]
    guards = (tmp_path / function["compiles"][1]["guards_file"]).read_text()
    assert "L['x'].size(0)" not in guards.split("L['x'].size(1)")[0].split("L['x'].dim()")[1]


def test_inductor_output_code(tmp_path):
    def f(x):
        return torch.sin(x) * 2 + 1

    x = torch.randn(8)
    with glassbox.capture(tmp_path):
        out = torch.compile(f, backend="inductor")(x)
    torch.testing.assert_close(out, f(x))
    (code,) = list(tmp_path.glob("compile_*/inductor_output_code.py"))
    text = code.read_text()
    assert "def call(" in text
    compile(text, str(code), "exec")


def test_readme_capture_example(tmp_path, monkeypatch):
    readme = (ROOT / "README.md").read_text()
    section = readme.split("## Capture", 1)[1].split("\n## ", 1)[0]
    examples = re.findall(r"```python\n(.*?)```", section, re.S)
    assert len(examples) >= 2
    monkeypatch.chdir(tmp_path)
    namespace = {"__name__": "readme_example"}
    for example in examples:  # in order, in one namespace, as a reader would run them
        exec(compile(example, "README.md", "exec"), namespace)
    index = json.loads((tmp_path / "dump" / "index.json").read_text())
    assert any(c["runs_from_dump"] for f in index["functions"] for c in f["compiles"])
