"""Pythonify on the shapes real models have: decorators and closures, non-tensor arguments,
containers compiled directly, structured outputs, graph breaks in nested calls and in loops."""

from __future__ import annotations

import functools

import pytest
import torch
from test_pythonify import assert_same, fresh, reference, write

import glassbox
from glassbox.pythonify import PythonifyError


@pytest.mark.parametrize("name", ["Decorated", "Closures", "Sequential"])
def test_fresh_process_training_bitwise(name, tmp_path):
    path, _ = write(name, tmp_path)
    assert "Dynamo's transformed code as Python (decompiled by glassbox)" in path.read_text()
    got = fresh(path, name, tmp_path)
    assert got.get("dynamo_frames", 0) == 0
    want = reference(name, "aot_eager")
    assert_same(got, want["compiled"], exact=True)
    assert_same(got, want["eager"], exact=False)


def test_decorated_inductor_fresh_process_bitwise(tmp_path):
    path, _ = write("Decorated", tmp_path, backend="inductor")
    got = fresh(path, "Decorated", tmp_path)
    assert got.get("dynamo_frames", 0) == 0
    want = reference("Decorated", "inductor")
    assert_same(got, want["compiled"], exact=True)
    assert_same(got, want["eager"], exact=False)


def test_dict_and_dataclass_outputs(tmp_path):
    path, _ = write("Outputs", tmp_path)
    got = fresh(path, "Outputs", tmp_path)
    assert_same(got, reference("Outputs", "aot_eager")["compiled"], exact=True)


def test_a_compiled_frame_called_through_a_module_call_is_refused(tmp_path):
    """A graph break inside ``self.inner(...)``: Dynamo compiles Inner.forward as a frame of its
    own, entered from the glue's plain module call; the file cannot route it, so it refuses
    rather than run it uncompiled."""
    with pytest.raises(PythonifyError, match="Dynamo compiled Inner.forward.* frames of their own"):
        write("NestedBreak", tmp_path)


def _breaking_wrapper(fn):
    @functools.wraps(fn)
    def wrapper(self, x):
        return fn(self, x) * 2

    return wrapper


class _Wrapped(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc = torch.nn.Linear(8, 8)

    @_breaking_wrapper
    def forward(self, x):
        y = self.fc(x)
        torch._dynamo.graph_break()  # Dynamo cannot inline fn: the wrapper calls it eagerly
        return y.relu()


def test_a_wrapped_function_dynamo_compiled_on_its_own_is_routed(tmp_path):
    """The wrapper's glue calls its free variable ``fn``, which Dynamo compiled as a frame of
    its own: the file routes that call through the frame's dispatcher (its compiled graphs)."""
    torch.manual_seed(0)
    model = _Wrapped().eval()
    x = torch.randn(3, 8)
    path = tmp_path / "wrapped.py"
    with torch.no_grad():
        glassbox.pythonify(model, (x,), path, backend="aot_eager")
        text = path.read_text()
        assert "routed(cells[0].cell_contents, frame_forward" in text
        namespace = {}
        exec(compile(text, str(path), "exec"), namespace)
        entered = []
        dispatcher = namespace["frame_forward"]
        namespace["frame_forward"] = lambda *a, **k: entered.append(1) or dispatcher(*a, **k)
        assert torch.equal(namespace["run"](model, x), model(x))
    assert entered == [1]


@pytest.mark.parametrize("name", ["LoopBreak", "NestedLoopBreak"])
def test_graph_break_in_a_loop_is_refused(name, tmp_path):
    """Dynamo skips the frame and compiles the frames it calls; the file cannot route to them."""
    with pytest.raises(PythonifyError, match="Dynamo skipped .*forward .*Inner.forward"):
        write(name, tmp_path)
    assert not (tmp_path / f"{name}.py").exists()


def test_hf_gpt2_fresh_process_bitwise(tmp_path, monkeypatch):
    transformers = pytest.importorskip("transformers")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    config = transformers.GPT2Config(
        n_layer=2, n_embd=64, n_head=2, vocab_size=100, n_positions=32, bos_token_id=0,
        eos_token_id=0,
    )  # fmt: skip
    torch.manual_seed(0)
    model = transformers.GPT2Model(config).eval()
    ids = torch.randint(0, 100, (2, 8), generator=torch.Generator().manual_seed(1))
    path = tmp_path / "gpt2.py"
    with torch.no_grad():
        glassbox.pythonify(model, (ids,), path, backend="aot_eager")
        torch._dynamo.reset()
        want = torch.compile(model, backend="aot_eager")(ids).last_hidden_state
    namespace = {"target": model, "args": (ids,)}
    with torch.no_grad():
        exec(compile(path.read_text(), str(path), "exec"), namespace)
    assert torch.equal(namespace["y"].last_hidden_state, want)


def test_hf_bert_fresh_process_bitwise(tmp_path, monkeypatch):
    pytest.importorskip("transformers")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    path, _ = write("HFBert", tmp_path, train=False)
    got = fresh(path, "HFBert", tmp_path, train=False)
    assert got.get("dynamo_frames", 0) == 0
    want = reference("HFBert", "aot_eager", train=False)
    assert_same(got, want["compiled"], exact=True)
    assert_same(got, want["eager"], exact=False)


def test_a_frame_entered_through_a_skipped_decorator_is_refused(tmp_path):
    """``@torch.no_grad()`` on a forward with a graph break: Dynamo enters through wrap_inline,
    whose glue calls the module; torch's decorator runs as plain Python and Dynamo compiles the
    forward itself as a frame of its own, which the file cannot route to: refused, not run
    uncompiled."""
    with pytest.raises(PythonifyError, match="Dynamo compiled NoGradBreak.forward"):
        write("NoGradBreak", tmp_path, train=False)


@pytest.mark.parametrize(
    "value",
    [torch.tensor(2.5), torch.tensor(7), torch.arange(6.0).reshape(2, 3), torch.empty(0, 3)],
    ids=["0-d float", "0-d int", "2-d", "empty"],
)
def test_tensor_constants_are_written_back_exactly(value):
    from glassbox.pythonify.gen_python import _constant_source

    back = eval(_constant_source(value), {"torch": torch})
    assert back.dtype == value.dtype and back.shape == value.shape and torch.equal(back, value)


class _Branch(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc = torch.nn.Linear(8, 8)

    def forward(self, x):
        y = self.fc(x)
        if y.sum() > 0:  # a graph break on a tensor's value: one resume function per branch
            return y.relu() * 2
        return -y


def test_resume_function_dynamo_never_compiled_runs_as_plain_python(tmp_path):
    """Recorded with the first branch taken, Dynamo compiled only its resume function; the other
    branch's resume function (same name, same line) is written as plain Python, not confused with
    the compiled one, and the file gives eager's results on inputs that take either branch."""
    torch.manual_seed(0)
    model = _Branch().eval()
    with torch.no_grad():
        model.fc.bias.fill_(0.0)
        ones = torch.ones(2, 8)
        sign = 1.0 if model(ones).sum() > 0 else -1.0
        path = tmp_path / "branch.py"
        glassbox.pythonify(model, (sign * ones,), path, backend="aot_eager")
        text = path.read_text()
        assert "resume function Dynamo did not compile, as plain Python" in text
        assert text.count("Against the bytecode: shown to do the same") == text.count("def glue_")
        for x in (sign * ones, -sign * ones):
            namespace = {"target": model, "args": (x,)}
            exec(compile(text, str(path), "exec"), namespace)
            assert torch.equal(namespace["y"], model(x))
