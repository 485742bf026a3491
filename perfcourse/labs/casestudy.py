"""Predicting and logging the changes of the lesson-08 case study.

The method the lesson follows: fix the metric and the tolerance, decompose the wall time,
take the largest item, bound it with the roofline, then change one thing at a time, each
change predicted before it is made, measured after, checked for correctness, and written
down, with the baseline kept. This module holds the prediction of one change from the
current profile and the log of versions; the counts of the pipeline (FLOPs, bytes) are in
:mod:`perfcourse.models.fusion`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .._check import real
from .._lang import _, pad, rpad, tidy, width
from ..measure.profiler import Profile
from ..measure.timing import NOISY_IQR, Timing
from ..models import roofline
from ..models.fusion import KERNELS_PER_PASS, copy_bytes, flops, padded_rows, unfused_bytes
from ..models.verdicts import CLOSE_RATIO, is_close
from ..units import format_seconds
from .pipeline import TOLERANCE, Settings

__all__ = ["Prediction", "predict", "bare_breakdown", "what_if_text", "Entry", "ChangeLog"]


@dataclass(frozen=True)
class Prediction:
    """A predicted wall time for the next version and the arithmetic behind it."""

    seconds: float
    reason: str
    parts: dict | None = None   # the predicted time split by kind (cpu, copy, kernel, sync, other), adding up to it

    def __str__(self):
        return tidy(_("predicted {seconds}: {reason}").format(seconds=format_seconds(self.seconds), reason=self.reason))


def _span_sum(profile, names):
    spans = [profile.spans[n] for n in names if n in profile.spans]
    return sum(s.host_s for s in spans), sum(s.count for s in spans)


def _parts(base, total, **minus):
    """``base`` (seconds per kind) less ``minus`` per kind, none below 0, scaled to add up to ``total``."""
    parts = {kind: max(0.0, seconds - minus.get(kind, 0.0)) for kind, seconds in base.items()}
    whole = sum(parts.values())
    return {kind: seconds * total / whole for kind, seconds in parts.items()} if whole > 0 else parts


def _by_kind(profile, names, scale, share=1.0):
    """Seconds per kind of the spans ``names`` (scaled), times ``share``."""
    out = {}
    for n in names:
        if n in profile.spans:
            s = profile.spans[n]
            out[s.kind] = out.get(s.kind, 0.0) + scale * s.host_s * share
    return out


def _span_scale(profile, bare_s):
    """What each span's profiled time is multiplied by to read it in the bare run.

    The profiler's own cost is its bookkeeping, which runs outside the two clock reads of every
    span: it lands in "other". So it is taken out of "other" first, and the spans keep their
    times (1.0); only a cost larger than "other" (a profiled run slowed by more than its
    bookkeeping) shrinks the spans too, to what is left of ``bare_s``.
    """
    spans = sum(profile.by_kind("host").values())
    # the cost fits in "other" exactly when the spans alone fit in the bare run
    return 1.0 if spans <= 0 else min(1.0, bare_s / spans)


def _kernel_time(profile):
    host = profile.by_kind("host")["kernel"]
    device = profile.by_kind("device")["kernel"] if profile.backend == "cupy" else 0.0
    return max(host, device)


def predict(profile, bare_s, settings, change, lengths, d, *, peak_flops, bandwidth, call_s):
    """Predict the wall time after one change, from the profile of the current version.

    Parameters
    ----------
    profile : Profile
        Profile of the current version (from :func:`perfcourse.measure.profiler.profile`).
    bare_s : float
        Its wall time measured without the profiler (seconds), the figure to improve.
    settings : pipeline.Settings
        The current version.
    change : (str, str)
        The setting and its new value, e.g. ``("sync", "once")``.
    lengths, d
        The batch's request lengths and feature count (for the roofline of batched kernels).
    peak_flops, bandwidth, call_s : float
        Measured ceilings: FLOP/s, bytes/s, and the cost of one small call or launch (s).

    The profiler's own cost is taken out of "other", where its bookkeeping runs (see
    :func:`bare_breakdown`); the spans keep their profiled times. The rules: dropping syncs
    saves their host time except one (but the device's busy time stays); one copy each way
    replaces the per-request copies and conversions by three calls plus the bytes at
    ``bandwidth``; batched kernels replace the per-request kernels by eight calls plus the
    roofline time of the batch (padded rows for the padded layout), and going from padded to
    packed scales the kernel time by real rows over padded rows.

    Examples
    --------
    >>> from perfcourse.measure.profiler import SpanTotal
    >>> p = Profile(0.010, {"sync": SpanTotal("sync", "sync", 100, 0.002, None)})
    >>> print(predict(p, 0.009, Settings(), ("sync", "once"), [4] * 10, 8, peak_flops=1e11, bandwidth=1e10,
    ...               call_s=1e-6))
    predicted 7.02 ms: drops 99 of 100 syncs, which took 1.98 ms of the bare run
    """
    if not isinstance(profile, Profile):
        raise TypeError(f"profile must be a perfcourse.measure.profiler.Profile; got {type(profile).__name__}")
    bare_s = real("bare_s", bare_s, low=0, low_open=True)
    name, value = change
    settings.but(**{name: value})   # validates the change
    peak_flops = real("peak_flops", peak_flops, low=0, low_open=True)
    bandwidth = real("bandwidth", bandwidth, low=0, low_open=True)
    call_s = real("call_s", call_s, low=0)
    lengths = np.atleast_1d(real("lengths", lengths, low=1, integer=True))
    scale = _span_scale(profile, bare_s)   # span times in the bare run: the profiler's cost lies outside them
    base = bare_breakdown(profile, bare_s)
    if name == "sync":
        host, count = _span_sum(profile, ["sync"])
        saved = scale * host * (1 - 1 / max(count, 1))
        floor = profile.by_kind("device")["kernel"] if profile.backend == "cupy" else 0.0
        total = max(bare_s - saved, floor, call_s)
        why = _("drops {dropped} of {count} syncs, which took {saved} of the bare run").format(
            dropped=count - 1, count=count, saved=format_seconds(saved))
        return Prediction(total, why, _parts(base, total, sync=saved))
    if name == "copies":
        names = ["copy in", "copy out", "to float32", "stack"]
        host, count = _span_sum(profile, names)
        moved = copy_bytes(lengths, d)
        new = 3 * call_s + moved / bandwidth
        total = max(bare_s - scale * host + new, new)
        minus = _by_kind(profile, names, scale)
        removed = sum(minus.values())
        for kind in minus:              # the new calls and bytes replace the removed spans, kind for kind
            minus[kind] -= new * minus[kind] / removed if removed > 0 else 0.0
        if removed <= 0:
            minus["copy"] = minus.get("copy", 0.0) - new
        why = _("{count} conversions and copies ({took}) become 3 calls and {mb:.3g} MB at {gbs:.3g} GB/s").format(
            count=count, took=format_seconds(scale * host), mb=moved / 1e6, gbs=bandwidth / 1e9)
        return Prediction(total, why, _parts(base, total, **minus))
    rows = padded_rows(lengths) if value == "padded batch" else int(lengths.sum())
    now = scale * _kernel_time(profile)
    if settings.kernels == "per request":
        new = KERNELS_PER_PASS * call_s + roofline.roofline_time(
            flops([rows], d), unfused_bytes([rows], d), peak_flops, bandwidth)
        why = _("{calls} calls plus the roofline time of {rows} rows (float32 in, as batched kernels read)").format(
            calls=KERNELS_PER_PASS, rows=rows)
    else:       # padded -> packed: the kernels, and the padded buffer's build and copy, shrink to the real rows
        share = rows / padded_rows(lengths)
        new = now * share
        buffer_s = scale * _span_sum(profile, ["to float32", "copy in"])[0]
        total = max(bare_s - (now - new) - buffer_s * (1 - share), new)
        minus = _by_kind(profile, ["to float32", "copy in"], scale, 1 - share)
        minus["kernel"] = minus.get("kernel", 0.0) + now - new
        why = _("kernels {now} become {new} and the padded buffer's build and copy {buffer} become {smaller}: both "
                "scaled by real rows / padded rows = {rows}/{padded}").format(
            now=format_seconds(now), new=format_seconds(new), buffer=format_seconds(buffer_s),
            smaller=format_seconds(buffer_s * share), rows=rows, padded=padded_rows(lengths))
        return Prediction(total, why, _parts(base, total, **minus))
    total = max(bare_s - now + new, new)
    why = _("kernels {now} become {new}: {why}").format(now=format_seconds(now), new=format_seconds(new), why=why)
    return Prediction(total, why, _parts(base, total, kernel=now - new))


def bare_breakdown(profile, bare_s):
    """A profile's split of the wall time by kind, adding up to ``bare_s``, the run timed without the profiler.

    The profiler's spans cost time of their own, so a profiled run is slower than the bare one.
    That cost is bookkeeping done outside each span's two clock reads, so it is taken out of
    "other" (time outside every span), and the spans keep their times; only when it is larger
    than "other" are the spans shrunk too, to the bare total (the rule :func:`predict` uses).

    Examples
    --------
    >>> from perfcourse.measure.profiler import SpanTotal
    >>> p = Profile(0.010, {"mm": SpanTotal("mm", "kernel", 1, 0.006, None)})
    >>> {k: round(v * 1e3, 3) for k, v in bare_breakdown(p, 0.008).items() if v}    # 2 ms of bookkeeping
    {'kernel': 6.0, 'other': 2.0}
    >>> {k: round(v * 1e3, 3) for k, v in bare_breakdown(p, 0.005).items() if v}    # more than "other" holds
    {'kernel': 5.0}
    """
    if not isinstance(profile, Profile):
        raise TypeError(f"profile must be a perfcourse.measure.profiler.Profile; got {type(profile).__name__}")
    bare_s = real("bare_s", bare_s, low=0, low_open=True)
    scale = _span_scale(profile, bare_s)
    parts = {kind: seconds * scale for kind, seconds in profile.by_kind("host").items()}
    parts["other"] = max(0.0, bare_s - sum(parts.values()))
    return parts


def what_if_text(w):
    """The sentence of a :class:`perfcourse.models.fusion.WhatIf` (its ``str``), in the learner's language.

    Examples
    --------
    >>> from perfcourse.models.fusion import what_if as change
    >>> w = change({"kernel": 0.006, "cpu": 0.004}, "kernel", 2)
    >>> what_if_text(w) == str(w)
    True
    """
    top = max(w.before, key=w.before.get)
    before, after = sum(w.before.values()), sum(w.after.values())
    limit = _("no limit") if np.isinf(w.limit) else _("at most {limit:.2f}x").format(limit=w.limit)
    return _("'{item}' ({fraction:.0%} of the time) {factor:.3g}x faster: {before} -> {after} per batch, "
             "{speedup:.2f}x end to end; removing '{item}' entirely: {limit}. Largest item: '{top}' "
             "({share:.0%})").format(item=w.item, fraction=w.fraction, factor=w.factor, before=format_seconds(before),
                                     after=format_seconds(after), speedup=w.speedup, limit=limit, top=top,
                                     share=w.before[top] / before)


@dataclass(frozen=True)
class Entry:
    """One row of the log: a version, what changed, the prediction, the measurement, the verdict."""

    settings: Settings
    change: str
    target: str
    predicted_s: float | None
    timing: Timing
    error: float
    kept: bool
    why: str


@dataclass
class ChangeLog:
    """The versions tried, in order; the first entry is the baseline, which is always kept.

    A change is kept when its outputs are within ``TOLERANCE`` of the float64 reference and its
    median beats the current best by more than ``band``, the course's "close" (lesson 00: two
    timings of one kernel taken apart differ by that much): its time under ``1 / band`` of the
    best's. It is called slower only when it is slower by as much (its time above ``band`` times
    the best's); in between it is neither. A change whose timing, or the best's, is flagged
    NOISY is not judged and not kept.
    """

    band: float = CLOSE_RATIO   # two timings taken apart closer than this are the same, as everywhere in the course
    entries: list = field(default_factory=list)

    @property
    def best(self):
        """The last kept entry: the version every new change starts from."""
        return [e for e in self.entries if e.kept][-1]

    def add(self, settings, change, target, prediction, timing, error, why="", beside=None):
        """Record a version; decide and return whether it is kept.

        ``beside``: the best version so far, timed again right beside this one. Two timings taken apart
        can differ by more than the close on a loaded machine, so when it is given the change is judged
        against it (and the verdict prints its p50), not against the best's earlier timing.
        """
        if not isinstance(timing, Timing) or not isinstance(beside, (Timing, type(None))):
            raise TypeError(f"timing and beside must be perfcourse.measure.timing.Timing objects; got "
                            f"{type(timing).__name__} and {type(beside).__name__}")
        error = real("error", error, low=0)
        predicted = None if prediction is None else prediction.seconds
        ref = beside if beside is not None and self.entries else (self.best.timing if self.entries else None)
        again = ("" if beside is None or not self.entries else
                 _(" The best so far, timed again beside it: {p50}.").format(p50=format_seconds(beside.p50)))
        if not self.entries:
            kept, verdict = True, _("baseline.")
        elif error > TOLERANCE:
            kept, verdict = False, _("rejected: error {error:.1e} > tolerance {tolerance:g}.").format(
                error=error, tolerance=TOLERANCE)
        elif timing.noisy or ref.noisy:
            loud = timing if timing.noisy else ref
            kept, verdict = False, _("not kept: too noisy to judge ({name} varied by IQR/median {spread}, above "
                                     "{limit}); it stays out until a quiet run shows a gain.").format(
                name=loud.name, spread=loud.spread_text(), limit=NOISY_IQR)
        else:
            ratio = timing.p50 / ref.p50
            if ratio > self.band:
                kept, verdict = False, _("not kept: slower ({ratio:.2f}x the time of the best so far).").format(
                    ratio=ratio) + again
            elif ratio >= 1 / self.band:
                kept, verdict = False, _("not kept: {ratio:.2f}x the time of the best so far, within the {band:g}x "
                                         "that two timings taken apart differ by (the course's close), so this run "
                                         "shows it neither faster nor slower.").format(ratio=ratio,
                                                                                       band=self.band) + again
            elif ref is self.best.timing or is_close(ref.p50, self.best.timing.p50, self.band):
                kept, verdict = True, _("kept: {speedup:.2f}x faster than the best so far.").format(
                    speedup=1 / ratio) + again
            else:   # the best's two timings drifted apart: the factor holds for the one timed beside it only
                kept, verdict = True, _("kept: {speedup:.2f}x faster than the best so far as timed beside it "
                                        "({first:.2f}x against its first timing: the two differ by more than the "
                                        "close).").format(speedup=1 / ratio,
                                                          first=self.best.timing.p50 / timing.p50) + again
        if kept and self.entries and predicted is not None and timing.p50 * self.band < predicted:
            if beside is not None and beside.p50 >= self.best.timing.p50:   # the machine was no faster then
                verdict += " " + _("It ran faster than its prediction by more than the close, while the best so far "
                                   "ran no faster timed again than when first timed: the load does not explain the "
                                   "gain, the prediction missed it.")
            else:
                verdict += " " + _("It ran faster than its prediction by more than the close: part of that gain may "
                                   "be a change in the machine's load, not the change itself (a rerun beside it "
                                   "tells).")
        if why:   # the prediction's reasoning, named as such after the verdict
            verdict += " " + _("Predicted from: {why}.").format(why=why.rstrip("."))
        joined = tidy(verdict)     # tidy: no space after a Chinese full stop
        entry = Entry(settings, change, target, predicted, timing, error, kept, joined)
        self.entries.append(entry)
        return kept

    def __str__(self):
        """A table, one row per version, its verdict and reasoning on the line below; then the device."""
        heads = [_("change"), _("aimed at"), _("predicted"), _("measured p50"), _("max error")]
        w_change = max([width(heads[0]), *(width(e.change) for e in self.entries)]) + 2
        w_target = max([width(heads[1]), *(width(e.target) for e in self.entries)]) + 2

        rows = [f"{'#':<3}{pad(heads[0], w_change)}{pad(heads[1], w_target)}{rpad(heads[2], 10)}"
                f"{rpad(heads[3], 14)}{'p95':>10}{rpad(heads[4], 11)}"]
        for i, e in enumerate(self.entries):
            pred = format_seconds(e.predicted_s) if e.predicted_s is not None else "-"
            rows.append(f"{i:<3}{pad(e.change, w_change)}{pad(e.target, w_target)}{pred:>10}"
                        f"{format_seconds(e.timing.p50):>14}{format_seconds(e.timing.p95):>10}{e.error:>11.1e}")
            rows.append(f"   -> {e.why}")
        where = sorted({_("{backend} on {device}").format(backend=e.timing.backend, device=e.timing.device)
                        for e in self.entries})
        if where:
            rows.append(_("measured per batch with {where}").format(where=", ".join(where)))
        return "\n".join(rows)
