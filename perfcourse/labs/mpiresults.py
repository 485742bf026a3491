"""Reading a data-parallel run (from ``pc.mpirun.launch``) into the figures lesson 07 reports.

Per-phase :class:`~perfcourse.measure.samples.Timing` objects, the one-rank baseline,
speedup and efficiency tables, the all-reduce sweep as (bytes, seconds) arrays for
:func:`perfcourse.models.allreduce.fit_alpha_beta`, and the claim a run supports.
"""

from __future__ import annotations

import numpy as np

from .._check import real
from .._lang import _, ngettext, tidy
from ..measure.timing import NOISY_IQR, Timing
from ..models import scaling
from ..units import format_bytes, format_seconds

__all__ = ["phase_timings", "one_rank_baseline", "sweep_points", "step_table", "runs_by_label", "scaling_claim"]


def runs_by_label(result):
    """The runs of one launch keyed by label (``"strong"``, ``"weak"``, ``"weak, accumulate 4"``)."""
    return {run["label"]: run for run in result["runs"]}


def phase_timings(result, label):
    """Timings (seconds per step) of compute, wait, comm and the whole step for one labelled run.

    Each sample is one step; per phase it is the slowest rank's time, and the step is their sum.
    """
    run = runs_by_label(result)[label]
    phases = {k.removesuffix("_s"): np.asarray(v) for k, v in run["phases"].items()}
    phases["step"] = sum(phases.values())
    return {k: Timing.from_samples(v, name=_("{label} {phase}, {n} ranks").format(label=label, phase=k,
                                                                                 n=result['n_ranks']),
                                   backend=result["backend"], device=result["device"]) for k, v in phases.items()}


def sweep_points(result):
    """The all-reduce sweep of one launch as arrays ``(nbytes, median seconds)``."""
    if not result["allreduce"]:
        raise ValueError(f"this launch has no all-reduce sweep (n_ranks = {result['n_ranks']}; "
                         f"launch with sweep=True and at least 2 ranks)")
    nbytes = np.array([p["nbytes"] for p in result["allreduce"]], dtype=float)
    return nbytes, np.array([np.median(p["seconds"]) for p in result["allreduce"]])


def one_rank_baseline(result):
    """Phase timings of a one-rank launch, pooled over its runs that do the same work per step.

    On one rank the strong run (the whole global batch) and the weak run (one local batch)
    compute the same rows when the two batches are equal; timed separately they still differ
    (the first run meets colder caches, a busy machine slows one and not the other). Pooling
    their steps gives strong and weak scaling one baseline. Runs with other work per step
    (gradient accumulation) are left out.
    """
    if result["n_ranks"] != 1:
        raise ValueError(f"result must be a one-rank launch; got n_ranks = {result['n_ranks']}")
    runs = runs_by_label(result)
    if not runs:
        raise ValueError("this launch holds no runs")
    rows = {label: run["local_batch"] * run["accumulate"] for label, run in runs.items()}
    same = [label for label in runs if rows[label] == rows[next(iter(runs))]]
    parts = [phase_timings(result, label) for label in same]
    return {phase: Timing.from_samples(np.concatenate([p[phase].samples for p in parts]),
                                       name=_("{phase}, 1 rank, {labels} pooled").format(phase=phase,
                                                                                         labels=" + ".join(same)),
                                       backend=result["backend"], device=result["device"]) for phase in parts[0]}


def step_table(results, label, baseline_s=None):
    """Strong- or weak-scaling table (median step time) over launches with different rank counts.

    ``baseline_s``, when given, replaces the one-rank time (e.g. the p50 of
    :func:`one_rank_baseline`, so that strong and weak tables share one baseline).
    """
    kind = "strong" if label == "strong" else "weak"
    pairs = sorted((r["n_ranks"], phase_timings(r, label)["step"].p50) for r in results
                   if label in runs_by_label(r))
    if not pairs:
        raise ValueError(f"no launch holds a run labelled {label!r}")
    n, t = (list(v) for v in zip(*pairs, strict=True))
    if baseline_s is not None:
        if n[0] != 1:
            raise ValueError(f"baseline_s replaces the one-rank time, but no one-rank launch holds {label!r}")
        t[0] = real("baseline_s", baseline_s, low=0, low_open=True)
    return (scaling.strong_scaling if kind == "strong" else scaling.weak_scaling)(n, t)


