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

# Refused everywhere, by name; each architecture's numbers are in _NUMBERS.
DENIED = (
    "shmget", "shmat", "shmctl", "shmdt", "msgget", "msgsnd", "msgrcv", "msgctl", "semget", "semop", "semctl",
    "semtimedop", "mq_open", "mq_unlink", "mq_timedsend", "mq_timedreceive", "mq_notify", "mq_getsetattr",
    "memfd_create", "memfd_secret", "setxattr", "lsetxattr", "fsetxattr", "setxattrat", "add_key", "request_key",
    "keyctl", "io_uring_setup", "io_uring_enter", "io_uring_register", "ptrace", "process_vm_readv",
    "process_vm_writev", "bpf", "perf_event_open", "userfaultfd", "open_by_handle_at", "name_to_handle_at",
    "mount", "umount2", "pivot_root", "chroot", "unshare", "setns", "fsopen", "fsconfig", "fsmount", "move_mount",
    "open_tree", "mount_setattr", "kexec_load", "kexec_file_load", "init_module", "finit_module", "delete_module",
    "swapon", "swapoff", "reboot", "acct", "syslog", "sethostname", "setdomainname", "fanotify_init",
)

# (audit architecture, system call numbers, whether x32 numbers must be refused); from the kernel's
# unistd_64.h (x86_64) and asm-generic/unistd.h (aarch64)
_X86_64 = dict(zip(DENIED, (
    29, 30, 31, 67, 68, 69, 70, 71, 64, 65, 66,
    220, 240, 241, 242, 243, 244, 245,
    319, 447, 188, 189, 190, 463, 248, 249,
    250, 425, 426, 427, 101, 310,
    311, 321, 298, 323, 304, 303,
    165, 166, 155, 161, 272, 308, 430, 431, 432, 429,
    428, 442, 246, 320, 175, 313, 176,
    167, 168, 169, 163, 103, 170, 171, 300), strict=True))
_AARCH64 = dict(zip(DENIED, (
    194, 196, 195, 197, 186, 189, 188, 187, 190, 193, 191,
    192, 180, 181, 182, 183, 184, 185,
    279, 447, 5, 6, 7, 463, 217, 218,
    219, 425, 426, 427, 117, 270,
    271, 280, 241, 282, 265, 264,
    40, 39, 41, 51, 97, 268, 430, 431, 432, 429,
    428, 442, 104, 294, 105, 273, 106,
    224, 225, 142, 89, 116, 161, 162, 262), strict=True))
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
