"""Hostile submissions of exercise 03 against the sandboxed grader: each scores what it deserves.

One class is graded once, through the command line in a separate process (so that its
output, its exit status, its memory and its gradebook can be checked): honest learners,
an untouched exercise, and one learner per kind of attack. A learner who cheats scores 0;
a learner who only tries to do harm keeps the points their functions earn; a function that
fails in a hostile way loses only its own part. Afterwards nothing outside the run's
temporary folders has changed and no process of the run is left.

The attacks need the sandbox (they would harm this machine without it): the module is
skipped where bubblewrap is missing, unless ``PERFCOURSE_REQUIRE_BWRAP=1`` (CI) makes that
a failure.
"""

import hashlib
import json
import os
import site
import subprocess
import sys
import time
from pathlib import Path

import pytest

import perfcourse
from perfcourse.grading.sandbox import bwrap_path

from .test_grading_attack_notebooks import MARKER, ROOT, build_class

PART_TIMEOUT = 2

if bwrap_path() is None:
    if os.environ.get("PERFCOURSE_REQUIRE_BWRAP") == "1":
        raise RuntimeError("PERFCOURSE_REQUIRE_BWRAP=1 but bubblewrap (bwrap) is not installed")
    pytest.skip("bubblewrap (bwrap) is not installed: the attacks would not be contained", allow_module_level=True)

def _snapshot(*folders):
    files = {}
    for folder in folders:
        for path in sorted(Path(folder).rglob("*")):
            if path.is_file() and not path.is_symlink() and "__pycache__" not in path.parts:
                files[path] = hashlib.sha256(path.read_bytes()).hexdigest()
    return files


def _site_files():
    found = {}
    for sp in site.getsitepackages():
        for path in Path(sp).iterdir():
            found[path] = path.read_bytes() if path.suffix == ".pth" else None
    return found


def _processes_with(text):
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode("utf-8", "replace")
            except OSError:
                continue
            if text in cmdline and entry.name != str(os.getpid()):
                found.append(f"{entry.name}: {cmdline[:200]}")
    return found


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    base = tmp_path_factory.mktemp("attacks")
    root, book = base / "class", base / "out" / "gradebook.json"
    build_class(root)
    book.parent.mkdir()
    package = Path(perfcourse.__file__).parent
    watched = (root, package, ROOT / "solutions", ROOT / "exercises")
    before, site_before = _snapshot(*watched), _site_files()
    out, err = base / "stdout.txt", base / "stderr.txt"
    command = [sys.executable, "-m", "perfcourse", "grade", str(root), "--jobs", "2", "--seed", "5",
               "--memory", "1024", "--timeout", "60", "--part-timeout", str(PART_TIMEOUT), "--json", str(book)]
    started = time.monotonic()
    with open(out, "wb") as fout, open(err, "wb") as ferr:
        proc = subprocess.Popen(command, stdout=fout, stderr=ferr)
        peak = 0
        while proc.poll() is None:
            try:
                status = Path(f"/proc/{proc.pid}/status").read_text()
                peak = max(peak, int(next(line.split()[1] for line in status.splitlines() if line.startswith("VmHWM"))))
            except (OSError, StopIteration, ValueError):
                pass
            time.sleep(0.05)
    seconds = time.monotonic() - started
    time.sleep(0.5)                          # anything that outlived the grader would act now
    data = json.loads(book.read_text())
    subs = {Path(s["submission"]).relative_to(root).parts[0]: s for s in data["submissions"]
            if len(Path(s["submission"]).relative_to(root).parts) == 2}
    return {"root": root, "book": data, "subs": subs, "rc": proc.returncode, "stdout": out.read_bytes(),
            "stderr": err.read_bytes(), "peak_kib": peak, "seconds": seconds, "before": before,
            "after": _snapshot(*watched), "site_before": site_before, "site_after": _site_files(),
            "book_path": book}


def _parts(graded, learner):
    sub = graded["subs"][learner]
    return [p["points"] for p in sub["parts"]], [p["feedback"] for p in sub["parts"]]


