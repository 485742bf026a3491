"""Verdict sentences: a measured speedup read against the model, and the widgets' summary lines.

Measured speedups change from machine to machine and run to run, so a lesson never writes
its verdict by hand: it prints the sentence these functions compute from the numbers on screen.
"""

from __future__ import annotations

import numpy as np

from .._check import real
from . import laws

__all__ = ["CLOSE_RATIO", "is_close", "closeness", "speedup_outcome", "speedup_verdict", "amdahl_line",
           "compare_line"]

# The course's one meaning of "close": two positive numbers whose ratio lies within 1/1.25 and 1.25
# (0.8x to 1.25x). Lesson 00 introduces it; every verdict uses it.
CLOSE_RATIO = 1.25


def is_close(value, reference, band=CLOSE_RATIO):
    """True when ``value / reference`` lies in ``[1/band, band]`` (both > 0).

    Examples
    --------
    >>> is_close(1.2, 1.0), is_close(0.79, 1.0), is_close(2.0, 1.0, band=2)
    (True, False, True)
    """
    v = real("value", value, low=0, low_open=True)
    r = real("reference", reference, low=0, low_open=True)
    band = real("band", band, low=1)
    return 1 / band <= v / r <= band


def closeness(ratio, band=CLOSE_RATIO):
    """Words for a ratio predicted/measured: ``"close (within 1.25x)"``, ``"2x too high"``, ``"3x too low"``.

    Examples
    --------
    >>> closeness(1.1), closeness(2.0), closeness(0.25)
    ('close (within 1.25x)', '2x too high', '4x too low')
    """
    ratio = real("ratio", ratio, low=0, low_open=True)
    if is_close(ratio, 1.0, band):
        return f"close (within {band:g}x)"
    return f"{ratio:.3g}x too high" if ratio > 1 else f"{1 / ratio:.3g}x too low"


def speedup_outcome(measured, predicted, *, band=CLOSE_RATIO):
    """Which way a measured speedup came out against the prediction.

    Returns ``"close"`` (measured/predicted within ``band``: the course's "close"), ``"slower"``
    (more workers took longer than one: speedup below 1x), ``"short"`` (faster than one
    worker but below the prediction) or ``"above"`` (above it). Measured speedups change
    from machine to machine and run to run, so lessons print the case that happened.

    Parameters
    ----------
    measured, predicted : float, > 0, speedups ``T1 / T_N`` (x)
    band : float >= 1, the ratio still counted as close (default ``CLOSE_RATIO``, 1.25)

    Examples
    --------
    >>> [speedup_outcome(m, 1.7) for m in (0.8, 1.2, 1.6, 2.2)]
    ['slower', 'short', 'close', 'above']
    """
    m, p = _scalar("measured", measured), _scalar("predicted", predicted)
    if is_close(m, p, band):
        return "close"
    if m < 1:
        return "slower"
    return "short" if m < p else "above"


def speedup_verdict(measured, predicted, n, *, band=CLOSE_RATIO):
    """One sentence reading a measured speedup on ``n`` workers against the predicted one.

    Examples
    --------
    >>> speedup_verdict(1.6, 1.7, 2)
    'measured 1.60x against a predicted 1.70x on 2 workers: close to the model (within 1.25x)'
    >>> speedup_verdict(0.8, 1.7, 2)
    'measured 0.80x against a predicted 1.70x on 2 workers: 2 workers were slower than one here'
    >>> speedup_verdict(0.97, 1.7, 2)
    'measured 0.97x against a predicted 1.70x on 2 workers: 2 workers were no faster than one here'
    """
    n = real("n", n, low=1, low_open=True)
    outcome = speedup_outcome(measured, predicted, band=band)
    near_one = abs(measured - 1) < 0.1
    reading = {"close": f"close to the model (within {band:g}x)",
               "slower": f"{n:g} workers were {'no faster than' if near_one else 'slower than'} one here",
               "short": f"{'barely faster' if near_one else 'faster'} than one worker, well short of the model",
               "above": "better than the model"}[outcome]
    return f"measured {measured:.2f}x against a predicted {predicted:.2f}x on {n:g} workers: {reading}"


