"""``python -m glassbox.verify``: decompile, recompile and compare, file by file, per version."""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
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
        "standard library, without Lib/test, Lib/*/tests, idle_test and site-packages)",
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
    if args.files:
        files = sources.named_files(args.files)
        root = os.path.commonpath([os.path.dirname(f) for f in files]) if files else ""
    else:
        files, root = sources.stdlib_files(interpreter.stdlib), interpreter.stdlib
    return (files[: args.limit] if args.limit else files), root


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        interpreters = pythons.chosen(args.python)
        decompiler = _decompiler(args.decompiler)
        if args.files:
            sources.named_files(args.files)  # missing paths are usage errors, before any work
    except pythons.UsageError as error:
        parser.error(str(error))
    except FileNotFoundError as error:
        parser.error(f"no such file or folder: {error}")

    startup = runner.startup_seconds(decompiler)
    show_progress = not args.no_progress and sys.stderr.isatty()
    results = []
    summaries: list[report.Summary] = []
    for interpreter in interpreters:
        files, root = _files(args, interpreter)
        bar = ProgressBar(len(files), f"{interpreter.version:>7}", enabled=show_progress)
        records = runner.judge_files(
            interpreter,
            files,
            decompiler,
            jobs=args.jobs,
            timeout=args.timeout,
            optimize=args.optimize,
            recompile_optimize=args.recompile_optimize,
            on_verdict=lambda record, bar=bar, root=root: bar.advance(
                sources.display_name(record["file"], root)
            ),
        )
        bar.close()
        summary = report.summarize(interpreter, records, startup)
        print(report.format_summary(summary, records, root, args.max_failures), flush=True)
        results.append(report.to_json(summary, records))
        summaries.append(summary)
    if len(summaries) > 1:
        print("\n" + report.format_table(summaries))
    print(f"timing: {report.TIMING_NOTE}")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as handle:
            json.dump({"decompiler": decompiler, "versions": results}, handle, indent=1)
            handle.write("\n")
    return 0
