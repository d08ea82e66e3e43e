"""The structured-trace filter: torch builds only the records capture keeps, and only inside."""

from __future__ import annotations

import contextlib
import gc
import json
import logging
import re
import sys
import types
import weakref
from pathlib import Path

import torch
import torch._logging._internal as trace_internal

import glassbox
from glassbox.capture.trace import TRACE_LOGGER, keeps
from glassbox.capture.trace_filter import NAME

sys.path.insert(0, str(Path(__file__).parent))
from capture_zoo import make  # noqa: E402

ORIGINAL = trace_internal.trace_structured


@contextlib.contextmanager
def only_capture_traces():
    """No other handler on torch.__trace while the test body runs (pytest attaches its own to
    non-propagating loggers for each test phase, torch a LazyTraceHandler until the first
    record): the filter then drops records."""
    logger = logging.getLogger(TRACE_LOGGER)
    saved = logger.handlers
    logger.handlers = []
    try:
        yield
    finally:
        logger.handlers = saved


def _modules_binding(value) -> list[str]:
    return [
        name
        for name, module in list(sys.modules.items())
        if isinstance(getattr(module, "__dict__", None), dict)
        and module.__dict__.get(NAME) is value
    ]


class _Spy:
    """A payload function that remembers whether torch called it."""

    def __init__(self) -> None:
        self.called = False

    def __call__(self) -> str:
        self.called = True
        return "payload"


def _artifact(name: str):
    return lambda: {"name": name, "encoding": "string"}


def test_keeps_what_the_collector_files():
    assert keeps("dynamo_output_graph", dict) and keeps("inductor_output_code", dict)
    assert keeps("compilation_metrics", dict)
    assert keeps("artifact", _artifact("dynamo_graph_break_reason"))
    assert not keeps("artifact", _artifact("fx_graph_runnable"))
    assert not keeps("dynamo_guards", dict) and not keeps("bwd_compilation_metrics", dict)


def test_records_capture_does_not_keep_are_not_built(tmp_path):
    from torch._guards import CompileId

    dropped, kept, no_id = _Spy(), _Spy(), _Spy()
    reason = _artifact("dynamo_graph_break_reason")
    with only_capture_traces(), glassbox.capture(tmp_path) as cap:
        torch._logging.trace_structured("dynamo_guards", payload_fn=dropped)
        torch._logging.trace_structured(
            "artifact",
            reason,
            payload_fn=kept,
            compile_id=CompileId(frame_id=7, frame_compile_id=1),
        )
        torch._logging.trace_structured("artifact", reason, payload_fn=no_id)  # no compile id
    assert not dropped.called and kept.called and not no_id.called  # nothing to file it under
    assert cap.collector.compiles["7/1"].graph_break_reasons == ["payload"]


def test_the_dump_is_whole_with_the_filter(tmp_path):
    model, x = make("break_print")
    with only_capture_traces(), glassbox.capture(tmp_path):
        torch.compile(model, backend="aot_eager")(x)
    index = json.loads((tmp_path / "index.json").read_text())
    first = index["functions"][0]["compiles"][0]
    assert first["graph_break_reasons"] and first["compile_time_s"] is not None
    for function in index["functions"]:
        for entry in function["compiles"]:
            graphs = {p.split("/")[-1] for p in entry["files"]}
            assert {"dynamo_graph.py", "aot_forward_graph.py", "aot_backward_graph.py"} <= graphs


def test_every_binding_is_filtered_inside_and_restored_after(tmp_path):
    import torch._inductor.graph  # noqa: F401 - binds the name by `from ... import`

    holders = _modules_binding(ORIGINAL)
    assert "torch._logging" in holders and "torch._logging._internal" in holders
    assert "torch._inductor.graph" in holders  # `from torch._logging import trace_structured`
    with glassbox.capture(tmp_path):
        assert _modules_binding(ORIGINAL) == []
        filtered = torch._logging.trace_structured
        assert filtered is not ORIGINAL and filtered.__wrapped__ is ORIGINAL
        # a module imported inside the block binds the filter...
        late = types.ModuleType("glassbox_test_late_import")
        late.trace_structured = torch._logging.trace_structured
        sys.modules[late.__name__] = late
    try:
        # ...and gets the original back on exit, like every other module
        assert late.trace_structured is ORIGINAL
        assert _modules_binding(filtered) == []
        assert sorted(_modules_binding(ORIGINAL)) == sorted(holders + [late.__name__])
    finally:
        del sys.modules[late.__name__]


def test_a_binding_left_after_exit_is_torch_own_and_holds_nothing(tmp_path):
    with glassbox.capture(tmp_path) as cap:
        filtered = torch._logging.trace_structured
    collector = weakref.ref(cap.collector)
    del cap
    gc.collect()
    assert collector() is None
    spy = _Spy()
    with only_capture_traces():
        logger = logging.getLogger(TRACE_LOGGER)
        handler = logging.NullHandler()
        logger.addHandler(handler)
        try:
            filtered("dynamo_guards", payload_fn=spy)  # passes to the original, which builds it
        finally:
            logger.removeHandler(handler)
    assert spy.called


