"""The glue between graphs: Dynamo's transformed code object, decompiled by glassbox.

The decompiler is the one bytecode front end (DESIGN.md). Its readable source for the transformed
code is parsed back into a ``def`` named as the frame; this module then says which names that
``def`` reads from its globals and its closure, so that the caller can bind each one
(``__compiled_fn_*`` to a compiled region, ``__resume_at_*`` to a frame's dispatcher, ...).
Nothing is guessed: a region the decompiler left as a fallback, a write to a global or a free
variable, or a local read before any assignment (statements out of order) raises
:class:`GlueError`.
"""

from __future__ import annotations

import ast
import symtable
import types
from dataclasses import dataclass, field

NEVER_RUNS = "never runs"  # the decompiler's name-order block: ``if 0: del a, b; None.x``


class GlueError(Exception):
    """The transformed code cannot be written down as Python faithfully."""


@dataclass
class DecompiledGlue:
    function: ast.FunctionDef  # the transformed code as a def named ``code.co_name``
    globals: list[str]  # names read from the frame's globals, in order of first use
    free: list[str]  # the frame's free variables (its closure, by position)
    placeholders: dict[str, object] = field(default_factory=dict)  # name -> constant
    cells: dict[str, int] = field(default_factory=dict)  # name -> position of the frame's cell
    not_shown: str | None = None  # None: shown to do what ``code`` does; else why it was not


def decompile_glue(code: types.CodeType) -> DecompiledGlue:
    from glassbox.decompiler import decompile_detailed

    result = decompile_detailed(code, readable=True)  # unmarshallable constants come back named
    if result.fallbacks:
        reasons = "; ".join(f"{f.code_name}: {f.reason}" for f in result.fallbacks)
        raise GlueError(f"the decompiler could not reconstruct it ({reasons})")
    function = _function_named(ast.parse(result.source), code.co_name)
    function.body = [s for s in function.body if not _never_runs(s)] or [ast.Pass()]
    cells = _name_free_cells(function, list(code.co_freevars))
    ast.fix_missing_locations(function)
    read = [name for name in _global_reads(function) if name not in code.co_freevars]
    _check_order(function)
    read = [name for name in read if name not in result.constants and name not in cells]
    glue = DecompiledGlue(function, read, list(code.co_freevars), dict(result.constants), cells)
    glue.not_shown = _not_shown(code, result)
    return glue


def _not_shown(code: types.CodeType, result) -> str | None:
    """Whether the decompiled source, compiled, is shown to do what ``code`` does (the check
    capture makes before running a dump: equal bytecode, or the same effects in order)."""
    from glassbox.capture.source import recompile, runnable_source

    source = runnable_source(code, result.source)
    try:
        compiled, reason = recompile(code, source, "<glue>", constants=result.constants)
    except Exception as error:  # the check itself failed: say so, never guess
        return f"the check failed: {type(error).__name__}: {error}"
    return None if compiled is not None else (reason or "not shown")


def _function_named(tree: ast.Module, name: str) -> ast.FunctionDef:
    """The def itself (the decompiler wraps a function with free variables in an enclosing one)."""
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and node.name == name:
            return node
    raise GlueError(f"the decompiled source has no function {name}")


def _never_runs(statement: ast.stmt) -> bool:
    return (
        isinstance(statement, ast.If)
        and isinstance(statement.test, ast.Constant)
        and statement.test.value == 0
    )


CELL_PREFIX = "__glassbox_cell_"


def _name_free_cells(function: ast.FunctionDef, free: list[str]) -> dict[str, int]:
    """The decompiler's source form of a cell used as a value, ``(lambda: x).__closure__[0]``, is
    the cell of x in the function that owns it; the glue binds a free variable by value, so a free
    variable's cell becomes a name bound to the frame's own cell (``cells[i]``)."""
    cells: dict[str, int] = {}

    class Rename(ast.NodeTransformer):
        def visit_Subscript(self, node):  # noqa: N802 - the ast visitor's naming
            self.generic_visit(node)
            closure = node.value
            if not (
                isinstance(closure, ast.Attribute)
                and closure.attr == "__closure__"
                and isinstance(closure.value, ast.Lambda)
                and isinstance(closure.value.body, ast.Name)
                and closure.value.body.id in free
                and isinstance(node.slice, ast.Constant)
                and node.slice.value == 0
                and not _has_parameters(closure.value.args)
            ):
                return node
            name = CELL_PREFIX + closure.value.body.id
            cells[name] = free.index(closure.value.body.id)
            return ast.copy_location(ast.Name(name, ast.Load()), node)

    Rename().visit(function)
    return cells


def _has_parameters(arguments: ast.arguments) -> bool:
    return bool(
        arguments.posonlyargs or arguments.args or arguments.kwonlyargs
        or arguments.vararg or arguments.kwarg
    )  # fmt: skip


def _global_reads(function: ast.FunctionDef) -> list[str]:
    """Names the function (and any lambda or comprehension in it) reads as globals."""
    table = symtable.symtable(ast.unparse(function), "<glue>", "exec").get_children()[0]
    out: list[str] = []
    pending = [table]
    while pending:
        scope = pending.pop(0)
        for symbol in scope.get_symbols():
            if symbol.is_declared_global() or (symbol.is_nonlocal() and scope is table):
                raise GlueError(f"it declares {symbol.get_name()} global or nonlocal")
            if symbol.is_global() and symbol.is_assigned():
                raise GlueError(f"it assigns the global {symbol.get_name()}")
            if symbol.is_global() and symbol.get_name() not in out + ["__debug__"]:
                out.append(symbol.get_name())
        pending += scope.get_children()
    return out


def _check_order(function: ast.FunctionDef) -> None:
    """Each local is assigned by an earlier statement (or by its own) before a statement reads it.

    Straight-line glue is checked statement by statement; a loop body may read what the loop
    assigns. A read with no assignment before it means the statements are out of order.
    """
    arguments = function.args
    assigned = {
        a.arg
        for a in arguments.posonlyargs + arguments.args + arguments.kwonlyargs
        + [arguments.vararg, arguments.kwarg]
        if a is not None
    }  # fmt: skip
    locals_ = assigned | _stores(function.body)
    for statement in function.body:
        stored = _stores([statement])
        for node in ast.walk(statement):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
                name = node.id
                if name in locals_ and name not in assigned and name not in stored:
                    raise GlueError(
                        f"the decompiled statements read {name} before assigning it "
                        f"(line {statement.lineno}: {ast.unparse(statement)[:120]})"
                    )
        assigned |= stored


def _stores(statements) -> set[str]:
    out = set()
    for statement in statements:
        for node in ast.walk(statement):
            if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
                out.add(node.id)
    return out


def called_names(function: ast.FunctionDef) -> set[str]:
    """Names the function calls (``name(...)``), directly or through plain copies
    (``t = name`` ... ``t(...)``, as the decompiler spills a value read before it is called)."""
    called = {
        node.func.id
        for node in ast.walk(function)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
    }
    copies = [
        (node.targets[0].id, node.value.id)
        for node in ast.walk(function)
        if isinstance(node, ast.Assign)
        and len(node.targets) == 1
        and isinstance(node.targets[0], ast.Name)
        and isinstance(node.value, ast.Name)
    ]
    while True:
        more = {source for target, source in copies if target in called} - called
        if not more:
            return called
        called |= more
