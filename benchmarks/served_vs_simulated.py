"""The course's language model served for real against the simulator fed its fitted step time.

Profile, then simulate: the model's decode steps are timed at several batch sizes, a line
``t(tokens) = t0 + t1 x tokens`` is fitted to them, and the same Poisson arrivals are served
by the real continuous-batching server (:func:`perfcourse.labs.llmserve.serve`) and simulated
by :func:`perfcourse.queueing.continuous_batch` with that line. The script prints, at two
loads, the served and simulated p50 and p99 of the time to first token (TTFT) and of the time
per output token (TPOT), and their ratios; then the same with the line fitted to the served
steps themselves.

    python benchmarks/served_vs_simulated.py             # about a minute on 2 cores
    python benchmarks/served_vs_simulated.py --requests 60

Not a test: the served side is timed on this machine, under whatever else it runs.
"""

from __future__ import annotations

import argparse

import perfcourse as pc

MAX_BATCH, PROMPT, ANSWER_MEAN, ANSWER_MAX = 16, 8, 24, 96


def table(name, served, simulated):
    print(f"  {name}")
    print(f"    {'':>10} {'TTFT p50':>10} {'TTFT p99':>10} {'TPOT p50':>10} {'TPOT p99':>10}")
    rows = {}
    for label, tr in (("served", served), ("simulated", simulated)):
        rows[label] = [*tr.percentiles("ttft", (50, 99)).values(), *tr.percentiles("tpot", (50, 99)).values()]
        print(f"    {label:>10} " + " ".join(f"{x * 1e3:>7.1f} ms" for x in rows[label]))
    ratios = (s / r for s, r in zip(rows["simulated"], rows["served"], strict=True))
    print(f"    {'sim/served':>10} " + " ".join(f"{x:>10.3f}" for x in ratios))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=150, help="requests served at each load")
    parser.add_argument("--preset", default=None, help="model preset (default: cpu, or gpu-small on a GPU)")
    args = parser.parse_args()
    backend = pc.backend.get()
    preset = args.preset or ("gpu-small" if backend.on_gpu else "cpu")
    model = pc.llm.Model(preset, slots=MAX_BATCH, seed=0)
    print(f"{model}\n{backend.name} on {backend.device}")
    batches = [1, 2, 4, 8, 16]
    steps = [pc.llmserve.decode_timing(model, b, 64).p50 for b in batches]
    profiled = pc.llmserve.fit_step_time(batches, steps)
    t0 = float(profiled([0])[0])
    t1 = float(profiled([1])[0]) - t0
    # each request shares the fixed cost of about ANSWER_MEAN steps and brings prompt + answer - 1 tokens
    capacity = 1 / (ANSWER_MEAN * t0 / MAX_BATCH + t1 * (PROMPT + ANSWER_MEAN - 1))
    print(f"profiled step: {profiled.label}; capacity about {capacity:.3g} requests/s")
    for load in (0.45, 0.65):
        reqs = pc.queueing.token_requests(args.requests, load * capacity, prompt=(PROMPT, PROMPT),
                                          answer_mean=ANSWER_MEAN, answer_max=ANSWER_MAX, seed=7)
        served = pc.llmserve.serve(model, reqs, max_batch=MAX_BATCH)
        print(f"\nload {load:.0%} of capacity: {reqs.arrival.size} requests at {load * capacity:.3g}/s")
        for name, svc in (("step time profiled from the decode sweep", profiled),
                          ("step time fitted to the served steps", served.step_model())):
            sim = pc.queueing.continuous_batch(reqs.arrival, svc, max_batch=MAX_BATCH, **reqs.options())
            table(f"{name} ({svc.label})", served.trace, sim)


if __name__ == "__main__":
    main()
