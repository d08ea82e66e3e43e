"""glassbox.verify.effects: two code objects do the same thing when their effects match.

Each case is a pair of functions; the check must say "the same" only where running them cannot
tell them apart, and must refuse (with a reason) everything it does not model.
"""

from __future__ import annotations

import sys

import pytest

from glassbox.verify.effects import same_effects


def _same(one, other) -> str | None:
    return same_effects(one.__code__, other.__code__)


def temporaries(a, b):
    t = a.x
    u = t(b, k=1)
    del t
    return u + b


def inline(a, b):
    return a.x(b, k=1) + b


def other_keyword(a, b):
    return a.x(b, k=2) + b


def extra_operation(a, b):
    b + 1
    return a.x(b, k=1) + b


def calls_in_order(f, g):
    first = f()
    return g(), first


def calls_swapped(f, g):
    second = g()
    return second, f()


def test_temporaries_and_deletions_are_bookkeeping() -> None:
    assert _same(temporaries, inline) is None


@pytest.mark.parametrize("other", [other_keyword, extra_operation])
def test_a_different_value_or_operation_is_seen(other) -> None:
    assert _same(temporaries, other) is not None


def test_the_order_of_calls_matters() -> None:
    assert _same(calls_in_order, calls_swapped) is not None


def star_list(f, a, b):
    return f(*[a, *b])


def extended_list(f, a, b):
    items = [a]
    items.extend(b)
    return f(*items)


def built_then_read(f, a):
    items = [a, f]
    return items[1](items[0])


def called_directly(f, a):
    return f(a)


def test_lists_the_frame_builds_are_bookkeeping_while_unseen() -> None:
    # extend by an unknown iterable runs other code: an effect on both sides, in order
    assert _same(star_list, extended_list) is None
    assert _same(built_then_read, called_directly) is None


def star_tuple(f, a, b):
    return f(*(a, b))


def plain_call(f, a, b):
    return f(a, b)


def const_key_dict(f, a, b):
    return f({"x": a, "y": b})


def built_dict(f, a, b):
    d = {"x": a, "y": b}
    return f(d)


def test_calls_and_dicts_spelled_two_ways() -> None:
    assert _same(star_tuple, plain_call) is None
    assert _same(const_key_dict, built_dict) is None


def escapes_then_read(f, a):
    items = [a]
    f(items)
    return items[0]


def read_before_escape(f, a):
    items = [a]
    f(items)
    return a


def test_a_list_another_call_has_seen_is_read_by_effects() -> None:
    # f may have changed the list: reading it afterwards is not the value put in
    assert _same(escapes_then_read, read_before_escape) is not None


def loop_with_temporaries(f, items):
    setter = f.set
    for key, value in items.items():
        setter(key, value)
    return f


def loop_inline(f, items):
    s = f.set
    for k, v in items.items():
        s(k, v)
    return f


def loop_other_order(f, items):
    s = f.set
    for k, v in items.items():
        s(v, k)
    return f


def loop_carried(f, items):
    total = 0
    for k in items:
        total = f(total, k)
    return total


def test_plain_for_loops_compare_their_bodies() -> None:
    assert _same(loop_with_temporaries, loop_inline) is None
    assert _same(loop_with_temporaries, loop_other_order) is not None


def test_a_value_carried_between_iterations_is_not_shown() -> None:
    assert "another loop iteration" in same_effects(loop_carried.__code__, loop_carried.__code__)


def branches(a):
    if a:
        return 1
    return 2


def loops(a):
    for item in a:
        a = item
    return a


def generator(a):
    yield a


def handler(a):
    try:
        return a()
    except ValueError:
        return None


def branches_inverted(a):
    if not a:
        return 2
    return 1


def branches_other_value(a):
    if a:
        return 1
    return 3


def branch_shared_tail(a, f):
    if a:
        f(1)
    else:
        f(2)
    return f(3)


def branch_copied_tail(a, f):
    if a:
        f(1)
        return f(3)
    f(2)
    return f(3)


def test_branches_compare_path_by_path() -> None:
    assert _same(branches, branches_inverted) is None
    assert _same(branch_shared_tail, branch_copied_tail) is None
    assert _same(branches, branches_other_value) is not None


@pytest.mark.parametrize("function", [loops, generator, handler, loop_carried])
def test_what_is_not_modelled_is_not_shown(function) -> None:
    why = same_effects(function.__code__, function.__code__)
    assert why is not None and why.startswith("not shown")


def test_an_unbound_local_is_not_shown() -> None:
    code = compile("def f(a):\n    del a\n    return a\n", "<t>", "exec").co_consts[0]
    assert "unbound" in same_effects(code, code)


def test_code_that_differs_under_optimize_is_seen() -> None:
    source = "def f(a, g):\n    if __debug__:\n        b = g(a)\n    return g(b)\n"
    plain = compile(source, "<t>", "exec", optimize=0).co_consts[0]
    optimized = compile(source, "<t>", "exec", optimize=1).co_consts[0]
    assert same_effects(plain, plain) is None
    assert same_effects(plain, optimized) is not None


def test_named_constants_are_compared_by_identity() -> None:
    marker, other = object(), object()
    with_marker = _with_constant(marker)
    assert same_effects(with_marker, _with_constant(marker)) is None
    assert same_effects(with_marker, _with_constant(other)) is not None


def _with_constant(value):
    code = compile("def f(g):\n    return g(12345)\n", "<t>", "exec").co_consts[0]
    consts = tuple(value if c == 12345 else c for c in code.co_consts)
    return code.replace(co_consts=consts)


@pytest.mark.skipif(sys.version_info < (3, 11), reason="Dynamo's CALL layout of 3.11+")
def test_dynamo_globals_are_read_early_without_effect() -> None:
    early = compile(
        "def f(g, x):\n    fn = __compiled_fn_1\n    t = g()\n    return fn(x, t)\n", "<t>", "exec"
    ).co_consts[0]
    late = compile("def f(g, x):\n    t = g()\n    return __compiled_fn_1(x, t)\n", "<t>", "exec")
    assert same_effects(early, late.co_consts[0]) is None
    user = compile("def f(g, x):\n    fn = h\n    t = g()\n    return fn(x, t)\n", "<t>", "exec")
    user_late = compile("def f(g, x):\n    t = g()\n    return h(x, t)\n", "<t>", "exec")
    assert same_effects(user.co_consts[0], user_late.co_consts[0]) is not None
