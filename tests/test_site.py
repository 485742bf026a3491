"""The static site and the presenter, without a browser."""

import html
import re
from pathlib import Path

import nbformat
import pytest

from perfcourse import cli
from perfcourse.cli import present, site
from perfcourse.teach.lessons import LESSONS

FIRST_TWO = LESSONS[:2]
ROOT = Path(__file__).resolve().parent.parent


def _lesson(folder, lesson, extra_cells=()):
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_markdown_cell(f"# {lesson.heading}\n\nSee [the next one]({LESSONS[1].notebook})."),
                *extra_cells]
    nbformat.write(nb, folder / lesson.notebook)
    return nb


def _widget_cell(nb):
    state = {
        "box": {"model_name": "VBoxModel", "state": {"children": ["IPY_MODEL_s", "IPY_MODEL_out"]}},
        "s": {"model_name": "FloatSliderModel", "state": {"description": "serial s", "value": 0.1}},
        "out": {"model_name": "OutputModel", "state": {"outputs": [
            {"output_type": "stream", "name": "stdout", "text": "speedup = 4.71x\n"}]}},
    }
    nb.metadata["widgets"] = {site.WIDGET_STATE: {"state": state, "version_major": 2, "version_minor": 0}}
    cell = nbformat.v4.new_code_cell("explorer(...)")
    cell.outputs = [nbformat.v4.new_output("display_data", data={
        site.WIDGET_VIEW: {"model_id": "box", "version_major": 2, "version_minor": 0}, "text/plain": "VBox()"})]
    return cell


def test_static_widgets_show_controls_and_stored_outputs():
    nb = nbformat.v4.new_notebook()
    nb.cells = [_widget_cell(nb)]
    site.static_widgets(nb)
    outs = nb.cells[0].outputs
    assert "serial s = 0.1" in outs[0]["data"]["text/html"]
    assert outs[1]["text"] == "speedup = 4.71x\n"


def test_render_writes_index_pages_and_rewrites_links(tmp_path):
    src = tmp_path / "nb"
    src.mkdir()
    for lesson in FIRST_TWO:
        _lesson(src, lesson)
    (src / "notes.ipynb").write_text("{}")  # not a lesson: left out
    written = site.render(src, tmp_path / "out", lessons=FIRST_TWO)
    assert [p.name for p in written] == ["index.html"] + [f"{x.stem}.html" for x in FIRST_TWO]
    first = written[1].read_text()
    assert f'href="{LESSONS[1].stem}.html"' in first
    assert ".ipynb" not in first.split("<body", 1)[1].split("<script", 1)[0]
    assert "All lessons" in first and f"{html.escape(LESSONS[1].heading)} &rarr;" in first
    index = written[0].read_text()
    assert index.index(html.escape(LESSONS[0].heading)) < index.index(html.escape(LESSONS[1].heading))


def test_bad_folders_are_reported(tmp_path):
    with pytest.raises(ValueError, match="not a folder"):
        site.lesson_paths(tmp_path / "missing")
    _lesson(tmp_path, LESSONS[0])
    with pytest.raises(ValueError, match=f"lacks lesson notebooks {LESSONS[1].notebook}, "):
        site.lesson_paths(tmp_path)
    assert site.lesson_paths(tmp_path, LESSONS[:1]) == [tmp_path / LESSONS[0].notebook]


def test_present_finds_lessons_and_builds_voila_command(tmp_path, capsys):
    _lesson(tmp_path, LESSONS[3])
    path = present.find_lesson(3, tmp_path)
    assert path.name == "03_amdahl.ipynb"
    cmd = present.voila_command(path, port=8899, no_browser=True)
    assert "voila" in cmd and "--port=8899" in cmd and "--strip_sources=True" in cmd
    with pytest.raises(ValueError, match="lesson 07 has no notebook 07_scaling_efficiency.ipynb"):
        present.find_lesson(7, tmp_path)
    with pytest.raises(ValueError, match="no lesson 12"):
        present.find_lesson(12, tmp_path)
    with pytest.raises(TypeError, match="lesson number"):
        present.find_lesson("3", tmp_path)


def test_present_reads_the_course_or_dir(tmp_path, capsys):
    assert cli.main(["present", "5", "--dry-run", "--no-browser", "--port", "8899"]) == 0
    out = capsys.readouterr().out
    assert str(ROOT / "notebooks" / "05_roofline.ipynb") in out and "--port=8899" in out
    (tmp_path / "notebooks").mkdir()
    _lesson(tmp_path / "notebooks", LESSONS[5])
    assert cli.main(["present", "5", "--dry-run", "--dir", str(tmp_path)]) == 0
    assert str(tmp_path / "notebooks" / "05_roofline.ipynb") in capsys.readouterr().out
    assert cli.main(["present", "4", "--dry-run", "--dir", str(tmp_path)]) == 2
    assert capsys.readouterr().err.startswith("perfcourse present: lesson 04 has no notebook")


def test_site_command(tmp_path, capsys, monkeypatch):
    for lesson in LESSONS:
        _lesson(tmp_path, lesson)
    monkeypatch.chdir(tmp_path)
    assert cli.main(["site", "--notebooks", str(tmp_path), "--out", "out"]) == 0
    assert f"wrote {len(LESSONS)} lesson pages and an index to {tmp_path / 'out' / 'index.html'}" in \
        capsys.readouterr().out
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == sorted(
        ["index.html", site.MATHJAX_DIR] + [f"{x.stem}.html" for x in LESSONS])


