"""Exercise 14: size a deployment: replicas, max batch and token budget for a p99 TTFT SLO within the KV cache.

A problem is a dict (:func:`random_problem`): one replica's step time ``t0_s + t1_s * tokens``, a Poisson load
(``rate``, prompt and answer lengths, and the draw ``n``, ``seed`` that the grader replays), the KV cache's
bytes per token and per replica, and the SLO on the p99 TTFT. Part A checks the learner's simulator of a
deployment against ``ref.ttft``; parts B-D replay a problem's requests on the learner's choice (``ref.p99``): it
meets the SLO, fits the KV cache, and uses the fewest replicas with which a max batch and token budget the
grader tries meets the SLO. A drawn problem is clear-cut: its fewest replicas meet the SLO with the largest
batch the KV cache holds by :data:`MARGIN`, and with one replica fewer every choice tried misses it by as much.
"""

from __future__ import annotations

import copy
import math
import numbers

import numpy as np

from ._tools import part, short

N_REQUESTS = 1500       # the requests of a problem's draw
MARGIN = 1.05           # the fewest replicas meet the SLO, and one fewer misses it, by at least this factor
TOLERANCE = 0.02        # a choice meets the SLO when its p99 TTFT is at most 2% above it
MOST_REPLICAS = 100
KV_PER_TOKEN = (32768, 65536, 98304, 131072, 163840)    # 2 x layers x KV heads x head dim x 2 bytes (16-bit)


