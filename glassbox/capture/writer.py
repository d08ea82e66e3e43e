"""The dump directory: atomic writes, the files written so far, and what happens on reuse."""

from __future__ import annotations

import itertools
import json
import os
import shutil
from pathlib import Path

INDEX_JSON = "index.json"
MARKER = "glassbox-capture"  # the "tool" field of index.json: says a directory is a capture dump


class DumpDirError(FileExistsError):
    """The dump directory holds files that are not a glassbox dump; nothing was deleted."""


# Temporary names: the process id and a counter make them unique without the random tries of
# ``tempfile.mkstemp`` (and its file object); O_EXCL still refuses a name that exists.
_temporary_numbers = itertools.count()
_CREATE = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0)


def _create_temporary(folder: Path, name: str) -> tuple[int, str]:
    while True:
        tmp = f"{folder}{os.sep}.{name}.{os.getpid()}.{next(_temporary_numbers)}.tmp"
        try:
            return os.open(tmp, _CREATE, 0o600), tmp  # mkstemp's mode, which the dump has had
        except FileExistsError:  # left by an earlier process with this id: take the next number
            continue


def atomic_write(path: Path, text: str, *, parent_exists: bool = False) -> None:
    """Write ``text`` (UTF-8) to ``path`` so that a reader sees the old file or the new one, never
    half: a temporary file in the same folder, renamed over ``path``."""
    if not parent_exists:
        path.parent.mkdir(parents=True, exist_ok=True)
    if os.linesep != "\n":  # as a text-mode file writes it
        text = text.replace("\n", os.linesep)
    data = memoryview(text.encode("utf-8"))
    fd, tmp = _create_temporary(path.parent, path.name)
    try:
        try:
            while data:
                data = data[os.write(fd, data) :]
        finally:
            os.close(fd)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def is_dump(directory: Path) -> bool:
    """Whether ``directory`` holds an index written by a previous capture."""
    try:
        return json.loads((directory / INDEX_JSON).read_text()).get("tool") == MARKER
    except (OSError, ValueError, AttributeError):
        return False


class DumpWriter:
    """Owns one dump directory for one capture: prepares it, writes into it, lists what it wrote.

    Reuse: an absent or empty directory is used as is; a directory from an earlier capture (its
    ``index.json`` says so) is emptied first, so a dump never mixes two runs; any other non-empty
    directory raises :class:`DumpDirError` and is left untouched.
    """

    def __init__(self, root: str | os.PathLike) -> None:
        self.root = Path(root).resolve()
        self.written: list[str] = []  # paths relative to root, in the order first written
        self._folders: set[Path] = set()  # folders this writer made or found

    def prepare(self) -> None:
        if self.root.exists():
            if not self.root.is_dir():
                raise DumpDirError(f"{self.root} exists and is not a directory")
            if any(self.root.iterdir()):
                if not is_dump(self.root):
                    raise DumpDirError(
                        f"{self.root} is not empty and is not a glassbox dump; "
                        "choose an empty or new directory"
                    )
                for child in self.root.iterdir():
                    if child.is_dir() and not child.is_symlink():
                        shutil.rmtree(child)
                    else:
                        child.unlink()
        self.root.mkdir(parents=True, exist_ok=True)

    def path(self, relative: str) -> Path:
        return self.root / relative

    def write(self, relative: str, text: str) -> Path:
        target = self.root / relative
        folder = target.parent
        atomic_write(target, text, parent_exists=folder in self._folders)
        self._folders.add(folder)
        if relative not in self.written:
            self.written.append(relative)
        return target
