"""Self-test questions for lesson 08: the order of optimisation."""

from ...models import fusion, laws
from ..question import Question

QUESTIONS = [
    Question("l08-first-step", 8,
             "Before changing any code to make a pipeline faster, what do you fix first?",
             "Without an end-to-end metric there is nothing to improve, and without a correctness tolerance a "
             "'faster' version may simply be wrong.",
             choices=("The kernel with the lowest percent of peak",
                      "The end-to-end metric and the correctness tolerance against a trusted reference",
                      "The compiler flags", "The number of GPUs"),
             correct="b"),
    Question("l08-largest-item", 8,
             "A profile splits wall time into CPU 30%, copies 50%, kernels 20%. If you made every kernel "
             "infinitely fast, what is the largest speedup you could get?",
             "Amdahl again: the other 80% stays, so the speedup is at most 1/0.8 = 1.25x. Start with the copies.",
             reference=lambda: laws.amdahl_limit(0.8), unit="x"),
    Question("l08-sync-on-cpu", 8,
             "On the CPU backend, removing the synchronisation after each kernel barely changed the time; on "
             "a GPU the same change helps a lot. Why?",
             "NumPy calls finish before they return, so a 'sync' waits for nothing; on a GPU each sync "
             "drains the queue and leaves the device idle while the host launches the next kernel.",
             choices=("The CPU has more cores than the GPU",
                      "NumPy runs each call to completion before returning, so there is nothing to wait for; "
                      "on a GPU every sync empties the queue and idles the device",
                      "Synchronisation is free on every device",
                      "The profiler hides synchronisation on the CPU"),
             correct="b"),
    Question("l08-padding-tail", 8,
             "A padded batch of 128 requests has lengths with median 16 but the longest is 240. How many "
             "times more rows does the padded version compute than a batch where every request is 16 long?",
             "Padding makes every request as long as the longest: 240 / 16 = 15x the rows, which is why a "
             "version tuned on uniform shapes can lose its gain on real traffic and at the tail.",
             reference=lambda: fusion.padded_rows([16] * 127 + [240]) / (128 * 16), unit="x"),
]
