"""The compiler's view of a kernel, on any machine: registers, spills, shared memory, barriers, instruction mix.

``compiled(kernel, signature)`` compiles a ``numba.cuda`` kernel (a lesson's, an exercise's, a
learner's) for compute capability 9.0, the H200's, with the compile extra's numba-cuda and ptxas,
and reads what ptxas reports and the SASS it wrote (``cuobjdump``). Numba picks the simulator or
the GPU target once per process, so the kernel's source (with the numbers and device functions it
uses) is compiled in a fresh process: it works the same in a lesson that runs on the simulator.
``compiled("stream")`` does the same for the course's CUDA C kernels (``measure/kernels/*.cu``), by
nvcc. What the compiler reports for Hopper is a fact about the real kernel, GPU or no GPU.
``occupancy(report, threads_per_block)`` turns a report into the warps it keeps resident on one SM;
``describe(kernel, signature, block_sizes)`` prints both for a learner's kernel and never raises for a
kernel that does not compile (it says why).
"""

from __future__ import annotations

import inspect
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

from .. import cudacompile
from .._lang import _
from ..cudacompile import HOPPER, CompileError, Report
from ..models import occupancy as _occupancy

__all__ = ["compiled", "course_reports", "describe", "occupancy", "sources", "CompileError", "Report"]

KERNELS = Path(__file__).resolve().parent / "kernels"


def sources():
    """The course's CUDA C kernel files by name: ``{"stream": path, ...}``."""
    return {p.stem: p for p in sorted(KERNELS.glob("*.cu"))}


def _numbers_and_helpers(func, seen):
    """Source lines that define the numbers and ``@cuda.jit`` device functions ``func`` uses, then its own."""
    lines = []
    for name in func.__code__.co_names:
        value = func.__globals__.get(name)
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            lines.append(f"{name} = {value!r}\n")
        helper = getattr(value, "py_func", None)
        if callable(helper) and helper is not func and name not in seen:
            seen.add(name)
            lines.append(_inlined(_numbers_and_helpers(helper, seen), name))
    try:
        own = inspect.getsource(func)
    except (OSError, TypeError):
        raise ValueError(f"the source of {func.__name__} cannot be read (a function built by exec or typed at a "
                         "prompt): define the kernel in a file or a notebook cell") from None
    return "".join(lines) + textwrap.dedent(own) + "\n"


def _inlined(source, name):
    """A device function's source with its decorator made ``@cuda.jit(device=True, inline="always")``: compiled
    into its kernel, as a GPU-less compile needs (a device function linked on its own needs the CUDA driver)."""
    head, sep, rest = source.rpartition(f"def {name}(")
    kept = head.splitlines(keepends=True)
    while kept and kept[-1].lstrip().startswith("@"):        # its own decorator, just above its def
        kept.pop()
    return "".join(kept) + '@cuda.jit(device=True, inline="always")\n' + sep + rest


def _ptx(func, signature, cc):
    source = _numbers_and_helpers(func, {func.__name__})
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_ENABLE_CUDASIM"}
    job = json.dumps({"source": source, "name": func.__name__, "signature": signature, "cc": list(cc)})
    done = subprocess.run([sys.executable, "-m", "perfcourse.cudacompile"], input=job, capture_output=True, text=True,
                          env=env, timeout=300)
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    if done.returncode != 0 or not lines:
        raise CompileError(cudacompile.first_message(done.stderr or "the compiler's process failed"))
    answer = json.loads(lines[-1])
    if "error" in answer:
        raise CompileError(answer["error"])
    return answer["ptx"]


def compiled(kernel, signature=None, *, cc=HOPPER):
    """What the compiler says of ``kernel`` for compute capability ``cc``: a :class:`Report`.

    ``kernel``: a ``@cuda.jit`` kernel or its plain function, with ``signature`` its numba
    signature (``"void(float32[:], float32[:])"``); or the name of one of the course's CUDA C files
    (:func:`sources`), which gives ``{kernel name: Report}`` for every kernel in it. Raises
    ``RuntimeError`` (what to install) without the compile extra, and
    :class:`CompileError` (the compiler's first message) for a kernel that is not CUDA.
    """
    reason = cudacompile.missing()
    if reason:
        raise RuntimeError(reason)
    if not (isinstance(cc, tuple) and len(cc) == 2 and all(isinstance(v, int) for v in cc)):
        raise TypeError(f"cc must be a compute capability such as (9, 0); got {cc!r}")
    if isinstance(kernel, str):
        known = sources()
        if kernel not in known:
            raise ValueError(f"kernel must be a @cuda.jit kernel or one of the course's CUDA C files "
                             f"({', '.join(known)}); got {kernel!r}")
        return {r.kernel: r for r in cudacompile.compile_cu(known[kernel], cc=cc)}
    func = getattr(kernel, "py_func", kernel)
    if not inspect.isfunction(func):
        raise TypeError(f"kernel must be a @cuda.jit kernel, a plain function or a course kernel's name; "
                        f"got {type(kernel).__name__}")
    if not isinstance(signature, str):
        raise TypeError("signature must be the kernel's numba signature, such as 'void(float32[:], float32[:])'; "
                        f"got {signature!r}")
    reports = cudacompile.assemble(_ptx(func, signature, cc), cc=cc)
    if len(reports) != 1:
        raise CompileError(f"expected one kernel in the compiled code, found {len(reports)}")
    report = reports[0]
    report.kernel = func.__name__
    return report


