"""Bad bytes get glassbox.BytecodeError (Python) or exit code 2 (command line), never a crash."""

from __future__ import annotations

import importlib.util
import marshal
import subprocess

import pytest

import glassbox


def _pyc_of(source: str) -> bytes:
    code = compile(source, "<test>", "exec")
    header = importlib.util.MAGIC_NUMBER + b"\0" * 12
    return header + marshal.dumps(code)


GOOD = _pyc_of("def f(a):\n    return [x + 1 for x in a if x]\n")


def test_good_pyc_disassembles() -> None:
    text = glassbox.disassemble(GOOD)
    assert "MAKE_FUNCTION" in text
    assert "Disassembly of <code object f" in text


def test_unknown_magic_names_offset_zero() -> None:
    with pytest.raises(glassbox.BytecodeError) as info:
        glassbox.disassemble(b"\x01\x02\r\n" + GOOD[4:])
    assert info.value.offset == 0
    assert "magic" in info.value.reason


@pytest.mark.parametrize("cut", [0, 3, 10, 16, 17, 40, len(GOOD) // 2, len(GOOD) - 1])
def test_truncated_pyc_is_an_error_with_offset(cut: int) -> None:
    with pytest.raises(glassbox.BytecodeError) as info:
        glassbox.disassemble(GOOD[:cut])
    assert info.value.offset is not None
    assert 0 <= info.value.offset <= cut
    assert str(info.value).startswith(f"at offset {info.value.offset}: ")


def test_every_single_byte_corruption_is_handled() -> None:
    # Each flipped byte either still parses or raises BytecodeError; nothing else escapes.
    errors = 0
    for position in range(16, len(GOOD)):
        damaged = bytearray(GOOD)
        damaged[position] ^= 0xFF
        try:
            glassbox.disassemble(bytes(damaged))
        except glassbox.BytecodeError:
            errors += 1
    assert errors > 0


def test_bytecode_error_is_a_value_error() -> None:
    assert issubclass(glassbox.BytecodeError, ValueError)


def test_cli_bad_input_exit_code_and_message(decompile_exe: str, tmp_path) -> None:
    bad = tmp_path / "bad.pyc"
    bad.write_bytes(GOOD[:30])
    result = subprocess.run([decompile_exe, "--dis", str(bad)], capture_output=True, text=True)
    assert result.returncode == 2
    assert "bad.pyc" in result.stderr and "offset" in result.stderr


def test_cli_missing_file(decompile_exe: str, tmp_path) -> None:
    result = subprocess.run(
        [decompile_exe, "--dis", str(tmp_path / "nope.pyc")], capture_output=True, text=True
    )
    assert result.returncode == 2
    assert "cannot read" in result.stderr


def test_cli_unsupported_version(decompile_exe: str, tmp_path) -> None:
    good = tmp_path / "good.pyc"
    good.write_bytes(GOOD)
    result = subprocess.run(
        [decompile_exe, "--dis", "--python", "3.9", str(good)], capture_output=True, text=True
    )
    assert result.returncode == 2
    assert "3.9" in result.stderr
