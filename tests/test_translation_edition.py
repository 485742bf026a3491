"""The course's own Chinese edition: complete, current, and printing the English lessons' numbers.

`perfcourse translate --check` must pass on the checkout (CI runs it too): every catalog entry
translated and not fuzzy, `notebooks/zh/` and `exercises/zh/` as `perfcourse translate` writes
them. ``pytest notebooks/zh`` runs each Chinese lesson under nbval (CI runs it; see conftest.py); here each
one's checked cells must print the same numbers as its English twin's stored outputs, and no stored output of a
Chinese lesson may hold a sentence of English prose.
"""

from __future__ import annotations

import collections
import os
import re
import shutil
from pathlib import Path

import nbformat
import pytest

from perfcourse import cli
from perfcourse.grading.grade import grade
from perfcourse.grading.sandbox import bwrap_path
from perfcourse.teach.lessons import LESSONS

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = ROOT / "notebooks"
NUMBER = re.compile(r"[-+]?\d+(?:[.,]\d+)*(?:[eE][-+]?\d+)?")
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
UNSAFE = bwrap_path() is None and os.environ.get("PERFCOURSE_REQUIRE_BWRAP") != "1"


def test_the_chinese_edition_is_complete_and_current(capsys):
    code = cli.main(["translate", "--check"])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 0, f"{len(err) - 1} problems, e.g.:\n" + "\n".join(err[:15])


def printed(cell):
    """What a code cell printed: its streams, plain-text results and error names (not widget views)."""
    out = []
    for o in cell.get("outputs", []):
        if o["output_type"] == "stream":
            out.append(o["text"])
        elif o["output_type"] == "error":
            out.append(o["ename"])
        elif WIDGET_VIEW not in o.get("data", {}):
            out.append(o.get("data", {}).get("text/plain", ""))
    return "".join(out)


@pytest.mark.parametrize("lesson", LESSONS, ids=lambda x: x.stem)
def test_chinese_lessons_print_the_english_numbers(lesson):
    zh_path = NOTEBOOKS / "zh" / lesson.notebook
    assert zh_path.is_file(), f"notebooks/zh/{lesson.notebook} is missing: run  perfcourse translate --execute"
    english = nbformat.read(NOTEBOOKS / lesson.notebook, as_version=4)
    chinese = {c.get("id"): c for c in nbformat.read(zh_path, as_version=4).cells}
    checked = [c for c in english.cells if c.cell_type == "code" and "nbval-check-output" in c.metadata.get("tags", [])]
    assert checked, f"{lesson.notebook} has no checked cell"
    for cell in checked:
        twin = chinese.get(cell.id)
        assert twin is not None and twin.source == cell.source, f"cell {cell.id!r} differs in notebooks/zh"
        assert printed(twin) or not printed(cell), f"cell {cell.id!r} has no stored output in Chinese: run  " \
                                                   "perfcourse translate --execute"
        en, zh = (collections.Counter(NUMBER.findall(printed(c))) for c in (cell, twin))
        assert en == zh, f"{lesson.notebook}, cell {cell.id!r}: numbers only in English {sorted((en - zh).elements())}"\
                         f", only in Chinese {sorted((zh - en).elements())}"


@pytest.mark.slow
def test_an_exercise_and_its_chinese_twin_are_graded_once(tmp_path):
    """`perfcourse grade exercises/` grades each exercise once; a twin the learner worked in is the one graded."""
    exercises = tmp_path / "exercises"
    (exercises / "zh").mkdir(parents=True)
    source = ROOT / "exercises" / "03_amdahl.ipynb"
    shutil.copy(source, exercises / source.name)
    twin = nbformat.read(source, as_version=4)
    for cell in twin.cells:
        if cell.cell_type == "markdown":
            cell.source = "中文 " + cell.source
    nbformat.write(twin, exercises / "zh" / source.name)
    book = grade([exercises], progress=False, unsafe=UNSAFE)
    assert [s["submission"] for s in book["submissions"]] == [str(exercises / source.name)]
    assert not any("chosen among" in p for p in book["submissions"][0]["problems"])   # a twin is no rival

    solved = nbformat.read(ROOT / "solutions" / source.name, as_version=4)    # the learner worked in Chinese
    for cell, solution in zip(twin.cells, solved.cells, strict=True):
        if cell.cell_type == "code":
            cell.source = solution.source
    nbformat.write(twin, exercises / "zh" / source.name)
    book = grade([exercises], progress=False, unsafe=UNSAFE)
    graded = [s for s in book["submissions"] if s["exercise"]]
    assert [s["submission"] for s in graded] == [str(exercises / "zh" / source.name)]
    assert graded[0]["points"] == graded[0]["max_points"] > 0
    skipped, = [s for s in book["submissions"] if not s["exercise"]]
    assert "was graded instead" in skipped["problems"][0]


