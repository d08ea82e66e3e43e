"""glassbox.verify.effects: two code objects do the same thing when their effects match.

Each case is a pair of functions; the check must say "the same" only where running them cannot
tell them apart, and must refuse (with a reason) everything it does not model.
"""

from __future__ import annotations

import dis
import sys
import textwrap
import types

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


def _f(body: str) -> types.CodeType:
    """The code of ``def f`` in ``body``, nested in a function whose locals ``v`` and ``w`` are
    cells (so ``f`` may close over them)."""
    source = "def outer():\n    v = w = None\n" + textwrap.indent(body, "    ")
    outer = compile(source, "<t>", "exec").co_consts[0]
    return next(c for c in outer.co_consts if isinstance(c, types.CodeType) and c.co_name == "f")


def _same_f(one: str, other: str) -> str | None:
    return same_effects(_f(one), _f(other))


CELLS = "def f(g):\n    return g((lambda: v).__closure__[0], (lambda: w).__closure__[0])\n"


def test_a_cell_read_back_from_a_new_closure_is_the_cell() -> None:
    # Dynamo hands cells to a resume function; source spells a cell as (lambda: v).__closure__[0]
    other = "def f(g):\n    c = (lambda: v).__closure__\n    d = (lambda: w).__closure__\n"
    assert _same_f(CELLS, other + "    return g(c[0], d[0])\n") is None
    assert _same_f(
        CELLS, other.replace("(lambda: v)", "(lambda: w, v)") + "    return g(d[0], c[0])\n"
    )


def test_cells_in_another_order_are_seen() -> None:
    swapped = "def f(g):\n    return g((lambda: w).__closure__[0], (lambda: v).__closure__[0])\n"
    assert _same_f(CELLS, swapped) is not None


ESCAPES = "def f(g):\n    w\n    return g(lambda a=1: v)\n"


@pytest.mark.parametrize(
    "other, same",
    [
        ("def f(g):\n    w\n    h = lambda a=1: v\n    return g(h)\n", True),
        ("def f(g):\n    v\n    return g(lambda a=1: w)\n", False),  # another cell
        ("def f(g):\n    w\n    return g(lambda a=1: v + 1)\n", False),  # other code
        ("def f(g):\n    w\n    return g(lambda a=2: v)\n", False),  # another default
        ("def f(g):\n    w\n    return g(lambda a=1, *, b=1: v)\n", False),
    ],
)
def test_new_functions_compare_code_closure_and_defaults(other, same) -> None:
    assert (_same_f(ESCAPES, other) is None) is same


def test_two_new_functions_are_two_objects() -> None:
    once = "def f(g):\n    w\n    h = lambda: v\n    return g(h, h)\n"
    twice = "def f(g):\n    w\n    return g(lambda: v, lambda: v)\n"
    assert _same_f(once, once) is None
    assert _same_f(once, twice) is not None


def test_a_free_cell_read_stays_in_order() -> None:
    early = "def f(g):\n    h = v\n    r = g()\n    return h(r, w)\n"
    late = "def f(g):\n    r = g()\n    return v(r, w)\n"
    assert _same_f(early, early) is None
    assert _same_f(early, late) is not None  # g may set v


def _cells(source: str) -> types.CodeType:
    """``def f`` of ``source`` with ``x`` (an argument) and ``y`` made cells of its own."""
    lines = source.splitlines(keepends=True)
    code = compile(
        "".join([lines[0], "    if 0:\n        lambda: (x, y)\n", *lines[1:]]), "<t>", "exec"
    )
    return next(c for c in code.co_consts if isinstance(c, types.CodeType))


OWN = "def f(x, g):\n    y = x\n    r = g()\n    return r(y)\n"


@pytest.mark.parametrize(
    "other, same",
    [
        ("def f(x, g):\n    r = g()\n    return r(x)\n", True),  # an own cell is a local
        ("def f(x, g):\n    r = g()\n    y = r\n    return r(y)\n", False),
        ("def f(x, g):\n    r = g()\n    x = r\n    return r(x)\n", False),
    ],
)
def test_own_cells_are_locals_until_handed_out(other, same) -> None:
    assert _cells(OWN).co_cellvars == ("x", "y")
    assert (same_effects(_cells(OWN), _cells(other)) is None) is same


