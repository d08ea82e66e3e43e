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


def test_modules_sharing_compiled_code_each_get_their_own_weights():
    torch.manual_seed(0)
    torch._dynamo.reset()
    a, b = EncoderBlock(32, 2, 64).eval(), EncoderBlock(32, 2, 64).eval()
    x = torch.randn(1, 8, 32)
    fa = torch.compile(a, backend="glassbox", fullgraph=True, dynamic=False)
    fb = torch.compile(b, backend="glassbox", fullgraph=True, dynamic=False)
    with torch.no_grad():
        for _ in range(2):
            assert_close(fa(x), a(x))
            assert_close(fb(x), b(x))


def test_inference_tensor_weights_are_never_reused():
    torch.manual_seed(0)
    with torch.inference_mode():
        model = MLP(16, 32, 4).eval()  # parameters created here are inference tensors
        x = torch.randn(8, 16)
        fn = compile_native(model)
        assert_close(fn(x), model(x))
        model.layers[0].weight.mul_(3.0)  # no version counter to bump
        assert_close(fn(x), model(x))
