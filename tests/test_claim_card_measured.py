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


def _measuring(card, scatter=True):
    """A my_card that takes as long as its samples add up to, as one that measures them does; with ``scatter``,
    each later call's samples differ a little from the last, as two measurements do."""
    calls = []

    def my_card():
        _busy(sum(card["baseline_s"]) + sum(card["candidate_s"]))(1)
        calls.append(1)
        if not scatter or len(calls) == 1:
            return card
        rng = np.random.default_rng(len(calls))     # the same scatter drawn again, in another order
        again = [[float(t) * float(rng.lognormal(0, 0.01)) for t in rng.permutation(card[side])]
                 for side in ("baseline_s", "candidate_s")]
        return {**card, **cc.make_card(*again, card["workload"], card["batch"], card["shape"], card["dtype"],
                                       card["percentile"])}
    return my_card


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
    points, _, feedback = ex12.check_my_card(_measuring(card), _busy(2e-3), _busy(5e-4), rng=rng, ref=None)
    assert (points == 3) == passes, feedback
    if not passes:
        assert f"claims {claimed:.3g}x" in feedback and "the grader timed run_per_row and run_batched" in feedback


def test_constant_samples_are_refused_before_any_timing():
    card = _card([2e-3] * 20, [1e-3] * 20)

    def never(times):
        raise AssertionError("timed a card that was refused already")

    points, _, feedback = ex12.check_my_card(lambda: card, never, never, rng=np.random.default_rng(0), ref=None)
    assert points == 0 and "a measurement is never constant" in feedback


def test_samples_typed_in_without_measuring_are_refused():
    rng = np.random.default_rng(3)
    base = (2e-3 * rng.lognormal(0, 0.05, 40)).tolist()            # lognormal, as a real measurement scatters
    card = _card(base, [t / 3 for t in base])

    def never(times):
        raise AssertionError("timed a card that was refused already")

    points, _, feedback = ex12.check_my_card(lambda: card, never, never, rng=rng, ref=None)
    assert points == 0 and "were not measured when it ran" in feedback, feedback
    assert f"add up to {sum(base) * 4 / 3:.3g} s" in feedback
    points, _, feedback = ex12.check_my_card(_measuring(card), _busy(2e-3), _busy(6.7e-4), rng=rng, ref=None)
    assert points == 3, feedback


def test_samples_typed_in_and_a_busy_wait_as_long_as_they_add_up_to_are_refused():
    rng = np.random.default_rng(6)
    base = (2e-3 * rng.lognormal(0, 0.05, 40)).tolist()     # kept from an earlier run: this machine's times
    card = _card(base, [t / 4 for t in base])
    points, _, feedback = ex12.check_my_card(_measuring(card, scatter=False), _busy(2e-3), _busy(5e-4), rng=rng,
                                             ref=None)
    assert points == 0 and "returned 80 of the same 80 samples when called again" in feedback, feedback
    points, _, feedback = ex12.check_my_card(_measuring(card), _busy(2e-3), _busy(5e-4), rng=rng, ref=None)
    assert points == 3, feedback


def _draw(rng, n):
    return {"baseline_s": (1e-3 * rng.lognormal(0, 0.1, n)).tolist(),
            "candidate_s": (2e-4 * rng.lognormal(0, 0.1, n)).tolist()}


@settings(max_examples=40, deadline=None)
@given(st.integers(10, 120), st.integers(0, 2**32 - 1), st.floats(0.0, 1.0))
def test_two_cards_are_two_measurements_unless_most_samples_come_back(n, seed, share):
    rng = np.random.default_rng(seed)
    first, fresh = _draw(rng, n), _draw(rng, n)
    kept = int(share * 2 * n)           # this many of the first card's samples come back, in other places
    pool = [(side, t) for side in ex12.SIDES for t in first[side]][:kept]
    second = {side: [t for s, t in pool if s == side] + fresh[side][sum(s == side for s, _ in pool):]
              for side in ex12.SIDES}
    second = {side: rng.permutation(v).tolist() for side, v in second.items()}
    why = ex12.repeated(first, second)
    assert (why is None) == (kept <= n), (kept, n, why)
    if why:
        assert f"returned {kept} of the same {2 * n} samples" in why


