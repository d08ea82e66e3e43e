"""glassbox.capture on the eager and aot_eager backends: the dump, the index, what runs."""

from __future__ import annotations

import json
import logging
import runpy
import sys

import pytest
import torch

import glassbox
from glassbox.capture import session as capture_session
from glassbox.capture.source import recompile, render
from glassbox.capture.writer import DumpDirError
from glassbox.decompiler import Decompiled

sys.path.insert(0, str(__import__("pathlib").Path(__file__).parent))
from capture_zoo import make  # noqa: E402


def _index(dump):
    return json.loads((dump / "index.json").read_text())


def test_import_glassbox_does_not_import_torch():
    import subprocess

    code = (
        "import sys, glassbox; assert 'torch' not in sys.modules; assert callable(glassbox.capture)"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_dump_of_a_graph_break(tmp_path):
    model, x = make("break_print")
    compiled = torch.compile(model, backend="aot_eager")
    with glassbox.capture(tmp_path / "dump") as cap:
        compiled(x)
    dump = tmp_path / "dump"
    index = _index(dump)
    assert index["tool"] == "glassbox-capture"
    names = [f["function"] for f in index["functions"]]
    assert names[0] == "forward"
    assert any(n.startswith("torch_dynamo_resume_in_forward") for n in names)
    first = index["functions"][0]["compiles"][0]
    assert first["graph_break_reasons"], "the print is reported as a graph break"
    assert first["resume_functions"]
    for function in index["functions"]:
        assert (dump / function["full_code"]).exists()
        for entry in function["compiles"]:
            assert (dump / entry["transformed_file"]).exists()
            assert (dump / entry["guards_file"]).exists()
            assert entry["runs_from_dump"] or entry["why_original_runs"]
            graphs = {p.split("/")[-1] for p in entry["files"]}
            assert {"dynamo_graph.py", "aot_forward_graph.py", "aot_backward_graph.py"} <= graphs
    assert "forward" in (dump / "index.md").read_text()
    assert cap.dump_dir == str(dump.resolve())
    # every graph file imports, every full_code file runs
    for path in dump.glob("compile_*/*graph*.py"):
        namespace = runpy.run_path(str(path))
        modules = [
            v
            for v in namespace.values()
            if isinstance(v, type)
            and issubclass(v, torch.nn.Module)
            and v.__module__ == "<run_path>"
        ]
        assert modules, path
    for path in dump.glob("full_code_for_*.py"):
        namespace = runpy.run_path(str(path))
        assert namespace["ENTRIES"] and callable(namespace["dispatch"])


def test_resume_original_is_dumped(tmp_path):
    model, x = make("data_branch")
    with glassbox.capture(tmp_path):
        torch.compile(model, backend="eager")(x)
    assert list(tmp_path.glob("compile_*/resume_original_torch_dynamo_resume_in_*.py"))


def test_nothing_left_behind(tmp_path):
    import torch._dynamo.convert_frame as convert_frame

    hooks_before = dict(convert_frame._bytecode_hooks)
    trace_logger = logging.getLogger("torch.__trace")
    handlers_before, level_before = list(trace_logger.handlers), trace_logger.level
    trace_structured = torch._logging.trace_structured
    model, x = make("break_item")
    with glassbox.capture(tmp_path / "d"):
        torch.compile(model, backend="eager")(x)
    assert dict(convert_frame._bytecode_hooks) == hooks_before
    assert trace_logger.handlers == handlers_before and trace_logger.level == level_before
    assert torch._logging.trace_structured is trace_structured
    assert capture_session.active_capture() is None
    files_after = sorted(p for p in (tmp_path / "d").rglob("*"))
    assert not [p for p in files_after if p.name.endswith(".tmp")]
    # a later compile is not recorded and runs the original Dynamo code
    other, y = make("mlp")
    torch.compile(other, backend="eager")(y)
    assert sorted(p for p in (tmp_path / "d").rglob("*")) == files_after


def test_an_exception_inside_still_writes_the_dump_and_restores_hooks(tmp_path):
    import torch._dynamo.convert_frame as convert_frame

    hooks_before = dict(convert_frame._bytecode_hooks)
    handlers_before = list(logging.getLogger("torch.__trace").handlers)
    trace_structured = torch._logging.trace_structured
    model, x = make("break_print")
    with pytest.raises(KeyError, match="inside the block"):
        with glassbox.capture(tmp_path):
            torch.compile(model, backend="eager")(x)
            raise KeyError("inside the block")
    index = _index(tmp_path)
    assert index["functions"] and not index["errors"]
    for function in index["functions"]:
        assert (tmp_path / function["full_code"]).exists()
        for entry in function["compiles"]:
            assert (tmp_path / entry["guards_file"]).exists()
    assert dict(convert_frame._bytecode_hooks) == hooks_before
    assert torch._logging.trace_structured is trace_structured
    assert logging.getLogger("torch.__trace").handlers == handlers_before
    assert capture_session.active_capture() is None


def test_reused_dump_dir_is_replaced(tmp_path):
    dump = tmp_path / "d"
    model, x = make("mlp")
    with glassbox.capture(dump):
        torch.compile(model, backend="eager")(x)
    stale = dump / "compile_999_0"
    stale.mkdir()
    (stale / "old.py").write_text("")
    torch._dynamo.reset()
    with glassbox.capture(dump):
        torch.compile(model, backend="eager")(x)
    assert not stale.exists()
    assert _index(dump)["functions"]


def test_foreign_dir_is_refused_and_untouched(tmp_path):
    (tmp_path / "mine.txt").write_text("keep")
    with pytest.raises(DumpDirError):
        with glassbox.capture(tmp_path):
            pass
    assert (tmp_path / "mine.txt").read_text() == "keep"
    assert capture_session.active_capture() is None


def test_capture_survives_a_failing_decompiler(tmp_path, monkeypatch):
    def broken(code, readable=False):
        raise RuntimeError("boom")

    monkeypatch.setattr(glassbox.decompiler, "decompile_detailed", broken)
    model, x = make("break_print")
    expected = model(x)
    with glassbox.capture(tmp_path):
        got = torch.compile(model, backend="eager")(x)
    torch.testing.assert_close(got, expected)
    entry = _index(tmp_path)["functions"][0]["compiles"][0]
    assert not entry["runs_from_dump"] and "boom" in entry["why_original_runs"]
    assert "Disassembly" in (tmp_path / entry["transformed_file"]).read_text()


def test_recompile_keeps_only_equivalent_code(tmp_path):
    source = "def f(x, y=2):\n    return [v * y for v in x if v]\n"
    namespace = {}
    exec(compile(source, "<original>", "exec", dont_inherit=True), namespace)
    f = namespace["f"]
    path = str(tmp_path / "f.py")
    code, why = recompile(f.__code__, source, path)
    assert why is None and code.co_filename == path
    code, why = recompile(f.__code__, source.replace("v * y", "v + y"), path)
    assert code is None and "differs" in why
    code, why = recompile(f.__code__, "def f(:\n", path)
    assert code is None and "does not compile" in why


def test_render_uses_the_decompiler_when_it_verifies(tmp_path, monkeypatch):
    source = "def f(x):\n    return x + 1\n"
    namespace = {}
    exec(compile(source, "<original>", "exec", dont_inherit=True), namespace)
    f = namespace["f"]

    def decompiled(code, readable=False):
        return Decompiled(source, [])

    monkeypatch.setattr(glassbox.decompiler, "decompile_detailed", decompiled)
    rendered = render(f.__code__, str(tmp_path / "f.py"), "title")
    assert rendered.code is not None and rendered.reason is None
    assert rendered.code.co_filename == str(tmp_path / "f.py")


def test_dumped_code_is_what_runs(tmp_path, monkeypatch):
    """The code the hook hands back is the code Dynamo runs (seen from a frame it calls).

    The decompiler may not yet reproduce Dynamo's bytecode; this test stands in for it with a
    renderer that returns Dynamo's code under the dump file's name, to test the plumbing.
    """
    from glassbox.capture import source as source_mod

    def stand_in(code, filename, title, run_dumped="verified"):
        return source_mod.Rendered(f"# {title}\n", code.replace(co_filename=filename), None)

    monkeypatch.setattr(capture_session, "render", stand_in)
    callers = []

    def spy(value):
        callers.append(sys._getframe(1).f_code.co_filename)
        return value

    def fn(x):
        y = x.sin()
        spy(0)  # graph break: the call runs from the transformed frame
        return y.cos()

    with glassbox.capture(tmp_path):
        torch.compile(fn, backend="eager")(torch.randn(3))
    entry = _index(tmp_path)["functions"][0]["compiles"][0]
    assert entry["runs_from_dump"]
    assert str(tmp_path / entry["transformed_file"]) in callers


def test_debug_needs_a_capture_and_names_the_dump(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(capture_session, "_last_dump_dir", None)
    with pytest.raises(RuntimeError):
        with glassbox.debug(pause=False):
            pass
    model, x = make("mlp")
    with glassbox.capture(tmp_path):
        compiled = torch.compile(model, backend="eager")
        compiled(x)
    with glassbox.debug(pause=False) as where:
        compiled(x)
    assert where == str(tmp_path.resolve()) and where in capsys.readouterr().out


def test_prepare_debug_is_capture(tmp_path):
    model, x = make("mlp")
    with glassbox.prepare_debug(tmp_path):
        torch.compile(model, backend="eager")(x)
    assert (tmp_path / "index.json").exists()


@pytest.mark.parametrize("name", ["break_print", "break_item"])
def test_decompiled_policy_runs_the_dumped_files(tmp_path, name):
    """run_dumped="decompiled" (opt-in): the real decompiler's output of Dynamo's transformed
    code and resume functions is what runs, and the results are unchanged."""
    model, x = make(name)
    expected = model(x)
    files_run: set[str] = set()

    def profile(frame, event, arg):
        if frame.f_code.co_filename.startswith(str(tmp_path)):
            files_run.add(frame.f_code.co_filename)

    with glassbox.prepare_debug(tmp_path / "dump", run_dumped="decompiled"):
        compiled = torch.compile(model, backend="eager")
        sys.setprofile(profile)
        try:
            got = compiled(x)
        finally:
            sys.setprofile(None)
    torch.testing.assert_close(got, expected, rtol=0, atol=0)
    ran = {f.rsplit("/", 1)[-1] for f in files_run}
    assert any(f.startswith("transformed_") for f in ran), ran
    assert any("resume" in f for f in ran), ran


def test_run_dumped_policy_is_checked(tmp_path):
    with pytest.raises(ValueError, match="run_dumped"):
        glassbox.capture(tmp_path, run_dumped="sometimes")


@pytest.mark.parametrize("docstring", ["", '        """doc"""\n'])
def test_unused_free_variables_are_declared(docstring):
    """Dynamo's code keeps free variables its body no longer reads (a decorator's ``fn``): the
    decompiled function declares them so that it has the same closure."""
    from glassbox.capture.source import declare_free_variables

    outer = "def outer():\n    fn = 1\n    def wrapper(x):\n        return fn\n    return wrapper\n"
    code = compile(outer, "<o>", "exec").co_consts[0].co_consts[2]
    assert code.co_freevars == ("fn",)
    source = (
        "def __glassbox_enclosing():\n    fn = None\n    def wrapper(x):\n"
        + docstring
        + "        return x\n    return wrapper\n"
    )
    declared = declare_free_variables(code, source)
    wrapper = compile(declared, "<d>", "exec").co_consts[0].co_consts[-1]
    assert wrapper.co_name == "wrapper" and wrapper.co_freevars == ("fn",)
    assert declare_free_variables(code, declared) == declared


@pytest.mark.parametrize("docstring", ["", '    """doc"""\n'])
def test_cell_variables_the_body_no_longer_closes_over_are_made_cells(docstring):
    """Dynamo's code keeps the original's cells (a generator over ``x`` makes ``x`` one) where
    its body reads ``x`` directly: the decompiled function gets the same cells."""
    from glassbox.capture.source import declare_cell_variables

    original = "def forward(self, x):\n    return sum(p * x for p in self)\n"
    code = compile(original, "<o>", "exec").co_consts[0]
    assert code.co_cellvars == ("x",)
    source = "def forward(self, x):\n" + docstring + "    return self.f(x)\n"
    declared = declare_cell_variables(code, source)
    forward = next(c for c in compile(declared, "<d>", "exec").co_consts if hasattr(c, "co_name"))
    assert forward.co_cellvars == ("x",) and forward.co_varnames == ("self", "x")
    assert declare_cell_variables(code, declared) == declared
    namespace: dict = {}
    exec(declared, namespace)
    assert namespace["forward"](type("S", (), {"f": staticmethod(lambda v: v + 1)}), 1) == 2
