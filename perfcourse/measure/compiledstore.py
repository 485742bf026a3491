"""The compiler's reports of the course's own CUDA C kernels, kept with the course for machines without a compiler.

A lesson reads registers, shared memory and the SASS instruction mix of the course's kernels
(``measure/kernels/*.cu``) compiled for the H200 (sm_90). With the compile extra installed it
compiles them here (:func:`perfcourse.measure.compiler.compiled`); without it, it reads the
reports the same compiler wrote, stored in ``measure/data/compiled/sm_90.json`` with the
compiler's version and a digest of each source, so a source changed since is never read from a
stale report. :func:`store` writes that file; a test keeps it equal to a fresh compile.

Examples
--------
>>> reports, where = course_reports("fma")
>>> sorted(reports)
['fma_chains_1', 'fma_chains_2', 'fma_chains_4', 'fma_chains_8']
>>> reports["fma_chains_8"].registers > reports["fma_chains_1"].registers
True
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from .. import cudacompile
from .._lang import _
from ..cudacompile import HOPPER, Report
from . import compiler

__all__ = ["STORED", "course_reports", "stored", "store", "toolkit"]

STORED = Path(__file__).resolve().parent / "data" / "compiled" / "sm_90.json"
_FIELDS = ("kernel", "arch", "registers", "barriers", "shared_bytes", "stack_bytes", "spill_stores", "spill_loads",
           "instructions")


def _digest(path):
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def toolkit():
    """The CUDA compiler's release line (``"release 13.5, V13.5.37"``) of the compile extra."""
    import subprocess

    text = subprocess.run([cudacompile.tool("nvcc"), "--version"], capture_output=True, text=True, timeout=60).stdout
    line = next((x for x in text.splitlines() if "release" in x), "")
    return line.split("tools, ", 1)[-1].strip() or "unknown"


def stored(path=STORED):
    """The stored file as a dict (``toolkit``, ``sources``: digests, ``reports``), or None when there is none."""
    path = Path(path)
    return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else None


def store(path=STORED):
    """Compile every course kernel for sm_90 here and write the reports to ``path`` (needs the compile extra)."""
    known = compiler.sources()
    reports = {}
    for name in known:
        for kernel, report in compiler.compiled(name).items():
            reports[kernel] = {"source": name, **{f: getattr(report, f) for f in _FIELDS}}
    data = {"toolkit": toolkit(), "cc": list(HOPPER), "sources": {n: _digest(p) for n, p in known.items()},
            "reports": reports}
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    Path(path).write_text(json.dumps(data, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    return data


def course_reports(name):
    """``({kernel: Report}, where)`` for the course's CUDA C file ``name``, compiled for sm_90.

    ``where`` says whose figures they are: compiled here (with the compile extra), or stored with
    the course by the compiler it names. Raises ``ValueError`` for an unknown name, and
    ``RuntimeError`` when neither a compiler nor a current stored report is at hand.
    """
    known = compiler.sources()
    if name not in known:
        raise ValueError(f"name must be one of the course's CUDA C files ({', '.join(known)}); got {name!r}")
    why = cudacompile.missing()
    if why is None:
        try:
            return compiler.compiled(name), _("compiled here for sm_90 by the compile extra's nvcc")
        except RuntimeError as err:          # numba-cuda without the toolkit's nvcc, say
            why = str(err)
    data = stored()
    if data is None or data["sources"].get(name) != _digest(known[name]):
        raise RuntimeError(f"no current compiler report of {name}.cu is stored, and {why}")
    reports = {k: Report(*(r[f] for f in _FIELDS)) for k, r in data["reports"].items() if r["source"] == name}
    return reports, _("compiled for sm_90 by nvcc {toolkit}, stored with the course (no compiler here)").format(
        toolkit=data["toolkit"])
