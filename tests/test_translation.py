"""The Chinese edition's machinery: the language, the catalogs, extraction, generation and `perfcourse translate`.

These tests use temporary copies and made-up translations; the real catalogs and notebooks are checked
in tests/test_translation_edition.py.
"""

from __future__ import annotations

import gettext
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import polib
import pytest

from perfcourse import _lang, cli
from perfcourse.cli import course, lab, present, site
from perfcourse.teach import catalog, edition, extract, selftest, verdicts, widgets
from perfcourse.teach.lessons import LESSONS

ROOT = Path(__file__).resolve().parent.parent
LESSON = ROOT / "notebooks" / "03_amdahl.ipynb"


@pytest.fixture
def english(monkeypatch):
    """No language chosen by the environment."""
    for var in (_lang.ENV, "JPY_SESSION_NAME", _lang.ENV_LOCALE):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setattr(_lang, "_TABLES", {})


def _po(entries, path):
    """Write a catalog of ``(msgctxt, msgid, msgstr, flags)`` to ``path``."""
    po = catalog.new_catalog("zh", "test")
    for ctxt, msgid, msgstr, flags in entries:
        po.append(polib.POEntry(msgctxt=ctxt, msgid=msgid, msgstr=msgstr, flags=list(flags)))
    path.parent.mkdir(parents=True, exist_ok=True)
    po.save(str(path))
    path.with_suffix(".mo").write_bytes(catalog.compiled(po))     # what perfcourse translate compiles


@pytest.fixture
def chinese(english, tmp_path, monkeypatch):
    """Chinese on, with a small message catalog and question catalog of our own."""
    _po([(None, "close (within {band:g}x)", "接近（{band:g}x 以内）", ()),
         (None, "{ratio:.3g}x too high", "高了 {ratio:.3g}x", ("fuzzy",)),           # fuzzy: not used
         (None, "{ratio:.3g}x too low", "低了 {wrong}x", ()),                        # other fields: not used
         (None, "serial s", "串行比例 s", ()), (None, "steady", "平稳", ()),
         (None, "Right. [{qid}] {why}", "正确。[{qid}] {why}", ())], tmp_path / "zh" / "LC_MESSAGES" / "messages.po")
    _po([("l03-limit-5pct#why", selftest.get("l03-limit-5pct").why, "串行的 5% 永远不会缩短。", ())],
        tmp_path / "zh" / "LC_MESSAGES" / "questions.po")
    monkeypatch.setenv(_lang.ENV_LOCALE, str(tmp_path))
    monkeypatch.setenv(_lang.ENV, "zh")


# --- which language -------------------------------------------------------------------------------------------

@pytest.mark.parametrize("value, lang", [("zh", "zh"), ("zh_CN", "zh"), ("zh-CN", "zh"), ("en", "en")])
def test_the_variable_chooses_the_language(english, monkeypatch, value, lang):
    monkeypatch.setenv(_lang.ENV, value)
    assert _lang.current() == lang


def test_an_unknown_language_names_the_allowed_ones(english, monkeypatch):
    monkeypatch.setenv(_lang.ENV, "fr")
    with pytest.raises(ValueError, match="PERFCOURSE_LANG must be one of en, zh, zh_CN or zh-CN .*'fr'"):
        _lang.current()


def test_a_notebook_in_a_zh_folder_reads_chinese(english, monkeypatch, tmp_path):
    assert _lang.current() == "en"
    (tmp_path / "zh").mkdir()
    monkeypatch.chdir(tmp_path / "zh")
    assert _lang.current() == "zh"
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("JPY_SESSION_NAME", "notebooks/zh/03_amdahl.ipynb")
    assert _lang.current() == "zh"
    monkeypatch.setenv("JPY_SESSION_NAME", "notebooks/03_amdahl.ipynb")
    assert _lang.current() == "en"
    monkeypatch.setenv(_lang.ENV, "en")          # the variable wins over the folder
    monkeypatch.chdir(tmp_path / "zh")
    assert _lang.current() == "en"


