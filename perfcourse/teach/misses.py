"""Why a prediction missed: the predicted split of a time by kind against the measured split.

A prediction built from a profile changes some kinds of time (the kernels, the copies) and
keeps the rest. When the measured time misses it, setting the two splits side by side shows
where: the kinds whose measured time differs most from what the model expected are the ones
the model got wrong, and each kind has a usual reason.
"""

from __future__ import annotations

from .._lang import N_, _, lookup
from ..models.verdicts import CLOSE_RATIO, is_close
from ..units import format_seconds as _fmt_s

__all__ = ["miss_verdict", "KIND_MEANING"]

# What each kind of a profile holds, for the sentence that names the kinds a model got wrong.
KIND_MEANING = {
    "cpu": N_("host work inside the spans (type conversions, stacking)"),
    "copy": N_("copies between host and device"),
    "kernel": N_("the array operations"),
    "sync": N_("waits for the device"),
    "other": N_("time outside every span: the Python loop and the calls between spans"),
}


def _s(seconds):
    """A time for the sentence: a rounding remainder below a nanosecond reads as 0."""
    return _fmt_s(seconds if seconds >= 1e-9 else 0.0)


def _split(name, parts):
    if not isinstance(parts, dict) or not parts:
        raise TypeError(f"{name} must be a dict of seconds per kind (cpu, copy, kernel, sync, other); got {parts!r}")
    for kind, seconds in parts.items():
        if not isinstance(seconds, (int, float)) or seconds < 0 or seconds != seconds:
            raise ValueError(f"{name}[{kind!r}] must be a number of seconds >= 0; got {seconds!r}")
    return parts


def miss_verdict(predicted, measured, *, band=CLOSE_RATIO, share=0.8):
    """Where a measured split by kind departed from a predicted one, largest differences first.

    ``predicted`` and ``measured`` map each kind to seconds, each adding up to its total (a
    :class:`~perfcourse.labs.casestudy.Prediction`'s ``parts``, and the new version's profile
    scaled to its bare time). Within ``band`` of each other the totals are "close" and no kind
    is blamed; otherwise the sentence names the kinds that together make up ``share`` of the
    summed differences, each with both times and what the kind holds.

    Examples
    --------
    >>> print(miss_verdict({"kernel": 0.4e-3, "other": 3.6e-3}, {"kernel": 1.6e-3, "other": 0.4e-3}))
    predicted 4 ms, measured 2 ms: the model was 2x too high. Where it went wrong: other predicted 3.6 ms, \
measured 400 µs (time outside every span: the Python loop and the calls between spans); kernel predicted \
400 µs, measured 1.6 ms (the array operations).
    >>> print(miss_verdict({"kernel": 1e-3, "other": 1e-3}, {"kernel": 1.1e-3, "other": 1e-3}))
    predicted 2 ms, measured 2.1 ms: close (within 1.25x).
    """
    predicted, measured = _split("predicted", predicted), _split("measured", measured)
    p_total, m_total = sum(predicted.values()), sum(measured.values())
    if p_total <= 0 or m_total <= 0:
        raise ValueError(f"both splits must add up to more than 0 s; got {p_total} and {m_total}")
    head = _("predicted {p}, measured {m}").format(p=_fmt_s(p_total), m=_fmt_s(m_total))
    if is_close(p_total, m_total, band):
        return _("{head}: close (within {band:g}x).").format(head=head, band=band)
    kinds = sorted(set(predicted) | set(measured),
                   key=lambda k: -abs(measured.get(k, 0.0) - predicted.get(k, 0.0)))
    gaps = [abs(measured.get(k, 0.0) - predicted.get(k, 0.0)) for k in kinds]
    named, covered = [], 0.0
    for kind, gap in zip(kinds, gaps, strict=True):
        if covered >= share * sum(gaps) or gap == 0:
            break
        named.append(_("{kind} predicted {p}, measured {m} ({meaning})").format(
            kind=lookup(kind), p=_s(predicted.get(kind, 0.0)), m=_s(measured.get(kind, 0.0)),
            meaning=lookup(KIND_MEANING.get(kind, kind))))
        covered += gap
    ratio = p_total / m_total
    way = (_("{ratio:.3g}x too high").format(ratio=ratio) if ratio > 1
           else _("{ratio:.3g}x too low").format(ratio=1 / ratio))
    return _("{head}: the model was {way}. Where it went wrong: {kinds}.").format(
        head=head, way=way, kinds=_("; ").join(named))
