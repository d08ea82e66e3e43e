"""Third-party test suites on decompiled code: each package's own tests, run on its original
modules and on its modules decompiled (compiled to a .pyc by that interpreter, decompiled by
glassbox-decompile, the output written in place of each .py), under each interpreter.

    python scripts/suite_check.py --python all                 # every 3.10-3.13 found
    python scripts/suite_check.py --python 3.12 --packages toolz,click --keep /tmp/suites

The packages are source distributions from PyPI, pinned by version and SHA-256 (PACKAGES), kept
in build/suites/sdists; each interpreter gets a virtual environment in build/suites/venv-3.X with
the test tools of requirements/suites.txt. Prints per version and package: the tests that pass on
the originals, how many of those pass on the decompiled modules, the files that hold fallback
regions, and each test that broke. Exit code 1 when a version keeps fewer than --min-percent of
the tests (when given), 2 on usage errors, else 0.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
import urllib.request
import xml.etree.ElementTree as ElementTree
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from glassbox.verify import pythons  # noqa: E402
from glassbox.verify.cli import default_decompiler  # noqa: E402

SUITES = ROOT / "build" / "suites"
FILES = "https://files.pythonhosted.org/packages/"


@dataclass(frozen=True)
class Package:
    name: str
    sdist: str  # path under FILES
    sha256: str
    code: str  # the folder of the package's modules, inside the unpacked sdist
    tests: str = "tests"  # what pytest runs, inside the unpacked sdist
    env: tuple[tuple[str, str], ...] = ()  # variables the package's tests read

    @property
    def path_root(self) -> str:  # what goes on PYTHONPATH: the folder above the package
        return str(Path(self.code).parent)


PACKAGES = [
    Package(
        "more-itertools",
        "52/b8/c63995bebbb9ac9c059350e0fb8c82c2420c85aeca7d34e40aecf3df9281/"
        "more_itertools-11.2.1.tar.gz",
        "cbf08fd0af284dc69718b9b76a8e6203df624d70209ea511e4219d350c856f63",
        "more_itertools",
    ),
    Package(
        "toolz",
        "31/6f/ae20c212a07aa2d156c787383d8088a5e045ee39628661edb190c97e1659/toolz-1.2.0.tar.gz",
        "9667a038e9d6ecba37995e26cb2f59ec6420b6ad8dd9677de59db9b956b08490",
        "toolz",
        "toolz/tests",
    ),
    Package(
        "boltons",
        "71/56/14c4a4931910a81ddeccfbe227925ea738e3c445d3e2af960f0bcbba1616/boltons-26.2.0.tar.gz",
        "d39cfd15c1a1c3bd4d705c82252fa9edb8e4f5e8cc039f8e39afac7b1b47e92c",
        "boltons",
    ),
    Package(
        "idna",
        "f5/08/8eea9d4b8302028f3abb2c0813953f7aec26d33b7a8960ed760e65ff29fa/idna-3.20.tar.gz",
        "a7db850025b95ded1eae8a46181a1a6c56c92c96f0e2b005d9ff8dc0210cab44",
        "idna",
    ),
    Package(
        "attrs",
        "9a/8e/82a0fe20a541c03148528be8cac2408564a6c9a0cc7e9171802bc1d26985/attrs-26.1.0.tar.gz",
        "d03ceb89cb322a8fd706d4fb91940737b6642aa36998fe130a9bc96c985eff32",
        "src/attr",
    ),
    Package(
        "packaging",
        "c3/75/ffb1dc0ed12352139fb4ca0e3fde4325a23e3d0f3f40efe89717bc4f557b/packaging-26.4.tar.gz",
        "c4b671c41ddb9bf26e543c37723610d28fb6bf7affc4da17cf048d419d2c062a",
        "src/packaging",
    ),
    Package(
        "pyparsing",
        "e4/11/b213bebff182584360cb8d17c72c1677fec5c5c228de439e63bcf8ab1c8f/pyparsing-3.3.3.tar.gz",
        "928ae7e20211f3b6f3915a72f06a0cfd29ab9d24279dd6346b6b1a7146397d36",
        "pyparsing",
    ),
    Package(
        "click",
        "45/37/edbf1b0707709013c0cf2e8317e03d97ed29bf4cac709fe328904ae92a38/click-8.5.1.tar.gz",
        "9bbfada76703fd1d784b83eea012e3e8c6a001a876543ef104fa56aaaeb072b4",
        "src/click",
    ),
    Package(
        "sqlparse",
        "7e/e0/361c764ea58cc1a75f7b4b424a74b08449db8bfa5e9199c7275999fdd1b9/sqlparse-0.6.1.tar.gz",
        "ca722573f848ff2d30e40ea30f53a104b7dea7635ea9285891263eb2c58fb6e7",
        "sqlparse",
    ),
    Package(
        "tomlkit",
        "08/72/fc01563df95c189a9f65850096bdc205bc2fe37da6c740cd64afaf18d07e/tomlkit-0.15.2.tar.gz",
        "83e32755ba1d20d9340bd069ee97e9f6232ba2346b63ffcba425de01f7e327a6",
        "tomlkit",
    ),
    Package(
        "markdown",
        "29/6f/da4c6aea59b3001f2e8c0ec7497475aadaf3b021c10cab5b2858f0f32b26/markdown-3.10.3.tar.gz",
        "3589362618f743188b4d955b874402bc814f4f83f544dc207719f4baa7d9c45f",
        "markdown",
        # (its Pygments tests run only where this names the installed Pygments: suites.txt's)
        env=(("PYGMENTS_VERSION", "2.21.0"),),
    ),
    Package(
        "cachetools",
        "1c/48/a5abcdd3c3b2aac71fb4379b451ac832cb1c988ed050cccd9ca1bd0c9c46/"
        "cachetools-7.3.3.tar.gz",
        "46e92905f580cb137c499b9ec6acd73d569c2c3542ddfeb286618685e55cb340",
        "src/cachetools",
    ),
    Package(
        "parso",
        "30/4b/90c937815137d43ce71ba043cd3566221e9df6b9c805f24b5d138c9d40a7/parso-0.8.7.tar.gz",
        "eaaac4c9fdd5e9e8852dc778d2d7405897ec510f2a298071453e5e3a07914bb1",
        "parso",
        "test",
    ),
]
# (attrs ships two packages side by side: `attr` and `attrs`; both are decompiled.)
EXTRA_CODE = {"attrs": ["src/attrs"]}


@dataclass
class Outcome:
    passed: set[str] = field(default_factory=set)
    failed: dict[str, str] = field(default_factory=dict)  # test -> first line of its error
    error: str = ""  # why the run itself gave no results


def sdist(package: Package) -> Path:
    """The package's source distribution, downloaded once and checked against its hash."""
    target = SUITES / "sdists" / package.sdist.rsplit("/", 1)[1]
    if not target.exists():
        target.parent.mkdir(parents=True, exist_ok=True)
        with urllib.request.urlopen(FILES + package.sdist, timeout=120) as response:
            data = response.read()
        target.with_suffix(".part").write_bytes(data)
        target.with_suffix(".part").rename(target)
    digest = hashlib.sha256(target.read_bytes()).hexdigest()
    if digest != package.sha256:
        target.unlink()
        raise SystemExit(f"{target.name}: SHA-256 {digest}, expected {package.sha256}")
    return target


