"""Self-test questions for lesson 08: the order of optimisation."""

from ...models import fusion, laws
from ..question import Question

QUESTIONS = [
    Question("l08-first-step", 8,
             "The baseline takes 12 ms with a max error of 2e-5 against the float64 reference; the team's tolerance "
             "is 1e-4. Version A takes 7 ms (error 3e-3), version B 9 ms (error 4e-5). What speedup over the "
             "baseline do you report, in x?",
             "The tolerance is fixed before any change: A fails it and is rejected, however fast; B passes, so the "
             "result is 12 / 9 = 1.33x.",
             reference=lambda: 12 / 9, unit="x"),
    Question("l08-largest-item", 8,
             "A profile splits wall time into CPU 30%, copies 50%, kernels 20%. If you made every kernel "
             "infinitely fast, what is the largest speedup you could get?",
             "Amdahl again: the other 80% stays, so the speedup is at most 1/0.8 = 1.25x. Start with the copies.",
             reference=lambda: laws.amdahl_limit(0.8), unit="x"),
    Question("l08-sync-on-cpu", 8,
             "On the CPU the change 'sync -> once' can save almost nothing: NumPy's calls finish before they "
             "return. Ported to a GPU, a batch runs 12 kernels "
             "with a sync after each, and after each sync the device sits idle about 40 µs while the host launches "
             "the next kernel. 'sync -> once' keeps one sync per batch, after its last kernel. How much device idle "
             "time per batch, in µs, does the change remove there?",
             "NumPy calls finish before they return, so on the CPU a sync waits for nothing. On the GPU each sync "
             "drains the queue; the change keeps the last one and drops 11, so 11 x 40 µs = 440 µs of idle device "
             "per batch goes.",
             reference=lambda: 11 * 40.0, unit="µs"),
    Question("l08-padding-tail", 8,
             "A padded batch of 128 requests has lengths with median 16 but the longest is 240. How many "
             "times more rows does the padded version compute than a batch where every request is 16 long?",
             "Padding makes every request as long as the longest: 240 / 16 = 15x the rows, which is why a "
             "version tuned on uniform shapes can lose its gain on real traffic and at the tail.",
             reference=lambda: fusion.padded_rows([16] * 127 + [240]) / (128 * 16), unit="x"),
]
