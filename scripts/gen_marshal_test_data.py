#!/usr/bin/env python3
"""Writes tests/cpp/marshal_samples.inc and tests/cpp/repr_cases.inc: real marshal data and what
CPython says about it, so that tests/cpp/test_marshal.cpp and test_repr.cpp check the C++ reader
and repr against the interpreters without needing them at test time.

    python3 scripts/gen_marshal_test_data.py

It runs the pyenv interpreters 3.10, 3.11, 3.12 and 3.13 (~/.pyenv/versions/3.X.*) in turn.
For each it compiles SAMPLE_SOURCE to a .pyc image and records every code object's fields as
that interpreter reports them. With 3.11 it also marshals REPR_VALUES and records their repr().
"""

import glob
import json
import os
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
SAMPLES_OUTPUT = ROOT / "tests" / "cpp" / "marshal_samples.inc"
REPR_OUTPUT = ROOT / "tests" / "cpp" / "repr_cases.inc"
VERSIONS = ["3.10", "3.11", "3.12", "3.13"]

# Not raw: a backslash at a line's end joins it to the next (its line numbers are part of the data).
SAMPLE_SOURCE = '''\
"""Sample module for the marshal reader tests."""
import os

CONSTANTS = (1.5, -0.0, 1e100, 2j, (1+2j), 10**30, -2**70, \
b"\\x00'\\"", "caf\\xe9 \\u2028 \\U0001F600", None, ...)

def simple(a, b=2, *args, c, d=4, **kwargs):
    total = a + b
    return total

def posonly(x, y, /, z):
    return x if z in {7} else y

def outer(arg, other):
    captured = 1
    def inner(q):
        nonlocal captured
        captured += q
        return arg + captured
    return inner

class Sample:
    attr = 3
    def method(self):
        return [v * 2 for v in range(3) if v]
    def uses_class(self):
        return __class__

async def coro(x):
    async with x as y:
        await y
    return lambda: x

def gen():
    try:
        yield 1
    except ValueError as e:
        pass
    finally:
        return 5
'''

# Evaluated by the 3.11 interpreter; each is marshalled and its repr() recorded.
REPR_VALUES = r"""[
    0, 1, -1, 2**31 - 1, -2**31, 2**31, 2**63, -2**63 - 1, 2**100, -(2**1000), 10**4299,
    -(10**4300 - 1), 10**4300,
    0.0, -0.0, 1.0, -1.5, 0.1, 1/3, 1e-05, 0.0001, 1e16, 1234567890123456.0, 1.5e20, 1e100,
    1e-300, 5e-324,
    1.7976931348623157e308, 123456.789, float("inf"), float("-inf"), float("nan"), -float("nan"),
    0j, 1j, -1j, -0j, complex(-0.0, -0.0), complex(-0.0, 1), complex(0.0, -1), 1 + 2j,
    -1.5 - 2.5j, complex(1e16, 1e-5),
    complex(0, float("inf")), complex(float("nan"), float("nan")),
    complex(float("inf"), -float("inf")),
    complex(1, float("nan")), complex(1234567890123456.0, 0),
    b"", b"abc", b"'", b'"', b"'\"", b"\\", b"\t\n\r\x00\x1f\x7f\x80\xff", bytes(range(256)),
    "", "abc", "'", '"', "'\"", "\\", "\t\n\r\x00\x1f\x7f", "\x80\x9f\xa0\xa1\xad\xe9\xff",
    "\u0100\u0378\u200b\u2028\u3000\uffff",
    "\ud800", "\udfff", "a\ud83d\ude00b", "\U0001F600\U000E0001\U0010FFFF\U000F0000", "caf\xe9",
    "\u4e2d\u6587",
    (), (1,), (1, 2), ((),), (None, True, False, ...), [1, "a"], [], {}, {1: "a", "b": (2,)},
    frozenset(), frozenset({5}),
    {7}, StopIteration,
]"""
CHILD = r"""
import importlib._bootstrap_external as bootstrap
import json, marshal, sys, types

def code_repr(code):
    return '<code object %s at 0x0, file "%s", line %d>' % (
        code.co_name, code.co_filename, code.co_firstlineno)

def describe(code, out):
    out.append({
        "qualname": getattr(code, "co_qualname", code.co_name), "name": code.co_name,
        "ints": [code.co_argcount, code.co_posonlyargcount, code.co_kwonlyargcount, code.co_nlocals,
                 code.co_stacksize, code.co_flags, code.co_firstlineno],
        "varnames": code.co_varnames, "cellvars": code.co_cellvars, "freevars": code.co_freevars,
        "names": code.co_names,
        "consts": [code_repr(k) if isinstance(k, types.CodeType) else repr(k)
                   for k in code.co_consts],
        "sizes": [len(code.co_code), len(code.co_linetable),
                  len(getattr(code, "co_exceptiontable", b""))],
    })
    for k in code.co_consts:
        if isinstance(k, types.CodeType):
            describe(k, out)

source, repr_values = json.loads(sys.stdin.read())
code = compile(source, "sample.py", "exec")
pyc = bytes(bootstrap._code_to_timestamp_pyc(code, 0, 0))
codes = []
describe(code, codes)
result = {"minor": sys.version_info[1], "magic": int.from_bytes(pyc[:2], "little"),
          "pyc": pyc.hex(), "codes": codes}
if repr_values:
    cases = []
    for value in eval(repr_values):
        try:
            text = repr(value)
        except ValueError:  # an int beyond sys.int_info.default_max_str_digits
            text = "<int of %d bits>" % value.bit_length()
        cases.append([marshal.dumps(value).hex(), text])
    result["repr_cases"] = cases
print(json.dumps(result))
"""


