"""Self-test questions for lesson 11: serving a language model end to end."""

from ...models import roofline
from ..question import Question


def _kv_sequences():
    """Sequences of 4096 tokens whose KV caches fit in 40 GB: 32 layers, d_model 4096, float16."""
    per_token = 2 * 32 * 4096 * 2            # keys and values, every layer, 2 bytes each
    return float(40e9 // (4096 * per_token))


QUESTIONS = [
    Question("l11-decode-bound", 11,
             "A 7-billion-parameter model stored in bfloat16 decodes one sequence (batch 1) on a GPU whose "
             "memory delivers 3.35 TB/s. Ignoring the KV cache, what is the least time one decode step can "
             "take, in ms?",
             "Every weight is read once per step: 7e9 x 2 bytes = 14 GB, and 14 GB / 3.35 TB/s = 4.18 ms. The "
             "arithmetic, 2 FLOPs per parameter, would take about 0.014 ms at a petaFLOP/s: the bytes set the time.",
             reference=lambda: 1e3 * 7e9 * 2 / 3.35e12, unit="ms"),
    Question("l11-crossover", 11,
             "A decode step at batch b does about 2 FLOPs per parameter per sequence and reads each bfloat16 "
             "weight (2 bytes) once for the whole batch. On a GPU with 989 TFLOP/s and 3.35 TB/s, from about "
             "which batch on does the arithmetic set the step time (ignore the KV cache)?",
             "Intensity = 2 b FLOPs / 2 bytes = b FLOP/byte; the ridge is 989e12 / 3.35e12 = 295 FLOP/byte, so "
             "decode turns compute-bound near batch 295. Below it, in the model, a larger batch costs almost "
             "nothing per step.",
             reference=lambda: roofline.ridge_point(989e12, 3.35e12), unit="sequences"),
    Question("l11-kv-concurrency", 11,
             "A model has 32 layers and d_model 4096 and keeps its keys and values in float16. How many "
             "whole sequences of 4096 tokens can 40 GB (40e9 bytes) of KV cache hold at once?",
             "Per token: 2 (keys and values) x 32 layers x 4096 x 2 bytes = 512 KiB; per sequence 4096 x 512 KiB "
             "= 2 GiB (2.15e9 bytes); 40e9 / 2.15e9 = 18.6, so 18 whole sequences: the cache, not the arithmetic, "
             "caps the batch.",
             reference=_kv_sequences, rtol=0, unit="sequences"),
]