def test_another_trace_handler_gets_every_record(tmp_path):
    """With TORCH_TRACE (another handler on torch.__trace), the trace stays whole."""
    names: list[str] = []

    class Other(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            names.extend(k for k in record.metadata if k not in ("frame_id", "frame_compile_id"))

    logger = logging.getLogger(TRACE_LOGGER)
    other = Other()
    logger.addHandler(other)
    try:
        model, x = make("mlp")
        with glassbox.capture(tmp_path / "d"):
            torch.compile(model, backend="eager")(x)
    finally:
        logger.removeHandler(other)
    assert "dynamo_output_graph" in names
    assert any(not keeps(name, dict) for name in names if name != "artifact"), names
    assert (tmp_path / "d" / "index.json").exists()


def _graphs_and_index(dump: Path) -> tuple[dict[str, str], list]:
    """The graph files by path, and per compile what the index says but for the compile time and
    the resume functions' names (a counter of the process), and with Dynamo's compiled
    functions unnamed in the reasons (their names hold a counter and a uuid)."""
    graphs = {str(p.relative_to(dump)): p.read_text() for p in dump.glob("compile_*/*_graph.py")}
    index = json.loads((dump / "index.json").read_text())
    compiles = [
        {k: v for k, v in entry.items() if k not in ("compile_time_s", "resume_functions")}
        for function in index["functions"]
        for entry in function["compiles"]
    ]
    for entry in compiles:
        why = entry["why_original_runs"] or ""
        entry["why_original_runs"] = re.sub(r"__compiled_fn_\w+", "__compiled_fn", why)
    return graphs, compiles


def test_delivered_records_file_what_the_handler_files(tmp_path):
    """Kept records go straight to the collector when capture's handler is alone; what it files
    is what the same records filed through logging (another handler attached) give."""
    logger = logging.getLogger(TRACE_LOGGER)
    captures = []
    with only_capture_traces():
        for way in ("direct", "logged"):  # one call site: the graph breaks' tracebacks are equal
            if way == "logged":
                logger.addHandler(logging.NullHandler())
            torch._dynamo.reset()
            model, x = make("break_print")
            with glassbox.capture(tmp_path / way) as capture:
                torch.compile(model, backend="aot_eager")(x)
            captures.append(capture)
    graphs, compiles = _graphs_and_index(tmp_path / "direct")
    assert graphs and compiles[0]["graph_break_reasons"]
    assert (graphs, compiles) == _graphs_and_index(tmp_path / "logged")
    metrics = [[r.metrics for r in capture.collector.compiles.values()] for capture in captures]
    assert all(m["entire_frame_compile_time_s"] is not None for m in metrics[0] + metrics[1])
    counts = [[m["graph_op_count"] for m in each] for each in metrics]
    assert counts[0] == counts[1] and all(counts[0])


def test_metrics_are_read_from_torch_record_without_copying_it(tmp_path, monkeypatch):
    """compilation_metrics: the fields the index reads, taken from the CompilationMetrics torch's
    metadata function closes over, equal what that function (a deep copy) gives."""
    from glassbox.capture import trace

    seen = []
    deliver = trace.TraceCollector.deliver

    def spy(self, name, metadata_fn=dict, **kwargs):
        if name == trace.METRICS:
            seen.append((trace._metrics_metadata(metadata_fn), metadata_fn))
        return deliver(self, name, metadata_fn, **kwargs)

    monkeypatch.setattr(trace.TraceCollector, "deliver", spy)
    model, x = make("mlp")
    with only_capture_traces(), glassbox.capture(tmp_path):
        torch.compile(model, backend="eager")(x)
    assert seen
    for fields, metadata_fn in seen:
        assert fields == trace._metric_fields(metadata_fn())
        assert fields["co_name"] == "forward" and fields["graph_op_count"]

    calls = []

    def not_torch():
        calls.append(1)
        return {"co_name": "f", "extra": 1}

    assert trace._metrics_metadata(not_torch)["co_name"] == "f" and calls  # no closure: called


def test_graph_metadata_is_built_only_where_it_is_read(tmp_path):
    """Delivered graph records: the graph file is written without building the record's
    metadata (Dynamo's describes every node's sizes); Inductor's output code still names its
    file in it."""
    from torch._guards import CompileId

    graph_meta, code_meta = _Spy(), _Spy()

    def code_metadata():
        code_meta()
        return {"filename": "/tmp/output_code.py"}

    cid = CompileId(frame_id=3, frame_compile_id=0)
    with only_capture_traces(), glassbox.capture(tmp_path) as cap:
        torch._logging.trace_structured(
            "dynamo_output_graph", graph_meta, payload_fn=lambda: "class G: pass\n", compile_id=cid
        )
        torch._logging.trace_structured(
            "inductor_output_code", code_metadata, payload_fn=lambda: "# code\n", compile_id=cid
        )
    assert not graph_meta.called and code_meta.called
    assert "class G: pass" in (tmp_path / "compile_3_0" / "dynamo_graph.py").read_text()
    assert cap.collector.compiles["3/0"].inductor_paths == ["/tmp/output_code.py"]