def test_messages_are_translated_only_when_sound(chinese):
    assert verdicts.closeness(1.1) == "接近（1.25x 以内）"
    assert verdicts.closeness(2.0) == "2x too high"        # fuzzy translation: English
    assert verdicts.closeness(0.25) == "4x too low"        # translation with other {fields}: English
    assert _lang._("close (within {band:g}x)", lang="en") == "close (within {band:g}x)"


def test_widget_labels_and_words_follow_the_language(chinese):
    assert widgets.slider("serial s", 0.0, 0.5, 0.1).description == "串行比例 s"
    pick = widgets.dropdown("arrivals", ["steady", "bursts of 8"], "bursts of 8")
    assert pick.options == (("平稳", "steady"), ("bursts of 8", "bursts of 8")) and pick.value == "bursts of 8"
    assert pick.description == "arrivals"                  # not translated yet: English


def test_selftest_shows_the_chinese_question_text(chinese, capsys):
    assert selftest.check("l03-limit-5pct", 20)
    assert capsys.readouterr().out == "正确。[l03-limit-5pct] 串行的 5% 永远不会缩短。\n"


# --- extraction ---------------------------------------------------------------------------------------------------

def test_messages_are_found_in_the_source_and_the_lessons():
    found = extract.package_messages(ROOT / "perfcourse")
    for message in ("close (within {band:g}x)", "computing ...", "Pick or type an answer first.",
                    "CuPy not installed", "All lessons"):
        assert message in found, message
    assert found["close (within {band:g}x)"][0][0] == "perfcourse/teach/verdicts.py"
    labels = extract.widget_labels(nbformat.read(LESSON, as_version=4), "notebooks/03_amdahl.ipynb")
    assert {"serial s", "workers N"} <= set(labels)
    with pytest.raises(ValueError, match=r"x\.py, line 1: _\(\) must be given string literals"):
        extract.source_messages('_(f"{n} workers")', "x.py")
    with pytest.raises(ValueError, match=r"x\.py, line 2: ngettext\(\) must be given string literals"):
        extract.source_messages('a = 1\nngettext("{n} step", plural, n)', "x.py")
    with pytest.raises(ValueError, match=r"x\.py, line 1: a translated message inside an f-string"):
        extract.source_messages('print(f"{_(\'Check\')}: {x}")', "x.py")
    # gettext.ngettext picks English by count, for text that is never translated: not a catalog message
    assert extract.source_messages('gettext.ngettext("{n} step", "{n} steps", n)\n_("Check")', "x.py") == {
        "Check": [("x.py", None)]}


def test_a_data_table_s_phrases_are_collected_and_printed_in_chinese(english, monkeypatch):
    from perfcourse.models import datasheets, published

    rows = published.table()
    sheets = [datasheets.datasheet(n).source for n in datasheets.names()]
    found = extract.data_phrases()
    assert {p for r in rows for p in (r.quantity, r.what)} | set(sheets) == set(found), "these phrases, no more"
    assert found["STREAM triad bandwidth"][0] == ("perfcourse/models/data/published.json", None)
    assert found[sheets[0]][0] == ("perfcourse/models/data/datasheets.json", None)
    monkeypatch.setenv(_lang.ENV, "zh")            # the course's own catalog: each description reads Chinese
    han = re.compile(r"[\u4e00-\u9fff]")
    assert all(han.search(_lang.phrase(r.what)) for r in rows), [_lang.phrase(r.what) for r in rows]
    assert all(han.search(_lang.phrase(s)) for s in sheets if "(" in s), "a datasheet's notes read Chinese"
    assert _lang.phrase("no such phrase") == "no such phrase"
    assert _lang.lookup("") == "" and _lang.phrase("") == "", "an empty text stays empty, not the catalog's header"
    with pytest.raises(TypeError, match="phrase"):
        _lang.phrase(None)


