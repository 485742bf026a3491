"""Work/span graphs drawn small: inputs on top, time flowing down, the critical path in red."""

from __future__ import annotations

from ..models.dag import Dag
from .fonts import _
from .style import TALL, axes

__all__ = ["draw_dag"]


def _rows(dag):
    """Operations sit at their depth; an input sits just above its first user."""
    row = dag.depths()
    first_use = {}
    for node, deps in enumerate(dag.deps):
        for d in deps:
            first_use[d] = min(first_use.get(d, row[node]), row[node])
    return [row[n] if dag.costs[n] else max(first_use.get(n, 1) - 1, 0) for n in range(len(dag))]


def _positions(dag):
    rows = {}
    for node, r in enumerate(_rows(dag)):
        rows.setdefault(r, []).append(node)
    pos = {}
    for r, nodes in rows.items():
        for i, node in enumerate(nodes):
            col = dag.columns[node]
            pos[node] = (i - (len(nodes) - 1) / 2 if col is None else col, -r)
    return pos


def draw_dag(dag, ax=None, *, title=None):
    """Draw a small DAG, inputs on top, time flowing down, the critical path in red.

    Each row is one depth: operations in the same row are independent and could run at
    once. Edges from a value read by many nodes (such as ``x0`` in a scan) are dotted and faint.
    ``title`` (optional) is shown above the counts of work, span and parallelism.
    Returns the axes.
    """
    if not isinstance(dag, Dag):
        raise TypeError(f"dag must be a perfcourse.models.dag.Dag; got {type(dag).__name__}")
    if len(dag) > 200:
        raise ValueError(f"draw is for small graphs (at most 200 nodes); got {len(dag)} nodes")
    ax = axes(ax, TALL)
    pos = _positions(dag)
    critical = set(dag.critical_path())
    fanout = [0] * len(dag)
    for deps in dag.deps:
        for d in deps:
            fanout[d] += 1
    for node, deps in enumerate(dag.deps):
        for d in deps:
            hot = node in critical and d in critical
            broadcast = fanout[d] > 4 and not hot  # a value many nodes read: draw faintly
            (x0, y0), (x1, y1) = pos[d], pos[node]
            ax.plot([x0, x1], [y0, y1], color="tab:red" if hot else "0.6", lw=2 if hot else 0.8, zorder=1,
                    ls=":" if broadcast else "-", alpha=0.35 if broadcast else 1.0)
    for node, (x, y) in pos.items():
        color = "white" if dag.costs[node] == 0 else ("mistyrose" if node in critical else "lightsteelblue")
        ax.scatter([x], [y], s=330, c=color, edgecolors="tab:red" if node in critical else "0.3", zorder=2)
        ax.annotate(dag.labels[node], (x, y), ha="center", va="center", fontsize=7, zorder=3)
    ax.set_yticks(range(0, -dag.span - 1, -1), [str(k) for k in range(dag.span + 1)])
    ax.set_ylabel(_("step (depth)"))
    ax.set_xticks([])
    for side in ("top", "right", "bottom"):
        ax.spines[side].set_visible(False)
    counts = _("work T1 = {work}, span T_inf = {span}, parallelism = {parallelism:.2f}").format(
        work=dag.work, span=dag.span, parallelism=dag.parallelism)
    ax.set_title(f"{title}\n{counts}" if title else counts, fontsize=9)
    return ax
