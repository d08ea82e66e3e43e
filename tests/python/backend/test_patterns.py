"""Formulas rewritten to the op they name (glassbox/backend/patterns.py): which graphs change,
which must not, and that results stay those of eager."""

from __future__ import annotations

import math

import pytest
import torch
from conftest import assert_close, run_and_report
from torch.fx.experimental.proxy_tensor import make_fx

from glassbox.backend.patterns import rewrite_known_formulas

aten = torch.ops.aten
C = math.sqrt(2.0 / math.pi)


def gelu_new(x):  # GPT-2's NewGELUActivation
    return 0.5 * x * (1.0 + torch.tanh(C * (x + 0.044715 * torch.pow(x, 3.0))))


def gelu_new_scaled_last(x):
    return x * (1.0 + torch.tanh(C * (0.044715 * torch.pow(x, 3) + x))) * 0.5


def gelu_new_x_last(x):
    return 0.5 * (1.0 + torch.tanh((x + 0.044715 * torch.pow(x, 3.0)) * C)) * x


def tanh_also_returned(x):
    t = torch.tanh(C * (x + 0.044715 * torch.pow(x, 3.0)))
    return 0.5 * x * (1.0 + t), t


def other_constant(x):
    return 0.5 * x * (1.0 + torch.tanh(C * (x + 0.04 * torch.pow(x, 3.0))))


def other_operand(x, y):  # the cube of another tensor
    return 0.5 * x * (1.0 + torch.tanh(C * (x + 0.044715 * torch.pow(y, 3.0))))


def _rewritten(fn, *args) -> tuple[int, torch.fx.GraphModule]:
    gm = make_fx(fn)(*args)
    count = rewrite_known_formulas(gm.graph)
    gm.graph.lint()
    gm.recompile()
    return count, gm


@pytest.mark.parametrize("fn", [gelu_new, gelu_new_scaled_last, gelu_new_x_last])
def test_gelu_tanh_formulas_become_one_gelu(fn):
    x = torch.randn(4, 33)
    count, gm = _rewritten(fn, x)
    targets = [n.target for n in gm.graph.nodes if n.op == "call_function"]
    assert count == 1 and targets == [aten.gelu.default]
    assert_close(gm(x), fn(x), atol=1e-6, rtol=1e-5)


@pytest.mark.parametrize("fn", [tanh_also_returned, other_constant, other_operand])
def test_near_misses_are_left_alone(fn):
    args = tuple(torch.randn(4, 33) for _ in range(2 if fn is other_operand else 1))
    count, gm = _rewritten(fn, *args)
    assert count == 0
    assert aten.tanh.default in [n.target for n in gm.graph.nodes]
    assert_close(gm(*args), fn(*args), atol=0, rtol=0)


def test_gelu_new_after_a_linear_runs_natively_as_its_epilogue(emitted):
    lin = torch.nn.Linear(32, 64)

    def f(x):
        return gelu_new(lin(x))

    x = torch.randn(8, 32)
    with torch.no_grad():
        out, reports = run_and_report(f, x)
        assert_close(out, f(x), atol=1e-5, rtol=1e-5)
    assert [r.native_nodes == r.total_nodes for r in reports] == [True]
    assert not any(i.op == "elementwise" for i in emitted)
    gemm = [i for i in emitted if i.op in ("addmm", "mm")]
    assert gemm and gemm[-1].args.epilogue == 3  # GELU_TANH folded into the product


class RMSNorm(torch.nn.Module):  # as Llama's and T5's
    def __init__(self, d, eps=1e-6, gemma=False):
        super().__init__()
        self.weight, self.eps, self.gemma = torch.nn.Parameter(torch.randn(d)), eps, gemma

    def forward(self, x):
        h = x * torch.rsqrt(x.to(torch.float32).pow(2).mean(-1, keepdim=True) + self.eps)
        return h * (1.0 + self.weight) if self.gemma else self.weight * h.to(x.dtype)


def rms_no_weight(x):
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-5)


def rms_over_dim_0(x):
    return x * torch.rsqrt(x.pow(2).mean(0, keepdim=True) + 1e-5)


def rms_variance_returned(x):
    v = x.pow(2).mean(-1, keepdim=True)
    return x * torch.rsqrt(v + 1e-5), v


def rms_times_a_full_tensor(x, y):
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-5) * y


