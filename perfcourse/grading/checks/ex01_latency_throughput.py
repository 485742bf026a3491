"""Exercise 01: a roofline latency model, the largest batch under an SLO, a p99 report."""

from __future__ import annotations

import numpy as np

from ...models.roofline import roofline_time
from ._tools import part, run_cases


def reference_layer_latency(batch, d, peak_flops, peak_bandwidth, dtype_bytes, overhead_s):
    """Latency of ``X[batch, d] @ W[d, d]``: overhead plus the roofline bound.

    Examples
    --------
    >>> reference_layer_latency(1, 4096, 100e12, 2e12, 2, 0.0)  # reading W dominates
    1.6785408e-05
    """
    flops = 2.0 * batch * d * d
    moved = (d * d + 2.0 * batch * d) * dtype_bytes
    return overhead_s + roofline_time(flops, moved, peak_flops, peak_bandwidth)


def reference_largest_batch(latency, slo_s, max_batch):
    """Largest batch in 1..max_batch whose latency meets the SLO (0 if none), by brute force."""
    ok = [b for b in range(1, max_batch + 1) if latency(b) <= slo_s]
    return max(ok) if ok else 0


def reference_p99_report(samples_by_batch, slo_s):
    """(largest batch whose p99 meets the SLO, its throughput = batch / p50) or (0, 0.0)."""
    ok = [b for b, s in samples_by_batch.items() if np.percentile(s, 99) <= slo_s]
    if not ok:
        return (0, 0.0)
    best = max(ok)
    return (best, best / float(np.percentile(samples_by_batch[best], 50)))


def _hardware(rng):
    return dict(peak_flops=float(rng.uniform(1e12, 1e15)), peak_bandwidth=float(rng.uniform(1e11, 5e12)),
                dtype_bytes=int(rng.choice([2, 4])), overhead_s=float(rng.uniform(1e-6, 2e-5)))


@part("A: roofline latency of a dense layer", points=2, needs=("layer_latency",))
def check_layer_latency(layer_latency, rng):
    cases = []
    for _ in range(6):
        args = (int(rng.integers(1, 4097)), int(rng.choice([256, 512, 1024, 4096, 8192])),
                *_hardware(rng).values())
        cases.append((args, reference_layer_latency(*args)))
    return run_cases(layer_latency, cases, 2, rtol=1e-6)


class _Model:
    """A latency model the learner's search calls: affine above a knee, flat below."""

    def __init__(self, rng):
        self.floor = float(rng.uniform(1e-4, 2e-3))
        self.per_item = float(rng.uniform(1e-7, 5e-5))
        self.knee = int(rng.integers(1, 64))

    def __call__(self, b):
        return self.floor + self.per_item * max(b - self.knee, 0)

    def __repr__(self):
        return f"latency(b) = {self.floor:.4g} + {self.per_item:.4g} * max(b - {self.knee}, 0) s"

    def __wire__(self):
        """How the model crosses to the learner's kernel: its parameters (see ``wire.FUNCTION_KINDS``)."""
        return {"kind": "knee", "floor": self.floor, "per_item": self.per_item, "knee": self.knee}


@part("B: largest batch under a latency SLO", points=3, needs=("largest_batch_under_slo",))
def check_largest_batch(largest_batch_under_slo, rng):
    cases = []
    for k in range(6):
        model, max_batch = _Model(rng), int(rng.integers(16, 3000))
        if k == 0:
            slo = model(1) * 0.9                      # not even one request fits
        elif k == 1:
            slo = model(max_batch) * 1.5              # everything fits
        else:
            slo = model(int(rng.integers(1, max_batch + 1))) + model.per_item * 0.5
        cases.append(((model, slo, max_batch), reference_largest_batch(model, slo, max_batch)))
    return run_cases(largest_batch_under_slo, cases, 3)


def _samples(rng):
    base, per_item = float(rng.uniform(2e-4, 2e-3)), float(rng.uniform(1e-6, 3e-5))
    out = {}
    for b in (1, 2, 4, 8, 16, 32, 64, 128, 256, 512):
        typical = base + per_item * b
        spread = float(rng.uniform(0.02, 0.4))
        out[b] = typical * rng.lognormal(0.0, spread, size=int(rng.integers(50, 400)))
    return out


@part("C: p99 against the SLO, throughput at p50", points=2, needs=("p99_report",))
def check_p99_report(p99_report, rng):
    cases = []
    for k in range(5):
        samples = _samples(rng)
        p99 = sorted(float(np.percentile(s, 99)) for s in samples.values())
        slo = p99[0] * 0.5 if k == 0 else float(rng.uniform(p99[0], p99[-1] * 1.1))
        cases.append(((samples, slo), reference_p99_report(samples, slo)))
    return run_cases(p99_report, cases, 2, rtol=1e-6)
