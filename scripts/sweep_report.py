"""The model sweep's records as a Markdown table, a summary and failures grouped by reason.

    python3 scripts/sweep_report.py build/model-sweep.json [more.json ...]   # the Markdown again

Used by scripts/model_sweep.py, which writes ``OUT.json`` (meta and records) and ``OUT.md``.
"""

from __future__ import annotations

import json
import re
import sys
from collections import Counter
from pathlib import Path

BROKEN = ("changed", "raised", "crash")  # a capture status that fails `make test-models`


def capture_status(record: dict) -> str:
    if record["compile"]["status"] != "ok":
        return "compile-" + record["compile"]["status"]  # torch.compile itself: not capture's
    return record.get("capture", {}).get("status", "unknown")


def pythonify_status(record: dict) -> str:
    if "pythonify" not in record:
        return "" if record["compile"]["status"] == "ok" else "-"
    return record["pythonify"]["status"]


def capture_broke(records: list[dict]) -> list[dict]:
    return [r for r in records if capture_status(r) in BROKEN]


def _from_dump(record: dict) -> str:
    capture = record.get("capture", {})
    return f"{capture['from_dump']}/{capture['frames']}" if "frames" in capture else ""


def _cell(status: str, part: dict | None) -> str:
    if not part or status in ("ok", ""):
        return status
    error = part.get("error") or "; ".join(part.get("differences", [])[:1])
    return f"{status}: {_escape(error)[:120]}" if error else status


