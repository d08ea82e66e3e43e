"""Capture: everything torch.compile did, as readable Python you can step through.

``with glassbox.capture(dump_dir): ...`` hooks into Dynamo for the block and writes, per compiled
frame, the transformed code and resume functions (decompiled; verified code is what runs), the
guards as ``guard(L, G)`` functions, the graphs and backend output, a ``full_code`` file with a
dispatcher, and ``index.md``/``index.json``. See the README's "Capture" section.
"""

import sys

from glassbox.capture.debug import debug
from glassbox.capture.session import Capture, capture, prepare_debug

__all__ = ["Capture", "capture", "debug", "prepare_debug"]


class _CallableModule(type(sys.modules[__name__])):
    """``glassbox.capture`` is both this package and the function: ``glassbox.capture(dir)``."""

    def __call__(self, dump_dir, *, run_dumped="verified"):
        return capture(dump_dir, run_dumped=run_dumped)


sys.modules[__name__].__class__ = _CallableModule
