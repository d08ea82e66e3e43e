"""Inference without AOTAutograd's runtime wrapper: which calls take the direct road, and that the
ones which cannot (state updates, aliasing outputs, gradients) still go through AOTAutograd and
stay right."""

from __future__ import annotations

import gc
import weakref

import pytest
import torch
from conftest import assert_close, compile_native, run_and_report
from zoo import MLP

from glassbox.backend import REPORTS


def _names(fn, *args, ctx=torch.no_grad):
    start = len(REPORTS)
    with ctx():
        out = fn(*args)
    return out, [r.name for r in REPORTS[start:]]


def test_no_grad_and_inference_mode_take_the_direct_road():
    torch.manual_seed(0)
    model, x = MLP(16, 32, 4).eval(), torch.randn(3, 16)
    for ctx in (torch.no_grad, torch.inference_mode):
        out, names = _names(compile_native(model), x, ctx=ctx)
        assert names == ["inference (direct)"]
        with torch.no_grad():
            assert_close(out, model(x))
        assert not out.requires_grad


def test_inputs_without_grad_take_the_direct_road_with_grad_enabled():
    def f(a, b):
        return torch.relu(a @ b) + 1

    a, b = torch.randn(4, 8), torch.randn(8, 5)
    out, names = _names(compile_native(f), a, b, ctx=torch.enable_grad)
    assert names == ["inference (direct)"]
    assert_close(out, f(a, b))


def test_gradients_take_the_aot_road():
    torch.manual_seed(0)
    model, x = MLP(16, 32, 4), torch.randn(3, 16)
    out, names = _names(compile_native(model), x, ctx=torch.enable_grad)
    assert names and all(not n.startswith("inference") for n in names)
    assert out.requires_grad


def test_state_updates_take_the_aot_road():
    """Batch norm in training mode updates its running statistics even under no_grad."""
    torch.manual_seed(0)
    bn = torch.nn.BatchNorm1d(6).train()
    ref = torch.nn.BatchNorm1d(6).train()
    ref.load_state_dict(bn.state_dict())
    x = torch.randn(5, 6)
    out, names = _names(compile_native(bn), x)
    assert "inference (direct)" not in names
    with torch.no_grad():
        assert_close(out, ref(x))
    assert_close(bn.running_mean, ref.running_mean)
    assert_close(bn.running_var, ref.running_var)


def test_outputs_aliasing_inputs_take_the_aot_road():
    def f(x):
        return x, x.view(-1), torch.sin(x)

    x = torch.randn(3, 4)
    out, names = _names(compile_native(f), x)
    assert "inference (direct)" not in names
    assert out[0] is x or out[0].data_ptr() == x.data_ptr()
    assert out[1].data_ptr() == x.data_ptr()
    assert_close(out[2], torch.sin(x))


def test_direct_road_gives_fresh_outputs_each_call():
    def f(x):
        return torch.tanh(x) * 2

    fn = compile_native(f)
    x = torch.randn(8)
    with torch.no_grad():
        a = fn(x)
        b = fn(x + 1)
    assert a.data_ptr() != b.data_ptr()
    assert_close(a, f(x))
    assert_close(b, f(x + 1))


def test_address_fast_path_rechecks_every_call():
    """After a call by address has been recorded, inputs that differ in strides, dtype or the
    negation bit must still take the checked road and give the right answer."""
    from torch.fx.experimental.proxy_tensor import make_fx

    from glassbox.backend.compiled import compile_graph

    def f(a, b):
        return (torch.tanh(a) * b,)

    a, b = torch.randn(6, 5), torch.randn(6, 5)
    gm = make_fx(f)(a, b)
    compiled = compile_graph(gm, [a, b])
    assert_close(compiled(a, b)[0], f(a, b)[0])
    assert_close(compiled(a, b)[0], f(a, b)[0])  # now recorded
    strided = torch.randn(5, 6).t()
    assert_close(compiled(strided, b)[0], f(strided, b)[0])
    negated = torch._neg_view(torch.randn(6, 5))
    assert negated.is_neg()
    assert_close(compiled(negated, b)[0], f(negated, b)[0])
    offset = torch.randn(7, 5)[1:]
    assert_close(compiled(offset, b)[0], f(offset, b)[0])
    assert_close(compiled(a, b)[0], f(a, b)[0])


def _one_segment():
    from torch.fx.experimental.proxy_tensor import make_fx

    from glassbox.backend.compiled import compile_graph

    def f(a, b):
        return (torch.tanh(a) * b,)

    a, b = torch.randn(6, 5), torch.randn(6, 5)
    return compile_graph(make_fx(f)(a, b), [a, b]), f, a, b


def test_bad_calls_give_clear_errors():
    compiled, f, a, b = _one_segment()
    for _ in range(2):  # before and after a guard is recorded
        with pytest.raises(ValueError, match="expected shape"):
            compiled(torch.randn(3, 5), b)
        with pytest.raises(ValueError, match="expected at least 2 arguments, got 1"):
            compiled(a)
        assert_close(compiled(a, b)[0], f(a, b)[0])
    with pytest.raises(TypeError, match="positional arguments only"):
        compiled(a, b=b)


