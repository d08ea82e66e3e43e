"""Guards adapter: a cache entry's guard tree as portable conditions over ``L`` and ``G``.

capture's :func:`glassbox.capture.guards.conditions_of` does the reading. Two rewrites make the
conditions hold in another process:

- globals Dynamo installed in the frame's module (``G['__import_torch_dot_nn']``,
  ``G['__builtins_dict___0']``) become ``module('torch.nn')`` and ``builtins.__dict__``;
- globals Dynamo installed by id (``G['_1400..._c0']``, ``G['___module_collections_1400..._c0']``,
  named after the object's id and the compile) are restated by value (``module('torch')``);
- identity checks against process-local ids (``id(G['helper'].__code__) == 1403...``) are
  evaluated here, in the compiling process, and restated by path: ``... is module('math')``,
  ``... is resolve('pkg.mod.Class')``, or for code objects their name and first line. An identity
  that cannot be restated is kept as a note (documented: not checked by the file).
"""

from __future__ import annotations

import builtins
import re
import types

from glassbox.capture.guard_runtime import module as import_module
from glassbox.capture.guard_runtime import resolve
from glassbox.capture.guards import conditions_of
from glassbox.pythonify.adapters.guard_paths import share_paths
from glassbox.pythonify.adapters.values import restate
from glassbox.pythonify.ir import Condition, GuardCheck

_DYNAMO_IMPORT = re.compile(r"G\['__import_(\w+?)'\]")
_DYNAMO_BUILTINS = re.compile(r"G\['__builtins_dict___\d+'\]")
_DYNAMO_BY_ID = re.compile(r"G\['(_(?:\w*?_)?\d+_c\d+)'\]")
_ID_EQ = re.compile(r"^id\((?P<x>.+)\) == (?P<id>\d+)$")
HELPERS = (
    "resolve", "module", "dict_contains", "check_no_aliasing", "tuple_iterator_len",
    "any_autocast_enabled", "saved_tensors_hooks_ids", "dataclass_fields", "namedtuple_fields",
    "odict_getitem",
)  # fmt: skip


def _unmangle(match: re.Match) -> str:
    return f"module({match[1].replace('_dot_', '.')!r})"


def _restate_by_id(code: str, frame_globals) -> str | None:
    """``code`` with each global Dynamo installed by id restated, or None where one cannot be."""
    failed = False

    def one(match: re.Match) -> str:
        nonlocal failed
        name = match[1]
        source = restate(frame_globals[name]) if name in (frame_globals or {}) else None
        failed = failed or source is None
        return source or match[0]

    code = _DYNAMO_BY_ID.sub(one, code)
    return None if failed else code


def _portable_identity(expr: str, obj) -> str | None:
    """An expression true exactly when ``expr`` names ``obj``, without ids."""
    if isinstance(obj, types.CodeType):
        return (
            f"({expr}.co_name == {obj.co_name!r} and {expr}.co_firstlineno == "
            f"{obj.co_firstlineno} and {expr}.co_filename.endswith("
            f"{obj.co_filename.rsplit('/', 1)[-1]!r}))"
        )
    import torch

    if isinstance(obj, torch.device):
        return None  # a new device object is equal, never identical
    source = restate(obj)
    return None if source is None else f"{expr} is {source}"


def _evaluate(expr: str, frame_locals, frame_globals):
    namespace = {"L": frame_locals, "G": frame_globals, "module": import_module}
    namespace["resolve"] = resolve
    namespace["builtins"] = builtins
    return eval(expr, namespace)  # noqa: S307 - our own guard text, over our own frame


def portable(condition, frame_locals, frame_globals) -> Condition:
    if condition.code is None:
        return Condition(None, condition.note)
    code, _, inline_note = condition.code.partition("  # ")
    note = "; ".join(p for p in (inline_note, condition.note) if p)
    code = _DYNAMO_BUILTINS.sub("builtins.__dict__", _DYNAMO_IMPORT.sub(_unmangle, code))
    restated_code = _restate_by_id(code, frame_globals)
    if restated_code is None:
        return Condition(None, f"a global Dynamo installed has no source form: {code}; {note}")
    code = restated_code
    if "module('torch._dynamo." in code:  # Dynamo's own polyfills: the file runs without them
        return Condition(None, f"Dynamo's own module, not used by the file: {code}; {note}")
    match = _ID_EQ.match(code)
    if match is None:
        return Condition(code, note)
    expr = match["x"]
    if frame_locals is None and "L[" in expr:
        return Condition(None, f"identity of {expr} not checked (process-local); {note}")
    try:
        obj = _evaluate(expr, frame_locals or {}, frame_globals)
    except Exception as error:
        return Condition(None, f"identity of {expr} not checked ({error!r}); {note}")
    if id(obj) != int(match["id"]):
        return Condition(None, f"identity of {expr} not checked (object changed); {note}")
    restated = _portable_identity(expr, obj)
    if restated is None:
        return Condition(None, f"identity of {expr} ({type(obj).__name__}) not checked; {note}")
    return Condition(restated, note)


def guard_check(name: str, frame_name: str, entry, frame_locals, frame_globals) -> GuardCheck:
    conditions = [
        portable(c, frame_locals, frame_globals) for c in conditions_of(entry.guard_manager)
    ]
    return share_paths(GuardCheck(name, frame_name, entry.compile_id, conditions))


def helpers_used(checks: list[GuardCheck]) -> set[str]:
    used = set()
    for check in checks:
        for condition in check.conditions:
            texts = [condition.code or ""] + [value for _, value in condition.binds]
            used |= {h for h in HELPERS for text in texts if h + "(" in text}
    return used