def test_a_list_is_joined_as_the_language_lists_names(english, monkeypatch):
    from perfcourse import claims

    assert _lang.listing(["workload", "batch"]) == "workload, batch"
    monkeypatch.setenv(_lang.ENV, "zh")            # the course's own catalog
    assert _lang.listing(["workload", "batch", "shape"]) == "workload、batch、shape"
    assert _lang.listing(["p50"]) == "p50" and _lang.listing(iter([])) == ""
    with pytest.raises(ValueError, match="workload、batch、shape、dtype、percentile"):
        claims.state_speedup(3)
    with pytest.raises(TypeError, match="listing"):
        _lang.listing([1, 2])


def test_a_noise_note_in_chinese_is_spaced_as_chinese(english, monkeypatch):
    from perfcourse.measure.samples import Timing

    monkeypatch.setenv(_lang.ENV, "zh")            # the course's own catalog
    loud = Timing.from_samples([1.0, 1.6, 0.7, 1.3, 0.9, 1.8], name="求和（库函数）")
    note = verdicts.noise_note(loud)
    assert "求和（库函数）的 IQR/median" in note and "） 的" not in note, note
    assert verdicts.judged("接近", loud) == note


def test_message_catalog_update_keeps_a_near_translation_as_fuzzy():
    cat = extract.new_message_catalog("zh")
    extract.merge_messages(cat, {"Check": [("a.py", None)], "{n} workers were slower": [("a.py", None)]})
    cat.get("{n} workers were slower").string = "{n} 个 worker 更慢"
    counts = extract.merge_messages(cat, {"Check": [("a.py", None)],
                                          "{n} workers were slower here": [("a.py", None)]})
    assert counts == (0, 1, 1)
    entry = cat.get("{n} workers were slower here")
    assert entry.string == "{n} 个 worker 更慢" and entry.fuzzy
    assert extract.message_problems(cat, {"{n} workers were slower here": [("a.py", None)]}, "m.po") == [
        "m.po: message '{n} workers were slower here' (used in a.py): fuzzy (the English changed since it was "
        "translated)"]


def test_plural_messages_take_their_form_from_the_catalogs_rule(english, tmp_path, monkeypatch):
    cat = extract.new_message_catalog("zh")
    plural = ("{n} step", "{n} steps")
    extract.merge_messages(cat, {plural: [("a.py", None)]})
    assert cat.num_plurals == 1 and cat.get(plural[0]).id == plural
    assert extract.message_problems(cat, {plural: [("a.py", None)]}, "m.po") == [
        "m.po: message '{n} step' (used in a.py): not translated yet"]
    cat.get(plural[0]).string = ("{k} 步",)
    assert "differ from the English" in extract.message_problems(cat, {plural: [("a.py", None)]}, "m.po")[0]
    cat.get(plural[0]).string = ("{n} 步",)
    assert extract.message_problems(cat, {plural: [("a.py", None)]}, "m.po") == []
    path = tmp_path / "zh" / "LC_MESSAGES" / "messages.po"
    path.parent.mkdir(parents=True)
    from babel.messages.pofile import write_po

    with path.open("wb") as f:
        write_po(f, cat)
    path.with_suffix(".mo").write_bytes(catalog.compiled(polib.pofile(str(path))))
    monkeypatch.setenv(_lang.ENV_LOCALE, str(tmp_path))
    for n in (0, 1, 2, 5):
        assert _lang.ngettext(*plural, n, lang="en").format(n=n) == (f"{n} step" if n == 1 else f"{n} steps")
        assert _lang.ngettext(*plural, n, lang="zh").format(n=n) == f"{n} 步"
    assert _lang.ngettext("{n} box", "{n} boxes", 2, lang="zh") == "{n} boxes"   # not in the catalog: English
    with pytest.raises(TypeError, match="count must be a number"):
        _lang.ngettext(*plural, "3")


