"""Dynamo's own operations that the program cannot see, for :mod:`glassbox.verify.effects`.

Source cannot always place these where Dynamo's bytecode does, and nothing depends on where:

* the profiler markers around the code before a graph call,
  ``torch._dynamo.utils.record_pregraph_bytecode_enter()`` and ``..._exit(cm)``, reached through
  Dynamo's global ``__import_torch_dot__dynamo_dot_utils``: they open and close a profiler range
  (or a null context) and touch nothing of the program's. Their calls are kept, in order and with
  their values, in a list of their own, not ordered against the program's effects;
* an output of the compiled graph, ``graph_out[i]`` for a constant ``i`` where ``graph_out`` is
  what a ``__compiled_fn_*`` global returned. A backend's compiled function returns the graph's
  outputs as a list or tuple (it stands for the FX graph's forward, whose output is a tuple), and
  indexing one runs no code: the item is a term, until the outputs reach an effect (then other
  code may change them). Both sides must read the same outputs, so neither reads one the other
  does not (an index out of range would raise).

Only at the top level of the frame (not in a branch's path or a loop body), where what is
recorded here belongs to the run itself.
"""

from __future__ import annotations

from typing import Any

UTILS = ("global", "__import_torch_dot__dynamo_dot_utils")
HOOKS = frozenset({"record_pregraph_bytecode_enter", "record_pregraph_bytecode_exit"})
HOOK, HOOK_VALUE, GRAPH_OUTPUT = "<dynamo hook>", "<dynamo hook value>", "<graph output>"
COMPILED_FN_PREFIX = "__compiled_fn_"


class DynamoBookkeeping:
    """What a run did of Dynamo's own: its hook calls, the graph calls and outputs it read."""

    def __init__(self) -> None:
        self.hook_calls: list[tuple] = []
        self.graph_calls: set[tuple] = set()
        self.outputs_read: set[tuple] = set()

    def seen(self, term: Any) -> None:
        """``term`` reaches an effect: a graph's outputs in it may change from then on, so later
        reads of them are effects (an output read already is a value of its own)."""
        if term in self.graph_calls:
            self.graph_calls.discard(term)
        elif isinstance(term, tuple) and term[:1] != (GRAPH_OUTPUT,):
            for item in term:
                self.seen(item)

    def summary(self) -> tuple:
        """What both sides must agree on, as one last pseudo-effect."""
        return ("dynamo bookkeeping", tuple(self.hook_calls), tuple(sorted(self.outputs_read)))


def hook(run: Any, obj: tuple, attribute: str) -> tuple | None:
    """The term of ``__import_torch_dot__dynamo_dot_utils.<hook>``, else None."""
    if obj == UTILS and attribute in HOOKS and not run.scope:
        return (HOOK, attribute)
    return None


def hook_call(run: Any, callable_: tuple, args: list[tuple], kw_names: tuple) -> tuple | None:
    """The value of a profiler hook's call as Dynamo makes it (enter with nothing, exit with
    what enter gave), recorded apart; else None."""
    if callable_[:1] != (HOOK,) or kw_names or run.scope:
        return None
    if callable_[1].endswith("_enter") and args:
        return None
    if callable_[1].endswith("_exit") and (len(args) != 1 or args[0][:1] != (HOOK_VALUE,)):
        return None
    run.dynamo.hook_calls.append((callable_[1], tuple(args)))
    return (HOOK_VALUE, len(run.dynamo.hook_calls) - 1)


def note_call(run: Any, callable_: tuple, value: tuple) -> None:
    """Remembers ``value`` as a compiled graph's outputs when ``callable_`` is Dynamo's graph."""
    name = callable_[1] if callable_[:1] == ("global",) else ""
    if name.startswith(COMPILED_FN_PREFIX) and not run.scope:
        run.dynamo.graph_calls.add(value)


def graph_output(run: Any, container: tuple, index: tuple) -> tuple | None:
    """``graph_out[i]`` of a graph call's outputs with a constant int ``i``, else None."""
    if container not in run.dynamo.graph_calls or run.scope or index[:2] != ("const", "int"):
        return None
    run.dynamo.outputs_read.add((container, index))
    return (GRAPH_OUTPUT, container, index)
