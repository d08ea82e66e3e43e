"""Source for a code object Dynamo produced, and the code that runs: decompiled and verified.

``render(code, filename)`` asks the decompiler for source, compiles that source under the dump
file's name and keeps the result only if its bytecode equals the original (line numbers aside).
Then the dumped file is what runs, so a breakpoint set in it is hit. Anything else (no decompiler
yet, an exception, a marked fallback region, different bytecode) keeps the original bytecode
running; the file then holds the best text there is and says why.
"""

from __future__ import annotations

import ast
import dis
import types
from collections.abc import Mapping
from typing import NamedTuple

from glassbox import decompiler
from glassbox.decompiler import Decompiled, compile_with_constants
from glassbox.verify.effects import same_effects

# Header fields a recompiled function may differ in without running differently: a decompiled
# method is a module-level ``def``, so its qualified name loses the class prefix.
IGNORED_FIELDS = frozenset({"co_qualname"})


class Rendered(NamedTuple):
    source: str  # the text of the dump file
    code: types.CodeType | None  # compiled from ``source``, to run instead; None: the original runs
    reason: str | None  # why the original bytecode runs instead (None when ``code`` is set)
    unverified: str | None = None  # run_dumped="decompiled": how ``code`` differs from Dynamo's


def disassembly(code: types.CodeType) -> str:
    """The listing of ``code``, from the C++ core when it is there, else from :mod:`dis`."""
    try:
        import glassbox

        return glassbox.disassemble(code)
    except Exception:  # the core may be missing or older than this module
        return dis.Bytecode(code).dis()


def _decompile(
    code: types.CodeType, readable: bool = False
) -> tuple[Decompiled | None, str | None]:
    """(decompiled, None), (decompiled with fallbacks, reason) or (None, reason)."""
    try:
        decompiled = decompiler.decompile_detailed(code, readable=readable)
    except Exception as error:
        return None, f"decompiler failed: {type(error).__name__}: {error}"
    if decompiled.fallbacks:
        first = decompiled.fallbacks[0]
        where = f"{first.code_name} line {first.first_line}: {first.reason}"
        count = len(decompiled.fallbacks)
        return decompiled, f"decompiler left {count} fallback region(s), the first in {where}"
    return decompiled, None


def _function_named(tree: ast.AST, name: str) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == name:
            return node
    return None


def declare_free_variables(code: types.CodeType, source: str) -> str:
    """``source`` with a ``nonlocal`` statement for each free variable of ``code`` that the
    decompiled function never reads: Dynamo's code keeps the original's free variables (a
    decorator's wrapper keeps ``func``) even where its body no longer uses them, and the
    function compiled from the source must have the same closure to stand in for it."""
    if not code.co_freevars:
        return source
    try:
        function = _function_named(ast.parse(source), code.co_name)
    except SyntaxError:
        return source
    if function is None or not function.body:
        return source
    used: set[str] = set()
    for node in ast.walk(function):
        if isinstance(node, ast.Name):
            used.add(node.id)
        elif isinstance(node, ast.Nonlocal):
            used.update(node.names)
    missing = [n for n in code.co_freevars if n not in used and n.isidentifier()]
    if not missing:
        return source
    declaration = f"nonlocal {', '.join(missing)}  # glassbox: free in Dynamo's code, unused\n"
    return _at_top_of(function, source, [declaration])


def _at_top_of(function: ast.FunctionDef | ast.AsyncFunctionDef, source: str, added: list) -> str:
    """``source`` with the lines ``added`` first in ``function``'s body (after a docstring)."""
    first = function.body[0]
    value = first.value if isinstance(first, ast.Expr) else None
    docstring = isinstance(value, ast.Constant) and isinstance(value.value, str)
    at = first.end_lineno if docstring else first.lineno - 1
    indent = " " * first.col_offset
    lines = source.splitlines(keepends=True)
    return "".join(lines[:at] + [indent + line for line in added] + lines[at:])


def declare_cell_variables(code: types.CodeType, source: str) -> str:
    """``source`` where the decompiled function has the cell variables of ``code`` that it
    lacks: Dynamo's code keeps the original's cells (a generator over a local makes the local a
    cell) where its body no longer closes over them. A lambda in a block that never runs makes
    them cells without running anything (3.10 and 3.11 keep its unused code object)."""
    if not code.co_cellvars:
        return source
    try:
        function = _function_named(ast.parse(source), code.co_name)
        compiled = next(_candidates(compile(source, "<cells>", "exec"), code.co_name), None)
    except (SyntaxError, ValueError):
        return source
    if function is None or not function.body or compiled is None:
        return source
    missing = [n for n in code.co_cellvars if n not in compiled.co_cellvars and n.isidentifier()]
    if not missing:
        return source
    names = ", ".join(missing)
    lines = ["if 0:  # glassbox: cells in Dynamo's code\n", f"    lambda: ({names},)\n"]
    return _at_top_of(function, source, lines)


