"""The verifier: its normalizer (in this interpreter and in every installed 3.10-3.13) and its
command line end to end, judged against fake decompilers whose behaviour is known."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from glassbox.verify import main, normalize, pythons, sources

NORMALIZE_PY = Path(normalize.__file__)


def code_of(source: str) -> object:
    return compile(textwrap.dedent(source), "<test>", "exec")


def compare(a: str, b: str) -> normalize.Comparison:
    return normalize.compare(code_of(a), code_of(b))


BASE = """
def f(x, *, k=2):
    for item in x:
        if item > 1:
            return g(item)
    try:
        return -0.0
    except ValueError:
        return k

class C:
    def m(self):
        return [y for y in self]
"""


# -- the normalizer ---------------------------------------------------------------------------


def test_same_source_is_equal() -> None:
    result = compare(BASE, BASE)
    assert result.equal and result.first_difference is None
    assert result.code_objects == result.equal_code_objects >= 3


def test_line_numbers_only_is_equal() -> None:
    moved = """


def f(x, *, k=2):
    for item in x:
        if (item >
                1):
            return g(
                item)
    try:
        return -0.0
    except ValueError:
        return k
class C:
    def m(self): return [y
                         for y in self]
"""
    assert compare(BASE, moved).equal


def test_equivalent_spellings_are_equal() -> None:
    assert compare("x = (1)\n", "x = 1\n").equal
    assert compare("a = 'z'\n", 'a = "z"\n').equal
    assert compare("if not a:\n    b()\n", "if not a: b()\n").equal


def test_stores_on_other_lines_are_equal_but_not_other_stores() -> None:
    one_line = "def f(a, x):\n    b, c = a, x\n    return b, c\n"
    two_lines = "def f(a, x):\n    (b,\n     c) = a, x\n    return b, c\n"
    assert compare(one_line, two_lines).equal
    assert not compare(one_line, one_line.replace("b, c = a, x", "c, b = a, x")).equal


def test_jump_target_difference_names_the_instruction() -> None:
    diff = compare(
        "def f(x):\n    if x:\n        a()\n    b()\n",
        "def f(x):\n    if x:\n        a()\n        b()\n",
    ).first_difference
    assert diff is not None
    assert diff.where == "instruction" and diff.qualname == "f"
    assert isinstance(diff.index, int)
    assert "->" in diff.expected and "->" in diff.got and diff.expected != diff.got


def test_constant_difference() -> None:
    diff = compare("x = 1\n", "x = 2\n").first_difference
    assert diff is not None and diff.where == "instruction"
    assert diff.expected.endswith(" 1") and diff.got.endswith(" 2")


@pytest.mark.parametrize(
    ("a", "b"),
    [("x = 0.0\n", "x = -0.0\n"), ("x = 1\n", "x = True\n"), ("x = (1, 2.0)\n", "x = (1, 2)\n")],
)
def test_constants_compare_by_type_and_repr(a: str, b: str) -> None:
    assert not compare(a, b).equal


def test_nan_equals_nan() -> None:
    assert compare(
        "x = float('nan')\ny = 1e999 - 1e999\n", "x = float('nan')\ny = 1e999 - 1e999\n"
    ).equal


def test_name_difference_shows_at_the_instruction() -> None:
    diff = compare("def f():\n    return a\n", "def f():\n    return b\n").first_difference
    assert diff is not None and diff.where == "instruction"
    assert "(a)" in diff.expected and "(b)" in diff.got


def test_nested_difference_names_the_nested_code() -> None:
    a = "class C:\n    def m(self):\n        return 1\n"
    result = compare(a, a.replace("return 1", "return 2"))
    assert result.first_difference is not None
    assert result.first_difference.qualname == "C.m"
    assert result.code_objects == 3 and result.equal_code_objects == 2


def test_missing_nested_code_object() -> None:
    result = compare("def f(): pass\ndef g(): pass\n", "def f(): pass\n")
    assert not result.equal
    assert result.first_difference is not None and result.first_difference.qualname == "<module>"
    assert result.equal_code_objects == 1  # f; the module and g are not equal


def test_subtree_equal_needs_every_nested_code_equal() -> None:
    a = "def f():\n    g = lambda: 1\n    return g\n\ndef h():\n    return 3\n"
    result = compare(a, a.replace("lambda: 1", "lambda: 2"))
    # module, f, the lambda, h: f and the module are equal themselves, not with all they hold
    assert result.code_objects == 4 and result.equal_code_objects == 3
    assert result.subtree_equal_code_objects == 1  # h
    same = compare(a, a)
    assert same.subtree_equal_code_objects == same.code_objects == 4


def test_subtree_equal_of_a_missing_nested_code() -> None:
    result = compare("def f():\n    def g(): pass\n", "def f():\n    pass\n")
    assert result.subtree_equal_code_objects == 0


def test_header_differences() -> None:
    diff = compare("def f(a, b): pass\n", "def f(a, *, b): pass\n").first_difference
    assert diff is not None and diff.where in ("co_argcount", "co_kwonlyargcount", "instruction")
    diff = compare("def f():\n    '''doc'''\n", "def f():\n    pass\n").first_difference
    assert diff is not None


def test_count_code_objects() -> None:
    assert normalize.count_code_objects(code_of(BASE)) == compare(BASE, BASE).code_objects


@pytest.mark.skipif(sys.version_info < (3, 11), reason="exception tables are 3.11+")
def test_exception_table_parse_matches_dis() -> None:
    import dis

    module = code_of(BASE)
    code = next(c for c in module.co_consts if isinstance(c, type(module)))
    mine = [entry[:3] for entry in normalize.raw_exception_table(code)]
    theirs = [(e.start, e.end, e.target) for e in dis._parse_exception_table(code)]
    assert mine == theirs and mine


# The same checks, run by the normalizer inside each installed version (their dis differ).
SMALL = """
def f(x):
    _, _, a = x
    b, c = a, x
    try:
        return x + 1
    except E:
        return -0.0
