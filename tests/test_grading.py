"""Exercises from one source, and the grader on the real solutions and exercises."""

import json
import os
from pathlib import Path

import nbformat
import pytest

from perfcourse import cli
from perfcourse.grading import cases, make
from perfcourse.grading.checks import _answers, exercises, grade_namespace, parts, self_check
from perfcourse.grading.checks._answers import Answers, NoAnswers, load_cases
from perfcourse.grading.grade import exercise_of, grade
from perfcourse.grading.sandbox import bwrap_path

ROOT = Path(__file__).resolve().parent.parent
SOLUTIONS = ROOT / "solutions"
EXERCISES = ROOT / "exercises"
SOLUTION_FILES = sorted(SOLUTIONS.glob("[0-9][0-9]_*.ipynb"))
# The course's own notebooks are trusted: where bubblewrap is missing (a laptop) they are graded unsandboxed.
UNSAFE = bwrap_path() is None and os.environ.get("PERFCOURSE_REQUIRE_BWRAP") != "1"


def _namespace(path):
    """Run a notebook's code cells in this process and return its globals."""
    namespace, history = {"__name__": "__notebook__"}, []
    for cell in nbformat.read(path, as_version=4).cells:
        if cell.cell_type == "code":
            history.append(cell.source)
            exec(compile(cell.source, str(path), "exec"), namespace)
    namespace["In"] = history          # IPython's input history, where the self-check reads the kernels from
    return namespace


# --- one source -------------------------------------------------------------------------

def test_make_exercises_check_passes(capsys):
    args = ["make-exercises", "--check", f"--solutions={SOLUTIONS}", f"--exercises={EXERCISES}"]
    assert cli.main(args) == 0, capsys.readouterr().err
    assert "all current" in capsys.readouterr().out


def test_there_is_a_graded_exercise_for_each_lesson_01_to_08():
    numbers = {p.name[:2] for p in SOLUTION_FILES}
    assert numbers >= {f"{n:02d}" for n in range(1, 9)}
    for path in SOLUTION_FILES:
        exercise = exercise_of(nbformat.read(path, as_version=4), path)
        assert exercise == f"ex{path.name[:2]}"
        assert 2 <= len(parts(exercise)) <= 5


def test_strip_solutions_keeps_indentation_and_rejects_bad_markers():
    code = "def f(x):\n    '''doc'''\n    ### BEGIN SOLUTION\n    y = 2 * x\n    return y\n    ### END SOLUTION\n"
    stripped, blocks = make.strip_solutions(code)
    assert stripped == "def f(x):\n    '''doc'''\n    raise NotImplementedError()\n" and blocks == 1
    with pytest.raises(ValueError, match="without a matching"):
        make.strip_solutions("### BEGIN SOLUTION\nx = 1\n")
    with pytest.raises(ValueError, match="line 1: ### END SOLUTION without"):
        make.strip_solutions("### END SOLUTION\n")
    with pytest.raises(ValueError, match="inside another"):
        make.strip_solutions("### BEGIN SOLUTION\n### BEGIN SOLUTION\n")


def test_exercise_differs_from_its_solution_only_in_solutions_and_outputs():
    for path in SOLUTION_FILES:
        sol = nbformat.read(path, as_version=4)
        ex = nbformat.read(EXERCISES / path.name, as_version=4)
        assert ex.metadata == sol.metadata and len(ex.cells) == len(sol.cells)
        for s, e in zip(sol.cells, ex.cells, strict=True):
            assert (e.cell_type, e.id, e.metadata) == (s.cell_type, s.id, s.metadata)
            if s.cell_type != "code":
                assert e.source == s.source
                continue
            assert e.outputs == [] and e.execution_count is None
            assert "SOLUTION" not in e.source
            assert e.source == make.strip_solutions(s.source)[0]
        stubs = sum("raise NotImplementedError()" in c.source for c in ex.cells if c.cell_type == "code")
        graded = {n for p in parts(exercise_of(ex, path)) for n in p.needs if n not in p.given}   # parts may share
        assert stubs == len(graded), path.name


