import functools
import re
import subprocess
import sys
from pathlib import Path

import nbformat
import polib
import pytest

from perfcourse import _lang, cli, glossary
from perfcourse.teach import catalog


def test_enough_terms_each_complete():
    assert len(glossary.TERMS) >= 30
    for t in glossary.TERMS:
        assert t.english and t.chinese and all(t.chinese)
        assert re.search(r"[\u4e00-\u9fff]", " ".join(t.chinese)), t.english
        assert t.definition.endswith(".") and len(t.definition) < 200
        assert t.lesson in glossary.LESSONS
    english = [t.english.lower() for t in glossary.TERMS]
    assert len(english) == len(set(english))


NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"


@functools.cache
def _notebook_text(name):
    """Every cell's source of a lesson notebook (markdown and code), as one string."""
    nb = nbformat.read(NOTEBOOKS / name, as_version=4)
    nbformat.validate(nb)
    return "\n".join(cell.source for cell in nb.cells)


def test_every_lesson_notebook_named_exists_in_the_syllabus_order():
    names = list(glossary.LESSONS.values())
    assert names == sorted(names) and names[0] == "00_start_here" and names[-1] == "11_serve_a_model"
    assert list(glossary.LESSONS) == list(range(len(names)))
    # the glossary names exactly the course's notebooks, and each opens on its own lesson's title
    assert sorted(p.stem for p in NOTEBOOKS.glob("*.ipynb")) == names
    for number, name in glossary.LESSONS.items():
        first = nbformat.read(NOTEBOOKS / f"{name}.ipynb", as_version=4).cells[0]
        assert first.cell_type == "markdown" and first.source.startswith(f"# {number:02d} · "), name


# Terms whose lesson teaches the idea under other words; the glossary entry (or the lesson) should
# name it. strict: once the notebook uses the term, the xfail fails and this list must shrink.
NOT_NAMED_IN_THEIR_LESSON = {
}


def _named(form, text):
    """``form`` as a word of ``text`` (case-insensitive; a plural ending allowed)."""
    return re.search(r"(?<!\w)" + re.escape(form) + r"(?:s|es)?(?!\w)", text, re.IGNORECASE) is not None


@pytest.mark.parametrize("term", [
    pytest.param(t, id=t.english, marks=pytest.mark.xfail(reason=NOT_NAMED_IN_THEIR_LESSON[t.english], strict=True))
    if t.english in NOT_NAMED_IN_THEIR_LESSON else pytest.param(t, id=t.english)
    for t in glossary.TERMS
])
def test_each_term_is_named_in_the_lesson_it_points_to(term):
    # one- and two-letter aliases (s, L, W, T1) would match almost any notebook: they do not count
    forms = [f for f in (term.english, *term.aliases) if len(f) > 2]
    assert forms, term.english
    text = _notebook_text(term.notebook)
    assert any(_named(f, text) for f in forms), f"{term.notebook} never names {forms}"


@pytest.mark.parametrize("chinese, english", [
    ("关键路径", "critical path"), ("并行度", "parallelism"), ("串行比例", "serial fraction"),
    ("吞吐", "throughput"), ("延迟", "latency"), ("带宽", "bandwidth"), ("尾延迟", "tail latency"),
    ("算术强度", "arithmetic intensity"), ("强扩展", "strong scaling"), ("弱扩展", "weak scaling"),
    ("排队", "queueing"), ("在途请求数", "in-flight requests"),
])
def test_chinese_terms_find_their_english_pair_first(chinese, english):
    assert glossary.lookup(chinese)[0].english == english


def test_both_efficiency_terms_lead_to_scaling_efficiency():
    for word in ("扩展效率", "并行效率", "Parallel Efficiency"):
        assert glossary.lookup(word)[0].english == "scaling efficiency"


def test_lookup_is_case_insensitive_partial_and_ranked():
    assert glossary.lookup("CRITICAL PATH")[0].english == "critical path"
    assert [t.english for t in glossary.lookup("intens")] == ["arithmetic intensity"]
    assert glossary.lookup("littles law")[0].english == "Little's law"
    assert glossary.lookup("work")[0].english == "work"      # exact match before "workload"
    assert "workload" in [t.english for t in glossary.lookup("work")]
    assert glossary.lookup("no such thing here") == []


@pytest.mark.parametrize("bad, err", [(None, TypeError), (3, TypeError), ("   ", ValueError)])
def test_lookup_validates(bad, err):
    with pytest.raises(err, match="text"):
        glossary.lookup(bad)


def test_describe_and_table():
    text = glossary.describe(glossary.lookup("critical path")[0])
    assert "关键路径" in text and "lesson 02" in text and "02_work_span.ipynb" in text
    table = glossary.table()
    assert len(table.splitlines()) == len(glossary.TERMS) + 1
    assert "在途请求数" in table
    with pytest.raises(TypeError, match="term"):
        glossary.describe("critical path")


