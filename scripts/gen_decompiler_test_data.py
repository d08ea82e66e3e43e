"""Writes tests/cpp/decompiler_samples.inc: small programs in the decompiler's own canonical
layout, marshalled by each installed CPython 3.10-3.13. The C++ test decompiles each and expects
the exact source back (which also means it recompiles to the same bytecode).

    python3 scripts/gen_decompiler_test_data.py   (uses ~/.pyenv/versions/3.1X.*)
"""

import glob
import os
import subprocess

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "tests", "cpp", "decompiler_samples.inc")

# (name, minimum minor, source). Each source is exactly what the decompiler prints. Versions
# where a case does not round-trip yet are listed in PENDING (the test skips nothing else).
CASES = [
    (
        "assignments",
        10,
        "x = 1\ny = x + 2 * z\na = b = [x, y]\nc, *d = a\nx += 1\nobj.attr[0] = y\n",
    ),
    ("if_elif_else", 10, "if a:\n    f()\nelif b:\n    g()\nelse:\n    h()\n"),
    ("conditions", 10, "if a and (b or c) and d is not None:\n    f()\n"),
    (
        "while_for",
        11,
        "def f(a):\n    while a < 10:\n        a += 1\n        if a == 3:\n            break\n"
        "    else:\n        g()\n    for x in a:\n        if x:\n            continue\n        print(x)\n",
    ),
    (
        "try_except",
        11,
        "def f(a):\n    try:\n        a()\n    except ValueError as e:\n        g(e)\n    except:\n"
        "        pass\n    else:\n        h()\n",
    ),
    ("with_stmt", 11, "def f(a):\n    with open(a) as fh:\n        return fh.read()\n"),
    (
        "definitions",
        11,
        "import os.path as p\nfrom . import x, y as z\n\n"[:-1]
        + 'def f(a, /, b=1, *args, c, d=2, **kw) -> int:\n    """doc"""\n    global g\n    g = a\n'
        "    return [i * 2 for i in args if i]\nclass C(Base, metaclass=M):\n    x = 1\n"
        "    def __m(self):\n        return self.__y\n",
    ),
    (
        "expressions",
        11,
        "x = a if b else c\ny = a < b < c\nz = f(*a, k=1, **kw)\nw = f'{a!r:>{n}} {b}'\n"
        "v = lambda q, r=2: q + r\nu = {k: v for k, v in items}\nt = a[1:2, ::3]\n",
    ),
    ("import_star", 10, "from os import *\nfrom . import x\n"),
    (
        "try_if_return",
        11,
        "def f(fp):\n    try:\n        if g(fp):\n            return True\n    except OSError:\n"
        "        pass\n    return False\n",
    ),
    (
        "finally_if",
        12,
        "def f(self):\n    try:\n        a()\n    finally:\n        if b:\n            c()\n        else:\n"
        "            d()\n        e()\n",
    ),
    (
        "if_nested_return",
        12,
        "def f(url):\n    if '/' in url:\n        i = url.find(';')\n        if i < 0:\n"
        "            return url\n    else:\n        i = g(url)\n    return url[:i]\n",
    ),
    (
        "with_return",
        11,
        "def f(self):\n    with suppress(OSError):\n        return g(self)\n    h()\n",
    ),
    (
        "chained_return",
        12,
        "def f(self, index):\n    if 0 <= index < len(self):\n        return self[index]\n",
    ),
    (
        "module_try_else",
        10,
        "try:\n    from _io import W\nexcept ImportError:\n    pass\nelse:\n    register(W)\n",
    ),
    (
        "return_in_finally_try",
        10,
        "def f(s):\n    try:\n        return g(s)\n    finally:\n        m.clear()\n",
    ),
    (
        "loop_starts_with_try",
        10,
        "def f(self):\n    while True:\n        try:\n            b = self.pop()\n"
        "        except IndexError:\n            return None\n        self.add(b)\n",
    ),
    (
        "match_statement",
        10,
        "def f(x):\n    match x:\n        case [1, *rest] if rest:\n            return rest\n"
        "        case {'k': v, **kw}:\n            return v, kw\n"
        "        case Point(x=0, y=[a, _]) | Point(a, 0):\n            return a\n"
        "        case 1 | 2 as n:\n            return n\n        case None:\n            return 0\n"
        "    return -1\n",
    ),
]


PENDING = {
    (12, "loop_starts_with_try"),
    (13, "loop_starts_with_try"),  # prints an equivalent else: ... continue
    (10, "while_for"),
    (10, "try_except"),
    (10, "with_stmt"),
    (10, "definitions"),
    (10, "expressions"),
}


def interpreters():
    found = {}
    for path in sorted(glob.glob(os.path.expanduser("~/.pyenv/versions/3.1[0-3].*/bin/python3"))):
        minor = int(path.split("/versions/3.")[1].split(".")[0])
        found[minor] = path
    return found


def main():
    rows = []
    for minor, python in sorted(interpreters().items()):
        for name, least, source in CASES:
            if minor < least or (minor, name) in PENDING:
                continue
            script = 'import marshal,sys; sys.stdout.write(marshal.dumps(compile(sys.stdin.read(), "s", "exec")).hex())'
            hexdata = subprocess.run(
                [python, "-c", script], input=source, capture_output=True, text=True, check=True
            ).stdout
            rows.append((minor, name, source, hexdata))
    with open(OUT, "w") as out:
        out.write("// GENERATED by scripts/gen_decompiler_test_data.py; do not edit.\n")
        out.write("// {minor, name, expected source, marshalled module code as hex}\n")
        for minor, name, source, hexdata in rows:
            escaped = source.encode("unicode_escape").decode().replace('"', '\\"')
            out.write(f'{{{minor}, "{name}", "{escaped}",\n "{hexdata}"}},\n')


if __name__ == "__main__":
    main()
