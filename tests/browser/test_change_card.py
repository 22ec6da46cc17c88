"""`%%project write` in a real JupyterLab: the create's card says where it lands, a click
on Approve (the button's callback, not a waiting cell) writes exactly the cell's body; a
replace's card shows the diff of what it replaces, and its Approve writes the new text."""

from __future__ import annotations

import json

import httpx
import nbformat
import pytest
from playwright.sync_api import expect

from jupyter_design_projects.transport.http import loopback_tls
from tests.browser.lab import KERNEL_MS, click, open_notebook, run_cell

PATH = "browser-kb/change.md"


def make_notebook(lab) -> str:
    nb = nbformat.v4.new_notebook(metadata={"kernelspec": {
        "name": "python3", "display_name": "Python 3 (ipykernel)", "language": "python"}})
    nb.cells = [
        nbformat.v4.new_code_cell("%load_ext jupyter_design_projects"),
        nbformat.v4.new_code_cell(f"%%project write {PATH}\n# Change\nalpha\nbeta\n"),
        nbformat.v4.new_code_cell(f"%%project write {PATH}\n# Change\nalpha\ngamma\n"),
    ]
    nbformat.write(nb, lab.root_dir / "change.ipynb")
    return "change.ipynb"


def stored(service) -> dict[str, str]:
    token = json.loads(service.credentials_file.read_text())["access_token"]
    base = (f"{service.base_url}/api/organizations/{service.org_uuid}/projects/"
            f"{service.project_uuid}")
    with httpx.Client(headers={"Authorization": f"Bearer {token}"}, timeout=30.0,
                      verify=loopback_tls()) as client:
        docs = client.get(f"{base}/detail").json()["documents"]
        return {d["file_name"]: client.get(f"{base}/docs/{d['uuid']}").json()["content"]
                for d in docs if d["file_name"] == PATH}


@pytest.mark.browser
def test_a_write_waits_for_its_card_and_approve_writes_what_it_showed(lab_page, lab,
                                                                       reference_service, tmp_path):
    page = lab_page
    open_notebook(page, make_notebook(lab))
    run_cell(page, 0)

    create = run_cell(page, 1)
    approve = create.get_by_role("button", name="Approve", exact=True)
    expect(approve).to_be_visible(timeout=KERNEL_MS)
    expect(create.locator(".jdp-card-box .jdp-card")).to_contain_text("Create this doc")
    expect(create.locator(".jdp-card-box .jdp-card")).to_contain_text(PATH)
    assert stored(reference_service) == {}  # nothing before the click
    click(page, approve)
    expect(create.locator(".widget-output")).to_contain_text(f"Created {PATH}",
                                                              timeout=KERNEL_MS)
    assert stored(reference_service) == {PATH: "# Change\nalpha\nbeta\n"}

    replace = run_cell(page, 2)
    approve = replace.get_by_role("button", name="Approve", exact=True)
    expect(approve).to_be_visible(timeout=KERNEL_MS)
    diff = replace.locator(".jdp-card-box .jdp-change-diff")
    expect(diff).to_contain_text("-beta")
    expect(diff).to_contain_text("+gamma")
    replace.screenshot(path=str(tmp_path / "jdp-change-card.png"))
    click(page, approve)
    expect(replace.locator(".widget-output")).to_contain_text(f"Replaced {PATH}",
                                                               timeout=KERNEL_MS)
    assert stored(reference_service) == {PATH: "# Change\nalpha\ngamma\n"}
