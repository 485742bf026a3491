"""The course's terms in English beside the Chinese terms of the original lecture notes.

The English (each term, its lesson, its definition and other spellings) is here; the Chinese is in
the glossary catalog, ``perfcourse/locale/zh/LC_MESSAGES/glossary.po``, which ``perfcourse translate``
keeps in line with this list: per term an entry ``"<key>#names"`` whose translation holds its Chinese
forms (``" / "`` between them) and an entry ``"<key>#definition"``.

``lookup(text)`` finds terms in either language (case-insensitive, partial match);
``perfcourse glossary TERM`` does the same from a shell, and with no TERM lists them all
(see :mod:`perfcourse.cli.glossary`). :func:`describe` and :func:`table` speak the learner's
language (see :mod:`perfcourse._lang`).

Examples
--------
>>> [t.english for t in lookup("critical")]
['critical path']
>>> lookup("关键路径")[0].english
'critical path'
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from .. import _lang
from .._lang import _, pad, width
from . import lessons as _lessons

__all__ = ["Term", "TERMS", "LESSONS", "CATALOG", "lookup", "describe", "table"]

CATALOG = "glossary"    # perfcourse/locale/<language>/LC_MESSAGES/glossary.po
# lesson number -> notebook stem, read from the one lesson list (perfcourse.teach.lessons)
LESSONS = {x.number: x.stem for x in _lessons.LESSONS}


@dataclass(frozen=True)
class Term:
    """One entry: the English term, the lesson that teaches it, a definition, other spellings.

    Its Chinese forms and its definition in the learner's language come from the glossary catalog.
    """

    english: str
    lesson: int
    definition: str
    aliases: tuple[str, ...] = ()

    @property
    def key(self):
        """The term's name in the catalog: ``"brent-s-bound"`` for ``Brent's bound``."""
        return re.sub(r"[^a-z0-9]+", "-", self.english.lower()).strip("-")

    @property
    def chinese(self):
        """The Chinese forms of the term, from the glossary catalog; ``()`` while the catalog lacks them."""
        forms = _lang.text(CATALOG, self.english, f"{self.key}#names", lang="zh")
        return () if forms == self.english else tuple(f.strip() for f in forms.split(" / ") if f.strip())

    def meaning(self, lang=None):
        """The definition in ``lang`` (default: the learner's language), English where it is untranslated."""
        return _lang.text(CATALOG, self.definition, f"{self.key}#definition", lang=lang)

    @property
    def notebook(self):
        return _lessons.lesson(self.lesson).notebook


def _t(english, lesson, definition, aliases=()):
    return Term(english, lesson, definition, tuple(aliases))


TERMS = (
    _t("workload", 0, "The exact job being timed: its inputs, sizes and settings; a timing "
       "without it cannot be compared with another."),
    _t("claim card", 0, "A one-line record of a performance claim naming workload, batch, "
       "shape, dtype, device and percentile, so that two timings can be compared fairly."),
    _t("latency", 1, "The time one task takes from start to finish, in seconds."),
    _t("throughput", 1, "Tasks completed per unit time, e.g. requests/s or tokens/s."),
    _t("bandwidth", 1, "Bytes moved per unit time between memory and the processor, in bytes/s."),
    _t("compute rate", 1, "Arithmetic operations completed per unit time, in FLOP/s."),
    _t("efficiency (of peak)", 1, "The fraction of a theoretical peak that was reached, "
       "or the cost per unit of work such as joules per token.", ["% of peak"]),
    _t("batching", 1, "Serving several requests in one pass: usually more throughput, but "
       "each request waits longer.", ["batch size"]),
    _t("percentile", 1, "p99 is the latency that 99% of requests stay under; p50 is the "
       "median.", ["p50", "p95", "p99"]),
    _t("tail latency", 1, "The slow end of the latency distribution (p99 and beyond), "
       "which users of an online service notice first."),
    _t("service-level objective", 1, "A latency target a service promises, such as p99 under "
       "100 ms.", ["SLO"]),
    _t("time to target quality", 1, "Wall time a training run needs to reach a chosen "
       "accuracy; the offline counterpart of latency.", ["time-to-target-quality"]),
    _t("work", 2, "T1: the total number of operations, i.e. the time on a single "
       "processor.", ["T1", "T_1"]),
    _t("span", 2, "T_inf: the time with unlimited processors, set by the "
       "longest chain of dependent steps.", ["T_inf", "T∞", "depth"]),
    _t("critical path", 2, "The longest chain of operations that must run one after another; its "
       "length is the span."),
    _t("parallelism", 2, "T1 / T_inf: the average number of operations that could run "
       "at once."),
    _t("reduction", 2, "Combining N values into one (a sum, a max): O(N) work, but O(log N) span "
       "when done as a tree."),
    _t("data dependency", 2, "An operation that needs another's result and so cannot start "
       "before it, however many threads there are.", ["dependency", "dependent operation"]),
    _t("scan", 2, "All prefix results of an associative operation; turns some loops that "
       "look serial into O(log N) span.", ["prefix sum"]),
    _t("Brent's bound", 2, "A greedy schedule on p workers takes at most T1/p + T_inf.",
       ["Brent"]),
    _t("Amdahl's law", 3, "For a fixed-size problem, speedup(N) = 1/(s + "
       "(1-s)/N), never more than 1/s.", ["Amdahl"]),
    _t("serial fraction", 3, "s: the share of the one-worker time "
       "that cannot run in parallel.", ["serial part", "s"]),
    _t("speedup", 3, "Old time divided by new time for the same workload."),
    _t("kernel launch overhead", 3, "The fixed host-side cost of starting "
       "one GPU kernel, a few microseconds that add up like serial work.", ["launch"]),
    _t("kernel fusion", 3, "Merging several small kernels into one so that launches "
       "and round trips through memory disappear.", ["fused kernel", "fusion"]),
    _t("Karp-Flatt metric", 3, "The serial fraction recovered from a "
       "measured speedup: e = (1/speedup - 1/p) / (1 - 1/p).", ["Karp Flatt"]),
    _t("Gustafson's law", 4, "If the problem grows with the machine, scaled "
       "speedup = s + (1 - s) N keeps rising.", ["Gustafson"]),
    _t("scaled speedup", 4, "The speedup of a problem that was enlarged in "
       "proportion to the number of workers."),
    _t("strong scaling", 4, "Adding workers to a fixed total problem, so each worker gets less to "
       "do."),
    _t("weak scaling", 4, "Adding workers while each keeps a fixed share (batch or domain size), so "
       "the total problem grows."),
    _t("theoretical peak", 5, "The datasheet rate, valid only for a particular dtype, "
       "instruction, clock and well-shaped input.", ["peak"]),
    _t("attainable performance", 5, "The rate a real kernel can reach once bandwidth, "
       "dependencies, occupancy and shape are counted.", ["attainable rate"]),
    _t("roofline model", 5, "time >= max(FLOPs / peak compute, bytes / peak "
       "bandwidth), drawn as a roof over arithmetic intensity.", ["roofline"]),
    _t("arithmetic intensity", 5, "FLOPs performed per byte moved, in FLOP/byte."),
    _t("ridge point", 5, "The intensity where the memory roof meets the compute roof: peak "
       "FLOP/s divided by peak bytes/s."),
    _t("memory-bound", 5, "Limited by bytes moved: intensity below the ridge point.",
       ["memory bound", "memory stall"]),
    _t("compute-bound", 5, "Limited by arithmetic: intensity at or above the ridge point.",
       ["compute bound"]),
    _t("occupancy", 5, "How much of a GPU's capacity for resident threads is in use, which decides "
       "how well memory latency is hidden."),
    _t("Little's law", 6, "L = lambda W: requests in flight equal arrival rate "
       "times average time in the system.", ["Little"]),
    _t("in-flight requests", 6, "L: requests inside the system at once, queued or "
       "being served.", ["concurrency", "L"]),
    _t("arrival rate", 6, "lambda: requests arriving per second.", ["lambda"]),
    _t("time in system", 6, "W: the time a request spends inside, queueing plus "
       "service.", ["W", "average latency"]),
    _t("queueing", 6, "Time spent waiting for a busy server; it grows "
       "non-linearly as load approaches capacity.", ["queue", "waiting time"]),
    _t("capacity", 6, "The highest throughput a service can sustain; utilization is load "
       "divided by capacity."),
    _t("continuous batching", 6, "Admitting new requests into a running batch as others finish, "
       "to keep the device full."),
    _t("time to first token", 6, "Latency until a generative model returns its "
       "first output token.", ["TTFT"]),
    _t("scaling efficiency", 7, "speedup(N) / N: 1.0 is perfect, 6.4x on 8 GPUs is 0.8.",
       ["parallel efficiency"]),
    _t("communication", 7, "Data exchanged between workers (e.g. gradients), a cost that does not "
       "shrink as work is split further."),
    _t("all-reduce", 7, "A collective that sums buffers across all workers and gives "
       "every worker the result.", ["allreduce"]),
    _t("local and global batch", 7, "The batch on one device versus the sum over all "
       "devices; both must be reported with a scaling result.", ["global batch", "local batch"]),
    _t("gradient accumulation", 7, "Summing gradients over several micro-batches before one update, "
       "which changes the effective batch."),
    _t("load imbalance", 7, "Some workers get more to do than others, so all wait for the "
       "slowest.", ["imbalance"]),
    _t("end-to-end metric", 8, "The number the user cares about, measured over the whole "
       "pipeline rather than one kernel."),
    _t("correctness tolerance", 8, "How far an optimized result may differ from a trusted "
       "reference and still count as correct."),
    _t("wall time", 8, "Elapsed real time, split into CPU, copy, kernel, communication and "
       "queue.", ["wall-clock time"]),
    _t("baseline", 8, "The unchanged version every change is measured against."),
    _t("synchronization", 8, "Waiting until the device or other workers have finished, which also "
       "makes timings honest.", ["sync"]),
    _t("GPU utilization", 9, "The share of time the GPU was busy: it says nothing about "
       "useful work, memory stalls or user latency.", ["utilization"]),
    _t("hand calculation", 9, "A back-of-the-envelope estimate made with the laws before measuring."),
    _t("self-test", 10, "Questions answered in code and checked at once."),
    _t("prefill", 11, "A language model's first pass over the whole prompt: many tokens in one step, so "
       "it is compute-bound and sets the time to first token."),
    _t("decode", 11, "Generating one token per sequence per step, each step reading all the weights: "
       "memory-bound at small batch, so a larger batch raises tokens/s at nearly the same step time up to "
       "the crossover batch.",
       ["decode step"]),
    _t("KV cache", 11, "The keys and values of every earlier token, kept per sequence so that a decode "
       "step attends to them without recomputing; its memory limits how many sequences run at once.",
       ["key-value cache"]),
)


def _norm(text):
    text = unicodedata.normalize("NFKC", text).lower().replace("'", "").replace("’", "")
    for ch in "-_":
        text = text.replace(ch, " ")
    return " ".join(text.split())


def lookup(text):
    """Terms whose English, Chinese or alias forms contain ``text``; exact matches first.

    Examples
    --------
    >>> lookup("STRONG")[0].chinese
    ('strong scaling', '强扩展')
    >>> [t.english for t in lookup("扩展效率")]
    ['scaling efficiency']
    >>> lookup("p99")[0].english
    'percentile'
    """
    if not isinstance(text, str):
        raise TypeError(f"text must be a string in English or Chinese; got {text!r}")
    query = _norm(text)
    if not query:
        raise ValueError(_("text must contain a word to look up; got an empty string"))
    ranked = []
    for term in TERMS:
        names = [_norm(n) for n in (term.english, *term.chinese, *term.aliases)]
        if query in names:
            ranked.append((0, term))
        elif any(n.startswith(query) for n in names):
            ranked.append((1, term))
        elif any(query in n for n in names):
            ranked.append((2, term))
    return [term for rank, term in sorted(ranked, key=lambda r: r[0])]


def describe(term):
    """Three lines for one :class:`Term`: names, definition, where it is taught (in the learner's language)."""
    if not isinstance(term, Term):
        raise TypeError(f"term must be a glossary Term (from lookup); got {term!r}")
    taught = _("Taught in lesson {lesson:02d} ({notebook}).").format(lesson=term.lesson, notebook=term.notebook)
    return f"{term.english} · {' / '.join(term.chinese)}\n  {term.meaning()}\n  {taught}"


def table(terms=None):
    """An aligned text table: English, Chinese, lesson (every term when ``terms`` is None)."""
    terms = TERMS if terms is None else tuple(terms)
    rows = [(_("English"), _("Chinese"), _("lesson"))] + [(t.english, " / ".join(t.chinese), f"{t.lesson:02d}")
                                                          for t in terms]
    w0 = max(width(r[0]) for r in rows) + 2
    w1 = max(width(r[1]) for r in rows) + 2
    return "\n".join(pad(a, w0) + pad(b, w1) + c for a, b, c in rows)
