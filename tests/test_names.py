"""Every ``perfcourse.x.y`` that the course names, in docstrings, messages, the README, the guides, the lessons
and their catalogs, is where it says: a module that imports, or something in one. Short names (``pc.laws``)
are for code; a sentence names the module where it lives (``perfcourse.models.laws``)."""

import importlib
import re
from pathlib import Path

import perfcourse

ROOT = Path(__file__).resolve().parent.parent
NAME = re.compile(r"\bperfcourse(?:\.[A-Za-z_][A-Za-z0-9_]*)+")
FILE_ENDINGS = {"py", "ipynb", "json", "po", "cu", "md", "txt"}
NOT_MODULES = {"perfcourse.exercise"}   # a notebook's metadata key (metadata.perfcourse.exercise)


def _sources():
    yield from (ROOT / "perfcourse").rglob("*.py")
    yield from (ROOT / "perfcourse" / "locale").rglob("*.po")
    yield from (ROOT / "notebooks").rglob("*.ipynb")
    yield from (ROOT / "docs").glob("*.md")
    yield ROOT / "README.md"


def _real(name):
    """True when ``name`` is a module, or an attribute of one, at its own path (not a lazy short name)."""
    parts = name.split(".")
    for k in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:k]))
        except ImportError:
            continue
        if k == 1 and len(parts) > 1 and parts[1] in perfcourse.ALIASES:
            return False
        try:
            for attr in parts[k:]:
                obj = getattr(obj, attr)
        except AttributeError:
            return False
        return True
    return False


def test_every_perfcourse_name_the_course_writes_is_real():
    wrong = set()
    for path in _sources():
        if "__pycache__" in path.parts:
            continue
        for name in set(NAME.findall(path.read_text(encoding="utf-8"))):
            if name.rsplit(".", 1)[1] in FILE_ENDINGS or name in NOT_MODULES:
                continue
            if not _real(name):
                wrong.add(f"{path.relative_to(ROOT)}: {name}")
    assert not wrong, "\n".join(sorted(wrong))


def test_the_check_catches_a_short_name_and_a_missing_one():
    assert _real("perfcourse.models.laws.karp_flatt") and _real("perfcourse.labs.mpi_step")
    assert not _real("perfcourse.mpi_step") and not _real("perfcourse.laws") and not _real("perfcourse.models.nope")
