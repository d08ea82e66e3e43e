"""Aliased outputs: the file regenerates them as AOTAutograd's runtime does (views of inputs, of
intermediates, of intermediate bases), bitwise and with the same aliasing and gradients."""

from __future__ import annotations

import re

import pytest
import pythonify_zoo as zoo
import torch
from test_pythonify import assert_same, fresh, reference, write

import glassbox

# The file imports neither Dynamo nor AOTAutograd (Inductor's source mentions Dynamo indented).
FORBIDDEN_IMPORT = re.compile(r"^(import|from) torch\._(dynamo|functorch)", re.M)


def _grad_fn(t: torch.Tensor) -> str:
    name = type(t.grad_fn).__name__
    return "Function" if name.endswith("FunctionBackward") else name


def _summary(outs, x: torch.Tensor, model: torch.nn.Module, train: bool) -> dict:
    """Values, layout, autograd and aliasing of each output, then the gradients of a loss."""
    rows = []
    for o in outs:
        rows.append({
            "layout": (tuple(o.shape), o.stride(), o.storage_offset(), o.dtype),
            "grad": (o.requires_grad, o.is_leaf, _grad_fn(o), o._is_view()),
            "base of": [j for j, p in enumerate(outs) if o._base is p],
            "input": (o is x, o._base is x),
            "storage": [j for j, p in enumerate(outs)
                        if p.untyped_storage().data_ptr() == o.untyped_storage().data_ptr()],
        })  # fmt: skip
    result = {"outs": [o.detach().clone() for o in outs], "rows": rows}
    if train:
        loss = sum((o * (i + 1)).sum() for i, o in enumerate(outs) if o.requires_grad)
        loss.backward()
        result["grads"] = [x.grad] + [p.grad for p in model.parameters()]
    return result


def _run(name: str, backend: str, train: bool, tmp_path, how: str, dynamic=None) -> dict:
    torch._dynamo.reset()
    model = zoo.build(name, 0)
    (x,), _ = zoo.inputs(name)
    x.requires_grad_(train)
    path = tmp_path / f"{name}-{backend}.py"
    with torch.set_grad_enabled(train):
        if how == "compile":
            outs = torch.compile(model, backend=backend, dynamic=dynamic)(x)
        else:
            glassbox.pythonify(zoo.build(name, 0), (x.detach().requires_grad_(train),), path,
                               backend=backend, dynamic=dynamic)  # fmt: skip
            torch._dynamo.reset()
            namespace = {"target": model, "args": (x,)}
            exec(compile(path.read_text(), str(path), "exec"), namespace)
            outs = namespace["y"]
            assert not FORBIDDEN_IMPORT.search(path.read_text())
    return _summary(outs, x, model, train)


def _assert_equal(got: dict, want: dict) -> None:
    assert got["rows"] == want["rows"]
    for a, b in zip(got["outs"], want["outs"], strict=True):
        assert torch.equal(a, b)
    for a, b in zip(got.get("grads", []), want.get("grads", []), strict=True):
        assert (a is None and b is None) or torch.equal(a, b)


@pytest.mark.parametrize("backend", ["aot_eager", "inductor"])
@pytest.mark.parametrize("name", ["Aliases", "IntermediateBases", "InplaceViews"])
def test_aliased_outputs_training(name, backend, tmp_path):
    want = _run(name, backend, True, tmp_path, "compile")
    kinds = {r["grad"][2] for r in want["rows"]}
    assert kinds - {"Function", "NoneType"}, "the model no longer returns views"
    _assert_equal(_run(name, backend, True, tmp_path, "pythonify"), want)


@pytest.mark.parametrize("backend", ["aot_eager", "inductor"])
@pytest.mark.parametrize("name", ["Aliases", "Passthrough"])
def test_aliased_outputs_inference(name, backend, tmp_path):
    want = _run(name, backend, False, tmp_path, "compile")
    assert want["rows"][-1]["input"] in ((False, True), (True, False))  # x.t() or x itself
    _assert_equal(_run(name, backend, False, tmp_path, "pythonify"), want)


def test_aliased_outputs_dynamic_shapes(tmp_path):
    """Symbolic view arguments: AOT (and the file) replay the output's own view of its base."""
    want = _run("Aliases", "aot_eager", True, tmp_path, "compile", dynamic=True)
    _assert_equal(_run("Aliases", "aot_eager", True, tmp_path, "pythonify", dynamic=True), want)
    text = (tmp_path / "Aliases-aot_eager.py").read_text()
    assert "alias_from_base(fw[0], fw[1].alias, True)" in text


def test_aliased_outputs_fresh_process(tmp_path):
    path, _ = write("IntermediateBases", tmp_path)
    assert "alias_of_intermediate_save_as_output" in path.read_text()
    got = fresh(path, "IntermediateBases", tmp_path)
    assert not got["dynamo_imported"]
    want = reference("IntermediateBases", "aot_eager")
    assert_same(got, want["compiled"], exact=True)
    assert_same(got, want["eager"], exact=False)
