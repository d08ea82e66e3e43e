"""Summaries of the verdicts of one interpreter: the figures printed and the ``--json`` data."""

from __future__ import annotations

import statistics
from collections import Counter
from dataclasses import asdict, dataclass, field

from glassbox.verify.pythons import Interpreter
from glassbox.verify.sources import display_name

COMPILED = ("equal", "different")
TIMING_NOTE = (
    "wall time around each glassbox-decompile process (one per file, start-up included) divided "
    "by the file's code objects; the median is over files; hangs are left out"
)


@dataclass
class Summary:
    python: str
    executable: str
    files: int = 0  # judged: every file whose source compiles under this interpreter
    skipped: int = 0  # sources that do not compile under this interpreter
    code_objects: int = 0
    equal_files: int = 0
    equal_code_objects: int = 0
    subtree_equal_code_objects: int = 0  # equal with every code object nested in them
    compiled: int = 0  # outputs that compile
    crashes: int = 0
    hangs: int = 0
    rejected: int = 0  # exit code 2 on a valid .pyc
    errors: int = 0  # the verifier's own failures (a worker died)
    with_fallbacks: int = 0  # exit code 1
    median_us_per_code_object: float | None = None
    startup_us: float | None = None
    median_us_per_code_object_net: float | None = None  # start-up subtracted
    statuses: dict = field(default_factory=dict)

    @property
    def equal_share(self) -> float:
        return self.equal_files / self.files if self.files else 0.0

    @property
    def equal_code_share(self) -> float:
        return self.equal_code_objects / self.code_objects if self.code_objects else 0.0

    @property
    def subtree_equal_code_share(self) -> float:
        return self.subtree_equal_code_objects / self.code_objects if self.code_objects else 0.0

    @property
    def compiled_share(self) -> float:
        return self.compiled / self.files if self.files else 0.0


def summarize(
    interpreter: Interpreter, records: list[dict], startup_seconds: float | None
) -> Summary:
    judged = [r for r in records if r["status"] != "skipped"]
    statuses = Counter(r["status"] for r in records)
    summary = Summary(
        python=interpreter.version,
        executable=interpreter.executable,
        files=len(judged),
        skipped=statuses["skipped"],
        code_objects=sum(r.get("code_objects", 0) for r in judged),
        equal_files=statuses["equal"],
        equal_code_objects=sum(r.get("equal_code_objects", 0) for r in judged),
        subtree_equal_code_objects=sum(r.get("subtree_equal_code_objects", 0) for r in judged),
        compiled=sum(statuses[s] for s in COMPILED),
        crashes=statuses["crash"],
        hangs=statuses["hang"],
        rejected=statuses["rejected"],
        errors=statuses["error"],
        with_fallbacks=sum(1 for r in judged if r.get("exit_code") == 1),
        statuses=dict(sorted(statuses.items())),
    )
    timed = [r for r in judged if r.get("seconds") is not None and r.get("code_objects")]
    if timed:
        summary.median_us_per_code_object = statistics.median(
            r["seconds"] * 1e6 / r["code_objects"] for r in timed
        )
    if startup_seconds is not None:
        summary.startup_us = startup_seconds * 1e6
        if timed:
            summary.median_us_per_code_object_net = statistics.median(
                max(0.0, r["seconds"] - startup_seconds) * 1e6 / r["code_objects"] for r in timed
            )
    return summary


def _share(part: int, whole: int) -> str:
    return f"{100.0 * part / whole:5.1f}% ({part}/{whole})" if whole else "  n/a"


def _us(value: float | None) -> str:
    return f"{value:,.1f} µs" if value is not None else "n/a"


def failure_line(record: dict, root: str | None) -> str:
    """One line per failed file: where the first difference is, or what went wrong."""
    name = display_name(record["file"], root)
    status = record["status"]
    difference = record.get("difference")
    if status == "different" and difference:
        index = f" #{difference['index']}" if difference["index"] is not None else ""
        return (
            f"  {name}: {difference['qualname']}: {difference['where']}{index}: "
            f"expected {difference['expected']}  got {difference['got']}"
        )
    message = (record.get("message") or "").strip().splitlines()
    detail = f": {message[-1] if status == 'error' else message[0]}" if message else ""
    label = {"no_compile": "output does not compile", "rejected": "rejected (exit 2)"}
    return f"  {name}: {label.get(status, status)}{detail}"


