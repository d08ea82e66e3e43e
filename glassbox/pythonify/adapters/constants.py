"""Constants marshal cannot carry, replaced by named placeholders before decompiling.

Dynamo puts any object in ``co_consts`` (``torch.device('cpu')``, say); ``glassbox.decompile``
marshals the code, so each such constant is swapped for a unique string first, and the string is
turned back into a name in the decompiled tree. The glue binds that name to the object, restated
by value. A small local stand-in: the decompiler is to name such constants itself
(``DESIGN.md``: "such constants are named, not lost"); swap this module out when it does.
"""

from __future__ import annotations

import marshal
import types
from dataclasses import dataclass, field

PREFIX = "__glassbox_constant_"


@dataclass
class Placeholders:
    """Placeholder name -> the constant it stands for."""

    values: dict[str, object] = field(default_factory=dict)

    def name_for(self, value: object) -> str:
        for name, known in self.values.items():
            if known is value:
                return name
        name = f"{PREFIX}{len(self.values)}"
        self.values[name] = value
        return name


def _marshallable(value: object) -> bool:
    try:
        marshal.dumps(value)
    except ValueError:
        return False
    return True


def with_placeholders(code: types.CodeType, placeholders: Placeholders) -> types.CodeType:
    """``code`` (and its nested code objects) with each unmarshallable constant a placeholder."""
    consts = []
    for value in code.co_consts:
        if isinstance(value, types.CodeType):
            value = with_placeholders(value, placeholders)
        elif not _marshallable(value):
            value = placeholders.name_for(value)  # a string constant: the sentinel
        consts.append(value)
    return code.replace(co_consts=tuple(consts))
