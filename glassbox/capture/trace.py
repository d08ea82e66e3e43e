"""What Dynamo, AOTAutograd and Inductor log through PyTorch's structured trace, by compile id.

Structured tracing (``torch._logging.trace_structured``) is switched on by a handler on the
``torch.__trace`` logger; while capture's handler is attached, the records it keeps (see
:func:`keeps`) arrive here with their compile id (frame id / frame compile id) and payload (graph
code, output code, metrics, graph-break reasons). A :class:`~glassbox.capture.trace_filter.
TraceFilter` stops torch from building the other records at all, and hands the kept ones to
:meth:`TraceCollector.deliver` directly while no other handler listens; the handler files the
records that come through ``logging`` (another handler attached, a binding the filter missed).
Both paths file the same thing.
"""

from __future__ import annotations

import json
import keyword
import logging
import re
from dataclasses import dataclass, field

from glassbox.capture.trace_filter import TraceFilter

TRACE_LOGGER = "torch.__trace"

# Structured-trace records kept, and the dump file each becomes.
GRAPH_FILES = {
    "dynamo_output_graph": "dynamo_graph.py",
    "aot_joint_graph": "aot_joint_graph.py",
    "aot_forward_graph": "aot_forward_graph.py",
    "aot_backward_graph": "aot_backward_graph.py",
    "aot_inference_graph": "aot_inference_graph.py",
    "inductor_post_grad_graph": "inductor_post_grad_graph.py",
    "inductor_output_code": "inductor_output_code.py",
}
METRICS = "compilation_metrics"
# The fields of a compilation_metrics record the index reads; the collector keeps only these.
METRIC_FIELDS = (
    "entire_frame_compile_time_s",
    "duration_us",
    "recompile_reason",
    "graph_op_count",
    "co_name",
    "co_filename",
    "co_firstlineno",
    "fail_reason",
)
GRAPH_BREAK_ARTIFACT = "dynamo_graph_break_reason"
_KEPT_NAMES = frozenset([*GRAPH_FILES, METRICS])


_CLASS_LINE = re.compile(r"^(?P<indent>[ \t]*)class (?P<name>[^\s(:]+)(?P<rest>[(:])", re.MULTILINE)


def valid_class_names(code: str) -> str:
    """Graph code with each class name made an identifier: torch names the graph module of a
    lambda ``<lambda>`` (``class <lambda>(torch.nn.Module):`` is not Python)."""

    def rename(match: re.Match) -> str:
        name = match["name"]
        if name.isidentifier():
            return match[0]
        fixed = "".join(c if c.isalnum() or c == "_" else "_" for c in name)
        fixed = fixed if fixed.isidentifier() else "_" + fixed
        fixed = fixed + "_" if keyword.iskeyword(fixed) else fixed
        return f"{match['indent']}class {fixed}{match['rest']}"

    return _CLASS_LINE.sub(rename, code)


def keeps(name: str, metadata_fn) -> bool:
    """Whether :meth:`TraceCollector._file` uses a record named ``name``: the structured-trace
    filter asks before torch builds the record."""
    if name in _KEPT_NAMES:
        return True
    if name != "artifact":
        return False
    metadata = metadata_fn()
    return isinstance(metadata, dict) and metadata.get("name") == GRAPH_BREAK_ARTIFACT


def compile_id_of(record: dict) -> str | None:
    if "frame_id" not in record:
        return None
    return f"{record['frame_id']}/{record.get('frame_compile_id', 0)}"


def _context(suppress_context: bool, compile_id) -> dict:
    """The compile-id fields torch's ``trace_structured`` puts in a record (those capture reads)."""
    if suppress_context:
        return {}
    from torch._guards import CompileContext

    trace_id = CompileContext.current_trace_id()
    cid = trace_id.compile_id if trace_id else compile_id
    context = {}
    if cid is not None:
        if cid.frame_id is not None:
            context["frame_id"] = cid.frame_id
        if cid.frame_compile_id is not None:
            context["frame_compile_id"] = cid.frame_compile_id
    if trace_id:
        context["attempt"] = trace_id.attempt
    return context


def _payload_text(payload: object) -> str | None:
    """A record's payload as torch's ``trace_structured`` logs it (non-strings as JSON)."""
    if payload is None or isinstance(payload, str):
        return payload
    if isinstance(payload, list):
        return "[\n" + ",\n".join(json.dumps(i) for i in payload) + "\n]"
    return json.dumps(payload, default=_json_default, indent=0)


def _json_default(value: object) -> object:
    if isinstance(value, set):  # as torch's: sets become lists, anything else is an error
        return list(value)
    raise TypeError(f"Object of type {type(value)} is not JSON serializable")


def _metric_fields(metrics: dict) -> dict:
    return {key: metrics.get(key) for key in METRIC_FIELDS}