HANDED_OUT = "def f(x, g):\n    y = g()\n    return g(lambda: y)\n"


@pytest.mark.parametrize(
    "other, same",
    [
        ("def f(x, g):\n    t = g()\n    y = t\n    return g(lambda: y)\n", True),
        ("def f(x, g):\n    t = g()\n    return g(lambda: y)\n", False),  # y is empty there
        ("def f(x, g):\n    y = x\n    g()\n    return g(lambda: y)\n", False),
    ],
)
def test_a_handed_out_cell_holds_what_the_frame_put_in(other, same) -> None:
    assert (same_effects(_cells(HANDED_OUT), _cells(other)) is None) is same


def test_a_cell_read_after_it_is_handed_out_is_an_effect() -> None:
    read_late = "def f(x, g):\n    h = lambda: x\n    r = g(h)\n    return r(x)\n"
    read_early = "def f(x, g):\n    a = x\n    h = lambda: x\n    r = g(h)\n    return r(a)\n"
    assert same_effects(_cells(read_late), _cells(read_late)) is None
    assert same_effects(_cells(read_late), _cells(read_early)) is not None  # g(h) may set x


@pytest.mark.parametrize(
    "source",
    [
        "def f(x, g):\n    for i in g:\n        y = i\n    return g(y)\n",
        "def f(x, g):\n    y = x\n    for i in g:\n        g(lambda: y)\n    return g\n",
        "def f(x, g):\n    del y\n    return g\n",
    ],
)
def test_own_cells_a_loop_sets_hands_out_or_empty_are_not_shown(source) -> None:
    why = same_effects(_cells(source), _cells(source))
    assert why is not None and why.startswith("not shown")


HOOKS = "__import_torch_dot__dynamo_dot_utils"


def _dynamo(body: str) -> types.CodeType:
    source = "def f(x, g):\n" + textwrap.indent(body.replace("U.", HOOKS + "."), "    ")
    return compile(source, "<t>", "exec").co_consts[0]


HOOKED = "cm = U.record_pregraph_bytecode_enter()\na = x.w\nU.record_pregraph_bytecode_exit(cm)\n"


@pytest.mark.parametrize(
    "other, same",
    [
        (
            "a = x.w\ncm = U.record_pregraph_bytecode_enter()\n"
            "U.record_pregraph_bytecode_exit(cm)\n",
            True,
        ),
        ("a = x.w\nU.record_pregraph_bytecode_enter()\n", False),  # no exit
        (
            "a = x.w\nU.record_pregraph_bytecode_enter()\nU.record_pregraph_bytecode_exit(a)\n",
            False,
        ),
    ],
)
def test_dynamo_profiler_hooks_are_ordered_only_among_themselves(other, same) -> None:
    tail = "return __compiled_fn_1(a)\n"
    assert (same_effects(_dynamo(HOOKED + tail), _dynamo(other + tail)) is None) is same


def test_other_dynamo_utilities_stay_in_order() -> None:
    one = "cm = U.other()\na = x.w\nreturn cm(a)\n"
    other = "a = x.w\ncm = U.other()\nreturn cm(a)\n"
    assert same_effects(_dynamo(one), _dynamo(other)) is not None


GRAPH = "out = __compiled_fn_1(x)\nh = G\nreturn h(out[0])\n"  # G: a global


@pytest.mark.parametrize(
    "other, same",
    [
        ("out = __compiled_fn_1(x)\na = out[0]\nreturn G(a)\n", True),
        ("out = __compiled_fn_1(x)\na = out[1]\nreturn G(a)\n", False),
        ("out = __compiled_fn_1(x)\na = out[0]\nout[5]\nreturn G(a)\n", False),  # may raise
    ],
)
def test_graph_outputs_are_read_without_effect(other, same) -> None:
    assert (same_effects(_dynamo(GRAPH), _dynamo(other)) is None) is same


