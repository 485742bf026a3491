"""Run one submitted notebook in a fresh kernel, with limits, then its checks in that kernel.

The notebook runs on a copy in a new temporary folder (its working directory), under a
time limit for the whole notebook, an address-space limit (``RLIMIT_AS``, set by a
first cell the grader adds) and an output limit per cell. Cells that raise keep the
notebook going, like "run all, ignoring errors"; a cell that floods the output is
interrupted; a notebook that runs out of time or kills its kernel is stopped. Then one
last cell, added by the grader, runs the exercise's checks against the kernel's
``globals()`` and publishes the result as display data carrying a fresh random token.

None of this is a security sandbox: the notebook runs as the user running the grader.
"""

from __future__ import annotations

import asyncio
import json
import os
import secrets
import subprocess
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import nbformat
from ipykernel.kernelspec import get_kernel_dict
from jupyter_client.kernelspec import KernelSpec
from jupyter_client.manager import AsyncKernelManager
from nbclient import NotebookClient
from nbclient.exceptions import CellTimeoutError, DeadKernelError

from .checks import MIME, PART_TIMEOUT_S, parts

MAX_OUTPUT_BYTES = 1 << 20
KERNEL_ENV = {"OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1",
              "MPLBACKEND": "Agg", "PYDEVD_DISABLE_FILE_VALIDATION": "1"}

PREAMBLE = """\
def _perfcourse_limit_memory(extra):
    try:
        import resource
        with open("/proc/self/statm") as f:
            now = int(f.read().split()[0]) * resource.getpagesize()
        resource.setrlimit(resource.RLIMIT_AS, (now + extra, now + extra))
    except (ImportError, OSError, ValueError):
        print("perfcourse grade: no memory limit on this platform")
_perfcourse_limit_memory({extra})
del _perfcourse_limit_memory
"""

CHECKS = """\
import sys as _perfcourse_sys
for _m in [m for m in _perfcourse_sys.modules if m == "perfcourse" or m.startswith("perfcourse.")]:
    del _perfcourse_sys.modules[_m]
import perfcourse.grading.checks as _perfcourse_checks
_perfcourse_checks.report({exercise!r}, globals(), seed={seed}, token={token!r}, part_timeout={part_timeout!r})
"""


@dataclass
class CellFailure:
    """A cell of the submission that did not run cleanly."""

    cell: int          # 1-based number among the notebook's code cells
    source: str
    reason: str

    def describe(self):
        first = next((line.strip() for line in self.source.splitlines() if line.strip()), "")
        first = first if len(first) <= 40 else first[:37] + "..."
        return f"code cell {self.cell} ({first!r}) {self.reason}"


@dataclass
class NotebookRun:
    """What running a notebook produced: failed cells, a fatal stop, the checks' results."""

    failures: list[CellFailure] = field(default_factory=list)
    fatal: str | None = None
    parts: list[dict] | None = None
    seconds: float = 0.0


class _ThisPython(AsyncKernelManager):
    """Start ipykernel with the grader's own interpreter, whatever kernelspecs are installed."""

    @property
    def kernel_spec(self):
        return KernelSpec(**get_kernel_dict())


class _Client(NotebookClient):
    """A NotebookClient that caps each cell's output and keeps only the result of the check cell."""

    def __init__(self, nb, *, max_output_bytes, checks_cell, **kwargs):
        super().__init__(nb, **kwargs)
        self.max_output_bytes = max_output_bytes
        self.checks_cell = checks_cell
        self.flooded = set()
        self.asked_exit = set()
        self._sizes = Counter()
        self._interrupts = []
        self.on_cell_executed = self._note_exit

    def _note_exit(self, cell, cell_index, execute_reply):
        """Remember cells that called exit() or quit(): the kernel ends soon after them."""
        payload = (execute_reply or {}).get("content", {}).get("payload", [])
        if any(isinstance(p, dict) and p.get("source") == "ask_exit" for p in payload):
            self.asked_exit.add(cell_index)

    def output(self, outs, msg, display_id, cell_index):
        content = msg["content"]
        if cell_index == self.checks_cell:  # keep the result (or the checks' own error), drop the rest
            keep = MIME in content.get("data", {}) or msg["msg_type"] == "error"
            return super().output(outs, msg, display_id, cell_index) if keep else None
        self._sizes[cell_index] += len(json.dumps(content, default=str))
        if self._sizes[cell_index] <= self.max_output_bytes:
            return super().output(outs, msg, display_id, cell_index)
        if cell_index not in self.flooded:
            self.flooded.add(cell_index)
            self._interrupts.append(asyncio.ensure_future(self.km.interrupt_kernel()))
        return None


def _error_reason(cell, memory_bytes):
    for out in cell.get("outputs", []):
        if out.get("output_type") == "error":
            message = str(out.get("evalue", ""))
            message = message if len(message) <= 150 else message[:147] + "..."
            reason = f"raised {out.get('ename', 'an error')}" + (f": {message}" if message else "")
            if out.get("ename") == "MemoryError":
                reason += f" (the notebook may use about {memory_bytes / 2**20:.0f} MiB)"
            return reason
    return None


