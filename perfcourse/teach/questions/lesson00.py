"""Self-test questions for lesson 00: the thesis, honest timing and the claim card."""

from ...models import counts, launches, laws
from ..question import Question


def _copy_bandwidth_gbs():
    bytes_moved = counts.get("copy").bytes_moved(2**26, dtype="float32")  # read n and write n elements
    return bytes_moved / 0.010 / 1e9


def _p99_speedup():
    return laws.speedup(0.012, 0.008)   # old p99 over new p99, same workload, batch, shape and dtype


QUESTIONS = [
    Question("l00-no-sync", 0,
             "A script launches 100 GPU kernels of 2 ms each; issuing one launch takes 5 µs on the host. It reads "
             "the clock right after the last launch, with no synchronisation. How many ms does it report?",
             "The launches return at once, so the timer sees only 100 x 5 µs = 0.5 ms of issuing; the work "
             "(about 200 ms) is still queued on the device. Synchronise before reading the clock.",
             reference=lambda: launches.async_timeline(100, 5e-6, 2e-3).host_s * 1e3, unit="ms"),
    Question("l00-claim-complete", 0,
             "A report says: 'Dense layer on one H200 (CuPy), batch 8, shape 8x4096 by 4096x4096, float32: 0.41 ms "
             "over 200 samples'. What must be added before it can be compared with another measurement?",
             "It names workload, device, batch, shape, dtype and the sample count, but not which part of the "
             "distribution 0.41 ms is: a p50 and a p99 of the same 200 samples can differ several times over.",
             choices=("The GPU utilization during the run",
                      "The percentile that 0.41 ms is (p50, p99...)",
                      "The kernel's source code",
                      "Nothing: it is complete"),
             correct="b"),
    Question("l00-copy-bandwidth", 0,
             "Copying 2^26 float32 numbers from one array to another takes 10 ms. Counting the bytes read and "
             "written (2N elements, as STREAM does), what bandwidth is that, in GB/s (1 GB = 1e9 bytes)?",
             "A copy reads 2^26 x 4 bytes and writes as many: 537 MB in 0.01 s is 53.7 GB/s.",
             reference=_copy_bandwidth_gbs, unit="GB/s"),
    Question("l00-p99-speedup", 0,
             "Same workload, batch, shape and dtype: p99 was 12 ms on the old path and is 8 ms on the new one, "
             "each over 200 samples. What p99 speedup may you claim?",
             "12 ms / 8 ms = 1.5x at p99, and the statement must name p99: the median may have moved differently.",
             reference=_p99_speedup, unit="x"),
    Question("l00-serial-sum-parallelism", 0,
             "Summing 1024 numbers as a tree does 1023 additions along a critical path of 10 levels. What is the "
             "average parallelism T1 / T-infinity?",
             "parallelism = T1 / T_inf = 1023 / 10 = 102.3: never more than about 102 adders can be kept busy "
             "on average, whatever the hardware offers.",
             reference=lambda: laws.parallelism(1023, 10), unit=""),
]
