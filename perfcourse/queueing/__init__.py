"""Queueing: M/M/1, M/D/1 and M/M/c (Erlang C) formulas, and a simulator to check them.

Rates are in requests per second, times in seconds; percentiles are percents (99 for p99).
The formulas live in :mod:`.formulas`; the discrete-event simulator (FCFS on one server or on
several sharing one queue, static, dynamic and continuous batching) in :mod:`.simulator` and
:mod:`.continuous`, its inputs (arrivals, service times) in :mod:`.servicetime`, its per-request
records and Little's-law check in :mod:`.simtrace`. Everything is reachable from here
(``pc.queueing.simulate(...)``); the simulator is imported only on first use.
"""

from __future__ import annotations

import importlib

from .formulas import MMcStats, QueueStats, erlang_c, md1, mm1, mmc

# name -> submodule that defines it, imported on first use
_LAZY = {
    **dict.fromkeys(("continuous_batch", "Requests", "token_requests"), "continuous"),
    **dict.fromkeys(("Poisson", "Service", "affine", "exponential", "table"), "servicetime"),
    **dict.fromkeys(("LittleCheck", "StepLog", "Trace", "batch_means", "little_check", "percentiles"), "simtrace"),
    **dict.fromkeys(("POLICIES", "dynamic_batch", "fcfs", "lindley_starts", "shared_queue_starts", "simulate",
                     "static_batch", "sweep"), "simulator"),
}

__all__ = ["QueueStats", "mm1", "md1", "MMcStats", "mmc", "erlang_c", *_LAZY]


def __getattr__(name):
    if name not in _LAZY:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{_LAZY[name]}", __name__), name)
    globals()[name] = value
    return value
