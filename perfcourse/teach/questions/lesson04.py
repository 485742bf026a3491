"""Self-test questions for lesson 04: Gustafson's law, strong and weak scaling."""

from ...models import laws, scaling
from ..question import Question

QUESTIONS = [
    Question("l04-gustafson-64", 4,
             "On a 64-worker run, 5% of the time is serial and the problem grew with the workers. What scaled "
             "speedup does Gustafson's law give?",
             "0.05 + 0.95 x 64 = 60.85x: the serial part stays the same while the parallel work grows 64 times.",
             reference=lambda: laws.gustafson_speedup(0.05, 64), unit="x"),
    Question("l04-weak-efficiency", 4,
             "Weak scaling: one worker takes 6 s for its share; 16 workers, each with the same share, take "
             "8 s. What is the weak-scaling efficiency (as a fraction)?",
             "Ideal weak scaling keeps the time flat, so efficiency = 6 s / 8 s = 0.75: a quarter of each "
             "worker's time goes to what the extra workers brought (communication, waiting, shared memory).",
             reference=lambda: float(scaling.weak_scaling([1, 16], [6.0, 8.0]).efficiency[-1])),
    Question("l04-which-scaling", 4,
             "Every GPU keeps a batch of 32 samples as GPUs are added. A step takes 400 ms on 1 GPU, 410 ms on 8 and "
             "450 ms on 64. What is the efficiency on 64 GPUs (as a fraction)?",
             "The work per GPU stays fixed while the global batch grows: weak scaling, whose ideal time is flat, so "
             "efficiency = T1 / T64 = 400 / 450 = 0.889 (a strong-scaling reading, 400 / (64 x 450), would be "
             "meaningless here).",
             reference=lambda: 400 / 450),
    Question("l04-memory-bound-threads", 4,
             "On a quiet machine, one thread of a streaming kernel (a few bytes per FLOP) draws 12 GB/s of "
             "memory bandwidth, and the machine's copy bandwidth is 20 GB/s. At most what speedup can 4 threads "
             "give that kernel?",
             "The threads share one memory system: 20 GB/s feeds 20 / 12 = 1.67 threads' worth of this kernel, "
             "so 4 threads give at most 1.67x, however many cores there are. A kernel bound by arithmetic units, "
             "which every core brings, could approach 4x.",
             reference=lambda: min(4.0, 20 / 12), unit="x"),
]
