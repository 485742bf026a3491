"""A part is not answered by calling the course's own implementation of it.

While an exercise is graded, its kernel sees the package without that exercise's withheld
functions (``perfcourse.grading.withheld``): calling one raises with a message naming it, and its
source is not in the files the kernel can read. The grader's own process keeps the real package.
"""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

import perfcourse
from perfcourse.grading.grade import grade
from perfcourse.grading.sandbox import Sandbox, bwrap_path, kill
from perfcourse.grading.withheld import WITHHELD, message, with_helpers, withhold

ROOT = Path(__file__).resolve().parent.parent
UNSAFE = bwrap_path() is None and os.environ.get("PERFCOURSE_REQUIRE_BWRAP") != "1"


@pytest.mark.parametrize("exercise", sorted(WITHHELD))
def test_each_withheld_function_is_a_stub_and_its_source_is_gone(tmp_path, exercise):
    copy = tmp_path / "perfcourse"
    shutil.copytree(Path(perfcourse.__file__).parent, copy, ignore=shutil.ignore_patterns("course"))
    assert sorted(withhold(copy, exercise)) == sorted(WITHHELD[exercise])
    for module, names in WITHHELD[exercise].items():
        text = (copy / module).read_text(encoding="utf-8")
        original = (Path(perfcourse.__file__).parent / module).read_text(encoding="utf-8")
        for name in names:
            qualified = "perfcourse." + module[:-3].replace("/", ".") + "." + name
            assert message(exercise, qualified) in text
            if f"def {name.rpartition('.')[2]}(" not in original:            # a table: its assignment is gone
                assignment = original.split(f"\n{name} = ", 1)[1].split("\n\n", 1)[0]
                assert f"{name} = _Withheld(" in text and assignment not in text, qualified
                continue
            body = original.split(f"def {name.rpartition('.')[2]}(", 1)[1].split('"""')[1]   # its docstring
            assert body not in text, f"{qualified}: the implementation is still in the copy"
        assert not list((copy / module).parent.glob(f"__pycache__/{Path(module).stem}.*.pyc"))


def test_a_graded_kernel_cannot_call_or_read_the_withheld_functions():
    probe = r'''
import inspect, json
import perfcourse as pc
seen = {}
try:
    pc.scaling.fit_serial_fraction([1, 2], [1.0, 1.8])
except RuntimeError as err:
    seen["call"] = str(err)
seen["source"] = inspect.getsource(pc.scaling)
seen["other"] = pc.laws.amdahl_speedup(0.1, 4)          # the rest of the package is there
print(json.dumps(seen))
'''
    box = Sandbox(unsafe=UNSAFE)
    try:
        proc = box.spawn([sys.executable, "-I", "-c", probe], exercise="ex03", stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE)
        out, err = proc.communicate(timeout=120)
        kill(proc)
    finally:
        box.close()
    if UNSAFE:
        pytest.skip("without the sandbox the kernel sees the real package")
    seen = json.loads(out.decode().splitlines()[-1])
    assert seen["call"] == message("ex03", "perfcourse.models.scaling.fit_serial_fraction")
    assert "np.dot(x, y) / np.dot(x, x)" not in seen["source"] and seen["other"] > 3


SHORTCUT_03 = r'''
import perfcourse as pc
def fit_serial_fraction(n, speedup):
    return pc.scaling.fit_serial_fraction(n, speedup)
def karp_flatt_series(n, speedup):
    return np.array([pc.laws.karp_flatt(s, k) for s, k in zip(speedup, n)])
'''


def _graded_with(tmp_path, solution, cell):
    """The gradebook record of ``solution`` (a solutions/ notebook name) with ``cell`` appended."""
    nb = nbformat.read(ROOT / "solutions" / solution, as_version=4)
    nb.cells.append(nbformat.v4.new_code_cell(cell))
    nbformat.write(nb, tmp_path / solution)
    (sub,) = grade([tmp_path / solution], progress=False, seed=4)["submissions"]
    return sub


@pytest.mark.skipif(UNSAFE, reason="withholding needs the sandbox's own copy of the package")
def test_calling_the_package_scores_nothing_and_says_why(tmp_path):
    sub = _graded_with(tmp_path, "03_amdahl.ipynb", SHORTCUT_03)
    points = [p["points"] for p in sub["parts"]]
    assert points == [0, 0, 2], sub["parts"]
    assert "perfcourse.models.scaling.fit_serial_fraction is withheld while exercise 03" in sub["parts"][0]["feedback"]
    assert "perfcourse.models.laws.karp_flatt is withheld" in sub["parts"][1]["feedback"]


