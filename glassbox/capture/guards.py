"""A cache entry's guards as a Python function ``guard(L, G) -> bool``, one condition a line.

Dynamo keeps guards as a tree of C++ guard managers; each leaf guard can describe itself as a
Python-like expression with, as a comment, the user code it came from. This module walks the tree
and turns each expression into readable conditions: tensor checks become dtype, device,
requires_grad, shape and stride comparisons; the global-state check becomes one comparison per
setting; type checks name the type. What cannot be made into Python is kept as a comment.
"""

from __future__ import annotations

import functools
import json
import re
from dataclasses import dataclass

_TYPE_ID = re.compile(
    r"^___check_type_id\((?P<x>.*), (?P<id>\d+)\)(?:, type=<class '(?P<cls>[^']+)'>)?$"
)
_OBJ_ID = re.compile(
    r"^___check_obj_id\((?P<x>.*), (?P<id>\d+)\)(?:, type=<class '(?P<cls>[^']+)'>)?$"
)
_TENSOR = re.compile(
    r"^check_tensor\((?P<x>.*), (?P<cls>\w+), DispatchKeySet\((?P<keys>[^)]*)\), "
    r"(?P<dtype>torch\.\w+), "
    r"device=(?P<device>\w+), requires_grad=(?P<rg>True|False), size=\[(?P<size>[^\]]*)\], "
    r"stride=\[(?P<stride>[^\]]*)\]\)$"
)
_IMPORT_GLOBAL = re.compile(r"^G\['__import_(?P<mangled>\w+)'\]$")
_DEVICE_KEYS = {
    "CPU": "cpu",
    "CUDA": "cuda",
    "MPS": "mps",
    "XPU": "xpu",
    "Meta": "meta",
    "HPU": "hpu",
}
# c10::ScalarType numbers, as the global-state guard records the default dtype.
_SCALAR_TYPES = {5: "torch.float16", 6: "torch.float32", 7: "torch.float64", 15: "torch.bfloat16"}
_TENSOR_CLASSES = {"Tensor": "torch.Tensor", "Parameter": "torch.nn.Parameter"}
_RENAMES = {
    "___dict_contains(": "dict_contains(",
    "___tuple_iterator_len(": "tuple_iterator_len(",
    "___odict_getitem(": "odict_getitem(",
    "___dataclass_fields(": "dataclass_fields(",
    "___namedtuple_fields(": "namedtuple_fields(",
    "__math_isnan(": "math.isnan(",
}


@dataclass
class Condition:
    code: str | None  # a Python expression over L and G; None: not expressible, kept as a note
    note: str  # where it came from (user code line) or why it is only a note


def _split(verbose: str) -> tuple[str, str]:
    """``"expr  # user line  # file:line"`` -> (expr, comment)."""
    expr, _, comment = verbose.partition("  #")
    if not comment and " # " in verbose:
        expr, _, comment = verbose.partition(" # ")
    return expr.strip(), comment.strip().lstrip("#").strip()


def _class_path(cls_text: str | None, type_id: int) -> str | None:
    """A dotted path that resolves, in this process, to the class with id ``type_id``."""
    if not cls_text:
        return None
    if "." not in cls_text:  # a builtin type, or one only the types module names (method, ...)
        return builtin_type_path(cls_text, type_id)
    try:
        from glassbox.capture.guard_runtime import resolve

        if id(resolve(cls_text)) == type_id:
            return cls_text
    except Exception:
        pass
    return None


def builtin_type_path(name: str, type_id: int) -> str | None:
    """``builtins.<name>`` or ``types.<Name>`` for the type called ``name`` whose id is
    ``type_id`` (``method`` is ``types.MethodType``: the builtins module has no such name)."""
    import builtins
    import types

    if id(getattr(builtins, name, None)) == type_id:
        return f"builtins.{name}"
    for attribute, value in vars(types).items():
        if isinstance(value, type) and value.__name__ == name and id(value) == type_id:
            return f"types.{attribute}"
    return None


