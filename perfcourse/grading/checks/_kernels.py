"""Kernel parts: the check launches the learner's ``@cuda.jit`` kernel itself and reads what it did.

A kernel part receives, for each kernel it names, a launcher: ``block_tree(blocks, threads,
x, out)`` launches the kernel on the grader's arrays and returns a :class:`Run`: the arrays
after the launch, who wrote each element, each thread's barriers and element reads, and the
first race, read of unwritten shared memory, divergent barrier or fault
(:mod:`perfcourse.cudasim`). Graded, the launch happens in a fresh sandboxed process
that compiled the kernel for a GPU first and never ran the notebook; in a notebook's own
self-check it happens here, on the same simulator, from the cells this notebook ran.
"""

from __future__ import annotations

import inspect

import numpy as np

from ...cudasim import FakeCuda, LaunchTimeout, kernels_of, simulate
from ..kernelsource import KernelModule, KernelSourceError, kernel_module

__all__ = ["Run", "KernelFailed", "local_launchers", "tree_bound", "lines_problem", "NOT_COMPILED"]

NOT_COMPILED = "not compiled for a GPU here; the grader compiles it for sm_90"


class KernelFailed(Exception):
    """A launch the grader could not make (no such kernel, it does not compile, it did not load)."""


def tree_bound(levels, per_level=2):
    """The most element reads one thread of a tree (or scan) of ``levels`` levels may make.

    A tree thread reads ``per_level`` elements per level (two: its own and its partner's) and
    a few more to load and store; a thread that adds up its block alone reads every element,
    and a two-level sqrt(T) scheme reads about ``2 sqrt(T)``.

    Examples
    --------
    >>> tree_bound(7), tree_bound(12, per_level=3)
    (18, 40)
    """
    return per_level * int(levels) + 4


LINES_AT_START = 30      # lines a block may run one after another besides its levels: loads, the last write


def lines_problem(run, call, levels, per_level, shape):
    """Why ``run``'s critical path, in lines of the kernel and additions, is longer than ``levels`` levels of
    ``per_level`` each allow (serial work however its values look and however many additions fit on a line),
    or None.

    Examples
    --------
    >>> class Ran:
    ...     def critical_lines(self):
    ...         return 363, 1
    >>> print(lines_problem(Ran(), "k[2, 128]", 7, 10, "a tree of 128 threads"))  # doctest: +NORMALIZE_WHITESPACE
    k[2, 128] is right, but block 1 ran 363 lines and additions of the kernel one after another (between each two
    barriers, its busiest thread's, added up): serial work, however its values were computed; a tree of 128
    threads runs a few per level, 7 levels (at most 100 are accepted)
    """
    lines, block = run.critical_lines()
    most = per_level * int(levels) + LINES_AT_START
    if lines <= most:
        return None
    return (f"{call} is right, but block {block} ran {lines} lines and additions of the kernel one after another "
            f"(between each two barriers, its busiest thread's, added up): serial work, however its values were "
            f"computed; {shape} runs a few per level, {levels} levels (at most {most} are accepted)")


