"""A speedup claim as plain data, and the rules that say whether its own samples support it.

A *speedup card* is the course's claim card (``pc.claims``) for a comparison of two versions of
the same work: it names the workload, batch, shape and dtype, the percentile it compares, the
raw samples of both versions (seconds per call), the speedup and its spread. Everything on it
can be recomputed from its samples, so anyone can check it:

- the speedup is ``baseline pXX / candidate pXX``, each percentile by linear interpolation
  between the sorted samples (as ``pc.timing`` computes it);
- the spread: with ``n`` samples and ``p = XX / 100``, the true percentile lies (with about 95%
  confidence) between the sorted samples of ranks ``floor(n p - z s)`` and ``ceil(n p + z s) + 1``,
  where ``s = sqrt(n p (1 - p))`` and ``z = 1.96`` (ranks count from 1). The spread of the speedup
  is the lowest and the highest ratio those two ranges allow;
- a card needs at least ``MIN_REPEATS`` samples per version, and enough for both ranks to exist
  (a high percentile needs many more: p95 needs 110, p99 563);
- a quoted number follows from the samples when it lies within ``REL_TOL`` (1%) of the
  recomputed one; a quoted spread may be wider than the recomputed one, never narrower.

Examples
--------
>>> base = [2.0e-3 * (1 + 0.01 * k) for k in range(20)]
>>> new = [1.0e-3 * (1 + 0.01 * k) for k in range(20)]
>>> card = make_card(base, new, "dense layer", 8, (8, 1024), "float32", "p50")
>>> round(card["speedup"], 6), [round(x, 3) for x in card["spread"]]
(2.0, [1.809, 2.212])
>>> supported(card)
(True, 'supported: p50 speedup 2x (spread 1.81x to 2.21x) from 20 + 20 samples')
>>> supported({**card, "speedup": 3.0})
(False, 'speedup: the quoted 3x lies outside the spread its samples allow at p50 (1.81x to 2.21x)')
"""

from __future__ import annotations

import gettext
import math
import numbers
import re

import numpy as np

from .._check import real
from .percentiles import percentile as _percentile

__all__ = ["MATCH_FIELDS", "CARD_FIELDS", "MIN_REPEATS", "Z", "REL_TOL", "percentile_name", "percentile_q",
           "quantile", "rank_interval", "repeats_needed", "speedup_spread", "make_card", "problems", "supported"]

MATCH_FIELDS = ("workload", "batch", "shape", "dtype", "percentile")   # what two claims must share
CARD_FIELDS = MATCH_FIELDS + ("baseline_s", "candidate_s", "speedup", "spread")
MIN_REPEATS = 10    # samples per version, at the least
Z = 1.96            # two-sided 95% of the normal distribution
REL_TOL = 0.01      # a quoted number within 1% of the recomputed one follows from the samples
OTHER_PERCENTILES = ("p50", "p90", "p95", "p99")   # looked at when a quoted speedup fits another one

_PERCENTILE = re.compile(r"^p(100|[1-9]?\d)(\.\d+)?$")


def percentile_name(value):
    """The canonical name of a percentile: ``"p50"``, ``"p95"``...; a number such as 95 is accepted.

    Examples
    --------
    >>> percentile_name(95), percentile_name("p99.9")
    ('p95', 'p99.9')
    >>> percentile_name("median")
    Traceback (most recent call last):
    ...
    ValueError: percentile must look like 'p50', 'p95', 'p99' (or None); got 'median'
    """
    if isinstance(value, numbers.Real) and not isinstance(value, bool):
        value = f"p{real('percentile', value, low=0, high=100):g}"
    if not isinstance(value, str) or not _PERCENTILE.match(value):
        raise ValueError(f"percentile must look like 'p50', 'p95', 'p99' (or None); got {value!r}")
    return value


def percentile_q(value):
    """The percent of a percentile name: ``"p95"`` -> 95.0.

    Examples
    --------
    >>> percentile_q("p99.9")
    99.9
    """
    return float(percentile_name(value)[1:])


def quantile(samples, q):
    """The ``q``-th percentile of ``samples`` (linear interpolation between sorted samples), in their unit.

    Examples
    --------
    >>> quantile([4.0, 1.0, 3.0, 2.0], 50), quantile([1.0, 2.0], 100)
    (2.5, 2.0)
    """
    s = real("samples", samples, low=0)
    if np.ndim(s) != 1 or s.size == 0:
        raise ValueError("samples must be a non-empty list of durations")
    return _percentile(s, real("q", q, low=0, high=100))