def _metrics_metadata(metadata_fn) -> dict:
    """A compilation_metrics record's fields the index reads, without calling ``metadata_fn``
    when it closes over the ``CompilationMetrics`` (torch's ``dataclasses.asdict`` of it copies
    every field deeply, a third of a millisecond a compile)."""
    for cell in getattr(metadata_fn, "__closure__", None) or ():
        value = cell.cell_contents
        if type(value).__name__ == "CompilationMetrics":
            return {key: getattr(value, key, None) for key in METRIC_FIELDS}
    return _metric_fields(metadata_fn())


def _metadata(name: str, metadata_fn) -> object:
    """The metadata of a kept record, as far as :meth:`TraceCollector._file` reads it: that of
    a graph record is not read (only Inductor's output code names its file)."""
    if name == METRICS:
        return _metrics_metadata(metadata_fn)
    if name in GRAPH_FILES and name != "inductor_output_code":
        return {}  # Dynamo's graph would describe every node's sizes
    return metadata_fn()


@dataclass
class CompileRecords:
    """Everything the trace said about one compile id."""

    attempt: int = 0
    graphs: dict[str, str] = field(default_factory=dict)  # record name -> payload
    graph_break_reasons: list[str] = field(default_factory=list)
    metrics: dict = field(default_factory=dict)
    inductor_paths: list[str] = field(default_factory=list)


class TraceCollector(logging.Handler):
    """A logging handler that files structured-trace records under their compile id.

    ``on_graph(compile_id, name, payload)`` is called for each graph or output code as it arrives,
    so the dump grows while the program runs.
    """

    def __init__(self, on_graph) -> None:
        super().__init__(level=logging.DEBUG)
        self.on_graph = on_graph
        self.compiles: dict[str, CompileRecords] = {}
        self.errors: list[str] = []
        self._saved_level: int | None = None
        self._filter = TraceFilter(keeps, self, logging.getLogger(TRACE_LOGGER), self.deliver)

    def _records(self, compile_id: str, attempt: int) -> CompileRecords:
        records = self.compiles.setdefault(compile_id, CompileRecords(attempt))
        if attempt > records.attempt:  # Dynamo restarted the analysis: the earlier one is void
            records.graphs.clear()
            records.attempt = attempt
        return records

    def emit(self, record: logging.LogRecord) -> None:  # noqa: D102 - logging API
        try:
            self._file(getattr(record, "metadata", None), getattr(record, "payload", None))
        except Exception as error:  # never let capture break the compile
            self.errors.append(repr(error))

    def deliver(
        self,
        name: str,
        metadata_fn=dict,
        *,
        payload_fn=lambda: None,
        suppress_context: bool = False,
        compile_id=None,
        **_unused,
    ) -> None:
        """A kept record, straight from the trace filter: filed as :meth:`emit` files the log
        record torch would have built from the same arguments."""
        try:
            meta = _context(suppress_context, compile_id)
            if "frame_id" not in meta:
                return  # no compile id: nothing filed (metadata and payload are not built)
            meta[name] = _metadata(name, metadata_fn)
            self._file(meta, _payload_text(payload_fn()))
        except Exception as error:  # never let capture break the compile
            self.errors.append(repr(error))

    def _file(self, meta: object, payload: str | None) -> None:
        if not isinstance(meta, dict):
            return
        compile_id = compile_id_of(meta)
        if compile_id is None:
            return
        attempt = meta.get("attempt", 0) or 0
        for name in GRAPH_FILES:
            if name in meta and payload:
                if name != "inductor_output_code":
                    payload = valid_class_names(payload)
                self._records(compile_id, attempt).graphs[name] = payload
                if name == "inductor_output_code":
                    path = (meta[name] or {}).get("filename")
                    if path:
                        self._records(compile_id, attempt).inductor_paths.append(path)
                self.on_graph(compile_id, name, payload)
                return
        if METRICS in meta:
            self.compiles.setdefault(compile_id, CompileRecords(attempt)).metrics = _metric_fields(
                meta[METRICS]
            )
        elif "artifact" in meta and meta["artifact"].get("name") == GRAPH_BREAK_ARTIFACT:
            if payload:
                reasons = self.compiles.setdefault(compile_id, CompileRecords(attempt))
                reasons.graph_break_reasons.append(payload)

    def attach(self) -> None:
        logger = logging.getLogger(TRACE_LOGGER)
        self._saved_level, self._saved_propagate = logger.level, logger.propagate
        if logger.level != logging.DEBUG:  # torch sets it already; setLevel clears every cache
            logger.setLevel(logging.DEBUG)
        logger.propagate = False  # trace records are for capture, not for the program's logs
        logger.addHandler(self)
        self._filter.install()

    def detach(self) -> None:
        self._filter.remove()
        logger = logging.getLogger(TRACE_LOGGER)
        logger.removeHandler(self)
        if self._saved_level is not None:
            if logger.level != self._saved_level:
                logger.setLevel(self._saved_level)
            logger.propagate = self._saved_propagate