# Words a Chinese sentence keeps in English, as the lecture does (docs/translators.md), and words of the
# package's own vocabulary that are names rather than prose (a kernel's or a bound's name).
KEPT_ENGLISH = set("""
latency throughput batch batches speedup efficiency kernel kernels workload workloads token tokens budget serial
fraction strong weak scaling span prefill decode step steps roofline warp warps block blocks thread threads grid
stride cache worker workers rank ranks ring tree allreduce graph memory compute bound copy scale add triad sum ms us
ns float dtype bandwidth work percentile utilization baseline wall time occupancy reduction arithmetic intensity
queueing tail size max continuous batching scaled critical path static global local bus reduce gradient accumulation
""".split())
PROSE = re.compile(r"[a-z]{2,}|a")                 # one letter (n, x, e, s of B/s) is a symbol, not a word
NAME = r"'[^'\s]*'|[a-z0-9]+(?:-[a-z0-9]+){2,}|[A-Za-z_][A-Za-z0-9_.']*"   # a quoted key, a-hyphen-chain, a word
GAP = r"[\s,()\-/]+"                             # what may stand between the words of one run
TOKEN = re.compile(rf"{NAME}|{GAP}|.")


def _words(text):
    return re.sub(r"[^a-z]+", " ", text.lower()).strip()


def english_runs(line, *, names=frozenset(), cited=(), longest=3):
    """The runs of more than ``longest`` English words of prose in ``line``.

    A word of prose is a lowercase word of two letters or more (or "a") not in :data:`KEPT_ENGLISH`;
    capitalised words (names), identifiers (with digits, dots or underscores), quoted keys, hyphen chains of three
    parts or more (a question's id) and the words :data:`KEPT_ENGLISH` keeps are passed over; anything else (a
    Chinese character, a number, a colon) ends a run. A run that is one of ``names`` (the glossary's English terms,
    which lesson 10's table shows beside their Chinese) is allowed, and so are the words of a published source's
    title quoted in ``cited``.

    >>> english_runs("fastest at N = 10: useful output per thread there 100 µs against")
    ['useful output per thread there']
    >>> english_runs("在 4 个 worker 上 speedup 为 3.2x，p50 of the copy kernel")
    []
    >>> english_runs("('latency-throughput', 'amdahl', 'gustafson', 'little', 'work-span')")
    []
    >>> english_runs("尚未作答: lecture-amdahl-1pct, l10-claim-card")
    []
    """
    for source in cited:
        line = line.replace(source, "")
    runs, words, prose = [], [], 0
    for tok in TOKEN.findall(line) + ["。"]:
        if re.fullmatch(NAME, tok):
            words.append(tok)
            prose += bool(PROSE.fullmatch(tok)) and tok not in KEPT_ENGLISH
        elif not re.fullmatch(GAP, tok):
            run = " ".join(words)
            if prose > longest and _words(run) not in names:
                runs.append(run)
            words, prose = [], 0
    return runs


def _cited():
    from perfcourse.models import published

    found = [p.source for p in published.table()]     # a title; what was measured prints in Chinese (pc.phrase)
    return tuple(sorted({t for t in found if t}, key=len, reverse=True))


