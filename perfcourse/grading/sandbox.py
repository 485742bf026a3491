"""Where a submission runs: a bubblewrap sandbox per kernel, or (``unsafe``) a plain process.

The sandbox (``bwrap``) gives the kernel private user, PID, network, IPC, UTS and cgroup
namespaces (no network at all; it sees only its own processes), a root made of read-only
binds of the system (``/usr`` and its links), the Python installation and the virtual
environment, a read-only copy of the ``perfcourse`` package *without* its grading checks
(a stand-in ``self_check`` prints a note) mounted where the package lives, the runner, and a
private size-limited ``/tmp`` holding only the notebook's copy. Nothing else: not the
course's ``solutions/``, not the submissions, not the grader's files or processes. The
environment is cleared; capabilities are dropped; ``--die-with-parent`` and killing the
sandbox's first process end every process in it. A seccomp filter refuses to create
processes (threads are allowed), and the runner limits address space, file size and open
files, so the memory limit holds for the whole submission.

Without ``bwrap`` the grader refuses to grade unless told ``unsafe``; then each kernel is a
plain process in its own session with the same limits but none of the containment.
"""

from __future__ import annotations

import os
import platform
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

__all__ = ["SandboxError", "Sandbox", "bwrap_path"]

RUNNER_DIR = "/opt/perfcourse-grader"
WORKDIR = "/tmp/work"
TMP_BYTES = 128 << 20
SYSTEM = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
ETC = ("ld.so.cache", "ld.so.conf", "ld.so.conf.d", "localtime", "nsswitch.conf", "fonts", "mime.types",
       "matplotlibrc")
ENV = {"LANG": "C.UTF-8", "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1",
       "MPLBACKEND": "Agg", "PERFCOURSE_BACKEND": "numpy", "USER": "learner", "PYDEVD_DISABLE_FILE_VALIDATION": "1",
       # the CUDA simulator runs a thread per CUDA thread; glibc's per-thread malloc arenas (64 MiB of address
       # space each, up to 8 per core) would exhaust the address-space limit at a block of about 100 threads
       "MALLOC_ARENA_MAX": "2"}
STUB_CHECKS = '''"""Stand-in for the grading checks while a notebook is graded: the grader checks it from outside."""


def self_check(exercise, namespace, *, seed=None):
    """Print a note instead of checking: the grader runs the checks in its own process."""
    print("self_check: skipped while grading; the grader checks your functions itself")
'''


class SandboxError(RuntimeError):
    """The sandbox cannot be set up (no bwrap, a failing probe, a folder it cannot hide)."""


def bwrap_path():
    """The ``bwrap`` executable, or None."""
    return shutil.which("bwrap")


# --- seccomp: refuse fork, vfork, clone without CLONE_THREAD; clone3 says ENOSYS (libc falls back) ---

_ARCH = {"x86_64": (0xC000003E, {"fork": 57, "vfork": 58, "clone": 56, "clone3": 435}, True),
         "aarch64": (0xC00000B7, {"clone": 220, "clone3": 435}, False)}
_CLONE_THREAD = 0x00010000
_ALLOW, _ERRNO = 0x7FFF0000, 0x00050000
_EPERM, _ENOSYS = 1, 38


def seccomp_filter(machine=None):
    """The classic-BPF program (bytes) that stops new processes, or None on another architecture."""
    if machine is not None and not isinstance(machine, str):
        raise TypeError(f"machine must be an architecture name such as 'x86_64'; got {type(machine).__name__}")
    known = _ARCH.get(machine or platform.machine())
    if known is None:
        return None
    arch, calls, x32 = known
    code = [("ld", 4), ("jeq", arch, None, "deny"), ("ld", 0)]
    if x32:
        code.append(("jge", 0x40000000, "deny", None))
    code += [("jeq", calls[name], "deny", None) for name in ("fork", "vfork") if name in calls]
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
        out.append(struct.pack("=HBBI", opcodes[op[0]], jt, jf, op[1]))
        index += 1
    return b"".join(out)


# --- the read-only view ------------------------------------------------------------------

def package_dir():
    import perfcourse

    return Path(perfcourse.__file__).resolve().parent


def _python_dirs():
    import site

    dirs = {sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix,
            os.path.dirname(os.path.realpath(sys.executable)), *site.getsitepackages()}
    real = sorted({os.path.realpath(d) for d in dirs if os.path.isdir(d)} | {os.path.abspath(sys.prefix)})
    return [d for d in real if not any(d != o and d.startswith(o.rstrip("/") + "/") for o in real)]


def _inside(path, folder):
    path, folder = str(path), str(folder).rstrip("/")
    return path == folder or path.startswith(folder + "/")