@settings(max_examples=40, deadline=None)
@given(st.integers(10, 120), st.integers(0, 2**32 - 1), st.floats(0.5, 2.0), st.floats(0.0, 0.005))
def test_a_second_card_that_rescales_the_first_is_refused_and_a_new_measurement_is_not(n, seed, factor, jitter):
    rng = np.random.default_rng(seed)
    first, fresh = _draw(rng, n), _draw(rng, n)
    copy = {side: [t * factor * float(rng.lognormal(0, jitter)) * (1 + 1e-9) for t in v] for side, v in first.items()}
    why = ex12.repeated(first, copy)
    assert why is not None and "follow those of its first one by one" in why, why
    assert ex12.repeated(first, fresh) is None


def test_calls_are_counted_by_name_while_the_function_runs_and_the_names_are_put_back():
    from perfcourse.grading.checks._tools import counting
    from perfcourse.grading.runner import summary, watched

    user = {}
    exec("import time\nX, W = [1], [2]\n"
         "def per_row(x, w):\n    time.sleep(0.002)\n    return 1\n\n"
         "def batched(x, w):\n    return 2\n\n"
         "def my_card():\n    return [per_row(X, W) for _ in range(3)] + [batched(X, W), batched([1], W)]\n", user)
    originals = dict(user)
    result, calls = counting(user["my_card"], {"per_row": ("X", "W"), "batched": ("X", "W")})
    assert result == [1, 1, 1, 2, 2] and calls["per_row"][0] == 3 and calls["batched"][0] == 1   # not on a copy
    assert all(0.002 <= t < 0.05 for t in calls["per_row"][1]) and calls["batched"][1][0] < 0.002
    assert user["per_row"] is originals["per_row"] and user["batched"] is originals["batched"]
    assert counting(lambda: 5, {"nowhere": ()}) == (5, None)        # nothing to count: no such names
    record, restore = watched(user, {"per_row": ["X", "W"], "missing": []})
    user["my_card"]()
    restore()
    assert summary(record)["per_row"][0] == 3 and set(record) == {"per_row"} and user["per_row"] is originals["per_row"]


def test_watched_calls_keep_their_own_clock_and_the_arrays_layout():
    """A notebook that patches time.perf_counter does not set the times recorded, and an array resized or reshaped
    in place (the same object, other work) is not the notebook's X any more."""
    from perfcourse.grading.runner import watched

    user = {}
    exec("import time\nimport numpy as np\nX, W = np.ones((64, 8)), np.ones((8, 8))\n"
         "def per_row(x, w):\n    time.sleep(0.003)\n    return x @ w\n\n"
         "def forged():\n    real, time.perf_counter = time.perf_counter, iter([0.0, 1e-6] * 10).__next__\n"
         "    try:\n        [per_row(X, W) for _ in range(3)]\n    finally:\n        time.perf_counter = real\n\n"
         "def resized():\n    X.resize((8, 8), refcheck=False)\n    per_row(X, W)\n"
         "    X.resize((64, 8), refcheck=False)\n"
         "    X.shape = (8, 64)\n    per_row(X.T.copy(), W)\n    X.shape = (64, 8)\n    per_row(X, W)\n", user)
    record, restore = watched(user, {"per_row": ["X", "W"]})
    try:
        user["forged"]()
        assert len(record["per_row"]) == 3 and all(t >= 0.003 for t in record["per_row"]), record   # the real time
        record["per_row"].clear()
        user["resized"]()
        assert len(record["per_row"]) == 1, "only the call on X as it was when my_card() started counts"
    finally:
        restore()


def _counted(card, per_row, batched):
    """A grader's stand-in of a my_card that measures as long as its samples add up to and made these calls:
    ``(calls, median seconds)`` of per_row and of batched on X and W."""
    measuring = _measuring(card)

    def my_card():
        return measuring()
    def counted(watch):             # (calls, median) as the calls' times: warm-up calls first, then the timed ones
        return measuring(), {name: (made, [typical * 3] * (made - 40) + [typical] * min(made, 40) if typical else [])
                             for name, (made, typical) in (("per_row", per_row), ("batched", batched))}
    my_card.counting = counted
    return my_card


