"""The package's layers: each folder imports only the layers below it.

models, queueing  <-  measure  <-  labs, viz  <-  teach  <-  cli      (grading stands apart)

Every module is imported in a fresh interpreter (a forked child of one that has loaded
nothing of perfcourse) and the modules it pulled in are checked; imports written inside
functions, which run later, are checked from the source.
"""

import ast
import json
import pkgutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import perfcourse

PACKAGE = Path(perfcourse.__file__).parent
THIRD_PARTY = ("matplotlib", "ipywidgets")

# layer -> what it must never import (perfcourse layers and third-party packages)
FORBIDDEN = {
    "models": {"_lang", "queueing", "measure", "labs", "viz", "teach", "cli", "grading", *THIRD_PARTY},   # no language
    "queueing": {"measure", "labs", "viz", "teach", "cli", "grading", *THIRD_PARTY},
    "top": {"models", "queueing", "measure", "labs", "viz", "teach", "cli", "grading", *THIRD_PARTY},   # units, ...
    "measure": {"labs", "viz", "teach", "cli", "grading", "ipywidgets"},
    "labs": {"viz", "teach", "cli", "grading"},
    "viz": {"labs", "teach", "cli", "grading"},
    "teach": {"cli", "grading"},
    "grading": {"queueing", "measure", "labs", "viz", "cli"},
    "cli": set(),
}


def _modules():
    names = ["perfcourse"]
    names += [m.name for m in pkgutil.walk_packages([str(PACKAGE)], "perfcourse.")]
    return sorted(names)


def _layer(module):
    parts = module.split(".")
    if len(parts) == 1 or parts[1] in ("units", "_check", "_syncs", "_lang", "_home", "_course", "cudacompile",
                                       "cudasim", "__main__"):
        return "top" if module != "perfcourse.__main__" else "cli"
    return parts[1]


def _resolved(name):
    """``perfcourse.<short name>`` as the module it stands for (``pc.timing`` is ``perfcourse.measure.timing``)."""
    parts = name.split(".")
    if parts[0] == "perfcourse" and len(parts) > 1 and parts[1] in perfcourse.ALIASES:
        return ".".join(["perfcourse", perfcourse.ALIASES[parts[1]], *parts[2:]])
    return name


def _violations(module, loaded):
    layer = _layer(module)
    bad = []
    for other in map(_resolved, loaded):
        parts = other.split(".")
        if parts[0] == "perfcourse" and len(parts) > 1 and parts[1] in FORBIDDEN[layer]:
            bad.append(other)
        if parts[0] in FORBIDDEN[layer]:
            bad.append(other)
    return sorted(set(bad))


_CHILD = textwrap.dedent("""
    import importlib, json, os, sys
    import numpy  # not a layer: loaded once so that each child starts quickly
    results = {}
    for name in sys.argv[1:]:
        r, w = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(r)
            try:
                importlib.import_module(name)
                mods = sorted(m.split(".")[0] if not m.startswith("perfcourse") else m for m in sys.modules)
                payload = json.dumps({"ok": True, "modules": mods})
            except BaseException as err:
                payload = json.dumps({"ok": False, "error": f"{type(err).__name__}: {err}"})
            os.write(w, payload.encode())
            os._exit(0)
        os.close(w)
        chunks = []
        while chunk := os.read(r, 1 << 16):
            chunks.append(chunk)
        os.waitpid(pid, 0)
        results[name] = json.loads(b"".join(chunks))
    print(json.dumps(results))
""")


@pytest.fixture(scope="module")
def loaded_by_import():
    """Module -> every module loaded by importing it into an interpreter that has none of perfcourse."""
    names = [m for m in _modules() if m != "perfcourse.__main__"]   # importing it runs the command
    out = subprocess.run([sys.executable, "-c", _CHILD, *names], capture_output=True, text=True, timeout=300,
                         check=True)
    return json.loads(out.stdout)


def test_every_module_imports_and_respects_its_layer(loaded_by_import):
    problems = []
    for name, got in loaded_by_import.items():
        if not got["ok"]:
            problems.append(f"{name} does not import: {got['error']}")
            continue
        bad = _violations(name, got["modules"])
        if bad:
            problems.append(f"{name} ({_layer(name)}) loads {', '.join(bad)}")
    assert not problems, "\n".join(problems)


