"""The grader's side of one kernel: start it, run a notebook in it, call its functions, kill it.

A kernel is the runner (:mod:`perfcourse.grading.runner`) in a sandbox
(:mod:`perfcourse.grading.sandbox`), spoken to in JSON lines over its standard input and
output. Everything it sends is untrusted: the grader reads at most
:data:`MAX_MESSAGE_BYTES` per message before decoding it, never waits past a deadline,
accepts only the expected message with the expected fields and types, and reads values
only in the plain-data forms of :mod:`perfcourse.grading.wire`. A kernel that sends
anything else, runs out of time or dies is killed, with everything it started.
"""

from __future__ import annotations

import functools
import itertools
import os
import select
import subprocess
import time
from dataclasses import dataclass

from . import wire
from .checks import CallFailed, PartTimeout
from .hostview import cpu_seconds
from .sandbox import kill, pause

__all__ = ["MAX_MESSAGE_BYTES", "START_TIMEOUT_S", "ENDED", "KernelLost", "KernelStartError", "CellReport",
           "Kernel"]

MAX_MESSAGE_BYTES = 1 << 20
START_TIMEOUT_S = 60.0
ENDED = "the kernel ended"


class KernelLost(Exception):
    """The kernel died, ran out of time or broke the protocol; ``why`` says which, ``timeout`` if time."""

    def __init__(self, why, *, timeout=False):
        super().__init__(why)
        self.why, self.timeout = why, timeout


class KernelStartError(RuntimeError):
    """A kernel did not start: a problem of the grader's set-up, not of the submission."""


@dataclass
class CellReport:
    """What one code cell did, as the kernel reported it."""

    index: int
    error: tuple[str, str] | None
    flood: bool
    deleted: bool
    exit: bool


def _text(value, field, limit=400):
    if not isinstance(value, str):
        raise KernelLost(f"the kernel sent a bad {field}")
    return value[:limit]


@functools.cache
def _device_sync():
    """True where this machine has a CUDA device that CuPy can use (and ``PERFCOURSE_BACKEND`` does not ask for
    NumPy): there a learner's timed call must wait for the device. Elsewhere no module a notebook plants is timed."""
    if os.environ.get("PERFCOURSE_BACKEND", "").strip().lower() == "numpy":
        return False
    try:
        import cupy

        return cupy.cuda.runtime.getDeviceCount() > 0
    except Exception:  # noqa: BLE001 - no CuPy, no driver, no device: nothing to wait for
        return False


