"""Ops the backend's patterns pass writes into graphs that ATen has no op for.

Each is a ``torch.library`` custom op whose PyTorch implementation computes exactly the formula
it replaces, op by op, so that a segment PyTorch runs (a fallback) gives what the graph as traced
gave; the runtime computes the same formula in one kernel.

    glassbox::rotary(x, cos, sin) = x * cos + rotate_half(x) * sin, where rotate_half(x) is
        cat(-x[..., E/2:], x[..., :E/2]) over the last dim E (the rotary position embedding of
        Llama, Mistral, Qwen, Gemma and most decoders since). cos and sin broadcast to x.
    glassbox::grouped_attention(q, k, v, mask, dropout_p, is_causal, scale): CPU flash attention
        of q [B, H, L, E] against k and v [B, Hk, S, E] whose every head serves H / Hk query
        heads in turn: what attention over ``repeat_kv``'s copies (grouped-query attention)
        computes, without the copies.
    glassbox::grouped_sdpa(q, k, v, mask, dropout_p, is_causal, scale): the same over torch's
        scaled_dot_product_attention, as torch.export's graphs keep it (its mask may be boolean).
"""

from __future__ import annotations

import torch


@torch.library.custom_op("glassbox::rotary", mutates_args=())
def rotary(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> torch.Tensor:
    half = x.shape[-1] // 2
    rotated = torch.cat((-x[..., half:], x[..., :half]), dim=-1)
    return x * cos + rotated * sin


@rotary.register_fake
def _rotary_fake(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> torch.Tensor:
    shape = torch.broadcast_shapes(x.shape, cos.shape, sin.shape)
    return x.new_empty(shape, dtype=torch.promote_types(x.dtype, cos.dtype))


def _repeated(query, key, value):
    """k and v with each head repeated for its group of query heads (``repeat_kv``'s copies)."""
    repeats = query.shape[1] // key.shape[1]
    return (t.repeat_interleave(repeats, dim=1) for t in (key, value))


def _grouped_attention(query, key, value, attn_mask, dropout_p, is_causal, scale):
    key, value = _repeated(query, key, value)
    return torch.ops.aten._scaled_dot_product_flash_attention_for_cpu(
        query, key, value, dropout_p, is_causal, attn_mask=attn_mask, scale=scale
    )[0]


def _grouped_sdpa(query, key, value, attn_mask, dropout_p, is_causal, scale):
    key, value = _repeated(query, key, value)
    return torch.ops.aten.scaled_dot_product_attention(
        query, key, value, attn_mask, dropout_p, is_causal, scale=scale
    )


def _attention_op(name: str, body):
    """A custom op glassbox::``name`` taking attention's arguments, computed by ``body``."""

    def attend(
        query: torch.Tensor,
        key: torch.Tensor,
        value: torch.Tensor,
        attn_mask: torch.Tensor | None,
        dropout_p: float,
        is_causal: bool,
        scale: float | None,
    ) -> torch.Tensor:
        return body(query, key, value, attn_mask, dropout_p, is_causal, scale)

    op = torch.library.custom_op(f"glassbox::{name}", attend, mutates_args=())
    op.register_fake(body)
    return op


grouped_attention = _attention_op("grouped_attention", _grouped_attention)
grouped_sdpa = _attention_op("grouped_sdpa", _grouped_sdpa)

ROTARY = torch.ops.glassbox.rotary.default
GROUPED_ATTENTION = torch.ops.glassbox.grouped_attention.default
GROUPED_SDPA = torch.ops.glassbox.grouped_sdpa.default
