"""Verdict sentences: a measured speedup read against the model, and the widgets' summary lines.

Measured speedups change from machine to machine and run to run, so a lesson never writes
its verdict by hand: it prints the sentence these functions compute from the numbers on screen,
in the learner's language. What each verdict decides is data in :mod:`perfcourse.models.verdicts`.
A measurement too noisy to judge (or with too few samples) gets no verdict: :func:`judged` puts
:func:`noise_note` in its place, which says by how much and what to do.
"""

from __future__ import annotations

import re
import sys

import numpy as np

from .._check import real
from .._lang import _, tidy
from ..models import laws
from ..models.verdicts import CLOSE_RATIO, NEAR_ONE, _scalar, _time, is_close, nearest_bound, speedup_outcome
from ..units import format_seconds, si

__all__ = ["CLOSE_RATIO", "NEAR_ONE", "MIN_SAMPLES", "Retimed", "is_close", "noise_note", "once", "judged", "closeness",
           "time_against_model", "against_model", "speedup_outcome", "speedup_verdict", "amdahl_line", "compare_line",
           "nearest_bound", "run_to_run"]


# A timing of fewer samples than this says nothing about its own spread, so no verdict is read from it.
MIN_SAMPLES = 5


class Retimed:
    """One version timed twice, apart: a prediction made from the ``earlier`` timing, read beside ``again``.

    Given to :func:`noise_note` (and so to :func:`judged` and the prediction record) in place of a timing,
    it is too noisy to judge when either timing is, or when their p50s lie further apart than the
    course's close: the machine changed between them, and a prediction scaled from the first says
    nothing about a measurement taken beside the second.
    """

    def __init__(self, earlier, again):
        for t in (earlier, again):
            if not (hasattr(t, "p50") and hasattr(t, "noisy")):
                raise TypeError(f"Retimed takes two Timing objects (pc.timing.measure's result); got "
                                f"{type(t).__name__}")
        self.earlier, self.again = earlier, again

    def note(self):
        """None when both timings are steady and close; else why not."""
        own = noise_note(self.earlier, self.again)
        if own or is_close(self.again.p50, self.earlier.p50):
            return own
        return tidy(_("too noisy to judge: {name} took {earlier} when first timed and {again} when timed again "
                      "({ratio:.3g}x apart, more than the {band:g}x two timings taken apart differ by), so the "
                      "machine changed between them; a prediction made from the first cannot be read against a "
                      "measurement taken beside the second").format(
            name=self.again.name, earlier=format_seconds(self.earlier.p50), again=format_seconds(self.again.p50),
            ratio=max(self.again.p50, self.earlier.p50) / min(self.again.p50, self.earlier.p50), band=CLOSE_RATIO))


def noise_note(*timings):
    """None when every timing is steady enough to judge; else why not, by how much, and what to do.

    A timing is too noisy when it is flagged NOISY (its IQR/median above the harness's limit,
    :data:`perfcourse.measure.samples.NOISY_IQR`) or holds fewer than :data:`MIN_SAMPLES`
    samples; a :class:`Retimed` pair, also when its two p50s are not close. ``None`` entries are
    skipped (a measurement that was not taken).

    Examples
    --------
    >>> from perfcourse.measure.samples import Timing
    >>> steady = Timing.from_samples([1.00, 1.01, 0.99, 1.02, 1.00, 0.98], name="copy")
    >>> noisy = Timing.from_samples([1.0, 1.6, 0.7, 1.3, 0.9, 1.8], name="step")
    >>> noise_note(steady) is None
    True
    >>> print(noise_note(steady, noisy))
    too noisy to judge: step varied by IQR/median 0.52 (above 0.1), so the next run could give another p50; rerun \
it on a quiet machine (other programs closed) or with more repeats before reading a verdict
    """
    from ..measure.samples import NOISY_IQR

    for t in timings:
        if t is None:
            continue
        if isinstance(t, Retimed):
            if (note := t.note()) is not None:
                return note
            continue
        if not (hasattr(t, "n") and hasattr(t, "noisy")):
            raise TypeError(f"noise_note takes Timing objects (pc.timing.measure's result); got {type(t).__name__}")
        if t.n < MIN_SAMPLES:
            return tidy(_("too few samples to judge: {name} has {n} (a spread needs at least {need}); rerun it with "
                          "more repeats before reading a verdict").format(name=t.name, n=t.n, need=MIN_SAMPLES))
        if t.noisy:
            return tidy(_("too noisy to judge: {name} varied by IQR/median {spread} (above {limit:g}), so the next "
                          "run could give another p50; rerun it on a quiet machine (other programs closed) or with "
                          "more repeats before reading a verdict").format(
                name=t.name, limit=NOISY_IQR,
                spread=t.spread_text() if hasattr(t, "spread_text") else f"{t.iqr_over_median:.2f}"))
    return None


