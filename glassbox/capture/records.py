"""What capture learnt about each compiled frame, in the shape the index and full_code use."""

from __future__ import annotations

import types
from dataclasses import dataclass, field

RESUME_PREFIX = "torch_dynamo_resume_in_"


def compile_dir(compile_id: str) -> str:
    """``"3/1"`` -> ``"compile_3_1"``: the folder of one compile id."""
    return "compile_" + compile_id.replace("/", "_")


def safe_name(name: str) -> str:
    return "".join(c if c.isalnum() or c == "_" else "_" for c in name) or "code"


@dataclass
class EntryRecord:
    """One successful compile of a frame: one cache entry."""

    compile_id: str
    transformed: types.CodeType
    transformed_file: str  # relative to the dump root
    runs_from_dump: bool
    why_not: str | None
    original_file: str | None = None  # resume functions: Dynamo's generated original, decompiled
    guards_file: str | None = None
    resume_names: list[str] = field(default_factory=list)
    conditions: list | None = None  # the guard's readable conditions, once rendered
    guard_body: str | None = None  # their guard function's body (guards.guard_body)
    source: str = ""  # the text of transformed_file, kept for the full_code file
    unverified: str | None = None  # run_dumped="decompiled": how the running code differs


@dataclass
class FrameRecord:
    """A code object Dynamo compiled (a user function or a resume function) and its entries."""

    original: types.CodeType
    full_code_file: str
    entries: list[EntryRecord] = field(default_factory=list)

    @property
    def name(self) -> str:
        return self.original.co_name

    @property
    def is_resume(self) -> bool:
        return self.original.co_name.startswith(RESUME_PREFIX)

    @property
    def where(self) -> str:
        return f"{self.original.co_filename}:{self.original.co_firstlineno}"