def scaling_claim(result, label, baseline, baseline_s=None, baseline_timing=None):
    """The lines a scaling claim must carry, for the run ``label`` of ``result`` against ``baseline``.

    ``baseline`` is the one-rank launch holding the same label; ``baseline_s`` optionally
    replaces its step time (as in :func:`step_table`), and ``baseline_timing`` is the Timing it
    came from. Efficiency is computed the way the label's scaling defines it (strong:
    ``t1 / (n tn)``; weak: ``t1 / tn``). When a step time it rests on is flagged NOISY, a last
    line says so: such a claim is not to be quoted.
    """
    run, base = runs_by_label(result)[label], runs_by_label(baseline)[label]
    t, t1 = phase_timings(result, label), phase_timings(baseline, label)["step"].p50
    if baseline_s is not None:
        t1 = real("baseline_s", baseline_s, low=0, low_open=True)
    n = result["n_ranks"]
    eff = t1 / (n * t["step"].p50) if label == "strong" else t1 / t["step"].p50
    fmt = format_seconds
    noise = _noise_line(t["step"], baseline_timing)
    if label == "strong":
        recipe = _("unchanged: same global batch, data, loss and float32 arithmetic as the 1-rank run")
    else:
        recipe = _("global batch {batch} against {base} on 1 rank: a different optimisation problem unless the recipe "
                   "(learning rate, steps) is retuned and time to quality shown").format(
            batch=run['global_batch'], base=base['global_batch'])
    micro = ngettext("{n} micro-batch", "{n} micro-batches", run["accumulate"]).format(n=run["accumulate"])
    return "\n".join([
        _("workload        : dense layer forward + backward, d = {d}, {dtype}").format(d=run['d'],
                                                                                      dtype=result['dtype']),
        _("ranks, device   : {n} x {backend} on {device} ({mpi})").format(
            n=n, backend=result['backend'], device=result['device'], mpi=result['mpi']),
        _("batch           : local {local} x {micro} per all-reduce, global {batch} (1-rank run: global "
          "{base})").format(local=run['local_batch'], micro=micro, batch=run['global_batch'],
                            base=base['global_batch']),
        _("communication   : all-reduce of {size} per step, no overlap, p50 {comm}; waiting for the slowest rank "
          "p50 {wait}").format(size=format_bytes(run['grad_bytes']), comm=fmt(t['comm'].p50), wait=fmt(t['wait'].p50)),
        _("step time       : p50 {p50}, p95 {p95} over {n} steps (1 rank: p50 {one})").format(
            p50=fmt(t['step'].p50), p95=fmt(t['step'].p95), n=t['step'].n, one=fmt(t1)),
        _("numeric recipe  : {recipe}").format(recipe=recipe),
        _("efficiency      : {efficiency:.1%} ({label} scaling)").format(efficiency=eff, label=label)
        if not noise else _("efficiency      : not stated, the step times it rests on are too noisy (next line)")]
        + noise)


def _noise_line(*timings):
    loud = [t for t in timings if isinstance(t, Timing) and t.noisy]
    if not loud:
        return []
    worst = max(loud, key=lambda t: t.iqr_over_median)
    return [tidy(_("noise           : too noisy to quote: {name} varied by IQR/median {spread} (above {limit}); "
                   "rerun on a quiet machine before stating this efficiency").format(
        name=worst.name, spread=worst.spread_text(), limit=NOISY_IQR))]
