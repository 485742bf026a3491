"""Lessons 05-10: guesses, records, exercise links, and the corrected statements they print.

The notebooks themselves run under nbval; these tests pin what a re-run must never contradict
(the queueing figures of lesson 06, the byte counts of lesson 08, the peak each drill uses) and
check the structure the course asks of every lesson: guesses shipped as None and made before the
model's number is shown, a ``pc.predictions.record`` call in each measuring lesson, the graded
exercise linked at the end, and lesson 10's calibration record.
"""

import ast
import json
import re
from pathlib import Path

import matplotlib
import nbformat
import numpy as np
import pytest

import perfcourse as pc
from perfcourse import queueing as q

matplotlib.use("Agg")

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = ROOT / "notebooks"
LESSONS = [pc.lessons.lesson(n) for n in range(5, 11)]
MEASURING = [x for x in LESSONS if x.number <= 8]

# per lesson: the guess variable -> names holding the model's prediction, never printed before the guess cell
GUESSES = {
    5: {"my_guess_triad_ms": ["triad_prediction"], "my_guess_awkward_ratio": ["awkward_prediction", "model_ratio"],
        "my_guess_stride64_slowdown": ["factor"], "my_guess_h200_triad": ["triad.value"]},
    6: {"my_guess_in_flight": ["pred_w", "predicted"]},
    7: {"my_guess_ms": ["predicted_step", "predicted_eff"]},
    8: {"my_guess_ms": ["first[3]", "first_prediction"]},
}


def _cells(lesson):
    return nbformat.read(NOTEBOOKS / lesson.notebook, as_version=4).cells


def _code(lesson):
    return [c for c in _cells(lesson) if c.cell_type == "code"]


