"""The Chinese edition as a learner sees it: one Chinese lesson in JupyterLab, in headless Chromium."""

from __future__ import annotations

import re
import time

import pytest

from perfcourse import _lang

from .browser import ROOT, chromium_page, jupyterlab, need_browser, screenshot
from .test_browser import _first_explorer, open_and_run_through

pytestmark = pytest.mark.browser
NOTEBOOKS = ROOT / "notebooks"
CJK = re.compile(r"[\u4e00-\u9fff]")
PANEL = ".jp-NotebookPanel:not(.lm-mod-hidden)"


@pytest.fixture(scope="module")
def page():
    need_browser()
    with chromium_page() as p:
        yield p


def open_and_run(page, base, folder, name):
    """Open ``name`` (relative to ``folder``, the server's root), clear its outputs, run its cells up to and with
    its first explorer."""
    open_and_run_through(page, base, name, _first_explorer(folder / name), folder)


def check_chinese_lesson(page, folder, name="zh/03_amdahl.ipynb"):
    """Run a Chinese lesson in JupyterLab rooted at ``folder``: Chinese text, Chinese labels, a widget that redraws."""
    with jupyterlab(folder) as base:
        open_and_run(page, base, folder, name)
        markdown = page.locator(f"{PANEL} .jp-RenderedMarkdown").all_inner_texts()
        assert markdown and CJK.search(markdown[0]), f"the lesson's title is not Chinese: {markdown[:1]}"
        assert sum(bool(CJK.search(t)) for t in markdown) >= len(markdown) // 2, "most markdown cells are not Chinese"
        printed = page.locator(f"{PANEL} .jp-OutputArea-output").all_inner_texts()
        assert any(CJK.search(t) for t in printed), "the package printed no Chinese"
        box = page.locator(f"{PANEL} .widget-vbox", has=page.locator("img.widget-image")).filter(
            has=page.locator(".noUi-handle")).first
        box.scroll_into_view_if_needed()
        label = box.locator(".widget-label").first.inner_text()
        # lesson 03's first slider: the lecture writes its term in English, so the catalog's label is checked
        assert label == _lang.lookup("serial s", "zh"), f"the slider's label {label!r} is not the catalog's"
        image, text = box.locator("img.widget-image").first, box.locator(".pc-explorer-text").first
        text.wait_for(state="visible")
        assert CJK.search(text.inner_text()), f"the line under the figure is not Chinese: {text.inner_text()!r}"
        before = (image.get_attribute("src"), text.inner_text())
        handle = box.locator(".noUi-handle").first
        handle.focus()
        for _ in range(5):
            handle.press("ArrowRight")
        deadline = time.monotonic() + 120
        while (image.get_attribute("src"), text.inner_text()) == before and time.monotonic() < deadline:
            time.sleep(0.3)
        screenshot(page, "zh-amdahl-after-slider")
        assert image.get_attribute("src") != before[0], "the figure was not redrawn"
        assert text.inner_text() != before[1], "the line under the figure did not change"


def test_a_chinese_lesson_reads_in_chinese_and_its_widget_redraws(page):
    lesson = NOTEBOOKS / "zh" / "03_amdahl.ipynb"
    assert lesson.is_file(), "notebooks/zh/03_amdahl.ipynb is missing: run  perfcourse translate"
    check_chinese_lesson(page, NOTEBOOKS, "zh/03_amdahl.ipynb")