def unpack(archive: Path, into: Path) -> Path:
    with tarfile.open(archive) as tar:
        members = [m for m in tar.getmembers() if m.isfile() or m.isdir()]
        for member in members:
            if member.name.startswith("/") or ".." in Path(member.name).parts:
                raise SystemExit(f"{archive.name}: unsafe path {member.name}")
        tar.extractall(into, members=members)
    (top,) = [p for p in into.iterdir() if p.is_dir()]
    return top


def test_venv(interpreter: pythons.Interpreter) -> str:
    """The interpreter of build/suites/venv-3.X, made (with requirements/suites.txt) if needed."""
    venv = SUITES / f"venv-3.{interpreter.minor}"
    python = venv / "bin" / "python"
    stamp = venv / ".installed"
    wanted = (ROOT / "requirements" / "suites.txt").read_text()
    if not stamp.exists() or stamp.read_text() != wanted:
        subprocess.run([interpreter.executable, "-m", "venv", "--clear", str(venv)], check=True)
        subprocess.run(
            [str(python), "-m", "pip", "install", "-q", "--disable-pip-version-check"]
            + ["-c", str(ROOT / "requirements" / "constraints.txt")]
            + ["-r", str(ROOT / "requirements" / "suites.txt")],
            check=True,
        )
        stamp.write_text(wanted)
    return str(python)


def decompile_tree(python: str, decompiler: str, folder: Path) -> list[str]:
    """Each .py under ``folder`` replaced by its decompiled source; the files (relative) whose
    source holds a fallback region, with the decompiler's reason."""
    fallbacks = []
    with tempfile.TemporaryDirectory() as tmp:
        for source in sorted(folder.rglob("*.py")):
            pyc = Path(tmp) / "module.pyc"
            compiled = subprocess.run(
                [
                    python,
                    "-c",
                    "import py_compile, sys; py_compile.compile(*sys.argv[1:3], doraise=True)",
                    str(source),
                    str(pyc),
                ],
                capture_output=True,
            )
            if compiled.returncode != 0:
                continue  # (source this interpreter cannot compile stays as it is)
            result = subprocess.run([decompiler, str(pyc)], capture_output=True, text=True)
            if result.returncode not in (0, 1) or not result.stdout:
                raise SystemExit(f"{decompiler} failed on {source}: {result.stderr[-300:]}")
            if result.returncode == 1:
                where = source.relative_to(folder.parent)
                for line in result.stderr.strip().splitlines():
                    fallbacks.append(f"{where}: {line.split(': ', 2)[-1]}")
            source.write_text(result.stdout)
    return fallbacks


