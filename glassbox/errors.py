"""The exceptions glassbox raises."""

from __future__ import annotations


class BytecodeError(ValueError):
    """Malformed, truncated or unsupported bytecode.

    ``reason`` says what is wrong; ``offset`` is the byte offset in the input where it was found,
    or ``None`` when the problem has no position.
    """

    def __init__(self, reason: str, offset: int | None = None) -> None:
        self.reason = reason
        self.offset = offset
        where = f"at offset {offset}: " if offset is not None else ""
        super().__init__(f"{where}{reason}")