def course_reports(name):
    """``({kernel: Report}, where)`` of the course's CUDA C file ``name``: compiled here, or, without the compile
    extra, as the same compiler reported it (stored with the course: :mod:`perfcourse.measure.compiledstore`)."""
    from .compiledstore import course_reports as reports

    return reports(name)


def occupancy(report, threads_per_block, *, dynamic_shared_bytes=0, device="H200"):
    """The residency (:func:`perfcourse.models.occupancy.estimate`) of a compiled kernel's launch."""
    if not isinstance(report, Report):
        raise TypeError(f"report must be what compiled() returns; got {type(report).__name__}")
    return _occupancy.estimate(threads_per_block=threads_per_block, registers_per_thread=max(report.registers, 1),
                               shared_bytes_per_block=report.shared_bytes + dynamic_shared_bytes, device=device)


def _summary(report):
    mix = report.mix()
    return _("{kernel} for {arch}: {registers} registers a thread, {spills} bytes spilled, {shared} bytes of shared "
             "memory a block, barriers used: {barriers}; instructions: {fp} floating point, {loads} loads, "
             "{stores} stores, {branches} branches, {other} other").format(
        kernel=report.kernel, arch=report.arch, registers=report.registers, spills=report.spills,
        shared=report.shared_bytes, barriers=report.barriers, fp=mix["floating point"], loads=mix["loads"],
        stores=mix["stores"], branches=mix["branches"], other=mix["other"] + mix["barriers"])


def describe(kernel, signature, block_sizes=(), *, device="H200"):
    """Print what the compiler makes of ``kernel`` for ``device``, and its occupancy at each of ``block_sizes``.

    For a learner's kernel in an exercise: one line of registers, spills, shared memory, barriers and
    instruction mix (:func:`compiled`), then a line per block size (:func:`occupancy`). A kernel that
    does not compile for a GPU is said so with the compiler's first message, and without the compile
    extra it says what to install: neither raises. Returns the :class:`Report`, or None.
    """
    if isinstance(block_sizes, int) or not all(isinstance(t, int) and not isinstance(t, bool) for t in block_sizes):
        raise TypeError(f"block_sizes must be a tuple of whole numbers of threads; got {block_sizes!r}")
    try:
        report = compiled(kernel, signature)
    except CompileError as err:
        print(_("{kernel} does not compile for a GPU: {reason}").format(kernel=getattr(kernel, "__name__", kernel),
                                                                         reason=err))
        return None
    except RuntimeError as err:
        print(_("The compiler's report needs the compile extra: {reason}").format(reason=err))
        return None
    except OSError as err:          # a sandbox that starts no programs (the grader's), or a broken install
        print(_("The compiler could not be started here: {reason}").format(reason=err))
        return None
    print(_summary(report))
    for threads in block_sizes:
        try:
            e = occupancy(report, threads, device=device)
        except ValueError as err:
            print(_("  blocks of {threads} threads cannot run: {reason}").format(threads=threads, reason=err))
            continue
        print(_("  blocks of {threads} threads on one {device} SM: {blocks} blocks, {warps} of {most} warps "
                "({share:.0%}), limited by {limit}").format(
            threads=threads, device=device, blocks=e.blocks_per_sm, warps=e.active_warps,
            most=_occupancy.limits(device).warps, share=e.occupancy,
            limit=_(" and ").join(_limit_name(n) for n, allows in e.by_limit.items() if allows == e.blocks_per_sm)))
    return report


def _limit_name(limit):
    names = {"threads": _("threads"), "blocks": _("blocks"), "registers": _("registers"),
             "shared memory": _("shared memory")}
    return names[limit]
