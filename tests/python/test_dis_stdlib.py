"""The disassembler matches each installed version's own `dis`, over its whole standard library."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from glassbox.verify.pythons import find_version

COMPARE = Path(__file__).resolve().parents[2] / "scripts" / "compare_dis.py"


@pytest.mark.parametrize("minor", [10, 11, 12, 13])
def test_listing_matches_dis_over_whole_stdlib(minor: int, decompile_exe: str) -> None:
    found = find_version(minor)
    if found is None:
        pytest.skip(f"CPython 3.{minor} is not installed here")
    result = subprocess.run(
        [sys.executable, str(COMPARE), found.executable, "--tool", decompile_exe],
        capture_output=True,
        text=True,
        timeout=1800,
    )
    summary = re.search(r"matched (\d+) / (\d+)", result.stdout)
    assert summary, result.stdout[-3000:] + result.stderr[-3000:]
    matched, total = int(summary.group(1)), int(summary.group(2))
    assert total > 500, f"only {total} files compared"
    assert result.returncode == 0 and matched == total, result.stdout[-5000:]
