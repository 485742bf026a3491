"""Grade one submission: run its notebook in a kernel, then check each part from the grader's process.

The notebook's code cells run top to bottom in a fresh sandboxed kernel (errors allowed,
like "run all"), under a time limit for all cells together, a memory limit and an output
limit. Then, part by part, the part's check runs *here*: it draws the inputs, asks the
kernel to call the learner's function on them, receives the result as plain data and
compares it with the answer it computes itself. Each part has :data:`PART_TIMEOUT_S`
seconds, enforced from outside: past it, or when a call ends the kernel, the kernel is
killed, the part scores 0 and the next part runs in a new kernel that runs the notebook
again. The whole notebook, restarts included, takes at most :func:`total_time`: the cells'
limit once plus each part's. Answers, seeds and checks never enter the kernel.
"""

from __future__ import annotations

import contextlib
import time
from dataclasses import dataclass, field, replace

from .._check import positive_int, real
from ..units import format_bytes
from .checks import PART_TIMEOUT_S, exercises, part_rng, parts, score_part
from .checks._answers import Answers
from .given import given_cells, notebook_of, notebook_text
from .kernel import ENDED, Kernel, KernelLost
from .kernelprobe import Probes

__all__ = ["MAX_OUTPUT_BYTES", "CellFailure", "NotebookRun", "total_time", "run_submission"]

MAX_OUTPUT_BYTES = 1 << 20


@dataclass
class CellFailure:
    """A cell of the submission that did not run cleanly."""

    cell: int          # 1-based number among the notebook's code cells
    source: str
    reason: str

    def describe(self):
        first = next((line.strip() for line in self.source.splitlines() if line.strip()), "")
        first = first if len(first) <= 40 else first[:37] + "..."
        return f"code cell {self.cell} ({first!r}) {self.reason}"


@dataclass
class NotebookRun:
    """What grading a notebook produced: failed cells, a fatal stop, each part's verdict."""

    failures: list[CellFailure] = field(default_factory=list)
    fatal: str | None = None
    parts: list[dict] | None = None
    seconds: float = 0.0


@dataclass
class _Job:
    sandbox: object
    name: str
    text: str
    cells: list
    names: list
    timeout_s: float
    memory_bytes: int
    max_output_bytes: int
    until: float = float("inf")       # the whole notebook's end (monotonic): its cells, restarts and parts
    exercise: str | None = None       # its kernels see the package without this exercise's withheld functions
    compile: bool = True              # kernel parts: compile each kernel for a GPU before the grader launches it
    answers: object = None            # the grader's references for the exercise (checks._answers.Answers)
    probes: object = None             # the grader's launches of the notebook's kernels (kernelprobe.Probes)
    given: object = None              # a kernel running the course's own given functions (grading.given)
    compiled: object = None           # the compiler's verdicts kept by the grading (kernelprobe.Compiled)


def _problem(report, job):
    if report.flood:
        return f"printed more than {format_bytes(job.max_output_bytes)} of output and was stopped"
    if report.deleted:
        return f"deleted {job.name} from its working directory"
    if report.error is None:
        return None
    ename, evalue = report.error
    evalue = evalue if len(evalue) <= 150 else evalue[:147] + "..."
    reason = f"raised {ename}" + (f": {evalue}" if evalue else "")
    if ename == "MemoryError":
        reason += f" (the notebook may use about {format_bytes(job.memory_bytes)})"
    return reason


def _run_notebook(job):
    """Start a kernel and run the notebook: (kernel or None, failures, fatal reason or None, defined names)."""
    kernel = Kernel(job.sandbox, memory_bytes=job.memory_bytes, exercise=job.exercise)
    failures, number = [], 1
    try:
        deadline = min(time.monotonic() + job.timeout_s, job.until)
        kernel.start(job.name, job.text, job.cells, job.names, memory_bytes=job.memory_bytes,
                     max_output_bytes=job.max_output_bytes, deadline=deadline)
        for index, source in enumerate(job.cells):
            number = index + 1
            report = kernel.next_cell(index, deadline)
            if isinstance(report, dict):
                raise KernelLost("reported the end of the notebook too early")
            problem = _problem(report, job)
            if problem:
                failures.append(CellFailure(number, source, problem))
            if report.exit:
                kernel.kill()
                return None, failures, f"the notebook called exit() in code cell {number}, which ends its kernel", set()
        number = len(job.cells)
        names = kernel.next_cell(len(job.cells), deadline)
        if not isinstance(names, dict):
            raise KernelLost("reported more cells than the notebook has")
    except KernelLost as lost:
        kernel.kill()
        return None, failures, _fatal(lost, number, job), set()
    return kernel, failures, None, {n for n, kind in names.items() if kind == "function" and n in job.names}


