"""Hugging Face text models of the corpus: decoder language models and encoders."""

from __future__ import annotations

from hf_build import TOKEN_IDS, VOCAB, Spec, causal_lm, classify_tokens, entry, masked_lm

# Llama-like decoders share most of their settings (RoPE, RMSNorm, grouped-query attention).
LLAMA_LIKE = {
    "vocab_size": VOCAB,
    "hidden_size": 64,
    "intermediate_size": 128,
    "num_hidden_layers": 2,
    "num_attention_heads": 4,
    "num_key_value_heads": 2,
    "max_position_embeddings": 64,
    **TOKEN_IDS,
}
GPT_STYLE = {"vocab_size": VOCAB, "n_embd": 32, "n_layer": 2, "n_head": 2, "n_positions": 64}
BERT_LIKE = {
    "vocab_size": VOCAB,
    "hidden_size": 32,
    "num_hidden_layers": 2,
    "num_attention_heads": 2,
    "intermediate_size": 64,
    "max_position_embeddings": 64,
    "pad_token_id": 0,
}


def _lm(name: str, model: str, config: str, settings: dict, train: bool = False):
    return entry(name, "decoder", Spec(model, config, settings, causal_lm), train)


def _encoder(name: str, model: str, config: str, settings: dict, train: bool = False):
    inputs = classify_tokens if "SequenceClassification" in model else masked_lm
    return entry(name, "encoder", Spec(model, config, settings, inputs), train)


DECODERS = [
    _lm("gpt2", "GPT2LMHeadModel", "GPT2Config", {**GPT_STYLE, **TOKEN_IDS}, train=True),
    _lm(
        "gpt_neo",
        "GPTNeoForCausalLM",
        "GPTNeoConfig",
        {
            "vocab_size": VOCAB,
            "hidden_size": 32,
            "num_layers": 2,
            "num_heads": 2,
            "attention_types": [[["global", "local"], 1]],
            "window_size": 4,
            "max_position_embeddings": 64,
            **TOKEN_IDS,
        },
    ),
    _lm("gptj", "GPTJForCausalLM", "GPTJConfig", {**GPT_STYLE, "rotary_dim": 8, **TOKEN_IDS}),
    _lm(
        "opt",
        "OPTForCausalLM",
        "OPTConfig",
        {
            "vocab_size": VOCAB,
            "hidden_size": 32,
            "word_embed_proj_dim": 32,
            "num_hidden_layers": 2,
            "num_attention_heads": 2,
            "ffn_dim": 64,
            "max_position_embeddings": 64,
            **TOKEN_IDS,
        },
        train=True,
    ),
    _lm(
        "bloom",
        "BloomForCausalLM",
        "BloomConfig",
        {"vocab_size": VOCAB, "hidden_size": 32, "n_layer": 2, "n_head": 2, **TOKEN_IDS},
    ),
    _lm("llama", "LlamaForCausalLM", "LlamaConfig", LLAMA_LIKE, train=True),
    _lm("mistral", "MistralForCausalLM", "MistralConfig", {**LLAMA_LIKE, "sliding_window": 4}),
    _lm(
        "mixtral",
        "MixtralForCausalLM",
        "MixtralConfig",
        {**LLAMA_LIKE, "num_local_experts": 4, "num_experts_per_tok": 2},
    ),
    _lm("qwen2", "Qwen2ForCausalLM", "Qwen2Config", LLAMA_LIKE, train=True),
    _lm("qwen3", "Qwen3ForCausalLM", "Qwen3Config", {**LLAMA_LIKE, "head_dim": 16}),
    _lm("phi", "PhiForCausalLM", "PhiConfig", LLAMA_LIKE),
    _lm("phi3", "Phi3ForCausalLM", "Phi3Config", LLAMA_LIKE),
    _lm("gemma", "GemmaForCausalLM", "GemmaConfig", {**LLAMA_LIKE, "head_dim": 16}, train=True),
    _lm("gemma2", "Gemma2ForCausalLM", "Gemma2Config", {**LLAMA_LIKE, "head_dim": 16}),
    _lm(
        "falcon",
        "FalconForCausalLM",
        "FalconConfig",
        {
            "vocab_size": VOCAB,
            "hidden_size": 32,
            "num_hidden_layers": 2,
            "num_attention_heads": 2,
            **TOKEN_IDS,
        },
    ),
    _lm("gpt_bigcode", "GPTBigCodeForCausalLM", "GPTBigCodeConfig", {**GPT_STYLE, **TOKEN_IDS}),
    _lm(
        "gpt_neox",
        "GPTNeoXForCausalLM",
        "GPTNeoXConfig",
        {**LLAMA_LIKE, "hidden_size": 32, "intermediate_size": 64, "num_key_value_heads": 4},
    ),
    _lm("codegen", "CodeGenForCausalLM", "CodeGenConfig", {**GPT_STYLE, "rotary_dim": 8}),
    _lm("olmo", "OlmoForCausalLM", "OlmoConfig", LLAMA_LIKE),
    _lm("starcoder2", "Starcoder2ForCausalLM", "Starcoder2Config", LLAMA_LIKE),
    _lm(
        "biogpt",
        "BioGptForCausalLM",
        "BioGptConfig",
        {**BERT_LIKE, "intermediate_size": 64, **TOKEN_IDS},
        train=True,
    ),
]

ENCODERS = [
    _encoder("bert", "BertForMaskedLM", "BertConfig", BERT_LIKE, train=True),
    _encoder("bert_classifier", "BertForSequenceClassification", "BertConfig", BERT_LIKE),
    _encoder("roberta", "RobertaForMaskedLM", "RobertaConfig", {**BERT_LIKE, "pad_token_id": 1}),
    _encoder(
        "distilbert",
        "DistilBertForSequenceClassification",
        "DistilBertConfig",
        {"vocab_size": VOCAB, "dim": 32, "n_layers": 2, "n_heads": 2, "hidden_dim": 64},
        train=True,
    ),
    _encoder("albert", "AlbertForMaskedLM", "AlbertConfig", {**BERT_LIKE, "embedding_size": 16}),
    _encoder(
        "electra",
        "ElectraForPreTraining",
        "ElectraConfig",
        {**BERT_LIKE, "embedding_size": 16},
        train=True,
    ),
    _encoder("deberta_v2", "DebertaV2ForMaskedLM", "DebertaV2Config", BERT_LIKE),
    _encoder(
        "xlm_roberta",
        "XLMRobertaForMaskedLM",
        "XLMRobertaConfig",
        {**BERT_LIKE, "pad_token_id": 1},
    ),
    _encoder("mpnet", "MPNetForMaskedLM", "MPNetConfig", {**BERT_LIKE, "pad_token_id": 1}),
    _encoder("roformer", "RoFormerModel", "RoFormerConfig", BERT_LIKE),
    _encoder("convbert", "ConvBertModel", "ConvBertConfig", BERT_LIKE),
    _encoder(
        "mobilebert",
        "MobileBertModel",
        "MobileBertConfig",
        {**BERT_LIKE, "embedding_size": 16, "intra_bottleneck_size": 16},
    ),
]

ENTRIES = DECODERS + ENCODERS
