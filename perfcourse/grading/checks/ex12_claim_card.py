"""Exercise 12: write a speedup claim card from samples, judge cards, and state your own measurement."""

from __future__ import annotations

import copy
import math
import time

import numpy as np

from ...models import claimcheck as cc
from ._tools import close, counting, cpu_clock, part, short

WORKLOADS = ("dense layer X[b, d] @ W[d, d]", "row softmax", "layer norm", "sum of squares", "copy c = a")
DTYPES = ("float32", "float16", "bfloat16", "float64")
PERCENTILES = ("p50", "p50", "p90", "p95")


def _samples(rng, n, typical, tail=0.0):
    """``n`` positive durations around ``typical``; a fraction ``tail`` of them stall 2-4x longer."""
    s = typical * rng.lognormal(0.0, float(rng.uniform(0.02, 0.3)), size=n)
    stalls = rng.random(n) < tail
    s[stalls] *= rng.uniform(2.0, 4.0, size=int(stalls.sum()))
    return [float(v) for v in s]


def _context(rng, percentile=None):
    batch = int(2 ** rng.integers(0, 11))
    return {"workload": str(rng.choice(WORKLOADS)), "batch": batch,
            "shape": (batch, int(2 ** rng.integers(6, 14))), "dtype": str(rng.choice(DTYPES)),
            "percentile": percentile or str(rng.choice(PERCENTILES))}


def _pair(rng, percentile, *, slower=False, tail=0.0):
    need = cc.repeats_needed(percentile)
    typical = float(10 ** rng.uniform(-5, -1))
    speedup = float(rng.uniform(0.3, 0.9)) if slower else float(rng.uniform(1.2, 20.0))
    base = _samples(rng, int(rng.integers(need, need + 150)), typical)
    new = _samples(rng, int(rng.integers(need, need + 150)), typical / speedup, tail)
    return base, new


def random_card(rng, percentile=None, **kw):
    """An honest card drawn at random: the grader's own ``make_card`` of random samples."""
    ctx = _context(rng, percentile)
    base, new = _pair(rng, ctx["percentile"], **kw)
    return cc.make_card(base, new, ctx["workload"], ctx["batch"], ctx["shape"], ctx["dtype"], ctx["percentile"])


def _card_problem(got, expected, what):
    """Which field of ``got`` differs from the expected card, in words; None when none does."""
    if not isinstance(got, dict):
        return f"make_card must return a dict of the card's fields; got {short(got)}"
    missing = [f for f in cc.CARD_FIELDS if f not in got]
    extra = sorted(str(f) for f in got if f not in cc.CARD_FIELDS)
    if missing or extra:
        return f"the card must hold exactly the fields {', '.join(cc.CARD_FIELDS)}; " + (
            f"missing {', '.join(missing)}" if missing else f"it also holds {', '.join(extra)}")
    for f in cc.CARD_FIELDS:
        if not close(got[f], expected[f], rtol=1e-9):
            return f"wrong {f} for {what}: expected {short(expected[f])}, got {short(got[f])}"
    return None


@part("A: the card from two sets of samples", points=3, needs=("make_card",))
def check_make_card(make_card, rng, ref):
    rounds = 5
    for k in range(rounds):
        ctx = _context(rng)
        base, new = _pair(rng, ctx["percentile"], slower=k == 0)
        args = (base, new, ctx["workload"], ctx["batch"], ctx["shape"], ctx["dtype"], ctx["percentile"])
        what = f"{len(base)} baseline and {len(new)} candidate samples at {ctx['percentile']}"
        problem = _card_problem(make_card(*copy.deepcopy(args)), cc.make_card(*args), what)
        if problem:
            return 0, 3, problem
    return 3, 3, f"correct on {rounds} random pairs of samples"


def _sig3(x, rounding=round):
    """``x`` to 3 significant digits, rounded with ``rounding`` (round, math.floor or math.ceil)."""
    e = math.floor(math.log10(x)) - 2
    return rounding(x / 10 ** e) * 10 ** e


