"""glassbox.export / glassbox.load, glassbox-run on the same artifact, and bad input: corrupted or
truncated artifacts and wrong input count, shape or dtype all give clear errors."""

from __future__ import annotations

import math
import subprocess
from pathlib import Path

import numpy as np
import pytest
import torch
from conftest import assert_close
from zoo import GPT2, MLP, GPTConfig

import glassbox
from glassbox import _core
from glassbox.backend.export import find_runner


@pytest.fixture(scope="module")
def run_exe() -> str:
    runner = find_runner()
    if runner:
        return runner
    pytest.skip("glassbox-run is not installed (set GLASSBOX_RUN to a built one)")


@pytest.fixture(scope="module")
def mlp_artifact(tmp_path_factory):
    torch.manual_seed(0)
    model = MLP(8, 16, 3).eval()
    x = torch.randn(2, 8)
    path = tmp_path_factory.mktemp("gbx") / "mlp.gbx"
    report = glassbox.export(model, (x,), path)
    assert report.native_share == 1.0
    return model, x, path


def test_load_matches_eager(mlp_artifact):
    model, x, path = mlp_artifact
    fn = glassbox.load(path)
    assert_close(fn(x), model(x).detach())
    assert_close(torch.from_numpy(np.asarray(fn(x.numpy()))), model(x).detach())


def test_load_accepts_noncontiguous_inputs(mlp_artifact):
    model, x, path = mlp_artifact
    xt = x.t().contiguous().t()
    assert not xt.is_contiguous()
    assert_close(glassbox.load(path)(xt), model(x).detach())


def test_export_gpt_with_int_inputs(tmp_path):
    torch.manual_seed(0)
    model = GPT2(GPTConfig(vocab=50, ctx=8, d=16, heads=2, layers=1)).eval()
    idx = torch.randint(0, 50, (1, 8))
    glassbox.export(model, (idx,), tmp_path / "gpt.gbx")
    assert_close(glassbox.load(tmp_path / "gpt.gbx")(idx), model(idx).detach(), atol=1e-4)


def test_glassbox_run_equals_load(mlp_artifact, run_exe, tmp_path):
    model, x, path = mlp_artifact
    np.save(tmp_path / "x.npy", x.numpy())
    out = tmp_path / "out"
    subprocess.run(
        [
            run_exe,
            str(path),
            "--inputs",
            str(tmp_path / "x.npy"),
            "--outputs",
            str(out),
            "--repeat",
            "3",
        ],
        check=True,
    )
    np.testing.assert_array_equal(np.load(out / "out0.npy"), glassbox.load(path)(x).numpy())


def test_glassbox_run_rejects_bad_npy(mlp_artifact, run_exe, tmp_path):
    _, x, path = mlp_artifact
    np.save(tmp_path / "x.npy", x.numpy().astype(np.float64))
    r = subprocess.run(
        [run_exe, str(path), "--inputs", str(tmp_path / "x.npy"), "--outputs", str(tmp_path)],
        capture_output=True,
        text=True,
    )
    assert r.returncode == 1 and "unsupported dtype '<f8'" in r.stderr
    np.save(tmp_path / "y.npy", x.numpy()[:1])
    r = subprocess.run(
        [run_exe, str(path), "--inputs", str(tmp_path / "y.npy"), "--outputs", str(tmp_path)],
        capture_output=True,
        text=True,
    )
    assert r.returncode == 1 and "expected shape [2, 8], got [1, 8]" in r.stderr


