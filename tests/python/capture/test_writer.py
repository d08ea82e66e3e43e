"""Atomic writes of the dump files: whole files, mkstemp's mode, no temporary left behind."""

from __future__ import annotations

import itertools
import os
import stat

import pytest

from glassbox.capture import writer


def test_writes_and_replaces_whole_files(tmp_path):
    target = tmp_path / "sub" / "f.py"
    writer.atomic_write(target, "first\n")
    writer.atomic_write(target, "é second\n" * 10_000, parent_exists=True)
    assert target.read_text(encoding="utf-8") == "é second\n" * 10_000
    assert stat.S_IMODE(target.stat().st_mode) == 0o600  # as tempfile.mkstemp made them
    assert sorted(p.name for p in target.parent.iterdir()) == ["f.py"]


def test_a_left_temporary_name_is_skipped(tmp_path, monkeypatch):
    monkeypatch.setattr(writer, "_temporary_numbers", itertools.count(5))
    stale = tmp_path / f".f.py.{os.getpid()}.5.tmp"
    stale.write_text("an earlier process's")
    writer.atomic_write(tmp_path / "f.py", "new", parent_exists=True)
    assert (tmp_path / "f.py").read_text() == "new"
    assert stale.read_text() == "an earlier process's"


def test_a_failed_write_leaves_no_temporary(tmp_path):
    (tmp_path / "f.py").mkdir()  # os.replace cannot put a file over a directory
    with pytest.raises(OSError):
        writer.atomic_write(tmp_path / "f.py", "text", parent_exists=True)
    assert [p.name for p in tmp_path.iterdir()] == ["f.py"]
