"""Decompiler speed: glassbox (C++, in process) against depyf (pure Python) on the same functions.

The functions are the plain functions of N standard-library modules of the running Python:
module-level functions and the methods of module-level classes, each defined in that module.

    python bench/bench_decompile.py                      # default modules, depyf if importable
    python bench/bench_decompile.py --depyf-path /tmp/depyf-lib --modules 40
    GLASSBOX_DEPYF_PATH=/tmp/depyf-lib python bench/bench_decompile.py

glassbox is timed two ways. The public API, `glassbox.decompile(function)` on the function object
(what a user calls: the code object read from its fields (3.11; marshalled on other versions),
decompiled in C++, the result converted, the function's defaults and annotations put into the
`def`), with time.perf_counter around each call:
--repeat passes over all the functions, one call per function each, the median per function. And
the C++ decompiler alone (`_core.decompile_timings`): std::chrono around `decompile_function` for
each code object, the median of --repeat runs in a row; unmarshalling and the Python conversion of
the result are outside that clock.

depyf is timed with time.perf_counter around `depyf.decompile(code)` in a forked worker process
(one call per function); a call that runs past --timeout (depyf loops forever on some `while True`
functions) kills the worker, counts as a timeout, and a fresh worker carries on. The ratio compares
the total times over the functions both tools finished. depyf is optional: without it the depyf
half is skipped with a message. Install it without its dependencies (it must not pull torch):

    pip download --no-deps depyf astor dill -d /tmp/depyf-dl
    pip install --no-deps --target /tmp/depyf-lib /tmp/depyf-dl/*.whl
"""

from __future__ import annotations

import argparse
import importlib
import inspect
import marshal
import multiprocessing as mp
import os
import statistics
import sys
import time
import types
import warnings

# Pure-Python stdlib modules with many ordinary functions; the first --modules of them are used.
DEFAULT_MODULES = [
    "argparse",
    "ast",
    "base64",
    "bisect",
    "calendar",
    "codecs",
    "collections",
    "colorsys",
    "configparser",
    "contextlib",
    "copy",
    "csv",
    "dataclasses",
    "datetime",
    "difflib",
    "dis",
    "email.utils",
    "enum",
    "filecmp",
    "fnmatch",
    "fractions",
    "ftplib",
    "functools",
    "getopt",
    "gettext",
    "glob",
    "gzip",
    "heapq",
    "hmac",
    "html",
    "http.cookies",
    "imaplib",
    "inspect",
    "ipaddress",
    "json.decoder",
    "json.encoder",
    "locale",
    "logging",
    "mailbox",
    "mimetypes",
    "netrc",
    "ntpath",
    "numbers",
    "operator",
    "optparse",
    "os",
    "pathlib",
    "pickle",
    "pickletools",
    "pkgutil",
    "platform",
    "plistlib",
    "posixpath",
    "pprint",
    "pydoc",
    "queue",
    "quopri",
    "random",
    "re._compiler",
    "re._parser",
    "reprlib",
    "sched",
    "secrets",
    "selectors",
    "shlex",
    "shutil",
    "smtplib",
    "socket",
    "statistics",
    "string",
    "subprocess",
    "tarfile",
    "tempfile",
    "textwrap",
    "threading",
    "tokenize",
    "traceback",
    "types",
    "typing",
    "urllib.parse",
    "urllib.request",
    "uuid",
    "warnings",
    "wave",
    "weakref",
    "zipfile",
]


def collect_functions(module_names: list[str]) -> list[types.FunctionType]:
    """Module-level functions and methods of module-level classes defined in each module."""
    functions: list[types.FunctionType] = []
    seen: set[int] = set()

    def add(obj: object, module_name: str) -> None:
        if isinstance(obj, (staticmethod, classmethod)):
            obj = obj.__func__
        if (
            isinstance(obj, types.FunctionType)
            and obj.__module__ == module_name
            and id(obj.__code__) not in seen
        ):
            seen.add(id(obj.__code__))
            functions.append(obj)

    for name in module_names:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            module = importlib.import_module(name)
        for value in list(vars(module).values()):
            add(value, name)
            if inspect.isclass(value) and value.__module__ == name:
                for member in vars(value).values():
                    add(member, name)
    return functions


# ---- glassbox -----------------------------------------------------------------------------------


def time_glassbox(functions, repeat: int) -> tuple[list[float], list[float], int]:
    """(C++ median seconds per function, public API median seconds per function, fallbacks)."""
    import glassbox
    from glassbox import _core
    from glassbox.decompiler import decompile_detailed

    minor = sys.version_info.minor
    blob = marshal.dumps(tuple(f.__code__ for f in functions))
    timings = _core.decompile_timings(blob, minor, repeat)
    assert [q for q, _ in timings] == [f.__code__.co_qualname for f in functions]
    in_process = [seconds for _, seconds in timings]

    passes = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # each fallback warns (DecompileWarning); counted below
        for _ in range(max(repeat, 1)):
            seconds = []
            for function in functions:
                start = time.perf_counter()
                glassbox.decompile(function)
                seconds.append(time.perf_counter() - start)
            passes.append(seconds)
    api = [statistics.median(per_function) for per_function in zip(*passes, strict=True)]
    fallbacks = sum(bool(decompile_detailed(function).fallbacks) for function in functions)
    return in_process, api, fallbacks


