"""Running a construct's code and recording what it does, the same way under every interpreter.

Stdlib only and valid Python 3.10: the cross-version worker imports this module under each
judging interpreter (3.10 to 3.13) as well as the test process.

An *outcome* is plain data that two runs agree on exactly when they behaved the same: the value
returned (or each value yielded, sent and returned by a generator or coroutine), the exception
raised (its type, its args, its cause and context, the exceptions of a group), and the side
effects the code made through the prelude's helpers, in order.
"""

from __future__ import annotations

import contextlib
import signal
import types

# Exec'd into every namespace before the construct's own source: the helpers that record side
# effects into LOG. The original and the decompiled code each get a fresh namespace of their own.
PRELUDE = '''
LOG = []


def rec(*items):
    """Record a side effect; returns its last item, so it can sit inside an expression."""
    LOG.append(items)
    return items[-1] if items else None


def peek(name):
    return globals().get(name, "<unset>")


class CM:
    """A context manager that records entering and leaving; ``suppress`` swallows exceptions."""

    def __init__(self, name, suppress=False):
        self.name = name
        self.suppress = suppress

    def __enter__(self):
        LOG.append(("enter", self.name))
        return self.name.upper()

    def __exit__(self, kind, value, traceback):
        LOG.append(("exit", self.name, kind.__name__ if kind else None))
        return self.suppress


class ACM(CM):
    async def __aenter__(self):
        await Ready("aenter " + self.name)
        return self.__enter__()

    async def __aexit__(self, kind, value, traceback):
        await Ready("aexit " + self.name)
        return self.__exit__(kind, value, traceback)


class Ready:
    """An awaitable that hands its value to whoever drives the coroutine, and returns what the
    driver sends back with it."""

    def __init__(self, value):
        self.value = value

    def __await__(self):
        sent = yield ("await", self.value)
        return (self.value, sent)


class AIter:
    """An async iterator over ``items`` that awaits before each one."""

    def __init__(self, items):
        self.items = list(items)

    def __aiter__(self):
        return self

    async def __anext__(self):
        if not self.items:
            raise StopAsyncIteration
        item = self.items.pop(0)
        await Ready(("next", item))
        return item


class Point:
    __match_args__ = ("x", "y")

    def __init__(self, x, y):
        self.x = x
        self.y = y
'''


class Overtime(BaseException):
    """Raised by a watchdog alarm: wrongly decompiled code may loop forever. Never recorded."""


def _overtime(signum, frame):
    raise Overtime


@contextlib.contextmanager
def watchdog(seconds: int = 5):
    """Stops the code run inside after ``seconds`` with :class:`Overtime` (main thread only)."""
    previous = signal.signal(signal.SIGALRM, _overtime)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


PRELUDE_CODE = compile(PRELUDE, "<prelude>", "exec", dont_inherit=True)
MAX_STEPS = 200


def fresh_namespace(name: str = "case") -> dict:
    namespace = {"__name__": name}
    exec(PRELUDE_CODE, namespace)
    return namespace


def plain(value, depth: int = 0):
    """``value`` as data that compares by what it is, not by identity."""
    if depth > 8:
        return repr(value)
    if isinstance(value, BaseException):
        return exception_summary(value, depth + 1)
    if isinstance(value, (list, tuple)):
        return (type(value).__name__, [plain(item, depth + 1) for item in value])
    if isinstance(value, dict):
        return ("dict", [(plain(k, depth + 1), plain(v, depth + 1)) for k, v in value.items()])
    if isinstance(value, (set, frozenset)):
        return (type(value).__name__, sorted(repr(plain(item, depth + 1)) for item in value))
    if isinstance(value, (types.FunctionType, type, types.ModuleType)):
        return (type(value).__name__, getattr(value, "__qualname__", value.__name__))
    if isinstance(value, (types.GeneratorType, types.CoroutineType)):
        return (type(value).__name__, value.__qualname__)
    if value is None or isinstance(value, (bool, int, float, complex, str, bytes)):
        return value
    return ("object", type(value).__qualname__, repr(value) if _has_own_repr(value) else None)


def _has_own_repr(value) -> bool:
    return type(value).__repr__ is not object.__repr__


def exception_summary(error: BaseException, depth: int = 0):
    return (
        "exception",
        type(error).__qualname__,
        [plain(arg, depth + 1) for arg in error.args],
        exception_summary(error.__cause__, depth + 1) if error.__cause__ else None,
        type(error.__context__).__qualname__ if error.__context__ else None,
        error.__suppress_context__,
        [exception_summary(e, depth + 1) for e in getattr(error, "exceptions", ())],
    )


def drive(iterator, sends) -> list:
    """Steps a generator or coroutine: ``send(None)`` first, then each of ``sends`` (an
    exception instance is thrown in instead), then ``send(None)`` until it finishes."""
    steps = []
    pending = [None, *sends]
    for _ in range(MAX_STEPS):
        value = pending.pop(0) if pending else None
        try:
            if isinstance(value, BaseException):
                got = iterator.throw(value)
            else:
                got = iterator.send(value)
        except StopIteration as stop:
            steps.append(("return", plain(stop.value)))
            return steps
        except Overtime:
            raise
        except BaseException as error:  # noqa: B036 - recording every exception is the point
            steps.append(("raise", exception_summary(error)))
            return steps
        steps.append(("yield", plain(got)))
    steps.append(("unfinished",))
    iterator.close()
    return steps


async def _collect_async(agen, sends):
    items = []
    pending = list(sends)
    for _ in range(MAX_STEPS):
        try:
            items.append(await agen.asend(pending.pop(0) if pending else None))
        except StopAsyncIteration:
            items.append("stop")
            return items
    return items


def call_outcome(namespace: dict, function, args: tuple, sends=()) -> tuple:
    """What calling ``function(*args)`` did: its result (driven to the end if it is a generator,
    coroutine or async generator) and the side effects recorded in ``namespace["LOG"]``."""
    log = namespace["LOG"]
    log.clear()
    try:
        result = function(*args)
        if isinstance(result, (types.GeneratorType, types.CoroutineType)):
            outcome = ("steps", drive(result, sends))
        elif isinstance(result, types.AsyncGeneratorType):
            outcome = ("steps", drive(_collect_async(result, sends), ()))
        else:
            outcome = ("return", plain(result))
    except Overtime:
        raise
    except BaseException as error:  # noqa: B036
        outcome = ("raise", exception_summary(error))
    return outcome, [plain(entry) for entry in log]


def module_outcome(namespace: dict, code) -> tuple:
    """What running a module's code did: its exception, its side effects and the names it
    bound (with their values as plain data)."""
    before = set(namespace)
    log = namespace["LOG"]
    log.clear()
    try:
        exec(code, namespace)
        raised = None
    except Overtime:
        raise
    except BaseException as error:  # noqa: B036
        raised = exception_summary(error)
    bound = sorted(name for name in namespace if name not in before or name == "f")
    return raised, [plain(entry) for entry in log], [(n, plain(namespace[n])) for n in bound]


def outcomes(namespace: dict, case, function=None) -> list:
    """The outcome of each of ``case``'s inputs, called on ``function`` (``namespace``'s entry
    function by default)."""
    function = function if function is not None else namespace.get(case.entry)
    return [call_outcome(namespace, function, tuple(args), case.sends) for args in case.inputs]
