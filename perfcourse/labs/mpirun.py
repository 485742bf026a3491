"""Launching :mod:`perfcourse.labs.mpi_step` under ``mpiexec`` from Python.

``launch(n, ...)`` runs ``mpiexec -n n python -m perfcourse.labs.mpi_step ...`` in a subprocess
with a timeout and returns rank 0's JSON as a dict. The launcher is looked up next to the
running Python (a virtual environment's ``bin/``, where the ``mpich`` wheel puts it), then on
PATH. Each rank gets ``threads_per_rank`` BLAS threads (one by default), so N ranks use N
cores and the one-rank baseline does not quietly use them all.

Where there is no MPI (no mpi4py, or no ``mpiexec``), the ranks run as local processes whose
collectives go through the launching process (:mod:`perfcourse.labs.localranks`): the same step,
timed the same way, but not MPI, and every result says which transport it used. Set the
environment variable ``PERFCOURSE_TRANSPORT`` to ``mpi`` or ``local`` to force one.

:mod:`perfcourse.labs.mpiresults` turns the result into the figures the lesson reports.
"""

from __future__ import annotations

import contextlib
import functools
import importlib.util
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from .._check import choice, positive_int, real
from .._lang import _
from . import localranks, mpi_step

__all__ = ["MpiNotFound", "find_mpiexec", "mpi_flavour", "transport", "launch"]

_THREAD_VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "BLIS_NUM_THREADS")


class MpiNotFound(RuntimeError):
    """No ``mpiexec`` next to this Python or on PATH."""


def find_mpiexec():
    """Path of ``mpiexec``: next to ``sys.executable`` first, then on PATH.

    Raises
    ------
    MpiNotFound
        With the command that installs one.
    """
    beside = Path(sys.executable).parent / "mpiexec"
    if beside.is_file() and os.access(beside, os.X_OK):
        return str(beside)
    found = shutil.which("mpiexec")
    if found:
        return found
    raise MpiNotFound("mpiexec was not found next to this Python nor on PATH. Install an MPI into this "
                      "environment with:  python -m pip install mpi4py mpich")


def _mpi_missing():
    """Why MPI cannot be used here (a sentence), or None when it can."""
    if importlib.util.find_spec("mpi4py") is None:
        return _("mpi4py is not installed in this Python")
    try:
        find_mpiexec()
    except MpiNotFound:
        return _("mpiexec was found neither next to this Python nor on PATH")
    return None


def transport(requested="auto"):
    """How the ranks will run: ``("mpi", why)`` or ``("local", why)``.

    ``"auto"`` takes ``PERFCOURSE_TRANSPORT`` when it is set, else MPI when mpi4py and
    ``mpiexec`` are both present, else local processes. ``"mpi"`` raises
    :class:`MpiNotFound` (with the install command) when MPI is missing.

    Examples
    --------
    >>> transport("local")
    ('local', 'local processes were asked for')
    """
    choice("requested", requested, ("auto", "mpi", "local"))
    forced = os.environ.get("PERFCOURSE_TRANSPORT", "").strip().lower()
    if requested == "auto" and forced:
        choice("PERFCOURSE_TRANSPORT", forced, ("mpi", "local"))
        requested = forced
    if requested == "local":
        return "local", _("local processes were asked for")
    missing = _mpi_missing()
    if missing is None:
        return "mpi", _("MPI: {flavour} mpiexec with mpi4py").format(flavour=mpi_flavour(find_mpiexec()))
    if requested == "mpi":
        raise MpiNotFound(f"{missing}. Install an MPI into this environment with:  python -m pip install mpi4py mpich")
    return "local", _("no MPI here ({missing})").format(missing=missing)


@functools.lru_cache(maxsize=4)
def mpi_flavour(mpiexec):
    """``"openmpi"``, ``"mpich"`` or ``"other"``, from ``mpiexec --version``."""
    try:
        text = subprocess.run([mpiexec, "--version"], capture_output=True, text=True, timeout=20).stdout
    except (OSError, subprocess.SubprocessError):
        return "other"
    if "Open MPI" in text or "OpenRTE" in text:
        return "openmpi"
    return "mpich" if "HYDRA" in text.upper() or "MPICH" in text.upper() else "other"


def _rank_args(out, options):
    args = ["-m", "perfcourse.labs.mpi_step", "--out", out]
    for key, value in options.items():
        if value is True:
            args.append(f"--{key.replace('_', '-')}")
        elif value not in (False, None):
            args += [f"--{key.replace('_', '-')}", str(value)]
    return args


