"""The semantic check's test runner: one module's CPython tests, in the process it runs in.

Run as a script by the judging interpreter, never imported by glassbox::

    python3.X -s -S semantic_child.py CONFIG_JSON

with the decompiled copies' folder (the "shadow") as ``PYTHONPATH`` for the decompiled run and
no ``PYTHONPATH`` for the run on the originals. CONFIG_JSON holds ``modules`` (the module or
package names the shadow holds), ``tests`` (test modules such as ``test.test_json``),
``shadow`` (the folder, or null) and ``out`` (a file for the answers). Only the standard library
is used, and nothing is imported before the test's own imports but ``sys``, so every later
import, the runner's own included, finds the shadow first.

Answers are JSON lines written to ``out`` as they happen: ``{"shadow": name, "file": path,
"shadowed": bool, "why": text}`` per module, ``{"start": test_id}`` before each test,
``{"test": id, "outcome": o, "message": first_line}`` after it (``pass``, ``fail``, ``error``,
``skip``, ``xfail``, ``xpass``), ``{"fixture": id, "message": ...}`` for a class or module
fixture that failed, and ``{"done": seconds}`` at the end. A child that dies leaves no ``done``.
"""

from __future__ import annotations

import sys

del sys.path[0]  # this script's folder: the verifier's modules must not shadow anything
STARTUP = frozenset(sys.modules)  # imported before this script ran: never from the shadow

import faulthandler  # noqa: E402  (after the path is set: see the docstring)
import json  # noqa: E402
import os  # noqa: E402
import time  # noqa: E402
import unittest  # noqa: E402

# The message of a failing or erroring test: its exception's first line, at most this long.
MESSAGE_LIMIT = 300
# Seconds before the driver's timeout at which every thread's stack is dumped to stderr.
DUMP_MARGIN = 15


def first_line(err) -> str:
    """``Type: first line of the message`` of an ``exc_info`` triple."""
    kind, value, _ = err
    text = str(value).strip().splitlines()
    line = f"{kind.__name__}: {text[0]}" if text else kind.__name__
    return line[:MESSAGE_LIMIT]


class Collector(unittest.TestResult):
    """One JSON line per finished test; a test with a failed subtest fails."""

    def __init__(self, out) -> None:
        super().__init__()
        self.out = out
        self.verdict: tuple[str, str] | None = None

    def emit(self, record: dict) -> None:
        self.out.write(json.dumps(record) + "\n")
        self.out.flush()

    def startTest(self, test) -> None:  # noqa: N802  (unittest's names)
        super().startTest(test)
        self.verdict = None
        self.emit({"start": test.id()})

    def _set(self, outcome: str, message: str = "") -> None:
        if self.verdict is None or self.verdict[0] in ("pass", "skip"):
            self.verdict = (outcome, message)

    def addSuccess(self, test) -> None:  # noqa: N802
        self._set("pass")

    def addFailure(self, test, err) -> None:  # noqa: N802
        self._set("fail", first_line(err))

    def addError(self, test, err) -> None:  # noqa: N802
        if isinstance(test, unittest.TestCase):
            self._set("error", first_line(err))
        else:  # setUpClass, setUpModule and their tear-downs: an _ErrorHolder
            self.emit({"fixture": str(test), "message": first_line(err)})

    def addSkip(self, test, reason) -> None:  # noqa: N802
        if isinstance(test, unittest.TestCase):
            self._set("skip", str(reason)[:MESSAGE_LIMIT])

    def addExpectedFailure(self, test, err) -> None:  # noqa: N802
        self._set("xfail")

    def addUnexpectedSuccess(self, test) -> None:  # noqa: N802
        self._set("xpass", "unexpected success")

    def addSubTest(self, test, subtest, err) -> None:  # noqa: N802
        if err is not None:
            failed = issubclass(err[0], test.failureException)
            self._set("fail" if failed else "error", f"{subtest.id()}: {first_line(err)}")

    def stopTest(self, test) -> None:  # noqa: N802
        super().stopTest(test)
        outcome, message = self.verdict or ("pass", "")
        self.emit({"test": test.id(), "outcome": outcome, "message": message})


def check_shadow(name: str, shadow: str | None) -> dict:
    """Import ``name`` and say whether it came from ``shadow`` (the originals: never)."""
    record: dict = {"shadow": name, "shadowed": False, "file": None, "why": ""}
    try:
        module = __import__(name)
    except BaseException as error:  # the decompiled module may raise anything on import
        record["why"] = f"import failed: {type(error).__name__}: {error}"[:MESSAGE_LIMIT]
        return record
    module = sys.modules.get(name, module)
    origin = getattr(module, "__file__", None)
    record["file"] = origin
    spec = getattr(module, "__spec__", None)
    if getattr(spec, "origin", None) in ("frozen", "built-in"):
        record["why"] = f"{spec.origin} module"
    elif origin is None:
        record["why"] = "no __file__"
    elif name in STARTUP:
        record["why"] = "imported at start-up, before the shadow"
    elif shadow and os.path.realpath(origin).startswith(os.path.realpath(shadow) + os.sep):
        record["shadowed"] = True
    elif shadow:
        record["why"] = f"imported from {origin}"
    return record


def prepare_support() -> None:
    """As regrtest does by default: no optional resources (network, cpu, ...), quiet."""
    from test import support

    support.use_resources = []
    support.verbose = 0


def run(config: dict, out) -> None:
    collector = Collector(out)
    for name in config["modules"]:
        collector.emit(check_shadow(name, config.get("shadow")))
    prepare_support()
    start = time.monotonic()
    loader = unittest.TestLoader()
    for name in config["tests"]:
        try:
            suite = loader.loadTestsFromName(name)
        except BaseException as error:  # an import error of the test module itself
            collector.emit({"fixture": name, "message": f"load failed: {error}"[:MESSAGE_LIMIT]})
            continue
        suite.run(collector)
    collector.emit({"done": time.monotonic() - start})


def main() -> int:
    config = json.loads(sys.argv[1])
    faulthandler.enable()
    if config.get("timeout"):
        faulthandler.dump_traceback_later(max(1, config["timeout"] - DUMP_MARGIN), exit=False)
    with open(config["out"], "w", encoding="utf-8") as out:
        run(config, out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
