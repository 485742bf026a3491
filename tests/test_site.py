"""The static site and the presenter, without a browser."""

import nbformat
import pytest

from perfcourse import cli
from perfcourse.cli import present, site


def _lesson(folder, name, heading, extra_cells=()):
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_markdown_cell(f"# {heading}\n\nSee [the next one](01_next.ipynb)."), *extra_cells]
    nbformat.write(nb, folder / name)
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
    _lesson(src, "00_first.ipynb", "00 · First")
    _lesson(src, "01_next.ipynb", "01 · Next")
    (src / "notes.ipynb").write_text("{}")  # not a lesson: left out
    written = site.render(src, tmp_path / "out")
    assert [p.name for p in written] == ["index.html", "00_first.html", "01_next.html"]
    first = written[1].read_text()
    assert 'href="01_next.html"' in first and ".ipynb" not in first.split("<body", 1)[1].split("<script", 1)[0]
    assert "All lessons" in first and "01 · Next &rarr;" in first
    index = written[0].read_text()
    assert index.index("00 · First") < index.index("01 · Next")


def test_bad_folders_are_reported(tmp_path):
    with pytest.raises(ValueError, match="not a folder"):
        site.lessons(tmp_path / "missing")
    with pytest.raises(ValueError, match="no lesson notebooks"):
        site.lessons(tmp_path)


def test_present_finds_lessons_and_builds_voila_command(tmp_path, capsys):
    _lesson(tmp_path, "03_amdahl.ipynb", "03 · Amdahl")
    path = present.find_lesson(3, tmp_path)
    assert path.name == "03_amdahl.ipynb"
    cmd = present.voila_command(path, port=8899, no_browser=True)
    assert "voila" in cmd and "--port=8899" in cmd and "--strip_sources=True" in cmd
    with pytest.raises(ValueError, match="no lesson 07"):
        present.find_lesson(7, tmp_path)
    with pytest.raises(ValueError, match="lesson number"):
        present.find_lesson(-1, tmp_path)


def test_site_command(tmp_path, capsys):
    _lesson(tmp_path, "00_first.ipynb", "00 · First")
    assert cli.main(["site", "--notebooks", str(tmp_path), "--out", str(tmp_path / "out")]) == 0
    assert "wrote 1 lesson page and" in capsys.readouterr().out
    assert (tmp_path / "out" / "index.html").is_file()