@pytest.mark.parametrize("lesson", LESSONS, ids=lambda x: x.stem)
def test_the_chinese_lessons_print_no_english_sentence(lesson):
    from perfcourse.teach.glossary import TERMS

    names = frozenset(_words(n) for t in TERMS for n in (t.english, *t.aliases))
    cited = _cited()
    chinese = nbformat.read(NOTEBOOKS / "zh" / lesson.notebook, as_version=4)
    found = [f"cell {cell.get('id')}: {line.strip()[:140]!r} holds {runs}"
             for cell in chinese.cells if cell.cell_type == "code"
             for line in printed(cell).splitlines() if (runs := english_runs(line, names=names, cited=cited))]
    assert not found, f"{len(found)} printed lines of notebooks/zh/{lesson.notebook} hold English prose:\n" + \
        "\n".join(found[:12])


def test_truth_values_and_answer_units_print_in_chinese(monkeypatch, capsys):
    import numpy as np

    from perfcourse import _lang, say, selftest

    monkeypatch.delenv(_lang.ENV_LOCALE, raising=False)
    for lang, yes, no in (("en", "True", "False"), ("zh", "是", "否")):
        monkeypatch.setenv(_lang.ENV, lang)
        assert say("sums right: walk {walk}, tree {tree}", walk=np.bool_(True), tree=False).endswith(
            f"（逐个累加 / 树形）：{yes} / {no}" if lang == "zh" else f"walk {yes}, tree {no}")
    selftest.ask("l02-tree-span")
    assert capsys.readouterr().out.splitlines()[0].endswith("（答案单位：次加法）")


def test_every_option_of_every_command_is_explained_in_chinese(monkeypatch):
    import argparse

    from perfcourse import _lang
    from perfcourse.cli import COMMANDS, build_parser

    monkeypatch.setenv(_lang.ENV, "zh")
    monkeypatch.delenv(_lang.ENV_LOCALE, raising=False)
    cjk = re.compile(r"[\u4e00-\u9fff]")
    english = []
    for name in COMMANDS:
        parser = build_parser(name)
        sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction)).choices[name]
        english += [f"{name} {a.dest}: {a.help}" for a in sub._actions
                    if a.dest != "help" and a.help and a.help is not argparse.SUPPRESS and not cjk.search(a.help)]
    assert not english, english


@pytest.mark.parametrize("lesson", LESSONS, ids=lambda x: x.stem)
def test_a_chinese_aside_follows_no_comma_or_colon(lesson):
    """A noise note standing where a verdict would reads "实测 75 ms（噪声太大……）", never "，（" or "：（"."""
    chinese = nbformat.read(NOTEBOOKS / "zh" / lesson.notebook, as_version=4)
    found = [f"cell {cell.get('id')}: {line.strip()[:140]!r}" for cell in chinese.cells if cell.cell_type == "code"
             for line in printed(cell).splitlines() if re.search(r"[，：；,:;] *（", line)]
    assert not found, f"{len(found)} printed lines of notebooks/zh/{lesson.notebook} splice an aside:\n" + \
        "\n".join(found[:12])


@pytest.mark.parametrize("edition", ["", "zh"])
@pytest.mark.parametrize("lesson", LESSONS, ids=lambda x: x.stem)
def test_a_noise_note_is_given_in_full_once_per_cell(lesson, edition):
    """A second verdict read off the same noisy timing points to the note above it; each pointer has one above."""
    pointer = re.compile(r"(too noisy to judge|too few samples to judge|噪声太大，暂不下结论|样本太少，无法判断)"
                         r"(?: \(see the note above\)|，见上文）)")
    notebook = nbformat.read(NOTEBOOKS / edition / lesson.notebook, as_version=4)
    for cell in notebook.cells:
        if cell.cell_type != "code":
            continue
        text = printed(cell)
        for found in pointer.finditer(text):
            above = text[:found.start()]
            assert re.search(re.escape(found.group(1)) + r"(?: ?[:：]|（| \((?!see the note above))", above), \
                f"notebooks/{edition}/{lesson.notebook} cell {cell.get('id')} points to a note it never gave"
        notes = re.findall(r"(?:too noisy to judge|too few samples to judge|噪声太大，暂不下结论) ?[:：][^\n）)]*"
                           r"|样本太少，无法判断（[^）]*）", text)
        repeated = [n for n, k in collections.Counter(notes).items() if k > 1]
        assert not repeated, f"notebooks/{edition}/{lesson.notebook} cell {cell.get('id')} repeats {repeated[0][:80]!r}"
