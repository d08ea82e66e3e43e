"""Structured tracing narrowed to the records capture keeps.

Once any handler is attached to the ``torch.__trace`` logger, ``torch._logging.trace_structured``
builds every record: it calls each metadata and payload function (guard trees dumped, fake tensors
described, metrics and JSON encoded, graphs printed), hashes the payload and goes through logging.
Over the capture zoo that was about two thirds of capture's extra compile time, nearly all of it
for records capture never reads.

While a :class:`TraceFilter` is installed, every binding of ``trace_structured`` (that of
``torch._logging``, of ``torch._logging._internal``, which ``trace_structured_artifact`` calls,
and of each loaded module that imported the name) is replaced by a function that asks
``keep(name, metadata_fn)`` first and calls the original only for records kept, so nothing else
is built. The handler stays the one
way records reach capture: a binding made during the block from ``torch._logging._internal``
directly still calls the original, which then builds everything, as before. ``remove`` puts the
original back everywhere, in modules imported during the block too. When any other handler is
attached (``TORCH_TRACE``), every record passes, so that trace stays whole.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Callable
from typing import Any

Keep = Callable[[str, Callable[[], Any]], bool]
NAME = "trace_structured"


# Modules already looked at (name -> module), and the namespaces among them that hold a
# ``trace_structured``: kept for the process, so each capture looks only at modules new since the
# last one (a full pass over sys.modules costs about half a millisecond).
_seen: dict[str, object] = {}
_holders: list[dict] = []


def _holder_namespaces() -> list[dict]:
    """The namespaces of loaded modules that hold a global named ``trace_structured``."""
    for name, module in list(sys.modules.items()):
        if _seen.get(name) is module:
            continue
        _seen[name] = module
        namespace = getattr(module, "__dict__", None)  # not getattr(module, NAME): lazy modules
        if isinstance(namespace, dict) and NAME in namespace:
            _holders.append(namespace)
    return _holders


def _rebind(old: object, new: object) -> None:
    for namespace in _holder_namespaces():
        if namespace.get(NAME) is old:
            namespace[NAME] = new


class TraceFilter:
    """Replaces ``trace_structured`` while installed; see the module's docstring."""

    def __init__(self, keep: Keep, handler: logging.Handler, logger: logging.Logger) -> None:
        self.keep = keep
        self.handler = handler  # capture's own handler: any other one means "pass everything"
        self.logger = logger
        self.original: Callable[..., None] | None = None
        self.filtered: Callable[..., None] | None = None

    def install(self) -> None:
        import torch._logging._internal as internal

        original = self.original = internal.trace_structured
        logger, ours, keep = self.logger, self.handler, self.keep

        def trace_structured(name: str, metadata_fn: Callable[[], Any] = dict, **kwargs) -> None:
            try:
                kept = any(h is not ours for h in logger.handlers) or keep(name, metadata_fn)
            except Exception:  # never break a compile: let torch build the record
                kept = True
            if kept:
                original(name, metadata_fn, **kwargs)

        trace_structured.__wrapped__ = original  # type: ignore[attr-defined]
        self.filtered = trace_structured
        _rebind(original, trace_structured)

    def remove(self) -> None:
        """Puts the original back, also where a module imported during the block bound the
        filter (``from torch._logging import trace_structured``)."""
        if self.filtered is not None:
            _rebind(self.filtered, self.original)
            self.filtered = None
