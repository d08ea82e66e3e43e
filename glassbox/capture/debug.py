"""``glassbox.debug()``: run compiled code with breakpoints in the dumped files honoured.

Inside or after a capture, the transformed code Dynamo runs was compiled from the dump files (where
the decompiler verified it), so pdb or an IDE stops at breakpoints set in them. ``debug()`` says
where the dump is and, unless ``pause=False``, stops in pdb first (through ``breakpoint()``, so
``PYTHONBREAKPOINT=0`` turns it off) to let you set breakpoints before the program goes on.
"""

from __future__ import annotations

import contextlib
import os

from glassbox.capture import session


@contextlib.contextmanager
def debug(dump_dir: str | os.PathLike | None = None, *, pause: bool = True):
    """Context manager; ``dump_dir`` defaults to the active or most recent capture's."""
    active = session.active_capture()
    where = dump_dir or (active.dump_dir if active else session.last_dump_dir())
    if where is None:
        raise RuntimeError("glassbox.debug() needs a capture first: use glassbox.capture(dump_dir)")
    print(
        f"glassbox: the compiled code runs from {where}; open the full_code_for_* files there and"
        " set breakpoints in the compile_*/transformed_*.py files."
    )
    if pause:
        breakpoint()  # noqa: T100 - the point of debug(): a stop to set breakpoints
    yield str(where)
