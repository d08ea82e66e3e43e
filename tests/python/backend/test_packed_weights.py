"""Products against weights packed once (the runtime's packed GEMM path, rows 2..64): a weight the
runtime keeps packed is repacked whenever it may have changed: an in-place write, a new tensor at
the same address, another module sharing the compiled code, inference tensors without a version
counter. Each case compares with eager after the change."""

from __future__ import annotations

import gc

import torch
from conftest import assert_close, compile_native
from zoo import MLP, EncoderBlock


def test_in_place_weight_updates_are_seen():
    torch.manual_seed(0)
    model, x = MLP(16, 32, 4).eval(), torch.randn(8, 16)
    fn = compile_native(model)
    with torch.no_grad():
        assert_close(fn(x), model(x))
        model.layers[0].weight.mul_(-2.0)  # same tensor, same address, version bumped
        assert_close(fn(x), model(x))
        model.load_state_dict(MLP(16, 32, 4).state_dict())  # copy_ into every parameter
        assert_close(fn(x), model(x))
        model.head.weight.data = torch.randn(4, 32)  # a new tensor behind the parameter
        assert_close(fn(x), model(x))


def test_a_new_module_at_freed_addresses_is_not_taken_for_the_old_one():
    torch.manual_seed(0)
    x = torch.randn(8, 16)
    fn = None
    for _ in range(4):
        model = MLP(16, 32, 4).eval()
        fn = torch.compile(model, backend="glassbox", fullgraph=True, dynamic=False)
        with torch.no_grad():
            assert_close(fn(x), model(x))
        del model, fn
        gc.collect()


def _sharing_code(a, b, x):
    """Two modules of one class compiled (so sharing Dynamo's code for forward), each checked
    against eager twice; returns the compiled pair."""
    torch._dynamo.reset()
    fa, fb = (torch.compile(m, backend="glassbox", fullgraph=True, dynamic=False) for m in (a, b))
    with torch.no_grad():
        for _ in range(2):
            assert_close(fa(x), a(x))
            assert_close(fb(x), b(x))
    return fa, fb


def test_modules_sharing_compiled_code_each_get_their_own_weights():
    torch.manual_seed(0)
    _sharing_code(
        EncoderBlock(32, 2, 64).eval(), EncoderBlock(32, 2, 64).eval(), torch.randn(1, 8, 32)
    )


def test_inference_tensor_weights_are_never_reused():
    torch.manual_seed(0)
    with torch.inference_mode():
        model = MLP(16, 32, 4).eval()  # parameters created here are inference tensors
        x = torch.randn(8, 16)
        fn = compile_native(model)
        assert_close(fn(x), model(x))
        model.layers[0].weight.mul_(3.0)  # no version counter to bump
        assert_close(fn(x), model(x))


def test_convolution_weights_reordered_once_are_reordered_after_changes():
    """oneDNN's convolution keeps its weight in the primitive's layout: in-place writes, a new
    tensor behind the parameter and another module sharing the code are all seen."""
    torch.manual_seed(0)

    def net():
        return torch.nn.Sequential(
            torch.nn.Conv2d(3, 8, 3, padding=1), torch.nn.ReLU(), torch.nn.Conv2d(8, 4, 1)
        ).eval()

    a, b, x = net(), net(), torch.randn(2, 3, 10, 10)
    fa, fb = _sharing_code(a, b, x)
    with torch.no_grad():
        a[0].weight.mul_(-2.0)
        assert_close(fa(x), a(x))
        a[2].weight.data = torch.randn(4, 8, 1, 1)
        assert_close(fa(x), a(x))
        assert_close(fb(x), b(x))
