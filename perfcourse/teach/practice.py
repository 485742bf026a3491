"""Unlimited drills: a fresh hand calculation from every seed.

``problem(kind, seed)`` draws round numbers from the seed, computes the reference answer
with :mod:`perfcourse.laws` and :mod:`perfcourse.roofline`, and keeps a worked explanation.
The learner answers with ``p.check(value)``. The same kind and seed always give the same
problem, so a notebook can print one in a checked cell; ``seed + 1`` gives the next one.

Examples
--------
>>> p = problem("little", seed=3)
>>> p.kind, p.unit
('little', 'requests')
>>> p.check(p.reference, quiet=True)
True
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass

from .. import units
from .._check import choice, positive_int, real
from ..models import datasheets, laws, roofline

__all__ = ["KINDS", "Problem", "problem", "drill_widget"]

KINDS = ("latency-throughput", "amdahl", "gustafson", "little", "efficiency", "roofline", "work-span")


@dataclass(frozen=True)
class Problem:
    """One drill: the prompt, the reference answer (in ``unit``) and how to get it."""

    kind: str
    seed: int
    prompt: str
    reference: float
    unit: str
    explanation: str
    rtol: float = 0.02

    def __str__(self):
        return f"[{self.kind} #{self.seed}] {self.prompt} (answer in {self.unit})"

    def check(self, answer, *, quiet=False):
        """Print right/wrong with the worked explanation; return True when ``answer`` is right.

        A number within ``rtol`` (relative) of the reference counts as right. ``None``
        (the placeholder in the lessons) prints a reminder and returns False.
        """
        if answer is None:
            if not quiet:
                print("No answer yet: put your number in place of None and run the cell again.")
            return False
        value = real("answer", answer)
        if not isinstance(value, float):
            raise TypeError(f"answer must be a single number in {self.unit}; got {answer!r}")
        right = math.isclose(value, self.reference, rel_tol=self.rtol, abs_tol=1e-12)
        if not quiet:
            if right:
                print(f"Right: {self.reference:.4g} {self.unit}.")
            else:
                print(f"Not quite: you gave {value:g}; the answer is {self.reference:.4g} {self.unit} "
                      f"(accepted within {self.rtol:.0%}).")
            print(f"Worked: {self.explanation}")
        return right

    def explain(self):
        """Print the worked explanation and return the reference answer."""
        print(f"{self.reference:.4g} {self.unit}. Worked: {self.explanation}")
        return self.reference


def problem(kind, seed):
    """A drill of ``kind`` (one of :data:`KINDS`, or ``"any"``) drawn from ``seed`` (an int >= 0).

    Examples
    --------
    >>> print(problem("amdahl", 0).prompt)
    A program spends 10% of its one-worker time in a serial step; the rest parallelizes perfectly. What speedup does Amdahl's law give on 8 workers?
    >>> problem("roofline", 1) == problem("roofline", 1)
    True
    >>> problem("queue", 1)
    Traceback (most recent call last):
    ...
    ValueError: kind must be one of 'latency-throughput', 'amdahl', 'gustafson', 'little', 'efficiency', 'roofline', 'work-span', 'any'; got 'queue'
    """  # noqa: E501
    if not isinstance(kind, str):
        raise TypeError(f"kind must be a string, one of {', '.join(KINDS)} or 'any'; got {kind!r}")
    choice("kind", kind, KINDS + ("any",))
    seed = positive_int("seed", seed, low=0)
    if kind == "any":
        kind = random.Random(f"any:{seed}").choice(KINDS)
    rng = random.Random(f"{kind}:{seed}")
    prompt, reference, unit, explanation = _MAKERS[kind](rng)
    return Problem(kind, seed, prompt, float(reference), unit, explanation)


def _latency_throughput(rng):
    if rng.random() < 0.4:
        ms = rng.choice([4, 5, 8, 10, 12.5, 20, 25, 40, 50])
        ref = laws.batch_throughput(1, ms / 1e3)
        return (f"One request takes {ms:g} ms and requests are served one at a time. "
                "At most how many requests per second can be served?", ref, "req/s",
                f"one at a time, throughput = 1 / latency = 1 / {ms / 1e3:g} s = {ref:.4g} req/s.")
    b, ms = rng.choice([4, 8, 16, 32, 64]), rng.choice([15, 20, 25, 30, 40, 60, 80])
    ref = laws.batch_throughput(b, ms / 1e3)
    return (f"A batch of {b} requests is served together in {ms} ms. What is the throughput?", ref, "req/s",
            f"throughput = batch / batch latency = {b} / {ms / 1e3:g} s = {ref:.4g} req/s; yet each "
            f"request still waits at least {ms} ms, plus any time queued before its batch starts.")


def _amdahl(rng):
    s, n = rng.choice([0.01, 0.02, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3]), rng.choice([2, 4, 8, 16, 32, 64, 128])
    opening = f"A program spends {s:.0%} of its one-worker time in a serial step; the rest parallelizes perfectly."
    limit = laws.amdahl_limit(s)
    if rng.random() < 0.25:
        return (f"{opening} What is the largest speedup any number of workers can give?", limit, "x",
                f"even if the parallel part took no time at all, the serial {s:.0%} remains: "
                f"speedup <= 1/s = 1/{s:g} = {limit:.4g}x.")
    ref = laws.amdahl_speedup(s, n)
    return (f"{opening} What speedup does Amdahl's law give on {n} workers?", ref, "x",
            f"speedup = 1 / (s + (1 - s)/n) = 1 / ({s:g} + {1 - s:g}/{n}) = 1 / {s + (1 - s) / n:.4g} "
            f"= {ref:.4g}x: {laws.efficiency(ref, n):.0%} of the ideal {n}x, and under the ceiling 1/s = {limit:.4g}x.")


def _gustafson(rng):
    s, n = rng.choice([0.02, 0.05, 0.1, 0.2, 0.3]), rng.choice([4, 8, 16, 32, 64, 256])
    ref = laws.gustafson_speedup(s, n)
    return (f"A job is scaled up with the machine so that each of {n} workers keeps the same share of "
            f"parallel work; on {n} workers it spends {s:.0%} of its time in serial work. "
            "What scaled speedup does Gustafson's law give?", ref, "x",
            f"scaled speedup = s + (1 - s) n = {s:g} + {1 - s:g} x {n} = {ref:.4g}x: one worker would need "
            f"{ref:.4g} times as long for the scaled-up job (weak scaling).")


def _little(rng):
    lam = rng.choice([50, 100, 200, 400, 500, 1000, 2000])
    w_ms = rng.choice([10, 20, 25, 40, 50, 80, 100, 200])
    in_flight = laws.littles_law(arrival_rate=lam, time_in_system=w_ms / 1e3)
    variant = rng.choice(["L", "L", "W", "lambda"])
    if variant == "W":
        ref = laws.littles_law(in_flight=in_flight, arrival_rate=lam) * 1e3
        return (f"On average {in_flight:g} requests are in flight while {lam} req/s arrive (and leave). "
                "How long does a request spend in the system on average?", ref, "ms",
                f"W = L / lambda = {in_flight:g} / {lam} req/s = {ref / 1e3:g} s = {ref:.4g} ms.")
    if variant == "lambda":
        ref = laws.littles_law(in_flight=in_flight, time_in_system=w_ms / 1e3)
        return (f"A server keeps {in_flight:g} requests in flight and each spends {w_ms} ms in the system. "
                "What throughput does that sustain?", ref, "req/s",
                f"lambda = L / W = {in_flight:g} / {w_ms / 1e3:g} s = {ref:.4g} req/s.")
    return (f"A service handles {lam} req/s and a request spends {w_ms} ms in the system on average. "
            "How many requests are in flight on average?", in_flight, "requests",
            f"L = lambda W = {lam} req/s x {w_ms / 1e3:g} s = {in_flight:.4g} requests; much less concurrency "
            "starves the service, much more only lengthens the queue.")


def _efficiency(rng):
    n, target = rng.choice([2, 4, 8, 16, 32]), rng.choice([0.5, 0.6, 0.7, 0.75, 0.8, 0.9, 0.95])
    t1 = rng.choice([60, 100, 120, 200, 300, 600])
    tn = round(t1 / (n * target), 1)
    s = laws.speedup(t1, tn)
    if rng.random() < 0.3:
        e = laws.karp_flatt(s, n)
        return (f"A run takes {t1} s on 1 worker and {tn:g} s on {n}. What serial fraction does the "
                "Karp-Flatt metric give, in percent?", 100 * e, "%",
                f"speedup = {t1} / {tn:g} = {s:.4g}; e = (1/speedup - 1/n) / (1 - 1/n) = "
                f"({1 / s:.4g} - {1 / n:.4g}) / {1 - 1 / n:.4g} = {e:.4g}, i.e. {100 * e:.3g}%.")
    ref = 100 * laws.efficiency(s, n)
    return (f"A job takes {t1} s on 1 GPU and {tn:g} s on {n} GPUs. What is the strong-scaling efficiency, "
            "in percent?", ref, "%",
            f"speedup = {t1} s / {tn:g} s = {s:.4g}x; efficiency = speedup / n = {s:.4g} / {n} = {ref:.3g}%. "
            "The rest goes to serial work, communication and imbalance.")


# The drills' kernels are float32, so each device is held to its float32 peak (never a bf16
# tensor-core figure): rows of the course's datasheet table, each naming its source.
_DEVICE_NAMES = ("H200", "H100 SXM", "A100 80GB SXM", "L4", "RTX 4090")


def _devices():
    rows = [datasheets.datasheet(name) for name in _DEVICE_NAMES]
    return [(f"an NVIDIA {d.name}", d.fp32, d.memory_bandwidth) for d in rows]


def _roofline_kernel(rng):
    k = rng.choice([24, 26, 28])
    n, m = 2 ** k, rng.choice([1024, 2048, 4096, 8192])
    return rng.choice([
        (f"adds two float32 vectors of 2^{k} elements (c = a + b: 1 FLOP, 12 bytes per element)", n, 12 * n),
        (f"computes a float32 triad of 2^{k} elements (a = b + s*c: 2 FLOPs, 12 bytes per element)", 2 * n,
         12 * n),
        (f"multiplies two {m}x{m} float32 matrices (2 x {m}^3 FLOPs; each of the three matrices moved once, "
         "4 bytes per element)", 2 * m ** 3, 3 * 4 * m ** 2),
    ])


def _roofline(rng):
    where, peak, bw = rng.choice(_devices())
    what, flops, moved = _roofline_kernel(rng)
    t = roofline.roofline_time(flops, moved, peak, bw)
    unit, seconds = units.time_scale(t)
    scale = 1 / seconds
    side = roofline.bound(flops, moved, peak, bw)
    intensity, ridge = roofline.arithmetic_intensity(flops, moved), roofline.ridge_point(peak, bw)
    bw_text = f"{bw / 1e12:g} TB/s" if bw >= 1e12 else f"{bw / 1e9:g} GB/s"
    return (f"On {where} with peaks of {peak / 1e12:g} TFLOP/s and {bw_text}, a kernel {what}. "
            "What is the roofline lower bound on its time?", t * scale, unit,
            f"compute time = {flops:.4g} FLOP / {peak:.4g} FLOP/s = {flops / peak * scale:.4g} {unit}; memory "
            f"time = {moved:.4g} B / {bw:.4g} B/s = {moved / bw * scale:.4g} {unit}; the bound is the larger, "
            f"{t * scale:.4g} {unit}: {side}-bound, since the intensity {intensity:.3g} FLOP/byte is "
            f"{'below' if side == 'memory' else 'at or above'} the ridge point {ridge:.3g} FLOP/byte.")


def _work_span(rng):
    if rng.random() < 0.5:
        k = rng.choice([10, 16, 20, 24, 30])
        ref = laws.parallelism(2 ** k - 1, k)
        return (f"A tree reduction sums N = 2^{k} numbers: N - 1 additions arranged in log2 N = {k} levels. "
                "What is its average available parallelism T1/T_inf?", ref, "x",
                f"T1 = {2 ** k - 1} additions, T_inf = {k} levels, parallelism = T1 / T_inf = {ref:.4g}: "
                "the work is still O(N), only the span shrank to O(log N).")
    work, span = rng.choice([100, 200, 500, 1000]), rng.choice([1, 2, 5, 10, 20])
    p = rng.choice([4, 8, 16, 64, 256])
    ref = laws.brent_bound(work, span, p)
    return (f"A computation has work T1 = {work} ms and span T_inf = {span} ms. What upper bound does Brent's "
            f"theorem give for its time on {p} workers under a greedy scheduler?", ref, "ms",
            f"T_p <= T1/p + T_inf = {work}/{p} + {span} = {ref:.4g} ms; no schedule beats "
            f"max(T1/p, T_inf) = {max(work / p, span):.4g} ms.")


_MAKERS = {"latency-throughput": _latency_throughput, "amdahl": _amdahl, "gustafson": _gustafson,
           "little": _little, "efficiency": _efficiency, "roofline": _roofline, "work-span": _work_span}


def drill_widget(kind="any", seed=0):
    """A kind dropdown, a "New problem" button, an answer box and a "Check" button.

    Each press of "New problem" draws the next seed; "Check" reads the box as a number
    and prints right/wrong with the worked explanation.
    """
    import ipywidgets as widgets

    choice("kind", kind, KINDS + ("any",))
    state = {"seed": positive_int("seed", seed, low=0), "problem": None}
    pick = widgets.Dropdown(description="kind", options=KINDS + ("any",), value=kind)
    new = widgets.Button(description="New problem", icon="refresh")
    box = widgets.Text(description="answer", placeholder="a number")
    grade = widgets.Button(description="Check", button_style="primary")
    out = widgets.Output()

    def draw(_change=None):
        state["problem"] = problem(pick.value, state["seed"])
        box.value = ""
        out.clear_output()
        with out:
            print(state["problem"])

    def next_problem(_button):
        state["seed"] += 1
        draw()

    def check(_button):
        with out:
            try:
                state["problem"].check(float(box.value))
            except ValueError:
                print(f"Type a number in {state['problem'].unit} (e.g. 4.7); got {box.value!r}.")

    pick.observe(draw, names="value")
    new.on_click(next_problem)
    grade.on_click(check)
    draw()
    return widgets.VBox([widgets.HBox([pick, new]), widgets.HBox([box, grade]), out])
