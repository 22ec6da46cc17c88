"""`%design login` in a real JupyterLab with Debian's chromium, starting signed out: the
cell shows the sign-in link and returns; the link opens the reference service's sign-in
page in a new tab, a click on Authorize sends the browser to the kernel's one-time
loopback listener, the tab says "you can close this tab", the card's status line turns
to "Signed in", and the next `%design` cell succeeds with the credential it stored."""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.browser.lab import lab_environment, lab_page_on, running_lab
from tests.browser.panel_driver import make_notebook, open_notebook, run_new_cell

#: a kernel round trip, including the first call (ms)
KERNEL_MS = 90_000
UI_MS = 30_000


@pytest.fixture
def signed_out_lab(reference_service, tmp_path: Path) -> Iterator[object]:
    with running_lab(tmp_path, lab_environment(tmp_path, reference_service,
                                               signed_in=False)) as running:
        yield running


@pytest.mark.browser
def test_login_link_authorize_and_the_redirect_sign_in_the_kernel(chromium, signed_out_lab,
                                                                 tmp_path):
    lab = signed_out_lab
    credentials = tmp_path / "not-signed-in" / "credentials.json"
    with lab_page_on(chromium, lab, tmp_path) as page:
        open_notebook(page, make_notebook(lab.root_dir, "sign-in.ipynb"))
        run_new_cell(page, "%load_ext jupyter_design_projects")
        cell = run_new_cell(page, "%design login")
        link = cell.locator("a.jdp-sign-in-link")
        expect(link).to_be_visible(timeout=KERNEL_MS)
        expect(cell.locator(".jdp-sign-in-status")).to_contain_text("Waiting")
        with page.context.expect_page(timeout=UI_MS) as opened:
            link.click()
        sign_in = opened.value
        sign_in.set_default_timeout(UI_MS)
        expect(sign_in.locator("#redirect")).to_contain_text("http://127.0.0.1:")
        sign_in.screenshot(path=str(tmp_path / "jdp-sign-in-page.png"))
        sign_in.locator("#authorize").click()
        expect(sign_in.locator("#message")).to_contain_text("you can close this tab")
        assert sign_in.url.startswith("http://127.0.0.1:") and "/callback?" in sign_in.url
        sign_in.close()
        expect(cell.locator(".jdp-sign-in-status")).to_contain_text("Signed in",
                                                                    timeout=KERNEL_MS)
        cell.screenshot(path=str(tmp_path / "jdp-sign-in-card.png"))
        listed = run_new_cell(page, "r = %design list\nprint('catalogue error:', r.is_error)")
        expect(listed.locator(".jp-OutputArea-output")).to_contain_text(
            "catalogue error: False", timeout=KERNEL_MS)
    assert stat.S_IMODE(os.stat(credentials).st_mode) == 0o600
    assert json.loads(credentials.read_text())["access_token"]
