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
import math
import os
import re
import statistics
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from .._check import real
from .._lang import _, ngettext
from .verdicts import closeness, noise_note

__all__ = ["ENV_HOME", "ENV_RECORD", "home", "log_path", "Entry", "record", "load", "Calibration", "calibration"]

ENV_HOME = "PERFCOURSE_HOME"   # folder of the learner's own records; default: the user's data folder
ENV_RECORD = "PERFCOURSE_RECORD"   # "0": show comparisons, append nothing (perfcourse present sets it)
_KEY = re.compile(r"^(\d\d)-[a-z0-9][a-z0-9-]*$")
_WIDTH = 12


def home():
    """The folder that holds the learner's records: ``$PERFCOURSE_HOME``, else the user's data folder."""
    chosen = os.environ.get(ENV_HOME, "").strip()
    if chosen:
        folder = Path(chosen).expanduser()
        if folder.exists() and not folder.is_dir():
            raise ValueError(f"{ENV_HOME} must name a folder (where your records are kept); {chosen!r} is a file")
        return folder
    try:
        import platformdirs
    except ImportError:          # a Python with only the scientific stack (a GPU machine's image): XDG's default
        return Path(os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share") / "perfcourse"
    return platformdirs.user_data_path("perfcourse", appauthor=False)


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
    measured: float
    unit: str
    about: str = ""
    time: float = 0.0
    noisy: str | None = None    # why the measurement was too noisy to judge against, when it was

    @property
    def guess_ratio(self):
        """guess / measured, or None without a guess."""
        return None if self.guess is None else self.guess / self.measured

    @property
    def model_ratio(self):
        """model / measured."""
        return self.model / self.measured

    def __str__(self):
        about = f" ({self.about})" if self.about else ""
        lines = [_("prediction {key}{about}, in {unit}:").format(key=self.key, about=about, unit=self.unit)]
        guess, model, measured = (f"  {word:<{_WIDTH}}" for word in (_("your guess"), _("model"), _("measured")))
        def words(ratio):   # no verdict from a noisy measurement
            return _("(no verdict: see below)") if self.noisy else closeness(ratio)

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


def _checked(key, guess, model, measured, unit, about):
    if not isinstance(key, str) or not _KEY.match(key):
        raise ValueError(f"key must look like 'NN-short-name' (NN the lesson number, lower case); got {key!r}")
    if guess is not None:
        guess = real("guess", guess, low=0, low_open=True)
    model = real("model", model, low=0, low_open=True)
    measured = real("measured", measured, low=0, low_open=True)
    if not isinstance(unit, str) or not unit:
        raise TypeError(f"unit must be a non-empty string such as 'ms', 'x' or 'GB/s'; got {unit!r}")
    if not isinstance(about, str):
        raise TypeError(f"about must be a string naming workload, batch, shape, dtype, percentile; got {about!r}")
    return key, (None if guess is None else float(guess)), float(model), float(measured)


def record(key, *, guess, model, measured, unit, about="", timing=None, show=True, keep=True):
    """Show a guess beside the model and the measurement; append it to the learner's log; return the Entry.

    Parameters
    ----------
    key : str
        ``"NN-name"``: NN is the lesson number; the same key recorded again is a new attempt.
    guess : float > 0 or None
        The learner's prediction, made before the model's number was shown; None when none was made.
    model, measured : float > 0
        The model's prediction and the measurement, in the same ``unit``.
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
    timings = () if timing is None else tuple(timing) if isinstance(timing, (list, tuple)) else (timing,)
    entry = Entry(key, int(key[:2]), guess, model, measured, unit, about, time.time(), noise_note(*timings))
    if show:
        print(entry)
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
            raise ValueError(f"{path} is not a prediction log: it is not UTF-8 text") from None
        return []
    entries = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            entries.append(_entry(json.loads(line)))
        except (ValueError, TypeError, KeyError):
            if strict:
                raise ValueError(f"{path} is not a prediction log: line {number} is not a record (one JSON object "
                                 "per line with key, lesson, guess, model, measured and unit)") from None
    return entries


def _entry(data):
    if not isinstance(data, dict):
        raise TypeError("a record is a JSON object")
    entry = Entry(**{k: data[k] for k in Entry.__dataclass_fields__ if k in data})
    if entry.noisy is not None and not isinstance(entry.noisy, str):
        raise TypeError("a record's noisy field is the reason, a string, or null")
    _checked(entry.key, entry.guess, entry.model, entry.measured, entry.unit, entry.about)
    return entry


@dataclass(frozen=True)
class Calibration:
    """The learner's predictions in course order: log2(guess/measured) beside log2(model/measured).

    ``rows`` holds ``(key, lesson, guess_log2 or None, model_log2)``, the latest attempt of each
    key; 0 is a perfect prediction, +1 twice too high, -1 half. ``noisy`` names the keys left
    out because every attempt's measurement was too noisy to judge.
    """

    rows: tuple
    noisy: tuple = ()

    @property
    def guessed(self):
        """The rows with a guess."""
        return [r for r in self.rows if r[2] is not None]

    @property
    def median_error(self):
        """Median of |log2(guess/measured)| over the guesses, or None without any."""
        errors = [abs(r[2]) for r in self.guessed]
        return statistics.median(errors) if errors else None

    @property
    def model_median_error(self):
        """Median of |log2(model/measured)| over the same predictions."""
        errors = [abs(r[3]) for r in self.guessed]
        return statistics.median(errors) if errors else None

    def trend(self):
        """Median error of the first half of the guesses and of the second half (None with under 4)."""
        errors = [abs(r[2]) for r in self.guessed]
        if len(errors) < 4:
            return None
        half = len(errors) // 2
        return statistics.median(errors[:half]), statistics.median(errors[half:])

    def summary(self):
        """Sentences the learner reads: how far off the guesses were, against the model, and the trend."""
        if not self.noisy:
            return self._summary()
        left_out = ngettext(" {n} more experiment could not be judged (too noisy, or too few samples) and is left "
                            "out ({keys}): rerun it on a quiet machine.",
                            " {n} more experiments could not be judged (too noisy, or too few samples) and are left "
                            "out ({keys}): rerun them on a quiet machine.",
                            len(self.noisy)).format(n=len(self.noisy), keys=", ".join(self.noisy))
        return self._summary() + left_out

    def _summary(self):
        if not self.rows:
            return _("No prediction is recorded yet: each lesson's experiment adds one.")
        if not self.guessed:
            return ngettext("{n} experiment recorded, none with a guess: set the guess (it ships as None) before "
                            "running the measuring cell.",
                            "{n} experiments recorded, none with a guess: set the guess (it ships as None) before "
                            "running the measuring cell.", len(self.rows)).format(n=len(self.rows))
        guesses = ngettext("{n} guess", "{n} guesses", len(self.guessed)).format(n=len(self.guessed))
        experiments = ngettext("{n} experiment", "{n} experiments", len(self.rows)).format(n=len(self.rows))
        text = _("{guesses} over {experiments}: your median guess was off by {off:.2f}x, the models' by {model:.2f}x "
                 "on the same experiments.").format(guesses=guesses, experiments=experiments,
                                                    off=2 ** self.median_error, model=2 ** self.model_median_error)
        trend = self.trend()
        if trend is None:
            return text + _(" Make at least 4 guesses to see whether you improve through the course.")
        first, second = 2 ** trend[0], 2 ** trend[1]
        if second < first:
            how = _(" Through the course your guesses got better: from {first:.2f}x off in the first half to "
                    "{second:.2f}x in the second.")
        elif second > first:
            how = _(" Through the course your guesses did not get better: from {first:.2f}x off in the first half to "
                    "{second:.2f}x in the second.")
        else:
            how = _(" Through the course your guesses stayed at {first:.2f}x off.")
        return text + how.format(first=first, second=second)

    def table(self):
        """One line per prediction, in course order."""
        head = _("prediction")
        lines = [f"{head:<28}{'guess/measured':>16}{'model/measured':>16}"]
        for key, _lesson, g, m in self.rows:
            guess = _("no guess") if g is None else f"{2 ** g:.3g}"
            lines.append(f"{key:<28}{guess:>16}{2 ** m:>16.3g}")
        return "\n".join(lines)


def calibration(entries=None):
    """The :class:`Calibration` of a list of entries (default: the learner's log)."""
    entries = load() if entries is None else list(entries)
    first_seen, latest, noisy = {}, {}, []
    for e in sorted(entries, key=lambda e: e.time):
        if not isinstance(e, Entry):
            raise TypeError(f"entries must be predictions.Entry records; got {type(e).__name__}")
        if e.noisy:                 # no verdict from noise: its ratios say nothing about the guess
            noisy.append(e.key)
            continue
        first_seen.setdefault(e.key, e.time)
        if e.guess is not None or e.key not in latest or latest[e.key].guess is None:
            latest[e.key] = e   # the latest attempt, preferring one with a guess
    order = sorted(latest, key=lambda k: (latest[k].lesson, first_seen[k]))
    rows = tuple((k, latest[k].lesson, None if latest[k].guess is None else math.log2(latest[k].guess_ratio),
                  math.log2(latest[k].model_ratio)) for k in order)
    return Calibration(rows, tuple(dict.fromkeys(k for k in noisy if k not in latest)))
