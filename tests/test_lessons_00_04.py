"""Lessons 00-04: guesses ship empty and are recorded, verdicts come from the numbers, ends link the exercise."""

import ast
import json
import re
from pathlib import Path

import numpy as np
import pytest

import perfcourse as pc
from perfcourse.teach import explain, verdicts
from perfcourse.teach.lessons import lesson

ROOT = Path(__file__).resolve().parent.parent
NUMBERS = (0, 1, 2, 3, 4)
GUESS = re.compile(r"^(my_guess\w*)\s*=\s*(.+?)\s*(#.*)?$", re.MULTILINE)
RECORD_KEY = re.compile(r"predictions\.record\(\s*f?\"(\d\d)-[a-z0-9{}._\[\]-]+\"")


def _cells(number):
    path = ROOT / "notebooks" / lesson(number).notebook
    return json.loads(path.read_text(encoding="utf-8"))["cells"]


def _source(cell):
    return "".join(cell["source"])


def _code(number):
    return [_source(c) for c in _cells(number) if c["cell_type"] == "code"]


@pytest.mark.parametrize("number", NUMBERS)
def test_every_guess_ships_as_none_and_says_its_unit(number):
    guesses = [m for src in _code(number) for m in GUESS.finditer(src)]
    assert guesses, f"lesson {number:02d} has no guess cell"
    for name, value, comment in (m.groups() for m in guesses):
        assert value == "None", f"lesson {number:02d}: {name} ships as {value}, not None"
        assert comment and re.search(r"\bin (ms|x)\b", comment), f"lesson {number:02d}: {name} names no unit"


@pytest.mark.parametrize("number", NUMBERS)
def test_every_guess_goes_to_a_record_in_the_lessons_own_keys(number):
    code = _code(number)
    keys = [m.group(1) for src in code for m in RECORD_KEY.finditer(src)]
    assert keys and all(k == f"{number:02d}" for k in keys), keys
    for at, src in enumerate(code):
        for name in (m.group(1) for m in GUESS.finditer(src)):
            later = [s for s in code[at + 1:] if re.search(rf"\b{name}\b", s)]
            assert later, f"lesson {number:02d}: {name} is never used"
            first = later[0]
            assert "predictions.record(" in first, f"lesson {number:02d}: {name} is first used outside a record call"
            # the model's number for this guess is computed below the guess cell, never above it
            call = first[first.index("predictions.record("):]
            if f"guess={name}" in call:
                call = call[call.index(f"guess={name}"):]
            model = re.search(r"model=([A-Za-z_]\w*)", call).group(1)
            above = "\n".join(code[:at + 1])
            assert not re.search(rf"^\s*{model}\s*=", above, re.MULTILINE), \
                f"lesson {number:02d}: the model {model} for {name} is computed above the guess cell"


@pytest.mark.parametrize("number", NUMBERS)
def test_no_other_meaning_of_close(number):
    text = "\n".join(_source(c) for c in _cells(number))
    for other in (r"1\s*/\s*1\.5", r"within 1\.5x", r"within 10%", r"factor of (about )?two", r"<= 1\.1\b",
                  r"counts as close", r"tolerance=0\."):
        assert not re.search(other, text), f"lesson {number:02d} still uses another 'close': {other}"


@pytest.mark.parametrize("number", NUMBERS)
def test_lesson_ends_with_its_exercise_and_neighbours(number):
    last = _source(_cells(number)[-1])
    first_graded = lesson(1).exercise
    exercise = lesson(number).exercise or first_graded
    assert f"../exercises/{exercise}" in last
    if number == 0:
        assert "perfcourse grade" in last
    else:
        assert f"({lesson(number - 1).notebook})" in last
    assert f"({lesson(number + 1).notebook})" in last


def test_lesson_01_prints_its_batch_count_from_the_list():
    cells = _cells(1)
    sweep = [c for c in cells if c["cell_type"] == "code" and "BATCHES = [" in _source(c)]
    assert len(sweep) == 1 and "nbval-check-output" in sweep[0]["metadata"].get("tags", [])
    batches = ast.literal_eval(re.search(r"BATCHES = (\[[^\]]*\])", _source(sweep[0])).group(1))
    printed = "".join("".join(o.get("text", "")) for o in sweep[0]["outputs"])
    assert printed.startswith(f"{len(batches)} batch sizes")
    words = r"\b(one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve) batch sizes"
    assert not any(re.search(words, _source(c)) for c in cells if c["cell_type"] == "markdown")


def test_lesson_00_introduces_the_loop_without_run_all_first():
    text = "\n".join(_source(c) for c in _cells(0) if c["cell_type"] == "markdown")
    assert "Run All Cells*; each lesson" not in text and "top to bottom with" not in text
    assert "shipped as `None`" in text and "warm L2" in text
    code = "\n".join(_code(0))
    assert "pc.verdicts.CLOSE_RATIO" in code


