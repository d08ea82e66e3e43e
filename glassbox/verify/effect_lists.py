"""The lists a frame builds, for :mod:`glassbox.verify.effects`: bookkeeping while unseen.

An exact ``list`` that only this frame holds changes only through the frame's own list
operations, and reading, slicing, extending or assigning into it with constant indices calls no
other code. So, while its items are known, those operations are bookkeeping: Dynamo builds and
reshapes lists with ``LIST_EXTEND`` and slices where source calls ``.extend`` or indexes. Once a
list reaches an effect (passed to a call, returned, stored anywhere else) it escapes: it is then
named by the order in which lists escaped, with its items at that moment, and every later
operation on it is an effect.
"""

from __future__ import annotations

from typing import Any

LIST = "<list>"  # (LIST, n): the n-th list the frame built; (LIST, list, name): its bound method
LIST_METHODS = frozenset({"append", "extend"})


class Containers:
    """Containers the frame builds, named ``(TAG, n)``: their items while known (None once
    escaped), and the order in which they escaped."""

    TAG = ""
    ESCAPED = ""

    def __init__(self) -> None:
        self.items: list[Any] = []
        self.escaped: dict[int, int] = {}

    def escaped_items(self, items: Any) -> tuple:
        """The known items of an escaping container, as the effect records them."""
        return tuple(map(self.escape, items or ()))

    def escape(self, term: Any) -> Any:
        """``term`` as an effect sees it: every known container of this kind in it escapes."""
        if not isinstance(term, tuple):
            return term
        if len(term) == 2 and term[0] == self.TAG:
            number = term[1]
            if number in self.escaped:
                return (self.ESCAPED, self.escaped[number])
            self.escaped[number] = len(self.escaped)
            items, self.items[number] = self.items[number], None
            return (self.ESCAPED, self.escaped[number], self.escaped_items(items))
        return tuple(self.escape(item) for item in term)


class Lists(Containers):
    """The frame's lists: their items while known (None once escaped)."""

    TAG = LIST
    ESCAPED = "escaped list"

    def build(self, items: list[Any]) -> tuple:
        self.items.append(list(items))
        return (LIST, len(self.items) - 1)

    def of(self, term: Any) -> list[Any] | None:
        """The items of a list term whose items are known (the list itself, to change), else
        None."""
        if isinstance(term, tuple) and len(term) == 2 and term[0] == LIST:
            return self.items[term[1]]
        return None

    def values(self, term: Any) -> list[Any] | None:
        """The items of a known list or of a tuple term, as a new list, else None."""
        items = self.of(term)
        if items is not None:
            return list(items)
        if isinstance(term, tuple) and term[:1] == ("tuple",):
            return list(term[1])
        return None

    def read(self, container: Any, key: tuple) -> Any | None:
        """``container[key]`` where both are known: an item, or a new list for a slice; an item
        of a tuple term (an exact tuple) by a constant int."""
        if container[:1] == ("tuple",) and key[:2] == ("const", "int"):
            at = constant_index(key, len(container[1]))
            return None if at is None else container[1][at]
        items = self.of(container)
        index = None if items is None else constant_index(key, len(items))
        if index is None:
            return None
        return self.build(items[index]) if isinstance(index, slice) else items[index]

    def write(self, container: Any, key: tuple, value: Any | None) -> bool:
        """``container[key] = value`` (``del`` for None) where both are known; False if not."""
        items = self.of(container)
        index = None if items is None else constant_index(key, len(items))
        if index is None:
            return False
        if value is None:
            del items[index]
        elif isinstance(index, slice):
            new = self.values(value)
            if new is None or index.step not in (None, 1):
                return False
            items[index] = new
        else:
            items[index] = value
        return True

    def call(self, method: tuple, args: tuple, kw_names: tuple) -> bool:
        """``list.append(x)`` / ``list.extend(known)`` on a known list; False if not."""
        items = self.of(method[1])
        if items is None or len(args) != 1 or kw_names:
            return False
        if method[2] == "append":
            items.append(args[0])
            return True
        added = self.values(args[0])
        if added is None:
            return False
        items.extend(added)
        return True


def constant_index(term: tuple, length: int) -> int | slice | None:
    """A constant index in range, or a slice of constants, of a list of ``length`` items."""
    if term[:2] == ("const", "int"):
        value = int(term[2])
        return value if -length <= value < length else None
    if term[:1] == ("slice",) and all(part[:1] == ("const",) for part in term[1]):
        if any(part[1] not in ("int", "NoneType") for part in term[1]):
            return None
        parts = [None if part[1] == "NoneType" else int(part[2]) for part in term[1]]
        return None if parts[2:3] == [0] else slice(*parts)
    return None
