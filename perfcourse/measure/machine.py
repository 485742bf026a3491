"""This machine's ceilings, measured once and kept: every lesson reads the same numbers.

Two runs of the same copy at different moments differ by a few percent, more on a busy machine.
A course that measured its ceilings again in every lesson would show a learner a different copy
bandwidth in each, and a gap between two of them would be noise taken for a finding. So the
first lesson that asks measures them (:func:`perfcourse.measure.ceilings.measure_ceilings`) and
keeps them in the learner's records folder (:func:`perfcourse._home.home`), one set per backend,
device and time scale; every later lesson, in any process, reads that set back.
``remeasure=True`` measures again and keeps the new set (after the machine changed, or when a
busy moment spoiled the first run).
"""

from __future__ import annotations

import json
import os
import tempfile

from .._home import home
from .._lang import _, listing, lookup, tidy
from . import backend as _backend
from .ceilings import Ceilings, measure_ceilings
from .samples import NOISY_IQR
from .timing import time_scale, until_steady

__all__ = ["FILE", "FORMAT", "TRIES", "machine_ceilings", "origin", "path"]

FILE = "ceilings.json"
FORMAT = 1
TRIES = 3                        # measurements at most, while a ceiling's timing is NOISY
_MEASURED_HERE: set = set()      # the dates of the sets this process measured itself


def path():
    """The file the kept ceilings live in."""
    return home() / FILE


def _key(b, scale):
    return f"{b.name} | {b.device} | time scale {scale:g}"


def _read():
    try:
        data = json.loads(path().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict) or data.get("format") != FORMAT or not isinstance(data.get("machines"), dict):
        return {}
    return data["machines"]


def _keep(key, ceilings):
    """Add ``ceilings`` to the file under ``key`` (written whole, then moved into place); False if it cannot."""
    machines = _read()
    machines[key] = ceilings.to_dict()
    target = path()
    tmp = None
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=".ceilings-", suffix=".json")
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump({"format": FORMAT, "machines": machines}, f, indent=1)
        os.replace(tmp, target)
    except OSError:
        if tmp is not None and os.path.exists(tmp):
            os.unlink(tmp)              # no half-written file left beside the kept one
        return False
    return True


def machine_ceilings(*, remeasure=False, progress=True, backend=None):
    """This machine's :class:`~perfcourse.measure.ceilings.Ceilings`: the kept set, or measured now and kept.

    A set is kept per backend, device and time scale (:func:`perfcourse.measure.timing.time_scale`).
    While a ceiling's timing is flagged NOISY the set is measured again (:data:`TRIES` times at
    most) and the steadiest is kept.
    ``remeasure``: measure again even if a set is kept, and keep the new one. ``progress``: a
    progress bar while measuring. A folder that cannot be written keeps nothing; the set measured
    is still returned.
    """
    if not isinstance(remeasure, bool):
        raise TypeError(f"remeasure must be True or False; got {remeasure!r}")
    b = backend or _backend.get()
    key = _key(b, time_scale())
    if not remeasure:
        kept = _read().get(key)
        if isinstance(kept, dict):
            try:
                return Ceilings.from_dict(kept)
            except (TypeError, ValueError):
                pass                       # a set from another format: measured again below
    # a set every lesson reads is worth a second try: a ceiling taken at a busy moment would make every later
    # comparison against it wrong in the same direction (only the first try may reuse this process's own run)
    tries = iter([not remeasure] + [False] * (TRIES - 1))
    result = until_steady(lambda: measure_ceilings(progress=progress, backend=b, cached=next(tries)), tries=TRIES,
                          spread=_spread)
    _MEASURED_HERE.add(result.date)
    _keep(key, result)
    return result


def _noisiest(ceilings):
    """``(name, IQR/median)`` of a set's noisiest kept timing (``(None, 0.0)`` when none were kept)."""
    spreads = [(ceilings.timing(name).iqr_over_median, name) for name, t in ceilings.timings.items()
               if isinstance(t, dict) and t.get("samples")]
    spread, name = max(spreads, default=(0.0, None))
    return name, spread


def _spread(ceilings):
    """The largest IQR/median among a set's kept timings (0 when none were kept)."""
    return _noisiest(ceilings)[1]


def origin(ceilings):
    """One line: when ``ceilings`` were measured, whether just now or kept from an earlier lesson, and whether
    even the steadiest try was noisy.

    Examples
    --------
    >>> c = Ceilings("a CPU", "numpy", "2026-01-02T03:04:05+00:00", 2e10, 1e10, 1024, "float32")
    >>> print(origin(c))
    ceilings measured 2026-01-02 03:04 UTC and kept: every lesson uses this one set \
(pc.hardware.machine_ceilings(remeasure=True) measures again)
    """
    if not isinstance(ceilings, Ceilings):
        raise TypeError(f"ceilings must be what machine_ceilings() returns; got {type(ceilings).__name__}")
    when = ceilings.when
    if ceilings.date in _MEASURED_HERE:
        line = _("ceilings measured just now ({when}) and kept: every later lesson uses this one set").format(
            when=when)
    else:
        line = _("ceilings measured {when} and kept: every lesson uses this one set "
                 "(pc.hardware.machine_ceilings(remeasure=True) measures again)").format(when=when)
    loud = _noisy(ceilings)
    if loud:
        line += _("; in the steadiest of its tries {timings} still varied by more than IQR/median {limit}, so a "
                  "verdict read against those ceilings is uncertain: measure again on a quiet machine").format(
            timings=listing(_("{name} ({spread})").format(name=lookup(ceilings.timing(name).name),  # N_ marks them
                                                          spread=ceilings.timing(name).spread_text())
                            for name, _s in loud), limit=NOISY_IQR)
    return tidy(line)


def _noisy(ceilings):
    """``[(name, IQR/median), ...]`` of a set's kept timings above the NOISY limit, noisiest first."""
    spreads = [(name, ceilings.timing(name).iqr_over_median) for name, t in ceilings.timings.items()
               if isinstance(t, dict) and t.get("samples")]
    return sorted(((n, s) for n, s in spreads if s > NOISY_IQR), key=lambda p: -p[1])
