"""Predict, then measure: the learner's guess beside the model and the measurement, kept in a log.

Every experiment in the course ends with one call::

    pc.predictions.record("03-pipeline-speedup", guess=GUESS, model=predicted, measured=speedup, unit="x",
                          about="2-stage pipeline, 2 workers, float32, p50")

which prints the three numbers side by side with the ratios guess/measured and model/measured,
and appends them to the learner's own log (JSON lines in the user's data folder, or in the folder
``PERFCOURSE_HOME`` names; never inside the course's repository). A guess left at ``None`` still
shows the measurement, under a line saying that no guess was made.

:func:`calibration` reads the log back: each prediction in course order, how far the learner's
guess and the model each were from the measurement (as a log2 ratio), the median error, and
whether the guesses got better through the course. ``perfcourse predictions`` and lesson 10 show it.

Examples
--------
>>> e = record("03-demo", guess=1.5, model=1.6, measured=1.2, unit="x", about="a demo", keep=False)
prediction 03-demo (a demo), in x:
  your guess     1.5   guess/measured = 1.25   close (within 1.25x)
  model          1.6   model/measured = 1.33   1.33x too high
  measured       1.2
>>> print(calibration([e]).table())
prediction                    guess/measured  model/measured
03-demo                                 1.25            1.33
"""

from __future__ import annotations

import json
import os
import re
import time
from dataclasses import asdict, dataclass, replace
from pathlib import Path

from .._check import real
from .._home import ENV_HOME, home
from .._lang import _, lookup, pad
from .verdicts import closeness, noise_note, once

__all__ = ["ENV_HOME", "ENV_RECORD", "home", "log_path", "Entry", "record", "load", "Calibration", "calibration"]

ENV_RECORD = "PERFCOURSE_RECORD"   # "0": show comparisons, append nothing (perfcourse present sets it)
_KEY = re.compile(r"^(\d\d)-[a-z0-9][a-z0-9-]*$")
_WIDTH = 12


def log_path():
    """The JSON-lines file every :func:`record` appends to."""
    return home() / "predictions.jsonl"


@dataclass(frozen=True)
class Entry:
    """One prediction: the learner's guess (None if none was made), the model's, and the measurement."""

    key: str
    lesson: int
    guess: float | None
    model: float
    measured: float | None
    unit: str
    about: str = ""
    time: float = 0.0
    noisy: str | None = None    # why the measurement was too noisy to judge against, when it was
    unmeasured: str | None = None   # why this machine has no measurement (measured is None), when it has none

    @property
    def guess_ratio(self):
        """guess / measured, or None without a guess or a measurement."""
        return None if self.guess is None or self.measured is None else self.guess / self.measured

    @property
    def model_ratio(self):
        """model / measured, or None without a measurement."""
        return None if self.measured is None else self.model / self.measured

    def __str__(self):
        if self.about:
            head = _("prediction {key} ({about}), in {unit}:").format(key=self.key, about=self.about,
                                                                       unit=lookup(self.unit))
        else:
            head = _("prediction {key}, in {unit}:").format(key=self.key, unit=lookup(self.unit))
        lines = [head]
        guess, model, measured = ("  " + pad(word, _WIDTH) for word in (_("your guess"), _("model"), _("measured")))
        def words(ratio):   # no verdict from a noisy measurement
            return _("(no verdict: see below)") if self.noisy else closeness(ratio)

        if self.measured is None:
            return "\n".join(lines + self._unmeasured_lines(guess, model, measured))
        if self.guess is None:
            lines.append(guess + _(" none: no guess was made; set it in the cell above and run both cells again"))
        else:
            lines.append(guess + _("{guess:>6.3g}   guess/measured = {ratio:.3g}   {closeness}").format(
                guess=self.guess, ratio=self.guess_ratio, closeness=words(self.guess_ratio)))
        lines.append(model + _("{model:>6.3g}   model/measured = {ratio:.3g}   {closeness}").format(
            model=self.model, ratio=self.model_ratio, closeness=words(self.model_ratio)))
        lines.append(f"{measured}{self.measured:>6.3g}")
        if self.noisy:
            lines.append("  " + self.noisy)
        return "\n".join(lines)


    def _unmeasured_lines(self, guess, model, measured):
        """The guess against the model, where this machine measures nothing to judge either by."""
        if self.guess is None:
            first = guess + _(" none: no guess was made; set it in the cell above and run both cells again")
        else:
            first = guess + _("{guess:>6.3g}   guess/model = {ratio:.3g}").format(
                guess=self.guess, ratio=self.guess / self.model)
        return [first, f"{model}{self.model:>6.3g}",
                measured + _(" none here: {why}").format(why=self.unmeasured)]


