"""Counts of a decoder-only transformer: parameters, FLOPs and bytes of prefill and decode.

The model counted is the one ``perfcourse.labs.llm`` runs: a token embedding; ``n_layers``
layers of pre-RMSNorm attention and MLP; a final RMSNorm; an output projection to the
vocabulary. Choices that fix the counts:

- attention: multi-head, four ``d_model x d_model`` matrices (Wq, Wk, Wv, Wo), no biases;
  positions by rotary embedding (RoPE), which has no parameters;
- MLP: the plain two-matrix kind, ``d_model -> d_ff -> d_model`` with a GELU between, no
  biases (not SwiGLU, which has three matrices);
- RMSNorm: one weight vector of ``d_model`` per norm, two per layer and one at the end;
- the output projection is **untied**: its own ``d_model x vocab`` matrix, not the embedding's.

FLOPs count an FMA as 2 and leave out what is small beside the matmuls (norms, softmax, RoPE,
GELU). Bytes count what a perfect implementation moves in DRAM; activations, a few vectors per
sequence that stay in cache, and the logits written are left out. Units: FLOP, bytes, tokens.

Examples
--------
>>> c = Config(vocab=1000, d_model=64, n_layers=2, n_heads=4, d_ff=256, max_context=128, bytes_per_element=2)
>>> parameters(c), decode_flops(c, 100), kv_bytes_per_token(c)
(226624, 375808, 512)
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .._check import out, positive_int, real

__all__ = ["Config", "layer_parameters", "parameters", "matmul_parameters", "weight_bytes", "decode_flops",
           "prefill_flops", "prefill_bytes", "kv_bytes_per_token", "decode_bytes", "decode_intensity",
           "crossover_batch", "concurrency"]

BYTES_PER_ELEMENT = (1, 2, 4, 8)   # int8/fp8, float16/bfloat16, float32, float64


@dataclass(frozen=True)
class Config:
    """The shape of a decoder-only transformer, and the bytes of one stored number.

    Attributes
    ----------
    vocab, d_model, n_layers, n_heads, d_ff : int
        Tokens in the vocabulary; width of the residual stream; layers; attention heads (they
        divide ``d_model``); hidden width of the MLP.
    max_context : int
        Most tokens a sequence may hold (prompt and generated together).
    bytes_per_element : int
        Bytes of one weight or cached number: 4 for float32, 2 for float16 or bfloat16.

    Examples
    --------
    >>> Config(vocab=1000, d_model=64, n_layers=2, n_heads=4, d_ff=256, max_context=128).head_dim
    16
    >>> Config(vocab=1000, d_model=64, n_layers=2, n_heads=5, d_ff=256, max_context=128)
    Traceback (most recent call last):
    ...
    ValueError: d_model must be a multiple of n_heads; got d_model=64, n_heads=5
    """

    vocab: int
    d_model: int
    n_layers: int
    n_heads: int
    d_ff: int
    max_context: int
    bytes_per_element: int = 4

    def __post_init__(self):
        for name in ("vocab", "d_model", "n_layers", "n_heads", "d_ff", "max_context", "bytes_per_element"):
            positive_int(name, getattr(self, name))
        if self.d_model % self.n_heads:
            raise ValueError(f"d_model must be a multiple of n_heads; got d_model={self.d_model}, "
                             f"n_heads={self.n_heads}")
        if self.bytes_per_element not in BYTES_PER_ELEMENT:
            raise ValueError(f"bytes_per_element must be one of {BYTES_PER_ELEMENT}; got {self.bytes_per_element}")

    @property
    def head_dim(self):
        """Width of one attention head: ``d_model / n_heads``."""
        return self.d_model // self.n_heads


def _config(config):
    if not isinstance(config, Config):
        raise TypeError(f"config must be a perfcourse.models.transformer.Config; got {type(config).__name__}")
    return config


def layer_parameters(config):
    """Weights of one layer: two RMSNorm vectors, Wq Wk Wv Wo, the MLP's up and down matrices.

    ``2 d + 4 d^2 + 2 d d_ff`` for ``d = d_model``.

    Examples
    --------
    >>> c = Config(vocab=1000, d_model=64, n_layers=2, n_heads=4, d_ff=256, max_context=128)
    >>> layer_parameters(c)    # 2*64 + 4*64**2 + 2*64*256 = 128 + 16384 + 32768
    49280
    """
    c = _config(config)
    return 2 * c.d_model + 4 * c.d_model**2 + 2 * c.d_model * c.d_ff


def parameters(config):
    """Every weight: embedding, the layers, the final norm and the (untied) output projection.

    ``vocab d + n_layers layer_parameters + d + d vocab``.

    Examples
    --------
    >>> c = Config(vocab=1000, d_model=64, n_layers=2, n_heads=4, d_ff=256, max_context=128)
    >>> parameters(c)          # 64000 + 2*49280 + 64 + 64000
    226624
    """
    c = _config(config)
    return c.vocab * c.d_model + c.n_layers * layer_parameters(c) + c.d_model + c.d_model * c.vocab


def matmul_parameters(config):
    """The weights one token is multiplied by: every layer's matrices and the output projection.

    The embedding is looked up (one row per token, no arithmetic) and the norm vectors scale,
    so neither is here. ``n_layers (4 d^2 + 2 d d_ff) + d vocab``.

    Examples
    --------
    >>> c = Config(vocab=1000, d_model=64, n_layers=2, n_heads=4, d_ff=256, max_context=128)
    >>> matmul_parameters(c)   # 2*(16384 + 32768) + 64000
    162304
    """
    c = _config(config)
    return c.n_layers * (4 * c.d_model**2 + 2 * c.d_model * c.d_ff) + c.d_model * c.vocab


def weight_bytes(config):
    """Bytes of all the weights: ``parameters * bytes_per_element``.

    Examples
    --------
    >>> c = Config(vocab=1000, d_model=64, n_layers=2, n_heads=4, d_ff=256, max_context=128, bytes_per_element=2)
    >>> weight_bytes(c)        # 226624 * 2
    453248
    """
    c = _config(config)
    return parameters(c) * c.bytes_per_element


def _context(config, name, n):
    return real(name, n, low=1, high=config.max_context, integer=True)


def decode_flops(config, n):
    """FLOPs to decode one token that attends over ``n`` tokens (its own included).

    Two per weight it is multiplied by, plus attention in every layer: ``q K^T`` over the ``n``
    cached keys and ``softmax V`` over the ``n`` cached values, ``2 n d`` each. A step at batch
    ``b`` does ``b`` times this (each sequence at its own ``n``).

    Examples
    --------
    >>> c = Config(vocab=1000, d_model=64, n_layers=2, n_heads=4, d_ff=256, max_context=128)
    >>> decode_flops(c, 100)   # 2*162304 + 2 layers * 4*100*64
    375808
    >>> decode_flops(c, [1, 100]).tolist()
    [325120.0, 375808.0]
    """
    c = _config(config)
    n = _context(c, "n", n)
    result = 2 * matmul_parameters(c) + 4 * c.n_layers * n * c.d_model
    return int(result) if isinstance(n, float) else out(result)


def prefill_flops(config, p):
    """FLOPs to prefill one prompt of ``p`` tokens, with logits for its last token only.

    Every token is multiplied by every layer's matrices (``2 p`` per weight); token ``i``
    (from 1) attends over ``i`` tokens, so attention sums to ``4 d (1 + 2 + ... + p) =
    2 d p (p + 1)`` per layer: quadratic in ``p``. The output projection runs once, for the
    token that starts decoding. ``prefill_flops(c, 1) == decode_flops(c, 1)``.

    Examples
    --------
    >>> c = Config(vocab=1000, d_model=64, n_layers=2, n_heads=4, d_ff=256, max_context=128)
    >>> prefill_flops(c, 10)   # 2*10*(162304 - 64000) + 2*64000 + 2 layers * 2*64*10*11
    2122240
    >>> prefill_flops(c, 1) == decode_flops(c, 1)
    True
    """
    c = _config(config)
    p = _context(c, "p", p)
    layers = matmul_parameters(c) - c.d_model * c.vocab
    result = 2 * p * layers + 2 * c.d_model * c.vocab + 2 * c.n_layers * c.d_model * p * (p + 1)
    return int(result) if isinstance(p, float) else out(result)


def kv_bytes_per_token(config):
    """Bytes one token adds to its sequence's KV cache: a key and a value per layer.

    ``2 n_layers d_model bytes_per_element``.

    Examples
    --------
    >>> c = Config(vocab=1000, d_model=64, n_layers=2, n_heads=4, d_ff=256, max_context=128, bytes_per_element=2)
    >>> kv_bytes_per_token(c)  # 2 * 2 * 64 * 2
    512
    """
    c = _config(config)
    return 2 * c.n_layers * c.d_model * c.bytes_per_element


def _read_weights(c):
    """Bytes of the weights a step reads once: all but the embedding table, of which it reads rows."""
    return (parameters(c) - c.vocab * c.d_model) * c.bytes_per_element


def _decode_bytes(c, n):
    """(bytes every step moves whatever the batch, bytes each sequence adds)."""
    weights = _read_weights(c)
    per_sequence = c.d_model * c.bytes_per_element + (n + 1) * kv_bytes_per_token(c)
    return weights, per_sequence


def decode_bytes(config, batch, n):
    """Bytes one decode step moves at ``batch`` sequences, each attending over ``n`` tokens.

    The weights are read once for the whole batch (all but the embedding table, of which each
    sequence reads its token's row); each sequence reads its ``n`` cached keys and values
    (its new ones included) and writes the new ones: ``(n + 1) kv_bytes_per_token``.

    Examples
    --------
    >>> c = Config(vocab=1000, d_model=64, n_layers=2, n_heads=4, d_ff=256, max_context=128, bytes_per_element=2)
    >>> decode_bytes(c, 1, 100)    # (226624 - 64000)*2 + 64*2 + 101*512
    377088
    >>> decode_bytes(c, [1, 8], 100).tolist()     # 325248 + b * (128 + 51712)
    [377088.0, 739968.0]
    """
    c = _config(config)
    b = real("batch", batch, low=1, integer=True)
    n = _context(c, "n", n)
    weights, per_sequence = _decode_bytes(c, n)
    result = weights + b * per_sequence
    return int(result) if np.ndim(result) == 0 else out(result)


def prefill_bytes(config, p):
    """Bytes the prefill of one prompt of ``p`` tokens moves: the weights once, its rows, its new KV entries.

    As a decode step, it reads every weight but the embedding table once, and of that table the
    ``p`` rows of its tokens; it writes a key and a value per layer for each token. Its
    ``p x p`` attention scores are left out (each layer's product of a few rows, kept in cache).

    Examples
    --------
    >>> c = Config(vocab=1000, d_model=64, n_layers=2, n_heads=4, d_ff=256, max_context=128, bytes_per_element=2)
    >>> prefill_bytes(c, 10)      # (226624 - 64000)*2 + 10 * (64*2 + 512)
    331648
    >>> prefill_bytes(c, 1) < decode_bytes(c, 1, 1)   # decode also reads the token's own new key and value
    True
    """
    c = _config(config)
    p = _context(c, "p", p)
    result = _read_weights(c) + p * (c.d_model * c.bytes_per_element + kv_bytes_per_token(c))
    return int(result) if isinstance(p, float) else out(result)


def decode_intensity(config, batch, n):
    """Arithmetic intensity of a decode step, FLOP/byte: ``batch decode_flops / decode_bytes``.

    It grows with the batch while the weights dominate the bytes (they are read once for all
    the sequences), then levels off at ``decode_flops / ((n + 1) kv_bytes_per_token)``, where
    every sequence's own KV cache dominates.

    Examples
    --------
    >>> c = Config(vocab=1000, d_model=64, n_layers=2, n_heads=4, d_ff=256, max_context=128, bytes_per_element=2)
    >>> round(decode_intensity(c, 1, 100), 4)      # 375808 / 377088
    0.9966
    >>> decode_intensity(c, [1, 8], 100).round(3).tolist()
    [0.997, 4.063]
    """
    c = _config(config)
    b = real("batch", batch, low=1, integer=True)
    n = _context(c, "n", n)
    return out(b * decode_flops(c, n) / decode_bytes(c, b, n))


def crossover_batch(config, n, peak_flops, bandwidth):
    """The batch at which decode turns compute-bound: where ``decode_intensity`` reaches ``peak / bandwidth``.

    Solving ``b F / (W + b S) = R`` (``F`` FLOPs per sequence, ``W`` the weights' bytes, ``S``
    each sequence's bytes, ``R`` the ridge point) gives ``b = R W / (F - R S)``, a real number:
    round it up for a whole batch. Where ``F <= R S`` no batch gets there, because each
    sequence's KV cache alone keeps the intensity below the ridge; the answer is then ``inf``.

    Examples
    --------
    >>> c = Config(vocab=32000, d_model=2048, n_layers=16, n_heads=16, d_ff=8192, max_context=4096,
    ...            bytes_per_element=2)
    >>> round(crossover_batch(c, 16, 989e12, 3.35e12), 1)    # H100 SXM, dense bf16: ridge 295 FLOP/byte
    474.1
    >>> crossover_batch(c, 128, 989e12, 3.35e12)      # each sequence's cache holds the intensity below 104
    inf
    """
    c = _config(config)
    n = _context(c, "n", n)
    ridge = real("peak_flops", peak_flops, low=0, low_open=True) / real("bandwidth", bandwidth, low=0, low_open=True)
    weights, per_sequence = _decode_bytes(c, n)
    margin = decode_flops(c, n) - ridge * per_sequence
    return ridge * weights / margin if margin > 0 else math.inf


def concurrency(config, memory_bytes, n):
    """Sequences of ``n`` tokens whose KV caches fit in ``memory_bytes``: ``floor(memory / (n kv_bytes_per_token))``.

    Pass the memory left for the cache (a device's memory less :func:`weight_bytes` and
    whatever else it holds).

    Examples
    --------
    >>> c = Config(vocab=32000, d_model=2048, n_layers=16, n_heads=16, d_ff=8192, max_context=4096,
    ...            bytes_per_element=2)
    >>> kv_bytes_per_token(c)                      # 2 * 16 * 2048 * 2
    131072
    >>> concurrency(c, 80e9 - weight_bytes(c), 2048)   # (80e9 - 1.88e9) / (2048 * 131072) = 291.0
    291
    """
    c = _config(config)
    memory = real("memory_bytes", memory_bytes, low=0)
    n = _context(c, "n", n)
    result = np.floor(memory / (n * kv_bytes_per_token(c)))
    return int(result) if np.ndim(result) == 0 else result.astype(np.int64)