# --- generation ---------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("target, kind, moved", [
    ("../exercises/03_amdahl.ipynb", "lesson", "../../exercises/zh/03_amdahl.ipynb"),
    ("../exercises/", "lesson", "../../exercises/zh/"),
    ("04_gustafson.ipynb", "lesson", "04_gustafson.ipynb"),
    ("./02_work_span.ipynb#key-points", "lesson", "02_work_span.ipynb#key-points"),
    ("../notebooks/03_amdahl.ipynb", "exercise", "../../notebooks/zh/03_amdahl.ipynb"),
    ("03_amdahl.ipynb", "exercise", "03_amdahl.ipynb"),
    ("figures/roof.png", "lesson", "../figures/roof.png"),
    ("../docs/instructors.md", "exercise", "../../docs/instructors.md"),
    ("https://example.org/a.ipynb", "lesson", "https://example.org/a.ipynb"),
    ("#objectives", "lesson", "#objectives"),
])
def test_relative_links_work_from_the_zh_folder(target, kind, moved):
    assert edition.relocate(target, kind) == moved
    text = f'See [this]({target}), <a href="{target}">that</a>, and `[code]({target})`.'
    assert edition.rewrite_links(text, kind) == f'See [this]({moved}), <a href="{moved}">that</a>, and ' \
                                                f'`[code]({target})`.'


def _tiny():
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_markdown_cell("# 03 · Title\n\nSee [the exercise](../exercises/03_amdahl.ipynb)."),
                nbformat.v4.new_code_cell("print(1)"), nbformat.v4.new_code_cell("print(2)")]
    for cell, text in zip(nb.cells[1:], ("1\n", "2\n"), strict=True):
        cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text=text)]
    return nb


def _filled(nb):
    po = catalog.new_catalog("zh", "tiny")
    catalog.update(po, nb, "tiny.ipynb")
    for e in po:
        e.msgstr = e.msgid.replace("Title", "标题").replace("See", "参见")
    return po


def test_generated_lessons_keep_code_and_the_outputs_of_unchanged_cells():
    nb = _tiny()
    first = edition.generate(nb, _filled(nb), "lesson")
    assert first.cells[0].source == "# 03 · 标题\n\n参见 [the exercise](../../exercises/zh/03_amdahl.ipynb)."
    assert [c.source for c in first.cells[1:]] == ["print(1)", "print(2)"]
    assert all(c.outputs == [] for c in first.cells[1:])      # outputs come from running the Chinese lesson
    first.cells[1].outputs = first.cells[2].outputs = [nbformat.v4.new_output("stream", name="stdout", text="x")]
    nb.cells[2].source = "print(3)"
    again = edition.generate(nb, _filled(nb), "lesson", previous=first)
    assert again.cells[1].outputs and not again.cells[2].outputs
    assert edition.same_notebook(again, first) is False
    assert edition.same_notebook(again, edition.generate(nb, _filled(nb), "lesson"))
    exercise = edition.generate(nb, _filled(nb), "exercise", previous=first)
    assert all(c.outputs == [] for c in exercise.cells[1:]) and exercise.metadata.perfcourse.lang == "zh"
    empty = catalog.new_catalog("zh", "t")
    catalog.update(empty, nb, "t")
    with pytest.raises(ValueError, match=f"markdown cell {nb.cells[0].id!r}, paragraph 1: not translated yet"):
        edition.generate(nb, empty, "lesson")


# --- perfcourse translate on a copy -------------------------------------------------------------------------------

def _fake_fill(root):
    for path in (root / "perfcourse" / "locale" / "zh").rglob("*.po"):
        po = polib.pofile(str(path), wrapwidth=0)
        for e in po:
            if e.msgid_plural:
                e.msgstr_plural = {0: e.msgid_plural + " 【中】"}
            else:
                e.msgstr = e.msgid if e.msgid.lstrip().startswith(("```", "$$")) else e.msgid + " 【中】"
            e.flags = [f for f in e.flags if f != "fuzzy"]
        po.save(str(path))


