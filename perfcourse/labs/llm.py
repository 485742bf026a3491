"""A small language model served end to end on the course's backend: prefill, decode, generate.

A decoder-only transformer written once with the backend's array module ``xp`` (NumPy on the
CPU, CuPy on a GPU): token embedding; ``n_layers`` layers of pre-RMSNorm multi-head causal
attention (rotary positions) and a two-matrix GELU MLP, each added to the residual stream;
a final RMSNorm; an untied output projection; greedy decoding. Its counts (parameters, FLOPs,
bytes) are :mod:`perfcourse.models.transformer`'s, which describes the same model.

The weights are random, drawn from a seed. Its speed does not depend on their values: the
matmuls do the same FLOPs and read the same bytes whatever numbers they hold, so a random
model of a given shape times exactly like a trained one (its text is nonsense, its tokens per
second are not).

Serving keeps a **KV cache** in preallocated *slots*: ``[n_layers, slots, n_heads,
max_context, head_dim]`` for keys and again for values, with each slot's length on the host.
:meth:`Model.prefill` starts sequences in some slots; :meth:`Model.decode_step` adds one token
to each of any set of slots, each at its own length (continuous batching): attention reads
each slot's cache up to the longest one in the batch and masks what lies past a slot's own
length. Every step is a handful of batched matmuls per layer, no Python loop over heads or
tokens.

Examples
--------
>>> m = Model("tiny", slots=2, seed=0)
>>> m.prefill([[1, 2, 3], [4, 5, 6]]).shape
(2, 64)
>>> m.decode_step([7, 8]).shape, m.lengths.tolist()
((2, 64), [4, 4])
>>> m.generate([1, 2, 3], 5).shape
(5,)
"""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np

from .._check import choice, positive_int
from .._lang import _
from ..measure import backend
from ..models.transformer import Config, parameters

__all__ = ["PRESETS", "preset", "Model"]

PRESETS = {
    # for tests: every call takes milliseconds
    "tiny": Config(vocab=64, d_model=32, n_layers=2, n_heads=4, d_ff=64, max_context=32, bytes_per_element=4),
    # about 20M parameters: dozens of decode steps in seconds on two CPU cores
    "cpu": Config(vocab=8192, d_model=384, n_layers=8, n_heads=6, d_ff=1536, max_context=512, bytes_per_element=4),
    # GPT-2-small's layers (about 134M parameters with a 32000-token vocabulary), float16 on a GPU
    "gpu-small": Config(vocab=32000, d_model=768, n_layers=12, n_heads=12, d_ff=3072, max_context=2048,
                        bytes_per_element=2),
    # about 1.04B parameters, float16 on a GPU
    "gpu-1b": Config(vocab=32000, d_model=2048, n_layers=18, n_heads=16, d_ff=8192, max_context=2048,
                     bytes_per_element=2),
}
DTYPES = ("float32", "float16")
ROPE_BASE = 10000.0


def preset(name):
    """The :class:`~perfcourse.models.transformer.Config` of a named preset.

    Examples
    --------
    >>> preset("tiny").d_model
    32
    """
    return PRESETS[choice("preset", name, tuple(PRESETS))]


def rmsnorm(xp, x, weight, eps=1e-5):
    """``x / rms(x) * weight`` over the last axis (the mean square summed in float32)."""
    ms = (x * x).mean(axis=-1, keepdims=True, dtype=xp.float32)
    return x * (1.0 / xp.sqrt(ms + eps)).astype(x.dtype, copy=False) * weight


def gelu(xp, x):
    """The GELU activation (tanh form)."""
    return 0.5 * x * (1.0 + xp.tanh(0.7978845608 * (x + 0.044715 * x * x * x)))


def rope(xp, x, cos, sin):
    """Rotary positions: turn each pair ``(x_i, x_{i+half})`` of every head by its position's angle."""
    half = x.shape[-1] // 2
    x1, x2 = x[..., :half], x[..., half:]
    return xp.concatenate([x1 * cos - x2 * sin, x1 * sin + x2 * cos], axis=-1)