def _copy_package(dest):
    """A copy of the package without ``grading/`` (a stand-in ``self_check`` instead) or ``course/``."""
    source = package_dir()
    shutil.copytree(source, dest, symlinks=True,
                    ignore=lambda d, names: [n for n in names if Path(d) == source and n in ("grading", "course")])
    checks = dest / "grading" / "checks"
    checks.mkdir(parents=True)
    (dest / "grading" / "__init__.py").write_text('"""Not available while grading."""\n', encoding="utf-8")
    (checks / "__init__.py").write_text(STUB_CHECKS, encoding="utf-8")


class Sandbox:
    """One grading session's sandbox set-up: a temporary folder and the command that starts a kernel.

    ``hide``: folders that must stay out of sight (the submissions, the course): one that lies
    inside what the sandbox shows (``/usr``, the Python environment) is covered by an empty
    folder there.
    """

    def __init__(self, *, unsafe=False, hide=()):
        if isinstance(hide, (str, bytes, os.PathLike)):
            raise TypeError("hide must be a list of folders, not one path")
        self.bwrap = None if unsafe else bwrap_path()
        if self.bwrap is None and not unsafe:
            raise SandboxError("bubblewrap (bwrap) is not installed, so submissions cannot be contained; install it "
                               "(apt-get install bubblewrap) or pass --unsafe to grade without containment")
        self.contained, self.stopped, self.hidden = not unsafe, False, []
        self._live, self._lock = set(), threading.Lock()
        self.root = Path(tempfile.mkdtemp(prefix="perfcourse-grade-"))
        try:
            support = self.root / "support"
            support.mkdir()
            for name in ("runner.py", "wire.py"):
                shutil.copyfile(Path(__file__).with_name(name), support / name)
            shutil.copyfile(Path(__file__).parents[1] / "_syncs.py", support / "syncs.py")
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

    def _binds(self):
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
        mounts += [(str(package_dir()), ["--ro-bind", str(self.root / "perfcourse"), str(package_dir())]),
                   (RUNNER_DIR, ["--ro-bind", str(self.root / "support"), RUNNER_DIR])]
        mounts.sort(key=lambda m: len(Path(m[0]).parts))
        return [arg for _, args in mounts for arg in args]

    def command(self, program):
        """The ``bwrap`` command line running ``program`` (a list) in a fresh sandbox."""
        args = [self.bwrap, "--unshare-all", "--unshare-user", "--disable-userns", "--die-with-parent",
                "--new-session", "--uid", "1000", "--gid", "1000", "--hostname", "grading", *self._binds(),
                "--proc", "/proc", "--dev", "/dev", "--remount-ro", "/dev", "--dir", WORKDIR, "--chdir", WORKDIR,
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

    def spawn(self, program=None, **popen):
        """Start ``program`` (default: the runner) in a new sandbox; a :class:`subprocess.Popen`."""
        if self.stopped:
            raise SandboxError("grading was stopped")
        python = os.path.abspath(sys.executable)
        if not self.contained:
            program = program or [python, "-I", str(self.root / "support" / "runner.py")]
            work = tempfile.mkdtemp(prefix="work-", dir=self.root)
            env = {**ENV, "PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": work}
            return subprocess.Popen(program, cwd=work, env=env, start_new_session=True, **popen)
        args, program = self.command(program or [python, "-I", f"{RUNNER_DIR}/runner.py"])
        fd = os.open(self.root / "seccomp.bpf", os.O_RDONLY)
        try:
            seccomp = ["--seccomp", str(fd)] if self.seccomp else []
            return subprocess.Popen([*args, *seccomp, "--", *program], pass_fds=(fd,), start_new_session=True,
                                    **popen)
        finally:
            os.close(fd)

    def _probe(self):
        """Start one sandbox that imports perfcourse; SandboxError with bwrap's reason if it cannot."""
        check = "import perfcourse as pc; pc.laws.amdahl_speedup; import numpy, IPython"
        proc = self.spawn([os.path.abspath(sys.executable), "-I", "-c", check], stdin=subprocess.DEVNULL,
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        try:
            _, err = proc.communicate(timeout=120)
        except subprocess.TimeoutExpired:
            kill(proc)
            raise SandboxError("the sandbox did not start within 120 s") from None
        if proc.returncode != 0:
            lines = [line for line in err.decode("utf-8", "replace").splitlines() if line.strip()]
            raise SandboxError(f"bwrap cannot start a sandbox here: {lines[-1][:300] if lines else proc.returncode}")

    def close(self):
        shutil.rmtree(self.root, ignore_errors=True)


def kill(proc):
    """Kill a kernel and everything it started (its sandbox, or its process group); wait for it."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    try:
        proc.kill()
    except ProcessLookupError:
        pass
    proc.wait()
    for stream in (proc.stdin, proc.stdout, proc.stderr):
        if stream is not None:
            try:
                stream.close()
            except OSError:
                pass
