"""The small language model: its KV cache gives what a full recompute gives, and its counts are right."""

import math

import numpy as np
import pytest

from perfcourse.labs import llm
from perfcourse.measure import backend
from perfcourse.models import transformer as tf

TINY = llm.preset("tiny")


def _host(a):
    return backend.to_numpy(a).astype(np.float64)


def _recomputed(model, sequence):
    """Logits of the last token of ``sequence``, from a forward pass over all of it (no cache)."""
    return _host(model.forward([sequence]))[0, -1]


def _close(got, want):
    np.testing.assert_allclose(_host(got), want, rtol=1e-4, atol=1e-5)


def test_decode_with_the_cache_matches_a_full_recompute_step_after_step():
    m = llm.Model("tiny", slots=1, seed=1)
    seq = [3, 14, 15, 9, 2]
    _close(m.prefill([seq])[0], _recomputed(m, seq))
    for token in (6, 53, 58, 9, 7, 9):
        seq.append(token)
        _close(m.decode_step([token])[0], _recomputed(m, seq))
    assert m.lengths.tolist() == [len(seq)]


def test_one_decode_batch_serves_sequences_of_different_lengths():
    m = llm.Model("tiny", slots=4, seed=2)
    rng = np.random.default_rng(0)
    seqs = [rng.integers(0, TINY.vocab, n).tolist() for n in (2, 7, 4, 11)]
    for slot, seq in enumerate(seqs):
        m.prefill([seq], slots=[slot])
    # all four slots (read as one run of the cache), then two of them out of order (gathered)
    for slots in ([0, 1, 2, 3], [0, 1, 2, 3], [3, 1], [2, 0, 3]):
        tokens = rng.integers(0, TINY.vocab, len(slots))
        logits = m.decode_step(tokens, slots=slots)
        for row, (slot, token) in enumerate(zip(slots, tokens, strict=True)):
            seqs[slot].append(int(token))
            _close(logits[row], _recomputed(m, seqs[slot]))
    assert m.lengths.tolist() == [len(s) for s in seqs]


def test_a_batch_prefill_matches_prompts_run_alone():
    m = llm.Model("tiny", slots=2, seed=4)
    prompts = [[1, 2, 3, 4], [9, 8, 7, 6]]
    logits = m.prefill(prompts)
    for row, prompt in enumerate(prompts):
        _close(logits[row], _recomputed(m, prompt))


def test_greedy_generation_is_deterministic_for_a_seed_and_follows_the_logits():
    prompt = [5, 17, 42]
    first = llm.Model("tiny", seed=7).generate(prompt, 10)
    again = llm.Model("tiny", seed=7).generate(prompt, 10)
    other = llm.Model("tiny", seed=8).generate(prompt, 10)
    assert first.shape == (10,) and first.dtype.kind == "i"
    np.testing.assert_array_equal(first, again)
    assert not np.array_equal(first, other)
    # greedy by hand, recomputing every step without the cache
    m, seq = llm.Model("tiny", seed=7), list(prompt)
    for _ in range(10):
        seq.append(int(np.argmax(_recomputed(m, seq))))
    assert first.tolist() == seq[len(prompt):]
    batch = llm.Model("tiny", slots=2, seed=7).generate([prompt, [1, 2, 3]], 10)
    assert batch.shape == (2, 10) and batch[0].tolist() == first.tolist()


@pytest.mark.parametrize("config", [TINY, tf.Config(vocab=50, d_model=24, n_layers=3, n_heads=2, d_ff=40,
                                                    max_context=16)])
def test_the_models_arrays_hold_exactly_the_counted_parameters(config):
    m = llm.Model(config, seed=0)
    assert m.parameter_count() == sum(a.size for a in m.weights.values()) == tf.parameters(config)
    assert m.weights["out"].shape == (config.d_model, config.vocab)   # untied: its own matrix


def test_counts_against_hand_counts():
    c = TINY   # vocab 64, d 32, 2 layers, 4 heads, d_ff 64, float32
    per_layer = 2 * 32 + 4 * 32 * 32 + 2 * 32 * 64
    assert tf.layer_parameters(c) == per_layer == 8256
    assert tf.parameters(c) == 64 * 32 + 2 * per_layer + 32 + 32 * 64 == 20640
    assert tf.matmul_parameters(c) == 2 * (4 * 32 * 32 + 2 * 32 * 64) + 32 * 64 == 18432
    assert tf.decode_flops(c, 10) == 2 * 18432 + 2 * 4 * 10 * 32 == 39424
    # a prompt of p: every token through the layers, attention over 1 + 2 + ... + p, one output projection
    assert tf.prefill_flops(c, 3) == 3 * 2 * (18432 - 2048) + 2 * 2048 + 2 * 4 * 32 * (1 + 2 + 3) == 103936
    assert tf.prefill_flops(c, 1) == tf.decode_flops(c, 1)
    assert tf.kv_bytes_per_token(c) == 2 * 2 * 32 * 4 == 512
    weights = (20640 - 64 * 32) * 4
    assert tf.decode_bytes(c, 3, 10) == weights + 3 * (32 * 4 + 11 * 512)
    assert tf.decode_intensity(c, 3, 10) == pytest.approx(3 * 39424 / tf.decode_bytes(c, 3, 10))
    assert tf.concurrency(c, 512 * 20 * 7 + 511, 20) == 7
    assert tf.concurrency(c, [0, 512 * 20], 20).tolist() == [0, 1]


