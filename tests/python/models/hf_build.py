"""Building a Hugging Face architecture from its config, with random weights and random inputs.

A :class:`Spec` names the model and config classes of ``transformers``, the config's settings
(tiny: 2 layers, widths 32-64, a vocabulary of 128) and the maker of its inputs. The weights
come from ``torch.manual_seed(seed)``, the inputs from a generator seeded apart, so that neither
depends on the other.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass, field

import torch
from corpus import Built, Entry

VOCAB = 128
BATCH = 2
LENGTH = 8
TOKEN_IDS = {"pad_token_id": 0, "bos_token_id": 1, "eos_token_id": 2}

Inputs = tuple[tuple, dict]
InputMaker = Callable[[torch.Generator, bool], Inputs]


@dataclass(frozen=True)
class Spec:
    model: str  # a class of transformers, e.g. "GPT2LMHeadModel"
    config: str  # its config class, e.g. "GPT2Config"
    settings: dict = field(default_factory=dict)
    inputs: InputMaker | None = None


def build(spec: Spec, train: bool, seed: int) -> Built:
    import transformers

    torch.manual_seed(seed)
    config = getattr(transformers, spec.config)(**spec.settings)
    model = getattr(transformers, spec.model)(config).eval()
    generator = torch.Generator().manual_seed(seed + 1)
    args, kwargs = spec.inputs(generator, train)
    return model, args, kwargs


def entry(name: str, family: str, spec: Spec, train: bool = False) -> Entry:
    return Entry(name, family, functools.partial(build, spec, train), train)


def token_ids(generator: torch.Generator, length: int = LENGTH) -> torch.Tensor:
    return torch.randint(3, VOCAB, (BATCH, length), generator=generator)


def causal_lm(generator: torch.Generator, train: bool) -> Inputs:
    """Decoder LMs: input_ids; with labels (the LM loss) when trained; no key/value cache."""
    ids = token_ids(generator)
    kwargs: dict = {"use_cache": False}
    if train:
        kwargs["labels"] = ids.clone()
    return (ids,), kwargs


def masked_lm(generator: torch.Generator, train: bool) -> Inputs:
    """Encoders: input_ids and an attention mask (the last token padded out); labels if trained."""
    ids = token_ids(generator)
    mask = torch.ones_like(ids)
    mask[:, -1] = 0
    kwargs: dict = {"attention_mask": mask}
    if train:
        kwargs["labels"] = ids.clone()
    return (ids,), kwargs


def classify_tokens(generator: torch.Generator, train: bool) -> Inputs:
    """Sequence classification: as masked_lm, with one class label per sequence if trained."""
    (ids,), kwargs = masked_lm(generator, False)
    if train:
        kwargs["labels"] = torch.randint(0, 2, (BATCH,), generator=generator)
    return (ids,), kwargs


def seq2seq(generator: torch.Generator, train: bool) -> Inputs:
    """Encoder-decoders: source ids and decoder ids (as labels when trained); no cache."""
    ids = token_ids(generator)
    target = token_ids(generator, LENGTH - 2)
    if train:
        return (ids,), {"labels": target, "use_cache": False}
    return (ids,), {"decoder_input_ids": target, "use_cache": False}


def image(size: int = 32, labels: int = 0) -> InputMaker:
    """Vision: a batch of random RGB images, with class labels when trained and ``labels``."""

    def make(generator: torch.Generator, train: bool) -> Inputs:
        pixels = torch.randn(BATCH, 3, size, size, generator=generator)
        if train and labels:
            return (pixels,), {"labels": torch.randint(0, labels, (BATCH,), generator=generator)}
        return (pixels,), {}

    return make


def audio(samples: int = 800) -> InputMaker:
    """Audio: raw waveforms (CTC labels when trained)."""

    def make(generator: torch.Generator, train: bool) -> Inputs:
        wave = torch.randn(BATCH, samples, generator=generator)
        if train:
            return (wave,), {"labels": torch.randint(3, 32, (BATCH, 4), generator=generator)}
        return (wave,), {}

    return make


def text_and_image(size: int = 32) -> InputMaker:
    """Contrastive multimodal models: input_ids and pixel_values; their loss if trained."""

    def make(generator: torch.Generator, train: bool) -> Inputs:
        ids = token_ids(generator)
        pixels = torch.randn(BATCH, 3, size, size, generator=generator)
        kwargs: dict = {"pixel_values": pixels}
        if train:
            kwargs["return_loss"] = True
        return (ids,), kwargs

    return make
