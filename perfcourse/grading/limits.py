"""Limits a kernel cannot lift from inside: its own host user, a thread cap, and cgroups where offered.

When the grader runs as root, each kernel is started through :mod:`launch` (a few lines run
as a fresh process, before any submission code): it joins the kernel's cgroups, caps the
number of tasks (``RLIMIT_NPROC``), and drops to a host user id of its own (:func:`kernel_uid`,
no group, no capability) before it starts bubblewrap. The kernel's root is then an ordinary
user on the host: the kernel checks its writes to ``/proc/sys`` and its thread count as for
anyone else.

A memory cgroup bounds everything the kernel makes the host hold (its pages, kernel slab for
files and folders in its ``/tmp``, pipes), and a pids cgroup its threads. They are made where
the grader may make them: as root, under the grader's own cgroup, with cgroup v1 controllers or a
v2 hierarchy that delegates ``memory`` and ``pids``. Elsewhere :class:`Cgroups` is empty and the
address-space limit, the size-limited ``/tmp``, the seccomp filter and the thread cap remain.
"""

from __future__ import annotations

import itertools
import os
import secrets
import signal
import time
from pathlib import Path

__all__ = ["BASE_UID", "THREAD_CAP", "CGROUP_SLACK_BYTES", "TMP_BYTES", "kernel_uid", "Cgroups"]

BASE_UID = 1_600_000_000          # far above any system's users and the usual subordinate-id ranges
THREAD_CAP = 256                  # tasks per kernel: the CUDA simulator runs one thread per CUDA thread
CGROUP_SLACK_BYTES = 256 << 20    # beyond the notebook's own memory and /tmp: Python, the kernel's slab
TMP_BYTES = 128 << 20             # the size of the kernel's private /tmp
_ROOT = Path("/sys/fs/cgroup")
_numbers = itertools.count()


def kernel_uid():
    """A host user id for one kernel: unused by the system, different for each kernel of this grader.

    Examples
    --------
    >>> a, b = kernel_uid(), kernel_uid()
    >>> a != b and min(a, b) >= BASE_UID and max(a, b) < 2**31
    True
    """
    return BASE_UID + ((os.getpid() & 0xFFFF) << 12) + (next(_numbers) & 0xFFF)


def _own_paths():
    """``{controller: own path}`` from ``/proc/self/cgroup`` (``""`` is the v2 hierarchy)."""
    paths = {}
    try:
        lines = Path("/proc/self/cgroup").read_text().splitlines()
    except OSError:
        return paths
    for line in lines:
        _, controllers, path = line.split(":", 2)
        for name in controllers.split(",") if controllers else [""]:
            paths[name] = path
    return paths


def _write(path, text):
    with open(path, "w") as f:
        f.write(text)


def _rmdir(path, wait_s=2.0):
    """Remove a cgroup folder; its last tasks may take a moment to leave. True when it is gone."""
    end = time.monotonic() + wait_s
    while True:
        try:
            os.rmdir(path)
            return True
        except FileNotFoundError:
            return True
        except OSError:
            if time.monotonic() > end:
                return False
            time.sleep(0.02)


def _empty(folder, wait_s=2.0):
    """SIGKILL every process in a cgroup folder until none is left (or ``wait_s`` has passed)."""
    end = time.monotonic() + wait_s
    while True:
        try:
            pids = [int(p) for p in (Path(folder) / "cgroup.procs").read_text().split()]
        except (OSError, ValueError):
            return
        if not pids or time.monotonic() > end:
            return
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        time.sleep(0.01)


class Cgroups:
    """The cgroups of one grading session: a folder per controller, a sub-folder per kernel.

    ``kind`` is ``"v1"``, ``"v2"`` or None (none could be made here; :meth:`kernel` then
    returns no files).
    """

    def __init__(self, *, enabled=True):
        self.kind, self.session = None, []
        if not enabled or os.geteuid() != 0 or not _ROOT.is_dir():
            return
        own, name = _own_paths(), f"perfcourse-grade-{os.getpid()}-{secrets.token_hex(3)}"
        try:
            if all((_ROOT / c).is_dir() and c in own for c in ("memory", "pids")):
                self.session = [_ROOT / c / own[c].lstrip("/") / name for c in ("memory", "pids")]
                for folder in self.session:
                    folder.mkdir()
                self.kind = "v1"
            elif (_ROOT / "cgroup.controllers").is_file() and "" in own:
                parent = _ROOT / own[""].lstrip("/")
                if not {"memory", "pids"} <= set((parent / "cgroup.subtree_control").read_text().split()):
                    return
                self.session = [parent / name]
                self.session[0].mkdir()
                _write(self.session[0] / "cgroup.subtree_control", "+memory +pids")
                self.kind = "v2"
        except OSError:
            self.close()
            self.kind, self.session = None, []

    def kernel(self, memory_bytes):
        """Folders for one kernel, limited to ``memory_bytes`` + /tmp + slack and :data:`THREAD_CAP` tasks.

        Returns ``(cgroup.procs files to join, the folders to remove afterwards)``.
        """
        if self.kind is None:
            return [], []
        limit, tasks = str(int(memory_bytes) + TMP_BYTES + CGROUP_SLACK_BYTES), str(THREAD_CAP + 8)
        name = f"k{next(_numbers)}"
        folders = [folder / name for folder in self.session]
        try:
            for folder in folders:
                folder.mkdir()
            if self.kind == "v1":
                memory, pids = folders
                _write(memory / "memory.limit_in_bytes", limit)
                if (memory / "memory.memsw.limit_in_bytes").exists():
                    _write(memory / "memory.memsw.limit_in_bytes", limit)
                _write(pids / "pids.max", tasks)
            else:
                (group,) = folders
                _write(group / "memory.max", limit)
                if (group / "memory.swap.max").exists():
                    _write(group / "memory.swap.max", "0")
                _write(group / "pids.max", tasks)
        except OSError:
            self.remove(folders)
            raise
        return [str(folder / "cgroup.procs") for folder in folders], folders

    @staticmethod
    def remove(folders):
        """Kill every task still in ``folders``, then remove them."""
        for folder in folders:
            _empty(folder)
            _rmdir(folder)

    def close(self):
        for folder in self.session:
            for child in (folder.iterdir() if folder.is_dir() else []):
                if child.is_dir():
                    _empty(child)
                    _rmdir(child)
            _rmdir(folder)
