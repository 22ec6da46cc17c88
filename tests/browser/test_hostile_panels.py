"""Nothing a service sends runs or phones home in JupyterLab (issue 32.5): a real `jupyter
lab` with the built extension, attached to a reference service whose hostile-content
switch puts payloads (pointing at a loopback beacon) in every string it serves. The
Project panel (name, instructions, docs, search hits, opened docs and their tabs, a
failure whose message carries the payloads), the Design panel (grant names) and notebook
cells run as a person runs them (outcomes, the catalogue, errors that echo input) show
the payloads as text; the beacon stays at zero, no script sets `window.__pwned`, and the
page asks nothing of any host but JupyterLab's. A cell in the same notebook whose output
is one payload as HTML does reach the beacon, so the harness sees a load when one happens."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import expect

from jupyter_design_projects.core.display import MAX_TEXT_CHARS
from jupyter_design_projects.server.design.demo import DECK_ID
from tests.browser.lab import lab_environment, lab_page_on, running_lab
from tests.browser.panel_driver import (
    DESIGN,
    KERNEL_MS,
    LIVE_MS,
    PROJECT,
    make_notebook,
    open_notebook,
    open_panel,
    role,
    run_new_cell,
    service_call,
)
from tests.faults_client import FaultsClient
from tests.hostile_content import all_payloads, beacon, payloads, set_hostile

pytestmark = [pytest.mark.browser, pytest.mark.service]

#: what every payload shows as text, once escaped: the script payload's own words
SHOWN = "<script>window.__pwned=1"
PATH_KEYS = ("path", "file_name")
PROJECT_NAME = "Team Handbook"
CELLS = [
    "%project info",
    '%project search "retention" -n 3',
    "%project read no-such-doc.md",
    "%design list",
    f"%design get_project project_id={DECK_ID}",
    f"%design list_files project_id={DECK_ID}",
    f"%design read_file project_id={DECK_ID} path=no-such-file.html",
    "%design status",
]


@pytest.fixture
def hostile_lab(chromium, reference_service, tmp_path: Path) -> Iterator[tuple]:
    """JupyterLab on the seeded service (consent given, one durable grant, search on), a
    page with the notebook open and the extension loaded in its kernel, the beacon, and
    every URL the page asked for."""
    service = reference_service
    assert service_call(service, "POST", "/v1/design/consent",
                        {"consent": "agent_design_projects"}).status_code == 204
    assert service_call(service, "POST", "/v1/design/grants",
                        {"project_id": DECK_ID}).status_code == 201
    with beacon() as spot, running_lab(tmp_path, lab_environment(tmp_path, service)) as lab:
        name = make_notebook(lab.root_dir)
        with lab_page_on(chromium, lab, tmp_path) as page:
            requested: list[str] = []
            page.context.on("request", lambda request: requested.append(request.url))
            open_notebook(page, name)
            run_new_cell(page, "%load_ext jupyter_design_projects")
            yield page, service, spot, lab, requested


def pwned(page) -> list[object]:
    return [frame.evaluate("() => window.__pwned === undefined ? null : 1")
            for frame in page.frames if not frame.is_detached()]


def test_both_panels_and_notebook_outputs_show_a_hostile_service_as_text(hostile_lab):
    page, service, spot, lab, requested = hostile_lab
    set_hostile(service.base_url, all_payloads(spot.url))

    panel = open_panel(page, PROJECT)
    # a name past its length is not shown at all; the instructions and paths show as text
    expect(role(panel, "project-name")).to_contain_text("[not shown", timeout=LIVE_MS)
    expect(role(panel, "project-instructions")).to_contain_text(SHOWN)
    expect(role(role(panel, "doc").first, "doc-open")).to_have_text("[not shown: too_long]")
    role(panel, "search-input").fill("retention")
    role(panel, "search-button").click()
    expect(role(panel, "hit").first).to_be_visible(timeout=KERNEL_MS)
    expect(role(role(panel, "hit").first, "doc-open")).to_have_text("[not shown: too_long]")
    role(role(panel, "doc").first, "doc-open").click()  # its path is refused or not found
    view = page.locator('.jp-MainAreaWidget [data-jdp="doc-view"]').last
    expect(view.locator('[data-jdp="doc-error"], [data-jdp="doc-content"]')).to_contain_text(
        "window.__pwned", timeout=KERNEL_MS)

    panel = open_panel(page, DESIGN)
    grant = panel.locator(f'[data-jdp="grant"][data-project-id="{DECK_ID}"]')
    expect(grant).to_have_count(1, timeout=LIVE_MS)

    # each payload alone fits a name: the panels show it as text
    for payload in payloads(spot.url).values():
        set_hostile(service.base_url, payload)
        panel = open_panel(page, PROJECT)
        fits = len(PROJECT_NAME + payload) <= MAX_TEXT_CHARS
        expect(role(panel, "project-name")).to_contain_text(
            payload if fits else "[not shown: too_long]", timeout=LIVE_MS)
        expect(role(panel, "doc").first).to_contain_text(payload, timeout=LIVE_MS)
        role(panel, "search-button").click()
        expect(role(panel, "hit").first).to_contain_text(payload, timeout=KERNEL_MS)
        # the doc opens in a tab titled with its path: refused or not found, as text
        role(role(panel, "doc").first, "doc-open").click()
        tab = page.locator(".lm-TabBar-tab.lm-mod-current", has_text=payload)
        expect(tab).to_have_count(1, timeout=KERNEL_MS)
        # the panel keeps the first display-safe name it was given for a grant
        expect(role(open_panel(page, DESIGN), "grant-name")).to_contain_text(
            "window.__pwned=1", timeout=LIVE_MS)
    set_hostile(service.base_url, all_payloads(spot.url))

    for source in CELLS:
        run_new_cell(page, source)
    outputs = page.locator(".jp-NotebookPanel .jp-Cell-outputArea")
    expect(outputs.filter(has_text="window.__pwned").first).to_be_visible()

    # the paths clean: the doc opens, and its content carries the payloads
    set_hostile(service.base_url, all_payloads(spot.url), keep=PATH_KEYS)
    panel = open_panel(page, PROJECT)
    row = panel.locator('[data-jdp="doc"][data-path="glossary.md"]')
    expect(row).to_have_count(1, timeout=LIVE_MS)
    role(row, "doc-open").click()
    view = page.locator('.jp-MainAreaWidget [data-jdp="doc-view"][data-path="glossary.md"]')
    expect(role(view, "doc-content")).to_contain_text(SHOWN, timeout=KERNEL_MS)
    run_new_cell(page, "%project read glossary.md")
    run_new_cell(page, f"%design read_file project_id={DECK_ID} path=index.html")

    # a failing service whose error message carries the payloads: the panel's state box
    faults = FaultsClient(service.base_url)
    envelope = {"type": "error", "error": {"type": "api_error",
                                           "message": all_payloads(spot.url)}}
    faults.fail("/api/*", status=500, body=envelope, count=1000)
    panel = open_panel(page, PROJECT)
    role(panel, "refresh").click()
    expect(role(panel, "state")).to_contain_text("window.__pwned", timeout=LIVE_MS)
    run_new_cell(page, "%project info")
    faults.reset()
    page.wait_for_load_state("networkidle")

    assert spot.hits == []
    assert set(pwned(page)) == {None}
    assert page.url.startswith(lab.url)
    assert [url for url in requested if not url.startswith((lab.url, "data:", "blob:"))] == []
    assert page.locator('a[href^="javascript:" i]').count() == 0

    # the control: a cell whose output is one payload as HTML does reach the beacon
    run_new_cell(page, "from IPython.display import HTML; "
                       f"HTML({payloads(spot.url)['onerror']!r})")
    page.wait_for_function("() => window.__pwned === 1")
    deadline = time.monotonic() + LIVE_MS / 1000
    while "/onerror" not in spot.hits and time.monotonic() < deadline:
        page.wait_for_timeout(50)  # a bounded poll: the beacon answers another thread
    assert "/onerror" in spot.hits