def test_a_card_needs_a_call_of_each_version_for_each_of_its_samples_and_their_times():
    rng = np.random.default_rng(8)
    base = (2e-3 * rng.lognormal(0, 0.05, 40)).tolist()
    card = _card(base, [t / 4 for t in base])
    row, batch = float(np.median(base)), float(np.median(base)) / 4
    for rows, batches, passes in (((40, row), (40, batch), True), ((1, row), (1, batch), False),
                                  ((45, row), (39, batch), False), ((0, None), (500, batch), False),
                                  ((40, row * 1.2), (60, batch * 1.15), True), ((40, row / 1.8), (40, batch), False),
                                  ((40, row * 1.2), (40, batch / 1.2), False)):
        points, _, feedback = ex12.check_my_card(_counted(card, rows, batches), _busy(2e-3), _busy(5e-4), rng=rng,
                                                 ref=None)
        assert (points == 3) == passes, (rows, batches, feedback)
        if passes:
            continue
        if rows[0] < 40 or batches[0] < 40:
            side, version, made = (("baseline_s", "per_row", rows[0]) if rows[0] < 40 else
                                   ("candidate_s", "batched", batches[0]))
            assert f"its {side} holds 40 samples, but my_card() called {version}(X, W) {made} times" in feedback
        elif rows[1] < row / 1.25:  # an inflated side: its samples are not the times of the calls made
            assert f"but the last 40 calls of per_row(X, W) that my_card() made took {rows[1]:.3g} s" in feedback
        else:                       # each side within the allowance, the two pulled apart: the speedup does not follow
            assert f"but the calls my_card() made give {rows[1] / batches[1]:.3g}x" in feedback


def test_samples_that_sleep_as_long_as_a_measurement_are_refused():
    rng = np.random.default_rng(5)
    base = (2e-3 * rng.lognormal(0, 0.05, 40)).tolist()
    card = _card(base, [t / 4 for t in base])

    def sleeping():                 # as long as its samples add up to, but on no CPU
        time.sleep(sum(card["baseline_s"]) + sum(card["candidate_s"]))
        return card

    points, _, feedback = ex12.check_my_card(sleeping, _busy(2e-3), _busy(5e-4), rng=rng, ref=None)
    assert points == 0 and "kept the CPU busy for only" in feedback, feedback
    busy = float(feedback.split("busy for only ")[1].split(" s")[0])
    assert busy < ex12.BUSY_SHARE * (sum(base) * 1.25), feedback
    points, _, feedback = ex12.check_my_card(_measuring(card), _busy(2e-3), _busy(5e-4), rng=rng, ref=None)
    assert points == 3, feedback


def test_made_up_samples_of_the_right_ratio_but_not_this_machines_times_are_refused():
    rng = np.random.default_rng(4)
    base = (1e-4 * rng.lognormal(0, 0.05, 40)).tolist()            # a guessed 4x, at 20 times the real speed
    card = _card(base, [t / 4 for t in base])
    points, _, feedback = ex12.check_my_card(_measuring(card), _busy(2e-3), _busy(5e-4), rng=rng, ref=None)
    assert points == 0 and "your card's per_row takes" in feedback and "the grader timed one call" in feedback


def test_a_machine_too_busy_to_judge_is_timed_again_and_the_widest_spread_still_judges():
    rng = np.random.default_rng(2)
    base = (2e-3 * rng.lognormal(0, 0.03, 40)).tolist()
    calls = []

    def noisy(times):                 # every call 1 ms or 6 ms at random: a spread of the speedup above 3x
        calls.append(times)
        _busy(float(rng.choice([1e-3, 6e-3])))(times)

    invented = _card(base, [t / 40 for t in base])
    points, _, feedback = ex12.check_my_card(_measuring(invented), noisy, noisy, rng=rng, ref=None)
    assert points == 0 and "the grader timed run_per_row and run_batched itself" in feedback, feedback
    timed_rounds = len(calls) // 2
    assert timed_rounds > ex12.ROUNDS + 1, "a timing too noisy to judge is taken again"
    honest = _card(base, base)        # the same version twice: 1x, inside the spread
    points, _, feedback = ex12.check_my_card(_measuring(honest), noisy, noisy, rng=rng, ref=None)
    assert points == 3, feedback


