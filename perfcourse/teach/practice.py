"""Unlimited drills: a fresh hand calculation from every seed.

``problem(kind, seed)`` draws round numbers from the seed, computes the reference answer
with :mod:`perfcourse.models.laws` and :mod:`perfcourse.models.roofline`, and keeps a worked explanation.
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
from .._lang import _, tidy
from ..models import datasheets, laws, roofline
from .selftest import Checked

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
        return f"[{self.kind} #{self.seed}] {self.prompt}" + _(" (answer in {unit})").format(unit=self.unit)

    def check(self, answer, *, quiet=False):
        """Print right/wrong with the worked explanation; a :class:`~perfcourse.teach.selftest.Checked`, true
        when ``answer`` is right (a notebook shows nothing for it: the printed sentence is the verdict).

        A number within ``rtol`` (relative) of the reference counts as right. ``None``
        (the placeholder in the lessons) prints a reminder and returns a false one.
        """
        if answer is None:
            if not quiet:
                print(_("No answer yet: put your number in place of None and run the cell again."))
            return Checked(False)
        value = real("answer", answer)
        if not isinstance(value, float):
            raise TypeError(f"answer must be a single number in {self.unit}; got {answer!r}")
        right = math.isclose(value, self.reference, rel_tol=self.rtol, abs_tol=1e-12)
        if not quiet:
            if right:
                print(_("Right: {reference:.4g} {unit}.").format(reference=self.reference, unit=self.unit))
            else:
                print(_("Not quite: you gave {value:g}; the answer is {reference:.4g} {unit} (accepted within "
                        "{rtol:.0%}).").format(value=value, reference=self.reference, unit=self.unit, rtol=self.rtol))
            print(_("Worked: {explanation}").format(explanation=self.explanation))
        return Checked(right)

    def explain(self):
        """Print the worked explanation and return the reference answer."""
        print(_("{reference:.4g} {unit}. Worked: {explanation}").format(reference=self.reference, unit=self.unit,
                                                                        explanation=self.explanation))
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
        v = {"ms": ms, "s": ms / 1e3, "ref": ref}
        return (_("One request takes {ms:g} ms and requests are served one at a time. At most how many requests per "
                  "second can be served?").format(**v), ref, "req/s",
                _("one at a time, throughput = 1 / latency = 1 / {s:g} s = {ref:.4g} req/s.").format(**v))
    b, ms = rng.choice([4, 8, 16, 32, 64]), rng.choice([15, 20, 25, 30, 40, 60, 80])
    ref = laws.batch_throughput(b, ms / 1e3)
    v = {"b": b, "ms": ms, "s": ms / 1e3, "ref": ref}
    return (_("A batch of {b} requests is served together in {ms} ms. What is the throughput?").format(**v), ref,
            "req/s", _("throughput = batch / batch latency = {b} / {s:g} s = {ref:.4g} req/s; yet each request still "
                       "waits at least {ms} ms, plus any time queued before its batch starts.").format(**v))


def _amdahl(rng):
    s, n = rng.choice([0.01, 0.02, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3]), rng.choice([2, 4, 8, 16, 32, 64, 128])
    opening = _("A program spends {s:.0%} of its one-worker time in a serial step; the rest parallelizes perfectly.")
    limit = laws.amdahl_limit(s)
    v = {"s": s, "n": n, "limit": limit, "rest": 1 - s}
    if rng.random() < 0.25:
        return ((opening + _(" What is the largest speedup any number of workers can give?")).format(**v), limit, "x",
                _("even if the parallel part took no time at all, the serial {s:.0%} remains: speedup <= 1/s = 1/{s:g} "
                  "= {limit:.4g}x.").format(**v))
    ref = laws.amdahl_speedup(s, n)
    v.update(ref=ref, t=s + (1 - s) / n, eff=laws.efficiency(ref, n))
    return ((opening + _(" What speedup does Amdahl's law give on {n} workers?")).format(**v), ref, "x",
            _("speedup = 1 / (s + (1 - s)/n) = 1 / ({s:g} + {rest:g}/{n}) = 1 / {t:.4g} = {ref:.4g}x: {eff:.0%} of "
              "the ideal {n}x, and under the ceiling 1/s = {limit:.4g}x.").format(**v))


def _gustafson(rng):
    s, n = rng.choice([0.02, 0.05, 0.1, 0.2, 0.3]), rng.choice([4, 8, 16, 32, 64, 256])
    ref = laws.gustafson_speedup(s, n)
    v = {"s": s, "n": n, "ref": ref, "rest": 1 - s}
    return (_("A job is scaled up with the machine so that each of {n} workers keeps the same share of parallel work; "
              "on {n} workers it spends {s:.0%} of its time in serial work. What scaled speedup does Gustafson's law "
              "give?").format(**v), ref, "x",
            _("scaled speedup = s + (1 - s) n = {s:g} + {rest:g} x {n} = {ref:.4g}x: one worker would need {ref:.4g} "
              "times as long for the scaled-up job (weak scaling).").format(**v))


def _little(rng):
    lam = rng.choice([50, 100, 200, 400, 500, 1000, 2000])
    w_ms = rng.choice([10, 20, 25, 40, 50, 80, 100, 200])
    in_flight = laws.littles_law(arrival_rate=lam, time_in_system=w_ms / 1e3)
    variant = rng.choice(["L", "L", "W", "lambda"])
    v = {"lam": lam, "w_ms": w_ms, "w_s": w_ms / 1e3, "L": in_flight}
    if variant == "W":
        ref = laws.littles_law(in_flight=in_flight, arrival_rate=lam) * 1e3
        v.update(ref=ref, ref_s=ref / 1e3)
        return (_("On average {L:g} requests are in flight while {lam} req/s arrive (and leave). How long does a "
                  "request spend in the system on average?").format(**v), ref, "ms",
                _("W = L / lambda = {L:g} / {lam} req/s = {ref_s:g} s = {ref:.4g} ms.").format(**v))
    if variant == "lambda":
        ref = v["ref"] = laws.littles_law(in_flight=in_flight, time_in_system=w_ms / 1e3)
        return (_("A server keeps {L:g} requests in flight and each spends {w_ms} ms in the system. What throughput "
                  "does that sustain?").format(**v), ref, "req/s",
                _("lambda = L / W = {L:g} / {w_s:g} s = {ref:.4g} req/s.").format(**v))
    return (_("A service handles {lam} req/s and a request spends {w_ms} ms in the system on average. How many "
              "requests are in flight on average?").format(**v), in_flight, "requests",
            _("L = lambda W = {lam} req/s x {w_s:g} s = {L:.4g} requests; much less concurrency starves the service, "
              "much more only lengthens the queue.").format(**v))


def _efficiency(rng):
    n, target = rng.choice([2, 4, 8, 16, 32]), rng.choice([0.5, 0.6, 0.7, 0.75, 0.8, 0.9, 0.95])
    t1 = rng.choice([60, 100, 120, 200, 300, 600])
    tn = round(t1 / (n * target), 1)
    s = laws.speedup(t1, tn)
    v = {"t1": t1, "tn": tn, "n": n, "s": s}
    if rng.random() < 0.3:
        e = laws.karp_flatt(s, n)
        v.update(e=e, inv_s=1 / s, inv_n=1 / n, rest=1 - 1 / n, pct=100 * e)
        return (_("A run takes {t1} s on 1 worker and {tn:g} s on {n}. What serial fraction does the Karp-Flatt "
                  "metric give, in percent?").format(**v), 100 * e, "%",
                _("speedup = {t1} / {tn:g} = {s:.4g}; e = (1/speedup - 1/n) / (1 - 1/n) = ({inv_s:.4g} - {inv_n:.4g}) "
                  "/ {rest:.4g} = {e:.4g}, i.e. {pct:.3g}%.").format(**v))
    ref = v["ref"] = 100 * laws.efficiency(s, n)
    return (_("A job takes {t1} s on 1 GPU and {tn:g} s on {n} GPUs. What is the strong-scaling efficiency, in "
              "percent?").format(**v), ref, "%",
            _("speedup = {t1} s / {tn:g} s = {s:.4g}x; efficiency = speedup / n = {s:.4g} / {n} = {ref:.3g}%. The "
              "rest goes to serial work, communication and imbalance.").format(**v))


# The drills' kernels are float32, so each device is held to its float32 peak (never a bf16
# tensor-core figure): rows of the course's datasheet table, each naming its source.
_DEVICE_NAMES = ("H200", "H100 SXM", "A100 80GB SXM", "L4", "RTX 4090")


def _devices():
    rows = [datasheets.datasheet(name) for name in _DEVICE_NAMES]
    return [(_("an NVIDIA {name}").format(name=d.name), d.fp32, d.memory_bandwidth) for d in rows]


def _roofline_kernel(rng):
    k = rng.choice([24, 26, 28])
    n, m = 2 ** k, rng.choice([1024, 2048, 4096, 8192])
    return rng.choice([
        (_("adds two float32 vectors of 2^{k} elements (c = a + b: 1 FLOP, 12 bytes per element)").format(k=k), n,
         12 * n),
        (_("computes a float32 triad of 2^{k} elements (a = b + s*c: 2 FLOPs, 12 bytes per element)").format(k=k),
         2 * n, 12 * n),
        (_("multiplies two {m}x{m} float32 matrices (2 x {m}^3 FLOPs; each of the three matrices moved once, 4 bytes "
           "per element)").format(m=m), 2 * m ** 3, 3 * 4 * m ** 2),
    ])


def _roofline(rng):
    where, peak, bw = rng.choice(_devices())
    what, flops, moved = _roofline_kernel(rng)
    t = roofline.roofline_time(flops, moved, peak, bw)
    unit, seconds = units.time_scale(t)
    scale = 1 / seconds
    bw_text = units.si(bw, "B/s", digits=4)
    v = {"where": where, "tflops": peak / 1e12, "bw_text": bw_text, "what": what, "flops": flops, "peak": peak,
         "t_c": flops / peak * scale, "unit": unit, "moved": moved, "bw": bw, "t_m": moved / bw * scale,
         "t": t * scale, "intensity": roofline.arithmetic_intensity(flops, moved),
         "ridge": roofline.ridge_point(peak, bw)}
    times = _("compute time = {flops:.4g} FLOP / {peak:.4g} FLOP/s = {t_c:.4g} {unit}; memory time = {moved:.4g} B / "
              "{bw:.4g} B/s = {t_m:.4g} {unit}; the bound is the larger, {t:.4g} {unit}: ")
    if roofline.bound(flops, moved, peak, bw) == "memory":
        side = _("memory-bound, since the intensity {intensity:.3g} FLOP/byte is below the ridge point {ridge:.3g} "
                 "FLOP/byte.")
    else:
        side = _("compute-bound, since the intensity {intensity:.3g} FLOP/byte is at or above the ridge point "
                 "{ridge:.3g} FLOP/byte.")
    return (tidy(_("On {where} with peaks of {tflops:g} TFLOP/s and {bw_text}, a kernel {what}. What is the roofline "
                   "lower bound on its time?").format(**v)), t * scale, unit, tidy((times + side).format(**v)))


def _work_span(rng):
    if rng.random() < 0.5:
        k = rng.choice([10, 16, 20, 24, 30])
        ref = laws.parallelism(2 ** k - 1, k)
        v = {"k": k, "work": 2 ** k - 1, "ref": ref}
        return (_("A tree reduction sums N = 2^{k} numbers: N - 1 additions arranged in log2 N = {k} levels. What is "
                  "its average available parallelism T1/T_inf?").format(**v), ref, "x",
                _("T1 = {work} additions, T_inf = {k} levels, parallelism = T1 / T_inf = {ref:.4g}: the work is still "
                  "O(N), only the span shrank to O(log N).").format(**v))
    work, span = rng.choice([100, 200, 500, 1000]), rng.choice([1, 2, 5, 10, 20])
    p = rng.choice([4, 8, 16, 64, 256])
    ref = laws.brent_bound(work, span, p)
    v = {"work": work, "span": span, "p": p, "ref": ref, "floor": max(work / p, span)}
    return (_("A computation has work T1 = {work} ms and span T_inf = {span} ms. What upper bound does Brent's "
              "theorem give for its time on {p} workers under a greedy scheduler?").format(**v), ref, "ms",
            _("T_p <= T1/p + T_inf = {work}/{p} + {span} = {ref:.4g} ms; no schedule beats max(T1/p, T_inf) = "
              "{floor:.4g} ms.").format(**v))


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
    pick = widgets.Dropdown(description=_("kind"), options=KINDS + ("any",), value=kind)
    new = widgets.Button(description=_("New problem"), icon="refresh")
    box = widgets.Text(description=_("answer"), placeholder=_("a number"))
    grade = widgets.Button(description=_("Check"), button_style="primary")
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
                print(_("Type a number in {unit} (e.g. 4.7); got {given}.").format(unit=state["problem"].unit,
                                                                                   given=repr(box.value)))

    pick.observe(draw, names="value")
    new.on_click(next_problem)
    grade.on_click(check)
    draw()
    return widgets.VBox([widgets.HBox([pick, new]), widgets.HBox([box, grade]), out])
