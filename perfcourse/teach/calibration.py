"""How well the learner's guesses matched the measurements, through the course (lesson 10, ``perfcourse
predictions``): each prediction's log2 ratios to the measurement, their median and their trend.

Examples
--------
>>> from perfcourse.teach.predictions import Entry
>>> c = calibration([Entry("03-a", 3, 2.0, 1.0, 1.0, "x"), Entry("04-b", 4, None, 1.0, 2.0, "x")])
>>> [(key, guess, model) for key, _, guess, model in c.rows]
[('03-a', 1.0, 0.0), ('04-b', None, -1.0)]
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass

from .._lang import _, listing, ngettext, pad, rpad, tidy

__all__ = ["Calibration", "calibration"]


@dataclass(frozen=True)
class Calibration:
    """The learner's predictions in course order: log2(guess/measured) beside log2(model/measured).

    ``rows`` holds ``(key, lesson, guess_log2 or None, model_log2)``, the latest attempt of each
    key; 0 is a perfect prediction, +1 twice too high, -1 half. ``noisy`` names the keys left
    out because every attempt's measurement was too noisy to judge, ``unmeasured`` those this
    machine could not measure at all (a GPU's figure on a CPU): both are named, never dropped silently.
    """

    rows: tuple
    noisy: tuple = ()
    unmeasured: tuple = ()

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
        text = self._summary()
        if self.noisy:
            text += ngettext(" {n} more experiment could not be judged (too noisy, or too few samples) and is left "
                             "out ({keys}): rerun it on a quiet machine.",
                             " {n} more experiments could not be judged (too noisy, or too few samples) and are left "
                             "out ({keys}): rerun them on a quiet machine.",
                             len(self.noisy)).format(n=len(self.noisy), keys=listing(self.noisy))
        if self.unmeasured:
            text += ngettext(" {n} prediction has no measurement on this machine ({keys}): the lesson printed why, "
                             "and a run on the hardware it names adds it.",
                             " {n} predictions have no measurement on this machine ({keys}): the lessons printed "
                             "why, and a run on the hardware they name adds them.",
                             len(self.unmeasured)).format(n=len(self.unmeasured), keys=listing(self.unmeasured))
        return tidy(text)     # no space a joined sentence leaves after a Chinese full stop

    def _summary(self):
        if not self.rows:
            return _("No prediction is recorded yet: each lesson's experiment adds one.")
        if not self.guessed:
            return ngettext("{n} experiment judged (its measurement steady), none with a guess: set the guess (it "
                            "ships as None) before running the measuring cell.",
                            "{n} experiments judged (their measurements steady), none with a guess: set the guess "
                            "(it ships as None) before running the measuring cell.",
                            len(self.rows)).format(n=len(self.rows))
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
        """One line per prediction, in course order: those left out too, with why in place of their ratios."""
        lines = [pad(_("prediction"), 28) + rpad(_("guess/measured"), 16) + rpad(_("model/measured"), 16)]
        rows = [(key, _("no guess") if g is None else f"{2 ** g:.3g}", f"{2 ** m:.3g}") for key, _l, g, m in self.rows]
        rows += [(key, "-", _("too noisy")) for key in self.noisy]
        rows += [(key, "-", _("not measurable")) for key in self.unmeasured]
        for key, guess, model in sorted(rows, key=lambda row: row[0][:2]):   # stable: each lesson's order kept
            lines.append(f"{key:<28}" + rpad(guess, 16) + rpad(model, 16))
        return "\n".join(lines)


def calibration(entries=None):
    """The :class:`Calibration` of a list of entries (default: the learner's log)."""
    from .predictions import Entry, load

    entries = load() if entries is None else list(entries)
    first_seen, latest, noisy, unmeasured = {}, {}, [], []
    for e in sorted(entries, key=lambda e: e.time):
        if not isinstance(e, Entry):
            raise TypeError(f"entries must be predictions.Entry records; got {type(e).__name__}")
        if e.noisy:                 # no verdict from noise: its ratios say nothing about the guess
            noisy.append(e.key)
            continue
        if e.measured is None:      # nothing measured on that machine: nothing to calibrate against
            unmeasured.append(e.key)
            continue
        first_seen.setdefault(e.key, e.time)
        if e.guess is not None or e.key not in latest or latest[e.key].guess is None:
            latest[e.key] = e   # the latest attempt, preferring one with a guess
    order = sorted(latest, key=lambda k: (latest[k].lesson, first_seen[k]))
    rows = tuple((k, latest[k].lesson, None if latest[k].guess is None else math.log2(latest[k].guess_ratio),
                  math.log2(latest[k].model_ratio)) for k in order)
    noisy = tuple(dict.fromkeys(k for k in noisy if k not in latest))
    return Calibration(rows, noisy, tuple(dict.fromkeys(k for k in unmeasured if k not in latest and k not in noisy)))
