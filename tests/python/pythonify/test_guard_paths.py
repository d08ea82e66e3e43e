"""Guards read each shared path once (guard_paths.share_paths) with the same verdicts."""

from __future__ import annotations

from types import SimpleNamespace

from glassbox.pythonify import gen_python
from glassbox.pythonify.adapters.guard_paths import share_paths
from glassbox.pythonify.ir import Condition, GuardCheck


def _guard(conditions: list[str]):
    check = share_paths(GuardCheck("guard", "f", "0/0", [Condition(c, "") for c in conditions]))
    namespace: dict = {}
    exec(gen_python.guard_source(check), namespace)
    return check, namespace["guard"]


CONDITIONS = [
    "L['self'].fc.weight.dim() == 2",
    "L['self'].fc.weight.size(0) == 3",
    "L['self'].fc.bias is None or L['self'].fc.bias.dim() == 1",
    "L['self'].fc.training == False",
    "L['x'].dim() == 1",
]


def _inputs(weight_rows=3, bias=True, training=False, x_dim=1):
    class Tensor:
        def __init__(self, *shape):
            self.shape = shape

        def dim(self):
            return len(self.shape)

        def size(self, i):
            return self.shape[i]

    fc = SimpleNamespace(
        weight=Tensor(weight_rows, 2), bias=Tensor(3) if bias else None, training=training
    )
    return {"self": SimpleNamespace(fc=fc), "x": Tensor(*[1] * x_dim)}


def test_shared_prefixes_become_locals_and_verdicts_stay():
    check, guard = _guard(CONDITIONS)
    binds = [b for c in check.conditions for b in c.binds]
    assert binds == [("p_self_fc", "L['self'].fc"), ("p_fc_weight", "p_self_fc.weight")]
    assert guard(_inputs(), {}) is None
    # each failing condition is reported with its original text
    assert guard(_inputs(weight_rows=4), {}) == CONDITIONS[1]
    assert guard(_inputs(training=True), {}) == CONDITIONS[3]
    assert guard(_inputs(x_dim=2), {}) == CONDITIONS[4]
    assert guard(_inputs(bias=False), {}) is None


def test_a_path_read_only_after_and_or_is_not_bound_first():
    """``A is None or A.b`` must not read ``A.b`` up front: it may not exist when A is None."""
    conditions = ["L['m'].bias is None or L['m'].bias.dim() == 1", "L['m'].bias is None or True"]
    check, guard = _guard(conditions)
    values = [value for c in check.conditions for _, value in c.binds]
    assert not any(".dim" in value for value in values)
    assert guard({"m": SimpleNamespace(bias=None)}, {}) is None


def test_a_missing_path_fails_the_guard_as_before():
    check, guard = _guard(CONDITIONS)
    assert guard({"x": None}, {}).startswith("guard raised")