def attention(xp, q, k, v, bias):
    """``softmax(q k^T + bias) v`` for every head at once; q ``[b, H, t, dh]``, k and v ``[b, H, n, dh]``.

    ``bias`` is 0 where a key is visible and -inf where it is not (a later position, or past a
    slot's length). Returns ``[b t, H dh]``: the heads side by side, a row per token.
    """
    scores = q @ k.swapaxes(-1, -2) + bias
    p = xp.exp(scores - scores.max(axis=-1, keepdims=True))
    p /= p.sum(axis=-1, keepdims=True)
    b, heads, t, dh = q.shape
    return (p @ v).transpose(0, 2, 1, 3).reshape(b * t, heads * dh)


def random_weights(xp, config, dtype, seed):
    """Every weight of the model, drawn from ``seed``; per-layer weights stacked on a first axis of ``n_layers``.

    Matrices are normal with standard deviation ``1 / sqrt(fan_in)``; the two that write into
    the residual stream (``wo``, ``down``) are scaled by ``1 / sqrt(2 n_layers)`` more so that
    the stream stays near unit size through every layer. Norm weights are ones.
    ``wqkv`` is Wq, Wk and Wv side by side (one matmul instead of three, the same weights).
    """
    rng = xp.random.default_rng(seed)
    L, d, f, V = config.n_layers, config.d_model, config.d_ff, config.vocab
    residual = 1.0 / math.sqrt(2 * L)

    def normal(shape, std):
        return (rng.standard_normal(shape, dtype=xp.float32) * std).astype(dtype)

    return {"embed": normal((V, d), 1.0),
            "norm1": xp.ones((L, d), dtype), "wqkv": normal((L, d, 3 * d), d**-0.5),
            "wo": normal((L, d, d), d**-0.5 * residual),
            "norm2": xp.ones((L, d), dtype), "up": normal((L, d, f), d**-0.5),
            "down": normal((L, f, d), f**-0.5 * residual),
            "norm_f": xp.ones(d, dtype), "out": normal((d, V), d**-0.5)}


