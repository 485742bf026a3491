"""Compile a ``numba.cuda`` kernel for a real GPU on any machine: numba-cuda's NVVM, no GPU needed.

A kernel that compiles to PTX for compute capability 9.0 (Hopper, the H200) is CUDA: it
uses only what a GPU thread can do. That is what the grader asks of a learner's kernel
before it simulates it, and what a lesson reads the compiler's figures from. Compiling
needs the ``compile`` extra (``numba-cuda`` and the CUDA toolkit's compiler wheels);
:func:`missing` says in one line what to install when it is absent.

Numba picks the simulator or the real target when ``numba.cuda`` is first imported, so
compile in a process that has not loaded the simulator (:func:`compile_ptx` refuses
otherwise; ``python -m perfcourse.cudacompile`` is such a process). :func:`assemble` and
:func:`compile_cu` read what ptxas reports of each kernel (registers, spills, shared memory,
barriers) and count its SASS instructions (``cuobjdump -sass``): a :class:`Report`. This
module imports nothing of perfcourse: the grader's sandbox loads it on its own, beside its
kernel probe.

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
from pathlib import Path

__all__ = ["INSTALL", "CompileError", "missing", "compile_ptx", "first_message", "HOPPER", "Report", "tool",
           "parse_ptxas", "parse_sass", "assemble", "compile_cu"]

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


# --- what the compiler says of a kernel: ptxas's resource usage and the SASS it wrote ---------------

_ENTRY = re.compile(r"Compiling entry function '([^']+)' for '(sm_\w+)'")
_FRAME = re.compile(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads")
_USED = re.compile(r"Used (\d+) registers(?:, used (\d+) barriers)?(?:, (\d+) bytes smem)?")
_FUNCTION_SASS = re.compile(r"^\s*Function : (\S+)")
_OPCODE = re.compile(r"/\*[0-9a-f]{4,}\*/\s+(?:@!?U?P[T0-9]+\s+)?([A-Z][A-Z0-9_]*)")
GROUPS = {   # SASS opcodes by what they do (the base name, before its first '.')
    "floating point": ("FFMA", "FADD", "FMUL", "FMNMX", "FSETP", "FSEL", "DFMA", "DADD", "DMUL", "DSETP", "HFMA2",
                       "HADD2", "HMUL2", "MUFU", "F2F", "F2I", "I2F", "FRND", "FCHK", "HMMA", "DMMA", "HGMMA"),
    "loads": ("LDG", "LDS", "LD", "LDL", "LDSM", "LDGSTS", "LDGDEPBAR", "ULDC", "LDC"),
    "stores": ("STG", "STS", "ST", "STL", "RED", "ATOM", "ATOMS", "ATOMG"),
    "branches": ("BRA", "BRX", "JMP", "CALL", "RET", "EXIT", "BSSY", "BSYNC", "WARPSYNC", "BREAK"),
    "barriers": ("BAR", "MEMBAR", "DEPBAR", "ERRBAR"),
}


class Report:
    """One kernel as compiled for one GPU: registers, spills, shared memory, barriers and its SASS opcodes.

    Examples
    --------
    >>> r = Report("k", "sm_90", 16, 1, 1024, 0, 0, 0, {"FFMA": 3, "LDS": 2, "BAR": 1, "EXIT": 1})
    >>> r.spills, r.mix()["floating point"], r.mix()["loads"], sum(r.mix().values()) == sum(r.instructions.values())
    (0, 3, 2, True)
    """

    def __init__(self, kernel, arch, registers, barriers, shared_bytes, stack_bytes, spill_stores, spill_loads,
                 instructions):
        self.kernel, self.arch, self.registers, self.barriers = kernel, arch, registers, barriers
        self.shared_bytes, self.stack_bytes = shared_bytes, stack_bytes
        self.spill_stores, self.spill_loads, self.instructions = spill_stores, spill_loads, dict(instructions)

    @property
    def spills(self):
        """Bytes spilled to local memory and loaded back, per thread (0: everything fit in registers)."""
        return self.spill_stores + self.spill_loads

    def mix(self):
        """Instructions by what they do (:data:`GROUPS`), the rest as ``"other"`` (integer, moves, predicates)."""
        counts = dict.fromkeys([*GROUPS, "other"], 0)
        for opcode, n in self.instructions.items():
            group = next((g for g, names in GROUPS.items() if opcode in names), "other")
            counts[group] += n
        return counts

    def __repr__(self):
        return (f"Report({self.kernel!r}, {self.arch}: {self.registers} registers, {self.spills} bytes spilled, "
                f"{self.shared_bytes} bytes shared, {self.barriers} barriers, "
                f"{sum(self.instructions.values())} instructions)")


def tool(name):
    """The path of a CUDA toolkit program (``ptxas``, ``nvcc``, ``cuobjdump``) from the wheels, else the PATH."""
    import shutil

    spec = _spec("nvidia")
    for base in (spec.submodule_search_locations or []) if spec else []:
        for found in sorted(Path(base).glob(f"*/bin/{name}")):
            if os.access(found, os.X_OK):
                return str(found)
    found = shutil.which(name)
    if found is None:
        raise RuntimeError(f"the CUDA toolkit's {name} is not installed: {INSTALL}")
    return found


def _run(command, what):
    import subprocess

    done = subprocess.run(command, capture_output=True, text=True, timeout=300)
    if done.returncode != 0:
        raise CompileError(f"{what} failed: {first_message(done.stderr or done.stdout)}")
    return done


def parse_ptxas(text):
    """``{kernel: {arch, registers, barriers, shared_bytes, stack_bytes, spill_stores, spill_loads}}`` from
    ``ptxas -v``'s report (the compiler's own figures, kernel by kernel).

    Examples
    --------
    >>> text = ("ptxas info    : Compiling entry function 'tree' for 'sm_90'\\n"
    ...         "ptxas info    : Function properties for tree\\n"
    ...         "    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\\n"
    ...         "ptxas info    : Used 16 registers, used 1 barriers, 1024 bytes smem\\n")
    >>> parse_ptxas(text)["tree"]["registers"], parse_ptxas(text)["tree"]["shared_bytes"]
    (16, 1024)
    """
    found, current = {}, None
    for line in text.splitlines():
        entry = _ENTRY.search(line)
        if entry:
            current = found.setdefault(entry.group(1), {"arch": entry.group(2), "registers": 0, "barriers": 0,
                                                        "shared_bytes": 0, "stack_bytes": 0, "spill_stores": 0,
                                                        "spill_loads": 0})
            continue
        if current is None:
            continue
        frame, used = _FRAME.search(line), _USED.search(line)
        if frame:
            current.update(stack_bytes=int(frame.group(1)), spill_stores=int(frame.group(2)),
                           spill_loads=int(frame.group(3)))
        if used:
            current.update(registers=int(used.group(1)), barriers=int(used.group(2) or 0),
                           shared_bytes=int(used.group(3) or 0))
    return found


def parse_sass(text):
    """``{kernel: {opcode: count}}`` from ``cuobjdump -sass``: each instruction's base opcode (no modifiers).

    Examples
    --------
    >>> sass = ("  Function : tree\\n"
    ...         "  /*0000*/   LDC R1, c[0x0][0x28] ;\\n  /*0010*/ @!P0 FFMA.FTZ R2, R3, R4, R2 ;\\n"
    ...         "  /*0020*/   FFMA R2, R3, R4, R2 ;\\n  /*0030*/   EXIT ;\\n")
    >>> parse_sass(sass)
    {'tree': {'LDC': 1, 'FFMA': 2, 'EXIT': 1}}
    """
    found, current = {}, None
    for line in text.splitlines():
        function = _FUNCTION_SASS.match(line)
        if function:
            current = found.setdefault(function.group(1), {})
            continue
        opcode = _OPCODE.search(line) if current is not None else None
        if opcode and opcode.group(1) != "NOP":
            current[opcode.group(1)] = current.get(opcode.group(1), 0) + 1
    return found


def _reports(ptxas_text, cubin):
    sass = parse_sass(_run([tool("cuobjdump"), "-sass", str(cubin)], "cuobjdump").stdout)
    return [Report(name, info.pop("arch"), **info, instructions=sass.get(name, {}))
            for name, info in parse_ptxas(ptxas_text).items()]


def assemble(ptx, *, cc=HOPPER):
    """:class:`Report` of each kernel in ``ptx`` (text), assembled by ptxas for compute capability ``cc``."""
    import tempfile

    arch = f"sm_{cc[0]}{cc[1]}"
    with tempfile.TemporaryDirectory(prefix="perfcourse-ptx-") as tmp:
        source, cubin = Path(tmp, "kernel.ptx"), Path(tmp, "kernel.cubin")
        source.write_text(ptx, encoding="utf-8")
        done = _run([tool("ptxas"), f"-arch={arch}", "-v", "-o", str(cubin), str(source)], "ptxas")
        return _reports(done.stderr + done.stdout, cubin)


def compile_cu(path, *, cc=HOPPER):
    """:class:`Report` of each kernel of a CUDA C source file, compiled by nvcc for compute capability ``cc``."""
    import tempfile

    arch = f"sm_{cc[0]}{cc[1]}"
    with tempfile.TemporaryDirectory(prefix="perfcourse-cu-") as tmp:
        cubin = Path(tmp, "kernel.cubin")
        done = _run([tool("nvcc"), "-cubin", f"-arch={arch}", "-Xptxas", "-v", str(path), "-o", str(cubin)],
                    f"nvcc {Path(path).name}")
        return _reports(done.stderr + done.stdout, cubin)


NUMBA_TYPES = ("float64", "float32", "int64", "int32", "uint32", "boolean")   # dtype names a kernel may use bare


def numba_names():
    """``numba`` and its common type names, as a kernel's notebook imports them (``from numba import float64``):
    the grader's kernel module keeps no import, so the namespaces it is compiled in provide them."""
    import numba

    return {"numba": numba, **{name: getattr(numba, name) for name in NUMBA_TYPES}}


def _main():
    """``python -m perfcourse.cudacompile``: JSON ``{source, name, signature, cc}`` in, the kernel's PTX out.

    Numba picks the simulator or the GPU target once per process, so a process that runs the
    simulator (a lesson on a laptop) compiles a kernel for the GPU through this one.
    """
    import json

    job = json.loads(sys.stdin.read())
    import math

    import numpy as np
    from numba import cuda

    namespace = {"np": np, "numpy": np, "math": math, "cuda": cuda, "__name__": "kernel", **numba_names()}
    try:
        exec(compile(job["source"], "kernel", "exec"), namespace)  # noqa: S102 - the caller's own kernel
        func = namespace[job["name"]]
        ptx = compile_ptx(getattr(func, "py_func", func), job["signature"], cc=tuple(job["cc"]))
    except CompileError as err:
        print(json.dumps({"error": str(err)}))
        return
    except Exception as err:  # noqa: BLE001 - the kernel's source did not load: said as the compiler would
        print(json.dumps({"error": first_message(f"{type(err).__name__}: {err}")}))
        return
    print(json.dumps({"ptx": ptx}))


if __name__ == "__main__":
    _main()