def runnable_source(code: types.CodeType, source: str) -> str:
    """Decompiled ``source`` with the free and cell variables of ``code`` it lacks declared, so
    that it compiles to a function with ``code``'s interface."""
    return declare_cell_variables(code, declare_free_variables(code, source))


def _normalized(code: types.CodeType) -> tuple:
    """What the small built-in comparator compares (used when glassbox.verify is absent)."""
    ops = []
    for instruction in dis.get_instructions(code):
        if instruction.opname in ("NOP", "EXTENDED_ARG", "CACHE"):
            continue
        argument = instruction.argval
        if isinstance(argument, types.CodeType):
            argument = _normalized(argument)
        elif instruction.opcode in dis.hasjrel or instruction.opcode in dis.hasjabs:
            argument = instruction.arg
        ops.append((instruction.opname, repr(argument)))
    header = tuple(
        getattr(code, name)
        for name in (
            "co_argcount",
            "co_posonlyargcount",
            "co_kwonlyargcount",
            "co_flags",
            "co_nlocals",
            "co_names",
            "co_varnames",
            "co_cellvars",
            "co_freevars",
            "co_name",
        )
    )
    return header, tuple(ops)


def difference(expected: types.CodeType, got: types.CodeType) -> str | None:
    """None when the two code objects run the same, else the first difference in words."""
    try:
        from glassbox.verify.normalize import compare
    except Exception:
        compare = None
    if compare is not None:
        try:
            result = compare(expected, got, IGNORED_FIELDS)
        except Exception as error:
            return f"comparison failed: {error!r}"
        return None if result.equal else result.first_difference.describe()
    return None if _normalized(expected) == _normalized(got) else "bytecode differs"


def _candidates(module_code: types.CodeType, name: str):
    """Code objects named ``name`` anywhere in the tree of ``module_code``, outermost first."""
    pending = [module_code]
    while pending:
        code = pending.pop(0)
        for const in code.co_consts:
            if isinstance(const, types.CodeType):
                if const.co_name == name:
                    yield const
                pending.append(const)


def recompile(
    code: types.CodeType,
    source: str,
    filename: str,
    require_equal: bool = True,
    constants: Mapping[str, object] | None = None,
) -> tuple[types.CodeType | None, str | None]:
    """``source`` compiled under ``filename``: the function equal to ``code``, or a reason.

    Compiled at the running interpreter's optimization level (``python -O`` drops ``assert`` and
    ``if __debug__:``, so source that relies on them differs there and is refused). Named
    constants (see :func:`glassbox.decompiler.compile_with_constants`) are loaded as constants,
    as in Dynamo's code. With ``require_equal=False`` a function that differs from ``code`` only
    in its bytecode (same name, arguments, free and cell variables) is accepted too, and the
    reason then says how it differs: the caller decides (``run_dumped="decompiled"``)."""
    try:
        module_code = compile_with_constants(source, filename, constants or {}, optimize=-1)
    except SyntaxError as error:
        return None, f"decompiled source does not compile: {error}"
    except ValueError as error:
        return None, f"decompiled source cannot be compiled with its constants: {error}"
    first = None
    for candidate in _candidates(module_code, code.co_name):
        why = difference(code, candidate)
        accepted = candidate.replace(co_name=code.co_name, co_qualname=code.co_qualname)
        if why is None:
            return accepted, None
        first = first or why
        if same_interface(code, candidate):
            not_same = same_effects(code, candidate)
            if not_same is None:
                return accepted, None
            first = f"{why}; {not_same}"
            if not require_equal:
                return accepted, f"recompiled bytecode differs: {first}"
    return None, f"recompiled bytecode differs: {first or 'no function named ' + code.co_name}"


def _argument_names(code: types.CodeType) -> tuple[str, ...]:
    """The parameters' names, ``*args`` and ``**kwargs`` included (as Dynamo compares them)."""
    count = code.co_argcount + code.co_kwonlyargcount
    count += bool(code.co_flags & 0x04) + bool(code.co_flags & 0x08)  # VARARGS, VARKEYWORDS
    return code.co_varnames[:count]