# ---- depyf --------------------------------------------------------------------------------------


def import_depyf(path: str | None):
    if path:
        sys.path.insert(0, path)
    try:
        import depyf  # noqa: F401
    except Exception as error:  # ImportError, or a dependency that fails to import
        return None, f"{type(error).__name__}: {error}"
    return sys.modules["depyf"], None


def _depyf_worker(connection, functions, depyf) -> None:
    """Decompiles the functions the parent names by index; answers (seconds | None, error)."""
    # depyf prints notes ("Function with default arguments is not supported ..."): drop them.
    sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - lives as long as the worker
    while True:
        index = connection.recv()
        if index is None:
            return
        start = time.perf_counter()
        try:
            depyf.decompile(functions[index].__code__)
            connection.send((time.perf_counter() - start, None))
        except BaseException as error:  # depyf raises assorted errors on what it cannot handle
            connection.send((None, f"{type(error).__name__}"))


def time_depyf(functions, depyf, timeout: float):
    """Seconds per function (None on timeout or error), timeouts, errors."""
    context = mp.get_context("fork")
    seconds: list[float | None] = []
    timeouts = errors = 0
    worker = parent = None

    def start_worker():
        parent_end, child_end = context.Pipe()
        process = context.Process(
            target=_depyf_worker, args=(child_end, functions, depyf), daemon=True
        )
        process.start()
        return process, parent_end

    for index in range(len(functions)):
        if worker is None:
            worker, parent = start_worker()
        parent.send(index)
        if parent.poll(timeout):
            elapsed, error = parent.recv()
            errors += error is not None
            seconds.append(elapsed)
        else:
            timeouts += 1
            seconds.append(None)
            worker.kill()
            worker.join()
            worker = None
    if worker is not None:
        parent.send(None)
        worker.join(timeout)
    return seconds, timeouts, errors


# ---- report -------------------------------------------------------------------------------------


def us(seconds: float) -> str:
    return f"{seconds * 1e6:10.1f} us"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--modules",
        type=int,
        default=len(DEFAULT_MODULES),
        help="how many of the default stdlib modules to use",
    )
    parser.add_argument("--repeat", type=int, default=5, help="glassbox runs per function")
    parser.add_argument("--timeout", type=float, default=2.0, help="seconds per depyf call")
    parser.add_argument(
        "--depyf-path",
        default=os.environ.get("GLASSBOX_DEPYF_PATH"),
        help="directory holding depyf (and astor, dill); env GLASSBOX_DEPYF_PATH",
    )
    parser.add_argument("--no-depyf", action="store_true", help="time glassbox only")
    args = parser.parse_args()

    functions = collect_functions(DEFAULT_MODULES[: args.modules])
    print(
        f"Python {sys.version.split()[0]}: {len(functions)} functions from "
        f"{min(args.modules, len(DEFAULT_MODULES))} stdlib modules"
    )

    native, api, fallbacks = time_glassbox(functions, args.repeat)
    print(
        f"glassbox.decompile median {us(statistics.median(api))}   "
        f"mean {us(statistics.mean(api))}   total {sum(api) * 1e3:9.2f} ms   "
        f"(public API on the function; median of {args.repeat} passes each)"
    )
    print(
        f"glassbox in C++    median {us(statistics.median(native))}   "
        f"mean {us(statistics.mean(native))}   total {sum(native) * 1e3:9.2f} ms   "
        f"(median of {args.repeat} runs each; {fallbacks} with fallbacks)"
    )

    if args.no_depyf:
        return 0
    depyf, problem = import_depyf(args.depyf_path)
    if depyf is None:
        print(
            f"depyf: skipped, not importable ({problem}); pass --depyf-path or set "
            "GLASSBOX_DEPYF_PATH to a directory holding depyf, astor and dill"
        )
        return 0
    started = time.perf_counter()
    depyf_seconds, timeouts, errors = time_depyf(functions, depyf, args.timeout)
    done = [k for k, s in enumerate(depyf_seconds) if s is not None]
    if not done:
        print("depyf: finished no function")
        return 0
    depyf_done = [depyf_seconds[k] for k in done]
    print(
        f"depyf              median {us(statistics.median(depyf_done))}   "
        f"mean {us(statistics.mean(depyf_done))}   total {sum(depyf_done) * 1e3:9.2f} ms   "
        f"({len(done)} finished, {errors} errors, {timeouts} timeouts of {args.timeout:g} s; "
        f"{time.perf_counter() - started:.1f} s wall)"
    )
    depyf_total = sum(depyf_done)
    print(f"on the {len(done)} functions depyf finished (depyf total {depyf_total * 1e3:.2f} ms):")
    for label, seconds in (("glassbox.decompile", api), ("glassbox in C++", native)):
        mine = [seconds[k] for k in done]
        print(
            f"  {label:18} total {sum(mine) * 1e3:8.2f} ms, ratio {depyf_total / sum(mine):.0f}x; "
            f"median ratio {statistics.median(depyf_done) / statistics.median(mine):.0f}x"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