class Run:
    """What one launch of a learner's kernel did (see the module's docstring)."""

    def __init__(self, record, module, name):
        fault = record.get("fault") or {}
        if fault.get("ename") == "NotImplementedError":      # the exercise's stub, untouched
            raise NotImplementedError
        self.record, self.module, self.name = record, module, name
        self.arrays = [np.asarray(a) for a in record["arrays"]]
        self.writers = [np.asarray(w) for w in record["writers"]]
        self.atomics = [np.asarray(a) for a in record["atomics"]]
        self.barriers = [list(b) for b in record["barriers"]]
        self.reads = [list(r) for r in record["reads"]]
        self.steps = [list(s) for s in record.get("steps", [])]
        self.depths = [np.asarray(d) for d in record.get("depths", [np.zeros(a.size, np.int64) for a in self.arrays])]

    def _at(self, line):
        where = self.module.where(line) if line else ""
        return f" ({where})" if where else ""

    def problem(self):
        """The first thing this launch did that a GPU forbids or that makes its result luck, or None."""
        r = self.record
        if r["timeout"]:
            return r["timeout"]
        if r["fault"]:
            return f"{r['fault']['message']}{self._at(r['fault']['line'])}"
        if r["mismatch"]:
            return self._mismatch(r["mismatch"])
        if r["race"]:
            return self._race(r["race"])
        if r["unwritten"]:
            u = r["unwritten"]
            return (f"thread {u['thread']} of block {u['block']} read {u['array']}[{u['index']}], which no thread had "
                    "written: shared memory starts as garbage (the grader fills it with NaN), so every slot a "
                    f"thread reads must be stored first, 0.0 past the end of the data{self._at(u['line'])}")
        return None

    def _mismatch(self, m):
        mine, theirs = m["sites"], m["other_sites"]
        if len(mine) != len(theirs):
            line = (mine if len(mine) > len(theirs) else theirs)[min(len(mine), len(theirs))]
            return (f"the threads of block {m['block']} passed different numbers of barriers (thread {m['thread']}: "
                    f"{len(mine)}, thread {m['other']}: {len(theirs)}): a cuda.syncthreads() that only some threads "
                    f"of a block reach is not allowed in CUDA, and a GPU hangs or corrupts the result there; call it "
                    f"where every thread of the block passes{self._at(line)}")
        k = next(i for i, (a, b) in enumerate(zip(mine, theirs, strict=True)) if a != b)
        return (f"the threads of block {m['block']} met at different cuda.syncthreads() calls (thread {m['thread']} "
                f"at{self._at(mine[k])}, thread {m['other']} at{self._at(theirs[k])}): every thread of a block must "
                "reach the same barrier; call it once, outside the if")

    def _race(self, race):
        who = f"thread {race['thread']} of block {race['block']}"
        slot = f"{race['array']}[{race['index']}]"
        if race["other"] is None:
            other = "other threads"
        elif race["other_block"] != race["block"]:
            other = f"thread {race['other']} of block {race['other_block']}"
        else:
            other = f"thread {race['other']}"
        hint = ("blocks run in no fixed order, and a block cannot wait for another" if race["other_block"] not in
                (None, race["block"]) else "a cuda.syncthreads() is missing between them")
        text = {"read": f"{who} read {slot}, which {other} wrote since the last barrier",
                "write": f"{who} and {other} both wrote {slot} between the same two barriers",
                "overwrite": f"{who} wrote {slot}, which {other} read since the last barrier"}[race["kind"]]
        return f"a race: {text}; {hint} (on a GPU the result would depend on timing){self._at(race['line'])}"

    def barrier_count(self):
        """The barriers one block passed (every thread of a block passes the same ones once :meth:`problem` is None)."""
        return max((max(b) for b in self.barriers if b), default=0)

    def busiest(self):
        """``(reads, block, thread)`` of the thread that read the most elements."""
        return _most(self.reads)

    def most_steps(self):
        """``(steps, block, thread)`` of the thread that executed the most lines of the kernel: its own work."""
        return _most(self.steps)

    def depth(self, index):
        """The longest chain of operations, one after another, behind what the kernel wrote in array ``index``."""
        written = self.writers[index] >= 0
        return int(self.depths[index][written].max()) if written.any() else 0

    def total_reads(self):
        """Element reads of all threads together: the launch's work."""
        return int(sum(sum(r) for r in self.reads))

    def critical_lines(self):
        """``(lines, block)``: the most lines of the kernel any block ran one after another (its critical path)."""
        per_block = list(self.record.get("critical", [])) or [0]
        block = int(np.argmax(per_block))
        return int(per_block[block]), block

    def atomic_ops(self):
        """Atomic updates the launch made, in any array."""
        return int(self.record.get("atomic_ops", 0))


def _most(per_block):
    """``(count, block, thread)`` of the largest of ``per_block`` (a list of per-thread counts for each block)."""
    best = (0, 0, 0)
    for block, counts in enumerate(per_block):
        for thread, count in enumerate(counts):
            best = max(best, (int(count), block, thread), key=lambda b: b[0])
    return best


def _history(namespace):
    """The code this notebook ran: IPython's input history, else the source of each kernel in it."""
    cells = namespace.get("In")
    if isinstance(cells, list) and all(isinstance(c, str) for c in cells):
        return list(cells)
    sources = []
    for value in namespace.values():
        func = getattr(value, "py_func", None)
        if callable(func):
            try:
                sources.append("@cuda.jit\n" + inspect.getsource(func).split("\n", 1)[1])
            except (OSError, TypeError, IndexError):
                continue
    constants = [f"{k} = {v!r}" for k, v in namespace.items() if k.isupper() and isinstance(v, (int, float))]
    return ["\n".join(constants), *sources]


def local_launchers(namespace, names, *, timeout_s=60.0):
    """Launchers for the notebook's own self-check: the same simulator, in this process, from its cells."""
    try:
        module = kernel_module(_history(namespace), [])
        kernels, cuda = kernels_of(module.text, FakeCuda())
    except (KernelSourceError, SyntaxError, Exception) as err:  # noqa: BLE001 - the learner's code, reported
        module, kernels, cuda, failed = KernelModule(""), {}, None, f"{type(err).__name__}: {err}"
    else:
        failed = None

    def launcher(name):
        def launch(grid, block, *args):
            if failed:
                raise KernelFailed(f"your kernels could not be loaded: {failed}")
            if name not in kernels:
                raise KernelFailed(module.refused.get(name, f"the notebook defines no @cuda.jit kernel named {name}"))
            try:
                return Run(simulate(kernels[name], cuda, grid, block, list(args), timeout_s=timeout_s), module, name)
            except LaunchTimeout as err:
                raise KernelFailed(str(err)) from None

        launch.__name__ = name
        launch.compiled = NOT_COMPILED
        return launch

    return {name: launcher(name) for name in names}
