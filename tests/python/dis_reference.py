#!/usr/bin/env python3
"""The reference listing: CPython's own dis.dis of the module code in each .pyc.

Run it under the interpreter that wrote the .pyc files (the marshal format and dis are per version):

    python3.12 tests/python/dis_reference.py FILE.pyc [FILE.pyc ...]

With several files, each listing follows a line '### FILE', as `glassbox-decompile --dis` prints
them, so the two outputs can be compared file by file (scripts/compare_dis.py does).
"""

from __future__ import annotations

import dis
import marshal
import sys

PYC_HEADER_SIZE = 16  # magic, flags, then mtime + size or the source hash


def module_code(path: str):
    with open(path, "rb") as f:
        data = f.read()
    return marshal.loads(data[PYC_HEADER_SIZE:])


def main(paths: list[str]) -> int:
    sys.stdout.reconfigure(encoding="utf-8", errors="backslashreplace")
    status = 0
    for path in paths:
        if len(paths) > 1:
            print(f"### {path}")
        try:
            dis.dis(module_code(path))
        except Exception as error:  # report and go on with the next file
            print(f"dis_reference: {path}: {type(error).__name__}: {error}", file=sys.stderr)
            status = 2
    sys.stdout.flush()
    return status


if __name__ == "__main__":
    if len(sys.argv) < 2:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    sys.exit(main(sys.argv[1:]))