@pytest.mark.parametrize("fn", [RMSNorm(33), RMSNorm(33, gemma=True), rms_no_weight])
def test_rms_norm_formulas_become_one_rms_norm(fn):
    x = torch.randn(4, 5, 33)
    with torch.no_grad():
        count, gm = _rewritten(fn, x)
        targets = [n.target for n in gm.graph.nodes if n.op == "call_function"]
        assert count == 1 and aten.rms_norm.default in targets
        assert aten.rsqrt.default not in targets and aten.mean.dim not in targets
        assert_close(gm(x), fn(x), atol=1e-6, rtol=1e-5)


@pytest.mark.parametrize("fn", [rms_over_dim_0, rms_variance_returned, rms_times_a_full_tensor])
def test_rms_norm_near_misses_are_left_alone(fn):
    args = tuple(torch.randn(4, 33) for _ in range(2 if fn is rms_times_a_full_tensor else 1))
    count, gm = _rewritten(fn, *args)
    if fn is rms_times_a_full_tensor:  # the inner product x * rsqrt(...) is still one
        assert count == 1
    else:
        assert count == 0
    assert_close(gm(*args), fn(*args), atol=1e-6, rtol=1e-5)


def test_rms_norm_runs_natively_as_one_step(emitted):
    norm = RMSNorm(64)
    x = torch.randn(3, 7, 64)
    with torch.no_grad():
        out, reports = run_and_report(norm, x)
        assert_close(out, norm(x), atol=1e-5, rtol=1e-5)
    assert [r.native_nodes == r.total_nodes for r in reports] == [True]
    assert [i.op for i in emitted] == ["rms_norm"]


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16, torch.float64])
def test_formulas_in_other_dtypes_stay_as_written(dtype):
    """The runtime computes in float32; in another dtype the op would round differently from the
    formula wherever PyTorch runs it, so nothing is rewritten."""
    x = torch.randn(4, 33, dtype=dtype)
    for fn in (gelu_new, rms_no_weight):
        count, _ = _rewritten(fn, x)
        assert count == 0


