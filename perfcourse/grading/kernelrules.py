"""What a tree or scan kernel may call: only what keeps the simulator's count of its additions whole.

The recording simulator (:mod:`perfcourse.cudasim`) counts the additions behind every value a
kernel writes, and exercises 09 and 10 grade that count, the critical path. A value passed
through a function written in C (``np.float64(s)``, ``str(s)``, a complex number) comes back as a
plain number with no history, so a chain of additions would look like none. These kernels need
additions, comparisons, ``cuda.*``, ``range``, ``math`` and a few builtins only, so the grader
reads the kernel module's text (in its own process) and refuses any other call before it
launches anything: a NumPy call only on constants (``np.float64(0.0)``), no complex numbers, no
attribute but ``size``, ``shape``, ``ndim``, ``dtype`` and ``x``/``y``/``z``. ``math`` keeps the
count in the simulator, and whole numbers are guarded at run time: the simulator refuses
``int()`` of a value read from memory and a store of one into an integer array. What no rule can
see (a value rebuilt from comparisons, one line at a time) still costs lines on the block's
critical path, which the exercises bound too.

Examples
--------
>>> from perfcourse.grading.kernelsource import kernel_module
>>> ok = "@cuda.jit\\ndef k(x, out):\\n    t = cuda.threadIdx.x\\n    out[t] = x[t] + x[min(t + 1, x.size - 1)]\\n"
>>> problem(kernel_module([ok], ["k"]), "k") is None
True
>>> problem(kernel_module([ok.replace("x[t] +", "np.float64(x[t]) +")], ["k"]), "k")  # doctest: +ELLIPSIS
'k calls np.float64 on a value (k, line 3: out[t] = np.float64(x[t]) + x[min(t + 1, x.size - 1)]): ...'
"""

from __future__ import annotations

import ast

from .parsing import parse

__all__ = ["CALLS", "ATTRIBUTES", "problem"]

CALLS = ("range", "len", "min", "max", "abs", "float", "int")          # besides cuda.* and your @cuda.jit functions
ATTRIBUTES = ("size", "shape", "ndim", "dtype", "x", "y", "z")          # on arrays and cuda's index triples
MODULES = ("cuda", "np", "numpy", "numba", "math")                     # whose names may be read (np.float64 as a dtype)


def _root(node):
    while isinstance(node, ast.Attribute):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


def _dotted(node):
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    parts.append(node.id if isinstance(node, ast.Name) else "(...)")
    return ".".join(reversed(parts))


def _constant(node):
    """A number written in the code (``0.0``, ``-1``): what a NumPy call may be given."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        node = node.operand
    return isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and not isinstance(node.value, bool)


def _why(node, functions):
    """Why one node of a kernel is refused, or None."""
    if isinstance(node, ast.Call):
        func = node.func
        if isinstance(func, ast.Name) and (func.id in CALLS or func.id in functions):
            return None
        if isinstance(func, ast.Attribute) and _root(func) in ("cuda", "math"):
            return None
        if isinstance(func, ast.Attribute) and _root(func) in ("np", "numpy", "numba"):
            if all(_constant(a) for a in node.args) and not node.keywords:
                return None
            return f"calls {_dotted(func)} on a value"
        return f"calls {_dotted(func) if isinstance(func, (ast.Name, ast.Attribute)) else 'an expression'}"
    if isinstance(node, ast.Constant) and isinstance(node.value, complex):
        return "uses a complex number"
    if isinstance(node, ast.Attribute):
        if node.attr.startswith("__"):
            return f"reads {_dotted(node)}"
        if _root(node) in MODULES or node.attr in ATTRIBUTES:
            return None
        return f"reads .{node.attr} of {_dotted(node.value)}"
    if isinstance(node, (ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp, ast.JoinedStr)):
        return f"builds a {type(node).__name__.lower()}, which no GPU kernel can"
    return None


def problem(module, name):
    """Why kernel ``name`` of ``module`` (the grader's :class:`~perfcourse.grading.kernelsource.KernelModule`) or a
    function it calls uses something beyond additions, ``cuda.*`` and :data:`CALLS`; None when it does not."""
    tree = parse(module.text)
    functions = {f.name: f for f in tree.body if isinstance(f, ast.FunctionDef)}
    todo, seen = [name], []
    while todo:                                     # the kernel, then each function it calls, once
        func = functions.get(todo.pop(0))
        if func is None or func in seen:
            continue
        seen.append(func)
        todo += [n.func.id for n in ast.walk(func) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)]
    for func in seen:
        for node in ast.walk(func):
            why = _why(node, functions)
            if why:
                where = module.where(node.lineno) or f"{func.name}, line {node.lineno - func.lineno + 1}"
                return (f"{func.name} {why} ({where}): a kernel here may use only additions "
                        f"and comparisons of what it reads, cuda.*, math.*, {', '.join(CALLS)}, NumPy on constants "
                        "and your own @cuda.jit functions (anything else hands back a number with no history of the "
                        "additions behind it, which the grader cannot count)")
    return None