def run_tests(python: str, tree: Path, package: Package, timeout: float) -> Outcome:
    report = tree / "report.xml"
    # (The project's own pytest configuration stays: it deselects what it does not run by
    # default, click's stress tests for one.)
    command = [python, "-m", "pytest", "-q", "-p", "no:cacheprovider"]
    command += ["--continue-on-collection-errors", f"--junitxml={report}", package.tests]
    env = dict(os.environ, PYTHONPATH=str(tree / package.path_root), PYTHONDONTWRITEBYTECODE="1")
    env.update(package.env)
    try:
        subprocess.run(command, cwd=tree, env=env, capture_output=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return Outcome(error=f"timed out after {timeout:g} s")
    if not report.exists():
        return Outcome(error="pytest wrote no report")
    outcome = Outcome()
    for case in ElementTree.parse(report).iter("testcase"):
        name = f"{case.get('classname')}::{case.get('name')}"
        problem = case.find("failure")
        if problem is None:
            problem = case.find("error")
        if problem is not None:
            outcome.failed[name] = (problem.get("message") or "").split("\n")[0][:200]
        elif case.find("skipped") is None:
            outcome.passed.add(name)
    return outcome


def check(package, python, decompiler, timeout, keep: Path | None) -> dict:
    work = Path(tempfile.mkdtemp(prefix="suite-", dir=keep))
    try:
        archive = sdist(package)
        original = unpack(archive, work / "original")
        decompiled = unpack(archive, work / "decompiled")
        fallbacks = []
        for code in [package.code] + EXTRA_CODE.get(package.name, []):
            fallbacks += decompile_tree(python, decompiler, decompiled / code)
        before = run_tests(python, original, package, timeout)
        after = run_tests(python, decompiled, package, timeout)
    finally:
        if keep is None:
            shutil.rmtree(work, ignore_errors=True)
    kept = before.passed & after.passed
    broke = {t: after.failed.get(t, "not run") for t in sorted(before.passed - kept)}
    return {
        "package": package.name,
        "passing": len(before.passed),
        "kept": len(kept),
        "broke": broke,
        "fallbacks": fallbacks,
        "error": before.error or after.error,
    }


def percent(kept: int, passing: int) -> str:
    return f"{100.0 * kept / passing:.2f}%" if passing else "-"


def print_version(label: str, rows: list[dict], breaks: int) -> None:
    print(f"\n{label}")
    for row in rows:
        line = f"  {row['package']:16} {row['kept']:6} / {row['passing']:6} tests kept"
        line += f" ({percent(row['kept'], row['passing'])}); fallback files {len(row['fallbacks'])}"
        print(line + (f"; {row['error']}" if row["error"] else ""))
        for where in row["fallbacks"]:
            print(f"      fallback {where}")
        for test, why in list(row["broke"].items())[:breaks]:
            print(f"      broke {test}: {why}")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    pythons.add_arguments(parser)
    parser.add_argument(
        "--packages", metavar="A,B", help="a subset of: " + ", ".join(p.name for p in PACKAGES)
    )
    parser.add_argument("--timeout", type=float, default=900.0, help="seconds per test run")
    parser.add_argument("--keep", metavar="DIR", help="leave the trees and reports in DIR")
    parser.add_argument("--json", metavar="FILE", help="write every result here")
    parser.add_argument(
        "--max-breaks",
        type=int,
        default=10,
        metavar="N",
        help="print N broken tests per package (default 10)",
    )
    parser.add_argument("--min-percent", type=float, metavar="P", help="exit 1 below P percent")
    return parser


def main() -> int:
    args = build_parser().parse_args()
    try:
        interpreters = pythons.chosen(args.python)
    except pythons.UsageError as error:
        print(f"suite_check: {error}", file=sys.stderr)
        return 2
    decompiler = args.decompiler or default_decompiler()
    names = args.packages.split(",") if args.packages else [p.name for p in PACKAGES]
    unknown = set(names) - {p.name for p in PACKAGES}
    if unknown or not decompiler:
        print(
            f"suite_check: unknown packages {sorted(unknown)}"
            if unknown
            else "suite_check: no glassbox-decompile found (--decompiler)",
            file=sys.stderr,
        )
        return 2
    keep = Path(args.keep) if args.keep else None
    if keep:
        keep.mkdir(parents=True, exist_ok=True)
    results, status = {}, 0
    for interpreter in interpreters:
        python = test_venv(interpreter)
        rows = []
        for package in (p for p in PACKAGES if p.name in names):
            start = time.monotonic()
            print(f"[{interpreter.version}] {package.name} ...", file=sys.stderr, flush=True)
            rows.append(check(package, python, decompiler, args.timeout, keep))
            row = rows[-1]
            print(
                f"[{interpreter.version}] {package.name}: {row['kept']} / {row['passing']} "
                f"tests kept, {len(row['fallbacks'])} fallback regions, "
                f"{time.monotonic() - start:.0f} s",
                file=sys.stderr,
                flush=True,
            )
        results[interpreter.version] = rows
        print_version(interpreter.label, rows, args.max_breaks)
        passing = sum(r["passing"] for r in rows)
        kept = sum(r["kept"] for r in rows)
        print(f"  all: {kept} / {passing} ({percent(kept, passing)})")
        if args.min_percent is not None and passing and 100.0 * kept / passing < args.min_percent:
            status = 1
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1))
    return status


if __name__ == "__main__":
    sys.exit(main())