def most_sequences(problem):
    """The largest max batch whose sequences, each at its longest prompt and answer, fit the KV cache."""
    return int(problem["kv_bytes"] // ((problem["prompt"][1] + problem["answer_max"]) * problem["kv_bytes_per_token"]))


def kv_needed(problem, max_batch):
    """Bytes of KV cache ``max_batch`` sequences at their longest hold."""
    return max_batch * (problem["prompt"][1] + problem["answer_max"]) * problem["kv_bytes_per_token"]


def load_of(problem):
    """The problem without its SLO: what the requests and their p99 depend on (the answers' key)."""
    return {k: v for k, v in problem.items() if k != "slo_s"}


def lower_bound(problem, max_batch, ref):
    """Fewer replicas than this cannot keep up: a request costs a replica at least its share of a full batch's
    weight reads and its own tokens, ``answer * t0 / max_batch + t1 * (prompt + answer - 1)`` seconds."""
    prompt, answer = ref.means(load_of(problem))
    busy = answer * problem["t0_s"] / max_batch + problem["t1_s"] * (prompt + answer - 1)
    return max(1, math.ceil(problem["rate"] * busy))


def _nice(low, high):
    """A round number in [low, high] (two significant digits when one is there), else their geometric mean."""
    for digits in (1, 2, 3):
        for value in (float(f"{math.sqrt(low * high):.{digits}g}"), float(f"{high:.{digits}g}")):
            if low <= value <= high:
                return value
    return math.sqrt(low * high)


def grid(problem, most):
    """The max batches and token budgets the grader tries: the largest batch the KV cache holds and half of it,
    each with a budget that never binds and the smallest allowed."""
    longest = problem["prompt"][1]
    return [(m, b) for m in sorted({most, (most + 1) // 2}, reverse=True) for b in (m * longest, max(m, longest))]


def random_problem(rng, ref):
    """``(problem, found)``: a clear-cut problem and what the grader found for it.

    ``found``: ``replicas`` (the fewest that meet the SLO), ``most`` (the largest max batch within the KV
    cache), ``best``: for each number of replicas tried, ``(p99, max_batch, token_budget)`` of the best choice
    tried, and ``seen``: the p99 of every choice tried, by ``(replicas, max_batch, token_budget)``.
    """
    while True:
        answer_mean, prompt = int(rng.integers(50, 301)), (int(rng.integers(16, 257)), int(rng.integers(512, 2049)))
        problem = {"t0_s": round(float(rng.uniform(2e-3, 12e-3)), 4),
                   "t1_s": float(f"{10 ** rng.uniform(-5.3, -4.3):.2g}"), "rate": 0.0, "prompt": prompt,
                   "answer_mean": answer_mean, "answer_max": int(round(answer_mean * float(rng.uniform(3, 6)), -1)),
                   "n": N_REQUESTS, "seed": int(rng.integers(2 ** 31)),
                   "kv_bytes_per_token": int(rng.choice(KV_PER_TOKEN)), "kv_bytes": 0.0, "slo_s": 0.0}
        problem["kv_bytes"] = float(f"{kv_needed(problem, rng.integers(6, 129) * rng.uniform(1.0, 1.1)):.3g}")
        most = most_sequences(problem)
        if most < 4:
            continue
        work = answer_mean * problem["t0_s"] / most + problem["t1_s"] * (sum(prompt) / 2 + answer_mean - 1)
        target = int(rng.integers(2, 7))
        problem["rate"] = float(f"{float(rng.uniform(0.3, 0.9)) * target / work:.3g}")
        lower = lower_bound(problem, most, ref)
        if max(target, lower) <= 8:
            found = _clear_cut(problem, ref, most, max(target, lower), lower)
            if found is not None:
                return problem, found


def _clear_cut(problem, ref, most, replicas, lower):
    """The SLO that makes ``replicas`` the clear-cut fewest (set in ``problem``) and the grader's findings; None
    when there is no such SLO. ``lower``: fewer replicas than this cannot keep up (:func:`lower_bound`)."""
    widest, load, seen = most * problem["prompt"][1], load_of(problem), {}

    def tried(fewer, m, b):
        seen[(fewer, m, b)] = ref.p99(load, fewer, m, b)
        return seen[(fewer, m, b)], m, b

    best = {replicas: tried(replicas, most, widest)}
    low, high = MARGIN * best[replicas][0], min(3 * best[replicas][0], 2.5)
    for fewer in range(replicas - 1, 0, -1):
        # one replica fewer: the grid; below the throughput bound no choice keeps up, and the widest stands for all
        for m, b in grid(problem, most) if fewer == replicas - 1 and fewer >= lower else [(most, widest)]:
            best[fewer] = min(best.get(fewer, (math.inf,)), tried(fewer, m, b))
            high = min(high, best[fewer][0] / MARGIN)
            if high < low:
                return None
        if best[fewer][0] > 10 * high:                  # far behind the load: fewer replicas fall further behind
            break
    problem["slo_s"] = _nice(low, high)
    return {"replicas": replicas, "most": most, "best": best, "seen": seen}


def describe(problem):
    """The problem in one line, for feedback."""
    return (f"{problem['rate']:g} requests/s, step {problem['t0_s']:g} s + {problem['t1_s']:g} s x tokens, prompts "
            f"{problem['prompt'][0]}-{problem['prompt'][1]} tokens, answers {problem['answer_mean']} on average "
            f"(at most {problem['answer_max']}), KV cache {problem['kv_bytes'] / 1e9:.3g} GB a replica at "
            f"{problem['kv_bytes_per_token']} B a token, SLO p99 TTFT {problem['slo_s']:g} s")


def choice_problem(got, problem):
    """What is wrong with a returned choice as a choice (not its merits), or None."""
    if not (isinstance(got, (tuple, list)) and len(got) == 3
            and all(isinstance(x, numbers.Integral) and not isinstance(x, bool) for x in got)):
        return ("size_deployment must return (replicas, max_batch, token_budget), three whole numbers; "
                f"got {repr(got)[:120]}")
    replicas, max_batch, budget = (int(x) for x in got)
    if not 1 <= replicas <= MOST_REPLICAS:
        return f"replicas must be a whole number from 1 to {MOST_REPLICAS}; got {replicas}"
    if not 1 <= max_batch <= problem["n"]:
        return f"max_batch must be a whole number from 1 to the {problem['n']} requests; got {max_batch}"
    if budget > max_batch * (problem["prompt"][1] + 1) * problem["n"]:
        return f"token_budget must be at most max_batch x (longest prompt + 1) x requests; got {budget}"
    if budget < max(max_batch, problem["prompt"][1]):
        return (f"token_budget must be at least max_batch ({max_batch}) and the longest prompt "
                f"({problem['prompt'][1]} tokens), so that every request can run; got {budget}")
    return None


def _choices(size_deployment, rng, ref, problems=2):
    """For each of ``problems`` random problems: ``(problem, found, choice, text)``, where ``choice`` is None
    and ``text`` says why when the function's answer is not a valid choice."""
    for _ in range(problems):
        problem, found = random_problem(rng, ref)
        got = size_deployment(copy.deepcopy(problem))
        wrong = choice_problem(got, problem)
        choice = None if wrong else tuple(int(x) for x in got)
        plural = "s" * (choice is not None and choice[0] != 1)
        text = wrong or f"{choice[0]} replica{plural}, max_batch {choice[1]}, token_budget {choice[2]}"
        yield problem, found, choice, text


def _meets(problem, found, choice, ref):
    """Whether ``choice`` meets the SLO, and its p99 TTFT (a budget that never binds is the widest one)."""
    replicas, max_batch, budget = choice
    key = (replicas, max_batch, min(budget, max_batch * problem["prompt"][1]))
    p99 = found["seen"][key] if key in found["seen"] else ref.p99(load_of(problem), *key)
    return p99 <= problem["slo_s"] * (1 + TOLERANCE), p99


def _small_case(rng, kind):
    """Requests and a deployment for part A: a short, busy load on which ``kind`` (a limit) matters."""
    n, hi = int(rng.integers(40, 201)), int(rng.integers(32, 513))
    replicas = 1 if kind in ("max batch", "token budget") else int(rng.integers(1, 4))
    max_batch = int(rng.integers(1, 4)) if kind == "max batch" else int(rng.integers(2, 9))
    step_s = (round(float(rng.uniform(1e-3, 1e-2)), 4), float(f"{10 ** rng.uniform(-5, -4):.2g}"))
    answer_mean, burst = (1.5 if kind == "one-token answers" else float(rng.uniform(3, 30))), 4 * (kind == "bursts")
    rate = float(rng.uniform(0.5, 1.5)) * replicas / (answer_mean * step_s[0] / max_batch
                                                      + step_s[1] * (hi / 2 + answer_mean))
    gaps = rng.exponential(max(burst, 1) / rate, n)
    if burst:                                           # requests arriving together, `burst` at a time
        gaps[np.arange(n) % burst != 0] = 0.0
    requests = {"arrival": np.cumsum(gaps), "prompt_tokens": rng.integers(int(rng.integers(1, hi + 1)), hi + 1, n),
                "output_tokens": np.minimum(rng.geometric(1 / answer_mean, n), 60)}
    narrow = kind == "token budget" or rng.random() < 0.5
    budget = int(rng.integers(max(max_batch, hi), 2 * hi + 1)) if narrow else max_batch * hi
    return requests, step_s, replicas, max_batch, budget


def ttft_problem(got, expected, requests, replicas):
    """What is wrong with ``got``, the TTFTs a function returned, against ``expected``; None when they match."""
    n = len(expected)
    try:
        got = np.asarray(got, dtype=np.float64)
    except (TypeError, ValueError):
        return f"expected {n} TTFTs (seconds, one per request, in request order); got {short(got)}"
    if got.shape != (n,):
        return f"expected {n} TTFTs (seconds, one per request, in request order); got shape {got.shape}"
    wrong = ~np.isclose(got, expected, rtol=1e-6, atol=1e-9)
    if not wrong.any():
        return None
    i = int(np.flatnonzero(wrong)[0])
    return (f"request {i} (replica {i % replicas}, arriving at {requests['arrival'][i]:.6g} s, prompt "
            f"{requests['prompt_tokens'][i]} tokens, answer {requests['output_tokens'][i]} tokens): expected TTFT "
            f"{expected[i]:.6g} s, got {got[i]:.6g} s ({int(wrong.sum())} of {n} requests differ)")


@part("A: TTFT of every request of a deployment", points=3, needs=("deployment_ttft",))
def check_deployment_ttft(deployment_ttft, rng, ref):
    kinds = ("max batch", "token budget", "bursts", "one-token answers", "replicas", "replicas")
    for kind in kinds:
        requests, step_s, replicas, max_batch, budget = _small_case(rng, kind)
        expected = ref.ttft(requests, step_s, replicas, max_batch, budget)
        got = deployment_ttft(copy.deepcopy(requests), step_s, replicas, max_batch, budget)
        problem = ttft_problem(got, expected, requests, replicas)
        if problem:
            return 0, 3, (f"wrong for {len(expected)} requests on {replicas} replica(s), step {step_s[0]:g} s + "
                          f"{step_s[1]:g} s x tokens, max_batch {max_batch}, token_budget {budget}: {problem}")
    return 3, 3, f"correct on {len(kinds)} random deployments"


@part("B: the choice meets the SLO", points=2, needs=("size_deployment",))
def check_meets_slo(size_deployment, rng, ref):
    for problem, found, choice, text in _choices(size_deployment, rng, ref):
        if choice is None:
            return 0, 2, f"for {describe(problem)}: {text}"
        ok, p99 = _meets(problem, found, choice, ref)
        if not ok:
            return 0, 2, (f"misses the SLO: with {text}, the p99 TTFT of the problem's {problem['n']} requests "
                          f"is {p99:.4g} s, above the SLO of {problem['slo_s']:g} s (for {describe(problem)})")
    return 2, 2, f"meets the SLO on 2 random problems (p99 TTFT at most {TOLERANCE:.0%} above it)"


@part("C: the choice fits the KV cache", points=2, needs=("size_deployment",))
def check_fits_memory(size_deployment, rng, ref):
    for problem, found, choice, text in _choices(size_deployment, rng, ref, problems=1):
        if choice is None:
            return 0, 2, f"for {describe(problem)}: {text}"
        needed, longest = kv_needed(problem, choice[1]), problem["prompt"][1] + problem["answer_max"]
        if needed > problem["kv_bytes"]:
            return 0, 2, (f"exceeds the KV cache: max_batch {choice[1]} needs {choice[1]} x {longest} tokens x "
                          f"{problem['kv_bytes_per_token']} B = {needed / 1e9:.4g} GB, but a replica has "
                          f"{problem['kv_bytes'] / 1e9:.4g} GB for it: at most {found['most']} sequences "
                          f"(for {describe(problem)})")
    return 2, 2, "max_batch fits the KV cache on a random problem"


@part("D: the fewest replicas", points=3, needs=("size_deployment",))
def check_fewest_replicas(size_deployment, rng, ref):
    for problem, found, choice, text in _choices(size_deployment, rng, ref):
        if choice is None:
            return 0, 3, f"for {describe(problem)}: {text}"
        fewest, best, slo = found["replicas"], found["best"], problem["slo_s"]
        if choice[0] > fewest:
            p99, m, b = best[fewest]
            return 0, 3, (f"wasteful: {text}, but {fewest} replicas meet the SLO (max_batch {m}, token_budget {b}: "
                          f"p99 TTFT {p99:.4g} s <= {slo:g} s) for {describe(problem)}")
        works = kv_needed(problem, choice[1]) <= problem["kv_bytes"] and _meets(problem, found, choice, ref)[0]
        if choice[0] == fewest and not works:       # the fewest replicas count only with a choice that works
            p99, m, b = best[fewest]
            return 0, 3, (f"{text}: {fewest} replicas are the fewest, but only with a max_batch and token_budget "
                          f"within the KV cache (at most {found['most']} sequences) that meet the SLO, as max_batch "
                          f"{m}, token_budget {b} do (p99 TTFT {p99:.4g} s <= {slo:g} s); this choice does not "
                          f"(for {describe(problem)})")
        if choice[0] < fewest and not works:
            tried = choice[0] if choice[0] in best else min(best)
            p99, m, b = best[tried]
            further = "" if tried == choice[0] else ", and fewer fall further behind"
            return 0, 3, (f"{text}: no choice within the KV cache (at most {found['most']} sequences) meets the "
                          f"SLO with fewer than {fewest} replicas; with {tried} the best the grader tried (max_batch "
                          f"{m}, token_budget {b}) reaches a p99 TTFT of {p99:.4g} s, above {slo:g} s{further} "
                          f"(for {describe(problem)})")
    return 3, 3, "the fewest replicas on 2 random problems"
