"""Exercise 12 C: a card's samples must be a measurement, and its speedup one the grader measures itself."""

from __future__ import annotations

import time

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from perfcourse.grading.checks import ex12_claim_card as ex12
from perfcourse.models import claimcheck as cc


def _busy(seconds):
    def run(times):
        end = time.perf_counter() + seconds * times
        while time.perf_counter() < end:
            pass
    return run


def _card(base, new):
    return cc.make_card(base, new, "dense layer X[b, d] @ W[d, d]", 64, (64, 512), "float32", "p50")


@settings(max_examples=60, deadline=None)
@given(st.integers(10, 200), st.floats(1e-6, 1.0), st.floats(0.01, 0.5), st.integers(0, 2**32 - 1))
def test_measured_samples_pass_and_typed_in_ones_are_named(n, typical, sigma, seed):
    samples = typical * np.random.default_rng(seed).lognormal(0.0, sigma, n)
    assert ex12.made_up(samples.tolist()) is None
    assert "all" in ex12.made_up([typical] * n) and "never constant" in ex12.made_up([typical] * n)
    even = [typical * (1 + k * sigma / n) for k in range(n)]
    assert "evenly spaced" in ex12.made_up(even)
    few = [typical * (1 + (k % 3) * sigma) for k in range(n)]
    assert "distinct values" in ex12.made_up(few)


def test_the_grader_measures_the_speedup_itself():
    speedup, (low, high) = ex12.grader_speedup(_busy(2e-3), _busy(5e-4), rounds=12)
    assert low <= speedup <= high and 3.0 < speedup < 5.3


@pytest.mark.parametrize("claimed, passes", [(4.0, True), (12.0, False), (1.0, False)])
def test_a_card_must_claim_what_the_machine_shows(claimed, passes):
    rng = np.random.default_rng(1)
    base = (2e-3 * rng.lognormal(0, 0.03, 40)).tolist()
    card = _card(base, [t / claimed for t in base])
    points, _, feedback = ex12.check_my_card(lambda: card, _busy(2e-3), _busy(5e-4), rng=rng, ref=None)
    assert (points == 3) == passes, feedback
    if not passes:
        assert f"claims {claimed:.3g}x" in feedback and "the grader timed run_per_row and run_batched" in feedback


def test_constant_samples_are_refused_before_any_timing():
    card = _card([2e-3] * 20, [1e-3] * 20)

    def never(times):
        raise AssertionError("timed a card that was refused already")

    points, _, feedback = ex12.check_my_card(lambda: card, never, never, rng=np.random.default_rng(0), ref=None)
    assert points == 0 and "a measurement is never constant" in feedback


def test_a_machine_too_busy_to_judge_gives_no_verdict_against_the_card():
    rng = np.random.default_rng(2)
    base = (2e-3 * rng.lognormal(0, 0.03, 40)).tolist()
    card = _card(base, [t / 4 for t in base])
    jitter = iter(rng.permutation([1e-4] * 15 + [2e-3] * 15))

    def noisy(times):
        _busy(float(next(jitter)))(times)

    points, _, feedback = ex12.check_my_card(lambda: card, noisy, noisy, rng=rng, ref=None)
    assert points == 3 and "too noisy to judge" in feedback, feedback


SLEEPS = r'''
import time

def per_row(X, W):                  # the given version made slower at will: any speedup comes true
    time.sleep(0.01)
    return X @ W
'''


@pytest.mark.slow
def test_a_card_of_redefined_given_functions_is_timed_against_the_courses_own(tmp_path):
    import nbformat

    from perfcourse.grading.grade import grade
    from perfcourse.grading.sandbox import bwrap_path

    from .answerkey import SOLUTIONS

    nb = nbformat.read(SOLUTIONS / "12_claim_card.ipynb", as_version=4)
    nb.cells.append(nbformat.v4.new_code_cell(SLEEPS))
    nbformat.write(nb, tmp_path / "12_claim_card.ipynb")
    unsafe = bwrap_path() is None
    (sub,) = grade([tmp_path / "12_claim_card.ipynb"], progress=False, seed=4, unsafe=unsafe)["submissions"]
    part_c = sub["parts"][2]
    assert part_c["points"] == 0, part_c
    assert "the grader timed run_per_row and run_batched itself" in part_c["feedback"], part_c
    claimed = float(part_c["feedback"].split("claims ")[1].split("x")[0])
    measured = float(part_c["feedback"].split("measured ")[1].split("x")[0])
    assert claimed > 20 and measured < claimed / 4, part_c     # the card saw the sleep, the grader did not
