"""What the grader sees of the host around a sandbox: closed folders, a sandbox's processes and their users."""

from __future__ import annotations

import os
import select
from pathlib import Path

__all__ = ["closed_folders", "read_line", "descendants", "cpu_seconds", "host_uid"]


def closed_folders(folders):
    """``[closed, [folders below it]]``: the highest folder above each of ``folders`` that other users cannot
    walk through (root's home folder), with the folders it closes off. The launcher opens them in its own mounts.

    Examples
    --------
    >>> closed_folders(["/usr", "/usr/lib"])
    []
    """
    closed = {}
    for folder in folders:
        parts = Path(folder).parts
        for i in range(2, len(parts)):
            above = str(Path(*parts[:i]))
            if not os.stat(above).st_mode & 0o001:
                closed.setdefault(above, []).append(folder)
                break
    return sorted([above, sorted(below)] for above, below in closed.items())


def read_line(stream, timeout):
    """One line from a pipe within ``timeout`` seconds (b"" when there is none)."""
    ready, _, _ = select.select([stream], [], [], timeout)
    return stream.readline() if ready else b""


def descendants(pid):
    """The host pids below ``pid`` (its children, theirs, ...)."""
    parents = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            parents.setdefault(int(stat.rsplit(")", 1)[1].split()[1]), []).append(int(entry))
    found, todo = [], [pid]
    while todo:
        children = parents.get(todo.pop(), [])
        found += children
        todo += children
    return found


def cpu_seconds(pid):
    """The CPU seconds host process ``pid`` and every process below it have used (user and system, their
    threads and the children they waited for), as the host counts them; 0 for a process that is gone.

    Examples
    --------
    >>> cpu_seconds(os.getpid()) >= 0
    True
    """
    tick, total = os.sysconf("SC_CLK_TCK"), 0
    for each in [pid, *descendants(pid)]:
        try:
            fields = Path(f"/proc/{each}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += sum(int(v) for v in fields[11:15])     # utime, stime, cutime, cstime
    return total / tick


def host_uid(pid):
    """The real uid of host process ``pid`` as the host sees it (-1 when it is gone)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return -1
    return int(next(line.split()[1] for line in status.splitlines() if line.startswith("Uid:")))
