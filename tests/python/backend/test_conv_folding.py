"""Convolutions that apply the inference batch norm and the ReLU after them as they write their
result (one conv2d instruction, oneDNN post-ops), and the cases that must not fold; each against
eager."""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F
from conftest import assert_close, run_and_report
from torch._decomp import core_aten_decompositions
from torch._functorch.aot_autograd import aot_export_joint_simple

from glassbox.backend.lower import Lowerer, meta_val


def _lowered(fn, *args):
    """The instructions the lowering emits for fn's core ATen graph (op, ints, floats, args)."""
    g = aot_export_joint_simple(
        fn, args, trace_joint=False, decompositions=core_aten_decompositions()
    )
    lw = Lowerer()
    position = 0
    for n in g.graph.nodes:
        if n.op == "placeholder":
            lw.env[n] = lw.input_slot(meta_val(n), position)
            position += 1
        elif n.op == "call_function":
            lw.lower_node(n)
    return [(i.op, i.args) for i in lw.instrs]


def _bn(h, m, v, w, b):
    return F.batch_norm(h, m, v, w, b, False, 0.1, 1e-5)


torch.manual_seed(0)
X, W, B = torch.randn(3, 4, 9, 9), torch.randn(6, 4, 3, 3), torch.randn(6)
M, V = torch.randn(6), torch.rand(6) + 0.5
BW, BB = torch.randn(6), torch.randn(6)


def conv_bn_relu(x, w, b, m, v, bw, bb):
    return (F.relu(_bn(F.conv2d(x, w, b, padding=1), m, v, bw, bb)),)


def conv_bn_no_affine(x, w, m, v):
    return (_bn(F.conv2d(x, w, None, stride=2), m, v, None, None),)


def conv_relu(x, w, b):
    return (F.relu(F.conv2d(x, w, b, padding=1)),)


def conv_read_twice(x, w, b, m, v):
    h = F.conv2d(x, w, b, padding=1)
    return (F.relu(_bn(h, m, v, None, None)), h * 2)


def bn_read_twice(x, w, b, m, v, bw, bb):
    y = _bn(F.conv2d(x, w, b, padding=1), m, v, bw, bb)
    return (F.relu(y), y + 1)


CASES = {
    # name: (fn, args, the lowered ops, what conv2d folds: (batch_norm, its weight, its bias,
    # epilogue))
    "conv_bn_relu": (conv_bn_relu, (X, W, B, M, V, BW, BB), ["conv2d"], (True, True, True, 1)),
    "conv_bn_no_affine": (conv_bn_no_affine, (X, W, M, V), ["conv2d"], (True, False, False, 0)),
    "conv_relu": (conv_relu, (X, W, B), ["conv2d"], (False, False, False, 1)),
    "conv_read_twice": (conv_read_twice, (X, W, B, M, V), None, (False, False, False, 0)),
    "bn_read_twice": (bn_read_twice, (X, W, B, M, V, BW, BB), None, (True, True, True, 0)),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_folding_matches_eager(name):
    fn, args, ops, extra = CASES[name]
    lowered = _lowered(fn, *args)
    if ops is not None:
        assert [op for op, _ in lowered] == ops
    _, a = next(ins for ins in lowered if ins[0] == "conv2d")
    assert (a.batch_norm, a.batch_norm_weight, a.batch_norm_bias, a.epilogue) == extra
    assert a.batch_norm_eps == (1e-5 if extra[0] else 0.0)
    with torch.no_grad():
        out, reports = run_and_report(fn, *args)
        assert reports and all(r.native_nodes == r.total_nodes for r in reports)
        assert_close(out, fn(*args))