def test_the_grader_finished_and_honest_learners_score_full_marks(graded):
    assert graded["rc"] == 0, graded["stderr"].decode()
    assert graded["book"]["errors"] == [] and graded["book"]["contained"] is True
    for learner in ("a_honest_first", "zz_honest_last", "harm_kill", "harm_detach", "harm_files"):
        assert _parts(graded, learner)[0] == [3, 2, 2], (learner, _parts(graded, learner))


@pytest.mark.parametrize("learner", ["untouched", "cheat_comparison", "cheat_reader", "?[2Jterminal"])
def test_cheating_scores_nothing(graded, learner):
    points, feedback = _parts(graded, learner)
    assert points == [0, 0, 0], feedback
    if learner == "cheat_reader":
        assert feedback[0].startswith("wrong for fit_serial_fraction(") and "got <a Sneaky object>" not in feedback[0]
        assert feedback[2].startswith("wrong for workers_for_speedup(") and feedback[2].endswith("got 9")


def test_writing_into_every_visible_output_reaches_nothing(graded):
    # the kernel is its sandbox's pid 1, and its descriptors 1 and 2 lead nowhere: the fake table is lost
    points, feedback = _parts(graded, "harm_write_out")
    assert points == [3, 2, 2], feedback
    assert b"FAKE-TABLE" not in graded["stdout"] and b"FAKE-TABLE" not in graded["stderr"]


def test_floods_are_stopped_and_the_grader_stays_small(graded):
    points, feedback = _parts(graded, "flood")
    assert points == [3, 2, 0], feedback
    assert "more than 1048576 bytes in one message" in feedback[2]
    assert any("printed more than 1 MiB" in p for p in graded["subs"]["flood"]["problems"])
    assert graded["peak_kib"] < 400 * 1024, graded["peak_kib"]


def test_escape_sequences_never_reach_the_terminal(graded):
    points, feedback = _parts(graded, "ansi")
    assert points == [3, 0, 2] and feedback[1] == "raised ?[2J?[H?Total: 999/999 points: ?[31m??? all correct"
    text = graded["stdout"] + graded["stderr"]
    assert b"\x1b" not in text and b"\r" not in text and b"\x07" not in text
    assert "\u202e".encode() not in text


def test_a_function_that_outruns_its_deadline_loses_only_its_part(graded):
    points, feedback = _parts(graded, "alarm")
    assert points == [0, 2, 2]
    assert feedback[0] == f"took longer than {PART_TIMEOUT} s on the test inputs (endless loop?)"
    assert graded["subs"]["alarm"]["seconds"] < PART_TIMEOUT + 20


def test_hostile_exits_and_interrupts_lose_only_their_part(graded):
    points, feedback = _parts(graded, "over_exit_interrupt")
    assert points == [0, 2, 0], feedback
    assert feedback[0].startswith("ended its kernel while being checked") and feedback[2] == "raised KeyboardInterrupt"
    points, feedback = _parts(graded, "over_generator_systemexit")
    assert points == [3, 0, 0], feedback
    assert feedback[1].startswith("raised GeneratorExit") and feedback[2].startswith("raised SystemExit")


def test_links_are_not_followed_and_one_notebook_per_exercise_counts(graded):
    root, book = graded["root"], graded["book"]
    linked = [s for s in book["submissions"] if Path(s["submission"]).relative_to(root).parts[0] == "linker"]
    assert len(linked) == 3 and all(s["points"] == 0 and s["parts"] == [] for s in linked)
    assert all("symbolic link" in s["problems"][0] for s in linked)
    triple = [s for s in book["submissions"] if Path(s["submission"]).relative_to(root).parts[0] == "triple"]
    assert sum(s["points"] for s in triple) == 7 and sum(s["max_points"] for s in triple) == 7
    assert any("chosen among 3 notebooks" in p for s in triple for p in s["problems"])


def test_nothing_changed_and_nothing_is_left_running(graded):
    assert graded["after"] == graded["before"]
    assert graded["site_after"] == graded["site_before"]
    assert _processes_with(MARKER) == [] and _processes_with("perfcourse-grader") == []
    assert json.loads(graded["book_path"].read_text()) == graded["book"]
    assert list(graded["book_path"].parent.iterdir()) == [graded["book_path"]]     # no temporary file left
