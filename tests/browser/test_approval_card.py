"""Approval cards in a real JupyterLab: a Design write waits on a card, a click on Approve
writes the file on the service, a click on Deny writes nothing."""

from __future__ import annotations

import json

import nbformat
import pytest
from playwright.sync_api import expect

from jupyter_design_projects.server.design.demo import DECK_ID
from tests.browser.lab import (
    KERNEL_MS,
    click,
    file_paths,
    mcp_tool,
    open_notebook,
    run_cell,
)

APPROVED_PATH = "slides/90-approved-in-browser.html"
DENIED_PATH = "slides/91-denied-in-browser.html"
#: how many questions one write may ask (consent, then a grant or a plan)
MAX_CARDS = 4

#: the state of one cell's approval card, read in the page
CARD_STATE = """cell => {
  const buttons = [...cell.querySelectorAll('.jp-OutputArea button')];
  if (buttons.some(b => b.textContent.trim() === 'Approve' && !b.disabled)) return 'asking';
  const card = cell.querySelector('.jp-OutputArea .jdp-card');
  const result = cell.querySelector('.jp-OutputArea .widget-output .jp-OutputArea-child');
  if (card && buttons.length === 0 && result) return 'done';
  return '';
}"""


def write_cell(path: str) -> str:
    files = json.dumps([{"path": path, "data": f"<h1>{path}</h1>"}])
    return f"%design write_files project_id={DECK_ID} files='{files}'"


def make_notebook(lab) -> str:
    nb = nbformat.v4.new_notebook(metadata={"kernelspec": {
        "name": "python3", "display_name": "Python 3 (ipykernel)", "language": "python"}})
    nb.cells = [
        nbformat.v4.new_code_cell("%load_ext jupyter_design_projects"),
        nbformat.v4.new_code_cell(write_cell(APPROVED_PATH)),
        nbformat.v4.new_code_cell(write_cell(DENIED_PATH)),
    ]
    nbformat.write(nb, lab.root_dir / "cards.ipynb")
    return "cards.ipynb"


def settle(page, cell) -> str:
    """Wait until the card asks a question or shows its result."""
    return page.wait_for_function(CARD_STATE, arg=cell.element_handle(),
                                  timeout=KERNEL_MS).json_value()


@pytest.mark.browser
def test_approve_writes_the_file_and_deny_writes_nothing(lab_page, lab, reference_service,
                                                         tmp_path):
    page = lab_page
    open_notebook(page, make_notebook(lab))
    run_cell(page, 0)

    approved = run_cell(page, 1)
    expect(approved.get_by_role("button", name="Approve", exact=True)).to_be_visible(
        timeout=KERNEL_MS)
    for _ in range(MAX_CARDS):
        if settle(page, approved) == "done":
            break
        click(page, approved.get_by_role("button", name="Approve", exact=True))
    assert settle(page, approved) == "done"
    expect(approved.locator(".widget-output")).to_contain_text(APPROVED_PATH)
    approved.screenshot(path=str(tmp_path / "jdp-approval-card.png"))
    read = mcp_tool(reference_service, "read_file", {"project_id": DECK_ID, "path": APPROVED_PATH})
    assert not read.get("isError")
    assert f"<h1>{APPROVED_PATH}</h1>" in read["content"][0]["text"].replace("&lt;", "<").replace(
        "&gt;", ">")

    denied = run_cell(page, 2)
    expect(denied.get_by_role("button", name="Deny", exact=True)).to_be_visible(
        timeout=KERNEL_MS)
    click(page, denied.get_by_role("button", name="Deny", exact=True))
    assert settle(page, denied) == "done"
    # the refusal in words (the reason code stays in `.error`, not in what a person reads)
    expect(denied.locator(".widget-output")).to_contain_text("so nothing was sent")
    denied.screenshot(path=str(tmp_path / "jdp-denied-card.png"))
    assert DENIED_PATH not in file_paths(reference_service)
    assert APPROVED_PATH in file_paths(reference_service)
