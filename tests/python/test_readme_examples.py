"""The README's Python examples for the bytecode layer and the native backend run as written.

Capture and pythonify run their own README examples (tests/python/capture, tests/python/pythonify).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[2] / "README.md"
SECTIONS = ("Disassembling", "Decompiling", "Bad input", "Native backend")


def python_blocks(section: str) -> list[str]:
    """The ```python blocks under the heading named `section`, up to the next heading."""
    text = README.read_text()
    match = re.search(rf"^#+ {re.escape(section)}\n(.*?)(?=^#+ |\Z)", text, re.S | re.M)
    assert match, f"README has no section {section!r}"
    return re.findall(r"```python\n(.*?)```", match.group(1), re.S)


def test_bytecode_examples_run_in_order(tmp_path, monkeypatch, capsys) -> None:
    monkeypatch.chdir(tmp_path)
    namespace: dict[str, object] = {"__name__": "readme"}
    for section in SECTIONS[:3]:
        blocks = python_blocks(section)
        assert blocks, section
        for block in blocks:
            exec(compile(block, f"README:{section}", "exec"), namespace)
    printed = capsys.readouterr().out
    assert "LIST_APPEND" in printed or "BUILD_LIST" in printed  # glassbox.dis(f)
    assert "def f(x, scale=2.0):" in printed  # glassbox.decompile(f)
    assert "sep = os.sep * 2" in printed  # the module example
    assert re.search(r"^3 truncated .pyc header", printed, re.M)  # bad input: offset, reason


def test_native_backend_example_runs(tmp_path, monkeypatch) -> None:
    pytest.importorskip("torch")
    monkeypatch.chdir(tmp_path)
    namespace: dict[str, object] = {"__name__": "readme"}
    for block in python_blocks("Native backend"):
        exec(compile(block, "README:Native backend", "exec"), namespace)
    import torch

    with torch.no_grad():
        expected = namespace["model"](namespace["x"])
    torch.testing.assert_close(namespace["outputs"], expected, rtol=1e-4, atol=1e-5)
    assert (tmp_path / "model.gbx").exists()
