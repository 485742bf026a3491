"""Lesson 09 (hand calculations): variations on the lecture's four worked examples."""

from ...models import laws
from ..question import Question

QUESTIONS = [
    Question("l09-utilization", 9,
             "A job of 2.4e13 FLOPs shows 100% GPU utilization throughout and takes 10 s; after a fix it still shows "
             "100% and takes 4 s on the same input. What fraction of the GPU's 80 TFLOP/s peak does the fixed "
             "version reach?",
             "Utilization only says a kernel was running in each sample interval, so both read 100%. The useful rate "
             "is the work over the time: 2.4e13 / 4 s = 6e12 FLOP/s, 0.075 of the peak (the first version reached "
             "0.03).",
             reference=lambda: 2.4e13 / 4 / 80e12),
    Question("l09-amdahl-32", 9,
             "The lecture's program (10% serial) now runs on 32 workers. What speedup does Amdahl's law give?",
             "1/(0.1 + 0.9/32) = 7.8: four times the 8 workers lift the speedup only from 4.71 to 7.8, under a "
             "ceiling of 10.",
             reference=lambda: laws.amdahl_speedup(0.1, 32), unit="x"),
    Question("l09-concurrency-cap", 9,
             "Requests spend 40 ms in the system, but the client allows only 6 in flight at once. "
             "What is the most throughput it can get?",
             "Little's law turned around: lambda = L / W = 6 / 0.04 s = 150 req/s, whatever the service could "
             "take: more throughput needs more requests in flight, or less time each.",
             reference=lambda: laws.littles_law(in_flight=6, time_in_system=0.04), unit="req/s"),
    Question("l09-efficiency-8", 9,
             "A job takes 150 s on 1 GPU. The team promises 80% parallel efficiency on 8 GPUs. How long may the "
             "job take on 8 GPUs at most, in seconds, for that promise to hold?",
             "Efficiency = speedup / N, so 80% on 8 GPUs needs a speedup of 0.8 x 8 = 6.4x: 150 s / 6.4 = 23.4 s. "
             "Any serial work, communication or imbalance has to fit in the 4.7 s between that and a perfect 18.75 s.",
             reference=lambda: 150 / (0.8 * 8), unit="s"),
    Question("l09-batch-wait", 9,
             "A service handled one request in 10 ms. It now waits for 4 requests and serves them together in 16 ms. "
             "Requests arrive evenly, one every 10 ms. How long does the first request of a batch take from its "
             "arrival to its answer, in ms?",
             "It waits for the other three to arrive (30 ms), then for the batch (16 ms): 46 ms, against 10 ms "
             "before, while the throughput ceiling rose from 100 to 250 req/s.",
             reference=lambda: 3 * 10.0 + 16.0, unit="ms"),
]
