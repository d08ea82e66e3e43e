"""Capture on the shapes real models have (found on Hugging Face models): results with capture
are bitwise those without it, capture never raises, every dumped ``.py`` compiles, and every
compiled entry either runs from the dump or says why it does not."""

from __future__ import annotations

import dataclasses
import functools
import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import torch
from torch import nn

import glassbox


def _tensors(value) -> list[torch.Tensor]:
    """The tensors of an output (tuple, list, dict, dataclass), in order."""
    if isinstance(value, torch.Tensor):
        return [value]
    if dataclasses.is_dataclass(value):
        value = [getattr(value, f.name) for f in dataclasses.fields(value)]
    if isinstance(value, dict):
        value = list(value.values())
    if isinstance(value, (list, tuple)):
        return [t for item in value for t in _tensors(item)]
    return []


def _dumped_py_compiles(dump: Path) -> None:
    files = list(dump.rglob("*.py"))
    assert files, "the dump has .py files"
    for path in files:
        compile(path.read_text(), str(path), "exec", dont_inherit=True)


def _capture(tmp_path, model, args, kwargs=None, backend="aot_eager", **options) -> dict:
    """Run ``model`` compiled without and with capture; assert equal results; the index."""
    kwargs = kwargs or {}
    with torch.no_grad():
        expected = torch.compile(model, backend=backend)(*args, **kwargs)
        torch._dynamo.reset()
        with glassbox.capture(tmp_path / "dump", **options):
            got = torch.compile(model, backend=backend)(*args, **kwargs)
    assert type(got) is type(expected)
    pairs = list(zip(_tensors(expected), _tensors(got), strict=True))
    assert pairs and all(torch.equal(a, b) for a, b in pairs)
    _dumped_py_compiles(tmp_path / "dump")
    index = json.loads((tmp_path / "dump" / "index.json").read_text())
    assert not index["errors"], index["errors"]
    for function in index["functions"]:
        for entry in function["compiles"]:
            assert entry["runs_from_dump"] or entry["why_original_runs"]
    return index


def _entries(index: dict) -> list[dict]:
    return [entry for function in index["functions"] for entry in function["compiles"]]