def format_summary(
    summary: Summary, records: list[dict], root: str | None, limit: int | None
) -> str:
    lines = [
        f"== Python {summary.python} ({summary.executable})",
        f"  files               {summary.files}"
        + (f"  ({summary.skipped} skipped: source does not compile)" if summary.skipped else ""),
        f"  code objects        {summary.code_objects}",
        f"  strictly equal      {_share(summary.equal_files, summary.files)} of files, "
        f"{_share(summary.equal_code_objects, summary.code_objects)} of code objects",
        f"  subtree-equal       "
        f"{_share(summary.subtree_equal_code_objects, summary.code_objects)} of code objects "
        "(equal with all code nested in them)",
        f"  output compiles     {_share(summary.compiled, summary.files)}",
        f"  with fallbacks      {summary.with_fallbacks} (exit code 1)",
        f"  crashes             {summary.crashes}",
        f"  hangs               {summary.hangs}",
        f"  rejected (exit 2)   {summary.rejected}",
    ]
    if summary.errors:
        lines.append(f"  verifier errors     {summary.errors}")
    lines.append(
        f"  median per code obj {_us(summary.median_us_per_code_object)}"
        f"  (start-up {_us(summary.startup_us)}; net of start-up "
        f"{_us(summary.median_us_per_code_object_net)})"
    )
    failures = [r for r in records if r["status"] not in ("equal", "skipped")]
    if failures:
        shown = failures if limit is None else failures[:limit]
        lines.append(f"  first difference of each failure ({len(failures)}):")
        lines.extend(failure_line(record, root) for record in shown)
        if len(shown) < len(failures):
            lines.append(f"  ... {len(failures) - len(shown)} more (--max-failures, --json)")
    return "\n".join(lines)


def to_json(summary: Summary, records: list[dict]) -> dict:
    return {"summary": asdict(summary), "timing_note": TIMING_NOTE, "files": records}


def format_table(summaries: list[Summary]) -> str:
    """One row per version: the figures side by side (a Markdown table)."""
    rows = [
        "| Python | files | code objects | equal files | equal code objects "
        "| subtree-equal code objects | output compiles | crashes | hangs "
        "| median µs/code object |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for s in summaries:
        median = s.median_us_per_code_object
        rows.append(
            f"| {s.python} | {s.files} | {s.code_objects} | {100 * s.equal_share:.1f}% "
            f"| {100 * s.equal_code_share:.1f}% | {100 * s.subtree_equal_code_share:.1f}% "
            f"| {100 * s.compiled_share:.1f}% | {s.crashes} "
            f"| {s.hangs} | {f'{median:.1f}' if median is not None else 'n/a'} |"
        )
    return "\n".join(rows)


def _percent(part: int, whole: int, digits: int = 2) -> str:
    return f"{100.0 * part / whole:.{digits}f}%" if whole else "n/a"


def format_package_table(rows: list[tuple[str, Summary]]) -> str:
    """One row per package and version (a Markdown table); ``skipped`` files are sources that do
    not compile under that version (newer syntax), not decompiler failures."""
    lines = [
        "| package | Python | files | source does not compile | code objects "
        "| strictly equal code objects | subtree-equal code objects | output compiles "
        "| crashes | hangs | other failures |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for package, s in rows:
        other = s.rejected + s.errors
        lines.append(
            f"| {package} | {s.python} | {s.files} | {s.skipped} | {s.code_objects} "
            f"| {_percent(s.equal_code_objects, s.code_objects)} "
            f"| {_percent(s.subtree_equal_code_objects, s.code_objects)} "
            f"| {_percent(s.compiled, s.files)} | {s.crashes} | {s.hangs} | {other} |"
        )
    return "\n".join(lines)
