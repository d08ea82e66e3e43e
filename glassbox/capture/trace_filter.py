"""Structured tracing narrowed to the records capture keeps.

Once any handler is attached to the ``torch.__trace`` logger, ``torch._logging.trace_structured``
builds every record: it calls each metadata and payload function (guard trees dumped, fake tensors
described, metrics and JSON encoded, graphs printed), hashes the payload and goes through logging.
Over the capture zoo that was about two thirds of capture's extra compile time, nearly all of it
for records capture never reads.

While a :class:`TraceFilter` is installed, every binding of ``trace_structured`` (that of
``torch._logging``, of ``torch._logging._internal``, which ``trace_structured_artifact`` calls,
and of each loaded module that imported the name) is replaced by a function that asks
``keep(name, metadata_fn)`` first: a record capture does not keep is not built at all, and one it
keeps goes straight to ``deliver`` (the collector builds from it only what it files) instead of
through torch's record building and ``logging`` (a log record with its caller found on the stack,
an md5 of the payload: a tenth of capture's extra time). A binding the filter misses still calls
the original, whose record reaches capture's handler, as without the filter. ``remove`` puts the
original back everywhere, in modules imported during the block too, and turns the filter into a
plain call of the original wherever it might still be bound. When any other handler is attached
(``TORCH_TRACE``, pytest's), every record goes to the original, so that trace stays whole and
capture gets its records through its handler.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Callable
from typing import Any

Keep = Callable[[str, Callable[[], Any]], bool]
Deliver = Callable[..., None]  # (name, metadata_fn, **trace_structured's keyword arguments)
NAME = "trace_structured"

# What the filter does with a record: ``route``'s answers.
PASS, DROP, DELIVER = "pass", "drop", "deliver"

# Names of the modules already looked at, and the namespaces among them that hold a global
# ``trace_structured``: kept for the process, so that each capture looks only at modules imported
# since the last look, and not at all while sys.modules has the size it had then (a pass over
# every module costs a millisecond or more after a compile). A module missed this way (imported
# again under a name already seen, or while another left) keeps calling the original, which the
# handler still serves, or, after exit, a filter that is the original's plain call.
_seen: set[str] = set()
_holders: list[dict] = []
_modules_when_seen = 0


def _holder_namespaces() -> list[dict]:
    global _modules_when_seen
    modules = sys.modules
    if len(modules) != _modules_when_seen:
        for name in modules.keys() - _seen:
            _seen.add(name)
            namespace = getattr(modules.get(name), "__dict__", None)  # not getattr(module, NAME)
            if isinstance(namespace, dict) and NAME in namespace:
                _holders.append(namespace)
        _modules_when_seen = len(modules)
    return _holders


def _rebind(old: object, new: object) -> None:
    for namespace in _holder_namespaces():
        if namespace.get(NAME) is old:
            namespace[NAME] = new


class TraceFilter:
    """Replaces ``trace_structured`` while installed; see the module's docstring."""

    def __init__(
        self, keep: Keep, handler: logging.Handler, logger: logging.Logger, deliver: Deliver
    ) -> None:
        self.keep = keep
        self.handler = handler  # capture's own handler: any other one means "pass everything"
        self.logger = logger
        self.deliver = deliver
        self.original: Callable[..., None] | None = None
        self.filtered: Callable[..., None] | None = None
        self._active: list[TraceFilter] = []  # [self] while installed; read by the filter

    def install(self) -> None:
        import torch._logging._internal as internal

        original = self.original = internal.trace_structured
        self._active[:] = [self]
        active = self._active

        def trace_structured(name: str, metadata_fn: Callable[[], Any] = dict, **kwargs) -> None:
            # once removed (``active`` empty), a binding left somewhere is torch's own function
            route = active[0].route(name, metadata_fn) if active else PASS
            if route is DELIVER:
                active[0].deliver(name, metadata_fn, **kwargs)
            elif route is PASS:
                original(name, metadata_fn, **kwargs)

        trace_structured.__wrapped__ = original  # type: ignore[attr-defined]
        self.filtered = trace_structured
        _rebind(original, trace_structured)

    def route(self, name: str, metadata_fn: Callable[[], Any]) -> str:
        """PASS to torch when another handler listens; else DELIVER what capture keeps, DROP the
        rest (torch need not build it)."""
        try:
            handlers = self.logger.handlers
            if len(handlers) != 1 or handlers[0] is not self.handler:
                return PASS
            return DELIVER if self.keep(name, metadata_fn) else DROP
        except Exception:  # never break a compile: let torch build the record
            return PASS

    def remove(self) -> None:
        """Puts the original back, also where a module imported during the block bound the
        filter (``from torch._logging import trace_structured``)."""
        self._active.clear()
        if self.filtered is not None:
            _rebind(self.filtered, self.original)
            self.filtered = None