def _printed(source):
    """The source text of every print(...) call in a cell."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return []
    return [ast.get_source_segment(source, node) for node in ast.walk(tree)
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "print"]


@pytest.mark.parametrize("lesson", LESSONS, ids=lambda x: x.stem)
def test_every_guess_ships_as_none(lesson):
    for cell in _code(lesson):
        for name, value in re.findall(r"^(my_guess\w*)\s*=\s*([^#\n]+)", cell.source, flags=re.M):
            assert value.strip() == "None", f"{lesson.stem}: {name} ships as {value.strip()}, not None"
            unit = re.search(r"#.*\b(ms|x|requests|ratio|percent|TB/s)\b", cell.source)
            assert unit, f"{name}: the comment names no unit"


@pytest.mark.parametrize("lesson", MEASURING, ids=lambda x: x.stem)
def test_each_measuring_lesson_records_its_guesses(lesson):
    sources = [c.source for c in _code(lesson)]
    keys = re.findall(r'pc\.predictions\.record\(\s*"([^"]+)"', "\n".join(sources))
    assert keys, f"{lesson.stem} records no prediction"
    assert all(k.startswith(f"{lesson.number:02d}-") for k in keys) and len(set(keys)) == len(keys)
    for guess, model_names in GUESSES[lesson.number].items():
        at = next(i for i, s in enumerate(sources) if re.search(rf"^{guess}\s*=", s, flags=re.M))
        recorded = [i for i, s in enumerate(sources) if f"guess={guess}" in s]
        assert recorded and min(recorded) > at, f"{guess} is not handed to pc.predictions.record after its cell"
        for earlier in sources[:at]:
            for call in _printed(earlier):
                assert not any(m in call for m in model_names), f"the model's number is printed before {guess}"


@pytest.mark.parametrize("lesson", LESSONS, ids=lambda x: x.stem)
def test_each_lesson_ends_with_its_exercise_and_neighbours(lesson):
    last = _cells(lesson)[-1].source
    assert last.rstrip().splitlines()[-1].startswith("[←")
    if lesson.exercise:
        link = f"../exercises/{lesson.exercise}"
        assert link in last and (NOTEBOOKS / link).resolve().is_file()
    else:
        assert "(../exercises/)" in last and "perfcourse grade" in last
    assert "## Key points" in "\n".join(c.source for c in _cells(lesson))


@pytest.mark.parametrize("lesson", LESSONS, ids=lambda x: x.stem)
def test_stored_outputs_come_from_one_full_run_and_name_no_local_path(lesson):
    cells = _code(lesson)
    counts = [c.execution_count for c in cells]
    assert None not in counts and counts == sorted(counts), f"{lesson.stem}: not every code cell ran, in order"
    for c in cells:
        first = c.source.splitlines()[0] if c.source else ""
        if re.search(r"pc\.timing\.measure|pc\.server\.serve|pc\.mpirun\.launch|predictions\.record|profiler\.profile",
                     c.source):
            tags = c.metadata.get("tags", [])
            assert "nbval-ignore-output" in tags, f"{lesson.stem}: a measuring cell is checked: {first!r}"
        text = json.dumps(c.get("outputs", []))
        assert not re.search(r"/(tmp|home|work|root)/", text), f"{lesson.stem}: an output names a local path"


def test_lesson_06_hockey_stick_sentence_matches_the_figures():
    lo, hi = (q.simulate("fcfs", q.Poisson(r * 10.0, 200_000), q.exponential(0.1), seed=2).percentiles()
              for r in (0.5, 0.95))
    # every M/M/1 percentile grows by about the same factor; in seconds the tail moves several times further
    assert pc.verdicts.is_close(hi["p50"] / lo["p50"], hi["p99"] / lo["p99"])
    assert hi["p99"] - lo["p99"] > 3 * (hi["p50"] - lo["p50"]) and hi["p50"] - lo["p50"] > 1.0


def test_lesson_06_max_batch_past_the_load_changes_nothing():
    reqs = q.token_requests(3000, 8.0, seed=0)
    step = q.affine(0.008, 4e-5)
    ttft = {m: q.simulate("continuous", reqs.arrival, step, max_batch=m, token_budget=4096,
                          **reqs.options()).percentiles("ttft")["p99"] for m in (16, 32, 64)}
    assert pc.verdicts.is_close(ttft[32], ttft[64]) and ttft[16] > 10 * ttft[32]


def test_the_token_budget_questions_agree_with_the_simulation():
    q10 = pc.selftest.get("l10-token-budget")
    assert "pauses between tokens" in q10.choices[ord(q10.correct) - ord("a")]
    # l06-token-budget: a running sequence's longest gap is the step that prefills the whole burst
    q06 = pc.selftest.get("l06-token-budget")
    arrivals = np.r_[0.0, np.full(20, 0.1)]
    step = pc.queueing.affine(0.020, 0.0001)        # 20 ms a step, 0.1 ms a token
    gaps = {}
    for budget in (16_384, 512):
        tr = pc.queueing.continuous_batch(arrivals, step, prompt_tokens=np.r_[8, np.full(20, 512)],
                                          output_tokens=np.r_[400, np.full(20, 4)], max_batch=32, token_budget=budget)
        gaps[budget] = tr.max_itl[0]
    assert gaps[16_384] * 1e3 == pytest.approx(q06.reference(), rel=0.01)
    assert gaps[512] * 1e3 < 72 and "about 71 ms" in q06.why


def test_lesson_08_counts_the_float64_inputs_at_8_bytes():
    lengths, d = pc.pipeline.uniform_lengths(128, 16), 64
    least = pc.fusion.min_bytes(lengths, d, itemsize=4, input_itemsize=8)
    unfused = pc.fusion.unfused_bytes(lengths, d, itemsize=4, input_itemsize=8)
    assert least == 2048 * d * 8 + (d * d + d + 128 * d) * 4
    assert unfused - least == pc.fusion.PASSES * 2048 * d * 4
    flops = pc.fusion.flops(lengths, d)
    text = next(c.source for c in _cells(pc.lessons.lesson(8)) if c.get("id") == "637d5f75")
    assert (f"{unfused / least:.1f} times" in text and f"from {flops / least:.1f} to {flops / unfused:.2f} FLOP/byte"
            in text)


def test_bare_breakdown_keeps_shares_and_the_bare_total():
    from perfcourse.measure.profiler import Profile, SpanTotal

    p = Profile(0.010, {"mm": SpanTotal("mm", "kernel", 4, 0.006, None), "cp": SpanTotal("cp", "copy", 4, 0.002, None)})
    bare = pc.casestudy.bare_breakdown(p, 0.004)          # 6 ms of profiler cost: more than "other" holds
    assert sum(bare.values()) == pytest.approx(0.004) and bare["other"] == 0
    assert bare["kernel"] / bare["copy"] == pytest.approx(3.0)
    for run in (0.0095, 0.0085, 0.0080):                  # the profiler's cost comes out of "other" first
        bare = pc.casestudy.bare_breakdown(p, run)
        assert (bare["kernel"], bare["copy"]) == pytest.approx((0.006, 0.002))
        assert bare["other"] == pytest.approx(run - 0.008) and sum(bare.values()) == pytest.approx(run)


@pytest.mark.parametrize("seed", range(40))
def test_roofline_drills_use_the_fp32_peak_of_their_device(seed):
    p = pc.practice.problem("roofline", seed)
    assert "float32" in p.prompt
    name = re.search(r"On an NVIDIA (.+?) with peaks of ([\d.]+) TFLOP/s", p.prompt)
    assert float(name.group(2)) == pytest.approx(pc.datasheets.datasheet(name.group(1)).fp32 / 1e12)


def test_against_model_reads_the_case_that_happened():
    kw = dict(close="c", slower="s", faster="f")
    assert pc.verdicts.against_model(1.0, 1.2, **kw).endswith(": c")
    assert pc.verdicts.against_model(2.0, 1.0, **kw) == "2x slower than the model: s"
    assert pc.verdicts.against_model(1.0, 2.0, **kw) == "2x faster than the model: f"
    with pytest.raises(TypeError, match="close"):
        pc.verdicts.against_model(1.0, 1.0, close=None, slower="s", faster="f")


def _calibration_cell():
    return next(c for c in _cells(pc.lessons.lesson(10)) if "pc.predictions.calibration()" in c.source)


def test_lesson_10_calibration_cell_reads_well_without_guesses(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv(pc.predictions.ENV_HOME, str(tmp_path))
    import matplotlib.pyplot as plt

    source = _calibration_cell().source
    exec(compile(source, "calibration", "exec"), {"pc": pc, "plt": plt})   # an empty log
    out = capsys.readouterr().out
    assert "No prediction is recorded yet" in out and "replace the None" in out
    pc.predictions.record("05-triad-time", guess=None, model=2.0, measured=1.0, unit="ms", show=False)
    exec(compile(source, "calibration", "exec"), {"pc": pc, "plt": plt})   # a CI run: measurements, no guesses
    out = capsys.readouterr().out
    assert "none with a guess" in out and "05-triad-time" in out and "replace the None" in out
    plt.close("all")


def test_lesson_10_shows_the_calibration_record_of_a_learner(tmp_path, monkeypatch):
    from nbclient import NotebookClient

    monkeypatch.setenv(pc.predictions.ENV_HOME, str(tmp_path))
    for i, (key, guess, model, measured) in enumerate([("03-pipeline-speedup", 1.5, 1.6, 1.2),
                                                       ("05-triad-time", 20.0, 9.9, 9.1),
                                                       ("06-server-in-flight", 3.0, 2.8, 12.8),
                                                       ("07-strong-step", 6.0, 5.8, 14.3),
                                                       ("08-first-change", 1.0, 2.1, 0.97)]):
        pc.predictions.record(key, guess=guess, model=model, measured=measured, unit="x", about=f"synthetic {i}",
                              show=False)
    nb = nbformat.read(NOTEBOOKS / "10_self_test.ipynb", as_version=4)
    NotebookClient(nb, timeout=120, kernel_name="python3", resources={"metadata": {"path": str(NOTEBOOKS)}}).execute()
    cell = next(c for c in nb.cells if "pc.predictions.calibration()" in c.source)
    text = "".join(o.get("text", "") for o in cell.outputs if o.output_type == "stream")
    assert "5 guesses over 5 experiments" in text and "first half" in text
    assert "08-first-change" in text and "replace the None" not in text
    assert any("image/png" in o.get("data", {}) for o in cell.outputs), "no calibration plot"
    assert np.isfinite(pc.predictions.calibration().median_error)
