"""The exceptions and warnings glassbox raises."""

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


class DecompileWarning(UserWarning):
    """:func:`glassbox.decompile` returned source with regions it could not reconstruct.

    ``fallbacks`` lists them as ``(code_name, first_line, reason)`` tuples; the source marks
    each region where it stands.
    """

    def __init__(self, fallbacks: list) -> None:
        self.fallbacks = list(fallbacks)
        regions = "; ".join(f"{name} (line {line}): {reason}" for name, line, reason in fallbacks)
        super().__init__(f"{len(self.fallbacks)} region(s) could not be reconstructed: {regions}")