def _decorated(fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        return fn(*args, **kwargs)

    return wrapper


class WrappedForward(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.linear = nn.Linear(8, 8)

    @_decorated
    def forward(self, x):
        return self.linear(x).relu()


def test_decorated_forward_keeps_its_closure(tmp_path):
    index = _capture(tmp_path, WrappedForward(), (torch.randn(2, 8),))
    (entry,) = _entries(index)
    assert index["functions"][0]["function"] == "wrapper"
    assert "no function named" not in (entry["why_original_runs"] or "")
    # Dynamo's wrapper keeps ``fn`` free though it never reads it: the dumped code keeps it too,
    # or it could not stand in for Dynamo's (the closure is bound by position)
    assert entry["runs_from_dump"] and entry["verified"]
    text = (tmp_path / "dump" / entry["transformed_file"]).read_text()
    assert "fn" in text.split("def wrapper", 1)[1]


class DeviceConstant(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.linear = nn.Linear(8, 8)

    def forward(self, x):
        y = self.linear(x)
        device, dtype = x.device, x.dtype
        print("graph break")  # Dynamo's code rebuilds device and dtype from constants
        return torch.zeros(8, device=device, dtype=dtype) + y


def test_unmarshallable_constants_are_named(tmp_path, capsys):
    index = _capture(tmp_path, DeviceConstant(), (torch.randn(2, 8),))
    reasons = [entry["why_original_runs"] or "" for entry in _entries(index)]
    assert not [r for r in reasons if "unmarshallable" in r or "decompiler failed" in r]
    texts = [(tmp_path / "dump" / e["transformed_file"]).read_text() for e in _entries(index)]
    named = [t for t in texts if "__glassbox_const_" in t]
    assert named and any("device(type='cpu')" in t for t in named)


class GeneratorOverLocals(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.proj = nn.Linear(8, 8)

    def forward(self, x):
        q, k, v = (self.proj(x) for _ in range(3))
        q, k, v = tuple(t.transpose(0, 1) for t in (q, k, v))
        return q @ k.transpose(0, 1) + v.sum()


@pytest.mark.parametrize("run_dumped", ["verified", "decompiled"])
def test_generator_over_locals_keeps_its_cells(tmp_path, run_dumped):
    """Dynamo keeps the original's cell variables, and raises "cell var mismatch" out of the
    user's call for code without them: the dumped function is given them, and runs."""
    index = _capture(tmp_path, GeneratorOverLocals(), (torch.randn(2, 8),), run_dumped=run_dumped)
    (entry,) = _entries(index)
    assert entry["runs_from_dump"], entry["why_original_runs"]


class BreakInLoop(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.linear = nn.Linear(8, 8)

    def forward(self, x):
        for _ in range(2):
            x = self.linear(x)
            if x.sum().item() > 1e9:  # a graph break in a loop: Dynamo skips the frame
                x = x * 0
        return x


def test_graph_break_in_loop_is_indexed(tmp_path):
    x = torch.randn(2, 8)
    model = BreakInLoop()
    with glassbox.capture(tmp_path / "dump"):
        got = torch.compile(model, backend="aot_eager")(x)
    assert torch.equal(got, model(x))
    index = json.loads((tmp_path / "dump" / "index.json").read_text())
    (skipped,) = index["compiles_without_code"]
    assert skipped["function"] == "forward" and skipped["ran"] == "eagerly"
    assert "graph break in loop" in skipped["why"]
    assert "graph break in loop" in (tmp_path / "dump" / "index.md").read_text()


class Inner(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.linear = nn.Linear(8, 8)

    def forward(self, x):
        y = self.linear(x)
        print("graph break inside a nested call")
        return y.relu()


class Outer(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.inner = Inner()
        self.head = nn.Linear(8, 4)

    def forward(self, x):
        return self.head(self.inner(x) * 2)


def test_graph_break_in_a_nested_call(tmp_path, capsys):
    index = _capture(tmp_path, Outer(), (torch.randn(2, 8),))
    assert any(f["is_resume_function"] for f in index["functions"])


@dataclasses.dataclass
class Output:
    logits: torch.Tensor
    hidden: torch.Tensor


class StructuredOutputs(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.linear = nn.Linear(8, 8)

    def forward(self, x, *, scale: float = 1.0, mode: str = "sum", return_dict: bool = True):
        hidden = self.linear(x) * scale
        logits = hidden.sum(-1) if mode == "sum" else hidden.mean(-1)
        if return_dict:
            return {"logits": logits, "hidden": hidden}
        return Output(logits, hidden)


@pytest.mark.parametrize("return_dict", [True, False])
def test_dict_and_dataclass_outputs_and_plain_kwargs(tmp_path, return_dict):
    kwargs = {"scale": 0.5, "mode": "mean", "return_dict": return_dict}
    index = _capture(tmp_path, StructuredOutputs(), (torch.randn(2, 8),), kwargs)
    assert _entries(index)
    # under no_grad AOTAutograd names its inference graph <lambda>: the file is Python all the same
    (graph,) = (tmp_path / "dump").glob("compile_*/aot_inference_graph.py")
    assert "class <lambda>" not in graph.read_text()


def test_under_python_O_dynamo_code_runs_where_the_dump_differs(tmp_path):
    """python -O drops ``if __debug__:`` blocks: dumped code is verified at the running
    interpreter's level, so source that relies on them is refused and results stay equal."""
    script = textwrap.dedent(
        f"""
        import json, sys, torch, glassbox
        sys.path.insert(0, {str(Path(__file__).parent)!r})
        from capture_zoo import make
        assert not __debug__
        for name in ("break_print", "break_item"):
            torch._dynamo.reset()
            model, x = make(name)
            expected = torch.compile(model, backend='aot_eager')(x)
            torch._dynamo.reset()
            dump = {str(tmp_path)!r} + "/" + name
            with glassbox.capture(dump):
                got = torch.compile(model, backend='aot_eager')(x)
            assert torch.equal(expected, got), name
            index = json.load(open(dump + "/index.json"))
            assert not index["errors"], index["errors"]
        print("ok")
        """
    )
    run = subprocess.run(
        [sys.executable, "-O", "-c", script], capture_output=True, text=True, timeout=300
    )
    assert run.returncode == 0 and "ok" in run.stdout, run.stderr[-3000:]


def _tiny_hf_models():
    transformers = pytest.importorskip("transformers", reason="transformers is not installed")
    torch.manual_seed(0)
    ids = torch.randint(0, 100, (2, 8))
    gpt2 = transformers.GPT2LMHeadModel(
        transformers.GPT2Config(n_layer=2, n_embd=64, n_head=2, vocab_size=100, n_positions=32)
    )
    t5 = transformers.T5ForConditionalGeneration(
        transformers.T5Config(
            num_layers=1,
            num_decoder_layers=1,
            d_model=64,
            d_kv=32,
            num_heads=2,
            d_ff=128,
            vocab_size=100,
        )
    )
    return {
        "gpt2": (gpt2, {"input_ids": ids}),
        "t5": (t5, {"input_ids": ids, "decoder_input_ids": ids}),
    }


@pytest.mark.parametrize("name", ["gpt2", "t5"])
def test_tiny_hugging_face_models(tmp_path, name, monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    model, kwargs = _tiny_hf_models()[name]
    index = _capture(tmp_path, model.eval(), (), kwargs)
    for entry in _entries(index):
        why = entry["why_original_runs"] or ""
        assert "unmarshallable" not in why and "no function named" not in why, why
