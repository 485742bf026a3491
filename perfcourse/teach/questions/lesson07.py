"""Self-test questions for lesson 07: scaling efficiency and the cost of the all-reduce."""

from ...models import allreduce, laws
from ..question import Question


def _alpha_beta_crossover():
    """The message size where the alpha-beta fit to (8 B, 20 µs) and (4 MB, 1.02 ms) has equal terms."""
    beta = (1.02e-3 - 20e-6) / (4_000_000 - 8)
    alpha = 20e-6 - 8 * beta
    return alpha / beta


QUESTIONS = [
    Question("l07-efficiency-8gpu", 7,
             "A training job runs 7 times faster on 8 GPUs than on 1. What is its parallel efficiency "
             "(as a fraction)?",
             "efficiency = speedup / N = 7 / 8 = 0.875: each GPU delivers 87.5% of what it would alone.",
             reference=lambda: laws.efficiency(7.0, 8)),
    Question("l07-ring-time", 7,
             "A ring all-reduce sums a 100 MB gradient over 8 GPUs. Each message costs alpha = 5 µs plus "
             "beta = 1 ns per byte (a 1 GB/s link). How long does the all-reduce take, in milliseconds?",
             "T = 2(N-1) alpha + 2(N-1)/N x bytes x beta = 14 x 5 µs + 1.75 x 100 MB x 1 ns/B = 175.07 ms: "
             "the bandwidth term dominates for big gradients.",
             reference=lambda: allreduce.ring_allreduce_time(100e6, 8, 5e-6, 1e-9) * 1e3, unit="ms"),
    Question("l07-strong-model", 7,
             "One GPU computes a step's gradient in 40 ms. Under strong scaling on 8 GPUs each computes 1/8 of "
             "the batch, then a 2 ms all-reduce runs (no overlap). What efficiency does that predict "
             "(as a fraction)?",
             "t8 = 40/8 + 2 = 7 ms; speedup = 40/7 = 5.71; efficiency = 5.71/8 = 0.714. The all-reduce does "
             "not shrink when the per-GPU work does.",
             reference=lambda: laws.efficiency(laws.speedup(0.040, 0.040 / 8 + 0.002), 8)),
    Question("l07-faked-efficiency", 7,
             "A team reports 97% efficiency on 64 GPUs. Their 1-GPU step: one micro-batch of 32 in 100 ms. "
             "On 64 GPUs they use micro-batches 4x larger and accumulate 8 of them per step, so the 100 ms "
             "all-reduce runs once per 8 x 400 ms of compute. Run with the 1-GPU recipe instead (one micro-batch "
             "of 32, 100 ms of compute, then the 100 ms all-reduce), what efficiency do the 64 GPUs reach (as a "
             "fraction)?",
             "Same recipe: each GPU does the 1-GPU step's 100 ms of compute, then waits 100 ms for the all-reduce, "
             "so efficiency = 100 / 200 = 0.5. The 97% came from amortising one all-reduce over 32 times the "
             "samples, a different workload and a different optimisation (global batch, learning rate, steps "
             "to quality).",
             reference=lambda: 0.100 / (0.100 + 0.100)),
    Question("l07-alpha-beta", 7,
             "All-reduce times on 2 ranks: 20 µs for an 8-byte message, 1.02 ms for 4,000,000 bytes. Fit t = "
             "alpha + m x beta to these two points. At what message size, in bytes, do the two terms take equal "
             "time?",
             "beta = (1.02 ms - 20 µs) / (4,000,000 - 8) B = 0.25 ns per byte and alpha = 20 µs (the 8 bytes add "
             "2 ns): m = alpha / beta = 80,000 bytes. Below that the fixed latency dominates, so batching small "
             "messages pays; above it the bandwidth term does.",
             reference=_alpha_beta_crossover, rtol=0.02, unit="bytes"),
]
