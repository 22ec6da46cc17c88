"""`%design auth` in a real JupyterLab, as a person uses it: signed out, it says so and names
`%design login` (no button); after the sign-in it shows the authorization URL (redacted)
and the code exchange; after a 401 the refresh and why; Refresh now shows a new expiry and
says it was asked by you; Sign out leaves "Not signed in" and no button that would not
work."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.browser.lab import KERNEL_MS, lab_environment, lab_page_on, running_lab
from tests.browser.panel_driver import make_notebook, open_notebook, run_new_cell
from tests.faults_client import faults

UI_MS = 30_000


@pytest.fixture
def signed_out_lab(reference_service, tmp_path: Path) -> Iterator[object]:
    with running_lab(tmp_path, lab_environment(tmp_path, reference_service,
                                               signed_in=False)) as running:
        yield running


def stored_token(service) -> str:
    return json.loads(service.credentials_file.read_text())["access_token"]


def auth_view(page):
    """Run `%design auth` in a new cell; its view once shown."""
    view = run_new_cell(page, "%design auth").locator(".jdp-auth").last
    expect(view).to_be_visible(timeout=KERNEL_MS)
    return view


@pytest.mark.browser
def test_signed_out_then_the_sign_in_step_by_step(chromium, signed_out_lab, tmp_path):
    with lab_page_on(chromium, signed_out_lab, tmp_path) as page:
        open_notebook(page, make_notebook(signed_out_lab.root_dir, "auth-sign-in.ipynb"))
        run_new_cell(page, "%load_ext jupyter_design_projects")
        before = auth_view(page)
        expect(before.locator(".jdp-auth-signed-out")).to_contain_text(
            "Not signed in. Next: %design login.")
        expect(before.get_by_role("button", name="Refresh now")).to_be_hidden()
        expect(before.get_by_role("button", name="Sign out")).to_be_hidden()

        link = run_new_cell(page, "%design login").locator("a.jdp-sign-in-link")
        expect(link).to_be_visible(timeout=KERNEL_MS)
        with page.context.expect_page(timeout=UI_MS) as opened:
            link.click()
        sign_in = opened.value
        sign_in.locator("#authorize").click()
        expect(sign_in.locator("#message")).to_contain_text("you can close this tab",
                                                            timeout=UI_MS)
        sign_in.close()

        after = auth_view(page)
        url_step = after.locator(".jdp-auth-step.jdp-auth-authorize_url")
        expect(url_step).to_contain_text("authorization URL")
        url_step.locator("summary").click()
        expect(url_step).to_contain_text("chars)")  # state and code_challenge shortened
        expect(after.locator(".jdp-auth-step.jdp-auth-code_exchange")).to_contain_text("ok")
        expect(after.get_by_role("button", name="Refresh now")).to_be_visible()
        page.screenshot(path=str(tmp_path / "jdp-auth-after-sign-in.png"))
        stored = json.loads((tmp_path / "not-signed-in" / "credentials.json").read_text())
        assert not [t for t in (stored["access_token"], stored["refresh_token"])
                    if t in after.inner_html()]


@pytest.mark.browser
def test_after_a_401_then_refresh_now_then_sign_out(chromium, lab, reference_service,
                                                    tmp_path):
    with lab_page_on(chromium, lab, tmp_path) as page:
        open_notebook(page, make_notebook(lab.root_dir, "auth.ipynb"))
        run_new_cell(page, "%load_ext jupyter_design_projects")
        assert faults(reference_service).expire_tokens() >= 1
        listed = run_new_cell(page, "r = %design list\nprint('catalogue error:', r.is_error)")
        expect(listed.locator(".jp-OutputArea")).to_contain_text(
            "catalogue error: False", timeout=KERNEL_MS)
        view = auth_view(page)
        expect(view).to_contain_text("authorization server metadata")
        expect(view).to_contain_text("protected resource metadata")
        expect(view.locator(".jdp-auth-last-refresh")).to_contain_text(
            "the service answered 401")
        expect(view.locator(".jdp-auth-said")).to_have_count(0)
        before = stored_token(reference_service)

        view.get_by_role("button", name="Refresh now").click()
        said = view.locator(".jdp-auth-said")
        expect(said).to_contain_text("asked by you", timeout=KERNEL_MS)
        # the expiry shown is the refresh's (to the second: the 401's refresh may have
        # been in the same second, so the line is compared with the step, not the past)
        new_expiry = view.locator(".jdp-auth-expiry").inner_text().split(" (")[0]
        expect(said).to_contain_text(f"Expires: {new_expiry}")
        expect(view.locator(".jdp-auth-last-refresh")).to_contain_text(
            f"asked by you (Refresh now); new expiry {new_expiry}")
        expect(view.locator(".jdp-auth-step.jdp-auth-refresh")).to_have_count(2)
        view.screenshot(path=str(tmp_path / "jdp-auth-refreshed.png"))
        after = stored_token(reference_service)
        assert after != before
        assert before not in view.inner_html() and after not in view.inner_html()

        view.get_by_role("button", name="Sign out").click()
        expect(view.locator(".jdp-auth-signed-out")).to_contain_text(
            "Not signed in. Next: %design login.", timeout=KERNEL_MS)
        expect(view.get_by_role("button", name="Refresh now")).to_be_hidden()
        expect(view.get_by_role("button", name="Sign out")).to_be_hidden()
        assert not reference_service.credentials_file.exists()