def interpreter(version):
    found = sorted(
        glob.glob(os.path.expanduser(f"~/.pyenv/versions/{version}.*/bin/python{version}"))
    )
    if not found:
        sys.exit(f"no Python {version} under ~/.pyenv/versions")
    return found[-1]


def run_child(version):
    payload = json.dumps([SAMPLE_SOURCE, REPR_VALUES if version == "3.11" else None])
    out = subprocess.run(
        [interpreter(version), "-c", CHILD],
        input=payload,
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(out.stdout)


def c_string(text):
    """A C++ string literal for UTF-8 `text` (surrogates kept as surrogatepass bytes)."""
    out = []
    for byte in text.encode("utf-8", "surrogatepass"):
        if byte in (0x22, 0x5C):
            out.append("\\" + chr(byte))
        elif 0x20 <= byte < 0x7F and chr(byte) != "?":  # '?' avoided: no trigraph surprises
            out.append(chr(byte))
        else:
            out.append(f"\\{byte:03o}")
    return '"' + "".join(out) + '"'


def c_hex(hex_text, indent):
    chunks = [hex_text[i : i + 90] for i in range(0, len(hex_text), 90)] or [""]
    return ("\n" + indent).join(f'"{chunk}"' for chunk in chunks)


def c_strings(items):
    return "{" + ", ".join(c_string(item) for item in items) + "}"


def code_entry(code):
    ints = ", ".join(str(n) for n in code["ints"])
    sizes = ", ".join(str(n) for n in code["sizes"])
    lines = [
        f"      {{{c_string(code['qualname'])}, {c_string(code['name'])}, {{{ints}}}, {{{sizes}}},",
        f"       {c_strings(code['varnames'])}, {c_strings(code['cellvars'])}, "
        f"{c_strings(code['freevars'])},",
        f"       {c_strings(code['names'])},",
        f"       {c_strings(code['consts'])}}},",
    ]
    return "\n".join(lines)


def main():
    results = [run_child(version) for version in VERSIONS]
    lines = [
        "// Generated by scripts/gen_marshal_test_data.py; do not edit.",
        "// Real .pyc images of one sample module "
        "and each code object's fields as CPython reports them.",
        "const SampleModule kSampleModules[] = {",
    ]
    for result in results:
        lines.append(f"  {{{result['minor']}, {result['magic']},")
        lines.append("   " + c_hex(result["pyc"], "   ") + ",")
        lines.append("   {")
        lines += [code_entry(code) for code in result["codes"]]
        lines.append("   }},")
    lines.append("};")
    SAMPLES_OUTPUT.write_text("\n".join(lines) + "\n")
    lines = [
        "// Generated by scripts/gen_marshal_test_data.py; do not edit.",
        "// marshal.dumps(value) under Python 3.11 "
        'and repr(value) ("<int of N bits>" where repr refuses).',
        "const ReprCase kReprCases[] = {",
    ]
    for marshalled, text in next(r for r in results if r["minor"] == 11)["repr_cases"]:
        lines.append(f"  {{{c_hex(marshalled, '   ')},\n   {c_string(text)}}},")
    lines.append("};")
    REPR_OUTPUT.write_text("\n".join(lines) + "\n")
    print(f"wrote {SAMPLES_OUTPUT} and {REPR_OUTPUT}")


if __name__ == "__main__":
    main()
