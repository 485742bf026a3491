"""The roofline with its points named in a legend: for points that sit close together.

:func:`perfcourse.viz.plot_roofline` writes each point's name beside it, which is easy to read
when the points are spread out; points at nearly the same intensity and rate (an ``n`` and an
``n + 1`` matrix product, or one kernel with 1, 2, 4 and 8 chains) would write over each other.
Here every point gets its own marker and colour, and its name and percent of the roof go into a
legend beside the axes.
"""

from __future__ import annotations

from .._check import real
from ..models.roofline import attainable_flops
from .fonts import _
from .roofline import plot_roofline
from .style import FONT_SMALL

__all__ = ["plot_roofline_points"]

_MARKERS = "osD^vP*Xph<>"


def plot_roofline_points(peak_flops, peak_bandwidth, points=(), *, ax=None, label=None, roofs=(),
                         intensity_range=(1e-2, 1e4), title=None):
    """Draw the roof like ``plot_roofline`` and each point with its own marker, named in a legend.

    Parameters are those of :func:`perfcourse.viz.plot_roofline`; ``points`` are
    ``(name, intensity [FLOP/byte], achieved [FLOP/s])``. The legend sits right of the axes,
    so give the figure room (``layout="constrained"``). The y axis says which is which: the roof's
    lines are attainable rates, the markers achieved ones; each later marker is drawn smaller and on
    top, so points that coincide stay visible.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> ax = plot_roofline_points(100e12, 2e12, [("n", 170.0, 40e12), ("n + 1", 170.2, 39e12)])
    >>> [t.get_text() for t in ax.get_legend().get_texts()][-2:]
    ['n: 40% of roof', 'n + 1: 39% of roof']
    >>> ax.get_ylabel()
    'rate [FLOP/s]: lines attainable, markers achieved'
    """
    ax = plot_roofline(peak_flops, peak_bandwidth, (), ax=ax, label=label, roofs=roofs,
                       intensity_range=intensity_range, title=title)
    for k, (name, intensity, achieved) in enumerate(points):
        i = real(f"intensity of {name}", intensity, low=0, low_open=True)
        a = real(f"achieved FLOP/s of {name}", achieved, low=0, low_open=True)
        pct = 100 * a / attainable_flops(i, peak_flops, peak_bandwidth)
        # each later point smaller and on top: two points at the same place stay visible as a ring and a dot
        ax.loglog([i], [a], _MARKERS[k % len(_MARKERS)], ms=max(4.0, 11.0 - 1.5 * k), ls="none",
                  markeredgecolor="k", markeredgewidth=0.6, zorder=3 + k,
                  label=_("{name}: {percent} of roof").format(name=name, percent=f"{pct:.0f}%"))
    ax.set_ylabel(_("rate [FLOP/s]: lines attainable, markers achieved"))
    ax.legend(fontsize=FONT_SMALL, loc="center left", bbox_to_anchor=(1.02, 0.5))
    return ax