def _scalar(name, value):
    if np.ndim(value) != 0:
        raise TypeError(f"{name} must be a single speedup > 0 (x), not a sequence; got {value!r}")
    return real(name, value, low=0, low_open=True)


def amdahl_line(serial_fraction, n):
    """The one-line summary the Amdahl widget prints (speedup with 2 decimals).

    Examples
    --------
    >>> amdahl_line(0.1, 8)
    's = 0.10, N = 8: speedup = 4.71x (limit 1/s = 10x)'
    >>> amdahl_line(0.0, 16)
    's = 0.00, N = 16: speedup = 16.00x (limit 1/s = inf)'
    """
    s = real("serial_fraction", serial_fraction, low=0, high=1)
    n = real("n", n, low=1)
    limit = laws.amdahl_limit(s)
    limit_text = "inf" if np.isinf(limit) else f"{limit:.4g}x"
    return f"s = {s:.2f}, N = {n:g}: speedup = {laws.amdahl_speedup(s, n):.2f}x (limit 1/s = {limit_text})"


def compare_line(serial_fraction, n):
    """One line with Amdahl's and Gustafson's speedup for the same ``s`` and ``N``.

    Examples
    --------
    >>> compare_line(0.1, 8)
    's = 0.10, N = 8: Amdahl (fixed problem) = 4.71x, Gustafson (scaled problem) = 7.30x'
    """
    s = real("serial_fraction", serial_fraction, low=0, high=1)
    n = real("n", n, low=1)
    return (f"s = {s:.2f}, N = {n:g}: Amdahl (fixed problem) = {laws.amdahl_speedup(s, n):.2f}x, "
            f"Gustafson (scaled problem) = {laws.gustafson_speedup(s, n):.2f}x")


# --- Verdicts that explain one measurement against its model (lessons 00-04) -------------------------
# Each returns the sentence for the case that happened, with the numbers that decide it, so a
# lesson prints its "why" from the run on screen instead of listing every possible outcome.

__all__ += ["time_against_model", "read_verdict", "nearest_bound", "bound_verdict", "karp_flatt_verdict",
            "call_count_verdict", "scaling_verdict"]


def _fmt_s(seconds):
    from ..units import format_seconds

    return format_seconds(seconds)


def _time(name, value):
    return _scalar(name, value) if np.ndim(value) == 0 else real(name, value, low=0, low_open=True)


def time_against_model(measured_s, model_s, band=CLOSE_RATIO):
    """Where a measured time fell against the model's: within the band, or how many times faster/slower.

    Examples
    --------
    >>> time_against_model(1.1e-3, 1e-3), time_against_model(1.27e-3, 2.88e-3), time_against_model(3e-3, 1e-3)
    ('within 1.25x of the model', '2.27x faster than the model', '3x slower than the model')
    """
    m, p = _time("measured_s", measured_s), _time("model_s", model_s)
    if is_close(m, p, band):
        return f"within {band:g}x of the model"
    return f"{p / m:.3g}x faster than the model" if m < p else f"{m / p:.3g}x slower than the model"