def _fatal(lost, number, job):
    if lost.timeout and time.monotonic() >= job.until:
        return f"the notebook used up its total time (stopped in code cell {number})"
    if lost.timeout:
        return (f"the notebook did not finish within its time limit of {job.timeout_s:g} s "
                f"(stopped in code cell {number})")
    if lost.why == ENDED:
        return (f"the kernel died in code cell {number} (os._exit(), a crash, or running out of memory: the limit "
                f"is about {format_bytes(job.memory_bytes)})")
    return f"the notebook {lost.why} (in code cell {number}) and was stopped"


def _proxy(kernel, name, deadline):
    """A stand-in for the learner's function ``name`` that calls it in the kernel."""
    def call(*args):
        return kernel.call(name, args, deadline[0])

    call.__name__ = call.__qualname__ = name
    call.cpu_clock = kernel.cpu_seconds          # the CPU the function's own process uses (see checks' cpu_clock)
    call.counting = lambda watch, *args: kernel.call_counting(name, args, deadline[0], watch)   # see checks' counting
    return call


def _hint(exercise, names):
    notebook = exercises()[exercise][2:] + ".ipynb"
    return (f"this notebook defines none of exercise {exercise[2:]}'s functions ({', '.join(names)}): submit the "
            f"exercise notebook {notebook} (from exercises/), not a lesson")


def _kernel_launchers(job, spec, deadline):
    """Launchers for ``spec``'s kernels; the job's probe is made on first use (and started on first launch)."""
    if job.probes is None:
        signatures = {name: sig for p in parts(job.exercise) for name, sig in p.kernels}
        job.probes = Probes(job.sandbox, job.cells, signatures, exercise=job.exercise, memory_bytes=job.memory_bytes,
                            compile=job.compile, compiled=job.compiled)
    return {name: job.probes.launcher(name, deadline) for name, _ in spec.kernels}


def _given_functions(job, spec, deadline, learner):
    """The course's own definitions of ``spec``'s given functions, called in a kernel no submission runs in.

    While one runs, the ``learner``'s kernel is stopped: nothing it left running shares the machine.
    """
    if job.given is None:
        import nbformat

        path = notebook_of(job.answers.folder.parent, job.exercise)
        names = sorted({n for p in parts(job.exercise) for n in p.given})
        sources = [c.source for c in nbformat.read(path, as_version=4).cells if c.cell_type == "code"]
        cells = given_cells(sources, names, where=path.name)
        course = replace(job, name=path.name, text=notebook_text(cells), cells=cells, names=names,
                                     probes=None, given=None)
        kernel, failures, fatal, defined = _run_notebook(course)
        if fatal or failures or set(names) - defined:
            if kernel is not None:
                kernel.kill()
            why = fatal or (failures[0].describe() if failures else f"it defined only {sorted(defined)}")
            raise RuntimeError(f"the course's own {', '.join(names)} (from {path.name}) would not run: {why}")
        job.given = kernel
    return {name: _in_turn(_proxy(job.given, name, deadline), learner, stopped=True) for name in spec.given}


def _in_turn(call, kernel, *, stopped):
    """``call`` with the learner's ``kernel`` stopped (``stopped``) or running while it runs.

    The kernel's state changes only when the calls switch sides, so a run of timed calls to the
    course's functions pays for no signals between them.
    """
    def turn():
        if kernel.stopped != stopped:
            kernel.pause(stop=stopped)
            kernel.stopped = stopped

    def run(*args):
        turn()
        return call(*args)

    def counting(watch, *args):
        turn()
        return call.counting(watch, *args)

    run.__name__ = run.__qualname__ = call.__name__
    if hasattr(call, "cpu_clock"):
        run.cpu_clock = call.cpu_clock
    if hasattr(call, "counting"):
        run.counting = counting
    return run


