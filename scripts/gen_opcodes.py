#!/usr/bin/env python3
"""Generate cpp/bytecode/opcodes_3XX.inc from CPython's own `opcode` and `dis` modules.

Each interpreter describes only its own bytecode, so the script runs once per version:

    python3.12 scripts/gen_opcodes.py            # writes opcodes_312.inc for the running Python
    python3 scripts/gen_opcodes.py --all         # re-runs itself under every 3.10..3.13 it finds
    python3 scripts/gen_opcodes.py --all --check # exit 1 if a committed .inc is out of date

The tables hold facts about opcodes, exactly as that version's `dis` sees them: the name dis prints
for each of the 256 opcodes (specialized names included), the flags of its base ("deoptimized")
opcode, the number of inline CACHE units, and the side tables dis uses to spell arguments
(cmp_op, _nb_ops, the intrinsic descriptions, function-attribute flags, conversion names).
How dis presents them (which version prefixes "NULL + ", where relative jumps start) is policy and
lives in cpp/bytecode/opcodes.cpp.
"""

from __future__ import annotations

import argparse
import difflib
import glob
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
OUT_DIR = REPO / "cpp" / "bytecode"
SUPPORTED = [(3, 10), (3, 11), (3, 12), (3, 13)]

# Flag names, in the order of the bits in the generated rows (see OpcodeRow in opcodes.cpp).
FLAG_NAMES = ["ARG", "CONST", "NAME", "LOCAL", "FREE", "COMPARE", "JREL", "JABS", "BACKWARD"]


def inc_path(version: tuple[int, int], out_dir: Path = OUT_DIR) -> Path:
    return out_dir / f"opcodes_{version[0]}{version[1]:02d}.inc"


# ---------------------------------------------------------------------------------------------
# Collecting the facts from the running interpreter.


def display_names(dis_module, opcode_module) -> list[str]:
    """The name dis prints for each opcode 0..255 ('' where it prints '<N>')."""
    names = list(getattr(dis_module, "_all_opname", opcode_module.opname))[:256]
    return ["" if name.startswith("<") else name for name in names]


def base_opcode(dis_module, op: int) -> int:
    deopt = getattr(dis_module, "_deoptop", None)
    return deopt(op) if deopt else op


def cache_entries(opcode_module, names: list[str], base: int) -> int:
    entries = getattr(opcode_module, "_inline_cache_entries", None)
    if entries is None:
        return 0
    if isinstance(entries, dict):  # 3.13: keyed by name
        return entries.get(opcode_module.opname[base], 0)
    return entries[base]


def has_arg(opcode_module, base: int) -> bool:
    if hasattr(opcode_module, "hasarg"):  # 3.12+
        return base in opcode_module.hasarg
    return base >= opcode_module.HAVE_ARGUMENT


def is_backward_jump(dis_module, base: int) -> bool:
    probe = getattr(dis_module, "_is_backward_jump", None)  # 3.11+
    return bool(probe and probe(base))


def opcode_flags(dis_module, opcode_module, base: int) -> list[str]:
    flags = []
    if has_arg(opcode_module, base):
        flags.append("ARG")
    for flag, table in [
        ("CONST", opcode_module.hasconst),
        ("NAME", opcode_module.hasname),
        ("LOCAL", opcode_module.haslocal),
        ("FREE", opcode_module.hasfree),
        ("COMPARE", opcode_module.hascompare),
        ("JREL", opcode_module.hasjrel),
        ("JABS", opcode_module.hasjabs),
    ]:
        if base in table:
            flags.append(flag)
    if "JREL" in flags and is_backward_jump(dis_module, base):
        flags.append("BACKWARD")
    return flags


def side_tables(dis_module, opcode_module) -> dict[str, list[tuple[str, str]]]:
    """Name -> list of (entry, comment) for the tables dis uses to spell arguments."""
    nb_ops = getattr(opcode_module, "_nb_ops", [])
    conversions = getattr(dis_module, "FORMAT_VALUE_CONVERTERS", None)
    conversion_names = (
        [name for _, name in conversions] if conversions else ["", "str", "repr", "ascii"]
    )
    function_flags = (
        getattr(dis_module, "FUNCTION_ATTR_FLAGS", None) or dis_module.MAKE_FUNCTION_FLAGS
    )
    return {
        "kCmpOp": [(op, "") for op in opcode_module.cmp_op],
        "kBinaryOps": [(symbol, name) for name, symbol in nb_ops],
        "kIntrinsic1": [(desc, "") for desc in getattr(opcode_module, "_intrinsic_1_descs", [])],
        "kIntrinsic2": [(desc, "") for desc in getattr(opcode_module, "_intrinsic_2_descs", [])],
        "kFunctionFlags": [(flag, "") for flag in function_flags],
        "kConversions": [(name, "") for name in conversion_names],
    }


# ---------------------------------------------------------------------------------------------
# Writing the .inc text.


def cpp_string(text: str) -> str:
    escaped = text.replace("\\", "\\\\").replace('"', '\\"')
    return f'"{escaped}"'