SLEEPS = r'''
import time

def per_row(X, W):                  # the given version made slower at will: any speedup comes true
    end = time.perf_counter() + 0.01
    while time.perf_counter() < end:
        pass
    return X @ W
'''


def _graded_12(tmp_path, cell):
    """The gradebook record of exercise 12's solution with ``cell`` appended (contained where bubblewrap is), from
    the first grading whose own timing could judge the claim."""
    import nbformat

    from perfcourse.grading.grade import grade
    from perfcourse.grading.sandbox import bwrap_path

    from .answerkey import SOLUTIONS

    nb = nbformat.read(SOLUTIONS / "12_claim_card.ipynb", as_version=4)
    nb.cells.append(nbformat.v4.new_code_cell(cell))
    nbformat.write(nb, tmp_path / "12_claim_card.ipynb")
    unsafe = bwrap_path() is None
    for seed in (4, 5, 6):             # a loaded machine can leave the grader's own timing too noisy to judge
        (sub,) = grade([tmp_path / "12_claim_card.ipynb"], progress=False, seed=seed, unsafe=unsafe)["submissions"]
        if "too noisy to judge" not in sub["parts"][2]["feedback"]:
            return sub
    pytest.skip("this machine was too busy for the grader to judge a claim three times running")


@pytest.mark.slow
def test_a_card_of_redefined_given_functions_is_timed_against_the_courses_own(tmp_path):
    sub = _graded_12(tmp_path, SLEEPS)
    part_c = sub["parts"][2]
    assert part_c["points"] == 0, part_c
    assert "the grader timed run_per_row and run_batched itself" in part_c["feedback"], part_c
    claimed = float(part_c["feedback"].split("claims ")[1].split("x")[0])
    measured = float(part_c["feedback"].split("measured ")[1].split("x")[0])
    assert claimed > 3 * measured, part_c                      # the card saw the sleep, the grader did not


ONE_CALL = r'''
import time

def my_card():                       # one real call a side, scattered into 40 samples, then a sleep that lasts as long
    rng = np.random.default_rng(11)
    one = []
    for version in (per_row, batched):
        version(X, W)
        started = time.perf_counter()
        version(X, W)
        backend.synchronize()
        one.append(time.perf_counter() - started)
    base = [float(v) for v in one[0] * rng.lognormal(0, 0.05, 40)]
    cand = [float(v) for v in one[1] * rng.lognormal(0, 0.05, 40)]
    time.sleep(sum(base) + sum(cand))
    return make_card(base, cand, WORKLOAD, B, (B, D), "float32", "p50")
'''


SCALED = r'''
import time

def my_card():                       # one real call a side, scattered by a random generator, and a busy wait
    rng = np.random.default_rng()
    one = []
    for version in (per_row, batched):
        started = time.perf_counter()
        version(X, W)
        one.append(time.perf_counter() - started)
    base = (one[0] * rng.lognormal(0, 0.05, 40)).tolist()
    cand = (one[1] * rng.lognormal(0, 0.05, 40)).tolist()
    end = time.perf_counter() + sum(base) + sum(cand)
    while time.perf_counter() < end:
        pass
    return make_card(base, cand, WORKLOAD, B, (B, D), "float32", "p50")
'''


@pytest.mark.slow
def test_a_card_scaled_from_one_call_a_side_with_a_busy_wait_is_refused(tmp_path):
    sub = _graded_12(tmp_path, SCALED)
    part_c = sub["parts"][2]
    assert part_c["points"] == 0 and "but my_card() called per_row(X, W) 1 times" in part_c["feedback"], part_c


@pytest.mark.slow
def test_a_card_scattered_from_one_call_a_side_is_refused(tmp_path):
    sub = _graded_12(tmp_path, ONE_CALL)
    part_c = sub["parts"][2]
    assert part_c["points"] == 0 and "but my_card() called per_row(X, W) 2 times" in part_c["feedback"], part_c


