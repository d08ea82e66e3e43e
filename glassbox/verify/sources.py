"""The files to judge: those named on the command line, or a standard library without its tests."""

from __future__ import annotations

import os
from pathlib import Path

# Folders never entered when walking a standard library: its test suites and installed packages.
EXCLUDED_DIRS = frozenset(
    {"test", "tests", "idle_test", "site-packages", "dist-packages", "__pycache__"}
)


def stdlib_files(stdlib: str) -> list[str]:
    """Every ``.py`` file of the standard library at ``stdlib``, sorted, tests excluded
    (``Lib/test``, ``Lib/*/test(s)``, ``Lib/idlelib/idle_test``, ``site-packages``)."""
    found = []
    for folder, subfolders, names in os.walk(stdlib):
        subfolders[:] = sorted(d for d in subfolders if d not in EXCLUDED_DIRS)
        found.extend(os.path.join(folder, n) for n in names if n.endswith(".py"))
    return sorted(found)


def named_files(paths: list[str]) -> list[str]:
    """The ``.py`` files named: files as given, folders walked (``__pycache__`` skipped).
    Raises ``FileNotFoundError`` for a path that does not exist."""
    found = []
    for path in paths:
        if os.path.isdir(path):
            for folder, subfolders, names in os.walk(path):
                subfolders[:] = sorted(d for d in subfolders if d != "__pycache__")
                found.extend(os.path.join(folder, n) for n in sorted(names) if n.endswith(".py"))
        elif os.path.isfile(path):
            found.append(path)
        else:
            raise FileNotFoundError(path)
    return [str(Path(p).resolve()) for p in found]


def display_name(path: str, root: str | None) -> str:
    """``path`` relative to ``root`` when inside it, else as it is."""
    if root:
        try:
            return str(Path(path).relative_to(root))
        except ValueError:
            pass
    return path
