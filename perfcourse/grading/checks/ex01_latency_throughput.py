"""Exercise 01: the batch a load calls for, the largest batch under an SLO, a p99 report."""

from __future__ import annotations

import numpy as np

from ._tools import part, run_cases


class _Model:
    """A latency model the learner's code calls: affine above a knee, flat below."""

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


def _served(model, max_batch):
    """The most requests per second any batch up to ``max_batch`` serves."""
    return max(b / model(b) for b in range(1, max_batch + 1))


def _load_case(rng, k):
    """A model, an arrival rate and a largest batch; k = 0: nothing keeps up, 1: single requests do."""
    model, max_batch = _Model(rng), int(rng.integers(16, 3000))
    if k == 0:
        return model, _served(model, max_batch) * float(rng.uniform(1.05, 2.0)), max_batch
    if k == 1:
        return model, float(rng.uniform(0.3, 0.95)) / model(1), max_batch
    if k == 2:                              # steep past the knee: larger batches fall behind again
        model.knee = int(rng.integers(8, 64))
        model.per_item = float(rng.uniform(2.0, 5.0)) * model.floor / model.knee
    return model, _served(model, max_batch) * float(rng.uniform(0.3, 0.98)), max_batch


@part("A: the smallest batch that keeps up with a load", points=2, needs=("batch_for_load",))
def check_batch_for_load(batch_for_load, rng, ref):
    cases = []
    for k in range(6):
        args = _load_case(rng, k)
        cases.append((args, ref.batch_for_load(*args)))
    return run_cases(batch_for_load, cases, 2, rtol=1e-9)


@part("B: largest batch under a latency SLO", points=3, needs=("largest_batch_under_slo",))
def check_largest_batch(largest_batch_under_slo, rng, ref):
    cases = []
    for k in range(6):
        model, max_batch = _Model(rng), int(rng.integers(16, 3000))
        if k == 0:
            slo = model(1) * 0.9                      # not even one request fits
        elif k == 1:
            slo = model(max_batch) * 1.5              # everything fits
        else:
            slo = model(int(rng.integers(1, max_batch + 1))) + model.per_item * 0.5
        cases.append(((model, slo, max_batch), ref.largest_batch(model, slo, max_batch)))
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
def check_p99_report(p99_report, rng, ref):
    cases = []
    for k in range(5):
        samples = _samples(rng)
        p99 = sorted(float(np.percentile(s, 99)) for s in samples.values())
        slo = p99[0] * 0.5 if k == 0 else float(rng.uniform(p99[0], p99[-1] * 1.1))
        cases.append(((samples, slo), ref.p99_report(samples, slo)))
    return run_cases(p99_report, cases, 2, rtol=1e-6)