def read_verdict(measured_s, model_s, *, nbytes, bandwidth, what, cache_bytes=None, reused=False,
                 band=CLOSE_RATIO):
    """Why a memory-bound call took the time it did: the bandwidth it reached against the copy's.

    The model charges ``nbytes`` at the measured copy ``bandwidth`` (``model_s``). The sentence
    says which side of the model the measurement fell and by how much, the bandwidth the call
    reached, and, when it came in faster, how much of the data must have come from a cache:
    with a free cache, a share ``1 - measured/model`` of the bytes. ``reused`` says the same
    data is read on every call (a weight matrix), so the last-level cache (``cache_bytes``)
    can keep part of it between calls.

    Examples
    --------
    >>> print(read_verdict(1.27e-3, 2.88e-3, nbytes=64 * 2**20, bandwidth=23.3e9, what="W",
    ...                    cache_bytes=32 * 2**20, reused=True))
    W (64 MiB) was read in 1.27 ms, 2.27x faster than the model: 52.8 GB/s, 2.27x the copy bandwidth \
(23.3 GB/s). To be this fast, at least 56% of W must have come from a cache rather than from memory \
(more if the cache is not free). Every call reads the same W, and the 32 MiB last-level cache can keep \
up to 50% of it from one call to the next. That is less than the 56% needed, so memory also delivered \
more to this pure read than to the copy the model borrowed its bandwidth from.
    >>> print(read_verdict(2.7e-3, 2.88e-3, nbytes=64 * 2**20, bandwidth=23.3e9, what="W",
    ...                    cache_bytes=32 * 2**20, reused=True))
    W (64 MiB) was read in 2.7 ms, within 1.25x of the model: 24.9 GB/s, 1.07x the copy bandwidth \
(23.3 GB/s). The bytes and the copy bandwidth explain the time: W is 2x the 32 MiB last-level cache, \
so it streams from memory on every call.
    >>> print(read_verdict(8.0e-3, 2.88e-3, nbytes=64 * 2**20, bandwidth=23.3e9, what="W",
    ...                    cache_bytes=32 * 2**20, reused=True))
    W (64 MiB) was read in 8 ms, 2.78x slower than the model: 8.39 GB/s, 0.36x the copy bandwidth \
(23.3 GB/s). Something other than the bytes set the time: the routine kept fewer reads in flight than a \
copy does, or other programs shared the memory bus and the cores during the run. The 32 MiB last-level \
cache could keep at most 50% of W between calls, and that did not make up for it.
    """
    from ..units import format_bytes, si

    m, p = _time("measured_s", measured_s), _time("model_s", model_s)
    nbytes = real("nbytes", nbytes, low=0, low_open=True)
    bandwidth = real("bandwidth", bandwidth, low=0, low_open=True)
    if cache_bytes is not None:
        cache_bytes = real("cache_bytes", cache_bytes, low=0, low_open=True)
    achieved = nbytes / m
    text = (f"{what} ({format_bytes(nbytes)}) was read in {_fmt_s(m)}, {time_against_model(m, p, band)}: "
            f"{si(achieved, 'B/s')}, {achieved / bandwidth:.3g}x the copy bandwidth ({si(bandwidth, 'B/s')}).")
    cache = None if cache_bytes is None else format_bytes(cache_bytes)
    if is_close(m, p, band):
        text += " The bytes and the copy bandwidth explain the time"
        if cache_bytes is not None and nbytes > cache_bytes:
            return text + (f": {what} is {nbytes / cache_bytes:.3g}x the {cache} last-level cache, so it streams "
                           "from memory on every call.")
        if cache_bytes is not None:
            return text + (f", although {what} fits in the {cache} last-level cache: this machine's cache delivered "
                           "it no faster than memory delivers a copy.")
        return text + "."
    if m < p:
        needed = 1 - m / p
        text += (f" To be this fast, at least {needed:.0%} of {what} must have come from a cache rather than from "
                 "memory (more if the cache is not free).")
        if reused and cache_bytes is not None:
            share = min(1.0, cache_bytes / nbytes)
            text += (f" Every call reads the same {what}, and the {cache} last-level cache can keep up to "
                     f"{share:.0%} of it from one call to the next.")
            if share >= needed:
                return text + " The cache can explain the gap."
            return text + (f" That is less than the {needed:.0%} needed, so memory also delivered more to this pure "
                           "read than to the copy the model borrowed its bandwidth from.")
        return text + (" A pure read is cheaper than the copy the model borrowed its bandwidth from: the copy is "
                       "credited with 2 bytes per element, yet every line it writes is first read in as well.")
    text += (" Something other than the bytes set the time: the routine kept fewer reads in flight than a copy "
             "does, or other programs shared the memory bus and the cores during the run.")
    if reused and cache_bytes is not None and nbytes > cache_bytes:
        text += (f" The {cache} last-level cache could keep at most {cache_bytes / nbytes:.0%} of {what} between "
                 "calls, and that did not make up for it.")
    return text