# exercise 13 rebuilt from the package's other models: the step's graph (Dag), the roofline and the nearest bound
SHORTCUT_13 = r'''
from perfcourse.models.dag import Dag as _Dag
from perfcourse.models import stepprofile as _sp, roofline as _rl, verdicts as _vd

def _dag(spans, seconds=None):
    ordered = _sp.check_spans(spans)            # not withheld: topological order
    names = list(ordered)
    idx = {n: i for i, n in enumerate(names)}
    g = _Dag()
    for n in names:
        deps = [idx[d] for d in ordered[n]["deps"]]
        i = g.op(n, *deps) if deps else g.input(n)
        g.costs[i] = float((seconds or {}).get(n, ordered[n]["seconds"]))
    return g, names

def critical_path(spans):
    g, names = _dag(spans)
    return [names[i] for i in g.critical_path()]

def bound_of(span, peaks):
    uses = [("compute", span["flops"], peaks["peak_flops"], ""), ("bandwidth", span["bytes"], peaks["bandwidth"], ""),
            ("launch", span["launches"], 1.0 / peaks["launch_s"], ""), ("queue", span["wait_s"], 1.0, "")]
    return _vd.nearest_bound(1.0, uses)[0]

def first_change(spans, peaks):
    best = None
    for s in spans:
        roof = min(s["seconds"],
                   float(_rl.roofline_time(s["flops"], s["bytes"], peaks["peak_flops"], peaks["bandwidth"])))
        t = _dag(spans, {s["name"]: roof})[0].span
        if best is None or t < best[1]:
            best = (s["name"], t)
    return best
'''


@pytest.mark.skipif(UNSAFE, reason="withholding needs the sandbox's own copy of the package")
def test_rebuilding_a_part_from_the_packages_other_models_scores_nothing(tmp_path):
    sub = _graded_with(tmp_path, "13_read_a_profile.ipynb", SHORTCUT_13)
    assert [p["points"] for p in sub["parts"]] == [0, 0, 0], sub["parts"]
    assert all("is withheld while exercise 13 is graded" in p["feedback"] for p in sub["parts"]), sub["parts"]


# the private helper behind warp_sectors and triad_sector_bytes holds their whole sector count
SHORTCUT_11 = r'''
from perfcourse.models.counts import _request_sectors
def sectors_per_warp(stride, itemsize):
    return _request_sectors(np.zeros(32, dtype=np.int64), np.arange(32, dtype=np.int64) * stride, itemsize)
def triad_bytes(n, itemsize, stride):
    i = np.arange(n, dtype=np.int64)
    return 3 * 32 * _request_sectors((i // stride // 32) * stride + i % stride, i, itemsize)
def best_block_size(registers_per_thread, shared_bytes_per_block):     # part E: CUDA's rules, from the package
    best = None
    for t in range(32, 1025, 32):
        try:
            e = pc.occupancy.estimate(threads_per_block=t, registers_per_thread=registers_per_thread,
                                      shared_bytes_per_block=shared_bytes_per_block)
        except ValueError:
            continue
        if best is None or e.occupancy > best["occupancy"]:
            best = {"threads_per_block": t, "occupancy": e.occupancy, "limit": e.limit}
    return best
'''


def test_a_private_helper_only_withheld_functions_use_is_withheld_too(tmp_path):
    source = (Path(perfcourse.__file__).parent / "models" / "counts.py").read_text(encoding="utf-8")
    assert "_request_sectors" in with_helpers(source, WITHHELD["ex11"]["models/counts.py"])
    assert "_power_of_two" not in with_helpers(source, WITHHELD["ex11"]["models/counts.py"])   # others use it
    if UNSAFE:
        pytest.skip("withholding needs the sandbox's own copy of the package")
    sub = _graded_with(tmp_path, "11_grid_stride.ipynb", SHORTCUT_11)
    assert [p["points"] for p in sub["parts"]][2:] == [0, 0, 0], sub["parts"]
    assert all("_request_sectors is withheld while exercise 11" in p["feedback"] for p in sub["parts"][2:4])
    assert "perfcourse.models.occupancy.estimate is withheld while exercise 11" in sub["parts"][4]["feedback"]


