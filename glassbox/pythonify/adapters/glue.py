"""The glue between graphs: Dynamo's transformed code object as Python statements.

Dynamo's transformed code is straight-line bytecode: read the graph's inputs from the frame, call
``__compiled_fn_*``, rebuild the stack, run the unsupported call eagerly, call ``__resume_at_*``.
glassbox's decompiler is tried first (``decompiled_glue``); its text is used only when it
recompiles to the same bytecode. Otherwise this module translates the bytecode itself, one
instruction at a time, over a symbolic stack of *expressions*:

- loads stay expressions until something with an effect happens (a call, a store, a delete);
  then every compound expression still on the stack is bound to a temporary first, so each
  value is computed at the same point as in the bytecode;
- a value used twice (``COPY``) is bound to a temporary, so it is computed once;
- any jump or unknown instruction raises :class:`GlueError`: the glue is never guessed.

Global names are handed to ``rename_global`` so that the caller decides what ``__compiled_fn_*``,
``__resume_at_*``, ``__import_*`` and user globals become in the generated file.
"""

from __future__ import annotations

import dis
import math
import sys
import types
from dataclasses import dataclass, field


class GlueError(Exception):
    """The transformed code uses something the glue translator does not handle."""


_NULL = object()  # the NULL Python pushes before a callable


@dataclass
class _Value:
    text: str
    simple: bool  # a name or a literal: free to repeat, never stale
    names: frozenset = frozenset()  # locals the expression reads


@dataclass
class Glue:
    """A function body: ``params`` and the statements, one string a line (no indentation)."""

    name: str
    params: list[str]
    lines: list[str] = field(default_factory=list)
    globals_used: set[str] = field(default_factory=set)


def literal(value) -> str:
    """Python source for a constant of a code object."""
    if isinstance(value, float):
        if math.isnan(value):
            return "float('nan')"
        if math.isinf(value):
            return "float('inf')" if value > 0 else "float('-inf')"
        return repr(value)
    if value is None or isinstance(value, (bool, int, str, bytes, complex)):
        return repr(value)
    if isinstance(value, tuple):
        inner = ", ".join(literal(v) for v in value)
        return f"({inner},)" if len(value) == 1 else f"({inner})"
    if isinstance(value, frozenset):
        return f"frozenset({{{', '.join(literal(v) for v in value)}}})" if value else "frozenset()"
    if value is Ellipsis:
        return "..."
    raise GlueError(f"constant of type {type(value).__name__} in transformed code")


def signature_of(code: types.CodeType) -> list[str]:
    """The parameters of ``code`` as they appear in a ``def``."""
    names = list(code.co_varnames)
    positional = code.co_argcount
    kwonly = code.co_kwonlyargcount
    params = names[:positional]
    index = positional + kwonly
    if code.co_flags & inspect_flags.VARARGS:
        params.append("*" + names[index])
        index += 1
    elif kwonly:
        params.append("*")
    params += names[positional : positional + kwonly]
    if code.co_flags & inspect_flags.VARKEYWORDS:
        params.append("**" + names[index])
    return params


class inspect_flags:  # noqa: N801 - the two CO_* flags used here
    VARARGS = 0x04
    VARKEYWORDS = 0x08


_BINARY_OPS = {
    0: "+", 1: "&", 2: "//", 3: "<<", 4: "@", 5: "*", 6: "%", 7: "|", 8: "**", 9: ">>",
    10: "-", 11: "/", 12: "^",
}  # fmt: skip
_SKIPPED = {"RESUME", "NOP", "PRECALL", "CACHE", "EXTENDED_ARG", "COPY_FREE_VARS", "MAKE_CELL"}


