"""Compile a ``numba.cuda`` kernel for a real GPU on any machine: numba-cuda's NVVM, no GPU needed.

A kernel that compiles to PTX for compute capability 9.0 (Hopper, the H200) is CUDA: it
uses only what a GPU thread can do. That is what the grader asks of a learner's kernel
before it simulates it, and what a lesson reads the compiler's figures from. Compiling
needs the ``compile`` extra (``numba-cuda`` and the CUDA toolkit's compiler wheels);
:func:`missing` says in one line what to install when it is absent.

Numba picks the simulator or the real target when ``numba.cuda`` is first imported, so
compile in a process that has not loaded the simulator (:func:`compile_ptx` refuses
otherwise). This module imports nothing of perfcourse: the grader's sandbox loads it on
its own, beside its kernel probe.

Examples
--------
>>> print(first_message("Failed in cuda mode pipeline\\nNameError: name 'total' is not defined"))
name 'total' is not defined
"""

from __future__ import annotations

import importlib.util
import os
import re
import sys

__all__ = ["INSTALL", "CompileError", "missing", "compile_ptx", "first_message", "HOPPER"]

INSTALL = "pip install 'perfcourse[compile]' (numba-cuda and the CUDA compiler wheels, about 460 MB)"
HOPPER = (9, 0)
_ANSI = re.compile(r"\x1b\[[0-9;]*m")
_FUNCTION = re.compile(r"Function\(<function ([\w.]+) at 0x[0-9a-f]+>\)")
_NOISE = ("Failed in ", "During: ", "Use of unsupported", "- Resolution failure", "There are ", " - Of which",
          "- Of which")


class CompileError(Exception):
    """A kernel that does not compile for the GPU; ``str()`` is the compiler's first message."""


def missing():
    """None when kernels can be compiled here; otherwise one line saying what to install."""
    if _spec("numba_cuda") is None:
        return f"numba-cuda is not installed: {INSTALL}"
    if _spec("cuda.pathfinder") is None and _spec("nvidia") is None:
        return f"the CUDA compiler wheels are not installed: {INSTALL}"
    return None


def _spec(name):
    try:
        return importlib.util.find_spec(name)
    except ImportError:        # a dotted name whose parent package is absent
        return None


def first_message(text):
    """The compiler's first meaningful line of ``text``, with the kernel line it points at.

    Numba's typing errors run to dozens of lines; a learner needs the reason and the line.
    """
    text = _FUNCTION.sub(r"\1", _ANSI.sub("", str(text))).replace("found for signature:\n \n >>> ", "for ")
    lines = [line.rstrip() for line in text.splitlines()]
    lines = [line for line in lines if line.strip()]
    where = next((line.strip().rstrip(":") for line in reversed(lines) if line.strip().startswith("File ")), "")
    reason = ""
    for line in lines:
        body = re.sub(r"^\w*(Error|Exception): ", "", line.strip())
        if body.startswith(">>> "):
            reason = (reason + " for " if reason else "") + body[4:]
            break
        if body.startswith("File ") or any(body.startswith(n) for n in _NOISE) or body.endswith("pipeline"):
            continue
        if body.startswith("Error at driver init"):
            return ("it needs the CUDA driver to compile: it uses something a GPU thread cannot have (a Python "
                    "list, sorted(), an object)")
        if body and not reason:
            reason = body
            if not body.startswith("No implementation"):
                break
    reason = reason or (lines[0].strip() if lines else "the compiler failed")
    reason = reason if len(reason) <= 300 else reason[:297] + "..."
    return f"{reason} ({where})" if where else reason


def compile_ptx(pyfunc, signature, *, cc=HOPPER, device=False):
    """PTX of ``pyfunc`` (a plain Python function) for compute capability ``cc``; raises CompileError.

    Parameters
    ----------
    pyfunc : function
        The kernel's Python function (``kernel.py_func``, or the function before ``@cuda.jit``).
    signature : str
        Numba's signature, e.g. ``"void(float64[:], float64[:])"``.
    cc : tuple of int
        Compute capability; (9, 0) is Hopper.
    device : bool
        Compile a device function instead of a kernel.
    """
    if not callable(pyfunc) or not hasattr(pyfunc, "__code__"):
        raise TypeError(f"pyfunc must be a plain Python function; got {type(pyfunc).__name__}")
    if not isinstance(signature, str):
        raise TypeError(f"signature must be a string such as 'void(float64[:])'; got {type(signature).__name__}")
    reason = missing()
    if reason:
        raise RuntimeError(reason)
    if os.environ.get("NUMBA_ENABLE_CUDASIM") == "1" and "numba.cuda" not in sys.modules:
        raise RuntimeError("NUMBA_ENABLE_CUDASIM=1 is set; compile for the GPU in a process without it")
    from numba import cuda

    if "simulator" in getattr(cuda.jit, "__module__", ""):
        raise RuntimeError("this process runs Numba's CUDA simulator; compile for the GPU in a fresh process")

    try:
        ptx, _ = cuda.compile_ptx(pyfunc, signature, cc=tuple(cc), device=device)
    except Exception as err:  # noqa: BLE001 - Numba's typing, lowering and NVVM errors all mean "not CUDA"
        raise CompileError(first_message(f"{type(err).__name__}: {err}")) from None
    return ptx
