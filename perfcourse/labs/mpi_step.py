"""A data-parallel training step of one dense layer, run by every MPI rank.

Each rank holds the same weights ``W[d, d]`` and its own slice of the global batch. One step
is the forward pass ``Y = X W``, the backward pass (``dW = X^T dY`` and ``dX = dY W^T``) on
the local slice, then an all-reduce that sums ``dW`` over the ranks, so every rank ends the
step with the gradient of the whole global batch, as one device would have computed it.

Run it under an MPI launcher; rank 0 writes the results as JSON::

    mpiexec -n 2 python -m perfcourse.labs.mpi_step --out results.json --d 512 --global-batch 256

The same command runs unchanged across the nodes of a cluster (add the launcher's host list).
On GPUs each rank takes the GPU whose index is its rank on its node, and the arrays are CuPy
arrays; the gradient goes through host memory for the all-reduce (MPI from PyPI is not
CUDA-aware), and that copy is counted as communication.

Without MPI, :func:`perfcourse.labs.mpirun.launch` starts the ranks as local processes with
``--hub ADDRESS --rank r --size n``; their collectives then go through the launching
process (:mod:`perfcourse.labs.localranks`), and the results say so in their ``"mpi"`` field.

Timing: every rank must call a collective the same number of times or the run hangs, so the
loops here run a fixed number of iterations (no time-based warm-up as in
:func:`perfcourse.measure.timing.measure`); each phase is read with ``perf_counter_ns`` after a
device synchronisation. Per iteration the step is split into compute, wait (the barrier
after compute: imbalance between ranks) and communication (the all-reduce itself).
"""

from __future__ import annotations

import argparse
import json
import os
import time

import numpy as np

from ..measure import kernels

__all__ = ["dense_step", "step_flops", "main"]

SWEEP_SIZES = tuple(2**k for k in range(8, 21, 2))   # float32 elements: 1 KiB ... 4 MiB


def dense_step(xp, x, w, target, global_batch):
    """Forward and backward of ``Y = X W`` with loss ``sum((Y - T)^2) / (2 B)``; returns ``(dW, dX)``.

    ``B`` is the *global* batch, so summing the ``dW`` of every rank gives the gradient of the
    whole batch.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> x, w, t = rng.random((4, 3)), rng.random((3, 3)), rng.random((4, 3))
    >>> dw_all, _ = dense_step(np, x, w, t, 4)
    >>> dw_halves = sum(dense_step(np, x[i:i + 2], w, t[i:i + 2], 4)[0] for i in (0, 2))
    >>> bool(np.allclose(dw_all, dw_halves))
    True
    """
    y = kernels.dense.run(x, w)
    dy = (y - target) * (1.0 / global_batch)
    return kernels.matmul.run(x.T, dy), kernels.matmul.run(dy, w.T)


def step_flops(batch, d):
    """FLOPs of one :func:`dense_step` on ``batch`` rows: ``6 batch d^2`` (three matmuls).

    Examples
    --------
    >>> step_flops(256, 512)
    402653184.0
    """
    return kernels.dense.flops(batch, d) + 2 * kernels.matmul.flops(d, batch, d)


def _now():
    return time.perf_counter_ns() * 1e-9


class _Rank:
    """One rank's communicator, array backend and the sum that makes its all-reduce.

    ``reduce_sum(host)`` replaces a float32 host buffer by its sum over all ranks: MPI's
    ``Allreduce`` under ``mpiexec``, the launcher's hub without MPI.
    """

    def __init__(self, comm, backend, reduce_sum):
        self.comm, self.b, self.xp, self._sum = comm, backend, backend.xp, reduce_sum

    def allreduce(self, buf):
        """Sum ``buf`` over all ranks in place (through host memory on the GPU)."""
        if self.comm.size == 1:
            return
        host = self.b.to_numpy(buf) if self.b.on_gpu else buf
        self._sum(host)
        if self.b.on_gpu:
            buf[...] = self.xp.asarray(host)
        self.b.synchronize()


