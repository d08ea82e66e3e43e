"""The model zoo: an MLP, a ResNet-18-like CNN, a transformer encoder block and a GPT-2-style
decoder built from a config. Random weights; sizes are parameters so tests stay small and the
benchmark can use the real sizes."""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch
from torch import nn
from torch.nn import functional as F


class MLP(nn.Module):
    def __init__(self, d_in=64, hidden=256, d_out=10, depth=3):
        super().__init__()
        dims = [d_in] + [hidden] * (depth - 1)
        self.layers = nn.ModuleList(nn.Linear(a, b) for a, b in zip(dims, dims[1:], strict=False))
        self.head = nn.Linear(dims[-1], d_out)

    def forward(self, x):
        for layer in self.layers:
            x = F.relu(layer(x))
        return self.head(x)


class BasicBlock(nn.Module):
    def __init__(self, c_in, c_out, stride):
        super().__init__()
        self.conv1 = nn.Conv2d(c_in, c_out, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(c_out)
        self.conv2 = nn.Conv2d(c_out, c_out, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(c_out)
        self.down = None
        if stride != 1 or c_in != c_out:
            self.down = nn.Sequential(
                nn.Conv2d(c_in, c_out, 1, stride, bias=False), nn.BatchNorm2d(c_out)
            )

    def forward(self, x):
        out = F.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        return F.relu(out + (x if self.down is None else self.down(x)))


class ResNet18Like(nn.Module):
    """ResNet-18 layout: stem conv 7x7/2 + maxpool, 4 stages of 2 basic blocks, avgpool, fc."""

    def __init__(self, width=64, classes=1000):
        super().__init__()
        w = width
        self.stem = nn.Sequential(
            nn.Conv2d(3, w, 7, 2, 3, bias=False),
            nn.BatchNorm2d(w),
            nn.ReLU(),
            nn.MaxPool2d(3, 2, 1),
        )
        chans = [w, 2 * w, 4 * w, 8 * w]
        blocks, c_in = [], w
        for i, c in enumerate(chans):
            blocks += [BasicBlock(c_in, c, 1 if i == 0 else 2), BasicBlock(c, c, 1)]
            c_in = c
        self.blocks = nn.Sequential(*blocks)
        self.fc = nn.Linear(c_in, classes)

    def forward(self, x):
        x = self.blocks(self.stem(x))
        return self.fc(torch.flatten(F.adaptive_avg_pool2d(x, 1), 1))


class SelfAttention(nn.Module):
    def __init__(self, d, heads, causal):
        super().__init__()
        self.heads, self.causal = heads, causal
        self.qkv = nn.Linear(d, 3 * d)
        self.proj = nn.Linear(d, d)

    def forward(self, x):
        b, t, d = x.shape
        h = self.heads
        q, k, v = self.qkv(x).split(d, dim=-1)
        q, k, v = (y.reshape(b, t, h, d // h).transpose(1, 2) for y in (q, k, v))
        att = (q @ k.transpose(-1, -2)) * (1.0 / math.sqrt(d // h))
        if self.causal:
            mask = torch.ones(t, t, dtype=torch.bool).tril()
            att = att.masked_fill(~mask, float("-inf"))
        y = F.softmax(att, dim=-1) @ v
        return self.proj(y.transpose(1, 2).reshape(b, t, d))


class EncoderBlock(nn.Module):
    """Post-norm transformer encoder block (as nn.TransformerEncoderLayer, GELU MLP)."""

    def __init__(self, d=256, heads=4, ff=1024):
        super().__init__()
        self.attn = SelfAttention(d, heads, causal=False)
        self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.ff1, self.ff2 = nn.Linear(d, ff), nn.Linear(ff, d)

    def forward(self, x):
        x = self.ln1(x + self.attn(x))
        return self.ln2(x + self.ff2(F.gelu(self.ff1(x))))


@dataclass
class GPTConfig:
    vocab: int = 50257
    ctx: int = 1024
    d: int = 768
    heads: int = 12
    layers: int = 12


class DecoderBlock(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.ln1, self.ln2 = nn.LayerNorm(cfg.d), nn.LayerNorm(cfg.d)
        self.attn = SelfAttention(cfg.d, cfg.heads, causal=True)
        self.fc, self.proj = nn.Linear(cfg.d, 4 * cfg.d), nn.Linear(4 * cfg.d, cfg.d)

    def forward(self, x):
        x = x + self.attn(self.ln1(x))
        return x + self.proj(F.gelu(self.fc(self.ln2(x)), approximate="tanh"))


class GPT2(nn.Module):
    """GPT-2 decoder from a config (GPTConfig() is GPT-2 small: 124M parameters)."""

    def __init__(self, cfg: GPTConfig):
        super().__init__()
        self.wte, self.wpe = nn.Embedding(cfg.vocab, cfg.d), nn.Embedding(cfg.ctx, cfg.d)
        self.blocks = nn.ModuleList(DecoderBlock(cfg) for _ in range(cfg.layers))
        self.ln_f = nn.LayerNorm(cfg.d)

    def forward(self, idx):
        pos = torch.arange(idx.shape[1])
        x = self.wte(idx) + self.wpe(pos)
        for block in self.blocks:
            x = block(x)
        return self.ln_f(x) @ self.wte.weight.t()


def randomize_bn(model: nn.Module) -> nn.Module:
    """Non-trivial batch-norm statistics so inference is not the identity."""
    g = torch.Generator().manual_seed(0)
    for m in model.modules():
        if isinstance(m, nn.BatchNorm2d):
            m.running_mean.copy_(torch.randn(m.num_features, generator=g) * 0.1)
            m.running_var.copy_(torch.rand(m.num_features, generator=g) + 0.5)
    return model
