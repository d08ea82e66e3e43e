"""Resolve a merge conflict in a list-shaped file (the decompiler's case list,
``tests/python/decompiler/decompile_cases.py``) where two branches appended at the same place.

    git merge BRANCH                                   # conflicts in FILE
    git show HEAD:FILE > FILE
    python3 scripts/merge_cases.py FILE BRANCH [--skip]
    git add FILE && git commit

Takes HEAD's version of FILE and applies the branch's own changes (merge base -> branch), each
located by its unique context in HEAD (the lines after it, else the lines before it). A change
whose context is not found stops it, or is skipped and printed with ``--skip`` (apply it by
hand). Check the result: ``python3 -c "import ast; ast.parse(open(FILE).read())"`` and the
tests (a duplicated case name fails ``test_every_construct_has_several_inputs_or_is_a_module``).
"""

from __future__ import annotations

import difflib
import subprocess
import sys


def git(*args: str) -> str:
    return subprocess.check_output(["git", *args], text=True)


def main() -> None:
    path, branch = sys.argv[1], sys.argv[2]
    skip = "--skip" in sys.argv
    base = git("merge-base", "HEAD", branch).strip()
    old = git("show", f"{base}:{path}").split("\n")
    new = git("show", f"{branch}:{path}").split("\n")
    out = git("show", f"HEAD:{path}").split("\n")

    def find(seq: list[str]) -> int | None:
        hits = [k for k in range(len(out) - len(seq) + 1) if out[k : k + len(seq)] == seq]
        return hits[0] if len(hits) == 1 else None

    matcher = difflib.SequenceMatcher(a=old, b=new, autojunk=False)
    changes = [op for op in matcher.get_opcodes() if op[0] != "equal"]
    for tag, i1, i2, j1, j2 in reversed(changes):
        pos = None
        for context in (3, 5, 8, 12):
            after = find(old[i1 : i2 + context])
            if after is not None:
                pos = after
                break
            before = find(old[max(0, i1 - context) : i2])
            if before is not None:
                pos = before + (i1 - max(0, i1 - context))
                break
        if pos is None:
            if skip:
                print("SKIPPED", tag, old[i1:i2])
                continue
            raise SystemExit(f"no unique context for {tag} of lines {i1}-{i2}: {old[i1:i2]}")
        out = out[:pos] + new[j1:j2] + out[pos + (i2 - i1) :]
    with open(path, "w") as handle:
        handle.write("\n".join(out))
    print("applied", len(changes), "changes")


if __name__ == "__main__":
    main()