def same_interface(code: types.CodeType, candidate: types.CodeType) -> bool:
    """Whether ``candidate`` can stand in for ``code`` in Dynamo's frame: the same arguments,
    free variables (Dynamo binds them by position) and cell variables (Dynamo checks them)."""
    return (
        code.co_argcount == candidate.co_argcount
        and code.co_posonlyargcount == candidate.co_posonlyargcount
        and code.co_kwonlyargcount == candidate.co_kwonlyargcount
        and _argument_names(code) == _argument_names(candidate)
        and code.co_freevars == candidate.co_freevars
        and code.co_cellvars == candidate.co_cellvars
        and (code.co_flags & 0x0F) == (candidate.co_flags & 0x0F)
    )


def _header(title: str, reason: str | None) -> str:
    """The dump file's first two lines (always two, so that the code compiled before the header
    was chosen has the file's line numbers)."""
    if reason is None:
        status = (
            "Decompiled by glassbox and verified (its bytecode is Dynamo's, or it does Dynamo's"
            " operations with the same values in the same order): this file is the code that runs."
        )
    else:
        why = " ".join(reason.split())
        status = (
            "Decompiled by glassbox: this file is the code that runs, NOT verified"
            f" (run_dumped='decompiled'): {why}"
        )
    return f"# {' '.join(title.split())}\n# {status}\n"


def render(
    code: types.CodeType,
    filename: str,
    title: str,
    run_dumped: str = "verified",
    never_reason: str = "the run_dumped policy is 'never'",
) -> Rendered:
    """The dump file's text for ``code``, and the code compiled from it when it may run instead.

    ``run_dumped`` is the policy: ``"verified"`` (the default), only when the recompiled
    bytecode equals Dynamo's (line numbers, file name and qualified name aside) at the running
    interpreter's optimization level; ``"decompiled"`` (opt-in, for stepping through; it may
    change what the program does), also when the decompiler reconstructed everything and the
    function has Dynamo's arguments, free and cell variables but other bytecode; ``"never"``,
    the original bytecode always runs (``never_reason`` says why). Otherwise the file says why
    Dynamo's bytecode runs."""
    if run_dumped == "verified":
        rendered = _verified_readable(code, filename, title)
        if rendered is not None:
            return rendered
    decompiled, reason = _decompile(code)
    if run_dumped == "never":
        reason = reason or never_reason
    if decompiled is None:
        return reading_only(code, title, reason, None)
    source = runnable_source(code, decompiled.source)
    if reason is None and run_dumped != "never":
        compiled, reason = recompile(
            code,
            _header(title, None) + source,
            filename,
            require_equal=run_dumped == "verified",
            constants=decompiled.constants,
        )
        if compiled is not None:
            return Rendered(_header(title, reason) + source, compiled, None, reason)
    return reading_only(code, title, reason, source)


def _verified_readable(code: types.CodeType, filename: str, title: str) -> Rendered | None:
    """The decompiler's readable source when it is shown to do what ``code`` does (its effects,
    in order); None otherwise, and the exact source is tried next."""
    decompiled, reason = _decompile(code, readable=True)
    if decompiled is None or reason is not None:
        return None
    source = runnable_source(code, decompiled.source)
    compiled, reason = recompile(
        code, _header(title, None) + source, filename, constants=decompiled.constants
    )
    if compiled is None:
        return None
    return Rendered(_header(title, None) + source, compiled, None, None)


def reading_only(
    code: types.CodeType, title: str, reason: str | None, source: str | None
) -> Rendered:
    """The dump file of code whose original bytecode runs: why, the best source, the listing."""
    listing = "".join(f"#   {line}\n" for line in disassembly(code).splitlines())
    parts = [
        f"# {title}\n",
        "# The original bytecode runs; this file is for reading only.\n",
        f"# Why: {reason}\n",
    ]
    if source:
        parts.append("\n# Best decompiled source (not verified):\n\n" + source.rstrip() + "\n")
    parts.append("\n# Disassembly:\n" + listing)
    return Rendered("".join(parts), None, reason)


def compilable(text: str, filename: str) -> str:
    """``text`` if it compiles as Python, else the same lines as comments under a line that says
    why: every ``.py`` file of a dump compiles."""
    try:
        compile(text, filename, "exec", dont_inherit=True)
    except (SyntaxError, ValueError) as error:
        commented = "".join("# " + line if line.strip() else line for line in text.splitlines(True))
        return (
            f"# glassbox: this text does not compile as Python ({error!r}); kept as comments.\n"
            + commented
        )
    return text