def _score_parts(job, exercise, kernel, defined, seed, part_timeout):
    results = []
    try:
        kernel = _score_each(job, exercise, kernel, defined, seed, part_timeout, results)
    finally:
        if job.probes is not None:
            job.probes.kill()
        if job.given is not None:
            job.given.kill()
    return results, kernel


def _score_each(job, exercise, kernel, defined, seed, part_timeout, results):
    for index, spec in enumerate(parts(exercise)):
        again = None
        if time.monotonic() >= job.until:
            again = "the notebook had used up its total time"
        elif kernel is None or not kernel.alive:
            kernel, _, again, defined = _run_notebook(job)
            again = again and f"the kernel had to be started again for this part, and then {again}"
        if again is not None:
            points, feedback = 0.0, again
        else:
            timeout = max(part_timeout, spec.timeout_s or 0.0)
            deadline = [min(time.monotonic() + timeout, job.until)]
            functions = {n: _proxy(kernel, n, deadline) for n in defined}
            if spec.kernels:
                functions.update(_kernel_launchers(job, spec, deadline))
            if spec.given:
                functions = {n: _in_turn(f, kernel, stopped=False) for n, f in functions.items()}
                functions.update(_given_functions(job, spec, deadline, kernel))
            try:
                points, feedback = score_part(spec, functions, part_rng(seed, index), part_timeout=timeout,
                                              ref=job.answers, limit=contextlib.nullcontext())
            finally:
                if kernel.stopped:
                    kernel.pause(stop=False)
                    kernel.stopped = False
        results.append({"part": spec.title, "points": points, "max_points": spec.points, "feedback": feedback})
    return kernel


def total_time(exercise, timeout_s, part_timeout):
    """Seconds one notebook may take in all: its cells once, and each part's own limit, whatever restarts.

    Examples
    --------
    >>> total_time("ex03", 60, 10)
    90.0
    """
    return float(timeout_s) + sum(max(part_timeout, spec.timeout_s or 0.0) for spec in parts(exercise))


def run_submission(sandbox, name, text, cells, exercise, *, timeout_s, memory_bytes, seed,
                   part_timeout=PART_TIMEOUT_S, max_output_bytes=MAX_OUTPUT_BYTES, compile_kernels=True, answers=None,
                   compiled=None):
    """Run a notebook (its file ``name``, its ``text``, its code ``cells``) and check ``exercise``'s parts.

    ``compile_kernels``: compile each kernel a part launches for a GPU first (needs the compile
    extra; without it, a kernel is simulated uncompiled and its parts say so). ``answers``: the
    grader's references for ``exercise`` (default: those of the checkout, :class:`Answers`). ``compiled``:
    the compiler's verdicts a whole grading shares (:class:`perfcourse.grading.kernelprobe.Compiled`).

    Returns a :class:`NotebookRun`. A kernel that will not start raises
    :class:`perfcourse.grading.kernel.KernelStartError` (the grader's problem, not the notebook's).
    """
    if not all(isinstance(c, str) for c in cells) or not isinstance(text, str):
        raise TypeError("cells must be a list of code cell sources (str) and text the notebook's JSON text")
    timeout_s = real("timeout_s", timeout_s, low=0, low_open=True)
    memory_bytes = positive_int("memory_bytes", memory_bytes)
    part_timeout = real("part_timeout", part_timeout, low=0, low_open=True)
    names = sorted({n for p in parts(exercise) for n in p.needs})
    started = time.monotonic()
    budget = total_time(exercise, timeout_s, part_timeout)
    job = _Job(sandbox, name, text, list(cells), names, timeout_s, memory_bytes, max_output_bytes, started + budget,
               exercise, bool(compile_kernels), Answers(exercise) if answers is None else answers,
               compiled=compiled)
    kernel, failures, fatal, defined = _run_notebook(job)
    run = NotebookRun(failures, fatal)
    try:
        if fatal is None and not defined:
            hint = _hint(exercise, names)
            run.parts = [{"part": p.title, "points": 0.0, "max_points": p.points, "feedback": hint}
                         for p in parts(exercise)]
        elif fatal is None:
            run.parts, kernel = _score_parts(job, exercise, kernel, defined, seed, part_timeout)
    finally:
        if kernel is not None:
            kernel.kill()
    run.seconds = time.monotonic() - started
    return run