def test_check_lists_stale_missing_and_extra_notebooks(tmp_path, capsys):
    sol, ex = tmp_path / "solutions", tmp_path / "exercises"
    sol.mkdir()
    for path in SOLUTION_FILES[:3]:
        (sol / path.name).write_bytes(path.read_bytes())
    args = [f"--solutions={sol}", f"--exercises={ex}"]
    assert cli.main(["make-exercises", *args]) == 0
    assert cli.main(["make-exercises", *args, "--check"]) == 0
    first, second = sorted(ex.glob("*.ipynb"))[:2]
    first.write_text(first.read_text().replace("What to do", "What to do now"))
    second.unlink()
    (ex / "99_old.ipynb").write_text("{}")
    capsys.readouterr()
    assert cli.main(["make-exercises", *args, "--check"]) == 1
    err = capsys.readouterr().err
    assert f"stale: {first}" in err and f"missing: {second}" in err and "extra:" in err and "99_old" in err
    assert cli.main(["make-exercises", *args]) == 0           # rewrites the two, leaves the extra file
    assert first.read_text() == make.plan(sol, ex)[first]
    assert "99_old" in capsys.readouterr().err


def test_make_exercises_output_is_deterministic(tmp_path):
    a, b = make.plan(SOLUTIONS, tmp_path / "a"), make.plan(SOLUTIONS, tmp_path / "b")
    assert list(a.values()) == list(b.values())
    assert all(text.endswith("}\n") for text in a.values())


# --- the checks, in this process ----------------------------------------------------------

@pytest.mark.parametrize("path", SOLUTION_FILES, ids=lambda p: p.stem)
def test_solutions_pass_their_checks_for_many_seeds(path, capsys):
    namespace = _namespace(path)
    exercise = exercise_of(nbformat.read(path, as_version=4), path)
    seeds = 2 if any(p.timeout_s for p in parts(exercise)) else 15   # simulated kernels are slow
    for seed in range(seeds):
        results = grade_namespace(exercise, namespace, seed=seed)
        timed = [r for r, p in zip(results, parts(exercise), strict=True)
                 if p.timeout_s and r["points"] < r["max_points"]]
        if timed:   # a part that times this machine may meet a change of load between two timings: grade once more
            results = grade_namespace(exercise, namespace, seed=seed)
        for result in results:
            assert result["points"] == result["max_points"], (seed, result)
    seed, _, replay = load_cases(exercise)           # the learner's self-check: the stored answers
    results = grade_namespace(exercise, namespace, seed=seed, ref=replay)
    if any(p.timeout_s and r["points"] < r["max_points"]
           for r, p in zip(results, parts(exercise), strict=True)):   # a timed part: grade once more, as above
        results = grade_namespace(exercise, namespace, seed=seed, ref=replay)
    for result in results:
        assert result["points"] == result["max_points"], ("stored cases", result)


def test_untouched_stubs_score_zero_with_not_implemented():
    for exercise in exercises():
        namespace = {"In": []}
        for p in parts(exercise):
            for name in p.needs:
                namespace[name] = lambda *args: (_ for _ in ()).throw(NotImplementedError())
            namespace["In"] += [f"@cuda.jit\ndef {k}(*args):\n    raise NotImplementedError()\n" for k, _ in p.kernels]
        results = grade_namespace(exercise, namespace, seed=3)
        assert [r["feedback"] for r in results] == ["not implemented"] * len(results)
        assert sum(r["points"] for r in results) == 0


def test_checks_draw_new_inputs_for_each_seed():
    seen = []

    def spy(*args):
        seen.append(repr(args))
        raise ValueError("stop")

    for seed in (1, 2):
        grade_namespace("ex06", {"replicas_needed": spy}, seed=seed)
    assert len(seen) == 2 and seen[0] != seen[1]


def test_answers_typed_in_from_the_self_check_score_nothing():
    namespace = _namespace(SOLUTIONS / "06_littles_law.ipynb")
    def max_arrival_rate(service_rate, latency_slo_s):
        return 80.0

    namespace["max_arrival_rate"] = max_arrival_rate
    namespace["replicas_needed"] = lambda *args: 18
    for seed in range(5):
        results = grade_namespace("ex06", namespace, seed=seed)
        assert [r["points"] for r in results[:2]] == [0, 0]
        assert results[1]["feedback"].startswith("wrong for max_arrival_rate(")
        assert results[2]["points"] == results[2]["max_points"]


