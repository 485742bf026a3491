#!/usr/bin/env python3
"""Execute lesson notebooks without Jupyter: their code cells run in order as one script.

For machines that have the course's Python packages but no Jupyter (no IPython kernel,
nbclient or ipywidgets). Each notebook runs in its own interpreter with a time limit. Widget
cells draw their figure once at the controls' starting values instead of showing controls;
IPython magics (lines starting with % or !) are skipped. Written to OUTDIR per notebook: an
executed copy (.ipynb, outputs included), a plain-text transcript, the figures as PNG, and a
status file; plus summary.json for all of them.

Usage: run_notebooks.py OUTDIR [NOTEBOOK ...] [--timeout S] [--budget S]
"""

from __future__ import annotations

import argparse
import ast
import base64
import contextlib
import io
import json
import os
import subprocess
import sys
import time
import traceback
import types
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _cells(path):
    nb = json.loads(Path(path).read_text(encoding="utf-8"))
    return nb, [c for c in nb["cells"] if c.get("cell_type") == "code"]


def _strip_magics(source):
    """``source`` with each IPython magic or shell line (``%...``, ``!...``) made a ``pass`` at its indentation.

    A blank line is kept as it is: it is not a magic, and a ``pass`` in column 0 would end the block around it.
    """
    lines = []
    for line in source.splitlines():
        bare = line.lstrip()
        magic = bare[:1] in ("%", "!")
        lines.append(line[: len(line) - len(bare)] + "pass  # skipped: " + bare if magic else line)
    return "\n".join(lines)


def _install_stubs():
    """Minimal stand-ins for IPython/ipywidgets where they are missing, and static widgets."""
    class Anything:
        """Accepts any use a widget gets (attributes, calls, ``with``) and does nothing."""

        def __init__(self, *args, **kwargs):
            self.__dict__.update(kwargs)
            self.value = kwargs.get("value", args[0] if args else None)

        def __getattr__(self, name):
            return Anything()

        def __call__(self, *args, **kwargs):
            return Anything()

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return False

        def __iter__(self):
            return iter(())

        def __repr__(self):
            return ""

    def stub(name, **attrs):
        module = types.ModuleType(name)
        module.__dict__.update(attrs)
        module.__getattr__ = lambda attr: Anything
        return module

    def show(*objects, **_kw):
        for obj in objects:
            if not type(obj).__name__ == "Figure":
                print(repr(obj))

    global _HAVE_WIDGETS
    try:
        import ipywidgets  # noqa: F401
    except ImportError:
        _HAVE_WIDGETS = False
        sys.modules["ipywidgets"] = stub("ipywidgets")
    try:
        import IPython  # noqa: F401
    except ImportError:
        # only what notebooks and matplotlib look for: no shell, a display that prints
        shown = types.ModuleType("IPython.display")
        shown.__dict__.update(display=show, clear_output=lambda *a, **k: None, Markdown=Anything, HTML=Anything)
        ipython = types.ModuleType("IPython")
        ipython.__dict__.update(get_ipython=lambda: None, version_info=(8, 24, 0), display=shown)
        sys.modules.update({"IPython": ipython, "IPython.display": shown})
    _static_widgets()


def _static_widgets():
    """``pc.widgets.explorer`` draws once at the starting values; controls are plain values."""
    import matplotlib.pyplot as plt

    import perfcourse.teach.widgets as w

    class Control:
        def __init__(self, value):
            self.value = value

    def explorer(draw, *, figsize=(6.4, 3.8), **controls):
        fig, ax = plt.subplots(figsize=figsize)
        text = draw(ax, **{k: c.value for k, c in controls.items()})
        if text:
            print(text)

    def dropdown(description, options, value=None):
        first = list(options.values())[0] if isinstance(options, dict) else list(options)[0]
        return Control(first if value is None else value)

    w.explorer = explorer
    w.slider = lambda description, low, high, value, step=None: Control(value)
    w.log_slider = lambda description, low, high, value: Control(value)
    w.dropdown = dropdown


def _run_cell(source, env, name):
    """Run a cell like a notebook does: the value of a final expression is shown."""
    tree = ast.parse(_strip_magics(source), filename=name)
    last = tree.body.pop() if tree.body and isinstance(tree.body[-1], ast.Expr) else None
    exec(compile(tree, name, "exec"), env)
    if last is not None:
        value = eval(compile(ast.Expression(last.value), name, "eval"), env)
        if value is not None and type(value).__module__.split(".")[0] not in ("matplotlib", "ipywidgets"):
            print(repr(value))


_HAVE_WIDGETS = True
WIDGET_MARKERS = ("widget", "explorer(", "interact(")


def _is_widget_cell(source):
    """A cell that builds interactive controls: without ipywidgets its failure is not the lesson's."""
    return any(m in source for m in WIDGET_MARKERS)


def tb_text(cell):
    return "".join("\n".join(o["traceback"]) for o in cell["outputs"] if o["output_type"] == "error")


