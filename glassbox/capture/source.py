"""Source for a code object Dynamo produced, and the code that runs: decompiled and verified.

``render(code, filename)`` asks the decompiler for source, compiles that source under the dump
file's name and keeps the result only if its bytecode equals the original (line numbers aside).
Then the dumped file is what runs, so a breakpoint set in it is hit. Anything else (no decompiler
yet, an exception, a marked fallback region, different bytecode) keeps the original bytecode
running; the file then holds the best text there is and says why.
"""

from __future__ import annotations

import dis
import types
import warnings
from typing import NamedTuple

# Header fields a recompiled function may differ in without running differently: a decompiled
# method is a module-level ``def``, so its qualified name loses the class prefix.
IGNORED_FIELDS = frozenset({"co_qualname"})


class Rendered(NamedTuple):
    source: str  # the text of the dump file
    code: types.CodeType | None  # compiled from ``source``, equal to the original; None: fallback
    reason: str | None  # why the original bytecode runs instead (None when ``code`` is set)


def disassembly(code: types.CodeType) -> str:
    """The listing of ``code``, from the C++ core when it is there, else from :mod:`dis`."""
    try:
        import glassbox

        return glassbox.disassemble(code)
    except Exception:  # the core may be missing or older than this module
        return dis.Bytecode(code).dis()


def _decompile(code: types.CodeType) -> tuple[str | None, str | None]:
    """(source, None) or (None or partial source, reason)."""
    try:
        import glassbox
    except Exception as error:  # pragma: no cover - glassbox is importable when we run
        return None, f"glassbox not importable: {error!r}"
    decompile = getattr(glassbox, "decompile", None)
    if decompile is None:
        return None, "this glassbox has no decompiler"
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            source = decompile(code)
    except Exception as error:
        return None, f"decompiler failed: {type(error).__name__}: {error}"
    marked = [w for w in caught if type(w.message).__name__ == "DecompileWarning"]
    if marked:
        return source, f"decompiler left fallback regions: {marked[0].message}"
    return source, None


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
    code: types.CodeType, source: str, filename: str, require_equal: bool | None = True
) -> tuple[types.CodeType | None, str | None]:
    """``source`` compiled under ``filename``: the function equal to ``code``, or a reason.

    With ``require_equal=False`` a function that differs from ``code`` only in its bytecode
    (same name, arguments and free variables) is accepted too; the reason then says how it
    differs, and the caller decides. With ``require_equal=None`` the bytecode is not compared:
    the first function with ``code``'s name and interface is the answer."""
    try:
        module_code = compile(source, filename, "exec", dont_inherit=True)
    except SyntaxError as error:
        return None, f"decompiled source does not compile: {error}"
    if require_equal is None:  # the interface alone decides
        for candidate in _candidates(module_code, code.co_name):
            if _same_interface(code, candidate):
                return candidate.replace(co_name=code.co_name, co_qualname=code.co_qualname), None
        return None, f"no function named {code.co_name} with Dynamo's arguments and free variables"
    first = None
    for candidate in _candidates(module_code, code.co_name):
        why = difference(code, candidate)
        if why is None:
            return candidate.replace(co_name=code.co_name, co_qualname=code.co_qualname), None
        first = first or why
        if not require_equal and _same_interface(code, candidate):
            accepted = candidate.replace(co_name=code.co_name, co_qualname=code.co_qualname)
            return accepted, f"recompiled bytecode differs: {why}"
    return None, f"recompiled bytecode differs: {first or 'no function named ' + code.co_name}"


def _same_interface(code: types.CodeType, candidate: types.CodeType) -> bool:
    """Whether ``candidate`` can stand in for ``code`` in Dynamo's frame: same arguments and the
    same free variables (Dynamo binds them by position)."""
    return (
        code.co_argcount == candidate.co_argcount
        and code.co_posonlyargcount == candidate.co_posonlyargcount
        and code.co_kwonlyargcount == candidate.co_kwonlyargcount
        and code.co_varnames[: code.co_argcount + code.co_kwonlyargcount]
        == candidate.co_varnames[: candidate.co_argcount + candidate.co_kwonlyargcount]
        and code.co_freevars == candidate.co_freevars
        and (code.co_flags & 0x0F) == (candidate.co_flags & 0x0F)
    )


def render(
    code: types.CodeType, filename: str, title: str, run_dumped: str = "decompiled"
) -> Rendered:
    """The dump file's text for ``code``, and the code compiled from it when it may run instead.

    ``run_dumped`` is the policy: ``"verified"``, only when the recompiled bytecode equals
    Dynamo's; ``"decompiled"``, also when it differs in layout but the decompiler reconstructed
    everything (no fallback) and the function has the same arguments and free variables;
    ``"never"``, the original bytecode always runs."""
    source, reason = _decompile(code)
    if source is not None and reason is None and run_dumped != "never":
        if run_dumped == "verified":
            header = (
                f"# {title}\n# Decompiled by glassbox and verified: this file is the code that"
                " runs.\n"
            )
            compiled, reason = recompile(code, header + source, filename)
        else:
            # No strict comparison (the verifier's job, and a cost on every compile): the code
            # runs when it has Dynamo's interface.
            header = (
                f"# {title}\n# Decompiled by glassbox: this file is the code that runs.\n"
                "# Its bytecode may be laid out differently from Dynamo's"
                " (run_dumped='decompiled').\n"
            )
            compiled, reason = recompile(code, header + source, filename, require_equal=None)
        if compiled is not None:
            return Rendered(header + source, compiled, None)
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
