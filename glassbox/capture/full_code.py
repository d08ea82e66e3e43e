"""One ``full_code_for_<function>.py`` per compiled function: everything in one runnable file.

The file holds, for each cache entry: its guard function, Dynamo's graph (as a class), and the
transformed code (the verified decompiled source, or its listing in comments). A dispatcher picks
the entry whose guard passes, in the order Dynamo tries them. Running the file defines all this;
``dispatch(L, G)`` answers for a frame's locals and globals.
"""

from __future__ import annotations

import re

from glassbox.capture.guards import conditions_of, guard_body, guard_function
from glassbox.capture.records import FrameRecord, compile_dir

_GRAPH_CLASS = re.compile(r"^class (\w+)\(torch\.nn\.Module\):", re.MULTILINE)


def _ident(compile_id: str) -> str:
    return compile_id.replace("/", "_")


def _indent(text: str, prefix: str = "    ") -> str:
    return "".join(prefix + line if line.strip() else line for line in text.splitlines(True))


def _graph_section(payload: str, class_name: str) -> str:
    renamed, count = _GRAPH_CLASS.subn(f"class {class_name}(torch.nn.Module):", payload, count=1)
    if count == 0:
        return _indent(payload, "# ") + "\n"
    try:
        compile(renamed, class_name, "exec")
    except SyntaxError:
        return _indent(payload, "# ") + "\n"
    return renamed.rstrip() + "\n"


def _transformed_section(entry, ident: str) -> str:
    if entry.runs_from_dump:
        body = "\n".join(line for line in entry.source.splitlines() if not line.startswith("# "))
        return (
            f"def _define_transformed_{ident}():\n"
            + _indent(body.strip() + "\n")
            + f"    return {entry.transformed.co_name}\n\n\n"
            f"transformed_{ident} = _define_transformed_{ident}()\n"
        )
    return (
        f"# transformed code of compile {entry.compile_id} (original bytecode runs: "
        f"{entry.why_not}); see {entry.transformed_file}\n"
        f"transformed_{ident} = None\n"
    )


def _entry_order(frame: FrameRecord) -> list:
    """Entries in the order Dynamo checks them (its cache entry list), else newest first."""
    by_id = {entry.compile_id: entry for entry in frame.entries}
    order = []
    try:
        from torch._C._dynamo.eval_frame import _debug_get_cache_entry_list

        for cache_entry in _debug_get_cache_entry_list(frame.original):
            entry = by_id.get(str(cache_entry.compile_id))
            if entry is not None:
                order.append((entry, cache_entry.guard_manager))
    except Exception:
        pass
    listed = {id(entry) for entry, _ in order}
    order += [(entry, None) for entry in reversed(frame.entries) if id(entry) not in listed]
    return order


def render_full_code(frame: FrameRecord, compiles: dict) -> str:
    parts = [
        f"# Everything torch.compile made of {frame.name} ({frame.where}).\n"
        "# For each cache entry, in the order Dynamo tries them: guard, graph, transformed code.\n"
        "import math  # noqa: F401\n\nimport torch  # noqa: F401\n"
        "from torch import device  # noqa: F401\n\n"
        "from glassbox.capture.guard_runtime import *  # noqa: F403\n\n"
    ]
    table = []
    for entry, guard_manager in _entry_order(frame):
        ident = _ident(entry.compile_id)
        parts.append(f"\n# ==== compile {entry.compile_id}  ({compile_dir(entry.compile_id)}/)\n\n")
        if guard_manager is not None:
            body = entry.guard_body  # made with the guards file, from the same conditions
            if body is None:
                body = guard_body(entry.conditions or conditions_of(guard_manager))
            parts.append(guard_function(body, f"guard_{ident}"))
            guard_name = f"guard_{ident}"
        else:
            parts.append(f"# no cache entry left for compile {entry.compile_id}\n")
            guard_name = "None"
        graph = compiles.get(entry.compile_id)
        if graph is not None and "dynamo_output_graph" in graph.graphs:
            parts.append(
                "\n\n" + _graph_section(graph.graphs["dynamo_output_graph"], f"Graph_{ident}")
            )
        parts.append("\n\n" + _transformed_section(entry, ident))
        table.append(f"    ({entry.compile_id!r}, {guard_name}, transformed_{ident}),\n")
    parts.append(
        "\n\n# (compile id, guard, transformed function or None), in the order Dynamo tries them.\n"
        "ENTRIES = [\n" + "".join(table) + "]\n\n\n"
        "def dispatch(L, G):\n"
        '    """The compile id of the entry Dynamo would run for these locals and globals."""\n'
        "    for compile_id, guard, _transformed in ENTRIES:\n"
        "        if guard is not None and guard(L, G):\n"
        "            return compile_id\n"
        "    return None  # no guard passes: Dynamo would compile the frame again\n"
    )
    return "".join(parts)
