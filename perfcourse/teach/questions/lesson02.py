"""Self-test questions for lesson 02: work, span, parallelism and Brent's bound."""

from ...models import dag, laws
from ..question import Question

QUESTIONS = [
    Question("l02-tree-span", 2,
             "2048 numbers are summed as a tree (pairs, then pairs of pairs...). How many adds are on the "
             "critical path (the span)?",
             "Each level halves the count: 2048 -> 1024 -> ... -> 1 takes log2(2048) = 11 levels, although the "
             "work is still 2047 adds.",
             reference=lambda: dag.tree_sum(2048).span, rtol=0, unit="adds"),
    Question("l02-brent", 2,
             "A computation has T1 = 1,000,000 operations and span T_inf = 20. What upper bound on the time "
             "does Brent's bound give with P = 100 workers, in steps?",
             "T_P <= T1/P + T_inf = 10,000 + 20 = 10,020 steps: with this much parallelism the span hardly "
             "matters.",
             reference=lambda: laws.brent_bound(1_000_000, 20, 100), unit="steps"),
    Question("l02-scan-work", 2,
             "The recurrence x[t+1] = a x[t] + b over 1024 steps is rewritten as a Hillis-Steele scan (10 rounds "
             "of combining affine maps, then one round applying them to x0). On 8 workers, at most how many "
             "steps does the scan take by Brent's bound?",
             "Round k combines 1024 - 2^k pairs: 10 x 1024 - 1023 = 9217 combines, plus 1024 applications, "
             "T1 = 10241 with span 11. Brent: 10241 / 8 + 11 = 1291 steps, more than the loop's 1024 on one "
             "worker: the scan pays for its short span with ten times the work, and 8 workers do not cover that.",
             reference=lambda: laws.brent_bound(dag.scan_recurrence(1024).work, dag.scan_recurrence(1024).span, 8),
             unit="steps"),
    Question("l02-more-threads", 2,
             "A loop computes x[t+1] = a x[t] + b for 1,500,000 steps; one step takes 1.4 ns. Written as that "
             "loop and run on 1000 threads, what is the least time the work-span law allows, in ms?",
             "Every step needs the one before, so the span is the whole loop: T_inf = 1.5 x 10^6 steps x 1.4 ns "
             "= 2.1 ms, and T_P >= max(T1 / P, T_inf) = max(2.1 µs, 2.1 ms) = 2.1 ms. The threads change nothing; "
             "only a reformulation (a scan over the affine maps) shortens the span, at the price of more work.",
             reference=lambda: 1e3 * 1.4e-9 * max(1_500_000 / 1000, dag.serial_recurrence(1_500_000).span),
             unit="ms"),
    Question("l02-gpu-work", 2,
             "Which of these will a GPU speed up most over one CPU core?",
             "A GPU runs tens of thousands of threads at once; it helps only when that many independent "
             "operations exist. Summing 100 million numbers has parallelism in the millions.",
             choices=("A serial loop of 100 million dependent steps",
                      "Summing 100 million numbers with a tree reduction",
                      "Summing 10 numbers",
                      "A Python loop that calls the GPU once per element"),
             correct="b"),
]
