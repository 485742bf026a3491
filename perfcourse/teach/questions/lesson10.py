"""Lesson 10 (self-test): questions across the whole course, tagged with the lesson they revisit."""

from ... import queueing
from ...models import laws, roofline
from ...models.datasheets import datasheet
from ..question import Question

_TRIAD_N = 2 ** 28            # float32 triad a = b + s*c: 2 FLOPs and 12 bytes per element
_H200 = datasheet("NVIDIA H200", quiet=True)     # the roofline questions' GPU, from the datasheet table
_GPU = (_H200.fp32, _H200.memory_bandwidth)     # its fp32 peak FLOP/s and peak bytes/s
_ON_GPU = f"an H200 ({_GPU[0] / 1e12:.0f} TFLOP/s fp32, {_GPU[1] / 1e12:.2g} TB/s)"
_RIDGE = f"{_GPU[0] / 1e12:.0f}e12/{_GPU[1] / 1e12:.2g}e12 = {_GPU[0] / _GPU[1]:.2g} FLOP/byte"
_STEP_MS = {"CPU preprocessing": 12, "host-to-device copies": 30, "kernels": 8, "sync and queue": 5}

QUESTIONS = [
    # lesson 00: what a claim must name
    Question("l10-claim-card", 0,
             "\"The new kernel is 3x faster.\" What must the claim name before it means anything?",
             "A speedup compares two timings, and it only holds for the workload, batch, shape, dtype and "
             "percentile it was measured with.",
             choices=("The GPU's datasheet peak", "How many lines of code changed", "Nothing: 3x is 3x",
                      "The workload, batch, shape, dtype and percentile"),
             correct="d"),
    Question("l10-unsynced-timer", 0,
             "A GPU kernel is timed with a host clock around the call, with no synchronisation. What does "
             "the number mostly measure?",
             "Kernel launches are asynchronous: the call returns once the work is queued, so the clock stops "
             "before the kernel has finished.",
             choices=("The time to queue the launch, not to run it", "The kernel's run time",
                      "The copy back to the host", "The clock's resolution"),
             correct="a"),
    # lesson 01: latency, throughput, batching, percentiles
    Question("l10-batch-gain", 1,
             "One request alone takes 10 ms; a batch of 16 takes 40 ms. By what factor does batching raise "
             "throughput?",
             "Throughput goes from 1/0.010 = 100 to 16/0.040 = 400 req/s: 4x, while each request's latency "
             "went from 10 to 40 ms.",
             reference=lambda: laws.batch_throughput(16, 0.040) / laws.batch_throughput(1, 0.010), unit="x"),
    Question("l10-largest-batch-slo", 1,
             "A batch of b requests takes 5 ms + 1 ms x b. With a 30 ms latency SLO on the batch time, "
             "which is the largest batch that meets it?",
             "5 + b <= 30 gives b <= 25; a larger batch would add throughput but break the SLO.",
             choices=("16", "25", "30", "32"), correct="b"),
    Question("l10-p99-meaning", 1,
             "A service reports p99 latency = 40 ms. What does that say?",
             "The 99th percentile: 99% of requests finished within 40 ms and 1% took longer.",
             choices=("The average request takes 40 ms", "The slowest request took 40 ms",
                      "99% of requests finished within 40 ms", "99 requests per second take 40 ms"),
             correct="c"),
    # lesson 02: work and span
    Question("l10-tree-parallelism", 2,
             "A tree reduction adds 2^20 numbers: 2^20 - 1 additions in 20 levels. What is its average "
             "parallelism T1/T_inf?",
             "T1 / T_inf = 1,048,575 / 20 = 52,429: plenty for any GPU, although the work stayed O(N).",
             reference=lambda: laws.parallelism(2 ** 20 - 1, 20), rtol=0.001),
    Question("l10-brent", 2,
             "A computation has work T1 = 10^6 operations and span T_inf = 1000. At most how many steps "
             "does a greedy schedule on 100 workers need?",
             "Brent: T_p <= T1/p + T_inf = 10,000 + 1,000 = 11,000 steps.",
             reference=lambda: laws.brent_bound(1e6, 1000, 100), unit="steps"),
    Question("l10-recurrence-loop", 2,
             "The loop x[t+1] = a*x[t] + b runs for 10^6 steps, written as a plain loop. Why do more threads "
             "not help it?",
             "Each step needs the previous result, so span = work; only rewriting it as an associative scan "
             "cuts the span to O(log N).",
             choices=("Threads cannot share the variable a",
                      "10^6 steps is too few to parallelize",
                      "Multiplication cannot run on a GPU",
                      "Each step depends on the one before, so the span equals the work"),
             correct="d"),
    # lesson 03: Amdahl
    Question("l10-amdahl-5pct-64", 3,
             "5% of a program is serial. What speedup does Amdahl's law give on 64 workers?",
             "1/(0.05 + 0.95/64) = 15.4: a quarter of the workers' worth, with a ceiling of 20.",
             reference=lambda: laws.amdahl_speedup(0.05, 64), unit="x"),
    Question("l10-launch-ceiling", 3,
             "A 10 ms step issues 1000 kernel launches at 5 µs each; launches are serial, the rest of the step "
             "parallelizes perfectly. What is the most any number of processors can speed the step up?",
             "Launches are 1000 x 5 µs = 5 ms, half the step, so s = 0.5 and speedup <= 1/s = 2: fuse kernels.",
             reference=lambda: laws.amdahl_limit(1000 * 5e-6 / 10e-3), unit="x"),
    Question("l10-karp-flatt", 3,
             "A run is 6x faster on 8 workers. What serial fraction does the Karp-Flatt metric give (as a "
             "fraction)?",
             "e = (1/6 - 1/8) / (1 - 1/8) = 0.0476: about 5% of the one-worker time behaves as serial.",
             reference=lambda: laws.karp_flatt(6, 8)),
    Question("l10-host-bottleneck", 3,
             "A training step on 8 GPUs spends 40 ms loading data in Python on the host (serial) and 80 ms in "
             "GPU compute that scales perfectly. Which is the bottleneck once you go to 64 GPUs?",
             "On 64 GPUs the compute part shrinks to 10 ms while the 40 ms of serial host work stays: it "
             "dominates the step.",
             choices=("Host-side data loading", "GPU compute", "GPU memory capacity", "The PCIe link"),
             correct="a"),
    # lesson 04: Gustafson, weak and strong scaling
    Question("l10-gustafson-32", 4,
             "On 32 workers a scaled-up job spends 5% of its time in serial work. What scaled speedup does "
             "Gustafson's law give?",
             "s + (1 - s) N = 0.05 + 0.95 x 32 = 30.45: when the problem grows with the machine, the serial "
             "part stops capping the speedup.",
             reference=lambda: laws.gustafson_speedup(0.05, 32), unit="x"),
    Question("l10-weak-or-strong", 4,
             "Going from 8 to 64 GPUs, each GPU keeps a batch of 32. Which kind of scaling is this?",
             "A fixed share per device with a growing total problem is weak scaling (Gustafson's view).",
             choices=("Weak scaling", "Strong scaling", "Neither: the batch must also change",
                      "Amdahl scaling"),
             correct="a"),
    # lesson 05: roofline
    Question("l10-triad-bound", 5,
             f"A float32 triad a = b + s*c (2 FLOPs and 12 bytes per element) runs on {_ON_GPU}. Which roof "
             "limits it?",
             f"Its intensity is 2/12 = 0.17 FLOP/byte, far below the ridge at {_RIDGE}: memory-bound.",
             choices=("The compute roof", "Kernel launch latency", "The memory-bandwidth roof",
                      "Neither: it reaches both"),
             correct="c"),
    Question("l10-triad-time", 5,
             f"A float32 triad over 2^28 elements (2 FLOPs, 12 bytes each) runs on {_ON_GPU}. What is its "
             "roofline lower bound on time, in milliseconds?",
             f"bytes / bandwidth = 12 x 2^28 B / {_GPU[1] / 1e12:.2g}e12 B/s = {12e3 * _TRIAD_N / _GPU[1]:.2g} ms; "
             f"the FLOPs would need only {2e3 * _TRIAD_N / _GPU[0]:.1g} ms.",
             reference=lambda: 1e3 * roofline.roofline_time(2 * _TRIAD_N, 12 * _TRIAD_N, *_GPU), unit="ms"),
    Question("l10-matmul-intensity", 5,
             "A 4096 x 4096 float32 matmul does 2 x 4096^3 FLOPs and, at best, moves each of its three "
             "matrices once. What is its arithmetic intensity?",
             "2 x 4096^3 / (3 x 4 x 4096^2) = 683 FLOP/byte: well above any ridge point, so compute-bound.",
             reference=lambda: roofline.arithmetic_intensity(2 * 4096 ** 3, 3 * 4 * 4096 ** 2), unit="FLOP/byte"),
    Question("l10-ridge", 5,
             f"Where is the ridge point of {_ON_GPU}?",
             f"peak FLOP/s / peak bytes/s = {_RIDGE.replace('/', ' / ', 1)}; kernels below it are memory-bound.",
             reference=lambda: roofline.ridge_point(*_GPU), unit="FLOP/byte"),
    # lesson 06: Little's law and queues
    Question("l10-little-500", 6,
             "A service must sustain 500 req/s at 80 ms average time in the system. How many requests must be "
             "in flight?",
             "L = lambda W = 500 x 0.08 = 40: the client and server must allow at least 40 concurrent requests.",
             reference=lambda: laws.littles_law(arrival_rate=500, time_in_system=0.08), unit="requests"),
    Question("l10-mm1-time", 6,
             "An M/M/1 server completes 100 req/s and 80 req/s arrive. What is the mean time in the system, "
             "in milliseconds?",
             "W = 1 / (mu - lambda) = 1 / 20 s = 50 ms, five times the 10 ms service time.",
             reference=lambda: 1e3 * queueing.mm1(80, 100).mean_time_in_system, unit="ms"),
    Question("l10-mm1-near-capacity", 6,
             "The same M/M/1 server's load rises from 50 to 90 req/s (utilization 0.5 to 0.9). By what factor "
             "does the mean time in the system grow?",
             "W = 1/(mu - lambda) goes from 1/50 s to 1/10 s: 5x longer for 1.8x the load.",
             reference=lambda: queueing.mm1(90, 100).mean_time_in_system / queueing.mm1(50, 100)
             .mean_time_in_system, unit="x"),
    Question("l10-token-budget", 6,
             "A continuous-batching server gets bursts of 8 long prompts at once (lesson 06). Its token budget "
             "per step is raised from 2,048 to 16,384 tokens; tokens per second stay the same. What gets worse?",
             "A large budget runs the whole burst's prefill in one long step: every running answer waits for it, "
             "and the longest pause between its tokens grows several-fold. The time per output token, a mean over "
             "the answer, hides it.",
             choices=("Nothing: the budget only matters when it is too small",
                      "The model's accuracy",
                      "GPU utilization",
                      "The longest pauses between tokens of the answers already running"),
             correct="d"),
    # lesson 07: scaling efficiency
    Question("l10-efficiency-16", 7,
             "A job runs 12x faster on 16 GPUs than on 1. What is the parallel efficiency (as a fraction)?",
             "12 / 16 = 0.75: a quarter of the GPU time is lost to serial work, communication or imbalance.",
             reference=lambda: laws.efficiency(12, 16)),
    Question("l10-report-scaling", 7,
             "A scaling result reports 90% efficiency on 32 GPUs. What else must it state to be trusted?",
             "Without the local and global batch, communication, gradient accumulation and any recipe change, "
             "the efficiency may hide a changed workload.",
             choices=("Only the GPU model",
                      "Local and global batch, communication, gradient accumulation and any recipe change",
                      "The power draw", "Nothing: efficiency is already normalized"),
             correct="b"),
    # lesson 08: optimization order
    Question("l10-first-step", 8,
             "After defining the end-to-end metric and correctness tolerance, what comes next?",
             "Decompose the wall time (CPU, copy, kernel, communication, queue) and find the largest item and "
             "the critical path, instead of guessing.",
             choices=("Rewrite the hottest kernel in CUDA", "Buy a faster GPU",
                      "Decompose the wall time and find the largest item",
                      "Change several settings at once to save time"),
             correct="c"),
    Question("l10-step-bottleneck", 8,
             "One step's wall time: " + ", ".join(f"{k} {v} ms" for k, v in _STEP_MS.items())
             + ". Which item do you attack first?",
             "Host-to-device copies are the largest item (30 of 55 ms); even infinitely fast kernels would "
             "save only 8 ms.",
             choices=tuple(_STEP_MS), correct="b"),
    Question("l10-kernels-only-ceiling", 8,
             "A step takes " + ", ".join(f"{k} {v} ms" for k, v in _STEP_MS.items())
             + ". What is the best speedup from making only the kernels infinitely fast?",
             "Everything but the kernels (47 of 55 ms) stays, so speedup <= 55/47 = 1.17x (Amdahl with "
             "s = 47/55).",
             reference=lambda: laws.amdahl_limit(1 - _STEP_MS["kernels"] / sum(_STEP_MS.values())), unit="x"),
]
