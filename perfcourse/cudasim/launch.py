"""One launch: the blocks run one after another, the threads of a block take turns from barrier to barrier.

Only one simulated thread runs at a time, in the order of its index, up to its next barrier or
its end; when every live thread of the block waits at a barrier, all pass it and the barrier
interval (its *epoch*) advances. A run is the same every time, and the bookkeeping of
:mod:`.memory` never races with the kernel.
"""

from __future__ import annotations

import sys
import threading
import time

import numpy as np

from .memory import KERNEL_FILE, NEVER, SEVERAL, kernel_line

__all__ = ["MAX_BLOCK", "LaunchTimeout", "Dim3", "Launch"]

MAX_BLOCK = 1024
STACK_BYTES = 512 << 10
_EPOCH = 1 << 20


class LaunchTimeout(Exception):
    """A launch that did not finish in time (a thread that never reaches its barrier or its end)."""


class _Abort(BaseException):
    """Raised in a parked thread when its block is abandoned."""


class Dim3(tuple):
    """``(x, y, z)`` with named fields, like ``cuda.threadIdx``."""

    x, y, z = (property(lambda self, i=i: self[i]) for i in range(3))


def _dim3(value):
    if isinstance(value, (int, np.integer)):
        value = (int(value),)
    value = tuple(int(v) for v in value) + (1,) * (3 - len(value))
    if len(value) != 3 or min(value) < 1:
        raise ValueError(f"a launch dimension must be 1 to 3 positive integers; got {value}")
    return Dim3(value)


class _Thread(threading.Thread):
    def __init__(self, launch, block, index, func, args):
        super().__init__(daemon=True)
        self.launch, self.func, self.args = launch, func, args
        self.block_idx, self.thread_idx = block, index
        dims = launch.block_dim
        self.tid = index[0] + dims[0] * (index[1] + dims[1] * index[2])
        self.block_no = block[0] + launch.grid_dim[0] * (block[1] + launch.grid_dim[1] * block[2])
        self.gid = self.block_no * launch.threads_per_block + self.tid
        self.go, self.parked = threading.Event(), threading.Event()
        self.state, self.epoch, self.sites, self.reads, self.error = "run", 0, [], 0, None
        self.steps = 0                # lines of the kernel this thread executed: its own work, whatever it touched
        self.ops = 0                  # arithmetic operations on values it read (see memory.counted)
        self.marks = []               # its steps plus ops when it reached each barrier

    @property
    def stamp(self):
        return self.block_no * _EPOCH + self.epoch

    def run(self):
        self.go.wait()
        self.go.clear()
        try:
            if self.launch.aborted:
                raise _Abort
            sys.settrace(self._trace)
            try:
                self.func(*self.args)
            finally:
                sys.settrace(None)
        except _Abort:
            pass
        except BaseException as err:  # noqa: BLE001 - whatever the kernel raised is its fault, reported
            self.error = (err, _traceback_line(err))
        self.state = "done"
        self.parked.set()

    def _trace(self, frame, event, arg):
        return self._count if frame.f_code.co_filename == KERNEL_FILE else None

    def _count(self, frame, event, arg):
        if event == "line":
            self.steps += 1
        return self._count

    def barrier(self, site):
        self.sites.append(site)
        self.marks.append(self.steps + self.ops)
        self.state = "barrier"
        self.parked.set()
        self.go.wait()
        self.go.clear()
        if self.launch.aborted:
            raise _Abort


def critical_lines(marks):
    """Work a block's kernel does one after another: per interval between barriers, its busiest thread's.

    ``marks``: for each thread, its executed lines plus its operations on values it read, counted at
    each barrier it reached, then at its end. Threads wait at a barrier for the slowest, so the
    block's time is the sum over intervals of the most work any thread did in it: a tree does a few
    lines and one addition per level, a thread that adds up a chunk alone a line or an addition per
    element, whatever the values it computes look like and however many fit on one line.

    Examples
    --------
    >>> critical_lines([[5, 9, 12], [5, 30, 33]])       # two threads, two barriers: 5 + 25 + 3
    33
    >>> critical_lines([[4], [7]])
    7
    """
    intervals = min(len(m) for m in marks) if marks else 0
    total = 0
    for i in range(intervals):
        total += max(m[i] - (m[i - 1] if i else 0) for m in marks)
    return int(total)


def _traceback_line(err):
    tb, line = err.__traceback__, 0
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == KERNEL_FILE:
            line = tb.tb_lineno
        tb = tb.tb_next
    return line


class _Fault(Exception):
    pass


