"""lower.view_strides against PyTorch's own view: the same strides where torch makes a view, None
where torch refuses one."""

from __future__ import annotations

import itertools

import torch

from glassbox.backend.lower import view_strides


def _views():
    base = torch.arange(2 * 3 * 4 * 2.0).reshape(2, 3, 4, 2)
    yield base
    yield base.permute(0, 2, 1, 3)
    yield base.transpose(-1, -2)
    yield base[:, 1:]
    yield base[..., :1]
    yield base[:, :, ::2]
    yield base.reshape(6, 8)[:, 2:6]
    yield base.reshape(6, 8).t()
    yield torch.ones(1, 5).expand(3, 5)


def _shapes(n):
    divisors = [d for d in range(1, n + 1) if n % d == 0]
    for k in (1, 2, 3):
        for combo in itertools.product(divisors, repeat=k):
            if torch.Size(combo).numel() == n:
                yield combo
    yield (1, n, 1)


def test_view_strides_match_torch():
    checked = 0
    for t in _views():
        for shape in _shapes(t.numel()):
            try:
                expected = list(t.view(shape).stride())
            except RuntimeError:
                expected = None
            assert view_strides(tuple(t.shape), list(t.stride()), shape) == expected, (
                t.shape,
                t.stride(),
                shape,
            )
            checked += 1
    assert checked > 100