# --- the verdicts the lessons print -----------------------------------------------------------------------

def test_time_against_model_uses_the_one_band():
    band = verdicts.CLOSE_RATIO
    assert verdicts.time_against_model(band * 0.999, 1.0) == f"within {band:g}x of the model"
    assert verdicts.time_against_model(1 / (band * 0.999), 1.0) == f"within {band:g}x of the model"
    assert verdicts.time_against_model(band * 1.01, 1.0).endswith("slower than the model")
    assert verdicts.time_against_model(1 / (band * 1.01), 1.0).endswith("faster than the model")


def test_b1_faster_than_the_roofline_is_explained_by_the_cache_holding_w():
    """Lesson 01 at b = 1: 1.27 ms measured against a 2.88 ms bound, W 64 MiB, L3 32 MiB."""
    w = 64 * 2**20
    text = explain.read_verdict(1.27e-3, 2.88e-3, nbytes=w, bandwidth=w / 2.88e-3, what="W",
                                 cache_bytes=32 * 2**20, reused=True)
    assert "2.27x faster than the model" in text
    assert "at least 56% of W had to come from a cache" in text
    assert "32 MiB last-level cache can keep up to 50% of it" in text
    # a cache that holds all the bytes needed explains it alone
    assert explain.read_verdict(1.27e-3, 2.88e-3, nbytes=w, bandwidth=w / 2.88e-3, what="W",
                                 cache_bytes=48 * 2**20, reused=True).endswith("The cache can explain the gap.")
    # the slower side names the bandwidth reached, not a cache
    slow = explain.read_verdict(8e-3, 2.88e-3, nbytes=w, bandwidth=w / 2.88e-3, what="W", cache_bytes=32 * 2**20,
                                 reused=True)
    assert "2.78x slower than the model" in slow and "at most 50% of W" in slow
    close = explain.read_verdict(2.7e-3, 2.88e-3, nbytes=w, bandwidth=w / 2.88e-3, what="W",
                                  cache_bytes=32 * 2**20)
    assert "within 1.25x of the model" in close and "streams from memory" in close


def test_bound_verdict_names_the_nearest_ceiling():
    uses = [("arithmetic", 2 * 64 * 2**20, 91e9, "FLOP/s"), ("memory bandwidth", 8 * 2**20, 20e9, "B/s"),
            ("cache bandwidth", pc.kernels.tile_traffic(2**20, 64), 150e9, "B/s")]
    assert explain.nearest_bound(8e-3, uses)[0] == "cache bandwidth"
    assert "nearest to the cache bandwidth ceiling" in explain.bound_verdict(8e-3, uses)
    assert "no ceiling is near" in explain.bound_verdict(1.0, uses)
    with pytest.raises(ValueError, match="uses must list"):
        explain.nearest_bound(1.0, [])


def test_karp_flatt_verdict_names_the_gap():
    close = explain.karp_flatt_verdict(0.3, 10e-3, 6.6e-3, 2)
    assert "e = 0.320" in close and "serial step explains the speedup" in close
    lost = explain.karp_flatt_verdict(0.26, 10e-3, 7.0e-3, 2)
    assert "e = 0.400" in lost and "700 µs per run" in lost
    slower = explain.karp_flatt_verdict(0.26, 10e-3, 10.6e-3, 2)
    assert "above 1" in slower and "600 µs longer" in slower
    better = explain.karp_flatt_verdict(0.2, 10e-3, 4e-3, 2)
    assert "did better than its timed serial step allows" in better
    e = pc.laws.karp_flatt(10e-3 / 7.0e-3, 2)
    assert f"e = {e:.3f}" in lost


def test_call_count_and_scaling_verdicts():
    assert "explains the time" in explain.call_count_verdict(1.57e-3, 13.9e-6, 2295, 0.59e-6)
    assert "more per call" in explain.call_count_verdict(4e-3, 13.9e-6, 2295, 0.59e-6)
    assert "overstated" in explain.call_count_verdict(0.5e-3, 13.9e-6, 2295, 0.59e-6)
    shared = explain.scaling_verdict(1.7, 2, achieved=11e9, ceiling=20e9, resource="memory bandwidth",
                                      shared=True, unit="B/s")
    assert "at most 1.82x on 2 workers" in shared and "explains the result" in shared
    own = explain.scaling_verdict(1.0, 2, achieved=60e9, ceiling=120e9, resource="cache bandwidth", shared=False,
                                   unit="B/s", cores_busy=1.0)
    assert "the worker count bounds the run at 2x" in own and "kept only 1 of 2 cores busy" in own
    superlinear = explain.scaling_verdict(2.38, 2, achieved=7e9, ceiling=26e9, resource="memory bandwidth",
                                           shared=True, unit="B/s")
    assert "one-worker run was slowed" in superlinear and "explains" not in superlinear


