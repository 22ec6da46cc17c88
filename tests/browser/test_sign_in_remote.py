"""Sign-in from a browser on another machine, in a real JupyterLab under a hub-like base
URL (`/user/alice/`) with Debian's chromium: the browser context may reach the Jupyter
server's origin only (every other request is aborted, so the service's loopback port is
out of reach, as it is from a laptop). The Design panel's Sign in opens the sign-in page
through the Jupyter server, Authorize comes back to the server's callback, and the panel
is signed in; Sign in with a code shows a code on the page that, pasted into the panel,
signs in too (a mistyped paste first gets a clear sentence and the attempt waits)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import expect

from jupyter_design_projects.embedded import EmbeddedService, start_embedded
from jupyter_design_projects.session import Session
from jupyter_design_projects.settings import Settings
from tests.browser.lab import lab_environment, running_lab
from tests.browser.panel_driver import DESIGN, KERNEL_MS, LIVE_MS, open_panel, role

pytestmark = pytest.mark.browser

BASE_URL = "/user/alice/"
UI_MS = 30_000
RESTORED_MS = 120_000


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[EmbeddedService]:
    service = start_embedded(tmp_path_factory.mktemp("remote-service"), faults=False)
    try:
        yield service
    finally:
        service.stop()


@pytest.fixture(scope="module")
def lab_tmp(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("remote-lab")


@pytest.fixture(scope="module")
def remote(chromium, service, lab_tmp: Path) -> Iterator[tuple[object, object, list[str]]]:
    """(page, lab, aborted URLs): a page whose context reaches the Jupyter origin only."""
    env = lab_environment(lab_tmp, service, signed_in=False)
    with running_lab(lab_tmp, env, base_url=BASE_URL) as lab:
        origin = "{0.scheme}://{0.netloc}".format(urlsplit(lab.url))
        aborted: list[str] = []

        def only_jupyter(route) -> None:
            url = route.request.url
            if url.startswith(origin + "/"):
                route.continue_()
            else:
                aborted.append(url)
                route.abort()

        context = chromium.new_context(viewport={"width": 1400, "height": 900})
        context.route("**/*", only_jupyter)
        page = context.new_page()
        page.set_default_timeout(UI_MS)
        try:
            page.goto(lab.lab_url())
            page.wait_for_function("() => window.jupyterapp !== undefined",
                                   timeout=RESTORED_MS)
            page.evaluate("() => window.jupyterapp.restored.then(() => {"
                          " window.__jdpRestored = true; })")
            page.wait_for_function("() => window.__jdpRestored === true", timeout=RESTORED_MS)
            yield page, lab, aborted
        finally:
            page.screenshot(path=str(lab_tmp / "last-page.png"))
            context.close()


def sign_out(service: EmbeddedService, lab_tmp: Path) -> None:
    """Sign out as a kernel of this person would (the panel stops at its next use)."""
    settings = Settings.resolve({}, {
        "api_base_url": service.base_url,
        "credentials_file": str(lab_tmp / "not-signed-in" / "credentials.json")})
    with Session(settings, data_dir=lab_tmp / "kernel-data") as kernel_like:
        kernel_like.sign_out()


def not_signed_in(page):
    panel = open_panel(page, DESIGN)
    role(panel, "refresh").click()
    state = panel.locator('[data-jdp="state"][data-kind="not_signed_in"]')
    expect(state).to_be_visible(timeout=LIVE_MS)
    expect(role(state, "state-detail")).to_contain_text("Sign in")
    expect(state).not_to_contain_text("login_begin")
    return panel, state


def test_sign_in_through_the_jupyter_address_from_a_remote_browser(remote, service,
                                                                   lab_tmp) -> None:
    page, lab, aborted = remote
    sign_out(service, lab_tmp)
    panel, state = not_signed_in(page)
    expect(role(panel, "base-url")).not_to_contain_text("127.0.0.1")

    with page.context.expect_page(timeout=UI_MS) as opened:
        role(state, "sign-in").click()
    tab = opened.value
    tab.set_default_timeout(UI_MS)
    expect(tab.locator("h1")).to_have_text("Sign in to the reference service")
    assert tab.url.startswith(lab.url + "/jupyter-design-projects/oauth/authorize?")
    expect(tab.locator("#redirect")).to_have_text(
        lab.url + "/jupyter-design-projects/oauth/callback")
    tab.locator("#authorize").click()
    expect(tab.locator("#message")).to_contain_text("You are signed in")
    assert tab.url.startswith(lab.url + "/jupyter-design-projects/oauth/callback?")
    tab.close()

    expect(role(panel, "consent")).to_be_visible(timeout=LIVE_MS)
    expect(panel.locator('[data-jdp="state"]')).to_have_count(0)
    assert not [url for url in aborted if url.startswith(service.base_url)]


def test_sign_in_with_a_pasted_code_from_a_remote_browser(remote, service, lab_tmp) -> None:
    page, lab, aborted = remote
    sign_out(service, lab_tmp)
    panel, state = not_signed_in(page)

    with page.context.expect_page(timeout=UI_MS) as opened:
        role(state, "sign-in-paste").click()
    tab = opened.value
    tab.set_default_timeout(UI_MS)
    expect(tab.locator("#redirect")).to_have_text(
        lab.url + "/jupyter-design-projects/oauth/code/callback")
    tab.locator("#authorize").click()
    code = tab.locator("#code").inner_text(timeout=UI_MS).strip()
    assert tab.url.startswith(lab.url + "/jupyter-design-projects/oauth/code/callback?")
    tab.close()

    box = role(panel, "paste-code-form")
    expect(box).to_be_visible()
    role(box, "paste-code").fill("not a code")
    role(box, "finish-sign-in").click()
    expect(role(panel, "outcome")).to_contain_text("code#state", timeout=KERNEL_MS)
    box = role(panel, "paste-code-form")
    role(box, "paste-code").fill(code)
    role(box, "finish-sign-in").click()
    expect(role(panel, "outcome")).to_have_text("Signed in.", timeout=KERNEL_MS)
    expect(role(panel, "consent")).to_be_visible(timeout=LIVE_MS)
    expect(role(panel, "paste-code-form")).to_have_count(0)
    assert not [url for url in aborted if url.startswith(service.base_url)]