def honest_cards(rng):
    """(description, card) pairs that every check must accept."""
    rounded = random_card(rng)
    rounded["speedup"] = _sig3(rounded["speedup"])
    rounded["spread"] = [_sig3(rounded["spread"][0], math.floor), _sig3(rounded["spread"][1], math.ceil)]
    wide = random_card(rng)
    wide["spread"] = [wide["spread"][0] * 0.9, wide["spread"][1] * 1.1]
    extra = random_card(rng)
    extra["device"] = "the machine it ran on"
    return [("an honest card", random_card(rng)), ("an honest card, rounded to 3 significant digits", rounded),
            ("an honest card quoting a wider spread", wide), ("an honest card with an extra device field", extra),
            ("an honest card whose candidate is slower", random_card(rng, slower=True)),
            ("an honest card at p95", random_card(rng, "p95"))]


def _other_percentile(rng):
    """A card that quotes the speedup of one percentile but names another."""
    for _ in range(50):
        quoted, named = ("p50", "p90") if rng.random() < 0.5 else ("p90", "p50")
        card = random_card(rng, quoted, tail=0.25)
        card["percentile"] = named
        if cc.problems(card)[:1] and cc.problems(card)[0].startswith("percentile"):
            return card
    raise RuntimeError("no card with a clearly different percentile was drawn")


def _too_few(rng, percentile, n):
    ctx = _context(rng, percentile)
    base, new = (_samples(rng, n, 1e-3), _samples(rng, n, 5e-4))
    q = cc.percentile_q(percentile)
    speedup = cc.quantile(base, q) / cc.quantile(new, q)
    return {**ctx, "shape": list(ctx["shape"]), "baseline_s": base, "candidate_s": new, "speedup": speedup,
            "spread": [min(base) / max(new), max(base) / min(new)]}


def dishonest_cards(rng):
    """(description, card) pairs that every check must refuse, one of each kind."""
    missing = random_card(rng)
    del missing[str(rng.choice(cc.CARD_FIELDS[:5] + ("spread",)))]
    outside = random_card(rng)
    outside["speedup"] = outside["spread"][1] * float(rng.uniform(1.3, 3.0))
    narrow = random_card(rng, "p50")
    while narrow["spread"][1] < narrow["spread"][0] * 1.05:
        narrow = random_card(rng, "p50")
    narrow["spread"] = [narrow["speedup"] * 0.995, narrow["speedup"] * 1.005]
    return [(f"a card missing its {next(f for f in cc.CARD_FIELDS if f not in missing)}", missing),
            ("a card whose speedup lies outside its samples' spread", outside),
            ("a card whose speedup is that of another percentile than the one it names", _other_percentile(rng)),
            ("a card with too few repeats at p50", _too_few(rng, "p50", int(rng.integers(3, cc.MIN_REPEATS)))),
            ("a card with too few repeats for p95", _too_few(rng, "p95", int(rng.integers(20, 100)))),
            ("a card quoting a spread narrower than its samples allow", narrow)]


@part("B: does a card's own evidence support it?", points=3, needs=("supported",))
def check_supported(supported, rng, ref):
    cases = [(d, c, True) for d, c in honest_cards(rng)] + [(d, c, False) for d, c in dishonest_cards(rng)]
    for i in rng.permutation(len(cases)):
        what, card, expected = cases[int(i)]
        got = supported(copy.deepcopy(card))
        if not isinstance(got, (tuple, list)) or len(got) != 2 or not isinstance(got[1], str):
            return 0, 3, f"supported(card) must return (True or False, a reason); got {short(got)}"
        verdict = got[0]
        if not isinstance(verdict, (bool, np.bool_)):
            return 0, 3, f"the first item of supported(card) must be True or False; got {short(verdict)}"
        if bool(verdict) != expected:
            return 0, 3, f"wrong for {what}: expected {expected}, got {bool(verdict)} ({short(got[1])})"
        if not expected and not got[1].strip():
            return 0, 3, f"supported(card) refused {what} without saying why: return a reason"
    return 3, 3, f"correct on {len(cases)} random cards ({len(cases) // 2} honest, {len(cases) // 2} not)"


