"""Shared paths in a guard: each value several conditions read is read once, into a local.

A frame's guard is hundreds of conditions over a few dozen paths (``L['self']._modules['bert']
._modules['encoder']...``); read afresh in every condition, the lookups cost more than the checks.
Dynamo's own guard manager is a tree of accessors that reads each path once; this pass gives the
written guard the same shape: where paths branch, the shared prefix becomes a local, bound by a
statement just before the first condition that reads it.

Only reads a condition always makes are bound (not the right side of ``and``/``or``, not inside
a conditional expression, lambda or comprehension), so a binding raises exactly where that
condition would have raised, and the guard's verdict is unchanged. The message a failing
condition returns keeps its original text.
"""

from __future__ import annotations

import ast
import re
from collections import Counter

from glassbox.pythonify.ir import Condition, GuardCheck

ROOTS = ("L", "G")


PURE_CALLS = ("type", "dict")  # type(x), dict(type(x).__dict__): reads, shared like attributes


def _inner(node: ast.AST) -> ast.AST | None:
    """The path ``node`` extends by one link (an attribute, a constant subscript, a pure call)."""
    if isinstance(node, ast.Attribute):
        return node.value
    if isinstance(node, ast.Subscript):
        return node.value if isinstance(node.slice, ast.Constant) else None
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id in PURE_CALLS
        and len(node.args) == 1
        and not node.keywords
        and not isinstance(node.args[0], ast.Starred)
    ):
        return node.args[0]
    return None


def _is_root(node: ast.AST) -> bool:
    """``L``, ``G`` or ``module('x')``."""
    if isinstance(node, ast.Name):
        return node.id in ROOTS
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "module"
        and len(node.args) == 1
        and isinstance(node.args[0], ast.Constant)
        and not node.keywords
    )


def _is_path(node: ast.AST) -> bool:
    """A root and links on it: ``L['self']._modules['fc']``, ``dict(type(G['x']).__dict__)``."""
    while not _is_root(node):
        node = _inner(node)
        if node is None:
            return False
    return True


def _prefixes(node: ast.AST) -> list[ast.AST]:
    """The chain from its root to ``node`` itself, root first."""
    out = [node]
    while not _is_root(node):
        node = _inner(node)
        out.append(node)
    return out[::-1]


def _always_read_paths(tree: ast.AST) -> list[ast.AST]:
    """The outermost path nodes of an expression that evaluating it always reads."""
    out: list[ast.AST] = []
    pending = [tree]
    while pending:
        node = pending.pop()
        if _is_path(node) and not isinstance(node, ast.Name):
            out.append(node)
            continue
        if isinstance(node, (ast.Lambda, ast.IfExp, ast.comprehension, ast.GeneratorExp)):
            continue
        if isinstance(node, (ast.ListComp, ast.SetComp, ast.DictComp)):
            continue
        if isinstance(node, ast.BoolOp):
            pending.append(node.values[0])
            continue
        pending += list(ast.iter_child_nodes(node))
    return out


def _parse(code: str) -> ast.Expression | None:
    try:
        return ast.parse(code, mode="eval")
    except SyntaxError:
        return None


def _local_name(key: str, taken: set[str]) -> str:
    words = [w.strip("_") for w in re.findall(r"\w+", key)][-2:]  # L['self']._modules: self_modules
    base = "p_" + "_".join(w for w in words if w)
    name, n = base, 1
    while name in taken:
        n += 1
        name = f"{base}_{n}"
    taken.add(name)
    return name


def share_paths(check: GuardCheck) -> GuardCheck:
    """``check`` with every shared path prefix read once (see the module's docstring)."""
    parsed = [_parse(c.code) if c.code else None for c in check.conditions]
    counts: Counter[str] = Counter()
    for tree in parsed:
        if tree is not None:
            counts.update(
                {ast.unparse(p) for path in _always_read_paths(tree) for p in _prefixes(path)}
            )
    bound: dict[str, str] = {}
    taken: set[str] = set()
    out = []
    for condition, tree in zip(check.conditions, parsed, strict=True):
        if tree is None:
            out.append(condition)
            continue
        binds: list[tuple[str, str]] = []
        for path in _always_read_paths(tree):
            _bind_chain(path, counts, bound, taken, binds)
        rewritten = _Replace(bound).visit(tree)
        code = ast.unparse(rewritten)
        out.append(Condition(code, condition.note, binds=binds, original=condition.code))
    return GuardCheck(check.name, check.frame_name, check.compile_id, out)


def _bind_chain(path, counts, bound, taken, binds) -> None:
    """Bind the prefixes of ``path`` where the paths conditions read branch (shared by more
    conditions than their extension is)."""
    chain = _prefixes(path)
    keys = [ast.unparse(p) for p in chain]
    for i, (node, key) in enumerate(zip(chain, keys, strict=True)):
        if isinstance(node, ast.Name) or key in bound or counts[key] < 2:
            continue
        if i + 1 < len(chain) and counts[keys[i + 1]] == counts[key]:
            continue  # every condition that reads it reads further: bind the longer path
        value = ast.unparse(_Replace(bound).visit(_parse(key).body))
        name = _local_name(key, taken)
        binds.append((name, value))
        bound[key] = name


class _Replace(ast.NodeTransformer):
    """Each bound path (the longest bound prefix of a chain) read from its local."""

    def __init__(self, bound: dict[str, str]) -> None:
        self.bound = bound

    def visit(self, node):
        if isinstance(node, ast.expr) and self.bound:
            key = ast.unparse(node) if _is_path(node) else None
            if key in self.bound:
                return ast.copy_location(ast.Name(self.bound[key], ast.Load()), node)
        return super().visit(node)
