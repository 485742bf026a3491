"""The course's terms in English beside the Chinese terms of the original lecture notes.

``lookup(text)`` finds terms in either language (case-insensitive, partial match);
``perfcourse glossary TERM`` does the same from a shell, and with no TERM lists them all
(see :mod:`perfcourse.cli.glossary`).

Examples
--------
>>> [t.english for t in lookup("critical")]
['critical path']
>>> lookup("关键路径")[0].english
'critical path'
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass

from . import lessons as _lessons

__all__ = ["Term", "TERMS", "LESSONS", "lookup", "describe", "table"]

# lesson number -> notebook stem, read from the one lesson list (perfcourse.teach.lessons)
LESSONS = {x.number: x.stem for x in _lessons.LESSONS}


@dataclass(frozen=True)
class Term:
    """One entry: the English term, its Chinese forms, the lesson that teaches it, a definition."""

    english: str
    chinese: tuple[str, ...]
    lesson: int
    definition: str
    aliases: tuple[str, ...] = ()

    @property
    def notebook(self):
        return _lessons.lesson(self.lesson).notebook


def _t(english, chinese, lesson, definition, aliases=()):
    return Term(english, tuple(chinese.split(" / ")), lesson, definition, tuple(aliases))


TERMS = (
    _t("workload", "工作负载 / 负载", 0, "The exact job being timed: its inputs, sizes and settings; a timing "
       "without it cannot be compared with another."),
    _t("claim card", "性能声明 / 结论卡片", 0, "A one-line record of a performance claim naming workload, batch, "
       "shape, dtype, device and percentile, so that two timings can be compared fairly."),
    _t("latency", "延迟 / 时延", 1, "The time one task takes from start to finish, in seconds."),
    _t("throughput", "吞吐 / 吞吐量", 1, "Tasks completed per unit time, e.g. requests/s or tokens/s."),
    _t("bandwidth", "带宽", 1, "Bytes moved per unit time between memory and the processor, in bytes/s."),
    _t("compute rate", "计算速率 / 算力", 1, "Arithmetic operations completed per unit time, in FLOP/s."),
    _t("efficiency (of peak)", "效率 / 峰值利用率", 1, "The fraction of a theoretical peak that was reached, "
       "or the cost per unit of work such as joules per token.", ["% of peak"]),
    _t("batching", "批处理 / 批量", 1, "Serving several requests in one pass: usually more throughput, but "
       "each request waits longer.", ["batch size"]),
    _t("percentile", "百分位数 / 分位数", 1, "p99 is the latency that 99% of requests stay under; p50 is the "
       "median.", ["p50", "p95", "p99"]),
    _t("tail latency", "尾延迟 / 长尾延迟", 1, "The slow end of the latency distribution (p99 and beyond), "
       "which users of an online service notice first."),
    _t("service-level objective", "服务等级目标", 1, "A latency target a service promises, such as p99 under "
       "100 ms.", ["SLO"]),
    _t("time to target quality", "达到目标质量的时间", 1, "Wall time a training run needs to reach a chosen "
       "accuracy; the offline counterpart of latency.", ["time-to-target-quality"]),
    _t("work", "工作量 / 总工作量", 2, "T1: the total number of operations, i.e. the time on a single "
       "processor.", ["T1", "T_1"]),
    _t("span", "关键路径（span） / 关键路径长度", 2, "T_inf: the time with unlimited processors, set by the "
       "longest chain of dependent steps.", ["T_inf", "T∞", "depth"]),
    _t("critical path", "关键路径", 2, "The longest chain of operations that must run one after another; its "
       "length is the span."),
    _t("parallelism", "并行度 / 可用并行度", 2, "T1 / T_inf: the average number of operations that could run "
       "at once."),
    _t("reduction", "归约", 2, "Combining N values into one (a sum, a max): O(N) work, but O(log N) span "
       "when done as a tree."),
    _t("data dependency", "数据依赖 / 依赖", 2, "An operation that needs another's result and so cannot start "
       "before it, however many threads there are.", ["dependency", "dependent operation"]),
    _t("scan", "扫描 / 前缀和", 2, "All prefix results of an associative operation; turns some loops that "
       "look serial into O(log N) span.", ["prefix sum"]),
    _t("Brent's bound", "Brent 定理", 2, "A greedy schedule on p workers takes at most T1/p + T_inf.",
       ["Brent"]),
    _t("Amdahl's law", "阿姆达尔定律 / Amdahl 定律", 3, "For a fixed-size problem, speedup(N) = 1/(s + "
       "(1-s)/N), never more than 1/s.", ["Amdahl"]),
    _t("serial fraction", "串行比例 / 串行部分 / 无法并行的时间比例", 3, "s: the share of the one-worker time "
       "that cannot run in parallel.", ["serial part", "s"]),
    _t("speedup", "加速比", 3, "Old time divided by new time for the same workload."),
    _t("kernel launch overhead", "kernel 启动开销 / 内核启动开销", 3, "The fixed host-side cost of starting "
       "one GPU kernel, a few microseconds that add up like serial work.", ["launch"]),
    _t("kernel fusion", "算子融合 / 内核融合", 3, "Merging several small kernels into one so that launches "
       "and round trips through memory disappear.", ["fused kernel", "fusion"]),
    _t("Karp-Flatt metric", "Karp-Flatt 指标 / 实测串行比例", 3, "The serial fraction recovered from a "
       "measured speedup: e = (1/speedup - 1/p) / (1 - 1/p).", ["Karp Flatt"]),
    _t("Gustafson's law", "古斯塔夫森定律 / Gustafson 定律", 4, "If the problem grows with the machine, scaled "
       "speedup = s + (1 - s) N keeps rising.", ["Gustafson"]),
    _t("scaled speedup", "扩展加速比 / 规模加速比", 4, "The speedup of a problem that was enlarged in "
       "proportion to the number of workers."),
    _t("strong scaling", "强扩展", 4, "Adding workers to a fixed total problem, so each worker gets less to "
       "do."),
    _t("weak scaling", "弱扩展", 4, "Adding workers while each keeps a fixed share (batch or domain size), so "
       "the total problem grows."),
    _t("theoretical peak", "理论峰值 / 标称峰值", 5, "The datasheet rate, valid only for a particular dtype, "
       "instruction, clock and well-shaped input.", ["peak"]),
    _t("attainable performance", "可达性能", 5, "The rate a real kernel can reach once bandwidth, "
       "dependencies, occupancy and shape are counted.", ["attainable rate"]),
    _t("roofline model", "屋顶线模型 / Roofline 模型", 5, "time >= max(FLOPs / peak compute, bytes / peak "
       "bandwidth), drawn as a roof over arithmetic intensity.", ["roofline"]),
    _t("arithmetic intensity", "算术强度 / 计算强度", 5, "FLOPs performed per byte moved, in FLOP/byte."),
    _t("ridge point", "脊点 / 拐点", 5, "The intensity where the memory roof meets the compute roof: peak "
       "FLOP/s divided by peak bytes/s."),
    _t("memory-bound", "访存受限 / 带宽受限", 5, "Limited by bytes moved: intensity below the ridge point.",
       ["memory bound", "memory stall"]),
    _t("compute-bound", "计算受限", 5, "Limited by arithmetic: intensity at or above the ridge point.",
       ["compute bound"]),
    _t("occupancy", "占用率", 5, "How much of a GPU's capacity for resident threads is in use, which decides "
       "how well memory latency is hidden."),
    _t("Little's law", "利特尔法则 / Little 定律", 6, "L = lambda W: requests in flight equal arrival rate "
       "times average time in the system.", ["Little"]),
    _t("in-flight requests", "在途请求数 / 并发数", 6, "L: requests inside the system at once, queued or "
       "being served.", ["concurrency", "L"]),
    _t("arrival rate", "到达率", 6, "lambda: requests arriving per second.", ["lambda"]),
    _t("time in system", "平均系统时间 / 系统时间", 6, "W: the time a request spends inside, queueing plus "
       "service.", ["W", "average latency"]),
    _t("queueing", "排队 / 排队时间 / 等待时间", 6, "Time spent waiting for a busy server; it grows "
       "non-linearly as load approaches capacity.", ["queue", "waiting time"]),
    _t("capacity", "容量 / 服务能力", 6, "The highest throughput a service can sustain; utilization is load "
       "divided by capacity."),
    _t("continuous batching", "连续批处理", 6, "Admitting new requests into a running batch as others finish, "
       "to keep the device full."),
    _t("time to first token", "首 token 延迟 / 首字延迟", 6, "Latency until a generative model returns its "
       "first output token.", ["TTFT"]),
    _t("scaling efficiency", "扩展效率 / 并行效率", 7, "speedup(N) / N: 1.0 is perfect, 6.4x on 8 GPUs is 0.8.",
       ["parallel efficiency"]),
    _t("communication", "通信", 7, "Data exchanged between workers (e.g. gradients), a cost that does not "
       "shrink as work is split further."),
    _t("all-reduce", "全归约 / AllReduce", 7, "A collective that sums buffers across all workers and gives "
       "every worker the result.", ["allreduce"]),
    _t("local and global batch", "本地批大小 / 全局批大小", 7, "The batch on one device versus the sum over all "
       "devices; both must be reported with a scaling result.", ["global batch", "local batch"]),
    _t("gradient accumulation", "梯度累积", 7, "Summing gradients over several micro-batches before one update, "
       "which changes the effective batch."),
    _t("load imbalance", "负载不均衡", 7, "Some workers get more to do than others, so all wait for the "
       "slowest.", ["imbalance"]),
    _t("end-to-end metric", "端到端指标", 8, "The number the user cares about, measured over the whole "
       "pipeline rather than one kernel."),
    _t("correctness tolerance", "正确性容差", 8, "How far an optimized result may differ from a trusted "
       "reference and still count as correct."),
    _t("wall time", "墙钟时间", 8, "Elapsed real time, split into CPU, copy, kernel, communication and "
       "queue.", ["wall-clock time"]),
    _t("baseline", "基线", 8, "The unchanged version every change is measured against."),
    _t("synchronization", "同步", 8, "Waiting until the device or other workers have finished, which also "
       "makes timings honest.", ["sync"]),
    _t("GPU utilization", "GPU 利用率 / 利用率", 9, "The share of time the GPU was busy: it says nothing about "
       "useful work, memory stalls or user latency.", ["utilization"]),
    _t("hand calculation", "手算", 9, "A back-of-the-envelope estimate made with the laws before measuring."),
    _t("self-test", "自测", 10, "Questions answered in code and checked at once."),
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
    ('强扩展',)
    >>> [t.english for t in lookup("扩展效率")]
    ['scaling efficiency']
    >>> lookup("p99")[0].english
    'percentile'
    """
    if not isinstance(text, str):
        raise TypeError(f"text must be a string in English or Chinese; got {text!r}")
    query = _norm(text)
    if not query:
        raise ValueError("text must contain a word to look up; got an empty string")
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
    """Three lines for one :class:`Term`: names, definition, where it is taught."""
    if not isinstance(term, Term):
        raise TypeError(f"term must be a glossary Term (from lookup); got {term!r}")
    return (f"{term.english} · {' / '.join(term.chinese)}\n  {term.definition}\n"
            f"  Taught in lesson {term.lesson:02d} ({term.notebook}).")


def _width(text):
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


def _pad(text, width):
    return text + " " * max(width - _width(text), 0)


def table(terms=None):
    """An aligned text table: English, Chinese, lesson (every term when ``terms`` is None)."""
    terms = TERMS if terms is None else tuple(terms)
    rows = [("English", "Chinese", "lesson")] + [(t.english, " / ".join(t.chinese), f"{t.lesson:02d}")
                                                 for t in terms]
    w0 = max(_width(r[0]) for r in rows) + 2
    w1 = max(_width(r[1]) for r in rows) + 2
    return "\n".join(_pad(a, w0) + _pad(b, w1) + c for a, b, c in rows)