@pytest.fixture
def course_copy(tmp_path):
    """A course of one lesson (a copy of lesson 03), its catalogs filled with made-up Chinese."""
    (tmp_path / "notebooks").mkdir()
    shutil.copy(LESSON, tmp_path / "notebooks" / LESSON.name)
    assert cli.main(["translate", "--root", str(tmp_path)]) == 0
    _fake_fill(tmp_path)
    assert cli.main(["translate", "--root", str(tmp_path)]) == 0
    return tmp_path


def test_translate_check_fails_naming_the_changed_cell(course_copy, capsys):
    root = course_copy
    capsys.readouterr()
    assert cli.main(["translate", "--root", str(root), "--check"]) == 0
    assert "complete and current" in capsys.readouterr().out
    zh = nbformat.read(root / "notebooks" / "zh" / LESSON.name, as_version=4)
    assert "【中】" in zh.cells[0].source and zh.metadata.perfcourse.lang == "zh"

    nb = nbformat.read(root / "notebooks" / LESSON.name, as_version=4)
    cell = next(c for c in nb.cells[1:] if c.cell_type == "markdown" and "\n\n" in c.source)
    cell.source = cell.source.replace("\n\n", "\n\nA new first sentence. ", 1)
    nbformat.write(nb, root / "notebooks" / LESSON.name)
    assert cli.main(["translate", "--root", str(root), "--check"]) == 1
    err = capsys.readouterr().err
    assert f"notebooks/03_amdahl.ipynb: markdown cell {cell.id!r}, paragraph 2: the English is new or changed" in err
    assert err.strip().splitlines()[-1].startswith("perfcourse translate: 1 problem in the Chinese edition")

    assert cli.main(["translate", "--root", str(root)]) == 0
    assert "03_amdahl.po: 0 new, 1 fuzzy, 0 dropped" in capsys.readouterr().out
    entry = next(e for e in polib.pofile(str(root / "perfcourse/locale/zh/LC_MESSAGES/notebooks/03_amdahl.po"))
                 if e.msgctxt == f"{cell.id}#1")
    assert "fuzzy" in entry.flags and entry.previous_msgid and entry.msgstr.endswith("【中】")
    assert cli.main(["translate", "--root", str(root), "--check"]) == 1
    assert f"markdown cell {cell.id!r}, paragraph 2: fuzzy" in capsys.readouterr().err


def test_translate_check_finds_stale_and_extra_notebooks(course_copy, capsys):
    root = course_copy
    target = root / "notebooks" / "zh" / LESSON.name
    zh = nbformat.read(target, as_version=4)
    zh.cells[1].source += "\n# edited by hand"
    nbformat.write(zh, target)
    shutil.copy(target, root / "notebooks" / "zh" / "99_orphan.ipynb")
    capsys.readouterr()
    assert cli.main(["translate", "--root", str(root), "--check"]) == 1
    err = capsys.readouterr().err
    assert "stale: notebooks/zh/03_amdahl.ipynb" in err and "extra: notebooks/zh/99_orphan.ipynb" in err
    assert cli.main(["translate", "--root", str(root), "--check", "--execute"]) == 2
    assert cli.main(["translate", "--root", str(root / "nowhere")]) == 2


