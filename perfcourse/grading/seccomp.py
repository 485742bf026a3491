"""The sandbox's seccomp filter: which system calls a submission may not make.

A classic-BPF program, loaded by bubblewrap (``--seccomp``) before the runner starts. It
refuses, with ``EPERM``:

- new processes: ``fork``, ``vfork`` and ``clone`` without ``CLONE_THREAD`` (threads are
  allowed; ``clone3`` answers ``ENOSYS`` so that the C library falls back to ``clone``);
- memory that the address-space limit does not see: System V shared memory, semaphores and
  message queues, POSIX message queues, ``memfd``, extended attributes (kernel slab), kernel
  keys and io_uring;
- reaching other processes or the kernel: ``ptrace``, ``process_vm_*``, ``bpf``,
  ``perf_event_open``, ``userfaultfd``, file handles, mounts, namespaces, modules, ``kexec``,
  swap, ``reboot``, ``acct``, ``syslog`` and host names.

Only x86_64 and aarch64 are known; elsewhere :func:`seccomp_filter` returns None and the
sandbox runs without a filter (the docstring of :mod:`perfcourse.grading.sandbox` says what
then still holds).
"""

from __future__ import annotations

import platform
import struct

__all__ = ["DENIED", "seccomp_filter"]

# Refused everywhere: name, then its number on x86_64 (the kernel's unistd_64.h) and on aarch64
# (asm-generic/unistd.h)
_DENIED = (
    ("shmget", 29, 194), ("shmat", 30, 196), ("shmctl", 31, 195), ("shmdt", 67, 197), ("msgget", 68, 186),
    ("msgsnd", 69, 189), ("msgrcv", 70, 188), ("msgctl", 71, 187), ("semget", 64, 190), ("semop", 65, 193),
    ("semctl", 66, 191), ("semtimedop", 220, 192), ("mq_open", 240, 180), ("mq_unlink", 241, 181),
    ("mq_timedsend", 242, 182), ("mq_timedreceive", 243, 183), ("mq_notify", 244, 184), ("mq_getsetattr", 245, 185),
    ("memfd_create", 319, 279), ("memfd_secret", 447, 447), ("setxattr", 188, 5), ("lsetxattr", 189, 6),
    ("fsetxattr", 190, 7), ("setxattrat", 463, 463), ("add_key", 248, 217), ("request_key", 249, 218),
    ("keyctl", 250, 219), ("io_uring_setup", 425, 425), ("io_uring_enter", 426, 426),
    ("io_uring_register", 427, 427), ("ptrace", 101, 117), ("process_vm_readv", 310, 270),
    ("process_vm_writev", 311, 271), ("bpf", 321, 280), ("perf_event_open", 298, 241), ("userfaultfd", 323, 282),
    ("open_by_handle_at", 304, 265), ("name_to_handle_at", 303, 264), ("mount", 165, 40), ("umount2", 166, 39),
    ("pivot_root", 155, 41), ("chroot", 161, 51), ("unshare", 272, 97), ("setns", 308, 268), ("fsopen", 430, 430),
    ("fsconfig", 431, 431), ("fsmount", 432, 432), ("move_mount", 429, 429), ("open_tree", 428, 428),
    ("mount_setattr", 442, 442), ("kexec_load", 246, 104), ("kexec_file_load", 320, 294), ("init_module", 175, 105),
    ("finit_module", 313, 273), ("delete_module", 176, 106), ("swapon", 167, 224), ("swapoff", 168, 225),
    ("reboot", 169, 142), ("acct", 163, 89), ("syslog", 103, 116), ("sethostname", 170, 161),
    ("setdomainname", 171, 162), ("fanotify_init", 300, 262),
)
DENIED = tuple(name for name, _, _ in _DENIED)
_X86_64 = {name: number for name, number, _ in _DENIED}
_AARCH64 = {name: number for name, _, number in _DENIED}
# (audit architecture, system call numbers, whether x32 numbers must be refused)
_ARCH = {"x86_64": (0xC000003E, {"fork": 57, "vfork": 58, "clone": 56, "clone3": 435, **_X86_64}, True),
         "aarch64": (0xC00000B7, {"clone": 220, "clone3": 435, **_AARCH64}, False)}
_CLONE_THREAD = 0x00010000
_ALLOW, _ERRNO = 0x7FFF0000, 0x00050000
_EPERM, _ENOSYS = 1, 38


def seccomp_filter(machine=None):
    """The BPF program (bytes) that bubblewrap loads, or None on an architecture not known here.

    Examples
    --------
    >>> len(seccomp_filter("x86_64")) % 8, seccomp_filter("sparc") is None
    (0, True)
    """
    if machine is not None and not isinstance(machine, str):
        raise TypeError(f"machine must be an architecture name such as 'x86_64'; got {type(machine).__name__}")
    known = _ARCH.get(machine or platform.machine())
    if known is None:
        return None
    arch, calls, x32 = known
    code = [("ld", 4), ("jeq", arch, None, "deny"), ("ld", 0)]
    if x32:
        code.append(("jge", 0x40000000, "deny", None))
    code += [("jeq", calls[name], "deny", None) for name in ("fork", "vfork", *DENIED) if name in calls]
    code += [("jeq", calls["clone3"], "nosys", None), ("jeq", calls["clone"], None, "allow"), ("ld", 16),
             ("jset", _CLONE_THREAD, "allow", "deny"),
             ("label", "allow"), ("ret", _ALLOW), ("label", "deny"), ("ret", _ERRNO | _EPERM),
             ("label", "nosys"), ("ret", _ERRNO | _ENOSYS)]
    return _assemble(code)


def _assemble(code):
    labels, index = {}, 0
    for op in code:
        if op[0] == "label":
            labels[op[1]] = index
        else:
            index += 1
    out, index = [], 0
    opcodes = {"ld": 0x20, "jeq": 0x15, "jge": 0x35, "jset": 0x45, "ret": 0x06}
    for op in code:
        if op[0] == "label":
            continue
        jt = jf = 0
        if len(op) == 4:
            jt = labels[op[2]] - index - 1 if op[2] else 0
            jf = labels[op[3]] - index - 1 if op[3] else 0
            if not (0 <= jt < 256 and 0 <= jf < 256):
                raise ValueError("the seccomp program's jumps are too long for classic BPF")
        out.append(struct.pack("=HBBI", opcodes[op[0]], jt, jf, op[1]))
        index += 1
    return b"".join(out)