def made_up(samples):
    """Why ``samples`` (seconds) cannot be a measurement, or None: constant, repeating or evenly spaced.

    A clock read around real work never gives the same duration twice in a row of ten, nor
    durations exactly evenly spaced; numbers typed in do.

    Examples
    --------
    >>> made_up([2e-3] * 20)
    'its 20 samples are all 0.002 s: a measurement is never constant'
    >>> made_up([1e-3 + k * 1e-5 for k in range(20)])[:40]
    'its 20 samples are evenly spaced, 1e-05 '
    >>> made_up([1.03e-3, 0.98e-3, 1.11e-3, 1.0e-3, 1.26e-3, 0.99e-3, 1.02e-3, 1.07e-3, 1.0e-3, 0.97e-3]) is None
    True
    """
    x = np.sort(np.asarray(samples, dtype=np.float64))
    if x.size < 3:
        return None
    if x[0] == x[-1]:
        return f"its {x.size} samples are all {short(float(x[0]))} s: a measurement is never constant"
    distinct = np.unique(x).size
    if distinct < x.size / 2:
        return (f"its {x.size} samples take only {distinct} distinct values: a clock read around real work "
                "rarely repeats itself (keep the raw samples the clock gave: rounded or typed-in ones repeat)")
    steps = np.diff(x)
    if np.allclose(steps, steps.mean(), rtol=1e-6, atol=1e-15):
        return (f"its {x.size} samples are evenly spaced, {short(float(steps.mean()))} s apart: measured durations "
                "scatter")
    return None


def repeated(first, second):
    """Why two cards from two calls of ``my_card()`` cannot both be measurements, or None.

    Two measurements taken one after the other share no sample: a clock read in nanoseconds around
    real work does not give the same duration again. Samples typed in (or kept from an earlier run)
    come back unchanged.

    Examples
    --------
    >>> card = {"baseline_s": [1.03e-3, 0.98e-3, 1.11e-3, 1.0e-3], "candidate_s": [2.1e-4, 1.9e-4, 2.2e-4, 2.0e-4]}
    >>> repeated(card, {"baseline_s": [1.01e-3, 0.99e-3, 1.2e-3, 1.05e-3], "candidate_s": [2e-4] * 4}) is None
    True
    >>> repeated(card, dict(card))[:60]
    'my_card() returned 8 of the same 8 samples when called again'
    >>> repeated(card, {k: [x * 1.001 for x in v] for k, v in card.items()})[:61]
    "the baseline_s of my_card()'s second call follow those of its"
    """
    old = [float(x) for s in SIDES for x in first[s]]
    seen = set(old)
    same = sum(1 for s in SIDES for x in second[s] if float(x) in seen)
    if same > len(old) // 2:
        return (f"my_card() returned {same} of the same {len(old)} samples when called again: samples measured when "
                "it runs differ from run to run, and typed-in or stored ones do not (time both versions inside "
                "my_card(), every time it is called, and keep the raw samples: rounded ones repeat too)")
    for side in SIDES:                  # the first call's samples, each rescaled a little: a copy, not a measurement
        a, b = np.log(np.asarray(first[side], float)), np.log(np.asarray(second[side], float))
        if a.size == b.size and a.size >= 3 and np.std(b - a) < TRACKS * np.std(a):
            return (f"the {side} of my_card()'s second call follow those of its first one by one (each within "
                    f"{np.ptp(b - a) * 100:.2g}% of the sample in its place, while the samples themselves spread "
                    f"{np.ptp(a) * 100:.3g}%): two measurements scatter independently, a rescaled copy does not")
    return None


