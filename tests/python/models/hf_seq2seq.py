"""Hugging Face encoder-decoder models of the corpus (translation, summarisation, speech)."""

from __future__ import annotations

import torch
from hf_build import BATCH, LENGTH, TOKEN_IDS, VOCAB, Inputs, Spec, entry, seq2seq, token_ids

BART_LIKE = {
    "vocab_size": VOCAB,
    "d_model": 32,
    "encoder_layers": 1,
    "decoder_layers": 1,
    "encoder_attention_heads": 2,
    "decoder_attention_heads": 2,
    "encoder_ffn_dim": 64,
    "decoder_ffn_dim": 64,
    "max_position_embeddings": 64,
    "decoder_start_token_id": 2,
    **TOKEN_IDS,
}
T5_LIKE = {
    "vocab_size": VOCAB,
    "d_model": 32,
    "d_kv": 16,
    "d_ff": 64,
    "num_layers": 1,
    "num_decoder_layers": 1,
    "num_heads": 2,
    "decoder_start_token_id": 0,
    "pad_token_id": 0,
    "eos_token_id": 1,
}
MEL_BINS = 16
WHISPER = {
    **BART_LIKE,
    "num_mel_bins": MEL_BINS,
    "max_source_positions": 16,
    "max_target_positions": 32,
    "suppress_tokens": [],
    "begin_suppress_tokens": [],
}


def speech(generator: torch.Generator, train: bool) -> Inputs:
    """Whisper: log-mel features (twice max_source_positions frames) and decoder ids."""
    features = torch.randn(BATCH, MEL_BINS, 32, generator=generator)
    target = token_ids(generator, LENGTH - 2)
    key = "labels" if train else "decoder_input_ids"
    return (features,), {key: target, "use_cache": False}


def _s2s(name: str, model: str, config: str, settings: dict, train: bool = False):
    return entry(name, "encoder-decoder", Spec(model, config, settings, seq2seq), train)


ENTRIES = [
    _s2s("t5", "T5ForConditionalGeneration", "T5Config", T5_LIKE, train=True),
    _s2s("mt5", "MT5ForConditionalGeneration", "MT5Config", T5_LIKE),
    _s2s("bart", "BartForConditionalGeneration", "BartConfig", BART_LIKE, train=True),
    _s2s("marian", "MarianMTModel", "MarianConfig", BART_LIKE),
    _s2s("pegasus", "PegasusForConditionalGeneration", "PegasusConfig", BART_LIKE),
    _s2s("m2m100", "M2M100ForConditionalGeneration", "M2M100Config", BART_LIKE),
    _s2s("mbart", "MBartForConditionalGeneration", "MBartConfig", BART_LIKE, train=True),
    _s2s("blenderbot", "BlenderbotForConditionalGeneration", "BlenderbotConfig", BART_LIKE),
    entry(
        "whisper",
        "encoder-decoder",
        Spec("WhisperForConditionalGeneration", "WhisperConfig", WHISPER, speech),
    ),
]