def test_truncated_and_corrupted_artifacts(mlp_artifact, tmp_path):
    _, x, path = mlp_artifact
    data = Path(path).read_bytes()
    for n in (0, 4, 16, len(data) // 2, len(data) - 1):
        (tmp_path / "t.gbx").write_bytes(data[:n])
        with pytest.raises(_core.ArtifactError):
            glassbox.load(tmp_path / "t.gbx")
    bad = bytearray(data)
    bad[4:8] = b"XXXX"  # file identifier
    (tmp_path / "c.gbx").write_bytes(bytes(bad))
    with pytest.raises(_core.ArtifactError, match="file identifier"):
        glassbox.load(tmp_path / "c.gbx")
    rng = np.random.default_rng(0)
    for _ in range(200):  # random byte flips: an error or a valid program, never a crash
        bad = bytearray(data)
        bad[rng.integers(len(bad))] ^= int(rng.integers(1, 256))
        try:
            _core.RuntimeProgram.from_bytes(bytes(bad)).run([x.numpy()])
        except ValueError:
            pass


def test_wrong_inputs_are_clear_errors(mlp_artifact):
    _, x, path = mlp_artifact
    fn = glassbox.load(path)
    with pytest.raises(_core.RunError, match="expected 1 inputs, got 2"):
        fn(x, x)
    with pytest.raises(_core.RunError, match=r"expected shape \[2, 8\], got \[3, 8\]"):
        fn(torch.randn(3, 8))
    with pytest.raises(_core.RunError, match="expected dtype float32, got int64"):
        fn(torch.ones(2, 8, dtype=torch.int64))
    with pytest.raises(_core.RunError, match="unsupported dtype"):
        fn(torch.ones(2, 8, dtype=torch.float64))


def test_export_rejects_unsupported_ops(tmp_path):
    class M(torch.nn.Module):
        def forward(self, x):
            return torch.cumprod(x, 0)

    with pytest.raises(glassbox.backend.ExportError, match="cumprod"):
        glassbox.export(M(), (torch.randn(3),), tmp_path / "m.gbx")


def test_export_prints_no_torch_deprecation_noise(tmp_path):
    """torch's own deep copy inside run_decompositions trips its LeafSpec deprecation warning;
    glassbox.export keeps it from the caller (and still exports)."""
    import warnings

    torch.manual_seed(0)
    model, x = MLP(8, 16, 4).eval(), torch.randn(2, 8)
    with warnings.catch_warnings():
        warnings.simplefilter("error", FutureWarning)
        glassbox.export(model, (x,), str(tmp_path / "m.gbx"))
    with torch.no_grad():
        assert_close(glassbox.load(str(tmp_path / "m.gbx"))(x), model(x))


class _Attention(torch.nn.Module):
    """A forward with arguments that are not tensors: fixed at export, recorded by name."""

    def forward(self, q, k, causal: bool, scale=1.0, bias=None):
        s = q @ k.transpose(-1, -2) * scale
        if causal:
            s = s.masked_fill(torch.ones(4, 4, dtype=torch.bool).triu(1), float("-inf"))
        return s.softmax(-1) if bias is None else s + bias


def test_export_fixes_non_tensor_arguments(tmp_path):
    q, k = torch.randn(2, 4, 8), torch.randn(2, 4, 8)
    model = _Attention()
    path = tmp_path / "attn.gbx"
    glassbox.export(model, (q, k, True), path, example_kwargs={"scale": 0.5, "bias": None})
    fn = glassbox.load(path)
    assert fn.num_inputs == 2
    assert fn.arguments == [
        ("q", 0, None),
        ("k", 1, None),
        ("causal", -1, True),
        ("scale", -1, 0.5),
        ("bias", -1, None),
    ]
    assert fn.constants == {"causal": True, "scale": 0.5, "bias": None}
    expected = model(q, k, True, scale=0.5)
    assert_close(fn(q, k), expected)  # the tensors alone
    assert_close(fn(q, k, True, scale=0.5, bias=None), expected)  # the exported call
    assert_close(fn(k=k, q=q), expected)
    with pytest.raises(ValueError, match="'causal' was fixed to True at export, got False"):
        fn(q, k, False)
    with pytest.raises(ValueError, match="'scale' was fixed to 0.5"):
        fn(q, k, scale=1)
    with pytest.raises(TypeError, match="missing argument 'k'"):
        fn(q, causal=True)


def test_export_rejects_other_non_tensor_arguments(tmp_path):
    class M(torch.nn.Module):
        def forward(self, x, mode: str):
            return x * 2 if mode == "double" else x

    with pytest.raises(glassbox.backend.ExportError, match="input mode is a str"):
        glassbox.export(M(), (torch.randn(3), "double"), tmp_path / "m.gbx")


def test_conv2d_args_travel_typed(tmp_path, run_exe):
    """conv2d's stride, padding, dilation, groups, folded batch norm and activation go through
    the artifact's Conv2dArgs table (no positional ints) and run the same under glassbox-run."""
    torch.manual_seed(0)
    conv = torch.nn.Conv2d(4, 6, 3, stride=2, padding=2, dilation=2, groups=2)
    bn = torch.nn.BatchNorm2d(6)
    bn.running_mean.uniform_(-1, 1)
    bn.running_var.uniform_(0.5, 2)
    model = torch.nn.Sequential(conv, bn, torch.nn.ReLU()).eval()
    x = torch.randn(2, 4, 9, 9)
    glassbox.export(model, (x,), tmp_path / "cnn.gbx")
    assert_close(glassbox.load(tmp_path / "cnn.gbx")(x), model(x).detach(), atol=1e-5)
    np.save(tmp_path / "x.npy", x.numpy())
    subprocess.run(
        [run_exe, tmp_path / "cnn.gbx", "--inputs", tmp_path / "x.npy", "--outputs", tmp_path],
        check=True,
    )
    got = torch.from_numpy(np.load(tmp_path / "out0.npy"))
    assert_close(got, model(x).detach(), atol=1e-5)


def test_typed_args_only_for_their_kernel():
    from glassbox.backend.kernel_args import Conv2dArgs

    values = [(0, [2, 2], 0, 0), (0, [2, 2], 2, 0)]
    instr = ("relu_not_conv", [0], [1], Conv2dArgs())
    with pytest.raises(ValueError, match="typed arguments"):
        _core.serialize_program(values, [0], [1], [instr], [], 64)


class _EveryFamily(torch.nn.Module):
    """Kernels of every argument family: convolution, batch norm, pooling, layer norm, softmax,
    reductions, cumsum, cat, gather, index_select, index, slices, full, arange, elementwise."""

    def __init__(self) -> None:
        super().__init__()
        self.features = torch.nn.Sequential(
            torch.nn.Conv2d(2, 3, 3, padding=1),
            torch.nn.BatchNorm2d(3),
            torch.nn.MaxPool2d(2),
            torch.nn.AvgPool2d(2, ceil_mode=True),
            torch.nn.AdaptiveAvgPool2d(2),
            torch.nn.Flatten(),
            torch.nn.LayerNorm(12),
        )

    def forward(self, x, idx):
        h = self.features(x)  # [2, 12]
        h = torch.softmax(h, -1) + torch.cumsum(h, 1) * 0.5
        v = h.var(1, keepdim=True) + h.mean(0).sum() + torch.amax(h, 1, keepdim=True)
        picked = torch.gather(h, 1, idx) + torch.index_select(h, 1, idx[0]) + h[:, idx[1]]
        steps = torch.arange(0, 6, 2, dtype=torch.float32) + torch.full((3,), 0.25)
        return torch.cat([h[:, 1:4].t().reshape(2, 3) + picked + steps, v.expand(2, 3)], 1)


def test_typed_args_of_every_family_reach_the_runtime(tmp_path):
    """An artifact whose kernels take every family's table, written through the bindings from
    the dataclasses and verified by the runtime, computes what PyTorch does."""
    torch.manual_seed(0)
    model = _EveryFamily().eval()
    x, idx = torch.randn(2, 2, 9, 9), torch.tensor([[3, 0, 11], [1, 5, 2]])
    report = glassbox.export(model, (x, idx), tmp_path / "every.gbx")
    assert report.native_share == 1.0
    with torch.no_grad():
        expected = model(x, idx)
    assert_close(glassbox.load(tmp_path / "every.gbx")(x, idx), expected, atol=1e-5, rtol=1e-5)


def test_export_writes_formulas_as_one_step_each(tmp_path, emitted):
    """An exported Llama gets what torch.compile's graphs get: its RMSNorm and rotary formulas
    each run as one kernel."""
    transformers = pytest.importorskip("transformers")
    torch.manual_seed(0)
    config = transformers.LlamaConfig(
        vocab_size=64, hidden_size=32, intermediate_size=64, num_hidden_layers=1,
        num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=16, use_cache=False,
    )  # fmt: skip
    model = transformers.LlamaModel(config).eval()
    ids = torch.randint(0, 64, (1, 6))
    glassbox.export(model, (ids,), tmp_path / "llama.gbx")
    ops = [i.op for i in emitted]
    assert ops.count("rms_norm") == 3 and ops.count("rotary") == 2
    # grouped-query attention reads its 2 key and value heads, not repeat_kv's copies of them
    (attention,) = [i for i in emitted if i.op == "attention"]
    assert [math.prod(s.shape) for s in attention.inputs[1:3]] == [2 * 6 * 8] * 2
    got = glassbox.load(tmp_path / "llama.gbx")(ids)
    got = got[0] if isinstance(got, (list, tuple)) else got
    assert_close(got, model(ids).last_hidden_state.detach(), atol=1e-5)