def _type_condition(x: str, type_id: int, cls_text: str | None) -> str:
    path = _class_path(cls_text, type_id)
    if path is None:
        return f"id(type({x})) == {type_id}  # type {cls_text} (process-local id)"
    if path.startswith("builtins."):
        return f"type({x}) is {path[len('builtins.') :]}"
    return f"type({x}) is resolve({path!r})"


def _tensor_conditions(match: re.Match) -> list[str]:
    x = match["x"]
    cls = _TENSOR_CLASSES.get(match["cls"])
    out = [f"type({x}) is {cls}" if cls else f"type({x}).__name__ == {match['cls']!r}"]
    out.append(f"{x}.dtype == {match['dtype']}")
    keys = [k.strip() for k in match["keys"].split(",")]
    device_type = next((_DEVICE_KEYS[k] for k in keys if k in _DEVICE_KEYS), None)
    if device_type:
        out.append(f"{x}.device.type == {device_type!r}")
    if match["device"] != "None":
        out.append(f"{x}.device.index == {match['device']}")
    out.append(f"{x}.requires_grad == {match['rg']}")
    sizes = [s.strip() for s in match["size"].split(",") if s.strip()]
    strides = [s.strip() for s in match["stride"].split(",") if s.strip()]
    out.append(f"{x}.dim() == {len(sizes)}")
    out += [f"{x}.size({i}) == {s}" for i, s in enumerate(sizes) if s != "None"]
    out += [f"{x}.stride({i}) == {s}" for i, s in enumerate(strides) if s != "None"]
    return out


def _global_state_conditions(state: dict) -> list[Condition]:
    checks = {
        "grad_mode": "torch.is_grad_enabled() == {}",
        "deterministic_algorithms": "torch.are_deterministic_algorithms_enabled() == {}",
        "deterministic_algorithms_warn_only": (
            "torch.is_deterministic_algorithms_warn_only_enabled() == {}"
        ),
        "num_threads": "torch.get_num_threads() == {}",
        "torch_function": "torch._C._is_torch_function_enabled() == {}",
        "torch_function_all_disabled": "torch._C._is_torch_function_all_disabled() == {}",
        "allow_tf32": "torch.backends.cuda.matmul.allow_tf32 == {}",
    }
    out = []
    for key, value in state.items():
        if key in checks:
            out.append(Condition(checks[key].format(value), f"global state: {key}"))
        elif key == "default_dtype" and value in _SCALAR_TYPES:
            out.append(
                Condition(
                    f"torch.get_default_dtype() == {_SCALAR_TYPES[value]}",
                    "global state: default dtype",
                )
            )
        elif key == "autocast_state" and not any(value.get("enabled", [])):
            out.append(Condition("not any_autocast_enabled()", "global state: autocast"))
        else:
            out.append(Condition(None, f"global state {key} = {json.dumps(value)} (not rendered)"))
    return out


def translate(expr: str, comment: str) -> list[Condition]:
    """Readable conditions for one of Dynamo's guard expressions."""
    if (match := _TENSOR.match(expr)) is not None:
        return [Condition(code, comment) for code in _tensor_conditions(match)]
    if (match := _TYPE_ID.match(expr)) is not None:
        code = _type_condition(match["x"], int(match["id"]), match["cls"])
        return [Condition(code, comment)]
    if (match := _OBJ_ID.match(expr)) is not None:
        x, cls = match["x"], match["cls"]
        imported = _IMPORT_GLOBAL.match(x)
        if cls == "module" and imported:
            name = _module_name(imported["mangled"])
            if name:
                return [Condition(f"{x} is module({name!r})", comment)]
        return [
            Condition(
                f"id({x}) == {match['id']}",
                f"identity of a {cls} (process-local id)" + (f"; {comment}" if comment else ""),
            )
        ]
    if expr.startswith("___check_global_state() against "):
        try:
            state = json.loads(expr[len("___check_global_state() against ") :])
        except ValueError:
            return [Condition(None, f"not rendered: {expr}")]
        return _global_state_conditions(state)
    if expr == "___check_torch_function_mode_stack()":
        return [
            Condition(
                "torch._C._len_torch_function_stack() == 0",
                "no torch function mode active (as at compile time)",
            )
        ]
    if expr.startswith("torch._functorch.aot_autograd.utils.top_saved_tensors_hooks ids == "):
        value = expr.rsplit("==", 1)[1].strip()
        return [Condition(f"saved_tensors_hooks_ids() == {value}", "saved tensors hooks")]
    if expr.startswith("utils_device.CURRENT_DEVICE"):
        return [Condition(expr.replace("utils_device.", "torch.utils._device."), comment)]
    if "__" in expr:  # every name _RENAMES renames has it
        for old, new in _RENAMES.items():
            expr = expr.replace(old, new)
    if not _is_expression(expr):
        return [Condition(None, f"not rendered: {expr}" + (f"  ({comment})" if comment else ""))]
    return [Condition(expr, comment)]


