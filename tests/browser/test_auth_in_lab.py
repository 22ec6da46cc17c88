"""`%design auth` in a real JupyterLab, as a person uses it: the discovery documents and
the expiry are shown; Refresh now shows a new expiry and says it was asked by you, with
the refresh among the steps; Sign out leaves "Not signed in" with the way to sign in, and
no button that would not work."""

from __future__ import annotations

import json

import nbformat
import pytest
from playwright.sync_api import expect
from test_approval_card import KERNEL_MS, open_notebook, run_cell


def make_notebook(lab) -> str:
    nb = nbformat.v4.new_notebook(metadata={"kernelspec": {
        "name": "python3", "display_name": "Python 3 (ipykernel)", "language": "python"}})
    nb.cells = [nbformat.v4.new_code_cell("%load_ext jupyter_design_projects"),
                nbformat.v4.new_code_cell("%design auth")]
    nbformat.write(nb, lab.root_dir / "auth.ipynb")
    return "auth.ipynb"


@pytest.mark.browser
def test_design_auth_refresh_now_then_sign_out(lab_page, lab, reference_service):
    page = lab_page
    open_notebook(page, lab, make_notebook(lab))
    run_cell(page, 0)
    cell = run_cell(page, 1)
    view = cell.locator(".jdp-auth")
    expect(view).to_be_visible(timeout=KERNEL_MS)
    expect(view).to_contain_text("authorization server metadata")
    expect(view).to_contain_text("protected resource metadata")
    expiry = view.locator(".jdp-auth-expiry")
    before = expiry.inner_text()
    assert "UTC" in before
    expect(view.locator(".jdp-auth-no-refresh")).to_have_count(0)

    view.get_by_role("button", name="Refresh now").click()
    expect(view.locator(".jdp-auth-said")).to_contain_text("asked by you", timeout=KERNEL_MS)
    expect(expiry).not_to_have_text(before)
    expect(view.locator(".jdp-auth-last-refresh")).to_contain_text("new expiry")
    expect(view.locator(".jdp-auth-step.jdp-auth-refresh")).to_have_count(1)
    cell.screenshot(path="/tmp/jdp-auth-refreshed.png")
    token = json.loads(reference_service.credentials_file.read_text())["access_token"]
    assert token not in view.inner_html()

    view.get_by_role("button", name="Sign out").click()
    expect(view.locator(".jdp-auth-signed-out")).to_contain_text(
        "Not signed in. Next: %design login.", timeout=KERNEL_MS)
    expect(view.get_by_role("button", name="Refresh now")).to_be_hidden()
    expect(view.get_by_role("button", name="Sign out")).to_be_hidden()
    assert not reference_service.credentials_file.exists()
