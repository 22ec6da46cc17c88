"""A deck in a real JupyterLab: a slide staged from a Markdown cell, pushed, its plan card
approved with a click, and the grid of previews drawn by the service's browser shown in
the push's output; the slide is then on the service, and the push is listed in the Design
panel's "Design file writes" (what it wrote, in which project, under which plan)."""

from __future__ import annotations

import nbformat
import pytest
from playwright.sync_api import expect

from jupyter_design_projects.server.design.demo import DECK_ID
from tests.browser.lab import GRID_LOADED, KERNEL_MS, mcp_tool, open_notebook, run_cell_and_wait
from tests.browser.panel_driver import DESIGN, LIVE_MS, open_panel, role

SLIDE = "slides/80-from-the-browser.html"
def make_notebook(lab) -> str:
    nb = nbformat.v4.new_notebook(metadata={"kernelspec": {
        "name": "python3", "display_name": "Python 3 (ipykernel)", "language": "python"}})
    nb.cells = [nbformat.v4.new_code_cell(source) for source in (
        "%load_ext jupyter_design_projects\n%design consent",
        'deck = %design deck open "Quarterly Review Deck"',
        f"%%design slide {SLIDE}\n# Staged in JupyterLab\n\nPushed with **one click**.",
        "deck.staged",
        "pushed = %design deck push\npushed",
    )]
    nbformat.write(nb, lab.root_dir / "deck.ipynb")
    return "deck.ipynb"


def service_file(service, path: str) -> dict:
    """read_file on the service through a raw MCP session, with the stored credential."""
    return mcp_tool(service, "read_file", {"project_id": DECK_ID, "path": path})


@pytest.mark.browser
def test_stage_push_approve_then_the_previews_grid(lab_page, lab, reference_service, tmp_path):
    page = lab_page
    open_notebook(page, make_notebook(lab))
    for index in range(4):
        run_cell_and_wait(page, index)
    staged = page.locator(".jp-NotebookPanel .jp-Cell").nth(3)
    expect(staged.locator(".jp-OutputArea")).to_contain_text(SLIDE)
    assert "isError" in service_file(reference_service, SLIDE)  # nothing sent before push

    push = run_cell_and_wait(page, 4)
    approve = push.get_by_role("button", name="Approve", exact=True)
    expect(approve).to_be_visible(timeout=KERNEL_MS)
    expect(push.locator(".jdp-card")).to_contain_text(SLIDE)
    approve.click()
    page.wait_for_function(GRID_LOADED, arg=push.element_handle(), timeout=KERNEL_MS)
    expect(push.locator(".jdp-deck-grid figcaption")).to_contain_text(SLIDE)
    expect(push.locator(".jp-Cell-outputArea")).to_contain_text("Pushed 1 file(s) in 1 plan(s).")
    push.screenshot(path=str(tmp_path / "jdp-deck-push.png"))
    written = service_file(reference_service, SLIDE)
    assert not written.get("isError")
    assert "Pushed with" in written["content"][0]["text"]

    design = open_panel(page, DESIGN)
    writes = role(design, "design-journal")
    expect(writes).to_contain_text("Design file writes", timeout=LIVE_MS)
    entry = role(writes, "design-write").first
    expect(entry).to_contain_text(SLIDE, timeout=LIVE_MS)
    expect(role(entry, "write-operation")).to_have_text("write_files")
    expect(role(entry, "write-project")).to_have_text(f"Quarterly Review Deck ({DECK_ID})")
    expect(role(entry, "write-authority")).to_contain_text(
        "Under an approved plan for 1 write(s) and 0 delete(s)")
    expect(role(design, "journal")).to_contain_text("Project doc writes")
    design.screenshot(path=str(tmp_path / "jdp-design-writes.png"))
