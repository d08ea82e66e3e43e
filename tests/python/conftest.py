"""Shared fixtures: the installed command-line tool and the interpreters of each version."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PYENV_VERSIONS = Path.home() / ".pyenv" / "versions"


def interpreter_for(minor: int) -> str | None:
    """A CPython 3.<minor> executable: the running one, one on PATH, or one under pyenv."""
    if sys.version_info[:2] == (3, minor):
        return sys.executable
    found = shutil.which(f"python3.{minor}")
    if found:
        return found
    for candidate in sorted(PYENV_VERSIONS.glob(f"3.{minor}.*"), reverse=True):
        exe = candidate / "bin" / "python3"
        if exe.exists():
            return str(exe)
    return None


@pytest.fixture(scope="session")
def decompile_exe() -> str:
    beside = Path(sys.executable).with_name("glassbox-decompile")
    if beside.exists():
        return str(beside)
    found = shutil.which("glassbox-decompile")
    assert found, "glassbox-decompile is not installed next to this interpreter nor on PATH"
    return found
