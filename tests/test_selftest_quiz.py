import pytest

from perfcourse import laws, quiz, selftest


def test_bank_covers_every_lesson_with_many_new_questions():
    bank = selftest.bank()
    new = [q for q in bank.values() if q.qid.startswith("l10-")]
    assert len(new) >= 20
    assert {q.lesson for q in new} >= set(range(9))
    assert {q.kind for q in new} == {"number", "choice"}
    assert any("bottleneck" in q.prompt for q in new)
    assert len([q for q in bank.values() if q.qid.startswith("l09-")]) >= 3


def test_every_question_is_well_formed_and_its_reference_is_accepted():
    mine = [q for q in selftest.bank().values() if q.qid.startswith(("l09-", "l10-"))]
    for q in mine:
        assert q.why.strip() and q.prompt.strip()
        if q.kind == "number":
            ref = q.reference()
            assert ref == ref and ref > 0
            assert selftest.check(q.qid, ref, quiet=True)
            assert not selftest.check(q.qid, ref * (1 + 3 * max(q.rtol, 0.01)), quiet=True)
        else:
            assert q.correct in q.letters() and len(q.choices) >= 3
            assert selftest.check(q.qid, q.correct, quiet=True)
            wrong = next(letter for letter in q.letters() if letter != q.correct)
            assert not selftest.check(q.qid, wrong, quiet=True)


def test_correct_letters_are_not_all_the_same():
    letters = [q.correct for q in selftest.bank().values() if q.qid.startswith(("l09-", "l10-"))
               and q.kind == "choice"]
    assert len(set(letters)) >= 3


def test_selected_references_follow_the_laws():
    assert selftest.get("l10-amdahl-5pct-64").reference() == pytest.approx(1 / (0.05 + 0.95 / 64))
    assert selftest.get("l10-mm1-time").reference() == pytest.approx(50.0)
    assert selftest.get("l09-concurrency-cap").reference() == pytest.approx(6 / 0.040)
    assert selftest.get("l10-kernels-only-ceiling").reference() == pytest.approx(55 / 47)
    assert selftest.get("l10-karp-flatt").reference() == pytest.approx(laws.karp_flatt(6, 8))


def test_score_counts_right_wrong_blank_and_unreadable(capsys):
    answers = {"lecture-amdahl-1pct": 100, "l10-ridge": 14, "l10-claim-card": "a",
               "l10-brent": None, "l10-little-500": "forty"}
    assert selftest.score(answers) == (2, 5)
    out = capsys.readouterr().out
    assert "Score: 2/5 right (40%)" in out
    assert "not quite: l10-claim-card" in out and "no answer yet: l10-brent" in out
    assert "could not read: l10-little-500" in out


@pytest.mark.parametrize("bad, err, match", [
    ([("l10-ridge", 1)], TypeError, "answers must be a dict"),
    ({}, ValueError, "at least one"),
    ({"l10-nope": 1}, ValueError, "no self-test question"),
    ({3: 1}, TypeError, "qid"),
])
def test_score_validates(bad, err, match):
    with pytest.raises(err, match=match):
        selftest.score(bad)


def test_quiz_walks_the_questions_and_keeps_score(capsys):
    q = quiz.Quiz(["l10-ridge", "l10-weak-or-strong"])
    assert "Question 1 of 2" in q.prompt() and "FLOP/byte" in q.prompt()
    assert q.submit("14") is True
    with pytest.raises(ValueError, match="must be a number"):
        q.submit("twelve")
    assert q.next().qid == "l10-weak-or-strong"
    assert q.submit("b") is False
    assert q.summary() == "1 of 2 right (2 answered)"
    assert q.next().qid == "l10-ridge"


@pytest.mark.parametrize("bad, err", [("l10-ridge", TypeError), ([], ValueError), (["l10-nope"], ValueError)])
def test_quiz_validates(bad, err):
    with pytest.raises(err):
        quiz.Quiz(bad)


