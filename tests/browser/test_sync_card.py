"""`%project sync` in a real JupyterLab: one card for a batch too large to list whole (a
summary and a collapsible list that opens on a click), Approve sends every write under a
progress bar that reaches the end, the docs are on the service, and a rerun shows no
card."""

from __future__ import annotations

import json
import re

import httpx
import nbformat
import pytest
from playwright.sync_api import expect

from jupyter_design_projects.transport.http import loopback_tls
from tests.browser.lab import KERNEL_MS, click, open_notebook, run_cell

N_FILES = 40
PREFIX = "browser-kb"


def make_notebook(lab) -> str:
    notes = lab.root_dir / "notes"
    for i in range(N_FILES):
        folder = notes / f"area-{i % 4}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"note-{i:02}.md").write_text(f"# Note {i}\n")
    (notes / "logo.png").write_bytes(b"\x89PNG\r\n\x1a\n" + b"\x00" * 16)
    nb = nbformat.v4.new_notebook(metadata={"kernelspec": {
        "name": "python3", "display_name": "Python 3 (ipykernel)", "language": "python"}})
    nb.cells = [
        nbformat.v4.new_code_cell("%load_ext jupyter_design_projects"),
        nbformat.v4.new_code_cell(f"%project sync notes --to {PREFIX}"),
        nbformat.v4.new_code_cell(f"%project sync notes --to {PREFIX}"),
    ]
    nbformat.write(nb, lab.root_dir / "sync.ipynb")
    return "sync.ipynb"


def synced_docs(service) -> set[str]:
    token = json.loads(service.credentials_file.read_text())["access_token"]
    url = (f"{service.base_url}/api/organizations/{service.org_uuid}/projects/"
           f"{service.project_uuid}/detail")
    with httpx.Client(headers={"Authorization": f"Bearer {token}"}, timeout=30.0,
                      verify=loopback_tls()) as client:
        detail = client.get(url).json()
    return {d["file_name"] for d in detail["documents"]
            if d["file_name"].startswith(PREFIX + "/")}


@pytest.mark.browser
def test_one_card_approves_the_whole_batch_and_a_rerun_has_none(lab_page, lab,
                                                                 reference_service, tmp_path):
    page = lab_page
    open_notebook(page, make_notebook(lab))
    run_cell(page, 0)

    cell = run_cell(page, 1)
    approve = cell.get_by_role("button", name="Approve", exact=True)
    expect(approve).to_be_visible(timeout=KERNEL_MS)
    card = cell.locator(".jdp-card-box .jdp-sync-card")
    expect(card).to_contain_text(f"Sync {N_FILES} writes: {N_FILES} new")
    expect(card).to_contain_text(f"{PREFIX}/")
    listing = card.locator("details.jdp-sync-all")
    expect(listing).to_have_count(1)
    assert listing.get_attribute("open") is None  # collapsed until asked
    row = listing.locator("td code", has_text=f"{PREFIX}/area-3/note-39.md")
    expect(row).to_be_hidden()
    listing.locator("summary").click()
    expect(row).to_be_visible()
    assert synced_docs(reference_service) == set()  # nothing before the click

    click(page, approve)
    result = cell.locator(".widget-output")
    expect(result).to_contain_text(f"Written: {N_FILES} of {N_FILES}.", timeout=KERNEL_MS)
    bar = cell.locator(".widget-hprogress .progress-bar")
    expect(bar).to_have_attribute("style", re.compile(r"width: 100%"), timeout=KERNEL_MS)
    expect(bar).to_have_class(re.compile("progress-bar-success"))
    cell.screenshot(path=str(tmp_path / "jdp-sync-card.png"))
    assert len(synced_docs(reference_service)) == N_FILES

    rerun = run_cell(page, 2)
    expect(rerun.locator(".jp-OutputArea-output")).to_contain_text("nothing to write",
                                                                   timeout=KERNEL_MS)
    expect(rerun.get_by_role("button", name="Approve", exact=True)).to_have_count(0)
