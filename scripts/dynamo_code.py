"""Dynamo's generated code on real models: collect it, then measure how much decompiles exactly.

    .venv/bin/python scripts/dynamo_code.py collect /tmp/dynamo-code  # a .marshal per code object
    .venv/bin/python scripts/dynamo_code.py measure /tmp/dynamo-code [--core OLD/_core.so] [-v]
    .venv/bin/python scripts/dynamo_code.py run [--optimize 1]   # decompiled code in Dynamo's place
    .venv/bin/python scripts/dynamo_code.py collect DIR --corpus gpt2,electra --corpus-only

``--corpus NAMES`` (collect, run) adds entries of the real-model corpus (tests/python/models),
built and called as the model sweep does, compiled with ``--backend`` (default aot_eager);
``--corpus-only`` leaves out the built-in models and shapes.

``collect`` compiles tiny HF models (GPT-2, BERT, Llama, T5, ViT; random weights from configs,
never downloaded: needs ``transformers``) and a few torch-level shapes (graph breaks in loops, in
nested calls, generator expressions over locals, a decorated forward) with
``torch.compile(backend="eager")``, and writes every code object Dynamo generates (each
transformed frame and each resume function) as marshal bytes. Constants marshal cannot carry
(``torch.device``, functions, modules) become placeholder strings, nested code objects included.

``measure`` decompiles each file with the running glassbox (or the ``_core`` extension named by
``--core``, to judge an older build), recompiles the source, and compares the function's code
with the verifier's strict comparison, ``co_qualname`` aside. It prints the share that decompiles
without a fallback and recompiles equal, then each code object's first difference (``-v``) or
the most common first differences (the instruction names of the expected/got pair).

``run`` runs the same models and shapes eagerly, then compiled with every code object Dynamo
generates replaced by its decompiled source (compiled at ``--optimize``), and compares outputs.
"""

from __future__ import annotations

import argparse
import collections
import importlib.machinery
import importlib.util
import marshal
import os
import re
import sys
import types
import warnings

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "glassbox", "verify"))


def marshallable(value):
    """``value`` with what marshal cannot write replaced by a placeholder string."""
    if isinstance(value, types.CodeType):
        return value.replace(co_consts=tuple(marshallable(c) for c in value.co_consts))
    if isinstance(value, (tuple, frozenset)):
        items = [marshallable(v) for v in value]
        return type(value)(items)
    try:
        marshal.dumps(value)
        return value
    except ValueError:
        return f"<placeholder {type(value).__module__}.{type(value).__qualname__}>"


# ---- collect ------------------------------------------------------------------------------------


def tiny_models():
    """(name, model, example inputs as kwargs) for each HF architecture measured."""
    import torch
    import transformers as tf

    torch.manual_seed(0)
    ids = torch.randint(0, 100, (1, 8))
    small = dict(num_hidden_layers=2, num_attention_heads=2, intermediate_size=64, vocab_size=100)
    yield (
        "gpt2",
        tf.GPT2LMHeadModel(tf.GPT2Config(n_layer=2, n_embd=32, n_head=2, vocab_size=100)),
        {"input_ids": ids},
    )
    yield "bert", tf.BertModel(tf.BertConfig(hidden_size=32, **small)), {"input_ids": ids}
    llama = tf.LlamaConfig(hidden_size=32, num_key_value_heads=1, **small)
    yield "llama", tf.LlamaForCausalLM(llama), {"input_ids": ids}
    t5 = tf.T5Config(d_model=32, d_ff=64, num_layers=2, num_heads=2, d_kv=16, vocab_size=100)
    yield "t5", tf.T5ForConditionalGeneration(t5), {"input_ids": ids, "decoder_input_ids": ids}
    vit = tf.ViTConfig(image_size=32, patch_size=8, hidden_size=32, **small)
    yield "vit", tf.ViTModel(vit), {"pixel_values": torch.randn(1, 3, 32, 32)}