def _data(d, rows, seed):
    rng = np.random.default_rng(seed)
    return (rng.standard_normal((rows, d), dtype=np.float32), rng.standard_normal((d, d), dtype=np.float32),
            rng.standard_normal((rows, d), dtype=np.float32))


def _run_workload(rank, label, d, local_batch, accumulate, repeat, warmup, seed):
    """Time ``repeat`` steps; return per-iteration phase times of this rank and the check error."""
    comm, xp, n = rank.comm, rank.xp, rank.comm.size
    global_batch = n * local_batch * accumulate
    x_all, w_host, t_all = _data(d, global_batch, seed)
    mine = [slice((k * n + comm.rank) * local_batch, (k * n + comm.rank + 1) * local_batch)
            for k in range(accumulate)]
    xs = [xp.asarray(x_all[s]) for s in mine]
    ts = [xp.asarray(t_all[s]) for s in mine]
    w = xp.asarray(w_host)
    phases = {"compute_s": [], "wait_s": [], "comm_s": []}
    for i in range(warmup + repeat):
        comm.Barrier()
        t0 = _now()
        grad = xp.zeros_like(w)
        for x, t in zip(xs, ts, strict=True):
            grad += dense_step(xp, x, w, t, global_batch)[0]
        rank.b.synchronize()
        t1 = _now()
        comm.Barrier()
        t2 = _now()
        rank.allreduce(grad)
        t3 = _now()
        if i >= warmup:
            for key, value in zip(phases, (t1 - t0, t2 - t1, t3 - t2), strict=True):
                phases[key].append(value)
    error = None
    if comm.rank == 0:
        x64, w64, t64 = (a.astype(np.float64) for a in (x_all, w_host, t_all))
        reference = x64.T @ ((x64 @ w64 - t64) / global_batch)
        error = float(np.abs(rank.b.to_numpy(grad) - reference).max() / np.abs(reference).max())
    return {"label": label, "local_batch": local_batch, "global_batch": global_batch, "accumulate": accumulate,
            "d": d, "grad_bytes": int(w.nbytes), "flops_per_rank": step_flops(local_batch * accumulate, d),
            "phases": phases, "grad_rel_error": error}


def _sweep(rank, sizes, seed):
    """All-reduce times of float32 buffers of each size (fixed repeats, same on every rank)."""
    out = []
    for _ in range(50):   # first messages set up the shared-memory channels: keep them out
        rank.allreduce(rank.xp.ones(256, dtype=np.float32))
    for size in sizes:
        buf = rank.xp.asarray(np.random.default_rng(seed).random(size, dtype=np.float32))
        repeat = 30 if size <= 2**16 else 10
        samples = []
        for i in range(2 + repeat):
            rank.comm.Barrier()
            t0 = _now()
            rank.allreduce(buf)
            if i >= 2:
                samples.append(_now() - t0)
        out.append({"elements": size, "nbytes": size * 4, "seconds": samples})
    return out


def _merge(comm, local):
    """Per iteration, the slowest rank's time for each phase (what the step waits for)."""
    everyone = comm.gather(local, root=0)
    if comm.rank != 0:
        return None
    return [np.max(np.array(values), axis=0).tolist() for values in zip(*everyone, strict=True)]


def _pick_device(local_rank):
    """On a GPU machine, use GPU number (rank on this node) modulo the GPU count."""
    if os.environ.get("PERFCOURSE_BACKEND", "").lower() == "numpy":
        return
    from ..measure.backend import probe_cupy

    cupy, _ = probe_cupy()        # no CuPy or no usable GPU: the backend falls back to NumPy and says why
    if cupy is not None:
        cupy.cuda.Device(local_rank % cupy.cuda.runtime.getDeviceCount()).use()


