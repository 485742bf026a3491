"""Start a kernel as an ordinary host user: the launcher of a grader that runs as root.

Run as a script in a fresh process, before any submission code exists::

    python -I -S launch.py '{"uid": U, "gid": G, "tasks": N, "cgroups": [...], "covers": [...], ...}' -- PROGRAM...

In order, still root: it joins the kernel's cgroups (writes its own pid into each
``cgroup.procs``); in a mount namespace of its own (so the host's mounts never change) it makes
the Python folders that the kernel's user could not walk to (a Python in root's home folder)
reachable at their own paths (:func:`reach_privately`); it caps the tasks a user may have
(``RLIMIT_NPROC``). Then it drops every group and sets its real, effective and saved ids to
``U``/``G``, which ends every capability, checks that root cannot be regained, and replaces
itself with ``PROGRAM`` (bubblewrap, which then starts as that user; or the runner with
``--unsafe``). Descriptors the grader passed stay open. It imports nothing of perfcourse.
"""

import ctypes
import json
import os
import resource
import sys

CLONE_NEWNS = 0x00020000
MS_NOSUID, MS_NODEV, MS_BIND, MS_REC, MS_PRIVATE = 2, 4, 0x1000, 0x4000, 1 << 18


def _libc():
    return ctypes.CDLL(None, use_errno=True)


def _mount(source, target, kind, flags, data):
    libc = _libc()
    if libc.mount(source and os.fsencode(source), os.fsencode(target), kind, flags, data) != 0:
        sys.exit(f"launch.py: cannot mount {source or kind} on {target}: {os.strerror(ctypes.get_errno())}")


def reach_privately(covers, spare):
    """Make folders reachable that an ordinary user could not walk to, in a mount namespace of this process.

    ``covers``: ``[closed folder, [folders below it]]`` pairs. Each folder below is first bound
    into ``spare`` (a folder of the grader's); the closed folder (root's home) is then covered by an
    empty, open tmpfs, and each folder below is bound back at its own path. Nothing else of the
    closed folder is visible, and the host's mounts never change.
    """
    if _libc().unshare(CLONE_NEWNS) != 0:
        sys.exit(f"launch.py: cannot make a mount namespace: {os.strerror(ctypes.get_errno())}")
    _mount(None, "/", None, MS_REC | MS_PRIVATE, None)
    kept = {}
    for closed, below in covers:
        for folder in below:
            kept[folder] = os.path.join(spare, str(len(kept)))
            _mount(folder, kept[folder], None, MS_BIND | MS_REC, None)
        _mount(None, closed, b"tmpfs", MS_NOSUID | MS_NODEV, b"mode=0755,size=1m")
        for folder in below:
            os.makedirs(folder, mode=0o755, exist_ok=True)
            _mount(kept[folder], folder, None, MS_BIND | MS_REC, None)


def drop_root(uid, gid):
    """Become ``uid``/``gid`` with no supplementary group and no capability; exit if root remains."""
    os.setgroups([])
    os.setresgid(gid, gid, gid)
    os.setresuid(uid, uid, uid)
    try:
        os.setuid(0)
    except PermissionError:
        pass
    else:
        sys.exit("launch.py: root could be regained after dropping it")
    if 0 in (*os.getresuid(), *os.getresgid()) or os.getgroups():
        sys.exit("launch.py: could not drop root")


def main(argv):
    if len(argv) < 4 or argv[2] != "--":
        sys.exit("launch.py: usage: launch.py SPEC -- PROGRAM [ARGS...]")
    spec, program = json.loads(argv[1]), argv[3:]
    uid, gid, tasks = int(spec["uid"]), int(spec["gid"]), int(spec["tasks"])
    if uid <= 0 or gid <= 0:
        sys.exit("launch.py: the kernel's user and group must not be root")
    for procs in spec.get("cgroups", []):
        with open(procs, "w") as f:
            f.write(str(os.getpid()))
    if spec.get("covers"):
        reach_privately(spec["covers"], spec["spare"])
    resource.setrlimit(resource.RLIMIT_NPROC, (tasks, tasks))
    drop_root(uid, gid)
    os.execv(program[0], program)


if __name__ == "__main__":
    main(sys.argv)
