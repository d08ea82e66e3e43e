"""A one-line progress bar on stderr, with no dependency."""

from __future__ import annotations

import shutil
import sys
import time
from typing import TextIO


class ProgressBar:
    """``[#####-----] 120/700  label``, redrawn in place at most ten times a second; with
    ``lines``, one plain line each 5% of ``total`` instead (for logs and pipes)."""

    def __init__(
        self,
        total: int,
        title: str,
        *,
        stream: TextIO | None = None,
        enabled: bool = True,
        lines: bool = False,
    ):
        self.total = total
        self.title = title
        self.done = 0
        self.stream = stream or sys.stderr
        self.enabled = enabled and not lines
        self.lines = lines
        self._last_draw = 0.0
        self._start = time.monotonic()

    def _line(self, label: str) -> None:
        step = max(1, self.total // 20)
        if self.done % step == 0 or self.done == self.total:
            minutes = (time.monotonic() - self._start) / 60
            self.stream.write(
                f"{self.title}: {self.done}/{self.total} files "
                f"({100 * self.done // max(1, self.total)}%), {minutes:.1f} min, {label}\n"
            )
            self.stream.flush()

    def advance(self, label: str = "") -> None:
        self.done += 1
        if self.lines:
            self._line(label)
            return
        now = time.monotonic()
        if self.enabled and (now - self._last_draw >= 0.1 or self.done == self.total):
            self._last_draw = now
            self._draw(label)

    def _draw(self, label: str) -> None:
        columns = shutil.get_terminal_size((80, 20)).columns
        width = 30
        filled = width * self.done // self.total if self.total else width
        bar = "#" * filled + "-" * (width - filled)
        text = f"{self.title} [{bar}] {self.done}/{self.total} {label}"
        self.stream.write("\r" + text[: columns - 1].ljust(columns - 1))
        self.stream.flush()

    def close(self) -> None:
        if self.enabled:
            self.stream.write("\r" + " " * (shutil.get_terminal_size((80, 20)).columns - 1) + "\r")
            self.stream.flush()
