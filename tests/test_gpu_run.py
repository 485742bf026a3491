"""The GPU-machine scripts, checked on the CPU: the notebook runner and the shell script's syntax."""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parent.parent
RUNNER = ROOT / "scripts" / "run_notebooks.py"


def _notebook(path, sources):
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_markdown_cell("# title")] + [nbformat.v4.new_code_cell(s) for s in sources]
    nbformat.write(nb, path)
    return path


def _run(outdir, *notebooks):
    env = dict(os.environ, PERFCOURSE_BACKEND="numpy", MPLBACKEND="Agg")
    return subprocess.run([sys.executable, str(RUNNER), str(outdir), *map(str, notebooks), "--timeout", "120"],
                          capture_output=True, text=True, timeout=300, env=env)


def test_runner_executes_cells_like_a_notebook(tmp_path):
    good = _notebook(tmp_path / "good.ipynb", [
        "%matplotlib inline\nimport perfcourse as pc\nx = 6 * 7\nprint('printed', x)",
        "x + 1",
        "import matplotlib.pyplot as plt\nfig, ax = plt.subplots()\nax.plot([1, 2])\nplt.show()",
        "def draw(ax, n):\n    ax.plot(range(n))\n    return f'drew {n}'\n"
        "pc.widgets.explorer(draw, n=pc.widgets.slider('n', 1, 9, 3))",
    ])
    bad = _notebook(tmp_path / "bad.ipynb", ["y = 1", "raise ValueError('broken on purpose')", "print('never')"])
    proc = _run(tmp_path / "out", good, bad)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    summary = {s["notebook"]: s for s in json.loads((tmp_path / "out" / "summary.json").read_text())}
    assert summary["good.ipynb"]["ok"] and summary["good.ipynb"]["cells_run"] == 4
    assert not summary["bad.ipynb"]["ok"] and "ValueError: broken on purpose" in summary["bad.ipynb"]["error"]
    assert summary["bad.ipynb"]["cells_run"] == 2
    text = (tmp_path / "out" / "good.txt").read_text()
    assert "printed 42" in text and "43" in text and "drew 3" in text
    executed = nbformat.read(tmp_path / "out" / "good.ipynb", as_version=4)
    kinds = [o["output_type"] for c in executed.cells if c.cell_type == "code" for o in c.outputs]
    assert kinds.count("display_data") == 2   # the plot and the widget's static figure
    assert len(list((tmp_path / "out" / "good-figures").glob("*.png"))) == 2


def test_runner_respects_the_budget(tmp_path):
    nb = _notebook(tmp_path / "slow.ipynb", ["print('hi')"])
    env = dict(os.environ, PERFCOURSE_BACKEND="numpy")
    proc = subprocess.run([sys.executable, str(RUNNER), str(tmp_path / "out"), str(nb), "--budget", "5"],
                          capture_output=True, text=True, timeout=60, env=env)
    assert proc.returncode == 1
    assert "time budget spent" in (tmp_path / "out" / "summary.json").read_text()


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
def test_gpu_run_script_is_valid_bash():
    proc = subprocess.run(["bash", "-n", str(ROOT / "scripts" / "gpu_run.sh")], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr


def test_runner_keeps_blank_lines_inside_a_block(tmp_path):
    nb = _notebook(tmp_path / "blank.ipynb", [
        "def f():\n    x = 1\n\n    %time y = 2\n    return x\n\nprint('f gives', f())",
    ])
    proc = _run(tmp_path / "out", nb)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "f gives 1" in (tmp_path / "out" / "blank.txt").read_text(), proc.stdout


def test_records_have_a_home_without_platformdirs(monkeypatch, tmp_path):
    from perfcourse.teach import predictions

    monkeypatch.delenv(predictions.ENV_HOME, raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    monkeypatch.setitem(sys.modules, "platformdirs", None)          # import platformdirs raises ImportError
    assert predictions.home() == tmp_path / "perfcourse"


BARE_IMAGE = ("platformdirs", "polib", "ipywidgets", "IPython", "nbformat", "nbclient", "jupyterlab", "babel")


@pytest.mark.slow
def test_lessons_run_where_only_the_gpu_machines_packages_are(tmp_path):
    # a dress rehearsal of the device run: what the GPU machine's Python lacks cannot be imported here either
    hidden = tmp_path / "hidden"
    hidden.mkdir()
    for name in BARE_IMAGE:
        (hidden / f"{name}.py").write_text(f"raise ImportError('{name} is not on the GPU machine')\n")
    env = dict(os.environ, PERFCOURSE_BACKEND="numpy", MPLBACKEND="Agg", PYTHONPATH=str(hidden),
               PERFCOURSE_HOME=str(tmp_path / "home"), PERFCOURSE_TIME_SCALE="0.1")   # what runs, not how long
    # measurements and a widget; the glossary's Chinese column (the compiled catalogs); the whole course: .ci/run
    lessons = [ROOT / "notebooks" / "03_amdahl.ipynb", ROOT / "notebooks" / "10_self_test.ipynb"]
    proc = subprocess.run([sys.executable, str(RUNNER), str(tmp_path / "out"), *map(str, lessons), "--timeout", "300"],
                          capture_output=True, text=True, timeout=900, env=env)
    assert proc.returncode == 0, proc.stdout + proc.stderr + "".join(
        p.read_text() for p in (tmp_path / "out").glob("*.log"))
