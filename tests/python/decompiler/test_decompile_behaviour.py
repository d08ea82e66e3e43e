"""Per construct: decompile a function, recompile it, and check it is the same program.

For each case of ``decompile_cases`` (one construct each) the function ``f`` is decompiled on its
own with :func:`glassbox.decompiler.decompile_detailed` (``module`` cases: the module's code
object), and the source is executed in a fresh namespace holding the same globals (the prelude's
helpers and the case's own module). Then:

* the recompiled code object equals the original under the verifier's strict comparison
  (:func:`glassbox.verify.normalize.compare`), with no marked fallback regions;
* calling both on every input of the case gives the same returned (or yielded, sent and
  returned) values, the same exceptions (type, args, cause, context) and the same side effects
  in the same order (see ``decompile_harness``);
* under -O: the source decompiled from the -O0 code, compiled at -O1, behaves as the case's own
  source compiled at -O1 (nothing the decompiler writes for -O0 code may vanish under -O; cases
  whose source has code only -O0 runs compare with the -O0 code instead: ``debug_only_code``).

A function's code object does not hold its default values (the function object does, built by
the code that defines it), so the recompiled ``f`` gets the original's ``__defaults__`` and
``__kwdefaults__``; defaults the decompiler must write out are tested on nested definitions,
whose defaults are computed by ``f``'s code.

Cases that the core cannot handle yet are ``xfail(strict=False)`` with the reason measured today.
"""

from __future__ import annotations

import functools
import sys
import types

import pytest
from decompile_cases import BY_NAME, CASES, Case
from decompile_harness import fresh_namespace, module_outcome, outcomes, watchdog

from glassbox.decompiler import Decompiled, decompile_detailed
from glassbox.verify import normalize

MINOR = sys.version_info.minor


def case_params(for_code: bool) -> list:
    params = []
    for case in CASES:
        if not case.runs_on(MINOR):
            continue
        reason = case.reason_code_not_yet(MINOR) if for_code else case.reason_not_yet(MINOR)
        marks = [pytest.mark.xfail(strict=False, reason=reason)] if reason else []
        params.append(pytest.param(case.name, marks=marks, id=case.name))
    return params


def compile_case(source: str, filename: str, optimize: int = 0) -> types.CodeType:
    return compile(source, filename, "exec", dont_inherit=True, optimize=optimize)


class RoundTrip:
    """A case run both ways: the original namespace and the one the decompiled source built."""

    def __init__(self, case: Case) -> None:
        self.case = case
        self.code = compile_case(case.text, f"<case {case.name}>")
        self.original = fresh_namespace()
        exec(self.code, self.original)
        self.rebuilt = fresh_namespace()
        if case.module:
            self.decompiled: Decompiled = decompile_detailed(self.code)
            self.recompiled = compile_case(self.decompiled.source, "<decompiled>")
            return
        function = self.original[case.entry]
        self.decompiled = decompile_detailed(function)
        self.recompiled = compile_case(self.decompiled.source, "<decompiled>")
        exec(self.code, self.rebuilt)  # the same globals: helpers of the case's module
        exec(self.recompiled, self.rebuilt)
        again = self.rebuilt[case.entry]
        again.__defaults__ = function.__defaults__
        again.__kwdefaults__ = function.__kwdefaults__

    def expected_and_got_code(self) -> tuple:
        if self.case.module:
            return self.code, self.recompiled
        return self.original[self.case.entry].__code__, self.rebuilt[self.case.entry].__code__

    def describe(self) -> str:
        return f"--- decompiled source:\n{self.decompiled.source}"


@functools.cache
def round_trip(name: str) -> RoundTrip:
    return RoundTrip(BY_NAME[name])


@pytest.mark.parametrize("name", case_params(for_code=True))
def test_recompiles_to_the_same_code(name: str) -> None:
    trip = round_trip(name)
    assert trip.decompiled.fallbacks == [], trip.describe()
    expected, got = trip.expected_and_got_code()
    comparison = normalize.compare(expected, got)
    assert comparison.equal, f"{comparison.first_difference.describe()}\n{trip.describe()}"


def optimized_outcomes(trip: RoundTrip) -> tuple:
    """What the case's source (at -O1, or -O0 for ``debug_only_code``) and the decompiled source
    (at -O1) do."""
    case = trip.case
    reference = compile_case(case.text, f"<case {case.name}>", 0 if case.debug_only_code else 1)
    decompiled = compile_case(trip.decompiled.source, "<decompiled>", 1)
    if case.module:
        return (
            module_outcome(fresh_namespace(), reference),
            module_outcome(fresh_namespace(), decompiled),
        )
    expected_namespace, got_namespace = fresh_namespace(), fresh_namespace()
    exec(reference, expected_namespace)
    exec(reference, got_namespace)  # the same globals: helpers of the case's module
    exec(decompiled, got_namespace)
    function, again = expected_namespace[case.entry], got_namespace[case.entry]
    again.__defaults__ = function.__defaults__
    again.__kwdefaults__ = function.__kwdefaults__
    return outcomes(expected_namespace, case), outcomes(got_namespace, case)


@pytest.mark.parametrize("name", case_params(for_code=False))
def test_behaves_the_same_under_O(name: str) -> None:
    trip = round_trip(name)
    with watchdog():
        expected, got = optimized_outcomes(trip)
    assert got == expected, trip.describe()


@pytest.mark.parametrize("name", case_params(for_code=False))
def test_behaves_the_same(name: str) -> None:
    trip = round_trip(name)
    case = trip.case
    with watchdog():  # wrongly decompiled code may loop forever
        if case.module:
            expected = module_outcome(fresh_namespace(), trip.code)
            got = module_outcome(fresh_namespace(), trip.recompiled)
            assert got == expected, trip.describe()
            return
        expected = outcomes(trip.original, case)
        got = outcomes(trip.rebuilt, case)
    for args, mine, theirs in zip(case.inputs, expected, got, strict=True):
        assert theirs == mine, f"f{tuple(args)!r}\n{trip.describe()}"


def test_every_construct_has_several_inputs_or_is_a_module() -> None:
    """The suite's own sanity: a function case runs on at least one input, and names are unique."""
    assert len(BY_NAME) == len(CASES)
    for case in CASES:
        assert case.module or case.inputs, case.name