def _checked(key, guess, model, measured, unit, about):
    if not isinstance(key, str) or not _KEY.match(key):
        raise ValueError(f"key must look like 'NN-short-name' (NN the lesson number, lower case); got {key!r}")
    if guess is not None:
        guess = real("guess", guess, low=0, low_open=True)
    model = real("model", model, low=0, low_open=True)
    if measured is not None:
        measured = real("measured", measured, low=0, low_open=True)
    if not isinstance(unit, str) or not unit:
        raise TypeError(f"unit must be a non-empty string such as 'ms', 'x' or 'GB/s'; got {unit!r}")
    if not isinstance(about, str):
        raise TypeError(f"about must be a string naming workload, batch, shape, dtype, percentile; got {about!r}")
    return key, (None if guess is None else float(guess)), float(model), (None if measured is None else float(measured))


def record(key, *, guess, model, measured, unit, about="", timing=None, unmeasured=None, show=True, keep=True):
    """Show a guess beside the model and the measurement; append it to the learner's log; return the Entry.

    Parameters
    ----------
    key : str
        ``"NN-name"``: NN is the lesson number; the same key recorded again is a new attempt.
    guess : float > 0 or None
        The learner's prediction, made before the model's number was shown; None when none was made.
    model, measured : float > 0
        The model's prediction and the measurement, in the same ``unit``. ``measured`` is None where this
        machine cannot measure it (a GPU's own figure on a CPU); ``unmeasured`` then says why, and the
        guess is shown against the model, with no verdict.
    unit : str
        E.g. ``"ms"``, ``"x"``, ``"GB/s"``.
    about : str
        What was measured: workload, batch, shape, dtype and percentile.
    timing : Timing or a list of them, optional
        The measurement's samples (both of a ratio's). When they are too noisy to judge (see
        :func:`perfcourse.teach.verdicts.noise_note`) the comparison says so instead of a verdict,
        and the calibration of lesson 10 leaves the entry out.
    show, keep : bool
        Print the comparison; append it to :func:`log_path` (never while ``PERFCOURSE_RECORD=0``, as
        in a presentation: the presenter's own log is not a learner's record).
    """
    key, guess, model, measured = _checked(key, guess, model, measured, unit, about)
    if (measured is None) != (unmeasured is not None) or not isinstance(unmeasured, (str, type(None))):
        raise ValueError("measured=None needs unmeasured= (a string: why this machine cannot measure it), and a "
                         f"measurement needs none; got measured={measured!r}, unmeasured={unmeasured!r}")
    timings = () if timing is None else tuple(timing) if isinstance(timing, (list, tuple)) else (timing,)
    entry = Entry(key, int(key[:2]), guess, model, measured, unit, about, time.time(),
                  noise_note(*timings) if measured is not None else None, unmeasured)
    if show:   # a note this cell gave already is pointed to, not repeated
        print(replace(entry, noisy=once(entry.noisy)))
    if keep and os.environ.get(ENV_RECORD, "").strip() != "0":
        path = log_path()
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("a", encoding="utf-8") as f:
            f.write(json.dumps(asdict(entry)) + "\n")
    return entry


def load(path=None, *, strict=False):
    """Every entry of the log, oldest first.

    Lines that cannot be read are skipped; with ``strict``, a file that is not a prediction log
    (a line that is not a record, text that is not UTF-8) raises ``ValueError`` naming the line.
    """
    path = Path(path) if path is not None else log_path()
    if not path.is_file():
        return []
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        if strict:
            raise ValueError(_("{path} is not a prediction log: it is not UTF-8 text").format(path=path)) from None
        return []
    entries = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            entries.append(_entry(json.loads(line)))
        except (ValueError, TypeError, KeyError):
            if strict:
                raise ValueError(_("{path} is not a prediction log: line {number} is not a record (one JSON object "
                                   "per line with key, lesson, guess, model, measured and unit)").format(
                                       path=path, number=number)) from None
    return entries


def _entry(data):
    if not isinstance(data, dict):
        raise TypeError("a record is a JSON object")
    entry = Entry(**{k: data[k] for k in Entry.__dataclass_fields__ if k in data})
    if entry.noisy is not None and not isinstance(entry.noisy, str):
        raise TypeError("a record's noisy field is the reason, a string, or null")
    if (entry.measured is None) != isinstance(entry.unmeasured, str):
        raise TypeError("a record without a measurement says why (unmeasured), and only such a record does")
    _checked(entry.key, entry.guess, entry.model, entry.measured, entry.unit, entry.about)
    return entry


from .calibration import Calibration, calibration  # noqa: E402 - reads the log this module writes
