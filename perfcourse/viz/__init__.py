"""Every plot of the course, one convention: ``ax=None`` in (a new figure), the ``Axes`` out.

Nothing here calls ``plt.show()``; the look (sizes, colours, grids) is decided in :mod:`.style`.

Examples
--------
>>> import matplotlib
>>> matplotlib.use("Agg")
>>> from perfcourse import viz
>>> ax = viz.plot_roofline(100e12, 2e12, [("triad", 1 / 6, 0.3e12)])
>>> ax.get_xlabel()
'arithmetic intensity [FLOP/byte]'
"""

from .calibration import plot_calibration
from .dag import draw_dag
from .latency import plot_latency_by_batch, plot_latency_throughput
from .profile import plot_breakdowns
from .roofline import plot_roofline
from .timeline import draw_timeline

__all__ = ["draw_dag", "draw_timeline", "plot_breakdowns", "plot_calibration", "plot_latency_by_batch",
           "plot_latency_throughput", "plot_roofline"]
