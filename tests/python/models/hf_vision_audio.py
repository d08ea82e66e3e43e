"""Hugging Face vision, audio and multimodal models of the corpus."""

from __future__ import annotations

from hf_build import VOCAB, Spec, audio, entry, image, text_and_image

LABELS = 3
VIT_LIKE = {
    "image_size": 32,
    "patch_size": 8,
    "hidden_size": 32,
    "num_hidden_layers": 2,
    "num_attention_heads": 2,
    "intermediate_size": 64,
    "num_labels": LABELS,
}
STAGES = {"depths": [1, 1], "num_labels": LABELS}
WAV2VEC2_LIKE = {
    "vocab_size": 32,
    "hidden_size": 32,
    "num_hidden_layers": 2,
    "num_attention_heads": 2,
    "intermediate_size": 64,
    "conv_dim": [16, 16],
    "conv_stride": [5, 2],
    "conv_kernel": [10, 3],
    "num_conv_pos_embeddings": 16,
    "num_conv_pos_embedding_groups": 2,
    "pad_token_id": 0,
}
TEXT_TOWER = {
    "vocab_size": VOCAB,
    "hidden_size": 32,
    "intermediate_size": 64,
    "num_hidden_layers": 2,
    "num_attention_heads": 2,
    "max_position_embeddings": 16,
}
VISION_TOWER = {
    "hidden_size": 32,
    "intermediate_size": 64,
    "num_hidden_layers": 2,
    "num_attention_heads": 2,
    "image_size": 32,
    "patch_size": 8,
}


def _vision(name: str, model: str, config: str, settings: dict, train: bool = False):
    return entry(name, "vision", Spec(model, config, settings, image(32, LABELS)), train)


def _audio(name: str, model: str, config: str, train: bool = False):
    return entry(name, "audio", Spec(model, config, WAV2VEC2_LIKE, audio()), train)


def _pair(name: str, model: str, config: str, train: bool = False):
    settings = {"text_config": TEXT_TOWER, "vision_config": VISION_TOWER}
    return entry(name, "multimodal", Spec(model, config, settings, text_and_image()), train)


VISION = [
    _vision("vit", "ViTForImageClassification", "ViTConfig", VIT_LIKE, train=True),
    _vision("deit", "DeiTForImageClassification", "DeiTConfig", VIT_LIKE),
    _vision("beit", "BeitForImageClassification", "BeitConfig", VIT_LIKE),
    _vision("dinov2", "Dinov2Model", "Dinov2Config", VIT_LIKE),
    _vision(
        "swin",
        "SwinForImageClassification",
        "SwinConfig",
        {
            **STAGES,
            "image_size": 32,
            "patch_size": 2,
            "embed_dim": 16,
            "num_heads": [2, 2],
            "window_size": 4,
        },
        train=True,
    ),  # fmt: skip
    _vision(
        "convnext",
        "ConvNextForImageClassification",
        "ConvNextConfig",
        {**STAGES, "num_stages": 2, "hidden_sizes": [16, 32]},
    ),
    _vision(
        "resnet",
        "ResNetForImageClassification",
        "ResNetConfig",
        {**STAGES, "embedding_size": 16, "hidden_sizes": [16, 32], "layer_type": "basic"},
        train=True,
    ),
    _vision(
        "mobilenet_v2",
        "MobileNetV2ForImageClassification",
        "MobileNetV2Config",
        {"image_size": 32, "depth_multiplier": 0.35, "num_labels": LABELS},
    ),
    _vision(
        "regnet",
        "RegNetForImageClassification",
        "RegNetConfig",
        {**STAGES, "embedding_size": 16, "hidden_sizes": [16, 32], "groups_width": 8},
    ),
    _vision(
        "poolformer",
        "PoolFormerForImageClassification",
        "PoolFormerConfig",
        {"depths": [1, 1, 1, 1], "hidden_sizes": [8, 16, 16, 32], "num_labels": LABELS},
    ),
]

AUDIO = [
    _audio("wav2vec2", "Wav2Vec2ForCTC", "Wav2Vec2Config", train=True),
    _audio("hubert", "HubertForCTC", "HubertConfig"),
    _audio("wavlm", "WavLMModel", "WavLMConfig"),
]

MULTIMODAL = [
    _pair("clip", "CLIPModel", "CLIPConfig", train=True),
    _pair("siglip", "SiglipModel", "SiglipConfig"),
]

ENTRIES = VISION + AUDIO + MULTIMODAL
