"""Exercise 11 E: the block size that keeps the most warps of a kernel resident on one H200 SM.

The learner gets CUDA's occupancy rules in the notebook and applies them; the grader asks
:func:`perfcourse.models.occupancy.estimate` (withheld from the sandbox while exercise 11 is graded)
for every block size, and accepts any size that reaches the best occupancy, with that size's
occupancy and a resource that binds there. Its budgets are drawn so that leaving out any one rule
(:data:`RULES`) gives a wrong answer on at least one of them.
"""

from __future__ import annotations

import numbers

from ...models.occupancy import estimate
from ._tools import short

SIZES = tuple(range(32, 1025, 32))              # the block sizes the part chooses among
LIMITS = ("threads", "blocks", "registers", "shared memory")


def residency(registers, shared):
    """``{threads_per_block: Occupancy}`` for every size of :data:`SIZES` whose block can run.

    Examples
    --------
    >>> table = residency(40, 0)
    >>> max(e.occupancy for e in table.values()), table[1024].occupancy, 1024 in residency(65, 0)
    (0.75, 0.5, False)
    """
    found = {}
    for threads in SIZES:
        try:
            found[threads] = estimate(threads_per_block=threads, registers_per_thread=registers,
                                      shared_bytes_per_block=shared)
        except ValueError:          # one block of this size needs more registers than an SM has
            continue
    return {t: e for t, e in found.items() if e.blocks_per_sm > 0}


def _hint(threads, got, e):
    """What a wrong occupancy at ``threads`` most likely left out."""
    warps = -(-threads // 32)
    if got == min(64 // warps, 32) * warps / 64 and e.limit in ("registers", "shared memory"):
        return f": that counts only threads and blocks; here {e.limit} allow {e.by_limit[e.limit]} blocks"
    return ""


def problem(got, registers, shared):
    """Why ``got`` is not a best block size for a kernel of ``registers`` and ``shared`` bytes, or None.

    Examples
    --------
    >>> problem({"threads_per_block": 384, "occupancy": 0.75, "limit": "registers"}, 40, 0) is None
    True
    >>> problem({"threads_per_block": 1024, "occupancy": 0.5, "limit": "registers"}, 40, 0)
    '1024 threads a block keep 50% of the warps resident, but 64 threads keep 75%'
    """
    if not isinstance(got, dict) or set(got) != {"threads_per_block", "occupancy", "limit"}:
        return f"return a dict with the keys threads_per_block, occupancy and limit; got {short(got)}"
    threads, share, limit = got["threads_per_block"], got["occupancy"], got["limit"]
    table = residency(registers, shared)
    if not isinstance(threads, numbers.Integral) or isinstance(threads, bool) or threads not in SIZES:
        return f"threads_per_block must be a multiple of 32 from 32 to 1024; got {short(threads)}"
    if threads not in table:
        return (f"no block of {threads} threads fits on the SM: at {registers} registers a thread the registers allow "
                f"0 blocks of {-(-threads // 32)} warps (leave such a size out)")
    best = max(table, key=lambda t: (table[t].occupancy, -t))
    e = table[threads]
    if e.occupancy < table[best].occupancy:
        return (f"{threads} threads a block keep {e.occupancy:.0%} of the warps resident, but {best} threads keep "
                f"{table[best].occupancy:.0%}")
    if not isinstance(share, numbers.Real) or isinstance(share, bool) or abs(share - e.occupancy) > 1e-9:
        return (f"occupancy at {threads} threads a block: {e.blocks_per_sm} blocks of {-(-threads // 32)} warps are "
                f"{e.active_warps} of 64 warps, {e.occupancy:g}; got {short(share)}{_hint(threads, share, e)}")
    binding = [name for name in LIMITS if e.by_limit[name] == e.blocks_per_sm]
    if limit not in binding:
        allowed = ", ".join(f"{name} {e.by_limit[name]}" for name in LIMITS)
        return (f"at {threads} threads a block the blocks each resource allows are: {allowed}; the limit is the "
                f"resource that allows the fewest ({' or '.join(binding)}), got {short(limit)}")
    return None


RULES = {"the 256-register unit": dict(unit=32), "whole warps per sub-partition": dict(partitions=1),
         "the 1 KB reserved per block": dict(reserved=0), "the 128-byte shared memory unit": dict(shared_unit=1),
         "the limit of 32 blocks": dict(blocks=64)}


def without(registers, shared, *, unit=256, partitions=4, reserved=1024, shared_unit=128, blocks=32):
    """The answer of the notebook's rules with one left out (a keyword changed): what a slip gives.

    Examples
    --------
    >>> without(40, 0)["occupancy"], without(40, 0, partitions=1)["occupancy"]
    (0.75, 0.796875)
    """
    per_warp = -(-registers * 32 // unit) * unit
    per_block = -(-(shared + reserved) // shared_unit) * shared_unit
    best = None
    for threads in SIZES:
        warps = threads // 32
        fit = min(64 // warps, blocks, partitions * (65536 // partitions // per_warp) // warps,
                  233472 // per_block if per_block else blocks)
        if fit and (best is None or fit * warps / 64 > best["occupancy"]):
            best = {"threads_per_block": threads, "occupancy": fit * warps / 64, "limit": "threads"}
    return best


def wrong(slip, registers, shared):
    """True when ``slip`` (a block size and its occupancy) is not a best size, or not its true occupancy."""
    table = residency(registers, shared)
    threads = slip["threads_per_block"] if slip else None
    if threads not in table:
        return True
    top = max(e.occupancy for e in table.values())
    return table[threads].occupancy < top or abs(table[threads].occupancy - slip["occupancy"]) > 1e-9


def _telling(draw, rule):
    """A budget from ``draw`` on which leaving out ``rule`` gives a wrong block size or occupancy."""
    for _ in range(5000):
        registers, shared = draw()
        if wrong(without(registers, shared, **RULES[rule]), registers, shared):
            return registers, shared
    raise RuntimeError(f"no budget tells {rule} apart")         # never: each rule changes many budgets


def cases(rng):
    """(registers, shared bytes) a grading asks about: each rule of the notebook decides at least one of them."""
    draws = {"the 256-register unit": lambda: (int(rng.integers(16, 128)), 0),
             "whole warps per sub-partition": lambda: (int(rng.integers(33, 128)), 0),
             "the 1 KB reserved per block": lambda: (int(rng.integers(33, 128)), int(rng.integers(1024, 48 * 1024))),
             # just below the shared memory that k blocks fit in, unrounded: the rounding leaves room for k - 1
             "the 128-byte shared memory unit": lambda: (int(rng.integers(33, 128)),
                                                         233472 // int(rng.integers(5, 25)) - 1024),
             "the limit of 32 blocks": lambda: (int(rng.integers(16, 64)), 0)}
    found = [_telling(draw, rule) for rule, draw in draws.items()]
    found.append((int(rng.integers(129, 256)), 0))
    return [found[i] for i in rng.permutation(len(found))]
