"""The data-parallel step: its gradient is the whole batch's, and 2 MPI ranks agree with 1."""

import sys
import threading

import numpy as np
import pytest

from perfcourse import localranks, mpi_step, mpiresults, mpirun


def _mpiexec_or_skip():
    try:
        return mpirun.find_mpiexec()
    except mpirun.MpiNotFound as err:
        pytest.skip(f"no MPI launcher: {err}")


def test_split_batch_gradients_sum_to_the_whole():
    rng = np.random.default_rng(3)
    x, w, t = (rng.standard_normal(s).astype(np.float32) for s in ((64, 16), (16, 16), (64, 16)))
    full_dw, full_dx = mpi_step.dense_step(np, x, w, t, 64)
    parts = [mpi_step.dense_step(np, x[i:i + 16], w, t[i:i + 16], 64) for i in range(0, 64, 16)]
    assert np.allclose(sum(p[0] for p in parts), full_dw, rtol=1e-5, atol=1e-6)
    assert np.allclose(np.concatenate([p[1] for p in parts]), full_dx, rtol=1e-5, atol=1e-6)
    ref = x.astype(np.float64).T @ ((x.astype(np.float64) @ w - t) / 64)
    assert np.allclose(full_dw, ref, rtol=1e-4, atol=1e-6)


def test_two_ranks_reduce_the_gradient_of_the_global_batch():
    _mpiexec_or_skip()
    result = mpirun.launch(2, d=32, global_batch=16, local_batch=8, accumulate=2, repeat=3, warmup=1, sweep=True,
                           timeout_s=90)
    assert result["n_ranks"] == 2 and result["backend"] in ("numpy", "cupy")
    runs = mpiresults.runs_by_label(result)
    assert set(runs) == {"strong", "weak", "weak, accumulate 2"}
    assert [runs[k]["global_batch"] for k in ("strong", "weak", "weak, accumulate 2")] == [16, 16, 32]
    assert runs["strong"]["local_batch"] == 8
    for run in runs.values():
        assert run["grad_rel_error"] < 1e-5              # all-reduced gradient == one device's gradient
        assert all(len(v) == 3 for v in run["phases"].values())
    phases = mpiresults.phase_timings(result, "strong")
    assert set(phases) == {"compute", "wait", "comm", "step"}
    assert phases["step"].min >= phases["comm"].min > 0
    nbytes, seconds = mpiresults.sweep_points(result)
    assert nbytes.tolist() == [4.0 * s for s in mpi_step.SWEEP_SIZES] and np.all(seconds > 0)


def test_one_rank_sends_nothing_and_has_no_sweep():
    _mpiexec_or_skip()
    result = mpirun.launch(1, d=16, global_batch=8, repeat=2, warmup=0, sweep=True, timeout_s=60)
    assert result["allreduce"] == []
    with pytest.raises(ValueError, match="no all-reduce sweep"):
        mpiresults.sweep_points(result)
    table = mpiresults.step_table([result], "strong")
    assert table.efficiency.tolist() == [1.0]


def test_launch_checks_its_arguments():
    with pytest.raises(ValueError, match="divide evenly"):
        mpirun.launch(3, global_batch=16)
    with pytest.raises(ValueError, match="n_ranks"):
        mpirun.launch(0)
    with pytest.raises(TypeError, match="launcher_args"):
        mpirun.launch(2, global_batch=16, launcher_args="-f hosts")


def test_a_run_past_its_timeout_is_stopped():
    _mpiexec_or_skip()
    with pytest.raises(TimeoutError, match="did not finish within"):
        mpirun.launch(2, d=256, global_batch=64, repeat=10**6, timeout_s=1.0)   # would take about a minute


def test_missing_mpiexec_says_how_to_install(monkeypatch, tmp_path):
    monkeypatch.setattr(sys, "executable", str(tmp_path / "python"))
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(mpirun.MpiNotFound, match="pip install mpi4py mpich"):
        mpirun.find_mpiexec()


def test_step_table_from_recorded_results():
    def result(n, step):
        third = [step / 3] * 4
        return {"n_ranks": n, "backend": "numpy", "device": "cpu",
                "runs": [{"label": "strong", "phases": {"compute_s": third, "wait_s": third, "comm_s": third}}]}
    table = mpiresults.step_table([result(2, 0.006), result(1, 0.010)], "strong")
    assert table.n.tolist() == [1, 2]
    assert table.efficiency[1] == pytest.approx(0.010 / (2 * 0.006))


def test_local_processes_reduce_the_gradient_without_mpi():
    result = mpirun.launch(2, d=32, global_batch=16, local_batch=8, accumulate=2, repeat=3, warmup=1, sweep=True,
                           timeout_s=90, via="local")
    assert result["n_ranks"] == 2 and result["mpi"] == localranks.TRANSPORT
    runs = mpiresults.runs_by_label(result)
    assert [runs[k]["global_batch"] for k in ("strong", "weak", "weak, accumulate 2")] == [16, 16, 32]
    for run in runs.values():
        assert run["grad_rel_error"] < 1e-5              # the shared-memory sum is the whole batch's gradient
    assert mpiresults.phase_timings(result, "strong")["comm"].min > 0
    nbytes, seconds = mpiresults.sweep_points(result)
    assert nbytes.tolist() == [4.0 * s for s in mpi_step.SWEEP_SIZES] and np.all(seconds > 0)
    with pytest.raises(ValueError, match="launcher_args need MPI"):
        mpirun.launch(2, global_batch=16, via="local", launcher_args=["-f", "hosts"])


