"""Self-test questions for lesson 07: scaling efficiency and the cost of the all-reduce."""

from ...models import allreduce, laws
from ..question import Question

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
             "A team reports 97% scaling efficiency on 64 GPUs. Between their 1-GPU and 64-GPU runs they "
             "raised the per-GPU batch 4x and added gradient accumulation over 8 micro-batches. What is wrong "
             "with the claim?",
             "The workload changed: a much larger global batch sends one all-reduce per 32x more samples and "
             "changes the optimisation itself (learning rate, steps to reach the target quality), so the "
             "number mixes a different recipe into 'efficiency'.",
             choices=("Nothing: efficiency is measured in samples per second, whatever the batch",
                      "The workload changed: communication is amortised over far more samples and the "
                      "numerical recipe (global batch, learning rate, steps to quality) is different",
                      "Efficiency can never exceed 90% on more than 8 GPUs",
                      "Gradient accumulation makes the all-reduce slower, so the real figure is higher"),
             correct="b"),
    Question("l07-alpha-beta", 7,
             "All-reduce times on 2 ranks grow from 20 µs for tiny messages to 1 ms for 4 MB. Which term of "
             "the alpha-beta model sets the time of the tiny messages?",
             "For a few bytes the m x beta term is negligible: what remains is the fixed per-message "
             "latency alpha (here about 10 µs per step, two steps on two ranks).",
             choices=("beta, the time per byte", "alpha, the fixed latency per message",
                      "Neither: tiny messages are free", "The number of ranks only"),
             correct="b"),
]
