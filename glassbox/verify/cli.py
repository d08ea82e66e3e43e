"""``python -m glassbox.verify``: decompile, recompile and compare, file by file, per version."""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
from dataclasses import asdict
from pathlib import Path

from glassbox.verify import pythons, report, runner, sources
from glassbox.verify.progress import ProgressBar

DEFAULT_TIMEOUT = 10.0


def default_decompiler() -> str | None:
    """glassbox-decompile next to this interpreter (the venv's bin/), else on PATH."""
    beside = Path(sys.executable).with_name("glassbox-decompile")
    return str(beside) if beside.exists() else shutil.which("glassbox-decompile")


def _positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, not {value}")
    return value


def _seconds(text: str) -> float:
    value = float(text)
    if not value > 0:
        raise argparse.ArgumentTypeError(f"must be positive, not {text}")
    return value


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m glassbox.verify",
        description="Decompile each file's .pyc with glassbox-decompile, recompile the output with "
        "the same interpreter and compare every code object strictly (line numbers, NOPs and "
        "offsets aside). Exit code 0 once it has run, whatever the figures; 2 on usage errors.",
    )
    parser.add_argument(
        "files",
        nargs="*",
        help=".py files or folders (default: the judging interpreter's "
        "standard library, without Lib/test, Lib/*/tests, idle_test and site-packages); with "
        "--by-package also LABEL=PATTERN (a glob: 'hf=SITE/transformers/models/*/modeling*.py')",
    )
    parser.add_argument(
        "--by-package",
        action="store_true",
        help="report each named path (or LABEL) as one package: a table of package x version at "
        "the end",
    )
    parser.add_argument(
        "--python",
        action="append",
        metavar="PATH_OR_VERSION",
        help="interpreter to judge with: an executable, a version such as 3.12 (found on PATH or "
        "under ~/.pyenv/versions), or 'all' (every 3.10-3.13 found); repeatable; default: this one",
    )
    parser.add_argument(
        "--decompiler",
        metavar="PATH",
        help="glassbox-decompile executable (default: next to this Python, else PATH)",
    )
    parser.add_argument(
        "--jobs",
        "-j",
        type=_positive,
        default=runner.default_jobs(),
        help="files judged in parallel (default: the CPUs available)",
    )
    parser.add_argument("--limit", type=_positive, help="judge only the first N files (sorted)")
    parser.add_argument(
        "--timeout",
        type=_seconds,
        default=DEFAULT_TIMEOUT,
        help=f"seconds per file before the decompiler counts as hung (default {DEFAULT_TIMEOUT:g})",
    )
    parser.add_argument(
        "--optimize",
        "-O",
        type=int,
        choices=(0, 1, 2),
        default=0,
        help="compile the decompiled .pyc at this level, as python -O (1) or -OO (2) writes "
        ".opt-1/.opt-2 files (default 0)",
    )
    parser.add_argument(
        "--recompile-optimize",
        type=int,
        choices=(0, 1, 2),
        metavar="{0,1,2}",
        help="recompile the output at this level and compare it with the source compiled at this "
        "level (default: --optimize). '--optimize 0 --recompile-optimize 1' is the cross-level "
        "check: nothing the decompiler writes for -O0 code may disappear under -O",
    )
    parser.add_argument("--json", metavar="FILE", help="write every verdict and the summaries here")
    parser.add_argument(
        "--max-failures",
        type=int,
        metavar="N",
        help="print at most N failures per version (default: all)",
    )
    parser.add_argument(
        "--no-progress",
        action="store_true",
        help="no progress bar (it is shown only when stderr is a terminal)",
    )
    parser.add_argument(
        "--progress-lines",
        action="store_true",
        help="progress as plain lines on stderr (each 5%% of a version's files), for logs",
    )
    return parser


def _decompiler(path: str | None) -> str:
    chosen = path or default_decompiler()
    if chosen is None:
        raise pythons.UsageError(
            "glassbox-decompile not found next to Python nor on PATH; pass --decompiler"
        )
    if not (os.path.isfile(chosen) and os.access(chosen, os.X_OK)):
        raise pythons.UsageError(f"--decompiler {chosen}: not an executable file")
    return os.path.abspath(chosen)


def _files(args: argparse.Namespace, interpreter: pythons.Interpreter) -> tuple[list[str], str]:
    """The files to judge and the folder their names are shown relative to."""
    if args.by_package:
        files = list(dict.fromkeys(f for _, group in args.groups for f in group))
        root = os.path.commonpath([os.path.dirname(f) for f in files]) if files else ""
    elif args.files:
        files = sources.named_files(args.files)
        root = os.path.commonpath([os.path.dirname(f) for f in files]) if files else ""
    else:
        files, root = sources.stdlib_files(interpreter.stdlib), interpreter.stdlib
    return (files[: args.limit] if args.limit else files), root


def _check_files(args: argparse.Namespace) -> None:
    """Named paths that do not exist are usage errors, found before any work."""
    args.groups = []
    if args.by_package:
        if not args.files:
            raise pythons.UsageError("--by-package needs paths or LABEL=PATTERN arguments")
        args.groups = sources.named_groups(args.files)
    elif args.files:
        sources.named_files(args.files)


def _progress(args: argparse.Namespace, total: int, title: str) -> ProgressBar:
    if args.progress_lines and not args.no_progress:
        return ProgressBar(total, title, lines=True)
    return ProgressBar(total, title, enabled=not args.no_progress and sys.stderr.isatty())


def _judge(args, interpreter, decompiler: str) -> tuple[list[dict], str]:
    files, root = _files(args, interpreter)
    bar = _progress(args, len(files), f"{interpreter.version:>7}")
    records = runner.judge_files(
        interpreter,
        files,
        decompiler,
        jobs=args.jobs,
        timeout=args.timeout,
        optimize=args.optimize,
        recompile_optimize=args.recompile_optimize,
        on_verdict=lambda record: bar.advance(sources.display_name(record["file"], root)),
    )
    bar.close()
    return records, root


def _package_rows(args, interpreter, records, startup) -> list[tuple[str, report.Summary]]:
    by_file = {r["file"]: r for r in records}
    return [
        (label, report.summarize(interpreter, [by_file[f] for f in files], startup))
        for label, files in args.groups
    ]


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        interpreters = pythons.chosen(args.python)
        decompiler = _decompiler(args.decompiler)
        _check_files(args)
    except pythons.UsageError as error:
        parser.error(str(error))
    except FileNotFoundError as error:
        parser.error(f"no such file or folder: {error}")

    startup = runner.startup_seconds(decompiler)
    results = []
    summaries: list[report.Summary] = []
    packages: list[tuple[str, report.Summary]] = []
    for interpreter in interpreters:
        records, root = _judge(args, interpreter, decompiler)
        summary = report.summarize(interpreter, records, startup)
        print(report.format_summary(summary, records, root, args.max_failures), flush=True)
        results.append(report.to_json(summary, records))
        summaries.append(summary)
        if args.by_package:
            rows = _package_rows(args, interpreter, records, startup)
            results[-1]["packages"] = {label: asdict(s) for label, s in rows}
            packages.extend(rows)
    if len(summaries) > 1:
        print("\n" + report.format_table(summaries))
    if packages:
        order = {label: index for index, (label, _) in enumerate(args.groups)}
        packages.sort(key=lambda row: order[row[0]])  # stable: versions stay in order
        print("\n" + report.format_package_table(packages))
    print(f"timing: {report.TIMING_NOTE}")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as handle:
            json.dump({"decompiler": decompiler, "versions": results}, handle, indent=1)
            handle.write("\n")
    return 0
