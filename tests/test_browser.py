"""The course as a learner sees it: JupyterLab, Voila and the static site in headless Chromium."""

from __future__ import annotations

import re
import time

import pytest

from perfcourse import laws
from perfcourse.cli.site import render

from .browser import ROOT, chromium_page, jupyterlab, need_browser, screenshot, server

pytestmark = pytest.mark.browser
NOTEBOOKS = ROOT / "notebooks"
AMDAHL_LINE = re.compile(r"s = ([0-9.]+), N = ([0-9]+): speedup = ([0-9.]+)x")


@pytest.fixture(scope="module")
def page():
    """One Chromium for the whole module (Playwright's sync API allows one driver at a time)."""
    need_browser()
    with chromium_page() as p:
        yield p


@pytest.fixture(scope="module")
def lab(page):
    with jupyterlab(NOTEBOOKS) as base:
        yield base, page


def open_and_run_all(page, base, name):
    page.goto(f"{base}/lab/tree/{name}?token=perfcourse-test-token")
    page.locator(".jp-NotebookPanel .jp-Notebook .jp-Cell").first.wait_for(state="attached")
    page.locator(".jp-Notebook-ExecutionIndicator[data-status='idle']").first.wait_for(state="attached")
    page.get_by_role("menuitem", name="Run", exact=True).click()
    page.get_by_text("Run All Cells", exact=True).click()
    wait_until_run(page)


def wait_until_run(page, timeout=150):
    """Wait until no cell of the open notebook is queued or running ([*])."""
    deadline = time.monotonic() + timeout
    time.sleep(1.0)
    while time.monotonic() < deadline:
        prompts = page.eval_on_selector_all(".jp-NotebookPanel:not(.lm-mod-hidden) .jp-InputPrompt",
                                            "els => els.map(e => e.textContent)")
        if prompts and not any("*" in p for p in prompts):
            return
        time.sleep(0.5)
    raise TimeoutError("the notebook did not finish running all cells")


def amdahl_state(box):
    text = box.locator(".widget-output").inner_text()
    match = AMDAHL_LINE.search(text)
    assert match, f"the Amdahl widget printed no 's = .., N = ..: speedup = ..x' line; got {text[:300]!r}"
    image = box.locator(".widget-output img").first.get_attribute("src")
    return float(match[1]), int(match[2]), float(match[3]), image


def test_amdahl_slider_redraws_with_the_law(lab):
    base, page = lab
    open_and_run_all(page, base, "03_amdahl.ipynb")
    label = page.locator(".widget-label", has_text="serial")
    box = page.locator(".widget-vbox", has=label).last
    slider = box.locator(".widget-slider", has=label).first
    box.scroll_into_view_if_needed()
    s0, n0, speedup0, image0 = amdahl_state(box)
    assert speedup0 == pytest.approx(laws.amdahl_speedup(s0, n0), abs=0.006)
    handle = slider.locator(".noUi-handle")
    handle.focus()
    for _ in range(5):
        handle.press("ArrowRight")
    deadline = time.monotonic() + 30
    while amdahl_state(box)[0] == s0 and time.monotonic() < deadline:
        time.sleep(0.3)
    screenshot(page, "amdahl-after-slider")
    s1, n1, speedup1, image1 = amdahl_state(box)
    assert s1 > s0, "moving the serial-fraction slider right did not change s"
    assert speedup1 == pytest.approx(laws.amdahl_speedup(s1, n1), abs=0.006)
    assert speedup1 < speedup0, "more serial work must lower the speedup"
    assert image1 != image0, "the figure was not redrawn"


def test_start_here_shows_the_backend(lab):
    base, page = lab
    open_and_run_all(page, base, "00_start_here.ipynb")
    outputs = page.locator(".jp-NotebookPanel:not(.lm-mod-hidden) .jp-OutputArea-output").all_inner_texts()
    screenshot(page, "start-here")
    text = "\n".join(outputs)
    assert re.search(r"\bnumpy\b", text, re.I) and "CPU" in text, "the environment check shows no backend"


def test_present_shows_widgets_without_code(page):
    from perfcourse.cli.present import find_lesson, voila_command

    cmd = voila_command(find_lesson(3, NOTEBOOKS), port="{port}", no_browser=True)
    with server(cmd, "/", cwd=NOTEBOOKS, timeout=180) as base:
        page.goto(base, timeout=180_000)
        slider = page.locator(".widget-slider", has=page.locator(".widget-label", has_text="serial")).first
        slider.wait_for(state="visible", timeout=180_000)
        screenshot(page, "present-amdahl")
        assert page.locator(".jp-InputArea-editor").count() == 0, "Voila showed source code"
        assert "amdahl_speedup(" not in page.content().split("<body", 1)[1].split("widget-state", 1)[0]


def test_static_site_index_links_to_lessons(page, tmp_path):
    written = render(NOTEBOOKS, tmp_path)
    assert written[0].name == "index.html" and len(written) == 1 + len(list(NOTEBOOKS.glob("[0-9][0-9]_*.ipynb")))
    page.goto(written[0].as_uri())
    links = page.locator("ol a")
    assert links.count() == len(written) - 1
    first_title = links.nth(1).inner_text()
    links.nth(1).click()
    page.wait_for_load_state()
    assert page.url.endswith(written[2].name)
    assert first_title in page.locator("h1").first.inner_text()
    assert page.locator("img").count() >= 1, "the lesson page shows no figure"
    assert page.locator("nav.pc-nav a", has_text="All lessons").count() == 1
    assert page.get_by_text("Interactive figure, shown at its starting values").count() >= 1
    screenshot(page, "site-lesson")
