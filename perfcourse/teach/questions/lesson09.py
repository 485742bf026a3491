"""Lesson 09 (hand calculations): variations on the lecture's four worked examples."""

from ...models import laws
from ..question import Question

QUESTIONS = [
    Question("l09-utilization", 9,
             "A dashboard shows the GPU at 100% utilization for the whole run. What does that tell you?",
             "Utilization only says a kernel was running during each sample interval: not whether it did "
             "useful work, stalled on memory, used a poor kernel, or met the user's latency target.",
             choices=("The GPU was busy during that time, and nothing more",
                      "The GPU reached its peak FLOP/s",
                      "The run cannot get any faster on this GPU",
                      "Users see the lowest latency the GPU can give"),
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
             "A job takes 120 s on 1 GPU and 20 s on 8 GPUs. What is the parallel efficiency (as a fraction)?",
             "speedup = 120 / 20 = 6x, efficiency = 6 / 8 = 0.75: a quarter of the GPU time goes to serial work, "
             "communication or imbalance.",
             reference=lambda: laws.efficiency(120 / 20, 8)),
    Question("l09-batch-wait", 9,
             "Batching 8 requests raised throughput from 50 to 266.7 req/s. What happened to the time a "
             "single request needs?",
             "Each request now takes at least the 30 ms of its batch instead of 20 ms, plus the time spent "
             "waiting for the batch to form and for earlier batches.",
             choices=("It fell to 30/8 = 3.75 ms",
                      "It is unchanged at 20 ms",
                      "It rose to at least 30 ms, plus queueing",
                      "It fell to 20/8 = 2.5 ms"),
             correct="c"),
]
