"""``perfcourse present NN --lecture``: headings, widgets and results, the class's guesses, no self-test echo."""

import ast

import nbformat
import pytest

from perfcourse import cli
from perfcourse.cli import lecture
from perfcourse.teach.lessons import LESSONS

from .browser import ROOT

NOTEBOOKS = ROOT / "notebooks"


def _names(tree, kinds):
    return {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, kinds)}


@pytest.mark.parametrize("lesson", LESSONS, ids=lambda x: x.stem)
def test_a_lecture_keeps_headings_code_and_guesses_and_drops_prose_and_self_tests(lesson):
    nb = nbformat.read(NOTEBOOKS / lesson.notebook, as_version=4)
    names = lecture.guess_names(nb)
    out = lecture.lecture_notebook(nb, {name: 1.5 for name in names})
    code = [c.source for c in out.cells if c.cell_type == "code"]
    assert code[0] == lecture.FIGURES
    assert not any("pc.selftest." in s or "pc.quiz." in s for s in code)
    assert all(line.startswith("#") for c in out.cells if c.cell_type == "markdown" for line in c.source.split("\n"))
    for name in names:
        assert any(f"{name} = 1.5  # the class's guess" in s for s in code), name
    # a cell left out defines nothing that a kept cell reads
    dropped = [c.source for c in nb.cells if c.cell_type == "code" and lecture._SELFTEST.search(c.source)]
    defined = set().union(*(_names(ast.parse(s), ast.Store) for s in dropped)) if dropped else set()
    read = set().union(*(_names(ast.parse(s), ast.Load) for s in code[1:] if not s.lstrip().startswith("%")))
    assert not defined & read, defined & read


def test_lesson_03_runs_as_a_lecture_with_the_class_s_guess(tmp_path, monkeypatch):
    from perfcourse.cli.runner import execute_notebook

    nb = nbformat.read(NOTEBOOKS / "03_amdahl.ipynb", as_version=4)
    out = lecture.lecture_notebook(nb, {"my_guess_speedup": 1.7})
    monkeypatch.setenv("PERFCOURSE_TIME_SCALE", "0.1")
    monkeypatch.setenv("PERFCOURSE_RECORD", "0")
    monkeypatch.setenv("PERFCOURSE_HOME", str(tmp_path))
    done = execute_notebook(out, NOTEBOOKS, 300)
    text = "".join(o.get("text", "") for c in done.cells if c.cell_type == "code" for o in c.get("outputs", []))
    assert "your guess     1.7" in text and "No answer yet" not in text
    assert not any(o.get("output_type") == "error" for c in done.cells for o in c.get("outputs", []))
    assert list(tmp_path.iterdir()) == [], "a lecture writes no learner's record"


def test_guesses_are_checked(capsys):
    assert cli.main(["present", "3", "--lecture", "--guess", "speedup=-1", "--dry-run"]) == 2
    assert capsys.readouterr().err.strip() == ("perfcourse present: --guess my_guess_speedup: the guess must be a "
                                               "number > 0; got '-1'")
    assert cli.main(["present", "3", "--guess", "speedup=2", "--dry-run"]) == 2
    assert "add --lecture" in capsys.readouterr().err
    assert cli.main(["present", "3", "--lecture", "--guess", "speedup=2", "--dry-run"]) == 0
    assert "perfcourse-lecture-" in capsys.readouterr().out