def test_the_crossover_batch_is_where_intensity_meets_the_ridge():
    c = llm.preset("gpu-1b")
    peak, bandwidth = 989e12, 3.35e12
    b = tf.crossover_batch(c, 16, peak, bandwidth)
    assert tf.decode_intensity(c, math.floor(b), 16) < peak / bandwidth <= tf.decode_intensity(c, math.ceil(b), 16)
    intensity = tf.decode_intensity(c, np.array([1, 4, 16, 64, 256, 1024]), 512)
    assert np.all(np.diff(intensity) > 0)   # grows with the batch ...
    limit = tf.decode_flops(c, 512) / (c.d_model * 2 + 513 * tf.kv_bytes_per_token(c))
    assert intensity[-1] < limit             # ... towards what each sequence's own cache allows
    assert tf.crossover_batch(c, 512, peak, bandwidth) == math.inf


def test_a_model_built_on_numpy_stores_float32_and_says_so():
    half = tf.Config(vocab=40, d_model=16, n_layers=1, n_heads=2, d_ff=32, max_context=8, bytes_per_element=2)
    m = llm.Model(half)
    if not m.backend.on_gpu:
        assert m.config.bytes_per_element == 4 and m.weights["out"].dtype == np.float32
    assert m.config.vocab == 40 and "parameters" in repr(m)


@pytest.mark.gpu
def test_float16_decode_on_the_gpu_tracks_a_recompute():
    m = llm.Model("tiny", slots=1, seed=1, dtype="float16")
    seq = [3, 14, 15, 9]
    m.prefill([seq])
    for token in (6, 53, 58):
        seq.append(token)
        np.testing.assert_allclose(_host(m.decode_step([token])[0]), _recomputed(m, seq), rtol=2e-2, atol=2e-2)


@pytest.mark.parametrize(("make", "error", "words"), [
    (lambda: tf.Config(vocab=10, d_model=30, n_layers=1, n_heads=4, d_ff=8, max_context=8), ValueError,
     "multiple of n_heads"),
    (lambda: tf.Config(vocab=10, d_model=32, n_layers=0, n_heads=4, d_ff=8, max_context=8), ValueError,
     "n_layers must be an integer >= 1"),
    (lambda: tf.Config(vocab=10, d_model=32, n_layers=1, n_heads=4, d_ff=8, max_context=8, bytes_per_element=3),
     ValueError, "bytes_per_element must be one of"),
    (lambda: tf.Config(vocab=10.5, d_model=32, n_layers=1, n_heads=4, d_ff=8, max_context=8), TypeError,
     "vocab must be an integer"),
    (lambda: tf.parameters("tiny"), TypeError, "config must be a perfcourse.models.transformer.Config"),
    (lambda: tf.decode_flops(TINY, 33), ValueError, r"n must be a whole number in \[1, 32\]"),
    (lambda: tf.prefill_flops(TINY, 0), ValueError, "p must be a whole number"),
    (lambda: tf.decode_bytes(TINY, 1.5, 4), ValueError, "batch must be a whole number >= 1"),
    (lambda: tf.crossover_batch(TINY, 4, 0, 1e9), ValueError, "peak_flops must be a finite number > 0"),
    (lambda: tf.concurrency(TINY, -1, 4), ValueError, "memory_bytes must be a finite number >= 0"),
    (lambda: llm.preset("huge"), ValueError, "preset must be one of 'tiny', 'cpu'"),
    (lambda: llm.Model(42), TypeError, "config must be a preset name"),
    (lambda: llm.Model("tiny", slots=0), ValueError, "slots must be an integer >= 1"),
    (lambda: llm.Model("tiny", dtype="float64"), ValueError, "dtype must be one of 'float32', 'float16'"),
    (lambda: llm.Model("tiny").prefill([[1, 64]]), ValueError, r"token ids must be in \[0, 64\)"),
    (lambda: llm.Model("tiny").prefill([1, 2]), ValueError, r"tokens must be a non-empty \[batch, tokens\] array"),
    (lambda: llm.Model("tiny").decode_step([1.0]), ValueError, "integer ids"),
    (lambda: llm.Model("tiny", slots=2).prefill([[1, 2]] * 3), ValueError, "a batch of 3 needs 3 slots"),
    (lambda: llm.Model("tiny", slots=2).decode_step([1, 2], slots=[1, 1]), ValueError, "slots must be distinct"),
    (lambda: llm.Model("tiny", slots=2).decode_step([1], slots=[2]), ValueError, r"in \[0, 2\)"),
    (lambda: llm.Model("tiny").generate([1] * 30, 4), ValueError, "pass max_context 32"),
    (lambda: llm.Model("tiny").generate([1, 2], 0), ValueError, "n_tokens must be an integer >= 1"),
])
def test_bad_arguments_are_named_with_what_is_allowed(make, error, words):
    with pytest.raises(error, match=words):
        make()


def test_reset_frees_slots_and_a_full_slot_refuses_more():
    m = llm.Model("tiny", slots=2)
    m.prefill([[1] * 32, [2] * 32])
    with pytest.raises(ValueError, match="slot 0 holds 32 tokens"):
        m.decode_step([1, 2])
    m.reset([1])
    assert m.lengths.tolist() == [32, 0]
    m.reset()
    assert m.decode_step([1, 2]).shape == (2, TINY.vocab)
