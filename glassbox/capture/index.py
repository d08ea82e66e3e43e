"""``index.json`` and ``index.md``: compile ids, files, graph breaks, recompiles, compile time."""

from __future__ import annotations

import json
import sys

from glassbox.capture.records import compile_dir
from glassbox.capture.writer import MARKER

_TIME_KEYS = ("entire_frame_compile_time_s", "dynamo_cumulative_compile_time_us")


def _compile_time_s(metrics: dict) -> float | None:
    if metrics.get("entire_frame_compile_time_s") is not None:
        return float(metrics["entire_frame_compile_time_s"])
    if metrics.get("duration_us") is not None:
        return metrics["duration_us"] / 1e6
    return None


def build_index(capture) -> dict:
    compiles = capture.collector.compiles
    written = set(capture.writer.written)
    functions = []
    seen_ids = set()
    for frame in capture.frames.values():
        entries = []
        for entry in frame.entries:
            seen_ids.add(entry.compile_id)
            records = compiles.get(entry.compile_id)
            metrics = records.metrics if records else {}
            folder = compile_dir(entry.compile_id)
            files = sorted(path for path in written if path.startswith(folder + "/"))
            entries.append(
                {
                    "compile_id": entry.compile_id,
                    "transformed_file": entry.transformed_file,
                    "runs_from_dump": entry.runs_from_dump,
                    "verified": entry.runs_from_dump and entry.unverified is None,
                    "why_original_runs": entry.why_not,
                    "resume_original_file": entry.original_file,
                    "guards_file": entry.guards_file,
                    "resume_functions": entry.resume_names,
                    "graph_break_reasons": records.graph_break_reasons if records else [],
                    "recompile_reason": metrics.get("recompile_reason"),
                    "compile_time_s": _compile_time_s(metrics),
                    "graph_op_count": metrics.get("graph_op_count"),
                    "files": files,
                }
            )
        functions.append(
            {
                "function": frame.name,
                "file": frame.original.co_filename,
                "line": frame.original.co_firstlineno,
                "is_resume_function": frame.is_resume,
                "full_code": frame.full_code_file,
                "compiles": entries,
            }
        )
    other = [
        _without_code(compile_id, records)
        for compile_id, records in compiles.items()
        if compile_id not in seen_ids and records.metrics
    ]
    return {
        "tool": MARKER,
        "format": 1,
        "python": sys.version.split()[0],
        "torch": _torch_version(),
        "functions": functions,
        "compiles_without_code": other,
        "errors": list(capture.errors),
    }


def skip_summary(fail_reason: str | None) -> str:
    """Why Dynamo made no code of a frame, in a line: the titles of the graph breaks in Dynamo's
    fail reason (each is followed by its ``Explanation:``) and the last explanation."""
    if not fail_reason:
        return "Dynamo made no code of it (nothing to compile): it ran as written"
    lines = fail_reason.splitlines()
    titles, explanation = [], ""
    for index, line in enumerate(lines[1:], start=1):
        if line.strip().startswith("Explanation:"):
            titles.append(lines[index - 1].strip())
            explanation = line.strip()[len("Explanation:") :].strip()
    if not titles:
        return _first_line(fail_reason)
    return " -> ".join(titles) + (f": {explanation}" if explanation else "")


def _without_code(compile_id: str, records) -> dict:
    """A compile that gave no transformed code: Dynamo skipped the frame or gave up on it, and
    the frame ran eagerly (as written)."""
    metrics = records.metrics
    return {
        "compile_id": compile_id,
        "function": metrics.get("co_name"),
        "file": metrics.get("co_filename"),
        "line": metrics.get("co_firstlineno"),
        "ran": "eagerly",
        "why": skip_summary(metrics.get("fail_reason")),
        "fail_reason": metrics.get("fail_reason"),
        "graph_break_reasons": records.graph_break_reasons,
        "compile_time_s": _compile_time_s(metrics),
    }


def _torch_version() -> str | None:
    torch = sys.modules.get("torch")
    return getattr(torch, "__version__", None)


def _first_line(text: str | None, limit: int = 160) -> str:
    if not text:
        return ""
    for line in text.splitlines():
        if line.strip() and not line.startswith("Traceback"):
            line = line.strip()
            return line if len(line) <= limit else line[: limit - 1] + "…"
    return ""


def _runs_text(entry: dict) -> str:
    if entry["verified"]:
        return "yes (verified)"
    if entry["runs_from_dump"]:
        return "yes, NOT verified (run_dumped='decompiled')"
    return f"no: {_first_line(entry['why_original_runs'], 80)}"


def _summary(index: dict) -> str:
    entries = [e for f in index["functions"] for e in f["compiles"]]
    running = sum(e["runs_from_dump"] for e in entries)
    eager = len(index["compiles_without_code"])
    return (
        f"{running} of {len(entries)} compiled entries run from this dump (the others run "
        f"Dynamo's bytecode; each says why); {eager} frame(s) Dynamo made no code of."
    )


def render_markdown(index: dict) -> str:
    lines = ["# glassbox capture", "", f"Python {index['python']}, torch {index['torch']}.", ""]
    lines += [_summary(index), ""]
    for function in index["functions"]:
        kind = " (resume function)" if function["is_resume_function"] else ""
        lines += [
            f"## `{function['function']}`{kind}",
            "",
            f"{function['file']}:{function['line']} — all in one file: "
            f"[{function['full_code']}]({function['full_code']})",
            "",
            "| compile id | runs from dump | compile time (s) | graph breaks | recompile reason "
            "| files |",
            "|---|---|---|---|---|---|",
        ]
        for entry in function["compiles"]:
            runs = _runs_text(entry)
            seconds = (
                f"{entry['compile_time_s']:.3f}" if entry["compile_time_s"] is not None else ""
            )
            breaks = "<br>".join(_first_line(r) for r in entry["graph_break_reasons"])
            links = " ".join(f"[{p.split('/')[-1]}]({p})" for p in entry["files"])
            reason = _first_line(entry["recompile_reason"])
            lines.append(
                f"| {entry['compile_id']} | {runs} | {seconds} | {breaks} | {reason} | {links} |"
            )
        lines.append("")
    if index["compiles_without_code"]:
        lines += [
            "## Frames Dynamo made no code of (they ran eagerly)",
            "",
            "Dynamo skipped these frames or gave up on them; nothing of theirs is in this dump. "
            "Full reasons in index.json.",
            "",
        ]
        for other in index["compiles_without_code"]:
            lines.append(
                f"- {other['compile_id']} `{other['function']}` {other['file']}:"
                f"{other['line']}: {other['why']}"
            )
        lines.append("")
    if index["errors"]:
        lines += ["## Errors inside capture (the program ran on)", ""]
        lines += [f"- {error}" for error in index["errors"]]
        lines.append("")
    return "\n".join(lines)


def write_index(capture) -> dict:
    index = build_index(capture)
    capture.writer.write("index.md", render_markdown(index))
    capture.writer.write("index.json", json.dumps(index, indent=2, default=str) + "\n")
    return index
