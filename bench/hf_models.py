"""Hugging Face architectures from configs, for the backend's benchmarks: random weights, no
download, one size for all (`Size`: width, heads, layers, tokens, batch).

``build(name, size)`` gives ``(model, keyword arguments)``; the model is in eval mode's default
(train) state, as transformers builds it. Needs transformers
(``pip install -c requirements/constraints.txt transformers==5.24.0``).
"""

from __future__ import annotations

import os
from dataclasses import dataclass

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")

import torch  # noqa: E402


@dataclass(frozen=True)
class Size:
    d: int = 128
    heads: int = 4
    ff: int = 256
    layers: int = 2
    vocab: int = 1000
    tokens: int = 16
    batch: int = 1
    image: int = 32  # image side for vision models (patch 8)

    def describe(self) -> str:
        return (
            f"d {self.d}, {self.heads} heads, {self.layers} layers, batch {self.batch}, "
            f"{self.tokens} tokens"
        )


SMALL = Size()
GPT2_SMALL_WIDTH = Size(d=768, heads=12, ff=3072, vocab=50257)  # GPT-2 small's widths


def _text(model, s: Size, with_mask=True):
    ids = torch.randint(0, s.vocab, (s.batch, s.tokens))
    kwargs = {"input_ids": ids}
    if with_mask:
        kwargs["attention_mask"] = torch.ones(s.batch, s.tokens, dtype=torch.long)
    return model, kwargs


def _image(model, s: Size):
    return model, {"pixel_values": torch.randn(s.batch, 3, s.image, s.image)}


def _lm(s: Size) -> dict:
    """Common config arguments for decoder and encoder language models."""
    return dict(vocab_size=s.vocab, hidden_size=s.d, num_hidden_layers=s.layers,
                num_attention_heads=s.heads, intermediate_size=s.ff,
                max_position_embeddings=max(64, s.tokens), use_cache=False)  # fmt: skip


def _vision(s: Size) -> dict:
    return dict(hidden_size=s.d, num_hidden_layers=s.layers, num_attention_heads=s.heads,
                intermediate_size=s.ff, image_size=s.image, patch_size=8)  # fmt: skip


def build(name: str, s: Size = SMALL):
    """(model, keyword arguments) for one architecture, random weights from a config of size s."""
    import transformers as tf

    positions = max(64, s.tokens)
    if name == "gpt2":
        cfg = tf.GPT2Config(vocab_size=s.vocab, n_embd=s.d, n_layer=s.layers, n_head=s.heads,
                            n_positions=positions, use_cache=False)  # fmt: skip
        return _text(tf.GPT2LMHeadModel(cfg), s)
    if name == "bert":
        return _text(tf.BertModel(tf.BertConfig(**_lm(s))), s)
    if name == "roberta":
        return _text(tf.RobertaModel(tf.RobertaConfig(**_lm(s), pad_token_id=1)), s)
    if name == "distilbert":
        cfg = tf.DistilBertConfig(vocab_size=s.vocab, dim=s.d, n_layers=s.layers,
                                  n_heads=s.heads, hidden_dim=s.ff,
                                  max_position_embeddings=positions)  # fmt: skip
        return _text(tf.DistilBertModel(cfg), s)
    if name in ("llama", "mistral", "qwen2"):
        kinds = {"llama": (tf.LlamaForCausalLM, tf.LlamaConfig),
                 "mistral": (tf.MistralForCausalLM, tf.MistralConfig),
                 "qwen2": (tf.Qwen2ForCausalLM, tf.Qwen2Config)}  # fmt: skip
        model_class, config_class = kinds[name]
        return _text(model_class(config_class(**_lm(s), num_key_value_heads=s.heads // 2)), s)
    if name == "opt":
        cfg = tf.OPTConfig(vocab_size=s.vocab, hidden_size=s.d, num_hidden_layers=s.layers,
                           num_attention_heads=s.heads, ffn_dim=s.ff,
                           max_position_embeddings=positions, word_embed_proj_dim=s.d,
                           use_cache=False)  # fmt: skip
        return _text(tf.OPTForCausalLM(cfg), s)
    if name == "bloom":
        cfg = tf.BloomConfig(vocab_size=s.vocab, hidden_size=s.d, n_layer=s.layers,
                             n_head=s.heads, use_cache=False)  # fmt: skip
        return _text(tf.BloomForCausalLM(cfg), s)
    if name == "t5":
        cfg = tf.T5Config(vocab_size=s.vocab, d_model=s.d, d_kv=s.d // s.heads, d_ff=s.ff,
                          num_layers=s.layers, num_heads=s.heads, use_cache=False)  # fmt: skip
        model, kwargs = _text(tf.T5ForConditionalGeneration(cfg), s)
        kwargs["decoder_input_ids"] = torch.randint(0, s.vocab, (s.batch, s.tokens))
        return model, kwargs
    if name == "bart":
        cfg = tf.BartConfig(vocab_size=s.vocab, d_model=s.d, encoder_layers=s.layers,
                            decoder_layers=s.layers, encoder_attention_heads=s.heads,
                            decoder_attention_heads=s.heads, encoder_ffn_dim=s.ff,
                            decoder_ffn_dim=s.ff, max_position_embeddings=positions,
                            use_cache=False)  # fmt: skip
        return _text(tf.BartModel(cfg), s)
    if name == "vit":
        return _image(tf.ViTModel(tf.ViTConfig(**_vision(s))), s)
    if name == "deit":
        return _image(tf.DeiTModel(tf.DeiTConfig(**_vision(s))), s)
    raise ValueError(f"unknown architecture {name}")


def tensors_of(out) -> list[torch.Tensor]:
    """The tensors of a model's output (a ModelOutput, tuple or tensor), in order."""
    leaves, _ = torch.utils._pytree.tree_flatten(
        out.to_tuple() if hasattr(out, "to_tuple") else out
    )
    return [t for t in leaves if isinstance(t, torch.Tensor)]
