"""The dicts a frame builds with constant string keys, for :mod:`glassbox.verify.effects`.

Source passes keyword arguments through a copy: ``f(*a, **d)`` compiles to ``BUILD_MAP 0; <d>;
DICT_MERGE 1; CALL_FUNCTION_EX 1``, where Dynamo hands the dict it built straight to
``CALL_FUNCTION_EX``. A dict built by ``BUILD_MAP`` or ``BUILD_CONST_KEY_MAP`` whose keys are all
constant ``str`` runs no other code (hashing and comparing exact strings calls nothing) and, until
it reaches an effect, only this frame holds it; merging one such dict into another
(``DICT_MERGE``, ``DICT_UPDATE``) runs no code either. So, while its items are known, building and
merging are bookkeeping, and a copy is a new known dict with the same items.

Once a dict reaches an effect (passed to a call, returned, stored anywhere else, read from) it
escapes, as lists do in :mod:`glassbox.verify.effect_lists`: it is named by the order in which
dicts escaped, with its items at that moment, and later uses name only that number. So passing a
copy of ``d`` where the other side passes ``d`` itself compares equal exactly when ``d`` is not
used again on either side: a later use of the original would be an escape the other side does not
have, or a short name where the other side gives the items.
"""

from __future__ import annotations

from typing import Any

from glassbox.verify.effect_lists import Containers

DICT = "<dict>"  # (DICT, n): the n-th dict the frame built


class Dicts(Containers):
    """The frame's dicts: their items (key term -> value term) while known, None once escaped."""

    TAG = DICT
    ESCAPED = "escaped dict"

    def build(self, pairs: list[Any]) -> tuple | None:
        """A new dict of ``key, value, ...`` when every key is a constant str, else None."""
        keys = pairs[0::2]
        if not all(isinstance(key, tuple) and key[:2] == ("const", "str") for key in keys):
            return None
        self.items.append(dict(zip(keys, pairs[1::2], strict=True)))
        return (DICT, len(self.items) - 1)

    def of(self, term: Any) -> dict[tuple, Any] | None:
        """The items of a dict term whose items are known (the dict itself, to change)."""
        if isinstance(term, tuple) and len(term) == 2 and term[0] == DICT:
            return self.items[term[1]]
        return None

    def merge(self, target: Any, source: Any, strict: bool) -> bool:
        """``DICT_MERGE`` (``strict``: a repeated key raises) or ``DICT_UPDATE`` of a known dict
        into a known dict; False if either is not known or a key repeats where that raises."""
        into, added = self.of(target), self.of(source)
        if into is None or added is None or target == source:
            return False
        if strict and any(key in into for key in added):
            return False
        into.update(added)
        return True

    def escaped_items(self, items: Any) -> tuple:
        return tuple((key, self.escape(value)) for key, value in (items or {}).items())
