"""What learners see in a stored notebook's code: only the lesson's code.

nbval reads cell tags (``nbval-check-output``, ``nbval-ignore-output``), so no code cell starts
with an ``# NBVAL_...`` comment, and a self-test cell shows the checker's sentence without a
bare ``True`` or ``False`` under it.
"""

import re
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parent.parent
STORED = sorted(p for folder in ("notebooks", "notebooks/zh", "exercises", "exercises/zh", "solutions")
                for p in (ROOT / folder).glob("*.ipynb"))


@pytest.mark.parametrize("path", STORED, ids=lambda p: str(p.relative_to(ROOT)))
def test_code_cells_hold_only_code_and_their_checks_are_tags(path):
    nb = nbformat.read(path, as_version=4)
    for cell in (c for c in nb.cells if c.cell_type == "markdown"):      # nor does the prose tell of them
        assert "NBVAL_" not in cell.source, f"{path.name}: {cell.source[:80]!r}"
    for cell in (c for c in nb.cells if c.cell_type == "code"):
        assert not re.match(r"\s*#\s*NBVAL", cell.source, re.I), f"{path.name}: {cell.source[:60]!r}"
        assert not re.search(r"\[us\]|\} us\b", cell.source), f"{path.name}: microseconds are spelled µs"
        tags = set(cell.metadata.get("tags", []))
        assert len(tags & {"nbval-check-output", "nbval-ignore-output"}) <= 1, (path.name, tags)
        lines = [line for line in cell.source.splitlines() if line.strip()]
        if lines and lines[-1].startswith("pc.selftest.check("):
            shown = [o for o in cell.get("outputs", []) if o.get("output_type") == "execute_result"]
            assert shown == [], f"{path.name}: a self-test cell shows its bare result {shown}"


def test_the_lessons_still_check_outputs():
    lessons = [p for p in STORED if p.parent.name == "notebooks"]
    checked = sum("nbval-check-output" in c.metadata.get("tags", [])
                  for p in lessons for c in nbformat.read(p, as_version=4).cells if c.cell_type == "code")
    assert checked >= 10 * len(lessons), checked
