"""Self-test questions for lesson 01: latency, throughput, batching and SLOs."""

from ...models import latency, laws
from ..question import Question

_P99_BY_BATCH = {1: 0.004, 8: 0.006, 64: 0.021, 256: 0.048, 1024: 0.190}

QUESTIONS = [
    Question("l01-batch-throughput", 1,
             "A batch of 48 rows goes through a layer in 16 ms. What is the throughput, in rows per second?",
             "48 rows / 0.016 s = 3000 rows/s; each of those rows still waited the full 16 ms.",
             reference=lambda: laws.batch_throughput(48, 0.016), unit="rows/s"),
    Question("l01-slo-batch", 1,
             "Measured p99 latency per batch: b=1: 4 ms, b=8: 6 ms, b=64: 21 ms, b=256: 48 ms, b=1024: 190 ms. "
             "The SLO is p99 <= 50 ms. What is the largest batch that meets it?",
             "Only batches whose p99 is at most 50 ms qualify: 1, 8, 64 and 256; the largest of them is 256. At "
             "b = 1024 the p99 of 190 ms misses the SLO, however high its throughput.",
             reference=lambda: latency.largest_batch_under_slo(_P99_BY_BATCH, 0.050), rtol=0, unit="rows"),
    Question("l01-memory-bound-b1", 1,
             "W is a 4096 x 4096 float32 matrix and memory delivers 50 GB/s (1 GB = 1e9 bytes). The compute "
             "roof is 400 GFLOP/s. What latency does the roofline model give for X[1, 4096] @ W, in ms?",
             "At b = 1 the call moves W once (67 MB) and does only 34 MFLOP: max(0.084 ms, 1.34 ms) = 1.34 ms, "
             "memory-bound.",
             reference=lambda: latency.dense_layer_latency(1, 4096, peak_flops=400e9, peak_bandwidth=50e9) * 1e3,
             rtol=0.03, unit="ms"),
    Question("l01-knee", 1,
             "Same layer and ceilings (d = 4096, float32, 400 GFLOP/s, 50 GB/s). Near which batch size does it "
             "turn from memory-bound to compute-bound?",
             "Where 2 b d^2 / F equals (d^2 + 2 b d) s / B: b is about ridge x s / 2 = 8 x 4 / 2 = 16 rows.",
             reference=lambda: latency.knee_batch(4096, peak_flops=400e9, peak_bandwidth=50e9), rtol=0.1,
             unit="rows"),
    Question("l01-energy", 1,
             "A server draws 400 W while producing 8000 tokens/s. What is its energy per token, in J/token?",
             "J/token = W / (tokens/s) = 400 / 8000 = 0.05 J/token; a larger batch that raises tokens/s at "
             "similar power lowers it.",
             reference=lambda: latency.energy_per_token(400, 8000), unit="J/token"),
    Question("l01-first-waits", 1,
             "Requests arrive steadily at 100 per second and the server waits for a batch of 8, which then "
             "takes 30 ms. How long, in ms, does the first request of each batch wait before its answer?",
             "It waits (8 - 1) / 100 s = 70 ms for the batch to fill, then 30 ms of compute: 100 ms.",
             reference=lambda: (latency.batch_fill_time(8, 100) + 0.030) * 1e3, unit="ms"),
    Question("l01-online-metric", 1,
             "Which figure decides whether an online chat service is fast enough for its users?",
             "Users feel the latency of their own request, so the tail (p95/p99) under real load, held against "
             "the SLO, decides; tokens/s decides the cost of offline training.",
             choices=("Average tokens per second over the day",
                      "p95/p99 latency under real load, compared with the SLO",
                      "The GPU's datasheet FLOP/s",
                      "GPU utilization reported by the driver"),
             correct="b"),
]