def nearest_bound(seconds, uses):
    """The ceiling a run came nearest: ``(resource, achieved / ceiling)``.

    ``uses`` holds ``(resource, amount, ceiling, unit)`` per resource: the amount one run
    needs (FLOPs, bytes) and the measured ceiling (FLOP/s, bytes/s).

    Examples
    --------
    >>> nearest_bound(1e-3, [("compute", 1e6, 100e9, "FLOP/s"), ("memory", 8e6, 20e9, "B/s")])
    ('memory', 0.4)
    """
    t = _time("seconds", seconds)
    if not uses:
        raise ValueError("uses must list at least one (resource, amount, ceiling, unit)")
    best = None
    for resource, amount, ceiling, _unit in uses:
        fraction = real(f"amount of {resource}", amount, low=0) / t / real(f"ceiling of {resource}", ceiling,
                                                                             low=0, low_open=True)
        if best is None or fraction > best[1]:
            best = (resource, float(fraction))
    return best


def bound_verdict(seconds, uses, *, what="the run"):
    """Each resource's achieved rate against its measured ceiling, and the one the run came nearest.

    Examples
    --------
    >>> print(bound_verdict(8e-3, [("compute", 2 * 64 * 2**20, 91e9, "FLOP/s"),
    ...                            ("memory", 8 * 2**20, 20e9, "B/s"),
    ...                            ("in-cache passes", 4 * 4 * 64 * 2**20, 150e9, "B/s")], what="steps = 64"))
    steps = 64 reached 16.8 GFLOP/s of compute (18% of 91 GFLOP/s), 1.05 GB/s of memory (5% of 20 GB/s), \
134 GB/s of in-cache passes (89% of 150 GB/s): nearest to the in-cache passes ceiling, so that is what \
bounds it here.
    """
    from ..units import si

    t = _time("seconds", seconds)
    name, fraction = nearest_bound(t, uses)
    parts = [f"{si(amount / t, unit)} of {resource} ({amount / t / ceiling:.0%} of {si(ceiling, unit)})"
             for resource, amount, ceiling, unit in uses]
    if fraction >= 0.5:
        reading = f"nearest to the {name} ceiling, so that is what bounds it here"
    else:
        reading = (f"no ceiling is near (the nearest, {name}, at {fraction:.0%}): something the ceilings do not "
                   "measure set its time (fixed costs per call, dependencies, or cores it did not have to itself)")
    return f"{what} reached {', '.join(parts)}: {reading}."


def karp_flatt_verdict(serial_fraction, t1, tn, n, band=CLOSE_RATIO):
    """The serial fraction timed apart against the one Karp-Flatt reads off the measured speedup.

    ``serial_fraction`` is ``s`` from timing the serial step alone; ``t1`` and ``tn`` are the
    whole run's times on 1 and ``n`` workers. Karp-Flatt ``e = (1/psi - 1/n) / (1 - 1/n)``
    with ``psi = t1 / tn`` is the serial fraction Amdahl would need to explain the run; the
    gap ``(e - s) (1 - 1/n) t1`` is time the model has no term for.

    Examples
    --------
    >>> print(karp_flatt_verdict(0.26, 10e-3, 7.0e-3, 2))
    speedup 1.43x on 2 workers: Karp-Flatt e = 0.400 against s = 0.260 timed apart. The run lost as much \
as a serial part 1.54x larger would: 700 µs per run (7% of the one-worker time) went to something that \
is not the serial step and did not share out over the workers.
    >>> print(karp_flatt_verdict(0.26, 10e-3, 10.6e-3, 2))
    speedup 0.943x on 2 workers: Karp-Flatt e = 1.120, above 1, which no serial fraction can give (even s = 1 \
gives 1x). The 2-worker run took 600 µs longer than one worker: overhead that grows with the workers \
(handing out the work, waiting for a free core), not serial code.
    """
    s = real("serial_fraction", serial_fraction, low=0, high=1)
    t1, tn = _time("t1", t1), _time("tn", tn)
    n = real("n", n, low=1, low_open=True)
    psi = t1 / tn
    e = laws.karp_flatt(psi, n)
    head = f"speedup {psi:.3g}x on {n:g} workers: Karp-Flatt e = {e:.3f}"
    if e > 1:
        return (f"{head}, above 1, which no serial fraction can give (even s = 1 gives 1x). The {n:g}-worker run "
                f"took {_fmt_s(tn - t1)} longer than one worker: overhead that grows with the workers (handing out "
                "the work, waiting for a free core), not serial code.")
    head += f" against s = {s:.3f} timed apart."
    gap_s = abs(e - s) * (1 - 1 / n) * t1
    if (s > 0 and e > 0 and is_close(e, s, band)) or abs(e - s) < 0.01:
        return (f"{head} Within {band:g}x of each other: the serial step explains the speedup, and the parallel "
                f"step shared out as Amdahl assumes (the gap is {_fmt_s(gap_s)} per run).")
    if e > s:
        return (f"{head} The run lost as much as a serial part {e / max(s, 1e-12):.3g}x larger would: "
                f"{_fmt_s(gap_s)} per run ({gap_s / t1:.0%} of the one-worker time) went to something that is not "
                "the serial step and did not share out over the workers.")
    return (f"{head} The run did better than its timed serial step allows, by {_fmt_s(gap_s)} per run: the serial "
            "step cost less inside the run than alone, or the one-worker baseline ran slow.")


