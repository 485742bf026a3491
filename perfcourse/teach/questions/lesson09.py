"""Lesson 09 (hand calculations): variations on the lecture's four worked examples."""

from ...models import laws
from ..question import Question

QUESTIONS = [
    Question("l09-utilization", 9,
             "Two versions of the same job run on the same GPU and input. Both show 100% GPU utilization "
             "throughout; version A takes 10 s and version B 4 s. What do the two dashboards tell you?",
             "Utilization only says a kernel was running during each sample interval, so both read 100%: it "
             "says nothing of how much useful work each second did. B did the same work in less time.",
             choices=("Only that some kernel ran the whole time in each; B got more done per second",
                      "B's utilization must have been measured wrongly",
                      "Both ran at the GPU's peak FLOP/s",
                      "A used more of the GPU than B, so A is the better use of it"),
             correct="a"),
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
             "A service handles one request in 10 ms (100 req/s). It now waits for 4 requests and serves them "
             "together in 16 ms. What is the least time a request needs now, and the most throughput?",
             "A request cannot finish before its batch does: at least 16 ms, plus the wait for the batch to "
             "fill and for earlier batches. The batch serves 4 requests per 16 ms: at most 250 req/s.",
             choices=("2.5 ms each and 400 req/s",
                      "At least 16 ms (plus the wait for the batch to fill) and at most 250 req/s",
                      "10 ms each, as before, and 250 req/s",
                      "4 ms each and 250 req/s"),
             correct="b"),
]