def test_the_self_check_replays_stored_answers_that_fit_no_other_seed(capsys):
    seed, digest, replay = load_cases("ex03")
    assert digest == _answers.stamp("ex03", SOLUTIONS / "references")      # recorded from today's checks

    def fit_serial_fraction(n, speedup):       # a learner who learned the stored answers by heart
        return replay.fit(n, speedup)

    namespace = {"fit_serial_fraction": fit_serial_fraction}
    self_check("ex03", namespace)
    first = capsys.readouterr().out.splitlines()[0]
    assert first.startswith("A: fit the serial fraction") and "3/3" in first
    results = grade_namespace("ex03", namespace, seed=seed + 1)    # the grader's fresh inputs
    assert results[0]["points"] == 0 and "no stored answer" in results[0]["feedback"]


def test_the_self_check_says_when_it_has_no_stored_answer():
    _, _, replay = load_cases("ex03")
    with pytest.raises(_answers.CaseMissing, match="no stored answer for this case of fit"):
        replay.fit([1, 2], [1.0, 1.5])
    assert isinstance(replay.fit(*_first_case(replay)), float)


def _first_case(replay):
    """Arguments whose answer is stored: the first fit case of ex03's check for the stored seed."""
    seen = []
    recorder = _answers.Recorder(Answers("ex03"))
    seed, _, _ = load_cases("ex03")
    from perfcourse.grading.checks import part_rng

    parts("ex03")[0].check(lambda n, s: seen.append((n, s)) or 0.0, rng=part_rng(seed, 0), ref=recorder)
    return seen[0]


def test_a_learners_install_has_no_answers_and_the_grader_says_where_they_are(monkeypatch, tmp_path):
    monkeypatch.setattr(_answers, "checkout_root", lambda: None)
    with pytest.raises(NoAnswers, match="not in this install .* grade from a checkout"):
        Answers("ex03")
    with pytest.raises(NoAnswers, match="not a folder"):
        Answers("ex03", tmp_path / "nowhere")
    empty = tmp_path / "references"
    empty.mkdir()
    with pytest.raises(_answers.AnswerMissing, match="defines no fit"):
        grade_namespace("ex03", {"fit_serial_fraction": lambda n, s: 0.1}, seed=0, ref=Answers("ex03", empty))


def test_stored_cases_are_current_and_a_changed_reference_makes_them_stale(tmp_path):
    assert cases.stale(SOLUTIONS / "references") == {}
    changed = tmp_path / "references"
    changed.mkdir()
    for path in (SOLUTIONS / "references").glob("*.py"):
        (changed / path.name).write_text(path.read_text() + ("\n# changed\n" if path.name == "ex07.py" else ""))
    assert list(cases.stale(changed)) == ["ex07"]


def test_missing_function_and_bad_input_are_reported():
    results = grade_namespace("ex02", {}, seed=0)
    assert results[0]["feedback"].startswith("work_and_span is not defined")
    with pytest.raises(ValueError, match="exercise must be one of"):
        grade_namespace("ex99", {}, seed=0)
    with pytest.raises(TypeError, match="namespace must be a mapping"):
        grade_namespace("ex02", [], seed=0)


# --- the grader on the course's own notebooks --------------------------------------------------

@pytest.fixture(scope="module")
def course_book():
    return grade([SOLUTIONS, EXERCISES], jobs=2, progress=False, unsafe=UNSAFE)


def test_grading_the_course_completes_without_grader_errors(course_book):
    assert course_book["errors"] == [] and course_book["failures"] == []
    assert course_book["contained"] is not UNSAFE
    graded = {Path(s["submission"]).parent.name for s in course_book["submissions"]}
    assert graded == {"solutions", "exercises"}
    assert len(course_book["submissions"]) == 2 * len(SOLUTION_FILES)


def test_every_solution_scores_full_marks(course_book):
    for sub in course_book["submissions"]:
        if Path(sub["submission"]).parent.name == "solutions":
            assert sub["points"] == sub["max_points"] > 0, sub
            assert sub["problems"] == []


