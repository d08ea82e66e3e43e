"""A slice of the real-model corpus for `make test`: the whole corpus runs in `make test-models`.

Capture with aot_eager on five architectures of different families and on every torch-level
shape: results bitwise unchanged, nothing raised, every dumped file compiles. Pythonify on two
entries, checked in a fresh process. The native backend on a few entries: within 1e-4 of eager
(gradients too), each inference graph one native segment. Known glassbox failures are strict
xfails: when a fix lands, the test says so and the mark goes.
"""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

import corpus
import corpus_checks as checks
import pytest
import torch_shapes

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "scripts"))
import sweep_report  # noqa: E402

BACKEND = "aot_eager"
ARCHITECTURES = ["gpt2", "bert", "t5", "vit", "wav2vec2"]
SHAPES = [entry.name for entry in torch_shapes.ENTRIES]
KNOWN_CAPTURE_FAILURES: dict[str, str] = {}
PYTHONIFIED = ["dict_output", "bert"]
KNOWN_PYTHONIFY_FAILURES: dict[str, str] = {}
# gpt2 trains (its backward once failed to load); the others' inference graphs hold group norm,
# padding, relu6, 1-d convolutions, repeat and vector norms.
NATIVE = ["gpt2", "mobilenet_v2", "hubert", "whisper", "siglip"]


def _marked(names: list[str], known: dict[str, str]) -> list:
    return [
        pytest.param(name, marks=pytest.mark.xfail(strict=True, reason=known[name]))
        if name in known
        else name
        for name in names
    ]


def test_registry_covers_the_families():
    entries = corpus.entries().values()
    hugging_face = [entry for entry in entries if entry.family != "torch"]
    assert len(hugging_face) >= 40
    families = Counter(entry.family for entry in hugging_face)
    expected = {"decoder", "encoder", "encoder-decoder", "vision", "audio", "multimodal"}
    assert set(families) == expected, families
    share = sum(entry.train for entry in entries) / len(entries)
    assert 0.25 <= share <= 0.45, share


@pytest.mark.parametrize("name", _marked(ARCHITECTURES + SHAPES, KNOWN_CAPTURE_FAILURES))
def test_capture_keeps_results(name, tmp_path):
    entry = corpus.get(name)
    plain = checks.compiled_call(entry, BACKEND)
    record = checks.check_capture(entry, BACKEND, tmp_path / "dump", plain)
    assert record["status"] == "ok", record


@pytest.mark.parametrize("name", _marked(PYTHONIFIED, KNOWN_PYTHONIFY_FAILURES))
def test_pythonify_in_a_fresh_process(name, tmp_path):
    entry = corpus.get(name)
    eager = checks.eager_call(entry)
    plain = checks.compiled_call(entry, BACKEND)
    record = checks.check_pythonify(entry, BACKEND, tmp_path / f"{name}.py", plain, eager, False)
    assert record["status"] == "ok", record


@pytest.mark.parametrize("name", NATIVE)
def test_native_backend_matches_eager(name):
    from corpus_outputs import differences
    from sweep_worker import native_graphs

    from glassbox.backend import REPORTS

    entry = corpus.get(name)
    eager = checks.eager_call(entry)
    start = len(REPORTS)
    got = checks.compiled_call(entry, "glassbox")
    graphs = native_graphs(REPORTS[start:])
    assert not differences(got, eager, False), differences(got, eager, False)[:3]
    assert graphs
    if not entry.train:
        assert all(g["segments"] == 1 and g["native"] == g["nodes"] for g in graphs), graphs


def test_report_groups_and_fails_on_changed_results():
    base = {"family": "torch", "train": False, "compile": {"status": "ok"}}
    records = [
        {**base, "name": "a", "backend": "eager", "capture": {"status": "ok", "frames": 2,
         "from_dump": 1, "why_not_from_dump": ["no function named f with Dynamo's arguments"]}},
        {**base, "name": "b", "backend": "aot_eager", "capture": {"status": "changed",
         "differences": ["out: max abs difference 1"]}, "pythonify": {"status": "refused",
         "error": "PythonifyError: cannot write the glue of g (compile 0/0): closures"}},
    ]  # fmt: skip
    assert [r["name"] for r in sweep_report.capture_broke(records)] == ["b"]
    text = sweep_report.markdown({"python": "3"}, records)
    assert "| b | torch |  | aot_eager | changed: out: max abs difference 1 |" in text
    assert "frames running from their dump 1/2 (50%)" in text
    assert "pythonify refused: PythonifyError: cannot write the glue of … : closures: b/" in text
    assert "runs Dynamo's bytecode: no function named … with Dynamo's arguments: a/eager" in text