def call_count_verdict(measured_s, whole_s, extra_calls, per_call_s, band=CLOSE_RATIO):
    """How much of a many-calls version's time its extra calls explain, from the measured per-call cost.

    The model is ``whole_s + extra_calls x per_call_s``. Inside the loop each extra call really
    cost ``(measured_s - whole_s) / extra_calls``; the sentence puts the two per-call costs side
    by side.

    Examples
    --------
    >>> print(call_count_verdict(1.57e-3, 13.9e-6, 2295, 0.59e-6))
    each extra call cost 678 ns inside the loop against 590 ns measured on one row: the call count explains \
the time (within 1.25x). Calls, not work, set it: the work of all 2,295 extra calls is already in the \
13.9 µs of the whole block.
    >>> print(call_count_verdict(4.0e-3, 13.9e-6, 2295, 0.59e-6).split(": ")[1])
    the loop costs 2.94x more per call than one row's chain showed (every row brings new data and the Python \
loop adds its own steps).
    """
    m, w = _time("measured_s", measured_s), _time("whole_s", whole_s)
    extra = real("extra_calls", extra_calls, low=1)
    per_call = _time("per_call_s", per_call_s)
    inside = max(m - w, 0.0) / extra
    head = (f"each extra call cost {_fmt_s(inside)} inside the loop against {_fmt_s(per_call)} measured on one row")
    if inside > 0 and is_close(inside, per_call, band):
        return (f"{head}: the call count explains the time (within {band:g}x). Calls, not work, set it: the work "
                f"of all {extra:,.0f} extra calls is already in the {_fmt_s(w)} of the whole block.")
    if inside > per_call:
        return (f"{head}: the loop costs {inside / per_call:.3g}x more per call than one row's chain showed "
                "(every row brings new data and the Python loop adds its own steps).")
    return (f"{head}: the one-row run overstated the cost of a call by {per_call / max(inside, 1e-12):.3g}x "
            "(a few microseconds are easily disturbed).")