SIDES = ("baseline_s", "candidate_s")
VERSIONS = {"baseline_s": "per_row", "candidate_s": "batched"}   # the function each side's samples time
ARGUMENTS = ("X", "W")      # ... called on the notebook's own arrays: a call on anything else times other work
TRACKS_CALLS = 1.25         # a side's median (and the speedup) within this factor of the last calls my_card() made
TRACKS = 0.25               # a second card whose log-samples differ from the first's, place by place, by less than this
                            # share of their own spread is the first card rescaled (measured ones differ by ~1.4x it)
ROUNDS = 12                 # the grader's own samples of each version, taken in turns
CALL_S = 0.02               # each timed call runs the version long enough to dwarf the call's own cost
NOISY_SPREAD = 3.0          # a spread wider than this ratio is timed again (a busy machine) ...
RETIMES = 3                 # ... up to this many times in all; the last spread judges, however wide
DRIFT = 2.0                 # the card may differ this much beyond the grader's spread: the load changes
MEASURED_SHARE = 0.9        # my_card() must take at least this share of the time its samples add up to
BUSY_SHARE = 0.25           # ... and keep its process on the CPU for at least this share of it: both versions are
                            # CPU work in the grader's sandbox, and a measurement runs them (a sleep runs nothing);
                            # the rest allows for a loaded machine that keeps the kernel waiting for a core
TIME_DRIFT = 4.0            # a card's p50 of each version within this factor of the grader's per-call times (a
                            # GPU's calls timed one by one, synchronised, cost more than the grader's back to back)


def _seconds(run, times):
    started = time.perf_counter()
    run(times)
    return (time.perf_counter() - started) / times


def grader_samples(run_per_row, run_batched, *, rounds=ROUNDS):
    """Seconds per call of per_row and of batched, ``rounds`` samples each taken in turns, with the grader's clock."""
    runs = (run_per_row, run_batched)
    times = []
    for run in runs:
        once = max(_seconds(run, 1), 1e-6)            # a warm-up, and the size of one call
        times.append(int(min(max(CALL_S / once, 1), 1000)))
    samples = ([], [])
    for _ in range(rounds):
        for side, run in enumerate(runs):
            samples[side].append(_seconds(run, times[side]))
    return samples


def grader_speedup(run_per_row, run_batched, *, rounds=ROUNDS):
    """``(speedup, (low, high))`` of batched over per_row at p50, timed here with the grader's own clock."""
    return cc.speedup_spread(*grader_samples(run_per_row, run_batched, rounds=rounds), "p50")


def _time_problem(card, samples):
    """Why a card's own times are not this machine's (its samples far from the grader's), or None."""
    for side, name, own in (("baseline_s", "per_row", samples[0]), ("candidate_s", "batched", samples[1])):
        claimed, low, high = float(np.median(card[side])), min(own), max(own)
        if not low / TIME_DRIFT <= claimed <= high * TIME_DRIFT:
            return (f"your card's {name} takes {claimed:.3g} s at p50, but the grader timed one call at {low:.3g} s "
                    f"to {high:.3g} s: samples of this machine fall within a factor {TIME_DRIFT:g} of that")
    return None


