"""The readable output's last pass: leading assignment expressions become statements, and the
code still does the same operations in the same order."""

from __future__ import annotations

import textwrap

import pytest

import glassbox
from glassbox.readable import readable


def _run(source: str) -> list:
    """The operations ``f`` makes on a recording object, in order, and its result."""
    log: list = []

    class Probe:
        def __init__(self, name):
            self.name = name

        def __getattr__(self, attr):
            log.append(("getattr", self.name, attr))
            return Probe(f"{self.name}.{attr}")

        def __getitem__(self, key):
            log.append(("getitem", self.name, key))
            return Probe(f"{self.name}[{key!r}]")

        def __call__(self, *args):
            log.append(("call", self.name, [getattr(a, "name", a) for a in args]))
            return Probe(f"{self.name}()")

        def __bool__(self):
            log.append(("bool", self.name))
            return True

    namespace: dict = {}
    exec(source, namespace)
    result = namespace["f"](Probe("x"))
    results = result if isinstance(result, tuple) else (result,)
    return log + [("result", [getattr(r, "name", r) for r in results])]


CASES = {
    "chain": """
        def f(x):
            y = (t3 := (t2 := (t1 := x.a)['b'].c)['d']).e
            return (t1, t2, t3, y)
        """,
    "call": """
        def f(x):
            r = (g := x.hook)()
            g(r)
            return r
        """,
    "if test": """
        def f(x):
            if (t := x.flag).value:
                return t
            return None
        """,
    "expression statement": """
        def f(x):
            (t := x.start)()
            return t
        """,
    "comment kept": """
        def f(x):
            y = (t := x.a).b  # a comment
            return y
        """,
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_same_operations_in_the_same_order(name):
    source = textwrap.dedent(CASES[name])
    out = readable(source)
    assert ":=" not in out
    assert _run(out) == _run(source)


def test_the_comment_and_other_lines_stay():
    out = readable(textwrap.dedent(CASES["comment kept"]))
    assert out.strip().splitlines()[1:3] == ["    t = x.a", "    y = t.b  # a comment"]


@pytest.mark.parametrize(
    "line",
    [
        "y = g(x.a, (t := x.b))",  # evaluated after g and x.a
        "y = x.a or (t := x.b)",  # may not run
        "y = [(t := v) for v in x.items]",  # a comprehension's own scope and order
        "y = x.a if x.c else (t := x.b)",
    ],
)
def test_a_walrus_that_does_not_run_first_stays(line):
    source = f"def f(x):\n    t = None\n    {line}\n    return (y, t)\n"
    assert readable(source) == source


def test_an_elif_test_is_not_hoisted():
    source = textwrap.dedent(
        """
        def f(x):
            if x.a:
                return 1
            elif (t := x.b).c:
                return t
            return 0
        """
    )
    assert readable(source) == source


def test_decompile_readable_option():
    def f(x):
        return (t := x.a)["b"], t

    assert "t = x.a" in glassbox.decompile(f, readable=True)
    assert "(t := x.a)" in glassbox.decompile(f)
