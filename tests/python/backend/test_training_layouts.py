"""Training through the backend where layouts and decompositions matter: outputs keep the strides
the graph traced (AOTAutograd's backward is traced with them), attention gradients match eager,
and AOTAutograd has no reason to warn about the compiled graphs' calling convention."""

from __future__ import annotations

import warnings

import pytest
from conftest import compile_native, torch

F = torch.nn.functional


def _grads(fn, *args):
    leaves = [a.detach().clone().requires_grad_(True) for a in args]
    out = fn(*leaves)
    (out * torch.linspace(-1, 1, out.numel()).reshape(out.shape)).sum().backward()
    return out.detach(), [leaf.grad for leaf in leaves]


@pytest.mark.parametrize("causal", [False, True])
def test_attention_gradients_match_eager(causal):
    torch.manual_seed(0)
    q, k, v = (torch.randn(2, 4, 8, 16) for _ in range(3))

    def attend(q, k, v):
        return F.scaled_dot_product_attention(q, k, v, is_causal=causal)

    expected, expected_grads = _grads(attend, q, k, v)
    actual, actual_grads = _grads(compile_native(attend), q, k, v)
    torch.testing.assert_close(actual, expected, rtol=1e-4, atol=1e-5)
    for name, a, e in zip("qkv", actual_grads, expected_grads, strict=True):
        torch.testing.assert_close(a, e, rtol=1e-4, atol=1e-5, msg=f"grad of {name}")


def test_outputs_keep_the_traced_layout():
    def permuted(x, w):
        return (x @ w).reshape(2, 3, 4, 5).permute(0, 2, 1, 3).clone()  # clone keeps the layout

    x, w = torch.randn(6, 8), torch.randn(8, 20)
    expected = permuted(x, w)
    assert not expected.is_contiguous()
    with torch.no_grad():
        actual = compile_native(permuted)(x, w)
    assert actual.stride() == expected.stride()
    torch.testing.assert_close(actual, expected)
    # Training: the forward's outputs (also those saved for the backward) keep it too.
    expected_out, expected_grads = _grads(permuted, x, w)
    actual_out, actual_grads = _grads(compile_native(permuted), x, w)
    assert actual_out.stride() == expected_out.stride()
    for a, e in zip(actual_grads, expected_grads, strict=True):
        torch.testing.assert_close(a, e, rtol=1e-4, atol=1e-5)


def test_training_compiles_without_aotautograd_warnings():
    model = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.GELU(), torch.nn.Linear(16, 4))
    x = torch.randn(3, 8)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        compile_native(model)(x).sum().backward()
    messages = [str(w.message) for w in caught]
    assert not [m for m in messages if "boxed" in m], messages
    assert all(p.grad is not None for p in model.parameters())


def test_tensor_constants_of_a_training_graph_are_lowered():
    """A tensor the forward creates (``torch.tensor(2)``) is a constant of the graph; AOTAutograd
    compiles training graphs under a fake tensor mode, in which reading it must not fail (its
    segment would fall back to PyTorch whole)."""
    from glassbox.backend import REPORTS

    torch.manual_seed(0)
    lin = torch.nn.Linear(4, 4)
    x = torch.randn(3, 4)

    def f(x):
        return (lin(x) * torch.tensor(2) + torch.tensor([0.5, 1.0, 1.5, 2.0])).square().sum()

    f(x).backward()
    expected = lin.weight.grad.clone()
    lin.zero_grad()
    start = len(REPORTS)
    compile_native(f)(x).backward()
    torch.testing.assert_close(lin.weight.grad, expected)
    forward = REPORTS[start]
    assert not any("internal error" in op for op in forward.fallback_ops), str(forward)
    assert forward.native_share == 1.0, str(forward)
