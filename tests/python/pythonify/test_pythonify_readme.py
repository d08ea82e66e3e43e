"""The README's Pythonify example runs as written."""

from __future__ import annotations

import os
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]


def test_readme_example(tmp_path):
    text = (ROOT / "README.md").read_text()
    section = text[text.index("## Pythonify") :]
    blocks = re.findall(r"```python\n(.*?)```", section, re.DOTALL)
    example = next(b for b in blocks if "exec(open(" in b)
    cwd = os.getcwd()
    os.chdir(tmp_path)
    try:
        exec(compile(example, "README.md", "exec"), {"__name__": "readme_example"})
    finally:
        os.chdir(cwd)
    assert (tmp_path / "mlp_pythonified.py").exists()
