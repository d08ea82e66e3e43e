"""Sizes over symbols: the symbolic dims of a graph traced with dynamic shapes, kept as sympy
expressions through lowering and written as the artifact's expression table
(``schema/program.fbs``: Expr, Symbol).

A dim is an ``int`` or a sympy expression over the ShapeEnv's symbols (``s0``, ...). Lowering
computes strides and offsets with them as it does with ints; a comparison whose truth depends on
the symbols is decided from their ranges (:meth:`Shapes.lt`) or makes its node fall back.
Nothing here reads a SymInt as an int: that would add a guard and specialize the graph.
"""

from __future__ import annotations

import sympy
import torch

CONST, SYMBOL, ADD, MUL, FLOORDIV, MOD, MAX, MIN = range(8)
INT64_MAX = 2**63 - 1
_MAX_POWER = 8


class Unbound(Exception):
    """A size the runtime cannot compute: a symbol no input dim binds, or an operation the
    expression table has no entry for."""


def dim_of(d):
    """An int, or the sympy expression of a symbolic size."""
    if isinstance(d, torch.SymInt):
        expr = d.node.expr
        return int(expr) if expr.is_number else expr
    return int(d)


def is_symbolic(d) -> bool:
    return isinstance(d, sympy.Basic) and not d.is_number


def shape_env_of(val):
    """The ShapeEnv behind a traced value's symbolic sizes, or None."""
    for d in getattr(val, "shape", ()):
        if isinstance(d, torch.SymInt):
            return d.node.shape_env
    if isinstance(val, torch.SymInt):
        return val.node.shape_env
    return None


class Shapes:
    """What lowering knows about the symbols of one graph: their example values and ranges."""

    def __init__(self) -> None:
        self.env = None

    def note(self, val) -> None:
        if self.env is None:
            self.env = shape_env_of(val)

    def hint(self, d) -> int:
        """The value of a size at the example the graph was traced with."""
        if not is_symbolic(d):
            return int(d)
        values = getattr(self.env, "backed_var_to_val", None) or self.env.var_to_val
        return int(d.xreplace(values))

    def lt(self, a, b) -> bool:
        """``a < b`` for every value of the symbols, or Unbound when that depends on them."""
        if not is_symbolic(a) and not is_symbolic(b):
            return a < b
        known = None
        if self.env is not None:
            known = self.env._maybe_evaluate_static(sympy.Lt(a, b))
        if known is None:
            raise Unbound(f"whether {a} < {b} depends on the sizes")
        return bool(known)

    def range_of(self, symbol) -> tuple[int, int]:
        r = self.env.var_to_range.get(symbol) if self.env is not None else None
        lo = int(r.lower) if r is not None and isinstance(r.lower, sympy.Integer) else 0
        hi = int(r.upper) if r is not None and isinstance(r.upper, sympy.Integer) else INT64_MAX
        return max(lo, 0), min(hi, INT64_MAX)


class ExprTable:
    """The expression table of one program: symbols bound by input dims, expressions in
    topological order (operands before their users), each distinct expression once."""

    def __init__(self, shapes: Shapes) -> None:
        self.shapes = shapes
        self.symbols: list[tuple[int, int, int, int]] = []  # (input, dim, min, max)
        self.symbol_ids: dict = {}
        self.exprs: list[tuple[int, int, int]] = []  # (op, a, b)
        self.ids: dict = {}

    def bind_inputs(self, input_shapes) -> None:
        """Each symbol is bound by the first input dim that is exactly that symbol."""
        for position, shape in enumerate(input_shapes):
            for dim, d in enumerate(shape):
                if isinstance(d, sympy.Symbol) and d not in self.symbol_ids:
                    self.symbol_ids[d] = len(self.symbols)
                    self.symbols.append((position, dim, *self.shapes.range_of(d)))

    def ref(self, d) -> int:
        """-1 for a static size, else the id of its expression."""
        return self.encode(d) if is_symbolic(d) else -1

    def encode(self, e) -> int:
        if e in self.ids:
            return self.ids[e]
        entry = self._entry(e)
        if entry not in self.ids:
            self.ids[entry] = len(self.exprs)
            self.exprs.append(entry)
        self.ids[e] = self.ids[entry]
        return self.ids[e]

    def _entry(self, e) -> tuple[int, int, int]:
        from torch.utils._sympy.functions import FloorDiv, Mod, PythonMod

        if e.is_Integer:
            return (CONST, int(e), 0)
        if isinstance(e, sympy.Symbol):
            if e not in self.symbol_ids:
                raise Unbound(f"symbol {e} is not the size of an input dim")
            return (SYMBOL, self.symbol_ids[e], 0)
        if isinstance(e, (sympy.Add, sympy.Mul, sympy.Max, sympy.Min)):
            op = {sympy.Add: ADD, sympy.Mul: MUL, sympy.Max: MAX, sympy.Min: MIN}[e.func]
            return self._fold(op, e.args)
        if isinstance(e, FloorDiv):
            return (FLOORDIV, self.encode(e.args[0]), self.encode(e.args[1]))
        if isinstance(e, (Mod, PythonMod, sympy.Mod)):
            return (MOD, self.encode(e.args[0]), self.encode(e.args[1]))
        if isinstance(e, sympy.Pow) and e.exp.is_Integer and 1 <= int(e.exp) <= _MAX_POWER:
            return self._fold(MUL, [e.base] * int(e.exp))
        raise Unbound(f"no expression for the size {e}")

    def _fold(self, op: int, args) -> tuple[int, int, int]:
        ids = [self.encode(a) for a in args]
        acc = ids[0]
        for b in ids[1:-1]:
            acc = self.encode_entry((op, acc, b))
        return (op, acc, ids[-1]) if len(ids) > 1 else self.exprs[acc]

    def encode_entry(self, entry: tuple[int, int, int]) -> int:
        if entry not in self.ids:
            self.ids[entry] = len(self.exprs)
            self.exprs.append(entry)
        return self.ids[entry]
