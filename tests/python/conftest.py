"""Shared fixtures: the installed command-line tool and the interpreters of each version."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

from glassbox.verify.pythons import find_version

ROOT = Path(__file__).resolve().parents[2]


def interpreter_for(minor: int) -> str | None:
    """A working CPython 3.<minor> executable (pyenv shims that do not run are skipped)."""
    found = find_version(minor)
    return found.executable if found else None


@pytest.fixture(scope="session")
def decompile_exe() -> str:
    beside = Path(sys.executable).with_name("glassbox-decompile")
    if beside.exists():
        return str(beside)
    found = shutil.which("glassbox-decompile")
    assert found, "glassbox-decompile is not installed next to this interpreter nor on PATH"
    return found