# --- the CPU grid-stride kernel and the helpers lesson 04 measures with ----------------------------------

def test_cpu_grid_stride_tile_stays_in_a_core_cache_and_counts_its_passes():
    from perfcourse.measure.kernels.gridstride import TILE

    assert TILE * 4 <= 256 * 2**10            # float32 tile fits in any current core's private L2
    assert pc.kernels.tile_traffic(2**20, 64) == 4 * 2**20 * 64 * 4
    assert pc.kernels.tile_traffic(2**20, 1, dtype="float64") == 4 * 2**20 * 8
    with pytest.raises(ValueError, match="whole numbers"):
        pc.kernels.tile_traffic(0, 1)
    k = pc.kernels.grid_stride
    for blocks in (1, 2, 3):
        assert k.check(3 * TILE + 5, 7, dtype="float32", xp=np, seed=2, blocks=blocks) < 1e-4


def test_tree_traffic_counts_the_numpy_tree():
    assert round(pc.kernels.tree_cpu_traffic(2**24) / pc.kernels.sum_tree.bytes_moved(2**24), 2) == 9.0
    with pytest.raises(ValueError, match="whole number"):
        pc.kernels.tree_cpu_traffic(0)


def test_cores_busy_and_tile_bandwidth_are_measured():
    busy = pc.workers.cores_busy(lambda: sum(range(20_000)), seconds=0.05)
    assert 0 < busy < 8
    with pytest.raises(TypeError, match="call must be a function"):
        pc.workers.cores_busy(3)
    bandwidth, t = pc.workers.tile_pass(repeat=5, max_duration_s=0.2)
    moved = 4 * 4 * pc.kernels.gridstride.TILE      # 4 passes of TILE float32 elements per step
    assert bandwidth > 1e8 and t.n >= 1 and bandwidth * t.p50 == pytest.approx(moved, rel=1e-9)


# --- running a lesson fills the learner's log --------------------------------------------------------------

@pytest.mark.slow
def test_running_lesson_03_records_its_predictions(tmp_path, monkeypatch):
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    monkeypatch.setenv(pc.predictions.ENV_HOME, str(tmp_path))
    path = ROOT / "notebooks" / lesson(3).notebook
    nb = nbformat.read(path, as_version=4)
    nbclient.NotebookClient(nb, timeout=120, kernel_name="python3",
                            resources={"metadata": {"path": str(path.parent)}}).execute()
    entries = pc.predictions.load(tmp_path / "predictions.jsonl")
    assert {e.key for e in entries} == {"03-pipeline-speedup", "03-calls-ratio"}
    assert all(e.guess is None and e.lesson == 3 and e.measured > 0 and e.model > 0 for e in entries)


def test_lesson_04_measures_the_bound_of_its_high_intensity_setting():
    cells = _cells(4)
    text = "\n".join(_source(c) for c in cells if c["cell_type"] == "markdown")
    assert "**compute-bound**" not in text and "**memory-bound**" not in text
    code = "\n".join(_code(4))
    assert "pc.explain.bound_verdict(" in code and "pc.explain.nearest_bound(" in code
    assert "pc.explain.scaling_verdict(" in code
    # the Amdahl explorer lives in lesson 03; lesson 04 links it and keeps only the comparison widget
    assert "(03_amdahl.ipynb)" in text
    assert "pc.verdicts.amdahl_line" not in code and "pc.verdicts.compare_line" in code


@pytest.mark.parametrize("cache_mib, fits", [(32, False), (64, True), (300, True)])
def test_a_slow_read_names_the_cache_for_what_it_could_hold(cache_mib, fits):
    w = 64 * 2**20
    text = explain.read_verdict(8.0e-3, 2.88e-3, nbytes=w, bandwidth=w / 2.88e-3, what="W",
                                cache_bytes=cache_mib * 2**20, reused=True)
    assert "slower than the model" in text and "faster" not in text
    assert ("the cache did not set its time" in text) == fits
    assert ("could keep at most" in text) == (not fits)


@pytest.mark.parametrize("psi, busy, idle", [(1.59, 1.68, True), (0.98, 1.02, True), (1.2, 1.7, False),
                                             (1.0, 1.9, False), (1.5, 1.45, True), (1.53, 1.81, False),
                                             (1.3, 1.64, True), (1.3, 1.66, False)])
def test_the_shortfall_is_read_as_idle_cores_or_extra_work_whichever_took_more_core_time(psi, busy, idle):
    text = explain.scaling_verdict(psi, 2, achieved=70e9, ceiling=80e9, resource="cache bandwidth", shared=False,
                                   unit="B/s", cores_busy=busy)
    assert ("kept only" in text) == idle and ("work one worker does not do" in text) == (not idle)
    assert f"{busy:.3g}" in text