def test_quiz_widget_checks_both_kinds(capsys):
    w = quiz.quiz_widget(["l10-weak-or-strong", "l10-ridge"])
    title, area, row, _ = w.children
    check, nxt, score = row.children
    assert "Weak" not in title.value and "scaling" in title.value
    check.click()
    assert "Pick or type" in capsys.readouterr().out
    area.children[0].value = "a"
    check.click()
    assert "Right" in capsys.readouterr().out and score.value.startswith("1 of 2")
    nxt.click()
    assert "ridge point" in title.value
    area.children[0].value = "99"
    check.click()
    assert "Not quite" in capsys.readouterr().out and score.value == "1 of 2 right (2 answered)"
    area.children[0].value = "abc"
    check.click()
    assert "must be a number" in capsys.readouterr().out


def test_whole_bank_quiz_by_default():
    assert len(quiz.Quiz().questions) == len(selftest.bank())


def test_selftest_exposes_the_quiz_widget():
    w = quiz.quiz_widget(["l10-ridge"])
    assert "ridge point" in w.children[0].value
    with pytest.raises(TypeError, match="qids"):
        quiz.quiz_widget("l10-ridge")


# An answer printed in an earlier cell, where the number is something else (a batch size of 256, a 100 ms
# service time), does not give the question away; each is named here with what the number is above it.
_SAME_NUMBER_ELSEWHERE = {
    "l01-batch-throughput": "3000 is a slider's upper end above",
    "lecture-amdahl-1pct": "100 appears as 100 ms and as 100.0% efficiency above",
    "l01-slo-batch": "256 is a batch size in the sweep above",
    "l05-strided-useful": "0.125 is the scale kernel's intensity in the table above",
    "l05-fma-chains": "4.00 is a datasheet ratio above",
    "l06-mm1-time": "100 appears as a rate and a count",
    "l09-concurrency-cap": "150 ms is a queueing time above",
}


def _forms(x):
    out = {f"{x:.{d}g}" for d in (2, 3, 4)} | {f"{x:.{d}f}" for d in (1, 2, 3)} | {f"{round(x):,}"}
    if abs(x - round(x)) < 1e-9:
        out.add(str(int(round(x))))
    if 0 < x < 1:                      # a fraction is printed as a percentage too
        out |= {f"{x:.0%}", f"{x:.1%}"}
    return {f for f in out if len(f.replace(",", "").replace(".", "").replace("-", "").lstrip("0")) >= 3}


def _words(text):
    """Lower-case words only: a choice's text as it could appear in a sentence above it."""
    import re

    return " ".join(re.findall(r"[a-z0-9]+(?:[.'][a-z0-9]+)*", text.lower()))


def test_no_self_test_is_answered_in_the_cells_above_it():
    import json
    import re

    from perfcourse.teach.lessons import LESSONS

    from .browser import ROOT

    given_away = []
    for lesson in LESSONS:
        nb = json.loads((ROOT / "notebooks" / lesson.notebook).read_text(encoding="utf-8"))
        above = ""
        for cell in nb["cells"]:
            source = "".join(cell["source"])
            for qid in re.findall(r'selftest\.ask\("([\w-]+)"\)', source):
                q = selftest.get(qid)
                if q.kind != "number":
                    right = _words(q.choices["abcdefghij".index(q.correct)])
                    if len(right.split()) >= 5 and right in _words(above):     # a term alone ('weak scaling') is fine
                        given_away.append(f"{lesson.notebook}: {qid}'s answer ({right!r}) is written above it")
                    continue
                if qid in _SAME_NUMBER_ELSEWHERE:
                    continue
                hits = [f for f in _forms(q.reference()) if re.search(r"(?<![\w.])" + re.escape(f) + r"(?![\w]|\.\d)",
                                                                     above)]
                if hits:
                    given_away.append(f"{lesson.notebook}: {qid} = {hits[0]} is shown above it")
            measured = "nbval-ignore-output" in cell.get("metadata", {}).get("tags", [])   # differs every run
            shown = "" if measured else json.dumps(cell.get("outputs", []), ensure_ascii=False)
            above += "\n" + source + "\n" + shown
    assert not given_away, given_away
