"""The "Design & Projects" side panel in a real JupyterLab, in Debian's chromium."""

from __future__ import annotations

import json

import httpx
import pytest
from design_headers import DESIGN_HEADERS
from playwright.sync_api import expect

PANEL = "#jdp-status-panel"
SCREENSHOT_BEFORE = "/tmp/jdp-side-panel-before.png"
SCREENSHOT_AFTER = "/tmp/jdp-side-panel-after.png"


def open_panel(page) -> None:
    """Click the panel's tab in the right side bar, as a person would."""
    page.locator(f'.jp-SideBar.jp-mod-right .lm-TabBar-tab[data-id="{PANEL[1:]}"]').click()
    expect(page.locator(PANEL)).to_be_visible()


def give_consent(service) -> None:
    """What `%design consent` does, sent straight to the service with the stored credential."""
    token = json.loads(service.credentials_file.read_text())["access_token"]
    answer = httpx.post(f"{service.base_url}/v1/design/consent",
                        json={"consent": "agent_design_projects"},
                        headers={"Authorization": f"Bearer {token}", **DESIGN_HEADERS},
                        timeout=10.0)
    assert answer.status_code == 204


@pytest.mark.browser
def test_panel_shows_the_project_and_refresh_shows_consent_given(lab_page, reference_service):
    open_panel(lab_page)
    panel = lab_page.locator(PANEL)
    expect(panel.locator('[data-jdp="project-name"]')).to_have_text("Team Handbook")
    expect(panel.locator('[data-jdp="consent"]')).to_have_text("consent: not given")
    expect(panel.locator('[data-jdp="reference"]')).to_have_text("offline reference service")
    expect(panel.locator('[data-jdp="knowledge-meter"]')).to_have_count(1)
    expect(panel.locator('[data-jdp="plan-note"]')).to_be_visible()
    expect(panel.locator('[data-jdp="error"]')).to_have_count(0)
    lab_page.screenshot(path=SCREENSHOT_BEFORE)

    give_consent(reference_service)
    panel.locator('[data-jdp="refresh"]').click()

    expect(panel.locator('[data-jdp="consent"]')).to_have_text("consent: given")
    expect(panel.locator('[data-jdp="project-name"]')).to_have_text("Team Handbook")
    lab_page.screenshot(path=SCREENSHOT_AFTER)
