"""The grader's answers to exercise 10: the faster scan by Brent's bound.

Read by the grader at grading time (never part of the package a learner installs); see
:mod:`perfcourse.grading.checks._answers`.
"""

from __future__ import annotations

from perfcourse.models.counts import SCANS, scan_work_span


def faster(n, processors):
    """The scan with the smaller Brent bound ``work / p + span`` on ``processors``; ties go to Blelloch.

    Compared as whole numbers ``work + p * span``, so a tie is exact.

    Examples
    --------
    >>> faster(64, 16), faster(64, 64), faster(8, 1)
    ('blelloch', 'hillis_steele', 'blelloch')
    """
    (w_hs, s_hs), (w_b, s_b) = (scan_work_span(kind, n) for kind in SCANS)
    return "hillis_steele" if w_hs + processors * s_hs < w_b + processors * s_b else "blelloch"
