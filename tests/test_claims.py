import numpy as np
import pytest

from perfcourse.measure.claims import Claim, compare, predict_vs_measure, state_speedup
from perfcourse.measure.timing import Timing

BASE = dict(workload="dense layer", batch=8, shape=(8, 1024), dtype="float32", device="CPU", backend="numpy",
            percentile="p50", seconds=3e-3, samples=30)


def claim(**changes):
    return Claim(**{**BASE, **changes})


def test_speedup_between_matching_claims():
    c = compare(claim(), claim(device="NVIDIA H200", backend="cupy", seconds=1e-3))
    assert c.speedup == pytest.approx(3.0) and float(c) == pytest.approx(3.0)
    text = str(c)
    for word in ("3.00x faster", "dense layer", "batch 8", "8x1024", "float32", "p50", "NVIDIA H200"):
        assert word in text
    assert "slower" in str(compare(claim(), claim(seconds=6e-3)))


@pytest.mark.parametrize("field, value", [("workload", "dense layer, fused"), ("batch", 16), ("shape", (16, 1024)),
                                          ("dtype", "float64"), ("percentile", "p99")])
def test_mismatch_is_refused_naming_the_field(field, value):
    with pytest.raises(ValueError, match=f"{field} differs"):
        compare(claim(), claim(**{field: value}))


def test_every_difference_and_missing_field_is_listed():
    with pytest.raises(ValueError) as err:
        compare(claim(workload=None, percentile=None), claim(dtype="float16", shape=(4, 4), samples=None))
    message = str(err.value)
    for part in ("baseline is missing workload, percentile", "new is missing samples", "dtype differs",
                 "shape differs (8x1024 vs 4x4)"):
        assert part in message


def test_single_sample_is_refused():
    with pytest.raises(ValueError, match="new rests on a single sample"):
        compare(claim(), claim(samples=1, seconds=1e-3))


def test_compare_needs_claims():
    with pytest.raises(TypeError, match="baseline"):
        compare(3e-3, claim())


@pytest.mark.parametrize("changes, error, words", [
    ({"percentile": "median"}, ValueError, "percentile"),
    ({"percentile": "p101"}, ValueError, "percentile"),
    ({"batch": 0}, ValueError, "batch"),
    ({"shape": "8x1024"}, TypeError, "shape"),
    ({"seconds": -1.0}, ValueError, "seconds"),
    ({"samples": 2.0}, TypeError, "samples"),
    ({"workload": ""}, TypeError, "workload"),
    ({"dtype": 5}, TypeError, "dtype"),
])
def test_claim_fields_are_checked(changes, error, words):
    with pytest.raises(error, match=words):
        claim(**changes)


def test_claim_normalises_and_prints_everything():
    c = claim(dtype=np.float32, percentile=95, shape=[8, 1024])
    assert (c.dtype, c.percentile, c.shape) == ("float32", "p95", (8, 1024))
    assert str(c) == "dense layer, batch 8, shape 8x1024, float32: p95 3 ms over 30 samples (numpy on CPU)"
    assert Claim(workload="x").missing() == ("batch", "shape", "dtype", "device", "backend", "percentile",
                                             "seconds", "samples")


def test_from_timing_takes_the_named_percentile():
    t = Timing.from_samples(np.linspace(1e-3, 2e-3, 101), device="test CPU")
    c = Claim.from_timing(t, workload="copy", batch=1, shape=(1 << 20,), dtype="float32", percentile="p99")
    assert c.seconds == pytest.approx(t.p99) and c.samples == 101 and c.device == "test CPU"
    assert c.missing() == ()


def test_card_prints_one_line_with_everything(capsys):
    t = Timing.from_samples([2e-3, 2e-3, 2.1e-3, 2.2e-3], device="test CPU")
    card = predict_vs_measure(1e-3, t, workload="copy", batch=1, shape=(1 << 20,), dtype="float32")
    out = capsys.readouterr().out
    assert out.count("\n") == 1
    for part in ("predicted 1 ms", "p50 2.05 ms", "p95", "p99", "measured/predicted 2.05", "copy", "batch 1",
                 "1048576", "float32", "test CPU"):
        assert part in out
    assert card.ratio == pytest.approx(2.05) and card.claim().percentile == "p50"
    predict_vs_measure(1e-3, t, workload="copy", batch=1, shape=(4,), dtype="float32", show=False)
    assert capsys.readouterr().out == ""


def test_card_refuses_missing_names():
    t = Timing.from_samples([1e-3, 1e-3])
    with pytest.raises(ValueError, match="shape"):
        predict_vs_measure(1e-3, t, workload="copy", batch=1, shape=None, dtype="float32")
    with pytest.raises(ValueError, match="prediction_s"):
        predict_vs_measure(0, t, workload="copy", batch=1, shape=(4,), dtype="float32")
    with pytest.raises(TypeError, match="timing"):
        predict_vs_measure(1e-3, 1e-3, workload="copy", batch=1, shape=(4,), dtype="float32")


def test_bare_speedup_is_refused_until_complete():
    with pytest.raises(ValueError, match="no workload, batch, shape, dtype, percentile"):
        state_speedup(3)
    with pytest.raises(ValueError, match="names no percentile$"):
        state_speedup(3, workload="sum", batch=1, shape=(10,), dtype="float32")
    text = state_speedup(3, workload="sum", batch=1, shape=(10,), dtype="float32", percentile="p50")
    assert text == "3x faster at p50 for sum, batch 1, shape 10, float32"