NOISE = r'''
import threading, time

_on, _between = [False], [False]     # the load comes and goes, and runs only between the calls of my_card()

def _switch():                       # load that comes and goes: the grader's own timing turns "too noisy"
    r = np.random.default_rng(1)
    while True:
        _on[0] = not _on[0]
        time.sleep(float(r.uniform(0.01, 0.25)))

def _burn():
    a = np.ones((300, 300))
    while True:
        if _on[0] and _between[0]:
            a @ a
        else:
            time.sleep(0.002)

_threads = []

def my_card():                       # an honest card, measured quietly; it leaves load running when it returns
    _between[0] = False
    kw = dict(repeat=40, warmup_s=0.05, max_duration_s=6.0, min_samples=20)
    t_row = pc.timing.measure(per_row, X, W, name="per row", **kw)
    t_all = pc.timing.measure(batched, X, W, name="batched", **kw)
    if not _threads:
        _threads.append(threading.Thread(target=_switch, daemon=True))
        _threads.extend(threading.Thread(target=_burn, daemon=True) for _ in range(10))
        for t in _threads:
            t.start()
    _between[0] = True
    return make_card(t_row.samples.tolist(), t_all.samples.tolist(), WORKLOAD, B, (B, D), "float32", "p50")
'''


@pytest.mark.slow
def test_threads_left_running_by_the_learner_are_stopped_while_the_grader_times(tmp_path):
    sub = _graded_12(tmp_path, NOISE)
    part_c = sub["parts"][2]      # the grader timed its functions with the learner's kernel, threads and all, stopped
    assert part_c["points"] == 3 and "the grader measured" in part_c["feedback"], part_c


TINY = r'''
import time

def my_card():                       # per_row and batched called often, but on a slice: almost no work
    x1, w8 = X[:1, :8], W[:8, :8]
    for _ in range(40):
        per_row(x1, w8)
        batched(x1, w8)
    rng = np.random.default_rng()
    base, cand = (1.7e-3 * rng.lognormal(0, 0.05, 40)).tolist(), (2.4e-4 * rng.lognormal(0, 0.05, 40)).tolist()
    end = time.perf_counter() + sum(base) + sum(cand)
    while time.perf_counter() < end:
        pass
    return make_card(base, cand, WORKLOAD, B, (B, D), "float32", "p50")
'''

INFLATED = r'''
def my_card():                       # a real measurement, its baseline reported 1.8 times slower than it ran
    kw = dict(repeat=40, warmup_s=0.05, max_duration_s=6.0, min_samples=20)
    rows = pc.timing.measure(per_row, X, W, **kw).samples
    whole = pc.timing.measure(batched, X, W, **kw).samples
    return make_card((1.8 * rows).tolist(), whole.tolist(), WORKLOAD, B, (B, D), "float32", "p50")
'''


@pytest.mark.slow
@pytest.mark.parametrize("cell, refusal", [(TINY, "but my_card() called per_row(X, W) 0 times"),
                                           (INFLATED, "calls of per_row(X, W) that my_card() made took")])
def test_calls_on_other_arrays_or_samples_other_than_the_calls_times_are_refused(tmp_path, cell, refusal):
    part_c = _graded_12(tmp_path, cell)["parts"][2]
    assert part_c["points"] == 0 and refusal in part_c["feedback"], part_c


def test_a_name_rebound_while_watched_does_not_count_and_no_planted_module_is_timed():
    import sys
    import types

    from perfcourse.grading.runner import watched

    user = {"X": [1], "W": [2]}
    exec("def per_row(x, w):\n    return 1\n", user)
    planted = types.ModuleType("cupy")
    planted.cuda = types.SimpleNamespace(runtime=types.SimpleNamespace(deviceSynchronize=lambda: 1 / 0))
    sys.modules["cupy"] = planted
    try:
        record, restore = watched(user, {"per_row": ["X", "W"]})     # the grader did not ask for a device sync
        user["per_row"](user["X"], user["W"])
        user["X"] = [1, 1]                                            # a bigger X, bound after the wrapping
        user["per_row"](user["X"], user["W"])
        restore()
    finally:
        del sys.modules["cupy"]
    assert len(record["per_row"]) == 1