def _measured_card(my_card, clock, which):
    """``(card, None)`` from one call of ``my_card``, or ``(None, why it is refused)``: every call is checked alike."""
    cpu, started = clock(), time.perf_counter()
    card, calls = counting(my_card, {version: ARGUMENTS for version in VERSIONS.values()})
    took, cpu = time.perf_counter() - started, clock() - cpu
    found = cc.problems(card)
    if found:
        return None, f"your card ({which}) is refused: {found[0]}"
    tails = {}
    for side, version in VERSIONS.items():
        if calls is None:           # nothing to count with (a stand-in function of the tests)
            break
        made, times = calls.get(version, (0, []))
        if made < len(card[side]):
            return None, (f"your card ({which}) is refused: its {side} holds {len(card[side])} samples, but my_card() "
                          f"called {version}(X, W) {made} times: every sample must time calls of {version} on the "
                          f"notebook's X and W, made while my_card() runs (call it by that name)")
        claimed, typical = float(np.median(card[side])), float(np.median(times[-len(card[side]):]))
        if not typical / TRACKS_CALLS <= claimed <= typical * TRACKS_CALLS:   # the last calls: the samples' own
            return None, (f"your card ({which}) is refused: its {side} says {claimed:.3g} s per call at the median, "
                          f"but the last {len(card[side])} calls of {version}(X, W) that my_card() made took "
                          f"{typical:.3g} s each at the median: a card's samples are the times of the calls it made")
        tails[side] = typical
    if tails:                       # both sides within the allowance, but pulled apart: the speedup must follow too
        calls_speedup = tails["baseline_s"] / tails["candidate_s"]
        claimed = float(np.median(card["baseline_s"]) / np.median(card["candidate_s"]))
        if not calls_speedup / TRACKS_CALLS <= claimed <= calls_speedup * TRACKS_CALLS:
            return None, (f"your card ({which}) is refused: its samples give {claimed:.3g}x at the median, but the "
                          f"calls my_card() made give {calls_speedup:.3g}x: a card's samples are the times of the "
                          "calls it made")
    for side in SIDES:
        why = made_up(card[side])
        if why:
            return None, f"your card ({which}) is refused: {side} cannot be a measurement: {why}"
    timed = float(sum(card["baseline_s"]) + sum(card["candidate_s"]))
    if took < MEASURED_SHARE * timed:
        return None, (f"your card ({which}) is refused: its samples add up to {timed:.3g} s of timed runs, but "
                      f"my_card() returned after {took:.3g} s, so they were not measured when it ran: my_card() must "
                      "time both versions itself, each time it is called")
    if cpu < BUSY_SHARE * timed:
        return None, (f"your card ({which}) is refused: its samples add up to {timed:.3g} s of timed runs, but "
                      f"my_card() kept the CPU busy for only {cpu:.3g} s while it ran, so it did not run both versions "
                      "for that long: every sample must time a run (waiting, as time.sleep does, measures nothing)")
    return card, None


@part("C: your own card, from your own samples", points=3, needs=("my_card", "run_per_row", "run_batched"),
      timeout_s=40, given=("run_per_row", "run_batched"))
def check_my_card(my_card, run_per_row, run_batched, rng, ref):
    clock = cpu_clock(my_card)
    cards = []
    for which in ("first call", "second call"):   # two measurements: a clock read around real work never repeats
        card, why = _measured_card(my_card, clock, which)
        if why:
            return 0, 3, why
        cards.append(card)
    card, again = cards
    why = repeated(card, again)
    if why:
        return 0, 3, f"your card is refused: {why}"
    for _ in range(RETIMES):            # a busy machine: time again, and judge by the quietest timing
        samples = grader_samples(run_per_row, run_batched)
        speedup, (low, high) = cc.speedup_spread(samples[0], samples[1], "p50")
        if high <= NOISY_SPREAD * low:
            break
    for card in cards:
        claimed = float(card["speedup"])
        if not low / DRIFT <= claimed <= high * DRIFT:
            return 0, 3, (f"your card claims {claimed:.3g}x, but the grader timed run_per_row and run_batched itself "
                          f"and measured {speedup:.3g}x (p50 of {ROUNDS} runs each, spread {low:.3g}x to {high:.3g}x): "
                          "a card's speedup must be one this machine shows")
        problem = _time_problem(card, samples)
        if problem:
            return 0, 3, f"your card is refused: {problem}"
    return 3, 3, f"{cc.supported(cards[0])[1]}; the grader measured {speedup:.3g}x itself"