def _imports_in_source(path, module):
    """Absolute names of everything a module's source imports, at the top or inside functions.

    Also what it reaches without an import statement of its own: ``pc.timing`` after
    ``import perfcourse as pc`` (a lazy short name), and ``importlib.import_module("perfcourse.x")``.
    """
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = module if path.name == "__init__.py" else module.rsplit(".", 1)[0]
    found, bare = set(), set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
            bare.update(a.asname or a.name for a in node.names if a.name == "perfcourse")
        elif isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant) and \
                isinstance(node.args[0].value, str) and getattr(node.func, "attr", getattr(node.func, "id", "")) in \
                ("import_module", "__import__"):
            found.add(node.args[0].value)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[:len(base) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module
            found.add(target)
            found.update(f"{target}.{a.name}" for a in node.names)   # `from . import timing`
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in bare:
            found.add(f"perfcourse.{node.attr}")
    return found


def test_imports_inside_functions_respect_the_layers_too():
    problems = []
    for name in _modules():
        spec_path = PACKAGE.joinpath(*name.split(".")[1:])
        path = spec_path / "__init__.py" if spec_path.is_dir() else spec_path.with_suffix(".py")
        bad = _violations(name, _imports_in_source(path, name))
        if bad:
            problems.append(f"{name} ({_layer(name)}) imports {', '.join(bad)}")
    assert not problems, "\n".join(problems)


def test_only_the_command_line_imports_the_command_line(loaded_by_import):
    users = [name for name, got in loaded_by_import.items()
             if got["ok"] and _layer(name) != "cli" and any(m.startswith("perfcourse.cli") for m in got["modules"])]
    assert not users, users


PLANTED = {
    # module that would hold it -> (source, the violation the scan must report)
    "perfcourse.models.planted": ("import perfcourse as pc\n\ndef f():\n    return pc.timing.measure\n",
                                  "perfcourse.measure.timing"),
    "perfcourse.models.planted2": ("import importlib\nM = importlib.import_module('perfcourse.measure.timing')\n",
                                   "perfcourse.measure.timing"),
    "perfcourse.models.planted3": ("from ..queueing import mm\n", "perfcourse.queueing"),
    "perfcourse.grading.planted": ("def f():\n    from ..viz import roofline\n", "perfcourse.viz"),
    "perfcourse.grading.planted2": ("from perfcourse.queueing import mm\n", "perfcourse.queueing.mm"),
    "perfcourse.units": ("from .models import laws\n", "perfcourse.models"),
    "perfcourse.models.planted4": ("from perfcourse import timing\n", "perfcourse.measure.timing"),
}


@pytest.mark.parametrize("module", sorted(PLANTED))
def test_the_source_scan_finds_each_kind_of_planted_violation(tmp_path, module):
    source, expected = PLANTED[module]
    path = tmp_path / (module.rsplit(".", 1)[1] + ".py")
    path.write_text(source, encoding="utf-8")
    assert expected in _violations(module, _imports_in_source(path, module)), (module, source)


def test_the_rule_checker_sees_a_violation():
    # the checker itself must be able to fail: a model that loads the timing harness is caught
    assert _violations("perfcourse.models.laws", ["perfcourse.measure.timing", "numpy"]) == \
        ["perfcourse.measure.timing"]
    assert _violations("perfcourse.measure.timing", ["ipywidgets"]) == ["ipywidgets"]
    assert _violations("perfcourse.viz.roofline", ["matplotlib"]) == []


LIGHT = textwrap.dedent("""
    import sys
    import perfcourse as pc
    after_import = sorted(m for m in sys.modules if m.startswith("perfcourse."))
    pc.selftest.check("l03-limit-5pct", 20)
    heavy = sorted(m for m in sys.modules
                   if m.startswith(("perfcourse.measure", "perfcourse.viz", "perfcourse.labs", "matplotlib")))
    print(after_import, heavy)
""")


def test_import_and_selftest_load_no_kernel_timing_or_plotting_module():
    out = subprocess.run([sys.executable, "-c", LIGHT], capture_output=True, text=True, timeout=60, check=True)
    after_import, heavy = out.stdout.strip().splitlines()[-1].split("] [")
    assert after_import == "[", f"import perfcourse loaded {after_import}]"
    assert heavy == "]", f"pc.selftest.check loaded [{heavy}"


def test_short_names_reach_their_modules():
    for short, target in perfcourse.ALIASES.items():
        assert getattr(perfcourse, short).__name__ == f"perfcourse.{target}"
    with pytest.raises(AttributeError, match="short names are"):
        perfcourse.no_such_module  # noqa: B018


def test_the_course_locator_names_the_registrys_first_lesson():
    from perfcourse import _course
    from perfcourse.teach.lessons import FIRST

    assert _course.FIRST_LESSON == FIRST.notebook
