"""Every construct under every installed CPython 3.10 to 3.13, through the command-line tool.

For each interpreter found (:func:`glassbox.verify.pythons.find_version`), one worker process
(``decompile_version_worker.py``, run by that interpreter) compiles each case's module to a
``.pyc``, decompiles it with ``glassbox-decompile``, recompiles the output there, compares the
module code objects with the verifier's comparator and runs both modules and ``f`` on the
case's inputs. Each (version, case) is then a test of its own: the code is equal with no marked
fallback, and the behaviour is the same, also with the output compiled at -O1 (against the source
at -O1). Cases the core cannot handle yet on a version are
``xfail(strict=False)`` with their reason (``decompile_cases``).
"""

from __future__ import annotations

import functools
import json
import os
import subprocess

import pytest
from decompile_cases import BY_NAME, CASES

from glassbox.verify import normalize, pythons

MINORS = (10, 11, 12, 13)
WORKER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "decompile_version_worker.py")


@functools.cache
def verdicts(minor: int, decompiler: str) -> dict:
    found = pythons.find_version(minor)
    if found is None:
        pytest.skip(f"no CPython 3.{minor} installed")
    run = subprocess.run(
        [found.executable, "-I", WORKER, os.path.dirname(normalize.__file__), decompiler],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, run.stderr[-2000:]
    return json.loads(run.stdout)


def params(for_code: bool) -> list:
    found = []
    for minor in MINORS:
        for case in CASES:
            if not case.runs_on(minor):
                continue
            if for_code:
                reason = case.reason_code_not_yet(minor, pyc=True)
            else:
                reason = case.reason_not_yet(minor, pyc=True)
            marks = [pytest.mark.xfail(strict=False, reason=reason)] if reason else []
            found.append(pytest.param(minor, case.name, marks=marks, id=f"3.{minor}-{case.name}"))
    return found


def verdict_of(minor: int, name: str, decompiler: str) -> dict:
    verdict = verdicts(minor, decompiler)[name]
    assert "status" not in verdict, verdict.get("message")
    return verdict


def shown(verdict: dict) -> str:
    return f"--- fallbacks:\n{verdict['fallbacks']}\n--- decompiled source:\n{verdict['source']}"


@pytest.mark.parametrize(("minor", "name"), params(for_code=True))
def test_pyc_recompiles_to_the_same_code(minor: int, name: str, decompile_exe: str) -> None:
    verdict = verdict_of(minor, name, decompile_exe)
    assert verdict["code_equal"], f"{verdict['difference']}\n{shown(verdict)}"


@pytest.mark.parametrize(("minor", "name"), params(for_code=False))
def test_pyc_behaves_the_same(minor: int, name: str, decompile_exe: str) -> None:
    verdict = verdict_of(minor, name, decompile_exe)
    assert verdict["behaviour_equal"], shown(verdict)


@pytest.mark.parametrize(("minor", "name"), params(for_code=False))
def test_pyc_behaves_the_same_under_O(minor: int, name: str, decompile_exe: str) -> None:
    verdict = verdict_of(minor, name, decompile_exe)
    assert verdict["behaviour_equal_optimized"], shown(verdict)


def test_cases_cover_every_version() -> None:
    """The 3.12-only constructs exist, and every other case runs on every version."""
    assert not BY_NAME["type_parameters"].runs_on(11) and BY_NAME["type_parameters"].runs_on(12)
    assert all(case.runs_on(13) for case in CASES)