def _cell():
    """The running notebook cell's execution count; None outside IPython."""
    ipython = sys.modules.get("IPython")
    shell = ipython.get_ipython() if ipython is not None else None
    return getattr(shell, "execution_count", None)


_SHOWN = {"cell": None, "notes": set()}


def once(note):
    """``note`` in full the first time a notebook cell shows it; after that, in that cell, a pointer to it.

    A cell that reads several verdicts off one noisy timing would print the same long note under
    each. Outside IPython every note is given in full.
    """
    if note is None or (cell := _cell()) is None:
        return note
    if _SHOWN["cell"] != cell:
        _SHOWN.update(cell=cell, notes=set())
    if note not in _SHOWN["notes"]:
        _SHOWN["notes"].add(note)
        return note
    head = re.split(r"：|: |（| \(", note.lstrip("（("), maxsplit=1)[0]
    return tidy(_("{head} (see the note above)").format(head=head))


def judged(sentence, *timings):
    """``sentence`` (a verdict) when the timings it was read from are steady; else :func:`noise_note`'s.

    Examples
    --------
    >>> from perfcourse.measure.samples import Timing
    >>> steady = Timing.from_samples([1.00, 1.01, 0.99, 1.02, 1.00, 0.98], name="copy")
    >>> judged("close to the model", steady)
    'close to the model'
    >>> judged("close to the model", Timing.from_samples([1.0, 1.1], name="copy")).split(":")[0]
    'too few samples to judge'
    """
    if not isinstance(sentence, str):
        raise TypeError(f"sentence must be the verdict's text; got {type(sentence).__name__}")
    return tidy(once(noise_note(*timings)) or sentence)


def closeness(ratio, band=CLOSE_RATIO):
    """Words for a ratio predicted/measured: ``"close (within 1.25x)"``, ``"2x too high"``, ``"3x too low"``.

    Examples
    --------
    >>> closeness(1.1), closeness(2.0), closeness(0.25)
    ('close (within 1.25x)', '2x too high', '4x too low')
    """
    ratio = real("ratio", ratio, low=0, low_open=True)
    if is_close(ratio, 1.0, band):
        return _("close (within {band:g}x)").format(band=band)
    if ratio > 1:
        return _("{ratio:.3g}x too high").format(ratio=ratio)
    return _("{ratio:.3g}x too low").format(ratio=1 / ratio)


# A speedup above an upper bound by more than this did not reach the bound: it beat it (the bound was wrong).
ABOVE_BOUND = 1.05


def speedup_verdict(measured, predicted, n, *, band=CLOSE_RATIO, bound=False):
    """One sentence reading a measured speedup on ``n`` workers against the predicted one.

    With ``bound=True`` the prediction is an upper bound (Amdahl's speedup for a serial fraction
    timed apart): a measurement more than :data:`ABOVE_BOUND` above it is never "close", since a
    bound that was beaten explains nothing.

    Examples
    --------
    >>> speedup_verdict(1.6, 1.7, 2)
    'measured 1.60x against a predicted 1.70x on 2 workers: close to the model (within 1.25x)'
    >>> speedup_verdict(0.7, 1.7, 2)
    'measured 0.70x against a predicted 1.70x on 2 workers: 2 workers were slower than one here'
    >>> speedup_verdict(1.12, 1.7, 2)
    'measured 1.12x against a predicted 1.70x on 2 workers: within 1.25x of one worker, well short of the model'
    >>> speedup_verdict(0.97, 1.7, 2)
    'measured 0.97x against a predicted 1.70x on 2 workers: 2 workers were no faster than one here'
    >>> speedup_verdict(1.99, 1.6, 2, bound=True)[55:]
    "1.24x above that upper bound, so the serial fraction it was given is larger than this run's"
    """
    n = real("n", n, low=1, low_open=True)
    if bound and measured > predicted * ABOVE_BOUND:
        return _("measured {measured:.2f}x against a predicted {predicted:.2f}x on {n:g} workers: {over:.3g}x above "
                 "that upper bound, so the serial fraction it was given is larger than this run's").format(
            measured=measured, predicted=predicted, n=n, over=measured / predicted)
    outcome = speedup_outcome(measured, predicted, band=band)
    near_one = abs(measured - 1) < NEAR_ONE
    close_to_one = is_close(measured, 1.0, band)     # within the course's "close" of one worker's time
    reading = {"close": _("close to the model (within {band:g}x)"),
               "slower": _("{n:g} workers were no faster than one here") if near_one else
               _("{n:g} workers were a little slower than one here (within {band:g}x)") if close_to_one else
               _("{n:g} workers were slower than one here"),
               "short": _("barely faster than one worker, well short of the model") if near_one else
               _("within {band:g}x of one worker, well short of the model") if close_to_one else
               _("faster than one worker, well short of the model"),
               "above": _("better than the model")}[outcome].format(band=band, n=n)
    return _("measured {measured:.2f}x against a predicted {predicted:.2f}x on {n:g} workers: {reading}").format(
        measured=measured, predicted=predicted, n=n, reading=reading)


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
    return _("s = {s:.2f}, N = {n:g}: speedup = {speedup:.2f}x (limit 1/s = {limit})").format(
        s=s, n=n, speedup=laws.amdahl_speedup(s, n), limit=limit_text)