class Model:
    """A decoder-only transformer with random weights and a KV cache of ``slots`` sequences.

    Parameters
    ----------
    config : str or Config
        A preset's name (``"tiny"``, ``"cpu"``, ``"gpu-small"``, ``"gpu-1b"``) or a shape.
    slots : int
        Sequences the KV cache holds at once (the largest batch).
    seed : int
        Seed of the weights (the same seed gives the same model on the same backend).
    dtype : {"float32", "float16"} or None
        Storage and arithmetic type. None: float16 on a GPU when the config stores 2 bytes per
        number, float32 otherwise (and always on NumPy, whose float16 matmuls are slow).
        ``self.config.bytes_per_element`` says what was chosen.
    """

    def __init__(self, config="tiny", *, slots=1, seed=0, dtype=None):
        config = preset(config) if isinstance(config, str) else config
        if not isinstance(config, Config):
            raise TypeError(f"config must be a preset name ({', '.join(PRESETS)}) or a "
                            f"perfcourse.models.transformer.Config; got {type(config).__name__}")
        if config.head_dim % 2:
            raise ValueError(f"d_model / n_heads must be even for rotary positions; got {config.head_dim}")
        self.n_slots = positive_int("slots", slots)
        seed = positive_int("seed", seed, low=0)
        self.backend = backend.get()
        xp = self.xp = self.backend.xp
        if dtype is None:
            dtype = "float16" if self.backend.on_gpu and config.bytes_per_element == 2 else "float32"
        dtype = choice("dtype", dtype, DTYPES)
        self.dtype = getattr(xp, dtype)
        self.config = c = replace(config, bytes_per_element=np.dtype(dtype).itemsize)
        self.weights = random_weights(xp, c, self.dtype, seed)
        half = c.head_dim // 2
        angles = np.arange(c.max_context)[:, None] * ROPE_BASE ** (-np.arange(half) / half)
        self._cos, self._sin = (xp.asarray(f(angles), dtype=self.dtype) for f in (np.cos, np.sin))
        shape = (c.n_layers, self.n_slots, c.n_heads, c.max_context, c.head_dim)
        self.k_cache, self.v_cache = xp.zeros(shape, self.dtype), xp.zeros(shape, self.dtype)
        self.lengths = np.zeros(self.n_slots, dtype=np.int64)   # tokens each slot holds, on the host

    def __repr__(self):
        c = self.config
        return (f"Model({parameters(c):,} parameters: {c.n_layers} layers, d_model {c.d_model}, {c.n_heads} heads, "
                f"vocab {c.vocab}; {self.n_slots} slots of {c.max_context} tokens; {self.dtype.__name__} "
                f"on {self.backend.name})")

    def __str__(self):
        """The :func:`repr` in the learner's language."""
        c = self.config
        return _("Model({parameters:,} parameters: {layers} layers, d_model {d_model}, {heads} heads, vocab {vocab}; "
                 "{slots} slots of {context} tokens; {dtype} on {backend})").format(
            parameters=parameters(c), layers=c.n_layers, d_model=c.d_model, heads=c.n_heads, vocab=c.vocab,
            slots=self.n_slots, context=c.max_context, dtype=self.dtype.__name__, backend=self.backend.name)

    def parameter_count(self):
        """Numbers in the weight arrays (equal to ``perfcourse.models.transformer.parameters(self.config)``)."""
        return sum(int(w.size) for w in self.weights.values())

    def reset(self, slots=None):
        """Empty some slots (all by default) so that new sequences can use them."""
        self.lengths[np.arange(self.n_slots) if slots is None else self._slots(slots, len(slots))] = 0

    def move(self, src, dst):
        """Move the sequence in slot ``src`` into slot ``dst`` (overwritten), so running slots can stay in one run."""
        src, dst = (int(v) for v in self._slots([src, dst], 2))
        n = int(self.lengths[src])
        for cache in (self.k_cache, self.v_cache):
            cache[:, dst, :, :n] = cache[:, src, :, :n]
        self.lengths[dst], self.lengths[src] = n, 0

    def forward(self, tokens):
        """Logits ``[b, t, vocab]`` of every position of ``tokens [b, t]``, recomputed without the cache."""
        tokens = self._tokens(tokens, 2)
        positions = np.broadcast_to(np.arange(tokens.shape[1]), tokens.shape)
        w = self.weights
        return rmsnorm(self.xp, self._hidden(tokens, positions, None), w["norm_f"]) @ w["out"]

    def prefill(self, prompts, slots=None):
        """Start a sequence per prompt (``[b, p]``: same length) in ``slots``; return their last logits ``[b, vocab]``.

        ``slots`` defaults to ``0 .. b-1``; what the slots held before is dropped. Prompts of
        different lengths are prefilled one call each.
        """
        prompts = self._tokens(prompts, 2)
        slots = self._slots(slots, len(prompts))
        self.lengths[slots] = 0
        return self._extend(prompts, slots)

    def decode_step(self, tokens, slots=None):
        """Add one token to each of ``slots`` (``tokens [b]``, one per slot) and return the next logits ``[b, vocab]``.

        Each slot continues at its own length; ``slots`` defaults to ``0 .. b-1``.
        """
        tokens = self._tokens(tokens, 1)
        return self._extend(tokens[:, None], self._slots(slots, len(tokens)))

    def generate(self, prompt, n_tokens):
        """Greedy decoding: ``n_tokens`` new tokens after ``prompt`` (``[p]``, or ``[b, p]`` for a batch).

        Uses slots ``0 .. b-1``. Returns a NumPy array ``[n_tokens]`` (or ``[b, n_tokens]``).
        """
        n_tokens = positive_int("n_tokens", n_tokens)
        one = np.ndim(prompt) == 1
        prompts = np.atleast_2d(np.asarray(prompt)) if one else prompt
        token = self.prefill(prompts).argmax(axis=-1)
        out = [token]
        for _step in range(n_tokens - 1):
            token = self.decode_step(token).argmax(axis=-1)
            out.append(token)
        result = backend.to_numpy(self.xp.stack(out, axis=1))
        return result[0] if one else result

    # the work itself

    def _extend(self, tokens, slots):
        """Append ``tokens [b, t]`` to the slots, at positions from each slot's length; logits of the last one."""
        c, xp, w = self.config, self.xp, self.weights
        start = self.lengths[slots]
        if (start + tokens.shape[1] > c.max_context).any():
            s = int(slots[np.argmax(start)])
            raise ValueError(f"slot {s} holds {self.lengths[s]} tokens; {tokens.shape[1]} more pass max_context "
                             f"{c.max_context} (reset it, or start the sequence again shorter)")
        positions = start[:, None] + np.arange(tokens.shape[1])
        hidden = self._hidden(tokens, positions, slots)
        self.lengths[slots] += tokens.shape[1]
        return rmsnorm(xp, hidden[:, -1], w["norm_f"]) @ w["out"]

    def _hidden(self, tokens, positions, slots):
        """The residual stream after the last layer, ``[b, t, d]``; with ``slots``, through their KV cache.

        ``positions [b, t]`` (host) is each token's place in its sequence. Key ``j`` is visible to
        the query at position ``i`` when ``j <= i``: causal within the new tokens, and nothing
        past a slot's own length when the cache is read.
        """
        c, xp, w = self.config, self.xp, self.weights
        b, t = tokens.shape
        heads, dh = c.n_heads, c.head_dim
        pos = xp.asarray(positions)
        cos, sin = self._cos[pos][:, :, None], self._sin[pos][:, :, None]       # [b, t, 1, dh/2]
        keys = pos if slots is None else xp.arange(int(positions.max()) + 1)[None, :]   # every key's position
        hidden = keys[:, None, None, :] > pos[:, None, :, None]                  # [b, 1, t, n]: keys not to see
        bias = xp.zeros(hidden.shape, self.dtype)
        bias[hidden] = -np.inf
        if slots is not None:
            rows, first = xp.asarray(slots)[:, None], int(slots[0])
            run = np.array_equal(slots, np.arange(first, first + b))   # a run of slots is read as a view, else gathered
            read = (slice(first, first + b) if run else rows[:, 0], slice(None), slice(0, keys.shape[1]))
        x = w["embed"][tokens.reshape(-1)]      # [b t, d]: a row per token, so each matmul is one 2-d product
        for layer in range(c.n_layers):
            h = rmsnorm(xp, x, w["norm1"][layer])
            q, k, v = (h @ w["wqkv"][layer]).reshape(b, t, 3, heads, dh).transpose(2, 0, 1, 3, 4)   # [b, t, H, dh]
            q, k = rope(xp, q, cos, sin) * dh**-0.5, rope(xp, k, cos, sin)
            if slots is None:
                k, v = k.transpose(0, 2, 1, 3), v.transpose(0, 2, 1, 3)
            else:                               # write the new keys and values, read the slots' whole caches
                self.k_cache[layer][rows, :, pos], self.v_cache[layer][rows, :, pos] = k, v
                k, v = self.k_cache[layer][read], self.v_cache[layer][read]                  # [b, H, n, dh]
            x = x + attention(xp, q.transpose(0, 2, 1, 3), k, v, bias) @ w["wo"][layer]
            x = x + gelu(xp, rmsnorm(xp, x, w["norm2"][layer]) @ w["up"][layer]) @ w["down"][layer]
        return x.reshape(b, t, c.d_model)

    # checking what callers pass

    def _tokens(self, tokens, ndim):
        """Token ids as an ``ndim``-d array on the device; ids from the host are checked against the vocabulary."""
        if backend.is_gpu_array(tokens):   # the model's own argmax: checked by shape, not copied back
            arr, host = tokens, None
        else:
            arr = host = np.asarray(tokens)
        what = "[batch]" if ndim == 1 else "[batch, tokens]"
        if arr.ndim != ndim or 0 in arr.shape or arr.dtype.kind not in "iu":
            raise ValueError(f"tokens must be a non-empty {what} array of integer ids; got shape {arr.shape}, "
                             f"dtype {arr.dtype}")
        if host is not None and (host.min() < 0 or host.max() >= self.config.vocab):
            raise ValueError(f"token ids must be in [0, {self.config.vocab}) (the vocabulary); got "
                             f"{host.min()} .. {host.max()}")
        return self.xp.asarray(arr)

    def _slots(self, slots, b):
        """Slot numbers as a host int array: ``0 .. b-1`` by default, else distinct and inside the cache."""
        if slots is None:
            if b > self.n_slots:
                raise ValueError(f"a batch of {b} needs {b} slots; this model has {self.n_slots} (Model(slots=...))")
            return np.arange(b)
        arr = np.asarray(slots)
        if arr.ndim != 1 or arr.dtype.kind not in "iu" or len(arr) != b:
            raise ValueError(f"slots must be {b} integer slot numbers, one per sequence; got {slots!r}")
        if len(set(arr.tolist())) != b or arr.min() < 0 or arr.max() >= self.n_slots:
            raise ValueError(f"slots must be distinct numbers in [0, {self.n_slots}); got {arr.tolist()}")
        return arr.astype(np.int64)