def test_command_finds_lists_and_fails_helpfully(capsys):
    assert cli.main(["glossary", "critical", "path"]) == 0
    assert "关键路径" in capsys.readouterr().out
    assert cli.main(["glossary"]) == 0
    assert len(capsys.readouterr().out.splitlines()) == len(glossary.TERMS) + 1
    assert cli.main(["glossary", "critcal", "path"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("perfcourse glossary: ") and err.count("\n") == 1
    assert "No glossary term matches" in err and "critical path" in err and "perfcourse glossary" in err


def test_registered_in_the_cli(capsys):
    assert cli.main(["glossary", "尾延迟"]) == 0
    assert "tail latency" in capsys.readouterr().out
    assert cli.main(["glossary", "zzzz"]) == 1
    assert "No glossary term" in capsys.readouterr().err


def test_shell_command_in_either_language():
    res = subprocess.run([sys.executable, "-m", "perfcourse", "glossary", "关键路径"], capture_output=True,
                         text=True, timeout=120, encoding="utf-8")
    assert res.returncode == 0, res.stderr
    assert "critical path" in res.stdout



# --- the Chinese side: from the glossary catalog, and what `perfcourse glossary` prints under PERFCOURSE_LANG=zh -----

CJK = re.compile(r"[\u4e00-\u9fff]")


@pytest.fixture
def chinese(monkeypatch):
    monkeypatch.setenv("PERFCOURSE_LANG", "zh")
    monkeypatch.delenv("PERFCOURSE_LOCALE", raising=False)


def test_every_term_has_its_chinese_forms_and_definition_in_the_catalog():
    for t in glossary.TERMS:
        assert t.key and len({u.key for u in glossary.TERMS}) == len(glossary.TERMS)
        meaning = t.meaning("zh")
        assert CJK.search(meaning) and meaning != t.definition, t.english
    assert glossary.lookup("span")[0].chinese[0] == "关键路径（span）"      # the lecture's form first
    assert glossary.lookup("Brent")[0].chinese == ("Brent 界",)


def test_the_chinese_comes_from_the_catalog_not_from_the_code(tmp_path, monkeypatch):
    folder = tmp_path / "zh" / "LC_MESSAGES"
    folder.mkdir(parents=True)
    monkeypatch.setenv("PERFCOURSE_LOCALE", str(tmp_path))          # a catalog folder without glossary.po
    term = glossary.lookup("critical path")[0]
    assert term.chinese == () and term.meaning("zh") == term.definition
    assert glossary.lookup("关键路径") == []
    po = polib.POFile()
    po.append(polib.POEntry(msgctxt="critical-path#names", msgid="critical path", msgstr="临界路径 / 关键链"))
    po.append(polib.POEntry(msgctxt="critical-path#definition", msgid=term.definition, msgstr="一条定义。"))
    (folder / "glossary.mo").write_bytes(catalog.compiled(po))     # the file the package reads
    monkeypatch.setattr(_lang, "_TABLES", {})
    assert term.chinese == ("临界路径", "关键链") and term.meaning("zh") == "一条定义。"
    assert [t.english for t in glossary.lookup("关键链")] == ["critical path"]


def test_the_command_prints_chinese_under_perfcourse_lang_zh(chinese, capsys):
    assert cli.main(["glossary", "critical", "path"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out == ["critical path · critical path / 关键路径", "  必须一个接一个执行的最长运算链；它的长度就是 span。",
                   "  在第 02 课讲解（02_work_span.ipynb）。"]
    assert cli.main(["glossary"]) == 0
    table = capsys.readouterr().out.splitlines()
    assert table[0].split() == ["英文", "中文", "课"] and len(table) == len(glossary.TERMS) + 1
    starts = {_lang.width(row[:row.index(" / ".join(t.chinese))])
              for row, t in zip(table[1:], glossary.TERMS, strict=True)}
    assert starts == {_lang.width(table[0][:table[0].index("中文")])}      # the Chinese column lines up
    assert cli.main(["glossary", "critcal", "path"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("perfcourse glossary: 没有与 'critcal path' 匹配的术语。")
    assert "critical path" in err and f"可以列出全部 {len(glossary.TERMS)} 个术语" in err


def test_every_definition_reads_like_the_lecture(chinese):
    """Terms the lecture keeps in English stay English inside the Chinese definitions."""
    text = " ".join(t.meaning() for t in glossary.TERMS)
    for word in ("latency", "throughput", "batch", "speedup", "serial fraction", "kernel", "workload", "span"):
        assert word in text, word
    for rendering in ("延迟时间", "吞吐率", "加速比", "跨度", "内核"):
        assert rendering not in text, rendering