def test_the_package_reads_the_catalogs_translate_compiled(course_copy, capsys):
    mo = course_copy / "perfcourse" / "locale" / "zh" / "LC_MESSAGES" / "messages.mo"
    english = "close (within {band:g}x)"
    assert gettext.GNUTranslations(mo.open("rb")).gettext(english) == english + " 【中】"     # the filled .po

    def retranslate(text):
        po = polib.pofile(str(mo.with_suffix(".po")), wrapwidth=0)
        po.find(english).msgstr = text
        po.save(str(mo.with_suffix(".po")))

    retranslate("接近（{band:g}x 以内）")
    capsys.readouterr()
    assert cli.main(["translate", "--root", str(course_copy), "--check"]) == 1
    assert "stale: perfcourse/locale/zh/LC_MESSAGES/messages.mo" in capsys.readouterr().err
    assert cli.main(["translate", "--root", str(course_copy)]) == 0
    assert cli.main(["translate", "--root", str(course_copy), "--check"]) == 0
    assert gettext.GNUTranslations(mo.open("rb")).gettext(english) == "接近（{band:g}x 以内）"
    retranslate("接近（{other}x 以内）")                        # other fields: left out, the English is shown
    assert cli.main(["translate", "--root", str(course_copy)]) == 0
    assert gettext.GNUTranslations(mo.open("rb")).gettext(english) == english


def test_chinese_output_needs_no_catalog_tool(tmp_path):
    # the GPU machine's Python has neither polib nor Babel: the package reads the compiled catalogs with gettext
    hidden = tmp_path / "hidden"
    hidden.mkdir()
    for name in ("polib", "babel"):
        (hidden / f"{name}.py").write_text(f"raise ImportError('no {name} here')\n")
    code = ("import perfcourse as pc; from perfcourse import glossary, _lang; "
            "print(_lang._('close (within {band:g}x)').format(band=1.25)); "
            "print(_lang.ngettext('copied {n} notebook into {work}', 'copied {n} notebooks into {work}', 3)"
            ".format(n=3, work='w')); "
            "print(glossary.lookup('span')[0].chinese[0]); print(pc.glossary.table().splitlines()[0])")
    env = {k: v for k, v in os.environ.items() if k not in (_lang.ENV_LOCALE, "JPY_SESSION_NAME")}
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                          env=dict(env, PYTHONPATH=str(hidden), PERFCOURSE_LANG="zh"))
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0] == "接近（1.25x 以内）" and lines[1] == "已向 w 复制 3 个 notebook"
    assert lines[2] == "关键路径（span）" and "中文" in lines[3]


# --- the commands and the course folder ----------------------------------------------------------------------------

def test_lab_and_present_open_the_chinese_edition(tmp_path, capsys):
    cmd = lab.lab_command(tmp_path, lang="zh")
    assert "--LabApp.default_url=/lab/tree/notebooks/zh/00_start_here.ipynb" in cmd
    assert cli.main(["lab", "--lang", "fr", "--dry-run"]) == 2
    assert "perfcourse lab: --lang: language must be one of en, zh" in capsys.readouterr().err
    (tmp_path / "notebooks" / "zh").mkdir(parents=True)
    shutil.copy(LESSON, tmp_path / "notebooks" / "zh" / LESSON.name)
    assert cli.main(["present", "3", "--lang", "zh", "--dry-run", "--dir", str(tmp_path)]) == 0
    assert str(tmp_path / "notebooks" / "zh" / LESSON.name) in capsys.readouterr().out
    assert cli.main(["present", "4", "--lang", "zh", "--dry-run", "--dir", str(tmp_path)]) == 2
    assert present.find_lesson(3, tmp_path / "notebooks" / "zh").parent.name == "zh"