def _parse(argv):
    p = argparse.ArgumentParser(prog="python -m perfcourse.labs.mpi_step", description=__doc__.splitlines()[0])
    p.add_argument("--out", required=True, help="JSON file written by rank 0")
    p.add_argument("--d", type=int, default=512, help="features: W is d x d (default 512)")
    p.add_argument("--global-batch", type=int, default=0, help="strong scaling: global batch split over ranks")
    p.add_argument("--local-batch", type=int, default=0, help="weak scaling: batch per rank")
    p.add_argument("--accumulate", type=int, default=1, help="weak scaling with this many micro-batches per step")
    p.add_argument("--repeat", type=int, default=20, help="timed steps per workload")
    p.add_argument("--warmup", type=int, default=5, help="untimed steps first")
    p.add_argument("--sweep", action="store_true", help="also time all-reduces over a range of sizes")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--hub", help="without MPI: address of the launcher's hub (see perfcourse.labs.localranks)")
    p.add_argument("--rank", type=int, default=0, help="with --hub: this process's rank")
    p.add_argument("--size", type=int, default=1, help="with --hub: number of ranks")
    args = p.parse_args(argv)
    for name in ("d", "repeat", "accumulate"):
        if getattr(args, name) < 1:
            p.error(f"--{name} must be >= 1; got {getattr(args, name)}")
    return args


def _workloads(args, n):
    todo = []
    if args.global_batch:
        if args.global_batch % n:
            raise ValueError(f"--global-batch {args.global_batch} must divide evenly over {n} ranks")
        todo.append(("strong", args.global_batch // n, 1))
    if args.local_batch:
        todo.append(("weak", args.local_batch, 1))
        if args.accumulate > 1:
            todo.append((f"weak, accumulate {args.accumulate}", args.local_batch, args.accumulate))
    return todo


def _run_ranks(comm, rank, args, transport):
    """Every rank: run the workloads and the sweep; rank 0 returns the results (a dict), others None."""
    b = rank.b
    runs = []
    for label, local, acc in _workloads(args, comm.size):
        run = _run_workload(rank, label, args.d, local, acc, args.repeat, args.warmup, args.seed)
        merged = _merge(comm, list(run["phases"].values()))
        if comm.rank == 0:
            run["phases"] = dict(zip(run["phases"], merged, strict=True))
            runs.append(run)
    sweep = _sweep(rank, SWEEP_SIZES, args.seed) if args.sweep and comm.size > 1 else []
    for item in sweep:
        merged = _merge(comm, [item["seconds"]])
        if comm.rank == 0:
            item["seconds"] = merged[0]
    if comm.rank != 0:
        return None
    return {"n_ranks": comm.size, "backend": b.name, "device": b.device, "dtype": "float32", "mpi": transport,
            "runs": runs, "allreduce": sweep}


def _connect(args):
    """The communicator, its all-reduce sum and the transport's name: the hub if given, else MPI."""
    if args.hub:
        from .localranks import KEY_VAR, TRANSPORT, HubComm

        comm = HubComm(args.hub, args.rank, args.size, bytes.fromhex(os.environ[KEY_VAR]))
        _pick_device(comm.rank)
        return comm, comm.sum_in_place, TRANSPORT
    from mpi4py import MPI

    comm = MPI.COMM_WORLD
    _pick_device(comm.Split_type(MPI.COMM_TYPE_SHARED).rank)
    return (comm, lambda host: comm.Allreduce(MPI.IN_PLACE, host, op=MPI.SUM),
            " ".join(MPI.Get_library_version().split()[:3]))


def main(argv=None):
    """Entry point of every rank: run the workloads, then rank 0 writes the JSON."""
    args = _parse(argv)
    from ..measure import backend as _backend

    comm, reduce_sum, transport = _connect(args)
    rank = _Rank(comm, _backend.get(), reduce_sum)
    result = _run_ranks(comm, rank, args, transport)
    if args.hub:
        comm.close()
    if result is not None:
        with open(args.out, "w", encoding="utf-8") as f:
            json.dump(result, f)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