def test_every_untouched_exercise_scores_zero_on_every_part(course_book):
    for sub in course_book["submissions"]:
        if Path(sub["submission"]).parent.name == "exercises":
            assert sub["max_points"] > 0
            for part in sub["parts"]:
                assert (part["points"], part["feedback"]) == (0, "not implemented"), sub["submission"]


def test_cli_writes_json_and_honours_fail_under(tmp_path, capsys):
    solved = tmp_path / "alice" / "05_roofline.ipynb"
    untouched = tmp_path / "bob" / "05_roofline.ipynb"
    for src, dst in ((SOLUTIONS, solved), (EXERCISES, untouched)):
        dst.parent.mkdir()
        dst.write_bytes((src / "05_roofline.ipynb").read_bytes())
    before = {p: p.read_bytes() for p in (solved, untouched)}
    book = tmp_path / "book.json"
    unsafe = ["--unsafe"] if UNSAFE else []
    assert cli.main(["grade", str(solved), "--fail-under", "100", "--json", str(book), *unsafe]) == 0
    data = json.loads(book.read_text())
    assert data["percent"] == 100 and data["submissions"][0]["submission"] == str(solved)
    assert {"part", "points", "max_points", "feedback"} <= set(data["submissions"][0]["parts"][0])
    out = capsys.readouterr().out
    assert "Total: 7/7 points (100.0%)" in out and "correct on" in out
    assert cli.main(["grade", str(tmp_path), "--fail-under", "60", "--seed", "7", *unsafe]) == 1
    out = capsys.readouterr().out
    assert f"{tmp_path / 'bob' / '05_roofline.ipynb'}" in out and "Total: 7/14 points (50.0%)" in out
    assert cli.main(["grade", str(tmp_path), "--fail-under", "50", "--seed", "7", *unsafe]) == 0
    assert {p: p.read_bytes() for p in before} == before        # submissions never change


def test_grader_failures_exit_2(tmp_path, capsys):
    assert cli.main(["grade", str(tmp_path / "nowhere")]) == 2
    assert "does not exist" in capsys.readouterr().err
    assert cli.main(["grade", str(tmp_path)]) == 2               # nothing to grade


# --- instructor documents ------------------------------------------------------------------

def test_instructor_guide_covers_every_lesson_and_the_grader():
    guide = (ROOT / "docs" / "instructors.md").read_text(encoding="utf-8")
    for n, slug in enumerate(["00_start_here", "01_latency_throughput", "02_work_span", "03_amdahl",
                              "04_gustafson", "05_roofline", "06_littles_law", "07_scaling_efficiency",
                              "08_optimization_order", "09_hand_calculations", "10_self_test", "11_serve_a_model"]):
        assert f"`{slug}.ipynb`" in guide and f"### {n:02d} · " in guide
    for phrase in ("bubblewrap", "--unsafe", "What is not contained", "perfcourse grade submissions/",
                   "--fail-under", "JupyterHub",
                   "autograde-workflow.yml", "Common misconceptions", "Discussion questions"):
        assert phrase in guide


def test_autograde_workflow_installs_and_grades_with_a_pass_mark():
    import yaml

    workflow = yaml.safe_load((ROOT / "docs" / "autograde-workflow.yml").read_text())
    assert "push" in workflow[True]                 # YAML reads the key `on` as True
    steps = workflow["jobs"]["grade"]["steps"]
    runs = [step.get("run", "") for step in steps]
    course = [s for s in steps if s.get("with", {}).get("path") == ".course"]
    assert course and course[0]["with"]["repository"] == "${{ env.COURSE }}"     # where the answers are
    assert any('pip install "./.course[compile]"' in r for r in runs)
    assert any(r.startswith('perfcourse grade "$PWD/exercises/" --root .course') and "--fail-under" in r
               for r in runs)


def test_given_functions_must_be_plain_needs():
    from perfcourse.grading.checks import part

    for bad in ("run", ("nope",), ("k",)):
        with pytest.raises(ValueError, match="given must be a tuple of some of needs"):
            part("X", points=1, needs=("run", "k"), kernels={"k": "void()"}, given=bad)
    assert [p.given for p in parts("ex12")][2] == ("run_per_row", "run_batched")