def render_rows(dis_module, opcode_module) -> list[str]:
    names = display_names(dis_module, opcode_module)
    rows = []
    for op in range(256):
        base = base_opcode(dis_module, op)
        flags = opcode_flags(dis_module, opcode_module, base)
        flag_expr = " | ".join(f"k{flag.capitalize()}" for flag in flags) or "0"
        caches = cache_entries(opcode_module, names, base)
        rows.append(
            f"    {{{op:3d}, {cpp_string(names[op]) + ',':<36} {base:3d}, {caches}, {flag_expr}}},"
        )
    return rows


def render_side_table(name: str, entries: list[tuple[str, str]]) -> list[str]:
    lines = [f"inline constexpr std::array<std::string_view, {len(entries)}> {name} = {{{{"]
    width = max((len(cpp_string(entry)) + 1 for entry, _ in entries), default=0)
    for index, (entry, comment) in enumerate(entries):
        note = f"  // {index}{': ' + comment if comment else ''}"
        lines.append(f"    {cpp_string(entry) + ',':<{width}}{note}")
    lines.append("}};")
    return lines


def render(version: tuple[int, int]) -> str:
    import dis
    import opcode

    tag = f"{version[0]}{version[1]:02d}"
    lines = [
        f"// Opcode tables of CPython {version[0]}.{version[1]}, "
        "as its `opcode` and `dis` modules describe them.",
        "// GENERATED by scripts/gen_opcodes.py "
        f"under Python {version[0]}.{version[1]}; do not edit.",
        "// Regenerate: python3 scripts/gen_opcodes.py --all   (check: add --check)",
        "// Included only by opcodes.cpp, which defines OpcodeRow and the k* flag constants.",
        "// clang-format off",
        f"namespace py{tag} {{",
        "",
        f"inline constexpr PyMinor kMinor = {version[1]};",
        "",
        "// {opcode, name dis prints ('' for \"<N>\"), base opcode, inline CACHE units, "
        "flags of the base}",
        "inline constexpr std::array<OpcodeRow, 256> kOpcodes = {{",
        *render_rows(dis, opcode),
        "}};",
    ]
    for name, entries in side_tables(dis, opcode).items():
        lines.append("")
        lines.extend(render_side_table(name, entries))
    lines += ["", f"}}  // namespace py{tag}", "// clang-format on", ""]
    return "\n".join(lines)


# ---------------------------------------------------------------------------------------------
# Driving one or several interpreters.


def run_here(check: bool, out_dir: Path) -> int:
    version = sys.version_info[:2]
    if version not in SUPPORTED:
        print(
            f"gen_opcodes: Python {version[0]}.{version[1]} is not a supported version",
            file=sys.stderr,
        )
        return 2
    path = inc_path(version, out_dir)
    text = render(version)
    if check:
        current = path.read_text() if path.exists() else ""
        if current != text:
            diff = difflib.unified_diff(
                current.splitlines(), text.splitlines(), str(path), "regenerated", lineterm=""
            )
            print("\n".join(list(diff)[:40]))
            print(f"gen_opcodes: {path} is out of date", file=sys.stderr)
            return 1
        print(f"gen_opcodes: {path.name} is up to date")
        return 0
    path.write_text(text)
    print(f"gen_opcodes: wrote {path}")
    return 0


def find_interpreters() -> dict[tuple[int, int], str]:
    found: dict[tuple[int, int], str] = {}
    for major, minor in SUPPORTED:
        candidates = [f"python{major}.{minor}"]
        pyenv_root = os.environ.get("PYENV_ROOT", os.path.expanduser("~/.pyenv"))
        candidates += sorted(
            glob.glob(f"{pyenv_root}/versions/{major}.{minor}.*/bin/python{major}.{minor}"),
            reverse=True,
        )
        for candidate in candidates:
            try:
                out = subprocess.run(
                    [
                        candidate,
                        "-c",
                        "import sys; print(sys.version_info[0], sys.version_info[1])",
                    ],
                    capture_output=True,
                    text=True,
                    check=True,
                ).stdout.split()
            except (OSError, subprocess.CalledProcessError):
                continue
            if (int(out[0]), int(out[1])) == (major, minor):
                found[(major, minor)] = candidate
                break
    return found


def run_all(check: bool, out_dir: Path, pythons: list[str]) -> int:
    interpreters = pythons or list(find_interpreters().values())
    if not interpreters:
        print("gen_opcodes: no CPython 3.10..3.13 interpreter found", file=sys.stderr)
        return 2
    status = 0
    for python in interpreters:
        command = [python, str(Path(__file__).resolve()), "--output-dir", str(out_dir)]
        if check:
            command.append("--check")
        status = max(status, subprocess.run(command).returncode)
    return status


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--check", action="store_true", help="compare with the committed files instead of writing"
    )
    parser.add_argument(
        "--all", action="store_true", help="run under every supported interpreter found"
    )
    parser.add_argument("--output-dir", type=Path, default=OUT_DIR)
    parser.add_argument(
        "pythons", nargs="*", help="with --all: the interpreters to use (default: search)"
    )
    args = parser.parse_args()
    if args.all:
        return run_all(args.check, args.output_dir, args.pythons)
    return run_here(args.check, args.output_dir)


if __name__ == "__main__":
    sys.exit(main())
