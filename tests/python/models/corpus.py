"""The real-model corpus: every entry builds a tiny model with random weights and its inputs.

An entry's ``build(seed)`` returns ``(target, args, kwargs)``: the module (in eval mode) or
function to compile and the call's arguments, the same on every call with the same seed, in any
process, so that a fresh process can rebuild exactly what another one compiled. ``train``
entries are also run backward (``corpus_outputs.loss_of``); the others run under
``torch.no_grad()``.

The Hugging Face architectures come from their configs (transformers is pinned in
requirements/dev.txt): nothing is ever downloaded, no tokenizer is needed (``HF_HUB_OFFLINE``).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")

Built = tuple[Callable[..., Any], tuple, dict]


@dataclass(frozen=True)
class Entry:
    """One architecture or code shape: its name, its family and how to build it."""

    name: str
    family: str
    build: Callable[[int], Built]
    train: bool = False


def entries() -> dict[str, Entry]:
    """Every entry by name, Hugging Face architectures first, then the torch-level shapes."""
    import hf_seq2seq
    import hf_text
    import hf_vision_audio
    import torch_shapes

    found: dict[str, Entry] = {}
    for module in (hf_text, hf_seq2seq, hf_vision_audio, torch_shapes):
        for entry in module.ENTRIES:
            if entry.name in found:
                raise ValueError(f"two corpus entries are named {entry.name!r}")
            found[entry.name] = entry
    return found


def get(name: str) -> Entry:
    return entries()[name]


def build(name: str, seed: int = 0) -> Built:
    return get(name).build(seed)