def _escape(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _bitwise(record: dict) -> str:
    part = record.get("pythonify", {})
    if "bitwise" not in part:
        return ""
    close = "" if part["close_to_eager"] else " (not within 1e-4 of eager)"
    return ("yes" if part["bitwise"] else "no") + close


def _native(record: dict) -> str:
    """The glassbox backend's graphs: native share of their nodes and segments of each."""
    graphs = record.get("native")
    if not graphs:
        return ""
    nodes = sum(g["nodes"] for g in graphs)
    share = 100 * sum(g["native"] for g in graphs) / nodes if nodes else 100.0
    close = "" if record["compile"].get("close_to_eager") else ", not within 1e-4 of eager"
    return f"{share:.1f}%, segments {','.join(str(g['segments']) for g in graphs)}{close}"


def table(records: list[dict]) -> str:
    lines = [
        "| model | family | train | backend | capture | frames from dump | pythonify | bitwise "
        "| native |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for r in records:
        capture = _cell(capture_status(r), r.get("capture") or r["compile"])
        python = _cell(pythonify_status(r), r.get("pythonify"))
        train = "yes" if r["train"] else ""
        lines.append(
            f"| {r['name']} | {r['family']} | {train} | {r['backend']} | {capture} "
            f"| {_from_dump(r)} | {python} | {_bitwise(r)} | {_native(r)} |"
        )
    return "\n".join(lines)


def _share(part: int, whole: int) -> str:
    return f"{part}/{whole} ({100 * part / whole:.0f}%)" if whole else "0/0"


def summary(records: list[dict]) -> str:
    compiled = [r for r in records if r["compile"]["status"] == "ok"]
    captures = Counter(capture_status(r) for r in compiled)
    frames = sum(r.get("capture", {}).get("frames", 0) for r in compiled)
    from_dump = sum(r.get("capture", {}).get("from_dump", 0) for r in compiled)
    tried = [r for r in compiled if "pythonify" in r]
    pythonify = Counter(pythonify_status(r) for r in tried)
    failed = len(tried) - pythonify["ok"] - pythonify["refused"]
    return (
        f"{len({r['name'] for r in records})} entries, {len(records)} runs "
        f"({len(records) - len(compiled)} where torch.compile itself failed or the worker was "
        f"lost before capture). Capture: ok {_share(captures['ok'], len(compiled))}, changed "
        f"{captures['changed']}, raised {captures['raised'] + captures['crash']}, dump problems "
        f"{captures['dump-problem']}, other {_other(captures)}; frames running from their dump "
        f"{_share(from_dump, frames)}. Pythonify: ok {_share(pythonify['ok'], len(tried))}, "
        f"refused {_share(pythonify['refused'], len(tried))}, failed {_share(failed, len(tried))} "
        f"({_other(pythonify, ('ok', 'refused'))})."
    )


def native_summary(records: list[dict]) -> str:
    """The glassbox backend over the corpus: inference graphs' nodes run natively, graphs that
    are one native segment, entries within 1e-4 of eager (gradients too for training entries)."""
    runs = [r for r in records if r["backend"] == "glassbox" and r["compile"]["status"] == "ok"]
    if not runs:
        return ""
    graphs = [g for r in runs if not r["train"] for g in r.get("native", [])]
    nodes = sum(g["nodes"] for g in graphs)
    native = sum(g["native"] for g in graphs)
    whole = sum(g["segments"] == 1 and g["native"] == g["nodes"] for g in graphs)
    fallback = Counter()
    for g in graphs:
        fallback.update(g["fallback"])
    close = [r for r in runs if r["compile"].get("close_to_eager")]
    train = [r for r in runs if r["train"]]
    return (
        f"Backend glassbox: inference graphs {native}/{nodes} nodes native "
        f"({100 * native / max(1, nodes):.2f}%), one native segment {_share(whole, len(graphs))}; "
        f"within 1e-4 of eager {_share(len(close), len(runs))} (training entries, gradients "
        f"included: {_share(sum(r in close for r in train), len(train))}); fallback ops: "
        + (", ".join(f"{op} x{n}" for op, n in fallback.most_common(12)) or "none")
    )


def _other(counts: Counter, known: tuple = ("ok", "changed", "raised", "crash", "dump-problem")):
    return ", ".join(f"{k} {v}" for k, v in sorted(counts.items()) if k not in known) or "none"


def reason_key(text: str) -> str:
    """A reason without the names and numbers that differ between models."""
    text = re.sub(r"\(compile [^)]*\)", "", text)
    text = re.sub(r"(glue of|named|frame for) \S+", r"\1 …", text)
    text = re.sub(r"\S+ \(line \d+\): ", "", text)
    text = re.sub(r"\d+", "N", text)
    return " ".join(text.split())[:160]


def _add(found: dict[str, list[str]], key: str, label: str) -> None:
    labels = found.setdefault(key, [])
    if label not in labels:
        labels.append(label)


def groups(records: list[dict]) -> str:
    """Failures and refusals counted by reason, the models behind each."""
    found: dict[str, list[str]] = {}
    for r in records:
        label = f"{r['name']}/{r['backend']}"
        for kind, part in (("capture", r.get("capture")), ("pythonify", r.get("pythonify"))):
            status = part.get("status") if part else None
            if status in (None, "ok", "unknown"):
                continue
            error = part.get("error") or "; ".join(part.get("differences", [])[:1]) or status
            _add(found, f"{kind} {status}: {reason_key(error)}", label)
        if r["compile"]["status"] != "ok":
            key = f"torch.compile {r['compile']['status']}: {reason_key(r['compile']['error'])}"
            _add(found, key, label)
        for why in r.get("capture", {}).get("why_not_from_dump", []):
            _add(found, f"runs Dynamo's bytecode: {reason_key(why)}", label)
    lines = []
    for key, labels in sorted(found.items(), key=lambda item: -len(item[1])):
        shown = ", ".join(labels[:8]) + (f", … ({len(labels)})" if len(labels) > 8 else "")
        lines.append(f"- **{len(labels)}** {_escape(key)}: {shown}")
    return "\n".join(lines)


def markdown(meta: dict, records: list[dict]) -> str:
    head = ", ".join(f"{k} {v}" for k, v in meta.items())
    return (
        f"# Model sweep\n\n{head}\n\n{summary(records)}\n\n{native_summary(records)}\n\n"
        f"{table(records)}\n\n"
        f"## Failures, refusals and dumped code that does not run, by reason\n\n"
        f"{groups(records)}\n"
    )


def progress_line(record: dict) -> str:
    return (
        f"{record['name']:<22} {record['backend']:<10} capture {capture_status(record):<14}"
        f" from dump {_from_dump(record):<6} pythonify {pythonify_status(record)}"
        f" {_native(record)}"
    )


def write(out: Path, meta: dict, records: list[dict]) -> None:
    """OUT.json and OUT.md, each replaced whole (a reader never sees half a file)."""
    texts = {".json": json.dumps({"meta": meta, "records": records}, indent=1)}
    texts[".md"] = markdown(meta, records)
    for suffix, text in texts.items():
        partial = Path(f"{out}{suffix}.partial")
        partial.write_text(text)
        partial.replace(f"{out}{suffix}")


BACKEND_ORDER = {"eager": 0, "aot_eager": 1, "inductor": 2, "glassbox": 3}


def merge(paths: list[str]) -> tuple[dict, list[dict]]:
    """Several sweeps' records as one (e.g. eager and aot_eager in one run, inductor in another):
    entries in the order first seen, backends in the order eager, aot_eager, inductor; a later
    file's record for the same entry and backend wins."""
    metas, by_key, order = [], {}, {}
    for path in paths:
        data = json.loads(Path(path).read_text())
        metas.append(data["meta"])
        for record in data["records"]:
            order.setdefault(record["name"], len(order))
            by_key[record["name"], record["backend"]] = record
    records = sorted(
        by_key.values(), key=lambda r: (order[r["name"]], BACKEND_ORDER.get(r["backend"], 9))
    )
    meta = {key: " + ".join(str(m.get(key)) for m in metas) for key in metas[0]}
    return meta, records


if __name__ == "__main__":
    print(markdown(*merge(sys.argv[1:])))