def test_transport_follows_the_environment_and_falls_back(monkeypatch):
    monkeypatch.setenv("PERFCOURSE_TRANSPORT", "local")
    assert mpirun.transport()[0] == "local"
    monkeypatch.setenv("PERFCOURSE_TRANSPORT", "carrier pigeon")
    with pytest.raises(ValueError, match="PERFCOURSE_TRANSPORT"):
        mpirun.transport()
    monkeypatch.delenv("PERFCOURSE_TRANSPORT")
    real_find_spec = mpirun.importlib.util.find_spec
    monkeypatch.setattr(mpirun.importlib.util, "find_spec",
                        lambda name, *a: None if name == "mpi4py" else real_find_spec(name, *a))
    kind, why = mpirun.transport()
    assert kind == "local" and "mpi4py is not installed" in why
    with pytest.raises(mpirun.MpiNotFound, match="pip install mpi4py mpich"):
        mpirun.transport("mpi")
    with pytest.raises(ValueError, match="requested"):
        mpirun.transport("pigeon")


def _in_threads(hub, *bodies):
    """Run one rank body per thread against ``hub``; return what each body returned (or raised)."""
    out = [None] * len(bodies)

    def run(rank, body):
        comm = localranks.HubComm(hub.address, rank, len(bodies), hub.authkey)
        try:
            out[rank] = body(comm)
        except (EOFError, OSError) as err:
            out[rank] = err

    threads = [threading.Thread(target=run, args=(r, b)) for r, b in enumerate(bodies)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=20)
    return out


def test_hub_sums_gathers_and_catches_mismatched_collectives():
    def rank_body(values):
        def body(comm):
            buf = np.array(values, dtype=np.float32).reshape(2, 2)
            comm.sum_in_place(buf)
            gathered = comm.gather(comm.rank)
            comm.close()
            return buf.tolist(), gathered
        return body

    with localranks.Hub(2, capacity=4) as hub:
        (sum0, got0), (sum1, got1) = _in_threads(hub, rank_body([1, 2, 3, 4]), rank_body([10, 20, 30, 40]))
    assert sum0 == sum1 == [[11, 22], [33, 44]] and got0 == [0, 1] and got1 is None
    with localranks.Hub(2, capacity=4) as hub:
        out = _in_threads(hub, lambda c: c.Barrier(), lambda c: c.gather(1))
    assert isinstance(hub.error, RuntimeError) and "different collectives" in str(hub.error)
    assert all(isinstance(o, EOFError) for o in out)      # nobody hangs: both ranks are told
    with localranks.Hub(1, capacity=4) as hub:
        comm = localranks.HubComm(hub.address, 0, 1, hub.authkey)
        with pytest.raises(ValueError, match="at most 4"):
            comm.sum_in_place(np.zeros(5, dtype=np.float32))
        with pytest.raises(TypeError, match="float32"):
            comm.sum_in_place(np.zeros(2))
        comm.close()


def test_one_rank_baseline_pools_runs_of_equal_work():
    def result(n, runs):
        return {"n_ranks": n, "backend": "numpy", "device": "cpu",
                "runs": [{"label": label, "local_batch": b, "accumulate": a,
                          "phases": {"compute_s": [t] * 4, "wait_s": [0.0] * 4, "comm_s": [0.0] * 4}}
                         for label, b, a, t in runs]}
    one = result(1, [("strong", 8, 1, 0.010), ("weak", 8, 1, 0.006), ("weak, accumulate 4", 8, 4, 0.040)])
    base = mpiresults.one_rank_baseline(one)
    assert base["step"].n == 8 and base["step"].samples.max() == pytest.approx(0.010)   # accumulate left out
    two = result(2, [("strong", 4, 1, 0.006), ("weak", 8, 1, 0.009)])
    strong = mpiresults.step_table([one, two], "strong", baseline_s=0.008)
    weak = mpiresults.step_table([one, two], "weak", baseline_s=0.008)
    assert strong.seconds[0] == weak.seconds[0] == 0.008
    assert weak.efficiency[1] == pytest.approx(0.008 / 0.009)
    with pytest.raises(ValueError, match="one-rank launch"):
        mpiresults.one_rank_baseline(two)
    with pytest.raises(ValueError, match="no one-rank launch"):
        mpiresults.step_table([two], "strong", baseline_s=0.008)


@pytest.mark.parametrize("noisy", [False, True])
def test_a_scaling_claim_states_its_efficiency_only_from_steady_steps(noisy):
    def result(n, compute):
        return {"n_ranks": n, "backend": "numpy", "device": "cpu", "dtype": "float32", "mpi": "local",
                "runs": [{"label": "strong", "local_batch": 256 // n, "accumulate": 1, "global_batch": 256, "d": 64,
                          "grad_bytes": 4 * 64 * 64,
                          "phases": {"compute_s": compute, "wait_s": [0.0] * 6, "comm_s": [1e-4] * 6}}]}
    steady = [0.010, 0.0101, 0.0099, 0.0100, 0.0102, 0.0098]
    two = [0.006, 0.009, 0.004, 0.0075, 0.005, 0.0095] if noisy else [t * 0.6 for t in steady]
    claim = mpiresults.scaling_claim(result(2, two), "strong", result(1, steady))
    efficiency = next(line for line in claim.splitlines() if line.startswith("efficiency"))
    if noisy:
        assert "not stated" in efficiency and "%" not in efficiency and "too noisy to quote" in claim
    else:
        t1 = np.median(np.array(steady) + 1e-4)
        assert efficiency.endswith(f"{t1 / (2 * np.median(np.array(two) + 1e-4)):.1%} (strong scaling)")
        assert "too noisy" not in claim