def _overhead_records(fn) -> list[str]:
    """The names of Dynamo's profiler-record calls in the code it generated for fn's frame."""
    import dis

    from torch._dynamo.eval_frame import _debug_get_cache_entry_list

    (entry,) = _debug_get_cache_entry_list(fn.__code__)
    return [
        i.argval for i in dis.get_instructions(entry.code) if "record_pregraph" in str(i.argval)
    ]


def _mlp_frame(backend, x):
    torch._dynamo.reset()

    def f(x):
        return torch.relu(x @ x.T) + 1

    with torch.no_grad():
        out = torch.compile(f, backend=backend, fullgraph=True, dynamic=False)(x)
    return f, out


def test_frames_go_without_dynamos_profiler_records(monkeypatch):
    """The two calls record_runtime_overhead puts in every frame's code are left out of the frames
    glassbox compiles only: the setting is back on afterwards, other backends keep them, and
    GLASSBOX_RECORD_RUNTIME_OVERHEAD=1 keeps them for glassbox too."""
    from torch._dynamo import config as dynamo_config

    x = torch.randn(4, 3)
    assert dynamo_config.record_runtime_overhead
    f, out = _mlp_frame("glassbox", x)
    assert_close(out, torch.relu(x @ x.T) + 1)
    assert _overhead_records(f) == []
    assert dynamo_config.record_runtime_overhead
    f, _ = _mlp_frame("eager", x)
    assert _overhead_records(f) == [
        "record_pregraph_bytecode_enter",
        "record_pregraph_bytecode_exit",
    ]
    monkeypatch.setenv("GLASSBOX_RECORD_RUNTIME_OVERHEAD", "1")
    f, _ = _mlp_frame("glassbox", x)
    assert len(_overhead_records(f)) == 2
    assert dynamo_config.record_runtime_overhead


def test_the_direct_road_entry_is_collected():
    """The entry's fallback refers back to it: a cycle the garbage collector must see through."""
    compiled, f, a, b = _one_segment()
    compiled(a, b)
    ref = weakref.ref(compiled)
    del compiled
    gc.collect()
    assert ref() is None


def test_calls_from_several_threads_agree():
    """One compiled graph called from several threads at once: each call takes its own arena,
    the GIL is released while the program runs, and products large enough are shared out over
    OpenMP threads inside each call."""
    import threading

    torch.manual_seed(0)
    model = MLP(256, 512, 10, depth=3).eval()
    fn = compile_native(model)
    xs = [torch.randn(1, 256) for _ in range(4)]
    with torch.no_grad():
        expected = [model(x) for x in xs]
        fn(xs[0])
    failures = []

    def work(i):
        with torch.no_grad():
            for _ in range(100):
                out = fn(xs[i])
                if not torch.allclose(out, expected[i], rtol=1e-4, atol=1e-5):
                    failures.append(i)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(len(xs))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not failures


def test_no_leak_report_at_exit(tmp_path):
    """A script that keeps a compiled model (and the backend's compiled graph) alive until the
    interpreter exits prints nothing about leaked native objects: torch still holds them at exit,
    which is not a leak while running."""
    import subprocess
    import sys

    script = tmp_path / "keep.py"
    script.write_text(
        "import torch, glassbox\n"
        "from glassbox.backend import glassbox_backend\n"
        "kept = {}\n"
        "def backend(gm, example_inputs):\n"
        "    kept['fn'] = glassbox_backend(gm, example_inputs)\n"
        "    return kept['fn']\n"
        "model = torch.nn.Sequential(torch.nn.Linear(8, 8), torch.nn.ReLU()).eval()\n"
        "compiled = torch.compile(model, backend=backend)\n"
        "x = torch.randn(1, 8)\n"
        "with torch.no_grad():\n"
        "    calls = {'c': lambda: compiled(x)}\n"
        "    print(float(calls['c']().sum() - model(x).sum()))\n"
    )
    done = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr
    assert abs(float(done.stdout.split()[-1])) < 1e-5
    assert "leaked" not in done.stderr, done.stderr


def test_a_segment_glassbox_cannot_build_runs_in_pytorch(monkeypatch, caplog):
    """A failure inside glassbox's lowering (here forced) is never the user's exception: PyTorch
    runs the segment, the report names the error, and a warning says so."""
    import glassbox.backend.compiled as compiled

    def broken(*args, **kwargs):
        raise KeyError("forced")

    monkeypatch.setattr(compiled, "lower_segment", broken)
    x = torch.randn(4, 8)
    with caplog.at_level("WARNING", logger="glassbox.backend"):
        out, reports = run_and_report(lambda a: torch.relu(a @ a.T) + 1, x)
    assert torch.equal(out, torch.relu(x @ x.T) + 1)
    assert reports[0].native_nodes == 0
    assert any("internal error: KeyError" in op for op in reports[0].fallback_ops)
    assert "PyTorch runs it" in caplog.text