def _command(mpiexec, n, out, options, extra_args=()):
    cmd = [mpiexec, *extra_args]
    if mpi_flavour(mpiexec) == "openmpi":   # Open MPI refuses root and more ranks than cores unless told
        cmd += ["--oversubscribe"] + (["--allow-run-as-root"] if hasattr(os, "geteuid") and os.geteuid() == 0
                                      else [])
    return cmd + ["-n", str(n), sys.executable, *_rank_args(out, options)]


def launch(n_ranks, *, d=512, global_batch=0, local_batch=0, accumulate=1, repeat=20, warmup=5, sweep=False,
           threads_per_rank=1, timeout_s=120.0, launcher_args=(), via="auto"):
    """Run the data-parallel step on ``n_ranks`` ranks; return rank 0's results (a dict).

    Parameters
    ----------
    n_ranks : int
        Ranks to start (one per GPU on a GPU machine; one per core on the CPU).
    d : int
        Features: the weight matrix is ``d x d`` and so is the gradient all-reduced.
    global_batch : int
        Strong scaling: this batch is split over the ranks (0 to skip).
    local_batch : int
        Weak scaling: every rank gets this batch (0 to skip).
    accumulate : int
        Also run weak scaling with this many micro-batches per all-reduce (1 to skip).
    repeat, warmup : int
        Timed and untimed steps per workload.
    sweep : bool
        Also time all-reduces of 1 KiB to 4 MiB (needs ``n_ranks >= 2``).
    threads_per_rank : int
        BLAS threads per rank.
    timeout_s : float
        The whole run is stopped (all ranks) after this many seconds.
    launcher_args : sequence of str
        Extra arguments for ``mpiexec`` placed before ``-n``, e.g. ``["-f", "hostfile"]`` (MPICH) or
        ``["--hostfile", "hosts"]`` (Open MPI) to spread the ranks over the nodes of a cluster.
    via : {"auto", "mpi", "local"}
        MPI ranks under ``mpiexec``, or local processes without MPI; see :func:`transport`.
        The result's ``"mpi"`` field names the transport used.
    """
    n = positive_int("n_ranks", n_ranks)
    if global_batch and global_batch % n:
        raise ValueError(f"global_batch must divide evenly over n_ranks; got {global_batch} over {n}")
    timeout_s = real("timeout_s", timeout_s, low=0, low_open=True)
    env = dict(os.environ, **{v: str(positive_int("threads_per_rank", threads_per_rank)) for v in _THREAD_VARS})
    env["PYTHONUNBUFFERED"] = "1"
    if isinstance(launcher_args, str) or not all(isinstance(a, str) for a in launcher_args):
        raise TypeError(f"launcher_args must be a list of strings; got {launcher_args!r}")
    kind, _why = transport(via)
    if kind == "local" and launcher_args:
        raise ValueError(f"launcher_args need MPI; got {launcher_args!r} with local processes")
    options = {"d": positive_int("d", d), "global_batch": global_batch, "local_batch": local_batch,
               "accumulate": positive_int("accumulate", accumulate), "repeat": positive_int("repeat", repeat),
               "warmup": warmup, "sweep": bool(sweep)}
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "result.json")
        if kind == "mpi":
            _run([_command(find_mpiexec(), n, out, options, launcher_args)], env, timeout_s)
        else:
            _run_local(n, out, options, env, timeout_s)
        with open(out, encoding="utf-8") as f:
            return json.load(f)


def _run_local(n, out, options, env, timeout_s):
    """Start ``n`` rank processes that meet at a hub in this process (no MPI)."""
    capacity = max(options["d"] ** 2, max(mpi_step.SWEEP_SIZES))   # the gradient, the largest sweep buffer
    with localranks.Hub(n, capacity) as hub:
        env = dict(env, **{localranks.KEY_VAR: hub.authkey.hex()})
        base = [sys.executable, *_rank_args(out, options), "--hub", str(hub.address), "--size", str(n)]
        _run([base + ["--rank", str(r)] for r in range(n)], env, timeout_s)


def _run(cmds, env, timeout_s):
    """Run the commands at once; stop them all if they are not done within ``timeout_s``."""
    procs = [subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                              start_new_session=True) for cmd in cmds]
    deadline = time.monotonic() + timeout_s
    outputs = []
    try:
        for proc in procs:
            outputs.append(proc.communicate(timeout=max(deadline - time.monotonic(), 0.01))[0])
    except subprocess.TimeoutExpired:
        for proc in procs:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)   # the launcher and every rank it started
            proc.communicate()
        raise TimeoutError(f"the run did not finish within {timeout_s:g} s and was stopped") from None
    for cmd, proc, output in zip(cmds, procs, outputs, strict=True):
        if proc.returncode != 0:
            raise RuntimeError(f"{os.path.basename(cmd[0])} exited with status {proc.returncode}; its output ends "
                               "with:\n" + "\n".join(output.splitlines()[-15:]))