def test_perfcourse_lang_zh_opens_the_chinese_edition_without_lang(english, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv(_lang.ENV, "zh")
    assert cli.main(["lab", "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert "--LabApp.default_url=/lab/tree/notebooks/zh/00_start_here.ipynb" in out
    assert (ROOT / "notebooks" / "zh" / "00_start_here.ipynb").is_file()
    assert cli.main(["lab", "--dry-run", "--lang", "en"]) == 0              # --lang still chooses
    assert "--LabApp.default_url=/lab/tree/notebooks/00_start_here.ipynb" in capsys.readouterr().out
    (tmp_path / "notebooks" / "zh").mkdir(parents=True)
    shutil.copy(LESSON, tmp_path / "notebooks" / "zh" / LESSON.name)
    assert cli.main(["present", "3", "--dry-run", "--dir", str(tmp_path)]) == 0
    assert str(tmp_path / "notebooks" / "zh" / LESSON.name) in capsys.readouterr().out
    monkeypatch.setenv(_lang.ENV, "en")
    assert cli.main(["lab", "--dry-run"]) == 0
    assert "/lab/tree/notebooks/00_start_here.ipynb" in capsys.readouterr().out
    shell = subprocess.run([sys.executable, "-m", "perfcourse", "lab", "--dry-run"], capture_output=True, text=True,
                           timeout=120, env={**os.environ, _lang.ENV: "zh"})      # as typed: PERFCOURSE_LANG=zh ...
    assert shell.returncode == 0 and "/lab/tree/notebooks/zh/00_start_here.ipynb" in shell.stdout, shell.stderr


def test_the_course_copy_carries_the_chinese_edition(tmp_path):
    for rel in ("notebooks/00_start_here.ipynb", "notebooks/zh/00_start_here.ipynb", "exercises/zh/03_amdahl.ipynb"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("{}")
    assert sorted(course._files(tmp_path)) == ["exercises/zh/03_amdahl.ipynb", "notebooks/00_start_here.ipynb",
                                               "notebooks/zh/00_start_here.ipynb"]


def test_site_renders_both_languages_with_a_switch(tmp_path):
    src = tmp_path / "nb"
    (src / "zh").mkdir(parents=True)
    for lesson in LESSONS[:2]:
        for folder, title in ((src, lesson.title), (src / "zh", "中文标题")):
            nb = nbformat.v4.new_notebook()
            nb.cells = [nbformat.v4.new_markdown_cell(f"# {lesson.number:02d} · {title}")]
            nbformat.write(nb, folder / lesson.notebook)
    written = site.render(src, tmp_path / "out", lessons=LESSONS[:2])
    assert [p.relative_to(tmp_path / "out").as_posix() for p in written] == [
        "index.html", f"{LESSONS[0].stem}.html", f"{LESSONS[1].stem}.html",
        "zh/index.html", f"zh/{LESSONS[0].stem}.html", f"zh/{LESSONS[1].stem}.html"]
    english, chinese = written[1].read_text(), written[4].read_text()
    assert f'hreflang="zh" href="zh/{LESSONS[0].stem}.html">中文</a>' in english
    assert f'hreflang="en" href="../{LESSONS[0].stem}.html">English</a>' in chinese
    assert 'src="../mathjax/MathJax.js' in chinese and 'src="mathjax/MathJax.js' in english
    assert "01 · 中文标题" in chinese and 'href="zh/index.html"' in written[0].read_text()


def test_the_catalogs_use_the_lecture_s_terms():
    """Every rendering the translators' guide rules out is absent from every Chinese catalog."""
    guide = (ROOT / "docs" / "translators.md").read_text(encoding="utf-8")
    rows = [line.split("|")[1:-1] for line in guide.splitlines() if line.startswith("| ") and "---" not in line]
    banned = {cells[2].strip(): cells[1].strip() for cells in rows[1:]}
    assert {"跨度", "Brent 定理"} <= set(banned), banned
    found = []
    for path in sorted((ROOT / "perfcourse" / "locale" / "zh").rglob("*.po")):
        for e in polib.pofile(str(path), wrapwidth=0):
            if (e.msgctxt or "").endswith("#names"):       # a glossary term's search aliases, after its lecture form
                continue
            texts = list(e.msgstr_plural.values()) if e.msgid_plural else [e.msgstr]
            found += [f"{path.name} {e.msgctxt or e.msgid[:40]!r}: {word} (write {banned[word]})"
                      for word in banned for t in texts if word in t]
    assert not found, found