def rank_interval(n, q):
    """Ranks (from 1) of the sorted samples that bracket the ``q``-th percentile with ~95% confidence.

    ``(floor(n p - z s), ceil(n p + z s) + 1)`` with ``p = q / 100`` and ``s = sqrt(n p (1 - p))``;
    None when either rank falls outside ``1..n`` (too few samples for that percentile).

    Examples
    --------
    >>> rank_interval(30, 50), rank_interval(30, 99) is None
    ((9, 22), True)
    """
    if isinstance(n, bool) or not isinstance(n, numbers.Integral) or n < 1:
        raise TypeError(f"n must be a whole number of samples >= 1; got {n!r}")
    p = real("q", q, low=0, high=100) / 100
    s = math.sqrt(n * p * (1 - p))
    lo, hi = math.floor(n * p - Z * s), math.ceil(n * p + Z * s) + 1
    return (lo, hi) if lo >= 1 and hi <= n else None


def repeats_needed(percentile):
    """The fewest samples per version a card at ``percentile`` needs.

    Examples
    --------
    >>> repeats_needed("p50"), repeats_needed("p95"), repeats_needed("p99")
    (10, 110, 563)
    """
    q = percentile_q(percentile)
    if not 0 < q < 100:
        raise ValueError(f"no number of samples brackets {percentile_name(percentile)}: use a percentile "
                         "strictly between p0 and p100")
    n = MIN_REPEATS
    while rank_interval(n, q) is None:
        n += 1
    return n


def speedup_spread(baseline_s, candidate_s, percentile):
    """``(speedup, (low, high))`` at ``percentile`` from the raw samples of both versions (seconds).

    Raises ValueError when either side has too few samples (see :func:`repeats_needed`).

    Examples
    --------
    >>> s, (lo, hi) = speedup_spread([3.0] * 12, [1.0] * 12, "p50")
    >>> s, lo, hi
    (3.0, 3.0, 3.0)
    """
    name = percentile_name(percentile)
    q = percentile_q(name)
    b = np.sort(real("baseline_s", baseline_s, low=0, low_open=True))
    c = np.sort(real("candidate_s", candidate_s, low=0, low_open=True))
    need = repeats_needed(name)
    for side, s in (("baseline_s", b), ("candidate_s", c)):
        if np.ndim(s) != 1 or s.size < need:
            raise ValueError(f"{side} holds {np.size(s)} samples; a card at {name} needs at least {need}")
    (bl, bh), (cl, ch) = rank_interval(b.size, q), rank_interval(c.size, q)
    speedup = quantile(b, q) / quantile(c, q)
    return speedup, (float(b[bl - 1] / c[ch - 1]), float(b[bh - 1] / c[cl - 1]))


def make_card(baseline_s, candidate_s, workload, batch, shape, dtype, percentile):
    """The speedup card of two sets of samples, as a plain dict with the keys ``CARD_FIELDS``.

    Examples
    --------
    >>> card = make_card([2e-3] * 10, [1e-3] * 10, "copy", 1, (1024,), "float32", 50)
    >>> card["percentile"], card["shape"], card["speedup"], card["spread"]
    ('p50', [1024], 2.0, [2.0, 2.0])
    """
    if not isinstance(workload, str) or not workload.strip():
        raise TypeError(f"workload must be a non-empty string; got {workload!r}")
    if isinstance(batch, bool) or not isinstance(batch, numbers.Integral) or batch < 1:
        raise TypeError(f"batch must be a whole number >= 1; got {batch!r}")
    problem = _shape_problem(shape)
    if problem:
        raise TypeError(problem)
    if not isinstance(dtype, str):
        dtype = np.dtype(dtype).name
    name = percentile_name(percentile)
    speedup, spread = speedup_spread(baseline_s, candidate_s, name)
    return {"workload": workload, "batch": int(batch), "shape": [int(v) for v in shape], "dtype": dtype,
            "percentile": name, "baseline_s": [float(v) for v in baseline_s],
            "candidate_s": [float(v) for v in candidate_s], "speedup": speedup, "spread": list(spread)}


def _shape_problem(shape):
    values = list(shape) if isinstance(shape, (list, tuple, np.ndarray)) else None
    if values is None or not all(isinstance(v, numbers.Integral) and not isinstance(v, bool) and v >= 0
                                 for v in values):
        return f"shape must be a list of whole numbers >= 0, such as [8, 1024]; got {shape!r}"
    return None


def _positive(value):
    return isinstance(value, numbers.Real) and not isinstance(value, bool) and math.isfinite(value) and value > 0


