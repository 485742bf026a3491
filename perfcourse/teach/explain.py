"""Why a measurement came out as it did: sentences computed from the run on screen.

Each function returns the sentence for the case that happened, with the numbers that decide it
(which bound was near, how much of the time a serial part took, how many cores were busy), so a
lesson prints its "why" from its own measurement instead of listing every possible outcome.
"""

from __future__ import annotations

from .._check import real
from .._lang import _
from ..models import laws
from ..models.verdicts import CLOSE_RATIO, _scalar, _time, is_close, nearest_bound
from ..units import format_bytes, si
from ..units import format_seconds as _fmt_s  # short: it sits inside long sentences
from .misses import miss_verdict
from .verdicts import time_against_model

__all__ = ["read_verdict", "nearest_bound", "bound_verdict", "karp_flatt_verdict", "call_count_verdict",
           "scaling_verdict", "miss_verdict", "BOUND_SHARE", "AGREE_ABS", "SUPERLINEAR_SLACK", "BOUND_SLACK"]

# A ceiling bounds a time when the call reached at least half of it: below that, something the ceilings do
# not measure (fixed costs, dependencies, shared cores) set more of the time than the ceiling did.
BOUND_SHARE = 0.5
# Karp-Flatt e and a measured serial fraction s this close agree whatever their ratio: near zero, a ratio
# of two small noisy numbers says nothing (0.004 against 0.009 is "2x apart" and the same result).
AGREE_ABS = 0.01
# A measured speedup above n x this on n workers is more than sharing work can give: the baseline run was
# slowed. 5% leaves room for the timing noise of a loaded 2-core machine (lesson 04's runs).
SUPERLINEAR_SLACK = 1.05
# A measurement above an upper bound by no more than this reached the bound (timing noise); above it, the bound
# was wrong, and it explains nothing. The same 5% as SUPERLINEAR_SLACK, for the same loaded machine.
BOUND_SLACK = SUPERLINEAR_SLACK