def _figures(folder, stem, index):
    import matplotlib.pyplot as plt

    outputs = []
    for k, num in enumerate(plt.get_fignums()):
        png = folder / f"{stem}-cell{index:02d}-{k}.png"
        plt.figure(num).savefig(png, dpi=80)
        outputs.append({"output_type": "display_data", "metadata": {},
                        "data": {"image/png": base64.b64encode(png.read_bytes()).decode(), "text/plain": png.name}})
    plt.close("all")
    return outputs


def run_one(notebook, outdir):
    """Execute one notebook in this interpreter; write its outputs; return its status dict."""
    os.environ.setdefault("MPLBACKEND", "Agg")
    import matplotlib

    matplotlib.use("Agg")
    outdir = Path(outdir)
    stem = Path(notebook).stem
    figs = outdir / f"{stem}-figures"
    figs.mkdir(parents=True, exist_ok=True)
    _install_stubs()
    nb, cells = _cells(notebook)
    env = {"__name__": "__main__"}
    status = {"notebook": Path(notebook).name, "ok": True, "cells": len(cells), "cells_run": 0, "error": None}
    transcript, begin = [], time.perf_counter()
    for i, cell in enumerate(cells):
        source = "".join(cell.get("source", ""))
        buffer = io.StringIO()
        cell["outputs"], cell["execution_count"] = [], i + 1
        try:
            with contextlib.redirect_stdout(buffer), contextlib.redirect_stderr(buffer):
                _run_cell(source, env, f"{stem}[cell {i + 1}]")
        except BaseException as err:  # noqa: BLE001 - record any failure, then stop this notebook
            tb = traceback.format_exc()
            cell["outputs"].append({"output_type": "error", "ename": type(err).__name__, "evalue": str(err),
                                    "traceback": tb.splitlines()})
            if _is_widget_cell(source) and not _HAVE_WIDGETS:
                status.setdefault("widget_cells_skipped", []).append(f"cell {i + 1}: {type(err).__name__}: {err}")
            else:
                status.update(ok=False, error=f"cell {i + 1}: {type(err).__name__}: {err}", traceback=tb)
        text = buffer.getvalue()
        if text:
            cell["outputs"].insert(0, {"output_type": "stream", "name": "stdout", "text": text})
        cell["outputs"] += _figures(figs, stem, i + 1)
        transcript += [f"# ---- cell {i + 1}", source, "# >>>", text + tb_text(cell)]
        status["cells_run"] = i + 1
        if not status["ok"]:
            break
    status["seconds"] = time.perf_counter() - begin
    (outdir / f"{stem}.ipynb").write_text(json.dumps(nb, indent=1), encoding="utf-8")
    (outdir / f"{stem}.txt").write_text("\n".join(transcript), encoding="utf-8")
    (outdir / f"{stem}.status.json").write_text(json.dumps(status, indent=1), encoding="utf-8")
    return status


def run_all(outdir, notebooks, timeout, budget):
    """Each notebook in a fresh interpreter, within ``timeout`` each and ``budget`` in all."""
    outdir = Path(outdir).resolve()
    outdir.mkdir(parents=True, exist_ok=True)
    results, begin = [], time.perf_counter()
    for nb in notebooks:
        left = budget - (time.perf_counter() - begin)
        if left < 10:
            results.append({"notebook": Path(nb).name, "ok": False, "error": "not run: time budget spent"})
            continue
        t0 = time.perf_counter()
        status_file = outdir / f"{Path(nb).stem}.status.json"
        status_file.unlink(missing_ok=True)
        cmd = [sys.executable, __file__, str(outdir), str(nb), "--one"]
        env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=min(timeout, left), env=env,
                                  cwd=Path(nb).resolve().parent)
            log = proc.stdout + proc.stderr
            status = json.loads(status_file.read_text()) if status_file.exists() else {
                "notebook": Path(nb).name, "ok": False, "error": f"runner exited {proc.returncode}"}
        except subprocess.TimeoutExpired as err:
            log = f"{err.stdout or ''}{err.stderr or ''}"
            status = {"notebook": Path(nb).name, "ok": False, "error": f"timed out after {min(timeout, left):.0f} s"}
        (outdir / f"{Path(nb).stem}.log").write_text(str(log), encoding="utf-8")
        status["wall_s"] = time.perf_counter() - t0
        status.pop("traceback", None)
        results.append(status)
        print(f"{'ok  ' if status['ok'] else 'FAIL'} {status['notebook']:34s} {status['wall_s']:6.1f} s"
              f"{'' if status['ok'] else '  ' + str(status['error'])}", flush=True)
    (outdir / "summary.json").write_text(json.dumps(results, indent=1), encoding="utf-8")
    return 0 if all(r["ok"] for r in results) else 1


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("outdir")
    parser.add_argument("notebooks", nargs="*", help="default: every notebooks/NN_*.ipynb")
    parser.add_argument("--timeout", type=float, default=180, help="seconds per notebook")
    parser.add_argument("--budget", type=float, default=3600, help="seconds for all notebooks together")
    parser.add_argument("--one", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.one:
        return 0 if run_one(args.notebooks[0], args.outdir)["ok"] else 1
    notebooks = args.notebooks or sorted(str(p) for p in (ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
    return run_all(args.outdir, [str(Path(nb).resolve()) for nb in notebooks], args.timeout, args.budget)


if __name__ == "__main__":
    sys.exit(main())
