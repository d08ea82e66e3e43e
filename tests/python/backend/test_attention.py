"""Scaled dot-product attention as one native kernel: the layouts, masks and variants real models
pass, against eager; the calls it does not take are decomposed into native products instead."""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F
from conftest import assert_close, run_and_report

import glassbox

B, H, L, E = 2, 4, 70, 16  # 70 query rows: a block of 64 and a partial one


def r(*shape):
    return torch.randn(*shape)


def heads(x):  # [B, T, H, E] projections seen as [B, H, T, E], as models write them
    return x.transpose(1, 2)


def _masked_rows():
    m = r(B, 1, L, L)
    m[0, 0, 3, :] = float("-inf")  # a query that sees no key: zeros, as torch
    m[1, 0, :, 5] = float("-inf")
    return m


CASES = {
    "tokens_first_in_and_out": (
        lambda q, k, v: (
            F.scaled_dot_product_attention(heads(q), heads(k), heads(v))
            .transpose(1, 2)
            .reshape(B, L, H * E)
        ),
        (r(B, L, H, E), r(B, L, H, E), r(B, L, H, E)),
    ),
    "contiguous_heads": (
        lambda q, k, v: F.scaled_dot_product_attention(q, k, v) * 2,
        (r(B, H, L, E), r(B, H, L, E), r(B, H, L, E)),
    ),
    "causal": (
        lambda q, k, v: F.scaled_dot_product_attention(
            heads(q), heads(k), heads(v), is_causal=True
        ),
        (r(B, L, H, E), r(B, L, H, E), r(B, L, H, E)),
    ),
    "causal_fewer_queries_than_keys": (
        lambda q, k, v: F.scaled_dot_product_attention(q, k, v, is_causal=True),
        (r(B, H, 5, E), r(B, H, L, E), r(B, H, L, E)),
    ),
    "float_mask_with_hidden_rows": (
        lambda q, k, v, m: F.scaled_dot_product_attention(heads(q), heads(k), heads(v), m),
        (r(B, L, H, E), r(B, L, H, E), r(B, L, H, E), _masked_rows()),
    ),
    "bool_padding_mask_and_scale": (
        lambda q, k, v, m: F.scaled_dot_product_attention(q, k, v, m, scale=0.3),
        (r(B, H, L, E), r(B, H, L, E), r(B, H, L, E), torch.rand(B, 1, 1, L) > 0.3),
    ),
    "mask_of_two_dims": (
        lambda q, k, v, m: F.scaled_dot_product_attention(q, k, v, m),
        (r(B, H, L, E), r(B, H, L, E), r(B, H, L, E), r(L, L)),
    ),
    "grouped_query": (
        lambda q, k, v: F.scaled_dot_product_attention(q, k, v, enable_gqa=True),
        (r(B, H, L, E), r(B, 2, L, E), r(B, 2, L, E)),
    ),
}


def ops(emitted) -> list[str]:
    return [instr.op for instr in emitted]


@pytest.mark.parametrize("name", sorted(CASES))
def test_attention_is_one_kernel_and_matches_eager(name, emitted):
    fn, args = CASES[name]
    expected = fn(*args)
    actual, reports = run_and_report(fn, *args)
    assert_close(actual, expected)
    assert reports and all(rep.native_share == 1.0 for rep in reports), reports
    assert ops(emitted).count("attention") == 1, ops(emitted)
    assert "bmm" not in ops(emitted) and "softmax" not in ops(emitted), ops(emitted)


def test_hidden_query_rows_give_zeros():
    q, k, v = r(1, 1, 3, 4), r(1, 1, 5, 4), r(1, 1, 5, 4)
    m = torch.zeros(1, 1, 3, 5)
    m[0, 0, 1] = float("-inf")
    actual, _ = run_and_report(lambda *a: F.scaled_dot_product_attention(*a), q, k, v, m)
    assert torch.equal(actual[0, 0, 1], torch.zeros(4))
    assert torch.isfinite(actual).all()


def test_a_call_the_kernel_does_not_take_still_matches(emitted):
    """float64 attention is not the kernel's: it runs as its decomposition (or in PyTorch)."""
    q = r(B, H, 8, E).double()
    fn = lambda q: F.scaled_dot_product_attention(q, q, q, is_causal=True)  # noqa: E731
    actual, _ = run_and_report(fn, q)
    assert "attention" not in ops(emitted)
    assert_close(actual, fn(q))


class _PaddedAttention(torch.nn.Module):
    def forward(self, q, k, v, keep):
        return F.scaled_dot_product_attention(heads(q), heads(k), heads(v), keep[:, None, None, :])


