"""Published measurements: each with its source and date, never above its datasheet peak, and the only place
(with the datasheet table) a lesson's prose takes an H200 figure from."""

from __future__ import annotations

import json
import re

import pytest

import perfcourse as pc
from perfcourse.models import published

from .browser import ROOT

_ROW = dict(device="H200", quantity="q", value=1e12, unit="TB/s", peak="memory_bandwidth", what="w", source="s",
            url="https://example.org/", date="2025-01-01")
_RATE = re.compile(r"(\d[\d,]*(?:\.\d+)?)\s*(TB/s|GB/s|TFLOP/s|PFLOP/s)")
_SCALE = {"TB/s": 1e12, "GB/s": 1e9, "TFLOP/s": 1e12, "PFLOP/s": 1e15}


def test_every_row_names_its_source_date_and_what_was_run_and_stays_under_its_peak():
    rows = published.table()
    assert len(rows) >= 7
    for row in rows:
        assert row.url.startswith("https://") and re.fullmatch(r"20\d\d-\d\d-\d\d", row.date), row
        assert row.source and row.what and row.unit in _SCALE, row
        assert 0 < row.value <= row.peak_value == getattr(pc.datasheets.datasheet(row.device), row.peak), row
        assert 0 < row.share <= 1


@pytest.mark.parametrize("change, said", [
    (dict(value=4.81e12), "is above its datasheet memory_bandwidth"),
    (dict(value=0.0), "must be a positive number"),          # not a measurement at all
    (dict(peak="fp64"), "peak must be one of"),
    (dict(device="Tesla T4", peak="fp8"), "has no fp8 for Tesla T4"),
])
def test_a_row_the_datasheet_cannot_back_is_refused_by_name(change, said):
    with pytest.raises(ValueError, match=said):
        published.check([{**_ROW, **change}])
    assert published.check([_ROW])[0].share == pytest.approx(1e12 / 4.8e12)


def test_a_figure_is_found_by_the_drivers_name_and_an_unknown_one_is_named():
    assert published.figure("NVIDIA H200", "STREAM copy bandwidth").value == 4.01e12
    with pytest.raises(ValueError, match="STREAM triad bandwidth"):
        published.figure("H200", "STREAM scale bandwidth")
    assert published.for_device("Tesla T4") == [] and published.for_device("Some Future GPU") == []


def _h200_figures():
    """Every rate the English lessons' markdown writes after "H200" in the same sentence, in SI units."""
    found = []
    for path in sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb")):
        for cell in json.loads(path.read_text(encoding="utf-8"))["cells"]:
            if cell["cell_type"] != "markdown":
                continue
            for sentence in re.split(r"(?<=[.:;])\s+(?=[A-Z(`*])", " ".join("".join(cell["source"]).split())):
                if "H200" in sentence:
                    found += [(path.name[:2], float(n.replace(",", "")) * _SCALE[u], f"{n} {u}")
                              for n, u in _RATE.findall(sentence.split("H200", 1)[1])]
    return found


def test_every_h200_figure_in_a_lessons_prose_comes_from_the_datasheet_or_the_published_table():
    sheet = pc.datasheets.datasheet("H200")
    known = [getattr(sheet, name) for name in published.PEAKS if getattr(sheet, name)]
    known += [row.value for row in published.for_device("H200")]
    figures = _h200_figures()
    assert figures, "the lessons' prose names H200 figures (the datasheet's 4.8 TB/s at least)"
    for lesson, value, text in figures:
        assert any(abs(value - k) <= 0.005 * k for k in known), f"lesson {lesson} writes {text} of an H200"


def test_lesson_05_shows_every_published_figure_with_its_source_and_date():
    nb = json.loads((ROOT / "notebooks" / "05_roofline.ipynb").read_text(encoding="utf-8"))
    cells = [c for c in nb["cells"] if "pc.published." in "".join(c["source"])]
    shown = "".join("".join(o.get("text", "")) for c in cells for o in c["outputs"])
    for row in published.for_device("H200"):
        assert row.quantity in shown and f"{row.source}, {row.date}" in shown, row.quantity
    assert "published:" in shown and "measured     none here" in shown
