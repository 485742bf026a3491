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
             "The recurrence x[t+1] = a x[t] + b over 16 steps is rewritten as a Hillis-Steele scan (4 rounds "
             "of combining affine maps, then one round applying them to x0). How many operations is that?",
             "15 + 14 + 12 + 8 combines plus 16 applications = 65 operations, against 16 for the loop: the scan "
             "buys a span of 5 instead of 16 with about four times the work.",
             reference=lambda: dag.scan_recurrence(16).work, rtol=0, unit="operations"),
    Question("l02-more-threads", 2,
             "A loop computes x[t+1] = a x[t] + b for a million steps. What do 1000 threads do for it, "
             "as written?",
             "Every step needs the previous one, so the span is the whole loop; extra threads wait. Only a "
             "reformulation (a scan over the affine maps) shortens the span, at the price of more work.",
             choices=("Make it about 1000 times faster",
                      "Nothing as written: each step waits for the one before; a scan reformulation is needed",
                      "Make it about log2(1000) = 10 times faster",
                      "Make it slower only because of cache misses"),
             correct="b"),
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
