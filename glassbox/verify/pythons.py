"""Finding the interpreters that judge: ``--python 3.12``, ``--python /path/to/python``, ``all``."""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

SUPPORTED_MINORS = (10, 11, 12, 13)
PYENV_VERSIONS = Path.home() / ".pyenv" / "versions"
_PROBE = (
    "import json, sys, sysconfig; print(json.dumps({'version': sys.version.split()[0], "
    "'minor': sys.version_info[1], 'major': sys.version_info[0], "
    "'stdlib': sysconfig.get_paths()['stdlib']}))"
)


class UsageError(Exception):
    """A command-line problem: the verifier prints it and exits with code 2."""


@dataclass(frozen=True)
class Interpreter:
    executable: str
    version: str  # e.g. "3.12.1"
    minor: int
    stdlib: str  # the folder of its standard library

    @property
    def label(self) -> str:
        return f"Python {self.version}"


def probe(executable: str) -> Interpreter | None:
    """Ask ``executable`` what it is; ``None`` if it does not run (e.g. a pyenv shim that is not
    active) or is not CPython 3."""
    try:
        result = subprocess.run(
            [executable, "-I", "-c", _PROBE], capture_output=True, text=True, timeout=30
        )
        facts = json.loads(result.stdout) if result.returncode == 0 else None
    except (OSError, subprocess.SubprocessError, ValueError):
        return None
    if not facts or facts["major"] != 3:
        return None
    return Interpreter(executable, facts["version"], facts["minor"], facts["stdlib"])


def _candidates(minor: int) -> list[str]:
    found = []
    if sys.version_info[:2] == (3, minor):
        found.append(sys.executable)
    on_path = shutil.which(f"python3.{minor}")
    if on_path:
        found.append(on_path)
    installs = sorted(
        PYENV_VERSIONS.glob(f"3.{minor}.*"),
        key=lambda p: [int(n) if n.isdigit() else 0 for n in re.split(r"[.]", p.name)],
        reverse=True,
    )
    found.extend(str(p / "bin" / f"python3.{minor}") for p in installs)
    return found


def find_version(minor: int) -> Interpreter | None:
    """A working CPython 3.<minor>: this one, one on PATH, or the newest under ~/.pyenv/versions."""
    for candidate in _candidates(minor):
        interpreter = probe(candidate)
        if interpreter is not None and interpreter.minor == minor:
            return interpreter
    return None


def resolve(spec: str) -> list[Interpreter]:
    """The interpreters a ``--python`` value names; raises :class:`UsageError` if none fits."""
    if spec == "all":
        found = [i for i in (find_version(minor) for minor in SUPPORTED_MINORS) if i]
        if not found:
            raise UsageError("no CPython 3.10 to 3.13 found")
        return found
    match = re.fullmatch(r"3\.(\d+)", spec)
    if match:
        minor = int(match.group(1))
        if minor not in SUPPORTED_MINORS:
            raise UsageError(f"Python {spec} is not supported (3.10 to 3.13 are)")
        interpreter = find_version(minor)
        if interpreter is None:
            raise UsageError(f"no working python{spec} on PATH or under {PYENV_VERSIONS}")
        return [interpreter]
    if not (os.path.isfile(spec) and os.access(spec, os.X_OK)):
        raise UsageError(f"--python {spec}: not a version like 3.12 nor an executable")
    interpreter = probe(spec)
    if interpreter is None:
        raise UsageError(f"--python {spec}: does not run as a CPython 3 interpreter")
    if interpreter.minor not in SUPPORTED_MINORS:
        raise UsageError(f"{spec} is Python {interpreter.version}; 3.10 to 3.13 are supported")
    return [interpreter]


def chosen(specs: list[str] | None) -> list[Interpreter]:
    """The interpreters repeated ``--python`` values name, each once (none given: this one)."""
    if not specs:
        return [current()]
    found: list[Interpreter] = []
    for spec in specs:
        found.extend(i for i in resolve(spec) if i not in found)
    return found


def current() -> Interpreter:
    interpreter = probe(sys.executable)
    if interpreter is None or interpreter.minor not in SUPPORTED_MINORS:
        raise UsageError(f"this interpreter ({sys.version.split()[0]}) cannot judge; use --python")
    return interpreter


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The ``--python`` and ``--decompiler`` options of the checking scripts."""
    parser.add_argument(
        "--python",
        action="append",
        metavar="PATH_OR_VERSION",
        help="interpreter: an executable, a version such as 3.12, or 'all'; repeatable "
        "(default: this one)",
    )
    parser.add_argument("--decompiler", metavar="PATH", help="glassbox-decompile executable")
