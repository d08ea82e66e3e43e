"""The last pass of the decompiler's readable output: stored-on-the-way values become statements.

Generated code (Dynamo's above all) keeps a value it computes for later by storing a copy on its
way (``COPY 1; STORE_FAST tmp``). The exact output writes that as an assignment expression inside
the expression that goes on using the value, nested as deep as the chain:

    x = (t3 := (t2 := (t1 := self._modules)['bert']._modules)['embeddings'])._buffers['ids']

A person writes one statement per stored value. An assignment expression is hoisted into a
statement before its own when it is the first thing that statement evaluates (the leftmost
operand all the way down), so nothing runs in another order:

    t1 = self._modules
    t2 = t1['bert']._modules
    t3 = t2['embeddings']
    x = t3._buffers['ids']

Statements are rewritten one at a time in the source text, so the comments and the layout of
everything else stay as the decompiler wrote them.
"""

from __future__ import annotations

import ast

# The operand Python evaluates first in each kind of expression.
_FIRST = {
    ast.Attribute: "value",
    ast.Subscript: "value",
    ast.Call: "func",
    ast.BinOp: "left",
    ast.Compare: "left",
}


def _first_walrus(expression: ast.expr) -> tuple[ast.AST, str, ast.NamedExpr] | None:
    """(parent, field, walrus) for the assignment expression ``expression`` evaluates first."""
    parent, field, node = None, "", expression
    while True:
        if isinstance(node, ast.NamedExpr):
            return (parent, field, node) if isinstance(node.target, ast.Name) else None
        if isinstance(node, ast.BoolOp):
            parent, field, node = node, "values", node.values[0]
            continue
        if isinstance(node, (ast.Tuple, ast.List)) and node.elts:
            parent, field, node = node, "elts", node.elts[0]
            continue
        name = _FIRST.get(type(node))
        if name is None:
            return None
        parent, field, node = node, name, getattr(node, name)


def _replace(parent: ast.AST, field: str, old: ast.AST, new: ast.AST) -> None:
    value = getattr(parent, field)
    if isinstance(value, list):
        value[value.index(old)] = new
    else:
        setattr(parent, field, new)


def _expression_of(statement: ast.stmt) -> tuple[ast.AST, str] | None:
    """Where the expression a statement evaluates first lives (assignments: their value)."""
    if isinstance(statement, ast.Assign) or (
        isinstance(statement, ast.AnnAssign) and statement.value is not None
    ):
        return statement, "value"
    if isinstance(statement, (ast.Expr, ast.Return)) and statement.value is not None:
        return statement, "value"
    if isinstance(statement, ast.If):
        return statement, "test"
    return None


def hoist(statement: ast.stmt) -> list[ast.stmt]:
    """``statement`` preceded by its leading stored values, as assignments (innermost first)."""
    where = _expression_of(statement)
    found = _first_walrus(getattr(*where)) if where is not None else None
    if found is None:
        return [statement]
    holder, field = where
    parent, parent_field, walrus = found
    name = ast.Name(walrus.target.id, ast.Load())
    if parent is None:
        setattr(holder, field, name)
    else:
        _replace(parent, parent_field, walrus, name)
    assign = ast.Assign([ast.Name(walrus.target.id, ast.Store())], walrus.value)
    before = hoist(ast.copy_location(assign, statement))
    if isinstance(statement, ast.Expr) and statement.value is name:
        return before  # ``(t := f())`` as a statement is ``t = f()``
    return before + [statement]


def _statements(tree: ast.AST):
    """Every statement in a block (not the ``elif`` that is an ``If``'s whole orelse)."""
    for node in ast.walk(tree):
        for field in ("body", "orelse", "finalbody"):
            block = getattr(node, field, None)
            if isinstance(block, list) and block and isinstance(block[0], ast.stmt):
                if field == "orelse" and isinstance(node, ast.If) and len(block) == 1:
                    if isinstance(block[0], ast.If):
                        continue  # an elif: nothing can go before it
                yield from block
        for handler in getattr(node, "handlers", []):
            yield from handler.body


def _rewritten(statement: ast.stmt, line: str) -> str | None:
    """The text replacing ``statement``'s one line, or None to leave it as written."""
    raw = line.rstrip("\n").encode()  # ast's column offsets count UTF-8 bytes
    indent = raw[: statement.col_offset].decode()
    if isinstance(statement, ast.If):
        test = statement.test
        if test.lineno != statement.lineno or test.end_lineno != statement.lineno:
            return None
        header = b"if " + raw[test.col_offset : test.end_col_offset] + b":"
        if raw.strip() != header:
            return None  # a comment or the body on the header line: keep it
        before = hoist(statement)[:-1]
        text = "".join(indent + ast.unparse(s) + "\n" for s in before)
        return text + f"{indent}if {ast.unparse(statement.test)}:\n"
    if statement.lineno != statement.end_lineno:
        return None  # keep multi-line statements (and any comment inside them) as written
    tail = raw[statement.end_col_offset :].decode()
    return "\n".join(indent + ast.unparse(s) for s in hoist(statement)) + tail + "\n"


def readable(source: str) -> str:
    """``source`` with leading assignment expressions hoisted into statements."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return source
    lines = source.splitlines(keepends=True)
    edits = []
    for statement in _statements(tree):
        where = _expression_of(statement)
        if where is None or _first_walrus(getattr(*where)) is None:
            continue
        text = _rewritten(statement, lines[statement.lineno - 1])
        if text is not None:
            edits.append((statement.lineno, text))
    for lineno, text in sorted(edits, reverse=True):
        lines[lineno - 1] = text
    return "".join(lines)