def torch_shapes():
    """(name, callable, args) for graph breaks in the shapes Dynamo resumes in."""
    import torch

    def in_loop(x):
        for k in range(3):
            x = x * 2
            if k == 1:
                torch._dynamo.graph_break()
            x = x + k
        return x

    def inner(x):
        y = x.sin()
        torch._dynamo.graph_break()
        return y + 1

    def nested_call(x):
        a = x * 3
        b = inner(a)
        return a + b

    def genexp(x):
        scales = [1.0, 2.0, 3.0]
        parts = tuple(x * s for s in scales)
        torch._dynamo.graph_break()
        return sum(p.sum() for p in parts)

    class Decorated(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = torch.nn.Linear(4, 4)

        @torch.no_grad()
        def forward(self, x):
            h = self.lin(x)
            print("glassbox-dynamo-code")
            return h.relu()

    def while_break(x, n: int):
        total = x
        while n > 0:
            total = total + x
            torch._dynamo.graph_break()
            n -= 1
        return total

    t = torch.arange(4.0)
    yield "in_loop", in_loop, (t,)
    yield "nested_call", nested_call, (t,)
    yield "genexp", genexp, (t,)
    yield "decorated_forward", Decorated(), (torch.ones(2, 4),)
    yield "while_break", while_break, (t, 2)


def model_runs():
    """(name, callable, args, kwargs) per model: the forward; the forward with a graph break in
    every attention's forward hook (graph breaks in nested module calls); a training step
    (backward breaks the graph); for decoders, generate() over the compiled forward."""
    import torch

    for name, model, inputs in tiny_models():
        yield name, model, (), inputs
        train = dict(inputs, labels=inputs.get("input_ids"))

        def step(model=model, train=train):
            out = model(**{k: v for k, v in train.items() if v is not None})
            loss = out.loss if getattr(out, "loss", None) is not None else out[0].float().mean()
            loss.backward()
            return loss.detach()

        yield f"{name}_train", step, (), {}
        if name in ("gpt2", "llama"):
            compiled = torch.compile(model.forward, backend="eager")
            generate = model.generate

            def generated(model=model, compiled=compiled, generate=generate, inputs=inputs):
                model.forward = compiled
                try:
                    return generate(**inputs, max_new_tokens=3, do_sample=False)
                finally:
                    del model.forward

            yield f"{name}_generate", generated, (), {}

        def hooked(model=model, inputs=inputs):
            names = ("attn", "attention")
            attention = [m for n, m in model.named_modules() if n.lower().endswith(names)]
            breaks = [
                m.register_forward_hook(lambda *a: torch._dynamo.graph_break()) for m in attention
            ]
            try:
                return torch.compile(model, backend="eager")(**inputs)
            finally:
                for h in breaks:
                    h.remove()

        yield f"{name}_hooked", hooked, (), {}


def corpus_runs(names: list[str], backend: str):
    """(name, callable, args, kwargs) per entry of the real-model corpus (tests/python/models),
    run as the model sweep runs it; ``fn(compiled=False)`` gives its eager results."""
    import torch

    sys.path.insert(0, os.path.join(ROOT, "tests", "python", "models"))
    import corpus
    import corpus_outputs

    for name in names:
        entry = corpus.get(name)

        def run_entry(entry=entry, compiled=True):
            target, args, kwargs = entry.build(0)
            run = torch.compile(target, backend=backend) if compiled else None
            return corpus_outputs.call(target, args, kwargs, entry.train, run=run)

        yield f"corpus_{name}", run_entry, (), {}


def all_runs(corpus_names: list[str], backend: str, builtin: bool = True):
    """The built-in models and shapes (unless not ``builtin``), then the corpus entries named."""
    if builtin:
        yield from model_runs()
        yield from ((n, f, a, {}) for n, f, a in torch_shapes())
    yield from corpus_runs(corpus_names, backend)


def self_compiling(name: str) -> bool:
    return name.endswith(("_generate", "_hooked")) or name.startswith("corpus_")


def decompiled_code(code: types.CodeType, optimize: int):
    """``code`` decompiled and compiled again (at ``optimize``), or None with a fallback."""
    from glassbox.decompiler import decompile_detailed

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = decompile_detailed(code)
    if result.fallbacks:
        return None
    module = compile(result.source, f"<decompiled {code.co_name}>", "exec", optimize=optimize)
    got = find_code(module, def_name(code.co_name)) or find_code(module, code.co_name)
    return got.replace(co_name=code.co_name, co_qualname=code.co_qualname)


def outputs(value):
    """The tensors of a model's output, flattened, for comparison."""
    import torch

    if isinstance(value, torch.Tensor):
        return [value.detach()]
    if isinstance(value, dict):
        return [t for v in value.values() for t in outputs(v)]
    if isinstance(value, (list, tuple)):
        return [t for v in value for t in outputs(v)]
    return []


def run(
    optimize: int, core_path: str | None, corpus_names: list[str], backend: str, builtin: bool
) -> None:
    """Each run twice: eager, then compiled with Dynamo's code replaced by its decompiled source."""
    import torch
    import torch._dynamo.convert_frame as convert_frame

    import glassbox.decompiler

    glassbox.decompiler._core = load_core(core_path)

    replaced = collections.Counter()
    current = ["?"]

    def hook(old: types.CodeType, new: types.CodeType):
        try:
            marshal.dumps(new)
        except ValueError:
            return None  # a constant marshal cannot carry: Dynamo's own code runs
        got = decompiled_code(new, optimize)
        replaced[current[0]] += got is not None
        return got

    for name, fn, args, kwargs in all_runs(corpus_names, backend, builtin):
        current[0] = name
        torch.manual_seed(0)
        torch._dynamo.reset()
        compiles_itself = self_compiling(name)
        try:
            if name.startswith("corpus_"):
                expected = outputs(fn(compiled=False))
            else:
                expected = outputs(fn(*args, **kwargs)) if not compiles_itself else None
            handle = convert_frame.register_bytecode_hook(hook)
            try:
                torch.manual_seed(0)
                compiled = fn if compiles_itself else torch.compile(fn, backend="eager")
                got = compiled(*args, **kwargs)
            finally:
                handle.remove()
        except Exception as error:
            print(f"{name}: RAISED {type(error).__name__}: {str(error)[:300]}")
            continue
        same = expected is None or (
            len(expected) == len(outputs(got))
            and all(torch.allclose(a, b) for a, b in zip(expected, outputs(got), strict=True))
        )
        print(f"{name}: {'same' if same else 'DIFFERENT'} ({replaced[name]} code objects replaced)")


def collect(folder: str, corpus_names: list[str], backend: str, builtin: bool) -> None:
    import torch
    import torch._dynamo.convert_frame as convert_frame

    os.makedirs(folder, exist_ok=True)
    written = collections.Counter()
    current = ["?"]

    def hook(old: types.CodeType, new: types.CodeType) -> None:
        codes = [new]
        if old.co_name.startswith("torch_dynamo_resume_in_"):
            codes.insert(0, old)
        for code in codes:
            index = written[current[0]]
            written[current[0]] += 1
            name = re.sub(r"[^A-Za-z0-9_]", "_", code.co_name)[:80]
            path = os.path.join(folder, f"{current[0]}-{index:03d}-{name}.marshal")
            with open(path, "wb") as handle:
                handle.write(marshal.dumps(marshallable(code)))

    handle = convert_frame.register_bytecode_hook(hook)
    try:
        for name, fn, args, kwargs in all_runs(corpus_names, backend, builtin):
            current[0] = name
            torch._dynamo.reset()
            try:
                if self_compiling(name):
                    fn()  # compiles its own parts
                else:
                    torch.compile(fn, backend="eager")(*args, **kwargs)
            except Exception as error:  # a run Dynamo or the model refuses: say so, go on
                print(f"{name}: {type(error).__name__}: {str(error)[:200]}")
    finally:
        handle.remove()
    print(f"{sum(written.values())} code objects: {dict(written)}")


# ---- measure ------------------------------------------------------------------------------------


def load_core(path: str | None):
    if path is None:
        from glassbox import _core

        return _core
    loader = importlib.machinery.ExtensionFileLoader("glassbox._core", path)
    spec = importlib.util.spec_from_loader("glassbox._core", loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


def def_name(name: str) -> str:
    """The name the decompiler gives a `def` of code named ``name`` (`<lambda>`: `_lambda_`)."""
    return re.sub(r"\W", "_", name)


def find_code(code: types.CodeType, name: str):
    import normalize  # glassbox/verify on sys.path: the judging interpreter's own copy

    return normalize.find_code(code, name)


def judge(core, data: bytes) -> tuple[str, str, str]:
    """(verdict, first difference, source): equal, different, fallback or no_compile."""
    import normalize

    code = marshal.loads(data)
    source, fallbacks = core.decompile_marshal(data, sys.version_info.minor, True)
    if fallbacks:
        return "fallback", str(fallbacks[0]), source
    try:
        module = compile(source, "<decompiled>", "exec", dont_inherit=True)
    except SyntaxError as error:
        return "no_compile", str(error), source
    got = find_code(module, def_name(code.co_name)) or find_code(module, code.co_name)
    if got is None:
        return "no_compile", "no function of that name", source
    comparison = normalize.compare(code, got, frozenset({"co_qualname"}))
    if comparison.equal:
        return "equal", "", source
    return "different", comparison.first_difference.describe(), source


def shape_of(difference: str) -> str:
    """A first difference without its numbers and names: what kinds of instructions differ."""
    text = re.sub(r"^[^:]*: ", "", difference)
    text = re.sub(r"#\d+", "#", text)
    return re.sub(r" \d+ \([^)]*\)| \([^)]*\)| -?\d+\b", "", text)[:160]


def measure(folder: str, core_path: str | None, verbose: bool) -> None:
    core = load_core(core_path)
    verdicts = collections.Counter()
    shapes = collections.Counter()
    for name in sorted(os.listdir(folder)):
        if not name.endswith(".marshal"):
            continue
        with open(os.path.join(folder, name), "rb") as handle:
            data = handle.read()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            verdict, difference, _ = judge(core, data)
        verdicts[verdict] += 1
        if verdict != "equal":
            shapes[f"{verdict}: {shape_of(difference)}"] += 1
            if verbose:
                print(f"{name}\t{verdict}\t{difference[:300]}")
    total = sum(verdicts.values())
    share = verdicts["equal"] / max(total, 1)
    print(f"equal {verdicts['equal']}/{total} ({share:.1%}); {dict(verdicts)}")
    for shape, count in shapes.most_common(25):
        print(f"{count:4d}  {shape}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    collected = commands.add_parser("collect")
    collected.add_argument("folder")
    measured = commands.add_parser("measure")
    measured.add_argument("folder")
    measured.add_argument("--core", help="a _core extension to judge instead of glassbox's own")
    measured.add_argument("-v", "--verbose", action="store_true")
    ran = commands.add_parser("run")
    ran.add_argument("--optimize", type=int, default=0, help="compile the source at this level")
    ran.add_argument("--core", help="a _core extension to judge instead of glassbox's own")
    for command in (collected, ran):
        command.add_argument("--corpus", default="", help="corpus entries too (gpt2,electra,...)")
        command.add_argument("--backend", default="aot_eager", help="the corpus entries' backend")
        command.add_argument("--corpus-only", action="store_true", help="no built-in models")
    args = parser.parse_args()
    corpus_names = [n for n in getattr(args, "corpus", "").split(",") if n]
    if args.command == "collect":
        collect(args.folder, corpus_names, args.backend, not args.corpus_only)
    elif args.command == "run":
        run(args.optimize, args.core, corpus_names, args.backend, not args.corpus_only)
    else:
        measure(args.folder, args.core, args.verbose)


if __name__ == "__main__":
    main()
