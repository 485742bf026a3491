"""Broken and hostile submissions: each is contained, scores 0 where it failed, and grading goes on.

Every submission is the lesson-06 solution with one change, in a folder per student. The
change goes into the cell that defines ``replicas_needed`` (part A) unless said otherwise, so
part A must score 0 with the reason while parts B and C keep their points. (The attacks on
the grader itself are in ``test_grading_attacks``.) These run in the sandbox: the module is
skipped where bubblewrap is missing, unless ``PERFCOURSE_REQUIRE_BWRAP=1``.
"""

import copy
import os
from pathlib import Path

import nbformat
import pytest

from perfcourse.grading.grade import grade
from perfcourse.grading.sandbox import bwrap_path

if bwrap_path() is None and os.environ.get("PERFCOURSE_REQUIRE_BWRAP") != "1":
    pytest.skip("bubblewrap (bwrap) is not installed: hostile notebooks would not be contained",
                allow_module_level=True)

ROOT = Path(__file__).resolve().parent.parent
SOLUTION = ROOT / "solutions" / "06_littles_law.ipynb"
EXERCISE = ROOT / "exercises" / "06_littles_law.ipynb"
NAME = SOLUTION.name

# student -> (code put before the definition of replicas_needed, expected start of part A's feedback)
BREAK_PART_A = {
    "raises": ("1 / 0", "raised ZeroDivisionError"),
    "sys_exit": ("import sys\nsys.exit(3)", "raised SystemExit"),
    "huge_print": ('print("x" * 5_000_000)', "printed more than 1 MiB of output"),
    "print_loop": ('while True:\n    print("y" * 1000)', "printed more than 1 MiB of output"),
    "deletes_files": ('import os\nfor f in os.listdir("."):\n    os.remove(f)', f"deleted {NAME}"),
    "deletes_folder": ("import os, shutil\nshutil.rmtree(os.getcwd())", f"deleted {NAME}"),
    "huge_array": ("blob = bytearray(64 * 2**30)", "raised MemoryError"),
    "memory_creep": ("import numpy\nhog = [numpy.empty(2**24) for _ in range(100_000)]", "raised MemoryError"),
}

HANGS = {
    "infinite_loop": "while True:\n    pass",
    "ignores_interrupts": "import time\nwhile True:\n    try:\n        time.sleep(0.1)\n    except BaseException:\n"
                          "        pass",
}

FORGE = '''\
from IPython.display import publish_display_data
fake = {"part": "A", "points": 99, "max_points": 2, "feedback": "ok"}
publish_display_data({"application/vnd.perfcourse.grade+json": {"token": "0" * 32, "parts": [fake] * 3}})
print('{"points": 7, "max_points": 7}')
import perfcourse.grading.checks as checks
checks.grade_namespace = lambda *args, **kwargs: [fake] * 3
import builtins, io, sys
builtins.print = lambda *args, **kwargs: None
sys.stdout = io.StringIO()
'''


def _code_cell(nb, defines):
    return next(c for c in nb.cells if c.cell_type == "code" and f"def {defines}(" in c.source)


def _write(folder, nb, name=NAME):
    folder.mkdir(parents=True)
    nbformat.write(nb, folder / name)


def _build_class(root):
    solution = nbformat.read(SOLUTION, as_version=4)
    for student, (code, _) in BREAK_PART_A.items():
        nb = copy.deepcopy(solution)
        cell = _code_cell(nb, "replicas_needed")
        cell.source = code + "\n" + cell.source
        _write(root / student, nb)
    nb = copy.deepcopy(solution)   # part B hangs only on the grader's inputs; no self_check cell
    _code_cell(nb, "max_arrival_rate").source = (
        "def max_arrival_rate(service_rate, latency_slo_s):\n    while service_rate > 200:\n        pass\n"
        "    return max(service_rate - 1 / latency_slo_s, 0.0)")
    nb.cells = [c for c in nb.cells if "self_check(" not in c.source]
    _write(root / "part_hangs", nb)
    nb = copy.deepcopy(solution)
    _code_cell(nb, "max_arrival_rate").source = (
        "def max_arrival_rate(service_rate, latency_slo_s):\n    import sys\n    sys.exit(0)")
    _write(root / "part_exits", nb)
    for student, code in (("kills_kernel", "import os\nos._exit(1)"), ("calls_exit", "exit()")):
        nb = copy.deepcopy(solution)
        cell = _code_cell(nb, "replicas_needed")
        cell.source = code + "\n" + cell.source
        _write(root / student, nb)
    nb = nbformat.read(EXERCISE, as_version=4)
    nb.cells.append(nbformat.v4.new_code_cell(FORGE))
    _write(root / "forges_result", nb)
    (root / "not_json").mkdir()
    (root / "not_json" / NAME).write_text("{ this is not a notebook")
    _write(root / "notes", nbformat.v4.new_notebook(), name="scratch.ipynb")


