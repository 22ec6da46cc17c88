"""A saved notebook says what its cards asked and how they were answered (issue #39): after
a card is answered and the notebook saved, the .ipynb holds the card's record beside the
widget, and a reload (the card's kernel gone, its widget "model not found") shows the
record. The record carries content from the service (a replace's diff of a doc full of
hostile payloads): nothing in it runs or loads."""

from __future__ import annotations

import json

import httpx
import nbformat
import pytest
from playwright.sync_api import expect

from jupyter_design_projects.notebook.views.card_record import HEADING
from jupyter_design_projects.notebook.widgets.cards import DENIED
from jupyter_design_projects.notebook.widgets.change_card import SENT
from jupyter_design_projects.server.design.demo import DECK_ID
from jupyter_design_projects.transport.http import loopback_tls
from tests.browser.panel_driver import open_notebook
from tests.hostile_content import all_payloads

pytestmark = pytest.mark.browser

KERNEL_MS = 90_000
DOC = "notes/saved-record.md"
WIDGET = "application/vnd.jupyter.widget-view+json"


def make_notebook(root, hostile: str) -> str:
    files = json.dumps([{"path": "slides/72-saved.html", "data": "<h1>x</h1>"}])
    nb = nbformat.v4.new_notebook(metadata={"kernelspec": {
        "name": "python3", "display_name": "Python 3 (ipykernel)", "language": "python"}})
    nb.cells = [nbformat.v4.new_code_cell(source) for source in (
        "%load_ext jupyter_design_projects",
        f"%%project write {DOC} --yes\n{hostile}\n",
        f"%%project write {DOC}\nreplaced\n",
        f"%design write_files project_id={DECK_ID} files='{files}'")]
    nbformat.write(nb, root / "saved.ipynb")
    return "saved.ipynb"


def click(page, cell, label: str) -> None:
    handle = cell.get_by_role("button", name=label, exact=True).element_handle()
    handle.click()
    page.wait_for_function("b => b.disabled || !b.isConnected", arg=handle, timeout=KERNEL_MS)


def records(path) -> dict[int, dict]:
    """Each cell's record bundle in the saved file, by cell index."""
    nb = nbformat.read(path, as_version=4)
    found = {}
    for index, cell in enumerate(nb.cells):
        for output in cell.get("outputs", []):
            if "jdp-card-record" in output.get("data", {}).get("text/html", ""):
                found[index] = output["data"]
    return found


def forget_kernels(lab) -> None:
    """End every session and kernel, as a restart or a day's break would."""
    with httpx.Client(base_url=lab.url, params={"token": lab.token}, timeout=30,
                      verify=loopback_tls()) as http:
        for session in http.get("/api/sessions").json():
            http.delete(f"/api/sessions/{session['id']}").raise_for_status()


def test_a_saved_notebook_shows_what_its_cards_asked_and_answered(lab_page, lab,
                                                                   loopback_beacon):
    page = lab_page
    name = make_notebook(lab.root_dir, all_payloads(loopback_beacon.url))
    open_notebook(page, name)
    page.evaluate("() => window.jupyterapp.commands.execute('notebook:run-all-cells')")
    cells = page.locator(".jp-NotebookPanel .jp-Cell")
    expect(cells.nth(2).get_by_role("button", name="Approve", exact=True)).to_be_visible(
        timeout=KERNEL_MS)
    expect(cells.nth(3).get_by_role("button", name="Deny", exact=True)).to_be_visible(
        timeout=KERNEL_MS)
    expect(cells.nth(2).locator(".jdp-card-record")).to_be_hidden()  # the live card shows
    click(page, cells.nth(2), "Approve")
    click(page, cells.nth(3), "Deny")
    expect(cells.nth(2).locator(".jdp-card-status")).to_contain_text(SENT, timeout=KERNEL_MS)
    expect(cells.nth(3).locator(".jdp-card-status")).to_contain_text(DENIED)
    page.evaluate("() => window.jupyterapp.commands.execute('docmanager:save')")
    page.wait_for_function("() => !window.jupyterapp.shell.currentWidget.context.model.dirty")

    saved = records(lab.root_dir / name)
    assert set(saved) == {2, 3}
    assert SENT in saved[2]["text/plain"] and "Result:" in saved[2]["text/plain"]
    assert DENIED in saved[3]["text/plain"]
    widgets = [o for o in nbformat.read(lab.root_dir / name, as_version=4).cells[2].outputs
               if WIDGET in o.get("data", {})]
    assert widgets, "the live card is saved too, beside its record"

    forget_kernels(lab)
    page.evaluate("() => { window.__pwned = undefined; }")
    page.reload()
    page.wait_for_function("() => window.jupyterapp !== undefined", timeout=KERNEL_MS)
    page.evaluate("async () => { await window.jupyterapp.restored; }")
    open_notebook(page, name)
    cells = page.locator(".jp-NotebookPanel .jp-Cell")
    for index, said in ((2, SENT), (3, DENIED)):
        record = cells.nth(index).locator(".jdp-card-record")
        expect(record).to_be_visible(timeout=KERNEL_MS)
        expect(record).to_contain_text(HEADING)
        expect(record).to_contain_text(said)
    expect(cells.nth(2).locator(".jdp-card-record")).to_contain_text("replaced")
    assert cells.nth(2).locator(".jdp-card-box").count() == 0  # no live card: the record
    assert page.evaluate("() => window.__pwned") is None
    assert loopback_beacon.hits == []
