"""The side panels under a closed policy, in a real JupyterLab in Debian's chromium: Design
closed by the Jupyter server's config (`c.DesignProjects.allow_design_sync = False`) and
Projects by the environment (`JDP_ALLOW_PROJECTS_TOOL=0`). Both panels say "off by policy"
and which setting, show none of the tools' buttons, and the panel sends the service no
Design or Projects request."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.browser.lab import lab_environment, lab_page_on, running_lab
from tests.browser.panel_driver import DESIGN, KERNEL_MS, PROJECT, open_panel, role
from tests.faults_client import FaultsClient

pytestmark = pytest.mark.browser


def tool_requests(faults: FaultsClient) -> Counter:
    """The Design and Projects requests the service has answered (not sign-in, not faults)."""
    return Counter({key: n for key, n in faults.counts().items()
                    if "/_faults" not in key and "/oauth" not in key})


@pytest.fixture(scope="module")
def lab_run(chromium, module_reference_service, tmp_path_factory: pytest.TempPathFactory
            ) -> Iterator[tuple[object, Counter, list[str]]]:
    service = module_reference_service
    tmp: Path = tmp_path_factory.mktemp("policy-lab")
    env = lab_environment(tmp, service)
    env["JDP_ALLOW_PROJECTS_TOOL"] = "0"
    config = Path(env["JUPYTER_CONFIG_DIR"]) / "jupyter_server_config.json"
    config.write_text(json.dumps({**json.loads(config.read_text()),
                                  "DesignProjects": {"allow_design_sync": False}}))
    faults = FaultsClient(service.base_url)
    before = tool_requests(faults)
    panel_routes: list[str] = []
    with running_lab(tmp, env) as lab, lab_page_on(chromium, lab, tmp) as page:
        page.on("request", lambda request: panel_routes.append(request.url.split("?")[0])
                if "/jupyter-design-projects/" in request.url else None)
        yield page, before, panel_routes


def test_both_panels_say_off_by_policy_and_send_nothing(lab_run, module_reference_service):
    page, before, panel_routes = lab_run
    design = open_panel(page, DESIGN)
    state = design.locator('[data-jdp="state"][data-kind="off_by_policy"]')
    expect(state).to_be_visible(timeout=KERNEL_MS)
    expect(role(state, "state-title")).to_have_text("Off by policy (allow_design_sync)")
    expect(role(state, "state-detail")).to_contain_text("c.DesignProjects.allow_design_sync")
    expect(role(design, "grants-off")).to_contain_text("Design is off by policy")
    for button in ("consent-give", "consent-revoke", "grant-revoke"):
        expect(role(design, button)).to_have_count(0)

    project = open_panel(page, PROJECT)
    off = project.locator('[data-jdp="state"][data-kind="off_by_policy"]')
    expect(off).to_be_visible(timeout=KERNEL_MS)
    expect(role(off, "state-title")).to_have_text("Off by policy (allow_projects_tool)")
    expect(role(off, "state-detail")).to_contain_text("JDP_ALLOW_PROJECTS_TOOL")
    expect(role(project, "search-section")).to_be_hidden()
    expect(role(project, "files")).to_have_count(0)

    # the panel asked its own server for the status (and the two local journals) only …
    assert {url.rsplit("/jupyter-design-projects/", 1)[1] for url in panel_routes} <= {
        "status", "journal", "design/journal"}
    # … and the service saw no Design or Projects request
    assert tool_requests(FaultsClient(module_reference_service.base_url)) == before