def test_graph_outputs_read_after_other_code_saw_them_are_effects() -> None:
    late = "out = __compiled_fn_1(x)\nG(out)\nreturn G(out[0])\n"
    early = "out = __compiled_fn_1(x)\na = out[0]\nG(out)\nreturn G(a)\n"
    assert same_effects(_dynamo(late), _dynamo(late)) is None
    assert same_effects(_dynamo(late), _dynamo(early)) is not None  # G may change out


def test_items_of_another_calls_result_are_read_in_order() -> None:
    one = "out = x(x)\nh = G\nreturn h(out[0])\n"
    other = "out = x(x)\na = out[0]\nreturn G(a)\n"
    assert same_effects(_dynamo(one), _dynamo(other)) is not None


def test_items_of_a_tuple_are_bookkeeping() -> None:
    assert same_effects(_dynamo("t = (x, g)\nreturn g(t[1])\n"), _dynamo("return g(g)\n")) is None
    assert same_effects(_dynamo("t = (x, g)\nreturn g(t[0])\n"), _dynamo("return g(g)\n"))
    assert same_effects(_dynamo("t = (x, g)\nreturn g(t[2])\n"), _dynamo("return g(g)\n"))


def test_an_empty_update_adds_nothing() -> None:
    assert same_effects(_dynamo("return g({*(), *x})\n"), _dynamo("return g({*x})\n")) is None
    assert same_effects(_dynamo("return g({*(1,), *x})\n"), _dynamo("return g({*x})\n"))


def _uncopied(function) -> types.CodeType:
    """``function``'s code with the copy of its ``**`` dict removed (``BUILD_MAP 0`` and
    ``DICT_MERGE 1`` made ``NOP``): the dict itself goes to CALL_FUNCTION_EX, as Dynamo writes
    it."""
    code = bytearray(function.__code__.co_code)
    nop = dis.opmap["NOP"]
    for opname, arg in (("BUILD_MAP", 0), ("DICT_MERGE", 1)):
        at = next(
            i.offset for i in dis.get_instructions(function) if i.opname == opname and i.arg == arg
        )
        code[at : at + 2] = bytes([nop, 0])
    return function.__code__.replace(co_code=bytes(code))


def kwargs_built(f, t, a, b):
    d = {"x": a, "y": b}
    return f(*t, **d)


def kwargs_inline(f, t, a, b):
    return f(*t, **{"x": a, "y": b})


def kwargs_other_order(f, t, a, b):
    d = {"y": b, "x": a}
    return f(*t, **d)


def kwargs_used_again(f, t, a, b):
    d = {"x": a, "y": b}
    r = f(*t, **d)
    return r, d


def kwargs_computed_key(f, t, a, b):
    d = {a: a, "y": b}
    return f(*t, **d)


def kwargs_argument(f, t, a, b):
    return f(*t, **b)


def test_a_copied_dict_only_the_frame_holds_is_the_dict() -> None:
    # source copies the dict it passes with **; Dynamo passes the dict it built
    assert same_effects(_uncopied(kwargs_built), kwargs_built.__code__) is None
    assert same_effects(_uncopied(kwargs_built), kwargs_inline.__code__) is None
    assert same_effects(_uncopied(kwargs_built), kwargs_other_order.__code__) is not None


@pytest.mark.parametrize("function", [kwargs_used_again, kwargs_computed_key, kwargs_argument])
def test_a_dict_the_callee_may_keep_or_others_hold_is_not_its_copy(function) -> None:
    # the callee gets the frame's dict itself, not a copy: it may change it (used again after),
    # hashing a computed key may run code, an argument's dict is held by the caller too
    assert same_effects(_uncopied(function), function.__code__) is not None
    assert same_effects(function.__code__, function.__code__) is None


def test_a_dict_read_after_a_call_saw_it_is_an_effect() -> None:
    seen = "d = {'x': x}\ng(d)\nreturn g(**d)\n"
    copied_first = "d = {'x': x}\ne = {**d}\ng(d)\nreturn g(**e)\n"
    assert same_effects(_dynamo(seen), _dynamo(seen)) is None
    assert same_effects(_dynamo(seen), _dynamo(copied_first)) is not None  # g may change d