class C:
    def m(self): return [y for y in self]
"""
SMALL_MOVED = """

def f(x):
    (_,
     _,
     a) = x
    (b,
     c) = a, x
    try:
        return (x +
  1)
    except E:
        return -0.0
class C:
  def m(self):
    return [y for y in self]
"""
VERSION_CHECK = """
import json, sys
sys.path.insert(0, sys.argv[1])
import normalize
base, moved = json.loads(sys.argv[2])
c = lambda s: compile(s, "<s>", "exec")
out = {}
for name, other in [("same", base), ("lines", moved), ("const", base.replace("+ 1", "+ 2")),
                    ("zero", base.replace("-0.0", "0.0")), ("name", base.replace("E:", "F:"))]:
    d = normalize.compare(c(base), c(other)).first_difference
    out[name] = d.to_json() if d else None
print(json.dumps(out))
"""


@pytest.mark.parametrize("minor", [10, 11, 12, 13])
def test_normalizer_under_each_version(minor: int) -> None:
    found = pythons.find_version(minor)
    if found is None:
        pytest.skip(f"no Python 3.{minor}")
    result = subprocess.run(
        [
            found.executable,
            "-I",
            "-c",
            VERSION_CHECK,
            str(NORMALIZE_PY.parent),
            json.dumps([SMALL, SMALL_MOVED]),
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    out = json.loads(result.stdout)
    assert out["same"] is None and out["lines"] is None
    for name in ("const", "zero", "name"):
        assert out[name]["qualname"] == "f" and out[name]["where"] == "instruction", out[name]
    assert "LOAD_CONST 1" in out["const"]["expected"]


# -- finding interpreters and files -----------------------------------------------------------


def test_stdlib_files_exclude_tests() -> None:
    files = sources.stdlib_files(pythons.current().stdlib)
    assert any(f.endswith(os.path.join("json", "decoder.py")) for f in files)
    for path in files:
        parts = set(Path(path).parts)
        assert not parts & {"test", "tests", "idle_test", "site-packages"}, path


def test_resolve_versions() -> None:
    current = pythons.resolve(f"3.{sys.version_info.minor}")[0]
    assert current.minor == sys.version_info.minor
    with pytest.raises(pythons.UsageError):
        pythons.resolve("3.9")
    with pytest.raises(pythons.UsageError):
        pythons.resolve("/no/such/python")


# -- the command line against fake decompilers ------------------------------------------------

GOOD_SOURCES = {
    "alpha.py": "import os\n\ndef f(x):\n    return [v + 1 for v in x if v]\n",
    "beta.py": "class K:\n    def m(self, a=1.5):\n        while a:\n            a -= 1\n"
    "        return a\n",
}


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    folder = tmp_path / "corpus"
    folder.mkdir()
    for name, text in GOOD_SOURCES.items():
        (folder / name).write_text(text)
    (folder / "broken.py").write_text("def (:\n")  # does not compile: skipped, not counted
    return folder


def fake(tmp_path: Path, name: str, body: str, interpreter: str = sys.executable) -> str:
    """An executable standing in for glassbox-decompile; ``--help`` always succeeds."""
    path = tmp_path / name
    path.write_text(
        f"#!{interpreter}\nimport marshal, os, sys, time\n"
        "if sys.argv[1] == '--help':\n    sys.exit(0)\n"
        "def original():\n"
        "    code = marshal.loads(open(sys.argv[-1], 'rb').read()[16:])\n"
        "    return open(code.co_filename, encoding='utf-8').read()\n" + textwrap.dedent(body)
    )
    path.chmod(0o755)
    return str(path)


FAKES = {
    # Prints the original source back: everything equal.
    "perfect": "sys.stdout.write(original())\n",
    # Valid Python, different code: every file 'different'.
    "different": "sys.stdout.write(original().replace('1', '7') + '\\nzzz = 3\\n')\n",
    "garbage": "print('this is ( not python')\n",
    "fallbacks": "sys.stdout.write(original())\nprint('f: line 1: fallback', file=sys.stderr)\n"
    "sys.exit(1)\n",
    "sleeper": "time.sleep(60)\n",
    "segfault": "os.kill(os.getpid(), 11)\n",
    "exit3": "sys.exit(3)\n",
    "rejecter": "print('bad input', file=sys.stderr)\nsys.exit(2)\n",
}


def run_verifier(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, decompiler: str, *extra: str
) -> tuple[dict, str]:
    out_json = tmp_path / "verdicts.json"
    code = main(
        [
            "--decompiler",
            decompiler,
            "--json",
            str(out_json),
            "--jobs",
            "2",
            "--no-progress",
            *extra,
        ]
    )
    assert code == 0
    text = capsys.readouterr().out
    return json.loads(out_json.read_text()), text


EXPECTED_STATUS = {
    "perfect": "equal",
    "different": "different",
    "garbage": "no_compile",
    "fallbacks": "equal",
    "sleeper": "hang",
    "segfault": "crash",
    "exit3": "crash",
    "rejecter": "rejected",
}


@pytest.mark.parametrize("kind", sorted(FAKES))
def test_fake_decompilers_are_counted(
    kind: str, corpus: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    decompiler = fake(tmp_path, kind, FAKES[kind])
    data, text = run_verifier(capsys, tmp_path, decompiler, "--timeout", "1", str(corpus))
    assert data["decompiler"] == decompiler
    (version,) = data["versions"]
    summary, files = version["summary"], version["files"]
    assert summary["python"] == sys.version.split()[0]
    assert summary["files"] == 2 and summary["skipped"] == 1
    expected_codes = sum(normalize.count_code_objects(code_of(t)) for t in GOOD_SOURCES.values())
    assert summary["code_objects"] == expected_codes
    assert summary["code_objects"] == sum(f.get("code_objects", 0) for f in files)
    judged = [f for f in files if f["status"] != "skipped"]
    assert {f["status"] for f in judged} == {EXPECTED_STATUS[kind]}
    assert summary["crashes"] == (2 if kind in ("segfault", "exit3") else 0)
    assert summary["hangs"] == (2 if kind == "sleeper" else 0)
    assert summary["rejected"] == (2 if kind == "rejecter" else 0)
    equal = kind in ("perfect", "fallbacks")
    assert summary["equal_files"] == (2 if equal else 0)
    subtree = summary["subtree_equal_code_objects"]
    if equal:
        assert summary["equal_code_objects"] == summary["code_objects"] == subtree
    elif kind == "different":  # code objects that do not contain the changed text stay equal
        assert 0 < summary["equal_code_objects"] < summary["code_objects"]
        assert subtree <= summary["equal_code_objects"]
    else:
        assert summary["equal_code_objects"] == 0 == subtree
    assert subtree == sum(f.get("subtree_equal_code_objects", 0) for f in files)
    assert "subtree-equal" in text
    assert summary["compiled"] == (2 if kind in ("perfect", "fallbacks", "different") else 0)
    assert summary["with_fallbacks"] == (2 if kind == "fallbacks" else 0)
    if kind == "sleeper":
        assert summary["median_us_per_code_object"] is None
    else:
        assert summary["median_us_per_code_object"] > 0
    assert summary["startup_us"] is not None
    assert f"== Python {summary['python']}" in text
    if kind == "segfault":
        assert "SIGSEGV" in text
    if not equal:
        assert text.count("alpha.py") == 1 and text.count("beta.py") == 1


def test_first_difference_is_reported(
    corpus: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    decompiler = fake(tmp_path, "different", FAKES["different"])
    data, text = run_verifier(capsys, tmp_path, decompiler, str(corpus / "alpha.py"))
    (record,) = data["versions"][0]["files"]
    difference = record["difference"]
    assert set(difference) == {"qualname", "where", "index", "expected", "got"}
    assert difference["where"] == "instruction" and isinstance(difference["index"], int)
    assert f"#{difference['index']}" in text and difference["expected"] in text


@pytest.mark.parametrize("minor", [10, 11, 12, 13])
def test_judges_with_another_version(
    minor: int, corpus: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    found = pythons.find_version(minor)
    if found is None:
        pytest.skip(f"no Python 3.{minor}")
    decompiler = fake(tmp_path, "perfect", FAKES["perfect"], interpreter=found.executable)
    data, text = run_verifier(capsys, tmp_path, decompiler, "--python", f"3.{minor}", str(corpus))
    summary = data["versions"][0]["summary"]
    assert summary["python"].startswith(f"3.{minor}.")
    assert summary["equal_files"] == summary["files"] == 2


@pytest.fixture
def packages(tmp_path: Path) -> Path:
    """site/one (2 files, one broken), site/two/a.py, site/two/b.py: three packages asked for."""
    site = tmp_path / "site"
    (site / "one").mkdir(parents=True)
    (site / "two").mkdir()
    (site / "one" / "alpha.py").write_text(GOOD_SOURCES["alpha.py"])
    (site / "one" / "broken.py").write_text("def (:\n")
    (site / "two" / "a.py").write_text(GOOD_SOURCES["beta.py"])
    (site / "two" / "b.py").write_text("x = 1\n")
    return site


def test_by_package(packages: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    decompiler = fake(tmp_path, "perfect", FAKES["perfect"])
    data, text = run_verifier(
        capsys,
        tmp_path,
        decompiler,
        "--by-package",
        str(packages / "one"),
        f"twos={packages / 'two' / '*.py'}",
        f"bees={packages / 'two' / 'b.py'}",
    )
    (version,) = data["versions"]
    assert len(version["files"]) == 4  # two/b.py judged once, counted in both packages
    assert list(version["packages"]) == ["one", "twos", "bees"]
    one, twos, bees = version["packages"].values()
    assert (one["files"], one["skipped"], twos["files"], bees["files"]) == (1, 1, 2, 1)
    assert bees["code_objects"] == bees["subtree_equal_code_objects"] == 1
    table = text[text.index("| package |") :]
    assert "source does not compile" in table and "subtree-equal" in table
    assert [line.split("|")[1].strip() for line in table.splitlines()[2:5]] == [
        "one",
        "twos",
        "bees",
    ]


def test_progress_lines(corpus: Path, tmp_path: Path) -> None:
    decompiler = fake(tmp_path, "garbage", FAKES["garbage"])
    result = subprocess.run(
        [sys.executable, "-m", "glassbox.verify", "--decompiler", decompiler, "--progress-lines"]
        + [str(corpus)],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stderr
    lines = result.stderr.splitlines()
    assert len(lines) == 3 and lines[-1].split(":")[1].strip().startswith("3/3 files (100%)")


def test_limit_and_default_stdlib(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    decompiler = fake(tmp_path, "garbage", FAKES["garbage"])
    data, _ = run_verifier(capsys, tmp_path, decompiler, "--limit", "3")
    files = data["versions"][0]["files"]
    assert len(files) == 3
    stdlib = pythons.current().stdlib
    assert all(f["file"].startswith(stdlib) for f in files)


@pytest.mark.parametrize(
    "argv",
    [
        ["--python", "3.9"],
        ["--python", "/no/such/python"],
        ["--decompiler", "/no/such/decompiler"],
        ["/no/such/file.py"],
        ["--jobs", "0"],
        ["--by-package"],
        ["--by-package", "x=/no/such/folder/*.py"],
    ],
)
def test_usage_errors_exit_2(argv: list[str], tmp_path: Path) -> None:
    decompiler = fake(tmp_path, "garbage", FAKES["garbage"])
    with pytest.raises(SystemExit) as info:
        main(["--decompiler", decompiler, *argv])
    assert info.value.code == 2


def test_module_entry_point(corpus: Path, tmp_path: Path) -> None:
    decompiler = fake(tmp_path, "garbage", FAKES["garbage"])
    result = subprocess.run(
        [sys.executable, "-m", "glassbox.verify", "--decompiler", decompiler, str(corpus)],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stderr
    assert "output compiles" in result.stdout and "alpha.py" in result.stdout
    assert result.stderr == ""  # no progress bar when stderr is not a terminal


def test_real_decompiler_report_structure(
    decompile_exe: str, corpus: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The installed glassbox-decompile, whatever its quality: a well-formed report."""
    data, text = run_verifier(capsys, tmp_path, decompile_exe, "--timeout", "20", str(corpus))
    summary = data["versions"][0]["summary"]
    assert summary["files"] == 2
    allowed = {"equal", "different", "no_compile", "rejected", "crash", "hang", "skipped"}
    assert {f["status"] for f in data["versions"][0]["files"]} <= allowed
    assert "strictly equal" in text
