"""Lesson 10's stored calibration record is the one the stored lessons printed: one full run, lesson 10 last."""

import json
import re

from perfcourse.teach.lessons import LESSONS

from .browser import ROOT

_RECORD = re.compile(r"^prediction (\d\d-[\w.-]+) \(")
_MODEL = re.compile(r"model/measured = ([0-9.e+-]+)")


def _text(nb):
    out = []
    for cell in nb["cells"]:
        for o in cell.get("outputs", []):
            if o.get("output_type") == "stream":
                out.append("".join(o["text"]) if isinstance(o["text"], list) else o["text"])
    return "".join(out)


def printed_records(nb):
    """``{key: (model/measured as printed, noisy)}``: each prediction a lesson's stored outputs show, the last one.

    A prediction this machine could not measure prints "measured none here" and reads ``(None, False)``.
    """
    found, key = {}, None
    for line in _text(nb).splitlines():
        m = _RECORD.match(line)
        if m:
            key = m.group(1)
            continue
        if key and "model/measured" in line:
            found[key] = (_MODEL.search(line).group(1), "(no verdict" in line)
            key = None
        elif key and line.split()[:3] == ["measured", "none", "here:"]:
            found[key], key = (None, False), None
    return found


def named_in_summary(nb, what):
    """The keys lesson 10's summary names as left out for ``what`` ("could not be judged" or "no measurement")."""
    m = re.search(re.escape(what) + r".*?\((\d\d-[^)]*)\)", _text(nb))
    return set(m.group(1).split(", ")) if m else set()


def calibration_table(nb, *, judged=True):
    """``{key: model/measured}`` from the table lesson 10 prints under its header line.

    With ``judged=False`` every row, those left out too (their last column says why).
    """
    rows, inside = {}, False
    for line in _text(nb).splitlines():
        if line.startswith("prediction") and "model/measured" in line and "guess/measured" in line:
            inside, rows = True, {}
            continue
        if inside:
            parts = line.split()
            if len(parts) < 3 or not re.match(r"\d\d-", parts[0]):
                inside = False
                continue
            if not judged or re.fullmatch(r"[0-9.e+-]+", parts[-1]):
                rows[parts[0]] = parts[-1]
    return rows


def test_lesson_10_lists_every_steady_record_the_lessons_print_with_the_same_ratio():
    printed = {}
    for lesson in LESSONS:
        if lesson.number == 10:
            continue
        nb = json.loads((ROOT / "notebooks" / lesson.notebook).read_text(encoding="utf-8"))
        printed.update(printed_records(nb))
    table = calibration_table(json.loads((ROOT / "notebooks" / "10_self_test.ipynb").read_text(encoding="utf-8")))
    steady = {k: ratio for k, (ratio, noisy) in printed.items() if ratio is not None and not noisy}
    assert len(printed) >= 15, f"the stored lessons print {len(printed)} predictions"
    assert set(table) == set(steady), (f"in lesson 10 only: {sorted(set(table) - set(steady))}; "
                                       f"printed but not in lesson 10: {sorted(set(steady) - set(table))}")
    wrong = {k: (steady[k], table[k]) for k in table if float(steady[k]) != float(table[k])}
    assert not wrong, f"model/measured printed by the lesson against lesson 10's: {wrong}"


def test_lesson_10_names_every_prediction_it_leaves_out():
    printed = {}
    for lesson in LESSONS:
        if lesson.number != 10:
            printed.update(printed_records(json.loads((ROOT / "notebooks" / lesson.notebook).read_text("utf-8"))))
    nb = json.loads((ROOT / "notebooks" / "10_self_test.ipynb").read_text(encoding="utf-8"))
    noisy = {k for k, (ratio, is_noisy) in printed.items() if is_noisy}
    unmeasured = {k for k, (ratio, _) in printed.items() if ratio is None}
    assert unmeasured, "lesson 05 prints at least one prediction a CPU cannot measure"
    assert named_in_summary(nb, "could not be judged") == noisy
    assert named_in_summary(nb, "no measurement on this machine") == unmeasured
    shown = set(calibration_table(nb)) | noisy | unmeasured
    assert shown == set(printed), f"printed but not accounted for in lesson 10: {sorted(set(printed) - shown)}"
    listed = calibration_table(nb, judged=False)          # the table itself lists every prediction, once
    assert set(listed) == set(printed), sorted(set(printed) ^ set(listed))
    assert all(listed[k] == "noisy" for k in noisy) and all(listed[k] == "measurable" for k in unmeasured)


def test_the_parsers_read_what_record_and_the_table_print(tmp_path, monkeypatch):
    from perfcourse.measure.samples import Timing
    from perfcourse.teach import predictions

    monkeypatch.setenv("PERFCOURSE_HOME", str(tmp_path))
    steady = Timing.from_samples([1.00, 1.01, 0.99, 1.02, 1.00, 0.98], name="t")
    noisy = Timing.from_samples([1.0, 1.6, 0.7, 1.3, 0.9, 1.8], name="t")
    a = predictions.record("01-a", guess=None, model=2.0, measured=1.6, unit="ms", about="x", timing=steady, show=False)
    b = predictions.record("02-b", guess=3.0, model=1.0, measured=1.1, unit="x", about="y", timing=noisy, show=False)
    c = predictions.record("05-c", guess=None, model=4.8, measured=None, unit="TB/s", about="z",
                           unmeasured="no H200 here", show=False)
    cal = predictions.calibration(predictions.load())
    text = f"{a}\n{b}\n{c}\n{cal.summary()}\n{cal.table()}\n"
    nb = {"cells": [{"outputs": [{"output_type": "stream", "text": text}]}]}
    assert printed_records(nb) == {"01-a": ("1.25", False), "02-b": ("0.909", True), "05-c": (None, False)}
    assert calibration_table(nb) == {"01-a": "1.25"}
    assert calibration_table(nb, judged=False) == {"01-a": "1.25", "02-b": "noisy", "05-c": "measurable"}
    assert named_in_summary(nb, "could not be judged") == {"02-b"}
    assert named_in_summary(nb, "no measurement on this machine") == {"05-c"}
