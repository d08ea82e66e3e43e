"""The semantic check: CPython's tests of a few modules on their decompiled copies.

Fake decompilers (original source back, a wrong constant, garbage, a dying import) prove the
counting; the real decompiler runs a small slice on 3.11 and 3.13. The whole list on every version
is ``make test-semantic``.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest

from glassbox.verify import pythons, semantic, semantic_report
from glassbox.verify.semantic import ChildRun, ModuleResult
from glassbox.verify.semantic_targets import DEFAULT_TARGETS, Target

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "semantic_check.py"
_spec = importlib.util.spec_from_file_location("semantic_check", SCRIPT)
assert _spec and _spec.loader
semantic_check = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(semantic_check)

# -- counting, from made-up runs -----------------------------------------------------------------


def run_of(*outcomes: tuple[str, str], done: bool = True, code: int | None = 0) -> ChildRun:
    records: list[dict] = [{"test": t, "outcome": o, "message": f"{o}!"} for t, o in outcomes]
    return ChildRun(records + ([{"done": 1.0}] if done else []), code, 1.0, "Boom: last words")


def compared(original: ChildRun, decompiled: ChildRun | None, failures=()) -> ModuleResult:
    result = ModuleResult(Target.parse("m"), decompile_failures=list(failures))
    semantic.compare(result, original, decompiled)
    return result


def test_skipped_and_failing_originals_are_left_out() -> None:
    original = run_of(("a", "pass"), ("b", "skip"), ("c", "fail"), ("d", "xfail"))
    result = compared(original, run_of(("a", "pass"), ("b", "fail"), ("d", "xfail")))
    assert (result.passing_original, result.passing_decompiled, result.breaks) == (2, 2, [])


def test_failures_and_missing_tests_break() -> None:
    original = run_of(("a", "pass"), ("b", "pass"), ("c", "pass"))
    result = compared(original, run_of(("a", "error"), ("c", "xpass")))
    assert [(b.test, b.message) for b in result.breaks] == [
        ("a", "error!"),
        ("b", "not run"),
        ("c", "xpass!"),
    ]


def test_a_dead_or_hung_child_breaks_every_test() -> None:
    original = run_of(("a", "pass"), ("b", "pass"))
    died = compared(original, run_of(("a", "pass"), done=False, code=1))
    assert [b.message for b in died.breaks] == [
        "child died (exit 1) before any test: Boom: last words"
    ] * 2
    hung = compared(original, run_of(done=False, code=None))
    assert len(hung.breaks) == 2 and hung.breaks[0].message.startswith("child hung")


def test_a_module_not_decompiled_breaks_every_test() -> None:
    failure = {"file": "m.py", "status": "no_compile", "message": "SyntaxError"}
    result = compared(run_of(("a", "pass")), None, [failure])
    assert result.breaks[0].message == "not decompiled: m.py: no_compile: SyntaxError"


def test_targets_parse() -> None:
    assert Target.parse("html=test_html+test_htmlparser").tests == (
        "test.test_html",
        "test.test_htmlparser",
    )
    assert semantic_check.targets(["json,_pydecimal=test_decimal"]) == [
        Target("json", ("test.test_json",)),
        Target("_pydecimal", ("test.test_decimal",)),
    ]
    assert len(DEFAULT_TARGETS) >= 40


# -- end to end on colorsys, with fake decompilers -------------------------------------------------


def fake(tmp_path: Path, body: str) -> str:
    """An executable standing in for glassbox-decompile: ``original()`` is the module's source."""
    path = tmp_path / "fake-decompile"
    path.write_text(
        f"#!{sys.executable}\nimport marshal, sys\n"
        "def original():\n"
        "    code = marshal.loads(open(sys.argv[-1], 'rb').read()[16:])\n"
        "    return open(code.co_filename, encoding='utf-8').read()\n" + body
    )
    path.chmod(0o755)
    return str(path)