def compare_line(serial_fraction, n):
    """One line with Amdahl's and Gustafson's speedup for the same ``s`` and ``N``.

    Examples
    --------
    >>> compare_line(0.1, 8)
    's = 0.10, N = 8: Amdahl (fixed problem) = 4.71x, Gustafson (scaled problem) = 7.30x'
    """
    s = real("serial_fraction", serial_fraction, low=0, high=1)
    n = real("n", n, low=1)
    return _("s = {s:.2f}, N = {n:g}: Amdahl (fixed problem) = {amdahl:.2f}x, Gustafson (scaled problem) = "
             "{gustafson:.2f}x").format(s=s, n=n, amdahl=laws.amdahl_speedup(s, n),
                                        gustafson=laws.gustafson_speedup(s, n))


def time_against_model(measured_s, model_s, band=CLOSE_RATIO, *, against=None):
    """Where a measured time fell against the model's: within the band, or how many times faster/slower.

    ``against`` names what ``model_s`` is when it is not "the model" (a time worked out in the sentence
    before, say), in the learner's language.

    Examples
    --------
    >>> time_against_model(1.1e-3, 1e-3), time_against_model(1.27e-3, 2.88e-3), time_against_model(3e-3, 1e-3)
    ('within 1.25x of the model', '2.27x faster than the model', '3x slower than the model')
    >>> time_against_model(3e-3, 1e-3, against="that time")
    '3x slower than that time'
    """
    m, p = _time("measured_s", measured_s), _time("model_s", model_s)
    if against is not None:
        if not isinstance(against, str) or not against.strip():
            raise TypeError(f"against names what the time is compared with, as text; got {against!r}")
        if is_close(m, p, band):
            return tidy(_("within {band:g}x of {against}").format(band=band, against=against))
        if m < p:
            return tidy(_("{ratio:.3g}x faster than {against}").format(ratio=p / m, against=against))
        return tidy(_("{ratio:.3g}x slower than {against}").format(ratio=m / p, against=against))
    if is_close(m, p, band):
        return _("within {band:g}x of the model").format(band=band)
    if m < p:
        return _("{ratio:.3g}x faster than the model").format(ratio=p / m)
    return _("{ratio:.3g}x slower than the model").format(ratio=m / p)


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
    reading = close if is_close(m, p, band) else (slower if m > p else faster)
    return _("{where}: {reading}").format(where=time_against_model(m, p, band), reading=reading)


def run_to_run(rates, kept, *, unit="GB/s", band=CLOSE_RATIO):
    """What several runs of one measurement say about telling two measurements apart, from their rates.

    ``rates``: the same quantity measured in separate runs (larger is faster); ``kept``: the value
    the course keeps and uses everywhere. Says the runs' range, whether the fastest is within
    ``band`` of the slowest, and where ``kept`` falls among them.

    Examples
    --------
    >>> print(run_to_run([20e9, 21e9, 19.5e9], 20.4e9))
    3 runs: 19.5 to 21 GB/s, the fastest 1.08x the slowest (within 1.25x: the spread of a quiet moment); the \
kept value, 20.4 GB/s, lies within them. Two measurements taken apart that differ by less than 1.08x are not a \
finding.
    >>> print(run_to_run([12e9, 21e9], 20.4e9).split(";")[0])
    2 runs: 12 to 21 GB/s, the fastest 1.75x the slowest (more than 1.25x: other programs shared the machine)
    """
    values = [_scalar("rates", r) for r in rates]
    if len(values) < 2 or min(values) <= 0:
        raise ValueError(f"rates must hold at least two positive rates; got {rates!r}")
    kept = _scalar("kept", kept)
    if kept <= 0:
        raise ValueError(f"kept must be a positive rate; got {kept!r}")
    low, high = min(values), max(values)
    spread = high / low
    if spread <= band:
        how = _("within {band:g}x: the spread of a quiet moment").format(band=band)
    else:
        how = _("more than {band:g}x: other programs shared the machine").format(band=band)
    if low <= kept <= high:
        where = _("lies within them")
    elif kept > high:
        where = _("is {ratio:.3g}x the fastest of them").format(ratio=kept / high)
    else:
        where = _("is {ratio:.3g}x the slowest of them").format(ratio=kept / low)
    return _("{n} runs: {low} to {high}, the fastest {spread:.3g}x the slowest ({how}); the kept value, {kept}, "
             "{where}. Two measurements taken apart that differ by less than {spread:.3g}x are not a finding.").format(
        n=len(values), low=si(low, unit).rsplit(" ", 1)[0], high=si(high, unit), spread=spread, how=how,
        kept=si(kept, unit),
        where=where)
