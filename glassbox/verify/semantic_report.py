"""The semantic check's figures: per version, the text printed, the table and the JSON record."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

from glassbox.verify.pythons import Interpreter
from glassbox.verify.semantic import ModuleResult


@dataclass
class SemanticSummary:
    python: str
    executable: str
    modules: int = 0  # targets present in this standard library
    shadowed: int = 0  # of those, run on the decompiled copy (the counted ones)
    passing_original: int = 0  # tests of shadowed modules that pass on the originals
    passing_decompiled: int = 0  # of those, tests that pass on the decompiled modules
    fallbacks: int = 0  # marked fallbacks in the decompiled copies
    passing_original_clean: int = 0  # as passing_original, modules without fallbacks only
    passing_decompiled_clean: int = 0  # as passing_decompiled, modules without fallbacks only
    not_decompiled: int = 0  # modules whose copy could not be written (all tests break)
    seconds: float = 0.0  # wall time of the version
    absent: list[str] = field(default_factory=list)
    not_shadowed: dict[str, str] = field(default_factory=dict)

    @property
    def share(self) -> float:
        return self.passing_decompiled / self.passing_original if self.passing_original else 1.0

    @property
    def clean_share(self) -> float:
        """The share over modules without fallbacks: what wrong readings (and artifacts) cost."""
        whole = self.passing_original_clean
        return self.passing_decompiled_clean / whole if whole else 1.0


def summarize(
    interpreter: Interpreter, results: list[ModuleResult], seconds: float
) -> SemanticSummary:
    counted = [r for r in results if r.counted]
    clean = [r for r in counted if not r.fallbacks and not r.decompile_failures]
    return SemanticSummary(
        python=interpreter.version,
        executable=interpreter.executable,
        modules=sum(1 for r in results if not r.absent),
        shadowed=len(counted),
        passing_original=sum(r.passing_original for r in counted),
        passing_decompiled=sum(r.passing_decompiled for r in counted),
        fallbacks=sum(r.fallbacks for r in results),
        passing_original_clean=sum(r.passing_original for r in clean),
        passing_decompiled_clean=sum(r.passing_decompiled for r in clean),
        not_decompiled=sum(1 for r in results if r.decompile_failures),
        seconds=seconds,
        absent=[r.target.module for r in results if r.absent],
        not_shadowed={r.target.module: r.not_shadowed for r in results if r.not_shadowed},
    )


def progress_line(minor: int, done: int, total: int, result: ModuleResult) -> str:
    """One stderr line per finished target."""
    name = f"[3.{minor} {done}/{total}] {result.target.module}"
    if result.absent:
        return f"{name}: absent"
    status = f"{result.passing_decompiled}/{result.passing_original}"
    extra = f", {len(result.breaks)} broke" if result.breaks else ""
    extra += f", not shadowed ({result.not_shadowed})" if result.not_shadowed else ""
    extra += f", {result.fallbacks} fallbacks" if result.fallbacks else ""
    original, decompiled = result.seconds
    return f"{name}: {status} pass{extra} ({original:.1f} s + {decompiled:.1f} s)"


def _module_lines(result: ModuleResult) -> list[str]:
    name = result.target.module
    lines = [f"  {name}: {line}" for line in result.fallback_lines]
    if result.fallbacks > len(result.fallback_lines):
        lines.append(f"  {name}: ... {result.fallbacks - len(result.fallback_lines)} more")
    lines.extend(
        f"  {name}: NOT DECOMPILED {f['file']}: {f['status']}: {f['message']}"
        for f in result.decompile_failures
    )
    if result.original_problem:
        lines.append(
            f"  {name}: the run on the originals did not finish: {result.original_problem}"
        )
    return lines


# Messages of a whole run's failure (every test gets it): printed once per module.
WHOLE_RUN = ("child hung", "child died", "not decompiled")


def _break_lines(result: ModuleResult, limit: int | None) -> list[str]:
    """Every break as ``module  test: message``; a whole run's failure is one line."""
    lines: list[str] = []
    breaks = result.breaks
    if breaks and breaks[0].message.startswith(WHOLE_RUN):
        return [f"  {result.target.module}: all {len(breaks)} tests: {breaks[0].message}"]
    shown = breaks if limit is None else breaks[:limit]
    lines.extend(f"  {b.module}  {b.test}: {b.message}" for b in shown)
    if len(shown) < len(breaks):
        lines.append(f"  {result.target.module}: ... {len(breaks) - len(shown)} more (--json)")
    return lines


def format_version(
    summary: SemanticSummary, results: list[ModuleResult], limit: int | None = None
) -> str:
    s = summary
    lines = [
        f"== Python {s.python} ({s.executable}), {s.seconds:.0f} s",
        f"  modules            {s.modules} ({len(s.absent)} absent: {', '.join(s.absent) or '-'})",
        f"  shadowed           {s.shadowed}",
        f"  tests passing      {s.passing_original} on the originals, {s.passing_decompiled} of "
        f"them on the decompiled modules: {100 * s.share:.2f}%",
        f"  fallbacks          {s.fallbacks} marked; {s.not_decompiled} modules not decompiled",
        f"  without fallbacks  {s.passing_decompiled_clean} of {s.passing_original_clean} tests "
        f"of modules without fallbacks: {100 * s.clean_share:.2f}%",
    ]
    lines.extend(f"  not shadowed: {name}: {why}" for name, why in s.not_shadowed.items())
    for result in results:
        lines.extend(_module_lines(result))
    broken = [r for r in results if r.counted and r.breaks]
    if broken:
        lines.append(f"  broke ({s.passing_original - s.passing_decompiled}):")
        for result in broken:
            lines.extend(_break_lines(result, limit))
    return "\n".join(lines)


def format_table(summaries: list[SemanticSummary]) -> str:
    rows = [
        "| Python | modules | shadowed | tests passing on originals | passing on decompiled "
        "| % | fallbacks | % without fallbacks | seconds |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    rows.extend(
        f"| {s.python} | {s.modules} | {s.shadowed} | {s.passing_original} "
        f"| {s.passing_decompiled} | {100 * s.share:.2f}% | {s.fallbacks} "
        f"| {100 * s.clean_share:.2f}% | {s.seconds:.0f} |"
        for s in summaries
    )
    return "\n".join(rows)


def to_json(summary: SemanticSummary, results: list[ModuleResult]) -> dict:
    modules = []
    for result in results:
        record = asdict(result)
        record["target"] = {"module": result.target.module, "tests": list(result.target.tests)}
        modules.append(record)
    shares = {"share": summary.share, "clean_share": summary.clean_share}
    return {"summary": {**asdict(summary), **shares}, "modules": modules}