def _field_problems(card):
    """What is missing or malformed on ``card``, one sentence each."""
    missing = [f for f in CARD_FIELDS if card.get(f) is None]
    if missing:
        return [gettext.ngettext("missing field: {names}", "missing fields: {names}", len(missing)).format(
            names=", ".join(missing))]
    found = []
    for f in ("workload", "dtype"):
        if not isinstance(card[f], str) or not card[f].strip():
            found.append(f"{f} must be a non-empty string; got {card[f]!r}")
    if isinstance(card["batch"], bool) or not isinstance(card["batch"], numbers.Integral) or card["batch"] < 1:
        found.append(f"batch must be a whole number >= 1; got {card['batch']!r}")
    found += [p for p in [_shape_problem(card["shape"])] if p]
    if not isinstance(card["percentile"], str) or not _PERCENTILE.match(card["percentile"]):
        found.append(f"percentile must name one, such as 'p50' or 'p95'; got {card['percentile']!r}")
    for f in ("baseline_s", "candidate_s"):
        v = card[f]
        if not isinstance(v, (list, tuple, np.ndarray)) or not len(v) or not all(_positive(x) for x in v):
            found.append(f"{f} must be the raw samples: a list of durations > 0 in seconds")
    if not _positive(card["speedup"]):
        found.append(f"speedup must be a number > 0; got {card['speedup']!r}")
    spread = card["spread"]
    if (not isinstance(spread, (list, tuple, np.ndarray)) or len(spread) != 2 or not all(_positive(x) for x in spread)
            or spread[0] > spread[1]):
        found.append(f"spread must be [low, high], two numbers > 0 with low <= high; got {spread!r}")
    return found


def _near(quoted, exact):
    return abs(quoted - exact) <= REL_TOL * abs(exact)


def _speedup_problem(card, name, speedup, low, high):
    quoted = float(card["speedup"])
    if _near(quoted, speedup):
        return None
    for other in OTHER_PERCENTILES:
        q = percentile_q(other)
        if other != name and _near(quoted, quantile(card["baseline_s"], q) / quantile(card["candidate_s"], q)):
            return (f"percentile: the quoted {quoted:.3g}x is the {other} speedup of these samples, but the card "
                    f"names {name} ({speedup:.3g}x)")
    if not low * (1 - REL_TOL) <= quoted <= high * (1 + REL_TOL):
        return (f"speedup: the quoted {quoted:.3g}x lies outside the spread its samples allow at {name} "
                f"({low:.3g}x to {high:.3g}x)")
    return f"speedup: the quoted {quoted:.3g}x does not follow from the samples: their {name} speedup is {speedup:.3g}x"


def problems(card):
    """Everything that keeps ``card`` from supporting its speedup; an empty list when it does.

    Each sentence starts with what is wrong: ``missing field``, a field's name, ``too few repeats``,
    ``percentile``, ``speedup`` or ``spread``.

    Examples
    --------
    >>> problems({"workload": "copy", "batch": 1})
    ['missing fields: shape, dtype, percentile, baseline_s, candidate_s, speedup, spread']
    """
    if not isinstance(card, dict):
        return [f"a card must be a dict with the fields {', '.join(CARD_FIELDS)}; got {type(card).__name__}"]
    found = _field_problems(card)
    if found:
        return found
    name = card["percentile"]
    q, need = percentile_q(name), None
    if 0 < q < 100:
        need = repeats_needed(name)
    sizes = (len(card["baseline_s"]), len(card["candidate_s"]))
    if need is None or min(sizes) < need:
        return [f"too few repeats: {name} needs at least {need} samples per version; this card has "
                f"{sizes[0]} (baseline) and {sizes[1]} (candidate)" if need else
                f"too few repeats: no number of samples brackets {name}"]
    speedup, (low, high) = speedup_spread(card["baseline_s"], card["candidate_s"], name)
    found = [p for p in [_speedup_problem(card, name, speedup, low, high)] if p]
    qlow, qhigh = (float(x) for x in card["spread"])
    if not qlow * (1 - REL_TOL) <= float(card["speedup"]) <= qhigh * (1 + REL_TOL):
        found.append(f"spread: the quoted speedup {float(card['speedup']):.3g}x lies outside its own spread "
                     f"({qlow:.3g}x to {qhigh:.3g}x)")
    elif qlow > low * (1 + REL_TOL) or qhigh < high * (1 - REL_TOL):
        found.append(f"spread: the quoted {qlow:.3g}x to {qhigh:.3g}x is narrower than its samples allow at {name} "
                     f"({low:.3g}x to {high:.3g}x)")
    return found


def supported(card):
    """``(True, summary)`` when the card's own samples support it, else ``(False, the first problem)``.

    Examples
    --------
    >>> supported({"speedup": 3})[0]
    False
    """
    found = problems(card)
    if found:
        return False, found[0]
    name, (low, high) = card["percentile"], card["spread"]
    return True, (f"supported: {name} speedup {float(card['speedup']):.3g}x (spread {float(low):.3g}x to "
                  f"{float(high):.3g}x) from {len(card['baseline_s'])} + {len(card['candidate_s'])} samples")