@functools.lru_cache(maxsize=4096)
def _is_expression(text: str) -> bool:
    """Whether ``text`` compiles as an expression. Cached: compiling was most of
    :func:`translate`'s time, and the same guard texts come back in entry after entry."""
    try:
        compile(text, "<guard>", "eval")
    except SyntaxError:
        return False
    return True


def _module_name(mangled: str) -> str | None:
    """``torch_dot_nn_dot_modules`` -> ``torch.nn.modules`` when that module is imported."""
    import sys

    name = mangled.replace("_dot_", ".")
    return name if name in sys.modules else None


def _leaf_expressions(root) -> list[tuple[str, str]]:
    """(expression, comment) for every leaf guard of the tree, each once, parents first."""
    seen: set[str] = set()
    out: list[tuple[str, str]] = []

    def add(leaf) -> None:
        for verbose in leaf.verbose_code_parts():
            if verbose not in seen:
                seen.add(verbose)
                out.append(_split(verbose))

    def visit(manager) -> None:
        for leaf in manager.get_leaf_guards():
            add(leaf)
        for child in manager.get_child_managers():
            visit(child)

    visit(root)
    for leaf in getattr(root, "get_epilogue_lambda_guards", lambda: [])():
        add(leaf)
    return out


def conditions_of(guard_manager) -> list[Condition]:
    """The readable conditions of a cache entry's ``GuardManagerWrapper``."""
    out: list[Condition] = []
    for expr, comment in _leaf_expressions(guard_manager.root):
        out.extend(translate(expr, comment))
    return out


def guard_body(conditions: list[Condition]) -> str:
    """The lines of a guard function after its ``def``: False as soon as a condition fails."""
    lines = []
    for condition in conditions:
        note = " ".join(condition.note.split())
        if condition.code is None:
            lines.append(f"    # {note}\n")
            continue
        code, _, inline_note = condition.code.partition("  # ")
        comment = f"{inline_note}; {note}" if inline_note and note else inline_note or note
        lines.append(f"    if not ({code}):" + (f"  # {comment}" if comment else ""))
        lines.append("\n        return False\n")
    lines.append("    return True\n")
    return "".join(lines)


def guard_function(body: str, name: str = "guard") -> str:
    """The text of ``def name(L, G)`` with a :func:`guard_body`: True when every condition
    holds. The guards file and the full_code file hold the same body under two names."""
    return f"@guard_function\ndef {name}(L, G):\n" + body


GUARDS_HEADER = """\
# Guards of cache entry {compile_id} of {function} ({where}).
# guard(L, G) is True when Dynamo would run this entry: L is the frame's locals by name, G its
# globals. Each condition carries, as a comment, the user code it came from.
from glassbox.capture.guard_runtime import *  # noqa: F403

"""


def render_guards_file(body: str, compile_id: str, function: str, where: str) -> str:
    """The guards file of a cache entry: its guard function, from its :func:`guard_body`."""
    text = GUARDS_HEADER.format(compile_id=compile_id, function=function, where=where)
    return text + guard_function(body)
