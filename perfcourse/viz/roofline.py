"""The roofline: the roof of a machine and measured kernels as points below it."""

from __future__ import annotations

import numpy as np

from .._check import real
from ..models.roofline import attainable_flops, ridge_point
from .fonts import _
from .style import FONT_SMALL, axes, finish

__all__ = ["plot_roofline"]

# staggered label offsets, so that neighbouring points' labels do not overlap
_OFFSETS = ((6, 8), (6, -16), (6, 22), (6, -30))


def plot_roofline(peak_flops, peak_bandwidth, points=(), *, ax=None, label=None, roofs=(),
                  intensity_range=(1e-2, 1e4), title=None):
    """Draw the roof and labelled kernel points on log-log axes; return the axes.

    Parameters
    ----------
    peak_flops, peak_bandwidth : float
        The main roof (FLOP/s, bytes/s); ``label`` names it (default: "roof", in the learner's language).
    points : iterable of (name, intensity, achieved_flops)
        Measured kernels: intensity in FLOP/byte, achieved rate in FLOP/s.
    roofs : iterable of (label, peak_flops, peak_bandwidth)
        Extra roofs to draw dashed, e.g. the measured one beside the datasheet one.
    """
    lo, hi = (real("intensity_range", v, low=0, low_open=True) for v in intensity_range)
    if lo >= hi:
        raise ValueError(f"intensity_range must be (low, high) with low < high; got {intensity_range!r}")
    ax = axes(ax)
    x = np.logspace(np.log10(lo), np.log10(hi), 256)
    label = _("roof") if label is None else label
    all_roofs = [(label, peak_flops, peak_bandwidth, "-")] + [(n, f, b, "--") for n, f, b in roofs]
    for name, f, b, style in all_roofs:
        ax.loglog(x, attainable_flops(x, f, b), style,
                  label=_("{name} (ridge {ridge:.3g} FLOP/B)").format(name=name, ridge=ridge_point(f, b)))
    for k, (name, intensity, achieved) in enumerate(points):
        i = real(f"intensity of {name}", intensity, low=0, low_open=True)
        a = real(f"achieved FLOP/s of {name}", achieved, low=0, low_open=True)
        pct = 100 * a / attainable_flops(i, peak_flops, peak_bandwidth)
        ax.loglog([i], [a], "o")
        ax.annotate(_("{name} ({percent} of roof)").format(name=name, percent=f"{pct:.0f}%"), (i, a),
                    textcoords="offset points",
                    xytext=_OFFSETS[k % len(_OFFSETS)], fontsize=FONT_SMALL)
    return finish(ax, xlabel=_("arithmetic intensity [FLOP/byte]"), ylabel=_("attainable rate [FLOP/s]"),
                  title=title, legend_loc="lower right")
