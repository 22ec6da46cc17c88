"""A talk someone else wrote, in a real JupyterLab: `%design deck from-notebook`, a push
whose plan card is approved with a click, the grid of previews drawn by the service's
browser, then `%design deck export` to one HTML file, opened offline in the browser, where
the arrow keys move between slides."""

from __future__ import annotations

import shutil
from pathlib import Path

import nbformat
import pytest
from playwright.sync_api import expect

from tests.browser.lab import GRID_LOADED, KERNEL_MS, open_notebook, run_cell_and_wait

TALK = Path(__file__).parent.parent / "fixtures" / "talk"
SLIDES = 6
#: the exported talk's title slide, as docs/decks.md shows it (in the `screenshots` folder)
SHOT = "deck-export-html.png"


def make_notebook(lab) -> str:
    shutil.copytree(TALK, lab.root_dir / "talk", dirs_exist_ok=True)
    nb = nbformat.v4.new_notebook(metadata={"kernelspec": {
        "name": "python3", "display_name": "Python 3 (ipykernel)", "language": "python"}})
    nb.cells = [nbformat.v4.new_code_cell(source) for source in (
        "%load_ext jupyter_design_projects\n%design consent",
        "deck = %design deck new Browser talk",
        "%design deck from-notebook talk/talk.ipynb",
        "pushed = %design deck push\npushed",
        "%design deck export talk-export.html --notes",
    )]
    nbformat.write(nb, lab.root_dir / "deck-from-notebook.ipynb")
    return "deck-from-notebook.ipynb"


@pytest.mark.browser
def test_from_notebook_push_grid_then_the_html_export_moves_with_arrow_keys(
        lab_page, lab, reference_service, screenshots, tmp_path):
    page = lab_page
    open_notebook(page, make_notebook(lab))
    run_cell_and_wait(page, 0)
    created = run_cell_and_wait(page, 1)  # a project of its own: its create card, clicked
    create = created.get_by_role("button", name="Approve", exact=True)
    expect(create).to_be_visible(timeout=KERNEL_MS)
    create.click()
    expect(created.locator(".jdp-card")).to_contain_text("Browser talk")
    page.wait_for_function("c => !c.querySelector('button:not([disabled])')",
                           arg=created.element_handle(), timeout=KERNEL_MS)
    run_cell_and_wait(page, 2)
    staged = page.locator(".jp-NotebookPanel .jp-Cell").nth(2)
    expect(staged.locator(".jp-OutputArea")).to_contain_text("Staged 6 slide(s)")

    push = run_cell_and_wait(page, 3)
    approve = push.get_by_role("button", name="Approve", exact=True)
    expect(approve).to_be_visible(timeout=KERNEL_MS)
    expect(push.locator(".jdp-card")).to_contain_text("slides/01-forecasting-weekly-demand.html")
    approve.click()
    page.wait_for_function(GRID_LOADED, arg=push.element_handle(), timeout=KERNEL_MS)
    expect(push.locator(".jdp-deck-grid img")).to_have_count(SLIDES)
    expect(push.locator(".jdp-deck-grid figcaption").first).to_contain_text(
        "slides/01-forecasting-weekly-demand.html")
    push.screenshot(path=str(tmp_path / "jdp-deck-from-notebook-grid.png"))

    exported = run_cell_and_wait(page, 4)
    expect(exported.locator(".jp-OutputArea")).to_contain_text("Wrote")
    viewer = page.context.new_page()
    try:
        viewer.route("**/*", lambda route: route.abort()
                     if not route.request.url.startswith(("file:", "data:", "about:"))
                     else route.continue_())  # offline: nothing but the file itself
        exported_file = lab.root_dir / "talk-export.html"
        viewer.goto(exported_file.as_uri())
        if "data-jdp-slide=" in exported_file.read_text(encoding="utf-8"):
            reveal_deck(viewer, screenshots / SHOT)  # the reveal.js renderer is in this build
        else:
            plain_viewer(viewer, screenshots / SHOT)
    finally:
        viewer.close()


def plain_viewer(viewer, shot: Path) -> None:
    """The plain viewer: one sandboxed frame per slide, arrow keys move."""
    expect(viewer.locator("iframe")).to_have_count(SLIDES)
    expect(viewer.locator(".count")).to_have_text(f"1 / {SLIDES}")
    first = viewer.frame_locator("iframe.current")
    expect(first.locator("h1")).to_have_text("Forecasting weekly demand")
    viewer.screenshot(path=str(shot))
    expect(viewer.locator(".notes.current")).to_contain_text("Welcome everyone")
    viewer.keyboard.press("ArrowRight")
    viewer.keyboard.press("ArrowRight")
    expect(viewer.locator(".count")).to_have_text(f"3 / {SLIDES}")
    frame = viewer.frame_locator("iframe.current")
    expect(frame.locator("h3")).to_have_text("The pipeline")
    loaded = frame.locator("img").first.evaluate("i => i.complete && i.naturalWidth > 0")
    assert loaded  # the SVG asset, inlined
    viewer.keyboard.press("ArrowLeft")
    expect(viewer.locator(".count")).to_have_text(f"2 / {SLIDES}")
    expect(viewer.frame_locator("iframe.current").locator("math").first).to_be_visible()


def reveal_deck(viewer, shot: Path) -> None:
    """The reveal.js file: a section per slide, the model slide's fragment one step."""
    expect(viewer.locator(".reveal .slides > section")).to_have_count(SLIDES)
    expect(viewer.locator("section.present h1")).to_have_text("Forecasting weekly demand")
    viewer.screenshot(path=str(shot))
    viewer.keyboard.press("ArrowRight")  # the model slide, its fragment not shown yet
    expect(viewer.locator("section.present math").first).to_be_visible()
    expect(viewer.locator("section.present .fragment.visible")).to_have_count(0)
    viewer.keyboard.press("ArrowRight")  # its fragment
    expect(viewer.locator("section.present .fragment.visible")).to_have_count(1)
    viewer.keyboard.press("ArrowRight")
    expect(viewer.locator("section.present h3")).to_have_text("The pipeline")
    loaded = viewer.locator("section.present img").first.evaluate(
        "i => i.complete && i.naturalWidth > 0")
    assert loaded  # the SVG asset, inlined

