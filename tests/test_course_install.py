"""The course travels with the package: the lesson list, the learner's working copy, and the wheel."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import nbformat
import pytest

from perfcourse import cli
from perfcourse.cli import course, lab
from perfcourse.teach import lessons
from perfcourse.teach.lessons import LESSONS

from .answerkey import answers_in

ROOT = Path(__file__).resolve().parent.parent


# --- the lesson list ---------------------------------------------------------------------------------------

def _first_heading(path):
    nb = nbformat.read(path, as_version=4)
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            for line in cell.source.splitlines():
                if line.startswith("#"):
                    return line.lstrip("#").strip()
    return None


def test_lesson_list_matches_the_notebooks_folder():
    assert [x.number for x in LESSONS] == list(range(len(LESSONS)))
    assert {p.name for p in (ROOT / "notebooks").glob("*.ipynb")} == {x.notebook for x in LESSONS}
    graded = {name for x in LESSONS for name in x.exercises}
    assert {p.name for p in (ROOT / "exercises").glob("*.ipynb")} == graded
    assert {p.name for p in (ROOT / "solutions").glob("*.ipynb")} == graded
    for x in LESSONS:
        assert x.notebook == f"{x.number:02d}_{x.slug}.ipynb" and x.exercise in (None, x.notebook)


@pytest.mark.parametrize("lesson", LESSONS, ids=lambda x: x.stem)
def test_each_notebook_opens_with_its_lesson_heading(lesson):
    assert _first_heading(ROOT / "notebooks" / lesson.notebook) == lesson.heading


def test_lesson_lookup_checks_its_argument():
    assert lessons.lesson(3).slug == "amdahl" and lessons.numbers()[-1] == LESSONS[-1].number
    with pytest.raises(ValueError, match="no lesson 12; the lessons are numbered 00 to 11"):
        lessons.lesson(12)
    for bad in ("3", 3.0, True, None):
        with pytest.raises(TypeError, match="lesson number must be a whole number"):
            lessons.lesson(bad)


# --- the learner's working copy ----------------------------------------------------------------------------

def _fake_course(root, text="v1"):
    """A packaged course in miniature: two lessons and one exercise."""
    for rel in ("notebooks/00_start_here.ipynb", "notebooks/01_latency_throughput.ipynb",
                "exercises/01_latency_throughput.ipynb"):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(f'{{"{rel}": "{text}"}}', encoding="utf-8")
    return root


@pytest.fixture
def installed(tmp_path, monkeypatch):
    """perfcourse as a wheel install sees it: no checkout, the course packaged; cwd an empty folder."""
    packaged = _fake_course(tmp_path / "site-packages" / "perfcourse" / "course")
    monkeypatch.setattr(course, "checkout_root", lambda: None)
    monkeypatch.setattr(course, "packaged_root", lambda: packaged)
    commands = []
    monkeypatch.setattr(lab, "serve", lambda cmd, cwd: commands.append((cmd, cwd)) or 0)
    monkeypatch.setattr(lab, "installed", lambda module: True)
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.chdir(home)
    return packaged, home, commands


def test_sync_copies_then_keeps_changed_and_updates_unchanged(tmp_path):
    source, work = _fake_course(tmp_path / "src"), tmp_path / "work"
    first = course.sync(source, work)
    assert len(first.copy) == 3 and not first.update and not first.keep
    assert (work / "exercises/01_latency_throughput.ipynb").read_text() == (
        source / "exercises/01_latency_throughput.ipynb").read_text()
    assert set(json.loads((work / course.MANIFEST).read_text())["files"]) == set(first.copy)
    assert course.sync(source, work).current == first.copy          # nothing new: nothing written

    mine = work / "notebooks/01_latency_throughput.ipynb"
    mine.write_text("my answers", encoding="utf-8")                 # the learner's work
    same = course.sync(source, work)                                # no newer copy: left alone, not reported
    assert same.yours == ["notebooks/01_latency_throughput.ipynb"] and not same.keep and not same.summary()
    _fake_course(source, text="v2")                                 # a new version of the course
    second = course.sync(source, work)
    assert second.keep == ["notebooks/01_latency_throughput.ipynb"]
    assert sorted(second.update) == ["exercises/01_latency_throughput.ipynb", "notebooks/00_start_here.ipynb"]
    assert mine.read_text() == "my answers"
    assert "v2" in (work / "notebooks/00_start_here.ipynb").read_text()
    assert "kept 1 notebook you changed" in " ".join(second.summary())
    assert course.sync(source, work).keep == ["notebooks/01_latency_throughput.ipynb"]   # still the learner's

    mine.unlink()                                                   # deleted: a fresh copy comes back
    assert course.sync(source, work).copy == ["notebooks/01_latency_throughput.ipynb"]


def test_sync_never_replaces_a_file_it_did_not_write(tmp_path):
    source, work = _fake_course(tmp_path / "src"), tmp_path / "work"
    (work / "notebooks").mkdir(parents=True)
    (work / "notebooks/00_start_here.ipynb").write_text("already here", encoding="utf-8")
    (work / course.MANIFEST).write_text("not json", encoding="utf-8")      # a broken manifest trusts nothing
    p = course.sync(source, work)
    assert p.keep == ["notebooks/00_start_here.ipynb"] and len(p.copy) == 2
    assert (work / "notebooks/00_start_here.ipynb").read_text() == "already here"
    with pytest.raises(NotADirectoryError, match="must be a folder"):
        course.plan(source, work / course.MANIFEST)
    with pytest.raises(FileNotFoundError, match="source must be a course folder"):
        course.plan(tmp_path / "nothing", work)


def test_lab_copies_into_the_working_folder_and_opens_it(installed, capsys, monkeypatch):
    packaged, home, commands = installed
    work = home / course.WORK_DIR
    assert cli.main(["lab", "--no-browser"]) == 0
    assert f"copied 3 notebooks into {work}" in capsys.readouterr().out
    (cmd, cwd), = commands
    assert cwd == work and f"--ServerApp.root_dir={work}" in cmd
    assert "--LabApp.default_url=/lab/tree/notebooks/00_start_here.ipynb" in cmd
    assert (work / "notebooks/00_start_here.ipynb").read_bytes() == (
        packaged / "notebooks/00_start_here.ipynb").read_bytes()

    (work / "notebooks/00_start_here.ipynb").write_text("my notes", encoding="utf-8")
    _fake_course(packaged, text="v2")
    monkeypatch.chdir(work / "notebooks")          # inside the working folder: it is found, not nested
    assert cli.main(["lab", "--no-browser"]) == 0
    out = capsys.readouterr().out
    assert "updated 2 notebooks you had not changed" in out
    assert "kept 1 notebook you changed, not replaced by this version's: notebooks/00_start_here.ipynb" in out
    assert commands[-1][1] == work and not (work / "notebooks" / course.WORK_DIR).exists()
    assert (work / "notebooks/00_start_here.ipynb").read_text() == "my notes"


def test_lab_dir_and_dry_run(installed, capsys, tmp_path):
    _, home, commands = installed
    assert cli.main(["lab", "--dry-run", "--no-browser", "--dir", str(tmp_path / "elsewhere")]) == 0
    out = capsys.readouterr().out
    assert f"would copy 3 and update 0 notebooks into {tmp_path / 'elsewhere'}" in out
    assert f"--ServerApp.root_dir={tmp_path / 'elsewhere'}" in out
    assert not commands and not (tmp_path / "elsewhere").exists() and not list(home.iterdir())


def test_commands_say_so_when_the_package_has_no_lessons(installed, monkeypatch, capsys):
    monkeypatch.setattr(course, "packaged_root", lambda: None)
    for argv in (["lab", "--dry-run"], ["site", "--out", "x"], ["present", "3", "--dry-run"]):
        assert cli.main(argv) == 1
        err = capsys.readouterr().err
        assert err.startswith(f"perfcourse {argv[0]}: this perfcourse package has no lessons") and \
            err.count("\n") == 1
    assert course.describe().startswith("missing")


def test_present_and_site_read_the_packaged_lessons(installed, capsys):
    packaged, home, _ = installed
    assert cli.main(["present", "1", "--dry-run", "--no-browser"]) == 0
    assert str(packaged / "notebooks" / "01_latency_throughput.ipynb") in capsys.readouterr().out
    assert course.lessons_dir() == packaged / "notebooks" and course.describe().startswith("packaged")
    assert course.default_work_dir() == home / course.WORK_DIR


# --- the wheel ---------------------------------------------------------------------------------------------

def _can_build_offline():
    try:
        import setuptools
    except ImportError:
        return False
    major, minor = (int(part) for part in setuptools.__version__.split(".")[:2])
    return (major, minor) >= (70, 1)


def _source_copy(dest):
    """The files a checkout would build from, copied so that the build writes nothing into the checkout."""
    dest.mkdir()
    for name in ("pyproject.toml", "setup.py", "MANIFEST.in", "README.md"):
        shutil.copy2(ROOT / name, dest / name)
    skip = shutil.ignore_patterns("__pycache__", "*.pyc", ".ipynb_checkpoints")
    shutil.copytree(ROOT / "perfcourse", dest / "perfcourse", ignore=skip)
    for folder in course.FOLDERS:
        shutil.copytree(ROOT / folder, dest / folder, ignore=skip)
    return dest


def _run(cmd, cwd, timeout=120):
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP")}
    # the dependencies' data files (nbconvert's templates) stay under this environment's prefix
    extra = [os.environ["JUPYTER_PATH"]] if os.environ.get("JUPYTER_PATH") else []
    env["JUPYTER_PATH"] = os.pathsep.join([str(Path(sys.prefix, "share", "jupyter")), *extra])
    res = subprocess.run([str(c) for c in cmd], cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    assert res.returncode == 0, f"{cmd} failed:\n{res.stdout}\n{res.stderr}"
    return res.stdout


def _build_wheel(tmp_path):
    """sdist from a copy of the checkout, then the wheel from the unpacked sdist (as pip installs an sdist)."""
    src = _source_copy(tmp_path / "src")
    _run([sys.executable, "-c", "from setuptools import build_meta; print(build_meta.build_sdist('dist'))"], src)
    sdist, = (src / "dist").glob("perfcourse-*.tar.gz")
    with tarfile.open(sdist) as tar:
        safe = {"filter": "data"} if hasattr(tarfile, "data_filter") else {}
        tar.extractall(tmp_path / "sdist", **safe)
    unpacked, = (tmp_path / "sdist").iterdir()
    _run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--no-index", "-q",
          "-w", tmp_path / "wheels", "."], unpacked)
    assert not (src / "perfcourse" / "course").exists() and not (unpacked / "perfcourse" / "course").exists()
    wheel, = (tmp_path / "wheels").glob("perfcourse-*.whl")
    return wheel


def _venv_with_wheel(tmp_path, wheel):
    """A new virtual environment holding the wheel; the dependencies come from this environment's site-packages.

    Only those folders are added (a .pth file appends them after the new environment's own site-packages,
    and .pth files inside them are not run), so an editable perfcourse there is neither first nor active.
    """
    venv = tmp_path / "venv"
    _run([sys.executable, "-m", "venv", "--without-pip", venv], tmp_path)
    python = venv / ("Scripts/python.exe" if os.name == "nt" else "bin/python")
    purelib = Path(_run([python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], tmp_path).strip())
    import site

    deps = [p for p in site.getsitepackages() if Path(p).is_dir()]
    (purelib / "zz_dependencies.pth").write_text("\n".join(deps) + "\n", encoding="utf-8")
    _run([sys.executable, "-m", "pip", "--python", python, "install", "--no-deps", "--no-index", "-q", wheel], tmp_path)
    return python, purelib


@pytest.mark.slow
@pytest.mark.skipif(not _can_build_offline(), reason="building the wheel offline needs setuptools>=70.1 "
                    "(install the test extra: python -m pip install -e '.[test]')")
def test_wheel_carries_the_course_and_an_install_renders_the_site(tmp_path):
    wheel = _build_wheel(tmp_path)
    assert not answers_in(wheel), "the wheel carries the grader's answers"
    names = set(zipfile.ZipFile(wheel).namelist())
    for folder in course.FOLDERS:
        for nb in (ROOT / folder).glob("*.ipynb"):
            packaged = f"perfcourse/course/{folder}/{nb.name}"
            assert packaged in names, f"the wheel lacks {packaged}"
            assert zipfile.ZipFile(wheel).read(packaged) == nb.read_bytes()
    data = [p.relative_to(ROOT).as_posix() for p in (ROOT / "perfcourse").rglob("*")
            if p.is_file() and p.suffix not in (".py", ".pyc") and "__pycache__" not in p.parts]
    assert data and not [d for d in data if d not in names], "package data missing from the wheel"

    python, purelib = _venv_with_wheel(tmp_path, wheel)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    where = _run([python, "-c", "import perfcourse; from perfcourse.cli import course; "
                  "print(perfcourse.__file__, course.checkout_root(), course.packaged_root(), sep='\\n')"],
                 elsewhere).splitlines()
    assert where == [str(purelib / "perfcourse" / "__init__.py"), "None", str(purelib / "perfcourse" / "course")]

    bindir = python.parent
    out = _run([bindir / "perfcourse", "site", "--out", "html"], elsewhere)
    assert f"wrote {len(LESSONS)} lesson pages" in out
    pages = sorted(p.name for p in (elsewhere / "html").iterdir() if p.is_file())
    assert pages == sorted(["index.html"] + [f"{x.stem}.html" for x in LESSONS])
    assert (elsewhere / "html" / "mathjax").is_dir(), "the installed package must bundle MathJax for offline pages"
    index = (elsewhere / "html" / "index.html").read_text(encoding="utf-8")
    assert all(f'href="{x.stem}.html"' in index for x in LESSONS)

    out = _run([bindir / "perfcourse", "lab", "--dry-run", "--no-browser"], elsewhere)
    assert f"into {elsewhere / course.WORK_DIR}" in out and f"root_dir={elsewhere / course.WORK_DIR}" in out
    assert f"lessons: packaged with perfcourse ({purelib / 'perfcourse' / 'course'})" in _run(
        [bindir / "perfcourse", "doctor"], elsewhere)
    assert _run([python, "-c", "from perfcourse.measure import gpucheck; print(gpucheck._gpu_test_files()[1])"],
                elsewhere).strip() == "[]"
