"""The files to judge: those named on the command line, or a standard library without its tests."""

from __future__ import annotations

import glob
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


def _expand(pattern: str) -> list[str]:
    """The paths a pattern names (``*``, ``?``, ``[...]``, ``**``); a plain path as it is."""
    if not glob.has_magic(pattern):
        return [pattern]
    found = sorted(glob.glob(pattern, recursive=True))
    if not found:
        raise FileNotFoundError(pattern)
    return found


def named_groups(specs: list[str]) -> list[tuple[str, list[str]]]:
    """Packages to report apart: each spec is ``PATH`` or ``LABEL=PATTERN`` (a glob, expanded
    here); the label of a plain path is that path relative to the folder holding all of them
    (``torch/fx`` for ``.../site-packages/torch/fx``). Specs with the same label are one package.
    Raises ``FileNotFoundError`` for a path or pattern that names nothing."""
    labelled = []
    for spec in specs:
        label, _, pattern = spec.partition("=") if "=" in spec else ("", "", spec)
        labelled.append((label, _expand(pattern)))
    plain = [paths[0] for label, paths in labelled if not label]
    root = os.path.commonpath([os.path.dirname(os.path.abspath(p)) for p in plain]) if plain else ""
    groups: dict[str, dict[str, None]] = {}  # label -> its files, in order, once each
    for label, paths in labelled:
        name = label or os.path.relpath(os.path.abspath(paths[0]), root)
        groups.setdefault(name, {}).update(dict.fromkeys(named_files(paths)))
    return [(name, list(files)) for name, files in groups.items()]


def display_name(path: str, root: str | None) -> str:
    """``path`` relative to ``root`` when inside it, else as it is."""
    if root:
        try:
            return str(Path(path).relative_to(root))
        except ValueError:
            pass
    return path