def scaling_verdict(speedup, n, *, achieved, ceiling, resource, shared, unit, cores_busy=None,
                    band=CLOSE_RATIO):
    """Why a run scaled as it did on ``n`` workers: what its bounding resource allows, against the measurement.

    ``achieved`` is the rate one worker reached of ``resource`` (bytes/s, FLOP/s), ``ceiling``
    its measured ceiling. A ``shared`` resource (memory bandwidth) caps the speedup at
    ``min(n, ceiling / achieved)``; a per-worker one (arithmetic units, a core's own cache)
    allows ``n``. ``cores_busy`` (CPU time / wall time of the ``n``-worker run) names a
    shortfall of cores when it is measured.

    Examples
    --------
    >>> print(scaling_verdict(1.05, 2, achieved=11e9, ceiling=20e9, resource="memory bandwidth", shared=True,
    ...                       unit="B/s"))
    one worker drew 11 GB/s of memory bandwidth, 55% of the 20 GB/s measured; all workers share it, so it \
allows at most 1.82x on 2 workers. Measured 1.05x: 1.73x below what the memory bandwidth allows, so \
something else held the workers back.
    >>> print(scaling_verdict(2.38, 2, achieved=7e9, ceiling=26e9, resource="memory bandwidth", shared=True,
    ...                       unit="B/s").split(". ", 1)[1])
    Measured 2.38x: more than 2 workers can give by sharing the work, so the one-worker run was slowed (by \
other programs on the machine, or a cold start): rerun it before reading more into it.
    >>> print(scaling_verdict(0.98, 2, achieved=130e9, ceiling=150e9, resource="in-cache passes", shared=False,
    ...                       unit="B/s", cores_busy=1.02).split(". ", 1)[1])
    Measured 0.98x: 2.04x below what the in-cache passes allows, so something else held the workers back: \
on average they kept only 1.02 of 2 cores busy (the cores were taken by other programs, or the \
threads waited for each other).
    """
    from ..units import si

    psi = _scalar("speedup", speedup)
    n = real("n", n, low=1)
    achieved = real("achieved", achieved, low=0, low_open=True)
    ceiling = real("ceiling", ceiling, low=0, low_open=True)
    if shared:
        cap = min(n, max(1.0, ceiling / achieved))
        text = (f"one worker drew {si(achieved, unit)} of {resource}, {achieved / ceiling:.0%} of the "
                f"{si(ceiling, unit)} measured; all workers share it, so it allows at most {cap:.3g}x on "
                f"{n:g} workers.")
    else:
        cap = n
        text = (f"one worker reached {si(achieved, unit)} of {resource} ({achieved / ceiling:.0%} of the "
                f"{si(ceiling, unit)} measured); each worker brings its own, so it allows {n:g}x on {n:g} workers.")
    text += f" Measured {psi:.3g}x"
    if psi > 1.05 * n:
        return text + (f": more than {n:g} workers can give by sharing the work, so the one-worker run was slowed "
                       "(by other programs on the machine, or a cold start): rerun it before reading more into it.")
    if is_close(psi, cap, band):
        return text + f": within {band:g}x of that, so the {resource} explains the result."
    if psi > cap:
        return text + (f": above what the {resource} allows, so the one-worker run did not reach the ceiling it "
                       "could have (or was slowed by other programs).")
    text += f": {cap / psi:.3g}x below what the {resource} allows, so something else held the workers back"
    if cores_busy is not None:
        busy = real("cores_busy", cores_busy, low=0)
        if busy < min(n, cap) / band:
            return text + (f": on average they kept only {busy:.3g} of {n:g} cores busy (the cores were taken "
                           "by other programs, or the threads waited for each other).")
        return text + (f", although they kept {busy:.3g} cores busy on average: that time went to work one worker "
                       "does not do (handing out the chunks, contending for the same memory).")
    return text + "."


# --- A measurement read against its model (lessons 05-10) --------------------------------------------

__all__ += ["against_model"]


def against_model(measured, model, *, close, slower, faster, band=CLOSE_RATIO):
    """One sentence for the case that happened: where ``measured`` fell against ``model``, then its reading.

    ``measured`` and ``model`` are times, or ratios of times (larger is slower). ``close``,
    ``slower`` and ``faster`` are the readings of the three cases; the course's "close" is
    within ``band`` (1.25x) either way.

    Examples
    --------
    >>> kw = dict(close="the FLOPs explain it", slower="the odd size cost more", faster="noise")
    >>> against_model(0.987, 1.003, **kw)
    'within 1.25x of the model: the FLOPs explain it'
    >>> against_model(1.9, 1.003, **kw)
    '1.89x slower than the model: the odd size cost more'
    >>> against_model(0.5, 1.0, **kw)
    '2x faster than the model: noise'
    """
    m, p = _scalar("measured", measured), _scalar("model", model)
    for name, text in (("close", close), ("slower", slower), ("faster", faster)):
        if not isinstance(text, str):
            raise TypeError(f"{name} must be the sentence for that case; got {text!r}")
    if is_close(m, p, band):
        return f"within {band:g}x of the model: {close}"
    if m > p:
        return f"{m / p:.3g}x slower than the model: {slower}"
    return f"{p / m:.3g}x faster than the model: {faster}"
