"""The zoo through torch.compile(backend="glassbox"): outputs within 1e-4 (relative) of eager,
>= 95% of inference graph nodes native (printed per model), and training gradients matching."""

from __future__ import annotations

import pytest
import torch
from conftest import assert_close, run_and_report
from zoo import GPT2, MLP, EncoderBlock, GPTConfig, ResNet18Like, randomize_bn

from glassbox.backend import REPORTS


def models():
    torch.manual_seed(0)
    return {
        "mlp": (MLP(32, 64, 10), (torch.randn(4, 32),)),
        "resnet18_like": (
            randomize_bn(ResNet18Like(width=8, classes=10)),
            (torch.randn(2, 3, 32, 32),),
        ),
        "encoder_block": (EncoderBlock(32, 4, 64), (torch.randn(2, 8, 32),)),
        "gpt2_tiny": (
            GPT2(GPTConfig(vocab=97, ctx=16, d=32, heads=4, layers=2)),
            (torch.randint(0, 97, (2, 16)),),
        ),
    }


@pytest.mark.parametrize("name", ["mlp", "resnet18_like", "encoder_block", "gpt2_tiny"])
def test_inference_matches_eager_and_runs_natively(name, capsys):
    model, args = models()[name]
    model.eval()
    with torch.no_grad():
        expected = model(*args)
        actual, reports = run_and_report(model, *args)
    assert_close(actual, expected, rtol=1e-4, atol=1e-4)
    nodes = sum(r.total_nodes for r in reports)
    native = sum(r.native_nodes for r in reports)
    with capsys.disabled():
        print(f"\n{name}: native share {native}/{nodes} = {100 * native / nodes:.1f}%")
        for r in reports:
            print("  ", r)
    assert native / nodes >= 0.95


@pytest.mark.parametrize("name", ["mlp", "resnet18_like", "encoder_block"])
def test_training_gradients_match(name):
    model, args = models()[name]
    model.train()
    if name == "resnet18_like":
        model.eval()  # batch-norm statistics updates are not the point here
    ref = {k: v.clone() for k, v in model.state_dict().items()}
    expected = model(*args).square().mean()
    expected.backward()
    grads = {n: p.grad.clone() for n, p in model.named_parameters()}
    model.zero_grad()
    model.load_state_dict(ref)
    start = len(REPORTS)
    actual, _ = run_and_report(lambda *a: model(*a).square().mean(), *args)
    actual.backward()  # the backward graph is compiled here, lazily
    reports = REPORTS[start:]
    assert_close(actual, expected.detach(), rtol=1e-4, atol=1e-5)
    for n, p in model.named_parameters():
        torch.testing.assert_close(p.grad, grads[n], rtol=1e-3, atol=1e-5, msg=n)
    assert any(r.name.startswith("backward") for r in reports)