FAKES = {
    # (body, passing on the decompiled copy, message of the first break, fallbacks)
    "perfect": ("sys.stdout.write(original())\n", 7, None, 0),
    "wrong": (
        "sys.stdout.write(original().replace('ONE_SIXTH = 1.0/6.0', 'ONE_SIXTH = 0.2'))\n",
        None,
        "AssertionError",
        0,
    ),
    "garbage": ("print('this is ( not python')\n", 0, "not decompiled: colorsys.py: no_compile", 0),
    "dies": ("print('import os; os._exit(3)')\n", 0, "child died (exit 3)", 0),
    "fallback": (
        "sys.stdout.write(original() + '\\ndef hls_to_rgb(*a):\\n    raise NotImplementedError')\n"
        "print('x.pyc: line 1 in hls_to_rgb: could not reconstruct: test', file=sys.stderr)\n"
        "sys.exit(1)\n",
        None,
        "NotImplementedError",
        1,
    ),
}


@pytest.mark.parametrize("kind", sorted(FAKES))
def test_fake_decompilers_on_colorsys(kind: str, tmp_path: Path) -> None:
    body, passing, message, fallbacks = FAKES[kind]
    interpreter = pythons.current()
    [result] = semantic.check_version(
        interpreter, [Target.parse("colorsys")], fake(tmp_path, body), jobs=1, timeout=60
    )
    assert result.counted and result.passing_original == 7
    assert result.fallbacks == fallbacks
    if passing is not None:
        assert result.passing_decompiled == passing
    if message is None:
        assert result.breaks == []
    else:
        assert result.breaks and result.breaks[0].message.startswith(message), result.breaks


def test_a_module_imported_at_start_up_is_not_shadowed(tmp_path: Path) -> None:
    """``abc`` is imported before any script runs: reported, and left out of the counts."""
    interpreter = pythons.current()
    results = semantic.check_version(
        interpreter, [Target.parse("abc")], fake(tmp_path, FAKES["perfect"][0]), jobs=1, timeout=60
    )
    summary = semantic_report.summarize(interpreter, results, 0.0)
    assert results[0].not_shadowed and summary.shadowed == 0 and summary.passing_original == 0
    assert "not shadowed: abc" in semantic_report.format_version(summary, results)


def test_command_line_json_and_threshold(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "semantic.json"
    decompiler = fake(tmp_path, FAKES["wrong"][0])
    argv = ["--modules", "colorsys", "--decompiler", decompiler, "--json", str(out), "--quiet"]
    assert semantic_check.main([*argv, "--min-percent", "99.5"]) == 1
    data = json.loads(out.read_text())
    [version] = data["versions"]
    assert version["summary"]["passing_original"] == 7
    assert "colorsys  test.test_colorsys" in capsys.readouterr().out


# -- the real decompiler: a slice on the running interpreter and one other version ----------------

SLICE = ("argparse", "configparser", "fractions", "json", "shlex", "textwrap")
SLICE_VERSIONS = (11, 13)
# (minor, module) -> why its tests break on the decompiled copy (strict: remove when fixed).
KNOWN_BREAKS: dict[tuple[int, str], str] = {}
_RESULTS: dict[int, dict[str, ModuleResult]] = {}


def slice_results(minor: int, decompiler: str) -> dict[str, ModuleResult]:
    if minor not in _RESULTS:
        found = pythons.find_version(minor)
        if found is None:
            pytest.skip(f"CPython 3.{minor} is not installed here")
        targets = [Target.parse(name) for name in SLICE]
        results = semantic.check_version(found, targets, decompiler, jobs=2, timeout=300)
        _RESULTS[minor] = {r.target.module: r for r in results}
    return _RESULTS[minor]


def _slice_cases() -> list:
    cases = []
    for minor in SLICE_VERSIONS:
        for module in SLICE:
            reason = KNOWN_BREAKS.get((minor, module))
            marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
            cases.append(pytest.param(minor, module, marks=marks, id=f"3.{minor}-{module}"))
    return cases


@pytest.mark.parametrize(("minor", "module"), _slice_cases())
def test_tests_passing_on_originals_pass_on_decompiled(
    minor: int, module: str, decompile_exe: str
) -> None:
    result = slice_results(minor, decompile_exe)[module]
    assert result.counted, result.not_shadowed or "absent"
    assert result.passing_original > 0 and not result.original_problem
    broke = "\n".join(f"{b.test}: {b.message}" for b in result.breaks)
    assert result.passing_decompiled == result.passing_original, broke
