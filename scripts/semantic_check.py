"""The semantic check: CPython's own tests of standard-library modules, run on the decompiled
modules in place of the originals (see ``glassbox/verify/semantic.py``).

    python scripts/semantic_check.py --python all                 # every 3.10-3.13 found
    python scripts/semantic_check.py --python 3.12 --modules json,argparse --keep /tmp/sem
    python scripts/semantic_check.py --modules 'urllib=test_urlparse+test_urllib,json'

Prints per version: modules, modules shadowed, tests passing on the originals, how many of those
pass on the decompiled modules, and every test that broke with the first line of its error; a
table when several versions run. Progress on stderr. Exit code 1 when a version is below
``--min-percent`` (when given), 2 on usage errors, else 0.
"""

from __future__ import annotations

import argparse
import json
import sys
import time

from glassbox.verify import pythons, runner, semantic, semantic_report
from glassbox.verify.cli import default_decompiler
from glassbox.verify.semantic_targets import DEFAULT_TARGETS, Target

DEFAULT_TIMEOUT = 300.0  # the slowest original run is ~35 s on a loaded 2-core machine


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    pythons.add_arguments(parser)
    parser.add_argument(
        "--modules",
        action="append",
        metavar="SPEC",
        help="targets instead of the default list, comma-separated or repeated: NAME (tests "
        "test.test_NAME) or NAME=test_a+test_b",
    )
    parser.add_argument("--jobs", "-j", type=int, default=runner.default_jobs())
    parser.add_argument(
        "--timeout",
        type=float,
        default=DEFAULT_TIMEOUT,
        help=f"seconds per test run of one module (default {DEFAULT_TIMEOUT:g})",
    )
    parser.add_argument("--keep", metavar="DIR", help="leave shadows, answers and logs in DIR/3.X")
    parser.add_argument("--json", metavar="FILE", help="write every result here")
    parser.add_argument("--max-breaks", type=int, metavar="N", help="print N breaks per module")
    parser.add_argument("--min-percent", type=float, metavar="P", help="exit 1 below P percent")
    parser.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
    return parser


def targets(specs: list[str] | None) -> list[Target]:
    """``--modules`` values: ``a,b=test_x+test_y`` names two targets."""
    if not specs:
        return list(DEFAULT_TARGETS)
    parts = [part.strip() for spec in specs for part in spec.split(",")]
    return [Target.parse(part) for part in parts if part]


def run_version(
    interpreter: pythons.Interpreter, chosen: list[Target], decompiler: str, args
) -> tuple[semantic_report.SemanticSummary, list[semantic.ModuleResult]]:
    done = [0]

    def show(result: semantic.ModuleResult) -> None:
        done[0] += 1
        if not args.quiet:
            line = semantic_report.progress_line(interpreter.minor, done[0], len(chosen), result)
            print(line, file=sys.stderr, flush=True)

    start = time.monotonic()
    results = semantic.check_version(
        interpreter, chosen, decompiler, jobs=args.jobs, timeout=args.timeout,
        keep=args.keep, on_result=show,
    )  # fmt: skip
    return semantic_report.summarize(interpreter, results, time.monotonic() - start), results


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        found = pythons.chosen(args.python)
        decompiler = args.decompiler or default_decompiler()
        if not decompiler:
            raise pythons.UsageError("glassbox-decompile not found; pass --decompiler")
    except pythons.UsageError as error:
        parser.error(str(error))
    chosen = targets(args.modules)
    summaries, records = [], []
    for interpreter in found:
        summary, results = run_version(interpreter, chosen, decompiler, args)
        print(semantic_report.format_version(summary, results, args.max_breaks), flush=True)
        summaries.append(summary)
        records.append(semantic_report.to_json(summary, results))
    if len(summaries) > 1:
        print("\n" + semantic_report.format_table(summaries))
    if args.json:
        with open(args.json, "w", encoding="utf-8") as handle:
            json.dump({"decompiler": decompiler, "versions": records}, handle, indent=1)
            handle.write("\n")
    below = [s for s in summaries if args.min_percent and 100 * s.share < args.min_percent]
    return 1 if below else 0


if __name__ == "__main__":
    sys.exit(main())
