"""Exercise 14, size a deployment: the grader's simulator and problems, and what each kind of choice scores."""

from pathlib import Path

import nbformat
import numpy as np
import pytest

from perfcourse.grading.cases import solution_namespace
from perfcourse.grading.checks import ex14_size_a_deployment as ex14
from perfcourse.grading.checks import grade_namespace, parts
from perfcourse.grading.checks._answers import Answers

ROOT = Path(__file__).resolve().parent.parent
SOLUTION = ROOT / "solutions" / "14_size_a_deployment.ipynb"
EXERCISE = ROOT / "exercises" / "14_size_a_deployment.ipynb"


@pytest.fixture(scope="module")
def solved():
    return solution_namespace(SOLUTION)


@pytest.fixture(scope="module")
def ref():
    return Answers("ex14")


def _score(namespace, seed=1):
    return {r["part"][0]: (r["points"], r["feedback"]) for r in grade_namespace("ex14", namespace, seed=seed)}


def _recording(size_deployment, seen):
    """``size_deployment`` that keeps each problem it is given, to read the grader's messages against."""
    def recorded(problem):
        seen.append(problem)
        return size_deployment(problem)

    return recorded


# --- the grader's simulator (its references) and its problems ----------------------------------------------

TWO = {"arrival": [0.0, 0.0], "prompt_tokens": [10, 10], "output_tokens": [3, 1]}


@pytest.mark.parametrize(("deployment", "expected"), [
    ((1, 4, 100), [0.030, 0.030]),      # one step: 10 ms + 20 prompt tokens
    ((1, 1, 100), [0.020, 0.062]),      # the second waits for the first's 3 steps (20 + 11 + 11 ms), then 20 ms
    ((1, 4, 10), [0.020, 0.062]),       # a budget of 10: no prompt beside a decode
    ((2, 4, 100), [0.020, 0.020]),      # round robin: each alone
])
def test_the_grader_simulates_a_known_deployment(ref, deployment, expected):
    assert ref.ttft(TWO, (0.010, 0.001), *deployment) == pytest.approx(expected, rel=1e-12)


def test_a_huge_batch_or_budget_is_simulated_as_one_that_never_binds(ref):
    problem, _ = ex14.random_problem(np.random.default_rng(3), ref)
    requests, step = ref.requests(problem), (problem["t0_s"], problem["t1_s"])
    n, longest = len(requests["arrival"]), int(requests["prompt_tokens"].max())
    huge = ref.ttft(requests, step, 3, 10 ** 12, 10 ** 15)
    assert np.array_equal(huge, ref.ttft(requests, step, 3, n, n * longest))
    assert not np.array_equal(huge, ref.ttft(requests, step, 3, 2, 2 * longest))     # a batch of 2 binds


def test_the_grader_replays_the_requests_the_notebook_draws(solved, ref):
    problem, _ = ex14.random_problem(np.random.default_rng(5), ref)
    mine, graders = solved["requests_of"](problem), ref.requests(ex14.load_of(problem))
    assert all(np.array_equal(mine[k], graders[k]) for k in ("arrival", "prompt_tokens", "output_tokens"))
    assert len(mine["arrival"]) == problem["n"] == ex14.N_REQUESTS


@pytest.mark.parametrize("seed", range(4))
def test_drawn_problems_have_a_clear_cut_fewest_replicas(ref, seed):
    problem, found = ex14.random_problem(np.random.default_rng(seed), ref)
    fewest, most, slo, load = found["replicas"], found["most"], problem["slo_s"], ex14.load_of(problem)
    assert ex14.kv_needed(problem, most) <= problem["kv_bytes"] < ex14.kv_needed(problem, most + 1)
    assert ex14.lower_bound(problem, most, ref) <= fewest <= 8 and slo <= 2.5
    assert ref.p99(load, fewest, most, most * problem["prompt"][1]) * ex14.MARGIN <= slo
    for m, b in ex14.grid(problem, most):             # one replica fewer: every choice tried misses by the margin
        assert ref.p99(load, fewest - 1, m, b) >= slo * ex14.MARGIN
    assert set(problem) == {"t0_s", "t1_s", "rate", "prompt", "answer_mean", "answer_max", "n", "seed",
                            "kv_bytes_per_token", "kv_bytes", "slo_s"}


# --- grading --------------------------------------------------------------------------------------------------

def test_the_solution_scores_full_marks(solved):
    for seed in range(3):
        for result in grade_namespace("ex14", solved, seed=seed):
            assert result["points"] == result["max_points"], (seed, result)


def test_the_untouched_exercise_scores_zero():
    namespace = {"__name__": "__notebook__"}
    for cell in nbformat.read(EXERCISE, as_version=4).cells:
        if cell.cell_type == "code" and "self_check(" not in cell.source:
            try:
                exec(compile(cell.source, str(EXERCISE), "exec"), namespace)
            except NotImplementedError:
                pass                                  # a self-check cell under a stub, as the grader passes it over
    assert [r["feedback"] for r in grade_namespace("ex14", namespace, seed=0)] == ["not implemented"] * 4
    assert sum(p.points for p in parts("ex14")) == 10


