"""The learner's kernels as the grader takes them: from the notebook's text, in the grader's process.

A kernel part grades the ``@cuda.jit`` function the notebook defines, not a live object of
the learner's kernel. :func:`kernel_module` reads the code cells (the notebook's JSON, never
run here) and writes a small module of its own: the imports the exercise uses, each
top-level constant that is a plain number (``MAX_THREADS = 1024``), and each function
decorated with ``cuda.jit``, the last definition of a name winning as it does in a notebook.
Nothing else of the notebook is in it, so nothing else runs where the kernel is compiled and
simulated (:mod:`perfcourse.grading.probe`). Decorators become plain ``@cuda.jit`` (or
``@cuda.jit(device=True, inline="always")``), annotations are dropped and defaults must be numbers, so what the
module runs when it is loaded is known.

Examples
--------
>>> cells = ["import numpy as np\\nN = 4", "@cuda.jit\\ndef k(x):\\n    x[0] = N", "print('hi')"]
>>> print(kernel_module(cells, ["k"]).text)
N = 4
<BLANKLINE>
@cuda.jit
def k(x):
    x[0] = N
<BLANKLINE>
"""

from __future__ import annotations

import ast
import numbers
import operator
import re
from dataclasses import dataclass, field

from .parsing import parse

__all__ = ["KernelSourceError", "KernelModule", "kernel_module"]

_MAGIC = re.compile(r"^\s*[%!].*$", re.MULTILINE)


class KernelSourceError(ValueError):
    """The notebook does not define a kernel the grader can take; ``str()`` says why."""


@dataclass
class KernelModule:
    """The module text, and for each of its lines the kernel and the learner's own line it came from."""

    text: str
    lines: dict = field(default_factory=dict)    # module line -> (function name, line number in it, its code)
    kernels: list = field(default_factory=list)  # the @cuda.jit functions in it
    refused: dict = field(default_factory=dict)  # name -> why a @cuda.jit function was left out

    def where(self, line):
        """``"block_tree, line 7: level[t] += level[t + stride]"`` for a line of the module ("" if unknown)."""
        if line not in self.lines:
            return ""
        name, number, code = self.lines[line]
        return f"{name}, line {number}: {code.strip()}"


def _is_cuda_jit(node):
    target = node.func if isinstance(node, ast.Call) else node
    return (isinstance(target, ast.Attribute) and target.attr == "jit" and isinstance(target.value, ast.Name)
            and target.value.id == "cuda")


def _device(decorator):
    if not isinstance(decorator, ast.Call):
        return False
    for keyword in decorator.keywords:
        if keyword.arg == "device":
            if not isinstance(keyword.value, ast.Constant):
                raise KernelSourceError("cuda.jit(device=...) must be True or False")
            return bool(keyword.value.value)
    return False


_LARGEST = 2**64       # a constant past this is no array size or limit: left out
_OPS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.FloorDiv: operator.floordiv,
        ast.Pow: operator.pow, ast.Mod: operator.mod, ast.LShift: operator.lshift, ast.RShift: operator.rshift,
        ast.BitOr: operator.or_, ast.BitAnd: operator.and_}
_SMALL_RIGHT = (ast.Pow, ast.LShift, ast.RShift)          # their right operand stays small: 2 ** 64 at most


def _number(node, constants):
    """The value of a constant expression of numbers (and earlier constants), or None."""
    if isinstance(node, ast.Constant) and isinstance(node.value, numbers.Real):
        return node.value
    if isinstance(node, ast.Name) and node.id in constants:
        return constants[node.id]
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        value = _number(node.operand, constants)
        return None if value is None else -value
    if isinstance(node, ast.BinOp) and type(node.op) in _OPS:
        left, right = _number(node.left, constants), _number(node.right, constants)
        if left is None or right is None or (isinstance(node.op, _SMALL_RIGHT) and not 0 <= right <= 64):
            return None
        try:
            value = _OPS[type(node.op)](left, right)
        except (ZeroDivisionError, OverflowError, TypeError):      # a shift or bit operation of a float
            return None
        return value if abs(value) <= _LARGEST else None
    return None


def _decorator(func, name):
    """The plain decorator line for ``func``; KernelSourceError for what cannot be loaded safely."""
    if len(func.decorator_list) != 1:
        raise KernelSourceError(f"{name} must have cuda.jit as its only decorator")
    arguments = func.args
    for default in (*arguments.defaults, *(d for d in arguments.kw_defaults if d is not None)):
        if not (isinstance(default, ast.Constant) and isinstance(default.value, (numbers.Real, type(None)))):
            raise KernelSourceError(f"{name}: a kernel's default arguments must be numbers")
    every = (*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs, arguments.vararg, arguments.kwarg)
    if func.returns is not None or any(a is not None and a.annotation is not None for a in every):
        raise KernelSourceError(f"{name}: a kernel's parameters take no annotations (numba.cuda does not read them)")
    # a device function is inlined into its kernel: compiled alone for sm_90 it would need a driver to link
    return '@cuda.jit(device=True, inline="always")' if _device(func.decorator_list[0]) else "@cuda.jit"


def _statements(cells):
    for source in cells:
        source = _MAGIC.sub("", source)
        try:
            tree = parse(source)
        except (SyntaxError, RecursionError, MemoryError, ValueError):
            continue
        lines = source.splitlines()
        for node in tree.body:
            yield node, lines


def kernel_module(cells, wanted=()):
    """The :class:`KernelModule` holding the kernels named in ``wanted`` and what they may use from ``cells``."""
    constants, functions = {}, {}
    for node, lines in _statements(cells):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            try:
                value = _number(node.value, constants)
            except RecursionError:       # a thousand-term sum is no array size
                value = None
            name = node.targets[0].id
            if value is not None and name not in ("cuda", "np", "math"):
                constants[name] = value
            else:
                constants.pop(name, None)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            if any(_is_cuda_jit(d) for d in node.decorator_list) and isinstance(node, ast.FunctionDef):
                functions[node.name] = (node, lines)
            else:
                functions.pop(node.name, None)
    for name in wanted:
        if name not in functions:
            raise KernelSourceError(f"the notebook defines no @cuda.jit kernel named {name}")
    text = "".join(f"{k} = {v!r}\n" for k, v in constants.items())
    where = {}
    refused, kernels = {}, []
    for name, (func, source) in functions.items():
        try:
            decorator = _decorator(func, name)
        except KernelSourceError as err:
            if name in wanted:
                raise
            refused[name] = str(err)
            continue
        kernels.append(name)
        body = source[func.lineno - 1:func.end_lineno]
        first = text.count("\n") + 3
        text += "\n" + decorator + "\n" + "\n".join(body) + "\n"
        for offset, code in enumerate(body):
            where[first + offset] = (name, offset + 1, code)
    return KernelModule(text, where, kernels, refused)
