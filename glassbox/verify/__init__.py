"""The decompiler's verifier: decompile, recompile with the same interpreter, compare strictly.

``python -m glassbox.verify [--python 3.12|PATH|all] [FILES]`` judges every file (by default the
judging interpreter's standard library without its tests) and prints, per version, the share of
files and code objects whose recompiled bytecode equals the original, the share of outputs that
compile, crashes, hangs, time per code object and the first difference of each failure.

Layout: ``cli`` (options), ``pythons`` (finding interpreters), ``sources`` (finding files),
``runner`` (worker processes in parallel), ``worker`` (runs *inside* the judging interpreter),
``normalize`` (what is compared, also run inside it), ``report`` (figures), ``progress``.
"""

from __future__ import annotations

from glassbox.verify.normalize import Comparison, Difference, compare

__all__ = ["Comparison", "Difference", "compare", "main"]


def main(argv: list[str] | None = None) -> int:
    """Run the verifier's command line with ``argv``; returns the exit code."""
    from glassbox.verify.cli import main as cli_main

    return cli_main(argv)
