"""glassbox: make torch.compile a glass box.

The bytecode layer is available now: :func:`dis` prints a listing equivalent to the running
interpreter's ``dis.dis``, computed by the C++ core from the marshalled code object.
"""

from __future__ import annotations

from glassbox.decompiler import dis, disassemble
from glassbox.errors import BytecodeError

__all__ = ["BytecodeError", "dis", "disassemble"]
__version__ = "0.1.0"
