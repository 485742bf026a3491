"""Self-test questions for lesson 01: latency, throughput, batching and SLOs."""

from ...models import latency, laws
from ..question import Question

_P99_BY_BATCH = {1: 0.003, 16: 0.009, 128: 0.033, 512: 0.071, 2048: 0.260}

QUESTIONS = [
    Question("l01-batch-throughput", 1,
             "A batch of 48 rows goes through a layer in 16 ms. What is the throughput, in rows per second?",
             "48 rows / 0.016 s = 3000 rows/s; each of those rows still waited the full 16 ms.",
             reference=lambda: laws.batch_throughput(48, 0.016), unit="rows/s"),
    Question("l01-slo-batch", 1,
             "Measured p99 latency per batch: b=1: 3 ms, b=16: 9 ms, b=128: 33 ms, b=512: 71 ms, b=2048: 260 ms. "
             "The SLO is p99 <= 80 ms. What is the largest batch that meets it?",
             "Only batches whose p99 is at most 80 ms qualify: 1, 16, 128 and 512; the largest of them is 512. At "
             "b = 2048 the p99 of 260 ms misses the SLO, however high its throughput.",
             reference=lambda: latency.largest_batch_under_slo(_P99_BY_BATCH, 0.080), rtol=0, unit="rows"),
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
             "Two configurations of a chat service, measured under its real load: A gives 2,400 tokens/s with a p50 "
             "of 120 ms and a p99 of 900 ms; B gives 1,900 tokens/s, p50 150 ms, p99 380 ms. The SLO is p99 <= "
             "500 ms. Which should the service run?",
             "Users feel their own request's latency, so the tail under real load, held against the SLO, decides: "
             "only B meets it. A's extra tokens/s and lower median do not help the 1% of requests that wait 900 ms.",
             choices=("A: more tokens per second serve more users",
                      "B: only its p99 meets the SLO",
                      "A: its median is lower",
                      "Neither can be judged without GPU utilization"),
             correct="b"),
]
