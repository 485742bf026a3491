"""Self-test questions for lesson 03: Amdahl's law and where serial time hides."""

from ...models import launches, laws
from ..question import Question

QUESTIONS = [
    Question("l03-limit-5pct", 3,
             "5% of a program's one-worker time is serial. With unlimited workers, what speedup can it reach "
             "at most?",
             "The serial 5% never shrinks, so the time never drops below 0.05 of the original: 1/0.05 = 20x.",
             reference=lambda: laws.amdahl_limit(0.05), unit="x"),
    Question("l03-quarter-serial-4", 3,
             "A pipeline spends 25% of its one-worker time in a serial Python step. What speedup does Amdahl's "
             "law predict on 4 workers?",
             "1 / (0.25 + 0.75/4) = 2.29x: the serial quarter already eats more than half of the 4-worker time.",
             reference=lambda: laws.amdahl_speedup(0.25, 4), unit="x"),
    Question("l03-launch-bound", 3,
             "A step does 100 µs of useful GPU work split over 1000 kernels. The host needs 5 µs to issue each "
             "launch, and launches are asynchronous: the GPU runs one kernel while the host issues the next. "
             "How long does the step take on the device, in milliseconds?",
             "Each kernel lasts 0.1 µs and is done long before the next one is issued, so the GPU waits on the "
             "host: 1000 x 5 µs of issuing plus the last kernel's 0.1 µs = 5.0 ms. The work hides inside the "
             "launches; fusing the 1000 kernels into one removes almost all of the time.",
             reference=lambda: launches.async_timeline(1000, launch_s=5e-6, kernel_s=100e-6 / 1000).device_s * 1e3,
             unit="ms"),
    Question("l03-karp-flatt", 3,
             "A run is 3.2x faster on 4 workers than on 1. What serial fraction does the Karp-Flatt metric "
             "give?",
             "e = (1/3.2 - 1/4) / (1 - 1/4) = 0.083: as if 8.3% of the work were serial.",
             reference=lambda: laws.karp_flatt(3.2, 4)),
    Question("l03-hidden-serial", 3,
             "A decode step takes 2.0 ms: 0.2 ms of host-side Python (sampling, bookkeeping) that runs one step "
             "at a time, and 1.8 ms of kernels. Moved to a GPU that runs those kernels 4 times faster, how many "
             "times faster is the step?",
             "Only the kernels speed up: 0.2 + 1.8 / 4 = 0.65 ms, so 2.0 / 0.65 = 3.08x. The host-side part is "
             "the step's serial fraction (s = 0.1), and it caps the gain at 10x however fast the GPU gets.",
             reference=lambda: laws.amdahl_speedup(0.1, 4), unit="x"),
]
