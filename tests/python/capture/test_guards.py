"""Generated guard(L, G) functions agree with Dynamo's own verdict on passing and failing inputs."""

from __future__ import annotations

import runpy
import sys
from pathlib import Path

import pytest
import torch

import glassbox
from glassbox.capture.guards import translate

sys.path.insert(0, str(Path(__file__).parent))
from capture_zoo import MLP, make  # noqa: E402
from torch._C._dynamo.eval_frame import _debug_get_cache_entry_list  # noqa: E402


def _guards_by_entry(dump: Path, code):
    """(Dynamo's guard manager, our guard function) for every cache entry of ``code``."""
    pairs = []
    for entry in _debug_get_cache_entry_list(code):
        folder = "compile_" + str(entry.compile_id).replace("/", "_")
        ours = runpy.run_path(str(dump / folder / "guards.py"))["guard"]
        pairs.append((entry.guard_manager, ours))
    assert pairs
    return pairs


def _agree(pairs, L, G):
    for dynamo, ours in pairs:
        assert ours(L, G) == dynamo.check(L), (L, dynamo)
    return [dynamo.check(L) for dynamo, _ in pairs]


def _variants(x):
    return {
        "same": x.clone(),
        "other batch": torch.randn(x.shape[0] + 2, *x.shape[1:]),
        "batch of one": torch.randn(1, *x.shape[1:]),
        "float64": x.double(),
        "requires grad": x.clone().requires_grad_(),
        "transposed strides": torch.randn(*reversed(x.shape)).t(),
        "not a tensor": [1.0, 2.0],
    }


@pytest.mark.parametrize("dynamic", ["static", "marked"])
def test_guards_agree_with_dynamo(tmp_path, dynamic):
    model, x = make("mlp")
    if dynamic == "marked":
        torch._dynamo.mark_dynamic(x, 0)
    with glassbox.capture(tmp_path):
        torch.compile(model, backend="eager")(x)
    pairs = _guards_by_entry(tmp_path, MLP.forward.__code__)
    G = MLP.forward.__globals__
    verdicts = {}
    for name, value in _variants(x).items():
        verdicts[name] = _agree(pairs, {"self": model, "x": value}, G)
    assert verdicts["same"] == [True] and verdicts["float64"] == [False]
    assert verdicts["other batch"] == ([True] if dynamic == "marked" else [False])
    # grad mode is global state: both must notice it
    with torch.no_grad():
        assert _agree(pairs, {"self": model, "x": x}, G) == [False]
    # another module instance of the same class: identity/attribute guards decide
    other = MLP()
    _agree(pairs, {"self": other, "x": x}, G)


def test_guards_of_recompiles_and_dict_inputs(tmp_path):
    def f(d, scale):
        return d["a"] * scale + d["b"]

    compiled = torch.compile(f, backend="eager")
    a, b = torch.randn(3), torch.randn(3)
    with glassbox.capture(tmp_path):
        compiled({"a": a, "b": b}, 2)
        compiled({"a": a, "b": b}, 3)  # recompile on the constant
    pairs = _guards_by_entry(tmp_path, f.__code__)
    assert len(pairs) >= 2
    G = f.__globals__
    for L in (
        {"d": {"a": a, "b": b}, "scale": 2},
        {"d": {"a": a, "b": b}, "scale": 3},
        {"d": {"a": a, "b": b}, "scale": 4},
        {"d": {"a": a}, "scale": 2},
        {"d": {"a": a, "b": b.double()}, "scale": 2},
    ):
        _agree(pairs, L, G)


def test_translation_is_readable():
    conditions = translate(
        "check_tensor(L['x'], Tensor, DispatchKeySet(CPU, BackendSelect), torch.float32, "
        "device=None, requires_grad=False, size=[None, 3], stride=[3, 1])",
        "y = self.l(x)  # model.py:5 in forward",
    )
    codes = [c.code for c in conditions]
    assert "L['x'].dtype == torch.float32" in codes
    assert "L['x'].device.type == 'cpu'" in codes
    assert "L['x'].size(1) == 3" in codes and not any("size(0)" in c for c in codes)
    assert all("model.py:5" in c.note for c in conditions)
    (state,) = [c for c in translate('___check_global_state() against {"grad_mode":true}', "")]
    assert state.code == "torch.is_grad_enabled() == True"


def test_full_code_holds_each_entry_guard_as_in_its_guards_file(tmp_path):
    """Each guard function is rendered once and written twice: guards.py and full_code agree,
    text and verdict, for every cache entry (a recompile makes two)."""
    model, _ = make("mlp")
    compiled = torch.compile(model, backend="eager")
    with glassbox.capture(tmp_path):
        for batch in (2, 3):
            compiled(torch.randn(batch, 8))
    full_code = (tmp_path / "full_code_for_forward.py").read_text()
    namespace = runpy.run_path(str(tmp_path / "full_code_for_forward.py"))
    entries = _debug_get_cache_entry_list(MLP.forward.__code__)
    assert len(entries) == 2
    pairs = _guards_by_entry(tmp_path, MLP.forward.__code__)
    for (dynamo, ours), entry in zip(pairs, entries, strict=True):
        ident = str(entry.compile_id).replace("/", "_")
        guards_file = (tmp_path / f"compile_{ident}" / "guards.py").read_text()
        function = guards_file[guards_file.index("@guard_function\n") :]
        renamed = function.replace("def guard(L, G):", f"def guard_{ident}(L, G):", 1)
        assert renamed in full_code
        G = MLP.forward.__globals__
        for batch in (2, 3, 4):
            L = {"self": model, "x": torch.randn(batch, 8)}
            assert namespace[f"guard_{ident}"](L, G) == ours(L, G) == dynamo.check(L)


def test_type_checks_name_types_the_builtins_module_lacks():
    """``type(x) is method``: Dynamo names types.MethodType ``method``, which is no builtin name;
    the condition resolves the type itself, and a name whose id does not match stays an id."""
    import types

    from glassbox.capture.guard_runtime import module, resolve
    from glassbox.capture.guards import _type_condition

    condition = _type_condition("x", id(types.MethodType), "method")
    assert condition == "type(x) is resolve('types.MethodType')"
    bound = MLP().forward
    assert eval(condition.replace("x", "bound"), {"bound": bound, "resolve": resolve})
    assert _type_condition("x", id(int), "int") == "type(x) is int"
    assert _type_condition("x", id(float), "int").startswith("id(type(x)) == ")
    assert module("torch.ops.aten") is torch.ops.aten  # an attribute, not an importable module
    with pytest.raises(AttributeError):
        module("torch.nn.no_such_module_here")
