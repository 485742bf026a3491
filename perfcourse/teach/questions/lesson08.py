"""Self-test questions for lesson 08: the order of optimisation."""

from ...models import fusion, laws
from ..question import Question

QUESTIONS = [
    Question("l08-first-step", 8,
             "A teammate's change runs the pipeline in half the time, but its outputs now differ from the "
             "float64 reference by 1e-2, ten times the tolerance the team agreed on. What do you report?",
             "The tolerance is fixed before any change, beside the metric: a version whose outputs fail it is "
             "rejected, however fast, and the best version so far stays.",
             choices=("A 2x speedup",
                      "No speedup: the version is rejected and the best correct one stays",
                      "A 2x speedup, with a note on its accuracy",
                      "A 2x speedup, once the tolerance is raised to 1e-2"),
             correct="b"),
    Question("l08-largest-item", 8,
             "A profile splits wall time into CPU 30%, copies 50%, kernels 20%. If you made every kernel "
             "infinitely fast, what is the largest speedup you could get?",
             "Amdahl again: the other 80% stays, so the speedup is at most 1/0.8 = 1.25x. Start with the copies.",
             reference=lambda: laws.amdahl_limit(0.8), unit="x"),
    Question("l08-sync-on-cpu", 8,
             "On the CPU the change 'sync -> once' saved almost nothing. Ported to a GPU, a batch runs 12 kernels "
             "with a sync after each, and after each sync the device sits idle about 40 us while the host launches "
             "the next kernel. How much device idle time per batch, in us, does the change remove there?",
             "NumPy calls finish before they return, so on the CPU a sync waits for nothing. On the GPU each sync "
             "drains the queue; the change keeps the last one and drops 11, so 11 x 40 us = 440 us of idle device "
             "per batch goes.",
             reference=lambda: 11 * 40.0, unit="us"),
    Question("l08-padding-tail", 8,
             "A padded batch of 128 requests has lengths with median 16 but the longest is 240. How many "
             "times more rows does the padded version compute than a batch where every request is 16 long?",
             "Padding makes every request as long as the longest: 240 / 16 = 15x the rows, which is why a "
             "version tuned on uniform shapes can lose its gain on real traffic and at the tail.",
             reference=lambda: fusion.padded_rows([16] * 127 + [240]) / (128 * 16), unit="x"),
]
