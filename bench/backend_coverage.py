"""How much of real models' inference graphs the glassbox backend runs natively.

For Hugging Face architectures built from small configs (2 layers, d 128, random weights, batch 1,
16 tokens; no download: HF_HUB_OFFLINE=1), compiles each with ``backend="glassbox"`` under
``torch.no_grad()``, runs it, and prints per architecture: the native share of the inference
graphs' nodes, the segments of each graph (native and fallback runs; 1 is one native segment),
the fallback ops with their counts, and the largest absolute difference from eager:

    .venv/bin/python bench/backend_coverage.py [--models gpt2,bert,...] [--verbose]

Needs transformers (``pip install -c requirements/constraints.txt transformers==5.24.0``).
Not a test: it reports, and exits 0 whatever it finds (an architecture that fails to build or run
is a row saying why).
"""

from __future__ import annotations

import argparse
import collections
import os
import sys
import traceback

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")

import torch  # noqa: E402

import glassbox  # noqa: E402,F401  (registers the backend)
from glassbox.backend import REPORTS, register  # noqa: E402

register()

D, HEADS, FF, LAYERS, VOCAB, TOKENS = 128, 4, 256, 2, 1000, 16
# Common config arguments for decoder and encoder language models.
LM = dict(vocab_size=VOCAB, hidden_size=D, num_hidden_layers=LAYERS, num_attention_heads=HEADS,
          intermediate_size=FF, max_position_embeddings=64, use_cache=False)  # fmt: skip


def _text(model, with_mask=True):
    ids = torch.randint(0, VOCAB, (1, TOKENS))
    kwargs = {"input_ids": ids}
    if with_mask:
        kwargs["attention_mask"] = torch.ones(1, TOKENS, dtype=torch.long)
    return model, kwargs


def _image(model, size):
    return model, {"pixel_values": torch.randn(1, 3, size, size)}


def build(name):
    """(model, keyword arguments) for one architecture, random weights from a small config."""
    import transformers as tf

    if name == "gpt2":
        cfg = tf.GPT2Config(vocab_size=VOCAB, n_embd=D, n_layer=LAYERS, n_head=HEADS,
                            n_positions=64, use_cache=False)  # fmt: skip
        return _text(tf.GPT2LMHeadModel(cfg))
    if name == "bert":
        return _text(tf.BertModel(tf.BertConfig(**LM)))
    if name == "roberta":
        return _text(tf.RobertaModel(tf.RobertaConfig(**LM, pad_token_id=1)))
    if name == "distilbert":
        cfg = tf.DistilBertConfig(vocab_size=VOCAB, dim=D, n_layers=LAYERS, n_heads=HEADS,
                                  hidden_dim=FF, max_position_embeddings=64)  # fmt: skip
        return _text(tf.DistilBertModel(cfg))
    if name == "llama":
        return _text(tf.LlamaForCausalLM(tf.LlamaConfig(**LM, num_key_value_heads=2)))
    if name == "mistral":
        return _text(tf.MistralForCausalLM(tf.MistralConfig(**LM, num_key_value_heads=2)))
    if name == "qwen2":
        return _text(tf.Qwen2ForCausalLM(tf.Qwen2Config(**LM, num_key_value_heads=2)))
    if name == "opt":
        cfg = tf.OPTConfig(vocab_size=VOCAB, hidden_size=D, num_hidden_layers=LAYERS,
                           num_attention_heads=HEADS, ffn_dim=FF, max_position_embeddings=64,
                           word_embed_proj_dim=D, use_cache=False)  # fmt: skip
        return _text(tf.OPTForCausalLM(cfg))
    if name == "bloom":
        cfg = tf.BloomConfig(vocab_size=VOCAB, hidden_size=D, n_layer=LAYERS, n_head=HEADS,
                             use_cache=False)  # fmt: skip
        return _text(tf.BloomForCausalLM(cfg))
    if name == "t5":
        cfg = tf.T5Config(vocab_size=VOCAB, d_model=D, d_kv=D // HEADS, d_ff=FF, num_layers=LAYERS,
                          num_heads=HEADS, use_cache=False)  # fmt: skip
        model, kwargs = _text(tf.T5ForConditionalGeneration(cfg))
        kwargs["decoder_input_ids"] = torch.randint(0, VOCAB, (1, TOKENS))
        return model, kwargs
    if name == "bart":
        cfg = tf.BartConfig(vocab_size=VOCAB, d_model=D, encoder_layers=LAYERS,
                            decoder_layers=LAYERS, encoder_attention_heads=HEADS,
                            decoder_attention_heads=HEADS, encoder_ffn_dim=FF, decoder_ffn_dim=FF,
                            max_position_embeddings=64, use_cache=False)  # fmt: skip
        return _text(tf.BartModel(cfg))
    if name == "vit":
        cfg = tf.ViTConfig(hidden_size=D, num_hidden_layers=LAYERS, num_attention_heads=HEADS,
                           intermediate_size=FF, image_size=32, patch_size=8)  # fmt: skip
        return _image(tf.ViTModel(cfg), 32)
    if name == "deit":
        cfg = tf.DeiTConfig(hidden_size=D, num_hidden_layers=LAYERS, num_attention_heads=HEADS,
                            intermediate_size=FF, image_size=32, patch_size=8)  # fmt: skip
        return _image(tf.DeiTModel(cfg), 32)
    raise ValueError(f"unknown architecture {name}")


