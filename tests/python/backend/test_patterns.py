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
