"""The grader's launches of a submission's kernels: a probe process per submission, in the sandbox.

The kernels' source is taken from the notebook's text here (:mod:`kernelsource`); the probe
(:mod:`probe`, started in a fresh sandbox that never runs the notebook) compiles each kernel
for compute capability 9.0 when the grader has the compiler, then simulates the launches the
checks ask for and sends back what every thread did. A kernel that does not compile is never
simulated: its parts score 0 with the compiler's first message. A probe that runs out of time
or breaks the protocol is killed, and the next launch starts a new one.

The compiler's verdict on a kernel depends on nothing but the module's text, the kernel's name and
its signature, so one grading keeps it (:class:`Compiled`): a class that hands in the same
kernel compiles it once, and a probe whose kernels are all known starts without the compiler.
"""

from __future__ import annotations

import hashlib
import threading
import time

from . import wire
from .checks._kernels import KernelFailed, Run
from .kernel import Kernel, KernelLost
from .kernelsource import kernel_module

__all__ = ["Compiled", "Probes"]

LOAD_TIMEOUT_S = 120.0


class Compiled:
    """The compiler's verdicts of one grading: ``{(module digest, kernel, signature): message or None}``."""

    def __init__(self):
        self._known, self._lock = {}, threading.Lock()

    @staticmethod
    def key(module_text, kernel, signature):
        return hashlib.sha256(module_text.encode("utf-8")).hexdigest(), str(kernel), str(signature)

    def get(self, module_text, signatures):
        """``{kernel: verdict}`` when every kernel of ``signatures`` is known, else None."""
        with self._lock:
            keys = {k: self.key(module_text, k, sig) for k, sig in signatures.items()}
            if all(key in self._known for key in keys.values()):
                return {k: self._known[key] for k, key in keys.items()}
        return None

    def put(self, module_text, signatures, errors):
        with self._lock:
            for k, sig in signatures.items():
                if k in errors:
                    self._known[self.key(module_text, k, sig)] = errors[k]


class Probes:
    """Launchers for one submission's kernels (``launcher(name, deadline)``), one probe process at a time.

    ``compile``: compile each kernel for the GPU before simulating it (the compile extra is needed).
    """

    def __init__(self, sandbox, cells, signatures, *, exercise, memory_bytes, compile=True, compiled=None):
        self.sandbox, self.exercise, self.memory_bytes, self.compile = sandbox, exercise, memory_bytes, compile
        self.compiled = Compiled() if compiled is None else compiled
        self.signatures = dict(signatures)
        self.module = kernel_module(cells, [])
        self.kernel, self.errors, self._ids = None, {}, 0

    def _start(self, deadline):
        kernel = Kernel(self.sandbox, memory_bytes=self.memory_bytes, exercise=self.exercise,
                        program=self.sandbox.support_program("probe.py"))
        try:
            if self.compile and kernel.hello.get("compiler"):
                raise KernelFailed(f"the grader cannot compile kernels: {kernel.hello['compiler']}")
            signatures = {k: v for k, v in self.signatures.items() if k in self.module.kernels}
            known = self.compiled.get(self.module.text, signatures) if self.compile else None
            kernel.send({"op": "load", "module": self.module.text, "kernels": signatures,
                         "compile": self.compile and known is None,
                         "memory_bytes": int(self.memory_bytes), "tasks": getattr(self.sandbox, "thread_cap", None)},
                        deadline)
            loaded = kernel.receive(max(deadline, time.monotonic() + LOAD_TIMEOUT_S))
        except KernelLost as lost:
            kernel.kill()
            raise KernelFailed(f"the grader's run of your kernels {lost.why}") from None
        except BaseException:
            kernel.kill()
            raise
        if loaded.get("op") != "loaded" or not isinstance(loaded.get("errors", {}), dict):
            kernel.kill()
            raise KernelFailed("the grader's run of your kernels answered out of turn")
        if loaded.get("setup"):
            kernel.kill()
            raise KernelFailed(f"the grader could not compile kernels here (its set-up, not your kernel): "
                               f"{str(loaded['setup'])[:300]}")
        if loaded.get("failed"):
            kernel.kill()
            raise KernelFailed(f"your kernels could not be loaded: {str(loaded['failed'])[:300]}")
        if known is None:
            self.errors = {str(k): (None if v is None else str(v)[:400]) for k, v in loaded.get("errors", {}).items()}
            if self.compile:
                self.compiled.put(self.module.text, signatures, self.errors)
        else:
            self.errors = dict(known)
        self.kernel = kernel

    def launcher(self, name, deadline):
        """The callable a check launches kernel ``name`` with: ``launch(grid, block, *args)`` -> :class:`Run`.

        ``deadline``: a one-element list holding the part's end (monotonic seconds).
        """
        def launch(grid, block, *args):
            if name not in self.module.kernels:
                raise KernelFailed(self.module.refused.get(name, f"the notebook defines no @cuda.jit kernel named "
                                                                 f"{name}"))
            if self.kernel is None or not self.kernel.alive:
                self._start(deadline[0])
            if self.errors.get(name):
                raise KernelFailed(f"{name} does not compile for a GPU (numba-cuda, sm_90): {self.errors[name]}")
            self._ids += 1
            left = deadline[0] - time.monotonic()
            try:
                self.kernel.send({"op": "launch", "id": self._ids, "kernel": name, "grid": wire.encode(grid),
                                  "block": wire.encode(block), "args": wire.encode(list(args)),
                                  "timeout_s": max(left, 0.1)}, deadline[0])
                reply = self.kernel.receive(deadline[0] + 5.0)
            except KernelLost as lost:
                self.kill()
                raise KernelFailed(f"the grader's run of {name} {lost.why}") from None
            if reply.get("op") != "launched" or reply.get("id") != self._ids:
                self.kill()
                raise KernelFailed(f"the grader's run of {name} answered out of turn")
            if reply.get("failed"):
                raise KernelFailed(f"launching {name}: {str(reply['failed'])[:300]}")
            try:
                record = wire.decode(reply.get("record"))
            except wire.WireError as err:
                raise KernelFailed(f"the grader's run of {name} sent what it cannot read ({err})") from None
            if record.get("timeout"):
                self.kill()
            return Run(record, self.module, name)

        launch.__name__ = name
        launch.compiled = None if self.compile else "not compiled for a GPU: the grader ran without the compiler"
        return launch

    def kill(self):
        if self.kernel is not None:
            self.kernel.kill()
            self.kernel = None
