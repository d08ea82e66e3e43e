"""Graphs with symbolic shapes run natively: one compile, many sizes, each equal to eager.

``torch.compile(..., dynamic=True)`` traces sizes as symbols; the program is lowered once with
sizes as expressions over them, and the runtime binds them from the inputs at each call."""

from __future__ import annotations

import math

import pytest
from conftest import assert_close, torch

from glassbox.backend import REPORTS


class _Graphs:
    """How many graphs Dynamo compiled since it was made (a recompile is one more; a restarted
    analysis within one compile is not)."""

    def __init__(self):
        from torch._dynamo.utils import counters

        self.counters, self.start = counters, counters["stats"]["unique_graphs"]

    @property
    def frame_count(self):
        return self.counters["stats"]["unique_graphs"] - self.start


def _compile_dynamic(module):
    torch._dynamo.reset()
    return torch.compile(module, backend="glassbox", dynamic=True), _Graphs()


class Attention(torch.nn.Module):
    def __init__(self, d=32, heads=4):
        super().__init__()
        self.qkv, self.out, self.heads = torch.nn.Linear(d, 3 * d), torch.nn.Linear(d, d), heads

    def forward(self, x):
        b, t, d = x.shape
        q, k, v = self.qkv(x).split(d, dim=-1)
        q, k, v = (z.view(b, t, self.heads, d // self.heads).transpose(1, 2) for z in (q, k, v))
        scores = (q @ k.transpose(-1, -2)) / math.sqrt(d // self.heads)
        y = scores.softmax(-1) @ v
        return self.out(torch.nn.functional.gelu(y.transpose(1, 2).reshape(b, t, d)))


def _native_share_since(start):
    reports = REPORTS[start:]
    assert reports
    return min(r.native_share for r in reports)


@torch.no_grad()
def test_mlp_dynamic_batch_one_compile():
    torch.manual_seed(0)
    model = torch.nn.Sequential(
        torch.nn.Linear(16, 32), torch.nn.GELU(), torch.nn.Linear(32, 4)
    ).eval()
    compiled, counter = _compile_dynamic(model)
    start = len(REPORTS)
    for batch in (3, 5, 2, 64, 7, 33, 5):
        x = torch.randn(batch, 16)
        assert_close(compiled(x), model(x))
    assert counter.frame_count == 1
    assert _native_share_since(start) == 1.0


@torch.no_grad()
def test_attention_dynamic_batch_and_sequence():
    torch.manual_seed(0)
    model = Attention().eval()
    compiled, counter = _compile_dynamic(model)
    start = len(REPORTS)
    for batch, seq in ((2, 3), (3, 5), (2, 9), (4, 17), (5, 2), (2, 3)):
        x = torch.randn(batch, seq, 32)
        assert_close(compiled(x), model(x))
    assert counter.frame_count == 1
    assert _native_share_since(start) == 1.0


@torch.no_grad()
def test_node_without_symbolic_form_falls_back_alone():
    """A size used as a value (``y * y.shape[0]``) stays a PyTorch op; its neighbours run
    natively, and the report says why."""
    torch.manual_seed(0)
    w = torch.randn(8, 8)

    def f(x):
        y = torch.relu(x @ w)
        return torch.tanh(y * y.shape[0] + 1)

    compiled, counter = _compile_dynamic(f)
    start = len(REPORTS)
    for batch in (3, 6, 11):
        x = torch.randn(batch, 8)
        assert_close(compiled(x), f(x))
    assert counter.frame_count == 1
    report = REPORTS[start]
    assert 0.5 < report.native_share < 1.0, str(report)
    assert "aten.mul.Tensor" in report.fallback_ops, str(report)


@torch.no_grad()
def test_gpt2_tiny_over_sequence_lengths():
    transformers = pytest.importorskip("transformers")
    transformers.logging.set_verbosity_error()
    torch.manual_seed(0)
    config = transformers.GPT2Config(n_layer=2, n_embd=64, n_head=4, vocab_size=500, n_positions=64)
    model = transformers.GPT2LMHeadModel(config).eval()
    compiled, counter = _compile_dynamic(model)
    start = len(REPORTS)
    for length in (2, 3, 8, 13, 31):
        ids = torch.randint(0, 500, (1, length))
        got = compiled(input_ids=ids, use_cache=False).logits
        want = model(input_ids=ids, use_cache=False).logits
        assert (got - want).abs().max().item() < 1e-4
    assert counter.frame_count == 1
    assert _native_share_since(start) > 0.95


class _RmsNormGelu(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.linear, self.eps = torch.nn.Linear(16, 16), 1e-6

    def forward(self, x):
        y = self.linear(x)
        y = y * torch.rsqrt(y.pow(2).mean(-1, keepdim=True) + self.eps)
        return torch.tanh(math.sqrt(2.0 / math.pi) * y) + y


@torch.no_grad()
def test_float_constants_read_at_run_time_split_no_native_segment():
    """Under ``dynamic=True`` a module's float constants (an eps, gelu_new's sqrt(2 / pi)) are
    0-d inputs: a graph of static sizes (batch 1) reads them with ``.item()``, one of symbolic
    sizes converts them as float64 tensors. PyTorch computes them first either way, and the ops
    that use them run natively in one segment."""
    torch.manual_seed(0)
    model = _RmsNormGelu().eval()
    compiled, counter = _compile_dynamic(model)
    start = len(REPORTS)
    for batch in (1, 3, 5, 9):
        x = torch.randn(batch, 16)
        assert_close(compiled(x), model(x))
    assert counter.frame_count == 2  # batch 1 is a static graph
    for report in REPORTS[start:]:
        assert not any(op.startswith(("aten.mul", "aten.add")) for op in report.fallback_ops), str(
            report
        )
        assert report.segments <= 2, str(report)  # computed scalars first, then one native run
