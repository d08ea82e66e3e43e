"""Pythonify: one explicit, runnable Python file for everything torch.compile does at run time.

Adapters (``adapters/``) turn what Dynamo, AOTAutograd and the backend produced into IR nodes
(``ir.py``); :class:`RuntimeWrapperPipeline` (``pipeline.py``) assembles them; ``gen_python``
writes the file and ``gen_binary`` builds the same program as an in-memory callable.
See the README's "Pythonify" section.
"""

import sys

from glassbox.pythonify.adapters.inputs import PythonifyError
from glassbox.pythonify.api import PythonifiedCompile, compile, pythonify
from glassbox.pythonify.pipeline import RuntimeWrapperPipeline

__all__ = [
    "PythonifiedCompile",
    "PythonifyError",
    "RuntimeWrapperPipeline",
    "compile",
    "pythonify",
]


class _CallableModule(type(sys.modules[__name__])):
    """``glassbox.pythonify`` is both this package and the function ``glassbox.pythonify(...)``."""

    def __call__(self, *args, **kwargs):
        return pythonify(*args, **kwargs)


sys.modules[__name__].__class__ = _CallableModule
