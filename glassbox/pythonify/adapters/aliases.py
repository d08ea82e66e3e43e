"""Aliased outputs of an AOTAutograd region: what the runtime wrapper regenerates, as IR.

AOTAutograd's runtime (``_create_runtime_wrapper``) returns an input itself for ``is_input``
and rebuilds the other aliased outputs from their base with ``gen_alias_from_base``: the
functionalization ``ViewMeta`` sequence recorded at trace time replayed on the base (when
``view_replay_for_aliased_outputs`` is on and no view has symbolic arguments), else the
compiled output's view of its ``_base`` replayed, else ``as_strided``. Each ``ViewMeta`` calls
one view operator (``at::_ops::<name>::call``) with the arguments in its serializable tuple;
here it becomes the same ``torch.ops.aten`` call as text.
"""

from __future__ import annotations

from typing import Any

from glassbox.pythonify.adapters.inputs import PythonifyError
from glassbox.pythonify.ir import OutputAlias

REGENERATED = (
    "is_input",
    "alias_of_input",
    "alias_of_intermediate",
    "alias_of_intermediate_save_as_output",
    "alias_of_intermediate_base_is_user_output",
)
PLAIN = ("non_alias", "unsafe_view_alias", "custom_function_view")


def _unambiguous(op: Any) -> str:
    overload = op._overloadname
    return op._opname if overload == "default" else f"{op._opname}_{overload}"


def _view_op(classname: str) -> Any:
    """The operator a ``<name>_ViewMeta`` forward calls (the out-of-place view, reapplied)."""
    import torch

    name = classname.removesuffix("_ViewMeta")
    found = []
    for cut in [len(name)] + [i for i, c in enumerate(name) if c == "_"]:
        packet = getattr(torch.ops.aten, name[:cut], None) if cut else None
        overload = name[cut + 1 :] or "default"
        if packet is not None and overload in packet.overloads():
            found.append(getattr(packet, overload))
    found = [op for op in found if _unambiguous(op) == name]
    if len(found) != 1:
        raise PythonifyError(f"view replay: no single aten operator is named {name!r}")
    return _out_of_place(found[0]) if found[0]._opname.endswith("_") else found[0]


def _arguments(op: Any) -> list[str]:
    return [str(a.type) for a in op._schema.arguments[1:]]


def _out_of_place(op: Any) -> Any:
    """An in-place view's ViewMeta replays the view of its group: the out-of-place operator
    (``transpose_`` -> ``transpose.int``) taking the same arguments."""
    import torch

    packet = getattr(torch.ops.aten, op._opname[:-1], None)
    overloads = [getattr(packet, name) for name in (packet.overloads() if packet else ())]
    found = [o for o in overloads if _arguments(o) == _arguments(op)]
    if len(found) != 1:
        raise PythonifyError(f"view replay: no single out-of-place view for {op}")
    return found[0]


def _literal(value: object) -> str:
    import torch

    if isinstance(value, (list, tuple)):
        items = ", ".join(_literal(v) for v in value)
        return f"[{items}]" if isinstance(value, list) else f"({items}{',' if value else ''})"
    if isinstance(value, torch.device):
        text = f"torch.device({str(value)!r})"
    elif isinstance(value, (torch.dtype, torch.memory_format, torch.layout)):
        text = str(value)
    elif value is None or isinstance(value, (bool, int, float, str)):
        text = repr(value)
    else:
        raise PythonifyError(f"view replay: argument {value!r} cannot be written")
    if eval(text, {"torch": torch}) != value:  # noqa: S307 - our own literal, checked
        raise PythonifyError(f"view replay: argument {value!r} does not round-trip")
    return text


def view_call(meta: Any) -> str:
    """One ViewMeta as ``torch.ops.aten.<op>.<overload>({}, args...)[out_index]``."""
    op = _view_op(type(meta).__name__)
    schema = op._schema
    fields = list(meta.as_tuple())
    count = len(schema.arguments) - 1
    multi = len(schema.returns) != 1 or str(schema.returns[0].type).endswith("[]")
    extra = len(fields) - 3 - count  # has_symbolic_inputs[, out_index], reapply, mode, args
    if extra != int(multi):
        raise PythonifyError(f"view replay: {type(meta).__name__} fields {fields!r}")
    out_index = fields[1] if multi else None
    reapply = fields[1 + extra]
    if not reapply:  # functionalization without view reapplication calls the view_copy op
        import torch

        copy = getattr(torch.ops.aten, op._opname + "_copy", None)
        if copy is None or op._overloadname not in copy.overloads():
            raise PythonifyError(f"view replay: no view_copy operator for {op}")
        op = getattr(copy, op._overloadname)
    args = "".join(", " + _literal(v) for v in fields[3 + extra :])
    call = f"torch.ops.aten.{op._opname}.{op._overloadname}({{}}{args})"
    return call if out_index is None else f"{call}[{out_index}]"


def _views(info: Any, replay: bool) -> list[str] | None:
    sequence = info.view_meta_sequence
    if not replay or sequence is None:
        return None
    if any(meta.has_symbolic_inputs for meta in sequence.sequence):
        return None
    return [view_call(meta) for meta in sequence.sequence]


def output_aliases(md: Any, region_name: str, training: bool) -> list[OutputAlias]:
    """Each aliased user output of ``md`` (ViewAndMutationMeta), as the runtime rebuilds it."""
    from torch._functorch import config

    aliases = []
    aliased = set(md.aliased_out_indices)
    for i, info in enumerate(md.output_info):
        kind = info.output_type.name
        if kind in PLAIN:
            continue
        if kind not in REGENERATED or not isinstance(info.base_idx, int):
            raise PythonifyError(f"{region_name}: output {i} is an alias ({kind}); not supported")
        base = info.base_idx
        if kind in ("alias_of_intermediate", "alias_of_intermediate_save_as_output"):
            base += len(md.output_info)
        unwrap = kind == "alias_of_intermediate_base_is_user_output" and base in aliased
        if unwrap and not training:  # AOT itself would unwrap a TensorAlias it never made
            raise PythonifyError(f"{region_name}: output {i} ({kind}) of an aliased output")
        views = None if kind == "is_input" else _views(info, config.view_replay_for_aliased_outputs)
        aliases.append(OutputAlias(i, kind, base, unwrap, bool(info.requires_grad), views))
    return aliases
