"""The few helpers the generated ``guard(L, G)`` functions call; each is one readable check.

A dumped ``guards.py`` does ``from glassbox.capture.guard_runtime import *``. Names starting with
``___`` are the ones Dynamo's own guard text uses, kept so conditions stay close to Dynamo's.
"""

from __future__ import annotations

import functools
import importlib
import math
import sys

import torch
import torch.utils._device as utils_device  # noqa: F401 - used by guard text

inf = math.inf
nan = math.nan
__math_isnan = math.isnan

__all__ = [
    "torch",
    "math",
    "inf",
    "nan",
    "utils_device",
    "sys",
    "resolve",
    "module",
    "guard_function",
    "dict_contains",
    "check_no_aliasing",
    "tuple_iterator_len",
    "any_autocast_enabled",
    "saved_tensors_hooks_ids",
    "dataclass_fields",
    "namedtuple_fields",
    "odict_getitem",
    "device",
]

device = torch.device


@functools.cache
def resolve(path: str):
    """The object named by a dotted path such as ``"torch.nn.modules.linear.Linear"``."""
    parts = path.split(".")
    for split in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:split]))
        except ImportError:
            continue
        for name in parts[split:]:
            obj = getattr(obj, name)
        return obj
    raise ImportError(path)


def module(name: str):
    """The imported module ``name``; or, for a name no import finds (an op namespace such as
    ``torch.ops.transformers``, a module type set as an attribute), its parent's attribute."""
    found = sys.modules.get(name)
    if found is not None:
        return found
    try:
        return importlib.import_module(name)
    except ImportError:
        parent, _, attribute = name.rpartition(".")
        if not parent:
            raise
        return getattr(module(parent), attribute)


def guard_function(fn):
    """A guard is False, not an error, when the value it inspects is missing or of another kind."""

    @functools.wraps(fn)
    def guard(L, G, **ignored):  # noqa: N803 - Dynamo's names for the frame's locals/globals
        try:
            return bool(fn(L, G))
        except (AttributeError, KeyError, IndexError, TypeError, ValueError):
            return False

    return guard


def check_no_aliasing(*tensors) -> bool:
    """No two of the tensors share memory (Dynamo compiled assuming they do not)."""
    storages = [t.untyped_storage().data_ptr() for t in tensors]
    return len(set(storages)) == len(storages)


def dict_contains(key, mapping) -> bool:
    return key in mapping


def tuple_iterator_len(it) -> int:
    return len(it.__reduce__()[1][0]) - it.__reduce__()[2]


def dataclass_fields(obj):
    import dataclasses

    return tuple(f.name for f in dataclasses.fields(obj))


def namedtuple_fields(cls):
    return cls._fields


def odict_getitem(mapping, key):
    return dict.__getitem__(mapping, key)


def any_autocast_enabled() -> bool:
    """Whether autocast is on for any device type."""
    for device_type in ("cpu", "cuda", "xpu", "mps", "hpu", "xla", "mtia", "ipu"):
        try:
            if torch.is_autocast_enabled(device_type):
                return True
        except (RuntimeError, TypeError):
            continue
    return False


def saved_tensors_hooks_ids():
    """Ids of the innermost saved-tensors hooks when they are inlinable graphs, else None."""
    hooks = torch._C._autograd._top_saved_tensors_default_hooks(True)
    if not hooks:
        return None
    pack, unpack = hooks
    if isinstance(pack, torch.fx.GraphModule) and isinstance(unpack, torch.fx.GraphModule):
        return (id(pack), id(unpack))
    return None


# Dynamo's spellings.
___dict_contains = dict_contains
___tuple_iterator_len = tuple_iterator_len
___dataclass_fields = dataclass_fields
___namedtuple_fields = namedtuple_fields
___odict_getitem = odict_getitem
__all__ += [
    "___dict_contains",
    "___tuple_iterator_len",
    "___dataclass_fields",
    "___namedtuple_fields",
    "___odict_getitem",
    "__math_isnan",
]
