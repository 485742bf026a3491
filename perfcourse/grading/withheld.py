"""What a graded notebook cannot call: the course's own implementation of what its exercise asks for.

Lessons use ``pc.scaling.fit_serial_fraction`` to show an idea; exercise 03 asks the learner to
write it. While an exercise is graded, its kernel sees a copy of the package in which each
function of :data:`WITHHELD` for that exercise is gone: its source (and compiled cache) is
replaced by a stub that raises, so that neither a call nor ``inspect.getsource`` nor reading the
file reaches the implementation. The rest of the package is unchanged, and the grader's own
process keeps the real one. This is done to the files of the sandbox's copy, outside the
learner's process, never with a hook inside it.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

from .parsing import parse

__all__ = ["WITHHELD", "withhold", "with_helpers", "message"]

# exercise -> {module below perfcourse/: [function, or Class.method, ...]}
WITHHELD = {
    "ex01": {"models/latency.py": ["largest_batch_under_slo"]},
    "ex02": {"models/dag.py": ["Dag.depths", "Dag.work", "Dag.span", "Dag.critical_path"],
             "models/stepprofile.py": ["check_spans", "finish_times", "step_time", "critical_path"]},
    "ex06": {"queueing/simtrace.py": ["Trace.in_system"]},
    "ex03": {"models/scaling.py": ["fit_serial_fraction"], "models/laws.py": ["karp_flatt"]},
    "ex04": {"models/scaling.py": ["strong_scaling", "weak_scaling"]},
    "ex05": {"models/counts.py": ["get", "COUNTS", "_ALL"]},       # the table behind every kernel's counts
    "ex07": {"models/allreduce.py": ["ring_allreduce_time", "ring_terms", "latency_crossover", "fit_alpha_beta",
                                     "step_time", "predicted_efficiency"]},
    "ex08": {"models/stepprofile.py": ["check_spans", "finish_times", "step_time", "critical_path", "floors",
                                       "bound_of", "roofline_time", "first_change", "path_problem"]},
    "ex09": {"models/counts.py": ["block_tree_barriers"]},      # part B's count for the usual kernel
    "ex10": {"models/counts.py": ["scan_work_span", "scan_offsets"]},
    "ex11": {"models/counts.py": ["warp_sectors", "chunked_sweep_sectors", "triad_sector_bytes"],
             "models/occupancy.py": ["estimate"], "measure/compiler.py": ["occupancy"]},
    "ex12": {"models/claimcheck.py": ["make_card", "supported", "problems", "speedup_spread", "quantile",
                                      "rank_interval", "repeats_needed"]},
    # exercise 13's parts can also be rebuilt from the step's graph, the roofline and the nearest bound
    "ex13": {"models/stepprofile.py": ["check_spans", "finish_times", "step_time", "critical_path", "floors",
                                       "bound_of", "roofline_time", "first_change", "path_problem"],
             "models/dag.py": ["Dag.depths", "Dag.work", "Dag.span", "Dag.critical_path"],
             "models/roofline.py": ["roofline_time"], "models/verdicts.py": ["nearest_bound"]},
    # exercise 14 simulates continuous batching itself: the package's simulator, its loop and its entry points
    # (and the served model's loop, which follows the same rules on any clock it is given)
    "ex14": {"queueing/continuous.py": ["continuous_batch", "_run"], "queueing/simulator.py": ["simulate", "sweep"],
             "labs/llmserve.py": ["serve"]},
}


def message(exercise, qualified):
    """What calling a withheld function says.

    Examples
    --------
    >>> message("ex03", "perfcourse.models.laws.karp_flatt")
    'perfcourse.models.laws.karp_flatt is withheld while exercise 03 is graded: the exercise asks you to write it'
    """
    return f"{qualified} is withheld while exercise {exercise[2:]} is graded: the exercise asks you to write it"


def _stub(name, text, indent):
    pad = " " * indent
    return [f"{pad}def {name}(*args, **kwargs):\n", f"{pad}    raise RuntimeError({text!r})\n"]


_TABLE = [
    "class _Withheld:\n",
    "    \"\"\"A withheld table: any use of it says why.\"\"\"\n",
    "    def __init__(self, text):\n",
    "        object.__setattr__(self, '_text', text)\n",
    "    def _refuse(self, *args, **kwargs):\n",
    "        raise RuntimeError(object.__getattribute__(self, '_text'))\n",
    "    __getattr__ = __getitem__ = __iter__ = __len__ = __contains__ = __call__ = __repr__ = _refuse\n",
]


def _assigned(tree, name):
    """The module-level statement that assigns ``name`` (a table such as ``COUNTS``), or None."""
    for node in tree.body:
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(
            node, ast.AnnAssign) else []
        if any(isinstance(t, ast.Name) and t.id == name for t in targets):
            return node
    return None


def _replace(source, names, exercise, module):
    """``source`` with each of ``names`` (``f``, ``Class.m`` or a module-level table) replaced by a stub;
    ValueError for one not found."""
    tree = parse(source)
    lines = source.splitlines(keepends=True)
    spans = []
    for name in names:
        owner, _, attr = name.rpartition(".")
        body = tree.body
        if owner:
            cls = next((n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == owner), None)
            body = cls.body if cls is not None else []
        node = next((n for n in body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name == attr),
                    None)
        qualified = "perfcourse." + module[:-3].replace("/", ".") + "." + name
        if node is None and not owner and _assigned(tree, name) is not None:
            table = _assigned(tree, name)
            spans.append((table.lineno - 1, table.end_lineno,
                          [f"{name} = _Withheld({message(exercise, qualified)!r})\n"], True))
            continue
        if node is None:
            raise ValueError(f"{module} has no {name} to withhold for {exercise}")
        first = min([node.lineno, *(d.lineno for d in node.decorator_list)]) - 1
        spans.append((first, node.end_lineno, _stub(attr, message(exercise, qualified), node.col_offset), False))
    spans.sort(reverse=True)
    tables = [i for i, span in enumerate(spans) if span[3]]
    if tables:                                    # the stub class, once, before the first withheld table
        first, end, stub, _ = spans[tables[-1]]
        spans[tables[-1]] = (first, end, _TABLE + stub, True)
    for first, end, stub, _ in spans:
        lines[first:end] = stub
    return "".join(lines)


def _uses(node):
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def with_helpers(source, names, elsewhere=""):
    r"""``names`` and the module's private functions (``_name``) that only they use, directly or through each other.

    A private helper can hold the whole of what a withheld function computes (``_request_sectors``
    behind ``warp_sectors``), so it goes with them; one that other code uses stays: another
    function or class of the module, or any other module (``elsewhere``: their text).

    Examples
    --------
    >>> code = "def _core(x):\n    return 2 * x\ndef _shared(x):\n    return x\n"
    >>> code += "def answer(x):\n    return _core(_shared(x))\ndef other(x):\n    return _shared(x)\n"
    >>> with_helpers(code, ["answer"])
    ['answer', '_core']
    """
    tree = parse(source)
    functions = {n.name: n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
    outside = set(re.findall(r"\b_\w+", elsewhere))
    chosen = list(names)
    while True:
        gone = {name.split(".")[-1] for name in chosen} | {name.split(".")[0] for name in chosen if "." in name}
        kept = [node for node in tree.body if not (isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
                                                   and node.name in gone)]
        kept_uses = set().union(*(_uses(node) for node in kept)) | outside
        used = set().union(*(_uses(functions[n]) for n in gone if n in functions))
        more = sorted(n for n in used if n.startswith("_") and n in functions and n not in gone and n not in kept_uses)
        if not more:
            return chosen
        chosen += more


def withhold(package, exercise):
    """Withhold ``exercise``'s functions in the package copy at ``package`` (a folder); the modules changed.

    Each module also loses the private helpers only those functions use (:func:`with_helpers`).
    """
    changed = []
    for module, names in WITHHELD.get(exercise, {}).items():
        path = Path(package) / module
        source = path.read_text(encoding="utf-8")
        others = "".join(p.read_text(encoding="utf-8") for p in sorted(Path(package).rglob("*.py"))
                         if p != path and "grading" not in p.relative_to(package).parts)   # the learner's view
        path.write_text(_replace(source, with_helpers(source, names, others), exercise, module), encoding="utf-8")
        for cached in (path.parent / "__pycache__").glob(path.stem + ".*.pyc"):
            cached.unlink()
        changed.append(module)
    return changed
