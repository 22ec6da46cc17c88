"""The panels' clear states in a real JupyterLab: no attached Project (and how to attach
one), not signed in (and the Sign in button that fixes it, through a sign-in tab), and a
service that stops
answering, which both panels show by themselves within a poll or two.

One JupyterLab serves the module, started with no CLAUDE_PROJECT_UUID and a credential file
that does not exist yet, over a reference service of its own that the last test stops."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import expect

from jupyter_design_projects.embedded import EmbeddedService, start_embedded
from tests.browser.lab import lab_environment, lab_page_on, running_lab
from tests.browser.panel_driver import DESIGN, KERNEL_MS, LIVE_MS, PROJECT, open_panel, role

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[EmbeddedService]:
    service = start_embedded(tmp_path_factory.mktemp("states-service"), faults=False)
    try:
        yield service
    finally:
        service.stop()


@pytest.fixture(scope="module")
def lab_tmp(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("states-lab")


@pytest.fixture(scope="module")
def page(chromium, service, lab_tmp: Path) -> Iterator[object]:
    env = lab_environment(lab_tmp, service, attached=False, signed_in=False)
    with running_lab(lab_tmp, env) as lab, lab_page_on(chromium, lab, lab_tmp) as page:
        yield page


def test_no_attached_project_says_how_to_attach_one(page):
    panel = open_panel(page, PROJECT)
    state = panel.locator('[data-jdp="state"][data-kind="no_attached_project"]')
    expect(state).to_be_visible(timeout=KERNEL_MS)
    expect(role(state, "state-title")).to_have_text("No Project is attached")
    expect(role(state, "state-detail")).to_contain_text("Set CLAUDE_PROJECT_UUID")
    expect(role(panel, "search-section")).to_be_hidden()
    expect(role(panel, "project-name")).to_have_count(0)


def test_not_signed_in_offers_sign_in_which_signs_in(page, lab_tmp: Path):
    panel = open_panel(page, DESIGN)
    state = panel.locator('[data-jdp="state"][data-kind="not_signed_in"]')
    expect(state).to_be_visible(timeout=KERNEL_MS)
    expect(role(state, "state-title")).to_have_text("Not signed in")
    credentials = lab_tmp / "not-signed-in" / "credentials.json"
    assert not credentials.exists()

    with page.context.expect_page(timeout=KERNEL_MS) as opened:
        role(state, "sign-in").click()  # the sign-in page, through this Jupyter server
    tab = opened.value
    tab.locator("#authorize").click()
    expect(tab.locator("#message")).to_contain_text("You are signed in", timeout=KERNEL_MS)
    tab.close()

    expect(role(panel, "outcome")).to_contain_text("new tab", timeout=KERNEL_MS)
    expect(role(panel, "consent")).to_have_text("consent: not given")
    expect(role(panel, "consent-give")).to_be_visible()
    expect(panel.locator('[data-jdp="state"]')).to_have_count(0)
    assert credentials.is_file()


def test_a_service_that_stops_answering_shows_in_both_panels(page, service):
    design = open_panel(page, DESIGN)
    expect(role(design, "consent")).to_be_visible()
    service.stop()

    port = service.base_url.rsplit(":", 1)[1]
    unreachable = (f"No answer from a service on this Jupyter server's machine (loopback "
                   f"port {port}): is the service running?")
    state = design.locator('[data-jdp="state"][data-kind="service_unreachable"]')
    expect(role(state, "state-title")).to_have_text(unreachable, timeout=LIVE_MS)
    expect(role(design, "consent")).to_have_count(0)
    project = open_panel(page, PROJECT)
    state = project.locator('[data-jdp="state"][data-kind="service_unreachable"]')
    expect(role(state, "state-title")).to_have_text(unreachable, timeout=LIVE_MS)
