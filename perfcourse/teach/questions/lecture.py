"""The lecture's own self-test questions and its four worked calculations."""

import numpy as np

from ...models import laws
from ..question import Question


def _fastest_count(work_s, per_device_s, most=1000):
    """The device count N that minimises work_s / N + per_device_s x N."""
    n = np.arange(1, most + 1)
    return int(n[np.argmin(work_s / n + per_device_s * n)])


QUESTIONS = [
    Question("lecture-amdahl-1pct", 3,
             "A program has a 1% serial fraction. What is the largest speedup Amdahl's law allows?",
             "With s = 0.01 the speedup can never pass 1/s = 100, however many workers.",
             reference=lambda: laws.amdahl_limit(0.01), unit="x"),
    Question("lecture-strong-scaling-worse", 4,
             "A fixed job holds 4 ms of work that shares out perfectly over N devices, and every device added "
             "costs 5 µs more of synchronisation per run, which does not shrink: t(N) = 4 ms / N + 5 µs x N. "
             "On how many devices does the job finish fastest?",
             "t(N) is smallest where the shrinking work and the growing fixed cost balance, N = sqrt(4 ms / "
             "5 µs) = 28.3: 28 devices take 283 µs, 27 and 29 a little more. Past that, each device added makes "
             "the job slower: that is why strong scaling eventually gets worse.",
             reference=lambda: float(_fastest_count(4e-3, 5e-6)), rtol=0, unit="devices"),
    Question("lecture-throughput-vs-p99", 6,
             "Throughput went up after increasing the batch size and the load. Why can p99 latency get worse?",
             "Bigger batches and higher load add waiting time, and near capacity queueing delay grows "
             "non-linearly, which hits the tail first.",
             choices=("p99 is measured less accurately at high throughput",
                      "Larger batches and higher load add waiting, and queueing near capacity inflates "
                      "the tail non-linearly",
                      "Throughput and latency are unrelated quantities",
                      "The GPU computes each request more slowly in a batch because of rounding"),
             correct="b"),
    Question("lecture-ex1-serial-throughput", 1,
             "One request takes 20 ms and requests are served one at a time. At most how many requests per "
             "second can be served?",
             "Serially, throughput = 1 / latency = 1 / 0.020 s = 50 req/s.",
             reference=lambda: laws.batch_throughput(1, 0.020), unit="req/s"),
    Question("lecture-ex1-batch-throughput", 1,
             "A batch of 8 requests takes 30 ms. What is the throughput?",
             "8 requests / 0.030 s = 266.7 req/s, yet every request now waits at least 30 ms plus queueing.",
             reference=lambda: laws.batch_throughput(8, 0.030), unit="req/s"),
    Question("lecture-ex2-amdahl-limit", 3,
             "10% of a program is serial and the rest speeds up without limit. What is the limit on speedup?",
             "The serial 10% alone takes a tenth of the original time, so speedup <= 1/0.1 = 10.",
             reference=lambda: laws.amdahl_limit(0.1), unit="x"),
    Question("lecture-ex2-amdahl-8", 3,
             "The same program (10% serial) runs on 8 workers. What speedup does Amdahl's law give?",
             "1/(0.1 + 0.9/8) = 4.71: eight workers buy less than half of the 10x ceiling.",
             reference=lambda: laws.amdahl_speedup(0.1, 8), unit="x"),
    Question("lecture-ex3-little", 6,
             "A service handles 200 req/s and each request spends 50 ms in the system on average. "
             "How many requests are in flight on average?",
             "Little's law: L = lambda W = 200/s x 0.05 s = 10 requests in flight.",
             reference=lambda: laws.littles_law(arrival_rate=200, time_in_system=0.05), unit="requests"),
    Question("lecture-ex4-speedup", 7,
             "A job takes 100 s on 1 GPU and 30 s on 4 GPUs. What is the speedup?",
             "speedup = 100 s / 30 s = 3.33x.",
             reference=lambda: laws.speedup(100, 30), unit="x"),
    Question("lecture-ex4-efficiency", 7,
             "A job takes 100 s on 1 GPU and 30 s on 4 GPUs. What is the strong-scaling efficiency "
             "(as a fraction)?",
             "efficiency = 3.33 / 4 = 0.833; the rest is lost to serial work, communication and imbalance.",
             reference=lambda: laws.efficiency(laws.speedup(100, 30), 4)),
]