class Kernel:
    """One sandboxed kernel process (see the module's docstring)."""

    def __init__(self, sandbox, *, memory_bytes=None, exercise=None, program=None):
        self.sandbox = sandbox
        sized = {} if memory_bytes is None else {"memory_bytes": int(memory_bytes)}
        sized.update({} if exercise is None else {"exercise": exercise})
        sized.update({} if program is None else {"program": program})
        self.proc = sandbox.spawn(stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, **sized)
        sandbox.track(self)
        self._buf, self._ids, self.alive = bytearray(), itertools.count(1), True
        self.stopped = False          # stopped by pause(): the grader times something else meanwhile
        for stream in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            os.set_blocking(stream.fileno(), False)
        try:
            self.hello = self._expect("hello", time.monotonic() + START_TIMEOUT_S)
        except KernelLost as lost:
            why = self._stderr_tail() or lost.why
            self.kill()
            raise KernelStartError(f"a kernel did not start: {why}") from None

    # --- the pipe -------------------------------------------------------------------------

    def _stderr_tail(self):
        try:
            data = os.read(self.proc.stderr.fileno(), 4096)
        except (BlockingIOError, OSError, ValueError):
            return ""
        lines = [line for line in data.decode("utf-8", "replace").splitlines() if line.strip()]
        return lines[-1][:300] if lines else ""

    def send(self, message, deadline):
        data = memoryview((wire.dumps(message) + "\n").encode("ascii"))
        fd = self.proc.stdin.fileno()
        while data:
            wait = deadline - time.monotonic()
            if wait <= 0:
                raise KernelLost("stopped reading its input", timeout=True)
            _, ready, _ = select.select([], [fd], [], wait)
            if ready:
                try:
                    data = data[os.write(fd, data[:65536]):]
                except BlockingIOError:
                    continue
                except OSError:
                    raise KernelLost(ENDED) from None

    def _line(self, deadline):
        fd = self.proc.stdout.fileno()
        while True:
            end = self._buf.find(b"\n")
            if end >= 0:
                line = bytes(self._buf[:end])
                del self._buf[:end + 1]
                return line
            if len(self._buf) > MAX_MESSAGE_BYTES:
                raise KernelLost(f"wrote more than {MAX_MESSAGE_BYTES} bytes in one message to the grader's channel")
            wait = deadline - time.monotonic()
            if wait <= 0:
                raise KernelLost("ran out of time", timeout=True)
            ready, _, _ = select.select([fd], [], [], wait)
            if ready:
                try:
                    chunk = os.read(fd, 1 << 16)
                except BlockingIOError:
                    continue
                if not chunk:
                    raise KernelLost(ENDED)
                self._buf += chunk

    def receive(self, deadline):
        """The next message (a dict with a string ``op``), read within ``deadline`` (monotonic time)."""
        line = self._line(deadline)
        try:
            message = wire.loads(line.decode("utf-8"), MAX_MESSAGE_BYTES)
        except (UnicodeDecodeError, wire.WireError):
            raise KernelLost("wrote something that is not a message into the grader's channel") from None
        if not isinstance(message, dict) or not isinstance(message.get("op"), str):
            raise KernelLost("wrote something that is not a message into the grader's channel")
        return message

    def _expect(self, op, deadline):
        message = self.receive(deadline)
        if message["op"] != op:
            raise KernelLost(f"sent {message['op'][:40]!r} where the grader expected {op!r}")
        return message

    # --- the notebook and its functions --------------------------------------------------------

    def start(self, notebook_name, notebook_text, cells, names, *, memory_bytes, max_output_bytes, deadline):
        """Send the notebook; the runner starts on its cells."""
        self.send({"op": "start", "notebook_name": notebook_name, "notebook_text": notebook_text,
                   "cells": list(cells), "names": list(names), "memory_bytes": int(memory_bytes),
                   "max_output_bytes": int(max_output_bytes),
                   "tasks": getattr(self.sandbox, "thread_cap", None)}, deadline)

    def next_cell(self, index, deadline):
        """The report of code cell ``index`` (0-based), or the ``ready`` names dict after the last one."""
        message = self.receive(deadline)
        if message["op"] == "ready":
            names = message.get("names")
            if not isinstance(names, dict) or not all(isinstance(v, str) for v in names.values()):
                raise KernelLost("sent a bad list of names")
            return {str(k): v for k, v in names.items()}
        if message["op"] != "cell" or message.get("index") != index:
            raise KernelLost("sent a report for the wrong cell")
        flags = [message.get(k) for k in ("flood", "deleted", "exit")]
        if not all(isinstance(f, bool) for f in flags):
            raise KernelLost("sent a bad cell report")
        error = message.get("error")
        if error is not None:
            if not isinstance(error, dict):
                raise KernelLost("sent a bad cell report")
            error = (_text(error.get("ename"), "error name", 80), _text(error.get("evalue"), "error message"))
        return CellReport(index, error, *flags)

    def call(self, name, args, deadline):
        """``name(*args)`` in the kernel; the result as plain data.

        Raises ``NotImplementedError`` when the function did; :class:`CallFailed` when it raised
        anything else, returned what cannot be read, or broke the kernel; :class:`PartTimeout`
        past the deadline. A kernel that broke or ran out of time is killed.
        """
        return self.call_counting(name, args, deadline, ())[0]

    def call_counting(self, name, args, deadline, watch):
        """``(result, calls)``: as :meth:`call`, with ``{function: (calls, [seconds of its last calls])}`` of each
        notebook function that ``watch`` (``{function: [argument names]}``) names, counting its calls on those
        arguments (a name the notebook does not define as a function is left out of ``calls``)."""
        number = next(self._ids)
        try:
            self.send({"op": "call", "id": number, "name": name, "args": wire.encode(list(args)),
                       "max_bytes": MAX_MESSAGE_BYTES,
                       "watch": {str(n): [str(a) for a in names] for n, names in dict(watch).items()},
                       "sync": bool(watch) and _device_sync()}, deadline)
            message = self.receive(deadline)
            if message["op"] not in ("result", "raised") or message.get("id") != number:
                raise KernelLost("answered a call it was not asked")
        except KernelLost as lost:
            self.kill()
            if lost.timeout:
                raise PartTimeout from None
            if lost.why == ENDED:
                raise CallFailed("ended its kernel while being checked (os._exit(), a crash, or running out of "
                                 "memory)") from None
            raise CallFailed(f"{lost.why} while being checked") from None
        if message["op"] == "raised":
            if message.get("not_implemented") is True:
                raise NotImplementedError
            ename, evalue = _text(message.get("ename"), "error name", 80), _text(message.get("evalue"), "error")
            raise CallFailed(f"raised {ename}: {evalue[:200]}" if evalue else f"raised {ename}")
        try:
            value = wire.decode(message.get("value"))
        except wire.WireError as err:
            raise CallFailed(f"returned a value the grader cannot read ({err})") from None
        calls = message.get("calls", {})
        if not isinstance(calls, dict) or not all(
                n in watch and isinstance(c, list) and len(c) == 2 and type(c[0]) is int and c[0] >= 0
                and isinstance(c[1], list) and len(c[1]) <= c[0]
                and all(type(t) is float and t >= 0 for t in c[1]) for n, c in calls.items()):
            raise CallFailed("sent a bad count of its calls")
        return value, {n: (c[0], c[1]) for n, c in calls.items()}

    def pause(self, stop=True):
        """Stop (or, with ``stop=False``, continue) every process of the kernel."""
        if self.alive:
            pause(self.proc, stop=stop)

    def cpu_seconds(self):
        """The CPU seconds the kernel's processes have used so far (its threads and children included)."""
        return cpu_seconds(self.proc.pid)

    def kill(self):
        """Kill the kernel and everything in its sandbox; wait until it is gone."""
        if self.alive:
            self.alive = False
            kill(self.proc)
        self.sandbox.track(self, alive=False)
