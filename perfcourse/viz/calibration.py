"""The learner's calibration: each guess and each model against the measurement, in course order."""

from __future__ import annotations

import math

import numpy as np

from ..models.verdicts import CLOSE_RATIO
from .fonts import _
from .style import WIDE, axes, finish

__all__ = ["plot_calibration"]


def plot_calibration(rows, ax=None, *, title=None):
    """Points at log2(guess/measured) and crosses at log2(model/measured), one column per prediction.

    ``rows`` are ``(key, lesson, guess_log2 or None, model_log2)`` in course order (the ``rows`` of
    ``pc.predictions.calibration()``). The grey band is the course's "close" (0.8x to 1.25x); the legend
    sits right of the axes, beside the points.
    """
    rows = list(rows)
    if not rows:
        raise ValueError("rows must hold at least one prediction; got none (record one first)")
    ax = axes(ax, WIDE)
    x = np.arange(len(rows))
    band = math.log2(CLOSE_RATIO)
    ax.axhspan(-band, band, color="0.9", label=_("close (within {band:g}x)").format(band=CLOSE_RATIO))
    ax.axhline(0, color="0.5", lw=0.8)
    guessed = [(i, r[2]) for i, r in enumerate(rows) if r[2] is not None]
    if guessed:
        gx, gy = zip(*guessed, strict=True)
        ax.plot(gx, gy, "o-", color="tab:blue", label=_("your guess / measured"))
    ax.plot(x, [r[3] for r in rows], "x", color="tab:orange", markersize=8, label=_("model / measured"))
    ax.set_xticks(x, [r[0] for r in rows], rotation=60, ha="right", fontsize=7)
    ax = finish(ax, ylabel=_("log2(prediction / measured): +1 = 2x too high"), title=title, grid=False,
                legend_loc="upper right")
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0))   # beside the points, never over them
    return ax
