"""Ranks without MPI: local processes that meet at a hub in the launching process.

Where mpi4py or ``mpiexec`` is missing, :func:`perfcourse.labs.mpirun.launch` still starts one
process per rank (``python -m perfcourse.labs.mpi_step --hub ADDRESS --rank r --size n ...``),
and this module gives them the three collectives the training step needs: a barrier, a sum
of float32 buffers (the all-reduce) and a gather to rank 0.

A barrier is one round trip through a :class:`Hub`, a thread of the launching process that
answers once every rank has called. The sum goes through shared memory (a memory-mapped
file holding one slot per rank): each rank writes its buffer into its slot, waits at a
barrier, adds all slots in rank order into its own buffer, and waits again before any slot
is reused. That resembles what MPI does between ranks of one machine, but it is not MPI's
algorithm, so an alpha and beta fitted on it describe this fallback only; results carry
:data:`TRANSPORT` so that no table passes them off as MPI.

Examples
--------
>>> import numpy as np
>>> with Hub(1, capacity=8) as hub:
...     comm = HubComm(hub.address, 0, 1, hub.authkey)
...     buf = np.ones(3, dtype=np.float32)
...     comm.sum_in_place(buf)      # one rank: the sum is its own buffer
...     comm.gather("hello")
...     comm.close()
['hello']
>>> buf.tolist()
[1.0, 1.0, 1.0]
"""

from __future__ import annotations

import contextlib
import os
import tempfile
import threading
from multiprocessing.connection import Client, Listener

import numpy as np

from .._check import positive_int, real

__all__ = ["TRANSPORT", "KEY_VAR", "Hub", "HubComm"]

TRANSPORT = "local processes with a shared-memory all-reduce, no MPI"
KEY_VAR = "PERFCOURSE_HUB_KEY"   # the hub's authentication key, passed to the ranks in their environment


class HubComm:
    """One rank's end: ``rank``, ``size``, ``Barrier()``, ``gather(obj, root)`` and ``sum_in_place(buf)``.

    The names follow mpi4py's communicator, so :mod:`perfcourse.labs.mpi_step` runs on either.
    """

    def __init__(self, address, rank, size, authkey):
        self.size = positive_int("size", size)
        self.rank = int(real("rank", rank, low=0, high=self.size - 1, integer=True))
        self._conn = Client(address, authkey=authkey)
        self._conn.send(self.rank)
        path, capacity = self._conn.recv()
        self._slots = np.memmap(path, dtype=np.float32, mode="r+", shape=(self.size, capacity))

    def _call(self, op, payload=None):
        self._conn.send((op, payload))
        return self._conn.recv()

    def Barrier(self):   # noqa: N802 (mpi4py's name)
        """Return once every rank has called it."""
        if self.size > 1:
            self._call("barrier")

    def gather(self, obj, root=0):
        """Rank ``root`` gets the list of every rank's ``obj`` (in rank order); the others get None."""
        return self._call("gather", (root, obj))

    def sum_in_place(self, buf):
        """Replace ``buf`` (a C-contiguous float32 NumPy array) by its sum over all ranks."""
        if not isinstance(buf, np.ndarray) or buf.dtype != np.float32 or not buf.flags.c_contiguous:
            raise TypeError(f"buf must be a C-contiguous float32 NumPy array; got {type(buf).__name__} "
                            f"{getattr(buf, 'dtype', '')}".rstrip())
        flat, capacity = buf.reshape(-1), self._slots.shape[1]
        if flat.size > capacity:
            raise ValueError(f"buf holds {flat.size} elements; this hub's slots hold at most {capacity}")
        self._slots[self.rank, :flat.size] = flat
        self.Barrier()                                   # every slot is written
        np.sum(self._slots[:, :flat.size], axis=0, out=flat)
        self.Barrier()                                   # every rank has read them: slots may be reused

    def close(self):
        """Tell the hub this rank is done (every rank must) and hang up."""
        self._call("bye")
        self._conn.close()
        del self._slots


class Hub:
    """The launcher's end: accepts ``size`` ranks, then answers their barriers and gathers in a thread.

    ``capacity`` is the largest buffer (float32 elements) a rank may sum. Use the hub as a
    context manager around the rank processes. ``error`` holds what stopped it early (a rank
    that died, ranks calling different collectives), else None.
    """

    def __init__(self, size, capacity):
        self.size = positive_int("size", size)
        self.capacity = positive_int("capacity", capacity)
        fd, self._path = tempfile.mkstemp(prefix="perfcourse-slots-")
        with os.fdopen(fd, "wb") as f:
            f.truncate(self.size * self.capacity * 4)
        self.authkey = os.urandom(16)
        self._listener = Listener(authkey=self.authkey)
        self.address = self._listener.address
        self.error = None
        self._thread = threading.Thread(target=self._serve, name="perfcourse-hub", daemon=True)
        self._thread.start()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        with contextlib.suppress(OSError):
            self._listener.close()   # unblocks accept() if some rank never connected
        self._thread.join(timeout=5)
        with contextlib.suppress(OSError):
            os.remove(self._path)
        return False

    def _serve(self):
        conns = {}
        try:
            while len(conns) < self.size:
                conn = self._listener.accept()
                conns[conn.recv()] = conn
                conn.send((self._path, self.capacity))
            ordered = [conns[r] for r in range(self.size)]
            while self._round(ordered):
                pass
        except (EOFError, OSError, RuntimeError, KeyError) as err:
            self.error = err
        finally:
            for conn in conns.values():
                conn.close()   # a rank still waiting gets EOFError and exits

    def _round(self, conns):
        """Receive one collective from every rank and answer all; False after the last one."""
        msgs = [conn.recv() for conn in conns]
        ops = {op for op, _ in msgs}
        if len(ops) != 1:
            raise RuntimeError(f"ranks called different collectives at the same step: {sorted(ops)}")
        op = ops.pop()
        replies = [None] * len(conns)
        if op == "gather":
            root = msgs[0][1][0]
            replies[root] = [obj for _, (_, obj) in msgs]
        for conn, reply in zip(conns, replies, strict=True):
            conn.send(reply)
        return op != "bye"