def _cell_problem(client, index, cell, memory_bytes, workdir, protected):
    """Why this executed cell failed, or None; restores protected files it deleted."""
    if index in client.flooded:
        return f"printed more than {client.max_output_bytes / 2**20:g} MiB of output and was stopped"
    missing = [name for name in protected if not (workdir / name).exists()]
    if missing:
        for name, data in protected.items():
            workdir.mkdir(parents=True, exist_ok=True)
            (workdir / name).write_bytes(data)
        return f"deleted {', '.join(missing)} from its working directory"
    return _error_reason(cell, memory_bytes)


def _run_cells(client, run_nb, deadline, limits, workdir, protected):
    """Execute the submission's code cells; returns (failures, fatal)."""
    timeout_s, memory_bytes = limits
    failures, number = [], 0
    for index in range(1, len(run_nb.cells) - 1):
        cell = run_nb.cells[index]
        if cell.cell_type != "code":
            continue
        number += 1
        try:
            if time.monotonic() >= deadline:
                raise CellTimeoutError("no time left")
            client.execute_cell(cell, index)
        except CellTimeoutError:
            _drop_pending_tasks()
            return failures, (f"the notebook did not finish within its time limit of {timeout_s:g} s "
                              f"(stopped in code cell {number})")
        except DeadKernelError:
            return failures, (f"the kernel died in code cell {number} (os._exit(), a crash, or running out of "
                              f"memory: the limit is about {memory_bytes / 2**20:.0f} MiB)")
        if index in client.asked_exit:
            return failures, f"the notebook called exit() in code cell {number}, which ends its kernel"
        problem = _cell_problem(client, index, cell, memory_bytes, workdir, protected)
        if problem:
            failures.append(CellFailure(number, cell.source, problem))
    return failures, None


def _drop_pending_tasks():
    """Cancel the output pollers a timed-out cell leaves behind in this thread's event loop."""
    try:
        loop = asyncio.get_event_loop()
    except RuntimeError:
        return
    pending = [t for t in asyncio.all_tasks(loop) if not t.done()]
    for task in pending:
        task.cancel()
    if pending and not loop.is_running():
        loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))


def _build(nb, exercise, seed, token, memory_bytes, part_timeout):
    """The notebook the kernel runs: the memory-limit cell, the submission's code cells, the checks."""
    checks = CHECKS.format(exercise=exercise, seed=seed, token=token, part_timeout=float(part_timeout))
    cells = [nbformat.v4.new_code_cell(PREAMBLE.format(extra=int(memory_bytes)))]
    cells += [nbformat.v4.new_code_cell(c.source) for c in nb.cells if c.cell_type == "code"]
    cells.append(nbformat.v4.new_code_cell(checks))
    kernelspec = {"name": "python3", "display_name": "Python 3"}
    return nbformat.v4.new_notebook(cells=cells, metadata={"kernelspec": kernelspec})


def _collect(cell, token):
    for out in cell.get("outputs", []):
        payload = out.get("data", {}).get(MIME)
        if isinstance(payload, dict) and payload.get("token") == token:
            return payload.get("parts")
    return None


def run_notebook(path, nb, exercise, *, timeout_s, memory_bytes, seed,
                 max_output_bytes=MAX_OUTPUT_BYTES, part_timeout=PART_TIMEOUT_S):
    """Run the notebook ``nb`` (read from ``path``) and its checks; return a :class:`NotebookRun`."""
    token = secrets.token_hex(16)
    run_nb = _build(nb, exercise, seed, token, memory_bytes, part_timeout)
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="perfcourse-grade-", ignore_cleanup_errors=True) as tmp:
        workdir = Path(tmp) / "work"
        workdir.mkdir()
        protected = {Path(path).name: Path(path).read_bytes()}
        for name, data in protected.items():
            (workdir / name).write_bytes(data)
        client = _Client(run_nb, max_output_bytes=max_output_bytes, checks_cell=len(run_nb.cells) - 1,
                         timeout=timeout_s, allow_errors=True, shutdown_kernel="immediate",
                         kernel_manager_class=_ThisPython, kernel_name="python3",
                         resources={"metadata": {"path": str(workdir)}})
        quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}  # kernel start-up chatter
        with client.setup_kernel(env={**os.environ, **KERNEL_ENV}, **quiet):
            client.execute_cell(run_nb.cells[0], 0)
            deadline = time.monotonic() + timeout_s
            client.timeout_func = lambda cell: max(deadline - time.monotonic(), 0.1)
            failures, fatal = _run_cells(client, run_nb, deadline, (timeout_s, memory_bytes), workdir, protected)
            run = NotebookRun(failures, fatal)
            if fatal is None:
                _run_checks(client, run_nb, exercise, token, part_timeout, run)
    run.seconds = time.monotonic() - started
    return run


def _run_checks(client, run_nb, exercise, token, part_timeout, run):
    cell = run_nb.cells[-1]
    client.timeout_func = None
    client.timeout = part_timeout * len(parts(exercise)) + 30
    try:
        client.execute_cell(cell, len(run_nb.cells) - 1)
    except (CellTimeoutError, DeadKernelError) as err:
        _drop_pending_tasks()
        run.fatal = f"the checks could not finish ({type(err).__name__}); the notebook may block them"
        return
    run.parts = _collect(cell, token)
    if run.parts is None:
        reason = _error_reason(cell, 0) or "produced no result"
        run.fatal = f"the checks {reason}; the notebook may have changed something the grader needs"