def rotate_half(x):
    return torch.cat((-x[..., x.shape[-1] // 2 :], x[..., : x.shape[-1] // 2]), dim=-1)


def rotary(q, cos, sin):  # Llama's apply_rotary_pos_emb, on a transposed projection
    q = q.transpose(1, 2)
    return (q * cos.unsqueeze(1)) + (rotate_half(q) * sin.unsqueeze(1))


def rotary_operands_swapped(q, cos, sin):
    q = q.transpose(1, 2)
    return sin.unsqueeze(1) * rotate_half(q) + cos.unsqueeze(1) * q


def rotary_other_way(q, cos, sin):  # cat(x1, -x2): another formula
    q = q.transpose(1, 2)
    h = q.shape[-1] // 2
    return q * cos.unsqueeze(1) + torch.cat((q[..., :h], -q[..., h:]), -1) * sin.unsqueeze(1)


def rotary_of_another_tensor(q, cos, sin):  # the cos product reads another tensor
    q = q.transpose(1, 2)
    return (q + 1) * cos.unsqueeze(1) + rotate_half(q) * sin.unsqueeze(1)


def rotary_product_returned(q, cos, sin):
    q = q.transpose(1, 2)
    product = rotate_half(q) * sin.unsqueeze(1)
    return q * cos.unsqueeze(1) + product, product


def _rotary_inputs():
    return torch.randn(2, 5, 3, 8), torch.randn(2, 5, 8), torch.randn(2, 5, 8)


@pytest.mark.parametrize("fn", [rotary, rotary_operands_swapped])
def test_rotary_formulas_become_one_rotary(fn):
    from glassbox.backend.ops import ROTARY

    args = _rotary_inputs()
    count, gm = _rewritten(fn, *args)
    targets = [n.target for n in gm.graph.nodes if n.op == "call_function"]
    assert count == 1 and ROTARY in targets and aten.cat.default not in targets
    assert_close(gm(*args), fn(*args), atol=0, rtol=0)  # PyTorch runs the op as the formula


@pytest.mark.parametrize(
    "fn", [rotary_other_way, rotary_of_another_tensor, rotary_product_returned]
)
def test_rotary_near_misses_are_left_alone(fn):
    args = _rotary_inputs()
    count, gm = _rewritten(fn, *args)
    assert count == 0 and aten.cat.default in [n.target for n in gm.graph.nodes]


def test_rotary_runs_natively_reading_the_transpose_in_place(emitted):
    args = _rotary_inputs()
    with torch.no_grad():
        out, reports = run_and_report(rotary, *args)
        assert_close(out, rotary(*args), atol=0, rtol=0)  # each product rounded, as PyTorch does
    assert [r.native_nodes == r.total_nodes for r in reports] == [True]
    # the copy lays the result out as eager's is (in q's transposed order): an output's strides
    assert [i.op for i in emitted] == ["rotary", "copy_strided"]


def repeat_kv(x, n):  # Hugging Face's, for grouped-query attention
    b, h, s, e = x.shape
    return x[:, :, None, :, :].expand(b, h, n, s, e).reshape(b, h * n, s, e)


def grouped_attention(q, k, v, mask):
    return torch.ops.aten._scaled_dot_product_flash_attention_for_cpu(
        q, repeat_kv(k, 2), repeat_kv(v, 2), attn_mask=mask, scale=0.3
    )[0]


def grouped_attention_keys_returned(q, k, v, mask):
    keys = repeat_kv(k, 2)
    out = torch.ops.aten._scaled_dot_product_flash_attention_for_cpu(
        q, keys, repeat_kv(v, 2), attn_mask=mask
    )[0]
    return out, keys


def _attention_inputs():
    q, k, v = torch.randn(2, 4, 6, 8), torch.randn(2, 2, 6, 8), torch.randn(2, 2, 6, 8)
    return q, k, v, torch.randn(2, 1, 6, 6)


def test_attention_over_repeated_keys_reads_the_keys_once(emitted):
    from glassbox.backend.ops import GROUPED_ATTENTION

    args = _attention_inputs()
    count, gm = _rewritten(grouped_attention, *args)
    targets = [n.target for n in gm.graph.nodes if n.op == "call_function"]
    assert count == 1 and targets == [GROUPED_ATTENTION]
    assert_close(gm(*args), grouped_attention(*args), atol=0, rtol=0)
    with torch.no_grad():
        out, reports = run_and_report(grouped_attention, *args)
        assert_close(out, grouped_attention(*args), atol=1e-6, rtol=1e-5)
    assert [r.native_nodes == r.total_nodes for r in reports] == [True]
    assert emitted[0].op == "attention"  # no copy before it (one after: the output's layout)
    shapes = [tuple(s.shape) for s in emitted[0].inputs[:3]]
    assert shapes == [(2, 4, 6, 8), (2, 2, 6, 8), (2, 2, 6, 8)]  # k and v not repeated


def test_repeated_keys_read_elsewhere_are_left_alone():
    args = _attention_inputs()
    count, gm = _rewritten(grouped_attention_keys_returned, *args)
    assert count == 0
    for got, want in zip(gm(*args), grouped_attention_keys_returned(*args), strict=True):
        assert_close(got, want, atol=0, rtol=0)


class GroupedSdpa(torch.nn.Module):  # attention as torch.export keeps it: SDPA, not flash
    def forward(self, q, k, v, mask):
        k, v = repeat_kv(k, 2), repeat_kv(v, 2)
        return torch.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=mask)


@pytest.mark.parametrize("boolean_mask", [False, True])
def test_exported_attention_over_repeated_keys_reads_the_keys_once(boolean_mask):
    from glassbox.backend import _inference_decompositions
    from glassbox.backend.ops import GROUPED_SDPA

    q, k, v, mask = _attention_inputs()
    mask = mask > 0 if boolean_mask else mask
    model = GroupedSdpa()
    with torch.no_grad():
        ep = torch.export.export(model, (q, k, v, mask))
        gm = ep.run_decompositions(_inference_decompositions()).module()
    assert rewrite_known_formulas(gm.graph) == 1
    gm.recompile()
    grouped = [n for n in gm.graph.nodes if n.target is GROUPED_SDPA]
    assert len(grouped) == 1
    assert [tuple(a.meta["val"].shape) for a in grouped[0].args[1:3]] == [(2, 2, 6, 8)] * 2
    assert_close(gm(q, k, v, mask), model(q, k, v, mask), atol=0, rtol=0)


def test_grouped_attention_that_already_names_its_groups_is_left_alone():
    from glassbox.backend import _inference_decompositions

    class Gqa(torch.nn.Module):
        def forward(self, q, k, v):
            return torch.nn.functional.scaled_dot_product_attention(q, k, v, enable_gqa=True)

    q, k, v, _ = _attention_inputs()
    with torch.no_grad():
        gm = torch.export.export(Gqa(), (q, k, v)).run_decompositions(_inference_decompositions())
    assert rewrite_known_formulas(gm.module().graph) == 0