@pytest.fixture(scope="module")
def hostile(tmp_path_factory):
    root = tmp_path_factory.mktemp("class")
    _build_class(root)
    before = {p: p.read_bytes() for p in root.rglob("*.ipynb")}
    book = grade([root], timeout_s=60, memory_mb=512, part_timeout_s=2, jobs=2, seed=11, progress=False)
    subs = {Path(s["submission"]).parent.name: s for s in book["submissions"]}
    return root, before, book, subs


@pytest.fixture(scope="module")
def hanging(tmp_path_factory):
    root = tmp_path_factory.mktemp("hangs")
    for student, code in HANGS.items():
        nb = nbformat.read(SOLUTION, as_version=4)
        cell = _code_cell(nb, "replicas_needed")
        cell.source = code + "\n" + cell.source
        _write(root / student, nb)
    return grade([root], timeout_s=4, jobs=2, seed=5, progress=False)


@pytest.mark.parametrize("student", sorted(BREAK_PART_A))
def test_a_failing_cell_zeroes_only_the_part_it_defines(hostile, student):
    sub = hostile[3][student]
    a, b, c = sub["parts"]
    assert a["points"] == 0 and BREAK_PART_A[student][1] in a["feedback"], a
    assert "code cell 2" in a["feedback"]
    assert b["points"] == b["max_points"] and c["points"] == c["max_points"]
    assert any(BREAK_PART_A[student][1] in p for p in sub["problems"])


def test_a_flood_of_output_is_stopped_long_before_the_time_limit(hostile):
    assert hostile[3]["print_loop"]["seconds"] < 30


def test_a_part_that_hangs_or_exits_on_the_graders_inputs_scores_zero(hostile):
    subs = hostile[3]
    a, b, c = subs["part_hangs"]["parts"]
    assert (b["points"], b["feedback"]) == (0, "took longer than 2 s on the test inputs (endless loop?)")
    assert a["points"] == a["max_points"] and c["points"] == c["max_points"]
    b = subs["part_exits"]["parts"][1]
    assert b["points"] == 0 and b["feedback"].startswith("raised SystemExit")


@pytest.mark.parametrize(("student", "reason"), [
    ("kills_kernel", "the kernel died in code cell 2 (os._exit(), a crash, or running out of memory"),
    ("calls_exit", "the notebook called exit() in code cell 2, which ends its kernel")])
def test_a_dead_kernel_zeroes_every_part(hostile, student, reason):
    sub = hostile[3][student]
    assert sub["points"] == 0 and sub["max_points"] == 7
    assert all(p["feedback"].startswith(reason) for p in sub["parts"])


def test_forged_results_and_patched_checks_are_ignored(hostile):
    parts = hostile[3]["forges_result"]["parts"]
    assert [(p["points"], p["feedback"]) for p in parts] == [(0, "not implemented")] * 3


def test_unreadable_and_foreign_notebooks(hostile):
    subs = hostile[3]
    assert subs["not_json"]["points"] == 0 and subs["not_json"]["max_points"] == 7
    assert "could not be read" in subs["not_json"]["parts"][0]["feedback"]
    assert subs["notes"]["parts"] == [] and "not a perfcourse exercise" in subs["notes"]["problems"][0]


def test_grading_went_on_and_left_every_submission_unchanged(hostile):
    root, before, book, subs = hostile
    assert book["errors"] == [] and len(subs) == len(before)
    assert {p: p.read_bytes() for p in before} == before
    assert subs["raises"]["submission"] == str(root / "raises" / NAME)


def test_a_hanging_notebook_is_stopped_within_its_time_limit(hanging):
    assert hanging["errors"] == []
    for sub in hanging["submissions"]:
        assert sub["points"] == 0
        expected = "the notebook did not finish within its time limit of 4 s (stopped in code cell 2)"
        assert [p["feedback"] for p in sub["parts"]] == [expected] * 3
        assert sub["seconds"] < 4 + 15     # the limit, plus starting and stopping a kernel on a busy machine