MODELS = "gpt2,bert,llama,t5,vit,opt,bloom,mistral,qwen2,distilbert,roberta,bart,deit"


def tensors_of(out) -> list[torch.Tensor]:
    """The tensors of a model's output (a ModelOutput, tuple or tensor), in order."""
    leaves, _ = torch.utils._pytree.tree_flatten(
        out.to_tuple() if hasattr(out, "to_tuple") else out
    )
    return [t for t in leaves if isinstance(t, torch.Tensor)]


def measure(name) -> dict:
    torch.manual_seed(0)
    model, kwargs = build(name)
    model.eval()
    torch._dynamo.reset()
    compiled = torch.compile(model, backend="glassbox", dynamic=False)
    with torch.no_grad():
        expected = tensors_of(model(**kwargs))
        start = len(REPORTS)
        actual = tensors_of(compiled(**kwargs))
        reports = REPORTS[start:]
    diff = max(
        ((a - e).abs().max().item() for a, e in zip(actual, expected, strict=True) if e.numel()),
        default=0.0,
    )
    return {"reports": reports, "diff": diff}


def row(name, result) -> str:
    reports = result["reports"]
    total = sum(r.total_nodes for r in reports)
    native = sum(r.native_nodes for r in reports)
    fallback: collections.Counter = collections.Counter()
    for r in reports:
        fallback.update(r.fallback_ops)
    segments = ",".join(str(r.segments) for r in reports)
    ops = ", ".join(f"{op.replace('aten.', '')} x{n}" for op, n in fallback.most_common())
    share = 100 * native / total if total else 100.0
    return (
        f"{name:10} {len(reports):>6} {native:>5}/{total:<5} {share:6.1f}% {segments:>9} "
        f"{result['diff']:9.1e}  {ops or '-'}"
    )


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--models", default=MODELS)
    p.add_argument("--verbose", action="store_true", help="print each graph's report")
    args = p.parse_args()
    torch.set_num_threads(max(1, torch.get_num_threads()))
    print(f"torch {torch.__version__}; d {D}, {LAYERS} layers, batch 1, {TOKENS} tokens")
    print(f"{'model':10} {'graphs':>6} {'native':>11} {'share':>7} {'segments':>9} "
          f"{'max |diff|':>9}  fallback ops")  # fmt: skip
    totals = collections.Counter()
    for name in args.models.split(","):
        try:
            result = measure(name)
        except Exception as e:  # a row that says why, and on to the next architecture
            print(f"{name:10} failed: {type(e).__name__}: {str(e).splitlines()[0][:120]}")
            if args.verbose:
                traceback.print_exc()
            continue
        print(row(name, result), flush=True)
        for r in result["reports"]:
            totals["graphs"] += 1
            totals["one segment"] += r.segments == 1 and r.native_nodes == r.total_nodes
            totals["nodes"] += r.total_nodes
            totals["native"] += r.native_nodes
            if args.verbose:
                print("   ", r)
    if totals["graphs"]:
        print(
            f"all: {100 * totals['native'] / max(1, totals['nodes']):.2f}% of "
            f"{totals['nodes']} nodes native; {totals['one segment']}/{totals['graphs']} graphs "
            "are one native segment"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