# the package's other implementations of what a part asks: the step profile (ex02, ex08), the trace (ex06),
# and the table behind every kernel's counts (ex05)
OTHER_ROUTES = {
    "05_roofline.ipynb": (r'''
import perfcourse.models.counts as _c
def kernel_counts(kind, n, dtype_bytes):
    dt = {2: "float16", 4: "float32", 8: "float64"}[dtype_bytes]
    k = _c.COUNTS["triad" if kind == "axpy" else kind]
    sizes = (n, n, n) if kind == "matmul" else (n,)
    return (int(k.flops(*sizes)), int(k.bytes_moved(*sizes, dtype=dt)))
''', 0, "COUNTS is withheld"),
    "06_littles_law.ipynb": (r'''
import perfcourse.queueing.simtrace as _st
def in_flight_at(arrivals, departures, times):
    a = np.asarray(arrivals, float); d = np.asarray(departures, float)
    return _st.Trace(a, a, d, np.arange(a.size), np.ones(a.size, int), "fcfs").in_system(times)
''', 2, "Trace.in_system is withheld"),
    "02_work_span.ipynb": (r'''
import perfcourse.models.stepprofile as _sp
def _spans(edges, cost):
    deps = {t: [] for t in cost}
    for u, v in edges:
        deps[v].append(u)
    return [_sp.span(t, "cpu", cost[t], sorted(deps[t])) for t in cost]
def work_and_span(edges, cost):
    return (sum(cost.values()), _sp.step_time(_spans(edges, cost)))
''', 0, "step_time is withheld"),
}


@pytest.mark.skipif(UNSAFE, reason="withholding needs the sandbox's own copy of the package")
@pytest.mark.parametrize("solution", sorted(OTHER_ROUTES))
def test_another_package_route_to_a_parts_answer_is_withheld_too(tmp_path, solution):
    cell, index, reason = OTHER_ROUTES[solution]
    sub = _graded_with(tmp_path, solution, cell)
    assert sub["parts"][index]["points"] == 0 and reason in sub["parts"][index]["feedback"], sub["parts"][index]


# exercise 14 answered with the package's continuous-batching simulator: through simulate, continuous_batch,
# and the loop behind it
SHORTCUT_14 = r'''
import perfcourse.queueing.continuous as _c

def deployment_ttft(requests, step_s, replicas, max_batch, token_budget):
    a, p, o = (np.asarray(requests[k]) for k in ("arrival", "prompt_tokens", "output_tokens"))
    out = np.zeros(a.size)
    for r in range(replicas):
        out[r::replicas] = pc.queueing.simulate("continuous", a[r::replicas], pc.queueing.affine(*step_s),
                                                prompt_tokens=p[r::replicas], output_tokens=o[r::replicas],
                                                max_batch=max_batch, token_budget=token_budget).ttft
    return out

def _p99(requests, step_s, replicas, max_batch, token_budget):
    first = []
    for r in range(replicas):
        a = requests["arrival"][r::replicas].tolist()
        p, o = requests["prompt_tokens"][r::replicas].tolist(), requests["output_tokens"][r::replicas].tolist()
        step = (step_s[0] + step_s[1] * np.arange(max_batch * max(p) + 1)).tolist()
        (_, got, _, _, _), _ = _c._run(a, p, o, step, max_batch, token_budget)
        first += (np.array(got) - np.array(a)).tolist()
    return np.percentile(first, 99)

def size_deployment(problem):
    requests = requests_of(problem)
    m = int(problem["kv_bytes"] // ((problem["prompt"][1] + problem["answer_max"]) * problem["kv_bytes_per_token"]))
    b, r = m * problem["prompt"][1], 1
    while _p99(requests, (problem["t0_s"], problem["t1_s"]), r, m, b) > problem["slo_s"]:
        r += 1
    return r, m, b
'''


@pytest.mark.skipif(UNSAFE, reason="withholding needs the sandbox's own copy of the package")
def test_a_deployment_sized_with_the_packages_simulator_scores_nothing(tmp_path):
    sub = _graded_with(tmp_path, "14_size_a_deployment.ipynb", SHORTCUT_14)
    assert [p["points"] for p in sub["parts"]] == [0, 0, 0, 0], sub["parts"]
    assert "perfcourse.queueing.simulator.simulate is withheld while exercise 14" in sub["parts"][0]["feedback"]
    assert all("perfcourse.queueing.continuous._run is withheld while exercise 14" in p["feedback"]
               for p in sub["parts"][1:]), sub["parts"]
