"""perfcourse: the helper package of an interactive course on GPU and parallel performance.

Count the work, the critical path and the bytes moved before you look at the hardware's
peak; a "3x faster" that names no workload, batch, shape and percentile means almost nothing.

The package is layered (see the README, "How the package is laid out"): ``models`` (formulas
and counts) and ``queueing`` are pure; ``measure`` times real kernels; ``labs`` holds the
lessons' experiments; ``viz`` draws; ``teach`` holds widgets, questions and drills; ``cli`` the
commands. Lessons use the short names below (``pc.laws``, ``pc.timing`` ...); each module is
imported on first use, so ``import perfcourse`` loads nothing else and never touches a GPU.

Examples
--------
>>> import perfcourse as pc
>>> pc.laws.__name__
'perfcourse.models.laws'
"""

import importlib

__version__ = "0.1.0"

# short name -> module, relative to this package
ALIASES = {
    # models: formulas and counts
    "laws": "models.laws", "roofline": "models.roofline", "scaling": "models.scaling",
    "allreduce": "models.allreduce", "dag": "models.dag", "launches": "models.launches",
    "latency": "models.latency", "counts": "models.counts", "datasheets": "models.datasheets",
    "fusion": "models.fusion", "occupancy": "models.occupancy", "published": "models.published",
    "transformer": "models.transformer",
    "verdicts": "teach.verdicts",
    "explain": "teach.explain",
    # queueing
    "queueing": "queueing", "servicetime": "queueing.servicetime", "simulator": "queueing.simulator",
    "continuous": "queueing.continuous", "simtrace": "queueing.simtrace",
    # measure
    "backend": "measure.backend", "timing": "measure.timing", "claims": "measure.claims", "simt": "measure.simt",
    "profiler": "measure.profiler", "nvml": "measure.nvml", "ceilings": "measure.ceilings",
    "experiments": "measure.experiments", "recorded": "measure.recorded", "kernels": "measure.kernels",
    "hardware": "measure.hardware", "bench": "measure.bench", "gpucheck": "measure.gpucheck",
    "compiler": "measure.compiler",
    # labs
    "batches": "labs.batches", "serialwork": "labs.serialwork", "workers": "labs.workers",
    "server": "labs.server", "mpi_step": "labs.mpi_step", "mpirun": "labs.mpirun", "mpiresults": "labs.mpiresults",
    "localranks": "labs.localranks", "pipeline": "labs.pipeline", "casestudy": "labs.casestudy", "llm": "labs.llm",
    "llmserve": "labs.llmserve",
    # viz and teach
    "viz": "viz", "widgets": "teach.widgets", "selftest": "teach.selftest", "quiz": "teach.quiz",
    "practice": "teach.practice", "glossary": "teach.glossary", "lessons": "teach.lessons",
    "predictions": "teach.predictions",
    # the layers themselves, and the one place units are formatted
    "models": "models", "measure": "measure", "labs": "labs", "teach": "teach", "grading": "grading",
    "units": "units",
}

# a table's cells in terminal columns (a Chinese character takes two): pad left-aligns, rpad right-aligns;
# phrase: a phrase of the package's data tables in the learner's language; listing: a list as that language joins it
COLUMNS = ("pad", "rpad", "phrase", "listing")
__all__ = sorted(ALIASES) + ["say", *COLUMNS, "__version__"]


def __getattr__(name):
    if name == "say":       # the lessons' sentences, in the learner's language (see perfcourse._lang.say)
        from ._lang import current, say

        if current() != "en":   # a lesson's own figure labels are said too: register the font with their glyphs
            importlib.import_module(f"{__name__}.viz.fonts").figure_language()
        globals()["say"] = say
        return say
    if name in COLUMNS:
        from . import _lang

        globals()[name] = getattr(_lang, name)
        return globals()[name]
    if name not in ALIASES:
        raise AttributeError(f"module 'perfcourse' has no attribute {name!r}; the short names are "
                             f"{', '.join(sorted(ALIASES))}")
    module = importlib.import_module(f"{__name__}.{ALIASES[name]}")
    globals()[name] = module
    return module


def __dir__():
    return sorted(set(globals()) | set(ALIASES) | {"say", *COLUMNS})