class _Translator:
    def __init__(self, code: types.CodeType, name: str, rename_global, inert: str) -> None:
        self.code = code
        self.takes_globals: set[str] = set()  # callables whose first argument is G
        self.inert = inert  # values named with this prefix do nothing: calls on them give None
        self.rename_global = rename_global
        self.stack: list = []
        self.glue = Glue(name, signature_of(code))
        self.temps = 0
        self.kw_names: tuple = ()
        self.cells = set(code.co_cellvars) | set(code.co_freevars)

    # -- helpers -------------------------------------------------------------------------
    def emit(self, line: str) -> None:
        self.glue.lines.append(line)

    def temp(self) -> str:
        self.temps += 1
        return f"_t{self.temps}"

    def push(self, text: str, simple: bool = False, names=frozenset()) -> None:
        simple = simple or bool(self.inert and text.startswith(self.inert))
        self.stack.append(_Value(text, simple, frozenset(names)))

    def pop(self):
        if not self.stack:
            raise GlueError("stack underflow")
        return self.stack.pop()

    def bind(self, value: _Value) -> _Value:
        """``value`` as a temporary name (computed now)."""
        if value is _NULL or value.simple:
            return value
        name = self.temp()
        self.emit(f"{name} = {value.text}")
        return _Value(name, True)

    def settle(self, keep: int = 0) -> None:
        """Bind every compound expression on the stack below the top ``keep`` values."""
        limit = len(self.stack) - keep
        for i in range(limit):
            value = self.stack[i]
            if value is not _NULL and not value.simple:
                self.stack[i] = self.bind(value)

    def settle_name(self, name: str) -> None:
        """Before ``name`` is stored or deleted: bind stacked expressions that read it."""
        for i, value in enumerate(self.stack):
            if value is not _NULL and name in value.names:
                if value.simple:  # the bare name: keep the old value
                    new = self.temp()
                    self.emit(f"{new} = {value.text}")
                    self.stack[i] = _Value(new, True)
                else:
                    self.stack[i] = self.bind(value)

    def global_name(self, name: str) -> str:
        self.glue.globals_used.add(name)
        return self.rename_global(name)

    def call(self, nargs: int, kw_names: tuple = ()) -> None:
        args = [self.pop() for _ in range(nargs)][::-1]
        first = self.pop()
        below = self.pop() if self.stack else _NULL
        if below is _NULL:
            func, bound = first, []
        elif first is _NULL:
            func, bound = below, []
        else:  # method call form: callable, self
            func, bound = below, [first]
        if self.inert and func.text.startswith(self.inert):
            self.push("None", simple=True)  # e.g. Dynamo's bytecode-timing calls: dropped
            return
        parts = ["G"] if func.text in self.takes_globals else []
        parts += [a.text for a in bound + args[: nargs - len(kw_names)]]
        parts += [
            f"{k}={a.text}" for k, a in zip(kw_names, args[nargs - len(kw_names) :], strict=True)
        ]
        self.effect_result(f"{func.text}({', '.join(parts)})")

    def effect_result(self, expression: str) -> None:
        """An expression with effects: settle the stack, bind the result to a temporary."""
        self.settle()
        name = self.temp()
        self.emit(f"{name} = {expression}")
        self.push(name, simple=True)

    def statement(self, line: str, consumed: int) -> None:
        """An effect that consumes the top ``consumed`` values (already popped by the caller)."""
        self.settle()
        self.emit(line)

    # -- the instructions ----------------------------------------------------------------
    def run(self) -> Glue:
        for ins in dis.get_instructions(self.code):
            op = ins.opname
            if op in _SKIPPED:
                continue
            handler = getattr(self, "op_" + op, None)
            if handler is None:
                raise GlueError(f"instruction {op} at offset {ins.offset} is not handled")
            handler(ins)
        return self.glue

    def op_LOAD_FAST(self, ins):  # noqa: N802 - opcode names
        self.push(ins.argval, simple=True, names={ins.argval})

    op_LOAD_FAST_CHECK = op_LOAD_FAST
    op_LOAD_DEREF = op_LOAD_FAST
    op_LOAD_CLOSURE = op_LOAD_FAST

    def op_LOAD_FAST_LOAD_FAST(self, ins):  # noqa: N802
        for name in ins.argval:
            self.push(name, simple=True, names={name})

    def op_STORE_FAST(self, ins):  # noqa: N802
        value = self.pop()
        self.settle_name(ins.argval)
        self.settle()
        self.emit(f"{ins.argval} = {value.text}")

    op_STORE_DEREF = op_STORE_FAST

    def op_DELETE_FAST(self, ins):  # noqa: N802
        self.settle_name(ins.argval)
        self.emit(f"del {ins.argval}")

    op_DELETE_DEREF = op_DELETE_FAST

    def op_LOAD_CONST(self, ins):  # noqa: N802
        self.push(literal(ins.argval), simple=True)

    def op_RETURN_CONST(self, ins):  # noqa: N802
        self.emit(f"return {literal(ins.argval)}")

    def op_LOAD_GLOBAL(self, ins):  # noqa: N802
        if ins.arg & 1:
            self.stack.append(_NULL)
        text = self.global_name(ins.argval)
        self.push(text, simple=text.isidentifier())

    def op_LOAD_ATTR(self, ins):  # noqa: N802
        owner = self.pop()
        if sys.version_info >= (3, 12) and ins.arg & 1:
            self.stack.append(_NULL)
        self.push(f"{owner.text}.{ins.argval}", names=owner.names)

    def op_LOAD_METHOD(self, ins):  # noqa: N802 - 3.11: the bound method, NULL-form
        owner = self.pop()
        self.stack.append(_NULL)
        self.push(f"{owner.text}.{ins.argval}", names=owner.names)

    def op_PUSH_NULL(self, ins):  # noqa: N802
        self.stack.append(_NULL)

    def op_KW_NAMES(self, ins):  # noqa: N802
        self.kw_names = ins.argval

    def op_CALL(self, ins):  # noqa: N802
        names, self.kw_names = self.kw_names, ()
        self.call(ins.arg, names)

    def op_CALL_KW(self, ins):  # noqa: N802 - 3.13
        names = self.pop()
        self.call(ins.arg, tuple(eval(names.text)))  # a literal tuple of names

    def op_CALL_FUNCTION_EX(self, ins):  # noqa: N802
        kwargs = self.pop() if ins.arg & 1 else None
        args = self.pop()
        func = self.pop()
        if self.stack and self.stack[-1] is _NULL:
            self.stack.pop()
        first = "G, " if func.text in self.takes_globals else ""
        text = f"{func.text}({first}*{args.text}" + (f", **{kwargs.text})" if kwargs else ")")
        self.effect_result(text)

    def op_POP_TOP(self, ins):  # noqa: N802
        value = self.pop()
        if value is not _NULL and not value.simple:
            pass  # a read with no effect: dropped

    def op_COPY(self, ins):  # noqa: N802
        index = len(self.stack) - ins.arg
        self.stack[index] = self.bind(self.stack[index])
        self.stack.append(self.stack[index])

    def op_SWAP(self, ins):  # noqa: N802
        self.stack[-1], self.stack[-ins.arg] = self.stack[-ins.arg], self.stack[-1]

    def op_BINARY_SUBSCR(self, ins):  # noqa: N802
        key = self.pop()
        owner = self.pop()
        self.push(f"{owner.text}[{key.text}]", names=owner.names | key.names)

    def op_BINARY_SLICE(self, ins):  # noqa: N802 - 3.12
        stop, start, owner = self.pop(), self.pop(), self.pop()
        self.push(f"{owner.text}[{start.text}:{stop.text}]", names=owner.names)

    def op_STORE_SUBSCR(self, ins):  # noqa: N802
        key, owner, value = self.pop(), self.pop(), self.pop()
        self.statement(f"{owner.text}[{key.text}] = {value.text}", 3)

    def op_STORE_SLICE(self, ins):  # noqa: N802 - 3.12
        stop, start, owner, value = self.pop(), self.pop(), self.pop(), self.pop()
        self.statement(f"{owner.text}[{start.text}:{stop.text}] = {value.text}", 4)

    def op_DELETE_SUBSCR(self, ins):  # noqa: N802
        key, owner = self.pop(), self.pop()
        self.statement(f"del {owner.text}[{key.text}]", 2)

    def op_STORE_ATTR(self, ins):  # noqa: N802
        owner, value = self.pop(), self.pop()
        self.statement(f"{owner.text}.{ins.argval} = {value.text}", 2)

    def op_DELETE_ATTR(self, ins):  # noqa: N802
        owner = self.pop()
        self.statement(f"del {owner.text}.{ins.argval}", 1)

    def op_BUILD_SLICE(self, ins):  # noqa: N802
        parts = [self.pop() for _ in range(ins.arg)][::-1]
        self.push(f"slice({', '.join(p.text for p in parts)})", names=_union(parts))

    def _build(self, count: int, opening: str, closing: str, one: str = "") -> None:
        items = [self.pop() for _ in range(count)][::-1]
        inner = ", ".join(i.text for i in items)
        if count == 1 and one:
            inner += one
        self.push(f"{opening}{inner}{closing}", names=_union(items))

    def op_BUILD_TUPLE(self, ins):  # noqa: N802
        self._build(ins.arg, "(", ")", ",")

    def op_BUILD_LIST(self, ins):  # noqa: N802
        self._build(ins.arg, "[", "]")

    def op_BUILD_SET(self, ins):  # noqa: N802
        if ins.arg == 0:
            self.push("set()")
        else:
            self._build(ins.arg, "{", "}")

    def op_BUILD_MAP(self, ins):  # noqa: N802
        items = [self.pop() for _ in range(2 * ins.arg)][::-1]
        pairs = ", ".join(
            f"{k.text}: {v.text}" for k, v in zip(items[::2], items[1::2], strict=True)
        )
        self.push("{" + pairs + "}", names=_union(items))

    def op_BUILD_CONST_KEY_MAP(self, ins):  # noqa: N802
        keys = self.pop()
        values = [self.pop() for _ in range(ins.arg)][::-1]
        key_values = eval(keys.text)  # a literal tuple
        pairs = ", ".join(
            f"{literal(k)}: {v.text}" for k, v in zip(key_values, values, strict=True)
        )
        self.push("{" + pairs + "}", names=_union(values))

    def _extend(self, ins, method: str) -> None:
        value = self.pop()
        index = len(self.stack) - ins.arg
        self.stack[index] = self.bind(self.stack[index])
        self.statement(f"{self.stack[index].text}.{method}({value.text})", 1)

    def op_LIST_EXTEND(self, ins):  # noqa: N802
        self._extend(ins, "extend")

    def op_LIST_APPEND(self, ins):  # noqa: N802
        self._extend(ins, "append")

    def op_SET_UPDATE(self, ins):  # noqa: N802
        self._extend(ins, "update")

    op_DICT_UPDATE = op_SET_UPDATE
    op_DICT_MERGE = op_SET_UPDATE

    def op_LIST_TO_TUPLE(self, ins):  # noqa: N802
        value = self.pop()
        self.push(f"tuple({value.text})", names=value.names)

    def op_CALL_INTRINSIC_1(self, ins):  # noqa: N802 - 3.12
        value = self.pop()
        if ins.argrepr == "INTRINSIC_LIST_TO_TUPLE":
            self.push(f"tuple({value.text})", names=value.names)
        elif ins.argrepr == "INTRINSIC_UNARY_POSITIVE":
            self.push(f"(+{value.text})", names=value.names)
        else:
            raise GlueError(f"intrinsic {ins.argrepr} is not handled")

    def op_UNPACK_SEQUENCE(self, ins):  # noqa: N802
        value = self.pop()
        names = [self.temp() for _ in range(ins.arg)]
        self.settle()
        target = ", ".join(names) + ("," if ins.arg == 1 else "")
        self.emit(f"{target} = {value.text}")
        for name in reversed(names):
            self.push(name, simple=True)

    def op_BINARY_OP(self, ins):  # noqa: N802
        right, left = self.pop(), self.pop()
        symbol = _BINARY_OPS.get(ins.arg % 13) if ins.arg < 26 else None
        if symbol is None:
            raise GlueError(f"BINARY_OP {ins.argrepr}")
        if ins.arg >= 13:  # in-place: an effect on the left operand
            self.effect_result(f"operator.{_INPLACE[symbol]}({left.text}, {right.text})")
        else:
            self.effect_result(f"({left.text} {symbol} {right.text})")

    def op_COMPARE_OP(self, ins):  # noqa: N802
        right, left = self.pop(), self.pop()
        self.effect_result(f"({left.text} {ins.argval} {right.text})")

    def op_IS_OP(self, ins):  # noqa: N802
        right, left = self.pop(), self.pop()
        self.push(f"({left.text} {'is not' if ins.arg else 'is'} {right.text})")

    def op_CONTAINS_OP(self, ins):  # noqa: N802
        right, left = self.pop(), self.pop()
        self.effect_result(f"({left.text} {'not in' if ins.arg else 'in'} {right.text})")

    def op_UNARY_NOT(self, ins):  # noqa: N802
        value = self.pop()
        self.effect_result(f"(not {value.text})")

    def op_UNARY_NEGATIVE(self, ins):  # noqa: N802
        value = self.pop()
        self.effect_result(f"(-{value.text})")

    def op_RETURN_VALUE(self, ins):  # noqa: N802
        value = self.pop()
        self.emit(f"return {value.text}")