def test_exported_attention_is_one_kernel(tmp_path, emitted):
    """torch.export keeps scaled_dot_product_attention itself (a boolean padding mask here): the
    artifact runs it as the attention kernel, without PyTorch."""
    q, k, v = (r(B, L, H, E) for _ in range(3))
    keep = torch.rand(B, L) > 0.2
    model = _PaddedAttention()
    glassbox.export(model, (q, k, v, keep), tmp_path / "attention.gbx")
    assert ops(emitted).count("attention") == 1, ops(emitted)
    assert_close(glassbox.load(tmp_path / "attention.gbx")(q, k, v, keep), model(q, k, v, keep))


@pytest.mark.parametrize("causal", [False, True])
def test_training_forward_runs_the_kernel_and_gradients_match(causal, emitted):
    """In training, CPU flash attention's forward runs as the kernel, which also writes the
    log-sum-exp that the flash backward (run by PyTorch) reads."""
    torch.manual_seed(0)
    proj = torch.nn.Linear(H * E, 3 * H * E)
    x, mask = r(B, L, H * E), r(B, 1, L, L)

    def f(x, mask):
        q, k, v = (t.view(B, L, H, E).transpose(1, 2) for t in proj(x).split(H * E, -1))
        mask = None if causal else mask
        return F.scaled_dot_product_attention(q, k, v, mask, is_causal=causal).square().sum()

    def grads(fn):
        xg = x.clone().requires_grad_()
        proj.zero_grad()
        fn(xg, mask).backward()
        return xg.grad, proj.weight.grad.clone()

    expected = grads(f)
    torch._dynamo.reset()
    actual = grads(torch.compile(f, backend="glassbox"))
    assert "attention" in ops(emitted)
    assert_close(actual, expected, rtol=1e-4, atol=1e-4)


class _FusedQkv(torch.nn.Module):
    """GPT-2's attention: one projection gives q, k and v, split along the features and seen as
    heads: three strided views of one [B, L, 3 * H * E] tensor."""

    def __init__(self):
        super().__init__()
        self.c_attn = torch.nn.Linear(H * E, 3 * H * E)

    def forward(self, x):
        q, k, v = self.c_attn(x).split(H * E, dim=2)
        q, k, v = (t.view(B, L, H, E).transpose(1, 2) for t in (q, k, v))
        out = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        return out.transpose(1, 2).reshape(B, L, H * E)


def _reads_fused_qkv_in_place(emitted):
    """The attention instruction reads q, k and v as views of the projection's output, and no
    copy runs before it."""
    names = ops(emitted)
    at = names.index("attention")
    assert "copy_strided" not in names[:at], names
    attention = emitted[at]
    assert len({id(s) for s in attention.inputs}) == 1, "q, k and v are not one slot"
    views = [attention.args.q_view, attention.args.k_view, attention.args.v_view]
    assert [v.offset for v in views] == [0, H * E, 2 * H * E], views
    assert all((v.batch, v.heads, v.tokens, v.width) == (B, H, L, E) for v in views), views
    assert all(
        (v.batch_stride, v.head_stride, v.token_stride) == (L * 3 * H * E, E, 3 * H * E)
        for v in views
    ), views


@torch.no_grad()
def test_fused_qkv_split_is_read_in_place(emitted):
    torch.manual_seed(0)
    model, x = _FusedQkv().eval(), r(B, L, H * E)
    actual, reports = run_and_report(model, x)
    assert reports and all(rep.native_share == 1.0 for rep in reports), reports
    _reads_fused_qkv_in_place(emitted)
    assert (actual - model(x)).abs().max().item() < 1e-5


@torch.no_grad()
def test_exported_fused_qkv_reads_its_views_after_loading(tmp_path, emitted):
    torch.manual_seed(0)
    model, x = _FusedQkv().eval(), r(B, L, H * E)
    glassbox.export(model, (x,), tmp_path / "fused.gbx")
    _reads_fused_qkv_in_place(emitted)
    loaded = glassbox.load(tmp_path / "fused.gbx")
    for _ in range(2):  # a second input through the same loaded program
        assert (loaded(x) - model(x)).abs().max().item() < 1e-5
        x = r(B, L, H * E)


@pytest.mark.parametrize("layout", ["sliced_heads", "every_other_token"])
def test_other_views_are_read_in_place(layout, emitted):
    """Views with a last stride of 1 that are not the transpose of a whole tensor."""
    x = r(B, 2 * L, 2 * H, 2 * E)
    take = {
        "sliced_heads": lambda x: x[:, :L, 1 : H + 1, :E].transpose(1, 2),
        "every_other_token": lambda x: x[:, ::2, :H, E:].transpose(1, 2),
    }[layout]

    def fn(x):
        q = take(x.relu())  # a view of a value the program computes
        return F.scaled_dot_product_attention(q, q, q, is_causal=True)

    actual, _ = run_and_report(fn, x)
    assert_close(actual, fn(x))
    names = ops(emitted)
    assert "copy_strided" not in names, names
    assert emitted[names.index("attention")].args.q_view is not None