class Launch:
    """One kernel launch on the recording simulator (see the module's docstring)."""

    def __init__(self, grid, block, deadline):
        self.grid_dim, self.block_dim = _dim3(grid), _dim3(block)
        self.threads_per_block = self.block_dim[0] * self.block_dim[1] * self.block_dim[2]
        if self.threads_per_block > MAX_BLOCK:
            raise ValueError(f"a block has at most {MAX_BLOCK} threads; got {self.threads_per_block}")
        self.deadline, self.aborted = deadline, False
        self.race = self.unwritten = self.fault_at = None
        self.shared, self.block_state = {}, None
        self.barriers, self.reads, self.steps, self.mismatch, self.atomic_ops = [], [], [], None, 0
        self.critical = []            # per block: lines and operations on its critical path (see critical_lines)

    # --- what threads do --------------------------------------------------------------------

    @staticmethod
    def me():
        thread = threading.current_thread()
        if not isinstance(thread, _Thread):
            raise RuntimeError("a kernel function was called outside a launch (launch it: kernel[blocks, threads])")
        if thread.launch.aborted:        # an abandoned launch: its threads stop at their next memory access
            raise _Abort
        return thread

    def fault(self, what):
        me = self.me()
        raise _Fault(f"thread {me.tid} of block {me.block_no} {what}")

    def _note(self, kind, mem, slot, me, other):
        if self.race is None:
            per = self.threads_per_block
            self.race = {"kind": kind, "array": mem.name, "index": slot, "block": me.block_no, "thread": me.tid,
                         "other": None if other is None else int(other % per),
                         "other_block": None if other is None else int(other // per), "line": kernel_line()}

    def read(self, mem, slot):
        me, track = self.me(), mem._track
        me.reads += 1
        writer = track.writer[slot]
        if writer == NEVER:
            if mem.shared and self.unwritten is None:
                self.unwritten = {"array": mem.name, "index": slot, "block": me.block_no, "thread": me.tid,
                                  "line": kernel_line()}
        elif writer != me.gid and (track.wstamp[slot] == me.stamp or (not mem.shared and
                                                                      writer // self.threads_per_block != me.block_no)):
            self._note("read", mem, slot, me, writer)
        if track.rstamp[slot] == me.stamp:
            if track.reader[slot] != me.gid:
                track.reader[slot] = SEVERAL
        else:
            track.rstamp[slot], track.reader[slot] = me.stamp, me.gid

    def write(self, mem, slot):
        me, track = self.me(), mem._track
        if track.wstamp[slot] == me.stamp and track.writer[slot] != me.gid:
            self._note("write", mem, slot, me, track.writer[slot])
        elif track.rstamp[slot] == me.stamp and track.reader[slot] not in (NEVER, me.gid):
            other = track.reader[slot]
            self._note("overwrite", mem, slot, me, None if other == SEVERAL else other)
        track.writer[slot], track.wstamp[slot] = me.gid, me.stamp
        track.writers[slot] = me.gid if track.writers[slot] in (NEVER, me.gid) else SEVERAL

    def atomic(self, mem, slot):
        me, track = self.me(), mem._track
        me.reads += 1
        track.atomics[slot] += 1
        track.writers[slot] = me.gid if track.writers[slot] in (NEVER, me.gid) else SEVERAL
        track.writer[slot], track.wstamp[slot] = me.gid, me.stamp    # a plain read by another thread now races
        self.atomic_ops += 1

    # --- running the blocks -----------------------------------------------------------------

    def _wait(self, thread):
        left = self.deadline - time.monotonic()
        if left <= 0 or not thread.parked.wait(left):
            self._abandon(self.block_threads)
            raise LaunchTimeout(f"thread {thread.tid} of block {thread.block_no} did not reach a barrier or its end "
                                "in time (a loop that never ends, or a thread waiting for another)")

    def _abandon(self, threads):
        self.aborted = True
        for thread in threads:
            thread.go.set()

    def run_block(self, block, func, args):
        self.shared, self.block_state = {}, np.zeros(self.threads_per_block, np.int64)
        threads = [_Thread(self, block, Dim3(i[::-1]), func, args) for i in np.ndindex(*self.block_dim[::-1])]
        self.block_threads = threads
        size = threading.stack_size()
        threading.stack_size(STACK_BYTES)
        try:
            for thread in threads:
                thread.start()
        finally:
            threading.stack_size(size)
        live = threads
        while live:
            for thread in live:
                thread.parked.clear()
                thread.go.set()
                self._wait(thread)
                if thread.error is not None:
                    self._abandon(threads)
                    err, line = thread.error
                    if isinstance(err, _Fault):
                        self.fault_at = {"message": str(err), "line": line, "ename": "fault"}
                    else:
                        self.fault_at = {"message": f"thread {thread.tid} of block {thread.block_no} raised "
                                                    f"{type(err).__name__}: {str(err)[:200]}", "line": line,
                                         "ename": type(err).__name__[:80]}
                    return False
            live = [t for t in live if t.state == "barrier"]
            for thread in live:
                thread.state, thread.epoch = "run", thread.epoch + 1
        self._barriers(threads)
        return True

    def _barriers(self, threads):
        counts = [len(t.sites) for t in threads]
        self.barriers.append(counts)
        self.reads.append([t.reads for t in threads])
        self.steps.append([t.steps for t in threads])
        self.critical.append(critical_lines([t.marks + [t.steps + t.ops] for t in threads]))
        if self.mismatch is None:
            first = threads[0]
            for other in threads[1:]:
                if other.sites != first.sites:
                    self.mismatch = {"block": first.block_no, "thread": first.tid, "sites": first.sites[:40],
                                     "other": other.tid, "other_sites": other.sites[:40]}
                    break