def test_one_replica_fewer_misses_the_slo_and_is_not_the_fewest(solved):
    seen = []

    def fewer(problem):
        replicas, max_batch, budget = solved["size_deployment"](problem)
        return replicas - 1, max_batch, budget

    got = _score({**solved, "size_deployment": _recording(fewer, seen)})
    assert got["A"][0] == 3 and got["C"][0] == 2
    problem = seen[0]                                 # part B's first problem
    p99 = Answers("ex14").p99(ex14.load_of(problem), *fewer(problem))
    assert got["B"] == (0, got["B"][1]) and got["B"][1].startswith("misses the SLO: with ")
    assert f"is {p99:.4g} s, above the SLO of {problem['slo_s']:g} s" in got["B"][1]
    assert got["D"][0] == 0 and "no choice within the KV cache (at most " in got["D"][1]
    assert "meets the SLO with fewer than " in got["D"][1]


def test_one_replica_more_meets_the_slo_but_is_wasteful(solved):
    def more(problem):
        replicas, max_batch, budget = solved["size_deployment"](problem)
        return replicas + 1, max_batch, budget

    got = _score({**solved, "size_deployment": more})
    assert [got[k][0] for k in "ABC"] == [3, 2, 2]
    assert got["D"][0] == 0 and got["D"][1].startswith("wasteful: ")
    replicas = int(got["D"][1].split(" replicas, ")[0].split()[-1])
    assert f"but {replicas - 1} replicas meet the SLO" in got["D"][1]


def test_a_memory_blind_choice_scores_0_on_the_memory_naming_the_limit(solved):
    seen = []
    simulate, requests_of = solved["deployment_ttft"], solved["requests_of"]

    def blind(problem):              # the same search, with four times the batch the KV cache holds
        requests = requests_of(problem)
        max_batch = 4 * ex14.most_sequences(problem)
        budget, replicas = max_batch * problem["prompt"][1], 1
        while np.percentile(simulate(requests, (problem["t0_s"], problem["t1_s"]), replicas, max_batch, budget),
                            99) > problem["slo_s"]:
            replicas += 1
        return replicas, max_batch, budget

    got = _score({**solved, "size_deployment": _recording(blind, seen)}, seed=1)
    problem = seen[2]                                 # part C's problem, after part B's two
    most = ex14.most_sequences(problem)
    assert got["B"][0] == 2 and got["C"][0] == 0
    assert got["C"][1].startswith(f"exceeds the KV cache: max_batch {4 * most} needs ")
    assert f"a replica has {problem['kv_bytes'] / 1e9:.4g} GB for it: at most {most} sequences" in got["C"][1]
    # with the larger batch it also takes fewer replicas than any choice within the KV cache can
    assert got["D"][0] == 0 and "no choice within the KV cache (at most " in got["D"][1]


def test_a_choice_that_is_not_one_scores_nothing_and_says_why(solved):
    def short_budget(problem):
        replicas, max_batch, _ = solved["size_deployment"](problem)
        return replicas, max_batch, problem["prompt"][1] - 1

    got = _score({**solved, "size_deployment": short_budget})
    for k in "BCD":
        assert got[k][0] == 0 and "token_budget must be at least max_batch (" in got[k][1], got[k]
    small = {"prompt": (1, 8), "n": 1500}
    assert ex14.choice_problem("4 replicas", small).startswith("size_deployment must return (replicas")
    assert ex14.choice_problem((0, 1, 8), small) == "replicas must be a whole number from 1 to 100; got 0"
    assert ex14.choice_problem((4.0, 1, 8), small).endswith("three whole numbers; got (4.0, 1, 8)")
    assert ex14.choice_problem((2, 3, 8), small) is None


def test_the_fewest_replicas_count_only_with_a_choice_that_meets_the_slo(solved):
    def starved(problem):            # the right replica count, one sequence at a time
        replicas, _, _ = solved["size_deployment"](problem)
        return replicas, 1, problem["prompt"][1]

    got = _score({**solved, "size_deployment": starved})
    assert got["B"][0] == 0 and got["D"][0] == 0
    assert " replicas are the fewest, but only with a max_batch and token_budget within the KV cache" in got["D"][1]
    assert "this choice does not" in got["D"][1]


def test_numbers_too_large_to_be_a_choice_are_refused_by_name():
    problem = {"prompt": (1, 8), "n": 1500}
    assert ex14.choice_problem((2, 10**400, 10**400), problem) == (
        "max_batch must be a whole number from 1 to the 1500 requests; got " + str(10**400))
    assert ex14.choice_problem((2, 4, 10**400), problem).startswith("token_budget must be at most max_batch x ")


def test_a_simulator_that_misses_a_rule_scores_0_on_part_a(solved):
    right = solved["deployment_ttft"]

    def late_first_token(requests, step_s, replicas, max_batch, token_budget):   # prefill yields no token
        ttft = right(requests, step_s, replicas, max_batch, token_budget)
        return [t + step_s[0] for t in ttft]

    def no_budget(requests, step_s, replicas, max_batch, token_budget):
        return right(requests, step_s, replicas, max_batch, 10 ** 9)

    for wrong in (late_first_token, no_budget):
        points, feedback = _score({**solved, "deployment_ttft": wrong})["A"]
        assert points == 0 and feedback.startswith("wrong for ") and "expected TTFT " in feedback, feedback
        assert "requests differ)" in feedback