def read_verdict(measured_s, model_s, *, nbytes, bandwidth, what, cache_bytes=None, reused=False,
                 band=CLOSE_RATIO):
    """Why a memory-bound call took the time it did: the bandwidth it reached against the copy's.

    The model charges ``nbytes`` at the measured copy ``bandwidth`` (``model_s``). The sentence
    says which side of the model the measurement fell and by how much, the bandwidth the call
    reached, and, when it came in faster, how much of the data had to come from a cache if memory ran at the copy's
    bandwidth:
    with a free cache, a share ``1 - measured/model`` of the bytes. ``reused`` says the same
    data is read on every call (a weight matrix), so the last-level cache (``cache_bytes``)
    can keep part of it between calls.

    Examples
    --------
    >>> print(read_verdict(1.27e-3, 2.88e-3, nbytes=64 * 2**20, bandwidth=23.3e9, what="W",
    ...                    cache_bytes=32 * 2**20, reused=True))
    W (64 MiB) was read in 1.27 ms, 2.27x faster than the model: 52.8 GB/s, 2.27x the copy bandwidth \
(23.3 GB/s). To be this fast with memory at the copy's bandwidth, at least 56% of W had to come from a \
cache (more if the cache is not free). Every call reads the same W, and the 32 MiB last-level cache can keep \
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
(23.3 GB/s). Something other than the bytes set the time: either the routine kept fewer reads in flight \
than a copy does (then a rerun on a quiet machine takes as long), or other programs shared the memory bus and \
the cores during this run (then it does not). The 32 MiB last-level cache could keep at most 50% of W between \
calls, and that did not make up for it.
    >>> print(read_verdict(8.0e-3, 2.88e-3, nbytes=64 * 2**20, bandwidth=23.3e9, what="W",
    ...                    cache_bytes=300 * 2**20, reused=True).split(". ")[-1])
    W fits in the 300 MiB last-level cache, which could have kept all of it between calls, and still the call was \
slower than memory delivers a copy: the cache did not set its time.
    """
    m, p = _time("measured_s", measured_s), _time("model_s", model_s)
    nbytes = real("nbytes", nbytes, low=0, low_open=True)
    bandwidth = real("bandwidth", bandwidth, low=0, low_open=True)
    if cache_bytes is not None:
        cache_bytes = real("cache_bytes", cache_bytes, low=0, low_open=True)
    achieved = nbytes / m
    v = {"what": what, "size": format_bytes(nbytes), "time": _fmt_s(m), "where": time_against_model(m, p, band),
         "rate": si(achieved, "B/s"), "ratio": achieved / bandwidth, "copy": si(bandwidth, "B/s"),
         "cache": None if cache_bytes is None else format_bytes(cache_bytes)}
    text = _("{what} ({size}) was read in {time}, {where}: {rate}, {ratio:.3g}x the copy bandwidth ({copy}).")
    if is_close(m, p, band):
        if cache_bytes is not None and nbytes > cache_bytes:
            text += _(" The bytes and the copy bandwidth explain the time: {what} is {times:.3g}x the {cache} "
                      "last-level cache, so it streams from memory on every call.")
        elif cache_bytes is not None:
            text += _(" The bytes and the copy bandwidth explain the time, although {what} fits in the {cache} "
                      "last-level cache: on this machine the cache delivered it at about the rate of a copy from "
                      "memory.")
        else:
            text += _(" The bytes and the copy bandwidth explain the time.")
        return text.format(times=nbytes / cache_bytes if cache_bytes else 0.0, **v)
    if m < p:
        v.update(needed=1 - m / p, share=min(1.0, cache_bytes / nbytes) if cache_bytes else 0.0)
        text += _(" To be this fast with memory at the copy's bandwidth, at least {needed:.0%} of {what} had to come "
                  "from a cache (more if the cache is not free).")
        if reused and cache_bytes is not None:
            text += _(" Every call reads the same {what}, and the {cache} last-level cache can keep up to "
                      "{share:.0%} of it from one call to the next.")
            if v["share"] >= v["needed"]:
                return (text + _(" The cache can explain the gap.")).format(**v)
            return (text + _(" That is less than the {needed:.0%} needed, so memory also delivered more to this "
                             "pure read than to the copy the model borrowed its bandwidth from.")).format(**v)
        return (text + _(" A pure read is cheaper than the copy the model borrowed its bandwidth from: the copy is "
                         "credited with 2 bytes per element, yet every line it writes is first read in as well.")
                ).format(**v)
    text += _(" Something other than the bytes set the time: either the routine kept fewer reads in flight than a "
              "copy does (then a rerun on a quiet machine takes as long), or other programs shared the memory bus and "
              "the cores during this run (then it does not).")
    if reused and cache_bytes is not None and nbytes > cache_bytes:
        text += _(" The {cache} last-level cache could keep at most {share:.0%} of {what} between calls, and "
                  "that did not make up for it.")
    elif reused and cache_bytes is not None:
        text += _(" {what} fits in the {cache} last-level cache, which could have kept all of it between calls, "
                  "and still the call was slower than memory delivers a copy: the cache did not set its time.")
    return text.format(share=cache_bytes / nbytes if cache_bytes else 0.0, **v)




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

    t = _time("seconds", seconds)
    name, fraction = nearest_bound(t, uses)
    parts = [_("{rate} of {resource} ({share:.0%} of {ceiling})").format(
        rate=si(amount / t, unit), resource=resource, share=amount / t / ceiling, ceiling=si(ceiling, unit))
        for resource, amount, ceiling, unit in uses]
    if fraction > CLOSE_RATIO:      # past a measured ceiling by more than two timings differ: it bounds nothing
        reading = _("above the {name} ceiling ({fraction:.0%} of it): this run beat that ceiling as it was measured "
                    "apart from it, so the ceiling bounds nothing here; measure it again beside the run")
    elif fraction > BOUND_SLACK:    # past it, within the course's close: it ran at that ceiling, measured a bit low
        reading = _("at the {name} ceiling ({fraction:.0%} of it, within the {band:g}x two timings taken apart differ "
                    "by: the ceiling, measured apart, came out a little low), so that is what bounds it here")
    elif fraction >= 1.005:         # past the ceiling (as printed) by less than the two measurements' run-to-run spread
        reading = _("at the {name} ceiling ({fraction:.0%} of it: a few percent over is within what the same run "
                    "varies from one timing to the next), so that is what bounds it here")
    elif fraction >= BOUND_SHARE:
        reading = _("nearest to the {name} ceiling, so that is what bounds it here")
    else:
        reading = _("no ceiling is near (the nearest, {name}, at {fraction:.0%}): something the ceilings do not "
                    "measure set its time (fixed costs per call, dependencies, or cores it did not have to itself)")
    return _("{what} reached {parts}: {reading}.").format(
        what=what, parts=_(", ").join(parts), reading=reading.format(name=name, fraction=fraction, band=CLOSE_RATIO))


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
    gap_s = abs(e - s) * (1 - 1 / n) * t1
    v = {"psi": psi, "n": n, "e": e, "s": s, "band": band, "late": _fmt_s(tn - t1), "gap": _fmt_s(gap_s),
         "times": e / max(s, 1e-12), "share": gap_s / t1}
    if e > 1:
        return _("speedup {psi:.3g}x on {n:g} workers: Karp-Flatt e = {e:.3f}, above 1, which no serial fraction "
                 "can give (even s = 1 gives 1x). The {n:g}-worker run took {late} longer than one worker: overhead "
                 "that grows with the workers (handing out the work, waiting for a free core), not serial code."
                 ).format(**v)
    head = _("speedup {psi:.3g}x on {n:g} workers: Karp-Flatt e = {e:.3f} against s = {s:.3f} timed apart.")
    if (s > 0 and e > 0 and is_close(e, s, band)) or abs(e - s) < AGREE_ABS:
        return (head + _(" Within {band:g}x of each other: the serial step explains the speedup, and the parallel "
                         "step shared out as Amdahl assumes (the gap is {gap} per run).")).format(**v)
    if e > s:
        return (head + _(" The run lost as much as a serial part {times:.3g}x larger would: {gap} per run "
                         "({share:.0%} of the one-worker time) went to something that is not the serial step and "
                         "did not share out over the workers.")).format(**v)
    return (head + _(" The run did better than its timed serial step allows, by {gap} per run: the serial step "
                     "cost less inside the run than alone, or the one-worker baseline ran slow.")).format(**v)


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
    v = {"inside": _fmt_s(inside), "one": _fmt_s(per_call), "band": band, "extra": extra, "whole": _fmt_s(w),
         "more": inside / per_call, "over": per_call / max(inside, 1e-12)}
    head = _("each extra call cost {inside} inside the loop against {one} measured on one row")
    if inside > 0 and is_close(inside, per_call, band):
        return (head + _(": the call count explains the time (within {band:g}x). Calls, not work, set it: the work "
                         "of all {extra:,.0f} extra calls is already in the {whole} of the whole block.")).format(**v)
    if inside > per_call:
        return (head + _(": the loop costs {more:.3g}x more per call than one row's chain showed (every row brings "
                         "new data and the Python loop adds its own steps).")).format(**v)
    return (head + _(": the one-row run overstated the cost of a call by {over:.3g}x (a few microseconds are "
                     "easily disturbed).")).format(**v)


