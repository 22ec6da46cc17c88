"""The Project and Design side panels in a real JupyterLab, in Debian's chromium, on the
reference service's seeded data (the "Team Handbook" Project with knowledge search switched
on, consent given and a durable grant for "Quarterly Review Deck").

One JupyterLab and one page serve the whole module; the tests run in file order and each
leaves the page as the next expects (the notebook open, a panel open)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import expect

from jupyter_design_projects.server.design.demo import DECK_ID
from tests.browser.lab import lab_environment, lab_page_on, running_lab
from tests.browser.panel_driver import (
    DESIGN,
    KERNEL_MS,
    LIVE_MS,
    PROJECT,
    kernel_run,
    light_and_dark_screenshots,
    make_notebook,
    open_notebook,
    open_panel,
    role,
    run_new_cell,
    service_call,
)
from tests.faults_client import FaultsClient

pytestmark = pytest.mark.browser

UPLOAD_WITH_SPACES = "Q3 Research Review.pdf"
LIVE_DOC = "notes/written-in-a-kernel.md"
FIRST_TEXT = "Written in a kernel.\n"
SECOND_TEXT = "Replaced in a kernel.\n"
#: what labextension/src/format.ts cuts a snippet to (SNIPPET_CHARS)
SNIPPET_CHARS = 220
#: Markdown syntax a snippet must not show: headings, emphasis, code, links, list marks
MARKDOWN = re.compile(r"(^|\s)#{1,6}\s|\*\*|__|`|\]\(|(^|\s)[-*+]\s")
#: the placeholder's text width and the input's room for it (px), and a longer text's
PLACEHOLDER_FIT = """(input, longer) => {
  const style = getComputedStyle(input);
  const ctx = document.createElement('canvas').getContext('2d');
  ctx.font = `${style.fontStyle} ${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
  const room = input.clientWidth - parseFloat(style.paddingLeft)
    - parseFloat(style.paddingRight);
  return [ctx.measureText(input.placeholder).width, room, ctx.measureText(longer).width];
}"""
#: the kernel asks again: the consent card's question, or the refusal naming consent
CONSENT_ASKED = re.compile(r"Allow agents to use your .*Design projects")
#: the call that met the service's needs_consent fails with one line naming the command
NEEDS_CONSENT = re.compile(r"UsageError: The Design service needs your consent .*"
                           r"Next: %design consent\.")


@pytest.fixture(scope="module")
def service(module_reference_service):
    """The seeded service with search on, consent given and one durable grant."""
    service = module_reference_service
    faults = FaultsClient(service.base_url)
    faults.search(service.project_uuid, enabled=True)
    faults.knowledge(service.project_uuid, threshold=1000)  # the seed is ~3,000 tokens
    assert service_call(service, "POST", "/v1/design/consent",
                        {"consent": "agent_design_projects"}).status_code == 204
    assert service_call(service, "POST", "/v1/design/grants",
                        {"project_id": DECK_ID}).status_code == 201
    return service


@pytest.fixture(scope="module")
def page(chromium, service, tmp_path_factory: pytest.TempPathFactory) -> Iterator[object]:
    tmp: Path = tmp_path_factory.mktemp("side-panel-lab")
    with running_lab(tmp, lab_environment(tmp, service)) as lab:
        name = make_notebook(lab.root_dir)
        with lab_page_on(chromium, lab, tmp) as page:
            open_notebook(page, name)
            run_new_cell(page, "%load_ext jupyter_design_projects")
            page.evaluate("() => { window.__jdpSamePage = true; }")
            yield page
            # no test reloaded the page: every change came in through the poll
            assert page.evaluate("() => window.__jdpSamePage === true")


def test_project_panel_shows_the_project_its_budget_and_its_files(page, service):
    panel = open_panel(page, PROJECT)
    expect(role(panel, "project-name")).to_have_text("Team Handbook")
    expect(role(panel, "project-instructions")).not_to_be_empty()
    expect(role(panel, "budget-used")).to_contain_text("tokens used")
    expect(role(panel, "budget-threshold")).to_contain_text("Search threshold:")
    expect(role(panel, "search-mode")).to_have_text(
        "Knowledge search: on (answers draw on search hits)")
    expect(panel.locator('[data-jdp="doc"][data-path="glossary.md"]')).to_have_count(1)
    upload = panel.locator(f'[data-jdp="upload"][data-path="{UPLOAD_WITH_SPACES}"]')
    expect(role(upload, "file-meta")).to_contain_text("document ·")
    expect(role(upload, "file-meta")).to_contain_text(" KiB ·")
    expect(role(panel, "state")).to_have_count(0)


def test_search_shows_hits(page, tmp_path):
    panel = open_panel(page, PROJECT)
    role(panel, "search-input").fill("incident")
    role(panel, "search-button").click()
    hits = role(panel, "hit")
    expect(hits.first).to_be_visible(timeout=KERNEL_MS)
    assert hits.count() >= 1
    expect(role(hits.first, "hit-text")).not_to_be_empty()
    expect(role(panel, "search-fallback")).to_have_count(0)
    # each snippet is plain text, whole (not clipped mid-line), cut at a word
    for text, clipped in role(panel, "hit-text").evaluate_all(
            "els => els.map(e => [e.textContent, e.scrollHeight > e.clientHeight + 1])"):
        assert not clipped, text
        assert not MARKDOWN.search(text), text
        assert len(text) <= SNIPPET_CHARS and (text.endswith("…") or len(text) < SNIPPET_CHARS)
    panel.screenshot(path=str(tmp_path / "jdp-search-hits.png"))


def test_the_search_placeholder_fits_the_default_sidebar_width(page):
    panel = open_panel(page, PROJECT)
    box = role(panel, "search-input")
    shown, room, full = box.evaluate(PLACEHOLDER_FIT, "Search the Project’s knowledge")
    assert shown <= room, f"placeholder {shown:.0f}px in {room:.0f}px (the long one: {full:.0f})"


def test_a_doc_opens_read_only_in_the_main_area(page):
    panel = open_panel(page, PROJECT)
    row = panel.locator('[data-jdp="doc"][data-path="glossary.md"]')
    role(row, "doc-open").click()
    view = page.locator('.jp-MainAreaWidget [data-jdp="doc-view"][data-path="glossary.md"]')
    expect(view).to_be_visible()
    expect(role(view, "doc-content")).to_contain_text("# Glossary", timeout=KERNEL_MS)
    expect(role(view, "read-only")).to_have_text("read-only")
    expect(view.locator("textarea, input, [contenteditable='true']")).to_have_count(0)
    expect(page.locator(".lm-TabBar-tab.lm-mod-current", has_text="glossary.md")).to_be_visible()


def test_insert_cell_puts_a_quoted_project_read_cell_into_the_notebook(page):
    page.evaluate("() => window.jupyterapp.shell.activateById(window.__jdpNotebook.id)")
    panel = open_panel(page, PROJECT)
    cells = page.locator(".jp-NotebookPanel .jp-Cell")
    before = cells.count()
    row = panel.locator(f'[data-jdp="upload"][data-path="{UPLOAD_WITH_SPACES}"]')
    role(row, "insert-cell").click()

    expect(cells).to_have_count(before + 1)
    source = page.evaluate("() => window.__jdpNotebook.content.activeCell.model"
                           ".sharedModel.getSource()")
    assert source == f"%project read '{UPLOAD_WITH_SPACES}'"
    expect(role(panel, "outcome")).to_have_text(
        f"Inserted a cell that reads {UPLOAD_WITH_SPACES}.")
    # the inserted line reads the upload when run: the quoting gave the path back
    page.evaluate("() => window.jupyterapp.commands.execute('notebook:run-cell')")
    cell = cells.nth(before)
    expect(cell.locator(".jp-Cell-outputArea")).to_contain_text("Q3", timeout=KERNEL_MS)
    expect(cell.locator(".jp-Cell-outputArea")).not_to_contain_text("Error")


def test_a_write_in_a_kernel_shows_in_the_panel_without_a_click(page, service):
    panel = open_panel(page, PROJECT)
    expect(panel.locator(f'[data-jdp="doc"][data-path="{LIVE_DOC}"]')).to_have_count(0)
    docs_before = role(panel, "project-counts").inner_text()

    out = kernel_run(page, f"get_ipython().run_cell_magic('project', 'write {LIVE_DOC} --yes', "
                           f"{FIRST_TEXT!r})")
    assert "Error" not in out, out

    expect(panel.locator(f'[data-jdp="doc"][data-path="{LIVE_DOC}"]')).to_have_count(
        1, timeout=LIVE_MS)
    expect(role(panel, "project-counts")).not_to_have_text(docs_before)


def test_project_panel_screenshots(page, screenshots):
    panel = open_panel(page, PROJECT)
    role(panel, "search-input").fill("incident")
    role(panel, "search-button").click()
    expect(role(panel, "hit").first).to_be_visible(timeout=KERNEL_MS)
    light_and_dark_screenshots(page, screenshots, PROJECT, "project-panel")


def test_design_panel_lists_grants_by_name_and_the_journal(page, service):
    panel = open_panel(page, DESIGN)
    expect(role(panel, "consent")).to_have_text("consent: given")
    grant = panel.locator(f'[data-jdp="grant"][data-project-id="{DECK_ID}"]')
    expect(role(grant, "grant-name")).to_have_text("Quarterly Review Deck")
    entry = panel.locator(f'[data-jdp="journal-entry"][data-path="{LIVE_DOC}"]')
    expect(role(entry, "entry-action")).to_have_text("create")
    expect(role(entry, "restore")).to_have_count(0)
    expect(role(entry, "no-restore")).to_have_text(
        "Nothing to restore: this write created the doc.")


def test_restore_writes_back_what_a_replace_removed(page, service):
    panel = open_panel(page, DESIGN)
    out = kernel_run(page, f"get_ipython().run_cell_magic('project', 'write {LIVE_DOC} --yes', "
                           f"{SECOND_TEXT!r})")
    assert "Error" not in out, out
    replaced = panel.locator(f'[data-jdp="journal-entry"][data-path="{LIVE_DOC}"]').filter(
        has=page.locator('[data-jdp="entry-action"]', has_text="replace"))
    button = role(replaced, "restore")
    expect(button).to_have_count(1, timeout=LIVE_MS)
    expect(button).to_have_attribute("title", f"Write back the {len(FIRST_TEXT.encode())} "
                                              f"bytes this replace removed from {LIVE_DOC}.")
    button.click()
    page.locator(".jp-Dialog").get_by_role("button", name="Restore").click()

    expect(role(panel, "outcome")).to_contain_text(f"Restored {LIVE_DOC}", timeout=KERNEL_MS)
    read = kernel_run(page, "r = get_ipython().run_line_magic('project', 'read "
                            f"{LIVE_DOC}')\nprint(r.data['content'])")
    assert read.strip() == FIRST_TEXT.strip(), read


def test_a_consent_given_in_a_kernel_shows_in_the_panel(page, service):
    panel = open_panel(page, DESIGN)
    assert service_call(service, "DELETE", "/v1/design/consent").status_code == 204
    expect(role(panel, "consent")).to_have_text("consent: not given", timeout=LIVE_MS)

    out = kernel_run(page, "get_ipython().run_line_magic('design', 'consent')")
    assert "Error" not in out, out
    expect(role(panel, "consent")).to_have_text("consent: given", timeout=LIVE_MS)
    assert service_call(service, "POST", "/v1/design/grants",
                        {"project_id": DECK_ID}).status_code == 201
    expect(panel.locator(f'[data-jdp="grant"][data-project-id="{DECK_ID}"]')).to_have_count(
        1, timeout=LIVE_MS)


def test_design_panel_screenshots(page, screenshots):
    panel = open_panel(page, DESIGN)
    expect(role(panel, "grant")).to_have_count(1)
    light_and_dark_screenshots(page, screenshots, DESIGN, "design-panel")


def test_a_grant_revoked_in_the_panel_is_gone_from_the_service(page, service):
    panel = open_panel(page, DESIGN)
    grant = panel.locator(f'[data-jdp="grant"][data-project-id="{DECK_ID}"]')
    role(grant, "grant-revoke").click()

    expect(grant).to_have_count(0)
    expect(role(panel, "outcome")).to_have_text(
        "The durable grant for Quarterly Review Deck is revoked.")
    grants = service_call(service, "GET", "/v1/design/grants").json()
    assert DECK_ID not in str(grants)


def test_a_consent_revoked_in_the_panel_is_seen_by_the_kernel(page, service):
    listed = run_new_cell(page, "%design list_projects")
    expect(listed.locator(".jp-Cell-outputArea")).to_contain_text("Quarterly Review Deck",
                                                             timeout=KERNEL_MS)
    panel = open_panel(page, DESIGN)
    role(panel, "consent-revoke").click()
    expect(role(panel, "consent")).to_have_text("consent: not given")
    assert service_call(service, "GET", "/v1/design/consent").json() == {
        "agent_design_projects": False}

    # the kernel's next Design call meets the service's needs_consent: that call fails
    # with one line naming `%design consent` (spec §6's failure table) …
    failed = run_new_cell(page, "%design list_projects")
    expect(failed.locator(".jp-Cell-outputArea")).to_contain_text(NEEDS_CONSENT,
                                                                  timeout=KERNEL_MS)
    expect(failed.locator(".jp-Cell-outputArea")).not_to_contain_text("Partner Launch Kit")
    # … and the one after shows the consent card instead of listing
    asked = run_new_cell(page, "%design list_projects")
    expect(asked.locator(".jp-Cell-outputArea")).to_contain_text(CONSENT_ASKED,
                                                                 timeout=KERNEL_MS)
    expect(asked.locator(".jp-Cell-outputArea")).not_to_contain_text("Partner Launch Kit")