_INPLACE = {
    "+": "iadd", "&": "iand", "//": "ifloordiv", "<<": "ilshift", "@": "imatmul", "*": "imul",
    "%": "imod", "|": "ior", "**": "ipow", ">>": "irshift", "-": "isub", "/": "itruediv",
    "^": "ixor",
}  # fmt: skip


def _union(values) -> frozenset:
    out: frozenset = frozenset()
    for value in values:
        if value is not _NULL:
            out |= value.names
    return out


def translate(
    code: types.CodeType, name: str, rename_global, inert: str = "", takes_globals=frozenset()
) -> Glue:
    """``code`` (straight-line) as the body of a Python function named ``name``.

    Globals renamed to something starting with ``inert`` are calls to drop: their results are
    ``None`` and the locals that only held them disappear.
    """
    if code.co_cellvars or code.co_freevars:
        raise GlueError("transformed code with closure cells is not handled")
    translator = _Translator(code, name, rename_global, inert)
    translator.takes_globals = set(takes_globals)
    glue = translator.run()
    if inert:
        glue.lines = _drop_inert(glue.lines, inert)
    return glue


def _drop_inert(lines: list[str], inert: str) -> list[str]:
    dropped: set[str] = set()
    out = []
    for line in lines:
        target, sep, value = line.partition(" = ")
        if sep and target.isidentifier() and (value.startswith(inert) or value in dropped):
            dropped.add(target)
            continue
        if line.startswith("del ") and line[4:] in dropped:
            continue
        out.append(line)
    if any(inert in line for line in out):
        raise GlueError(f"a value of {inert} is used beyond the dropped calls")
    return out