def scaling_verdict(speedup, n, *, achieved, ceiling, resource, shared, unit, cores_busy=None,
                    band=CLOSE_RATIO):
    """Why a run scaled as it did on ``n`` workers: what its bounding resource allows, against the measurement.

    ``achieved`` is the rate one worker reached of ``resource`` (bytes/s, FLOP/s), ``ceiling``
    its measured ceiling. A ``shared`` resource (memory bandwidth) caps the speedup at
    ``ceiling / achieved`` when that is below ``n``; otherwise, and for a per-worker resource
    (arithmetic units, a core's own cache), the worker count bounds it at ``n``, and the
    sentence names the worker count, not the resource. ``cores_busy`` (CPU time / wall time of the
    ``n``-worker run) names a shortfall of cores when it is measured.

    Examples
    --------
    >>> print(scaling_verdict(1.05, 2, achieved=11e9, ceiling=20e9, resource="memory bandwidth", shared=True,
    ...                       unit="B/s"))
    one worker drew 11 GB/s of memory bandwidth, 55% of the 20 GB/s measured; all workers share it, so it \
allows at most 1.82x on 2 workers. Measured 1.05x: 1.73x below what the memory bandwidth allows, so \
something else held the workers back.
    >>> print(scaling_verdict(1.67, 2, achieved=7.2e9, ceiling=19.5e9, resource="memory bandwidth", shared=True,
    ...                       unit="B/s"))
    one worker drew 7.2 GB/s of memory bandwidth, 37% of the 19.5 GB/s measured; all workers share it, and it \
could feed 2.71 of them, more than the 2 there are, so the worker count bounds the run at 2x. Measured 1.67x: at \
or just under that bound (within 1.25x), so the worker count explains the result.
    >>> print(scaling_verdict(2.38, 2, achieved=7e9, ceiling=26e9, resource="memory bandwidth", shared=True,
    ...                       unit="B/s").split(". ", 1)[1])
    Measured 2.38x: more than 2 workers can give by sharing the work, so the one-worker run was slowed (by \
other programs on the machine, or a cold start): rerun it before reading more into it.
    >>> print(scaling_verdict(0.98, 2, achieved=130e9, ceiling=150e9, resource="in-cache passes", shared=False,
    ...                       unit="B/s", cores_busy=1.02).split(". ", 1)[1])
    Measured 0.98x: 2.04x below what the worker count allows, so something else held the workers back: \
on average they kept only 1.02 of 2 cores busy (the cores were taken by other programs, or the \
threads waited for each other).
    """

    psi = _scalar("speedup", speedup)
    n = real("n", n, low=1)
    achieved = real("achieved", achieved, low=0, low_open=True)
    ceiling = real("ceiling", ceiling, low=0, low_open=True)
    feeds = ceiling / achieved                 # workers the shared resource could feed at one worker's rate
    by_workers = not shared or feeds >= n      # the worker count, not the resource, sets the bound
    cap = n if by_workers else max(1.0, feeds)
    v = {"rate": si(achieved, unit), "resource": resource, "share": achieved / ceiling, "ceiling": si(ceiling, unit),
         "cap": cap, "n": n, "psi": psi, "band": band, "below": cap / psi, "feeds": feeds}
    v["bound"] = _("the worker count") if by_workers else _("the {resource}").format(resource=resource)
    if shared and by_workers:
        text = _("one worker drew {rate} of {resource}, {share:.0%} of the {ceiling} measured; all workers share it, "
                 "and it could feed {feeds:.3g} of them, more than the {n:g} there are, so the worker count bounds "
                 "the run at {n:g}x.")
    elif shared:
        text = _("one worker drew {rate} of {resource}, {share:.0%} of the {ceiling} measured; all workers share it, "
                 "so it allows at most {cap:.3g}x on {n:g} workers.")
    elif achieved > ceiling * BOUND_SLACK:
        text = _("one worker reached {rate} of {resource}, {share:.0%} of the {ceiling} measured (above it: that "
                 "ceiling was measured low, so it bounds nothing here); a resource each worker brings for itself "
                 "cannot cap the speedup either way, so the worker count bounds the run at {n:g}x.")
    else:
        text = _("one worker reached {rate} of {resource} ({share:.0%} of the {ceiling} measured); each worker "
                 "brings its own, so the worker count bounds the run at {n:g}x.")
    if psi > SUPERLINEAR_SLACK * n:
        return (text + _(" Measured {psi:.3g}x: more than {n:g} workers can give by sharing the work, so the "
                         "one-worker run was slowed (by other programs on the machine, or a cold start): rerun it "
                         "before reading more into it.")).format(**v)
    if psi > cap * BOUND_SLACK:     # an upper bound that was exceeded explains nothing
        return (text + _(" Measured {psi:.3g}x: above what {bound} allows, so the one-worker run did not "
                         "reach the ceiling it could have (or was slowed by other programs).")).format(**v)
    if is_close(psi, cap, band):
        return (text + _(" Measured {psi:.3g}x: at or just under that bound (within {band:g}x), so {bound} "
                         "explains the result.")).format(**v)
    text += _(" Measured {psi:.3g}x: {below:.3g}x below what {bound} allows, so something else held the "
              "workers back")
    if cores_busy is None:
        return (text + _(".")).format(**v)
    v["busy"] = real("cores_busy", cores_busy, low=0)
    if n - v["busy"] >= v["busy"] - psi:   # more core time left idle than spent beyond one worker's work
        return (text + _(": on average they kept only {busy:.3g} of {n:g} cores busy (the cores were taken by "
                         "other programs, or the threads waited for each other).")).format(**v)
    return (text + _(", although they kept {busy:.3g} cores busy on average: that time went to work one worker "
                     "does not do (handing out the chunks, contending for what the cores share: caches, memory, or one "
                     "core's two hardware threads).")).format(**v)


