"""Fixtures for the native backend tests: torch (skipped without it), compile helpers, zoo."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

import glassbox  # noqa: E402
from glassbox.backend import REPORTS, register  # noqa: E402

register()


@pytest.fixture
def emitted(monkeypatch):
    """The instructions the lowering emits while the test runs (each with its op, inputs,
    outputs and typed arguments)."""
    from glassbox.backend.lower import Lowerer

    instrs = []
    emit = Lowerer.emit

    def spy(self, *args, **kwargs):
        instr = emit(self, *args, **kwargs)
        instrs.append(instr)
        return instr

    monkeypatch.setattr(Lowerer, "emit", spy)
    return instrs


def compile_native(fn):
    """torch.compile with the glassbox backend, one graph; returns (compiled, new reports)."""
    torch._dynamo.reset()
    return torch.compile(fn, backend="glassbox", fullgraph=True, dynamic=False)


def run_and_report(fn, *args):
    start = len(REPORTS)
    out = compile_native(fn)(*args)
    return out, REPORTS[start:]


def assert_close(actual, expected, rtol=1e-4, atol=1e-5):
    if isinstance(expected, (tuple, list)):
        assert len(actual) == len(expected)
        for a, e in zip(actual, expected, strict=False):
            assert_close(a, e, rtol, atol)
        return
    assert actual.shape == expected.shape, (actual.shape, expected.shape)
    assert actual.dtype == expected.dtype, (actual.dtype, expected.dtype)
    torch.testing.assert_close(actual, expected, rtol=rtol, atol=atol)


__all__ = ["assert_close", "compile_native", "glassbox", "run_and_report", "torch"]