def test_site_folder_must_be_new_or_empty_unless_forced(tmp_path, capsys, monkeypatch):
    for lesson in LESSONS:
        _lesson(tmp_path, lesson)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "a-file").write_text("mine")
    assert cli.main(["site", "--notebooks", str(tmp_path), "--out", "a-file"]) == 2
    err = capsys.readouterr().err
    assert err == "perfcourse site: the site's folder 'a-file' is a file; name a new or empty folder\n"
    assert (tmp_path / "a-file").read_text() == "mine"

    (tmp_path / "used").mkdir()
    (tmp_path / "used" / "index.html").write_text("my own page")
    assert cli.main(["site", "--notebooks", str(tmp_path), "--out", "used"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("perfcourse site: the site's folder 'used' is not empty (it holds index.html); ") and \
        "--force" in err and err.count("\n") == 1
    assert (tmp_path / "used" / "index.html").read_text() == "my own page"
    assert cli.main(["site", "--notebooks", str(tmp_path), "--out", "used", "--force"]) == 0
    assert "perfcourse" in (tmp_path / "used" / "index.html").read_text()

    (tmp_path / "empty").mkdir()
    assert cli.main(["site", "--notebooks", str(tmp_path), "--out", "empty"]) == 0
    with pytest.raises(ValueError, match=r"not empty \(it holds 00_start_here.html, 01_latency_throughput.html, "
                       r"02_work_span.html and \d+ more\)"):
        site.check_out(tmp_path / "empty")
    with pytest.raises(TypeError, match="out must be a folder's path"):
        site.check_out(None)


def test_pages_load_nothing_from_the_network(tmp_path):
    src = tmp_path / "nb"
    src.mkdir()
    nb = _lesson(src, LESSONS[0], [nbformat.v4.new_markdown_cell(r"Amdahl: $S = \frac{1}{s + (1-s)/N}$")])
    nb.cells.append(_widget_cell(nb))
    nbformat.write(nb, src / LESSONS[0].notebook)
    written = site.render(src, tmp_path / "out", lessons=LESSONS[:1])
    page = written[1].read_text(encoding="utf-8")
    loaded = re.findall(r"""<(?:script|link|img|iframe)\b[^>]*\b(?:src|href)=["']([^"']+)""", page)
    assert loaded and not [u for u in loaded if re.match(r"(https?:)?//", u)], loaded
    assert 'src="mathjax/MathJax.js?config=TeX-AMS-MML_HTMLorMML-full,Safe"' in page
    assert "require.js" not in page and "mermaid" not in page and site.WIDGET_STATE not in page
    assert r"\frac{1}{s + (1-s)/N}" in page and "serial s = 0.1" in page
    mathjax = tmp_path / "out" / site.MATHJAX_DIR
    assert (mathjax / "MathJax.js").is_file() and (mathjax / "config" / "TeX-AMS-MML_HTMLorMML-full.js").is_file()
    assert list((mathjax / "fonts" / "HTML-CSS" / "STIX-Web" / "woff").glob("*.woff"))


def test_missing_mathjax_is_reported(tmp_path, monkeypatch, capsys):
    for lesson in LESSONS:
        _lesson(tmp_path, lesson)
    monkeypatch.setattr(site.importlib.util, "find_spec", lambda name: None)
    with pytest.raises(FileNotFoundError, match="jupyter-server-mathjax"):
        site.mathjax_source()
    assert cli.main(["site", "--notebooks", str(tmp_path), "--out", str(tmp_path / "out")]) == 1
    err = capsys.readouterr().err
    assert err.startswith("perfcourse site: the static site needs MathJax's files") and err.count("\n") == 1
    assert not (tmp_path / "out").exists()


def _html_tag(page):
    return re.search(r"<html\b[^>]*>", page, re.IGNORECASE).group(0)


def test_every_page_declares_its_language_chinese_ones_zh(tmp_path):
    """nbconvert writes <html lang="en"> on every page it renders; a Chinese lesson page must say zh instead."""
    src = tmp_path / "nb"
    (src / "zh").mkdir(parents=True)
    for lesson in FIRST_TWO:
        _lesson(src, lesson)
        _lesson(src / "zh", lesson)
    written = site.render(src, tmp_path / "out", lessons=FIRST_TWO)
    chinese = [p for p in written if p.parent.name == "zh"]
    assert [p.name for p in chinese] == ["index.html"] + [f"{x.stem}.html" for x in FIRST_TWO]
    for page in written:
        tag = _html_tag(page.read_text(encoding="utf-8"))
        assert len(re.findall(r"\blang=", tag)) == 1, (page, tag)
        assert f'lang="{"zh" if page in chinese else "en"}"' in tag.replace("'", '"'), (page, tag)


@pytest.mark.parametrize("page, expected", [
    ('<!DOCTYPE html>\n<html lang="en">\n<head>', '<html lang="zh">'),
    ("<html><head>", '<html lang="zh">'),
    ('<HTML class="x" LANG=en-US xml:lang="en" data-a="1">', '<html lang="zh" class="x" data-a="1">'),
])
def test_declare_language_replaces_whatever_the_page_said(page, expected):
    assert _html_tag(site.declare_language(page, "zh")) == expected
    assert site.declare_language(page, "zh").count("<html") + site.declare_language(page, "zh").count("<HTML") == 1
