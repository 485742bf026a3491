"""``perfcourse release``: the handout holds the lessons and exercises of both editions and no solution."""

import json
import re
import shutil
from pathlib import Path

import pytest

from perfcourse import cli
from perfcourse.cli import release

ROOT = Path(__file__).resolve().parent.parent


def test_the_handout_has_every_lesson_and_exercise_and_no_solution_line(tmp_path, capsys):
    out = tmp_path / "handout"
    assert cli.main(["release", "--out", str(out)]) == 0
    assert "no solutions" in capsys.readouterr().out
    for folder in ("notebooks", "exercises", "notebooks/zh", "exercises/zh"):
        want = sorted(p.name for p in (ROOT / folder).glob("*.ipynb"))
        assert want and sorted(p.name for p in (out / folder).glob("*.ipynb")) == want, folder
    assert not (out / "solutions").exists() and (out / "README.md").is_file()
    bodies = _solution_bodies()
    assert len(bodies) >= 20, "every exercise's solutions are looked for"
    code = "\n".join(_code(p) for p in out.rglob("*.ipynb"))
    assert not [body for body in bodies if body in code], "a solution body is in the handout"
    assert len(release.solution_lines(ROOT / "solutions", ROOT / "notebooks")) > 100


def _code(path):
    nb = json.loads(path.read_text(encoding="utf-8"))
    return "\n".join(line.strip() for c in nb["cells"] if c["cell_type"] == "code"
                     for line in "".join(c["source"]).split("\n") if line.strip() and not line.strip().startswith("#"))


def _solution_bodies():
    """Each solution block of solutions/ with two or more lines of code, its lines stripped and joined."""
    bodies = []
    for path in sorted((ROOT / "solutions").glob("*.ipynb")):
        for block in re.findall(r"### BEGIN SOLUTION\n(.*?)### END SOLUTION", _code_raw(path), re.S):
            lines = [line.strip() for line in block.split("\n") if line.strip() and not line.strip().startswith("#")]
            if len(lines) >= 2:
                bodies.append("\n".join(lines))
    return bodies


def _code_raw(path):
    nb = json.loads(path.read_text(encoding="utf-8"))
    return "\n".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code")


def test_a_leaked_solution_is_found(tmp_path):
    shutil.copy(ROOT / "solutions" / "03_amdahl.ipynb", tmp_path / "03_amdahl.ipynb")
    found = release.leaks(tmp_path, release.solution_lines(ROOT / "solutions"))
    assert found and all(path.name == "03_amdahl.ipynb" for path, _ in found)


@pytest.mark.parametrize("make", ["file", "full"])
def test_the_output_must_be_a_new_or_empty_folder(tmp_path, capsys, make):
    out = tmp_path / "out"
    if make == "file":
        out.write_text("x")
    else:
        out.mkdir()
        (out / "keep.txt").write_text("mine")
    assert cli.main(["release", "--out", str(out)]) == 2
    assert capsys.readouterr().err.strip() == f"perfcourse release: --out must be a new or an empty folder; " \
                                               f"{str(out)!r} is not"
    assert make == "file" or (out / "keep.txt").read_text() == "mine"
