import math

import pytest

from perfcourse import laws, practice, roofline


@pytest.mark.parametrize("kind", practice.KINDS)
def test_every_kind_is_deterministic_and_checks_its_own_reference(kind, capsys):
    for seed in range(25):
        p = practice.problem(kind, seed)
        assert p == practice.problem(kind, seed)
        assert p.kind == kind and p.seed == seed and p.unit and p.prompt and p.explanation
        assert math.isfinite(p.reference) and p.reference > 0
        assert p.check(p.reference)
        assert "Right" in capsys.readouterr().out
        assert not p.check(p.reference * 1.5)
        out = capsys.readouterr().out
        assert "Not quite" in out and "Worked:" in out


def test_seeds_give_different_problems():
    for kind in practice.KINDS:
        prompts = {practice.problem(kind, seed).prompt for seed in range(20)}
        assert len(prompts) >= 5, kind


def test_reference_matches_the_laws_for_the_lecture_example():
    p = practice.problem("amdahl", 0)
    assert "10%" in p.prompt and "8 workers" in p.prompt
    assert p.reference == pytest.approx(laws.amdahl_speedup(0.1, 8))


def test_roofline_reference_is_the_larger_of_the_two_times():
    for seed in range(30):
        p = practice.problem("roofline", seed)
        bound = "memory-bound" if "memory-bound" in p.explanation else "compute-bound"
        assert bound in p.explanation
        scale = {"s": 1.0, "ms": 1e3, "µs": 1e6, "ns": 1e9}[p.unit]
        # the explanation names both times; the reference must equal the larger one
        t_compute, t_memory = (float(part.split(" = ")[-1].split()[0]) for part in
                               p.explanation.split(";")[:2])
        assert p.reference == pytest.approx(max(t_compute, t_memory), rel=1e-3)
        assert p.reference / scale > 0
    assert roofline.bound(2, 12, 60e12, 4.8e12) == "memory"


def test_roofline_drills_use_the_float32_peak_of_a_datasheet_device():
    from perfcourse import hardware

    for seed in range(30):
        p = practice.problem("roofline", seed)
        assert "float32" in p.prompt
        name = p.prompt.split("On an NVIDIA ")[1].split(" with peaks")[0]
        sheet = hardware.datasheet(name)
        assert f"{sheet.fp32 / 1e12:g} TFLOP/s" in p.prompt, p.prompt


def test_tolerance_accepts_rounding_but_not_a_different_answer():
    p = practice.problem("little", 3)
    assert p.check(p.reference * 1.01, quiet=True)
    assert not p.check(p.reference * 1.05, quiet=True)


def test_any_kind_picks_a_real_kind():
    kinds = {practice.problem("any", seed).kind for seed in range(40)}
    assert kinds <= set(practice.KINDS) and len(kinds) >= 4


def test_placeholder_and_explain(capsys):
    p = practice.problem("gustafson", 2)
    assert p.check(None) == False and not p.check(None)   # noqa: E712 - Checked compares equal to the bool
    assert "No answer yet" in capsys.readouterr().out
    assert p.explain() == p.reference
    assert "Worked:" in capsys.readouterr().out


@pytest.mark.parametrize("kind, seed, err, match", [
    ("queue", 0, ValueError, "kind must be one of"),
    (3, 0, TypeError, "kind must be a string"),
    ("amdahl", -1, ValueError, "seed must be an integer >= 0"),
    ("amdahl", 1.5, TypeError, "seed must be an integer"),
    ("amdahl", True, TypeError, "seed"),
])
def test_problem_validates_its_arguments(kind, seed, err, match):
    with pytest.raises(err, match=match):
        practice.problem(kind, seed)


@pytest.mark.parametrize("answer, err", [("4.7", TypeError), ([1, 2], TypeError), (float("nan"), ValueError)])
def test_check_validates_the_answer(answer, err):
    with pytest.raises(err, match="answer"):
        practice.problem("amdahl", 0).check(answer)


def test_drill_widget_draws_checks_and_moves_on(capsys):
    w = practice.drill_widget("amdahl", 0)
    (pick, new), (box, check) = w.children[0].children, w.children[1].children
    assert "[amdahl #0]" in capsys.readouterr().out
    box.value = f"{laws.amdahl_speedup(0.1, 8):.3f}"
    check.click()
    assert "Right" in capsys.readouterr().out
    box.value = "four"
    check.click()
    assert "Type a number" in capsys.readouterr().out
    new.click()
    assert "[amdahl #1]" in capsys.readouterr().out and box.value == ""
    pick.value = "work-span"
    assert "[work-span #1]" in capsys.readouterr().out
    with pytest.raises(ValueError, match="kind"):
        practice.drill_widget("nope")


def test_efficiency_and_little_references_follow_from_the_prompt_numbers():
    import re

    seen = set()
    for seed in range(40):
        p = practice.problem("efficiency", seed)
        t1, tn, n = map(float, re.search(r"takes (\d+) s on 1 \w+ and ([\d.]+) s on (\d+)", p.prompt).groups())
        if "Karp-Flatt" in p.prompt:
            want = 100 * laws.karp_flatt(t1 / tn, n)
        else:
            want = 100 * laws.efficiency(t1 / tn, n)
        assert p.reference == pytest.approx(want)
        seen.add("Karp-Flatt" in p.prompt)
        q = practice.problem("little", seed)
        m = re.search(r"handles (\d+) req/s and a request spends (\d+) ms", q.prompt)
        if m:
            lam, w_ms = map(float, m.groups())
            assert q.reference == pytest.approx(lam * w_ms / 1e3)
    assert seen == {True, False}
