"""Where a submission runs: a bubblewrap sandbox per kernel, or (``unsafe``) a plain process.

The sandbox (``bwrap``) gives the kernel private user, PID, network, IPC, UTS and cgroup
namespaces (no network at all; it sees only its own processes), a root made of read-only
binds of the system (``/usr`` and its links), the Python installation and the virtual
environment, a read-only copy of the ``perfcourse`` package *without* its grading checks
(a stand-in ``self_check`` prints a note) mounted where the package lives, the runner, and a
private size-limited ``/tmp`` holding only the notebook's copy. Nothing else: not the
course's ``solutions/``, not the submissions, not the grader's files or processes.

- **Its user.** Inside it is uid 1000. On the host it is never root: a grader that runs as
  root starts each kernel through :mod:`launch`, which drops to a user id of the kernel's own
  (:mod:`perfcourse.grading.limits`), so the kernel's own checks on ``/proc/sys``, other
  users' files and ``RLIMIT_NPROC`` apply. ``/proc/sys`` is also mounted read-only.
- **Its environment.** The runner is the sandbox's pid 1 (``--as-pid-1``) and sees only
  :data:`ENV`; bubblewrap itself is started with :data:`BWRAP_ENV`, so nothing of the
  grader's environment (tokens, credentials) is anywhere in the sandbox.
- **Its system calls.** A seccomp filter (:mod:`perfcourse.grading.seccomp`) refuses new
  processes (threads are allowed), shared memory and message queues, ``memfd``, extended
  attributes, kernel keys, io_uring, ``ptrace`` and the calls that reach the kernel itself.
- **Its size.** The runner limits address space, file size, open files and tasks before the
  notebook runs; where the grader may make cgroups, memory (kernel memory included) and tasks
  are bounded from outside as well. ``--die-with-parent`` and killing the sandbox's first
  process end every process in it.

Without ``bwrap`` the grader refuses to grade unless told ``unsafe``; then each kernel is a
plain process in its own session with the same limits but none of the containment (as
root, still as a user of its own).
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

from .._lang import _
from .hostview import closed_folders, descendants, host_uid, read_line
from .limits import BASE_UID, THREAD_CAP, TMP_BYTES, Cgroups, kernel_uid
from .seccomp import seccomp_filter
from .view import _copy_package, _inside, _python_dirs, package_dir
from .withheld import WITHHELD, withhold

__all__ = ["SandboxError", "Sandbox", "bwrap_path", "seccomp_filter"]

RUNNER_DIR = "/opt/perfcourse-grader"
WORKDIR = "/tmp/work"
SYSTEM = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
ETC = ("ld.so.cache", "ld.so.conf", "ld.so.conf.d", "localtime", "nsswitch.conf", "fonts", "mime.types",
       "matplotlibrc")
ENV = {"LANG": "C.UTF-8", "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1",
       "MPLBACKEND": "Agg", "PERFCOURSE_BACKEND": "numpy", "USER": "learner", "PYDEVD_DISABLE_FILE_VALIDATION": "1",
       # the CUDA simulator runs a thread per CUDA thread; glibc's per-thread malloc arenas (64 MiB of address
       # space each, up to 8 per core) would exhaust the address-space limit at a block of about 100 threads
       "MALLOC_ARENA_MAX": "2"}
BWRAP_ENV = {"PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "LANG": "C.UTF-8"}   # all bubblewrap itself is given
DEFAULT_MEMORY_BYTES = 2 << 30
class SandboxError(RuntimeError):
    """The sandbox cannot be set up (no bwrap, a failing probe, a folder it cannot hide)."""


def bwrap_path():
    """The ``bwrap`` executable, or None."""
    return shutil.which("bwrap")


class Sandbox:
    """One grading session's sandbox set-up: a temporary folder and the command that starts a kernel.

    ``hide``: folders that must stay out of sight (the submissions, the course): one that lies
    inside what the sandbox shows (``/usr``, the Python environment) is covered by an empty
    folder there. ``cgroups``: put each kernel in memory and pids cgroups where the machine lets
    the grader make them (see :mod:`perfcourse.grading.limits`).
    """

    def __init__(self, *, unsafe=False, hide=(), cgroups=True):
        if isinstance(hide, (str, bytes, os.PathLike)):
            raise TypeError("hide must be a list of folders, not one path")
        self.bwrap = None if unsafe else bwrap_path()
        if self.bwrap is None and not unsafe:
            raise SandboxError(_("bubblewrap (bwrap) is not installed, so submissions cannot be contained; install "
                                 "it (apt-get install bubblewrap) or pass --unsafe to grade without containment"))
        self.contained, self.stopped, self.hidden = not unsafe, False, []
        self.as_root = os.geteuid() == 0
        self.thread_cap = THREAD_CAP if self.contained or self.as_root else None
        self._live, self._lock = set(), threading.Lock()
        self.root = Path(tempfile.mkdtemp(prefix="perfcourse-grade-"))
        self.cgroups = Cgroups(enabled=False)
        try:
            os.chmod(self.root, 0o711)          # the kernels' own users find the runner, and list nothing
            support = self.root / "support"
            support.mkdir(mode=0o755)
            for name in ("runner.py", "wire.py", "launch.py", "probe.py"):
                shutil.copyfile(Path(__file__).with_name(name), support / name)
            shutil.copyfile(Path(__file__).parents[1] / "_syncs.py", support / "syncs.py")
            self.cgroups = Cgroups(enabled=cgroups)
            self._covers = closed_folders(_python_dirs()) if self.as_root else []
            (self.root / "spare").mkdir(mode=0o700)
            for i in range(sum(len(below) for _, below in self._covers)):
                (self.root / "spare" / str(i)).mkdir()
            if self.contained:
                _copy_package(self.root / "perfcourse")
                self.seccomp = seccomp_filter()
                (self.root / "seccomp.bpf").write_bytes(self.seccomp or b"")
                self.hidden = self._hidden(hide)
                self._probe()
        except BaseException:
            self.close()
            raise

    def _hidden(self, hide):
        """Folders to cover with an empty tmpfs: those of ``hide`` (a file: its folder) the view would show."""
        shown = [p for p in (*SYSTEM, *_python_dirs()) if os.path.isdir(p) and not os.path.islink(p)]
        hidden = set()
        for path in hide:
            real = os.path.realpath(path)
            real = real if os.path.isdir(real) else os.path.dirname(real)
            if any(_inside(real, folder) for folder in shown) and not _inside(real, package_dir()):
                if real in (*SYSTEM, *_python_dirs()):
                    raise SandboxError(f"cannot hide {path} from the submissions: the sandbox runs Python from it; "
                                       "move it elsewhere")
                hidden.add(real)
        return sorted(hidden)

    def package_copy(self, exercise=None):
        """The package copy a kernel of ``exercise`` sees: without that exercise's withheld functions."""
        base = self.root / "perfcourse"
        if exercise not in WITHHELD:
            return base
        with self._lock:
            copy = self.root / f"perfcourse-{exercise}"
            if not copy.is_dir():
                building = self.root / f".perfcourse-{exercise}"
                shutil.copytree(base, building, symlinks=True)
                withhold(building, exercise)
                building.rename(copy)
        return copy

    def _binds(self, exercise=None):
        """The mounts, shallowest first so that deeper ones land on top (a hidden folder over /usr, the
        environment inside a hidden checkout, the package copy over the package)."""
        mounts = []
        for path in SYSTEM:
            if os.path.islink(path):
                mounts.append((path, ["--symlink", os.readlink(path), path]))
            elif os.path.isdir(path):
                mounts.append((path, ["--ro-bind", path, path]))
        mounts += [(f"/etc/{n}", ["--ro-bind-try", f"/etc/{n}", f"/etc/{n}"]) for n in ETC]
        mounts += [(path, ["--ro-bind", path, path]) for path in _python_dirs()]
        mounts += [(path, ["--tmpfs", path]) for path in self.hidden]
        mounts.append(("/tmp", ["--size", str(TMP_BYTES), "--tmpfs", "/tmp"]))   # before an environment in /tmp
        mounts += [(str(package_dir()), ["--ro-bind", str(self.package_copy(exercise)), str(package_dir())]),
                   (RUNNER_DIR, ["--ro-bind", str(self.root / "support"), RUNNER_DIR])]
        mounts.sort(key=lambda m: len(Path(m[0]).parts))
        return [arg for _, args in mounts for arg in args]

    def command(self, program, exercise=None):
        """The ``bwrap`` command line running ``program`` (a list) in a fresh sandbox, as its pid 1; a kernel
        of ``exercise`` sees the package without that exercise's withheld functions (:mod:`withheld`).

        ``/proc/sys`` is read-only whatever the kernel's host user; the program's environment is
        only :data:`ENV` (and bubblewrap itself starts with an empty one, see :meth:`spawn`).
        """
        args = [self.bwrap, "--unshare-user", "--disable-userns", "--unshare-ipc", "--unshare-pid", "--unshare-net",
                "--unshare-uts", "--unshare-cgroup-try", "--die-with-parent", "--as-pid-1", "--new-session",
                "--uid", "1000", "--gid", "1000", "--hostname", "grading",
                *self._binds(exercise), "--proc", "/proc", "--ro-bind", "/proc/sys", "/proc/sys", "--dev", "/dev",
                "--remount-ro", "/dev", "--dir", WORKDIR, "--chdir", WORKDIR,
                # the root and the covers of hidden folders are tmpfs of no size limit: read-only, only /tmp takes files
                *[arg for path in self.hidden for arg in ("--remount-ro", path)], "--remount-ro", "/",
                "--clearenv", "--setenv", "HOME", WORKDIR, "--setenv", "TMPDIR", "/tmp",
                "--setenv", "PATH", f"{os.path.dirname(os.path.abspath(sys.executable))}:/usr/local/bin:/usr/bin:/bin"]
        for key, value in ENV.items():
            args += ["--setenv", key, value]
        return args, program

    def track(self, kernel, alive=True):
        """Remember a running kernel (anything with ``kill()``), or forget it (``alive=False``)."""
        with self._lock:
            (self._live.add if alive else self._live.discard)(kernel)

    def kill_all(self, *, stop=False):
        """Kill every kernel still running; with ``stop``, refuse to start new ones."""
        self.stopped = self.stopped or stop
        with self._lock:
            live = list(self._live)
        for kernel in live:
            kernel.kill()

    def _launched(self, command, cgroups, uid):
        """``command`` through the launcher when this grader is root, as the user ``uid``; else as is."""
        if not self.as_root:
            return command
        spec = json.dumps({"uid": uid, "gid": uid, "tasks": THREAD_CAP, "cgroups": cgroups, "covers": self._covers,
                           "spare": str(self.root / "spare")})
        return [os.path.abspath(sys.executable), "-I", "-S", str(self.root / "support" / "launch.py"), spec, "--",
                *command]

    def support_program(self, script):
        """The command line that runs ``script`` (``"runner.py"``, ``"probe.py"``) of the sandbox's support files."""
        python = os.path.abspath(sys.executable)
        return [python, "-I", str(self.root / "support" / script) if not self.contained else f"{RUNNER_DIR}/{script}"]

    def spawn(self, program=None, *, memory_bytes=DEFAULT_MEMORY_BYTES, exercise=None, **popen):
        """Start ``program`` (default: the runner) in a new sandbox; a :class:`subprocess.Popen`.

        ``memory_bytes``: what the kernel may allocate, which sizes its memory cgroup (where there
        is one). Kill it with :func:`kill`, which also removes its cgroups.
        """
        if self.stopped:
            raise SandboxError("grading was stopped")
        python = os.path.abspath(sys.executable)
        cgroups, folders = self.cgroups.kernel(memory_bytes)
        uid = kernel_uid() if self.as_root else None
        try:
            if not self.contained:
                program = program or [python, "-I", str(self.root / "support" / "runner.py")]
                work = tempfile.mkdtemp(prefix="work-", dir=self.root)
                env = {**ENV, "PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": work}
                if self.as_root:
                    program = self._launched(program, cgroups, uid)
                    os.chown(work, uid, uid)
                proc = subprocess.Popen(program, cwd=work, env=env, start_new_session=True, **popen)
            else:
                args, program = self.command(program or [python, "-I", f"{RUNNER_DIR}/runner.py"], exercise)
                fd = os.open(self.root / "seccomp.bpf", os.O_RDONLY)
                try:
                    seccomp = ["--seccomp", str(fd)] if self.seccomp else []
                    command = [*args, *seccomp, "--", *program]
                    command = self._launched(command, cgroups, uid)
                    proc = subprocess.Popen(command, pass_fds=(fd,), start_new_session=True, env=BWRAP_ENV,
                                            **popen)
                finally:
                    os.close(fd)
        except BaseException:
            Cgroups.remove(folders)
            raise
        proc.perfcourse_cgroups = folders
        return proc

    def _probe(self):
        """Start one sandbox that imports perfcourse; SandboxError with bwrap's reason if it cannot.

        While it waits, the host's view of its processes is read: one whose user is the host's root
        is refused (its kernels could change this machine's settings).
        """
        check = ("import sys, perfcourse as pc; pc.laws.amdahl_speedup; import numpy, IPython; print('ready', "
                 "flush=True); sys.stdin.read()")
        proc = self.spawn([os.path.abspath(sys.executable), "-I", "-c", check], stdin=subprocess.PIPE,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        try:
            ready = read_line(proc.stdout, 120)
            users = {host_uid(pid) for pid in descendants(proc.pid)} if ready == b"ready\n" else set()
            out, err = proc.communicate(b"", timeout=120)
        except subprocess.TimeoutExpired:
            kill(proc)
            raise SandboxError("the sandbox did not start within 120 s") from None
        kill(proc)
        who = f" as the ordinary user the grader drops to (a uid from {BASE_UID})" if self.as_root else ""
        if proc.returncode != 0 or ready != b"ready\n":
            lines = [line for line in err.decode("utf-8", "replace").splitlines() if line.strip()]
            raise SandboxError(f"bwrap cannot start a sandbox here{who}: "
                               f"{lines[-1][:300] if lines else proc.returncode}")
        if 0 in users:        # (none seen: the launcher itself refuses to start a kernel that could be root)
            raise SandboxError("the sandbox's processes run as the host's root, so its kernels could change this "
                               "machine's settings; grade as an ordinary user")

    def close(self):
        self.cgroups.close()
        shutil.rmtree(self.root, ignore_errors=True)


def pause(proc, *, stop=True):
    """Stop (``stop``) or continue every process of a kernel: its threads run no more until continued.

    The grader stops a learner's kernel while it times the course's own functions in another
    kernel, so threads the learner left running cannot load the machine under that timing.
    """
    sig = signal.SIGSTOP if stop else signal.SIGCONT
    for pid in [proc.pid, *descendants(proc.pid)]:
        try:
            os.kill(pid, sig)
        except (ProcessLookupError, PermissionError):
            pass


def kill(proc):
    """Kill a kernel and everything it started; wait for it; remove its cgroups.

    Every host process below it is killed first, by pid: a sandbox's pid 1 that turned its death
    signal off would otherwise outlive bubblewrap (a sandbox cannot start processes, so the set is
    fixed). Then its process group, then whatever is still in its cgroups.
    """
    for pid in descendants(proc.pid):
        try:
            os.kill(pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    try:
        proc.kill()
    except ProcessLookupError:
        pass
    proc.wait()
    Cgroups.remove(getattr(proc, "perfcourse_cgroups", []))
    for stream in (proc.stdin, proc.stdout, proc.stderr):
        if stream is not None:
            try:
                stream.close()
            except OSError:
                pass
